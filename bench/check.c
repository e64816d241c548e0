/*
 * check.c: hfft-check, correctness under load rather than speed.
 *
 *   hfft-check random [--count N] [--seed S] [--device cpu|emulated|cuda] [--cards K]
 *     N random problems (default 500) from seed S (default 1): rank 1-3 with
 *     sizes that include primes, odd lengths and ones, c2c, r2c, c2r and r2r (a
 *     random FFTW kind per dimension), batches,
 *     in and out of place, dense, padded, transposed and reversed (negative
 *     stride) layouts, interleaved and split arrays; on the emulated device (1 to
 *     K cards, default 4, budgets of 4-256 KiB) or a GPU also each placement
 *     (automatic, GPU only, hybrid) and schedule, and now and then a dense 2D or
 *     3D array streamed GPU-only over 2 to K cards whose budgets together hold
 *     a quarter to three quarters of it (what each card keeps between the
 *     rounds read card to card).  Each result is compared with
 *     FFTW in long double over the output layout (relative RMS at most 5e-7 in
 *     single precision, 5e-16 in double), the input must be as the transform
 *     promises, and nothing outside the output layout may change.  A plan may be
 *     refused only with the statuses its placement allows (a layout or budget
 *     the GPU engine does not take).  --verbose prints each problem before it
 *     runs, then its error and where it ran; --from I starts at problem I of the
 *     seed's sequence (to repeat one).
 *
 *   hfft-check threads [--threads T] [--executes N] [--device ...] [--cards K]
 *                      [--budget BYTES] [--mode auto|gpu|hybrid] [PROBLEM]
 *     FFTW's threaded idiom: one plan (default 2d:128x128:f32, in place and out
 *     of place), and T threads (default 8) each executing it on arrays of its
 *     own with hfft_execute_dft, N executes in all (default 1000), each checked
 *     against that thread's reference.
 *
 * Exit status 0 when every check held, 1 otherwise, 2 on a usage error.
 */
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hfft.h"
#include "ref.h"

enum { C2C, R2C, C2R, R2R };
#define MAXD 8

static uint64_t rng_next(uint64_t *s) {
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}
static int64_t rnd(uint64_t *s, int64_t n) { return (int64_t)(rng_next(s) % (uint64_t)n); }
static int chance(uint64_t *s, int percent) { return rnd(s, 100) < percent; }

/* ---- one random problem ---- */

typedef struct problem {
    int prec, kind, sign, rank, hrank, inplace, split;
    int r2r[MAXD]; /* R2R: each dimension's hfft_r2r_kind */
    hfft_iodim dims[MAXD], hdims[MAXD];
    unsigned flags;
    int device, cards, threads;
    int64_t budget;
    double ratio;
} problem;

/* Sizes with primes, odd lengths and ones among them. */
static int64_t pick_size(uint64_t *s) {
    static const int64_t sizes[] = {1,  2,  3,  4,  5,  6,  7,  8,  9,   11,  12,  13,  15,  16,
                                    17, 19, 23, 24, 27, 29, 31, 32, 37,  41,  45,  48,  53,  60,
                                    64, 97, 100, 101, 127, 128, 243, 256, 257, 509, 1009, 1024};
    int64_t n = sizes[rnd(s, sizeof sizes / sizeof sizes[0])];
    return n;
}

/* The extent of dimension k on a side: the halved one of a real kind's complex side. */
static int64_t extent(const problem *p, int k, int out) {
    int complex_side = p->kind == C2C || p->kind == (out ? R2C : C2R);
    const hfft_iodim *d = k < p->rank ? &p->dims[k] : &p->hdims[k - p->rank];
    return p->kind != C2C && k == p->rank - 1 && complex_side ? d->n / 2 + 1 : d->n;
}

/*
 * Strides of one side: the dimensions laid out in an order (row-major, or a
 * random one), each with a little padding now and then; dims[k] gets them in
 * `is` (side 0) or `os` (side 1).  keep_last: the halved dimension of a real
 * kind stays innermost with stride 1 (FFTW's padded layout in place).
 */
