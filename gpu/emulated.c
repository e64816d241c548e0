/*
 * emulated.c: the emulated device, a test double of the GPU.  It implements
 * the device interface in host memory with the budget enforced on every
 * allocation, FFTW for the batched transforms and the same butterfly code as
 * the CUDA kernels, so that CI (which has no GPU) runs the whole out-of-card
 * schedule: passes, subsequence splits, combinations, ratios.  Work runs when
 * the host synchronizes, in a random order that a GPU could also choose (see
 * run_all).  It says nothing about GPU speed.
 *
 * Faults injected through HFFT_FAULT (src/core/fault.c) fail its calls as they
 * would fail on the GPU.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "gpu/emulated.h"
#include "gpu/r2r.h"
#include "gpu/r2r_plan.h"
#include "gpu/split.h"
#include "src/core/device.h"
#include "src/core/fault.h"
#include "src/core/problem.h"
#include "src/core/status.h"

#define EMU_DEFAULT_BUDGET (64 << 20)
#define HDR 64

/*
 * Work is queued per stream and runs when the host synchronizes, in a random
 * order that keeps each stream's order and every event wait, as a GPU may
 * run it.  A schedule that forgets a wait then computes wrong results here
 * (in CI) and not only, now and then, on a GPU.  HFFT_EMULATED_ORDER=issue
 * runs the work in issue order instead; the random order's seed is drawn per
 * device from a process-wide counter, so a run repeats itself.
 * HFFT_EMULATED_MEMORY=K:BYTES[,K:BYTES...] gives card K that much memory: its
 * budget is the plan's or that, the smaller, as a CUDA card's is its free
 * memory where that is less (the cards of a plan then differ).
 */


typedef struct emu_stream {
    emu_op *q;
    size_t head, n, cap;
    struct emu_stream *next;
} emu_stream;

/* What the cards of one plan share: their queues run as one device would run
   several (a wait on another card's event holds until that card ran it). */
typedef struct emu_world {
    pthread_mutex_t mu; /* the queues: a plan's streams are driven by one thread, but be safe */
    emu_stream *streams;
    uint64_t rng, issued;
    int in_order;
    int refs;
} emu_world;

typedef struct emu_block {
    const char *p;
    size_t bytes;
} emu_block;

struct hfft__dev {
    int64_t budget, used;
    int ordinal;
    emu_world *w;
    emu_block *blocks; /* this card's memory: operations on its streams may touch only it */
    int nblocks, cap;
};

static int fault(const char *op) {
    if (!hfft__fault_hit(op))
        return 0;
    return hfft__fail(strcmp(op, "alloc") == 0 ? HFFT_ERR_DEVICE_MEMORY : HFFT_ERR_CUDA,
                      "emulated device: %s failed: injected fault", op);
}

#define EMU_CARDS 16

static int emu_count(void) { return EMU_CARDS; }

/* Card k's memory from HFFT_EMULATED_MEMORY; 0 where it names none. */
static int64_t card_memory(int k) {
    const char *v = getenv("HFFT_EMULATED_MEMORY");
    while (v && *v) {
        char *end;
        long card = strtol(v, &end, 10);
        if (*end != ':')
            return 0;
        long long bytes = strtoll(end + 1, &end, 10);
        if (card == k && bytes > 0)
            return (int64_t)bytes;
        v = *end == ',' ? end + 1 : NULL;
    }
    return 0;
}

