/*
 * test_gpu.c: the same out-of-card schedules on a real CUDA GPU, with device
 * budgets far below the array so that every round takes many passes: 2D
 * plain and radix-2, double precision, 3D, lines longer than a pass, hybrid,
 * automatic placement, hfft_malloc memory, malloc'd arrays that share pages,
 * pageable arrays staged, several plans on one array, faults at execute time,
 * and two threads.
 * Where the library cannot use CUDA (no GPU, no driver, built without the
 * toolkit, HFFT_DEVICE=none) every test is reported as skipped, not passed.
 */
#include <criterion/criterion.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifdef HFFT_TEST_CUDART
#include <cuda_runtime_api.h>
#endif

#include "ref.h"
#include "util.h"

static void gpu_setup(void) {
    /* Keep a caller's HFFT_DEVICE=none: it means "no GPU tests here". */
    const char *dev = getenv("HFFT_DEVICE");
    int none = dev && (strcmp(dev, "none") == 0 || strcmp(dev, "cpu") == 0);
    tu_setup();
    if (none)
        setenv("HFFT_DEVICE", "none", 1);
    /* One card unless the caller names the cards: the budgets, schedules and link
       bytes asserted here are a single card's (plans over several cards are the
       emulated suites', and the cases below that name "0,1") */
    setenv("HFFT_DEVICES", "0", 0);
}

TestSuite(gpu, .init = gpu_setup, .fini = tu_env_clear);

#define MiB (1LL << 20)

static void require_cuda(void) {
    hfft_options o;
    hfft_options_init(&o);
    o.device = HFFT_DEVICE_CUDA;
    int64_t n[1] = {64};
    void *a = tu_alloc(64 * 8);
    if (getenv("HFFT_DEVICE") && strcmp(getenv("HFFT_DEVICE"), "none") == 0) {
        tu_free(a);
        cr_skip_test("no usable CUDA GPU (HFFT_DEVICE=none)");
    }
    hfftf_plan p = hfftf_plan_dft(1, n, a, a, HFFT_FORWARD, 0, &o);
    if (!p) {
        int st = hfft_last_error();
        char msg[256];
        snprintf(msg, sizeof msg, "%s", hfft_last_error_message());
        tu_free(a);
        if (st == HFFT_ERR_NO_DEVICE)
            cr_skip_test("no usable CUDA GPU: %s", msg);
        cr_assert_fail("a CUDA plan failed with %d: %s", st, msg);
    }
    hfftf_destroy_plan(p);
    tu_free(a);
}

static hfft_options cuda(int64_t budget) {
    hfft_options o;
    hfft_options_init(&o);
    o.device = HFFT_DEVICE_CUDA;
    o.device_memory = budget;
    return o;
}

static void check_gpu_info(const hfft_info *info, int64_t budget, int64_t bytes, int placement) {
    cr_assert_eq(info->device, HFFT_DEVICE_CUDA);
    cr_assert(info->device_name[0] && strcmp(info->device_name, "none") != 0 &&
                  strcmp(info->device_name, "emulated") != 0,
              "device name '%s'", info->device_name);
    if (budget)
        cr_assert_eq(info->device_budget, budget);
    cr_assert(info->device_bytes > 0 && info->device_bytes <= info->device_budget,
              "device_bytes %lld, budget %lld", (long long)info->device_bytes,
              (long long)info->device_budget);
    int most = 0;
    for (int h = 0; h < info->rounds; h++)
        most = info->passes[h] > most ? info->passes[h] : most;
    if (bytes > info->device_budget)
        cr_assert_gt(most, 1, "at most %d pass per round", most);
    cr_assert_eq(info->placement, placement, "placement %d", info->placement);
}

/* Every placement and direction of one shape on the GPU. */
static void gpu_cases(int prec, int rank, int64_t a, int64_t b, int64_t c, int64_t budget,
                      unsigned flags, double ratio, int schedule) {
    require_cuda();
    hfft_options o = cuda(budget);
    o.ratio = ratio;
    int64_t n[3] = {a, b, c};
    int64_t bytes = tu_total(rank, n) * (int64_t)tu_esize(prec);
    for (int inplace = 0; inplace < 2; inplace++) {
        tu_case tc = {prec, rank, {a, b, c}, inplace, inplace ? HFFT_BACKWARD : HFFT_FORWARD,
                      flags, &o, 0};
        hfft_info info;
        run_case(&tc, &info);
        check_gpu_info(&info, budget, bytes, ratio > 0 || (flags & HFFT_HYBRID) ? 2 : 1);
        if (schedule)
            cr_assert_eq(info.schedule, schedule, "schedule %d, expected %d", info.schedule,
                         schedule);
    }
}

