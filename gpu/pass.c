/*
 * pass.c: what every schedule's passes use: the cuFFT plans of a round's
 * tiles, and the wait that leaves every stream and buffer of the engine idle.
 */
#include <string.h>

#include "gpu/sched.h"

void hfft__sched_destroy_plans(hfft__gpu *g, rstate *r) {
    for (int i = 0; i < r->nplan; i++)
        if (r->plan[i])
            g->ops->fft_destroy(g->d, r->plan[i]);
    memset(r->plan, 0, sizeof r->plan);
    r->nplan = 0;
}

/* n plans of length L over `batch` columns of a tile with `batch` pitch (strided),
   `batch` contiguous lines of length L (strided computed transposed), or
   `batch` contiguous lines or planes of the round; reports the largest work area. */
int hfft__sched_make_plans(hfft__gpu *g, rstate *r, int n, int64_t L, int64_t batch, size_t *work) {
    int64_t shape[2];
    int rank = 1;
    int64_t stride, dist;
    if (hfft__round_strided(&r->r) && r->transpose) {
        shape[0] = L;
        stride = 1;
        dist = L;
    } else if (hfft__round_strided(&r->r)) {
        shape[0] = L;
        stride = batch;
        dist = 1;
    } else {
        rank = r->r.rank;
        if (rank == 1) {
            shape[0] = L;
        } else {
            shape[0] = r->r.n2[0];
            shape[1] = r->r.n2[1];
        }
        stride = 1;
        dist = r->r.dout;
    }
    *work = 0;
    for (int i = 0; i < n; i++) {
        size_t w = 0;
        int st = g->ops->fft_plan(g->d, g->prec, r->r.kind | r->r.r2r, rank, shape, stride, dist,
                                  batch, g->sign, &r->plan[i], &w);
        r->nplan = i + 1;
        if (st)
            return st;
        if (w > *work)
            *work = w;
    }
    return 0;
}

int hfft__fft_plan1(const hfft__dev_ops *o, hfft__dev *d, int prec, int sign, hfft__fftplan *p,
                    int kind, int rank, const int64_t *n, int64_t stride, int64_t dist,
                    int64_t batch, size_t *work) {
    size_t w = 0;
    TRY(o->fft_plan(d, prec, kind, rank, n, stride, dist, batch, sign, p, &w));
    if (w > *work)
        *work = w;
    return 0;
}

int hfft__sched_plan(hfft__gpu *g, hfft__fftplan *p, int kind, int rank, const int64_t *n,
                     int64_t stride, int64_t dist, int64_t batch, size_t *work) {
    return hfft__fft_plan1(g->ops, g->d, g->prec, g->sign, p, kind, rank, n, stride, dist, batch,
                           work);
}

void hfft__sched_release(hfft__gpu *g) {
    for (int h = 0; h < g->nrounds; h++)
        hfft__sched_destroy_plans(g, &g->rd[h]);
    for (int i = 0; i < NSLOT; i++) {
        if (g->buf[i])
            g->ops->free(g->d, g->buf[i]);
        if (g->tbuf[i])
            g->ops->free(g->d, g->tbuf[i]);
    }
    memset(g->tbuf, 0, sizeof g->tbuf);
    for (int i = 0; i < NSTREAM; i++)
        if (g->work[i])
            g->ops->free(g->d, g->work[i]);
    if (g->tb)
        g->ops->free(g->d, g->tb);
    g->tb = NULL;
    g->tb_bytes = 0;
    memset(g->buf, 0, sizeof g->buf);
    memset(g->work, 0, sizeof g->work);
}

int hfft__sched_sync(hfft__gpu *g) {
    for (int i = 0; i < NSTREAM + 1; i++)
        TRY(g->ops->sync(g->d, g->stream[i]));
    if (g->xfer.stage)
        TRY(hfft__stage_sync(g->xfer.stage));
    g->piped = 0; /* every buffer is idle: the next passes wait for nothing */
    g->nprev = 0;
    return 0;
}

/*
 * Copies straight from pinned memory, or through staging; the bytes are
 * counted (hfft_info.link_bytes).  Copies go out in pieces of at most
 * COPY_PIECE bytes, one after the other on the stream: with both directions
 * busy, a large pass's copies hold the copy in below the copy out, and
 * smaller ones keep the copy in up with the copy out.
 */
#define COPY_PIECE ((size_t)32 << 20)
#define COPY_PIECE_ALONE ((size_t)1 << 30)

typedef int (*copy_fn)(hfft__dev *d, hfft__stream s, void *dst, size_t dpitch, const void *src,
                       size_t spitch, size_t width, size_t height);

/* A copy through op in pieces: contiguous ones of `piece` bytes, pitched ones of
   as many rows as fit `piece` (at least one), so that no copy holds its stream
   long (pitched copies neither gain nor lose by it). */