static int emu_open_card(int ordinal, int64_t budget, hfft__dev *const *open, int nopen,
                         hfft__dev **out) {
    static uint64_t opened;
    hfft__dev *first = nopen > 0 ? open[0] : NULL;
    if (ordinal >= EMU_CARDS)
        return hfft__fail(HFFT_ERR_NO_DEVICE, "emulated device: no card %d (0 to %d)", ordinal,
                          EMU_CARDS - 1);
    hfft__dev *d = calloc(1, sizeof *d);
    if (!d)
        return hfft__fail(HFFT_ERR_HOST_MEMORY, "emulated device: out of memory");
    d->budget = budget > 0 ? budget : EMU_DEFAULT_BUDGET;
    d->ordinal = ordinal < 0 ? 0 : ordinal;
    int64_t memory = card_memory(d->ordinal);
    if (memory > 0 && memory < d->budget)
        d->budget = memory;
    if (first) {
        d->w = first->w;
        pthread_mutex_lock(&d->w->mu);
        d->w->refs++;
        pthread_mutex_unlock(&d->w->mu);
    } else {
        d->w = calloc(1, sizeof *d->w);
        if (!d->w) {
            free(d);
            return hfft__fail(HFFT_ERR_HOST_MEMORY, "emulated device: out of memory");
        }
        pthread_mutex_init(&d->w->mu, NULL);
        d->w->refs = 1;
        d->w->rng =
            0x9e3779b97f4a7c15ull * (__atomic_add_fetch(&opened, 1, __ATOMIC_RELAXED) + 1);
        const char *order = getenv("HFFT_EMULATED_ORDER");
        d->w->in_order = order && strcmp(order, "issue") == 0;
    }
    *out = d;
    return 0;
}

static int emu_open(int64_t budget, hfft__dev **out) {
    return emu_open_card(-1, budget, NULL, 0, out);
}

static int emu_ordinal(hfft__dev *d) { return d->ordinal; }

/* Whether [p, p + bytes) lies in one of d's allocations. */
static int owns(const hfft__dev *d, const void *p, size_t bytes) {
    for (int i = 0; i < d->nblocks; i++)
        if ((const char *)p >= d->blocks[i].p &&
            (const char *)p + bytes <= d->blocks[i].p + d->blocks[i].bytes)
            return 1;
    return 0;
}

/* A pitched region of d's memory, or the failure a GPU would show as a fault. */
static int check(const hfft__dev *d, const void *p, size_t pitch, size_t width, size_t height,
                 const char *what) {
    size_t span = height ? (height - 1) * pitch + width : 0;
    if (!span || owns(d, p, span))
        return 0;
    return hfft__fail(HFFT_ERR_INTERNAL,
                      "emulated card %d: %s touches memory that is not the card's own", d->ordinal,
                      what);
}

static void emu_close(hfft__dev *d) {
    pthread_mutex_lock(&d->w->mu);
    int last = --d->w->refs == 0;
    pthread_mutex_unlock(&d->w->mu);
    if (last) {
        pthread_mutex_destroy(&d->w->mu);
        free(d->w);
    }
    free(d->blocks);
    free(d);
}
static int64_t emu_budget(hfft__dev *d) { return d->budget; }
static int64_t emu_used(hfft__dev *d) { return d->used; }
static int64_t emu_reserve(hfft__dev *d) {
    (void)d;
    return 0; /* FFTW plans live in host memory */
}
static const char *emu_describe(hfft__dev *d) {
    (void)d;
    return "emulated";
}

static int64_t emu_memory(hfft__dev *d) {
    (void)d;
    return 0; /* its memory is the host's: the budget is all it has */
}

static void emu_signature(hfft__dev *d, char *buf, size_t n) {
    (void)d;
    snprintf(buf, n, "gpu=emulated;driver=0;cuda=0;cufft=0");
}

static int emu_alloc(hfft__dev *d, void **p, size_t bytes) {
    *p = NULL;
    int st = fault("alloc");
    if (st)
        return st;
    if (d->used + (int64_t)bytes > d->budget)
        return hfft__fail(HFFT_ERR_DEVICE_MEMORY,
                          "emulated device: %s would exceed the budget of %s (%s in use)",
                          hfft__bytes_text((double)bytes).s,
                          hfft__bytes_text((double)d->budget).s,
                          hfft__bytes_text((double)d->used).s);
    char *m = aligned_alloc(HDR, HDR + ((bytes + HDR - 1) / HDR) * HDR);
    if (!m)
        return hfft__fail(HFFT_ERR_DEVICE_MEMORY, "emulated device: host allocation failed");
    if (d->nblocks == d->cap) {
        int cap = d->cap ? 2 * d->cap : 16;
        emu_block *b = realloc(d->blocks, (size_t)cap * sizeof *b);
        if (!b) {
            free(m);
            return hfft__fail(HFFT_ERR_HOST_MEMORY, "emulated device: out of memory");
        }
        d->blocks = b;
        d->cap = cap;
    }
    memcpy(m, &bytes, sizeof bytes);
    /* Fresh device memory holds garbage: so does ours, to catch unwritten reads. */
    memset(m + HDR, 0x7f, bytes);
    d->used += (int64_t)bytes;
    *p = m + HDR;
    d->blocks[d->nblocks++] = (emu_block){*p, bytes};
    return 0;
}

