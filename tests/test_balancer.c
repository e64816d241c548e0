/*
 * test_balancer.c: the cost model and the ratio search with synthetic rates
 * (host memory shared by the links of one to four cards and the CPU
 * included), and the planner's
 * use of tuned rates from wisdom for a problem it was not tuned for (on the
 * emulated device).
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "balancer/balancer.h"
#include "balancer/calib.h"
#include "balancer/model.h"
#include "balancer/wisdom.h"
#include "gpu/devices.h"
#include "hfft.h"
#include "ref.h"

static const double GB = 1e9;

static hfft__link link_of(double duplex) {
    hfft__link l;
    memset(&l, 0, sizeof l);
    l.h2d = l.d2h = 55 * GB;
    l.duplex = duplex;
    l.nrow = 3;
    l.row_bytes[0] = 2048;
    l.row_eff[0] = 0.6;
    l.row_bytes[1] = 8192;
    l.row_eff[1] = 0.9;
    l.row_bytes[2] = 65536;
    l.row_eff[2] = 1.0;
    return l;
}

/* GPU at 48 GB/s and CPU at 24 GB/s, no contention: the balanced split gives the
   GPU two thirds and the round takes S / 72 GB/s. */
Test(balancer, balanced_share) {
    hfft__link l = link_of(50 * GB);
    hfft__round_model m = {0};
    m.bytes = 8e9;
    m.gpu_rate = 48 * GB;
    m.cpu_rate = 24 * GB;
    double t;
    double f = hfft__model_best_share(&l, &m, 0.03, &t);
    cr_assert(fabs(f - 2.0 / 3.0) < 1e-6, "share %g", f);
    cr_assert(fabs(t - 8e9 / (72 * GB)) < 1e-9, "time %g", t);
    cr_assert(fabs(hfft__model_round_time(&l, &m, 1.0) - 8e9 / (48 * GB)) < 1e-12);
    cr_assert(fabs(hfft__model_round_time(&l, &m, 0.0) - 8e9 / (24 * GB)) < 1e-12);
}

/* Contention: slowdowns apply only while both sides work. */
Test(balancer, slowdowns) {
    hfft__link l = link_of(50 * GB);
    hfft__round_model m = {0};
    m.bytes = 1e9;
    m.gpu_rate = 40 * GB;
    m.cpu_rate = 20 * GB;
    m.gpu_slow = 1.25;
    m.cpu_slow = 2.0;
    /* balance: f * 1.25 / 40 = (1 - f) * 2 / 20  ->  f = 0.1 / 0.13125 */
    double t, f = hfft__model_best_share(&l, &m, 0.0, &t);
    cr_assert(fabs(f - 0.1 / 0.13125) < 1e-6, "share %g", f);
    cr_assert(fabs(hfft__model_gpu_time(&l, &m, 1.0) - 1e9 / (40 * GB)) < 1e-12,
              "GPU alone must not be slowed");
    cr_assert(fabs(hfft__model_cpu_time(&l, &m, 0.0) - 1e9 / (20 * GB)) < 1e-12,
              "CPU alone must not be slowed");
}

/* A CPU too slow to gain the margin: GPU-only.  A CPU faster than the GPU: the
   CPU takes most; and with no GPU advantage at all, CPU-only. */
Test(balancer, hybrid_only_where_it_pays) {
    hfft__link l = link_of(50 * GB);
    hfft__round_model m = {0};
    m.bytes = 8e9;
    m.gpu_rate = 50 * GB;
    m.cpu_rate = 1 * GB; /* would save 2% */
    double t, f = hfft__model_best_share(&l, &m, 0.03, &t);
    cr_assert_eq(f, 1.0, "share %g for a 2%% gain under a 3%% margin", f);
    cr_assert(fabs(t - 8e9 / (50 * GB)) < 1e-12);
    m.cpu_rate = 100 * GB;
    f = hfft__model_best_share(&l, &m, 0.03, &t);
    cr_assert(f > 0.3 && f < 0.35, "share %g", f);
    m.cpu_rate = 0;
    f = hfft__model_best_share(&l, &m, 0.03, &t);
    cr_assert_eq(f, 1.0, "unknown CPU rate: GPU-only, got %g", f);
}

/* hfft-tune keeps a hybrid only where both its runs beat both of the single
   side's by more than the margin; a failed run (0, NaN) never counts for it. */
Test(balancer, keep_a_hybrid_only_by_a_margin) {
    double s[2] = {1.00, 1.01};
    cr_assert(hfft__model_keep((double[2]){0.97, 0.975}, s, 0.02), "3% ahead in both runs");
    cr_assert(!hfft__model_keep((double[2]){0.97, 0.985}, s, 0.02), "1.5% ahead in one run");
    cr_assert(!hfft__model_keep((double[2]){0.90, 1.005}, s, 0.02), "behind the best single run");
    cr_assert(hfft__model_keep((double[2]){0.90, 0.95}, (double[2]){1.00, 0.0}, 0.02),
              "a single side's failed second run: its first counts");
    cr_assert(!hfft__model_keep((double[2]){0.90, NAN}, s, 0.02), "the hybrid's second run failed");
    cr_assert(!hfft__model_keep((double[2]){0.90, 0.90}, (double[2]){0.0, NAN}, 0.02),
              "no single side's run to compare");
    cr_assert(hfft__model_keep((double[2]){0.999, 0.999}, s, 0.0), "no margin: any win");
}