static void lay_out(problem *p, uint64_t *s, int out, int shuffle, int pad, int keep_last,
                    int64_t *strides) {
    int nd = p->rank + p->hrank, order[2 * MAXD];
    /* row-major: the vector dimensions outermost, then the transform ones */
    for (int i = 0; i < p->hrank; i++)
        order[i] = p->rank + i;
    for (int i = 0; i < p->rank; i++)
        order[p->hrank + i] = i;
    if (shuffle)
        for (int i = nd - 1; i > 0; i--) {
            int j = (int)rnd(s, i + 1), t = order[i];
            order[i] = order[j];
            order[j] = t;
        }
    if (keep_last)
        for (int i = 0; i < nd; i++)
            if (order[i] == p->rank - 1) {
                order[i] = order[nd - 1];
                order[nd - 1] = p->rank - 1;
            }
    int64_t st = 1;
    for (int i = nd - 1; i >= 0; i--) {
        int k = order[i];
        strides[k] = st;
        st *= extent(p, k, out) + (pad && chance(s, 30) ? rnd(s, 3) + 1 : 0);
    }
}

/* A dense row-major c2c array of 2D or 3D, GPU-only over 2 to maxcards cards whose
   budgets together hold 2/8 to 6/8 of it: the cards stream it, each keeping what its
   budget leaves room for between the rounds (four-step out of place, columns in
   place), which the next round on every card reads card to card. */
static void over_cards(problem *p, uint64_t *s, int maxcards) {
    static const int64_t shapes[][3] = {
        {128, 256, 0}, {64, 384, 0}, {256, 96, 0}, {96, 128, 0}, {16, 24, 64}, {32, 32, 24}};
    const int64_t *n = shapes[rnd(s, sizeof shapes / sizeof shapes[0])];
    p->kind = C2C;
    p->rank = n[2] ? 3 : 2;
    p->hrank = 0;
    p->split = 0;
    int64_t total = 1, is[2 * MAXD];
    for (int i = 0; i < p->rank; i++)
        total *= p->dims[i].n = n[i];
    lay_out(p, s, 0, 0, 0, 0, is);
    for (int i = 0; i < p->rank; i++)
        p->dims[i].is = p->dims[i].os = is[i];
    p->inplace = chance(s, 40);
    p->cards = 2 + (int)rnd(s, maxcards - 1);
    p->budget = total * 2 * p->prec * (2 + (int64_t)rnd(s, 5)) / 8 / p->cards;
    p->flags = HFFT_GPU_ONLY;
    p->ratio = 0;
}

static void draw(problem *p, uint64_t *s, int device, int maxcards) {
    memset(p, 0, sizeof *p);
    p->prec = chance(s, 50) ? 4 : 8;
    int k = (int)rnd(s, 5);
    p->kind = k < 2 ? C2C : k == 2 ? R2C : k == 3 ? C2R : R2R;
    p->sign = chance(s, 50) ? HFFT_FORWARD : HFFT_BACKWARD;
    p->rank = 1 + (int)rnd(s, 3);
    p->hrank = chance(s, 60) ? 0 : 1 + (int)rnd(s, 2);
    int64_t total;
    do {
        total = 1;
        for (int i = 0; i < p->rank; i++)
            total *= p->dims[i].n = pick_size(s);
        for (int i = 0; i < p->hrank; i++)
            total *= p->hdims[i].n = 1 + rnd(s, 6);
    } while (total > (1 << 15));
    for (int i = 0; p->kind == R2R && i < p->rank; i++) /* REDFT00 needs two points */
        do
            p->r2r[i] = (int)rnd(s, HFFT_RODFT11 + 1);
        while (p->r2r[i] == HFFT_REDFT00 && p->dims[i].n < 2);
    int nd = p->rank + p->hrank;
    int dense = chance(s, 50);
    p->inplace = chance(s, 40);
    p->split = p->kind != R2R && chance(s, 15);
    int64_t is[2 * MAXD], os[2 * MAXD];
    int halved = p->kind == R2C || p->kind == C2R;
    if (p->inplace && halved) {
        /* FFTW's padded layout: the complex side's strides, the real side's twice
           them but along the halved dimension */
        int64_t cs[2 * MAXD];
        lay_out(p, s, p->kind == R2C, !dense && chance(s, 50), !dense, 1, cs);
        for (int i = 0; i < nd; i++) {
            int64_t r = i == p->rank - 1 ? 1 : 2 * cs[i];
            is[i] = p->kind == R2C ? r : cs[i];
            os[i] = p->kind == R2C ? cs[i] : r;
        }
        p->split = 0;
    } else {
        int shuffle = !dense && chance(s, 50), pad = !dense;
        lay_out(p, s, 0, shuffle, pad, 0, is);
        if (p->inplace)
            memcpy(os, is, sizeof os);
        else
            lay_out(p, s, 1, !dense && chance(s, 50), pad, 0, os);
        if (p->inplace)
            p->split = 0; /* in-place split layouts are checked in test_errors */
    }
    /* reversed dimensions (negative strides), on one side or both */
    for (int i = 0; i < nd; i++) {
        int flip = !dense && chance(s, 15) && !(p->inplace && halved && i == p->rank - 1);
        hfft_iodim *d = i < p->rank ? &p->dims[i] : &p->hdims[i - p->rank];
        d->is = flip ? -is[i] : is[i];
        d->os = flip && (p->inplace || chance(s, 70)) ? -os[i] : os[i];
    }
    if (p->kind == C2R && !p->inplace && chance(s, 50))
        p->flags |= HFFT_PRESERVE_INPUT;
    p->device = device;
    p->budget = 0;
    p->cards = 1;
    if (device != HFFT_DEVICE_NONE) {
        p->cards = 1 + (int)rnd(s, maxcards);
        if (device == HFFT_DEVICE_EMULATED)
            p->budget = (int64_t)(4 + rnd(s, 253)) << 10;
        else if (chance(s, 50))
            p->budget = (int64_t)(64 + rnd(s, 960)) << 10;
        int place = (int)rnd(s, 6);
        if (place == 1)
            p->flags |= HFFT_GPU_ONLY;
        else if (place == 2)
            p->flags |= HFFT_HYBRID;
        else if (place == 3)
            p->ratio = 0.2 + 0.6 * (double)rnd(s, 100) / 100.0;
        if (chance(s, 15))
            p->flags |= chance(s, 50) ? HFFT_SCHEDULE_PLAIN : HFFT_SCHEDULE_RADIX2;
    }
    if (chance(s, 10))
        p->flags |= HFFT_MEASURE;
    p->threads = 1 + (int)rnd(s, 2);
    if (device != HFFT_DEVICE_NONE && maxcards >= 2 && chance(s, 8))
        over_cards(p, s, maxcards);
}

