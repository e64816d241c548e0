/*
 * model.c: the cost model (see model.h).  A round with GPU share f costs
 *   GPU:  f S / g + e,    g the GPU engine's rate (link-bound, slowed by
 *         gpu_slow while the CPU works), e the pipeline's fill and drain;
 *   CPU:  (1 - f) S / c,  c the FFTW executor's rate (slowed by cpu_slow
 *         while the link runs);
 * and Time(f) = max of the two.  The best split equalises them.
 */
#include "balancer/model.h"

#include <math.h>

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

double hfft__model_gpu_rate(const hfft__link *l, const hfft__round_model *r) {
    if (r->gpu_rate > 0)
        return r->gpu_rate;
    double b = l->duplex > 0 ? l->duplex : 1e9;
    return b * hfft__link_efficiency(l, r->row_bytes);
}

static double edge(const hfft__link *l, const hfft__round_model *r) {
    /* Beyond its copies, a round waits for its largest pass to come in, be
       computed and go out: a whole strided pass (its FFTs need whole columns),
       or a chunk of a contiguous one (an eighth of a pass). */
    double b = l->duplex > 0 ? l->duplex : 1e9;
    return (r->row_bytes > 0 ? r->pass_bytes : r->pass_bytes / 8.0) / b;
}

double hfft__model_gpu_time(const hfft__link *l, const hfft__round_model *r, double f) {
    if (f <= 0)
        return 0.0;
    double g = hfft__model_gpu_rate(l, r);
    double slow = f < 1.0 && r->gpu_slow > 1.0 ? r->gpu_slow : 1.0;
    /* a measured GPU rate already holds the pipeline's edges */
    double e = r->gpu_rate > 0 ? 0.0 : edge(l, r);
    return f * r->bytes * slow / g + e;
}

double hfft__model_cpu_time(const hfft__round_model *r, double f) {
    if (f >= 1.0)
        return 0.0;
    if (r->cpu_rate <= 0)
        return INFINITY;
    double slow = f > 0 && r->cpu_slow > 1.0 ? r->cpu_slow : 1.0;
    return (1.0 - f) * r->bytes * slow / r->cpu_rate;
}

double hfft__model_round_time(const hfft__link *l, const hfft__round_model *r, double f) {
    double g = hfft__model_gpu_time(l, r, f), c = hfft__model_cpu_time(r, f);
    return g > c ? g : c;
}

double hfft__model_best_share(const hfft__link *l, const hfft__round_model *r, double margin,
                              double *t) {
    double t_gpu = hfft__model_round_time(l, r, 1.0);
    double t_cpu = hfft__model_round_time(l, r, 0.0);
    /* GPU time rises with f and CPU time falls: bisect for where they meet. */
    double lo = 0.0, hi = 1.0;
    for (int i = 0; i < 60; i++) {
        double m = 0.5 * (lo + hi);
        if (hfft__model_gpu_time(l, r, m) < hfft__model_cpu_time(r, m))
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

void hfft__model_fit(hfft__round_model *r, double t_gpu_only, double t_cpu_only, double f,
                     double tg, double tc) {
    if (t_gpu_only > 0)
        r->gpu_rate = r->bytes / t_gpu_only;
    if (t_cpu_only > 0)
        r->cpu_rate = r->bytes / t_cpu_only;
    r->gpu_slow = 1.0;
    r->cpu_slow = 1.0;
    if (f > 0 && f < 1 && tg > 0 && r->gpu_rate > 0) {
        double alone = f * r->bytes / r->gpu_rate;
        r->gpu_slow = tg / alone > 1.0 ? tg / alone : 1.0;
    }
    if (f > 0 && f < 1 && tc > 0) {
        if (r->cpu_rate > 0) {
            double alone = (1 - f) * r->bytes / r->cpu_rate;
            r->cpu_slow = tc / alone > 1.0 ? tc / alone : 1.0;
        } else {
            /* no CPU-only run: take the probe's rate as the contended one */
            r->cpu_rate = (1 - f) * r->bytes / tc;
        }
    }
}
