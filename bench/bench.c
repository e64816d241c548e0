/*
 * bench.c: hfft-bench, the benchmark program.  For each problem string
 * ("2d:32768x32768:f32") it times hfft in the requested placements and the
 * baselines (FFTW threads ESTIMATE and MEASURE, MKL DFTI, cuFFT in card and
 * copy-transform-copy) on the same data in one run, measures the PCIe link,
 * and prints a table (and CSV rows) with the median time, GFLOPS, bytes over
 * the link, the fraction of the link bound reached, the error and the plan.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fftw3.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "hfft.h"
#include "ref.h"

#ifdef HFFT_BENCH_HAVE_CUDA
#include "cuda_baselines.h"
#endif
#ifdef HFFT_BENCH_HAVE_MKL
#include <mkl_dfti.h>
#include <mkl_service.h>
#endif

#define LINK_BYTES ((size_t)256 << 20)
#define LINK_REPS 5

/* ---- engines ---- */

enum {
    E_HYBRID,
    E_GPU,
    E_CPU,
    E_AUTO, /* hfft placements */
    E_FFTW_EST,
    E_FFTW_MEAS,
    E_MKL,
    E_CU_INCARD,
    E_CU_CHUNK, /* baselines */
    E_COUNT
};
static const char *const engine_name[E_COUNT] = {"hfft-hybrid", "hfft-gpu",      "hfft-cpu",
                                                 "hfft-auto",   "fftw-estimate", "fftw-measure",
                                                 "mkl",         "cufft-incard",  "cufft-chunked"};
static const char *const option_name[E_COUNT] = {"hybrid", "gpu",           "cpu",
                                                 "auto",   "fftw-estimate", "fftw-measure",
                                                 "mkl",    "cufft-incard",  "cufft-chunked"};
#define HFFT_ENGINES ((1u << E_HYBRID) | (1u << E_GPU) | (1u << E_CPU) | (1u << E_AUTO))
#define BASELINES                                                                     \
    ((1u << E_FFTW_EST) | (1u << E_FFTW_MEAS) | (1u << E_MKL) | (1u << E_CU_INCARD) | \
     (1u << E_CU_CHUNK))

typedef struct args {
    unsigned engines; /* bit per engine */
    int64_t budget, pass_bytes;
    int reps, threads, bthreads, verify, inplace, bandwidth;
    unsigned schedule;
    double ratio, round_ratio[3], measure_limit;
    int slots, hfft_measure;
    int host_malloc; /* arrays from malloc (the plan pins them) instead of hfft_malloc */
    int pinning;     /* hfft_options.pinning for malloc arrays */
    const char *csv, *wisdom;
    uint64_t seed;
} args;

typedef struct problem {
    char text[96];
    int rank, prec;
    int64_t n[3], total;
    size_t bytes;
} problem;

enum { ST_OK, ST_SKIPPED, ST_FAILED };

typedef struct result {
    int engine, status;
    char device[96];
    char note[320];
    char plan[512];
    double plan_s, med, min, max;
    double link_bytes;  /* bytes over the link per execution; 0 for CPU engines */
    double floor_s;     /* link-bound time for this engine, 0 when not applicable */
    double predicted_s; /* hfft's model, 0 where none ran */
    double err;         /* < 0: not verified */
    int have_info;
    hfft_info info;
} result;

static struct {
    int cores;
    char host[256];
    int gpu_present;
    char gpu_name[256];
    int link_measured;
    double h2d, d2h, dup_h2d, dup_d2h; /* bytes / s */
    int any_failure;
} G;

