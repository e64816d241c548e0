/*
 * copy.c: layouts that run through a dense copy.  Each execute gathers the
 * input into a dense array of the same transform (vector dimensions outermost,
 * FFTW's padded layout for real kinds), runs a plan of that dense problem in
 * place on it, and scatters the result into the output's layout.  For layouts
 * with a negative stride (FFTW's planner can recurse without end on them, and
 * the engines take positive strides) and, in double precision, for layouts the
 * rounds do not take whose lengths need Bluestein's lines to stay accurate
 * (FFTW's plan of the whole problem would run its own): the dense plan takes
 * the rounds, on any engine.  It costs host memory of the array's size.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "src/copy.h"
#include "src/core/status.h"
#include "src/place.h"
#include "src/problem.h"

int hfft__copy_wanted(const hfft__problem *pb) {
    for (int k = 0; k < pb->rank + pb->hrank; k++) {
        const hfft__dim *d = k < pb->rank ? &pb->dims[k] : &pb->hdims[k - pb->rank];
        if (d->n > 1 && (d->is < 0 || d->os < 0))
            return HFFT__COPY_NEGATIVE;
    }
    if (pb->kind != HFFT__R2R && hfft__problem_chirp_dims(pb))
        return HFFT__COPY_BLUESTEIN;
    return 0;
}

/* One side's dimensions, vector ones first: the sizes (the halved one's on a complex
   side) and the strides in that side's elements. */
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

size_t hfft__copy_problem(const hfft__problem *pb, void *copy, hfft__problem *d) {
    *d = *pb;
    d->split_in = d->split_out = 0;
    d->unpadded = 0;
    int64_t cs = 1, rs = 1; /* complex elements, reals */
    int real = pb->kind == HFFT__R2C || pb->kind == HFFT__C2R; /* (r2r: reals, not halved) */
    for (int k = pb->rank - 1; k >= 0; k--) {
        int last = k == pb->rank - 1;
        int64_t n = pb->dims[k].n, cn = real && last ? n / 2 + 1 : n;
        int64_t rstride = real && last ? 1 : 2 * cs;
        d->dims[k].is = pb->kind == HFFT__R2C ? rstride : cs;
        d->dims[k].os = pb->kind == HFFT__C2R ? rstride : cs;
        rs = real && last ? 2 * cn : rs * n;
        cs *= cn;
    }
    for (int k = pb->hrank - 1; k >= 0; k--) {
        d->hdims[k].is = pb->kind == HFFT__R2C ? rs : cs;
        d->hdims[k].os = pb->kind == HFFT__C2R ? rs : cs;
        cs *= pb->hdims[k].n;
        rs *= pb->hdims[k].n;
    }
    size_t bytes = (size_t)cs * pb->esize;
    d->in[0] = d->out[0] = copy;
    d->in[1] = d->out[1] = NULL;
    d->inplace = 1;
    d->lo[0] = d->lo[1] = 0;
    d->hi[0] = d->hi[1] = (int64_t)bytes;
    return bytes;
}

/*
 * Every element of one side between the caller's layout (strides us, over the
 * arrays a[0] and, split, a[1]) and the copy (strides ds): reals (width 1) or
 * complex numbers (2, interleaved in the copy), of prec bytes a real.
 */
static void move_side(int nd, const int64_t *n, const int64_t *us, const int64_t *ds, int width,
                      size_t prec, char *const a[2], char *copy, int to_copy) {
    int64_t idx[2 * HFFT__MAX_DIMS] = {0}, uo = 0, co = 0;
    for (int k = 0; k < nd; k++)
        if (n[k] == 0)
            return;
    size_t el = (size_t)width * prec;
    for (;;) {
        char *c = copy + (size_t)co * el;
        char *re = a[1] ? a[0] + uo * (int64_t)prec : a[0] + uo * (int64_t)el;
        char *im = a[1] ? a[1] + uo * (int64_t)prec : re + prec;
        if (to_copy) {
            memcpy(c, re, prec);
            if (width == 2)
                memcpy(c + prec, im, prec);
        } else {
            memcpy(re, c, prec);
            if (width == 2)
                memcpy(im, c + prec, prec);
        }
        int k = nd - 1;
        for (; k >= 0; k--) {
            uo += us[k];
            co += ds[k];
            if (++idx[k] < n[k])
                break;
            uo -= us[k] * n[k];
            co -= ds[k] * n[k];
            idx[k] = 0;
        }
        if (k < 0)
            return;
    }
}

static void move(const hfft__problem *pb, const hfft__problem *d, int out, void *const arrays[2],
                 int to_copy) {
    int64_t n[2 * HFFT__MAX_DIMS], us[2 * HFFT__MAX_DIMS], dn[2 * HFFT__MAX_DIMS],
        ds[2 * HFFT__MAX_DIMS];
    int nd = side_dims(pb, out, n, us);
    side_dims(d, out, dn, ds);
    int width = pb->kind == HFFT__R2R || pb->kind == (out ? HFFT__C2R : HFFT__R2C) ? 1 : 2;
    char *a[2] = {arrays[0], width == 2 ? arrays[1] : NULL};
    move_side(nd, n, us, ds, width, (size_t)pb->prec, a, d->in[0], to_copy);
}

void hfft__copy_gather(const hfft__problem *pb, const hfft__problem *d, void *const in[2]) {
    move(pb, d, 0, in, 1);
}

void hfft__copy_scatter(const hfft__problem *pb, const hfft__problem *d, void *const out[2]) {
    move(pb, d, 1, out, 0);
}
