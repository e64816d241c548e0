/*
 * sched.c: the GPU engine's out-of-card schedule, written once against the
 * device interface so that the CUDA backend and the emulated device run the
 * same passes.  Three schedules:
 *   plain   whole lines per pass through K device buffers (two by default, so
 *           that each is as large as the budget allows: strided passes then copy
 *           wide rows, which the link moves faster); one stream copies in, one
 *           computes, one copies out, and the copy in of a pass follows the copy
 *           out of the buffer's previous pass chunk by chunk, so both directions
 *           stay busy;
 *   radix2  the 2013 library's split: four subsequences by index mod 4, each on
 *           its own stream (copy in + L/4-point FFT), two radix-2 combinations
 *           (phase 2) on two streams, then phase 3 in chunks of k whose copies
 *           out overlap the later chunks' kernels; two buffer sets alternate;
 *   long    lines longer than a pass: recursive decimation in time on the host
 *           array (phase 1 transforms each subsequence, itself split again if
 *           needed), then the combinations stream through in chunks of k.
 * Every device allocation is made at plan time and stays inside the budget.
 */
#include <stdlib.h>
#include <string.h>

#include "internal.h"

enum { K_NONE, K_PLAIN, K_RADIX2, K_LONG };
#define NSLOT 8     /* device buffers at most */
#define DEFAULT_SLOTS 2
#define RADIX2_SLOTS 4 /* two buffer sets of two halves */
#define NSTREAM 8   /* streams and cuFFT plans */
#define NCHUNK 8    /* copy chunks per plain pass */
#define MIN_PASSES 4 /* automatic passes: at least this many in the largest round */
#define WIDE_ROW 65536 /* strided rows this wide copy at the link's rate */
#define MAX_LEVELS 48
#define MIB (1024.0 * 1024.0)

typedef struct srd {
    hfft__round r;
    int64_t units;                  /* GPU units [0, units) */
    int inplace;                    /* src == dst when this round runs */
    int kind;
    int transpose;                  /* strided passes computed as contiguous lines */
    int64_t wc;                     /* transposed compute: columns per chunk */
    int64_t cb;                     /* contiguous: lines per chunk (copies and compute) */
    int64_t blk;                    /* columns (strided) or lines (contiguous) per pass */
    hfft__fftplan plan[NSTREAM];
    int nplan;
    /* long lines */
    int nlev;
    int radix[MAX_LEVELS];
    int64_t leaf;                   /* leaf transform length */
    int64_t wcols;                  /* columns per top-level batch */
    int64_t ccols;                  /* combination: columns per chunk */
} srd;

struct hfft__gpu {
    const hfft__dev_ops *ops;
    hfft__dev *d;
    int prec, sign, inplace;
    size_t es;
    size_t cap;                     /* bytes per slot buffer */
    size_t work_bytes;
    int nwork;
    int nslot;                      /* pass buffers in flight */
    void *buf[NSLOT];
    void *work[NSTREAM];
    hfft__stream st[NSTREAM + 1];   /* plain: st[0] copies in, st[1] out, the last computes */
    hfft__event ev[3 * NSTREAM];
    /* plain passes: per buffer and chunk, the copy in landed, the compute done,
       the copy out done (with the byte where that copy out chunk ended) */
    hfft__event in_ev[NSLOT][NCHUNK], comp_ev[NSLOT][NCHUNK], out_ev[NSLOT][NCHUNK];
    size_t out_end[NSLOT][NCHUNK];
    int out_n[NSLOT];
    int64_t piped;                  /* plain passes issued since everything was idle */
    void *tb;                       /* transposed compute: scratch of wc lines */
    size_t tb_bytes;
    int nrounds;
    srd rd[3];
    void *scratch;                  /* host, pinned: in-place long lines */
    size_t scratch_bytes;
    int64_t passes[3];
    int fixed_passes;               /* options.pass_bytes set: passes of that size */
    hfft__stage *stage;             /* pageable arrays: copies through staging buffers */
};

#define TRY HFFT__TRY

static int smallest_factor(int64_t n) {
    if (n % 4 == 0)
        return 4;
    for (int64_t p = 2; p <= HFFT__MAX_RADIX && p * p <= n; p++)
        if (n % p == 0)
            return (int)p;
    return n <= HFFT__MAX_RADIX ? (int)n : 0;
}

static void destroy_plans(hfft__gpu *g, srd *r) {
    for (int i = 0; i < r->nplan; i++)
        if (r->plan[i])
            g->ops->fft_destroy(g->d, r->plan[i]);
    memset(r->plan, 0, sizeof r->plan);
    r->nplan = 0;
}

/* n plans of length L over `batch` columns of a tile with `batch` pitch (strided),
   `batch` contiguous lines of length L (strided computed transposed), or
   `batch` contiguous lines or planes of the round; reports the largest work area. */
static int make_plans(hfft__gpu *g, srd *r, int n, int64_t L, int64_t batch, size_t *work) {
    int64_t shape[2];
    int rank = 1;
    int64_t stride, dist;
    if (hfft__round_strided(&r->r) && r->transpose) {
        shape[0] = L;
        stride = 1;
        dist = L;
    } else if (hfft__round_strided(&r->r)) {
        shape[0] = L;
        stride = batch;
        dist = 1;
    } else {
        rank = r->r.rank;
        if (rank == 1) {
            shape[0] = L;
        } else {
            shape[0] = r->r.n2[0];
            shape[1] = r->r.n2[1];
        }
        stride = 1;
        dist = r->r.L;
    }
    *work = 0;
    for (int i = 0; i < n; i++) {
        size_t w = 0;
        int st = g->ops->fft_plan(g->d, g->prec, rank, shape, stride, dist, batch, g->sign,
                                  &r->plan[i], &w);
        r->nplan = i + 1;
        if (st)
            return st;
        if (w > *work)
            *work = w;
    }
    return 0;
}

