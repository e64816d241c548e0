/*
 * plan.c: the distributed plan.  Slabs, FFTW-MPI's layout: a rank holds rows
 * of dimension 0.  Rows first: its node plan transforms the local dimensions
 * of its rows, group by group; the first transpose sends each group to the
 * ranks that own its columns (the n0 x (n1 n2 ... howmany) view cut into
 * column blocks), which transform dimension 0 group by group while the
 * second transpose brings each group back to the ranks that own its rows
 * (TRANSPOSED_OUT: a local transpose into the output, then dimension 0 there).
 * TRANSPOSED_IN starts from the columns.  Every step is collective in the same order on every rank, and a
 * failure anywhere is agreed on before a plan or an execute returns.
 */
#define _GNU_SOURCE
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "src/mpi/plan.h"

#if defined(__has_include)
#if __has_include(<mpi-ext.h>)
#include <mpi-ext.h>
#endif
#endif

#define TAG_ROWS_TO_COLS 0x4840
#define TAG_COLS_TO_ROWS 0x4850


/* ---- agreeing on the arguments ---- */

enum {
    ARG_RANK,
    ARG_N,
    ARG_HOWMANY = ARG_N + HFFT_MAX_RANK,
    ARG_IBLOCK,
    ARG_OBLOCK,
    ARG_SIGN,
    ARG_FLAGS,
    ARG_PREC,
    ARG_GROUPS,
    ARG_MESSAGE,
    ARG_SHARED,
    NARGS
};

static const char *arg_name(int i, char *buf, size_t size) {
    static const char *names[NARGS - ARG_HOWMANY] = {
        "howmany",   "iblock",          "oblock",           "sign",           "flags",
        "precision", "HFFT_MPI_GROUPS", "HFFT_MPI_MESSAGE", "HFFT_MPI_SHARED"};
    if (i == ARG_RANK)
        return "rank";
    if (i < ARG_HOWMANY) {
        snprintf(buf, size, "n[%d]", i - ARG_N);
        return buf;
    }
    return names[i - ARG_HOWMANY];
}

/*
 * One reduction tells every rank whether some rank failed its own checks, and whether the
 * arguments every rank must share are the same everywhere; then the first failing rank's
 * message, or the first mismatch, becomes every rank's error.
 */
static int agree_args(MPI_Comm comm, int ranks, int me, int st, const int64_t *args) {
    int64_t v[2 * NARGS + 1], r[2 * NARGS + 1];
    v[0] = st ? me : ranks;
    for (int i = 0; i < NARGS; i++) {
        v[1 + i] = args[i];
        v[1 + NARGS + i] = -args[i];
    }
    int rc = MPI_Allreduce(v, r, 2 * NARGS + 1, MPI_INT64_T, MPI_MIN, comm);
    if (rc != MPI_SUCCESS)
        return hfft__mpi_fail_mpi(rc, "MPI_Allreduce (checking the arguments)");
    if (r[0] < ranks)
        return hfft__mpi_agree(comm, st);
    for (int i = 0; i < NARGS; i++) {
        if (r[1 + i] != -r[1 + NARGS + i]) {
            char buf[16];
            return hfft__mpi_fail(HFFT_ERR_INVALID_ARGUMENT,
                                  "%s differs between ranks (%lld on some, %lld on others): "
                                  "every rank must plan the same transform",
                                  arg_name(i, buf, sizeof buf), (long long)r[1 + i],
                                  (long long)-r[1 + NARGS + i]);
        }
    }
    return 0;
}

/* ---- layout ---- */

