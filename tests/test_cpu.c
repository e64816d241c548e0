/*
 * test_cpu.c: accuracy of the CPU path (FFTW threads, no device touched) in
 * 1D, 2D and 3D, both precisions, in and out of place, both directions, on
 * shapes with primes, ones and odd sizes; round trips; MEASURE planning that
 * must not touch the arrays; execute_dft on other arrays; unaligned arrays;
 * strided columns in tiles taken several to a job, 3D planes larger than a
 * core's cache, and strided columns too long for a tile.
 */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "ref.h"
#include "util.h"

TestSuite(cpu, .init = tu_setup, .fini = tu_env_clear);

struct shape {
    int rank;
    int64_t n[3];
};

static void check_cpu_info(const hfft_info *info, const tu_case *c) {
    cr_assert_eq(info->rank, c->rank);
    for (int i = 0; i < c->rank; i++)
        cr_assert_eq(info->n[i], c->n[i], "info.n[%d] = %lld", i, (long long)info->n[i]);
    cr_assert_eq(info->precision, c->prec);
    cr_assert_eq(info->device, HFFT_DEVICE_NONE);
    cr_assert_eq(info->placement, 0);
    cr_assert_eq(info->schedule, 0);
    cr_assert_eq(info->device_bytes, 0);
    cr_assert_geq(info->threads, 1);
    cr_assert_str_eq(info->device_name, "none");
}

/* Every precision, placement and direction of one shape, through both entry
   points (CPU_ONLY flag with plan_1d/2d/3d; options.device = NONE with plan_dft)
   and with 1 to 3 threads. */
static void all_variants(const struct shape *s, unsigned extra_flags) {
    int k = 0;
    for (int prec = 4; prec <= 8; prec += 4)
        for (int inplace = 0; inplace < 2; inplace++)
            for (int sgn = 0; sgn < 2; sgn++, k++) {
                hfft_options o;
                hfft_options_init(&o);
                o.device = HFFT_DEVICE_NONE;
                o.threads = 1 + k % 3;
                tu_case c = {prec, s->rank, {s->n[0], s->n[1], s->n[2]}, inplace,
                             sgn ? HFFT_BACKWARD : HFFT_FORWARD, extra_flags, NULL, 0};
                if (k % 2 == 0) {
                    c.flags |= HFFT_CPU_ONLY;
                    c.use_nd = extra_flags == 0;
                } else {
                    c.opts = &o;
                }
                hfft_info info;
                run_case(&c, &info);
                check_cpu_info(&info, &c);
                if (c.opts)
                    cr_assert_eq(info.threads, o.threads);
            }
}

ParameterizedTestParameters(cpu, accuracy) {
    static struct shape shapes[] = {
        {1, {1}},           {1, {2}},           {1, {3}},           {1, {17}},
        {1, {97}},          {1, {1000}},        {1, {4096}},        {1, {8191}},
        {1, {30030}},       {2, {1, 1}},        {2, {1, 17}},       {2, {17, 1}},
        {2, {2, 2}},        {2, {7, 13}},       {2, {64, 48}},      {2, {97, 101}},
        {2, {1000, 301}},   {2, {997, 64}},     {2, {256, 1024}},   {3, {1, 1, 1}},
        {3, {1, 1, 7}},     {3, {1, 13, 1}},    {3, {4, 1, 1}},     {3, {17, 1, 3}},
        {3, {5, 7, 11}},    {3, {12, 10, 14}},  {3, {2, 3, 257}},   {3, {32, 32, 32}},
    };
    return cr_make_param_array(struct shape, shapes, sizeof shapes / sizeof shapes[0]);
}

ParameterizedTest(struct shape *s, cpu, accuracy) { all_variants(s, 0); }

/* MEASURE times candidates on scratch: the arrays (filled before planning) must
   come through planning untouched, in place too (run_case checks it). */
ParameterizedTestParameters(cpu, measure) {
    static struct shape shapes[] = {
        {1, {256}}, {2, {48, 40}}, {2, {13, 64}}, {3, {6, 8, 10}},
    };
    return cr_make_param_array(struct shape, shapes, sizeof shapes / sizeof shapes[0]);
}

