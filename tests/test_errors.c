/*
 * test_errors.c: every kind of bad input, in both precisions: sizes, byte
 * counts that overflow, NULL and overlapping arrays, signs, flags, malformed
 * settings from the environment and from hfft_options, a GPU asked for where
 * there is none; execute/execute_dft misuse; hfft_strerror, hfft_parse_bytes
 * and hfft_version.  Each failure must be a NULL plan or a negative status,
 * the right hfft_last_error(), a message, and the caller's arrays unchanged.
 */
#include <criterion/criterion.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ref.h"
#include "util.h"

TestSuite(errors, .init = tu_setup, .fini = tu_env_clear);

/* Arrays with copies, to show a failed call left them alone. */
typedef struct bufs {
    int prec;
    int64_t total;
    size_t bytes;
    char *in, *out, *in0, *out0;
} bufs;

static bufs bufs_make(int prec, int64_t total, int inplace) {
    bufs b = {prec, total, (size_t)total * tu_esize(prec), NULL, NULL, NULL, NULL};
    b.in = tu_alloc(b.bytes);
    hfft_ref_fill(prec, b.in, total, tu_seed());
    b.out = inplace ? b.in : tu_alloc(b.bytes);
    if (!inplace)
        hfft_ref_fill(prec, b.out, total, tu_seed());
    b.in0 = tu_dup(b.in, b.bytes);
    b.out0 = tu_dup(b.out, b.bytes);
    return b;
}

static void bufs_check(const bufs *b, const char *what) {
    cr_assert(memcmp(b->in, b->in0, b->bytes) == 0, "%s: the input array changed", what);
    cr_assert(memcmp(b->out, b->out0, b->bytes) == 0, "%s: the output array changed", what);
}

static void bufs_free(bufs *b) {
    if (b->out != b->in)
        tu_free(b->out);
    tu_free(b->in);
    tu_free(b->in0);
    tu_free(b->out0);
}

/* Leaves a last error other than `status`, so that the next check sees a fresh one. */
static void prime_error(int status) {
    int64_t v;
    if (status == HFFT_ERR_SETTING)
        hfft_execute(NULL);
    else
        hfft_parse_bytes("not a size", &v);
    cr_assert_neq(hfft_last_error(), status);
}

static void expect_status(int st, int status, const char *what) {
    cr_assert_lt(st, 0, "%s: returned %d", what, st);
    cr_assert_eq(st, status, "%s: returned %d (%s), expected %d (%s)", what, st,
                 hfft_strerror(st), status, hfft_strerror(status));
    cr_assert_eq(hfft_last_error(), status, "%s: last error %d, expected %d", what,
                 hfft_last_error(), status);
    const char *m = hfft_last_error_message();
    cr_assert(m && *m, "%s: empty message", what);
}

static void expect_null(tplan t, int status, const char *what) {
    if (t.p)
        tp_destroy(t);
    cr_assert_null(t.p, "%s: got a plan", what);
    cr_assert_eq(hfft_last_error(), status, "%s: last error %d (%s: %s), expected %d (%s)", what,
                 hfft_last_error(), hfft_strerror(hfft_last_error()), hfft_last_error_message(),
                 status, hfft_strerror(status));
    const char *m = hfft_last_error_message();
    cr_assert(m && *m, "%s: empty message", what);
}

/* Plans with the given arguments on arrays of `total` elements; expects failure. */
static void bad_plan(int prec, int rank, const int64_t *n, int64_t total, int inplace, int sign,
                     unsigned flags, const hfft_options *o, int status, const char *what) {
    bufs b = bufs_make(prec, total, inplace);
    prime_error(status);
    tplan t = tp_dft(prec, rank, n, b.in, b.out, sign, flags, o);
    char full[640];
    snprintf(full, sizeof full, "f%d %s", prec * 8, what);
    expect_null(t, status, full);
    bufs_check(&b, full);
    bufs_free(&b);
}

