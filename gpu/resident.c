/*
 * resident.c: partial residency, for streaming plans of two rounds (the slow
 * dimension's columns, then the rows: 2D, or 3D with its planes) whose array
 * is larger than the budget but not many times larger.  What the passes leave
 * of the budget holds the last `rw` columns of every row: round 1 copies them
 * in and transforms them there, and never copies them out; round 2 takes each
 * row's first columns from the host and the rest from the device.  Bytes per
 * direction: 2 S - R instead of 2 S, R the resident bytes, falling to S as
 * the budget grows to the array's size (where one trip takes over).
 * Several cards streaming every unit between them keep each the last columns
 * of its own share; round 2 on every card takes each row's columns card by card,
 * from the host or from the card that keeps them (card to card), so that the
 * cards that keep nothing still read what the others kept (cards.c gives every
 * card each card's part, hfft__res_part).
 */
#include <string.h>

#include "gpu/sched.h"

#define WIDE_ROW ((size_t)32 << 10) /* column passes keep their rows this wide */
#define MIN_SHARE 16                /* at least S / MIN_SHARE resident, or none */

/* Not r2r rounds: their kinds' steps beside the lines make the resident schedule's
   narrow passes wait on the compute, and wide passes are faster though they move the
   resident columns too. */
int hfft__res_eligible(const hfft__gpu *g) {
    if (g->nrounds != 2)
        return 0;
    const hfft__round *c = &g->rd[0].r, *r = &g->rd[1].r;
    return !c->r2r && !r->r2r && c->no == 1 && hfft__round_strided(c) && !hfft__round_strided(r) &&
           r->kind == HFFT__C2C && !r->twn && !r->tout && !c->twn && r->no == c->L &&
           (g->cards > 1 || (g->rd[0].units == c->ni && g->rd[1].units == r->no));
}

size_t hfft__res_pass_bytes(const hfft__gpu *g) {
    const hfft__round *c = &g->rd[0].r;
    size_t total = (size_t)(c->L * g->rd[0].units) * g->es, wide = (size_t)c->L * WIDE_ROW;
    return (wide < total / 8 ? wide : total / 8) & ~(size_t)255;
}

/* The card's columns of round 1, [ca, cb), and those it keeps, [c0, cb) (none: c0 = cb). */
static hfft__res_part own_part(const hfft__gpu *g) {
    const rstate *c = &g->rd[0];
    int64_t cb = g->res ? g->rcol + g->rw : c->u0 + c->units;
    return (hfft__res_part){g->d, g->res, c->u0, g->res ? g->rcol : cb, cb};
}

int hfft__res_own_part(const hfft__gpu *g, hfft__res_part *p) {
    if (g->cards < 2 || g->four || !hfft__res_eligible(g) || g->rd[0].kind != &hfft__plain_kind ||
        g->rd[1].kind != &hfft__plain_kind)
        return -1;
    *p = own_part(g);
    return 0;
}

void hfft__res_set_parts(hfft__gpu *g, const hfft__res_part *parts, int n) {
    g->nrpart = n < HFFT_MAX_CARDS ? n : HFFT_MAX_CARDS;
    memcpy(g->rpart, parts, sizeof *parts * (size_t)g->nrpart);
}

void hfft__res_release(hfft__gpu *g) {
    g->nrpart = 0;
    for (int k = 0; k < 2; k++)
        if (g->rplan[k])
            g->ops->fft_destroy(g->d, g->rplan[k]);
    if (g->res)
        g->ops->free(g->d, g->res);
    if (g->res_ev)
        g->ops->event_destroy(g->d, g->res_ev);
    g->res = NULL;
    g->rplan[0] = g->rplan[1] = NULL;
    g->res_ev = NULL;
    g->rw = 0;
}

int hfft__res_size(hfft__gpu *g) {
    rstate *c = &g->rd[0];
    int64_t d0 = c->r.L, cols = c->units; /* the card's columns (every row's, on one card) */
    int64_t left = g->ops->budget(g->d) - g->ops->used(g->d) - g->ops->reserve(g->d);
    int64_t rw = left > 0 ? left / (d0 * (int64_t)g->es) : 0;
    if (rw > cols)
        rw = cols;
    if (rw < 1 || rw * (int64_t)MIN_SHARE < cols)
        return 0; /* too little room to be worth it */
    /* blocks of the resident columns: as wide as a pass */
    int64_t wb = (int64_t)(g->cap / ((size_t)d0 * g->es));
    wb = wb < 1 ? 1 : wb > rw ? rw : wb;
    size_t work = 0;
    int st = 0;
    if (!c->transpose) {
        /* strided FFTs in the resident buffer (pitch rw): a block, and the last one */
        int64_t last = rw % wb ? rw % wb : wb;
        for (int k = 0; k < 2 && !st; k++) {
            if (k && last == wb)
                break;
            st = g->ops->fft_plan(g->d, g->prec, HFFT__C2C, 1, &d0, rw, 1,
                                  k ? last : wb, g->sign, &g->rplan[k], &work);
            if (!st && work > g->work_bytes)
                st = 1; /* needs more work area than the passes have: no residency */
        }
    }
    if (!st)
        st = g->ops->event_create(g->d, &g->res_ev);
    if (!st)
        st = g->ops->alloc(g->d, &g->res, (size_t)(rw * d0) * g->es);
    if (st) {
        hfft__res_release(g);
        if (st == 1 || st == HFFT_ERR_DEVICE_MEMORY) {
            hfft__clear_error();
            return 0;
        }
        return st;
    }
    g->rw = rw;
    g->rwb = wb;
    g->rcol = c->u0 + cols - rw;
    c->units = cols - rw; /* the streaming passes take the other columns */
    /* round 2 reads the row's columns from the host up to rcol, then from here; several
       cards are given every card's part once all are planned */
    g->rpart[0] = own_part(g);
    g->nrpart = 1;
    return 0;
}

int hfft__res_round1(hfft__gpu *g, const char *src) {
    const hfft__dev_ops *o = g->ops;
    rstate *c = &g->rd[0];
    size_t es = g->es, hpitch = (size_t)c->r.ni * es, rpitch = (size_t)g->rw * es;
    int64_t d0 = c->r.L;
    hfft__stream in = g->stream[0], comp = g->stream[NSTREAM];
    for (int64_t c0 = 0; c0 < g->rw; c0 += g->rwb) {
        int64_t w = g->rw - c0 < g->rwb ? g->rw - c0 : g->rwb;
        char *blk = (char *)g->res + (size_t)c0 * es;
        TRY(hfft__sched_h2d(g, in, blk, rpitch, src + (size_t)(g->rcol + c0) * es, hpitch,
                            (size_t)w * es, (size_t)d0));
        TRY(o->record(g->d, g->res_ev, in));
        TRY(o->wait(g->d, comp, g->res_ev));
        if (c->transpose)
            TRY(hfft__sched_columns(g, c->plan[0], blk, g->rw, d0, w, c->wc));
        else
            TRY(o->fft_exec(g->d, g->rplan[w == g->rwb ? 0 : 1], comp, blk, g->work[0]));
    }
    /* round 2's copies from the resident columns wait for this */
    return o->record(g->d, g->res_ev, comp);
}
