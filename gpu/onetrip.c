/*
 * onetrip.c: the one-trip schedule, for arrays that fit the device with their
 * work areas.  Every byte crosses the link once each way (S in, then S out:
 * no output can leave before the last input has arrived, so S/B_in + S/B_out
 * bounds it).  The array is copied in by chunks along its slowest dimension,
 * and each chunk's transforms along the other dimensions run as soon as it
 * has landed; then the slowest dimension's transforms run in blocks of
 * columns, each block copied out while the next is computed.  What the
 * copies do not hide is one chunk's transforms and one block's.
 */
#include <stdlib.h>
#include <string.h>

#include "gpu/sched.h"

#define TRIP_CHUNKS 16          /* copy-in chunks along dimension 0, at most */
#define TRIP_ROW ((size_t)64 << 10) /* copy-out blocks keep their rows this wide */
#define TRIP_BLOCKS 8           /* copy-out blocks, at most */
#define TRANSPOSE_MIN_L 4096    /* longer strided lines are computed transposed */
#define WCOLS 128               /* columns per transposed FFT */

struct hfft__trip {
    void *arr;              /* the array on the device */
    size_t bytes;
    int64_t d0, row;        /* dimension 0's length; elements per dimension-0 index */
    int nchunk, nblock;
    int64_t crow, bcols;    /* dimension-0 indices per chunk; columns per block */
    /* per round h >= 1: a whole chunk and the last chunk (strided rounds: one outer
       index at a time, [0] only) */
    hfft__fftplan inner[HFFT__MAX_ROUNDS][2];
    hfft__fftplan col[2];   /* dimension 0: WCOLS lines transposed; or a block, the last */
    int transpose;
    int64_t wc;
    hfft__event *in_ev, *comp_ev, *out_ev, phase_ev;
    double t[2];            /* last execute: copy in with the fast dimensions; the slow
                               dimension with the copy out */
};

void hfft__trip_destroy(hfft__gpu *g) {
    hfft__trip *t = g->trip;
    if (!t)
        return;
    const hfft__dev_ops *o = g->ops;
    for (int h = 0; h < HFFT__MAX_ROUNDS; h++)
        for (int k = 0; k < 2; k++)
            if (t->inner[h][k])
                o->fft_destroy(g->d, t->inner[h][k]);
    for (int k = 0; k < 2; k++)
        if (t->col[k])
            o->fft_destroy(g->d, t->col[k]);
    hfft__event *ev[3] = {t->in_ev, t->comp_ev, t->out_ev};
    int n[3] = {t->nchunk, t->nblock, t->nblock};
    for (int a = 0; a < 3; a++) {
        for (int i = 0; ev[a] && i < n[a]; i++)
            if (ev[a][i])
                o->event_destroy(g->d, ev[a][i]);
        free(ev[a]);
    }
    if (t->phase_ev)
        o->event_destroy(g->d, t->phase_ev);
    if (t->arr)
        o->free(g->d, t->arr);
    free(t);
    g->trip = NULL;
}

static int plan(hfft__gpu *g, hfft__fftplan *p, int rank, const int64_t *n, int64_t stride,
                int64_t dist, int64_t batch, size_t *work) {
    size_t w = 0;
    HFFT__TRY(g->ops->fft_plan(g->d, g->prec, rank, n, stride, dist, batch, g->sign, p, &w));
    if (w > *work)
        *work = w;
    return 0;
}

/* Plans of the rounds along the fast dimensions, for a chunk of dimension 0. */
static int plan_inner(hfft__gpu *g, hfft__trip *t, size_t *work) {
    int64_t last = t->d0 - (int64_t)(t->nchunk - 1) * t->crow;
    for (int h = 1; h < g->nrounds; h++) {
        const hfft__round *r = &g->rd[h].r;
        int64_t per = r->no / t->d0; /* lines (or outer indices) per dimension-0 index */
        if (hfft__round_strided(r)) {
            TRY(plan(g, &t->inner[h][0], 1, &r->L, r->s, 1, r->ni, work));
            continue;
        }
        const int64_t *shape = r->rank == 2 ? r->n2 : &r->L;
        TRY(plan(g, &t->inner[h][0], r->rank, shape, 1, r->dout, t->crow * per, work));
        if (last != t->crow)
            TRY(plan(g, &t->inner[h][1], r->rank, shape, 1, r->dout, last * per, work));
    }
    return 0;
}

