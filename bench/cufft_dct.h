/*
 * cufft_dct.h: what a cuFFT user writes by hand for FFTW's REDFT10 (the
 * DCT-II, unnormalized: Y_k = 2 sum_j x_j cos(pi k (2 j + 1) / 2 N)) along
 * every dimension, the GPU baseline of hfft-bench's `:e10` problems (cuFFT
 * has no real-to-real transform): the reals copied in, then per dimension
 * Makhoul's reordering (a kernel), cuFFT's real-to-complex transform of N
 * points along it (one batched plan; a dimension between others one call per
 * outer index), the twiddle that takes each output's real part (a kernel),
 * then the reals copied out.  Every CUDA and cuFFT call is checked; a failure
 * prints it and exits 1.
 */
#ifndef HFFT_BENCH_CUFFT_DCT_H
#define HFFT_BENCH_CUFFT_DCT_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct bench_dct bench_dct;

/* Plans and allocates a rank 1-3 DCT-II of n[0] x ... reals (prec 4 or 8) on the
   current card: three arrays of about the reals' size.  0, or 1 with `note` where it
   does not fit the card's free memory. */
int bench_dct_open(int prec, int rank, const int64_t *n, bench_dct **out, double *plan_s,
                   char *note, size_t note_len);
/* Data on the card: the reals copied in untimed, the transform timed (events); one
   untimed run first, whose output lands in b. */
void bench_dct_incard(bench_dct *c, const void *a, void *b, int reps, double *times);
/* Copy in, transform, copy out, timed end to end: one warm-up, then reps; b holds the
   output afterwards. */
void bench_dct_copy_exec_copy(bench_dct *c, const void *a, void *b, int reps, double *times);
void bench_dct_close(bench_dct *c);

#ifdef __cplusplus
}
#endif

#endif
