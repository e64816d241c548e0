/*
 * onetrip.c: the one-trip schedule, for arrays that fit the device with their
 * work areas.  Every byte crosses the link once each way (S in, then S out:
 * no output can leave before the last input has arrived, so S/B_in + S/B_out
 * bounds it).  The array is copied in by chunks along its slowest dimension,
 * and each chunk's transforms along the other dimensions run as soon as it
 * has landed; then the slowest dimension's transforms run in blocks of
 * columns, each block copied out while the next is computed.  What the
 * copies do not hide is one chunk's transforms and one block's.  Rounds that
 * must follow the slow dimension (a c2r transform's real round; a four-step
 * split's transposed round, the slow dimension being its first round) run
 * after it instead, chunk by chunk, each chunk copied out behind the next.
 * A 1D line's transposed round runs whole instead: its natural order then
 * leaves in blocks of output rows, each transposed on the device and copied
 * out contiguously behind the next (the H100's link copied the chunks'
 * pitched columns out at 40 GB/s, contiguous blocks at 55 GB/s).  Where no
 * round runs on the chunks as they land (a 1D line: its first round is the
 * slow dimension), the array comes in by the slow dimension's blocks of
 * columns instead, each transformed while the next one is copied in.  Where
 * rows are narrow (2D), the slow dimension runs four-step, so that both copies
 * move runs of whole rows (fs_size).
 */
#include <stdlib.h>
#include <string.h>

#include "gpu/sched.h"

#define TRIP_CHUNKS 16          /* chunks along dimension 0, where the work areas fit */
#define TRIP_CHUNKS_MAX 256     /* more and smaller chunks where they do not */
#define TRANSPOSE_MIN_L 4096    /* longer strided lines are computed transposed */
#define WCOLS 128               /* columns per transposed FFT */
#define FS_ROW_MAX ((size_t)1 << 20) /* rows up to 1 MiB: dimension 0 four-step (fs_*) */
#define FS_A_MAX 128            /* its first factor: output row blocks, a strided transform */
#define FS_RUN ((size_t)2 << 20) /* host runs of the copies in and out, at least */

struct hfft__trip {
    void *arr;              /* the array on the device (the complex side) */
    size_t bytes;
    int z;                  /* the round along dimension 0 */
    int after[HFFT__MAX_ROUNDS]; /* rounds that run after z, by chunks */
    int nafter;
    void *tbuf[2];          /* transposed rounds: each chunk transposed, two in turn */
    int64_t d0, row;        /* dimension 0's length; complex elements per index of it */
    int nchunk, nblock;
    int64_t wk, nk;         /* a 1D line's output: blocks of wk rows of the transposed
                               round's groups, nk of them (0: by chunks) */
    int nev;                /* events in in_ev, comp_ev and out_ev */
    int colin;              /* copied in by blocks of columns (no round on the chunks) */
    int64_t crow;           /* dimension-0 indices per chunk */
    int64_t bstart[HFFT__OUT_BLOCKS + 1]; /* copy-out blocks' columns (hfft__out_blocks) */
    /* per round h != z: a whole chunk and the last chunk (strided rounds: one outer
       index at a time, [0] only) */
    hfft__fftplan inner[HFFT__MAX_ROUNDS][2];
    hfft__fftplan col[3];   /* dimension 0: WCOLS lines transposed; or per block width */
    int64_t colw[3];        /* the block width of each (not transposed) */
    int transpose;
    int64_t wc;
    /* dimension 0 four-step, d0 = fa fb (fs_size): in by groups of fm residues mod fb,
       out by blocks of fM output rows through obuf (fM 1: straight from the array) */
    int fs;
    int64_t fa, fb, fm, fM;
    hfft__fftplan s1, s2;   /* fa-point lines fb rows apart; fb-point lines a row apart */
    void *obuf[2];
    hfft__event *in_ev, *comp_ev, *out_ev, phase_ev;
    double t[2];            /* last execute: until the slow dimension starts; the rest */
};

