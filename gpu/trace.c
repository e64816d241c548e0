/*
 * trace.c: the tracing device (see trace.h).  Each copy, FFT and kernel goes
 * to the wrapped backend between two timed events recorded on its stream;
 * everything else passes straight through.  Events come from a pool reused
 * from one execute to the next; past TRACE_MAX operations an execute's later
 * ones are counted but not timed.  Records and waits of the plan's events are
 * followed too, across the plan's cards (a group under one lock, since several
 * cards' engines issue from threads of their own), so that each traced
 * operation knows what the device orders it after.
 */
#include "gpu/trace.h"

#include <pthread.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "src/core/status.h"

#define TRACE_MAX (1 << 16)

typedef struct trace_dep {
    int card, op;
} trace_dep;

typedef struct trace_rec {
    int stream, kind;
    int64_t bytes;
    const char *name;
    hfft__event e0, e1;
    int dep0, ndep; /* its direct predecessors: deps[dep0, dep0 + ndep) */
    int64_t seq;    /* when it was issued, counted over the group's cards */
} trace_rec;

/* What a recorded event stands for: the operations a wait for it waits for. */
typedef struct trace_mark {
    hfft__event e;
    int dep0, ndep;
} trace_mark;

/* A wait on a stream not yet followed by an operation there. */
typedef struct trace_pend {
    int stream;
    trace_dep d;
} trace_pend;

/* The cards of one plan, whose streams wait for each other's events. */
struct hfft__trace_group {
    pthread_mutex_t mu;
    hfft__trace *t[HFFT_MAX_CARDS];
    int n, refs;
    int64_t issued; /* operations issued on all its cards so far */
};

struct hfft__trace {
    const hfft__dev_ops *in;
    hfft__dev *d;
    int card; /* hfft_trace_op.device */
    hfft__stream *streams; /* in creation order; NULL where destroyed */
    int nstreams, scap;
    hfft__event t0;
    int begun;
    hfft__event *pool; /* timed events, the first `used` taken this execute */
    int npool, used;
    trace_rec *rec;
    int nrec, cap, count;
    /* the device's orderings this execute (hfft__trace_deps) */
    hfft__trace_group *group;
    int64_t issued; /* not in a group: operations issued on this card so far */
    int *last; /* per stream: its last traced operation, -1 */
    int nlast;
    trace_dep *deps;
    int ndeps, dcap;
    trace_mark *marks;
    int nmarks, mcap;
    trace_pend *pend;
    int npend, pcap;
};

#define T(d) ((hfft__trace *)(void *)(d))

int hfft__trace_create(const hfft__dev_ops *ops, hfft__dev *dev, int card, hfft__trace **out) {
    hfft__trace *t = calloc(1, sizeof *t);
    if (!t)
        return hfft__fail(HFFT_ERR_HOST_MEMORY, "trace: out of memory");
    t->in = ops;
    t->d = dev;
    t->card = card;
    int st = ops->event_create_timed(dev, &t->t0);
    if (st) {
        free(t);
        return st;
    }
    *out = t;
    return 0;
}

static void group_drop(hfft__trace *t) {
    hfft__trace_group *g = t->group;
    if (!g)
        return;
    pthread_mutex_lock(&g->mu);
    for (int k = 0; k < g->n; k++)
        if (g->t[k] == t)
            g->t[k] = NULL;
    int left = --g->refs;
    pthread_mutex_unlock(&g->mu);
    t->group = NULL;
    if (left == 0) {
        pthread_mutex_destroy(&g->mu);
        free(g);
    }
}

int hfft__trace_group_make(hfft__trace *const *t, int n) {
    hfft__trace_group *g = calloc(1, sizeof *g);
    if (!g)
        return hfft__fail(HFFT_ERR_HOST_MEMORY, "trace: out of memory");
    pthread_mutex_init(&g->mu, NULL);
    for (int k = 0; k < n; k++) {
        group_drop(t[k]);
        g->t[k] = t[k];
        t[k]->group = g;
    }
    g->n = g->refs = n;
    return 0;
}

void hfft__trace_destroy(hfft__trace *t) {
    if (!t)
        return;
    group_drop(t);
    free(t->last);
    free(t->deps);
    free(t->marks);
    free(t->pend);
    for (int i = 0; i < t->npool; i++)
        t->in->event_destroy(t->d, t->pool[i]);
    t->in->event_destroy(t->d, t->t0);
    free(t->pool);
    free(t->rec);
    free(t->streams);
    free(t);
}

