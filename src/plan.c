/*
 * plan.c: the planner, precision-neutral.  It takes a checked guru problem
 * (problem.c), finds its dense row-major form and cuts that into rounds of 1D
 * (or plane) transforms, asks the balancer where each round's transforms run
 * (GPU engine, CPU executor, or both with a work ratio), builds the engines
 * for that, keeps the host arrays pinned for the GPU, and runs the rounds with
 * a synchronisation between them.  Layouts the rounds do not take run as one
 * FFTW plan of the whole problem on the CPU (hfft_info.note says why).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "balancer/balancer.h"
#include "src/build.h"
#include "src/copy.h"
#include "src/run.h"
#include "src/core/status.h"
#include "src/plan.h"
#include "src/problem.h"

#define KNOWN_FLAGS                                                                   \
    (HFFT_ESTIMATE | HFFT_MEASURE | HFFT_CPU_ONLY | HFFT_GPU_ONLY | HFFT_HYBRID |     \
     HFFT_SCHEDULE_PLAIN | HFFT_SCHEDULE_RADIX2 | HFFT_PRESERVE_INPUT | HFFT_DESTROY_INPUT | \
     HFFT_UNALIGNED | HFFT_TRANSPOSED_OUT | HFFT_TRANSPOSED_IN)
#define PLACEMENT_FLAGS (HFFT_CPU_ONLY | HFFT_GPU_ONLY | HFFT_HYBRID)
#define STR_(x) #x
#define STR(x) STR_(x)
#define MAX_ROUNDS_TEXT STR(HFFT_MAX_ROUNDS)

static int check_flags(unsigned flags) {
    if (flags & ~(unsigned)KNOWN_FLAGS)
        return hfft__fail(HFFT_ERR_INVALID_ARGUMENT, "unknown flag bits 0x%x",
                          flags & ~(unsigned)KNOWN_FLAGS);
    if (__builtin_popcount(flags & PLACEMENT_FLAGS) > 1)
        return hfft__fail(HFFT_ERR_INVALID_ARGUMENT,
                          "flags: at most one of HFFT_CPU_ONLY, HFFT_GPU_ONLY, HFFT_HYBRID");
    if ((flags & HFFT_SCHEDULE_PLAIN) && (flags & HFFT_SCHEDULE_RADIX2))
        return hfft__fail(HFFT_ERR_INVALID_ARGUMENT,
                          "flags: HFFT_SCHEDULE_PLAIN and HFFT_SCHEDULE_RADIX2 together");
    if ((flags & HFFT_ESTIMATE) && (flags & HFFT_MEASURE))
        return hfft__fail(HFFT_ERR_INVALID_ARGUMENT, "flags: HFFT_ESTIMATE and HFFT_MEASURE together");
    if ((flags & HFFT_PRESERVE_INPUT) && (flags & HFFT_DESTROY_INPUT))
        return hfft__fail(HFFT_ERR_INVALID_ARGUMENT,
                          "flags: HFFT_PRESERVE_INPUT and HFFT_DESTROY_INPUT together");
    if ((flags & HFFT_TRANSPOSED_OUT) && (flags & HFFT_TRANSPOSED_IN))
        return hfft__fail(HFFT_ERR_INVALID_ARGUMENT,
                          "flags: HFFT_TRANSPOSED_OUT and HFFT_TRANSPOSED_IN together");
    return 0;
}

void hfft__plan_destroy(hfft__plan *p) {
    if (!p)
        return;
    hfft__plan_destroy(p->inner);
    hfft__free(p->copy);
    hfft__release_engines(p);
    hfft__free(p->mid);
    free(p->scratch);
    pthread_mutex_destroy(&p->lock);
    free(p);
}

/* Opens the device the settings and flags name: NONE where the plan stays on the CPU. */
static int pick_device(hfft__plan *p, unsigned flags, int *kind_out) {
    int kind = p->set.device;
    if (flags & HFFT_CPU_ONLY)
        kind = HFFT_DEVICE_NONE;
    if (kind == HFFT_DEVICE_AUTO)
        kind = hfft__cuda_usable() ? HFFT_DEVICE_CUDA : HFFT_DEVICE_NONE;
    if (kind == HFFT_DEVICE_CUDA && !hfft__cuda_usable())
        return hfft__fail(HFFT_ERR_NO_DEVICE,
                          hfft__device_ops(HFFT_DEVICE_CUDA)
                              ? "HFFT_DEVICE=cuda but no usable CUDA GPU was found"
                              : "HFFT_DEVICE=cuda but this hfft was built without CUDA");
    if (kind == HFFT_DEVICE_NONE && (flags & (HFFT_GPU_ONLY | HFFT_HYBRID)))
        return hfft__fail(HFFT_ERR_NO_DEVICE, "%s requested but no usable GPU (device: %s)",
                          (flags & HFFT_GPU_ONLY) ? "HFFT_GPU_ONLY" : "HFFT_HYBRID",
                          p->set.device == HFFT_DEVICE_NONE ? "none" : "not found");
    *kind_out = kind;
    return 0;
}

