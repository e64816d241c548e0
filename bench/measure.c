/*
 * measure.c: the machine figures hfft-bench compares against, measured in
 * the same run: the host<->device link (each direction alone and both at
 * once, pinned 2 GiB in 32 MiB copies), for the first card alone and for all
 * the run's cards at once, and the host memory bandwidth (a STREAM-like copy
 * with hfft's CPU threads, cpu/memory.c), printed and kept in G.
 */
#include <stdio.h>

#include "bench.h"
#include "cpu/cpu.h"
#ifdef HFFT_BENCH_HAVE_CUDA
#include "cuda_baselines.h"
#endif

#ifdef HFFT_BENCH_HAVE_CUDA
/* The link for the first card alone and, with several, all of them at once, into G;
   printed where `print`.  0, or -1 where a measurement failed. */
static int link_into_G(int print) {
    int st = 0;
    for (int all = 0; all < 1 + (G.ncards > 1); all++) {
        bench_link l;
        bench_link_measure(LINK_BYTES, LINK_CHUNK, LINK_REPS, G.cards, all ? G.ncards : 1, &l);
        st = l.measured ? st : -1;
        G.h2d[all] = l.h2d;
        G.d2h[all] = l.d2h;
        G.dup_h2d[all] = l.duplex_h2d;
        G.dup_d2h[all] = l.duplex_d2h;
        if (print)
            printf("link (%s%s, pinned, 2 GiB per card in 32 MiB copies, median of %d): H2D "
                   "%.1f GB/s, D2H %.1f GB/s, both at once %.1f + %.1f = %.1f GB/s\n",
                   all ? "all cards at once: " : "one card: ", G.gpu_name, LINK_REPS,
                   G.h2d[all] / 1e9, G.d2h[all] / 1e9, G.dup_h2d[all] / 1e9,
                   G.dup_d2h[all] / 1e9, (G.dup_h2d[all] + G.dup_d2h[all]) / 1e9);
    }
    if (G.ncards == 1)
        G.h2d[1] = G.h2d[0], G.d2h[1] = G.d2h[0], G.dup_h2d[1] = G.dup_h2d[0],
        G.dup_d2h[1] = G.dup_d2h[0];
    return st;
}
#endif

void bench_measure_link(args *a, const char *why_gpu) {
    int bandwidth_off = a->bandwidth == 0;
    if (a->bandwidth == -1)
        a->bandwidth = G.gpu_present;
#ifdef HFFT_BENCH_HAVE_CUDA
    if (a->bandwidth && G.gpu_present) {
        (void)link_into_G(1);
        G.link_measured = 1;
    }
#endif
    if (!G.link_measured)
        printf("link: not measured (%s)\n", bandwidth_off ? "--no-bandwidth" : why_gpu);
}

int bench_link_again(void) {
    if (!G.link_measured)
        return -1;
#ifdef HFFT_BENCH_HAVE_CUDA
    return link_into_G(0);
#else
    return -1;
#endif
}

void bench_link_bounds(const problem *p, double most, int cards, result *r) {
    r->cards = cards;
    if (!G.link_measured)
        return;
    /* one card's figures, or those of all the run's cards at once */
    int all = cards > 1;
    r->trip_s = (double)p->in_bytes / G.h2d[all] + (double)p->out_bytes / G.d2h[all];
    r->duplex_s = most / (0.5 * (G.dup_h2d[all] + G.dup_d2h[all]));
}

#define HOST_BYTES ((size_t)1 << 30)
#define HOST_REPS 5

void bench_measure_host(const args *a) {
    unsigned cpu_side = (1u << E_HYBRID) | (1u << E_CPU) | (1u << E_AUTO);
    if (!(a->engines & cpu_side) && a->bandwidth != 1)
        return;
    /* The threads of a CPU-only plan: as many as asked, else one per core. */
    int threads = a->threads > 0 ? a->threads : hfft__cores();
    hfft__pool *pool;
    if (hfft__pool_create(threads, 0, &pool) ||
        hfft__host_bandwidth(pool, HOST_BYTES, HOST_REPS, &G.host_bw)) {
        printf("host memory: not measured (%s)\n", hfft_last_error_message());
        G.host_bw = 0;
        return;
    }
    hfft__pool_destroy(pool);
    G.host_threads = threads;
    printf("host memory (copy of 1 GiB with %d hwloc-placed threads, streaming stores, best of "
           "%d): %.1f GB/s read plus written\n",
           threads, HOST_REPS, G.host_bw / 1e9);
}
