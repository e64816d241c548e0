/*
 * test_guru.c: the advanced and guru interfaces and real-data transforms.
 * Each case lays out its arrays as the problem's strides say, fills the input
 * afresh (c2r: the half spectrum of random real data, so every algorithm
 * agrees on it), poisons the output, plans through the public API, executes,
 * and compares every output element with FFTW in long double on the same
 * problem; out of place, the input must come back bit-identical where the
 * transform promises it (c2c, r2c, and c2r with HFFT_PRESERVE_INPUT).  Each
 * case runs on the CPU and on the emulated device with a small budget.
 */
#include <criterion/criterion.h>
#include <fftw3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hfft.h"
#include "ref.h"
#include "util.h"

enum { C2C, R2C, C2R };

typedef struct gcase {
    int kind, prec, sign;
    int rank, hrank;
    hfft_iodim dims[HFFT_MAX_RANK], hdims[HFFT_MAX_RANK];
    int split;    /* separate real and imaginary arrays on the complex side(s) */
    int inplace;
    unsigned flags;
    const char *what;
    int gpu; /* one dense complex array: the GPU engine must take it */
    const char *devices; /* hfft_options.devices (NULL: the default) */
    double ratio[2];     /* hfft_options.round_ratio (0: unset) */
    int threads;         /* hfft_options.threads (0: the default) */
} gcase;

/* Reach of one side's layout in elements: [lo, hi]. */
static void reach(const gcase *g, int out, int64_t *lo, int64_t *hi) {
    *lo = *hi = 0;
    for (int k = 0; k < g->rank + g->hrank; k++) {
        const hfft_iodim *d = k < g->rank ? &g->dims[k] : &g->hdims[k - g->rank];
        int64_t n = d->n;
        int complex_side = g->kind == C2C || (out ? g->kind == R2C : g->kind == C2R);
        if (k == g->rank - 1 && g->kind != C2C && complex_side)
            n = n / 2 + 1;
        if (n == 0)
            continue;
        int64_t r = (n - 1) * (out ? d->os : d->is);
        if (r < 0)
            *lo += r;
        else
            *hi += r;
    }
}

typedef struct side {
    char *mem[2]; /* allocations */
    void *base[2]; /* element 0 of each array */
    size_t bytes, esz;
    int64_t lo;
} side;

static void side_alloc(side *s, int64_t lo, int64_t hi, size_t esz, int arrays) {
    memset(s, 0, sizeof *s);
    s->esz = esz;
    s->lo = lo;
    s->bytes = (size_t)(hi - lo + 1) * esz;
    for (int a = 0; a < arrays; a++) {
        s->mem[a] = tu_alloc(s->bytes);
        s->base[a] = s->mem[a] - lo * (int64_t)esz;
    }
}

static void side_free(side *s) {
    for (int a = 0; a < 2; a++)
        tu_free(s->mem[a]);
}

/* The c2r input: the half spectrum of random real data, written into the layout. */
static void fill_hermitian(const gcase *g, side *in, uint64_t seed) {
    hfft_ref_dim d[HFFT_MAX_RANK], h[HFFT_MAX_RANK];
    for (int k = 0; k < g->rank; k++)
        d[k] = (hfft_ref_dim){g->dims[k].n, g->dims[k].is, g->dims[k].os};
    for (int k = 0; k < g->hrank; k++)
        h[k] = (hfft_ref_dim){g->hdims[k].n, g->hdims[k].is, g->hdims[k].os};
    cr_assert_eq(hfft_ref_fill_hermitian(g->prec, g->rank, d, g->hrank, h, in->base[0],
                                         g->split ? in->base[1] : NULL, seed),
                 0, "the c2r input: out of memory");
}

static void *plan_case(const gcase *g, void *const in[2], void *const out[2],
                       const hfft_options *o) {
    unsigned f = g->flags;
    int r = g->rank, hr = g->hrank;
    const hfft_iodim *d = g->dims, *h = g->hdims;
    if (g->prec == 4) {
        switch (g->kind) {
        case C2C:
            return g->split ? (void *)hfftf_plan_guru_split_dft(r, d, hr, h, in[0], in[1], out[0],
                                                                out[1], f, o)
                            : (void *)hfftf_plan_guru_dft(r, d, hr, h, in[0], out[0], g->sign, f,
                                                          o);
        case R2C:
            return g->split ? (void *)hfftf_plan_guru_split_dft_r2c(r, d, hr, h, in[0], out[0],
                                                                    out[1], f, o)
                            : (void *)hfftf_plan_guru_dft_r2c(r, d, hr, h, in[0], out[0], f, o);
        default:
            return g->split ? (void *)hfftf_plan_guru_split_dft_c2r(r, d, hr, h, in[0], in[1],
                                                                    out[0], f, o)
                            : (void *)hfftf_plan_guru_dft_c2r(r, d, hr, h, in[0], out[0], f, o);
        }
    }
    switch (g->kind) {
    case C2C:
        return g->split ? (void *)hfft_plan_guru_split_dft(r, d, hr, h, in[0], in[1], out[0],
                                                           out[1], f, o)
                        : (void *)hfft_plan_guru_dft(r, d, hr, h, in[0], out[0], g->sign, f, o);
    case R2C:
        return g->split ? (void *)hfft_plan_guru_split_dft_r2c(r, d, hr, h, in[0], out[0], out[1],
                                                               f, o)
                        : (void *)hfft_plan_guru_dft_r2c(r, d, hr, h, in[0], out[0], f, o);
    default:
        return g->split ? (void *)hfft_plan_guru_split_dft_c2r(r, d, hr, h, in[0], in[1], out[0],
                                                               f, o)
                        : (void *)hfft_plan_guru_dft_c2r(r, d, hr, h, in[0], out[0], f, o);
    }
}

static int exec_plan(int prec, void *p) { return prec == 4 ? hfftf_execute(p) : hfft_execute(p); }
static void destroy_plan(int prec, void *p) {
    if (prec == 4)
        hfftf_destroy_plan(p);
    else
        hfft_destroy_plan(p);
}
static void info_of(int prec, void *p, hfft_info *i) {
    if (prec == 4)
        hfftf_plan_info(p, i);
    else
        hfft_plan_info(p, i);
}

/* Runs one case on one device (HFFT_DEVICE_NONE or _EMULATED with `budget`);
   *out_info, where given, gets what the plan reported after its execute. */