static void die(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fputs("hfft-bench: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    exit(1);
}

/* ---- small helpers ---- */

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void summarize(double *t, int n, result *r) {
    qsort(t, (size_t)n, sizeof *t, cmp_double);
    r->min = t[0];
    r->max = t[n - 1];
    r->med = n % 2 ? t[n / 2] : 0.5 * (t[n / 2 - 1] + t[n / 2]);
}

static const char *fmt_bytes(double b, char *buf, size_t len) {
    static const char *const unit[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    int u = 0;
    while (b >= 1024.0 && u < 4) {
        b /= 1024.0;
        u++;
    }
    snprintf(buf, len, u ? "%.1f%s" : "%.0f%s", b, unit[u]);
    return buf;
}

static void host_description(char *out, size_t len) {
    char cpu[200] = "unknown CPU";
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (f) {
        char line[512];
        while (fgets(line, sizeof line, f)) {
            if (strncmp(line, "model name", 10) == 0) {
                char *c = strchr(line, ':');
                if (c) {
                    c++;
                    while (*c == ' ')
                        c++;
                    c[strcspn(c, "\n")] = 0;
                    snprintf(cpu, sizeof cpu, "%s", c);
                }
                break;
            }
        }
        fclose(f);
    }
    snprintf(out, len, "%s", cpu);
}

/* ---- threaded fill and copy: arrays of tens of GiB take too long on one core ---- */

typedef struct chunk_job {
    int kind; /* 0 fill, 1 copy, 2 poison */
    int prec;
    char *dst;
    const char *src;
    size_t off, len; /* bytes */
    uint64_t seed;
} chunk_job;

static void *chunk_run(void *p) {
    chunk_job *j = p;
    if (j->kind == 0)
        hfft_ref_fill(j->prec, j->dst + j->off, (int64_t)(j->len / (2u * (size_t)j->prec)),
                      j->seed);
    else if (j->kind == 1)
        memcpy(j->dst + j->off, j->src + j->off, j->len);
    else
        memset(j->dst + j->off, 0xff, j->len); /* NaN in both precisions */
    return NULL;
}

static void chunked(int kind, int prec, void *dst, const void *src, size_t bytes, uint64_t seed) {
    enum { MAXT = 64 };
    int t = G.cores < MAXT ? G.cores : MAXT;
    size_t elem = 2u * (size_t)prec;
    if (bytes < ((size_t)4 << 20))
        t = 1;
    chunk_job job[MAXT];
    pthread_t th[MAXT];
    int started[MAXT] = {0};
    size_t per = (bytes / elem + (size_t)t - 1) / (size_t)t * elem, off = 0;
    for (int i = 0; i < t; i++) {
        size_t len = off >= bytes ? 0 : bytes - off < per ? bytes - off : per;
        job[i] = (chunk_job){kind, prec, dst, src, off, len, seed * 1000003u + (uint64_t)i};
        off += len;
        if (i > 0 && len && pthread_create(&th[i], NULL, chunk_run, &job[i]) == 0)
            started[i] = 1;
    }
    chunk_run(&job[0]);
    for (int i = 1; i < t; i++) {
        if (started[i])
            pthread_join(th[i], NULL);
        else if (job[i].len)
            chunk_run(&job[i]);
    }
}

static void fill(const problem *p, void *a, uint64_t seed) {
    chunked(0, p->prec, a, NULL, p->bytes, seed);
}
static void copy(const problem *p, void *dst, const void *src) {
    chunked(1, p->prec, dst, src, p->bytes, 0);
}
static void poison(const problem *p, void *dst) { chunked(2, p->prec, dst, NULL, p->bytes, 0); }

/* The reference leaves FFTW's global thread count where it put it; the library
   and the baselines plan under that global, so it goes back to 1 after each. */
static void fftw_threads_reset(void) {
    fftw_plan_with_nthreads(1);
    fftwf_plan_with_nthreads(1);
#ifdef HFFT_BENCH_HAVE_FFTWL_THREADS
    fftwl_plan_with_nthreads(1);
#endif
}

static double verify(const args *a, const problem *p, const void *in, const void *out) {
    if (!a->verify)
        return -1.0;
    double e = hfft_ref_error(p->prec, p->rank, p->n, in, out, HFFT_FORWARD, a->bthreads);
    fftw_threads_reset();
    if (e < 0)
        die("verification: cannot allocate the %s reference of %zu elements",
            p->prec == 4 ? "double" : "long double", (size_t)p->total);
    return isnan(e) ? INFINITY : e;
}

static double tolerance(int prec) { return prec == 4 ? 1e-5 : 1e-13; }

/* ---- hfft ---- */

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
                 fmt_bytes((double)i->host_bytes, b3, sizeof b3));
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
                 fmt_bytes((double)i->device_bytes, b1, sizeof b1),
                 fmt_bytes((double)i->device_budget, b2, sizeof b2),
                 fmt_bytes((double)i->host_bytes, b3, sizeof b3),
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

static void run_hfft(const args *a, const problem *p, int e, void *A, void *B, result *r) {
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
    fill(p, A, a->seed + (uint64_t)e * 7919u);
    if (a->inplace)
        copy(p, B, A);
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

    double *t = calloc((size_t)a->reps, sizeof *t);
    if (!t)
        die("out of memory");
    int st = 0;
    for (int k = -1; k < a->reps && !st; k++) {
        if (a->inplace)
            copy(p, B, A);
        double s = hfft_ref_now();
        st = h_exec(p, plan);
        if (k >= 0)
            t[k] = hfft_ref_now() - s;
    }
    if (st) {
        r->status = ST_FAILED;
        snprintf(r->note, sizeof r->note, "execute failed: %s", hfft_last_error_message());
        h_destroy(p, plan);
        free(t);
        return;
    }
    summarize(t, a->reps, r);
    free(t);
    h_info(p, plan, &r->info); /* each round's time in the last timed execute */
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
        poison(p, B);
        if (h_exec(p, plan)) {
            r->status = ST_FAILED;
            snprintf(r->note, sizeof r->note, "execute for --verify failed: %s",
                     hfft_last_error_message());
            h_destroy(p, plan);
            return;
        }
        h_destroy(p, plan);
        r->err = verify(a, p, A, B);
    } else {
        h_destroy(p, plan);
    }
}

/* ---- FFTW: in place on a copy, all cores, guru64 for 64-bit sizes ---- */

static void run_fftw(const args *a, const problem *p, int e, void *A, void *B, result *r) {
    int measure = e == E_FFTW_MEAS;
    fftw_iodim64 d[3];
    int64_t stride = 1;
    for (int k = p->rank - 1; k >= 0; k--) {
        d[k].n = p->n[k];
        d[k].is = d[k].os = stride;
        stride *= p->n[k];
    }
    unsigned flags = measure ? FFTW_MEASURE : FFTW_ESTIMATE;
    fill(p, A, a->seed + (uint64_t)e * 7919u);
    snprintf(r->device, sizeof r->device, "cpu");
    void *plan;
    double t0 = hfft_ref_now();
    if (p->prec == 4) {
        fftwf_plan_with_nthreads(a->bthreads);
        if (measure)
            fftwf_set_timelimit(a->measure_limit);
        plan = fftwf_plan_guru64_dft(p->rank, d, 0, NULL, B, B, FFTW_FORWARD, flags);
        fftwf_set_timelimit(FFTW_NO_TIMELIMIT);
    } else {
        fftw_plan_with_nthreads(a->bthreads);
        if (measure)
            fftw_set_timelimit(a->measure_limit);
        plan = fftw_plan_guru64_dft(p->rank, d, 0, NULL, B, B, FFTW_FORWARD, flags);
        fftw_set_timelimit(FFTW_NO_TIMELIMIT);
    }
    r->plan_s = hfft_ref_now() - t0;
    fftw_threads_reset();
    if (!plan) {
        r->status = ST_FAILED;
        snprintf(r->note, sizeof r->note, "FFTW planning failed");
        return;
    }
    if (measure)
        snprintf(r->plan, sizeof r->plan, "fftw%s measure threads=%d timelimit=%gs in-place",
                 p->prec == 4 ? "f" : "", a->bthreads, a->measure_limit);
    else
        snprintf(r->plan, sizeof r->plan, "fftw%s estimate threads=%d in-place",
                 p->prec == 4 ? "f" : "", a->bthreads);
    double *t = calloc((size_t)a->reps, sizeof *t);
    if (!t)
        die("out of memory");
    for (int k = -1; k < a->reps; k++) {
        copy(p, B, A); /* planning with MEASURE overwrote B; every run starts from A */
        double s = hfft_ref_now();
        if (p->prec == 4)
            fftwf_execute(plan);
        else
            fftw_execute(plan);
        if (k >= 0)
            t[k] = hfft_ref_now() - s;
    }
    summarize(t, a->reps, r);
    free(t);
    if (p->prec == 4)
        fftwf_destroy_plan(plan);
    else
        fftw_destroy_plan(plan);
    /* Forget what MEASURE learned so later engines and problems plan from scratch. */
    if (measure) {
        fftw_forget_wisdom();
        fftwf_forget_wisdom();
    }
    r->err = verify(a, p, A, B);
}

