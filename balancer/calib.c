/*
 * calib.c: the link calibration (see calib.h).  Each figure is the best of a
 * few repetitions timed around a stream synchronisation, as the engine's own
 * passes are; 2D rows copy with a pitch of 256 KiB, like column passes.
 */
#include "balancer/calib.h"
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
    for (int i = 0; i < 2; i++) {
        if (b->h[i])
            b->o->host_free(b->d, b->h[i]);
        if (b->dv[i])
            b->o->free(b->d, b->dv[i]);
        if (b->s[i])
            b->o->stream_destroy(b->d, b->s[i]);
    }
}


/* One timed round of copies: dir bit 1 = in, bit 2 = out; rows of `row` bytes. */
static int timed(bufs *b, int dir, size_t row, double *secs) {
    const hfft__dev_ops *o = b->o;
    size_t height = row ? b->bytes / row : 1, width = row ? row : b->bytes;
    size_t pitch = row ? PITCH : b->bytes;
    if (row && height * PITCH > b->bytes)
        height = b->bytes / PITCH;
    double t0 = hfft__now();
    if (dir & 1)
        HFFT__TRY(o->h2d(b->d, b->s[0], b->dv[0], width, b->h[0], pitch, width, height));
    if (dir & 2)
        HFFT__TRY(o->d2h(b->d, b->s[1], b->h[1], pitch, b->dv[1], width, width, height));
    HFFT__TRY(o->sync(b->d, b->s[0]));
    HFFT__TRY(o->sync(b->d, b->s[1]));
    double t = hfft__now() - t0;
    *secs = t > 0 ? t / (double)(width * height) : 1.0; /* seconds per byte */
    return 0;
}

static double best_rate(bufs *b, int dir, size_t row, int *st) {
    double best = 0.0;
    for (int r = 0; r < REPS && !*st; r++) {
        double spb;
        *st = timed(b, dir, row, &spb);
        if (!*st && 1.0 / spb > best)
            best = 1.0 / spb;
    }
    return best;
}

int hfft__calibrate_link(const hfft__dev_ops *ops, hfft__dev *dev, size_t bytes, hfft__link *l) {
    memset(l, 0, sizeof *l);
    bufs b;
    memset(&b, 0, sizeof b);
    b.o = ops;
    b.d = dev;
    if (!bytes) {
        bytes = 256u << 20;
        int64_t room = (ops->budget(dev) - ops->used(dev)) / 4;
        if (room > 0 && (size_t)room < bytes)
            bytes = (size_t)room;
    }
    b.bytes = bytes & ~(size_t)(PITCH - 1);
    if (b.bytes < PITCH)
        return hfft__fail(HFFT_ERR_BUDGET, "link calibration needs 1 MiB of device memory");
    int st = 0;
    for (int i = 0; i < 2 && !st; i++) {
        st = ops->host_alloc(dev, &b.h[i], b.bytes);
        if (!st) {
            memset(b.h[i], i + 1, b.bytes);
            st = ops->alloc(dev, &b.dv[i], b.bytes);
        }
        if (!st)
            st = ops->stream_create(dev, &b.s[i]);
    }
    if (!st) {
        (void)best_rate(&b, 3, 0, &st); /* warm-up */
        l->h2d = best_rate(&b, 1, 0, &st);
        l->d2h = best_rate(&b, 2, 0, &st);
        l->duplex = best_rate(&b, 3, 0, &st);
        static const size_t rows[] = {1024, 2048, 4096, 8192, 16384, 32768, 65536};
        for (size_t i = 0; i < sizeof rows / sizeof rows[0] && !st; i++) {
            double r = best_rate(&b, 3, rows[i], &st);
            l->row_bytes[l->nrow] = (double)rows[i];
            l->row_eff[l->nrow] = l->duplex > 0 ? r / l->duplex : 0.0;
            if (l->row_eff[l->nrow] > 1.0)
                l->row_eff[l->nrow] = 1.0;
            l->nrow++;
        }
    }
    bufs_free(&b);
    return st;
}
