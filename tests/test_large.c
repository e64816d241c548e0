/*
 * test_large.c: a CPU transform of more than 2^31 elements (2D 65536 x 32769
 * single precision, in place, 17 GiB), where 32-bit index arithmetic would
 * break.  Too big for an FFTW reference, so it is checked by Parseval's
 * identity and by a few output elements computed directly in long double
 * before the transform.  Runs only with HFFT_TEST_LARGE=1 (and 20 GiB of RAM).
 */
#include <criterion/criterion.h>
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ref.h"
#include "util.h"

TestSuite(large, .init = tu_setup, .fini = tu_env_clear, .timeout = 7200);

#define N0 65536
#define N1 32769
#define NSPOT 4
#define PI_L 3.141592653589793238462643383279502884L

static const int64_t spots[NSPOT][2] = {{0, 0}, {1, 32768}, {65535, 12345}, {32768, 1}};

typedef struct part {
    float *a;
    int64_t r0, r1; /* rows */
    uint64_t seed;
    const long double *t1; /* NSPOT x N1 twiddles (re, im) for k1 */
    const long double *t0; /* NSPOT x N0 twiddles for k0 */
    long double energy;
    long double acc[NSPOT][2];
} part;

static void *fill_part(void *arg) {
    part *p = arg;
    for (int64_t r = p->r0; r < p->r1; r++)
        hfft_ref_fill(4, p->a + 2 * r * N1, N1, p->seed + (uint64_t)r);
    return NULL;
}

/* Energy, and sum_n0 W0^(k0 n0) sum_n1 x W1^(k1 n1) over this part's rows. */
static void *sum_part(void *arg) {
    part *p = arg;
    p->energy = 0;
    memset(p->acc, 0, sizeof p->acc);
    for (int64_t r = p->r0; r < p->r1; r++) {
        const float *x = p->a + 2 * r * N1;
        long double row[NSPOT][2] = {{0}};
        long double e = 0;
        for (int64_t c = 0; c < N1; c++) {
            long double xr = x[2 * c], xi = x[2 * c + 1];
            e += xr * xr + xi * xi;
            for (int s = 0; s < NSPOT; s++) {
                long double wr = p->t1[2 * (s * N1 + c)], wi = p->t1[2 * (s * N1 + c) + 1];
                row[s][0] += xr * wr - xi * wi;
                row[s][1] += xr * wi + xi * wr;
            }
        }
        p->energy += e;
        for (int s = 0; s < NSPOT; s++) {
            long double wr = p->t0[2 * (s * N0 + r)], wi = p->t0[2 * (s * N0 + r) + 1];
            p->acc[s][0] += row[s][0] * wr - row[s][1] * wi;
            p->acc[s][1] += row[s][0] * wi + row[s][1] * wr;
        }
    }
    return NULL;
}

static void *energy_part(void *arg) {
    part *p = arg;
    long double e = 0;
    for (int64_t i = 2 * p->r0 * N1; i < 2 * p->r1 * N1; i++)
        e += (long double)p->a[i] * p->a[i];
    p->energy = e;
    return NULL;
}

static void run_parts(part *parts, int np, void *(*fn)(void *)) {
    pthread_t tid[64];
    for (int i = 0; i < np; i++)
        cr_assert_eq(pthread_create(&tid[i], NULL, fn, &parts[i]), 0);
    for (int i = 0; i < np; i++)
        pthread_join(tid[i], NULL);
}

