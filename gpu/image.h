/*
 * image.h: a streaming image held on one card, or on several, between flushes
 * (src/stream.c decides when), with the pending points' grid beside it.  Every step runs on
 * the card's one stream and returns once it has run there.  Private to the
 * library; the creator destroys.
 */
#ifndef HFFT_GPU_IMAGE_H
#define HFFT_GPU_IMAGE_H

#include <stdint.h>

#include "src/core/device.h"

typedef struct hfft__image hfft__image;

typedef struct hfft__image_desc {
    int prec, sign, rank, shift; /* shift: an L x L image, L a power of two (shift keys) */
    int64_t n[3];
    int64_t lead[3];             /* row keys: rows apart along dimension d < rank - 1 */
    int64_t points;              /* points the card holds before they are summed in */
    int64_t keys;                /* key vectors it applies per pass, at most */
} hfft__image_desc;

/* Card d takes the image (host array `host`, copied in) and its grid: 0 and *out; 1
   where they and the work areas do not fit the card's budget (nothing held, no
   error); or a failure. */
int hfft__image_create(const hfft__dev_ops *o, hfft__dev *d, const hfft__image_desc *desc,
                       const void *host, hfft__image **out);
/* The same over n cards devs[] (n = 1: hfft__image_create), each holding its part
   (image.c); 1 also where the shape cannot be cut so (rank 1, or n0 not a multiple of
   n).  The steps below apply to the whole, on every card at once. */
int hfft__image_cards(const hfft__dev_ops *o, hfft__dev *const *devs, int n,
                      const hfft__image_desc *desc, const void *host, hfft__image **out);
void hfft__image_destroy(hfft__image *im);

/* Points [at, at + count) of the pinned host arrays cell and value (the backend's
   host_alloc; at + count at most desc->points) summed into the grid: cell[p]
   (linear, row-major) gains value[p].  Returns once issued; those points of the host
   arrays must not change before hfft__image_wait or a step that waits returned. */
int hfft__image_send(hfft__image *im, int64_t at, int64_t count, const int64_t *cell,
                     const void *value);
/* Waits for everything issued. */
int hfft__image_wait(hfft__image *im);
/* The grid back to zero (points sent but applied another way); waits. */
int hfft__image_clear(hfft__image *im);
/* The grid transformed and added to the image, which is then copied out to the host
   array `host` (NULL: not); the grid left at zero. */
int hfft__image_grid(hfft__image *im, void *host);
/* The same in two halves: issued (on several cards, run whole), then waited for. */
int hfft__image_grid_start(hfft__image *im, void *host);
int hfft__image_grid_end(hfft__image *im);
/* Pinned host staging that the next hfft__image_keys copies in: desc->keys rows of L
   coefficients (each transformed on the card), and for row keys of rank > 1, the
   phase tables, desc->keys rows of twn (the sum of the sizes but the last) (else
   NULL). */
void hfft__image_staging(hfft__image *im, void **vecs, void **tw);
/* The first nk staged keys (nk at most desc->keys), of keys keys[], added to the
   image; where `host` is not NULL, the image is then copied out to it. */
int hfft__image_keys(hfft__image *im, int64_t nk, const int64_t *keys, void *host);
/* The image's first `bytes` (at most all of it) copied to the host array `host`, not
   counted as a flush's: how fast the image leaves the card. */
int hfft__image_peek(hfft__image *im, void *host, size_t bytes);
/* An image that stays in host memory, passed through card d at each of its direct
   flushes (hfft__image_pass_keys): the card holds the keys' vectors and three blocks
   of image rows.  0 and *out; 1 where not even blocks of one row fit (nothing held,
   no error); or a failure.  hfft__image_staging, hfft__image_take_link and
   hfft__image_destroy apply; the other steps do not. */
int hfft__image_pass(const hfft__dev_ops *o, hfft__dev *d, const hfft__image_desc *desc,
                     hfft__image **out);
/* The first nk staged keys (at most desc->keys) of keys keys[] added to the first
   `rows` rows of the host image `host` (pinned for the link's rate): the rows pass
   through the card in blocks, in, updated and out at once; waits. */
int hfft__image_pass_keys(hfft__image *im, int64_t nk, const int64_t *keys, void *host,
                          int64_t rows);
/* Bytes copied host to device [0] and back [1] since the last call. */
void hfft__image_take_link(hfft__image *im, int64_t bytes[2]);

#endif
