/*
 * chirp.h: Bluestein's algorithm, for double-precision lines whose length has a
 * prime factor above 127.  FFTW's and cuFFT's own transforms of such lengths
 * lose accuracy as the prime grows (relative RMS against long double: FFTW
 * 5.43e-16 at 4099 points and 6.92e-16 at 1000003, cuFFT 6.77e-16 and
 * 9.74e-16; bench/RESULTS.md).  With jk = (j^2 + k^2 - (k - j)^2) / 2,
 *
 *   X_k = w_k sum_j (x_j w_j) conj(w_{k-j}),   w_j = exp(sign pi i j^2 / n),
 *
 * a circular convolution of M >= 3n points (a power of two): the chirped
 * line, zero-padded, through an M-point forward transform, times B, back
 * through the M-point backward transform, times the chirp.  B is the forward
 * transform of the chirp conj(w_|j|) for |j| < n, placed circularly, over M.
 * The chirp comes from the exact integer phase j^2 mod 2n (papers/001), and B
 * is computed in long double and rounded once, so only the two M-point
 * transforms of a good length add rounding (bench/RESULTS.md).
 */
#ifndef HFFT_CORE_CHIRP_H
#define HFFT_CORE_CHIRP_H

#include <stdint.h>

#include "src/core/twiddle.h"

#define HFFT__CHIRP_PRIME 127              /* larger prime factors take Bluestein */
#define HFFT__CHIRP_MAX ((int64_t)1 << 30) /* j^2 below 2^60: exact in 64 bits */

/* w_j = exp(sign pi i j^2 / n) for 0 <= j < n <= HFFT__CHIRP_MAX. */
HFFT__HD void hfft__chirp(int64_t j, int64_t n, int sign, double *re, double *im) {
    uint64_t u = (uint64_t)j, n2 = 2u * (uint64_t)n;
    hfft__twiddle((int64_t)((u * u) % n2), (int64_t)n2, sign, re, im);
}

#ifndef __CUDACC__
/* Nonzero where lines of n points take Bluestein: a prime factor of n above
   HFFT__CHIRP_PRIME, and n at most HFFT__CHIRP_MAX. */
int hfft__chirp_wants(int64_t n);
/* M: the least power of two at least 3n.  2n - 1 would do, but the error grows as M
   nears 2n: FFTW's transforms gave 5.0e-16 at n = 1048573 with M = 2n, 4.4e-16 with
   M = 3n and 4.0e-16 with M = 4n (bench/RESULTS.md). */
int64_t hfft__chirp_length(int64_t n);
/* B for n points and the sign, as 2 M doubles (interleaved complex); 0, or
   HFFT_ERR_HOST_MEMORY for its long-double scratch. */
int hfft__chirp_table(int64_t n, int sign, double *B);
#endif

#endif