void hfft__trip_destroy(hfft__gpu *g) {
    hfft__trip *t = g->trip;
    if (!t)
        return;
    const hfft__dev_ops *o = g->ops;
    for (int h = 0; h < HFFT__MAX_ROUNDS; h++)
        for (int k = 0; k < 2; k++)
            if (t->inner[h][k])
                o->fft_destroy(g->d, t->inner[h][k]);
    for (int k = 0; k < 3; k++)
        if (t->col[k])
            o->fft_destroy(g->d, t->col[k]);
    if (t->s1)
        o->fft_destroy(g->d, t->s1);
    if (t->s2)
        o->fft_destroy(g->d, t->s2);
    hfft__event *ev[3] = {t->in_ev, t->comp_ev, t->out_ev};
    for (int a = 0; a < 3; a++) {
        for (int i = 0; ev[a] && i < t->nev; i++)
            if (ev[a][i])
                o->event_destroy(g->d, ev[a][i]);
        free(ev[a]);
    }
    if (t->phase_ev)
        o->event_destroy(g->d, t->phase_ev);
    if (t->arr)
        o->free(g->d, t->arr);
    for (int k = 0; k < 2; k++) {
        if (t->tbuf[k])
            o->free(g->d, t->tbuf[k]);
        if (t->obuf[k])
            o->free(g->d, t->obuf[k]);
    }
    free(t);
    g->trip = NULL;
}

/* Plans of the rounds along the fast dimensions, for a chunk of dimension 0. */
static int plan_inner(hfft__gpu *g, hfft__trip *t, size_t *work) {
    int64_t last = t->d0 - (int64_t)(t->nchunk - 1) * t->crow;
    for (int h = 0; h < g->nrounds; h++) {
        const hfft__round *r = &g->rd[h].r;
        if (h == t->z)
            continue;
        int64_t per = r->no / t->d0; /* lines (or outer indices) per dimension-0 index */
        if (hfft__round_strided(r)) {
            TRY(hfft__sched_plan(g, &t->inner[h][0], HFFT__C2C, 1, &r->L, r->s, 1, r->ni, work));
            continue;
        }
        const int64_t *shape = r->rank == 2 ? r->n2 : &r->L;
        TRY(hfft__sched_plan(g, &t->inner[h][0], r->kind, r->rank, shape, 1, r->dout, t->crow * per, work));
        if (last != t->crow)
            TRY(hfft__sched_plan(g, &t->inner[h][1], r->kind, r->rank, shape, 1, r->dout, last * per, work));
    }
    return 0;
}

/* The round along dimension 0 (strided, one outer index), or -1. */
static int dim0_round(const hfft__gpu *g) {
    for (int h = 0; h < g->nrounds; h++)
        if (g->rd[h].r.no == 1 && hfft__round_strided(&g->rd[h].r))
            return h;
    return -1;
}

static int make_events(hfft__gpu *g, hfft__event **ev, int n) {
    *ev = calloc(n > 0 ? (size_t)n : 1, sizeof **ev);
    if (!*ev)
        return hfft__fail(HFFT_ERR_HOST_MEMORY, "GPU engine: out of memory");
    for (int i = 0; i < n; i++)
        HFFT__TRY(g->ops->event_create(g->d, &(*ev)[i]));
    return 0;
}

static int trip_try(hfft__gpu *g, int64_t budget, int z, int chunks);

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
 * blocks moves pitched rows of 16-80 KiB, which the H100's copy engines slow to
 * 46.6 GB/s while kernels run (2D 32768 x 65536 r32: 92% of the one-trip
 * bound).  Instead d0 = fa fb and row j2 + fb j1 of the array (j2 < fb, j1 < fa):
 * the array comes in by groups of fm consecutive residues j2, each group's fa
 * runs of fm rows (host runs of at least FS_RUN bytes); each group's rows are
 * transformed as they land, then its fa-point lines (stride fb rows).  After the
 * last group, for each k1 < fa, rows fb k1 + j2 times exp(sign 2 pi i j2 k1 / d0)
 * and their fb-point lines give output rows k1 + fa k2 at rows fb k1 + k2; fM
 * consecutive k1 gathered in card (d2d) leave in host runs of fM rows, pitch fa
 * rows, behind the next block's transforms (H100: 97.3-97.9% of the bound, and
 * 98-99% for complex 2D; bench/RESULTS.md).  Sets t->fs where d0 has a factor fa
 * from 4 to FS_A_MAX with fb = d0 / fa at least 2.
 */
