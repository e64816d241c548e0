/*
 * guru.c: FFTW's own plan of a whole guru problem (complex, real to complex,
 * complex to real; interleaved or split arrays; any strides), on FFTW's
 * threads.  The CPU engine's general path: it takes every layout FFTW takes,
 * where the rounds of exec.c take dense arrays only.  Written once, compiled
 * per precision (HFFT_SINGLE selects float).
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "cpu/cpu.h"
#include "cpu/fftw_bind.h" /* FFTW through a private table, never by name */
#include "src/core/chirp.h"
#include "src/core/status.h"

#ifdef HFFT_SINGLE
#define FFTW(name) fftwf_##name
#define XI(name) hfft__f_##name
#define PREC 4
typedef float R;
#else
#define FFTW(name) fftw_##name
#define XI(name) hfft__d_##name
#define PREC 8
typedef double R;
#endif

extern pthread_mutex_t hfft__fftw_mutex;
void hfft__fftw_threads_once(void);

struct hfft__whole {
    int prec, kind, split_in, split_out;
    void *plan;
    hfft__lines *lines; /* double 1D lines of a length with a large prime factor: Bluestein
                           (src/core/chirp.h) through lines.c, on FFTW's threads */
    /* A layout with a negative stride: FFTW's planner can recurse without end on
       those (its indirect solvers compare signed strides), so FFTW plans the dense
       problem in place on `dense`, which each execute gathers from the input and
       scatters to the output. */
    hfft__whole *inner;
    void *dense;
    size_t dense_bytes;
    hfft__problem pb;   /* the caller's layout, for the gather and the scatter */
    hfft__problem dpb;  /* the dense one */
};

static unsigned fftw_flags(unsigned f) {
    return (f & HFFT__WHOLE_MEASURE ? FFTW_MEASURE : FFTW_ESTIMATE) |
           (f & HFFT__WHOLE_PRESERVE ? FFTW_PRESERVE_INPUT : 0u) |
           (f & HFFT__WHOLE_DESTROY ? FFTW_DESTROY_INPUT : 0u) |
           (f & HFFT__WHOLE_UNALIGNED ? FFTW_UNALIGNED : 0u);
}

void XI(whole_destroy)(hfft__whole *w);
void XI(whole_exec)(hfft__whole *w, int sign, void *const in[2], void *const out[2]);
int XI(whole_plan)(const hfft__problem *pb, void *const in[2], void *const out[2],
                   unsigned flags, int nthreads, hfft__whole **res);

static int negative_stride(const hfft__problem *pb) {
    for (int k = 0; k < pb->rank + pb->hrank; k++) {
        const hfft__dim *d = k < pb->rank ? &pb->dims[k] : &pb->hdims[k - pb->rank];
        if (d->n > 1 && (d->is < 0 || d->os < 0))
            return 1;
    }
    return 0;
}

/* One side of a problem as a list of dimensions, vector dimensions first: each
   size (the halved one's on a complex side) and its stride on that side. */
static int side_dims(const hfft__problem *pb, int out, int64_t *n, int64_t *s) {
    int nd = 0, complex_side = pb->kind == HFFT__C2C || pb->kind == (out ? HFFT__R2C : HFFT__C2R);
    for (int k = 0; k < pb->hrank; k++, nd++) {
        n[nd] = pb->hdims[k].n;
        s[nd] = out ? pb->hdims[k].os : pb->hdims[k].is;
    }
    for (int k = 0; k < pb->rank; k++, nd++) {
        n[nd] = pb->dims[k].n;
        if (pb->kind != HFFT__C2C && k == pb->rank - 1 && complex_side)
            n[nd] = n[nd] / 2 + 1;
        s[nd] = out ? pb->dims[k].os : pb->dims[k].is;
    }
    return nd;
}

/*
 * Copies every element of one side between the caller's layout (strides
 * `us` in its elements, over the arrays a[0] and, split, a[1]) and the dense
 * scratch (strides `ds`): reals (width 1) or complex numbers (2, interleaved
 * in the scratch).  to_dense: gather, else scatter.
 */
