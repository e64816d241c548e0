/*
 * balancer.c: chooses where each round's transforms run.  In order: the
 * caller's explicit shares and placement flags; tuned wisdom for this exact
 * problem on this configuration; else the cost model fed with the rates tuned
 * on the nearest problem of the same kind; else a probe at plan time under
 * HFFT_MEASURE (plan.c runs it, hfft__balance_fit reads it); otherwise
 * GPU-only, since without a measurement of the CPU the model cannot promise a
 * gain.  A hybrid is chosen only where it is predicted faster by more than 3%.
 */
#include "balancer/balancer.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "balancer/wisdom.h"
#include "cpu/cpu.h"
#include "src/core/status.h"

#define HYBRID_MARGIN 0.03

/* The problem, its settings and device, as the wisdom look-up needs them. */
typedef struct ask {
    const hfft__problem *pb;
    const hfft__settings *set;
    const hfft__dev_ops *ops;
    hfft__dev *const *cards;
    int ncard;
} ask;

/* A single transform, or a batch of them one after the other in dense arrays (each
   transform row-major, real rows as FFTW's basic interface lays them out, the next
   transform right after it on both sides): what wisdom holds. */
static int dense_batch(const hfft__problem *pb) {
    if (pb->split_in || pb->split_out || pb->rank < 1)
        return 0;
    /* strides, row-major from the last dimension: in complex elements (cs) and in
       reals of the real side (rs: rows of n reals, 2 (n/2 + 1) in place) */
    int64_t last = pb->n[pb->rank - 1], cs = 1, rs = 1;
    for (int k = pb->rank - 1; k >= 0; k--) {
        int64_t is = pb->kind == HFFT__R2C ? rs : cs, os = pb->kind == HFFT__C2R ? rs : cs;
        if (pb->dims[k].is != is || pb->dims[k].os != os)
            return 0;
        int last_dim = k == pb->rank - 1 && pb->kind != HFFT__C2C;
        cs *= last_dim ? last / 2 + 1 : pb->n[k];
        rs *= last_dim ? (pb->inplace ? 2 * (last / 2 + 1) : last) : pb->n[k];
    }
    if (pb->howmany == 1)
        return 1;
    int64_t in = pb->kind == HFFT__R2C ? rs : cs, out = pb->kind == HFFT__C2R ? rs : cs;
    return pb->hrank == 1 && pb->hdims[0].is == in && pb->hdims[0].os == out;
}

static int read_wisdom(const ask *p, hfft__choice *c) {
    char path[1024];
    const char *w = p->set->wisdom;
    /* Wisdom holds transforms of dense arrays, single or batched. */
    if (strcmp(w, "none") == 0 || !dense_batch(p->pb))
        return 0;
    if (!*w) {
        if (hfft__wisdom_default_path(path, sizeof path) != 0)
            return 0;
        w = path;
    }
    hfft__wisdom *wd = malloc(sizeof *wd);
    if (!wd)
        return hfft__fail(HFFT_ERR_HOST_MEMORY, "wisdom: out of memory");
    int st = hfft__wisdom_read(w, wd);
    if (st == 1 || (st && !p->set->wisdom[0])) {
        /* No file; or the default file is unreadable: planning goes on without it. */
        free(wd);
        hfft__clear_error();
        return 0;
    }
    if (st) {
        free(wd);
        return st;
    }
    char here[HFFT__SIGNATURE_MAX], what[160];
    int threads = p->set->threads > 0 ? p->set->threads : hfft__cores();
    hfft__signature(p->ops, p->cards, p->ncard, threads, here, sizeof here);
    if (hfft__signature_diff(wd->signature, here, what, sizeof what)) {
        c->wisdom = -1;
        snprintf(c->note, sizeof c->note, "wisdom ignored (%.140s)", what);
        free(wd);
        return 0;
    }
    if (wd->have_link) {
        c->link = wd->link;
        c->have_link = 1;
    }
    c->host_bw = wd->host_bw;
    const hfft__wisdom_problem *q =
        hfft__wisdom_find(wd, p->pb->kind, p->pb->prec, p->pb->rank, p->pb->n, p->pb->howmany,
                          p->pb->inplace, p->set->budget);
    if (q) {
        c->wisdom = 1;
        for (int h = 0; h < q->nratio; h++) {
            if (!c->fixed[h])
                c->ratio[h] = q->ratio[h];
            c->predicted[h] = q->predicted[h];
        }
        c->slots = q->slots;
        c->pass_bytes = q->pass_bytes;
        c->schedule = q->schedule;
    } else if ((q = hfft__wisdom_nearest(wd, p->pb->kind, p->pb->prec, p->pb->rank, p->pb->n,
                                         p->pb->howmany, p->set->budget))) {
        /* Not tuned for this size: the rates tuned on the nearest problem of the
           same kind, put through the model for this one. */
        c->wisdom = 2;
        double bytes = (double)p->pb->total * (double)p->pb->esize;
        for (int h = 0; h < q->nratio; h++) {
            hfft__round_model m;
            memset(&m, 0, sizeof m);
            m.bytes = bytes;
            m.gpu_rate = q->gpu_rate[h];
            m.cpu_rate = q->cpu_rate[h];
            m.gpu_slow = q->gpu_slow[h];
            m.cpu_slow = q->cpu_slow[h];
            m.host_bw = c->host_bw;
            m.cards = c->cards;
            if (m.gpu_rate <= 0)
                continue;
            double t;
            double f = hfft__model_best_share(&c->link, &m, HYBRID_MARGIN, &t);
            if (!c->fixed[h])
                c->ratio[h] = f;
            c->predicted[h] = hfft__model_round_time(&c->link, &m, c->ratio[h]);
        }
    }
    free(wd);
    return 0;
}