/*
 * cuFFT's strided transforms of long lines (a column pass of a 2D array) run
 * at a fraction of its contiguous speed, so such passes are computed
 * transposed: WCOLS columns at a time, one kernel turns them into contiguous
 * lines in a small scratch, cuFFT transforms them there, another kernel turns
 * them back.  A scratch of a few columns rather than a whole pass leaves the
 * budget to the passes, whose rows the link then moves faster (pitched rows
 * slow down under the compute's cache traffic, the narrower the more:
 * bench/RESULTS.md).  Compute runs on one stream, so one scratch and one work
 * area serve every buffer.
 */
#define TRANSPOSE_MIN_L 4096
#define WCOLS 128

/*
 * Contiguous passes are copied and computed chunk by chunk (cb lines, blk a
 * multiple of it): a pass's first lines go out while its last still come in,
 * so a round waits at its end for a chunk, not a pass.  (A strided pass
 * cannot: each column's FFT needs all of the column.)
 */
static int plain_plans(hfft__gpu *g, srd *r, int64_t L, size_t *work, int *nwork) {
    r->cb = 0;
    if (!hfft__round_strided(&r->r)) {
        r->cb = (r->blk + NCHUNK - 1) / NCHUNK;
        r->blk = r->blk / r->cb * r->cb;
        *nwork = 1;
        return make_plans(g, r, 1, L, r->cb, work);
    }
    r->transpose = L >= TRANSPOSE_MIN_L && r->blk > 1;
    /* a scratch of at most a quarter pass, so that small budgets go to the passes */
    r->wc = r->blk / 4 < WCOLS ? (r->blk / 4 > 0 ? r->blk / 4 : 1) : WCOLS;
    if (!r->transpose)
        r->wc = 0;
    *nwork = 1;
    return make_plans(g, r, 1, L, r->transpose ? r->wc : r->blk, work);
}

/* Sizes one round for slot capacity cap: kind, pass size and cuFFT plans. */
static int plan_round(hfft__gpu *g, srd *r, int want, size_t cap, size_t *work, int *nwork) {
    size_t es = g->es;
    destroy_plans(g, r);
    *work = 0;
    *nwork = 0;
    if (r->units == 0) {
        r->kind = K_NONE;
        return 0;
    }
    if (!hfft__round_strided(&r->r)) {
        size_t line = (size_t)r->r.L * es;
        if (line > cap)
            return hfft__fail(HFFT_ERR_BUDGET,
                              "a contiguous line of %lld elements (%zu bytes) does not fit a pass "
                              "of %zu bytes; raise the device budget or use HFFT_CPU_ONLY",
                              (long long)r->r.L, line, cap);
        r->kind = K_PLAIN;
        r->blk = (int64_t)(cap / line);
        if (r->blk > r->units)
            r->blk = r->units;
        return plain_plans(g, r, r->r.L, work, nwork);
    }
    size_t col = (size_t)r->r.L * es;
    if (col <= cap) {
        int64_t w = (int64_t)(cap / col);
        /* An execute waits, beyond its copies, for one whole strided pass (its
           FFTs need all of each column before any of it goes out).  Where the
           buffer's rows would be wider than WIDE_ROW, narrower passes (down to
           an eighth of the buffer) cut that wait at no cost in copy rate. */
        int64_t wide = (int64_t)(WIDE_ROW / es);
        if (!g->fixed_passes && w > wide)
            w = w / 8 > wide ? w / 8 : wide;
        if (w > r->units)
            w = r->units;
        r->blk = w;
        /* Radix-2 keeps a whole pass in two slots (quarters in halves). */
        int radix_ok = r->r.L % 4 == 0 && (size_t)w * col <= 2 * cap;
        if (want == 2 && radix_ok) {
            r->kind = K_RADIX2;
            int64_t w2 = (int64_t)(2 * cap / col);
            r->blk = w2 > r->units ? r->units : w2;
            *nwork = NSTREAM;
            return make_plans(g, r, NSTREAM, r->r.L / 4, r->blk, work);
        }
        r->kind = K_PLAIN;
        return plain_plans(g, r, r->r.L, work, nwork);
    }
    /* Lines longer than a pass: split until a leaf line fits a quarter slot. */
    r->kind = K_LONG;
    int64_t L = r->r.L;
    r->nlev = 0;
    while ((size_t)L * es > cap / 4) {
        int f = smallest_factor(L);
        if (f == 0 || f == L || r->nlev == MAX_LEVELS)
            return hfft__fail(HFFT_ERR_BUDGET,
                              "a line of %lld elements needs %.1f MiB on the device and its "
                              "length has no factor up to %d that splits it to fit the %.1f MiB "
                              "pass; raise the device budget or use HFFT_CPU_ONLY",
                              (long long)r->r.L, (double)r->r.L * es / MIB, HFFT__MAX_RADIX,
                              cap / MIB);
        r->radix[r->nlev++] = f;
        L /= f;
    }
    r->leaf = L;
    r->blk = (int64_t)(cap / ((size_t)L * es));
    if (r->blk > r->units)
        r->blk = r->units;
    /* In place, phase 1 needs a host scratch of L x wcols; bound it to a quarter
       of the columns (at least one) so the array is never duplicated whole. */
    r->wcols = r->units;
    if (r->inplace)
        r->wcols = r->units / 4 > 0 ? r->units / 4 : 1;
    r->ccols = r->wcols;
    return plain_plans(g, r, r->leaf, work, nwork);
}

