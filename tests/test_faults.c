/*
 * test_faults.c: failures injected with HFFT_FAULT=op:N (the N-th call of op
 * fails, through the same paths as a real CUDA, cuFFT or pthread failure) on
 * the emulated device and the CPU pool.  At plan time: a device allocation
 * refused makes the planner shrink its passes (a valid, correct plan); a
 * failed FFT plan, host allocation or thread gives NULL and a message.  At
 * execute time: a negative status whose message says what became of the
 * arrays, an out-of-place input that is bit-identical, and after the variable
 * is unset, the same plan and new plans work again.
 */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ref.h"
#include "util.h"

TestSuite(faults, .init = tu_setup, .fini = tu_env_clear);

static hfft_options emu(int64_t budget) {
    hfft_options o;
    hfft_options_init(&o);
    o.device = HFFT_DEVICE_EMULATED;
    o.device_memory = budget;
    return o;
}

/* A fresh plan of this shape works once the fault is gone. */
static void works_again(int prec, int rank, const int64_t *n, unsigned flags,
                        const hfft_options *o) {
    unsetenv("HFFT_FAULT");
    for (int inplace = 0; inplace < 2; inplace++) {
        tu_case c = {prec, rank, {n[0], rank > 1 ? n[1] : 0, rank > 2 ? n[2] : 0}, inplace,
                     HFFT_FORWARD, flags, o, 0};
        run_case(&c, NULL);
    }
}

/* ---- plan time ---- */

/* A refused device allocation makes the planner retry with smaller passes: the
   plan is valid, its passes smaller on the device, and correct. */
Test(faults, alloc_at_plan_time_shrinks_passes) {
    int64_t n[2] = {64, 48};
    for (int prec = 4; prec <= 8; prec += 4) {
        hfft_options o = emu(prec == 4 ? 8192 : 16384);
        for (int inplace = 0; inplace < 2; inplace++) {
            tu_case c = {prec, 2, {64, 48}, inplace, HFFT_FORWARD, 0, &o, 0};
            hfft_info plain, faulted;
            run_case(&c, &plain);
            const char *specs[] = {"alloc:1", "alloc:2"};
            for (int s = 0; s < 2; s++) {
                tu_fault_arm(specs[s]);
                run_case(&c, &faulted);
                unsetenv("HFFT_FAULT");
                /* (what the budget keeps resident takes the room the passes leave) */
                cr_assert_lt(faulted.device_bytes - faulted.resident_bytes,
                             plain.device_bytes - plain.resident_bytes,
                             "%s: %lld device bytes (%lld resident), %lld (%lld) without the "
                             "fault",
                             specs[s], (long long)faulted.device_bytes,
                             (long long)faulted.resident_bytes, (long long)plain.device_bytes,
                             (long long)plain.resident_bytes);
                cr_assert_geq(faulted.passes[0], plain.passes[0]);
                cr_assert_geq(faulted.passes[1], plain.passes[1]);
                cr_assert_gt(faulted.passes[0] + faulted.passes[1],
                             plain.passes[0] + plain.passes[1], "%s: no more passes", specs[s]);
            }
        }
    }
    works_again(4, 2, n, HFFT_SCHEDULE_RADIX2, &(hfft_options){.device = HFFT_DEVICE_EMULATED,
                                                                 .device_memory = 4096});
}

/* A device fault does not concern a CPU plan. */
Test(faults, device_faults_do_not_touch_cpu_plans) {
    const char *specs[] = {"alloc:1", "h2d:1", "d2h:1", "fft_plan:1", "fft_exec:1", "kernel:1"};
    for (int s = 0; s < 6; s++) {
        tu_fault_arm(specs[s]);
        tu_case c = {s % 2 ? 8 : 4, 2, {30, 20}, s % 2, HFFT_FORWARD, HFFT_CPU_ONLY, NULL, 0};
        run_case(&c, NULL);
    }
    unsetenv("HFFT_FAULT");
}

