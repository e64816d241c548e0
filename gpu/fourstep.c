/*
 * fourstep.c: the four-step streaming schedule, for GPU-only out-of-place
 * plans of two rounds (the slow dimension's columns and the rows: 2D, or 3D
 * with its planes; c2c or r2c) whose array does not fit the device.  The
 * plain schedule's column round copies pitched rows of a few tens of KiB,
 * which the link moves slower than whole rows while kernels run (the copy
 * engines fetch the host's page entries again for every row); here both
 * rounds copy runs of whole rows instead.  With d0 = fa fb and input row
 * q + fb p (q < fb, p < fa):
 *   round A, by groups of consecutive q: the rows q + fb p in (runs of the
 *     group's rows, fb rows apart), each row transformed, the fa-point lines
 *     along p, each result k1 out to row fa q + k1 of the output (contiguous);
 *   round B, by residues of consecutive k1, in place on the output: the rows
 *     fa q + k1 in (runs of the residues' rows, fa rows apart), times
 *     exp(sign 2 pi i q k1 / d0), the fb-point lines along q, each result k2
 *     back to row fa k2 + k1 = k, the row it read.  Wide rows (3D planes) go
 *     in pieces of a row: its columns are independent in this round.
 * (3D planes take the plain schedule's time: its column passes already copy
 * long runs there.)
 * Rows narrower than 64 KiB keep the plain schedule (ROW_MIN).
 * K buffers in turn; one stream copies in, one computes, one copies out.
 * Passes are small (PASS_MAX) and where they hold several units they grow
 * slowly from one unit and shrink back to one at the end (passes()), so that
 * what one direction waits for at a round's ends is short (round B's copies
 * in need every row round A wrote).  A hybrid plan on one card whose rows
 * have one dimension (2D, or a batch of them between) shares both rounds with
 * the CPU (cpu/four.c): the GPU takes the first groups of round A and the
 * first units of round B, the CPU the rest, in the same layout between the
 * rounds (hfft__four_layout).  Several cards streaming the whole plan cut both
 * rounds between them, card k of n taking groups [fb k / n, fb (k + 1) / n) of
 * round A and the same share of round B's units (cards.c makes every card's
 * plan four-step, or none).  In place, c2r (whose real rows come last), and 3D
 * planes or several cards with a CPU share keep the plain schedule.  Each byte
 * of the GPU's share crosses the link twice each way, as in the plain
 * schedule, except what the budget keeps on the device between the rounds
 * where the GPU runs both whole: each card's last groups of round A (rows
 * [fa q_res, fa qb) of the output, contiguous), which neither round A's copy
 * out nor round B's copy in moves (2 S - R each way); round B reads them from
 * the card that holds them, on its own card or card to card (NVLink).  The
 * input is only read.
 */
#include <stdlib.h>
#include <string.h>

#include "gpu/sched.h"

#define FOUR_SLOTS 3       /* buffers in turn */
#define FOUR_MIN_PASSES 4  /* a round's passes at least, where its units allow */
#define FOUR_PLANS 96      /* distinct pass sizes per round at most */
#define NARROW_RUN ((size_t)64 << 10) /* real rows narrower than this: copies by p */
#define PIECE_MIN ((size_t)256 << 10) /* round B's row pieces at least (host runs) */
/* Rows of at least 64 KiB (or a 256th of a pass, where that is less: small budgets).
   Round A copies each group's rows out from pitched rows on the device: narrower
   ones were not measured, and keep the plain schedule. */
#define ROW_MIN ((size_t)64 << 10)
#define UNITS_MAX 1024 /* units a pass at most: the ramps then need under 96 plans */
/* Bytes a pass at most.  Passes of a third of the budget, reached and left by
   slow ramps, kept one direction waiting at every pass of each ramp; passes this
   small need only short ramps, and keep both directions busy more of the time. */
#define PASS_MAX ((size_t)64 << 20)