static void emu_free(hfft__dev *d, void *p) {
    if (!p)
        return;
    char *m = (char *)p - HDR;
    size_t bytes;
    memcpy(&bytes, m, sizeof bytes);
    d->used -= (int64_t)bytes;
    for (int i = 0; i < d->nblocks; i++)
        if (d->blocks[i].p == p) {
            d->blocks[i] = d->blocks[--d->nblocks];
            break;
        }
    free(m);
}

static int emu_stream_create(hfft__dev *d, hfft__stream *s) {
    emu_stream *q = calloc(1, sizeof *q);
    if (!q)
        return hfft__fail(HFFT_ERR_HOST_MEMORY, "emulated stream");
    pthread_mutex_lock(&d->w->mu);
    q->next = d->w->streams;
    d->w->streams = q;
    pthread_mutex_unlock(&d->w->mu);
    *s = q;
    return 0;
}

static int run_all(hfft__dev *d, emu_stream *until);

static void emu_stream_destroy(hfft__dev *d, hfft__stream s) {
    emu_stream *q = s;
    run_all(d, q); /* as cudaStreamDestroy: queued work still completes */
    pthread_mutex_lock(&d->w->mu);
    for (emu_stream **p = &d->w->streams; *p; p = &(*p)->next) {
        if (*p == q) {
            *p = q->next;
            break;
        }
    }
    pthread_mutex_unlock(&d->w->mu);
    free(q->q);
    free(q);
}

static int emu_event_create(hfft__dev *d, hfft__event *e) {
    (void)d;
    *e = calloc(1, sizeof(emu_event));
    return *e ? 0 : hfft__fail(HFFT_ERR_HOST_MEMORY, "emulated event");
}
static void emu_event_destroy(hfft__dev *d, hfft__event e) {
    (void)d;
    free(e);
}

static int push(hfft__dev *d, hfft__stream s, const emu_op *op) {
    emu_stream *q = s;
    pthread_mutex_lock(&d->w->mu);
    if (q->n == q->cap && q->head > 0) {
        /* drop what has run before growing */
        memmove(q->q, q->q + q->head, (q->n - q->head) * sizeof *op);
        q->n -= q->head;
        q->head = 0;
    }
    if (q->n == q->cap) {
        size_t cap = q->cap ? 2 * q->cap : 64;
        emu_op *grown = realloc(q->q, cap * sizeof *op);
        if (!grown) {
            pthread_mutex_unlock(&d->w->mu);
            return hfft__fail(HFFT_ERR_HOST_MEMORY, "emulated device: out of memory");
        }
        q->q = grown;
        q->cap = cap;
    }
    q->q[q->n] = *op;
    q->q[q->n++].order = d->w->issued++;
    pthread_mutex_unlock(&d->w->mu);
    return 0;
}

static int emu_record(hfft__dev *d, hfft__event e, hfft__stream s) {
    emu_event *ev = e;
    emu_op op = {.kind = OP_RECORD, .ev = ev, .seq = ++ev->issued};
    return push(d, s, &op);
}

/* As cudaStreamWaitEvent: waits for the event's last record issued so far. */
static int emu_wait(hfft__dev *d, hfft__stream s, hfft__event e) {
    emu_event *ev = e;
    emu_op op = {.kind = OP_WAIT, .ev = ev, .seq = ev->issued};
    return push(d, s, &op);
}

static int emu_activate(hfft__dev *d) {
    (void)d;
    return 0;
}

static uint64_t next_random(hfft__dev *d) {
    d->w->rng ^= d->w->rng << 13;
    d->w->rng ^= d->w->rng >> 7;
    d->w->rng ^= d->w->rng << 17;
    return d->w->rng;
}

