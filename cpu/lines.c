/*
 * lines.c: batched 1D or 2D complex transforms on host memory through FFTW,
 * written once and compiled per precision (HFFT_SINGLE selects float).  Used
 * by the CPU executor and by the emulated device.  FFTW's planner is not
 * thread safe, so planning holds one lock shared by both precisions.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "cpu/cpu.h"
#include "cpu/fftw_bind.h" /* FFTW through a private table, never by name */
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

struct hfft__lines {
    int prec, kind;
    void *plan;
};

int XI(lines_plan)(const hfft__lines_desc *d, hfft__lines **out) {
    *out = NULL;
    HFFT__TRY(hfft__fftw_bind());
    FFTW(iodim64) dims[3], howmany;
    int rank = d->rank;
    /* Each side's rows: the last dimension's n, or (real kinds) the given row pitch. */
    int64_t in_inner = 1, out_inner = 1;
    for (int k = rank - 1; k >= 0; k--) {
        dims[k].n = d->n[k];
        dims[k].is = in_inner * d->is;
        dims[k].os = out_inner * d->os;
        int last = k == rank - 1;
        in_inner *= last && d->ipitch ? d->ipitch : d->n[k];
        out_inner *= last && d->opitch ? d->opitch : d->n[k];
    }
    howmany.n = d->howmany;
    howmany.is = d->idist;
    howmany.os = d->odist;

    /* Plan on scratch of the same span so that MEASURE never touches user data. */
    int64_t span_i = 1, span_o = 1;
    for (int k = 0; k < rank; k++) {
        span_i += (dims[k].n - 1) * dims[k].is;
        span_o += (dims[k].n - 1) * dims[k].os;
    }
    span_i += (d->howmany - 1) * d->idist;
    span_o += (d->howmany - 1) * d->odist;
    size_t bytes_i = (size_t)span_i * (d->kind == HFFT__R2C ? sizeof(R) : sizeof(FFTW(complex)));
    size_t bytes_o = (size_t)span_o * (d->kind == HFFT__C2R ? sizeof(R) : sizeof(FFTW(complex)));
    if (d->inplace && bytes_o > bytes_i)
        bytes_i = bytes_o;
    int own = d->plan_in == NULL;
    FFTW(complex) *a = own ? FFTW(malloc)(bytes_i) : d->plan_in;
    FFTW(complex) *b = d->inplace ? a : own ? FFTW(malloc)(bytes_o) : d->plan_out;
    if (own && (!a || !b)) {
        FFTW(free)(a);
        if (b != a)
            FFTW(free)(b);
        return hfft__fail(HFFT_ERR_HOST_MEMORY, "FFTW planning scratch of %zu bytes", bytes_i);
    }
    if (own) {
        memset(a, 0, bytes_i);
        if (b != a)
            memset(b, 0, bytes_o);
    }
    /* Our plans run one per pool thread: single-threaded, whatever thread count
       the application gave FFTW's planner for its own plans. */
    hfft__fftw_threads_once();
    pthread_mutex_lock(&hfft__fftw_mutex);
    int nthreads = FFTW(planner_nthreads)();
    FFTW(plan_with_nthreads)(d->nthreads > 1 ? d->nthreads : 1);
    FFTW(plan) p = d->kind == HFFT__R2C
                       ? FFTW(plan_guru64_dft_r2c)(rank, dims, 1, &howmany, (R *)a, b, d->fftw_flags)
                   : d->kind == HFFT__C2R
                       ? FFTW(plan_guru64_dft_c2r)(rank, dims, 1, &howmany, a, (R *)b, d->fftw_flags)
                       : FFTW(plan_guru64_dft)(rank, dims, 1, &howmany, a, b, d->sign,
                                               d->fftw_flags);
    FFTW(plan_with_nthreads)(nthreads);
    pthread_mutex_unlock(&hfft__fftw_mutex);
    if (own) {
        FFTW(free)(a);
        if (b != a)
            FFTW(free)(b);
    }
    if (!p)
        return hfft__fail(HFFT_ERR_FFTW,
                          "fftw_plan_guru64_dft failed (rank %d, n %lld, batch %lld, stride %lld)",
                          rank, (long long)d->n[0], (long long)d->howmany, (long long)d->is);
    hfft__lines *l = malloc(sizeof *l);
    if (!l) {
        pthread_mutex_lock(&hfft__fftw_mutex);
        FFTW(destroy_plan)(p);
        pthread_mutex_unlock(&hfft__fftw_mutex);
        return hfft__fail(HFFT_ERR_HOST_MEMORY, "FFTW plan: out of memory");
    }
    l->prec = PREC;
    l->kind = d->kind;
    l->plan = p;
    *out = l;
    return 0;
}

void XI(lines_exec)(hfft__lines *l, void *in, void *out) {
    if (l->kind == HFFT__R2C)
        FFTW(execute_dft_r2c)((FFTW(plan))l->plan, in, out);
    else if (l->kind == HFFT__C2R)
        FFTW(execute_dft_c2r)((FFTW(plan))l->plan, in, out);
    else
        FFTW(execute_dft)((FFTW(plan))l->plan, in, out);
}

void XI(lines_destroy)(hfft__lines *l) {
    pthread_mutex_lock(&hfft__fftw_mutex);
    FFTW(destroy_plan)((FFTW(plan))l->plan);
    pthread_mutex_unlock(&hfft__fftw_mutex);
    free(l);
}

#ifndef HFFT_SINGLE
/* The precision-neutral entry points, compiled once (with the double build). */
pthread_mutex_t hfft__fftw_mutex = PTHREAD_MUTEX_INITIALIZER;

static pthread_once_t threads_once = PTHREAD_ONCE_INIT;
static void threads_init(void) {
    fftw_init_threads();
    fftwf_init_threads();
}
void hfft__fftw_threads_once(void) { pthread_once(&threads_once, threads_init); }

int hfft__f_lines_plan(const hfft__lines_desc *d, hfft__lines **out);
void hfft__f_lines_exec(hfft__lines *l, void *in, void *out);
void hfft__f_lines_destroy(hfft__lines *l);

int hfft__lines_plan(const hfft__lines_desc *d, hfft__lines **out) {
    return d->prec == 4 ? hfft__f_lines_plan(d, out) : hfft__d_lines_plan(d, out);
}

void hfft__lines_exec(hfft__lines *l, void *in, void *out) {
    if (l->prec == 4)
        hfft__f_lines_exec(l, in, out);
    else
        hfft__d_lines_exec(l, in, out);
}

void hfft__lines_destroy(hfft__lines *l) {
    if (!l)
        return;
    if (l->prec == 4)
        hfft__f_lines_destroy(l);
    else
        hfft__d_lines_destroy(l);
}

unsigned hfft__fftw_estimate(void) { return FFTW_ESTIMATE; }
unsigned hfft__fftw_measure(void) { return FFTW_MEASURE; }
unsigned hfft__fftw_unaligned(void) { return FFTW_UNALIGNED; }
const char *hfft__fftw_version(void) { return fftw_version; }
#endif