struct hfft__four {
    int z;                  /* the round along dimension 0; the other one is the rows' */
    int64_t d0, row;        /* dimension 0's length; complex elements per index of it */
    int64_t fa, fb;
    int64_t per;            /* lines of the row round per dimension-0 index */
    size_t rowb;            /* bytes of an index's row (complex side) */
    int64_t nb, pw;         /* round B cuts each row into nb pieces of pw elements */
    const hfft__round *real; /* the row round where it reads reals, or NULL */
    int64_t lo[2], share[2]; /* this card's units: groups [lo[0], lo[0] + share[0]) of round
                               A, round B's [lo[1], lo[1] + share[1]); on one card lo is 0
                               and the rest is the CPU's */
    int cpu;                 /* the CPU has units of a round (one card) */
    int npass[2];           /* passes of round A (units: groups of fa rows), B (fb rows) */
    int extra[2];           /* passes over units taken back from the CPU (last execute) */
    int64_t *at[2];         /* pass k of round x covers units [at[x][k], at[x][k + 1]) */
    hfft__fftplan rows;     /* the row round on one group's fa indices */
    int nplan[2];           /* fa-point lines (A) and fb-point lines (B), per pass size */
    int64_t pm[2][FOUR_PLANS];
    hfft__fftplan lines[2][FOUR_PLANS];
    size_t work;            /* the plans' largest work area */
    int used[FOUR_SLOTS];   /* buffer k has a copy out in flight this round */
    int next;               /* the buffer of the next pass */
    hfft__event mid;        /* round A's last copy out */
    /* Residency: what the budget leaves beside the buffers keeps this card's last
       groups of round A, output rows [fa q_res, fa qb), on the device (res, in the
       host's layout), which round A never copies out and round B never copies in. */
    char *res;
    int64_t q_res, qb; /* the first group kept (qb: none); the end of the card's groups
                          (fb on one card: round B's rows, the CPU's too, end there) */
    /* Round B's rows by card: on the host, or kept on the card that ran them */
    hfft__four_part part[HFFT_MAX_CARDS];
    int nparts;
};

void hfft__four_destroy(hfft__gpu *g) {
    hfft__four *f = g->four;
    if (!f)
        return;
    if (f->rows)
        g->ops->fft_destroy(g->d, f->rows);
    for (int x = 0; x < 2; x++) {
        for (int k = 0; k < f->nplan[x]; k++)
            if (f->lines[x][k])
                g->ops->fft_destroy(g->d, f->lines[x][k]);
        free(f->at[x]);
    }
    if (f->mid)
        g->ops->event_destroy(g->d, f->mid);
    if (f->res)
        g->ops->free(g->d, f->res);
    free(f);
    g->four = NULL;
}

/* The round along dimension 0, where the plan is one this schedule runs; else -1. */
static int eligible(const hfft__gpu *g) {
    if (g->nrounds != 2 || g->inplace || g->xfer.stage || g->no_four)
        return -1;
    int z = -1;
    for (int h = 0; h < 2; h++)
        if (g->rd[h].r.no == 1 && hfft__round_strided(&g->rd[h].r))
            z = h;
    if (z < 0)
        return -1;
    const hfft__round *c = &g->rd[z].r, *r = &g->rd[1 - z].r;
    /* (not r2r lines: their kinds' steps read across a whole line) */
    if (hfft__round_strided(r) || c->kind != HFFT__C2C || c->twn || c->tout || r->twn ||
        r->tout || (r->kind != HFFT__C2C && r->kind != HFFT__R2C) || c->r2r || r->r2r)
        return -1;
    if (r->kind == HFFT__R2C && z != 1)
        return -1; /* the real rows are read first */
    if (c->src_mid || c->dst_mid || r->src_mid || r->dst_mid || g->rd[0].inplace ||
        !g->rd[1].inplace)
        return -1; /* the first round from the input to the output, the second on it */
    if (r->no % c->L || (r->no / c->L) * r->dout != c->ni)
        return -1; /* the rows are not the columns' neighbours */
    for (int h = 0; h < 2 && g->cards < 2; h++) {
        int64_t u = g->rd[h].units;
        if (g->rd[h].u0 || u < 1)
            return -1; /* a card's share after another's, or none: the plain schedule */
        if (u < hfft__round_units(&g->rd[h].r) && (!g->share_four || r->rank != 1))
            return -1; /* a CPU share beside several cards, or beside 3D planes */
    }
    return z;
}

/* The GPU's units of round x (A: fb groups, B: u residue pieces) in proportion to
   its share of the plan's round x: at least one, and where the CPU has a share of
   that round, at least one left to it. */
static int64_t gpu_units(const hfft__gpu *g, int x, int64_t u) {
    int64_t all = hfft__round_units(&g->rd[x].r);
    double f = (double)g->rd[x].units / (double)all;
    int64_t k = (int64_t)(f * (double)u + 0.5), most = g->rd[x].units < all ? u - 1 : u;
    return k > most ? most : k < 1 ? 1 : k;
}

