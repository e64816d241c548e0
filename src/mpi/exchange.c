/*
 * exchange.c: the global transposes.  Each transfer between two ranks is
 * sent as MPI messages whose datatypes pick its rows straight out of the
 * sender's array and put them straight into place in the receiver's (no
 * packing by hand, 64-bit offsets in the datatypes), or, between ranks of one
 * node, copied through the node's shared scratch blocks on a few threads and
 * announced by an empty message.  Every receive of a transpose is posted
 * first; each pipeline group's sends go as soon as the group is transformed,
 * while the next group runs on a worker thread and this thread keeps MPI
 * progressing (MPI is called from the calling thread only).
 */
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "src/mpi/plan.h"

/* How long the driver sleeps between tests of requests that made no progress. */
#define POLL_NS 20000

static int64_t row_elems(const hfft__mpi_runs *r) {
    int64_t e = 0;
    for (int b = 0; b < r->nb; b++)
        e += r->len[b];
    return e;
}

/* Rows [r0, r0 + rows) of r on one side (spans sp) as one datatype. */
static int make_type(const hfft__mpi_plan *p, const hfft__mpi_runs *r, const hfft__mpi_span *sp,
                     int64_t r0, int64_t rows, MPI_Datatype *type) {
    MPI_Datatype parts[HFFT__MPI_MAX_RUNS];
    int ones[HFFT__MPI_MAX_RUNS];
    MPI_Aint disp[HFFT__MPI_MAX_RUNS];
    int rc = MPI_SUCCESS, made = 0;
    if (r->nb < 1 || r->nb > HFFT__MPI_MAX_RUNS)
        return hfft__mpi_fail(HFFT_ERR_INTERNAL, "a transfer of %d runs", r->nb);
    for (; made < r->nb; made++) {
        rc = MPI_Type_create_hvector((int)rows, (int)r->len[made],
                                     (MPI_Aint)(sp[made].stride * (int64_t)p->esize), p->cplx,
                                     &parts[made]);
        if (rc != MPI_SUCCESS)
            break;
        ones[made] = 1;
        disp[made] = (MPI_Aint)((sp[made].off + r0 * sp[made].stride) * (int64_t)p->esize);
    }
    if (rc == MPI_SUCCESS)
        rc = MPI_Type_create_struct(r->nb, ones, disp, parts, type);
    for (int b = 0; b < made; b++)
        MPI_Type_free(&parts[b]);
    if (rc == MPI_SUCCESS && (rc = MPI_Type_commit(type)) != MPI_SUCCESS)
        MPI_Type_free(type);
    return rc == MPI_SUCCESS ? 0 : hfft__mpi_fail_mpi(rc, "building a transpose's datatype");
}

/* The messages of one side: each transfer to another rank, not shared, in pieces of at most
   the largest message (both ends cut it the same way, so the pieces match in order). */
static int build_side(hfft__mpi_plan *p, hfft__mpi_side *s, int sending, int *requests) {
    int count = 0;
    *requests = 0;
    for (int i = 0; i < s->nx; i++) {
        hfft__mpi_xfer *x = &s->x[i];
        if (x->peer == p->me)
            continue;
        ++*requests;
        if (x->shared)
            continue;
        int64_t per_row = row_elems(&x->runs) * (int64_t)p->esize;
        int64_t chunk = p->tune.max_message / per_row;
        if (chunk < 1)
            chunk = 1;
        for (int b = 0; b < x->runs.nb; b++)
            if (x->runs.len[b] > INT_MAX)
                return hfft__mpi_fail(HFFT_ERR_UNSUPPORTED,
                                      "a row of %lld elements: MPI counts are ints",
                                      (long long)x->runs.len[b]);
        if (chunk > INT_MAX)
            chunk = INT_MAX;
        count += (int)((x->runs.rows + chunk - 1) / chunk);
        *requests += (int)((x->runs.rows + chunk - 1) / chunk) - 1;
    }
    s->m = calloc(count ? (size_t)count : 1, sizeof *s->m);
    if (!s->m)
        return hfft__mpi_fail(HFFT_ERR_HOST_MEMORY, "transpose messages: out of memory");
    for (int i = 0; i < s->nx; i++) {
        hfft__mpi_xfer *x = &s->x[i];
        x->m0 = s->nm;
        x->nm = 0;
        if (x->peer == p->me || x->shared)
            continue;
        int64_t per_row = row_elems(&x->runs) * (int64_t)p->esize;
        int64_t chunk = p->tune.max_message / per_row;
        if (chunk < 1)
            chunk = 1;
        if (chunk > INT_MAX)
            chunk = INT_MAX;
        for (int64_t r0 = 0; r0 < x->runs.rows; r0 += chunk) {
            int64_t rows = x->runs.rows - r0 < chunk ? x->runs.rows - r0 : chunk;
            hfft__mpi_msg *m = &s->m[s->nm];
            int st =
                make_type(p, &x->runs, sending ? x->runs.src : x->runs.dst, r0, rows, &m->type);
            if (st)
                return st;
            m->bytes = rows * per_row;
            s->nm++;
            x->nm++;
        }
    }
    return 0;
}

