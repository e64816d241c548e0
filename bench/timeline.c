/*
 * timeline.c: bench_timeline_png, the picture of one execute's device
 * operations and its CSV (timeline.h).  The layout is computed in one place,
 * bench_timeline_layout, which the drawing and the tests both use, so that a
 * test can find a bar's pixels without knowing the constants below.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "png.h"
#include "timeline.h"

#define WIDTH 1600
#define TEXT 2    /* scale of all text but the title */
#define LINE_H 22 /* a summary line */
#define MARGIN 16
#define RIGHT 48 /* room for the last tick label, centred on x1 */
#define TITLE_Y 12
#define LEGEND_Y 50
#define LANE_TOP 84
#define LANE_H 34
#define BAR_TOP 5
#define BAR_H 24
#define MAX_LANES 400 /* keeps the height under png.c's 16384 */

#define INK 0x202020u
#define LANE_RULE 0xD8D8D8u
#define GRID 0xECECECu
#define KINDS 5 /* the four of enum hfft_trace_kind, then "other" */

static const uint32_t kind_color[KINDS] = {0x1F77B4u, 0xFF7F0Eu, 0x9467BDu, 0x2CA02Cu, 0x7F7F7Fu};
static const char *const kind_label[KINDS] = {"H2D copy", "D2H copy", "D2D copy", "compute",
                                              "other"};
static const char *const kind_csv[4] = {"h2d", "d2h", "d2d", "compute"};

static int kind_index(int kind) { return kind >= 0 && kind < 4 ? kind : 4; }

uint32_t bench_timeline_color(int kind) { return kind_color[kind_index(kind)]; }

/* The drawn interval of an op: a time that is not finite counts as 0 for a
   start and as the start for an end, and an end before the start is the start.
   Times are held within 1e9 s either way, so that the axis' span stays finite
   and tick indices fit in integers whatever a broken trace holds. */
#define TIME_LIMIT 1e9

static double time_clamp(double t) {
    return t < -TIME_LIMIT ? -TIME_LIMIT : t > TIME_LIMIT ? TIME_LIMIT : t;
}

static void op_interval(const hfft_trace_op *op, double *s, double *e) {
    *s = isfinite(op->start) ? time_clamp(op->start) : 0.0;
    *e = isfinite(op->end) && op->end > *s ? time_clamp(op->end) : *s;
}

typedef struct lane {
    int device, stream;
} lane;

static int lane_cmp(const void *pa, const void *pb) {
    const lane *a = pa, *b = pb;
    if (a->device != b->device)
        return a->device < b->device ? -1 : 1;
    return a->stream < b->stream ? -1 : a->stream > b->stream;
}

/* The distinct (device, stream) pairs of ops, sorted, in *out (free it); their
   count, or -1 when out of memory. */
static int find_lanes(const hfft_trace_op *ops, int n, lane **out) {
    *out = malloc(sizeof(lane) * (size_t)(n > 0 ? n : 1));
    if (!*out)
        return -1;
    lane *l = *out;
    for (int i = 0; i < n; i++)
        l[i] = (lane){ops[i].device, ops[i].stream};
    qsort(l, (size_t)n, sizeof *l, lane_cmp);
    int m = 0;
    for (int i = 0; i < n; i++)
        if (m == 0 || lane_cmp(&l[m - 1], &l[i]) != 0)
            l[m++] = l[i];
    return m;
}

static int lane_of(const lane *l, int nl, const hfft_trace_op *op) {
    lane key = {op->device, op->stream};
    const lane *hit = bsearch(&key, l, (size_t)nl, sizeof *l, lane_cmp);
    return hit ? (int)(hit - l) : 0;
}

static void lane_label(const lane *l, char *buf, size_t len) {
    snprintf(buf, len, "card %d stream %d", l->device, l->stream);
}

/* 1, 2 or 5 times a power of ten, the smallest at least raw. */
static double round_step(double raw) {
    double mag = pow(10.0, floor(log10(raw)));
    double f = raw / mag;
    /* The tolerance keeps 1e-3 / 1e-3 = 0.99999... or 1.00000...1 at 1. */
    return (f <= 1.0001 ? 1.0 : f <= 2.0001 ? 2.0 : f <= 5.0001 ? 5.0 : 10.0) * mag;
}

static int summary_lines(const hfft_trace_op *ops, int n) {
    for (int i = 0; i < n; i++)
        if (kind_index(ops[i].kind) == 4)
            return KINDS + 1;
    return KINDS; /* four kinds and the span */
}

