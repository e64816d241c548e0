/*
 * png.c: the canvas of png.h and its PNG writer.  Compression would buy
 * nothing that matters for a few pictures a run, so the zlib stream holds
 * stored blocks only, which keeps the writer short enough to check by eye and
 * free of a zlib/libpng dependency.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "png.h"

#define CANVAS_MAX 16384
#define STORED_MAX 65535 /* deflate's limit on one stored block */

/* The classic 5x7 font, ASCII 32..126, five columns per glyph, bit 0 the top row; g, j, p,
   q and y reach down into an eighth row (bit 7). */
static const unsigned char font5x7[95][5] = {
    {0x00, 0x00, 0x00, 0x00, 0x00}, {0x00, 0x00, 0x5F, 0x00, 0x00}, /* space ! */
    {0x00, 0x07, 0x00, 0x07, 0x00}, {0x14, 0x7F, 0x14, 0x7F, 0x14}, /* " # */
    {0x24, 0x2A, 0x7F, 0x2A, 0x12}, {0x23, 0x13, 0x08, 0x64, 0x62}, /* $ % */
    {0x36, 0x49, 0x55, 0x22, 0x50}, {0x00, 0x05, 0x03, 0x00, 0x00}, /* & ' */
    {0x00, 0x1C, 0x22, 0x41, 0x00}, {0x00, 0x41, 0x22, 0x1C, 0x00}, /* ( ) */
    {0x08, 0x2A, 0x1C, 0x2A, 0x08}, {0x08, 0x08, 0x3E, 0x08, 0x08}, /* * + */
    {0x00, 0x50, 0x30, 0x00, 0x00}, {0x08, 0x08, 0x08, 0x08, 0x08}, /* , - */
    {0x00, 0x60, 0x60, 0x00, 0x00}, {0x20, 0x10, 0x08, 0x04, 0x02}, /* . / */
    {0x3E, 0x51, 0x49, 0x45, 0x3E}, {0x00, 0x42, 0x7F, 0x40, 0x00}, /* 0 1 */
    {0x42, 0x61, 0x51, 0x49, 0x46}, {0x21, 0x41, 0x45, 0x4B, 0x31}, /* 2 3 */
    {0x18, 0x14, 0x12, 0x7F, 0x10}, {0x27, 0x45, 0x45, 0x45, 0x39}, /* 4 5 */
    {0x3C, 0x4A, 0x49, 0x49, 0x30}, {0x01, 0x71, 0x09, 0x05, 0x03}, /* 6 7 */
    {0x36, 0x49, 0x49, 0x49, 0x36}, {0x06, 0x49, 0x49, 0x29, 0x1E}, /* 8 9 */
    {0x00, 0x36, 0x36, 0x00, 0x00}, {0x00, 0x56, 0x36, 0x00, 0x00}, /* : ; */
    {0x08, 0x14, 0x22, 0x41, 0x00}, {0x14, 0x14, 0x14, 0x14, 0x14}, /* < = */
    {0x00, 0x41, 0x22, 0x14, 0x08}, {0x02, 0x01, 0x51, 0x09, 0x06}, /* > ? */
    {0x32, 0x49, 0x79, 0x41, 0x3E}, {0x7E, 0x11, 0x11, 0x11, 0x7E}, /* @ A */
    {0x7F, 0x49, 0x49, 0x49, 0x36}, {0x3E, 0x41, 0x41, 0x41, 0x22}, /* B C */
    {0x7F, 0x41, 0x41, 0x22, 0x1C}, {0x7F, 0x49, 0x49, 0x49, 0x41}, /* D E */
    {0x7F, 0x09, 0x09, 0x09, 0x01}, {0x3E, 0x41, 0x49, 0x49, 0x7A}, /* F G */
    {0x7F, 0x08, 0x08, 0x08, 0x7F}, {0x00, 0x41, 0x7F, 0x41, 0x00}, /* H I */
    {0x20, 0x40, 0x41, 0x3F, 0x01}, {0x7F, 0x08, 0x14, 0x22, 0x41}, /* J K */
    {0x7F, 0x40, 0x40, 0x40, 0x40}, {0x7F, 0x02, 0x0C, 0x02, 0x7F}, /* L M */
    {0x7F, 0x04, 0x08, 0x10, 0x7F}, {0x3E, 0x41, 0x41, 0x41, 0x3E}, /* N O */
    {0x7F, 0x09, 0x09, 0x09, 0x06}, {0x3E, 0x41, 0x51, 0x21, 0x5E}, /* P Q */
    {0x7F, 0x09, 0x19, 0x29, 0x46}, {0x46, 0x49, 0x49, 0x49, 0x31}, /* R S */
    {0x01, 0x01, 0x7F, 0x01, 0x01}, {0x3F, 0x40, 0x40, 0x40, 0x3F}, /* T U */
    {0x1F, 0x20, 0x40, 0x20, 0x1F}, {0x3F, 0x40, 0x38, 0x40, 0x3F}, /* V W */
    {0x63, 0x14, 0x08, 0x14, 0x63}, {0x07, 0x08, 0x70, 0x08, 0x07}, /* X Y */
    {0x61, 0x51, 0x49, 0x45, 0x43}, {0x00, 0x7F, 0x41, 0x41, 0x00}, /* Z [ */
    {0x02, 0x04, 0x08, 0x10, 0x20}, {0x00, 0x41, 0x41, 0x7F, 0x00}, /* \ ] */
    {0x04, 0x02, 0x01, 0x02, 0x04}, {0x40, 0x40, 0x40, 0x40, 0x40}, /* ^ _ */
    {0x00, 0x01, 0x02, 0x04, 0x00}, {0x20, 0x54, 0x54, 0x54, 0x78}, /* ` a */
    {0x7F, 0x48, 0x44, 0x44, 0x38}, {0x38, 0x44, 0x44, 0x44, 0x20}, /* b c */
    {0x38, 0x44, 0x44, 0x48, 0x7F}, {0x38, 0x54, 0x54, 0x54, 0x18}, /* d e */
    {0x08, 0x7E, 0x09, 0x01, 0x02}, {0x18, 0xA4, 0xA4, 0xA4, 0x7C}, /* f g */
    {0x7F, 0x08, 0x04, 0x04, 0x78}, {0x00, 0x44, 0x7D, 0x40, 0x00}, /* h i */
    {0x40, 0x80, 0x84, 0x7D, 0x00}, {0x7F, 0x10, 0x28, 0x44, 0x00}, /* j k */
    {0x00, 0x41, 0x7F, 0x40, 0x00}, {0x7C, 0x04, 0x18, 0x04, 0x78}, /* l m */
    {0x7C, 0x08, 0x04, 0x04, 0x78}, {0x38, 0x44, 0x44, 0x44, 0x38}, /* n o */
    {0xFC, 0x24, 0x24, 0x24, 0x18}, {0x18, 0x24, 0x24, 0x24, 0xFC}, /* p q */
    {0x7C, 0x08, 0x04, 0x04, 0x08}, {0x48, 0x54, 0x54, 0x54, 0x20}, /* r s */
    {0x04, 0x3F, 0x44, 0x40, 0x20}, {0x3C, 0x40, 0x40, 0x20, 0x7C}, /* t u */
    {0x1C, 0x20, 0x40, 0x20, 0x1C}, {0x3C, 0x40, 0x30, 0x40, 0x3C}, /* v w */
    {0x44, 0x28, 0x10, 0x28, 0x44}, {0x1C, 0xA0, 0xA0, 0xA0, 0x7C}, /* x y */
    {0x44, 0x64, 0x54, 0x4C, 0x44}, {0x00, 0x08, 0x36, 0x41, 0x00}, /* z { */
    {0x00, 0x00, 0x7F, 0x00, 0x00}, {0x00, 0x41, 0x36, 0x08, 0x00}, /* | } */
    {0x08, 0x04, 0x08, 0x10, 0x08},                                 /* ~ */
};

