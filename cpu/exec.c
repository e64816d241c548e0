/*
 * exec.c: the CPU executor.  It runs any range of a round's units (columns of
 * a strided round, lines or planes of a contiguous one) on the hwloc-placed
 * pool with single-threaded FFTW plans.  Strided columns go through tiles: a
 * few neighbouring columns gathered into a per-thread buffer sized to the
 * cache (rows prefetched into L2 ahead of the copies), each column contiguous
 * there, transformed as a row round's lines are, and scattered back with
 * streaming stores.  Planes are transformed by all threads together, rows and
 * then column tiles, a plane or two at a time, so that the column pass finds
 * the plane in the shared cache (FFTW's own batched 2D plans run several times
 * slower, even on planes that fit a core's cache).  MEASURE plans on scratch
 * and never touches user data.  The copies in cache (tiles, transposed rows)
 * are in tiles.c.
 */
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cpu/exec.h"
#include "cpu/stream.h"
#include "src/core/status.h"

static int aligned64(const void *p) { return ((uintptr_t)p & 63u) == 0; }

/* Contiguous lines of n elements, blk to a job, and one at a time. */
static int plan_lines(hfft__cpu *c, cpu_round *cr, const hfft__lines_desc *proto, int64_t blk,
                      void *in, void *out) {
    hfft__lines_desc d = *proto;
    /* a block starts at a multiple of each side's line: aligned where those are */
    size_t in_es = d.kind == HFFT__R2C ? c->es / 2 : c->es;
    size_t out_es = d.kind == HFFT__C2R ? c->es / 2 : c->es;
    int misaligned = c->unaligned || !aligned64(in) || !aligned64(out) ||
                     ((size_t)d.idist * in_es) % 64 != 0 || ((size_t)d.odist * out_es) % 64 != 0;
    size_t span = (size_t)(blk * d.idist) * in_es;
    if (span > MAX_SCRATCH_PLAN) {
        d.fftw_flags = hfft__fftw_estimate() | hfft__fftw_unaligned();
        d.plan_in = in;
        d.plan_out = cr->inplace ? in : out;
    } else if (misaligned) {
        d.fftw_flags |= hfft__fftw_unaligned();
    }
    d.howmany = blk;
    int st = hfft__lines_plan(&d, &cr->plan);
    if (st || blk == 1)
        return st;
    d.howmany = 1;
    return hfft__lines_plan(&d, &cr->plan_one);
}

/*
 * Four-step rows written transposed (r.tout): a job takes up to blk rows of
 * one group, TOUT_RUN bytes of each output column, into the thread's buffer
 * (rows ld elements apart, ld padded as a tile's columns are), and writes each
 * output column's run at once.
 */
static int plan_tout(hfft__cpu *c, cpu_round *cr, const hfft__lines_desc *proto, void *in,
                     void *out) {
    const hfft__round *r = &cr->r;
    size_t es = c->es;
    hfft__lines_desc d = *proto;
    cr->mode = MODE_TOUT;
    int64_t blk = (int64_t)(TOUT_RUN / es), cap = (int64_t)(TILE_MAX / ((size_t)r->L * es));
    blk = blk > cap ? cap : blk;
    blk = blk > r->tper ? r->tper : blk;
    cr->blk = blk < 1 ? 1 : blk;
    cr->ld = hfft__cpu_padded(r->L, es);
    hfft__cpu_reserve(c, (size_t)(cr->blk * cr->ld) * es + (size_t)(STEP * cr->blk) * es);
    d.n[0] = r->L;
    d.idist = r->dout;
    d.odist = cr->ld;
    d.inplace = 0; /* into the thread's buffer */
    return plan_lines(c, cr, &d, cr->blk, in, out);
}

/* Lines per job of contiguous lines of line_bytes: about LINES_BYTES, while each
   thread still gets four jobs. */