static void fs_size(hfft__trip *t, size_t rowb) {
    t->fs = 0;
    if (rowb > FS_ROW_MAX)
        return;
    int64_t a = 0;
    for (int64_t f = 4; f <= FS_A_MAX && 2 * f <= t->d0; f++)
        if (t->d0 % f == 0)
            a = f;
    if (!a)
        return;
    t->fa = a;
    t->fb = t->d0 / a;
    /* at least four groups where fb allows: later groups land behind earlier ones' work */
    t->fm = fs_run(t->fb, rowb, t->fb / 4 > 1 ? t->fb / 4 : 1);
    /* the two gathering buffers at most a quarter of the array */
    t->fM = fs_run(t->fa, rowb, t->d0 / (8 * t->fb) > 1 ? t->d0 / (8 * t->fb) : 1);
    t->fs = 1;
}

/*
 * Sizes the one trip, or returns 1 where the streaming schedule must run
 * instead.  The chunks along dimension 0 set the work areas (a chunk's
 * transforms, and two chunk buffers for a transposed round): where 16 chunks'
 * areas do not fit beside the array, more and smaller chunks are tried (a 64
 * GiB line on an 80 GB card).
 */
int hfft__trip_size(hfft__gpu *g, int64_t budget) {
    int z = dim0_round(g);
    if (g->nrounds < 2 || g->stage || z < 0)
        return 1; /* dimension 0 is not transformed: one round streams best */
    for (int h = 0; h < g->nrounds; h++)
        if (g->rd[h].units != hfft__round_units(&g->rd[h].r))
            return 1; /* a CPU share: the streaming schedule */
    const hfft__round *r0 = &g->rd[z].r;
    size_t bytes = (size_t)(r0->L * r0->ni) * g->es;
    if ((int64_t)bytes >= budget)
        return 1;
    int st = 1;
    for (int chunks = TRIP_CHUNKS; st == 1 && chunks <= TRIP_CHUNKS_MAX; chunks *= 2) {
        st = trip_try(g, budget, z, chunks);
        if (chunks >= r0->L)
            break; /* a chunk per index already */
    }
    return st;
}

