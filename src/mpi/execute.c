/*
 * execute.c: a distributed plan's execute: each group's node plan on its rows,
 * the transposes pipelined with the next group's work, dimension 0 on the
 * columns and the way back, every rank agreeing on a failure before it returns.
 */
#include <stdlib.h>
#include <string.h>

#include "src/mpi/plan.h"

/* ---- execute ---- */

static int node_exec(hfft__mpi_run *x, void *plan, void *in, void *out, const char *what) {
    int st = x->p->node->execute_dft(plan, in, out);
    return st ? hfft__mpi_fail(st, "the node plan of %s: %s", what, hfft_last_error_message()) : 0;
}

static int work_whole(hfft__mpi_run *x, int g) {
    (void)g;
    return node_exec(x, x->p->whole, x->in, x->out, "the whole array");
}

static int work_rows(hfft__mpi_run *x, int g) {
    hfft__mpi_plan *p = x->p;
    const hfft__mpi_cut *c = &p->rcut[p->me];
    int64_t off = hfft__mpi_bytes_of(p, hfft__mpi_cut_lo(c, g) * p->rowlen);
    char *src = p->mode == HFFT__MPI_ROWS_FIRST ? x->in : x->out;
    return node_exec(x, g < c->k ? p->rows_plan : p->rows_rem, src + off, x->out + off, "the rows");
}

/* TRANSPOSED_IN in place: the whole input into the block before any row can arrive. */
static int work_take_input(hfft__mpi_run *x, int g) {
    hfft__mpi_plan *p = x->p;
    const hfft__mpi_cut *c = &p->ccut[p->me];
    (void)g;
    for (int j = 0; j < hfft__mpi_cut_groups(c); j++) {
        int64_t lo = hfft__mpi_cut_lo(c, j);
        hfft__mpi_transpose(x->in, (char *)p->w + hfft__mpi_bytes_of(p, lo * p->n[0]), p->n[0],
                            p->rest, lo, hfft__mpi_cut_len(c, j), p->esize, 0, p->info.threads);
    }
    return 0;
}

/* Column group j: (TRANSPOSED_IN out of place) its columns out of the transposed input, then
   dimension 0. */
static int work_cols(hfft__mpi_run *x, int j) {
    hfft__mpi_plan *p = x->p;
    const hfft__mpi_cut *c = &p->ccut[p->me];
    int64_t lo = hfft__mpi_cut_lo(c, j), len = hfft__mpi_cut_len(c, j);
    char *w = (char *)p->w + hfft__mpi_bytes_of(p, lo * p->n[0]);
    if (p->t_in && !p->inplace)
        hfft__mpi_transpose(x->in, w, p->n[0], p->rest, lo, len, p->esize, 0, p->info.threads);
    return node_exec(x, j < c->k ? p->cols_plan : p->cols_rem, w, w, "the columns");
}

/* TRANSPOSED_OUT: the block (one group) transposed into the output, then dimension 0 there. */
static int work_cols_out(hfft__mpi_run *x, int j) {
    hfft__mpi_plan *p = x->p;
    (void)j;
    hfft__mpi_transpose(x->out, p->w, p->n[0], p->rest, 0, p->cols[p->me], p->esize, 1,
                        p->info.threads);
    return node_exec(x, p->cols_plan, x->out, x->out, "the columns");
}

int hfft__mpi_plan_execute(hfft__mpi_plan *p, void *in, void *out) {
    hfft__mpi_run x = {.p = p, .in = in, .out = out};
    if (hfft__mpi_agree(p->comm, hfft__mpi_check_arrays(p, in, out, p->inplace)))
        return hfft_mpi_last_error();
    double t0 = hfft__mpi_now();
    int me = p->me;
    int rows = hfft__mpi_cut_groups(&p->rcut[me]), cols = hfft__mpi_cut_groups(&p->ccut[me]);
    if (p->mode == HFFT__MPI_WHOLE) {
        hfft__mpi_drive(&x, NULL, work_whole, 0, 1);
    } else if (p->mode == HFFT__MPI_ROWS_FIRST) {
        hfft__mpi_post_recvs(&x, &p->a, p->w);
        hfft__mpi_pipeline(&x, &p->a, work_rows, rows, x.out);
        if (p->win != MPI_WIN_NULL)
            MPI_Win_sync(p->win); /* the pushes of this node's ranks, announced */
    }
    if (p->mode == HFFT__MPI_ROWS_FIRST && p->t_out) {
        if (cols > 0)
            hfft__mpi_drive(&x, NULL, work_cols_out, 0, 1);
    } else if (p->mode != HFFT__MPI_WHOLE) {
        if (p->t_in && p->inplace) /* the rows that arrive overwrite the input */
            hfft__mpi_drive(&x, NULL, work_take_input, 0, 1);
        hfft__mpi_post_recvs(&x, &p->c, x.out);
        hfft__mpi_pipeline(&x, &p->c, work_cols, cols, p->w);
        if (p->mode == HFFT__MPI_COLS_FIRST)
            for (int g = 0; g < rows; g++)
                hfft__mpi_drive(&x, NULL, work_rows, g, 1);
    }
    p->info.seconds = hfft__mpi_now() - t0;
    p->info.compute_seconds = x.compute;
    p->info.mpi_seconds = x.mpi;
    p->info.exchange_seconds = x.exchange;
    p->info.sent_bytes = x.sent;
    return hfft__mpi_agree(p->comm, x.status);
}

int hfft__mpi_plan_run(hfft__mpi_plan *p) { return hfft__mpi_plan_execute(p, p->in, p->out); }
