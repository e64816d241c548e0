/*
 * test_stream.c: streaming images (hfft_stream_*), both precisions.  After
 * any pattern of adds and flushes the image must equal I0 (its contents when
 * the stream was made) plus the transform, FFTW in higher precision, of the
 * grid of every point added before the last flush (summed here in long
 * double); each way forced and the cost model's choice; shift keys and row
 * keys; the CPU and the emulated device (the grid's plan on its cards).  Also
 * what a stream reports, and every bad argument.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ref.h"
#include "util.h"

TestSuite(stream, .init = tu_setup, .fini = tu_env_clear);

/* Relative RMS tolerances of a streamed image (the issue's: 2^22 points). */
static double stream_tol(int prec) { return prec == 4 ? 1e-5 : 1e-13; }

/* ---- one precision-neutral handle ---- */
typedef struct ts {
    int prec;
    void *s;
} ts;

static ts ts_make(int prec, int rank, const int64_t *n, void *image, int sign, unsigned flags,
                  const hfft_options *o) {
    ts t = {prec, NULL};
    t.s = prec == 4 ? (void *)hfftf_stream_dft(rank, n, image, sign, flags, o)
                    : (void *)hfft_stream_dft(rank, n, image, sign, flags, o);
    return t;
}
static int ts_add(ts t, int64_t count, const int64_t *index, const void *value) {
    return t.prec == 4 ? hfftf_stream_add(t.s, count, index, value)
                       : hfft_stream_add(t.s, count, index, value);
}
static int ts_flush(ts t) {
    return t.prec == 4 ? hfftf_stream_flush(t.s) : hfft_stream_flush(t.s);
}
static int ts_info(ts t, hfft_stream_stats *st) {
    return t.prec == 4 ? hfftf_stream_info(t.s, st) : hfft_stream_info(t.s, st);
}
static void ts_destroy(ts t) {
    if (t.prec == 4)
        hfftf_stream_destroy(t.s);
    else
        hfft_stream_destroy(t.s);
}

/* ---- the oracle ---- */
typedef struct oracle {
    int prec, rank, sign;
    int64_t n[3], total;
    long double *sum;  /* the grid of points flushed, exactly enough */
    long double *next; /* and of points added since */
    void *i0;          /* the image as made */
} oracle;

static oracle oracle_make(int prec, int rank, const int64_t *n, int sign, const void *image) {
    oracle o = {prec, rank, sign, {1, 1, 1}, tu_total(rank, n), NULL, NULL, NULL};
    for (int d = 0; d < rank; d++)
        o.n[d] = n[d];
    o.sum = calloc((size_t)o.total * 2, sizeof(long double));
    o.next = calloc((size_t)o.total * 2, sizeof(long double));
    o.i0 = tu_dup(image, (size_t)o.total * tu_esize(prec));
    cr_assert(o.sum && o.next);
    return o;
}

static void oracle_add(oracle *o, int64_t count, const int64_t *index, const void *value) {
    for (int64_t p = 0; p < count; p++) {
        int64_t cell = 0;
        for (int d = 0; d < o->rank; d++) {
            int64_t x = index[p * o->rank + d] % o->n[d];
            cell = cell * o->n[d] + (x < 0 ? x + o->n[d] : x);
        }
        long double re = o->prec == 4 ? ((const float *)value)[2 * p]
                                      : ((const double *)value)[2 * p];
        long double im = o->prec == 4 ? ((const float *)value)[2 * p + 1]
                                      : ((const double *)value)[2 * p + 1];
        o->next[2 * cell] += re;
        o->next[2 * cell + 1] += im;
    }
}

static void oracle_flush(oracle *o) {
    for (int64_t k = 0; k < 2 * o->total; k++) {
        o->sum[k] += o->next[k];
        o->next[k] = 0;
    }
}

/* Relative RMS error of image against I0 + the transform of the flushed grid. */
static double oracle_error(const oracle *o, const void *image) {
    size_t es = tu_esize(o->prec);
    void *grid = tu_alloc((size_t)o->total * es);
    for (int64_t k = 0; k < 2 * o->total; k++)
        if (o->prec == 4)
            ((float *)grid)[k] = (float)o->sum[k];
        else
            ((double *)grid)[k] = (double)o->sum[k];
    void *ref = hfft_ref_transform(o->prec, o->rank, o->n, grid, o->sign, 1);
    cr_assert(ref, "reference out of memory");
    for (int64_t k = 0; k < 2 * o->total; k++)
        if (o->prec == 4)
            ((double *)ref)[k] += ((const float *)o->i0)[k];
        else
            ((long double *)ref)[k] += ((const double *)o->i0)[k];
    double e = hfft_ref_compare(o->prec, ref, image, o->total);
    hfft_ref_free(o->prec, ref);
    tu_free(grid);
    return e;
}

static void oracle_free(oracle *o) {
    free(o->sum);
    free(o->next);
    tu_free(o->i0);
}

/* count random points: indices anywhere in int64 (negative and far beyond n too)
   or, with `near`, within a few sizes of zero; values in [-0.5, 0.5). */
static void points(int prec, int rank, const int64_t *n, int64_t count, int near, uint64_t seed,
                   int64_t *index, void *value) {
    uint64_t x = seed | 1;
    for (int64_t p = 0; p < count; p++)
        for (int d = 0; d < rank; d++) {
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            index[p * rank + d] = near ? (int64_t)(x % (uint64_t)(3 * n[d])) - n[d] : (int64_t)x;
        }
    hfft_ref_fill(prec, value, count, seed ^ 0x9e3779b97f4a7c15ull);
}