static int64_t contig_block(const hfft__cpu *c, int64_t line_bytes, int64_t lines) {
    int threads = hfft__pool_size(c->pool);
    int64_t blk = (int64_t)LINES_BYTES / (line_bytes > 0 ? line_bytes : 1);
    if (blk < 1)
        blk = 1;
    if (blk * threads * 4 > lines)
        blk = lines / (threads * 4) > 0 ? lines / (threads * 4) : 1;
    return blk;
}

/*
 * A real round (the first of an r2c transform, the last of a c2r one): its
 * lines are rows of nreal reals (or planes of such rows), rpitch reals apart
 * on the real side, nreal/2 + 1 complex elements on the other; FFTW's r2c or
 * c2r plans on blocks of them, as a complex round's lines.
 */
static int plan_real(hfft__cpu *c, cpu_round *cr, const hfft__lines_desc *proto, void *in,
                     void *out) {
    const hfft__round *r = &cr->r;
    hfft__lines_desc d = *proto;
    int64_t rows = hfft__round_rows(r), half = r->nreal / 2 + 1;
    size_t real_line = (size_t)(rows * r->rpitch) * (c->es / 2);
    int r2c = r->kind == HFFT__R2C;
    d.kind = r->kind;
    d.rank = r->rank;
    d.n[0] = r->rank == 2 ? r->n2[0] : r->nreal;
    d.n[1] = r->nreal;
    d.ipitch = r2c ? r->rpitch : half;
    d.opitch = r2c ? half : r->rpitch;
    d.idist = r2c ? rows * r->rpitch : r->dout;
    d.odist = r2c ? r->dout : rows * r->rpitch;
    if (r2c)
        cr->sline = real_line;
    else
        cr->dline = real_line;
    cr->blk = contig_block(c, r->dout * (int64_t)c->es, r->no);
    /* Complex rows that do not start on cache lines (nreal/2 + 1 elements, FFTW's
       layout) make FFTW's plans unaligned, without its vector code, and the real
       round then runs several times slower than a complex row round of the same
       bytes.  Where the real side is aligned, rows go through the thread's
       buffer instead, at a pitch of whole lines, and are copied to or from their
       place: r2c into the buffer and out, c2r in and from the buffer. */
    size_t es = c->es, cpitch = (size_t)r->dout * es;
    int64_t ld = hfft__cpu_whole_lines(half, es);
    const void *real_side = r2c ? in : out, *cplx_side = r2c ? out : in;
    int real_ok = !c->unaligned && aligned64(real_side) && real_line % 64 == 0;
    int cplx_off = cpitch % 64 != 0 || !aligned64(cplx_side);
    if (r->rank == 1 && !cr->inplace && real_ok && cplx_off &&
        (size_t)(cr->blk * ld) * es <= STAGE_MAX) {
        cr->stage_ld = ld;
        if (r2c)
            d.odist = ld;
        else
            d.idist = ld;
        hfft__cpu_reserve(c, (size_t)(cr->blk * ld) * es);
        /* planned on scratch: the buffer's side is aligned, and so is the real one */
        return plan_lines(c, cr, &d, cr->blk, r2c ? in : NULL, r2c ? NULL : out);
    }
    return plan_lines(c, cr, &d, cr->blk, in, out);
}

