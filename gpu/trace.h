/*
 * trace.h: a device that records the time of every operation it passes on.
 * It wraps a backend's device: the engine, given hfft__trace_ops and the
 * trace as its device, runs unchanged, and each copy, FFT and kernel it
 * issues is bracketed by two timed events on the same stream.  After an
 * execute, hfft__trace_read turns the events into hfft_trace_op records, and
 * hfft__trace_deps says what each operation was ordered after (for tests of a
 * schedule's orderings).
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

/* The traces of one plan's cards, whose streams wait for each other's events:
   grouped once they all exist (each leaves the group as it is destroyed). */
typedef struct hfft__trace_group hfft__trace_group;
int hfft__trace_group_make(hfft__trace *const *t, int n);
/* Operation i of the last execute (in hfft__trace_read's order): those the device
   runs it after, as (card, operation) pairs: the one before it on its stream and
   those its stream waited for (events recorded on any card of the group), at most
   max into cards and ops.  Returns how many there are, or -1 where i is none.
   Host waits (syncs) are not orderings of the device's and are not counted. */
int hfft__trace_deps(const hfft__trace *t, int i, int *cards, int *ops, int max);
/* When operation i of the last execute was issued, in the order of every operation
   issued on the group's cards (a card alone: on it); -1 where i is none. */
int64_t hfft__trace_issued(const hfft__trace *t, int i);

#endif
