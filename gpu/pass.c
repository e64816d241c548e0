/*
 * pass.c: what every schedule's passes use: the cuFFT plans of a round's
 * tiles, and the wait that leaves every stream and buffer of the engine idle.
 */
#include <string.h>

#include "gpu/sched.h"

void hfft__sched_destroy_plans(hfft__gpu *g, srd *r) {
    for (int i = 0; i < r->nplan; i++)
        if (r->plan[i])
            g->ops->fft_destroy(g->d, r->plan[i]);
    memset(r->plan, 0, sizeof r->plan);
    r->nplan = 0;
}

/* n plans of length L over `batch` columns of a tile with `batch` pitch (strided),
   `batch` contiguous lines of length L (strided computed transposed), or
   `batch` contiguous lines or planes of the round; reports the largest work area. */
int hfft__sched_make_plans(hfft__gpu *g, srd *r, int n, int64_t L, int64_t batch, size_t *work) {
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

int hfft__sched_sync(hfft__gpu *g) {
    for (int i = 0; i < NSTREAM + 1; i++)
        TRY(g->ops->sync(g->d, g->st[i]));
    if (g->stage)
        TRY(hfft__stage_sync(g->stage));
    g->piped = 0; /* every buffer is idle: the next passes wait for nothing */
    return 0;
}
