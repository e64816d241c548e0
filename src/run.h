/*
 * run.h: what a plan's execute (run.c) shares with the building of its
 * engines (build.c), private to src/: the arrays each round reads and writes.
 */
#ifndef HFFT_SRC_RUN_H
#define HFFT_SRC_RUN_H

#include "src/plan.h"

/* The arrays a round reads and writes: the input, the output, or the array
   between rounds. */
enum { SIDE_IN, SIDE_OUT, SIDE_MID };

/* Round h reads side *src and writes side *dst; hfft__side_array gives that
   side's array (the array between rounds: p->mid, or the input where it serves). */
void hfft__round_sides(const hfft__plan *p, int h, int *src, int *dst);
void *hfft__side_array(const hfft__plan *p, int side, void *in, void *out);
/* A c2r transform of one round on the CPU alone that must keep its input: FFTW's c2r
   transforms overwrite what they read, so the round reads a copy of the input (the
   array between rounds), made at each execute. */
int hfft__c2r_reads_copy(const hfft__plan *p);
/* Where a scratch copy of the input puts each input array (same offsets). */
void hfft__scratch_arrays(const hfft__plan *p, void *const in[2], void *res[2]);

#endif
