/*
 * problem.c: the planner's front.  Every interface (basic, advanced, guru;
 * complex, real, split) becomes one guru problem here, checked once: sizes
 * and byte spans that fit 64 bits, arrays that do not partly overlap, output
 * strides that never write one element twice, in-place real layouts whose
 * padding matches.  Then the problem's dense row-major form, where it has
 * one, and the rounds that the engines run.
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "src/core/chirp.h"
#include "src/core/status.h"
#include "src/problem.h"

#define EXACT_ALIAS_CHECK (1 << 22) /* output elements checked one by one up to this */

/* ---- building guru dimensions from the basic and advanced interfaces ---- */

int hfft__dims_dense(int kind, int rank, const int64_t *n, int inplace, hfft_iodim *dims) {
    if (kind == HFFT__R2R)
        kind = HFFT__C2C; /* the same shape on both sides, of reals */
    if (rank < 1 || rank > HFFT__MAX_DIMS)
        return hfft__fail(HFFT_ERR_INVALID_ARGUMENT, "rank %d: must be 1 to %d", rank,
                          HFFT__MAX_DIMS);
    if (!n)
        return hfft__fail(HFFT_ERR_INVALID_ARGUMENT, "sizes: NULL");
    for (int k = 0; k < rank; k++)
        if (n[k] < 1)
            return hfft__fail(HFFT_ERR_INVALID_ARGUMENT, "n[%d] = %lld: sizes must be positive",
                              k, (long long)n[k]);
    /* real side: rows of n reals, or 2 (n/2 + 1) when in place; complex side n/2 + 1 */
    int64_t last = n[rank - 1], half = last / 2 + 1, padded;
    if (hfft__mul_overflows(half, 2, &padded))
        return hfft__fail(HFFT_ERR_INVALID_ARGUMENT, "element count overflows 64 bits");
    int64_t cs = 1, rs = 1;
    for (int k = rank - 1; k >= 0; k--) {
        int64_t cn = kind == HFFT__C2C || k < rank - 1 ? n[k] : half;
        int64_t rn = k < rank - 1 ? n[k] : inplace ? padded : last;
        int64_t real = kind == HFFT__C2C ? cs : rs;
        dims[k].n = n[k];
        dims[k].is = kind == HFFT__C2R ? cs : real;
        dims[k].os = kind == HFFT__R2C ? cs : real;
        if (hfft__mul_overflows(cs, cn, &cs) || hfft__mul_overflows(rs, rn, &rs))
            return hfft__fail(HFFT_ERR_INVALID_ARGUMENT, "element count overflows 64 bits");
    }
    return 0;
}

int hfft__dims_many(int kind, int rank, const int64_t *n, int64_t howmany, const int64_t *inembed,
                    int64_t istride, int64_t idist, const int64_t *onembed, int64_t ostride,
                    int64_t odist, hfft_iodim *dims, hfft_iodim *hdim) {
    if (kind == HFFT__R2R)
        kind = HFFT__C2C;
    if (rank < 1 || rank > HFFT__MAX_DIMS)
        return hfft__fail(HFFT_ERR_INVALID_ARGUMENT, "rank %d: must be 1 to %d", rank,
                          HFFT__MAX_DIMS);
    if (!n)
        return hfft__fail(HFFT_ERR_INVALID_ARGUMENT, "sizes: NULL");
    if (howmany < 0)
        return hfft__fail(HFFT_ERR_INVALID_ARGUMENT, "howmany %lld is negative",
                          (long long)howmany);
    /* FFTW: embed NULL means n itself, and for the halved dimension of r2c and c2r
       the complex side's n/2 + 1 (the real side keeps n). */
    int64_t is = istride, os = ostride;
    for (int k = rank - 1; k >= 0; k--) {
        if (n[k] < 1)
            return hfft__fail(HFFT_ERR_INVALID_ARGUMENT, "n[%d] = %lld: sizes must be positive",
                              k, (long long)n[k]);
        int64_t half = k == rank - 1 && kind != HFFT__C2C ? n[k] / 2 + 1 : n[k];
        int64_t ie = inembed ? inembed[k] : kind == HFFT__C2R ? half : n[k];
        int64_t oe = onembed ? onembed[k] : kind == HFFT__R2C ? half : n[k];
        if (k > 0 && (ie < 1 || oe < 1))
            return hfft__fail(HFFT_ERR_INVALID_ARGUMENT,
                              "embed of dimension %d (%lld, %lld): must be positive", k,
                              (long long)ie, (long long)oe);
        dims[k] = (hfft_iodim){n[k], is, os};
        if (hfft__mul_overflows(is, ie, &is) || hfft__mul_overflows(os, oe, &os))
            return hfft__fail(HFFT_ERR_INVALID_ARGUMENT, "strides overflow 64 bits");
    }
    *hdim = (hfft_iodim){howmany, idist, odist};
    return 0;
}

