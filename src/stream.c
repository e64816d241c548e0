/*
 * stream.c: streaming images (hfft_stream_*, the Single Point Incremental
 * Fourier Transform), written once and compiled per precision.  The image is
 * the caller's array; it changes only at a flush, which adds the DFT of the
 * points pending since the last one.
 *
 *   add     each point summed into the pending grid (the image's shape, the
 *           index taken modulo each size), its cell marked, its key marked;
 *   direct  (HFFT_STREAM_DIRECT) each pending key's vector made and
 *           transformed, then one pass over the image rows adds every key's
 *           vector, cyclically shifted (shift keys) or times a row phase (row
 *           keys);
 *   grid    (HFFT_STREAM_GRID) the pending cells folded into the sum grid
 *           (every point added so far, plus the grid whose transform is the
 *           image the stream began with), then hfft's own plan transforms the
 *           sum grid into the image, out of place: the image is written, never
 *           read, and the sum grid is kept.  Where the host has no room for the
 *           sum grid, the plan transforms the pending grid in place and one
 *           pass adds it to the image and clears it.
 *
 * That is the image in host memory.  Where the image and its grid fit a card,
 * the card holds both between flushes (gpu/image.c): points are buffered in
 * pinned memory instead of summed on the host, sent to the card's grid as
 * they come where the grid way is expected, and a direct flush's vectors are
 * made from the buffer.  Where they do not fit, a direct flush passes the
 * host image through the card.
 *
 * Shift keys (rank 2, N x N, N a power of two): point (u, v) adds, at row j
 * and column k, x W^(u j + v k) with W = exp(sign 2 pi i / N).  Write
 * u = 2^a u', v = 2^b v' (u', v' odd).  Where b <= a, with t = (u >> b)
 * inv(v') mod N, v t = u mod N, so row j is the vector x W^(v k) shifted
 * left by t j: every point of column key t shares that vector,
 * sum x W^(v k), the N-point DFT of the points' values set at v.  Where
 * a < b, the same with rows and columns exchanged (row key t = (v >> a)
 * inv(u')).  Points at v = 0 and u != 0 have a < b; (0, 0) is column key 0.
 * So at most 2N keys, computed from the point, never searched.
 *
 * Row keys (any other shape): a point's indices but the last; its row of the
 * grid, transformed along the last dimension, times exp(sign 2 pi i
 * sum_d i_d j_d / n_d) over the other dimensions, is what it adds to image
 * row j.
 *
 * The choice per flush: a cost model of both (element counts times rates per
 * thread), each scaled by what its own last flushes took against it.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cpu/cpu.h"
#include "gpu/devices.h"
#include "gpu/image.h"
#include "src/core/problem.h"
#include "src/core/settings.h"
#include "src/core/status.h"
#include "src/core/twiddle.h"
#include "src/place.h"

#include "src/core/precision.h"

#define X H /* the public names this file defines */
#define TRY HFFT__TRY

typedef R C[2];

#define KEY_BATCH_BYTES ((size_t)64 << 20) /* key vectors applied in one pass, at most */
#define INV_TABLE_MAX ((int64_t)1 << 20)  /* shift keys: a table of inverses up to this N */
#define ROWS_PER_JOB 8                    /* image rows of one apply or add job */
#define CELL_LIST_MAX ((int64_t)1 << 20)  /* marked cells listed at most (beyond, the marks
                                             are scanned) */
/* The cost model's rates, seconds per element and thread before any flush ran:
   a pass reading and writing the image, one key added to one element, and a
   transform (per element and log2 of the size). */
#define RATE_PASS 1.5e-9
#define RATE_KEY 0.4e-9
#define RATE_FFT 1.0e-9
/* On a card: points buffered at most (pinned on the host, the keys' vectors made from
   them; mirrored on the card, summed into its grid as they come where the grid is
   expected): as many as the image's elements within these bounds; key vectors per
   pass (as many as 64 MiB of them hold, within a bound); a point's cost on the host,
   which the card's model adds to both ways. */
#define CARD_FOLD ((int64_t)1 << 22)
#define CARD_FOLD_MIN ((int64_t)1 << 12)
#define CARD_KEYS_MAX 256
#define RATE_POINT 2e-9
/* Adds on several threads: points per job, and threads at most. */
#define ADD_JOB 4096
#define ADD_THREADS 8
#define KEY_SAMPLE 256 /* points of a large add keyed before the way is decided */

struct X(stream_s) {
    int rank, sign, force, spift;
    int64_t n[3], total, nlast, rows, nkeyspace;
    C *image, *grid;
    C *acc;           /* the sum grid (NULL: the grid way adds; see the header) */
    int grid_host;    /* the pending grid is from malloc, not hfft_malloc */
    uint64_t *mark;   /* grid cells with a pending point, a bit each */
    int64_t ncell;    /* how many */
    int64_t *cellv;   /* the first ncap of them in the order marked: where ncell <= ncap a
                         flush visits them from here, not by scanning every mark (an image of
                         2^32 cells has 512 MiB of marks, a tenth of a second to scan) */
    int64_t ncap;
    uint8_t *keymark; /* pending keys */
    int64_t *keys;    /* their list, nkey of them */
    int64_t nkey;
    int64_t *slot;    /* key -> its place in keys */
    uint32_t *inv;    /* shift keys: the inverse of odd x modulo N at x / 2 (N up to 2^20) */
    double *tw[3];    /* exp(sign 2 pi i m / n_d), m < n_d (row keys) */
    int64_t lead[3];  /* a row key's stride along dimension d < rank - 1 */
    hfft__pool *pool;
    int threads;
    hfft__lines *line; /* one line of nlast points, in place, any alignment */
    X(plan) gridplan;
    double grid_fft;   /* the grid plan's own prediction, or 0 */
    double f_direct, f_grid; /* measured over predicted, by the last flushes */
    int64_t ndirect, ngrid;  /* flushes of each way */
    int64_t pending;   /* points added since the last flush */
    /* on a card (NULL card: the image stays in host memory) */
    const hfft__dev_ops *ops;
    hfft__dev *dev;
    hfft__dev *more[HFFT_MAX_CARDS]; /* the other cards that hold the image's parts */
    int nmore;
    hfft__image *card; /* the image held on the card (or the cards) */
    hfft__image *pass; /* or in host memory, passed through the card at direct flushes */
    hfft__place place; /* the image registered for the passes */
    double c_pass;     /* a pass's seconds, measured */
    int64_t pkeys;     /* key vectors per pass */
    int64_t *pcell;    /* points buffered since the last flush: cells, values */
    C *pval;
    int64_t npt, cappt;
    int64_t sent;      /* of which the card has (summed into its grid) */
    int64_t keyed;     /* of which the first have their keys marked: the others came once
                          the grid way was committed (shift keys; marked during the flush,
                          for the stats, while the card works) */
    int committed;     /* this flush goes by the grid (keys only grow until it) */
    int64_t fold;      /* points buffered at most (but where every flush goes direct) */
    int folded;        /* pending points in the card's grid already */
    int64_t ckeys;     /* key vectors per pass on the card */
    double c_grid, c_key0, c_key1; /* measured: a grid flush, a keys pass and one key */
    double c_out;      /* and the image's copy to host memory */
    int broken;        /* a card failed midway: the image is not known */
    int stale;         /* the sum grid's transform into the image failed: the next flush
                          runs it again (the points are in the sum grid) */
    int64_t *tlist[ADD_THREADS + 1], tn[ADD_THREADS + 1]; /* each add thread's keys marked
                                                             first (the last: the caller's,
                                                             the others made as needed) */
    hfft_stream_stats st;
};

/* ---- keys ---- */

static int is_pow2(int64_t n) { return n > 0 && (n & (n - 1)) == 0; }