Test(errors, sizes) {
    for (int prec = 4; prec <= 8; prec += 4) {
        static const struct {
            int rank;
            int64_t n[3];
        } bad[] = {
            {1, {0}},     {1, {-1}},          {1, {INT64_MIN}}, {2, {0, 5}},
            {2, {5, -2}}, {3, {3, 4, 0}},     {3, {-3, 4, 5}},  {2, {1, 0}},
        };
        for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
            char what[64];
            snprintf(what, sizeof what, "sizes case %zu", i);
            bad_plan(prec, bad[i].rank, bad[i].n, 16, 0, HFFT_FORWARD, HFFT_CPU_ONLY, NULL,
                     HFFT_ERR_INVALID_ARGUMENT, what);
            bad_plan(prec, bad[i].rank, bad[i].n, 16, 1, HFFT_BACKWARD, 0, NULL,
                     HFFT_ERR_INVALID_ARGUMENT, what);
        }
        /* Ranks outside 1..HFFT_MAX_RANK and NULL sizes. */
        int64_t n4[HFFT_MAX_RANK + 1];
        for (int k = 0; k <= HFFT_MAX_RANK; k++)
            n4[k] = 1;
        bad_plan(prec, 0, n4, 16, 0, HFFT_FORWARD, 0, NULL, HFFT_ERR_INVALID_ARGUMENT, "rank 0");
        bad_plan(prec, HFFT_MAX_RANK + 1, n4, 1, 0, HFFT_FORWARD, 0, NULL,
                 HFFT_ERR_INVALID_ARGUMENT, "rank above HFFT_MAX_RANK");
        bad_plan(prec, -1, n4, 16, 0, HFFT_FORWARD, 0, NULL, HFFT_ERR_INVALID_ARGUMENT,
                 "rank -1");
        bad_plan(prec, 2, NULL, 16, 1, HFFT_FORWARD, 0, NULL, HFFT_ERR_INVALID_ARGUMENT,
                 "NULL sizes");
    }
    /* The int entry points. */
    float buf[64];
    double dbuf[64];
    hfftf_complex *f = (hfftf_complex *)buf;
    hfft_complex *d = (hfft_complex *)dbuf;
    prime_error(HFFT_ERR_INVALID_ARGUMENT);
    cr_assert_null(hfftf_plan_1d(0, f, f, HFFT_FORWARD, 0));
    cr_assert_eq(hfft_last_error(), HFFT_ERR_INVALID_ARGUMENT);
    prime_error(HFFT_ERR_INVALID_ARGUMENT);
    cr_assert_null(hfft_plan_1d(-7, d, d, HFFT_FORWARD, 0));
    cr_assert_eq(hfft_last_error(), HFFT_ERR_INVALID_ARGUMENT);
    prime_error(HFFT_ERR_INVALID_ARGUMENT);
    cr_assert_null(hfftf_plan_2d(4, 0, f, f, HFFT_FORWARD, 0));
    cr_assert_eq(hfft_last_error(), HFFT_ERR_INVALID_ARGUMENT);
    prime_error(HFFT_ERR_INVALID_ARGUMENT);
    cr_assert_null(hfft_plan_3d(2, 2, -2, d, d, HFFT_BACKWARD, 0));
    cr_assert_eq(hfft_last_error(), HFFT_ERR_INVALID_ARGUMENT);
    cr_assert(*hfft_last_error_message());
}

Test(errors, byte_count_overflow) {
    for (int prec = 4; prec <= 8; prec += 4) {
        int64_t a[2] = {1LL << 40, 1LL << 40};          /* 2^80 elements */
        int64_t b[2] = {1LL << 31, 1LL << 31};          /* 2^62 elements, 2^65+ bytes */
        int64_t c[3] = {1LL << 30, 1LL << 30, 1LL << 4}; /* 2^64 elements */
        int64_t d[1] = {INT64_MAX};
        int64_t e[3] = {3037000500LL, 3037000500LL, 2}; /* just past 2^63 elements */
        bad_plan(prec, 2, a, 8, 0, HFFT_FORWARD, 0, NULL, HFFT_ERR_INVALID_ARGUMENT, "2^40 x 2^40");
        bad_plan(prec, 2, b, 8, 1, HFFT_FORWARD, 0, NULL, HFFT_ERR_INVALID_ARGUMENT, "2^31 x 2^31");
        bad_plan(prec, 3, c, 8, 0, HFFT_FORWARD, HFFT_CPU_ONLY, NULL, HFFT_ERR_INVALID_ARGUMENT,
                 "2^30 x 2^30 x 16");
        bad_plan(prec, 1, d, 8, 0, HFFT_FORWARD, 0, NULL, HFFT_ERR_INVALID_ARGUMENT, "INT64_MAX");
        bad_plan(prec, 3, e, 8, 1, HFFT_FORWARD, 0, NULL, HFFT_ERR_INVALID_ARGUMENT,
                 "3037000500^2 x 2");
        cr_assert(strstr(hfft_last_error_message(), "overflow") != NULL, "message: %s",
                  hfft_last_error_message());
    }
    /* Real transforms in place pad the last dimension to 2 (n/2 + 1) reals, which
       overflows before the element count does (UBSan catches the arithmetic). */
    float rbuf[16];
    int64_t big[2][2] = {{INT64_MAX}, {2, INT64_MAX - 1}};
    for (int i = 0; i < 2; i++) {
        prime_error(HFFT_ERR_INVALID_ARGUMENT);
        cr_assert_null(hfftf_plan_dft_r2c(i + 1, big[i], rbuf, (hfftf_complex *)rbuf, 0, NULL));
        cr_assert_eq(hfft_last_error(), HFFT_ERR_INVALID_ARGUMENT);
        prime_error(HFFT_ERR_INVALID_ARGUMENT);
        cr_assert_null(hfftf_plan_dft_c2r(i + 1, big[i], (hfftf_complex *)rbuf, rbuf, 0, NULL));
        cr_assert_eq(hfft_last_error(), HFFT_ERR_INVALID_ARGUMENT);
    }
    /* Through the int entry points: INT_MAX^3 elements. */
    float buf[16];
    cr_assert_null(
        hfftf_plan_3d(INT_MAX, INT_MAX, INT_MAX, (hfftf_complex *)buf, (hfftf_complex *)buf,
                      HFFT_FORWARD, 0));
    cr_assert_eq(hfft_last_error(), HFFT_ERR_INVALID_ARGUMENT);
}

