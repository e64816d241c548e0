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

/* howmany dense transforms one after the other, kind 0 c2c (sign) or 1 r2c
   (real input, n(d-1)/2+1 complex outputs per line): the reference (*count
   complex elements, dense) and the relative RMS error of out against it. */
void *hfft_ref_transform_many(int prec, int kind, int rank, const int64_t *n, int64_t howmany,
                              const void *in, int sign, int threads, int64_t *count);
double hfft_ref_error_many(int prec, int kind, int rank, const int64_t *n, int64_t howmany,
                           const void *in, const void *out, int sign, int threads);

/* Relative RMS error of count complex elements of out against ref (from
   hfft_ref_transform); NaN when out holds NaN. */
double hfft_ref_compare(int prec, const void *ref, const void *out, int64_t total);

/* One dimension of a guru problem: size, input stride, output stride (strides in
   elements of each array: complex numbers for interleaved complex arrays, reals
   for real and split arrays). */
typedef struct hfft_ref_dim {
    int64_t n, is, os;
} hfft_ref_dim;

/* Relative RMS error of a guru problem's output (ro, and io for split complex
   output; kind 0 c2c, 1 r2c, 2 c2r) against FFTW in long double on the same
   input (ri, and ii for split complex input), over exactly the elements the
   output layout holds.  A split c2c transform is forward (FFTW's convention);
   sign applies to interleaved c2c.  Negative when out of memory. */
double hfft_ref_guru_error(int prec, int kind, int sign, int rank, const hfft_ref_dim *dims,
                           int hrank, const hfft_ref_dim *hdims, const void *ri, const void *ii,
                           const void *ro, const void *io);

/* The same for a real-to-real guru problem: kinds[k] (FFTW's r2r kind) along
   dimension k, reals on both sides (in, out). */
double hfft_ref_r2r_error(int prec, int rank, const hfft_ref_dim *dims, int hrank,
                          const hfft_ref_dim *hdims, const int *kinds, const void *in,
                          const void *out);

/* The input of a c2r guru problem: the half spectrum of random real data (from
   seed), written into the input layout (the dimensions' `is` strides, over ri,
   and ii where split), so that every algorithm agrees on the real output.  0, or
   -1 when out of memory. */
int hfft_ref_fill_hermitian(int prec, int rank, const hfft_ref_dim *dims, int hrank,
                            const hfft_ref_dim *hdims, void *ri, void *ii, uint64_t seed);

/* Fills count complex elements with uniform values in [-0.5, 0.5) from seed. */
void hfft_ref_fill(int prec, void *data, int64_t count, uint64_t seed);

/* Seconds on a monotonic clock. */
double hfft_ref_now(void);

#endif