/* The one trip in `chunks` chunks: 0, 1 where its areas do not fit, or a failure. */
static int trip_try(hfft__gpu *g, int64_t budget, int z, int chunks) {
    const hfft__round *r0 = &g->rd[z].r;
    size_t bytes = (size_t)(r0->L * r0->ni) * g->es;
    hfft__trip *t = calloc(1, sizeof *t);
    if (!t)
        return hfft__fail(HFFT_ERR_HOST_MEMORY, "GPU engine: out of memory");
    g->trip = t;
    t->bytes = bytes;
    t->z = z;
    int tout = 0;
    for (int h = 0; h < g->nrounds; h++) {
        const hfft__round *r = &g->rd[h].r;
        /* after the slow dimension: a c2r real round, a transposed round, and the round
           that follows the slow dimension when that is a four-step's first round */
        if (h != z && (r->kind == HFFT__C2R || r->tout || (h == z + 1 && g->rd[z].r.twn)))
            t->after[h] = 1, t->nafter++;
        tout |= r->tout;
    }
    t->d0 = r0->L;
    t->row = r0->ni;
    t->crow = (t->d0 + chunks - 1) / chunks;
    t->nchunk = (int)((t->d0 + t->crow - 1) / t->crow);
    t->nblock = hfft__out_blocks(t->row, g->es, t->bstart);
    for (int h = 0; h < g->nrounds; h++) {
        const hfft__round *r = &g->rd[h].r;
        /* a 1D line: its one group of tper = d0 lines spans every chunk */
        if (t->after[h] && t->nafter == 1 && r->tout && r->no == t->d0 && r->tper == t->d0)
            t->wk = t->crow * t->row / t->d0;
    }
    if (t->wk)
        t->nk = (t->row + t->wk - 1) / t->wk;
    t->colin = t->nafter == g->nrounds - 1 && t->nblock > 1;
    size_t rowb = (size_t)t->row * g->es, obuf = 0;
    if (!t->nafter && !t->colin && !r0->twn && chunks == TRIP_CHUNKS)
        fs_size(t, rowb);
    if (t->fs) { /* the inner rounds on groups' runs of fm rows */
        t->crow = t->fm;
        t->nchunk = (int)(t->d0 / t->fm);
        obuf = t->fM > 1 ? (size_t)(t->fM * t->fb) * rowb : 0;
    }
    size_t work = 0;
    int st = plan_inner(g, t, &work);
    t->transpose = !t->fs && t->d0 >= TRANSPOSE_MIN_L;
    t->wc = t->row < WCOLS ? t->row : WCOLS;
    if (!st && t->fs) {
        st = hfft__sched_plan(g, &t->s1, HFFT__C2C, 1, &t->fa, t->fb * t->row, 1, t->fm * t->row, &work);
        if (!st)
            st = hfft__sched_plan(g, &t->s2, HFFT__C2C, 1, &t->fb, t->row, 1, t->row, &work);
    } else if (!st && t->transpose) {
        st = hfft__sched_plan(g, &t->col[0], HFFT__C2C, 1, &t->d0, 1, t->d0, t->wc, &work);
    } else {
        /* a plan per block width: the first, the rest, the last (at most three) */
        for (int j = 0, k = 0; j < t->nblock && !st; j++) {
            int64_t w = t->bstart[j + 1] - t->bstart[j];
            int seen = 0;
            for (int i = 0; i < k; i++)
                seen |= t->colw[i] == w;
            if (seen)
                continue;
            if (k == 3) {
                st = hfft__fail(HFFT_ERR_INTERNAL, "one trip: more than three block widths");
                break;
            }
            t->colw[k] = w;
            st = hfft__sched_plan(g, &t->col[k++], HFFT__C2C, 1, &t->d0, t->row, 1, w, &work);
        }
    }
    size_t tb = t->transpose ? (size_t)(t->wc * t->d0) * g->es : 0;
    size_t chunkb = tout ? (size_t)t->crow * (size_t)t->row * g->es : 0;
    if (!st && (int64_t)(bytes + tb + work + 2 * chunkb + 2 * obuf) > budget)
        st = 1; /* the array fits, its work areas not */
    if (!st)
        st = g->ops->alloc(g->d, &t->arr, bytes);
    for (int k = 0; k < 2 && !st && chunkb; k++)
        st = g->ops->alloc(g->d, &t->tbuf[k], chunkb);
    for (int k = 0; k < 2 && !st && obuf; k++)
        st = g->ops->alloc(g->d, &t->obuf[k], obuf);
    if (!st && tb) {
        st = g->ops->alloc(g->d, &g->tb, tb);
        g->tb_bytes = st ? 0 : tb;
    }
    if (!st && work) {
        st = g->ops->alloc(g->d, &g->work[0], work);
        g->work_bytes = work;
        g->nwork = 1;
    }
    t->nev = t->nblock > t->nchunk ? t->nblock : t->nchunk;
    t->nev = t->nk > t->nev ? (int)t->nk : t->nev;
    if (t->fs) /* groups in, blocks out */
        t->nev = (int)(t->fb / t->fm > t->fa / t->fM ? t->fb / t->fm : t->fa / t->fM);
    if (!st)
        st = make_events(g, &t->in_ev, t->nev);
    if (!st)
        st = make_events(g, &t->comp_ev, t->nev);
    if (!st)
        st = make_events(g, &t->out_ev, t->nev);
    if (!st)
        st = g->ops->event_create(g->d, &t->phase_ev);
    if (st) {
        /* Too little room, or the device refused: the streaming schedule instead. */
        if (g->tb)
            g->ops->free(g->d, g->tb);
        if (g->work[0])
            g->ops->free(g->d, g->work[0]);
        g->tb = g->work[0] = NULL;
        g->tb_bytes = g->work_bytes = 0;
        g->nwork = 0;
        hfft__trip_destroy(g);
        if (st == 1 || st == HFFT_ERR_DEVICE_MEMORY) {
            hfft__clear_error();
            return 1;
        }
        return st;
    }
    return 0;
}

