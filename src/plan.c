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
#include "src/core/status.h"
#include "src/plan.h"
#include "src/problem.h"

#define KNOWN_FLAGS                                                                   \
    (HFFT_ESTIMATE | HFFT_MEASURE | HFFT_CPU_ONLY | HFFT_GPU_ONLY | HFFT_HYBRID |     \
     HFFT_SCHEDULE_PLAIN | HFFT_SCHEDULE_RADIX2 | HFFT_PRESERVE_INPUT | HFFT_DESTROY_INPUT | \
     HFFT_UNALIGNED | HFFT_TRANSPOSED_OUT | HFFT_TRANSPOSED_IN)
#define PLACEMENT_FLAGS (HFFT_CPU_ONLY | HFFT_GPU_ONLY | HFFT_HYBRID)

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

/* The engines of one build; the device and the pinned arrays stay. */
static void release_keep_device(hfft__plan *p) {
    hfft__whole_destroy(p->whole);
    p->whole = NULL;
    hfft__cards_destroy(p->gpu);
    p->gpu = NULL;
    hfft__cpu_destroy(p->cpu);
    p->cpu = NULL;
    hfft__pool_destroy(p->pool);
    p->pool = NULL;
}

static void release_engines(hfft__plan *p) {
    release_keep_device(p);
    if (p->dev) {
        hfft__place_release_all(&p->place);
        for (int k = p->ncard - 1; k >= 0; k--) {
            hfft__trace_destroy(p->trace[k]);
            p->trace[k] = NULL;
            p->ops->close(p->cards[k]);
            p->cards[k] = NULL;
        }
        p->ncard = 0;
        p->dev = NULL;
    }
}

void hfft__plan_destroy(hfft__plan *p) {
    if (!p)
        return;
    release_engines(p);
    hfft__free(p->mid);
    free(p->scratch);
    free(p);
}

static int cpu_threads(const hfft__plan *p, int reserve) {
    int t = p->set.threads > 0 ? p->set.threads : hfft__cores() - reserve;
    return t > 0 ? t : 1;
}

enum { SIDE_IN, SIDE_OUT, SIDE_MID };
static void round_sides(const hfft__plan *p, int h, int *src, int *dst);

static int make_gpu(hfft__plan *p, const hfft__choice *c) {
    hfft__gpu_req req;
    memset(&req, 0, sizeof req);
    req.prec = p->prec;
    req.sign = p->sign;
    req.nrounds = p->nrounds;
    req.rounds = p->rounds;
    for (int h = 0; h < p->nrounds; h++)
        req.units[h] = p->cut[h];
    req.schedule = c->schedule;
    req.pass_bytes = c->pass_bytes;
    req.slots = c->slots;
    req.inplace = p->in == p->out;
    for (int h = 0; h < p->nrounds; h++) {
        int ss, ds;
        round_sides(p, h, &ss, &ds);
        req.round_inplace[h] = ss == ds || (ss != SIDE_MID && ds != SIDE_MID && req.inplace);
    }
    hfft__card cards[HFFT_MAX_CARDS];
    for (int k = 0; k < p->ncard; k++)
        cards[k] = p->trace[k] ? (hfft__card){&hfft__trace_ops, hfft__trace_dev(p->trace[k])}
                               : (hfft__card){p->ops, p->cards[k]};
    return hfft__cards_create(cards, p->ncard, &req, &p->gpu);
}

static int make_cpu(hfft__plan *p, int reserve) {
    int threads = cpu_threads(p, reserve);
    int st = hfft__pool_create(threads, reserve, &p->pool);
    if (st)
        return st;
    p->info.threads = threads;
    return hfft__cpu_create(p->prec, p->sign, p->nrounds, p->rounds,
                            (p->flags & HFFT_MEASURE) != 0, p->pool, p->in, p->out, &p->cpu);
}

/* FFTW's flags for a whole-problem plan of this plan's problem. */
static unsigned whole_flags(const hfft__plan *p) {
    unsigned f = p->flags & HFFT_MEASURE ? HFFT__WHOLE_MEASURE : 0u;
    if (p->flags & HFFT_UNALIGNED)
        f |= HFFT__WHOLE_UNALIGNED;
    if (p->flags & HFFT_DESTROY_INPUT)
        f |= HFFT__WHOLE_DESTROY;
    /* out of place, c2c and r2c keep their input unless allowed otherwise; c2r
       only when asked (FFTW's defaults) */
    if (!p->pb.inplace && (p->flags & HFFT_PRESERVE_INPUT ||
                           (p->pb.kind != HFFT__C2R && !(p->flags & HFFT_DESTROY_INPUT))))
        f |= HFFT__WHOLE_PRESERVE;
    return f;
}