static int layout(hfft__mpi_plan *p, int64_t iblock, int64_t oblock) {
    int R = p->ranks;
    int64_t *a = calloc((size_t)R * 6, sizeof *a);
    p->rcut = calloc((size_t)R, sizeof *p->rcut);
    p->ccut = calloc((size_t)R, sizeof *p->ccut);
    p->wpeer = calloc((size_t)R, sizeof *p->wpeer);
    p->local = calloc((size_t)R, sizeof *p->local);
    if (!a || !p->rcut || !p->ccut || !p->wpeer || !p->local) {
        free(a);
        return hfft__mpi_fail(HFFT_ERR_HOST_MEMORY, "plan layout: out of memory");
    }
    p->row0_in = a;
    p->rows_in = a + R;
    p->row0_out = a + 2 * R;
    p->rows_out = a + 3 * R;
    p->col0 = a + 4 * R;
    p->cols = a + 5 * R;
    int64_t n0 = p->n[0], n1 = p->n[1];
    int64_t bi = hfft__mpi_block_size(p->t_in ? n1 : n0, iblock, R);
    int64_t bo = hfft__mpi_block_size(p->t_out ? n1 : n0, oblock, R);
    int64_t bc = hfft__mpi_block_size(p->rowlen, 0, R);
    for (int r = 0; r < R; r++) {
        if (!p->t_in) {
            p->rows_in[r] = hfft__mpi_block_n(n0, bi, r);
            p->row0_in[r] = hfft__mpi_block_start(n0, bi, r);
        }
        if (!p->t_out) {
            p->rows_out[r] = hfft__mpi_block_n(n0, bo, r);
            p->row0_out[r] = hfft__mpi_block_start(n0, bo, r);
        }
        if (p->t_in || p->t_out) {
            /* the columns are whole rows of dimension 1 of the transposed layout */
            int64_t b1 = p->t_in ? bi : bo;
            p->cols[r] = hfft__mpi_block_n(n1, b1, r) * p->rest;
            p->col0[r] = hfft__mpi_block_start(n1, b1, r) * p->rest;
        } else {
            p->cols[r] = hfft__mpi_block_n(p->rowlen, bc, r);
            p->col0[r] = hfft__mpi_block_start(p->rowlen, bc, r);
        }
        if (p->mode == HFFT__MPI_ROWS_FIRST) {
            p->rcut[r] =
                hfft__mpi_cut_make(p->rows_in[r], hfft__mpi_bytes_of(p, p->rowlen), R, &p->tune);
        } else { /* the rows at the end, in one group */
            p->rcut[r].q = p->rows_out[r];
            p->rcut[r].k = p->rows_out[r] > 0;
        }
        if (p->t_out) { /* nothing to overlap after dimension 0: one group */
            p->ccut[r].q = p->cols[r];
            p->ccut[r].k = p->cols[r] > 0;
        } else {
            p->ccut[r] = hfft__mpi_cut_make(p->cols[r], hfft__mpi_bytes_of(p, n0), R, &p->tune);
        }
    }
    return 0;
}

static void array_needs(const hfft__mpi_plan *p, int64_t *in, int64_t *out) {
    int64_t slab_in = p->rows_in[p->me] * p->rowlen, slab_out = p->rows_out[p->me] * p->rowlen;
    int64_t block = p->n[0] * p->cols[p->me];
    *in = p->t_in ? block : slab_in;
    *out = p->t_in ? slab_out : p->t_out ? block : slab_out;
    if (!p->t_in && slab_in > *out)
        *out = slab_in;
}

int hfft__mpi_check_arrays(const hfft__mpi_plan *p, const void *in, const void *out, int inplace) {
    int64_t ni, no;
    array_needs(p, &ni, &no);
    if ((ni > 0 && !in) || (no > 0 && !out))
        return hfft__mpi_fail(
            HFFT_ERR_INVALID_ARGUMENT, "%s array: NULL where this rank holds %lld elements",
            ni > 0 && !in ? "input" : "output", (long long)(ni > 0 && !in ? ni : no));
    if (inplace >= 0 && (in == out) != inplace)
        return hfft__mpi_fail(HFFT_ERR_INVALID_ARGUMENT,
                              "in == out must hold exactly where it held for the plan's arrays");
    const char *a = in, *b = out;
    if (a != b && a && b && a < b + hfft__mpi_bytes_of(p, no) && b < a + hfft__mpi_bytes_of(p, ni))
        return hfft__mpi_fail(HFFT_ERR_INVALID_ARGUMENT,
                              "the input and output arrays overlap (in place is in == out)");
    return 0;
}

