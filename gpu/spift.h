/*
 * spift.h: a streaming image's arithmetic on a card (the HFFT__SPIFT_KEYS step
 * of src/core/device.h), written once for the CUDA kernel (__host__ __device__
 * under nvcc) and for the emulated device (plain C): what every pending key
 * adds at one image element.
 */
#ifndef HFFT_GPU_SPIFT_H
#define HFFT_GPU_SPIFT_H

#include <stdint.h>

#include "src/core/device.h"
#include "src/core/twiddle.h"

/* acc = the sum over the a->nk keys of what key q (vector v + q L) adds at image row j,
   column k. */
#define HFFT__DEFINE_SPIFT_AT(R, sfx)                                                        \
    HFFT__HD void hfft__spift_at_##sfx(const hfft__spift *a, const R *v, const R *tw,        \
                                       int64_t j, int64_t k, R *acc) {                       \
        int64_t L = a->L;                                                                    \
        uint64_t m = (uint64_t)L - 1;                                                        \
        R sr = 0, si = 0;                                                                    \
        for (int64_t q = 0; q < a->nk; q++) {                                                \
            const R *vq = v + 2 * q * L;                                                     \
            int64_t key = a->cell[q];                                                        \
            if (a->shift) {                                                                  \
                uint64_t i = key < L ? ((uint64_t)k + (uint64_t)key * (uint64_t)j) & m        \
                                     : ((uint64_t)j + (uint64_t)(key - L) * (uint64_t)k) & m; \
                sr += vq[2 * i];                                                             \
                si += vq[2 * i + 1];                                                         \
            } else {                                                                         \
                R pr = 1, pi = 0;                                                            \
                int64_t off = 0;                                                             \
                for (int d = 0; d < a->rank - 1; d++) {                                      \
                    int64_t jd = j / a->lead[d] % a->n[d];                                   \
                    const R *w = tw + 2 * (q * a->twn + off + jd);                           \
                    R r = pr * w[0] - pi * w[1];                                             \
                    pi = pr * w[1] + pi * w[0];                                              \
                    pr = r;                                                                  \
                    off += a->n[d];                                                          \
                }                                                                            \
                R xr = vq[2 * k], xi = vq[2 * k + 1];                                        \
                sr += xr * pr - xi * pi;                                                     \
                si += xr * pi + xi * pr;                                                     \
            }                                                                                \
        }                                                                                    \
        acc[0] = sr;                                                                         \
        acc[1] = si;                                                                         \
    }
HFFT__DEFINE_SPIFT_AT(float, f)
HFFT__DEFINE_SPIFT_AT(double, d)

/* Where a scatter's cell c goes on its card (HFFT__SPIFT_SCATTER), or -1: not there. */
HFFT__HD int64_t hfft__spift_cell(const hfft__spift *a, int64_t c) {
    if (a->parts <= 1)
        return c;
    int64_t u = c / a->plane;
    return u % a->parts == a->part ? u / a->parts * a->plane + c % a->plane : -1;
}

/* acc = what the HFFT__SPIFT_COMBINE step adds at element (r, k). */
#define HFFT__DEFINE_SPIFT_COMBINE_AT(R, sfx)                                                \
    HFFT__HD void hfft__spift_combine_at_##sfx(const hfft__spift *a, const R *src, int64_t r, \
                                               int64_t k, R *acc) {                          \
        double sr = 0, si = 0;                                                               \
        for (int64_t s = 0; s < a->nk; s++) {                                                \
            const R *x = src + 2 * ((s * a->rows + r) * a->L + k);                           \
            double wr, wi;                                                                   \
            hfft__twiddle(s * (a->row0 + r), a->n[0], a->sign, &wr, &wi);                    \
            sr += (double)x[0] * wr - (double)x[1] * wi;                                     \
            si += (double)x[0] * wi + (double)x[1] * wr;                                     \
        }                                                                                    \
        acc[0] = (R)sr;                                                                      \
        acc[1] = (R)si;                                                                      \
    }
HFFT__DEFINE_SPIFT_COMBINE_AT(float, f)
HFFT__DEFINE_SPIFT_COMBINE_AT(double, d)

#endif
