/*
 * test_r2r.c: real-to-real transforms (hfft_plan_*r2r*), both precisions,
 * against FFTW's long-double r2r of the same input: every kind, sizes from
 * the smallest FFTW defines for it, odd ones and primes, ranks 1 to 3 with a
 * kind per dimension, batches and strided layouts, in and out of place; on
 * the CPU, and on the emulated device at budgets that make it stream, take
 * one trip, share rounds with the CPU and spread over several cards.  Also
 * the layouts that run as FFTW's plan of the whole problem, what hfft_info
 * says, and every bad argument.
 */
#include <criterion/criterion.h>
#include <fftw3.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

TestSuite(r2r, .init = tu_setup, .fini = tu_env_clear);

/* The targets: relative RMS against FFTW in long double. */
static double r2r_tol(int prec) { return prec == 4 ? 5e-7 : 5e-16; }

static const char *const kind_name[] = {"R2HC",    "HC2R",    "DHT",     "REDFT00",
                                        "REDFT01", "REDFT10", "REDFT11", "RODFT00",
                                        "RODFT01", "RODFT10", "RODFT11"};

static void *plan_guru(int prec, int rank, const hfft_iodim *d, int hrank, const hfft_iodim *h,
                       void *in, void *out, const hfft_r2r_kind *k, unsigned flags,
                       const hfft_options *o) {
    return prec == 4 ? (void *)hfftf_plan_guru_r2r(rank, d, hrank, h, in, out, k, flags, o)
                     : (void *)hfft_plan_guru_r2r(rank, d, hrank, h, in, out, k, flags, o);
}
static int execute(int prec, void *p) {
    return prec == 4 ? hfftf_execute(p) : hfft_execute(p);
}
static int execute_r2r(int prec, void *p, void *in, void *out) {
    return prec == 4 ? hfftf_execute_r2r(p, in, out) : hfft_execute_r2r(p, in, out);
}
static void info_of(int prec, void *p, hfft_info *i) {
    cr_assert_eq(prec == 4 ? hfftf_plan_info(p, i) : hfft_plan_info(p, i), 0);
}
static void destroy(int prec, void *p) {
    if (prec == 4)
        hfftf_destroy_plan(p);
    else
        hfft_destroy_plan(p);
}

static long double get(int prec, const void *a, int64_t i) {
    return prec == 4 ? ((const float *)a)[i] : ((const double *)a)[i];
}
static void put(int prec, void *a, int64_t i, double v) {
    if (prec == 4)
        ((float *)a)[i] = (float)v;
    else
        ((double *)a)[i] = v;
}

/* Offsets of every logical element (vector dimensions outermost) on one side. */
static int64_t offsets(int rank, const hfft_iodim *d, int hrank, const hfft_iodim *h, int out,
                       int64_t *off) {
    hfft_iodim all[2 * HFFT_MAX_RANK];
    int nd = 0;
    for (int k = 0; k < hrank; k++)
        all[nd++] = h[k];
    for (int k = 0; k < rank; k++)
        all[nd++] = d[k];
    int64_t count = 1, idx[2 * HFFT_MAX_RANK] = {0};
    for (int k = 0; k < nd; k++)
        count *= all[k].n;
    for (int64_t e = 0; e < count; e++) {
        int64_t o = 0;
        for (int k = 0; k < nd; k++)
            o += idx[k] * (out ? all[k].os : all[k].is);
        off[e] = o;
        for (int k = nd - 1; k >= 0; k--) {
            if (++idx[k] < all[k].n)
                break;
            idx[k] = 0;
        }
    }
    return count;
}

/* FFTW's long-double r2r of the logical input x (count elements, dense, vector
   dimensions outermost) into y. */
