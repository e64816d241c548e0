/*
 * test_dropin.c: the FFTW drop-in's own surface, through FFTW's names only
 * (include/hfft/fftw3/fftw3.h, libhfftw3 and libhfftw3f): every planner
 * interface on a few layouts, new-array executes, flags, threads, wisdom,
 * memory, plan descriptions and the stop on a failed execute.  Transforms are
 * checked element by element against a direct DFT in long double.  Compiled
 * once per precision (TD_SINGLE: fftwf_) into one binary; CTest runs it on the
 * CPU and on the emulated device, and tests/fftw3/isolation.sh runs it with
 * FFTW itself loaded beside the drop-in.
 */
#include <criterion/criterion.h>
#include <dlfcn.h>
#include <fftw3.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* TOL: relative RMS error against the long-double direct DFT, hfft's accuracy
   targets (5e-7 single, 5e-16 double); round trips and single rows get more. */
#ifdef TD_SINGLE
#define X(name) fftwf_##name
#define SUITE dropin_f
#define TOL 5e-7
typedef float R;
#else
#define X(name) fftw_##name
#define SUITE dropin_d
#define TOL 5e-16
typedef double R;
#endif
typedef R C2[2];

#ifndef TD_SINGLE
/* isolation.sh: FFTW itself made global before any plan, as a plugin that
   loads it would, so that its fftw_* are in the global scope beside the
   drop-in's (the program's own calls still bind to the drop-in, linked first). */
__attribute__((constructor)) static void load_fftw_globally(void) {
    if (getenv("TD_LOAD_FFTW_GLOBAL")) {
        if (!dlopen("libfftw3_threads.so.3", RTLD_NOW | RTLD_GLOBAL) ||
            !dlopen("libfftw3f_threads.so.3", RTLD_NOW | RTLD_GLOBAL))
            fprintf(stderr, "test_dropin: cannot load FFTW: %s\n", dlerror()), exit(1);
    }
}
#endif

/* Test() pastes its arguments: SUITE must be expanded first. */
#define TD_TEST_(suite, name, ...) Test(suite, name, ##__VA_ARGS__)
#define TD_TEST(name, ...) TD_TEST_(SUITE, name, ##__VA_ARGS__)

/* ---- a direct DFT in long double over dense row-major arrays ---- */

static int64_t total(int rank, const int *n) {
    int64_t t = 1;
    for (int k = 0; k < rank; k++)
        t *= n[k];
    return t;
}

/* out = DFT_sign(in), both dense complex long double (pairs). */
static void ref_dft(int sign, int rank, const int *n, const long double *in, long double *out) {
    const long double pi = 3.141592653589793238462643383279503L;
    int64_t N = total(rank, n);
    for (int64_t k = 0; k < N; k++) {
        long double sr = 0, si = 0;
        for (int64_t j = 0; j < N; j++) {
            /* the phase sum_d j_d k_d / n_d, reduced per dimension */
            long double ph = 0;
            int64_t jj = j, kk = k;
            for (int d = rank - 1; d >= 0; d--) {
                ph += (long double)((jj % n[d]) * (kk % n[d]) % n[d]) / n[d];
                jj /= n[d];
                kk /= n[d];
            }
            long double a = sign * 2 * pi * ph, c = cosl(a), s = sinl(a);
            sr += in[2 * j] * c - in[2 * j + 1] * s;
            si += in[2 * j] * s + in[2 * j + 1] * c;
        }
        out[2 * k] = sr;
        out[2 * k + 1] = si;
    }
}

static long double *ld_alloc(int64_t count) {
    long double *p = calloc((size_t)count * 2, sizeof *p);
    cr_assert(p);
    return p;
}

static void fill(R *p, int64_t reals, unsigned seed) {
    srand(seed);
    for (int64_t i = 0; i < reals; i++)
        p[i] = (R)(rand() / (double)RAND_MAX - 0.5);
}

/* Relative RMS of got (count complex elements at got[k * stride]) against ref. */
static double rel_err(const R *got, int64_t stride, const long double *ref, int64_t count) {
    long double e = 0, r = 0;
    for (int64_t k = 0; k < count; k++) {
        long double dr = got[2 * k * stride] - ref[2 * k], di = got[2 * k * stride + 1] - ref[2 * k + 1];
        e += dr * dr + di * di;
        r += ref[2 * k] * ref[2 * k] + ref[2 * k + 1] * ref[2 * k + 1];
    }
    return r > 0 ? (double)sqrtl(e / r) : (double)sqrtl(e);
}

