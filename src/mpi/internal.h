/*
 * internal.h: what the files of libhfft_mpi share.  The library sits on
 * hfft's public API only (hfft.h): each rank's node plans are ordinary hfft
 * plans, reached through a small table per precision (hfft__mpi_node), so
 * that the distributed layer is written once for both precisions.
 */
#ifndef HFFT_MPI_INTERNAL_H
#define HFFT_MPI_INTERNAL_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include <mpi.h>

#include "hfft.h"
#include "hfft_mpi.h"

/* Pipeline groups per transpose at most, and so the runs of one transfer. */
#define HFFT__MPI_MAX_GROUPS 64
#define HFFT__MPI_MAX_RUNS (HFFT__MPI_MAX_GROUPS + 1)

/* ---- errors.c: the thread-local last error, and statuses made collective ---- */

/* Records status and message for hfft_mpi_last_error*(); returns status. */
int hfft__mpi_fail(int status, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* HFFT_ERR_MPI with MPI's text for code, naming the call. */
int hfft__mpi_fail_mpi(int code, const char *call);
void hfft__mpi_clear_error(void);
const char *hfft__mpi_message(void);
/* Every rank's status made one, collectively: 0 where all are 0, else the status and message
   of the lowest failing rank, recorded on every rank (message prefixed with that rank). */
int hfft__mpi_agree(MPI_Comm comm, int status);
double hfft__mpi_now(void);

/* ---- layout.c: FFTW-MPI's block distribution and local sizes; pipeline groups ---- */

int64_t hfft__mpi_nblocks(int64_t n, int64_t block);
/* Elements of a dimension of n in blocks of `block` that rank r holds, and the first (0 for
   ranks past the last block, as FFTW-MPI). */
int64_t hfft__mpi_block_n(int64_t n, int64_t block, int64_t r);
int64_t hfft__mpi_block_start(int64_t n, int64_t block, int64_t r);
/* A block argument made a size: FFTW-MPI's default ceil(n / ranks) for 0. */
int64_t hfft__mpi_block_size(int64_t n, int64_t block, int ranks);
/* Checks rank, sizes, howmany and blocks (of the distributed dimensions d_in and d_out) as
   FFTW-MPI's planner would, with a message; 0 when valid. */
int hfft__mpi_check_sizes(int rnk, const ptrdiff_t *n, ptrdiff_t howmany, ptrdiff_t iblock,
                          int d_in, ptrdiff_t oblock, int d_out, int ranks);
/* FFTW-MPI's local_size_many_transposed (mpi/api.c), for rank 2 and up: the local rows of
   dimension 0 (input) and of the output's first dimension, and the elements to allocate.
   Negative status on bad arguments. */
ptrdiff_t hfft__mpi_local_size(int rnk, const ptrdiff_t *n, ptrdiff_t howmany, ptrdiff_t xblock,
                               ptrdiff_t yblock, MPI_Comm comm, ptrdiff_t *local_n0,
                               ptrdiff_t *local_0_start, ptrdiff_t *local_n1,
                               ptrdiff_t *local_1_start);

/* One rank's units (rows or columns) cut into pipeline groups: k groups of q units, then a
   remainder of rem < k units (run by a CPU plan of its own). */
typedef struct hfft__mpi_cut {
    int64_t q, rem;
    int k;
} hfft__mpi_cut;

/* Settings read from the environment at plan time (the same on every rank, checked). */
typedef struct hfft__mpi_tune {
    int groups;          /* HFFT_MPI_GROUPS: groups per pipeline; 0 unset (adaptive, up to 4) */
    int64_t max_message; /* HFFT_MPI_MESSAGE: the largest message in bytes (512 MiB) */
    int shared;          /* HFFT_MPI_SHARED: 0 sends between ranks of a node as messages too;
                            1 (default) copies through shared memory */
} hfft__mpi_tune;
int hfft__mpi_tune_read(hfft__mpi_tune *t);

/* The cut of units of unit_bytes each for a pipeline among `ranks`. */
hfft__mpi_cut hfft__mpi_cut_make(int64_t units, int64_t unit_bytes, int ranks,
                                 const hfft__mpi_tune *t);
static inline int hfft__mpi_cut_groups(const hfft__mpi_cut *c) { return c->k + (c->rem > 0); }
static inline int64_t hfft__mpi_cut_lo(const hfft__mpi_cut *c, int g) { return g * c->q; }
static inline int64_t hfft__mpi_cut_len(const hfft__mpi_cut *c, int g) {
    return g < c->k ? c->q : c->rem;
}

/* ---- local.c: copies within a rank's reach, on a few threads ---- */

typedef void (*hfft__mpi_range_fn)(void *ctx, int64_t lo, int64_t hi);
/* fn over [0, n) cut into `threads` ranges, one per thread (the caller runs one). */
void hfft__mpi_parallel(int threads, int64_t n, hfft__mpi_range_fn fn, void *ctx);

/* Columns [m0, m0 + c) of the n0 x (rows1 * rest) view, held dense as w (n0 x c), against
   t, the transposed layout rows1 x n0 x rest: to_t copies w into t, else t into w. */
void hfft__mpi_transpose(void *t, void *w, int64_t n0, int64_t rest, int64_t m0, int64_t c,
                         size_t esize, int to_t, int threads);

/* One piece of a global transpose: `rows` rows of nb runs; run b of row i holds len[b]
   elements at off + i * stride in the sender's array (src) and the receiver's (dst). */
typedef struct hfft__mpi_span {
    int64_t off, stride;
} hfft__mpi_span;
typedef struct hfft__mpi_runs {
    int nb;
    int64_t rows;
    int64_t *len;
    hfft__mpi_span *src, *dst;
} hfft__mpi_runs;

/* The runs of r copied from src to dst (arrays of complex elements of esize bytes). */
void hfft__mpi_copy(void *dst, const void *src, const hfft__mpi_runs *r, size_t esize, int threads);

/* ---- the node library in one precision (api.c) ---- */

typedef struct hfft__mpi_node {
    int prec; /* bytes of one real: 4 or 8 */
    void *(*plan_guru)(int rank, const hfft_iodim *dims, int hrank, const hfft_iodim *hdims,
                       void *in, void *out, int sign, unsigned flags, const hfft_options *opts);
    int (*execute_dft)(void *plan, void *in, void *out);
    void (*destroy)(void *plan);
    int (*info)(void *plan, hfft_info *info);
} hfft__mpi_node;

/* ---- plan.c ---- */

typedef struct hfft__mpi_plan hfft__mpi_plan;
hfft__mpi_plan *hfft__mpi_plan_create(const hfft__mpi_node *node, int rnk, const ptrdiff_t *n,
                                      ptrdiff_t howmany, ptrdiff_t iblock, ptrdiff_t oblock,
                                      void *in, void *out, MPI_Comm comm, int sign, unsigned flags,
                                      const hfft_options *opts);
int hfft__mpi_plan_execute(hfft__mpi_plan *p, void *in, void *out);
/* On the plan's own arrays. */
int hfft__mpi_plan_run(hfft__mpi_plan *p);
void hfft__mpi_plan_destroy(hfft__mpi_plan *p);
int hfft__mpi_plan_info(const hfft__mpi_plan *p, hfft_mpi_info *info);

#endif