/* The model's GPU time of round m over link l, all of it on the GPU, is want. */
static void gpu_time_is(const hfft__link *l, const hfft__round_model *m, double want,
                        const char *what) {
    double t = hfft__model_gpu_time(l, m, 1.0);
    cr_assert(fabs(t - want) < 1e-9, "%s: %g vs %g", what, t, want);
}

/* The GPU side from the link alone: duplex rate times the 2D efficiency of the
   pass's rows, plus the wait for the last strided pass (a contiguous round
   waits for an eighth of one). */
Test(balancer, link_model) {
    hfft__link l = link_of(50 * GB);
    cr_assert(fabs(hfft__link_efficiency(&l, 0) - 1.0) < 1e-12);
    cr_assert(fabs(hfft__link_efficiency(&l, 8192) - 0.9) < 1e-12);
    double mid = hfft__link_efficiency(&l, sqrt(2048.0 * 8192.0));
    cr_assert(fabs(mid - 0.75) < 1e-9, "log interpolation: %g", mid);
    cr_assert(fabs(hfft__link_efficiency(&l, 1e9) - 1.0) < 1e-12);
    hfft__round_model m = {0};
    m.bytes = 8e9;
    m.row_bytes = 8192;
    m.pass_bytes = 256e6;
    double want = 8e9 / (45 * GB) + 256e6 / (50 * GB);
    gpu_time_is(&l, &m, want, "strided");
    m.row_bytes = 0;
    want = 8e9 / (50 * GB) + 32e6 / (50 * GB);
    gpu_time_is(&l, &m, want, "contiguous");
}

/* Fitting the model to a GPU-only time and a probe recovers the rates. */
Test(balancer, fit_from_probe) {
    double S = 4e9, g = 45 * GB, c = 15 * GB, gs = 1.1, f = 0.9;
    double t1 = S / g, tg = f * S * gs / g, tc = (1 - f) * S / c;
    hfft__round_model m = {0};
    m.bytes = S;
    hfft__model_fit(&m, t1, 0.0, f, tg, tc);
    cr_assert(fabs(m.gpu_rate - g) / g < 1e-12);
    cr_assert(fabs(m.gpu_slow - gs) < 1e-12);
    cr_assert(fabs(m.cpu_rate - c) / c < 1e-12, "contended CPU rate %g", m.cpu_rate);
    hfft__choice ch;
    memset(&ch, 0, sizeof ch);
    double pred;
    double share = hfft__balance_fit(&ch, S, t1, f, tg, tc, &m, &pred);
    /* f gs / g = (1 - f) / c */
    double want = (1 / c) / (gs / g + 1 / c);
    cr_assert(fabs(share - want) < 1e-6, "share %g, want %g", share, want);
    cr_assert(pred < t1 * 0.97, "a predicted gain");
}

/* A round of `bytes` with the GPU's and the CPU's rates alone and host memory. */
static hfft__round_model round_of(double bytes, double gpu, double cpu, double host) {
    hfft__round_model m = {0};
    m.bytes = bytes;
    m.gpu_rate = gpu;
    m.cpu_rate = cpu;
    m.host_bw = host;
    return m;
}

/* Host memory shared: the link's copies take 2 g of it (each byte in and out),
   the CPU what is left.  GPU 50 GB/s (100 GB/s of host traffic), CPU 25 GB/s
   alone (50 GB/s), 120 GB/s of host memory: while the GPU works the CPU runs
   at (120 - 100) / 2 = 10 GB/s, and the balance is f S / 50 = (1 - f) S / 10. */
Test(balancer, host_memory_shared) {
    hfft__link l = link_of(50 * GB);
    hfft__round_model m = round_of(8e9, 50 * GB, 25 * GB, 120 * GB);
    double t, f = hfft__model_best_share(&l, &m, 0.0, &t);
    cr_assert(fabs(f - 5.0 / 6.0) < 1e-6, "share %g", f);
    cr_assert(fabs(t - 5.0 / 6.0 * 8e9 / (50 * GB)) < 1e-9, "time %g", t);
    /* alone, each side keeps its own rate */
    cr_assert(fabs(hfft__model_round_time(&l, &m, 0.0) - 8e9 / (25 * GB)) < 1e-12);
    cr_assert(fabs(hfft__model_round_time(&l, &m, 1.0) - 8e9 / (50 * GB)) < 1e-12);
    /* a CPU that outlasts the GPU goes on at its own rate: at f = 0.5 the GPU
       takes 0.08 s, the CPU does 0.8 GB meanwhile and 3.2 GB after it */
    cr_assert(fabs(hfft__model_cpu_time(&l, &m, 0.5) - (0.08 + 3.2e9 / (25 * GB))) < 1e-12,
              "CPU time %g", hfft__model_cpu_time(&l, &m, 0.5));
    /* twice the traffic per byte (k = 4): 5 GB/s left to the CPU */
    m.cpu_traffic = 4.0;
    f = hfft__model_best_share(&l, &m, 0.0, &t);
    cr_assert(fabs(f - 50.0 / 55.0) < 1e-6, "share %g with k = 4", f);
    /* memory to spare: the model without it */
    m.cpu_traffic = 0;
    m.host_bw = 1000 * GB;
    f = hfft__model_best_share(&l, &m, 0.0, &t);
    cr_assert(fabs(f - 2.0 / 3.0) < 1e-6, "share %g with memory to spare", f);
    /* the copy engines never starve the CPU outright: a twentieth of its rate */
    m.host_bw = 90 * GB;
    cr_assert(fabs(hfft__model_cpu_time(&l, &m, 0.5) - (0.08 + (4e9 - 0.08 * 1.25 * GB) /
                                                                   (25 * GB))) < 1e-12,
              "CPU time %g with less memory than the link takes",
              hfft__model_cpu_time(&l, &m, 0.5));
}