/* ---- complex, basic interface ---- */

static void basic_c2c(int rank, const int *n, int inplace, int sign, unsigned flags) {
    int64_t N = total(rank, n);
    X(complex) *in = X(alloc_complex)((size_t)N);
    X(complex) *out = inplace ? in : X(alloc_complex)((size_t)N);
    cr_assert(in && out);
    X(plan) p = rank == 1   ? X(plan_dft_1d)(n[0], in, out, sign, flags)
                : rank == 2 ? X(plan_dft_2d)(n[0], n[1], in, out, sign, flags)
                : rank == 3 ? X(plan_dft_3d)(n[0], n[1], n[2], in, out, sign, flags)
                            : X(plan_dft)(rank, n, in, out, sign, flags);
    cr_assert(p, "rank %d plan failed", rank);
    fill(&in[0][0], 2 * N, 11u + (unsigned)rank);
    long double *x = ld_alloc(N), *y = ld_alloc(N);
    for (int64_t i = 0; i < 2 * N; i++)
        x[i] = (&in[0][0])[i];
    ref_dft(sign, rank, n, x, y);
    X(execute)(p);
    double e = rel_err(&out[0][0], 1, y, N);
    cr_expect(e < TOL, "rank %d %s sign %d: error %g", rank, inplace ? "in place" : "out of place",
              sign, e);
    if (!inplace)
        for (int64_t i = 0; i < 2 * N; i++)
            cr_assert((long double)(&in[0][0])[i] == x[i], "input changed at %lld", (long long)i);
    X(destroy_plan)(p);
    if (out != in)
        X(free)(out);
    X(free)(in);
    free(x);
    free(y);
}

TD_TEST(basic_complex) {
    int n1[1] = {60}, n2[2] = {12, 10}, n3[3] = {4, 6, 5}, n4[4] = {2, 3, 4, 5};
    for (int inplace = 0; inplace < 2; inplace++)
        for (int s = -1; s <= 1; s += 2) {
            basic_c2c(1, n1, inplace, s, FFTW_ESTIMATE);
            basic_c2c(2, n2, inplace, s, FFTW_ESTIMATE);
            basic_c2c(3, n3, inplace, s, FFTW_ESTIMATE);
            basic_c2c(4, n4, inplace, s, FFTW_ESTIMATE);
        }
    basic_c2c(2, n2, 0, FFTW_FORWARD, FFTW_MEASURE);
    basic_c2c(1, n1, 1, FFTW_BACKWARD, FFTW_PATIENT);
}

/* ---- real, basic interface: r2c against the complex DFT of the same data,
   c2r of that half spectrum back to N times the data ---- */

