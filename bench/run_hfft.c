/*
 * run_hfft.c: times hfft in one placement on the benchmark's arrays: plan,
 * one warm-up and the timed runs, what the plan reports, its link figures,
 * and the error from a fresh out-of-place run on a poisoned output.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench.h"
#include "ref.h"
#include "timeline.h"

/* howmany dense transforms one after the other, through the advanced interface. */
static void *h_plan(const problem *p, void *in, void *out, unsigned flags, const hfft_options *o) {
    int64_t ol = p->kind == PK_R2C ? p->n[p->rank - 1] / 2 + 1 : p->n[p->rank - 1];
    int64_t idist = p->total, odist = p->total / p->n[p->rank - 1] * ol;
    hfft_r2r_kind k[3] = {p->r2r, p->r2r, p->r2r};
    if (p->kind == PK_R2R)
        return p->prec == 4 ? (void *)hfftf_plan_many_r2r64(p->rank, p->n, p->howmany, in, NULL, 1,
                                                            idist, out, NULL, 1, odist, k, flags, o)
                            : (void *)hfft_plan_many_r2r64(p->rank, p->n, p->howmany, in, NULL, 1,
                                                           idist, out, NULL, 1, odist, k, flags, o);
    if (p->kind == PK_R2C)
        return p->prec == 4
                   ? (void *)hfftf_plan_many_dft_r2c64(p->rank, p->n, p->howmany, in, NULL, 1,
                                                       idist, out, NULL, 1, odist, flags, o)
                   : (void *)hfft_plan_many_dft_r2c64(p->rank, p->n, p->howmany, in, NULL, 1,
                                                      idist, out, NULL, 1, odist, flags, o);
    return p->prec == 4 ? (void *)hfftf_plan_many_dft64(p->rank, p->n, p->howmany, in, NULL, 1,
                                                        idist, out, NULL, 1, odist, HFFT_FORWARD,
                                                        flags, o)
                        : (void *)hfft_plan_many_dft64(p->rank, p->n, p->howmany, in, NULL, 1,
                                                       idist, out, NULL, 1, odist, HFFT_FORWARD,
                                                       flags, o);
}
static int h_exec(const problem *p, void *plan) {
    return p->prec == 4 ? hfftf_execute(plan) : hfft_execute(plan);
}
static void h_destroy(const problem *p, void *plan) {
    if (p->prec == 4)
        hfftf_destroy_plan(plan);
    else
        hfft_destroy_plan(plan);
}
static void h_info(const problem *p, void *plan, hfft_info *i) {
    if (p->prec == 4)
        hfftf_plan_info(plan, i);
    else
        hfft_plan_info(plan, i);
}

static void describe_hfft(const hfft_info *i, char *s, size_t len) {
    static const char *const place[] = {"cpu", "gpu", "hybrid"};
    static const char *const sched[] = {"-", "plain", "radix2", "one-trip", "four-step"};
    static const char *const pin[] = {"staged", "registered", "hfft_malloc"};
    char b1[32], b2[32], b3[32], b4[32], passes[48] = "", ratios[64] = "";
    int pl = i->placement >= 0 && i->placement <= 2 ? i->placement : 0;
    int sc = i->schedule >= 0 && i->schedule <= 4 ? i->schedule : 0;
    if (pl == 0) {
        snprintf(s, len, "cpu threads=%d host=%s", i->threads,
                 bench_fmt_bytes((double)i->host_bytes, b3, sizeof b3));
    } else {
        for (int h = 0; h < i->rounds && h < 3; h++) {
            size_t o = strlen(passes), q = strlen(ratios);
            snprintf(passes + o, sizeof passes - o, "%s%d", h ? "/" : "", i->passes[h]);
            snprintf(ratios + q, sizeof ratios - q, "%s%.3f", h ? "/" : "", i->ratio[h]);
        }
        snprintf(s, len,
                 "%s %s%s rounds=%d passes=%s %s=%d ratio=%s dev=%s/%s resident=%s host=%s "
                 "pinned=%s threads=%d",
                 place[pl], sched[sc], i->transposed ? " transposed" : "", i->rounds, passes,
                 sc == 2 ? "streams" : "slots", i->streams, ratios,
                 bench_fmt_bytes((double)i->device_bytes, b1, sizeof b1),
                 bench_fmt_bytes((double)i->device_budget, b2, sizeof b2),
                 bench_fmt_bytes((double)i->resident_bytes, b4, sizeof b4),
                 bench_fmt_bytes((double)i->host_bytes, b3, sizeof b3),
                 pin[i->host_pinned >= 0 && i->host_pinned <= 2 ? i->host_pinned : 0], i->threads);
    }
    size_t o = strlen(s);
    if (i->wisdom == 1)
        snprintf(s + o, len - o, " wisdom=used");
    else if (i->wisdom == -1) {
        char note[sizeof i->wisdom_note]; /* s and i may live in one array: no overlap */
        memcpy(note, i->wisdom_note, sizeof note);
        note[sizeof note - 1] = 0;
        snprintf(s + o, len - o, " wisdom=ignored(%s)", note);
    }
}