/* The inverse of odd x modulo 2^64: (3 x) xor 2 is right to 5 bits, and each step of
   Newton's iteration doubles them. */
static uint64_t inv_odd(uint64_t x) {
    uint64_t y = (3 * x) ^ 2;
    for (int i = 0; i < 4; i++)
        y *= 2 - x * y;
    return y;
}

/* Point (u, v) of an N x N image, N a power of two: its key, column keys [0, N),
   row keys [N, 2N); *coef, where its value goes in the key's vector.  Without
   branches (random points would mispredict which type half the time): a zero
   index counts 63 trailing zeros, more than any index below N has. */
static int64_t shift_key(int64_t N, const uint32_t *inv, int64_t u, int64_t v, int64_t *coef) {
    uint64_t m = (uint64_t)N - 1, top = (uint64_t)1 << 63;
    int a = __builtin_ctzll((uint64_t)u | top), b = __builtin_ctzll((uint64_t)v | top);
    int col = b <= a; /* column key; (0, 0) too */
    uint64_t num = col ? (uint64_t)u : (uint64_t)v, den = col ? (uint64_t)v : (uint64_t)u;
    int sh = col ? b : a;
    uint64_t odd = ((den >> sh) | 1) & m;
    uint64_t t = ((num >> sh) * (inv ? inv[odd >> 1] : inv_odd(odd))) & m;
    *coef = col ? v : u;
    return (int64_t)t + (col ? 0 : N);
}

/* Cell `cell`'s key (its shift key, or its row) and, through *coef, its place in the
   key's vector. */
static int64_t cell_key(const X(stream) s, int64_t cell, int64_t *coef) {
    int64_t L = s->nlast;
    *coef = cell % L;
    return s->spift ? shift_key(L, s->inv, cell / L, cell % L, coef) : cell / L;
}

static int64_t mulmod(int64_t a, int64_t b, int64_t n) {
    return (int64_t)((unsigned __int128)a * (unsigned __int128)b % (unsigned __int128)n);
}

/* ---- the passes over the image, on the pool ---- */

typedef struct apply_ctx {
    X(stream) s;
    const C *vec;      /* the batch's key vectors, nlast points each */
    const int64_t *key; /* their keys */
    int64_t nk;
} apply_ctx;

/* Image rows [r0, r1) gain every key of the batch. */
static void apply_rows(void *arg, int64_t job, int thread) {
    (void)thread;
    const apply_ctx *a = arg;
    X(stream) s = a->s;
    int64_t L = s->nlast, r0 = job * ROWS_PER_JOB,
            r1 = r0 + ROWS_PER_JOB < s->rows ? r0 + ROWS_PER_JOB : s->rows;
    for (int64_t j = r0; j < r1; j++) {
        C *row = s->image + j * L;
        for (int64_t q = 0; q < a->nk; q++) {
            const C *v = a->vec + q * L;
            int64_t key = a->key[q];
            if (s->spift && key < L) { /* column key t: row j is v shifted left by t j */
                int64_t sh = (int64_t)(((uint64_t)key * (uint64_t)j) & (uint64_t)(L - 1));
                for (int64_t k = 0; k < L - sh; k++) {
                    row[k][0] += v[k + sh][0];
                    row[k][1] += v[k + sh][1];
                }
                for (int64_t k = L - sh; k < L; k++) {
                    row[k][0] += v[k + sh - L][0];
                    row[k][1] += v[k + sh - L][1];
                }
            } else if (s->spift) { /* row key t: element k takes v[j + t k] */
                uint64_t t = (uint64_t)(key - L), m = (uint64_t)L - 1, at = (uint64_t)j;
                for (int64_t k = 0; k < L; k++, at += t) {
                    row[k][0] += v[at & m][0];
                    row[k][1] += v[at & m][1];
                }
            } else { /* row key: the vector times the phase of (key, j) */
                double pr = 1, pi = 0;
                for (int d = 0; d < s->rank - 1; d++) {
                    int64_t id = key / s->lead[d] % s->n[d], jd = j / s->lead[d] % s->n[d];
                    const double *w = s->tw[d] + 2 * mulmod(id, jd, s->n[d]);
                    double r = pr * w[0] - pi * w[1];
                    pi = pr * w[1] + pi * w[0];
                    pr = r;
                }
                R cr = (R)pr, ci = (R)pi;
                for (int64_t k = 0; k < L; k++) {
                    R x = v[k][0], y = v[k][1];
                    row[k][0] += x * cr - y * ci;
                    row[k][1] += x * ci + y * cr;
                }
            }
        }
    }
}

/* Image rows [r0, r1) gain the transformed grid's, which are cleared. */
static void add_rows(void *arg, int64_t job, int thread) {
    (void)thread;
    X(stream) s = arg;
    int64_t L = s->nlast, r0 = job * ROWS_PER_JOB,
            r1 = r0 + ROWS_PER_JOB < s->rows ? r0 + ROWS_PER_JOB : s->rows;
    C *img = s->image + r0 * L, *g = s->grid + r0 * L;
    for (int64_t k = 0; k < (r1 - r0) * L; k++) {
        img[k][0] += g[k][0];
        img[k][1] += g[k][1];
    }
    memset(g, 0, (size_t)((r1 - r0) * L) * sizeof(C));
}

typedef struct fft_ctx {
    X(stream) s;
    C *vec;
} fft_ctx;

static void fft_vec(void *arg, int64_t job, int thread) {
    (void)thread;
    fft_ctx *f = arg;
    C *v = f->vec + job * f->s->nlast;
    hfft__lines_exec(f->s->line, v, v);
}

static int64_t jobs_of(int64_t rows) { return (rows + ROWS_PER_JOB - 1) / ROWS_PER_JOB; }

/* ---- the two ways ---- */

/* Clears the pending keys (the way that used them cleared their cells and marks). */
static void forget(X(stream) s) {
    for (int64_t q = 0; q < s->nkey; q++)
        s->keymark[s->keys[q]] = 0;
    s->nkey = 0;
    s->ncell = 0;
    s->pending = 0;
    s->npt = 0;
    s->sent = 0;
    s->keyed = 0;
    s->committed = 0;
    s->folded = 0;
}

/* Every marked cell, once, to fn (NULL: none), from the list where it holds them all,
   else from the marks; where `clear`, every mark cleared on the way (a listed cell's
   whole word: its word's other marks are listed too). */
static void each_marked(X(stream) s, void (*fn)(X(stream) s, int64_t cell, void *arg),
                        void *arg, int clear) {
    if (s->ncell <= s->ncap) {
        for (int64_t i = 0; i < s->ncell; i++) {
            if (fn)
                fn(s, s->cellv[i], arg);
            if (clear)
                s->mark[s->cellv[i] >> 6] = 0;
        }
        return;
    }
    int64_t words = (s->total + 63) / 64;
    for (int64_t w = 0; w < words; w++) {
        for (uint64_t bits = s->mark[w]; fn && bits; bits &= bits - 1)
            fn(s, w * 64 + __builtin_ctzll(bits), arg);
        if (clear)
            s->mark[w] = 0;
    }
}

/* Cells [a, b) unmarked. */
static void unmark(X(stream) s, int64_t a, int64_t b) {
    for (; a < b && (a & 63); a++)
        s->mark[a >> 6] &= ~((uint64_t)1 << (a & 63));
    if (b - a >= 64) {
        memset(s->mark + (a >> 6), 0, (size_t)((b - a) >> 6) * sizeof(uint64_t));
        a += (b - a) & ~(int64_t)63;
    }
    for (; a < b; a++)
        s->mark[a >> 6] &= ~((uint64_t)1 << (a & 63));
}

typedef struct into_ctx {
    C *vec;
    int64_t q0, nk;
} into_ctx;

