/*
 * plan.h: the plan, private to src/ (the API layer wraps it in the public
 * opaque handle).  The planner (plan.c) fills it and runs it.
 *
 * Ownership: a plan owns its engines, its device and its registrations, and
 * releases them in hfft__plan_destroy.  Thread safety: executes of one plan
 * take its lock, so that several threads may execute it on new arrays (as
 * FFTW's plans allow) and each runs alone on the engines' state; creating
 * plans is thread safe.
 */
#ifndef HFFT_SRC_PLAN_H
#define HFFT_SRC_PLAN_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "cpu/cpu.h"
#include "gpu/cards.h"
#include "gpu/devices.h"
#include "gpu/engine.h"
#include "gpu/trace.h"
#include "hfft.h"
#include "src/core/device.h"
#include "src/core/problem.h"
#include "src/core/settings.h"
#include "src/place.h"

typedef struct hfft__plan {
    hfft__problem pb;   /* as the caller asked, checked (an r2r problem on the rounds: the
                           C2C problem of its pairs of reals, r2r_pb the caller's) */
    int r2r;            /* an r2r problem run as that C2C problem */
    int r2r_kinds[HFFT__MAX_DIMS]; /* the FFTW kind of each dense dimension (transformed) */
    int r2r_row;        /* the innermost dense dimension is transformed (rows of reals) */
    hfft__problem r2r_pb;
    hfft__dense dense;  /* its dense form (rounds plans only) */
    int prec;
    size_t esize;       /* bytes per complex element */
    int64_t total;      /* complex elements of the array */
    int sign;
    unsigned flags;
    void *in, *out;     /* the plan's (interleaved) arrays */
    hfft__settings set;
    int nrounds;
    int split_line;     /* the last dimension cut four-step, output in this order (0: not) */
    hfft__round rounds[HFFT__MAX_ROUNDS];
    int64_t cut[HFFT__MAX_ROUNDS]; /* units [0, cut) go to the GPU in each round */
    const hfft__dev_ops *ops;
    hfft__dev *dev;      /* card 0 (host memory is registered through it) */
    int ncard;
    hfft__dev *devs[HFFT_MAX_CARDS]; /* the cards opened for the plan */
    hfft__trace *trace[HFFT_MAX_CARDS]; /* hfft_options.trace: the devices the engine sees,
                                           timing each operation (NULL: the cards
                                           themselves) */
    hfft__cards *cards;  /* the GPU side over them: its schedule (gpu/cards.h) */
    hfft__pool *pool;
    hfft__cpu *cpu;
    hfft__whole *whole;  /* FFTW's plan of the whole problem: layouts the rounds do not
                            take, or CPU-only under MEASURE where it is faster */
    void *scratch;       /* general path, c2r keeping its input: the copy FFTW transforms */
    void *mid;           /* rounds: what lies between two rounds where the output cannot
                            hold it (hfft__malloc; NULL: the input serves, or none) */
    hfft__place place;   /* the host arrays: pinned, registered or staged */
    /* A layout that runs through a dense copy (copy.c): the plan of the copy's
       dense problem, the copy (hfft__malloc) and that problem. */
    struct hfft__plan *inner;
    void *copy;
    hfft__problem copy_pb;
    hfft_info info;
    pthread_mutex_t lock; /* held by each execute, and by what reads its results */
    /* the execute the plan's schedule runs (run.c), chosen once it is built */
    int (*run)(struct hfft__plan *p, void *const in[2], void *const out[2]);
} hfft__plan;

/* plan.c */
hfft__plan *hfft__plan_create(const hfft__problem *pb, unsigned flags, const hfft_options *opts);
/* in[1] and out[1]: the imaginary arrays of split layouts. */
int hfft__plan_execute(hfft__plan *p, void *const in[2], void *const out[2]);
/* Chooses p->run from what the plan built (run.c). */
void hfft__plan_choose_run(hfft__plan *p);
/* Readies arrays other than the plan's own for its GPU engine: pinned, or staged. */
int hfft__plan_adopt(hfft__plan *p, void *const in[2], void *const out[2]);
void hfft__plan_destroy(hfft__plan *p);
/* The device operations of the last execute (plans made with hfft_options.trace). */
int hfft__plan_trace(hfft__plan *p, hfft_trace_op *ops, int max);

#endif