/* The link figures of an hfft plan from what its last execute copied
   (hfft_info.link_bytes): the one-trip bound S/B_h2d + S/B_d2h, the duplex
   bound of the bytes it moved (both directions busy at the per-direction rate
   B_duplex), and the bound of the schedule it ran (one trip: the first;
   streaming: the second). */
static void hfft_link_figures(const problem *p, result *r) {
    const hfft_info *i = &r->info;
    r->link_bytes = (double)i->link_bytes[0] + (double)i->link_bytes[1];
    if (i->placement == 0 || i->device != HFFT_DEVICE_CUDA || !G.link_measured)
        return;
    double most = i->link_bytes[0] > i->link_bytes[1] ? (double)i->link_bytes[0]
                                                       : (double)i->link_bytes[1];
    bench_link_bounds(p, most, i->cards, r);
    r->floor_s = i->schedule == 3 ? r->trip_s : r->duplex_s;
}

/* --timeline: the picture's file, FILE.png for the first of a run, FILE-2.png ... */
static void timeline_path(const args *a, char *out, size_t len) {
    const char *dot = strrchr(a->timeline, '.');
    if (a->timelines == 0 || !dot || strchr(dot, '/'))
        snprintf(out, len, a->timelines ? "%s-%d" : "%s", a->timeline, a->timelines + 1);
    else
        snprintf(out, len, "%.*s-%d%s", (int)(dot - a->timeline), a->timeline, a->timelines + 1,
                 dot);
}

/* One more execute of the same problem on a plan made with tracing on (the timed
   runs stay untraced), its operations drawn.  A warm-up first: the picture shows a
   steady execute. */
static void draw_timeline(const args *a, const problem *p, int e, void *in, void *out,
                          unsigned flags, const hfft_options *o, result *r) {
    hfft_options to = *o;
    to.trace = 1;
    char path[1024], err[256], title[800];
    timeline_path(a, path, sizeof path);
    ((args *)a)->timelines++;
    void *plan = h_plan(p, in, out, flags, &to);
    int st = plan ? h_exec(p, plan) : -1;
    if (!st)
        st = h_exec(p, plan);
    int n = !st ? (p->prec == 4 ? hfftf_plan_trace(plan, NULL, 0) : hfft_plan_trace(plan, NULL, 0))
                : -1;
    hfft_trace_op *ops = n > 0 ? calloc((size_t)n, sizeof *ops) : NULL;
    if (n > 0 && ops)
        n = p->prec == 4 ? hfftf_plan_trace(plan, ops, n) : hfft_plan_trace(plan, ops, n);
    if (n < 0 || (n > 0 && !ops)) {
        fprintf(stderr, "[%s] %s: --timeline: %s\n", p->text, engine_name[e],
                ops || n < 0 ? hfft_last_error_message() : "out of memory");
    } else {
        snprintf(title, sizeof title, "%s %s on %s: %s", p->text, engine_name[e],
                 r->info.device_name, r->plan);
        if (bench_timeline_png(path, title, ops, n, err, sizeof err))
            fprintf(stderr, "[%s] %s: --timeline: %s\n", p->text, engine_name[e], err);
        else
            fprintf(stderr, "[%s] %s: timeline of %d operations in %s\n", p->text,
                    engine_name[e], n, path);
    }
    free(ops);
    if (plan)
        h_destroy(p, plan);
}

