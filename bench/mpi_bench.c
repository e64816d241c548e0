/*
 * mpi_bench.c: hfft-mpi-bench, distributed transforms side by side in one run:
 * hfft_mpi against FFTW-MPI (the same ranks, T threads per rank) on the same
 * distributed data.  Prints plan and median execute times, GFLOPS, the
 * all-to-all's share (time in its MPI calls: hfft_mpi reports its own,
 * FFTW-MPI's are timed by wrapping the MPI calls its transposes make) and the
 * relative RMS error against FFTW-MPI in higher precision on the same input;
 * one CSV row per engine.  Run under mpirun; see bench/README.md.
 */
#define _GNU_SOURCE
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <fftw3-mpi.h>
#include <mpi.h>

#include "hfft.h"
#include "hfft_mpi.h"

static int me, ranks;

/* ---- FFTW-MPI's transposes' MPI calls, timed (PMPI interposition) ---- */

static int timing;
static double mpi_time;

#define TIMED(call)                            \
    do {                                       \
        double t0_ = timing ? MPI_Wtime() : 0; \
        int rc_ = (call);                      \
        if (timing)                            \
            mpi_time += MPI_Wtime() - t0_;     \
        return rc_;                            \
    } while (0)

int MPI_Alltoall(const void *sb, int sc, MPI_Datatype st, void *rb, int rc, MPI_Datatype rt,
                 MPI_Comm comm) {
    TIMED(PMPI_Alltoall(sb, sc, st, rb, rc, rt, comm));
}
int MPI_Alltoallv(const void *sb, const int *sc, const int *sd, MPI_Datatype st, void *rb,
                  const int *rc, const int *rd, MPI_Datatype rt, MPI_Comm comm) {
    TIMED(PMPI_Alltoallv(sb, sc, sd, st, rb, rc, rd, rt, comm));
}
int MPI_Sendrecv(const void *sb, int sc, MPI_Datatype st, int dest, int stag, void *rb, int rc,
                 MPI_Datatype rt, int src, int rtag, MPI_Comm comm, MPI_Status *status) {
    TIMED(PMPI_Sendrecv(sb, sc, st, dest, stag, rb, rc, rt, src, rtag, comm, status));
}
int MPI_Send(const void *b, int c, MPI_Datatype t, int dest, int tag, MPI_Comm comm) {
    TIMED(PMPI_Send(b, c, t, dest, tag, comm));
}
int MPI_Recv(void *b, int c, MPI_Datatype t, int src, int tag, MPI_Comm comm, MPI_Status *s) {
    TIMED(PMPI_Recv(b, c, t, src, tag, comm, s));
}

/* ---- options ---- */

typedef struct opts {
    int reps, fftw_reps, threads, verify, inplace, transposed, fftw_measure;
    int run_hfft, run_fftw;
    unsigned mode;
    int64_t budget;
    const char *csv;
    unsigned long long seed;
} opts;

static void usage(FILE *f) {
    fprintf(f, "usage: mpirun -np R hfft-mpi-bench [options] PROBLEM...\n"
               "  PROBLEM  2d:N0xN1[:f32|f64] or 3d:N0xN1xN2[:f32|f64] (default f32)\n"
               "options:\n"
               "  --reps N          timed executes of hfft_mpi (default 5; the median is shown)\n"
               "  --fftw-reps N     timed executes of FFTW-MPI (default 3)\n"
               "  --threads T       CPU threads per rank, FFTW-MPI's and hfft's node plans'\n"
               "                    (default: the cores of the rank's binding)\n"
               "  --engines LIST    hfft,fftw (default both)\n"
               "  --mode M          hfft placement: auto (default), gpu, cpu, hybrid\n"
               "  --budget BYTES    hfft device budget per rank (hfft_options.device_memory)\n"
               "  --out-of-place    out of place (default in place)\n"
               "  --transposed      TRANSPOSED_OUT on both engines\n"
               "  --fftw-measure    FFTW_MEASURE (60 s limit) instead of FFTW_ESTIMATE\n"
               "  --verify M        auto (default: where the higher-precision reference of the\n"
               "                    whole problem takes at most 16 GiB), on, off\n"
               "  --csv FILE        append a CSV row per engine (rank 0)\n"
               "  --seed S          input seed\n");
}