int hfft__balance(const hfft__problem *pb, const hfft__settings *set, const hfft__dev_ops *ops,
                  hfft__dev *const *cards, int ncard, unsigned flags, hfft__choice *c) {
    const ask a = {pb, set, ops, cards, ncard}, *p = &a;
    memset(c, 0, sizeof *c);
    c->cards = ncard;
    c->slots = p->set->slots;
    c->pass_bytes = p->set->pass_bytes;
    c->schedule = (flags & HFFT_SCHEDULE_RADIX2) ? 2 : (flags & HFFT_SCHEDULE_PLAIN) ? 1 : 0;
    if (flags & HFFT_CPU_ONLY)
        return 0;
    int all_fixed = 1;
    for (int h = 0; h < HFFT__MAX_ROUNDS; h++) {
        if (flags & HFFT_GPU_ONLY) {
            c->ratio[h] = 1.0;
            c->fixed[h] = 1;
        } else if (p->set->ratio[h] > 0) {
            c->ratio[h] = p->set->ratio[h];
            c->fixed[h] = 1;
        } else {
            c->ratio[h] = (flags & HFFT_HYBRID) ? HFFT__PROBE_SHARE : 1.0;
            all_fixed = 0;
        }
    }
    int st = read_wisdom(p, c);
    if (st)
        return st;
    int explicit_schedule = (flags & (HFFT_SCHEDULE_PLAIN | HFFT_SCHEDULE_RADIX2)) != 0;
    if (explicit_schedule)
        c->schedule = (flags & HFFT_SCHEDULE_RADIX2) ? 2 : 1;
    if (p->set->slots)
        c->slots = p->set->slots;
    if (p->set->pass_bytes)
        c->pass_bytes = p->set->pass_bytes;
    c->measure = !all_fixed && c->wisdom <= 0 && (flags & HFFT_MEASURE);
    return 0;
}

double hfft__balance_fit(const hfft__choice *c, double bytes, double t1, double f, double tg,
                         double tc, hfft__round_model *m, double *predicted) {
    memset(m, 0, sizeof *m);
    m->bytes = bytes;
    m->host_bw = c->host_bw;
    m->cards = c->cards;
    hfft__model_fit(m, t1, 0.0, f, tg, tc);
    hfft__link none;
    memset(&none, 0, sizeof none);
    const hfft__link *l = c->have_link ? &c->link : &none;
    return hfft__model_best_share(l, m, HYBRID_MARGIN, predicted);
}
