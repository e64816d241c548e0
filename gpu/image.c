/*
 * image.c: a streaming image held on one card (image.h).  The card holds the
 * image and the grid of pending points (each the image's size), transform
 * plans of the grid (whole: rank 1 or 2 in one plan, rank 3 as planes then
 * lines along dimension 0; split: every dimension but the last, then rows),
 * a batch of key vectors with their plan, and room for the points on their
 * way in.
 *
 *   send     points copied in from pinned host memory as they arrive (the
 *            card's copy of the buffer mirrors the host's) and summed into the
 *            grid, while the host goes on;
 *   grid     the grid transformed in place, then added to the image (which
 *            clears it); split, the last dimension's rows are transformed
 *            block by block, each ahead of its add and copy out;
 *   keys     the vectors copied in, transformed, and added along every image
 *            row in one pass (the HFFT__SPIFT_KEYS step).
 *
 * A flush's last step (the grid's add, or the last keys pass) runs in blocks
 * of image rows on the compute stream, each block copied out on the copy
 * stream as soon as it is done, so that the image's update hides under its
 * copy to host memory, which bounds a flush.
 *
 * An image too large for the card stays in host memory (hfft__image_pass):
 * the card holds the key vectors and three blocks of rows, and a direct
 * flush passes the image through, each block in, updated and out at once.
 *
 * On n cards (hfft__image_cards) each card holds a part: image rows in one
 * block, dimension 0's indices [q n0 / n, (q + 1) n0 / n) on card q, and the
 * grid's indices q modulo n.  Each point goes to every card, whose scatter
 * keeps its own; a keys pass updates each card's rows; a grid flush
 * transforms each card's grid (its indices are a grid of n0 / n along
 * dimension 0: decimation in time) in chunks of its fast dimensions, then
 * along dimension 0 through transposed tiles, so that no work area is as
 * large as the grid; then each card gathers, block by block,
 * every card's rows of the indices its output rows need (card to card) and
 * combines them into its image rows, copied out behind; the grids are
 * cleared once every card has read them.
 */
#include "gpu/image.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gpu/devices.h"
#include "gpu/xfer.h"
#include "src/core/problem.h"
#include "src/core/status.h"

#define TRY HFFT__TRY
#define OUT_BLOCKS 8 /* row blocks of a flush's last step, each copied out behind */
#define PASS_SLOTS 4 /* an image passed through: blocks in, updated, out, in turn (a
                        fourth, so that a block's copy in never waits for the copy
                        out of the block three before it) */
#define PASS_BLOCK ((size_t)64 << 20) /* bytes of a block, at most */
#define COMBINE_BLOCK ((size_t)32 << 20) /* several cards: bytes each card's rows of a
                                             combined block fill, at most */
#define PART_CHUNK ((size_t)64 << 20) /* a part's grid transformed in chunks of this (its
                                         fast dimensions) and dimension 0 through a
                                         transposed tile of this, at most */
#define PART_COLS 128                 /* dimension-0 lines per transposed tile, at most */

struct hfft__image {
    const hfft__dev_ops *o;
    hfft__dev *d;
    hfft__image_desc desc;
    size_t es;
    int64_t total, L, rows;
    hfft__stream s, c;   /* compute, and copies out */
    hfft__event ev[OUT_BLOCKS];
    /* an image in host memory passed through (hfft__image_pass): row blocks of brows */
    int pass;
    int64_t brows;
    void *slot[PASS_SLOTS];
    hfft__stream in;
    hfft__event in_ev[PASS_SLOTS], comp_ev[PASS_SLOTS], out_ev[PASS_SLOTS];
    void *img, *grid, *work, *vec, *tw, *cells, *vals, *keyv;
    void *h_keys, *h_vec, *h_tw; /* pinned staging */
    hfft__fftplan gplan[2], vplan;
    /* one card, rank 2 or 3, the grid's transform split (where `split`; else whole, by
       gplan): every dimension but the last first (cplan), then the last on the rows of
       each of a flush's blocks ahead of its copy out (rplan: rows / nb and one more) */
    hfft__fftplan cplan, rplan[2];
    int split;
    int64_t twn_max;
    int64_t link[2];
    /* several cards: the whole holds its parts only (nparts > 0); part q of n (of 0:
       not a part) holds image rows from prow and the grid's dimension-0 indices q
       mod n, and gathers every card's rows of cb indices at a time into stage */
    int nparts;
    hfft__image *parts[HFFT_MAX_CARDS];
    int q, of;
    int64_t prow, plane, cb;
    int64_t gchunk, gcols;   /* its grid's transform: indices of dimension 0 a chunk,
                                dimension-0 lines a tile */
    void *stage, *tb;
    hfft__event ready, read; /* its grid transformed; every card's rows of it read */
};

static int sync(hfft__image *im) { return im->o->sync(im->d, im->s); }

