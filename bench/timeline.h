/*
 * timeline.h: one execute's device operations (hfft_plan_trace) drawn against
 * time, one lane per (card, stream), so that the overlap of copies and
 * kernels shows; and the same operations as CSV for numbers.  hfft-bench
 * --timeline FILE.png calls bench_timeline_png.  Thread safe: nothing shared.
 */
#ifndef HFFT_BENCH_TIMELINE_H
#define HFFT_BENCH_TIMELINE_H

#include <stddef.h>
#include <stdint.h>

#include "hfft.h"

#define BENCH_TIMELINE_BG 0xFFFFFFu /* the background, lanes' empty stretches included */

/* Where things are in the picture, as bench_timeline_png draws it. */
typedef struct bench_timeline_geom {
    int width, height;    /* the image */
    double t0, t1;        /* the time axis, seconds: from min(0, first start) to the last end */
    int x0, x1;           /* the columns of t0 and t1 */
    double tick;          /* seconds between ticks */
    int lanes;            /* (card, stream) pairs, in order of card, then stream */
    int lane_top, lane_h; /* lane i covers rows lane_top + i * lane_h and lane_h below */
    int bar_top, bar_h;   /* an op's bar: rows bar_top .. bar_top + bar_h - 1 of its lane */
} bench_timeline_geom;

/* The bar colour of a kind (enum hfft_trace_kind; grey for any other). */
uint32_t bench_timeline_color(int kind);

/* The layout for ops[0..n-1] (n >= 0).  0, or -1 with a message in err (out of
   memory, more lanes than an image may hold). */
int bench_timeline_layout(const hfft_trace_op *ops, int n, bench_timeline_geom *g, char *err,
                          size_t errlen);
/* The column of time t (seconds) on the axis of g. */
int bench_timeline_x(const bench_timeline_geom *g, double t);
/* Seconds during which at least one op of kind ran, on any lane (the union of
   their intervals, clamped as drawn); -1 when out of memory. */
double bench_timeline_busy(const hfft_trace_op *ops, int n, int kind);

/* Draws ops[0..n-1] into the PNG file path under title, and writes the same ops
   as CSV beside it (path with ".png" replaced by ".csv", else ".csv" appended):
   a header line "device,stream,kind,name,start_s,end_s,bytes", then one row per
   op in the order given, kind as h2d, d2h, d2d or compute (or its number),
   the name with ',', '"' and characters outside printable ASCII as '_' (no
   field needs quoting), times and bytes as recorded.  The picture has a lane per (card, stream), a bar
   per op coloured by kind, with a darker first column so that back-to-back ops
   stay apart; a time axis in ms or s; a legend; and per kind the busy time (the
   union of its ops' intervals on all lanes), the bytes copied and the rate
   bytes / busy time, and the span.  An op that ends before it starts is drawn
   as an instant at its start; n == 0 draws "no device operations".  0, or -1
   with a message in err (nothing printed). */
int bench_timeline_png(const char *path, const char *title, const hfft_trace_op *ops, int n,
                       char *err, size_t errlen);

#endif /* HFFT_BENCH_TIMELINE_H */
