/*
 * bench.h: what the parts of hfft-bench share.  bench.c runs the problems
 * through the engines; options.c reads the command line; data.c fills,
 * copies and checks arrays; run_hfft.c times hfft, baselines.c FFTW and
 * cuFFT, mkl_baseline.c MKL; measure.c the link and the host memory;
 * report.c prints the table and the CSV rows.
 * Single-threaded but for the threaded fills, which share nothing.
 */
#ifndef HFFT_BENCH_H
#define HFFT_BENCH_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "hfft.h"

#define LINK_BYTES ((size_t)2 << 30)  /* the link figures: 2 GiB each way */
#define LINK_CHUNK ((size_t)32 << 20) /* in copies of 32 MiB */
#define LINK_REPS 3

enum {
    E_HYBRID,
    E_GPU,
    E_CPU,
    E_AUTO, /* hfft placements */
    E_FFTW_EST,
    E_FFTW_MEAS,
    E_MKL,
    E_CU_INCARD,
    E_CU_COPY,
    E_CU_XT, /* baselines */
    E_COUNT
};
extern const char *const engine_name[E_COUNT];
extern const char *const option_name[E_COUNT];
#define HFFT_ENGINES ((1u << E_HYBRID) | (1u << E_GPU) | (1u << E_CPU) | (1u << E_AUTO))
#define BASELINES                                                                     \
    ((1u << E_FFTW_EST) | (1u << E_FFTW_MEAS) | (1u << E_MKL) | (1u << E_CU_INCARD) | \
     (1u << E_CU_COPY) | (1u << E_CU_XT))

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
    const char *timeline; /* --timeline FILE.png: one traced execute per GPU row drawn */
    const char *devices;  /* --devices: hfft_options.devices */
    int timelines;        /* pictures drawn so far (the second and later get a suffix) */
    int probe_each;       /* --probe-each: the link measured again before each timed execute */
    int each;             /* --each: a line per timed execute of hfft's rows */
    int alternate;        /* --alternate: hfft's rows take turns, execute by execute */
    uint64_t seed;
} args;

/* howmany dense transforms of sizes n, one after the other: complex to complex
   (kind 0), real to complex (kind 1, FFTW's halved output) or real to real (kind
   2, in place, the FFTW kind r2r along every dimension). */
enum { PK_C2C, PK_R2C, PK_R2R };
typedef struct problem {
    char text[96];
    int rank, prec, kind;
    int r2r; /* PK_R2R: hfft_r2r_kind */
    int64_t n[3], total; /* total: elements of one transform */
    int64_t howmany;
    size_t in_bytes, out_bytes; /* each side, all transforms */
    size_t bytes;               /* the larger: what each work array holds */
} problem;

enum { ST_OK, ST_SKIPPED, ST_FAILED };

typedef struct result {
    int engine, status;
    char device[96];
    char note[320];
    char plan[512];
    double plan_s, med, min, max;
    double link_bytes;  /* bytes over the link per execution; 0 for CPU engines */
    double floor_s;     /* link-bound time of the schedule this engine ran, 0: none */
    double trip_s;      /* the one-trip bound S/B_h2d + S/B_d2h (the row's cards at once) */
    int cards;          /* cards the row used (0: none) */
    double duplex_s;    /* the duplex bound of the bytes it moved each way */
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
    int ncards;        /* the cards hfft's plans use (--devices, else every card) */
    int cards[16];
    /* bytes / s, per direction alone and with both busy: [0] one card (the first),
       [1] all ncards at once */
    double h2d[2], d2h[2], dup_h2d[2], dup_d2h[2];
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
/* The same in steps, so that several rows can take turns (--alternate): the plan
   (NULL where it failed: r says why), execute k (-1: the warm-up; nothing once one
   failed), and the row's figures, its --verify and --timeline, and the plan's end. */
typedef struct bench_hrun bench_hrun;
bench_hrun *bench_hfft_begin(const args *a, const problem *p, int e, void *A, void *B, result *r);
void bench_hfft_exec(bench_hrun *h, int k);
void bench_hfft_end(bench_hrun *h);
void bench_run_fftw(const args *a, const problem *p, int e, void *A, void *B, result *r);
#ifdef HFFT_BENCH_HAVE_MKL
/* mkl_baseline.c: libmkl_rt loaded once (0, or -1 where it cannot be: the row and
   bench_mkl_describe say why); its version and file, or why it is not loaded. */
int bench_mkl_load(void);
void bench_mkl_describe(char *s, size_t n);
void bench_run_mkl(const args *a, const problem *p, void *A, void *B, result *r);
#endif
#ifdef HFFT_BENCH_HAVE_CUDA
void bench_run_cufft(const args *a, const problem *p, int want_incard, int want_chunk, void *A,
                     void *B, result *ri, result *rc);
void bench_run_cufftxt(const args *a, const problem *p, void *A, void *B, result *r);
#endif

/* measure.c: the link's rates into G (where a GPU is present and asked for);
   the host memory bandwidth (where an hfft placement runs, or --bandwidth). */
void bench_measure_link(args *a, const char *why_gpu);
/* r->trip_s and r->duplex_s for problem p on `cards` cards, `most` bytes moved in one
   direction. */
void bench_link_bounds(const problem *p, double most, int cards, result *r);
/* The link measured again into G (as bench_measure_link, quietly): 0, or -1 where it
   was not measured at the start or cannot be now. */
int bench_link_again(void);
void bench_measure_host(const args *a);

/* report.c */
double bench_flops(const problem *p);
/* Round h's CPU side as a fraction of the host memory bandwidth (it reads and
   writes its share of the array once); negative where it has none. */
double bench_cpu_memory_fraction(const problem *p, const result *r, int h);
void bench_print_table(const args *a, const problem *p, result *res, int nres);
/* Exits where --csv names a file whose header is not the one bench_write_csv writes. */
void bench_check_csv(const args *a);
void bench_write_csv(const args *a, const problem *p, result *res, int nres);

#endif