/*
 * Automatic passes are as large as the budget allows over the buffers, but
 * leave the largest round at least MIN_PASSES passes so that copies in and out
 * overlap.  Large matters for strided rounds: a pass of cap bytes copies rows
 * of cap / L bytes, and the link moves pitched rows of 8 KiB at about 32 GB/s
 * while FFTs run, 32 KiB rows at 40-45, contiguous ones at 48-50 (an H200
 * host, bench/RESULTS.md).  The allocation loop shrinks the passes until the
 * buffers, the scratch and cuFFT's work areas fit.
 */
static size_t pick_capacity(const hfft__gpu_req *req, int64_t budget, size_t es, int nslot) {
    int64_t biggest = 0;
    for (int h = 0; h < req->nrounds; h++) {
        const hfft__round *r = &req->rounds[h];
        int64_t e = r->rank == 2 ? r->L * r->no : r->L * (r->ni > 1 ? r->ni : 1) * r->no;
        if (e > biggest)
            biggest = e;
    }
    size_t total = (size_t)biggest * es;
    size_t cap = req->pass_bytes > 0 ? (size_t)req->pass_bytes : total / MIN_PASSES;
    if (req->pass_bytes <= 0 && cap < (4u << 20))
        cap = 4u << 20;
    if (cap > (size_t)budget / (size_t)nslot)
        cap = (size_t)budget / (size_t)nslot;
    return cap & ~(size_t)255;
}

static void release(hfft__gpu *g) {
    for (int h = 0; h < g->nrounds; h++)
        destroy_plans(g, &g->rd[h]);
    for (int i = 0; i < NSLOT; i++)
        if (g->buf[i])
            g->ops->free(g->d, g->buf[i]);
    for (int i = 0; i < NSTREAM; i++)
        if (g->work[i])
            g->ops->free(g->d, g->work[i]);
    if (g->tb)
        g->ops->free(g->d, g->tb);
    g->tb = NULL;
    g->tb_bytes = 0;
    memset(g->buf, 0, sizeof g->buf);
    memset(g->work, 0, sizeof g->work);
}

static int any_transpose(const hfft__gpu *g) {
    for (int h = 0; h < g->nrounds; h++)
        if (g->rd[h].kind != K_NONE && g->rd[h].transpose)
            return 1;
    return 0;
}

/* Bytes of the transposed compute's scratch: WCOLS lines of the longest such line. */
static size_t scratch_bytes(const hfft__gpu *g) {
    size_t most = 0;
    for (int h = 0; h < g->nrounds; h++) {
        const srd *r = &g->rd[h];
        int64_t L = r->kind == K_LONG ? r->leaf : r->r.L;
        size_t b = r->kind != K_NONE && r->transpose ? (size_t)(r->wc * L) * g->es : 0;
        if (b > most)
            most = b;
    }
    return most;
}

static int allocate(hfft__gpu *g) {
    for (int i = 0; i < g->nslot; i++)
        TRY(g->ops->alloc(g->d, &g->buf[i], g->cap));
    g->tb_bytes = scratch_bytes(g);
    if (g->tb_bytes)
        TRY(g->ops->alloc(g->d, &g->tb, g->tb_bytes));
    for (int i = 0; i < g->nwork && g->work_bytes; i++)
        TRY(g->ops->alloc(g->d, &g->work[i], g->work_bytes));
    return 0;
}