ParameterizedTest(struct shape *s, cpu, measure) { all_variants(s, HFFT_MEASURE); }

/* Double precision with a dimension of a large prime factor: HFFT_MEASURE keeps the
   rounds, whose lines run Bluestein, rather than timing them against FFTW's plan of
   the whole array (faster: 4.7e-16 where the rounds give 2.9e-16), complex and real. */
Test(cpu, measure_keeps_bluestein) {
    for (int real = 0; real < 2; real++) {
        int64_t n[2] = {1031, 48}, total = n[0] * n[1], cn = n[0] * (n[1] / 2 + 1);
        double *x = tu_alloc((size_t)total * 16), *X = tu_alloc((size_t)total * 16);
        hfft_ref_fill(8, x, real ? total / 2 : total, tu_seed());
        unsigned f = HFFT_CPU_ONLY | HFFT_MEASURE;
        hfft_plan p = real ? hfft_plan_dft_r2c(2, n, x, (hfft_complex *)X, f, NULL)
                           : hfft_plan_dft(2, n, (hfft_complex *)x, (hfft_complex *)X,
                                           HFFT_FORWARD, f, NULL);
        cr_assert(p != NULL, "%s", hfft_last_error_message());
        tu_poison(X, (size_t)total * 16);
        cr_assert_eq(hfft_execute(p), 0, "%s", hfft_last_error_message());
        double err = hfft_ref_error_many(8, real, 2, n, 1, x, X, HFFT_FORWARD, 2);
        cr_assert(err >= 0 && err < 3.8e-16, "%s: error %.3g (%lld outputs)",
                  real ? "r2c" : "c2c", err, (long long)(real ? cn : total));
        hfft_destroy_plan(p);
        tu_free(x);
        tu_free(X);
    }
}

/* Fewer lines than threads, each of a prime length (2D f64 3 x 65537 on 4 threads):
   the rounds, whose lines run Bluestein, not FFTW's threaded plan of the whole
   problem, which would keep every thread busy but take FFTW's own 65537-point lines
   (5.3e-16); and a 1D line batched over two vector dimensions, which FFTW's plan
   of the whole would take as its own lines too, under HFFT_MEASURE. */
Test(cpu, idle_threads_keep_bluestein) {
    static const struct {
        int rank, hrank;
        int64_t n[2], h[2];
        unsigned flags;
    } cases[] = {{2, 0, {3, 65537}, {0, 0}, HFFT_ESTIMATE},
                 {1, 2, {7919, 0}, {3, 2}, HFFT_MEASURE}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        hfft_iodim d[2], hd[2];
        int64_t line = cases[i].rank == 2 ? cases[i].n[0] * cases[i].n[1] : cases[i].n[0];
        /* dense: transform dimensions fastest, the vector dimensions above them */
        int64_t stride = 1;
        for (int k = cases[i].rank - 1; k >= 0; k--) {
            d[k] = (hfft_iodim){cases[i].n[k], stride, stride};
            stride *= cases[i].n[k];
        }
        for (int k = cases[i].hrank - 1; k >= 0; k--) {
            hd[k] = (hfft_iodim){cases[i].h[k], stride, stride};
            stride *= cases[i].h[k];
        }
        int64_t total = stride;
        hfft_options o;
        hfft_options_init(&o);
        o.device = HFFT_DEVICE_NONE;
        o.threads = 4;
        double *x = tu_alloc((size_t)total * 16), *X = tu_alloc((size_t)total * 16);
        hfft_ref_fill(8, x, total, tu_seed());
        hfft_plan p = hfft_plan_guru_dft(cases[i].rank, d, cases[i].hrank, hd, (hfft_complex *)x,
                                         (hfft_complex *)X, HFFT_FORWARD, cases[i].flags, &o);
        cr_assert(p != NULL, "case %zu: %s", i, hfft_last_error_message());
        tu_poison(X, (size_t)total * 16);
        cr_assert_eq(hfft_execute(p), 0, "%s", hfft_last_error_message());
        hfft_info info;
        hfft_plan_info(p, &info);
        cr_assert_eq(info.cpu_plan, 0, "case %zu: FFTW's plan of the whole problem", i);
        double err = hfft_ref_error_many(8, 0, cases[i].rank, cases[i].n, total / line, x, X,
                                         HFFT_FORWARD, 1);
        cr_assert(err >= 0 && err <= 5e-16, "case %zu: error %.3g", i, err);
        hfft_destroy_plan(p);
        tu_free(x);
        tu_free(X);
    }
}