Test(large, cpu_2d_more_than_2_31_elements) {
    const char *gate = getenv("HFFT_TEST_LARGE");
    if (!gate || strcmp(gate, "1") != 0)
        cr_skip_test("large test skipped: a 17 GiB transform; set HFFT_TEST_LARGE=1 to run it");
    int64_t total = (int64_t)N0 * N1;
    cr_assert_gt(total, 1LL << 31);
    size_t bytes = (size_t)total * 8;
    long pages = sysconf(_SC_PHYS_PAGES), psize = sysconf(_SC_PAGESIZE);
    if (pages > 0 && psize > 0 && (double)pages * (double)psize < (double)bytes + 3e9)
        cr_skip_test("large test skipped: needs about %.0f GiB of RAM; this machine has %.0f GiB",
                     ((double)bytes + 3e9) / 1073741824.0,
                     (double)pages * (double)psize / 1073741824.0);
    float *a = malloc(bytes);
    cr_assert(a, "could not allocate %zu bytes", bytes);

    int np = (int)sysconf(_SC_NPROCESSORS_ONLN);
    np = np < 1 ? 1 : np > 64 ? 64 : np;
    long double *t1 = malloc(sizeof(long double) * 2 * NSPOT * N1);
    long double *t0 = malloc(sizeof(long double) * 2 * NSPOT * N0);
    cr_assert(t1 && t0);
    for (int s = 0; s < NSPOT; s++) {
        for (int64_t c = 0; c < N1; c++) {
            long double th = -2.0L * PI_L * (long double)((spots[s][1] * c) % N1) / N1;
            t1[2 * (s * N1 + c)] = cosl(th);
            t1[2 * (s * N1 + c) + 1] = sinl(th);
        }
        for (int64_t r = 0; r < N0; r++) {
            long double th = -2.0L * PI_L * (long double)((spots[s][0] * r) % N0) / N0;
            t0[2 * (s * N0 + r)] = cosl(th);
            t0[2 * (s * N0 + r) + 1] = sinl(th);
        }
    }
    part parts[64];
    uint64_t seed = tu_seed();
    for (int i = 0; i < np; i++) {
        memset(&parts[i], 0, sizeof parts[i]);
        parts[i].a = a;
        parts[i].r0 = (int64_t)N0 * i / np;
        parts[i].r1 = (int64_t)N0 * (i + 1) / np;
        parts[i].seed = seed * 1000003u;
        parts[i].t0 = t0;
        parts[i].t1 = t1;
    }
    run_parts(parts, np, fill_part);
    run_parts(parts, np, sum_part);
    long double e_in = 0, ref[NSPOT][2] = {{0}};
    for (int i = 0; i < np; i++) {
        e_in += parts[i].energy;
        for (int s = 0; s < NSPOT; s++) {
            ref[s][0] += parts[i].acc[s][0];
            ref[s][1] += parts[i].acc[s][1];
        }
    }

    hfftf_plan p = hfftf_plan_2d(N0, N1, (hfftf_complex *)a, (hfftf_complex *)a, HFFT_FORWARD,
                                 HFFT_CPU_ONLY);
    cr_assert(p, "%s", hfft_last_error_message());
    cr_assert_eq(hfftf_execute(p), 0, "%s", hfft_last_error_message());
    hfftf_destroy_plan(p);

    run_parts(parts, np, energy_part);
    long double e_out = 0;
    for (int i = 0; i < np; i++)
        e_out += parts[i].energy;
    /* Parseval: sum |X|^2 = N sum |x|^2. */
    double rel = (double)fabsl(e_out - (long double)total * e_in) / (double)((long double)total * e_in);
    cr_assert(rel < 1e-6, "Parseval: sum |X|^2 = %.10Lg, N sum |x|^2 = %.10Lg, relative %.3g (seed %llu)",
              e_out, (long double)total * e_in, rel, (unsigned long long)seed);
    /* Spot checks, relative to the RMS magnitude of X. */
    long double rms = sqrtl(e_out / (long double)total);
    for (int s = 0; s < NSPOT; s++) {
        int64_t i = spots[s][0] * N1 + spots[s][1];
        long double dr = a[2 * i] - ref[s][0], di = a[2 * i + 1] - ref[s][1];
        double err = (double)(sqrtl(dr * dr + di * di) / rms);
        cr_assert(err < 1e-5, "X[%lld, %lld] = (%g, %g), direct sum (%.9Lg, %.9Lg): error %.3g of "
                              "the RMS (seed %llu)",
                  (long long)spots[s][0], (long long)spots[s][1], a[2 * i], a[2 * i + 1], ref[s][0],
                  ref[s][1], err, (unsigned long long)seed);
    }
    free(t0);
    free(t1);
    free(a);
}
