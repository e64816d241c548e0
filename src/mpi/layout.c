/*
 * layout.c: FFTW-MPI's block distribution (mpi/block.c) and local sizes
 * (local_size_guru in mpi/api.c), reproduced so that an allocation sized for
 * FFTW-MPI fits hfft_mpi and the other way round; the checks FFTW-MPI's
 * planner makes; the environment settings of the pipeline; and how one
 * rank's rows or columns are cut into pipeline groups.
 */
#include <limits.h>
#include <stdlib.h>

#include "src/mpi/internal.h"

/* Groups smaller than this per peer message turn the pipeline into latency. */
#define MIN_GROUP_MESSAGE (256 << 10)
#define DEFAULT_GROUPS 4
#define DEFAULT_MAX_MESSAGE ((int64_t)512 << 20)

int64_t hfft__mpi_nblocks(int64_t n, int64_t block) { return (n + block - 1) / block; }

int64_t hfft__mpi_block_n(int64_t n, int64_t block, int64_t r) {
    int64_t nb = hfft__mpi_nblocks(n, block);
    if (r >= nb)
        return 0;
    return r == nb - 1 ? n - r * block : block;
}

int64_t hfft__mpi_block_start(int64_t n, int64_t block, int64_t r) {
    return r >= hfft__mpi_nblocks(n, block) ? 0 : r * block;
}

int64_t hfft__mpi_block_size(int64_t n, int64_t block, int ranks) {
    return block ? block : (n + ranks - 1) / ranks;
}

static int64_t imax(int64_t a, int64_t b) { return a > b ? a : b; }

int hfft__mpi_check_sizes(int rnk, const ptrdiff_t *n, ptrdiff_t howmany, ptrdiff_t iblock,
                          int d_in, ptrdiff_t oblock, int d_out, int ranks) {
    if (rnk < 2)
        return hfft__mpi_fail(rnk == 1 ? HFFT_ERR_UNSUPPORTED : HFFT_ERR_INVALID_ARGUMENT,
                              "rank %d: hfft_mpi distributes transforms of rank 2 to %d (1D "
                              "distributed transforms are not supported)",
                              rnk, HFFT_MAX_RANK);
    if (rnk > HFFT_MAX_RANK)
        return hfft__mpi_fail(HFFT_ERR_INVALID_ARGUMENT, "rank %d: at most %d", rnk, HFFT_MAX_RANK);
    if (!n)
        return hfft__mpi_fail(HFFT_ERR_INVALID_ARGUMENT, "sizes: NULL");
    if (howmany < 1)
        return hfft__mpi_fail(HFFT_ERR_INVALID_ARGUMENT, "howmany %td: must be at least 1",
                              howmany);
    /* the array's bytes in double precision must fit 63 bits */
    int64_t total = howmany, limit = INT64_MAX / 16;
    for (int i = 0; i < rnk; i++) {
        if (n[i] < 1)
            return hfft__mpi_fail(HFFT_ERR_INVALID_ARGUMENT, "n[%d] = %td: must be at least 1", i,
                                  n[i]);
        if (total > limit / n[i])
            return hfft__mpi_fail(HFFT_ERR_INVALID_ARGUMENT,
                                  "the array's size overflows 64-bit byte counts");
        total *= n[i];
    }
    const ptrdiff_t blocks[2] = {iblock, oblock};
    const int dims[2] = {d_in, d_out};
    for (int s = 0; s < 2; s++) {
        if (blocks[s] < 0)
            return hfft__mpi_fail(HFFT_ERR_INVALID_ARGUMENT,
                                  "%s block %td: must be 0 (the "
                                  "default) or positive",
                                  s ? "output" : "input", blocks[s]);
        int64_t b = hfft__mpi_block_size(n[dims[s]], blocks[s], ranks);
        if (hfft__mpi_nblocks(n[dims[s]], b) > ranks)
            return hfft__mpi_fail(HFFT_ERR_INVALID_ARGUMENT,
                                  "%s block %td cuts n[%d] = %td into more blocks than the %d "
                                  "ranks",
                                  s ? "output" : "input", blocks[s], dims[s], n[dims[s]], ranks);
    }
    return 0;
}