/* ---- correctness ---- */

typedef struct shape {
    int rank;
    int64_t n[3];
} shape;

static const shape shapes[] = {
    {2, {64, 64}},    /* shift keys */
    {2, {256, 256}},  /* shift keys */
    {2, {48, 80}},    /* row keys */
    {2, {64, 32}},    /* powers of two, not square: row keys */
    {1, {100}},       /* one key */
    {1, {1}},         /* one point of image */
    {3, {8, 12, 10}}, /* rows of the last dimension */
    {2, {1, 7}},
    {2, {13, 24}},    /* flush blocks of two sizes */
    {3, {5, 3, 4}},
};

/* Adds in batches with flushes between them (one with nothing pending), checking the
   image after each flush and that neither making the stream nor an add touches it;
   the image starts random, or all zeros (`zero`). */
static void check_stream_from(int prec, const shape *sh, int sign, unsigned flags,
                              const hfft_options *o, int want_way, int zero) {
    int64_t total = tu_total(sh->rank, sh->n);
    size_t bytes = (size_t)total * tu_esize(prec);
    void *image = tu_alloc(bytes);
    if (zero)
        memset(image, 0, bytes);
    else
        hfft_ref_fill(prec, image, total, tu_seed());
    oracle orc = oracle_make(prec, sh->rank, sh->n, sign, image);
    ts t = ts_make(prec, sh->rank, sh->n, image, sign, flags, o);
    cr_assert(t.s, "stream of rank %d (%lld, %lld, %lld) f%d: %s", sh->rank,
              (long long)sh->n[0], (long long)sh->n[1], (long long)sh->n[2], prec * 8,
              hfft_last_error_message());
    cr_assert(!memcmp(orc.i0, image, bytes), "making the stream wrote the image");
    static const int64_t batch[] = {1, 0, 3, 40, 1000, 7};
    int64_t added = 0;
    for (size_t b = 0; b < sizeof batch / sizeof batch[0]; b++) {
        int64_t count = batch[b];
        int64_t *index = malloc((size_t)(count ? count : 1) * 3 * sizeof(int64_t));
        void *value = tu_alloc((size_t)(count ? count : 1) * tu_esize(prec));
        points(prec, sh->rank, sh->n, count, b % 2, tu_seed(), index, value);
        if (b == 3 && count >= 2) { /* duplicates, and index 0 */
            memcpy(index + sh->rank, index, (size_t)sh->rank * sizeof(int64_t));
            for (int d = 0; d < sh->rank; d++)
                index[d] = 0;
        }
        void *before = tu_dup(image, bytes);
        cr_assert_eq(ts_add(t, count, index, value), 0, "add: %s", hfft_last_error_message());
        cr_assert(!memcmp(before, image, bytes), "an add wrote the image");
        oracle_add(&orc, count, index, value);
        added += count;
        /* a second add before the flush, for every other batch */
        if (b % 2 && count) {
            cr_assert_eq(ts_add(t, 1, index, value), 0);
            oracle_add(&orc, 1, index, value);
            added++;
        }
        cr_assert_eq(ts_flush(t), 0, "flush: %s", hfft_last_error_message());
        oracle_flush(&orc);
        double e = oracle_error(&orc, image);
        cr_assert(e <= stream_tol(prec),
                  "rank %d (%lld, %lld, %lld) f%d sign %d flags %#x, after batch %zu: error "
                  "%.3g",
                  sh->rank, (long long)sh->n[0], (long long)sh->n[1], (long long)sh->n[2],
                  prec * 8, sign, flags, b, e);
        hfft_stream_stats st;
        cr_assert_eq(ts_info(t, &st), 0);
        cr_assert_eq(st.points_added, added);
        cr_assert_eq(st.points_applied, added);
        if (want_way && count)
            cr_assert_eq(st.last_strategy, want_way, "batch %zu: way %d, asked %d", b,
                         st.last_strategy, want_way);
        tu_free(before);
        tu_free(value);
        free(index);
    }
    cr_assert_eq(ts_flush(t), 0); /* nothing pending */
    cr_assert_eq(ts_flush(t), 0);
    cr_assert(oracle_error(&orc, image) <= stream_tol(prec));
    hfft_stream_stats st;
    cr_assert_eq(ts_info(t, &st), 0);
    cr_assert_eq(st.shift_keys,
                 sh->rank == 2 && sh->n[0] == sh->n[1] && !(sh->n[0] & (sh->n[0] - 1)) &&
                     sh->n[0] > 1);
    cr_assert_eq(st.rank, sh->rank);
    ts_destroy(t);
    oracle_free(&orc);
    tu_free(image);
}

static void check_stream(int prec, const shape *sh, int sign, unsigned flags,
                         const hfft_options *o, int want_way) {
    check_stream_from(prec, sh, sign, flags, o, want_way, 0);
}

static void cpu_options(hfft_options *o) {
    hfft_options_init(o);
    o->device = HFFT_DEVICE_NONE;
    o->threads = 2;
}

/* One emulated card, large enough for the shapes' images. */
static void emulated_options(hfft_options *o) {
    hfft_options_init(o);
    o->device = HFFT_DEVICE_EMULATED;
    o->device_memory = 256 << 20;
    o->threads = 2;
}