int hfft__gpu_create(const hfft__dev_ops *ops, hfft__dev *dev, const hfft__gpu_req *req,
                     hfft__gpu **out) {
    *out = NULL;
    hfft__gpu *g = calloc(1, sizeof *g);
    if (!g)
        return hfft__fail(HFFT_ERR_HOST_MEMORY, "GPU engine: out of memory");
    g->ops = ops;
    g->d = dev;
    g->prec = req->prec;
    g->es = 2u * (size_t)req->prec;
    g->sign = req->sign;
    g->inplace = req->inplace;
    g->nrounds = req->nrounds;
    g->fixed_passes = req->pass_bytes > 0;
    int st = 0;
    for (int i = 0; i < NSTREAM + 1 && !st; i++)
        st = ops->stream_create(dev, &g->st[i]);
    for (int i = 0; i < 3 * NSTREAM && !st; i++)
        st = ops->event_create(dev, &g->ev[i]);
    for (int i = 0; i < NSLOT && !st; i++) {
        for (int j = 0; j < NCHUNK && !st; j++) {
            st = ops->event_create(dev, &g->in_ev[i][j]);
            if (!st)
                st = ops->event_create(dev, &g->comp_ev[i][j]);
            if (!st)
                st = ops->event_create(dev, &g->out_ev[i][j]);
        }
    }
    if (st) {
        hfft__gpu_destroy(g);
        return st;
    }
    for (int h = 0; h < req->nrounds; h++) {
        g->rd[h].r = req->rounds[h];
        g->rd[h].units = req->units[h];
        g->rd[h].inplace = h > 0 || req->inplace;
    }
    /* What is left of the budget after what the device already holds and what
       the backend keeps for its own plan data. */
    int64_t budget = ops->budget(dev) - ops->used(dev) - ops->reserve(dev);
    if (budget <= 0) {
        hfft__gpu_destroy(g);
        return hfft__fail(HFFT_ERR_BUDGET,
                          "device budget of %lld bytes leaves nothing for passes (%lld in use, "
                          "%lld kept for cuFFT)",
                          (long long)ops->budget(dev), (long long)ops->used(dev),
                          (long long)ops->reserve(dev));
    }
    int want = req->schedule == 2 ? 2 : 1;
    g->nslot = req->slots > 0 ? req->slots : DEFAULT_SLOTS;
    if (g->nslot < 2)
        g->nslot = 2;
    if (g->nslot > NSLOT)
        g->nslot = NSLOT;
    if (want == 2 && g->nslot < RADIX2_SLOTS)
        g->nslot = RADIX2_SLOTS;
    size_t cap = pick_capacity(req, budget, g->es, g->nslot);
    for (;;) {
        if (cap < 256) {
            st = hfft__fail(HFFT_ERR_BUDGET,
                            "device budget of %lld bytes (%lld free of it) is too small for any "
                            "pass of this problem",
                            (long long)ops->budget(dev), (long long)budget);
            break;
        }
        size_t work = 0;
        int nwork = 0;
        for (int h = 0; h < g->nrounds && !st; h++) {
            size_t w;
            int n;
            st = plan_round(g, &g->rd[h], want, cap, &w, &n);
            if (w > work)
                work = w;
            if (n > nwork)
                nwork = n;
        }
        size_t next = (cap * 3 / 4) & ~(size_t)255;
        if (!st) {
            g->cap = cap;
            g->work_bytes = work;
            g->nwork = nwork;
            size_t other = scratch_bytes(g) + (size_t)nwork * work;
            if ((int64_t)((size_t)g->nslot * cap + other) > budget) {
                /* Passes that take what the scratch and work areas leave (these
                   shrink with the passes, so the next try fits). */
                size_t fit = (int64_t)other < budget ? ((size_t)budget - other) / g->nslot : 0;
                fit &= ~(size_t)255;
                if (fit > next && fit < cap && req->pass_bytes <= 0)
                    next = fit;
                st = HFFT_ERR_BUDGET;
            } else {
                st = allocate(g);
            }
            if (!st)
                break;
            if (st != HFFT_ERR_DEVICE_MEMORY && st != HFFT_ERR_BUDGET)
                break;
        } else if (st != HFFT_ERR_DEVICE_MEMORY) {
            break; /* a line that cannot fit any pass: shrinking will not help */
        }
        /* Too big, or the device refused memory: shrink the passes and try again. */
        release(g);
        hfft__clear_error();
        st = 0;
        cap = next;
    }
    if (st) {
        hfft__gpu_destroy(g);
        return st;
    }
    /* In-place long lines need a host scratch for phase 1. */
    for (int h = 0; h < g->nrounds; h++) {
        srd *r = &g->rd[h];
        if (r->kind == K_LONG && r->inplace) {
            size_t b = (size_t)(r->r.L * r->wcols) * g->es;
            if (b > g->scratch_bytes)
                g->scratch_bytes = b;
        }
    }
    if (g->scratch_bytes) {
        st = ops->host_alloc(dev, &g->scratch, g->scratch_bytes);
        if (st) {
            hfft__gpu_destroy(g);
            return st;
        }
    }
    *out = g;
    return 0;
}

void hfft__gpu_destroy(hfft__gpu *g) {
    if (!g)
        return;
    hfft__stage_destroy(g->stage);
    release(g);
    for (int i = 0; i < NSTREAM + 1; i++)
        if (g->st[i])
            g->ops->stream_destroy(g->d, g->st[i]);
    for (int i = 0; i < 3 * NSTREAM; i++)
        if (g->ev[i])
            g->ops->event_destroy(g->d, g->ev[i]);
    for (int i = 0; i < NSLOT; i++) {
        for (int j = 0; j < NCHUNK; j++) {
            hfft__event e[3] = {g->in_ev[i][j], g->comp_ev[i][j], g->out_ev[i][j]};
            for (int k = 0; k < 3; k++)
                if (e[k])
                    g->ops->event_destroy(g->d, e[k]);
        }
    }
    if (g->scratch)
        g->ops->host_free(g->d, g->scratch);
    free(g);
}

/* ---- plain passes ---- */

typedef struct view {
    const char *src;
    int64_t ss; /* elements between rows of the source */
    char *dst;
    int64_t ds;
} view;

static int sync_all(hfft__gpu *g) {
    for (int i = 0; i < NSTREAM + 1; i++)
        TRY(g->ops->sync(g->d, g->st[i]));
    if (g->stage)
        TRY(hfft__stage_sync(g->stage));
    g->piped = 0; /* every buffer is idle: the next passes wait for nothing */
    return 0;
}

/*
 * Pass boundaries over `units` in blocks of at most `blk`, the last passes
 * ramping down (blk/2, /4, ...) so that the copy out left alone at the end is
 * short.  (A round still waits, beyond its copies, for one copy of its largest
 * unit, wherever that falls: a strided pass, or a chunk of a contiguous one;
 * see plain_pass.)  `smallest` bounds the ramp (strided rows narrower than
 * 8 KiB copy slowly).  Short passes still run the full-size FFT plan on the
 * tile; the columns or lines beyond them are never copied back.
 */