/* The layout, and the lanes it found in *lanes_out when not NULL (free them). */
static int layout(const hfft_trace_op *ops, int n, bench_timeline_geom *g, lane **lanes_out,
                  char *err, size_t errlen) {
    memset(g, 0, sizeof *g);
    lane *l;
    int nl = find_lanes(ops, n, &l);
    if (nl < 0) {
        snprintf(err, errlen, "out of memory for the lanes of %d operations", n);
        return -1;
    }
    if (nl > MAX_LANES) {
        snprintf(err, errlen, "%d lanes (card, stream pairs): at most %d fit in one picture", nl,
                 MAX_LANES);
        free(l);
        return -1;
    }
    int label_w = 0;
    for (int i = 0; i < nl; i++) {
        char buf[64];
        lane_label(&l[i], buf, sizeof buf);
        int w = bench_text_width(buf, TEXT);
        label_w = w > label_w ? w : label_w;
    }
    double t0 = 0, t1 = 0;
    for (int i = 0; i < n; i++) {
        double s, e;
        op_interval(&ops[i], &s, &e);
        t0 = s < t0 ? s : t0;
        t1 = e > t1 ? e : t1;
    }
    /* No ops, or all within a nanosecond (below CUDA's timer): an axis of a millisecond. */
    if (!(t1 - t0 >= 1e-9))
        t1 = t0 + 1e-3;
    g->width = WIDTH;
    g->t0 = t0;
    g->t1 = t1;
    g->x0 = MARGIN + label_w + MARGIN;
    g->x1 = WIDTH - RIGHT;
    g->tick = round_step((t1 - t0) / 10);
    g->lanes = nl;
    g->lane_top = LANE_TOP;
    g->lane_h = LANE_H;
    g->bar_top = BAR_TOP;
    g->bar_h = BAR_H;
    if (n == 0)
        g->height = LANE_TOP + LANE_H + MARGIN;
    else /* lanes, the axis with its labels and caption, then the summary */
        g->height = LANE_TOP + nl * LANE_H + 60 + summary_lines(ops, n) * LINE_H + MARGIN;
    if (lanes_out)
        *lanes_out = l;
    else
        free(l);
    return 0;
}

int bench_timeline_layout(const hfft_trace_op *ops, int n, bench_timeline_geom *g, char *err,
                          size_t errlen) {
    return layout(ops, n, g, NULL, err, errlen);
}

int bench_timeline_x(const bench_timeline_geom *g, double t) {
    double x = g->x0 + (t - g->t0) * (g->x1 - g->x0) / (g->t1 - g->t0);
    /* Times are within the axis; the clamp only keeps the conversion defined. */
    if (!(x > g->x0 - 1))
        x = g->x0 - 1;
    if (x > g->x1 + 1)
        x = g->x1 + 1;
    return (int)lround(x);
}

typedef struct span {
    double s, e;
} span;

static int span_cmp(const void *pa, const void *pb) {
    const span *a = pa, *b = pb;
    return a->s < b->s ? -1 : a->s > b->s;
}

static double busy_time(const hfft_trace_op *ops, int n, int k) {
    span *v = malloc(sizeof(span) * (size_t)(n > 0 ? n : 1));
    if (!v)
        return -1;
    int m = 0;
    for (int i = 0; i < n; i++)
        if (kind_index(ops[i].kind) == k) {
            op_interval(&ops[i], &v[m].s, &v[m].e);
            m++;
        }
    qsort(v, (size_t)m, sizeof *v, span_cmp);
    double busy = 0, cs = 0, ce = 0;
    for (int i = 0; i < m; i++) {
        if (i == 0 || v[i].s > ce) {
            busy += ce - cs;
            cs = v[i].s;
            ce = v[i].e;
        } else if (v[i].e > ce) {
            ce = v[i].e;
        }
    }
    busy += ce - cs;
    free(v);
    return busy;
}

double bench_timeline_busy(const hfft_trace_op *ops, int n, int kind) {
    return busy_time(ops, n, kind_index(kind));
}

/* Times in the axis' unit: ms below a second of span, s from there; tick
   labels with the decimals a tick needs, other times with two more (at least
   three), so that a microsecond trace does not read as zeros. */
typedef struct unit {
    double per_s;
    const char *name;
    int tick_dec, dec;
} unit;

static unit axis_unit(const bench_timeline_geom *g) {
    unit u = g->t1 - g->t0 >= 1.0 ? (unit){1.0, "s", 0, 0} : (unit){1e3, "ms", 0, 0};
    int dec = (int)-floor(log10(g->tick * u.per_s) + 1e-9);
    u.tick_dec = dec < 0 ? 0 : dec > 12 ? 12 : dec; /* 12: spans far below CUDA's timer */
    u.dec = u.tick_dec + 2 < 3 ? 3 : u.tick_dec + 2;
    return u;
}

static void fmt_bytes(double b, char *buf, size_t len) {
    if (b >= 1e9)
        snprintf(buf, len, "%.3f GB", b / 1e9);
    else if (b >= 1e6)
        snprintf(buf, len, "%.3f MB", b / 1e6);
    else if (b >= 1e3)
        snprintf(buf, len, "%.3f kB", b / 1e3);
    else
        snprintf(buf, len, "%.0f B", b);
}

