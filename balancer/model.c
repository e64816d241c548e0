/*
 * model.c: the cost model (see model.h).  A round of S bytes with GPU share f:
 *   GPU:  tg = f S / g' + e, g' = g / gpu_slow the GPU engine's rate while
 *         the CPU works (g alone, link-bound), e the pipeline's fill and drain;
 *         where the CPU's share is done first, at tc, g' until then and g
 *         after: tg = tc + (f S - g' tc) / g + e;
 *   CPU:  while the GPU works, c1 = min(c, (M - 2 g') / k) / cpu_slow, with
 *         c the FFTW executor's rate alone, M the host memory bandwidth, 2 g'
 *         the bytes in and out crossing it over every card's link and k the
 *         CPU's bytes of memory traffic per byte transformed; once the GPU is
 *         done, c / cpu_slow.  tc is when the CPU's (1 - f) S are done.
 * Over n cards g (from the link alone) is the rate of n cards copying at
 * once, min(n x one card's, all measured together): the host holds the cards
 * back first, and M - 2 g' may leave the CPU little or nothing.  A CPU copy
 * may measure M below what the copy engines reach together, so M bounds what
 * the CPU gets beside the links, never the links themselves.
 * Time(f) = max(tg, tc).  tg - tc changes sign once, where both end
 * together (below, the GPU is done first; above, the CPU): the best split
 * equalises them unless a single side beats it (past that point tg can fall
 * with f, linearly, down to GPU-only's time).  Without M (0), c1 = c /
 * cpu_slow throughout: the 2013 model with contention as measured slowdowns.
 */
#include "balancer/model.h"

#include <math.h>
#include <stddef.h>

double hfft__link_efficiency(const hfft__link *l, double row_bytes) {
    if (row_bytes <= 0 || l->nrow == 0)
        return 1.0;
    if (row_bytes <= l->row_bytes[0])
        return l->row_eff[0] * row_bytes / l->row_bytes[0] > 0.05
                   ? l->row_eff[0] * row_bytes / l->row_bytes[0]
                   : 0.05;
    for (int i = 1; i < l->nrow; i++) {
        if (row_bytes <= l->row_bytes[i]) {
            /* interpolate in log of the row width */
            double a = log(l->row_bytes[i - 1]), b = log(l->row_bytes[i]);
            double x = (log(row_bytes) - a) / (b - a);
            return l->row_eff[i - 1] + x * (l->row_eff[i] - l->row_eff[i - 1]);
        }
    }
    return l->row_eff[l->nrow - 1];
}

double hfft__link_rate(const hfft__link *l, int k, int dir) {
    const double one[3] = {l->h2d, l->d2h, l->duplex};
    const double all[3] = {l->all_h2d, l->all_d2h, l->all_duplex};
    double r = (k > 1 ? k : 1) * one[dir];
    return l->cards > 1 && all[dir] > 0 && all[dir] < r ? all[dir] : r;
}

static int cards(const hfft__round_model *r) { return r->cards > 1 ? r->cards : 1; }

/* Bytes/s each way over the round's cards, both directions busy (1 GB/s a card
   where the link is unknown). */
static double duplex(const hfft__link *l, const hfft__round_model *r) {
    return l->duplex > 0 ? hfft__link_rate(l, cards(r), HFFT__LINK_DUPLEX) : 1e9 * cards(r);
}

double hfft__model_gpu_rate(const hfft__link *l, const hfft__round_model *r) {
    if (r->gpu_rate > 0)
        return r->gpu_rate;
    return duplex(l, r) * hfft__link_efficiency(l, r->row_bytes);
}

static double edge(const hfft__link *l, const hfft__round_model *r) {
    /* Beyond its copies, a round waits for its largest pass to come in, be
       computed and go out: a whole strided pass (its FFTs need whole columns),
       or a chunk of a contiguous one (an eighth of a pass); the cards fill and
       drain theirs side by side, each at its part of the rate. */
    double b = duplex(l, r) / cards(r);
    return (r->row_bytes > 0 ? r->pass_bytes : r->pass_bytes / 8.0) / b;
}

static double residual(double slow) { return slow > 0 ? slow : 1.0; }

/* The GPU engine's rate while the CPU works. */
static double gpu_rate_shared(const hfft__link *l, const hfft__round_model *r) {
    return hfft__model_gpu_rate(l, r) / residual(r->gpu_slow);
}

/* The CPU's rate while the links run at g bytes/s each way, all cards
   together: what host memory leaves it, and never less than a twentieth of
   its own (the copy engines do not starve the cores outright). */
static double cpu_rate_shared(const hfft__round_model *r, double g) {
    double c = r->cpu_rate;
    if (r->host_bw > 0) {
        double k = r->cpu_traffic > 0 ? r->cpu_traffic : 2.0;
        double left = (r->host_bw - 2.0 * g) / k;
        if (left < c)
            c = left > c / 20 ? left : c / 20;
    }
    return c / residual(r->cpu_slow);
}

double hfft__model_gpu_time(const hfft__link *l, const hfft__round_model *r, double f) {
    if (f <= 0)
        return 0.0;
    double full = hfft__model_gpu_rate(l, r);
    /* a measured GPU rate already holds the pipeline's edges */
    double e = r->gpu_rate > 0 ? 0.0 : edge(l, r);
    if (f >= 1.0)
        return r->bytes / full + e;
    /* slowed while the CPU works; where the CPU's share is done first, at its own
       rate from then on, as the CPU goes on at its own once the GPU is done */
    double g = gpu_rate_shared(l, r), work = f * r->bytes;
    double tc = r->cpu_rate > 0 ? (1.0 - f) * r->bytes / cpu_rate_shared(r, g) : INFINITY;
    if (work / g <= tc)
        return work / g + e;
    return tc + (work - g * tc) / full + e;
}

