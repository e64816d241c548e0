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

#include "src/core/device.h"
#include "src/core/problem.h"
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

/*
 * A real transform of even length N through a complex one of M = N / 2 points
 * (z_j = x_2j + i x_2j+1), on FFTW's padded rows of M + 1 complex elements.
 * Forward, after the complex transform Z, the pair (k, M - k), k <= M / 2:
 *   X_k = E_k + W_N^k O_k,  E_k = (Z_k + conj Z_{M-k}) / 2,
 *   O_k = (Z_k - conj Z_{M-k}) / 2i,  X_{M-k} = conj(E_k - W_N^k O_k),
 * with Z_M = Z_0 (k = 0 also gives X_M, in the padding).  Backward, before the
 * complex transform, the Hermitian half X becomes
 *   Z'_k = S + i V,  Z'_{M-k} = conj S + i conj V,
 *   S = X_k + conj X_{M-k},  V = W_N^{-k} (X_k - conj X_{M-k}),
 * so that the transform of Z' holds N x as FFTW's c2r gives it (which ignores
 * the imaginary parts of X_0 and X_M).  W_N = exp(-2 pi i / N); in double.
 */
#define HFFT__DEFINE_REAL_PAIR(R, sfx)                                                     \
    HFFT__HD void hfft__real_pair_##sfx(R *row, int64_t k, int64_t M, int forward) {       \
        int64_t q = M - k;                                                                 \
        if (k == 0) {                                                                      \
            double a = (double)row[0], b = forward ? (double)row[1] : (double)row[2 * M];  \
            row[0] = (R)(a + b);                                                           \
            row[1] = (R)(forward ? 0.0 : a - b);                                           \
            if (forward) {                                                                 \
                row[2 * M] = (R)(a - b);                                                   \
                row[2 * M + 1] = (R)0.0;                                                   \
            }                                                                              \
            return;                                                                        \
        }                                                                                  \
        double wr, wi;                                                                     \
        hfft__twiddle(k, 2 * M, forward ? -1 : 1, &wr, &wi);                               \
        double xr = (double)row[2 * k], xi = (double)row[2 * k + 1];                       \
        double cr = (double)row[2 * q], ci = -(double)row[2 * q + 1];                      \
        double sr = xr + cr, si = xi + ci, dr = xr - cr, di = xi - ci;                     \
        double ar, ai, br, bi;                                                             \
        if (forward) { /* E = s / 2, O = d / 2i = (di, -dr) / 2, t = W O */                \
            double tr = 0.5 * (wr * di + wi * dr), ti = 0.5 * (wi * di - wr * dr);         \
            ar = 0.5 * sr + tr;                                                            \
            ai = 0.5 * si + ti;                                                            \
            br = 0.5 * sr - tr;                                                            \
            bi = -(0.5 * si - ti);                                                         \
        } else { /* V = W^-k d */                                                          \
            double vr = wr * dr - wi * di, vi = wr * di + wi * dr;                         \
            ar = sr - vi;                                                                  \
            ai = si + vr;                                                                  \
            br = sr + vi;                                                                  \
            bi = vr - si;                                                                  \
        }                                                                                  \
        row[2 * k] = (R)ar;                                                                \
        row[2 * k + 1] = (R)ai;                                                            \
        row[2 * q] = (R)br;                                                                \
        row[2 * q + 1] = (R)bi;                                                            \
    }
HFFT__DEFINE_REAL_PAIR(float, f)
HFFT__DEFINE_REAL_PAIR(double, d)

/* The points of a line one of Bluestein's steps writes: M into the buffer, or the
   line's own (n, or n/2 + 1 complex points out of an r2c). */
HFFT__HD int64_t hfft__chirp_points(const hfft__chirps *c) {
    if (c->step != HFFT__CHIRP_OUT)
        return c->M;
    return c->real == HFFT__R2C ? c->n / 2 + 1 : c->n;
}

/* Point k of line b of one of Bluestein's steps (hfft__chirps): the buffer's point
   times B (HFFT__CHIRP_MUL), or the line's point times the chirp into the buffer
   (IN; zero past n) or the buffer's times the chirp into the line (OUT), B and the
   chirp from the table (src/core/chirp.h).  Real
   rows: IN reads a real (r2c) or the Hermitian point (c2r), OUT writes the complex
   point (r2c) or the real part (c2r). */
#define HFFT__DEFINE_CHIRP_STEP(R, sfx)                                                    \
    HFFT__HD void hfft__chirp_step_##sfx(R *lines, R *buf, const R *table,                 \
                                          const hfft__chirps *c, int64_t b, int64_t k) {   \
        R *x = buf + 2 * (b * c->M + k);                                                   \
        double wr, wi, fr, fi;                                                             \
        if (c->step == HFFT__CHIRP_MUL) {                                                  \
            wr = (double)table[2 * k];                                                     \
            wi = (double)table[2 * k + 1];                                                 \
            fr = (double)x[0];                                                             \
            fi = (double)x[1];                                                             \
            x[0] = (R)(fr * wr - fi * wi);                                                 \
            x[1] = (R)(fr * wi + fi * wr);                                                 \
            return;                                                                        \
        }                                                                                  \
        if (k >= c->n) { /* the padding */                                                 \
            x[0] = x[1] = (R)0;                                                            \
            return;                                                                        \
        }                                                                                  \
        R *row = lines + 2 * b * c->dist, *y = row + 2 * k * c->stride;                    \
        wr = (double)table[2 * (c->M + k)];                                                \
        wi = (double)table[2 * (c->M + k) + 1];                                            \
        if (c->step == HFFT__CHIRP_OUT) {                                                  \
            fr = (double)x[0];                                                             \
            fi = (double)x[1];                                                             \
            if (c->real == HFFT__C2R) {                                                    \
                row[k] = (R)(fr * wr - fi * wi);                                           \
                return;                                                                    \
            }                                                                              \
            y[0] = (R)(fr * wr - fi * wi);                                                 \
            y[1] = (R)(fr * wi + fi * wr);                                                 \
            return;                                                                        \
        }                                                                                  \
        if (c->real == HFFT__R2C) {                                                        \
            fr = (double)row[k];                                                           \
            fi = 0;                                                                        \
        } else if (c->real == HFFT__C2R) {                                                 \
            int64_t q = 2 * k > c->n ? c->n - k : k; /* X_k = conj(X_(n-k)) */             \
            fr = (double)row[2 * q];                                                       \
            fi = q == 0 || 2 * q == c->n ? 0.0 : q == k ? (double)row[2 * q + 1]           \
                                                      : -(double)row[2 * q + 1];           \
        } else {                                                                           \
            fr = (double)y[0];                                                             \
            fi = (double)y[1];                                                             \
        }                                                                                  \
        x[0] = (R)(fr * wr - fi * wi);                                                     \
        x[1] = (R)(fr * wi + fi * wr);                                                     \
    }
HFFT__DEFINE_CHIRP_STEP(float, f)
HFFT__DEFINE_CHIRP_STEP(double, d)

#endif /* HFFT_BUTTERFLY_H */