/* Fitting with host memory: measurements made by the model itself (rates,
   memory and residual slowdowns known) give those slowdowns back, and the
   model then predicts other shares as it would have. */
Test(balancer, fit_with_host_memory) {
    hfft__link l = link_of(50 * GB);
    hfft__round_model truth = round_of(8e9, 45 * GB, 20 * GB, 110 * GB);
    truth.gpu_slow = 1.05;
    truth.cpu_slow = 1.2;
    double f = 0.8, tg = hfft__model_gpu_time(&l, &truth, f);
    double tc = hfft__model_cpu_time(&l, &truth, f);
    hfft__round_model m = round_of(truth.bytes, 0, 0, truth.host_bw);
    hfft__model_fit(&m, 8e9 / (45 * GB), 8e9 / (20 * GB), f, tg, tc);
    cr_assert(fabs(m.gpu_slow - 1.05) < 1e-9, "GPU slowdown %g", m.gpu_slow);
    cr_assert(fabs(m.cpu_slow - 1.2) < 1e-6, "CPU slowdown %g", m.cpu_slow);
    for (double g = 0.6; g < 0.99; g += 0.05)
        cr_assert(fabs(hfft__model_round_time(&l, &m, g) / hfft__model_round_time(&l, &truth, g) -
                       1) < 1e-6,
                  "share %g: %g against %g", g, hfft__model_round_time(&l, &m, g),
                  hfft__model_round_time(&l, &truth, g));
    /* no CPU-only time: the CPU's own rate is the one that explains the probe */
    truth.cpu_slow = 1.0;
    tc = hfft__model_cpu_time(&l, &truth, 0.5);
    tg = hfft__model_gpu_time(&l, &truth, 0.5);
    m = round_of(truth.bytes, 0, 0, truth.host_bw);
    hfft__model_fit(&m, 8e9 / (45 * GB), 0.0, 0.5, tg, tc);
    cr_assert(fabs(m.cpu_rate / (20 * GB) - 1) < 1e-6, "CPU rate %g", m.cpu_rate);
}

/* A CPU done first leaves the GPU its own rate: GPU 50 GB/s alone and 1.6x slower
   (31.25 GB/s) beside the CPU, whose own rate is 40 GB/s; at f = 0.6 the CPU's
   3.2 GB take 0.08 s, while the GPU does 2.5 of its 4.8 GB, and the other 2.3
   at 50 GB/s (0.046 s).  Fitted to that probe, the slowdown comes back (a fit
   that took the GPU as slowed throughout would say 1.3125), and with it the
   balance, f 1.6 / 50 = (1 - f) / 40. */
Test(balancer, gpu_alone_after_the_cpu) {
    hfft__link l = link_of(50 * GB);
    hfft__round_model truth = round_of(8e9, 50 * GB, 40 * GB, 0);
    truth.gpu_slow = 1.6;
    double tg = hfft__model_gpu_time(&l, &truth, 0.6), tc = hfft__model_cpu_time(&l, &truth, 0.6);
    cr_assert(fabs(tc - 0.08) < 1e-12, "CPU time %g", tc);
    cr_assert(fabs(tg - 0.126) < 1e-12, "GPU time %g", tg);
    hfft__round_model m = round_of(8e9, 0, 0, 0);
    hfft__model_fit(&m, 8e9 / (50 * GB), 8e9 / (40 * GB), 0.6, tg, tc);
    cr_assert(fabs(m.gpu_slow - 1.6) < 1e-9, "GPU slowdown %g", m.gpu_slow);
    double t, f = hfft__model_best_share(&l, &m, 0.0, &t);
    cr_assert(fabs(f - 0.025 / 0.057) < 1e-6, "share %g", f);
    cr_assert(fabs(t - f * 8e9 * 1.6 / (50 * GB)) < 1e-9, "time %g", t);
    /* an overlap under half the GPU's time tells little: the slowdown as uniform */
    hfft__model_fit(&m, 8e9 / (50 * GB), 8e9 / (40 * GB), 0.9, 0.2, 0.02);
    cr_assert(fabs(m.gpu_slow - 0.2 / (0.9 * 8e9 / (50 * GB))) < 1e-9, "GPU slowdown %g",
              m.gpu_slow);
}

