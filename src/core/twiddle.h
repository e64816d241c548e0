/*
 * twiddle.h: exp(sign 2 pi i k / n) from an exact integer phase, reduced to
 * one octant and evaluated in double precision: correctly rounded for float,
 * within an ulp or two for double, at any length.  Written once for the CUDA
 * kernels (__host__ __device__ under nvcc), the emulated device and the CPU's
 * four-step tables.
 */
#ifndef HFFT_CORE_TWIDDLE_H
#define HFFT_CORE_TWIDDLE_H

#include <math.h>
#include <stdint.h>

#ifdef __CUDACC__
#define HFFT__HD __host__ __device__ static inline
#else
#define HFFT__HD static inline
#endif

#define HFFT__PI_4 0.78539816339744830961566084581987572

/* Trailing zero bits of x > 0. */
HFFT__HD int hfft__ctz64(uint64_t x) {
#ifdef __CUDA_ARCH__
    return __ffsll((long long)x) - 1;
#else
    return __builtin_ctzll(x);
#endif
}

/* cos and sin of x together: one range reduction on a card. */
HFFT__HD void hfft__cos_sin(double x, double *c, double *s) {
#ifdef __CUDA_ARCH__
    sincos(x, s, c);
#else
    *c = cos(x);
    *s = sin(x);
#endif
}

/* exp(sign * 2 pi i k / n) in double, for any 0 <= k and n > 0. */
HFFT__HD void hfft__twiddle(int64_t k, int64_t n, int sign, double *re, double *im) {
    /* theta = 2 pi k / n = (pi / 4) (octant + rem / n); a power of two reduces with
       masks and shifts (a 64-bit division is a long routine on a GPU) */
    uint64_t un = (uint64_t)n, k8, uoct;
    if ((un & (un - 1)) == 0) {
        k8 = 8u * ((uint64_t)k & (un - 1));
        uoct = k8 >> hfft__ctz64(un);
    } else if (((uint64_t)k | un) >> 28 == 0) { /* 32-bit arithmetic, a few instructions */
        uint32_t k32 = (uint32_t)k, n32 = (uint32_t)un, r8 = 8u * (k32 % n32);
        k8 = r8;
        uoct = r8 / n32;
    } else {
        k8 = 8u * ((uint64_t)k % un);
        uoct = k8 / un;
    }
    int64_t oct = (int64_t)uoct;
    int64_t rem = (int64_t)(k8 - uoct * un);
    double c, s;
    if (oct & 1) {
        /* Odd octants measure from the octant's far end: psi = pi/4 - phi. */
        double psi = HFFT__PI_4 * (double)(n - rem) / (double)n;
        double cp, sp;
        hfft__cos_sin(psi, &cp, &sp);
        switch (oct) {
        case 1: c = sp; s = cp; break;
        case 3: c = -cp; s = sp; break;
        case 5: c = -sp; s = -cp; break;
        default: c = cp; s = -sp; break; /* 7 */
        }
    } else {
        double phi = HFFT__PI_4 * (double)rem / (double)n;
        double cp, sp;
        hfft__cos_sin(phi, &cp, &sp);
        switch (oct) {
        case 0: c = cp; s = sp; break;
        case 2: c = -sp; s = cp; break;
        case 4: c = -cp; s = -sp; break;
        default: c = sp; s = -cp; break; /* 6 */
        }
    }
    *re = c;
    *im = sign < 0 ? -s : s;
}

#endif