static int plan_mode(hfft__cpu *c, cpu_round *cr, int measure, void *in, void *out) {
    const hfft__round *r = &cr->r;
    size_t es = c->es;
    unsigned flags = measure ? hfft__fftw_measure() : hfft__fftw_estimate();
    hfft__lines_desc d;
    memset(&d, 0, sizeof d);
    d.prec = c->prec;
    d.sign = c->sign;
    d.rank = 1;
    d.is = d.os = 1;
    d.inplace = cr->inplace;
    d.fftw_flags = flags;
    int threads = hfft__pool_size(c->pool);
    if (hfft__round_strided(r)) {
        if ((size_t)r->L * es <= COLUMN_MAX) {
            cr->mode = MODE_TILE;
            cr->stream = 1; /* a tile's rows are long gone from the cache when it scatters */
            int st = hfft__cpu_plan_tile(c, &cr->t, r->L, r->s, r->ni, flags, r->r2r);
            /* A job's run of tiles: RUN bytes of each row, while every thread
               still gets several jobs. */
            int64_t tiles = (r->ni + cr->t.B - 1) / cr->t.B, per_job = RUN / ((size_t)cr->t.B * es);
            while (per_job > 1 && r->no * (tiles / per_job) < 4 * threads)
                per_job /= 2;
            cr->blk = cr->t.B * (per_job > 1 ? per_job : 1);
            return st;
        }
        /* Long lines: transform them where they are, one column per job. */
        cr->mode = MODE_STRIDED;
        cr->blk = 1;
        d.n[0] = r->L;
        d.is = d.os = r->s;
        d.howmany = 1;
        d.r2r = r->r2r;
        d.fftw_flags = hfft__fftw_estimate() | hfft__fftw_unaligned();
        d.plan_in = in;
        d.plan_out = cr->inplace ? in : out;
        return hfft__lines_plan(&d, &cr->plan);
    }
    if (r->rank == 2 && r->kind == HFFT__C2C) {
        /* Planes: all threads on one or two planes at a time, rows first. */
        cr->mode = MODE_PLANE;
        int64_t rows = r->n2[0], cols = r->n2[1];
        int64_t blk = (int64_t)(PLANE_ROWS / ((size_t)cols * es));
        blk = blk < 1 ? 1 : blk > rows ? rows : blk;
        cr->blk = blk;
        cr->kr = (rows + blk - 1) / blk;
        /* The column pass finds the plane in the shared cache unless the planes in
           flight outgrow it; then its rows must be written past it. */
        cr->stream = (size_t)r->L * es * 2 > hfft__cache_bytes();
        cr->rows_done = calloc((size_t)r->no, sizeof *cr->rows_done);
        if (!cr->rows_done)
            return hfft__fail(HFFT_ERR_HOST_MEMORY, "CPU executor: out of memory");
        /* r2r: the columns take the plane's first kind, the rows its second */
        int code = r->r2r;
        int st = hfft__cpu_plan_tile(c, &cr->t, rows, cols, cols, flags,
                                     code ? hfft__r2r_code(hfft__r2r_kind(code, 0), 0, 0) : 0);
        if (st)
            return st;
        cr->kc = (cols + cr->t.B - 1) / cr->t.B;
        d.r2r = code ? hfft__r2r_code(hfft__r2r_kind(code, 1), 0, code & HFFT__R2R_ROW) : 0;
        d.n[0] = cols;
        d.idist = d.odist = cols;
        return plan_lines(c, cr, &d, blk, in, out);
    }
    if (r->tout)
        return plan_tout(c, cr, &d, in, out);
    /* Contiguous lines: blocks of whole lines, in place or into dst. */
    cr->mode = MODE_CONTIG;
    cr->sline = cr->dline = (size_t)r->dout * es;
    if (r->kind != HFFT__C2C)
        return plan_real(c, cr, &d, in, out);
    int64_t blk = contig_block(c, r->L * (int64_t)es, r->no);
    cr->blk = blk;
    d.r2r = r->r2r;
    d.n[0] = r->L;
    d.idist = d.odist = r->dout;
    return plan_lines(c, cr, &d, blk, in, out);
}

/*
 * Rounds of n1-point rows and n0-point columns make a long line's transform a
 * 2D one, each round's units spread over the threads: FFTW's threaded plan of
 * one long line runs several times slower than the 2D transform of the same
 * array.  Where n1 is tiny the rounds are not batches, and columns longer than
 * COLUMN_MAX are transformed where they lie, strided: FFTW's plan stays for
 * those.
 */
