/*
 * tune.c: hfft-tune, the installed tuner (a program beside the library: it
 * reads the balancer's model and wisdom, and the device interface).  Over the cards plans use
 * (--devices), it measures the link (one card, then all at once) and the host
 * memory once; then for each problem it times the transform GPU-only (the
 * planner's passes, and a few alternatives that stop as soon as they lose;
 * where that plan runs one trip or streams four-step and a hybrid streams
 * plain, also with the plain schedule, which the hybrids' GPU side runs) and
 * CPU-only, puts both into the cost model, and measures the per-round shares
 * the model proposes; each measured hybrid refits the model, which proposes
 * the next shares, until they settle (three hybrids at most; a round the model
 * split goes wholly to one side only once the model fitted to two hybrids says
 * so).  The
 * choice is the fastest candidate it measured, never the model's word alone.
 * It prints progress on stderr, each measurement beside the model's
 * prediction made before it, a table per problem and one at the end, and
 * writes the choice to wisdom, which plans then read.
 */
#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "balancer/calib.h"
#include "balancer/model.h"
#include "balancer/wisdom.h"
#include "cpu/cpu.h"
#include "gpu/devices.h"
#include "src/core/status.h"

#define MAX_CANDS 16
#define MAX_PROBES 3
#define SETTLED 0.005 /* shares that move less than this have settled */
#define GIVE_UP 1.03  /* a GPU alternative slower than this after one run stops */
/* A hybrid stays only where it beats the faster single side by more than this in
   every run: auto may be at most 2% behind the better side, so a closer win is not
   worth the chance of a loss */
#define KEEP_MARGIN 0.02
/* and by this where the single side takes under SHORT_T: a hybrid of a few
   milliseconds spreads from run to run more than it gains */
#define KEEP_MARGIN_SHORT 0.10
#define SHORT_T 0.01
#define CLOSE 0.20  /* single sides this close are both timed again */
/* GPU-only faster than this (a short problem): CPU-only timed reps times, not once,
   and the runs again after pauses */
#define SHORT_S 0.1
#define HOST_BYTES ((size_t)1 << 30)
/* Arrays up to this many bytes: a CPU-only plan under HFFT_MEASURE also times FFTW's
   plan of the whole array (src/build.c, WHOLE_MAX) */
#define WHOLE_TRIAL_MAX ((double)(1u << 30))
#define NONE_SHARE 1e-9 /* a round share that leaves the GPU no unit (0 means unset) */

typedef struct problem {
    int kind; /* HFFT__C2C, HFFT__R2C (r32, r64) or HFFT__C2R (c2r32, c2r64) */
    int rank, prec;
    int64_t n[3];
    int64_t howmany; /* transforms one after the other (a dense batch); 1: one */
} problem;

typedef struct result {
    int ok, stopped; /* stopped: gave up after one run */
    double plan_s, total, round[3], gpu[3], cpu[3];
    double done[3]; /* each round's GPU share done (hfft_info.done_ratio), median */
    hfft_info info;
} result;

/* A measured candidate: its plan's settings, the model's round times for it
   before it ran (0: none), and what it measured. */
typedef struct cand {
    char label[40];
    double ratio[3];
    int slots;
    int64_t pass_bytes;
    int schedule;
    unsigned flags;
    int paused; /* each timed execute after a pause and an untimed one (measure) */
    double predicted[3];
    result r;
} cand;

/* One tuned problem, for the table at the end. */
typedef struct summary {
    char name[64];
    int ok, nr;
    double gpu, cpu, tuned, share[3], err[3], seconds;
} summary;

static int reps = 3, quiet = 0;
static int64_t budget = 0;
static int threads = 0;
static const char *devices = NULL; /* --devices (NULL: HFFT_DEVICES, else every card) */
static int ncards = 1;             /* the cards that opens */
static double t_start;

static void usage(FILE *f) {
    fprintf(f,
            "usage: hfft-tune [options] PROBLEM...\n"
            "Calibrates this machine for hfft and tunes the given problems: the GPU share of\n"
            "each round (Rx, Ry), with the pass size and buffers the GPU side does best.\n"
            "Prints each measurement beside the cost model's prediction, a table per problem\n"
            "and one at the end, and writes the fastest measured choice to wisdom, which hfft\n"
            "plans read from then on.\n\n"
            "PROBLEM  2d 32768x32768 f32   (or 2d:32768x32768:f32); 3d ZxYxX; 1d N; f32 or\n"
            "         f64 (complex); r32 or r64 (real input: r2c, forward, its sizes the real\n"
            "         ones, as hfft-bench's); c2r32 or c2r64 (complex to real, backward);\n"
            "         :bHOWMANY after the precision for a dense batch of that many\n"
            "         transforms, one after the other (1d:65536:f32:b131072), real rows laid\n"
            "         out as FFTW's basic interface does (padded in place)\n\n"
            "options:\n"
            "  --budget BYTES    device memory budget to tune for (\"2GiB\"), each card's;\n"
            "                    default: automatic.  Plans use the entry only with the same\n"
            "                    budget setting.\n"
            "  --devices LIST    the cards to tune over, as hfft_options.devices: all (default,\n"
            "                    or $HFFT_DEVICES where set: the cards plans take) or ordinals,\n"
            "                    0,1.  The link is measured on one card and on all of them\n"
            "                    copying at once; wisdom is signed with the set (ordinals,\n"
            "                    names, memory) and steers only plans over the same cards, in\n"
            "                    the same order.\n"
            "  --wisdom FILE     wisdom file to update (not \"none\", which plans read as no\n"
            "                    wisdom); default $HFFT_WISDOM, else\n"
            "                    $XDG_CONFIG_HOME/hfft/wisdom or ~/.config/hfft/wisdom\n"
            "  --out-of-place    tune the out-of-place transform (default: in-place)\n"
            "  --reps N          timed runs per candidate, median kept (default 3)\n"
            "  --threads N       CPU threads (default: one per core)\n"
            "  --quiet           no progress lines on stderr\n"
            "  --help            this text\n\n"
            "Steps per problem: GPU-only with the planner's passes; two GPU alternatives\n"
            "(three buffers, the radix-2 schedule) that stop after one run when they lose;\n"
            "where the GPU-only plan runs one trip or streams four-step and a hybrid streams\n"
            "plain (3D, 2D in place, for example), GPU-only with the plain schedule too,\n"
            "which the hybrids' model starts from; CPU-only (one run; --reps runs where\n"
            "GPU-only takes under 0.1 s); where the hybrids stream four-step (2D on one\n"
            "card), which shares its layout with the CPU, the CPU in that layout (one run,\n"
            "the GPU a unit a round), whose rates the model takes; then up to three hybrids\n"
            "at the shares the model, refitted after each, proposes (a round the model split\n"
            "and a hybrid took at that share goes wholly to one side only once the model\n"
            "fitted to two hybrids says so); and one run of the best per-round\n"
            "mix where no measured candidate has it.  Where a hybrid\n"
            "comes out fastest, it and the faster single side are timed again, and the\n"
            "hybrid is kept only where each of its runs beats each of the single side's by\n"
            "more than 2%% (10%% where the single side takes under 10 ms); where GPU-only\n"
            "and CPU-only are within 20%% of each other, both are timed again and CPU-only\n"
            "is kept only by the same margins.  Where GPU-only takes under 0.1 s, each\n"
            "execute of these runs again follows a pause and an untimed execute, as\n"
            "hfft-bench --alternate times them.\n"
            "About 12 + 5 x reps transforms (more where the sides come close, and a pause\n"
            "and an untimed execute before each execute of the runs again where GPU-only\n"
            "takes under 0.1 s), each after a pause of 0.25 s (on a GPU), its plan and a\n"
            "warm-up.  Once per run: the link (about a second) and the host memory.\n"
            "HFFT_DEVICE=emulated tunes the emulated device (tests only; its timings mean\n"
            "nothing for a GPU).\n");
}