/* A marked cell into its key's vector, where that key is one of [q0, q0 + nk). */
static void cell_into(X(stream) s, int64_t cell, void *arg) {
    const into_ctx *a = arg;
    C *vec = a->vec;
    int64_t L = s->nlast, coef, q = s->slot[cell_key(s, cell, &coef)] - a->q0;
    if (q < 0 || q >= a->nk)
        return;
    vec[q * L + coef][0] += s->grid[cell][0];
    vec[q * L + coef][1] += s->grid[cell][1];
}

/* The keys [q0, q0 + nk) of the list made into vec, transformed where `transform`. */
static void make_vectors(X(stream) s, C *vec, int64_t q0, int64_t nk, int transform) {
    int64_t L = s->nlast;
    memset(vec, 0, (size_t)(nk * L) * sizeof(C));
    if (!s->spift) { /* a row key's vector is its grid row */
        for (int64_t q = 0; q < nk; q++)
            memcpy(vec + q * L, s->grid + s->keys[q0 + q] * L, (size_t)L * sizeof(C));
    } else { /* the marked cells, each into its key's vector */
        into_ctx a = {vec, q0, nk};
        each_marked(s, cell_into, &a, 0);
    }
    if (!transform)
        return;
    fft_ctx f = {s, vec};
    hfft__pool_start(s->pool, nk, fft_vec, &f);
    hfft__pool_wait(s->pool);
}

static int pass_direct(X(stream) s);
static void clear_pending(X(stream) s);

static int flush_direct(X(stream) s) {
    if (s->pass)
        return pass_direct(s);
    int64_t L = s->nlast, kb = (int64_t)(KEY_BATCH_BYTES / ((size_t)L * sizeof(C)));
    kb = kb < 1 ? 1 : kb > s->nkey ? s->nkey : kb;
    C *vec = malloc((size_t)(kb * L) * sizeof(C));
    if (!vec)
        return hfft__fail(HFFT_ERR_HOST_MEMORY,
                          "hfft_stream_flush: out of host memory for %lld key vectors of %lld "
                          "points",
                          (long long)kb, (long long)L);
    for (int64_t q0 = 0; q0 < s->nkey; q0 += kb) {
        int64_t nk = s->nkey - q0 < kb ? s->nkey - q0 : kb;
        make_vectors(s, vec, q0, nk, 1);
        apply_ctx a = {s, vec, s->keys + q0, nk};
        hfft__pool_start(s->pool, jobs_of(s->rows), apply_rows, &a);
        hfft__pool_wait(s->pool);
    }
    free(vec);
    clear_pending(s);
    return 0;
}

/* A pending cell of the host grid back to zero; with the sum grid, added to it first. */
static void clear_cell(X(stream) s, int64_t cell, void *arg) {
    (void)arg;
    C *acc = s->acc;
    if (acc) {
        acc[cell][0] += s->grid[cell][0];
        acc[cell][1] += s->grid[cell][1];
    }
    s->grid[cell][0] = s->grid[cell][1] = 0;
}

/* The pending cells of the host grid back to zero, unmarked; with the sum grid, added
   to it first. */
static void clear_pending(X(stream) s) {
    int64_t L = s->nlast;
    C *acc = s->acc;
    if (s->spift) {
        each_marked(s, clear_cell, NULL, 1);
        return;
    }
    for (int64_t q = 0; q < s->nkey; q++) {
        C *g = s->grid + s->keys[q] * L;
        for (int64_t k = 0; acc && k < L; k++) {
            acc[s->keys[q] * L + k][0] += g[k][0];
            acc[s->keys[q] * L + k][1] += g[k][1];
        }
        memset(g, 0, (size_t)L * sizeof(C));
        unmark(s, s->keys[q] * L, (s->keys[q] + 1) * L);
    }
}

/* The grid way with the sum grid: the image becomes its transform. */
static int flush_sum(X(stream) s) {
    clear_pending(s); /* into the sum grid */
    int st = X(execute)(s->gridplan);
    s->stale = st != 0;
    if (st)
        return hfft__fail(st,
                          "hfft_stream_flush: the grid's transform into the image failed (%s); "
                          "the image is not known until a flush transforms the sum grid again "
                          "(every point is kept in it)",
                          hfft_last_error_message());
    hfft_info info;
    if (!X(plan_info)(s->gridplan, &info)) {
        s->st.link_bytes[0] = info.link_bytes[0];
        s->st.link_bytes[1] = info.link_bytes[1];
    }
    return 0;
}

static int flush_grid(X(stream) s) {
    if (s->acc)
        return flush_sum(s);
    int st = X(execute)(s->gridplan);
    each_marked(s, NULL, NULL, 1);
    if (st) {
        int64_t lost = s->pending;
        memset(s->grid, 0, (size_t)s->total * sizeof(C));
        return hfft__fail(st,
                          "hfft_stream_flush: the grid's transform failed (%s); the image is as "
                          "before and the %lld points pending are dropped",
                          hfft_last_error_message(), (long long)lost);
    }
    hfft__pool_start(s->pool, jobs_of(s->rows), add_rows, s);
    hfft__pool_wait(s->pool);
    hfft_info info;
    if (!X(plan_info)(s->gridplan, &info)) {
        s->st.link_bytes[0] = info.link_bytes[0];
        s->st.link_bytes[1] = info.link_bytes[1];
    }
    return 0;
}

/* ---- on a card ---- */

static void card_unroom(X(stream) s) {
    if (s->pcell)
        s->ops->host_free(s->dev, s->pcell);
    if (s->pval)
        s->ops->host_free(s->dev, s->pval);
    s->pcell = NULL;
    s->pval = NULL;
    s->cappt = 0;
}

static int card_broken(const char *call) {
    return hfft__fail(HFFT_ERR_INVALID_ARGUMENT,
                      "%s: an earlier failure left the stream's image unknown (the card's "
                      "copy, or rows of the host image already written); destroy the stream",
                      call);
}

/* The buffered points not yet sent, to the card's grid. */
static int card_send(X(stream) s) {
    int st = hfft__image_send(s->card, s->sent, s->npt - s->sent, s->pcell, s->pval);
    s->sent = s->npt;
    return st;
}

static void mark_rest(X(stream) s);

/* The buffer, full, into the card's grid, and emptied. */
static int card_fold(X(stream) s) {
    mark_rest(s);
    int st = card_send(s);
    if (!st)
        st = hfft__image_wait(s->card);
    s->npt = s->sent = s->keyed = 0;
    s->folded = 1;
    return st;
}

/* The phase tables of key q's row (row keys of rank > 1): exp(sign 2 pi i i_d j_d / n_d)
   for j_d < n_d, dimension after dimension but the last. */
static void card_tables(X(stream) s, int64_t key, R *tw) {
    for (int d = 0; d < s->rank - 1; d++) {
        int64_t id = key / s->lead[d] % s->n[d];
        for (int64_t j = 0; j < s->n[d]; j++, tw += 2) {
            const double *w = s->tw[d] + 2 * mulmod(id, j, s->n[d]);
            tw[0] = (R)w[0];
            tw[1] = (R)w[1];
        }
    }
}