/* ---- MKL DFTI ---- */

#ifdef HFFT_BENCH_HAVE_MKL
static void run_mkl(const args *a, const problem *p, void *A, void *B, result *r) {
    fill(p, A, a->seed + (uint64_t)E_MKL * 7919u);
    snprintf(r->device, sizeof r->device, "cpu");
    MKL_LONG len[3] = {0, 0, 0};
    for (int k = 0; k < p->rank; k++)
        len[k] = (MKL_LONG)p->n[k];
    mkl_set_num_threads(a->bthreads);
    DFTI_DESCRIPTOR_HANDLE h = NULL;
    enum DFTI_CONFIG_VALUE prec = p->prec == 4 ? DFTI_SINGLE : DFTI_DOUBLE;
    double t0 = hfft_ref_now();
    /* The function, not mkl_dfti.h's macro: the rank is known only at run time. */
    MKL_LONG s = p->rank == 1
                     ? (DftiCreateDescriptor)(&h, prec, DFTI_COMPLEX, (MKL_LONG)1, len[0])
                     : (DftiCreateDescriptor)(&h, prec, DFTI_COMPLEX, (MKL_LONG)p->rank, len);
    if (!s)
        s = DftiCommitDescriptor(h);
    r->plan_s = hfft_ref_now() - t0;
    if (s && !DftiErrorClass(s, DFTI_NO_ERROR)) {
        r->status = ST_FAILED;
        snprintf(r->note, sizeof r->note, "DFTI: %s", DftiErrorMessage(s));
        if (h)
            DftiFreeDescriptor(&h);
        return;
    }
    snprintf(r->plan, sizeof r->plan, "mkl dfti %s threads=%d in-place",
             p->prec == 4 ? "single" : "double", mkl_get_max_threads());
    double *t = calloc((size_t)a->reps, sizeof *t);
    if (!t)
        die("out of memory");
    for (int k = -1; k < a->reps && !s; k++) {
        copy(p, B, A);
        double s0 = hfft_ref_now();
        s = DftiComputeForward(h, B);
        if (k >= 0)
            t[k] = hfft_ref_now() - s0;
    }
    DftiFreeDescriptor(&h);
    if (s && !DftiErrorClass(s, DFTI_NO_ERROR)) {
        r->status = ST_FAILED;
        snprintf(r->note, sizeof r->note, "DftiComputeForward: %s", DftiErrorMessage(s));
        free(t);
        return;
    }
    summarize(t, a->reps, r);
    free(t);
    r->err = verify(a, p, A, B);
}
#endif

/* ---- cuFFT ---- */

#ifdef HFFT_BENCH_HAVE_CUDA
static void run_cufft(const args *a, const problem *p, int want_incard, int want_chunk, void *A,
                      void *B, result *ri, result *rc) {
    bench_cufft *c = NULL;
    double plan_s = 0;
    char note[256];
    int no = bench_cufft_open(p->prec, p->rank, p->n, &c, &plan_s, note, sizeof note);
    result *rs[2] = {want_incard ? ri : NULL, want_chunk ? rc : NULL};
    const char *pin =
        bench_cuda_host_pinned(A) && bench_cuda_host_pinned(B) ? "pinned" : "pageable";
    for (int i = 0; i < 2; i++) {
        if (!rs[i])
            continue;
        snprintf(rs[i]->device, sizeof rs[i]->device, "%.95s", G.gpu_name);
        rs[i]->plan_s = plan_s;
        if (no) {
            rs[i]->status = ST_SKIPPED;
            snprintf(rs[i]->note, sizeof rs[i]->note, "%s", note);
        } else {
            snprintf(rs[i]->plan, sizeof rs[i]->plan, "cufft %s in-place %s host=%s",
                     p->prec == 4 ? "C2C" : "Z2Z", note, pin);
        }
    }
    if (no)
        return;
    double *t = calloc((size_t)a->reps, sizeof *t);
    if (!t)
        die("out of memory");
    if (want_incard) {
        fill(p, A, a->seed + (uint64_t)E_CU_INCARD * 7919u);
        bench_cufft_incard(c, A, B, a->reps, t);
        summarize(t, a->reps, ri);
        ri->err = verify(a, p, A, B);
    }
    if (want_chunk) {
        fill(p, A, a->seed + (uint64_t)E_CU_CHUNK * 7919u);
        bench_cufft_chunked(c, A, B, a->reps, t);
        summarize(t, a->reps, rc);
        rc->link_bytes = 2.0 * (double)p->bytes;
        /* One trip each way, overlappable at best: S / B is its floor. */
        if (G.link_measured)
            rc->floor_s = (double)p->bytes / (0.5 * (G.dup_h2d + G.dup_d2h));
        rc->err = verify(a, p, A, B);
    }
    free(t);
    bench_cufft_close(c);
}
#endif

/* ---- output ---- */

static double flops(const problem *p) { return 5.0 * (double)p->total * log2((double)p->total); }

