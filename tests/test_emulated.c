/*
 * test_emulated.c: the GPU engine's out-of-card schedule on the emulated
 * device (host memory, device budget enforced) with budgets of a few KiB so
 * that every round takes many passes: plain and radix-2 schedules, lines
 * longer than a pass (the recursive long-line path with radix 4, 3, 2 and 5),
 * 3D planes split into rounds, hybrid GPU/CPU shares, and what hfft_plan_info
 * reports.  Budgets too small for any pass fail with HFFT_ERR_BUDGET where a
 * placement is asked for, and run on the CPU (saying why) where it is not.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <criterion/parameterized.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ref.h"
#include "util.h"

TestSuite(emulated, .init = tu_setup, .fini = tu_env_clear);

/* o's defaults, on the emulated device with a device budget of `budget` bytes. */
static void emulated_options(hfft_options *o, int64_t budget) {
    hfft_options_init(o);
    o->device = HFFT_DEVICE_EMULATED;
    o->device_memory = budget;
}

struct emu_case {
    int prec;
    int rank;
    int64_t n[3];
    int64_t budget;   /* options.device_memory */
    unsigned flags;
    double ratio;     /* options.ratio (0: unset) */
    int64_t pass_bytes;
    int schedule;     /* expected info.schedule (0: do not check) */
    int rounds;       /* expected info.rounds (0: do not check) */
    int transposed;   /* 1: expect long strided lines computed transposed */
};

#define F32 4
#define F64 8
#define PLAIN HFFT_SCHEDULE_PLAIN
#define RADIX2 HFFT_SCHEDULE_RADIX2
#define FOUR 4 /* expected schedule: four-step streaming out of place, plain in place */

static void check_info(const struct emu_case *c, const hfft_info *info, int inplace) {
    char shape[64];
    tu_shape(shape, sizeof shape, c->prec, c->rank, c->n);
    int64_t bytes = tu_total(c->rank, c->n) * (int64_t)tu_esize(c->prec);
    cr_assert_eq(info->device, HFFT_DEVICE_EMULATED, "%s: device %d", shape, info->device);
    cr_assert_str_eq(info->device_name, "emulated");
    cr_assert_eq(info->device_budget, c->budget, "%s: device_budget %lld", shape,
                 (long long)info->device_budget);
    cr_assert(info->device_bytes > 0 && info->device_bytes <= info->device_budget,
              "%s: device_bytes %lld against a budget of %lld", shape,
              (long long)info->device_bytes, (long long)info->device_budget);
    int most = 0;
    for (int h = 0; h < info->rounds; h++)
        if (info->passes[h] > most)
            most = info->passes[h];
    if (bytes > c->budget)
        cr_assert_gt(most, 1, "%s (%lld bytes, budget %lld): at most %d pass per round", shape,
                     (long long)bytes, (long long)c->budget, most);
    int want = c->schedule == FOUR && inplace ? 1 : c->schedule;
    if (want)
        cr_assert_eq(info->schedule, want, "%s %s: schedule %d, expected %d", shape,
                     inplace ? "in-place" : "out-of-place", info->schedule, want);
    if (c->rounds)
        cr_assert_eq(info->rounds, c->rounds, "%s: %d rounds, expected %d", shape, info->rounds,
                     c->rounds);
    if (c->transposed)
        cr_assert_eq(info->transposed, 1, "%s: not computed transposed", shape);
    int hybrid = c->ratio > 0 || (c->flags & HFFT_HYBRID);
    cr_assert_eq(info->placement, hybrid ? 2 : 1, "%s: placement %d", shape, info->placement);
    if (hybrid)
        cr_assert_geq(info->threads, 1);
    for (int h = 0; h < info->rounds; h++) {
        cr_assert(info->ratio[h] >= 0.0 && info->ratio[h] <= 1.0);
        if (!hybrid)
            cr_assert_eq(info->ratio[h], 1.0, "%s: round %d ratio %g", shape, h, info->ratio[h]);
        else if (c->ratio > 0)
            cr_assert(info->ratio[h] > c->ratio - 0.26 && info->ratio[h] < c->ratio + 0.26,
                      "%s: round %d ratio %g, asked %g", shape, h, info->ratio[h], c->ratio);
    }
}

static void run_emu(const struct emu_case *c) {
    for (int inplace = 0; inplace < 2; inplace++) {
        for (int sgn = 0; sgn < 2; sgn++) {
            hfft_options o;
            emulated_options(&o, c->budget);
            o.ratio = c->ratio;
            o.pass_bytes = c->pass_bytes;
            o.threads = (c->ratio > 0 || (c->flags & HFFT_HYBRID)) ? 2 : 0;
            tu_case tc = {c->prec, c->rank, {c->n[0], c->n[1], c->n[2]}, inplace,
                          sgn ? HFFT_BACKWARD : HFFT_FORWARD, c->flags, &o, 0};
            hfft_info info;
            run_case(&tc, &info);
            check_info(c, &info, inplace);
        }
    }
}

ParameterizedTestParameters(emulated, schedules) {
    static struct emu_case cases[] = {
        /* plain passes, strided and contiguous rounds */
        {F32, 2, {64, 48}, 4096, PLAIN, 0, 0, 1, 2},
        {F64, 2, {64, 48}, 8192, PLAIN, 0, 0, 1, 2},
        {F32, 2, {97, 101}, 16384, PLAIN, 0, 0, 1, 2},
        {F64, 2, {7, 13}, 4096, 0, 0, 0, 0, 2},
        {F32, 2, {1000, 31}, 65536, 0, 0, 0, 0, 2},
        {F32, 1, {300}, 65536, 0, 0, 0, 1, 1},
        {F64, 1, {97}, 16384, 0, 0, 0, 1, 1},
        /* radix-2 inside a pass (strided length divisible by 4) */
        {F32, 2, {64, 48}, 4096, RADIX2, 0, 0, 2, 2},
        {F64, 2, {64, 48}, 8192, RADIX2, 0, 0, 2, 2},
        {F64, 2, {128, 36}, 65536, RADIX2, 0, 0, 2, 2},
        {F32, 2, {12, 60}, 4096, RADIX2, 0, 0, 2, 2},
        {F32, 2, {4, 9}, 4096, RADIX2, 0, 0, 2, 2},
        /* radix-2 asked where it does not apply: plain passes */
        {F32, 2, {97, 101}, 16384, RADIX2, 0, 0, 1, 2},
        {F64, 2, {30, 20}, 8192, RADIX2, 0, 0, 1, 2},
        /* a fixed pass size */
        {F32, 2, {64, 48}, 65536, PLAIN, 0, 1024, 1, 2},
        {F64, 2, {60, 50}, 65536, RADIX2, 0, 2048, 2, 2},
        /* lines longer than a pass: 4096 = 4^4 x 16, 729 = 3^3 x 27, 1250 = 2 x 5 x 5 x 25 */
        {F32, 2, {4096, 8}, 8192, PLAIN, 0, 0, 1, 2},
        {F64, 2, {4096, 8}, 16384, PLAIN, 0, 0, 1, 2},
        {F32, 2, {729, 8}, 8192, PLAIN, 0, 0, 1, 2},
        {F64, 2, {729, 5}, 16384, PLAIN, 0, 0, 1, 2},
        {F32, 2, {1250, 4}, 8192, PLAIN, 0, 0, 1, 2},
        {F64, 2, {1250, 4}, 16384, PLAIN, 0, 0, 1, 2},
        {F32, 2, {2048, 6}, 4096, RADIX2, 0, 0, 0, 2},
        {F32, 2, {1536, 3}, 4096, 0, 0, 0, 0, 2},
        {F32, 2, {3 * 7 * 11 * 13, 2}, 8192, 0, 0, 0, 0, 2},
        /* 3D: planes that fit, and planes split into two more rounds */
        {F32, 3, {8, 4, 4}, 65536, 0, 0, 0, 0, 2},
        {F32, 3, {12, 10, 14}, 2048, 0, 0, 0, 0, 3},
        {F64, 3, {5, 7, 11}, 2048, 0, 0, 0, 0, 3},
        {F32, 3, {2, 3, 257}, 8192, 0, 0, 0, 0, 3},
        {F32, 3, {16, 16, 16}, 4096, RADIX2, 0, 0, 2, 3},
        {F64, 3, {12, 8, 4}, 8192, RADIX2, 0, 0, 2, 0},
        {F32, 3, {1024, 2, 4}, 8192, 0, 0, 0, 0, 0},
        /* hybrid: a fixed GPU share, and the HFFT_HYBRID flag */
        {F32, 2, {64, 48}, 4096, 0, 0.3, 0, 0, 2},
        {F64, 2, {64, 48}, 8192, 0, 0.7, 0, 0, 2},
        {F32, 2, {64, 48}, 4096, 0, 0.97, 0, 0, 2},
        {F64, 2, {64, 48}, 8192, RADIX2, 0.7, 0, 2, 2},
        {F32, 2, {97, 101}, 16384, HFFT_HYBRID, 0, 0, 0, 2},
        {F32, 2, {4096, 8}, 8192, 0, 0.5, 0, 0, 2},
        {F32, 2, {729, 8}, 8192, 0, 0.3, 0, 0, 2},
        {F32, 3, {12, 10, 14}, 2048, HFFT_HYBRID, 0, 0, 0, 3},
        {F64, 3, {20, 6, 5}, 65536, 0, 0.5, 0, 0, 2},
        /* hybrid, the CPU's share through tiles of long columns and whole-pool planes */
        {F32, 2, {4000, 64}, 1 << 20, 0, 0.4, 0, 0, 2},
        {F32, 3, {4, 400, 400}, 8 << 20, 0, 0.5, 0, 0, 2},
        /* passes ramped up and down at the edges of a round (many units per pass) */
        {F32, 2, {16, 1000}, 65536, PLAIN, 0, 0, 1, 2},
        {F64, 2, {1000, 16}, 65536, PLAIN, 0, 0, 1, 2},
        {F32, 2, {8, 1000}, 65536, PLAIN, 0.7, 0, 1, 2},
        /* sizes of one: dimensions squeezed out before the device sees them */
        {F32, 2, {1, 1}, 4096, 0, 0, 0, 0, 0},
        {F64, 3, {1, 7, 1}, 4096, 0, 0, 0, 0, 0},
        {F32, 2, {17, 1}, 4096, 0, 0, 0, 0, 0},
        {F32, 2, {1, 64}, 4096, 0, 0, 0, 0, 0},
        {F64, 3, {1, 40, 6}, 4096, 0, 0, 0, 0, 2},
        /* 3D: a long Z and planes split */
        {F32, 3, {256, 10, 10}, 1024, 0, 0, 0, 0, 3},
        /* a pass size below a line: the long-line split (64 = 4 x 4 x 4) */
        {F32, 2, {64, 16}, 65536, 0, 0, 256, 1, 2},
        /* long strided lines (L >= 4096) several to a pass: computed transposed */
        {F32, 2, {4096, 16}, 1 << 20, 0, 0, 131072, 1, 2, 1},
        {F64, 2, {4096, 12}, 2 << 20, PLAIN, 0, 262144, 1, 2, 1},
        {F32, 2, {65536, 4}, 1 << 20, 0, 0, 131072, 1, 2, 1},
        {F32, 2, {8192, 20}, 1 << 20, 0, 0.5, 131072, 0, 2, 1},
        /* four-step streaming out of place (in place: plain): d0 = fa fb, passes of
           whole rows ramped at both ends of each round; 1000 = 25 x 40 (passes of up
           to 6 and 4 units), 100 = 10 x 10 one unit a pass, 4096 = 64 x 64, 3D
           planes as rows; round B on pieces of rows (16 x 1000: 2 x 8, 50 pieces a
           row; 128 x 12 x 10: 10 pieces); 97 is prime (plain) */
        {F32, 2, {1000, 16}, 65536, 0, 0, 0, FOUR, 2},
        {F64, 2, {1000, 16}, 131072, 0, 0, 0, FOUR, 2},
        {F32, 2, {100, 30}, 8192, 0, 0, 0, FOUR, 2},
        {F32, 2, {16, 1000}, 65536, 0, 0, 0, FOUR, 2},
        {F64, 2, {36, 2000}, 524288, 0, 0, 0, FOUR, 2},
        {F64, 2, {4096, 12}, 131072, 0, 0, 0, FOUR, 2},
        {F32, 3, {128, 12, 10}, 65536, 0, 0, 0, FOUR, 2},
        {F64, 3, {60, 7, 9}, 32768, 0, 0, 0, FOUR, 0},
        {F32, 2, {97, 101}, 16384, 0, 0, 0, 1, 2},
        /* GPU only, said explicitly */
        {F32, 2, {64, 48}, 4096, HFFT_GPU_ONLY, 0, 0, 0, 2},
        {F64, 3, {5, 7, 11}, 2048, HFFT_GPU_ONLY | RADIX2, 0, 0, 0, 3},
    };
    /* HFFT_TEST_EVERY=k: every k-th case only, from the first (CI under valgrind, where
       each case costs seconds; every case runs in the other trees). */
    size_t n = sizeof cases / sizeof cases[0];
    const char *every = getenv("HFFT_TEST_EVERY");
    long k = every ? strtol(every, NULL, 10) : 1;
    if (k > 1) {
        size_t m = 0;
        for (size_t i = 0; i < n; i += (size_t)k)
            cases[m++] = cases[i];
        n = m;
    }
    return cr_make_param_array(struct emu_case, cases, n);
}

