/*
 * trace.h: a device that records the time of every operation it passes on.
 * It wraps a backend's device: the engine, given hfft__trace_ops and the
 * trace as its device, runs unchanged, and each copy, FFT and kernel it
 * issues is bracketed by two timed events on the same stream.  After an
 * execute, hfft__trace_read turns the events into hfft_trace_op records.
 *
 * Ownership: the trace borrows the backend's device (the plan closes it after
 * destroying the trace).  Thread safety: as the device it wraps.
 */
#ifndef HFFT_GPU_TRACE_H
#define HFFT_GPU_TRACE_H

#include "hfft.h"
#include "src/core/device.h"

typedef struct hfft__trace hfft__trace;

extern const hfft__dev_ops hfft__trace_ops;

/* Card `card` of the plan (hfft_trace_op.device).  Its peer copies go to cards
   that are traced too. */
int hfft__trace_create(const hfft__dev_ops *ops, hfft__dev *dev, int card, hfft__trace **out);
void hfft__trace_destroy(hfft__trace *t);
/* The trace as the device to hand the engine along with hfft__trace_ops. */
hfft__dev *hfft__trace_dev(hfft__trace *t);
/* Forgets the operations recorded so far and marks the start of an execute. */
int hfft__trace_begin(hfft__trace *t);
/* The operations since the last begin (their work has finished): the first max
   into ops; returns how many there were, or a negative status. */
int hfft__trace_read(hfft__trace *t, hfft_trace_op *ops, int max);

#endif
