/*
 * cuda_baselines.h: the GPU side of hfft-bench, built only with CUDA: probing
 * for a GPU, measuring the host<->device link (each direction alone and both
 * at once), and the cuFFT baselines (in-card exec, and a whole-array
 * copy-transform-copy).  Every CUDA and cuFFT call is checked; a failure
 * prints the call and its error and exits with status 1.
 */
#ifndef HFFT_BENCH_CUDA_BASELINES_H
#define HFFT_BENCH_CUDA_BASELINES_H

#include <stddef.h>
#include <stdint.h>

typedef struct bench_gpu {
    int present;       /* 1: a CUDA device is usable */
    char name[256];    /* its name, or why there is none */
    size_t free_bytes; /* device memory free at probe time */
    size_t total_bytes;
} bench_gpu;

/* Link bandwidth in bytes per second; medians over the repetitions. */
typedef struct bench_link {
    int measured;
    int cards;    /* cards copying at once (rates are their sum) */
    size_t bytes; /* bytes per copy */
    int reps;
    double h2d, d2h;   /* each direction alone */
    double duplex_h2d; /* both at once: each direction's bytes over the common time */
    double duplex_d2h;
} bench_link;

typedef struct bench_cufft bench_cufft;

/* Fills *g; returns g->present.  Never exits: no GPU is a normal answer. */
int bench_gpu_probe(bench_gpu *g);

/* Pinned host buffers and device buffers of `bytes` each per card, copied in
   back-to-back chunks of `chunk` bytes, on every card of cards[0..n-1] at once:
   each direction alone, then both. */
void bench_link_measure(size_t bytes, size_t chunk, int reps, const int *cards, int n,
                        bench_link *out);
/* The link over a pinned host array of `bytes` on the current card: the whole array
   copied in `chunk` pieces into a ring of device buffers (H2D), out of them into the
   array (D2H), then both at once, each stream timed to its own end; *in_s, *out_s
   the directions alone, *both_in_s, *both_out_s each direction's time with both
   started together.  The array's contents are overwritten. */
void bench_link_on(void *host, size_t bytes, size_t chunk, double *in_s, double *out_s,
                   double *both_in_s, double *both_out_s);
/* CUDA devices visible. */
int bench_gpu_count(void);

/* cuFFTXt over several cards: a 2D/3D in-place C2C (prec 4) or Z2Z plan with
   cufftXtSetGPUs and its descriptor (cufftXtMalloc).  1 with `note` where cuFFTXt
   refuses (a size, the memory). */
typedef struct bench_cufftxt bench_cufftxt;
int bench_cufftxt_open(int prec, int rank, const int64_t *n, const int *cards, int ncards,
                       bench_cufftxt **out, double *plan_s, char *note, size_t note_len);
/* cufftXtMemcpy in, cufftXtExecDescriptor, cufftXtMemcpy out (natural order), timed
   end to end: one warm-up, then reps; b = FFT(a) afterwards. */
void bench_cufftxt_run(bench_cufftxt *c, void *a, void *b, int reps, double *times);
void bench_cufftxt_close(bench_cufftxt *c);

/* Plans howmany dense forward transforms of the whole array, in place C2C
   (prec 4) or Z2Z (prec 8) for kind 0, out of place R2C or D2Z for kind 1, and
   allocates the arrays on the device.  Returns 0 when it fits, 1 with `note`
   saying why not (too little free memory, a size cuFFT refuses). */
int bench_cufft_open(int prec, int kind, int rank, const int64_t *n, int64_t howmany,
                     bench_cufft **out, double *plan_s, char *note, size_t note_len);

/* Data already on the device: one untimed exec whose result lands in `b`
   (so b = FFT(a)), then `reps` timed execs (the array restored from `a`
   before each, untimed).  times[reps] in seconds. */
void bench_cufft_incard(bench_cufft *c, const void *a, void *b, int reps, double *times);

/* Copy in, exec, copy out, timed end to end: one warm-up, then `reps` timed
   runs; b = FFT(a) afterwards. */
void bench_cufft_copy_exec_copy(bench_cufft *c, const void *a, void *b, int reps, double *times);

void bench_cufft_close(bench_cufft *c);

/* 1 when `p` is page-locked host memory known to CUDA. */
int bench_cuda_host_pinned(const void *p);

#endif