/* How many blocks of rows a flush's last step takes, each copied out behind the
   next: block b of nb holds rows [rows b / nb, rows (b + 1) / nb), rows / nb of
   them or one more (rplan[0], rplan[1]). */
static int64_t out_blocks(const hfft__image *im) {
    return im->rows < OUT_BLOCKS ? im->rows : OUT_BLOCKS;
}

static int h2d(hfft__image *im, void *dev, const void *host, size_t bytes) {
    im->link[0] += (int64_t)bytes;
    return im->o->h2d(im->d, im->s, dev, bytes, host, bytes, bytes, 1);
}

void hfft__image_destroy(hfft__image *im) {
    if (!im)
        return;
    /* every card's queue run first: a card's stream may wait on another's events */
    for (int k = 0; k < im->nparts; k++) {
        hfft__image *p = im->parts[k];
        if (!p)
            continue;
        p->o->activate(p->d);
        hfft__stream q[3] = {p->s, p->c, p->in};
        for (int i = 0; i < 3; i++)
            if (q[i])
                p->o->sync(p->d, q[i]);
    }
    for (int k = 0; k < im->nparts; k++)
        hfft__image_destroy(im->parts[k]);
    if (im->nparts) {
        free(im);
        return;
    }
    const hfft__dev_ops *o = im->o;
    o->activate(im->d);
    if (im->s)
        o->sync(im->d, im->s);
    if (im->c)
        o->sync(im->d, im->c);
    for (int k = 0; k < 2; k++) {
        if (im->gplan[k])
            o->fft_destroy(im->d, im->gplan[k]);
        if (im->rplan[k])
            o->fft_destroy(im->d, im->rplan[k]);
    }
    if (im->cplan)
        o->fft_destroy(im->d, im->cplan);
    if (im->vplan)
        o->fft_destroy(im->d, im->vplan);
    if (im->in)
        o->sync(im->d, im->in);
    void *dev[] = {im->img,  im->grid, im->work, im->vec,   im->tw,
                   im->cells, im->vals, im->keyv, im->stage, im->tb};
    for (size_t k = 0; k < sizeof dev / sizeof dev[0]; k++)
        if (dev[k])
            o->free(im->d, dev[k]);
    for (int k = 0; k < PASS_SLOTS; k++)
        if (im->slot[k])
            o->free(im->d, im->slot[k]);
    void *host[] = {im->h_keys, im->h_vec, im->h_tw};
    for (size_t k = 0; k < sizeof host / sizeof host[0]; k++)
        if (host[k])
            o->host_free(im->d, host[k]);
    for (int b = 0; b < OUT_BLOCKS; b++)
        if (im->ev[b])
            o->event_destroy(im->d, im->ev[b]);
    if (im->ready)
        o->event_destroy(im->d, im->ready);
    if (im->read)
        o->event_destroy(im->d, im->read);
    for (int k = 0; k < PASS_SLOTS; k++) {
        hfft__event ev[] = {im->in_ev[k], im->comp_ev[k], im->out_ev[k]};
        for (int e = 0; e < 3; e++)
            if (ev[e])
                o->event_destroy(im->d, ev[e]);
    }
    if (im->in)
        o->stream_destroy(im->d, im->in);
    if (im->c)
        o->stream_destroy(im->d, im->c);
    if (im->s)
        o->stream_destroy(im->d, im->s);
    free(im);
}

/* The split transform's plans gone (the whole plan runs each grid flush). */
static void drop_split(hfft__image *im) {
    hfft__fftplan *pl[] = {&im->cplan, &im->rplan[0], &im->rplan[1]};
    for (int k = 0; k < 3; k++)
        if (*pl[k])
            im->o->fft_destroy(im->d, *pl[k]);
    im->cplan = im->rplan[0] = im->rplan[1] = NULL;
}