/* Where a scratch copy of the input puts each input array (same offsets). */
static void scratch_arrays(const hfft__plan *p, void *const in[2], void *res[2]) {
    size_t span = (size_t)(p->pb.hi[0] - p->pb.lo[0]);
    res[0] = (char *)p->scratch - p->pb.lo[0];
    res[1] = in[1] ? (char *)p->scratch + span - p->pb.lo[0] : NULL;
}

/*
 * The general path: FFTW's plan of the whole problem on its own threads, for
 * layouts the rounds do not take.  A c2r transform whose input must be kept
 * and that FFTW cannot plan so (every multi-dimensional one) runs on a copy
 * of its input in a host scratch.
 */
static int make_whole(hfft__plan *p) {
    unsigned f = whole_flags(p);
    int threads = cpu_threads(p, 0);
    p->info.threads = threads;
    p->info.cpu_plan = 1;
    int st = hfft__whole_plan(&p->pb, p->pb.in, p->pb.out, f, threads, &p->whole);
    if (st != HFFT_ERR_FFTW || !(f & HFFT__WHOLE_PRESERVE) || p->pb.kind != HFFT__C2R)
        return st;
    hfft__clear_error();
    size_t bytes = (size_t)(p->pb.hi[0] - p->pb.lo[0]) * (p->pb.split_in ? 2 : 1);
    p->scratch = aligned_alloc(64, (bytes + 63) & ~(size_t)63);
    if (!p->scratch)
        return hfft__fail(HFFT_ERR_HOST_MEMORY,
                          "c2r with HFFT_PRESERVE_INPUT: a copy of the input (%s)",
                          hfft__bytes_text((double)bytes).s);
    p->info.host_bytes += (int64_t)bytes;
    void *in[2];
    scratch_arrays(p, p->pb.in, in);
    return hfft__whole_plan(&p->pb, in, p->pb.out, f & ~HFFT__WHOLE_PRESERVE, threads,
                            &p->whole);
}

/*
 * CPU only, under HFFT_MEASURE: FFTW's own plan of the whole array (its
 * threads, FFTW_MEASURE) against our rounds of batched lines; the faster
 * stays.  FFTW's multi-dimensional plans win where the array is small enough
 * for their cache blocking, ours on arrays of many gigabytes, so only arrays
 * up to WHOLE_MAX are tried.  Planning and timing run on scratch copies: the
 * caller's arrays are not touched.
 */
#define WHOLE_MAX ((size_t)1 << 30)
static int try_whole(hfft__plan *p) {
    size_t bytes = (size_t)p->total * p->esize;
    if (bytes > WHOLE_MAX)
        return 0;
    int inplace = p->in == p->out;
    char *a = aligned_alloc(64, (bytes + 63) & ~(size_t)63);
    char *b = inplace ? a : aligned_alloc(64, (bytes + 63) & ~(size_t)63);
    if (!a || !b) {
        free(a);
        if (b != a)
            free(b);
        return 0; /* no room to try: keep the rounds */
    }
    /* new-array execution needs the caller's alignment, which may be less */
    unsigned f = HFFT__WHOLE_MEASURE | (p->flags & HFFT_DESTROY_INPUT ? HFFT__WHOLE_DESTROY : 0u);
    if (((uintptr_t)p->in & 63u) || ((uintptr_t)p->out & 63u) || (p->flags & HFFT_UNALIGNED))
        f |= HFFT__WHOLE_UNALIGNED;
    void *ia[2] = {a, NULL}, *oa[2] = {b, NULL};
    hfft__whole *whole = NULL;
    int st = 0;
    if (hfft__whole_plan(&p->pb, ia, oa, f, hfft__pool_size(p->pool), &whole) != 0) {
        hfft__clear_error(); /* our rounds are planned already: keep them */
    } else {
        memset(a, 0, bytes);
        double t_whole = 1e300, t_rounds = 1e300;
        for (int rep = 0; rep < 2 && !st; rep++) {
            double t0 = hfft__now();
            hfft__whole_exec(whole, p->sign, ia, oa);
            double t1 = hfft__now();
            st = hfft__plan_execute(p, ia, oa);
            double t2 = hfft__now();
            if (rep) {
                t_whole = t1 - t0;
                t_rounds = t2 - t1;
            }
        }
        if (!st && t_whole < t_rounds)
            p->whole = whole;
        else
            hfft__whole_destroy(whole);
    }
    free(a);
    if (b != a)
        free(b);
    p->info.cpu_plan = p->whole != NULL;
    return st;
}