static void fill_info(hfft__mpi_plan *p) {
    hfft_mpi_info *f = &p->info;
    int me = p->me;
    f->ranks = p->ranks;
    f->rank = me;
    f->transposed_in = !!(p->flags & HFFT_TRANSPOSED_IN);
    f->transposed_out = !!(p->flags & HFFT_TRANSPOSED_OUT);
    f->whole = p->mode == HFFT__MPI_WHOLE;
    int both = f->transposed_in && f->transposed_out;
    f->local_n0 = both ? 0 : p->t_in ? p->rows_out[me] : p->rows_in[me];
    f->local_0_start = both ? 0 : p->t_in ? p->row0_out[me] : p->row0_in[me];
    if (both) {
        f->local_n1 = p->rows_in[me];
        f->local_1_start = p->row0_in[me];
    } else if (p->t_in || p->t_out) {
        f->local_n1 = p->cols[me] / p->rest;
        f->local_1_start = p->col0[me] / p->rest;
    }
    if (p->mode != HFFT__MPI_WHOLE) {
        f->columns = p->cols[me];
        f->column_start = p->col0[me];
        f->groups[0] = hfft__mpi_cut_groups(&p->rcut[me]);
        f->groups[1] = hfft__mpi_cut_groups(&p->ccut[me]);
        f->scratch_bytes = hfft__mpi_bytes_of(p, p->n[0] * p->cols[me]);
    }
#if defined(OMPI_HAVE_MPI_EXT_CUDA) && OMPI_HAVE_MPI_EXT_CUDA
    f->cuda_aware = MPIX_Query_cuda_support();
#endif
}

/* ---- making a plan ---- */

/* A plan's arguments as the caller gave them. */
typedef struct plan_given {
    const hfft__mpi_node *node;
    int rnk;
    const ptrdiff_t *n;
    ptrdiff_t howmany, iblock, oblock;
    void *in, *out;
    int sign;
    unsigned flags;
} plan_given;

/* MPI running and a communicator: without them not even the agreement can run. */
static int usable_comm(MPI_Comm comm) {
    int init = 0, fin = 0;
    MPI_Initialized(&init);
    MPI_Finalized(&fin);
    if (!init || fin)
        return hfft__mpi_fail(HFFT_ERR_INVALID_ARGUMENT, "MPI is not initialised");
    if (comm == MPI_COMM_NULL)
        return hfft__mpi_fail(HFFT_ERR_INVALID_ARGUMENT, "communicator: MPI_COMM_NULL");
    return 0;
}

/* This rank's own checks of the arguments (p: the plan, NULL where it could not be
   allocated), then the HFFT_MPI_* settings into p. */
static int own_checks(const plan_given *given, hfft__mpi_plan *p, int ranks) {
    int t_in = !!(given->flags & HFFT_TRANSPOSED_IN),
        t_out = !!(given->flags & HFFT_TRANSPOSED_OUT);
    int st = p ? 0 : hfft__mpi_fail(HFFT_ERR_HOST_MEMORY, "plan: out of memory");
    if (!st)
        st = hfft__mpi_check_sizes(given->rnk, given->n, given->howmany, given->iblock, t_in,
                                   given->oblock, t_out, ranks);
    if (!st && given->sign != HFFT_FORWARD && given->sign != HFFT_BACKWARD)
        st = hfft__mpi_fail(HFFT_ERR_INVALID_ARGUMENT, "sign %d: HFFT_FORWARD or HFFT_BACKWARD",
                            given->sign);
    if (!st)
        st = hfft__mpi_tune_read(&p->tune);
    return st;
}

