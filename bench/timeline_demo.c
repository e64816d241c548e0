/*
 * timeline_demo.c: hfft-timeline-demo OUT.png, the timeline picture
 * (timeline.h) of a made-up trace, to see the drawing without a GPU.  The
 * trace is what a pipelined one-trip 2D FFT of 8 GiB would give: stream 0
 * copies 1 GiB chunks in while stream 1 runs each chunk's row FFTs; after the
 * last row, stream 1 packs (a device copy) and transforms the columns chunk by
 * chunk while stream 2 copies each finished chunk out.  Rates are round
 * figures of a PCIe 5 card, not measurements.  Writes OUT.png and its CSV.
 */
#include <stdio.h>
#include <string.h>

#include "timeline.h"

#define CHUNKS 8
#define CHUNK_BYTES ((int64_t)1 << 30)

static double later(double a, double b) { return a > b ? a : b; }

static hfft_trace_op op(int stream, int kind, const char *name, double start, double seconds,
                        int64_t bytes) {
    hfft_trace_op o = {0, stream, kind, start, start + seconds, bytes, ""};
    snprintf(o.name, sizeof o.name, "%s", name);
    return o;
}

int main(int argc, char **argv) {
    if (argc != 2 || argv[1][0] == '-') {
        fprintf(stderr, "usage: hfft-timeline-demo OUT.png\n");
        return 2;
    }
    const double h2d_s = CHUNK_BYTES / 52e9, d2h_s = CHUNK_BYTES / 50e9;
    const double d2d_s = CHUNK_BYTES / 1.6e12, rows_s = 6e-3, cols_s = 8e-3, transpose_s = 2e-3;
    hfft_trace_op ops[6 * CHUNKS];
    int n = 0;
    double in_end = 0, compute_end = 0, out_end = 0;
    for (int i = 0; i < CHUNKS; i++) {
        ops[n++] = op(0, HFFT_TRACE_H2D, "h2d", in_end, h2d_s, CHUNK_BYTES);
        in_end += h2d_s;
        /* A chunk's rows wait for its copy in and for the previous chunk's rows. */
        ops[n++] = op(1, HFFT_TRACE_COMPUTE, "fft", later(in_end, compute_end), rows_s, 0);
        compute_end = ops[n - 1].end;
    }
    for (int i = 0; i < CHUNKS; i++) {
        ops[n++] = op(1, HFFT_TRACE_D2D, "d2d", compute_end, d2d_s, CHUNK_BYTES);
        compute_end += d2d_s;
        ops[n++] = op(1, HFFT_TRACE_COMPUTE, "fft", compute_end, cols_s, 0);
        compute_end += cols_s;
        ops[n++] = op(1, HFFT_TRACE_COMPUTE, "transpose", compute_end, transpose_s, 0);
        compute_end += transpose_s;
        /* The copy out of a chunk waits for its columns and for the link. */
        ops[n++] = op(2, HFFT_TRACE_D2H, "d2h", later(compute_end, out_end), d2h_s, CHUNK_BYTES);
        out_end = ops[n - 1].end;
    }
    char err[512];
    if (bench_timeline_png(argv[1], "hfft-timeline-demo: 2d:32768x32768:f32, one trip (synthetic)",
                           ops, n, err, sizeof err) < 0) {
        fprintf(stderr, "hfft-timeline-demo: %s\n", err);
        return 1;
    }
    printf("wrote %s and its CSV: %d operations\n", argv[1], n);
    return 0;
}