int hfft__trip_size(hfft__gpu *g, int64_t budget) {
    if (g->nrounds < 2 || g->stage)
        return 1;
    const hfft__round *r0 = &g->rd[0].r;
    if (r0->no != 1 || r0->ni <= 1)
        return 1; /* dimension 0 is not transformed: one round streams best */
    for (int h = 0; h < g->nrounds; h++)
        if (g->rd[h].units != hfft__round_units(&g->rd[h].r))
            return 1; /* a CPU share: the streaming schedule */
    size_t bytes = (size_t)(r0->L * r0->ni) * g->es;
    if ((int64_t)bytes >= budget)
        return 1;
    hfft__trip *t = calloc(1, sizeof *t);
    if (!t)
        return hfft__fail(HFFT_ERR_HOST_MEMORY, "GPU engine: out of memory");
    g->trip = t;
    t->bytes = bytes;
    t->d0 = r0->L;
    t->row = r0->ni;
    t->crow = (t->d0 + TRIP_CHUNKS - 1) / TRIP_CHUNKS;
    t->nchunk = (int)((t->d0 + t->crow - 1) / t->crow);
    int64_t nb = (int64_t)((size_t)t->row * g->es / TRIP_ROW);
    nb = nb < 1 ? 1 : nb > TRIP_BLOCKS ? TRIP_BLOCKS : nb;
    t->bcols = (t->row + nb - 1) / nb;
    t->nblock = (int)((t->row + t->bcols - 1) / t->bcols);
    size_t work = 0;
    int st = plan_inner(g, t, &work);
    t->transpose = t->d0 >= TRANSPOSE_MIN_L;
    t->wc = t->bcols < WCOLS ? t->bcols : WCOLS;
    if (!st && t->transpose) {
        st = plan(g, &t->col[0], 1, &t->d0, 1, t->d0, t->wc, &work);
    } else if (!st) {
        int64_t lastw = t->row - (int64_t)(t->nblock - 1) * t->bcols;
        st = plan(g, &t->col[0], 1, &t->d0, t->row, 1, t->bcols, &work);
        if (!st && lastw != t->bcols)
            st = plan(g, &t->col[1], 1, &t->d0, t->row, 1, lastw, &work);
    }
    size_t tb = t->transpose ? (size_t)(t->wc * t->d0) * g->es : 0;
    if (!st && (int64_t)(bytes + tb + work) > budget)
        st = 1; /* the array fits, its work areas not */
    if (!st)
        st = g->ops->alloc(g->d, &t->arr, bytes);
    if (!st && tb) {
        st = g->ops->alloc(g->d, &g->tb, tb);
        g->tb_bytes = st ? 0 : tb;
    }
    if (!st && work) {
        st = g->ops->alloc(g->d, &g->work[0], work);
        g->work_bytes = work;
        g->nwork = 1;
    }
    t->in_ev = calloc((size_t)t->nchunk, sizeof *t->in_ev);
    t->comp_ev = calloc((size_t)t->nblock, sizeof *t->comp_ev);
    t->out_ev = calloc((size_t)t->nblock, sizeof *t->out_ev);
    if (!st && (!t->in_ev || !t->comp_ev || !t->out_ev))
        st = hfft__fail(HFFT_ERR_HOST_MEMORY, "GPU engine: out of memory");
    for (int i = 0; !st && i < t->nchunk; i++)
        st = g->ops->event_create(g->d, &t->in_ev[i]);
    for (int i = 0; !st && i < t->nblock; i++) {
        st = g->ops->event_create(g->d, &t->comp_ev[i]);
        if (!st)
            st = g->ops->event_create(g->d, &t->out_ev[i]);
    }
    if (!st)
        st = g->ops->event_create(g->d, &t->phase_ev);
    if (st) {
        /* Too little room, or the device refused: the streaming schedule instead. */
        if (g->tb)
            g->ops->free(g->d, g->tb);
        if (g->work[0])
            g->ops->free(g->d, g->work[0]);
        g->tb = g->work[0] = NULL;
        g->tb_bytes = g->work_bytes = 0;
        g->nwork = 0;
        hfft__trip_destroy(g);
        if (st == 1 || st == HFFT_ERR_DEVICE_MEMORY) {
            hfft__clear_error();
            return 1;
        }
        return st;
    }
    return 0;
}