/* Why a problem is not one dense complex array, for hfft_info.note. */
static const char *not_dense(const hfft__problem *pb) {
    if (pb->kind == HFFT__R2R)
        return "an r2r layout other than one dense real array of even innermost size (4 or "
               "more where transformed), or a size of one that scales";
    if (pb->unpadded)
        return "an in-place real layout other than FFTW's padded one";
    if (pb->split_in || pb->split_out)
        return "split arrays";
    if (pb->rank == 0)
        return "a rank-0 transform (a copy)";
    return "strides that make no dense row-major array";
}

/* Layouts the rounds do not take: FFTW's plan of the whole problem, on the CPU. */
static int plan_general(hfft__plan *p, unsigned flags, int many_rounds) {
    const char *asked = flags & HFFT_GPU_ONLY ? "HFFT_GPU_ONLY" : "HFFT_HYBRID";
    char why[224];
    if (many_rounds)
        snprintf(why, sizeof why,
                 "the GPU engine runs at most " MAX_ROUNDS_TEXT " rounds (one per transformed "
                 "dimension above size one), and this problem has more");
    else
        snprintf(why, sizeof why, "the GPU engine takes dense arrays, and this problem is or has %s",
                 not_dense(&p->pb));
    if (flags & (HFFT_GPU_ONLY | HFFT_HYBRID))
        return hfft__fail(HFFT_ERR_UNSUPPORTED, "%s: %s; plan it without %s to run it on the CPU",
                          asked, why, asked);
    if (p->info.device != HFFT_DEVICE_NONE)
        snprintf(p->info.note, sizeof p->info.note,
                 "on the CPU (FFTW's plan of the whole problem): %.200s", why);
    p->info.device = HFFT_DEVICE_NONE;
    snprintf(p->info.device_name, sizeof p->info.device_name, "none");
    p->info.rounds = 1;
    return hfft__make_whole(p);
}

/*
 * A four-step split of the last dimension: asked for (HFFT_TRANSPOSED_*: 1D
 * complex transforms), where a line of it would take more than an eighth of
 * the device budget (its rounds then move whole lines in few passes), or, on
 * the CPU, where FFTW's plan of a few long lines would leave cores idle
 * (hfft__cpu_splits).
 */
static int pick_split(hfft__plan *p, unsigned flags, int kind) {
    const hfft__dense *dn = &p->dense;
    int64_t last = dn->d[dn->ndim - 1];
    /* the cut line's two rounds after one round per transformed dimension above it */
    int room = __builtin_popcount(dn->tmask & ((1u << (dn->ndim - 1)) - 1u)) + 2 <=
               HFFT__MAX_ROUNDS;
    if (flags & (HFFT_TRANSPOSED_OUT | HFFT_TRANSPOSED_IN)) {
        if (p->pb.kind != HFFT__C2C || p->pb.rank != 1 || p->r2r)
            return hfft__fail(HFFT_ERR_INVALID_ARGUMENT,
                              "HFFT_TRANSPOSED_OUT and _IN apply to 1D complex transforms");
        p->split_line = flags & HFFT_TRANSPOSED_OUT ? HFFT__ORDER_TRANSPOSED_OUT
                                                    : HFFT__ORDER_TRANSPOSED_IN;
    } else if (p->r2r) {
        /* r2r lines run whole: a kind's steps before and after its FFT read across it */
    } else if (kind != HFFT_DEVICE_NONE && p->pb.kind == HFFT__C2C && room &&
               (dn->tmask >> (dn->ndim - 1) & 1u) && hfft__split_n1(last) > 1 &&
               (double)last * (double)p->esize * 8.0 > (double)p->info.device_budget) {
        p->split_line = HFFT__ORDER_NATURAL;
    } else if (kind == HFFT_DEVICE_NONE && p->pb.kind == HFFT__C2C && room &&
               (dn->tmask >> (dn->ndim - 1) & 1u)) {
        int64_t n1 = hfft__split_n1(last);
        if (hfft__cpu_splits(last / n1, n1, p->total / last, p->esize,
                             hfft__cpu_only_threads(p)))
            p->split_line = HFFT__ORDER_NATURAL;
    }
    if (p->split_line) {
        p->info.split[1] = hfft__split_n1(last);
        p->info.split[0] = last / p->info.split[1];
    }
    return 0;
}