static int card_direct(X(stream) s) {
    void *vecs, *tws;
    hfft__image_staging(s->card, &vecs, &tws);
    C *vec = vecs;
    R *tw = tws;
    int64_t L = s->nlast, twn = 0;
    for (int d = 0; d < s->rank - 1 && !s->spift; d++)
        twn += s->n[d];
    for (int64_t q0 = 0; q0 < s->nkey; q0 += s->ckeys) {
        int64_t nk = s->nkey - q0 < s->ckeys ? s->nkey - q0 : s->ckeys;
        memset(vec, 0, (size_t)(nk * L) * sizeof(C));
        for (int64_t p = 0; p < s->npt; p++) {
            int64_t coef, q = s->slot[cell_key(s, s->pcell[p], &coef)] - q0;
            if (q < 0 || q >= nk)
                continue;
            vec[q * L + coef][0] += s->pval[p][0];
            vec[q * L + coef][1] += s->pval[p][1];
        }
        for (int64_t q = 0; twn && q < nk; q++)
            card_tables(s, s->keys[q0 + q], tw + 2 * q * twn);
        TRY(hfft__image_keys(s->card, nk, s->keys + q0,
                             q0 + nk == s->nkey ? (void *)s->image : NULL));
    }
    return s->sent ? hfft__image_clear(s->card) : 0; /* points sent ahead, not needed */
}

/* A direct flush of the host image through the card: the vectors made here,
   transformed there, the image's rows passed through once per batch of keys. */
static int pass_direct(X(stream) s) {
    void *vecs, *tws;
    hfft__image_staging(s->pass, &vecs, &tws);
    int64_t twn = 0;
    for (int d = 0; d < s->rank - 1 && !s->spift; d++)
        twn += s->n[d];
    for (int64_t q0 = 0; q0 < s->nkey; q0 += s->pkeys) {
        int64_t nk = s->nkey - q0 < s->pkeys ? s->nkey - q0 : s->pkeys;
        make_vectors(s, vecs, q0, nk, 0);
        for (int64_t q = 0; twn && q < nk; q++)
            card_tables(s, s->keys[q0 + q], (R *)tws + 2 * q * twn);
        TRY(hfft__image_pass_keys(s->pass, nk, s->keys + q0, s->image, s->rows));
    }
    hfft__image_take_link(s->pass, s->st.link_bytes);
    clear_pending(s);
    return 0;
}

static int card_grid(X(stream) s) {
    TRY(card_send(s));
    TRY(hfft__image_grid_start(s->card, s->image));
    mark_rest(s); /* while the card works */
    return hfft__image_grid_end(s->card);
}

/* The card's rates: a grid flush, and keys passes of one key and of a full batch, each
   on nothing (the image gains zeros). */
static int card_measure(X(stream) s) {
    void *vecs, *tws;
    hfft__image_staging(s->card, &vecs, &tws);
    memset(vecs, 0, (size_t)(s->ckeys * s->nlast) * sizeof(C));
    int64_t twn = 0;
    for (int d = 0; d < s->rank - 1 && !s->spift; d++)
        twn += s->n[d];
    if (twn)
        memset(tws, 0, (size_t)(s->ckeys * twn) * sizeof(C));
    int64_t *keys = calloc((size_t)s->ckeys, sizeof(int64_t));
    if (!keys)
        return hfft__fail(HFFT_ERR_HOST_MEMORY, "hfft_stream_dft: out of host memory");
    double t0 = hfft__now();
    int st = hfft__image_grid(s->card, NULL);
    double t1 = hfft__now();
    if (!st)
        st = hfft__image_keys(s->card, 1, keys, NULL);
    double t2 = hfft__now();
    int64_t more = s->ckeys < 64 ? s->ckeys : 64; /* enough keys to leave memory-bound */
    if (!st)
        st = hfft__image_keys(s->card, more, keys, NULL);
    double t3 = hfft__now();
    free(keys);
    s->c_grid = t1 - t0;
    s->c_key1 = more > 1 ? ((t3 - t2) - (t2 - t1)) / (double)(more - 1) : 0;
    if (s->c_key1 < 0)
        s->c_key1 = 0;
    s->c_key0 = (t2 - t1) - s->c_key1;
    /* the copy out, from a part of the image as large as the points' pinned room */
    size_t part = (size_t)s->cappt * sizeof(int64_t), all = (size_t)s->total * sizeof(C);
    part = part < all ? part : all;
    double best = 0;
    for (int k = 0; k < 2 && !st; k++) {
        double t = hfft__now();
        st = hfft__image_peek(s->card, s->pcell, part);
        t = hfft__now() - t;
        best = !k || t < best ? t : best;
    }
    s->c_out = best * (double)all / (double)part;
    int64_t link[2];
    hfft__image_take_link(s->card, link);
    return st;
}

/* The model's seconds for a direct flush and a grid one of what is pending. */
static void predict(const X(stream) s, double *direct, double *grid) {
    if (s->card) {
        /* A flush's last step (the grid's add, or the last keys pass) hides under the
           image's copy out; the grid's add costs about a pass of one key. */
        double host = (double)s->npt * RATE_POINT;
        int64_t passes = (s->nkey + s->ckeys - 1) / s->ckeys;
        int64_t last = s->nkey - (passes - 1) * s->ckeys;
        double tail = s->c_key0 + (double)last * s->c_key1;
        *direct = (double)(passes - 1) * s->c_key0 + (double)(s->nkey - last) * s->c_key1 +
                  (tail > s->c_out ? tail : s->c_out) + host * (double)passes;
        *grid = (s->c_grid - s->c_key0 > 0 ? s->c_grid - s->c_key0 : 0) +
                (s->c_key0 > s->c_out ? s->c_key0 : s->c_out) + host;
        return;
    }
    /* in host memory: the grid's plan, then the threads' add; direct through the card
       (a measured pass per batch of keys) or on the threads */
    double per = (double)s->total / s->threads;
    double fft = s->grid_fft > 0 ? s->grid_fft : per * RATE_FFT * log2((double)s->total + 1);
    /* (with the sum grid: the pending cells folded, no pass over the image) */
    double fold = (double)(s->spift ? s->ncell : s->nkey * s->nlast) * RATE_POINT;
    *grid = !s->gridplan ? INFINITY : s->acc ? fft + fold : fft + per * RATE_PASS;
    if (s->pass)
        *direct = (double)((s->nkey + s->pkeys - 1) / s->pkeys) * s->c_pass +
                  (double)s->ncell * RATE_POINT;
    else
        *direct = per * (RATE_PASS + RATE_KEY * (double)s->nkey) +
                  (double)s->nkey * (double)s->nlast * log2((double)s->nlast + 1) * RATE_FFT /
                      s->threads;
}

/* A way's correction: its first flush's measured over predicted, then a running
   mean that halves the weight of each older flush. */
static void learn(double *f, int64_t *count, double measured, double predicted) {
    double r = predicted > 0 ? measured / predicted : 1;
    *f = *count ? 0.5 * *f + 0.5 * r : r;
    ++*count;
}

/* Room for `want` buffered points, pinned (the card copies them in as they are),
   growing by doubling; the points buffered stay. */
static int card_room(X(stream) s, int64_t want) {
    int64_t cap = s->cappt ? s->cappt : s->fold;
    while (cap < want)
        cap *= 2;
    void *c = NULL, *v = NULL;
    int st = s->ops->host_alloc(s->dev, &c, (size_t)cap * sizeof(int64_t));
    if (!st)
        st = s->ops->host_alloc(s->dev, &v, (size_t)cap * sizeof(C));
    if (st) {
        if (c)
            s->ops->host_free(s->dev, c);
        return hfft__fail(st, "hfft_stream_add: no pinned host memory for %lld points (%s)",
                          (long long)cap, hfft_last_error_message());
    }
    if (s->npt) {
        memcpy(c, s->pcell, (size_t)s->npt * sizeof(int64_t));
        memcpy(v, s->pval, (size_t)s->npt * sizeof(C));
    }
    card_unroom(s);
    s->pcell = c;
    s->pval = v;
    s->cappt = cap;
    return 0;
}

/* The image onto the cards the settings name, where it and its grid fit them and its
   dimension 0 can be cut between them (image.c), else onto the first; 0 with s->card
   set, or left NULL (the host path); or a failure. */
