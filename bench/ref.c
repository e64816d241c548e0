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

void *hfft_ref_transform(int prec, int rank, const int64_t *n, const void *in, int sign,
                         int threads) {
    int64_t count;
    return hfft_ref_transform_many(prec, 0, rank, n, 1, in, sign, threads, &count);
}

/* howmany dense transforms of sizes n, kind 0 c2c (sign), 1 r2c, in the
   reference's precision; r2c in place in FFTW's padded layout, so that the
   reference needs one array of the output's size. */
void *hfft_ref_transform_many(int prec, int kind, int rank, const int64_t *n, int64_t howmany,
                              const void *in, int sign, int threads, int64_t *count) {
    int64_t rows = howmany, nl = n[rank - 1];
    for (int k = 0; k + 1 < rank; k++)
        rows *= n[k];
    int64_t cl = kind == 1 ? nl / 2 + 1 : nl; /* complex elements per line */
    int64_t il = kind == 1 ? 2 * cl : 2 * nl;  /* reals per line of the work array */
    *count = rows * cl;
    fftw_iodim64 d[16], h;
    fftwl_iodim64 dl[16], hl;
    int64_t cs = 1;
    for (int k = rank - 1; k >= 0; k--) {
        int64_t is = kind == 1 ? (k == rank - 1 ? 1 : 2 * cs) : cs;
        d[k].n = dl[k].n = n[k];
        d[k].is = dl[k].is = is;
        d[k].os = dl[k].os = cs;
        cs *= k == rank - 1 ? cl : n[k];
    }
    h.n = hl.n = howmany;
    h.is = hl.is = kind == 1 ? 2 * cs : cs;
    h.os = hl.os = cs;
    size_t reals = (size_t)(rows * il);
    if (prec == 4) {
        double *a = fftw_malloc(sizeof(double) * reals);
        if (!a)
            return NULL;
        fftw_plan_with_nthreads(threads > 0 ? threads : 1);
        fftw_plan p = kind == 1 ? fftw_plan_guru64_dft_r2c(rank, d, 1, &h, a, (fftw_complex *)a,
                                                           FFTW_ESTIMATE)
                                : fftw_plan_guru64_dft(rank, d, 1, &h, (fftw_complex *)a,
                                                       (fftw_complex *)a, sign, FFTW_ESTIMATE);
        const float *x = in;
        int64_t w = kind == 1 ? nl : 2 * nl; /* input reals per line */
        for (int64_t r = 0; r < rows; r++)
            for (int64_t i = 0; i < w; i++)
                a[r * il + i] = x[r * w + i];
        if (!p) {
            fftw_free(a);
            return NULL;
        }
        fftw_execute(p);
        fftw_destroy_plan(p);
        return a;
    }
    long double *a = fftwl_malloc(sizeof(long double) * reals);
    if (!a)
        return NULL;
    fftwl_plan_with_nthreads(threads > 0 ? threads : 1);
    fftwl_plan p = kind == 1 ? fftwl_plan_guru64_dft_r2c(rank, dl, 1, &hl, a, (fftwl_complex *)a,
                                                         FFTW_ESTIMATE)
                             : fftwl_plan_guru64_dft(rank, dl, 1, &hl, (fftwl_complex *)a,
                                                     (fftwl_complex *)a, sign, FFTW_ESTIMATE);
    const double *x = in;
    int64_t w = kind == 1 ? nl : 2 * nl;
    for (int64_t r = 0; r < rows; r++)
        for (int64_t i = 0; i < w; i++)
            a[r * il + i] = x[r * w + i];
    if (!p) {
        fftwl_free(a);
        return NULL;
    }
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
    return hfft_ref_error_many(prec, 0, rank, n, 1, in, out, sign, threads);
}

