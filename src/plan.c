/*
 * plan.c: plan creation and execution, precision-neutral.  It checks the
 * arguments, turns the array into rounds of 1D (or plane) transforms, decides
 * where each round's transforms run (GPU engine, CPU executor, or both with a
 * work ratio), pins the host arrays for the GPU, and runs the rounds with a
 * synchronisation between them.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "balancer/balancer.h"
#include "src/core/status.h"
#include "src/plan.h"

#define KNOWN_FLAGS                                                                   \
    (HFFT_ESTIMATE | HFFT_MEASURE | HFFT_CPU_ONLY | HFFT_GPU_ONLY | HFFT_HYBRID |     \
     HFFT_SCHEDULE_PLAIN | HFFT_SCHEDULE_RADIX2)
#define PLACEMENT_FLAGS (HFFT_CPU_ONLY | HFFT_GPU_ONLY | HFFT_HYBRID)

static int popcount(unsigned v) { return __builtin_popcount(v); }

static int check_args(int prec, int rank, const int64_t *n, const void *in, const void *out,
                      int sign, unsigned flags, int64_t *total) {
    if (rank < 1 || rank > 3)
        return hfft__fail(HFFT_ERR_INVALID_ARGUMENT, "rank %d: must be 1, 2 or 3", rank);
    if (!n)
        return hfft__fail(HFFT_ERR_INVALID_ARGUMENT, "sizes: NULL");
    int64_t t = 1;
    for (int i = 0; i < rank; i++) {
        if (n[i] < 1)
            return hfft__fail(HFFT_ERR_INVALID_ARGUMENT, "n[%d] = %lld: sizes must be positive", i,
                              (long long)n[i]);
        if (hfft__mul_overflows(t, n[i], &t))
            return hfft__fail(HFFT_ERR_INVALID_ARGUMENT, "element count overflows 64 bits");
    }
    int64_t bytes;
    if (hfft__mul_overflows(t, 2 * (int64_t)prec, &bytes) || (uint64_t)bytes > SIZE_MAX / 2)
        return hfft__fail(HFFT_ERR_INVALID_ARGUMENT,
                          "%lld elements: the byte count overflows size_t", (long long)t);
    if (!in || !out)
        return hfft__fail(HFFT_ERR_INVALID_ARGUMENT, "%s array is NULL", !in ? "input" : "output");
    if (in != out) {
        uintptr_t a = (uintptr_t)in, b = (uintptr_t)out;
        if (a < b + (uintptr_t)bytes && b < a + (uintptr_t)bytes)
            return hfft__fail(HFFT_ERR_INVALID_ARGUMENT,
                              "input and output overlap partially: use in == out for in-place");
    }
    if (sign != HFFT_FORWARD && sign != HFFT_BACKWARD)
        return hfft__fail(HFFT_ERR_INVALID_ARGUMENT, "sign %d: use HFFT_FORWARD or HFFT_BACKWARD",
                          sign);
    if (flags & ~(unsigned)KNOWN_FLAGS)
        return hfft__fail(HFFT_ERR_INVALID_ARGUMENT, "unknown flag bits 0x%x",
                          flags & ~(unsigned)KNOWN_FLAGS);
    if (popcount(flags & PLACEMENT_FLAGS) > 1)
        return hfft__fail(HFFT_ERR_INVALID_ARGUMENT,
                          "flags: at most one of HFFT_CPU_ONLY, HFFT_GPU_ONLY, HFFT_HYBRID");
    if ((flags & HFFT_SCHEDULE_PLAIN) && (flags & HFFT_SCHEDULE_RADIX2))
        return hfft__fail(HFFT_ERR_INVALID_ARGUMENT,
                          "flags: HFFT_SCHEDULE_PLAIN and HFFT_SCHEDULE_RADIX2 together");
    if ((flags & HFFT_ESTIMATE) && (flags & HFFT_MEASURE))
        return hfft__fail(HFFT_ERR_INVALID_ARGUMENT, "flags: HFFT_ESTIMATE and HFFT_MEASURE together");
    *total = t;
    return 0;
}

/* Rounds for the squeezed shape; `split_planes` breaks 3D planes into two rounds. */
static int make_rounds(int rank, const int64_t *n, int split_planes, hfft__round *r) {
    memset(r, 0, 3 * sizeof *r);
    for (int i = 0; i < 3; i++)
        r[i].rank = 1;
    if (rank == 1) {
        r[0] = (hfft__round){1, n[0], {0, 0}, 1, 1, 1, n[0]};
        return 1;
    }
    if (rank == 2) {
        r[0] = (hfft__round){1, n[0], {0, 0}, n[1], n[1], 1, n[0] * n[1]};
        r[1] = (hfft__round){1, n[1], {0, 0}, 1, 1, n[0], n[1]};
        return 2;
    }
    int64_t plane = n[1] * n[2];
    r[0] = (hfft__round){1, n[0], {0, 0}, plane, plane, 1, n[0] * plane};
    if (!split_planes) {
        r[1] = (hfft__round){2, plane, {n[1], n[2]}, 1, 1, n[0], plane};
        return 2;
    }
    r[1] = (hfft__round){1, n[1], {0, 0}, n[2], n[2], n[0], plane};
    r[2] = (hfft__round){1, n[2], {0, 0}, 1, 1, n[0] * n[1], n[2]};
    return 3;
}

