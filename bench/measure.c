/*
 * measure.c: the machine figures hfft-bench compares against, measured in
 * the same run: the host<->device link (each direction alone and both at
 * once, pinned 256 MiB copies), printed and kept in G.
 */
#include <stdio.h>

#include "bench.h"
#ifdef HFFT_BENCH_HAVE_CUDA
#include "cuda_baselines.h"
#endif

void bench_measure_link(args *a, const char *why_gpu) {
    int bandwidth_off = a->bandwidth == 0;
    if (a->bandwidth == -1)
        a->bandwidth = G.gpu_present;
#ifdef HFFT_BENCH_HAVE_CUDA
    if (a->bandwidth && G.gpu_present) {
        bench_link l;
        bench_link_measure(LINK_BYTES, LINK_CHUNK, LINK_REPS, &l);
        G.link_measured = 1;
        G.h2d = l.h2d;
        G.d2h = l.d2h;
        G.dup_h2d = l.duplex_h2d;
        G.dup_d2h = l.duplex_d2h;
        printf("link (%s, pinned, 2 GiB in 32 MiB copies, median of %d): H2D %.1f GB/s, "
               "D2H %.1f GB/s, "
               "both at once %.1f + %.1f = %.1f GB/s\n",
               G.gpu_name, LINK_REPS, G.h2d / 1e9, G.d2h / 1e9, G.dup_h2d / 1e9, G.dup_d2h / 1e9,
               (G.dup_h2d + G.dup_d2h) / 1e9);
    }
#endif
    if (!G.link_measured)
        printf("link: not measured (%s)\n", bandwidth_off ? "--no-bandwidth" : why_gpu);
}

void bench_link_bounds(const problem *p, double most, result *r) {
    if (!G.link_measured)
        return;
    r->trip_s = (double)p->in_bytes / G.h2d + (double)p->out_bytes / G.d2h;
    r->duplex_s = most / (0.5 * (G.dup_h2d + G.dup_d2h));
}