static void run_guru_info(const gcase *g, int device, int64_t budget, hfft_info *out_info) {
    int64_t lo[2], hi[2];
    reach(g, 0, &lo[0], &hi[0]);
    reach(g, 1, &lo[1], &hi[1]);
    int in_real = g->kind == R2C, out_real = g->kind == C2R;
    size_t rsz = (size_t)g->prec;
    size_t isz = in_real || g->split ? rsz : 2 * rsz, osz = out_real || g->split ? rsz : 2 * rsz;
    int in_arrays = !in_real && g->split ? 2 : 1, out_arrays = !out_real && g->split ? 2 : 1;
    side in, out;
    if (g->inplace) {
        /* one memory for both views: the larger of the two reaches */
        int64_t l = lo[0] * (int64_t)isz < lo[1] * (int64_t)osz ? lo[0] * (int64_t)isz
                                                                 : lo[1] * (int64_t)osz;
        int64_t h = (hi[0] + 1) * (int64_t)isz > (hi[1] + 1) * (int64_t)osz
                        ? (hi[0] + 1) * (int64_t)isz
                        : (hi[1] + 1) * (int64_t)osz;
        side_alloc(&in, l, h - 1, 1, in_arrays > out_arrays ? in_arrays : out_arrays);
        out = in;
        out.mem[0] = out.mem[1] = NULL;
    } else {
        side_alloc(&in, lo[0], hi[0], isz, in_arrays);
        side_alloc(&out, lo[1], hi[1], osz, out_arrays);
    }
    uint64_t seed = tu_seed();
    if (g->kind == C2R) {
        for (int a = 0; a < in_arrays; a++)
            tu_poison(in.mem[a], in.bytes);
        fill_hermitian(g, &in, seed);
    } else {
        for (int a = 0; a < in_arrays; a++) {
            size_t pairs = in.bytes / (2 * rsz);
            hfft_ref_fill(g->prec, in.mem[a], (int64_t)pairs, seed + (uint64_t)a);
            if (in.bytes % (2 * rsz)) {
                /* an odd count of reals: the last one too (left as it was, it could
                   hold a NaN that the transform and the reference both carry) */
                double last[4];
                hfft_ref_fill(g->prec, last, 1, seed + 7 + (uint64_t)a);
                memcpy(in.mem[a] + pairs * 2 * rsz, last, rsz);
            }
        }
    }
    void *keep[2] = {NULL, NULL}, *keep_base[2] = {NULL, NULL};
    for (int a = 0; a < in_arrays; a++) {
        keep[a] = tu_dup(in.mem[a], in.bytes);
        keep_base[a] = (char *)keep[a] + ((char *)in.base[a] - in.mem[a]);
    }
    for (int a = 0; a < out_arrays && !g->inplace; a++)
        tu_poison(out.mem[a], out.bytes);
    void *ip[2] = {in.base[0], in_arrays == 2 ? in.base[1] : NULL};
    void *op[2] = {g->inplace ? in.base[0] : out.base[0],
                   out_arrays == 2 ? (g->inplace ? in.base[1] : out.base[1]) : NULL};
    hfft_options o;
    hfft_options_init(&o);
    o.device = device;
    o.device_memory = budget;
    o.devices = g->devices;
    o.round_ratio[0] = g->ratio[0];
    o.round_ratio[1] = g->ratio[1];
    o.threads = g->threads;
    void *p = plan_case(g, ip, op, &o);
    char where[96];
    snprintf(where, sizeof where, "%s (f%d, %s%s)", g->what, g->prec * 8,
             device == HFFT_DEVICE_NONE ? "cpu" : "emulated", g->inplace ? ", in place" : "");
    cr_assert(p, "%s: no plan: %s", where, hfft_last_error_message());
    cr_assert_eq(exec_plan(g->prec, p), 0, "%s: execute: %s", where, hfft_last_error_message());
    hfft_info info;
    info_of(g->prec, p, &info);
    hfft_ref_dim d[HFFT_MAX_RANK], h[HFFT_MAX_RANK];
    for (int k = 0; k < g->rank; k++)
        d[k] = (hfft_ref_dim){g->dims[k].n, g->dims[k].is, g->dims[k].os};
    for (int k = 0; k < g->hrank; k++)
        h[k] = (hfft_ref_dim){g->hdims[k].n, g->hdims[k].is, g->hdims[k].os};
    double e = hfft_ref_guru_error(g->prec, g->kind, g->sign, g->rank, d, g->hrank, h, keep_base[0],
                                   keep_base[1], op[0], op[1]);
    double tol = g->prec == 4 ? 5e-7 : 5e-16;
    cr_assert(e >= 0 && e <= tol, "%s: relative RMS error %g (limit %g); device %s, note '%s'",
              where, e, tol, info.device_name, info.note);
    if (g->gpu && device == HFFT_DEVICE_EMULATED)
        cr_assert(info.device == HFFT_DEVICE_EMULATED && info.placement == 1,
                  "%s: ran on %s (placement %d, note '%s'), not on the GPU engine", where,
                  info.device_name, info.placement, info.note);
    int must_keep = !g->inplace && (g->kind != C2R || (g->flags & HFFT_PRESERVE_INPUT));
    for (int a = 0; a < in_arrays && must_keep; a++)
        cr_assert(memcmp(keep[a], in.mem[a], in.bytes) == 0, "%s: the input changed", where);
    if (out_info)
        *out_info = info;
    destroy_plan(g->prec, p);
    for (int a = 0; a < in_arrays; a++)
        tu_free(keep[a]);
    side_free(&in);
    if (!g->inplace)
        side_free(&out);
}

static void run_guru(const gcase *g, int device, int64_t budget) {
    run_guru_info(g, device, budget, NULL);
}

static void run_both(const gcase *g) {
    run_guru(g, HFFT_DEVICE_NONE, 0);
    run_guru(g, HFFT_DEVICE_EMULATED, 64 << 10);
}

/* Dense row-major guru dimensions of sizes n (both sides alike, or FFTW's real
   layouts: real rows of rpitch reals, complex rows of n/2 + 1). */
static void dense_dims(int kind, int rank, const int64_t *n, int inplace, hfft_iodim *d) {
    int64_t cs = 1, rs = 1;
    for (int k = rank - 1; k >= 0; k--) {
        int last = k == rank - 1;
        int64_t cn = kind != C2C && last ? n[k] / 2 + 1 : n[k];
        int64_t rn = kind != C2C && last && inplace ? 2 * (n[k] / 2 + 1) : n[k];
        int64_t real = kind == C2C ? cs : rs;
        d[k].n = n[k];
        d[k].is = kind == C2R ? cs : real;
        d[k].os = kind == R2C ? cs : real;
        cs *= cn;
        rs *= rn;
    }
}