int hfft__four_layout(const hfft__gpu *g, hfft__four_shape *s) {
    const hfft__four *f = g->four;
    if (!f)
        return -1;
    s->z = f->z;
    s->d0 = f->d0;
    s->fa = f->fa;
    s->fb = f->fb;
    s->row = f->row;
    s->per = f->per;
    s->nb = f->nb;
    s->pw = f->pw;
    s->gpu[0] = f->share[0];
    s->gpu[1] = f->share[1];
    return 0;
}

/*
 * d0 = fa fb (both at least 2) and round B's pieces, nb to a row: round A's
 * unit is a group of fa whole rows (its row transforms need them whole),
 * round B's a residue's fb pieces of a row, pieces of at least PIECE_MIN
 * bytes or a 256th of a pass where that is less (whole rows where rows are
 * narrower than two such pieces).  The pair whose
 * larger unit is the smallest: units that are small against a pass let the
 * passes shrink at a round's ends (2D 32768 x 65536 r32: 128 x 256, units of
 * 34 and 67 MB; 3D 2048^3 r32, planes of 16.8 MB: 4 x 512 or 8 x 256 with 64
 * pieces a plane, units of 67 and 134 MB).  0 where d0 is prime.
 */
static int factor(hfft__four *f, size_t es, size_t cap) {
    size_t least = cap / 256 < PIECE_MIN ? cap / 256 : PIECE_MIN;
    int64_t nb = 1;
    for (int64_t k = 2; (size_t)(f->row / k) * es >= least && k <= f->row; k++)
        if (f->row % k == 0)
            nb = k;
    size_t best = 0;
    for (int64_t d = 2; d * d <= f->d0; d++) {
        if (f->d0 % d)
            continue;
        for (int s = 0; s < 2; s++) { /* fa = d, and fa = d0 / d */
            int64_t a = s ? f->d0 / d : d;
            size_t ua = (size_t)a * f->rowb, ub = (size_t)(f->d0 / a) * (f->rowb / (size_t)nb);
            size_t most = ua > ub ? ua : ub;
            if (!best || most < best) {
                best = most;
                f->fa = a;
            }
        }
    }
    if (!best)
        return 0;
    f->fb = f->d0 / f->fa;
    f->nb = nb;
    f->pw = f->row / nb;
    return 1;
}

/*
 * Pass bounds over u units, at most m a pass, into at[0..n]: a head growing
 * from 1 by at most 8/7 a pass, passes of about m, and a tail shrinking by at
 * most 7/8 a pass down to 1 (m smaller where the ramps would not leave room
 * for a pass of m).  With both directions busy one of them runs faster than
 * the other, and which one differs from card to card.  Where passes change
 * size that slowly, what is left to copy out when the last copy in ends (which
 * round B's copies in, and the execute's end, wait for) is about the last
 * pass, and a round's first copy out waits for one small pass; halving and
 * doubling passes left the copy out several passes behind at each end of a
 * round.  Each pass of a ramp still leaves one direction idle for a while (the
 * copy in of a larger pass against the copy out of a smaller one), so passes
 * stay small (PASS_MAX) and the ramps short.
 */
static int64_t *passes(int64_t u, int64_t m, int *n) {
    int64_t head[256], tail[256], sh, st;
    int nh, nt;
    /* the largest pass size whose ramps leave room for one pass of it */
    for (;; m--) {
        sh = st = nh = nt = 0;
        for (int64_t s = 1; s < m && nh < 255; s += s / 7 > 1 ? s / 7 : 1)
            sh += head[nh++] = s;
        for (int64_t s = m - m / 8 < m - 1 ? m - m / 8 : m - 1; s >= 1 && nt < 255;
             s = s - s / 8 < s - 1 ? s - s / 8 : s - 1)
            st += tail[nt++] = s;
        if (m <= 1 || sh + st <= u - m)
            break;
    }
    int64_t body = u - sh - st, nbody = (body + m - 1) / m;
    int total = nh + (int)nbody + nt;
    int64_t *at = malloc(sizeof *at * (size_t)(total + 1));
    if (!at)
        return NULL;
    int k = 0;
    at[0] = 0;
    for (int i = 0; i < nh; i++, k++)
        at[k + 1] = at[k] + head[i];
    for (int64_t i = 0; i < nbody; i++, k++)
        at[k + 1] = at[k] + body / nbody + (i < body % nbody ? 1 : 0);
    for (int i = 0; i < nt; i++, k++)
        at[k + 1] = at[k] + tail[i];
    *n = total;
    return at;
}