static void basic_real(int rank, const int *n, int inplace) {
    int64_t N = total(rank, n), last = n[rank - 1], half = last / 2 + 1;
    int64_t rows = N / last, pad = inplace ? 2 * half : last;
    R *r = X(alloc_real)((size_t)(rows * (inplace ? 2 * half : last)));
    X(complex) *h = inplace ? (X(complex) *)r : X(alloc_complex)((size_t)(rows * half));
    cr_assert(r && h);
    X(plan) f = rank == 1   ? X(plan_dft_r2c_1d)(n[0], r, h, FFTW_ESTIMATE)
                : rank == 2 ? X(plan_dft_r2c_2d)(n[0], n[1], r, h, FFTW_ESTIMATE)
                : rank == 3 ? X(plan_dft_r2c_3d)(n[0], n[1], n[2], r, h, FFTW_ESTIMATE)
                            : X(plan_dft_r2c)(rank, n, r, h, FFTW_ESTIMATE);
    X(plan) b = rank == 1   ? X(plan_dft_c2r_1d)(n[0], h, r, FFTW_ESTIMATE)
                : rank == 2 ? X(plan_dft_c2r_2d)(n[0], n[1], h, r, FFTW_ESTIMATE)
                : rank == 3 ? X(plan_dft_c2r_3d)(n[0], n[1], n[2], h, r, FFTW_ESTIMATE)
                            : X(plan_dft_c2r)(rank, n, h, r, FFTW_ESTIMATE);
    cr_assert(f && b, "real rank %d plans failed", rank);
    R *keep = malloc((size_t)N * sizeof *keep);
    fill(keep, N, 23u + (unsigned)rank);
    long double *x = ld_alloc(N), *y = ld_alloc(N), *hh = ld_alloc(rows * half);
    for (int64_t i = 0; i < N; i++) {
        r[i / last * pad + i % last] = keep[i];
        x[2 * i] = keep[i];
    }
    ref_dft(FFTW_FORWARD, rank, n, x, y);
    for (int64_t i = 0; i < rows * half; i++) {
        hh[2 * i] = y[2 * (i / half * last + i % half)];
        hh[2 * i + 1] = y[2 * (i / half * last + i % half) + 1];
    }
    X(execute)(f);
    double e = rel_err(&h[0][0], 1, hh, rows * half);
    cr_expect(e < TOL, "r2c rank %d %s: error %g", rank, inplace ? "in place" : "out of place", e);
    X(execute)(b);
    long double er = 0, rr = 0;
    for (int64_t i = 0; i < N; i++) {
        long double d = r[i / last * pad + i % last] / (long double)N - keep[i];
        er += d * d;
        rr += (long double)keep[i] * keep[i];
    }
    cr_expect(sqrtl(er / rr) < TOL, "c2r rank %d: round trip error %g", rank,
              (double)sqrtl(er / rr));
    X(destroy_plan)(f);
    X(destroy_plan)(b);
    if ((void *)h != (void *)r)
        X(free)(h);
    X(free)(r);
    free(keep);
    free(x);
    free(y);
    free(hh);
}

TD_TEST(basic_real) {
    int n1[1] = {30}, n2[2] = {8, 9}, n3[3] = {4, 5, 6}, n4[4] = {2, 3, 2, 5};
    for (int inplace = 0; inplace < 2; inplace++) {
        basic_real(1, n1, inplace);
        basic_real(2, n2, inplace);
        basic_real(3, n3, inplace);
        basic_real(4, n4, inplace);
    }
}

/* ---- advanced: a batch of 3 transforms of 6x5 embedded in 7x8, every other element ---- */

TD_TEST(advanced) {
    int n[2] = {6, 5}, emb[2] = {7, 8}, howmany = 3, stride = 2, dist = 7 * 8 * 2;
    int64_t span = (int64_t)dist * howmany;
    X(complex) *in = X(alloc_complex)((size_t)span), *out = X(alloc_complex)((size_t)span);
    X(plan) p = X(plan_many_dft)(2, n, howmany, in, emb, stride, dist, out, emb, stride, dist,
                                 FFTW_FORWARD, FFTW_ESTIMATE);
    cr_assert(p);
    fill(&in[0][0], 2 * span, 5);
    memset(out, 0, (size_t)span * sizeof *out);
    X(execute)(p);
    long double *x = ld_alloc(30), *y = ld_alloc(30);
    for (int v = 0; v < howmany; v++) {
        for (int i = 0; i < 6; i++)
            for (int j = 0; j < 5; j++) {
                int64_t at = (int64_t)v * dist + ((int64_t)i * 8 + j) * stride;
                x[2 * (i * 5 + j)] = in[at][0];
                x[2 * (i * 5 + j) + 1] = in[at][1];
            }
        ref_dft(FFTW_FORWARD, 2, n, x, y);
        for (int i = 0; i < 6; i++) {
            double e = rel_err(&out[(int64_t)v * dist + (int64_t)i * 8 * stride][0], stride,
                               y + 2 * i * 5, 5);
            cr_expect(e < 100 * TOL, "transform %d row %d: error %g", v, i, e);
        }
    }
    X(destroy_plan)(p);
    /* r2c and c2r batches through the advanced interface (dense: NULL embeds) */
    int m[1] = {16};
    R *r = X(alloc_real)(16 * 4);
    X(complex) *h = X(alloc_complex)(9 * 4);
    X(plan) f = X(plan_many_dft_r2c)(1, m, 4, r, NULL, 1, 16, h, NULL, 1, 9, FFTW_ESTIMATE);
    X(plan) b = X(plan_many_dft_c2r)(1, m, 4, h, NULL, 1, 9, r, NULL, 1, 16, FFTW_ESTIMATE);
    cr_assert(f && b);
    R keep[64];
    fill(keep, 64, 9);
    memcpy(r, keep, sizeof keep);
    X(execute)(f);
    X(execute)(b);
    for (int i = 0; i < 64; i++)
        cr_expect(fabs(r[i] / 16 - keep[i]) < 100 * TOL, "r2c/c2r batch at %d", i);
    X(destroy_plan)(f);
    X(destroy_plan)(b);
    X(free)(r);
    X(free)(h);
    X(free)(in);
    X(free)(out);
    free(x);
    free(y);
}

