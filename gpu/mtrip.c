/*
 * mtrip.c: one trip over several cards.  Each byte crosses a link once each
 * way, over all the cards' links at once:
 *
 *   copy in   card k takes dimension-0 indices [ra, rb) through its own link,
 *             in chunks; each chunk's fast dimensions are transformed as soon
 *             as it lands (in a staging buffer of two chunks);
 *   exchange  each transformed chunk goes out in column blocks, block m to
 *             card m's array (a peer copy over NVLink, or a device copy for
 *             the card's own block), while the next chunks land;
 *   copy out  once every card's chunks have arrived, card m transforms its
 *             columns [ca, cb) along dimension 0, in blocks, each block
 *             copied out to its place in host memory while the next is
 *             computed.
 *
 * A card's array holds only its columns of every dimension-0 index
 * (d0 x (cb - ca)), so the cards' memory holds the array once, plus two
 * chunks and the transforms' scratch per card.  Columns are shared out in
 * proportion to the memory each card has left; dimension-0 indices evenly
 * (the links are alike).  Rounds that must follow the slow dimension (c2r,
 * four-step) stream instead (cards.c).
 */
#include "gpu/mtrip.h"

#include <stdlib.h>
#include <string.h>

#include "gpu/sched.h"
#include "src/core/problem.h"
#include "src/core/status.h"

#define CHUNK_MAX ((size_t)512 << 20) /* bytes a chunk holds at most */
#define CHUNKS 16                     /* chunks per card's slab, at least where rows allow */
#define TRANSPOSE_MIN_L 4096          /* longer columns are computed transposed */
#define WCOLS 128                     /* columns per transposed FFT */

typedef struct mcard {
    const hfft__dev_ops *o;
    hfft__dev *d;
    int64_t ra, rb;    /* dimension-0 indices it copies in */
    int64_t ca, cb;    /* columns it transforms along dimension 0 and copies out */
    int64_t crow;      /* dimension-0 indices per chunk */
    int nchunk, nblock;
    int64_t bstart[HFFT__OUT_BLOCKS + 1]; /* copy-out blocks' columns (hfft__out_blocks) */
    void *blk;         /* its columns of the whole array: d0 x (cb - ca) */
    void *stage[2];    /* chunks in turn */
    void *tb, *work;   /* transposed columns' scratch; cuFFT's work area */
    size_t work_bytes;
    hfft__stream in, out, comp, xch;
    hfft__fftplan inner[HFFT__MAX_ROUNDS][2]; /* a whole chunk and the last (strided: [0]) */
    hfft__fftplan col[3]; /* dimension 0: WCOLS lines transposed; or per block width */
    int64_t colw[3];
    hfft__event *in_ev, *comp_ev, *xch_ev, *blk_ev, *out_ev;
    hfft__event phase_ev;
    int64_t link[2];
} mcard;

struct hfft__mtrip {
    int n;
    mcard c[HFFT_MAX_CARDS];
    int prec, sign, z, nrounds, transpose;
    size_t es;
    hfft__round rd[HFFT__MAX_ROUNDS];
    const hfft__round *real_in; /* a first real round: rows of reals on the host */
    int64_t d0, row, wc;
    double t[2]; /* last execute: until every chunk was exchanged; the rest */
};

static int64_t min64(int64_t a, int64_t b) { return a < b ? a : b; }