/* The plan of round x's lines for passes of m units (made where missing). */
static int lines_plan(hfft__gpu *g, hfft__four *f, int x, int64_t m, size_t *work) {
    for (int k = 0; k < f->nplan[x]; k++)
        if (f->pm[x][k] == m)
            return 0;
    if (f->nplan[x] == FOUR_PLANS)
        return 1; /* more pass sizes than plans kept: the plain schedule */
    int k = f->nplan[x]++;
    f->pm[x][k] = m;
    const int64_t *n = x ? &f->fb : &f->fa, w = m * (x ? f->pw : f->row);
    return hfft__sched_plan(g, &f->lines[x][k], HFFT__C2C, 1, n, w, 1, w, work);
}

static hfft__fftplan find_plan(const hfft__four *f, int x, int64_t m) {
    for (int k = 0; k < f->nplan[x]; k++)
        if (f->pm[x][k] == m)
            return f->lines[x][k];
    return NULL;
}

/* At most m units a pass, and at most PASS_MAX bytes (one unit where a unit is larger). */
static int64_t small_passes(int64_t m, size_t unit) {
    int64_t t = (int64_t)(PASS_MAX / unit);
    t = t > 1 ? t : 1;
    return m < t ? m : t;
}

/* Passes, plans, buffers and events in `budget` bytes: 0, 1 where this schedule
   does not apply or fit (the plain schedule then), or a failure. */
static int four_try(hfft__gpu *g, hfft__four *f, int64_t budget, size_t cap) {
    size_t work = 0;
    size_t pb = (size_t)f->pw * g->es;
    int64_t ma = (int64_t)(cap / ((size_t)f->fa * f->rowb));
    int64_t mb = (int64_t)(cap / ((size_t)f->fb * pb));
    if (ma < 1 || mb < 1)
        return 1;
    ma = ma < UNITS_MAX ? ma : UNITS_MAX;
    mb = mb < UNITS_MAX ? mb : UNITS_MAX;
    /* the GPU's units of each round (all of them unless the CPU takes a share), or
       this card's share of them */
    int64_t all[2] = {f->fb, f->fa * f->nb};
    for (int x = 0; x < 2; x++) {
        if (g->cards > 1) {
            f->lo[x] = all[x] * g->card / g->cards;
            f->share[x] = all[x] * (g->card + 1) / g->cards - f->lo[x];
        } else {
            f->share[x] = gpu_units(g, x, all[x]);
        }
    }
    if (f->share[0] < 1 || f->share[1] < 1)
        return 1; /* more cards than a round's units */
    f->cpu = g->cards < 2 && (f->share[0] < all[0] || f->share[1] < all[1]);
    f->qb = g->cards > 1 ? f->lo[0] + f->share[0] : f->fb;
    f->q_res = f->qb;
    int64_t ua = f->share[0], ub = f->share[1];
    /* at least FOUR_MIN_PASSES passes a round where the units allow */
    if (ma > ua / FOUR_MIN_PASSES && ua >= FOUR_MIN_PASSES)
        ma = ua / FOUR_MIN_PASSES;
    if (mb > ub / FOUR_MIN_PASSES && ub >= FOUR_MIN_PASSES)
        mb = ub / FOUR_MIN_PASSES;
    ma = small_passes(ma, (size_t)f->fa * f->rowb);
    mb = small_passes(mb, (size_t)f->fb * pb);
    f->at[0] = passes(ua, ma, &f->npass[0]);
    f->at[1] = passes(ub, mb, &f->npass[1]);
    if (!f->at[0] || !f->at[1])
        return hfft__fail(HFFT_ERR_HOST_MEMORY, "GPU engine: out of memory");
    const hfft__round *r = &g->rd[1 - f->z].r;
    const int64_t *shape = r->rank == 2 ? r->n2 : &r->L;
    TRY(hfft__sched_plan(g, &f->rows, r->kind, r->rank, shape, 1, r->dout, f->fa * f->per, &work));
    for (int x = 0; x < 2; x++) {
        for (int k = 0; k < f->npass[x]; k++)
            TRY(lines_plan(g, f, x, f->at[x][k + 1] - f->at[x][k], &work));
        /* passes of one unit at least, for units the GPU may take back from the CPU */
        if (f->cpu && f->share[x] < all[x])
            TRY(lines_plan(g, f, x, 1, &work));
    }
    f->work = work;
    /* the largest pass of either round (the ramps may have made them smaller) */
    size_t slot = 0;
    for (int x = 0; x < 2; x++)
        for (int k = 0; k < f->npass[x]; k++) {
            size_t b = (size_t)(f->at[x][k + 1] - f->at[x][k]) *
                       (x ? (size_t)f->fb * pb : (size_t)f->fa * f->rowb);
            slot = b > slot ? b : slot;
        }
    if ((int64_t)(FOUR_SLOTS * slot + work) > budget)
        return 1;
    g->cap = slot;
    g->nslot = FOUR_SLOTS;
    for (int k = 0; k < FOUR_SLOTS; k++)
        TRY(g->ops->alloc(g->d, &g->buf[k], slot));
    if (work) {
        TRY(g->ops->alloc(g->d, &g->work[0], work));
        g->work_bytes = work;
        g->nwork = 1;
    }
    return g->ops->event_create(g->d, &f->mid);
}