TestSuite(guru, .init = tu_setup);

Test(guru, real_transforms) {
    static const int64_t shapes[][4] = {{1, 17},       {1, 64},     {2, 12, 7},  {2, 9, 16},
                                        {3, 5, 6, 10}, {3, 4, 3, 9}, {1, 1},      {2, 1, 1}};
    for (int prec = 4; prec <= 8; prec += 4)
        for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++)
            for (int kind = R2C; kind <= C2R; kind++)
                for (int inplace = 0; inplace < 2; inplace++) {
                    gcase g = {kind, prec, 0, (int)shapes[i][0], 0};
                    g.inplace = inplace;
                    g.flags = kind == C2R && !inplace ? HFFT_PRESERVE_INPUT : 0;
                    dense_dims(kind, g.rank, &shapes[i][1], inplace, g.dims);
                    g.what = kind == R2C ? "r2c" : "c2r";
                    g.gpu = 1;
                    run_both(&g);
                }
}

/* Real data with HFFT_HYBRID on the emulated device: every round's lines or
   columns shared between the device and the CPU (the real round's rows or
   planes too), in and out of place, c2r keeping its input where asked and
   not, both precisions; shapes with odd and prime lengths, planes (3D) and
   rows (2D). */
Test(guru, real_hybrid) {
    static const int64_t shapes[][4] = {{2, 64, 100}, {2, 33, 62}, {3, 8, 12, 30}, {3, 5, 16, 17}};
    for (int prec = 4; prec <= 8; prec += 4)
        for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++)
            for (int kind = R2C; kind <= C2R; kind++)
                for (int mode = 0; mode < 3; mode++) { /* in place, out, out preserving */
                    gcase g = {kind, prec, 0, (int)shapes[i][0], 0};
                    g.inplace = mode == 0;
                    g.flags = HFFT_HYBRID | (mode == 2 ? HFFT_PRESERVE_INPUT : 0u);
                    if (kind == R2C && mode == 2)
                        continue; /* r2c keeps its input anyway */
                    dense_dims(kind, g.rank, &shapes[i][1], g.inplace, g.dims);
                    g.what = kind == R2C ? "r2c hybrid" : "c2r hybrid";
                    hfft_info info;
                    run_guru_info(&g, HFFT_DEVICE_EMULATED, 64 << 10, &info);
                    cr_assert_eq(info.placement, 2, "%s %zu f%d mode %d: placement %d", g.what, i,
                                 prec * 8, mode, info.placement);
                    for (int h = 0; h < info.rounds; h++)
                        cr_assert(info.ratio[h] > 0 && info.ratio[h] < 1,
                                  "%s %zu f%d: round %d's GPU share %g", g.what, i, prec * 8, h,
                                  info.ratio[h]);
                }
    for (int prec = 4; prec <= 8; prec += 4) {
        /* one round of c2r lines or planes out of place, its input kept: the GPU takes
           it whole (FFTW's c2r would overwrite the CPU's share), the input unchanged */
        gcase a = {C2R, prec, 0, 1, 1, {{1000, 1, 1}}, {{3, 501, 1000}},
                   .flags = HFFT_HYBRID | HFFT_PRESERVE_INPUT, .what = "c2r lines, kept"};
        run_guru(&a, HFFT_DEVICE_EMULATED, 1 << 20);
        gcase b = {C2R, prec, 0, 2, 1, {{33, 32, 62}, {62, 1, 1}}, {{2, 33 * 32, 33 * 62}},
                   .flags = HFFT_HYBRID | HFFT_PRESERVE_INPUT, .what = "c2r planes, kept"};
        run_guru(&b, HFFT_DEVICE_EMULATED, 1 << 20);
    }
    /* c2r out of place whose complex round runs in the input (not kept): the CPU's
       columns longer than 4 MiB (transformed where they lie) and the GPU's long
       columns both planned in place */
    int64_t n[2] = {300000, 2};
    gcase c = {C2R, 8, 0, 2, 0, .flags = HFFT_HYBRID, .what = "c2r, long columns in the input"};
    dense_dims(C2R, 2, n, 0, c.dims);
    run_guru(&c, HFFT_DEVICE_EMULATED, 256 << 20);
}

Test(guru, batches) {
    for (int prec = 4; prec <= 8; prec += 4) {
        for (int sign = -1; sign <= 1; sign += 2) {
            /* contiguous batch of 1D lines */
            gcase a = {C2C, prec, sign, 1, 1, {{48, 1, 1}}, {{5, 48, 48}}, .what = "batch of lines",
                       .gpu = 1};
            run_both(&a);
            /* lines down the columns: istride = howmany, idist = 1 */
            gcase b = {C2C, prec, sign, 1, 1, {{40, 6, 6}}, {{6, 1, 1}}, .what = "column batch",
                       .gpu = 1};
            run_both(&b);
            /* a batch of 2D planes, in place */
            gcase c = {C2C, prec, sign, 2, 1, {{12, 10, 10}, {10, 1, 1}}, {{3, 120, 120}},
                       .inplace = 1, .what = "batch of planes", .gpu = 1};
            run_both(&c);
            /* planes larger than the budget's passes: split into rounds of their own */
            gcase c2 = {C2C, prec, sign, 2, 1, {{128, 96, 96}, {96, 1, 1}}, {{3, 12288, 12288}},
                        .what = "batch of planes larger than a pass", .gpu = 1};
            run_both(&c2);
            /* padded rows (embeds): no dense array */
            gcase d = {C2C, prec, sign, 2, 1, {{8, 12, 11}, {10, 1, 1}}, {{2, 100, 90}},
                       .what = "padded embeds"};
            run_both(&d);
            /* a vector of rank 2 between transform dimensions */
            gcase e = {C2C, prec, sign, 2, 2, {{6, 10, 10}, {5, 1, 1}}, {{3, 60, 60}, {2, 5, 5}},
                       .what = "vector rank 2", .gpu = 1};
            run_both(&e);
        }
        gcase f = {R2C, prec, 0, 1, 1, {{30, 1, 1}}, {{4, 32, 16}}, .what = "r2c batch", .gpu = 1};
        run_both(&f);
        gcase g = {C2R, prec, 0, 2, 1, {{6, 5, 16}, {8, 1, 1}}, {{3, 30, 96}},
                   .flags = HFFT_PRESERVE_INPUT, .what = "c2r batch", .gpu = 1};
        run_both(&g);
    }
}