static void print_table(const args *a, const problem *p, result *res, int nres) {
    double best_fftw = 0;
    for (int i = 0; i < nres; i++)
        if ((res[i].engine == E_FFTW_EST || res[i].engine == E_FFTW_MEAS) &&
            res[i].status == ST_OK && (best_fftw == 0 || res[i].med < best_fftw))
            best_fftw = res[i].med;
    char b1[32];
    printf("\n== %s: %s, %lld elements, %s, %d timed runs after 1 warm-up ==\n", p->text,
           fmt_bytes((double)p->bytes, b1, sizeof b1), (long long)p->total,
           a->inplace ? "in-place" : "out-of-place", a->reps);
    printf("%-14s %-22s %10s %10s %10s %9s %9s %8s %7s %6s %9s %9s %6s  %s\n", "engine", "device",
           "median_s", "min_s", "max_s", "plan_s", "GFLOPS", "link_GB", "B_GB/s", "bound", "error",
           "model_s", "xFFTW", "plan");
    int emulated = 0;
    for (int i = 0; i < nres; i++) {
        result *r = &res[i];
        const char *dev = r->device[0] ? r->device : "-";
        if (strcmp(dev, "emulated") == 0)
            emulated = 1;
        char devbuf[40];
        snprintf(devbuf, sizeof devbuf, "%.38s%s", dev, strcmp(dev, "emulated") == 0 ? "*" : "");
        if (r->status != ST_OK) {
            printf("%-14s %-22.22s %s\n", engine_name[r->engine], devbuf,
                   r->note[0] ? r->note : "-");
            continue;
        }
        char bw[16] = "-", bound[16] = "-", err[24] = "-", model[16] = "-", xf[16] = "-";
        if (r->floor_s > 0 && G.link_measured) {
            snprintf(bw, sizeof bw, "%.1f", 0.5 * (G.dup_h2d + G.dup_d2h) / 1e9);
            snprintf(bound, sizeof bound, "%.0f%%", 100.0 * r->floor_s / r->med);
        }
        if (r->err >= 0)
            snprintf(err, sizeof err, "%.2e%s", r->err, r->err > tolerance(p->prec) ? "!" : "");
        if (r->predicted_s > 0)
            snprintf(model, sizeof model, "%.4g", r->predicted_s);
        if (best_fftw > 0)
            snprintf(xf, sizeof xf, "%.2f", best_fftw / r->med);
        printf("%-14s %-22.22s %10.4g %10.4g %10.4g %9.3g %9.2f %8.3f %7s %6s %9s %9s %6s  %s\n",
               engine_name[r->engine], devbuf, r->med, r->min, r->max, r->plan_s,
               flops(p) / r->med / 1e9, r->link_bytes / 1e9, bw, bound, err, model, xf,
               r->plan[0] ? r->plan : "-");
    }
    if (emulated)
        printf("* emulated: hfft's test double runs the GPU schedule in host memory; "
               "these are NOT GPU timings.\n");
    fflush(stdout);
}

static void csv_str(FILE *f, const char *s) {
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"')
            fputc('"', f);
        fputc(*s, f);
    }
    fputc('"', f);
}

static const char CSV_HEADER[] =
    "time,host,problem,rank,n0,n1,n2,precision,elements,bytes,inplace,engine,device,status,note,"
    "reps,median_s,min_s,max_s,plan_s,gflops,link_bytes,bw_h2d_gbs,bw_d2h_gbs,"
    "bw_duplex_h2d_gbs,bw_duplex_d2h_gbs,bound_fraction,predicted_s,error,speedup_vs_fftw,"
    "placement,schedule,rounds,passes,streams,ratio_mean,ratio0,ratio1,ratio2,threads,"
    "device_budget,device_bytes,host_bytes,host_pinned,round0_s,round1_s,round2_s,"
    "predicted0_s,predicted1_s,predicted2_s,gpu0_s,gpu1_s,gpu2_s,cpu0_s,cpu1_s,cpu2_s,"
    "transposed,wisdom,plan\n";

static void write_csv(const args *a, const problem *p, result *res, int nres) {
    if (!a->csv)
        return;
    struct stat sb;
    int fresh = stat(a->csv, &sb) != 0 || sb.st_size == 0;
    FILE *f = fopen(a->csv, "a");
    if (!f)
        die("cannot open %s for appending: %s", a->csv, strerror(errno));
    if (fresh)
        fputs(CSV_HEADER, f);
    double best_fftw = 0;
    for (int i = 0; i < nres; i++)
        if ((res[i].engine == E_FFTW_EST || res[i].engine == E_FFTW_MEAS) &&
            res[i].status == ST_OK && (best_fftw == 0 || res[i].med < best_fftw))
            best_fftw = res[i].med;
    char stamp[32];
    time_t now = time(NULL);
    strftime(stamp, sizeof stamp, "%Y-%m-%dT%H:%M:%S", localtime(&now));
    static const char *const status[] = {"ok", "skipped", "failed"};
    for (int i = 0; i < nres; i++) {
        const result *r = &res[i];
        int ok = r->status == ST_OK;
        fprintf(f, "%s,", stamp);
        csv_str(f, G.host);
        fputc(',', f);
        csv_str(f, p->text);
        fprintf(f, ",%d,%lld,%lld,%lld,%s,%lld,%zu,%d,%s,", p->rank, (long long)p->n[0],
                (long long)(p->rank > 1 ? p->n[1] : 1), (long long)(p->rank > 2 ? p->n[2] : 1),
                p->prec == 4 ? "f32" : "f64", (long long)p->total, p->bytes, a->inplace,
                engine_name[r->engine]);
        csv_str(f, r->device);
        fprintf(f, ",%s,", status[r->status]);
        csv_str(f, r->note);
        fprintf(f, ",%d,", a->reps);
        if (ok)
            fprintf(f, "%.6g,%.6g,%.6g,%.6g,%.6g,%.0f,", r->med, r->min, r->max, r->plan_s,
                    flops(p) / r->med / 1e9, r->link_bytes);
        else
            fprintf(f, ",,,%.6g,,,", r->plan_s);
        if (G.link_measured)
            fprintf(f, "%.4g,%.4g,%.4g,%.4g,", G.h2d / 1e9, G.d2h / 1e9, G.dup_h2d / 1e9,
                    G.dup_d2h / 1e9);
        else
            fputs(",,,,", f);
        if (ok && r->floor_s > 0)
            fprintf(f, "%.4g,", r->floor_s / r->med);
        else
            fputc(',', f);
        if (r->predicted_s > 0)
            fprintf(f, "%.6g,", r->predicted_s);
        else
            fputc(',', f);
        if (ok && r->err >= 0)
            fprintf(f, "%.4g,", r->err);
        else
            fputc(',', f);
        if (ok && best_fftw > 0)
            fprintf(f, "%.4g,", best_fftw / r->med);
        else
            fputc(',', f);
        if (r->have_info) {
            const hfft_info *q = &r->info;
            static const char *const place[] = {"cpu", "gpu", "hybrid"};
            static const char *const sched[] = {"none", "plain", "radix2"};
            double mean = 0;
            for (int h = 0; h < q->rounds && h < 3; h++)
                mean += q->ratio[h];
            mean = q->rounds ? mean / q->rounds : 0;
            char passes[48] = "";
            for (int h = 0; h < q->rounds && h < 3; h++)
                snprintf(passes + strlen(passes), sizeof passes - strlen(passes), "%s%d",
                         h ? "/" : "", q->passes[h]);
            fprintf(f, "%s,%s,%d,\"%s\",%d,%.4g,%.4g,%.4g,%.4g,%d,%lld,%lld,%lld,%d,",
                    place[q->placement >= 0 && q->placement <= 2 ? q->placement : 0],
                    sched[q->schedule >= 0 && q->schedule <= 2 ? q->schedule : 0], q->rounds,
                    passes, q->streams, mean, q->ratio[0], q->ratio[1], q->ratio[2], q->threads,
                    (long long)q->device_budget, (long long)q->device_bytes,
                    (long long)q->host_bytes, q->host_pinned);
            for (int h = 0; h < 3; h++)
                if (ok && h < q->rounds)
                    fprintf(f, "%.6g,", q->measured_seconds[h]);
                else
                    fputc(',', f);
            for (int h = 0; h < 3; h++)
                if (h < q->rounds && q->predicted_seconds[h] > 0)
                    fprintf(f, "%.6g,", q->predicted_seconds[h]);
                else
                    fputc(',', f);
            for (int h = 0; h < 6; h++) {
                int k = h % 3;
                double v = h < 3 ? q->measured_gpu[k] : q->measured_cpu[k];
                if (ok && k < q->rounds && q->placement == 2)
                    fprintf(f, "%.6g,", v);
                else
                    fputc(',', f);
            }
            fprintf(f, "%d,%d,", q->transposed, q->wisdom);
        } else {
            fputs(",,,,,,,,,,,,,,,,,,,,,,,,,,,,", f);
        }
        csv_str(f, r->plan);
        fputc('\n', f);
    }
    if (fclose(f))
        die("writing %s: %s", a->csv, strerror(errno));
}