static int staging_threads(const hfft__plan *p) { return cpu_threads(p, 1); }

/* The GPU engine's host arrays: pinned, registered or staged (place.c). */
static int place_arrays(hfft__plan *p) {
    p->place.ops = p->ops;
    p->place.dev = p->dev;
    int st = hfft__place_arrays(&p->place, p->in, (size_t)p->pb.hi[0], p->out,
                                (size_t)p->pb.hi[1], p->set.pinning, p->gpu,
                                staging_threads(p));
    p->info.host_pinned = p->place.host_pinned;
    return st;
}

/*
 * HFFT_MEASURE with HFFT_PINNING=auto, on arrays the plan registered: one
 * execute with the arrays registered, one staged (each after a warm-up, on
 * the plan's arrays, which MEASURE may overwrite); the faster stays, and a
 * staged plan gives the registration back.
 */
static int choose_pinning(hfft__plan *p) {
    if (!p->gpu || p->info.host_pinned != 1 || p->set.pinning != HFFT_PINNING_AUTO ||
        !(p->flags & HFFT_MEASURE))
        return 0;
    double t[2] = {0, 0};
    for (int staged = 0; staged < 2; staged++) {
        int st = staged ? hfft__cards_stage(p->gpu, 1, staging_threads(p)) : 0;
        if (st == HFFT_ERR_UNSUPPORTED) {
            hfft__clear_error(); /* radix-2 or long lines: registered it is */
            return 0;
        }
        for (int rep = 0; rep < 2 && !st; rep++) {
            double t0 = hfft__now();
            st = hfft__plan_execute(p, p->pb.in, p->pb.out);
            t[staged] = hfft__now() - t0;
        }
        if (st) {
            (void)hfft__cards_stage(p->gpu, 0, 0);
            return hfft__fail_context(st, "HFFT_MEASURE, timing %s arrays",
                                      staged ? "staged" : "registered");
        }
    }
    if (t[1] < t[0]) {
        hfft__place_release(&p->place);
        p->info.host_pinned = 0;
    } else {
        (void)hfft__cards_stage(p->gpu, 0, 0);
    }
    return 0;
}

/*
 * The arrays each round reads and writes: the input, the output, or the mid
 * array that holds what lies between two rounds where the output cannot (a
 * c2r transform's complex rounds: the input itself, or a copy where it must be
 * kept; a four-step split in natural order: the input where it may be
 * overwritten, else a copy).  One trip needs none: the device holds it.
 */
static void round_sides(const hfft__plan *p, int h, int *src, int *dst) {
    const hfft__round *r = &p->rounds[h];
    int last = h == p->nrounds - 1;
    if (p->pb.kind == HFFT__C2R) {
        *src = h == 0 ? SIDE_IN : SIDE_MID;
        *dst = last ? SIDE_OUT : SIDE_MID;
        return;
    }
    *src = h == 0 ? SIDE_IN : r->src_mid ? SIDE_MID : SIDE_OUT;
    *dst = r->dst_mid ? SIDE_MID : SIDE_OUT;
}

static void *side_array(const hfft__plan *p, int side, void *in, void *out) {
    return side == SIDE_IN ? in : side == SIDE_OUT ? out : p->mid ? p->mid : in;
}

