/*
 * test_internals.c: the parts under the public API, through hfft_internal:
 * twiddles against long-double cosl/sinl (octant boundaries, n = 2^27,
 * 3*5*7*11*13, primes, n above 2^32); radix-2 and radix-r combinations
 * against a naive long-double DFT; the emulated device (budget, garbage in
 * fresh memory, pitched copies, kernels, batched FFTs); the GPU engine
 * writing only its share of a round, and the CPU executor only its range; the
 * thread pool; the host bandwidth probe; settings resolution.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "balancer/wisdom.h"
#include "cpu/cpu.h"
#include "cpu/twiddle.h"
#include "gpu/butterfly.h"
#include "gpu/devices.h"
#include "gpu/engine.h"
#include "ref.h"
#include "src/core/settings.h"
#include "src/place.h"
#include "src/plan.h"
#include "util.h"

TestSuite(internals, .init = tu_setup, .fini = tu_env_clear);

#define PI_L 3.141592653589793238462643383279502884L

/* exp(sign 2 pi i k / n) in long double, the angle reduced exactly first. */
static void twiddle_ref(int64_t k, int64_t n, int sign, long double *re, long double *im) {
    int64_t kk = k % n;
    long double th = 2.0L * PI_L * (long double)kk / (long double)n;
    *re = cosl(th);
    *im = sign < 0 ? -sinl(th) : sinl(th);
}

