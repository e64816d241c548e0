/*
 * settings.h: the settings a plan reads once, at creation: a field of
 * hfft_options where set, else its environment variable, else the default.
 * A malformed value is HFFT_ERR_SETTING, never a silent default.
 */
#ifndef HFFT_CORE_SETTINGS_H
#define HFFT_CORE_SETTINGS_H

#include <stdint.h>

#include "hfft.h"

typedef struct hfft__settings {
    int64_t budget;     /* device bytes; 0: automatic */
    int threads;        /* 0: automatic */
    int device;         /* enum hfft_device_kind */
    char wisdom[1024];  /* "" : none */
    double ratio[HFFT_MAX_ROUNDS]; /* per round; < 0: balancer decides */
    int64_t pass_bytes; /* 0: planner decides */
    int slots;          /* 0: planner decides */
    int pinning;        /* enum hfft_pinning */
    int trace;          /* 1: GPU plans time each device operation */
    int ncard;          /* cards asked for (0: all the backend sees) */
    int card[HFFT_MAX_CARDS];
} hfft__settings;

/* Fills *out from opts (may be NULL) and the environment.  Thread safe
   (reads the environment; the caller owns *out). */
int hfft__settings_resolve(const hfft_options *opts, hfft__settings *out);

#endif
