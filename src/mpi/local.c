/*
 * local.c: the copies a rank makes in its own memory, on a few threads: the
 * local transposes of FFTW-MPI's transposed layouts (the plan holds the
 * columns it transforms along dimension 0 as an n0 x c block; TRANSPOSED_OUT
 * wants them as local_n1 x n0 x rest, TRANSPOSED_IN gives them so), and the
 * transfers to and from ranks of the same node through shared memory.
 */
#include <pthread.h>
#include <stdint.h>
#include <string.h>

#include "src/mpi/internal.h"

#define TILE 32
#define MAX_THREADS 64

typedef struct part {
    hfft__mpi_range_fn fn;
    void *ctx;
    int64_t lo, hi;
} part;

static void *run_part(void *arg) {
    part *pt = arg;
    pt->fn(pt->ctx, pt->lo, pt->hi);
    return NULL;
}

void hfft__mpi_parallel(int threads, int64_t n, hfft__mpi_range_fn fn, void *ctx) {
    if (n <= 0)
        return;
    if (threads > MAX_THREADS)
        threads = MAX_THREADS;
    if ((int64_t)threads > n)
        threads = (int)n;
    if (threads < 1)
        threads = 1;
    part parts[MAX_THREADS];
    pthread_t tid[MAX_THREADS];
    int started[MAX_THREADS];
    for (int k = 0; k < threads; k++) {
        parts[k] = (part){fn, ctx, n * k / threads, n * (k + 1) / threads};
        started[k] = k > 0 && pthread_create(&tid[k], NULL, run_part, &parts[k]) == 0;
    }
    for (int k = 0; k < threads; k++)
        if (!started[k])
            run_part(&parts[k]); /* the calling thread's share, and any that did not start */
    for (int k = 1; k < threads; k++)
        if (started[k])
            pthread_join(tid[k], NULL);
}

typedef struct tjob {
    char *t, *w;
    int64_t n0, rest, m0, c;
    size_t esize;
    int to_t;
} tjob;

/* One complex element of either precision, copied as a whole. */
typedef struct c8 {
    uint64_t v;
} c8;
typedef struct c16 {
    uint64_t v[2];
} c16;

/* 2D (rest 1): one element per column, tile by tile so that both sides stay in cache. */
#define TILES_2D(T)                                              \
    for (int64_t ib = lo; ib < hi; ib += TILE) {                 \
        int64_t ie = ib + TILE < hi ? ib + TILE : hi;            \
        for (int64_t mb = 0; mb < j->c; mb += TILE) {            \
            int64_t me = mb + TILE < j->c ? mb + TILE : j->c;    \
            for (int64_t i = ib; i < ie; i++) {                  \
                T *w = (T *)j->w + i * j->c, *t = (T *)j->t + i; \
                for (int64_t m = mb; m < me; m++) {              \
                    if (j->to_t)                                 \
                        t[(j->m0 + m) * j->n0] = w[m];           \
                    else                                         \
                        w[m] = t[(j->m0 + m) * j->n0];           \
                }                                                \
            }                                                    \
        }                                                        \
    }

/* Rows [lo, hi) of the n0 x c block; higher ranks move runs of up to `rest` elements. */
static void transpose_rows(void *ctx, int64_t lo, int64_t hi) {
    const tjob *j = ctx;
    size_t e = j->esize;
    if (j->rest == 1 && e == sizeof(c8)) {
        TILES_2D(c8)
        return;
    }
    if (j->rest == 1) {
        TILES_2D(c16)
        return;
    }
    for (int64_t i = lo; i < hi; i++) {
        for (int64_t m = 0; m < j->c;) {
            int64_t g = j->m0 + m, i1 = g / j->rest, i2 = g % j->rest;
            int64_t len = j->rest - i2 < j->c - m ? j->rest - i2 : j->c - m;
            char *wp = j->w + (size_t)(i * j->c + m) * e;
            char *tp = j->t + (size_t)((i1 * j->n0 + i) * j->rest + i2) * e;
            memcpy(j->to_t ? tp : wp, j->to_t ? wp : tp, (size_t)len * e);
            m += len;
        }
    }
}

void hfft__mpi_transpose(void *t, void *w, int64_t n0, int64_t rest, int64_t m0, int64_t c,
                         size_t esize, int to_t, int threads) {
    if (c <= 0)
        return;
    tjob j = {t, w, n0, rest, m0, c, esize, to_t};
    hfft__mpi_parallel(threads, n0, transpose_rows, &j);
}

typedef struct cjob {
    char *dst;
    const char *src;
    const hfft__mpi_runs *r;
    size_t esize;
} cjob;

static void copy_rows(void *ctx, int64_t lo, int64_t hi) {
    const cjob *j = ctx;
    const hfft__mpi_runs *r = j->r;
    for (int b = 0; b < r->nb; b++) {
        size_t bytes = (size_t)r->len[b] * j->esize;
        for (int64_t i = lo; i < hi; i++)
            memcpy(j->dst + (size_t)(r->dst[b].off + i * r->dst[b].stride) * j->esize,
                   j->src + (size_t)(r->src[b].off + i * r->src[b].stride) * j->esize, bytes);
    }
}

void hfft__mpi_copy(void *dst, const void *src, const hfft__mpi_runs *r, size_t esize,
                    int threads) {
    cjob j = {dst, src, r, esize};
    hfft__mpi_parallel(threads, r->rows, copy_rows, &j);
}