static int parse_problem(const char *dim, const char *shape, const char *prec, problem *p) {
    memset(p, 0, sizeof *p);
    p->rank = (int)strtol(dim, NULL, 10);
    if (p->rank < 1 || p->rank > 3 || dim[1] != 'd' || dim[2])
        return -1;
    const char *s = shape;
    for (int k = 0; k < p->rank; k++) {
        char *end;
        long long v = strtoll(s, &end, 10);
        if (end == s || v < 1)
            return -1;
        p->n[k] = v;
        s = end;
        if (k + 1 < p->rank) {
            if (*s != 'x')
                return -1;
            s++;
        }
    }
    if (*s)
        return -1;
    static const struct {
        const char *name;
        int kind, prec;
    } kinds[] = {{"f32", HFFT__C2C, 4}, {"f64", HFFT__C2C, 8},   {"r32", HFFT__R2C, 4},
                 {"r64", HFFT__R2C, 8}, {"c2r32", HFFT__C2R, 4}, {"c2r64", HFFT__C2R, 8}};
    size_t len = 0;
    for (size_t k = 0; k < sizeof kinds / sizeof kinds[0] && !len; k++) {
        size_t l = strlen(kinds[k].name);
        if (strncmp(prec, kinds[k].name, l) == 0 && (prec[l] == '\0' || prec[l] == ':')) {
            p->kind = kinds[k].kind;
            p->prec = kinds[k].prec;
            len = l;
        }
    }
    if (!len)
        return -1;
    const char *rest = prec + len;
    p->howmany = 1;
    if (rest[0] == ':' && rest[1] == 'b') {
        char *end;
        long long h = strtoll(rest + 2, &end, 10);
        if (end == rest + 2 || *end || h < 1)
            return -1;
        p->howmany = h;
    } else if (rest[0]) {
        return -1;
    }
    return 0;
}

static void progress(const char *fmt, ...) {
    if (quiet)
        return;
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "  [%5.1f s] ", hfft__now() - t_start);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fflush(stderr);
}

static void sort(double *v, int n) {
    for (int i = 0; i < n; i++)
        for (int j = i + 1; j < n; j++)
            if (v[j] < v[i]) {
                double t = v[i];
                v[i] = v[j];
                v[j] = t;
            }
}

/* A transform's extent in complex elements (cx) and in reals of its real side (rx:
   rows of n reals, 2 (n/2 + 1) in place), as FFTW's basic interface lays them out. */
static void extents(const problem *p, int inplace, int64_t *cx, int64_t *rx) {
    int64_t rest = 1, last = p->n[p->rank - 1], half = last / 2 + 1;
    for (int k = 0; k < p->rank - 1; k++)
        rest *= p->n[k];
    *cx = rest * (p->kind == HFFT__C2C ? last : half);
    *rx = rest * (inplace ? 2 * half : last);
}

/* c's plan of the problem on in and out (NULL, and the error set, where it fails). */
static void *make_plan(const problem *p, void *in, void *out, const cand *c) {
    hfft_options o;
    hfft_options_init(&o);
    o.device_memory = budget;
    o.threads = threads;
    o.devices = devices;
    o.wisdom = "none";
    for (int h = 0; h < 3; h++)
        o.round_ratio[h] = c->ratio[h];
    o.slots = c->slots;
    o.pass_bytes = c->pass_bytes;
    unsigned flags = c->flags | (c->schedule == 2   ? HFFT_SCHEDULE_RADIX2
                                 : c->schedule == 1 ? HFFT_SCHEDULE_PLAIN
                                                    : 0);
    int64_t cx, rx;
    extents(p, in == out, &cx, &rx);
    /* in place, real rows padded to 2 (n/2 + 1) reals: FFTW's advanced interface
       takes that as the real side's embedding (NULL would mean rows of n reals) */
    int64_t pad[3], *re = NULL;
    if (in == out && p->kind != HFFT__C2C) {
        memcpy(pad, p->n, sizeof pad);
        pad[p->rank - 1] = 2 * (p->n[p->rank - 1] / 2 + 1);
        re = pad;
    }
    /* one transform or a dense batch: the advanced interface plans both */
    if (p->kind == HFFT__C2C)
        return p->prec == 4
                   ? (void *)hfftf_plan_many_dft64(p->rank, p->n, p->howmany, in, NULL, 1, cx, out,
                                                   NULL, 1, cx, HFFT_FORWARD, flags, &o)
                   : (void *)hfft_plan_many_dft64(p->rank, p->n, p->howmany, in, NULL, 1, cx, out,
                                                  NULL, 1, cx, HFFT_FORWARD, flags, &o);
    if (p->kind == HFFT__R2C)
        return p->prec == 4 ? (void *)hfftf_plan_many_dft_r2c64(p->rank, p->n, p->howmany, in, re,
                                                                1, rx, out, NULL, 1, cx, flags, &o)
                            : (void *)hfft_plan_many_dft_r2c64(p->rank, p->n, p->howmany, in, re, 1,
                                                               rx, out, NULL, 1, cx, flags, &o);
    return p->prec == 4 ? (void *)hfftf_plan_many_dft_c2r64(p->rank, p->n, p->howmany, in, NULL, 1,
                                                            cx, out, re, 1, rx, flags, &o)
                        : (void *)hfft_plan_many_dft_c2r64(p->rank, p->n, p->howmany, in, NULL, 1,
                                                           cx, out, re, 1, rx, flags, &o);
}

/* Plans c and runs it nreps times after a warm-up (medians per round); stops
   after the first timed run where that took longer than give_up (> 0).  First the
   machine settles for SETTLE_S: a GPU execute right after CPU-heavy work copies
   slower for a short while, which would count against whichever candidate follows
   a CPU-only or hybrid one (a GPU-only candidate timed again after a hybrid, above
   all). */
#define SETTLE_S 0.25
static double settle_s; /* SETTLE_S on a GPU; 0 on the emulated device */

static void settle(void) {
    struct timespec s = {0, (long)(settle_s * 1e9)};
    while (settle_s > 0 && nanosleep(&s, &s) != 0)
        ;
}

/* With c->paused, each timed execute comes after SETTLE_S and an untimed execute,
   as hfft-bench --alternate times executes taking turns: a plan of a few
   milliseconds whose cores have idled runs slower than back to back. */