/* The arguments every rank must give alike, in agree_args' order (p may be NULL). */
static void shared_args(const plan_given *given, const hfft__mpi_plan *p, int64_t args[NARGS]) {
    for (int i = 0; i < NARGS; i++)
        args[i] = 0;
    args[ARG_RANK] = given->rnk;
    for (int i = 0; given->n && i < given->rnk && i < HFFT_MAX_RANK; i++)
        args[ARG_N + i] = given->n[i];
    args[ARG_HOWMANY] = given->howmany;
    args[ARG_IBLOCK] = given->iblock;
    args[ARG_OBLOCK] = given->oblock;
    args[ARG_SIGN] = given->sign;
    args[ARG_FLAGS] = given->flags;
    args[ARG_PREC] = given->node->prec;
    if (p) {
        args[ARG_GROUPS] = p->tune.groups;
        args[ARG_MESSAGE] = p->tune.max_message;
        args[ARG_SHARED] = p->tune.shared;
    }
}

/* The transform the plan computes and how it runs, from the agreed arguments. */
static void describe(hfft__mpi_plan *p, const plan_given *given, int ranks, int me) {
    p->node = given->node;
    p->ranks = ranks;
    p->me = me;
    p->rnk = given->rnk;
    for (int i = 0; i < given->rnk; i++)
        p->n[i] = given->n[i];
    p->t_in = !!(given->flags & HFFT_TRANSPOSED_IN);
    p->t_out = !!(given->flags & HFFT_TRANSPOSED_OUT);
    if (p->t_in && p->t_out) { /* both transposed: the transform of the n1 x n0 x ... array */
        p->n[0] = given->n[1];
        p->n[1] = given->n[0];
        p->t_in = p->t_out = 0;
    }
    p->howmany = given->howmany;
    p->sign = given->sign;
    p->flags = given->flags;
    p->esize = 2 * (size_t)given->node->prec;
    p->in = given->in;
    p->out = given->out;
    p->inplace = given->in == given->out;
    p->rest = given->howmany;
    for (int i = 2; i < given->rnk; i++)
        p->rest *= p->n[i];
    p->rowlen = p->n[1] * p->rest;
    p->mode = ranks == 1 && !p->t_in && !p->t_out ? HFFT__MPI_WHOLE
              : p->t_in                           ? HFFT__MPI_COLS_FIRST
                                                  : HFFT__MPI_ROWS_FIRST;
}

/* The plan's own communicators (all of comm, and this node's ranks) and its complex
   datatype.  The handles start null, so that destroy frees only what was made. */
static int open_comms(hfft__mpi_plan *p, MPI_Comm comm) {
    p->win = MPI_WIN_NULL;
    p->comm = p->node_comm = MPI_COMM_NULL;
    p->cplx = MPI_DATATYPE_NULL;
    int rc = MPI_Comm_dup(comm, &p->comm);
    if (rc == MPI_SUCCESS)
        rc = MPI_Comm_set_errhandler(p->comm, MPI_ERRORS_RETURN);
    if (rc == MPI_SUCCESS)
        rc =
            MPI_Comm_split_type(p->comm, MPI_COMM_TYPE_SHARED, p->me, MPI_INFO_NULL, &p->node_comm);
    if (rc == MPI_SUCCESS)
        rc = MPI_Type_contiguous(2, p->node->prec == 4 ? MPI_FLOAT : MPI_DOUBLE, &p->cplx);
    if (rc == MPI_SUCCESS)
        rc = MPI_Type_commit(&p->cplx);
    return rc == MPI_SUCCESS ? 0 : hfft__mpi_fail_mpi(rc, "setting up the plan's communicators");
}

/* Layout, scratch, both transposes, the requests they keep in flight, the node plans:
   collective steps on every rank in the same order, so a local failure is carried in the
   status to the caller's agreement rather than returned early. */