#define SPLIT_MIN (8u << 20) /* bytes of a line from which the split pays */
int hfft__cpu_splits(int64_t n0, int64_t n1, int64_t lines, size_t es, int threads) {
    return lines < threads && (size_t)(n0 * n1) * es >= SPLIT_MIN && n1 >= 16 &&
           (size_t)n0 * es <= COLUMN_MAX;
}

/* The round's transforms, and a four-step round's twiddle tables. */
static int plan_round(hfft__cpu *c, cpu_round *cr, int measure, void *in, void *out) {
    int st = plan_mode(c, cr, measure, in, out);
    if (!st && cr->r.twn)
        st = hfft__twiddles_make(cr->r.twn, c->sign, &cr->tw);
    return st;
}

/* The most claims a batch of round cr can have. */
static int64_t most_claims(const cpu_round *cr) {
    int64_t units = hfft__round_units(&cr->r);
    if (cr->mode == MODE_PLANE)
        return units;
    if (cr->mode == MODE_TOUT || cr->blk < 1)
        return 0;
    return units / cr->blk + 2;
}

int hfft__cpu_create(int prec, int sign, int nrounds, const hfft__round *rounds,
                     const int *inplace, unsigned flags, hfft__pool *pool, void *in, void *out,
                     hfft__cpu **out_cpu) {
    *out_cpu = NULL;
    hfft__cpu *c = calloc(1, sizeof *c);
    if (!c)
        return hfft__fail(HFFT_ERR_HOST_MEMORY, "CPU executor: out of memory");
    c->prec = prec;
    c->sign = sign;
    c->es = 2u * (size_t)prec;
    c->nrounds = nrounds;
    c->pool = pool;
    c->unaligned = (flags & HFFT__CPU_UNALIGNED) != 0;
    c->measure = (flags & HFFT__CPU_MEASURE) != 0;
    int st = pthread_mutex_init(&c->take_mu, NULL)
                 ? hfft__fail(HFFT_ERR_HOST_MEMORY, "CPU executor: pthread_mutex_init failed")
                 : 0;
    c->mu_ok = !st;
    for (int h = 0; h < nrounds && !st; h++) {
        cpu_round *cr = &c->rd[h];
        cr->r = rounds[h];
        cr->inplace = inplace[h];
        st = plan_round(c, cr, c->measure, in, out);
        int64_t cap = most_claims(cr);
        c->claim_cap = cap > c->claim_cap ? cap : c->claim_cap;
        c->first[h] = -1;
    }
    if (!st && c->claim_cap && !(c->claim = calloc((size_t)c->claim_cap, sizeof *c->claim)))
        st = hfft__fail(HFFT_ERR_HOST_MEMORY, "CPU executor: out of memory");
    if (!st && c->buf_bytes)
        st = hfft__cpu_buffers(c, 0);
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
        cpu_round *cr = &c->rd[h];
        hfft__lines_destroy(cr->plan);
        hfft__lines_destroy(cr->plan_one);
        hfft__lines_destroy(cr->t.plan);
        hfft__lines_destroy(cr->t.plan_one);
        free(cr->rows_done);
        hfft__twiddles_free(&cr->tw);
    }
    hfft__cpu_four_destroy(c->four);
    hfft__cpu_free_buffers(c);
    free((void *)c->claim);
    if (c->mu_ok)
        pthread_mutex_destroy(&c->take_mu);
    free(c);
}

int64_t hfft__cpu_host_bytes(const hfft__cpu *c) {
    return c ? (c->buf ? (int64_t)c->buf_alloc * hfft__pool_size(c->pool) : 0) +
                   hfft__cpu_four_bytes(c)
             : 0;
}

/* ---- jobs ---- */

/* cnt lines from src to dst, sline and dline bytes apart: the block's plan, or one
   by one. */