static void reference(int rank, const hfft_iodim *d, int hrank, const hfft_iodim *h,
                      const hfft_r2r_kind *kind, long double *x, long double *y) {
    fftwl_iodim64 dd[HFFT_MAX_RANK], hh[HFFT_MAX_RANK];
    int64_t s = 1;
    for (int k = rank - 1; k >= 0; k--) {
        dd[k] = (fftwl_iodim64){d[k].n, s, s};
        s *= d[k].n;
    }
    for (int k = hrank - 1; k >= 0; k--) {
        hh[k] = (fftwl_iodim64){h[k].n, s, s};
        s *= h[k].n;
    }
    fftwl_r2r_kind kk[HFFT_MAX_RANK];
    for (int k = 0; k < rank; k++)
        kk[k] = (fftwl_r2r_kind)kind[k];
    fftwl_plan p = fftwl_plan_guru64_r2r(rank, dd, hrank, hh, x, y, kk, FFTW_ESTIMATE);
    cr_assert(p, "fftwl_plan_guru64_r2r failed");
    fftwl_execute(p);
    fftwl_destroy_plan(p);
}

typedef struct r2r_case {
    int prec;
    int rank;
    int64_t n[3];
    hfft_r2r_kind kind[3];
    int64_t howmany;   /* 0: none; else a vector dimension */
    int interleaved;   /* the batch innermost (stride 1), the lines `howmany` apart */
    int inplace;
    int pad;           /* reals of padding after each innermost row (a strided layout) */
} r2r_case;

typedef struct engine {
    const char *name;
    unsigned flags;
    int device;        /* HFFT_DEVICE_* (0: the CPU) */
    int64_t budget;
    const char *devices;
    int64_t pass_bytes;
} engine;

/* Builds the case's guru dimensions. */
static void layout(const r2r_case *c, hfft_iodim *d, int *hrank, hfft_iodim *h) {
    int64_t s = c->interleaved ? c->howmany : 1;
    for (int k = c->rank - 1; k >= 0; k--) {
        d[k] = (hfft_iodim){c->n[k], s, s};
        s *= c->n[k] + (k == c->rank - 1 ? c->pad : 0);
    }
    *hrank = c->howmany ? 1 : 0;
    if (c->howmany)
        h[0] = c->interleaved ? (hfft_iodim){c->howmany, 1, 1} : (hfft_iodim){c->howmany, s, s};
}