/* Round h's transforms on dimension-0 indices [a, a + n) of the array. */
static int inner_chunk(hfft__gpu *g, hfft__trip *t, int h, int64_t a, int64_t n) {
    const hfft__round *r = &g->rd[h].r;
    hfft__stream c = g->st[NSTREAM];
    int64_t per = r->no / t->d0;
    char *base = (char *)t->arr + (size_t)(a * per * r->dout) * g->es;
    if (!hfft__round_strided(r)) {
        TRY(g->ops->fft_exec(g->d, t->inner[h][n == t->crow ? 0 : 1], c, base, g->work[0]));
        if (r->twn) /* four-step, transposed input: by line (in its group) and element */
            TRY(g->ops->twiddle(g->d, g->prec, c, base, n * per, r->L, r->dout, r->twn, a * per,
                                r->tper, 0, g->sign));
        return 0;
    }
    for (int64_t o = 0; o < n * per; o++) {
        char *line = base + (size_t)(o * r->dout) * g->es;
        TRY(g->ops->fft_exec(g->d, t->inner[h][0], c, line, g->work[0]));
        if (r->twn) /* four-step: by row and column */
            TRY(g->ops->twiddle(g->d, g->prec, c, line, r->L, r->ni, r->s, r->twn, 0, r->L, 0,
                                g->sign));
    }
    return 0;
}

/* Chunk k's dimension-0 indices: [*a, *a + *n). */
static void chunk(const hfft__trip *t, int k, int64_t *a, int64_t *n) {
    *a = (int64_t)k * t->crow;
    *n = t->d0 - *a < t->crow ? t->d0 - *a : t->crow;
}

/* Dimension-0 indices [a + r gap, a + r gap + n) for r < reps (one run where reps is 1):
   the real round's rows (nreal reals, rpitch apart on the host), or the complex side's
   bytes where no real round touches the host here.  Few large copies: each costs about
   2 us of the link's time (H100: 4096 copies of 2 MiB ran the copy in at 45.4 GB/s). */
static int copy_chunk(hfft__gpu *g, hfft__trip *t, int out, const hfft__round *real,
                      char *host, int64_t a, int64_t n, int64_t reps, int64_t gap) {
    size_t rowb = (size_t)t->row * g->es;
    char *dev = (char *)t->arr + (size_t)a * rowb;
    hfft__stream s = g->st[out ? 1 : 0];
    if (!real) { /* the runs as the rows of one copy */
        size_t run = (size_t)n * rowb, pitch = reps > 1 ? (size_t)gap * rowb : run;
        char *h = host + (size_t)a * rowb;
        if (out)
            return hfft__sched_d2h(g, s, h, pitch, dev, pitch, run, (size_t)reps);
        return hfft__sched_h2d(g, s, dev, pitch, h, pitch, run, (size_t)reps);
    }
    /* rows of the last dimension: complex ones of n/2 + 1 on the device */
    int64_t per = t->row / (real->nreal / 2 + 1), rows = n * per;
    size_t crow = (size_t)(real->nreal / 2 + 1) * g->es, rs = g->es / 2;
    size_t rpitch = (size_t)real->rpitch * rs, width = (size_t)real->nreal * rs;
    char *h = host + (size_t)(a * per) * rpitch;
    /* a copy per run, or where runs outnumber their rows, a copy per row of the runs */
    int byrow = reps > 1 && rows < reps;
    int64_t ncopy = byrow ? rows : reps, height = byrow ? reps : rows;
    size_t hstep = byrow ? rpitch : (size_t)(gap * per) * rpitch;
    size_t dstep = byrow ? crow : (size_t)(gap * per) * crow;
    size_t hp = byrow ? (size_t)(gap * per) * rpitch : rpitch;
    size_t dp = byrow ? (size_t)(gap * per) * crow : crow;
    for (int64_t k = 0; k < ncopy; k++) {
        char *hk = h + (size_t)k * hstep, *dk = dev + (size_t)k * dstep;
        if (out)
            TRY(hfft__sched_d2h(g, s, hk, hp, dk, dp, width, (size_t)height));
        else
            TRY(hfft__sched_h2d(g, s, dk, dp, hk, hp, width, (size_t)height));
    }
    return 0;
}

