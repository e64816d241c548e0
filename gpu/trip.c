/*
 * trip.c: the one-trip schedule, on one card or several, for arrays that fit
 * the cards with their work areas.  Every byte crosses a link once each way
 * (S in, then S out: no output can leave before the last input has arrived, so
 * S/B_in + S/B_out bounds it, with B over all the cards' links at once).
 *
 *   copy in   card k takes dimension-0 indices [ra, rb) through its own link,
 *             in chunks; each chunk's fast dimensions are transformed as soon
 *             as it lands;
 *   exchange  with several cards, each transformed chunk goes out in column
 *             blocks, block m to card m's array (card to card over NVLink, or
 *             within the card for its own block), while the next chunks land;
 *             one card's chunks land in its array and stay there;
 *   copy out  card m transforms its columns [ca, cb) along dimension 0 in
 *             blocks, each copied out to its place in host memory while the
 *             next is computed.
 *
 * A card's array holds its columns of every dimension-0 index, so the cards'
 * memory holds the array once, plus (several cards) two chunks each and the
 * transforms' scratch.  Columns are shared out in proportion to the memory
 * each card has left; dimension-0 indices evenly (the links are alike).
 *
 * On one card the trip also takes rounds that must follow the slow dimension
 * (a c2r transform's real round; a four-step split's transposed round, the
 * slow dimension being its first round): they run after it, chunk by chunk,
 * each chunk copied out behind the next.  A 1D line's transposed round runs
 * whole instead: its natural order then leaves in blocks of output rows, each
 * transposed on the card and copied out contiguously behind the next.  Where
 * no round runs on the chunks as they land (a 1D line: its first round is the
 * slow dimension), the array comes in by the slow dimension's blocks of
 * columns, each transformed while the next one is copied in.  Where rows are
 * narrow (2D), on one card or each card's share of them on several, the slow
 * dimension runs four-step, so that both copies move runs of whole rows and the
 * exchange sends each card the output rows it copies out (fs_size).
 */
#include "gpu/trip.h"

#include <stdlib.h>
#include <string.h>

#include "gpu/xfer.h"
#include "src/core/problem.h"
#include "src/core/status.h"

#define TRY HFFT__TRY
#define TRIP_CHUNKS 16          /* chunks along dimension 0, where the work areas fit */
#define TRIP_CHUNKS_MAX 256     /* more and smaller chunks where they do not */
#define R2R_CHUNK_MIN ((int64_t)8 << 20) /* r2r: twice as many chunks, of this much at least */
#define CHUNK_MAX ((size_t)512 << 20) /* several cards: bytes a landing chunk holds at most */
#define TRANSPOSE_MIN_L 4096    /* longer strided lines are computed transposed */
#define WCOLS 128               /* columns per transposed transform */
#define FS_ROW_MAX ((size_t)1 << 20) /* rows up to 1 MiB: dimension 0 four-step (fs_size) */
#define FS_B_MIN 64                  /* one card: its second factor at least (fewer overlap less) */
#define FS_A_MAX 128            /* its first factor: output row blocks, a strided transform */
#define FS_RUN ((size_t)2 << 20) /* host runs of the copies in and out, at least */

/* One card of the trip. */
typedef struct tcard {
    const hfft__dev_ops *o;
    hfft__dev *d;
    hfft__xfer xfer;
    hfft__stream in, out, comp, xch;
    int64_t ra, rb;         /* dimension-0 indices it copies in */
    int64_t ca, cb;         /* columns it transforms along dimension 0 and copies out */
    int64_t crow;           /* dimension-0 indices per chunk */
    int nchunk, nblock, nev;
    int64_t bstart[HFFT__OUT_BLOCKS + 1]; /* copy-out blocks' columns (hfft__out_blocks) */
    void *arr;              /* its columns of every dimension-0 index, cb - ca apart */
    void *land[2];          /* several cards: chunks land here in turn before the exchange */
    void *tb, *work;        /* transposed columns' scratch; the transforms' work area */
    size_t tb_bytes, work_bytes;
    /* per round h != z: a whole chunk and the last chunk (strided rounds: one outer
       index at a time, [0] only) */
    hfft__fftplan inner[HFFT__MAX_ROUNDS][2];
    hfft__fftplan col[3];   /* dimension 0: WCOLS lines transposed; or per block width */
    int64_t colw[3];        /* the block width of each (not transposed) */
    hfft__event *in_ev, *comp_ev, *xch_ev, *blk_ev, *out_ev;
    hfft__event phase_ev;
    /* dimension 0 four-step (fs_size): fa-point and fb-point lines, the gathering
       buffers; over several cards, the groups [g0, g1) it copies in and the values
       [ka, kb) of k1 it holds (fb rows each) and copies out (one card: 0 to fa) */
    hfft__fftplan s1, s2;
    void *obuf[2];
    int64_t g0, g1, ka, kb;
} tcard;

static const hfft__cards_ops trip_ops;

typedef struct hfft__trip hfft__trip;
struct hfft__trip {
    hfft__cards base; /* its table: trip_ops */
    int n;
    tcard c[HFFT_MAX_CARDS];
    int prec, sign, nrounds, z;
    size_t es;
    hfft__round rd[HFFT__MAX_ROUNDS];
    int64_t d0, row;        /* dimension 0's length; complex elements per index of it */
    size_t bytes;           /* the array on the cards (the complex side) */
    int transpose;
    int64_t wc;
    /* one card: rounds after the slow dimension, by chunks (a c2r real round, a
       transposed round, the round after a four-step's first) */
    int after[HFFT__MAX_ROUNDS];
    int nafter;
    void *tbuf[2];          /* transposed rounds: each chunk transposed, two in turn */
    int64_t wk, nk;         /* a 1D line's output: blocks of wk rows of the transposed
                               round's groups, nk of them (0: by chunks) */
    int colin;              /* copied in by blocks of columns (no round on the chunks) */
    /* dimension 0 four-step, d0 = fa fb (fs_size): in by groups of fm residues mod
       fb, out by blocks of fM output rows through each card's obuf (fM 1: straight
       from the array) */
    int fs;
    int64_t fa, fb, fm, fM;
    double t[2];            /* last execute: until the slow dimension starts; the rest */
};

static int64_t min64(int64_t a, int64_t b) { return a < b ? a : b; }

