/*
 * dropin_bench.c: what an FFTW program pays for running on hfft through the
 * drop-in.  fftwf_plan_dft_2d + fftwf_execute (the program as written for
 * FFTW, on an fftwf_malloc'd array) against hfftf_plan_2d + hfftf_execute on
 * the same pinned array, in one run: a warm-up, then the median of REPS
 * executes of each, in the order drop-in, API, API, drop-in so that drift
 * cancels.  One source, two programs (a process cannot hold two libraries
 * exporting fftwf_*):
 *   hfft-dropin-bench   the drop-in (libhfftw3f) and hfft's API
 *   hfft-cufftw-bench   the same FFTW calls on NVIDIA's cufftw (CUDA builds;
 *                       -DDROPIN_BENCH_CUFFTW), where the array fits the card
 * bench/dropin_bench.sh runs both side by side.
 *
 *   hfft-dropin-bench [N0xN1] [REPS] [--out-of-place]    default 32768x32768 (8 GiB), 5
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifdef DROPIN_BENCH_CUFFTW
#include <cuda_runtime.h>
#include <cufftw.h>
#define LIBRARY "cufftw"
#else
#include <fftw3.h>
#include <hfft.h>
#define LIBRARY "hfft drop-in (libhfftw3f)"
#endif

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

typedef struct timing {
    double plan, t[64];
    int n;
} timing;

static double median(timing *m) {
    qsort(m->t, (size_t)m->n, sizeof *m->t, cmp_double);
    return m->n % 2 ? m->t[m->n / 2] : 0.5 * (m->t[m->n / 2 - 1] + m->t[m->n / 2]);
}

/* Unnormalized transforms grow the data by sqrt(n0 n1) each: values start near
   1e-30 so that a dozen executes of 2^30 points stay finite (and normal). */
static void fill(fftwf_complex *a, size_t count) {
    uint64_t s = 0x9e3779b97f4a7c15u;
    for (size_t i = 0; i < count; i++) {
        s ^= s << 13, s ^= s >> 7, s ^= s << 17;
        a[i][0] = (float)((double)(s >> 40) / (double)(1u << 24) - 0.5) * 1e-30f;
        a[i][1] = (float)((double)(s & 0xffffff) / (double)(1u << 24) - 0.5) * 1e-30f;
    }
}

/* The program as written for FFTW: plan, warm up, time REPS executes. */
static int run_fftw(int n0, int n1, fftwf_complex *in, fftwf_complex *out, int reps, timing *m) {
    double t0 = now();
    fftwf_plan p = fftwf_plan_dft_2d(n0, n1, in, out, FFTW_FORWARD, FFTW_ESTIMATE);
    m->plan = now() - t0;
    if (!p)
        return -1;
    fftwf_execute(p);
    for (int r = 0; r < reps; r++) {
        t0 = now();
        fftwf_execute(p);
        m->t[m->n++] = now() - t0;
    }
    fftwf_destroy_plan(p);
    return 0;
}

#ifndef DROPIN_BENCH_CUFFTW
/* The same transform through hfft's own API. */
static int run_hfft(int n0, int n1, fftwf_complex *in, fftwf_complex *out, int reps, timing *m,
                    hfft_info *info) {
    double t0 = now();
    hfftf_plan p = hfftf_plan_2d(n0, n1, in, out, HFFT_FORWARD, HFFT_ESTIMATE);
    m->plan = now() - t0;
    if (!p)
        return -1;
    int st = hfftf_execute(p);
    for (int r = 0; r < reps && !st; r++) {
        t0 = now();
        st = hfftf_execute(p);
        m->t[m->n++] = now() - t0;
    }
    hfftf_plan_info(p, info);
    hfftf_destroy_plan(p);
    return st;
}
#endif

static void report(const char *what, timing *m, double flops) {
    double med = median(m);
    printf("%-28s plan %8.3f s   execute median %8.4f s (min %.4f, max %.4f, %d runs)   "
           "%7.1f GFLOPS\n",
           what, m->plan, med, m->t[0], m->t[m->n - 1], m->n, flops / med * 1e-9);
}

int main(int argc, char **argv) {
    int n0 = 32768, n1 = 32768, reps = 5, inplace = 1;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--out-of-place") == 0)
            inplace = 0;
        else if (strchr(argv[i], 'x')) {
            if (sscanf(argv[i], "%dx%d", &n0, &n1) != 2 || n0 < 1 || n1 < 1) {
                fprintf(stderr, "size: N0xN1, as 32768x32768\n");
                return 2;
            }
        } else if ((reps = atoi(argv[i])) < 1 || reps > 32) {
            fprintf(stderr, "REPS: 1 to 32\n");
            return 2;
        }
    }
    size_t count = (size_t)n0 * (size_t)n1, bytes = count * sizeof(fftwf_complex);
    double flops = 5.0 * (double)count * log2((double)count);
    fftwf_complex *in = fftwf_malloc(bytes);
    fftwf_complex *out = inplace ? in : fftwf_malloc(bytes);
    if (!in || !out) {
        fprintf(stderr, "fftwf_malloc of %zu bytes failed\n", bytes);
        return 1;
    }
    fill(in, count);

#ifdef DROPIN_BENCH_CUFFTW
    char device[256] = "?";
    struct cudaDeviceProp prop;
    int dev = 0;
    if (cudaGetDevice(&dev) == cudaSuccess && cudaGetDeviceProperties(&prop, dev) == cudaSuccess)
        snprintf(device, sizeof device, "%s", prop.name);
    printf("%s, 2D C2C f32 %dx%d (%.2f GiB), %s, on %s\n", LIBRARY, n0, n1, bytes / 1073741824.0,
           inplace ? "in place" : "out of place", device);
    timing a = {0};
    if (run_fftw(n0, n1, in, out, reps, &a) || run_fftw(n0, n1, in, out, reps, &a)) {
        fprintf(stderr, "cufftw: fftwf_plan_dft_2d failed (the array must fit the card)\n");
        return 1;
    }
    report("cufftw fftwf_execute", &a, flops);
#else
    timing a = {0}, b = {0};
    hfft_info info;
    memset(&info, 0, sizeof info);
    /* drop-in, API, API, drop-in: each plan made and destroyed alone, so that
       each has the whole device budget */
    int st = run_fftw(n0, n1, in, out, reps, &a);
    if (!st)
        st = run_hfft(n0, n1, in, out, reps, &b, &info);
    if (!st)
        st = run_hfft(n0, n1, in, out, reps, &b, &info);
    if (!st)
        st = run_fftw(n0, n1, in, out, reps, &a);
    if (st) {
        fprintf(stderr, "hfft: %s\n", hfft_last_error_message());
        return 1;
    }
    printf("%s, 2D C2C f32 %dx%d (%.2f GiB), %s, on %s (placement %s, budget %.2f GiB)\n",
           LIBRARY, n0, n1, bytes / 1073741824.0, inplace ? "in place" : "out of place",
           info.device_name, info.placement == 0 ? "CPU" : info.placement == 1 ? "GPU" : "hybrid",
           info.device_budget / 1073741824.0);
    report("drop-in fftwf_execute", &a, flops);
    report("hfft API hfftf_execute", &b, flops);
    double ratio = median(&a) / median(&b);
    printf("drop-in / API: %.4f (%+.2f%%)\n", ratio, 100.0 * (ratio - 1.0));
#endif
    fftwf_free(in);
    if (out != in)
        fftwf_free(out);
    return 0;
}