/* In place, FFTW's padded layout: a 3D r2c whose planes have a dimension of a prime
   factor above 31 (their rows, then their columns, through Bluestein), against the
   reference, then back through c2r, round trip. */
Test(cpu, bluestein_real_planes_in_place) {
    int64_t n[3] = {4, 53, 106}, h = n[2] / 2 + 1, rows = n[0] * n[1], total = rows * n[2];
    double *x = tu_alloc((size_t)total * 8), *a = tu_alloc((size_t)(rows * h) * 16),
           *X = tu_alloc((size_t)(rows * h) * 16);
    hfft_ref_fill(8, x, total / 2, tu_seed());
    for (int64_t r = 0; r < rows; r++)
        memcpy(a + r * 2 * h, x + r * n[2], (size_t)n[2] * 8);
    unsigned f = HFFT_CPU_ONLY;
    hfft_plan p = hfft_plan_dft_r2c(3, n, a, (hfft_complex *)a, f, NULL);
    hfft_plan q = hfft_plan_dft_c2r(3, n, (hfft_complex *)a, a, f, NULL);
    cr_assert(p && q, "%s", hfft_last_error_message());
    cr_assert_eq(hfft_execute(p), 0, "%s", hfft_last_error_message());
    memcpy(X, a, (size_t)(rows * h) * 16);
    double err = hfft_ref_error_many(8, 1, 3, n, 1, x, X, HFFT_FORWARD, 2);
    cr_assert(err >= 0 && err < 4.5e-16, "r2c: error %.3g", err);
    cr_assert_eq(hfft_execute(q), 0, "%s", hfft_last_error_message());
    long double num = 0, den = 0;
    for (int64_t r = 0; r < rows; r++)
        for (int64_t j = 0; j < n[2]; j++) {
            long double want = (long double)total * x[r * n[2] + j], d = a[r * 2 * h + j] - want;
            num += d * d;
            den += want * want;
        }
    cr_assert(sqrtl(num / den) < 5e-16, "c2r: round trip error %.3Lg", sqrtl(num / den));
    hfft_destroy_plan(p);
    hfft_destroy_plan(q);
    tu_free(x);
    tu_free(a);
    tu_free(X);
}

/* Real data on the CPU alone runs hfft's rounds (real rows through FFTW's batched
   r2c, then the complex columns through tiles), as complex data does, not FFTW's
   plan of the whole array (2D 32768 x 65536 r32 on an H100's host: 2.6 s that
   way); both precisions, r2c out of place and in place (padded rows), c2r out of
   place, long columns (4099 rows) among them.  Out of place, complex rows of
   n/2 + 1 elements that do not start on cache lines go through a buffer whose rows
   do (r2c 384 x 512, c2r 300 x 256); with real rows of 250 reals they cannot. */
