/*
 * poisson.c: hfft-poisson, a Poisson solve with Neumann walls on a 3D grid,
 * the way a spectral solver does it with hfft: DCT-II (REDFT10) of the right
 * side along every dimension, a division by the eigenvalues of the discrete
 * Laplacian, DCT-III (REDFT01) back.  The grid may be larger than the card:
 * hfft streams it.
 *
 *   hfft-poisson [N0 N1 N2] [--f32] [--cpu]
 *
 * The right side is a random field of zero mean on an N0 x N1 x N2 grid of
 * cells (spacing 1, walls between cells' faces: the 7-point Laplacian with a
 * mirrored cell beyond each wall, which the DCT-II diagonalises).  Prints both
 * transforms' time and the relative residual |L u - f| / |f| of the seven-point
 * Laplacian applied to the solution: a check that owes nothing to FFTW.  Exits
 * 1 where the residual is above 1e-10 (double) or 1e-4 (single).
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "hfft.h"

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* The solve in precision R (sfx: hfft_ or hfftf_). */
#define DEFINE_SOLVE(R, P)                                                                        \
    static int solve_##R(const int64_t *n, R *u, unsigned flags, double *secs) {                 \
        hfft_r2r_kind fwd[3] = {HFFT_REDFT10, HFFT_REDFT10, HFFT_REDFT10};                       \
        hfft_r2r_kind bwd[3] = {HFFT_REDFT01, HFFT_REDFT01, HFFT_REDFT01};                       \
        P##plan pf = P##plan_r2r64(3, n, u, u, fwd, flags, NULL);                                 \
        P##plan pb = P##plan_r2r64(3, n, u, u, bwd, flags, NULL);                                 \
        if (!pf || !pb) {                                                                         \
            fprintf(stderr, "hfft-poisson: %s\n", hfft_last_error_message());                     \
            return 1;                                                                             \
        }                                                                                         \
        double t0 = now();                                                                        \
        if (P##execute(pf)) {                                                                     \
            fprintf(stderr, "hfft-poisson: %s\n", hfft_last_error_message());                     \
            return 1;                                                                             \
        }                                                                                         \
        double t1 = now();                                                                        \
        /* the eigenvalues of the Neumann Laplacian: sum of 2 cos(pi k / n) - 2; the mean      \
           (k = 0) is free, set to zero; 8 n0 n1 n2 the two transforms' scale */               \
        double scale = 8.0 * (double)n[0] * (double)n[1] * (double)n[2];                         \
        for (int64_t i = 0; i < n[0]; i++)                                                        \
            for (int64_t j = 0; j < n[1]; j++)                                                    \
                for (int64_t k = 0; k < n[2]; k++) {                                              \
                    double l = 2 * cos(M_PI * (double)i / (double)n[0]) - 2 +                     \
                               2 * cos(M_PI * (double)j / (double)n[1]) - 2 +                     \
                               2 * cos(M_PI * (double)k / (double)n[2]) - 2;                      \
                    R *x = &u[(i * n[1] + j) * n[2] + k];                                         \
                    *x = (i | j | k) ? (R)(*x / (l * scale)) : 0;                                 \
                }                                                                                 \
        double t2 = now();                                                                        \
        if (P##execute(pb)) {                                                                     \
            fprintf(stderr, "hfft-poisson: %s\n", hfft_last_error_message());                     \
            return 1;                                                                             \
        }                                                                                         \
        secs[0] = t1 - t0;                                                                        \
        secs[1] = now() - t2;                                                                     \
        hfft_info info;                                                                           \
        P##plan_info(pf, &info);                                                                  \
        printf("DCT-II: %s, schedule %d, %d rounds; ", info.device_name, info.schedule,          \
               info.rounds);                                                                      \
        P##destroy_plan(pf);                                                                      \
        P##destroy_plan(pb);                                                                      \
        return 0;                                                                                 \
    }
DEFINE_SOLVE(double, hfft_)
DEFINE_SOLVE(float, hfftf_)

/* |L u - f| / |f|, L the 7-point Laplacian with mirrored cells beyond the walls. */
static double residual(const int64_t *n, const double *f, const void *u, int single) {
#define U(i, j, k)                                                                                \
    (single ? (double)((const float *)u)[((i) * n[1] + (j)) * n[2] + (k)]                         \
            : ((const double *)u)[((i) * n[1] + (j)) * n[2] + (k)])
    long double num = 0, den = 0;
    for (int64_t i = 0; i < n[0]; i++)
        for (int64_t j = 0; j < n[1]; j++)
            for (int64_t k = 0; k < n[2]; k++) {
                double c = U(i, j, k), s = 0;
                s += U(i > 0 ? i - 1 : i, j, k) + U(i < n[0] - 1 ? i + 1 : i, j, k);
                s += U(i, j > 0 ? j - 1 : j, k) + U(i, j < n[1] - 1 ? j + 1 : j, k);
                s += U(i, j, k > 0 ? k - 1 : k) + U(i, j, k < n[2] - 1 ? k + 1 : k);
                double r = s - 6 * c - f[(i * n[1] + j) * n[2] + k];
                num += (long double)r * r;
                den += (long double)f[(i * n[1] + j) * n[2] + k] * f[(i * n[1] + j) * n[2] + k];
            }
#undef U
    return (double)sqrtl(num / den);
}

int main(int argc, char **argv) {
    int64_t n[3] = {64, 48, 80};
    int single = 0, k = 0;
    unsigned flags = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--f32"))
            single = 1;
        else if (!strcmp(argv[i], "--cpu"))
            flags = HFFT_CPU_ONLY;
        else if (k < 3 && atoll(argv[i]) > 1)
            n[k++] = atoll(argv[i]);
        else {
            fprintf(stderr, "usage: hfft-poisson [N0 N1 N2] [--f32] [--cpu]\n");
            return 2;
        }
    }
    size_t count = (size_t)(n[0] * n[1] * n[2]);
    double *f = malloc(count * sizeof *f);
    void *u = single ? (void *)hfftf_alloc_real(count) : (void *)hfft_alloc_real(count);
    if (!f || !u) {
        fprintf(stderr, "hfft-poisson: out of memory for a %lld x %lld x %lld grid\n",
                (long long)n[0], (long long)n[1], (long long)n[2]);
        return 1;
    }
    /* a random right side, its mean removed (Neumann walls: the flux in is zero) */
    srand(7);
    double mean = 0;
    for (size_t i = 0; i < count; i++)
        mean += f[i] = 2.0 * rand() / RAND_MAX - 1.0;
    mean /= (double)count;
    for (size_t i = 0; i < count; i++) {
        f[i] -= mean;
        if (single)
            ((float *)u)[i] = (float)f[i];
        else
            ((double *)u)[i] = f[i];
    }
    double secs[2];
    int st = single ? solve_float(n, u, flags, secs) : solve_double(n, u, flags, secs);
    if (st)
        return 1;
    double r = residual(n, f, u, single);
    printf("%lld x %lld x %lld %s: DCT-II %.4f s, DCT-III %.4f s, residual |Lu - f| / |f| "
           "%.2e\n",
           (long long)n[0], (long long)n[1], (long long)n[2], single ? "f32" : "f64", secs[0],
           secs[1], r);
    free(f);
    if (single)
        hfftf_free(u);
    else
        hfft_free(u);
    return r <= (single ? 1e-4 : 1e-10) ? 0 : 1;
}