#define RAMP 4
static int64_t next_pass(int64_t at, int64_t units, int64_t blk, int64_t smallest) {
    int64_t tail = 0;
    int k = 0;
    while (k < RAMP && (blk >> (k + 1)) >= smallest && (blk >> (k + 1)) > 0 &&
           units >= blk + tail + (blk >> (k + 1))) {
        k++;
        tail += blk >> k;
    }
    int64_t middle = units - tail;
    if (at < middle) {
        int64_t n = (middle + blk - 1) / blk;
        int64_t size = (middle + n - 1) / n;
        return size < middle - at ? size : middle - at;
    }
    for (int i = 1; i <= k; i++) {
        if (at == middle)
            return blk >> i;
        middle += blk >> i;
    }
    return units - at;
}

/* One plain pass: rows of `width` bytes from src (pitch spitch) into a tile of
   pitch tpitch, computed, and back to dst (pitch dpitch). */
typedef struct tile_io {
    const char *src;
    size_t spitch;
    char *dst;
    size_t dpitch;
    size_t width, tpitch;
    int64_t rows;
} tile_io;

/* A plain pass's copies: straight from pinned memory, or through staging. */
static int copy_in(hfft__gpu *g, hfft__stream s, void *dev, size_t dpitch, const char *host,
                   size_t hpitch, size_t width, size_t rows) {
    if (g->stage)
        return hfft__stage_h2d(g->stage, s, dev, dpitch, host, hpitch, width, rows);
    return g->ops->h2d(g->d, s, dev, dpitch, host, hpitch, width, rows);
}
static int copy_out(hfft__gpu *g, hfft__stream s, char *host, size_t hpitch, const void *dev,
                    size_t dpitch, size_t width, size_t rows) {
    if (g->stage)
        return hfft__stage_d2h(g->stage, s, host, hpitch, dev, dpitch, width, rows);
    return g->ops->d2h(g->d, s, host, hpitch, dev, dpitch, width, rows);
}

/* The chunk of buffer b's last copy out that ends at or past byte `end`. */
static int out_chunk(const hfft__gpu *g, int b, size_t end) {
    for (int j = 0; j < g->out_n[b]; j++)
        if (g->out_end[b][j] >= end)
            return j;
    return g->out_n[b] - 1;
}

/* The FFTs of a strided pass's w columns in tile, on the compute stream. */
static int compute_strided(hfft__gpu *g, srd *r, char *tile, int64_t L, int64_t w) {
    const hfft__dev_ops *o = g->ops;
    hfft__stream c = g->st[NSTREAM];
    if (!r->transpose)
        return o->fft_exec(g->d, r->plan[0], c, tile, g->work[0]);
    for (int64_t c0 = 0; c0 < w; c0 += r->wc) {
        int64_t n = w - c0 < r->wc ? w - c0 : r->wc;
        char *col = tile + (size_t)c0 * g->es;
        TRY(o->transpose(g->d, g->prec, c, g->tb, L, col, r->blk, L, n));
        TRY(o->fft_exec(g->d, r->plan[0], c, g->tb, g->work[0]));
        TRY(o->transpose(g->d, g->prec, c, col, r->blk, g->tb, L, n, L));
    }
    return 0;
}

/*
 * Buffer b = (passes issued) mod K.  Chunk j of the copy in follows the chunk
 * of the buffer's previous copy out that read the same bytes.  A strided pass
 * is computed whole, after all of its copy in and all of that previous copy
 * out (the FFT writes the whole tile), and copied out after.  A contiguous
 * pass goes chunk by chunk: copy in, compute (after the previous copy out of
 * the bytes the chunk's FFT writes), copy out.  The compute's waits on the
 * previous copy out are implied by the copy in's while a round's passes chunk
 * alike; they stay so that each kernel waits for what it overwrites.
 */