Test(cpu, real_data_takes_the_rounds) {
    for (int prec = 4; prec <= 8; prec += 4)
        for (int k = 0; k < 4; k++) {
            int64_t n[2] = {k == 1 ? 4099 : k == 3 ? 300 : 384, k == 2 ? 250 : k == 3 ? 256 : 512};
            int64_t h = n[1] / 2 + 1, cn = n[0] * h;
            int inplace = k == 1, c2r = k >= 2;
            /* the real side's row pitch (reals), and the arrays: in, out, a copy of in */
            int64_t rp = inplace ? 2 * h : n[1];
            size_t rs = (size_t)prec, cb = (size_t)cn * 2 * rs, rb = (size_t)(n[0] * rp) * rs;
            char *in = tu_alloc(c2r ? cb : rb), *out = inplace ? in : tu_alloc(c2r ? rb : cb);
            hfft_ref_fill(prec, in, c2r ? cn : n[0] * rp / 2, tu_seed());
            char *keep = tu_dup(in, c2r ? cb : rb);
            if (!inplace)
                tu_poison(out, c2r ? rb : cb);
            void *p;
            if (!c2r)
                p = prec == 4 ? (void *)hfftf_plan_dft_r2c(2, n, (float *)in, (hfftf_complex *)out,
                                                           HFFT_CPU_ONLY, NULL)
                              : (void *)hfft_plan_dft_r2c(2, n, (double *)in, (hfft_complex *)out,
                                                          HFFT_CPU_ONLY, NULL);
            else
                p = prec == 4 ? (void *)hfftf_plan_dft_c2r(2, n, (hfftf_complex *)in, (float *)out,
                                                           HFFT_CPU_ONLY, NULL)
                              : (void *)hfft_plan_dft_c2r(2, n, (hfft_complex *)in, (double *)out,
                                                          HFFT_CPU_ONLY, NULL);
            cr_assert(p != NULL, "%s", hfft_last_error_message());
            hfft_info info;
            if (prec == 4)
                hfftf_plan_info(p, &info);
            else
                hfft_plan_info(p, &info);
            cr_assert(info.cpu_plan == 0 && info.rounds == 2 && info.placement == 0,
                      "case %d f%d: cpu_plan %d, rounds %d (FFTW's whole plan?)", k, prec * 8,
                      info.cpu_plan, info.rounds);
            cr_assert_eq(prec == 4 ? hfftf_execute(p) : hfft_execute(p), 0, "%s",
                         hfft_last_error_message());
            hfft_ref_dim d[2] = {{n[0], c2r ? h : rp, c2r ? rp : h}, {n[1], 1, 1}};
            double err = hfft_ref_guru_error(prec, c2r ? 2 : 1, c2r ? HFFT_BACKWARD : HFFT_FORWARD,
                                             2, d, 0, NULL, keep, NULL, out, NULL);
            double tol = prec == 4 ? 5e-7 : 5e-16;
            cr_assert(err >= 0 && err < tol, "case %d f%d: error %.3g", k, prec * 8, err);
            if (prec == 4)
                hfftf_destroy_plan(p);
            else
                hfft_destroy_plan(p);
            tu_free(keep);
            if (out != in)
                tu_free(out);
            tu_free(in);
        }
}

/* Real data on the CPU alone: HFFT_MEASURE's trial of FFTW's whole plan on scratch
   covers each side's reach (a real side of padded rows reaches past the complex
   elements: this c2r batch wrote past a scratch sized by them); and a single long
   real line, which our rounds would give one thread, takes FFTW's threaded plan. */
Test(cpu, real_data_measure_and_long_lines) {
    int64_t n = 256, h = n / 2 + 1;
    hfftf_complex *c = tu_alloc(sizeof *c * (size_t)(h * 64));
    float *r = tu_alloc(sizeof *r * 1024 * 64);
    hfft_ref_fill(4, c, h * 64, tu_seed());
    hfftf_complex *keep = tu_dup(c, sizeof *c * (size_t)(h * 64));
    tu_poison(r, sizeof *r * 1024 * 64);
    hfftf_plan p = hfftf_plan_many_dft_c2r64(1, &n, 64, c, NULL, 1, h, r, NULL, 1, 1024,
                                             HFFT_CPU_ONLY | HFFT_MEASURE, NULL);
    cr_assert_not_null(p, "%s", hfft_last_error_message());
    memcpy(c, keep, sizeof *c * (size_t)(h * 64)); /* MEASURE may have overwritten it */
    cr_assert_eq(hfftf_execute(p), 0, "%s", hfft_last_error_message());
    hfft_ref_dim d[1] = {{n, 1, 1}}, hd[1] = {{64, h, 1024}};
    double err = hfft_ref_guru_error(4, 2, HFFT_BACKWARD, 1, d, 1, hd, keep, NULL, r, NULL);
    cr_assert(err >= 0 && err < 5e-7, "c2r, padded rows: error %.3g", err);
    hfftf_destroy_plan(p);
    tu_free(c);
    tu_free(r);
    tu_free(keep);

    int64_t m = 1 << 18; /* a complex side of 1 MiB */
    float *x = tu_alloc(sizeof *x * (size_t)m);
    hfftf_complex *y = tu_alloc(sizeof *y * (size_t)(m / 2 + 1));
    hfft_options o;
    hfft_options_init(&o);
    o.device = HFFT_DEVICE_NONE;
    o.threads = 2;
    p = hfftf_plan_dft_r2c(1, &m, x, y, 0, &o);
    cr_assert_not_null(p, "%s", hfft_last_error_message());
    hfft_info info;
    hfftf_plan_info(p, &info);
    cr_assert(info.cpu_plan == 1 && info.threads == 2,
              "one long real line: cpu_plan %d on %d threads (our rounds would give it one)",
              info.cpu_plan, info.threads);
    hfftf_destroy_plan(p);
    tu_free(x);
    tu_free(y);
}