static int make_mid(hfft__plan *p) {
    int mids = 0;
    for (int h = 0; h < p->nrounds; h++)
        mids |= p->rounds[h].src_mid || p->rounds[h].dst_mid;
    int c2r = p->pb.kind == HFFT__C2R && p->nrounds > 1;
    if ((!mids && !c2r) || (p->gpu && hfft__cards_one_trip(p->gpu)) || p->mid)
        return 0;
    /* the input may serve: c2r unless it must be kept; a four-step split where it may
       be overwritten and is not the output */
    if (c2r ? p->pb.inplace || !(p->flags & HFFT_PRESERVE_INPUT)
            : !p->pb.inplace && (p->flags & HFFT_DESTROY_INPUT))
        return 0;
    size_t bytes = (size_t)(p->pb.hi[c2r ? 0 : 1]);
    p->mid = hfft__malloc(bytes);
    if (!p->mid)
        return hfft__fail_context(HFFT_ERR_HOST_MEMORY, "%s: a host array of %s between rounds",
                                  c2r ? "c2r with HFFT_PRESERVE_INPUT" : "a four-step split",
                                  hfft__bytes_text((double)bytes).s);
    p->info.host_bytes += (int64_t)bytes;
    return 0;
}

/* Some round has fewer units than the CPU has threads, and they are long. */
static int few_units(const hfft__plan *p) {
    if (p->pb.kind != HFFT__C2C)
        return 0;
    int threads = cpu_threads(p, 0);
    for (int h = 0; h < p->nrounds; h++) {
        const hfft__round *r = &p->rounds[h];
        if (hfft__round_units(r) < threads && r->L * (int64_t)p->esize >= (1 << 20))
            return 1;
    }
    return 0;
}

/* Engines for the chosen placement: c->ratio[h] in [0, 1] is round h's GPU share. */
static int build(hfft__plan *p, const hfft__choice *c, int split) {
    p->nrounds = hfft__dense_rounds(&p->dense, p->pb.kind, split, p->split_line, p->rounds);
    if (p->nrounds < 0)
        return p->nrounds;
    for (int h = 0; h < p->nrounds; h++) {
        int64_t u = hfft__round_units(&p->rounds[h]);
        int64_t cut = p->dev ? (int64_t)(c->ratio[h] * (double)u + 0.5) : 0;
        if (p->dev && (p->pb.kind != HFFT__C2C || p->split_line))
            cut = u; /* real-data transforms, four-step splits: the GPU takes every unit */
        p->cut[h] = cut < 0 ? 0 : cut > u ? u : cut;
        /* HFFT_HYBRID means both sides work, however few the units. */
        if ((p->flags & HFFT_HYBRID) && p->dev && u >= 2 && !c->fixed[h] &&
            p->pb.kind == HFFT__C2C && !p->split_line) {
            if (p->cut[h] == u)
                p->cut[h] = u - 1;
            if (p->cut[h] == 0)
                p->cut[h] = 1;
        }
        p->info.ratio[h] = u ? (double)p->cut[h] / (double)u : 0.0;
    }
    int any_gpu = 0, any_cpu = 0;
    for (int h = 0; h < p->nrounds; h++) {
        any_gpu |= p->cut[h] > 0;
        any_cpu |= p->cut[h] < hfft__round_units(&p->rounds[h]);
    }
    int st = 0;
    if (any_gpu)
        st = make_gpu(p, c);
    if (!st && !any_gpu && few_units(p)) {
        /* CPU only, and fewer lines than threads in some round (one long 1D line):
           our rounds would leave cores idle; FFTW's threaded plan of the whole
           problem uses them all */
        p->info.placement = 0;
        return make_whole(p);
    }
    if (!st && any_cpu)
        st = make_cpu(p, any_gpu ? 1 : 0);
    if (!st && any_gpu)
        st = place_arrays(p);
    if (!st)
        st = make_mid(p);
    if (!st && !any_gpu && (p->flags & HFFT_MEASURE))
        st = try_whole(p);
    p->info.placement = !any_gpu ? 0 : any_cpu ? 2 : 1;
    return st;
}

/* Builds for c, splitting planes into rounds of their own where a plane
   cannot fit a pass. */
static int build_any(hfft__plan *p, const hfft__choice *c) {
    int st = build(p, c, 0);
    int planes = 0;
    for (int h = 0; h < p->nrounds; h++)
        planes |= p->rounds[h].rank == 2;
    if (st == HFFT_ERR_BUDGET && planes) {
        release_keep_device(p);
        hfft__clear_error();
        st = build(p, c, 1);
    }
    return st;
}

/*
 * HFFT_MEASURE with nothing known: run the transform GPU-only, then with the
 * probe share, and read each round's GPU and CPU sides; the model turns that
 * into the share per round.  Three executions on the plan's arrays, which it
 * overwrites, as FFTW_MEASURE does.
 */
