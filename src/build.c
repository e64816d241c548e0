/*
 * build.c: the planner's engines for a chosen placement (build.h): the GPU
 * engine over the cards, the CPU executor on its pool, FFTW's plan of the
 * whole problem, the host arrays' pinning, the array between rounds, and the
 * HFFT_MEASURE probe that times GPU-only against a probe share.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "balancer/balancer.h"
#include "balancer/wisdom.h"
#include "src/build.h"
#include "src/core/status.h"
#include "src/plan.h"
#include "src/problem.h"
#include "src/run.h"

/* The engines of one build; the device and the pinned arrays stay. */
static void release_keep_device(hfft__plan *p) {
    hfft__whole_destroy(p->whole);
    p->whole = NULL;
    hfft__cards_destroy(p->cards);
    p->cards = NULL;
    hfft__cpu_destroy(p->cpu);
    p->cpu = NULL;
    hfft__pool_destroy(p->pool);
    p->pool = NULL;
}

void hfft__release_engines(hfft__plan *p) {
    release_keep_device(p);
    if (p->dev) {
        hfft__place_release_all(&p->place);
        for (int k = p->ncard - 1; k >= 0; k--) {
            hfft__trace_destroy(p->trace[k]);
            p->trace[k] = NULL;
            p->ops->close(p->devs[k]);
            p->devs[k] = NULL;
        }
        p->ncard = 0;
        p->dev = NULL;
    }
}

static int cpu_threads(const hfft__plan *p, int reserve) {
    int t = p->set.threads > 0 ? p->set.threads : hfft__cores() - reserve;
    return t > 0 ? t : 1;
}

int hfft__cpu_only_threads(const hfft__plan *p) { return cpu_threads(p, 0); }

/* The array between rounds is the input itself (make_mid allocates none): a
   c2r transform's complex rounds where its input may be overwritten, a
   four-step split out of place with HFFT_DESTROY_INPUT. */
static int mid_is_input(const hfft__plan *p) {
    if (p->pb.kind == HFFT__C2R)
        return p->pb.inplace || !(p->flags & HFFT_PRESERVE_INPUT);
    return !p->pb.inplace && (p->flags & HFFT_DESTROY_INPUT);
}

/* Round h reads and writes one array, as it will run (the engines plan their
   transforms in place or out of place by it). */
static int round_inplace(const hfft__plan *p, int h) {
    int ss, ds;
    hfft__round_sides(p, h, &ss, &ds);
    if (mid_is_input(p)) {
        ss = ss == SIDE_MID ? SIDE_IN : ss;
        ds = ds == SIDE_MID ? SIDE_IN : ds;
    }
    if (ss == ds)
        return 1;
    return ss != SIDE_MID && ds != SIDE_MID && p->pb.inplace; /* the input and the output */
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
    for (int h = 0; h < p->nrounds; h++)
        req.round_inplace[h] = round_inplace(p, h);
    hfft__card cards[HFFT_MAX_CARDS];
    for (int k = 0; k < p->ncard; k++)
        cards[k] = p->trace[k] ? (hfft__card){&hfft__trace_ops, hfft__trace_dev(p->trace[k])}
                               : (hfft__card){p->ops, p->devs[k]};
    int st = hfft__cards_create(cards, p->ncard, &req, &p->cards);
    if (st)
        return st;
    /* the cards it runs on (one card's trip may take the place of several streaming) */
    hfft__info_cards(p, hfft__cards_used(p->cards));
    return 0;
}

void hfft__info_cards(hfft__plan *p, int n) {
    p->info.cards = n;
    p->info.device_budget = 0;
    for (int k = 0; k < n; k++) {
        p->info.card_ids[k] = p->ops->ordinal(p->devs[k]);
        p->info.device_budget += p->ops->budget(p->devs[k]);
    }
    if (n > 1)
        snprintf(p->info.device_name, sizeof p->info.device_name, "%d x %s", n,
                 p->ops->describe(p->dev));
    else
        snprintf(p->info.device_name, sizeof p->info.device_name, "%s", p->ops->describe(p->dev));
}

/* The CPU executor; with no_rounds, none of the plan's rounds planned (a four-step
   share plans its own: share_four). */