static void copy_side(int nd, const int64_t *n, const int64_t *us, const int64_t *ds, int width,
                      R *const a[2], R *dense, int to_dense) {
    int64_t idx[2 * HFFT__MAX_DIMS] = {0}, uo = 0, dof = 0;
    for (int k = 0; k < nd; k++)
        if (n[k] == 0)
            return;
    for (;;) {
        R *d = dense + width * dof;
        R *re = a[1] ? a[0] + uo : a[0] + width * uo, *im = a[1] ? a[1] + uo : re + 1;
        if (to_dense) {
            d[0] = *re;
            if (width == 2)
                d[1] = *im;
        } else {
            *re = d[0];
            if (width == 2)
                *im = d[1];
        }
        int k = nd - 1;
        for (; k >= 0; k--) {
            uo += us[k];
            dof += ds[k];
            if (++idx[k] < n[k])
                break;
            uo -= us[k] * n[k];
            dof -= ds[k] * n[k];
            idx[k] = 0;
        }
        if (k < 0)
            return;
    }
}

/* The dense problem of pb's layout (vector dimensions outermost, FFTW's padded
   in-place layout for real kinds), in place on one array. */
static size_t dense_problem(const hfft__problem *pb, hfft__problem *d) {
    *d = *pb;
    d->split_in = d->split_out = 0;
    int64_t cs = 1, rs = 1; /* complex elements, reals */
    int real = pb->kind != HFFT__C2C;
    for (int k = pb->rank - 1; k >= 0; k--) {
        int64_t n = pb->dims[k].n, cn = real && k == pb->rank - 1 ? n / 2 + 1 : n;
        int64_t rstride = real && k == pb->rank - 1 ? 1 : 2 * cs;
        d->dims[k].is = pb->kind == HFFT__R2C ? rstride : cs;
        d->dims[k].os = pb->kind == HFFT__C2R ? rstride : cs;
        rs = real && k == pb->rank - 1 ? 2 * cn : rs * n;
        cs *= cn;
    }
    for (int k = pb->hrank - 1; k >= 0; k--) {
        d->hdims[k].is = pb->kind == HFFT__R2C ? rs : cs;
        d->hdims[k].os = pb->kind == HFFT__C2R ? rs : cs;
        cs *= pb->hdims[k].n;
        rs *= pb->hdims[k].n;
    }
    return (size_t)cs * 2 * sizeof(R);
}

/* A layout with a negative stride, through a dense scratch (see struct hfft__whole). */
static int plan_dense(const hfft__problem *pb, unsigned flags, int nthreads, hfft__whole **res) {
    hfft__whole *w = calloc(1, sizeof *w);
    if (!w)
        return hfft__fail(HFFT_ERR_HOST_MEMORY, "FFTW plan: out of memory");
    *w = (hfft__whole){.prec = PREC, .kind = pb->kind, .split_in = pb->split_in,
                       .split_out = pb->split_out, .pb = *pb};
    size_t bytes = dense_problem(pb, &w->dpb);
    w->dense_bytes = bytes;
    w->dense = FFTW(malloc)(bytes);
    if (!w->dense) {
        free(w);
        return hfft__fail(HFFT_ERR_HOST_MEMORY,
                          "a dense copy of a layout with negative strides (%zu bytes)", bytes);
    }
    memset(w->dense, 0, w->dense_bytes);
    void *a[2] = {w->dense, NULL};
    w->dpb.in[0] = w->dpb.out[0] = w->dense;
    w->dpb.in[1] = w->dpb.out[1] = NULL;
    w->dpb.inplace = 1;
    int st = XI(whole_plan)(&w->dpb, a, a, flags & ~(unsigned)HFFT__WHOLE_PRESERVE, nthreads,
                            &w->inner);
    if (st) {
        FFTW(free)(w->dense);
        free(w);
        return st;
    }
    *res = w;
    return 0;
}

static void exec_dense(hfft__whole *w, int sign, void *const in[2], void *const out[2]) {
    int64_t n[2 * HFFT__MAX_DIMS], us[2 * HFFT__MAX_DIMS], dn[2 * HFFT__MAX_DIMS],
        ds[2 * HFFT__MAX_DIMS];
    for (int side = 0; side < 2; side++) {
        int nd = side_dims(&w->pb, side, n, us);
        side_dims(&w->dpb, side, dn, ds);
        int width = w->pb.kind == (side ? HFFT__C2R : HFFT__R2C) ? 1 : 2;
        R *a[2] = {side ? out[0] : in[0], side ? out[1] : in[1]};
        if (width == 1)
            a[1] = NULL;
        if (side == 1)
            XI(whole_exec)(w->inner, sign, (void *[2]){w->dense, NULL},
                           (void *[2]){w->dense, NULL});
        copy_side(nd, n, us, ds, width, a, w->dense, side == 0);
    }
}

