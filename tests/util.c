/*
 * util.c: shared helpers of the test binaries (see util.h).  Assertions here
 * fail the calling test, so a helper reads like part of the test that uses it.
 */
#define _GNU_SOURCE
#include "util.h"

#include <criterion/criterion.h>
#include <fftw3.h>
#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "ref.h"

uint64_t tu_seed(void) {
    static _Atomic uint64_t counter;
    struct timespec t;
    clock_gettime(CLOCK_REALTIME, &t);
    uint64_t c = atomic_fetch_add(&counter, 1) + 1;
    return (uint64_t)t.tv_sec * 1000000007ull ^ (uint64_t)t.tv_nsec ^ ((uint64_t)getpid() << 32) ^
           (c * 0x9E3779B97F4A7C15ull);
}

void *tu_alloc(size_t bytes) {
    void *p = NULL;
    cr_assert(posix_memalign(&p, 64, bytes ? bytes : 64) == 0 && p,
              "test allocation of %zu bytes failed", bytes);
    return p;
}

void tu_free(void *p) { free(p); }

void tu_poison(void *p, size_t bytes) { memset(p, 0xff, bytes); }

void *tu_dup(const void *p, size_t bytes) {
    void *q = tu_alloc(bytes);
    memcpy(q, p, bytes);
    return q;
}

int64_t tu_total(int rank, const int64_t *n) {
    int64_t t = 1;
    for (int i = 0; i < rank; i++)
        t *= n[i];
    return t;
}

void tu_env_clear(void) {
    static const char *vars[] = {"HFFT_DEVICE", "HFFT_DEVICE_MEMORY", "HFFT_THREADS",
                                 "HFFT_WISDOM", "HFFT_FAULT", "HFFT_EMULATED_ORDER",
                                 "HFFT_PINNING"};
    for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++)
        unsetenv(vars[i]);
}

void tu_fault_arm(const char *spec) {
    static _Atomic int zeros;
    const char *colon = strchr(spec, ':');
    cr_assert(colon, "bad fault spec '%s'", spec);
    int z = atomic_fetch_add(&zeros, 1) % 32;
    char v[80];
    int k = snprintf(v, sizeof v, "%.*s:", (int)(colon - spec), spec);
    for (int i = 0; i < z; i++)
        v[k++] = '0';
    snprintf(v + k, sizeof v - (size_t)k, "%s", colon + 1);
    setenv("HFFT_FAULT", v, 1);
}

void tu_setup(void) {
    tu_env_clear();
    setenv("HFFT_WISDOM", "none", 1);
    fftw_init_threads();
    fftwl_init_threads();
}

tplan tp_dft(int prec, int rank, const int64_t *n, void *in, void *out, int sign, unsigned flags,
             const hfft_options *opts) {
    tplan t = {prec, NULL};
    if (prec == 4)
        t.p = hfftf_plan_dft(rank, n, in, out, sign, flags, opts);
    else
        t.p = hfft_plan_dft(rank, n, in, out, sign, flags, opts);
    return t;
}

tplan tp_nd(int prec, int rank, const int64_t *n, void *in, void *out, int sign, unsigned flags) {
    tplan t = {prec, NULL};
    int a = (int)n[0], b = rank > 1 ? (int)n[1] : 0, c = rank > 2 ? (int)n[2] : 0;
    if (prec == 4) {
        t.p = rank == 1   ? hfftf_plan_1d(a, in, out, sign, flags)
              : rank == 2 ? hfftf_plan_2d(a, b, in, out, sign, flags)
                          : hfftf_plan_3d(a, b, c, in, out, sign, flags);
    } else {
        t.p = rank == 1   ? hfft_plan_1d(a, in, out, sign, flags)
              : rank == 2 ? hfft_plan_2d(a, b, in, out, sign, flags)
                          : hfft_plan_3d(a, b, c, in, out, sign, flags);
    }
    return t;
}

int tp_execute(tplan t) { return t.prec == 4 ? hfftf_execute(t.p) : hfft_execute(t.p); }

int tp_execute_dft(tplan t, void *in, void *out) {
    return t.prec == 4 ? hfftf_execute_dft(t.p, in, out) : hfft_execute_dft(t.p, in, out);
}

int tp_info(tplan t, hfft_info *info) {
    return t.prec == 4 ? hfftf_plan_info(t.p, info) : hfft_plan_info(t.p, info);
}

int tp_trace(tplan t, hfft_trace_op *ops, int max) {
    return t.prec == 4 ? hfftf_plan_trace(t.p, ops, max) : hfft_plan_trace(t.p, ops, max);
}

void tp_destroy(tplan t) {
    if (t.prec == 4)
        hfftf_destroy_plan(t.p);
    else
        hfft_destroy_plan(t.p);
}