static void plan_fault(const char *spec, int prec, int rank, const int64_t *n, int inplace,
                       unsigned flags, const hfft_options *o, int status, const char *needle) {
    int64_t total = tu_total(rank, n);
    size_t bytes = (size_t)total * tu_esize(prec);
    void *in = tu_alloc(bytes), *out = inplace ? in : tu_alloc(bytes);
    hfft_ref_fill(prec, in, total, tu_seed());
    if (!inplace)
        tu_poison(out, bytes);
    void *in0 = tu_dup(in, bytes), *out0 = tu_dup(out, bytes);
    tu_fault_arm(spec);
    tplan t = tp_dft(prec, rank, n, in, out, HFFT_FORWARD, flags, o);
    unsetenv("HFFT_FAULT");
    char shape[64], what[128];
    snprintf(what, sizeof what, "HFFT_FAULT=%s, %s %s", spec,
             tu_shape(shape, sizeof shape, prec, rank, n), inplace ? "in-place" : "out-of-place");
    if (t.p)
        tp_destroy(t);
    cr_assert_null(t.p, "%s: got a plan", what);
    cr_assert_eq(hfft_last_error(), status, "%s: status %d (%s), expected %d", what,
                 hfft_last_error(), hfft_last_error_message(), status);
    const char *msg = hfft_last_error_message();
    cr_assert(strstr(msg, needle) != NULL, "%s: message '%s' lacks '%s'", what, msg, needle);
    cr_assert(memcmp(in, in0, bytes) == 0, "%s: the input changed", what);
    cr_assert(memcmp(out, out0, bytes) == 0, "%s: the output changed", what);
    tu_free(in0);
    tu_free(out0);
    if (out != in)
        tu_free(out);
    tu_free(in);
}

Test(faults, fft_plan_at_plan_time) {
    int64_t n2[2] = {64, 48}, n3[3] = {12, 10, 14}, nl[2] = {729, 8};
    for (int prec = 4; prec <= 8; prec += 4) {
        hfft_options o = emu(prec == 4 ? 4096 : 8192), ol = emu(prec == 4 ? 8192 : 16384);
        plan_fault("fft_plan:1", prec, 2, n2, 0, 0, &o, HFFT_ERR_CUDA, "fft_plan");
        plan_fault("fft_plan:1", prec, 2, n2, 1, HFFT_SCHEDULE_RADIX2, &o, HFFT_ERR_CUDA,
                   "injected fault");
        plan_fault("fft_plan:2", prec, 3, n3, 1, 0, &o, HFFT_ERR_CUDA, "fft_plan");
        plan_fault("fft_plan:2", prec, 2, nl, 0, 0, &ol, HFFT_ERR_CUDA, "fft_plan");
        hfft_options big = emu(1 << 20); /* one trip */
        plan_fault("fft_plan:1", prec, 2, n2, 0, 0, &big, HFFT_ERR_CUDA, "fft_plan");
        plan_fault("fft_plan:2", prec, 3, n3, 1, 0, &big, HFFT_ERR_CUDA, "fft_plan");
        works_again(prec, 2, n2, HFFT_SCHEDULE_RADIX2, &o);
        works_again(prec, 3, n3, 0, &o);
    }
}

/* A long line on two cards whose first card would hold the whole trip: a trip the
   card refuses leaves both cards streaming (a valid, correct plan), not an error. */
Test(faults, refused_trip_on_two_cards_streams) {
    for (int prec = 4; prec <= 8; prec += 4) {
        hfft_options o = emu(prec == 4 ? 1 << 20 : 2 << 20);
        o.devices = "0,1";
        tu_case c = {prec, 1, {65536}, 0, HFFT_FORWARD, 0, &o, 0};
        hfft_info plain, faulted;
        run_case(&c, &plain);
        cr_assert_eq(plain.schedule, 3, "f%d: schedule %d, not one trip", prec * 8,
                     plain.schedule);
        tu_fault_arm("fft_plan:1");
        run_case(&c, &faulted);
        unsetenv("HFFT_FAULT");
        cr_assert_neq(faulted.schedule, 3, "f%d: the refused trip still ran", prec * 8);
        cr_assert_eq(faulted.cards, 2, "f%d: %d cards", prec * 8, faulted.cards);
    }
}