static void run_lines(const cpu_round *cr, const char *src, char *dst, int64_t cnt, size_t sline,
                      size_t dline) {
    if (cnt == cr->blk) {
        hfft__lines_exec(cr->plan, (char *)src, dst);
        return;
    }
    for (int64_t k = 0; k < cnt; k++)
        hfft__lines_exec(cr->plan_one, (char *)src + k * sline, dst + k * dline);
}

/*
 * Plane rounds: plane p's row jobs (kr of them) come before its column-tile
 * jobs (kc), which wait until the rows are done, the next plane's rows beside
 * this plane's columns so that the wait is short (hfft__cpu_interleaved).
 */
static int plane_job(hfft__cpu *c, cpu_round *cr, int64_t j, int thread) {
    const hfft__round *r = &cr->r;
    int64_t kr = cr->kr, p, k;
    int rows = hfft__cpu_interleaved(j, kr, cr->kc, c->u1 - c->u0, &p, &k);
    size_t es = c->es, plane = (size_t)r->dout * es;
    if (!hfft__cpu_claims(c->claim, p, &c->asked))
        return 0; /* the GPU took the plane back: none of its jobs runs here */
    if (rows) {
        int64_t l0 = k * cr->blk;
        int64_t cnt = r->n2[0] - l0 < cr->blk ? r->n2[0] - l0 : cr->blk;
        size_t line = (size_t)r->n2[1] * es, off = (size_t)(c->u0 + p) * plane + l0 * line;
        run_lines(cr, c->src + off, c->dst + off, cnt, line, line);
        atomic_fetch_add_explicit(&cr->rows_done[p], 1, memory_order_release);
        return 1;
    }
    while (atomic_load_explicit(&cr->rows_done[p], memory_order_acquire) < kr)
        sched_yield();
    int64_t i0 = k * cr->t.B, i1 = i0 + cr->t.B < r->n2[1] ? i0 + cr->t.B : r->n2[1];
    char *d = c->dst + (size_t)(c->u0 + p) * plane;
    hfft__cpu_tiles(c, &cr->t, NULL, d, d, i0, i1, thread, cr->stream);
    return 1;
}

/* A block of staged real rows (cr->stage_ld): r2c into the thread's buffer, then
   each row's complex elements to their place; c2r the other way round. */
static void staged_rows(const hfft__cpu *c, const cpu_round *cr, int64_t j, int thread) {
    int64_t l0 = c->u0 + j * cr->blk;
    int64_t cnt = c->u1 - l0 < cr->blk ? c->u1 - l0 : cr->blk;
    size_t ld = (size_t)cr->stage_ld * c->es, row = (size_t)(cr->r.nreal / 2 + 1) * c->es;
    const char *src = c->src + (size_t)l0 * cr->sline;
    char *dst = c->dst + (size_t)l0 * cr->dline, *buf = c->buf[thread];
    if (cr->r.kind == HFFT__R2C) {
        run_lines(cr, src, buf, cnt, cr->sline, ld);
        for (int64_t k = 0; k < cnt; k++)
            memcpy(dst + (size_t)k * cr->dline, buf + (size_t)k * ld, row);
    } else {
        for (int64_t k = 0; k < cnt; k++)
            memcpy(buf + (size_t)k * ld, src + (size_t)k * cr->sline, row);
        run_lines(cr, buf, dst, cnt, ld, cr->dline);
    }
}