static uint64_t rng_state;
static uint64_t rng(void) {
    uint64_t z = (rng_state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static double worst_twiddle;

static void check_twiddle(int64_t k, int64_t n) {
    for (int sign = -1; sign <= 1; sign += 2) {
        double re, im;
        long double rr, ri;
        hfft__twiddle(k, n, sign, &re, &im);
        twiddle_ref(k, n, sign, &rr, &ri);
        double e = (double)fmaxl(fabsl((long double)re - rr), fabsl((long double)im - ri));
        if (e > worst_twiddle)
            worst_twiddle = e;
        cr_assert(e < 2e-16, "twiddle(k=%lld, n=%lld, sign %d) = (%.17g, %.17g), cosl/sinl give "
                             "(%.20Lg, %.20Lg): error %.3g",
                  (long long)k, (long long)n, sign, re, im, rr, ri, e);
    }
}

Test(internals, twiddle_against_cosl_sinl) {
    rng_state = tu_seed();
    static const int64_t small[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 12, 16, 60, 64, 100, 127, 1000,
                                    1024, 4096};
    for (size_t i = 0; i < sizeof small / sizeof small[0]; i++)
        for (int64_t k = 0; k < small[i]; k++)
            check_twiddle(k, small[i]);
    static const int64_t big[] = {15015,          /* 3*5*7*11*13 */
                                  65536,          1 << 20,       1 << 27,
                                  14348907,       /* 3^15 */
                                  2147483647,     /* 2^31 - 1, prime */
                                  2147483648LL,   4294967311LL,  /* 2^32 + 15 */
                                  1000000000039LL, 1LL << 40};
    for (size_t i = 0; i < sizeof big / sizeof big[0]; i++) {
        int64_t n = big[i];
        /* Around every octant boundary j n / 8, from both sides. */
        for (int j = 0; j <= 8; j++) {
            int64_t b = (int64_t)((__int128)n * j / 8);
            for (int64_t d = -4; d <= 4; d++) {
                int64_t k = b + d;
                if (k >= 0)
                    check_twiddle(k, n);
            }
        }
        for (int r = 0; r < 3000; r++)
            check_twiddle((int64_t)(rng() % (uint64_t)n), n);
        /* k beyond n reduces exactly. */
        for (int r = 0; r < 50; r++) {
            int64_t k = (int64_t)(rng() % (uint64_t)n);
            double a, b, c, d;
            hfft__twiddle(k, n, -1, &a, &b);
            hfft__twiddle(k + n * (1 + r % 5), n, -1, &c, &d);
            cr_assert(a == c && b == d, "twiddle(%lld + m n, %lld) differs from twiddle(k)",
                      (long long)k, (long long)n);
        }
    }
    cr_log_info("worst twiddle error %.3g", worst_twiddle);
}

/* A line's twiddles computed once and applied (the four-step's pre-twiddles, a
   tile's columns sharing them) give what the rotation gives: the same double
   factors, the same products. */
Test(internals, twiddle_vector_is_the_rotation) {
    rng_state = tu_seed();
    static const int64_t ns[] = {256, 32768, 1000003};
    for (size_t i = 0; i < sizeof ns / sizeof ns[0]; i++)
        for (int prec = 4; prec <= 8; prec += 4)
            for (int r = 0; r < 5; r++) {
                hfft__twiddles t;
                cr_assert_eq(hfft__twiddles_make(ns[i], r % 2 ? 1 : -1, &t), 0);
                int64_t len = 1 + (int64_t)(rng() % 700), j = (int64_t)(rng() % (uint64_t)ns[i]);
                size_t bytes = (size_t)len * 2 * (size_t)prec;
                char *a = malloc(bytes), *b = malloc(bytes);
                double *w = malloc((size_t)len * 16);
                cr_assert(a && b && w);
                hfft_ref_fill(prec, a, len, tu_seed() + (uint64_t)r);
                memcpy(b, a, bytes);
                hfft__twiddles_rotate(&t, prec, a, len, 1, j);
                hfft__twiddles_vector(&t, j, len, w);
                hfft__twiddles_apply(prec, b, len, w);
                /* the same factors and products (equal here; an ulp apart where a
                   compiler fuses them differently) */
                double worst = 0, eps = prec == 4 ? 0x1p-24 : 0x1p-53;
                for (int64_t k = 0; k < 2 * len; k++) {
                    double x = prec == 4 ? ((float *)a)[k] : ((double *)a)[k];
                    double y = prec == 4 ? ((float *)b)[k] : ((double *)b)[k];
                    double d = fabs(x - y) / (fabs(x) > 1e-30 ? fabs(x) : 1e-30);
                    worst = d > worst ? d : worst;
                }
                cr_assert(worst <= 4 * eps, "n=%lld j=%lld len=%lld f%d: %.3g apart",
                          (long long)ns[i], (long long)j, (long long)len, prec * 8, worst);
                free(a);
                free(b);
                free(w);
                hfft__twiddles_free(&t);
            }
}

/* Symmetries of the octant reduction: W^(n-k) = conj(W^k) bit for bit (within
   an ulp where 8k/n is an odd integer: cos and sin of pi/4 may round apart),
   and for even n, W^(k + n/2) = -W^k bit for bit. */
Test(internals, twiddle_symmetries) {
    rng_state = tu_seed();
    static const int64_t ns[] = {6, 8, 16, 100, 4096, 15015, 1 << 27, 2147483647, 1LL << 40};
    for (size_t i = 0; i < sizeof ns / sizeof ns[0]; i++) {
        int64_t n = ns[i];
        for (int r = 0; r < 2000; r++) {
            int64_t k = 1 + (int64_t)(rng() % (uint64_t)(n - 1));
            double a, b, c, d;
            hfft__twiddle(k, n, 1, &a, &b);
            hfft__twiddle(n - k, n, 1, &c, &d);
            if ((8 * (__int128)k) % n == 0)
                cr_assert(fabs(a - c) <= 0x1p-52 && fabs(b + d) <= 0x1p-52,
                          "n=%lld k=%lld: W^(n-k) is not conj(W^k)", (long long)n, (long long)k);
            else
                cr_assert(a == c && b == -d, "n=%lld k=%lld: W^(n-k) is not conj(W^k) exactly",
                          (long long)n, (long long)k);
            hfft__twiddle(k, n, -1, &c, &d);
            cr_assert(a == c && b == -d, "n=%lld k=%lld: sign does not conjugate", (long long)n,
                      (long long)k);
            if (n % 2 == 0) {
                hfft__twiddle(k + n / 2, n, 1, &c, &d);
                cr_assert(a == -c && b == -d, "n=%lld k=%lld: W^(k+n/2) != -W^k", (long long)n,
                          (long long)k);
            }
        }
    }
    double re, im;
    hfft__twiddle(0, 7, -1, &re, &im);
    cr_assert(re == 1.0 && im == 0.0);
    hfft__twiddle(1, 4, -1, &re, &im);
    cr_assert(re == 0.0 && im == -1.0, "W_4 forward = (%g, %g)", re, im);
    hfft__twiddle(1, 2, 1, &re, &im);
    cr_assert(re == -1.0 && im == 0.0);
}

/* Naive long-double DFT of x (L complex doubles, stride `stride`). */
static void naive_dft(const double *x, int64_t stride, int64_t L, int sign, long double *X) {
    long double *w = tu_alloc((size_t)(2 * L) * sizeof(long double));
    for (int64_t m = 0; m < L; m++)
        twiddle_ref(m, L, sign, &w[2 * m], &w[2 * m + 1]);
    for (int64_t k = 0; k < L; k++) {
        long double sr = 0, si = 0;
        for (int64_t j = 0; j < L; j++) {
            int64_t m = (j * k) % L;
            long double wr = w[2 * m], wi = w[2 * m + 1];
            long double xr = x[2 * j * stride], xi = x[2 * j * stride + 1];
            sr += wr * xr - wi * xi;
            si += wr * xi + wi * xr;
        }
        X[2 * k] = sr;
        X[2 * k + 1] = si;
    }
    tu_free(w);
}

/* T(k + q L/r) = sum_j W_L^{jk} W_r^{jq} F_j(k) with F_j the DFTs of x(r m + j). */
static void check_radixr(int r, int64_t M, int sign, int prec) {
    int64_t L = r * M;
    double *x = tu_alloc((size_t)(2 * L) * sizeof(double));
    hfft_ref_fill(8, x, L, tu_seed());
    if (prec == 4)
        for (int64_t i = 0; i < 2 * L; i++)
            x[i] = (double)(float)x[i];
    long double *X = tu_alloc((size_t)(2 * L) * sizeof(long double));
    long double *F = tu_alloc((size_t)(2 * L) * sizeof(long double)); /* F[j][k] at j*M + k */
    naive_dft(x, 1, L, sign, X);
    for (int j = 0; j < r; j++)
        naive_dft(x + 2 * j, r, M, sign, F + 2 * j * M);
    long double num = 0, den = 0;
    for (int64_t k = 0; k < M; k++) {
        double vd[HFFT__RADIXR_MAX][2];
        float vf[HFFT__RADIXR_MAX][2];
        double *pd[HFFT__RADIXR_MAX];
        float *pf[HFFT__RADIXR_MAX];
        for (int j = 0; j < r; j++) {
            vd[j][0] = (double)F[2 * (j * M + k)];
            vd[j][1] = (double)F[2 * (j * M + k) + 1];
            vf[j][0] = (float)vd[j][0];
            vf[j][1] = (float)vd[j][1];
            pd[j] = vd[j];
            pf[j] = vf[j];
        }
        if (prec == 4)
            hfft__radixr_f(pf, r, k, L, sign);
        else
            hfft__radixr_d(pd, r, k, L, sign);
        for (int q = 0; q < r; q++) {
            long double yr = prec == 4 ? vf[q][0] : vd[q][0];
            long double yi = prec == 4 ? vf[q][1] : vd[q][1];
            long double tr = X[2 * (k + q * M)], ti = X[2 * (k + q * M) + 1];
            num += (yr - tr) * (yr - tr) + (yi - ti) * (yi - ti);
            den += tr * tr + ti * ti;
        }
    }
    double err = (double)sqrtl(num / den);
    double tol = prec == 4 ? 1e-6 : 1e-15;
    cr_assert(err < tol, "radix-%d f%d combination (L = %lld, sign %d): relative RMS error %.3g",
              r, prec * 8, (long long)L, sign, err);
    tu_free(F);
    tu_free(X);
    tu_free(x);
}

Test(internals, radixr_against_naive_dft) {
    static const int radices[] = {2, 3, 4, 5, 6, 7, 11, 13, 31, 64};
    static const int64_t Ms[] = {1, 3, 8, 25};
    for (size_t i = 0; i < sizeof radices / sizeof radices[0]; i++)
        for (size_t m = 0; m < sizeof Ms / sizeof Ms[0]; m++)
            for (int sign = -1; sign <= 1; sign += 2) {
                check_radixr(radices[i], Ms[m], sign, 8);
                check_radixr(radices[i], Ms[m], sign, 4);
            }
}

Test(internals, radix2_butterfly) {
    rng_state = tu_seed();
    for (int t = 0; t < 1000; t++) {
        double a[2], b[2], w[2];
        for (int i = 0; i < 2; i++) {
            a[i] = (double)(rng() >> 11) * 0x1p-53 - 0.5;
            b[i] = (double)(rng() >> 11) * 0x1p-53 - 0.5;
        }
        int64_t N = 1 + (int64_t)(rng() % 100000), k = (int64_t)(rng() % (uint64_t)N);
        hfft__twiddle(k, N, -1, &w[0], &w[1]);
        long double tr = (long double)w[0] * b[0] - (long double)w[1] * b[1];
        long double ti = (long double)w[0] * b[1] + (long double)w[1] * b[0];
        long double ar = a[0] + tr, ai = a[1] + ti, br = a[0] - tr, bi = a[1] - ti;
        double A[2] = {a[0], a[1]}, B[2] = {b[0], b[1]};
        hfft__radix2_d(A, B, w[0], w[1]);
        cr_assert(fabsl(A[0] - ar) < 1e-15 && fabsl(A[1] - ai) < 1e-15 &&
                  fabsl(B[0] - br) < 1e-15 && fabsl(B[1] - bi) < 1e-15,
                  "radix-2 butterfly off");
        float Af[2] = {(float)a[0], (float)a[1]}, Bf[2] = {(float)b[0], (float)b[1]};
        hfft__radix2_f(Af, Bf, w[0], w[1]);
        cr_assert(fabsl(Af[0] - ar) < 1e-6 && fabsl(Bf[1] - bi) < 1e-6);
    }
}

/* ---- the emulated device ---- */

Test(internals, emulated_device_budget) {
    const hfft__dev_ops *ops = hfft__device_ops(HFFT_DEVICE_EMULATED);
    cr_assert(ops);
    cr_assert_eq(ops->kind, HFFT_DEVICE_EMULATED);
    cr_assert_null(hfft__device_ops(HFFT_DEVICE_NONE));
    cr_assert_null(hfft__device_ops(HFFT_DEVICE_AUTO));
    hfft__dev *d;
    cr_assert_eq(ops->open(4096, &d), 0);
    cr_assert_eq(ops->budget(d), 4096);
    cr_assert_eq(ops->used(d), 0);
    void *a, *b, *c;
    cr_assert_eq(ops->alloc(d, &a, 3000), 0);
    cr_assert(a);
    cr_assert_eq(((uintptr_t)a) % 64, 0);
    cr_assert_eq(ops->used(d), 3000);
    /* Fresh device memory holds garbage, never zeros. */
    for (int i = 0; i < 3000; i++)
        cr_assert_eq(((unsigned char *)a)[i], 0x7f, "byte %d of fresh memory", i);
    cr_assert_eq(ops->alloc(d, &b, 1097), HFFT_ERR_DEVICE_MEMORY, "over the budget");
    cr_assert_null(b);
    cr_assert(strstr(hfft_last_error_message(), "budget of 4 KiB") != NULL, "%s", hfft_last_error_message());
    cr_assert_eq(ops->alloc(d, &b, 1096), 0, "exactly the budget");
    cr_assert_eq(ops->used(d), 4096);
    cr_assert_eq(ops->alloc(d, &c, 1), HFFT_ERR_DEVICE_MEMORY);
    ops->free(d, a);
    ops->free(d, b);
    ops->free(d, NULL);
    cr_assert_eq(ops->used(d), 0);
    cr_assert_eq(ops->alloc(d, &c, 4096), 0);
    ops->free(d, c);
    ops->close(d);
    /* Budget 0: the default. */
    cr_assert_eq(ops->open(0, &d), 0);
    cr_assert_gt(ops->budget(d), 0);
    ops->close(d);
}

Test(internals, emulated_device_copies_and_kernels) {
    const hfft__dev_ops *ops = hfft__device_ops(HFFT_DEVICE_EMULATED);
    hfft__dev *d;
    cr_assert_eq(ops->open(1 << 20, &d), 0);
    hfft__stream s;
    cr_assert_eq(ops->stream_create(d, &s), 0);
    /* Pitched copies: a 5 x 3 tile (rows of 3 doubles) out of a 5 x 8 host array. */
    double host[40], back[40];
    for (int i = 0; i < 40; i++)
        host[i] = i + 0.5;
    for (int i = 0; i < 40; i++)
        back[i] = -1;
    void *dev;
    cr_assert_eq(ops->alloc(d, &dev, 5 * 4 * sizeof(double)), 0);
    cr_assert_eq(ops->h2d(d, s, dev, 4 * sizeof(double), host + 2, 8 * sizeof(double),
                          3 * sizeof(double), 5),
                 0);
    cr_assert_eq(ops->d2h(d, s, back + 1, 8 * sizeof(double), dev, 4 * sizeof(double),
                          3 * sizeof(double), 5),
                 0);
    cr_assert_eq(ops->sync(d, s), 0);
    for (int r = 0; r < 5; r++)
        for (int c = 0; c < 8; c++) {
            double want = (c >= 1 && c < 4) ? host[r * 8 + c + 1] : -1;
            cr_assert_eq(back[r * 8 + c], want, "row %d col %d", r, c);
        }
    ops->free(d, dev);

    /* radix2 over rows x width tiles: a' = a + w b, b' = a - w b, w = W_N^(k0 + row). */
    for (int prec = 4; prec <= 8; prec += 4) {
        int64_t rows = 6, width = 5, N = 40, k0 = 7;
        size_t es = tu_esize(prec), tile = (size_t)(rows * width) * es;
        void *a, *b;
        cr_assert_eq(ops->alloc(d, &a, tile), 0);
        cr_assert_eq(ops->alloc(d, &b, tile), 0);
        hfft_ref_fill(prec, a, rows * width, tu_seed());
        hfft_ref_fill(prec, b, rows * width, tu_seed());
        void *a0 = tu_dup(a, tile), *b0 = tu_dup(b, tile);
        cr_assert_eq(ops->radix2(d, prec, s, a, b, rows, width, N, k0, HFFT_BACKWARD), 0);
        cr_assert_eq(ops->sync(d, s), 0);
        for (int64_t r = 0; r < rows; r++) {
            long double wr, wi;
            twiddle_ref(k0 + r, N, HFFT_BACKWARD, &wr, &wi);
            for (int64_t c = 0; c < width; c++) {
                int64_t i = 2 * (r * width + c);
#define GET(p, j) (prec == 4 ? (long double)((float *)(p))[j] : (long double)((double *)(p))[j])
                long double tr = wr * GET(b0, i) - wi * GET(b0, i + 1);
                long double ti = wr * GET(b0, i + 1) + wi * GET(b0, i);
                long double tol = prec == 4 ? 1e-6L : 1e-15L;
                cr_assert(fabsl(GET(a, i) - (GET(a0, i) + tr)) < tol &&
                              fabsl(GET(a, i + 1) - (GET(a0, i + 1) + ti)) < tol &&
                              fabsl(GET(b, i) - (GET(a0, i) - tr)) < tol &&
                              fabsl(GET(b, i + 1) - (GET(a0, i + 1) - ti)) < tol,
                          "radix2 f%d row %lld col %lld", prec * 8, (long long)r, (long long)c);
#undef GET
            }
        }
        tu_free(a0);
        tu_free(b0);
        ops->free(d, a);
        ops->free(d, b);
    }

    /* A batched strided FFT plan on the device: 3 columns of length 12 in a 12 x 3 tile. */
    for (int prec = 4; prec <= 8; prec += 4) {
        int64_t L = 12, cols = 3;
        size_t es = tu_esize(prec);
        void *buf;
        cr_assert_eq(ops->alloc(d, &buf, (size_t)(L * cols) * es), 0);
        hfft_ref_fill(prec, buf, L * cols, tu_seed());
        double x[2 * 36];
        for (int i = 0; i < 72; i++)
            x[i] = prec == 4 ? ((float *)buf)[i] : ((double *)buf)[i];
        hfft__fftplan plan;
        size_t work = 1;
        cr_assert_eq(ops->fft_plan(d, prec, HFFT__C2C, 1, &L, cols, 1, cols, HFFT_FORWARD, &plan,
                                   &work),
                     0);
        cr_assert_eq(ops->fft_exec(d, plan, s, buf, NULL), 0);
        cr_assert_eq(ops->sync(d, s), 0);
        for (int64_t c = 0; c < cols; c++) {
            long double X[24];
            naive_dft(x + 2 * c, cols, L, HFFT_FORWARD, X);
            for (int64_t k = 0; k < L; k++) {
                long double yr = prec == 4 ? ((float *)buf)[2 * (k * cols + c)]
                                           : ((double *)buf)[2 * (k * cols + c)];
                cr_assert(fabsl(yr - X[2 * k]) < (prec == 4 ? 1e-5L : 1e-13L),
                          "f%d column %lld bin %lld", prec * 8, (long long)c, (long long)k);
            }
        }
        ops->fft_destroy(d, plan);
        ops->free(d, buf);
    }
    ops->stream_destroy(d, s);
    cr_assert_eq(ops->used(d), 0);
    ops->close(d);
}

/*
 * Double-precision lines the backends cut in card (gpu/split.h), on the emulated
 * device and, where one is usable, a CUDA GPU: contiguous lines with a pitch,
 * side-by-side lines, a last chunk shorter than the others, a cut cut again; each
 * against the long-double reference, at FFTW's accuracy.  Lengths with a prime
 * factor above 127 go through Bluestein (src/core/chirp.h), alone, strided, and
 * as the n1 of a cut.  Shorter and single-precision lines, and Bluestein's where
 * the card has no room for its table, stay whole (no scratch asked).
 */
static void split_lines_on(const hfft__dev_ops *ops, hfft__dev *d) {
    static const struct {
        int64_t n, stride, dist, batch;
        int sign;
    } cases[] = {{4096, 1, 4096, 601, HFFT_FORWARD},   {12480, 1, 12481, 5, HFFT_BACKWARD},
                 {2048, 7, 1, 5, HFFT_FORWARD},        {1 << 20, 1, 1 << 20, 2, HFFT_FORWARD},
                 {3 * 1024, 1030, 1, 1000, HFFT_BACKWARD},
                 /* Bluestein: contiguous with a pitch, side by side, a prime's double, a
                    prime the cut's n1, and a chunk of M-point lines with a tail */
                 {4099, 1, 4099 + 3, 7, HFFT_FORWARD},  {1031, 5, 1, 5, HFFT_BACKWARD},
                 {2 * 4099, 1, 2 * 4099, 3, HFFT_BACKWARD}, {16 * 4099, 1, 16 * 4099, 2, HFFT_FORWARD},
                 {997, 1, 997, 1500, HFFT_FORWARD}};
    hfft__stream s;
    cr_assert_eq(ops->stream_create(d, &s), 0);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int64_t n = cases[i].n, S = cases[i].stride, D = cases[i].dist, B = cases[i].batch;
        size_t span = (size_t)((B - 1) * D + (n - 1) * S + 1) * 16;
        double *host = tu_alloc(span), *in = tu_alloc((size_t)(n * B) * 16),
               *out = tu_alloc((size_t)(n * B) * 16);
        void *buf, *area = NULL;
        cr_assert_eq(ops->alloc(d, &buf, span), 0);
        tu_poison(host, span);
        hfft_ref_fill(8, in, n * B, tu_seed());
        for (int64_t b = 0; b < B; b++)
            for (int64_t j = 0; j < n; j++)
                memcpy(host + 2 * (b * D + j * S), in + 2 * (b * n + j), 16);
        hfft__fftplan plan;
        size_t work = 0;
        cr_assert_eq(ops->fft_plan(d, 8, HFFT__C2C, 1, &n, S, D, B, cases[i].sign, &plan, &work),
                     0, "%s case %zu: %s", ops->name, i, hfft_last_error_message());
        cr_assert_gt(work, 0, "%s case %zu: not cut (no scratch)", ops->name, i);
        cr_assert_eq(ops->alloc(d, &area, work), 0);
        cr_assert_eq(ops->h2d(d, s, buf, span, host, span, span, 1), 0);
        cr_assert_eq(ops->fft_exec(d, plan, s, buf, area), 0, "%s", hfft_last_error_message());
        cr_assert_eq(ops->d2h(d, s, host, span, buf, span, span, 1), 0);
        cr_assert_eq(ops->sync(d, s), 0, "%s", hfft_last_error_message());
        for (int64_t b = 0; b < B; b++)
            for (int64_t j = 0; j < n; j++)
                memcpy(out + 2 * (b * n + j), host + 2 * (b * D + j * S), 16);
        double err = hfft_ref_error_many(8, 0, 1, &n, B, in, out, cases[i].sign, 2);
        cr_assert(err >= 0 && err < (i < 5 ? 4e-16 : 4.5e-16), "%s case %zu (n %lld): error %.3g",
                  ops->name, i, (long long)n, err);
        ops->fft_destroy(d, plan);
        ops->free(d, area);
        ops->free(d, buf);
        tu_free(host);
        tu_free(in);
        tu_free(out);
    }
    /* Dense planes (rank 2) whose rows or columns are cut, against the reference. */
    static const int64_t planes[][3] = {{48, 2048, 3}, {1024, 40, 2}};
    for (size_t i = 0; i < sizeof planes / sizeof planes[0]; i++) {
        int64_t dims[2] = {planes[i][0], planes[i][1]}, B = planes[i][2], e = dims[0] * dims[1];
        size_t bytes = (size_t)(e * B) * 16;
        double *in = tu_alloc(bytes), *out = tu_alloc(bytes);
        void *buf, *area = NULL;
        hfft__fftplan plan;
        size_t work = 0;
        hfft_ref_fill(8, in, e * B, tu_seed());
        cr_assert_eq(ops->alloc(d, &buf, bytes), 0);
        cr_assert_eq(ops->fft_plan(d, 8, HFFT__C2C, 2, dims, 1, e, B, HFFT_BACKWARD, &plan, &work),
                     0, "%s planes %zu: %s", ops->name, i, hfft_last_error_message());
        cr_assert(ops->kind == HFFT_DEVICE_CUDA || work > 0, "planes %zu: not cut", i);
        cr_assert_eq(ops->alloc(d, &area, work ? work : 1), 0);
        cr_assert_eq(ops->h2d(d, s, buf, bytes, in, bytes, bytes, 1), 0);
        cr_assert_eq(ops->fft_exec(d, plan, s, buf, area), 0, "%s", hfft_last_error_message());
        cr_assert_eq(ops->d2h(d, s, out, bytes, buf, bytes, bytes, 1), 0);
        cr_assert_eq(ops->sync(d, s), 0, "%s", hfft_last_error_message());
        double err = hfft_ref_error_many(8, 0, 2, dims, B, in, out, HFFT_BACKWARD, 2);
        cr_assert(err >= 0 && err < 4.5e-16, "%s planes %zu: error %.3g", ops->name, i, err);
        ops->fft_destroy(d, plan);
        ops->free(d, area);
        ops->free(d, buf);
        tu_free(in);
        tu_free(out);
    }
    /* Real rows in FFTW's padded layout, alone (rank 1, a row pitch P) or in dense planes
       of n0 rows: forward against the reference, then back to N x (rows alone with the
       imaginary parts of X_0 and X_M spoiled: c2r ignores them). */
    static const int64_t real[][5] = {
        {1, 1, 4096, 2049, 300}, {1, 1, 2 * 12480, 12481 + 7, 3}, {2, 24, 4096, 2049, 2},
        /* odd rows through Bluestein, alone and as the rows of planes */
        {1, 1, 1031, 516 + 3, 6}, {2, 20, 4099, 2050, 2}};
    for (size_t i = 0; i < sizeof real / sizeof real[0]; i++) {
        int rank = (int)real[i][0];
        int64_t n0 = real[i][1], n = real[i][2], P = real[i][3], B = real[i][4], m = n / 2;
        int64_t rows = n0 * B, dims[2] = {n0, n};
        size_t span = (size_t)(rows * P) * 16;
        double *host = tu_alloc(span), *x = tu_alloc((size_t)(n * rows) * 8),
               *X = tu_alloc((size_t)((m + 1) * rows) * 16);
        void *buf, *area[2] = {NULL, NULL};
        hfft__fftplan plan[2];
        size_t work[2] = {0, 0};
        cr_assert_eq(ops->alloc(d, &buf, span), 0);
        tu_poison(host, span);
        hfft_ref_fill(8, x, n * rows / 2, tu_seed());
        for (int64_t r = 0; r < rows; r++)
            memcpy(host + 2 * r * P, x + r * n, (size_t)n * 8);
        for (int k = 0; k < 2; k++) {
            cr_assert_eq(ops->fft_plan(d, 8, k ? HFFT__C2R : HFFT__R2C, rank, &dims[2 - rank], 1,
                                       P * n0, B, k ? HFFT_BACKWARD : HFFT_FORWARD, &plan[k],
                                       &work[k]),
                         0, "%s real %zu: %s", ops->name, i, hfft_last_error_message());
            cr_assert_gt(work[k], 0, "%s real %zu: not cut", ops->name, i);
            cr_assert_eq(ops->alloc(d, &area[k], work[k]), 0);
        }
        cr_assert_eq(ops->h2d(d, s, buf, span, host, span, span, 1), 0);
        cr_assert_eq(ops->fft_exec(d, plan[0], s, buf, area[0]), 0);
        cr_assert_eq(ops->d2h(d, s, host, span, buf, span, span, 1), 0);
        cr_assert_eq(ops->sync(d, s), 0, "%s", hfft_last_error_message());
        for (int64_t r = 0; r < rows; r++)
            memcpy(X + 2 * r * (m + 1), host + 2 * r * P, (size_t)(m + 1) * 16);
        double err = hfft_ref_error_many(8, 1, rank, &dims[2 - rank], B, x, X, HFFT_FORWARD, 2);
        cr_assert(err >= 0 && err < 4.5e-16, "%s r2c %zu: error %.3g", ops->name, i, err);
        for (int64_t r = 0; r < rows && rank == 1; r++) { /* planes: columns stay Hermitian */
            host[2 * r * P + 1] = 0.25 * (double)(r + 1);
            if (n % 2 == 0)
                host[2 * (r * P + m) + 1] = -0.5;
        }
        cr_assert_eq(ops->h2d(d, s, buf, span, host, span, span, 1), 0);
        cr_assert_eq(ops->fft_exec(d, plan[1], s, buf, area[1]), 0);
        cr_assert_eq(ops->d2h(d, s, host, span, buf, span, span, 1), 0);
        cr_assert_eq(ops->sync(d, s), 0, "%s", hfft_last_error_message());
        long double num = 0, den = 0, N = (long double)n * (long double)n0;
        for (int64_t r = 0; r < rows; r++)
            for (int64_t j = 0; j < n; j++) {
                long double want = N * x[r * n + j], got = host[2 * r * P + j];
                num += (got - want) * (got - want);
                den += want * want;
            }
        cr_assert(sqrtl(num / den) < 6e-16, "%s c2r %zu: round trip error %.3Lg", ops->name, i,
                  sqrtl(num / den));
        for (int k = 0; k < 2; k++) {
            ops->fft_destroy(d, plan[k]);
            ops->free(d, area[k]);
        }
        ops->free(d, buf);
        tu_free(host);
        tu_free(x);
        tu_free(X);
    }
    static const int64_t whole[][2] = {{8, 1000}, {8, 127 * 5}, {4, 4099}, {4, 4096}};
    for (size_t i = 0; i < sizeof whole / sizeof whole[0]; i++) {
        hfft__fftplan plan;
        size_t work = 1;
        cr_assert_eq(ops->fft_plan(d, (int)whole[i][0], HFFT__C2C, 1, &whole[i][1], 1,
                                   whole[i][1], 3, HFFT_FORWARD, &plan, &work),
                     0);
        cr_assert(ops->kind == HFFT_DEVICE_CUDA || work == 0, "f%d %lld: cut",
                  (int)whole[i][0] * 8, (long long)whole[i][1]);
        ops->fft_destroy(d, plan);
    }
    ops->stream_destroy(d, s);
}

/* Bluestein's table and a line's buffer (2 x 32768 + 4099 points, 1.1 MB for 4099
   points; 2 x 16384 + 4099 at the leanest, 0.6 MB) take at most a quarter of what the
   card has left: with 1 MiB the backend transforms the lines whole, with 3 MiB they
   go through the leanest Bluestein, with 5 MiB through the most accurate, which asks
   more work. */
static void split_room_on(const hfft__dev_ops *ops) {
    size_t work[3] = {0, 0, 0};
    static const int mib[3] = {1, 3, 5};
    for (int k = 0; k < 3; k++) {
        hfft__dev *d;
        if (ops->open((int64_t)mib[k] << 20, &d) != 0)
            return;
        hfft__fftplan plan;
        int64_t n = 4099;
        cr_assert_eq(ops->fft_plan(d, 8, HFFT__C2C, 1, &n, 1, n, 2, HFFT_FORWARD, &plan, &work[k]),
                     0, "%s", hfft_last_error_message());
        ops->fft_destroy(d, plan);
        ops->close(d);
    }
    if (ops->kind != HFFT_DEVICE_CUDA)
        cr_assert(work[0] == 0 && work[1] > 0 && work[2] > work[1],
                  "%s: work %zu / %zu / %zu at 1 / 3 / 5 MiB", ops->name, work[0], work[1],
                  work[2]);
}

/* Bluestein's M-point lines cut fine (gpu/split.h) on a device of 16 MiB, whose
   quarter holds the table and the blocks of 5 of its 1031-point lines (M = 8192,
   cut 16 x 16 x 32) but not of the 128 that a scratch block takes: chunks of fewer
   lines, a shorter last one, within the quarter, and more accurate than the 64 x 128
   cut that cuFFT's lines give (H100: 2.44 against 3.01e-16; emulated 2.35e-16). */
static void bluestein_fine_on(const hfft__dev_ops *ops) {
    hfft__dev *d;
    if (ops->open((int64_t)16 << 20, &d) != 0)
        return;
    int64_t n = 1031, B = 42;
    size_t bytes = (size_t)(n * B) * 16, work = 0;
    double *in = tu_alloc(bytes), *out = tu_alloc(bytes);
    hfft_ref_fill(8, in, n * B, tu_seed());
    tu_poison(out, bytes);
    hfft__stream s;
    hfft__fftplan plan;
    void *buf, *area;
    cr_assert_eq(ops->stream_create(d, &s), 0);
    cr_assert_eq(ops->alloc(d, &buf, bytes), 0);
    cr_assert_eq(ops->fft_plan(d, 8, HFFT__C2C, 1, &n, 1, n, B, HFFT_FORWARD, &plan, &work), 0,
                 "%s", hfft_last_error_message());
    cr_assert(work > 0 && work <= ((size_t)16 << 20) / 4, "%s: work %zu", ops->name, work);
    cr_assert_eq(ops->alloc(d, &area, work), 0);
    cr_assert_eq(ops->h2d(d, s, buf, bytes, in, bytes, bytes, 1), 0);
    cr_assert_eq(ops->fft_exec(d, plan, s, buf, area), 0, "%s", hfft_last_error_message());
    cr_assert_eq(ops->d2h(d, s, out, bytes, buf, bytes, bytes, 1), 0);
    cr_assert_eq(ops->sync(d, s), 0, "%s", hfft_last_error_message());
    double err = hfft_ref_error_many(8, 0, 1, &n, B, in, out, HFFT_FORWARD, 2);
    cr_assert(err >= 0 && err < 2.8e-16, "%s: error %.3g", ops->name, err);
    ops->fft_destroy(d, plan);
    ops->free(d, area);
    ops->free(d, buf);
    ops->stream_destroy(d, s);
    cr_assert_eq(ops->used(d), 0);
    ops->close(d);
    tu_free(in);
    tu_free(out);
}

/* The relative RMS of `count` reals back from an r2c and a c2r against N x. */
static double round_trip(const double *x, const double *back, int64_t count, int64_t N) {
    long double num = 0, den = 0;
    for (int64_t j = 0; j < count; j++) {
        long double want = (long double)N * x[j], d = back[j] - want;
        num += d * d;
        den += want * want;
    }
    return (double)sqrtl(num / den);
}

/*
 * The CPU's double-precision lines of a length with a prime factor above 31 run
 * Bluestein (src/core/chirp.h): side-by-side complex lines out of place, in place,
 * odd and even real lines forward and back (c2r ignoring the imaginary parts of
 * X_0 and, for even n, X_n/2), each at least 15% under FFTW's own error there
 * (5.4e-16 at 4099 points, 6.2e-16 at 53^2).
 */
Test(internals, bluestein_lines) {
    static const struct {
        int kind;
        int64_t n, B, stride, inplace;
    } cases[] = {{HFFT__C2C, 4099, 3, 3, 0}, {HFFT__C2C, 4099, 2, 1, 1},
                 {HFFT__R2C, 1031, 4, 1, 0}, {HFFT__R2C, 2 * 4099, 2, 1, 0},
                 /* 53^2: FFTW's own transform 6.2e-16 */
                 {HFFT__C2C, 53 * 53, 8, 1, 0}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int64_t n = cases[i].n, B = cases[i].B, S = cases[i].stride, m = n / 2 + 1;
        int real = cases[i].kind != HFFT__C2C;
        int64_t cn = real ? m : n; /* complex points per line on the output side */
        double *x = tu_alloc((size_t)(n * B) * 16), *y = tu_alloc((size_t)(n * B) * 16),
               *X = tu_alloc((size_t)(cn * B) * 16), *back = tu_alloc((size_t)(n * B) * 8);
        hfft_ref_fill(8, x, real ? n * B / 2 : n * B, tu_seed());
        hfft__lines_desc ld = {.prec = 8, .rank = 1, .sign = HFFT_FORWARD, .kind = cases[i].kind,
                               .n = {n, 1, 1}, .howmany = B,
                               .fftw_flags = hfft__fftw_estimate()};
        /* side by side when S > 1 (line b's point j at b + j S), rows otherwise */
        ld.is = S;
        ld.idist = S > 1 ? 1 : n;
        ld.os = 1;
        ld.odist = cn;
        void *in = x;
        if (cases[i].inplace) {
            memcpy(y, x, (size_t)(n * B) * 16);
            in = y;
            ld.inplace = 1;
            ld.odist = ld.idist;
        }
        hfft__lines *l;
        cr_assert_eq(hfft__lines_plan(&ld, &l), 0, "%s", hfft_last_error_message());
        tu_poison(X, (size_t)(cn * B) * 16);
        hfft__lines_exec(l, in, cases[i].inplace ? in : X);
        if (cases[i].inplace)
            memcpy(X, y, (size_t)(n * B) * 16);
        /* the reference takes rows: gather side-by-side lines */
        double *rows = tu_alloc((size_t)(n * B) * 16);
        for (int64_t b = 0; b < B; b++)
            for (int64_t j = 0; j < n; j++)
                memcpy(rows + 2 * (b * n + j), x + 2 * (b * ld.idist + j * S), 16);
        double err = hfft_ref_error_many(8, real, 1, &n, B, real ? x : rows, X, HFFT_FORWARD, 2);
        cr_assert(err >= 0 && err < 4.5e-16, "case %zu (n %lld): error %.3g", i, (long long)n,
                  err);
        hfft__lines_destroy(l);
        tu_free(rows);
        if (real) { /* back, with Im X_0 and Im X_n/2 spoiled */
            hfft__lines_desc bd = {.prec = 8, .rank = 1, .sign = HFFT_BACKWARD,
                                   .kind = HFFT__C2R, .n = {n, 1, 1}, .is = 1, .os = 1,
                                   .howmany = B, .idist = m, .odist = n,
                                   .fftw_flags = hfft__fftw_estimate()};
            for (int64_t b = 0; b < B; b++) {
                X[2 * b * m + 1] = 0.5;
                if (n % 2 == 0)
                    X[2 * (b * m + n / 2) + 1] = -0.25;
            }
            cr_assert_eq(hfft__lines_plan(&bd, &l), 0, "%s", hfft_last_error_message());
            hfft__lines_exec(l, X, back);
            double rt = round_trip(x, back, n * B, n);
            cr_assert(rt < 5e-16, "case %zu c2r: round trip error %.3g", i, rt);
            hfft__lines_destroy(l);
        }
        tu_free(x);
        tu_free(y);
        tu_free(X);
        tu_free(back);
    }
}

/*
 * The CPU's double-precision planes (rank 2) with a dimension of a prime factor
 * above 31 run as their rows, then their columns, each through Bluestein where
 * its length takes it (FFTW's plan of such a plane runs its own transforms
 * along it: 5.2e-16 and more at 1031 points): r2c planes whose columns or odd
 * rows are the prime's, and a complex one, against the reference; back through
 * c2r, round trip.
 */
Test(internals, bluestein_planes) {
    static const struct {
        int kind;
        int64_t n0, n1, B;
    } cases[] = {{HFFT__R2C, 1031, 64, 2}, {HFFT__R2C, 48, 1031, 3}, {HFFT__C2C, 1031, 40, 2}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int64_t n0 = cases[i].n0, n1 = cases[i].n1, B = cases[i].B, dims[2] = {n0, n1};
        int real = cases[i].kind != HFFT__C2C;
        int64_t w = real ? n1 / 2 + 1 : n1, e = n0 * n1, ce = n0 * w;
        double *x = tu_alloc((size_t)(e * B) * 16), *X = tu_alloc((size_t)(ce * B) * 16),
               *back = tu_alloc((size_t)(e * B) * 8);
        hfft_ref_fill(8, x, real ? e * B / 2 : e * B, tu_seed());
        hfft__lines_desc ld = {.prec = 8, .rank = 2, .sign = HFFT_FORWARD, .kind = cases[i].kind,
                               .n = {n0, n1, 1}, .is = 1, .os = 1, .opitch = real ? w : 0,
                               .howmany = B, .idist = e, .odist = ce,
                               .fftw_flags = hfft__fftw_estimate()};
        hfft__lines *l;
        cr_assert_eq(hfft__lines_plan(&ld, &l), 0, "%s", hfft_last_error_message());
        tu_poison(X, (size_t)(ce * B) * 16);
        hfft__lines_exec(l, x, X);
        hfft__lines_destroy(l);
        double err = hfft_ref_error_many(8, real, 2, dims, B, x, X, HFFT_FORWARD, 2);
        cr_assert(err >= 0 && err < 4.2e-16, "case %zu: error %.3g", i, err);
        if (!real)
            goto next;
        hfft__lines_desc bd = {.prec = 8, .rank = 2, .sign = HFFT_BACKWARD, .kind = HFFT__C2R,
                               .n = {n0, n1, 1}, .is = 1, .os = 1, .ipitch = w, .howmany = B,
                               .idist = ce, .odist = e, .fftw_flags = hfft__fftw_estimate()};
        cr_assert_eq(hfft__lines_plan(&bd, &l), 0, "%s", hfft_last_error_message());
        tu_poison(back, (size_t)(e * B) * 8);
        hfft__lines_exec(l, X, back);
        hfft__lines_destroy(l);
        double rt = round_trip(x, back, e * B, e);
        cr_assert(rt < 5e-16, "case %zu c2r: round trip error %.3g", i, rt);
    next:
        tu_free(x);
        tu_free(X);
        tu_free(back);
    }
}

Test(internals, split_lines) {
    for (int k = 0; k < 2; k++) {
        const hfft__dev_ops *ops = hfft__device_ops(k ? HFFT_DEVICE_CUDA : HFFT_DEVICE_EMULATED);
        hfft__dev *d;
        if (!ops || ops->open((int64_t)512 << 20, &d) != 0)
            continue; /* no usable CUDA GPU here */
        split_lines_on(ops, d);
        cr_assert_eq(ops->used(d), 0);
        ops->close(d);
        split_room_on(ops);
        bluestein_fine_on(ops);
    }
}

/* The emulated device runs queued work when the host synchronizes, in a random
   order that keeps each stream's order and every event wait.  A copy out on
   one stream of what a copy in on another wrote: with the wait it always reads
   the new data, without it some runs read the old (so a schedule that forgets
   a wait fails its tests); HFFT_EMULATED_ORDER=issue runs in issue order. */
static int stale_reads(int with_wait, int trials) {
    const hfft__dev_ops *ops = hfft__device_ops(HFFT_DEVICE_EMULATED);
    int stale = 0;
    for (int t = 0; t < trials; t++) {
        hfft__dev *d;
        cr_assert_eq(ops->open(4096, &d), 0);
        hfft__stream a, b;
        hfft__event e;
        cr_assert_eq(ops->stream_create(d, &a), 0);
        cr_assert_eq(ops->stream_create(d, &b), 0);
        cr_assert_eq(ops->event_create(d, &e), 0);
        void *buf;
        cr_assert_eq(ops->alloc(d, &buf, 8), 0);
        int64_t in = t + 1, out = -1;
        cr_assert_eq(ops->h2d(d, a, buf, 8, &in, 8, 8, 1), 0);
        if (with_wait) {
            cr_assert_eq(ops->record(d, e, a), 0);
            cr_assert_eq(ops->wait(d, b, e), 0);
        }
        cr_assert_eq(ops->d2h(d, b, &out, 8, buf, 8, 8, 1), 0);
        cr_assert_eq(ops->sync(d, b), 0);
        cr_assert_eq(ops->sync(d, a), 0);
        stale += out != in;
        ops->free(d, buf);
        ops->event_destroy(d, e);
        ops->stream_destroy(d, a);
        ops->stream_destroy(d, b);
        ops->close(d);
    }
    return stale;
}

Test(internals, emulated_device_orders_work_as_a_gpu_may, .fini = tu_env_clear) {
    cr_assert_eq(stale_reads(1, 64), 0, "a copy ran before the copy it waited for");
    int stale = stale_reads(0, 64);
    cr_assert(stale > 0 && stale < 64, "without the wait, %d of 64 reads were stale", stale);
    setenv("HFFT_EMULATED_ORDER", "issue", 1);
    cr_assert_eq(stale_reads(0, 64), 0, "issue order");
}

/* ---- an engine writes exactly its share of a round ---- */

/* A round's arrays: src filled from a fresh seed; dst (src in place) poisoned;
   and copies of both as they were. */
typedef struct share_arrays {
    char *src, *dst, *orig, *before;
    size_t bytes;
    uint64_t seed;
} share_arrays;

static void share_setup(share_arrays *a, int prec, const hfft__round *r, int inplace) {
    int64_t total = r->no * r->dout;
    a->bytes = (size_t)total * tu_esize(prec);
    a->src = tu_alloc(a->bytes);
    a->dst = inplace ? a->src : tu_alloc(a->bytes);
    a->seed = tu_seed();
    hfft_ref_fill(prec, a->src, total, a->seed);
    a->orig = tu_dup(a->src, a->bytes);
    if (!inplace)
        tu_poison(a->dst, a->bytes);
    a->before = tu_dup(a->dst, a->bytes);
}

/* Unit u of round r (a column in every outer block, a line or a plane), its
   elements gathered from x. */
static void unit_gather(int prec, const hfft__round *r, const char *x, int64_t u, char *line) {
    size_t es = tu_esize(prec);
    int strided = hfft__round_strided(r);
    int64_t base = strided ? u : u * r->dout, step = strided ? r->s : 1;
    for (int64_t o = 0; o < (strided ? r->no : 1); o++)
        for (int64_t l = 0; l < r->L; l++)
            memcpy(line + (size_t)(o * r->L + l) * es,
                   x + (size_t)(base + o * r->dout + l * step) * es, es);
}

/* Each unit in [u0, u1) against the higher-precision reference, every other
   one bit for bit as it was, the source untouched out of place; then frees. */
static void share_check(share_arrays *a, int prec, const hfft__round *r, int64_t u0, int64_t u1,
                        const char *who) {
    int strided = hfft__round_strided(r);
    int64_t outer = strided ? r->no : 1;
    size_t es = tu_esize(prec), unit = (size_t)(r->L * outer) * es;
    char *in = tu_alloc(unit), *got = tu_alloc(unit), *was = tu_alloc(unit);
    int64_t n[2] = {r->rank == 2 ? r->n2[0] : r->L, r->n2[1]};
    for (int64_t u = 0; u < hfft__round_units(r); u++) {
        unit_gather(prec, r, a->dst, u, got);
        if (u < u0 || u >= u1) {
            unit_gather(prec, r, a->before, u, was);
            cr_assert(memcmp(got, was, unit) == 0,
                      "%s: unit %lld outside [%lld, %lld) was written (seed %llu)", who,
                      (long long)u, (long long)u0, (long long)u1, (unsigned long long)a->seed);
            continue;
        }
        unit_gather(prec, r, a->orig, u, in);
        for (int64_t o = 0; o < outer; o++) {
            size_t off = (size_t)(o * r->L) * es;
            double err = hfft_ref_error(prec, r->rank, n, in + off, got + off, HFFT_FORWARD, 1);
            cr_assert(err >= 0 && err < tu_tol(prec),
                      "%s: unit %lld (outer %lld) of [%lld, %lld): error %.3g (seed %llu)", who,
                      (long long)u, (long long)o, (long long)u0, (long long)u1, err,
                      (unsigned long long)a->seed);
        }
    }
    if (a->dst != a->src)
        cr_assert(memcmp(a->src, a->orig, a->bytes) == 0, "%s changed its source", who);
    tu_free(was);
    tu_free(got);
    tu_free(in);
    tu_free(a->before);
    tu_free(a->orig);
    if (a->dst != a->src)
        tu_free(a->dst);
    tu_free(a->src);
}

static void engine_share(int prec, hfft__round r, int64_t units, int schedule, int64_t budget,
                         int inplace) {
    const hfft__dev_ops *ops = hfft__device_ops(HFFT_DEVICE_EMULATED);
    hfft__dev *d;
    cr_assert_eq(ops->open(budget, &d), 0);
    hfft__gpu_req req;
    memset(&req, 0, sizeof req);
    req.prec = prec;
    req.sign = HFFT_FORWARD;
    req.nrounds = 1;
    req.rounds = &r;
    req.units[0] = units;
    req.schedule = schedule;
    req.inplace = inplace;
    req.round_inplace[0] = inplace;
    hfft__gpu *g;
    int st = hfft__gpu_create(ops, d, &req, &g);
    cr_assert_eq(st, 0, "engine: %s", hfft_last_error_message());
    cr_assert_leq(ops->used(d), budget);
    share_arrays a;
    share_setup(&a, prec, &r, inplace);
    cr_assert_eq(hfft__gpu_run(g, 0, a.src, a.dst, 1), 0, "run: %s", hfft_last_error_message());
    share_check(&a, prec, &r, 0, units, "the GPU engine");
    hfft__gpu_destroy(g);
    cr_assert_eq(ops->used(d), 0, "device memory left after destroy");
    ops->close(d);
}

Test(internals, engine_writes_only_its_share) {
    for (int inplace = 0; inplace < 2; inplace++) {
        for (int prec = 4; prec <= 8; prec += 4) {
            int64_t b = prec == 4 ? 4096 : 8192;
            /* strided columns: plain and radix-2 */
            hfft__round cols = {1, 64, {0, 0}, 48, 48, 1, 64 * 48};
            engine_share(prec, cols, 20, 1, b, inplace);
            engine_share(prec, cols, 21, 2, b, inplace);
            /* two outer blocks of strided columns (a 3D round along Y) */
            hfft__round y = {1, 16, {0, 0}, 6, 6, 3, 16 * 6};
            engine_share(prec, y, 4, 1, b, inplace);
            /* contiguous lines */
            hfft__round rows = {1, 16, {0, 0}, 1, 1, 100, 16};
            engine_share(prec, rows, 37, 1, b, inplace);
            /* lines longer than a pass: 1024 = 4^4 x 4, 243 = 3^5, 250 = 2 x 5^3 */
            hfft__round lng = {1, 1024, {0, 0}, 8, 8, 1, 1024 * 8};
            engine_share(prec, lng, 3, 0, 2 * b, inplace);
            hfft__round l3 = {1, 243, {0, 0}, 5, 5, 1, 243 * 5};
            engine_share(prec, l3, 4, 0, b, inplace);
            hfft__round l5 = {1, 250, {0, 0}, 7, 7, 1, 250 * 7};
            engine_share(prec, l5, 5, 0, b, inplace);
        }
    }
}

/* ---- the CPU executor writes exactly its range of a round ---- */

static void cpu_range(int prec, hfft__round r, int64_t u0, int64_t u1, int threads, int inplace) {
    share_arrays a;
    share_setup(&a, prec, &r, inplace);
    hfft__pool *pool;
    cr_assert_eq(hfft__pool_create(threads, 0, &pool), 0);
    hfft__cpu *c;
    cr_assert_eq(hfft__cpu_create(prec, HFFT_FORWARD, 1, &r, &inplace, 0, pool, a.src, a.dst, &c),
                 0, "%s", hfft_last_error_message());
    cr_assert_eq(hfft__cpu_start(c, 0, a.src, a.dst, u0, u1), 0);
    cr_assert_eq(hfft__cpu_finish(c), 0);
    hfft__cpu_destroy(c);
    hfft__pool_destroy(pool);
    char who[96];
    snprintf(who, sizeof who, "the CPU executor (%d threads, %s)", threads,
             inplace ? "in place" : "out of place");
    share_check(&a, prec, &r, u0, u1, who);
}

/* Ranges that start and end inside tiles, as a hybrid round's CPU share does:
   long columns (tiles taken several to a job, the last one short; a column
   of megabytes, one to a tile; rows of
   whole cache lines, scattered with streaming stores, and rows that are
   not), columns in outer blocks, contiguous lines, and planes small and
   larger than a core's cache (rows, then column tiles, by all threads
   together). */
Test(internals, cpu_runs_only_its_range) {
    for (int inplace = 0; inplace < 2; inplace++) {
        for (int threads = 1; threads <= 3; threads++) {
            hfft__round cols = {1, 20000, {0, 0}, 320, 320, 1, 20000 * 320};
            cpu_range(4, cols, 37, 291, threads, inplace);
            hfft__round cols8 = {1, 10000, {0, 0}, 150, 150, 1, 10000 * 150};
            cpu_range(8, cols8, 5, 141, threads, inplace);
            hfft__round longest = {1, 300000, {0, 0}, 5, 5, 1, 300000 * 5};
            cpu_range(threads == 2 ? 8 : 4, longest, 1, 4, threads, inplace);
            hfft__round y = {1, 40, {0, 0}, 24, 24, 5, 40 * 24};
            cpu_range(threads == 2 ? 8 : 4, y, 3, 21, threads, inplace);
            hfft__round rows = {1, 1000, {0, 0}, 1, 1, 50, 1000};
            cpu_range(4, rows, 7, 43, threads, inplace);
            hfft__round planes = {2, 520 * 600, {520, 600}, 1, 1, 4, 520 * 600};
            cpu_range(4, planes, 1, 4, threads, inplace);
            hfft__round planes8 = {2, 300 * 520, {300, 520}, 1, 1, 3, 300 * 520};
            cpu_range(8, planes8, 0, 2, threads, inplace);
            hfft__round small = {2, 13 * 48, {13, 48}, 1, 1, 9, 13 * 48};
            cpu_range(threads == 3 ? 8 : 4, small, 2, 7, threads, inplace);
        }
    }
}

/* ---- the thread pool ---- */

static _Atomic int job_count[5000];
static _Atomic int bad_thread;
static int pool_threads;

static void count_job(void *ctx, int64_t job, int thread) {
    (void)ctx;
    if (thread < 0 || thread >= pool_threads)
        atomic_store(&bad_thread, 1);
    atomic_fetch_add(&job_count[job], 1);
}

static void each_job(void *ctx, int64_t job, int thread) {
    count_job(ctx, job, thread);
    if (job != thread)
        atomic_store(&bad_thread, 1);
}

Test(internals, thread_pool_runs_each_job_once) {
    hfft__pool *p;
    cr_assert_eq(hfft__pool_create(0, 0, &p), HFFT_ERR_INVALID_ARGUMENT);
    cr_assert_null(p);
    pool_threads = 3;
    cr_assert_eq(hfft__pool_create(pool_threads, 1, &p), 0);
    cr_assert_eq(hfft__pool_size(p), 3);
    cr_assert_geq(hfft__cores(), 1);
    for (int gen = 1; gen <= 4; gen++) {
        int64_t njobs = gen == 3 ? 0 : gen * 1000 + 7;
        cr_assert_eq(hfft__pool_start(p, njobs, count_job, NULL), 0);
        hfft__pool_wait(p);
        for (int64_t j = 0; j < 5000; j++) {
            int want = j < njobs ? 1 : 0;
            cr_assert_eq(atomic_load(&job_count[j]), want, "generation %d: job %lld ran %d times",
                         gen, (long long)j, atomic_load(&job_count[j]));
            atomic_store(&job_count[j], 0);
        }
    }
    cr_assert_eq(atomic_load(&bad_thread), 0);
    /* once on each thread, the job being the thread's index */
    hfft__pool_each(p, each_job, NULL);
    for (int t = 0; t < pool_threads; t++)
        cr_assert_eq(atomic_load(&job_count[t]), 1, "thread %d ran %d times", t,
                     atomic_load(&job_count[t]));
    cr_assert_eq(atomic_load(&bad_thread), 0);
    hfft__pool_destroy(p);
    hfft__pool_destroy(NULL);
}

static void count_job_or_caller(void *ctx, int64_t job, int thread) {
    if (thread == pool_threads) /* the caller, as the number it gave */
        atomic_fetch_add((_Atomic int *)ctx, 1);
    else if (thread < 0 || thread > pool_threads)
        atomic_store(&bad_thread, 1);
    atomic_fetch_add(&job_count[job], 1);
}

/* The caller beside the workers (hfft__pool_help), batches started right after a batch
   of no jobs (its workers may still be waking: they must take no job of the next with
   the last one's function), and a batch of too many jobs refused with nothing run. */
Test(internals, thread_pool_helped_by_its_caller) {
    hfft__pool *p;
    pool_threads = 3;
    cr_assert_eq(hfft__pool_create(pool_threads, 0, &p), 0);
    _Atomic int by_caller = 0;
    for (int gen = 0; gen < 200; gen++) {
        int64_t njobs = 1 + gen * 37 % 4999;
        cr_assert_eq(hfft__pool_start(p, 0, count_job, NULL), 0);
        if (gen % 2)
            cr_assert_eq(hfft__pool_help(p, njobs, count_job_or_caller, &by_caller, pool_threads),
                         0);
        else {
            cr_assert_eq(hfft__pool_start(p, njobs, count_job, NULL), 0);
            hfft__pool_wait(p);
        }
        for (int64_t j = 0; j < 5000; j++) {
            cr_assert_eq(atomic_load(&job_count[j]), j < njobs, "batch %d: job %lld ran %d times",
                         gen, (long long)j, atomic_load(&job_count[j]));
            atomic_store(&job_count[j], 0);
        }
    }
    cr_assert_gt(atomic_load(&by_caller), 0, "the caller ran no job");
    cr_assert_eq(atomic_load(&bad_thread), 0);
    cr_assert_eq(hfft__pool_start(p, (int64_t)1 << 40, count_job, NULL), HFFT_ERR_INTERNAL);
    cr_assert_eq(hfft__pool_help(p, (int64_t)1 << 40, count_job, NULL, 3), HFFT_ERR_INTERNAL);
    cr_assert_eq(hfft__pool_start(p, 10, count_job, NULL), 0);
    hfft__pool_wait(p);
    for (int64_t j = 0; j < 11; j++) {
        cr_assert_eq(atomic_load(&job_count[j]), j < 10);
        atomic_store(&job_count[j], 0);
    }
    hfft__pool_destroy(p);
}

/* The host bandwidth probe: a plausible figure, and a clear error for nothing to copy. */
Test(internals, host_bandwidth) {
    hfft__pool *p;
    cr_assert_eq(hfft__pool_create(2, 0, &p), 0);
    double bw = -1;
    cr_assert_eq(hfft__host_bandwidth(p, 8u << 20, 2, &bw), 0, "%s", hfft_last_error_message());
    cr_assert(bw > 1e8 && bw < 1e14, "host bandwidth %g B/s", bw);
    cr_assert_eq(hfft__host_bandwidth(p, 64, 2, &bw), HFFT_ERR_INVALID_ARGUMENT);
    cr_assert_eq(bw, 0.0);
    cr_assert_gt(hfft__cache_bytes(), 0);
    hfft__pool_destroy(p);
}

/* ---- settings ---- */

Test(internals, settings_resolution) {
    tu_env_clear();
    hfft__settings s;
    cr_assert_eq(hfft__settings_resolve(NULL, &s), 0);
    cr_assert_eq(s.budget, 0);
    cr_assert_eq(s.threads, 0);
    cr_assert_eq(s.device, HFFT_DEVICE_AUTO);
    for (int h = 0; h < 3; h++)
        cr_assert_lt(s.ratio[h], 0);
    cr_assert_eq(s.pass_bytes, 0);
    cr_assert_eq(s.slots, 0);
    cr_assert_str_eq(s.wisdom, "");
    setenv("HFFT_DEVICE_MEMORY", "1.5MiB", 1);
    setenv("HFFT_THREADS", "3", 1);
    setenv("HFFT_DEVICE", "gpu", 1);
    setenv("HFFT_WISDOM", "/tmp/w", 1);
    cr_assert_eq(hfft__settings_resolve(NULL, &s), 0);
    cr_assert_eq(s.budget, 1572864);
    cr_assert_eq(s.threads, 3);
    cr_assert_eq(s.device, HFFT_DEVICE_CUDA);
    cr_assert_str_eq(s.wisdom, "/tmp/w");
    hfft_options o;
    hfft_options_init(&o);
    o.device_memory = 777;
    o.threads = 5;
    o.device = HFFT_DEVICE_EMULATED;
    o.wisdom = "/tmp/x";
    o.ratio = 0.25;
    o.round_ratio[1] = 0.75;
    o.pass_bytes = 4096;
    o.slots = 6;
    cr_assert_eq(hfft__settings_resolve(&o, &s), 0);
    cr_assert_eq(s.ratio[0], 0.25);
    cr_assert_eq(s.ratio[1], 0.75, "round_ratio[1] overrides ratio");
    cr_assert_eq(s.ratio[2], 0.25);
    cr_assert_eq(s.slots, 6);
    cr_assert_eq(s.budget, 777);
    cr_assert_eq(s.threads, 5);
    cr_assert_eq(s.device, HFFT_DEVICE_EMULATED);
    cr_assert_str_eq(s.wisdom, "/tmp/x");
    cr_assert_eq(s.pass_bytes, 4096);
    tu_env_clear();
    int64_t r;
    cr_assert(!hfft__mul_overflows(1LL << 31, 1LL << 31, &r) && r == 1LL << 62);
    cr_assert(hfft__mul_overflows(1LL << 32, 1LL << 31, &r));
    cr_assert(hfft__mul_overflows(INT64_MAX, 2, &r));
}

/* ---- wisdom ---- */

/* A tuned problem in a wisdom file signed for this configuration sets the
   shares and pass parameters of exactly that problem; another configuration's
   wisdom is ignored and the plan says why. */
Test(internals, wisdom_round_trip) {
    char dir[] = "/tmp/hfft-test-wisdom-XXXXXX";
    cr_assert(mkdtemp(dir));
    char path[512];
    snprintf(path, sizeof path, "%s/wisdom", dir);
    const hfft__dev_ops *ops = hfft__device_ops(HFFT_DEVICE_EMULATED);
    hfft__dev *d;
    cr_assert_eq(ops->open(8192, &d), 0);
    hfft__wisdom *w = calloc(1, sizeof *w);
    cr_assert(w);
    hfft__signature(ops, &d, 1, 2, w->signature, sizeof w->signature);
    ops->close(d);
    cr_assert(strstr(w->signature, "threads=2") != NULL, "signature %s", w->signature);
    hfft__wisdom_problem q;
    memset(&q, 0, sizeof q);
    q.prec = 4;
    q.rank = 2;
    q.n[0] = 64;
    q.n[1] = 48;
    q.inplace = 0;
    q.budget = 8192;
    q.ratio[0] = 0.5;
    q.ratio[1] = 0.25;
    q.slots = 5;
    q.pass_bytes = 1024;
    q.schedule = 1;
    q.predicted[0] = 1e-3;
    q.predicted[1] = 2e-3;
    cr_assert_eq(hfft__wisdom_add(w, &q), 0);
    /* a dense batch of 32 lines of 256 points: an entry of its own */
    hfft__wisdom_problem qb = q;
    qb.rank = 1;
    qb.n[0] = 256;
    qb.n[1] = 0;
    qb.howmany = 32;
    qb.budget = 1 << 20; /* lines whole on the device */
    qb.pass_bytes = 0;
    qb.slots = 0;
    qb.ratio[0] = 0.625;
    qb.nratio = 1;
    cr_assert_eq(hfft__wisdom_add(w, &qb), 0);
    /* real transforms of the same sizes: entries of their own, single and batched */
    hfft__wisdom_problem qr = q;
    qr.kind = HFFT__R2C;
    qr.ratio[0] = 0.75;
    qr.ratio[1] = 0.5;
    qr.predicted[1] = INFINITY; /* a model with no rate for a side: written as none */
    cr_assert_eq(hfft__wisdom_add(w, &qr), 0);
    hfft__wisdom_problem qrb = qb;
    qrb.kind = HFFT__R2C;
    qrb.ratio[0] = 0.375;
    qrb.gpu_rate[0] = 4e10; /* rates, which a look-up of the nearest needs */
    cr_assert_eq(hfft__wisdom_add(w, &qrb), 0);
    hfft__wisdom_problem qc = q;
    qc.kind = HFFT__C2R;
    qc.inplace = 1;
    qc.ratio[0] = 0.25;
    cr_assert_eq(hfft__wisdom_add(w, &qc), 0);
    w->host_bw = 1.25e11;
    w->have_link = 1;
    w->link.duplex = 5.05e10;
    w->link.cards = 2;
    w->link.all_h2d = 1.099e11;
    w->link.all_d2h = 1.09e11;
    w->link.all_duplex = 7.58e10;
    cr_assert_eq(hfft__wisdom_write(path, w), 0, "%s", hfft_last_error_message());
    FILE *wf = fopen(path, "r");
    char text[4096] = {0};
    cr_assert(wf && fread(text, 1, sizeof text - 1, wf) > 0);
    fclose(wf);
    cr_assert(strstr(text, "\nhfft-wisdom 2\n") != NULL, "real entries, format 2:\n%s", text);
    hfft__wisdom *back = calloc(1, sizeof *back);
    cr_assert_eq(hfft__wisdom_read(path, back), 0, "%s", hfft_last_error_message());
    cr_assert_str_eq(back->signature, w->signature);
    cr_assert_eq(back->host_bw, 1.25e11);
    cr_assert(back->have_link && back->link.cards == 2 && back->link.all_h2d == 1.099e11 &&
                  back->link.all_d2h == 1.09e11 && back->link.all_duplex == 7.58e10,
              "all cards' link rates read back as %d cards, %g %g %g", back->link.cards,
              back->link.all_h2d, back->link.all_d2h, back->link.all_duplex);
    cr_assert_eq(back->nprob, 5);
    const hfft__wisdom_problem *fc = hfft__wisdom_find(back, HFFT__C2C, 4, 2, q.n, 1, 0, 8192),
                               *fr = hfft__wisdom_find(back, HFFT__R2C, 4, 2, q.n, 1, 0, 8192);
    cr_assert(fc && fc->kind == HFFT__C2C && fc->ratio[0] == 0.5, "the complex entry");
    cr_assert(fr && fr->kind == HFFT__R2C && fr->ratio[0] == 0.75 && fr->predicted[1] == 0,
              "the r2c entry");
    cr_assert_null(hfft__wisdom_find(back, HFFT__C2R, 4, 2, q.n, 1, 0, 8192));
    const hfft__wisdom_problem *nr = hfft__wisdom_nearest(back, HFFT__R2C, 4, 1, qb.n, 16, 1 << 20);
    cr_assert(nr && nr->kind == HFFT__R2C && nr->ratio[0] == 0.375, "the r2c batch's nearest");
    cr_assert_null(hfft__wisdom_nearest(back, HFFT__C2C, 4, 1, qb.n, 16, 1 << 20));
    cr_assert_null(hfft__wisdom_find(back, HFFT__C2C, 4, 2, q.n, 1, 1, 8192));
    cr_assert_null(hfft__wisdom_find(back, HFFT__C2C, 8, 2, q.n, 1, 0, 8192));
    cr_assert_null(hfft__wisdom_find(back, HFFT__C2C, 4, 2, q.n, 1, 0, 4096));
    cr_assert_null(hfft__wisdom_find(back, HFFT__C2C, 4, 2, q.n, 16, 0, 8192));
    const hfft__wisdom_problem *fb = hfft__wisdom_find(back, HFFT__C2C, 4, 1, qb.n, 32, 0, 1 << 20);
    cr_assert(fb && fb->howmany == 32 && fb->ratio[0] == 0.625, "the batch's entry");
    cr_assert_null(hfft__wisdom_find(back, HFFT__C2C, 4, 1, qb.n, 1, 0, 1 << 20));
    cr_assert_null(hfft__wisdom_find(back, HFFT__C2C, 4, 1, qb.n, 31, 0, 1 << 20));
    /* the nearest of a batch is a batch, of a single transform a single one */
    cr_assert_null(hfft__wisdom_nearest(back, HFFT__C2C, 4, 1, qb.n, 1, 1 << 20));

    hfft_options o;
    hfft_options_init(&o);
    o.device = HFFT_DEVICE_EMULATED;
    o.device_memory = 8192;
    o.threads = 2;
    o.wisdom = path;
    hfft_info info;
    /* The tuned problem. */
    tu_case c = {4, 2, {64, 48}, 0, HFFT_FORWARD, 0, &o, 0};
    run_case(&c, &info);
    cr_assert_eq(info.wisdom, 1, "info.wisdom %d (%s)", info.wisdom, info.wisdom_note);
    cr_assert_eq(info.ratio[0], 0.5, "round 0 share %g", info.ratio[0]);
    cr_assert_eq(info.ratio[1], 0.25, "round 1 share %g", info.ratio[1]);
    cr_assert_eq(info.placement, 2);
    cr_assert_eq(info.streams, 5);
    cr_assert_eq(info.schedule, 1);
    cr_assert(info.predicted_seconds[0] > 0);
    /* An explicit share still wins over wisdom. */
    o.round_ratio[1] = 1.0;
    run_case(&c, &info);
    cr_assert_eq(info.ratio[0], 0.5);
    cr_assert_eq(info.ratio[1], 1.0);
    o.round_ratio[1] = 0;
    /* Another problem: no wisdom applies. */
    c.inplace = 1;
    run_case(&c, &info);
    cr_assert_eq(info.wisdom, 0);
    cr_assert_eq(info.placement, 1);
    /* Another configuration (three threads): ignored, and the plan says why. */
    c.inplace = 0;
    o.threads = 3;
    run_case(&c, &info);
    cr_assert_eq(info.wisdom, -1);
    cr_assert(strstr(info.wisdom_note, "threads") != NULL, "note '%s'", info.wisdom_note);
    cr_assert_eq(info.placement, 1);
    /* Through HFFT_WISDOM as well. */
    o.threads = 2;
    o.wisdom = NULL;
    setenv("HFFT_WISDOM", path, 1);
    run_case(&c, &info);
    cr_assert_eq(info.wisdom, 1);
    setenv("HFFT_WISDOM", "none", 1);
    /* The dense batch takes its entry; the same lines strided (interleaved) do not. */
    o.wisdom = path;
    o.device_memory = 1 << 20;
    hfftf_complex *bi = malloc(sizeof *bi * 256 * 32), *bo = malloc(sizeof *bo * 256 * 32);
    cr_assert(bi && bo);
    int64_t bn = 256;
    for (int strided = 0; strided < 2; strided++) {
        hfftf_plan bp =
            hfftf_plan_many_dft64(1, &bn, 32, bi, NULL, strided ? 32 : 1, strided ? 1 : 256, bo,
                                  NULL, strided ? 32 : 1, strided ? 1 : 256, HFFT_FORWARD, 0, &o);
        cr_assert_not_null(bp, "%s", hfft_last_error_message());
        hfftf_plan_info(bp, &info);
        if (!strided) {
            cr_assert_eq(info.wisdom, 1, "batch: info.wisdom %d (%s)", info.wisdom,
                         info.wisdom_note);
            cr_assert_eq(info.ratio[0], 0.625, "batch share %g", info.ratio[0]);
            cr_assert_eq(info.placement, 2);
        } else {
            cr_assert_neq(info.wisdom, 1, "a strided batch took the dense one's wisdom");
        }
        hfftf_destroy_plan(bp);
    }
    /* Real transforms take the r2c entries: the 2D one, and the dense batch (reals 256
       apart, complex outputs 129 apart); a c2r plan of those sizes takes none. */
    float *ri = malloc(sizeof *ri * 256 * 32);
    cr_assert(ri);
    int64_t rn[2] = {64, 48};
    o.device_memory = 8192;
    hfftf_plan rp =
        hfftf_plan_many_dft_r2c64(2, rn, 1, ri, NULL, 1, 64 * 48, bo, NULL, 1, 64 * 25, 0, &o);
    cr_assert_not_null(rp, "%s", hfft_last_error_message());
    hfftf_plan_info(rp, &info);
    cr_assert_eq(info.wisdom, 1, "r2c: info.wisdom %d (%s)", info.wisdom, info.wisdom_note);
    /* (round 2's 25 complex columns take whole units: 13 of them) */
    cr_assert(info.ratio[0] == 0.75 && fabs(info.ratio[1] - 0.5) <= 1.0 / 25, "r2c shares %g/%g",
              info.ratio[0], info.ratio[1]);
    hfftf_destroy_plan(rp);
    rp = hfftf_plan_many_dft_c2r64(2, rn, 1, bo, NULL, 1, 64 * 25, ri, NULL, 1, 64 * 48, 0, &o);
    cr_assert_not_null(rp, "%s", hfft_last_error_message());
    hfftf_plan_info(rp, &info);
    cr_assert_neq(info.wisdom, 1, "c2r took the r2c entry");
    hfftf_destroy_plan(rp);
    /* in place, real rows padded to 50 reals (FFTW's layout): the c2r entry */
    int64_t padded[2] = {64, 50};
    rp = hfftf_plan_many_dft_c2r64(2, rn, 1, bo, NULL, 1, 64 * 25, (float *)bo, padded, 1, 64 * 50,
                                   0, &o);
    cr_assert_not_null(rp, "%s", hfft_last_error_message());
    hfftf_plan_info(rp, &info);
    cr_assert_eq(info.wisdom, 1, "c2r in place: info.wisdom %d (%s)", info.wisdom,
                 info.wisdom_note);
    cr_assert(fabs(info.ratio[0] - 0.25) <= 1.0 / 25, "c2r share %g", info.ratio[0]);
    hfftf_destroy_plan(rp);
    o.device_memory = 1 << 20;
    rp = hfftf_plan_many_dft_r2c64(1, &bn, 32, ri, NULL, 1, 256, bo, NULL, 1, 129, 0, &o);
    cr_assert_not_null(rp, "%s", hfft_last_error_message());
    hfftf_plan_info(rp, &info);
    cr_assert_eq(info.wisdom, 1, "r2c batch: info.wisdom %d (%s)", info.wisdom, info.wisdom_note);
    cr_assert_eq(info.ratio[0], 0.375, "r2c batch share %g", info.ratio[0]);
    hfftf_destroy_plan(rp);
    rp = hfftf_plan_many_dft_r2c64(1, &bn, 31, ri, NULL, 1, 257, bo, NULL, 1, 129, 0, &o);
    cr_assert_not_null(rp, "%s", hfft_last_error_message());
    hfftf_plan_info(rp, &info);
    cr_assert_neq(info.wisdom, 1, "a padded real batch took the dense one's wisdom");
    hfftf_destroy_plan(rp);
    free(ri);
    free(bi);
    free(bo);
    free(back);
    free(w);
    remove(path);
    rmdir(dir);
}

/* A CPU plan of 2D 64 x 96 f32 with these flags and wisdom setting (NULL: the
   default), made and destroyed: 0, or -1 with the error set. */
static int plan_64x96(unsigned flags, const char *wisdom) {
    int64_t n[2] = {64, 96};
    hfftf_complex *a = malloc(sizeof *a * 64 * 96);
    hfft_options o;
    hfft_options_init(&o);
    o.device = HFFT_DEVICE_NONE;
    o.threads = 2;
    o.wisdom = wisdom;
    hfftf_plan p = a ? hfftf_plan_dft(2, n, a, a, HFFT_FORWARD, flags, &o) : NULL;
    if (p)
        hfftf_destroy_plan(p);
    free(a);
    return p ? 0 : -1;
}

/* Such a plan whose lines FFTW measured, its wisdom then exported to fw. */
static int export_measured(const char *fw) {
    return plan_64x96(HFFT_MEASURE, NULL) ? -1 : hfft__fftw_wisdom_export(4, fw);
}

/* FFTW's own wisdom beside ours: its path; what a measured plan leaves in FFTW
   exported there and imported again; a file FFTW refuses is no error, and a plan
   whose wisdom setting points at it plans as before. */
Test(internals, fftw_wisdom_beside_ours) {
    char dir[] = "/tmp/hfft-fw-XXXXXX", path[512], fw[600], bad[600];
    cr_assert(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/wisdom", dir);
    cr_assert_eq(hfft__wisdom_fftw_path(path, 4, fw, sizeof fw), 0);
    cr_assert(strstr(fw, "/wisdom.fftw-f32") != NULL, "%s", fw);
    cr_assert_eq(hfft__wisdom_fftw_path(path, 8, bad, sizeof bad), 0);
    cr_assert(strstr(bad, "/wisdom.fftw-f64") != NULL, "%s", bad);
    cr_assert_eq(hfft__wisdom_fftw_path("none", 4, bad, sizeof bad), -1);
    cr_assert_eq(hfft__wisdom_fftw_path(path, 4, bad, 8), -1); /* too long for the buffer */
    /* a CPU plan whose lines FFTW measured, then its wisdom out and back in */
    cr_assert_eq(export_measured(fw), 0, "%s", hfft_last_error_message());
    FILE *f = fopen(fw, "r");
    char head[16] = {0};
    cr_assert(f && fread(head, 1, 7, f) == 7, "no file %s", fw);
    fclose(f);
    cr_assert(strncmp(head, "(fftw-3", 7) == 0, "%s begins '%s'", fw, head);
    cr_assert_eq(hfft__fftw_wisdom_import(4, fw), 1);
    /* FFTW refuses a file it did not write, and a missing one; plans go on */
    snprintf(bad, sizeof bad, "%s/junk.fftw-f32", dir);
    f = fopen(bad, "w");
    cr_assert(f);
    fputs("(not fftw wisdom)\n", f);
    fclose(f);
    cr_assert_eq(hfft__fftw_wisdom_import(4, bad), 0);
    snprintf(bad, sizeof bad, "%s/missing.fftw-f32", dir);
    cr_assert_eq(hfft__fftw_wisdom_import(4, bad), 0);
    snprintf(bad, sizeof bad, "%s/junk", dir);
    cr_assert_eq(plan_64x96(0, bad), 0, "a plan beside a refused FFTW wisdom file: %s",
                 hfft_last_error_message());
    remove(fw);
    snprintf(bad, sizeof bad, "%s/junk.fftw-f32", dir);
    remove(bad);
    rmdir(dir);
}

/* A process whose first FFTW call (single precision) is the import takes the file
   that another process's tuning wrote: FFTW signs wisdom with its planner's
   algorithms, which its threads add to (before the fix such a first import was
   refused, and every plan of a fresh process ran without the measured plans). */
Test(internals, fftw_wisdom_in_a_fresh_process) {
    char dir[] = "/tmp/hfft-fw2-XXXXXX", fw[600];
    cr_assert(mkdtemp(dir));
    snprintf(fw, sizeof fw, "%s/wisdom.fftw-f32", dir);
    pid_t pid = fork();
    cr_assert(pid >= 0);
    if (pid == 0)
        _exit(export_measured(fw) ? 1 : 0);
    int status = 0;
    cr_assert_eq(waitpid(pid, &status, 0), pid);
    cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0, "the writer failed");
    cr_assert_eq(hfft__fftw_wisdom_import(4, fw), 1, "a fresh process refused %s", fw);
    remove(fw);
    rmdir(dir);
}

/* What is available: MemAvailable, less where a cgroup's limit leaves less. */
Test(internals, host_available) {
    const char *mi = "MemTotal:       131072 kB\nMemFree:  1 kB\nMemAvailable:   1000 kB\n";
    cr_assert_eq(hfft__host_available_from(mi, NULL, NULL), 1024000);
    cr_assert_eq(hfft__host_available_from(mi, "max\n", "4096\n"), 1024000);
    cr_assert_eq(hfft__host_available_from(mi, "524288\n", "24288\n"), 500000);
    cr_assert_eq(hfft__host_available_from(mi, "2000000000\n", "1\n"), 1024000);
    cr_assert_eq(hfft__host_available_from(mi, "4096\n", "8192\n"), 0);
    cr_assert_eq(hfft__host_available_from("MemTotal: 5 kB\n", NULL, NULL), -1);
    cr_assert_eq(hfft__host_available_from(NULL, "1\n", "0\n"), -1);
}

/* A block beyond the host's memory fails with a status, before any page is touched
   (the kernel may grant it and end the process at the first touch).  Twice the
   machine's memory, which the kernel's default overcommit refuses too, so that
   without the check the test fails on the message rather than ends the run. */
Test(internals, hfft_malloc_beyond_the_host) {
    FILE *f = fopen("/proc/sys/vm/overcommit_memory", "r");
    int mode = -1;
    if (f) {
        if (fscanf(f, "%d", &mode) != 1)
            mode = -1;
        fclose(f);
    }
    long pages = sysconf(_SC_PHYS_PAGES), psize = sysconf(_SC_PAGESIZE);
    if (mode != 0 || pages <= 0 || psize <= 0) {
        cr_skip_test("overcommit mode %d: a refused request is not certain", mode);
        return;
    }
    size_t bytes = (size_t)pages * (size_t)psize * 2;
    void *m = hfft_malloc(bytes);
    cr_assert_null(m);
    cr_assert_eq(hfft_last_error(), HFFT_ERR_HOST_MEMORY);
    cr_assert(strstr(hfft_last_error_message(), "available") != NULL, "message '%s'",
              hfft_last_error_message());
}

Test(internals, wisdom_parser) {
    hfft__wisdom *w = calloc(1, sizeof *w);
    cr_assert(w);
    static const struct {
        const char *text;
        const char *needle; /* NULL: parses */
    } cases[] = {
        {"hfft-wisdom 1\nsignature s\n", NULL},
        {"# c\r\n\r\nhfft-wisdom 1\r\nsignature s\r\n  # indented comment\n", NULL},
        {"hfft-wisdom 1\nsignature s\nproblem prec=8 n=2x3x4 inplace=1 budget=0 ratio=1,0.5 "
         "slots=0 pass=0 schedule=2\n",
         NULL},
        {"hfft-wisdom 1\nsignature s\nlink h2d=1e10 d2h=1e10 duplex=2e10 rows=1024:0.5,4096:0.9\n",
         NULL},
        {"hfft-wisdom 1\nsignature s\nhost bw=1.4e11\n", NULL},
        {"hfft-wisdom 1\nsignature s\nlink h2d=1e10 d2h=1e10 duplex=2e10 cards=2 all_h2d=2e10 "
         "all_d2h=2e10 all_duplex=3e10\n",
         NULL},
        {"", "header"},
        {"hfft-wisdom 3\nsignature s\n", ":1"},
        {"hfft-wisdom 2\nsignature s\nproblem prec=4 n=4x6 kind=r2c\n", NULL},
        {"hfft-wisdom 1\n", "signature"},
        {"hfft-wisdom 1\nsignature s\nsignature t\n", ":3"},
        {"hfft-wisdom 1\nsignature s\nproblem n=4\n", ":3"},
        {"hfft-wisdom 1\nsignature s\nproblem prec=4\n", ":3"},
        {"hfft-wisdom 1\nsignature s\nproblem prec=4 n=0x4\n", ":3"},
        {"hfft-wisdom 1\nsignature s\nproblem prec=4 n=4 ratio=1.5\n", ":3"},
        {"hfft-wisdom 1\nsignature s\nproblem prec=4 n=4 slots=9\n", ":3"},
        {"hfft-wisdom 1\nsignature s\nproblem prec=4 n=4 schedule=3\n", ":3"},
        {"hfft-wisdom 1\nsignature s\nproblem prec=4 n=4 bogus=1\n", ":3"},
        {"hfft-wisdom 1\nsignature s\nproblem prec=4 n=4 howmany=8 inplace=1\n", NULL},
        {"hfft-wisdom 1\nsignature s\nproblem prec=4 n=4 howmany=0\n", ":3"},
        {"hfft-wisdom 1\nsignature s\nproblem prec=4 n=4x6 kind=r2c\n", NULL},
        {"hfft-wisdom 1\nsignature s\nproblem kind=c2r prec=8 n=5\n", NULL},
        {"hfft-wisdom 1\nsignature s\nproblem prec=4 n=4 kind=c2c\n", NULL},
        {"hfft-wisdom 1\nsignature s\nproblem prec=4 n=4 kind=R2C\n", ":3"},
        {"hfft-wisdom 1\nsignature s\nproblem prec=4 n=4 kind=\n", ":3"},
        {"hfft-wisdom 1\nsignature s\nproblem prec=4 n=4x4x4x4\n", ":3"},
        {"hfft-wisdom 1\nsignature s\nlink h2d=1e10\n", ":3"},
        /* all cards' rates: with their count, all three, or none */
        {"hfft-wisdom 1\nsignature s\nlink duplex=2e10 cards=2 all_h2d=2e10 all_d2h=2e10\n", ":3"},
        {"hfft-wisdom 1\nsignature s\nlink duplex=2e10 all_h2d=2e10 all_d2h=2e10 "
         "all_duplex=3e10\n",
         ":3"},
        {"hfft-wisdom 1\nsignature s\nlink duplex=2e10 cards=1 all_h2d=2e10 all_d2h=2e10 "
         "all_duplex=3e10\n",
         ":3"},
        {"hfft-wisdom 1\nsignature s\nlink duplex=2e10 cards=17 all_h2d=2e10 all_d2h=2e10 "
         "all_duplex=3e10\n",
         ":3"},
        {"hfft-wisdom 1\nsignature s\nlink duplex=2e10 cards=2\n", ":3"},
        {"hfft-wisdom 1\nsignature s\nwhatever\n", ":3"},
        {"hfft-wisdom 1\nsignature s\nhost\n", ":3"},
        {"hfft-wisdom 1\nsignature s\nhost bw=0\n", ":3"},
        {"hfft-wisdom 1\nsignature s\nhost bw=1e11 x=1\n", ":3"},
        {"hfft-wisdom 1\nsignature s\nhost copy=1e11\n", ":3"},
        {"hfft-wisdom 1\nsignature s\nhost bw=1e11\nhost bw=1e11\n", ":4"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int st = hfft__wisdom_parse(cases[i].text, "test.wisdom", w);
        if (!cases[i].needle) {
            cr_assert_eq(st, 0, "case %zu: %s", i, hfft_last_error_message());
        } else {
            cr_assert_eq(st, HFFT_ERR_WISDOM, "case %zu parsed", i);
            const char *m = hfft_last_error_message();
            cr_assert(strstr(m, "test.wisdom") && strstr(m, cases[i].needle),
                      "case %zu: message '%s' lacks '%s'", i, m, cases[i].needle);
        }
    }
    /* A line longer than the parser's buffer is an error, not an overflow. */
    size_t big = 5000;
    char *text = malloc(big + 64);
    int k = snprintf(text, big + 64, "hfft-wisdom 1\nsignature ");
    memset(text + k, 'x', big);
    text[k + big] = '\0';
    cr_assert_eq(hfft__wisdom_parse(text, "long", w), HFFT_ERR_WISDOM);
    free(text);
    char note[160];
    cr_assert_eq(hfft__signature_diff("a=1;b=2", "a=1;b=2", note, sizeof note), 0);
    cr_assert_eq(hfft__signature_diff("a=1;b=2", "a=1;b=3", note, sizeof note), 1);
    cr_assert(strstr(note, "b=3") && strstr(note, "b=2"), "note '%s'", note);
    /* a file signed before the device set was: the field it lacks */
    cr_assert_eq(hfft__signature_diff("a=1;cards=1", "a=1;cards=1;devices=0:x:0MiB", note,
                                      sizeof note),
                 1);
    cr_assert(strstr(note, "devices=0:x:0MiB here, not in the file"), "note '%s'", note);
    cr_assert_eq(hfft__signature_diff("a=1;b=2", "a=1", note, sizeof note), 1);
    cr_assert(strstr(note, "b=2 in the file, not here"), "note '%s'", note);
    free(w);
}

/*
 * A CPU share of a four-step plan that runs late (its jobs held until the GPU
 * asks, as cores taken by other work would hold them): near the end of its
 * own units the GPU takes back the CPU's last units, none of them started, in
 * both rounds, and the transform is still right.  Both precisions, both
 * directions, a batch of one; the emulated device (or the GPU where
 * HFFT_TEST_DEVICE=cuda: bench/gpu-check.sh; with HFFT_TEST_TWO_CARDS set, the
 * case over two cards too), fixed shares of one half.
 */
extern _Atomic int hfft__cpu_late;
static int late_device(void) {
    const char *d = getenv("HFFT_TEST_DEVICE");
    return d && strcmp(d, "cuda") == 0 ? HFFT_DEVICE_CUDA : HFFT_DEVICE_EMULATED;
}
Test(internals, four_step_takes_back_a_late_cpu) {
    int64_t n[2] = {96, 100};
    for (int prec = 4; prec <= 8; prec += 4)
        for (int sgn = 0; sgn < 2; sgn++) {
            int sign = sgn ? HFFT_BACKWARD : HFFT_FORWARD;
            size_t bytes = (size_t)(n[0] * n[1]) * tu_esize(prec);
            void *a = tu_alloc(bytes), *b = tu_alloc(bytes);
            hfft_ref_fill(prec, a, n[0] * n[1], tu_seed());
            tu_poison(b, bytes);
            hfft_options o;
            hfft_options_init(&o);
            o.device = late_device();
            o.devices = "0"; /* a four-step CPU share: one card */
            o.device_memory = prec == 4 ? 64 << 10 : 128 << 10;
            o.threads = 2;
            o.round_ratio[0] = o.round_ratio[1] = 0.5;
            tplan p = tp_dft(prec, 2, n, a, b, sign, 0, &o);
            cr_assert(p.p, "%s", hfft_last_error_message());
            hfft_info info;
            tp_info(p, &info);
            cr_assert_eq(info.schedule, 4, "f%d: schedule %d", prec * 8, info.schedule);
            cr_assert_eq(info.placement, 2, "f%d: placement %d", prec * 8, info.placement);
            hfft__plan *q = (hfft__plan *)p.p;
            atomic_store(&hfft__cpu_late, 1);
            int st = tp_execute(p);
            atomic_store(&hfft__cpu_late, 0);
            cr_assert_eq(st, 0, "%s", hfft_last_error_message());
            for (int h = 0; h < 2; h++)
                cr_assert_gt(hfft__cpu_taken(q->cpu, h), 0,
                             "f%d sign %d round %d: the GPU took nothing back", prec * 8, sign, h);
            double e = hfft_ref_error(prec, 2, n, a, b, sign, 1);
            cr_assert(e >= 0 && e < tu_tol(prec), "f%d sign %d: error %g", prec * 8, sign, e);
            /* and on time, the same plan again: right whatever it takes back */
            tu_poison(b, bytes);
            cr_assert_eq(tp_execute(p), 0, "%s", hfft_last_error_message());
            e = hfft_ref_error(prec, 2, n, a, b, sign, 1);
            cr_assert(e >= 0 && e < tu_tol(prec), "f%d sign %d, on time: error %g", prec * 8, sign,
                      e);
            tp_destroy(p);
            tu_free(a);
            tu_free(b);
        }
    /* r2c: real rows in round A (the CPU's staged through its buffers) */
    int64_t nr[2] = {64, 16384};
    size_t rbytes = (size_t)(nr[0] * nr[1]) * sizeof(float);
    size_t cbytes = (size_t)(nr[0] * (nr[1] / 2 + 1)) * sizeof(hfftf_complex);
    float *x = tu_alloc(rbytes);
    hfftf_complex *y = tu_alloc(cbytes);
    for (int64_t i = 0; i < nr[0] * nr[1]; i++)
        x[i] = (float)((i * 7919) % 1000) / 1000.0f - 0.5f;
    tu_poison(y, cbytes);
    hfft_options o;
    hfft_options_init(&o);
    o.device = late_device();
    o.devices = "0";
    o.device_memory = 3 << 20;
    o.threads = 2;
    o.round_ratio[0] = o.round_ratio[1] = 0.5;
    hfftf_plan p = hfftf_plan_dft_r2c(2, nr, x, y, 0, &o);
    cr_assert(p, "%s", hfft_last_error_message());
    hfft_info info;
    hfftf_plan_info(p, &info);
    cr_assert_eq(info.schedule, 4, "r2c: schedule %d", info.schedule);
    cr_assert_eq(info.placement, 2, "r2c: placement %d", info.placement);
    atomic_store(&hfft__cpu_late, 1);
    int st = hfftf_execute(p);
    atomic_store(&hfft__cpu_late, 0);
    cr_assert_eq(st, 0, "%s", hfft_last_error_message());
    hfft__plan *q = (hfft__plan *)(void *)p;
    for (int h = 0; h < 2; h++) {
        cr_assert_gt(hfft__cpu_taken(q->cpu, h), 0, "r2c round %d: nothing taken back", h);
        cr_assert_gt(hfft__cpu_gpu_share(q->cpu, h), info.ratio[h],
                     "r2c round %d: the GPU's share done is not above its planned one", h);
        hfft_info after;
        hfftf_plan_info(p, &after);
        cr_assert_float_eq(after.done_ratio[h], hfft__cpu_gpu_share(q->cpu, h), 1e-12,
                           "r2c round %d: hfft_info.done_ratio %g", h, after.done_ratio[h]);
    }
    double e = hfft_ref_error_many(4, 1, 2, nr, 1, x, y, HFFT_FORWARD, 1);
    cr_assert(e >= 0 && e < tu_tol(4), "r2c: error %g", e);
    hfftf_destroy_plan(p);
    tu_free(x);
    tu_free(y);
}

/*
 * The same for the plain schedule's hybrid rounds: rows, planes, columns (with
 * and without outer indices), real rows (out of place), in place and out, over one and two
 * emulated cards.  The CPU's jobs are held until the GPU asks; the GPU takes
 * back a suffix of the CPU's units in every round it shares, the share it did
 * is above the planned one, and the transform is right against FFTW, late and
 * again on time.
 */
typedef struct late_case {
    const char *what;
    int prec, rank;
    int64_t n[3];
    int inplace, r2c;
    int64_t budget;
    const char *devices;
    int rounds; /* rounds the plan must have */
} late_case;

static void late_check(const late_case *k, void *plan, int prec, const hfft_info *info) {
    hfft__plan *q = (hfft__plan *)plan;
    cr_assert_eq(info->schedule, 1, "%s: schedule %d", k->what, info->schedule);
    cr_assert_eq(info->placement, 2, "%s: placement %d", k->what, info->placement);
    cr_assert_eq(info->rounds, k->rounds, "%s f%d: %d rounds", k->what, prec * 8, info->rounds);
    for (int h = 0; h < info->rounds; h++) {
        cr_assert_gt(hfft__cpu_taken(q->cpu, h), 0, "%s f%d round %d: the GPU took nothing back",
                     k->what, prec * 8, h);
        cr_assert_gt(hfft__cpu_gpu_share(q->cpu, h), info->ratio[h],
                     "%s f%d round %d: the GPU's share done is not above its planned one", k->what,
                     prec * 8, h);
        cr_assert_float_eq(info->done_ratio[h], hfft__cpu_gpu_share(q->cpu, h), 1e-12,
                           "%s f%d round %d: hfft_info.done_ratio %g", k->what, prec * 8, h,
                           info->done_ratio[h]);
    }
}

Test(internals, plain_takes_back_a_late_cpu) {
    static const late_case cases[] = {
        {"2D in place", 4, 2, {64, 1024}, 1, 0, 64 << 10, NULL, 2},
        {"2D in place", 8, 2, {64, 1024}, 1, 0, 128 << 10, NULL, 2},
        {"3D planes", 4, 3, {16, 16, 64}, 0, 0, 96 << 10, NULL, 2},
        {"3D planes", 8, 3, {16, 16, 64}, 1, 0, 192 << 10, NULL, 2},
        {"3D planes cut", 4, 3, {12, 32, 1024}, 1, 0, 96 << 10, NULL, 3},
        {"3D over two cards", 4, 3, {16, 16, 64}, 1, 0, 96 << 10, "0,1", 2},
        {"2D r2c", 4, 2, {64, 2048}, 0, 1, 64 << 10, NULL, 2},
        {"2D r2c", 8, 2, {64, 2048}, 0, 1, 128 << 10, NULL, 2},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const late_case *k = &cases[i];
        if (k->devices && late_device() == HFFT_DEVICE_CUDA && !getenv("HFFT_TEST_TWO_CARDS"))
            continue; /* on the GPU: two cards only where the machine has them */
        int prec = k->prec;
        int64_t total = k->n[0] * k->n[1] * (k->rank == 3 ? k->n[2] : 1);
        int64_t last = k->n[k->rank - 1], half = total / last * (last / 2 + 1);
        size_t es = tu_esize(prec);
        size_t ibytes =
            k->r2c ? (size_t)total * (es / 2) : (size_t)total * es; /* r2c: out of place */
        size_t obytes = k->r2c ? (size_t)half * es : (size_t)total * es;
        void *a = tu_alloc(ibytes > obytes ? ibytes : obytes);
        void *b = k->inplace ? a : tu_alloc(obytes);
        hfft_options o;
        hfft_options_init(&o);
        o.device = late_device();
        o.device_memory = k->budget;
        o.devices = k->devices;
        o.threads = 2;
        for (size_t h = 0; h < sizeof o.round_ratio / sizeof o.round_ratio[0]; h++)
            o.round_ratio[h] = 0.5;
        for (int rep = 0; rep < 2; rep++) {
            /* rep 0 late, rep 1 on time; fresh input each */
            hfft_ref_fill(prec, a, k->r2c ? total / 2 : total, tu_seed()); /* r2c: total reals */
            void *ref = tu_alloc(ibytes);
            memcpy(ref, a, ibytes);
            if (!k->inplace)
                tu_poison(b, obytes);
            void *p;
            hfft_info info;
            if (k->r2c) {
                /* out of place it would stream four-step: plain asked for */
                unsigned fl = HFFT_SCHEDULE_PLAIN;
                p = prec == 4 ? (void *)hfftf_plan_dft_r2c(k->rank, k->n, a, b, fl, &o)
                              : (void *)hfft_plan_dft_r2c(k->rank, k->n, a, b, fl, &o);
                cr_assert(p, "%s: %s", k->what, hfft_last_error_message());
                if (prec == 4)
                    hfftf_plan_info(p, &info);
                else
                    hfft_plan_info(p, &info);
                memcpy(a, ref, ibytes); /* planning may have touched it */
            } else {
                tplan t = tp_dft(prec, k->rank, k->n, a, b, HFFT_FORWARD, HFFT_SCHEDULE_PLAIN, &o);
                cr_assert(t.p, "%s: %s", k->what, hfft_last_error_message());
                p = t.p;
                tp_info(t, &info);
                memcpy(a, ref, ibytes);
            }
            atomic_store(&hfft__cpu_late, rep == 0);
            int st = prec == 4 ? hfftf_execute(p) : hfft_execute(p);
            atomic_store(&hfft__cpu_late, 0);
            cr_assert_eq(st, 0, "%s: %s", k->what, hfft_last_error_message());
            if (prec == 4)
                hfftf_plan_info(p, &info);
            else
                hfft_plan_info(p, &info);
            if (rep == 0)
                late_check(k, p, prec, &info);
            double e = k->r2c
                           ? hfft_ref_error_many(prec, 1, k->rank, k->n, 1, ref, b, HFFT_FORWARD, 1)
                           : hfft_ref_error(prec, k->rank, k->n, ref, b, HFFT_FORWARD, 1);
            cr_assert(e >= 0 && e < tu_tol(prec), "%s f%d %s: error %g", k->what, prec * 8,
                      rep ? "on time" : "late", e);
            if (prec == 4)
                hfftf_destroy_plan(p);
            else
                hfft_destroy_plan(p);
            tu_free(ref);
        }
        if (b != a)
            tu_free(b);
        tu_free(a);
    }
}

/* Whether any operation that operation i of card k in the traced plan p is ordered
   after, directly or through others, ran on another card (*seen_other: the first). */
static int after_another_card(hfft__plan *p, int k, int i, int *seen_other) {
    int cap = 1 << 16, top = 0;
    int *stack = malloc((size_t)cap * 2 * sizeof *stack);
    char *seen[HFFT_MAX_CARDS] = {0};
    for (int c = 0; c < p->ncard; c++)
        seen[c] = calloc(1 << 16, 1);
    int other = 0;
    stack[top++] = k;
    stack[top++] = i;
    while (top > 0) {
        int op = stack[--top], card = stack[--top];
        int dc[256], dop[256];
        int n = hfft__trace_deps(p->trace[card], op, dc, dop, 256);
        cr_assert(n >= 0 && n <= 256, "card %d op %d: %d orderings", card, op, n);
        for (int j = 0; j < n; j++) {
            if (dc[j] != k && !other) {
                other = 1;
                *seen_other = dc[j];
            }
            if (seen[dc[j]][dop[j]])
                continue;
            seen[dc[j]][dop[j]] = 1;
            cr_assert_lt(top + 2, 2 * cap);
            stack[top++] = dc[j];
            stack[top++] = dop[j];
        }
    }
    for (int c = 0; c < p->ncard; c++)
        free(seen[c]);
    free(stack);
    return other;
}

/*
 * One trip over 2, 4 and 8 emulated cards: every copy in and every piece of the
 * exchange a card issues is ordered after that card's own operations only (its
 * streams and its own events), never after another card's, so that no link waits
 * for another card's traffic (four cards once ran slower than two where the
 * copies in queued behind the exchange); each card's copies out, which need every
 * card's columns, come after other cards' exchanges.  2D and 3D, both precisions.
 */
Test(internals, one_trip_copies_wait_for_their_own_card) {
    static const struct {
        int prec, rank;
        int64_t n[3];
    } shapes[] = {{4, 2, {256, 96, 0}}, {8, 2, {120, 64, 0}}, {4, 3, {64, 16, 12}}};
    static const char *devices[] = {"0,1", "0,1,2,3", "0,1,2,3,4,5,6,7"};
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++)
        for (int d = 0; d < 3; d++) {
            int64_t total = shapes[s].n[0] * shapes[s].n[1] * (shapes[s].rank == 3 ? shapes[s].n[2] : 1);
            size_t bytes = (size_t)total * (size_t)tu_esize(shapes[s].prec);
            hfft_options o;
            hfft_options_init(&o);
            o.device = HFFT_DEVICE_EMULATED;
            o.devices = devices[d];
            o.trace = 1;
            int ncard = 2 << d;
            /* each card holds its share with room for its chunks, so the cards share one
               trip in several chunks */
            o.device_memory = (int64_t)(bytes / (size_t)ncard) * 3 + 4096;
            void *a = tu_alloc(bytes), *b = tu_alloc(bytes);
            hfft_ref_fill(shapes[s].prec, a, total, tu_seed());
            tplan t = tp_dft(shapes[s].prec, shapes[s].rank, shapes[s].n, a, b, HFFT_FORWARD,
                             HFFT_GPU_ONLY, &o);
            cr_assert(t.p, "%s", hfft_last_error_message());
            cr_assert_eq(tp_execute(t), 0, "%s", hfft_last_error_message());
            hfft_info info;
            tp_info(t, &info);
            cr_assert(info.schedule == 3 && info.cards == ncard,
                      "shape %zu: schedule %d on %d cards, not one trip on %d", s, info.schedule,
                      info.cards, ncard);
            hfft__plan *p = (hfft__plan *)t.p;
            int copies = 0, outs_after_others = 0;
            for (int k = 0; k < ncard; k++) {
                int n = hfft__trace_read(p->trace[k], NULL, 0);
                cr_assert(n > 0 && n < (1 << 16));
                hfft_trace_op *ops = calloc((size_t)n, sizeof *ops);
                cr_assert_eq(hfft__trace_read(p->trace[k], ops, n), n);
                for (int i = 0; i < n; i++) {
                    int copy_in = ops[i].kind == HFFT_TRACE_H2D;
                    int exchange = ops[i].kind == HFFT_TRACE_D2D;
                    int other = -1;
                    if (copy_in || exchange) {
                        copies++;
                        cr_assert(!after_another_card(p, k, i, &other),
                                  "shape %zu, %d cards: card %d's %s (operation %d) waits for "
                                  "card %d",
                                  s, ncard, k, ops[i].name, i, other);
                    } else if (ops[i].kind == HFFT_TRACE_D2H) {
                        outs_after_others += after_another_card(p, k, i, &other);
                    }
                }
                free(ops);
            }
            cr_assert_gt(copies, 2 * ncard);
            cr_assert_gt(outs_after_others, 0, "shape %zu, %d cards: no copy out comes after "
                                               "another card's exchange", s, ncard);
            double e = hfft_ref_error(shapes[s].prec, shapes[s].rank, shapes[s].n, a, b,
                                      HFFT_FORWARD, 1);
            cr_assert(e >= 0 && e < tu_tol(shapes[s].prec), "error %g", e);
            tp_destroy(t);
            tu_free(a);
            tu_free(b);
        }
}

/* A traced 2D plan on the emulated cards `devices` (device_memory: 0 for the
   default), executed once on fresh random input in *a, out of place into *b. */
static tplan traced_2d(int prec, const int64_t n[2], const char *devices, int64_t memory,
                       int pinning, void **a, void **b) {
    size_t bytes = (size_t)(n[0] * n[1]) * (size_t)tu_esize(prec);
    hfft_options o;
    hfft_options_init(&o);
    o.device = HFFT_DEVICE_EMULATED;
    o.devices = devices;
    o.trace = 1;
    o.device_memory = memory;
    o.pinning = pinning;
    *a = tu_alloc(bytes);
    *b = tu_alloc(bytes);
    hfft_ref_fill(prec, *a, n[0] * n[1], tu_seed());
    tplan t = tp_dft(prec, 2, n, *a, *b, HFFT_FORWARD, HFFT_GPU_ONLY, &o);
    cr_assert(t.p, "%s", hfft_last_error_message());
    cr_assert_eq(tp_execute(t), 0, "%s", hfft_last_error_message());
    return t;
}

/* One trip over several cards copies out from every card at once: each card's first
   block of columns is issued before card 0's last, not after all of card 0's
   blocks (whose launches would fill the queue and hold the host on card 0 while
   the other cards' links stood idle). */
Test(internals, one_trip_copies_out_from_every_card_at_once) {
    static const char *devices[] = {"0,1", "0,1,2,3", "0,1,2,3,4,5,6,7"};
    const int64_t n[2] = {8, 65536};
    for (int d = 0; d < 3; d++)
        for (int prec = 4; prec <= 8; prec += 4) {
            int ncard = 2 << d;
            void *a, *b;
            tplan t = traced_2d(prec, n, devices[d], 0, HFFT_PINNING_AUTO, &a, &b);
            hfft_info info;
            tp_info(t, &info);
            cr_assert(info.schedule == 3 && info.cards == ncard,
                      "schedule %d on %d cards, not one trip on %d", info.schedule, info.cards,
                      ncard);
            hfft__plan *p = (hfft__plan *)t.p;
            int64_t first[HFFT_MAX_CARDS], last[HFFT_MAX_CARDS];
            int outs[HFFT_MAX_CARDS];
            for (int k = 0; k < ncard; k++) {
                first[k] = INT64_MAX, last[k] = -1, outs[k] = 0;
                int m = hfft__trace_read(p->trace[k], NULL, 0);
                cr_assert(m > 0 && m < (1 << 16), "card %d traced %d operations", k, m);
                hfft_trace_op *ops = calloc((size_t)m, sizeof *ops);
                cr_assert(ops);
                cr_assert_eq(hfft__trace_read(p->trace[k], ops, m), m);
                for (int i = 0; i < m; i++) {
                    if (ops[i].kind != HFFT_TRACE_D2H)
                        continue;
                    int64_t q = hfft__trace_issued(p->trace[k], i);
                    cr_assert_geq(q, 0);
                    first[k] = q < first[k] ? q : first[k];
                    last[k] = q > last[k] ? q : last[k];
                    outs[k]++;
                }
                free(ops);
            }
            cr_assert_geq(outs[0], 2, "card 0 copies out in %d block(s): the test needs two",
                          outs[0]);
            for (int k = 1; k < ncard; k++)
                cr_assert(outs[k] > 0, "card %d copies nothing out", k);
            for (int k = 1; k < ncard; k++)
                cr_assert_lt(first[k], last[0],
                             "%s, %d cards: card %d's first copy out issued after card 0's last",
                             prec == 4 ? "f32" : "f64", ncard, k);
            double e = hfft_ref_error(prec, 2, n, a, b, HFFT_FORWARD, 1);
            cr_assert(e >= 0 && e < tu_tol(prec), "error %g", e);
            tp_destroy(t);
            tu_free(a);
            tu_free(b);
        }
}

/*
 * One trip over 2, 3 and 4 emulated cards of arrays whose rows are narrow runs
 * dimension 0 four-step: each card twiddles its own values of k1 and copies out
 * its share, S / n, in runs of whole rows (the column blocks' copies of part of
 * every row slow the copy engines beside the column transforms).  Several groups
 * land on each card (each landing buffer reused), with blocks gathered on the
 * card or not, 2D and 3D; where dimension 0 has no factor the cards can share (a
 * prime), the column blocks instead.  Against FFTW, in and out of place.
 */
Test(internals, one_trip_over_cards_runs_dimension_0_four_step) {
    static const struct {
        const char *devices;
        int prec, rank;
        int64_t n[3];
        int fs;
    } cases[] = {{"0,1", 4, 2, {960, 40, 0}, 1},     {"0,1,2", 4, 2, {960, 40, 0}, 1},
                 {"0,1,2,3", 8, 2, {4096, 24, 0}, 1}, {"0,1", 8, 2, {4096, 24, 0}, 1},
                 {"3,0,2", 4, 3, {240, 6, 5}, 1},     {"0,1", 4, 2, {257, 40, 0}, 0}};
    for (size_t s = 0; s < sizeof cases / sizeof cases[0]; s++)
        for (int inplace = 0; inplace < 2; inplace++) {
            int prec = cases[s].prec, rank = cases[s].rank;
            int64_t row = rank == 3 ? cases[s].n[1] * cases[s].n[2] : cases[s].n[1];
            int64_t total = cases[s].n[0] * row;
            size_t bytes = (size_t)total * (size_t)tu_esize(prec);
            hfft_options o;
            hfft_options_init(&o);
            o.device = HFFT_DEVICE_EMULATED;
            o.devices = cases[s].devices;
            o.trace = 1;
            void *a = tu_alloc(bytes), *b = inplace ? a : tu_alloc(bytes);
            hfft_ref_fill(prec, a, total, tu_seed());
            void *orig = tu_dup(a, bytes);
            if (!inplace)
                tu_poison(b, bytes);
            tplan t = tp_dft(prec, rank, cases[s].n, a, b, HFFT_FORWARD, HFFT_GPU_ONLY, &o);
            cr_assert(t.p, "%s", hfft_last_error_message());
            cr_assert_eq(tp_execute(t), 0, "%s", hfft_last_error_message());
            hfft_info info;
            tp_info(t, &info);
            int ncard = (int)(strlen(cases[s].devices) + 1) / 2;
            cr_assert(info.schedule == 3 && info.cards == ncard,
                      "case %zu: schedule %d on %d cards, not one trip on %d", s, info.schedule,
                      info.cards, ncard);
            hfft__plan *p = (hfft__plan *)t.p;
            for (int k = 0; k < ncard; k++) {
                int m = hfft__trace_read(p->trace[k], NULL, 0);
                cr_assert(m > 0 && m < (1 << 16), "card %d traced %d operations", k, m);
                hfft_trace_op *ops = calloc((size_t)m, sizeof *ops);
                cr_assert(ops);
                cr_assert_eq(hfft__trace_read(p->trace[k], ops, m), m);
                int twiddles = 0;
                int64_t out = 0;
                for (int i = 0; i < m; i++) {
                    twiddles += ops[i].kind == HFFT_TRACE_COMPUTE &&
                                strcmp(ops[i].name, "twiddle") == 0;
                    if (ops[i].kind == HFFT_TRACE_D2H) {
                        out += ops[i].bytes;
                        if (cases[s].fs)
                            cr_assert_eq(ops[i].bytes % (row * tu_esize(prec)), 0,
                                         "case %zu card %d: a copy out of %lld bytes, not "
                                         "whole rows",
                                         s, k, (long long)ops[i].bytes);
                    }
                }
                free(ops);
                cr_assert_eq(twiddles > 0, cases[s].fs, "case %zu card %d: %d twiddles", s, k,
                             twiddles);
                if (cases[s].fs)
                    cr_assert_eq(out, (int64_t)bytes / ncard,
                                 "case %zu card %d copied out %lld of %zu", s, k,
                                 (long long)out, bytes);
            }
            cr_assert(info.link_bytes[0] == (int64_t)bytes && info.link_bytes[1] == (int64_t)bytes);
            double e = hfft_ref_error(prec, rank, cases[s].n, orig, b, HFFT_FORWARD, 1);
            cr_assert(e >= 0 && e < tu_tol(prec), "case %zu %s: error %g", s,
                      inplace ? "in place" : "out of place", e);
            tp_destroy(t);
            tu_free(orig);
            if (b != a)
                tu_free(b);
            tu_free(a);
        }
}

/* Several cards streaming their shares of each round (arrays larger than the cards):
   each card's engine is ordered after its own card's operations only, the cards
   meeting at each round's end on the host; within a card, operations come after
   others on its other streams (its computes after its copies in), straight from
   pinned arrays and through staging buffers, whose streams only wait and record. */
Test(internals, streaming_cards_wait_for_their_own) {
    static const char *devices[] = {"0,1", "0,1,2,3", "0,1,2,3,4,5,6,7"};
    const int64_t n[2] = {256, 192};
    for (int d = 0; d < 3; d++)
        for (int prec = 4; prec <= 8; prec += 4) {
            size_t bytes = (size_t)(n[0] * n[1]) * (size_t)tu_esize(prec);
            int ncard = 2 << d;
            void *a, *b;
            tplan t = traced_2d(prec, n, devices[d], (int64_t)bytes / 32,
                                prec == 8 ? HFFT_PINNING_STAGE : HFFT_PINNING_AUTO, &a, &b);
            hfft_info info;
            tp_info(t, &info);
            cr_assert(info.schedule != 3 && info.cards == ncard, "schedule %d on %d cards",
                      info.schedule, info.cards);
            cr_assert(prec == 4 || info.host_bytes > 0, "staged, yet no staging buffers");
            hfft__plan *p = (hfft__plan *)t.p;
            int traced = 0;
            for (int k = 0; k < ncard; k++) {
                int count = hfft__trace_read(p->trace[k], NULL, 0);
                cr_assert(count > 0 && count < (1 << 16));
                hfft_trace_op *ops = calloc((size_t)count, sizeof *ops);
                cr_assert_eq(hfft__trace_read(p->trace[k], ops, count), count);
                int across = 0; /* orderings between two streams of the card */
                for (int i = 0; i < count; i++) {
                    int other = -1;
                    cr_assert(!after_another_card(p, k, i, &other),
                              "%d cards f%d: card %d's operation %d waits for card %d", ncard,
                              prec * 8, k, i, other);
                    int dc[256], dop[256];
                    int nd = hfft__trace_deps(p->trace[k], i, dc, dop, 256);
                    cr_assert(nd >= 0 && nd <= 256);
                    for (int j = 0; j < nd; j++)
                        across += dc[j] == k && ops[dop[j]].stream != ops[i].stream;
                    traced++;
                }
                cr_assert_gt(across, 0, "%d cards f%d: card %d's streams never wait for each "
                                        "other", ncard, prec * 8, k);
                free(ops);
            }
            cr_assert_gt(traced, 4 * ncard);
            double e = hfft_ref_error(prec, 2, n, a, b, HFFT_FORWARD, 1);
            cr_assert(e >= 0 && e < tu_tol(prec), "error %g", e);
            tp_destroy(t);
            tu_free(a);
            tu_free(b);
        }
}