/* The plans, then whether everything fits: 0, 1 (not), or a failure. */
static int make(hfft__image *im) {
    const hfft__dev_ops *o = im->o;
    const hfft__image_desc *q = &im->desc;
    size_t work = 0, w = 0, wsplit = 0;
    hfft__dev *d = im->d;
    /* a part's grid: its n0 / n indices of dimension 0, its fast dimensions in chunks of
       gchunk indices, then dimension 0 through a transposed tile of gcols lines (no work
       area as large as the grid: each card holds twice its part) */
    int64_t gn[3] = {q->n[0] / (im->of ? im->of : 1), q->n[1], q->n[2]};
    size_t tbb = 0;
    if (im->of) {
        int64_t g = gn[0], P = im->plane;
        im->gchunk = 1;
        for (int64_t c = 1; c <= (g / 4 > 1 ? g / 4 : 1); c++) /* four chunks at least */
            if (g % c == 0 && (size_t)(c * P) * im->es <= PART_CHUNK)
                im->gchunk = c;
        int64_t wc = (int64_t)(PART_CHUNK / ((size_t)g * im->es));
        wc = wc < 1 ? 1 : wc > PART_COLS ? PART_COLS : wc;
        im->gcols = wc > P ? P : wc;
        tbb = (size_t)(im->gcols * g) * im->es;
        TRY(o->fft_plan(d, q->prec, HFFT__C2C, q->rank - 1, gn + 1, 1, P, im->gchunk, q->sign,
                        &im->gplan[0], &w));
        work = w > work ? w : work;
        TRY(o->fft_plan(d, q->prec, HFFT__C2C, 1, gn, 1, g, im->gcols, q->sign, &im->gplan[1],
                        &w));
        work = w > work ? w : work;
    } else {
        if (q->rank <= 2) {
            TRY(o->fft_plan(d, q->prec, HFFT__C2C, q->rank, gn, 1, im->total, 1, q->sign,
                            &im->gplan[0], &w));
            work = w > work ? w : work;
        } else { /* planes of n1 x n2, then n1 n2 lines of n0 */
            TRY(o->fft_plan(d, q->prec, HFFT__C2C, 2, gn + 1, 1, gn[1] * gn[2], gn[0], q->sign,
                            &im->gplan[0], &w));
            work = w > work ? w : work;
            TRY(o->fft_plan(d, q->prec, HFFT__C2C, 1, gn, gn[1] * gn[2], 1, gn[1] * gn[2],
                            q->sign, &im->gplan[1], &w));
            work = w > work ? w : work;
        }
        if (q->rank > 1) { /* split: the dimensions but the last for each of L columns */
            int64_t nb = out_blocks(im), lo = im->rows / nb;
            int st = o->fft_plan(d, q->prec, HFFT__C2C, q->rank - 1, gn, im->L, 1, im->L,
                                 q->sign, &im->cplan, &w);
            wsplit = w;
            for (int k = 0; !st && k < (im->rows % nb ? 2 : 1); k++) {
                st = o->fft_plan(d, q->prec, HFFT__C2C, 1, &im->L, 1, im->L, lo + k, q->sign,
                                 &im->rplan[k], &w);
                wsplit = w > wsplit ? w : wsplit;
            }
            if (st) { /* (optional: the whole plan does without) */
                hfft__clear_error();
                drop_split(im);
            }
        }
    }
    TRY(o->fft_plan(d, q->prec, HFFT__C2C, 1, &im->L, 1, im->L, q->keys, q->sign, &im->vplan, &w));
    work = w > work ? w : work;
    im->twn_max = 0;
    for (int k = 0; k < q->rank - 1 && !q->shift; k++)
        im->twn_max += q->n[k];
    size_t img = (size_t)im->total * im->es, vec = (size_t)(q->keys * im->L) * im->es;
    size_t tw = (size_t)(q->keys * im->twn_max) * im->es;
    size_t pts = (size_t)q->points * (sizeof(int64_t) + im->es);
    size_t keys = (size_t)q->keys * sizeof(int64_t);
    size_t stage = im->of ? (size_t)(im->of * im->cb * im->plane) * im->es : 0;
    int64_t need = (int64_t)(2 * img + vec + tw + pts + keys + work + stage + tbb);
    int64_t room = o->budget(d) - o->used(d) - o->reserve(d);
    if (need > room)
        return 1;
    if (im->cplan && need + (int64_t)(wsplit > work ? wsplit - work : 0) > room)
        drop_split(im); /* its work area would not fit beside the rest */
    else if (im->cplan)
        work = wsplit > work ? wsplit : work;
    if (stage)
        TRY(o->alloc(d, &im->stage, stage));
    if (tbb)
        TRY(o->alloc(d, &im->tb, tbb));
    TRY(o->alloc(d, &im->img, img));
    TRY(o->alloc(d, &im->grid, img));
    if (work)
        TRY(o->alloc(d, &im->work, work));
    TRY(o->alloc(d, &im->vec, vec));
    if (tw)
        TRY(o->alloc(d, &im->tw, tw));
    TRY(o->alloc(d, &im->cells, (size_t)q->points * sizeof(int64_t)));
    TRY(o->alloc(d, &im->vals, (size_t)q->points * im->es));
    TRY(o->alloc(d, &im->keyv, keys));
    TRY(o->host_alloc(d, &im->h_keys, keys));
    TRY(o->host_alloc(d, &im->h_vec, vec));
    if (tw)
        TRY(o->host_alloc(d, &im->h_tw, tw));
    return 0;
}

/* A new image's fields from desc (NULL: out of host memory). */
static hfft__image *fields(const hfft__dev_ops *o, hfft__dev *d, const hfft__image_desc *desc) {
    hfft__image *im = calloc(1, sizeof *im);
    if (!im)
        return NULL;
    im->o = o;
    im->d = d;
    im->desc = *desc;
    im->es = 2u * (size_t)desc->prec;
    im->total = 1;
    for (int k = 0; k < desc->rank; k++)
        im->total *= desc->n[k];
    im->L = desc->n[desc->rank - 1];
    im->rows = im->total / im->L;
    return im;
}