/* Plans, executes and checks one case on one engine; fills *info. */
static double run_r2r(const r2r_case *c, const engine *e, hfft_info *info) {
    hfft_iodim d[3] = {{0}}, h[1] = {{0}};
    int hrank;
    layout(c, d, &hrank, h);
    int64_t cnt = 1, span = 1;
    for (int k = 0; k < c->rank; k++)
        cnt *= c->n[k];
    cnt *= c->howmany ? c->howmany : 1;
    int64_t *ioff = malloc((size_t)cnt * sizeof *ioff), *ooff = malloc((size_t)cnt * sizeof *ooff);
    offsets(c->rank, d, hrank, h, 0, ioff);
    offsets(c->rank, d, hrank, h, 1, ooff);
    for (int64_t i = 0; i < cnt; i++)
        if (ioff[i] + 1 > span)
            span = ioff[i] + 1;
    size_t bytes = (size_t)span * (size_t)c->prec;
    void *in = tu_alloc(bytes), *out = c->inplace ? in : tu_alloc(bytes);
    long double *x = malloc((size_t)cnt * sizeof *x), *y = malloc((size_t)cnt * sizeof *y);
    hfft_options o;
    hfft_options_init(&o);
    o.device = e->device ? e->device : HFFT_DEVICE_NONE;
    o.device_memory = e->budget;
    o.devices = e->devices;
    o.pass_bytes = e->pass_bytes;
    tu_poison(in, bytes);
    if (!c->inplace)
        tu_poison(out, bytes);
    void *p = plan_guru(c->prec, c->rank, d, hrank, h, in, out, c->kind, e->flags, &o);
    char what[160];
    snprintf(what, sizeof what, "%s %s %lldx%lldx%lld howmany %lld%s%s pad %d, %s (%s)",
             c->prec == 4 ? "f32" : "f64", kind_name[c->kind[0]], (long long)c->n[0],
             (long long)(c->rank > 1 ? c->n[1] : 1), (long long)(c->rank > 2 ? c->n[2] : 1),
             (long long)c->howmany, c->interleaved ? " interleaved" : "",
             c->inplace ? " in place" : "", c->pad, e->name, hfft_last_error_message());
    cr_assert(p, "%s: no plan", what);
    srand((unsigned)tu_seed());
    for (int64_t i = 0; i < cnt; i++) {
        double v = 2.0 * rand() / RAND_MAX - 1.0;
        put(c->prec, in, ioff[i], v);
        x[i] = get(c->prec, in, ioff[i]);
    }
    void *keep = tu_dup(in, bytes);
    cr_assert_eq(execute(c->prec, p), 0, "%s: %s", what, hfft_last_error_message());
    reference(c->rank, d, hrank, h, c->kind, x, y);
    info_of(c->prec, p, info);
    char buf[512];
    double err = 0;
    /* the plan's arrays, then fresh ones of the same layout (the new-array execute) */
    for (int round = 0; round < 2; round++) {
        long double num = 0, den = 0;
        for (int64_t i = 0; i < cnt; i++) {
            long double a = get(c->prec, out, ooff[i]);
            cr_assert(!isnan((double)a), "%s: output %lld unwritten", what, (long long)i);
            num += (a - y[i]) * (a - y[i]);
            den += y[i] * y[i];
        }
        double r = (double)sqrtl(num / den);
        cr_assert(r <= r2r_tol(c->prec), "%s%s: error %.3g (%s)", what,
                  round ? ", new arrays" : "", r, tu_describe_info(buf, sizeof buf, info));
        if (!c->inplace)
            cr_assert(!memcmp(keep, in, bytes), "%s: the input changed", what);
        err = r > err ? r : err;
        if (round)
            break;
        void *in2 = tu_dup(keep, bytes), *out2 = c->inplace ? in2 : tu_alloc(bytes);
        if (!c->inplace)
            tu_poison(out2, bytes);
        cr_assert_eq(execute_r2r(c->prec, p, in2, out2), 0, "%s: %s", what,
                     hfft_last_error_message());
        if (out != in)
            tu_free(out);
        tu_free(in);
        in = in2;
        out = out2;
    }
    destroy(c->prec, p);
    tu_free(keep);
    if (out != in)
        tu_free(out);
    tu_free(in);
    free(x);
    free(y);
    free(ioff);
    free(ooff);
    return err;
}

#define PLAIN (HFFT_GPU_ONLY | HFFT_SCHEDULE_PLAIN)
static const engine ENGINES[] = {
    {"CPU", HFFT_CPU_ONLY, 0, 0, NULL, 0},
    {"emulated, streaming at 64 KiB", PLAIN, HFFT_DEVICE_EMULATED, 64 << 10, NULL, 0},
    {"emulated, one trip", HFFT_GPU_ONLY, HFFT_DEVICE_EMULATED, 64 << 20, NULL, 0},
    {"emulated, hybrid", HFFT_HYBRID, HFFT_DEVICE_EMULATED, 64 << 20, NULL, 0},
    {"emulated, 2 cards streaming", PLAIN, HFFT_DEVICE_EMULATED, 64 << 10, "0,1", 0},
    {"emulated, 3 cards, one trip", HFFT_GPU_ONLY, HFFT_DEVICE_EMULATED, 64 << 20, "0,1,2", 0},
    {"emulated, passes of 512 bytes", PLAIN, HFFT_DEVICE_EMULATED, 64 << 20, NULL, 512},
};
#define NENG (int)(sizeof ENGINES / sizeof ENGINES[0])

/* Every kind in 1D over sizes from FFTW's smallest to a few thousand, on the CPU and
   on an emulated card (the even sizes run as pairs of reals; odd ones whole). */