static int parse(int argc, char **argv, opts *o, char **probs, int *np) {
    *o = (opts){5, 3, 0, -1, 1, 0, 0, 1, 1, 0, 0, NULL, 12345};
    *np = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        int takes = 1;
        if (!strcmp(a, "--reps") && v)
            o->reps = atoi(v);
        else if (!strcmp(a, "--fftw-reps") && v)
            o->fftw_reps = atoi(v);
        else if (!strcmp(a, "--threads") && v)
            o->threads = atoi(v);
        else if (!strcmp(a, "--engines") && v) {
            o->run_hfft = strstr(v, "hfft") != NULL;
            o->run_fftw = strstr(v, "fftw") != NULL;
        } else if (!strcmp(a, "--mode") && v) {
            o->mode = !strcmp(v, "gpu")      ? HFFT_GPU_ONLY
                      : !strcmp(v, "cpu")    ? HFFT_CPU_ONLY
                      : !strcmp(v, "hybrid") ? HFFT_HYBRID
                                             : 0;
            if (o->mode == 0 && strcmp(v, "auto"))
                return 2;
        } else if (!strcmp(a, "--budget") && v) {
            if (hfft_parse_bytes(v, &o->budget))
                return 2;
        } else if (!strcmp(a, "--verify") && v) {
            o->verify = !strcmp(v, "on") ? 1 : !strcmp(v, "off") ? 0 : -1;
        } else if (!strcmp(a, "--csv") && v) {
            o->csv = v;
        } else if (!strcmp(a, "--seed") && v) {
            o->seed = strtoull(v, NULL, 10);
        } else {
            takes = 0;
            if (!strcmp(a, "--out-of-place"))
                o->inplace = 0;
            else if (!strcmp(a, "--transposed"))
                o->transposed = 1;
            else if (!strcmp(a, "--fftw-measure"))
                o->fftw_measure = 1;
            else if (!strcmp(a, "--help") || !strcmp(a, "-h"))
                return 1;
            else if (a[0] == '-')
                return 2;
            else
                probs[(*np)++] = argv[i];
        }
        i += takes;
    }
    return *np && o->reps > 0 && o->fftw_reps > 0 ? 0 : 2;
}

/* ---- a problem and this rank's part of it ---- */

typedef struct prob {
    const char *text;
    int rnk, prec;
    ptrdiff_t n[3];
    int64_t total, rowlen, rest;
    ptrdiff_t alloc, ln0, s0, ln1, s1; /* FFTW-MPI's local sizes */
    int64_t local;                     /* elements of this rank's output */
} prob;

static int parse_problem(const char *s, prob *p, int transposed, MPI_Comm comm) {
    long long a[3] = {1, 1, 1};
    char prec[4] = "f32";
    int rnk = 0, used = 0;
    if (sscanf(s, "%dd:%n", &rnk, &used) != 1 || (rnk != 2 && rnk != 3))
        return -1;
    int k = rnk == 2 ? sscanf(s + used, "%lldx%lld:%3s", &a[0], &a[1], prec)
                     : sscanf(s + used, "%lldx%lldx%lld:%3s", &a[0], &a[1], &a[2], prec);
    if (k < rnk || a[0] < 1 || a[1] < 1 || a[2] < 1 || (strcmp(prec, "f32") && strcmp(prec, "f64")))
        return -1;
    *p = (prob){s, rnk, prec[1] == '3' ? 4 : 8, {a[0], a[1], a[2]}, 0, 0, 0, 0, 0, 0, 0, 0, 0};
    p->rest = rnk == 3 ? a[2] : 1;
    p->rowlen = a[1] * p->rest;
    p->total = a[0] * p->rowlen;
    p->alloc = hfft_mpi_local_size_transposed(rnk, p->n, comm, &p->ln0, &p->s0, &p->ln1, &p->s1);
    p->local = transposed ? p->ln1 * a[0] * p->rest : p->ln0 * p->rowlen;
    return p->alloc > 0 ? 0 : -1;
}

/* ---- the input: a value per global element, whatever the ranks ---- */

