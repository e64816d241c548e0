/*
 * api.c: the public entry points, written once and compiled per precision
 * (HFFT_SINGLE selects hfftf_ and float).  Every interface, basic, advanced
 * or guru, complex or real, interleaved or split, becomes one guru problem
 * (problem.c) that the planner (plan.c) takes; the executes check the new
 * arrays against the plan's before they run it.
 */
#include <pthread.h>
#include <stdint.h>
#include <string.h>

#include "src/core/status.h"
#include "src/plan.h"
#include "src/problem.h"

#include "src/core/precision.h"

#define X H /* the public names this file defines */

/* The public plan type wraps the internal plan; the two pointers convert. */
struct X(plan_s) {
    hfft__plan impl;
};

static X(plan) wrap(hfft__plan *p) { return (X(plan))(void *)p; }
static hfft__plan *unwrap(X(plan) p) { return (hfft__plan *)(void *)p; }

/* ---- every constructor ends here ---- */

static X(plan) guru(int kind, int rank, const hfft_iodim *dims, int hrank, const hfft_iodim *hdims,
                    void *ri, void *ii, void *ro, void *io, int sign, unsigned flags,
                    const hfft_options *opts) {
    hfft__problem pb;
    void *in[2] = {ri, ii}, *out[2] = {ro, io};
    if (hfft__problem_make(&pb, kind, PREC, rank, dims, hrank, hdims, in, out, sign))
        return NULL;
    return wrap(hfft__plan_create(&pb, flags, opts));
}

static X(plan) dense(int kind, int rank, const int64_t *n, void *in, void *out, int sign,
                     unsigned flags, const hfft_options *opts) {
    hfft_iodim dims[HFFT_MAX_RANK];
    if (hfft__dims_dense(kind, rank, n, in == out, dims))
        return NULL;
    return guru(kind, rank, dims, 0, NULL, in, NULL, out, NULL, sign, flags, opts);
}

static X(plan) many(int kind, int rank, const int64_t *n, int64_t howmany, void *in,
                    const int64_t *inembed, int64_t istride, int64_t idist, void *out,
                    const int64_t *onembed, int64_t ostride, int64_t odist, int sign,
                    unsigned flags, const hfft_options *opts) {
    hfft_iodim dims[HFFT_MAX_RANK], hdim;
    if (hfft__dims_many(kind, rank, n, howmany, inembed, istride, idist, onembed, ostride, odist,
                        dims, &hdim))
        return NULL;
    return guru(kind, rank, dims, 1, &hdim, in, NULL, out, NULL, sign, flags, opts);
}

/* FFTW's int arrays as 64-bit ones (rank bounded first, so they fit). */
static int widen(int rank, const int *v, int64_t *w) {
    if (rank < 1 || rank > HFFT_MAX_RANK)
        return hfft__fail(HFFT_ERR_INVALID_ARGUMENT, "rank %d: must be 1 to %d", rank,
                          HFFT_MAX_RANK);
    for (int k = 0; v && k < rank; k++)
        w[k] = v[k];
    return 0;
}

/* FFTW's int sizes (required) and embeddings (NULL stays NULL) as 64-bit ones. */
static int widen_sizes(int rank, const int *n, const int *inembed, const int *onembed,
                       int64_t *n64, int64_t *ie, int64_t *oe) {
    if (!n)
        return hfft__fail(HFFT_ERR_INVALID_ARGUMENT, "sizes: NULL");
    int st = widen(rank, n, n64);
    if (!st && ie)
        st = widen(rank, inembed, ie);
    if (!st && oe)
        st = widen(rank, onembed, oe);
    return st;
}

static X(plan) many_int(int kind, int rank, const int *n, int howmany, void *in,
                        const int *inembed, int istride, int idist, void *out, const int *onembed,
                        int ostride, int odist, int sign, unsigned flags) {
    int64_t n64[HFFT_MAX_RANK], ie[HFFT_MAX_RANK], oe[HFFT_MAX_RANK];
    if (widen_sizes(rank, n, inembed, onembed, n64, ie, oe))
        return NULL;
    return many(kind, rank, n64, howmany, in, inembed ? ie : NULL, istride, idist, out,
                onembed ? oe : NULL, ostride, odist, sign, flags, NULL);
}