Test(gpu, f32_2d_2048_plain) {
    gpu_cases(4, 2, 2048, 2048, 0, 16 * MiB, HFFT_SCHEDULE_PLAIN, 0, 1);
}

Test(gpu, f32_2d_2048_radix2) {
    gpu_cases(4, 2, 2048, 2048, 0, 16 * MiB, HFFT_SCHEDULE_RADIX2, 0, 2);
}

Test(gpu, f64_2d_1024x1536) {
    gpu_cases(8, 2, 1024, 1536, 0, 8 * MiB, 0, 0, 0);
    gpu_cases(8, 2, 1024, 1536, 0, 8 * MiB, HFFT_SCHEDULE_RADIX2, 0, 2);
}

Test(gpu, f32_3d_64x64x128) { gpu_cases(4, 3, 64, 64, 128, 4 * MiB, 0, 0, 0); }

Test(gpu, f64_3d_planes_split) { gpu_cases(8, 3, 16, 512, 256, 8 * MiB, 0, 0, 0); }

Test(gpu, f32_long_lines) { gpu_cases(4, 2, 1 << 20, 8, 0, 2 * MiB, 0, 0, 0); }

Test(gpu, f64_long_lines_radix3_5) {
    gpu_cases(8, 2, 3 * 5 * 5 * 5 * 5 * 5 * 5, 4, 0, 4 * MiB, 0, 0, 0); /* 46875 = 3 x 5^6 */
}

Test(gpu, f32_hybrid) {
    gpu_cases(4, 2, 2048, 2048, 0, 16 * MiB, 0, 0.8, 0);
    gpu_cases(4, 2, 2048, 2048, 0, 16 * MiB, HFFT_HYBRID | HFFT_SCHEDULE_RADIX2, 0, 0);
}

Test(gpu, f64_hybrid_3d) { gpu_cases(8, 3, 64, 64, 64, 4 * MiB, 0, 0.8, 0); }

/* With no options at all, a usable GPU is used. */
Test(gpu, automatic_placement) {
    require_cuda();
    tu_case c = {4, 2, {512, 768}, 1, HFFT_FORWARD, 0, NULL, 1};
    hfft_info info;
    run_case(&c, &info);
    cr_assert_eq(info.device, HFFT_DEVICE_CUDA);
    cr_assert_neq(info.placement, 0);
    c.use_nd = 0;
    c.flags = HFFT_GPU_ONLY;
    run_case(&c, &info);
    cr_assert_eq(info.placement, 1);
}

/* Automatic placement sends a problem the GPU engine cannot take (a 1D line of
   prime length, which no four-step cut splits, far longer than any pass) to the
   CPU; asked for explicitly, the same is an error. */
Test(gpu, automatic_fallback_to_cpu) {
    require_cuda();
    setenv("HFFT_DEVICE_MEMORY", "1MiB", 1);
    tu_case c = {4, 1, {4194301}, 0, HFFT_FORWARD, 0, NULL, 1};
    hfft_info info;
    run_case(&c, &info);
    cr_assert_eq(info.device, HFFT_DEVICE_NONE, "device %d", info.device);
    cr_assert_eq(info.placement, 0);
    cr_assert_str_eq(info.device_name, "none", "a CPU plan names device '%s'", info.device_name);
    int64_t n[1] = {4194301};
    void *a = tu_alloc((size_t)n[0] * 8);
    hfftf_plan p = hfftf_plan_dft(1, n, a, a, HFFT_FORWARD, HFFT_GPU_ONLY, NULL);
    if (p)
        hfftf_destroy_plan(p);
    tu_free(a);
    unsetenv("HFFT_DEVICE_MEMORY");
    cr_assert_null(p, "GPU_ONLY with a line longer than the budget: a plan");
    cr_assert_eq(hfft_last_error(), HFFT_ERR_BUDGET, "%s", hfft_last_error_message());
}