hfft__dev *hfft__trace_dev(hfft__trace *t) { return (hfft__dev *)(void *)t; }

static void lock(hfft__trace *t) {
    if (t->group)
        pthread_mutex_lock(&t->group->mu);
}

static void unlock(hfft__trace *t) {
    if (t->group)
        pthread_mutex_unlock(&t->group->mu);
}

/* Room for one more element in the array a of n (capacity cap), or a return with
   the failure (where the group's lock is held, the caller that took it releases it). */
#define GROW(a, n, cap)                                                                 \
    do {                                                                                \
        if ((n) == (cap)) {                                                             \
            int c_ = (cap) ? 2 * (cap) : 64;                                            \
            void *q_ = realloc((a), (size_t)c_ * sizeof *(a));                          \
            if (!q_)                                                                    \
                return hfft__fail(HFFT_ERR_HOST_MEMORY, "trace: out of memory");        \
            (a) = q_;                                                                   \
            (cap) = c_;                                                                 \
        }                                                                               \
    } while (0)

static int add_dep(hfft__trace *t, trace_dep d) {
    GROW(t->deps, t->ndeps, t->dcap);
    t->deps[t->ndeps++] = d;
    return 0;
}

/* What an operation issued now on stream index s comes after: the last one there
   and the waits since, appended to deps from *dep0 (*ndep of them); with take, the
   waits are used up.  Called with the group's lock held. */
static int ordering(hfft__trace *t, int s, int take, int *dep0, int *ndep) {
    *dep0 = t->ndeps;
    if (s >= 0 && s < t->nlast && t->last[s] >= 0)
        HFFT__TRY(add_dep(t, (trace_dep){t->card, t->last[s]}));
    for (int i = 0; i < t->npend; i++)
        if (t->pend[i].stream == s)
            HFFT__TRY(add_dep(t, t->pend[i].d));
    *ndep = t->ndeps - *dep0;
    int keep = 0;
    for (int i = 0; i < t->npend; i++)
        if (t->pend[i].stream != s || !take)
            t->pend[keep++] = t->pend[i];
    t->npend = keep;
    return 0;
}

/* The stream index of operation d (a card of t's group), or -1 where unknown. */
static int dep_stream(const hfft__trace *t, trace_dep d) {
    const hfft__trace *m = d.card == t->card ? t
                           : t->group && d.card >= 0 && d.card < t->group->n ? t->group->t[d.card]
                                                                            : NULL;
    return m && d.op >= 0 && d.op < m->nrec ? m->rec[d.op].stream : -1;
}

/* Stream index s waits for operation d from now on: one wait per stream of each card
   is kept, the latest, which its stream runs after the earlier ones (a stream that
   only waits and records, as a staging stream does, would otherwise gather every
   wait of the execute). */
static int add_pend(hfft__trace *t, int s, trace_dep d) {
    int ds = dep_stream(t, d);
    for (int i = 0; i < t->npend && ds >= 0; i++) {
        trace_pend *p = &t->pend[i];
        if (p->stream != s || p->d.card != d.card || dep_stream(t, p->d) != ds)
            continue;
        if (p->d.op < d.op)
            p->d.op = d.op;
        return 0;
    }
    GROW(t->pend, t->npend, t->pcap);
    t->pend[t->npend++] = (trace_pend){s, d};
    return 0;
}

static int stream_index(const hfft__trace *t, hfft__stream s) {
    for (int i = 0; i < t->nstreams; i++)
        if (t->streams[i] == s)
            return i;
    return -1;
}

int hfft__trace_begin(hfft__trace *t) {
    lock(t);
    t->nrec = t->count = t->used = 0;
    t->ndeps = t->nmarks = t->npend = 0;
    for (int i = 0; i < t->nlast; i++)
        t->last[i] = -1;
    unlock(t);
    t->begun = 0;
    for (int i = 0; i < t->nstreams; i++)
        if (t->streams[i]) {
            /* the plan's streams are idle between executes: this one's record runs at once,
               before anything issued after it on any stream */
            HFFT__TRY(t->in->record(t->d, t->t0, t->streams[i]));
            t->begun = 1;
            break;
        }
    return 0;
}