/* Runs queued work until `until` is empty (NULL: every stream), or until the
   event `ev` has run its last record. */
static int run_until(hfft__dev *d, emu_stream *until, emu_event *ev) {
    pthread_mutex_lock(&d->w->mu);
    for (;;) {
        emu_stream *ready[64];
        int nready = 0, pending = 0;
        for (emu_stream *q = d->w->streams; q; q = q->next) {
            if (q->head == q->n)
                continue;
            pending = 1;
            const emu_op *op = &q->q[q->head];
            if (d->w->in_order) {
                /* the earliest issued is always ready: what it waits for came before */
                if (!nready || op->order < ready[0]->q[ready[0]->head].order)
                    ready[0] = q, nready = 1;
            } else if ((op->kind != OP_WAIT || op->ev->done >= op->seq) && nready < 64) {
                ready[nready++] = q;
            }
        }
        if ((until && until->head == until->n) || (ev && ev->done >= ev->issued) || !pending)
            break;
        if (nready == 0) {
            pthread_mutex_unlock(&d->w->mu);
            return hfft__fail(HFFT_ERR_INTERNAL, "emulated device: streams wait on each other");
        }
        emu_stream *q = ready[d->w->in_order ? 0 : (int)(next_random(d) % (uint64_t)nready)];
        /* a stream runs a few operations at a time, as a GPU's would */
        for (int k = d->w->in_order ? 1 : (int)(next_random(d) % 3) + 1; k > 0 && q->head < q->n;
             k--) {
            const emu_op *op = &q->q[q->head];
            if (op->kind == OP_WAIT && op->ev->done < op->seq)
                break;
            hfft__emu_execute(op);
            q->head++;
        }
    }
    pthread_mutex_unlock(&d->w->mu);
    return 0;
}

static int run_all(hfft__dev *d, emu_stream *until) { return run_until(d, until, NULL); }

static int emu_sync(hfft__dev *d, hfft__stream s) { return run_all(d, s); }

static int emu_event_sync(hfft__dev *d, hfft__event e) { return run_until(d, NULL, e); }

static int emu_event_elapsed(hfft__dev *d, hfft__event from, hfft__event to, double *secs) {
    (void)d;
    const emu_event *a = from, *b = to;
    if (a->done < a->issued || b->done < b->issued || !a->done || !b->done)
        return hfft__fail(HFFT_ERR_INTERNAL, "emulated device: elapsed time of an event not run");
    *secs = b->at - a->at;
    return 0;
}

static int emu_host_fn(hfft__dev *d, hfft__stream s, void (*fn)(void *), void *arg) {
    int st = fault("host_fn");
    emu_op op = {.kind = OP_HOST, .fn = fn, .arg = arg};
    return st ? st : push(d, s, &op);
}

/* Queues a pitched copy on s (the copy calls' checks done). */
static int push_copy(hfft__dev *d, hfft__stream s, void *dst, size_t dpitch, const void *src,
                     size_t spitch, size_t width, size_t height) {
    emu_op op = {.kind = OP_COPY, .dst = dst, .dpitch = dpitch, .src = src, .spitch = spitch,
                 .width = width, .height = height};
    return push(d, s, &op);
}

static int emu_h2d(hfft__dev *d, hfft__stream s, void *dst, size_t dpitch, const void *src,
                   size_t spitch, size_t width, size_t height) {
    int st = fault("h2d");
    if (!st)
        st = check(d, dst, dpitch, width, height, "a copy to the device");
    return st ? st : push_copy(d, s, dst, dpitch, src, spitch, width, height);
}

static int emu_d2h(hfft__dev *d, hfft__stream s, void *dst, size_t dpitch, const void *src,
                   size_t spitch, size_t width, size_t height) {
    int st = fault("d2h");
    if (!st)
        st = check(d, src, spitch, width, height, "a copy from the device");
    return st ? st : push_copy(d, s, dst, dpitch, src, spitch, width, height);
}

static int emu_d2d(hfft__dev *d, hfft__stream s, void *dst, size_t dpitch, const void *src,
                   size_t spitch, size_t width, size_t height) {
    int st = fault("d2d");
    if (!st)
        st = check(d, src, spitch, width, height, "a device copy's source");
    if (!st)
        st = check(d, dst, dpitch, width, height, "a device copy's destination");
    return st ? st : push_copy(d, s, dst, dpitch, src, spitch, width, height);
}

