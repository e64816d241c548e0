/*
 * bench.h: what the parts of hfft-bench share.  bench.c runs the problems
 * through the engines; options.c reads the command line; data.c fills,
 * copies and checks arrays; run_hfft.c times hfft, baselines.c FFTW, MKL and
 * cuFFT; measure.c the link and the host memory; report.c prints the table
 * and the CSV rows.
 * Single-threaded but for the threaded fills, which share nothing.
 */
#ifndef HFFT_BENCH_H
#define HFFT_BENCH_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "hfft.h"

#define LINK_BYTES ((size_t)256 << 20)
#define LINK_REPS 5

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
extern const char *const engine_name[E_COUNT];
extern const char *const option_name[E_COUNT];
#define HFFT_ENGINES ((1u << E_HYBRID) | (1u << E_GPU) | (1u << E_CPU) | (1u << E_AUTO))
#define BASELINES                                                                     \
    ((1u << E_FFTW_EST) | (1u << E_FFTW_MEAS) | (1u << E_MKL) | (1u << E_CU_INCARD) | \
     (1u << E_CU_CHUNK))

typedef struct args {
    unsigned engines;   /* bit per engine */
    unsigned baselines; /* bit per baseline engine */
    int baselines_given;
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

typedef struct bench_env {
    int cores;
    char host[256];
    int gpu_present;
    char gpu_name[256];
    int link_measured;
    double h2d, d2h, dup_h2d, dup_d2h; /* bytes / s */
    double host_bw;   /* host memory, bytes read plus written / s (0: not measured) */
    int host_threads; /* the threads that measured it */
    int any_failure;
} bench_env;
/* What hfft-bench learned of the machine at start (bench.c). */
extern bench_env G;

/* data.c */
void bench_die(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2), noreturn))
#endif
    ;
void bench_summarize(double *t, int n, result *r);
const char *bench_fmt_bytes(double b, char *buf, size_t len);
void bench_host_description(char *out, size_t len);
void bench_fill(const problem *p, void *a, uint64_t seed);
void bench_copy(const problem *p, void *dst, const void *src);
void bench_poison(const problem *p, void *dst);
void bench_fftw_threads_reset(void);
double bench_verify(const args *a, const problem *p, const void *in, const void *out);
double bench_tolerance(int prec);

/* options.c: -1 and the arguments filled in, or the status main exits with
   (2: bad usage; 0: --help printed). */
int bench_parse_args(int argc, char **argv, args *a, problem *probs, int *nprob);
void bench_usage(FILE *f);

/* run_hfft.c and baselines.c: each fills *r (r->engine set by the caller). */
void bench_run_hfft(const args *a, const problem *p, int e, void *A, void *B, result *r);
void bench_run_fftw(const args *a, const problem *p, int e, void *A, void *B, result *r);
#ifdef HFFT_BENCH_HAVE_MKL
void bench_run_mkl(const args *a, const problem *p, void *A, void *B, result *r);
#endif
#ifdef HFFT_BENCH_HAVE_CUDA
void bench_run_cufft(const args *a, const problem *p, int want_incard, int want_chunk, void *A,
                     void *B, result *ri, result *rc);
#endif

/* measure.c: the link's rates into G (where a GPU is present and asked for);
   the host memory bandwidth (where an hfft placement runs, or --bandwidth). */
void bench_measure_link(args *a, const char *why_gpu);
void bench_measure_host(const args *a);

/* report.c */
double bench_flops(const problem *p);
/* Round h's CPU side as a fraction of the host memory bandwidth (it reads and
   writes its share of the array once); negative where it has none. */
double bench_cpu_memory_fraction(const problem *p, const result *r, int h);
void bench_print_table(const args *a, const problem *p, result *res, int nres);
void bench_write_csv(const args *a, const problem *p, result *res, int nres);

#endif