/* One hfft row being timed: its plan and options, and the times so far. */
struct bench_hrun {
    const args *a;
    const problem *p;
    int e;
    void *A, *B, *in, *out, *plan;
    unsigned flags;
    hfft_options o;
    result *r;
    /* t: the execute times; then per round its time, GPU side and CPU side; then, with
       --probe-each, each execute's one-trip and duplex bounds over its time */
    double *t, *each;
    int probe, st;
    double done[3]; /* each round's GPU share done (hfft_info.done_ratio), summed */
    bench_env g0;   /* the other rows keep the run's first probe */
};

bench_hrun *bench_hfft_begin(const args *a, const problem *p, int e, void *A, void *B, result *r) {
    bench_hrun *h = calloc(1, sizeof *h);
    if (!h)
        bench_die("out of memory");
    h->a = a;
    h->p = p;
    h->e = e;
    h->A = A;
    h->B = B;
    h->r = r;
    h->flags = (a->hfft_measure ? HFFT_MEASURE : HFFT_ESTIMATE) | a->schedule;
    h->flags |= e == E_HYBRID ? HFFT_HYBRID
                : e == E_GPU  ? HFFT_GPU_ONLY
                : e == E_CPU  ? HFFT_CPU_ONLY
                              : 0;
    hfft_options *o = &h->o;
    hfft_options_init(o);
    o->device_memory = a->budget;
    o->threads = a->threads;
    o->ratio = a->ratio;
    for (int k = 0; k < 3; k++)
        o->round_ratio[k] = a->round_ratio[k];
    o->pass_bytes = a->pass_bytes;
    o->slots = a->slots;
    o->wisdom = a->wisdom;
    o->pinning = a->pinning;
    o->devices = a->devices;

    h->in = a->inplace ? B : A;
    h->out = B;
    bench_fill(p, A, a->seed + (uint64_t)e * 7919u);
    if (a->inplace)
        bench_copy(p, B, A);
    double t0 = hfft_ref_now();
    h->plan = h_plan(p, h->in, h->out, h->flags, o);
    r->plan_s = hfft_ref_now() - t0;
    if (!h->plan) {
        int st = hfft_last_error();
        r->status = st == HFFT_ERR_NO_DEVICE ? ST_SKIPPED : ST_FAILED;
        snprintf(r->note, sizeof r->note, "%s: %s",
                 st == HFFT_ERR_NO_DEVICE ? "skipped" : "plan failed", hfft_last_error_message());
        free(h);
        return NULL;
    }
    h_info(p, h->plan, &r->info);
    r->have_info = 1;
    memcpy(r->device, r->info.device_name, sizeof r->device);
    r->device[sizeof r->device - 1] = 0;
    describe_hfft(&r->info, r->plan, sizeof r->plan);
    for (int k = 0; k < r->info.rounds && k < HFFT_MAX_ROUNDS; k++)
        r->predicted_s += r->info.predicted_seconds[k];
    h->t = calloc((size_t)a->reps * (3 + 3 * HFFT_MAX_ROUNDS), sizeof *h->t);
    if (!h->t)
        bench_die("out of memory");
    h->each = h->t + (size_t)a->reps * (1 + 3 * HFFT_MAX_ROUNDS);
    h->probe = a->probe_each && r->info.placement != 0 && G.link_measured;
    h->g0 = G;
    return h;
}

