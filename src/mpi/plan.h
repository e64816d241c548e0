/*
 * plan.h: the distributed plan, private to libhfft_mpi.  A plan is the
 * global layout (which rows and columns every rank holds, and how each is cut
 * into pipeline groups), this rank's node plans, its scratch block, and the
 * two global transposes as lists of transfers with their MPI datatypes.
 */
#ifndef HFFT_MPI_PLAN_H
#define HFFT_MPI_PLAN_H

#include "src/mpi/internal.h"

/* How the plan runs: one node plan of the whole array (one rank); rows first (the local
   dimensions, then dimension 0 after the first transpose); or columns first
   (TRANSPOSED_IN: dimension 0 of the transposed input, then the rows). */
enum { HFFT__MPI_WHOLE, HFFT__MPI_ROWS_FIRST, HFFT__MPI_COLS_FIRST };

/* One transfer of a global transpose, between this rank and peer. */
typedef struct hfft__mpi_xfer {
    int peer;
    int group;  /* the sender's pipeline group whose end lets it go */
    int shared; /* through node shared memory, announced by an empty message */
    int m0, nm; /* its messages (data transfers only) in the side's message list */
    hfft__mpi_runs runs;
} hfft__mpi_xfer;

/* A message: some rows of a transfer, as a datatype relative to the array's base. */
typedef struct hfft__mpi_msg {
    MPI_Datatype type;
    int64_t bytes;
} hfft__mpi_msg;

/* One side of a transpose on this rank: what it sends, or what it receives. */
typedef struct hfft__mpi_side {
    hfft__mpi_xfer *x;
    int nx;
    hfft__mpi_msg *m;
    int nm;
} hfft__mpi_side;

typedef struct hfft__mpi_phase {
    hfft__mpi_side out, in;
    int tag;  /* data messages; tag + 1 the shared-memory announcements */
    int pull; /* 1: a receiver copies shared transfers itself (the sender's memory is
                 shared, its own is not); 0: the sender pushes them */
} hfft__mpi_phase;

struct hfft__mpi_plan {
    const hfft__mpi_node *node;
    MPI_Comm comm, node_comm;
    MPI_Win win; /* the scratch blocks of a node's ranks, shared; MPI_WIN_NULL if none */
    MPI_Datatype cplx;
    int ranks, me, mode, t_in, t_out, sign;
    unsigned flags;
    int rnk;
    int64_t n[HFFT_MAX_RANK], howmany;
    int64_t rest, rowlen; /* elements after dimension 1, and after dimension 0 */
    size_t esize;
    void *in, *out;
    int inplace;
    /* per rank: rows of dimension 0 in the input and output, columns of the n0 x rowlen
       view it transforms along dimension 0, and their pipeline cuts */
    int64_t *row0_in, *rows_in, *row0_out, *rows_out, *col0, *cols;
    hfft__mpi_cut *rcut, *ccut;
    void *w;      /* the scratch block, n0 x cols[me], as column groups of n0 x len */
    void **wpeer; /* every rank's block where shared on this node, else NULL */
    int *local;   /* 1 for the ranks of this node where the blocks are shared */
    void *rows_plan, *rows_rem, *cols_plan, *cols_rem, *whole;
    hfft__mpi_phase a, c; /* rows to columns, columns to rows */
    int nreq;             /* requests a phase may have in flight */
    MPI_Request *req;
    int *act;
    hfft__mpi_tune tune;
    hfft_mpi_info info;
};

/* ---- plan.c ---- */

/* Bytes of elems complex elements in the plan's precision. */
static inline int64_t hfft__mpi_bytes_of(const hfft__mpi_plan *p, int64_t elems) {
    return elems * (int64_t)p->esize;
}
/* The arrays an execute is given: large enough, aligned, in place as planned. */
int hfft__mpi_check_arrays(const hfft__mpi_plan *p, const void *in, const void *out, int inplace);

/* ---- node.c: the rank's threads, device budget, node plans and scratch ---- */

/* The node plans of the rank's rows and columns (opts: the caller's options). */
int hfft__mpi_node_plans(hfft__mpi_plan *p, const hfft_options *opts);
/* The scratch block; st: the status so far, agreed on with the other ranks. */
int hfft__mpi_make_scratch(hfft__mpi_plan *p, int st);

/* ---- transfers.c: each peer's blocks of the two transposes ---- */

/* ph's transfers for rows to columns (cut: the sender's row groups, want: what each
   rank owns after) and for columns to rows. */
int hfft__mpi_phase_rows_to_cols(hfft__mpi_plan *p, hfft__mpi_phase *ph, const hfft__mpi_cut *cut,
                                 const int64_t *want);
int hfft__mpi_phase_cols_to_rows(hfft__mpi_plan *p, hfft__mpi_phase *ph, const hfft__mpi_cut *cut,
                                 const int64_t *want);

/* ---- exchange.c: the transposes' messages, and an execute's pipeline driver ---- */

/* Datatypes for every message of both sides of ph; sizes the request arrays. */
int hfft__mpi_phase_build(hfft__mpi_plan *p, hfft__mpi_phase *ph);
void hfft__mpi_phase_free(hfft__mpi_phase *ph);

typedef struct hfft__mpi_run hfft__mpi_run;
/* Work a pipeline step hands to the worker thread. */
typedef int (*hfft__mpi_work_fn)(hfft__mpi_run *x, int group);

struct hfft__mpi_run {
    hfft__mpi_plan *p;
    char *in, *out; /* this execute's arrays */
    void *dst;      /* where the phase in flight receives (and a self transfer lands) */
    int nreq, pending, status;
    double compute, mpi, exchange;
    int64_t sent;
};

/* Posts the receives of ph: data into dst (this rank's array of the receiving side). */
void hfft__mpi_post_recvs(hfft__mpi_run *x, hfft__mpi_phase *ph, void *dst);
/* Posts group g's sends of ph from src, and makes its shared transfers (pushes into the
   peers' blocks, or announcements that the peers may pull) and its transfer to this rank
   itself (a copy into the receive side's array). */
void hfft__mpi_post_sends(hfft__mpi_run *x, hfft__mpi_phase *ph, int g, void *src);
/* Runs fn(x, group) (where given; on a worker thread where requests are in flight) while
   testing the requests; returns when it is done and, with all, every request completed. */
void hfft__mpi_drive(hfft__mpi_run *x, hfft__mpi_phase *ph, hfft__mpi_work_fn fn, int group,
                     int all);
/* A transpose's pipeline, the receives posted: fn(x, g) for each group g on a worker thread,
   group g's sends and copies (from src) made while group g + 1 is transformed; returns when
   every request has completed. */
void hfft__mpi_pipeline(hfft__mpi_run *x, hfft__mpi_phase *ph, hfft__mpi_work_fn fn, int groups,
                        void *src);

#endif