static void describe(const problem *p, char *buf, size_t size) {
    static const char *kinds[] = {"c2c", "r2c", "c2r", "r2r"};
    int at = snprintf(buf, size, "%s f%d %s%s%s dims", kinds[p->kind], 8 * p->prec,
                      p->inplace ? "in place" : "out of place", p->split ? " split" : "",
                      p->kind == C2C ? (p->sign < 0 ? " forward" : " backward") : "");
    for (int k = 0; k < p->rank && at < (int)size; k++)
        at += snprintf(buf + at, size - (size_t)at, " %" PRId64 ":%" PRId64 ":%" PRId64,
                       p->dims[k].n, p->dims[k].is, p->dims[k].os);
    for (int k = 0; p->kind == R2R && k < p->rank && at < (int)size; k++)
        at += snprintf(buf + at, size - (size_t)at, "%s%d", k ? "," : " kinds ", p->r2r[k]);
    if (p->hrank && at < (int)size)
        at += snprintf(buf + at, size - (size_t)at, " batch");
    for (int k = 0; k < p->hrank && at < (int)size; k++)
        at += snprintf(buf + at, size - (size_t)at, " %" PRId64 ":%" PRId64 ":%" PRId64,
                       p->hdims[k].n, p->hdims[k].is, p->hdims[k].os);
    if (at < (int)size)
        snprintf(buf + at, size - (size_t)at, " flags 0x%x cards %d budget %" PRId64 " ratio %g",
                 p->flags, p->cards, p->budget, p->ratio);
}

/* Lowest and highest element offsets of a side's layout. */
static void reach(const problem *p, int out, int64_t *lo, int64_t *hi) {
    *lo = *hi = 0;
    for (int k = 0; k < p->rank + p->hrank; k++) {
        const hfft_iodim *d = k < p->rank ? &p->dims[k] : &p->hdims[k - p->rank];
        int64_t r = (extent(p, k, out) - 1) * (out ? d->os : d->is);
        if (r < 0)
            *lo += r;
        else
            *hi += r;
    }
}