/* Job j of the batch in flight: 0 where the GPU took its unit back. */
static int one_job(hfft__cpu *c, cpu_round *cr, int64_t j, int thread) {
    const hfft__round *r = &cr->r;
    size_t es = c->es;
    if (cr->mode == MODE_PLANE)
        return plane_job(c, cr, j, thread);
    if (cr->mode == MODE_TOUT) {
        hfft__cpu_tout_job(c, cr, j, thread);
        return 1;
    }
    /* a block of lines, or one outer index of a block of columns: the block's claim */
    if (!hfft__cpu_claims(c->claim, cr->mode == MODE_CONTIG ? j : j / r->no, &c->asked))
        return 0;
    if (cr->mode == MODE_CONTIG && cr->stage_ld) {
        staged_rows(c, cr, j, thread);
        return 1;
    }
    if (cr->mode == MODE_CONTIG) {
        int64_t l0 = c->u0 + j * cr->blk;
        int64_t cnt = c->u1 - l0 < cr->blk ? c->u1 - l0 : cr->blk;
        size_t off = (size_t)(l0 * r->dout) * es;
        run_lines(cr, c->src + (size_t)l0 * cr->sline, c->dst + (size_t)l0 * cr->dline, cnt,
                  cr->sline, cr->dline);
        /* four-step rows in transposed order: line l's twiddles, j its index in its group
           (no group: a single column, whose twiddles are all 1) */
        for (int64_t k = 0; r->twn && r->tper && k < cnt; k++)
            hfft__twiddles_rotate(&cr->tw, c->prec, c->dst + off + (size_t)(k * r->dout) * es,
                                  r->L, 1, (l0 + k) % r->tper);
        return 1;
    }
    /* Columns: blocks aligned to multiples of blk, cut to the range at its ends, each
       block's outer indices in turn (so that the blocks no job has started are the
       last ones, which the GPU can take back whole). */
    int64_t o = j % r->no, b = c->b0 + j / r->no;
    int64_t i0 = b * cr->blk > c->u0 ? b * cr->blk : c->u0;
    int64_t i1 = (b + 1) * cr->blk < c->u1 ? (b + 1) * cr->blk : c->u1;
    size_t base = (size_t)(o * r->dout) * es;
    const hfft__twiddles *tw = r->twn ? &cr->tw : NULL;
    if (cr->mode == MODE_STRIDED) {
        char *d = c->dst + base + (size_t)i0 * es;
        hfft__lines_exec(cr->plan, (char *)c->src + base + (size_t)i0 * es, d);
        if (tw)
            hfft__twiddles_rotate(tw, c->prec, d, r->L, r->s, i0);
    } else {
        hfft__cpu_tiles(c, &cr->t, tw, c->src + base, c->dst + base, i0, i1, thread, cr->stream);
    }
    return 1;
}

static void run_job(void *ctx, int64_t j, int thread) {
    hfft__cpu *c = ctx;
    if (one_job(c, &c->rd[c->h], j, thread))
        atomic_fetch_add_explicit(&c->jobs_done, 1, memory_order_relaxed);
}

int hfft__cpu_start(hfft__cpu *c, int h, const void *src, void *dst, int64_t u0, int64_t u1) {
    if (c->four)
        return hfft__cpu_four_start(c, h, src, dst);
    cpu_round *cr = &c->rd[h];
    c->h = h;
    c->src = src;
    c->dst = dst;
    c->u0 = u0;
    c->u1 = u1;
    c->nclaim = 0;
    c->first[h] = u0;
    c->taken[h] = 0;
    atomic_store_explicit(&c->jobs_done, 0, memory_order_relaxed);
    atomic_store_explicit(&c->asked, 0, memory_order_relaxed);
    c->t0 = hfft__now();
    if (u1 <= u0)
        return hfft__pool_start(c->pool, 0, run_job, c);
    int64_t jobs;
    if (cr->mode == MODE_PLANE) {
        for (int64_t p = 0; p < u1 - u0; p++)
            atomic_store_explicit(&cr->rows_done[p], 0, memory_order_relaxed);
        jobs = (u1 - u0) * (cr->kr + cr->kc);
        c->nclaim = u1 - u0;
    } else if (cr->mode == MODE_CONTIG) {
        c->nblk = (u1 - u0 + cr->blk - 1) / cr->blk;
        jobs = c->nclaim = c->nblk;
    } else if (cr->mode == MODE_TOUT) {
        int64_t per = cr->r.tper, nb = (per + cr->blk - 1) / cr->blk;
        c->b0 = u0 / per * nb + u0 % per / cr->blk;
        jobs = (u1 - 1) / per * nb + (u1 - 1) % per / cr->blk - c->b0 + 1;
    } else {
        c->b0 = u0 / cr->blk;
        c->nblk = (u1 + cr->blk - 1) / cr->blk - c->b0;
        jobs = c->nblk * cr->r.no;
        c->nclaim = c->nblk;
    }
    for (int64_t i = 0; i < c->nclaim; i++)
        atomic_store_explicit(&c->claim[i], FREE, memory_order_relaxed);
    return hfft__pool_start(c->pool, jobs, run_job, c);
}