static void draw_summary(bench_canvas *c, const bench_timeline_geom *g, const hfft_trace_op *ops,
                         int n, unit u, int y, char *err, size_t errlen, int *status) {
    double first = INFINITY, last = -INFINITY;
    for (int i = 0; i < n; i++) {
        double s, e;
        op_interval(&ops[i], &s, &e);
        first = s < first ? s : first;
        last = e > last ? e : last;
    }
    double span_s = last - first;
    for (int k = 0; k < summary_lines(ops, n) - 1; k++, y += LINE_H) {
        int count = 0;
        double bytes = 0;
        for (int i = 0; i < n; i++)
            if (kind_index(ops[i].kind) == k) {
                count++;
                bytes += ops[i].bytes > 0 ? (double)ops[i].bytes : 0.0;
            }
        double busy = busy_time(ops, n, k);
        if (busy < 0) {
            snprintf(err, errlen, "out of memory for the busy time of %d operations", n);
            *status = -1;
            return;
        }
        char line[200], share[32] = "", moved[64] = "";
        if (span_s > 0)
            snprintf(share, sizeof share, "%5.1f%% of span", 100.0 * busy / span_s);
        if (k == HFFT_TRACE_H2D || k == HFFT_TRACE_D2H || k == HFFT_TRACE_D2D) {
            char b[32];
            fmt_bytes(bytes, b, sizeof b);
            if (busy >= 1e-9) /* a rate over less than a nanosecond says nothing */
                snprintf(moved, sizeof moved, "  %12s  %8.2f GB/s", b, bytes / busy / 1e9);
            else
                snprintf(moved, sizeof moved, "  %12s", b);
        }
        snprintf(line, sizeof line, "%-9s %6d ops  busy %11.*f %s  %s%s", kind_label[k], count,
                 u.dec, busy * u.per_s, u.name, share, moved);
        bench_canvas_fill(c, MARGIN, y, 14, 14, kind_color[k]);
        bench_canvas_text(c, MARGIN + 24, y, line, TEXT, INK);
    }
    char line[200];
    snprintf(line, sizeof line,
             "span %.*f %s (first start %.*f %s, last end %.*f %s): %d ops on %d lanes", u.dec,
             span_s * u.per_s, u.name, u.dec, first * u.per_s, u.name, u.dec, last * u.per_s,
             u.name, n, g->lanes);
    bench_canvas_text(c, MARGIN + 24, y, line, TEXT, INK);
}

/* The ticks on the axis are k * tick for k0 <= k <= k1: by index, not by
   adding up a step, so that 0.1 + 0.2 does not drift off a round number. */
static void tick_range(const bench_timeline_geom *g, long long *k0, long long *k1) {
    *k0 = (long long)ceil(g->t0 / g->tick - 1e-9);
    *k1 = (long long)floor(g->t1 / g->tick + 1e-9);
}

static void draw_axis(bench_canvas *c, const bench_timeline_geom *g, unit u, int axis_y) {
    double step = g->tick * u.per_s;
    long long k0, k1;
    tick_range(g, &k0, &k1);
    for (long long k = k0; k <= k1; k++) {
        int x = bench_timeline_x(g, (double)k * g->tick);
        bench_canvas_vline(c, x, axis_y, axis_y + 6, INK);
        char buf[32];
        snprintf(buf, sizeof buf, "%.*f", u.tick_dec, (double)k * step);
        bench_canvas_text(c, x - bench_text_width(buf, TEXT) / 2, axis_y + 12, buf, TEXT, INK);
    }
    bench_canvas_hline(c, g->x0, g->x1, axis_y, INK);
    char cap[32];
    snprintf(cap, sizeof cap, "time (%s)", u.name);
    bench_canvas_text(c, g->x1 - bench_text_width(cap, TEXT), axis_y + 34, cap, TEXT, INK);
}

static void draw_legend(bench_canvas *c, int y) {
    int x = MARGIN;
    for (int k = 0; k < 4; k++) {
        bench_canvas_fill(c, x, y, 14, 14, kind_color[k]);
        x += 22;
        x += bench_canvas_text(c, x, y, kind_label[k], TEXT, INK) + 28;
    }
}