static void *plan_of(const problem *p, void *const in[2], void *const out[2],
                     const hfft_options *o) {
    int r = p->rank, hr = p->hrank;
    const hfft_iodim *d = p->dims, *h = p->hdims;
    unsigned f = p->flags;
    hfft_r2r_kind k[MAXD];
    for (int i = 0; i < r; i++)
        k[i] = (hfft_r2r_kind)p->r2r[i];
    if (p->kind == R2R)
        return p->prec == 4 ? (void *)hfftf_plan_guru_r2r(r, d, hr, h, in[0], out[0], k, f, o)
                            : (void *)hfft_plan_guru_r2r(r, d, hr, h, in[0], out[0], k, f, o);
    if (p->prec == 4) {
        if (p->kind == C2C)
            return p->split ? (void *)hfftf_plan_guru_split_dft(r, d, hr, h, in[0], in[1], out[0],
                                                                out[1], f, o)
                            : (void *)hfftf_plan_guru_dft(r, d, hr, h, in[0], out[0], p->sign, f,
                                                          o);
        if (p->kind == R2C)
            return p->split ? (void *)hfftf_plan_guru_split_dft_r2c(r, d, hr, h, in[0], out[0],
                                                                    out[1], f, o)
                            : (void *)hfftf_plan_guru_dft_r2c(r, d, hr, h, in[0], out[0], f, o);
        return p->split ? (void *)hfftf_plan_guru_split_dft_c2r(r, d, hr, h, in[0], in[1], out[0],
                                                                f, o)
                        : (void *)hfftf_plan_guru_dft_c2r(r, d, hr, h, in[0], out[0], f, o);
    }
    if (p->kind == C2C)
        return p->split ? (void *)hfft_plan_guru_split_dft(r, d, hr, h, in[0], in[1], out[0],
                                                           out[1], f, o)
                        : (void *)hfft_plan_guru_dft(r, d, hr, h, in[0], out[0], p->sign, f, o);
    if (p->kind == R2C)
        return p->split ? (void *)hfft_plan_guru_split_dft_r2c(r, d, hr, h, in[0], out[0], out[1],
                                                               f, o)
                        : (void *)hfft_plan_guru_dft_r2c(r, d, hr, h, in[0], out[0], f, o);
    return p->split ? (void *)hfft_plan_guru_split_dft_c2r(r, d, hr, h, in[0], in[1], out[0], f,
                                                           o)
                    : (void *)hfft_plan_guru_dft_c2r(r, d, hr, h, in[0], out[0], f, o);
}

static int exec_of(int prec, void *plan) {
    return prec == 4 ? hfftf_execute(plan) : hfft_execute(plan);
}
static void destroy_of(int prec, void *plan) {
    if (prec == 4)
        hfftf_destroy_plan(plan);
    else
        hfft_destroy_plan(plan);
}

/* Marks in `mask` (one byte per byte of the buffer from `base`) every byte an
   array's layout holds: side `out`, elements of esz bytes. */
static void mark(const problem *p, int out, const char *base, const char *buf, size_t esz,
                 unsigned char *mask) {
    int nd = p->rank + p->hrank;
    int64_t idx[2 * MAXD] = {0};
    for (;;) {
        int64_t off = 0;
        for (int k = 0; k < nd; k++) {
            const hfft_iodim *d = k < p->rank ? &p->dims[k] : &p->hdims[k - p->rank];
            off += idx[k] * (out ? d->os : d->is);
        }
        memset(mask + (base - buf) + off * (int64_t)esz, 1, esz);
        int k = nd - 1;
        while (k >= 0 && ++idx[k] == extent(p, k, out))
            idx[k--] = 0;
        if (k < 0)
            return;
    }
}

typedef struct outcome {
    int wrong, refused;
    int ran;              /* executed: what the plan ran on */
    int device, placement, schedule, cards;
    double error;
    char message[300];
} outcome;

/* Statuses a plan may be refused with: a placement the problem does not allow. */
static int may_refuse(const problem *p, int status) {
    int asked = (p->flags & (HFFT_GPU_ONLY | HFFT_HYBRID | HFFT_SCHEDULE_PLAIN |
                             HFFT_SCHEDULE_RADIX2)) != 0 || p->ratio > 0;
    if (!asked)
        return 0;
    return status == HFFT_ERR_UNSUPPORTED || status == HFFT_ERR_BUDGET ||
           status == HFFT_ERR_DEVICE_MEMORY;
}