/* A wisdom file that cannot be read is an error under automatic placement too,
   not a silent fall back to the CPU. */
Test(gpu, unreadable_wisdom_is_an_error) {
    require_cuda();
    setenv("HFFT_WISDOM", "/tmp", 1); /* a directory: reading it fails */
    int64_t n[2] = {256, 256};
    void *a = tu_alloc(256 * 256 * 8);
    hfftf_plan p = hfftf_plan_dft(2, n, a, a, HFFT_FORWARD, 0, NULL);
    hfft_info info;
    memset(&info, 0, sizeof info);
    if (p) {
        hfftf_plan_info(p, &info);
        hfftf_destroy_plan(p);
    }
    tu_free(a);
    setenv("HFFT_WISDOM", "none", 1);
    cr_assert_null(p, "HFFT_WISDOM=/tmp: a plan on device %d (%s)", info.device,
                   info.device_name);
    cr_assert_eq(hfft_last_error(), HFFT_ERR_IO, "%d: %s", hfft_last_error(),
                 hfft_last_error_message());
}

/* hfft_malloc memory is used as it is (host_pinned 2); small malloc'd arrays
   that share pages with each other are fine too. */
Test(gpu, host_memory_kinds) {
    require_cuda();
    int64_t n[2] = {1024, 1024};
    int64_t total = n[0] * n[1];
    hfftf_complex *a = hfftf_alloc_complex((size_t)total), *b = hfftf_alloc_complex((size_t)total);
    cr_assert(a && b);
    hfft_ref_fill(4, a, total, tu_seed());
    void *orig = tu_dup(a, (size_t)total * 8);
    tu_poison(b, (size_t)total * 8);
    hfft_options o = cuda(8 * MiB);
    hfftf_plan p = hfftf_plan_dft(2, n, a, b, HFFT_FORWARD, 0, &o);
    cr_assert(p, "%s", hfft_last_error_message());
    hfft_info info;
    hfftf_plan_info(p, &info);
    cr_assert_eq(info.host_pinned, 2);
    cr_assert_eq(hfftf_execute(p), 0, "%s", hfft_last_error_message());
    cr_assert(memcmp(a, orig, (size_t)total * 8) == 0);
    double err = hfft_ref_error(4, 2, n, orig, b, HFFT_FORWARD, 1);
    char plan[256];
    hfftf_plan_info(p, &info);
    cr_assert(err < TU_TOL_F, "hfft_malloc arrays: error %.3g, %lld NaN outputs; %s", err,
              (long long)tu_count_nan(4, b, total), tu_describe_info(plan, sizeof plan, &info));
    hfftf_destroy_plan(p);
    hfftf_free(a);
    hfftf_free(b);
    tu_free(orig);

    /* Small arrays from malloc, in and out next to each other. */
    for (int k = 0; k < 4; k++) {
        tu_case c = {k % 2 ? 8 : 4, 2, {24 + k, 40}, 0, HFFT_FORWARD, 0, &o, 0};
        run_case(&c, &info);
        cr_assert_eq(info.host_pinned, 1);
    }
}

/* Pageable arrays staged through pinned buffers (HFFT_PINNING=stage), which
   host threads fill and empty in host functions on the plan's streams. */
Test(gpu, staged_arrays) {
    require_cuda();
    static const struct {
        int prec, rank;
        int64_t n[3], budget;
        double ratio;
    } cases[] = {{4, 2, {2048, 2048, 0}, 16 * MiB, 0}, {8, 2, {1024, 1536, 0}, 16 * MiB, 0},
                 {4, 3, {64, 64, 128}, 4 * MiB, 0},    {4, 2, {2048, 1024, 0}, 8 * MiB, 0.7}};
    for (int i = 0; i < 4; i++) {
        hfft_options o = cuda(cases[i].budget);
        o.pinning = HFFT_PINNING_STAGE;
        o.ratio = cases[i].ratio;
        for (int inplace = 0; inplace < 2; inplace++) {
            tu_case c = {cases[i].prec, cases[i].rank,
                         {cases[i].n[0], cases[i].n[1], cases[i].n[2]}, inplace, HFFT_FORWARD,
                         0, &o, 0};
            hfft_info info;
            run_case(&c, &info);
            cr_assert_eq(info.host_pinned, 0, "host_pinned %d", info.host_pinned);
            cr_assert_gt(info.host_bytes, 0);
        }
    }
}