static int take_event(hfft__trace *t, hfft__event *e) {
    if (t->used == t->npool) {
        if (t->npool % 64 == 0) {
            hfft__event *p = realloc(t->pool, (size_t)(t->npool + 64) * sizeof *p);
            if (!p)
                return hfft__fail(HFFT_ERR_HOST_MEMORY, "trace: out of memory");
            t->pool = p;
        }
        HFFT__TRY(t->in->event_create_timed(t->d, &t->pool[t->npool]));
        t->npool++;
    }
    *e = t->pool[t->used++];
    return 0;
}

/* The event before an operation on s: *e0 NULL where this one is not timed. */
static int before(hfft__trace *t, hfft__stream s, hfft__event *e0) {
    *e0 = NULL;
    t->count++;
    if (!t->begun || t->nrec >= TRACE_MAX)
        return 0;
    HFFT__TRY(take_event(t, e0));
    return t->in->record(t->d, *e0, s);
}

/* Operation t->nrec, issued on stream index s between events e0 and e1: its record,
   what it comes after, and it the last on s.  Called with the group's lock held. */
static int record_op(hfft__trace *t, int s, int kind, int64_t bytes, const char *name,
                     hfft__event e0, hfft__event e1) {
    GROW(t->rec, t->nrec, t->cap);
    int dep0, ndep;
    HFFT__TRY(ordering(t, s, 1, &dep0, &ndep));
    if (s >= t->nlast) {
        int *l = realloc(t->last, (size_t)(s + 1) * sizeof *l);
        if (!l)
            return hfft__fail(HFFT_ERR_HOST_MEMORY, "trace: out of memory");
        for (int i = t->nlast; i <= s; i++)
            l[i] = -1;
        t->last = l;
        t->nlast = s + 1;
    }
    if (s >= 0)
        t->last[s] = t->nrec;
    int64_t seq = t->group ? t->group->issued++ : t->issued++;
    t->rec[t->nrec++] = (trace_rec){s, kind, bytes, name, e0, e1, dep0, ndep, seq};
    return 0;
}

static int after(hfft__trace *t, hfft__stream s, hfft__event e0, int kind, const char *name,
                 int64_t bytes) {
    if (!e0)
        return 0;
    hfft__event e1 = NULL;
    HFFT__TRY(take_event(t, &e1));
    HFFT__TRY(t->in->record(t->d, e1, s));
    /* under the group's lock: other cards' waits read this card's records */
    lock(t);
    int st = record_op(t, stream_index(t, s), kind, bytes, name, e0, e1);
    unlock(t);
    return st;
}

int hfft__trace_deps(const hfft__trace *t, int i, int *cards, int *ops, int max) {
    if (i < 0 || i >= t->nrec)
        return -1;
    const trace_rec *r = &t->rec[i];
    for (int k = 0; k < r->ndep && k < max; k++) {
        cards[k] = t->deps[r->dep0 + k].card;
        ops[k] = t->deps[r->dep0 + k].op;
    }
    return r->ndep;
}

int64_t hfft__trace_issued(const hfft__trace *t, int i) {
    return i < 0 || i >= t->nrec ? -1 : t->rec[i].seq;
}

/* Event e recorded on stream index s now: it stands for what an operation issued
   there would come after.  Called with the group's lock held. */
static int mark_locked(hfft__trace *t, hfft__event e, int s) {
    int dep0, ndep;
    HFFT__TRY(ordering(t, s, 0, &dep0, &ndep));
    int i = 0;
    while (i < t->nmarks && t->marks[i].e != e)
        i++;
    if (i == t->nmarks) {
        GROW(t->marks, t->nmarks, t->mcap);
        t->nmarks++;
    }
    t->marks[i] = (trace_mark){e, dep0, ndep};
    return 0;
}

/* Stream index s waits for event e: for what e stands for on whichever card of the
   group recorded it.  Called with the group's lock held. */
static int waits_locked(hfft__trace *t, int s, hfft__event e) {
    hfft__trace *const *all = t->group ? t->group->t : &t;
    int n = t->group ? t->group->n : 1;
    for (int k = 0; k < n; k++) {
        const hfft__trace *m = all[k];
        for (int i = 0; m && i < m->nmarks; i++) {
            if (m->marks[i].e != e)
                continue;
            for (int j = 0; j < m->marks[i].ndep; j++)
                HFFT__TRY(add_pend(t, s, m->deps[m->marks[i].dep0 + j]));
        }
    }
    return 0;
}

/* Orderings are kept for the operations that are timed: none before an execute's
   first, none past TRACE_MAX. */
