/*
 * test_concurrency.c: plans made and executed from several threads at once
 * (the header says constructors are thread safe and different plans may
 * execute concurrently): four threads, each with its own sizes, precision,
 * placement and backend (CPU, emulated device, hybrid), planning, executing
 * and destroying in a loop; and thread-local error reporting.  Threads only
 * record what happened; the test thread asserts after joining them, and
 * computes the FFTW references then (FFTW's planner is not thread safe).
 */
#include <criterion/criterion.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "ref.h"
#include "util.h"

TestSuite(concurrency, .init = tu_setup, .fini = tu_env_clear);

#define NTHREADS 4
#define ITERS 4

typedef struct job {
    /* what to do */
    int prec, rank, inplace, sign;
    int64_t n[3];
    unsigned flags;
    hfft_options opts;
    pthread_barrier_t *barrier;
    /* what happened */
    void *in, *out;       /* the last iteration's arrays */
    void *orig;           /* its input */
    int plan_failed, status, input_changed, device;
    char message[256];
} job;

static void *worker(void *arg) {
    job *j = arg;
    int64_t total = tu_total(j->rank, j->n);
    size_t bytes = (size_t)total * tu_esize(j->prec);
    pthread_barrier_wait(j->barrier);
    for (int it = 0; it < ITERS; it++) {
        void *in = NULL, *out = NULL, *orig = NULL;
        if (posix_memalign(&in, 64, bytes) || (!j->inplace && posix_memalign(&out, 64, bytes)) ||
            posix_memalign(&orig, 64, bytes)) {
            j->plan_failed = 1;
            snprintf(j->message, sizeof j->message, "test allocation failed");
            return NULL;
        }
        if (j->inplace)
            out = in;
        hfft_ref_fill(j->prec, in, total, tu_seed());
        memcpy(orig, in, bytes);
        if (!j->inplace)
            tu_poison(out, bytes);
        tplan t = tp_dft(j->prec, j->rank, j->n, in, out, j->sign, j->flags, &j->opts);
        if (!t.p) {
            j->plan_failed = 1;
            snprintf(j->message, sizeof j->message, "%s", hfft_last_error_message());
            return NULL;
        }
        hfft_info info;
        tp_info(t, &info);
        j->device = info.device;
        j->status = tp_execute(t);
        if (j->status)
            snprintf(j->message, sizeof j->message, "%s", hfft_last_error_message());
        if (!j->inplace && memcmp(in, orig, bytes) != 0)
            j->input_changed = 1;
        tp_destroy(t);
        free(j->orig);
        if (j->out != j->in)
            free(j->out);
        free(j->in);
        j->in = in;
        j->out = out;
        j->orig = orig;
        if (j->status)
            return NULL;
    }
    return NULL;
}

static void run_jobs(job *jobs, int n) {
    pthread_barrier_t barrier;
    pthread_barrier_init(&barrier, NULL, (unsigned)n);
    pthread_t tid[NTHREADS];
    for (int i = 0; i < n; i++) {
        jobs[i].barrier = &barrier;
        cr_assert_eq(pthread_create(&tid[i], NULL, worker, &jobs[i]), 0);
    }
    for (int i = 0; i < n; i++)
        pthread_join(tid[i], NULL);
    pthread_barrier_destroy(&barrier);
    for (int i = 0; i < n; i++) {
        job *j = &jobs[i];
        char shape[64];
        tu_shape(shape, sizeof shape, j->prec, j->rank, j->n);
        cr_assert(!j->plan_failed, "thread %d (%s): no plan: %s", i, shape, j->message);
        cr_assert_eq(j->status, 0, "thread %d (%s): execute returned %d: %s", i, shape, j->status,
                     j->message);
        cr_assert(!j->input_changed, "thread %d (%s): out-of-place input changed", i, shape);
        int want = j->opts.device ? j->opts.device : HFFT_DEVICE_NONE;
        cr_assert_eq(j->device, want, "thread %d (%s): device %d", i, shape, j->device);
        double err = hfft_ref_error(j->prec, j->rank, j->n, j->orig, j->out, j->sign, 1);
        cr_assert(err >= 0 && err < tu_tol(j->prec), "thread %d (%s): error %.3g", i, shape, err);
        free(j->orig);
        if (j->out != j->in)
            free(j->out);
        free(j->in);
    }
}

static job make_job(int prec, int rank, int64_t a, int64_t b, int64_t c, int inplace, int sign,
                    unsigned flags, int device, int64_t budget, double ratio) {
    job j;
    memset(&j, 0, sizeof j);
    j.prec = prec;
    j.rank = rank;
    j.n[0] = a;
    j.n[1] = b;
    j.n[2] = c;
    j.inplace = inplace;
    j.sign = sign;
    j.flags = flags;
    hfft_options_init(&j.opts);
    j.opts.device = device;
    j.opts.device_memory = budget;
    j.opts.ratio = ratio;
    j.opts.threads = 2;
    return j;
}

Test(concurrency, cpu_plans) {
    job jobs[NTHREADS] = {
        make_job(4, 2, 64, 48, 0, 1, HFFT_FORWARD, 0, HFFT_DEVICE_NONE, 0, 0),
        make_job(8, 3, 5, 7, 11, 0, HFFT_BACKWARD, 0, HFFT_DEVICE_NONE, 0, 0),
        make_job(4, 1, 1000, 0, 0, 0, HFFT_BACKWARD, 0, HFFT_DEVICE_NONE, 0, 0),
        make_job(8, 2, 97, 101, 0, 1, HFFT_FORWARD, HFFT_MEASURE, HFFT_DEVICE_NONE, 0, 0),
    };
    run_jobs(jobs, NTHREADS);
}