static int make_cpu(hfft__plan *p, int reserve, int no_rounds) {
    /* FFTW's measured plans of the CPU's lines, which hfft-tune keeps beside the
       wisdom: FFTW's ESTIMATE planner uses any it holds, and they run faster than
       the plans it would estimate itself */
    char fw[1100];
    if (hfft__wisdom_fftw_path(p->set.wisdom, p->prec, fw, sizeof fw) == 0)
        hfft__fftw_wisdom_import(p->prec, fw);
    int threads = cpu_threads(p, reserve);
    int st = hfft__pool_create(threads, reserve, &p->pool);
    if (st)
        return st;
    p->info.threads = threads;
    unsigned f = (p->flags & HFFT_MEASURE ? HFFT__CPU_MEASURE : 0u) |
                 (p->flags & HFFT_UNALIGNED ? HFFT__CPU_UNALIGNED : 0u);
    int inplace[HFFT__MAX_ROUNDS];
    for (int h = 0; h < p->nrounds; h++)
        inplace[h] = round_inplace(p, h);
    return hfft__cpu_create(p->prec, p->sign, no_rounds ? 0 : p->nrounds, p->rounds, inplace, f,
                            p->pool, p->in, p->out, &p->cpu);
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

/*
 * The general path: FFTW's plan of the whole problem on its own threads, for
 * layouts the rounds do not take.  A c2r transform whose input must be kept
 * and that FFTW cannot plan so (every multi-dimensional one) runs on a copy
 * of its input in a host scratch.
 */
int hfft__make_whole(hfft__plan *p) {
    unsigned f = whole_flags(p);
    int threads = cpu_threads(p, 0);
    p->info.threads = threads;
    p->info.cpu_plan = 1;
    /* the CPU alone, whatever was chosen before (an engine that refused the problem) */
    p->info.placement = 0;
    memset(p->info.ratio, 0, sizeof p->info.ratio);
    memset(p->info.done_ratio, 0, sizeof p->info.done_ratio);
    int st = hfft__whole_plan(&p->pb, p->pb.in, p->pb.out, f, threads, &p->whole);
    hfft__plan_choose_run(p);
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
    hfft__scratch_arrays(p, p->pb.in, in);
    st = hfft__whole_plan(&p->pb, in, p->pb.out, f & ~HFFT__WHOLE_PRESERVE, threads, &p->whole);
    hfft__plan_choose_run(p);
    return st;
}

/* Whether FFTW's plan of the whole problem is as accurate as the rounds: FFTW's own
   double lines of a large prime factor sit at the 5e-16 limit or past it. */
static int whole_as_accurate(const hfft__plan *p) {
    return !hfft__problem_chirp_dims(&p->pb) || hfft__whole_takes_chirp(&p->pb);
}

/*
 * CPU only, under HFFT_MEASURE: FFTW's own plan of the whole array (its
 * threads, FFTW_MEASURE) against our rounds of batched lines; the faster
 * stays.  FFTW's multi-dimensional plans win where the array is small enough
 * for their cache blocking, ours on arrays of many gigabytes, so only arrays
 * up to WHOLE_MAX are tried.  Planning and timing run on scratch copies: the
 * caller's arrays are not touched.  Not where the whole plan would take FFTW's own
 * lines where the rounds run Bluestein's (whole_as_accurate), trading the
 * accuracy for its speed.
 */
#define WHOLE_MAX ((size_t)1 << 30) /* (bench/tune.c's WHOLE_TRIAL_MAX follows it) */
static int try_whole(hfft__plan *p) {
    size_t bytes = (size_t)p->total * p->esize;
    /* (an r2r plan's problem here is the C2C one of its pairs: FFTW's plan of it would
       be another transform) */
    if (bytes > WHOLE_MAX || !whole_as_accurate(p) || p->r2r)
        return 0;
    int inplace = p->in == p->out;
    /* each side's reach (a real side may reach past the complex elements: padded rows) */
    size_t bi = (size_t)p->pb.hi[0], bo = (size_t)p->pb.hi[1];
    if (inplace)
        bi = bo = bi > bo ? bi : bo;
    char *a = aligned_alloc(64, (bi + 63) & ~(size_t)63);
    char *b = inplace ? a : aligned_alloc(64, (bo + 63) & ~(size_t)63);
    if (!a || !b) {
        free(a);
        if (b != a)
            free(b);
        return 0; /* no room to try: keep the rounds */
    }
    /* the plan's own promises about its input (a c2r with HFFT_PRESERVE_INPUT keeps
       it: FFTW's c2r plans overwrite theirs unless told, and where they cannot keep
       it, planning fails and the rounds stay); new-array execution needs the
       caller's alignment, which may be less */
    unsigned f = whole_flags(p) | HFFT__WHOLE_MEASURE;
    if (((uintptr_t)p->in & 63u) || ((uintptr_t)p->out & 63u))
        f |= HFFT__WHOLE_UNALIGNED;
    void *ia[2] = {a, NULL}, *oa[2] = {b, NULL};
    hfft__whole *whole = NULL;
    int st = 0;
    if (hfft__whole_plan(&p->pb, ia, oa, f, hfft__pool_size(p->pool), &whole) != 0) {
        hfft__clear_error(); /* our rounds are planned already: keep them */
    } else {
        memset(a, 0, bi);
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

int hfft__staging_threads(const hfft__plan *p) { return cpu_threads(p, 1); }

/* The GPU engine's host arrays: pinned, registered or staged (place.c). */
static int place_arrays(hfft__plan *p) {
    p->place.ops = p->ops;
    p->place.dev = p->dev;
    int st = hfft__place_arrays(&p->place, p->in, (size_t)p->pb.hi[0], p->out, (size_t)p->pb.hi[1],
                                p->set.pinning, p->cards, hfft__staging_threads(p));
    p->info.host_pinned = p->place.host_pinned;
    return st;
}

/*
 * HFFT_MEASURE with HFFT_PINNING=auto, on arrays the plan registered: one
 * execute with the arrays registered, one staged (each after a warm-up, on
 * the plan's arrays, which MEASURE may overwrite); the faster stays, and a
 * staged plan gives the registration back.
 */
int hfft__choose_pinning(hfft__plan *p) {
    if (!p->cards || p->info.host_pinned != 1 || p->set.pinning != HFFT_PINNING_AUTO ||
        !(p->flags & HFFT_MEASURE))
        return 0;
    double t[2] = {0, 0};
    for (int staged = 0; staged < 2; staged++) {
        int st = staged ? hfft__cards_stage(p->cards, 1, hfft__staging_threads(p)) : 0;
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
            (void)hfft__cards_stage(p->cards, 0, 0);
            return hfft__fail_context(st, "HFFT_MEASURE, timing %s arrays",
                                      staged ? "staged" : "registered");
        }
    }
    if (t[1] < t[0]) {
        hfft__place_release(&p->place);
        p->info.host_pinned = 0;
    } else {
        (void)hfft__cards_stage(p->cards, 0, 0);
    }
    return 0;
}

static int make_mid(hfft__plan *p) {
    int mids = 0;
    for (int h = 0; h < p->nrounds; h++)
        mids |= p->rounds[h].src_mid || p->rounds[h].dst_mid;
    int c2r = p->pb.kind == HFFT__C2R && (p->nrounds > 1 || hfft__c2r_reads_copy(p));
    if ((!mids && !c2r) || (p->cards && hfft__cards_one_trip(p->cards)) || p->mid)
        return 0;
    if (mid_is_input(p))
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

/* The GPU's question near the end of its units of a round the CPU shares
   (gpu/engine.h). */
static int64_t take_back(void *cpu, int h, double unit_s, double left_s, int64_t *first) {
    return hfft__cpu_take(cpu, h, unit_s, left_s, first);
}

/* The CPU's share where the GPU streams four-step: the GPU's layout between the
   rounds, and the shares its units give each side. */
static int share_four(hfft__plan *p, const hfft__four_shape *fs) {
    const hfft__round *r = &p->rounds[1 - fs->z];
    hfft__cpu_four_desc d;
    memset(&d, 0, sizeof d);
    d.d0 = fs->d0;
    d.fa = fs->fa;
    d.fb = fs->fb;
    d.row = fs->row;
    d.per = fs->per;
    d.nb = fs->nb;
    d.pw = fs->pw;
    d.first[0] = fs->gpu[0];
    d.first[1] = fs->gpu[1];
    d.kind = r->kind;
    d.L = r->kind == HFFT__R2C ? r->nreal / 2 + 1 : r->L;
    d.nreal = r->nreal;
    d.rpitch = r->rpitch;
    int st = hfft__cpu_four(p->cpu, &d, p->in);
    if (!st) {
        p->info.ratio[0] = (double)fs->gpu[0] / (double)fs->fb;
        p->info.ratio[1] = (double)fs->gpu[1] / (double)(fs->fa * fs->nb);
    }
    return st;
}

/* Some round has fewer units than the CPU has threads, and they are long. */
static int few_units(const hfft__plan *p) {
    if (p->split_line)
        return 0;
    int threads = cpu_threads(p, 0);
    for (int h = 0; h < p->nrounds; h++) {
        const hfft__round *r = &p->rounds[h];
        /* a real round's unit: its complex side (rows of nreal/2 + 1, or planes) */
        int64_t line = r->kind == HFFT__C2C ? r->L : r->dout;
        if (hfft__round_units(r) < threads && line * (int64_t)p->esize >= (1 << 20))
            return 1;
    }
    return 0;
}

/* Engines for the chosen placement: c->ratio[h] in [0, 1] is round h's GPU share. */
int hfft__build(hfft__plan *p, const hfft__choice *c, int split) {
    p->nrounds = hfft__dense_rounds(&p->dense, p->pb.kind, split, p->split_line, p->rounds);
    if (p->nrounds < 0)
        return p->nrounds;
    if (p->r2r)
        hfft__r2r_codes(p->rounds, p->nrounds, p->dense.ndim, p->r2r_kinds, p->r2r_row);
    for (int h = 0; h < p->nrounds; h++) {
        int64_t u = hfft__round_units(&p->rounds[h]);
        int64_t cut = p->dev ? (int64_t)(c->ratio[h] * (double)u + 0.5) : 0;
        /* four-step splits, and a c2r round that reads an input it must keep (FFTW's
           c2r would overwrite the CPU's share, and cannot keep a multi-dimensional
           one): the GPU takes every unit */
        int whole = p->split_line || (h == 0 && p->rounds[h].kind == HFFT__C2R &&
                                      !p->pb.inplace && (p->flags & HFFT_PRESERVE_INPUT));
        if (p->dev && whole)
            cut = u;
        p->cut[h] = cut < 0 ? 0 : cut > u ? u : cut;
        /* HFFT_HYBRID means both sides work, however few the units. */
        if ((p->flags & HFFT_HYBRID) && p->dev && u >= 2 && !c->fixed[h] && !whole) {
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
    if (!st && !any_gpu && few_units(p) && whole_as_accurate(p)) {
        /* CPU only, and fewer lines than threads in some round (one long 1D line):
           our rounds would leave cores idle; FFTW's threaded plan of the whole
           problem uses them all (where it is as accurate) */
        p->info.placement = 0;
        return hfft__make_whole(p);
    }
    /* a core left to each card's feeding thread (cards.c drives each on its own) */
    hfft__four_shape fs;
    int four = !st && any_cpu && any_gpu && hfft__cards_four(p->cards, &fs) == 0;
    if (!st && any_cpu)
        st = make_cpu(p, any_gpu ? p->ncard : 0, four);
    if (!st && four)
        st = share_four(p, &fs);
    /* where the CPU runs late, the GPU takes back its last units not started */
    if (!st && any_cpu && any_gpu)
        hfft__cards_set_take(p->cards, take_back, p->cpu);
    if (!st && any_gpu)
        st = place_arrays(p);
    if (!st)
        st = make_mid(p);
    hfft__plan_choose_run(p);
    /* FFTW's plan of the whole problem writes natural order only */
    if (!st && !any_gpu && (p->flags & HFFT_MEASURE) && p->split_line <= HFFT__ORDER_NATURAL)
        st = try_whole(p);
    p->info.placement = !any_gpu ? 0 : any_cpu ? 2 : 1;
    memcpy(p->info.done_ratio, p->info.ratio, sizeof p->info.done_ratio);
    hfft__plan_choose_run(p);
    return st;
}

/* Builds for c, splitting planes into rounds of their own where a plane
   cannot fit a pass. */
int hfft__build_any(hfft__plan *p, const hfft__choice *c) {
    int st = hfft__build(p, c, 0);
    int planes = 0;
    for (int h = 0; h < p->nrounds; h++)
        planes |= p->rounds[h].rank == 2;
    if (st == HFFT_ERR_BUDGET && planes) {
        release_keep_device(p);
        hfft__clear_error();
        st = hfft__build(p, c, 1);
    }
    return st;
}

/*
 * HFFT_MEASURE with nothing known: run the transform GPU-only, then with the
 * probe share, and read each round's GPU and CPU sides; the model turns that
 * into the share per round.  Three executions on the plan's arrays, which it
 * overwrites, as FFTW_MEASURE does.
 */
int hfft__measure(hfft__plan *p, hfft__choice *c) {
    hfft__choice probe = *c;
    double t1[HFFT__MAX_ROUNDS] = {0}, tg[HFFT__MAX_ROUNDS] = {0}, tc[HFFT__MAX_ROUNDS] = {0};
    for (int h = 0; h < HFFT__MAX_ROUNDS; h++)
        probe.ratio[h] = c->fixed[h] ? c->ratio[h] : 1.0;
    int st = hfft__build_any(p, &probe);
    if (!st && p->cards && hfft__cards_one_trip(p->cards)) {
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
        st = hfft__build_any(p, &probe);
    if (!st)
        st = hfft__plan_execute(p, p->pb.in, p->pb.out);
    double done[HFFT__MAX_ROUNDS];
    for (int h = 0; !st && h < p->nrounds; h++) {
        tg[h] = p->info.measured_gpu[h];
        tc[h] = p->info.measured_cpu[h];
        done[h] = p->info.done_ratio[h]; /* the GPU may have taken back units of the CPU's */
    }
    release_keep_device(p);
    if (st)
        return hfft__fail_context(st, "HFFT_MEASURE probe");
    double bytes = (double)p->total * (double)p->esize;
    for (int h = 0; h < p->nrounds; h++) {
        if (c->fixed[h])
            continue;
        hfft__round_model m;
        c->ratio[h] =
            hfft__balance_fit(c, bytes, t1[h], done[h], tg[h], tc[h], &m, &c->predicted[h]);
    }
    return 0;
}
