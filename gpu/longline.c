/*
 * longline.c: lines longer than a pass.  Recursive decimation in time on the
 * host array: phase 1 transforms each subsequence (itself split again where
 * needed) with the plain schedule, then the radix-r combinations stream
 * through in chunks of k.  In place, phase 1 goes to a pinned host scratch.
 */
#include "gpu/sched.h"

static int smallest_factor(int64_t n) {
    if (n % 4 == 0)
        return 4;
    for (int64_t p = 2; p <= HFFT__MAX_RADIX && p * p <= n; p++)
        if (n % p == 0)
            return (int)p;
    return n <= HFFT__MAX_RADIX ? (int)n : 0;
}

/* Lines longer than a pass: split until a leaf line fits a quarter slot. */
int hfft__long_size(hfft__gpu *g, rstate *r, size_t cap, size_t *work, int *nwork) {
    size_t es = g->es;
    r->kind = &hfft__long_kind;
    int64_t L = r->r.L;
    r->nlev = 0;
    while ((size_t)L * es > cap / 4) {
        int f = smallest_factor(L);
        if (f == 0 || f == L || r->nlev == MAX_LEVELS)
            return hfft__fail(HFFT_ERR_BUDGET,
                              "a line of %lld elements needs %s on the device and its "
                              "length has no factor up to %d that splits it to fit the %s "
                              "pass; raise the device budget or use HFFT_CPU_ONLY",
                              (long long)r->r.L, hfft__bytes_text((double)r->r.L * es).s,
                              HFFT__MAX_RADIX, hfft__bytes_text((double)cap).s);
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
    return hfft__plain_size(g, r, r->leaf, work, nwork);
}

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
            hfft__stream q = g->stream[s];
            size_t tile = (size_t)(n * cb) * es;
            void *t[HFFT__MAX_RADIX];
            for (int j = 0; j < radix; j++) {
                t[j] = (char *)g->buf[s] + j * tile;
                TRY(hfft__sched_h2d(g, q, t[j], (size_t)cb * es, mid + ((j * Lr + k0) * ms + c0) * es,
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
                TRY(hfft__sched_d2h(g, q, fin + ((qq * Lr + k0) * fs + c0) * es, (size_t)fs * es, t[j],
                           (size_t)cb * es, (size_t)w * es, (size_t)n));
            }
        }
    }
    return 0;
}

/* Transforms lines of length L (level lev of the split) from src (pitch ss) into
   fin (pitch fs), with phase-1 results in mid (pitch ms). */
static int long_rec(hfft__gpu *g, rstate *r, int lev, int64_t L, const char *src, int64_t ss,
                    char *mid, int64_t ms, char *fin, int64_t fs, int64_t cols, int64_t *pass) {
    if (lev == r->nlev) {
        view v = {src, ss, fin, fs};
        return hfft__plain_strided(g, r, v, L, 0, cols, pass);
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
    TRY(hfft__sched_sync(g));
    TRY(long_combine(g, radix, L, mid, ms, fin, fs, cols, pass));
    return hfft__sched_sync(g);
}

int hfft__long_round(hfft__gpu *g, rstate *r, const char *src, char *dst, int64_t *pass) {
    size_t es = g->es;
    int inplace = src == dst;
    for (int64_t o = 0; o < r->r.no; o++) {
        for (int64_t c0 = 0; c0 < r->units; c0 += r->wcols) {
            int64_t w = r->units - c0 < r->wcols ? r->units - c0 : r->wcols;
            size_t off = (size_t)(o * r->r.dout + c0) * es;
            char *fin = dst + off;
            char *mid = inplace ? g->scratch : fin;
            int64_t ms = inplace ? w : r->r.s;
            TRY(long_rec(g, r, 0, r->r.L, src + off, r->r.s, mid, ms, fin, r->r.s, w, pass));
        }
    }
    return 0;
}

static int long_run(hfft__gpu *g, rstate *r, int h, const char *src, char *dst, int64_t *pass) {
    (void)h;
    return hfft__long_round(g, r, src, dst, pass);
}

static int64_t long_passes(const hfft__gpu *g, const rstate *r, int h) {
    (void)g;
    (void)h;
    int64_t per = r->blk > 0 ? r->blk : 1;
    return (r->units + per - 1) / per;
}

const pass_kind hfft__long_kind = {"long-line", HFFT_SCHED_PLAIN, 0, 0, 0, long_run, long_passes};