/* ---- complex ---- */

X(plan) X(plan_dft)(int rank, const int64_t *n, X(complex) *in, X(complex) *out, int sign,
                    unsigned flags, const hfft_options *opts) {
    return dense(HFFT__C2C, rank, n, in, out, sign, flags, opts);
}

X(plan) X(plan_1d)(int n, X(complex) *in, X(complex) *out, int sign, unsigned flags) {
    int64_t s[1] = {n};
    return X(plan_dft)(1, s, in, out, sign, flags, NULL);
}

X(plan) X(plan_2d)(int n0, int n1, X(complex) *in, X(complex) *out, int sign, unsigned flags) {
    int64_t s[2] = {n0, n1};
    return X(plan_dft)(2, s, in, out, sign, flags, NULL);
}

X(plan) X(plan_3d)(int n0, int n1, int n2, X(complex) *in, X(complex) *out, int sign,
                   unsigned flags) {
    int64_t s[3] = {n0, n1, n2};
    return X(plan_dft)(3, s, in, out, sign, flags, NULL);
}

X(plan) X(plan_many_dft)(int rank, const int *n, int howmany, X(complex) *in, const int *inembed,
                         int istride, int idist, X(complex) *out, const int *onembed, int ostride,
                         int odist, int sign, unsigned flags) {
    return many_int(HFFT__C2C, rank, n, howmany, in, inembed, istride, idist, out, onembed,
                    ostride, odist, sign, flags);
}

X(plan) X(plan_many_dft64)(int rank, const int64_t *n, int64_t howmany, X(complex) *in,
                           const int64_t *inembed, int64_t istride, int64_t idist,
                           X(complex) *out, const int64_t *onembed, int64_t ostride,
                           int64_t odist, int sign, unsigned flags, const hfft_options *opts) {
    return many(HFFT__C2C, rank, n, howmany, in, inembed, istride, idist, out, onembed, ostride,
                odist, sign, flags, opts);
}

X(plan) X(plan_guru_dft)(int rank, const hfft_iodim *dims, int howmany_rank,
                         const hfft_iodim *howmany_dims, X(complex) *in, X(complex) *out,
                         int sign, unsigned flags, const hfft_options *opts) {
    return guru(HFFT__C2C, rank, dims, howmany_rank, howmany_dims, in, NULL, out, NULL, sign,
                flags, opts);
}

X(plan) X(plan_guru_split_dft)(int rank, const hfft_iodim *dims, int howmany_rank,
                               const hfft_iodim *howmany_dims, R *ri, R *ii, R *ro, R *io,
                               unsigned flags, const hfft_options *opts) {
    if (!ii || !io) {
        hfft__fail(HFFT_ERR_INVALID_ARGUMENT, "split arrays: an imaginary array is NULL");
        return NULL;
    }
    return guru(HFFT__C2C, rank, dims, howmany_rank, howmany_dims, ri, ii, ro, io, HFFT_FORWARD,
                flags, opts);
}

/* ---- real to real ---- */

static X(plan) guru_r2r(int rank, const hfft_iodim *dims, int hrank, const hfft_iodim *hdims,
                        R *in, R *out, const hfft_r2r_kind *kind, unsigned flags,
                        const hfft_options *opts) {
    hfft__problem pb;
    void *i2[2] = {in, NULL}, *o2[2] = {out, NULL};
    int kinds[HFFT_MAX_RANK];
    if (hfft__problem_make(&pb, HFFT__R2R, PREC, rank, dims, hrank, hdims, i2, o2, HFFT_FORWARD))
        return NULL;
    for (int k = 0; kind && k < rank; k++)
        kinds[k] = (int)kind[k];
    if (hfft__problem_r2r(&pb, kind ? kinds : NULL))
        return NULL;
    return wrap(hfft__plan_create(&pb, flags, opts));
}

X(plan) X(plan_guru_r2r)(int rank, const hfft_iodim *dims, int howmany_rank,
                         const hfft_iodim *howmany_dims, R *in, R *out, const hfft_r2r_kind *kind,
                         unsigned flags, const hfft_options *opts) {
    return guru_r2r(rank, dims, howmany_rank, howmany_dims, in, out, kind, flags, opts);
}