static void run_problem(const problem *p, uint64_t seed, outcome *res) {
    memset(res, 0, sizeof *res);
    int64_t lo[2], hi[2];
    reach(p, 0, &lo[0], &hi[0]);
    reach(p, 1, &lo[1], &hi[1]);
    size_t r = (size_t)p->prec;
    size_t isz = p->kind == R2C || p->kind == R2R || p->split ? r : 2 * r;
    size_t osz = p->kind == C2R || p->kind == R2R || p->split ? r : 2 * r;
    int ia = p->split && p->kind != R2C ? 2 : 1, oa = p->split && p->kind != C2R ? 2 : 1;
    /* one buffer per array, with room before and after the layout, which must stay */
    const int64_t guard = 64;
    char *buf[4], *base[4], *keep[4];
    size_t bytes[4];
    unsigned char *mask[4];
    int narr = p->inplace ? 1 : ia + oa;
    for (int a = 0; a < narr; a++) {
        int out = !p->inplace && a >= ia;
        int64_t l = p->inplace ? (lo[0] * (int64_t)isz < lo[1] * (int64_t)osz ? lo[0] * (int64_t)isz
                                                                            : lo[1] * (int64_t)osz)
                               : lo[out] * (int64_t)(out ? osz : isz);
        int64_t h = p->inplace ? ((hi[0] + 1) * (int64_t)isz > (hi[1] + 1) * (int64_t)osz
                                      ? (hi[0] + 1) * (int64_t)isz
                                      : (hi[1] + 1) * (int64_t)osz)
                               : (hi[out] + 1) * (int64_t)(out ? osz : isz);
        bytes[a] = (size_t)(h - l + 2 * guard);
        /* 64-byte aligned at the layout's element 0, as the planner's arrays are */
        buf[a] = aligned_alloc(64, (bytes[a] + 127) / 64 * 64 + 64);
        mask[a] = calloc(bytes[a] + 128, 1);
        if (!buf[a] || !mask[a]) {
            snprintf(res->message, sizeof res->message, "out of host memory");
            res->wrong = 1;
            for (int b = 0; b <= a; b++) {
                free(buf[b]);
                free(mask[b]);
            }
            return;
        }
        int64_t shift = (guard - l) % 64 == 0 ? 0 : 64 - (guard - l) % 64;
        base[a] = buf[a] + guard - l + shift;
        bytes[a] += (size_t)shift;
        hfft_ref_fill(4, buf[a], (int64_t)(bytes[a] / 8), seed + (uint64_t)a);
        keep[a] = NULL;
    }
    void *in[2] = {base[0], ia == 2 ? base[1] : NULL};
    void *out[2];
    if (p->inplace) {
        out[0] = in[0];
        out[1] = in[1];
    } else {
        out[0] = base[ia];
        out[1] = oa == 2 ? base[ia + 1] : NULL;
    }
    hfft_ref_dim d[MAXD], h[MAXD];
    for (int k = 0; k < p->rank; k++)
        d[k] = (hfft_ref_dim){p->dims[k].n, p->dims[k].is, p->dims[k].os};
    for (int k = 0; k < p->hrank; k++)
        h[k] = (hfft_ref_dim){p->hdims[k].n, p->hdims[k].is, p->hdims[k].os};
    if (p->kind == C2R &&
        hfft_ref_fill_hermitian(p->prec, p->rank, d, p->hrank, h, in[0], in[1], seed + 9) != 0) {
        snprintf(res->message, sizeof res->message, "out of host memory (reference)");
        res->wrong = 1;
    }
    /* the bytes each array's layout holds: the output's may change, nothing else */
    for (int a = 0; a < narr; a++) {
        int is_out = p->inplace || a >= ia;
        if (is_out)
            mark(p, 1, p->inplace ? (char *)out[0] : (char *)out[a - ia], buf[a], osz, mask[a]);
        /* in place the input's layout is the transform's too (a real kind's padding) */
        if (p->inplace)
            mark(p, 0, in[0], buf[a], isz, mask[a]);
        keep[a] = malloc(bytes[a]);
        if (keep[a])
            memcpy(keep[a], buf[a], bytes[a]);
    }
    /* the original input, for the reference */
    void *orig[2] = {NULL, NULL};
    for (int a = 0; a < ia && keep[a]; a++)
        orig[a] = keep[p->inplace ? 0 : a] + ((char *)in[a] - buf[p->inplace ? 0 : a]);
    hfft_options o;
    hfft_options_init(&o);
    o.device = p->device;
    o.device_memory = p->budget;
    o.threads = p->threads;
    o.ratio = p->ratio;
    char list[64] = "0";
    for (int c = 1; c < p->cards; c++)
        snprintf(list + strlen(list), sizeof list - strlen(list), ",%d", c);
    o.devices = p->device != HFFT_DEVICE_NONE ? list : NULL;
    void *plan = res->wrong ? NULL : plan_of(p, in, out, &o);
    if (!plan && !res->wrong) {
        int st = hfft_last_error();
        if (may_refuse(p, st)) {
            res->refused = 1;
        } else {
            res->wrong = 1;
            snprintf(res->message, sizeof res->message, "no plan: %d %s", st,
                     hfft_last_error_message());
        }
    }
    if (plan) {
        /* planning leaves every array as it was, but under HFFT_MEASURE, which may
           overwrite them as FFTW_MEASURE does: then the input is written again */
        for (int a = 0; a < narr && !res->wrong; a++) {
            if (keep[a] && (p->flags & HFFT_MEASURE))
                memcpy(buf[a], keep[a], bytes[a]);
            else if (keep[a] && memcmp(keep[a], buf[a], bytes[a]) != 0) {
                res->wrong = 1;
                snprintf(res->message, sizeof res->message, "planning changed array %d", a);
            }
        }
        int st = exec_of(p->prec, plan);
        hfft_info ran;
        if (p->prec == 4)
            hfftf_plan_info(plan, &ran);
        else
            hfft_plan_info(plan, &ran);
        res->ran = 1;
        res->device = ran.device;
        res->placement = ran.placement;
        res->schedule = ran.schedule;
        res->cards = ran.cards;
        if (st && !res->wrong) {
            res->wrong = 1;
            snprintf(res->message, sizeof res->message, "execute: %d %s", st,
                     hfft_last_error_message());
        }
        if (!res->wrong) {
            res->error = p->kind == R2R
                             ? hfft_ref_r2r_error(p->prec, p->rank, d, p->hrank, h, p->r2r,
                                                  orig[0], out[0])
                             : hfft_ref_guru_error(p->prec, p->kind, p->sign, p->rank, d,
                                                   p->hrank, h, orig[0], orig[1], out[0], out[1]);
            double tol = p->prec == 4 ? 5e-7 : 5e-16;
            if (!(res->error >= 0 && res->error <= tol)) {
                res->wrong = 1;
                hfft_info info;
                if (p->prec == 4)
                    hfftf_plan_info(plan, &info);
                else
                    hfft_plan_info(plan, &info);
                snprintf(res->message, sizeof res->message,
                         "relative RMS error %.3g (limit %.0e); device %s, placement %d, "
                         "schedule %d, rounds %d, note '%.100s'",
                         res->error, tol, info.device_name, info.placement, info.schedule,
                         info.rounds, info.note);
            }
        }
        /* outside the output's layout nothing changed, the input included where
           the transform keeps it */
        int may_destroy = p->kind == C2R && !(p->flags & HFFT_PRESERVE_INPUT);
        for (int a = 0; a < narr && !res->wrong; a++) {
            int is_in = !p->inplace && a < ia;
            if (is_in && may_destroy)
                continue;
            for (size_t b = 0; b < bytes[a]; b++)
                if (!mask[a][b] && keep[a] && buf[a][b] != keep[a][b]) {
                    res->wrong = 1;
                    snprintf(res->message, sizeof res->message,
                             "%s array %d changed at byte %zd of the layout",
                             is_in ? "input" : "output", a, (ptrdiff_t)(buf[a] + b - base[a]));
                    break;
                }
        }
        destroy_of(p->prec, plan);
    }
    for (int a = 0; a < narr; a++) {
        free(buf[a]);
        free(mask[a]);
        free(keep[a]);
    }
}

