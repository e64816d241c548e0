/*
 * place.h: where a GPU plan's host arrays stand, and hfft_malloc.  Arrays
 * from hfft_malloc are pinned already; others are registered for the plan's
 * lifetime (counted in one process-wide table, so that plans may share an
 * array) or left pageable and copied through the engine's staging buffers.
 *
 * Thread safety: every function is thread safe; an hfft__place belongs to
 * one plan, which releases it.
 */
#ifndef HFFT_SRC_PLACE_H
#define HFFT_SRC_PLACE_H

#include <stddef.h>

#include "gpu/engine.h"
#include "src/core/device.h"

typedef struct hfft__place {
    const hfft__dev_ops *ops; /* the plan's device */
    hfft__dev *dev;
    void *registered[2];      /* ranges this plan holds a reference to */
    int host_pinned;          /* as hfft_info.host_pinned */
} hfft__place;

/* Pins or stages the arrays [in, in + bytes) and [out, out + bytes) for gpu,
   as `pinning` (enum hfft_pinning) says; `threads` host threads stage. */
int hfft__place_arrays(hfft__place *p, void *in, void *out, size_t bytes, int pinning,
                       hfft__gpu *gpu, int threads);
/* Gives back this plan's references; the last one unregisters the range. */
void hfft__place_release(hfft__place *p);

/* hfft_malloc and hfft_free. */
void *hfft__malloc(size_t bytes);
void hfft__free(void *ptr);

#endif
