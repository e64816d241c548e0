/*
 * cards.c: one plan's GPU side over its cards (see cards.h), chosen once: the
 * cards run one trip together (trip.c) or split every round's units, each card
 * streaming its share with its own engine (engine.c).  The engines of cards
 * 1..n-1 run on a host thread each (an engine's thread blocks while its
 * pipeline waits for a buffer), card 0's on the caller's.
 */
#include "gpu/cards.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu/trip.h"
#include "src/core/status.h"

/* A host thread that runs one card's engine on request. */
typedef struct runner {
    pthread_t th;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int job; /* 1: run the request, -1: quit, 0: idle */
    int started;
    hfft__gpu *g;
    int h, st;
    const void *src;
    void *dst;
    char msg[512]; /* the failure's message: messages are per thread */
} runner;

/* What a plan's GPU side does, one table per schedule: one trip over the cards,
   or the cards streaming each a share of every round (one card: its engine on the
   caller's thread). */
typedef struct cards_ops {
    int kind; /* HFFT_SCHED_ONE_TRIP, or 0: streaming (the engines say which) */
    int (*run)(hfft__cards *c, int h, const void *src, void *dst, int drain);
    int (*stage)(hfft__cards *c, int on, int threads);
    int (*staged)(const hfft__cards *c);
    void (*take_link)(hfft__cards *c, int64_t bytes[2]);
    void (*times)(const hfft__cards *c, double *secs);
    void (*fill_info)(const hfft__cards *c, hfft_info *info);
} cards_ops;

struct hfft__cards {
    const cards_ops *ops;
    int n;
    hfft__card card[HFFT_MAX_CARDS];
    hfft__gpu *g[HFFT_MAX_CARDS]; /* streaming: each card's engine */
    runner run[HFFT_MAX_CARDS];   /* [k] drives card k, k >= 1 */
    hfft__trip *trip;             /* one trip */
    int nrounds;
};

static void *runner_main(void *arg) {
    runner *r = arg;
    pthread_mutex_lock(&r->mu);
    for (;;) {
        while (r->job == 0)
            pthread_cond_wait(&r->cv, &r->mu);
        if (r->job < 0)
            break;
        pthread_mutex_unlock(&r->mu);
        int st = hfft__gpu_run(r->g, r->h, r->src, r->dst, 1);
        /* the status and message travel to the caller's thread */
        pthread_mutex_lock(&r->mu);
        r->st = st;
        if (st)
            snprintf(r->msg, sizeof r->msg, "%s", hfft_last_error_message());
        r->job = 0;
        pthread_cond_broadcast(&r->cv);
    }
    pthread_mutex_unlock(&r->mu);
    return NULL;
}

static int runner_start(runner *r, hfft__gpu *g) {
    r->g = g;
    pthread_mutex_init(&r->mu, NULL);
    pthread_cond_init(&r->cv, NULL);
    if (pthread_create(&r->th, NULL, runner_main, r)) {
        pthread_mutex_destroy(&r->mu);
        pthread_cond_destroy(&r->cv);
        return hfft__fail(HFFT_ERR_HOST_MEMORY, "several cards: cannot start a card's thread");
    }
    r->started = 1;
    return 0;
}

static void runner_stop(runner *r) {
    if (!r->started)
        return;
    pthread_mutex_lock(&r->mu);
    r->job = -1;
    pthread_cond_broadcast(&r->cv);
    pthread_mutex_unlock(&r->mu);
    pthread_join(r->th, NULL);
    pthread_mutex_destroy(&r->mu);
    pthread_cond_destroy(&r->cv);
    r->started = 0;
}

void hfft__cards_destroy(hfft__cards *c) {
    if (!c)
        return;
    for (int k = 0; k < c->n; k++) {
        runner_stop(&c->run[k]);
        hfft__gpu_destroy(c->g[k]);
    }
    hfft__trip_destroy(c->trip);
    free(c);
}

/* ---- one trip ---- */

static int trip_run(hfft__cards *c, int h, const void *src, void *dst, int drain) {
    (void)h;
    (void)drain;
    return hfft__trip_run(c->trip, src, dst);
}

static int trip_stage(hfft__cards *c, int on, int threads) {
    return hfft__trip_stage(c->trip, on, threads);
}

