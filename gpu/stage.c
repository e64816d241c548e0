/*
 * stage.c: copies between pageable host arrays and the device through a few
 * pinned staging slots, for plans that leave the caller's arrays unregistered.
 * A copy in is packed into a slot by host threads, in a host function on the
 * pack stream, then copied to the device from the slot; a copy out lands in a
 * slot and is unpacked by a host function on the unpack stream.  Events order
 * each slot's reuse, so packing overlaps the device's copies, and every
 * dependency is one the device (or the emulated device) keeps itself.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "cpu/cpu.h"
#include "gpu/stage.h"
#include "src/core/status.h"

#define NSTAGE 2 /* slots per direction: one filled while the other is copied */
#define NJOB 64  /* host-function arguments in flight */
#define PIECE ((size_t)1 << 20)

typedef struct stage_job {
    hfft__stage *s;
    char *dst;
    const char *src;
    size_t dpitch, spitch, width, rows;
} stage_job;

struct hfft__stage {
    const hfft__dev_ops *ops;
    hfft__dev *d;
    hfft__pool *pool;
    pthread_mutex_t mu; /* one batch on the pool at a time */
    size_t slot_bytes;
    void *slot[2][NSTAGE];           /* [0] copies in, [1] copies out */
    hfft__event free_ev[2][NSTAGE];  /* in: the slot's copy to the device is done;
                                        out: the slot has been unpacked */
    hfft__event full_ev[2][NSTAGE];  /* in: packed; out: the copy from the device landed */
    hfft__stream pack, unpack;
    uint64_t used[2];                /* slots taken per direction */
    stage_job job[NJOB];
    hfft__event job_ev[NJOB];
    uint64_t njob;
};

/* Rows (or, where both sides are dense, bytes) split among the pool's threads. */
static void copy_piece(void *ctx, int64_t i, int thread) {
    (void)thread;
    const stage_job *j = ctx;
    if (j->dpitch == j->width && j->spitch == j->width) {
        size_t total = j->width * j->rows, at = (size_t)i * PIECE;
        size_t n = total - at < PIECE ? total - at : PIECE;
        memcpy(j->dst + at, j->src + at, n);
        return;
    }
    memcpy(j->dst + (size_t)i * j->dpitch, j->src + (size_t)i * j->spitch, j->width);
}

static void run_job(void *arg) {
    stage_job *j = arg;
    int64_t n = j->dpitch == j->width && j->spitch == j->width
                    ? (int64_t)((j->width * j->rows + PIECE - 1) / PIECE)
                    : (int64_t)j->rows;
    pthread_mutex_lock(&j->s->mu);
    hfft__pool_start(j->s->pool, n, copy_piece, j);
    hfft__pool_wait(j->s->pool);
    pthread_mutex_unlock(&j->s->mu);
}

void hfft__stage_destroy(hfft__stage *s) {
    if (!s)
        return;
    const hfft__dev_ops *o = s->ops;
    /* Host functions may still be queued: let them run before their memory goes. */
    if (s->pack)
        (void)o->sync(s->d, s->pack);
    if (s->unpack)
        (void)o->sync(s->d, s->unpack);
    for (int k = 0; k < 2; k++) {
        for (int i = 0; i < NSTAGE; i++) {
            if (s->slot[k][i])
                o->host_free(s->d, s->slot[k][i]);
            if (s->free_ev[k][i])
                o->event_destroy(s->d, s->free_ev[k][i]);
            if (s->full_ev[k][i])
                o->event_destroy(s->d, s->full_ev[k][i]);
        }
    }
    for (int i = 0; i < NJOB; i++)
        if (s->job_ev[i])
            o->event_destroy(s->d, s->job_ev[i]);
    if (s->pack)
        o->stream_destroy(s->d, s->pack);
    if (s->unpack)
        o->stream_destroy(s->d, s->unpack);
    hfft__pool_destroy(s->pool);
    pthread_mutex_destroy(&s->mu);
    free(s);
}

int hfft__stage_create(const hfft__dev_ops *ops, hfft__dev *d, size_t slot_bytes, int threads,
                       hfft__stage **out) {
    *out = NULL;
    hfft__stage *s = calloc(1, sizeof *s);
    if (!s)
        return hfft__fail(HFFT_ERR_HOST_MEMORY, "staging: out of memory");
    s->ops = ops;
    s->d = d;
    s->slot_bytes = slot_bytes;
    pthread_mutex_init(&s->mu, NULL);
    int st = hfft__pool_create(threads, 1, &s->pool);
    for (int k = 0; k < 2 && !st; k++) {
        for (int i = 0; i < NSTAGE && !st; i++) {
            st = ops->host_alloc(d, &s->slot[k][i], slot_bytes);
            if (!st)
                st = ops->event_create(d, &s->free_ev[k][i]);
            if (!st)
                st = ops->event_create(d, &s->full_ev[k][i]);
        }
    }
    for (int i = 0; i < NJOB && !st; i++)
        st = ops->event_create(d, &s->job_ev[i]);
    if (!st)
        st = ops->stream_create(d, &s->pack);
    if (!st)
        st = ops->stream_create(d, &s->unpack);
    if (st) {
        hfft__stage_destroy(s);
        return hfft__fail_context(st, "staging buffers of %s",
                                  hfft__bytes_text((double)slot_bytes).s);
    }
    *out = s;
    return 0;
}

