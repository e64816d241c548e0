/*
 * tiles.c: the CPU executor's copies in cache: a tile round's plans and the
 * threads' buffers they use, tiles of neighbouring columns gathered into a
 * thread's buffer, transformed and scattered back, and a four-step's rows
 * written transposed (exec.h).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cpu/blocks.h"
#include "cpu/exec.h"
#include "cpu/stream.h"
#include "src/core/status.h"

/* ---- a tile round's plans, and the threads' buffers ---- */

/* L elements rounded up to whole cache lines. */
int64_t hfft__cpu_whole_lines(int64_t L, size_t es) {
    return (int64_t)(((size_t)L * es + HFFT__LINE - 1) / HFFT__LINE * HFFT__LINE / es);
}

/* L elements rounded up to whole cache lines, and to an odd number of them, so
   that a tile's columns fall in different cache sets. */
int64_t hfft__cpu_padded(int64_t L, size_t es) {
    size_t lines = ((size_t)L * es + HFFT__LINE - 1) / HFFT__LINE;
    if (lines % 2 == 0)
        lines++;
    return (int64_t)(lines * HFFT__LINE / es);
}

void hfft__cpu_reserve(hfft__cpu *c, size_t bytes) {
    if (bytes > c->buf_bytes)
        c->buf_bytes = bytes;
}

int hfft__cpu_plan_tile(hfft__cpu *c, tile *t, int64_t L, int64_t pitch, int64_t ni,
                        unsigned flags, int r2r) {
    size_t es = c->es;
    t->L = L;
    t->pitch = pitch;
    t->ld = hfft__cpu_padded(L, es);
    int64_t B = (int64_t)(TILE_BYTES / ((size_t)L * es));
    int64_t per_line = (int64_t)(HFFT__LINE / es);
    if (B > (int64_t)(ROW_MAX / es))
        B = (int64_t)(ROW_MAX / es);
    if (B < (int64_t)(ROW_MIN / es))
        B = (int64_t)(ROW_MIN / es);
    if (B > (int64_t)(TILE_MAX / ((size_t)L * es)))
        B = (int64_t)(TILE_MAX / ((size_t)L * es));
    if (B > per_line)
        B -= B % per_line;
    B = B < 1 ? 1 : B;
    t->B = B < ni ? B : ni;
#ifdef HFFT_HAVE_BLOCKS
    t->blocks = hfft__blocks_usable();
#else
    t->blocks = 0;
#endif
    /* the tile, the scatter's stage, and a line's pre-twiddles (tiles_pre) */
    hfft__cpu_reserve(c, (size_t)(t->B * t->ld) * es + (size_t)(STEP * t->B) * es + (size_t)L * 16);
    hfft__lines_desc d;
    memset(&d, 0, sizeof d);
    d.prec = c->prec;
    d.sign = c->sign;
    d.rank = 1;
    d.n[0] = L;
    d.is = d.os = 1;
    d.howmany = t->B;
    d.idist = d.odist = t->ld;
    d.inplace = 1;
    d.fftw_flags = flags;
    d.r2r = r2r; /* (the lines' r2r code: a tile holds whole columns) */
    int st = hfft__lines_plan(&d, &t->plan);
    if (st || t->B == 1)
        return st;
    d.howmany = 1;
    return hfft__lines_plan(&d, &t->plan_one);
}

typedef struct alloc_ctx {
    hfft__cpu *c;
    size_t bytes;
} alloc_ctx;

/* On each pool thread: its buffer, first touched there so that its pages come
   from the thread's own memory node. */
static void alloc_buffer(void *ctx, int64_t job, int thread) {
    alloc_ctx *a = ctx;
    (void)job;
    char *b = aligned_alloc(64, a->bytes);
    if (b)
        memset(b, 0, a->bytes);
    a->c->buf[thread] = b;
}

