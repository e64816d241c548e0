/*
 * copy.h: layouts that run through a dense copy (copy.c), private to src/:
 * which problems take it, the dense problem of the copy, and the gather and
 * scatter around each execute.
 */
#ifndef HFFT_SRC_COPY_H
#define HFFT_SRC_COPY_H

#include <stddef.h>

#include "src/core/problem.h"

/* Why a problem that is not one dense array runs through a dense copy, or 0. */
enum { HFFT__COPY_NEGATIVE = 1, HFFT__COPY_BLUESTEIN = 2 };
int hfft__copy_wanted(const hfft__problem *pb);
/* The dense problem *d of pb's transform, in place on `copy`; its bytes. */
size_t hfft__copy_problem(const hfft__problem *pb, void *copy, hfft__problem *d);
/* pb's input arrays into the copy, and the copy into pb's output arrays. */
void hfft__copy_gather(const hfft__problem *pb, const hfft__problem *d, void *const in[2]);
void hfft__copy_scatter(const hfft__problem *pb, const hfft__problem *d, void *const out[2]);

#endif
