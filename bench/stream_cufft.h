/*
 * stream_cufft.h: the hand-written cuFFT streaming image of hfft-stream-bench
 * (stream_cufft.cu), built only with CUDA.
 */
#ifndef HFFT_BENCH_STREAM_CUFFT_H
#define HFFT_BENCH_STREAM_CUFFT_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* An n x n image (prec 4 or 8) from npts points (cells, values), a flush every
   `every` points (0: once, at the end): each flush's seconds into flush_s (*nflush
   of them); the image (pinned host memory) holds the last flush's; returns the
   seconds from the first point to the last flush's end. */
double bench_stream_cufft(int prec, int64_t n, int64_t npts, const int64_t *cells,
                          const void *vals, int64_t every, int sign, void *image,
                          double *flush_s, int64_t *nflush);

#ifdef __cplusplus
}
#endif
#endif