static int build(hfft__mpi_plan *p, const plan_given *given, const hfft_options *opts) {
    int st = layout(p, given->iblock, given->oblock);
    if (!st)
        st = hfft__mpi_check_arrays(p, given->in, given->out, -1);
    st = hfft__mpi_make_scratch(p, st);
    p->a.tag = TAG_ROWS_TO_COLS;
    p->c.tag = TAG_COLS_TO_ROWS;
    p->c.pull = 1; /* the rows' owners copy from the columns' shared blocks */
    if (!st && p->mode == HFFT__MPI_ROWS_FIRST)
        st = hfft__mpi_phase_rows_to_cols(p, &p->a, p->rcut, p->cols);
    if (!st && (p->mode == HFFT__MPI_COLS_FIRST || (p->mode == HFFT__MPI_ROWS_FIRST && !p->t_out)))
        st = hfft__mpi_phase_cols_to_rows(p, &p->c, p->ccut, p->rows_out);
    if (!st && p->nreq > 0) {
        p->req = malloc(sizeof *p->req * (size_t)p->nreq);
        p->act = malloc(sizeof *p->act * 2 * (size_t)p->nreq);
        if (!p->req || !p->act)
            st = hfft__mpi_fail(HFFT_ERR_HOST_MEMORY, "requests: out of memory");
    }
    if (!st)
        st = hfft__mpi_node_plans(p, opts);
    if (!st)
        fill_info(p);
    return st;
}

hfft__mpi_plan *hfft__mpi_plan_create(const hfft__mpi_node *node, int rnk, const ptrdiff_t *n,
                                      ptrdiff_t howmany, ptrdiff_t iblock, ptrdiff_t oblock,
                                      void *in, void *out, MPI_Comm comm, int sign, unsigned flags,
                                      const hfft_options *opts) {
    if (usable_comm(comm))
        return NULL;
    const plan_given given = {node, rnk, n, howmany, iblock, oblock, in, out, sign, flags};
    int ranks = 1, me = 0;
    MPI_Comm_size(comm, &ranks);
    MPI_Comm_rank(comm, &me);

    /* 1. each rank's own checks, and the arguments all must share: one agreement */
    hfft__mpi_plan *p = calloc(1, sizeof *p);
    int st = own_checks(&given, p, ranks);
    int64_t args[NARGS];
    shared_args(&given, p, args);
    if (agree_args(comm, ranks, me, st, args)) {
        free(p);
        return NULL;
    }

    /* 2. the plan; a communicator that fails here fails every rank, so only the steps
       after it need the last agreement */
    describe(p, &given, ranks, me);
    if (open_comms(p, comm) || hfft__mpi_agree(p->comm, build(p, &given, opts))) {
        hfft__mpi_plan_destroy(p);
        return NULL;
    }
    return p;
}

void hfft__mpi_plan_destroy(hfft__mpi_plan *p) {
    if (!p)
        return;
    void *plans[5] = {p->rows_plan, p->rows_rem, p->cols_plan, p->cols_rem, p->whole};
    for (int i = 0; i < 5; i++)
        if (plans[i])
            p->node->destroy(plans[i]);
    hfft__mpi_phase_free(&p->a);
    hfft__mpi_phase_free(&p->c);
    if (p->win != MPI_WIN_NULL) {
        MPI_Win_unlock_all(p->win);
        MPI_Win_free(&p->win);
    } else {
        hfft_free(p->w);
    }
    if (p->cplx != MPI_DATATYPE_NULL)
        MPI_Type_free(&p->cplx);
    if (p->node_comm != MPI_COMM_NULL)
        MPI_Comm_free(&p->node_comm);
    if (p->comm != MPI_COMM_NULL)
        MPI_Comm_free(&p->comm);
    free(p->row0_in);
    free(p->rcut);
    free(p->ccut);
    free(p->wpeer);
    free(p->local);
    free(p->req);
    free(p->act);
    free(p);
}

int hfft__mpi_plan_info(const hfft__mpi_plan *p, hfft_mpi_info *info) {
    *info = p->info;
    memset(&info->rows, 0, sizeof info->rows);
    memset(&info->cols, 0, sizeof info->cols);
    void *rows = p->whole ? p->whole : p->rows_plan;
    if (rows)
        p->node->info(rows, &info->rows);
    if (p->cols_plan)
        p->node->info(p->cols_plan, &info->cols);
    return 0;
}
