/*
 * plan.h: the plan, private to src/ (the API layer wraps it in the public
 * opaque handle).  The planner (plan.c) fills it and runs it.
 *
 * Ownership: a plan owns its engines, its device and its registrations, and
 * releases them in hfft__plan_destroy.  Thread safety: one execute per plan at
 * a time; creating plans is thread safe.
 */
#ifndef HFFT_SRC_PLAN_H
#define HFFT_SRC_PLAN_H

#include <stddef.h>
#include <stdint.h>

#include "cpu/cpu.h"
#include "gpu/devices.h"
#include "gpu/engine.h"
#include "hfft.h"
#include "src/core/device.h"
#include "src/core/problem.h"
#include "src/core/settings.h"
#include "src/place.h"

typedef struct hfft__plan {
    hfft__problem pb;   /* as the caller asked */
    int prec;
    size_t esize;       /* bytes per complex element */
    int rank;           /* without dimensions of size one */
    int64_t n[3];
    int64_t total;
    int sign;
    unsigned flags;
    void *in, *out;
    hfft__settings set;
    int nrounds;
    hfft__round rounds[3];
    int64_t cut[3]; /* units [0, cut) go to the GPU in each round */
    const hfft__dev_ops *ops;
    hfft__dev *dev;
    hfft__gpu *gpu;
    hfft__pool *pool;
    hfft__cpu *cpu;
    hfft__lines *whole;  /* CPU-only under MEASURE: FFTW's whole-array plan, where faster */
    hfft__place place;   /* the host arrays: pinned, registered or staged */
    hfft_info info;
} hfft__plan;

/* plan.c */
hfft__plan *hfft__plan_create(int prec, int rank, const int64_t *n, void *in, void *out, int sign,
                              unsigned flags, const hfft_options *opts);
int hfft__plan_execute(hfft__plan *p, void *in, void *out);
void hfft__plan_destroy(hfft__plan *p);

#endif
