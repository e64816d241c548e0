/*
 * balancer.c: chooses the GPU share of each round.  An explicit ratio or a
 * placement flag wins; otherwise the cost model decides (GPU-only until a
 * calibration says the CPU would shorten the round).
 */
#include "balancer.h"

double hfft__balance(const hfft__plan *p, unsigned flags) {
    if (flags & HFFT_CPU_ONLY)
        return 0.0;
    if (p->set.ratio > 0)
        return p->set.ratio;
    if (flags & HFFT_HYBRID)
        return 0.97;
    return 1.0;
}
