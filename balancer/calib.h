/*
 * calib.h: measuring the link through the device interface: pinned copies
 * host to device, device to host, both at once, and both at once in 2D
 * (pitched rows of several widths), the rates the cost model reads; over
 * several cards, the same copies on all of them at once, since the host
 * holds their sum back.
 */
#ifndef HFFT_CALIB_H
#define HFFT_CALIB_H

#include "balancer/model.h"
#include "src/core/device.h"

/* Measures l on the n cards of one plan (opened on ops) with copies of `bytes` on each
   (0: 256 MiB, or a quarter of the room the fullest card has left): one card's rates on
   cards[0] alone; with n > 1, each direction and both with every card copying at once. */
int hfft__calibrate_link(const hfft__dev_ops *ops, hfft__dev *const *cards, int n, size_t bytes,
                         hfft__link *l);

#endif