Test(guru, ranks_and_layouts) {
    for (int prec = 4; prec <= 8; prec += 4) {
        /* rank 4, dense */
        int64_t n4[4] = {3, 4, 5, 6};
        gcase a = {C2C, prec, -1, 4, 0, .what = "rank 4", .gpu = 1};
        dense_dims(C2C, 4, n4, 0, a.dims);
        run_both(&a);
        /* a transposed layout: dimensions given fastest first */
        gcase b = {C2C, prec, 1, 2, 0, {{9, 1, 1}, {14, 9, 9}}, .what = "dims fastest first",
                   .gpu = 1};
        run_both(&b);
        /* transposed output: is != os (FFTW's own plan) */
        gcase c = {C2C, prec, -1, 2, 0, {{7, 8, 1}, {8, 1, 7}}, .what = "transposed output"};
        run_both(&c);
        /* negative strides */
        gcase d = {C2C, prec, -1, 1, 1, {{16, -1, 1}}, {{3, 16, 16}}, .what = "negative stride"};
        run_both(&d);
        /* split arrays, both directions through swapped arrays */
        gcase e = {C2C, prec, 0, 2, 0, {{6, 10, 10}, {10, 1, 1}}, .split = 1, .what = "split"};
        run_both(&e);
        e.inplace = 1;
        run_both(&e);
        gcase f = {R2C, prec, 0, 2, 0, {{6, 9, 5}, {9, 1, 1}}, .split = 1, .what = "split r2c"};
        run_both(&f);
        gcase g = {C2R, prec, 0, 2, 0, {{6, 5, 9}, {9, 1, 1}}, .split = 1,
                   .flags = HFFT_PRESERVE_INPUT, .what = "split c2r"};
        run_both(&g);
        /* rank 0: a copy of each element of the vector */
        gcase z = {C2C, prec, -1, 0, 1, .hdims = {{7, 2, 3}}, .what = "rank 0"};
        run_both(&z);
    }
}

/* Negative strides (reversed views) along transform and vector dimensions, where
   FFTW's own planner recurses without end (lengths such as 96 and 97 with a
   reversed row order): each kind, in and out of place, interleaved and split, and
   double lines long enough for Bluestein's. */
Test(guru, negative_strides) {
    for (int prec = 4; prec <= 8; prec += 4) {
        for (int inplace = 0; inplace < 2; inplace++) {
            gcase a = {C2C, prec, -1, 2, 0, {{97, -97, -97}, {97, 1, 1}}, .inplace = inplace,
                       .what = "reversed rows"};
            run_both(&a);
            gcase b = {C2C, prec, 1, 2, 0, {{96, 96, 96}, {96, -1, -1}}, .inplace = inplace,
                       .what = "reversed columns"};
            run_both(&b);
            gcase c = {C2C, prec, -1, 1, 1, {{483, -1, -1}}, {{3, -483, -483}},
                       .inplace = inplace, .what = "reversed line and batch"};
            run_both(&c);
            gcase d = {C2C, prec, 0, 2, 0, {{12, -10, -10}, {10, 1, 1}}, .split = 1,
                       .inplace = inplace, .what = "split, reversed rows"};
            run_both(&d);
        }
        gcase e = {C2C, prec, -1, 1, 0, {{1009, -1, 1}}, .what = "a reversed prime line"};
        run_both(&e);
        gcase f = {R2C, prec, 0, 2, 0, {{97, -97, 49}, {97, 1, 1}}, .what = "r2c, reversed input"};
        run_both(&f);
        gcase g = {C2R, prec, 0, 2, 0, {{33, 17, -32}, {32, 1, 1}},
                   .flags = HFFT_PRESERVE_INPUT, .what = "c2r, reversed output"};
        run_both(&g);
        gcase h = {R2C, prec, 0, 1, 1, {{20, 1, 1}}, {{5, -20, -11}}, .what = "r2c, reversed batch"};
        run_both(&h);
    }
}

/* Every rank the header allows: past the rounds the engines run (one per
   transformed dimension above size one), FFTW's plan of the whole problem on the
   CPU, saying why on a device; HFFT_GPU_ONLY there is a clean error. */
Test(guru, ranks_past_the_rounds) {
    static const int ranks[] = {9, 10, 16};
    for (int prec = 4; prec <= 8; prec += 4)
        for (size_t i = 0; i < sizeof ranks / sizeof ranks[0]; i++)
            for (int kind = C2C; kind <= C2R; kind++) {
                int64_t n[HFFT_MAX_RANK];
                for (int k = 0; k < ranks[i]; k++)
                    n[k] = 2 + k % 2 * (ranks[i] < 16);
                gcase g = {kind, prec, HFFT_BACKWARD, ranks[i], 0, .what = "high rank"};
                g.flags = kind == C2R ? HFFT_PRESERVE_INPUT : 0;
                dense_dims(kind, ranks[i], n, 0, g.dims);
                run_both(&g);
            }
    int64_t n[HFFT_MAX_RANK];
    for (int k = 0; k < HFFT_MAX_RANK; k++)
        n[k] = 2;
    hfft_complex *a = tu_alloc(sizeof(hfft_complex) << HFFT_MAX_RANK);
    hfft_options o;
    hfft_options_init(&o);
    o.device = HFFT_DEVICE_EMULATED;
    hfft_plan p = hfft_plan_dft(HFFT_MAX_RANK, n, a, a, HFFT_FORWARD, HFFT_GPU_ONLY, &o);
    cr_assert_null(p);
    cr_assert_eq(hfft_last_error(), HFFT_ERR_UNSUPPORTED);
    cr_assert(strstr(hfft_last_error_message(), "rounds"), "%s", hfft_last_error_message());
    tu_free(a);
}

/* As many batch dimensions as the header allows beside a transformed one: more
   dimensions above size one than a dense layout holds, so the plan takes the
   guru layout as given. */
Test(guru, batch_dimensions_past_the_dense_form) {
    for (int prec = 4; prec <= 8; prec += 4)
        for (int kind = C2C; kind <= C2R; kind++) {
            gcase g = {kind, prec, HFFT_FORWARD, 1, HFFT_MAX_RANK, .what = "many batch dims"};
            g.flags = kind == C2R ? HFFT_PRESERVE_INPUT : 0;
            int64_t n = 8, cn = kind == C2C ? n : n / 2 + 1;
            g.dims[0] = (hfft_iodim){n, 1, 1};
            if (kind == R2C)
                g.dims[0].os = 1;
            int64_t is = kind == C2R ? cn : n, os = kind == R2C ? cn : n;
            for (int k = HFFT_MAX_RANK - 1; k >= 0; k--) {
                g.hdims[k] = (hfft_iodim){2, is, os};
                is *= 2;
                os *= 2;
            }
            run_both(&g);
        }
}

