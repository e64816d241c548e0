/*
 * devices.h: the table of device backends: the CUDA backend where the library
 * was built with the CUDA Toolkit, the emulated device always.  This is the
 * one place that knows which backends exist; and the cards a plan opens on
 * one.  Thread safe.
 */
#ifndef HFFT_GPU_DEVICES_H
#define HFFT_GPU_DEVICES_H

#include "src/core/device.h"
#include "src/core/settings.h"

/* The backend of kind (enum hfft_device_kind); NULL where not built. */
const hfft__dev_ops *hfft__device_ops(int kind);
/* Whether a CUDA GPU is usable now (probed once). */
int hfft__cuda_usable(void);
/* Makes the CUDA contexts of the cards plans use by default (HFFT_DEVICES, else
   every card visible) where there are several, unless HFFT_DEVICE keeps plans off
   CUDA or a setting is malformed: a context made after a large
   block was pinned maps it then, seconds per hundred GiB and card, which
   hfft_malloc takes on rather than the first plan over several cards.  Cards that
   cannot be opened are left to the plans that name them. */
void hfft__devices_prepare(void);
/* Opens on ops the cards set names (set->card; none named: every card the backend
   sees, or one emulated card), each with set->budget; cards[0] is the current one
   and the others open beside it.  *n cards on success; on failure none stays open. */
int hfft__devices_open(const hfft__dev_ops *ops, const hfft__settings *set, hfft__dev **cards,
                       int *n);

#endif
