/*
 * ref.h: the reference the demo, the benchmarks and the tests compare with:
 * FFTW in higher precision (double for single-precision results, long double
 * for double), and the relative RMS error ||y - ref|| / ||ref||.
 */
#ifndef HFFT_REF_H
#define HFFT_REF_H

#include <stdint.h>

/* Relative RMS error of out (prec 4: float pairs, 8: double pairs) against the
   higher-precision transform of in.  Negative on allocation failure. */
double hfft_ref_error(int prec, int rank, const int64_t *n, const void *in, const void *out,
                      int sign, int threads);

/* Fills count complex elements with uniform values in [-0.5, 0.5) from seed. */
void hfft_ref_fill(int prec, void *data, int64_t count, uint64_t seed);

/* Seconds on a monotonic clock. */
double hfft_ref_now(void);

#endif