Test(r2r, every_kind_1d) {
    static const int64_t sizes[] = {1, 2, 3, 4, 5, 6, 8, 12, 17, 30, 64, 97, 100, 1024, 2310};
    for (int prec = 4; prec <= 8; prec += 4)
        for (int k = 0; k <= HFFT_RODFT11; k++)
            for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++) {
                if (k == HFFT_REDFT00 && sizes[s] < 2)
                    continue;
                int paired = sizes[s] % 2 == 0 && sizes[s] >= 4;
                for (int e = 0; e < 3; e++) {
                    r2r_case c = {prec, 1, {sizes[s]}, {(hfft_r2r_kind)k}};
                    c.inplace = (int)(s % 2);
                    engine en = ENGINES[e];
                    /* (a row's buffer holds its reals as complex points: twice the line,
                       four times for types I and IV) */
                    en.budget = en.budget ? 512 << 10 : 0;
                    if (!paired && en.device)
                        en.flags = 0; /* FFTW's plan of the whole problem, on the CPU */
                    hfft_info info;
                    run_r2r(&c, &en, &info);
                    cr_assert_eq(info.kind, 3);
                    cr_assert_eq(info.r2r_kinds[0], k);
                    cr_assert_eq(info.r2r_paired, paired, "n %lld: r2r_paired %d",
                                 (long long)sizes[s], info.r2r_paired);
                    if (paired && en.device)
                        cr_assert(e == 1 ? info.schedule == HFFT_SCHED_PLAIN : info.schedule != 0,
                                  "n %lld on %s: schedule %d", (long long)sizes[s], en.name,
                                  info.schedule);
                }
            }
}

/* Ranks 2 and 3 with a different kind per dimension, on every engine. */
Test(r2r, kinds_per_dimension_every_engine) {
    static const r2r_case cases[] = {
        {8, 2, {16, 12}, {HFFT_REDFT10, HFFT_RODFT10}},
        {4, 2, {33, 20}, {HFFT_REDFT01, HFFT_REDFT11}},
        {8, 2, {24, 40}, {HFFT_RODFT11, HFFT_REDFT00}, 0, 0, 1},
        {4, 2, {64, 64}, {HFFT_DHT, HFFT_R2HC}},
        {8, 2, {10, 8}, {HFFT_HC2R, HFFT_RODFT00}},
        {4, 3, {8, 6, 10}, {HFFT_REDFT10, HFFT_REDFT10, HFFT_REDFT10}},
        {8, 3, {6, 9, 8}, {HFFT_RODFT01, HFFT_REDFT01, HFFT_RODFT11}, 0, 0, 1},
        {4, 3, {12, 8, 16}, {HFFT_R2HC, HFFT_DHT, HFFT_HC2R}},
        {8, 2, {20, 16}, {HFFT_REDFT10, HFFT_REDFT10}, 6},
        {4, 1, {48}, {HFFT_RODFT10}, 10, 1},
        {8, 2, {12, 20}, {HFFT_REDFT11, HFFT_RODFT01}, 4, 1},
        {4, 2, {16, 12}, {HFFT_REDFT10, HFFT_REDFT01}, 0, 0, 0, 2},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
        for (int e = 0; e < NENG; e++) {
            engine en = ENGINES[e];
            if (cases[i].pad && en.device)
                en.flags = 0; /* not one dense array: FFTW's plan of the whole problem */
            hfft_info info;
            run_r2r(&cases[i], &en, &info);
            if (cases[i].pad)
                cr_assert_eq(info.r2r_paired, 0, "a padded layout runs whole");
            else if (ENGINES[e].device)
                cr_assert_eq(info.device, HFFT_DEVICE_EMULATED, "case %zu on %s: device %d",
                             i, ENGINES[e].name, info.device);
            if (ENGINES[e].devices && !cases[i].pad)
                cr_assert_geq(info.cards, 2, "case %zu on %s: %d cards", i, ENGINES[e].name,
                              info.cards);
        }
}

/* Layouts the pairs do not take run as FFTW's plan of the whole problem, on the CPU,
   and say so; asking for the GPU then is an error that says why. */
Test(r2r, whole_problem_layouts) {
    static const r2r_case cases[] = {
        {8, 2, {6, 7}, {HFFT_REDFT10, HFFT_REDFT10}},        /* odd innermost */
        {4, 1, {2}, {HFFT_RODFT00}},                         /* two reals */
        {8, 2, {1, 8}, {HFFT_REDFT10, HFFT_R2HC}},           /* a size of one that scales */
        {4, 2, {8, 8}, {HFFT_DHT, HFFT_DHT}, 3},             /* three transforms, dense */
    };
    engine automatic = ENGINES[2];
    automatic.flags = 0;
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        hfft_info info;
        run_r2r(&cases[i], &automatic, &info);
        if (i < 3) {
            cr_assert_eq(info.r2r_paired, 0, "case %zu", i);
            cr_assert_eq(info.device, HFFT_DEVICE_NONE);
        }
    }
    float *a = tu_alloc(64 * sizeof(float));
    hfft_options o;
    hfft_options_init(&o);
    o.device = HFFT_DEVICE_EMULATED;
    int64_t n[2] = {6, 7};
    hfft_r2r_kind k[2] = {HFFT_REDFT10, HFFT_REDFT10};
    cr_assert_null(hfftf_plan_r2r64(2, n, a, a, k, HFFT_GPU_ONLY, &o));
    cr_assert(strstr(hfft_last_error_message(), "r2r layout"), "%s", hfft_last_error_message());
    tu_free(a);
}

