/*
 * test_pinning.c: host registration on the emulated device, which tracks it
 * as CUDA does.  Plans sharing one array register it once, from several
 * threads at once too; it stays registered until the last of them goes;
 * hfft_malloc memory is used as it is.  Arrays left pageable are staged
 * (HFFT_PINNING): correct results, the fallback where registration fails,
 * the choice under HFFT_MEASURE, and the setting itself.
 */
#include <criterion/criterion.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hfft.h"
#include "ref.h"
#include "util.h"

#define N0 64
#define N1 48
#define NPLANS 6

static hfft_options emulated(void) {
    hfft_options o;
    hfft_options_init(&o);
    o.device = HFFT_DEVICE_EMULATED;
    o.device_memory = 64 << 10;
    o.wisdom = "none";
    o.threads = 1;
    return o;
}

typedef struct job {
    void *a;
    int sign;
    hfftf_plan p;
    int status;
    char msg[256];
} job;

static void *make(void *arg) {
    job *j = arg;
    int64_t n[2] = {N0, N1};
    hfft_options o = emulated();
    j->p = hfftf_plan_dft(2, n, j->a, j->a, j->sign, HFFT_GPU_ONLY, &o);
    j->status = j->p ? 0 : hfft_last_error();
    if (!j->p)
        snprintf(j->msg, sizeof j->msg, "%s", hfft_last_error_message());
    return NULL;
}

/* Forward then backward with any two of the plans gives N times the input. */
static void check_round_trip(hfftf_plan f, hfftf_plan b, void *a) {
    size_t bytes = (size_t)N0 * N1 * 8;
    float *x = malloc(bytes);
    hfft_ref_fill(4, a, N0 * N1, 77);
    memcpy(x, a, bytes);
    cr_assert_eq(hfftf_execute(f), 0, "%s", hfft_last_error_message());
    cr_assert_eq(hfftf_execute(b), 0, "%s", hfft_last_error_message());
    const float *y = a;
    double num = 0, den = 0;
    for (int i = 0; i < 2 * N0 * N1; i++) {
        double d = y[i] / (double)(N0 * N1) - x[i];
        num += d * d;
        den += (double)x[i] * x[i];
    }
    free(x);
    cr_assert(num <= 1e-12 * den, "round trip error %g", num / den);
}

Test(pinning, plans_made_at_once_share_one_registration) {
    void *a = malloc((size_t)N0 * N1 * 8);
    job jobs[NPLANS];
    pthread_t t[NPLANS];
    for (int i = 0; i < NPLANS; i++) {
        memset(&jobs[i], 0, sizeof jobs[i]);
        jobs[i].a = a;
        jobs[i].sign = i % 2 ? HFFT_BACKWARD : HFFT_FORWARD;
        cr_assert_eq(pthread_create(&t[i], NULL, make, &jobs[i]), 0);
    }
    for (int i = 0; i < NPLANS; i++)
        pthread_join(t[i], NULL);
    for (int i = 0; i < NPLANS; i++) {
        cr_assert(jobs[i].p, "plan %d: status %d: %s", i, jobs[i].status, jobs[i].msg);
        hfft_info info;
        hfftf_plan_info(jobs[i].p, &info);
        cr_assert_eq(info.host_pinned, 1, "plan %d: host_pinned %d", i, info.host_pinned);
    }
    /* Destroying plans one by one leaves the others working on pinned memory. */
    for (int i = 0; i + 1 < NPLANS; i += 2) {
        check_round_trip(jobs[NPLANS - 2].p, jobs[NPLANS - 1].p, a);
        hfftf_destroy_plan(jobs[i].p);
        hfftf_destroy_plan(jobs[i + 1].p);
        jobs[i].p = jobs[i + 1].p = NULL;
        if (i + 2 < NPLANS)
            check_round_trip(jobs[i + 2].p, jobs[i + 3].p, a);
    }
    /* All gone: the range was released, so a new plan registers it afresh. */
    job again = {a, HFFT_FORWARD, NULL, 0, ""};
    make(&again);
    cr_assert(again.p, "re-registering after the last plan: %s", again.msg);
    hfftf_destroy_plan(again.p);
    free(a);
}

Test(pinning, hfft_malloc_memory_is_used_as_it_is) {
    void *a = hfftf_alloc_complex((size_t)N0 * N1);
    cr_assert(a);
    job f = {a, HFFT_FORWARD, NULL, 0, ""}, b = {a, HFFT_BACKWARD, NULL, 0, ""};
    make(&f);
    make(&b);
    cr_assert(f.p && b.p, "%s %s", f.msg, b.msg);
    hfft_info info;
    hfftf_plan_info(f.p, &info);
    cr_assert_eq(info.host_pinned, 2);
    check_round_trip(f.p, b.p, a);
    hfftf_destroy_plan(f.p);
    hfftf_destroy_plan(b.p);
    hfftf_free(a);
}