int bench_canvas_create(bench_canvas *c, int width, int height, uint32_t bg, char *err,
                        size_t errlen) {
    c->width = c->height = 0;
    c->px = NULL;
    if (width < 1 || height < 1 || width > CANVAS_MAX || height > CANVAS_MAX) {
        snprintf(err, errlen, "canvas of %d x %d pixels: each side must be 1 to %d", width, height,
                 CANVAS_MAX);
        return -1;
    }
    c->px = malloc((size_t)width * (size_t)height * 3);
    if (!c->px) {
        snprintf(err, errlen, "out of memory for a %d x %d canvas", width, height);
        return -1;
    }
    c->width = width;
    c->height = height;
    bench_canvas_fill(c, 0, 0, width, height, bg);
    return 0;
}

void bench_canvas_free(bench_canvas *c) {
    free(c->px);
    c->px = NULL;
    c->width = c->height = 0;
}

uint32_t bench_canvas_get(const bench_canvas *c, int x, int y) {
    if (x < 0 || y < 0 || x >= c->width || y >= c->height)
        return 0;
    const unsigned char *p = c->px + ((size_t)y * (size_t)c->width + (size_t)x) * 3;
    return (uint32_t)p[0] << 16 | (uint32_t)p[1] << 8 | p[2];
}