static void draw(bench_canvas *c, const bench_timeline_geom *g, const lane *l, const char *title,
                 const hfft_trace_op *ops, int n, char *err, size_t errlen, int *status) {
    bench_canvas_text(c, MARGIN, TITLE_Y, title ? title : "", 3, INK);
    draw_legend(c, LEGEND_Y);
    if (n == 0) {
        bench_canvas_text(c, MARGIN, LANE_TOP + 10, "no device operations", TEXT, INK);
        return;
    }
    unit u = axis_unit(g);
    int axis_y = g->lane_top + g->lanes * g->lane_h;

    /* Grid under the bars, so that the bars stay whole. */
    long long k0, k1;
    tick_range(g, &k0, &k1);
    for (long long k = k0; k <= k1; k++)
        bench_canvas_vline(c, bench_timeline_x(g, (double)k * g->tick), g->lane_top, axis_y - 1,
                           GRID);
    for (int i = 0; i < g->lanes; i++) {
        int top = g->lane_top + i * g->lane_h;
        bench_canvas_hline(c, MARGIN, g->x1, top, LANE_RULE);
        char buf[64];
        lane_label(&l[i], buf, sizeof buf);
        bench_canvas_text(c, MARGIN, top + (g->lane_h - 7 * TEXT) / 2, buf, TEXT, INK);
    }
    for (int i = 0; i < n; i++) {
        double s, e;
        op_interval(&ops[i], &s, &e);
        int xs = bench_timeline_x(g, s), xe = bench_timeline_x(g, e);
        int w = xe - xs > 1 ? xe - xs : 1; /* an instant still shows */
        int y = g->lane_top + lane_of(l, g->lanes, &ops[i]) * g->lane_h + g->bar_top;
        uint32_t col = bench_timeline_color(ops[i].kind);
        bench_canvas_fill(c, xs, y, w, g->bar_h, col);
        if (w >= 3) { /* the darker first column parts back-to-back ops */
            uint32_t dark = ((col >> 16 & 0xff) * 3 / 5) << 16 | ((col >> 8 & 0xff) * 3 / 5) << 8 |
                            (col & 0xff) * 3 / 5;
            bench_canvas_vline(c, xs, y, y + g->bar_h - 1, dark);
        }
    }
    draw_axis(c, g, u, axis_y);
    draw_summary(c, g, ops, n, u, axis_y + 60, err, errlen, status);
}

static int write_csv(const char *path, const hfft_trace_op *ops, int n, char *err, size_t errlen) {
    size_t len = strlen(path);
    char *csv = malloc(len + 5);
    if (!csv) {
        snprintf(err, errlen, "out of memory for the CSV path of %s", path);
        return -1;
    }
    memcpy(csv, path, len + 1);
    if (len >= 4 && strcasecmp(path + len - 4, ".png") == 0)
        memcpy(csv + len - 4, ".csv", 5);
    else
        memcpy(csv + len, ".csv", 5);
    FILE *f = fopen(csv, "w");
    if (!f) {
        snprintf(err, errlen, "cannot open %s: %s", csv, strerror(errno));
        free(csv);
        return -1;
    }
    fputs("device,stream,kind,name,start_s,end_s,bytes\n", f);
    for (int i = 0; i < n; i++) {
        const hfft_trace_op *op = &ops[i];
        /* The name need not end in a NUL; anything that would need CSV quoting
           becomes '_', so that a plain split on commas reads every row. */
        char name[sizeof op->name + 1];
        memcpy(name, op->name, sizeof op->name);
        name[sizeof op->name] = '\0';
        for (char *q = name; *q; q++)
            if (*q < 32 || *q > 126 || *q == ',' || *q == '"')
                *q = '_';
        fprintf(f, "%d,%d,", op->device, op->stream);
        if (op->kind >= 0 && op->kind < 4)
            fprintf(f, "%s,", kind_csv[op->kind]);
        else
            fprintf(f, "%d,", op->kind);
        fprintf(f, "%s,%.9f,%.9f,%lld\n", name, op->start, op->end, (long long)op->bytes);
    }
    int bad = ferror(f);
    errno = 0;
    if (fclose(f) != 0 || bad) {
        snprintf(err, errlen, "cannot write %s: %s", csv, strerror(errno ? errno : EIO));
        free(csv);
        return -1;
    }
    free(csv);
    return 0;
}

int bench_timeline_png(const char *path, const char *title, const hfft_trace_op *ops, int n,
                       char *err, size_t errlen) {
    if (!path || n < 0 || (n > 0 && !ops)) {
        snprintf(err, errlen, "bench_timeline_png: no path, or %d operations at %p", n,
                 (const void *)ops);
        return -1;
    }
    bench_timeline_geom g;
    lane *l;
    if (layout(ops, n, &g, &l, err, errlen) < 0)
        return -1;
    bench_canvas c;
    if (bench_canvas_create(&c, g.width, g.height, BENCH_TIMELINE_BG, err, errlen) < 0) {
        free(l);
        return -1;
    }
    int status = 0;
    draw(&c, &g, l, title, ops, n, err, errlen, &status);
    free(l);
    if (status == 0)
        status = bench_canvas_write_png(&c, path, err, errlen);
    bench_canvas_free(&c);
    if (status == 0)
        status = write_csv(path, ops, n, err, errlen);
    return status;
}
