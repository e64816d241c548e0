/*
 * balancer.h: the load balancer's entry point for the planner: the GPU share
 * of each round's transforms, from the flags, the settings and the cost model.
 */
#ifndef HFFT_BALANCER_H
#define HFFT_BALANCER_H

#include "../src/internal.h"

/* GPU share in [0, 1] for plan p (device already opened). */
double hfft__balance(const hfft__plan *p, unsigned flags);

#endif