Test(concurrency, emulated_plans) {
    job jobs[NTHREADS] = {
        make_job(4, 2, 64, 48, 0, 0, HFFT_FORWARD, HFFT_SCHEDULE_RADIX2, HFFT_DEVICE_EMULATED, 4096, 0),
        make_job(8, 2, 729, 8, 0, 1, HFFT_BACKWARD, 0, HFFT_DEVICE_EMULATED, 16384, 0),
        make_job(4, 3, 12, 10, 14, 1, HFFT_FORWARD, 0, HFFT_DEVICE_EMULATED, 4096, 0),
        make_job(8, 2, 64, 48, 0, 0, HFFT_BACKWARD, HFFT_SCHEDULE_PLAIN, HFFT_DEVICE_EMULATED, 8192, 0.6),
    };
    run_jobs(jobs, NTHREADS);
}

Test(concurrency, mixed_plans) {
    job jobs[NTHREADS] = {
        make_job(4, 2, 4096, 8, 0, 1, HFFT_FORWARD, 0, HFFT_DEVICE_EMULATED, 8192, 0),
        make_job(4, 2, 300, 200, 0, 0, HFFT_FORWARD, 0, HFFT_DEVICE_NONE, 0, 0),
        make_job(8, 3, 16, 16, 16, 0, HFFT_BACKWARD, HFFT_HYBRID, HFFT_DEVICE_EMULATED, 16384, 0),
        make_job(8, 2, 1250, 4, 0, 0, HFFT_FORWARD, HFFT_CPU_ONLY, HFFT_DEVICE_NONE, 0, 0),
    };
    run_jobs(jobs, NTHREADS);
}

/* ---- thread-local errors ---- */

typedef struct err_job {
    int which;
    pthread_barrier_t *barrier;
    int status_seen;
    char message_seen[256];
    int fresh_status;
    char fresh_message[8];
} err_job;

static void *err_worker(void *arg) {
    err_job *e = arg;
    /* A new thread starts with no error. */
    e->fresh_status = hfft_last_error();
    snprintf(e->fresh_message, sizeof e->fresh_message, "%s", hfft_last_error_message());
    float buf[64];
    int64_t n1[1] = {4}, nbad[1] = {0};
    hfft_options o;
    hfft_options_init(&o);
    int64_t v;
    switch (e->which) {
    case 0: hfftf_plan_dft(1, nbad, (hfftf_complex *)buf, (hfftf_complex *)buf, -1, 0, NULL); break;
    case 1: hfft_parse_bytes("12XB", &v); break;
    case 2:
        o.device = HFFT_DEVICE_NONE;
        hfftf_plan_dft(1, n1, (hfftf_complex *)buf, (hfftf_complex *)buf, -1, HFFT_GPU_ONLY, &o);
        break;
    case 3:
        o.device = HFFT_DEVICE_EMULATED;
        o.device_memory = 16; /* below the array: no one trip, and no pass fits */
        hfftf_plan_dft(1, n1, (hfftf_complex *)buf, (hfftf_complex *)buf, -1, HFFT_GPU_ONLY, &o);
        break;
    }
    /* Everyone has failed before anyone looks. */
    pthread_barrier_wait(e->barrier);
    e->status_seen = hfft_last_error();
    snprintf(e->message_seen, sizeof e->message_seen, "%s", hfft_last_error_message());
    return NULL;
}

Test(concurrency, thread_local_errors) {
    static const int expect[NTHREADS] = {HFFT_ERR_INVALID_ARGUMENT, HFFT_ERR_SETTING,
                                         HFFT_ERR_NO_DEVICE, HFFT_ERR_BUDGET};
    static const char *needle[NTHREADS] = {"n[0]", "12XB", "GPU_ONLY", "budget"};
    /* The test thread's own error must not leak into the workers. */
    hfft_execute(NULL);
    pthread_barrier_t barrier;
    pthread_barrier_init(&barrier, NULL, NTHREADS);
    err_job e[NTHREADS];
    pthread_t tid[NTHREADS];
    memset(e, 0, sizeof e);
    for (int i = 0; i < NTHREADS; i++) {
        e[i].which = i;
        e[i].barrier = &barrier;
        cr_assert_eq(pthread_create(&tid[i], NULL, err_worker, &e[i]), 0);
    }
    for (int i = 0; i < NTHREADS; i++)
        pthread_join(tid[i], NULL);
    pthread_barrier_destroy(&barrier);
    for (int i = 0; i < NTHREADS; i++) {
        cr_assert_eq(e[i].fresh_status, 0, "thread %d started with error %d", i, e[i].fresh_status);
        cr_assert_str_eq(e[i].fresh_message, "", "thread %d started with a message", i);
        cr_assert_eq(e[i].status_seen, expect[i], "thread %d saw error %d (%s), expected %d", i,
                     e[i].status_seen, e[i].message_seen, expect[i]);
        cr_assert(strstr(e[i].message_seen, needle[i]) != NULL,
                  "thread %d saw message '%s', expected one about '%s'", i, e[i].message_seen,
                  needle[i]);
    }
    cr_assert_eq(hfft_last_error(), HFFT_ERR_INVALID_ARGUMENT);
    cr_assert(strstr(hfft_last_error_message(), "NULL plan") != NULL, "%s",
              hfft_last_error_message());
}
