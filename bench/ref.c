/*
 * ref.c: higher-precision FFTW references and the error metric shared by the
 * demo, the benchmarks and the tests.
 */
#include "ref.h"

#include <fftw3.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
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
        fftw_iodim64 d[16];
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
    fftwl_iodim64 d[16];
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

/* ---- guru problems ---- */

/* Offsets (in elements) of index t of a layout over nd dimensions, each side. */
static void offsets(const hfft_ref_dim *d, int nd, const int64_t *t, int64_t *io, int64_t *oo) {
    *io = *oo = 0;
    for (int k = 0; k < nd; k++) {
        *io += t[k] * d[k].is;
        *oo += t[k] * d[k].os;
    }
}

/* Advances index t over sizes n; 0 once every index was visited. */
static int next_index(const hfft_ref_dim *d, int nd, int64_t *t) {
    for (int k = nd - 1; k >= 0; k--) {
        if (++t[k] < d[k].n)
            return 1;
        t[k] = 0;
    }
    return 0;
}

static long double get(int prec, const void *a, int64_t i) {
    return prec == 4 ? (long double)((const float *)a)[i] : (long double)((const double *)a)[i];
}

double hfft_ref_guru_error(int prec, int kind, int sign, int rank, const hfft_ref_dim *dims,
                           int hrank, const hfft_ref_dim *hdims, const void *ri, const void *ii,
                           const void *ro, const void *io) {
    /* Both sides laid out densely in long double: the transform dimensions, then the
       vector ones; the halved dimension of r2c/c2r has n/2 + 1 complex elements. */
    enum { MAXD = 64 };
    hfft_ref_dim all[MAXD];
    int nd = 0;
    for (int k = 0; k < hrank; k++)
        all[nd++] = hdims[k];
    for (int k = 0; k < rank; k++)
        all[nd++] = dims[k];
    int64_t count = 1, ccount = 1, rcount = 1;
    for (int k = 0; k < nd; k++) {
        count *= all[k].n;
        int halved = kind != 0 && k == nd - 1;
        ccount *= halved ? all[k].n / 2 + 1 : all[k].n;
        rcount *= all[k].n;
    }
    if (count == 0)
        return 0.0;
    long double *x = fftwl_malloc(sizeof(long double) * 2 * (size_t)(kind == 1 ? rcount : ccount));
    long double *y = fftwl_malloc(sizeof(long double) * 2 * (size_t)(kind == 2 ? rcount : ccount));
    if (!x || !y) {
        fftwl_free(x);
        fftwl_free(y);
        return -1.0;
    }
    fftwl_iodim64 d[MAXD], h[MAXD];
    /* dense strides of the reference's own arrays */
    int64_t cs = 1, rs = 1;
    for (int k = nd - 1; k >= 0; k--) {
        int halved = kind != 0 && k == nd - 1;
        int64_t cn = halved ? all[k].n / 2 + 1 : all[k].n;
        fftwl_iodim64 v = {all[k].n, kind == 1 ? rs : cs, kind == 2 ? rs : cs};
        if (k >= hrank)
            d[k - hrank] = v;
        else
            h[k] = v;
        cs *= cn;
        rs *= all[k].n;
    }
    /* the input, element by element, from the caller's layout */
    int64_t t[MAXD] = {0};
    hfft_ref_dim in_side[MAXD];
    for (int k = 0; k < nd; k++) {
        int halved = kind != 0 && k == nd - 1;
        in_side[k] = all[k];
        if (halved && kind == 2)
            in_side[k].n = all[k].n / 2 + 1;
    }
    do {
        int64_t src, dst = 0, unused;
        offsets(in_side, nd, t, &src, &unused);
        int64_t m = 1;
        for (int k = nd - 1; k >= 0; k--) {
            dst += t[k] * m;
            m *= in_side[k].n;
        }
        if (kind == 1) {
            x[dst] = get(prec, ri, src);
        } else if (ii) {
            x[2 * dst] = get(prec, ri, src);
            x[2 * dst + 1] = get(prec, ii, src);
        } else {
            x[2 * dst] = get(prec, ri, 2 * src);
            x[2 * dst + 1] = get(prec, ri, 2 * src + 1);
        }
    } while (next_index(in_side, nd, t));
    fftwl_plan p = kind == 0   ? fftwl_plan_guru64_dft(rank, d, hrank, h, (fftwl_complex *)x,
                                                       (fftwl_complex *)y, ii ? FFTW_FORWARD : sign,
                                                       FFTW_ESTIMATE)
                   : kind == 1 ? fftwl_plan_guru64_dft_r2c(rank, d, hrank, h, x,
                                                           (fftwl_complex *)y, FFTW_ESTIMATE)
                               : fftwl_plan_guru64_dft_c2r(rank, d, hrank, h, (fftwl_complex *)x,
                                                           y, FFTW_ESTIMATE);
    if (!p) {
        fftwl_free(x);
        fftwl_free(y);
        return -1.0;
    }
    fftwl_execute(p);
    fftwl_destroy_plan(p);
    /* the output, element by element, against the caller's layout */
    hfft_ref_dim out_side[MAXD];
    for (int k = 0; k < nd; k++) {
        out_side[k] = all[k];
        if (kind == 1 && k == nd - 1)
            out_side[k].n = all[k].n / 2 + 1;
    }
    long double num = 0, den = 0;
    memset(t, 0, sizeof t);
    do {
        int64_t unused, dst, src = 0, m = 1;
        offsets(out_side, nd, t, &unused, &dst);
        for (int k = nd - 1; k >= 0; k--) {
            src += t[k] * m;
            m *= out_side[k].n;
        }
        long double a[2], b[2];
        int parts = kind == 2 ? 1 : 2;
        if (kind == 2) {
            a[0] = y[src];
            b[0] = get(prec, ro, dst);
        } else {
            a[0] = y[2 * src];
            a[1] = y[2 * src + 1];
            b[0] = io ? get(prec, ro, dst) : get(prec, ro, 2 * dst);
            b[1] = io ? get(prec, io, dst) : get(prec, ro, 2 * dst + 1);
        }
        for (int c = 0; c < parts; c++) {
            num += (b[c] - a[c]) * (b[c] - a[c]);
            den += a[c] * a[c];
        }
    } while (next_index(out_side, nd, t));
    fftwl_free(x);
    fftwl_free(y);
    if (!(num == num))
        return (double)num;
    return den > 0 ? (double)sqrtl(num / den) : (double)sqrtl(num);
}
