/*
 * soak.c: hfft-soak, many consecutive out-of-card transforms with every result
 * checked and the device's free memory watched.  One problem (default
 * 2d:8192x8192:f32, 512 MiB, under a 128 MiB budget) is transformed out of
 * place COUNT times (default 200) from the same input; the plan is destroyed
 * and made again every REPLAN transforms.  Before each execute the output is
 * poisoned with NaN; after it, the relative RMS error against FFTW in higher
 * precision (computed once) must stay under the precision's bound and the
 * input must be unchanged.  Where a GPU is present the device's free memory is
 * read after each transform: it must not drift.
 *
 * usage: hfft-soak [--count N] [--replan K] [--budget BYTES] [--mode gpu|hybrid|auto] [PROBLEM]
 * Exit status 0 when every check held, 1 otherwise, 2 on a usage error.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hfft.h"
#include "ref.h"

#ifdef HFFT_SOAK_HAVE_CUDA
#include <cuda_runtime_api.h>
#endif

#define MIB (1024.0 * 1024.0)

/* Free device memory in bytes, or -1 where there is no GPU to ask. */
static double device_free(void) {
#ifdef HFFT_SOAK_HAVE_CUDA
    size_t f = 0, t = 0;
    if (cudaMemGetInfo(&f, &t) == cudaSuccess)
        return (double)f;
    (void)cudaGetLastError();
#endif
    return -1.0;
}

static int64_t parse_bytes(const char *s) {
    char *end;
    double v = strtod(s, &end);
    if (end == s || v <= 0)
        return -1;
    if (*end == 'K' || *end == 'k')
        v *= 1024.0, end++;
    else if (*end == 'M')
        v *= MIB, end++;
    else if (*end == 'G')
        v *= 1024.0 * MIB, end++;
    if (strcmp(end, "iB") != 0 && strcmp(end, "B") != 0 && *end)
        return -1;
    return (int64_t)v;
}

static int usage(const char *argv0) {
    fprintf(stderr,
            "usage: %s [--count N] [--replan K] [--budget BYTES] [--mode gpu|hybrid|auto] "
            "[RANKd:N0xN1[xN2][:f32|f64]]\n",
            argv0);
    return 2;
}

static void *make_plan(int prec, int rank, const int64_t *n, void *in, void *out, unsigned flags,
                       const hfft_options *o) {
    if (prec == 4)
        return hfftf_plan_dft(rank, n, in, out, HFFT_FORWARD, flags, o);
    return hfft_plan_dft(rank, n, in, out, HFFT_FORWARD, flags, o);
}

static void destroy_plan(int prec, void *p) {
    if (prec == 4)
        hfftf_destroy_plan(p);
    else
        hfft_destroy_plan(p);
}