/* The basic and advanced interfaces plan the same transform as the guru one, and a
   plan runs on new arrays. */
Test(r2r, interfaces_and_new_arrays) {
    enum { N0 = 12, N1 = 10 };
    double *a = tu_alloc(N0 * N1 * sizeof(double)), *b = tu_alloc(N0 * N1 * sizeof(double));
    double *c = tu_alloc(N0 * N1 * sizeof(double)), *d = tu_alloc(N0 * N1 * sizeof(double));
    for (int i = 0; i < N0 * N1; i++)
        a[i] = c[i] = sin(0.37 * i) + 0.25;
    hfft_plan p2 = hfft_plan_r2r_2d(N0, N1, a, b, HFFT_REDFT10, HFFT_RODFT01, HFFT_CPU_ONLY);
    cr_assert(p2, "%s", hfft_last_error_message());
    cr_assert_eq(hfft_execute(p2), 0);
    int n[2] = {N0, N1};
    hfft_r2r_kind k[2] = {HFFT_REDFT10, HFFT_RODFT01};
    hfft_plan pr = hfft_plan_r2r(2, n, c, d, k, HFFT_CPU_ONLY);
    cr_assert(pr);
    cr_assert_eq(hfft_execute(pr), 0);
    cr_assert(!memcmp(b, d, N0 * N1 * sizeof(double)), "plan_r2r and plan_r2r_2d differ");
    hfft_plan pm = hfft_plan_many_r2r(2, n, 1, c, NULL, 1, 0, d, NULL, 1, 0, k, HFFT_CPU_ONLY);
    cr_assert(pm);
    memset(d, 0, N0 * N1 * sizeof(double));
    cr_assert_eq(hfft_execute(pm), 0);
    for (int i = 0; i < N0 * N1; i++)
        cr_assert_float_eq(d[i], b[i], 1e-12 * (1 + fabs(b[i])));
    /* new arrays: the plan's transform of c into a fresh d */
    memset(d, 0, N0 * N1 * sizeof(double));
    cr_assert_eq(hfft_execute_r2r(p2, c, d), 0);
    for (int i = 0; i < N0 * N1; i++)
        cr_assert_float_eq(d[i], b[i], 1e-12 * (1 + fabs(b[i])));
    /* and not as another kind of plan */
    cr_assert_neq(hfft_execute_dft(p2, (hfft_complex *)c, (hfft_complex *)d), 0);
    cr_assert(strstr(hfft_last_error_message(), "real to real"), "%s",
              hfft_last_error_message());
    hfft_destroy_plan(p2);
    hfft_destroy_plan(pr);
    hfft_destroy_plan(pm);
    /* 1D and 3D */
    hfft_plan p1 = hfft_plan_r2r_1d(N0, a, b, HFFT_DHT, HFFT_CPU_ONLY);
    hfft_plan p3 = hfft_plan_r2r_3d(2, 6, N1, a, b, HFFT_R2HC, HFFT_REDFT11, HFFT_RODFT11,
                                    HFFT_CPU_ONLY);
    cr_assert(p1 && p3);
    cr_assert_eq(hfft_execute(p1), 0);
    cr_assert_eq(hfft_execute(p3), 0);
    hfft_destroy_plan(p1);
    hfft_destroy_plan(p3);
    tu_free(a);
    tu_free(b);
    tu_free(c);
    tu_free(d);
}