/* check_stream for every shape, both precisions, each way forced and the model's. */
static void every_shape_and_way(const hfft_options *o) {
    for (int prec = 4; prec <= 8; prec += 4)
        for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++)
            for (int way = 0; way < 3; way++) {
                unsigned flags = way == 1 ? HFFT_STREAM_DIRECT : way == 2 ? HFFT_STREAM_GRID : 0;
                check_stream(prec, &shapes[i], i % 2 ? HFFT_FORWARD : HFFT_BACKWARD, flags, o,
                             way);
            }
}

Test(stream, every_way_on_the_cpu) {
    hfft_options o;
    cpu_options(&o);
    every_shape_and_way(&o);
}

/* The image on an emulated card between flushes: every shape, every way. */
Test(stream, every_way_on_an_emulated_card) {
    for (int prec = 4; prec <= 8; prec += 4)
        for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++)
            for (int way = 0; way < 3; way++) {
                hfft_options o;
                emulated_options(&o);
                unsigned flags = way == 1 ? HFFT_STREAM_DIRECT : way == 2 ? HFFT_STREAM_GRID : 0;
                check_stream(prec, &shapes[i], i % 2 ? HFFT_FORWARD : HFFT_BACKWARD, flags, &o,
                             way);
                int64_t total = tu_total(shapes[i].rank, shapes[i].n);
                void *image = tu_alloc((size_t)total * tu_esize(prec));
                memset(image, 0, (size_t)total * tu_esize(prec));
                ts t = ts_make(prec, shapes[i].rank, shapes[i].n, image, HFFT_FORWARD, flags, &o);
                cr_assert(t.s);
                hfft_stream_stats st;
                cr_assert_eq(ts_info(t, &st), 0);
                cr_assert_eq(st.image_on_cards, 1, "shape %zu: the image is not on the card", i);
                cr_assert_eq(st.cards, 1);
                int64_t idx[3] = {1, 1, 1};
                double v[2] = {1, 0};
                float vf[2] = {1, 0};
                cr_assert_eq(ts_add(t, 1, idx, prec == 4 ? (void *)vf : (void *)v), 0);
                cr_assert_eq(ts_flush(t), 0);
                cr_assert_eq(ts_info(t, &st), 0);
                /* the image out each flush, and what went in */
                cr_assert_eq(st.link_bytes[1], total * (int64_t)tu_esize(prec));
                cr_assert_gt(st.link_bytes[0], 0);
                ts_destroy(t);
                tu_free(image);
            }
}

/* An image larger than the card's budget: in host memory, passed through an emulated
   card at each direct flush (its rows in, updated, out: the image's bytes each way
   and the vectors in). */
Test(stream, the_image_passed_through_an_emulated_card) {
    for (int prec = 4; prec <= 8; prec += 4)
        for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++) {
            int64_t total = tu_total(shapes[i].rank, shapes[i].n);
            size_t bytes = (size_t)total * tu_esize(prec);
            hfft_options o;
            hfft_options_init(&o);
            o.device = HFFT_DEVICE_EMULATED;
            o.device_memory = (int64_t)bytes > 16384 ? (int64_t)bytes : 16384;
            o.threads = 2;
            for (int way = 0; way < 2; way++)
                check_stream(prec, &shapes[i], HFFT_BACKWARD, way ? HFFT_STREAM_DIRECT : 0, &o,
                             way ? HFFT_STREAM_BY_KEYS : 0);
            void *image = tu_alloc(bytes);
            memset(image, 0, bytes);
            ts t = ts_make(prec, shapes[i].rank, shapes[i].n, image, HFFT_FORWARD,
                           HFFT_STREAM_DIRECT, &o);
            cr_assert(t.s);
            int64_t idx[3] = {1, 2, 3};
            double v[2] = {1, 0};
            float vf[2] = {1, 0};
            cr_assert_eq(ts_add(t, 1, idx, prec == 4 ? (void *)vf : (void *)v), 0);
            cr_assert_eq(ts_flush(t), 0);
            hfft_stream_stats st;
            cr_assert_eq(ts_info(t, &st), 0);
            cr_assert_eq(st.image_on_cards, 0, "shape %zu f%d: the image went on the card", i,
                         prec * 8);
            cr_assert_eq(st.cards, 1);
            cr_assert_eq(st.link_bytes[1], (int64_t)bytes, "shape %zu f%d: %lld bytes out", i,
                         prec * 8, (long long)st.link_bytes[1]);
            cr_assert_gt(st.link_bytes[0], (int64_t)bytes);
            ts_destroy(t);
            tu_free(image);
        }
}

/* CUDA options on the cards `devices` names; the test skipped where the settings keep
   tests off the GPU or those cards cannot be opened. */
static hfft_options cuda_stream_options(const char *devices) {
    const char *dev = getenv("HFFT_DEVICE");
    if (dev && (!strcmp(dev, "none") || !strcmp(dev, "cpu")))
        cr_skip_test("no GPU tests (HFFT_DEVICE=%s)", dev);
    hfft_options o;
    hfft_options_init(&o);
    o.device = HFFT_DEVICE_CUDA;
    o.devices = devices;
    int64_t n[2] = {64, 64};
    float *probe = tu_alloc(64 * 64 * 8);
    memset(probe, 0, 64 * 64 * 8);
    hfftf_stream p = hfftf_stream_dft(2, n, (hfftf_complex *)probe, HFFT_FORWARD, 0, &o);
    tu_free(probe);
    if (!p) {
        cr_assert_eq(hfft_last_error(), HFFT_ERR_NO_DEVICE, "%s", hfft_last_error_message());
        cr_skip_test("CUDA cards %s not usable: %s", devices, hfft_last_error_message());
    }
    hfftf_stream_destroy(p);
    return o;
}