void hfft__cpu_free_buffers(hfft__cpu *c) {
    if (c->buf) {
        for (int t = 0; t < hfft__pool_size(c->pool); t++)
            free(c->buf[t]);
        free(c->buf);
    }
    c->buf = NULL;
    c->buf_alloc = 0;
}

int hfft__cpu_buffers(hfft__cpu *c, size_t bytes) {
    bytes = bytes > c->buf_bytes ? bytes : c->buf_bytes;
    bytes = (bytes + 63) & ~(size_t)63;
    c->buf_bytes = bytes;
    if (c->buf && c->buf_alloc >= bytes)
        return 0;
    hfft__cpu_free_buffers(c);
    int n = hfft__pool_size(c->pool);
    c->buf = calloc((size_t)n, sizeof *c->buf);
    if (!c->buf)
        return hfft__fail(HFFT_ERR_HOST_MEMORY, "CPU executor: out of memory");
    alloc_ctx a = {c, bytes};
    hfft__pool_each(c->pool, alloc_buffer, &a);
    for (int t = 0; t < n; t++)
        if (!c->buf[t])
            return hfft__fail(HFFT_ERR_HOST_MEMORY, "CPU executor: %zu-byte thread buffer", bytes);
    c->buf_alloc = bytes;
    return 0;
}

/* The order of interleaved row and tile jobs (exec.h): R(0), R(1) C(0), R(2) C(1),
   ..., C(n-1), the next item's rows beside this item's tiles.  A job waits only
   for jobs handed out before it, which never wait for it: no deadlock, on any
   thread count. */
int hfft__cpu_interleaved(int64_t j, int64_t kr, int64_t kc, int64_t n, int64_t *item, int64_t *k) {
    *item = 0;
    *k = j;
    if (j < kr)
        return 1;
    int64_t s = 1 + (j - kr) / (kr + kc);
    *k = (j - kr) % (kr + kc);
    int rows = s < n && *k < kr;
    *item = rows ? s : s - 1;
    if (!rows && s < n)
        *k -= kr;
    return rows;
}

/* ---- tiles ----
 * A job takes a run of neighbouring tiles.  Each is gathered into the
 * thread's buffer (column k at k * ld bytes), transformed there and scattered
 * back.  The transposes copy elements of es bytes, inlined for es = 8 and 16
 * so that each copy is one or two moves.  (Scattering one tile while
 * gathering the next, through two buffers, gains nothing once the gather
 * prefetches into L2, and loses for long columns.) */
#define INLINE static inline __attribute__((always_inline))

/* Into the L2 cache (prefetcht1), not L1: a core tracks more outstanding
   misses there, and rows pages apart are latency-bound. */
static inline void prefetch(const char *p, size_t bytes) {
    for (size_t k = 0; k < bytes; k += HFFT__LINE)
        __builtin_prefetch(p + k, 0, 2);
    __builtin_prefetch(p + bytes - 1, 0, 2);
}

#ifdef HFFT_HAVE_BLOCKS
_Static_assert(STEP == 8, "the gather's blocks take 8 rows");
#endif

/* Columns [0, w) of L rows `pitch` bytes apart into buf, column k at k * ld
   bytes, STEP rows at a time (with `blocks`, whole steps through registers);
   prefetches the rows AHEAD further on, which hardware prefetchers would not
   (they stop at page boundaries). */
INLINE void gather(const char *src, size_t pitch, int64_t L, int64_t w, char *buf, size_t ld,
                   size_t es, int blocks) {
    size_t seg = (size_t)w * es;
#ifdef HFFT_HAVE_BLOCKS
    int64_t q = es == 8 ? 4 : 2, wb = blocks ? w / q * q : 0;
#else
    (void)blocks;
#endif
    for (int64_t l0 = 0; l0 < L; l0 += STEP) {
        int64_t n = L - l0 < STEP ? L - l0 : STEP;
        for (int64_t l = l0 + AHEAD; l < l0 + AHEAD + n && l < L; l++)
            prefetch(src + (size_t)l * pitch, seg);
        const char *s = src + (size_t)l0 * pitch;
        char *d = buf + (size_t)l0 * es;
        int64_t k0 = 0;
#ifdef HFFT_HAVE_BLOCKS
        if (n == STEP && wb > 0) {
            hfft__gather_blocks(s, pitch, wb, d, ld, es);
            k0 = wb;
        }
#endif
        s += (size_t)k0 * es;
        d += (size_t)k0 * ld;
        for (int64_t k = k0; k < w; k++, s += es, d += ld)
            for (int64_t l = 0; l < n; l++)
                memcpy(d + (size_t)l * es, s + (size_t)l * pitch, es);
    }
}