/* A transform and its inverse give the input times FFTW's logical size, for every
   kind, on an emulated card: DCT-II then DCT-III is 2n, and so on. */
Test(r2r, inverses) {
    static const int inverse[] = {HFFT_HC2R,    HFFT_R2HC,    HFFT_DHT,     HFFT_REDFT00,
                                  HFFT_REDFT10, HFFT_REDFT01, HFFT_REDFT11, HFFT_RODFT00,
                                  HFFT_RODFT10, HFFT_RODFT01, HFFT_RODFT11};
    enum { N = 24, M = 16 };
    hfft_options o;
    hfft_options_init(&o);
    o.device = HFFT_DEVICE_EMULATED;
    o.device_memory = 16 << 10;
    for (int k = 0; k <= HFFT_RODFT11; k++) {
        double *a = tu_alloc(N * M * sizeof(double)), *b = tu_alloc(N * M * sizeof(double));
        double *x = tu_alloc(N * M * sizeof(double));
        for (int i = 0; i < N * M; i++)
            x[i] = a[i] = cos(1.1 * i) - 0.5 * sin(0.3 * i);
        int64_t n[2] = {N, M};
        hfft_r2r_kind f[2] = {(hfft_r2r_kind)k, (hfft_r2r_kind)k};
        hfft_r2r_kind g[2] = {(hfft_r2r_kind)inverse[k], (hfft_r2r_kind)inverse[k]};
        hfft_plan pf = hfft_plan_r2r64(2, n, a, b, f, HFFT_GPU_ONLY, &o);
        hfft_plan pg = hfft_plan_r2r64(2, n, b, b, g, HFFT_GPU_ONLY, &o);
        cr_assert(pf && pg, "%s: %s", kind_name[k], hfft_last_error_message());
        cr_assert_eq(hfft_execute(pf), 0);
        cr_assert_eq(hfft_execute(pg), 0);
        double scale = 1;
        for (int d = 0; d < 2; d++) {
            double len = (double)n[d];
            scale *= k == HFFT_REDFT00 ? 2 * (len - 1)
                     : k == HFFT_RODFT00 ? 2 * (len + 1)
                     : k <= HFFT_DHT     ? len
                                         : 2 * len;
        }
        long double num = 0, den = 0;
        for (int i = 0; i < N * M; i++) {
            long double e = b[i] / scale - x[i];
            num += e * e;
            den += (long double)x[i] * x[i];
        }
        cr_assert(sqrtl(num / den) < 1e-14, "%s: inverse error %.3g", kind_name[k],
                  (double)sqrtl(num / den));
        hfft_destroy_plan(pf);
        hfft_destroy_plan(pg);
        tu_free(a);
        tu_free(b);
        tu_free(x);
    }
}

/* HFFT_SCHEDULE_RADIX2 cuts lines, which a kind's steps read across: the plan runs
   plain passes, and says so. */
Test(r2r, radix2_asked_runs_plain_and_says_so) {
    double *a = tu_alloc(64 * 64 * sizeof(double)), *b = tu_alloc(64 * 64 * sizeof(double));
    hfft_options o;
    hfft_options_init(&o);
    o.device = HFFT_DEVICE_EMULATED;
    o.device_memory = 16 << 10;
    int64_t n[2] = {64, 64};
    hfft_r2r_kind k[2] = {HFFT_REDFT10, HFFT_REDFT10};
    hfft_plan p = hfft_plan_r2r64(2, n, a, b, k, HFFT_GPU_ONLY | HFFT_SCHEDULE_RADIX2, &o);
    cr_assert(p, "%s", hfft_last_error_message());
    hfft_info info;
    hfft_plan_info(p, &info);
    cr_assert_eq(info.schedule, HFFT_SCHED_PLAIN);
    cr_assert(strstr(info.note, "HFFT_SCHEDULE_RADIX2"), "note: '%s'", info.note);
    hfft_destroy_plan(p);
    tu_free(a);
    tu_free(b);
}

