/*
 * plain.c: the plain schedule.  Whole lines per pass through K device
 * buffers (two by default, so that each is as large as the budget allows:
 * strided passes then copy wide rows, which the link moves faster); one
 * stream copies in, one computes, one copies out, and the copy in of a pass
 * follows the copy out of the buffer's previous pass chunk by chunk, so both
 * directions stay busy.
 */
#include <string.h>

#include "gpu/sched.h"

/*
 * cuFFT's strided transforms of long lines (a column pass of a 2D array) run
 * at a fraction of its contiguous speed, so such passes are computed
 * transposed: WCOLS columns at a time, one kernel turns them into contiguous
 * lines in a small scratch, cuFFT transforms them there, another kernel turns
 * them back.  A scratch of a few columns rather than a whole pass leaves the
 * budget to the passes, whose rows the link then moves faster (pitched rows
 * slow down under the compute's cache traffic, the narrower the more).
 * Compute runs on one stream, so one scratch and one work area serve every
 * buffer.
 */
#define TRANSPOSE_MIN_L 4096
#define WCOLS 128

/*
 * Contiguous passes are copied and computed chunk by chunk (cb lines, blk a
 * multiple of it): a pass's first lines go out while its last still come in,
 * so a round waits at its end for a chunk, not a pass.  (A strided pass
 * cannot: each column's FFT needs all of the column.)
 */
int hfft__plain_size(hfft__gpu *g, rstate *r, int64_t L, size_t *work, int *nwork) {
    r->cb = 0;
    if (!hfft__round_strided(&r->r)) {
        /* a pass written transposed goes out whole: one chunk */
        r->cb = r->r.tout ? r->blk : (r->blk + NCHUNK - 1) / NCHUNK;
        r->blk = r->blk / r->cb * r->cb;
        *nwork = 1;
        return hfft__sched_make_plans(g, r, 1, L, r->cb, work);
    }
    r->transpose = L >= TRANSPOSE_MIN_L && r->blk > 1;
    /* a scratch of at most a quarter pass, so that small budgets go to the passes */
    r->wc = r->blk / 4 < WCOLS ? (r->blk / 4 > 0 ? r->blk / 4 : 1) : WCOLS;
    if (!r->transpose)
        r->wc = 0;
    *nwork = 1;
    return hfft__sched_make_plans(g, r, 1, L, r->transpose ? r->wc : r->blk, work);
}

/*
 * Pass boundaries over `units` in blocks of at most `blk`, the last passes
 * ramping down (blk/2, /4, ...) so that the copy out left alone at the end is
 * short.  (A round still waits, beyond its copies, for one copy of its largest
 * unit, wherever that falls: a strided pass, or a chunk of a contiguous one;
 * see plain_pass.)  `smallest` bounds the ramp (strided rows narrower than
 * 8 KiB copy slowly).  Short passes still run the full-size FFT plan on the
 * tile; the columns or lines beyond them are never copied back.
 */
#define RAMP 4
static int64_t next_pass(int64_t at, int64_t units, int64_t blk, int64_t smallest) {
    int64_t tail = 0;
    int k = 0;
    while (k < RAMP && (blk >> (k + 1)) >= smallest && (blk >> (k + 1)) > 0 &&
           units >= blk + tail + (blk >> (k + 1))) {
        k++;
        tail += blk >> k;
    }
    int64_t middle = units - tail;
    if (at < middle) {
        int64_t n = (middle + blk - 1) / blk;
        int64_t size = (middle + n - 1) / n;
        return size < middle - at ? size : middle - at;
    }
    for (int i = 1; i <= k; i++) {
        if (at == middle)
            return blk >> i;
        middle += blk >> i;
    }
    return units - at;
}

/* One plain pass: rows from src (pitch spitch, win bytes of each) into a tile of
   pitch tpitch, computed, and back to dst (pitch dpitch, wout bytes of each).
   Contiguous passes go chunk by chunk, cbrows rows at a time (0: strided). */