int64_t hfft__stage_bytes(const hfft__stage *s) {
    return s ? (int64_t)(2 * NSTAGE * s->slot_bytes) : 0;
}

/* The next job's arguments, once the host function that last used them ran. */
static int take_job(hfft__stage *s, stage_job **j, hfft__event *done) {
    int i = (int)(s->njob++ % NJOB);
    if (s->njob > NJOB)
        HFFT__TRY(s->ops->event_sync(s->d, s->job_ev[i]));
    *j = &s->job[i];
    (*j)->s = s;
    *done = s->job_ev[i];
    return 0;
}

/* Copies one way through that direction's slots, a slot at a time: in, pack
   (pack stream) then copy to the device (caller's stream q); out, copy from
   the device (q) then unpack (unpack stream).  Rows wider than a slot go in
   pieces of a slot's width. */
static int staged(hfft__stage *s, int out, hfft__stream q, char *dev, size_t dpitch, char *host,
                  size_t hpitch, size_t width, size_t rows) {
    const hfft__dev_ops *o = s->ops;
    hfft__dev *d = s->d;
    size_t piece = width < s->slot_bytes ? width : s->slot_bytes;
    for (size_t w0 = 0; w0 < width; w0 += piece) {
        size_t pw = width - w0 < piece ? width - w0 : piece;
        size_t most = s->slot_bytes / pw;
        for (size_t r0 = 0, n; r0 < rows; r0 += n) {
            n = rows - r0 < most ? rows - r0 : most;
            int k = (int)(s->used[out]++ % NSTAGE);
            char *slot = s->slot[out][k], *h = host + r0 * hpitch + w0,
                 *dv = dev + r0 * dpitch + w0;
            hfft__event free_ev = s->free_ev[out][k], full_ev = s->full_ev[out][k], done;
            stage_job *j;
            HFFT__TRY(take_job(s, &j, &done));
            if (!out) {
                *j = (stage_job){s, slot, h, pw, hpitch, pw, n};
                /* pack over the slot once its last copy to the device is done */
                HFFT__TRY(o->wait(d, s->pack, free_ev));
                HFFT__TRY(o->host_fn(d, s->pack, run_job, j));
                HFFT__TRY(o->record(d, done, s->pack));
                HFFT__TRY(o->record(d, full_ev, s->pack));
                HFFT__TRY(o->wait(d, q, full_ev));
                HFFT__TRY(o->h2d(d, q, dv, dpitch, slot, pw, pw, n));
                HFFT__TRY(o->record(d, free_ev, q));
            } else {
                *j = (stage_job){s, h, slot, hpitch, pw, pw, n};
                /* land in the slot once its last contents were unpacked */
                HFFT__TRY(o->wait(d, q, free_ev));
                HFFT__TRY(o->d2h(d, q, slot, pw, dv, dpitch, pw, n));
                HFFT__TRY(o->record(d, full_ev, q));
                HFFT__TRY(o->wait(d, s->unpack, full_ev));
                HFFT__TRY(o->host_fn(d, s->unpack, run_job, j));
                HFFT__TRY(o->record(d, done, s->unpack));
                HFFT__TRY(o->record(d, free_ev, s->unpack));
            }
        }
    }
    return 0;
}

int hfft__stage_h2d(hfft__stage *s, hfft__stream in, void *dev, size_t dpitch, const void *host,
                    size_t hpitch, size_t width, size_t rows) {
    return staged(s, 0, in, dev, dpitch, (char *)host, hpitch, width, rows);
}

int hfft__stage_d2h(hfft__stage *s, hfft__stream out, void *host, size_t hpitch, const void *dev,
                    size_t dpitch, size_t width, size_t rows) {
    return staged(s, 1, out, (char *)dev, dpitch, host, hpitch, width, rows);
}

/* Waits for every staged copy issued so far, unpacking included. */
int hfft__stage_sync(hfft__stage *s) {
    HFFT__TRY(s->ops->sync(s->d, s->pack));
    return s->ops->sync(s->d, s->unpack);
}