void bench_hfft_exec(bench_hrun *h, int k) {
    enum { R = HFFT_MAX_ROUNDS };
    const args *a = h->a;
    const problem *p = h->p;
    result *r = h->r;
    double *t = h->t;
    if (h->st)
        return;
    if (a->alternate && k >= 0) {
        /* A row's timed execute follows an untimed one of its own, after a pause (on a
           GPU), as in a row run on its own: a GPU execute right after CPU-heavy work (a
           CPU-only row's, the in-place input's copy, the link probe) copied up to 2.5x
           slower for about 0.1 s on an H100 host (run DC), and a hybrid's threads woken
           after a pause ran a 128 MiB problem 30% slower than back to back (run DF).
           In place, the timed execute transforms the untimed one's output: its time
           does not depend on the values (two transforms of the input stay finite). */
        if (h->probe && bench_link_again())
            h->probe = 0;
        if (a->inplace)
            bench_copy(p, h->B, h->A);
        struct timespec settle = {0, 250000000L};
        while (G.gpu_present && nanosleep(&settle, &settle) != 0)
            ;
        if ((h->st = h_exec(p, h->plan)) != 0) {
            snprintf(r->note, sizeof r->note, "execute failed: %s", hfft_last_error_message());
            return;
        }
    } else {
        if (a->inplace)
            bench_copy(p, h->B, h->A);
        if (h->probe && k >= 0 && bench_link_again())
            h->probe = 0;
    }
    double s = hfft_ref_now();
    h->st = h_exec(p, h->plan);
    if (h->st) /* now: another row's execute may come before the row ends */
        snprintf(r->note, sizeof r->note, "execute failed: %s", hfft_last_error_message());
    if (k < 0 || h->st)
        return;
    t[k] = hfft_ref_now() - s;
    h_info(p, h->plan, &r->info);
    if (h->probe) {
        result b = {.info = r->info}; /* this execute's bounds, against its own probe */
        hfft_link_figures(p, &b);
        h->each[k] = b.trip_s / t[k];
        h->each[(size_t)a->reps + k] = b.duplex_s / t[k];
    }
    for (int q = 0; q < 3; q++)
        h->done[q] += r->info.done_ratio[q];
    for (int q = 0; q < R; q++) {
        t[(size_t)a->reps * (1 + q) + k] = r->info.measured_seconds[q];
        t[(size_t)a->reps * (1 + R + q) + k] = r->info.measured_gpu[q];
        t[(size_t)a->reps * (1 + 2 * R + q) + k] = r->info.measured_cpu[q];
    }
    if (a->each) { /* as it ends, so that --alternate's turns show in the order of lines */
        printf("[%s] %s: execute %d: %.4f s", p->text, engine_name[h->e], k + 1, t[k]);
        for (int q = 0; q < r->info.rounds && q < R; q++) {
            printf("; round %d %.4f s", q + 1, t[(size_t)a->reps * (1 + q) + k]);
            if (r->info.placement == 2)
                printf(" (GPU %.4f, CPU %.4f)", t[(size_t)a->reps * (1 + R + q) + k],
                       t[(size_t)a->reps * (1 + 2 * R + q) + k]);
        }
        printf("\n");
    }
}

void bench_run_hfft(const args *a, const problem *p, int e, void *A, void *B, result *r) {
    bench_hrun *h = bench_hfft_begin(a, p, e, A, B, r);
    for (int k = -1; h && k < a->reps && !h->st; k++)
        bench_hfft_exec(h, k);
    if (h)
        bench_hfft_end(h);
}