typedef struct tile_io {
    const char *src;
    size_t spitch;
    char *dst;
    size_t dpitch;
    size_t win, wout, tpitch;
    int64_t rows, cbrows;
    int64_t col0;  /* strided: the pass's first column (four-step twiddles) */
    int64_t line0; /* contiguous: the pass's first line (four-step twiddles) */
    int64_t rline;    /* residency: the pass's first line, whose columns g->rpart places on
                         the host or on a card (-1: every column from the host) */
    int64_t planrows; /* contiguous: rows the compute's plan transforms a chunk (a pass
                         written transposed may hold fewer: cbrows) */
} tile_io;

/* The chunk of buffer b's last copy out that ends at or past byte `end`. */
static int out_chunk(const hfft__gpu *g, int b, size_t end) {
    for (int j = 0; j < g->out_n[b]; j++)
        if (g->out_end[b][j] >= end)
            return j;
    return g->out_n[b] - 1;
}

/* The FFTs of a strided pass's w columns in tile (pitch r->blk), on the compute stream. */
static int compute_strided(hfft__gpu *g, rstate *r, char *tile, int64_t L, int64_t w) {
    if (!r->transpose)
        return g->ops->fft_exec(g->d, r->plan[0], g->stream[NSTREAM], tile, g->work[0]);
    return hfft__sched_columns(g, r->plan[0], tile, r->blk, L, w, r->wc);
}

/*
 * Rounds meet without a drain (hfft__gpu_run's drain = 0): the last pass of a
 * round keeps, per chunk of its copy out, the host bytes written and an event;
 * a copy in of the next round waits for the latest of those chunks that wrote
 * bytes it reads (every copy out goes through one stream, so that chunk's end
 * implies all earlier copies out).  Earlier passes of the round all covered
 * rows the last one covers too, or were strided over every row.
 */
static int after_previous_round(hfft__gpu *g, const char *lo, const char *hi) {
    int latest = -1;
    for (int j = 0; j < g->nprev; j++)
        if (lo < g->prev_hi[j] && g->prev_lo[j] < hi)
            latest = j;
    if (g->nprev && latest < 0)
        latest = g->nprev - 1; /* no overlap found: wait for the whole round, to be safe */
    return latest < 0 ? 0 : g->ops->wait(g->d, g->stream[0], g->prev_out[latest]);
}

/* The last pass of a round records its copy-out chunks for the next round. */
static int boundary(hfft__gpu *g, int j, const char *lo, const char *hi) {
    if (!g->last_pass)
        return 0;
    if (j == 0)
        g->pending_prev = 0;
    TRY(g->ops->record(g->d, g->prev_out[j], g->stream[1]));
    g->prev_lo[j] = lo;
    g->prev_hi[j] = hi;
    g->pending_prev = j + 1;
    return 0;
}

/*
 * Buffer b = (passes issued) mod K.  Chunk j of the copy in follows the chunk
 * of the buffer's previous copy out that read the same bytes.  A strided pass
 * is computed whole, after all of its copy in and all of that previous copy
 * out (the FFT writes the whole tile), and copied out after.  A contiguous
 * pass goes chunk by chunk: copy in, compute (after the previous copy out of
 * the bytes the chunk's FFT writes), copy out.  The compute's waits on the
 * previous copy out are implied by the copy in's while a round's passes chunk
 * alike; they stay so that each kernel waits for what it overwrites.
 */
