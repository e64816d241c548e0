/*
 * split.c: double-precision lines cut in card (see split.h).
 */
#include "gpu/split.h"

#include <stdlib.h>

#include "src/core/chirp.h"
#include "src/core/problem.h"
#include "src/core/status.h"

#define SPLIT_MIN 1024               /* shorter lines: cuFFT's are within FFTW's accuracy */
#define SPLIT_LINE ((size_t)64 << 20) /* longer lines would need scratch beside their size */
#define SPLIT_BLOCK ((size_t)16 << 20) /* one scratch block: a chunk of lines */
#define SPLIT_FACTOR_MIN 16
#define BLUE (-1)                    /* takes(): lines through Bluestein */
#define BLUE_SHARE 4                 /* Bluestein's work at most a quarter of the budget left */
#define FINE_WHOLE 32 /* Bluestein's M-point lines cut into lines of at most 32 points */

struct hfft__split {
    const hfft__dev_ops *o;
    hfft__dev *d;
    int prec, sign, kind, rank; /* real rows, planes: sub[0] their parts (plan_parts) */
    int64_t n, n0, n1, stride, dist, batch;
    int64_t chunk, tail;        /* lines per chunk; the last chunk's (chunk where even) */
    hfft__fftplan sub[2][2];    /* [whole chunk, tail][n0 lines, n1 lines]; Bluestein:
                                   [..][forward, backward M-point lines] */
    size_t block;               /* bytes of one scratch block */
    int64_t M;                  /* Bluestein: its M (0: a four-step cut) */
    void *table;                /* Bluestein: B and the chirp (src/core/chirp.h), pinned */
    size_t tbytes;
    hfft__split *fine[2][2];    /* Bluestein: its M-point lines cut fine (fine_plan), in
                                   place of sub; NULL where they did not fit */
    hfft__split *next;          /* a fine cut: its n1-point lines cut fine again */
};

/* Complex lines of rank 1 (see split.h). */
static int64_t line_factor(int prec, int64_t n, int64_t stride, int64_t dist) {
    if (prec != 8 || n < SPLIT_MIN || (size_t)n * 16u > SPLIT_LINE || (stride != 1 && dist != 1))
        return 0;
    int64_t f = 1;
    for (int64_t q = 2; q * q <= n; q++)
        if (n % q == 0)
            f = q;
    return f >= SPLIT_FACTOR_MIN ? f : 0;
}

/* Complex lines of rank 1: their n0, BLUE (a large prime factor), or 0. */
static int64_t line_way(int prec, int64_t n, int64_t stride, int64_t dist) {
    int64_t f = line_factor(prec, n, stride, dist);
    return f ? f : prec == 8 && hfft__chirp_wants(n, HFFT__CHIRP_CUFFT) ? BLUE : 0;
}

/* fine_plan's first factor of n points, a power of two: n = 2^a as ceil(a / 5) factors
   of 2^3 to 2^5, as even as they go (4096 = 16 x 16 x 16, 32768 = 32 x 32 x 32,
   2048 = 16 x 16 x 8); 0 where n is 32 points or less, or not a power of two. */
static int64_t fine_first(int64_t n) {
    if (n <= FINE_WHOLE || (n & (n - 1)))
        return 0;
    int a = 0;
    while ((INT64_C(1) << a) < n)
        a++;
    int k = (a + 4) / 5;
    return INT64_C(1) << ((a + k - 1) / k);
}

/* Levels of fine_plan's cut of n points; 0 where it does not cut them. */
static int64_t fine_levels(int64_t n) {
    int64_t levels = 0;
    for (int64_t f; (f = fine_first(n)) != 0; n /= f)
        levels++;
    return levels;
}

