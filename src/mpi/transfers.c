/*
 * transfers.c: the two transposes' transfer lists, built once per plan: for
 * each peer, the blocks of rows that go to its columns (rows to columns) and
 * back (columns to rows), as MPI datatypes over the arrays, with shared-memory
 * copies where the peer is on the same node.
 */
#include <stdlib.h>
#include <string.h>

#include "src/mpi/plan.h"

/* ---- transfers ---- */

static hfft__mpi_xfer *add_xfer(hfft__mpi_side *s, int cap, int nb) {
    hfft__mpi_xfer *x = &s->x[s->nx];
    void *mem = calloc((size_t)nb, sizeof(int64_t) + 2 * sizeof(hfft__mpi_span));
    if (s->nx >= cap || !mem) {
        free(mem);
        return NULL;
    }
    s->nx++;
    x->runs.nb = nb;
    x->runs.len = mem;
    x->runs.src = (hfft__mpi_span *)(x->runs.len + nb);
    x->runs.dst = x->runs.src + nb;
    return x;
}

static int same_node(const hfft__mpi_plan *p, int peer) { return p->local[peer]; }

/* Rows group g of rank r, into the column groups of rank s. */
static int xfer_rows_to_cols(hfft__mpi_plan *p, hfft__mpi_side *side, int cap, int r, int s,
                             int g) {
    const hfft__mpi_cut *cs = &p->ccut[s];
    int nb = hfft__mpi_cut_groups(cs);
    hfft__mpi_xfer *x = add_xfer(side, cap, nb);
    if (!x)
        return hfft__mpi_fail(HFFT_ERR_HOST_MEMORY, "transpose transfers: out of memory");
    int64_t lo = hfft__mpi_cut_lo(&p->rcut[r], g);
    x->peer = r == p->me ? s : r;
    x->group = g;
    x->shared = same_node(p, x->peer) && x->peer != p->me;
    x->runs.rows = hfft__mpi_cut_len(&p->rcut[r], g);
    for (int j = 0; j < nb; j++) {
        int64_t len = hfft__mpi_cut_len(cs, j), clo = hfft__mpi_cut_lo(cs, j);
        x->runs.len[j] = len;
        x->runs.src[j] = (hfft__mpi_span){lo * p->rowlen + p->col0[s] + clo, p->rowlen};
        x->runs.dst[j] = (hfft__mpi_span){p->n[0] * clo + (p->row0_in[r] + lo) * len, len};
    }
    return 0;
}

/* Column group j of rank s, into the rows of rank r. */
static int xfer_cols_to_rows(hfft__mpi_plan *p, hfft__mpi_side *side, int cap, int s, int r,
                             int j) {
    hfft__mpi_xfer *x = add_xfer(side, cap, 1);
    if (!x)
        return hfft__mpi_fail(HFFT_ERR_HOST_MEMORY, "transpose transfers: out of memory");
    int64_t len = hfft__mpi_cut_len(&p->ccut[s], j), clo = hfft__mpi_cut_lo(&p->ccut[s], j);
    x->peer = s == p->me ? r : s;
    x->group = j;
    x->shared = same_node(p, x->peer) && x->peer != p->me;
    x->runs.rows = p->rows_out[r];
    x->runs.len[0] = len;
    x->runs.src[0] = (hfft__mpi_span){p->n[0] * clo + p->row0_out[r] * len, len};
    x->runs.dst[0] = (hfft__mpi_span){p->col0[s] + clo, p->rowlen};
    return 0;
}

static int alloc_side(hfft__mpi_side *s, int cap) {
    s->x = calloc(cap ? (size_t)cap : 1, sizeof *s->x);
    return s->x ? 0 : hfft__mpi_fail(HFFT_ERR_HOST_MEMORY, "transpose transfers: out of memory");
}

typedef int (*xfer_fn)(hfft__mpi_plan *p, hfft__mpi_side *side, int cap, int from, int to,
                       int group);

/* The transfers of one transpose: every rank sends each of its groups (cut[rank]) to every
   rank that wants some (want[rank] > 0), group by group, to the peers in a rotation that
   starts at itself, so that not every rank sends to the same peer at once. */
static int build_phase(hfft__mpi_plan *p, hfft__mpi_phase *ph, const hfft__mpi_cut *cut,
                       const int64_t *want, xfer_fn make) {
    int R = p->ranks, me = p->me, gm = hfft__mpi_cut_groups(&cut[me]), cap_in = 0;
    for (int r = 0; r < R && want[me] > 0; r++)
        cap_in += hfft__mpi_cut_groups(&cut[r]);
    int st = alloc_side(&ph->out, gm * R);
    if (!st)
        st = alloc_side(&ph->in, cap_in);
    for (int g = 0; g < gm && !st; g++)
        for (int k = 0; k < R && !st; k++)
            if (want[(me + k) % R] > 0)
                st = make(p, &ph->out, gm * R, me, (me + k) % R, g);
    for (int r = 0; r < R && want[me] > 0 && !st; r++)
        for (int g = 0; g < hfft__mpi_cut_groups(&cut[r]) && !st; g++)
            st = make(p, &ph->in, cap_in, r, me, g);
    return st ? st : hfft__mpi_phase_build(p, ph);
}

int hfft__mpi_phase_rows_to_cols(hfft__mpi_plan *p, hfft__mpi_phase *ph, const hfft__mpi_cut *cut,
                                 const int64_t *want) {
    return build_phase(p, ph, cut, want, xfer_rows_to_cols);
}

int hfft__mpi_phase_cols_to_rows(hfft__mpi_plan *p, hfft__mpi_phase *ph, const hfft__mpi_cut *cut,
                                 const int64_t *want) {
    return build_phase(p, ph, cut, want, xfer_cols_to_rows);
}