/* One slow probe does not take a round out of the hybrid: 3D 1024^3 in place on an
   H100 host (run FH), round 2: GPU-only 0.1746 s, CPU-only 0.489 s at the hybrids'
   threads, the model's share 0.774, whose probe took 0.1894 s a side where the
   model had said 0.135 s.  Fitted, the model gives the round to the GPU; the next
   probe takes the same share, and only a second probe that backs the first moves
   it (the model said so already before the probe: it moves at once). */
Test(balancer, one_slow_probe_is_probed_again) {
    hfft__link l = link_of(50 * GB);
    double S = 8589934592.0, tg1 = 0.1746, tc1 = 0.4891;
    hfft__round_model m = round_of(S, S / tg1, S / tc1, 127.1 * GB);
    int again = -1;
    double f = hfft__model_best_share(&l, &m, 0.0, NULL);
    cr_assert(f > 0.75 && f < 0.8, "share before the probe %g", f);
    hfft__model_fit(&m, tg1, tc1, f, 0.1894, 0.1894);
    cr_assert(hfft__model_best_share(&l, &m, 0.0, NULL) == 1.0, "the fit gives the round away");
    double next = hfft__model_next_share(&l, &m, f, f, 1, &again);
    cr_assert(next == f && again == 1, "after one probe: %g (again %d)", next, again);
    next = hfft__model_next_share(&l, &m, f, f, 2, &again);
    cr_assert(next == 1.0 && again == 0, "after two: %g (again %d)", next, again);
    /* the model had left the round to the GPU before the probe, or nearly (the first
       probe gives the CPU 3% at least): it says so again, and the round goes */
    next = hfft__model_next_share(&l, &m, 1.0, 0.97, 1, &again);
    cr_assert(next == 1.0 && again == 0, "GPU-only before and after: %g (again %d)", next, again);
    next = hfft__model_next_share(&l, &m, 0.985, 0.97, 1, &again);
    cr_assert(next == 1.0 && again == 0, "0.985 before, 1 after: %g (again %d)", next, again);
    /* a probe that keeps the split moves the share at once */
    hfft__round_model k = round_of(S, S / tg1, S / tc1, 127.1 * GB);
    hfft__model_fit(&k, tg1, tc1, f, 0.95 * f * tg1, 0.95 * f * tg1);
    next = hfft__model_next_share(&l, &k, f, f, 1, &again);
    cr_assert(next > 0 && next < 1 && again == 0, "a split kept: %g (again %d)", next, again);
    cr_assert(next == hfft__model_best_share(&l, &k, 0.0, NULL));
    /* the CPU's side alike: GPU-only 0.5 s, CPU-only 0.4 s, a probe at the model's
       split whose sides both took twice as long as alone */
    hfft__round_model c = round_of(8e9, 8e9 / 0.5, 8e9 / 0.4, 0);
    double fc = hfft__model_best_share(&l, &c, 0.0, NULL);
    cr_assert(fc > 0.4 && fc < 0.5, "share before the probe %g", fc);
    hfft__model_fit(&c, 0.5, 0.4, fc, 2 * fc * 0.5, 2 * (1 - fc) * 0.4);
    cr_assert(hfft__model_best_share(&l, &c, 0.0, NULL) == 0.0, "the fit gives the CPU all");
    next = hfft__model_next_share(&l, &c, fc, fc, 1, &again);
    cr_assert(next == fc && again == 1, "CPU, after one probe: %g (again %d)", next, again);
    next = hfft__model_next_share(&l, &c, fc, fc, 2, &again);
    cr_assert(next == 0.0 && again == 0, "CPU, after two: %g (again %d)", next, again);
}

/* The links of the 2 x H200 node (issue 22): one card 55.3 GB/s host to device,
   both cards 109.9; both directions busy, 50.5 GB/s each way on one card and
   75.8 in total on both, where the host's memory holds them back. */
static hfft__link link_two_h200(void) {
    hfft__link l = link_of(50.5 * GB);
    l.h2d = 55.3 * GB;
    l.d2h = 55.1 * GB;
    l.cards = 2;
    l.all_h2d = 109.9 * GB;
    l.all_d2h = 109.0 * GB;
    l.all_duplex = 75.8 * GB;
    return l;
}

/* A link measured on four cards: 50 GB/s each way on one, 150 in total on all four. */
static hfft__link link_four(void) {
    hfft__link l = link_of(50 * GB);
    l.cards = 4;
    l.all_h2d = l.all_d2h = 200 * GB;
    l.all_duplex = 150 * GB;
    return l;
}