void hfft__mtrip_destroy(hfft__mtrip *t) {
    if (!t)
        return;
    for (int k = 0; k < t->n; k++) {
        mcard *c = &t->c[k];
        if (!c->o)
            continue;
        for (int h = 0; h < HFFT__MAX_ROUNDS; h++)
            for (int i = 0; i < 2; i++)
                if (c->inner[h][i])
                    c->o->fft_destroy(c->d, c->inner[h][i]);
        for (int i = 0; i < 3; i++)
            if (c->col[i])
                c->o->fft_destroy(c->d, c->col[i]);
        hfft__event *ev[5] = {c->in_ev, c->comp_ev, c->xch_ev, c->blk_ev, c->out_ev};
        int nev[5] = {c->nchunk, c->nchunk, c->nchunk, c->nblock, c->nblock};
        for (int a = 0; a < 5; a++) {
            for (int i = 0; ev[a] && i < nev[a]; i++)
                if (ev[a][i])
                    c->o->event_destroy(c->d, ev[a][i]);
            free(ev[a]);
        }
        if (c->phase_ev)
            c->o->event_destroy(c->d, c->phase_ev);
        hfft__stream *s[4] = {&c->in, &c->out, &c->comp, &c->xch};
        for (int i = 0; i < 4; i++)
            if (*s[i])
                c->o->stream_destroy(c->d, *s[i]);
        void *m[5] = {c->blk, c->stage[0], c->stage[1], c->tb, c->work};
        for (int i = 0; i < 5; i++)
            if (m[i])
                c->o->free(c->d, m[i]);
    }
    free(t);
}

/* The round along dimension 0 (strided, one outer index), or -1. */
static int dim0_round(const hfft__gpu_req *req) {
    for (int h = 0; h < req->nrounds; h++)
        if (req->rounds[h].no == 1 && hfft__round_strided(&req->rounds[h]))
            return h;
    return -1;
}

/* Whether the rounds suit one trip over cards: all on the GPU, a dimension-0 round,
   and nothing that must run after it. */
static int suits(const hfft__gpu_req *req, int n) {
    int z = dim0_round(req);
    if (z < 0 || req->nrounds < 2)
        return 0;
    for (int h = 0; h < req->nrounds; h++) {
        const hfft__round *r = &req->rounds[h];
        if (req->lo[h] != 0 || req->units[h] != hfft__round_units(r) || r->twn || r->tout ||
            r->kind == HFFT__C2R || r->src_mid || r->dst_mid)
            return 0;
        if (r->kind == HFFT__R2C && h != 0)
            return 0;
    }
    const hfft__round *r0 = &req->rounds[z];
    return r0->L >= n && r0->ni >= n;
}

static int plan1(mcard *c, int prec, int sign, hfft__fftplan *p, int kind, int rank,
                 const int64_t *n, int64_t stride, int64_t dist, int64_t batch, size_t *work) {
    size_t w = 0;
    TRY(c->o->fft_plan(c->d, prec, kind, rank, n, stride, dist, batch, sign, p, &w));
    if (w > *work)
        *work = w;
    return 0;
}

/* The fast rounds' plans for a chunk of card c, and the largest work area. */
static int plan_inner(hfft__mtrip *t, mcard *c, size_t *work) {
    int64_t rows = c->rb - c->ra, last = rows - (int64_t)(c->nchunk - 1) * c->crow;
    for (int h = 0; h < t->nrounds; h++) {
        const hfft__round *r = &t->rd[h];
        if (h == t->z)
            continue;
        int64_t per = r->no / t->d0;
        if (hfft__round_strided(r)) {
            TRY(plan1(c, t->prec, t->sign, &c->inner[h][0], HFFT__C2C, 1, &r->L, r->s, 1, r->ni,
                      work));
            continue;
        }
        const int64_t *shape = r->rank == 2 ? r->n2 : &r->L;
        TRY(plan1(c, t->prec, t->sign, &c->inner[h][0], r->kind, r->rank, shape, 1, r->dout,
                  c->crow * per, work));
        if (last != c->crow)
            TRY(plan1(c, t->prec, t->sign, &c->inner[h][1], r->kind, r->rank, shape, 1, r->dout,
                      last * per, work));
    }
    return 0;
}

