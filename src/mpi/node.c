/*
 * node.c: a rank's resources on its node: its threads (its share of the
 * node's cores), its device budget (the node's cards shared between the
 * ranks on them), the node plans of its rows and its columns, and the
 * scratch block (shared by the node's ranks where they are on one host, or
 * pinned).
 */
#define _GNU_SOURCE
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "src/mpi/plan.h"

#define PLACEMENT (HFFT_CPU_ONLY | HFFT_GPU_ONLY | HFFT_HYBRID)
#define SCHEDULE (HFFT_SCHEDULE_PLAIN | HFFT_SCHEDULE_RADIX2)
#define TRANSPOSED (HFFT_TRANSPOSED_IN | HFFT_TRANSPOSED_OUT)

/* ---- node resources ---- */

/* The CPU threads of each rank where none were asked for: the cores of this rank's
   binding, or the node's cores shared among its ranks where they are not bound. */
static int default_threads(MPI_Comm node_comm) {
    int local = 1;
    MPI_Comm_size(node_comm, &local);
    long online = sysconf(_SC_NPROCESSORS_ONLN);
    if (online < 1)
        online = 1;
    cpu_set_t set;
    CPU_ZERO(&set);
    if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) < online)
        return CPU_COUNT(&set) > 0 ? CPU_COUNT(&set) : 1;
    return online / local > 0 ? (int)(online / local) : 1;
}

/* This rank's device budget: the caller's, or what a small probe plan is given (free device
   memory less hfft's margins); 0 where no device would be used. */
static int64_t device_budget(const hfft__mpi_node *node, unsigned flags, const hfft_options *o) {
    if (flags & HFFT_CPU_ONLY)
        return 0;
    if (o->device_memory > 0)
        return o->device_memory;
    int64_t budget = 0;
    void *buf = hfft_malloc(4096);
    hfft_iodim d = {256 * 8 / node->prec, 1, 1};
    void *probe = buf ? node->plan_guru(1, &d, 0, NULL, buf, buf, HFFT_FORWARD,
                                        HFFT_ESTIMATE | (flags & HFFT_GPU_ONLY), o)
                      : NULL;
    hfft_info info;
    if (probe && node->info(probe, &info) == 0 && info.device != HFFT_DEVICE_NONE)
        budget = info.device_budget;
    if (probe)
        node->destroy(probe);
    hfft_free(buf);
    return budget;
}

static void *node_plan(hfft__mpi_plan *p, int rank, const hfft_iodim *dims, int hrank,
                       const hfft_iodim *hdims, void *in, void *out, unsigned flags,
                       const hfft_options *o, const char *what, int *st) {
    if (*st)
        return NULL;
    void *plan = p->node->plan_guru(rank, dims, hrank, hdims, in, out, p->sign, flags, o);
    if (!plan)
        *st = hfft__mpi_fail(hfft_last_error(), "the node plan of %s: %s", what,
                             hfft_last_error_message());
    return plan;
}

/* Dimensions 1.. of q rows, the howmany transforms interleaved. */
static int rows_dims(const hfft__mpi_plan *p, int64_t q, hfft_iodim *dims, hfft_iodim *hd,
                     int *hrank) {
    int64_t st = p->howmany;
    for (int j = p->rnk - 1; j >= 1; j--) {
        dims[j - 1] = (hfft_iodim){p->n[j], st, st};
        st *= p->n[j];
    }
    hd[0] = (hfft_iodim){q, p->rowlen, p->rowlen};
    *hrank = 1;
    if (p->howmany > 1)
        hd[(*hrank)++] = (hfft_iodim){p->howmany, 1, 1};
    return p->rnk - 1;
}

/* A group's offset that breaks 64-byte alignment needs HFFT_UNALIGNED for the new-array
   executes of the groups after the first. */
static unsigned alignment(const hfft__mpi_plan *p, const hfft__mpi_cut *c, int64_t unit) {
    for (int g = 1; g < c->k; g++)
        if ((g * c->q * unit) * (int64_t)p->esize % 64)
            return HFFT_UNALIGNED;
    return 0;
}