/* c2r keeping its input where its one round runs on the CPU: double precision with a
   prime above 31, which takes Bluestein's lines (planes of a batch, or rows), reads a
   copy of the input (FFTW's c2r overwrote the caller's). */
Test(guru, c2r_one_round_keeps_its_input) {
    gcase a = {C2R, 8, 0, 2, 1, {{37, 10, 19}, {19, 1, 1}}, {{3, 370, 703}},
               .flags = HFFT_PRESERVE_INPUT, .what = "c2r planes of a batch, kept"};
    run_both(&a);
    gcase b = {C2R, 8, 0, 1, 1, {{257, 1, 1}}, {{4, 129, 257}},
               .flags = HFFT_PRESERVE_INPUT, .what = "c2r rows of a prime length, kept"};
    run_both(&b);
}

/* Transforms of size one in every dimension, in a batch: each is a copy of its
   element, so the output is the input, written (FFTW copies it); in and out of
   place, rank 1 to 3, dense and strided batches, on the CPU and the GPU engine. */
Test(guru, length_one_in_a_batch) {
    for (int prec = 4; prec <= 8; prec += 4)
        for (int rank = 1; rank <= 3; rank++)
            for (int inplace = 0; inplace < 2; inplace++) {
                gcase a = {C2C, prec, -1, rank, 1, .hdims = {{5, 1, 1}}, .inplace = inplace,
                           .what = "length 1, dense batch", .gpu = 1};
                for (int k = 0; k < rank; k++)
                    a.dims[k] = (hfft_iodim){1, 5, 5};
                run_both(&a);
                gcase b = {C2C, prec, 1, rank, 2, .hdims = {{3, 8, 8}, {4, 2, 2}},
                           .inplace = inplace, .what = "length 1, strided batch"};
                for (int k = 0; k < rank; k++)
                    b.dims[k] = (hfft_iodim){1, 1, 1};
                run_both(&b);
            }
}

Test(guru, no_transforms) {
    float a[8] = {1, 2, 3, 4, 5, 6, 7, 8}, b[8];
    memset(b, 0x7f, sizeof b);
    hfft_iodim d = {4, 1, 1}, h = {0, 4, 4};
    hfftf_plan p = hfftf_plan_guru_dft(1, &d, 1, &h, (hfftf_complex *)a, (hfftf_complex *)b,
                                       HFFT_FORWARD, 0, NULL);
    cr_assert(p, "howmany 0: %s", hfft_last_error_message());
    cr_assert_eq(hfftf_execute(p), 0);
    for (int i = 0; i < 8; i++)
        cr_assert_eq(((unsigned char *)b)[4 * i], 0x7f, "howmany 0 wrote the output");
    hfftf_destroy_plan(p);
}

/* c2r may destroy its input by default, never with HFFT_PRESERVE_INPUT (checked in
   run_guru); and the new-array executes take the plan's kind only. */
Test(guru, new_array_execute) {
    int64_t n[2] = {6, 10};
    float *in1 = tu_alloc(sizeof(float) * 60), *in2 = tu_alloc(sizeof(float) * 60);
    hfftf_complex *o1 = tu_alloc(sizeof(hfftf_complex) * 36),
                  *o2 = tu_alloc(sizeof(hfftf_complex) * 36);
    hfft_ref_fill(4, in1, 30, tu_seed());
    hfft_ref_fill(4, in2, 30, tu_seed());
    hfftf_plan p = hfftf_plan_dft_r2c(2, n, in1, o1, HFFT_CPU_ONLY, NULL);
    cr_assert(p, "%s", hfft_last_error_message());
    tu_poison(o2, sizeof(hfftf_complex) * 36);
    cr_assert_eq(hfftf_execute_dft_r2c(p, in2, o2), 0, "%s", hfft_last_error_message());
    hfft_ref_dim d[2] = {{6, 10, 6}, {10, 1, 1}};
    double e = hfft_ref_guru_error(4, R2C, -1, 2, d, 0, NULL, in2, NULL, o2, NULL);
    cr_assert(e >= 0 && e < 5e-7, "new-array r2c: error %g", e);
    cr_assert_lt(hfftf_execute_dft(p, (hfftf_complex *)in2, o2), 0);
    cr_assert_eq(hfft_last_error(), HFFT_ERR_INVALID_ARGUMENT);
    cr_assert_lt(hfftf_execute_dft_c2r(p, o2, in2), 0);
    cr_assert_lt(hfftf_execute_dft_r2c(p, in2, (hfftf_complex *)in2), 0, "in place on an "
                                                                        "out-of-place plan");
    hfftf_destroy_plan(p);
    tu_free(in1);
    tu_free(in2);
    tu_free(o1);
    tu_free(o2);
}

static void expect_refused(void *p, const char *what) {
    cr_assert_null(p, "%s: got a plan", what);
    cr_assert_eq(hfft_last_error(), HFFT_ERR_INVALID_ARGUMENT, "%s: %s", what,
                 hfft_last_error_message());
    cr_assert(hfft_last_error_message()[0], "%s: no message", what);
}

/* In place without FFTW's padding (the second transform's reals lie under the first
   one's complex output), as FFTW's tests make such problems: valid, and FFTW's plan
   of the whole problem computes it. */
Test(guru, inplace_real_unpadded) {
    float x[36], orig[32];
    hfft_ref_fill(4, x, 16, tu_seed()); /* 32 reals */
    memcpy(orig, x, sizeof orig);
    hfftf_plan p = hfftf_plan_many_dft_r2c(1, (int[]){16}, 2, x, NULL, 1, 16, (hfftf_complex *)x,
                                           NULL, 1, 9, 0);
    cr_assert_not_null(p, "%s", hfft_last_error_message());
    hfft_info info;
    cr_assert_eq(hfftf_plan_info(p, &info), 0);
    cr_assert_eq(info.device, HFFT_DEVICE_NONE);
    cr_assert_eq(hfftf_execute(p), 0, "%s", hfft_last_error_message());
    hfft_ref_dim d[1] = {{16, 1, 1}}, h[1] = {{2, 16, 9}};
    double e = hfft_ref_guru_error(4, R2C, -1, 1, d, 1, h, orig, NULL, x, NULL);
    cr_assert(e >= 0 && e < 5e-7, "error %g", e);
    hfftf_destroy_plan(p);
}