static int plain_pass(hfft__gpu *g, srd *r, const tile_io *t, int64_t L, int64_t w,
                      int64_t *pass) {
    const hfft__dev_ops *o = g->ops;
    hfft__dev *d = g->d;
    int b = (int)(g->piped % g->nslot), reuse = g->piped >= g->nslot;
    char *tile = g->buf[b];
    hfft__stream in = g->st[0], out = g->st[1], c = g->st[NSTREAM];
    int64_t cb = r->cb, at[NCHUNK + 1];
    int nc = cb ? (int)((t->rows + cb - 1) / cb) : t->rows < NCHUNK ? (int)t->rows : NCHUNK;
    for (int j = 0; j <= nc; j++)
        at[j] = cb ? (j * cb < t->rows ? j * cb : t->rows) : t->rows * j / nc;
    for (int j = 0; j < nc; j++) {
        size_t end = (size_t)(at[j + 1] - 1) * t->tpitch + t->width;
        if (reuse)
            TRY(o->wait(d, in, g->out_ev[b][out_chunk(g, b, end)]));
        TRY(copy_in(g, in, tile + (size_t)at[j] * t->tpitch, t->tpitch,
                    t->src + (size_t)at[j] * t->spitch, t->spitch, t->width,
                    (size_t)(at[j + 1] - at[j])));
        if (cb || j == nc - 1)
            TRY(o->record(d, g->in_ev[b][j], in));
    }
    if (cb) {
        for (int j = 0; j < nc; j++) {
            char *lines = tile + (size_t)at[j] * t->tpitch;
            TRY(o->wait(d, c, g->in_ev[b][j]));
            if (reuse)
                TRY(o->wait(d, c, g->out_ev[b][out_chunk(g, b, (size_t)(at[j] + cb) * t->tpitch)]));
            TRY(o->fft_exec(d, r->plan[0], c, lines, g->work[0]));
            TRY(o->record(d, g->comp_ev[b][j], c));
        }
    } else {
        TRY(o->wait(d, c, g->in_ev[b][nc - 1]));
        if (reuse)
            TRY(o->wait(d, c, g->out_ev[b][g->out_n[b] - 1]));
        TRY(compute_strided(g, r, tile, L, w));
        TRY(o->record(d, g->comp_ev[b][0], c));
    }
    for (int j = 0; j < nc; j++) {
        if (cb || j == 0)
            TRY(o->wait(d, out, g->comp_ev[b][cb ? j : 0]));
        TRY(copy_out(g, out, t->dst + (size_t)at[j] * t->dpitch, t->dpitch,
                     tile + (size_t)at[j] * t->tpitch, t->tpitch, t->width,
                     (size_t)(at[j + 1] - at[j])));
        TRY(o->record(d, g->out_ev[b][j], out));
        g->out_end[b][j] = (size_t)(at[j + 1] - 1) * t->tpitch + t->width;
    }
    g->out_n[b] = nc;
    g->piped++;
    (*pass)++;
    return 0;
}

/* The smallest ramp pass: strided rows of at least 8 KiB. */
static int64_t ramp_floor(const hfft__gpu *g, const srd *r) {
    return hfft__round_strided(&r->r) ? (int64_t)(8192 / g->es) : 1;
}

/* Strided: columns [0, cols) of lines of length L with row pitches ss and ds. */
static int plain_strided(hfft__gpu *g, srd *r, view v, int64_t L, int64_t cols, int64_t *pass) {
    size_t es = g->es;
    for (int64_t c0 = 0, w; c0 < cols; c0 += w) {
        w = next_pass(c0, cols, r->blk, ramp_floor(g, r));
        tile_io t = {v.src + c0 * es, (size_t)v.ss * es, v.dst + c0 * es, (size_t)v.ds * es,
                     (size_t)w * es, (size_t)r->blk * es, L};
        TRY(plain_pass(g, r, &t, L, w, pass));
    }
    return 0;
}

static int plain_contig(hfft__gpu *g, srd *r, const char *src, char *dst, int64_t lines,
                        int64_t *pass) {
    size_t line = (size_t)r->r.dout * g->es;
    for (int64_t l0 = 0, n; l0 < lines; l0 += n) {
        n = next_pass(l0, lines, r->blk, ramp_floor(g, r));
        tile_io t = {src + l0 * line, line, dst + l0 * line, line, line, line, n};
        TRY(plain_pass(g, r, &t, r->r.L, n, pass));
    }
    return 0;
}

/* ---- radix-2 passes (the 2013 split inside a pass) ---- */

static int radix2_strided(hfft__gpu *g, srd *r, view v, int64_t cols, int64_t *pass) {
    const hfft__dev_ops *o = g->ops;
    hfft__dev *d = g->d;
    size_t es = g->es;
    int64_t L = r->r.L, L4 = L / 4, blk = r->blk;
    size_t quarter = (size_t)(L4 * blk) * es;
    static const int out_quarter[4] = {0, 2, 1, 3}; /* tile j holds T(k + out_quarter[j] L/4) */
    for (int64_t c0 = 0; c0 < cols; c0 += blk) {
        int64_t w = cols - c0 < blk ? cols - c0 : blk;
        int b = (int)(*pass % 2);
        hfft__stream *S = &g->st[4 * b];
        hfft__event *ev1 = &g->ev[4 * b], *ev2 = &g->ev[NSTREAM + 4 * b],
                    *end = &g->ev[2 * NSTREAM + 4 * b];
        char *t[4];
        for (int j = 0; j < 4; j++)
            t[j] = (char *)g->buf[2 * b + (j >> 1)] + (j & 1) * quarter;
        if (*pass >= 2) {
            /* The set's previous pass: every phase-3 chunk touched every quarter. */
            for (int j = 0; j < 4; j++)
                for (int c = 0; c < 4; c++)
                    if (c != j)
                        TRY(o->wait(d, S[j], end[c]));
        }
        (*pass)++;
        /* Phase 1: subsequence j = rows 4m + j, its own stream, copy in then FFT. */
        for (int j = 0; j < 4; j++) {
            TRY(o->h2d(d, S[j], t[j], (size_t)blk * es, v.src + (j * v.ss + c0) * es,
                       (size_t)(4 * v.ss) * es, (size_t)w * es, (size_t)L4));
            TRY(o->fft_exec(d, r->plan[4 * b + j], S[j], t[j], g->work[4 * b + j]));
            TRY(o->record(d, ev1[j], S[j]));
        }
        /* Phase 2: G1 from (F00, F01) = tiles (0, 2), G2 from (F10, F11) = tiles (1, 3). */
        TRY(o->wait(d, S[0], ev1[2]));
        TRY(o->radix2(d, g->prec, S[0], t[0], t[2], L4, blk, L / 2, 0, g->sign));
        TRY(o->record(d, ev2[0], S[0]));
        TRY(o->wait(d, S[1], ev1[3]));
        TRY(o->radix2(d, g->prec, S[1], t[1], t[3], L4, blk, L / 2, 0, g->sign));
        TRY(o->record(d, ev2[1], S[1]));
        /* Phase 3 in four chunks of k, each copied out on its stream as soon as done. */
        for (int c = 0; c < 4; c++) {
            int64_t k0 = L4 * c / 4, k1 = L4 * (c + 1) / 4, rows = k1 - k0;
            hfft__stream q = S[c];
            TRY(o->wait(d, q, ev2[0]));
            TRY(o->wait(d, q, ev2[1]));
            if (rows > 0) {
                size_t off = (size_t)(k0 * blk) * es;
                TRY(o->radix2(d, g->prec, q, t[0] + off, t[1] + off, rows, blk, L, k0, g->sign));
                TRY(o->radix2(d, g->prec, q, t[2] + off, t[3] + off, rows, blk, L, k0 + L4,
                              g->sign));
                for (int j = 0; j < 4; j++) {
                    int64_t row = out_quarter[j] * L4 + k0;
                    TRY(o->d2h(d, q, v.dst + (row * v.ds + c0) * es, (size_t)v.ds * es, t[j] + off,
                               (size_t)blk * es, (size_t)w * es, (size_t)rows));
                }
            }
            TRY(o->record(d, end[c], q));
        }
    }
    return 0;
}

