/*
 * balancer.h: the load balancer's entry points for the planner: the GPU share
 * of each round (Rx in round 1, Ry in round 2), the pass parameters, and the
 * predicted time per round, from the flags, the settings, wisdom and the cost
 * model; and the fit that turns measured probe runs into that choice.
 */
#ifndef HFFT_BALANCER_H
#define HFFT_BALANCER_H

#include "balancer/model.h"
#include "src/core/device.h"
#include "src/core/problem.h"
#include "src/core/settings.h"

typedef struct hfft__choice {
    double ratio[HFFT__MAX_ROUNDS]; /* GPU share per round */
    int fixed[HFFT__MAX_ROUNDS];    /* 1 where the share came from the caller */
    int slots;
    int64_t pass_bytes;
    int schedule;          /* 0 planner, 1 plain, 2 radix-2 */
    double predicted[HFFT__MAX_ROUNDS];
    int wisdom;            /* 1 from wisdom, -1 wisdom ignored, 0 none */
    char note[160];
    int measure;           /* probe at plan time */
    hfft__link link;
    int have_link;
    double host_bw;        /* host memory bandwidth from wisdom (0: unknown) */
    int cards;             /* cards the GPU's share streams through */
} hfft__choice;

/* The choice before any probe, for problem pb with settings set on the opened
   cards (ops, cards[0..ncard)).  0, or HFFT_ERR_WISDOM / HFFT_ERR_IO for bad
   wisdom.  Thread safe: reads the wisdom file, writes only *c. */
int hfft__balance(const hfft__problem *pb, const hfft__settings *set, const hfft__dev_ops *ops,
                  hfft__dev *const *cards, int ncard, unsigned flags, hfft__choice *c);

/* The share for one round from measured times: GPU-only round time t1, and a
   probe at share f with its GPU side tg and CPU side tc.  Fills the model. */
double hfft__balance_fit(const hfft__choice *c, double bytes, double t1, double f, double tg,
                         double tc, hfft__round_model *m, double *predicted);

/* Share used by the MEASURE probe and by HFFT_HYBRID when nothing is known. */
#define HFFT__PROBE_SHARE 0.9

#endif