/* Streamed r2r rounds keep nothing resident (their passes wide, the whole array moved
   twice), where the complex transform of the same bytes at the same budget keeps
   columns on the card. */
Test(r2r, streamed_rounds_keep_nothing_resident) {
    int64_t budget = 400000;
    r2r_case c = {8, 2, {256, 384, 1}, {HFFT_REDFT10, HFFT_REDFT10}, 0, 0, 1, 0};
    engine e = {"emulated", HFFT_GPU_ONLY, HFFT_DEVICE_EMULATED, budget, NULL, 0};
    hfft_info info;
    run_r2r(&c, &e, &info);
    int64_t bytes = 256 * 384 * (int64_t)sizeof(double);
    cr_assert_eq(info.schedule, HFFT_SCHED_PLAIN);
    cr_assert_eq(info.resident_bytes, 0, "r2r: %lld bytes resident", (long long)info.resident_bytes);
    cr_assert(info.link_bytes[0] == 2 * bytes && info.link_bytes[1] == 2 * bytes,
              "r2r: %lld in, %lld out of %lld", (long long)info.link_bytes[0],
              (long long)info.link_bytes[1], (long long)bytes);
    hfft_complex *z = tu_alloc((size_t)bytes);
    memset(z, 0, (size_t)bytes);
    hfft_options o;
    hfft_options_init(&o);
    o.device = HFFT_DEVICE_EMULATED;
    o.device_memory = budget;
    int64_t n[2] = {256, 192};
    hfft_plan p = hfft_plan_dft(2, n, z, z, HFFT_FORWARD, HFFT_GPU_ONLY, &o);
    cr_assert(p, "%s", hfft_last_error_message());
    hfft_plan_info(p, &info);
    cr_assert_gt(info.resident_bytes, 0, "the complex transform keeps nothing either");
    hfft_destroy_plan(p);
    tu_free(z);
}

/* Every bad argument fails with a message, and no plan. */
Test(r2r, bad_arguments) {
    float *a = tu_alloc(64 * sizeof(float));
    int n[2] = {8, 8};
    hfft_r2r_kind k[2] = {HFFT_REDFT10, (hfft_r2r_kind)11};
    cr_assert_null(hfftf_plan_r2r(2, n, a, a, k, 0));
    cr_assert(strstr(hfft_last_error_message(), "kind[1]"), "%s", hfft_last_error_message());
    cr_assert_null(hfftf_plan_r2r(2, n, a, a, NULL, 0));
    cr_assert(strstr(hfft_last_error_message(), "kinds: NULL"), "%s", hfft_last_error_message());
    cr_assert_null(hfftf_plan_r2r_1d(1, a, a, HFFT_REDFT00, 0));
    cr_assert(strstr(hfft_last_error_message(), "REDFT00"), "%s", hfft_last_error_message());
    cr_assert_null(hfftf_plan_r2r_1d(0, a, a, HFFT_REDFT10, 0));
    cr_assert_null(hfftf_plan_r2r_2d(8, 8, a, a + 3, HFFT_DHT, HFFT_DHT, 0));
    cr_assert(strstr(hfft_last_error_message(), "overlap"), "%s", hfft_last_error_message());
    cr_assert_null(hfftf_plan_r2r(0, n, a, a, k, 0));
    hfftf_plan p = hfftf_plan_r2r_1d(16, a, a, HFFT_REDFT10, HFFT_CPU_ONLY);
    cr_assert(p);
    cr_assert_neq(hfftf_execute_r2r(p, a, a + 32), 0, "in place plan, out-of-place arrays");
    cr_assert_neq(hfftf_execute_r2r(NULL, a, a), 0);
    hfftf_destroy_plan(p);
    tu_free(a);
}

/* On a CUDA card (skipped without one): every kind in 1D and the cases of several
   dimensions, streaming, in one trip and shared with the CPU; and arrays of a few
   MiB that stream in many passes. */