Test(errors, null_and_overlapping_arrays) {
    int64_t n[2] = {4, 8};
    for (int prec = 4; prec <= 8; prec += 4) {
        size_t es = tu_esize(prec);
        char *buf = tu_alloc(80 * es);
        hfft_ref_fill(prec, buf, 80, tu_seed());
        char *copy = tu_dup(buf, 80 * es);
        struct {
            void *in, *out;
            const char *what;
        } bad[] = {
            {NULL, buf, "NULL input"},
            {buf, NULL, "NULL output"},
            {NULL, NULL, "NULL input and output"},
            {buf, buf + es, "out = in + 1"},
            {buf + es, buf, "out = in - 1"},
            {buf, buf + 31 * es, "out = in + 31 (last element shared)"},
            {buf + 31 * es, buf, "in = out + 31"},
            {buf, buf + 1, "out = in + 1 byte"},
        };
        for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
            for (int dev = 0; dev < 2; dev++) {
                hfft_options o;
                hfft_options_init(&o);
                o.device = dev ? HFFT_DEVICE_EMULATED : HFFT_DEVICE_NONE;
                prime_error(HFFT_ERR_INVALID_ARGUMENT);
                tplan t = tp_dft(prec, 2, n, bad[i].in, bad[i].out, HFFT_FORWARD, 0, &o);
                char what[120];
                snprintf(what, sizeof what, "f%d %s (%s)", prec * 8, bad[i].what,
                         dev ? "emulated" : "cpu");
                expect_null(t, HFFT_ERR_INVALID_ARGUMENT, what);
                cr_assert(memcmp(buf, copy, 80 * es) == 0, "%s: the array changed", what);
            }
        }
        /* Adjacent, not overlapping: fine. */
        tplan t = tp_dft(prec, 2, n, buf, buf + 32 * es, HFFT_FORWARD, HFFT_CPU_ONLY, NULL);
        cr_assert(t.p, "adjacent arrays: %s", hfft_last_error_message());
        cr_assert_eq(tp_execute(t), 0);
        double err = hfft_ref_error(prec, 2, n, copy, buf + 32 * es, HFFT_FORWARD, 1);
        cr_assert(err >= 0 && err < tu_tol(prec), "adjacent arrays: error %.3g", err);
        tp_destroy(t);
        tu_free(copy);
        tu_free(buf);
    }
}

Test(errors, signs) {
    int64_t n[1] = {16};
    int signs[] = {0, 2, -2, INT_MIN, INT_MAX};
    for (int prec = 4; prec <= 8; prec += 4)
        for (size_t i = 0; i < sizeof signs / sizeof signs[0]; i++) {
            char what[64];
            snprintf(what, sizeof what, "sign %d", signs[i]);
            bad_plan(prec, 1, n, 16, (int)(i % 2), signs[i], 0, NULL, HFFT_ERR_INVALID_ARGUMENT,
                     what);
        }
}

Test(errors, flags) {
    int64_t n[2] = {4, 6};
    static const struct {
        unsigned flags;
        const char *what;
    } bad[] = {
        {1u << 30, "unknown bit 30"},
        {1u << 2, "unknown bit 2"},
        {1u << 31, "unknown bit 31"},
        {HFFT_CPU_ONLY | (1u << 20), "CPU_ONLY and unknown bit 20"},
        {HFFT_CPU_ONLY | HFFT_GPU_ONLY, "CPU_ONLY | GPU_ONLY"},
        {HFFT_CPU_ONLY | HFFT_HYBRID, "CPU_ONLY | HYBRID"},
        {HFFT_GPU_ONLY | HFFT_HYBRID, "GPU_ONLY | HYBRID"},
        {HFFT_CPU_ONLY | HFFT_GPU_ONLY | HFFT_HYBRID, "all three placements"},
        {HFFT_SCHEDULE_PLAIN | HFFT_SCHEDULE_RADIX2, "PLAIN | RADIX2"},
        {HFFT_ESTIMATE | HFFT_MEASURE, "ESTIMATE | MEASURE"},
        {HFFT_ESTIMATE | HFFT_MEASURE | HFFT_CPU_ONLY, "ESTIMATE | MEASURE | CPU_ONLY"},
    };
    for (int prec = 4; prec <= 8; prec += 4)
        for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
            for (int inplace = 0; inplace < 2; inplace++)
                bad_plan(prec, 2, n, 24, inplace, HFFT_FORWARD, bad[i].flags, NULL,
                         HFFT_ERR_INVALID_ARGUMENT, bad[i].what);
}

Test(errors, gpu_where_there_is_none) {
    int64_t n[2] = {8, 8};
    hfft_options o;
    for (int prec = 4; prec <= 8; prec += 4) {
        setenv("HFFT_DEVICE", "none", 1);
        bad_plan(prec, 2, n, 64, 0, HFFT_FORWARD, HFFT_GPU_ONLY, NULL, HFFT_ERR_NO_DEVICE,
                 "GPU_ONLY with HFFT_DEVICE=none");
        bad_plan(prec, 2, n, 64, 1, HFFT_FORWARD, HFFT_HYBRID, NULL, HFFT_ERR_NO_DEVICE,
                 "HYBRID with HFFT_DEVICE=none");
        setenv("HFFT_DEVICE", "cpu", 1);
        bad_plan(prec, 2, n, 64, 1, HFFT_BACKWARD, HFFT_GPU_ONLY, NULL, HFFT_ERR_NO_DEVICE,
                 "GPU_ONLY with HFFT_DEVICE=cpu");
        unsetenv("HFFT_DEVICE");
        hfft_options_init(&o);
        o.device = HFFT_DEVICE_NONE;
        bad_plan(prec, 2, n, 64, 0, HFFT_FORWARD, HFFT_GPU_ONLY, &o, HFFT_ERR_NO_DEVICE,
                 "GPU_ONLY with options.device = NONE");
        /* Without a usable CUDA GPU, asking for CUDA is the same error. */
        o.device = HFFT_DEVICE_CUDA;
        bufs b = bufs_make(prec, 64, 0);
        tplan t = tp_dft(prec, 2, n, b.in, b.out, HFFT_FORWARD, 0, &o);
        if (t.p) {
            tp_destroy(t); /* a GPU is here: nothing to check */
        } else {
            expect_null(t, HFFT_ERR_NO_DEVICE, "options.device = CUDA without a GPU");
            bufs_check(&b, "options.device = CUDA without a GPU");
        }
        bufs_free(&b);
    }
    /* The environment's none applies to automatic placement: a CPU plan. */
    setenv("HFFT_DEVICE", "none", 1);
    tu_case c = {4, 2, {8, 8}, 0, HFFT_FORWARD, 0, NULL, 1};
    hfft_info info;
    run_case(&c, &info);
    cr_assert_eq(info.device, HFFT_DEVICE_NONE);
    unsetenv("HFFT_DEVICE");
}