static int open_cards(hfft__plan *p, int kind);
static int pick_split(hfft__plan *p, unsigned flags, int kind);

/* A layout through a dense copy (copy.c): the plan of the copy's dense problem, whose
   info the plan's is, with the copy's bytes and why in hfft_info.note. */
static int plan_copy(hfft__plan *p, unsigned flags, const hfft_options *opts, int why) {
    size_t bytes = hfft__copy_problem(&p->pb, NULL, &p->copy_pb);
    p->copy = hfft__malloc(bytes);
    if (!p->copy)
        return hfft__fail(HFFT_ERR_HOST_MEMORY, "a dense copy of the layout (%s)",
                          hfft__bytes_text((double)bytes).s);
    p->copy_pb.in[0] = p->copy_pb.out[0] = p->copy;
    /* the copy is the inner plan's own, aligned and in place */
    unsigned f = flags & ~(unsigned)(HFFT_PRESERVE_INPUT | HFFT_DESTROY_INPUT | HFFT_UNALIGNED);
    p->inner = hfft__plan_create(&p->copy_pb, f, opts);
    if (!p->inner)
        return hfft_last_error() ? hfft_last_error()
                                 : hfft__fail(HFFT_ERR_INTERNAL, "the dense copy's plan failed");
    p->info = p->inner->info;
    p->info.host_bytes += (int64_t)bytes;
    char inner_note[sizeof p->info.note];
    snprintf(inner_note, sizeof inner_note, "%s", p->info.note);
    snprintf(p->info.note, sizeof p->info.note, "through a dense copy of the layout (%s)%s%.160s",
             why == HFFT__COPY_NEGATIVE ? "negative strides"
                                        : "Bluestein's lines keep double precision accurate",
             inner_note[0] ? "; " : "", inner_note);
    return 0;
}

/* A new plan of pb: its copy of the problem and what hfft_info says before planning. */
static hfft__plan *plan_new(const hfft__problem *pb, unsigned flags) {
    hfft__plan *p = calloc(1, sizeof *p);
    if (!p) {
        hfft__fail(HFFT_ERR_HOST_MEMORY, "plan: out of memory");
        return NULL;
    }
    pthread_mutex_init(&p->lock, NULL);
    p->pb = *pb;
    p->prec = pb->prec;
    p->esize = pb->esize;
    p->sign = pb->sign;
    p->flags = flags;
    p->in = pb->in[0];
    p->out = pb->out[0];
    p->total = pb->total;
    p->info.kind = pb->kind;
    p->info.rank = pb->rank;
    for (int i = 0; i < pb->rank; i++) {
        p->info.n[i] = pb->n[i];
        p->info.r2r_kinds[i] = pb->kind == HFFT__R2R ? pb->r2r[i] : 0;
    }
    p->info.howmany = pb->howmany;
    p->info.precision = pb->prec;
    snprintf(p->info.device_name, sizeof p->info.device_name, "none");
    return p;
}

/* The device's engine refused the problem and no placement was asked for: the CPU
   takes it, and hfft_info.note says why. */
static int move_to_cpu(hfft__plan *p, unsigned flags, hfft__choice *c) {
    char why[sizeof p->info.note], was[sizeof p->info.device_name];
    snprintf(why, sizeof why, "%s", hfft_last_error_message());
    snprintf(was, sizeof was, "%s", p->info.device_name);
    p->split_line = 0;
    p->info.split[0] = p->info.split[1] = 0;
    hfft__release_engines(p);
    p->ops = NULL;
    p->info.device = HFFT_DEVICE_NONE;
    p->info.device_budget = 0;
    p->info.cards = 0;
    snprintf(p->info.device_name, sizeof p->info.device_name, "none");
    hfft__clear_error();
    memset(c, 0, sizeof *c);
    int st = pick_split(p, flags, HFFT_DEVICE_NONE);
    if (!st)
        st = hfft__build(p, c, 0);
    if (!st)
        snprintf(p->info.note, sizeof p->info.note, "on the CPU, not on %.48s: %.180s", was, why);
    return st;
}