/* check_stream on the cards o->devices names (way 0: the model's, 1 direct, 2 grid), then
   a stream of two points whose stats must say that `held` cards hold the image (the
   first named first) and that one flush copies the whole image out. */
static void check_held(int prec, const shape *sh, const hfft_options *o, int way, int held,
                       int sign) {
    unsigned flags = way == 1 ? HFFT_STREAM_DIRECT : way == 2 ? HFFT_STREAM_GRID : 0;
    check_stream(prec, sh, sign, flags, o, way);
    int64_t total = tu_total(sh->rank, sh->n);
    void *image = tu_alloc((size_t)total * tu_esize(prec));
    memset(image, 0, (size_t)total * tu_esize(prec));
    ts t = ts_make(prec, sh->rank, sh->n, image, HFFT_FORWARD, flags, o);
    cr_assert(t.s, "%s", hfft_last_error_message());
    hfft_stream_stats st;
    cr_assert_eq(ts_info(t, &st), 0);
    cr_assert_eq(st.image_on_cards, 1, "%s: the image is not on the cards", o->devices);
    cr_assert_eq(st.cards, held, "%s: %d cards hold it, not %d", o->devices, st.cards, held);
    cr_assert_eq(st.card_ids[0], o->devices[0] - '0');
    int64_t idx[6] = {1, 1, 1, 5, 3, 2};
    double v[4] = {1, 0, 0.5, -2};
    float vf[4] = {1, 0, 0.5f, -2};
    cr_assert_eq(ts_add(t, 2, idx, prec == 4 ? (void *)vf : (void *)v), 0);
    cr_assert_eq(ts_flush(t), 0, "%s", hfft_last_error_message());
    cr_assert_eq(ts_info(t, &st), 0);
    cr_assert_eq(st.link_bytes[1], total * (int64_t)tu_esize(prec), "%s: %lld bytes out",
                 o->devices, (long long)st.link_bytes[1]);
    ts_destroy(t);
    tu_free(image);
}

/*
 * The image held on several emulated cards, dimension 0 cut between them: every way
 * (the model's, direct, grid) on 2, 3, 4 and 8 cards, shift keys and row keys, rank 2
 * and 3, both precisions; each flush copies the whole image out once over the cards;
 * a dimension 0 the cards cannot share keeps the image on the first card.
 */
Test(stream, every_way_on_emulated_cards_holding_parts) {
    static const struct {
        const char *cards;
        shape sh;
        int held; /* cards that hold it */
    } runs[] = {{"0,1", {2, {64, 64}}, 2},          {"0,1,2,3", {2, {64, 32}}, 4},
                {"2,0,1", {3, {12, 4, 6}}, 3},      {"0,1,2,3", {3, {8, 12, 10}}, 4},
                {"0,1,2,3,4,5,6,7", {2, {32, 32}}, 8}, {"0,1,2", {2, {64, 64}}, 1},
                {"1,0", {2, {48, 20}}, 2},           {"0,1", {2, {16, 300}}, 2}};
    for (size_t r = 0; r < sizeof runs / sizeof runs[0]; r++)
        for (int prec = 4; prec <= 8; prec += 4)
            for (int way = 0; way < 3; way++) {
                hfft_options o;
                hfft_options_init(&o);
                o.device = HFFT_DEVICE_EMULATED;
                o.device_memory = 16 << 20;
                o.devices = runs[r].cards;
                o.threads = 2;
                check_held(prec, &runs[r].sh, &o, way, runs[r].held,
                           r % 2 ? HFFT_FORWARD : HFFT_BACKWARD);
            }
}

/* A card the backend lacks, named beside one it has: an error for every shape, the
   image's first size a multiple of the cards' count or not. */
Test(stream, a_missing_card_is_an_error) {
    static const shape sh[] = {{2, {64, 32}}, {2, {63, 32}}, {1, {64}}};
    for (size_t i = 0; i < sizeof sh / sizeof sh[0]; i++) {
        hfft_options o;
        hfft_options_init(&o);
        o.device = HFFT_DEVICE_EMULATED;
        o.devices = "0,17";
        int64_t total = tu_total(sh[i].rank, sh[i].n);
        void *image = tu_alloc((size_t)total * tu_esize(4));
        memset(image, 0, (size_t)total * tu_esize(4));
        ts t = ts_make(4, sh[i].rank, sh[i].n, image, HFFT_FORWARD, 0, &o);
        cr_assert_null(t.s, "shape %zu: a stream on a card the backend lacks", i);
        cr_assert_eq(hfft_last_error(), HFFT_ERR_NO_DEVICE, "shape %zu: %s", i,
                     hfft_last_error_message());
        tu_free(image);
    }
}

/* The same on two CUDA cards (skipped with fewer), including an image of 32 MiB a
   card whose grid transform takes several chunks and tiles. */
Test(stream, every_way_on_two_cuda_cards) {
    hfft_options o = cuda_stream_options("0,1");
    static const shape shapes2[] = {{2, {256, 256}}, {2, {64, 48}}, {3, {16, 24, 20}},
                                    {2, {2048, 2048}}};
    for (int prec = 4; prec <= 8; prec += 4)
        for (size_t i = 0; i < sizeof shapes2 / sizeof shapes2[0]; i++)
            for (int way = 0; way < 3; way++)
                check_held(prec, &shapes2[i], &o, way, 2, i % 2 ? HFFT_FORWARD : HFFT_BACKWARD);
}