/* In place, lines longer than a pass need a pinned host scratch. */
Test(faults, host_alloc) {
    int64_t n[2] = {4096, 8};
    hfft_options o = emu(8192);
    plan_fault("host_alloc:1", 4, 2, n, 1, 0, &o, HFFT_ERR_HOST_MEMORY, "host");
    /* Out of place there is no scratch: the fault never fires. */
    tu_fault_arm("host_alloc:1");
    tu_case c = {4, 2, {4096, 8}, 0, HFFT_FORWARD, 0, &o, 0};
    run_case(&c, NULL);
    unsetenv("HFFT_FAULT");
    works_again(4, 2, n, 0, &o);
    /* hfft_malloc fails cleanly. */
    tu_fault_arm("host_alloc:1");
    void *p = hfft_malloc(4096);
    unsetenv("HFFT_FAULT");
    if (p)
        hfft_free(p);
    cr_assert_null(p, "hfft_malloc under host_alloc:1");
    cr_assert_eq(hfft_last_error(), HFFT_ERR_HOST_MEMORY);
    cr_assert(*hfft_last_error_message());
}

Test(faults, thread_creation) {
    int64_t n[2] = {40, 30};
    setenv("HFFT_THREADS", "4", 1);
    for (int prec = 4; prec <= 8; prec += 4)
        for (int inplace = 0; inplace < 2; inplace++)
            plan_fault("thread:2", prec, 2, n, inplace, HFFT_CPU_ONLY, NULL, HFFT_ERR_THREAD,
                       "pthread_create");
    /* The CPU share of a hybrid plan needs threads too. */
    hfft_options o = emu(8192);
    o.ratio = 0.5;
    o.threads = 3;
    plan_fault("thread:3", 4, 2, n, 0, 0, &o, HFFT_ERR_THREAD, "thread");
    plan_fault("thread:1", 8, 2, n, 1, HFFT_HYBRID, &o, HFFT_ERR_THREAD, "thread");
    works_again(4, 2, n, HFFT_CPU_ONLY, NULL);
    works_again(8, 2, n, 0, &o);
    hfft_info info;
    tu_case c = {4, 2, {40, 30}, 1, HFFT_FORWARD, HFFT_CPU_ONLY, NULL, 0};
    run_case(&c, &info);
    cr_assert_eq(info.threads, 4);
    unsetenv("HFFT_THREADS");
}

/* The N-th call is counted from when HFFT_FAULT took its value: set again after
   an unset, the same value fires again. */
Test(faults, rearmed_after_unset) {
    int64_t n[2] = {64, 48};
    size_t bytes = 64 * 48 * 8;
    hfft_options o = emu(4096);
    void *in = tu_alloc(bytes), *out = tu_alloc(bytes);
    for (int round = 1; round <= 3; round++) {
        setenv("HFFT_FAULT", "fft_plan:1", 1);
        hfftf_plan p = hfftf_plan_dft(2, n, in, out, HFFT_FORWARD, 0, &o);
        unsetenv("HFFT_FAULT");
        if (p)
            hfftf_destroy_plan(p);
        cr_assert_null(p,
                       "HFFT_FAULT=fft_plan:1 set for the %s time after an unsetenv: the fault "
                       "did not fire (the call count survives the unset)",
                       round == 2 ? "second" : "third");
        cr_assert_eq(hfft_last_error(), HFFT_ERR_CUDA);
        p = hfftf_plan_dft(2, n, in, out, HFFT_FORWARD, 0, &o);
        cr_assert(p, "without HFFT_FAULT: %s", hfft_last_error_message());
        hfftf_destroy_plan(p);
    }
    tu_free(in);
    tu_free(out);
}

/* ---- execute time ---- */

struct exec_case {
    int prec;
    int rank;
    int64_t n[3];
    int64_t budget;
    unsigned flags;
    double ratio;
    char spec[16]; /* an array: Criterion copies parameters into the test's process */
    int64_t pass_bytes;
    int pinning;   /* options.pinning */
    char devices[16]; /* options.devices ("": the default) */
};