/* k cards move min(k x one card's rate, all cards' measured rate) each way. */
Test(balancer, link_of_several_cards) {
    hfft__link l = link_two_h200();
    cr_assert(fabs(hfft__link_rate(&l, 1, HFFT__LINK_H2D) - 55.3 * GB) < 1);
    cr_assert(fabs(hfft__link_rate(&l, 1, HFFT__LINK_DUPLEX) - 50.5 * GB) < 1);
    cr_assert(fabs(hfft__link_rate(&l, 2, HFFT__LINK_H2D) - 109.9 * GB) < 1, "%g",
              hfft__link_rate(&l, 2, HFFT__LINK_H2D));
    cr_assert(fabs(hfft__link_rate(&l, 2, HFFT__LINK_D2H) - 109.0 * GB) < 1);
    cr_assert(fabs(hfft__link_rate(&l, 2, HFFT__LINK_DUPLEX) - 75.8 * GB) < 1, "%g",
              hfft__link_rate(&l, 2, HFFT__LINK_DUPLEX));
    l = link_four();
    cr_assert(fabs(hfft__link_rate(&l, 2, HFFT__LINK_DUPLEX) - 100 * GB) < 1,
              "two of four cards, below the cap: %g", hfft__link_rate(&l, 2, HFFT__LINK_DUPLEX));
    cr_assert(fabs(hfft__link_rate(&l, 4, HFFT__LINK_DUPLEX) - 150 * GB) < 1);
    cr_assert(fabs(hfft__link_rate(&l, 4, HFFT__LINK_H2D) - 200 * GB) < 1);
    /* measured on one card only: nothing caps k of them */
    l = link_of(50 * GB);
    cr_assert(fabs(hfft__link_rate(&l, 4, HFFT__LINK_DUPLEX) - 200 * GB) < 1);
    /* the GPU side of a round from the link: its bytes at the cards' rate, and the
       last chunk of a pass through one card's part of it */
    l = link_two_h200();
    hfft__round_model m = {0};
    m.bytes = 8e9;
    m.pass_bytes = 256e6;
    m.cards = 2;
    double want = 8e9 / (75.8 * GB) + 32e6 / (37.9 * GB);
    gpu_time_is(&l, &m, want, "two cards");
    m.cards = 1;
    want = 8e9 / (50.5 * GB) + 32e6 / (50.5 * GB);
    gpu_time_is(&l, &m, want, "one card");
}

/* The share where the GPU's cards (from the link) and a CPU of 25 GB/s alone
   meet, with host memory M: the cards copy at g each way, and the CPU gets
   (M - 2 g) / 2 of it while they do (a twentieth of its own at the least). */
static double share_over(const hfft__link *l, int cards, double host, double margin) {
    hfft__round_model m = round_of(8e9, 0, 25 * GB, host);
    m.cards = cards;
    return hfft__model_best_share(l, &m, margin, NULL);
}

/* One, two and four cards beside the CPU, host memory binding and not. */
Test(balancer, host_memory_over_cards) {
    hfft__link l = link_two_h200();
    /* one card: 50.5 GB/s leave the CPU (120 - 101) / 2 = 9.5 GB/s */
    double f = share_over(&l, 1, 120 * GB, 0.0);
    cr_assert(fabs(f - 50.5 / 60.0) < 1e-6, "one card: share %g", f);
    /* both: 75.8 GB/s each way take all 120 GB/s, the CPU keeps 1.25 GB/s, which
       gains 1.6%: under the 3% margin the GPU takes everything */
    f = share_over(&l, 2, 120 * GB, 0.0);
    cr_assert(fabs(f - 75.8 / 77.05) < 1e-6, "two cards: share %g", f);
    f = share_over(&l, 2, 120 * GB, 0.03);
    cr_assert_eq(f, 1.0, "two cards on the node's host memory: share %g", f);
    /* memory to spare: the CPU at its own rate beside both */
    f = share_over(&l, 2, 1000 * GB, 0.0);
    cr_assert(fabs(f - 75.8 / 100.8) < 1e-6, "two cards, memory to spare: share %g", f);
    /* four cards at 150 GB/s: 400 GB/s of memory leave 50 (the CPU's 25 binds),
       320 leave 10 */
    l = link_four();
    f = share_over(&l, 4, 400 * GB, 0.0);
    cr_assert(fabs(f - 150.0 / 175.0) < 1e-6, "four cards, 400 GB/s: share %g", f);
    f = share_over(&l, 4, 320 * GB, 0.0);
    cr_assert(fabs(f - 150.0 / 160.0) < 1e-6, "four cards, 320 GB/s: share %g", f);
    /* two of the four: 100 GB/s, so 320 GB/s leave the CPU its 25 */
    f = share_over(&l, 2, 320 * GB, 0.0);
    cr_assert(fabs(f - 100.0 / 125.0) < 1e-6, "two of four cards: share %g", f);
}

/* Opens the emulated cards of a device list ("0,1"), `budget` bytes each, as a plan
   over them would; their count. */
static int open_emulated(const char *devices, int64_t budget, hfft__dev **cards) {
    hfft_options o;
    hfft_options_init(&o);
    o.device = HFFT_DEVICE_EMULATED;
    o.devices = devices;
    o.device_memory = budget;
    hfft__settings set;
    cr_assert_eq(hfft__settings_resolve(&o, &set), 0, "%s", hfft_last_error_message());
    int n = 0;
    cr_assert_eq(hfft__devices_open(hfft__device_ops(HFFT_DEVICE_EMULATED), &set, cards, &n), 0,
                 "%s", hfft_last_error_message());
    return n;
}

/* The link measured through the device interface on three emulated cards: one
   card's rates and 2D rows on the first, then all three copying at once (the
   emulated device's times mean nothing: only that each figure is there); a
   copy that fails on the second card is a status naming the calibration, with
   every card's memory given back. */