static int mark(hfft__trace *t, hfft__event e, hfft__stream s) {
    if (!t->begun || t->nrec >= TRACE_MAX)
        return 0;
    lock(t);
    int st = mark_locked(t, e, stream_index(t, s));
    unlock(t);
    return st;
}

static int waits(hfft__trace *t, hfft__stream s, hfft__event e) {
    if (!t->begun || t->nrec >= TRACE_MAX)
        return 0;
    lock(t);
    int st = waits_locked(t, stream_index(t, s), e);
    unlock(t);
    return st;
}

int hfft__trace_read(hfft__trace *t, hfft_trace_op *ops, int max) {
    for (int i = 0; i < t->nrec && i < max; i++) {
        const trace_rec *r = &t->rec[i];
        hfft_trace_op *o = &ops[i];
        memset(o, 0, sizeof *o);
        o->device = t->card;
        o->stream = r->stream;
        o->kind = r->kind;
        o->bytes = r->bytes;
        snprintf(o->name, sizeof o->name, "%s", r->name);
        HFFT__TRY(t->in->event_elapsed(t->d, t->t0, r->e0, &o->start));
        HFFT__TRY(t->in->event_elapsed(t->d, t->t0, r->e1, &o->end));
    }
    return t->count;
}

/* ---- operations that are timed ---- */

#define TIMED(s, kind, name, bytes, call)                   \
    do {                                                    \
        hfft__event e0_;                                    \
        HFFT__TRY(before(T(d), (s), &e0_));                 \
        HFFT__TRY(call);                                    \
        return after(T(d), (s), e0_, (kind), (name), (bytes)); \
    } while (0)

static int tr_h2d(hfft__dev *d, hfft__stream s, void *dst, size_t dpitch, const void *src,
                  size_t spitch, size_t width, size_t height) {
    TIMED(s, HFFT_TRACE_H2D, "h2d", (int64_t)(width * height),
          T(d)->in->h2d(T(d)->d, s, dst, dpitch, src, spitch, width, height));
}
static int tr_d2h(hfft__dev *d, hfft__stream s, void *dst, size_t dpitch, const void *src,
                  size_t spitch, size_t width, size_t height) {
    TIMED(s, HFFT_TRACE_D2H, "d2h", (int64_t)(width * height),
          T(d)->in->d2h(T(d)->d, s, dst, dpitch, src, spitch, width, height));
}
static int tr_d2d(hfft__dev *d, hfft__stream s, void *dst, size_t dpitch, const void *src,
                  size_t spitch, size_t width, size_t height) {
    TIMED(s, HFFT_TRACE_D2D, "d2d", (int64_t)(width * height),
          T(d)->in->d2d(T(d)->d, s, dst, dpitch, src, spitch, width, height));
}
static int tr_peer(hfft__dev *d, hfft__stream s, hfft__dev *to, void *dst, size_t dpitch,
                   const void *src, size_t spitch, size_t width, size_t height) {
    TIMED(s, HFFT_TRACE_D2D, "peer", (int64_t)(width * height),
          T(d)->in->peer(T(d)->d, s, T(to)->d, dst, dpitch, src, spitch, width, height));
}
static int tr_fft_exec(hfft__dev *d, hfft__fftplan plan, hfft__stream s, void *data, void *work) {
    TIMED(s, HFFT_TRACE_COMPUTE, "fft", 0, T(d)->in->fft_exec(T(d)->d, plan, s, data, work));
}
static int tr_radix2(hfft__dev *d, int prec, hfft__stream s, void *a, void *b, int64_t rows,
                     int64_t width, int64_t N, int64_t k0, int sign) {
    TIMED(s, HFFT_TRACE_COMPUTE, "radix2", 0,
          T(d)->in->radix2(T(d)->d, prec, s, a, b, rows, width, N, k0, sign));
}
static int tr_transpose(hfft__dev *d, int prec, hfft__stream s, void *dst, int64_t dpitch,
                        const void *src, int64_t spitch, int64_t rows, int64_t cols) {
    TIMED(s, HFFT_TRACE_COMPUTE, "transpose", 0,
          T(d)->in->transpose(T(d)->d, prec, s, dst, dpitch, src, spitch, rows, cols));
}
static int tr_transposes(hfft__dev *d, int prec, hfft__stream s, void *dst, const void *src,
                         const hfft__transposes *t) {
    TIMED(s, HFFT_TRACE_COMPUTE, "transpose", 0, T(d)->in->transposes(T(d)->d, prec, s, dst, src, t));
}
static int tr_real_pairs(hfft__dev *d, int prec, hfft__stream s, void *data, int64_t M,
                         int64_t dist, int64_t batch, int forward) {
    TIMED(s, HFFT_TRACE_COMPUTE, "real pairs", 0,
          T(d)->in->real_pairs(T(d)->d, prec, s, data, M, dist, batch, forward));
}
static int tr_chirp(hfft__dev *d, int prec, hfft__stream s, void *lines, void *buf,
                    const void *table, const hfft__chirps *c) {
    TIMED(s, HFFT_TRACE_COMPUTE, "chirp", 0,
          T(d)->in->chirp(T(d)->d, prec, s, lines, buf, table, c));
}
static int tr_twiddle(hfft__dev *d, int prec, hfft__stream s, void *data, int64_t rows,
                      int64_t cols, int64_t pitch, int64_t n, int64_t r0, int64_t period,
                      int64_t c0, int sign) {
    TIMED(s, HFFT_TRACE_COMPUTE, "twiddle", 0,
          T(d)->in->twiddle(T(d)->d, prec, s, data, rows, cols, pitch, n, r0, period, c0, sign));
}
static int tr_r2r(hfft__dev *d, int prec, hfft__stream s, void *lines, void *buf,
                  const hfft__r2r_step *a) {
    TIMED(s, HFFT_TRACE_COMPUTE, "r2r", 0, T(d)->in->r2r(T(d)->d, prec, s, lines, buf, a));
}