/* ---- pageable arrays through staging buffers ---- */

static hfft_options staged(int64_t budget, int pinning) {
    hfft_options o = emulated();
    o.device_memory = budget;
    o.pinning = pinning;
    o.threads = 2;
    return o;
}

/* HFFT_PINNING=stage: the plan registers nothing, copies through pinned
   staging buffers that host threads fill and empty, and gets the FFTW answer:
   strided and contiguous rounds, 3D planes, hybrid shares, both precisions,
   in and out of place (run_case checks the error and the untouched input). */
Test(pinning, staged_arrays, .init = tu_setup, .fini = tu_env_clear) {
    static const struct {
        int prec, rank;
        int64_t n[3], budget;
        double ratio;
    } cases[] = {
        {4, 2, {64, 48}, 4096, 0},       {8, 2, {64, 48}, 8192, 0},
        {4, 2, {97, 101}, 16384, 0},     {8, 2, {1000, 31}, 65536, 0},
        {4, 3, {12, 10, 14}, 2048, 0},   {8, 3, {20, 6, 5}, 65536, 0},
        {4, 2, {4096, 16}, 1 << 20, 0},  {4, 2, {64, 48}, 4096, 0.5},
        {8, 3, {12, 10, 14}, 4096, 0.6}, {4, 1, {300}, 65536, 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        hfft_options o = staged(cases[i].budget, HFFT_PINNING_STAGE);
        o.ratio = cases[i].ratio;
        for (int inplace = 0; inplace < 2; inplace++) {
            tu_case c = {cases[i].prec, cases[i].rank,
                         {cases[i].n[0], cases[i].n[1], cases[i].n[2]}, inplace,
                         inplace ? HFFT_BACKWARD : HFFT_FORWARD, 0, &o, 0, 0};
            hfft_info info;
            run_case(&c, &info);
            char shape[64];
            tu_shape(shape, sizeof shape, c.prec, c.rank, c.n);
            cr_assert_eq(info.host_pinned, 0, "%s: host_pinned %d", shape, info.host_pinned);
            cr_assert_gt(info.host_bytes, 0, "%s: no staging buffers reported", shape);
            /* 1000 x 31 f64 out of place streams four-step: its rounds drain between
               them, the staged copies out landing before round B reads them */
            if (i == 3 && !inplace)
                cr_assert_eq(info.schedule, 4, "%s: schedule %d", shape, info.schedule);
        }
    }
}

/* hfft_malloc memory is used as it is, whatever HFFT_PINNING says. */
Test(pinning, pinned_memory_is_never_staged, .init = tu_setup, .fini = tu_env_clear) {
    void *a = hfftf_alloc_complex((size_t)N0 * N1);
    cr_assert(a);
    int64_t n[2] = {N0, N1};
    hfft_options o = staged(64 << 10, HFFT_PINNING_STAGE);
    hfftf_plan f = hfftf_plan_dft(2, n, a, a, HFFT_FORWARD, HFFT_GPU_ONLY, &o);
    hfftf_plan b = hfftf_plan_dft(2, n, a, a, HFFT_BACKWARD, HFFT_GPU_ONLY, &o);
    cr_assert(f && b, "%s", hfft_last_error_message());
    hfft_info info;
    hfftf_plan_info(f, &info);
    cr_assert_eq(info.host_pinned, 2);
    check_round_trip(f, b, a);
    hfftf_destroy_plan(f);
    hfftf_destroy_plan(b);
    hfftf_free(a);
}

/* Where registration fails, auto stages (and says so in host_pinned); an
   explicit HFFT_PINNING=register fails with the call's message instead. */
Test(pinning, auto_stages_where_registration_fails, .init = tu_setup, .fini = tu_env_clear) {
    for (int prec = 4; prec <= 8; prec += 4) {
        hfft_options o = staged(prec == 4 ? 4096 : 8192, HFFT_PINNING_AUTO);
        tu_case c = {prec, 2, {N0, N1}, prec == 8, HFFT_FORWARD, 0, &o, 0, 0};
        hfft_info info;
        tu_fault_arm("host_register:1");
        run_case(&c, &info);
        unsetenv("HFFT_FAULT");
        cr_assert_eq(info.host_pinned, 0, "f%d: host_pinned %d", prec * 8, info.host_pinned);

        size_t bytes = (size_t)N0 * N1 * tu_esize(prec);
        void *a = tu_alloc(bytes);
        hfft_ref_fill(prec, a, N0 * N1, tu_seed());
        o.pinning = HFFT_PINNING_REGISTER;
        int64_t n[2] = {N0, N1};
        tu_fault_arm("host_register:1");
        tplan t = tp_dft(prec, 2, n, a, a, HFFT_FORWARD, 0, &o);
        unsetenv("HFFT_FAULT");
        cr_assert_null(t.p, "HFFT_PINNING=register with registration failing: a plan");
        cr_assert_eq(hfft_last_error(), HFFT_ERR_CUDA, "%s", hfft_last_error_message());
        cr_assert(strstr(hfft_last_error_message(), "cudaHostRegister") != NULL, "%s",
                  hfft_last_error_message());
        tu_free(a);
    }
}

/* HFFT_MEASURE with auto times a registered and a staged execute and keeps the
   faster: either is right, and the transform is correct after. */
Test(pinning, measure_times_both, .init = tu_setup, .fini = tu_env_clear) {
    for (int prec = 4; prec <= 8; prec += 4) {
        hfft_options o = staged(prec == 4 ? 16384 : 32768, HFFT_PINNING_AUTO);
        o.ratio = 1.0;
        tu_case c = {prec, 2, {N0, N1}, 1, HFFT_FORWARD, HFFT_MEASURE, &o, 0, 1};
        hfft_info info;
        run_case(&c, &info);
        cr_assert(info.host_pinned == 0 || info.host_pinned == 1, "host_pinned %d",
                  info.host_pinned);
        cr_assert_eq(info.host_bytes > 0, info.host_pinned == 0,
                     "staging buffers (%lld bytes) kept with host_pinned %d",
                     (long long)info.host_bytes, info.host_pinned);
    }
}

/* Staging needs the plain schedule: asked for with radix-2, a clear error. */
Test(pinning, staging_needs_the_plain_schedule, .init = tu_setup, .fini = tu_env_clear) {
    size_t bytes = (size_t)N0 * N1 * 8;
    void *a = tu_alloc(bytes);
    hfft_ref_fill(4, a, N0 * N1, tu_seed());
    int64_t n[2] = {N0, N1};
    hfft_options o = staged(4096, HFFT_PINNING_STAGE);
    hfftf_plan p = hfftf_plan_dft(2, n, a, a, HFFT_FORWARD, HFFT_SCHEDULE_RADIX2, &o);
    cr_assert_null(p);
    cr_assert_eq(hfft_last_error(), HFFT_ERR_UNSUPPORTED, "%s", hfft_last_error_message());
    cr_assert(strstr(hfft_last_error_message(), "radix-2") != NULL, "%s",
              hfft_last_error_message());
    tu_free(a);
}

/* The setting: HFFT_PINNING and options.pinning, malformed values refused. */
Test(pinning, setting, .init = tu_setup, .fini = tu_env_clear) {
    size_t bytes = (size_t)N0 * N1 * 8;
    void *a = tu_alloc(bytes);
    hfft_ref_fill(4, a, N0 * N1, tu_seed());
    int64_t n[2] = {N0, N1};
    hfft_options o = staged(4096, HFFT_PINNING_AUTO);
    setenv("HFFT_PINNING", "Stage", 1);
    hfftf_plan p = hfftf_plan_dft(2, n, a, a, HFFT_FORWARD, 0, &o);
    cr_assert(p, "%s", hfft_last_error_message());
    hfft_info info;
    hfftf_plan_info(p, &info);
    cr_assert_eq(info.host_pinned, 0, "HFFT_PINNING=Stage: host_pinned %d", info.host_pinned);
    hfftf_destroy_plan(p);
    o.pinning = HFFT_PINNING_REGISTER; /* the option wins over the environment */
    p = hfftf_plan_dft(2, n, a, a, HFFT_FORWARD, 0, &o);
    cr_assert(p, "%s", hfft_last_error_message());
    hfftf_plan_info(p, &info);
    cr_assert_eq(info.host_pinned, 1);
    hfftf_destroy_plan(p);
    setenv("HFFT_PINNING", "pinned", 1);
    o.pinning = HFFT_PINNING_AUTO;
    cr_assert_null(hfftf_plan_dft(2, n, a, a, HFFT_FORWARD, 0, &o));
    cr_assert_eq(hfft_last_error(), HFFT_ERR_SETTING);
    cr_assert(strstr(hfft_last_error_message(), "HFFT_PINNING") != NULL);
    unsetenv("HFFT_PINNING");
    o.pinning = 3;
    cr_assert_null(hfftf_plan_dft(2, n, a, a, HFFT_FORWARD, 0, &o));
    cr_assert_eq(hfft_last_error(), HFFT_ERR_SETTING);
    tu_free(a);
}