/* ---- guru and guru64: transposed output, split arrays ---- */

TD_TEST(guru) {
    enum { A = 6, B = 10 };
    int n[2] = {A, B};
    X(complex) *in = X(alloc_complex)(A * B), *out = X(alloc_complex)(A * B);
    /* output transposed: element (i, j) at j * A + i */
    X(iodim) d[2] = {{A, B, 1}, {B, 1, A}};
    X(iodim64) d64[2] = {{A, B, 1}, {B, 1, A}};
    X(plan) p = X(plan_guru_dft)(2, d, 0, NULL, in, out, FFTW_BACKWARD, FFTW_ESTIMATE);
    X(plan) q = X(plan_guru64_dft)(2, d64, 0, NULL, in, out, FFTW_BACKWARD, FFTW_ESTIMATE);
    cr_assert(p && q);
    fill(&in[0][0], 2 * A * B, 3);
    long double *x = ld_alloc(A * B), *y = ld_alloc(A * B);
    for (int i = 0; i < 2 * A * B; i++)
        x[i] = (&in[0][0])[i];
    ref_dft(FFTW_BACKWARD, 2, n, x, y);
    for (int t = 0; t < 2; t++) {
        memset(out, 0, sizeof(X(complex)) * A * B);
        X(execute)(t ? q : p);
        long double *yt = ld_alloc(A * B);
        for (int i = 0; i < A; i++)
            for (int j = 0; j < B; j++) {
                yt[2 * (j * A + i)] = y[2 * (i * B + j)];
                yt[2 * (j * A + i) + 1] = y[2 * (i * B + j) + 1];
            }
        double e = rel_err(&out[0][0], 1, yt, A * B);
        cr_expect(e < TOL, "guru%s transposed: error %g", t ? "64" : "", e);
        free(yt);
    }
    X(destroy_plan)(p);
    X(destroy_plan)(q);

    /* split arrays: forward with (ri, ii, ro, io), backward with real and imaginary swapped */
    R *s = X(alloc_real)(4 * A * B);
    R *ri = s, *ii = s + A * B, *ro = s + 2 * A * B, *io = s + 3 * A * B;
    X(iodim) sd[2] = {{A, B, B}, {B, 1, 1}};
    X(plan) fw = X(plan_guru_split_dft)(2, sd, 0, NULL, ri, ii, ro, io, FFTW_ESTIMATE);
    X(plan) bw = X(plan_guru_split_dft)(2, sd, 0, NULL, ii, ri, io, ro, FFTW_ESTIMATE);
    cr_assert(fw && bw);
    for (int sign = -1; sign <= 1; sign += 2) {
        for (int i = 0; i < A * B; i++) {
            ri[i] = in[i][0];
            ii[i] = in[i][1];
        }
        ref_dft(sign, 2, n, x, y);
        X(execute)(sign < 0 ? fw : bw);
        long double e = 0, r = 0;
        for (int i = 0; i < A * B; i++) {
            long double dr = ro[i] - y[2 * i], di = io[i] - y[2 * i + 1];
            e += dr * dr + di * di;
            r += y[2 * i] * y[2 * i] + y[2 * i + 1] * y[2 * i + 1];
        }
        cr_expect(sqrtl(e / r) < TOL, "split sign %d: error %g", sign, (double)sqrtl(e / r));
    }
    X(destroy_plan)(fw);
    X(destroy_plan)(bw);

    /* split real: r2c into separate real and imaginary halves, and back */
    X(iodim64) rd[1] = {{16, 1, 1}};
    R *r = s, *hr = s + 32, *hi = s + 64, keep[16];
    X(plan) f = X(plan_guru64_split_dft_r2c)(1, rd, 0, NULL, r, hr, hi, FFTW_ESTIMATE);
    X(plan) b = X(plan_guru64_split_dft_c2r)(1, rd, 0, NULL, hr, hi, r, FFTW_ESTIMATE);
    X(iodim) rd32[1] = {{16, 1, 1}};
    X(plan) f32 = X(plan_guru_split_dft_r2c)(1, rd32, 0, NULL, r, hr, hi, FFTW_ESTIMATE);
    X(plan) b32 = X(plan_guru_split_dft_c2r)(1, rd32, 0, NULL, hr, hi, r, FFTW_ESTIMATE);
    cr_assert(f && b && f32 && b32);
    fill(keep, 16, 4);
    memcpy(r, keep, sizeof keep);
    X(execute)(f);
    cr_expect(fabs(hi[0]) < TOL && fabs(hi[8]) < TOL, "split r2c: DC and Nyquist are real");
    X(execute)(b);
    for (int i = 0; i < 16; i++)
        cr_expect(fabs(r[i] / 16 - keep[i]) < 10 * TOL, "split r2c/c2r round trip at %d", i);
    X(destroy_plan)(f);
    X(destroy_plan)(b);
    X(destroy_plan)(f32);
    X(destroy_plan)(b32);

    /* guru r2c/c2r with interleaved half spectra */
    X(iodim) gd[1] = {{16, 1, 1}};
    X(iodim64) gd64[1] = {{16, 1, 1}};
    X(complex) *hc = X(alloc_complex)(9);
    X(plan) gf = X(plan_guru_dft_r2c)(1, gd, 0, NULL, r, hc, FFTW_ESTIMATE);
    X(plan) gb = X(plan_guru64_dft_c2r)(1, gd64, 0, NULL, hc, r, FFTW_ESTIMATE);
    X(plan) gf64 = X(plan_guru64_dft_r2c)(1, gd64, 0, NULL, r, hc, FFTW_ESTIMATE);
    X(plan) gb32 = X(plan_guru_dft_c2r)(1, gd, 0, NULL, hc, r, FFTW_ESTIMATE);
    cr_assert(gf && gb && gf64 && gb32);
    memcpy(r, keep, sizeof keep);
    X(execute)(gf64);
    X(execute)(gb32);
    for (int i = 0; i < 16; i++)
        cr_expect(fabs(r[i] / 16 - keep[i]) < 10 * TOL, "guru r2c/c2r round trip at %d", i);
    X(destroy_plan)(gf);
    X(destroy_plan)(gb);
    X(destroy_plan)(gf64);
    X(destroy_plan)(gb32);
    X(free)(hc);
    X(free)(s);
    X(free)(in);
    X(free)(out);
    free(x);
    free(y);
}