X(plan) X(plan_r2r64)(int rank, const int64_t *n, R *in, R *out, const hfft_r2r_kind *kind,
                      unsigned flags, const hfft_options *opts) {
    hfft_iodim dims[HFFT_MAX_RANK];
    if (hfft__dims_dense(HFFT__R2R, rank, n, in == out, dims))
        return NULL;
    return guru_r2r(rank, dims, 0, NULL, in, out, kind, flags, opts);
}

X(plan) X(plan_r2r)(int rank, const int *n, R *in, R *out, const hfft_r2r_kind *kind,
                    unsigned flags) {
    int64_t n64[HFFT_MAX_RANK];
    if (widen_sizes(rank, n, NULL, NULL, n64, NULL, NULL))
        return NULL;
    return X(plan_r2r64)(rank, n64, in, out, kind, flags, NULL);
}

X(plan) X(plan_r2r_1d)(int n, R *in, R *out, hfft_r2r_kind kind, unsigned flags) {
    int64_t s[1] = {n};
    return X(plan_r2r64)(1, s, in, out, &kind, flags, NULL);
}

X(plan) X(plan_r2r_2d)(int n0, int n1, R *in, R *out, hfft_r2r_kind kind0, hfft_r2r_kind kind1,
                       unsigned flags) {
    int64_t s[2] = {n0, n1};
    hfft_r2r_kind k[2] = {kind0, kind1};
    return X(plan_r2r64)(2, s, in, out, k, flags, NULL);
}

X(plan) X(plan_r2r_3d)(int n0, int n1, int n2, R *in, R *out, hfft_r2r_kind kind0,
                       hfft_r2r_kind kind1, hfft_r2r_kind kind2, unsigned flags) {
    int64_t s[3] = {n0, n1, n2};
    hfft_r2r_kind k[3] = {kind0, kind1, kind2};
    return X(plan_r2r64)(3, s, in, out, k, flags, NULL);
}

X(plan) X(plan_many_r2r64)(int rank, const int64_t *n, int64_t howmany, R *in,
                           const int64_t *inembed, int64_t istride, int64_t idist, R *out,
                           const int64_t *onembed, int64_t ostride, int64_t odist,
                           const hfft_r2r_kind *kind, unsigned flags, const hfft_options *opts) {
    hfft_iodim dims[HFFT_MAX_RANK], hdim;
    if (hfft__dims_many(HFFT__R2R, rank, n, howmany, inembed, istride, idist, onembed, ostride,
                        odist, dims, &hdim))
        return NULL;
    return guru_r2r(rank, dims, 1, &hdim, in, out, kind, flags, opts);
}

X(plan) X(plan_many_r2r)(int rank, const int *n, int howmany, R *in, const int *inembed,
                         int istride, int idist, R *out, const int *onembed, int ostride,
                         int odist, const hfft_r2r_kind *kind, unsigned flags) {
    int64_t n64[HFFT_MAX_RANK], ie[HFFT_MAX_RANK], oe[HFFT_MAX_RANK];
    if (widen_sizes(rank, n, inembed, onembed, n64, ie, oe))
        return NULL;
    return X(plan_many_r2r64)(rank, n64, howmany, in, inembed ? ie : NULL, istride, idist, out,
                              onembed ? oe : NULL, ostride, odist, kind, flags, NULL);
}

/* ---- real to complex, complex to real ---- */

X(plan) X(plan_dft_r2c)(int rank, const int64_t *n, R *in, X(complex) *out, unsigned flags,
                        const hfft_options *opts) {
    return dense(HFFT__R2C, rank, n, in, out, HFFT_FORWARD, flags, opts);
}

X(plan) X(plan_dft_r2c_1d)(int n, R *in, X(complex) *out, unsigned flags) {
    int64_t s[1] = {n};
    return X(plan_dft_r2c)(1, s, in, out, flags, NULL);
}

X(plan) X(plan_dft_r2c_2d)(int n0, int n1, R *in, X(complex) *out, unsigned flags) {
    int64_t s[2] = {n0, n1};
    return X(plan_dft_r2c)(2, s, in, out, flags, NULL);
}

