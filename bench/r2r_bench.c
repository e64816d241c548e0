/*
 * r2r_bench.c: hfft-r2r-bench, real-to-real transforms host array to host
 * array, one run each, against what moves the same bytes and what a CPU user
 * has:
 *   hfft's r2r plan (the placement asked for) and, in the same run, hfft's C2C
 *   plan of the same bytes seen as complex elements (n0 x ... x n(d-1)/2: the
 *   copies an r2r plan's rounds make, without its kinds' steps), so that
 *   t(r2r) / t(c2c) is what the kinds cost beyond the bytes;
 *   --fftw: FFTW's own r2r plan of the array with the same threads (ESTIMATE),
 *   the CPU baseline.
 *
 *   hfft-r2r-bench [--budget BYTES] [--reps N] [--cpu] [--fftw] [--threads T]
 *                  PROBLEM...
 *   PROBLEM  RANKd:N0[xN1[xN2]]:f32|f64:KIND, KIND one of FFTW's r2r kinds by the
 *            digits of its name (e10 REDFT10, e01, e11, e00, o10, o01, o11, o00)
 *            or r2hc, hc2r, dht; the same kind along every dimension
 * Prints the best of N executes of each (after one that is not timed), and the
 * bytes the r2r plan's execute copied each way.
 */
#include <fftw3.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "hfft.h"

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static const struct {
    const char *name;
    hfft_r2r_kind kind;
} KINDS[] = {{"r2hc", HFFT_R2HC},   {"hc2r", HFFT_HC2R},   {"dht", HFFT_DHT},
             {"e00", HFFT_REDFT00}, {"e01", HFFT_REDFT01}, {"e10", HFFT_REDFT10},
             {"e11", HFFT_REDFT11}, {"o00", HFFT_RODFT00}, {"o01", HFFT_RODFT01},
             {"o10", HFFT_RODFT10}, {"o11", HFFT_RODFT11}};

typedef struct prob {
    int rank, prec;
    int64_t n[3];
    hfft_r2r_kind kind;
} prob;

static int parse(const char *s, prob *p) {
    char kind[16];
    long long a = 0, b = 0, c = 0;
    int bits = 0;
    memset(p, 0, sizeof *p);
    if (sscanf(s, "1d:%lld:f%d:%15s", &a, &bits, kind) == 3)
        p->rank = 1;
    else if (sscanf(s, "2d:%lldx%lld:f%d:%15s", &a, &b, &bits, kind) == 4)
        p->rank = 2;
    else if (sscanf(s, "3d:%lldx%lldx%lld:f%d:%15s", &a, &b, &c, &bits, kind) == 5)
        p->rank = 3;
    else
        return -1;
    p->n[0] = a;
    p->n[1] = b;
    p->n[2] = c;
    p->prec = bits / 8;
    if (p->prec != 4 && p->prec != 8)
        return -1;
    for (size_t i = 0; i < sizeof KINDS / sizeof *KINDS; i++)
        if (!strcmp(kind, KINDS[i].name)) {
            p->kind = KINDS[i].kind;
            return 0;
        }
    return -1;
}

static void *plan_r2r(const prob *p, void *a, unsigned flags, const hfft_options *o) {
    hfft_r2r_kind k[3] = {p->kind, p->kind, p->kind};
    return p->prec == 4 ? (void *)hfftf_plan_r2r64(p->rank, p->n, a, a, k, flags, o)
                        : (void *)hfft_plan_r2r64(p->rank, p->n, a, a, k, flags, o);
}

static void *plan_c2c(const prob *p, void *a, unsigned flags, const hfft_options *o) {
    int64_t n[3] = {p->n[0], p->n[1], p->n[2]};
    n[p->rank - 1] /= 2;
    return p->prec == 4
               ? (void *)hfftf_plan_dft(p->rank, n, a, a, HFFT_FORWARD, flags, o)
               : (void *)hfft_plan_dft(p->rank, n, a, a, HFFT_FORWARD, flags, o);
}

static double best(int prec, void *plan, int reps) {
    double t = 1e300;
    for (int r = 0; r <= reps; r++) {
        double t0 = now();
        int st = prec == 4 ? hfftf_execute(plan) : hfft_execute(plan);
        double t1 = now();
        if (st) {
            fprintf(stderr, "execute: %s\n", hfft_last_error_message());
            exit(1);
        }
        if (r && t1 - t0 < t)
            t = t1 - t0;
    }
    return t;
}