/* Long columns go through tiles of a few columns, several tiles to a job and
   rows of whole cache lines scattered with streaming stores (8000 x 320), or
   rows that are not (4099 x 37); planes larger than a core's cache are
   transformed by all threads together, rows and then column tiles. */
Test(cpu, tiles_and_large_planes) {
    static const struct shape shapes[] = {
        {2, {8000, 320}}, {2, {4099, 37}}, {3, {3, 520, 600}}, {3, {2, 300, 520}}, {3, {600, 24, 40}},
    };
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++)
        all_variants(&shapes[i], 0);
}

/* Strided columns longer than 4 MiB are transformed where they lie, one
   column per job. */
Test(cpu, long_strided_columns) {
    struct shape s4 = {2, {540000, 3}}, s8 = {2, {270001, 2}};
    for (int inplace = 0; inplace < 2; inplace++) {
        tu_case c4 = {4, 2, {s4.n[0], s4.n[1]}, inplace, HFFT_FORWARD, HFFT_CPU_ONLY, NULL, 0};
        run_case(&c4, NULL);
        tu_case c8 = {8, 2, {s8.n[0], s8.n[1]}, inplace, HFFT_BACKWARD, HFFT_CPU_ONLY, NULL, 0};
        run_case(&c8, NULL);
    }
}

/* A few long lines are cut four-step, n = n0 n1 (hfft_info.split): columns
   with their twiddles, then rows written transposed into natural order,
   through a host array between the rounds unless the output may serve (out of
   place with HFFT_DESTROY_INPUT); a power of two, a length with a 1000-point
   split, double precision, two lines on three threads, and a prime length,
   which FFTW's plan of the whole line takes instead.  The split lines run on at
   most three threads: host_bytes counts each thread's tile buffer, and sixteen
   of them (the H100's host) outweigh a 4 or 16 MiB line. */