/* Output layouts of more elements than are enumerated (2^22) whose strides are not
   nested: accepted where no element repeats (strides 2 and 3: the residue mod 2
   tells the two transforms apart), refused where one does (2 and 4). */
Test(guru, large_output_layouts) {
    int64_t n = ((int64_t)1 << 21) + 1;
    hfftf_complex *in = tu_alloc(sizeof(hfftf_complex) * (size_t)(2 * n));
    hfftf_complex *out = tu_alloc(sizeof(hfftf_complex) * (size_t)(2 * n + 8));
    hfft_iodim d = {n, 1, 2}, h = {2, n, 3};
    hfftf_plan p = hfftf_plan_guru_dft(1, &d, 1, &h, in, out, HFFT_FORWARD, HFFT_CPU_ONLY, NULL);
    cr_assert_not_null(p, "strides 2 and 3 past 2^22 outputs: %s", hfft_last_error_message());
    hfftf_destroy_plan(p);
    h.os = 4;
    expect_refused(hfftf_plan_guru_dft(1, &d, 1, &h, in, out, HFFT_FORWARD, 0, NULL),
                   "strides 2 and 4 past 2^22 outputs");
    tu_free(in);
    tu_free(out);
}

Test(guru, bad_input) {
    float buf[4096];
    memset(buf, 0, sizeof buf);
    float *before = tu_dup(buf, sizeof buf);
    hfftf_complex *c = (hfftf_complex *)buf;
    /* output strides that write one element twice */
    hfft_iodim alias[2] = {{4, 1, 1}, {3, 4, 2}};
    expect_refused(hfftf_plan_guru_dft(2, alias, 0, NULL, c, c + 512, HFFT_FORWARD, 0, NULL),
                   "aliasing output");
    hfft_iodim zero = {4, 1, 0};
    expect_refused(hfftf_plan_guru_dft(1, &zero, 0, NULL, c, c + 512, HFFT_FORWARD, 0, NULL),
                   "zero output stride");
    /* a batch whose transforms overlap in the output */
    expect_refused(hfftf_plan_many_dft(1, (int[]){8}, 3, c, NULL, 1, 8, c + 512, NULL, 1, 4,
                                       HFFT_FORWARD, 0),
                   "overlapping output embeds");
    /* a sign for a direction that does not exist */
    expect_refused(hfftf_plan_guru_dft(1, (hfft_iodim[]){{8, 1, 1}}, 0, NULL, c, c + 64, 2, 0, NULL),
                   "sign 2");
    /* sizes whose complex half overflows */
    hfft_iodim big[2] = {{INT64_MAX / 4, 1, 1}, {8, 1, 1}};
    expect_refused(hfftf_plan_guru_dft_r2c(2, big, 0, NULL, buf, c, 0, NULL), "overflow");
    /* partly overlapping arrays */
    expect_refused(hfftf_plan_guru_dft(1, (hfft_iodim[]){{64, 1, 1}}, 0, NULL, c, c + 10,
                                       HFFT_FORWARD, 0, NULL),
                   "partial overlap");
    /* nothing was written */
    cr_assert(memcmp(before, buf, sizeof buf) == 0, "a refused plan wrote to its arrays");
    tu_free(before);
}

/*
 * Real rounds on the emulated device, streaming (a budget of a few passes) and
 * in one trip (a budget larger than the array), 2D and 3D, in and out of
 * place, c2r with and without keeping its input: each checked against FFTW,
 * with the bytes over the link as the README's formula says: streaming, a
 * real round moves the real side one way and the complex side the other,
 * a complex round the complex side both ways; one trip, each side once.
 */
Test(guru, real_rounds) {
    static const int64_t shapes[][4] = {{2, 64, 40},    {2, 33, 18}, {3, 12, 10, 14},
                                        {3, 6, 5, 9},   {2, 12, 4096},
                                        {2, 24, 16384}, /* streams four-step: real rows of
                                                           64 KiB and more copied whole */
                                        {2, 8192, 30}}; /* one trip dimension 0 four-step */
    for (int prec = 4; prec <= 8; prec += 4)
        for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++)
            for (int kind = R2C; kind <= C2R; kind++)
                for (int inplace = 0; inplace < 2; inplace++)
                    for (int trip = 0; trip < 2; trip++)
                        for (int keep = 0; keep < 1 + (kind == C2R && !inplace); keep++) {
                            gcase g = {kind, prec, 0, (int)shapes[i][0], 0};
                            g.inplace = inplace;
                            g.flags = keep ? HFFT_PRESERVE_INPUT : 0;
                            dense_dims(kind, g.rank, &shapes[i][1], inplace, g.dims);
                            g.what = trip ? "real rounds, one trip" : "real rounds, streaming";
                            g.gpu = 1;
                            int rank = (int)shapes[i][0];
                            int64_t rows = 1, nreal = shapes[i][rank];
                            for (int k = 1; k < rank; k++)
                                rows *= shapes[i][k];
                            int64_t real = rows * nreal * prec;
                            int64_t cplx = rows * (nreal / 2 + 1) * 2 * prec;
                            hfft_info info;
                            run_guru_info(&g, HFFT_DEVICE_EMULATED,
                                          trip ? (1 << 20) + 4 * cplx : cplx / 2, &info);
                            /* streaming: less what stays on the device between rounds */
                            int64_t want_in = trip ? (kind == R2C ? real : cplx)
                                                   : (kind == R2C ? real + cplx : 2 * cplx) -
                                                         info.resident_bytes;
                            int64_t want_out = trip ? (kind == R2C ? cplx : real)
                                                    : (kind == R2C ? 2 * cplx : cplx + real) -
                                                          info.resident_bytes;
                            cr_assert_eq(info.schedule == 3, trip, "shape %zu: schedule %d", i,
                                         info.schedule);
                            /* real rows of 64 KiB stream four-step out of place (in f32:
                                               in f64 the rows' work area leaves no room for
                                               three passes in this budget) */
                            if (kind == R2C && !inplace && !trip && nreal * prec >= 65536 &&
                                prec == 4)
                                cr_assert_eq(info.schedule, 4, "shape %zu: schedule %d", i,
                                             info.schedule);
                            cr_assert(info.link_bytes[0] == want_in &&
                                          info.link_bytes[1] == want_out,
                                      "shape %zu %s %s: moved %lld in, %lld out; expected %lld, "
                                      "%lld",
                                      i, kind == R2C ? "r2c" : "c2r", g.what,
                                      (long long)info.link_bytes[0], (long long)info.link_bytes[1],
                                      (long long)want_in, (long long)want_out);
                        }
}

