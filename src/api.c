/*
 * api.c: the public entry points, written once and compiled per precision
 * (HFFT_SINGLE selects hfftf_ and float).  Each is a thin shell over the
 * precision-neutral plan code in plan.c.
 */
#include <stdint.h>
#include <string.h>

#include "src/core/status.h"
#include "src/plan.h"

#ifdef HFFT_SINGLE
#define X(name) hfftf_##name
#define PREC 4
#else
#define X(name) hfft_##name
#define PREC 8
#endif

/* The public plan type wraps the internal plan; the two pointers convert. */
struct X(plan_s) {
    hfft__plan impl;
};

static X(plan) wrap(hfft__plan *p) { return (X(plan))(void *)p; }
static hfft__plan *unwrap(X(plan) p) { return (hfft__plan *)(void *)p; }

X(plan) X(plan_dft)(int rank, const int64_t *n, X(complex) *in, X(complex) *out, int sign,
                    unsigned flags, const hfft_options *opts) {
    return wrap(hfft__plan_create(PREC, rank, n, in, out, sign, flags, opts));
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

int X(execute)(X(plan) p) {
    if (!p)
        return hfft__fail(HFFT_ERR_INVALID_ARGUMENT, "execute: NULL plan");
    hfft__plan *q = unwrap(p);
    return hfft__plan_execute(q, q->in, q->out);
}

int X(execute_dft)(X(plan) p, X(complex) *in, X(complex) *out) {
    if (!p)
        return hfft__fail(HFFT_ERR_INVALID_ARGUMENT, "execute_dft: NULL plan");
    hfft__plan *q = unwrap(p);
    if (!in || !out)
        return hfft__fail(HFFT_ERR_INVALID_ARGUMENT, "execute_dft: NULL array");
    if ((in == out) != (q->in == q->out))
        return hfft__fail(HFFT_ERR_INVALID_ARGUMENT,
                          "execute_dft: the plan is %s; the arrays must be too",
                          q->in == q->out ? "in-place" : "out-of-place");
    if (((uintptr_t)in & 63u) != ((uintptr_t)q->in & 63u) ||
        ((uintptr_t)out & 63u) != ((uintptr_t)q->out & 63u))
        return hfft__fail(HFFT_ERR_INVALID_ARGUMENT,
                          "execute_dft: the arrays must have the plan's alignment (mod 64 bytes)");
    if (in != out) {
        size_t bytes = (size_t)q->total * q->esize;
        uintptr_t a = (uintptr_t)in, b = (uintptr_t)out;
        if (a < b + bytes && b < a + bytes)
            return hfft__fail(HFFT_ERR_INVALID_ARGUMENT, "execute_dft: input and output overlap");
    }
    if ((in != q->in || out != q->out) && q->gpu)
        return hfft__fail(HFFT_ERR_UNSUPPORTED,
                          "execute_dft: a plan that uses the GPU runs on the arrays it was made "
                          "for (they are pinned for it); make a plan for these arrays");
    return hfft__plan_execute(q, in, out);
}

void X(destroy_plan)(X(plan) p) { hfft__plan_destroy(unwrap(p)); }

int X(plan_info)(X(plan) p, hfft_info *info) {
    if (!p || !info)
        return hfft__fail(HFFT_ERR_INVALID_ARGUMENT, "plan_info: NULL argument");
    *info = unwrap(p)->info;
    return 0;
}

void *X(malloc)(size_t bytes) { return hfft__malloc(bytes); }

X(complex) *X(alloc_complex)(size_t count) {
    if (count > SIZE_MAX / sizeof(X(complex))) {
        hfft__fail(HFFT_ERR_INVALID_ARGUMENT, "alloc_complex: %zu elements overflow size_t",
                   count);
        return NULL;
    }
    return hfft__malloc(count * sizeof(X(complex)));
}

void X(free)(void *p) { hfft__free(p); }