/* ---- arguments ---- */

static void usage(FILE *f) {
    fprintf(f,
            "usage: hfft-bench [options] PROBLEM...\n"
            "  PROBLEM  RANKd:N0[xN1[xN2]][:f32|f64], e.g. 2d:32768x32768:f32,\n"
            "           3d:1024x1024x1024:f64, 1d:1048576:f32 (default precision f32)\n"
            "options:\n"
            "  --mode LIST             hfft placements, a comma list of hybrid (HFFT_HYBRID),\n"
            "                          gpu (HFFT_GPU_ONLY), cpu (HFFT_CPU_ONLY), auto (no\n"
            "                          flag: the planner decides), all (= hybrid,gpu,cpu;\n"
            "                          the default) or none\n"
            "  --baselines LIST        a comma list of fftw-estimate, fftw-measure, mkl,\n"
            "                          cufft-incard, cufft-chunked, all or none;\n"
            "                          default: all that are available\n"
            "  --budget BYTES          hfft_options.device_memory (\"2GiB\", \"512MiB\")\n"
            "  --reps N                timed runs after one warm-up (default 5)\n"
            "  --ratio R               fixed GPU share in (0, 1]\n"
            "  --round-ratio R1,R2[,R3] fixed GPU share per round (round 1: the strided one)\n"
            "  --slots N               pass buffers on the device (2..8)\n"
            "  --wisdom FILE           hfft_options.wisdom (a file written by hfft-tune)\n"
            "  --hfft-measure          plan hfft with HFFT_MEASURE (default HFFT_ESTIMATE)\n"
            "  --schedule S            plain or radix2 (default: the planner's choice)\n"
            "  --pass-bytes BYTES      fixed pass size on the device\n"
            "  --threads N             hfft's CPU threads (default: the library's)\n"
            "  --baseline-threads N    FFTW and MKL threads (default: all %d cores)\n"
            "  --host H                where the arrays come from: hfft_malloc (pinned, the\n"
            "                          default) or malloc (each plan pins or stages them)\n"
            "  --pinning P             malloc arrays: auto, register or stage (hfft_options\n"
            "                          .pinning; default auto)\n"
            "  --inplace               time hfft in place (the error still comes from an\n"
            "                          out-of-place run); baselines always run in place\n"
            "                          on a copy\n"
            "  --verify                relative RMS error against FFTW in higher precision\n"
            "                          (double for f32, long double for f64); needs two\n"
            "                          more arrays' worth of host memory\n"
            "  --fftw-measure-limit S  fftw_set_timelimit for FFTW_MEASURE (default 60)\n"
            "  --csv FILE              append rows to FILE (a header when it is new)\n"
            "  --bandwidth             measure the link (default where a GPU is present);\n"
            "                          with no PROBLEM, only that\n"
            "  --no-bandwidth          do not\n"
            "  --seed N                random data seed (default 1)\n"
            "  --help\n"
            "columns:\n"
            "  median_s, min_s, max_s  over the timed runs; plan_s: plan creation\n"
            "  GFLOPS   5 N log2 N / median_s\n"
            "  link_GB  bytes over PCIe per execution (hfft: sum over rounds of\n"
            "           2 S ratio[h]; cufft-chunked: 2 S)\n"
            "  B_GB/s   per-direction rate with both directions busy, measured at start\n"
            "  bound    floor / median_s; floor = 2 S g / B for hfft on a GPU (g: mean GPU\n"
            "           share), S / B for cufft-chunked\n"
            "  error    relative RMS error, ! above %g (f32) or %g (f64)\n"
            "  model_s  hfft's predicted time; xFFTW: best FFTW median / this median\n"
            "  plan     what hfft_plan_info reports; round_s: each round's time in the\n"
            "           last timed run\n"
            "environment: HFFT_DEVICE=none|cuda|emulated and the other HFFT_* settings apply\n"
            "to hfft; the emulated device is a test double, never a GPU timing.\n",
            G.cores, tolerance(4), tolerance(8));
}

