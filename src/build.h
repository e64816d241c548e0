/*
 * build.h: the planner's engines (build.c), private to src/: plan.c decides
 * where a problem runs, these make and release what runs it.  Every function
 * takes a plan that one thread owns while it plans or executes it.
 */
#ifndef HFFT_SRC_BUILD_H
#define HFFT_SRC_BUILD_H

#include "balancer/balancer.h"
#include "src/plan.h"

/* Engines for c (c->ratio[h] in [0, 1]: round h's GPU share); split: planes cut
   into rounds of their own.  Fills p->rounds, p->cut and the info's shares. */
int hfft__build(hfft__plan *p, const hfft__choice *c, int split);
/* hfft_info's cards: the plan's first n (their ordinals, budgets, the name). */
void hfft__info_cards(hfft__plan *p, int n);
/* hfft__build, again with planes split where a plane cannot fit a pass. */
int hfft__build_any(hfft__plan *p, const hfft__choice *c);
/* HFFT_MEASURE with nothing known: times GPU-only and a probe share, sets c's
   shares from the model; executes on the plan's arrays. */
int hfft__measure(hfft__plan *p, hfft__choice *c);
/* FFTW's plan of the whole problem on the CPU (layouts the rounds do not take). */
int hfft__make_whole(hfft__plan *p);
/* Under HFFT_MEASURE, registered against staged host arrays: the faster stays. */
int hfft__choose_pinning(hfft__plan *p);
/* Releases every engine, the device and the registrations. */
void hfft__release_engines(hfft__plan *p);
/* Threads that stage copies for the GPU (a core left for the feeding thread). */
int hfft__staging_threads(const hfft__plan *p);
/* The threads of a plan on the CPU alone (settings, else one per core). */
int hfft__cpu_only_threads(const hfft__plan *p);

#endif