/* The grid's transform on emulated cards, one and four, in card and streamed. */
Test(stream, the_grid_on_emulated_cards) {
    static const struct {
        const char *cards;
        int64_t budget;
    } runs[] = {{"0", 1 << 20}, {"0", 64 << 10}, {"0,1,2,3", 1 << 20}};
    static const shape big[] = {{2, {256, 256}}, {3, {8, 12, 10}}};
    for (size_t r = 0; r < sizeof runs / sizeof runs[0]; r++)
        for (int prec = 4; prec <= 8; prec += 4)
            for (size_t i = 0; i < sizeof big / sizeof big[0]; i++) {
                hfft_options o;
                hfft_options_init(&o);
                o.device = HFFT_DEVICE_EMULATED;
                o.device_memory = runs[r].budget;
                o.devices = runs[r].cards;
                o.threads = 2;
                check_stream(prec, &big[i], HFFT_BACKWARD, HFFT_STREAM_GRID | HFFT_GPU_ONLY, &o,
                             HFFT_STREAM_BY_GRID);
            }
}

/* On a CUDA card (skipped without one): the image held there, every shape and way; a
   budget the image and its grid do not fit keeps it in host memory, the grid's
   transform streamed through the card, the image passed through it at direct
   flushes. */
Test(stream, every_way_on_a_cuda_card) {
    hfft_options o = cuda_stream_options("0");
    every_shape_and_way(&o);
    static const shape big = {2, {2048, 2048}};
    hfft_options small = o;
    small.device_memory = 32 << 20; /* the f32 image and grid take 64 MiB */
    check_stream(4, &big, HFFT_BACKWARD, HFFT_STREAM_GRID, &small, HFFT_STREAM_BY_GRID);
    check_stream(4, &big, HFFT_FORWARD, HFFT_STREAM_DIRECT, &small, HFFT_STREAM_BY_KEYS);
    static const shape rows = {3, {64, 48, 40}};
    small.device_memory = 1 << 20; /* 960 KiB of f32 image: passed through */
    check_stream(4, &rows, HFFT_BACKWARD, 0, &small, 0);
    check_stream(8, &big, HFFT_FORWARD, 0, &o, 0);
}

/* Many points in one add (the card path's adds run on several threads there): the
   image, and the keys counted, as on the CPU. */
Test(stream, many_points_at_once) {
    static const shape sh[] = {{2, {64, 64}}, {2, {40, 24}}};
    for (int prec = 4; prec <= 8; prec += 4)
        for (size_t i = 0; i < sizeof sh / sizeof sh[0]; i++) {
            int64_t count = 200000, total = tu_total(2, sh[i].n), keys[2];
            int64_t *index = malloc((size_t)count * 2 * sizeof(int64_t));
            void *value = tu_alloc((size_t)count * tu_esize(prec));
            points(prec, 2, sh[i].n, count, 0, tu_seed(), index, value);
            for (int card = 0; card < 2; card++) {
                hfft_options o;
                hfft_options_init(&o);
                o.device = card ? HFFT_DEVICE_EMULATED : HFFT_DEVICE_NONE;
                o.device_memory = 64 << 20;
                o.threads = 4;
                void *image = tu_alloc((size_t)total * tu_esize(prec));
                hfft_ref_fill(prec, image, total, tu_seed());
                oracle orc = oracle_make(prec, 2, sh[i].n, HFFT_FORWARD, image);
                ts t = ts_make(prec, 2, sh[i].n, image, HFFT_FORWARD, HFFT_STREAM_GRID, &o);
                cr_assert(t.s);
                cr_assert_eq(ts_add(t, count, index, value), 0);
                oracle_add(&orc, count, index, value);
                cr_assert_eq(ts_flush(t), 0);
                oracle_flush(&orc);
                double e = oracle_error(&orc, image);
                cr_assert(e <= stream_tol(prec), "shape %zu f%d card %d: error %.3g", i, prec * 8,
                          card, e);
                hfft_stream_stats st;
                cr_assert_eq(ts_info(t, &st), 0);
                cr_assert_eq(st.image_on_cards, card);
                cr_assert_eq(st.last_points, count);
                keys[card] = st.last_keys;
                ts_destroy(t);
                oracle_free(&orc);
                tu_free(image);
            }
            cr_assert_eq(keys[0], keys[1], "keys: %lld on the CPU, %lld on the card",
                         (long long)keys[0], (long long)keys[1]);
            free(index);
            tu_free(value);
        }
}

/* Shift keys: points whose rows are shifts of one vector share one key, computed from
   the point; the row keys count a point's rows. */
Test(stream, keys) {
    hfft_options o;
    cpu_options(&o);
    for (int prec = 4; prec <= 8; prec += 4) {
        int64_t n[2] = {64, 64};
        void *image = tu_alloc(64 * 64 * tu_esize(prec));
        memset(image, 0, 64 * 64 * tu_esize(prec));
        ts t = ts_make(prec, 2, n, image, HFFT_FORWARD, HFFT_STREAM_DIRECT, &o);
        cr_assert(t.s);
        /* (3, 1), (6, 2), (9, 3) - 64: column key 3 (9 inv(3) = 3 mod 64); (1, 2): row key
           2; (0, 0) and (0, 5): column key 0 */
        int64_t idx[] = {3, 1, 6, 2, 9, 3 - 64, 1, 2, 0, 0, 0, 5};
        double one[12] = {1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0};
        float onef[12] = {1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0};
        cr_assert_eq(ts_add(t, 6, idx, prec == 4 ? (void *)onef : (void *)one), 0);
        cr_assert_eq(ts_flush(t), 0);
        hfft_stream_stats st;
        cr_assert_eq(ts_info(t, &st), 0);
        cr_assert_eq(st.last_keys, 3, "%lld keys", (long long)st.last_keys);
        cr_assert_eq(st.last_points, 6);
        cr_assert_eq(st.last_strategy, HFFT_STREAM_BY_KEYS);
        ts_destroy(t);
        int64_t m[2] = {48, 80};
        t = ts_make(prec, 2, m, image, HFFT_FORWARD, HFFT_STREAM_DIRECT, &o);
        cr_assert(t.s);
        int64_t rows[] = {5, 1, 5, 70, 53, 2, 7, 7}; /* rows 5, 5, 5, 7 */
        cr_assert_eq(ts_add(t, 4, rows, prec == 4 ? (void *)onef : (void *)one), 0);
        cr_assert_eq(ts_flush(t), 0);
        cr_assert_eq(ts_info(t, &st), 0);
        cr_assert_eq(st.last_keys, 2);
        cr_assert_eq(st.shift_keys, 0);
        ts_destroy(t);
        tu_free(image);
    }
}