static int parse_problem(const char *s, problem *p) {
    memset(p, 0, sizeof *p);
    int rank = 0, used = 0;
    if (sscanf(s, "%1dd:%n", &rank, &used) != 1 || used == 0 || rank < 1 || rank > 3)
        return -1;
    const char *c = s + used;
    for (int k = 0; k < rank; k++) {
        char *end;
        errno = 0;
        long long v = strtoll(c, &end, 10);
        if (end == c || errno || v < 1)
            return -1;
        p->n[k] = v;
        c = end;
        if (k + 1 < rank) {
            if (*c != 'x')
                return -1;
            c++;
        }
    }
    p->prec = 4;
    if (*c == ':') {
        c++;
        if (strcmp(c, "f32") == 0)
            p->prec = 4;
        else if (strcmp(c, "f64") == 0)
            p->prec = 8;
        else
            return -1;
    } else if (*c) {
        return -1;
    }
    p->rank = rank;
    p->total = 1;
    for (int k = 0; k < rank; k++) {
        if (__builtin_mul_overflow(p->total, p->n[k], &p->total))
            return -1;
    }
    int64_t b;
    if (__builtin_mul_overflow(p->total, (int64_t)(2 * p->prec), &b))
        return -1;
    p->bytes = (size_t)b;
    for (int k = rank; k < 3; k++)
        p->n[k] = 1;
    snprintf(p->text, sizeof p->text, "%dd:", rank);
    for (int k = 0; k < rank; k++)
        snprintf(p->text + strlen(p->text), sizeof p->text - strlen(p->text), "%s%lld",
                 k ? "x" : "", (long long)p->n[k]);
    snprintf(p->text + strlen(p->text), sizeof p->text - strlen(p->text), ":%s",
             p->prec == 4 ? "f32" : "f64");
    return 0;
}

/* A comma list of names from option_name[] within `allowed`; returns the bits. */
static unsigned parse_list(const char *opt, const char *list, unsigned allowed) {
    unsigned bits = 0;
    char buf[512];
    snprintf(buf, sizeof buf, "%s", list);
    for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok;
         tok = strtok_r(NULL, ",", &save)) {
        if (strcmp(tok, "all") == 0) {
            bits |= allowed == HFFT_ENGINES ? ((1u << E_HYBRID) | (1u << E_GPU) | (1u << E_CPU))
                                            : allowed;
            continue;
        }
        if (strcmp(tok, "none") == 0)
            continue;
        int found = 0;
        for (int e = 0; e < E_COUNT; e++)
            if ((allowed >> e & 1u) && strcmp(tok, option_name[e]) == 0) {
                bits |= 1u << e;
                found = 1;
            }
        if (!found) {
            fprintf(stderr, "hfft-bench: %s: unknown name '%s'\n", opt, tok);
            exit(2);
        }
    }
    return bits;
}

static const char *need(int argc, char **argv, int *i) {
    if (*i + 1 >= argc) {
        fprintf(stderr, "hfft-bench: %s needs a value\n", argv[*i]);
        exit(2);
    }
    return argv[++*i];
}

static int64_t parse_size_opt(const char *opt, const char *v) {
    int64_t b = 0;
    if (hfft_parse_bytes(v, &b) || b <= 0) {
        fprintf(stderr, "hfft-bench: %s '%s': not a byte size\n", opt, v);
        exit(2);
    }
    return b;
}

static long parse_int_opt(const char *opt, const char *v, long lo) {
    char *end;
    errno = 0;
    long x = strtol(v, &end, 10);
    if (end == v || *end || errno || x < lo) {
        fprintf(stderr, "hfft-bench: %s '%s': expected an integer >= %ld\n", opt, v, lo);
        exit(2);
    }
    return x;
}

/* ---- main ---- */

static void account(const problem *p, const result *r) {
    if (r->status == ST_FAILED || (r->status == ST_OK && r->err > tolerance(p->prec)))
        G.any_failure = 1;
    if (r->status == ST_OK)
        fprintf(stderr, "[%s] %s: median %.4g s%s\n", p->text, engine_name[r->engine], r->med,
                r->err > tolerance(p->prec) ? " (error above tolerance)" : "");
    else
        fprintf(stderr, "[%s] %s: %s\n", p->text, engine_name[r->engine], r->note);
}

/* Where a symbol came from: MKL exports FFTW's names too, and a link order that
   put it first would silently turn every FFTW figure into an MKL one. */
static const char *origin(void *sym) {
    Dl_info di;
    if (!dladdr(sym, &di) || !di.dli_fname)
        return "?";
    const char *s = strrchr(di.dli_fname, '/');
    return s ? s + 1 : di.dli_fname;
}