double hfft__model_cpu_time(const hfft__link *l, const hfft__round_model *r, double f) {
    if (f >= 1.0)
        return 0.0;
    if (r->cpu_rate <= 0)
        return INFINITY;
    double work = (1.0 - f) * r->bytes;
    if (f <= 0)
        return work / r->cpu_rate;
    double tg = hfft__model_gpu_time(l, r, f);
    double c1 = cpu_rate_shared(r, gpu_rate_shared(l, r));
    if (c1 * tg >= work)
        return work / c1;
    return tg + (work - c1 * tg) * residual(r->cpu_slow) / r->cpu_rate;
}

double hfft__model_round_time(const hfft__link *l, const hfft__round_model *r, double f) {
    double g = hfft__model_gpu_time(l, r, f), c = hfft__model_cpu_time(l, r, f);
    return g > c ? g : c;
}

double hfft__model_best_share(const hfft__link *l, const hfft__round_model *r, double margin,
                              double *t) {
    double t_gpu = hfft__model_round_time(l, r, 1.0);
    double t_cpu = hfft__model_round_time(l, r, 0.0);
    /* GPU time minus CPU time changes sign once, where both end together: bisect
       for it. */
    double lo = 0.0, hi = 1.0;
    for (int i = 0; i < 60; i++) {
        double m = 0.5 * (lo + hi);
        if (hfft__model_gpu_time(l, r, m) < hfft__model_cpu_time(l, r, m))
            lo = m;
        else
            hi = m;
    }
    double f = 0.5 * (lo + hi);
    double t_mix = hfft__model_round_time(l, r, f);
    double best_single = t_gpu < t_cpu ? t_gpu : t_cpu;
    if (t_mix < best_single * (1.0 - margin)) {
        if (t)
            *t = t_mix;
        return f;
    }
    if (t)
        *t = best_single;
    return t_gpu <= t_cpu ? 1.0 : 0.0;
}

double hfft__model_next_share(const hfft__link *l, const hfft__round_model *r, double proposed,
                              double probed, int probes, int *again) {
    double next = hfft__model_best_share(l, r, 0.0, NULL);
    /* (a probe the tuner moved off the model's share, a side the model left idle
       given a little once, says what the model already said) */
    int leaves = next <= 0.0 || next >= 1.0,
        was_split = proposed > 0.0 && proposed < 1.0 && probed == proposed;
    *again = leaves && was_split && probes < 2;
    return *again ? probed : next;
}

#define OVERLAP_MIN 0.5 /* (hfft__model_fit) */

static double clamp(double x, double lo, double hi) { return x < lo ? lo : x > hi ? hi : x; }

/* Sets *x in [lo, hi] (bisected in log space) so that the CPU side of share f
   lasts tc; its time rises with x where `rising` (a slowdown), else falls (a
   rate). */
static void fit(hfft__round_model *r, double *x, double lo, double hi, int rising, double tc,
                double f) {
    hfft__link none = {0};
    for (int i = 0; i < 100; i++) {
        *x = sqrt(lo * hi);
        if ((hfft__model_cpu_time(&none, r, f) < tc) == rising)
            lo = *x;
        else
            hi = *x;
    }
    *x = sqrt(lo * hi);
}

void hfft__model_fit(hfft__round_model *r, double t_gpu_only, double t_cpu_only, double f,
                     double tg, double tc) {
    if (t_gpu_only > 0)
        r->gpu_rate = r->bytes / t_gpu_only;
    if (t_cpu_only > 0)
        r->cpu_rate = r->bytes / t_cpu_only;
    r->gpu_slow = 1.0;
    r->cpu_slow = 1.0;
    if (!(f > 0 && f < 1))
        return;
    if (tg > 0 && r->gpu_rate > 0) {
        double alone = f * r->bytes / r->gpu_rate, slow = tg / alone;
        /* The CPU done first, at tc: the GPU was slowed until then and ran at its own
           rate after, so its rate beside the CPU is what did the rest of its share by
           tc.  Only where the two overlapped for at least half the GPU's time: a
           short overlap would put all of any difference between the hybrid's GPU side
           and GPU-only's into it. */
        if (tc > 0 && tc < tg && tc >= OVERLAP_MIN * tg) {
            double g = (f * r->bytes - r->gpu_rate * (tg - tc)) / tc;
            slow = g > 0 ? r->gpu_rate / g : 4.0;
        }
        r->gpu_slow = clamp(slow, 0.5, 4.0);
    }
    if (tc <= 0)
        return;
    if (r->cpu_rate > 0)
        /* the residual slowdown that makes the CPU side last tc */
        fit(r, &r->cpu_slow, 0.25, 4.0, 1, tc, f);
    else
        /* no CPU-only run: the CPU's rate alone that explains the probe */
        fit(r, &r->cpu_rate, 1e3, 1e14, 0, tc, f);
}

int hfft__model_keep(const double h[2], const double s[2], double margin) {
    for (int i = 0; i < 2; i++)
        if (!(isfinite(h[i]) && h[i] > 0))
            return 0;
    double h_worst = h[0] > h[1] ? h[0] : h[1], s_best = INFINITY;
    for (int i = 0; i < 2; i++)
        if (isfinite(s[i]) && s[i] > 0 && s[i] < s_best)
            s_best = s[i];
    return isfinite(s_best) && h_worst < s_best * (1.0 - margin);
}