static void bad_env(const char *var, const char *value, int status) {
    int64_t n[2] = {6, 10};
    setenv(var, value, 1);
    char what[160];
    for (int prec = 4; prec <= 8; prec += 4) {
        snprintf(what, sizeof what, "%s='%s' (CPU_ONLY)", var, value);
        bad_plan(prec, 2, n, 60, prec == 4, HFFT_FORWARD, HFFT_CPU_ONLY, NULL, status, what);
        snprintf(what, sizeof what, "%s='%s' (automatic)", var, value);
        bad_plan(prec, 2, n, 60, prec == 8, HFFT_BACKWARD, 0, NULL, status, what);
        /* (options.device set would win over HFFT_DEVICE: not a failure then) */
        if (strcmp(var, "HFFT_DEVICE") != 0) {
            hfft_options o;
            hfft_options_init(&o);
            o.device = HFFT_DEVICE_EMULATED;
            snprintf(what, sizeof what, "%s='%s' (emulated)", var, value);
            bad_plan(prec, 2, n, 60, 0, HFFT_FORWARD, 0, &o, status, what);
        }
    }
    unsetenv(var);
}

Test(errors, malformed_environment) {
    const char *memory[] = {"garbage", "12XB", "-5", "0", " ", "0.4", "1e400", "nan", "MiB",
                            "5 parsecs", "99999999999TB", "2GiBs", "4096 4096"};
    for (size_t i = 0; i < sizeof memory / sizeof memory[0]; i++)
        bad_env("HFFT_DEVICE_MEMORY", memory[i], HFFT_ERR_SETTING);
    const char *threads[] = {"0", "-3", "abc", "100000", "4x", "1.5", "99999999999999999999"};
    for (size_t i = 0; i < sizeof threads / sizeof threads[0]; i++)
        bad_env("HFFT_THREADS", threads[i], HFFT_ERR_SETTING);
    const char *devices[] = {"banana", "cudax", "emulated2", " none"};
    for (size_t i = 0; i < sizeof devices / sizeof devices[0]; i++)
        bad_env("HFFT_DEVICE", devices[i], HFFT_ERR_SETTING);
    cr_assert(strstr(hfft_last_error_message(), "HFFT_DEVICE") != NULL, "message: %s",
              hfft_last_error_message());
    /* The message names the variable. */
    setenv("HFFT_DEVICE_MEMORY", "12XB", 1);
    int64_t n[1] = {8};
    bad_plan(4, 1, n, 8, 1, HFFT_FORWARD, 0, NULL, HFFT_ERR_SETTING, "HFFT_DEVICE_MEMORY=12XB");
    cr_assert(strstr(hfft_last_error_message(), "HFFT_DEVICE_MEMORY") != NULL, "message: %s",
              hfft_last_error_message());
    unsetenv("HFFT_DEVICE_MEMORY");
    /* Well-formed values of each variable plan fine. */
    setenv("HFFT_THREADS", " 2 ", 1);
    setenv("HFFT_DEVICE_MEMORY", " 64 KiB ", 1);
    setenv("HFFT_DEVICE", "EMULATED", 1);
    tu_case c = {8, 2, {6, 10}, 1, HFFT_FORWARD, 0, NULL, 0};
    hfft_info info;
    run_case(&c, &info);
    cr_assert_eq(info.device, HFFT_DEVICE_EMULATED);
    cr_assert_eq(info.device_budget, 65536);
    tu_env_clear();
}

Test(errors, malformed_options) {
    int64_t n[2] = {6, 10};
    static char long_path[2000];
    memset(long_path, 'w', sizeof long_path - 1);
    for (int prec = 4; prec <= 8; prec += 4) {
        for (int k = 0; k < 17; k++) {
            hfft_options o;
            hfft_options_init(&o);
            const char *what = "";
            switch (k) {
            case 0: o.device_memory = -1; what = "device_memory -1"; break;
            case 1: o.device_memory = INT64_MIN; what = "device_memory INT64_MIN"; break;
            case 2: o.threads = 5000; what = "threads 5000"; break;
            case 3: o.threads = -1; what = "threads -1"; break;
            case 4: o.device = 42; what = "device 42"; break;
            case 5: o.device = -1; what = "device -1"; break;
            case 6: o.ratio = 1.5; what = "ratio 1.5"; break;
            case 7: o.ratio = -0.5; what = "ratio -0.5"; break;
            case 8: o.ratio = NAN; what = "ratio NaN"; break;
            case 9: o.pass_bytes = -4096; what = "pass_bytes -4096"; break;
            case 10: o.wisdom = long_path; what = "a 1999-byte wisdom path"; break;
            case 11: o.round_ratio[0] = 1.5; what = "round_ratio[0] 1.5"; break;
            case 12: o.round_ratio[2] = -0.1; what = "round_ratio[2] -0.1"; break;
            case 13: o.slots = 1; what = "slots 1"; break;
            case 14: o.slots = 100; what = "slots 100"; break;
            case 15: o.slots = 9; what = "slots 9"; break;
            case 16: o.slots = -1; what = "slots -1"; break;
            }
            bad_plan(prec, 2, n, 60, k % 2, HFFT_FORWARD, 0, &o, HFFT_ERR_SETTING, what);
            bad_plan(prec, 2, n, 60, 0, HFFT_FORWARD, HFFT_CPU_ONLY, &o, HFFT_ERR_SETTING, what);
        }
    }
    /* hfft_options_init gives "unset": a plan like NULL options. */
    hfft_options o;
    memset(&o, 0x5a, sizeof o);
    hfft_options_init(&o);
    cr_assert_eq(o.device_memory, 0);
    cr_assert_eq(o.threads, 0);
    cr_assert_eq(o.device, HFFT_DEVICE_AUTO);
    cr_assert_null(o.wisdom);
    cr_assert_eq(o.ratio, 0.0);
    cr_assert_eq(o.pass_bytes, 0);
    cr_assert_eq(o.slots, 0);
    for (int h = 0; h < 3; h++)
        cr_assert_eq(o.round_ratio[h], 0.0);
    hfft_options_init(NULL);
}