/* Bluestein's M-point lines, `batch` of them contiguous, cut n = n0 x n1 with n0 of
   8 to 32 points (fine_first) and the n1-point lines cut the same way, down to lines
   of at most 32 points: cuFFT's double lines lose accuracy past 16 to 32 points,
   and Bluestein's error follows its M-point lines', so this finer cut makes it more
   accurate than the backend table's coarser one.  One chunk: the caller's lines fit
   a block. */
static int fine_plan(const hfft__dev_ops *o, hfft__dev *d, int prec, int64_t n, int64_t batch,
                     int sign, hfft__split **out, size_t *work) {
    *out = NULL;
    *work = 0;
    hfft__split *p = calloc(1, sizeof *p);
    if (!p)
        return hfft__fail(HFFT_ERR_HOST_MEMORY, "split lines: out of memory");
    int64_t n0 = fine_first(n), n1 = n / n0;
    *p = (hfft__split){.o = o, .d = d, .prec = prec, .sign = sign, .kind = HFFT__C2C, .rank = 1,
                       .n = n, .n0 = n0, .n1 = n1, .stride = 1, .dist = n, .batch = batch,
                       .chunk = batch, .tail = batch,
                       .block = (size_t)(batch * n) * 2u * (size_t)prec};
    size_t w0 = 0, w1 = 0;
    int st = o->fft_plan(d, prec, HFFT__C2C, 1, &p->n0, 1, n0, batch * n1, sign, &p->sub[0][0],
                         &w0);
    if (!st && fine_levels(n1))
        st = fine_plan(o, d, prec, n1, batch * n0, sign, &p->next, &w1);
    else if (!st)
        st = o->fft_plan(d, prec, HFFT__C2C, 1, &p->n1, 1, n1, batch * n0, sign, &p->sub[0][1],
                         &w1);
    if (st) {
        hfft__split_destroy(p);
        return st;
    }
    *work = 2 * p->block + (w0 > w1 ? w0 : w1);
    *out = p;
    return 0;
}

/* Bluestein's M for n points where its table (M + n points) and a line's buffer (M)
   leave room on the card: the most accurate that fits, down to the leanest
   (src/core/chirp.h); 0 where none does, and the backend transforms the lines whole. */
static int64_t blue_length(const hfft__dev_ops *o, hfft__dev *d, int64_t n, int prec) {
    int64_t left = o->budget(d) - o->used(d);
    for (int64_t M = hfft__chirp_length(n); M >= hfft__chirp_lean(n); M /= 2)
        if ((int64_t)((size_t)(2 * M + n) * 2u * (size_t)prec) <= left / BLUE_SHARE)
            return M;
    return 0;
}

/* Nonzero where the module takes these transforms; complex lines: line_way's. */
static int64_t takes(int prec, int kind, int rank, const int64_t *n, int64_t stride,
                     int64_t dist) {
    int64_t last = rank == 2 ? n[1] : n[0], half = last / 2;
    if (rank == 2) { /* dense planes whose rows or columns are cut */
        int64_t w = kind == HFFT__C2C ? last : half + 1;
        if (stride != 1 || dist != n[0] * w)
            return 0;
        return takes(prec, kind, 1, &last, 1, w) || line_way(prec, n[0], w, 1);
    }
    if (kind != HFFT__C2C && last % 2 == 0) /* real rows: their complex half cut */
        return line_way(prec, half, 1, dist);
    if (kind != HFFT__C2C) /* odd real rows: Bluestein's complex transform of n points */
        return prec == 8 && hfft__chirp_wants(last, HFFT__CHIRP_CUFFT) ? BLUE : 0;
    return line_way(prec, last, stride, dist);
}

void hfft__split_destroy(hfft__split *p) {
    if (!p)
        return;
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 2; j++) {
            if (p->sub[i][j])
                p->o->fft_destroy(p->d, p->sub[i][j]);
            hfft__split_destroy(p->fine[i][j]);
        }
    hfft__split_destroy(p->next);
    if (p->table)
        p->o->host_free(p->d, p->table);
    free(p);
}