static int emu_peer(hfft__dev *d, hfft__stream s, hfft__dev *to, void *dst, size_t dpitch,
                    const void *src, size_t spitch, size_t width, size_t height) {
    int st = fault("peer");
    if (!st && to->w != d->w)
        st = hfft__fail(HFFT_ERR_INTERNAL, "emulated card %d: a peer copy to another plan's card",
                        d->ordinal);
    /* from this card to `to`, or from `to` to this card */
    size_t sspan = height ? (height - 1) * spitch + width : 0;
    int pull = sspan && !owns(d, src, sspan) && owns(to, src, sspan);
    if (!st)
        st = check(pull ? to : d, src, spitch, width, height, "a peer copy's source");
    if (!st)
        st = check(pull ? d : to, dst, dpitch, width, height, "a peer copy's destination");
    return st ? st : push_copy(d, s, dst, dpitch, src, spitch, width, height);
}

static int lines_plan(int prec, int kind, int rank, const int64_t *n, int64_t stride,
                      int64_t dist, int64_t batch, int sign, hfft__lines **out);

/* FFTW's lines, or lines cut as the CUDA backend cuts them (gpu/split.h). */
typedef struct emu_plan {
    hfft__lines *lines;
    hfft__split *split;
    hfft__r2r *r2r; /* real-to-real lines (gpu/r2r.c), as the CUDA backend runs them */
} emu_plan;

extern const hfft__dev_ops hfft__emulated_ops;

static int emu_fft_plan(hfft__dev *d, int prec, int kind, int rank, const int64_t *n,
                        int64_t stride, int64_t dist, int64_t batch, int sign,
                        hfft__fftplan *plan, size_t *work_bytes) {
    *plan = NULL;
    *work_bytes = 0;
    int st = fault("fft_plan");
    if (st)
        return st;
    emu_plan *ep = calloc(1, sizeof *ep);
    if (!ep)
        return hfft__fail(HFFT_ERR_HOST_MEMORY, "emulated FFT plan: out of memory");
    if (kind & HFFT__R2R_BIT) {
        st = hfft__r2r_plan(&hfft__emulated_ops, d, prec, kind, rank, n, stride, dist, batch,
                            &ep->r2r, work_bytes);
        if (st)
            free(ep);
        else
            *plan = ep;
        return st;
    }
    st = hfft__split_plan(&hfft__emulated_ops, d, prec, kind, rank, n, stride, dist, batch, sign,
                          &ep->split, work_bytes);
    if (!st && !ep->split)
        st = lines_plan(prec, kind, rank, n, stride, dist, batch, sign, &ep->lines);
    if (st) {
        free(ep);
        return st;
    }
    *plan = ep;
    return 0;
}

static int lines_plan(int prec, int kind, int rank, const int64_t *n, int64_t stride,
                      int64_t dist, int64_t batch, int sign, hfft__lines **out) {
    hfft__lines_desc ld;
    memset(&ld, 0, sizeof ld);
    ld.prec = prec;
    ld.kind = kind;
    ld.rank = rank;
    ld.sign = sign;
    ld.n[0] = n[0];
    ld.n[1] = rank == 2 ? n[1] : 1;
    ld.n[2] = 1;
    ld.is = ld.os = stride;
    ld.howmany = batch;
    ld.idist = ld.odist = dist;
    if (kind != HFFT__C2C) {
        /* the padded in-place layout: real rows of 2 (n/2 + 1), complex rows of n/2 + 1 */
        int64_t half = n[rank - 1] / 2 + 1;
        int real_in = kind == HFFT__R2C;
        ld.ipitch = real_in ? 2 * half : half;
        ld.opitch = real_in ? half : 2 * half;
        ld.idist = real_in ? 2 * dist : dist;
        ld.odist = real_in ? dist : 2 * dist;
    }
    ld.inplace = 1;
    ld.fftw_flags = hfft__fftw_estimate() | hfft__fftw_unaligned();
    return hfft__lines_plan(&ld, out);
}