Test(errors, null_plan_calls) {
    prime_error(HFFT_ERR_INVALID_ARGUMENT);
    expect_status(hfft_execute(NULL), HFFT_ERR_INVALID_ARGUMENT, "hfft_execute(NULL)");
    prime_error(HFFT_ERR_INVALID_ARGUMENT);
    expect_status(hfftf_execute(NULL), HFFT_ERR_INVALID_ARGUMENT, "hfftf_execute(NULL)");
    double d[4];
    float f[4];
    prime_error(HFFT_ERR_INVALID_ARGUMENT);
    expect_status(hfft_execute_dft(NULL, (hfft_complex *)d, (hfft_complex *)d),
                  HFFT_ERR_INVALID_ARGUMENT, "hfft_execute_dft(NULL, ...)");
    prime_error(HFFT_ERR_INVALID_ARGUMENT);
    expect_status(hfftf_execute_dft(NULL, (hfftf_complex *)f, (hfftf_complex *)f),
                  HFFT_ERR_INVALID_ARGUMENT, "hfftf_execute_dft(NULL, ...)");
    hfft_info info;
    prime_error(HFFT_ERR_INVALID_ARGUMENT);
    expect_status(hfft_plan_info(NULL, &info), HFFT_ERR_INVALID_ARGUMENT, "hfft_plan_info(NULL)");
    prime_error(HFFT_ERR_INVALID_ARGUMENT);
    expect_status(hfftf_plan_info(NULL, &info), HFFT_ERR_INVALID_ARGUMENT,
                  "hfftf_plan_info(NULL)");
    hfft_destroy_plan(NULL);
    hfftf_destroy_plan(NULL);
    /* plan_info with a NULL destination. */
    hfftf_plan p = hfftf_plan_1d(4, (hfftf_complex *)f, (hfftf_complex *)f, HFFT_FORWARD,
                                 HFFT_CPU_ONLY);
    cr_assert(p);
    prime_error(HFFT_ERR_INVALID_ARGUMENT);
    expect_status(hfftf_plan_info(p, NULL), HFFT_ERR_INVALID_ARGUMENT, "plan_info(p, NULL)");
    hfftf_destroy_plan(p);
    /* Allocations that cannot be. */
    prime_error(HFFT_ERR_INVALID_ARGUMENT);
    cr_assert_null(hfft_alloc_complex(SIZE_MAX / 8));
    cr_assert_eq(hfft_last_error(), HFFT_ERR_INVALID_ARGUMENT);
    prime_error(HFFT_ERR_INVALID_ARGUMENT);
    cr_assert_null(hfftf_alloc_complex(SIZE_MAX / 4));
    cr_assert_eq(hfft_last_error(), HFFT_ERR_INVALID_ARGUMENT);
    prime_error(HFFT_ERR_INVALID_ARGUMENT);
    cr_assert_null(hfft_malloc(SIZE_MAX - 10));
    cr_assert(*hfft_last_error_message());
}

Test(errors, strerror_and_version) {
    static const int codes[] = {
        HFFT_SUCCESS,        HFFT_ERR_INVALID_ARGUMENT, HFFT_ERR_HOST_MEMORY,
        HFFT_ERR_DEVICE_MEMORY, HFFT_ERR_NO_DEVICE,     HFFT_ERR_CUDA,
        HFFT_ERR_CUFFT,      HFFT_ERR_FFTW,             HFFT_ERR_SETTING,
        HFFT_ERR_BUDGET,     HFFT_ERR_UNSUPPORTED,      HFFT_ERR_THREAD,
        HFFT_ERR_WISDOM,     HFFT_ERR_IO,               HFFT_ERR_INTERNAL,
    };
    size_t nc = sizeof codes / sizeof codes[0];
    for (size_t i = 0; i < nc; i++) {
        cr_assert_eq(codes[i], -(int)i, "status table out of order at %zu", i);
        const char *s = hfft_strerror(codes[i]);
        cr_assert(s && *s, "hfft_strerror(%d) empty", codes[i]);
        for (size_t j = 0; j < i; j++)
            cr_assert_str_neq(s, hfft_strerror(codes[j]), "codes %d and %d share '%s'", codes[i],
                              codes[j], s);
    }
    const int unknown[] = {1, -15, -1000, INT_MIN, INT_MAX};
    for (size_t i = 0; i < sizeof unknown / sizeof unknown[0]; i++) {
        const char *s = hfft_strerror(unknown[i]);
        cr_assert(s && *s, "hfft_strerror(%d)", unknown[i]);
        for (size_t j = 0; j < nc; j++)
            cr_assert_str_neq(s, hfft_strerror(codes[j]));
    }
    cr_assert_str_eq(hfft_version(), HFFT_VERSION_STRING);
    cr_assert_str_eq(hfft_version(), "0.2.0");
    /* A success clears the last error. */
    hfft_execute(NULL);
    cr_assert_neq(hfft_last_error(), 0);
    float f[8];
    hfftf_plan p = hfftf_plan_1d(4, (hfftf_complex *)f, (hfftf_complex *)f, HFFT_FORWARD,
                                 HFFT_CPU_ONLY);
    cr_assert(p);
    cr_assert_eq(hfft_last_error(), 0);
    cr_assert_str_eq(hfft_last_error_message(), "");
    hfftf_destroy_plan(p);
}