/* ---- new-array executes ---- */

TD_TEST(new_arrays) {
    enum { N = 48 };
    int n[1] = {N};
    X(complex) *a = X(alloc_complex)(N), *b = X(alloc_complex)(N);
    X(complex) *c = X(alloc_complex)(N), *d = X(alloc_complex)(N);
    cr_assert_eq(X(alignment_of)(&a[0][0]), X(alignment_of)(&c[0][0]));
    X(plan) p = X(plan_dft_1d)(N, a, b, FFTW_FORWARD, FFTW_ESTIMATE);
    cr_assert(p);
    fill(&c[0][0], 2 * N, 8);
    long double *x = ld_alloc(N), *y = ld_alloc(N);
    for (int i = 0; i < 2 * N; i++)
        x[i] = (&c[0][0])[i];
    ref_dft(FFTW_FORWARD, 1, n, x, y);
    X(execute_dft)(p, c, d);
    cr_expect(rel_err(&d[0][0], 1, y, N) < TOL, "execute_dft on new arrays");
    X(destroy_plan)(p);

    /* FFTW_UNALIGNED: arrays of any alignment (here one element off) */
    X(complex) *big = X(alloc_complex)(2 * N + 2);
    p = X(plan_dft_1d)(N, a, b, FFTW_FORWARD, FFTW_ESTIMATE | FFTW_UNALIGNED);
    cr_assert(p);
    memcpy(big + 1, c, sizeof(X(complex)) * N);
    X(execute_dft)(p, big + 1, big + N + 2);
    cr_expect(rel_err(&big[N + 2][0], 1, y, N) < TOL, "execute_dft, unaligned arrays");
    X(destroy_plan)(p);

    /* r2c and c2r new arrays */
    R *r = X(alloc_real)(N), *r2 = X(alloc_real)(N), keep[N];
    X(complex) *h = X(alloc_complex)(N / 2 + 1), *h2 = X(alloc_complex)(N / 2 + 1);
    X(plan) f = X(plan_dft_r2c_1d)(N, r, h, FFTW_ESTIMATE);
    X(plan) bk = X(plan_dft_c2r_1d)(N, h, r, FFTW_ESTIMATE);
    cr_assert(f && bk);
    fill(keep, N, 12);
    memcpy(r2, keep, sizeof keep);
    X(execute_dft_r2c)(f, r2, h2);
    X(execute_dft_c2r)(bk, h2, r2);
    for (int i = 0; i < N; i++)
        cr_expect(fabs(r2[i] / N - keep[i]) < 10 * TOL, "new-array r2c/c2r at %d", i);
    X(destroy_plan)(f);
    X(destroy_plan)(bk);

    /* split new arrays */
    R *s = X(alloc_real)(8 * N);
    X(iodim) dd[1] = {{N, 1, 1}};
    X(plan) sp = X(plan_guru_split_dft)(1, dd, 0, NULL, s, s + N, s + 2 * N, s + 3 * N,
                                        FFTW_ESTIMATE);
    cr_assert(sp);
    for (int i = 0; i < N; i++) {
        s[4 * N + i] = c[i][0];
        s[5 * N + i] = c[i][1];
    }
    X(execute_split_dft)(sp, s + 4 * N, s + 5 * N, s + 6 * N, s + 7 * N);
    long double e = 0, rr = 0;
    for (int i = 0; i < N; i++) {
        long double dr = s[6 * N + i] - y[2 * i], di = s[7 * N + i] - y[2 * i + 1];
        e += dr * dr + di * di;
        rr += y[2 * i] * y[2 * i] + y[2 * i + 1] * y[2 * i + 1];
    }
    cr_expect(sqrtl(e / rr) < TOL, "execute_split_dft on new arrays");
    X(destroy_plan)(sp);
    X(iodim) rdim[1] = {{N, 1, 1}};
    X(plan) sf = X(plan_guru_split_dft_r2c)(1, rdim, 0, NULL, r, s, s + N, FFTW_ESTIMATE);
    X(plan) sb = X(plan_guru_split_dft_c2r)(1, rdim, 0, NULL, s, s + N, r, FFTW_ESTIMATE);
    cr_assert(sf && sb);
    memcpy(r2, keep, sizeof keep);
    X(execute_split_dft_r2c)(sf, r2, s + 2 * N, s + 3 * N);
    X(execute_split_dft_c2r)(sb, s + 2 * N, s + 3 * N, r2);
    for (int i = 0; i < N; i++)
        cr_expect(fabs(r2[i] / N - keep[i]) < 10 * TOL, "new-array split r2c/c2r at %d", i);
    X(destroy_plan)(sf);
    X(destroy_plan)(sb);
    X(free)(s);
    X(free)(r);
    X(free)(r2);
    X(free)(h);
    X(free)(h2);
    X(free)(big);
    X(free)(a);
    X(free)(b);
    X(free)(c);
    X(free)(d);
    free(x);
    free(y);
}