/* Round h's transforms on dimension-0 indices [a, a + n) of the array. */
static int inner_chunk(hfft__gpu *g, hfft__trip *t, int h, int64_t a, int64_t n) {
    const hfft__round *r = &g->rd[h].r;
    hfft__stream c = g->st[NSTREAM];
    int64_t per = r->no / t->d0;
    char *base = (char *)t->arr + (size_t)(a * per * r->dout) * g->es;
    if (!hfft__round_strided(r))
        return g->ops->fft_exec(g->d, t->inner[h][n == t->crow ? 0 : 1], c, base, g->work[0]);
    for (int64_t o = 0; o < n * per; o++)
        TRY(g->ops->fft_exec(g->d, t->inner[h][0], c, base + (size_t)(o * r->dout) * g->es,
                             g->work[0]));
    return 0;
}

int hfft__trip_run(hfft__gpu *g, const char *src, char *dst) {
    hfft__trip *t = g->trip;
    const hfft__dev_ops *o = g->ops;
    hfft__dev *d = g->d;
    hfft__stream in = g->st[0], out = g->st[1], c = g->st[NSTREAM];
    size_t es = g->es, rowb = (size_t)t->row * es;
    char *arr = t->arr;
    double t0 = hfft__now();
    /* Copy in by chunks; each chunk's fast dimensions as soon as it landed. */
    for (int k = 0; k < t->nchunk; k++) {
        int64_t a = (int64_t)k * t->crow, n = t->d0 - a < t->crow ? t->d0 - a : t->crow;
        size_t bytes = (size_t)n * rowb;
        TRY(hfft__sched_h2d(g, in, arr + (size_t)a * rowb, bytes, src + (size_t)a * rowb, bytes,
                            bytes, 1));
        TRY(o->record(d, t->in_ev[k], in));
        TRY(o->wait(d, c, t->in_ev[k]));
        for (int h = 1; h < g->nrounds; h++)
            TRY(inner_chunk(g, t, h, a, n));
    }
    TRY(o->record(d, t->phase_ev, c));
    /* The slow dimension by blocks of columns, each copied out behind the next. */
    for (int j = 0; j < t->nblock; j++) {
        int64_t c0 = (int64_t)j * t->bcols, w = t->row - c0 < t->bcols ? t->row - c0 : t->bcols;
        char *col = arr + (size_t)c0 * es;
        if (t->transpose)
            TRY(hfft__sched_columns(g, t->col[0], col, t->row, t->d0, w, t->wc));
        else
            TRY(o->fft_exec(d, t->col[w == t->bcols ? 0 : 1], c, col, g->work[0]));
        TRY(o->record(d, t->comp_ev[j], c));
        TRY(o->wait(d, out, t->comp_ev[j]));
        TRY(hfft__sched_d2h(g, out, dst + (size_t)c0 * es, rowb, col, rowb, (size_t)w * es,
                            (size_t)t->d0));
        TRY(o->record(d, t->out_ev[j], out));
    }
    TRY(o->event_sync(d, t->phase_ev));
    double t1 = hfft__now();
    TRY(hfft__sched_sync(g));
    t->t[0] = t1 - t0;
    t->t[1] = hfft__now() - t1;
    return 0;
}

void hfft__trip_times(const hfft__gpu *g, double *first, double *last) {
    *first = g->trip ? g->trip->t[0] : 0.0;
    *last = g->trip ? g->trip->t[1] : 0.0;
}

size_t hfft__trip_bytes(const hfft__gpu *g) { return g->trip ? g->trip->bytes : 0; }