/* The reverse; with `stream`, STEP rows at a time through `stage` and out
   with streaming stores (dst and each row's bytes are then whole lines). */
INLINE void scatter(char *dst, size_t pitch, int64_t L, int64_t w, const char *buf, size_t ld,
                    size_t es, char *stage, int stream) {
    size_t seg = (size_t)w * es;
    for (int64_t l0 = 0; l0 < L; l0 += STEP) {
        int64_t n = L - l0 < STEP ? L - l0 : STEP;
        const char *s = buf + (size_t)l0 * es;
        char *d = stream ? stage : dst + (size_t)l0 * pitch;
        size_t dp = stream ? seg : pitch;
        for (int64_t k = 0; k < w; k++, s += ld, d += es)
            for (int64_t l = 0; l < n; l++)
                memcpy(d + (size_t)l * dp, s + (size_t)l * es, es);
        for (int64_t l = 0; stream && l < n; l++)
            hfft__stream_copy(dst + (size_t)(l0 + l) * pitch, stage + (size_t)l * seg, seg);
    }
    if (stream)
        hfft__stream_fence();
}

/* Columns [i0, i1) of a region whose column 0 is at src and dst (which may be
   one array), in tiles aligned to multiples of B; with pre, each column's
   element k times W^(k pre_j) before the transforms. */
INLINE void tiles(const tile *t, const hfft__twiddles *tw, const hfft__twiddles *pre, int64_t pre_j,
                  const char *src, char *dst, int64_t i0, int64_t i1, char *buf, int stream,
                  size_t es) {
    size_t pitch = (size_t)t->pitch * es, ld = (size_t)t->ld * es;
    char *stage = buf + (size_t)t->B * ld;
    /* every column here takes the same pre-twiddles: computed once */
    double *wv = (double *)(stage + (size_t)(STEP * t->B) * es);
    if (pre)
        hfft__twiddles_vector(pre, pre_j, t->L, wv);
    for (int64_t a = i0; a < i1;) {
        int64_t e = (a / t->B + 1) * t->B < i1 ? (a / t->B + 1) * t->B : i1, w = e - a;
        char *d = dst + (size_t)a * es;
        gather(src + (size_t)a * es, pitch, t->L, w, buf, ld, es, t->blocks);
        for (int64_t k = 0; pre && k < w; k++)
            hfft__twiddles_apply((int)es / 2, buf + (size_t)k * ld, t->L, wv);
        if (w == t->B)
            hfft__lines_exec(t->plan, buf, buf);
        else
            for (int64_t k = 0; k < w; k++)
                hfft__lines_exec(t->plan_one, buf + (size_t)k * ld, buf + (size_t)k * ld);
        for (int64_t k = 0; tw && k < w; k++) /* four-step: column a + k's twiddles */
            hfft__twiddles_rotate(tw, (int)es / 2, buf + (size_t)k * ld, t->L, 1, a + k);
        scatter(d, pitch, t->L, w, buf, ld, es, stage,
                stream && pitch % HFFT__LINE == 0 && hfft__streamable(d, (size_t)w * es));
        a = e;
    }
}

void hfft__cpu_tiles(const hfft__cpu *c, const tile *t, const hfft__twiddles *tw, const char *src,
                     char *dst, int64_t i0, int64_t i1, int thread, int stream) {
    if (c->es == 8)
        tiles(t, tw, NULL, 0, src, dst, i0, i1, c->buf[thread], stream, 8);
    else
        tiles(t, tw, NULL, 0, src, dst, i0, i1, c->buf[thread], stream, 16);
}