static int plain_pass(hfft__gpu *g, rstate *r, const tile_io *t, int64_t L, int64_t w,
                      int64_t *pass) {
    const hfft__dev_ops *o = g->ops;
    hfft__dev *d = g->d;
    int b = (int)(g->piped % g->nslot), reuse = g->piped >= g->nslot;
    char *tile = g->buf[b];
    hfft__stream in = g->stream[0], out = g->stream[1], c = g->stream[NSTREAM];
    int64_t cb = t->cbrows, at[NCHUNK + 1];
    int nc = cb ? (int)((t->rows + cb - 1) / cb) : t->rows < NCHUNK ? (int)t->rows : NCHUNK;
    for (int j = 0; j <= nc; j++)
        at[j] = cb ? (j * cb < t->rows ? j * cb : t->rows) : t->rows * j / nc;
    for (int j = 0; j < nc; j++) {
        size_t end = (size_t)(at[j + 1] - 1) * t->tpitch + t->win;
        if (reuse)
            TRY(o->wait(d, in, g->out_ev[b][out_chunk(g, b, end)]));
        TRY(after_previous_round(g, t->src + (size_t)at[j] * t->spitch,
                                 t->src + (size_t)(at[j + 1] - 1) * t->spitch + t->win));
        char *part = tile + (size_t)at[j] * t->tpitch;
        const char *from = t->src + (size_t)at[j] * t->spitch;
        size_t rows = (size_t)(at[j + 1] - at[j]);
        if (t->rline < 0)
            TRY(hfft__sched_h2d(g, in, part, t->tpitch, from, t->spitch, t->win, rows));
        for (int k = 0; t->rline >= 0 && k < g->nrpart; k++) {
            /* card k's columns: from the host, then those it keeps, once round 1 has
               transformed them (on this card its event; another card's round 1 ended
               before this round began) */
            const hfft__res_part *p = &g->rpart[k];
            size_t es = g->es, rp = (size_t)(p->cb - p->c0) * es;
            if (p->c0 > p->ca)
                TRY(hfft__sched_h2d(g, in, part + (size_t)p->ca * es, t->tpitch,
                                    from + (size_t)p->ca * es, t->spitch,
                                    (size_t)(p->c0 - p->ca) * es, rows));
            if (p->cb == p->c0)
                continue;
            const char *kept = p->res + (size_t)(t->rline + at[j]) * rp;
            if (p->d == d)
                TRY(o->wait(d, in, g->res_ev));
            TRY(hfft__card_copy(o, d, in, p->d, part + (size_t)p->c0 * es, t->tpitch, kept, rp, rp,
                                rows));
        }
        if (cb || j == nc - 1)
            TRY(o->record(d, g->in_ev[b][j], in));
    }
    if (cb) {
        for (int j = 0; j < nc; j++) {
            char *lines = tile + (size_t)at[j] * t->tpitch;
            TRY(o->wait(d, c, g->in_ev[b][j]));
            /* the plan writes planrows rows, however few the chunk holds */
            size_t plan_end = (size_t)(at[j] + t->planrows) * t->tpitch;
            if (reuse)
                TRY(o->wait(d, c, g->out_ev[b][out_chunk(g, b, plan_end)]));
            TRY(o->fft_exec(d, r->plan[0], c, lines, g->work[0]));
            if (r->r.twn) /* four-step, transposed input: twiddles by line and element */
                TRY(o->twiddle(d, g->prec, c, lines, at[j + 1] - at[j], r->r.L, r->r.dout,
                               r->r.twn, t->line0 + at[j], r->r.tper, 0, g->sign));
            if (r->r.tout) /* the lines, transposed, for a copy out in natural order */
                TRY(o->transpose(d, g->prec, c, g->tbuf[b], t->rows, tile, r->r.dout, t->rows,
                                 r->r.L));
            TRY(o->record(d, g->comp_ev[b][j], c));
        }
    } else {
        TRY(o->wait(d, c, g->in_ev[b][nc - 1]));
        if (reuse)
            TRY(o->wait(d, c, g->out_ev[b][g->out_n[b] - 1]));
        TRY(compute_strided(g, r, tile, L, w));
        if (r->r.twn) /* four-step: twiddles by row and column */
            TRY(o->twiddle(d, g->prec, c, tile, L, w, (int64_t)(t->tpitch / g->es), r->r.twn, 0,
                           L, t->col0, g->sign));
        TRY(o->record(d, g->comp_ev[b][0], c));
    }
    if (r->r.tout) {
        /* n lines of length L, transposed: L rows of n elements in their group's order */
        TRY(o->wait(d, out, g->comp_ev[b][0]));
        TRY(hfft__sched_d2h(g, out, t->dst, t->dpitch, g->tbuf[b], (size_t)t->rows * g->es,
                            (size_t)t->rows * g->es, (size_t)r->r.L));
        TRY(o->record(d, g->out_ev[b][0], out));
        TRY(boundary(g, 0, t->dst, t->dst + (size_t)(r->r.L - 1) * t->dpitch +
                                       (size_t)t->rows * g->es));
        g->out_end[b][0] = (size_t)t->rows * t->tpitch;
        nc = 1;
    }
    for (int j = 0; j < nc && !r->r.tout; j++) {
        if (cb || j == 0)
            TRY(o->wait(d, out, g->comp_ev[b][cb ? j : 0]));
        TRY(hfft__sched_d2h(g, out, t->dst + (size_t)at[j] * t->dpitch, t->dpitch,
                     tile + (size_t)at[j] * t->tpitch, t->tpitch, t->wout,
                     (size_t)(at[j + 1] - at[j])));
        TRY(o->record(d, g->out_ev[b][j], out));
        g->out_end[b][j] = (size_t)(at[j + 1] - 1) * t->tpitch + t->wout;
        TRY(boundary(g, j, t->dst + (size_t)at[j] * t->dpitch,
                     t->dst + (size_t)(at[j + 1] - 1) * t->dpitch + t->wout));
    }
    g->out_n[b] = nc;
    g->last_in = g->in_ev[b][nc - 1];
    g->last_w = w;
    g->piped++;
    (*pass)++;
    return 0;
}