/* A forward and a backward plan on one array, alive together. */
Test(gpu, two_plans_one_array) {
    require_cuda();
    int64_t n[2] = {512, 512};
    int64_t total = n[0] * n[1];
    size_t bytes = (size_t)total * 8;
    hfft_options o = cuda(8 * MiB);
    void *x = tu_alloc(bytes), *a = tu_alloc(bytes);
    hfftf_plan f = hfftf_plan_dft(2, n, a, a, HFFT_FORWARD, 0, &o);
    hfftf_plan g = hfftf_plan_dft(2, n, a, a, HFFT_BACKWARD, HFFT_SCHEDULE_RADIX2, &o);
    cr_assert(f && g, "%s", hfft_last_error_message());
    for (int rep = 0; rep < 2; rep++) {
        hfft_ref_fill(4, x, total, tu_seed());
        memcpy(a, x, bytes);
        cr_assert_eq(hfftf_execute(f), 0, "%s", hfft_last_error_message());
        cr_assert_lt(hfft_ref_error(4, 2, n, x, a, HFFT_FORWARD, 1), TU_TOL_F);
        cr_assert_eq(hfftf_execute(g), 0, "%s", hfft_last_error_message());
        float *y = a, *xs = x;
        for (int64_t i = 0; i < 2 * total; i++)
            xs[i] *= (float)total;
        cr_assert_lt(tu_rel_rms(4, y, xs, total), TU_TOL_F);
        if (rep == 0) {
            /* Destroying one leaves the other working. */
            hfftf_destroy_plan(f);
            f = hfftf_plan_dft(2, n, a, a, HFFT_FORWARD, HFFT_SCHEDULE_PLAIN, &o);
            cr_assert(f, "%s", hfft_last_error_message());
        }
    }
    hfftf_destroy_plan(f);
    hfftf_destroy_plan(g);
    tu_free(a);
    tu_free(x);
}

/* A CUDA or cuFFT failure mid-execute: a status and a message, an intact
   out-of-place input, and a plan that works again afterwards. */
Test(gpu, faults_at_execute) {
    require_cuda();
    /* 1024 x 1024 with 8 MiB: about 15 passes per round; h2d:20 fails in round 2. */
    static const char *specs[] = {"h2d:3", "d2h:2", "fft_exec:2", "kernel:1", "h2d:20"};
    static const unsigned flags[] = {0, HFFT_SCHEDULE_PLAIN, 0, HFFT_SCHEDULE_RADIX2, 0};
    int64_t n[2] = {1024, 1024};
    int64_t total = n[0] * n[1];
    size_t bytes = (size_t)total * 8;
    hfft_options o = cuda(8 * MiB);
    for (size_t s = 0; s < sizeof specs / sizeof specs[0]; s++) {
        for (int inplace = 0; inplace < 2; inplace++) {
            void *in = tu_alloc(bytes), *out = inplace ? in : tu_alloc(bytes);
            hfftf_plan p = hfftf_plan_dft(2, n, in, out, HFFT_FORWARD, flags[s], &o);
            cr_assert(p, "%s", hfft_last_error_message());
            hfft_ref_fill(4, in, total, tu_seed());
            void *orig = tu_dup(in, bytes);
            tu_fault_arm(specs[s]);
            int st = hfftf_execute(p);
            /* Once execute has returned, the library must not write to the arrays:
               take a copy at once, give in-flight work time to land, compare. */
            void *at_return = tu_dup(out, bytes);
            unsetenv("HFFT_FAULT");
            usleep(200000);
            int later = memcmp(out, at_return, bytes) != 0;
            tu_free(at_return);
            const char *where = inplace ? "in-place" : "out-of-place";
            cr_assert_lt(st, 0, "HFFT_FAULT=%s %s: execute returned %d", specs[s], where, st);
            const char *msg = hfft_last_error_message();
            cr_assert(strstr(msg, inplace ? "in-place array is undefined" : "input is untouched"),
                      "HFFT_FAULT=%s %s: message '%s'", specs[s], where, msg);
            cr_assert(!later,
                      "HFFT_FAULT=%s %s: the %s array changed after execute had returned its "
                      "error (device work still in flight)",
                      specs[s], where, inplace ? "in-place" : "output");
            if (!inplace)
                cr_assert(memcmp(in, orig, bytes) == 0, "HFFT_FAULT=%s: the input changed",
                          specs[s]);
            memcpy(in, orig, bytes);
            st = hfftf_execute(p);
            cr_assert_eq(st, 0, "HFFT_FAULT=%s %s: the next execute: %s", specs[s], where,
                         hfft_last_error_message());
            double err = hfft_ref_error(4, 2, n, orig, out, HFFT_FORWARD, 1);
            cr_assert(err < TU_TOL_F, "HFFT_FAULT=%s %s: after the fault, error %.3g (%lld NaN)",
                      specs[s], where, err, (long long)tu_count_nan(4, out, total));
            hfftf_destroy_plan(p);
            tu_free(orig);
            if (out != in)
                tu_free(out);
            tu_free(in);
        }
    }
}