static int tr_spift(hfft__dev *d, int prec, hfft__stream s, void *dst, const void *src,
                    const hfft__spift *a) {
    TIMED(s, HFFT_TRACE_COMPUTE, "spift", 0, T(d)->in->spift(T(d)->d, prec, s, dst, src, a));
}
static int tr_radixr(hfft__dev *d, int prec, hfft__stream s, void *const *blk, int r,
                     int64_t rows, int64_t width, int64_t L, int64_t k0, int sign) {
    TIMED(s, HFFT_TRACE_COMPUTE, "radixr", 0,
          T(d)->in->radixr(T(d)->d, prec, s, blk, r, rows, width, L, k0, sign));
}

/* ---- streams: numbered in the order created ---- */

static int tr_stream_create(hfft__dev *d, hfft__stream *s) {
    hfft__trace *t = T(d);
    GROW(t->streams, t->nstreams, t->scap);
    HFFT__TRY(t->in->stream_create(t->d, s));
    t->streams[t->nstreams++] = *s;
    return 0;
}
static void tr_stream_destroy(hfft__dev *d, hfft__stream s) {
    hfft__trace *t = T(d);
    int i = stream_index(t, s), live = 0;
    if (i >= 0)
        t->streams[i] = NULL;
    for (int k = 0; k < t->nstreams; k++)
        live |= t->streams[k] != NULL;
    if (!live) /* an engine rebuilt numbers its streams from 0 again */
        t->nstreams = 0;
    t->in->stream_destroy(t->d, s);
}

/* ---- the rest passes through ---- */