/*
 * The card's last groups of round A kept on the device in what the buffers
 * and the work area leave of the budget: bytes each way 2 S - R.  Only where
 * the GPU runs both rounds whole, on one card or several (a CPU share's layout
 * has the last groups on the host).  A device that refuses the block gets a
 * smaller one, or none.
 */
static int four_resident(hfft__gpu *g, hfft__four *f) {
    f->q_res = f->qb;
    if (f->cpu)
        return 0;
    const hfft__dev_ops *o = g->ops;
    size_t group = (size_t)f->fa * f->rowb;
    int64_t left = o->budget(g->d) - o->used(g->d) - o->reserve(g->d);
    int64_t k = left > 0 ? left / (int64_t)group : 0;
    k = k < f->share[0] ? k : f->share[0];
    for (; k >= 1; k /= 2) {
        void *p = NULL;
        int st = o->alloc(g->d, &p, (size_t)k * group);
        if (!st) {
            f->res = p;
            f->q_res = f->qb - k;
            return 0;
        }
        if (st != HFFT_ERR_DEVICE_MEMORY && st != HFFT_ERR_BUDGET)
            return st;
        hfft__clear_error();
    }
    return 0;
}

int64_t hfft__four_resident_bytes(const hfft__gpu *g) {
    const hfft__four *f = g->four;
    return f && f->res ? (f->qb - f->q_res) * f->fa * (int64_t)f->rowb : 0;
}

/* The card's groups of round A and those it keeps (on one card, lo is 0 and qb fb:
   round B's rows, the CPU's share among them, on the host or here). */
static hfft__four_part own_part(const hfft__gpu *g, const hfft__four *f) {
    return (hfft__four_part){g->d, f->res, f->lo[0], f->q_res, f->qb, f->fa, f->nb};
}

int hfft__four_own_part(const hfft__gpu *g, hfft__four_part *p) {
    if (!g->four || g->cards < 2)
        return -1;
    *p = own_part(g, g->four);
    return 0;
}

void hfft__four_set_parts(hfft__gpu *g, const hfft__four_part *parts, int n) {
    hfft__four *f = g->four;
    f->nparts = n < HFFT_MAX_CARDS ? n : HFFT_MAX_CARDS;
    memcpy(f->part, parts, sizeof *parts * (size_t)f->nparts);
}

static void four_release(hfft__gpu *g) {
    hfft__sched_release(g);
    g->work_bytes = 0;
    g->nwork = 0;
    g->cap = 0;
    hfft__four_destroy(g);
}