/* ---- long lines ---- */

/* Combination of r blocks of a line set: reads rows j*Lr + k of mid (pitch ms),
   writes T(k + q Lr) to rows q*Lr + k of fin (pitch fs), in chunks of k. */
static int long_combine(hfft__gpu *g, int radix, int64_t L, const char *mid, int64_t ms,
                        char *fin, int64_t fs, int64_t cols, int64_t *pass) {
    const hfft__dev_ops *o = g->ops;
    hfft__dev *d = g->d;
    size_t es = g->es;
    int64_t Lr = L / radix;
    int64_t cb = cols;
    int64_t rows = (int64_t)(g->cap / ((size_t)radix * cb * es));
    while (rows < 1 && cb > 1) {
        cb = (cb + 1) / 2;
        rows = (int64_t)(g->cap / ((size_t)radix * cb * es));
    }
    if (rows > Lr)
        rows = Lr;
    static const int out4[4] = {0, 2, 1, 3};
    for (int64_t c0 = 0; c0 < cols; c0 += cb) {
        int64_t w = cols - c0 < cb ? cols - c0 : cb;
        for (int64_t k0 = 0; k0 < Lr; k0 += rows) {
            int64_t n = Lr - k0 < rows ? Lr - k0 : rows;
            int s = (int)(*pass % g->nslot);
            (*pass)++;
            hfft__stream q = g->st[s];
            size_t tile = (size_t)(n * cb) * es;
            void *t[HFFT__MAX_RADIX];
            for (int j = 0; j < radix; j++) {
                t[j] = (char *)g->buf[s] + j * tile;
                TRY(o->h2d(d, q, t[j], (size_t)cb * es, mid + ((j * Lr + k0) * ms + c0) * es,
                           (size_t)ms * es, (size_t)w * es, (size_t)n));
            }
            const int *order = NULL;
            if (radix == 4) {
                TRY(o->radix2(d, g->prec, q, t[0], t[2], n, cb, L / 2, k0, g->sign));
                TRY(o->radix2(d, g->prec, q, t[1], t[3], n, cb, L / 2, k0, g->sign));
                TRY(o->radix2(d, g->prec, q, t[0], t[1], n, cb, L, k0, g->sign));
                TRY(o->radix2(d, g->prec, q, t[2], t[3], n, cb, L, k0 + Lr, g->sign));
                order = out4;
            } else if (radix == 2) {
                TRY(o->radix2(d, g->prec, q, t[0], t[1], n, cb, L, k0, g->sign));
            } else {
                TRY(o->radixr(d, g->prec, q, t, radix, n, cb, L, k0, g->sign));
            }
            for (int j = 0; j < radix; j++) {
                int64_t qq = order ? order[j] : j;
                TRY(o->d2h(d, q, fin + ((qq * Lr + k0) * fs + c0) * es, (size_t)fs * es, t[j],
                           (size_t)cb * es, (size_t)w * es, (size_t)n));
            }
        }
    }
    return 0;
}

/* Transforms lines of length L (level lev of the split) from src (pitch ss) into
   fin (pitch fs), with phase-1 results in mid (pitch ms). */
static int long_rec(hfft__gpu *g, srd *r, int lev, int64_t L, const char *src, int64_t ss,
                    char *mid, int64_t ms, char *fin, int64_t fs, int64_t cols, int64_t *pass) {
    if (lev == r->nlev) {
        view v = {src, ss, fin, fs};
        return plain_strided(g, r, v, L, cols, pass);
    }
    int radix = r->radix[lev];
    int64_t Lr = L / radix;
    size_t es = g->es;
    for (int j = 0; j < radix; j++) {
        char *blk = mid + (size_t)(j * Lr * ms) * es;
        TRY(long_rec(g, r, lev + 1, Lr, src + (size_t)(j * ss) * es, radix * ss, blk, ms, blk, ms,
                     cols, pass));
    }
    /* The combination reads what phase 1 wrote: all of it must have landed. */
    TRY(sync_all(g));
    TRY(long_combine(g, radix, L, mid, ms, fin, fs, cols, pass));
    return sync_all(g);
}