static int card_open(X(stream) s, int kind, hfft__settings *set) {
    if (kind == HFFT_DEVICE_CUDA && !hfft__cuda_usable())
        return hfft__fail(HFFT_ERR_NO_DEVICE,
                          hfft__device_ops(HFFT_DEVICE_CUDA)
                              ? "HFFT_DEVICE=cuda but no usable CUDA GPU was found"
                              : "HFFT_DEVICE=cuda but this hfft was built without CUDA");
    /* every card named (a card the backend lacks is an error whatever the shape), held
       where the image can be cut between them; else one card holds it: the first the
       settings name, else the current one (no context made on the others) */
    const hfft__dev_ops *ops = hfft__device_ops(kind);
    hfft__settings one = *set;
    if (one.ncard == 0) {
        one.card[0] = -1;
        one.ncard = 1;
    }
    hfft__dev *devs[HFFT_MAX_CARDS];
    int n = 0;
    TRY(hfft__devices_open(ops, &one, devs, &n));
    int64_t per = (int64_t)(KEY_BATCH_BYTES / ((size_t)s->nlast * sizeof(C)));
    s->ckeys = per < 1 ? 1 : per > CARD_KEYS_MAX ? CARD_KEYS_MAX : per;
    if (s->ckeys > s->nkeyspace)
        s->ckeys = s->nkeyspace;
    /* as many points as the image has elements, within bounds, before they are summed
       into the grid for good */
    s->fold = s->total < CARD_FOLD_MIN ? CARD_FOLD_MIN : s->total > CARD_FOLD ? CARD_FOLD : s->total;
    hfft__image_desc d = {PREC, s->sign, s->rank, s->spift, {1, 1, 1}, {1, 1, 1}, s->fold,
                          s->ckeys};
    for (int k = 0; k < s->rank; k++) {
        d.n[k] = s->n[k];
        d.lead[k] = s->lead[k];
    }
    int st = hfft__image_cards(ops, devs, n, &d, s->image, &s->card);
    if (st == 1 && n > 1) { /* not cut between them, or not fitting them: on the first */
        for (int k = 1; k < n; k++)
            ops->close(devs[k]);
        n = 1;
        st = hfft__image_create(ops, devs[0], &d, s->image, &s->card);
    }
    if (st == 1 && s->force != 2) {
        /* too large for the card: it stays in host memory and passes through the card
           at direct flushes, with as many key vectors as a quarter of the budget holds */
        int64_t avail = ops->budget(devs[0]) - ops->used(devs[0]) - ops->reserve(devs[0]);
        int64_t fit = avail / 4 / (int64_t)((size_t)s->nlast * sizeof(C));
        d.keys = fit < 1 ? 1 : fit < s->ckeys ? fit : s->ckeys;
        st = hfft__image_pass(ops, devs[0], &d, &s->pass);
        s->pkeys = d.keys;
    }
    if (st) {
        for (int k = 0; k < n; k++)
            ops->close(devs[k]);
        return st == 1 ? 0 : st;
    }
    s->ops = ops;
    s->dev = devs[0];
    s->nmore = n - 1;
    s->st.cards = n;
    for (int k = 0; k < n; k++) {
        s->st.card_ids[k] = ops->ordinal(devs[k]);
        if (k)
            s->more[k - 1] = devs[k];
    }
    /* the image registered, for the link's rate (an array from hfft_malloc is already);
       where the driver refuses, the copies run from pageable memory */
    s->place.ops = ops;
    s->place.dev = devs[0];
    size_t bytes = (size_t)s->total * sizeof(C);
    if (hfft__place_arrays(&s->place, s->image, bytes, s->image, bytes, HFFT_PINNING_REGISTER,
                           NULL, 0))
        hfft__clear_error();
    if (s->pass)
        return 0; /* measured once the host grid is there (pass_measure) */
    s->st.image_on_cards = 1;
    /* the points' room, whole now: its pages are pinned and touched here, not while
       points arrive */
    TRY(card_room(s, s->fold));
    return card_measure(s);
}

/* A pass's time: the first rows of a pinned host array the image's size (the sum
   grid, else the zero pending grid) passed through with one zero key vector (they
   gain zeros), then scaled to the image. */
static int pass_measure(X(stream) s) {
    void *vecs, *tws;
    hfft__image_staging(s->pass, &vecs, &tws);
    memset(vecs, 0, (size_t)s->nlast * sizeof(C));
    int64_t twn = 0, key = 0;
    for (int d = 0; d < s->rank - 1 && !s->spift; d++)
        twn += s->n[d];
    if (twn)
        memset(tws, 0, (size_t)twn * sizeof(C));
    int64_t rows = s->rows / 8 > 0 ? s->rows / 8 : 1;
    double t = hfft__now();
    TRY(hfft__image_pass_keys(s->pass, 1, &key, s->acc ? s->acc : s->grid, rows));
    s->c_pass = (hfft__now() - t) * (double)s->rows / (double)rows;
    int64_t link[2];
    hfft__image_take_link(s->pass, link);
    return 0;
}

/* Point p's cell, and its key through *key. */
static int64_t locate(X(stream) s, const int64_t *index, int64_t *key) {
    int64_t cell = 0, i[3] = {0, 0, 0};
    for (int d = 0; d < s->rank; d++) {
        int64_t x = index[d];
        if ((uint64_t)x >= (uint64_t)s->n[d]) { /* a division only where it is needed */
            x %= s->n[d];
            x += x < 0 ? s->n[d] : 0;
        }
        i[d] = x;
        cell = cell * s->n[d] + x;
    }
    int64_t coef;
    *key = s->spift ? shift_key(s->nlast, s->inv, i[0], i[1], &coef) : cell / s->nlast;
    return cell;
}

static void mark_key(X(stream) s, int64_t key) {
    if (!s->keymark[key]) {
        s->keymark[key] = 1;
        s->slot[key] = s->nkey;
        s->keys[s->nkey++] = key;
    }
}

/* Whether the flush will go by the grid as things stand (keys only grow until it). */
static int ahead(X(stream) s) {
    double pd, pg;
    predict(s, &pd, &pg);
    return pg * s->f_grid < pd * s->f_direct;
}

typedef struct add_ctx {
    X(stream) s;
    const int64_t *index;
    const C *value;
    int64_t base, count; /* the points go to the buffer from base on */
    int keys;            /* their keys marked too */
} add_ctx;

/* Whether this thread marks `key` first (then listed at *slot): a plain read first, as
   almost every key met is marked already. */
static inline int first_to_mark(uint8_t *mk, int64_t key, int64_t *slot) {
    if (__atomic_load_n(mk + key, __ATOMIC_RELAXED) ||
        __atomic_exchange_n(mk + key, 1, __ATOMIC_RELAXED))
        return 0;
    *slot = key;
    return 1;
}

/* Points [p0, p1) of an add into the buffer: their cells and values, and the keys
   this thread is the first to mark, into its list (a key is marked once). */