void bench_hfft_end(bench_hrun *h) {
    enum { R = HFFT_MAX_ROUNDS };
    const args *a = h->a;
    const problem *p = h->p;
    int e = h->e, st = h->st, probe = h->probe;
    result *r = h->r;
    double *t = h->t, *each = h->each;
    void *A = h->A, *B = h->B, *in = h->in, *out = h->out, *plan = h->plan;
    unsigned flags = h->flags;
    hfft_options o = h->o;
    bench_env g0 = h->g0;
    double done[3] = {h->done[0] / a->reps, h->done[1] / a->reps, h->done[2] / a->reps};
    free(h);
    if (st) {
        r->status = ST_FAILED;
        h_destroy(p, plan);
        free(t);
        return;
    }
    G = g0;
    if (probe && !st) {
        printf("[%s] %s: each execute against the link measured just before it:", p->text,
               engine_name[e]);
        for (int k = 0; k < a->reps; k++)
            printf(" %.4f s (%.1f%% dup, %.1f%% trip)", t[k], 100 * each[(size_t)a->reps + k],
                   100 * each[k]);
        printf("\n");
    }
    if (a->each) {
        double sum = 0;
        for (int k = 0; k < a->reps; k++)
            sum += t[k];
        printf("[%s] %s: mean of %d executes %.4f s\n", p->text, engine_name[e], a->reps,
               sum / a->reps);
        fflush(stdout);
    }
    bench_summarize(t, a->reps, r);
    /* each round's median over the timed runs, in place of the last run's */
    for (int h = 0; h < R; h++) {
        result m;
        bench_summarize(t + (size_t)a->reps * (1 + h), a->reps, &m);
        r->info.measured_seconds[h] = m.med;
        bench_summarize(t + (size_t)a->reps * (1 + R + h), a->reps, &m);
        r->info.measured_gpu[h] = m.med;
        bench_summarize(t + (size_t)a->reps * (1 + 2 * R + h), a->reps, &m);
        r->info.measured_cpu[h] = m.med;
    }
    hfft_link_figures(p, r);
    if (probe && r->floor_s > 0) {
        /* the bounds that give each column the median of the executes' own ratios */
        result m;
        bench_summarize(each, a->reps, &m);
        r->trip_s = m.med * r->med;
        bench_summarize(each + a->reps, a->reps, &m);
        r->duplex_s = m.med * r->med;
        r->floor_s = r->info.schedule == 3 ? r->trip_s : r->duplex_s;
    }
    free(t);
    {
        size_t o = strlen(r->plan);
        for (int h = 0; h < r->info.rounds && h < 3; h++) {
            snprintf(r->plan + o, sizeof r->plan - o, "%s%.3g",
                     h ? "/" : " round_s=", r->info.measured_seconds[h]);
            o = strlen(r->plan);
        }
        /* Hybrid rounds: the GPU's share done (more than planned where it took back a
           late CPU's units), the executes' mean */
        for (int h = 0; r->info.placement == 2 && h < r->info.rounds && h < 3; h++) {
            snprintf(r->plan + o, sizeof r->plan - o, "%s%.3f", h ? "/" : " done=", done[h]);
            o = strlen(r->plan);
        }
        /* Hybrid rounds: each side's time, to see which one the round waited for. */
        if (r->info.placement == 2)
            for (int h = 0; h < r->info.rounds && h < 3; h++) {
                snprintf(r->plan + o, sizeof r->plan - o, "%s%.3g:%.3g",
                         h ? "/" : " gpu:cpu_s=", r->info.measured_gpu[h], r->info.measured_cpu[h]);
                o = strlen(r->plan);
            }
        if (r->predicted_s > 0)
            for (int h = 0; h < r->info.rounds && h < 3; h++) {
                snprintf(r->plan + o, sizeof r->plan - o, "%s%.3g",
                         h ? "/" : " model_s=", r->info.predicted_seconds[h]);
                o = strlen(r->plan);
            }
    }

    if (a->timeline && r->info.placement != 0)
        draw_timeline(a, p, e, in, out, flags, &o, r);

    /* The error comes from a fresh out-of-place run on a poisoned output, so an
       element the plan never writes shows up as NaN. */
    if (a->verify) {
        if (a->inplace) {
            h_destroy(p, plan);
            plan = h_plan(p, A, B, flags, &o);
            if (!plan) {
                r->status = ST_FAILED;
                snprintf(r->note, sizeof r->note, "out-of-place plan for --verify failed: %s",
                         hfft_last_error_message());
                return;
            }
        }
        bench_poison(p, B);
        if (h_exec(p, plan)) {
            r->status = ST_FAILED;
            snprintf(r->note, sizeof r->note, "execute for --verify failed: %s",
                     hfft_last_error_message());
            h_destroy(p, plan);
            return;
        }
        h_destroy(p, plan);
        r->err = bench_verify(a, p, A, B);
    } else {
        h_destroy(p, plan);
    }
}
