/*
 * chirp.h: Bluestein's algorithm, for double-precision lines whose length has a
 * prime factor larger than FFTW's or cuFFT's own transforms take accurately:
 * theirs lose accuracy as the prime grows.  With jk = (j^2 + k^2 - (k - j)^2) / 2,
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
 * which the line keeps n: the larger M / n, the less of it stays, which a 2D
 * or 3D transform with such dimensions needs to stay under 5e-16, adding its
 * dimensions' errors.  Each doubling of M costs about twice the time.
 */
#ifndef HFFT_CORE_CHIRP_H
#define HFFT_CORE_CHIRP_H

#include <stdint.h>


/* The largest prime factor each library's own transforms take at FFTW's accuracy;
   larger ones take Bluestein.  FFTW's lines lose accuracy past factors of 31, the
   more where a length has two such factors; cuFFT's hold up to 127. */
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
   made some 3D transforms more accurate and others less, for much more time.) */
int64_t hfft__chirp_length(int64_t n);
/* The least power of two at least 3n, the smallest M taken where memory is short.
   2n - 1 would do, but the error grows as M nears 2n. */
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