/* ---- the guru problem, checked ---- */

/* Lowest and highest element offset a layout reaches (strides of side `out`). */
static int span(const hfft__dim *d, int nd, int out, int64_t *lo, int64_t *hi) {
    *lo = *hi = 0;
    for (int k = 0; k < nd; k++) {
        int64_t s = out ? d[k].os : d[k].is, reach;
        if (d[k].n == 0)
            continue;
        if (hfft__mul_overflows(d[k].n - 1, s, &reach))
            return -1;
        if (reach < 0) {
            if (__builtin_add_overflow(*lo, reach, lo))
                return -1;
        } else if (__builtin_add_overflow(*hi, reach, hi)) {
            return -1;
        }
    }
    return 0;
}

static int cmp_i64(const void *a, const void *b) {
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/*
 * Whether offsets sum_k i_k s_k (0 <= i_k < n_k; strides positive, sizes above
 * one) repeat, for layouts too large to enumerate: 0 where they provably do not,
 * 1 where they may.  Nested strides (each beyond the reach of the smaller ones,
 * as every dense, padded or transposed layout) never repeat.  Otherwise, with m
 * the smallest stride: the dimensions whose strides m does not divide decide
 * an offset's residue mod m; where their index tuples give distinct residues,
 * two equal offsets have equal such tuples, and only the dimensions of strides
 * m divides remain to check (strides 2 and 3 say so at once).
 */
static int lattice_may_repeat(int64_t *s, int64_t *n, int k) {
    for (int i = 1; i < k; i++)
        for (int j = i; j > 0 && s[j] < s[j - 1]; j--) {
            int64_t t = s[j]; s[j] = s[j - 1]; s[j - 1] = t;
            t = n[j]; n[j] = n[j - 1]; n[j - 1] = t;
        }
    int64_t reach = 0;
    int nested = 1;
    for (int i = 0; i < k && nested; i++) {
        nested = s[i] > reach;
        reach += (n[i] - 1) * s[i];
    }
    if (nested)
        return 0;
    int64_t m = s[0], tuples = 1;
    int nf = 0, nc = 0;
    int64_t fs[HFFT__MAX_DIMS * 2 + 1], fn[HFFT__MAX_DIMS * 2 + 1];
    int64_t cs[HFFT__MAX_DIMS * 2 + 1], cn[HFFT__MAX_DIMS * 2 + 1];
    for (int i = 0; i < k; i++) {
        if (s[i] % m) {
            fs[nf] = s[i];
            fn[nf++] = n[i];
            if (hfft__mul_overflows(tuples, n[i], &tuples) || tuples > m)
                return 1; /* more tuples than residues: some share one */
        } else {
            cs[nc] = s[i];
            cn[nc++] = n[i];
        }
    }
    if (nf == 0 || tuples > (1 << 20))
        return 1;
    int64_t *res = malloc((size_t)tuples * sizeof *res);
    if (!res)
        return 1;
    int64_t idx[HFFT__MAX_DIMS * 2 + 1] = {0};
    for (int64_t t = 0; t < tuples; t++) {
        __int128 r = 0;
        for (int i = 0; i < nf; i++)
            r += (__int128)idx[i] * fs[i];
        res[t] = (int64_t)(r % m);
        for (int i = nf - 1; i >= 0 && ++idx[i] == fn[i]; i--)
            idx[i] = 0;
    }
    qsort(res, (size_t)tuples, sizeof *res, cmp_i64);
    int repeat = 0;
    for (int64_t t = 1; t < tuples && !repeat; t++)
        repeat = res[t] == res[t - 1];
    free(res);
    return repeat ? 1 : lattice_may_repeat(cs, cn, nc);
}

/*
 * Whether the output layout writes some element twice.  Small layouts are
 * enumerated; large ones must be proven free of repeats (lattice_may_repeat).
 * Returns 0 (no alias), 1 (alias) or a status.
 */
static int output_aliases(const hfft__dim *d, int nd, int64_t count) {
    if (count <= EXACT_ALIAS_CHECK) {
        int64_t *off = malloc((size_t)(count > 0 ? count : 1) * sizeof *off);
        if (!off)
            return hfft__fail(HFFT_ERR_HOST_MEMORY, "plan: out of memory");
        int64_t idx[HFFT__MAX_DIMS * 2 + 1] = {0}, n = 0;
        for (;;) {
            int64_t o = 0;
            for (int k = 0; k < nd; k++)
                o += idx[k] * d[k].os;
            off[n++] = o;
            int k = nd - 1;
            while (k >= 0 && ++idx[k] == d[k].n)
                idx[k--] = 0;
            if (k < 0 || n == count)
                break;
        }
        qsort(off, (size_t)n, sizeof *off, cmp_i64);
        int alias = 0;
        for (int64_t i = 1; i < n && !alias; i++)
            alias = off[i] == off[i - 1];
        free(off);
        return alias;
    }
    int64_t s[HFFT__MAX_DIMS * 2 + 1], m[HFFT__MAX_DIMS * 2 + 1];
    int k = 0;
    for (int i = 0; i < nd; i++) {
        if (d[i].n <= 1)
            continue;
        if (d[i].os == 0)
            return 1;
        s[k] = d[i].os < 0 ? -d[i].os : d[i].os;
        m[k++] = d[i].n;
    }
    return lattice_may_repeat(s, m, k);
}

/* In place, element k of the complex side overlays reals 2k and 2k + 1 in FFTW's
   padded layout: the real stride of every dimension is twice the complex one, except
   along the halved dimension, where both step one element of their own kind.  Other
   in-place layouts (a vector dimension of stride one on both sides, as FFTW's tests
   make) are valid too; they are not one dense array, and FFTW plans them whole. */
static int padded_inplace_real(const hfft__problem *pb) {
    int real_in = pb->kind == HFFT__R2C;
    for (int k = 0; k < pb->rank + pb->hrank; k++) {
        const hfft__dim *d = k < pb->rank ? &pb->dims[k] : &pb->hdims[k - pb->rank];
        int64_t r = real_in ? d->is : d->os, c = real_in ? d->os : d->is;
        int64_t want = k == pb->rank - 1 ? c : 2 * c;
        if (d->n > 1 && r != want)
            return 0;
    }
    return 1;
}

int hfft__problem_split_alias(const hfft__problem *pb, void *const out[2]) {
    /* Arrays whose spans do not meet share nothing.  Else the two arrays as one
       layout with a dimension of two more: imaginary parts `delta` reals after the
       real ones (reals not a whole number apart share no element unless the spans
       meet, which they do here). */
    const char *a = out[0], *b = out[1];
    if (!(a + pb->lo[1] < b + pb->hi[1] && b + pb->lo[1] < a + pb->hi[1]))
        return 0;
    ptrdiff_t bytes = b - a;
    if (bytes % pb->prec)
        return 1;
    hfft__dim d[HFFT__MAX_DIMS * 2 + 1];
    int nd = 0;
    int64_t count = 2;
    for (int k = 0; k < pb->rank + pb->hrank; k++, nd++) {
        d[nd] = k < pb->rank ? pb->dims[k] : pb->hdims[k - pb->rank];
        if (k == pb->rank - 1 && pb->kind == HFFT__R2C)
            d[nd].n = d[nd].n / 2 + 1;
        if (hfft__mul_overflows(count, d[nd].n, &count))
            count = INT64_MAX;
    }
    d[nd++] = (hfft__dim){2, 0, (int64_t)(bytes / pb->prec)};
    return output_aliases(d, nd, count);
}

/* The rank, the kind and the sign, before any dimension is read. */
static int check_form(int kind, int rank, const hfft_iodim *dims, int hrank,
                      const hfft_iodim *hdims, int sign) {
    if (rank < 0 || rank > HFFT__MAX_DIMS)
        return hfft__fail(HFFT_ERR_INVALID_ARGUMENT, "rank %d: must be 0 to %d", rank,
                          HFFT__MAX_DIMS);
    if (hrank < 0 || hrank > HFFT__MAX_DIMS)
        return hfft__fail(HFFT_ERR_INVALID_ARGUMENT, "howmany_rank %d: must be 0 to %d", hrank,
                          HFFT__MAX_DIMS);
    if ((rank && !dims) || (hrank && !hdims))
        return hfft__fail(HFFT_ERR_INVALID_ARGUMENT, "dimensions: NULL");
    if ((kind == HFFT__R2C || kind == HFFT__C2R) && rank < 1)
        return hfft__fail(HFFT_ERR_INVALID_ARGUMENT, "a real transform needs rank 1 or more");
    if (kind == HFFT__C2C && sign != HFFT_FORWARD && sign != HFFT_BACKWARD)
        return hfft__fail(HFFT_ERR_INVALID_ARGUMENT, "sign %d: use HFFT_FORWARD or HFFT_BACKWARD",
                          sign);
    return 0;
}

/* The dimensions into pb, with the counts of elements and of transforms and the
   complex side's bytes, each of which must fit 64 bits. */
static int take_dims(hfft__problem *pb, const hfft_iodim *dims, const hfft_iodim *hdims) {
    pb->total = 1;
    pb->howmany = 1;
    for (int k = 0; k < pb->rank; k++) {
        if (dims[k].n < 1)
            return hfft__fail(HFFT_ERR_INVALID_ARGUMENT, "n[%d] = %lld: sizes must be positive",
                              k, (long long)dims[k].n);
        pb->dims[k] = (hfft__dim){dims[k].n, dims[k].is, dims[k].os};
        pb->n[k] = dims[k].n;
        int64_t c = k == pb->rank - 1 && hfft__halved(pb->kind) ? dims[k].n / 2 + 1 : dims[k].n;
        if (hfft__mul_overflows(pb->total, c, &pb->total))
            return hfft__fail(HFFT_ERR_INVALID_ARGUMENT, "element count overflows 64 bits");
    }
    for (int k = 0; k < pb->hrank; k++) {
        if (hdims[k].n < 0)
            return hfft__fail(HFFT_ERR_INVALID_ARGUMENT,
                              "howmany_dims[%d].n = %lld: vector sizes must be 0 or more", k,
                              (long long)hdims[k].n);
        pb->hdims[k] = (hfft__dim){hdims[k].n, hdims[k].is, hdims[k].os};
        if (hfft__mul_overflows(pb->howmany, hdims[k].n, &pb->howmany))
            return hfft__fail(HFFT_ERR_INVALID_ARGUMENT, "transform count overflows 64 bits");
    }
    int64_t bytes;
    if (hfft__mul_overflows(pb->total, pb->howmany, &pb->total) ||
        hfft__mul_overflows(pb->total, (int64_t)pb->esize, &bytes))
        return hfft__fail(HFFT_ERR_INVALID_ARGUMENT,
                          "the complex side's byte count overflows 64 bits");
    return 0;
}

/* Each side's dimensions, transform then vector ones, into side[0] (input) and side[1]
   (output): the halved one holds n reals on the real side and n/2 + 1 elements on the
   complex side.  Returns how many. */
static int side_dims(const hfft__problem *pb, hfft__dim side[2][HFFT__MAX_DIMS * 2]) {
    int nd = 0;
    for (int k = 0; k < pb->rank + pb->hrank; k++, nd++) {
        side[0][nd] = side[1][nd] = k < pb->rank ? pb->dims[k] : pb->hdims[k - pb->rank];
        if (k == pb->rank - 1 && hfft__halved(pb->kind))
            side[pb->kind == HFFT__R2C ? 1 : 0][nd].n = pb->dims[k].n / 2 + 1;
    }
    return nd;
}

/* Each side's byte span (pb->lo, pb->hi), which must fit 64 bits, and arrays of the
   two sides that meet only where they are one array (in place). */
static int check_spans(hfft__problem *pb, const hfft__dim *in_side, const hfft__dim *out_side,
                       int nd, void *const in[2], void *const out[2]) {
    size_t isz = pb->split_in || pb->kind == HFFT__R2C ? (size_t)pb->prec : pb->esize;
    size_t osz = pb->split_out || pb->kind == HFFT__C2R ? (size_t)pb->prec : pb->esize;
    /* (r2r: esize is a real's) */
    int64_t lo[2], hi[2], bytes;
    if (span(in_side, nd, 0, &lo[0], &hi[0]) || span(out_side, nd, 1, &lo[1], &hi[1]) ||
        hfft__mul_overflows(hi[0] - lo[0] + 1, (int64_t)isz, &bytes) ||
        hfft__mul_overflows(hi[1] - lo[1] + 1, (int64_t)osz, &bytes))
        return hfft__fail(HFFT_ERR_INVALID_ARGUMENT, "the arrays' byte spans overflow 64 bits");
    pb->lo[0] = lo[0] * (int64_t)isz;
    pb->hi[0] = (hi[0] + 1) * (int64_t)isz;
    pb->lo[1] = lo[1] * (int64_t)osz;
    pb->hi[1] = (hi[1] + 1) * (int64_t)osz;
    for (int a = 0; a < 2 && !pb->inplace; a++) {
        for (int b = 0; b < 2; b++) {
            const char *x = in[a], *y = out[b];
            if (!x || !y)
                continue;
            const char *x0 = x + lo[0] * (int64_t)isz, *x1 = x + (hi[0] + 1) * (int64_t)isz;
            const char *y0 = y + lo[1] * (int64_t)osz, *y1 = y + (hi[1] + 1) * (int64_t)osz;
            if (x0 < y1 && y0 < x1)
                return hfft__fail(HFFT_ERR_INVALID_ARGUMENT,
                                  "input and output overlap partially: use the same array for "
                                  "in-place");
        }
    }
    return 0;
}

/* Output strides (out_side's), and split output arrays, that write no element twice. */
static int check_output_once(const hfft__problem *pb, const hfft__dim *out_side, int nd,
                             void *const out[2]) {
    int64_t outputs = 1;
    for (int k = 0; k < nd; k++)
        if (hfft__mul_overflows(outputs, out_side[k].n, &outputs))
            outputs = INT64_MAX;
    int alias = output_aliases(out_side, nd, outputs);
    if (alias < 0)
        return alias;
    if (alias)
        return hfft__fail(HFFT_ERR_INVALID_ARGUMENT,
                          "the output strides write some element twice (they alias)");
    if (pb->split_out && (alias = hfft__problem_split_alias(pb, out)) != 0)
        return alias < 0 ? alias
                         : hfft__fail(HFFT_ERR_INVALID_ARGUMENT,
                                      "split outputs: the real and imaginary arrays share "
                                      "elements");
    return 0;
}

int hfft__problem_make(hfft__problem *pb, int kind, int prec, int rank, const hfft_iodim *dims,
                       int hrank, const hfft_iodim *hdims, void *const in[2], void *const out[2],
                       int sign) {
    memset(pb, 0, sizeof *pb);
    HFFT__TRY(check_form(kind, rank, dims, hrank, hdims, sign));
    pb->kind = kind;
    pb->prec = prec;
    pb->esize = (kind == HFFT__R2R ? 1u : 2u) * (size_t)prec;
    pb->sign = kind == HFFT__R2C || kind == HFFT__R2R ? HFFT_FORWARD
               : kind == HFFT__C2R                   ? HFFT_BACKWARD
                                                     : sign;
    pb->rank = rank;
    pb->hrank = hrank;
    HFFT__TRY(take_dims(pb, dims, hdims));
    pb->split_in = in[1] != NULL;
    pb->split_out = out[1] != NULL;
    pb->in[0] = in[0];
    pb->in[1] = in[1];
    pb->out[0] = out[0];
    pb->out[1] = out[1];
    if (pb->howmany == 0)
        return 0; /* nothing to transform: nothing is read or written */
    if (!in[0] || !out[0])
        return hfft__fail(HFFT_ERR_INVALID_ARGUMENT, "%s array is NULL", !in[0] ? "input" : "output");
    pb->inplace = in[0] == out[0];
    /* A complex split transform is in place in both parts or in neither; an r2c has
       no imaginary input and a c2r no imaginary output, so only their real parts can
       share an array. */
    if (pb->inplace && kind == HFFT__C2C && in[1] != out[1])
        return hfft__fail(HFFT_ERR_INVALID_ARGUMENT,
                          "split arrays: the real parts are in place, the imaginary parts not");
    hfft__dim side[2][HFFT__MAX_DIMS * 2];
    int nd = side_dims(pb, side);
    HFFT__TRY(check_spans(pb, side[0], side[1], nd, in, out));
    HFFT__TRY(check_output_once(pb, side[1], nd, out));
    if (pb->inplace && hfft__halved(kind))
        pb->unpadded = !padded_inplace_real(pb);
    return 0;
}

int hfft__problem_dense(const hfft__problem *pb, hfft__dense *dn) {
    memset(dn, 0, sizeof *dn);
    if (pb->kind == HFFT__R2R || pb->split_in || pb->split_out || pb->unpadded || pb->howmany == 0 || pb->rank == 0)
        return 0;
    /* Dimensions with their complex-side strides (both sides alike for c2c), largest first. */
    struct {
        int64_t n, s, rs; /* size, complex stride, real stride */
        int t;
    } v[HFFT__MAX_DIMS * 2];
    int nv = 0, real_in = pb->kind == HFFT__R2C, halved = pb->rank - 1;
    for (int k = 0; k < pb->rank + pb->hrank; k++) {
        const hfft__dim *d = k < pb->rank ? &pb->dims[k] : &pb->hdims[k - pb->rank];
        int64_t n = d->n;
        if (pb->kind != HFFT__C2C && k == halved)
            n = d->n / 2 + 1;
        if (n == 1 && !(pb->kind != HFFT__C2C && k == halved))
            continue;
        int64_t cs = pb->kind == HFFT__C2C ? d->is : real_in ? d->os : d->is;
        int64_t rs = pb->kind == HFFT__C2C ? d->os : real_in ? d->is : d->os;
        if (pb->kind == HFFT__C2C && d->is != d->os)
            return 0;
        if (cs <= 0 || rs <= 0)
            return 0;
        v[nv].n = n;
        v[nv].s = cs;
        v[nv].rs = rs;
        v[nv].t = k < pb->rank;
        nv++;
    }
    if (nv > HFFT__MAX_DIMS)
        return 0; /* more dimensions above size one than a dense form holds */
    if (nv == 0) {
        /* every size is one: a length-1 transform (a copy) */
        v[0].n = v[0].s = v[0].rs = 1;
        v[0].t = 1;
        nv = 1;
    }
    for (int i = 1; i < nv; i++)
        for (int j = i; j > 0 && v[j].s > v[j - 1].s; j--) {
            __typeof__(v[0]) t = v[j];
            v[j] = v[j - 1];
            v[j - 1] = t;
        }
    /* The halved dimension must be the innermost, contiguous on both sides. */
    if (pb->kind != HFFT__C2C) {
        const hfft__dim *h = &pb->dims[halved];
        int64_t cs = real_in ? h->os : h->is, rs = real_in ? h->is : h->os;
        if (nv == 0 || cs != 1 || rs != 1 || v[nv - 1].s != 1)
            return 0;
        dn->nreal = h->n;
        dn->rpitch = nv > 1 ? v[nv - 2].rs : h->n;
        if (dn->rpitch < h->n)
            return 0;
    }
    int64_t expect = 1;
    for (int i = nv - 1; i >= 0; i--) {
        if (v[i].s != expect)
            return 0;
        /* the real side: rows of rpitch reals, the same shape above them */
        if (pb->kind != HFFT__C2C && i < nv - 1 && v[i].rs != v[i].s / v[nv - 1].n * dn->rpitch)
            return 0;
        if (pb->kind != HFFT__C2C && i < nv - 1 && v[i].s % v[nv - 1].n)
            return 0;
        expect *= v[i].n;
    }
    dn->ndim = nv;
    for (int i = 0; i < nv; i++) {
        dn->d[i] = v[i].n;
        if (v[i].t)
            dn->tmask |= 1u << i;
    }
    /* Every transformed size is one (a copy of each vector element): one
       transformed dimension of size one below the batch, so that a round still
       reads every element and writes it to the output. */
    if (!dn->tmask) {
        if (nv >= HFFT__MAX_DIMS)
            return 0;
        dn->d[dn->ndim++] = 1;
        dn->tmask = 1u << nv;
    }
    return 1;
}

static hfft__round round_of(int rank, int64_t L, int64_t p0, int64_t p1, int64_t s, int64_t ni,
                            int64_t no, int64_t dout) {
    hfft__round r;
    memset(&r, 0, sizeof r);
    r.rank = rank;
    r.L = L;
    r.n2[0] = p0;
    r.n2[1] = p1;
    r.s = s;
    r.ni = ni;
    r.no = no;
    r.dout = dout;
    return r;
}

int hfft__problem_chirp_dims(const hfft__problem *pb) {
    for (int k = 0; pb->prec == 8 && k < pb->rank; k++)
        if (hfft__chirp_wants(pb->n[k], HFFT__CHIRP_FFTW))
            return 1;
    return 0;
}

/* The complex rounds of dimensions [0, end) of a dense shape. */
static int complex_rounds(const hfft__dense *dn, int end, int split_planes, hfft__round *r,
                          int nr) {
    for (int k = 0; k < end; k++) {
        if (!(dn->tmask >> k & 1u))
            continue;
        int64_t outer = 1, inner = 1;
        for (int i = 0; i < k; i++)
            outer *= dn->d[i];
        for (int i = k + 1; i < dn->ndim; i++)
            inner *= dn->d[i];
        if (nr == HFFT__MAX_ROUNDS)
            return hfft__fail(HFFT_ERR_UNSUPPORTED, "more than %d rounds", HFFT__MAX_ROUNDS);
        /* The last two dimensions, both transformed and below a strided round, make
           one round of contiguous planes. */
        if (!split_planes && k >= 1 && k == dn->ndim - 2 && end == dn->ndim &&
            (dn->tmask >> (k + 1) & 1u)) {
            int64_t plane = dn->d[k] * dn->d[k + 1];
            r[nr] = round_of(2, plane, dn->d[k], dn->d[k + 1], 1, 1, outer, plane);
            r[nr++].dim = k;
            break;
        }
        if (inner == 1)
            r[nr] = round_of(1, dn->d[k], 0, 0, 1, 1, outer, dn->d[k]);
        else
            r[nr] = round_of(1, dn->d[k], 0, 0, inner, inner, outer, dn->d[k] * inner);
        r[nr++].dim = k;
    }
    return nr;
}

/* The largest divisor of n at most sqrt(n): the contiguous length n1 of a
   four-step split n = n0 n1 (1 where n is prime).  It depends on n alone, so
   that the plans of both directions agree on the transposed order. */
int64_t hfft__split_n1(int64_t n) {
    int64_t best = 1;
    for (int64_t d = 1; d * d <= n; d++)
        if (n % d == 0)
            best = d;
    return best;
}

/* The four-step rounds of the last dimension (length n = n0 n1, `outer` lines). */
static int four_step(int64_t n, int64_t outer, int order, hfft__round *r, int nr) {
    int64_t n1 = hfft__split_n1(n), n0 = n / n1;
    if (nr + 2 > HFFT__MAX_ROUNDS)
        return hfft__fail(HFFT_ERR_UNSUPPORTED, "more than %d rounds", HFFT__MAX_ROUNDS);
    hfft__round cols = round_of(1, n0, 0, 0, n1, n1, outer, n);
    hfft__round rows = round_of(1, n1, 0, 0, 1, 1, outer * n0, n1);
    rows.tper = n0;
    if (order == HFFT__ORDER_TRANSPOSED_IN) {
        /* rows (in transposed order) with the twiddles, then the columns: natural out */
        rows.twn = n;
        r[nr++] = rows;
        r[nr++] = cols;
        return nr;
    }
    cols.twn = n;
    if (order == HFFT__ORDER_NATURAL) {
        cols.dst_mid = 1;
        rows.src_mid = 1;
        rows.tout = 1;
    }
    r[nr++] = cols;
    r[nr++] = rows;
    return nr;
}

int hfft__dense_rounds(const hfft__dense *dn, int kind, int split_planes, int split_line,
                       hfft__round *r) {
    memset(r, 0, HFFT__MAX_ROUNDS * sizeof *r);
    int m = dn->ndim;
    if (kind == HFFT__C2C && split_line && (dn->tmask >> (m - 1) & 1u)) {
        int64_t outer = 1;
        for (int i = 0; i < m - 1; i++)
            outer *= dn->d[i];
        int nr = complex_rounds(dn, m - 1, 1, r, 0);
        return nr < 0 ? nr : four_step(dn->d[m - 1], outer, split_line, r, nr);
    }
    if (kind == HFFT__C2C)
        return complex_rounds(dn, dn->ndim, split_planes, r, 0);
    /* The real round: rows of the last dimension, or planes of the last two where
       both are transformed below a strided round. */
    int planes = !split_planes && m >= 3 && (dn->tmask >> (m - 2) & 1u);
    int64_t half = dn->d[m - 1], outer = 1;
    for (int i = 0; i < m - (planes ? 2 : 1); i++)
        outer *= dn->d[i];
    hfft__round real;
    if (planes)
        real = round_of(2, dn->d[m - 2] * half, dn->d[m - 2], dn->nreal, 1, 1, outer,
                        dn->d[m - 2] * half);
    else
        real = round_of(1, dn->nreal, 0, 0, 1, 1, outer, half);
    real.kind = kind;
    real.nreal = dn->nreal;
    real.rpitch = dn->rpitch;
    int end = m - (planes ? 2 : 1), nr = 0;
    if (kind == HFFT__R2C)
        r[nr++] = real;
    nr = complex_rounds(dn, end, split_planes, r, nr);
    if (nr >= 0 && kind == HFFT__C2R) {
        if (nr == HFFT__MAX_ROUNDS)
            return hfft__fail(HFFT_ERR_UNSUPPORTED, "more than %d rounds", HFFT__MAX_ROUNDS);
        r[nr++] = real;
    }
    return nr;
}

/* ---- real-to-real problems ---- */

int hfft__problem_r2r(hfft__problem *pb, const int *kinds) {
    if (pb->rank && !kinds)
        return hfft__fail(HFFT_ERR_INVALID_ARGUMENT, "r2r kinds: NULL");
    for (int k = 0; k < pb->rank; k++) {
        if (kinds[k] < HFFT_R2HC || kinds[k] > HFFT_RODFT11)
            return hfft__fail(HFFT_ERR_INVALID_ARGUMENT,
                              "kind[%d] = %d: not an hfft_r2r_kind (0 to %d)", k, kinds[k],
                              HFFT_RODFT11);
        if (kinds[k] == HFFT_REDFT00 && pb->dims[k].n < 2)
            return hfft__fail(HFFT_ERR_INVALID_ARGUMENT,
                              "kind[%d] REDFT00 (DCT-I) on n = %lld: it needs n >= 2", k,
                              (long long)pb->dims[k].n);
        pb->r2r[k] = kinds[k];
    }
    return 0;
}

/* Kinds that leave a single point as it is (the others scale it: REDFT10 by 2). */
static int r2r_one_is_copy(int kind) {
    return kind == HFFT_R2HC || kind == HFFT_HC2R || kind == HFFT_DHT || kind == HFFT_REDFT01 ||
           kind == HFFT_RODFT01;
}

int hfft__problem_r2r_view(const hfft__problem *pb, hfft__problem *view, int *kinds, int *row) {
    if (pb->kind != HFFT__R2R || pb->split_in || pb->split_out || pb->howmany == 0 ||
        pb->rank == 0)
        return 0;
    int any = 0;
    for (int k = 0; k < pb->rank; k++) {
        if (pb->dims[k].n == 1 && !r2r_one_is_copy(pb->r2r[k]))
            return 0; /* a scale, which the dense form (it drops sizes of one) would lose */
        any |= pb->dims[k].n > 1;
    }
    if (!any)
        return 0;
    hfft__problem real = *pb;
    real.kind = HFFT__C2C; /* strides in reals: the dense form of the real array */
    hfft__dense dn;
    if (!hfft__problem_dense(&real, &dn))
        return 0;
    int m = dn.ndim;
    int64_t last = dn.d[m - 1];
    *row = dn.tmask >> (m - 1) & 1u;
    if (last % 2 || (*row && last < 4))
        return 0;
    /* each dense dimension's problem dimension: the transformed one of its size and
       stride (strides of dimensions above size one differ in a dense array) */
    hfft_iodim td[HFFT__MAX_DIMS], hd[HFFT__MAX_DIMS];
    int nt = 0, nh = 0;
    int64_t stride = 1;
    for (int i = m - 1; i >= 0; i--) {
        int64_t n = i == m - 1 ? last / 2 : dn.d[i], cs = i == m - 1 ? 1 : stride / 2;
        stride *= dn.d[i];
        if (!(dn.tmask >> i & 1u)) {
            hd[nh++] = (hfft_iodim){n, cs, cs};
            continue;
        }
        int kind = -1;
        int64_t rs = i == m - 1 ? 1 : cs * 2;
        for (int k = 0; k < pb->rank && kind < 0; k++)
            if (pb->dims[k].n == dn.d[i] && pb->dims[k].is == rs)
                kind = pb->r2r[k];
        if (kind < 0)
            return 0;
        kinds[i] = kind;
        td[nt++] = (hfft_iodim){n, cs, cs};
    }
    /* slowest first, as the guru interface takes them */
    for (int a = 0, b = nt - 1; a < b; a++, b--) {
        hfft_iodim t = td[a];
        td[a] = td[b];
        td[b] = t;
    }
    for (int a = 0, b = nh - 1; a < b; a++, b--) {
        hfft_iodim t = hd[a];
        hd[a] = hd[b];
        hd[b] = t;
    }
    void *in[2] = {pb->in[0], NULL}, *out[2] = {pb->out[0], NULL};
    if (hfft__problem_make(view, HFFT__C2C, pb->prec, nt, td, nh, hd, in, out, HFFT_FORWARD)) {
        hfft__clear_error();
        return 0;
    }
    hfft__dense vd;
    /* the view's dense form is the real one's, the innermost size halved (a batch of
       one pair dropped) */
    if (!hfft__problem_dense(view, &vd) || vd.ndim < m - 1 || vd.ndim > m)
        return 0;
    for (int i = 0; i < vd.ndim; i++)
        if (vd.d[i] != (i == m - 1 ? last / 2 : dn.d[i]) || ((vd.tmask ^ dn.tmask) >> i & 1u))
            return 0;
    return 1;
}

void hfft__r2r_codes(hfft__round *r, int nr, int ndim, const int *kinds, int row) {
    for (int h = 0; h < nr; h++) {
        int d = r[h].dim, second = r[h].rank == 2;
        int innermost = (second ? d + 1 : d) == ndim - 1;
        r[h].r2r = second ? hfft__r2r_code(kinds[d], kinds[d + 1], row && innermost)
                          : hfft__r2r_code(kinds[d], 0, row && innermost);
    }
}