ParameterizedTest(struct emu_case *c, emulated, schedules) { run_emu(c); }

/* options.round_ratio: a GPU share per round (overriding ratio where set). */
Test(emulated, round_ratio) {
    static const struct {
        int prec, rank;
        int64_t n[3];
        double ratio, rr[3];
        double want[3]; /* GPU share per round, approximately */
    } cases[] = {
        {4, 2, {64, 48}, 0, {0.5, 0, 0}, {0.5, 1, 0}},
        {8, 2, {64, 48}, 0, {0, 0.25, 0}, {1, 0.25, 0}},
        {4, 2, {64, 48}, 0.4, {0, 1.0, 0}, {0.4, 1, 0}},
        {4, 3, {12, 10, 14}, 0, {0.3, 0.6, 0.9}, {0.3, 0.6, 0.9}},
        {8, 2, {4096, 8}, 0, {0.5, 0.1, 0}, {0.5, 0.1, 0}},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        hfft_options o;
        emulated_options(&o, cases[i].prec == 4 ? 8192 : 16384);
        o.threads = 2;
        o.ratio = cases[i].ratio;
        for (int h = 0; h < 3; h++)
            o.round_ratio[h] = cases[i].rr[h];
        for (int inplace = 0; inplace < 2; inplace++) {
            tu_case c = {cases[i].prec, cases[i].rank,
                         {cases[i].n[0], cases[i].n[1], cases[i].n[2]}, inplace, HFFT_FORWARD,
                         0, &o, 0};
            hfft_info info;
            run_case(&c, &info);
            cr_assert_eq(info.placement, 2, "case %zu: placement %d", i, info.placement);
            for (int h = 0; h < info.rounds; h++)
                cr_assert(info.ratio[h] > cases[i].want[h] - 0.13 &&
                              info.ratio[h] < cases[i].want[h] + 0.13,
                          "case %zu round %d: GPU share %g, asked %g", i, h, info.ratio[h],
                          cases[i].want[h]);
        }
    }
}

/* HFFT_HYBRID: "GPU and CPU together, even where the model disagrees", small
   problems included (a round of a few units still gives the CPU one). */
Test(emulated, hybrid_flag_on_small_problems) {
    static const int64_t shapes[][2] = {{4, 4}, {5, 5}, {3, 7}, {6, 2}};
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++) {
        hfft_options o;
        emulated_options(&o, 65536);
        tu_case c = {4, 2, {shapes[i][0], shapes[i][1]}, 1, HFFT_FORWARD, HFFT_HYBRID, &o, 0};
        hfft_info info;
        run_case(&c, &info);
        cr_assert_eq(info.placement, 2,
                     "%lldx%lld with HFFT_HYBRID: placement %d, GPU shares %g and %g",
                     (long long)shapes[i][0], (long long)shapes[i][1], info.placement,
                     info.ratio[0], info.ratio[1]);
    }
}

/*
 * A CPU share beside several cards streaming theirs (the array larger than the
 * cards' budgets together): each round's GPU units cut between the cards, the
 * rest on the CPU; fixed shares, HFFT_HYBRID (on four cards, with fewer GPU
 * units than cards in a round) and HFFT_MEASURE's probe; both precisions, in
 * and out of place, against FFTW.
 */
Test(emulated, hybrid_over_cards) {
    static const struct {
        const char *devices;
        int prec, rank;
        int64_t n[3];
        int64_t budget;
        unsigned flags;
        double rr[3]; /* options.round_ratio (0: unset) */
    } cases[] = {
        {"0,1", F32, 2, {64, 48}, 4096, 0, {0.6, 0.3}},
        {"0,1", F64, 3, {12, 10, 14}, 8192, HFFT_HYBRID, {0}},
        {"1,0", F64, 2, {64, 48}, 8192, 0, {0.25, 0.75}},
        {"0,1,2,3", F32, 2, {97, 101}, 16384, 0, {0.5, 0.5}},
        {"0,1,2,3", F64, 2, {5, 3}, 1024, HFFT_HYBRID, {0}},
        {"0,1", F32, 2, {64, 48}, 4096, HFFT_MEASURE, {0}},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        for (int inplace = 0; inplace < 2; inplace++) {
            hfft_options o;
            emulated_options(&o, cases[i].budget);
            o.devices = cases[i].devices;
            o.threads = 2;
            for (int h = 0; h < 3; h++)
                o.round_ratio[h] = cases[i].rr[h];
            tu_case c = {cases[i].prec, cases[i].rank,
                         {cases[i].n[0], cases[i].n[1], cases[i].n[2]}, inplace, HFFT_BACKWARD,
                         cases[i].flags, &o, 0};
            c.fill_after_plan = (cases[i].flags & HFFT_MEASURE) != 0;
            hfft_info info;
            run_case(&c, &info);
            int ncard = (int)(strlen(cases[i].devices) + 1) / 2;
            cr_assert_eq(info.cards, ncard, "case %zu: %d cards", i, info.cards);
            cr_assert_neq(info.schedule, 3, "case %zu: one trip", i);
            if (cases[i].flags & HFFT_MEASURE) {
                cr_assert(info.predicted_seconds[0] > 0, "case %zu: no probe", i);
                continue;
            }
            cr_assert_eq(info.placement, 2, "case %zu: placement %d", i, info.placement);
            for (int h = 0; h < info.rounds && cases[i].rr[0] > 0; h++)
                cr_assert(fabs(info.ratio[h] - cases[i].rr[h]) < 0.13,
                          "case %zu round %d: GPU share %g, asked %g", i, h, info.ratio[h],
                          cases[i].rr[h]);
        }
}

/* A forward GPU-only transform of shape n under o, checked against FFTW. */
static void run_gpu_only(int prec, int rank, const int64_t *n, int inplace, hfft_options *o,
                         hfft_info *info) {
    tu_case c = {prec, rank, {n[0], n[1], n[2]}, inplace, HFFT_FORWARD, HFFT_GPU_ONLY, o};
    run_case(&c, info);
}

/*
 * Several cards streaming a plan larger than their budgets together: out of
 * place four-step, each card its share of both rounds, keeping its last groups
 * of round A; in place the plain schedule, each card keeping the last columns
 * of its share of round 1.  The next round on every card reads what each card
 * kept from that card (card to card).  Each way the link moves 2 S less what
 * the cards keep, and the results match FFTW's.
 */
Test(emulated, four_step_over_cards) {
    static const struct {
        int rank;
        int64_t n[3];
    } shapes[] = {{2, {256, 384}}, {3, {64, 24, 40}}, {2, {4096, 96}}};
    static const char *const devices[] = {"0,1", "0,1,2", "0,1,2,3"};
    for (int prec = 4; prec <= 8; prec += 4)
        for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++)
            for (int nd = 0; nd < 3; nd++) {
                int ncard = nd + 2, seen = 0;
                int64_t total = tu_total(shapes[i].rank, shapes[i].n);
                int64_t bytes = total * (int64_t)tu_esize(prec);
                for (int q = 2; q <= 6; q += 2) {
                    hfft_options o;
                    emulated_options(&o, bytes * q / 8 / ncard); /* all cards: S/4 .. 3S/4 */
                    o.devices = devices[nd];
                    for (int inplace = 0; inplace < 2; inplace++) {
                        hfft_info info;
                        run_gpu_only(prec, shapes[i].rank, shapes[i].n, inplace, &o, &info);
                        cr_assert_eq(info.cards, ncard, "shape %zu: %d cards", i, info.cards);
                        /* (in place, and where the smallest budgets leave a card no room for
                           three of its units, the plain schedule, each card keeping the last
                           columns of its share where there is room) */
                        cr_assert(info.schedule == (inplace ? HFFT_SCHED_PLAIN
                                                            : HFFT_SCHED_FOUR_STEP) ||
                                      (q == 2 && info.schedule == HFFT_SCHED_PLAIN),
                                  "shape %zu on %d cards, budget %d/8: schedule %d", i, ncard, q,
                                  info.schedule);
                        int64_t want = 2 * bytes - info.resident_bytes;
                        cr_assert(info.link_bytes[0] == want && info.link_bytes[1] == want,
                                  "shape %zu on %d cards, budget %d/8: %lld in, %lld out, %lld "
                                  "resident of %lld",
                                  i, ncard, q, (long long)info.link_bytes[0],
                                  (long long)info.link_bytes[1], (long long)info.resident_bytes,
                                  (long long)bytes);
                        if (info.resident_bytes > 0)
                            seen |= inplace ? 2 : 1;
                    }
                }
                cr_assert(seen & 1, "shape %zu f%d on %d cards: four-step kept nothing", i,
                          prec * 8, ncard);
                cr_assert(seen & 2 || shapes[i].rank == 3,
                          "shape %zu f%d on %d cards: in place, nothing kept", i, prec * 8, ncard);
            }
}