int main(int argc, char **argv) {
    int count = 200, replan = 20, prec = 4, rank = 2;
    int64_t n[3] = {8192, 8192, 1}, budget = 128 << 20;
    unsigned flags = HFFT_ESTIMATE | HFFT_GPU_ONLY;
    const char *mode = "gpu";
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(a, "--count") == 0 && v) {
            count = atoi(v), i++;
        } else if (strcmp(a, "--replan") == 0 && v) {
            replan = atoi(v), i++;
        } else if (strcmp(a, "--budget") == 0 && v) {
            budget = parse_bytes(v), i++;
        } else if (strcmp(a, "--mode") == 0 && v) {
            mode = v, i++;
            if (strcmp(v, "gpu") == 0)
                flags = HFFT_ESTIMATE | HFFT_GPU_ONLY;
            else if (strcmp(v, "hybrid") == 0)
                flags = HFFT_ESTIMATE | HFFT_HYBRID;
            else if (strcmp(v, "auto") == 0)
                flags = HFFT_ESTIMATE;
            else
                return usage(argv[0]);
        } else if (a[0] != '-') {
            long long d[3] = {1, 1, 1};
            char ps[8] = "";
            int r = 0;
            if (sscanf(a, "%dd:%lldx%lldx%lld:%7s", &r, &d[0], &d[1], &d[2], ps) < 3 &&
                sscanf(a, "%dd:%lldx%lld:%7s", &r, &d[0], &d[1], ps) < 3 &&
                sscanf(a, "%dd:%lld:%7s", &r, &d[0], ps) < 2)
                return usage(argv[0]);
            /* The precision follows the last size. */
            const char *colon = strrchr(a, ':');
            prec = colon && strcmp(colon, ":f64") == 0 ? 8 : 4;
            if (r < 1 || r > 3)
                return usage(argv[0]);
            rank = r;
            for (int k = 0; k < 3; k++)
                n[k] = k < r ? d[k] : 1;
            for (int k = 0; k < r; k++)
                if (n[k] < 1)
                    return usage(argv[0]);
        } else {
            return usage(argv[0]);
        }
    }
    if (count < 1 || replan < 1 || budget < 0)
        return usage(argv[0]);

    int64_t total = n[0] * n[1] * n[2];
    size_t bytes = (size_t)total * 2 * (size_t)prec;
    double bound = prec == 4 ? 1e-6 : 1e-14;
    double free0 = device_free();
    void *in = hfft_malloc(bytes), *out = hfft_malloc(bytes), *keep = malloc(bytes);
    if (!in || !out || !keep) {
        fprintf(stderr, "hfft-soak: cannot allocate 3 x %.1f MiB\n", bytes / MIB);
        return 1;
    }
    hfft_ref_fill(prec, in, total, 7);
    memcpy(keep, in, bytes);
    void *ref = hfft_ref_transform(prec, rank, n, in, HFFT_FORWARD, 0);
    if (!ref) {
        fprintf(stderr, "hfft-soak: cannot allocate the reference\n");
        return 1;
    }
    hfft_options o;
    hfft_options_init(&o);
    o.device_memory = budget;
    printf("hfft-soak: %dd %lld", rank, (long long)n[0]);
    for (int k = 1; k < rank; k++)
        printf("x%lld", (long long)n[k]);
    printf(" %s (%.1f MiB), %d transforms, a new plan every %d, mode %s, budget %.1f MiB\n",
           prec == 4 ? "f32" : "f64", bytes / MIB, count, replan, mode, budget / MIB);

    void *plan = NULL;
    int failures = 0, plans = 0;
    double worst = 0, lo = -1, hi = -1, t0 = hfft_ref_now();
    for (int i = 0; i < count; i++) {
        if (i % replan == 0) {
            if (plan)
                destroy_plan(prec, plan);
            plan = make_plan(prec, rank, n, in, out, flags, &o);
            if (!plan) {
                fprintf(stderr, "hfft-soak: plan %d failed: %s\n", plans,
                        hfft_last_error_message());
                return 1;
            }
            plans++;
            if (i == 0) {
                hfft_info info;
                if (prec == 4)
                    hfftf_plan_info(plan, &info);
                else
                    hfft_plan_info(plan, &info);
                printf("plan: %s, passes %d/%d, device %.1f of %.1f MiB\n", info.device_name,
                       info.passes[0], info.passes[1], info.device_bytes / MIB,
                       info.device_budget / MIB);
            }
        }
        for (int64_t k = 0; k < 2 * total; k++) {
            if (prec == 4)
                ((float *)out)[k] = NAN;
            else
                ((double *)out)[k] = NAN;
        }
        int st = prec == 4 ? hfftf_execute(plan) : hfft_execute(plan);
        if (st) {
            fprintf(stderr, "hfft-soak: transform %d failed: %s\n", i, hfft_last_error_message());
            return 1;
        }
        double err = hfft_ref_compare(prec, ref, out, total);
        int input_kept = memcmp(in, keep, bytes) == 0;
        double f = device_free();
        if (f >= 0 && i > 0) {
            /* The first transform's free memory is the level: cuFFT keeps
               what it loads once per process. */
            lo = lo < 0 || f < lo ? f : lo;
            hi = hi < 0 || f > hi ? f : hi;
        }
        if (!(err <= bound) || !input_kept) {
            failures++;
            printf("transform %d: error %.3g (bound %.0e)%s\n", i, err, bound,
                   input_kept ? "" : ", input changed");
        }
        if (err > worst || err != err)
            worst = err;
        if (i % 20 == 0 || i == count - 1)
            printf("transform %3d: error %.3g, device free %.1f MiB\n", i, err,
                   f >= 0 ? f / MIB : -1.0);
    }
    double secs = hfft_ref_now() - t0;
    destroy_plan(prec, plan);
    double free1 = device_free();
    printf("soak: %d transforms, %d plans, %d failed checks, worst error %.3g, %.1f s\n", count,
           plans, failures, worst, secs);
    if (lo >= 0) {
        printf("device free memory over transforms 2..%d: %.1f to %.1f MiB (spread %.1f MiB); "
               "before any plan %.1f MiB, after the last %.1f MiB\n",
               count, lo / MIB, hi / MIB, (hi - lo) / MIB, free0 / MIB, free1 / MIB);
        /* Every transform runs with one plan alive, the same plan each time:
           the free memory after it must be the same every time. */
        if (hi - lo > 8 * MIB) {
            printf("device memory not flat: it varied by %.1f MiB\n", (hi - lo) / MIB);
            failures++;
        }
    } else {
        printf("device free memory: no GPU\n");
    }
    hfft_ref_free(prec, ref);
    hfft_free(in);
    hfft_free(out);
    free(keep);
    return failures ? 1 : 0;
}