static result measure(const problem *p, void *in, void *out, const cand *c, int nreps,
                      double give_up) {
    result r;
    memset(&r, 0, sizeof r);
    settle();
    double t0 = hfft__now();
    void *plan = make_plan(p, in, out, c);
    r.plan_s = hfft__now() - t0;
    if (!plan) {
        progress("%s: plan failed: %s\n", c->label, hfft_last_error_message());
        return r;
    }
    double tot[16] = {0}, rd[3][16] = {{0}}, g[3][16] = {{0}}, cp[3][16] = {{0}};
    double dn[3][16] = {{0}};
    int n = 0;
    for (int i = 0; i <= nreps; i++) {
        int st = 0;
        if (c->paused && i > 0) {
            settle();
            st = p->prec == 4 ? hfftf_execute(plan) : hfft_execute(plan);
        }
        double t1 = hfft__now();
        if (!st)
            st = p->prec == 4 ? hfftf_execute(plan) : hfft_execute(plan);
        double t = hfft__now() - t1;
        if (st) {
            progress("%s: execute failed: %s\n", c->label, hfft_last_error_message());
            n = 0;
            break;
        }
        if (p->prec == 4)
            hfftf_plan_info(plan, &r.info);
        else
            hfft_plan_info(plan, &r.info);
        if (i == 0)
            continue; /* warm-up */
        tot[n] = t;
        for (int h = 0; h < 3; h++) {
            rd[h][n] = r.info.measured_seconds[h];
            g[h][n] = r.info.measured_gpu[h];
            cp[h][n] = r.info.measured_cpu[h];
            dn[h][n] = r.info.done_ratio[h];
        }
        n++;
        if (give_up > 0 && t > give_up && i < nreps) {
            r.stopped = 1;
            break;
        }
    }
    if (n > 0) {
        r.ok = 1;
        sort(tot, n);
        r.total = tot[n / 2];
        for (int h = 0; h < 3; h++) {
            sort(rd[h], n);
            sort(g[h], n);
            sort(cp[h], n);
            sort(dn[h], n);
            r.done[h] = dn[h][n / 2];
            r.round[h] = rd[h][n / 2];
            r.gpu[h] = g[h][n / 2];
            r.cpu[h] = cp[h][n / 2];
        }
    }
    if (p->prec == 4)
        hfftf_destroy_plan(plan);
    else
        hfft_destroy_plan(plan);
    return r;
}

/* FFTW_MEASURE plans of the CPU's lines, in this process's FFTW wisdom, which every
   later plan here uses (FFTW's ESTIMATE planner takes any wisdom it holds) and
   which the tuner saves beside its own for plans to import: a hybrid (the hybrids'
   line shapes: plain or four-step rounds), and CPU-only where HFFT_MEASURE would
   not also time FFTW's plan of the whole array (over 1 GiB).  The hybrid leaves
   the GPU a share of 1% where the array is that small: with none it would be a
   CPU-only plan, whose HFFT_MEASURE times FFTW's plan of the whole array with all
   its threads (most of the tuning time), which no plan the tuner times uses.
   Planned only, never executed. */
#define LINES_SHARE 0.01
static void measure_lines(const problem *p, void *in, void *out, double bytes) {
    for (int k = 0; k < 2; k++) {
        if (k == 1 && bytes <= WHOLE_TRIAL_MAX)
            break;
        double f = k == 0 && bytes <= WHOLE_TRIAL_MAX ? LINES_SHARE : NONE_SHARE;
        cand c = {"", {f, f, f}, 0,  0, 0, HFFT_MEASURE | (k ? HFFT_CPU_ONLY : HFFT_HYBRID),
                  0,  {0},       {0}};
        void *plan = make_plan(p, in, out, &c);
        if (!plan) {
            progress("measuring the CPU's line plans: %s\n", hfft_last_error_message());
            continue;
        }
        if (p->prec == 4)
            hfftf_destroy_plan(plan);
        else
            hfft_destroy_plan(plan);
    }
}

/* ---- the array: random data, filled by all cores (timings on zeros flatter) ---- */

typedef struct fill_ctx {
    uint64_t *a;
    size_t words, chunk;
    int prec;
} fill_ctx;

static void fill_chunk(void *ctx, int64_t job, int thread) {
    fill_ctx *f = ctx;
    (void)thread;
    uint64_t s = 0x9E3779B97F4A7C15ull * (uint64_t)(job + 1);
    size_t end = (size_t)(job + 1) * f->chunk < f->words ? (size_t)(job + 1) * f->chunk : f->words;
    uint64_t mask = f->prec == 4 ? 0x3f7fffff3f7fffffull : 0x3fefffffffffffffull;
    for (size_t i = (size_t)job * f->chunk; i < end; i++) {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        f->a[i] = s & mask;
    }
}

static int fill(void *a, size_t bytes, int prec) {
    hfft__pool *pool;
    if (hfft__pool_create(hfft__cores(), 0, &pool))
        return -1;
    fill_ctx f = {a, bytes / 8, (size_t)8 << 20, prec};
    hfft__pool_start(pool, (int64_t)((f.words + f.chunk - 1) / f.chunk), fill_chunk, &f);
    hfft__pool_wait(pool);
    hfft__pool_destroy(pool);
    return 0;
}

/* ---- the report ---- */

static void shares_text(char *s, size_t n, const double *ratio, int nr) {
    size_t o = 0;
    for (int h = 0; h < nr && o < n; h++)
        o += (size_t)snprintf(s + o, n - o, "%s%.3f", h ? "/" : "",
                              ratio[h] < NONE_SHARE * 2 ? 0.0 : ratio[h]);
}

static void rounds_text(char *s, size_t n, const double *t, int nr) {
    size_t o = 0;
    for (int h = 0; h < nr && o < n; h++)
        o += (size_t)snprintf(s + o, n - o, "%s%.4f", h ? "/" : "", t[h]);
}

/* The model's error per round, "+3%/-1%"; "-" where it predicted nothing. */
static void error_text(char *s, size_t n, const cand *c, int nr) {
    size_t o = 0;
    s[0] = '\0';
    for (int h = 0; h < nr && o < n; h++) {
        if (!(c->predicted[h] > 0) || !(c->r.round[h] > 0)) {
            snprintf(s, n, "-");
            return;
        }
        o += (size_t)snprintf(s + o, n - o, "%s%+.0f%%", h ? "/" : "",
                              100.0 * (c->predicted[h] / c->r.round[h] - 1.0));
    }
}

static double host_bw;

/* Each round's CPU side, its share of the array read and written once,
   against the host memory: "41%/63%"; "-" where the CPU had none. */
static void memory_text(char *s, size_t n, const cand *c, double bytes, int nr) {
    size_t o = 0;
    int any = 0;
    for (int h = 0; h < nr && o < n; h++) {
        const hfft_info *i = &c->r.info;
        double f = i->placement == 1 ? 1.0 : i->ratio[h];
        if (f < 1.0 && i->measured_cpu[h] > 0 && host_bw > 0) {
            o += (size_t)snprintf(s + o, n - o, "%s%.0f%%", h ? "/" : "",
                                  100.0 * 2.0 * (1.0 - f) * bytes / i->measured_cpu[h] / host_bw);
            any = 1;
        } else {
            o += (size_t)snprintf(s + o, n - o, "%s-", h ? "/" : "");
        }
    }
    if (!any)
        snprintf(s, n, "-");
}

static void show(const cand *c, int nr, double bytes) {
    char sh[48], pr[64] = "-", me[64], er[48], mem[32];
    shares_text(sh, sizeof sh, c->ratio, nr);
    if (!c->r.ok) {
        printf("  %-26s %-19s failed\n", c->label, sh);
        fflush(stdout);
        return;
    }
    if (c->predicted[0] > 0)
        rounds_text(pr, sizeof pr, c->predicted, nr);
    rounds_text(me, sizeof me, c->r.round, nr);
    error_text(er, sizeof er, c, nr);
    memory_text(mem, sizeof mem, c, bytes, nr);
    printf("  %-26s %-19s %-22s %-22s %-12s %-11s %8.4f %6.2f%s\n", c->label, sh, pr, me, er, mem,
           c->r.total, c->r.plan_s, c->r.stopped ? "  (lost: stopped)" : "");
    fflush(stdout);
}

static void table_head(void) {
    printf("  %-26s %-19s %-22s %-22s %-12s %-11s %8s %6s\n", "candidate", "GPU share/round",
           "predicted s/round", "measured s/round", "model error", "cpu_mem", "total_s", "plan_s");
}

/* ---- tuning one problem ---- */