static double noise(unsigned long long seed, uint64_t i) {
    uint64_t z = seed * 0x9E3779B97F4A7C15ull + (i + 1) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    return (double)(z >> 11) * 0x1.0p-53 - 0.5;
}

typedef struct fill_job {
    void *dst;
    int kind, prec; /* kind: 0 float, 1 double, 2 long double; prec: the input's */
    int64_t g0, lo, hi;
    unsigned long long seed;
} fill_job;

static void *fill_run(void *arg) {
    fill_job *j = arg;
    for (int64_t k = j->lo; k < j->hi; k++) {
        for (int c = 0; c < 2; c++) {
            double v = noise(j->seed, 2 * (uint64_t)(j->g0 + k) + (uint64_t)c);
            if (j->prec == 4)
                v = (float)v;
            if (j->kind == 0)
                ((float *)j->dst)[2 * k + c] = (float)v;
            else if (j->kind == 1)
                ((double *)j->dst)[2 * k + c] = v;
            else
                ((long double *)j->dst)[2 * k + c] = v;
        }
    }
    return NULL;
}

/* This rank's input rows (natural layout), as kind, on threads. */
static void fill(const prob *p, void *dst, int kind, int threads, unsigned long long seed) {
    enum { MAXT = 64 };
    if (threads > MAXT)
        threads = MAXT;
    if (threads < 1)
        threads = 1;
    int64_t count = p->ln0 * p->rowlen;
    fill_job job[MAXT];
    pthread_t th[MAXT];
    int started[MAXT] = {0};
    for (int t = 0; t < threads; t++) {
        job[t] = (fill_job){
            dst, kind, p->prec, p->s0 * p->rowlen, count * t / threads, count * (t + 1) / threads,
            seed};
        started[t] = t > 0 && pthread_create(&th[t], NULL, fill_run, &job[t]) == 0;
    }
    for (int t = 0; t < threads; t++)
        if (!started[t])
            fill_run(&job[t]);
    for (int t = 1; t < threads; t++)
        if (started[t])
            pthread_join(th[t], NULL);
}

/* ---- results ---- */