/* ---- FFTW's threaded idiom: one plan, new-array executes from many threads ---- */

typedef struct shared {
    void *plan;
    int prec, inplace;
    int64_t total;
    size_t bytes;
    int executes; /* each thread's */
    void *orig, *ref;
    pthread_barrier_t *barrier;
    int wrong, failed;
    double worst;
    char message[200];
} shared;

static void *threaded(void *arg) {
    shared *t = arg;
    char *in = aligned_alloc(64, t->bytes), *out = t->inplace ? in : aligned_alloc(64, t->bytes);
    if (!in || !out) {
        t->failed = 1;
        snprintf(t->message, sizeof t->message, "out of host memory");
        pthread_barrier_wait(t->barrier);
        return NULL;
    }
    pthread_barrier_wait(t->barrier);
    for (int e = 0; e < t->executes; e++) {
        memcpy(in, t->orig, t->bytes);
        if (!t->inplace)
            memset(out, 0xff, t->bytes);
        int st = t->prec == 4 ? hfftf_execute_dft(t->plan, (void *)in, (void *)out)
                              : hfft_execute_dft(t->plan, (void *)in, (void *)out);
        if (st) {
            t->failed++;
            snprintf(t->message, sizeof t->message, "%s", hfft_last_error_message());
            continue;
        }
        double err = hfft_ref_compare(t->prec, t->ref, out, t->total);
        if (!(err >= 0 && err <= (t->prec == 4 ? 5e-7 : 5e-16)))
            t->wrong++;
        if (err > t->worst || err != err)
            t->worst = err;
    }
    free(in);
    if (out != in)
        free(out);
    return NULL;
}