/* The smallest ramp pass: strided rows of at least 8 KiB. */
static int64_t ramp_floor(const hfft__gpu *g, const rstate *r) {
    return hfft__round_strided(&r->r) ? (int64_t)(8192 / g->es) : 1;
}

/* Strided: columns [c_first, c_first + cols) of lines of length L with row pitches ss
   and ds. */
int hfft__plain_strided(hfft__gpu *g, rstate *r, view v, int64_t L, int64_t c_first, int64_t cols,
                        int64_t *pass) {
    size_t es = g->es;
    int last_view = g->last_pass;
    for (int64_t c = 0, w; c < cols; c += w) {
        w = next_pass(c, cols, r->blk, ramp_floor(g, r));
        g->last_pass = last_view && c + w >= cols;
        int64_t c0 = c_first + c;
        tile_io t = {v.src + c0 * es,     (size_t)v.ss * es,     v.dst + c0 * es,
                     (size_t)v.ds * es,   (size_t)w * es,        (size_t)w * es,
                     (size_t)r->blk * es, L,                     0, c0, 0, -1, 0};
        TRY(plain_pass(g, r, &t, L, w, pass));
    }
    return 0;
}

/* Contiguous lines [first, first + lines).  A real round's tile holds rows of the complex
   side (n/2 + 1 elements, the real rows overlaying them, FFTW's padded layout),
   and copies the real side's rows of nreal reals at their own pitch. */
static int plain_contig(hfft__gpu *g, rstate *r, const char *src, char *dst, int64_t first,
                        int64_t lines, int64_t *pass) {
    const hfft__round *q = &r->r;
    size_t line = (size_t)q->dout * g->es, rs = g->es / 2;
    int64_t rows = q->kind == HFFT__C2C ? 1 : hfft__round_rows(q);
    size_t crow = line / (size_t)rows;                 /* complex bytes per row */
    size_t rrow = (size_t)q->rpitch * rs, rdata = (size_t)q->nreal * rs; /* real side */
    int real_in = q->kind == HFFT__R2C, real_out = q->kind == HFFT__C2R;
    int64_t end = first + lines;
    for (int64_t l0 = first, n; l0 < end; l0 += n) {
        n = next_pass(l0 - first, lines, r->blk, ramp_floor(g, r));
        g->last_pass = l0 + n >= end;
        size_t sp = real_in ? rrow : crow, dp = real_out ? rrow : crow;
        tile_io t = {src + (size_t)(l0 * rows) * sp, sp, dst + (size_t)(l0 * rows) * dp, dp,
                     real_in ? rdata : crow, real_out ? rdata : crow, crow, n * rows,
                     r->cb * rows, 0, l0, -1, r->cb * rows};
        if (g->nrpart && r == &g->rd[1])
            t.rline = l0;
        if (q->tout) {
            /* four-step, natural order: a pass within one group of tper lines, in one
               chunk, its element k of line l going to k tper + l of the group */
            int64_t grp = l0 / q->tper, gend = (grp + 1) * q->tper;
            n = l0 + n > gend ? gend - l0 : n;
            t.rows = t.cbrows = n;
            t.dst = dst + (size_t)(grp * q->tper * q->L + (l0 - grp * q->tper)) * g->es;
            t.dpitch = (size_t)q->tper * g->es;
        }
        if (q->tout)
            g->last_pass = l0 + n >= end;
        TRY(plain_pass(g, r, &t, q->L, n, pass));
    }
    return 0;
}