int XI(whole_plan)(const hfft__problem *pb, void *const in[2], void *const out[2],
                   unsigned flags, int nthreads, hfft__whole **res) {
    *res = NULL;
    HFFT__TRY(hfft__fftw_bind());
    if (negative_stride(pb))
        return plan_dense(pb, flags, nthreads, res);
    FFTW(iodim64) d[HFFT__MAX_DIMS], h[HFFT__MAX_DIMS];
    for (int k = 0; k < pb->rank; k++)
        d[k] = (FFTW(iodim64)){pb->dims[k].n, pb->dims[k].is, pb->dims[k].os};
    for (int k = 0; k < pb->hrank; k++)
        h[k] = (FFTW(iodim64)){pb->hdims[k].n, pb->hdims[k].is, pb->hdims[k].os};
    unsigned ff = fftw_flags(flags);
    HFFT__TRY(hfft__fftw_room(pb->rank, pb->n, sizeof(FFTW(complex))));
    R *ri = in[0], *ii = in[1], *ro = out[0], *io = out[1];
    hfft__fftw_threads_once();
    pthread_mutex_lock(&hfft__fftw_mutex);
    int saved = FFTW(planner_nthreads)();
    FFTW(plan_with_nthreads)(nthreads > 1 ? nthreads : 1);
    FFTW(plan) p = NULL;
    int r = pb->rank, hr = pb->hrank;
    switch (pb->kind) {
    case HFFT__C2C:
        if (pb->split_in)
            /* FFTW's split transforms are forward; the inverse swaps real and imaginary. */
            p = pb->sign == HFFT_FORWARD
                    ? FFTW(plan_guru64_split_dft)(r, d, hr, h, ri, ii, ro, io, ff)
                    : FFTW(plan_guru64_split_dft)(r, d, hr, h, ii, ri, io, ro, ff);
        else
            p = FFTW(plan_guru64_dft)(r, d, hr, h, in[0], out[0], pb->sign, ff);
        break;
    case HFFT__R2C:
        p = pb->split_out ? FFTW(plan_guru64_split_dft_r2c)(r, d, hr, h, ri, ro, io, ff)
                          : FFTW(plan_guru64_dft_r2c)(r, d, hr, h, ri, out[0], ff);
        break;
    default:
        p = pb->split_in ? FFTW(plan_guru64_split_dft_c2r)(r, d, hr, h, ri, ii, ro, ff)
                         : FFTW(plan_guru64_dft_c2r)(r, d, hr, h, in[0], ro, ff);
        break;
    }
    FFTW(plan_with_nthreads)(saved);
    pthread_mutex_unlock(&hfft__fftw_mutex);
    if (!p)
        return hfft__fail(HFFT_ERR_FFTW,
                          "fftw_plan_guru64_%s%s failed (rank %d, howmany_rank %d%s)",
                          pb->split_in || pb->split_out ? "split_" : "",
                          pb->kind == HFFT__C2C ? "dft" : pb->kind == HFFT__R2C ? "dft_r2c"
                                                                                 : "dft_c2r",
                          r, hr, flags & HFFT__WHOLE_PRESERVE ? ", input preserved" : "");
    hfft__whole *w = malloc(sizeof *w);
    if (!w) {
        pthread_mutex_lock(&hfft__fftw_mutex);
        FFTW(destroy_plan)(p);
        pthread_mutex_unlock(&hfft__fftw_mutex);
        return hfft__fail(HFFT_ERR_HOST_MEMORY, "FFTW plan: out of memory");
    }
    *w = (hfft__whole){.prec = PREC, .kind = pb->kind, .split_in = pb->split_in,
                       .split_out = pb->split_out, .plan = p};
    if (PREC == 8 && r == 1 && hr <= 1 && !pb->split_in && !pb->split_out &&
        hfft__chirp_wants(d[0].n, HFFT__CHIRP_FFTW)) {
        hfft__lines_desc ld = {.prec = 8, .rank = 1, .sign = pb->sign, .kind = pb->kind,
                               .n = {d[0].n, 1, 1}, .is = d[0].is, .os = d[0].os,
                               .howmany = hr ? h[0].n : 1, .idist = hr ? h[0].is : 0,
                               .odist = hr ? h[0].os : 0, .inplace = in[0] == out[0],
                               .fftw_flags = ff, .nthreads = nthreads};
        int st = hfft__lines_plan(&ld, &w->lines);
        if (st) {
            XI(whole_destroy)(w);
            return st;
        }
    }
    *res = w;
    return 0;
}