void hfft__cpu_tiles_pre(const hfft__cpu *c, const tile *t, const hfft__twiddles *pre,
                         int64_t pre_j, const char *src, char *dst, int64_t i0, int64_t i1,
                         int thread, int stream) {
    if (c->es == 8)
        tiles(t, NULL, pre, pre_j, src, dst, i0, i1, c->buf[thread], stream, 8);
    else
        tiles(t, NULL, pre, pre_j, src, dst, i0, i1, c->buf[thread], stream, 16);
}

/* Rows [0, w) of buf (ld elements apart, L long) written transposed: element
   k of row b to dst + (k pitch + b) elements, STEP output runs at a time
   through `stage`; with `stream`, each run (w elements) as whole cache lines
   past the cache. */
INLINE void transpose_out(char *dst, size_t pitch, int64_t L, int64_t w, const char *buf,
                          size_t ld, size_t es, char *stage, int stream) {
    size_t run = (size_t)w * es;
    for (int64_t k0 = 0; k0 < L; k0 += STEP) {
        int64_t n = L - k0 < STEP ? L - k0 : STEP;
        for (int64_t b = 0; b < w; b++) {
            const char *s = buf + (size_t)b * ld + (size_t)k0 * es;
            for (int64_t k = 0; k < n; k++)
                memcpy(stage + (size_t)k * run + (size_t)b * es, s + (size_t)k * es, es);
        }
        for (int64_t k = 0; k < n; k++) {
            char *d = dst + (size_t)(k0 + k) * pitch;
            if (stream)
                hfft__stream_copy(d, stage + (size_t)k * run, run);
            else
                memcpy(d, stage + (size_t)k * run, run);
        }
    }
    if (stream)
        hfft__stream_fence();
}

/* A job of a transposed-rows round: block b0 + j of blk rows, a group's
   blocks numbered in turn, cut to the range [u0, u1). */
void hfft__cpu_tout_job(const hfft__cpu *c, const cpu_round *cr, int64_t j, int thread) {
    const hfft__round *r = &cr->r;
    size_t es = c->es;
    int64_t per = r->tper, nb = (per + cr->blk - 1) / cr->blk, b = c->b0 + j, g = b / nb;
    int64_t l0 = g * per + b % nb * cr->blk;
    int64_t l1 = l0 + cr->blk < (g + 1) * per ? l0 + cr->blk : (g + 1) * per;
    l0 = l0 > c->u0 ? l0 : c->u0;
    l1 = l1 < c->u1 ? l1 : c->u1;
    int64_t w = l1 - l0;
    char *buf = c->buf[thread];
    size_t ld = (size_t)cr->ld * es, line = (size_t)r->dout * es;
    const char *src = c->src + (size_t)l0 * line;
    if (w == cr->blk)
        hfft__lines_exec(cr->plan, (char *)src, buf);
    else
        for (int64_t k = 0; k < w; k++)
            hfft__lines_exec(cr->plan_one, (char *)src + k * line, buf + k * ld);
    for (int64_t k = 0; r->twn && k < w; k++)
        hfft__twiddles_rotate(&cr->tw, c->prec, buf + k * ld, r->L, 1, (l0 + k) % per);
    /* row k0 of group g holds X[k0 + per k1] at k1 */
    char *dst = c->dst + ((size_t)(g * per * r->dout) + (size_t)(l0 - g * per)) * es;
    size_t pitch = (size_t)per * es;
    int stream = pitch % HFFT__LINE == 0 && hfft__streamable(dst, (size_t)w * es);
    char *stage = buf + (size_t)cr->blk * ld;
    if (es == 8)
        transpose_out(dst, pitch, r->L, w, buf, ld, 8, stage, stream);
    else
        transpose_out(dst, pitch, r->L, w, buf, ld, 16, stage, stream);
}