typedef struct gjob {
    int prec;
    int64_t n[2];
    int64_t budget;
    void *in, *out, *orig;
    int status;
    char message[256];
} gjob;

static void *gpu_worker(void *arg) {
    gjob *j = arg;
    int64_t total = j->n[0] * j->n[1];
    size_t bytes = (size_t)total * tu_esize(j->prec);
    hfft_ref_fill(j->prec, j->in, total, tu_seed());
    memcpy(j->orig, j->in, bytes);
    tu_poison(j->out, bytes);
    hfft_options o = cuda(j->budget);
    tplan t = tp_dft(j->prec, 2, j->n, j->in, j->out, HFFT_FORWARD, 0, &o);
    if (!t.p) {
        j->status = hfft_last_error();
        snprintf(j->message, sizeof j->message, "plan: %s", hfft_last_error_message());
        return NULL;
    }
    for (int rep = 0; rep < 3 && !j->status; rep++)
        j->status = tp_execute(t);
    if (j->status)
        snprintf(j->message, sizeof j->message, "execute: %s", hfft_last_error_message());
    tp_destroy(t);
    return NULL;
}

Test(gpu, two_threads) {
    require_cuda();
    gjob jobs[2] = {{4, {1024, 768}, 4 * MiB, NULL, NULL, NULL, 0, ""},
                    {8, {768, 512}, 8 * MiB, NULL, NULL, NULL, 0, ""}};
    pthread_t tid[2];
    for (int i = 0; i < 2; i++) {
        size_t bytes = (size_t)(jobs[i].n[0] * jobs[i].n[1]) * tu_esize(jobs[i].prec);
        jobs[i].in = tu_alloc(bytes);
        jobs[i].out = tu_alloc(bytes);
        jobs[i].orig = tu_alloc(bytes);
        cr_assert_eq(pthread_create(&tid[i], NULL, gpu_worker, &jobs[i]), 0);
    }
    for (int i = 0; i < 2; i++)
        pthread_join(tid[i], NULL);
    for (int i = 0; i < 2; i++) {
        gjob *j = &jobs[i];
        cr_assert_eq(j->status, 0, "thread %d: %s", i, j->message);
        double err = hfft_ref_error(j->prec, 2, j->n, j->orig, j->out, HFFT_FORWARD, 1);
        cr_assert(err >= 0 && err < tu_tol(j->prec), "thread %d: error %.3g", i, err);
        tu_free(j->in);
        tu_free(j->out);
        tu_free(j->orig);
    }
}

#ifdef HFFT_TEST_CUDART
/* An application that uses the GPU too: its work queued on the legacy default
   stream is still running when hfft plans and executes.  The plan's results
   must not depend on when that work finishes. */
