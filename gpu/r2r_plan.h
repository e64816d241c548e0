/*
 * r2r_plan.h: device FFT plans of real-to-real lines (gpu/r2r.c), which both
 * backends' fft_plan make where its kind carries an r2r code.
 */
#ifndef HFFT_GPU_R2R_PLAN_H
#define HFFT_GPU_R2R_PLAN_H

#include <stddef.h>
#include <stdint.h>

#include "src/core/device.h"

typedef struct hfft__r2r hfft__r2r;

/* Plans `batch` lines (rank 1) or planes (rank 2) as fft_plan takes C2C ones (n,
   stride, dist), each line's or plane's dimensions transformed by the kinds of the
   r2r code (src/core/problem.h), through the device table o; reports the work
   bytes (the steps' buffer and the backend's FFTs'). */
int hfft__r2r_plan(const hfft__dev_ops *o, hfft__dev *d, int prec, int code, int rank,
                   const int64_t *n, int64_t stride, int64_t dist, int64_t batch,
                   hfft__r2r **out, size_t *work);
/* In place, on stream s, with the work area the plan asked for. */
int hfft__r2r_exec(const hfft__r2r *p, hfft__stream s, void *data, void *work);
void hfft__r2r_destroy(hfft__r2r *p);

#endif