/* The real rounds on a CUDA GPU where one is usable (cuFFT R2C/C2R in the padded
   layout), streaming and in one trip; skipped, and said so, elsewhere. */
/*
 * A CPU share beside four-step streaming (out of place, one card, rows of one
 * dimension): the CPU takes the GPU's layout between the rounds, its groups of
 * round A and pieces of round B (cpu/four.c).  c2c and r2c, both precisions,
 * fixed shares from nearly all GPU to nearly all CPU, HFFT_HYBRID's probe
 * share, a batch between the two dimensions, rows wide enough for round B to
 * cut them in pieces, both directions, and one to five CPU threads (several
 * threads on one group of round A, more threads than jobs); against FFTW in
 * long double.
 */
Test(guru, hybrid_four_step) {
    static const struct {
        int kind, rank;
        int64_t n[3];
        int64_t budget;
        int between; /* a batch of this many between dimension 0 and the rows */
    } cases[] = {{C2C, 2, {64, 48}, 64 << 10, 0},  {R2C, 2, {64, 48}, 64 << 10, 0},
                 {C2C, 2, {96, 100}, 64 << 10, 0}, {R2C, 2, {120, 90}, 64 << 10, 0},
                 {C2C, 2, {30, 64}, 48 << 10, 3},  {C2C, 2, {16, 16384}, 3 << 20, 0},
                 {R2C, 2, {24, 16384}, 3 << 20, 0}};
    static const double shares[][2] = {{0.6, 0.7}, {0.05, 0.95}, {0.95, 0.05}, {0, 0}};
    for (int prec = 4; prec <= 8; prec += 4)
        for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
            for (size_t s = 0; s < sizeof shares / sizeof shares[0]; s++) {
                int kind = cases[i].kind;
                gcase g = {kind, prec, kind == C2C ? (s % 2 ? 1 : -1) : 0, 2, 0};
                g.threads = 1 + (int)((i + s) % 5);
                dense_dims(kind, 2, cases[i].n, 0, g.dims);
                if (cases[i].between) {
                    /* rows n[1] apart in a batch of `between`, dimension 0 between batches */
                    int64_t b = cases[i].between;
                    g.dims[0].is = g.dims[0].os = b * cases[i].n[1];
                    g.hrank = 1;
                    g.hdims[0] = (hfft_iodim){b, cases[i].n[1], cases[i].n[1]};
                }
                g.flags = shares[s][0] > 0 ? 0 : HFFT_HYBRID;
                g.ratio[0] = shares[s][0];
                g.ratio[1] = shares[s][1];
                g.what = "hybrid beside four-step streaming";
                hfft_info info;
                run_guru_info(&g, HFFT_DEVICE_EMULATED, cases[i].budget, &info);
                cr_assert_eq(info.schedule, 4, "case %zu share %zu f%d: schedule %d", i, s,
                             prec * 8, info.schedule);
                cr_assert_eq(info.placement, 2, "case %zu share %zu: placement %d", i, s,
                             info.placement);
                for (int h = 0; h < 2; h++)
                    cr_assert(info.ratio[h] > 0 && info.ratio[h] < 1,
                              "case %zu share %zu round %d: GPU share %g", i, s, h, info.ratio[h]);
            }
}

Test(guru, real_rounds_cuda) {
    float probe[16];
    hfft_options o;
    hfft_options_init(&o);
    o.device = HFFT_DEVICE_CUDA;
    int64_t n1[1] = {8};
    hfftf_plan p = hfftf_plan_dft_r2c(1, n1, probe, (hfftf_complex *)probe, 0, &o);
    if (!p)
        cr_skip_test("no usable CUDA GPU: %s", hfft_last_error_message());
    hfftf_destroy_plan(p);
    static const int64_t shapes[][4] = {{2, 640, 400}, {2, 257, 18}, {3, 48, 40, 56}, {2, 24, 4096}};
    for (int prec = 4; prec <= 8; prec += 4)
        for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++)
            for (int kind = R2C; kind <= C2R; kind++)
                for (int inplace = 0; inplace < 2; inplace++)
                    for (int trip = 0; trip < 2; trip++) {
                        gcase g = {kind, prec, 0, (int)shapes[i][0], 0};
                        g.inplace = inplace;
                        g.flags = kind == C2R && !inplace ? HFFT_PRESERVE_INPUT : 0;
                        dense_dims(kind, g.rank, &shapes[i][1], inplace, g.dims);
                        g.what = trip ? "cuda real rounds, one trip" : "cuda real rounds";
                        g.gpu = 0; /* checked below for the CUDA device */
                        int64_t rows = 1;
                        for (int k = 1; k < g.rank; k++)
                            rows *= shapes[i][k];
                        int64_t cplx = rows * (shapes[i][g.rank] / 2 + 1) * 2 * prec;
                        hfft_info info;
                        run_guru_info(&g, HFFT_DEVICE_CUDA, trip ? cplx * 4 + (64 << 20) : cplx / 2,
                                      &info);
                        cr_assert(info.device == HFFT_DEVICE_CUDA && info.placement == 1,
                                  "shape %zu: ran on %s", i, info.device_name);
                        cr_assert_eq(info.schedule == 3, trip, "shape %zu: schedule %d", i,
                                     info.schedule);
                    }
}

/*
 * Several emulated cards (HFFT_DEVICES): where the array fits their budgets
 * together, one trip across them (each card's slab in through its link, the
 * exchange card to card, each card's columns out), each side over the links
 * once; where it does not, every round cut between the cards, each streaming
 * its share.  c2c 2D and 3D of odd sizes, r2c, c2r, batches, a line cut
 * four-step and dimensions of 257 and 263 points (Bluestein's in double
 * precision, odd real rows among them); 2, 3 and 4 cards; in and out of place; both precisions.  The
 * emulated cards refuse any operation on memory that is not their own, so a
 * schedule that reads another card's memory without a peer copy fails here.
 */
