/*
 * run_hfft.c: times hfft in one placement on the benchmark's arrays: plan,
 * one warm-up and the timed runs, what the plan reports, its link figures,
 * and the error from a fresh out-of-place run on a poisoned output.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "ref.h"

static void *h_plan(const problem *p, void *in, void *out, unsigned flags, const hfft_options *o) {
    return p->prec == 4 ? (void *)hfftf_plan_dft(p->rank, p->n, in, out, HFFT_FORWARD, flags, o)
                        : (void *)hfft_plan_dft(p->rank, p->n, in, out, HFFT_FORWARD, flags, o);
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
    static const char *const sched[] = {"-", "plain", "radix2"};
    static const char *const pin[] = {"staged", "registered", "hfft_malloc"};
    char b1[32], b2[32], b3[32], passes[48] = "", ratios[64] = "";
    int pl = i->placement >= 0 && i->placement <= 2 ? i->placement : 0;
    int sc = i->schedule >= 0 && i->schedule <= 2 ? i->schedule : 0;
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
                 "%s %s%s rounds=%d passes=%s %s=%d ratio=%s dev=%s/%s host=%s pinned=%s "
                 "threads=%d",
                 place[pl], sched[sc], i->transposed ? " transposed" : "", i->rounds, passes,
                 sc == 2 ? "streams" : "slots", i->streams, ratios,
                 bench_fmt_bytes((double)i->device_bytes, b1, sizeof b1),
                 bench_fmt_bytes((double)i->device_budget, b2, sizeof b2),
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

/* Link-bound time of an hfft plan: every element goes up and comes back once in
   each of two rounds (the minimum for an out-of-card transform), both
   directions busy, so 2 * S * share / B with B the duplex per-direction rate. */
static void hfft_link_figures(const problem *p, result *r) {
    const hfft_info *i = &r->info;
    double share = 0.0, moved = 0.0;
    for (int h = 0; h < i->rounds && h < 3; h++) {
        moved += 2.0 * (double)p->bytes * i->ratio[h];
        share += i->ratio[h];
    }
    if (i->rounds > 0)
        share /= i->rounds;
    r->link_bytes = i->placement == 0 ? 0.0 : moved;
    if (i->placement != 0 && i->device == HFFT_DEVICE_CUDA && G.link_measured) {
        double b = 0.5 * (G.dup_h2d + G.dup_d2h);
        r->floor_s = 2.0 * (double)p->bytes * share / b;
    }
}

void bench_run_hfft(const args *a, const problem *p, int e, void *A, void *B, result *r) {
    unsigned flags = (a->hfft_measure ? HFFT_MEASURE : HFFT_ESTIMATE) | a->schedule;
    flags |= e == E_HYBRID ? HFFT_HYBRID
             : e == E_GPU  ? HFFT_GPU_ONLY
             : e == E_CPU  ? HFFT_CPU_ONLY
                           : 0;
    hfft_options o;
    hfft_options_init(&o);
    o.device_memory = a->budget;
    o.threads = a->threads;
    o.ratio = a->ratio;
    for (int h = 0; h < 3; h++)
        o.round_ratio[h] = a->round_ratio[h];
    o.pass_bytes = a->pass_bytes;
    o.slots = a->slots;
    o.wisdom = a->wisdom;
    o.pinning = a->pinning;

    void *in = a->inplace ? B : A, *out = B;
    bench_fill(p, A, a->seed + (uint64_t)e * 7919u);
    if (a->inplace)
        bench_copy(p, B, A);
    double t0 = hfft_ref_now();
    void *plan = h_plan(p, in, out, flags, &o);
    r->plan_s = hfft_ref_now() - t0;
    if (!plan) {
        int st = hfft_last_error();
        r->status = st == HFFT_ERR_NO_DEVICE ? ST_SKIPPED : ST_FAILED;
        snprintf(r->note, sizeof r->note, "%s: %s",
                 st == HFFT_ERR_NO_DEVICE ? "skipped" : "plan failed", hfft_last_error_message());
        return;
    }
    h_info(p, plan, &r->info);
    r->have_info = 1;
    memcpy(r->device, r->info.device_name, sizeof r->device);
    r->device[sizeof r->device - 1] = 0;
    describe_hfft(&r->info, r->plan, sizeof r->plan);
    for (int h = 0; h < r->info.rounds && h < 3; h++)
        r->predicted_s += r->info.predicted_seconds[h];
    hfft_link_figures(p, r);

    /* t: the execute times; then per round its time, GPU side and CPU side */
    double *t = calloc((size_t)a->reps * 10, sizeof *t);
    if (!t)
        bench_die("out of memory");
    int st = 0;
    for (int k = -1; k < a->reps && !st; k++) {
        if (a->inplace)
            bench_copy(p, B, A);
        double s = hfft_ref_now();
        st = h_exec(p, plan);
        if (k < 0 || st)
            continue;
        t[k] = hfft_ref_now() - s;
        h_info(p, plan, &r->info);
        for (int h = 0; h < 3; h++) {
            t[(size_t)a->reps * (1 + h) + k] = r->info.measured_seconds[h];
            t[(size_t)a->reps * (4 + h) + k] = r->info.measured_gpu[h];
            t[(size_t)a->reps * (7 + h) + k] = r->info.measured_cpu[h];
        }
    }
    if (st) {
        r->status = ST_FAILED;
        snprintf(r->note, sizeof r->note, "execute failed: %s", hfft_last_error_message());
        h_destroy(p, plan);
        free(t);
        return;
    }
    bench_summarize(t, a->reps, r);
    /* each round's median over the timed runs, in place of the last run's */
    for (int h = 0; h < 3; h++) {
        result m;
        bench_summarize(t + (size_t)a->reps * (1 + h), a->reps, &m);
        r->info.measured_seconds[h] = m.med;
        bench_summarize(t + (size_t)a->reps * (4 + h), a->reps, &m);
        r->info.measured_gpu[h] = m.med;
        bench_summarize(t + (size_t)a->reps * (7 + h), a->reps, &m);
        r->info.measured_cpu[h] = m.med;
    }
    free(t);
    {
        size_t o = strlen(r->plan);
        for (int h = 0; h < r->info.rounds && h < 3; h++) {
            snprintf(r->plan + o, sizeof r->plan - o, "%s%.3g",
                     h ? "/" : " round_s=", r->info.measured_seconds[h]);
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
