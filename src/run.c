/*
 * run.c: a plan's execute: FFTW's whole plan, or the rounds in turn, each
 * round's units cut between the GPU engine (over the cards) and the CPU
 * executor, which meet at the round's end; one trip runs every round at once.
 * Each round's time, and each side's, goes to hfft_info.  One execute per plan
 * at a time.
 */
#include <stdint.h>
#include <string.h>

#include "src/copy.h"
#include "src/core/status.h"
#include "src/plan.h"
#include "src/run.h"

/* Where a scratch copy of the input puts each input array (same offsets). */
void hfft__scratch_arrays(const hfft__plan *p, void *const in[2], void *res[2]) {
    size_t span = (size_t)(p->pb.hi[0] - p->pb.lo[0]);
    res[0] = (char *)p->scratch - p->pb.lo[0];
    res[1] = in[1] ? (char *)p->scratch + span - p->pb.lo[0] : NULL;
}

/*
 * The arrays each round reads and writes: the input, the output, or the mid
 * array that holds what lies between two rounds where the output cannot (a
 * c2r transform's complex rounds: the input itself, or a copy where it must be
 * kept; a four-step split in natural order: the input where it may be
 * overwritten, else a copy).  One trip needs none: the device holds it.
 */
int hfft__c2r_reads_copy(const hfft__plan *p) {
    return p->pb.kind == HFFT__C2R && p->nrounds == 1 && !p->pb.inplace &&
           (p->flags & HFFT_PRESERVE_INPUT) && !p->cards;
}

void hfft__round_sides(const hfft__plan *p, int h, int *src, int *dst) {
    const hfft__round *r = &p->rounds[h];
    int last = h == p->nrounds - 1;
    if (p->pb.kind == HFFT__C2R) {
        *src = h == 0 && !hfft__c2r_reads_copy(p) ? SIDE_IN : SIDE_MID;
        *dst = last ? SIDE_OUT : SIDE_MID;
        return;
    }
    *src = h == 0 ? SIDE_IN : r->src_mid ? SIDE_MID : SIDE_OUT;
    *dst = r->dst_mid ? SIDE_MID : SIDE_OUT;
}

void *hfft__side_array(const hfft__plan *p, int side, void *in, void *out) {
    return side == SIDE_IN ? in : side == SIDE_OUT ? out : p->mid ? p->mid : in;
}

/* The whole-problem plan: on a scratch copy of the input where it must be kept. */
static int run_whole(hfft__plan *p, void *const in[2], void *const out[2]) {
    double t0 = hfft__now();
    if (!p->scratch) {
        hfft__whole_exec(p->whole, p->sign, in, out);
    } else {
        size_t span = (size_t)(p->pb.hi[0] - p->pb.lo[0]);
        void *sin[2];
        hfft__scratch_arrays(p, in, sin);
        for (int k = 0; k < 2 && in[k]; k++)
            memcpy((char *)sin[k] + p->pb.lo[0], (const char *)in[k] + p->pb.lo[0], span);
        hfft__whole_exec(p->whole, p->sign, sin, out);
    }
    p->info.measured_seconds[0] = p->info.measured_cpu[0] = hfft__now() - t0;
    for (int h = 1; h < HFFT__MAX_ROUNDS; h++)
        p->info.measured_seconds[h] = p->info.measured_cpu[h] = 0.0;
    return 0;
}

/* A layout through a dense copy: gathered, the copy's plan, scattered; the plan's
   info follows the copy's but for what the copy adds. */
static int run_copy(hfft__plan *p, void *const in[2], void *const out[2]) {
    hfft__copy_gather(&p->pb, &p->copy_pb, in);
    void *copy[2] = {p->copy, NULL};
    int st = p->inner->run(p->inner, copy, copy);
    if (!st)
        hfft__copy_scatter(&p->pb, &p->copy_pb, out);
    hfft_info keep = p->info;
    p->info = p->inner->info;
    p->info.host_bytes = keep.host_bytes;
    memcpy(p->info.note, keep.note, sizeof keep.note);
    return st;
}

static int trace_begin(hfft__plan *p) {
    for (int k = 0; k < p->ncard; k++)
        if (p->trace[k])
            HFFT__TRY(hfft__trace_begin(p->trace[k]));
    return 0;
}

/* One trip over the cards: every round at once; the first fast round's time is the
   copy in with the fast dimensions, the slow round's the rest. */