/* The two sub-plans of a chunk of m lines; the larger work area in *work. */
static int plan_chunk(hfft__split *p, int which, int64_t m, int fine, size_t *work) {
    const int64_t len[2] = {p->n0, p->n1};
    for (int j = 0; j < 2; j++) {
        size_t w = 0;
        if (p->M && fine) /* Bluestein: m lines of M points, forward then backward */
            HFFT__TRY(fine_plan(p->o, p->d, p->prec, p->M, m, j ? 1 : -1, &p->fine[which][j], &w));
        else if (p->M)
            HFFT__TRY(p->o->fft_plan(p->d, p->prec, HFFT__C2C, 1, &p->M, 1, p->M, m,
                                     j ? 1 : -1, &p->sub[which][j], &w));
        else
            HFFT__TRY(p->o->fft_plan(p->d, p->prec, HFFT__C2C, 1, &len[j], 1, len[j],
                                     m * len[1 - j], p->sign, &p->sub[which][j], &w));
        if (w > *work)
            *work = w;
    }
    return 0;
}

/* Real rows: the complex transform of their halves; planes: their rows, then
   their columns one plane at a time; each planned through the table again. */
static int plan_parts(hfft__split *p, const int64_t *n, size_t *work) {
    int st;
    size_t w = 0;
    if (p->rank == 1) {
        int64_t m = p->n / 2;
        st = p->o->fft_plan(p->d, p->prec, HFFT__C2C, 1, &m, 1, p->dist, p->batch,
                            p->kind == HFFT__R2C ? -1 : 1, &p->sub[0][0], work);
    } else {
        int64_t wide = p->kind == HFFT__C2C ? n[1] : n[1] / 2 + 1;
        st = p->o->fft_plan(p->d, p->prec, p->kind, 1, &n[1], 1, wide, p->batch * n[0], p->sign,
                            &p->sub[0][0], work);
        if (!st)
            st = p->o->fft_plan(p->d, p->prec, HFFT__C2C, 1, &n[0], wide, 1, wide, p->sign,
                                &p->sub[0][1], &w);
        *work = w > *work ? w : *work;
    }
    if (st)
        hfft__split_destroy(p);
    return st;
}

int hfft__split_plan(const hfft__dev_ops *o, hfft__dev *d, int prec, int kind, int rank,
                     const int64_t *nn, int64_t stride, int64_t dist, int64_t batch, int sign,
                     hfft__split **out, size_t *work) {
    *out = NULL;
    *work = 0;
    int64_t n0 = takes(prec, kind, rank, nn, stride, dist);
    if (!n0)
        return 0;
    hfft__split *p = calloc(1, sizeof *p);
    if (!p)
        return hfft__fail(HFFT_ERR_HOST_MEMORY, "split lines: out of memory");
    int64_t n = nn[rank - 1];
    if ((kind != HFFT__C2C && n0 != BLUE) || rank == 2) {
        *p = (hfft__split){.o = o, .d = d, .prec = prec, .sign = sign, .kind = kind,
                           .rank = rank, .n = n, .dist = dist, .batch = batch};
        int st = plan_parts(p, nn, work);
        if (!st)
            *out = p;
        return st;
    }
    int64_t M = n0 == BLUE ? blue_length(o, d, n, prec) : 0;
    if (n0 == BLUE && !M) {
        free(p);
        return 0;
    }
    size_t line = (size_t)(M ? M : n) * 2u * (size_t)prec;
    int64_t most = (int64_t)(SPLIT_BLOCK / line);
    most = most < 1 ? 1 : most;
    /* Bluestein's M-point lines cut fine where its blocks (the buffer and two scratch
       blocks a level) and its table fit the quarter of the budget left, in smaller
       chunks of lines if need be */
    int fine = 0;
    if (M) {
        int64_t levels = fine_levels(M), room = (o->budget(d) - o->used(d)) / BLUE_SHARE;
        room -= (int64_t)((size_t)(M + n) * 2u * (size_t)prec);
        int64_t fit = levels && room > 0 ? room / (int64_t)((size_t)(1 + 2 * levels) * line) : 0;
        fine = fit >= 1;
        most = fine && fit < most ? fit : most;
    }
    int64_t chunks = (batch + most - 1) / most;
    if (kind != HFFT__C2C) /* real rows: the complex transform of the reals, or to them */
        sign = kind == HFFT__R2C ? -1 : 1;
    *p = (hfft__split){.o = o, .d = d, .prec = prec, .sign = sign, .kind = kind, .rank = 1, .n = n,
                       .n0 = M ? 0 : n0, .n1 = M ? 0 : n / n0, .stride = stride, .dist = dist,
                       .batch = batch, .M = M};
    p->chunk = (batch + chunks - 1) / chunks;
    p->tail = batch - (chunks - 1) * p->chunk;
    p->block = (size_t)p->chunk * line;
    size_t sub = 0;
    int st = 0;
    if (M) {
        p->tbytes = (size_t)(M + n) * 2u * (size_t)prec; /* B, then the chirp */
        st = o->host_alloc(d, &p->table, p->tbytes);
        if (!st)
            st = hfft__chirp_table(n, M, sign, p->table);
    }
    if (!st)
        st = plan_chunk(p, 0, p->chunk, fine, &sub);
    if (!st && p->tail != p->chunk)
        st = plan_chunk(p, 1, p->tail, fine, &sub);
    if (st) {
        hfft__split_destroy(p);
        return st;
    }
    *work = M ? p->tbytes + p->block + sub : 2 * p->block + sub;
    *out = p;
    return 0;
}