/* Units [first, first + n) of the round: its lines, or its columns at every outer index. */
static int plain_units(hfft__gpu *g, rstate *r, const char *src, char *dst, int64_t first, int64_t n,
                       int64_t *pass) {
    if (!hfft__round_strided(&r->r))
        return plain_contig(g, r, src, dst, first, n, pass);
    for (int64_t o = 0; o < r->r.no; o++) {
        size_t off = (size_t)(o * r->r.dout) * g->es;
        view v = {src + off, r->r.s, dst + off, r->r.s};
        g->last_pass = o == r->r.no - 1;
        TRY(hfft__plain_strided(g, r, v, r->r.L, first, n, pass));
    }
    return 0;
}

/*
 * Where the CPU shares the round: once the copy in of the GPU's last pass has
 * landed (a pass before its units end), the CPU's side is asked how many of its
 * last units, not yet started, the GPU should take back (hfft__cpu_take: where
 * the CPU runs late, for instance a core taken by other work); the GPU runs them
 * after its own, as passes of the sizes it has plans for.  Rounds written
 * transposed and partly resident ones do not ask.
 */
static int take_back(hfft__gpu *g, rstate *r, const char *src, char *dst, double t0, int64_t *pass) {
    if (!g->take || r->r.tout || g->res || r->units < 1 || !*pass)
        return 0;
    TRY(g->ops->event_sync(g->d, g->last_in));
    /* a unit: a line, or a column at every outer index; the last pass's are left */
    double unit_s = (hfft__now() - t0) / (double)r->units;
    double left_s = (double)g->last_w * unit_s / (double)(hfft__round_strided(&r->r) ? r->r.no : 1);
    int64_t first = 0, n = g->take(g->take_ctx, (int)(r - g->rd), unit_s, left_s, &first);
    return n > 0 ? plain_units(g, r, src, dst, first, n, pass) : 0;
}

int hfft__plain_round(hfft__gpu *g, rstate *r, const char *src, char *dst, int64_t *pass) {
    double t0 = hfft__now();
    g->pending_prev = 0;
    TRY(plain_units(g, r, src, dst, r->u0, r->units, pass));
    TRY(take_back(g, r, src, dst, t0, pass));
    /* the next round waits on this one's last chunks, not on the previous round's */
    g->nprev = g->pending_prev;
    g->last_pass = 0;
    return 0;
}

int64_t hfft__plain_passes(const hfft__gpu *g, const rstate *r) {
    int64_t per = r->blk > 0 ? r->blk : 1, n = 0;
    for (int64_t at = 0, k; at < r->units; at += k, n++)
        k = next_pass(at, r->units, per, ramp_floor(g, r));
    return n;
}

size_t hfft__plain_chunk_bytes(const hfft__gpu *g, const rstate *r) {
    if (r->cb)
        return (size_t)r->cb * (size_t)r->r.dout * g->es;
    int64_t nc = r->r.L < NCHUNK ? r->r.L : NCHUNK;
    return (size_t)((r->r.L + nc - 1) / nc) * (size_t)r->blk * g->es;
}

static int plain_run(hfft__gpu *g, rstate *r, int h, const char *src, char *dst,
                     int64_t *pass) {
    (void)h;
    return hfft__plain_round(g, r, src, dst, pass);
}

static int64_t plain_passes(const hfft__gpu *g, const rstate *r, int h) {
    (void)h;
    return hfft__plain_passes(g, r);
}

const pass_kind hfft__plain_kind = {"plain", HFFT_SCHED_PLAIN, 1, 1, 1, plain_run, plain_passes};