static int trip_staged(const hfft__cards *c) { return hfft__trip_staged(c->trip); }

static void trip_take_link(hfft__cards *c, int64_t bytes[2]) {
    hfft__trip_take_link(c->trip, bytes);
}

static void trip_times(const hfft__cards *c, double *secs) { hfft__trip_times(c->trip, secs); }

static void trip_fill_info(const hfft__cards *c, hfft_info *info) {
    hfft__trip_fill_info(c->trip, info);
}

static const cards_ops trip_ops = {HFFT_SCHED_ONE_TRIP, trip_run,   trip_stage,    trip_staged,
                                   trip_take_link,      trip_times, trip_fill_info};

/* ---- streaming: each card its share of every round ---- */

static int stream_run(hfft__cards *c, int h, const void *src, void *dst, int drain) {
    if (c->n == 1)
        return hfft__gpu_run(c->g[0], h, src, dst, drain);
    for (int k = 1; k < c->n; k++) {
        runner *r = &c->run[k];
        pthread_mutex_lock(&r->mu);
        r->h = h;
        r->src = src;
        r->dst = dst;
        r->st = 0;
        r->job = 1;
        pthread_cond_broadcast(&r->cv);
        pthread_mutex_unlock(&r->mu);
    }
    /* several cards drain every round: the next round reads what other cards wrote */
    int st = hfft__gpu_run(c->g[0], h, src, dst, 1);
    char msg[512] = "";
    if (st)
        snprintf(msg, sizeof msg, "%s", hfft_last_error_message());
    for (int k = 1; k < c->n; k++) {
        runner *r = &c->run[k];
        pthread_mutex_lock(&r->mu);
        while (r->job != 0)
            pthread_cond_wait(&r->cv, &r->mu);
        int rst = r->st;
        pthread_mutex_unlock(&r->mu);
        if (rst && !st) {
            st = rst;
            snprintf(msg, sizeof msg, "card %d: %.480s", k, r->msg);
        }
    }
    if (st)
        return hfft__fail(st, "%s", msg);
    return 0;
}

static int stream_stage(hfft__cards *c, int on, int threads) {
    int per = c->n > 1 && threads > c->n ? threads / c->n : threads;
    for (int k = 0; k < c->n; k++) {
        int st = hfft__gpu_stage(c->g[k], on, per);
        if (st) {
            for (int j = 0; j < k; j++)
                (void)hfft__gpu_stage(c->g[j], 0, 0);
            return st;
        }
    }
    return 0;
}

static int stream_staged(const hfft__cards *c) { return hfft__gpu_staged(c->g[0]); }

static void stream_take_link(hfft__cards *c, int64_t bytes[2]) {
    bytes[0] = bytes[1] = 0;
    for (int k = 0; k < c->n; k++) {
        int64_t b[2];
        hfft__gpu_take_link(c->g[k], b);
        bytes[0] += b[0];
        bytes[1] += b[1];
    }
}

static void stream_times(const hfft__cards *c, double *secs) {
    for (int h = 0; h < c->nrounds; h++)
        secs[h] = 0.0;
}

static void stream_fill_info(const hfft__cards *c, hfft_info *info) {
    hfft__gpu_fill_info(c->g[0], info);
    for (int k = 1; k < c->n; k++) {
        hfft_info one = *info;
        hfft__gpu_fill_info(c->g[k], &one);
        for (int h = 0; h < c->nrounds; h++)
            info->passes[h] += one.passes[h];
        info->device_bytes += one.device_bytes;
        info->resident_bytes += one.resident_bytes;
        info->host_bytes = one.host_bytes; /* fill_info adds each card's to what it had */
    }
}

static const cards_ops stream_ops = {0,          stream_run,       stream_stage,
                                     stream_staged, stream_take_link, stream_times,
                                     stream_fill_info};

/* ---- the choice, once ---- */

/* Card k of n's share [lo, hi) of u units. */
static void share(int64_t u, int k, int n, int64_t *lo, int64_t *hi) {
    *lo = u * k / n;
    *hi = u * (k + 1) / n;
}