X(plan) X(plan_dft_r2c_3d)(int n0, int n1, int n2, R *in, X(complex) *out, unsigned flags) {
    int64_t s[3] = {n0, n1, n2};
    return X(plan_dft_r2c)(3, s, in, out, flags, NULL);
}

X(plan) X(plan_dft_c2r)(int rank, const int64_t *n, X(complex) *in, R *out, unsigned flags,
                        const hfft_options *opts) {
    return dense(HFFT__C2R, rank, n, in, out, HFFT_BACKWARD, flags, opts);
}

X(plan) X(plan_dft_c2r_1d)(int n, X(complex) *in, R *out, unsigned flags) {
    int64_t s[1] = {n};
    return X(plan_dft_c2r)(1, s, in, out, flags, NULL);
}

X(plan) X(plan_dft_c2r_2d)(int n0, int n1, X(complex) *in, R *out, unsigned flags) {
    int64_t s[2] = {n0, n1};
    return X(plan_dft_c2r)(2, s, in, out, flags, NULL);
}

X(plan) X(plan_dft_c2r_3d)(int n0, int n1, int n2, X(complex) *in, R *out, unsigned flags) {
    int64_t s[3] = {n0, n1, n2};
    return X(plan_dft_c2r)(3, s, in, out, flags, NULL);
}

X(plan) X(plan_many_dft_r2c)(int rank, const int *n, int howmany, R *in, const int *inembed,
                             int istride, int idist, X(complex) *out, const int *onembed,
                             int ostride, int odist, unsigned flags) {
    return many_int(HFFT__R2C, rank, n, howmany, in, inembed, istride, idist, out, onembed,
                    ostride, odist, HFFT_FORWARD, flags);
}

X(plan) X(plan_many_dft_r2c64)(int rank, const int64_t *n, int64_t howmany, R *in,
                               const int64_t *inembed, int64_t istride, int64_t idist,
                               X(complex) *out, const int64_t *onembed, int64_t ostride,
                               int64_t odist, unsigned flags, const hfft_options *opts) {
    return many(HFFT__R2C, rank, n, howmany, in, inembed, istride, idist, out, onembed, ostride,
                odist, HFFT_FORWARD, flags, opts);
}

X(plan) X(plan_many_dft_c2r)(int rank, const int *n, int howmany, X(complex) *in,
                             const int *inembed, int istride, int idist, R *out,
                             const int *onembed, int ostride, int odist, unsigned flags) {
    return many_int(HFFT__C2R, rank, n, howmany, in, inembed, istride, idist, out, onembed,
                    ostride, odist, HFFT_BACKWARD, flags);
}

X(plan) X(plan_many_dft_c2r64)(int rank, const int64_t *n, int64_t howmany, X(complex) *in,
                               const int64_t *inembed, int64_t istride, int64_t idist, R *out,
                               const int64_t *onembed, int64_t ostride, int64_t odist,
                               unsigned flags, const hfft_options *opts) {
    return many(HFFT__C2R, rank, n, howmany, in, inembed, istride, idist, out, onembed, ostride,
                odist, HFFT_BACKWARD, flags, opts);
}

X(plan) X(plan_guru_dft_r2c)(int rank, const hfft_iodim *dims, int howmany_rank,
                             const hfft_iodim *howmany_dims, R *in, X(complex) *out,
                             unsigned flags, const hfft_options *opts) {
    return guru(HFFT__R2C, rank, dims, howmany_rank, howmany_dims, in, NULL, out, NULL,
                HFFT_FORWARD, flags, opts);
}

X(plan) X(plan_guru_split_dft_r2c)(int rank, const hfft_iodim *dims, int howmany_rank,
                                   const hfft_iodim *howmany_dims, R *in, R *ro, R *io,
                                   unsigned flags, const hfft_options *opts) {
    if (!io) {
        hfft__fail(HFFT_ERR_INVALID_ARGUMENT, "split arrays: the imaginary output is NULL");
        return NULL;
    }
    return guru(HFFT__R2C, rank, dims, howmany_rank, howmany_dims, in, NULL, ro, io,
                HFFT_FORWARD, flags, opts);
}

X(plan) X(plan_guru_dft_c2r)(int rank, const hfft_iodim *dims, int howmany_rank,
                             const hfft_iodim *howmany_dims, X(complex) *in, R *out,
                             unsigned flags, const hfft_options *opts) {
    return guru(HFFT__C2R, rank, dims, howmany_rank, howmany_dims, in, NULL, out, NULL,
                HFFT_BACKWARD, flags, opts);
}