/* The slow dimension's columns [c0, c0 + w), on the compute stream. */
static int slow_block(hfft__gpu *g, hfft__trip *t, int64_t c0, int64_t w) {
    char *col = (char *)t->arr + (size_t)c0 * g->es;
    const hfft__round *r = &g->rd[t->z].r;
    if (t->transpose) {
        TRY(hfft__sched_columns(g, t->col[0], col, t->row, t->d0, w, t->wc));
    } else {
        int k = 0;
        while (k < 2 && t->colw[k] != w)
            k++;
        TRY(g->ops->fft_exec(g->d, t->col[k], g->st[NSTREAM], col, g->work[0]));
    }
    if (r->twn) /* a four-step split whose first round is the slow dimension */
        TRY(g->ops->twiddle(g->d, g->prec, g->st[NSTREAM], col, t->d0, w, t->row, r->twn, 0,
                            t->d0, c0, g->sign));
    return 0;
}

/*
 * Chunk [a, a + n) of a transposed round (lines of length L, in groups of tper)
 * out to the host in natural order, from the device array through tbuf: where
 * the chunk holds whole groups, each group transposed and the chunk copied out
 * whole; where one group spans chunks (a 1D line), its rows transposed and
 * copied out as columns of the group.
 */
static int copy_transposed(hfft__gpu *g, hfft__trip *t, const hfft__round *r, char *dst,
                           int64_t a, int64_t n, void *tbuf) {
    const hfft__dev_ops *o = g->ops;
    hfft__stream c = g->st[NSTREAM];
    size_t es = g->es;
    int64_t per = r->no / t->d0, lines = n * per, l0 = a * per;
    char *src = (char *)t->arr + (size_t)(l0 * r->dout) * es;
    if (r->tper <= per) {
        for (int64_t grp = 0; grp < lines / r->tper; grp++) {
            size_t off = (size_t)(grp * r->tper * r->L) * es;
            TRY(o->transpose(g->d, g->prec, c, (char *)tbuf + off, r->tper, src + off, r->L,
                             r->tper, r->L));
        }
        return 1; /* the caller copies the chunk out contiguously from tbuf */
    }
    TRY(o->transpose(g->d, g->prec, c, tbuf, lines, src, r->L, lines, r->L));
    (void)dst;
    return 2;
}

/*
 * A 1D line's transposed round (lines of L = row elements, one group of d0
 * lines) whole, then its output rows (element k of every line, for k in a
 * block of wk) transposed into tbuf in turn and copied out contiguously
 * behind the next block.
 */
static int line_out(hfft__gpu *g, hfft__trip *t, int h, char *dst) {
    const hfft__dev_ops *o = g->ops;
    hfft__dev *d = g->d;
    hfft__stream out = g->st[1], c = g->st[NSTREAM];
    size_t es = g->es;
    for (int k = 0; k < t->nchunk; k++) {
        int64_t a, n;
        chunk(t, k, &a, &n);
        TRY(inner_chunk(g, t, h, a, n));
    }
    for (int64_t j = 0; j < t->nk; j++) {
        int64_t b0 = j * t->wk, w = t->row - b0 < t->wk ? t->row - b0 : t->wk;
        void *tb = t->tbuf[j % 2];
        if (j >= 2) /* tbuf j % 2 is free once block j - 2 went out */
            TRY(o->wait(d, c, t->out_ev[j - 2]));
        TRY(o->transpose(d, g->prec, c, tb, t->d0, (char *)t->arr + (size_t)b0 * es, t->row,
                         t->d0, w));
        TRY(o->record(d, t->comp_ev[j], c));
        TRY(o->wait(d, out, t->comp_ev[j]));
        size_t bytes = (size_t)(w * t->d0) * es;
        TRY(hfft__sched_d2h(g, out, dst + (size_t)(b0 * t->d0) * es, bytes, tb, bytes, bytes, 1));
        TRY(o->record(d, t->out_ev[j], out));
    }
    return 0;
}

/* fs_size's copy in: group G's runs of fm rows, each transformed as it lands, then
   the group's fa-point lines. */