void bench_canvas_fill(bench_canvas *c, int x, int y, int w, int h, uint32_t rgb) {
    /* Clip in 64 bits: x + w may overflow an int for a caller's huge bar. */
    long long x0 = x, y0 = y, x1 = (long long)x + w, y1 = (long long)y + h;
    if (x0 < 0)
        x0 = 0;
    if (y0 < 0)
        y0 = 0;
    if (x1 > c->width)
        x1 = c->width;
    if (y1 > c->height)
        y1 = c->height;
    for (long long j = y0; j < y1; j++) {
        unsigned char *p = c->px + ((size_t)j * (size_t)c->width + (size_t)x0) * 3;
        for (long long i = x0; i < x1; i++, p += 3) {
            p[0] = (unsigned char)(rgb >> 16);
            p[1] = (unsigned char)(rgb >> 8);
            p[2] = (unsigned char)rgb;
        }
    }
}

void bench_canvas_hline(bench_canvas *c, int x0, int x1, int y, uint32_t rgb) {
    if (x1 < x0) {
        int t = x0;
        x0 = x1;
        x1 = t;
    }
    bench_canvas_fill(c, x0, y, x1 - x0 + 1, 1, rgb);
}

void bench_canvas_vline(bench_canvas *c, int x, int y0, int y1, uint32_t rgb) {
    if (y1 < y0) {
        int t = y0;
        y0 = y1;
        y1 = t;
    }
    bench_canvas_fill(c, x, y0, 1, y1 - y0 + 1, rgb);
}

int bench_text_width(const char *text, int scale) {
    return (int)strlen(text) * BENCH_FONT_W * (scale < 1 ? 1 : scale);
}

int bench_canvas_text(bench_canvas *c, int x, int y, const char *text, int scale, uint32_t rgb) {
    if (scale < 1)
        scale = 1;
    int cx = x;
    for (const unsigned char *s = (const unsigned char *)text; *s;
         s++, cx += BENCH_FONT_W * scale) {
        unsigned ch = (*s >= 32 && *s <= 126) ? *s : '?';
        const unsigned char *g = font5x7[ch - 32];
        for (int col = 0; col < 5; col++)
            for (int row = 0; row < 8; row++)
                if (g[col] >> row & 1)
                    bench_canvas_fill(c, cx + col * scale, y + row * scale, scale, scale, rgb);
    }
    return cx - x;
}

/* The file being written: CRC-32's table and the running CRC of the open
   chunk, Adler-32's two sums over the zlib data, and the first write error
   (checked once at the end). */
typedef struct png_out {
    FILE *f;
    uint32_t table[256];
    uint32_t crc;
    uint32_t a, b;
    int err;
} png_out;

/* CRC-32 of PNG and zlib: the reflected polynomial 0xEDB88320.  The table is
   per file, not static, so that threads drawing at once share nothing. */
static void crc_init(png_out *o) {
    for (uint32_t i = 0; i < 256; i++) {
        uint32_t v = i;
        for (int k = 0; k < 8; k++)
            v = v & 1 ? 0xEDB88320u ^ (v >> 1) : v >> 1;
        o->table[i] = v;
    }
}

static void put(png_out *o, const void *p, size_t n) {
    errno = 0;
    if (fwrite(p, 1, n, o->f) != n && !o->err)
        o->err = errno ? errno : EIO;
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++)
        o->crc = o->table[(o->crc ^ b[i]) & 0xff] ^ (o->crc >> 8);
}