/* Sub-plan j of a chunk: the backend's lines, or Bluestein's M-point lines cut fine. */
static int lines(const hfft__split *p, int which, int j, hfft__stream s, void *data,
                 void *work) {
    if (p->fine[which][j])
        return hfft__split_exec(p->fine[which][j], s, data, work);
    return p->o->fft_exec(p->d, p->sub[which][j], s, data, work);
}

/* Bluestein's lines (src/core/chirp.h): B to the card, then per chunk the chirped
   lines into the buffer, its M-point transform, the product with B, the backward
   transform, and the chirped points back into the lines. */
static int blue_exec(const hfft__split *p, hfft__stream s, void *data, void *work) {
    const hfft__dev_ops *o = p->o;
    size_t es = 2u * (size_t)p->prec;
    char *tab = work, *buf = tab + p->tbytes, *sub = buf + p->block;
    HFFT__TRY(o->h2d(p->d, s, tab, p->tbytes, p->table, p->tbytes, p->tbytes, 1));
    for (int64_t b0 = 0; b0 < p->batch; b0 += p->chunk) {
        int64_t m = p->batch - b0 < p->chunk ? p->batch - b0 : p->chunk;
        int which = m == p->chunk ? 0 : 1;
        char *a = (char *)data + (size_t)(b0 * p->dist) * es;
        hfft__chirps c = {.n = p->n, .M = p->M, .stride = p->stride, .dist = p->dist,
                          .batch = m, .sign = p->sign, .step = HFFT__CHIRP_IN,
                          .real = p->kind};
        HFFT__TRY(o->chirp(p->d, p->prec, s, a, buf, tab, &c));
        HFFT__TRY(lines(p, which, 0, s, buf, sub));
        c.step = HFFT__CHIRP_MUL;
        HFFT__TRY(o->chirp(p->d, p->prec, s, NULL, buf, tab, &c));
        HFFT__TRY(lines(p, which, 1, s, buf, sub));
        c.step = HFFT__CHIRP_OUT;
        HFFT__TRY(o->chirp(p->d, p->prec, s, a, buf, tab, &c));
    }
    return 0;
}

