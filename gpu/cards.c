/*
 * cards.c: the choice of a plan's GPU side, once (one trip over the cards in
 * trip.c, one card streaming with its engine in engine.c), and the schedule of
 * several cards streaming: every round's units cut between the cards, each
 * card's engine streaming its share.  The engines of cards 1..n-1 run on a host
 * thread each (an engine's thread blocks while its pipeline waits for a
 * buffer), card 0's on the caller's.
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

/* Several cards streaming, each its share of every round. */
typedef struct streams {
    hfft__cards base; /* its table: streams_ops */
    int n;
    hfft__gpu *g[HFFT_MAX_CARDS]; /* each card's engine */
    runner run[HFFT_MAX_CARDS];   /* [k] drives card k, k >= 1 */
    int nrounds;
} streams;

static streams *of(hfft__cards *c) { return (streams *)c; }
static const streams *of_c(const hfft__cards *c) { return (const streams *)c; }

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

static void streams_destroy(hfft__cards *base) {
    streams *c = of(base);
    for (int k = 0; k < c->n; k++) {
        runner_stop(&c->run[k]);
        hfft__gpu_destroy(c->g[k]);
    }
    free(c);
}

/* ---- several cards streaming: each its share of every round ---- */

static int streams_run(hfft__cards *base, int h, const void *src, void *dst, int drain) {
    (void)drain; /* several cards drain every round: the next reads what others wrote */
    streams *c = of(base);
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

static int streams_stage(hfft__cards *base, int on, int threads) {
    streams *c = of(base);
    int per = threads > c->n ? threads / c->n : threads;
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

static int streams_staged(const hfft__cards *base) { return hfft__gpu_staged(of_c(base)->g[0]); }

static int streams_used(const hfft__cards *base) { return of_c(base)->n; }

static void streams_set_take(hfft__cards *base, hfft__take_fn fn, void *ctx) {
    streams *c = of(base);
    for (int k = 0; k < c->n; k++)
        hfft__gpu_set_take(c->g[k], fn, ctx);
}

static void streams_take_link(hfft__cards *base, int64_t bytes[2]) {
    streams *c = of(base);
    bytes[0] = bytes[1] = 0;
    for (int k = 0; k < c->n; k++) {
        int64_t b[2];
        hfft__gpu_take_link(c->g[k], b);
        bytes[0] += b[0];
        bytes[1] += b[1];
    }
}

static void streams_times(const hfft__cards *base, double *secs) {
    const streams *c = of_c(base);
    for (int h = 0; h < c->nrounds; h++)
        secs[h] = 0.0;
}

static void streams_fill_info(const hfft__cards *base, hfft_info *info) {
    const streams *c = of_c(base);
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

static const hfft__cards_ops streams_ops = {
    .kind = 0,
    .destroy = streams_destroy,
    .run = streams_run,
    .stage = streams_stage,
    .staged = streams_staged,
    .used = streams_used,
    .set_take = streams_set_take,
    .take_link = streams_take_link,
    .times = streams_times,
    .fill_info = streams_fill_info,
};

/* ---- the choice, once ---- */

/* Card k of n's share [lo, hi) of u units. */
static void share(int64_t u, int k, int n, int64_t *lo, int64_t *hi) {
    *lo = u * k / n;
    *hi = u * (k + 1) / n;
}

/* One card streaming with its engine, or several each streaming its share of every
   round, cards 1..n-1 on threads of their own.  Where the cards stream every unit
   (no CPU share), each engine is told its card (req.card of req.cards), so that
   four-step, where it applies, cuts its own units; it then runs on every card with
   the same layout (d0 = fa fb, the pieces of a row: each card sizes its own from its
   budget) or on none, and each card is given every card's part (round B reads the
   rows each kept).  The plain schedule's residency likewise: where any card keeps
   columns, every card's round 2 reads them from it, so every card must run plain
   rounds.  mode 2: both may apply; 1: no four-step; 0: neither (each card's plain
   share of every round alone). */
static int make_streams(const hfft__card *cards, int n, const hfft__gpu_req *req, int mode,
                        hfft__cards **out) {
    if (n == 1) {
        hfft__gpu_req one = *req;
        one.share_four = 1; /* one card: a CPU share may follow its four-step layout */
        hfft__gpu *g;
        HFFT__TRY(hfft__gpu_create(cards[0].ops, cards[0].dev, &one, &g));
        *out = hfft__gpu_side(g);
        return 0;
    }
    streams *c = calloc(1, sizeof *c);
    if (!c)
        return hfft__fail(HFFT_ERR_HOST_MEMORY, "GPU engine: out of memory");
    c->base.ops = &streams_ops;
    c->nrounds = req->nrounds;
    int st = 0;
    int whole = mode > 0;
    for (int h = 0; h < req->nrounds; h++)
        whole &= req->lo[h] == 0 && req->units[h] == hfft__round_units(&req->rounds[h]);
    for (int k = 0; k < n && !st; k++) {
        hfft__gpu_req r = *req;
        r.card = whole ? k : 0;
        r.cards = whole ? n : 0;
        r.no_four = mode < 2;
        for (int h = 0; h < req->nrounds; h++) {
            int64_t lo, hi;
            share(req->units[h], k, n, &lo, &hi);
            r.lo[h] = req->lo[h] + lo;
            r.units[h] = hi - lo;
        }
        st = hfft__gpu_create(cards[k].ops, cards[k].dev, &r, &c->g[k]);
        if (st) {
            st = hfft__fail_context(st, "card %d of %d", k, n);
            break;
        }
        c->n = k + 1;
        if (k > 0)
            st = runner_start(&c->run[k], c->g[k]);
    }
    if (st) {
        streams_destroy(&c->base);
        return st;
    }
    hfft__four_part parts[HFFT_MAX_CARDS];
    int fours = 0;
    for (int k = 0; k < n && whole; k++)
        fours += hfft__gpu_four_part(c->g[k], &parts[k]) == 0;
    int alike = fours == n;
    for (int k = 1; k < n && alike; k++)
        alike = parts[k].fa == parts[0].fa && parts[k].nb == parts[0].nb;
    if (fours > 0 && (fours < n || !alike)) {
        /* some cards had no room for it, or their budgets gave them other layouts: none
           runs it */
        streams_destroy(&c->base);
        return make_streams(cards, n, req, 1, out);
    }
    for (int k = 0; k < n && fours == n; k++)
        hfft__gpu_four_parts(c->g[k], parts, n);
    hfft__res_part kept[HFFT_MAX_CARDS];
    int plain = 0, keeps = 0;
    for (int k = 0; k < n && whole && !fours; k++)
        if (hfft__gpu_res_part(c->g[k], &kept[k]) == 0) {
            plain++;
            keeps |= kept[k].cb > kept[k].c0;
        }
    if (keeps && plain < n) { /* a card that could not read the others' columns */
        streams_destroy(&c->base);
        return make_streams(cards, n, req, 0, out);
    }
    for (int k = 0; k < n && keeps; k++)
        hfft__gpu_res_parts(c->g[k], kept, n);
    *out = &c->base;
    return 0;
}

int hfft__cards_create(const hfft__card *cards, int n, const hfft__gpu_req *req,
                       hfft__cards **out) {
    *out = NULL;
    int automatic = req->schedule == 0 && req->slots == 0 && req->pass_bytes <= 0;
    /* One trip over the cards where the array fits them (1: it does not). */
    int st = automatic ? hfft__trip_create(cards, n, req, out) : 1;
    /* Where the cards cannot share one trip (a long line cut four-step) but the first
       holds it alone: two cards streaming move 2 S over two links, S over each, as one
       card's trip does over its own, and a long line's rounds then need a host array
       of S between them.  More cards stream, each moving less. */
    int cut = 0;
    for (int h = 0; h < req->nrounds; h++)
        cut |= req->rounds[h].twn != 0 || req->rounds[h].tout;
    if (st == 1 && cut && n == 2 && automatic) {
        st = hfft__trip_create(cards, 1, req, out);
        /* no room, or the card refused the trip: both cards stream, and report their
           own failures */
        if (st) {
            hfft__clear_error();
            st = 1;
        }
    }
    if (st == 1)
        st = make_streams(cards, n, req, 2, out);
    return st;
}