/* FFTW's threaded idiom: one plan, each thread executing it on arrays of its own
   (fftw_execute_dft is thread safe in FFTW); every result right, on the CPU and on
   the emulated device alike. */
enum { SHARED_N = 16, SHARED_THREADS = 8, SHARED_EXECUTES = 50 };
typedef struct shared_job {
    X(plan) p;
    int seed, wrong;
} shared_job;

static void *shared_worker(void *arg) {
    shared_job *j = arg;
    int n[2] = {SHARED_N, SHARED_N};
    int64_t N = (int64_t)SHARED_N * SHARED_N;
    X(complex) *in = X(alloc_complex)((size_t)N), *out = X(alloc_complex)((size_t)N);
    long double *x = ld_alloc(N), *y = ld_alloc(N);
    fill(&in[0][0], 2 * N, (unsigned)j->seed);
    for (int64_t i = 0; i < 2 * N; i++)
        x[i] = (&in[0][0])[i];
    ref_dft(FFTW_FORWARD, 2, n, x, y);
    for (int e = 0; e < SHARED_EXECUTES; e++) {
        memset(out, 0xff, sizeof(X(complex)) * (size_t)N);
        X(execute_dft)(j->p, in, out);
        j->wrong += !(rel_err(&out[0][0], 1, y, N) < TOL);
    }
    X(free)(in);
    X(free)(out);
    free(x);
    free(y);
    return NULL;
}

