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

#endif