Test(r2r, on_a_cuda_card) {
    const char *dev = getenv("HFFT_DEVICE");
    if (dev && (!strcmp(dev, "none") || !strcmp(dev, "cpu")))
        cr_skip_test("no GPU tests (HFFT_DEVICE=%s)", dev);
    float probe[64];
    hfft_options o;
    hfft_options_init(&o);
    o.device = HFFT_DEVICE_CUDA;
    o.devices = "0";
    int64_t n1[1] = {64};
    hfft_r2r_kind k1 = HFFT_REDFT10;
    hfftf_plan p = hfftf_plan_r2r64(1, n1, probe, probe, &k1, 0, &o);
    if (!p) {
        cr_assert_eq(hfft_last_error(), HFFT_ERR_NO_DEVICE, "%s", hfft_last_error_message());
        cr_skip_test("no usable CUDA GPU: %s", hfft_last_error_message());
    }
    hfftf_destroy_plan(p);
    const engine cuda[] = {
        {"CUDA, streaming at 1 MiB", PLAIN, HFFT_DEVICE_CUDA, 1 << 20, "0", 0},
        {"CUDA, one trip", HFFT_GPU_ONLY, HFFT_DEVICE_CUDA, 0, "0", 0},
        {"CUDA, hybrid", HFFT_HYBRID, HFFT_DEVICE_CUDA, 0, "0", 0},
    };
    static const int64_t sizes[] = {4, 6, 12, 30, 100, 1024, 2310, 65536};
    for (int prec = 4; prec <= 8; prec += 4)
        for (int k = 0; k <= HFFT_RODFT11; k++)
            for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++) {
                r2r_case c = {prec, 1, {sizes[s]}, {(hfft_r2r_kind)k}, 3};
                hfft_info info;
                run_r2r(&c, &cuda[s % 2], &info);
                cr_assert_eq(info.device, HFFT_DEVICE_CUDA);
            }
    static const r2r_case cases[] = {
        {8, 2, {16, 12}, {HFFT_REDFT10, HFFT_RODFT10}},
        {4, 2, {33, 20}, {HFFT_REDFT01, HFFT_REDFT11}},
        {8, 2, {24, 40}, {HFFT_RODFT11, HFFT_REDFT00}, 0, 0, 1},
        {4, 3, {12, 8, 16}, {HFFT_R2HC, HFFT_DHT, HFFT_HC2R}},
        {8, 3, {6, 9, 8}, {HFFT_RODFT01, HFFT_REDFT01, HFFT_RODFT11}, 0, 0, 1},
        {4, 2, {12, 20}, {HFFT_REDFT11, HFFT_RODFT01}, 4, 1},
        {4, 2, {1024, 768}, {HFFT_REDFT10, HFFT_REDFT10}},
        {8, 2, {768, 1000}, {HFFT_REDFT01, HFFT_RODFT00}, 0, 0, 1},
        {4, 3, {96, 128, 160}, {HFFT_REDFT10, HFFT_RODFT10, HFFT_REDFT11}},
        {8, 3, {128, 100, 64}, {HFFT_DHT, HFFT_REDFT00, HFFT_R2HC}, 0, 0, 1},
        /* the one-pass step: blocks of columns across two planes' rows, types I and
           IV; rows of reals ending in a part block; the longest lines it takes */
        {4, 3, {33, 64, 40}, {HFFT_REDFT00, HFFT_RODFT11, HFFT_REDFT10}},
        {8, 3, {7, 5, 256}, {HFFT_REDFT00, HFFT_RODFT01, HFFT_RODFT10}, 0, 0, 1},
        {8, 2, {128, 36}, {HFFT_REDFT11, HFFT_DHT}},
        {4, 2, {257, 512}, {HFFT_REDFT00, HFFT_RODFT10}, 3},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
        for (int e = 0; e < 3; e++) {
            hfft_info info;
            run_r2r(&cases[i], &cuda[e], &info);
            cr_assert_eq(info.device, HFFT_DEVICE_CUDA, "case %zu on %s", i, cuda[e].name);
        }
}