static void add_range(const add_ctx *a, int64_t p0, int64_t p1, int thread) {
    X(stream) s = a->s;
    uint8_t *mk = s->keymark;
    int64_t *list = s->tlist[thread], nl = s->tn[thread];
    int64_t *cells = s->pcell + a->base;
    C *vals = s->pval + a->base;
    const int64_t *ix = a->index;
    const C *val = a->value;
    if (s->spift) {
        /* N x N, N a power of two: an index modulo N is its low bits, negative ones
           too; the fields the loop needs held in locals (the stores would make the
           compiler read them again each point) */
        const int64_t N = s->nlast;
        const uint64_t m = (uint64_t)N - 1;
        const int lg = __builtin_ctzll((uint64_t)N);
        const uint32_t *inv = s->inv;
        for (int64_t p = p0; p < p1 && !a->keys; p++) {
            cells[p] = ((int64_t)((uint64_t)ix[2 * p] & m) << lg) |
                       (int64_t)((uint64_t)ix[2 * p + 1] & m);
            memcpy(vals[p], val[p], sizeof(C));
        }
        for (int64_t p = p0; p < p1 && a->keys; p++) {
            int64_t u = (int64_t)((uint64_t)ix[2 * p] & m);
            int64_t v = (int64_t)((uint64_t)ix[2 * p + 1] & m), coef;
            int64_t key = shift_key(N, inv, u, v, &coef);
            cells[p] = u << lg | v;
            memcpy(vals[p], val[p], sizeof(C));
            nl += first_to_mark(mk, key, list + nl);
        }
    } else {
        for (int64_t p = p0; p < p1; p++) {
            int64_t key;
            cells[p] = locate(s, ix + p * s->rank, &key);
            memcpy(vals[p], val[p], sizeof(C));
            nl += first_to_mark(mk, key, list + nl);
        }
    }
    s->tn[thread] = nl;
}

static void add_job(void *arg, int64_t job, int thread) {
    const add_ctx *a = arg;
    int64_t p0 = job * ADD_JOB, p1 = p0 + ADD_JOB < a->count ? p0 + ADD_JOB : a->count;
    add_range(a, p0, p1, thread);
}

/* count points into the buffer at npt (room made): on the pool's threads and this
   one where there are enough of them (and the workers' lists of keys could be made),
   else on this one; its list (the last) after the workers'. */
static void add_points(X(stream) s, int64_t count, const int64_t *index, const C *value) {
    int t = hfft__pool_size(s->pool), par = s->threads > 1 && count >= 2 * ADD_JOB;
    for (int k = 0; par && k < t; k++)
        if (!s->tlist[k] && !(s->tlist[k] = malloc((size_t)s->nkeyspace * sizeof(int64_t))))
            par = 0;
    int keys = !(s->spift && (s->committed || s->force == 2));
    add_ctx a = {s, index, value, s->npt, count, keys};
    if (par && hfft__pool_help(s->pool, (count + ADD_JOB - 1) / ADD_JOB, add_job, &a,
                               ADD_THREADS)) {
        hfft__clear_error(); /* (too many jobs: none started) */
        par = 0;
    }
    if (!par)
        add_range(&a, 0, count, ADD_THREADS);
    for (int k = par ? 0 : ADD_THREADS; k <= ADD_THREADS; k++) { /* keys marked first */
        if (k < ADD_THREADS && k >= t)
            continue;
        for (int64_t i = 0; i < s->tn[k]; i++) {
            s->slot[s->tlist[k][i]] = s->nkey;
            s->keys[s->nkey++] = s->tlist[k][i];
        }
        s->tn[k] = 0;
    }
    s->npt += count;
    if (keys)
        s->keyed = s->npt; /* (never after a skip: committed holds until the flush) */
}

/* The keys of the buffered points added without them. */
static void mark_rest(X(stream) s) {
    int64_t coef;
    for (int64_t p = s->keyed; p < s->npt; p++)
        mark_key(s, cell_key(s, s->pcell[p], &coef));
    s->keyed = s->npt;
}

/* Points onto the card path: buffered, and into the card's grid whenever the buffer
   is full (unless every flush goes direct, whose vectors are made from the buffer). */
static int card_add(X(stream) s, int64_t count, const int64_t *index, const C *value) {
    for (int64_t p0 = 0; p0 < count;) {
        int64_t room = s->force == 1 ? count - p0 : s->fold - s->npt;
        int64_t m = count - p0 < room ? count - p0 : room;
        if (s->npt + m > s->cappt) {
            int st = card_room(s, s->npt + m);
            if (st)
                return st;
        }
        int64_t k = m;
        if (s->spift && s->force == 0 && !s->committed && m > KEY_SAMPLE) {
            /* A large add's first points with their keys: if the grid is ahead with
               them and every point of the add counted, it stays ahead (the model
               grows with keys and points), so the rest skip theirs. */
            add_points(s, KEY_SAMPLE, index + p0 * s->rank, value + p0);
            s->npt += m - KEY_SAMPLE;
            s->committed = ahead(s);
            s->npt -= m - KEY_SAMPLE;
            k = m - KEY_SAMPLE;
        }
        add_points(s, k, index + (p0 + m - k) * s->rank, value + p0 + m - k);
        s->pending += m;
        s->st.points_added += m;
        p0 += m;
        int st = 0;
        if (s->npt >= s->fold && s->force != 1) {
            st = card_fold(s);
        } else if (s->force == 2 || (s->force == 0 && (s->committed || ahead(s)))) {
            s->committed = 1; /* the next points' keys wait for the flush */
            st = card_send(s); /* the card sums them while points go on arriving */
        }
        if (st) {
            s->broken = 1;
            return st;
        }
    }
    return 0;
}

static int card_flush(X(stream) s, double *secs) {
    double pd, pg;
    predict(s, &pd, &pg);
    int direct = !s->folded && !s->committed &&
                 (s->force == 1 || (s->force == 0 && pd * s->f_direct <= pg * s->f_grid));
    double t0 = hfft__now();
    int st = direct ? card_direct(s) : card_grid(s);
    *secs = hfft__now() - t0;
    if (st) {
        s->broken = 1;
        forget(s);
        return st;
    }
    /* the card's model is its own measurements (card_measure): nothing to learn */
    hfft__image_take_link(s->card, s->st.link_bytes);
    return direct ? HFFT_STREAM_BY_KEYS : HFFT_STREAM_BY_GRID;
}

/* ---- the sum grid ---- */

typedef struct sum_ctx {
    X(stream) s;
    int what;     /* 0: zero the sum grid; 1: see whether the image holds data; 2: scale
                     the sum grid by `scale` */
    R scale;
    int found;
} sum_ctx;

static void sum_rows(void *arg, int64_t job, int thread) {
    (void)thread;
    sum_ctx *a = arg;
    X(stream) s = a->s;
    int64_t L = s->nlast, r0 = job * ROWS_PER_JOB,
            r1 = r0 + ROWS_PER_JOB < s->rows ? r0 + ROWS_PER_JOB : s->rows, n = (r1 - r0) * L;
    C *acc = s->acc + r0 * L;
    const C *img = s->image + r0 * L;
    if (a->what == 0) {
        memset(acc, 0, (size_t)n * sizeof(C));
    } else if (a->what == 1) {
        for (int64_t k = 0; k < n && !__atomic_load_n(&a->found, __ATOMIC_RELAXED); k++)
            if (img[k][0] != 0 || img[k][1] != 0)
                __atomic_store_n(&a->found, 1, __ATOMIC_RELAXED);
    } else {
        for (int64_t k = 0; k < n; k++) {
            acc[k][0] *= a->scale;
            acc[k][1] *= a->scale;
        }
    }
}

static int sum_pass(X(stream) s, sum_ctx *a) {
    hfft__pool_start(s->pool, jobs_of(s->rows), sum_rows, a);
    hfft__pool_wait(s->pool);
    return a->found;
}

/*
 * The sum grid: zeros, or where the image holds data I0, I0's transform of the
 * other sign over the number of elements, so that the transform of the sum grid
 * is I0 plus that of every point added.  Where that transform fails, the stream
 * goes without the sum grid (the grid way then adds, and the pending grid is
 * pinned for it).  *held: the image holds data.
 */