Test(cpu, long_lines_four_step) {
    static const struct {
        int prec;
        int rank;
        int64_t n[2];
        int threads, split;
    } cases[] = {
        {4, 1, {1 << 20}, 2, 1}, {4, 1, {1200000}, 2, 1},   {8, 1, {1 << 20}, 2, 1},
        {4, 2, {2, 1 << 20}, 3, 1}, {4, 1, {1048573}, 0, 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        for (int mode = 0; mode < 3; mode++) { /* in place, out of place, and destroying */
            hfft_options o;
            hfft_options_init(&o);
            o.device = HFFT_DEVICE_NONE;
            o.threads = cases[i].threads;
            tu_case c = {cases[i].prec, cases[i].rank, {cases[i].n[0], cases[i].n[1]},
                         mode == 0, mode == 1 ? HFFT_BACKWARD : HFFT_FORWARD,
                         mode == 2 ? HFFT_DESTROY_INPUT : 0u, &o, 0};
            c.input_may_change = mode == 2;
            hfft_info info;
            run_case(&c, &info);
            int64_t n = cases[i].n[cases[i].rank - 1];
            if (!cases[i].split) {
                cr_assert_eq(info.split[0], 0, "case %zu: split a prime line", i);
                continue;
            }
            cr_assert(info.split[1] >= 16 && info.split[0] * info.split[1] == n,
                      "case %zu: split %lld x %lld of %lld", i, (long long)info.split[0],
                      (long long)info.split[1], (long long)n);
            cr_assert_eq(info.rounds, c.rank + 1, "case %zu mode %d: %d rounds", i, mode,
                         info.rounds);
            int64_t bytes = tu_total(c.rank, c.n) * (int64_t)tu_esize(c.prec);
            if (mode == 2)
                cr_assert_lt(info.host_bytes, bytes, "case %zu: a host array beside the input",
                             i);
            else
                cr_assert_geq(info.host_bytes, bytes,
                              "case %zu mode %d: no host array between rounds", i, mode);
        }
}

/* A four-step plan made with HFFT_UNALIGNED on aligned arrays executes on new
   arrays one element off alignment (out of place, the input destroyed: the
   row round then reads the new input). */
Test(cpu, four_step_unaligned_new_arrays) {
    for (int prec = 4; prec <= 8; prec += 4) {
        int64_t n = 1 << 20;
        size_t es = tu_esize(prec), bytes = (size_t)n * es;
        char *a = tu_alloc(bytes), *b = tu_alloc(bytes);
        char *c = tu_alloc(bytes + 64), *d = tu_alloc(bytes + 64);
        hfft_options o;
        hfft_options_init(&o);
        o.device = HFFT_DEVICE_NONE;
        tplan t = tp_dft(prec, 1, &n, a, b, HFFT_FORWARD, HFFT_UNALIGNED | HFFT_DESTROY_INPUT, &o);
        cr_assert(t.p, "%s", hfft_last_error_message());
        hfft_info info;
        tp_info(t, &info);
        cr_assert_gt(info.split[0], 0, "not cut four-step");
        char *in = c + es, *out = d + es;
        uint64_t seed = tu_seed();
        hfft_ref_fill(prec, in, n, seed);
        void *orig = tu_dup(in, bytes);
        tu_poison(out, bytes);
        cr_assert_eq(tp_execute_dft(t, in, out), 0, "%s", hfft_last_error_message());
        double err = hfft_ref_error(prec, 1, &n, orig, out, HFFT_FORWARD, 1);
        cr_assert(err >= 0 && err < tu_tol(prec), "f%d: error %.3g (seed %llu)", prec * 8, err,
                  (unsigned long long)seed);
        tp_destroy(t);
        tu_free(orig);
        tu_free(d);
        tu_free(c);
        tu_free(b);
        tu_free(a);
    }
}

/* Forward then backward gives N x. */
Test(cpu, round_trip) {
    static const struct shape shapes[] = {
        {1, {1}}, {1, {1009}}, {2, {7, 13}}, {2, {64, 48}}, {3, {5, 7, 11}}, {3, {2, 3, 257}},
    };
    for (size_t si = 0; si < sizeof shapes / sizeof shapes[0]; si++) {
        const struct shape *s = &shapes[si];
        for (int prec = 4; prec <= 8; prec += 4) {
            for (int inplace = 0; inplace < 2; inplace++) {
                int64_t total = tu_total(s->rank, s->n);
                size_t bytes = (size_t)total * tu_esize(prec);
                uint64_t seed = tu_seed();
                void *x = tu_alloc(bytes), *a = tu_alloc(bytes);
                void *b = inplace ? a : tu_alloc(bytes);
                hfft_ref_fill(prec, x, total, seed);
                memcpy(a, x, bytes);
                if (!inplace)
                    tu_poison(b, bytes);
                tplan f = tp_dft(prec, s->rank, s->n, a, b, HFFT_FORWARD, HFFT_CPU_ONLY, NULL);
                tplan g = tp_dft(prec, s->rank, s->n, b, b, HFFT_BACKWARD, HFFT_CPU_ONLY, NULL);
                cr_assert(f.p && g.p, "round trip plans: %s", hfft_last_error_message());
                cr_assert_eq(tp_execute(f), 0);
                cr_assert_eq(tp_execute(g), 0);
                /* Scale x by N, in the test's own precision. */
                void *nx = tu_alloc(bytes);
                for (int64_t i = 0; i < 2 * total; i++) {
                    if (prec == 4)
                        ((float *)nx)[i] = (float)((double)((float *)x)[i] * (double)total);
                    else
                        ((double *)nx)[i] = ((double *)x)[i] * (double)total;
                }
                double err = tu_rel_rms(prec, b, nx, total);
                char shape[64];
                cr_assert(err < tu_tol(prec), "%s round trip %s: error %.3g (seed %llu)",
                          tu_shape(shape, sizeof shape, prec, s->rank, s->n),
                          inplace ? "in-place" : "out-of-place", err, (unsigned long long)seed);
                tp_destroy(f);
                tp_destroy(g);
                tu_free(nx);
                if (b != a)
                    tu_free(b);
                tu_free(a);
                tu_free(x);
            }
        }
    }
}

/* execute_dft on other arrays of the same alignment: correct, and repeatable. */
Test(cpu, execute_dft_other_arrays) {
    int64_t n[2] = {37, 24};
    for (int prec = 4; prec <= 8; prec += 4) {
        for (int inplace = 0; inplace < 2; inplace++) {
            int64_t total = n[0] * n[1];
            size_t bytes = (size_t)total * tu_esize(prec);
            void *a = tu_alloc(bytes), *b = inplace ? a : tu_alloc(bytes);
            tplan t = tp_dft(prec, 2, n, a, b, HFFT_FORWARD, HFFT_CPU_ONLY, NULL);
            cr_assert(t.p, "%s", hfft_last_error_message());
            for (int rep = 0; rep < 2; rep++) {
                void *c = tu_alloc(bytes), *d = inplace ? c : tu_alloc(bytes);
                uint64_t seed = tu_seed();
                hfft_ref_fill(prec, c, total, seed);
                void *orig = tu_dup(c, bytes);
                if (!inplace)
                    tu_poison(d, bytes);
                cr_assert_eq(tp_execute_dft(t, c, d), 0, "%s", hfft_last_error_message());
                if (!inplace)
                    cr_assert(memcmp(c, orig, bytes) == 0, "execute_dft changed its input");
                double err = hfft_ref_error(prec, 2, n, orig, d, HFFT_FORWARD, 1);
                cr_assert(err >= 0 && err < tu_tol(prec), "execute_dft error %.3g (seed %llu)",
                          err, (unsigned long long)seed);
                /* The same input again gives bit-identical output. */
                void *first = tu_dup(d, bytes);
                memcpy(c, orig, bytes);
                cr_assert_eq(tp_execute_dft(t, c, d), 0);
                cr_assert(memcmp(first, d, bytes) == 0, "a second execute differs");
                tu_free(first);
                tu_free(orig);
                if (d != c)
                    tu_free(d);
                tu_free(c);
            }
            tp_destroy(t);
            if (b != a)
                tu_free(b);
            tu_free(a);
        }
    }
}

/* Arrays one complex element off 64-byte alignment (both, or only one). */
Test(cpu, unaligned_arrays) {
    int64_t shapes[][4] = {{1, 1000}, {2, 33, 40}, {3, 6, 10, 8}};
    for (int si = 0; si < 3; si++) {
        int rank = (int)shapes[si][0];
        const int64_t *n = &shapes[si][1];
        int64_t total = tu_total(rank, n);
        for (int prec = 4; prec <= 8; prec += 4) {
            size_t es = tu_esize(prec), bytes = (size_t)total * es;
            for (int mode = 0; mode < 3; mode++) {
                char *ba = tu_alloc(bytes + 64), *bb = tu_alloc(bytes + 64);
                char *in = ba + (mode != 2 ? es : 0);
                char *out = mode == 0 ? in : bb + (mode != 1 ? es : 0);
                uint64_t seed = tu_seed();
                hfft_ref_fill(prec, in, total, seed);
                void *orig = tu_dup(in, bytes);
                if (out != in)
                    tu_poison(out, bytes);
                tplan t = tp_dft(prec, rank, n, in, out, HFFT_FORWARD, HFFT_CPU_ONLY, NULL);
                cr_assert(t.p, "%s", hfft_last_error_message());
                cr_assert_eq(tp_execute(t), 0, "%s", hfft_last_error_message());
                double err = hfft_ref_error(prec, rank, n, orig, out, HFFT_FORWARD, 1);
                cr_assert(err >= 0 && err < tu_tol(prec),
                          "unaligned rank %d f%d mode %d: error %.3g (seed %llu)", rank, prec * 8,
                          mode, err, (unsigned long long)seed);
                if (out != in)
                    cr_assert(memcmp(in, orig, bytes) == 0);
                tp_destroy(t);
                tu_free(orig);
                tu_free(bb);
                tu_free(ba);
            }
        }
    }
}

/* Arrays from hfft_alloc_complex / hfftf_alloc_complex start on a page (4096 bytes) and work. */
Test(cpu, library_allocations) {
    int64_t n[2] = {50, 30};
    int64_t total = n[0] * n[1];
    hfftf_complex *af = hfftf_alloc_complex((size_t)total);
    hfft_complex *ad = hfft_alloc_complex((size_t)total);
    void *raw = hfft_malloc(100);
    cr_assert(af && ad && raw, "%s", hfft_last_error_message());
    cr_assert_eq((uintptr_t)af % 4096, 0);
    cr_assert_eq((uintptr_t)ad % 4096, 0);
    cr_assert_eq((uintptr_t)raw % 4096, 0);
    memset(raw, 1, 100);
    uint64_t seed = tu_seed();
    hfft_ref_fill(4, af, total, seed);
    hfft_ref_fill(8, ad, total, seed);
    void *of = tu_dup(af, (size_t)total * 8), *od = tu_dup(ad, (size_t)total * 16);
    hfftf_plan pf = hfftf_plan_2d(50, 30, af, af, HFFT_BACKWARD, HFFT_CPU_ONLY);
    hfft_plan pd = hfft_plan_2d(50, 30, ad, ad, HFFT_BACKWARD, HFFT_CPU_ONLY);
    cr_assert(pf && pd, "%s", hfft_last_error_message());
    cr_assert_eq(hfftf_execute(pf), 0);
    cr_assert_eq(hfft_execute(pd), 0);
    cr_assert_lt(hfft_ref_error(4, 2, n, of, af, HFFT_BACKWARD, 1), TU_TOL_F);
    cr_assert_lt(hfft_ref_error(8, 2, n, od, ad, HFFT_BACKWARD, 1), TU_TOL_D);
    hfftf_destroy_plan(pf);
    hfft_destroy_plan(pd);
    hfftf_free(af);
    hfft_free(ad);
    hfft_free(raw);
    hfft_free(NULL);
    tu_free(of);
    tu_free(od);
}

/* Where the address space is limited (ulimit -v), a length with a large prime factor
   whose FFTW plan would need more than is left is refused with HFFT_ERR_HOST_MEMORY
   (FFTW itself aborts the process when one of its allocations fails).  Not under
   AddressSanitizer, whose shadow memory needs more address space than the limit. */
#if defined(__SANITIZE_ADDRESS__)
#define TU_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define TU_ASAN 1
#endif
#endif
Test(cpu, large_prime_line_under_an_address_space_limit) {
#ifdef TU_ASAN
    cr_skip_test("AddressSanitizer reserves more address space than the limit leaves");
#else
    const int64_t n = 33554393; /* prime */
    hfftf_complex *a = hfftf_alloc_complex((size_t)n);
    cr_assert_not_null(a);
    long kib = 0;
    char line[256];
    FILE *f = fopen("/proc/self/status", "r");
    cr_assert_not_null(f);
    while (fgets(line, sizeof line, f))
        if (strncmp(line, "VmSize:", 7) == 0)
            kib = atol(line + 7);
    fclose(f);
    struct rlimit lim = {(rlim_t)(kib + (512 << 10)) << 10, RLIM_INFINITY};
    cr_assert_eq(setrlimit(RLIMIT_AS, &lim), 0);
    hfft_options o;
    hfft_options_init(&o);
    o.threads = 1;
    hfftf_plan p = hfftf_plan_dft(1, &n, a, a, HFFT_FORWARD, HFFT_CPU_ONLY, &o);
    cr_assert_null(p, "planned with the address space limited");
    cr_assert_eq(hfft_last_error(), HFFT_ERR_HOST_MEMORY, "%s", hfft_last_error_message());
    hfftf_free(a);
#endif
}