/*
 * A dense problem's rounds: the balancer's choice on the device (wisdom, the
 * model, or HFFT_MEASURE's probe), then the engines for it.  A placement asked
 * for (flags, a schedule, fixed shares) stands or fails.  A device that is only
 * named in the settings, or found, never turns a valid problem into an error:
 * a problem its engine cannot take (a line longer than the budget with no
 * factor to cut it by, a budget too small for any pass) runs on the CPU, and
 * hfft_info.note says why.  A named device's failures (its memory, CUDA,
 * cuFFT) stay errors: only the automatic placement moves past them.
 */
static int plan_rounds(hfft__plan *p, unsigned flags, int kind, hfft__choice *c) {
    int st = 0;
    memset(c, 0, sizeof *c);
    if (kind != HFFT_DEVICE_NONE) {
        HFFT__TRY(open_cards(p, kind));
        st = pick_split(p, flags, kind);
        if (!st)
            st = hfft__balance(&p->pb, &p->set, p->ops, p->devs, p->ncard, flags, c);
        if (!st && c->measure)
            st = hfft__measure(p, c);
        p->info.wisdom = c->wisdom;
        snprintf(p->info.wisdom_note, sizeof p->info.wisdom_note, "%s", c->note);
    } else {
        st = pick_split(p, flags, kind);
    }
    int asked_gpu = (flags & (HFFT_GPU_ONLY | HFFT_HYBRID | HFFT_SCHEDULE_PLAIN |
                              HFFT_SCHEDULE_RADIX2)) != 0;
    for (int h = 0; h < HFFT__MAX_ROUNDS; h++)
        asked_gpu |= c->fixed[h];
    int named = kind == HFFT_DEVICE_EMULATED || p->set.device == HFFT_DEVICE_CUDA;
    if (!st)
        st = hfft__build_any(p, c);
    int engine_refused = st == HFFT_ERR_BUDGET || st == HFFT_ERR_UNSUPPORTED ||
                         (!named && (st == HFFT_ERR_DEVICE_MEMORY || st == HFFT_ERR_CUDA ||
                                     st == HFFT_ERR_CUFFT));
    if (st && engine_refused && !asked_gpu && p->dev)
        st = move_to_cpu(p, flags, c);
    if (!st)
        st = hfft__choose_pinning(p);
    if (st)
        return st;
    if (p->r2r && (flags & HFFT_SCHEDULE_RADIX2) && p->cards && !p->info.note[0])
        snprintf(p->info.note, sizeof p->info.note,
                 "HFFT_SCHEDULE_RADIX2: r2r lines run whole, in plain passes (the radix-2 "
                 "split cuts a line, which a kind's steps read across)");
    for (int h = 0; h < HFFT__MAX_ROUNDS; h++)
        p->info.predicted_seconds[h] = c->predicted[h];
    p->info.rounds = p->whole ? 1 : p->nrounds; /* FFTW's whole-array plan: one */
    if (p->cards)
        hfft__cards_fill_info(p->cards, &p->info);
    p->info.host_bytes += hfft__cpu_host_bytes(p->cpu);
    return 0;
}

/* Which way the plan goes: a dense problem's rounds, a layout through a dense copy,
   or FFTW's plan of the whole problem. */
static int plan_problem(hfft__plan *p, const hfft_options *opts, unsigned flags, int kind) {
    hfft__problem view;
    if (p->pb.kind == HFFT__R2R &&
        hfft__problem_r2r_view(&p->pb, &view, p->r2r_kinds, &p->r2r_row)) {
        /* the rounds of its pairs of reals (src/core/problem.h) */
        p->r2r = 1;
        p->r2r_pb = p->pb;
        p->pb = view;
        p->esize = view.esize;
        p->total = view.total;
        p->info.r2r_paired = 1;
    }
    const hfft__problem *pb = &p->pb;
    int dense = hfft__problem_dense(pb, &p->dense);
    /* Dense, but with more transformed dimensions than rounds: FFTW's plan of it. */
    hfft__round trial[HFFT__MAX_ROUNDS];
    int many_rounds = dense && hfft__dense_rounds(&p->dense, pb->kind, 0, 0, trial) < 0;
    if (many_rounds) {
        hfft__clear_error();
        dense = 0;
    }
    /* CPU only, a c2r transform that must keep its input: FFTW's plan on a copy of it
       (a c2r round of our own, FFTW's batched c2r, would overwrite what it reads) */
    int keep_c2r = kind == HFFT_DEVICE_NONE && pb->kind == HFFT__C2R && !pb->inplace &&
                   (flags & HFFT_PRESERVE_INPUT) && !hfft__problem_chirp_dims(pb);
    /* negative strides always (FFTW's planner and the engines take positive ones);
       Bluestein's lines where the rounds could take the dense problem */
    int copy_why = dense ? 0 : hfft__copy_wanted(pb);
    if (copy_why == HFFT__COPY_BLUESTEIN && many_rounds)
        copy_why = 0;
    if (copy_why)
        return plan_copy(p, flags, opts, copy_why);
    if (!dense || keep_c2r)
        return plan_general(p, flags, many_rounds);
    hfft__choice c;
    return plan_rounds(p, flags, kind, &c);
}

