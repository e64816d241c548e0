/*
 * ref.c: higher-precision FFTW references and the error metric shared by the
 * demo, the benchmarks and the tests.
 */
#include "ref.h"

#include <fftw3.h>
#include <math.h>
#include <stdlib.h>
#include <time.h>

double hfft_ref_now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

void hfft_ref_fill(int prec, void *data, int64_t count, uint64_t seed) {
    uint64_t s = seed * 0x9E3779B97F4A7C15ull + 0x632BE59BD9B4E019ull;
    for (int64_t i = 0; i < 2 * count; i++) {
        /* splitmix64: fast, and fresh for every seed */
        uint64_t z = (s += 0x9E3779B97F4A7C15ull);
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
        z ^= z >> 31;
        double v = (double)(z >> 11) * 0x1.0p-53 - 0.5;
        if (prec == 4)
            ((float *)data)[i] = (float)v;
        else
            ((double *)data)[i] = v;
    }
}

static void dims_of(int rank, const int64_t *n, fftw_iodim64 *d, fftwl_iodim64 *dl) {
    int64_t stride = 1;
    for (int k = rank - 1; k >= 0; k--) {
        if (d) {
            d[k].n = n[k];
            d[k].is = d[k].os = stride;
        }
        if (dl) {
            dl[k].n = n[k];
            dl[k].is = dl[k].os = stride;
        }
        stride *= n[k];
    }
}

void *hfft_ref_transform(int prec, int rank, const int64_t *n, const void *in, int sign,
                         int threads) {
    int64_t total = 1;
    for (int k = 0; k < rank; k++)
        total *= n[k];
    if (prec == 4) {
        fftw_complex *a = fftw_malloc(sizeof(fftw_complex) * (size_t)total);
        if (!a)
            return NULL;
        fftw_iodim64 d[3];
        dims_of(rank, n, d, NULL);
        fftw_plan_with_nthreads(threads > 0 ? threads : 1);
        fftw_plan p = fftw_plan_guru64_dft(rank, d, 0, NULL, a, a, sign, FFTW_ESTIMATE);
        const float *x = in;
        for (int64_t i = 0; i < 2 * total; i++)
            ((double *)a)[i] = x[i];
        fftw_execute(p);
        fftw_destroy_plan(p);
        return a;
    }
    fftwl_complex *a = fftwl_malloc(sizeof(fftwl_complex) * (size_t)total);
    if (!a)
        return NULL;
    fftwl_iodim64 d[3];
    dims_of(rank, n, NULL, d);
    fftwl_plan_with_nthreads(threads > 0 ? threads : 1);
    fftwl_plan p = fftwl_plan_guru64_dft(rank, d, 0, NULL, a, a, sign, FFTW_ESTIMATE);
    const double *x = in;
    for (int64_t i = 0; i < 2 * total; i++)
        ((long double *)a)[i] = x[i];
    fftwl_execute(p);
    fftwl_destroy_plan(p);
    return a;
}

void hfft_ref_free(int prec, void *ref) {
    if (prec == 4)
        fftw_free(ref);
    else
        fftwl_free(ref);
}

double hfft_ref_compare(int prec, const void *ref, const void *out, int64_t total) {
    long double num = 0, den = 0;
    if (prec == 4) {
        const double *a = ref;
        const float *y = out;
        for (int64_t i = 0; i < 2 * total; i++) {
            double e = (double)y[i] - a[i];
            num += e * e;
            den += a[i] * a[i];
        }
    } else {
        const long double *a = ref;
        const double *y = out;
        for (int64_t i = 0; i < 2 * total; i++) {
            long double e = y[i] - a[i];
            num += e * e;
            den += a[i] * a[i];
        }
    }
    /* NaN (an unwritten, poisoned output) compares false: report it as NaN. */
    if (!(num == num))
        return (double)num;
    return den > 0 ? (double)sqrtl(num / den) : (double)sqrtl(num);
}

double hfft_ref_error(int prec, int rank, const int64_t *n, const void *in, const void *out,
                      int sign, int threads) {
    int64_t total = 1;
    for (int k = 0; k < rank; k++)
        total *= n[k];
    void *ref = hfft_ref_transform(prec, rank, n, in, sign, threads);
    if (!ref)
        return -1.0;
    double e = hfft_ref_compare(prec, ref, out, total);
    hfft_ref_free(prec, ref);
    return e;
}