/* A new image's fields from desc, and its compute and copy-out streams: 0 and *out,
   or a failure (nothing held). */
static int start(const hfft__dev_ops *o, hfft__dev *d, const hfft__image_desc *desc,
                 hfft__image **out) {
    hfft__image *im = fields(o, d, desc);
    if (!im)
        return hfft__fail(HFFT_ERR_HOST_MEMORY, "streaming image: out of host memory");
    int st = o->activate(d);
    if (!st)
        st = o->stream_create(d, &im->s);
    if (!st)
        st = o->stream_create(d, &im->c);
    if (st) {
        hfft__image_destroy(im);
        return st;
    }
    *out = im;
    return 0;
}

/* The end of a creation: *out on success; else nothing held, and 1 (it does not fit,
   no error) or the failure. */
static int made(hfft__image *im, int st, hfft__image **out) {
    if (st) {
        hfft__image_destroy(im);
        if (st == 1)
            hfft__clear_error();
        return st;
    }
    *out = im;
    return 0;
}

/* The grid's whole transform (gplan[0], then gplan[1] where rank 3 has it). */
static int grid_whole(hfft__image *im) {
    for (int g = 0; g < 2 && im->gplan[g]; g++)
        TRY(im->o->fft_exec(im->d, im->gplan[g], im->s, im->grid, im->work));
    return 0;
}

/* Whether a flush transforms the grid split (the last dimension block by block, each
   block's copy out behind it) or whole.  Split hides most of the transform behind the
   copies, but cuFFT's strided lines of the other dimensions can take longer than its
   whole plan (a 16384^2 image's columns).  What a flush does not hide is compared, on
   the zero grid, best of two: split, the other dimensions and the first block's rows;
   whole, the whole plan.  The emulated device splits rank 2 and runs rank 3 whole (its
   times mean nothing; the tests run both ways so). */
static int choose_split(hfft__image *im) {
    const hfft__dev_ops *o = im->o;
    im->split = im->desc.rank == 2;
    if (o == hfft__device_ops(HFFT_DEVICE_EMULATED))
        return 0;
    double best[2] = {INFINITY, INFINITY};
    for (int rep = 0; rep < 2; rep++)
        for (int k = 0; k < 2; k++) {
            TRY(sync(im));
            double t = hfft__now();
            if (k) {
                TRY(o->fft_exec(im->d, im->cplan, im->s, im->grid, im->work));
                TRY(o->fft_exec(im->d, im->rplan[0], im->s, im->grid, im->work));
            } else {
                TRY(grid_whole(im));
            }
            TRY(sync(im));
            t = hfft__now() - t;
            best[k] = t < best[k] ? t : best[k];
        }
    im->split = best[1] < best[0];
    return 0;
}

int hfft__image_create(const hfft__dev_ops *o, hfft__dev *d, const hfft__image_desc *desc,
                       const void *host, hfft__image **out) {
    *out = NULL;
    hfft__image *im;
    TRY(start(o, d, desc, &im));
    int st = 0;
    for (int b = 0; b < OUT_BLOCKS && !st; b++)
        st = o->event_create(d, &im->ev[b]);
    if (!st)
        st = make(im);
    if (!st) /* the image in, the grid at zero */
        st = h2d(im, im->img, host, (size_t)im->total * im->es);
    if (!st) {
        hfft__spift z = {.step = HFFT__SPIFT_ZERO, .count = im->total};
        st = o->spift(d, desc->prec, im->s, im->grid, NULL, &z);
    }
    if (!st && im->cplan) /* (transforms of the zero grid leave it zero) */
        st = choose_split(im);
    if (!st)
        st = sync(im);
    return made(im, st, out);
}

int hfft__image_cards(const hfft__dev_ops *o, hfft__dev *const *devs, int n,
                      const hfft__image_desc *desc, const void *host, hfft__image **out) {
    *out = NULL;
    if (n == 1)
        return hfft__image_create(o, devs[0], desc, host, out);
    if (n < 1 || n > HFFT_MAX_CARDS || desc->rank < 2 || desc->n[0] % n != 0)
        return 1; /* (parts by dimension 0: it has n indices or a multiple) */
    hfft__image *im = fields(o, NULL, desc);
    if (!im)
        return hfft__fail(HFFT_ERR_HOST_MEMORY, "streaming image: out of host memory");
    im->nparts = n;
    int64_t plane = im->total / desc->n[0], per = desc->n[0] / n;
    int64_t cb = (int64_t)(COMBINE_BLOCK / ((size_t)plane * im->es));
    cb = cb < 1 ? 1 : cb > per ? per : cb;
    int st = 0;
    for (int k = 0; k < n && !st; k++) {
        hfft__image *p;
        st = start(o, devs[k], desc, &p);
        if (st)
            break;
        im->parts[k] = p;
        p->q = k;
        p->of = n;
        p->plane = plane;
        p->cb = cb;
        p->total = im->total / n;
        p->rows = im->rows / n;
        p->prow = p->rows * k;
        for (int b = 0; b < OUT_BLOCKS && !st; b++)
            st = o->event_create(devs[k], &p->ev[b]);
        if (!st)
            st = o->event_create(devs[k], &p->ready);
        if (!st)
            st = o->event_create(devs[k], &p->read);
        if (!st)
            st = make(p);
        if (!st) /* its rows of the image in, its grid at zero */
            st = h2d(p, p->img, (const char *)host + (size_t)(p->prow * im->L) * im->es,
                     (size_t)p->total * im->es);
        if (!st) {
            hfft__spift z = {.step = HFFT__SPIFT_ZERO, .count = p->total};
            st = o->spift(p->d, desc->prec, p->s, p->grid, NULL, &z);
        }
        if (!st)
            st = sync(p);
    }
    return made(im, st, out);
}