static int emu_fft_exec(hfft__dev *d, hfft__fftplan plan, hfft__stream s, void *data, void *work) {
    emu_plan *ep = plan;
    if (ep->r2r)
        return hfft__r2r_exec(ep->r2r, s, data, work);
    if (ep->split)
        return hfft__split_exec(ep->split, s, data, work);
    int st = fault("fft_exec");
    if (!st)
        st = check(d, data, 0, 1, 1, "an FFT");
    emu_op op = {.kind = OP_FFT, .plan = ep->lines, .dst = data};
    return st ? st : push(d, s, &op);
}

static void emu_fft_destroy(hfft__dev *d, hfft__fftplan plan) {
    (void)d;
    emu_plan *ep = plan;
    hfft__r2r_destroy(ep->r2r);
    hfft__split_destroy(ep->split);
    hfft__lines_destroy(ep->lines);
    free(ep);
}

static int emu_radix2(hfft__dev *d, int prec, hfft__stream s, void *a, void *b, int64_t rows,
                      int64_t width, int64_t N, int64_t k0, int sign) {
    int st = fault("kernel");
    if (!st)
        st = check(d, a, 0, 1, 1, "a radix-2 kernel");
    if (!st)
        st = check(d, b, 0, 1, 1, "a radix-2 kernel");
    emu_op op = {.kind = OP_RADIX2, .prec = prec, .sign = sign, .dst = a, .blk = {b},
                 .rows = rows, .cols = width, .n = N, .k0 = k0};
    return st ? st : push(d, s, &op);
}

static int emu_radixr(hfft__dev *d, int prec, hfft__stream s, void *const *blk, int r, int64_t rows,
                      int64_t width, int64_t L, int64_t k0, int sign) {
    int st = fault("kernel");
    if (st)
        return st;
    if (r < 2 || r > HFFT__RADIXR_MAX)
        return hfft__fail(HFFT_ERR_INTERNAL, "emulated radix-%d kernel", r);
    emu_op op = {.kind = OP_RADIXR, .prec = prec, .sign = sign, .r = r, .rows = rows,
                 .cols = width, .n = L, .k0 = k0};
    for (int j = 0; j < r; j++)
        op.blk[j] = blk[j];
    return push(d, s, &op);
}

static int emu_twiddle(hfft__dev *d, int prec, hfft__stream s, void *data, int64_t rows,
                       int64_t cols, int64_t pitch, int64_t n, int64_t r0, int64_t period,
                       int64_t c0, int sign) {
    int st = fault("kernel");
    if (!st)
        st = check(d, data, (size_t)pitch * 2u * (size_t)prec, (size_t)cols * 2u * (size_t)prec,
                   (size_t)rows, "a twiddle kernel");
    emu_op op = {.kind = OP_TWIDDLE, .prec = prec, .sign = sign, .dst = data, .rows = rows,
                 .cols = cols, .pitch = pitch, .n = n, .k0 = r0, .period = period, .c0 = c0};
    return st ? st : push(d, s, &op);
}

static int emu_transposes(hfft__dev *d, int prec, hfft__stream s, void *dst, const void *src,
                          const hfft__transposes *t) {
    int st = fault("kernel");
    size_t es = 2u * (size_t)prec;
    if (t->rows <= 0 || t->cols <= 0 || t->batch <= 0)
        return st;
    /* the farthest element either side touches, one batch member's span past the last */
    size_t sspan = (size_t)((t->batch - 1) * t->sdist + (t->rows - 1) * t->spitch + t->cols);
    size_t dspan = (size_t)((t->batch - 1) * t->ddist + (t->cols - 1) * t->dpitch + t->rows);
    if (!st)
        st = check(d, src, 0, sspan * es, 1, "a transpose's source");
    if (!st)
        st = check(d, dst, 0, dspan * es, 1, "a transpose's destination");
    emu_op op = {.kind = OP_TRANSPOSE, .prec = prec, .sign = t->sign, .dst = dst, .src = src,
                 .dpitch = (size_t)t->dpitch, .spitch = (size_t)t->spitch,
                 .width = (size_t)t->rows, .height = (size_t)t->cols, .batch = t->batch,
                 .sdist = t->sdist, .ddist = t->ddist, .n = t->twn};
    return st ? st : push(d, s, &op);
}