static void sum_open(X(stream) s, unsigned pf, const hfft_options *opts, int *held) {
    sum_ctx a = {s, 0, 1, 0};
    sum_pass(s, &a);
    a.what = 1;
    *held = sum_pass(s, &a);
    if (!*held)
        return;
    X(plan) back = X(plan_dft)(s->rank, s->n, (X(complex) *)s->image, (X(complex) *)s->acc,
                               -s->sign, (pf & ~HFFT_MEASURE) | HFFT_ESTIMATE | HFFT_PRESERVE_INPUT,
                               opts);
    int st = back ? X(execute)(back) : -1;
    if (back)
        X(destroy_plan)(back);
    if (st) {
        hfft__clear_error();
        C *pinned = X(malloc)((size_t)s->total * sizeof(C));
        if (pinned) { /* the pending grid (zero) where the sum grid was */
            free(s->grid);
            s->grid = pinned;
            s->grid_host = 0;
            memset(s->grid, 0, (size_t)s->total * sizeof(C));
        }
        X(free)(s->acc);
        s->acc = NULL;
        if (!pinned)
            hfft__clear_error(); /* the grid's plan then registers the pending grid */
        return;
    }
    a.what = 2;
    a.scale = (R)(1.0 / (double)s->total);
    sum_pass(s, &a);
}

/* ---- the public functions ---- */

X(stream) X(stream_dft)(int rank, const int64_t *n, X(complex) *image, int sign,
                        unsigned flags, const hfft_options *opts) {
    if (rank < 1 || rank > 3 || !n) {
        hfft__fail(HFFT_ERR_INVALID_ARGUMENT, "hfft_stream_dft: rank %d (1 to 3, with sizes)",
                   rank);
        return NULL;
    }
    if (!image) {
        hfft__fail(HFFT_ERR_INVALID_ARGUMENT, "hfft_stream_dft: the image is NULL");
        return NULL;
    }
    if (sign != HFFT_FORWARD && sign != HFFT_BACKWARD) {
        hfft__fail(HFFT_ERR_INVALID_ARGUMENT, "hfft_stream_dft: sign %d (FORWARD or BACKWARD)",
                   sign);
        return NULL;
    }
    if ((flags & HFFT_STREAM_DIRECT) && (flags & HFFT_STREAM_GRID)) {
        hfft__fail(HFFT_ERR_INVALID_ARGUMENT,
                   "hfft_stream_dft: HFFT_STREAM_DIRECT and HFFT_STREAM_GRID together");
        return NULL;
    }
    int64_t total = 1;
    for (int d = 0; d < rank; d++)
        if (n[d] < 1 || hfft__mul_overflows(total, n[d], &total) ||
            total > INT64_MAX / (int64_t)sizeof(C)) {
            hfft__fail(HFFT_ERR_INVALID_ARGUMENT,
                       "hfft_stream_dft: size %lld of dimension %d (positive, the image's "
                       "bytes within 64 bits)",
                       (long long)n[d], d);
            return NULL;
        }
    hfft__settings set;
    if (hfft__settings_resolve(opts, &set))
        return NULL;
    X(stream) s = calloc(1, sizeof *s);
    if (!s) {
        hfft__fail(HFFT_ERR_HOST_MEMORY, "hfft_stream_dft: out of host memory");
        return NULL;
    }
    s->rank = rank;
    s->sign = sign;
    s->force = flags & HFFT_STREAM_DIRECT ? 1 : flags & HFFT_STREAM_GRID ? 2 : 0;
    for (int d = 0; d < rank; d++)
        s->n[d] = n[d];
    s->total = total;
    s->nlast = n[rank - 1];
    s->rows = total / s->nlast;
    s->image = (C *)image;
    s->spift = rank == 2 && n[0] == n[1] && is_pow2(n[0]) && n[0] > 1;
    s->nkeyspace = s->spift ? 2 * n[0] : s->rows;
    s->threads = set.threads > 0 ? set.threads : hfft__cores();
    s->st.rank = rank;
    for (int d = 0; d < rank; d++)
        s->st.n[d] = n[d];
    s->st.shift_keys = s->spift;
    s->st.threads = s->threads;
    int st = 0;
    s->keymark = calloc((size_t)s->nkeyspace, 1);
    s->keys = malloc((size_t)s->nkeyspace * sizeof(int64_t));
    s->slot = malloc((size_t)s->nkeyspace * sizeof(int64_t));
    if (!s->keymark || !s->keys || !s->slot)
        st = hfft__fail(HFFT_ERR_HOST_MEMORY, "hfft_stream_dft: out of host memory for %lld keys",
                        (long long)s->nkeyspace);
    if (!st && s->spift && n[0] <= INV_TABLE_MAX) { /* a load instead of a chain of products */
        s->inv = malloc((size_t)(n[0] / 2) * sizeof(uint32_t));
        for (int64_t x = 0; s->inv && x < n[0] / 2; x++)
            s->inv[x] = (uint32_t)(inv_odd((uint64_t)(2 * x + 1)) & (uint64_t)(n[0] - 1));
    }
    int64_t lead = 1;
    for (int d = rank - 2; d >= 0; d--) {
        s->lead[d] = lead;
        lead *= n[d];
    }
    for (int d = 0; !st && !s->spift && d < rank - 1; d++) {
        s->tw[d] = malloc((size_t)(2 * n[d]) * sizeof(double));
        if (!s->tw[d]) {
            st = hfft__fail(HFFT_ERR_HOST_MEMORY, "hfft_stream_dft: out of host memory");
            break;
        }
        for (int64_t m = 0; m < n[d]; m++)
            hfft__twiddle(m, n[d], sign, &s->tw[d][2 * m], &s->tw[d][2 * m + 1]);
    }
    s->f_direct = s->f_grid = 1;
    /* on a card where the image and its grid fit one, else in host memory */
    int kind = flags & HFFT_CPU_ONLY ? HFFT_DEVICE_NONE : set.device;
    if (kind == HFFT_DEVICE_AUTO)
        kind = hfft__cuda_usable() ? HFFT_DEVICE_CUDA : HFFT_DEVICE_NONE;
    if (!st && kind != HFFT_DEVICE_NONE)
        st = card_open(s, kind, &set);
    if (!st && !s->card) {
        /* the sum grid, pinned for the grid's transform, where the host has room; the
           pending grid then only the host's (else pinned: transformed in place) */
        if (s->force != 1 && !(s->acc = X(malloc)((size_t)total * sizeof(C))))
            hfft__clear_error();
        s->grid_host = s->acc != NULL;
        s->grid = s->acc ? malloc((size_t)total * sizeof(C))
                         : (C *)X(malloc)((size_t)total * sizeof(C));
        if (s->acc && !s->grid) { /* no room for both: the pending grid alone, pinned */
            X(free)(s->acc);
            s->acc = NULL;
            s->grid_host = 0;
            s->grid = X(malloc)((size_t)total * sizeof(C));
        }
        s->mark = calloc((size_t)((total + 63) / 64), sizeof(uint64_t));
        s->ncap = (total + 63) / 64 < CELL_LIST_MAX ? (total + 63) / 64 : CELL_LIST_MAX;
        s->cellv = malloc((size_t)s->ncap * sizeof(int64_t));
        if (!s->grid || !s->mark || !s->cellv)
            st = hfft__fail(HFFT_ERR_HOST_MEMORY,
                            "hfft_stream_dft: out of host memory for the pending grid (%s) "
                            "and its marks",
                            hfft__bytes_text((double)total * sizeof(C)).s);
    }
    if (!st && s->card) {
        /* the adds' threads beside the caller's (the settings' count in all), and the
           caller's list of keys (the workers' are made at the first add they take) */
        int w = s->threads - 1 > ADD_THREADS ? ADD_THREADS : s->threads - 1;
        st = hfft__pool_create(w < 1 ? 1 : w, 0, &s->pool);
        if (!st && !(s->tlist[ADD_THREADS] = malloc((size_t)s->nkeyspace * sizeof(int64_t))))
            st = hfft__fail(HFFT_ERR_HOST_MEMORY, "hfft_stream_dft: out of host memory");
    }
    if (s->card)
        goto made;
    if (!st)
        memset(s->grid, 0, (size_t)total * sizeof(C));
    if (!st)
        st = hfft__pool_create(s->threads, 0, &s->pool);
    unsigned pf = flags & (HFFT_CPU_ONLY | HFFT_GPU_ONLY | HFFT_HYBRID | HFFT_MEASURE |
                           HFFT_ESTIMATE | HFFT_SCHEDULE_PLAIN | HFFT_SCHEDULE_RADIX2);
    int held = 0; /* the image began with data (not all zeros) */
    if (!st && s->acc)
        sum_open(s, pf, opts, &held);
    if (!st && s->pass)
        st = pass_measure(s);
    if (!st) {
        hfft__lines_desc d = {0};
        d.prec = PREC;
        d.rank = 1;
        d.sign = sign;
        d.kind = HFFT__C2C;
        d.n[0] = s->nlast;
        d.is = d.os = 1;
        d.howmany = 1;
        d.idist = d.odist = s->nlast;
        d.inplace = 1;
        d.fftw_flags = hfft__fftw_estimate() | hfft__fftw_unaligned();
        st = hfft__lines_plan(&d, &s->line);
    }
    if (!st && s->force != 1) {
        /* the grid's transform: hfft's own plan, from the sum grid into the image
           (planned without trial executes where the image holds data: they would
           write it), or in place on the pending grid */
        if (s->acc)
            s->gridplan = X(plan_dft)(rank, n, (X(complex) *)s->acc, image, sign,
                                      (held ? (pf & ~HFFT_MEASURE) | HFFT_ESTIMATE : pf) |
                                          HFFT_PRESERVE_INPUT,
                                      opts);
        else
            s->gridplan = X(plan_dft)(rank, n, (X(complex) *)s->grid, (X(complex) *)s->grid,
                                      sign, pf, opts);
        if (!s->gridplan) {
            st = hfft_last_error();
        } else {
            hfft_info info;
            st = X(plan_info)(s->gridplan, &info);
            if (!st) {
                double fft = 0;
                for (int h = 0; h < info.rounds && h < HFFT_MAX_ROUNDS; h++)
                    fft += info.predicted_seconds[h];
                s->grid_fft = fft;
                s->st.cards = info.cards;
                memcpy(s->st.card_ids, info.card_ids, sizeof info.card_ids);
                if (!s->acc)
                    memset(s->grid, 0, (size_t)total * sizeof(C)); /* MEASURE wrote it */
            }
        }
    }
made:
    if (st) {
        X(stream_destroy)(s);
        return NULL;
    }
    return s;
}