X(plan) X(plan_guru_split_dft_c2r)(int rank, const hfft_iodim *dims, int howmany_rank,
                                   const hfft_iodim *howmany_dims, R *ri, R *ii, R *out,
                                   unsigned flags, const hfft_options *opts) {
    if (!ii) {
        hfft__fail(HFFT_ERR_INVALID_ARGUMENT, "split arrays: the imaginary input is NULL");
        return NULL;
    }
    return guru(HFFT__C2R, rank, dims, howmany_rank, howmany_dims, ri, ii, out, NULL,
                HFFT_BACKWARD, flags, opts);
}

/* ---- execution ---- */

int X(execute)(X(plan) p) {
    if (!p)
        return hfft__fail(HFFT_ERR_INVALID_ARGUMENT, "execute: NULL plan");
    hfft__plan *q = unwrap(p);
    pthread_mutex_lock(&q->lock);
    int st = hfft__plan_execute(q, q->pb.in, q->pb.out);
    pthread_mutex_unlock(&q->lock);
    return st;
}

/* The new-array executes: the plan's kind and arrays of its shape and placement. */
static int execute_new(X(plan) p, const char *name, int kind, void *ri, void *ii, void *ro,
                       void *io) {
    if (!p)
        return hfft__fail(HFFT_ERR_INVALID_ARGUMENT, "%s: NULL plan", name);
    hfft__plan *q = unwrap(p);
    /* (an r2r plan on the rounds runs the C2C problem of its pairs of reals) */
    const hfft__problem *pb = q->r2r ? &q->r2r_pb : &q->pb;
    static const char *const kinds[] = {"complex (c2c)", "real to complex (r2c)",
                                        "complex to real (c2r)", "real to real (r2r)"};
    if (pb->kind != kind || (pb->split_in || pb->split_out) != (ii || io))
        return hfft__fail(HFFT_ERR_INVALID_ARGUMENT, "%s: the plan is %s%s", name,
                          pb->split_in || pb->split_out ? "split " : "", kinds[pb->kind]);
    void *in[2] = {ri, ii}, *out[2] = {ro, io};
    if (pb->howmany == 0)
        return 0;
    for (int k = 0; k < 2; k++) {
        if (pb->in[k] && !in[k])
            return hfft__fail(HFFT_ERR_INVALID_ARGUMENT, "%s: NULL input array", name);
        if (pb->out[k] && !out[k])
            return hfft__fail(HFFT_ERR_INVALID_ARGUMENT, "%s: NULL output array", name);
    }
    if ((in[0] == out[0]) != pb->inplace || (pb->kind == HFFT__C2C && pb->split_in &&
                                              (in[1] == out[1]) != pb->inplace))
        return hfft__fail(HFFT_ERR_INVALID_ARGUMENT, "%s: the plan is %s; the arrays must be too",
                          name, pb->inplace ? "in-place" : "out-of-place");
    if (pb->split_out && (char *)out[1] - (char *)out[0] != (char *)pb->out[1] - (char *)pb->out[0]) {
        int alias = hfft__problem_split_alias(pb, out);
        if (alias)
            return alias < 0 ? alias
                             : hfft__fail(HFFT_ERR_INVALID_ARGUMENT,
                                          "%s: the real and imaginary outputs share elements",
                                          name);
    }
    if (!(q->flags & HFFT_UNALIGNED)) {
        for (int k = 0; k < 4; k++) {
            const void *a = k < 2 ? in[k] : out[k - 2], *b = k < 2 ? pb->in[k] : pb->out[k - 2];
            if (a && ((uintptr_t)a & 63u) != ((uintptr_t)b & 63u))
                return hfft__fail(HFFT_ERR_INVALID_ARGUMENT,
                                  "%s: the arrays must have the plan's alignment (mod 64 bytes); "
                                  "plan with HFFT_UNALIGNED for any",
                                  name);
        }
    }
    for (int a = 0; a < 2 && !pb->inplace; a++)
        for (int b = 0; b < 2; b++) {
            if (!in[a] || !out[b])
                continue;
            const char *x = in[a], *y = out[b];
            if (x + pb->lo[0] < y + pb->hi[1] && y + pb->lo[1] < x + pb->hi[0])
                return hfft__fail(HFFT_ERR_INVALID_ARGUMENT, "%s: input and output overlap",
                                  name);
        }
    /* one execute at a time: the engines' buffers, streams and registrations are
       the plan's own */
    pthread_mutex_lock(&q->lock);
    int st = hfft__plan_adopt(q, in, out);
    if (!st)
        st = hfft__plan_execute(q, in, out);
    pthread_mutex_unlock(&q->lock);
    return st;
}