/* A plane's columns, one plane at a time (after the rows; C2R before them). */
static int plane_columns(const hfft__split *p, hfft__stream s, void *data, void *work) {
    size_t es = 2u * (size_t)p->prec;
    for (int64_t b = 0; b < p->batch; b++)
        HFFT__TRY(p->o->fft_exec(p->d, p->sub[0][1], s, (char *)data + (size_t)(b * p->dist) * es,
                                 work));
    return 0;
}

int hfft__split_exec(const hfft__split *p, hfft__stream s, void *data, void *work) {
    const hfft__dev_ops *o = p->o;
    if (p->rank == 2) {
        if (p->kind == HFFT__C2R)
            HFFT__TRY(plane_columns(p, s, data, work));
        HFFT__TRY(o->fft_exec(p->d, p->sub[0][0], s, data, work));
        return p->kind == HFFT__C2R ? 0 : plane_columns(p, s, data, work);
    }
    if (p->M)
        return blue_exec(p, s, data, work);
    if (p->kind != HFFT__C2C) {
        int64_t m = p->n / 2;
        if (p->kind == HFFT__C2R)
            HFFT__TRY(o->real_pairs(p->d, p->prec, s, data, m, p->dist, p->batch, 0));
        HFFT__TRY(o->fft_exec(p->d, p->sub[0][0], s, data, work));
        if (p->kind == HFFT__R2C)
            HFFT__TRY(o->real_pairs(p->d, p->prec, s, data, m, p->dist, p->batch, 1));
        return 0;
    }
    size_t es = 2u * (size_t)p->prec;
    int64_t n = p->n, n0 = p->n0, n1 = p->n1, S = p->stride, D = p->dist;
    char *t1 = work, *t2 = t1 + p->block, *sub = t2 + p->block;
    /* t1: line b's element j0 n1 + j1 at b n + j1 n0 + j0; t2: k0 n1 + j1 at b n + k0 n1 + j1 */
    hfft__transposes mid = {.rows = n1, .cols = n0, .spitch = n0, .dpitch = n1, .sdist = n,
                            .ddist = n, .twn = n, .sign = p->sign};
    for (int64_t b0 = 0; b0 < p->batch; b0 += p->chunk) {
        int64_t m = p->batch - b0 < p->chunk ? p->batch - b0 : p->chunk;
        char *a = (char *)data + (size_t)(b0 * D) * es;
        hfft__transposes in, back;
        if (S == 1) { /* per line: n0 x n1 in, n1 x n0 (its natural order) out */
            in = (hfft__transposes){.rows = n0, .cols = n1, .spitch = n1, .dpitch = n0,
                                    .sdist = D, .ddist = n, .batch = m};
            back = (hfft__transposes){.rows = n0, .cols = n1, .spitch = n1, .dpitch = n0,
                                      .sdist = n, .ddist = D, .batch = m};
        } else { /* lines side by side: per j1, rows j0 x the lines; per k0, the lines x k1 */
            in = (hfft__transposes){.rows = n0, .cols = m, .spitch = n1 * S, .dpitch = n,
                                    .sdist = S, .ddist = n0, .batch = n1};
            back = (hfft__transposes){.rows = m, .cols = n1, .spitch = n, .dpitch = n0 * S,
                                      .sdist = n1, .ddist = S, .batch = n0};
        }
        mid.batch = m;
        int which = m == p->chunk ? 0 : 1;
        HFFT__TRY(o->transposes(p->d, p->prec, s, t1, a, &in));
        HFFT__TRY(o->fft_exec(p->d, p->sub[which][0], s, t1, sub));
        HFFT__TRY(o->transposes(p->d, p->prec, s, t2, t1, &mid));
        if (p->next)
            HFFT__TRY(hfft__split_exec(p->next, s, t2, sub));
        else
            HFFT__TRY(o->fft_exec(p->d, p->sub[which][1], s, t2, sub));
        HFFT__TRY(o->transposes(p->d, p->prec, s, a, t2, &back));
    }
    return 0;
}