/*
 * Cards of different memory (HFFT_EMULATED_MEMORY), as CUDA cards whose free
 * memory differs: each sizes its own passes, so their four-step layouts may
 * differ (card 1 of the first case cuts round B's rows finer: at budgets under
 * about 200 MiB a card's passes set the pieces), or one may have no room for
 * four-step at all; the cards then stream the plain schedule, each keeping what
 * its memory leaves room for.  Results and link bytes stay right.
 */
Test(emulated, cards_of_different_memory) {
    static const struct {
        int prec;
        int64_t n[2];
        int64_t budget;
        const char *memory;
        int inplace, schedule;
    } cases[] = {
        {F64, {256, 384}, 400000, "1:300000", 0, HFFT_SCHED_PLAIN},
        {F64, {256, 384}, 400000, "2:40000", 0, HFFT_SCHED_PLAIN},
        {F32, {256, 384}, 200000, "0:120000,2:150000", 1, HFFT_SCHED_PLAIN},
        /* more memory than the budget: the budget, the same layout on every card */
        {F32, {256, 384}, 100000, "1:10000000", 0, HFFT_SCHED_FOUR_STEP},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        setenv("HFFT_EMULATED_MEMORY", cases[i].memory, 1);
        hfft_options o;
        emulated_options(&o, cases[i].budget);
        o.devices = "0,1,2";
        int64_t n[3] = {cases[i].n[0], cases[i].n[1], 0};
        hfft_info info;
        run_gpu_only(cases[i].prec, 2, n, cases[i].inplace, &o, &info);
        unsetenv("HFFT_EMULATED_MEMORY");
        int64_t bytes = n[0] * n[1] * (int64_t)tu_esize(cases[i].prec);
        int64_t want = 2 * bytes - info.resident_bytes;
        cr_assert_eq(info.cards, 3, "case %zu: %d cards", i, info.cards);
        cr_assert_eq(info.schedule, cases[i].schedule, "case %zu: schedule %d", i, info.schedule);
        cr_assert(info.resident_bytes > 0, "case %zu: nothing kept", i);
        cr_assert(info.link_bytes[0] == want && info.link_bytes[1] == want,
                  "case %zu: %lld in, %lld out, %lld resident of %lld", i,
                  (long long)info.link_bytes[0], (long long)info.link_bytes[1],
                  (long long)info.resident_bytes, (long long)bytes);
    }
}

/*
 * One trip over several cards where the budget leaves the last card room for fewer
 * columns than an even share: every column must still be some card's (each card
 * takes no more than it holds, and the others take what is left).  The sizes and
 * budgets are those where a card's columns once went unwritten.
 */
