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

/* The higher-precision transform of in (fftw_complex for prec 4, fftwl_complex
   for 8), to compare several results with; NULL when out of memory. */
void *hfft_ref_transform(int prec, int rank, const int64_t *n, const void *in, int sign,
                         int threads);
void hfft_ref_free(int prec, void *ref);

/* Relative RMS error of count complex elements of out against ref (from
   hfft_ref_transform); NaN when out holds NaN. */
double hfft_ref_compare(int prec, const void *ref, const void *out, int64_t total);

/* Fills count complex elements with uniform values in [-0.5, 0.5) from seed. */
void hfft_ref_fill(int prec, void *data, int64_t count, uint64_t seed);

/* Seconds on a monotonic clock. */
double hfft_ref_now(void);

#endif
