/*
 * calib.c: the link calibration (see calib.h).  Each figure is the best of a
 * few repetitions timed around a stream synchronisation, as the engine's own
 * passes are (over several cards, from the first copy issued to the last
 * card's synchronisation); 2D rows copy with a pitch of 256 KiB, like column
 * passes.
 */
#include "balancer/calib.h"

#include "hfft.h"
#include "src/core/status.h"

#include <string.h>

#define REPS 4
#define PITCH (256u << 10)

typedef struct bufs {
    const hfft__dev_ops *o;
    hfft__dev *d;
    void *h[2], *dv[2];
    hfft__stream s[2];
    size_t bytes;
} bufs;

static void bufs_free(bufs *b) {
    for (int i = 0; i < 2 && b->o; i++) {
        if (b->h[i])
            b->o->host_free(b->d, b->h[i]);
        if (b->dv[i])
            b->o->free(b->d, b->dv[i]);
        if (b->s[i])
            b->o->stream_destroy(b->d, b->s[i]);
    }
}

/* One timed round of copies on the first n cards at once: dir bit 1 = in, bit 2 =
   out; rows of `row` bytes. */
static int timed(bufs *b, int n, int dir, size_t row, double *secs) {
    size_t height = row ? b->bytes / row : 1, width = row ? row : b->bytes;
    size_t pitch = row ? PITCH : b->bytes;
    if (row && height * PITCH > b->bytes)
        height = b->bytes / PITCH;
    int st = 0;
    double t0 = hfft__now();
    for (int k = 0; k < n && !st; k++) {
        const hfft__dev_ops *o = b[k].o;
        if (dir & 1)
            st = o->h2d(b[k].d, b[k].s[0], b[k].dv[0], width, b[k].h[0], pitch, width, height);
        if (!st && (dir & 2))
            st = o->d2h(b[k].d, b[k].s[1], b[k].h[1], pitch, b[k].dv[1], width, width, height);
    }
    /* every card's copies done, those issued before a failure too, before any is freed */
    for (int k = 0; k < n; k++)
        for (int i = 0; i < 2; i++) {
            int sst = b[k].o->sync(b[k].d, b[k].s[i]);
            st = st ? st : sst;
        }
    if (st)
        return st;
    double t = hfft__now() - t0;
    *secs = t > 0 ? t / ((double)n * (double)(width * height)) : 1.0; /* seconds per byte */
    return 0;
}

/* The best of REPS rounds, in bytes/s each way over the n cards together. */
static double best_rate(bufs *b, int n, int dir, size_t row, int *st) {
    double best = 0.0;
    for (int r = 0; r < REPS && !*st; r++) {
        double spb;
        *st = timed(b, n, dir, row, &spb);
        if (!*st && 1.0 / spb > best)
            best = 1.0 / spb;
    }
    return best;
}

/* A card's pinned host buffers, device buffers and two streams. */
static int bufs_make(bufs *b, const hfft__dev_ops *ops, hfft__dev *dev, size_t bytes) {
    b->o = ops;
    b->d = dev;
    b->bytes = bytes;
    for (int i = 0; i < 2; i++) {
        HFFT__TRY(ops->host_alloc(dev, &b->h[i], bytes));
        memset(b->h[i], i + 1, bytes);
        HFFT__TRY(ops->alloc(dev, &b->dv[i], bytes));
        HFFT__TRY(ops->stream_create(dev, &b->s[i]));
    }
    return 0;
}

/* One card's rates on b[0] alone: each direction, both, 2D rows of several widths. */
static void one_card(bufs *b, hfft__link *l, int *st) {
    l->h2d = best_rate(b, 1, 1, 0, st);
    l->d2h = best_rate(b, 1, 2, 0, st);
    l->duplex = best_rate(b, 1, 3, 0, st);
    static const size_t rows[] = {1024, 2048, 4096, 8192, 16384, 32768, 65536};
    for (size_t i = 0; i < sizeof rows / sizeof rows[0] && !*st; i++) {
        double r = best_rate(b, 1, 3, rows[i], st);
        l->row_bytes[l->nrow] = (double)rows[i];
        l->row_eff[l->nrow] = l->duplex > 0 ? r / l->duplex : 0.0;
        if (l->row_eff[l->nrow] > 1.0)
            l->row_eff[l->nrow] = 1.0;
        l->nrow++;
    }
}

int hfft__calibrate_link(const hfft__dev_ops *ops, hfft__dev *const *cards, int n, size_t bytes,
                         hfft__link *l) {
    memset(l, 0, sizeof *l);
    bufs b[HFFT_MAX_CARDS];
    memset(b, 0, sizeof b);
    if (n < 1 || n > HFFT_MAX_CARDS)
        return hfft__fail(HFFT_ERR_INVALID_ARGUMENT, "link calibration: %d cards", n);
    if (!bytes) {
        bytes = 256u << 20;
        for (int k = 0; k < n; k++) {
            int64_t room = (ops->budget(cards[k]) - ops->used(cards[k])) / 4;
            if (room > 0 && (size_t)room < bytes)
                bytes = (size_t)room;
        }
    }
    bytes &= ~(size_t)(PITCH - 1);
    if (bytes < PITCH)
        return hfft__fail(HFFT_ERR_BUDGET, "link calibration needs 1 MiB of device memory");
    int st = 0;
    for (int k = 0; k < n && !st; k++)
        st = bufs_make(&b[k], ops, cards[k], bytes);
    if (!st) {
        (void)best_rate(b, n, 3, 0, &st); /* warm-up */
        one_card(b, l, &st);
    }
    if (!st && n > 1) {
        l->cards = n;
        l->all_h2d = best_rate(b, n, 1, 0, &st);
        l->all_d2h = best_rate(b, n, 2, 0, &st);
        l->all_duplex = best_rate(b, n, 3, 0, &st);
    }
    for (int k = 0; k < n; k++)
        bufs_free(&b[k]);
    return st ? hfft__fail_context(st, "link calibration on %d card%s", n, n > 1 ? "s" : "") : 0;
}