int hfft__image_send(hfft__image *im, int64_t at, int64_t count, const int64_t *cell,
                     const void *value) {
    for (int k = 0; k < im->nparts; k++)
        TRY(hfft__image_send(im->parts[k], at, count, cell, value));
    if (im->nparts)
        return 0;
    const hfft__dev_ops *o = im->o;
    if (count <= 0)
        return 0;
    if (at < 0 || at + count > im->desc.points)
        return hfft__fail(HFFT_ERR_INTERNAL, "streaming image: points [%lld, %lld) of %lld",
                          (long long)at, (long long)(at + count), (long long)im->desc.points);
    TRY(o->activate(im->d));
    int64_t *dc = (int64_t *)im->cells + at;
    char *dv = (char *)im->vals + (size_t)at * im->es;
    TRY(h2d(im, dc, cell + at, (size_t)count * sizeof(int64_t)));
    TRY(h2d(im, dv, (const char *)value + (size_t)at * im->es, (size_t)count * im->es));
    hfft__spift a = {.step = HFFT__SPIFT_SCATTER, .count = count, .cell = dc,
                     .parts = im->of, .part = im->q, .plane = im->plane};
    return o->spift(im->d, im->desc.prec, im->s, im->grid, dv, &a);
}

int hfft__image_wait(hfft__image *im) {
    for (int k = 0; k < im->nparts; k++)
        TRY(hfft__image_wait(im->parts[k]));
    if (im->nparts)
        return 0;
    TRY(im->o->activate(im->d));
    return sync(im);
}

int hfft__image_clear(hfft__image *im) {
    for (int k = 0; k < im->nparts; k++)
        TRY(hfft__image_clear(im->parts[k]));
    if (im->nparts)
        return 0;
    TRY(im->o->activate(im->d));
    hfft__spift z = {.step = HFFT__SPIFT_ZERO, .count = im->total};
    TRY(im->o->spift(im->d, im->desc.prec, im->s, im->grid, NULL, &z));
    return sync(im);
}

/* Copies out rows [r0, r1) of the card's image to the host image `host` behind what
   its compute stream has issued, with event e. */
static int block_out(hfft__image *im, hfft__event e, void *host, int64_t r0, int64_t r1) {
    const hfft__dev_ops *o = im->o;
    size_t off = (size_t)(r0 * im->L) * im->es, bytes = (size_t)((r1 - r0) * im->L) * im->es;
    TRY(o->record(im->d, e, im->s));
    TRY(o->wait(im->d, im->c, e));
    im->link[1] += (int64_t)bytes;
    return o->d2h(im->d, im->c, (char *)host + (size_t)(im->prow * im->L) * im->es + off, bytes,
                  (char *)im->img + off, bytes, bytes, 1);
}

static int finish_sync(hfft__image *im) {
    TRY(im->o->activate(im->d));
    TRY(im->o->sync(im->d, im->c));
    return sync(im);
}

/* The last step, in blocks of rows, each copied out to `host` behind (NULL: none): the
   grid's add (keys NULL) or a keys pass (*keys with its rows set per block); issued,
   not waited for. */
static int finish_issue(hfft__image *im, hfft__spift *keys, void *host) {
    const hfft__dev_ops *o = im->o;
    int64_t L = im->L, nb = out_blocks(im);
    for (int64_t b = 0; b < nb; b++) {
        int64_t r0 = im->rows * b / nb, r1 = im->rows * (b + 1) / nb;
        size_t off = (size_t)(r0 * L) * im->es;
        if (keys) {
            keys->row0 = im->prow + r0;
            keys->drow = im->prow;
            keys->rows = r1 - r0;
            TRY(o->spift(im->d, im->desc.prec, im->s, im->img, im->vec, keys));
        } else {
            if (im->split) /* the grid's last dimension, on these rows */
                TRY(o->fft_exec(im->d, im->rplan[r1 - r0 == im->rows / nb ? 0 : 1], im->s,
                                (char *)im->grid + off, im->work));
            hfft__spift a = {.step = HFFT__SPIFT_ADD, .count = (r1 - r0) * L};
            TRY(o->spift(im->d, im->desc.prec, im->s, (char *)im->img + off,
                         (char *)im->grid + off, &a));
        }
        if (host)
            TRY(block_out(im, im->ev[b], host, r0, r1));
    }
    return 0;
}

