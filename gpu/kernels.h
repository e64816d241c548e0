/*
 * kernels.h: C entry points of the CUDA kernels in kernels.cu.  Each launches
 * on the given stream and returns the launch's cudaError_t as an int.
 */
#ifndef HFFT_KERNELS_H
#define HFFT_KERNELS_H

#include <stdint.h>

#include "src/core/device.h"

#ifdef __cplusplus
extern "C" {
#endif

/* a' = a + w b, b' = a - w b, w = exp(sign 2 pi i (k0 + row) / N), rows x width tiles. */
int hfft__cuda_radix2(int prec, void *stream, void *a, void *b, int64_t rows, int64_t width,
                      int64_t N, int64_t k0, int sign);
/* Radix-r DIT combination of r tiles (gpu/butterfly.h). */
int hfft__cuda_radixr(int prec, void *stream, void *const *blk, int r, int64_t rows,
                      int64_t width, int64_t L, int64_t k0, int sign);

/* data[r * pitch + c] *= exp(sign 2 pi i ((r0 + r) mod period) (c0 + c) / n). */
int hfft__cuda_twiddle(int prec, void *stream, void *data, int64_t rows, int64_t cols,
                       int64_t pitch, int64_t n, int64_t r0, int64_t period, int64_t c0, int sign);

/* hfft__real_pair on `batch` padded rows of M + 1 complex elements, `dist` apart. */
int hfft__cuda_real_pairs(int prec, void *stream, void *data, int64_t M, int64_t dist,
                          int64_t batch, int forward);

/* dst[b * ddist + j * dpitch + i] = src[b * sdist + i * spitch + j] (times
   exp(sign 2 pi i (i j) / twn) where twn > 0), i < rows, j < cols, b < batch, complex
   elements. */
int hfft__cuda_transpose(int prec, void *stream, void *dst, int64_t dpitch, int64_t ddist,
                         const void *src, int64_t spitch, int64_t sdist, int64_t rows,
                         int64_t cols, int64_t batch, int64_t twn, int sign);

/* One of Bluestein's steps on `lines` and `buf` (hfft__chirps in src/core/device.h). */
int hfft__cuda_chirp(int prec, void *stream, void *lines, void *buf, const void *table,
                     const hfft__chirps *c);

/* One of a real-to-real kind's steps (hfft__r2r_step in src/core/device.h). */
int hfft__cuda_r2r(int prec, void *stream, void *lines, void *buf, const hfft__r2r_step *a);
/* One of a streaming image's steps (hfft__spift in src/core/device.h). */
int hfft__cuda_spift(int prec, void *stream, void *dst, const void *src, const hfft__spift *a);

#ifdef __cplusplus
}
#endif
#endif