static int run_trip(hfft__plan *p, void *const in[2], void *const out[2]) {
    HFFT__TRY(trace_begin(p));
    for (int h = 0; h < HFFT__MAX_ROUNDS; h++)
        p->info.measured_seconds[h] = p->info.measured_gpu[h] = p->info.measured_cpu[h] = 0;
    int st = hfft__cards_run(p->cards, 0, in[0], out[0], 1);
    hfft__cards_times(p->cards, p->info.measured_seconds);
    for (int h = 0; h < p->nrounds; h++)
        p->info.measured_gpu[h] = p->info.measured_seconds[h];
    hfft__cards_take_link(p->cards, p->info.link_bytes);
    for (int h = 0; h < p->nrounds && h < HFFT_MAX_ROUNDS && !st; h++)
        p->info.done_ratio[h] = p->info.ratio[h];
    return st;
}

/* Round h: its units cut between the GPU's cards [0, cut) and the CPU's executor,
   which meet at the round's end. */
static int run_round(hfft__plan *p, int h, void *in, void *out) {
    int st = 0;
    double t0 = hfft__now();
    int ss, ds;
    hfft__round_sides(p, h, &ss, &ds);
    const void *src = hfft__side_array(p, ss, in, out);
    void *dst = hfft__side_array(p, ds, in, out);
    int64_t units = hfft__round_units(&p->rounds[h]);
    int cpu_part = p->cpu && p->cut[h] < units;
    if (cpu_part)
        hfft__cpu_start(p->cpu, h, src, dst, p->cut[h], units);
    p->info.measured_gpu[h] = p->info.measured_cpu[h] = 0.0;
    if (p->cards && p->cut[h] > 0) {
        /* GPU-only rounds meet without a drain; the CPU's part of a round needs
           the GPU's part of the round before in host memory */
        int drain = h == p->nrounds - 1 || p->cpu != NULL;
        st = hfft__cards_run(p->cards, h, src, dst, drain);
        p->info.measured_gpu[h] = hfft__now() - t0;
    }
    if (cpu_part) {
        int cst = hfft__cpu_finish(p->cpu);
        if (!st)
            st = cst;
        p->info.measured_cpu[h] = hfft__pool_done_at(p->pool) - t0;
    }
    p->info.measured_seconds[h] = hfft__now() - t0;
    return st;
}

/* The rounds in turn, on the GPU's cards, the CPU, or both. */
static int run_rounds(hfft__plan *p, void *const in_[2], void *const out_[2]) {
    void *in = in_[0], *out = out_[0];
    if (p->cards)
        HFFT__TRY(trace_begin(p));
    if (hfft__c2r_reads_copy(p))
        memcpy((char *)p->mid + p->pb.lo[0], (const char *)in + p->pb.lo[0],
               (size_t)(p->pb.hi[0] - p->pb.lo[0]));
    int st = 0;
    for (int h = 0; h < p->nrounds && !st; h++)
        st = run_round(p, h, in, out);
    /* GPU-only rounds meet without a drain, so the host's clock gives the first
       round only the time to issue it: each round's time comes from the device
       (none for several cards, which drain every round). */
    double dev[HFFT__MAX_ROUNDS];
    if (!st && p->cards && !p->cpu && hfft__cards_round_times(p->cards, dev) == 0)
        for (int h = 0; h < p->nrounds; h++)
            p->info.measured_seconds[h] = p->info.measured_gpu[h] = dev[h];
    if (p->cards)
        hfft__cards_take_link(p->cards, p->info.link_bytes);
    /* the share each side did: the GPU may have taken back units of a late CPU's */
    for (int h = 0; h < p->nrounds && h < HFFT_MAX_ROUNDS && !st; h++) {
        double done = p->cpu && p->cards ? hfft__cpu_gpu_share(p->cpu, h) : -1;
        p->info.done_ratio[h] = done >= 0 ? done : p->info.ratio[h];
    }
    return st;
}

static int run_nothing(hfft__plan *p, void *const in[2], void *const out[2]) {
    (void)p;
    (void)in;
    (void)out;
    return 0;
}

void hfft__plan_choose_run(hfft__plan *p) {
    p->run = p->pb.howmany == 0 ? run_nothing
             : p->inner         ? run_copy
             : p->whole         ? run_whole
             : p->cards && hfft__cards_one_trip(p->cards) ? run_trip
                                                      : run_rounds;
}

int hfft__plan_execute(hfft__plan *p, void *const in[2], void *const out[2]) {
    int st = p->run(p, in, out);
    if (st)
        return hfft__fail_context(st, in[0] == out[0]
                                          ? "execute failed; the in-place array is undefined"
                                          : "execute failed; the input is untouched and the "
                                            "output undefined");
    return 0;
}