Test(balancer, calibrate_several_cards) {
    const hfft__dev_ops *ops = hfft__device_ops(HFFT_DEVICE_EMULATED);
    hfft__dev *cards[3];
    cr_assert_eq(open_emulated("0,1,2", 8 << 20, cards), 3);
    hfft__link l;
    cr_assert_eq(hfft__calibrate_link(ops, cards, 3, 1 << 20, &l), 0, "%s",
                 hfft_last_error_message());
    cr_assert(l.h2d > 0 && l.d2h > 0 && l.duplex > 0 && l.nrow == 7);
    cr_assert_eq(l.cards, 3);
    cr_assert(l.all_h2d > 0 && l.all_d2h > 0 && l.all_duplex > 0);
    cr_assert_eq(hfft__calibrate_link(ops, cards, 1, 1 << 20, &l), 0);
    cr_assert(l.cards == 0 && l.all_duplex == 0, "one card measured as %d", l.cards);
    setenv("HFFT_FAULT", "h2d:2", 1); /* the warm-up's copy in on the second card */
    int st = hfft__calibrate_link(ops, cards, 3, 1 << 20, &l);
    unsetenv("HFFT_FAULT");
    cr_assert_eq(st, HFFT_ERR_CUDA, "status %d", st);
    cr_assert(strstr(hfft_last_error_message(), "link calibration on 3 cards") &&
                  strstr(hfft_last_error_message(), "h2d"),
              "message '%s'", hfft_last_error_message());
    for (int k = 0; k < 3; k++) {
        cr_assert_eq(ops->used(cards[k]), 0, "card %d keeps %lld bytes", k,
                     (long long)ops->used(cards[k]));
        ops->close(cards[k]);
    }
}

/* Makes an empty file from the mkstemp template in path, which it completes. */
static void temp_file(char *path) {
    int fd = mkstemp(path);
    cr_assert(fd >= 0, "mkstemp %s", path);
    close(fd);
}

/* Writes wisdom signed for the emulated cards of `devices` (threads 2), with one
   problem and the host memory bandwidth host_bw (0: none). */
static void write_wisdom(const char *path, const char *devices, const char *driver,
                         const hfft__wisdom_problem *q, double host_bw) {
    const hfft__dev_ops *ops = hfft__device_ops(HFFT_DEVICE_EMULATED);
    hfft__dev *cards[HFFT_MAX_CARDS];
    int n = open_emulated(devices, 1 << 20, cards);
    hfft__wisdom *w = calloc(1, sizeof *w);
    hfft__signature(ops, cards, n, 2, w->signature, sizeof w->signature);
    for (int k = 0; k < n; k++)
        ops->close(cards[k]);
    if (driver) {
        char *d = strstr(w->signature, "driver=0");
        cr_assert(d);
        memcpy(d, driver, strlen(driver)); /* same length: "driver=9" */
    }
    if (q)
        cr_assert_eq(hfft__wisdom_add(w, q), 0);
    w->host_bw = host_bw;
    cr_assert_eq(hfft__wisdom_write(path, w), 0);
    free(w);
}

/* The tuned problem the wisdom tests share: 2D 256 x 512 f32 in place under 1 MiB,
   shares and rates left for the test to set. */
static hfft__wisdom_problem problem_256x512(void) {
    hfft__wisdom_problem q;
    memset(&q, 0, sizeof q);
    q.prec = 4;
    q.rank = 2;
    q.n[0] = 256;
    q.n[1] = 512;
    q.inplace = 1;
    q.budget = 1 << 20;
    return q;
}

/* Settings for a plan on the emulated device reading the wisdom at path. */
static hfft_options emulated_opts(const char *path, int64_t budget) {
    hfft_options o;
    hfft_options_init(&o);
    o.device = HFFT_DEVICE_EMULATED;
    o.device_memory = budget;
    o.threads = 2;
    o.wisdom = path;
    return o;
}

/* HFFT_ESTIMATE on a size not in wisdom uses the rates tuned on the nearest
   problem (GPU 2 GB/s, CPU 1 and 2 GB/s in rounds 1 and 2): the share and the
   prediction follow the model, host memory included where the wisdom has it.
   With 6 GB/s of it, the link's 4 GB/s leave the CPU 1 GB/s while the GPU
   works: round 2's CPU is held to round 1's rate.  Over two cards, the wisdom
   tuned on them (their measured rate, both together). */