TD_TEST(one_plan_many_threads) {
    int64_t N = (int64_t)SHARED_N * SHARED_N;
    X(complex) *a = X(alloc_complex)((size_t)N), *b = X(alloc_complex)((size_t)N);
    X(plan) p = X(plan_dft_2d)(SHARED_N, SHARED_N, a, b, FFTW_FORWARD, FFTW_ESTIMATE);
    cr_assert(p);
    shared_job jobs[SHARED_THREADS];
    pthread_t tid[SHARED_THREADS];
    for (int t = 0; t < SHARED_THREADS; t++) {
        jobs[t] = (shared_job){p, 100 + t, 0};
        cr_assert_eq(pthread_create(&tid[t], NULL, shared_worker, &jobs[t]), 0);
    }
    int wrong = 0;
    for (int t = 0; t < SHARED_THREADS; t++) {
        pthread_join(tid[t], NULL);
        wrong += jobs[t].wrong;
    }
    cr_expect_eq(wrong, 0, "%d of %d executes from %d threads wrong", wrong,
                 SHARED_THREADS * SHARED_EXECUTES, SHARED_THREADS);
    X(destroy_plan)(p);
    X(free)(a);
    X(free)(b);
}

/* A failed execute cannot be returned through FFTW's void executes: the
   drop-in stops the program with hfft's message. */
TD_TEST(failed_execute_stops, .signal = SIGABRT) {
    R *r = X(alloc_real)(32);
    X(complex) *h = X(alloc_complex)(17);
    X(plan) p = X(plan_dft_r2c_1d)(32, r, h, FFTW_ESTIMATE);
    cr_assert(p);
    X(execute_dft)(p, h, h); /* a complex execute on a real-to-complex plan */
}

/* ---- flags ---- */

TD_TEST(flags) {
    int n[1] = {64};
    /* FFTW's planner hints have no hfft meaning: accepted and ignored */
    unsigned hints[] = {FFTW_CONSERVE_MEMORY, FFTW_NO_SIMD, FFTW_ESTIMATE_PATIENT,
                        FFTW_ALLOW_LARGE_GENERIC, FFTW_NO_INDIRECT_OP, FFTW_ALLOW_PRUNING,
                        FFTW_WISDOM_ONLY, FFTW_EXHAUSTIVE, FFTW_PRESERVE_INPUT | FFTW_DESTROY_INPUT,
                        FFTW_DESTROY_INPUT, FFTW_ESTIMATE | FFTW_PATIENT};
    for (size_t k = 0; k < sizeof hints / sizeof *hints; k++)
        basic_c2c(1, n, 0, FFTW_FORWARD, hints[k]);
}

/* ---- what FFTW refuses, the drop-in refuses ---- */

TD_TEST(refusals) {
    X(complex) *a = X(alloc_complex)(16);
    int bad[2] = {4, -4};
    cr_expect_null(X(plan_dft)(2, bad, a, a, FFTW_FORWARD, FFTW_ESTIMATE));
    cr_expect_null(X(plan_dft)(-1, bad, a, a, FFTW_FORWARD, FFTW_ESTIMATE));
    cr_expect_null(X(plan_dft_1d)(16, a, a, 0, FFTW_ESTIMATE));
    cr_expect_null(X(plan_many_dft)(1, bad, -1, a, NULL, 1, 4, a, NULL, 1, 4, FFTW_FORWARD,
                                    FFTW_ESTIMATE));
    X(free)(a);
    X(destroy_plan)(NULL);
}

/* ---- threads: a count for later plans ---- */