static int finish(hfft__image *im, hfft__spift *keys, void *host) {
    TRY(finish_issue(im, keys, host));
    return finish_sync(im);
}

/* Card p's compute stream, active, waits for every card's `ready` (read 0: its grid
   transformed) or `read` (1: every card's rows of it gathered). */
static int after_every_card(hfft__image *im, hfft__image *p, int read) {
    TRY(p->o->activate(p->d));
    for (int k = 0; k < im->nparts; k++)
        TRY(p->o->wait(p->d, p->s, read ? im->parts[k]->read : im->parts[k]->ready));
    return 0;
}

/* Several cards' grid flush: each card's grid transformed; then card q's output
   indices of dimension 0, g = q n0 / n + k, gather every card's rows k of its grid
   (X_g = sum over s of W^(s g) Y_s[k], W = exp(sign 2 pi i / n0)), block by block,
   each block combined into the image and copied out behind; the grids cleared once
   every card has read them. */
static int grid_cards(hfft__image *im, void *host) {
    const hfft__dev_ops *o = im->o;
    int n = im->nparts;
    int64_t per = im->desc.n[0] / n, plane = im->total / im->desc.n[0];
    size_t es = im->es, pb = (size_t)plane * es;
    for (int k = 0; k < n; k++) {
        hfft__image *p = im->parts[k];
        TRY(o->activate(p->d));
        for (int64_t c = 0; c < per; c += p->gchunk)
            TRY(o->fft_exec(p->d, p->gplan[0], p->s, (char *)p->grid + (size_t)c * pb, p->work));
        TRY(hfft__columns(o, p->d, im->desc.prec, p->s, p->tb, p->work, p->gplan[1], p->grid,
                          plane, per, plane, p->gcols));
        TRY(o->record(p->d, p->ready, p->s));
    }
    for (int q = 0; q < n; q++) {
        hfft__image *p = im->parts[q];
        TRY(after_every_card(im, p, 0));
        int64_t rows_per = p->rows / per; /* image rows per index of dimension 0 */
        for (int64_t k0 = 0, b = 0; k0 < per; k0 += p->cb, b++) {
            int64_t m = per - k0 < p->cb ? per - k0 : p->cb;
            for (int k = 0; k < n; k++) {
                hfft__image *from = im->parts[k];
                /* card k's rows as block k of m indices (the combine's layout) */
                char *dst = (char *)p->stage + (size_t)(k * m) * pb;
                const char *src = (const char *)from->grid + (size_t)k0 * pb;
                TRY(hfft__card_copy(o, p->d, p->s, from->d, dst, pb, src, pb, pb, (size_t)m));
            }
            hfft__spift a = {.step = HFFT__SPIFT_COMBINE, .sign = im->desc.sign,
                             .row0 = q * per + k0, .rows = m, .L = plane, .nk = n};
            a.n[0] = im->desc.n[0];
            TRY(o->spift(p->d, im->desc.prec, p->s, (char *)p->img + (size_t)k0 * pb, p->stage,
                         &a));
            if (host)
                TRY(block_out(p, p->ev[b % OUT_BLOCKS], host, k0 * rows_per,
                              (k0 + m) * rows_per));
        }
        TRY(o->record(p->d, p->read, p->s));
    }
    for (int q = 0; q < n; q++) {
        hfft__image *p = im->parts[q];
        TRY(after_every_card(im, p, 1));
        hfft__spift z = {.step = HFFT__SPIFT_ZERO, .count = p->total};
        TRY(o->spift(p->d, im->desc.prec, p->s, p->grid, NULL, &z));
    }
    for (int q = 0; q < n; q++)
        TRY(finish_sync(im->parts[q]));
    return 0;
}

int hfft__image_grid(hfft__image *im, void *host) {
    TRY(hfft__image_grid_start(im, host));
    return hfft__image_grid_end(im);
}

int hfft__image_grid_end(hfft__image *im) { return im->nparts ? 0 : finish_sync(im); }

int hfft__image_grid_start(hfft__image *im, void *host) {
    if (im->nparts)
        return grid_cards(im, host);
    const hfft__dev_ops *o = im->o;
    TRY(o->activate(im->d));
    if (im->split)
        TRY(o->fft_exec(im->d, im->cplan, im->s, im->grid, im->work)); /* the rest by blocks */
    else
        TRY(grid_whole(im));
    return finish_issue(im, NULL, host);
}

void hfft__image_staging(hfft__image *im, void **vecs, void **tw) {
    if (im->nparts) /* the first card's, copied to the others' at each pass */
        im = im->parts[0];
    *vecs = im->h_vec;
    *tw = im->h_tw;
}

/* The staged vectors of nk keys, their keys and phase tables copied in, the vectors
   transformed, on the compute stream; *a the keys step over every row. */