typedef struct tuner {
    const problem *p;
    int inplace;
    const hfft__link *link;
    void *in, *out;
    int nr;
    double bytes;
    cand c[MAX_CANDS];
    int n;
    int paused; /* GPU-only under SHORT_S: CPU-only timed reps times, and the runs again
                   time each execute after a pause */
    /* what the steps found */
    cand proto;             /* GPU-only with the planner's passes, as asked */
    cand *gpu;              /* the fastest GPU-only candidate */
    cand *base;             /* the GPU side the hybrids' model starts from */
    cand *cpu;              /* CPU-only */
    const cand *cpu_rates;  /* the CPU side the model takes its rates from */
    int hs;                 /* the schedule the hybrids stream (hfft_info.schedule) */
    int hybrid_threads;
    hfft__round_model m[3]; /* the model of each round, refitted after each hybrid */
    double t_cpu[3], share[3];
} tuner;

/* The outcome: the candidate kept, the one whose prediction the model's error is
   of, and the times the table reports. */
typedef struct choice {
    const cand *best, *judged;
    double best_t, gpu_t, cpu_t;
    int again;
} choice;

static cand *run(tuner *t, const cand *proto, int nreps, double give_up) {
    cand *c = &t->c[t->n++];
    *c = *proto;
    c->r = measure(t->p, t->in, t->out, c, nreps, give_up);
    show(c, t->nr, t->bytes);
    return c;
}

/* The schedule a hybrid with c's GPU settings streams (hfft_info.schedule; 0 where
   none can be planned): planned at a share of 0.8, never executed. */
static int hybrid_schedule(const tuner *t, const cand *c) {
    cand hy = *c;
    hy.flags = HFFT_HYBRID;
    for (int h = 0; h < 3; h++)
        hy.ratio[h] = 0.8;
    void *plan = make_plan(t->p, t->in, t->out, &hy);
    if (!plan)
        return 0;
    hfft_info info;
    if (t->p->prec == 4) {
        hfftf_plan_info(plan, &info);
        hfftf_destroy_plan(plan);
    } else {
        hfft_plan_info(plan, &info);
        hfft_destroy_plan(plan);
    }
    return info.schedule;
}

/* Candidate c timed once more ("..., again"), with the model's prediction for it
   where one is given; runs[0..1] its two totals (0: the second failed), and the
   mean of both (the first alone where the second failed).  Where the problem is
   short (t->paused) each of these executes follows a pause and an untimed one, so
   that a candidate kept has won both back to back and after its cores idled. */
static double run_again(tuner *t, const cand *c, const double *predicted, const cand **again,
                        double runs[2]) {
    cand a = *c;
    a.paused = t->paused;
    snprintf(a.label, sizeof a.label, "%.32s, again", c->label);
    if (predicted)
        memcpy(a.predicted, predicted, sizeof a.predicted);
    const cand *r = run(t, &a, reps, 0.0);
    if (again)
        *again = r;
    runs[0] = c->r.total;
    runs[1] = r->r.ok ? r->r.total : 0.0;
    return r->r.ok ? 0.5 * (c->r.total + r->r.total) : c->r.total;
}

/* A prediction, or 0 (none) where the model has no finite one (a side it has no
   rate for). */
static double finite_or_none(double t) { return isfinite(t) && t > 0 ? t : 0.0; }

static double geometric_mean(const double *x, int n) {
    double s = 0;
    for (int i = 0; i < n; i++)
        s += log(x[i]);
    return exp(s / n);
}

/* The model of round h from the GPU-only and CPU-only times; the CPU-only
   rate is scaled to the thread count of hybrid plans (a core feeds each card). */
static void model_of(const tuner *t, const cand *gpu, const cand *cpu, int h, int hybrid_threads,
                     hfft__round_model *m, double *t_cpu) {
    memset(m, 0, sizeof *m);
    m->bytes = t->bytes;
    m->cards = ncards;
    m->gpu_rate = gpu->r.round[h] > 0 ? t->bytes / gpu->r.round[h] : 0.0;
    *t_cpu = 0.0;
    /* (a CPU-only plan keeps 3D planes whole, where the GPU's may split them) */
    if (cpu->flags == HFFT_HYBRID) {
        /* the CPU's side of a hybrid that left the GPU a unit a round: its time over
           its share */
        double f = 1.0 - cpu->r.info.ratio[h];
        if (cpu->r.ok && cpu->r.cpu[h] > 0 && f > 0.5 && cpu->r.info.threads > 0)
            *t_cpu = cpu->r.cpu[h] / f * cpu->r.info.threads / (double)hybrid_threads;
    } else if (cpu->r.ok && cpu->r.info.rounds == t->nr && cpu->r.round[h] > 0 &&
               cpu->r.info.threads > 0) {
        *t_cpu = cpu->r.round[h] * cpu->r.info.threads / (double)hybrid_threads;
    }
    m->cpu_rate = *t_cpu > 0 ? t->bytes / *t_cpu : 0.0;
}

/* The problem's name, its arrays (random data), and the table's head; 1 where the
   arrays cannot be had. */
static int tuner_open(tuner *t, const problem *p, int inplace, const hfft__link *link,
                      summary *sum) {
    /* the complex side's bytes, as plans count them (a real side is no larger) */
    int64_t cx, rx;
    extents(p, inplace, &cx, &rx);
    size_t bytes = (size_t)(cx * p->howmany) * 2u * (size_t)p->prec;
    t->p = p;
    t->inplace = inplace;
    t->link = link;
    t->bytes = (double)bytes;
    t->nr = p->rank == 3 ? 2 : p->rank;
    memset(sum, 0, sizeof *sum);
    size_t o = (size_t)snprintf(sum->name, sizeof sum->name, "%dd ", p->rank);
    for (int k = 0; k < p->rank; k++)
        o += (size_t)snprintf(sum->name + o, sizeof sum->name - o, "%s%lld", k ? "x" : "",
                              (long long)p->n[k]);
    o += (size_t)snprintf(sum->name + o, sizeof sum->name - o, " %s%s",
                          p->kind == HFFT__C2C   ? "f"
                          : p->kind == HFFT__R2C ? "r"
                                                 : "c2r",
                          p->prec == 4 ? "32" : "64");
    if (p->howmany > 1 && o < sizeof sum->name)
        snprintf(sum->name + o, sizeof sum->name - o, " x %lld", (long long)p->howmany);
    sum->nr = t->nr;
    printf("\nproblem %s %s, %.2f GiB, budget %s\n", sum->name,
           inplace ? "in-place" : "out-of-place", bytes / 1073741824.0,
           budget ? "set" : "automatic");
    progress("%s: allocating and filling %.2f GiB\n", sum->name, bytes / 1073741824.0);
    t->in = hfft_malloc(bytes);
    t->out = inplace ? t->in : hfft_malloc(bytes);
    if (!t->in || !t->out || fill(t->in, bytes, p->prec)) {
        fprintf(stderr, "hfft-tune: cannot allocate %zu bytes\n", bytes);
        return 1;
    }
    table_head();
    return 0;
}

static void tuner_close(tuner *t) {
    hfft_free(t->in);
    if (t->out != t->in)
        hfft_free(t->out);
    free(t);
}

/*
 * The GPU side: the CPU's line plans measured once (every candidate uses them),
 * GPU-only with the planner's passes, then alternatives that must win at once.
 * A hybrid never runs one trip, and four-step shares its rounds with the CPU
 * only where the rows have one dimension (2D on one card): where GPU-only runs
 * one trip or streams four-step and a hybrid of its settings streams plain, a
 * plain GPU-only run is what the hybrids' model starts from (one trip's rounds
 * are not a streaming GPU side's), while GPU-only's own stays a candidate.  1
 * where GPU-only cannot run.
 */
