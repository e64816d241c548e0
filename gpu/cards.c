/*
 * cards.c: one plan's GPU side over its cards (see cards.h).  Several cards
 * either run one trip together (mtrip.c) or split every round's units, each
 * card streaming its share with its own engine.  The engines of cards 1..n-1
 * run on a host thread each (an engine's thread blocks while its pipeline
 * waits for a buffer), card 0's on the caller's.
 */
#include "gpu/cards.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu/mtrip.h"
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

struct hfft__cards {
    int n;
    hfft__card card[HFFT_MAX_CARDS];
    hfft__gpu *g[HFFT_MAX_CARDS]; /* split rounds: each card's engine */
    runner run[HFFT_MAX_CARDS];   /* [k] drives card k, k >= 1 */
    hfft__mtrip *trip;            /* one trip over all cards */
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
    hfft__mtrip_destroy(c->trip);
    free(c);
}

/* Card k of n's share [lo, hi) of u units. */
static void share(int64_t u, int k, int n, int64_t *lo, int64_t *hi) {
    *lo = u * k / n;
    *hi = u * (k + 1) / n;
}

int hfft__cards_create(const hfft__card *cards, int n, const hfft__gpu_req *req,
                       hfft__cards **out) {
    *out = NULL;
    hfft__cards *c = calloc(1, sizeof *c);
    if (!c)
        return hfft__fail(HFFT_ERR_HOST_MEMORY, "GPU engine: out of memory");
    c->n = n;
    c->nrounds = req->nrounds;
    memcpy(c->card, cards, (size_t)n * sizeof *cards);
    if (n == 1) {
        hfft__gpu_req one = *req;
        one.share_four = 1; /* one card: a CPU share may follow its four-step layout */
        int st = hfft__gpu_create(cards[0].ops, cards[0].dev, &one, &c->g[0]);
        if (st) {
            free(c);
            return st;
        }
        *out = c;
        return 0;
    }
    /* One trip over all cards, where the array fits them (1: it does not). */
    int st = req->schedule == 0 && req->slots == 0 && req->pass_bytes <= 0
                 ? hfft__mtrip_create(cards, n, req, &c->trip)
                 : 1;
    if (st <= 0) {
        if (st) {
            free(c);
            return st;
        }
        *out = c;
        return 0;
    }
    /* Where the cards cannot share one trip (a long line cut four-step) but the first
       holds it alone: two cards streaming move 2 S over two links, S over each, as one
       card's trip does over its own, and a long line's rounds then need a host array
       of S between them (a 2^34-point f32 line on two H200s: 128 GiB that a 251 GiB
       node cannot add to its 128 GiB array).  More cards stream, each moving less. */
    int cut = 0;
    for (int h = 0; h < req->nrounds; h++)
        cut |= req->rounds[h].twn != 0 || req->rounds[h].tout;
    if (cut && n == 2 && req->schedule == 0 && req->slots == 0 && req->pass_bytes <= 0) {
        hfft__gpu_req one = *req;
        one.trip_only = 1;
        st = hfft__gpu_create(cards[0].ops, cards[0].dev, &one, &c->g[0]);
        if (st == 0) {
            c->n = 1;
            *out = c;
            return 0;
        }
        /* no room, or the card refused the trip's memory: both cards stream, and
           report their own failures */
        c->g[0] = NULL;
        hfft__clear_error();
    }
    st = 0;
    for (int k = 0; k < n && !st; k++) {
        hfft__gpu_req r = *req;
        for (int h = 0; h < req->nrounds; h++) {
            int64_t lo, hi;
            share(req->units[h], k, n, &lo, &hi);
            r.lo[h] = req->lo[h] + lo;
            r.units[h] = hi - lo;
        }
        st = hfft__gpu_create(cards[k].ops, cards[k].dev, &r, &c->g[k]);
        if (st)
            st = hfft__fail_context(st, "card %d of %d", k, n);
        if (!st && k > 0)
            st = runner_start(&c->run[k], c->g[k]);
    }
    if (st) {
        hfft__cards_destroy(c);
        return st;
    }
    *out = c;
    return 0;
}

int hfft__cards_run(hfft__cards *c, int h, const void *src, void *dst, int drain) {
    if (c->trip)
        return hfft__mtrip_run(c->trip, src, dst);
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

int hfft__cards_stage(hfft__cards *c, int on, int threads) {
    if (c->trip)
        return on ? hfft__fail(HFFT_ERR_UNSUPPORTED,
                               "one trip over several cards copies straight from pinned "
                               "(registered) arrays")
                  : 0;
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

int hfft__cards_staged(const hfft__cards *c) { return !c->trip && hfft__gpu_staged(c->g[0]); }

int hfft__cards_used(const hfft__cards *c) { return c->n; }

int hfft__cards_four(const hfft__cards *c, hfft__four_shape *s) {
    return c->trip || c->n != 1 ? -1 : hfft__gpu_four(c->g[0], s);
}

void hfft__cards_set_take(hfft__cards *c, hfft__take_fn fn, void *ctx) {
    for (int k = 0; !c->trip && k < c->n; k++)
        hfft__gpu_set_take(c->g[k], fn, ctx);
}

int hfft__cards_one_trip(const hfft__cards *c) {
    return c->trip != NULL || (c->n == 1 && hfft__gpu_one_trip(c->g[0]));
}

void hfft__cards_take_link(hfft__cards *c, int64_t bytes[2]) {
    if (c->trip) {
        hfft__mtrip_take_link(c->trip, bytes);
        return;
    }
    bytes[0] = bytes[1] = 0;
    for (int k = 0; k < c->n; k++) {
        int64_t b[2];
        hfft__gpu_take_link(c->g[k], b);
        bytes[0] += b[0];
        bytes[1] += b[1];
    }
}

void hfft__cards_times(const hfft__cards *c, double *secs) {
    if (c->trip)
        hfft__mtrip_times(c->trip, secs);
    else
        hfft__gpu_times(c->g[0], secs);
}

int hfft__cards_round_times(const hfft__cards *c, double *secs) {
    return c->trip || c->n != 1 ? -1 : hfft__gpu_round_times(c->g[0], secs);
}

void hfft__cards_fill_info(const hfft__cards *c, hfft_info *info) {
    if (c->trip) {
        hfft__mtrip_fill_info(c->trip, info);
        return;
    }
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
