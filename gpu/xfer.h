/*
 * xfer.h: what every GPU schedule uses on a card (pass.c): copies over its
 * link, straight from pinned memory or through staging slots, counted for
 * hfft_info.link_bytes and cut into pieces; one cuFFT plan; strided columns
 * computed transposed; and the copy-out blocks of a slow dimension.  Private
 * to gpu/.
 */
#ifndef HFFT_GPU_XFER_H
#define HFFT_GPU_XFER_H

#include <stddef.h>
#include <stdint.h>

#include "gpu/stage.h"
#include "src/core/device.h"

/* One card's link as a schedule drives it. */
typedef struct hfft__xfer {
    const hfft__dev_ops *ops;
    hfft__dev *d;
    hfft__stage *stage; /* pageable arrays: copies through pinned slots (NULL: none) */
    int64_t bytes[2];   /* copied host to device [0] and back [1] since last taken */
} hfft__xfer;

/* ops->h2d and ops->d2h over the link (pitches and widths in bytes), on stream s. */
int hfft__xfer_h2d(hfft__xfer *l, hfft__stream s, void *dev, size_t dpitch, const char *host,
                   size_t hpitch, size_t width, size_t rows);
int hfft__xfer_d2h(hfft__xfer *l, hfft__stream s, char *host, size_t hpitch, const void *dev,
                   size_t dpitch, size_t width, size_t rows);
/* hfft__xfer_d2h where no copy in shares the link: pieces of up to 1 GiB rather
   than 32 MiB.  A large array's copy-out block is then a few calls rather than
   hundreds; one host thread issues every card's blocks in turn, and with hundreds
   a block it fell behind the links (each card idle between its blocks). */
int hfft__xfer_d2h_alone(hfft__xfer *l, hfft__stream s, char *host, size_t hpitch,
                         const void *dev, size_t dpitch, size_t width, size_t rows);

/* One transform plan (the backend's fft_plan); *work raised to its work area. */
int hfft__fft_plan1(const hfft__dev_ops *o, hfft__dev *d, int prec, int sign, hfft__fftplan *p,
                    int kind, int rank, const int64_t *n, int64_t stride, int64_t dist,
                    int64_t batch, size_t *work);

/* The transforms of w strided columns of length L (neighbouring columns of a tile
   of row pitch `pitch` elements), wc at a time: each group transposed into the
   scratch tb, transformed there by `plan` (wc contiguous lines), transposed back;
   on stream c.  cuFFT's strided transforms of long lines run at a fraction of
   its contiguous speed, and a scratch of a few columns leaves the budget to the
   array. */
int hfft__columns(const hfft__dev_ops *o, hfft__dev *d, int prec, hfft__stream c, void *tb,
                  void *work, hfft__fftplan plan, char *tile, int64_t pitch, int64_t L,
                  int64_t w, int64_t wc);

/* A 2D copy on card d's stream s between d's memory and card `other`'s (the
   pointers say which way): within the card where other is d itself. */
static inline int hfft__card_copy(const hfft__dev_ops *o, hfft__dev *d, hfft__stream s,
                                  hfft__dev *other, void *dst, size_t dpitch, const void *src,
                                  size_t spitch, size_t width, size_t height) {
    return other == d ? o->d2d(d, s, dst, dpitch, src, spitch, width, height)
                      : o->peer(d, s, other, dst, dpitch, src, spitch, width, height);
}

/* Copy-out blocks of a slow dimension: w columns of es-byte elements split into a
   narrow first block (its transforms are all an execute waits for between the
   last copy in and the first copy out) and then blocks whose rows are at least
   64 KiB wide (the link moves narrower pitched rows slower); start[0..n] are the
   bounds, n (at most HFFT__OUT_BLOCKS) is returned. */
#define HFFT__OUT_BLOCKS 8
int hfft__out_blocks(int64_t w, size_t es, int64_t *start);

#endif