static void estimate_case(const char *devices, double host_bw, const double *cpu_shared) {
    char path[] = "/tmp/hfft-balancer-XXXXXX";
    temp_file(path);
    hfft__wisdom_problem q = problem_256x512();
    for (int h = 0; h < 2; h++) {
        q.ratio[h] = 0.5;
        q.gpu_rate[h] = 2 * GB;
        q.cpu_rate[h] = (h + 1) * GB;
        q.gpu_slow[h] = q.cpu_slow[h] = 1.0;
    }
    write_wisdom(path, devices, NULL, &q, host_bw);

    int64_t n[2] = {512, 512};
    size_t bytes = 512 * 512 * 8;
    void *a = malloc(bytes);
    hfft_ref_fill(4, a, 512 * 512, 11);
    void *x = malloc(bytes);
    memcpy(x, a, bytes);
    hfft_options o = emulated_opts(path, 1 << 20);
    o.devices = devices;
    hfftf_plan p = hfftf_plan_dft(2, n, a, a, HFFT_FORWARD, HFFT_ESTIMATE, &o);
    cr_assert(p, "%s", hfft_last_error_message());
    hfft_info info;
    hfftf_plan_info(p, &info);
    cr_assert_eq(info.wisdom, 2, "wisdom %d (%s)", info.wisdom, info.wisdom_note);
    cr_assert_eq(info.cards, (int)(strlen(devices) + 1) / 2);
    double S = (double)bytes;
    for (int h = 0; h < 2; h++) {
        double g = 2 * GB, c = cpu_shared[h] * GB, f = g / (g + c);
        cr_assert(fabs(info.ratio[h] - f) < 0.01, "round %d: share %g, model %g (host %g)", h,
                  info.ratio[h], f, host_bw);
        cr_assert(fabs(info.predicted_seconds[h] - S / (g + c)) < 0.02 * S / (g + c),
                  "round %d: predicted %g, model %g", h, info.predicted_seconds[h], S / (g + c));
    }
    cr_assert_eq(info.placement, 2);
    cr_assert_eq(hfftf_execute(p), 0, "%s", hfft_last_error_message());
    double err = hfft_ref_error(4, 2, n, x, a, HFFT_FORWARD, 1);
    cr_assert(err < 1e-6, "error %g", err);
    hfftf_destroy_plan(p);
    free(a);
    free(x);
    remove(path);
}

Test(balancer, estimate_from_similar_problem) {
    for (int two = 0; two < 2; two++) {
        estimate_case(two ? "0,1" : "0", 0.0, (const double[]){1, 2});
        estimate_case(two ? "0,1" : "0", 6 * GB, (const double[]){1, 1});
    }
}

/* HFFT_MEASURE still measures when the wisdom file was made elsewhere. */
Test(balancer, measure_when_wisdom_ignored) {
    char path[] = "/tmp/hfft-balancer-XXXXXX";
    temp_file(path);
    write_wisdom(path, "0", "driver=9", NULL, 0.0);
    int64_t n[2] = {256, 512};
    size_t bytes = 256 * 512 * 8;
    void *a = malloc(bytes);
    hfft_options o = emulated_opts(path, 1 << 20);
    hfftf_plan p = hfftf_plan_dft(2, n, a, a, HFFT_FORWARD, HFFT_MEASURE, &o);
    cr_assert(p, "%s", hfft_last_error_message());
    hfft_info info;
    hfftf_plan_info(p, &info);
    hfftf_destroy_plan(p);
    free(a);
    remove(path);
    cr_assert_eq(info.wisdom, -1, "wisdom %d", info.wisdom);
    cr_assert(strstr(info.wisdom_note, "driver=0 here") != NULL, "note '%s'", info.wisdom_note);
    cr_assert(info.predicted_seconds[0] > 0 && info.predicted_seconds[1] > 0,
              "MEASURE did not probe: predicted %g %g", info.predicted_seconds[0],
              info.predicted_seconds[1]);
}

/* Plans 256 x 512 f32 in place over `devices` with the wisdom at path, runs it, and
   checks the answer against FFTW; what it chose in *info. */
static void plan_256x512(const char *path, const char *devices, hfft_info *info) {
    int64_t n[2] = {256, 512};
    size_t bytes = 256 * 512 * 8;
    void *a = malloc(bytes), *x = malloc(bytes);
    hfft_ref_fill(4, a, 256 * 512, 7);
    memcpy(x, a, bytes);
    hfft_options o = emulated_opts(path, 1 << 20);
    o.devices = devices;
    hfftf_plan p = hfftf_plan_dft(2, n, a, a, HFFT_FORWARD, 0, &o);
    cr_assert(p, "%s: %s", devices, hfft_last_error_message());
    cr_assert_eq(hfftf_execute(p), 0, "%s: %s", devices, hfft_last_error_message());
    hfftf_plan_info(p, info);
    double err = hfft_ref_error(4, 2, n, x, a, HFFT_FORWARD, 1);
    cr_assert(err < 1e-6, "%s: error %g", devices, err);
    hfftf_destroy_plan(p);
    free(a);
    free(x);
}

/* Wisdom is signed with the set of cards it was tuned on (their ordinals, names and
   memory, in order): a plan over the same set takes its shares, the CPU's part
   included (a hybrid over two cards, checked against FFTW); a plan over any other
   set (another count, another card, another order) ignores it and says why. */