static int emu_r2r(hfft__dev *d, int prec, hfft__stream s, void *lines, void *buf,
                   const hfft__r2r_step *a) {
    int st = fault("kernel");
    size_t es = 2u * (size_t)prec;
    if (!st && a->count > 0) {
        /* the first and the last line's reach */
        int64_t first = hfft__r2r_line(a, a->b0), last = hfft__r2r_line(a, a->b0 + a->count - 1);
        int64_t reach = a->row ? (a->n + 1) / 2 : (a->n - 1) * a->stride + 1;
        st = check(d, (char *)lines + (size_t)first * es, 0, (size_t)reach * es, 1,
                   "an r2r step's first line");
        if (!st)
            st = check(d, (char *)lines + (size_t)last * es, 0, (size_t)reach * es, 1,
                       "an r2r step's last line");
        /* WHOLE: one line's points and its tables */
        int64_t bufpts =
            a->step == HFFT__R2R_WHOLE ? hfft__r2r_whole_buf(a->kind, a->n, a->m) : a->count * a->m;
        if (!st)
            st = check(d, buf, 0, (size_t)bufpts * es, 1, "an r2r step's buffer");
    }
    emu_op op = {.kind = OP_R2R, .prec = prec, .dst = lines, .src = buf, .r2r = *a};
    return st ? st : push(d, s, &op);
}

static int emu_spift(hfft__dev *d, int prec, hfft__stream s, void *dst, const void *src,
                     const hfft__spift *a) {
    int st = fault("kernel");
    size_t es = 2u * (size_t)prec;
    if (!st && a->step == HFFT__SPIFT_SCATTER && a->count > 0) {
        st = check(d, a->cell, 0, (size_t)a->count * sizeof(int64_t), 1, "a scatter's cells");
        if (!st)
            st = check(d, src, 0, (size_t)a->count * es, 1, "a scatter's values");
    } else if (!st && a->step == HFFT__SPIFT_ZERO && a->count > 0) {
        st = check(d, dst, 0, (size_t)a->count * es, 1, "a clear");
    } else if (!st && a->step == HFFT__SPIFT_ADD && a->count > 0) {
        st = check(d, dst, 0, (size_t)a->count * es, 1, "an image add");
        if (!st)
            st = check(d, src, 0, (size_t)a->count * es, 1, "an image add's grid");
    } else if (!st && a->step == HFFT__SPIFT_COMBINE && a->nk > 0 && a->rows > 0) {
        st = check(d, dst, 0, (size_t)(a->rows * a->L) * es, 1, "a combine's rows");
        if (!st)
            st = check(d, src, 0, (size_t)(a->nk * a->rows * a->L) * es, 1,
                       "a combine's blocks");
    } else if (!st && a->step == HFFT__SPIFT_KEYS && a->nk > 0) {
        st = check(d, dst, 0, (size_t)((a->row0 + a->rows - a->drow) * a->L) * es, 1,
                   "a keys kernel's image");
        if (!st && a->row0 < a->drow)
            st = hfft__fail(HFFT_ERR_INTERNAL, "emulated card %d: a keys kernel's rows start "
                            "before its image's", d->ordinal);
        if (!st)
            st = check(d, src, 0, (size_t)(a->nk * a->L) * es, 1, "a keys kernel's vectors");
        if (!st)
            st = check(d, a->cell, 0, (size_t)a->nk * sizeof(int64_t), 1, "a keys kernel's keys");
        if (!st && !a->shift && a->rank > 1)
            st = check(d, a->tw, 0, (size_t)(a->nk * a->twn) * es, 1, "a keys kernel's phases");
    }
    emu_op op = {.kind = OP_SPIFT, .prec = prec, .dst = dst, .src = src, .spift = *a};
    return st ? st : push(d, s, &op);
}