/* The engines of one build; the device and the pinned arrays stay. */
static void release_keep_device(hfft__plan *p) {
    hfft__lines_destroy(p->whole);
    p->whole = NULL;
    hfft__gpu_destroy(p->gpu);
    p->gpu = NULL;
    hfft__cpu_destroy(p->cpu);
    p->cpu = NULL;
    hfft__pool_destroy(p->pool);
    p->pool = NULL;
}

static void release_engines(hfft__plan *p) {
    release_keep_device(p);
    if (p->dev) {
        hfft__place_release(&p->place);
        p->ops->close(p->dev);
        p->dev = NULL;
    }
}

void hfft__plan_destroy(hfft__plan *p) {
    if (!p)
        return;
    release_engines(p);
    free(p);
}

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
    return hfft__gpu_create(p->ops, p->dev, &req, &p->gpu);
}

static int make_cpu(hfft__plan *p, int reserve) {
    int threads = p->set.threads > 0 ? p->set.threads : hfft__cores() - reserve;
    if (threads < 1)
        threads = 1;
    int st = hfft__pool_create(threads, reserve, &p->pool);
    if (st)
        return st;
    p->info.threads = threads;
    return hfft__cpu_create(p->prec, p->sign, p->nrounds, p->rounds,
                            (p->flags & HFFT_MEASURE) != 0, p->pool, p->in, p->out, &p->cpu);
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
    hfft__lines_desc d;
    memset(&d, 0, sizeof d);
    d.prec = p->prec;
    d.sign = p->sign;
    d.rank = p->rank;
    for (int k = 0; k < p->rank; k++)
        d.n[k] = p->n[k];
    d.is = d.os = 1;
    d.howmany = 1;
    d.idist = d.odist = p->total;
    d.inplace = inplace;
    d.fftw_flags = hfft__fftw_measure();
    /* new-array execution needs the caller's alignment, which may be less */
    if (((uintptr_t)p->in & 63u) || ((uintptr_t)p->out & 63u))
        d.fftw_flags |= hfft__fftw_unaligned();
    d.plan_in = a;
    d.plan_out = b;
    d.nthreads = hfft__pool_size(p->pool);
    hfft__lines *whole = NULL;
    int st = 0;
    if (hfft__lines_plan(&d, &whole) != 0) {
        hfft__clear_error(); /* our rounds are planned already: keep them */
    } else {
        memset(a, 0, bytes);
        double t_whole = 1e300, t_rounds = 1e300;
        for (int rep = 0; rep < 2 && !st; rep++) {
            double t0 = hfft__now();
            hfft__lines_exec(whole, a, b);
            double t1 = hfft__now();
            st = hfft__plan_execute(p, a, b);
            double t2 = hfft__now();
            if (rep) {
                t_whole = t1 - t0;
                t_rounds = t2 - t1;
            }
        }
        if (!st && t_whole < t_rounds)
            p->whole = whole;
        else
            hfft__lines_destroy(whole);
    }
    free(a);
    if (b != a)
        free(b);
    p->info.cpu_plan = p->whole != NULL;
    return st;
}

static int staging_threads(const hfft__plan *p) {
    int t = p->set.threads > 0 ? p->set.threads : hfft__cores() - 1;
    return t > 0 ? t : 1;
}

/* The GPU engine's host arrays: pinned, registered or staged (place.c). */
static int place_arrays(hfft__plan *p) {
    p->place.ops = p->ops;
    p->place.dev = p->dev;
    int st = hfft__place_arrays(&p->place, p->in, p->out, (size_t)p->total * p->esize,
                                p->set.pinning, p->gpu, staging_threads(p));
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
        int st = staged ? hfft__gpu_stage(p->gpu, 1, staging_threads(p)) : 0;
        if (st == HFFT_ERR_UNSUPPORTED) {
            hfft__clear_error(); /* radix-2 or long lines: registered it is */
            return 0;
        }
        for (int rep = 0; rep < 2 && !st; rep++) {
            double t0 = hfft__now();
            st = hfft__plan_execute(p, p->in, p->out);
            t[staged] = hfft__now() - t0;
        }
        if (st) {
            (void)hfft__gpu_stage(p->gpu, 0, 0);
            return hfft__fail_context(st, "HFFT_MEASURE, timing %s arrays",
                                      staged ? "staged" : "registered");
        }
    }
    if (t[1] < t[0]) {
        hfft__place_release(&p->place);
        p->info.host_pinned = 0;
    } else {
        (void)hfft__gpu_stage(p->gpu, 0, 0);
    }
    return 0;
}

