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

#include "src/core/precision.h"

extern pthread_mutex_t hfft__fftw_mutex;
void hfft__fftw_threads_once(void);

struct hfft__whole {
    int prec, kind, split_in, split_out;
    void *plan;
    hfft__lines *lines; /* double 1D lines of a length with a large prime factor: Bluestein
                           (src/core/chirp.h) through lines.c, on FFTW's threads */
};

static unsigned fftw_flags(unsigned f) {
    return (f & HFFT__WHOLE_MEASURE ? FFTW_MEASURE : FFTW_ESTIMATE) |
           (f & HFFT__WHOLE_PRESERVE ? FFTW_PRESERVE_INPUT : 0u) |
           (f & HFFT__WHOLE_DESTROY ? FFTW_DESTROY_INPUT : 0u) |
           (f & HFFT__WHOLE_UNALIGNED ? FFTW_UNALIGNED : 0u);
}

void XI(whole_destroy)(hfft__whole *w);

int XI(whole_plan)(const hfft__problem *pb, void *const in[2], void *const out[2],
                   unsigned flags, int nthreads, hfft__whole **res) {
    *res = NULL;
    HFFT__TRY(hfft__fftw_bind());
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
    case HFFT__R2R: {
        FFTW(r2r_kind) k[HFFT__MAX_DIMS];
        for (int i = 0; i < r; i++)
            k[i] = (FFTW(r2r_kind))pb->r2r[i];
        p = FFTW(plan_guru64_r2r)(r, d, hr, h, ri, ro, k, ff);
        break;
    }
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
                          pb->kind == HFFT__C2C   ? "dft"
                          : pb->kind == HFFT__R2C ? "dft_r2c"
                          : pb->kind == HFFT__R2R ? "r2r"
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
    if (PREC == 8 && pb->kind != HFFT__R2R && hfft__whole_takes_chirp(pb) && hfft__chirp_wants(d[0].n, HFFT__CHIRP_FFTW)) {
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
    case HFFT__R2R:
        FFTW(execute_r2r)(p, ri, ro);
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

void XI(whole_destroy)(hfft__whole *w) {
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