int hfft__cpu_finish(hfft__cpu *c) {
    hfft__pool_wait(c->pool);
    return 0;
}

/* ---- the GPU's take-back ----
 * Each unit of a batch (a job's block of lines, a block of columns with all its
 * outer indices, a plane) has a claim that the first of its jobs to start sets;
 * jobs are handed out in order, so the units no job has started are the last
 * ones.  Near the end of its own units the GPU asks for as many of them as make
 * both sides end soonest (hfft__cpu_take), claims them and runs them itself.
 * Transposed-row rounds (r.tout) have no claims: the GPU takes none of theirs. */

/* The first round unit of the batch's claim k (k = nclaim: the batch's end). */
static int64_t claim_start(const hfft__cpu *c, const cpu_round *cr, int64_t k) {
    int64_t u = cr->mode == MODE_PLANE    ? c->u0 + k
                : cr->mode == MODE_CONTIG ? c->u0 + k * cr->blk
                                          : (c->b0 + k) * cr->blk;
    return u < c->u0 ? c->u0 : u > c->u1 ? c->u1 : u;
}

/* (cpu.h) */
int64_t hfft__cpu_take(hfft__cpu *c, int h, double unit_s, double left_s, int64_t *first) {
    *first = 0;
    if (c->four)
        return hfft__cpu_four_take(c, h, unit_s, left_s, first);
    int64_t units = 0;
    pthread_mutex_lock(&c->take_mu);
    if (h == c->h && c->nclaim > 0) {
        const cpu_round *cr = &c->rd[h];
        /* round units per claim and per job (a plane's jobs are its row and tile jobs) */
        double u = cr->mode == MODE_PLANE ? 1.0 : (double)cr->blk;
        double per_job = cr->mode == MODE_PLANE    ? 1.0 / (double)(cr->kr + cr->kc)
                         : cr->mode == MODE_CONTIG ? u
                                                   : u / (double)cr->r.no;
        int64_t k, last = claim_start(c, cr, c->nclaim - 1);
        /* a tile round's first block may be cut by the range */
        double first_u = (double)(claim_start(c, cr, 1) - c->u0);
        double done = (double)atomic_load_explicit(&c->jobs_done, memory_order_relaxed) * per_job;
        int64_t n = hfft__cpu_take_claims(c->claim, c->nclaim, u, first_u, (double)(c->u1 - last),
                                          (double)(c->u1 - c->u0), done, hfft__now() - c->t0,
                                          unit_s, left_s, &k);
        *first = claim_start(c, cr, k);
        units = claim_start(c, cr, k + n) - *first;
        c->taken[h] += units;
    }
    atomic_store_explicit(&c->asked, 1, memory_order_release);
    pthread_mutex_unlock(&c->take_mu);
    return units;
}

int64_t hfft__cpu_taken(const hfft__cpu *c, int h) {
    if (c->four)
        return hfft__cpu_four_taken(c, h);
    return h >= 0 && h < c->nrounds ? c->taken[h] : 0;
}

double hfft__cpu_gpu_share(const hfft__cpu *c, int h) {
    if (c->four)
        return hfft__cpu_four_gpu_share(c, h);
    if (h < 0 || h >= c->nrounds || c->first[h] < 0)
        return -1;
    return (double)(c->first[h] + c->taken[h]) / (double)hfft__round_units(&c->rd[h].r);
}