Test(guru, several_cards) {
    static const struct {
        int kind, rank;
        int64_t n[3];
        int64_t howmany;
    } cases[] = {{C2C, 2, {96, 80}, 1},  {C2C, 2, {45, 70}, 1},   {C2C, 3, {14, 12, 20}, 1},
                 {R2C, 2, {64, 60}, 1},  {R2C, 3, {12, 10, 18}, 1}, {C2R, 2, {48, 36}, 1},
                 {C2C, 1, {160}, 24},    {C2C, 1, {4096}, 1},       {C2C, 2, {6, 16384}, 1},
                 /* primes above 127: Bluestein on each card in double precision */
                 {C2C, 2, {12, 257}, 1}, {R2C, 2, {263, 40}, 1},    {R2C, 2, {24, 263}, 1}};
    static const char *const devices[] = {"0,1", "0,1,2", "3,1,0,2"};
    for (int prec = 4; prec <= 8; prec += 4)
        for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
            for (size_t dv = 0; dv < 3; dv++)
                for (int fits = 0; fits < 2; fits++)
                    for (int inplace = 0; inplace < 2; inplace++) {
                        int kind = cases[i].kind, rank = cases[i].rank;
                        gcase g = {kind, prec, kind == C2C ? -1 : 0, rank, 0};
                        g.inplace = inplace;
                        g.flags = kind == C2R && !inplace ? HFFT_PRESERVE_INPUT : 0;
                        dense_dims(kind, rank, cases[i].n, inplace, g.dims);
                        int64_t rows = 1, nl = cases[i].n[rank - 1];
                        for (int k = 0; k + 1 < rank; k++)
                            rows *= cases[i].n[k];
                        int64_t cl = kind == C2C ? nl : nl / 2 + 1;
                        if (cases[i].howmany > 1) {
                            g.hrank = 1;
                            g.hdims[0] = (hfft_iodim){cases[i].howmany, rows * nl, rows * nl};
                        }
                        rows *= cases[i].howmany;
                        int64_t cplx = rows * cl * 2 * prec, real = rows * nl * prec;
                        int64_t in_b = kind == R2C ? real : cplx, out_b = kind == C2R ? real : cplx;
                        g.what = fits ? "several cards, fitting" : "several cards, streaming";
                        g.gpu = 1;
                        g.devices = devices[dv];
                        hfft_info info;
                        /* streaming: the cards together hold less than the array; a line
                           of 4096 is cut four-step at such budgets */
                        int ncard = (int)(strlen(devices[dv]) + 1) / 2;
                        int64_t budget = fits ? 4 << 20 : cplx / (ncard + 1);
                        run_guru_info(&g, HFFT_DEVICE_EMULATED, budget, &info);
                        cr_assert_eq(info.cards, ncard, "case %zu: %d cards", i, info.cards);
                        cr_assert_eq(info.card_ids[0], devices[dv][0] - '0');
                        int trip = fits && kind != C2R && rank > 1;
                        cr_assert_eq(info.schedule == 3, trip, "case %zu %s: schedule %d", i,
                                     devices[dv], info.schedule);
                        if (trip)
                            cr_assert(info.link_bytes[0] == in_b && info.link_bytes[1] == out_b,
                                      "case %zu on %s: moved %lld in, %lld out; expected %lld, "
                                      "%lld",
                                      i, devices[dv], (long long)info.link_bytes[0],
                                      (long long)info.link_bytes[1], (long long)in_b,
                                      (long long)out_b);
                        else
                            cr_assert(info.link_bytes[0] >= in_b && info.link_bytes[1] >= out_b);
                    }
}

/* Cards asked for that the backend does not have, or asked for twice: clear errors. */
Test(guru, several_cards_refused) {
    float a[64];
    hfft_options o;
    hfft_options_init(&o);
    o.device = HFFT_DEVICE_EMULATED;
    int64_t n[2] = {4, 4};
    static const struct {
        const char *devices;
        int status;
    } bad[] = {{"0,99", HFFT_ERR_NO_DEVICE}, {"1,1", HFFT_ERR_SETTING},
               {"0,", HFFT_ERR_SETTING},     {"x", HFFT_ERR_SETTING},
               {"-1", HFFT_ERR_SETTING},     {"", HFFT_ERR_SETTING}};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        o.devices = bad[i].devices;
        cr_assert_null(hfftf_plan_dft(2, n, (hfftf_complex *)a, (hfftf_complex *)a, HFFT_FORWARD,
                                      HFFT_GPU_ONLY, &o),
                       "devices '%s' planned", bad[i].devices);
        cr_assert_eq(hfft_last_error(), bad[i].status, "devices '%s': %s", bad[i].devices,
                     hfft_last_error_message());
    }
}

/* A c2r with HFFT_PRESERVE_INPUT under HFFT_MEASURE whose probe the card refused (a line
   larger than the budget's passes): the plan moves to the CPU and, there, times
   FFTW's plan of the whole problem against its rounds; either keeps the input. */
Test(guru, measured_c2r_on_the_cpu_keeps_its_input) {
    const int64_t n = 1024, batch = 5, half = n / 2 + 1;
    hfft_iodim d = {n, 1, 1}, h = {batch, half, n};
    hfft_ref_dim rd = {n, 1, 1}, rh = {batch, half, n};
    size_t in_bytes = (size_t)(batch * half) * sizeof(hfft_complex);
    hfft_complex *in = tu_alloc(in_bytes);
    double *out = tu_alloc((size_t)(batch * n) * sizeof(double));
    for (int threads = 0; threads <= 2; threads++) {
        hfft_options o;
        hfft_options_init(&o);
        o.device = HFFT_DEVICE_EMULATED;
        o.device_memory = 2000;
        o.threads = threads;
        hfft_plan p = hfft_plan_guru_dft_c2r(1, &d, 1, &h, in, out,
                                             HFFT_MEASURE | HFFT_PRESERVE_INPUT, &o);
        cr_assert(p, "no plan: %s", hfft_last_error_message());
        hfft_info info;
        hfft_plan_info(p, &info);
        cr_assert_eq(info.placement, 0, "threads %d: placement %d", threads, info.placement);
        cr_assert_eq(hfft_ref_fill_hermitian(8, 1, &rd, 1, &rh, in, NULL, tu_seed()), 0);
        void *keep = tu_dup(in, in_bytes);
        tu_poison(out, (size_t)(batch * n) * sizeof(double));
        cr_assert_eq(hfft_execute(p), 0, "execute: %s", hfft_last_error_message());
        cr_assert(memcmp(keep, in, in_bytes) == 0, "threads %d (whole plan %d): the input changed",
                  threads, info.cpu_plan);
        double e = hfft_ref_guru_error(8, C2R, HFFT_BACKWARD, 1, &rd, 1, &rh, keep, NULL, out,
                                       NULL);
        cr_assert(e >= 0 && e <= 5e-16, "threads %d: relative RMS error %g", threads, e);
        hfft_destroy_plan(p);
        tu_free(keep);
    }
    tu_free(out);
    tu_free(in);
}
