/*
 * trip.h: the one-trip schedule on one card or several (trip.c), for arrays
 * that fit the cards with their work areas.  Private to gpu/: cards.c makes
 * it where it applies.
 */
#ifndef HFFT_GPU_TRIP_H
#define HFFT_GPU_TRIP_H

#include <stdint.h>

#include "gpu/cards.h"

typedef struct hfft__trip hfft__trip;

/* 0 and *out where the rounds suit one trip over the n cards and the array with
   its work areas fits them; 1 where not (nothing kept, no error); or a status. */
int hfft__trip_create(const hfft__card *cards, int n, const hfft__gpu_req *req,
                      hfft__trip **out);
void hfft__trip_destroy(hfft__trip *t);
/* Every round at once, from src to dst (host arrays); returns when the output landed. */
int hfft__trip_run(hfft__trip *t, const void *src, void *dst);
/* Copies through staging slots (on, one card only) or straight from pinned arrays. */
int hfft__trip_stage(hfft__trip *t, int on, int threads);
int hfft__trip_staged(const hfft__trip *t);
int hfft__trip_cards(const hfft__trip *t);
/* Bytes over every card's link since the last call. */
void hfft__trip_take_link(hfft__trip *t, int64_t bytes[2]);
/* The last execute per round: the first fast round takes the copy in with every fast
   dimension, the slow round (dimension 0) the rest. */
void hfft__trip_times(const hfft__trip *t, double *secs);
void hfft__trip_fill_info(const hfft__trip *t, hfft_info *info);

#endif
