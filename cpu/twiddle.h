/*
 * twiddle.h: the four-step's twiddles on the CPU, private to cpu/.  A line of
 * a four-step round is multiplied by W_n^(k j), k along the line and j its
 * index (a column, or a line in its group).  W_n^m comes from two tables of
 * about sqrt(n) exact entries each (src/core/twiddle.h), W_n^(hi * m1) and
 * W_n^lo with m = hi * m1 + lo, multiplied in double: accurate to an ulp or
 * two of double at any n, so the error does not grow with the length, and
 * small enough (2 x 16 sqrt(n) bytes) to stay in a core's cache.
 */
#ifndef HFFT_CPU_TWIDDLE_H
#define HFFT_CPU_TWIDDLE_H

#include <stdint.h>

typedef struct hfft__twiddles {
    int64_t n;
    int shift;       /* m1 = 2^shift, the smallest power of two with m1^2 >= n */
    double *lo, *hi; /* interleaved complex: W_n^a for a < m1, W_n^(b m1) for b <= n / m1 */
} hfft__twiddles;

/* Tables for length n and the transform's sign; fails only for host memory. */
int hfft__twiddles_make(int64_t n, int sign, hfft__twiddles *t);
void hfft__twiddles_free(hfft__twiddles *t);

/* x[k * stride] *= W_n^(k j) for k < len, in the precision prec (4 or 8). */
void hfft__twiddles_rotate(const hfft__twiddles *t, int prec, void *x, int64_t len,
                           int64_t stride, int64_t j);
/* The same factors once, for lines that share j: w[k] = W_n^(k j), k < len (interleaved
   complex doubles); and x[k] *= w[k] for k < len, contiguous, in the precision prec,
   about half the time of a rotation (no table product, no phase to track). */
void hfft__twiddles_vector(const hfft__twiddles *t, int64_t j, int64_t len, double *w);
void hfft__twiddles_apply(int prec, void *x, int64_t len, const double *w);

#endif