static int parse_problem(const char *s, int *prec, int *rank, int64_t *n) {
    if (sscanf(s, "%dd:", rank) != 1 || *rank < 1 || *rank > 3)
        return -1;
    const char *q = strchr(s, ':') + 1;
    for (int k = 0; k < *rank; k++) {
        char *end;
        n[k] = strtoll(q, &end, 10);
        if (end == q || n[k] < 1)
            return -1;
        q = end + (*end == 'x');
    }
    *prec = strstr(q, "f64") ? 8 : 4;
    return 0;
}

static int run_threads(int nthreads, int executes, int device, int cards, int64_t budget,
                       unsigned flags, const char *spec) {
    int prec, rank;
    int64_t n[3];
    if (parse_problem(spec, &prec, &rank, n))
        return 2;
    int64_t total = 1;
    for (int k = 0; k < rank; k++)
        total *= n[k];
    size_t bytes = (size_t)total * 2 * (size_t)prec;
    int status = 0;
    for (int inplace = 0; inplace < 2; inplace++) {
        char *a = aligned_alloc(64, bytes), *b = inplace ? a : aligned_alloc(64, bytes);
        hfft_options o;
        hfft_options_init(&o);
        o.device = device;
        o.device_memory = budget;
        char list[64] = "0";
        for (int c = 1; c < cards; c++)
            snprintf(list + strlen(list), sizeof list - strlen(list), ",%d", c);
        o.devices = device != HFFT_DEVICE_NONE ? list : NULL;
        void *plan = prec == 4 ? (void *)hfftf_plan_dft(rank, n, (void *)a, (void *)b,
                                                        HFFT_FORWARD, flags, &o)
                               : (void *)hfft_plan_dft(rank, n, (void *)a, (void *)b,
                                                       HFFT_FORWARD, flags, &o);
        if (!plan) {
            fprintf(stderr, "hfft-check: no plan: %s\n", hfft_last_error_message());
            return 1;
        }
        hfft_info info;
        if (prec == 4)
            hfftf_plan_info(plan, &info);
        else
            hfft_plan_info(plan, &info);
        shared *t = calloc((size_t)nthreads, sizeof *t);
        pthread_t *tid = calloc((size_t)nthreads, sizeof *tid);
        pthread_barrier_t barrier;
        pthread_barrier_init(&barrier, NULL, (unsigned)nthreads);
        for (int i = 0; i < nthreads; i++) {
            t[i] = (shared){plan, prec, inplace, total, bytes, executes / nthreads, NULL, NULL,
                            &barrier, 0, 0, 0.0, ""};
            t[i].orig = malloc(bytes);
            hfft_ref_fill(prec, t[i].orig, total, 1000 + (uint64_t)i);
            t[i].ref = hfft_ref_transform(prec, rank, n, t[i].orig, HFFT_FORWARD, 1);
        }
        double t0 = hfft_ref_now();
        for (int i = 0; i < nthreads; i++)
            pthread_create(&tid[i], NULL, threaded, &t[i]);
        int wrong = 0, failed = 0, done = 0;
        double worst = 0;
        for (int i = 0; i < nthreads; i++) {
            pthread_join(tid[i], NULL);
            wrong += t[i].wrong;
            failed += t[i].failed;
            done += t[i].executes;
            if (t[i].worst > worst || t[i].worst != t[i].worst)
                worst = t[i].worst;
            if (t[i].failed)
                fprintf(stderr, "thread %d: %s\n", i, t[i].message);
            free(t[i].orig);
            hfft_ref_free(prec, t[i].ref);
        }
        pthread_barrier_destroy(&barrier);
        printf("threads %s f%d %s on %s (placement %d, schedule %d, %d cards): %d threads, "
               "%d executes, %d wrong, %d failed, worst error %.3g, %.2f s\n",
               spec, 8 * prec, inplace ? "in place" : "out of place", info.device_name,
               info.placement, info.schedule, info.cards, nthreads, done, wrong, failed, worst,
               hfft_ref_now() - t0);
        if (wrong || failed)
            status = 1;
        if (prec == 4)
            hfftf_destroy_plan(plan);
        else
            hfft_destroy_plan(plan);
        free(t);
        free(tid);
        if (b != a)
            free(b);
        free(a);
    }
    return status;
}

/* ---- the command line ---- */

