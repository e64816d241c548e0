/*
 * cards.h: the GPU side of a plan, on one card or several, as the planner
 * sees it: the schedule chosen once.  Where the array fits the cards' budgets
 * together, one trip over them (trip.c: each card takes a slab through its own
 * link, the exchange between rounds goes card to card); where it does not,
 * every round's GPU units are cut between the cards and each card streams its
 * share with its engine (engine.h), all cards at once, one host thread each
 * (the planner's CPU share of the round, if any, runs beside them).  Each of
 * these schedules is a table of operations in its own file; the planner calls
 * through the table and nothing else.
 *
 * Thread safety: as engine.h, one call at a time; the cards' threads are
 * internal.
 */
#ifndef HFFT_GPU_CARDS_H
#define HFFT_GPU_CARDS_H

#include <stdint.h>

#include "gpu/engine.h"
#include "hfft.h"
#include "src/core/device.h"

typedef struct hfft__card {
    const hfft__dev_ops *ops;
    hfft__dev *dev;
} hfft__card;

typedef struct hfft__cards hfft__cards;

/* What a plan's GPU side does, one table per schedule, each in the schedule's own
   file: one trip over the cards (trip.c), one card streaming (engine.c), several
   cards streaming their shares (cards.c).  Each schedule's state begins with an
   hfft__cards whose table is its own, so that an execute is one call through it. */
typedef struct hfft__cards_ops {
    int kind; /* HFFT_SCHED_ONE_TRIP, or 0: streaming (the engines say which) */
    void (*destroy)(hfft__cards *c);
    /* As hfft__gpu_run; on several cards every round drains (the next round reads
       what other cards wrote); one trip runs every round at once (h, drain unused). */
    int (*run)(hfft__cards *c, int h, const void *src, void *dst, int drain);
    int (*stage)(hfft__cards *c, int on, int threads);
    int (*staged)(const hfft__cards *c);
    /* The cards it runs on: the first of those given (fewer where one card's trip
       took the place of several streaming). */
    int (*used)(const hfft__cards *c);
    /* 0 and *s where the plan streams four-step on one card (a CPU share follows its
       layout); -1 where not (NULL: never). */
    int (*four)(const hfft__cards *c, hfft__four_shape *s);
    /* Each card streaming its share: hfft__gpu_set_take (several may ask at once);
       NULL where no card takes units back (one trip). */
    void (*set_take)(hfft__cards *c, hfft__take_fn fn, void *ctx);
    /* Bytes over every card's link since the last call. */
    void (*take_link)(hfft__cards *c, int64_t bytes[2]);
    /* One trip: the last execute per round (hfft__trip_times); streaming: zeros. */
    void (*times)(const hfft__cards *c, double *secs);
    /* Streaming on one card: hfft__gpu_round_times; NULL otherwise (-1: several cards
       drain every round, so each round's host time is its own). */
    int (*round_times)(const hfft__cards *c, double *secs);
    void (*fill_info)(const hfft__cards *c, hfft_info *info);
} hfft__cards_ops;

struct hfft__cards {
    const hfft__cards_ops *ops;
};

/* The schedule, chosen once: one trip over the cards where the array fits them,
   else each card streaming.  req->units are the units all cards take together
   ([0, units) of each round). */
int hfft__cards_create(const hfft__card *cards, int n, const hfft__gpu_req *req,
                       hfft__cards **out);

static inline void hfft__cards_destroy(hfft__cards *c) {
    if (c)
        c->ops->destroy(c);
}
static inline int hfft__cards_run(hfft__cards *c, int h, const void *src, void *dst,
                                  int drain) {
    return c->ops->run(c, h, src, dst, drain);
}
static inline int hfft__cards_stage(hfft__cards *c, int on, int threads) {
    return c->ops->stage(c, on, threads);
}
static inline int hfft__cards_staged(const hfft__cards *c) { return c->ops->staged(c); }
static inline int hfft__cards_one_trip(const hfft__cards *c) {
    return c->ops->kind == HFFT_SCHED_ONE_TRIP;
}
static inline int hfft__cards_used(const hfft__cards *c) { return c->ops->used(c); }
static inline int hfft__cards_four(const hfft__cards *c, hfft__four_shape *s) {
    return c->ops->four ? c->ops->four(c, s) : -1;
}
static inline void hfft__cards_set_take(hfft__cards *c, hfft__take_fn fn, void *ctx) {
    if (c->ops->set_take)
        c->ops->set_take(c, fn, ctx);
}
static inline void hfft__cards_take_link(hfft__cards *c, int64_t bytes[2]) {
    c->ops->take_link(c, bytes);
}
static inline void hfft__cards_times(const hfft__cards *c, double *secs) {
    c->ops->times(c, secs);
}
static inline int hfft__cards_round_times(const hfft__cards *c, double *secs) {
    return c->ops->round_times ? c->ops->round_times(c, secs) : -1;
}
static inline void hfft__cards_fill_info(const hfft__cards *c, hfft_info *info) {
    c->ops->fill_info(c, info);
}

/* The streaming engine of one card as a plan's GPU side (engine.c). */
hfft__cards *hfft__gpu_side(hfft__gpu *g);

#endif
