/*
 * memory.c: the host memory bandwidth, measured as STREAM measures its copy,
 * with the executor's own threads (so that their placement is the
 * executor's) and its streaming stores.  It is the figure each CPU round is
 * reported against, and the one the balancer's model lets the copy engines
 * and the CPU's transforms share.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cpu/cpu.h"
#include "cpu/stream.h"
#include "src/core/status.h"

typedef struct copies {
    size_t chunk; /* bytes per thread, whole cache lines */
    char **src, **dst;
} copies;

/* Each thread's two arrays, first touched by that thread. */
static void touch(void *ctx, int64_t job, int thread) {
    copies *x = ctx;
    (void)job;
    x->src[thread] = aligned_alloc(HFFT__LINE, x->chunk);
    x->dst[thread] = aligned_alloc(HFFT__LINE, x->chunk);
    if (x->src[thread])
        memset(x->src[thread], thread + 1, x->chunk);
    if (x->dst[thread])
        memset(x->dst[thread], 0, x->chunk);
}

static void copy(void *ctx, int64_t job, int thread) {
    copies *x = ctx;
    (void)job;
    hfft__stream_copy(x->dst[thread], x->src[thread], x->chunk);
    hfft__stream_fence();
}

int hfft__host_bandwidth(hfft__pool *p, size_t bytes, int reps, double *bytes_per_s) {
    *bytes_per_s = 0.0;
    int n = hfft__pool_size(p);
    copies x;
    x.chunk = (bytes / (size_t)n) & ~(size_t)(HFFT__LINE - 1);
    if (x.chunk == 0 || reps < 1)
        return hfft__fail(HFFT_ERR_INVALID_ARGUMENT,
                          "host bandwidth: %zu bytes, %d repetitions on %d threads", bytes, reps,
                          n);
    x.src = calloc((size_t)n, sizeof *x.src);
    x.dst = calloc((size_t)n, sizeof *x.dst);
    int st = 0;
    if (!x.src || !x.dst)
        st = hfft__fail(HFFT_ERR_HOST_MEMORY, "host bandwidth: out of memory");
    if (!st)
        hfft__pool_each(p, touch, &x);
    for (int t = 0; !st && t < n; t++)
        if (!x.src[t] || !x.dst[t])
            st = hfft__fail(HFFT_ERR_HOST_MEMORY, "host bandwidth: 2 x %zu bytes on thread %d",
                            x.chunk, t);
    double best = INFINITY;
    for (int r = 0; !st && r < reps; r++) {
        double t0 = hfft__now();
        hfft__pool_each(p, copy, &x);
        double t = hfft__now() - t0;
        if (t < best)
            best = t;
    }
    if (!st)
        *bytes_per_s = best > 0 ? 2.0 * (double)x.chunk * n / best : 0.0;
    for (int t = 0; t < n && x.src && x.dst; t++) {
        free(x.src[t]);
        free(x.dst[t]);
    }
    free(x.src);
    free(x.dst);
    return st;
}