int X(execute_dft)(X(plan) p, X(complex) *in, X(complex) *out) {
    return execute_new(p, "execute_dft", HFFT__C2C, in, NULL, out, NULL);
}

int X(execute_split_dft)(X(plan) p, R *ri, R *ii, R *ro, R *io) {
    if (!ii || !io)
        return hfft__fail(HFFT_ERR_INVALID_ARGUMENT, "execute_split_dft: NULL array");
    return execute_new(p, "execute_split_dft", HFFT__C2C, ri, ii, ro, io);
}

int X(execute_dft_r2c)(X(plan) p, R *in, X(complex) *out) {
    return execute_new(p, "execute_dft_r2c", HFFT__R2C, in, NULL, out, NULL);
}

int X(execute_split_dft_r2c)(X(plan) p, R *in, R *ro, R *io) {
    if (!io)
        return hfft__fail(HFFT_ERR_INVALID_ARGUMENT, "execute_split_dft_r2c: NULL array");
    return execute_new(p, "execute_split_dft_r2c", HFFT__R2C, in, NULL, ro, io);
}

int X(execute_dft_c2r)(X(plan) p, X(complex) *in, R *out) {
    return execute_new(p, "execute_dft_c2r", HFFT__C2R, in, NULL, out, NULL);
}

int X(execute_split_dft_c2r)(X(plan) p, R *ri, R *ii, R *out) {
    if (!ii)
        return hfft__fail(HFFT_ERR_INVALID_ARGUMENT, "execute_split_dft_c2r: NULL array");
    return execute_new(p, "execute_split_dft_c2r", HFFT__C2R, ri, ii, out, NULL);
}

int X(execute_r2r)(X(plan) p, R *in, R *out) {
    return execute_new(p, "execute_r2r", HFFT__R2R, in, NULL, out, NULL);
}

void X(destroy_plan)(X(plan) p) { hfft__plan_destroy(unwrap(p)); }

int X(plan_info)(X(plan) p, hfft_info *info) {
    if (!p || !info)
        return hfft__fail(HFFT_ERR_INVALID_ARGUMENT, "plan_info: NULL argument");
    hfft__plan *q = unwrap(p);
    pthread_mutex_lock(&q->lock);
    *info = q->info;
    pthread_mutex_unlock(&q->lock);
    return 0;
}

int X(plan_trace)(X(plan) p, hfft_trace_op *ops, int max) {
    if (!p)
        return hfft__fail(HFFT_ERR_INVALID_ARGUMENT, "plan_trace: NULL plan");
    hfft__plan *q = unwrap(p);
    pthread_mutex_lock(&q->lock);
    int n = hfft__plan_trace(q, ops, max);
    pthread_mutex_unlock(&q->lock);
    return n;
}

/* ---- memory ---- */

void *X(malloc)(size_t bytes) { return hfft__malloc(bytes); }

X(complex) *X(alloc_complex)(size_t count) {
    if (count > SIZE_MAX / sizeof(X(complex))) {
        hfft__fail(HFFT_ERR_INVALID_ARGUMENT, "alloc_complex: %zu elements overflow size_t",
                   count);
        return NULL;
    }
    return hfft__malloc(count * sizeof(X(complex)));
}

R *X(alloc_real)(size_t count) {
    if (count > SIZE_MAX / sizeof(R)) {
        hfft__fail(HFFT_ERR_INVALID_ARGUMENT, "alloc_real: %zu elements overflow size_t", count);
        return NULL;
    }
    return hfft__malloc(count * sizeof(R));
}

void X(free)(void *p) { hfft__free(p); }