Test(emulated, one_trip_over_cards_every_column) {
    static const struct {
        const char *devices;
        int prec;
        int64_t n[2];
        int64_t budget;
        int trip; /* the cards hold it: one trip (else they stream) */
    } cases[] = {
        {"0,1,2", F32, {179, 8}, 5120, 1},      {"0,1,2", F32, {121, 14}, 6144, 1},
        {"0,1,2,3", F32, {55, 31}, 4096, 1},    {"0,1,2,3", F32, {185, 35}, 16384, 1},
        {"0,1,2,3", F32, {105, 19}, 5120, 1},   {"0,1,2,3", F64, {55, 31}, 8192, 1},
        {"0,1", F32, {100, 17}, 8192, 1},       {"0,1,2", F32, {199, 8}, 5120, 1},
        {"0,1", F32, {100, 17}, 6144, 0},
        /* eight cards, as an HGX node has: one trip, and streaming where it does not fit */
        {"0,1,2,3,4,5,6,7", F32, {211, 24}, 8192, 1},
        {"0,1,2,3,4,5,6,7", F64, {96, 40}, 12288, 1},
        {"0,1,2,3,4,5,6,7", F32, {211, 24}, 4096, 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        for (int inplace = 0; inplace < 2; inplace++) {
            hfft_options o;
            emulated_options(&o, cases[i].budget);
            o.devices = cases[i].devices;
            tu_case c = {cases[i].prec, 2, {cases[i].n[0], cases[i].n[1]}, inplace, HFFT_FORWARD,
                         HFFT_GPU_ONLY, &o, 0};
            hfft_info info;
            run_case(&c, &info);
            int ncard = (int)(strlen(cases[i].devices) + 1) / 2;
            cr_assert_eq(info.cards, ncard, "case %zu: %d cards", i, info.cards);
            cr_assert_eq(info.schedule == 3, cases[i].trip, "case %zu: schedule %d", i,
                         info.schedule);
        }
}

/*
 * A long line (cut four-step) on two cards, where the first holds its whole trip:
 * it runs there alone, each byte once over one link, rather than streaming over
 * both with a host array between its rounds; where no card holds it, both stream.
 * Against FFTW, in and out of place.
 */
Test(emulated, long_line_two_cards_one_trip) {
    static const struct {
        int prec;
        int64_t budget;
        int cards, trip;
    } cases[] = {
        {F32, 1 << 20, 1, 1},
        {F32, 640 << 10, 1, 1},
        {F32, 256 << 10, 2, 0},
        {F64, 1 << 20, 2, 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        for (int inplace = 0; inplace < 2; inplace++) {
            hfft_options o;
            emulated_options(&o, cases[i].budget);
            o.devices = "0,1";
            o.threads = 2;
            tu_case c = {cases[i].prec, 1, {65536}, inplace, HFFT_FORWARD, 0, &o, 0};
            hfft_info info;
            run_case(&c, &info);
            cr_assert_eq(info.rounds, 2, "case %zu: %d rounds (not cut)", i, info.rounds);
            cr_assert_eq(info.cards, cases[i].cards, "case %zu: %d cards", i, info.cards);
            cr_assert_eq(info.schedule == 3, cases[i].trip, "case %zu: schedule %d", i,
                         info.schedule);
            int64_t s = 65536 * 2 * (int64_t)cases[i].prec;
            cr_assert_eq(info.link_bytes[0], cases[i].trip ? s : 2 * s, "case %zu: %lld bytes in",
                         i, (long long)info.link_bytes[0]);
        }
}

/* A hybrid beside four-step streaming executed again on the same arrays gives the
   same output up to rounding: nothing of the first execute (shares, buffers, the
   GPU's passes, the units taken back) is left to change the second.  Not bit for
   bit: where the CPU runs late the GPU takes back units it has not started, so
   which side computes a unit can change between executes, and the two round
   differently.  (A stale round-A counter would let tiles run before their rows;
   on two cores that race rarely shows, so this does not stand for a race
   detector.) */
Test(emulated, hybrid_four_step_again) {
    int64_t n[2] = {96, 100};
    size_t bytes = (size_t)(n[0] * n[1]) * sizeof(hfftf_complex);
    hfftf_complex *a = tu_alloc(bytes), *b = tu_alloc(bytes);
    hfft_ref_fill(4, a, n[0] * n[1], tu_seed());
    hfft_options o;
    emulated_options(&o, 64 << 10);
    o.threads = 3;
    o.round_ratio[0] = 0.5;
    o.round_ratio[1] = 0.5;
    hfftf_plan p = hfftf_plan_dft(2, n, a, b, HFFT_FORWARD, 0, &o);
    cr_assert(p, "%s", hfft_last_error_message());
    cr_assert_eq(hfftf_execute(p), 0, "%s", hfft_last_error_message());
    hfft_info info;
    hfftf_plan_info(p, &info);
    cr_assert_eq(info.schedule, 4, "schedule %d", info.schedule);
    cr_assert_eq(info.placement, 2, "placement %d", info.placement);
    void *first = tu_dup(b, bytes);
    tu_poison(b, bytes);
    cr_assert_eq(hfftf_execute(p), 0, "%s", hfft_last_error_message());
    double e = tu_rel_rms(4, b, first, n[0] * n[1]);
    cr_assert(e < tu_tol(4), "the second execute differs from the first by %g", e);
    hfftf_destroy_plan(p);
    tu_free(a);
    tu_free(b);
    tu_free(first);
}

/* options.slots: pass buffers on the device, 2 to 8. */
Test(emulated, slots) {
    for (int slots = 2; slots <= 8; slots++) {
        for (int prec = 4; prec <= 8; prec += 4) {
            hfft_options o;
            emulated_options(&o, prec == 4 ? 8192 : 16384);
            o.slots = slots;
            tu_case c = {prec, 2, {64, 48}, slots % 2, HFFT_BACKWARD, HFFT_SCHEDULE_PLAIN, &o, 0};
            hfft_info info;
            run_case(&c, &info);
            cr_assert_eq(info.streams, slots, "slots %d: %d buffers in flight", slots,
                         info.streams);
            cr_assert_leq(info.device_bytes, info.device_budget);
            c.flags = HFFT_SCHEDULE_RADIX2;
            run_case(&c, &info);
            cr_assert_eq(info.schedule, 2);
            cr_assert_leq(info.device_bytes, info.device_budget);
        }
    }
}

/* HFFT_MEASURE with a device and no wisdom runs the transform on the plan's
   arrays at plan time (overwriting them, as FFTW_MEASURE does: the input is
   filled after planning) and sets the shares from what it measured: any share
   is fine, the result must be right. */
Test(emulated, measure_probe) {
    static const struct {
        int prec, rank;
        int64_t n[3];
        int64_t budget;
    } cases[] = {
        {4, 2, {64, 48}, 8192},
        {8, 2, {97, 101}, 65536},
        {4, 3, {12, 10, 14}, 4096},
        {4, 2, {4096, 8}, 8192},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        hfft_options o;
        emulated_options(&o, cases[i].budget);
        o.threads = 2;
        for (int inplace = 0; inplace < 2; inplace++) {
            tu_case c = {cases[i].prec, cases[i].rank,
                         {cases[i].n[0], cases[i].n[1], cases[i].n[2]}, inplace, HFFT_FORWARD,
                         HFFT_MEASURE, &o, 0, 1};
            hfft_info info;
            run_case(&c, &info);
            cr_assert_eq(info.device, HFFT_DEVICE_EMULATED);
            for (int h = 0; h < info.rounds; h++)
                cr_assert(info.ratio[h] >= 0 && info.ratio[h] <= 1);
            cr_assert_leq(info.device_bytes, info.device_budget);
        }
    }
}

/* HFFT_DEVICE=emulated and HFFT_DEVICE_MEMORY from the environment. */
Test(emulated, settings_from_environment) {
    setenv("HFFT_DEVICE", "emulated", 1);
    setenv("HFFT_DEVICE_MEMORY", "8KiB", 1);
    tu_case c = {4, 2, {64, 40}, 0, HFFT_FORWARD, 0, NULL, 1};
    hfft_info info;
    run_case(&c, &info);
    cr_assert_eq(info.device, HFFT_DEVICE_EMULATED);
    cr_assert_eq(info.device_budget, 8192);
    cr_assert(info.device_bytes <= 8192);
    cr_assert_gt(info.passes[0], 1);
    /* An options field wins over its variable. */
    setenv("HFFT_DEVICE_MEMORY", "garbage", 1);
    hfft_options o;
    hfft_options_init(&o);
    o.device_memory = 16384;
    c.use_nd = 0;
    c.opts = &o;
    run_case(&c, &info);
    cr_assert_eq(info.device, HFFT_DEVICE_EMULATED);
    cr_assert_eq(info.device_budget, 16384);
    o.device = HFFT_DEVICE_NONE;
    run_case(&c, &info);
    cr_assert_eq(info.device, HFFT_DEVICE_NONE);
    unsetenv("HFFT_DEVICE");
    unsetenv("HFFT_DEVICE_MEMORY");
}

/* Plans of one emulated budget each: several alive at once all stay correct
   (each opens its own device), and one plan executes many times. */
Test(emulated, repeated_and_coexisting_plans) {
    int64_t n[2] = {128, 20};
    int64_t total = n[0] * n[1];
    size_t bytes = (size_t)total * 8;
    hfft_options o;
    emulated_options(&o, 4096);
    void *in[3], *out[3];
    hfftf_plan p[3];
    for (int i = 0; i < 3; i++) {
        in[i] = tu_alloc(bytes);
        out[i] = i == 1 ? in[i] : tu_alloc(bytes);
        unsigned fl = i == 2 ? HFFT_SCHEDULE_RADIX2 : 0;
        p[i] = hfftf_plan_dft(2, n, in[i], out[i], i ? HFFT_BACKWARD : HFFT_FORWARD, fl, &o);
        cr_assert(p[i], "%s", hfft_last_error_message());
    }
    for (int rep = 0; rep < 3; rep++) {
        for (int i = 0; i < 3; i++) {
            uint64_t seed = tu_seed();
            hfft_ref_fill(4, in[i], total, seed);
            void *orig = tu_dup(in[i], bytes);
            if (out[i] != in[i])
                tu_poison(out[i], bytes);
            cr_assert_eq(hfftf_execute(p[i]), 0, "%s", hfft_last_error_message());
            double err = hfft_ref_error(4, 2, n, orig, out[i], i ? HFFT_BACKWARD : HFFT_FORWARD, 1);
            cr_assert(err >= 0 && err < TU_TOL_F, "plan %d rep %d: error %.3g (seed %llu)", i, rep,
                      err, (unsigned long long)seed);
            tu_free(orig);
        }
    }
    for (int i = 0; i < 3; i++) {
        hfftf_destroy_plan(p[i]);
        if (out[i] != in[i])
            tu_free(out[i]);
        tu_free(in[i]);
    }
}

/* Unaligned arrays (one complex element off 64 bytes) through the device. */
Test(emulated, unaligned_arrays) {
    int64_t n[2] = {64, 24};
    int64_t total = n[0] * n[1];
    for (int prec = 4; prec <= 8; prec += 4) {
        size_t es = tu_esize(prec), bytes = (size_t)total * es;
        for (int inplace = 0; inplace < 2; inplace++) {
            char *ba = tu_alloc(bytes + 64), *bb = tu_alloc(bytes + 64);
            char *in = ba + es, *out = inplace ? in : bb + 3 * es;
            hfft_options o;
            emulated_options(&o, 8192);
            uint64_t seed = tu_seed();
            hfft_ref_fill(prec, in, total, seed);
            void *orig = tu_dup(in, bytes);
            if (!inplace)
                tu_poison(out, bytes);
            tplan t = tp_dft(prec, 2, n, in, out, HFFT_FORWARD, HFFT_SCHEDULE_RADIX2, &o);
            cr_assert(t.p, "%s", hfft_last_error_message());
            cr_assert_eq(tp_execute(t), 0, "%s", hfft_last_error_message());
            double err = hfft_ref_error(prec, 2, n, orig, out, HFFT_FORWARD, 1);
            cr_assert(err >= 0 && err < tu_tol(prec), "f%d unaligned: error %.3g (seed %llu)",
                      prec * 8, err, (unsigned long long)seed);
            tp_destroy(t);
            tu_free(orig);
            tu_free(bb);
            tu_free(ba);
        }
    }
}

/*
 * Rounds of other schedules after a plain round, and four-step lines, at small
 * budgets (found by a review's stress runs): a radix-2 round after a plain one
 * started before the plain round's last copies out had landed (GPU-only rounds
 * meet without a drain, and only plain rounds waited for the round before); a
 * four-step column round went to radix-2 or to the long-line schedule, neither
 * of which applies the four-step twiddles (now refused: BUDGET where no other
 * schedule fits); a real transform that fell back to the CPU still reported
 * the GPU's placement and shares.
 */
Test(emulated, rounds_after_plain_and_four_step_lines) {
    static const struct {
        int prec, rank;
        int64_t n[3];
        int64_t budget;
    } cases[] = {{8, 3, {6, 64, 8}, 8192},
                 {4, 3, {6, 64, 8}, 4096},
                 {4, 1, {4096}, 8192},
                 {8, 1, {4096}, 16384},
                 {4, 2, {64, 96}, 4096}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        for (int inplace = 0; inplace < 2; inplace++) {
            hfft_options o;
            emulated_options(&o, cases[i].budget);
            tu_case c = {cases[i].prec,
                         cases[i].rank,
                         {cases[i].n[0], cases[i].n[1], cases[i].n[2]},
                         inplace,
                         HFFT_FORWARD,
                         HFFT_GPU_ONLY | HFFT_SCHEDULE_RADIX2,
                         &o};
            run_case(&c, NULL);
        }
    /* r2c: the real rows first, then radix-2 columns */
    int64_t nr[2] = {64, 96};
    size_t rb = (size_t)(nr[0] * nr[1]) * sizeof(float), cb = (size_t)(nr[0] * 49) * 8;
    float *x = tu_alloc(rb);
    hfftf_complex *y = tu_alloc(cb);
    hfft_ref_fill(4, x, nr[0] * nr[1] / 2, tu_seed());
    hfft_options o;
    emulated_options(&o, 8192);
    for (int rep = 0; rep < 3; rep++) {
        tu_poison(y, cb);
        hfftf_plan p = hfftf_plan_dft_r2c(2, nr, x, y, HFFT_GPU_ONLY | HFFT_SCHEDULE_RADIX2, &o);
        cr_assert(p, "%s", hfft_last_error_message());
        cr_assert_eq(hfftf_execute(p), 0, "%s", hfft_last_error_message());
        double e = hfft_ref_error_many(4, 1, 2, nr, 1, x, y, HFFT_FORWARD, 1);
        cr_assert(e >= 0 && e < tu_tol(4), "r2c 64 x 96 radix-2: error %g", e);
        hfftf_destroy_plan(p);
    }
    tu_free(x);
    tu_free(y);
    /* a four-step line whose columns fit no pass: refused, not computed wrong */
    int64_t n = 2310;
    double *a = tu_alloc((size_t)n * 16), *b = tu_alloc((size_t)n * 16);
    o.device_memory = 3072;
    hfft_plan q =
        hfft_plan_dft(1, &n, (hfft_complex *)a, (hfft_complex *)b, HFFT_FORWARD, HFFT_GPU_ONLY, &o);
    cr_assert_null(q, "1D 2310 f64 under 3 KiB: planned");
    cr_assert_eq(hfft_last_error(), HFFT_ERR_BUDGET, "%s", hfft_last_error_message());
    tu_free(a);
    tu_free(b);
    /* real data the engine refuses goes to FFTW's plan on the CPU, and says so */
    int64_t nw[2] = {64, 4096};
    double *xr = tu_alloc((size_t)(nw[0] * nw[1]) * 8);
    hfft_complex *yr = tu_alloc((size_t)(nw[0] * 2049) * 16);
    hfft_ref_fill(8, xr, nw[0] * nw[1] / 2, tu_seed());
    o.device_memory = 1024;
    hfft_plan w = hfft_plan_dft_r2c(2, nw, xr, yr, 0, &o);
    cr_assert(w, "%s", hfft_last_error_message());
    cr_assert_eq(hfft_execute(w), 0, "%s", hfft_last_error_message());
    hfft_info info;
    hfft_plan_info(w, &info);
    cr_assert(info.placement == 0 && info.ratio[0] == 0 && info.done_ratio[0] == 0,
              "fallback to the CPU: placement %d, ratio %g, done %g", info.placement, info.ratio[0],
              info.done_ratio[0]);
    double e = hfft_ref_error_many(8, 1, 2, nw, 1, xr, yr, HFFT_FORWARD, 1);
    cr_assert(e >= 0 && e < tu_tol(8), "r2c on the CPU: error %g", e);
    hfft_destroy_plan(w);
    tu_free(xr);
    tu_free(yr);
}

/* ---- budgets the problem cannot fit ---- */

/* A problem the emulated engine cannot take under `budget`, on a device named in the
   settings.  With a placement or schedule flag: HFFT_ERR_BUDGET with a message naming
   `needle`, the array untouched.  Without: a plan on the CPU whose hfft_info.note says
   why (naming `needle`), giving FFTW's answer. */
static void small_budget_case(int prec, int rank, const int64_t *n, int64_t budget,
                              unsigned flags, const char *needle) {
    int64_t total = tu_total(rank, n);
    size_t bytes = (size_t)total * tu_esize(prec);
    void *a = tu_alloc(bytes);
    uint64_t seed = tu_seed();
    hfft_ref_fill(prec, a, total, seed);
    void *orig = tu_dup(a, bytes);
    hfft_options o;
    emulated_options(&o, budget);
    char shape[64];
    tu_shape(shape, sizeof shape, prec, rank, n);
    tplan t = tp_dft(prec, rank, n, a, a, HFFT_FORWARD, flags, &o);
    if (flags) {
        cr_assert_null(t.p, "%s with a %lld-byte budget: a plan", shape, (long long)budget);
        cr_assert_eq(hfft_last_error(), HFFT_ERR_BUDGET, "%s: status %d (%s)", shape,
                     hfft_last_error(), hfft_last_error_message());
        const char *msg = hfft_last_error_message();
        cr_assert(msg && *msg, "%s: empty message", shape);
        cr_assert(strstr(msg, needle) != NULL, "%s: message '%s' does not mention '%s'", shape,
                  msg, needle);
        cr_assert(memcmp(a, orig, bytes) == 0, "%s: the failed plan changed the array", shape);
    } else {
        cr_assert_not_null(t.p, "%s with a %lld-byte budget on a named device: %s", shape,
                           (long long)budget, hfft_last_error_message());
        hfft_info info;
        cr_assert_eq(tp_info(t, &info), 0);
        cr_assert_eq(info.device, HFFT_DEVICE_NONE, "%s: device %d", shape, info.device);
        cr_assert(strstr(info.note, "on the CPU, not on emulated") && strstr(info.note, needle),
                  "%s: note '%s' does not say why (%s)", shape, info.note, needle);
        cr_assert_eq(tp_execute(t), 0, "%s: %s", shape, hfft_last_error_message());
        double err = hfft_ref_error(prec, rank, n, orig, a, HFFT_FORWARD, 1);
        cr_assert(err >= 0 && err < tu_tol(prec), "%s: error %.3g (seed %llu)", shape, err,
                  (unsigned long long)seed);
        tp_destroy(t);
    }
    tu_free(orig);
    tu_free(a);
}

/* One line that fits the budget is one pass of its own: the passes are not cut below
   a line (a 8 or 16 MiB line under 8 times its size, where a quarter of the array is
   less than the line and more than the smallest automatic pass). */
Test(emulated, a_single_line_is_one_pass) {
    for (int prec = 4; prec <= 8; prec += 4) {
        int64_t n[1] = {1 << 20};
        size_t bytes = (size_t)n[0] * tu_esize(prec);
        void *a = tu_alloc(bytes), *b = tu_alloc(bytes);
        uint64_t seed = tu_seed();
        hfft_ref_fill(prec, a, n[0], seed);
        tu_poison(b, bytes);
        hfft_options o;
        emulated_options(&o, 8 * (int64_t)bytes);
        tplan t = tp_dft(prec, 1, n, a, b, HFFT_FORWARD, HFFT_GPU_ONLY, &o);
        cr_assert_not_null(t.p, "f%d: %s", prec * 8, hfft_last_error_message());
        hfft_info info;
        cr_assert_eq(tp_info(t, &info), 0);
        cr_assert_eq(info.device, HFFT_DEVICE_EMULATED);
        cr_assert_eq(info.split[0], 0, "f%d: split %lld x %lld", prec * 8,
                     (long long)info.split[0], (long long)info.split[1]);
        cr_assert_eq(tp_execute(t), 0, "%s", hfft_last_error_message());
        double err = hfft_ref_error(prec, 1, n, a, b, HFFT_FORWARD, 1);
        cr_assert(err >= 0 && err < tu_tol(prec), "f%d: error %.3g (seed %llu)", prec * 8, err,
                  (unsigned long long)seed);
        tp_destroy(t);
        tu_free(a);
        tu_free(b);
    }
}

/* An array that fits the budget with little to spare still goes in one trip: where
   16 chunks' work areas do not fit beside it, more and smaller chunks do (a 2^22-point
   line four-step, in place, under 33 MiB for its 32 MiB). */
Test(emulated, one_trip_with_little_room) {
    int64_t n[1] = {1 << 22};
    size_t bytes = (size_t)n[0] * 8;
    void *a = tu_alloc(bytes);
    uint64_t seed = tu_seed();
    hfft_ref_fill(4, a, n[0], seed);
    void *orig = tu_dup(a, bytes);
    hfft_options o;
    emulated_options(&o, (int64_t)bytes + (int64_t)bytes / 32);
    tplan t = tp_dft(4, 1, n, a, a, HFFT_FORWARD, HFFT_GPU_ONLY, &o);
    cr_assert_not_null(t.p, "%s", hfft_last_error_message());
    hfft_info info;
    cr_assert_eq(tp_info(t, &info), 0);
    cr_assert_eq(info.schedule, 3, "schedule %d, not one trip", info.schedule);
    cr_assert_eq(tp_execute(t), 0, "%s", hfft_last_error_message());
    double err = hfft_ref_error(4, 1, n, orig, a, HFFT_FORWARD, 1);
    cr_assert(err >= 0 && err < tu_tol(4), "error %.3g (seed %llu)", err,
              (unsigned long long)seed);
    tp_destroy(t);
    tu_free(orig);
    tu_free(a);
}

Test(emulated, budget_too_small_for_any_pass) {
    int64_t n2[2] = {64, 48}, n1[1] = {16}, n3[3] = {4, 4, 4};
    small_budget_case(4, 2, n2, 64, HFFT_GPU_ONLY, "too small for any pass");
    small_budget_case(8, 2, n2, 64, HFFT_GPU_ONLY, "too small for any pass");
    small_budget_case(4, 1, n1, 64, HFFT_HYBRID, "too small for any pass");
    small_budget_case(8, 3, n3, 1023, HFFT_GPU_ONLY | HFFT_SCHEDULE_RADIX2,
                        "too small for any pass");
    small_budget_case(4, 2, n2, 64, 0, "too small for any pass");
    small_budget_case(4, 1, n1, 64, 0, "too small for any pass");
    /* radix-2 passes shrunk below one line: an error, not a plan of nothing */
    int64_t r2[2] = {2, 64};
    small_budget_case(4, 2, r2, 1024, HFFT_GPU_ONLY | HFFT_SCHEDULE_RADIX2,
                        "too small for any pass");
    small_budget_case(8, 2, r2, 1024, HFFT_GPU_ONLY | HFFT_SCHEDULE_RADIX2,
                        "too small for any pass");
    /* the same through the dense copy a reversed layout takes: its plan's status */
    hfftf_complex *in = tu_alloc(2 * 64 * sizeof *in), *out = tu_alloc(2 * 64 * sizeof *out);
    hfft_iodim d[2] = {{2, 64, 64}, {64, -1, 1}};
    hfft_options o;
    emulated_options(&o, 1024);
    hfftf_plan p = hfftf_plan_guru_dft(2, d, 0, NULL, in + 63, out, HFFT_FORWARD,
                                       HFFT_GPU_ONLY | HFFT_SCHEDULE_RADIX2, &o);
    cr_assert_null(p, "reversed 2 x 64 with a 1 KiB budget: a plan");
    cr_assert_eq(hfft_last_error(), HFFT_ERR_BUDGET, "reversed 2 x 64: status %d (%s)",
                 hfft_last_error(), hfft_last_error_message());
    cr_assert(strstr(hfft_last_error_message(), "too small for any pass"), "%s",
              hfft_last_error_message());
    tu_free(in);
    tu_free(out);
}

Test(emulated, prime_line_longer_than_budget) {
    int64_t n[2] = {8191, 4};
    small_budget_case(4, 2, n, 4096, HFFT_GPU_ONLY, "8191");
    small_budget_case(8, 2, n, 4096, HFFT_HYBRID, "no factor");
    small_budget_case(8, 2, n, 4096, 0, "no factor");
    /* 2 x 4099: the factor 2 leaves a prime half that still does not fit. */
    int64_t m[2] = {2 * 4099, 2};
    small_budget_case(4, 2, m, 4096, HFFT_GPU_ONLY, "8198");
    /* 3D with a prime Z. */
    int64_t z[3] = {8191, 2, 2};
    small_budget_case(4, 3, z, 4096, HFFT_GPU_ONLY, "8191");
    small_budget_case(4, 3, z, 4096, 0, "8191");
}

/* A few prime lines of a few MiB whose bytes are not a multiple of 256: the pass
   grows to hold one line (it was rounded down below it, and the plan refused). */
Test(emulated, few_prime_lines_fill_a_pass) {
    const int64_t n = 262147, howmany = 4; /* 4 x 4 MiB + 48 bytes */
    size_t bytes = (size_t)(n * howmany) * 16;
    double *x = tu_alloc(bytes), *y = tu_alloc(bytes);
    uint64_t seed = tu_seed();
    hfft_ref_fill(8, x, n * howmany, seed);
    tu_poison(y, bytes);
    hfft_options o;
    emulated_options(&o, (int64_t)256 << 20);
    hfft_plan p = hfft_plan_many_dft64(1, &n, howmany, (hfft_complex *)x, NULL, 1, n,
                                       (hfft_complex *)y, NULL, 1, n, HFFT_FORWARD,
                                       HFFT_GPU_ONLY, &o);
    cr_assert_not_null(p, "%s", hfft_last_error_message());
    cr_assert_eq(hfft_execute(p), 0, "%s", hfft_last_error_message());
    double err = hfft_ref_error_many(8, 0, 1, &n, howmany, x, y, HFFT_FORWARD, 1);
    cr_assert(err >= 0 && err < tu_tol(8), "error %.3g (seed %llu)", err,
              (unsigned long long)seed);
    hfft_destroy_plan(p);
    tu_free(x);
    tu_free(y);
}

/*
 * Contiguous lines longer than the device takes (a 1D transform, or the rows
 * of a 2D array) are cut four-step, n = n0 n1: streaming through a host array
 * between the two rounds (or the input, where it may be overwritten), and in
 * one trip where the array fits; sizes with several factors and odd ones.
 */
Test(emulated, long_contiguous_lines) {
    static const struct {
        int rank;
        int64_t n[2];
        int64_t budget;
    } cases[] = {{1, {4096}, 8192},      {1, {3 * 5 * 7 * 11 * 4}, 8192}, {1, {2187}, 4096},
                 {2, {4, 4096}, 16384},  {2, {3, 2310}, 8192},           {1, {4096}, 81920},
                 {1, {3 * 5 * 7 * 11 * 4}, 81920}, {2, {4, 2310}, 130000}};
    for (int prec = 4; prec <= 8; prec += 4)
        for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
            for (int mode = 0; mode < 3; mode++) {
                /* mode 0 out of place, 1 in place, 2 out of place with the input overwritten */
                hfft_options o;
                emulated_options(&o, cases[i].budget * (prec / 4));
                tu_case c = {prec, cases[i].rank, {cases[i].n[0], cases[i].n[1]}, mode == 1,
                             mode == 2 ? HFFT_BACKWARD : HFFT_FORWARD,
                             HFFT_GPU_ONLY | (mode == 2 ? HFFT_DESTROY_INPUT : 0u), &o};
                c.input_may_change = mode == 2;
                hfft_info info;
                run_case(&c, &info);
                int64_t n = cases[i].n[cases[i].rank - 1];
                cr_assert(info.split[0] * info.split[1] == n && info.split[1] > 1,
                          "case %zu: split %lld x %lld of %lld", i, (long long)info.split[0],
                          (long long)info.split[1], (long long)n);
                if (i >= 5) /* the array fits the budget: one trip */
                    cr_assert_eq(info.schedule, 3, "case %zu: not one trip", i);
                else if (mode != 2)
                    cr_assert_gt(info.host_bytes, 0, "case %zu: no host array between rounds",
                                 i);
            }
}

/*
 * The same lines on the plain schedule over a range of budgets.  The second
 * round writes each group of lines transposed, so its passes end at group ends
 * and can hold fewer lines than its cuFFT plan transforms: the plan's compute
 * must still wait for the buffer's previous copy out of every row it writes
 * (it waited only for the pass's rows, and at budgets where the first round
 * took as many passes as buffers, 1D 256 f64 at 8 KiB, 1024 f64 at 32 KiB,
 * the second round overwrote rows the first was still copying out).
 */
Test(emulated, long_lines_plain_any_budget) {
    static const int64_t sizes[] = {256, 512, 1024, 2310};
    for (int prec = 4; prec <= 8; prec += 4)
        for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
            int64_t line = sizes[i] * (int64_t)tu_esize(prec), split = 0;
            /* from one line to three, where the line is cut four-step or not */
            for (int64_t budget = line; budget <= 3 * line; budget += line / 8) {
                hfft_options o;
                emulated_options(&o, budget);
                tu_case c = {
                    prec, 1, {sizes[i]}, 0, HFFT_FORWARD, HFFT_GPU_ONLY | HFFT_SCHEDULE_PLAIN, &o};
                hfft_info info;
                run_case(&c, &info);
                cr_assert_eq(info.schedule, 1, "n %lld, budget %lld: schedule %d",
                             (long long)sizes[i], (long long)budget, info.schedule);
                split += info.split[1] > 1;
            }
            cr_assert_gt(split, 4, "f%d n %lld: the line was cut at %lld budgets only", prec * 8,
                         (long long)sizes[i], (long long)split);
        }
}

/* HFFT_TRANSPOSED_OUT leaves X[k0 + n0 k1] at k0 n1 + k1; a TRANSPOSED_IN plan
   of the other direction takes that back to n times the input: on the
   emulated device, and on the CPU (device none), whose HFFT_MEASURE must not
   swap in FFTW's plan of the whole line (natural order). */
static void transposed_order(int device, unsigned flags) {
    static const int64_t sizes[] = {4096, 2310, 1 << 20};
    for (int prec = 4; prec <= 8; prec += 4)
        for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
            int64_t n = sizes[i];
            size_t bytes = (size_t)n * tu_esize(prec);
            void *x = tu_alloc(bytes), *y = tu_alloc(bytes), *z = tu_alloc(bytes);
            hfft_ref_fill(prec, x, n, tu_seed());
            void *orig = tu_dup(x, bytes);
            hfft_options o;
            hfft_options_init(&o);
            o.device = device;
            if (device != HFFT_DEVICE_NONE)
                o.device_memory = n >= (1 << 20) ? (int64_t)bytes / 4 : (int64_t)bytes * 4;
            tplan f = tp_dft(prec, 1, &n, x, y, HFFT_FORWARD, HFFT_TRANSPOSED_OUT | flags, &o);
            cr_assert(f.p, "%s", hfft_last_error_message());
            tplan b = tp_dft(prec, 1, &n, y, z, HFFT_BACKWARD, HFFT_TRANSPOSED_IN | flags, &o);
            cr_assert(b.p, "%s", hfft_last_error_message());
            hfft_info fi, bi;
            tp_info(f, &fi);
            tp_info(b, &bi);
            cr_assert(fi.split[0] == bi.split[0] && fi.split[1] == bi.split[1] &&
                          fi.split[0] * fi.split[1] == n,
                      "n %lld: splits %lldx%lld and %lldx%lld", (long long)n,
                      (long long)fi.split[0], (long long)fi.split[1], (long long)bi.split[0],
                      (long long)bi.split[1]);
            tu_poison(y, bytes);
            cr_assert_eq(tp_execute(f), 0, "%s", hfft_last_error_message());
            /* the reference, permuted into the transposed order */
            void *ref = hfft_ref_transform(prec, 1, &n, orig, HFFT_FORWARD, 1);
            cr_assert(ref);
            size_t rs = prec == 4 ? 2 * sizeof(double) : 2 * sizeof(long double);
            char *perm = tu_alloc((size_t)n * rs);
            int64_t n0 = fi.split[0], n1 = fi.split[1];
            for (int64_t k0 = 0; k0 < n0; k0++)
                for (int64_t k1 = 0; k1 < n1; k1++)
                    memcpy(perm + (size_t)(k0 * n1 + k1) * rs,
                           (char *)ref + (size_t)(k0 + n0 * k1) * rs, rs);
            double e = hfft_ref_compare(prec, perm, y, n);
            cr_assert(e >= 0 && e < tu_tol(prec), "n %lld f%d transposed out: error %g",
                      (long long)n, prec * 8, e);
            tu_poison(z, bytes);
            cr_assert_eq(tp_execute(b), 0, "%s", hfft_last_error_message());
            /* z = n x */
            double num = 0, den = 0;
            for (int64_t k = 0; k < 2 * n; k++) {
                double a = prec == 4 ? ((float *)z)[k] : ((double *)z)[k];
                double want = (double)n * (prec == 4 ? ((float *)orig)[k] : ((double *)orig)[k]);
                num += (a - want) * (a - want);
                den += want * want;
            }
            cr_assert(sqrt(num / den) < tu_tol(prec), "n %lld f%d round trip: error %g",
                      (long long)n, prec * 8, sqrt(num / den));
            hfft_ref_free(prec, ref);
            tp_destroy(f);
            tp_destroy(b);
            tu_free(perm);
            tu_free(orig);
            tu_free(x);
            tu_free(y);
            tu_free(z);
        }
}

Test(emulated, transposed_order) { transposed_order(HFFT_DEVICE_EMULATED, 0); }
Test(emulated, transposed_order_cpu) {
    transposed_order(HFFT_DEVICE_NONE, 0);
    transposed_order(HFFT_DEVICE_NONE, HFFT_MEASURE);
}

/* Automatic passes take the budget over two buffers, so that strided passes
   copy rows as wide as it allows: 8192 x 1024 f32 (64 MiB) with a 16 MiB
   budget gets passes of 112 columns (7 MiB, what the scratch of the
   transposed compute leaves) in 10 passes, not the 32 columns of an eighth of
   the budget; with a budget larger than the array (and the streaming schedule
   asked for: it would run one trip), the largest round still gets 4 passes. */
Test(emulated, passes_fill_the_budget) {
    int64_t n[2] = {8192, 1024};
    size_t bytes = (size_t)n[0] * (size_t)n[1] * 8;
    hfftf_complex *a = tu_alloc(bytes);
    memset(a, 0, bytes);
    static const struct {
        int64_t budget;
        int most_passes, least_passes;
    } cases[] = {{16 << 20, 10, 10}, {256 << 20, 4, 4}};
    for (int i = 0; i < 2; i++) {
        hfft_options o;
        emulated_options(&o, cases[i].budget);
        hfftf_plan p = hfftf_plan_dft(2, n, a, a, HFFT_FORWARD,
                                      HFFT_ESTIMATE | HFFT_GPU_ONLY | HFFT_SCHEDULE_PLAIN, &o);
        cr_assert(p, "%s", hfft_last_error_message());
        hfft_info info;
        cr_assert_eq(hfftf_plan_info(p, &info), 0);
        cr_assert_eq(info.streams, 2, "%d buffers", info.streams);
        cr_assert(info.passes[0] >= cases[i].least_passes &&
                      info.passes[0] <= cases[i].most_passes,
                  "budget %lld: strided round in %d passes", (long long)cases[i].budget,
                  info.passes[0]);
        cr_assert_leq(info.device_bytes, cases[i].budget);
        hfftf_destroy_plan(p);
    }
    tu_free(a);
}

/*
 * GPU-only streaming rounds meet without a drain: the host has issued a round
 * long before its work is done (on the emulated device, before any of it is
 * done: the work runs at the last round's drain).  Each round's time comes from
 * the device, so that the balancer's per-round rates hold: every round is
 * credited with its own work, not with the time it took to issue it.  Every
 * round transforms each element once; the host's clock gave round 0 about a
 * fiftieth of the execute (2D 1024 x 2048 f32, 4 MiB), so each round must have
 * at least a twentieth of it (a tenth failed once under the sanitizers, where
 * the 3D case's first round read 8% of the sum).  Cases: 2D plain, 2D with
 * columns kept on the device (round 0 ends after their FFTs, on another
 * stream), 3D in three rounds.
 */
Test(emulated, streaming_rounds_get_device_times) {
    static const struct {
        int rank;
        int64_t n[3];
        int64_t budget;
        unsigned schedule;
        int rounds;
        int resident; /* expect columns kept on the device */
    } cases[] = {
        {2, {1024, 2048, 0}, 4 << 20, HFFT_SCHEDULE_PLAIN, 2, 0},
        {2, {1024, 2048, 0}, 14 << 20, 0, 2, 1},
        {3, {8, 512, 1024}, 4 << 20, HFFT_SCHEDULE_PLAIN, 3, 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int64_t total = tu_total(cases[i].rank, cases[i].n);
        size_t bytes = (size_t)total * 8;
        hfftf_complex *a = tu_alloc(bytes);
        memset(a, 0, bytes);
        hfft_options o;
        emulated_options(&o, cases[i].budget);
        hfftf_plan p = hfftf_plan_dft(cases[i].rank, cases[i].n, a, a, HFFT_FORWARD,
                                      HFFT_ESTIMATE | HFFT_GPU_ONLY | cases[i].schedule, &o);
        cr_assert(p, "case %zu: %s", i, hfft_last_error_message());
        for (int rep = 0; rep < 2; rep++) {
            cr_assert_eq(hfftf_execute(p), 0, "case %zu: %s", i, hfft_last_error_message());
            hfft_info info;
            cr_assert_eq(hfftf_plan_info(p, &info), 0);
            cr_assert_eq(info.rounds, cases[i].rounds, "case %zu: %d rounds", i, info.rounds);
            cr_assert_eq(info.schedule, 1, "case %zu: schedule %d, not streaming plain", i,
                         info.schedule);
            cr_assert_eq(info.resident_bytes > 0, cases[i].resident,
                         "case %zu: %lld bytes resident", i, (long long)info.resident_bytes);
            double sum = 0;
            for (int h = 0; h < info.rounds; h++) {
                cr_assert_gt(info.measured_seconds[h], 0.0, "case %zu round %d", i, h);
                cr_assert_eq(info.measured_gpu[h], info.measured_seconds[h], "case %zu round %d",
                             i, h);
                cr_assert_eq(info.measured_cpu[h], 0.0, "case %zu round %d", i, h);
                sum += info.measured_seconds[h];
            }
            for (int h = 0; h < info.rounds; h++)
                cr_assert_gt(info.measured_seconds[h], 0.05 * sum,
                             "case %zu, execute %d: round %d %.3g s of %.3g s: the time to "
                             "issue it, not its work",
                             i, rep, h, info.measured_seconds[h], sum);
        }
        hfftf_destroy_plan(p);
        tu_free(a);
    }
}

/*
 * One trip: where the array and its work areas fit the budget, every byte
 * crosses the link once each way (link_bytes = S, S), in 2D, 3D, rank 4 and
 * with a batch, both precisions, in and out of place, by columns and by
 * dimension 0 four-step; a budget a little smaller streams (2 S each way for
 * two rounds).
 */
Test(emulated, one_trip) {
    static const struct {
        int rank;
        int64_t n[4];
    } shapes[] = {{2, {64, 48}},  {2, {4100, 3}},    {3, {17, 8, 12}},
                  {2, {6, 4096}}, {4, {3, 5, 4, 6}}, {2, {8, 32768}},
                  {2, {8192, 8}}, {2, {10000, 9}}}; /* (dimension 0 four-step) */
    for (int prec = 4; prec <= 8; prec += 4)
        for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++)
            for (int inplace = 0; inplace < 2; inplace++) {
                int rank = shapes[i].rank;
                int64_t total = tu_total(rank, shapes[i].n);
                int64_t bytes = total * (int64_t)tu_esize(prec);
                for (int fits = 0; fits < 2; fits++) {
                    hfft_options o;
                    emulated_options(&o, fits ? 2 * bytes + (1 << 20) : bytes / 2);
                    void *a = tu_alloc((size_t)bytes), *b = inplace ? a : tu_alloc((size_t)bytes);
                    hfft_ref_fill(prec, a, total, tu_seed());
                    void *orig = tu_dup(a, (size_t)bytes);
                    if (!inplace)
                        tu_poison(b, (size_t)bytes);
                    hfft_iodim d[4];
                    int64_t st = 1;
                    for (int k = rank - 1; k >= 0; k--) {
                        d[k] = (hfft_iodim){shapes[i].n[k], st, st};
                        st *= shapes[i].n[k];
                    }
                    void *p = prec == 4 ? (void *)hfftf_plan_guru_dft(rank, d, 0, NULL, a, b,
                                                                      HFFT_FORWARD, HFFT_GPU_ONLY,
                                                                      &o)
                                        : (void *)hfft_plan_guru_dft(rank, d, 0, NULL, a, b,
                                                                     HFFT_FORWARD, HFFT_GPU_ONLY,
                                                                     &o);
                    cr_assert(p, "%s", hfft_last_error_message());
                    int rc = prec == 4 ? hfftf_execute(p) : hfft_execute(p);
                    cr_assert_eq(rc, 0, "%s", hfft_last_error_message());
                    hfft_info info;
                    if (prec == 4)
                        hfftf_plan_info(p, &info);
                    else
                        hfft_plan_info(p, &info);
                    double e = hfft_ref_error(prec, rank, shapes[i].n, orig, b, HFFT_FORWARD, 1);
                    cr_assert(e < tu_tol(prec), "shape %zu f%d %s fits=%d: error %g", i, prec * 8,
                              inplace ? "in place" : "out of place", fits, e);
                    if (!inplace)
                        cr_assert(memcmp(a, orig, (size_t)bytes) == 0, "the input changed");
                    if (fits) {
                        cr_assert_eq(info.schedule, 3, "shape %zu: schedule %d, not one trip", i,
                                     info.schedule);
                        cr_assert(info.link_bytes[0] == bytes && info.link_bytes[1] == bytes,
                                  "one trip moved %lld in, %lld out; the array is %lld bytes",
                                  (long long)info.link_bytes[0], (long long)info.link_bytes[1],
                                  (long long)bytes);
                    } else {
                        cr_assert_neq(info.schedule, 3);
                        /* every round streams the array, but what stays resident; a
                           column longer than a pass streams once more per split level */
                        int64_t want = info.rounds * bytes - info.resident_bytes;
                        int long_columns = shapes[i].n[0] * (int64_t)tu_esize(prec) * 4 >
                                               o.device_memory &&
                                           info.schedule != 4;
                        if (long_columns)
                            want = info.link_bytes[0] > want ? info.link_bytes[0] : -1;
                        cr_assert(info.link_bytes[0] == want && info.link_bytes[1] == want,
                                  "streaming moved %lld in, %lld out for %lld bytes in %d rounds, "
                                  "%lld resident",
                                  (long long)info.link_bytes[0], (long long)info.link_bytes[1],
                                  (long long)bytes, info.rounds, (long long)info.resident_bytes);
                    }
                    if (prec == 4)
                        hfftf_destroy_plan(p);
                    else
                        hfft_destroy_plan(p);
                    tu_free(orig);
                    if (b != a)
                        tu_free(b);
                    tu_free(a);
                }
            }
}

/* Narrow arrays whose residency's passes would hold less than a column (the column
   round then runs as long lines, which keep no column resident): each streams without
   residency, and every column is written. */
Test(emulated, residency_needs_whole_columns) {
    static const struct {
        int prec;
        int64_t n[2];
        int64_t budget;
    } cases[] = {{F32, {243, 5}, 8192}, {F32, {256, 5}, 8192}, {F32, {3000, 8}, 98304},
                 {F64, {243, 8}, 16384}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        hfft_options o;
        emulated_options(&o, cases[i].budget);
        tu_case c = {cases[i].prec, 2, {cases[i].n[0], cases[i].n[1]}, 1, HFFT_BACKWARD,
                     HFFT_GPU_ONLY, &o, 0};
        run_case(&c, NULL);
    }
}

/*
 * Partial residency: between a quarter of the array and the array's size, the
 * budget left beside the passes keeps data on the device between the two
 * rounds (columns in place; round A's last groups of rows four-step, out of
 * place); the bytes each way fall from 2 S to S + what the passes stream as
 * the budget grows, always 2 S - resident, and the results stay right.
 */
Test(emulated, residency) {
    static const struct {
        int rank;
        int64_t n[3];
    } shapes[] = {{2, {256, 384}}, {3, {64, 24, 40}}, {2, {4096, 96}}};
    for (int prec = 4; prec <= 8; prec += 4)
        for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++) {
            int64_t total = tu_total(shapes[i].rank, shapes[i].n);
            int64_t bytes = total * (int64_t)tu_esize(prec), last = 2 * bytes + 1;
            int seen = 0;
            for (int q = 1; q <= 7; q++) {
                hfft_options o;
                emulated_options(&o, bytes * q / 8); /* S/8 .. 7S/8 */
                for (int inplace = 0; inplace < 2; inplace++) {
                    hfft_info info;
                    run_gpu_only(prec, shapes[i].rank, shapes[i].n, inplace, &o, &info);
                    int64_t want = 2 * bytes - info.resident_bytes;
                    cr_assert(info.link_bytes[0] == want && info.link_bytes[1] == want,
                              "shape %zu budget %d/8: %lld in, %lld out, %lld resident of %lld",
                              i, q, (long long)info.link_bytes[0],
                              (long long)info.link_bytes[1], (long long)info.resident_bytes,
                              (long long)bytes);
                    cr_assert_leq(info.device_bytes, o.device_memory);
                    if (!inplace) {
                        cr_assert_leq(want, last, "shape %zu: more bytes at a larger budget", i);
                        last = want;
                    }
                    seen |= info.resident_bytes > 0;
                }
            }
            cr_assert(seen, "shape %zu f%d: no budget kept anything resident", i, prec * 8);
        }
}

/*
 * Traces: a plan made with options.trace reports each device operation of its
 * last execute: copies whose bytes add up to link_bytes each way, intervals in
 * order on each stream, inside the execute's time; a plan made without it, or
 * on no device, refuses.  The streaming schedule and one trip, both precisions.
 */
Test(emulated, trace) {
    const int64_t n[2] = {96, 160};
    for (int prec = 4; prec <= 8; prec += 4)
        for (int fits = 0; fits < 2; fits++) {
            int64_t bytes = n[0] * n[1] * (int64_t)tu_esize(prec);
            hfft_options o;
            emulated_options(&o, fits ? 2 * bytes + (1 << 20) : bytes / 4);
            o.trace = 1;
            void *a = tu_alloc((size_t)bytes), *b = tu_alloc((size_t)bytes);
            hfft_ref_fill(prec, a, n[0] * n[1], tu_seed());
            tplan t = tp_dft(prec, 2, n, a, b, HFFT_FORWARD, HFFT_GPU_ONLY, &o);
            cr_assert(t.p, "%s", hfft_last_error_message());
            double t0 = hfft_ref_now();
            cr_assert_eq(tp_execute(t), 0, "%s", hfft_last_error_message());
            double wall = hfft_ref_now() - t0;
            hfft_info info;
            tp_info(t, &info);
            int count = tp_trace(t, NULL, 0);
            cr_assert_gt(count, 2, "%d operations traced", count);
            hfft_trace_op *ops = calloc((size_t)count, sizeof *ops);
            cr_assert_eq(tp_trace(t, ops, count), count);
            int64_t moved[2] = {0, 0};
            int computes = 0;
            double last_end[64] = {0};
            for (int i = 0; i < count; i++) {
                const hfft_trace_op *op = &ops[i];
                cr_assert(op->stream >= 0 && op->stream < 64 && op->device == 0);
                cr_assert(op->start >= 0 && op->end >= op->start && op->end <= wall,
                          "op %d (%s): %g..%g of %g s", i, op->name, op->start, op->end, wall);
                /* a stream runs its operations in the order issued */
                cr_assert_geq(op->start, last_end[op->stream], "op %d starts before the last", i);
                last_end[op->stream] = op->end;
                if (op->kind == HFFT_TRACE_H2D || op->kind == HFFT_TRACE_D2H) {
                    cr_assert_str_eq(op->name, op->kind == HFFT_TRACE_H2D ? "h2d" : "d2h");
                    moved[op->kind] += op->bytes;
                } else if (op->kind == HFFT_TRACE_COMPUTE) {
                    computes++;
                    cr_assert_eq(op->bytes, 0);
                }
            }
            cr_assert(moved[0] == info.link_bytes[0] && moved[1] == info.link_bytes[1],
                      "f%d fits=%d: traced %lld in, %lld out; link_bytes %lld, %lld", prec * 8,
                      fits, (long long)moved[0], (long long)moved[1],
                      (long long)info.link_bytes[0], (long long)info.link_bytes[1]);
            cr_assert_gt(computes, 0);
            cr_assert_eq(info.schedule == 3, fits);
            /* a second execute reports only its own operations */
            cr_assert_eq(tp_execute(t), 0);
            cr_assert_eq(tp_trace(t, NULL, 0), count);
            /* a short array takes what fits */
            cr_assert_eq(tp_trace(t, ops, 1), count);
            cr_assert_eq(tp_trace(t, NULL, -1), HFFT_ERR_INVALID_ARGUMENT);
            free(ops);
            tp_destroy(t);

            o.trace = 0;
            t = tp_dft(prec, 2, n, a, b, HFFT_FORWARD, HFFT_GPU_ONLY, &o);
            cr_assert_eq(tp_execute(t), 0);
            cr_assert_eq(tp_trace(t, NULL, 0), HFFT_ERR_INVALID_ARGUMENT);
            cr_assert(strstr(hfft_last_error_message(), "trace"), "%s", hfft_last_error_message());
            tp_destroy(t);
            o.trace = 1;
            o.device = HFFT_DEVICE_NONE;
            t = tp_dft(prec, 2, n, a, b, HFFT_FORWARD, 0, &o);
            cr_assert_eq(tp_trace(t, NULL, 0), HFFT_ERR_INVALID_ARGUMENT);
            tp_destroy(t);
            tu_free(a);
            tu_free(b);
        }
    hfft_options o;
    hfft_options_init(&o);
    o.trace = 2;
    void *a = tu_alloc((size_t)(n[0] * n[1]) * 8);
    cr_assert_null(hfftf_plan_dft(2, n, a, a, HFFT_FORWARD, 0, &o));
    cr_assert_eq(hfft_last_error(), HFFT_ERR_SETTING, "%s", hfft_last_error_message());
    tu_free(a);
}

/*
 * Four-step streaming with several lines per dimension-0 index: a 2D transform
 * over dimensions 0 and 2 of an n0 x n1 x n2 array with dimension 1 a batch
 * (guru), out of place, against the CPU engine on the same input; both
 * precisions, both signs.
 */
Test(emulated, four_step_batch_between) {
    static const int64_t shapes[][3] = {{12, 5, 64}, {30, 3, 100}};
    for (int prec = 4; prec <= 8; prec += 4)
        for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++)
            for (int sgn = 0; sgn < 2; sgn++) {
                const int64_t *n = shapes[i];
                int64_t total = n[0] * n[1] * n[2];
                size_t bytes = (size_t)total * tu_esize(prec);
                hfft_iodim d[2] = {{n[0], n[1] * n[2], n[1] * n[2]}, {n[2], 1, 1}};
                hfft_iodim h[1] = {{n[1], n[2], n[2]}};
                int sign = sgn ? HFFT_BACKWARD : HFFT_FORWARD;
                void *a = tu_alloc(bytes), *b = tu_alloc(bytes), *ref = tu_alloc(bytes);
                hfft_ref_fill(prec, a, total, tu_seed());
                void *orig = tu_dup(a, bytes);
                tu_poison(b, bytes);
                hfft_options o;
                emulated_options(&o, (int64_t)bytes * 2 / 3);
                tplan p = {prec, prec == 4 ? (void *)hfftf_plan_guru_dft(2, d, 1, h, a, b, sign,
                                                                          HFFT_GPU_ONLY, &o)
                                           : (void *)hfft_plan_guru_dft(2, d, 1, h, a, b, sign,
                                                                        HFFT_GPU_ONLY, &o)};
                cr_assert(p.p, "shape %zu: %s", i, hfft_last_error_message());
                cr_assert_eq(tp_execute(p), 0, "%s", hfft_last_error_message());
                hfft_info info;
                tp_info(p, &info);
                cr_assert_eq(info.schedule, 4, "shape %zu f%d: schedule %d", i, prec * 8,
                             info.schedule);
                cr_assert(memcmp(a, orig, bytes) == 0, "the input changed");
                hfft_options c;
                hfft_options_init(&c);
                tplan q = {prec, prec == 4 ? (void *)hfftf_plan_guru_dft(2, d, 1, h, a, ref, sign,
                                                                          HFFT_CPU_ONLY, &c)
                                           : (void *)hfft_plan_guru_dft(2, d, 1, h, a, ref, sign,
                                                                        HFFT_CPU_ONLY, &c)};
                cr_assert(q.p, "%s", hfft_last_error_message());
                cr_assert_eq(tp_execute(q), 0, "%s", hfft_last_error_message());
                double e = tu_rel_rms(prec, b, ref, total);
                cr_assert(e < tu_tol(prec), "shape %zu f%d sign %d: %g from the CPU engine", i,
                          prec * 8, sign, e);
                tp_destroy(p);
                tp_destroy(q);
                tu_free(a);
                tu_free(b);
                tu_free(ref);
                tu_free(orig);
            }
}

/*
 * Real data that the cards refuse (a budget below one line) runs on the CPU in
 * hfft's own rounds, whose double-precision lines of a length with a large prime
 * factor take Bluestein's algorithm, not as FFTW's plan of the whole problem,
 * whose 2D plan takes FFTW's own 1009-point lines and sits at the 5e-16 limit.
 * FFTW's padded in-place layout, r2c and c2r.
 */
Test(emulated, real_data_refused_by_the_cards_keeps_its_accuracy) {
    const int64_t n0 = 1009, n1 = 15, nc = n1 / 2 + 1;
    for (int kind = 1; kind <= 2; kind++) {
        /* in place: complex side rows of nc, real side rows padded to 2 nc */
        hfft_ref_dim d[2] = {{n0, kind == 1 ? 2 * nc : nc, kind == 1 ? nc : 2 * nc},
                             {n1, 1, 1}};
        hfft_iodim g[2] = {{n0, d[0].is, d[0].os}, {n1, 1, 1}};
        size_t bytes = (size_t)(n0 * nc) * 16;
        double *a = tu_alloc(bytes), *keep = malloc(bytes);
        cr_assert(keep);
        if (kind == 2)
            cr_assert_eq(hfft_ref_fill_hermitian(8, 2, d, 0, NULL, a, NULL, tu_seed()), 0);
        else
            hfft_ref_fill(8, a, n0 * nc, tu_seed());
        memcpy(keep, a, bytes);
        hfft_options o;
        emulated_options(&o, 7168);
        o.devices = "0,1,2,3";
        hfft_plan p = kind == 1 ? hfft_plan_guru_dft_r2c(2, g, 0, NULL, a, (hfft_complex *)a,
                                                         HFFT_ESTIMATE, &o)
                                : hfft_plan_guru_dft_c2r(2, g, 0, NULL, (hfft_complex *)a, a,
                                                         HFFT_ESTIMATE, &o);
        cr_assert(p, "%s", hfft_last_error_message());
        cr_assert_eq(hfft_execute(p), 0, "%s", hfft_last_error_message());
        hfft_info info;
        hfft_plan_info(p, &info);
        cr_assert(strstr(info.note, "on the CPU"), "kind %d: %s", kind, info.note);
        cr_assert_eq(info.cpu_plan, 0, "kind %d: FFTW's plan of the whole problem", kind);
        double e = hfft_ref_guru_error(8, kind, HFFT_FORWARD, 2, d, 0, NULL, keep, NULL, a, NULL);
        cr_assert(e >= 0 && e <= 5e-16, "kind %d: relative RMS error %.3g", kind, e);
        hfft_destroy_plan(p);
        tu_free(a);
        free(keep);
    }
}
