/*
 * png.h: a small RGB canvas for the benchmark's pictures (hfft-bench
 * --timeline): rectangles, lines, text in a built-in 5x7 font, and a PNG
 * writer of its own (stored deflate blocks, CRC-32 and Adler-32 computed
 * here), so that drawing needs no library beyond libc.  Colours are 0xRRGGBB.
 * Drawing clips to the canvas.  Not thread safe on one canvas; separate
 * canvases share nothing.
 */
#ifndef HFFT_BENCH_PNG_H
#define HFFT_BENCH_PNG_H

#include <stddef.h>
#include <stdint.h>

/* Pixels row after row, 3 bytes (R, G, B) each. */
typedef struct bench_canvas {
    int width, height;
    unsigned char *px;
} bench_canvas;

/* Glyph cell at scale 1: 5x7 glyphs (descenders in an eighth row), a column
   and a row of spacing. */
#define BENCH_FONT_W 6
#define BENCH_FONT_H 9

/* A width x height canvas (each 1..16384) filled with bg.  0, or -1 with a
   message in err (c->px NULL). */
int bench_canvas_create(bench_canvas *c, int width, int height, uint32_t bg, char *err,
                        size_t errlen);
/* Accepts a canvas that was never created or already freed. */
void bench_canvas_free(bench_canvas *c);

/* The pixel at (x, y); 0 outside the canvas. */
uint32_t bench_canvas_get(const bench_canvas *c, int x, int y);
/* Columns x..x+w-1 of rows y..y+h-1. */
void bench_canvas_fill(bench_canvas *c, int x, int y, int w, int h, uint32_t rgb);
/* Row y from x0 to x1 inclusive; column x from y0 to y1 inclusive (either order). */
void bench_canvas_hline(bench_canvas *c, int x0, int x1, int y, uint32_t rgb);
void bench_canvas_vline(bench_canvas *c, int x, int y0, int y1, uint32_t rgb);

/* Draws text with its top-left corner at (x, y), each font pixel a scale x
   scale square (scale >= 1); characters outside ASCII 32..126 are drawn as
   '?'.  Returns the width in pixels, as bench_text_width. */
int bench_canvas_text(bench_canvas *c, int x, int y, const char *text, int scale, uint32_t rgb);
int bench_text_width(const char *text, int scale);

/* Writes the canvas to path as a PNG: 8-bit RGB, filter 0 on every row, one
   zlib stream of stored blocks.  0, or -1 with a message in err (the file may
   be left partly written). */
int bench_canvas_write_png(const bench_canvas *c, const char *path, char *err, size_t errlen);

#endif /* HFFT_BENCH_PNG_H */
