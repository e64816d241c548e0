/*
 * calib.h: measuring the link through the device interface: pinned copies
 * host to device, device to host, both at once, and both at once in 2D
 * (pitched rows of several widths), the rates the cost model reads.
 */
#ifndef HFFT_CALIB_H
#define HFFT_CALIB_H

#include "balancer/model.h"
#include "src/core/device.h"

/* Measures l with copies of `bytes` (0: 256 MiB or a quarter of the budget). */
int hfft__calibrate_link(const hfft__dev_ops *ops, hfft__dev *dev, size_t bytes, hfft__link *l);

#endif