static int gpu_side(tuner *t) {
    progress("[0/5] the CPU's FFTW plans, FFTW_MEASURE once a line shape\n");
    measure_lines(t->p, t->in, t->out, t->bytes);
    t->proto = (cand){"GPU-only", {1, 1, 1}, 0, 0, 0, HFFT_GPU_ONLY, 0, {0}, {0}};
    progress("[1/5] GPU-only, the planner's passes\n");
    t->gpu = run(t, &t->proto, reps, 0.0);
    if (!t->gpu->r.ok)
        return 1;
    /* the rounds as the planner cut them (3D planes split where one exceeds a pass) */
    if (t->gpu->r.info.rounds >= 1 && t->gpu->r.info.rounds <= 3)
        t->nr = t->gpu->r.info.rounds;
    static const struct {
        const char *label;
        int slots, schedule;
    } alts[] = {{"GPU-only, 3 buffers", 3, 0}, {"GPU-only, radix-2", 0, HFFT_SCHED_RADIX2}};
    for (size_t i = 0; i < sizeof alts / sizeof alts[0]; i++) {
        progress("[2/5] %s\n", alts[i].label);
        cand a = t->proto;
        snprintf(a.label, sizeof a.label, "%s", alts[i].label);
        a.slots = alts[i].slots;
        a.schedule = alts[i].schedule;
        cand *r = run(t, &a, reps, GIVE_UP * t->gpu->r.total);
        if (r->r.ok && !r->r.stopped && r->r.total < t->gpu->r.total &&
            (!alts[i].schedule || r->r.info.schedule == alts[i].schedule))
            t->gpu = r;
    }
    t->base = t->gpu;
    int gs = t->gpu->r.info.schedule;
    int unshared = gs == HFFT_SCHED_ONE_TRIP || gs == HFFT_SCHED_FOUR_STEP;
    t->hs = unshared ? hybrid_schedule(t, t->gpu) : gs;
    if (unshared && t->hs == HFFT_SCHED_NONE)
        progress("[2/5] no hybrid could be planned (%s); the model starts from GPU-only's "
                 "rounds\n",
                 hfft_last_error_message());
    if (unshared && t->hs == HFFT_SCHED_PLAIN) {
        progress("[2/5] GPU-only, plain (the hybrids' GPU side)\n");
        cand pl = t->proto;
        snprintf(pl.label, sizeof pl.label, "GPU-only, plain");
        pl.schedule = HFFT_SCHED_PLAIN;
        cand *r = run(t, &pl, reps, 0.0);
        if (r->r.ok && r->r.info.rounds == t->nr)
            t->base = r;
        else
            progress("[2/5] GPU-only, plain: %s; the model starts from GPU-only's rounds\n",
                     r->r.ok ? "other rounds than GPU-only's" : "failed");
    }
    /* no GPU-only plan runs the hybrids' four-step where GPU-only runs one trip (no
       flag asks for it): the model starts from one trip's rounds */
    if (gs == HFFT_SCHED_ONE_TRIP && t->hs == HFFT_SCHED_FOUR_STEP)
        progress("[2/5] the hybrids stream four-step, which no GPU-only plan of this size "
                 "runs; the model starts from one trip's rounds\n");
    return 0;
}

/*
 * The CPU side, once (reps times where the GPU side is short: one run of a few
 * milliseconds spreads too much).  Where the hybrids' GPU side streams
 * four-step and shares its layout with the CPU (2D on one card), the CPU's
 * rounds there differ from its own (round A: rows and short lines through a
 * group buffer; round B: short lines): the model takes the CPU's rates from a
 * hybrid that leaves the GPU one unit a round.
 */
static void cpu_side(tuner *t) {
    progress("[3/5] CPU-only\n");
    cand cp = {"CPU-only", {NONE_SHARE, NONE_SHARE, NONE_SHARE}, 0, 0, 0, HFFT_CPU_ONLY, 0, {0},
               {0}};
    t->paused = t->gpu->r.ok && t->gpu->r.total < SHORT_S;
    t->cpu = run(t, &cp, t->paused ? reps : 1, 0.0);
    t->cpu_rates = t->cpu;
    if ((t->base->r.info.schedule == HFFT_SCHED_FOUR_STEP || t->hs == HFFT_SCHED_FOUR_STEP) &&
        t->p->rank == 2 && t->p->howmany == 1 && ncards == 1 && t->n < MAX_CANDS - 8) {
        progress("[3/5] the CPU in the four-step layout\n");
        cand c4 = *t->base;
        snprintf(c4.label, sizeof c4.label, "CPU, four-step layout");
        c4.flags = HFFT_HYBRID;
        for (int h = 0; h < 3; h++)
            c4.ratio[h] = NONE_SHARE;
        cand *r4 = run(t, &c4, 1, 0.0);
        if (r4->r.ok && r4->r.info.schedule == HFFT_SCHED_FOUR_STEP)
            t->cpu_rates = r4;
    }
}

/*
 * Hybrids at the model's shares, refitted after each.  Each probe's fitted
 * slowdowns per round go into their geometric mean (two runs of one split
 * differ enough that a fit to the last probe alone follows its noise); a
 * round the model split leaves the hybrid only once the model fitted to two
 * probes says so.
 */
static void hybrids(tuner *t) {
    const hfft__link *link = t->link;
    int nr = t->nr;
    t->hybrid_threads = threads > 0 ? threads : hfft__cores() - ncards > 0 ? hfft__cores() - ncards
                                                                           : 1;
    for (int h = 0; h < 3; h++)
        t->share[h] = 1.0;
    for (int h = 0; h < nr; h++) {
        model_of(t, t->base, t->cpu_rates, h, t->hybrid_threads, &t->m[h], &t->t_cpu[h]);
        if (!(t->t_cpu[h] > 0) && t->cpu_rates != t->cpu) /* no CPU time there: CPU-only's */
            model_of(t, t->base, t->cpu, h, t->hybrid_threads, &t->m[h], &t->t_cpu[h]);
        t->m[h].host_bw = host_bw;
        t->share[h] = hfft__model_best_share(link, &t->m[h], 0.0, NULL);
    }
    double slow_g[3][MAX_PROBES], slow_c[3][MAX_PROBES];
    int fits_g[3] = {0, 0, 0}, fits_c[3] = {0, 0, 0}, probes[3] = {0, 0, 0};
    for (int k = 0; k < MAX_PROBES; k++) {
        cand hy = *t->base;
        snprintf(hy.label, sizeof hy.label, "hybrid %d (model's shares)", k + 1);
        hy.flags = HFFT_HYBRID;
        for (int h = 0; h < 3; h++) {
            double f = h < nr ? t->share[h] : 1.0;
            /* a side the model leaves idle gets a little anyway, once: it may be wrong */
            if (k == 0 && h < nr && f > 0.97)
                f = 0.97;
            if (k == 0 && h < nr && f < 0.03)
                f = 0.03;
            hy.ratio[h] = f > NONE_SHARE ? f : NONE_SHARE;
            if (h < nr)
                hy.predicted[h] =
                    finite_or_none(hfft__model_round_time(link, &t->m[h], hy.ratio[h]));
        }
        progress("[4/5] hybrid %d of at most %d\n", k + 1, MAX_PROBES);
        cand *r = run(t, &hy, reps, 0.0);
        if (!r->r.ok)
            break;
        double moved = 0;
        for (int h = 0; h < nr; h++) {
            double f = r->ratio[h];
            if (!(f > NONE_SHARE && f < 1.0))
                continue;
            hfft__round_model *m = &t->m[h];
            /* fitted to the shares each side did: the GPU takes back a late CPU's units,
               and its side's time then covers them */
            double fd = r->r.done[h] > f && r->r.done[h] < 0.999 ? r->r.done[h] : f;
            hfft__model_fit(m, t->base->r.round[h], t->t_cpu[h], fd, r->r.gpu[h], r->r.cpu[h]);
            /* a side the probe did not time keeps the mean of those that did */
            if (r->r.gpu[h] > 0)
                slow_g[h][fits_g[h]++] = m->gpu_slow;
            if (r->r.cpu[h] > 0)
                slow_c[h][fits_c[h]++] = m->cpu_slow;
            m->gpu_slow = fits_g[h] ? geometric_mean(slow_g[h], fits_g[h]) : 1.0;
            m->cpu_slow = fits_c[h] ? geometric_mean(slow_c[h], fits_c[h]) : 1.0;
            int again;
            double next = hfft__model_next_share(link, m, t->share[h], f, ++probes[h], &again);
            if (again)
                progress("round %d: this probe alone would give it wholly to the %s; "
                         "probed again at the same share\n",
                         h + 1, hfft__model_best_share(link, m, 0.0, NULL) > 0.5 ? "GPU" : "CPU");
            double step = again ? 1.0 : fabs(next - t->share[h]);
            moved = step > moved ? step : moved;
            t->share[h] = next;
        }
        if (moved < SETTLED)
            break;
    }
}