static int vectors(hfft__image *im, int64_t nk, const int64_t *keys, hfft__spift *a) {
    const hfft__dev_ops *o = im->o;
    const hfft__image_desc *q = &im->desc;
    if (nk < 1 || nk > q->keys)
        return hfft__fail(HFFT_ERR_INTERNAL, "streaming image: %lld keys (at most %lld)",
                          (long long)nk, (long long)q->keys);
    TRY(o->activate(im->d));
    size_t vb = (size_t)(nk * im->L) * im->es;
    TRY(h2d(im, im->vec, im->h_vec, vb));
    if (nk < q->keys) { /* the plan transforms q->keys vectors: the rest at zero */
        hfft__spift z = {.step = HFFT__SPIFT_ZERO, .count = (q->keys - nk) * im->L};
        TRY(o->spift(im->d, q->prec, im->s, (char *)im->vec + vb, NULL, &z));
    }
    memcpy(im->h_keys, keys, (size_t)nk * sizeof(int64_t));
    TRY(h2d(im, im->keyv, im->h_keys, (size_t)nk * sizeof(int64_t)));
    if (im->twn_max)
        TRY(h2d(im, im->tw, im->h_tw, (size_t)(nk * im->twn_max) * im->es));
    TRY(o->fft_exec(im->d, im->vplan, im->s, im->vec, im->work));
    *a = (hfft__spift){.step = HFFT__SPIFT_KEYS, .shift = q->shift, .rank = q->rank,
                       .rows = im->rows, .L = im->L, .nk = nk, .twn = im->twn_max,
                       .cell = im->keyv, .tw = im->twn_max ? im->tw : NULL};
    for (int k = 0; k < 3; k++) {
        a->n[k] = q->n[k];
        a->lead[k] = q->lead[k];
    }
    return 0;
}

int hfft__image_keys(hfft__image *im, int64_t nk, const int64_t *keys, void *host) {
    if (im->nparts) {
        /* every card's rows at once, from the first card's staging */
        hfft__image *p0 = im->parts[0];
        for (int k = 1; k < im->nparts && nk > 0 && nk <= im->desc.keys; k++) {
            hfft__image *p = im->parts[k];
            memcpy(p->h_vec, p0->h_vec, (size_t)(nk * im->L) * im->es);
            if (p->twn_max)
                memcpy(p->h_tw, p0->h_tw, (size_t)(nk * p->twn_max) * im->es);
        }
        for (int k = 0; k < im->nparts; k++) {
            hfft__image *p = im->parts[k];
            hfft__spift a;
            TRY(vectors(p, nk, keys, &a));
            if (host) {
                TRY(finish_issue(p, &a, host));
            } else {
                a.row0 = a.drow = p->prow;
                a.rows = p->rows;
                TRY(p->o->spift(p->d, im->desc.prec, p->s, p->img, p->vec, &a));
            }
        }
        for (int k = 0; k < im->nparts; k++)
            TRY(finish_sync(im->parts[k]));
        return 0;
    }
    const hfft__dev_ops *o = im->o;
    const hfft__image_desc *q = &im->desc;
    hfft__spift a;
    TRY(vectors(im, nk, keys, &a));
    if (host)
        return finish(im, &a, host);
    TRY(o->spift(im->d, q->prec, im->s, im->img, im->vec, &a));
    return sync(im); /* the staging is filled again for the next pass */
}

void hfft__image_take_link(hfft__image *im, int64_t bytes[2]) {
    bytes[0] = im->link[0];
    bytes[1] = im->link[1];
    im->link[0] = im->link[1] = 0;
    for (int k = 0; k < im->nparts; k++) {
        int64_t b[2];
        hfft__image_take_link(im->parts[k], b);
        bytes[0] += b[0];
        bytes[1] += b[1];
    }
}

int hfft__image_peek(hfft__image *im, void *host, size_t bytes) {
    if (im->nparts) { /* every card its share at once */
        size_t each = bytes / (size_t)im->nparts;
        for (int k = 0; k < im->nparts && each; k++) {
            hfft__image *p = im->parts[k];
            size_t most = (size_t)p->total * im->es, b = each < most ? each : most;
            TRY(p->o->activate(p->d));
            TRY(p->o->d2h(p->d, p->c, (char *)host + (size_t)k * each, b, p->img, b, b, 1));
        }
        for (int k = 0; k < im->nparts; k++)
            TRY(finish_sync(im->parts[k]));
        return 0;
    }
    size_t most = (size_t)im->total * im->es;
    TRY(im->o->activate(im->d));
    TRY(im->o->d2h(im->d, im->c, host, bytes, im->img, bytes, bytes < most ? bytes : most, 1));
    return im->o->sync(im->d, im->c);
}

/* ---- an image in host memory, passed through the card ---- */