int hfft__four_size(hfft__gpu *g, int64_t budget) {
    int z = eligible(g);
    if (z < 0)
        return 1;
    const hfft__round *c = &g->rd[z].r, *r = &g->rd[1 - z].r;
    size_t cap = (size_t)budget / FOUR_SLOTS;
    for (int tries = 0; tries < 4; tries++) {
        hfft__four *f = calloc(1, sizeof *f);
        if (!f)
            return hfft__fail(HFFT_ERR_HOST_MEMORY, "GPU engine: out of memory");
        g->four = f;
        f->z = z;
        f->d0 = c->L;
        f->row = c->ni;
        f->per = r->no / c->L;
        f->rowb = (size_t)f->row * g->es;
        if (!factor(f, g->es, cap)) {
            hfft__four_destroy(g);
            return 1;
        }
        f->real = r->kind == HFFT__R2C ? r : NULL;
        /* Where the budget may keep rows resident (the GPU runs both rounds whole),
           passes of at most a sixteenth of the array, or a unit, leave it the rest:
           larger ones gain nothing (PASS_MAX holds them smaller still on large
           arrays), while each byte kept saves one each way. */
        size_t try_cap = cap;
        if (g->cards > 1 || (g->rd[0].units == hfft__round_units(&g->rd[0].r) &&
                             g->rd[1].units == hfft__round_units(&g->rd[1].r))) {
            size_t unit_a = (size_t)f->fa * f->rowb, unit_b = (size_t)f->fb * (f->rowb / f->nb);
            size_t least = (size_t)f->d0 * f->rowb / 16 / (size_t)(g->cards > 1 ? g->cards : 1);
            least = least > unit_a ? least : unit_a;
            least = least > unit_b ? least : unit_b;
            try_cap = least < cap ? least : cap;
        }
        /* (against the passes this plan will have: where residency shrinks them, arrays
           under 256 MiB take narrower rows than a hybrid plan of the same budget) */
        if (f->rowb < (ROW_MIN < try_cap / 256 ? ROW_MIN : try_cap / 256)) {
            hfft__four_destroy(g);
            return 1;
        }
        int st = four_try(g, f, budget, try_cap);
        if (!st)
            st = four_resident(g, f);
        if (!st) {
            /* round B's rows: on the host, or kept here; several cards get every card's
               part once all are planned (hfft__four_set_parts) */
            f->part[0] = own_part(g, f);
            f->nparts = 1;
            g->rd[0].kind = g->rd[1].kind = &hfft__four_kind;
            return 0;
        }
        size_t work = f->work;
        four_release(g);
        /* too little room, or a layout cuFFT refuses: the plain schedule */
        if (st != 1 && st != HFFT_ERR_DEVICE_MEMORY && st != HFFT_ERR_BUDGET &&
            st != HFFT_ERR_CUFFT)
            return st;
        hfft__clear_error();
        if (st == HFFT_ERR_CUFFT || (st == 1 && !work))
            return 1; /* smaller passes would not help */
        /* the work areas took room: passes that leave it to them */
        size_t fit = (int64_t)(work + 256) < budget ? ((size_t)budget - work) / FOUR_SLOTS : 0;
        cap = fit < try_cap * 7 / 8 ? fit : try_cap * 7 / 8;
    }
    return 1;
}

/* Round A's pass over groups [q0, q0 + m) into buffer b (rows p m + i). */
static int copy_in_a(hfft__gpu *g, hfft__four *f, const char *src, char *b, int64_t q0,
                     int64_t m) {
    hfft__stream in = g->stream[0];
    if (!f->real)
        return hfft__sched_h2d(g, in, b, (size_t)m * f->rowb, src + (size_t)q0 * f->rowb,
                               (size_t)f->fb * f->rowb, (size_t)m * f->rowb, (size_t)f->fa);
    /* real rows, each padded to n/2 + 1 complex on the device */
    const hfft__round *r = f->real;
    size_t rs = g->es / 2, rp = (size_t)r->rpitch * rs, width = (size_t)r->nreal * rs;
    size_t crow = (size_t)(r->nreal / 2 + 1) * g->es;
    int64_t per = f->row / (r->nreal / 2 + 1); /* real rows per index */
    if (per == 1 && width >= NARROW_RUN) {
        /* one copy per group: its fa rows, fb rows apart */
        for (int64_t i = 0; i < m; i++)
            TRY(hfft__sched_h2d(g, in, b + (size_t)i * crow, (size_t)m * crow,
                                src + (size_t)(q0 + i) * rp, (size_t)f->fb * rp, width,
                                (size_t)f->fa));
        return 0;
    }
    /* one copy per p: the group's m indices, consecutive on the host */
    for (int64_t p = 0; p < f->fa; p++)
        TRY(hfft__sched_h2d(g, in, b + (size_t)(p * m * per) * crow, crow,
                            src + (size_t)((q0 + f->fb * p) * per) * rp, rp, width,
                            (size_t)(m * per)));
    return 0;
}

/* The next buffer, once the copy in has waited for its last copy out. */
static int take_slot(hfft__gpu *g, hfft__four *f, int *s) {
    *s = f->next;
    f->next = (f->next + 1) % FOUR_SLOTS;
    if (f->used[*s])
        TRY(g->ops->wait(g->d, g->stream[0], g->out_ev[*s][0]));
    f->used[*s] = 1;
    return 0;
}