/* The best measured time of each round, among candidates with the GPU side's chosen
   passes; one more run where no candidate has that mix. */
static void best_mix(tuner *t) {
    int nr = t->nr, pick[3] = {0, 0, 0};
    const cand *base = t->base;
    for (int h = 0; h < nr; h++) {
        int b = -1;
        for (int i = 0; i < t->n; i++) {
            const cand *c = &t->c[i];
            int same_gpu = c->flags == HFFT_CPU_ONLY ||
                           (c->slots == base->slots && c->pass_bytes == base->pass_bytes &&
                            c->schedule == base->schedule);
            if (c->r.ok && !c->r.stopped && same_gpu && c->r.round[h] > 0 &&
                (b < 0 || c->r.round[h] < t->c[b].r.round[h]))
                b = i;
        }
        pick[h] = b;
    }
    /* (a round no candidate timed, pick -1: no mix) */
    int same = 1, none = 0;
    for (int h = 0; h < nr; h++) {
        same &= pick[h] == pick[0];
        none |= pick[h] < 0;
    }
    if (same || none || t->n >= MAX_CANDS)
        return;
    cand mix = *base;
    snprintf(mix.label, sizeof mix.label, "best round of each");
    mix.flags = HFFT_HYBRID;
    for (int h = 0; h < 3; h++) {
        mix.ratio[h] = h < nr ? t->c[pick[h]].ratio[h] : 1.0;
        if (h < nr)
            mix.predicted[h] =
                finite_or_none(hfft__model_round_time(t->link, &t->m[h], mix.ratio[h]));
    }
    progress("[5/5] the best round of each candidate, together\n");
    run(t, &mix, reps, 0.0);
}

/*
 * The fastest candidate measured in full.  A hybrid is timed again, and so is
 * the faster single side, one after the other; it stays only where each of its
 * runs beats each of the single side's by more than KEEP_MARGIN (a hybrid's
 * win in one process can be another's loss).  Where a single side comes out
 * fastest and the other is within CLOSE of it, both are timed again and
 * CPU-only stays only by the same margins.  Where GPU-only takes under
 * SHORT_S, these runs again time each execute after a pause, as the bench
 * does (measure).
 */
static void choose(tuner *t, choice *ch) {
    const cand *best = NULL, *cpu = t->cpu;
    for (int i = 0; i < t->n; i++) {
        const cand *c = &t->c[i];
        if (c->r.ok && !c->r.stopped && (!best || c->r.total < best->r.total))
            best = c;
    }
    /* the GPU side: the fastest GPU-only candidate, which may be the plain base */
    const cand *g1 = best->flags == HFFT_GPU_ONLY ? best
                     : t->base != t->gpu && t->base->r.ok && !t->base->r.stopped &&
                             t->base->r.total < t->gpu->r.total
                         ? t->base
                         : t->gpu;
    ch->best = ch->judged = best;
    ch->best_t = best->r.total;
    ch->gpu_t = g1->r.total;
    ch->cpu_t = cpu->r.ok ? cpu->r.total : NAN;
    ch->again = 0;
    const cand *single = cpu->r.ok && cpu->r.total < g1->r.total ? cpu : g1;
    double single_t = single->r.total, single_runs[2] = {single->r.total, 0.0};
    if (best->flags == HFFT_HYBRID && t->n + 2 <= MAX_CANDS) {
        progress("[5/5] the fastest hybrid and the faster single side, again%s\n",
                 t->paused ? " (each execute after a pause)" : "");
        /* the model fitted to every hybrid measured predicts the run again */
        double pred[3] = {0, 0, 0}, hr[2];
        for (int h = 0; h < t->nr; h++)
            pred[h] = finite_or_none(hfft__model_round_time(t->link, &t->m[h], best->ratio[h]));
        const cand *h2;
        double th = run_again(t, best, pred, &h2, hr);
        single_t = run_again(t, single, NULL, NULL, single_runs);
        ch->again = 1;
        if (hfft__model_keep(hr, single_runs,
                             single_t < SHORT_T ? KEEP_MARGIN_SHORT : KEEP_MARGIN)) {
            ch->best_t = th;
            ch->judged = h2;
        } else {
            ch->best = ch->judged = single;
            ch->best_t = single_t;
        }
    }
    const cand *other = single == cpu ? g1 : cpu;
    if (ch->best->flags != HFFT_HYBRID && other->r.ok &&
        other->r.total < single->r.total * (1.0 + CLOSE) && t->n + 2 <= MAX_CANDS) {
        progress("[5/5] GPU-only and CPU-only within %.0f%%, again%s\n", 100.0 * CLOSE,
                 t->paused ? " (each execute after a pause)" : "");
        if (!ch->again)
            single_t = run_again(t, single, NULL, NULL, single_runs);
        double other_runs[2];
        double to = run_again(t, other, NULL, NULL, other_runs);
        ch->again = 1;
        /* CPU-only as a hybrid: kept only where each of its runs beats each of
           GPU-only's by the margin */
        const double *cr = other == cpu ? other_runs : single_runs;
        const double *gr = other == cpu ? single_runs : other_runs;
        double tc = other == cpu ? to : single_t, tg = other == cpu ? single_t : to;
        double margin = tg < SHORT_T ? KEEP_MARGIN_SHORT : KEEP_MARGIN;
        int keep_cpu = hfft__model_keep(cr, gr, margin);
        ch->best = ch->judged = keep_cpu ? cpu : g1;
        ch->best_t = keep_cpu ? tc : tg;
        if (other == g1)
            ch->gpu_t = to;
        else
            ch->cpu_t = to;
    }
    if (single == g1)
        ch->gpu_t = single_t;
    else
        ch->cpu_t = single_t;
}