static int usage(void) {
    fprintf(stderr,
            "usage: hfft-check random [--count N] [--seed S] [--device cpu|emulated|cuda] "
            "[--cards K]\n"
            "       [--verbose] [--from I]\n"
            "       hfft-check threads [--threads T] [--executes N] [--device ...] [--cards K] "
            "[--budget BYTES] [--mode auto|gpu|hybrid] [RANKd:N0xN1[xN2][:f32|f64]]\n");
    return 2;
}

int main(int argc, char **argv) {
    if (argc < 2)
        return usage();
    const char *mode = argv[1];
    long count = 500, nthreads = 8, executes = 1000, cards = 4, from = 0;
    int verbose = 0;
    unsigned flags = 0;
    uint64_t seed = 1;
    int device = HFFT_DEVICE_NONE;
    int64_t budget = 0;
    const char *spec = "2d:128x128:f32";
    for (int i = 2; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--count") && v)
            count = atol(argv[++i]);
        else if (!strcmp(a, "--seed") && v)
            seed = strtoull(argv[++i], NULL, 10);
        else if (!strcmp(a, "--threads") && v)
            nthreads = atol(argv[++i]);
        else if (!strcmp(a, "--executes") && v)
            executes = atol(argv[++i]);
        else if (!strcmp(a, "--cards") && v)
            cards = atol(argv[++i]);
        else if (!strcmp(a, "--from") && v)
            from = atol(argv[++i]);
        else if (!strcmp(a, "--verbose"))
            verbose = 1;
        else if (!strcmp(a, "--mode") && v) {
            v = argv[++i];
            if (!strcmp(v, "gpu"))
                flags = HFFT_GPU_ONLY;
            else if (!strcmp(v, "hybrid"))
                flags = HFFT_HYBRID;
            else if (strcmp(v, "auto"))
                return usage();
        }
        else if (!strcmp(a, "--budget") && v) {
            if (hfft_parse_bytes(argv[++i], &budget))
                return usage();
        } else if (!strcmp(a, "--device") && v) {
            v = argv[++i];
            device = !strcmp(v, "cpu")        ? HFFT_DEVICE_NONE
                     : !strcmp(v, "emulated") ? HFFT_DEVICE_EMULATED
                     : !strcmp(v, "cuda")     ? HFFT_DEVICE_CUDA
                                              : -1;
            if (device < 0)
                return usage();
        } else if (a[0] != '-' && !strcmp(mode, "threads")) {
            spec = a;
        } else {
            return usage();
        }
    }
    if (count < 1 || nthreads < 1 || executes < nthreads || cards < 1 || cards > HFFT_MAX_CARDS)
        return usage();
    if (!strcmp(mode, "threads"))
        return run_threads((int)nthreads, (int)executes, device, (int)cards, budget, flags, spec);
    if (strcmp(mode, "random"))
        return usage();
    int wrong = 0, refused = 0, on_device = 0, hybrid = 0, trip = 0, several = 0;
    double t0 = hfft_ref_now();
    for (long i = from; i < from + count; i++) {
        uint64_t s = seed * 1000003u + (uint64_t)i;
        problem p;
        draw(&p, &s, device, (int)cards);
        char what[600];
        describe(&p, what, sizeof what);
        if (verbose) {
            printf("%ld: %s\n", i, what);
            fflush(stdout);
        }
        outcome res;
        run_problem(&p, s, &res);
        if (verbose && res.ran && !res.wrong)
            printf("  error %.3g; device %d, placement %d, schedule %d, %d card(s)\n", res.error,
                   res.device, res.placement, res.schedule, res.cards);
        else if (verbose && res.refused)
            printf("  refused, as its placement allows\n");
        refused += res.refused;
        if (res.ran && res.device != HFFT_DEVICE_NONE) {
            on_device++;
            hybrid += res.placement == 2;
            trip += res.schedule == 3;
            several += res.cards > 1;
        }
        if (res.wrong) {
            wrong++;
            printf("WRONG %ld (seed %" PRIu64 "): %s: %s\n", i, seed, what, res.message);
            fflush(stdout);
        }
    }
    printf("hfft-check random: seed %" PRIu64 ", device %s, up to %ld cards: %ld problems, %d "
           "wrong, %d refused as their placement allows; %d ran on the device (%d hybrid, %d "
           "one trip, %d on several cards); %.1f s\n",
           seed,
           device == HFFT_DEVICE_NONE       ? "cpu"
           : device == HFFT_DEVICE_EMULATED ? "emulated"
                                            : "cuda",
           device == HFFT_DEVICE_NONE ? 0 : cards, count, wrong, refused, on_device, hybrid, trip,
           several, hfft_ref_now() - t0);
    return wrong ? 1 : 0;
}