TD_TEST(threads) {
    setenv("HFFT_DEVICE", "none", 1);
    unsetenv("HFFT_THREADS");
    cr_assert_eq(X(init_threads)(), 1);
    cr_expect_eq(X(planner_nthreads)(), 0, "before any call: hfft's own count");
    X(plan_with_nthreads)(3);
    cr_expect_eq(X(planner_nthreads)(), 3);
    X(complex) *a = X(alloc_complex)(256);
    X(plan) p = X(plan_dft_2d)(16, 16, a, a, FFTW_FORWARD, FFTW_ESTIMATE);
    cr_assert(p);
    char *s = X(sprint_plan)(p);
    cr_expect(s && strstr(s, "threads=3"), "plan description: %s", s ? s : "(null)");
    free(s);
    X(destroy_plan)(p);
    X(threads_set_callback)(NULL, NULL);
    X(make_planner_thread_safe)();
    X(plan_with_nthreads)(0);
    cr_expect_eq(X(planner_nthreads)(), 0, "0: back to hfft's own count");
    X(plan_with_nthreads)(2);
    X(cleanup_threads)();
    cr_expect_eq(X(planner_nthreads)(), 0, "cleanup_threads: back to hfft's own count");
    X(free)(a);
}

/* ---- wisdom: accepted, not used ---- */

static void put(char c, void *data) {
    char **at = data;
    *(*at)++ = c;
}

static int get(void *data) {
    (void)data;
    return EOF;
}

TD_TEST(wisdom) {
    char *w = X(export_wisdom_to_string)();
    cr_assert(w);
    cr_expect(strncmp(w, "(hfft-", 6) == 0, "wisdom text: %s", w);
    cr_expect_eq(X(import_wisdom_from_string)(w), 1);
    char buf[256] = "", *at = buf;
    X(export_wisdom)(put, &at);
    cr_expect_str_eq(buf, w);
    free(w);
    char path[] = "/tmp/hfftw-wisdom-XXXXXX";
    int fd = mkstemp(path);
    cr_assert(fd >= 0);
    close(fd);
    cr_expect_eq(X(export_wisdom_to_filename)(path), 1);
    cr_expect_eq(X(import_wisdom_from_filename)(path), 1);
    FILE *f = fopen(path, "r");
    cr_assert(f);
    cr_expect_eq(X(import_wisdom_from_file)(f), 1);
    fclose(f);
    f = fopen(path, "w");
    X(export_wisdom_to_file)(f);
    fclose(f);
    unlink(path);
    cr_expect_eq(X(import_wisdom_from_filename)("/nonexistent/hfftw-wisdom"), 0);
    cr_expect_eq(X(import_wisdom)(get, NULL), 1);
    cr_expect_eq(X(import_system_wisdom)(), 0);
    X(forget_wisdom)();
    X(set_timelimit)(1.0);
    X(set_timelimit)(FFTW_NO_TIMELIMIT);
    X(cleanup)();
}

/* ---- memory ---- */

TD_TEST(memory) {
    void *p = X(malloc)(42);
    cr_assert(p);
    cr_expect_eq(X(alignment_of)((R *)p), 0, "fftw_malloc'd memory has alignment 0");
    cr_expect_eq(X(alignment_of)((R *)p + 1), (int)sizeof(R));
    X(free)(p);
    R *r = X(alloc_real)(1000);
    X(complex) *c = X(alloc_complex)(1000);
    cr_assert(r && c);
    r[999] = 1;
    c[999][1] = 2;
    X(free)(r);
    X(free)(c);
    X(free)(NULL);
}

/* ---- describing a plan: text and operation counts ---- */

TD_TEST(describe) {
    X(complex) *a = X(alloc_complex)(1024);
    X(plan) p = X(plan_dft_1d)(1024, a, a, FFTW_FORWARD, FFTW_ESTIMATE);
    cr_assert(p);
    char *s = X(sprint_plan)(p);
    cr_expect(s && strncmp(s, "(hfft-", 6) == 0 && strstr(s, "c2c 1024"), "%s", s ? s : "");
    free(s);
    X(print_plan)(p);
    X(fprint_plan)(p, stdout);
    printf("\n");
    double add, mul, fma;
    X(flops)(p, &add, &mul, &fma);
    cr_expect(fabs(add + mul - 5.0 * 1024 * 10) < 1e-6, "flops %g + %g", add, mul);
    cr_expect_eq(fma, 0.0);
    cr_expect(X(estimate_cost)(p) > 0 && X(cost)(p) == X(estimate_cost)(p));
    X(destroy_plan)(p);
    X(free)(a);
    cr_expect(strncmp(X(version), "hfft-", 5) == 0, "version %s", X(version));
    cr_expect(X(cc)[0] != '\0');
    cr_expect(X(codelet_optim) != NULL);
}
