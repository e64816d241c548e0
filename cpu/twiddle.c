/*
 * twiddle.c: the CPU four-step's twiddle tables and the line rotation
 * (twiddle.h).
 */
#include <stdlib.h>

#include "cpu/twiddle.h"
#include "src/core/status.h"
#include "src/core/twiddle.h"

int hfft__twiddles_make(int64_t n, int sign, hfft__twiddles *t) {
    t->n = n;
    t->shift = 0;
    while (((int64_t)1 << (2 * t->shift)) < n)
        t->shift++;
    int64_t m1 = (int64_t)1 << t->shift, m2 = n / m1 + 1;
    t->lo = malloc((size_t)m1 * 2 * sizeof(double));
    t->hi = malloc((size_t)m2 * 2 * sizeof(double));
    if (!t->lo || !t->hi) {
        hfft__twiddles_free(t);
        return hfft__fail(HFFT_ERR_HOST_MEMORY, "four-step twiddle tables for a line of %lld",
                          (long long)n);
    }
    for (int64_t a = 0; a < m1; a++)
        hfft__twiddle(a, n, sign, &t->lo[2 * a], &t->lo[2 * a + 1]);
    for (int64_t b = 0; b < m2; b++)
        hfft__twiddle(b * m1, n, sign, &t->hi[2 * b], &t->hi[2 * b + 1]);
    return 0;
}

void hfft__twiddles_free(hfft__twiddles *t) {
    free(t->lo);
    free(t->hi);
    t->lo = t->hi = NULL;
}

/* The phase m = k j mod n advances by j mod n along the line, in integers. */
#define ROTATE(R)                                                                          \
    do {                                                                                   \
        R *v = x;                                                                          \
        uint64_t n = (uint64_t)t->n, step = (uint64_t)(j % t->n), m = 0;                   \
        uint64_t mask = ((uint64_t)1 << t->shift) - 1;                                     \
        for (int64_t k = 0; k < len; k++, v += 2 * stride) {                               \
            const double *a = t->hi + 2 * (m >> t->shift), *b = t->lo + 2 * (m & mask);    \
            double wr = a[0] * b[0] - a[1] * b[1], wi = a[0] * b[1] + a[1] * b[0];         \
            double xr = (double)v[0], xi = (double)v[1];                                   \
            v[0] = (R)(wr * xr - wi * xi);                                                 \
            v[1] = (R)(wr * xi + wi * xr);                                                 \
            m += step;                                                                     \
            if (m >= n)                                                                    \
                m -= n;                                                                    \
        }                                                                                  \
    } while (0)

void hfft__twiddles_rotate(const hfft__twiddles *t, int prec, void *x, int64_t len,
                           int64_t stride, int64_t j) {
    if (j % t->n == 0)
        return;
    if (prec == 4)
        ROTATE(float);
    else
        ROTATE(double);
}

void hfft__twiddles_vector(const hfft__twiddles *t, int64_t j, int64_t len, double *w) {
    uint64_t n = (uint64_t)t->n, step = (uint64_t)(j % t->n), m = 0;
    uint64_t mask = ((uint64_t)1 << t->shift) - 1;
    for (int64_t k = 0; k < len; k++) {
        const double *a = t->hi + 2 * (m >> t->shift), *b = t->lo + 2 * (m & mask);
        w[2 * k] = a[0] * b[0] - a[1] * b[1];
        w[2 * k + 1] = a[0] * b[1] + a[1] * b[0];
        m += step;
        if (m >= n)
            m -= n;
    }
}

#define APPLY(R)                                                            \
    do {                                                                    \
        R *v = x;                                                           \
        for (int64_t k = 0; k < len; k++) {                                 \
            double wr = w[2 * k], wi = w[2 * k + 1], xr = (double)v[2 * k], \
                   xi = (double)v[2 * k + 1];                               \
            v[2 * k] = (R)(wr * xr - wi * xi);                              \
            v[2 * k + 1] = (R)(wr * xi + wi * xr);                          \
        }                                                                   \
    } while (0)

void hfft__twiddles_apply(int prec, void *x, int64_t len, const double *w) {
    if (prec == 4)
        APPLY(float);
    else
        APPLY(double);
}