/* The choice printed, kept in wisdom and in the summary; 1 where wisdom refused it. */
static int record(tuner *t, const choice *ch, hfft__wisdom *w, summary *sum, double t_problem) {
    const cand *best = ch->best;
    int nr = t->nr;
    char sh[48];
    shares_text(sh, sizeof sh, best->ratio, nr);
    printf("  chosen: %s, shares %s, %.4f s%s: GPU-only %.4f s, CPU-only %.4f s (%.1f%% less "
           "than GPU-only)\n",
           best->label, sh, ch->best_t, ch->again ? " (both runs)" : "", ch->gpu_t, ch->cpu_t,
           100.0 * (1.0 - ch->best_t / ch->gpu_t));
    printf("  model:");
    for (int h = 0; h < nr; h++)
        printf(" round %d GPU %.1f GB/s x%.2f, CPU %.1f GB/s x%.2f;", h + 1,
               t->m[h].gpu_rate / 1e9, t->m[h].gpu_slow > 0 ? t->m[h].gpu_slow : 1.0,
               t->m[h].cpu_rate / 1e9, t->m[h].cpu_slow > 0 ? t->m[h].cpu_slow : 1.0);
    printf(" host memory %.1f GB/s\n", host_bw / 1e9);
    printf("  cpu_mem: each round's CPU side (its share read and written once) against the host "
           "memory's %.1f GB/s\n",
           host_bw / 1e9);
    progress("%s tuned in %.1f s\n", sum->name, hfft__now() - t_problem);
    const problem *p = t->p;
    hfft__wisdom_problem q;
    memset(&q, 0, sizeof q);
    q.kind = p->kind;
    q.prec = p->prec;
    q.rank = p->rank;
    memcpy(q.n, p->n, sizeof q.n);
    q.howmany = p->howmany;
    q.inplace = t->inplace;
    q.budget = budget;
    q.slots = best->slots;
    q.pass_bytes = best->pass_bytes;
    /* a hybrid measured on the plain base runs plain whatever it asks (it never runs
       one trip, and four-step shares no 3D plan's rounds); its wisdom names no
       schedule, so that a GPU-only plan reading it keeps the planner's one trip or
       four-step */
    q.schedule =
        t->base != t->gpu && best->flags == HFFT_HYBRID ? t->gpu->schedule : best->schedule;
    q.nratio = nr;
    for (int h = 0; h < nr; h++) {
        q.ratio[h] = best->flags == HFFT_CPU_ONLY ? 0.0 : best->ratio[h];
        q.predicted[h] = finite_or_none(hfft__model_round_time(t->link, &t->m[h], q.ratio[h]));
        q.measured[h] = best->r.round[h];
        q.gpu_rate[h] = t->m[h].gpu_rate;
        q.cpu_rate[h] = t->m[h].cpu_rate;
        q.gpu_slow[h] = t->m[h].gpu_slow > 0 ? t->m[h].gpu_slow : 1.0;
        q.cpu_slow[h] = t->m[h].cpu_slow > 0 ? t->m[h].cpu_slow : 1.0;
    }
    sum->ok = 1;
    sum->nr = nr;
    sum->gpu = ch->gpu_t;
    sum->cpu = ch->cpu_t;
    sum->tuned = ch->best_t;
    for (int h = 0; h < nr; h++) {
        const cand *j = ch->judged;
        sum->share[h] = q.ratio[h];
        sum->err[h] = j->predicted[h] > 0 && j->r.round[h] > 0
                          ? j->predicted[h] / j->r.round[h] - 1.0
                          : NAN;
    }
    sum->seconds = hfft__now() - t_problem;
    return hfft__wisdom_add(w, &q) ? 1 : 0;
}

/* One problem tuned, step by step (see the file's opening comment); 1 on failure. */
static int tune(const problem *p, int inplace, const hfft__link *link, hfft__wisdom *w,
                summary *sum) {
    double t_problem = hfft__now();
    tuner *t = calloc(1, sizeof *t);
    if (!t)
        return 1;
    int st = tuner_open(t, p, inplace, link, sum);
    if (!st)
        st = gpu_side(t);
    if (!st) {
        sum->nr = t->nr;
        cpu_side(t);
        hybrids(t);
        best_mix(t);
        choice ch;
        choose(t, &ch);
        st = record(t, &ch, w, sum, t_problem);
    }
    tuner_close(t);
    return st;
}

static void final_table(const summary *s, int n) {
    printf("\nsummary (times in s; shares are the GPU's per round; model error: a chosen hybrid's "
           "run again against the model fitted to every hybrid before it)\n");
    printf("  %-24s %9s %9s %9s %8s %-15s %-14s %8s\n", "problem", "GPU-only", "CPU-only", "tuned",
           "gain", "shares", "model error", "tuning");
    for (int i = 0; i < n; i++) {
        if (!s[i].ok) {
            printf("  %-24s failed\n", s[i].name);
            continue;
        }
        char sh[48], er[48] = "-";
        shares_text(sh, sizeof sh, s[i].share, s[i].nr);
        size_t o = 0;
        for (int h = 0; h < s[i].nr && !isnan(s[i].err[h]); h++)
            o += (size_t)snprintf(er + o, sizeof er - o, "%s%+.0f%%", h ? "/" : "",
                                  100.0 * s[i].err[h]);
        printf("  %-24s %9.4f %9.4f %9.4f %7.1f%% %-15s %-14s %7.1fs\n", s[i].name, s[i].gpu,
               s[i].cpu, s[i].tuned, 100.0 * (1.0 - s[i].tuned / s[i].gpu), sh, er, s[i].seconds);
    }
}

/* The command line: options into the globals, problems into probs; 0, or the exit
   status (help printed: -1). */
static int parse_args(int argc, char **argv, const char **wpath, int *inplace, problem *probs,
                      int *np) {
    static const struct option opts[] = {{"budget", required_argument, 0, 'b'},
                                         {"wisdom", required_argument, 0, 'w'},
                                         {"out-of-place", no_argument, 0, 'o'},
                                         {"reps", required_argument, 0, 'r'},
                                         {"threads", required_argument, 0, 't'},
                                         {"quiet", no_argument, 0, 'q'},
                                         {"devices", required_argument, 0, 'd'},
                                         {"help", no_argument, 0, 'h'},
                                         {0, 0, 0, 0}};
    int c;
    while ((c = getopt_long(argc, argv, "b:w:or:t:d:qh", opts, NULL)) != -1) {
        switch (c) {
        case 'b':
            if (hfft_parse_bytes(optarg, &budget)) {
                fprintf(stderr, "hfft-tune: %s\n", hfft_last_error_message());
                return 2;
            }
            break;
        case 'w': *wpath = optarg; break;
        case 'o': *inplace = 0; break;
        case 'r':
            reps = atoi(optarg);
            if (reps < 1 || reps > 15) {
                fprintf(stderr, "hfft-tune: --reps takes 1 to 15\n");
                return 2;
            }
            break;
        case 't': threads = atoi(optarg); break;
        case 'd': devices = optarg; break;
        case 'q': quiet = 1; break;
        case 'h': usage(stdout); return -1;
        default: usage(stderr); return 2;
        }
    }
    *np = 0;
    for (int i = optind; i < argc && *np < 32; i++) {
        char a[32], b[64], d[16];
        if (strchr(argv[i], ':') && sscanf(argv[i], "%31[^:]:%63[^:]:%15s", a, b, d) == 3) {
            if (parse_problem(a, b, d, &probs[*np]) == 0) {
                (*np)++;
                continue;
            }
        } else if (i + 2 < argc &&
                   parse_problem(argv[i], argv[i + 1], argv[i + 2], &probs[*np]) == 0) {
            (*np)++;
            i += 2;
            continue;
        }
        fprintf(stderr, "hfft-tune: cannot read problem at '%s'\n", argv[i]);
        usage(stderr);
        return 2;
    }
    if (*np == 0) {
        usage(stderr);
        return 2;
    }
    return 0;
}