Test(errors, parse_bytes) {
    static const struct {
        const char *text;
        int64_t bytes;
    } good[] = {
        {"2GiB", 2147483648LL}, {"512MiB", 536870912LL}, {"64KiB", 65536},
        {"1.5GB", 1500000000LL}, {"4096", 4096},         {" 8 MiB ", 8388608},
        {"1k", 1024},           {"3g", 3221225472LL},    {"2TB", 2000000000000LL},
        {"100B", 100},          {"1", 1},                {"0.5KiB", 512},
        {"1TiB", 1099511627776LL}, {"7mb", 7000000},     {"1.9", 1},
    };
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
        int64_t v = -1;
        int st = hfft_parse_bytes(good[i].text, &v);
        cr_assert_eq(st, 0, "'%s' rejected: %s", good[i].text, hfft_last_error_message());
        cr_assert_eq(v, good[i].bytes, "'%s' = %lld, expected %lld", good[i].text, (long long)v,
                     (long long)good[i].bytes);
    }
    const char *bad[] = {"",    "abc",    "5 parsecs", "0",   "-1",   "0.4",   "12XB",
                         "MiB", "nan",    "inf",       "1e400", " ",  "4 4",   "1..5",
                         "9999999999999TB"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        int64_t v = 0;
        prime_error(HFFT_ERR_SETTING);
        int st = hfft_parse_bytes(bad[i], &v);
        char what[64];
        snprintf(what, sizeof what, "hfft_parse_bytes('%s')", bad[i]);
        expect_status(st, HFFT_ERR_SETTING, what);
    }
    int64_t v;
    prime_error(HFFT_ERR_SETTING);
    expect_status(hfft_parse_bytes(NULL, &v), HFFT_ERR_SETTING, "hfft_parse_bytes(NULL)");
    prime_error(HFFT_ERR_SETTING);
    expect_status(hfft_parse_bytes("4096", NULL), HFFT_ERR_SETTING, "hfft_parse_bytes(.., NULL)");
}

/* execute_dft on arrays that do not match the plan: in-place-ness, alignment,
   overlap, NULL; and a device plan on arrays other than its own. */
