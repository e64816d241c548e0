/*
 * trip.h: the one-trip schedule on one card or several (trip.c), for arrays
 * that fit the cards with their work areas.  Private to gpu/: cards.c makes
 * it where it applies.
 */
#ifndef HFFT_GPU_TRIP_H
#define HFFT_GPU_TRIP_H

#include <stdint.h>

#include "gpu/cards.h"

/* 0 and *out (the trip's table of operations, HFFT_SCHED_ONE_TRIP) where the rounds
   suit one trip over the n cards and the array with its work areas fits them; 1
   where not (nothing kept, no error); or a status. */
int hfft__trip_create(const hfft__card *cards, int n, const hfft__gpu_req *req,
                      hfft__cards **out);

#endif
