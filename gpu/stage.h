/*
 * stage.h: copies between pageable host arrays and the device through a few
 * pinned staging slots that host threads fill and empty, for plans that leave
 * the caller's arrays unregistered.  Owned by one GPU engine and driven by
 * its thread; the host functions it queues run on the device's host threads.
 */
#ifndef HFFT_GPU_STAGE_H
#define HFFT_GPU_STAGE_H

#include <stddef.h>
#include <stdint.h>

#include "src/core/device.h"

typedef struct hfft__stage hfft__stage;
/* Pinned slots of slot_bytes (two per direction) and `threads` host threads. */
int hfft__stage_create(const hfft__dev_ops *ops, hfft__dev *d, size_t slot_bytes, int threads,
                       hfft__stage **out);
void hfft__stage_destroy(hfft__stage *s);
/* As ops->h2d and ops->d2h, from and to pageable host memory, on the caller's stream. */
int hfft__stage_h2d(hfft__stage *s, hfft__stream in, void *dev, size_t dpitch, const void *host,
                    size_t hpitch, size_t width, size_t rows);
int hfft__stage_d2h(hfft__stage *s, hfft__stream out, void *host, size_t hpitch, const void *dev,
                    size_t dpitch, size_t width, size_t rows);
int hfft__stage_sync(hfft__stage *s);
int64_t hfft__stage_bytes(const hfft__stage *s);

#endif