Test(gpu, busy_default_stream) {
    require_cuda();
    size_t big = (size_t)1 << 30;
    void *d = NULL;
    cr_assert_eq(cudaMalloc(&d, big), cudaSuccess);
    int64_t n[2] = {1024, 1024};
    int64_t total = n[0] * n[1];
    size_t bytes = (size_t)total * 8;
    hfft_options o = cuda(8 * MiB);
    for (int lib_memory = 1; lib_memory >= 0; lib_memory--) {
        for (int inplace = 0; inplace < 2; inplace++) {
            void *a = lib_memory ? hfftf_malloc(bytes) : tu_alloc(bytes);
            void *b = inplace ? a : lib_memory ? hfftf_malloc(bytes) : tu_alloc(bytes);
            cr_assert(a && b);
            hfft_ref_fill(4, a, total, tu_seed());
            void *orig = tu_dup(a, bytes);
            if (!inplace)
                tu_poison(b, bytes);
            /* About 30 ms of the application's work on the default stream. */
            for (int k = 0; k < 80; k++)
                cudaMemset(d, k, big);
            hfftf_plan p = hfftf_plan_dft(2, n, a, b, HFFT_FORWARD, 0, &o);
            cr_assert(p, "%s", hfft_last_error_message());
            int st = hfftf_execute(p);
            hfft_info info;
            hfftf_plan_info(p, &info);
            double err = hfft_ref_error(4, 2, n, orig, b, HFFT_FORWARD, 1);
            int64_t nans = tu_count_nan(4, b, total);
            hfftf_destroy_plan(p);
            cudaDeviceSynchronize();
            tu_free(orig);
            if (lib_memory) {
                if (b != a)
                    hfftf_free(b);
                hfftf_free(a);
            } else {
                if (b != a)
                    tu_free(b);
                tu_free(a);
            }
            char plan[256];
            cr_assert_eq(st, 0, "%s", hfft_last_error_message());
            cr_assert(err < TU_TOL_F, "%s arrays, %s, default stream busy: error %.3g (%lld NaN); %s",
                      lib_memory ? "hfft_malloc" : "malloc'd", inplace ? "in place" : "out of place",
                      err, (long long)nans, tu_describe_info(plan, sizeof plan, &info));
        }
    }
    cudaFree(d);
}
#endif

/*
 * The schedules that need no CPU share, on the GPU: one trip (2D, 3D, both
 * precisions; S each way), partial residency (2 S - R each way), long 1D lines
 * cut four-step (streaming through the host array between rounds, one trip,
 * transposed order), and plans reused on new arrays.
 */
Test(gpu, one_trip_and_residency) {
    require_cuda();
    static const struct {
        int rank;
        int64_t n[3];
    } shapes[] = {{2, {1024, 768}}, {3, {64, 48, 80}}, {2, {8192, 96}}};
    for (int prec = 4; prec <= 8; prec += 4)
        for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++) {
            int64_t bytes = tu_total(shapes[i].rank, shapes[i].n) * (int64_t)tu_esize(prec);
            const int64_t budgets[] = {2 * bytes + 64 * MiB, bytes * 3 / 4, bytes / 2};
            for (int b = 0; b < 3; b++) {
                hfft_options o = cuda(budgets[b]);
                for (int inplace = 0; inplace < 2; inplace++) {
                    tu_case c = {prec, shapes[i].rank,
                                 {shapes[i].n[0], shapes[i].n[1], shapes[i].n[2]},
                                 inplace, b ? HFFT_BACKWARD : HFFT_FORWARD, HFFT_GPU_ONLY, &o};
                    hfft_info info;
                    run_case(&c, &info);
                    int64_t want = b == 0 ? bytes : 2 * bytes - info.resident_bytes;
                    cr_assert_eq(info.schedule == 3, b == 0, "shape %zu budget %d: schedule %d",
                                 i, b, info.schedule);
                    cr_assert(info.link_bytes[0] == want && info.link_bytes[1] == want,
                              "shape %zu budget %d: %lld in, %lld out, %lld resident of %lld", i,
                              b, (long long)info.link_bytes[0], (long long)info.link_bytes[1],
                              (long long)info.resident_bytes, (long long)bytes);
                }
            }
        }
}

/* Out of place and larger than the budget: both rounds four-step as runs of whole rows
   (schedule 4), each byte twice each way but those the budget keeps on the card
   between the rounds; odd rows, rows in pieces (2048 x 8200: two a
   row), 3D planes, both directions and precisions. */