static void put32(png_out *o, uint32_t v) {
    unsigned char b[4] = {(unsigned char)(v >> 24), (unsigned char)(v >> 16),
                          (unsigned char)(v >> 8), (unsigned char)v};
    put(o, b, 4);
}

/* zlib payload bytes: into the chunk and into Adler-32 (RFC 1950: sums mod 65521). */
static void put_data(png_out *o, const unsigned char *p, size_t n) {
    put(o, p, n);
    for (size_t i = 0; i < n; i++) {
        o->a = (o->a + p[i]) % 65521u;
        o->b = (o->b + o->a) % 65521u;
    }
}

/* A chunk's length is not covered by its CRC; its type is. */
static void chunk_begin(png_out *o, uint32_t len, const char *type) {
    put32(o, len);
    o->crc = 0xffffffffu;
    put(o, type, 4);
}

static void chunk_end(png_out *o) { put32(o, o->crc ^ 0xffffffffu); }

int bench_canvas_write_png(const bench_canvas *c, const char *path, char *err, size_t errlen) {
    if (!c->px) {
        snprintf(err, errlen, "%s: the canvas was not created", path);
        return -1;
    }
    /* The raw image: each row a filter byte (0: none) and its pixels.  At most
       16384 x (1 + 3 x 16384) bytes, which fits in 32 bits with its block headers. */
    uint64_t stride = 1 + 3 * (uint64_t)c->width;
    uint64_t raw = stride * (uint64_t)c->height;
    uint64_t blocks = (raw + STORED_MAX - 1) / STORED_MAX;
    uint64_t zlen = 2 + raw + 5 * blocks + 4;

    png_out o = {.f = fopen(path, "wb"), .a = 1};
    if (!o.f) {
        snprintf(err, errlen, "cannot open %s: %s", path, strerror(errno));
        return -1;
    }
    static const unsigned char sig[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
    crc_init(&o);
    put(&o, sig, sizeof sig);

    chunk_begin(&o, 13, "IHDR");
    put32(&o, (uint32_t)c->width);
    put32(&o, (uint32_t)c->height);
    /* bit depth 8, colour type 2 (RGB), deflate, adaptive filtering (method 0), no interlace */
    static const unsigned char ihdr[5] = {8, 2, 0, 0, 0};
    put(&o, ihdr, sizeof ihdr);
    chunk_end(&o);

    chunk_begin(&o, (uint32_t)zlen, "IDAT");
    /* CMF 0x78: deflate with a 32 KiB window; FLG 0x01 makes CMF*256+FLG a multiple of 31. */
    static const unsigned char zhead[2] = {0x78, 0x01};
    put(&o, zhead, sizeof zhead);
    static const unsigned char filter_none = 0;
    uint64_t pos = 0; /* offset in the raw image */
    while (pos < raw) {
        uint32_t len = raw - pos < STORED_MAX ? (uint32_t)(raw - pos) : STORED_MAX;
        /* The 3-bit block header (BFINAL, BTYPE 00) is padded to a byte, then
           LEN and its complement, little-endian. */
        unsigned char bh[5] = {pos + len == raw, (unsigned char)len, (unsigned char)(len >> 8),
                               (unsigned char)~len, (unsigned char)(~len >> 8)};
        put(&o, bh, sizeof bh);
        for (uint32_t left = len; left > 0;) {
            uint64_t row = pos / stride, col = pos % stride;
            size_t n;
            if (col == 0) {
                put_data(&o, &filter_none, 1);
                n = 1;
            } else {
                n = stride - col < left ? (size_t)(stride - col) : left;
                put_data(&o, c->px + row * (stride - 1) + (col - 1), n);
            }
            pos += n;
            left -= (uint32_t)n;
        }
    }
    put32(&o, o.b << 16 | o.a);
    chunk_end(&o);

    chunk_begin(&o, 0, "IEND");
    chunk_end(&o);

    /* fclose flushes the last buffer: a full disk may show only here. */
    errno = 0;
    if (fclose(o.f) != 0 && !o.err)
        o.err = errno ? errno : EIO;
    if (o.err) {
        snprintf(err, errlen, "cannot write %s: %s", path, strerror(o.err));
        return -1;
    }
    return 0;
}