int hfft__mpi_phase_build(hfft__mpi_plan *p, hfft__mpi_phase *ph) {
    int out = 0, in = 0;
    int st = build_side(p, &ph->out, 1, &out);
    if (!st)
        st = build_side(p, &ph->in, 0, &in);
    if (!st && out + in > p->nreq)
        p->nreq = out + in;
    return st;
}

static void side_free(hfft__mpi_side *s) {
    for (int i = 0; i < s->nm; i++)
        MPI_Type_free(&s->m[i].type);
    for (int i = 0; i < s->nx; i++)
        free(s->x[i].runs.len); /* len, src and dst share one allocation */
    free(s->m);
    free(s->x);
    memset(s, 0, sizeof *s);
}

void hfft__mpi_phase_free(hfft__mpi_phase *ph) {
    side_free(&ph->out);
    side_free(&ph->in);
}

/* ---- an execute's driver ---- */

static void record(hfft__mpi_run *x, int status) {
    if (status && !x->status)
        x->status = status;
}

static void post(hfft__mpi_run *x, int rc, int act, const char *call) {
    if (rc != MPI_SUCCESS) {
        record(x, hfft__mpi_fail_mpi(rc, call));
        return;
    }
    x->p->act[x->nreq++] = act;
    x->pending++;
}

void hfft__mpi_post_recvs(hfft__mpi_run *x, hfft__mpi_phase *ph, void *dst) {
    hfft__mpi_plan *p = x->p;
    x->nreq = x->pending = 0;
    x->dst = dst;
    double t0 = hfft__mpi_now();
    for (int i = 0; i < ph->in.nx; i++) {
        const hfft__mpi_xfer *t = &ph->in.x[i];
        if (t->peer == p->me)
            continue; /* the sender side copies it */
        if (t->shared) {
            post(x, MPI_Irecv(NULL, 0, MPI_BYTE, t->peer, ph->tag + 1, p->comm, &p->req[x->nreq]),
                 ph->pull ? i : -1, "MPI_Irecv");
            continue;
        }
        for (int k = 0; k < t->nm; k++)
            post(x,
                 MPI_Irecv(dst, 1, ph->in.m[t->m0 + k].type, t->peer, ph->tag, p->comm,
                           &p->req[x->nreq]),
                 -1, "MPI_Irecv");
    }
    x->mpi += hfft__mpi_now() - t0;
}

void hfft__mpi_post_sends(hfft__mpi_run *x, hfft__mpi_phase *ph, int g, void *src) {
    hfft__mpi_plan *p = x->p;
    for (int i = 0; i < ph->out.nx; i++) {
        const hfft__mpi_xfer *t = &ph->out.x[i];
        if (t->group != g)
            continue;
        double t0 = hfft__mpi_now();
        if (t->peer == p->me) {
            if (!x->status)
                hfft__mpi_copy(x->dst, src, &t->runs, p->esize, p->info.threads);
            x->mpi += hfft__mpi_now() - t0;
            continue;
        }
        x->sent += t->runs.rows * row_elems(&t->runs) * (int64_t)p->esize;
        if (t->shared && !ph->pull && !x->status)
            hfft__mpi_copy(p->wpeer[t->peer], src, &t->runs, p->esize, p->info.threads);
        if (t->shared) {
            MPI_Win_sync(p->win);
            post(x, MPI_Isend(NULL, 0, MPI_BYTE, t->peer, ph->tag + 1, p->comm, &p->req[x->nreq]),
                 -1, "MPI_Isend");
        }
        for (int k = 0; k < t->nm; k++)
            post(x,
                 MPI_Isend(src, 1, ph->out.m[t->m0 + k].type, t->peer, ph->tag, p->comm,
                           &p->req[x->nreq]),
                 -1, "MPI_Isend");
        x->mpi += hfft__mpi_now() - t0;
    }
}

