/*
 * test_pinning.c: host registration on the emulated device, which tracks it
 * as CUDA does.  Plans sharing one array register it once, from several
 * threads at once too; it stays registered until the last of them goes;
 * hfft_malloc memory is used as it is.
 */
#include <criterion/criterion.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hfft.h"
#include "ref.h"

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