static int events(mcard *c, hfft__event **ev, int n) {
    *ev = calloc((size_t)(n > 0 ? n : 1), sizeof **ev);
    if (!*ev)
        return hfft__fail(HFFT_ERR_HOST_MEMORY, "GPU engine: out of memory");
    for (int i = 0; i < n; i++)
        TRY(c->o->event_create(c->d, &(*ev)[i]));
    return 0;
}

/* Everything of card c but its array and the column plans: streams, events, the
   chunks' plans; the work area it needs so far into *work. */
static int card_setup(hfft__mtrip *t, mcard *c, size_t *work) {
    TRY(c->o->activate(c->d));
    hfft__stream *s[4] = {&c->in, &c->out, &c->comp, &c->xch};
    for (int i = 0; i < 4; i++)
        TRY(c->o->stream_create(c->d, s[i]));
    TRY(plan_inner(t, c, work));
    if (t->transpose)
        TRY(plan1(c, t->prec, t->sign, &c->col[0], HFFT__C2C, 1, &t->d0, 1, t->d0, t->wc, work));
    TRY(events(c, &c->in_ev, c->nchunk));
    TRY(events(c, &c->comp_ev, c->nchunk));
    TRY(events(c, &c->xch_ev, c->nchunk));
    return c->o->event_create(c->d, &c->phase_ev);
}

int hfft__mtrip_create(const hfft__card *cards, int n, const hfft__gpu_req *req,
                       hfft__mtrip **out) {
    *out = NULL;
    if (!suits(req, n))
        return 1;
    hfft__mtrip *t = calloc(1, sizeof *t);
    if (!t)
        return hfft__fail(HFFT_ERR_HOST_MEMORY, "GPU engine: out of memory");
    t->n = n;
    t->prec = req->prec;
    t->sign = req->sign;
    t->es = 2u * (size_t)req->prec;
    t->nrounds = req->nrounds;
    memcpy(t->rd, req->rounds, (size_t)req->nrounds * sizeof *t->rd);
    t->z = dim0_round(req);
    t->real_in = t->rd[0].kind == HFFT__R2C ? &t->rd[0] : NULL;
    t->d0 = t->rd[t->z].L;
    t->row = t->rd[t->z].ni;
    t->transpose = t->d0 >= TRANSPOSE_MIN_L;
    t->wc = WCOLS;
    size_t es = t->es, rowb = (size_t)t->row * es;
    int st = 0;
    int64_t avail[HFFT_MAX_CARDS], total = 0;
    for (int k = 0; k < n && !st; k++) {
        mcard *c = &t->c[k];
        c->o = cards[k].ops;
        c->d = cards[k].dev;
        c->ra = t->d0 * k / n;
        c->rb = t->d0 * (k + 1) / n;
        int64_t rows = c->rb - c->ra;
        int64_t most = (int64_t)(CHUNK_MAX / rowb);
        c->crow = min64((rows + CHUNKS - 1) / CHUNKS, most > 0 ? most : 1);
        c->nchunk = (int)((rows + c->crow - 1) / c->crow);
        size_t work = 0;
        st = card_setup(t, c, &work);
        c->work_bytes = work;
        size_t fixed = 2 * (size_t)c->crow * rowb + work +
                       (t->transpose ? (size_t)(t->wc * t->d0) * es : 0);
        avail[k] = c->o->budget(c->d) - c->o->used(c->d) - c->o->reserve(c->d) - (int64_t)fixed;
        if (avail[k] < 0)
            avail[k] = 0;
        total += avail[k];
    }
    /* The columns, in proportion to the memory each card has left for them, none
       beyond what a card holds; what rounding leaves goes to the cards with room. */
    int64_t colb = t->d0 * (int64_t)es; /* bytes of one column */
    if (!st && total / colb < t->row)
        st = 1;
    int64_t wk[HFFT_MAX_CARDS], left = t->row;
    for (int k = 0; k < n && !st; k++) {
        wk[k] = min64((int64_t)((double)t->row * (double)avail[k] / (double)total),
                      avail[k] / colb);
        left -= wk[k];
    }
    for (int k = 0; k < n && !st && left > 0; k++) {
        int64_t more = min64(left, avail[k] / colb - wk[k]);
        wk[k] += more;
        left -= more;
    }
    if (!st && left != 0)
        st = 1;
    for (int64_t k = 0, at = 0; k < n && !st; k++) {
        t->c[k].ca = at;
        t->c[k].cb = at + wk[k];
        at += wk[k];
    }
    for (int k = 0; k < n && !st; k++) {
        mcard *c = &t->c[k];
        int64_t w = c->cb - c->ca;
        c->nblock = w > 0 ? hfft__out_blocks(w, es, c->bstart) : 0;
        size_t work = c->work_bytes;
        /* not transposed: a plan per block width (the first, the rest, the last) */
        for (int j = 0, k = 0; !t->transpose && j < c->nblock && !st; j++) {
            int64_t bw = c->bstart[j + 1] - c->bstart[j];
            int seen = 0;
            for (int i = 0; i < k; i++)
                seen |= c->colw[i] == bw;
            if (seen)
                continue;
            if (k == 3) {
                st = hfft__fail(HFFT_ERR_INTERNAL, "one trip: more than three block widths");
                break;
            }
            c->colw[k] = bw;
            st = plan1(c, t->prec, t->sign, &c->col[k++], HFFT__C2C, 1, &t->d0, w, 1, bw, &work);
        }
        c->work_bytes = work;
        if (!st)
            st = events(c, &c->blk_ev, c->nblock);
        if (!st)
            st = events(c, &c->out_ev, c->nblock);
        size_t blkb = (size_t)w * (size_t)colb;
        if (!st)
            st = c->o->alloc(c->d, &c->blk, blkb > 0 ? blkb : es);
        for (int i = 0; i < 2 && !st; i++)
            st = c->o->alloc(c->d, &c->stage[i], (size_t)c->crow * rowb);
        if (!st && t->transpose)
            st = c->o->alloc(c->d, &c->tb, (size_t)(t->wc * t->d0) * es);
        if (!st && work)
            st = c->o->alloc(c->d, &c->work, work);
    }
    if (st) {
        hfft__mtrip_destroy(t);
        if (st == 1 || st == HFFT_ERR_DEVICE_MEMORY || st == HFFT_ERR_BUDGET) {
            hfft__clear_error();
            return 1; /* does not fit: each card streams its share */
        }
        return st;
    }
    *out = t;
    return 0;
}