static double fftw_best(const prob *p, void *a, int threads, int reps) {
    int n[3] = {(int)p->n[0], (int)p->n[1], (int)p->n[2]};
    double t = 1e300;
    if (p->prec == 4) {
        fftwf_r2r_kind k[3] = {(fftwf_r2r_kind)p->kind, (fftwf_r2r_kind)p->kind,
                               (fftwf_r2r_kind)p->kind};
        fftwf_init_threads();
        fftwf_plan_with_nthreads(threads);
        fftwf_plan q = fftwf_plan_r2r(p->rank, n, a, a, k, FFTW_ESTIMATE);
        for (int r = 0; r <= reps; r++) {
            double t0 = now();
            fftwf_execute(q);
            double dt = now() - t0;
            if (r && dt < t)
                t = dt;
        }
        fftwf_destroy_plan(q);
    } else {
        fftw_r2r_kind k[3] = {(fftw_r2r_kind)p->kind, (fftw_r2r_kind)p->kind,
                              (fftw_r2r_kind)p->kind};
        fftw_init_threads();
        fftw_plan_with_nthreads(threads);
        fftw_plan q = fftw_plan_r2r(p->rank, n, a, a, k, FFTW_ESTIMATE);
        for (int r = 0; r <= reps; r++) {
            double t0 = now();
            fftw_execute(q);
            double dt = now() - t0;
            if (r && dt < t)
                t = dt;
        }
        fftw_destroy_plan(q);
    }
    return t;
}

int main(int argc, char **argv) {
    hfft_options o;
    hfft_options_init(&o);
    int reps = 3, cpu = 0, fftw = 0, threads = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--budget") && i + 1 < argc) {
            o.device_memory = strtoll(argv[++i], NULL, 10);
        } else if (!strcmp(argv[i], "--reps") && i + 1 < argc) {
            reps = atoi(argv[++i]);
        } else if (!strcmp(argv[i], "--threads") && i + 1 < argc) {
            threads = atoi(argv[++i]);
            o.threads = threads;
        } else if (!strcmp(argv[i], "--cpu")) {
            cpu = 1;
        } else if (!strcmp(argv[i], "--fftw")) {
            fftw = 1;
        } else {
            prob p;
            if (parse(argv[i], &p)) {
                fprintf(stderr, "hfft-r2r-bench: problem '%s': expected e.g. "
                                "3d:1024x1024x1024:f32:e10\n", argv[i]);
                return 2;
            }
            int64_t count = 1;
            for (int k = 0; k < p.rank; k++)
                count *= p.n[k];
            size_t bytes = (size_t)count * (size_t)p.prec;
            char *a = p.prec == 4 ? (void *)hfftf_malloc(bytes) : (void *)hfft_malloc(bytes);
            if (!a) {
                fprintf(stderr, "hfft_malloc(%zu): %s\n", bytes, hfft_last_error_message());
                return 1;
            }
            srand(1);
            for (int64_t e = 0; e < count; e++) {
                double v = 2.0 * rand() / RAND_MAX - 1.0;
                if (p.prec == 4)
                    ((float *)a)[e] = (float)v;
                else
                    ((double *)a)[e] = v;
            }
            unsigned flags = cpu ? HFFT_CPU_ONLY : HFFT_GPU_ONLY;
            double t0 = now();
            void *r = plan_r2r(&p, a, flags, &o);
            double tp = now() - t0;
            if (!r) {
                fprintf(stderr, "%s: %s\n", argv[i], hfft_last_error_message());
                return 1;
            }
            double tr = best(p.prec, r, reps);
            hfft_info info; /* after an execute: the bytes it moved */
            if (p.prec == 4)
                hfftf_plan_info(r, &info);
            else
                hfft_plan_info(r, &info);
            if (p.prec == 4)
                hfftf_destroy_plan(r);
            else
                hfft_destroy_plan(r);
            void *c = plan_c2c(&p, a, flags, &o);
            double tc = c ? best(p.prec, c, reps) : 0;
            if (c && p.prec == 4)
                hfftf_destroy_plan(c);
            else if (c)
                hfft_destroy_plan(c);
            printf("%s (%.2f GiB) %s: r2r %.4f s (plan %.2f s; schedule %d, rounds %d, paired %d,"
                   " %d threads; link %.2f + %.2f GiB), c2c of the same bytes %.4f s: r2r/c2c "
                   "%.3f\n",
                   argv[i], (double)bytes / (1 << 30), cpu ? "CPU only" : "GPU only", tr, tp,
                   info.schedule, info.rounds, info.r2r_paired, info.threads,
                   (double)info.link_bytes[0] / (1 << 30), (double)info.link_bytes[1] / (1 << 30),
                   tc, tc > 0 ? tr / tc : 0.0);
            if (fftw) {
                int th = threads > 0 ? threads : info.threads;
                double tf = fftw_best(&p, a, th, reps);
                printf("%s: FFTW's r2r plan (ESTIMATE, %d threads) %.4f s: hfft %.2fx faster\n",
                       argv[i], th, tf, tf / tr);
            }
            fflush(stdout);
            if (p.prec == 4)
                hfftf_free(a);
            else
                hfft_free(a);
        }
    }
    return 0;
}