static void exec_fault(const struct exec_case *e, int inplace) {
    int prec = e->prec;
    int64_t total = tu_total(e->rank, e->n);
    size_t bytes = (size_t)total * tu_esize(prec);
    hfft_options o = emu(e->budget);
    o.ratio = e->ratio;
    o.pass_bytes = e->pass_bytes;
    o.pinning = e->pinning;
    o.devices = e->devices[0] ? e->devices : NULL;
    void *in = tu_alloc(bytes), *out = inplace ? in : tu_alloc(bytes);
    char shape[64], what[160];
    snprintf(what, sizeof what, "HFFT_FAULT=%s, %s %s flags 0x%x ratio %g", e->spec,
             tu_shape(shape, sizeof shape, prec, e->rank, e->n),
             inplace ? "in-place" : "out-of-place", e->flags, e->ratio);
    tplan t = tp_dft(prec, e->rank, e->n, in, out, HFFT_FORWARD, e->flags, &o);
    cr_assert(t.p, "%s: no plan: %s", what, hfft_last_error_message());
    uint64_t seed = tu_seed();
    hfft_ref_fill(prec, in, total, seed);
    void *in0 = tu_dup(in, bytes);
    if (!inplace)
        tu_poison(out, bytes);

    tu_fault_arm(e->spec);
    int st = tp_execute(t);
    unsetenv("HFFT_FAULT");
    cr_assert_lt(st, 0, "%s: execute returned %d", what, st);
    cr_assert_eq(st, HFFT_ERR_CUDA, "%s: status %d (%s)", what, st, hfft_strerror(st));
    cr_assert_eq(hfft_last_error(), st);
    const char *msg = hfft_last_error_message();
    cr_assert(strstr(msg, "injected fault") != NULL, "%s: message '%s'", what, msg);
    if (inplace) {
        cr_assert(strstr(msg, "in-place array is undefined") != NULL, "%s: message '%s'", what,
                  msg);
    } else {
        cr_assert(strstr(msg, "input is untouched") != NULL, "%s: message '%s'", what, msg);
        cr_assert(memcmp(in, in0, bytes) == 0, "%s: the input changed", what);
    }

    /* The same plan works again once the fault is gone. */
    memcpy(in, in0, bytes);
    if (!inplace)
        tu_poison(out, bytes);
    st = tp_execute(t);
    cr_assert_eq(st, 0, "%s: execute after the fault: %s", what, hfft_last_error_message());
    double err = hfft_ref_error(prec, e->rank, e->n, in0, out, HFFT_FORWARD, 1);
    cr_assert(err >= 0 && err < tu_tol(prec), "%s: after the fault, error %.3g (seed %llu)", what,
              err, (unsigned long long)seed);
    if (!inplace)
        cr_assert(memcmp(in, in0, bytes) == 0);
    tp_destroy(t);
    tu_free(in0);
    if (out != in)
        tu_free(out);
    tu_free(in);
    works_again(prec, e->rank, e->n, e->flags, &o);
}

