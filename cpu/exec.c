/*
 * exec.c: the CPU executor.  It runs any range of a round's units (columns of
 * a strided round, lines or planes of a contiguous one) on the hwloc-placed
 * pool with single-threaded FFTW plans, one job per block.  Strided columns
 * are gathered into a small per-thread buffer first, so the transforms run in
 * cache and FFTW vectorises across columns; MEASURE then plans on that buffer
 * and never touches user data.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cpu/cpu.h"
#include "src/core/status.h"

enum { MODE_GATHER, MODE_STRIDED, MODE_CONTIG };

#define GATHER_BYTES (8u << 20) /* per-thread buffer for strided columns */
#define MAX_SCRATCH_PLAN (256u << 20)

typedef struct cpu_round {
    hfft__round r;
    int mode;
    int inplace;
    int64_t blk;              /* columns (gather/strided) or lines (contig) per job */
    hfft__lines *plan;        /* full block */
    hfft__lines *plan_one;    /* one line (contig): short blocks run line by line */
} cpu_round;

struct hfft__cpu {
    int prec;
    int sign;
    size_t es;
    int nrounds;
    cpu_round rd[HFFT__MAX_ROUNDS];
    hfft__pool *pool;
    char **buf;
    size_t buf_bytes;
    /* the batch in flight */
    int h;
    const char *src;
    char *dst;
    int64_t u0, u1, nblk;
};

static int aligned64(const void *p) { return ((uintptr_t)p & 63u) == 0; }

static int plan_round(hfft__cpu *c, cpu_round *cr, int measure, void *in, void *out) {
    const hfft__round *r = &cr->r;
    unsigned flags = measure ? hfft__fftw_measure() : hfft__fftw_estimate();
    hfft__lines_desc d;
    memset(&d, 0, sizeof d);
    d.prec = c->prec;
    d.sign = c->sign;
    if (hfft__round_strided(r)) {
        if ((size_t)r->L * c->es <= GATHER_BYTES / 2) {
            int64_t wc = (int64_t)(GATHER_BYTES / ((size_t)r->L * c->es));
            if (wc > 64)
                wc = 64;
            if (wc > r->ni)
                wc = r->ni;
            cr->mode = MODE_GATHER;
            cr->blk = wc;
            d.rank = 1;
            d.n[0] = r->L;
            d.is = d.os = wc;
            d.howmany = wc;
            d.idist = d.odist = 1;
            d.inplace = 1;
            d.fftw_flags = flags;
            size_t need = (size_t)(r->L * wc) * c->es;
            if (need > c->buf_bytes)
                c->buf_bytes = need;
        } else {
            /* Long lines: transform them where they are, one column per job. */
            cr->mode = MODE_STRIDED;
            cr->blk = 1;
            d.rank = 1;
            d.n[0] = r->L;
            d.is = d.os = r->s;
            d.howmany = 1;
            d.idist = d.odist = 1;
            d.inplace = cr->inplace;
            d.fftw_flags = hfft__fftw_estimate() | hfft__fftw_unaligned();
            d.plan_in = in;
            d.plan_out = cr->inplace ? in : out;
        }
        return hfft__lines_plan(&d, &cr->plan);
    }
    /* Contiguous lines or planes: blocks of whole lines, in place or into dst. */
    cr->mode = MODE_CONTIG;
    int64_t line_bytes = r->L * (int64_t)c->es;
    int64_t blk = (int64_t)(1u << 20) / (line_bytes > 0 ? line_bytes : 1);
    if (blk < 1)
        blk = 1;
    int threads = hfft__pool_size(c->pool);
    if (blk * threads * 4 > r->no)
        blk = r->no / (threads * 4) > 0 ? r->no / (threads * 4) : 1;
    cr->blk = blk;
    d.rank = r->rank;
    if (r->rank == 1) {
        d.n[0] = r->L;
    } else {
        d.n[0] = r->n2[0];
        d.n[1] = r->n2[1];
    }
    d.is = d.os = 1;
    d.idist = d.odist = r->dout;
    d.inplace = cr->inplace;
    int misaligned = !aligned64(in) || !aligned64(out) || ((size_t)r->dout * c->es) % 64 != 0;
    size_t span = (size_t)(blk * r->dout) * c->es;
    if (span > MAX_SCRATCH_PLAN) {
        d.fftw_flags = hfft__fftw_estimate() | hfft__fftw_unaligned();
        d.plan_in = in;
        d.plan_out = cr->inplace ? in : out;
    } else {
        d.fftw_flags = flags | (misaligned ? hfft__fftw_unaligned() : 0u);
    }
    d.howmany = blk;
    int st = hfft__lines_plan(&d, &cr->plan);
    if (st || blk == 1)
        return st;
    d.howmany = 1;
    return hfft__lines_plan(&d, &cr->plan_one);
}