ptrdiff_t hfft__mpi_local_size(int rnk, const ptrdiff_t *n, ptrdiff_t howmany, ptrdiff_t xblock,
                               ptrdiff_t yblock, MPI_Comm comm, ptrdiff_t *local_n0,
                               ptrdiff_t *local_0_start, ptrdiff_t *local_n1,
                               ptrdiff_t *local_1_start) {
    int init = 0, fin = 0, ranks = 1, me = 0;
    MPI_Initialized(&init);
    MPI_Finalized(&fin);
    if (!init || fin)
        return hfft__mpi_fail(HFFT_ERR_INVALID_ARGUMENT, "MPI is not initialised");
    if (comm == MPI_COMM_NULL)
        return hfft__mpi_fail(HFFT_ERR_INVALID_ARGUMENT, "communicator: MPI_COMM_NULL");
    if (!local_n0 || !local_0_start)
        return hfft__mpi_fail(HFFT_ERR_INVALID_ARGUMENT, "local_n0, local_0_start: NULL");
    MPI_Comm_size(comm, &ranks);
    MPI_Comm_rank(comm, &me);
    /* FFTW-MPI: the output is distributed along dimension 1 where yblock < n1 */
    int transposed = rnk >= 2 && n && yblock < n[1];
    int st = hfft__mpi_check_sizes(rnk, n, howmany, xblock, 0, transposed ? yblock : xblock,
                                   transposed ? 1 : 0, ranks);
    if (st)
        return st;
    int64_t after1 = 1, after2 = 1;
    for (int i = 1; i < rnk; i++)
        after1 *= n[i];
    for (int i = 2; i < rnk; i++)
        after2 *= n[i];
    int64_t b0 = hfft__mpi_block_size(n[0], xblock, ranks);
    int64_t b1 = transposed ? hfft__mpi_block_size(n[1], yblock, ranks) : n[1];
    int64_t nb_in = hfft__mpi_nblocks(n[0], b0);
    int64_t nb_out = transposed ? hfft__mpi_nblocks(n[1], b1) : nb_in;

    int64_t N = 1; /* never a zero allocation */
    if (nb_in > 1 && nb_out > 1) {
        /* the transposed intermediates of FFTW-MPI's rank >= 2 solvers */
        if (!transposed)
            N = imax(N, hfft__mpi_block_n(n[1], hfft__mpi_block_size(n[1], 0, ranks), me) * n[0] *
                            after2);
        int64_t na = howmany * after1;
        N = imax(N, (n[0] * hfft__mpi_block_n(na, hfft__mpi_block_size(na, 0, ranks), me) +
                     howmany - 1) /
                        howmany);
        na = howmany * n[0] * after2;
        N = imax(N, (n[1] * hfft__mpi_block_n(na, hfft__mpi_block_size(na, 0, ranks), me) +
                     howmany - 1) /
                        howmany);
    }
    int64_t l0 = hfft__mpi_block_n(n[0], b0, me);
    *local_n0 = l0;
    *local_0_start = hfft__mpi_block_start(n[0], b0, me);
    int64_t l1, s1, out;
    if (transposed) {
        l1 = hfft__mpi_block_n(n[1], b1, me);
        s1 = hfft__mpi_block_start(n[1], b1, me);
        out = n[0] * l1 * after2;
    } else {
        l1 = me < nb_out ? n[1] : 0;
        s1 = 0;
        out = l0 * after1;
    }
    if (local_n1)
        *local_n1 = l1;
    if (local_1_start)
        *local_1_start = s1;
    N = imax(N, imax(l0 * after1, out));
    hfft__mpi_clear_error();
    return N * howmany;
}

int hfft__mpi_tune_read(hfft__mpi_tune *t) {
    t->groups = 0;
    t->max_message = DEFAULT_MAX_MESSAGE;
    t->shared = 1;
    const char *g = getenv("HFFT_MPI_GROUPS");
    if (g && *g) {
        char *end = NULL;
        long v = strtol(g, &end, 10);
        if (*end || v < 1 || v > HFFT__MPI_MAX_GROUPS)
            return hfft__mpi_fail(HFFT_ERR_SETTING, "HFFT_MPI_GROUPS='%s': a count from 1 to %d", g,
                                  HFFT__MPI_MAX_GROUPS);
        t->groups = (int)v;
    }
    const char *m = getenv("HFFT_MPI_MESSAGE");
    if (m && *m) {
        int64_t v = 0;
        if (hfft_parse_bytes(m, &v) || v < 1024 || v > ((int64_t)1 << 30))
            return hfft__mpi_fail(HFFT_ERR_SETTING,
                                  "HFFT_MPI_MESSAGE='%s': a size from 1KiB to 1GiB", m);
        t->max_message = v;
    }
    const char *sh = getenv("HFFT_MPI_SHARED");
    if (sh && *sh) {
        if ((sh[0] != '0' && sh[0] != '1') || sh[1])
            return hfft__mpi_fail(HFFT_ERR_SETTING, "HFFT_MPI_SHARED='%s': 0 or 1", sh);
        t->shared = sh[0] == '1';
    }
    return 0;
}

hfft__mpi_cut hfft__mpi_cut_make(int64_t units, int64_t unit_bytes, int ranks,
                                 const hfft__mpi_tune *t) {
    hfft__mpi_cut c = {0, 0, 0};
    if (units <= 0)
        return c;
    int64_t k = t->groups ? t->groups : DEFAULT_GROUPS;
    if (k > units)
        k = units;
    while (!t->groups && k > 1 && units / k * unit_bytes / ranks < MIN_GROUP_MESSAGE)
        k--;
    c.k = (int)k;
    c.q = units / k;
    c.rem = units - k * c.q;
    return c;
}