static int emu_real_pairs(hfft__dev *d, int prec, hfft__stream s, void *data, int64_t M,
                          int64_t dist, int64_t batch, int forward) {
    int st = fault("kernel");
    if (!st && batch > 0)
        st = check(d, data, (size_t)dist * 2u * (size_t)prec, (size_t)(M + 1) * 2u * (size_t)prec,
                   (size_t)batch, "a real pairs kernel");
    emu_op op = {.kind = OP_REAL_PAIRS, .prec = prec, .sign = forward, .dst = data, .n = M,
                 .pitch = dist, .batch = batch};
    return st ? st : push(d, s, &op);
}

static int emu_chirp(hfft__dev *d, int prec, hfft__stream s, void *lines, void *buf,
                     const void *table, const hfft__chirps *c) {
    int st = fault("kernel");
    size_t es = 2u * (size_t)prec;
    if (c->n <= 0 || c->batch <= 0)
        return st;
    /* complex elements of the lines: real rows span n reals or n/2 + 1 points of a row */
    int64_t last = c->real ? c->n / 2 : (c->n - 1) * c->stride;
    size_t lspan = (size_t)((c->batch - 1) * c->dist + last + 1);
    if (!st)
        st = check(d, buf, 0, (size_t)(c->batch * c->M) * es, 1, "a chirp kernel's buffer");
    if (!st && c->step != HFFT__CHIRP_MUL)
        st = check(d, lines, 0, lspan * es, 1, "a chirp kernel's lines");
    if (!st)
        st = check(d, table, 0, (size_t)(c->M + c->n) * es, 1, "a chirp kernel's table");
    emu_op op = {.kind = OP_CHIRP, .prec = prec, .dst = lines, .blk = {buf}, .src = table,
                 .chirp = *c};
    return st ? st : push(d, s, &op);
}

static int emu_transpose(hfft__dev *d, int prec, hfft__stream s, void *dst, int64_t dpitch,
                         const void *src, int64_t spitch, int64_t rows, int64_t cols) {
    hfft__transposes t = {rows, cols, spitch, dpitch, 0, 0, 1, 0, 0};
    return emu_transposes(d, prec, s, dst, src, &t);
}

/*
 * Host memory as CUDA sees it: what host_alloc returned and what was
 * registered is pinned, the rest is not, and registering a range that
 * overlaps a registered one fails as cudaHostRegister does.  So the planner's
 * registration bookkeeping runs in CI as it runs on a GPU.
 */
const hfft__dev_ops hfft__emulated_ops = {
    .name = "emulated",
    .kind = HFFT_DEVICE_EMULATED,
    .open = emu_open,
    .count = emu_count,
    .open_card = emu_open_card,
    .ordinal = emu_ordinal,
    .peer = emu_peer,
    .close = emu_close,
    .budget = emu_budget,
    .used = emu_used,
    .reserve = emu_reserve,
    .describe = emu_describe,
    .memory = emu_memory,
    .signature = emu_signature,
    .alloc = emu_alloc,
    .free = emu_free,
    .stream_create = emu_stream_create,
    .stream_destroy = emu_stream_destroy,
    .event_create = emu_event_create,
    .event_destroy = emu_event_destroy,
    .record = emu_record,
    .wait = emu_wait,
    .sync = emu_sync,
    .event_sync = emu_event_sync,
    .event_create_timed = emu_event_create,
    .event_elapsed = emu_event_elapsed,
    .host_fn = emu_host_fn,
    .activate = emu_activate,
    .h2d = emu_h2d,
    .d2h = emu_d2h,
    .d2d = emu_d2d,
    .fft_plan = emu_fft_plan,
    .fft_exec = emu_fft_exec,
    .fft_destroy = emu_fft_destroy,
    .radix2 = emu_radix2,
    .radixr = emu_radixr,
    .transpose = emu_transpose,
    .transposes = emu_transposes,
    .real_pairs = emu_real_pairs,
    .chirp = emu_chirp,
    .twiddle = emu_twiddle,
    .spift = emu_spift,
    .r2r = emu_r2r,
    .host_alloc = hfft__emu_host_alloc,
    .host_free = hfft__emu_host_free,
    .host_register = hfft__emu_host_register,
    .host_unregister = hfft__emu_host_unregister,
    .host_is_pinned = hfft__emu_host_is_pinned,
};