/* Round A's pass over groups [q0, q0 + m) (buffer rows p m + i); *slot: its buffer. */
static int pass_a(hfft__gpu *g, hfft__four *f, const char *src, char *dst, int64_t q0, int64_t m,
                  int *slot) {
    const hfft__dev_ops *o = g->ops;
    hfft__dev *d = g->d;
    hfft__stream in = g->stream[0], out = g->stream[1], c = g->stream[NSTREAM];
    size_t rowb = f->rowb;
    int s;
    TRY(take_slot(g, f, &s));
    *slot = s;
    char *b = g->buf[s];
    TRY(copy_in_a(g, f, src, b, q0, m));
    TRY(o->record(d, g->in_ev[s][0], in));
    TRY(o->wait(d, c, g->in_ev[s][0]));
    /* the rows (any fa of them are a group's worth), then the fa-point lines */
    for (int64_t i = 0; i < m; i++)
        TRY(o->fft_exec(d, f->rows, c, b + (size_t)(i * f->fa) * rowb, g->work[0]));
    TRY(o->fft_exec(d, find_plan(f, 0, m), c, b, g->work[0]));
    /* result k1 of group q0 + i (buffer row k1 m + i) to output row fa (q0 + i) + k1:
       kept on the device (on the compute stream, so that the link's streams carry
       only the host's bytes), or to the host */
    for (int64_t i = 0; i < m; i++)
        if (q0 + i >= f->q_res)
            TRY(o->d2d(d, c, f->res + (size_t)(f->fa * (q0 + i - f->q_res)) * rowb, rowb,
                       b + (size_t)i * rowb, (size_t)m * rowb, rowb, (size_t)f->fa));
    TRY(o->record(d, g->comp_ev[s][0], c));
    TRY(o->wait(d, out, g->comp_ev[s][0]));
    for (int64_t i = 0; i < m && q0 + i < f->q_res; i++)
        TRY(hfft__sched_d2h(g, out, dst + (size_t)(f->fa * (q0 + i)) * rowb, rowb,
                            b + (size_t)i * rowb, (size_t)m * rowb, rowb, (size_t)f->fa));
    return o->record(d, g->out_ev[s][0], out);
}

/* Round B's pass over units [u0, u0 + m): piece u % nb of rows fa q + u / nb,
   consecutive on the host for each q; buffer row q holds the m pieces. */
static int pass_b(hfft__gpu *g, hfft__four *f, char *dst, int64_t u0, int64_t m, int *slot) {
    const hfft__dev_ops *o = g->ops;
    hfft__dev *d = g->d;
    hfft__stream in = g->stream[0], out = g->stream[1], c = g->stream[NSTREAM];
    size_t pb = (size_t)f->pw * g->es, hp = (size_t)f->fa * f->rowb;
    int s;
    TRY(take_slot(g, f, &s));
    *slot = s;
    char *b = g->buf[s];
    /* rows of the groups on the host, each card's part in turn; those kept on a card on
       the compute stream, from this card or card to card */
    for (int k = 0; k < f->nparts; k++) {
        const hfft__four_part *p = &f->part[k];
        if (p->q_res > p->qa)
            TRY(hfft__sched_h2d(g, in, b + (size_t)(p->qa * m) * pb, (size_t)m * pb,
                                dst + (size_t)p->qa * hp + (size_t)u0 * pb, hp, (size_t)m * pb,
                                (size_t)(p->q_res - p->qa)));
    }
    TRY(o->record(d, g->in_ev[s][0], in));
    TRY(o->wait(d, c, g->in_ev[s][0]));
    for (int k = 0; k < f->nparts; k++) {
        const hfft__four_part *p = &f->part[k];
        if (p->qb == p->q_res)
            continue;
        char *to = b + (size_t)(p->q_res * m) * pb;
        const char *from = p->res + (size_t)u0 * pb;
        size_t rows = (size_t)(p->qb - p->q_res);
        TRY(hfft__card_copy(o, d, c, p->d, to, (size_t)m * pb, from, hp, (size_t)m * pb, rows));
    }
    /* the pieces of each residue k1 together: row q times exp(sign 2 pi i q k1 / d0) */
    for (int64_t j = 0, n; j < m; j += n) {
        int64_t k1 = (u0 + j) / f->nb;
        n = (k1 + 1) * f->nb - (u0 + j);
        n = n < m - j ? n : m - j;
        TRY(o->twiddle(d, g->prec, c, b + (size_t)j * pb, f->fb, n * f->pw, m * f->pw, f->d0, 0, 0,
                       k1, g->sign));
    }
    TRY(o->fft_exec(d, find_plan(f, 1, m), c, b, g->work[0]));
    TRY(o->record(d, g->comp_ev[s][0], c));
    TRY(o->wait(d, out, g->comp_ev[s][0]));
    TRY(hfft__sched_d2h(g, out, dst + (size_t)u0 * pb, hp, b, (size_t)m * pb, (size_t)m * pb,
                        (size_t)f->fb));
    return o->record(d, g->out_ev[s][0], out);
}

