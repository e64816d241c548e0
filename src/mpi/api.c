/*
 * api.c: libhfft_mpi's public entry points, written once and compiled per
 * precision (HFFT_SINGLE selects hfftf_ and float), and the table through
 * which the precision-neutral plan reaches hfft's node plans of this
 * precision.  Failures return 0 / NULL / a negative status with the message
 * in hfft_mpi_last_error_message().
 */
#include <stdint.h>

#include "src/mpi/internal.h"

#include "src/core/precision.h"

#define X H /* the public names this file defines, over hfft's of the same precision */

/* ---- the node library of this precision ---- */

static void *node_guru(int rank, const hfft_iodim *dims, int hrank, const hfft_iodim *hdims,
                       void *in, void *out, int sign, unsigned flags, const hfft_options *opts) {
    return X(plan_guru_dft)(rank, dims, hrank, hdims, in, out, sign, flags, opts);
}
static int node_execute(void *plan, void *in, void *out) { return X(execute_dft)(plan, in, out); }
static void node_destroy(void *plan) { X(destroy_plan)(plan); }
static int node_info(void *plan, hfft_info *info) { return X(plan_info)(plan, info); }

static const hfft__mpi_node node = {PREC, node_guru, node_execute, node_destroy, node_info};

/* The public plan type is the precision-neutral plan under a name of this precision. */
static X(mpi_plan) wrap(hfft__mpi_plan *p) { return (X(mpi_plan))(void *)p; }
static hfft__mpi_plan *unwrap(X(mpi_plan) p) { return (hfft__mpi_plan *)(void *)p; }

/* ---- local sizes ---- */

ptrdiff_t X(mpi_local_size_many_transposed)(int rnk, const ptrdiff_t *n, ptrdiff_t howmany,
                                            ptrdiff_t block0, ptrdiff_t block1, MPI_Comm comm,
                                            ptrdiff_t *local_n0, ptrdiff_t *local_0_start,
                                            ptrdiff_t *local_n1, ptrdiff_t *local_1_start) {
    ptrdiff_t total = hfft__mpi_local_size(rnk, n, howmany, block0, block1, comm, local_n0,
                                           local_0_start, local_n1, local_1_start);
    return total > 0 ? total : 0;
}

ptrdiff_t X(mpi_local_size_many)(int rnk, const ptrdiff_t *n, ptrdiff_t howmany, ptrdiff_t block0,
                                 MPI_Comm comm, ptrdiff_t *local_n0, ptrdiff_t *local_0_start) {
    /* FFTW-MPI: dimension 1 whole, so the output is not transposed */
    ptrdiff_t total = hfft__mpi_local_size(rnk, n, howmany, block0, n && rnk > 1 ? n[1] : 0, comm,
                                           local_n0, local_0_start, NULL, NULL);
    return total > 0 ? total : 0;
}

ptrdiff_t X(mpi_local_size_transposed)(int rnk, const ptrdiff_t *n, MPI_Comm comm,
                                       ptrdiff_t *local_n0, ptrdiff_t *local_0_start,
                                       ptrdiff_t *local_n1, ptrdiff_t *local_1_start) {
    return X(mpi_local_size_many_transposed)(rnk, n, 1, HFFT_MPI_DEFAULT_BLOCK,
                                             HFFT_MPI_DEFAULT_BLOCK, comm, local_n0, local_0_start,
                                             local_n1, local_1_start);
}

ptrdiff_t X(mpi_local_size)(int rnk, const ptrdiff_t *n, MPI_Comm comm, ptrdiff_t *local_n0,
                            ptrdiff_t *local_0_start) {
    return X(mpi_local_size_many)(rnk, n, 1, HFFT_MPI_DEFAULT_BLOCK, comm, local_n0, local_0_start);
}

ptrdiff_t X(mpi_local_size_2d)(ptrdiff_t n0, ptrdiff_t n1, MPI_Comm comm, ptrdiff_t *local_n0,
                               ptrdiff_t *local_0_start) {
    const ptrdiff_t n[2] = {n0, n1};
    return X(mpi_local_size)(2, n, comm, local_n0, local_0_start);
}

ptrdiff_t X(mpi_local_size_2d_transposed)(ptrdiff_t n0, ptrdiff_t n1, MPI_Comm comm,
                                          ptrdiff_t *local_n0, ptrdiff_t *local_0_start,
                                          ptrdiff_t *local_n1, ptrdiff_t *local_1_start) {
    const ptrdiff_t n[2] = {n0, n1};
    return X(mpi_local_size_transposed)(2, n, comm, local_n0, local_0_start, local_n1,
                                        local_1_start);
}