/* Point (u, v)'s shift key on an N x N image (N a power of two), written from the
   definition (docs/streaming.md): v = 2^b v', u = 2^a u' (v', u' odd); where b <= a, the
   column key (u / 2^b) / v' mod N, else the row key N + (v / 2^a) / u' mod N. */
static int64_t oracle_key(int64_t N, int64_t u, int64_t v) {
    u = ((u % N) + N) % N;
    v = ((v % N) + N) % N;
    int a = 0, b = 0;
    while (a < 62 && !((u >> a) & 1))
        a++;
    while (b < 62 && !((v >> b) & 1))
        b++;
    int col = b <= a;
    int64_t num = col ? u >> b : v >> a, odd = col ? v >> b : u >> a;
    if (!odd)
        return 0; /* (0, 0) */
    for (int64_t t = 0; t < N; t++) /* the t with t odd = num mod N */
        if ((t * odd - num) % N == 0)
            return col ? t : N + t;
    return -1;
}

/* On a card the keys of points added once the grid way is committed are marked during
   the flush: the stats count every point's key whichever way, the points given in adds
   large enough for the pool's threads and in small ones (fewer than the buffer holds,
   so that no key is marked by a fold of the buffer). */
Test(stream, keys_counted_whichever_way) {
    for (int prec = 4; prec <= 8; prec += 4) {
        int64_t N = 512, n[2] = {512, 512}, count = 30000, want = 0;
        int64_t *idx = malloc((size_t)count * 2 * sizeof(int64_t));
        void *vals = tu_alloc((size_t)count * tu_esize(prec));
        char *seen = calloc((size_t)(2 * N), 1);
        points(prec, 2, n, count, 1, tu_seed(), idx, vals);
        for (int64_t p = 0; p < count; p++) {
            int64_t k = oracle_key(N, idx[2 * p], idx[2 * p + 1]);
            cr_assert(k >= 0);
            want += !seen[k];
            seen[k] = 1;
        }
        void *image = tu_alloc((size_t)(N * N) * tu_esize(prec));
        for (int way = 0; way < 2; way++) {
            hfft_options o;
            emulated_options(&o);
            memset(image, 0, (size_t)(N * N) * tu_esize(prec));
            ts t = ts_make(prec, 2, n, image, HFFT_FORWARD, way ? HFFT_STREAM_GRID : 0, &o);
            cr_assert(t.s);
            static const int64_t parts[] = {3, 20000, 7, 9990};
            for (int64_t k = 0, at = 0; k < 4; at += parts[k++])
                cr_assert_eq(ts_add(t, parts[k], idx + 2 * at,
                                    (char *)vals + (size_t)at * tu_esize(prec)),
                             0);
            cr_assert_eq(ts_flush(t), 0);
            hfft_stream_stats st;
            cr_assert_eq(ts_info(t, &st), 0);
            cr_assert_eq(st.image_on_cards, 1);
            cr_assert_eq(st.last_strategy, HFFT_STREAM_BY_GRID);
            cr_assert_eq(st.last_keys, want, "way %d: %lld keys, %lld expected", way,
                         (long long)st.last_keys, (long long)want);
            ts_destroy(t);
        }
        tu_free(image);
        tu_free(vals);
        free(seen);
        free(idx);
    }
}

/* The cost model: a few keys go direct, a full grid of keys goes through the grid. */
Test(stream, the_cost_model_chooses) {
    hfft_options o;
    cpu_options(&o);
    int64_t n[2] = {512, 512};
    void *image = tu_alloc(512 * 512 * tu_esize(8));
    memset(image, 0, 512 * 512 * tu_esize(8));
    ts t = ts_make(8, 2, n, image, HFFT_BACKWARD, 0, &o);
    cr_assert(t.s);
    int64_t idx[2] = {7, 3};
    double v[2] = {1, 0};
    cr_assert_eq(ts_add(t, 1, idx, v), 0);
    cr_assert_eq(ts_flush(t), 0);
    hfft_stream_stats st;
    cr_assert_eq(ts_info(t, &st), 0);
    cr_assert_eq(st.last_strategy, HFFT_STREAM_BY_KEYS, "one key went %d", st.last_strategy);
    int64_t count = 20000;
    int64_t *many = malloc((size_t)count * 2 * sizeof(int64_t));
    double *vals = malloc((size_t)count * 2 * sizeof(double));
    points(8, 2, n, count, 0, tu_seed(), many, vals);
    cr_assert_eq(ts_add(t, count, many, vals), 0);
    cr_assert_eq(ts_flush(t), 0);
    cr_assert_eq(ts_info(t, &st), 0);
    cr_assert(st.last_keys > 500, "%lld keys", (long long)st.last_keys);
    cr_assert_eq(st.last_strategy, HFFT_STREAM_BY_GRID, "%lld keys went %d",
                 (long long)st.last_keys, st.last_strategy);
    free(many);
    free(vals);
    ts_destroy(t);
    tu_free(image);
}