ParameterizedTestParameters(faults, at_execute) {
    static struct exec_case cases[] = {
        /* plain passes */
        {4, 2, {64, 48}, 4096, HFFT_SCHEDULE_PLAIN, 0, "h2d:3"},
        {4, 2, {64, 48}, 4096, HFFT_SCHEDULE_PLAIN, 0, "d2h:2"},
        {8, 2, {64, 48}, 8192, HFFT_SCHEDULE_PLAIN, 0, "fft_exec:2"},
        {8, 2, {64, 48}, 8192, 0, 0, "h2d:1"},
        /* a fault in the second round */
        {4, 2, {64, 48}, 4096, HFFT_SCHEDULE_PLAIN, 0, "d2h:60"},
        /* four-step streaming (out of place; 32 + 24 passes, one copy each way a pass):
           in round A, and in round B's copies in and out */
        {4, 2, {64, 48}, 4096, 0, 0, "d2h:20"},
        {4, 2, {64, 48}, 4096, 0, 0, "h2d:40"},
        {4, 2, {64, 48}, 4096, 0, 0, "d2h:50"},
        {8, 2, {64, 48}, 8192, 0, 0, "fft_exec:3"},
        /* radix-2 */
        {4, 2, {64, 48}, 4096, HFFT_SCHEDULE_RADIX2, 0, "h2d:3"},
        {8, 2, {64, 48}, 8192, HFFT_SCHEDULE_RADIX2, 0, "d2h:2"},
        {4, 2, {64, 48}, 4096, HFFT_SCHEDULE_RADIX2, 0, "fft_exec:2"},
        {8, 2, {64, 48}, 8192, HFFT_SCHEDULE_RADIX2, 0, "kernel:1"},
        {4, 2, {64, 48}, 4096, HFFT_SCHEDULE_RADIX2, 0, "kernel:7"},
        /* long lines: radix 4 and radix 3 combinations */
        {4, 2, {4096, 8}, 8192, 0, 0, "h2d:3"},
        {4, 2, {4096, 8}, 8192, 0, 0, "kernel:1"},
        {8, 2, {729, 8}, 16384, 0, 0, "kernel:2"},
        {4, 2, {729, 8}, 8192, 0, 0, "d2h:2"},
        {4, 2, {1250, 4}, 8192, 0, 0, "fft_exec:2"},
        /* 3D with split planes */
        {4, 3, {12, 10, 14}, 2048, 0, 0, "h2d:3"},
        {8, 3, {5, 7, 11}, 2048, 0, 0, "d2h:2"},
        /* hybrid: the CPU share runs while the device part fails */
        {4, 2, {64, 48}, 4096, 0, 0.5, "h2d:3"},
        {8, 2, {64, 48}, 8192, HFFT_SCHEDULE_RADIX2, 0.7, "kernel:1"},
        {4, 3, {12, 10, 14}, 4096, HFFT_HYBRID, 0, "fft_exec:2"},
        /* long strided lines computed transposed: the transpose kernels fail */
        {4, 2, {4096, 16}, 1 << 20, 0, 0, "kernel:1", 131072},
        {8, 2, {4096, 12}, 2 << 20, 0, 0, "kernel:4", 262144},
        {4, 2, {4096, 16}, 1 << 20, 0, 0, "fft_exec:3", 131072},
        /* pageable arrays through staging buffers: a host function, a copy in or out fails */
        {4, 2, {64, 48}, 4096, HFFT_SCHEDULE_PLAIN, 0, "host_fn:3", 0, HFFT_PINNING_STAGE},
        {8, 2, {64, 48}, 8192, 0, 0, "h2d:2", 0, HFFT_PINNING_STAGE},
        {4, 2, {64, 48}, 4096, 0, 0, "d2h:5", 0, HFFT_PINNING_STAGE},
        {4, 3, {12, 10, 14}, 2048, 0, 0, "host_fn:9", 0, HFFT_PINNING_STAGE},
        {8, 2, {64, 48}, 8192, 0, 0.5, "host_fn:2", 0, HFFT_PINNING_STAGE},
        /* one trip (the array fits the budget): a copy in (dimension 0 four-step: the one
           copy of its one group), a copy out, an FFT, a transpose */
        {4, 2, {64, 48}, 1 << 20, 0, 0, "h2d:1"},
        {8, 2, {64, 48}, 1 << 20, 0, 0, "d2h:1"},
        {4, 3, {12, 10, 14}, 1 << 20, 0, 0, "fft_exec:5"},
        {8, 2, {4100, 3}, 1 << 20, 0, 0, "kernel:2"},
        {4, 2, {64, 48}, 1 << 20, 0, 0, "host_fn:3", 0, HFFT_PINNING_STAGE},
        /* several cards, one trip: a copy in, a peer copy, an FFT, a copy out */
        {4, 2, {64, 48}, 1 << 20, 0, 0, "h2d:2", 0, 0, "0,1"},
        {8, 2, {64, 48}, 1 << 20, 0, 0, "peer:2", 0, 0, "0,1,2"},
        {4, 3, {12, 10, 14}, 1 << 20, 0, 0, "fft_exec:7", 0, 0, "1,0"},
        {8, 2, {64, 48}, 1 << 20, 0, 0, "d2h:2", 0, 0, "0,1"},
        {4, 2, {64, 48}, 1 << 20, 0, 0, "d2d:1", 0, 0, "0,1"},
        /* several cards streaming their shares: one card's copy fails */
        {4, 2, {64, 48}, 4096, 0, 0, "h2d:5", 0, 0, "0,1"},
        {8, 2, {64, 48}, 8192, 0, 0, "d2h:7", 0, 0, "0,1,2"},
    };
    return cr_make_param_array(struct exec_case, cases, sizeof cases / sizeof cases[0]);
}

ParameterizedTest(struct exec_case *e, faults, at_execute) {
    exec_fault(e, 0);
    exec_fault(e, 1);
}

/* Several cards streaming, each keeping part of the array between the rounds (four-step
   out of place, the plain schedule's columns in place): the second round's copy of
   another card's part, card to card, fails. */
Test(faults, resident_over_cards) {
    static const struct exec_case cases[] = {
        {4, 2, {256, 384}, 98304, 0, 0, "peer:1", 0, 0, "0,1"},
        {8, 2, {256, 384}, 131072, 0, 0, "peer:5", 0, 0, "0,1,2"},
        {4, 2, {256, 384}, 294912, 0, 0, "peer:2", 0, 0, "0,1"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        exec_fault(&cases[i], i == 2);
}