hfft__plan *hfft__plan_create(const hfft__problem *pb, unsigned flags, const hfft_options *opts) {
    if (check_flags(flags))
        return NULL;
    hfft__plan *p = plan_new(pb, flags);
    if (!p)
        return NULL;
    int kind = HFFT_DEVICE_NONE;
    int st = hfft__settings_resolve(opts, &p->set);
    if (!st)
        st = pick_device(p, flags, &kind);
    p->info.device = kind;
    if (!st && pb->howmany == 0)
        p->info.device = HFFT_DEVICE_NONE; /* nothing to transform */
    else if (!st)
        st = plan_problem(p, opts, flags, kind);
    if (st) {
        hfft__plan_destroy(p);
        return NULL;
    }
    hfft__plan_choose_run(p);
    hfft__clear_error();
    return p;
}

int hfft__plan_adopt(hfft__plan *p, void *const in[2], void *const out[2]) {
    if (!p->cards)
        return 0;
    void *ptrs[4];
    size_t bytes[4];
    int n = 0;
    for (int side = 0; side < 2; side++) {
        void *const *a = side ? out : in;
        void *const *own = side ? p->pb.out : p->pb.in;
        for (int k = 0; k < 2; k++) {
            if (!a[k] || a[k] == own[k] || (side && p->pb.inplace))
                continue;
            ptrs[n] = (char *)a[k] + p->pb.lo[side];
            bytes[n++] = (size_t)(p->pb.hi[side] - p->pb.lo[side]);
        }
    }
    int st = hfft__place_new(&p->place, ptrs, bytes, n, p->set.pinning, p->cards,
                             hfft__staging_threads(p));
    p->info.host_pinned = p->place.host_pinned;
    p->info.pin_seconds = p->place.pin_seconds;
    p->info.pinned_bytes = p->place.cache_bytes;
    return st;
}

int hfft__plan_trace(hfft__plan *p, hfft_trace_op *ops, int max) {
    if (p->inner)
        return hfft__plan_trace(p->inner, ops, max);
    if (!p->trace[0] || !p->cards)
        return hfft__fail(HFFT_ERR_INVALID_ARGUMENT,
                          p->cards ? "plan_trace: the plan was made without hfft_options.trace "
                                   "(or HFFT_TRACE=1)"
                                 : "plan_trace: the plan runs on no device");
    if (max < 0 || (max > 0 && !ops))
        return hfft__fail(HFFT_ERR_INVALID_ARGUMENT, "plan_trace: ops NULL or max negative");
    /* card by card, each from the execute's start on that card */
    int count = 0;
    for (int k = 0; k < p->ncard; k++) {
        int room = max > count ? max - count : 0;
        int n = hfft__trace_read(p->trace[k], room ? ops + count : NULL, room);
        if (n < 0)
            return n;
        count += n;
    }
    return count;
}

/*
 * The cards of a GPU plan: those asked for (hfft_options.devices), or every card
 * the backend sees (one emulated card unless asked), each with the budget; with
 * tracing, each wrapped in a device that times its operations.
 */
static int open_cards(hfft__plan *p, int kind) {
    p->ops = hfft__device_ops(kind);
    int st = hfft__devices_open(p->ops, &p->set, p->devs, &p->ncard);
    for (int k = 0; k < p->ncard && !st && p->set.trace; k++)
        st = hfft__trace_create(p->ops, p->devs[k], k, &p->trace[k]);
    if (!st && p->set.trace && p->ncard > 0)
        st = hfft__trace_group_make(p->trace, p->ncard);
    p->dev = p->ncard ? p->devs[0] : NULL;
    if (st) {
        hfft__release_engines(p);
        return st;
    }
    hfft__info_cards(p, p->ncard);
    return 0;
}
