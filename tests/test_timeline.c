/*
 * test_timeline.c: the picture of hfft-bench --timeline (bench/png.c,
 * bench/timeline.c).  Every PNG written is read back by a decoder of this
 * file's own, independent of the writer: chunks and their CRC-32 (computed
 * bit by bit here, the writer uses a table), stored deflate blocks and their
 * lengths, Adler-32, filter bytes; then pixels are checked where the layout
 * puts rectangles, bars and gaps.  The CSV beside the picture is checked row
 * by row, and failures to write must be a negative status with a message.
 */
#include <criterion/criterion.h>
#include <dirent.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "png.h"
#include "timeline.h"

/* A scratch folder per test (each runs in its own process), made before it and
   emptied and removed after it, a failed one included. */
static char scratch_dir[64];

static void scratch_path(const char *name, char *buf, size_t len) {
    snprintf(buf, len, "%s/%s", scratch_dir, name);
}

static void scratch_make(void) {
    snprintf(scratch_dir, sizeof scratch_dir, "/tmp/hfft-test-timeline-XXXXXX");
    cr_assert(mkdtemp(scratch_dir), "mkdtemp");
}

/* One level of folders inside is all the tests make. */
static void scratch_remove(void) {
    DIR *d = opendir(scratch_dir);
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        char p[512];
        scratch_path(e->d_name, p, sizeof p);
        if (unlink(p) != 0)
            rmdir(p);
    }
    closedir(d);
    rmdir(scratch_dir);
}

TestSuite(timeline, .init = scratch_make, .fini = scratch_remove);

static unsigned char *read_all(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    cr_assert(f, "cannot open %s", path);
    size_t cap = 1 << 16, n = 0;
    unsigned char *buf = malloc(cap);
    cr_assert(buf);
    size_t got;
    while ((got = fread(buf + n, 1, cap - n, f)) > 0) {
        n += got;
        if (n == cap) {
            cap *= 2;
            buf = realloc(buf, cap);
            cr_assert(buf);
        }
    }
    cr_assert(!ferror(f), "reading %s", path);
    fclose(f);
    *len = n;
    return buf;
}