int hfft__mpi_node_plans(hfft__mpi_plan *p, const hfft_options *opts) {
    hfft_options o;
    if (opts)
        o = *opts;
    else
        hfft_options_init(&o);
    const char *env_threads = getenv("HFFT_THREADS");
    if (o.threads <= 0 && !(env_threads && *env_threads))
        o.threads = default_threads(p->node_comm);
    p->info.threads = o.threads > 0 ? o.threads : atoi(env_threads);
    if (p->info.threads < 1)
        p->info.threads = 1;

    unsigned base = p->flags & ~TRANSPOSED;
    unsigned cpu = (base & ~(PLACEMENT | SCHEDULE)) | HFFT_CPU_ONLY;
    int me = p->me, st = 0;
    const hfft__mpi_cut *rc = &p->rcut[me], *cc = &p->ccut[me];
    hfft_iodim dims[HFFT_MAX_RANK], hd[2];
    int hrank, rank;
    if (p->mode == HFFT__MPI_WHOLE) {
        int64_t s = p->howmany;
        for (int j = p->rnk - 1; j >= 0; j--) {
            dims[j] = (hfft_iodim){p->n[j], s, s};
            s *= p->n[j];
        }
        hd[0] = (hfft_iodim){p->howmany, 1, 1};
        p->whole = node_plan(p, p->rnk, dims, p->howmany > 1, hd, p->in, p->out, base, &o,
                             "the whole array", &st);
        return st;
    }
    /* the device plans share this rank's budget */
    int devices = (rc->k > 0) + (cc->k > 0);
    int64_t budget = devices ? device_budget(p->node, base, &o) : 0;
    if (budget > 0) {
        o.device_memory = budget / devices;
        p->info.device_budget = o.device_memory;
    }
    char *rin = p->mode == HFFT__MPI_ROWS_FIRST ? p->in : p->out, *rout = p->out;
    if (rc->k > 0) {
        rank = rows_dims(p, rc->q, dims, hd, &hrank);
        p->rows_plan =
            node_plan(p, rank, dims, hrank, hd, rin, rout, base | alignment(p, rc, p->rowlen), &o,
                      "the rows (dimensions 1 and up)", &st);
    }
    if (rc->rem > 0) {
        int64_t off = (rc->k * rc->q * p->rowlen) * (int64_t)p->esize;
        rank = rows_dims(p, rc->rem, dims, hd, &hrank);
        p->rows_rem = node_plan(p, rank, dims, hrank, hd, rin + off, rout + off, cpu, &o,
                                "the last rows", &st);
    }
    if (cc->k > 0 && p->t_out) {
        /* TRANSPOSED_OUT: dimension 0 along the output's local_n1 x n0 x rest rows, after the
           block is transposed into it (contiguous lines, where the block's are strided) */
        int64_t nr = p->n[0] * p->rest;
        dims[0] = (hfft_iodim){p->n[0], p->rest, p->rest};
        hd[0] = (hfft_iodim){p->cols[me] / p->rest, nr, nr};
        hd[1] = (hfft_iodim){p->rest, 1, 1};
        p->cols_plan = node_plan(p, 1, dims, 1 + (p->rest > 1), hd, p->out, p->out, base, &o,
                                 "the columns (dimension 0)", &st);
    } else if (cc->k > 0) {
        /* dimension 0 alone is one round: streamed, it crosses the link both ways at once,
           where one trip (the planner's choice where it fits) would copy in, then out */
        unsigned cols = base | alignment(p, cc, p->n[0]);
        if (!(cols & (SCHEDULE | HFFT_CPU_ONLY)))
            cols |= HFFT_SCHEDULE_PLAIN;
        dims[0] = (hfft_iodim){p->n[0], cc->q, cc->q};
        hd[0] = (hfft_iodim){cc->q, 1, 1};
        p->cols_plan =
            node_plan(p, 1, dims, 1, hd, p->w, p->w, cols, &o, "the columns (dimension 0)", &st);
    }
    if (cc->rem > 0) {
        char *w = (char *)p->w + (cc->k * cc->q * p->n[0]) * (int64_t)p->esize;
        dims[0] = (hfft_iodim){p->n[0], cc->rem, cc->rem};
        hd[0] = (hfft_iodim){cc->rem, 1, 1};
        p->cols_rem = node_plan(p, 1, dims, 1, hd, w, w, cpu, &o, "the last columns", &st);
    }
    return st;
}

/* The scratch block: in memory that the node's ranks share where there are several (they
   copy into and out of each other's blocks), else pinned host memory. */
int hfft__mpi_make_scratch(hfft__mpi_plan *p, int st) {
    /* collective: a rank that failed already takes part, with nothing to share */
    int64_t bytes =
        st || p->mode == HFFT__MPI_WHOLE ? 0 : (p->n[0] * p->cols[p->me]) * (int64_t)p->esize;
    int local = 1, ok = 1, all = 0;
    MPI_Comm_size(p->node_comm, &local);
    p->win = MPI_WIN_NULL;
    if (local > 1 && p->tune.shared && p->mode != HFFT__MPI_WHOLE) {
        MPI_Info info;
        MPI_Info_create(&info);
        MPI_Info_set(info, "alloc_shared_noncontig", "true");
        void *base = NULL;
        ok = MPI_Win_allocate_shared((MPI_Aint)bytes, (int)p->esize, info, p->node_comm, &base,
                                     &p->win) == MPI_SUCCESS;
        MPI_Info_free(&info);
        if (!ok)
            p->win = MPI_WIN_NULL;
        /* every rank uses the shared blocks, or none does */
        MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_LAND, p->comm);
        if (all && !st) {
            MPI_Win_lock_all(MPI_MODE_NOCHECK, p->win);
            MPI_Group g, gn;
            MPI_Comm_group(p->comm, &g);
            MPI_Comm_group(p->node_comm, &gn);
            for (int r = 0; r < p->ranks; r++) {
                int nr = MPI_UNDEFINED;
                MPI_Group_translate_ranks(g, 1, &r, gn, &nr);
                MPI_Aint size = 0;
                int unit = 0;
                void *peer = NULL;
                if (nr == MPI_UNDEFINED)
                    continue;
                p->local[r] = 1;
                if (MPI_Win_shared_query(p->win, nr, &size, &unit, &peer) == MPI_SUCCESS &&
                    size > 0)
                    p->wpeer[r] = peer;
            }
            MPI_Group_free(&g);
            MPI_Group_free(&gn);
            p->w = bytes ? base : NULL;
            p->info.shared_ranks = local;
            return st;
        }
        if (all) { /* kept until the plan, which fails, is destroyed */
            MPI_Win_lock_all(MPI_MODE_NOCHECK, p->win);
            return st;
        }
        if (p->win != MPI_WIN_NULL)
            MPI_Win_free(&p->win);
    }
    if (bytes > 0 && !st) {
        p->w = hfft_malloc((size_t)bytes);
        if (!p->w)
            st = hfft__mpi_fail(HFFT_ERR_HOST_MEMORY, "scratch of %lld bytes: out of memory",
                                (long long)bytes);
    }
    return st;
}

/* Elements the input and output arrays of this rank must hold: rows first, the output array
   takes the transformed rows of the input slab too. */