static int fs_in(hfft__gpu *g, hfft__trip *t, const hfft__round *real_in, const char *src) {
    const hfft__dev_ops *o = g->ops;
    hfft__stream in = g->st[0], c = g->st[NSTREAM];
    size_t rowb = (size_t)t->row * g->es;
    for (int64_t G = 0; G < t->fb / t->fm; G++) {
        /* the group's fa runs of fm indices, fb apart */
        TRY(copy_chunk(g, t, 0, real_in, (char *)src, G * t->fm, t->fm, t->fa, t->fb));
        TRY(o->record(g->d, t->in_ev[G], in));
        TRY(o->wait(g->d, c, t->in_ev[G]));
        for (int64_t j1 = 0; j1 < t->fa; j1++)
            for (int h = 0; h < g->nrounds; h++)
                if (h != t->z)
                    TRY(inner_chunk(g, t, h, G * t->fm + j1 * t->fb, t->fm));
        TRY(o->fft_exec(g->d, t->s1, c, (char *)t->arr + (size_t)(G * t->fm) * rowb,
                        g->work[0]));
    }
    return 0;
}

/* fs_size's copy out: per block of fM values of k1, rows fb k1 + j2 times their
   twiddles and their fb-point lines, gathered into obuf, out in runs of fM rows. */
static int fs_out(hfft__gpu *g, hfft__trip *t, char *dst) {
    const hfft__dev_ops *o = g->ops;
    hfft__dev *d = g->d;
    hfft__stream out = g->st[1], c = g->st[NSTREAM];
    size_t rowb = (size_t)t->row * g->es;
    for (int64_t K = 0; K < t->fa / t->fM; K++) {
        int64_t k0 = K * t->fM;
        char *ob = t->fM > 1 ? t->obuf[K % 2] : NULL;
        if (ob && K >= 2) /* obuf K % 2 is free once block K - 2 went out */
            TRY(o->wait(d, c, t->out_ev[K - 2]));
        for (int64_t k1 = k0; k1 < k0 + t->fM; k1++) {
            char *blk = (char *)t->arr + (size_t)(k1 * t->fb) * rowb;
            TRY(o->twiddle(d, g->prec, c, blk, t->fb, t->row, t->row, t->d0, 0, 0, k1, g->sign));
            TRY(o->fft_exec(d, t->s2, c, blk, g->work[0]));
            if (ob)
                TRY(o->d2d(d, c, ob + (size_t)(k1 - k0) * rowb, (size_t)t->fM * rowb, blk, rowb,
                           rowb, (size_t)t->fb));
        }
        TRY(o->record(d, t->comp_ev[K], c));
        TRY(o->wait(d, out, t->comp_ev[K]));
        const char *from = ob ? ob : (char *)t->arr + (size_t)(k0 * t->fb) * rowb;
        TRY(hfft__sched_d2h(g, out, dst + (size_t)k0 * rowb, (size_t)t->fa * rowb, from,
                            (size_t)t->fM * rowb, (size_t)t->fM * rowb, (size_t)t->fb));
        TRY(o->record(d, t->out_ev[K], out));
    }
    return 0;
}

