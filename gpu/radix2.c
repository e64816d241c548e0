/*
 * radix2.c: the 2013 library's split inside a strided pass.  Four
 * subsequences by index mod 4, each on its own stream (copy in + L/4-point
 * FFT), two radix-2 combinations (phase 2) on two streams, then phase 3 in
 * chunks of k whose copies out overlap the later chunks' kernels; two buffer
 * sets alternate.
 */
#include "gpu/sched.h"


/* A whole pass lives in two slots (quarters in halves): columns per pass, and
   the four quarter-length plans of each buffer set. */
int hfft__radix2_size(hfft__gpu *g, rstate *r, size_t cap, size_t *work, int *nwork) {
    size_t col = (size_t)r->r.L * g->es;
    int64_t w2 = (int64_t)(2 * cap / col);
    r->kind = &hfft__radix2_kind;
    r->blk = w2 > r->units ? r->units : w2;
    *nwork = NSTREAM;
    return hfft__sched_make_plans(g, r, NSTREAM, r->r.L / 4, r->blk, work);
}

static int radix2_strided(hfft__gpu *g, rstate *r, view v, int64_t cols, int64_t *pass) {
    const hfft__dev_ops *o = g->ops;
    hfft__dev *d = g->d;
    size_t es = g->es;
    int64_t L = r->r.L, L4 = L / 4, blk = r->blk;
    size_t quarter = (size_t)(L4 * blk) * es;
    static const int out_quarter[4] = {0, 2, 1, 3}; /* tile j holds T(k + out_quarter[j] L/4) */
    for (int64_t c0 = 0; c0 < cols; c0 += blk) {
        int64_t w = cols - c0 < blk ? cols - c0 : blk;
        int b = (int)(*pass % 2);
        hfft__stream *S = &g->stream[4 * b];
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
            TRY(hfft__sched_h2d(g, S[j], t[j], (size_t)blk * es, v.src + (j * v.ss + c0) * es,
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
                    TRY(hfft__sched_d2h(g, q, v.dst + (row * v.ds + c0) * es, (size_t)v.ds * es, t[j] + off,
                               (size_t)blk * es, (size_t)w * es, (size_t)rows));
                }
            }
            TRY(o->record(d, end[c], q));
        }
    }
    return 0;
}

int hfft__radix2_round(hfft__gpu *g, rstate *r, const char *src, char *dst, int64_t *pass) {
    for (int64_t o = 0; o < r->r.no; o++) {
        size_t off = (size_t)(o * r->r.dout) * g->es;
        view v = {src + off, r->r.s, dst + off, r->r.s};
        TRY(radix2_strided(g, r, v, r->units, pass));
    }
    return 0;
}

static int radix2_run(hfft__gpu *g, rstate *r, int h, const char *src, char *dst,
                      int64_t *pass) {
    (void)h;
    return hfft__radix2_round(g, r, src, dst, pass);
}

static int64_t radix2_passes(const hfft__gpu *g, const rstate *r, int h) {
    (void)g;
    (void)h;
    int64_t per = r->blk > 0 ? r->blk : 1;
    return (r->units + per - 1) / per;
}

const pass_kind hfft__radix2_kind = {"radix-2", HFFT_SCHED_RADIX2, 0, 0, 0, radix2_run,
                                     radix2_passes};