Test(gpu, four_step_streaming) {
    require_cuda();
    static const struct {
        int prec, rank;
        int64_t n[3], budget;
    } cases[] = {{4, 2, {2048, 8200}, 24 * MiB},
                 {8, 2, {2048, 1000}, 8 * MiB},
                 {4, 3, {240, 96, 100}, 8 * MiB},
                 {8, 2, {3 * 5 * 7 * 11, 640}, 8 * MiB},
                 /* a budget whose thirds exceed the 64 MiB a pass may hold */
                 {4, 2, {8192, 8192}, 224 * MiB}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        for (int dir = 0; dir < 2; dir++) {
            hfft_options o = cuda(cases[i].budget);
            tu_case c = {cases[i].prec, cases[i].rank,
                         {cases[i].n[0], cases[i].n[1], cases[i].n[2]}, 0,
                         dir ? HFFT_BACKWARD : HFFT_FORWARD, HFFT_GPU_ONLY, &o};
            hfft_info info;
            run_case(&c, &info);
            int64_t bytes = tu_total(cases[i].rank, cases[i].n) * (int64_t)tu_esize(cases[i].prec);
            cr_assert_eq(info.schedule, 4, "case %zu: schedule %d", i, info.schedule);
            int64_t want = 2 * bytes - info.resident_bytes;
            cr_assert(info.resident_bytes >= 0 && info.resident_bytes < bytes, "case %zu: %lld resident",
                      i, (long long)info.resident_bytes);
            cr_assert(info.link_bytes[0] == want && info.link_bytes[1] == want,
                      "case %zu: %lld in, %lld out of %lld (%lld resident)", i,
                      (long long)info.link_bytes[0], (long long)info.link_bytes[1],
                      (long long)bytes, (long long)info.resident_bytes);
        }
}

/* The same with a CPU share (2D, one card): the CPU takes the four-step's own
   groups and pieces (cpu/four.c) while the GPU streams its first ones; fixed
   shares and HFFT_HYBRID's probe, both precisions, rows in pieces. */
Test(gpu, hybrid_four_step) {
    require_cuda();
    static const struct {
        int prec;
        int64_t n[2], budget;
        double rr[2];
        unsigned flags;
    } cases[] = {{4, {2048, 8200}, 24 * MiB, {0.7, 0.6}, 0},
                 {8, {2048, 1000}, 8 * MiB, {0.3, 0.9}, 0},
                 {8, {3 * 5 * 7 * 11, 640}, 8 * MiB, {0}, HFFT_HYBRID},
                 {4, {8192, 8192}, 224 * MiB, {0.85, 0.75}, 0}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        hfft_options o = cuda(cases[i].budget);
        o.round_ratio[0] = cases[i].rr[0];
        o.round_ratio[1] = cases[i].rr[1];
        tu_case c = {cases[i].prec,  2, {cases[i].n[0], cases[i].n[1]}, 0, HFFT_FORWARD,
                     cases[i].flags, &o};
        hfft_info info;
        run_case(&c, &info);
        int64_t bytes = tu_total(2, cases[i].n) * (int64_t)tu_esize(cases[i].prec);
        cr_assert_eq(info.schedule, 4, "case %zu: schedule %d", i, info.schedule);
        cr_assert_eq(info.placement, 2, "case %zu: placement %d", i, info.placement);
        cr_assert(info.link_bytes[0] > 0 && info.link_bytes[0] < 2 * bytes,
                  "case %zu: %lld in of %lld", i, (long long)info.link_bytes[0], (long long)bytes);
    }
}

Test(gpu, long_lines_four_step) {
    require_cuda();
    for (int prec = 4; prec <= 8; prec += 4) {
        int64_t n = prec == 4 ? (1 << 21) : 3 * 5 * 7 * 11 * 13 * 16;
        int64_t bytes = n * (int64_t)tu_esize(prec);
        const int64_t budgets[] = {bytes / 4, 2 * bytes + 64 * MiB};
        for (int b = 0; b < 2; b++)
            for (int inplace = 0; inplace < 2; inplace++) {
                hfft_options o = cuda(budgets[b]);
                tu_case c = {prec, 1, {n}, inplace, HFFT_FORWARD, HFFT_GPU_ONLY, &o};
                hfft_info info;
                run_case(&c, &info);
                /* longer than the budget: cut four-step; where it fits, cut (one trip
                   over the card) or whole (one pass) as the planner finds */
                if (b == 0 || info.split[0])
                    cr_assert(info.split[0] * info.split[1] == n && info.split[1] > 1,
                              "n %lld: split %lldx%lld", (long long)n, (long long)info.split[0],
                              (long long)info.split[1]);
                if (b == 0)
                    cr_assert_neq(info.schedule, 3);
            }
        /* a batch of long lines, out of place, with the input as the array between rounds */
        hfft_options o = cuda(bytes / 4);
        int64_t m[2] = {3, n / 8};
        tu_case c = {prec, 2, {m[0], m[1]}, 0, HFFT_BACKWARD, HFFT_GPU_ONLY | HFFT_DESTROY_INPUT,
                     &o};
        c.input_may_change = 1;
        run_case(&c, NULL);
    }
}

Test(gpu, new_arrays) {
    require_cuda();
    int64_t n[2] = {512, 640};
    int64_t total = n[0] * n[1];
    size_t bytes = (size_t)total * 8;
    hfft_options o = cuda(8 * MiB);
    void *a = tu_alloc(bytes), *b = tu_alloc(bytes);
    hfftf_plan p = hfftf_plan_dft(2, n, a, b, HFFT_FORWARD, HFFT_GPU_ONLY, &o);
    cr_assert(p, "%s", hfft_last_error_message());
    /* The plan keeps new arrays registered until it is destroyed: they stay allocated
       until then (hfft.h), and are freed after the plan. */
    void *x[10], *y[10];
    for (int k = 0; k < 10; k++) {
        x[k] = tu_alloc(bytes);
        y[k] = tu_alloc(bytes);
        hfft_ref_fill(4, x[k], total, tu_seed());
        void *orig = tu_dup(x[k], bytes);
        tu_poison(y[k], bytes);
        cr_assert_eq(hfftf_execute_dft(p, x[k], y[k]), 0, "new arrays %d: %s", k,
                     hfft_last_error_message());
        cr_assert(memcmp(x[k], orig, bytes) == 0);
        double e = hfft_ref_error(4, 2, n, orig, y[k], HFFT_FORWARD, 1);
        cr_assert(e < TU_TOL_F, "new arrays %d: error %g", k, e);
        tu_free(orig);
    }
    hfft_info info;
    hfftf_plan_info(p, &info);
    cr_assert_leq(info.pinned_bytes, (int64_t)(8 * bytes), "%lld bytes kept registered",
                  (long long)info.pinned_bytes);
    hfftf_destroy_plan(p);
    for (int k = 0; k < 10; k++) {
        tu_free(x[k]);
        tu_free(y[k]);
    }
    tu_free(a);
    tu_free(b);
}

/*
 * Two cards or more (skipped, and said so, with one): one trip across them
 * (2D, 3D, both precisions, in and out of place; S each way over the links),
 * every round cut between them where the array does not fit their budgets,
 * and a plan on cards named in another order.
 */
Test(gpu, several_cards) {
    require_cuda();
#ifdef HFFT_TEST_CUDART
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess || count < 2)
        cr_skip_test("one CUDA card: several cards need two or more");
#else
    cr_skip_test("built without the CUDA runtime for the tests");
#endif
    static const struct {
        int rank;
        int64_t n[3];
    } shapes[] = {{2, {2048, 1536}}, {3, {96, 80, 112}}, {2, {4100, 96}}};
    static const char *const devices[] = {"0,1", "1,0"};
    for (int prec = 4; prec <= 8; prec += 4)
        for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++)
            for (int fits = 0; fits < 2; fits++) {
                int64_t bytes = tu_total(shapes[i].rank, shapes[i].n) * (int64_t)tu_esize(prec);
                hfft_options o = cuda(fits ? bytes + 64 * MiB : bytes / 4);
                o.devices = devices[(i + (size_t)fits) % 2];
                for (int inplace = 0; inplace < 2; inplace++) {
                    tu_case c = {prec, shapes[i].rank,
                                 {shapes[i].n[0], shapes[i].n[1], shapes[i].n[2]},
                                 inplace, inplace ? HFFT_BACKWARD : HFFT_FORWARD, HFFT_GPU_ONLY,
                                 &o};
                    hfft_info info;
                    run_case(&c, &info);
                    cr_assert_eq(info.cards, 2, "shape %zu: %d cards", i, info.cards);
                    cr_assert_eq(info.schedule == 3, fits, "shape %zu fits=%d: schedule %d", i,
                                 fits, info.schedule);
                    if (fits)
                        cr_assert(info.link_bytes[0] == bytes && info.link_bytes[1] == bytes,
                                  "shape %zu: %lld in, %lld out of %lld", i,
                                  (long long)info.link_bytes[0], (long long)info.link_bytes[1],
                                  (long long)bytes);
                }
            }
}