/* Engines for the chosen placement: c->ratio[h] in [0, 1] is round h's GPU share. */
static int build(hfft__plan *p, const hfft__choice *c, int split) {
    p->nrounds = make_rounds(p->rank, p->n, split, p->rounds);
    for (int h = 0; h < p->nrounds; h++) {
        int64_t u = hfft__round_units(&p->rounds[h]);
        int64_t cut = p->dev ? (int64_t)(c->ratio[h] * (double)u + 0.5) : 0;
        p->cut[h] = cut < 0 ? 0 : cut > u ? u : cut;
        /* HFFT_HYBRID means both sides work, however few the units. */
        if ((p->flags & HFFT_HYBRID) && p->dev && u >= 2 && !c->fixed[h]) {
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
    if (!st && any_cpu)
        st = make_cpu(p, any_gpu ? 1 : 0);
    if (!st && any_gpu)
        st = place_arrays(p);
    if (!st && !any_gpu && (p->flags & HFFT_MEASURE))
        st = try_whole(p);
    p->info.placement = !any_gpu ? 0 : any_cpu ? 2 : 1;
    return st;
}

/* Builds for c, splitting 3D planes into rounds of their own where a plane
   cannot fit a pass. */
static int build_any(hfft__plan *p, const hfft__choice *c) {
    int st = build(p, c, 0);
    if (st == HFFT_ERR_BUDGET && p->rank == 3) {
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
    double t1[3] = {0}, tg[3] = {0}, tc[3] = {0};
    for (int h = 0; h < 3; h++)
        probe.ratio[h] = c->fixed[h] ? c->ratio[h] : 1.0;
    int st = build_any(p, &probe);
    for (int rep = 0; !st && rep < 2; rep++)
        st = hfft__plan_execute(p, p->in, p->out);
    for (int h = 0; !st && h < p->nrounds; h++)
        t1[h] = p->info.measured_seconds[h];
    release_keep_device(p);
    for (int h = 0; h < 3; h++)
        probe.ratio[h] = c->fixed[h] ? c->ratio[h] : HFFT__PROBE_SHARE;
    if (!st)
        st = build_any(p, &probe);
    if (!st)
        st = hfft__plan_execute(p, p->in, p->out);
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

hfft__plan *hfft__plan_create(int prec, int rank, const int64_t *n_in, void *in, void *out,
                              int sign, unsigned flags, const hfft_options *opts) {
    int64_t total = 0;
    if (check_args(prec, rank, n_in, in, out, sign, flags, &total))
        return NULL;
    hfft__plan *p = calloc(1, sizeof *p);
    if (!p) {
        hfft__fail(HFFT_ERR_HOST_MEMORY, "plan: out of memory");
        return NULL;
    }
    p->prec = prec;
    p->esize = 2u * (size_t)prec;
    p->sign = sign;
    p->flags = flags;
    p->in = in;
    p->out = out;
    p->total = total;
    /* Dimensions of size one change nothing: drop them. */
    for (int i = 0; i < rank; i++)
        if (n_in[i] > 1)
            p->n[p->rank++] = n_in[i];
    if (p->rank == 0)
        p->n[p->rank++] = 1;
    p->pb.prec = prec;
    p->pb.sign = sign;
    p->pb.rank = rank;
    p->pb.total = total;
    p->pb.esize = p->esize;
    p->pb.inplace = in == out;
    p->info.rank = rank;
    for (int i = 0; i < rank; i++)
        p->info.n[i] = p->pb.n[i] = n_in[i];
    p->info.precision = prec;

    int st = hfft__settings_resolve(opts, &p->set);
    int kind = p->set.device;
    if (!st && (flags & HFFT_CPU_ONLY))
        kind = HFFT_DEVICE_NONE;
    if (!st && kind == HFFT_DEVICE_AUTO)
        kind = hfft__cuda_usable() ? HFFT_DEVICE_CUDA : HFFT_DEVICE_NONE;
    if (!st && kind == HFFT_DEVICE_CUDA && !hfft__cuda_usable())
        st = hfft__fail(HFFT_ERR_NO_DEVICE,
                        hfft__device_ops(HFFT_DEVICE_CUDA)
                            ? "HFFT_DEVICE=cuda but no usable CUDA GPU was found"
                            : "HFFT_DEVICE=cuda but this hfft was built without CUDA");
    if (!st && kind == HFFT_DEVICE_NONE && (flags & (HFFT_GPU_ONLY | HFFT_HYBRID)))
        st = hfft__fail(HFFT_ERR_NO_DEVICE, "%s requested but no usable GPU (device: %s)",
                        (flags & HFFT_GPU_ONLY) ? "HFFT_GPU_ONLY" : "HFFT_HYBRID",
                        p->set.device == HFFT_DEVICE_NONE ? "none" : "not found");
    if (st) {
        free(p);
        return NULL;
    }
    p->info.device = kind;
    snprintf(p->info.device_name, sizeof p->info.device_name, "none");

    hfft__choice c;
    memset(&c, 0, sizeof c);
    if (kind != HFFT_DEVICE_NONE) {
        p->ops = hfft__device_ops(kind);
        st = p->ops->open(p->set.budget, &p->dev);
        if (st) {
            free(p);
            return NULL;
        }
        p->info.device_budget = p->ops->budget(p->dev);
        snprintf(p->info.device_name, sizeof p->info.device_name, "%s",
                 p->ops->describe(p->dev));
        st = hfft__balance(&p->pb, &p->set, p->ops, p->dev, flags, &c);
        if (!st && c.measure)
            st = measure(p, &c);
        p->info.wisdom = c.wisdom;
        snprintf(p->info.wisdom_note, sizeof p->info.wisdom_note, "%s", c.note);
    }
    int explicit_gpu = (flags & (HFFT_GPU_ONLY | HFFT_HYBRID)) || c.fixed[0] || c.fixed[1] ||
                       c.fixed[2] ||
                       kind == HFFT_DEVICE_EMULATED || p->set.device == HFFT_DEVICE_CUDA;
    if (!st)
        st = build_any(p, &c);
    int engine_refused = st == HFFT_ERR_BUDGET || st == HFFT_ERR_DEVICE_MEMORY ||
                         st == HFFT_ERR_UNSUPPORTED || st == HFFT_ERR_CUDA ||
                         st == HFFT_ERR_CUFFT;
    if (st && engine_refused && !explicit_gpu && p->dev) {
        /* Automatic placement: a problem the GPU engine cannot take goes to the CPU. */
        release_engines(p);
        p->ops = NULL;
        p->info.device = HFFT_DEVICE_NONE;
        p->info.device_budget = 0;
        snprintf(p->info.device_name, sizeof p->info.device_name, "none");
        hfft__clear_error();
        memset(&c, 0, sizeof c);
        st = build(p, &c, 0);
    }
    if (!st)
        st = choose_pinning(p);
    if (st) {
        hfft__plan_destroy(p);
        return NULL;
    }
    for (int h = 0; h < 3; h++)
        p->info.predicted_seconds[h] = c.predicted[h];
    p->info.rounds = p->whole ? 1 : p->nrounds; /* FFTW's whole-array plan: one */
    if (p->gpu)
        hfft__gpu_fill_info(p->gpu, &p->info);
    p->info.host_bytes += hfft__cpu_host_bytes(p->cpu);
    hfft__clear_error();
    return p;
}

int hfft__plan_execute(hfft__plan *p, void *in, void *out) {
    int st = 0;
    if (p->whole) {
        double t0 = hfft__now();
        hfft__lines_exec(p->whole, in, out);
        p->info.measured_seconds[0] = p->info.measured_cpu[0] = hfft__now() - t0;
        for (int h = 1; h < 3; h++)
            p->info.measured_seconds[h] = p->info.measured_cpu[h] = 0.0;
        return 0;
    }
    for (int h = 0; h < p->nrounds && !st; h++) {
        double t0 = hfft__now();
        const void *src = h == 0 ? in : out;
        int64_t units = hfft__round_units(&p->rounds[h]);
        int cpu_part = p->cpu && p->cut[h] < units;
        if (cpu_part)
            hfft__cpu_start(p->cpu, h, src, out, p->cut[h], units);
        p->info.measured_gpu[h] = p->info.measured_cpu[h] = 0.0;
        if (p->gpu && p->cut[h] > 0) {
            st = hfft__gpu_run(p->gpu, h, src, out);
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
    if (st)
        return hfft__fail_context(st, in == out ? "execute failed; the in-place array is undefined"
                                                : "execute failed; the input is untouched and the "
                                                  "output undefined");
    return 0;
}