/* ---- errors ---- */

Test(stream, bad_arguments) {
    hfft_options o;
    cpu_options(&o);
    for (int prec = 4; prec <= 8; prec += 4) {
        int64_t n[3] = {8, 8, 8}, bad[3] = {8, 0, 8}, huge[3] = {INT64_MAX / 4, 8, 1};
        void *image = tu_alloc(512 * tu_esize(prec));
        hfft_ref_fill(prec, image, 512, tu_seed());
        void *copy = tu_dup(image, 512 * tu_esize(prec));
        struct {
            int rank;
            const int64_t *n;
            void *image;
            int sign;
            unsigned flags;
        } cases[] = {{0, n, image, -1, 0},   {4, n, image, -1, 0},
                     {2, NULL, image, -1, 0}, {2, n, NULL, -1, 0},
                     {2, n, image, 0, 0},    {2, n, image, -1, HFFT_STREAM_DIRECT | HFFT_STREAM_GRID},
                     {3, bad, image, 1, 0},  {3, huge, image, 1, 0}};
        for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
            ts t = ts_make(prec, cases[i].rank, cases[i].n, cases[i].image, cases[i].sign,
                           cases[i].flags, &o);
            cr_assert_null(t.s, "case %zu made a stream", i);
            cr_assert_eq(hfft_last_error(), HFFT_ERR_INVALID_ARGUMENT, "case %zu: %d", i,
                         hfft_last_error());
            cr_assert(strlen(hfft_last_error_message()) > 0);
        }
        ts t = ts_make(prec, 3, n, image, HFFT_FORWARD, 0, &o);
        cr_assert(t.s);
        int64_t idx[3] = {1, 2, 3};
        double v[2] = {1, 1};
        float vf[2] = {1, 1};
        void *val = prec == 4 ? (void *)vf : (void *)v;
        cr_assert_eq(ts_add(t, -1, idx, val), HFFT_ERR_INVALID_ARGUMENT);
        cr_assert_eq(ts_add(t, 1, NULL, val), HFFT_ERR_INVALID_ARGUMENT);
        cr_assert_eq(ts_add(t, 1, idx, NULL), HFFT_ERR_INVALID_ARGUMENT);
        cr_assert_eq(ts_add(t, 0, NULL, NULL), 0);
        hfft_stream_stats st;
        cr_assert_eq(ts_info(t, &st), 0);
        cr_assert_eq(st.points_added, 0, "a failed add added %lld points",
                     (long long)st.points_added);
        cr_assert_eq(ts_flush(t), 0);
        cr_assert(!memcmp(copy, image, 512 * tu_esize(prec)), "nothing pending, image written");
        cr_assert_eq(prec == 4 ? hfftf_stream_info(t.s, NULL) : hfft_stream_info(t.s, NULL),
                     HFFT_ERR_INVALID_ARGUMENT);
        ts_destroy(t);
        ts null = {prec, NULL};
        cr_assert_eq(ts_add(null, 1, idx, val), HFFT_ERR_INVALID_ARGUMENT);
        cr_assert_eq(ts_flush(null), HFFT_ERR_INVALID_ARGUMENT);
        cr_assert_eq(ts_info(null, &st), HFFT_ERR_INVALID_ARGUMENT);
        ts_destroy(null);
        tu_free(copy);
        tu_free(image);
    }
}

/* In host memory a stream keeps a sum grid whose transform is the image; an image
   that starts with data puts that data's transform of the other sign in it, one
   that starts with zeros nothing, and HFFT_MEASURE's trial executes of the grid's
   plan then only write zeros over zeros.  Without room for the sum grid (its
   hfft_malloc refused: the stream's first), the pending grid is transformed in
   place and added.  Each way, both precisions, on the CPU and on an emulated card
   the image passes through. */
Test(stream, the_sum_grid_and_without_it) {
    hfft_options cpu, emu;
    cpu_options(&cpu);
    hfft_options_init(&emu);
    emu.device = HFFT_DEVICE_EMULATED;
    emu.device_memory = 32 << 10; /* smaller than the images: they pass through */
    emu.threads = 2;
    for (int prec = 4; prec <= 8; prec += 4)
        for (int way = 0; way < 3; way++) {
            unsigned flags = way == 1 ? HFFT_STREAM_DIRECT : way == 2 ? HFFT_STREAM_GRID : 0;
            for (size_t i = 0; i < 3; i++) {
                check_stream_from(prec, &shapes[i], HFFT_FORWARD, flags | HFFT_MEASURE, &cpu,
                                  way, 1);
                check_stream_from(prec, &shapes[i], HFFT_BACKWARD, flags | HFFT_MEASURE, &emu,
                                  way, 1);
            }
            if (way == 1)
                continue; /* (no grid way: no sum grid to refuse) */
            tu_fault_arm("host_alloc:1");
            check_stream(prec, &shapes[2 + prec / 4], HFFT_FORWARD, flags, &cpu, way);
            unsetenv("HFFT_FAULT");
        }
}

/* A grid flush whose transform of the sum grid into a host image fails: a negative
   status, the image not known, every point kept; the next flush, with nothing
   added since, transforms the sum grid again and the image is right. */