X(stream) X(stream_2d)(int n0, int n1, X(complex) *image, int sign, unsigned flags) {
    int64_t n[2] = {n0, n1};
    return X(stream_dft)(2, n, image, sign, flags, NULL);
}

int X(stream_add)(X(stream) s, int64_t count, const int64_t *index, const X(complex) *value) {
    if (!s)
        return hfft__fail(HFFT_ERR_INVALID_ARGUMENT, "hfft_stream_add: the stream is NULL");
    if (count < 0 || (count > 0 && (!index || !value)))
        return hfft__fail(HFFT_ERR_INVALID_ARGUMENT,
                          "hfft_stream_add: %lld points with index %s and value %s (count >= "
                          "0, arrays not NULL)",
                          (long long)count, index ? "given" : "NULL", value ? "given" : "NULL");
    if (s->broken)
        return card_broken("hfft_stream_add");
    double t0 = hfft__now();
    if (s->card) {
        int st = card_add(s, count, index, (const C *)value);
        s->st.add_seconds += hfft__now() - t0;
        return st;
    }
    for (int64_t p = 0; p < count; p++) {
        int64_t key, cell = locate(s, index + p * s->rank, &key);
        uint64_t bit = (uint64_t)1 << (cell & 63);
        if (!(s->mark[cell >> 6] & bit)) {
            s->mark[cell >> 6] |= bit;
            if (s->ncell < s->ncap)
                s->cellv[s->ncell] = cell;
            s->ncell++;
        }
        s->grid[cell][0] += value[p][0];
        s->grid[cell][1] += value[p][1];
        mark_key(s, key);
    }
    s->pending += count;
    s->st.points_added += count;
    s->st.add_seconds += hfft__now() - t0;
    return 0;
}

int X(stream_flush)(X(stream) s) {
    if (!s)
        return hfft__fail(HFFT_ERR_INVALID_ARGUMENT, "hfft_stream_flush: the stream is NULL");
    if (s->broken)
        return card_broken("hfft_stream_flush");
    if (!s->pending && !s->stale)
        return 0;
    int64_t keys = s->nkey, points = s->pending;
    if (s->card) {
        double secs;
        int way = card_flush(s, &secs);
        if (way < 0)
            return way;
        keys = s->nkey; /* the keys of every point (some marked during the flush) */
        forget(s);
        s->st.points_applied = s->st.points_added;
        s->st.flushes++;
        s->st.last_strategy = way;
        s->st.last_keys = keys;
        s->st.last_points = points;
        s->st.last_seconds = secs;
        s->st.flush_seconds += secs;
        return 0;
    }
    double pd, pg;
    predict(s, &pd, &pg);
    int direct = !s->stale && (s->force == 1 ||
                               (s->force == 0 && pd * s->f_direct <= pg * s->f_grid));
    double t0 = hfft__now();
    s->st.link_bytes[0] = s->st.link_bytes[1] = 0;
    int st = direct ? flush_direct(s) : flush_grid(s);
    double secs = hfft__now() - t0;
    if (st && direct && !s->pass)
        return st; /* nothing changed: the points stay pending */
    if (st && direct)
        s->broken = 1; /* rows that passed through the card before it failed have changed */
    forget(s);
    if (st)
        return st;
    if (direct)
        learn(&s->f_direct, &s->ndirect, secs, pd);
    else
        learn(&s->f_grid, &s->ngrid, secs, pg);
    s->st.points_applied = s->st.points_added;
    s->st.flushes++;
    s->st.last_strategy = direct ? HFFT_STREAM_BY_KEYS : HFFT_STREAM_BY_GRID;
    s->st.last_keys = keys;
    s->st.last_points = points;
    s->st.last_seconds = secs;
    s->st.flush_seconds += secs;
    return 0;
}

int X(stream_info)(X(stream) s, hfft_stream_stats *stats) {
    if (!s || !stats)
        return hfft__fail(HFFT_ERR_INVALID_ARGUMENT, "hfft_stream_info: %s is NULL",
                          s ? "the stats" : "the stream");
    *stats = s->st;
    return 0;
}

void X(stream_destroy)(X(stream) s) {
    if (!s)
        return;
    if (s->gridplan)
        X(destroy_plan)(s->gridplan);
    if (s->line)
        hfft__lines_destroy(s->line);
    if (s->pool)
        hfft__pool_destroy(s->pool);
    hfft__image_destroy(s->card); /* waits for points in flight from the buffer */
    hfft__image_destroy(s->pass);
    if (s->dev) {
        card_unroom(s);
        hfft__place_release(&s->place);
        for (int k = 0; k < s->nmore; k++)
            s->ops->close(s->more[k]);
        s->ops->close(s->dev);
    }
    for (int d = 0; d < 3; d++)
        free(s->tw[d]);
    for (int k = 0; k <= ADD_THREADS; k++)
        free(s->tlist[k]);
    if (s->grid_host)
        free(s->grid); /* only the host's beside the sum grid */
    else
        X(free)(s->grid);
    X(free)(s->acc);
    free(s->mark);
    free(s->cellv);
    free(s->keymark);
    free(s->inv);
    free(s->keys);
    free(s->slot);
    free(s);
}