/* The vectors' plan and area, the phase tables, and PASS_SLOTS row blocks of the
   image, as large as PASS_BLOCK and half the budget left allow: 0, 1 (not even one row
   each), or a failure. */
static int make_pass(hfft__image *im) {
    const hfft__dev_ops *o = im->o;
    const hfft__image_desc *q = &im->desc;
    hfft__dev *d = im->d;
    size_t work = 0, rowb = (size_t)im->L * im->es;
    TRY(o->fft_plan(d, q->prec, HFFT__C2C, 1, &im->L, 1, im->L, q->keys, q->sign, &im->vplan,
                    &work));
    im->twn_max = 0;
    for (int k = 0; k < q->rank - 1 && !q->shift; k++)
        im->twn_max += q->n[k];
    size_t vec = (size_t)(q->keys * im->L) * im->es, tw = (size_t)(q->keys * im->twn_max) * im->es;
    size_t keys = (size_t)q->keys * sizeof(int64_t);
    int64_t left = o->budget(d) - o->used(d) - o->reserve(d) - (int64_t)(vec + tw + keys + work);
    int64_t brows = (int64_t)(PASS_BLOCK / rowb);
    if (left > 0 && brows * (int64_t)rowb * PASS_SLOTS > left / 2)
        brows = left / 2 / PASS_SLOTS / (int64_t)rowb;
    if (brows > im->rows)
        brows = im->rows;
    if (left <= 0 || brows < 1)
        return 1;
    im->brows = brows;
    if (work)
        TRY(o->alloc(d, &im->work, work));
    TRY(o->alloc(d, &im->vec, vec));
    if (tw)
        TRY(o->alloc(d, &im->tw, tw));
    TRY(o->alloc(d, &im->keyv, keys));
    for (int k = 0; k < PASS_SLOTS; k++)
        TRY(o->alloc(d, &im->slot[k], (size_t)brows * rowb));
    TRY(o->host_alloc(d, &im->h_keys, keys));
    TRY(o->host_alloc(d, &im->h_vec, vec));
    if (tw)
        TRY(o->host_alloc(d, &im->h_tw, tw));
    TRY(o->stream_create(d, &im->in));
    for (int k = 0; k < PASS_SLOTS; k++) {
        TRY(o->event_create(d, &im->in_ev[k]));
        TRY(o->event_create(d, &im->comp_ev[k]));
        TRY(o->event_create(d, &im->out_ev[k]));
    }
    return 0;
}

int hfft__image_pass(const hfft__dev_ops *o, hfft__dev *d, const hfft__image_desc *desc,
                     hfft__image **out) {
    *out = NULL;
    hfft__image *im;
    TRY(start(o, d, desc, &im));
    im->pass = 1;
    return made(im, make_pass(im), out);
}

int hfft__image_pass_keys(hfft__image *im, int64_t nk, const int64_t *keys, void *host,
                          int64_t rows) {
    const hfft__dev_ops *o = im->o;
    const hfft__image_desc *q = &im->desc;
    if (!im->pass || rows < 0 || rows > im->rows)
        return hfft__fail(HFFT_ERR_INTERNAL, "streaming image: a pass over %lld rows",
                          (long long)rows);
    size_t rowb = (size_t)im->L * im->es;
    hfft__spift a;
    TRY(vectors(im, nk, keys, &a));
    /* block b through slot b mod PASS_SLOTS: in on its stream once the slot's last
       block is out, its keys once in, out once updated; the copies in the link's
       pieces, which keep the copy in up with the copy out (gpu/pass.c) */
    hfft__xfer l = {.ops = o, .d = im->d};
    for (int64_t r0 = 0, b = 0; r0 < rows; r0 += im->brows, b++) {
        int k = (int)(b % PASS_SLOTS);
        int64_t n = rows - r0 < im->brows ? rows - r0 : im->brows;
        size_t bytes = (size_t)n * rowb;
        char *at = (char *)host + (size_t)r0 * rowb;
        if (b >= PASS_SLOTS)
            TRY(o->wait(im->d, im->in, im->out_ev[k]));
        TRY(hfft__xfer_h2d(&l, im->in, im->slot[k], bytes, at, bytes, bytes, 1));
        TRY(o->record(im->d, im->in_ev[k], im->in));
        TRY(o->wait(im->d, im->s, im->in_ev[k]));
        a.row0 = a.drow = r0;
        a.rows = n;
        TRY(o->spift(im->d, q->prec, im->s, im->slot[k], im->vec, &a));
        TRY(o->record(im->d, im->comp_ev[k], im->s));
        TRY(o->wait(im->d, im->c, im->comp_ev[k]));
        TRY(hfft__xfer_d2h(&l, im->c, at, bytes, im->slot[k], bytes, bytes, 1));
        TRY(o->record(im->d, im->out_ev[k], im->c));
    }
    im->link[0] += l.bytes[0];
    im->link[1] += l.bytes[1];
    TRY(o->sync(im->d, im->in));
    TRY(o->sync(im->d, im->c));
    return sync(im);
}