static void card_release(hfft__trip *t, tcard *c) {
    if (!c->o)
        return;
    c->o->activate(c->d);
    for (int h = 0; h < HFFT__MAX_ROUNDS; h++)
        for (int i = 0; i < 2; i++)
            if (c->inner[h][i])
                c->o->fft_destroy(c->d, c->inner[h][i]);
    for (int i = 0; i < 3; i++)
        if (c->col[i])
            c->o->fft_destroy(c->d, c->col[i]);
    hfft__event *ev[5] = {c->in_ev, c->comp_ev, c->xch_ev, c->blk_ev, c->out_ev};
    for (int a = 0; a < 5; a++) {
        for (int i = 0; ev[a] && i < c->nev; i++)
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
    if (c->s1)
        c->o->fft_destroy(c->d, c->s1);
    if (c->s2)
        c->o->fft_destroy(c->d, c->s2);
    void *m[7] = {c->arr, c->land[0], c->land[1], c->tb, c->work, c->obuf[0], c->obuf[1]};
    for (int i = 0; i < 7; i++)
        if (m[i])
            c->o->free(c->d, m[i]);
    (void)t;
}

static void trip_destroy(hfft__trip *t) {
    if (!t)
        return;
    tcard *c0 = &t->c[0];
    if (c0->o) {
        c0->o->activate(c0->d);
        hfft__stage_destroy(c0->xfer.stage);
        for (int k = 0; k < 2; k++)
            if (t->tbuf[k])
                c0->o->free(c0->d, t->tbuf[k]);
    }
    for (int k = 0; k < t->n; k++)
        card_release(t, &t->c[k]);
    free(t);
}

/* The round along dimension 0 (strided, one outer index), or -1. */
static int dim0_round(const hfft__gpu_req *req) {
    for (int h = 0; h < req->nrounds; h++)
        if (req->rounds[h].no == 1 && hfft__round_strided(&req->rounds[h]))
            return h;
    return -1;
}

/* Whether the rounds suit one trip over n cards: all on the GPU, two rounds or more,
   one of them along dimension 0; over several cards, nothing that must run after it,
   and every card with rows and columns of its own. */
static int suits(const hfft__gpu_req *req, int n) {
    int z = dim0_round(req);
    if (z < 0 || req->nrounds < 2)
        return 0;
    for (int h = 0; h < req->nrounds; h++)
        if (req->lo[h] != 0 || req->units[h] != hfft__round_units(&req->rounds[h]))
            return 0; /* a CPU share, or a card's share: the streaming schedule */
    if (n == 1)
        return 1;
    for (int h = 0; h < req->nrounds; h++) {
        const hfft__round *r = &req->rounds[h];
        if (r->twn || r->tout || r->kind == HFFT__C2R || r->src_mid || r->dst_mid ||
            (r->kind == HFFT__R2C && h != 0))
            return 0;
    }
    const hfft__round *r0 = &req->rounds[z];
    return r0->L >= n && r0->ni >= n;
}

static int events(tcard *c, hfft__event **ev, int n) {
    *ev = calloc((size_t)(n > 0 ? n : 1), sizeof **ev);
    if (!*ev)
        return hfft__fail(HFFT_ERR_HOST_MEMORY, "GPU engine: out of memory");
    for (int i = 0; i < n; i++)
        TRY(c->o->event_create(c->d, &(*ev)[i]));
    return 0;
}

static int plan1(hfft__trip *t, tcard *c, hfft__fftplan *p, int kind, int rank,
                 const int64_t *n, int64_t stride, int64_t dist, int64_t batch, size_t *work) {
    return hfft__fft_plan1(c->o, c->d, t->prec, t->sign, p, kind, rank, n, stride, dist, batch,
                           work);
}

/* Plans of the rounds along the fast dimensions, for card c's chunks. */
static int plan_inner(hfft__trip *t, tcard *c, size_t *work) {
    int64_t last = (c->rb - c->ra) - (int64_t)(c->nchunk - 1) * c->crow;
    for (int h = 0; h < t->nrounds; h++) {
        const hfft__round *r = &t->rd[h];
        if (h == t->z)
            continue;
        int64_t per = r->no / t->d0; /* lines (or outer indices) per dimension-0 index */
        if (hfft__round_strided(r)) {
            TRY(plan1(t, c, &c->inner[h][0], HFFT__C2C | r->r2r, 1, &r->L, r->s, 1, r->ni,
                      work));
            continue;
        }
        const int64_t *shape = r->rank == 2 ? r->n2 : &r->L;
        TRY(plan1(t, c, &c->inner[h][0], r->kind | r->r2r, r->rank, shape, 1, r->dout,
                  c->crow * per, work));
        if (last != c->crow)
            TRY(plan1(t, c, &c->inner[h][1], r->kind | r->r2r, r->rank, shape, 1, r->dout,
                      last * per, work));
    }
    return 0;
}

/* The slow dimension's plans for card c: WCOLS lines transposed, or one per block
   width of its columns (the first, the rest, the last: at most three). */
static int plan_columns(hfft__trip *t, tcard *c, size_t *work) {
    int kind = HFFT__C2C | t->rd[t->z].r2r;
    if (t->transpose)
        return plan1(t, c, &c->col[0], kind, 1, &t->d0, 1, t->d0, t->wc, work);
    int64_t pitch = c->cb - c->ca;
    for (int j = 0, k = 0; j < c->nblock; j++) {
        int64_t w = c->bstart[j + 1] - c->bstart[j];
        int seen = 0;
        for (int i = 0; i < k; i++)
            seen |= c->colw[i] == w;
        if (seen)
            continue;
        if (k == 3)
            return hfft__fail(HFFT_ERR_INTERNAL, "one trip: more than three block widths");
        c->colw[k] = w;
        TRY(plan1(t, c, &c->col[k++], kind, 1, &t->d0, pitch, 1, w, work));
    }
    return 0;
}

/* The least divisor m of n whose m rows reach FS_RUN bytes, and at most `most`. */
static int64_t fs_run(int64_t n, size_t rowb, int64_t most) {
    int64_t best = 1;
    for (int64_t m = 1; m <= n && m <= most; m++)
        if (n % m == 0) {
            best = m;
            if ((size_t)m * rowb >= FS_RUN)
                break;
        }
    return best;
}

/*
 * Dimension 0 four-step where its rows are narrow (2D): the copy out of column
 * blocks moves pitched rows of tens of KiB, which the copy engines slow while
 * kernels run.  Instead d0 = fa fb and row j2 + fb j1 of the array (j2 < fb,
 * j1 < fa): the array comes in by groups of fm consecutive residues j2, each
 * group's fa runs of fm rows (host runs of at least FS_RUN bytes); each group's
 * rows are transformed as they land, then its fa-point lines.  After the last
 * group, for each k1 < fa, rows (k1, j2) times exp(sign 2 pi i j2 k1 / d0) and
 * their fb-point lines give output rows k1 + fa k2; fM consecutive k1 gathered
 * on the card leave in host runs of fM rows, pitch fa rows, behind the next
 * block's transforms.  One card holds row (k1, j2) at fb k1 + j2, where its
 * group landed.  Over n cards (each card's share of a row narrow), card k lands
 * groups [g0, g1) of the fb / fm in turn and sends each group's rows of k1 in
 * [ka, kb) of card m, after its fa-point lines, to card m (fa / n values of k1
 * each): that exchange, like the column one, runs under the copies in, and
 * each card leaves with its output rows.  Sets t->fs where d0 has a factor fa
 * from 4 to FS_A_MAX, a multiple of n, with fb = d0 / fa at least 2 and n; fa
 * is the largest such factor, and on one card fb must then be at least
 * FS_B_MIN (with fewer groups too few land behind the others' work to pay for
 * the second lines; a smaller fa with a larger fb is not tried: unmeasured).
 */
static void fs_size(hfft__trip *t, size_t rowb) {
    int64_t n = t->n;
    t->fs = 0;
    if (rowb > FS_ROW_MAX * (size_t)n)
        return;
    int64_t a = 0;
    for (int64_t f = 4; f <= FS_A_MAX && 2 * f <= t->d0; f++)
        if (t->d0 % f == 0 && f % n == 0 && t->d0 / f >= n &&
            (n == 1 || (size_t)f * rowb <= CHUNK_MAX))
            a = f;
    if (!a || (n == 1 && t->d0 / a < FS_B_MIN))
        return;
    t->fa = a;
    t->fb = t->d0 / a;
    if (n == 1) {
        /* at least four groups where fb allows: later groups land behind earlier ones' work */
        t->fm = fs_run(t->fb, rowb, t->fb / 4 > 1 ? t->fb / 4 : 1);
        /* the two gathering buffers at most a quarter of the array */
        t->fM = fs_run(t->fa, rowb, t->d0 / (8 * t->fb) > 1 ? t->d0 / (8 * t->fb) : 1);
    } else {
        /* four groups a card where fb allows, none beyond CHUNK_MAX */
        int64_t most = min64(t->fb / (4 * n), (int64_t)(CHUNK_MAX / ((size_t)a * rowb)));
        t->fm = fs_run(t->fb, rowb, most > 1 ? most : 1);
        /* blocks of a card's share; rows of FS_RUN / 2 or more leave one by one, without
           the gathering buffers' memory */
        int64_t share = a / n;
        t->fM = rowb >= FS_RUN / 2 ? 1 : fs_run(share, rowb, share / 8 > 1 ? share / 8 : 1);
    }
    t->fs = 1;
}

/* Streams and the phase event of card c. */
static int card_setup(tcard *c, int several) {
    TRY(c->o->activate(c->d));
    TRY(c->o->stream_create(c->d, &c->in));
    TRY(c->o->stream_create(c->d, &c->out));
    TRY(c->o->stream_create(c->d, &c->comp));
    if (several)
        TRY(c->o->stream_create(c->d, &c->xch));
    return c->o->event_create(c->d, &c->phase_ev);
}

/* Card c's events: nev of each kind it uses. */
static int card_events(tcard *c, int several) {
    TRY(events(c, &c->in_ev, c->nev));
    TRY(events(c, &c->comp_ev, c->nev));
    TRY(events(c, &c->blk_ev, c->nev));
    TRY(events(c, &c->out_ev, c->nev));
    return several ? events(c, &c->xch_ev, c->nev) : 0;
}

/* One card: the trip of onetrip's kinds (rounds after the slow dimension, a 1D
   line's blocks, dimension 0 four-step) in `chunks` chunks; 0, 1 where its areas
   do not fit, or a failure. */
static int size_one(hfft__trip *t, int chunks, int64_t budget) {
    tcard *c = &t->c[0];
    const hfft__round *r0 = &t->rd[t->z];
    int tout = 0;
    for (int h = 0; h < t->nrounds; h++) {
        const hfft__round *r = &t->rd[h];
        if (h != t->z && (r->kind == HFFT__C2R || r->tout || (h == t->z + 1 && r0->twn)))
            t->after[h] = 1, t->nafter++;
        tout |= r->tout;
    }
    c->ra = 0;
    c->rb = t->d0;
    c->ca = 0;
    c->cb = t->row;
    c->crow = (t->d0 + chunks - 1) / chunks;
    c->nchunk = (int)((t->d0 + c->crow - 1) / c->crow);
    c->nblock = hfft__out_blocks(t->row, t->es, c->bstart);
    for (int h = 0; h < t->nrounds; h++) {
        const hfft__round *r = &t->rd[h];
        /* a 1D line: its one group of tper = d0 lines spans every chunk */
        if (t->after[h] && t->nafter == 1 && r->tout && r->no == t->d0 && r->tper == t->d0)
            t->wk = c->crow * t->row / t->d0;
    }
    if (t->wk)
        t->nk = (t->row + t->wk - 1) / t->wk;
    t->colin = t->nafter == t->nrounds - 1 && c->nblock > 1;
    size_t rowb = (size_t)t->row * t->es, obuf = 0;
    /* Four-step where the rows are lines of one dimension (a 3D array's planes go
       faster by columns: the four-step's second lines cost more than the pitched
       copies they save); not r2r lines, whose kinds' steps read across a whole
       line. */
    int lines = 0, planes = 0;
    for (int h = 0; h < t->nrounds; h++)
        if (h != t->z)
            lines++, planes |= t->rd[h].rank == 2;
    if (!t->nafter && !t->colin && !r0->twn && !r0->r2r && lines == 1 && !planes &&
        chunks == TRIP_CHUNKS)
        fs_size(t, rowb);
    if (t->fs) { /* the inner rounds on groups' runs of fm rows */
        c->crow = t->fm;
        c->nchunk = (int)(t->d0 / t->fm);
        c->ka = 0;
        c->kb = t->fa;
        obuf = t->fM > 1 ? (size_t)(t->fM * t->fb) * rowb : 0;
    }
    size_t work = 0;
    TRY(plan_inner(t, c, &work));
    t->transpose = !t->fs && t->d0 >= TRANSPOSE_MIN_L;
    t->wc = t->row < WCOLS ? t->row : WCOLS;
    if (t->fs) {
        TRY(plan1(t, c, &c->s1, HFFT__C2C, 1, &t->fa, t->fb * t->row, 1, t->fm * t->row, &work));
        TRY(plan1(t, c, &c->s2, HFFT__C2C, 1, &t->fb, t->row, 1, t->row, &work));
    } else {
        TRY(plan_columns(t, c, &work));
    }
    c->tb_bytes = t->transpose ? (size_t)(t->wc * t->d0) * t->es : 0;
    size_t chunkb = tout ? (size_t)c->crow * rowb : 0;
    if ((int64_t)(t->bytes + c->tb_bytes + work + 2 * chunkb + 2 * obuf) > budget)
        return 1; /* the array fits, its work areas not */
    TRY(c->o->alloc(c->d, &c->arr, t->bytes));
    for (int k = 0; k < 2 && chunkb; k++)
        TRY(c->o->alloc(c->d, &t->tbuf[k], chunkb));
    for (int k = 0; k < 2 && obuf; k++)
        TRY(c->o->alloc(c->d, &c->obuf[k], obuf));
    if (c->tb_bytes)
        TRY(c->o->alloc(c->d, &c->tb, c->tb_bytes));
    if (work)
        TRY(c->o->alloc(c->d, &c->work, work));
    c->work_bytes = work;
    c->nev = c->nblock > c->nchunk ? c->nblock : c->nchunk;
    c->nev = t->nk > c->nev ? (int)t->nk : c->nev;
    if (t->fs) /* groups in, blocks out */
        c->nev = (int)(t->fb / t->fm > t->fa / t->fM ? t->fb / t->fm : t->fa / t->fM);
    return card_events(c, 0);
}

/* Several cards, dimension 0 four-step (fs_size): card k's groups and values of k1,
   its plans and areas; 0, 1 where a card lacks the room, or a failure. */
static int size_fs(hfft__trip *t) {
    size_t rowb = (size_t)t->row * t->es;
    int64_t groups = t->fb / t->fm, share = t->fa / t->n;
    for (int k = 0; k < t->n; k++) {
        tcard *c = &t->c[k];
        c->g0 = groups * k / t->n;
        c->g1 = groups * (k + 1) / t->n;
        c->ka = share * k;
        c->kb = share * (k + 1);
        /* a group's fa runs of fm rows land one after the other, its rows' transforms
           one chunk (no round here depends on the index) */
        c->crow = t->fa * t->fm;
        c->nchunk = (int)(c->g1 - c->g0);
        c->ra = 0;
        c->rb = c->nchunk * c->crow;
        size_t work = 0;
        TRY(c->o->activate(c->d));
        TRY(plan_inner(t, c, &work));
        TRY(plan1(t, c, &c->s1, HFFT__C2C, 1, &t->fa, t->fm * t->row, 1, t->fm * t->row, &work));
        TRY(plan1(t, c, &c->s2, HFFT__C2C, 1, &t->fb, t->row, 1, t->row, &work));
        size_t arr = (size_t)(share * t->fb) * rowb, land = (size_t)c->crow * rowb;
        size_t obuf = t->fM > 1 ? (size_t)(t->fM * t->fb) * rowb : 0;
        int64_t avail = c->o->budget(c->d) - c->o->used(c->d) - c->o->reserve(c->d);
        if ((int64_t)(arr + 2 * land + 2 * obuf + work) > avail)
            return 1;
        c->work_bytes = work;
        c->nev = (int)(c->nchunk > share / t->fM ? c->nchunk : share / t->fM);
        TRY(card_events(c, 1));
        TRY(c->o->alloc(c->d, &c->arr, arr));
        for (int i = 0; i < 2; i++)
            TRY(c->o->alloc(c->d, &c->land[i], land));
        for (int i = 0; i < 2 && obuf; i++)
            TRY(c->o->alloc(c->d, &c->obuf[i], obuf));
        if (work)
            TRY(c->o->alloc(c->d, &c->work, work));
    }
    return 0;
}

/* Several cards in `chunks` chunks of each card's rows: 0, 1 where the array and
   the areas do not fit the cards, or a failure. */
static int size_several(hfft__trip *t, int chunks) {
    size_t es = t->es, rowb = (size_t)t->row * es;
    if (t->fs)
        return size_fs(t);
    int64_t avail[HFFT_MAX_CARDS], total = 0;
    t->transpose = t->d0 >= TRANSPOSE_MIN_L;
    t->wc = WCOLS;
    for (int k = 0; k < t->n; k++) {
        tcard *c = &t->c[k];
        c->ra = t->d0 * k / t->n;
        c->rb = t->d0 * (k + 1) / t->n;
        int64_t rows = c->rb - c->ra, most = (int64_t)(CHUNK_MAX / rowb);
        c->crow = min64((rows + chunks - 1) / chunks, most > 0 ? most : 1);
        c->nchunk = (int)((rows + c->crow - 1) / c->crow);
        size_t work = 0;
        TRY(c->o->activate(c->d));
        TRY(plan_inner(t, c, &work));
        c->work_bytes = work;
        c->tb_bytes = t->transpose ? (size_t)(t->wc * t->d0) * es : 0;
        size_t fixed = 2 * (size_t)c->crow * rowb + work + c->tb_bytes;
        avail[k] = c->o->budget(c->d) - c->o->used(c->d) - c->o->reserve(c->d) - (int64_t)fixed;
        if (avail[k] < 0)
            avail[k] = 0;
        total += avail[k];
    }
    /* The columns, in proportion to the memory each card has left for them, none
       beyond what a card holds; what rounding leaves goes to the cards with room. */
    int64_t colb = t->d0 * (int64_t)es, wk[HFFT_MAX_CARDS], left = t->row;
    if (total / colb < t->row)
        return 1;
    for (int k = 0; k < t->n; k++) {
        wk[k] = min64((int64_t)((double)t->row * (double)avail[k] / (double)total),
                      avail[k] / colb);
        left -= wk[k];
    }
    for (int k = 0; k < t->n && left > 0; k++) {
        int64_t more = min64(left, avail[k] / colb - wk[k]);
        wk[k] += more;
        left -= more;
    }
    if (left != 0)
        return 1;
    for (int64_t k = 0, at = 0; k < t->n; k++) {
        t->c[k].ca = at;
        t->c[k].cb = at + wk[k];
        at += wk[k];
    }
    for (int k = 0; k < t->n; k++) {
        tcard *c = &t->c[k];
        int64_t w = c->cb - c->ca;
        c->nblock = w > 0 ? hfft__out_blocks(w, es, c->bstart) : 0;
        size_t work = c->work_bytes;
        TRY(c->o->activate(c->d));
        TRY(plan_columns(t, c, &work));
        c->work_bytes = work;
        c->nev = c->nblock > c->nchunk ? c->nblock : c->nchunk;
        TRY(card_events(c, 1));
        size_t blk = (size_t)w * (size_t)colb;
        TRY(c->o->alloc(c->d, &c->arr, blk > 0 ? blk : es));
        for (int i = 0; i < 2; i++)
            TRY(c->o->alloc(c->d, &c->land[i], (size_t)c->crow * rowb));
        if (c->tb_bytes)
            TRY(c->o->alloc(c->d, &c->tb, c->tb_bytes));
        if (work)
            TRY(c->o->alloc(c->d, &c->work, work));
    }
    return 0;
}

/* The trip in `chunks` chunks: 0 and *out, 1 where it does not fit, or a failure. */
static int trip_try(const hfft__card *cards, int n, const hfft__gpu_req *req, int chunks,
                    int fs, hfft__trip **out) {
    hfft__trip *t = calloc(1, sizeof *t);
    if (!t)
        return hfft__fail(HFFT_ERR_HOST_MEMORY, "GPU engine: out of memory");
    t->base.ops = &trip_ops;
    t->n = n;
    t->prec = req->prec;
    t->sign = req->sign;
    t->es = 2u * (size_t)req->prec;
    t->nrounds = req->nrounds;
    memcpy(t->rd, req->rounds, (size_t)req->nrounds * sizeof *t->rd);
    t->z = dim0_round(req);
    t->d0 = t->rd[t->z].L;
    t->row = t->rd[t->z].ni;
    t->bytes = (size_t)(t->d0 * t->row) * t->es;
    int st = 0;
    for (int k = 0; k < n && !st; k++) {
        tcard *c = &t->c[k];
        c->o = cards[k].ops;
        c->d = cards[k].dev;
        c->xfer = (hfft__xfer){c->o, c->d, NULL, {0, 0}};
        st = card_setup(c, n > 1);
    }
    if (!st && n == 1) {
        /* what the card has left after what it holds and what its backend keeps */
        tcard *c = &t->c[0];
        int64_t budget = c->o->budget(c->d) - c->o->used(c->d) - c->o->reserve(c->d);
        st = (int64_t)t->bytes >= budget ? 1 : size_one(t, chunks, budget);
    } else if (!st) {
        const hfft__round *r0 = &t->rd[t->z];
        if (fs && !r0->r2r)
            fs_size(t, (size_t)t->row * t->es);
        st = fs && !t->fs ? 1 : size_several(t, chunks);
    }
    if (st) {
        trip_destroy(t);
        if (st == 1 || st == HFFT_ERR_DEVICE_MEMORY || st == HFFT_ERR_BUDGET) {
            hfft__clear_error();
            return 1; /* too little room, or the device refused: streaming instead */
        }
        return st;
    }
    *out = t;
    return 0;
}

int hfft__trip_create(const hfft__card *cards, int n, const hfft__gpu_req *req,
                      hfft__cards **out) {
    *out = NULL;
    if (!suits(req, n))
        return 1;
    /* Where 16 chunks' work areas do not fit beside the array, more and smaller chunks
       (a line of most of a card's memory). */
    int64_t d0 = req->rounds[dim0_round(req)].L;
    hfft__trip *t = NULL;
    /* r2r lines on one card: the kinds' steps lengthen the last chunk's transforms,
       which the copies out wait for; smaller chunks where they stay large */
    const hfft__round *r0 = &req->rounds[dim0_round(req)];
    int64_t bytes = d0 * r0->ni * 2 * (int64_t)req->prec;
    int first = n == 1 && r0->r2r && bytes >= 2 * TRIP_CHUNKS * R2R_CHUNK_MIN ? 2 * TRIP_CHUNKS
                                                                              : TRIP_CHUNKS;
    /* several cards: dimension 0 four-step first, where it applies and fits */
    int st = n > 1 ? trip_try(cards, n, req, TRIP_CHUNKS, 1, &t) : 1;
    for (int chunks = first; st == 1 && chunks <= TRIP_CHUNKS_MAX; chunks *= 2) {
        st = trip_try(cards, n, req, chunks, 0, &t);
        if (chunks >= d0 / n)
            break; /* a chunk per index already */
    }
    if (st == 0)
        *out = &t->base;
    return st;
}

/* ---- executing ---- */

/* Round h's transforms on dimension-0 indices [a, a + n) of card c, which lie at
   `base` on the card. */
static int inner_chunk(hfft__trip *t, tcard *c, int h, char *base, int64_t a, int64_t n) {
    const hfft__round *r = &t->rd[h];
    int64_t per = r->no / t->d0;
    if (!hfft__round_strided(r)) {
        TRY(c->o->fft_exec(c->d, c->inner[h][n == c->crow ? 0 : 1], c->comp, base, c->work));
        if (r->twn) /* four-step, transposed input: by line (in its group) and element */
            TRY(c->o->twiddle(c->d, t->prec, c->comp, base, n * per, r->L, r->dout, r->twn,
                              a * per, r->tper, 0, t->sign));
        return 0;
    }
    for (int64_t o = 0; o < n * per; o++) {
        char *line = base + (size_t)(o * r->dout) * t->es;
        TRY(c->o->fft_exec(c->d, c->inner[h][0], c->comp, line, c->work));
        if (r->twn) /* four-step: by row and column */
            TRY(c->o->twiddle(c->d, t->prec, c->comp, line, r->L, r->ni, r->s, r->twn, 0, r->L,
                              0, t->sign));
    }
    return 0;
}

/* Chunk k of card c's rows: [*a, *a + *n). */
static void chunk(const tcard *c, int k, int64_t *a, int64_t *n) {
    *a = c->ra + (int64_t)k * c->crow;
    *n = c->rb - *a < c->crow ? c->rb - *a : c->crow;
}

/* Dimension-0 indices [a + r gap, a + r gap + n) for r < reps (one run where reps is
   1), between the host and `dev` on card c, where run r lies r dgap indices on: the
   real round's rows (nreal reals, rpitch apart on the host), or the complex side's
   bytes where no real round touches the host here.  Few large copies: each costs a
   few microseconds of the link's time. */
static int copy_chunk(hfft__trip *t, tcard *c, int out, const hfft__round *real, char *host,
                      char *dev, int64_t a, int64_t n, int64_t reps, int64_t gap, int64_t dgap) {
    size_t rowb = (size_t)t->row * t->es;
    hfft__stream s = out ? c->out : c->in;
    if (!real) { /* the runs as the rows of one copy */
        size_t run = (size_t)n * rowb, pitch = reps > 1 ? (size_t)gap * rowb : run;
        size_t dpitch = reps > 1 ? (size_t)dgap * rowb : run;
        char *h = host + (size_t)a * rowb;
        if (out)
            return hfft__xfer_d2h(&c->xfer, s, h, pitch, dev, dpitch, run, (size_t)reps);
        return hfft__xfer_h2d(&c->xfer, s, dev, dpitch, h, pitch, run, (size_t)reps);
    }
    /* rows of the last dimension: complex ones of n/2 + 1 on the card */
    int64_t per = t->row / (real->nreal / 2 + 1), rows = n * per;
    size_t crow = (size_t)(real->nreal / 2 + 1) * t->es, rs = t->es / 2;
    size_t rpitch = (size_t)real->rpitch * rs, width = (size_t)real->nreal * rs;
    char *h = host + (size_t)(a * per) * rpitch;
    /* a copy per run, or where runs outnumber their rows, a copy per row of the runs */
    int byrow = reps > 1 && rows < reps;
    int64_t ncopy = byrow ? rows : reps, height = byrow ? reps : rows;
    size_t hstep = byrow ? rpitch : (size_t)(gap * per) * rpitch;
    size_t dstep = byrow ? crow : (size_t)(dgap * per) * crow;
    size_t hp = byrow ? (size_t)(gap * per) * rpitch : rpitch;
    size_t dp = byrow ? (size_t)(dgap * per) * crow : crow;
    for (int64_t k = 0; k < ncopy; k++) {
        char *hk = h + (size_t)k * hstep, *dk = dev + (size_t)k * dstep;
        if (out)
            TRY(hfft__xfer_d2h(&c->xfer, s, hk, hp, dk, dp, width, (size_t)height));
        else
            TRY(hfft__xfer_h2d(&c->xfer, s, dk, dp, hk, hp, width, (size_t)height));
    }
    return 0;
}

/* Card c's columns [c0, c0 + w) of its array along dimension 0, on its compute stream. */
static int slow_block(hfft__trip *t, tcard *c, int64_t c0, int64_t w) {
    int64_t pitch = c->cb - c->ca;
    char *col = (char *)c->arr + (size_t)c0 * t->es;
    const hfft__round *r = &t->rd[t->z];
    if (t->transpose) {
        TRY(hfft__columns(c->o, c->d, t->prec, c->comp, c->tb, c->work, c->col[0], col, pitch,
                          t->d0, w, t->wc));
    } else {
        int k = 0;
        while (k < 2 && c->colw[k] != w)
            k++;
        TRY(c->o->fft_exec(c->d, c->col[k], c->comp, col, c->work));
    }
    if (r->twn) /* a four-step split whose first round is the slow dimension */
        TRY(c->o->twiddle(c->d, t->prec, c->comp, col, t->d0, w, pitch, r->twn, 0, t->d0, c0,
                          t->sign));
    return 0;
}

/* Chunk j of card k: copied in, its fast dimensions transformed as it lands; with
   several cards, its columns sent to the cards that own them. */
static int land(hfft__trip *t, int k, int j, const char *src, const hfft__round *real_in) {
    tcard *c = &t->c[k];
    const hfft__dev_ops *o = c->o;
    int64_t a, n;
    chunk(c, j, &a, &n);
    size_t es = t->es, rowb = (size_t)t->row * es;
    char *buf = t->n == 1 ? (char *)c->arr + (size_t)a * rowb : c->land[j % 2];
    if (t->n > 1) {
        TRY(o->activate(c->d));
        if (j >= 2) /* the landing buffer is free once chunk j - 2 went out of it */
            TRY(o->wait(c->d, c->in, c->xch_ev[j - 2]));
    }
    TRY(copy_chunk(t, c, 0, real_in, (char *)src, buf, a, n, 1, 0, 0));
    TRY(o->record(c->d, c->in_ev[j], c->in));
    TRY(o->wait(c->d, c->comp, c->in_ev[j]));
    for (int h = 0; h < t->nrounds; h++)
        if (h != t->z && !t->after[h])
            TRY(inner_chunk(t, c, h, buf, a, n));
    if (t->n == 1)
        return 0;
    TRY(o->record(c->d, c->comp_ev[j], c->comp));
    TRY(o->wait(c->d, c->xch, c->comp_ev[j]));
    for (int i = 0; i < t->n; i++) {
        /* the next card first: the cards' sends spread over the links */
        tcard *m = &t->c[(k + 1 + i) % t->n];
        int64_t w = m->cb - m->ca;
        if (w == 0)
            continue;
        char *dst = (char *)m->arr + (size_t)(a * w) * es;
        const char *from = buf + (size_t)m->ca * es;
        TRY(hfft__card_copy(o, c->d, c->xch, m->d, dst, (size_t)w * es, from, rowb, (size_t)w * es,
                            (size_t)n));
    }
    return o->record(c->d, c->xch_ev[j], c->xch);
}

/* Block b of card c's columns along dimension 0, copied out behind the next block's
   transforms. */
static int column_block(hfft__trip *t, tcard *c, int b, char *dst) {
    const hfft__dev_ops *o = c->o;
    size_t es = t->es, rowb = (size_t)t->row * es;
    int64_t pitch = c->cb - c->ca, c0 = c->bstart[b], w = c->bstart[b + 1] - c0;
    if (t->n > 1)
        TRY(o->activate(c->d));
    TRY(slow_block(t, c, c0, w));
    TRY(o->record(c->d, c->blk_ev[b], c->comp));
    TRY(o->wait(c->d, c->out, c->blk_ev[b]));
    TRY(hfft__xfer_d2h_alone(&c->xfer, c->out, dst + (size_t)(c->ca + c0) * es, rowb,
                             (char *)c->arr + (size_t)c0 * es, (size_t)pitch * es,
                             (size_t)w * es, (size_t)t->d0));
    return o->record(c->d, c->out_ev[b], c->out);
}

/*
 * Chunk [a, a + n) of a transposed round (lines of length L, in groups of tper)
 * out to the host in natural order, from the card's array through tbuf: where
 * the chunk holds whole groups, each group transposed and the chunk copied out
 * whole (1); where one group spans chunks (a 1D line), its rows transposed and
 * copied out as columns of the group (2).
 */
static int copy_transposed(hfft__trip *t, tcard *c, const hfft__round *r, int64_t a, int64_t n,
                           void *tbuf) {
    size_t es = t->es;
    int64_t per = r->no / t->d0, lines = n * per, l0 = a * per;
    char *src = (char *)c->arr + (size_t)(l0 * r->dout) * es;
    if (r->tper <= per) {
        for (int64_t grp = 0; grp < lines / r->tper; grp++) {
            size_t off = (size_t)(grp * r->tper * r->L) * es;
            TRY(c->o->transpose(c->d, t->prec, c->comp, (char *)tbuf + off, r->tper, src + off,
                                r->L, r->tper, r->L));
        }
        return 1;
    }
    TRY(c->o->transpose(c->d, t->prec, c->comp, tbuf, lines, src, r->L, lines, r->L));
    return 2;
}

/*
 * A 1D line's transposed round (lines of L = row elements, one group of d0
 * lines) whole, then its output rows (element k of every line, for k in a
 * block of wk) transposed into tbuf in turn and copied out contiguously
 * behind the next block.
 */
static int line_out(hfft__trip *t, int h, char *dst) {
    tcard *c = &t->c[0];
    const hfft__dev_ops *o = c->o;
    size_t es = t->es;
    for (int k = 0; k < c->nchunk; k++) {
        int64_t a, n;
        chunk(c, k, &a, &n);
        TRY(inner_chunk(t, c, h, (char *)c->arr + (size_t)(a * t->row) * es, a, n));
    }
    for (int64_t j = 0; j < t->nk; j++) {
        int64_t b0 = j * t->wk, w = t->row - b0 < t->wk ? t->row - b0 : t->wk;
        void *tb = t->tbuf[j % 2];
        if (j >= 2) /* tbuf j % 2 is free once block j - 2 went out */
            TRY(o->wait(c->d, c->comp, c->out_ev[j - 2]));
        TRY(o->transpose(c->d, t->prec, c->comp, tb, t->d0, (char *)c->arr + (size_t)b0 * es,
                         t->row, t->d0, w));
        TRY(o->record(c->d, c->comp_ev[j], c->comp));
        TRY(o->wait(c->d, c->out, c->comp_ev[j]));
        size_t bytes = (size_t)(w * t->d0) * es;
        TRY(hfft__xfer_d2h(&c->xfer, c->out, dst + (size_t)(b0 * t->d0) * es, bytes, tb, bytes,
                           bytes, 1));
        TRY(o->record(c->d, c->out_ev[j], c->out));
    }
    return 0;
}

/* fs_size's copy in: group G's runs of fm rows, each transformed as it lands, then
   the group's fa-point lines. */
static int fs_in(hfft__trip *t, const hfft__round *real_in, const char *src) {
    tcard *c = &t->c[0];
    size_t rowb = (size_t)t->row * t->es;
    for (int64_t G = 0; G < t->fb / t->fm; G++) {
        char *group = (char *)c->arr + (size_t)(G * t->fm) * rowb;
        /* the group's fa runs of fm indices, fb apart */
        TRY(copy_chunk(t, c, 0, real_in, (char *)src, group, G * t->fm, t->fm, t->fa, t->fb,
                       t->fb));
        TRY(c->o->record(c->d, c->in_ev[G], c->in));
        TRY(c->o->wait(c->d, c->comp, c->in_ev[G]));
        for (int64_t j1 = 0; j1 < t->fa; j1++) {
            int64_t a = G * t->fm + j1 * t->fb;
            for (int h = 0; h < t->nrounds; h++)
                if (h != t->z)
                    TRY(inner_chunk(t, c, h, (char *)c->arr + (size_t)a * rowb, a, t->fm));
        }
        TRY(c->o->fft_exec(c->d, c->s1, c->comp, group, c->work));
    }
    return 0;
}

/* Several cards, fs_size's copy in: card k's group j (of [g0, g1)) lands in turn in
   a landing buffer as fa runs of fm rows, one after the other; its rows and its
   fa-point lines are transformed, then the rows of k1 in [ka, kb) of each card m go
   to card m's array, where row (k1, j2) lies at (k1 - ka) fb + j2. */
static int fs_land(hfft__trip *t, int k, int j, const char *src, const hfft__round *real_in) {
    tcard *c = &t->c[k];
    const hfft__dev_ops *o = c->o;
    size_t rowb = (size_t)t->row * t->es, run = (size_t)t->fm * rowb;
    int64_t G = c->g0 + j;
    char *buf = c->land[j % 2];
    TRY(o->activate(c->d));
    if (j >= 2) /* the landing buffer is free once group j - 2 went out of it */
        TRY(o->wait(c->d, c->in, c->xch_ev[j - 2]));
    TRY(copy_chunk(t, c, 0, real_in, (char *)src, buf, G * t->fm, t->fm, t->fa, t->fb, t->fm));
    TRY(o->record(c->d, c->in_ev[j], c->in));
    TRY(o->wait(c->d, c->comp, c->in_ev[j]));
    for (int h = 0; h < t->nrounds; h++)
        if (h != t->z)
            TRY(inner_chunk(t, c, h, buf, G * t->fm, c->crow));
    TRY(o->fft_exec(c->d, c->s1, c->comp, buf, c->work));
    TRY(o->record(c->d, c->comp_ev[j], c->comp));
    TRY(o->wait(c->d, c->xch, c->comp_ev[j]));
    for (int i = 0; i < t->n; i++) {
        /* the next card first: the cards' sends spread over the links */
        tcard *m = &t->c[(k + 1 + i) % t->n];
        char *dst = (char *)m->arr + (size_t)(G * t->fm) * rowb;
        const char *from = buf + (size_t)m->ka * run;
        size_t dpitch = (size_t)t->fb * rowb, rows = (size_t)(m->kb - m->ka);
        TRY(hfft__card_copy(o, c->d, c->xch, m->d, dst, dpitch, from, run, run, rows));
    }
    return o->record(c->d, c->xch_ev[j], c->xch);
}

/* fs_size's copy out, card c's block K: for fM values k1 from ka + K fM, its rows
   (k1, j2) times their twiddles and their fb-point lines, gathered into obuf, out in
   runs of fM rows. */
static int fs_block(hfft__trip *t, tcard *c, int64_t K, char *dst) {
    const hfft__dev_ops *o = c->o;
    size_t rowb = (size_t)t->row * t->es;
    int64_t k0 = c->ka + K * t->fM;
    char *ob = t->fM > 1 ? c->obuf[K % 2] : NULL;
    if (t->n > 1)
        TRY(o->activate(c->d));
    if (ob && K >= 2) /* obuf K % 2 is free once block K - 2 went out */
        TRY(o->wait(c->d, c->comp, c->out_ev[K - 2]));
    for (int64_t k1 = k0; k1 < k0 + t->fM; k1++) {
        char *blk = (char *)c->arr + (size_t)((k1 - c->ka) * t->fb) * rowb;
        TRY(o->twiddle(c->d, t->prec, c->comp, blk, t->fb, t->row, t->row, t->d0, 0, 0, k1,
                       t->sign));
        TRY(o->fft_exec(c->d, c->s2, c->comp, blk, c->work));
        if (ob)
            TRY(o->d2d(c->d, c->comp, ob + (size_t)(k1 - k0) * rowb, (size_t)t->fM * rowb, blk,
                       rowb, rowb, (size_t)t->fb));
    }
    TRY(o->record(c->d, c->comp_ev[K], c->comp));
    TRY(o->wait(c->d, c->out, c->comp_ev[K]));
    const char *from = ob ? ob : (char *)c->arr + (size_t)((k0 - c->ka) * t->fb) * rowb;
    char *to = dst + (size_t)k0 * rowb;
    size_t hp = (size_t)t->fa * rowb, w = (size_t)t->fM * rowb;
    /* several cards copy out after every copy in: nothing to keep pace with */
    if (t->n > 1)
        TRY(hfft__xfer_d2h_alone(&c->xfer, c->out, to, hp, from, w, w, (size_t)t->fb));
    else
        TRY(hfft__xfer_d2h(&c->xfer, c->out, to, hp, from, w, w, (size_t)t->fb));
    return o->record(c->d, c->out_ev[K], c->out);
}

/* One card: the rounds that follow the slow dimension.  It runs whole, then they
   run chunk by chunk, each chunk copied out behind the next (real rows, a
   transposed round's natural order, or the complex rows). */
static int after_out(hfft__trip *t, const hfft__round *real_out, char *dst) {
    tcard *c = &t->c[0];
    const hfft__dev_ops *o = c->o;
    size_t es = t->es, rowb = (size_t)t->row * es;
    for (int j = 0; j < c->nblock && !t->colin; j++)
        TRY(slow_block(t, c, c->bstart[j], c->bstart[j + 1] - c->bstart[j]));
    for (int h = 0; h < t->nrounds && t->wk; h++)
        if (t->after[h])
            TRY(line_out(t, h, dst));
    for (int k = 0; k < c->nchunk && !t->wk; k++) {
        int64_t a, n;
        chunk(c, k, &a, &n);
        char *base = (char *)c->arr + (size_t)a * rowb;
        const hfft__round *tr = NULL;
        int how = 0;
        void *tb = t->tbuf[k % 2];
        if (k >= 2) /* tbuf k % 2 is free once chunk k - 2 went out */
            TRY(o->wait(c->d, c->comp, c->out_ev[k - 2]));
        for (int h = 0; h < t->nrounds; h++) {
            if (!t->after[h])
                continue;
            TRY(inner_chunk(t, c, h, base, a, n));
            if (t->rd[h].tout) {
                tr = &t->rd[h];
                how = copy_transposed(t, c, tr, a, n, tb);
                if (how < 0)
                    return how;
            }
        }
        TRY(o->record(c->d, c->comp_ev[k], c->comp));
        TRY(o->wait(c->d, c->out, c->comp_ev[k]));
        if (how == 1) {
            size_t bytes = (size_t)n * rowb;
            TRY(hfft__xfer_d2h(&c->xfer, c->out, dst + (size_t)a * rowb, bytes, tb, bytes, bytes,
                               1));
        } else if (how == 2) {
            /* one group over every chunk: L rows of the chunk's lines, tper apart */
            int64_t lines = n * (tr->no / t->d0), l0 = a * (tr->no / t->d0);
            TRY(hfft__xfer_d2h(&c->xfer, c->out, dst + (size_t)l0 * es, (size_t)tr->tper * es, tb,
                               (size_t)lines * es, (size_t)lines * es, (size_t)tr->L));
        } else {
            TRY(copy_chunk(t, c, 1, real_out, dst, base, a, n, 1, 0, 0));
        }
        TRY(o->record(c->d, c->out_ev[k], c->out));
    }
    return 0;
}

/* Everything of an execute issued, in the order the cards' links take it. */
static int issue(hfft__trip *t, const char *src, char *dst) {
    tcard *c0 = &t->c[0];
    const hfft__round *first = &t->rd[0], *last = &t->rd[t->nrounds - 1];
    const hfft__round *real_in = first->kind == HFFT__R2C ? first : NULL;
    const hfft__round *real_out = last->kind == HFFT__C2R ? last : NULL;
    size_t es = t->es, rowb = (size_t)t->row * es;
    /* One card with nothing to do on chunks: in by blocks of columns, each block's
       slow dimension as soon as it landed. */
    for (int j = 0; j < c0->nblock && t->colin; j++) {
        int64_t c = c0->bstart[j], w = c0->bstart[j + 1] - c;
        TRY(hfft__xfer_h2d(&c0->xfer, c0->in, (char *)c0->arr + (size_t)c * es, rowb,
                           src + (size_t)c * es, rowb, (size_t)w * es, (size_t)t->d0));
        TRY(c0->o->record(c0->d, c0->in_ev[j], c0->in));
        TRY(c0->o->wait(c0->d, c0->comp, c0->in_ev[j]));
        TRY(slow_block(t, c0, c, w));
    }
    if (t->fs && t->n == 1)
        TRY(fs_in(t, real_in, src));
    /* Chunk by chunk (group by group), every card in turn, so that all links start at
       once. */
    int most = 0;
    for (int k = 0; k < t->n; k++)
        most = t->c[k].nchunk > most ? t->c[k].nchunk : most;
    for (int j = 0; j < most && !t->colin && (!t->fs || t->n > 1); j++)
        for (int k = 0; k < t->n; k++)
            if (j < t->c[k].nchunk)
                TRY(t->fs ? fs_land(t, k, j, src, real_in) : land(t, k, j, src, real_in));
    /* Each card's columns once every card's last chunk went out to it (a stream's
       copies run in order: its last event stands for all of them). */
    for (int m = 0; m < t->n && t->n > 1; m++) {
        tcard *c = &t->c[m];
        TRY(c->o->activate(c->d));
        for (int k = 0; k < t->n; k++)
            TRY(c->o->wait(c->d, c->comp, t->c[k].xch_ev[t->c[k].nchunk - 1]));
    }
    if (t->n > 1)
        TRY(c0->o->activate(c0->d));
    TRY(c0->o->record(c0->d, c0->phase_ev, c0->comp));
    if (t->nafter)
        return after_out(t, real_out, dst);
    /* Block by block, every card in turn: a card's blocks issued all at once would
       fill the launch queue, and the host would wait on that card before the next
       card's first block was issued, its link idle meanwhile. */
    int blocks = 0;
    for (int m = 0; m < t->n; m++) {
        tcard *c = &t->c[m];
        int nb = t->fs ? (int)((c->kb - c->ka) / t->fM) : c->nblock;
        blocks = nb > blocks ? nb : blocks;
    }
    for (int b = 0; b < blocks; b++)
        for (int m = 0; m < t->n; m++) {
            tcard *c = &t->c[m];
            if (t->fs)
                TRY(fs_block(t, c, b, dst));
            else if (b < c->nblock)
                TRY(column_block(t, c, b, dst));
        }
    return 0;
}

/* Waits for everything issued on every card. */
static int drain(hfft__trip *t) {
    int st = 0;
    for (int k = 0; k < t->n; k++) {
        tcard *c = &t->c[k];
        hfft__stream s[4] = {c->in, c->comp, c->xch, c->out};
        int e = c->o->activate(c->d);
        if (e && !st)
            st = e;
        for (int i = 0; i < 4; i++) {
            if (!s[i])
                continue;
            e = c->o->sync(c->d, s[i]);
            if (e && !st)
                st = e;
        }
        if (c->xfer.stage && (e = hfft__stage_sync(c->xfer.stage)) != 0 && !st)
            st = e;
    }
    return st;
}

static int trip_run(hfft__cards *base, int h, const void *src, void *dst, int drain_) {
    (void)h;
    (void)drain_; /* every round at once, to the end */
    hfft__trip *t = (hfft__trip *)base;
    double t0 = hfft__now(), t1 = t0;
    tcard *c0 = &t->c[0];
    int st = c0->o->activate(c0->d);
    if (!st)
        st = issue(t, src, dst);
    if (!st && t->n > 1)
        st = c0->o->activate(c0->d);
    if (!st && !(st = c0->o->event_sync(c0->d, c0->phase_ev)))
        t1 = hfft__now();
    int s2 = drain(t); /* after a failure too: nothing of this execute stays in flight */
    if (!st)
        st = s2;
    t->t[0] = t1 - t0;
    t->t[1] = hfft__now() - t1;
    return st;
}

static int trip_stage(hfft__cards *base, int on, int threads) {
    hfft__trip *t = (hfft__trip *)base;
    tcard *c = &t->c[0];
    if (!on || c->xfer.stage) {
        if (!on) {
            hfft__stage_destroy(c->xfer.stage);
            c->xfer.stage = NULL;
        }
        return 0;
    }
    if (t->n > 1)
        return hfft__fail(HFFT_ERR_UNSUPPORTED,
                          "one trip over several cards copies straight from pinned "
                          "(registered) arrays");
    /* slots of 32 MiB, wide rows going through them in pieces */
    return hfft__stage_create(c->o, c->d, (size_t)32 << 20, threads > 0 ? threads : 1,
                              &c->xfer.stage);
}

static int trip_staged(const hfft__cards *base) {
    return ((const hfft__trip *)base)->c[0].xfer.stage != NULL;
}

static int trip_used(const hfft__cards *base) { return ((const hfft__trip *)base)->n; }

static void trip_take_link(hfft__cards *base, int64_t bytes[2]) {
    hfft__trip *t = (hfft__trip *)base;
    bytes[0] = bytes[1] = 0;
    for (int k = 0; k < t->n; k++) {
        bytes[0] += t->c[k].xfer.bytes[0];
        bytes[1] += t->c[k].xfer.bytes[1];
        t->c[k].xfer.bytes[0] = t->c[k].xfer.bytes[1] = 0;
    }
}

/* The last execute per round: the first fast round takes the copy in with every fast
   dimension, the slow round (dimension 0) the rest. */
static void trip_times(const hfft__cards *base, double *secs) {
    const hfft__trip *t = (const hfft__trip *)base;
    for (int h = 0; h < t->nrounds; h++)
        secs[h] = 0.0;
    secs[t->z == 0 ? 1 : 0] = t->t[0];
    secs[t->z] = t->t[1];
}

static void trip_fill_info(const hfft__cards *base, hfft_info *info) {
    const hfft__trip *t = (const hfft__trip *)base;
    for (int h = 0; h < t->nrounds; h++)
        info->passes[h] = 0;
    info->schedule = HFFT_SCHED_ONE_TRIP;
    info->transposed = t->transpose;
    info->streams = t->n > 1 ? 4 : 3;
    info->device_bytes = 0;
    for (int k = 0; k < t->n; k++)
        info->device_bytes += t->c[k].o->used(t->c[k].d);
    info->resident_bytes = 0;
    info->host_bytes += hfft__stage_bytes(t->c[0].xfer.stage);
}

/* ---- the trip as a plan's GPU side ---- */

static void trip_free(hfft__cards *base) { trip_destroy((hfft__trip *)base); }

static const hfft__cards_ops trip_ops = {
    .kind = HFFT_SCHED_ONE_TRIP,
    .destroy = trip_free,
    .run = trip_run,
    .stage = trip_stage,
    .staged = trip_staged,
    .used = trip_used,
    .take_link = trip_take_link,
    .times = trip_times,
    .fill_info = trip_fill_info,
};
