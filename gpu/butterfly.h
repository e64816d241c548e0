/*
 * butterfly.h: the twiddle and combination arithmetic of the radix split,
 * written once for the CUDA kernels (__host__ __device__ under nvcc) and for
 * the emulated device (plain C).  Twiddles come from exact integer phases
 * reduced to one octant and evaluated in double precision, so they are
 * correctly rounded for float and within an ulp or two for double, at any
 * transform length.
 */
#ifndef HFFT_BUTTERFLY_H
#define HFFT_BUTTERFLY_H

#include <stdint.h>

#include "src/core/twiddle.h"

/* x times exp(sign 2 pi i k / n), in place (the four-step's twiddles). */
#define HFFT__DEFINE_ROTATE(R, sfx)                                                        \
    HFFT__HD void hfft__rotate_##sfx(R *x, int64_t k, int64_t n, int sign) {               \
        double wr, wi;                                                                     \
        hfft__twiddle(k, n, sign, &wr, &wi);                                               \
        double xr = (double)x[0], xi = (double)x[1];                                       \
        x[0] = (R)(wr * xr - wi * xi);                                                     \
        x[1] = (R)(wr * xi + wi * xr);                                                     \
    }
HFFT__DEFINE_ROTATE(float, f)
HFFT__DEFINE_ROTATE(double, d)

/*
 * Radix-2 combination of one element pair with twiddle w:
 *   a' = a + w b,  b' = a - w b.
 * Phase 2 of the paper combines (F00, F01) and (F10, F11) with w = W_{L/2}^k;
 * phase 3 combines (G1, G2) with w = W_L^k and W_L^{k + L/4}.
 */
#define HFFT__DEFINE_RADIX2(R, sfx)                                                        \
    HFFT__HD void hfft__radix2_##sfx(R *a, R *b, double wr, double wi) {                   \
        R br = b[0], bi = b[1];                                                            \
        R tr = (R)wr * br - (R)wi * bi;                                                    \
        R ti = (R)wr * bi + (R)wi * br;                                                    \
        R ar = a[0], ai = a[1];                                                            \
        a[0] = ar + tr;                                                                    \
        a[1] = ai + ti;                                                                    \
        b[0] = ar - tr;                                                                    \
        b[1] = ai - ti;                                                                    \
    }
HFFT__DEFINE_RADIX2(float, f)
HFFT__DEFINE_RADIX2(double, d)

/*
 * Radix-r DIT combination for lengths with no factor 4 (r the smallest
 * factor, at most HFFT__RADIXR_MAX): with F_j(k) the transforms of the r
 * subsequences x(r m + j), T(k + q L/r) = sum_j W_L^{jk} W_r^{jq} F_j(k).
 * v holds F_0(k)..F_{r-1}(k) on entry and T(k + q L / r) on exit, computed
 * in double.
 */
#define HFFT__RADIXR_MAX 64
#define HFFT__DEFINE_RADIXR(R, sfx)                                                        \
    HFFT__HD void hfft__radixr_##sfx(R *const *v, int r, int64_t k, int64_t L, int sign) {  \
        double xr[HFFT__RADIXR_MAX], xi[HFFT__RADIXR_MAX];                                 \
        for (int j = 0; j < r; j++) {                                                      \
            double wr, wi;                                                                 \
            hfft__twiddle((int64_t)j * k, L, sign, &wr, &wi);                              \
            double br = (double)v[j][0], bi = (double)v[j][1];                             \
            xr[j] = wr * br - wi * bi;                                                     \
            xi[j] = wr * bi + wi * br;                                                     \
        }                                                                                  \
        for (int q = 0; q < r; q++) {                                                      \
            double sr = 0.0, si = 0.0;                                                     \
            for (int j = 0; j < r; j++) {                                                  \
                double wr, wi;                                                             \
                hfft__twiddle((int64_t)((j * q) % r), r, sign, &wr, &wi);                  \
                sr += wr * xr[j] - wi * xi[j];                                             \
                si += wr * xi[j] + wi * xr[j];                                             \
            }                                                                              \
            v[q][0] = (R)sr;                                                               \
            v[q][1] = (R)si;                                                               \
        }                                                                                  \
    }
HFFT__DEFINE_RADIXR(float, f)
HFFT__DEFINE_RADIXR(double, d)

#endif /* HFFT_BUTTERFLY_H */