typedef struct result {
    const char *engine;
    double plan_s, med, min, share, exposed, err;
    char note[384];
} result;

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double max_over_ranks(double v) {
    double m = v;
    MPI_Allreduce(&v, &m, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return m;
}

/* Relative RMS error of y (the problem's precision) against ref (one up), all ranks. */
static double error(const prob *p, const void *y, const void *ref) {
    long double num = 0, den = 0;
    for (int64_t i = 0; i < 2 * p->local; i++) {
        long double a = p->prec == 4 ? ((const double *)ref)[i] : ((const long double *)ref)[i];
        long double v = p->prec == 4 ? ((const float *)y)[i] : ((const double *)y)[i];
        num += (v - a) * (v - a);
        den += a * a;
    }
    double s[2] = {(double)num, (double)den}, all[2];
    MPI_Allreduce(s, all, 2, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    return all[1] > 0 ? sqrt(all[0] / all[1]) : NAN;
}

/* The median and minimum of reps executes, each the slowest rank's; fill before each (in
   place) and return this rank's own time in the executes. */
typedef int (*exec_fn)(void *plan);
static double time_reps(const prob *p, const opts *o, void *data, int threads, exec_fn run,
                        void *plan, int reps, result *r, int *st) {
    double t[64], mine = 0;
    if (reps > 64)
        reps = 64;
    for (int k = 0; k < reps && !*st; k++) {
        if (k == 0 || o->inplace)
            fill(p, data, p->prec == 4 ? 0 : 1, threads, o->seed);
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        *st = run(plan);
        mine += MPI_Wtime() - t0;
        t[k] = max_over_ranks(MPI_Wtime() - t0);
    }
    if (*st)
        return mine;
    qsort(t, (size_t)reps, sizeof t[0], cmp_double);
    r->med = reps % 2 ? t[reps / 2] : 0.5 * (t[reps / 2 - 1] + t[reps / 2]);
    r->min = t[0];
    return mine;
}

static int hfft_run(void *plan) { return hfft_mpi_execute(plan); }
static int hfftf_run(void *plan) { return hfftf_mpi_execute(plan); }
static int fftw_run(void *plan) {
    fftw_execute(plan);
    return 0;
}
static int fftwf_run(void *plan) {
    fftwf_execute(plan);
    return 0;
}

static void run_hfft_engine(const prob *p, const opts *o, void *data, int threads, const void *ref,
                            result *r) {
    hfft_options ho;
    hfft_options_init(&ho);
    ho.threads = o->threads;
    ho.device_memory = o->budget;
    unsigned flags = HFFT_ESTIMATE | o->mode | (o->transposed ? HFFT_MPI_TRANSPOSED_OUT : 0);
    void *out = o->inplace ? data : hfft_malloc((size_t)p->alloc * 2 * (size_t)p->prec);
    r->engine = "hfft-mpi";
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    void *plan =
        p->prec == 4
            ? (void *)hfftf_mpi_plan_many_dft_opts(p->rnk, p->n, 1, 0, 0, data, out, MPI_COMM_WORLD,
                                                   HFFT_FORWARD, flags, &ho)
            : (void *)hfft_mpi_plan_many_dft_opts(p->rnk, p->n, 1, 0, 0, data, out, MPI_COMM_WORLD,
                                                  HFFT_FORWARD, flags, &ho);
    r->plan_s = max_over_ranks(MPI_Wtime() - t0);
    int st = plan ? 0 : -1;
    exec_fn run = p->prec == 4 ? hfftf_run : hfft_run;
    if (plan) {
        fill(p, data, p->prec == 4 ? 0 : 1, threads, o->seed);
        st = run(plan); /* warm-up: new arrays registered, caches filled */
        time_reps(p, o, data, threads, run, plan, o->reps, r, &st);
    }
    if (!st) {
        hfft_mpi_info f;
        if (p->prec == 4)
            hfftf_mpi_plan_info(plan, &f);
        else
            hfft_mpi_plan_info(plan, &f);
        r->share = max_over_ranks(f.mpi_seconds / f.seconds);
        r->exposed = max_over_ranks(f.exchange_seconds / f.seconds);
        snprintf(r->note, sizeof r->note,
                 "groups %d/%d, shared %d, rows on %.24s (schedule %d), columns on %.24s (schedule "
                 "%d, host_pinned %d), budget %.3g GiB/plan, scratch %.3g GiB",
                 f.groups[0], f.groups[1], f.shared_ranks, f.rows.device_name, f.rows.schedule,
                 f.cols.device_name, f.cols.schedule, f.cols.host_pinned,
                 (double)f.device_budget / (1 << 30), (double)f.scratch_bytes / (1 << 30));
        if (ref) {
            fill(p, data, p->prec == 4 ? 0 : 1, threads, o->seed);
            st = run(plan);
            r->err = st ? NAN : error(p, out, ref);
        }
    }
    if (st && me == 0)
        fprintf(stderr, "hfft-mpi-bench: %s: hfft_mpi failed: %s\n", p->text,
                hfft_mpi_last_error_message());
    if (p->prec == 4)
        hfftf_mpi_destroy_plan(plan);
    else
        hfft_mpi_destroy_plan(plan);
    if (out != data)
        hfft_free(out);
    if (st)
        r->med = NAN;
}

static void run_fftw_engine(const prob *p, const opts *o, void *data, int threads, const void *ref,
                            result *r) {
    unsigned flags = (o->fftw_measure ? FFTW_MEASURE : FFTW_ESTIMATE) |
                     (o->transposed ? FFTW_MPI_TRANSPOSED_OUT : 0);
    void *out = o->inplace ? data : hfft_malloc((size_t)p->alloc * 2 * (size_t)p->prec);
    r->engine = "fftw-mpi";
    /* FFTW-MPI's transposes send each rank pair a block of (n0/R)(n1/R)(rest) complex
       numbers as reals with an int count: past 2^31 - 1, MPI_ERR_COUNT aborts the job */
    double block = 2.0 * (double)(p->n[0] / ranks) * (double)(p->n[1] / ranks) *
                   (double)(p->total / (p->n[0] * p->n[1]));
    if (block > 2147483647.0) {
        r->med = NAN;
        snprintf(r->note, sizeof r->note,
                 "skipped: its transposes would send %.3g reals per rank pair, over MPI's int "
                 "count", block);
        if (out != data)
            hfft_free(out);
        return;
    }
    fftw_set_timelimit(60);
    fftwf_set_timelimit(60);
    fftw_plan_with_nthreads(threads);
    fftwf_plan_with_nthreads(threads);
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    void *plan = p->prec == 4 ? (void *)fftwf_mpi_plan_dft(p->rnk, p->n, data, out, MPI_COMM_WORLD,
                                                           FFTW_FORWARD, flags)
                              : (void *)fftw_mpi_plan_dft(p->rnk, p->n, data, out, MPI_COMM_WORLD,
                                                          FFTW_FORWARD, flags);
    r->plan_s = max_over_ranks(MPI_Wtime() - t0);
    int st = plan ? 0 : -1;
    exec_fn run = p->prec == 4 ? fftwf_run : fftw_run;
    if (plan) {
        fill(p, data, p->prec == 4 ? 0 : 1, threads, o->seed);
        run(plan);
        mpi_time = 0;
        timing = 1; /* the fills between executes make no MPI calls */
        double spent = time_reps(p, o, data, threads, run, plan, o->fftw_reps, r, &st);
        timing = 0;
        r->share = max_over_ranks(spent > 0 ? mpi_time / spent : 0);
        r->exposed = r->share; /* FFTW-MPI overlaps no transpose with its FFTs */
        snprintf(r->note, sizeof r->note, "%s, %d threads per rank",
                 o->fftw_measure ? "FFTW_MEASURE" : "FFTW_ESTIMATE", threads);
        if (ref) {
            fill(p, data, p->prec == 4 ? 0 : 1, threads, o->seed);
            run(plan);
            r->err = error(p, out, ref);
        }
        if (p->prec == 4)
            fftwf_destroy_plan(plan);
        else
            fftw_destroy_plan(plan);
    }
    fftw_plan_with_nthreads(1);
    fftwf_plan_with_nthreads(1);
    if (out != data)
        hfft_free(out);
    if (st) {
        r->med = NAN;
        if (me == 0)
            fprintf(stderr, "hfft-mpi-bench: %s: FFTW-MPI could not plan it\n", p->text);
    }
}

/* FFTW-MPI one precision up (double for f32, long double for f64) on the same input. */
static void *reference(const prob *p, const opts *o, int threads) {
    size_t bytes = (size_t)p->alloc * 2 * (p->prec == 4 ? sizeof(double) : sizeof(long double));
    void *a = malloc(bytes);
    int ok = a != NULL, all = 0;
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
    if (!all) {
        free(a);
        return NULL;
    }
    unsigned flags = FFTW_ESTIMATE | (o->transposed ? FFTW_MPI_TRANSPOSED_OUT : 0);
    /* X: fftw (double) or fftwl (long double); kind: fill's element type */
#define REFERENCE(X, kind)                                                                       \
    do {                                                                                         \
        X##_plan_with_nthreads(threads);                                                         \
        X##_plan pl = X##_mpi_plan_dft(p->rnk, p->n, a, a, MPI_COMM_WORLD, FFTW_FORWARD, flags); \
        fill(p, a, kind, threads, o->seed);                                                      \
        X##_execute(pl);                                                                         \
        X##_destroy_plan(pl);                                                                    \
        X##_plan_with_nthreads(1);                                                               \
    } while (0)
    if (p->prec == 4)
        REFERENCE(fftw, 1);
    else
        REFERENCE(fftwl, 2);
#undef REFERENCE
    return a;
}

static int default_threads(void) {
    cpu_set_t set;
    CPU_ZERO(&set);
    if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0)
        return CPU_COUNT(&set);
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (int)n : 1;
}

static void report(const prob *p, const opts *o, int threads, const result *r, FILE *csv) {
    double flops = 5.0 * (double)p->total * log2((double)p->total);
    char exposed[16] = "-";
    if (r->exposed == r->exposed)
        snprintf(exposed, sizeof exposed, "%.1f%%", 100 * r->exposed);
    printf("%-22s %-9s %8.3f %9.4f %9.4f %8.1f %6.1f%% %8s %9.2g  %s\n", p->text, r->engine,
           r->plan_s, r->med, r->min, flops / r->med * 1e-9, 100 * r->share, exposed, r->err,
           r->note);
    if (csv)
        fprintf(csv, "%s,%s,%d,%d,%s,%d,%.6g,%.6g,%.6g,%.6g,%.4g,%.4g,%.3g,\"%s\"\n", p->text,
                r->engine, ranks, threads, o->inplace ? "in" : "out", o->transposed, r->plan_s,
                r->med, r->min, flops / r->med * 1e-9, r->share, r->exposed, r->err, r->note);
}

int main(int argc, char **argv) {
    int provided = 0;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &ranks);
    /* FFTW's threads, then its MPI layer, before any plan (hfft's included) */
    fftw_init_threads();
    fftwf_init_threads();
    fftwl_init_threads();
    fftw_mpi_init();
    fftwf_mpi_init();
    fftwl_mpi_init();
    opts o;
    char *probs[64];
    int np = 0, pr = parse(argc, argv, &o, probs, &np);
    if (pr) {
        if (me == 0)
            usage(pr == 1 ? stdout : stderr);
        MPI_Finalize();
        return pr == 1 ? 0 : 2;
    }
    int threads = o.threads > 0 ? o.threads : default_threads();
    FILE *csv = NULL;
    if (me == 0 && o.csv) {
        csv = fopen(o.csv, "a");
        if (csv && ftell(csv) == 0)
            fprintf(csv, "problem,engine,ranks,threads,place,transposed,plan_s,median_s,min_s,"
                         "gflops,a2a_share,exposed_share,error,note\n");
    }
    char version[MPI_MAX_LIBRARY_VERSION_STRING];
    int vlen = 0;
    MPI_Get_library_version(version, &vlen);
    if (me == 0) {
        printf("hfft-mpi-bench: %d ranks, %d threads per rank, %s, %s; MPI: %.60s\n", ranks,
               threads, o.inplace ? "in place" : "out of place",
               o.transposed ? "TRANSPOSED_OUT" : "natural order", version);
        printf("%-22s %-9s %8s %9s %9s %8s %7s %8s %9s  %s\n", "problem", "engine", "plan_s",
               "median_s", "min_s", "GFLOPS", "a2a", "exposed", "error", "plan");
    }
    int failed = 0;
    for (int k = 0; k < np; k++) {
        prob p;
        if (parse_problem(probs[k], &p, o.transposed, MPI_COMM_WORLD)) {
            if (me == 0)
                fprintf(stderr,
                        "hfft-mpi-bench: problem '%s': expected 2d:N0xN1[:f32|f64] or "
                        "3d:N0xN1xN2[:f32|f64]\n",
                        probs[k]);
            failed = 1;
            continue;
        }
        void *data = hfft_malloc((size_t)p.alloc * 2 * (size_t)p.prec);
        int ok = data != NULL, all = 0;
        MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
        if (!all) {
            if (me == 0)
                fprintf(stderr, "hfft-mpi-bench: %s: out of memory\n", p.text);
            hfft_free(data);
            failed = 1;
            continue;
        }
        double ref_gib = (double)p.total * 4.0 * p.prec / (1 << 30);
        void *ref =
            o.verify == 1 || (o.verify < 0 && ref_gib <= 16) ? reference(&p, &o, threads) : NULL;
        result r[2] = {{.err = NAN}, {.err = NAN}};
        if (o.run_hfft)
            run_hfft_engine(&p, &o, data, threads, ref, &r[0]);
        if (o.run_fftw)
            run_fftw_engine(&p, &o, data, threads, ref, &r[1]);
        for (int e = 0; e < 2 && me == 0; e++)
            if ((e == 0 && o.run_hfft) || (e == 1 && o.run_fftw))
                report(&p, &o, threads, &r[e], csv);
        if (me == 0 && o.run_hfft && o.run_fftw)
            printf("%-22s fftw-mpi / hfft-mpi median time: %.2f\n", p.text, r[1].med / r[0].med);
        fflush(stdout);
        failed |= !(r[0].med == r[0].med) && o.run_hfft;
        free(ref);
        hfft_free(data);
    }
    if (csv)
        fclose(csv);
    MPI_Finalize();
    return failed;
}