/*
 * Where the CPU has units of round x: once the copy in of the GPU's last pass
 * has landed (about a pass before the GPU's units end), the CPU's side is asked
 * how many of its last units, not yet started, the GPU should take back
 * (hfft__cpu_take: where the CPU runs late, for instance a core taken by
 * other work); the GPU runs them after its own, in passes of sizes it has
 * plans for (FOUR_PLANS), the largest first.
 */
static int take_back(hfft__gpu *g, hfft__four *f, int x, const char *src, char *dst, int last,
                     double t0) {
    int64_t all = x ? f->fa * f->nb : f->fb;
    if (!g->take || !f->cpu || f->share[x] >= all || last < 0)
        return 0;
    TRY(g->ops->event_sync(g->d, g->in_ev[last][0]));
    double now = hfft__now(), unit_s = (now - t0) / (double)f->share[x];
    int64_t m_last = f->at[x][f->npass[x]] - f->at[x][f->npass[x] - 1], first = 0;
    int64_t n = g->take(g->take_ctx, x, unit_s, (double)m_last * unit_s, &first);
    for (int64_t u = first; u < first + n;) {
        int64_t m = 0;
        for (int k = 0; k < f->nplan[x]; k++)
            if (f->pm[x][k] <= first + n - u && f->pm[x][k] > m)
                m = f->pm[x][k];
        if (m < 1)
            return hfft__fail(HFFT_ERR_INTERNAL, "four-step: no plan for a pass taken back");
        int s;
        TRY(x ? pass_b(g, f, dst, u, m, &s) : pass_a(g, f, src, dst, u, m, &s));
        f->extra[x]++;
        u += m;
    }
    return 0;
}

static int round_a(hfft__gpu *g, hfft__four *f, const char *src, char *dst) {
    double t0 = hfft__now();
    int s = -1;
    for (int k = 0; k < f->npass[0]; k++)
        TRY(pass_a(g, f, src, dst, f->lo[0] + f->at[0][k], f->at[0][k + 1] - f->at[0][k], &s));
    TRY(take_back(g, f, 0, src, dst, s, t0));
    return g->ops->record(g->d, f->mid, g->stream[1]);
}

static int round_b(hfft__gpu *g, hfft__four *f, char *dst) {
    double t0 = hfft__now();
    /* every row round A wrote has landed before any is read */
    TRY(g->ops->wait(g->d, g->stream[0], f->mid));
    int s = -1;
    for (int k = 0; k < f->npass[1]; k++)
        TRY(pass_b(g, f, dst, f->lo[1] + f->at[1][k], f->at[1][k + 1] - f->at[1][k], &s));
    return take_back(g, f, 1, dst, dst, s, t0);
}

int hfft__four_round(hfft__gpu *g, int h, const char *src, char *dst) {
    hfft__four *f = g->four;
    if (h == 0) {
        /* the real side: real rows per index (row / (n/2 + 1)) of rpitch reals */
        size_t in_bytes =
            (size_t)f->d0 *
            (f->real ? (size_t)(f->row / (f->real->nreal / 2 + 1)) * (size_t)f->real->rpitch *
                           (g->es / 2)
                     : f->rowb);
        size_t out_bytes = (size_t)f->d0 * f->rowb;
        if (!src || !dst || src == dst ||
            (src < dst + out_bytes && dst < src + in_bytes))
            return hfft__fail(HFFT_ERR_INVALID_ARGUMENT,
                              "four-step streaming reads the input and writes the output: the "
                              "arrays must not overlap");
        memset(f->used, 0, sizeof f->used);
        f->extra[0] = f->extra[1] = 0;
        return round_a(g, f, src, dst);
    }
    if (src != dst)
        return hfft__fail(HFFT_ERR_INTERNAL,
                          "four-step streaming: the second round runs in place on the output");
    memset(f->used, 0, sizeof f->used);
    return round_b(g, f, dst);
}

int64_t hfft__four_passes(const hfft__gpu *g, int h) {
    return g->four ? g->four->npass[h ? 1 : 0] + g->four->extra[h ? 1 : 0] : 0;
}

static int four_run(hfft__gpu *g, rstate *r, int h, const char *src, char *dst, int64_t *pass) {
    (void)r;
    TRY(hfft__four_round(g, h, src, dst));
    *pass = hfft__four_passes(g, h);
    return 0;
}

static int64_t four_passes(const hfft__gpu *g, const rstate *r, int h) {
    (void)r;
    return hfft__four_passes(g, h); /* outer is 1 in both rounds */
}

const pass_kind hfft__four_kind = {"four-step", HFFT_SCHED_FOUR_STEP, 1, 0, 1, four_run,
                                   four_passes};