Test(errors, execute_dft_mismatch) {
    int64_t n[2] = {8, 12};
    int64_t total = 96;
    for (int prec = 4; prec <= 8; prec += 4) {
        size_t es = tu_esize(prec), bytes = (size_t)total * es;
        for (int inplace = 0; inplace < 2; inplace++) {
            char *a = tu_alloc(bytes), *b = inplace ? a : tu_alloc(bytes);
            tplan t = tp_dft(prec, 2, n, a, b, HFFT_FORWARD, HFFT_CPU_ONLY, NULL);
            cr_assert(t.p, "%s", hfft_last_error_message());
            char *c = tu_alloc(bytes + 128), *d = tu_alloc(bytes + 128);
            hfft_ref_fill(prec, c, total + 128 / (int64_t)es, tu_seed());
            hfft_ref_fill(prec, d, total + 128 / (int64_t)es, tu_seed());
            char *c0 = tu_dup(c, bytes + 128), *d0 = tu_dup(d, bytes + 128);
            struct {
                void *in, *out;
                const char *what;
            } bad[] = {
                {c, inplace ? d : c, "wrong in-place-ness"},
                {c + es, inplace ? c + es : d, "input off by one element"},
                {inplace ? c + 2 * es : c, inplace ? c + 2 * es : d + es, "output off by 1-2 elements"},
                {c + 8, inplace ? c + 8 : d + 8, "both off by 8 bytes"},
                {NULL, d, "NULL input"},
                {c, NULL, "NULL output"},
                {c, inplace ? NULL : c + 64, "overlapping (same alignment)"},
            };
            for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
                char what[128];
                snprintf(what, sizeof what, "f%d %s plan: execute_dft %s", prec * 8,
                         inplace ? "in-place" : "out-of-place", bad[i].what);
                prime_error(HFFT_ERR_INVALID_ARGUMENT);
                expect_status(tp_execute_dft(t, bad[i].in, bad[i].out), HFFT_ERR_INVALID_ARGUMENT,
                              what);
                cr_assert(memcmp(c, c0, bytes + 128) == 0, "%s: changed an array", what);
                cr_assert(memcmp(d, d0, bytes + 128) == 0, "%s: changed an array", what);
            }
            /* Still a working plan. */
            hfft_ref_fill(prec, a, total, tu_seed());
            void *orig = tu_dup(a, bytes);
            cr_assert_eq(tp_execute(t), 0);
            cr_assert_lt(hfft_ref_error(prec, 2, n, orig, b, HFFT_FORWARD, 1), tu_tol(prec));
            tp_destroy(t);
            tu_free(orig);
            tu_free(c0);
            tu_free(d0);
            tu_free(c);
            tu_free(d);
            if (b != a)
                tu_free(b);
            tu_free(a);
        }
    }
    /* A device plan runs on new arrays too: each registered on first use, the plan
       keeping the most recent ones registered, the oldest given back. */
    hfft_options o;
    hfft_options_init(&o);
    o.device = HFFT_DEVICE_EMULATED;
    o.device_memory = 8192;
    size_t bytes = (size_t)total * 8;
    char *a = tu_alloc(bytes), *b = tu_alloc(bytes);
    hfftf_plan p = hfftf_plan_dft(2, n, (hfftf_complex *)a, (hfftf_complex *)b, HFFT_FORWARD, 0,
                                  &o);
    cr_assert(p, "%s", hfft_last_error_message());
    enum { ARRAYS = 12 };
    char *c[ARRAYS], *d[ARRAYS];
    for (int k = 0; k < ARRAYS; k++) {
        c[k] = tu_alloc(bytes);
        d[k] = tu_alloc(bytes);
    }
    void *c0 = tu_alloc(bytes);
    for (int rep = 0; rep < 2; rep++) {
        for (int k = 0; k < ARRAYS; k++) {
            hfft_ref_fill(4, c[k], total, tu_seed());
            memcpy(c0, c[k], bytes);
            tu_poison(d[k], bytes);
            cr_assert_eq(hfftf_execute_dft(p, (hfftf_complex *)c[k], (hfftf_complex *)d[k]), 0,
                         "emulated plan, new arrays %d: %s", k, hfft_last_error_message());
            cr_assert(memcmp(c[k], c0, bytes) == 0, "new arrays %d: the input changed", k);
            cr_assert_lt(hfft_ref_error(4, 2, n, c0, d[k], HFFT_FORWARD, 1), TU_TOL_F,
                         "new arrays %d", k);
            hfft_info info;
            hfftf_plan_info(p, &info);
            cr_assert_eq(info.host_pinned, 1, "new arrays %d: host_pinned %d", k, info.host_pinned);
            int held = rep || k >= 3 ? 8 : 2 * (k + 1);
            cr_assert_eq(info.pinned_bytes, (int64_t)held * (int64_t)bytes,
                         "new arrays %d: %lld bytes kept registered, expected %d arrays", k,
                         (long long)info.pinned_bytes, held);
        }
    }
    /* Its own arrays through execute_dft are fine. */
    hfft_ref_fill(4, a, total, tu_seed());
    memcpy(c0, a, bytes);
    tu_poison(b, bytes);
    cr_assert_eq(hfftf_execute_dft(p, (hfftf_complex *)a, (hfftf_complex *)b), 0, "%s",
                 hfft_last_error_message());
    cr_assert_lt(hfft_ref_error(4, 2, n, c0, b, HFFT_FORWARD, 1), TU_TOL_F);
    hfftf_destroy_plan(p);
    /* Destroyed, the plan gave every registration back: registering again works. */
    hfftf_plan q = hfftf_plan_dft(2, n, (hfftf_complex *)c[0], (hfftf_complex *)d[0],
                                  HFFT_FORWARD, 0, &o);
    cr_assert(q, "%s", hfft_last_error_message());
    hfft_info qi;
    hfftf_plan_info(q, &qi);
    cr_assert_eq(qi.host_pinned, 1, "re-registered after destroy: host_pinned %d", qi.host_pinned);
    hfftf_destroy_plan(q);
    tu_free(c0);
    tu_free(a);
    tu_free(b);
    for (int k = 0; k < ARRAYS; k++) {
        tu_free(c[k]);
        tu_free(d[k]);
    }
}

/* Split arrays: an in-place plan executed with the real parts in place and the
   imaginary parts not is refused, as the planner refuses that layout, with
   nothing written; real and imaginary outputs that share elements are refused
   at plan time and at execute, while FFTW's interleaved-as-split idiom (the
   imaginary array one real after the real one, stride 2) is not. */
Test(errors, split_arrays) {
    enum { N = 256 * 256 };
    float *re = tu_alloc(sizeof(float) * N), *im = tu_alloc(sizeof(float) * N);
    float *im2 = tu_alloc(sizeof(float) * N);
    hfft_ref_fill(4, re, N / 2, tu_seed());
    hfft_ref_fill(4, im, N / 2, tu_seed());
    hfft_ref_fill(4, im2, N / 2, tu_seed());
    float *keep[3] = {tu_dup(re, sizeof(float) * N), tu_dup(im, sizeof(float) * N),
                      tu_dup(im2, sizeof(float) * N)};
    hfft_iodim d[2] = {{256, 256, 256}, {256, 1, 1}};
    hfftf_plan p = hfftf_plan_guru_split_dft(2, d, 0, NULL, re, im, re, im, 0, NULL);
    cr_assert_not_null(p, "%s", hfft_last_error_message());
    prime_error(HFFT_ERR_INVALID_ARGUMENT);
    expect_status(hfftf_execute_split_dft(p, re, im, re, im2), HFFT_ERR_INVALID_ARGUMENT,
                  "in-place split plan, imaginary parts out of place");
    cr_assert(memcmp(re, keep[0], sizeof(float) * N) == 0 &&
                  memcmp(im, keep[1], sizeof(float) * N) == 0 &&
                  memcmp(im2, keep[2], sizeof(float) * N) == 0,
              "a refused execute wrote to its arrays");
    hfftf_destroy_plan(p);
    float *o = tu_alloc(sizeof(float) * 2 * N);
    hfft_iodim line = {16, 1, 1};
    p = hfftf_plan_guru_split_dft(1, &line, 0, NULL, re, im, o, o, 0, NULL);
    cr_assert_null(p, "split outputs ro == io accepted");
    cr_assert_eq(hfft_last_error(), HFFT_ERR_INVALID_ARGUMENT);
    p = hfftf_plan_guru_split_dft(1, &line, 0, NULL, re, im, o, o + 8, 0, NULL);
    cr_assert_null(p, "split outputs io = ro + 8 accepted");
    hfft_iodim pairs = {16, 1, 2};
    p = hfftf_plan_guru_split_dft(1, &pairs, 0, NULL, re, im, o, o + 1, 0, NULL);
    cr_assert_not_null(p, "interleaved as split: %s", hfft_last_error_message());
    prime_error(HFFT_ERR_INVALID_ARGUMENT);
    expect_status(hfftf_execute_split_dft(p, re, im, o + 64, o + 66), HFFT_ERR_INVALID_ARGUMENT,
                  "new split outputs sharing elements");
    cr_assert_eq(hfftf_execute_split_dft(p, re, im, o + 64, o + 65), 0, "%s",
                 hfft_last_error_message());
    hfftf_destroy_plan(p);
    for (int k = 0; k < 3; k++)
        tu_free(keep[k]);
    tu_free(o);
    tu_free(re);
    tu_free(im);
    tu_free(im2);
}