static int tr_ordinal(hfft__dev *d) { return T(d)->in->ordinal(T(d)->d); }
static int64_t tr_budget(hfft__dev *d) { return T(d)->in->budget(T(d)->d); }
static int64_t tr_used(hfft__dev *d) { return T(d)->in->used(T(d)->d); }
static int64_t tr_reserve(hfft__dev *d) { return T(d)->in->reserve(T(d)->d); }
static const char *tr_describe(hfft__dev *d) { return T(d)->in->describe(T(d)->d); }
static int64_t tr_memory(hfft__dev *d) { return T(d)->in->memory(T(d)->d); }
static void tr_signature(hfft__dev *d, char *buf, size_t n) {
    T(d)->in->signature(T(d)->d, buf, n);
}
static int tr_alloc(hfft__dev *d, void **p, size_t bytes) {
    return T(d)->in->alloc(T(d)->d, p, bytes);
}
static void tr_free(hfft__dev *d, void *p) { T(d)->in->free(T(d)->d, p); }
static int tr_event_create(hfft__dev *d, hfft__event *e) {
    return T(d)->in->event_create(T(d)->d, e);
}
static int tr_event_create_timed(hfft__dev *d, hfft__event *e) {
    return T(d)->in->event_create_timed(T(d)->d, e);
}
static void tr_event_destroy(hfft__dev *d, hfft__event e) {
    /* its mark goes with it: a new event may take the same handle */
    hfft__trace *t = T(d);
    lock(t);
    int keep = 0;
    for (int i = 0; i < t->nmarks; i++)
        if (t->marks[i].e != e)
            t->marks[keep++] = t->marks[i];
    t->nmarks = keep;
    unlock(t);
    t->in->event_destroy(t->d, e);
}
static int tr_event_elapsed(hfft__dev *d, hfft__event a, hfft__event b, double *secs) {
    return T(d)->in->event_elapsed(T(d)->d, a, b, secs);
}
static int tr_record(hfft__dev *d, hfft__event e, hfft__stream s) {
    HFFT__TRY(mark(T(d), e, s));
    return T(d)->in->record(T(d)->d, e, s);
}
static int tr_wait(hfft__dev *d, hfft__stream s, hfft__event e) {
    HFFT__TRY(waits(T(d), s, e));
    return T(d)->in->wait(T(d)->d, s, e);
}
static int tr_sync(hfft__dev *d, hfft__stream s) { return T(d)->in->sync(T(d)->d, s); }
static int tr_event_sync(hfft__dev *d, hfft__event e) { return T(d)->in->event_sync(T(d)->d, e); }
static int tr_host_fn(hfft__dev *d, hfft__stream s, void (*fn)(void *), void *arg) {
    return T(d)->in->host_fn(T(d)->d, s, fn, arg);
}
static int tr_activate(hfft__dev *d) { return T(d)->in->activate(T(d)->d); }
static int tr_fft_plan(hfft__dev *d, int prec, int kind, int rank, const int64_t *n,
                       int64_t stride, int64_t dist, int64_t batch, int sign, hfft__fftplan *plan,
                       size_t *work_bytes) {
    return T(d)->in->fft_plan(T(d)->d, prec, kind, rank, n, stride, dist, batch, sign, plan,
                              work_bytes);
}
static void tr_fft_destroy(hfft__dev *d, hfft__fftplan plan) {
    T(d)->in->fft_destroy(T(d)->d, plan);
}
static int tr_host_alloc(hfft__dev *d, void **p, size_t bytes) {
    return T(d)->in->host_alloc(T(d)->d, p, bytes);
}
static void tr_host_free(hfft__dev *d, void *p) { T(d)->in->host_free(T(d)->d, p); }
static int tr_host_register(hfft__dev *d, void *p, size_t bytes) {
    return T(d)->in->host_register(T(d)->d, p, bytes);
}
static void tr_host_unregister(hfft__dev *d, void *p) { T(d)->in->host_unregister(T(d)->d, p); }
static int tr_host_is_pinned(hfft__dev *d, const void *p) {
    return T(d)->in->host_is_pinned(T(d)->d, p);
}

const hfft__dev_ops hfft__trace_ops = {
    .name = "trace",
    .ordinal = tr_ordinal,
    .peer = tr_peer,
    .budget = tr_budget,
    .used = tr_used,
    .reserve = tr_reserve,
    .describe = tr_describe,
    .memory = tr_memory,
    .signature = tr_signature,
    .alloc = tr_alloc,
    .free = tr_free,
    .stream_create = tr_stream_create,
    .stream_destroy = tr_stream_destroy,
    .event_create = tr_event_create,
    .event_destroy = tr_event_destroy,
    .record = tr_record,
    .wait = tr_wait,
    .sync = tr_sync,
    .event_sync = tr_event_sync,
    .event_create_timed = tr_event_create_timed,
    .event_elapsed = tr_event_elapsed,
    .host_fn = tr_host_fn,
    .activate = tr_activate,
    .h2d = tr_h2d,
    .d2h = tr_d2h,
    .d2d = tr_d2d,
    .fft_plan = tr_fft_plan,
    .fft_exec = tr_fft_exec,
    .fft_destroy = tr_fft_destroy,
    .radix2 = tr_radix2,
    .radixr = tr_radixr,
    .transpose = tr_transpose,
    .transposes = tr_transposes,
    .real_pairs = tr_real_pairs,
    .chirp = tr_chirp,
    .twiddle = tr_twiddle,
    .spift = tr_spift,
    .r2r = tr_r2r,
    .host_alloc = tr_host_alloc,
    .host_free = tr_host_free,
    .host_register = tr_host_register,
    .host_unregister = tr_host_unregister,
    .host_is_pinned = tr_host_is_pinned,
};
