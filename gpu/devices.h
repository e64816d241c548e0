/*
 * devices.h: the table of device backends: the CUDA backend where the library
 * was built with the CUDA Toolkit, the emulated device always.  This is the
 * one place that knows which backends exist.  Thread safe.
 */
#ifndef HFFT_GPU_DEVICES_H
#define HFFT_GPU_DEVICES_H

#include "src/core/device.h"

/* The backend of kind (enum hfft_device_kind); NULL where not built. */
const hfft__dev_ops *hfft__device_ops(int kind);
/* Whether a CUDA GPU is usable now (probed once). */
int hfft__cuda_usable(void);

#endif