static int link_copy(hfft__dev *d, copy_fn op, hfft__stream s, void *dst, size_t dpitch,
                     const void *src, size_t spitch, size_t width, size_t rows, size_t piece) {
    if (rows > 1 && (dpitch != width || spitch != width)) {
        size_t step = piece / width > 1 ? piece / width : 1;
        for (size_t r = 0; r < rows; r += step)
            TRY(op(d, s, (char *)dst + r * dpitch, dpitch, (const char *)src + r * spitch, spitch,
                   width, rows - r < step ? rows - r : step));
        return 0;
    }
    size_t bytes = width * rows;
    for (size_t o = 0; o < bytes; o += piece) {
        size_t n = bytes - o < piece ? bytes - o : piece;
        TRY(op(d, s, (char *)dst + o, n, (const char *)src + o, n, n, 1));
    }
    return 0;
}

int hfft__xfer_h2d(hfft__xfer *l, hfft__stream s, void *dev, size_t dpitch, const char *host,
                   size_t hpitch, size_t width, size_t rows) {
    l->bytes[0] += (int64_t)(width * rows);
    if (l->stage)
        return hfft__stage_h2d(l->stage, s, dev, dpitch, host, hpitch, width, rows);
    return link_copy(l->d, l->ops->h2d, s, dev, dpitch, host, hpitch, width, rows, COPY_PIECE);
}

int hfft__xfer_d2h(hfft__xfer *l, hfft__stream s, char *host, size_t hpitch, const void *dev,
                   size_t dpitch, size_t width, size_t rows) {
    l->bytes[1] += (int64_t)(width * rows);
    if (l->stage)
        return hfft__stage_d2h(l->stage, s, host, hpitch, dev, dpitch, width, rows);
    return link_copy(l->d, l->ops->d2h, s, host, hpitch, dev, dpitch, width, rows, COPY_PIECE);
}

int hfft__xfer_d2h_alone(hfft__xfer *l, hfft__stream s, char *host, size_t hpitch,
                         const void *dev, size_t dpitch, size_t width, size_t rows) {
    l->bytes[1] += (int64_t)(width * rows);
    if (l->stage)
        return hfft__stage_d2h(l->stage, s, host, hpitch, dev, dpitch, width, rows);
    return link_copy(l->d, l->ops->d2h, s, host, hpitch, dev, dpitch, width, rows,
                     COPY_PIECE_ALONE);
}

int hfft__sched_h2d(hfft__gpu *g, hfft__stream s, void *dev, size_t dpitch, const char *host,
                    size_t hpitch, size_t width, size_t rows) {
    return hfft__xfer_h2d(&g->xfer, s, dev, dpitch, host, hpitch, width, rows);
}

int hfft__sched_d2h(hfft__gpu *g, hfft__stream s, char *host, size_t hpitch, const void *dev,
                    size_t dpitch, size_t width, size_t rows) {
    return hfft__xfer_d2h(&g->xfer, s, host, hpitch, dev, dpitch, width, rows);
}

int hfft__columns(const hfft__dev_ops *o, hfft__dev *d, int prec, hfft__stream c, void *tb,
                  void *work, hfft__fftplan plan, char *tile, int64_t pitch, int64_t L,
                  int64_t w, int64_t wc) {
    size_t es = 2u * (size_t)prec;
    for (int64_t c0 = 0; c0 < w; c0 += wc) {
        int64_t n = w - c0 < wc ? w - c0 : wc;
        char *col = tile + (size_t)c0 * es;
        TRY(o->transpose(d, prec, c, tb, L, col, pitch, L, n));
        TRY(o->fft_exec(d, plan, c, tb, work));
        TRY(o->transpose(d, prec, c, col, pitch, tb, L, n, L));
    }
    return 0;
}

int hfft__sched_columns(hfft__gpu *g, hfft__fftplan plan, char *tile, int64_t pitch, int64_t L,
                        int64_t w, int64_t wc) {
    return hfft__columns(g->ops, g->d, g->prec, g->stream[NSTREAM], g->tb, g->work[0], plan, tile,
                         pitch, L, w, wc);
}

int hfft__out_blocks(int64_t w, size_t es, int64_t *start) {
    const size_t first_row = (size_t)16 << 10, row_min = (size_t)64 << 10;
    start[0] = 0;
    if ((size_t)w * es <= 2 * first_row) {
        start[1] = w;
        return 1;
    }
    int64_t b0 = w / 16 > (int64_t)(first_row / es) ? w / 16 : (int64_t)(first_row / es);
    b0 = b0 > w / 2 ? w / 2 : b0;
    int64_t rest = w - b0, nb = (int64_t)((size_t)rest * es / row_min);
    nb = nb < 1 ? 1 : nb > HFFT__OUT_BLOCKS - 1 ? HFFT__OUT_BLOCKS - 1 : nb;
    start[1] = b0;
    for (int64_t j = 1; j <= nb; j++)
        start[j + 1] = b0 + rest * j / nb;
    return (int)nb + 1;
}