/* Round h's transforms on chunk buffer `base`, dimension-0 indices [a, a + n). */
static int inner_chunk(hfft__mtrip *t, mcard *c, int h, char *base, int64_t n) {
    const hfft__round *r = &t->rd[h];
    int64_t per = r->no / t->d0;
    if (!hfft__round_strided(r))
        return c->o->fft_exec(c->d, c->inner[h][n == c->crow ? 0 : 1], c->comp, base, c->work);
    for (int64_t o = 0; o < n * per; o++)
        TRY(c->o->fft_exec(c->d, c->inner[h][0], c->comp, base + (size_t)(o * r->dout) * t->es,
                           c->work));
    return 0;
}

/* Dimension-0 indices [a, a + n) from the host into a chunk buffer: the complex rows,
   or a first real round's rows of reals into the padded complex layout. */
static int copy_in(hfft__mtrip *t, mcard *c, void *buf, const char *host, int64_t a,
                   int64_t n) {
    size_t rowb = (size_t)t->row * t->es;
    const hfft__round *real = t->real_in;
    if (!real) {
        size_t bytes = (size_t)n * rowb;
        c->link[0] += (int64_t)bytes;
        return c->o->h2d(c->d, c->in, buf, bytes, host + (size_t)a * rowb, bytes, bytes, 1);
    }
    int64_t per = t->row / (real->nreal / 2 + 1), rows = n * per;
    size_t crow = (size_t)(real->nreal / 2 + 1) * t->es, rs = t->es / 2;
    size_t rpitch = (size_t)real->rpitch * rs, width = (size_t)real->nreal * rs;
    c->link[0] += (int64_t)(width * (size_t)rows);
    return c->o->h2d(c->d, c->in, buf, crow, host + (size_t)(a * per) * rpitch, rpitch, width,
                     (size_t)rows);
}

