/*
 * mtrip.h: one trip over several cards, for arrays that fit the cards'
 * budgets together (see mtrip.c).  Private to gpu/: cards.c drives it.
 */
#ifndef HFFT_GPU_MTRIP_H
#define HFFT_GPU_MTRIP_H

#include <stdint.h>

#include "gpu/cards.h"

typedef struct hfft__mtrip hfft__mtrip;

/* 0 and *out where the problem's rounds suit it and the array with its work areas
   fits the cards; 1 where not (nothing allocated, no error kept); or a status. */
int hfft__mtrip_create(const hfft__card *cards, int n, const hfft__gpu_req *req,
                       hfft__mtrip **out);
void hfft__mtrip_destroy(hfft__mtrip *t);
int hfft__mtrip_run(hfft__mtrip *t, const void *src, void *dst);
void hfft__mtrip_take_link(hfft__mtrip *t, int64_t bytes[2]);
void hfft__mtrip_times(const hfft__mtrip *t, double *secs);
void hfft__mtrip_fill_info(const hfft__mtrip *t, hfft_info *info);

#endif