double hfft_ref_error_many(int prec, int kind, int rank, const int64_t *n, int64_t howmany,
                           const void *in, const void *out, int sign, int threads) {
    int64_t count;
    void *ref = hfft_ref_transform_many(prec, kind, rank, n, howmany, in, sign, threads, &count);
    if (!ref)
        return -1.0;
    double e = hfft_ref_compare(prec, ref, out, count);
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

/* The vector dimensions, then the transform ones, into all; their number. */
static int joined(int rank, const hfft_ref_dim *dims, int hrank, const hfft_ref_dim *hdims,
                  hfft_ref_dim *all) {
    int nd = 0;
    for (int k = 0; k < hrank; k++)
        all[nd++] = hdims[k];
    for (int k = 0; k < rank; k++)
        all[nd++] = dims[k];
    return nd;
}

double hfft_ref_r2r_error(int prec, int rank, const hfft_ref_dim *dims, int hrank,
                          const hfft_ref_dim *hdims, const int *kinds, const void *in,
                          const void *out) {
    enum { MAXD = 64 };
    hfft_ref_dim all[MAXD];
    int nd = joined(rank, dims, hrank, hdims, all);
    int64_t count = 1;
    for (int k = 0; k < nd; k++)
        count *= all[k].n;
    if (count == 0)
        return 0.0;
    long double *x = fftwl_malloc(sizeof(long double) * (size_t)count);
    long double *y = fftwl_malloc(sizeof(long double) * (size_t)count);
    if (!x || !y) {
        fftwl_free(x);
        fftwl_free(y);
        return -1.0;
    }
    /* dense in long double, the vector dimensions outermost */
    fftwl_iodim64 d[MAXD], h[MAXD];
    int64_t st = 1;
    for (int k = nd - 1; k >= 0; k--) {
        fftwl_iodim64 v = {all[k].n, st, st};
        if (k >= hrank)
            d[k - hrank] = v;
        else
            h[k] = v;
        st *= all[k].n;
    }
    int64_t t[MAXD] = {0}, e = 0;
    do {
        int64_t io, oo;
        offsets(all, nd, t, &io, &oo);
        x[e++] = get(prec, in, io);
    } while (next_index(all, nd, t));
    fftwl_r2r_kind k[MAXD];
    for (int i = 0; i < rank; i++)
        k[i] = (fftwl_r2r_kind)kinds[i];
    fftwl_plan plan = fftwl_plan_guru64_r2r(rank, d, hrank, h, x, y, k, FFTW_ESTIMATE);
    if (!plan) {
        fftwl_free(x);
        fftwl_free(y);
        return -1.0;
    }
    fftwl_execute(plan);
    fftwl_destroy_plan(plan);
    long double num = 0, den = 0;
    memset(t, 0, sizeof t);
    e = 0;
    do {
        int64_t io, oo;
        offsets(all, nd, t, &io, &oo);
        long double a = get(prec, out, oo), b = y[e++];
        num += (a - b) * (a - b);
        den += b * b;
    } while (next_index(all, nd, t));
    fftwl_free(x);
    fftwl_free(y);
    if (num != num)
        return 1e300; /* a NaN in the output */
    return den > 0 ? (double)sqrtl(num / den) : (double)sqrtl(num);
}

double hfft_ref_guru_error(int prec, int kind, int sign, int rank, const hfft_ref_dim *dims,
                           int hrank, const hfft_ref_dim *hdims, const void *ri, const void *ii,
                           const void *ro, const void *io) {
    /* Both sides laid out densely in long double: the transform dimensions, then the
       vector ones; the halved dimension of r2c/c2r has n/2 + 1 complex elements. */
    enum { MAXD = 64 };
    hfft_ref_dim all[MAXD];
    int nd = joined(rank, dims, hrank, hdims, all);
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

static void put(int prec, void *a, int64_t i, long double v) {
    if (prec == 4)
        ((float *)a)[i] = (float)v;
    else
        ((double *)a)[i] = (double)v;
}

int hfft_ref_fill_hermitian(int prec, int rank, const hfft_ref_dim *dims, int hrank,
                            const hfft_ref_dim *hdims, void *ri, void *ii, uint64_t seed) {
    enum { MAXD = 64 };
    int nd = rank + hrank;
    int64_t n[MAXD], total = 1, ctotal = 1;
    for (int k = 0; k < nd; k++) {
        n[k] = k < hrank ? hdims[k].n : dims[k - hrank].n;
        total *= n[k];
        ctotal *= k == nd - 1 ? n[k] / 2 + 1 : n[k];
    }
    if (total == 0)
        return 0;
    long double *x = fftwl_malloc(sizeof(long double) * (size_t)total);
    fftwl_complex *y = fftwl_malloc(sizeof(fftwl_complex) * (size_t)ctotal);
    double *r = malloc(sizeof(double) * 2 * (size_t)total);
    if (!x || !y || !r) {
        fftwl_free(x);
        fftwl_free(y);
        free(r);
        return -1;
    }
    hfft_ref_fill(8, r, total, seed);
    for (int64_t i = 0; i < total; i++)
        x[i] = r[2 * i];
    free(r);
    fftwl_iodim64 d[MAXD], h[MAXD];
    int64_t rs = 1, cs = 1;
    for (int k = nd - 1; k >= 0; k--) {
        fftwl_iodim64 v = {n[k], rs, cs};
        if (k >= hrank)
            d[k - hrank] = v;
        else
            h[k] = v;
        rs *= n[k];
        cs *= k == nd - 1 ? n[k] / 2 + 1 : n[k];
    }
    fftwl_plan p = fftwl_plan_guru64_dft_r2c(rank, d, hrank, h, x, y, FFTW_ESTIMATE);
    if (!p) {
        fftwl_free(x);
        fftwl_free(y);
        return -1;
    }
    fftwl_execute(p);
    fftwl_destroy_plan(p);
    for (int64_t c = 0; c < ctotal; c++) {
        int64_t off = 0, rem = c;
        for (int k = nd - 1; k >= 0; k--) {
            int64_t m = k == nd - 1 ? n[k] / 2 + 1 : n[k];
            off += rem % m * (k < hrank ? hdims[k].is : dims[k - hrank].is);
            rem /= m;
        }
        if (ii) {
            put(prec, ri, off, y[c][0]);
            put(prec, ii, off, y[c][1]);
        } else {
            put(prec, ri, 2 * off, y[c][0]);
            put(prec, ri, 2 * off + 1, y[c][1]);
        }
    }
    fftwl_free(x);
    fftwl_free(y);
    return 0;
}