/* Tests the requests in flight once; pulls the shared transfers announced.  1 when some
   completed. */
static int test(hfft__mpi_run *x, hfft__mpi_phase *ph) {
    hfft__mpi_plan *p = x->p;
    int done = 0;
    int *idx = p->act + p->nreq; /* the second half of act: Testsome's indices */
    double t0 = hfft__mpi_now();
    int rc = MPI_Testsome(x->nreq, p->req, &done, idx, MPI_STATUSES_IGNORE);
    x->mpi += hfft__mpi_now() - t0;
    if (rc != MPI_SUCCESS) {
        record(x, hfft__mpi_fail_mpi(rc, "MPI_Testsome"));
        x->pending = 0; /* nothing more will complete; the agreement reports it */
        return 0;
    }
    if (done == MPI_UNDEFINED) {
        x->pending = 0;
        return 0;
    }
    for (int k = 0; k < done; k++) {
        x->pending--;
        int i = p->act[idx[k]];
        if (i < 0)
            continue;
        const hfft__mpi_xfer *t = &ph->in.x[i];
        double t1 = hfft__mpi_now();
        MPI_Win_sync(p->win);
        if (!x->status)
            hfft__mpi_copy(x->dst, p->wpeer[t->peer], &t->runs, p->esize, p->info.threads);
        x->mpi += hfft__mpi_now() - t1;
    }
    return done > 0;
}

typedef struct worker {
    hfft__mpi_run *x;
    hfft__mpi_work_fn fn;
    int group, status, threaded;
    double seconds;
    char message[512];
    pthread_t tid;
    _Atomic int done;
} worker;

static void *work(void *arg) {
    worker *w = arg;
    double t0 = hfft__mpi_now();
    w->status = w->fn(w->x, w->group);
    if (w->status)
        snprintf(w->message, sizeof w->message, "%s", hfft__mpi_message());
    w->seconds = hfft__mpi_now() - t0;
    atomic_store(&w->done, 1);
    return NULL;
}

/* fn(x, group) on a worker thread where there is something to do beside it (overlap), here
   otherwise; nothing after a failure. */
static void start(worker *w, hfft__mpi_run *x, hfft__mpi_work_fn fn, int group, int overlap) {
    *w = (worker){.x = x, .fn = fn, .group = group};
    if (!fn || x->status) {
        atomic_store(&w->done, 1);
        return;
    }
    /* the worker needs no MPI; without a thread it runs here, and MPI waits */
    w->threaded = overlap && pthread_create(&w->tid, NULL, work, w) == 0;
    if (!w->threaded)
        work(w);
}

/* Tests the requests in flight until w is done and, with all, every request completed. */
static void finish(worker *w, hfft__mpi_run *x, hfft__mpi_phase *ph, int all) {
    double idle = -1.0;
    for (;;) {
        int done = atomic_load(&w->done);
        if (done && idle < 0)
            idle = hfft__mpi_now();
        int progress = x->pending > 0 && test(x, ph);
        if (done && (!all || x->pending == 0))
            break;
        if (!progress) {
            struct timespec ts = {0, POLL_NS};
            nanosleep(&ts, NULL);
        }
    }
    x->exchange += hfft__mpi_now() - idle;
    if (w->threaded)
        pthread_join(w->tid, NULL);
    x->compute += w->seconds;
    if (w->status && !x->status)
        record(x, hfft__mpi_fail(w->status, "%s", w->message));
}

void hfft__mpi_drive(hfft__mpi_run *x, hfft__mpi_phase *ph, hfft__mpi_work_fn fn, int group,
                     int all) {
    worker w;
    start(&w, x, fn, group, x->pending > 0);
    finish(&w, x, ph, all);
}

void hfft__mpi_pipeline(hfft__mpi_run *x, hfft__mpi_phase *ph, hfft__mpi_work_fn fn, int groups,
                        void *src) {
    for (int g = 0; g < groups; g++) {
        worker w;
        start(&w, x, fn, g, x->pending > 0 || g > 0);
        if (g > 0) /* the previous group's sends and copies, beside this group's transform */
            hfft__mpi_post_sends(x, ph, g - 1, src);
        finish(&w, x, ph, 0);
    }
    double t0 = hfft__mpi_now(); /* the last group's copies have nothing beside them */
    if (groups > 0)
        hfft__mpi_post_sends(x, ph, groups - 1, src);
    x->exchange += hfft__mpi_now() - t0;
    worker none;
    start(&none, x, NULL, 0, 0);
    finish(&none, x, ph, 1);
}
