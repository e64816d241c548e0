/*
 * split.h: double-precision lines cut in card.  cuFFT's own double transforms
 * lose accuracy against FFTW's at some lengths, and a 2D or 3D transform adds
 * its dimensions' errors.  A batch of such lines runs four-step, n = n0 n1 with
 * n0 the largest factor up to sqrt(n): a batched transpose into a scratch
 * block, the backend's n0-point lines, a transpose that multiplies by the
 * twiddles exp(sign 2 pi i j1 k0 / n) from exact integer phases, the n1-point
 * lines, and a transpose back in the natural order.  The lines go through two
 * scratch blocks at the head of the plan's work area, a chunk of lines at a
 * time.  Real rows (cuFFT's D2Z and Z2D lose the same accuracy) run as the
 * complex transform of their halves, cut, with the real pairs (gpu/butterfly.h)
 * after or before it (odd rows of a length with a prime factor above 127:
 * Bluestein's complex transform of the n reals, its chirp steps reading and
 * writing the rows); planes (cuFFT's 2D plans of a 3D transform's fast
 * dimensions lose it too) as their rows, then each plane's columns.  Lines
 * whose length has a prime factor above 127 (where cuFFT's accuracy falls as
 * the prime grows) run Bluestein (src/core/chirp.h): the chirp op into a buffer
 * of M points, the backend's M-point lines forward, the product with B (copied
 * from pinned host memory into the work area at each execute), the lines
 * backward, and the chirp op back.  Bluestein's error follows its M-point
 * lines', so those are cut finer than other lines: 16 x M / 16, the
 * M / 16-point lines cut the same way down to 32 points or less (cuFFT's shortest
 * lines are its most accurate), in chunks of lines whose blocks (two a level)
 * fit the quarter of the budget; where not even one line's do, the M-point
 * lines go through the table as other lines.  M is the most accurate length
 * (src/core/chirp.h) whose B and line buffer take at most a quarter of the
 * budget left, down to the leanest; where even that does not fit, the backend
 * transforms the lines whole.  A backend calls it from its fft_plan with its
 * own device table; the sub-lengths are planned through that table again, so
 * that long ones are cut again.
 */
#ifndef HFFT_GPU_SPLIT_H
#define HFFT_GPU_SPLIT_H

#include <stddef.h>
#include <stdint.h>

#include "src/core/device.h"

typedef struct hfft__split hfft__split;

/* Plans `batch` transforms as fft_plan takes them (kind, rank, n, stride, dist)
   through the device table o, where this module takes them: double-precision
   complex lines of rank 1, from 1024 points to 64 MiB a line, contiguous (stride 1)
   or side by side (dist 1), with a factor n0 from 16 to sqrt(n), cut n0 x n / n0;
   other complex lines (any stride and dist) of a length with a prime factor above
   127, through Bluestein;
   real rows (FFTW's padded layout, rank 1, even n) whose complex half is cut, as
   that transform and hfft__real_pair, and odd ones of a length with a prime factor
   above 127, through Bluestein; dense planes (rank 2) whose rows or columns
   are cut, as their rows, then each plane's columns.  Elsewhere *out stays NULL
   and the backend plans the transforms whole.  Reports the work bytes (the scratch
   and the sub-plans'). */
int hfft__split_plan(const hfft__dev_ops *o, hfft__dev *d, int prec, int kind, int rank,
                     const int64_t *n, int64_t stride, int64_t dist, int64_t batch, int sign,
                     hfft__split **out, size_t *work);
/* In place, on stream s, with the work area the plan asked for. */
int hfft__split_exec(const hfft__split *p, hfft__stream s, void *data, void *work);
void hfft__split_destroy(hfft__split *p);

#endif