ptrdiff_t X(mpi_local_size_3d)(ptrdiff_t n0, ptrdiff_t n1, ptrdiff_t n2, MPI_Comm comm,
                               ptrdiff_t *local_n0, ptrdiff_t *local_0_start) {
    const ptrdiff_t n[3] = {n0, n1, n2};
    return X(mpi_local_size)(3, n, comm, local_n0, local_0_start);
}

ptrdiff_t X(mpi_local_size_3d_transposed)(ptrdiff_t n0, ptrdiff_t n1, ptrdiff_t n2, MPI_Comm comm,
                                          ptrdiff_t *local_n0, ptrdiff_t *local_0_start,
                                          ptrdiff_t *local_n1, ptrdiff_t *local_1_start) {
    const ptrdiff_t n[3] = {n0, n1, n2};
    return X(mpi_local_size_transposed)(3, n, comm, local_n0, local_0_start, local_n1,
                                        local_1_start);
}

/* ---- plans ---- */

X(mpi_plan)
X(mpi_plan_many_dft_opts)(int rnk, const ptrdiff_t *n, ptrdiff_t howmany, ptrdiff_t iblock,
                          ptrdiff_t oblock, X(complex) *in, X(complex) *out, MPI_Comm comm,
                          int sign, unsigned flags, const hfft_options *opts) {
    return wrap(hfft__mpi_plan_create(&node, rnk, n, howmany, iblock, oblock, in, out, comm, sign,
                                      flags, opts));
}

X(mpi_plan) X(mpi_plan_many_dft)(int rnk, const ptrdiff_t *n, ptrdiff_t howmany, ptrdiff_t iblock,
                                 ptrdiff_t oblock, X(complex) *in, X(complex) *out, MPI_Comm comm,
                                 int sign, unsigned flags) {
    return X(mpi_plan_many_dft_opts)(rnk, n, howmany, iblock, oblock, in, out, comm, sign, flags,
                                     NULL);
}

X(mpi_plan) X(mpi_plan_dft)(int rnk, const ptrdiff_t *n, X(complex) *in, X(complex) *out,
                            MPI_Comm comm, int sign, unsigned flags) {
    return X(mpi_plan_many_dft)(rnk, n, 1, HFFT_MPI_DEFAULT_BLOCK, HFFT_MPI_DEFAULT_BLOCK, in, out,
                                comm, sign, flags);
}

X(mpi_plan) X(mpi_plan_dft_2d)(ptrdiff_t n0, ptrdiff_t n1, X(complex) *in, X(complex) *out,
                               MPI_Comm comm, int sign, unsigned flags) {
    const ptrdiff_t n[2] = {n0, n1};
    return X(mpi_plan_dft)(2, n, in, out, comm, sign, flags);
}

X(mpi_plan) X(mpi_plan_dft_3d)(ptrdiff_t n0, ptrdiff_t n1, ptrdiff_t n2, X(complex) *in,
                               X(complex) *out, MPI_Comm comm, int sign, unsigned flags) {
    const ptrdiff_t n[3] = {n0, n1, n2};
    return X(mpi_plan_dft)(3, n, in, out, comm, sign, flags);
}

/* ---- execution ---- */

int X(mpi_execute)(X(mpi_plan) p) {
    if (!p)
        return hfft__mpi_fail(HFFT_ERR_INVALID_ARGUMENT, "plan: NULL");
    return hfft__mpi_plan_run(unwrap(p));
}

int X(mpi_execute_dft)(X(mpi_plan) p, X(complex) *in, X(complex) *out) {
    if (!p)
        return hfft__mpi_fail(HFFT_ERR_INVALID_ARGUMENT, "plan: NULL");
    return hfft__mpi_plan_execute(unwrap(p), in, out);
}

void X(mpi_destroy_plan)(X(mpi_plan) p) { hfft__mpi_plan_destroy(unwrap(p)); }

int X(mpi_plan_info)(X(mpi_plan) p, hfft_mpi_info *info) {
    if (!p || !info)
        return hfft__mpi_fail(HFFT_ERR_INVALID_ARGUMENT, "plan or info: NULL");
    return hfft__mpi_plan_info(unwrap(p), info);
}

void X(mpi_init)(void) {}

void X(mpi_cleanup)(void) {}
