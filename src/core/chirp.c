/*
 * chirp.c: Bluestein's tables (see chirp.h): B, the transform of the chirp,
 * in long double by a radix-2 FFT whose twiddles are each one sincosl.
 */
#define _GNU_SOURCE
#include "src/core/chirp.h"

#include <math.h>
#include <stdlib.h>

#include "src/core/status.h"

#define PI_L 3.141592653589793238462643383279502884L

int hfft__chirp_wants(int64_t n, int64_t good) {
    if (n <= good || n > HFFT__CHIRP_MAX)
        return 0;
    int64_t m = n, largest = 1;
    for (int64_t q = 2; q * q <= m; q++)
        for (; m % q == 0; m /= q)
            largest = q;
    if (m > largest) /* what is left, where not 1, is the largest prime factor */
        largest = m;
    return largest > good;
}

int64_t hfft__chirp_lean(int64_t n) {
    int64_t M = 1;
    while (M < 3 * n)
        M <<= 1;
    return M;
}

int64_t hfft__chirp_length(int64_t n) {
    int64_t M = hfft__chirp_lean(n);
    while (M < 6 * n && M < HFFT__CHIRP_ROOMY)
        M <<= 1;
    return M;
}

/* exp(-2 pi i k / M) for k < M / 2, in long double. */
static void roots(long double *t, int64_t M) {
    for (int64_t k = 0; k < M / 2; k++) {
        long double a = -2 * PI_L * (long double)k / (long double)M;
        t[2 * k] = cosl(a);
        t[2 * k + 1] = sinl(a);
    }
}

/* In-place forward radix-2 transform of M complex long doubles. */
static void fft_ld(long double *x, const long double *t, int64_t M) {
    for (int64_t i = 1, j = 0; i < M; i++) {
        int64_t bit = M >> 1;
        for (; j & bit; bit >>= 1)
            j ^= bit;
        j |= bit;
        if (i < j) {
            long double r = x[2 * i], s = x[2 * i + 1];
            x[2 * i] = x[2 * j];
            x[2 * i + 1] = x[2 * j + 1];
            x[2 * j] = r;
            x[2 * j + 1] = s;
        }
    }
    for (int64_t len = 2; len <= M; len <<= 1) {
        int64_t half = len / 2, step = M / len;
        for (int64_t b = 0; b < M; b += len)
            for (int64_t k = 0; k < half; k++) {
                long double wr = t[2 * k * step], wi = t[2 * k * step + 1];
                long double *u = x + 2 * (b + k), *v = x + 2 * (b + k + half);
                long double vr = v[0] * wr - v[1] * wi, vi = v[0] * wi + v[1] * wr;
                v[0] = u[0] - vr;
                v[1] = u[1] - vi;
                u[0] += vr;
                u[1] += vi;
            }
    }
}

int hfft__chirp_table(int64_t n, int64_t M, int sign, double *table) {
    long double *b = calloc((size_t)M * 2u, sizeof *b);
    long double *t = malloc((size_t)M * sizeof *t); /* M / 2 complex roots */
    if (!b || !t) {
        free(b);
        free(t);
        return hfft__fail(HFFT_ERR_HOST_MEMORY, "Bluestein's table of %lld points",
                          (long long)M);
    }
    /* b_j = conj(w_j) = exp(-sign pi i (j^2 mod 2n) / n) at j and M - j */
    for (int64_t j = 0; j < n; j++) {
        uint64_t r = ((uint64_t)j * (uint64_t)j) % (2u * (uint64_t)n);
        long double a = -sign * PI_L * (long double)r / (long double)n;
        long double c = cosl(a), s = sinl(a);
        b[2 * j] = c;
        b[2 * j + 1] = s;
        table[2 * (M + j)] = (double)c; /* w_j = conj(b_j) */
        table[2 * (M + j) + 1] = (double)-s;
        if (j) {
            b[2 * (M - j)] = c;
            b[2 * (M - j) + 1] = s;
        }
    }
    roots(t, M);
    fft_ld(b, t, M);
    for (int64_t k = 0; k < 2 * M; k++)
        table[k] = (double)(b[k] / (long double)M);
    free(b);
    free(t);
    return 0;
}
