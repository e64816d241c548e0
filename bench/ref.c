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

double hfft_ref_error(int prec, int rank, const int64_t *n, const void *in, const void *out,
                      int sign, int threads) {
    int64_t total = 1;
    for (int k = 0; k < rank; k++)
        total *= n[k];
    long double num = 0, den = 0;
    if (prec == 4) {
        fftw_complex *a = fftw_malloc(sizeof(fftw_complex) * (size_t)total);
        if (!a)
            return -1.0;
        fftw_iodim64 d[3];
        dims_of(rank, n, d, NULL);
        fftw_plan_with_nthreads(threads > 0 ? threads : 1);
        fftw_plan p = fftw_plan_guru64_dft(rank, d, 0, NULL, a, a, sign, FFTW_ESTIMATE);
        const float *x = in, *y = out;
        for (int64_t i = 0; i < 2 * total; i++)
            ((double *)a)[i] = x[i];
        fftw_execute(p);
        for (int64_t i = 0; i < total; i++) {
            double er = (double)y[2 * i] - a[i][0], ei = (double)y[2 * i + 1] - a[i][1];
            num += er * er + ei * ei;
            den += a[i][0] * a[i][0] + a[i][1] * a[i][1];
        }
        fftw_destroy_plan(p);
        fftw_free(a);
    } else {
        fftwl_complex *a = fftwl_malloc(sizeof(fftwl_complex) * (size_t)total);
        if (!a)
            return -1.0;
        fftwl_iodim64 d[3];
        dims_of(rank, n, NULL, d);
        fftwl_plan_with_nthreads(threads > 0 ? threads : 1);
        fftwl_plan p = fftwl_plan_guru64_dft(rank, d, 0, NULL, a, a, sign, FFTW_ESTIMATE);
        const double *x = in, *y = out;
        for (int64_t i = 0; i < 2 * total; i++)
            ((long double *)a)[i] = x[i];
        fftwl_execute(p);
        for (int64_t i = 0; i < total; i++) {
            long double er = y[2 * i] - a[i][0], ei = y[2 * i + 1] - a[i][1];
            num += er * er + ei * ei;
            den += a[i][0] * a[i][0] + a[i][1] * a[i][1];
        }
        fftwl_destroy_plan(p);
        fftwl_free(a);
    }
    return den > 0 ? (double)sqrtl(num / den) : (double)sqrtl(num);
}