double tu_rel_rms(int prec, const void *y, const void *ref, int64_t count) {
    long double num = 0, den = 0;
    for (int64_t i = 0; i < 2 * count; i++) {
        long double a = prec == 4 ? ((const float *)y)[i] : ((const double *)y)[i];
        long double b = prec == 4 ? ((const float *)ref)[i] : ((const double *)ref)[i];
        num += (a - b) * (a - b);
        den += b * b;
    }
    return den > 0 ? (double)sqrtl(num / den) : (double)sqrtl(num);
}

int64_t tu_count_nan(int prec, const void *data, int64_t count) {
    int64_t k = 0;
    for (int64_t i = 0; i < count; i++) {
        double re = prec == 4 ? ((const float *)data)[2 * i] : ((const double *)data)[2 * i];
        double im = prec == 4 ? ((const float *)data)[2 * i + 1] : ((const double *)data)[2 * i + 1];
        k += isnan(re) || isnan(im);
    }
    return k;
}

const char *tu_describe_info(char *buf, size_t size, const hfft_info *i) {
    snprintf(buf, size,
             "plan: device %d (%s), placement %d, schedule %d, rounds %d, passes %d/%d/%d, "
             "GPU shares %.3g/%.3g/%.3g, slots %d, transposed %d, device bytes %lld of %lld, "
             "host_pinned %d, threads %d",
             i->device, i->device_name, i->placement, i->schedule, i->rounds, i->passes[0],
             i->passes[1], i->passes[2], i->ratio[0], i->ratio[1], i->ratio[2], i->streams,
             i->transposed, (long long)i->device_bytes, (long long)i->device_budget,
             i->host_pinned, i->threads);
    return buf;
}

const char *tu_shape(char *buf, size_t size, int prec, int rank, const int64_t *n) {
    int k = snprintf(buf, size, "f%d %dD ", prec * 8, rank);
    for (int i = 0; i < rank && k > 0 && (size_t)k < size; i++)
        k += snprintf(buf + k, size - (size_t)k, i ? "x%lld" : "%lld", (long long)n[i]);
    return buf;
}

void run_case(const tu_case *c, hfft_info *info) {
    char what[160], shape[64];
    tu_shape(shape, sizeof shape, c->prec, c->rank, c->n);
    uint64_t seed = tu_seed();
    snprintf(what, sizeof what, "%s %s %s flags 0x%x budget %lld (seed %llu)", shape,
             c->inplace ? "in-place" : "out-of-place",
             c->sign == HFFT_FORWARD ? "forward" : "backward", c->flags,
             c->opts ? (long long)c->opts->device_memory : 0LL, (unsigned long long)seed);
    int64_t total = tu_total(c->rank, c->n);
    size_t bytes = (size_t)total * tu_esize(c->prec);
    void *in = tu_alloc(bytes);
    void *out = c->inplace ? in : tu_alloc(bytes);
    hfft_ref_fill(c->prec, in, total, seed);
    void *orig = tu_dup(in, bytes);
    if (!c->inplace)
        tu_poison(out, bytes);

    tplan t = c->use_nd ? tp_nd(c->prec, c->rank, c->n, in, out, c->sign, c->flags)
                        : tp_dft(c->prec, c->rank, c->n, in, out, c->sign, c->flags, c->opts);
    cr_assert(t.p != NULL, "%s: no plan: %s (%d: %s)", what, hfft_last_error_message(),
              hfft_last_error(), hfft_strerror(hfft_last_error()));
    if (c->fill_after_plan) {
        memcpy(in, orig, bytes);
        if (!c->inplace)
            tu_poison(out, bytes);
    }
    cr_assert(memcmp(in, orig, bytes) == 0, "%s: planning changed the input", what);
    int st = tp_execute(t);
    cr_assert(st == 0, "%s: execute returned %d: %s", what, st, hfft_last_error_message());
    hfft_info local;
    cr_assert(tp_info(t, &local) == 0, "%s: plan_info failed", what);
    /* one trip times its two phases (hfft__gpu_times), streaming every round */
    double timed = 0;
    for (int h = 0; h < local.rounds; h++) {
        timed += local.measured_seconds[h];
        cr_assert(local.schedule == 3 || local.measured_seconds[h] > 0.0,
                  "%s: round %d measured %g s", what, h, local.measured_seconds[h]);
    }
    cr_assert(timed > 0.0, "%s: no round measured", what);
    if (!c->inplace && !c->input_may_change)
        cr_assert(memcmp(in, orig, bytes) == 0, "%s: out-of-place execute changed the input", what);
    double err = hfft_ref_error(c->prec, c->rank, c->n, orig, out, c->sign, 1);
    if (!(err >= 0.0 && err < tu_tol(c->prec))) {
        char plan[200];
        tu_describe_info(plan, sizeof plan, &local);
        cr_assert_fail("%s: relative RMS error %.3g (limit %.0e); %lld of %lld outputs NaN; %s",
                       what, err, tu_tol(c->prec), (long long)tu_count_nan(c->prec, out, total),
                       (long long)total, plan);
    }
    tp_destroy(t);
    if (info)
        *info = local;
    tu_free(orig);
    if (out != in)
        tu_free(out);
    tu_free(in);
}