Test(balancer, wisdom_of_one_card_not_for_two) {
    static const struct {
        const char *tuned, *planned;
        const char *note; /* NULL: used */
    } cases[] = {
        {"0", "0", NULL},
        {"0", "0,1", "cards=2 here"},
        {"0", "1", "devices=1:emulated:0MiB here"},
        {"0,1", "0,1", NULL},
        {"0,1", "0", "cards=1 here"},
        {"0,1", "0,2", "devices=0:emulated:0MiB,2:emulated:0MiB here"},
        {"0,1", "1,0", "devices=1:emulated:0MiB,0:emulated:0MiB here"},
        {"0,1,2,3", "0,1,2,3", NULL},
        {"0,1,2,3", "0,1,2", "cards=3 here"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char path[] = "/tmp/hfft-balancer-XXXXXX";
        temp_file(path);
        hfft__wisdom_problem q = problem_256x512();
        q.nratio = 2;
        q.ratio[0] = 0.625;
        q.ratio[1] = 0.375;
        write_wisdom(path, cases[i].tuned, NULL, &q, 0.0);
        hfft_info info;
        plan_256x512(path, cases[i].planned, &info);
        remove(path);
        int ncard = (int)(strlen(cases[i].planned) + 1) / 2;
        cr_assert_eq(info.cards, ncard, "case %zu: cards %d", i, info.cards);
        if (cases[i].note) {
            cr_assert_eq(info.wisdom, -1, "case %zu: wisdom %d", i, info.wisdom);
            cr_assert(strstr(info.wisdom_note, cases[i].note) != NULL, "case %zu: note '%s'", i,
                      info.wisdom_note);
            cr_assert_eq(info.placement, 1, "case %zu: placement %d", i, info.placement);
            continue;
        }
        cr_assert_eq(info.wisdom, 1, "case %zu: wisdom %d (%s)", i, info.wisdom, info.wisdom_note);
        cr_assert_eq(info.placement, 2, "case %zu: placement %d", i, info.placement);
        cr_assert(fabs(info.ratio[0] - 0.625) < 0.01 && fabs(info.ratio[1] - 0.375) < 0.01,
                  "case %zu: GPU shares %g and %g", i, info.ratio[0], info.ratio[1]);
    }
}

/* A file written before signatures named the device set (and before the link kept
   all cards' rates) still parses: a plan ignores it, saying what it lacks, and plans
   as without it. */
Test(balancer, wisdom_older_than_device_sets) {
    char path[] = "/tmp/hfft-balancer-XXXXXX";
    temp_file(path);
    const hfft__dev_ops *ops = hfft__device_ops(HFFT_DEVICE_EMULATED);
    hfft__dev *cards[1];
    open_emulated("0", 1 << 20, cards);
    char sig[HFFT__SIGNATURE_MAX];
    hfft__signature(ops, cards, 1, 2, sig, sizeof sig);
    ops->close(cards[0]);
    char *devices = strstr(sig, ";devices=");
    cr_assert(devices, "signature %s", sig);
    *devices = '\0'; /* as hfft-tune signed before: ...;threads=2;cards=1 */
    FILE *f = fopen(path, "w");
    cr_assert(f);
    fprintf(f,
            "hfft-wisdom 1\nsignature %s\nlink h2d=5.5e10 d2h=5.5e10 duplex=5e10\n"
            "problem prec=4 n=256x512 inplace=1 budget=1048576 ratio=0.5,0.5 slots=0 pass=0 "
            "schedule=0\n",
            sig);
    fclose(f);
    hfft_info info;
    plan_256x512(path, "0", &info);
    remove(path);
    cr_assert_eq(info.wisdom, -1, "wisdom %d (%s)", info.wisdom, info.wisdom_note);
    cr_assert(strstr(info.wisdom_note, "devices=0:emulated:0MiB here, not in the file"),
              "note '%s'", info.wisdom_note);
    cr_assert_eq(info.placement, 1, "placement %d", info.placement);
}

/* Wisdom tuned with two rounds applied to a 3D plan split into three keeps the
   third round as planned (GPU-only here), never hands it to the CPU. */
Test(balancer, wisdom_rounds_beyond_the_line) {
    char path[] = "/tmp/hfft-balancer-XXXXXX";
    temp_file(path);
    hfft__wisdom_problem q;
    memset(&q, 0, sizeof q);
    q.prec = 4;
    q.rank = 3;
    q.n[0] = q.n[1] = q.n[2] = 64;
    q.inplace = 1;
    q.budget = 32 << 10;
    q.nratio = 2;
    q.ratio[0] = q.ratio[1] = 1.0;
    write_wisdom(path, "0", NULL, &q, 0.0);
    int64_t n[3] = {64, 64, 64};
    size_t bytes = 64 * 64 * 64 * 8;
    void *a = malloc(bytes), *x = malloc(bytes);
    hfft_ref_fill(4, a, 64 * 64 * 64, 5);
    memcpy(x, a, bytes);
    hfft_options o = emulated_opts(path, 32 << 10);
    hfftf_plan p = hfftf_plan_dft(3, n, a, a, HFFT_FORWARD, 0, &o);
    cr_assert(p, "%s", hfft_last_error_message());
    hfft_info info;
    hfftf_plan_info(p, &info);
    cr_assert_eq(info.wisdom, 1);
    cr_assert_eq(info.rounds, 3, "planes of 32 KiB should not fit: %d rounds", info.rounds);
    for (int h = 0; h < 3; h++)
        cr_assert_eq(info.ratio[h], 1.0, "round %d share %g", h, info.ratio[h]);
    cr_assert_eq(info.placement, 1);
    cr_assert_eq(hfftf_execute(p), 0, "%s", hfft_last_error_message());
    cr_assert(hfft_ref_error(4, 3, n, x, a, HFFT_FORWARD, 1) < 1e-6);
    hfftf_destroy_plan(p);
    free(a);
    free(x);
    remove(path);
}