static uint32_t be32(const unsigned char *p) {
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* CRC-32 (reflected 0xEDB88320) one bit at a time: slow, and not the writer's table. */
static uint32_t crc32_bits(const unsigned char *p, size_t n) {
    uint32_t crc = 0xffffffffu;
    for (size_t i = 0; i < n; i++) {
        crc ^= p[i];
        for (int k = 0; k < 8; k++)
            crc = (crc >> 1) ^ (0xEDB88320u & (0u - (crc & 1)));
    }
    return crc ^ 0xffffffffu;
}

static uint32_t adler32(const unsigned char *p, size_t n) {
    uint64_t a = 1, b = 0;
    for (size_t i = 0; i < n; i++) {
        a = (a + p[i]) % 65521;
        b = (b + a) % 65521;
    }
    return (uint32_t)(b << 16 | a);
}

/* A decoded 8-bit RGB picture. */
typedef struct image {
    uint32_t w, h;
    unsigned char *px;
    int blocks; /* stored deflate blocks in the stream */
} image;

static uint32_t pixel(const image *im, int x, int y) {
    cr_assert(x >= 0 && y >= 0 && (uint32_t)x < im->w && (uint32_t)y < im->h,
              "pixel (%d, %d) outside %u x %u", x, y, im->w, im->h);
    const unsigned char *p = im->px + ((size_t)y * im->w + (size_t)x) * 3;
    return (uint32_t)p[0] << 16 | (uint32_t)p[1] << 8 | p[2];
}

/* Decodes what png.c writes, and checks all of it on the way: the signature,
   IHDR first (8-bit RGB, no interlace), every chunk's CRC, IEND last, a zlib
   header, stored blocks only with LEN = ~NLEN and a final one, the Adler-32,
   the exact raw size, and filter 0 on every row. */
static image decode_png(const char *path) {
    size_t len;
    unsigned char *f = read_all(path, &len);
    static const unsigned char sig[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
    cr_assert(len >= 8 && memcmp(f, sig, 8) == 0, "%s: no PNG signature", path);
    image im = {0, 0, NULL, 0};
    unsigned char *z = NULL;
    size_t zlen = 0, pos = 8;
    int chunks = 0, ended = 0;
    while (pos < len) {
        cr_assert(!ended, "%s: bytes after IEND", path);
        cr_assert(len - pos >= 12, "%s: a truncated chunk at %zu", path, pos);
        uint32_t n = be32(f + pos);
        cr_assert(n <= len - pos - 12, "%s: chunk length %u past the end", path, n);
        const unsigned char *type = f + pos + 4, *data = f + pos + 8;
        cr_assert_eq(crc32_bits(type, 4 + (size_t)n), be32(data + n), "%s: CRC of chunk %.4s", path,
                     (const char *)type);
        if (chunks == 0) {
            cr_assert(memcmp(type, "IHDR", 4) == 0 && n == 13, "%s: IHDR is not first", path);
            im.w = be32(data);
            im.h = be32(data + 4);
            cr_assert(data[8] == 8 && data[9] == 2 && data[10] == 0 && data[11] == 0 &&
                          data[12] == 0,
                      "%s: not 8-bit RGB, deflate, filter method 0, no interlace", path);
        } else if (memcmp(type, "IDAT", 4) == 0) {
            z = realloc(z, zlen + n + 1);
            cr_assert(z);
            memcpy(z + zlen, data, n);
            zlen += n;
        } else if (memcmp(type, "IEND", 4) == 0) {
            cr_assert_eq(n, 0);
            ended = 1;
        }
        chunks++;
        pos += 12 + (size_t)n;
    }
    cr_assert(ended, "%s: no IEND", path);
    cr_assert(im.w > 0 && im.h > 0);

    cr_assert(zlen >= 6, "%s: no zlib stream", path);
    cr_assert((z[0] & 0x0f) == 8 && (z[0] << 8 | z[1]) % 31 == 0 && !(z[1] & 0x20),
              "%s: bad zlib header %02x %02x", path, z[0], z[1]);
    size_t raw_len = (size_t)im.h * (1 + 3 * (size_t)im.w), got = 0, zp = 2;
    unsigned char *raw = malloc(raw_len);
    cr_assert(raw);
    for (int final = 0; !final;) {
        cr_assert(zlen - zp >= 5, "%s: a truncated block header", path);
        /* png.c writes the 3 header bits alone in their byte: BFINAL, then BTYPE 00 (stored). */
        cr_assert((z[zp] & ~1u) == 0, "%s: a block that is not stored (%02x)", path, z[zp]);
        final = z[zp] & 1;
        unsigned blen = z[zp + 1] | z[zp + 2] << 8, nlen = z[zp + 3] | z[zp + 4] << 8;
        cr_assert_eq(blen, ~nlen & 0xffffu, "%s: LEN and NLEN disagree", path);
        zp += 5;
        cr_assert(blen <= zlen - zp && blen <= raw_len - got, "%s: a block too long", path);
        memcpy(raw + got, z + zp, blen);
        got += blen;
        zp += blen;
        im.blocks++;
    }
    cr_assert_eq(got, raw_len, "%s: %zu raw bytes, %u x %u needs %zu", path, got, im.w, im.h,
                 raw_len);
    cr_assert_eq(zlen - zp, 4, "%s: not just the Adler-32 after the last block", path);
    cr_assert_eq(be32(z + zp), adler32(raw, raw_len), "%s: Adler-32", path);

    im.px = malloc((size_t)im.w * im.h * 3);
    cr_assert(im.px);
    for (uint32_t y = 0; y < im.h; y++) {
        const unsigned char *row = raw + (size_t)y * (1 + 3 * (size_t)im.w);
        cr_assert_eq(row[0], 0, "%s: row %u has filter %d", path, y, row[0]);
        memcpy(im.px + (size_t)y * im.w * 3, row + 1, 3 * (size_t)im.w);
    }
    free(raw);
    free(z);
    free(f);
    return im;
}

Test(timeline, canvas_png_roundtrip) {
    char path[512], err[256] = "";
    scratch_path("canvas.png", path, sizeof path);
    /* 301 x 203: rows of 904 bytes that straddle the 65535-byte blocks, three of them. */
    bench_canvas c;
    cr_assert_eq(bench_canvas_create(&c, 301, 203, 0x102030u, err, sizeof err), 0, "%s", err);
    bench_canvas_fill(&c, 10, 20, 30, 40, 0xFF0000u);
    bench_canvas_fill(&c, 290, 190, 50, 50, 0x00FF00u); /* clipped at the corner */
    bench_canvas_fill(&c, -5, -5, 8, 8, 0x0000FFu);     /* and at the origin */
    bench_canvas_hline(&c, 200, 100, 150, 0xABCDEFu);   /* ends in either order */
    bench_canvas_vline(&c, 250, 10, 12, 0x123456u);
    int tw = bench_canvas_text(&c, 60, 100, "I", 3, 0xFFFFFFu);
    cr_assert_eq(tw, BENCH_FONT_W * 3);
    cr_assert_eq(bench_canvas_get(&c, 10, 20), 0xFF0000u);
    cr_assert_eq(bench_canvas_write_png(&c, path, err, sizeof err), 0, "%s", err);
    bench_canvas_free(&c);
    bench_canvas_free(&c); /* twice is harmless */

    image im = decode_png(path);
    cr_assert_eq(im.w, 301);
    cr_assert_eq(im.h, 203);
    cr_assert_eq(im.blocks, 3);
    /* 'I' at scale 3: the glyph's middle column is ink from top to bottom, its
       second only in the top and bottom rows, its first not at all. */
    static const struct {
        int x, y;
        uint32_t rgb;
    } want[] = {{10, 20, 0xFF0000u}, /* the red rectangle's corners */
                {39, 59, 0xFF0000u},
                {40, 59, 0x102030u}, /* and beside them */
                {39, 60, 0x102030u},
                {9, 20, 0x102030u},
                {290, 190, 0x00FF00u}, /* clipped at the far corner */
                {300, 202, 0x00FF00u},
                {289, 202, 0x102030u},
                {0, 0, 0x0000FFu}, /* clipped at the origin: 3 x 3 left */
                {2, 2, 0x0000FFu},
                {3, 2, 0x102030u},
                {100, 150, 0xABCDEFu}, /* the row's ends, both included */
                {200, 150, 0xABCDEFu},
                {201, 150, 0x102030u},
                {150, 149, 0x102030u},
                {250, 10, 0x123456u}, /* the column's ends */
                {250, 12, 0x123456u},
                {250, 13, 0x102030u},
                {0, 202, 0x102030u}, /* untouched corners */
                {300, 0, 0x102030u},
                {60 + 2 * 3, 100, 0xFFFFFFu}, /* 'I' */
                {60 + 2 * 3 + 2, 100 + 6 * 3 + 2, 0xFFFFFFu},
                {60 + 3, 100, 0xFFFFFFu},
                {60 + 3, 100 + 3 * 3, 0x102030u},
                {60, 100, 0x102030u}};
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
        cr_expect_eq(pixel(&im, want[i].x, want[i].y), want[i].rgb,
                     "pixel (%d, %d): %06x, expected %06x", want[i].x, want[i].y,
                     pixel(&im, want[i].x, want[i].y), want[i].rgb);
    free(im.px);

    /* A 1 x 1 canvas: one block of 4 bytes. */
    cr_assert_eq(bench_canvas_create(&c, 1, 1, 0x010203u, err, sizeof err), 0, "%s", err);
    cr_assert_eq(bench_canvas_write_png(&c, path, err, sizeof err), 0, "%s", err);
    bench_canvas_free(&c);
    im = decode_png(path);
    cr_assert(im.w == 1 && im.h == 1 && im.blocks == 1);
    cr_assert_eq(pixel(&im, 0, 0), 0x010203u);
    free(im.px);

    err[0] = '\0';
    cr_assert_lt(bench_canvas_create(&c, 0, 10, 0, err, sizeof err), 0);
    cr_assert(err[0] != '\0' && c.px == NULL);
}

/* Three lanes over 10 ms: card 0 stream 0 copies in (two back to back), card
   0 stream 1 computes with a gap from 4 to 6 ms, card 1 stream 0 copies
   within the card and out, and has an op whose end is before its start. */
static const hfft_trace_op trace[] = {
    {0, 0, HFFT_TRACE_H2D, 0.0, 3e-3, 300 << 20, "h2d"},
    {0, 0, HFFT_TRACE_H2D, 3e-3, 5e-3, 200 << 20, "h2d"},
    {0, 1, HFFT_TRACE_COMPUTE, 1e-3, 4e-3, 0, "fft"},
    {0, 1, HFFT_TRACE_COMPUTE, 6e-3, 10e-3, 0, "transpose"},
    {1, 0, HFFT_TRACE_D2D, 2e-3, 3e-3, 64 << 20, "d2d"},
    {1, 0, HFFT_TRACE_D2H, 8e-3, 9e-3, 100 << 20, "d2h"},
    {1, 0, HFFT_TRACE_COMPUTE, 7e-3, 6.5e-3, 0, "twiddle"},
};
#define NTRACE ((int)(sizeof trace / sizeof trace[0]))

/* The middle row of lane i's bars. */
static int bar_row(const bench_timeline_geom *g, int lane) {
    return g->lane_top + lane * g->lane_h + g->bar_top + g->bar_h / 2;
}

Test(timeline, bars_where_the_ops_are) {
    char path[512], err[256] = "";
    scratch_path("trace.png", path, sizeof path);
    cr_assert_eq(bench_timeline_png(path, "test trace", trace, NTRACE, err, sizeof err), 0, "%s",
                 err);
    bench_timeline_geom g;
    cr_assert_eq(bench_timeline_layout(trace, NTRACE, &g, err, sizeof err), 0, "%s", err);
    image im = decode_png(path);
    cr_assert_eq(im.w, (uint32_t)g.width);
    cr_assert_eq(im.h, (uint32_t)g.height);
    cr_assert_eq(g.lanes, 3);
    cr_assert(g.t0 == 0 && fabs(g.t1 - 10e-3) < 1e-15, "axis %g..%g", g.t0, g.t1);
    cr_assert(fabs(g.tick - 1e-3) < 1e-15, "ticks every %g s, expected 1 ms", g.tick);

    uint32_t h2d = bench_timeline_color(HFFT_TRACE_H2D), d2h = bench_timeline_color(HFFT_TRACE_D2H),
             d2d = bench_timeline_color(HFFT_TRACE_D2D),
             compute = bench_timeline_color(HFFT_TRACE_COMPUTE);
    cr_assert(h2d != d2h && h2d != d2d && h2d != compute && d2h != d2d && d2h != compute &&
                  d2d != compute && h2d != BENCH_TIMELINE_BG && d2h != BENCH_TIMELINE_BG &&
                  d2d != BENCH_TIMELINE_BG && compute != BENCH_TIMELINE_BG,
              "four distinct colours, none the background");
    int x15 = bench_timeline_x(&g, 1.5e-3), x3 = bench_timeline_x(&g, 3e-3);
    int x55 = bench_timeline_x(&g, 5.5e-3), x85 = bench_timeline_x(&g, 8.5e-3);
    int r0 = bar_row(&g, 0), r1 = bar_row(&g, 1), r2 = bar_row(&g, 2);
    /* Inside bars, away from their first columns. */
    cr_expect_eq(pixel(&im, x15, r0), h2d);
    cr_expect_eq(pixel(&im, bench_timeline_x(&g, 4e-3), r0), h2d);
    cr_expect_eq(pixel(&im, bench_timeline_x(&g, 2.5e-3), r1), compute);
    cr_expect_eq(pixel(&im, bench_timeline_x(&g, 8e-3), r1), compute);
    cr_expect_eq(pixel(&im, bench_timeline_x(&g, 2.5e-3), r2), d2d);
    cr_expect_eq(pixel(&im, x85, r2), d2h);
    /* The bars' whole height, and no more. */
    cr_expect_eq(pixel(&im, x85, g.lane_top + 2 * g.lane_h + g.bar_top), d2h);
    cr_expect_eq(pixel(&im, x85, g.lane_top + 2 * g.lane_h + g.bar_top + g.bar_h - 1), d2h);
    cr_expect_eq(pixel(&im, x85, g.lane_top + 2 * g.lane_h + g.bar_top + g.bar_h),
                 BENCH_TIMELINE_BG);
    /* Empty stretches of the lanes, between ticks: the background. */
    cr_expect_eq(pixel(&im, x55, r1), BENCH_TIMELINE_BG, "the gap of lane 1: %06x",
                 pixel(&im, x55, r1));
    cr_expect_eq(pixel(&im, x55, r2), BENCH_TIMELINE_BG);
    cr_expect_eq(pixel(&im, x15, r2), BENCH_TIMELINE_BG);
    cr_expect_eq(pixel(&im, bench_timeline_x(&g, 9.5e-3), r2), BENCH_TIMELINE_BG);
    /* Back to back at 3 ms: the second copy's first column is neither its
       colour nor the background, and both bars go on around it. */
    uint32_t sep = pixel(&im, x3, r0);
    cr_expect(sep != h2d && sep != BENCH_TIMELINE_BG, "no separator at 3 ms: %06x", sep);
    cr_expect_eq(pixel(&im, x3 - 1, r0), h2d);
    cr_expect_eq(pixel(&im, x3 + 1, r0), h2d);
    /* The op that ends before it starts: an instant at 7 ms. */
    cr_expect_eq(pixel(&im, bench_timeline_x(&g, 7e-3), r2), compute);
    cr_expect_eq(pixel(&im, bench_timeline_x(&g, 7e-3) + 2, r2), BENCH_TIMELINE_BG);
    free(im.px);
}

Test(timeline, busy_time_is_the_union) {
    /* 0..5 ms of copies in; compute 1..4 and 6..10 with an instant at 7 inside. */
    cr_expect(fabs(bench_timeline_busy(trace, NTRACE, HFFT_TRACE_H2D) - 5e-3) < 1e-15);
    cr_expect(fabs(bench_timeline_busy(trace, NTRACE, HFFT_TRACE_COMPUTE) - 7e-3) < 1e-15);
    cr_expect(fabs(bench_timeline_busy(trace, NTRACE, HFFT_TRACE_D2D) - 1e-3) < 1e-15);
    cr_expect(fabs(bench_timeline_busy(trace, NTRACE, HFFT_TRACE_D2H) - 1e-3) < 1e-15);
    /* Across lanes: overlapping, nested and disjoint intervals, given out of order. */
    hfft_trace_op ops[] = {
        {0, 2, HFFT_TRACE_D2H, 6e-3, 7e-3, 1, "d2h"}, {0, 0, HFFT_TRACE_D2H, 0, 3e-3, 1, "d2h"},
        {1, 0, HFFT_TRACE_D2H, 2e-3, 4e-3, 1, "d2h"}, {0, 1, HFFT_TRACE_D2H, 1e-3, 2e-3, 1, "d2h"},
        {0, 1, HFFT_TRACE_H2D, 0, 9e-3, 1, "h2d"},
    };
    cr_expect(fabs(bench_timeline_busy(ops, 5, HFFT_TRACE_D2H) - 5e-3) < 1e-15, "%g",
              bench_timeline_busy(ops, 5, HFFT_TRACE_D2H));
    cr_expect_eq(bench_timeline_busy(ops, 5, HFFT_TRACE_D2D), 0.0);
    /* An op that ends before it starts, alone: no time at all, not negative time. */
    hfft_trace_op back = {0, 0, HFFT_TRACE_D2D, 2e-3, 1e-3, 1, "d2d"};
    cr_expect_eq(bench_timeline_busy(&back, 1, HFFT_TRACE_D2D), 0.0);
    cr_expect_eq(bench_timeline_busy(NULL, 0, HFFT_TRACE_H2D), 0.0);
}

static const char *const csv_kind[4] = {"h2d", "d2h", "d2d", "compute"};

/* Checks the CSV at path against ops: the header, then one row per op in order. */
static void check_csv(const char *path, const hfft_trace_op *ops, int n) {
    FILE *f = fopen(path, "r");
    cr_assert(f, "no CSV at %s", path);
    char line[512];
    cr_assert(fgets(line, sizeof line, f));
    cr_assert_str_eq(line, "device,stream,kind,name,start_s,end_s,bytes\n");
    int rows = 0;
    while (fgets(line, sizeof line, f)) {
        cr_assert_lt(rows, n, "more rows than ops: %s", line);
        const hfft_trace_op *op = &ops[rows];
        int dev, stream;
        char kind[32], name[32];
        double start, end;
        long long bytes;
        cr_assert_eq(sscanf(line, "%d,%d,%31[^,],%31[^,],%lf,%lf,%lld", &dev, &stream, kind, name,
                            &start, &end, &bytes),
                     7, "row %d: %s", rows, line);
        cr_expect_eq(dev, op->device, "row %d", rows);
        cr_expect_eq(stream, op->stream, "row %d", rows);
        cr_expect_str_eq(kind, csv_kind[op->kind], "row %d", rows);
        cr_expect_str_eq(name, op->name, "row %d", rows);
        /* Written with 9 decimals: to the nanosecond. */
        cr_expect(fabs(start - op->start) <= 1e-9 && fabs(end - op->end) <= 1e-9,
                  "row %d: %.9f..%.9f, recorded %.9f..%.9f", rows, start, end, op->start, op->end);
        cr_expect_eq(bytes, (long long)op->bytes, "row %d", rows);
        rows++;
    }
    fclose(f);
    cr_assert_eq(rows, n, "%d rows for %d ops", rows, n);
}

Test(timeline, csv_beside_the_png) {
    char path[512], csv[512], err[256] = "";
    scratch_path("trace.png", path, sizeof path);
    scratch_path("trace.csv", csv, sizeof csv);
    cr_assert_eq(bench_timeline_png(path, "csv", trace, NTRACE, err, sizeof err), 0, "%s", err);
    check_csv(csv, trace, NTRACE);

    /* A name without ".png": ".csv" is appended. */
    scratch_path("picture", path, sizeof path);
    scratch_path("picture.csv", csv, sizeof csv);
    cr_assert_eq(bench_timeline_png(path, "csv", trace, 2, err, sizeof err), 0, "%s", err);
    check_csv(csv, trace, 2);
    image im = decode_png(path);
    free(im.px);

    /* A kind outside the enum is written as its number; a name that would need
       quoting, and one without a NUL, come out plain. */
    hfft_trace_op odd[2] = {{3, 9, 9, 1e-3, 2e-3, 7, "a,b\"c\n"},
                            {0, 0, HFFT_TRACE_D2H, 0, 1e-3, 8, ""}};
    memcpy(odd[1].name, "0123456789abcdef", sizeof odd[1].name);
    scratch_path("odd.png", path, sizeof path);
    scratch_path("odd.csv", csv, sizeof csv);
    cr_assert_eq(bench_timeline_png(path, "odd", odd, 2, err, sizeof err), 0, "%s", err);
    size_t len;
    char *text = (char *)read_all(csv, &len);
    const char want[] = "device,stream,kind,name,start_s,end_s,bytes\n"
                        "3,9,9,a_b_c_,0.001000000,0.002000000,7\n"
                        "0,0,d2h,0123456789abcdef,0.000000000,0.001000000,8\n";
    cr_assert(len == sizeof want - 1 && memcmp(text, want, len) == 0, "%.*s", (int)len, text);
    free(text);
}

Test(timeline, no_ops_and_zero_span) {
    char path[512], csv[512], err[256] = "";
    scratch_path("empty.png", path, sizeof path);
    scratch_path("empty.csv", csv, sizeof csv);
    cr_assert_eq(bench_timeline_png(path, "nothing", NULL, 0, err, sizeof err), 0, "%s", err);
    image im = decode_png(path);
    cr_assert(im.w > 0 && im.h > 0);
    free(im.px);
    check_csv(csv, NULL, 0);

    /* Every op an instant at 0: an axis that still has a length. */
    hfft_trace_op at0[2] = {{0, 0, HFFT_TRACE_H2D, 0, 0, 4096, "h2d"},
                            {0, 1, HFFT_TRACE_COMPUTE, 0, 0, 0, "fft"}};
    bench_timeline_geom g;
    cr_assert_eq(bench_timeline_layout(at0, 2, &g, err, sizeof err), 0, "%s", err);
    cr_assert(g.t1 > g.t0 && g.tick > 0);
    scratch_path("instant.png", path, sizeof path);
    cr_assert_eq(bench_timeline_png(path, "instant", at0, 2, err, sizeof err), 0, "%s", err);
    im = decode_png(path);
    cr_assert_eq(im.h, (uint32_t)g.height);
    cr_expect_eq(pixel(&im, g.x0, bar_row(&g, 0)), bench_timeline_color(HFFT_TRACE_H2D));
    cr_expect_eq(pixel(&im, g.x0, bar_row(&g, 1)), bench_timeline_color(HFFT_TRACE_COMPUTE));
    free(im.px);
}

Test(timeline, unwritable_paths) {
    char path[512], err[256];

    /* A folder that does not exist: the PNG cannot be opened. */
    scratch_path("missing/trace.png", path, sizeof path);
    err[0] = '\0';
    cr_assert_lt(bench_timeline_png(path, "x", trace, NTRACE, err, sizeof err), 0);
    cr_assert(strstr(err, path) != NULL, "the message names the file: \"%s\"", err);
    bench_canvas c;
    cr_assert_eq(bench_canvas_create(&c, 4, 4, 0, err, sizeof err), 0, "%s", err);
    err[0] = '\0';
    cr_assert_lt(bench_canvas_write_png(&c, path, err, sizeof err), 0);
    cr_assert(strstr(err, path) != NULL, "the message names the file: \"%s\"", err);
    bench_canvas_free(&c);

    /* A folder where the PNG would go. */
    scratch_path("dir.png", path, sizeof path);
    cr_assert_eq(mkdir(path, 0700), 0);
    err[0] = '\0';
    cr_assert_lt(bench_timeline_png(path, "x", trace, NTRACE, err, sizeof err), 0);
    cr_assert(err[0] != '\0');

    /* The PNG written, the CSV's place taken by a folder. */
    char csv[512];
    scratch_path("half.png", path, sizeof path);
    scratch_path("half.csv", csv, sizeof csv);
    cr_assert_eq(mkdir(csv, 0700), 0);
    err[0] = '\0';
    cr_assert_lt(bench_timeline_png(path, "x", trace, NTRACE, err, sizeof err), 0);
    cr_assert(strstr(err, csv) != NULL, "the message names the CSV: \"%s\"", err);

    /* A full disk, where the system has one to offer: the failed writes are
       seen (the canvas alone, so that no CSV is tried beside /dev/full). */
    if (access("/dev/full", W_OK) == 0) {
        cr_assert_eq(bench_canvas_create(&c, 64, 64, 0, err, sizeof err), 0, "%s", err);
        err[0] = '\0';
        cr_assert_lt(bench_canvas_write_png(&c, "/dev/full", err, sizeof err), 0);
        cr_assert(strstr(err, "/dev/full") != NULL, "\"%s\"", err);
        bench_canvas_free(&c);
    }
}
