/*
 * chirp.h: Bluestein's algorithm, for double-precision lines whose length has a
 * prime factor larger than FFTW's or cuFFT's own transforms take accurately.
 * Theirs lose accuracy as the prime grows (relative RMS against long double:
 * FFTW 5.43e-16 at 4099 points and 6.92e-16 at 1000003, cuFFT 6.77e-16 and
 * 9.74e-16; bench/RESULTS.md).  With jk = (j^2 + k^2 - (k - j)^2) / 2,
 *
 *   X_k = w_k sum_j (x_j w_j) conj(w_{k-j}),   w_j = exp(sign pi i j^2 / n),
 *
 * a circular convolution of M points (a power of two, at least 3n and where
 * it stays small at least 6n): the chirped line, zero-padded, through an
 * M-point forward transform, times B, back through the M-point backward
 * transform, times the chirp.  B is the forward transform of the chirp
 * conj(w_|j|) for |j| < n, placed circularly, over M.  The chirp comes from
 * the exact integer phase j^2 mod 2n (papers/001), and it and B are computed
 * in long double and rounded once, so only the two M-point transforms of a
 * good length add rounding.  Their rounding spreads over all M outputs, of
 * which the line keeps n: the larger M / n, the less of it stays (FFTW's
 * transforms, bench/RESULTS.md: 4099 points 3.3e-16 with M = 4n, 2.7e-16 with
 * 8n), which a 2D or 3D transform with such dimensions needs to stay under
 * 5e-16, adding its dimensions' errors.  Each doubling of M costs about twice
 * the time.
 */
#ifndef HFFT_CORE_CHIRP_H
#define HFFT_CORE_CHIRP_H

#include <stdint.h>


/* The largest prime factor each library's own transforms take at FFTW's accuracy;
   larger ones take Bluestein.  FFTW's lines of lengths whose prime factors are at most
   31 stay within 2.2-3.5e-16, where factors from 37 to 127 give 3.2-4.6e-16 alone and
   5.0-6.2e-16 twice (53^2, 47 x 53, 113 x 127: bench/RESULTS.md); cuFFT's within
   4.0e-16 up to 127 (113 x 127), 5.9e-16 at 997. */
#define HFFT__CHIRP_FFTW 31
#define HFFT__CHIRP_CUFFT 127
#define HFFT__CHIRP_MAX ((int64_t)1 << 30) /* j^2 below 2^60: exact in 64 bits */
#define HFFT__CHIRP_ROOMY ((int64_t)1 << 22) /* M up to 64 MiB a line: 6n where it fits */

#ifndef __CUDACC__
/* Nonzero where lines of n points take Bluestein: a prime factor of n above `good`
   (HFFT__CHIRP_FFTW or HFFT__CHIRP_CUFFT), and n at most HFFT__CHIRP_MAX. */
int hfft__chirp_wants(int64_t n, int64_t good);
/* M: the least power of two at least 6n, where that is at most HFFT__CHIRP_ROOMY
   points, else at most that many and at least hfft__chirp_lean(n).  (12n on the GPU
   brought 3D 64 x 1031^2 from 5.2e-16 to 4.9e-16 but 521^3 from 5.2e-16 to 5.5e-16,
   for 1.7x the time: bench/RESULTS.md.) */
int64_t hfft__chirp_length(int64_t n);
/* The least power of two at least 3n, the smallest M taken where memory is short.
   2n - 1 would do, but the error grows as M nears 2n: FFTW's transforms gave
   5.0e-16 at n = 1048573 with M = 2n, 4.4e-16 with M = 3n and 4.0e-16 with M = 4n
   (bench/RESULTS.md). */
int64_t hfft__chirp_lean(int64_t n);
/* Bluestein's table for n points, M (a power of two from hfft__chirp_lean(n)) and the
   sign: B (M points), then the chirp w_j (n points), as 2 (M + n) doubles
   (interleaved complex), each rounded once from long double; 0, or
   HFFT_ERR_HOST_MEMORY for its long-double scratch.  The chirp from the table
   rather than from each device's sine and cosine: a GPU's double-precision sin and
   cos are within 2 ulp, and the chirp's error goes into the result undiluted. */
int hfft__chirp_table(int64_t n, int64_t M, int sign, double *table);
#endif

#endif