/* Wisdom files (HFFT_WISDOM or options.wisdom): corrupt ones are an error that
   names the file and line, unreadable ones an I/O error, a missing one is no
   wisdom at all. */
static void write_file(const char *path, const char *text, size_t len) {
    FILE *f = fopen(path, "wb");
    cr_assert(f, "cannot write %s", path);
    cr_assert_eq(fwrite(text, 1, len, f), len);
    fclose(f);
}

Test(errors, wisdom_files) {
    char dir[] = "/tmp/hfft-test-wisdom-XXXXXX";
    cr_assert(mkdtemp(dir), "mkdtemp");
    char bad1[512], bad2[512], bad3[512], bad4[512], missing[512];
    snprintf(bad1, sizeof bad1, "%s/garbage", dir);
    snprintf(bad2, sizeof bad2, "%s/noheader", dir);
    snprintf(bad3, sizeof bad3, "%s/binary", dir);
    snprintf(bad4, sizeof bad4, "%s/badproblem", dir);
    snprintf(missing, sizeof missing, "%s/missing", dir);
    const char t1[] = "hfft-wisdom 1\nsignature version=0\nthis is not wisdom\n";
    const char t2[] = "signature version=0\n";
    const char t3[] = "hfft-wisdom 1\nsignature a\0b\n";
    const char t4[] = "# comment\n\nhfft-wisdom 1\nsignature x\nproblem prec=5 n=64x48\n";
    write_file(bad1, t1, sizeof t1 - 1);
    write_file(bad2, t2, sizeof t2 - 1);
    write_file(bad3, t3, sizeof t3 - 1);
    write_file(bad4, t4, sizeof t4 - 1);
    char fifo[512];
    snprintf(fifo, sizeof fifo, "%s/fifo", dir);
    cr_assert_eq(mkfifo(fifo, 0600), 0, "mkfifo");
    int64_t n[2] = {64, 48};
    static const struct {
        const char *name;
        int status;
        const char *needle;
    } cases[] = {
        {"garbage", HFFT_ERR_WISDOM, ":3"},
        {"noheader", HFFT_ERR_WISDOM, "noheader"},
        {"binary", HFFT_ERR_WISDOM, "binary"},
        {"badproblem", HFFT_ERR_WISDOM, ":5"},
        {"", HFFT_ERR_IO, "regular"}, /* the directory itself */
        {"fifo", HFFT_ERR_IO, "regular"}, /* read without blocking, and refused */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char path[512];
        snprintf(path, sizeof path, "%s/%s", dir, cases[i].name);
        for (int via_env = 0; via_env < 2; via_env++) {
            hfft_options o;
            hfft_options_init(&o);
            o.device = HFFT_DEVICE_EMULATED;
            o.device_memory = 8192;
            if (via_env)
                setenv("HFFT_WISDOM", path, 1);
            else
                o.wisdom = path;
            char what[600];
            snprintf(what, sizeof what, "wisdom '%s' (%s)", path,
                     via_env ? "HFFT_WISDOM" : "options.wisdom");
            bad_plan(4, 2, n, 64 * 48, via_env, HFFT_FORWARD, 0, &o, cases[i].status, what);
            cr_assert(strstr(hfft_last_error_message(), cases[i].needle) != NULL,
                      "%s: message '%s' lacks '%s'", what, hfft_last_error_message(),
                      cases[i].needle);
            unsetenv("HFFT_WISDOM");
        }
    }
    /* A missing file, or "none": planning goes on without wisdom. */
    const char *fine[] = {missing, "none"};
    for (int i = 0; i < 2; i++) {
        hfft_options o;
        hfft_options_init(&o);
        o.device = HFFT_DEVICE_EMULATED;
        o.device_memory = 8192;
        o.wisdom = fine[i];
        tu_case c = {4, 2, {64, 48}, 0, HFFT_FORWARD, 0, &o, 0};
        hfft_info info;
        run_case(&c, &info);
        cr_assert_eq(info.wisdom, 0, "wisdom '%s': info.wisdom %d", fine[i], info.wisdom);
    }
    remove(bad1);
    remove(bad2);
    remove(bad3);
    remove(bad4);
    remove(fifo);
    rmdir(dir);
}