static int measure(hfft__plan *p, hfft__choice *c) {
    hfft__choice probe = *c;
    double t1[HFFT__MAX_ROUNDS] = {0}, tg[HFFT__MAX_ROUNDS] = {0}, tc[HFFT__MAX_ROUNDS] = {0};
    for (int h = 0; h < HFFT__MAX_ROUNDS; h++)
        probe.ratio[h] = c->fixed[h] ? c->ratio[h] : 1.0;
    int st = build_any(p, &probe);
    if (!st && p->gpu && hfft__cards_one_trip(p->gpu)) {
        /* The array fits the device: a CPU share would send part of it through the
           link twice, for arithmetic the GPU does in no time. */
        release_keep_device(p);
        for (int h = 0; h < HFFT__MAX_ROUNDS; h++)
            c->ratio[h] = probe.ratio[h];
        return 0;
    }
    for (int rep = 0; !st && rep < 2; rep++)
        st = hfft__plan_execute(p, p->pb.in, p->pb.out);
    for (int h = 0; !st && h < p->nrounds; h++)
        t1[h] = p->info.measured_seconds[h];
    release_keep_device(p);
    for (int h = 0; h < HFFT__MAX_ROUNDS; h++)
        probe.ratio[h] = c->fixed[h] ? c->ratio[h] : HFFT__PROBE_SHARE;
    if (!st)
        st = build_any(p, &probe);
    if (!st)
        st = hfft__plan_execute(p, p->pb.in, p->pb.out);
    for (int h = 0; !st && h < p->nrounds; h++) {
        tg[h] = p->info.measured_gpu[h];
        tc[h] = p->info.measured_cpu[h];
    }
    release_keep_device(p);
    if (st)
        return hfft__fail_context(st, "HFFT_MEASURE probe");
    double bytes = (double)p->total * (double)p->esize;
    for (int h = 0; h < p->nrounds; h++) {
        if (c->fixed[h])
            continue;
        hfft__round_model m;
        c->ratio[h] = hfft__balance_fit(c, bytes, t1[h], probe.ratio[h], tg[h], tc[h], &m,
                                        &c->predicted[h]);
    }
    return 0;
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
static const char *not_dense(const hfft__problem *pb, unsigned flags) {
    if (pb->unpadded)
        return "an in-place real layout other than FFTW's padded one";
    if (pb->kind != HFFT__C2C && (flags & HFFT_HYBRID))
        return "a real-data transform, whose rounds the GPU takes whole";
    if (pb->kind != HFFT__C2C)
        return "a real-data transform, which FFTW runs whole on the CPU";
    if (pb->split_in || pb->split_out)
        return "split arrays";
    if (pb->rank == 0)
        return "a rank-0 transform (a copy)";
    return "strides that make no dense row-major array";
}

/* Layouts the rounds do not take: FFTW's plan of the whole problem, on the CPU. */
static int plan_general(hfft__plan *p, unsigned flags) {
    const char *why = not_dense(&p->pb, flags);
    if (flags & (HFFT_GPU_ONLY | HFFT_HYBRID))
        return hfft__fail(HFFT_ERR_UNSUPPORTED,
                          "%s: the GPU engine takes dense arrays, and this problem is or has "
                          "%s; plan it without %s to run it on the CPU",
                          flags & HFFT_GPU_ONLY ? "HFFT_GPU_ONLY" : "HFFT_HYBRID", why,
                          flags & HFFT_GPU_ONLY ? "HFFT_GPU_ONLY" : "HFFT_HYBRID");
    if (p->info.device != HFFT_DEVICE_NONE)
        snprintf(p->info.note, sizeof p->info.note,
                 "on the CPU (FFTW's plan of the whole problem): the GPU engine takes dense "
                 "arrays, and this problem is or has %s", why);
    p->info.device = HFFT_DEVICE_NONE;
    snprintf(p->info.device_name, sizeof p->info.device_name, "none");
    p->info.rounds = 1;
    return make_whole(p);
}

/*
 * A four-step split of the last dimension: asked for (HFFT_TRANSPOSED_*: 1D
 * complex transforms), or where a line of it would take more than an eighth
 * of the device budget (its rounds then move whole lines in few passes).
 */
static int pick_split(hfft__plan *p, unsigned flags, int kind) {
    const hfft__dense *dn = &p->dense;
    int64_t last = dn->d[dn->ndim - 1];
    if (flags & (HFFT_TRANSPOSED_OUT | HFFT_TRANSPOSED_IN)) {
        if (p->pb.kind != HFFT__C2C || p->pb.rank != 1)
            return hfft__fail(HFFT_ERR_INVALID_ARGUMENT,
                              "HFFT_TRANSPOSED_OUT and _IN apply to 1D complex transforms");
        if (kind == HFFT_DEVICE_NONE)
            return hfft__fail(HFFT_ERR_UNSUPPORTED,
                              "HFFT_TRANSPOSED_OUT and _IN: the CPU engine does not compute the "
                              "transposed order; use a device (HFFT_DEVICE=cuda or emulated)");
        p->split_line = flags & HFFT_TRANSPOSED_OUT ? HFFT__ORDER_TRANSPOSED_OUT
                                                    : HFFT__ORDER_TRANSPOSED_IN;
    } else if (kind != HFFT_DEVICE_NONE && p->pb.kind == HFFT__C2C &&
               (dn->tmask >> (dn->ndim - 1) & 1u) && hfft__split_n1(last) > 1 &&
               (double)last * (double)p->esize * 8.0 > (double)p->info.device_budget) {
        p->split_line = HFFT__ORDER_NATURAL;
    }
    if (p->split_line) {
        p->info.split[1] = hfft__split_n1(last);
        p->info.split[0] = last / p->info.split[1];
    }
    return 0;
}

static int open_cards(hfft__plan *p, int kind);

hfft__plan *hfft__plan_create(const hfft__problem *pb, unsigned flags, const hfft_options *opts) {
    if (check_flags(flags))
        return NULL;
    hfft__plan *p = calloc(1, sizeof *p);
    if (!p) {
        hfft__fail(HFFT_ERR_HOST_MEMORY, "plan: out of memory");
        return NULL;
    }
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
    for (int i = 0; i < pb->rank; i++)
        p->info.n[i] = pb->n[i];
    p->info.howmany = pb->howmany;
    p->info.precision = pb->prec;
    snprintf(p->info.device_name, sizeof p->info.device_name, "none");

    int kind = HFFT_DEVICE_NONE;
    int st = hfft__settings_resolve(opts, &p->set);
    if (!st)
        st = pick_device(p, flags, &kind);
    if (st) {
        free(p);
        return NULL;
    }
    p->info.device = kind;
    if (pb->howmany == 0) {
        p->info.device = HFFT_DEVICE_NONE;
        return p; /* nothing to transform */
    }
    int dense = hfft__problem_dense(pb, &p->dense);
    if (!dense || (pb->kind != HFFT__C2C && (kind == HFFT_DEVICE_NONE || (flags & HFFT_HYBRID)))) {
        if (plan_general(p, flags)) {
            hfft__plan_destroy(p);
            return NULL;
        }
        hfft__clear_error();
        return p;
    }

    hfft__choice c;
    memset(&c, 0, sizeof c);
    if (kind != HFFT_DEVICE_NONE) {
        if (open_cards(p, kind)) {
            free(p);
            return NULL;
        }
        st = pick_split(p, flags, kind);
        if (!st)
            st = hfft__balance(&p->pb, &p->set, p->ops, p->dev, flags, &c);
        if (!st && c.measure)
            st = measure(p, &c);
        p->info.wisdom = c.wisdom;
        snprintf(p->info.wisdom_note, sizeof p->info.wisdom_note, "%s", c.note);
    }
    if (!st && kind == HFFT_DEVICE_NONE)
        st = pick_split(p, flags, kind);
    /* A placement asked for (flags, a schedule, fixed shares) stands or fails.  A device that is
       only named in the settings, or found, never turns a valid problem into an
       error: a problem its engine cannot take (a line longer than the budget with no
       factor to cut it by, a budget too small for any pass) runs on the CPU, and
       hfft_info.note says why.  A named device's failures (its memory, CUDA, cuFFT)
       stay errors: only the automatic placement moves past them. */
    int asked_gpu = (flags & (HFFT_GPU_ONLY | HFFT_HYBRID | HFFT_SCHEDULE_PLAIN |
                              HFFT_SCHEDULE_RADIX2)) != 0;
    for (int h = 0; h < HFFT__MAX_ROUNDS; h++)
        asked_gpu |= c.fixed[h];
    int named = kind == HFFT_DEVICE_EMULATED || p->set.device == HFFT_DEVICE_CUDA;
    if (!st)
        st = build_any(p, &c);
    int engine_refused = st == HFFT_ERR_BUDGET || st == HFFT_ERR_UNSUPPORTED ||
                         (!named && (st == HFFT_ERR_DEVICE_MEMORY || st == HFFT_ERR_CUDA ||
                                     st == HFFT_ERR_CUFFT));
    if (st && engine_refused && !asked_gpu && p->dev && p->split_line <= HFFT__ORDER_NATURAL) {
        char why[sizeof p->info.note], was[sizeof p->info.device_name];
        snprintf(why, sizeof why, "%s", hfft_last_error_message());
        snprintf(was, sizeof was, "%s", p->info.device_name);
        p->split_line = 0;
        p->info.split[0] = p->info.split[1] = 0;
        release_engines(p);
        p->ops = NULL;
        p->info.device = HFFT_DEVICE_NONE;
        p->info.device_budget = 0;
        p->info.cards = 0;
        snprintf(p->info.device_name, sizeof p->info.device_name, "none");
        hfft__clear_error();
        memset(&c, 0, sizeof c);
        if (p->pb.kind != HFFT__C2C) {
            /* real data on the CPU: FFTW's plan of the whole problem */
            p->info.rounds = 1;
            st = make_whole(p);
        } else {
            st = build(p, &c, 0);
        }
        if (!st)
            snprintf(p->info.note, sizeof p->info.note, "on the CPU, not on %.48s: %.180s", was,
                     why);
    }
    if (!st)
        st = choose_pinning(p);
    if (st) {
        hfft__plan_destroy(p);
        return NULL;
    }
    for (int h = 0; h < HFFT__MAX_ROUNDS; h++)
        p->info.predicted_seconds[h] = c.predicted[h];
    p->info.rounds = p->whole ? 1 : p->nrounds; /* FFTW's whole-array plan: one */
    if (p->gpu)
        hfft__cards_fill_info(p->gpu, &p->info);
    p->info.host_bytes += hfft__cpu_host_bytes(p->cpu);
    hfft__clear_error();
    return p;
}

int hfft__plan_adopt(hfft__plan *p, void *const in[2], void *const out[2]) {
    if (!p->gpu)
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
    int st = hfft__place_new(&p->place, ptrs, bytes, n, p->set.pinning, p->gpu,
                             staging_threads(p));
    p->info.host_pinned = p->place.host_pinned;
    p->info.pin_seconds = p->place.pin_seconds;
    p->info.pinned_bytes = p->place.cache_bytes;
    return st;
}

/* The whole-problem plan: on a scratch copy of the input where it must be kept. */
static void run_whole(hfft__plan *p, void *const in[2], void *const out[2]) {
    if (!p->scratch) {
        hfft__whole_exec(p->whole, p->sign, in, out);
        return;
    }
    size_t span = (size_t)(p->pb.hi[0] - p->pb.lo[0]);
    void *sin[2];
    scratch_arrays(p, in, sin);
    for (int k = 0; k < 2 && in[k]; k++)
        memcpy((char *)sin[k] + p->pb.lo[0], (const char *)in[k] + p->pb.lo[0], span);
    hfft__whole_exec(p->whole, p->sign, sin, out);
}

int hfft__plan_execute(hfft__plan *p, void *const in_[2], void *const out_[2]) {
    int st = 0;
    if (p->pb.howmany == 0)
        return 0;
    if (p->whole) {
        double t0 = hfft__now();
        run_whole(p, in_, out_);
        p->info.measured_seconds[0] = p->info.measured_cpu[0] = hfft__now() - t0;
        for (int h = 1; h < HFFT__MAX_ROUNDS; h++)
            p->info.measured_seconds[h] = p->info.measured_cpu[h] = 0.0;
        return 0;
    }
    void *in = in_[0], *out = out_[0];
    for (int k = 0; k < p->ncard && p->gpu; k++)
        if (p->trace[k] && (st = hfft__trace_begin(p->trace[k])))
            return st;
    if (p->gpu && hfft__cards_one_trip(p->gpu)) {
        /* every round at once; the first fast round's time is the copy in with the
           fast dimensions, the slow round's the rest (hfft__gpu_times) */
        for (int h = 0; h < HFFT__MAX_ROUNDS; h++)
            p->info.measured_seconds[h] = p->info.measured_gpu[h] = p->info.measured_cpu[h] = 0;
        st = hfft__cards_run(p->gpu, 0, in, out, 1);
        hfft__cards_times(p->gpu, p->info.measured_seconds);
        for (int h = 0; h < p->nrounds; h++)
            p->info.measured_gpu[h] = p->info.measured_seconds[h];
    }
    for (int h = 0; h < p->nrounds && !st && !(p->gpu && hfft__cards_one_trip(p->gpu)); h++) {
        double t0 = hfft__now();
        int ss, ds;
        round_sides(p, h, &ss, &ds);
        const void *src = side_array(p, ss, in, out);
        void *dst = side_array(p, ds, in, out);
        int64_t units = hfft__round_units(&p->rounds[h]);
        int cpu_part = p->cpu && p->cut[h] < units;
        if (cpu_part)
            hfft__cpu_start(p->cpu, h, src, dst, p->cut[h], units);
        p->info.measured_gpu[h] = p->info.measured_cpu[h] = 0.0;
        if (p->gpu && p->cut[h] > 0) {
            /* GPU-only rounds meet without a drain; the CPU's part of a round needs
               the GPU's part of the round before in host memory */
            int drain = h == p->nrounds - 1 || p->cpu != NULL;
            st = hfft__cards_run(p->gpu, h, src, dst, drain);
            p->info.measured_gpu[h] = hfft__now() - t0;
        }
        if (cpu_part) {
            int cst = hfft__cpu_finish(p->cpu);
            if (!st)
                st = cst;
            p->info.measured_cpu[h] = hfft__pool_done_at(p->pool) - t0;
        }
        p->info.measured_seconds[h] = hfft__now() - t0;
    }
    if (p->gpu)
        hfft__cards_take_link(p->gpu, p->info.link_bytes);
    if (st)
        return hfft__fail_context(st, in == out ? "execute failed; the in-place array is undefined"
                                                : "execute failed; the input is untouched and the "
                                                  "output undefined");
    return 0;
}

int hfft__plan_trace(hfft__plan *p, hfft_trace_op *ops, int max) {
    if (!p->trace[0] || !p->gpu)
        return hfft__fail(HFFT_ERR_INVALID_ARGUMENT,
                          p->gpu ? "plan_trace: the plan was made without hfft_options.trace "
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
    int ids[HFFT_MAX_CARDS], n = p->set.ncard;
    int seen = p->ops->count();
    if (n > 0) {
        memcpy(ids, p->set.card, (size_t)n * sizeof *ids);
        for (int k = 0; k < n; k++)
            if (ids[k] >= seen)
                return hfft__fail(HFFT_ERR_NO_DEVICE,
                                  "devices: card %d asked for; the %s backend sees %d", ids[k],
                                  p->ops->name, seen);
    } else {
        n = kind == HFFT_DEVICE_EMULATED || seen < 1 ? 1 : seen;
        n = n > HFFT_MAX_CARDS ? HFFT_MAX_CARDS : n;
        for (int k = 0; k < n; k++)
            ids[k] = n == 1 ? -1 : k; /* one card: the current one */
    }
    int st = 0;
    for (int k = 0; k < n && !st; k++) {
        st = p->ops->open_card(ids[k], p->set.budget, k ? p->cards[0] : NULL, &p->cards[k]);
        if (!st)
            p->ncard = k + 1;
        if (!st && p->set.trace)
            st = hfft__trace_create(p->ops, p->cards[k], k, &p->trace[k]);
    }
    p->dev = p->ncard ? p->cards[0] : NULL;
    if (st) {
        release_engines(p);
        return st;
    }
    p->info.cards = n;
    p->info.device_budget = 0;
    for (int k = 0; k < n; k++) {
        p->info.card_ids[k] = p->ops->ordinal(p->cards[k]);
        p->info.device_budget += p->ops->budget(p->cards[k]);
    }
    if (n > 1)
        snprintf(p->info.device_name, sizeof p->info.device_name, "%d x %s", n,
                 p->ops->describe(p->dev));
    else
        snprintf(p->info.device_name, sizeof p->info.device_name, "%s", p->ops->describe(p->dev));
    return 0;
}