/* The wisdom file to update: --wisdom, else HFFT_WISDOM, else the default path; 0, or
   the exit status. */
static int wisdom_path(const char **wpath, char *path, size_t size) {
    if (!*wpath)
        *wpath = getenv("HFFT_WISDOM");
    if (!*wpath || !**wpath) {
        if (hfft__wisdom_default_path(path, size)) {
            fprintf(stderr, "hfft-tune: no wisdom path: set --wisdom or HFFT_WISDOM\n");
            return 2;
        }
        *wpath = path;
    }
    if (strcmp(*wpath, "none") == 0) {
        /* what plans read as "no wisdom" names no file to write */
        fprintf(stderr, "hfft-tune: wisdom \"none\": hfft-tune writes wisdom; give it a file "
                        "(--wisdom FILE or HFFT_WISDOM)\n");
        return 2;
    }
    return 0;
}

/* The cards plans of these settings take, their link and the host memory measured, and
   the wisdom read (or started afresh where another configuration made it); 0, or the
   exit status. */
static int calibrate(const char *wpath, hfft__wisdom *w, hfft__link *link, int *nthreads) {
    /* the settings a plan of ours resolves: the device, the cards and the threads */
    hfft_options so;
    hfft_options_init(&so);
    so.device_memory = budget;
    so.threads = threads;
    so.devices = devices;
    hfft__settings set;
    if (hfft__settings_resolve(&so, &set)) {
        fprintf(stderr, "hfft-tune: %s\n", hfft_last_error_message());
        return 2;
    }
    int kind = set.device == HFFT_DEVICE_EMULATED ? HFFT_DEVICE_EMULATED : HFFT_DEVICE_CUDA;
    settle_s = kind == HFFT_DEVICE_CUDA ? SETTLE_S : 0.0;
    const hfft__dev_ops *ops = hfft__device_ops(kind);
    hfft__dev *cards[HFFT_MAX_CARDS];
    if (!ops || (kind == HFFT_DEVICE_CUDA && !hfft__cuda_usable())) {
        fprintf(stderr, "hfft-tune: no usable GPU (HFFT_DEVICE=emulated tunes the test double)\n");
        return 1;
    }
    if (hfft__devices_open(ops, &set, cards, &ncards)) {
        fprintf(stderr, "hfft-tune: %s\n", hfft_last_error_message());
        return 1;
    }
    int st = hfft__wisdom_read(wpath, w);
    char here[HFFT__SIGNATURE_MAX];
    *nthreads = set.threads > 0 ? set.threads : hfft__cores();
    hfft__signature(ops, cards, ncards, *nthreads, here, sizeof here);
    char what[160];
    if (st < 0) {
        fprintf(stderr, "hfft-tune: %s (remove or fix the file)\n", hfft_last_error_message());
        for (int k = ncards - 1; k >= 0; k--)
            ops->close(cards[k]);
        return 1;
    }
    if (st == 0 && hfft__signature_diff(w->signature, here, what, sizeof what)) {
        fprintf(stderr, "hfft-tune: %s was made on another configuration (%s); starting afresh\n",
                wpath, what);
        memset(w, 0, sizeof *w);
    }
    snprintf(w->signature, sizeof w->signature, "%s", here);
    printf("hfft-tune %s on %d x %s (cards", hfft_version(), ncards, ops->describe(cards[0]));
    for (int k = 0; k < ncards; k++)
        printf("%s%d", k ? "," : " ", ops->ordinal(cards[k]));
    printf("), %d CPU threads\n", *nthreads);
    progress("calibrating the link%s\n", ncards > 1 ? ", one card and all at once" : "");
    st = hfft__calibrate_link(ops, cards, ncards, 0, link);
    if (st)
        fprintf(stderr, "hfft-tune: %s\n", hfft_last_error_message());
    for (int k = ncards - 1; k >= 0; k--)
        ops->close(cards[k]);
    if (st)
        return 1;
    w->link = *link;
    w->have_link = 1;
    printf("link: h2d %.1f GB/s, d2h %.1f GB/s, duplex %.1f GB/s per direction; 2D rows",
           link->h2d / 1e9, link->d2h / 1e9, link->duplex / 1e9);
    for (int i = 0; i < link->nrow; i++)
        printf(" %.0fK:%.2f", link->row_bytes[i] / 1024, link->row_eff[i]);
    printf("\n");
    if (link->cards > 1)
        printf("link, all %d cards at once: h2d %.1f GB/s, d2h %.1f GB/s, duplex %.1f GB/s per "
               "direction in total\n",
               link->cards, link->all_h2d / 1e9, link->all_d2h / 1e9, link->all_duplex / 1e9);
    progress("measuring the host memory\n");
    hfft__pool *pool;
    if (hfft__pool_create(*nthreads, 0, &pool) ||
        hfft__host_bandwidth(pool, HOST_BYTES, 5, &host_bw)) {
        fprintf(stderr, "hfft-tune: host memory: %s\n", hfft_last_error_message());
        return 1;
    }
    hfft__pool_destroy(pool);
    w->host_bw = host_bw;
    printf("host memory: %.1f GB/s (copy with %d threads, bytes read plus written)\n",
           host_bw / 1e9, *nthreads);
    return 0;
}

/* The problems tuned in turn, the table, and both wisdoms written (FFTW's measured
   line plans beside hfft's, kept from earlier runs and added to); the exit status. */
static int tune_all(const problem *probs, int np, int inplace, const char *wpath,
                    hfft__wisdom *w, const hfft__link *link) {
    char fw[2][1100];
    int have_fw[2] = {0, 0}, fw_ok[2] = {0, 0};
    for (int k = 0; k < 2; k++)
        if ((fw_ok[k] = hfft__wisdom_fftw_path(wpath, k ? 8 : 4, fw[k], sizeof fw[k]) == 0))
            (void)hfft__fftw_wisdom_import(k ? 8 : 4, fw[k]);
    int fails = 0;
    summary sums[32];
    for (int i = 0; i < np; i++) {
        fails += tune(&probs[i], inplace, link, w, &sums[i]);
        have_fw[probs[i].prec == 8] = 1;
    }
    final_table(sums, np);
    if (hfft__wisdom_write(wpath, w)) {
        fprintf(stderr, "hfft-tune: %s\n", hfft_last_error_message());
        return 1;
    }
    for (int k = 0; k < 2; k++) {
        if (!have_fw[k] || !fw_ok[k])
            continue;
        if (hfft__fftw_wisdom_export(k ? 8 : 4, fw[k])) {
            fprintf(stderr, "hfft-tune: %s\n", hfft_last_error_message());
            return 1;
        }
        printf("FFTW's measured line plans written to %s\n", fw[k]);
    }
    printf("wisdom written to %s (%.1f s in all)\n", wpath, hfft__now() - t_start);
    return fails ? 1 : 0;
}

int main(int argc, char **argv) {
    const char *wpath = NULL;
    int inplace = 1, np, nthreads;
    problem probs[32];
    char path[1024];
    t_start = hfft__now();
    setvbuf(stdout, NULL, _IOLBF, 0); /* lines in order with the progress on stderr */
    int st = parse_args(argc, argv, &wpath, &inplace, probs, &np);
    if (st)
        return st < 0 ? 0 : st;
    if ((st = wisdom_path(&wpath, path, sizeof path)) != 0)
        return st;
    hfft__wisdom *w = calloc(1, sizeof *w);
    if (!w)
        return 1;
    hfft__link link;
    st = calibrate(wpath, w, &link, &nthreads);
    if (!st)
        st = tune_all(probs, np, inplace, wpath, w, &link);
    free(w);
    return st;
}
