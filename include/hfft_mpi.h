/*
 * hfft_mpi.h: distributed transforms over MPI (libhfft_mpi), with FFTW-MPI's
 * data layout and names: rank r of the communicator holds rows
 * [local_0_start, local_0_start + local_n0) of dimension 0, the other
 * dimensions whole, row-major.  Each rank runs hfft's node engine (GPU, CPU
 * or both) on its slab; the global transposes are MPI messages.  A program
 * written for FFTW-MPI ports by renaming fftw_mpi_ to hfft_mpi_ (fftwf_mpi_ to
 * hfftf_mpi_) and FFTW_MPI_TRANSPOSED_* to HFFT_MPI_TRANSPOSED_*; plans run
 * with hfft_mpi_execute.  hfft_mpi_* is double precision, hfftf_mpi_* single.
 */
#ifndef HFFT_MPI_H
#define HFFT_MPI_H

#include <stddef.h>
#include <stdint.h>

#include <mpi.h>

#include "hfft.h"

#ifdef __cplusplus
extern "C" {
#endif

/* FFTW-MPI's flags, with FFTW-MPI's meaning (the same bits as hfft.h's 1D flags):
   TRANSPOSED_OUT leaves the output transposed, local_n1 x n0 x n2 x ... on each rank
   (dimension 1 distributed: rows [local_1_start, local_1_start + local_n1)), which saves
   the global transpose back; TRANSPOSED_IN takes its input in that order.  Both at once:
   input and output transposed. */
#define HFFT_MPI_TRANSPOSED_OUT HFFT_TRANSPOSED_OUT
#define HFFT_MPI_TRANSPOSED_IN HFFT_TRANSPOSED_IN
/* Block size argument: FFTW-MPI's default, ceil(n / ranks). */
#define HFFT_MPI_DEFAULT_BLOCK 0

/* A status beside hfft.h's: an MPI call failed (MPI's error string in the message). */
#define HFFT_ERR_MPI (-64)

/* What a distributed plan chose and holds, on this rank; filled by hfft_mpi_plan_info. */
typedef struct hfft_mpi_info {
    int ranks, rank;            /* the communicator's size and this rank */
    int transposed_in;          /* 1: input local_n1 x n0 x ... (HFFT_MPI_TRANSPOSED_IN) */
    int transposed_out;         /* 1: output local_n1 x n0 x ... (HFFT_MPI_TRANSPOSED_OUT) */
    int whole;                  /* 1: one rank, no transposed flag: one node plan of the whole
                                   array, no exchange */
    int64_t local_n0, local_0_start;   /* rows of dimension 0 this rank holds (in and out) */
    int64_t local_n1, local_1_start;   /* rows of dimension 1 in the transposed layout */
    int64_t columns, column_start;     /* of the n0 x (n1 n2 ... howmany) view, the columns
                                          this rank transforms along dimension 0 */
    int groups[2];              /* pipeline groups: [0] row groups (the local dimensions),
                                   [1] column groups (dimension 0); the exchange of one group
                                   runs while the next is transformed */
    int threads;                /* CPU threads of the node plans and of local copies */
    int shared_ranks;           /* ranks of this node (this one included) that exchange through
                                   shared memory; 0 where every exchange is MPI messages */
    int cuda_aware;             /* 1 where the MPI library reports CUDA-aware support
                                   (MPIX_Query_cuda_support); the exchange uses host memory
                                   either way (see README) */
    int64_t scratch_bytes;      /* the plan's own host scratch (pinned, hfft_malloc): the
                                   n0 x columns block between the two transposes */
    int64_t device_budget;      /* device bytes given to each node plan that uses a device */
    int64_t sent_bytes;         /* bytes this rank sent to other ranks in the last execute */
    double seconds;             /* the last execute on this rank */
    double compute_seconds;     /* of which node plans and local transposes ran */
    double mpi_seconds;         /* the transposes' own time: inside MPI calls and in the copies
                                   through shared memory (beside the compute, mostly) */
    double exchange_seconds;    /* time waiting for messages with no compute left to overlap:
                                   the all-to-all's exposed share */
    hfft_info rows;             /* the node plan of the local dimensions (rows); zero if none */
    hfft_info cols;             /* the node plan of dimension 0 (columns); zero if none */
} hfft_mpi_info;

#define HFFT_MPI_DEFINE_API(X, R)                                                                  \
    typedef struct X(mpi_plan_s) *X(mpi_plan);                                                     \
                                                                                                   \
    /* ---- Local sizes, exactly FFTW-MPI's: the rows of dimension 0 this rank holds, and the      \
       return value, the complex elements each of its arrays must hold (at least the slab; more    \
       where FFTW-MPI's transposed intermediate would need more, so that FFTW-MPI's allocations    \
       carry over).  0 and hfft_mpi_last_error() on bad arguments.  _transposed also gives the     \
       rows of dimension 1 of the transposed layout.  Block sizes: HFFT_MPI_DEFAULT_BLOCK or a     \
       size whose number of blocks does not exceed the ranks.  Collective only in the sense that   \
       every rank gets its own part; no message is sent.  Thread safe. ---- */                     \
    HFFT_API ptrdiff_t X(mpi_local_size_2d)(ptrdiff_t n0, ptrdiff_t n1, MPI_Comm comm,             \
                                            ptrdiff_t *local_n0, ptrdiff_t *local_0_start);        \
    HFFT_API ptrdiff_t X(mpi_local_size_2d_transposed)(                                            \
        ptrdiff_t n0, ptrdiff_t n1, MPI_Comm comm, ptrdiff_t *local_n0, ptrdiff_t *local_0_start,  \
        ptrdiff_t *local_n1, ptrdiff_t *local_1_start);                                            \
    HFFT_API ptrdiff_t X(mpi_local_size_3d)(ptrdiff_t n0, ptrdiff_t n1, ptrdiff_t n2,              \
                                            MPI_Comm comm, ptrdiff_t *local_n0,                    \
                                            ptrdiff_t *local_0_start);                             \
    HFFT_API ptrdiff_t X(mpi_local_size_3d_transposed)(                                            \
        ptrdiff_t n0, ptrdiff_t n1, ptrdiff_t n2, MPI_Comm comm, ptrdiff_t *local_n0,              \
        ptrdiff_t *local_0_start, ptrdiff_t *local_n1, ptrdiff_t *local_1_start);                  \
    HFFT_API ptrdiff_t X(mpi_local_size)(int rnk, const ptrdiff_t *n, MPI_Comm comm,               \
                                         ptrdiff_t *local_n0, ptrdiff_t *local_0_start);           \
    HFFT_API ptrdiff_t X(mpi_local_size_transposed)(int rnk, const ptrdiff_t *n, MPI_Comm comm,    \
                                                    ptrdiff_t *local_n0, ptrdiff_t *local_0_start, \
                                                    ptrdiff_t *local_n1,                           \
                                                    ptrdiff_t *local_1_start);                     \
    /* howmany transforms interleaved (the fastest dimension of the array), as FFTW-MPI's. */      \
    HFFT_API ptrdiff_t X(mpi_local_size_many)(int rnk, const ptrdiff_t *n, ptrdiff_t howmany,      \
                                              ptrdiff_t block0, MPI_Comm comm,                     \
                                              ptrdiff_t *local_n0, ptrdiff_t *local_0_start);      \
    HFFT_API ptrdiff_t X(mpi_local_size_many_transposed)(                                          \
        int rnk, const ptrdiff_t *n, ptrdiff_t howmany, ptrdiff_t block0, ptrdiff_t block1,        \
        MPI_Comm comm, ptrdiff_t *local_n0, ptrdiff_t *local_0_start, ptrdiff_t *local_n1,         \
        ptrdiff_t *local_1_start);                                                                 \
                                                                                                   \
    /* ---- Plans: collective over comm (every rank calls with the same sizes, sign and flags;     \
       its own arrays).  Rank 2 and up; in == out is in place; out of place keeps the input.       \
       Flags: hfft.h's (planning, placement, schedule, input) for the node plans of each rank,     \
       and HFFT_MPI_TRANSPOSED_OUT/IN.  NULL on every rank where any rank fails, each with the     \
       same status and message (hfft_mpi_last_error).  Each of in and out holds the local size's   \
       elements.  Needs MPI initialised; hfft_mpi calls MPI from the calling thread only           \
       (MPI_THREAD_FUNNELED suffices).  The plan keeps a duplicate of comm. ---- */                \
    HFFT_API X(mpi_plan) X(mpi_plan_dft_2d)(ptrdiff_t n0, ptrdiff_t n1, X(complex) *in,            \
                                            X(complex) *out, MPI_Comm comm, int sign,              \
                                            unsigned flags);                                       \
    HFFT_API X(mpi_plan) X(mpi_plan_dft_3d)(ptrdiff_t n0, ptrdiff_t n1, ptrdiff_t n2,              \
                                            X(complex) *in, X(complex) *out, MPI_Comm comm,        \
                                            int sign, unsigned flags);                             \
    HFFT_API X(mpi_plan) X(mpi_plan_dft)(int rnk, const ptrdiff_t *n, X(complex) *in,              \
                                         X(complex) *out, MPI_Comm comm, int sign,                 \
                                         unsigned flags);                                          \
    /* howmany transforms interleaved; iblock and oblock (FFTW-MPI's block and tblock) are the     \
       block sizes of the input's distributed dimension (0, or 1 with TRANSPOSED_IN) and of the    \
       output's (0, or 1 with TRANSPOSED_OUT). */                                                  \
    HFFT_API X(mpi_plan) X(mpi_plan_many_dft)(int rnk, const ptrdiff_t *n, ptrdiff_t howmany,      \
                                              ptrdiff_t iblock, ptrdiff_t oblock, X(complex) *in,  \
                                              X(complex) *out, MPI_Comm comm, int sign,            \
                                              unsigned flags);                                     \
    /* As plan_many_dft, with settings for the node plans (NULL: environment and defaults).        \
       device_memory is this rank's device budget, shared among its node plans; threads left       \
       unset (and HFFT_THREADS unset) default to the cores of this rank's binding, or the          \
       node's cores shared among the ranks on the node where ranks are not bound. */               \
    HFFT_API X(mpi_plan) X(mpi_plan_many_dft_opts)(int rnk, const ptrdiff_t *n, ptrdiff_t howmany, \
                                                   ptrdiff_t iblock, ptrdiff_t oblock,             \
                                                   X(complex) *in, X(complex) *out, MPI_Comm comm, \
                                                   int sign, unsigned flags,                       \
                                                   const hfft_options *opts);                      \
                                                                                                   \
    /* ---- Execution: collective; 0, or the same negative status on every rank (a failure on one  \
       rank, a node plan's or an MPI call's, reaches all of them; none waits forever for a rank    \
       that failed).  After a failure the output is undefined.  One execute per plan at a time;    \
       ranks execute their plans of one communicator in the same order. ---- */                   \
    HFFT_API int X(mpi_execute)(X(mpi_plan) p);                                                    \
    /* Other arrays of the same layout, in == out exactly where the plan's were, alignment as      \
       hfft's new-array executes require. */                                                       \
    HFFT_API int X(mpi_execute_dft)(X(mpi_plan) p, X(complex) *in, X(complex) *out);               \
    /* Collective, as FFTW-MPI's (it frees the plan's communicators and shared memory); accepts   \
       NULL (plans are NULL on every rank or on none).  Not while the plan executes. */            \
    HFFT_API void X(mpi_destroy_plan)(X(mpi_plan) p);                                              \
    HFFT_API int X(mpi_plan_info)(X(mpi_plan) p, hfft_mpi_info *info);                             \
    /* FFTW-MPI's set-up calls, for code that ports by renaming: nothing to do. */                 \
    HFFT_API void X(mpi_init)(void);                                                               \
    HFFT_API void X(mpi_cleanup)(void);

#define HFFT_MPI_NAME_D_(name) hfft_##name
#define HFFT_MPI_NAME_F_(name) hfftf_##name
HFFT_MPI_DEFINE_API(HFFT_MPI_NAME_D_, double)
HFFT_MPI_DEFINE_API(HFFT_MPI_NAME_F_, float)
#undef HFFT_MPI_NAME_D_
#undef HFFT_MPI_NAME_F_

/* The status of this thread's last failed hfft_mpi call and its message, which names the rank
   that failed first ("" when none).  Thread local. */
HFFT_API int hfft_mpi_last_error(void);
HFFT_API const char *hfft_mpi_last_error_message(void);
/* Text for a status, HFFT_ERR_MPI included.  Thread safe. */
HFFT_API const char *hfft_mpi_strerror(int status);

#ifdef __cplusplus
}
#endif
#endif /* HFFT_MPI_H */