/* FFTW's new-array execute functions, one per kind of arrays. */
void XI(whole_exec)(hfft__whole *w, int sign, void *const in[2], void *const out[2]) {
    if (w->inner) {
        exec_dense(w, sign, in, out);
        return;
    }
    if (w->lines) {
        hfft__lines_exec(w->lines, in[0], out[0]);
        return;
    }
    FFTW(plan) p = w->plan;
    R *ri = in[0], *ii = in[1], *ro = out[0], *io = out[1];
    switch (w->kind) {
    case HFFT__C2C:
        if (!w->split_in)
            FFTW(execute_dft)(p, in[0], out[0]);
        else if (sign == HFFT_FORWARD)
            FFTW(execute_split_dft)(p, ri, ii, ro, io);
        else
            FFTW(execute_split_dft)(p, ii, ri, io, ro);
        break;
    case HFFT__R2C:
        if (w->split_out)
            FFTW(execute_split_dft_r2c)(p, ri, ro, io);
        else
            FFTW(execute_dft_r2c)(p, ri, out[0]);
        break;
    default:
        if (w->split_in)
            FFTW(execute_split_dft_c2r)(p, ri, ii, ro);
        else
            FFTW(execute_dft_c2r)(p, in[0], ro);
        break;
    }
}

size_t XI(whole_host_bytes)(const hfft__whole *w) { return w->dense ? w->dense_bytes : 0; }

void XI(whole_destroy)(hfft__whole *w) {
    if (w->inner) {
        XI(whole_destroy)(w->inner);
        FFTW(free)(w->dense);
        free(w);
        return;
    }
    hfft__lines_destroy(w->lines);
    pthread_mutex_lock(&hfft__fftw_mutex);
    FFTW(destroy_plan)((FFTW(plan))w->plan);
    pthread_mutex_unlock(&hfft__fftw_mutex);
    free(w);
}

#ifndef HFFT_SINGLE
/* The precision-neutral entry points, compiled once (with the double build). */
int hfft__f_whole_plan(const hfft__problem *pb, void *const in[2], void *const out[2],
                       unsigned flags, int nthreads, hfft__whole **res);
void hfft__f_whole_exec(hfft__whole *w, int sign, void *const in[2], void *const out[2]);
void hfft__f_whole_destroy(hfft__whole *w);
size_t hfft__f_whole_host_bytes(const hfft__whole *w);

size_t hfft__whole_host_bytes(const hfft__whole *w) {
    if (!w)
        return 0;
    return w->prec == 4 ? hfft__f_whole_host_bytes(w) : hfft__d_whole_host_bytes(w);
}

int hfft__whole_plan(const hfft__problem *pb, void *const in[2], void *const out[2],
                     unsigned flags, int nthreads, hfft__whole **res) {
    return pb->prec == 4 ? hfft__f_whole_plan(pb, in, out, flags, nthreads, res)
                         : hfft__d_whole_plan(pb, in, out, flags, nthreads, res);
}

void hfft__whole_exec(hfft__whole *w, int sign, void *const in[2], void *const out[2]) {
    if (w->prec == 4)
        hfft__f_whole_exec(w, sign, in, out);
    else
        hfft__d_whole_exec(w, sign, in, out);
}

void hfft__whole_destroy(hfft__whole *w) {
    if (!w)
        return;
    if (w->prec == 4)
        hfft__f_whole_destroy(w);
    else
        hfft__d_whole_destroy(w);
}
#endif