/* Card c's columns [c0, c0 + w) of its array along dimension 0, on its compute stream. */
static int slow_block(hfft__mtrip *t, mcard *c, int64_t c0, int64_t w) {
    int64_t pitch = c->cb - c->ca;
    char *col = (char *)c->blk + (size_t)c0 * t->es;
    if (!t->transpose) {
        int k = 0;
        while (k < 2 && c->colw[k] != w)
            k++;
        return c->o->fft_exec(c->d, c->col[k], c->comp, col, c->work);
    }
    for (int64_t j = 0; j < w; j += t->wc) {
        int64_t m = min64(w - j, t->wc);
        char *p = col + (size_t)j * t->es;
        TRY(c->o->transpose(c->d, t->prec, c->comp, c->tb, t->d0, p, pitch, t->d0, m));
        TRY(c->o->fft_exec(c->d, c->col[0], c->comp, c->tb, c->work));
        TRY(c->o->transpose(c->d, t->prec, c->comp, p, pitch, c->tb, t->d0, m, t->d0));
    }
    return 0;
}

/* Chunk j of card k: copied in, its fast dimensions transformed, its columns sent to
   the cards that own them. */
static int chunk(hfft__mtrip *t, int k, int j, const char *src) {
    mcard *c = &t->c[k];
    const hfft__dev_ops *o = c->o;
    int64_t a = c->ra + (int64_t)j * c->crow, n = min64(c->crow, c->rb - a);
    char *buf = c->stage[j % 2];
    size_t es = t->es, rowb = (size_t)t->row * es;
    TRY(o->activate(c->d));
    if (j >= 2) /* the buffer is free once chunk j - 2 went out of it */
        TRY(o->wait(c->d, c->in, c->xch_ev[j - 2]));
    TRY(copy_in(t, c, buf, src, a, n));
    TRY(o->record(c->d, c->in_ev[j], c->in));
    TRY(o->wait(c->d, c->comp, c->in_ev[j]));
    for (int h = 0; h < t->nrounds; h++)
        if (h != t->z)
            TRY(inner_chunk(t, c, h, buf, n));
    TRY(o->record(c->d, c->comp_ev[j], c->comp));
    TRY(o->wait(c->d, c->xch, c->comp_ev[j]));
    for (int i = 0; i < t->n; i++) {
        /* the next card first: the cards' sends spread over the links */
        mcard *m = &t->c[(k + 1 + i) % t->n];
        int64_t w = m->cb - m->ca;
        if (w == 0)
            continue;
        char *dst = (char *)m->blk + (size_t)(a * w) * es;
        const char *from = buf + (size_t)m->ca * es;
        if (m == c)
            TRY(o->d2d(c->d, c->xch, dst, (size_t)w * es, from, rowb, (size_t)w * es, (size_t)n));
        else
            TRY(o->peer(c->d, c->xch, m->d, dst, (size_t)w * es, from, rowb, (size_t)w * es,
                        (size_t)n));
    }
    return o->record(c->d, c->xch_ev[j], c->xch);
}