/* Each card streaming its share of every round, cards 1..n-1 on threads of their own. */
static int make_streams(hfft__cards *c, const hfft__card *cards, int n,
                        const hfft__gpu_req *req) {
    c->ops = &stream_ops;
    c->n = n;
    if (n == 1) {
        hfft__gpu_req one = *req;
        one.share_four = 1; /* one card: a CPU share may follow its four-step layout */
        return hfft__gpu_create(cards[0].ops, cards[0].dev, &one, &c->g[0]);
    }
    for (int k = 0; k < n; k++) {
        hfft__gpu_req r = *req;
        for (int h = 0; h < req->nrounds; h++) {
            int64_t lo, hi;
            share(req->units[h], k, n, &lo, &hi);
            r.lo[h] = req->lo[h] + lo;
            r.units[h] = hi - lo;
        }
        int st = hfft__gpu_create(cards[k].ops, cards[k].dev, &r, &c->g[k]);
        if (st)
            return hfft__fail_context(st, "card %d of %d", k, n);
        if (k > 0)
            HFFT__TRY(runner_start(&c->run[k], c->g[k]));
    }
    return 0;
}

int hfft__cards_create(const hfft__card *cards, int n, const hfft__gpu_req *req,
                       hfft__cards **out) {
    *out = NULL;
    hfft__cards *c = calloc(1, sizeof *c);
    if (!c)
        return hfft__fail(HFFT_ERR_HOST_MEMORY, "GPU engine: out of memory");
    c->nrounds = req->nrounds;
    memcpy(c->card, cards, (size_t)n * sizeof *cards);
    int automatic = req->schedule == 0 && req->slots == 0 && req->pass_bytes <= 0;
    /* One trip over the cards where the array fits them (1: it does not). */
    int st = automatic ? hfft__trip_create(cards, n, req, &c->trip) : 1;
    /* Where the cards cannot share one trip (a long line cut four-step) but the first
       holds it alone: two cards streaming move 2 S over two links, S over each, as one
       card's trip does over its own, and a long line's rounds then need a host array
       of S between them.  More cards stream, each moving less. */
    int cut = 0;
    for (int h = 0; h < req->nrounds; h++)
        cut |= req->rounds[h].twn != 0 || req->rounds[h].tout;
    if (st == 1 && cut && n == 2 && automatic) {
        st = hfft__trip_create(cards, 1, req, &c->trip);
        /* no room, or the card refused the trip: both cards stream, and report their
           own failures */
        if (st) {
            hfft__clear_error();
            st = 1;
        }
    }
    if (st == 0) {
        c->ops = &trip_ops;
        c->n = hfft__trip_cards(c->trip);
    } else if (st == 1) {
        st = make_streams(c, cards, n, req);
    }
    if (st) {
        hfft__cards_destroy(c);
        return st;
    }
    *out = c;
    return 0;
}

int hfft__cards_run(hfft__cards *c, int h, const void *src, void *dst, int drain) {
    return c->ops->run(c, h, src, dst, drain);
}

int hfft__cards_stage(hfft__cards *c, int on, int threads) {
    return c->ops->stage(c, on, threads);
}

int hfft__cards_staged(const hfft__cards *c) { return c->ops->staged(c); }

int hfft__cards_used(const hfft__cards *c) { return c->n; }

int hfft__cards_four(const hfft__cards *c, hfft__four_shape *s) {
    return c->ops == &stream_ops && c->n == 1 ? hfft__gpu_four(c->g[0], s) : -1;
}

void hfft__cards_set_take(hfft__cards *c, hfft__take_fn fn, void *ctx) {
    for (int k = 0; c->ops == &stream_ops && k < c->n; k++)
        hfft__gpu_set_take(c->g[k], fn, ctx);
}

int hfft__cards_one_trip(const hfft__cards *c) { return c->ops->kind == HFFT_SCHED_ONE_TRIP; }

void hfft__cards_take_link(hfft__cards *c, int64_t bytes[2]) { c->ops->take_link(c, bytes); }

void hfft__cards_times(const hfft__cards *c, double *secs) { c->ops->times(c, secs); }

int hfft__cards_round_times(const hfft__cards *c, double *secs) {
    return c->ops == &stream_ops && c->n == 1 ? hfft__gpu_round_times(c->g[0], secs) : -1;
}

void hfft__cards_fill_info(const hfft__cards *c, hfft_info *info) { c->ops->fill_info(c, info); }