int hfft__trip_run(hfft__gpu *g, const char *src, char *dst) {
    hfft__trip *t = g->trip;
    const hfft__dev_ops *o = g->ops;
    hfft__dev *d = g->d;
    hfft__stream in = g->st[0], out = g->st[1], c = g->st[NSTREAM];
    size_t es = g->es, rowb = (size_t)t->row * es;
    const hfft__round *first = &g->rd[0].r, *last = &g->rd[g->nrounds - 1].r;
    const hfft__round *real_in = first->kind == HFFT__R2C ? first : NULL;
    const hfft__round *real_out = last->kind == HFFT__C2R ? last : NULL;

    double t0 = hfft__now();
    /* Nothing to do on chunks: copy in by blocks of columns, each block's slow
       dimension as soon as it landed. */
    for (int j = 0; j < t->nblock && t->colin; j++) {
        int64_t c0 = t->bstart[j], w = t->bstart[j + 1] - c0;
        TRY(hfft__sched_h2d(g, in, (char *)t->arr + (size_t)c0 * es, rowb, src + (size_t)c0 * es,
                            rowb, (size_t)w * es, (size_t)t->d0));
        TRY(o->record(d, t->in_ev[j], in));
        TRY(o->wait(d, c, t->in_ev[j]));
        TRY(slow_block(g, t, c0, w));
    }
    if (t->fs)
        TRY(fs_in(g, t, real_in, src));
    /* Copy in by chunks; each chunk's fast dimensions as soon as it landed. */
    for (int k = 0; k < t->nchunk && !t->colin && !t->fs; k++) {
        int64_t a, n;
        chunk(t, k, &a, &n);
        TRY(copy_chunk(g, t, 0, real_in, (char *)src, a, n, 1, 0));
        TRY(o->record(d, t->in_ev[k], in));
        TRY(o->wait(d, c, t->in_ev[k]));
        for (int h = 0; h < g->nrounds; h++)
            if (h != t->z && !t->after[h])
                TRY(inner_chunk(g, t, h, a, n));
    }
    TRY(o->record(d, t->phase_ev, c));
    if (t->fs) {
        TRY(fs_out(g, t, dst));
    } else if (!t->nafter) {
        /* The slow dimension by blocks of columns, each copied out behind the next. */
        for (int j = 0; j < t->nblock; j++) {
            int64_t c0 = t->bstart[j], w = t->bstart[j + 1] - c0;
            TRY(slow_block(g, t, c0, w));
            TRY(o->record(d, t->comp_ev[j], c));
            TRY(o->wait(d, out, t->comp_ev[j]));
            TRY(hfft__sched_d2h(g, out, dst + (size_t)c0 * es, rowb, (char *)t->arr + c0 * es,
                                rowb, (size_t)w * es, (size_t)t->d0));
            TRY(o->record(d, t->out_ev[j], out));
        }
    } else {
        /* Rounds that follow the slow dimension: it runs whole, then they run chunk by
           chunk, each chunk copied out behind the next (real rows, a transposed round's
           natural order, or the complex rows). */
        for (int j = 0; j < t->nblock && !t->colin; j++)
            TRY(slow_block(g, t, t->bstart[j], t->bstart[j + 1] - t->bstart[j]));
        for (int h = 0; h < g->nrounds && t->wk; h++)
            if (t->after[h])
                TRY(line_out(g, t, h, dst));
        for (int k = 0; k < t->nchunk && !t->wk; k++) {
            int64_t a, n;
            chunk(t, k, &a, &n);
            const hfft__round *tr = NULL;
            int how = 0;
            void *tb = t->tbuf[k % 2];
            if (k >= 2) /* tbuf k % 2 is free once chunk k - 2 went out */
                TRY(o->wait(d, c, t->out_ev[k - 2]));
            for (int h = 0; h < g->nrounds; h++) {
                if (!t->after[h])
                    continue;
                TRY(inner_chunk(g, t, h, a, n));
                if (g->rd[h].r.tout) {
                    tr = &g->rd[h].r;
                    how = copy_transposed(g, t, tr, dst, a, n, tb);
                    if (how < 0)
                        return how;
                }
            }
            TRY(o->record(d, t->comp_ev[k], c));
            TRY(o->wait(d, out, t->comp_ev[k]));
            if (how == 1) {
                size_t bytes = (size_t)n * rowb;
                TRY(hfft__sched_d2h(g, out, dst + (size_t)a * rowb, bytes, tb, bytes, bytes, 1));
            } else if (how == 2) {
                /* one group over every chunk: L rows of the chunk's lines, tper apart */
                int64_t lines = n * (tr->no / t->d0), l0 = a * (tr->no / t->d0);
                TRY(hfft__sched_d2h(g, out, dst + (size_t)l0 * es, (size_t)tr->tper * es, tb,
                                    (size_t)lines * es, (size_t)lines * es, (size_t)tr->L));
            } else {
                TRY(copy_chunk(g, t, 1, real_out, dst, a, n, 1, 0));
            }
            TRY(o->record(d, t->out_ev[k], out));
        }
    }
    TRY(o->event_sync(d, t->phase_ev));
    double t1 = hfft__now();
    TRY(hfft__sched_sync(g));
    t->t[0] = t1 - t0;
    t->t[1] = hfft__now() - t1;
    return 0;
}

void hfft__trip_times(const hfft__gpu *g, double *secs) {
    const hfft__trip *t = g->trip;
    if (!t)
        return;
    secs[t->z == 0 ? 1 : 0] = t->t[0];
    secs[t->z] = t->t[1];
}

size_t hfft__trip_bytes(const hfft__gpu *g) { return g->trip ? g->trip->bytes : 0; }