/* Card c's columns along dimension 0, block by block, each copied out behind the next. */
static int columns(hfft__mtrip *t, mcard *c, char *dst) {
    const hfft__dev_ops *o = c->o;
    size_t es = t->es, rowb = (size_t)t->row * es;
    int64_t pitch = c->cb - c->ca;
    TRY(o->activate(c->d));
    for (int b = 0; b < c->nblock; b++) {
        int64_t c0 = c->bstart[b], w = c->bstart[b + 1] - c0;
        TRY(slow_block(t, c, c0, w));
        TRY(o->record(c->d, c->blk_ev[b], c->comp));
        TRY(o->wait(c->d, c->out, c->blk_ev[b]));
        c->link[1] += (int64_t)((size_t)w * es * (size_t)t->d0);
        TRY(o->d2h(c->d, c->out, dst + (size_t)(c->ca + c0) * es, rowb,
                   (char *)c->blk + (size_t)c0 * es, (size_t)pitch * es, (size_t)w * es,
                   (size_t)t->d0));
        TRY(o->record(c->d, c->out_ev[b], c->out));
    }
    return 0;
}

static int sync_all(hfft__mtrip *t) {
    int st = 0;
    for (int k = 0; k < t->n; k++) {
        mcard *c = &t->c[k];
        hfft__stream s[4] = {c->in, c->comp, c->xch, c->out};
        int a = c->o->activate(c->d);
        if (a && !st)
            st = a;
        for (int i = 0; i < 4; i++) {
            int e = c->o->sync(c->d, s[i]);
            if (e && !st)
                st = e;
        }
    }
    return st;
}

int hfft__mtrip_run(hfft__mtrip *t, const void *src_, void *dst_) {
    const char *src = src_;
    char *dst = dst_;
    double t0 = hfft__now();
    int most = 0, st = 0;
    for (int k = 0; k < t->n; k++)
        most = t->c[k].nchunk > most ? t->c[k].nchunk : most;
    /* Chunk by chunk, every card in turn, so that all links start at once. */
    for (int j = 0; j < most && !st; j++)
        for (int k = 0; k < t->n && !st; k++)
            if (j < t->c[k].nchunk)
                st = chunk(t, k, j, src);
    /* Each card's columns once every card's last chunk went out (a stream's copies run
       in order: its last event stands for all of them). */
    for (int m = 0; m < t->n && !st; m++) {
        mcard *c = &t->c[m];
        st = c->o->activate(c->d);
        for (int k = 0; k < t->n && !st; k++)
            st = c->o->wait(c->d, c->comp, t->c[k].xch_ev[t->c[k].nchunk - 1]);
        if (!st && m == 0)
            st = c->o->record(c->d, c->phase_ev, c->comp);
    }
    for (int m = 0; m < t->n && !st; m++)
        st = columns(t, &t->c[m], dst);
    double t1 = t0;
    if (!st && !(st = t->c[0].o->event_sync(t->c[0].d, t->c[0].phase_ev)))
        t1 = hfft__now();
    int s2 = sync_all(t); /* after a failure too: nothing of this execute stays in flight */
    if (!st)
        st = s2;
    t->t[0] = t1 - t0;
    t->t[1] = hfft__now() - t1;
    return st;
}

void hfft__mtrip_take_link(hfft__mtrip *t, int64_t bytes[2]) {
    bytes[0] = bytes[1] = 0;
    for (int k = 0; k < t->n; k++) {
        bytes[0] += t->c[k].link[0];
        bytes[1] += t->c[k].link[1];
        t->c[k].link[0] = t->c[k].link[1] = 0;
    }
}

void hfft__mtrip_times(const hfft__mtrip *t, double *secs) {
    for (int h = 0; h < t->nrounds; h++)
        secs[h] = 0.0;
    secs[t->z == 0 ? 1 : 0] = t->t[0];
    secs[t->z] = t->t[1];
}

void hfft__mtrip_fill_info(const hfft__mtrip *t, hfft_info *info) {
    for (int h = 0; h < t->nrounds; h++)
        info->passes[h] = 0;
    info->schedule = 3;
    info->transposed = t->transpose;
    info->streams = 4;
    info->device_bytes = 0;
    for (int k = 0; k < t->n; k++)
        info->device_bytes += t->c[k].o->used(t->c[k].d);
    info->resident_bytes = 0;
}