static int run_round(hfft__gpu *g, int h, const void *src_, void *dst_);

int hfft__gpu_run(hfft__gpu *g, int h, const void *src_, void *dst_) {
    int st = g->ops->activate(g->d);
    if (st)
        return st;
    st = run_round(g, h, src_, dst_);
    if (st) {
        /* Let what was already queued finish, so that nothing of this execute
           is still in flight when the caller (or the next execute) goes on. */
        for (int i = 0; i < NSTREAM + 1; i++)
            (void)g->ops->sync(g->d, g->st[i]);
        if (g->stage)
            (void)hfft__stage_sync(g->stage);
        g->piped = 0;
    }
    return st;
}

static int run_round(hfft__gpu *g, int h, const void *src_, void *dst_) {
    srd *r = &g->rd[h];
    const char *src = src_;
    char *dst = dst_;
    size_t es = g->es;
    int64_t pass = 0;
    int inplace = src_ == dst_;
    switch (r->kind) {
    case K_NONE:
        return 0;
    case K_PLAIN:
        if (!hfft__round_strided(&r->r)) {
            TRY(plain_contig(g, r, src, dst, r->units, &pass));
        } else {
            for (int64_t o = 0; o < r->r.no; o++) {
                size_t off = (size_t)(o * r->r.dout) * es;
                view v = {src + off, r->r.s, dst + off, r->r.s};
                TRY(plain_strided(g, r, v, r->r.L, r->units, &pass));
            }
        }
        break;
    case K_RADIX2:
        for (int64_t o = 0; o < r->r.no; o++) {
            size_t off = (size_t)(o * r->r.dout) * es;
            view v = {src + off, r->r.s, dst + off, r->r.s};
            TRY(radix2_strided(g, r, v, r->units, &pass));
        }
        break;
    case K_LONG:
        for (int64_t o = 0; o < r->r.no; o++) {
            for (int64_t c0 = 0; c0 < r->units; c0 += r->wcols) {
                int64_t w = r->units - c0 < r->wcols ? r->units - c0 : r->wcols;
                size_t off = (size_t)(o * r->r.dout + c0) * es;
                char *fin = dst + off;
                char *mid = inplace ? g->scratch : fin;
                int64_t ms = inplace ? w : r->r.s;
                TRY(long_rec(g, r, 0, r->r.L, src + off, r->r.s, mid, ms, fin, r->r.s, w, &pass));
            }
        }
        break;
    }
    g->passes[h] = pass;
    return sync_all(g);
}

/* The largest chunk a plain pass copies, in bytes. */
static size_t largest_chunk(const hfft__gpu *g) {
    size_t most = 0;
    for (int h = 0; h < g->nrounds; h++) {
        const srd *r = &g->rd[h];
        size_t b = 0;
        if (r->kind == K_PLAIN && r->cb)
            b = (size_t)r->cb * (size_t)r->r.dout * g->es;
        else if (r->kind == K_PLAIN) {
            int64_t nc = r->r.L < NCHUNK ? r->r.L : NCHUNK;
            b = (size_t)((r->r.L + nc - 1) / nc) * (size_t)r->blk * g->es;
        }
        if (b > most)
            most = b;
    }
    return most;
}

int hfft__gpu_stage(hfft__gpu *g, int on, int threads) {
    if (!on || g->stage) {
        if (!on) {
            hfft__stage_destroy(g->stage);
            g->stage = NULL;
        }
        return 0;
    }
    for (int h = 0; h < g->nrounds; h++)
        if (g->rd[h].kind != K_NONE && g->rd[h].kind != K_PLAIN)
            return hfft__fail(HFFT_ERR_UNSUPPORTED,
                              "staged copies need the plain schedule; the %s schedule copies "
                              "straight from pinned (registered) arrays",
                              g->rd[h].kind == K_RADIX2 ? "radix-2" : "long-line");
    return hfft__stage_create(g->ops, g->d, largest_chunk(g), threads > 0 ? threads : 1,
                              &g->stage);
}

int hfft__gpu_staged(const hfft__gpu *g) { return g->stage != NULL; }

void hfft__gpu_fill_info(const hfft__gpu *g, hfft_info *info) {
    int sched = 0;
    for (int h = 0; h < g->nrounds; h++) {
        const srd *r = &g->rd[h];
        int64_t units = r->units, per = r->blk > 0 ? r->blk : 1;
        int64_t outer = hfft__round_strided(&r->r) ? r->r.no : 1;
        int64_t n = (units + per - 1) / per;
        if (r->kind == K_PLAIN)
            for (int64_t at = 0, k = n = 0; at < units; at += k, n++)
                k = next_pass(at, units, per, ramp_floor(g, r));
        info->passes[h] = r->kind == K_NONE ? 0 : (int)(outer * n);
        if (r->kind == K_RADIX2)
            sched = 2;
        else if (r->kind != K_NONE && sched == 0)
            sched = 1;
    }
    info->schedule = sched;
    info->transposed = any_transpose(g);
    info->streams = sched == 2 ? NSTREAM : g->nslot;
    info->device_bytes = g->ops->used(g->d);
    info->host_bytes += (int64_t)g->scratch_bytes + hfft__stage_bytes(g->stage);
}
