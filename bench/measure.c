/*
 * measure.c: the machine figures hfft-bench compares against, measured in
 * the same run: the host<->device link (each direction alone and both at
 * once, pinned 256 MiB copies) and the host memory bandwidth (a STREAM-like
 * copy with hfft's CPU threads, cpu/memory.c), printed and kept in G.
 */
#include <stdio.h>

#include "bench.h"
#include "cpu/cpu.h"
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
        bench_link_measure(LINK_BYTES, LINK_REPS, &l);
        G.link_measured = 1;
        G.h2d = l.h2d;
        G.d2h = l.d2h;
        G.dup_h2d = l.duplex_h2d;
        G.dup_d2h = l.duplex_d2h;
        printf("link (%s, pinned, 256 MiB copies, median of %d): H2D %.1f GB/s, D2H %.1f GB/s, "
               "both at once %.1f + %.1f = %.1f GB/s\n",
               G.gpu_name, LINK_REPS, G.h2d / 1e9, G.d2h / 1e9, G.dup_h2d / 1e9, G.dup_d2h / 1e9,
               (G.dup_h2d + G.dup_d2h) / 1e9);
    }
#endif
    if (!G.link_measured)
        printf("link: not measured (%s)\n", bandwidth_off ? "--no-bandwidth" : why_gpu);
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