Test(stream, a_failed_grid_flush_runs_again) {
    static const shape sh = {2, {64, 64}};
    for (int prec = 4; prec <= 8; prec += 4) {
        hfft_options o;
        hfft_options_init(&o);
        o.device = HFFT_DEVICE_EMULATED;
        o.device_memory = 32 << 10; /* the image in host memory */
        o.threads = 2;
        int64_t total = tu_total(2, sh.n), count = 500;
        void *image = tu_alloc((size_t)total * tu_esize(prec));
        hfft_ref_fill(prec, image, total, tu_seed());
        oracle orc = oracle_make(prec, 2, sh.n, HFFT_FORWARD, image);
        ts t = ts_make(prec, 2, sh.n, image, HFFT_FORWARD, HFFT_STREAM_GRID, &o);
        cr_assert(t.s, "%s", hfft_last_error_message());
        int64_t *index = malloc((size_t)count * 2 * sizeof(int64_t));
        void *value = tu_alloc((size_t)count * tu_esize(prec));
        points(prec, 2, sh.n, count, 0, tu_seed(), index, value);
        cr_assert_eq(ts_add(t, count, index, value), 0);
        oracle_add(&orc, count, index, value);
        oracle_flush(&orc);
        tu_fault_arm("fft_exec:1");
        int st = ts_flush(t);
        unsetenv("HFFT_FAULT");
        cr_assert_lt(st, 0, "f%d: the flush with a failing transform gave %d", prec * 8, st);
        cr_assert(strstr(hfft_last_error_message(), "transforms the sum grid again"), "%s",
                  hfft_last_error_message());
        cr_assert_eq(ts_flush(t), 0, "f%d: %s", prec * 8, hfft_last_error_message());
        double e = oracle_error(&orc, image);
        cr_assert(e <= stream_tol(prec), "f%d: error %.3g after the flush ran again", prec * 8, e);
        hfft_stream_stats stats;
        cr_assert_eq(ts_info(t, &stats), 0);
        cr_assert_eq(stats.points_applied, count);
        ts_destroy(t);
        oracle_free(&orc);
        free(index);
        tu_free(value);
        tu_free(image);
    }
}

/* Every device call failing in turn, on an emulated card holding the image and on one
   it passes through: a NULL stream or a negative status with a message, never a
   crash; after a failure midway the stream says so at every call; destroying it
   frees everything (the sanitizer tree's leak check); a new stream works after. */
Test(stream, device_faults) {
    /* (peer and d2d: the grid flush of an image held on two cards, the third pass) */
    static const char *ops[] = {"alloc", "h2d",  "d2h",  "fft_plan", "fft_exec",
                                "kernel", "host_alloc", "peer", "d2d"};
    static const shape sh = {2, {64, 64}};
    int64_t total = tu_total(2, sh.n), count = 300;
    int64_t *index = malloc((size_t)count * 2 * sizeof(int64_t));
    float *value = tu_alloc((size_t)count * tu_esize(4));
    points(4, 2, sh.n, count, 0, tu_seed(), index, value);
    int failed[sizeof ops / sizeof ops[0]] = {0};
    for (int pass = 0; pass < 3; pass++)
        for (size_t k = 0; k < sizeof ops / sizeof ops[0]; k++)
            for (int nth = 1; nth <= 6; nth++) {
                hfft_options o;
                hfft_options_init(&o);
                o.device = HFFT_DEVICE_EMULATED;
                o.device_memory = pass == 1 ? 32 << 10 : 16 << 20;
                o.devices = pass == 2 ? "0,1" : NULL;
                o.threads = 2;
                void *image = tu_alloc((size_t)total * tu_esize(4));
                memset(image, 0, (size_t)total * tu_esize(4));
                char spec[32];
                snprintf(spec, sizeof spec, "%s:%d", ops[k], nth);
                tu_fault_arm(spec);
                unsigned way = nth % 2 ? HFFT_STREAM_DIRECT : pass == 2 ? HFFT_STREAM_GRID : 0;
                ts t = ts_make(4, 2, sh.n, image, HFFT_FORWARD, way, &o);
                int st = t.s ? ts_add(t, count, index, value) : hfft_last_error();
                if (t.s && !st)
                    st = ts_flush(t);
                unsetenv("HFFT_FAULT");
                if (st) {
                    failed[k]++;
                    cr_assert_lt(st, 0, "%s: status %d", spec, st);
                    cr_assert(strlen(hfft_last_error_message()) > 0, "%s: no message", spec);
                    /* a flush after it: nothing left to do (a grid's transform failed and
                       dropped its points), or refused, the card's image being unknown */
                    int again = t.s ? ts_flush(t) : 0;
                    cr_assert(again == 0 || (again == HFFT_ERR_INVALID_ARGUMENT &&
                                             strstr(hfft_last_error_message(),
                                                    "destroy the stream")),
                              "%s: a flush after the failure gave %d: %s", spec, again,
                              hfft_last_error_message());
                }
                if (t.s)
                    ts_destroy(t);
                tu_free(image);
            }
    hfft_options o;
    hfft_options_init(&o);
    o.device = HFFT_DEVICE_EMULATED;
    o.threads = 2;
    check_stream(4, &sh, HFFT_BACKWARD, 0, &o, 0);
    for (size_t k = 0; k < sizeof ops / sizeof ops[0]; k++)
        cr_assert_gt(failed[k], 0, "%s never failed a stream", ops[k]);
    free(index);
    tu_free(value);
}
