/*
 * r2r.c: a device FFT plan of real-to-real lines (fft_plan with an r2r code,
 * HFFT__R2R_BIT in src/core/problem.h), for both backends.  Each dimension of
 * the lines (one, or a plane's two) is a step: chunks of its lines go through
 * a buffer at the head of the work area, the kind's step before (the r2r op,
 * gpu/r2r.h), the backend's complex FFT of the buffer's lines (planned through
 * the backend's own table, so that its double lines are cut or run Bluestein
 * as any others), and the kind's step after, back into the lines.  The data
 * never leaves its place; the buffer holds at most R2R_CHUNK bytes of lines
 * (one line where a line is larger), each line whole, so that the FFT runs on
 * contiguous lines.  Where neighbouring lines are neighbours in memory
 * (columns), the CUDA kernel goes through tiles of 32 lines and 32 points in
 * shared memory: it reads and writes the lines across lines and the buffer
 * along them, every access coalesced.  Where the FFT's points are a power of
 * two that hfft__r2r_whole_lines takes (gpu/r2r.h), the step is one pass
 * instead (HFFT__R2R_WHOLE): a card's block reads its lines once into shared
 * memory, runs the kind's steps and the FFT there and writes them once, a
 * third of the memory traffic of the three kernels, which matters where the
 * transforms run beside the copies out.
 */
#include "gpu/r2r.h"

#include <stdlib.h>
#include <string.h>

#include "gpu/r2r_plan.h"
#include "src/core/problem.h"
#include "src/core/status.h"

#define R2R_CHUNK ((size_t)64 << 20)

typedef struct step {
    hfft__r2r_step a;       /* b0 and count set per chunk */
    int64_t batch, chunk;   /* lines, and lines per chunk */
    int whole;              /* in one pass (HFFT__R2R_WHOLE): no chunks, no FFT plans */
    hfft__fftplan fft[2];   /* chunk lines, and the last chunk's */
} step;

struct hfft__r2r {
    const hfft__dev_ops *o;
    hfft__dev *d;
    int prec, nstep;
    step st[2];
    size_t buf;             /* bytes of the buffer at the head of the work area */
};

void hfft__r2r_destroy(hfft__r2r *p) {
    if (!p)
        return;
    for (int i = 0; i < p->nstep; i++)
        for (int k = 0; k < 2; k++)
            if (p->st[i].fft[k])
                p->o->fft_destroy(p->d, p->st[i].fft[k]);
    free(p);
}

/* One step: `batch` lines of kind `kind` (n complex elements; a row's n reals are
   twice that), line b at (b / inner) odist + (b % inner) idist, points stride apart. */
static int add_step(hfft__r2r *p, int kind, int row, int64_t n, int64_t stride, int64_t inner,
                    int64_t idist, int64_t odist, int64_t batch, size_t *work) {
    step *s = &p->st[p->nstep++];
    int64_t nr = row ? 2 * n : n, m = hfft__r2r_points(kind, nr);
    size_t es = 2u * (size_t)p->prec, line = (size_t)m * es;
    int across = !row && stride > 1 && idist == 1 && inner > 1;
    s->a = (hfft__r2r_step){.kind = kind, .row = row, .across = across, .n = nr, .m = m,
                            .stride = stride, .inner = inner, .idist = idist, .odist = odist};
    s->batch = batch;
    if (hfft__r2r_whole_lines(p->prec, m)) {
        /* the buffer: a line (the emulated device's), then the tables */
        size_t buf = ((size_t)hfft__r2r_whole_buf(kind, nr, m) * es + 255) & ~(size_t)255;
        s->whole = 1;
        if (buf > p->buf)
            p->buf = buf;
        return 0;
    }
    s->chunk = line >= R2R_CHUNK ? 1 : (int64_t)(R2R_CHUNK / line);
    if (s->chunk > batch)
        s->chunk = batch;
    size_t w = 0, w1 = 0;
    int sign = hfft__r2r_sign(kind);
    /* each chunk's lines whole in the buffer, m apart */
    int64_t last = batch % s->chunk;
    HFFT__TRY(p->o->fft_plan(p->d, p->prec, HFFT__C2C, 1, &m, 1, m, s->chunk, sign, &s->fft[0],
                             &w));
    if (last)
        HFFT__TRY(p->o->fft_plan(p->d, p->prec, HFFT__C2C, 1, &m, 1, m, last, sign, &s->fft[1],
                                 &w1));
    size_t buf = ((size_t)s->chunk * line + 255) & ~(size_t)255;
    if (buf > p->buf)
        p->buf = buf;
    if (w1 > w)
        w = w1;
    if (w > *work)
        *work = w;
    return 0;
}

int hfft__r2r_plan(const hfft__dev_ops *o, hfft__dev *d, int prec, int code, int rank,
                   const int64_t *n, int64_t stride, int64_t dist, int64_t batch,
                   hfft__r2r **out, size_t *work) {
    *out = NULL;
    *work = 0;
    if (rank != 1 && rank != 2)
        return hfft__fail(HFFT_ERR_INTERNAL, "r2r lines of rank %d", rank);
    int row = (code & HFFT__R2R_ROW) != 0;
    if (row && stride != 1)
        return hfft__fail(HFFT_ERR_INTERNAL, "r2r rows of stride %lld", (long long)stride);
    hfft__r2r *p = calloc(1, sizeof *p);
    if (!p)
        return hfft__fail(HFFT_ERR_HOST_MEMORY, "r2r plan: out of memory");
    p->o = o;
    p->d = d;
    p->prec = prec;
    size_t fw = 0;
    int st;
    if (rank == 1) {
        st = add_step(p, hfft__r2r_kind(code, 0), row, n[0], stride, batch, dist, 0, batch, &fw);
    } else {
        /* each plane's rows (its second dimension), then its columns */
        int64_t n0 = n[0], n1 = n[1];
        st = add_step(p, hfft__r2r_kind(code, 1), row, n1, stride, n0, n1 * stride, dist,
                      batch * n0, &fw);
        if (!st)
            st = add_step(p, hfft__r2r_kind(code, 0), 0, n0, n1 * stride, n1, stride, dist,
                          batch * n1, &fw);
    }
    if (st) {
        hfft__r2r_destroy(p);
        return st;
    }
    *work = p->buf + fw;
    *out = p;
    return 0;
}

int hfft__r2r_exec(const hfft__r2r *p, hfft__stream s, void *data, void *work) {
    char *buf = work, *fwork = p->buf ? (char *)work + p->buf : NULL;
    for (int i = 0; i < p->nstep; i++) {
        const step *q = &p->st[i];
        if (q->whole) {
            hfft__r2r_step a = q->a;
            a.step = HFFT__R2R_WHOLE;
            a.b0 = 0;
            a.count = q->batch;
            HFFT__TRY(p->o->r2r(p->d, p->prec, s, data, buf, &a));
            continue;
        }
        for (int64_t b0 = 0; b0 < q->batch; b0 += q->chunk) {
            hfft__r2r_step a = q->a;
            a.b0 = b0;
            a.count = q->batch - b0 < q->chunk ? q->batch - b0 : q->chunk;
            a.step = HFFT__R2R_PRE;
            HFFT__TRY(p->o->r2r(p->d, p->prec, s, data, buf, &a));
            HFFT__TRY(p->o->fft_exec(p->d, q->fft[a.count == q->chunk ? 0 : 1], s, buf, fwork));
            a.step = HFFT__R2R_POST;
            HFFT__TRY(p->o->r2r(p->d, p->prec, s, data, buf, &a));
        }
    }
    return 0;
}