int main(int argc, char **argv) {
    long nc = sysconf(_SC_NPROCESSORS_ONLN);
    G.cores = nc > 0 ? (int)nc : 1;
    host_description(G.host, sizeof G.host);

    args a;
    memset(&a, 0, sizeof a);
    a.engines = (1u << E_HYBRID) | (1u << E_GPU) | (1u << E_CPU);
    int baselines_given = 0;
    unsigned baselines = BASELINES;
    a.reps = 5;
    a.measure_limit = 60.0;
    a.bandwidth = -1;
    a.seed = 1;
    a.bthreads = G.cores;
    problem *probs = calloc((size_t)argc, sizeof *probs);
    int nprob = 0;
    if (!probs)
        die("out of memory");
    for (int i = 1; i < argc; i++) {
        const char *o = argv[i];
        if (strcmp(o, "--help") == 0 || strcmp(o, "-h") == 0) {
            usage(stdout);
            return 0;
        } else if (strcmp(o, "--mode") == 0) {
            a.engines = parse_list(o, need(argc, argv, &i), HFFT_ENGINES);
        } else if (strcmp(o, "--baselines") == 0) {
            baselines = parse_list(o, need(argc, argv, &i), BASELINES);
            baselines_given = 1;
        } else if (strcmp(o, "--budget") == 0) {
            a.budget = parse_size_opt(o, need(argc, argv, &i));
        } else if (strcmp(o, "--pass-bytes") == 0) {
            a.pass_bytes = parse_size_opt(o, need(argc, argv, &i));
        } else if (strcmp(o, "--reps") == 0) {
            a.reps = (int)parse_int_opt(o, need(argc, argv, &i), 1);
        } else if (strcmp(o, "--threads") == 0) {
            a.threads = (int)parse_int_opt(o, need(argc, argv, &i), 1);
        } else if (strcmp(o, "--baseline-threads") == 0) {
            a.bthreads = (int)parse_int_opt(o, need(argc, argv, &i), 1);
        } else if (strcmp(o, "--seed") == 0) {
            a.seed = (uint64_t)parse_int_opt(o, need(argc, argv, &i), 0);
        } else if (strcmp(o, "--ratio") == 0) {
            const char *v = need(argc, argv, &i);
            char *end;
            a.ratio = strtod(v, &end);
            if (end == v || *end || !(a.ratio > 0 && a.ratio <= 1)) {
                fprintf(stderr, "hfft-bench: --ratio '%s': expected a number in (0, 1]\n", v);
                return 2;
            }
        } else if (strcmp(o, "--round-ratio") == 0) {
            const char *v = need(argc, argv, &i);
            char *c = (char *)v, *end;
            for (int h = 0; h < 3 && *c; h++) {
                a.round_ratio[h] = strtod(c, &end);
                if (end == c || !(a.round_ratio[h] >= 0 && a.round_ratio[h] <= 1)) {
                    fprintf(stderr,
                            "hfft-bench: --round-ratio '%s': expected R1,R2[,R3] in [0, 1]\n", v);
                    return 2;
                }
                c = *end == ',' ? end + 1 : end;
            }
            if (*c) {
                fprintf(stderr, "hfft-bench: --round-ratio '%s': at most three shares\n", v);
                return 2;
            }
        } else if (strcmp(o, "--slots") == 0) {
            a.slots = (int)parse_int_opt(o, need(argc, argv, &i), 1);
        } else if (strcmp(o, "--wisdom") == 0) {
            a.wisdom = need(argc, argv, &i);
        } else if (strcmp(o, "--hfft-measure") == 0) {
            a.hfft_measure = 1;
        } else if (strcmp(o, "--fftw-measure-limit") == 0) {
            const char *v = need(argc, argv, &i);
            char *end;
            a.measure_limit = strtod(v, &end);
            if (end == v || *end || !(a.measure_limit > 0)) {
                fprintf(stderr, "hfft-bench: --fftw-measure-limit '%s': expected seconds > 0\n", v);
                return 2;
            }
        } else if (strcmp(o, "--schedule") == 0) {
            const char *v = need(argc, argv, &i);
            if (strcmp(v, "plain") == 0)
                a.schedule = HFFT_SCHEDULE_PLAIN;
            else if (strcmp(v, "radix2") == 0)
                a.schedule = HFFT_SCHEDULE_RADIX2;
            else {
                fprintf(stderr, "hfft-bench: --schedule '%s': plain or radix2\n", v);
                return 2;
            }
        } else if (strcmp(o, "--csv") == 0) {
            a.csv = need(argc, argv, &i);
        } else if (strcmp(o, "--verify") == 0) {
            a.verify = 1;
        } else if (strcmp(o, "--inplace") == 0) {
            a.inplace = 1;
        } else if (strcmp(o, "--host") == 0) {
            const char *v = need(argc, argv, &i);
            if (strcmp(v, "hfft_malloc") == 0)
                a.host_malloc = 0;
            else if (strcmp(v, "malloc") == 0)
                a.host_malloc = 1;
            else {
                fprintf(stderr, "hfft-bench: --host '%s': hfft_malloc or malloc\n", v);
                return 2;
            }
        } else if (strcmp(o, "--pinning") == 0) {
            const char *v = need(argc, argv, &i);
            static const char *const modes[] = {"auto", "register", "stage"};
            a.pinning = -1;
            for (int k = 0; k < 3; k++)
                if (strcmp(v, modes[k]) == 0)
                    a.pinning = k;
            if (a.pinning < 0) {
                fprintf(stderr, "hfft-bench: --pinning '%s': auto, register or stage\n", v);
                return 2;
            }
        } else if (strcmp(o, "--bandwidth") == 0) {
            a.bandwidth = 1;
        } else if (strcmp(o, "--no-bandwidth") == 0) {
            a.bandwidth = 0;
        } else if (o[0] == '-' && o[1] == '-') {
            fprintf(stderr, "hfft-bench: unknown option %s (see --help)\n", o);
            return 2;
        } else if (parse_problem(o, &probs[nprob]) == 0) {
            nprob++;
        } else {
            fprintf(stderr, "hfft-bench: problem '%s': expected e.g. 2d:1024x1024:f32\n", o);
            return 2;
        }
    }
    if (nprob == 0 && a.bandwidth != 1) {
        usage(stderr);
        return 2;
    }

    fftw_init_threads();
    fftwf_init_threads();
#ifdef HFFT_BENCH_HAVE_FFTWL_THREADS
    fftwl_init_threads();
#endif
    {
        void *const syms[] = {(void *)fftw_execute,
                              (void *)fftwf_execute,
                              (void *)fftw_plan_guru64_dft,
                              (void *)fftwf_plan_guru64_dft,
                              (void *)fftw_plan_with_nthreads,
                              (void *)fftwf_plan_with_nthreads};
        for (size_t i = 0; i < sizeof syms / sizeof *syms; i++)
            if (!strstr(origin(syms[i]), "fftw"))
                die("an FFTW function resolves to %s, not FFTW: link FFTW before MKL "
                    "(libmkl_rt exports FFTW's names)",
                    origin(syms[i]));
    }

    /* What is available, and what is skipped with a reason. */
    char why_gpu[300] = "built without CUDA";
#ifdef HFFT_BENCH_HAVE_CUDA
    bench_gpu g;
    G.gpu_present = bench_gpu_probe(&g);
    snprintf(G.gpu_name, sizeof G.gpu_name, "%s", g.name);
    snprintf(why_gpu, sizeof why_gpu, "%s", g.name);
#endif
    unsigned available = (1u << E_FFTW_EST) | (1u << E_FFTW_MEAS);
#ifdef HFFT_BENCH_HAVE_MKL
    available |= 1u << E_MKL;
#endif
    if (G.gpu_present)
        available |= (1u << E_CU_INCARD) | (1u << E_CU_CHUNK);
    if (!baselines_given)
        baselines &= available;
    a.engines |= baselines;

    printf("hfft-bench, hfft %s: host %s, %d cores; baselines use %d threads\n", hfft_version(),
           G.host, G.cores, a.bthreads);
    printf("FFTW %s (%s, %s)", fftw_version, origin((void *)fftw_execute),
           origin((void *)fftwf_execute));
#ifdef HFFT_BENCH_HAVE_MKL
    {
        char v[256];
        mkl_get_version_string(v, (int)sizeof v);
        printf("; MKL: %s (%s)", v, origin((void *)DftiComputeForward));
    }
#else
    printf("; MKL: not built (mkl.h / libmkl_rt not found at configure time)");
#endif
    printf("\nGPU: %s\n", G.gpu_present ? G.gpu_name : why_gpu);
    const char *hd = getenv("HFFT_DEVICE");
    if (hd && *hd)
        printf("HFFT_DEVICE=%s\n", hd);

    int bandwidth_off = a.bandwidth == 0;
    if (a.bandwidth == -1)
        a.bandwidth = G.gpu_present;
#ifdef HFFT_BENCH_HAVE_CUDA
    if (a.bandwidth && G.gpu_present) {
        bench_link l;
        bench_link_measure(LINK_BYTES, LINK_REPS, &l);
        G.link_measured = 1;
        G.h2d = l.h2d;
        G.d2h = l.d2h;
        G.dup_h2d = l.duplex_h2d;
        G.dup_d2h = l.duplex_d2h;
        printf("link (%s, pinned, 256 MiB copies, median of %d): H2D %.1f GB/s, D2H %.1f GB/s, "
               "both at once %.1f + %.1f = %.1f GB/s\n",
               G.gpu_name, LINK_REPS, G.h2d / 1e9, G.d2h / 1e9, G.dup_h2d / 1e9, G.dup_d2h / 1e9,
               (G.dup_h2d + G.dup_d2h) / 1e9);
    }
#endif
    if (!G.link_measured)
        printf("link: not measured (%s)\n", bandwidth_off ? "--no-bandwidth" : why_gpu);
    fflush(stdout);

    /* Two arrays of the largest problem, reused by every engine and problem:
       A holds the input, B the output (or the in-place copy). */
    size_t maxb = 0;
    for (int i = 0; i < nprob; i++)
        if (probs[i].bytes > maxb)
            maxb = probs[i].bytes;
    void *A = NULL, *B = NULL;
    if (nprob) {
        A = a.host_malloc ? malloc(maxb) : hfft_malloc(maxb);
        B = a.host_malloc ? malloc(maxb) : hfft_malloc(maxb);
        if (!A || !B) {
            char b1[32];
            die("cannot allocate 2 x %s of host memory (%s: %s)",
                fmt_bytes((double)maxb, b1, sizeof b1), a.host_malloc ? "malloc" : "hfft_malloc",
                a.host_malloc ? "out of memory" : hfft_last_error_message());
        }
    }

    for (int pi = 0; pi < nprob; pi++) {
        const problem *p = &probs[pi];
        result res[E_COUNT];
        int nres = 0;
        for (int e = 0; e < E_COUNT; e++) {
            if (!(a.engines >> e & 1u))
                continue;
            if (e == E_CU_CHUNK && (a.engines >> E_CU_INCARD & 1u))
                continue; /* ran together with cufft-incard */
            result *r = &res[nres];
            memset(r, 0, sizeof *r);
            r->engine = e;
            r->err = -1;
            if (e <= E_AUTO) {
                run_hfft(&a, p, e, A, B, r);
            } else if (e == E_FFTW_EST || e == E_FFTW_MEAS) {
                run_fftw(&a, p, e, A, B, r);
            } else if (e == E_MKL) {
#ifdef HFFT_BENCH_HAVE_MKL
                run_mkl(&a, p, A, B, r);
#else
                r->status = ST_SKIPPED;
                snprintf(r->note, sizeof r->note, "skipped: built without MKL");
#endif
            } else {
                /* cufft-incard and cufft-chunked share one plan and device array. */
                int want_i = a.engines >> E_CU_INCARD & 1u, want_c = a.engines >> E_CU_CHUNK & 1u;
                result *ri = want_i ? r : NULL;
                result *rc = want_c ? (want_i ? &res[nres + 1] : r) : NULL;
                if (ri && rc) {
                    memset(rc, 0, sizeof *rc);
                    rc->err = -1;
                }
                if (ri)
                    ri->engine = E_CU_INCARD;
                if (rc)
                    rc->engine = E_CU_CHUNK;
#ifdef HFFT_BENCH_HAVE_CUDA
                if (G.gpu_present) {
                    run_cufft(&a, p, want_i, want_c, A, B, ri, rc);
                } else
#endif
                {
                    for (int k = 0; k < 2; k++) {
                        result *q = k ? rc : ri;
                        if (!q)
                            continue;
                        q->status = ST_SKIPPED;
                        snprintf(q->note, sizeof q->note, "skipped: %s", why_gpu);
                    }
                }
                if (ri && rc) {
                    account(p, ri);
                    nres++;
                    r = rc;
                }
            }
            account(p, r);
            nres++;
        }
        print_table(&a, p, res, nres);
        write_csv(&a, p, res, nres);
    }
    if (a.host_malloc) {
        free(A);
        free(B);
    } else {
        hfft_free(A);
        hfft_free(B);
    }
    free(probs);
    return G.any_failure ? 1 : 0;
}