int hfft__cpu_create(int prec, int sign, int nrounds, const hfft__round *rounds, int measure,
                     hfft__pool *pool, void *in, void *out, hfft__cpu **out_cpu) {
    *out_cpu = NULL;
    hfft__cpu *c = calloc(1, sizeof *c);
    if (!c)
        return hfft__fail(HFFT_ERR_HOST_MEMORY, "CPU executor: out of memory");
    c->prec = prec;
    c->sign = sign;
    c->es = 2u * (size_t)prec;
    c->nrounds = nrounds;
    c->pool = pool;
    int st = 0;
    for (int h = 0; h < nrounds && !st; h++) {
        cpu_round *cr = &c->rd[h];
        cr->r = rounds[h];
        cr->inplace = h > 0 || in == out;
        st = plan_round(c, cr, measure, in, out);
    }
    if (!st && c->buf_bytes) {
        int n = hfft__pool_size(pool);
        c->buf = calloc((size_t)n, sizeof *c->buf);
        if (!c->buf)
            st = hfft__fail(HFFT_ERR_HOST_MEMORY, "CPU executor: out of memory");
        for (int t = 0; !st && t < n; t++) {
            c->buf[t] = aligned_alloc(64, (c->buf_bytes + 63) & ~(size_t)63);
            if (!c->buf[t])
                st = hfft__fail(HFFT_ERR_HOST_MEMORY, "CPU executor: %zu-byte thread buffer",
                                c->buf_bytes);
            else
                memset(c->buf[t], 0, c->buf_bytes);
        }
    }
    if (st) {
        hfft__cpu_destroy(c);
        return st;
    }
    *out_cpu = c;
    return 0;
}

void hfft__cpu_destroy(hfft__cpu *c) {
    if (!c)
        return;
    for (int h = 0; h < c->nrounds; h++) {
        hfft__lines_destroy(c->rd[h].plan);
        hfft__lines_destroy(c->rd[h].plan_one);
    }
    if (c->buf) {
        for (int t = 0; t < hfft__pool_size(c->pool); t++)
            free(c->buf[t]);
        free(c->buf);
    }
    free(c);
}

int64_t hfft__cpu_host_bytes(const hfft__cpu *c) {
    return c && c->buf ? (int64_t)c->buf_bytes * hfft__pool_size(c->pool) : 0;
}

static void run_job(void *ctx, int64_t j, int thread) {
    hfft__cpu *c = ctx;
    cpu_round *cr = &c->rd[c->h];
    const hfft__round *r = &cr->r;
    size_t es = c->es;
    if (cr->mode == MODE_CONTIG) {
        int64_t l0 = c->u0 + j * cr->blk;
        int64_t cnt = c->u1 - l0 < cr->blk ? c->u1 - l0 : cr->blk;
        size_t off = (size_t)(l0 * r->dout) * es;
        if (cnt == cr->blk) {
            hfft__lines_exec(cr->plan, (char *)c->src + off, c->dst + off);
            return;
        }
        /* The short block at the range's end runs line by line. */
        size_t line = (size_t)r->dout * es;
        for (int64_t k = 0; k < cnt; k++)
            hfft__lines_exec(cr->plan_one, (char *)c->src + off + k * line, c->dst + off + k * line);
        return;
    }
    int64_t o = j / c->nblk, b = j % c->nblk;
    int64_t i0 = c->u0 + b * cr->blk;
    int64_t w = c->u1 - i0 < cr->blk ? c->u1 - i0 : cr->blk;
    size_t base = (size_t)(o * r->dout + i0) * es;
    if (cr->mode == MODE_STRIDED) {
        hfft__lines_exec(cr->plan, (char *)c->src + base, c->dst + base);
        return;
    }
    char *buf = c->buf[thread];
    size_t row = (size_t)cr->blk * es, seg = (size_t)w * es, pitch = (size_t)r->s * es;
    const char *s = c->src + base;
    for (int64_t l = 0; l < r->L; l++)
        memcpy(buf + (size_t)l * row, s + (size_t)l * pitch, seg);
    hfft__lines_exec(cr->plan, buf, buf);
    char *d = c->dst + base;
    for (int64_t l = 0; l < r->L; l++)
        memcpy(d + (size_t)l * pitch, buf + (size_t)l * row, seg);
}

int hfft__cpu_start(hfft__cpu *c, int h, const void *src, void *dst, int64_t u0, int64_t u1) {
    cpu_round *cr = &c->rd[h];
    c->h = h;
    c->src = src;
    c->dst = dst;
    c->u0 = u0;
    c->u1 = u1;
    if (u1 <= u0)
        return hfft__pool_start(c->pool, 0, run_job, c);
    c->nblk = (u1 - u0 + cr->blk - 1) / cr->blk;
    int64_t jobs = hfft__round_strided(&cr->r) ? c->nblk * cr->r.no : c->nblk;
    return hfft__pool_start(c->pool, jobs, run_job, c);
}

int hfft__cpu_finish(hfft__cpu *c) {
    hfft__pool_wait(c->pool);
    return 0;
}
