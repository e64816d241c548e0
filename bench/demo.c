/*
 * demo.c: hfft-demo, the README's first check.  Transforms a generated array
 * (default 2048 x 2048, single precision) with hfft's automatic placement,
 * then prints the time and the relative RMS error against FFTW in higher
 * precision.  Usage: hfft-demo [N0xN1[xN2]] [f32|f64]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hfft.h"
#include "ref.h"

int main(int argc, char **argv) {
    int64_t n[3] = {2048, 2048, 1};
    int rank = 2, prec = 4;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "f32") == 0) {
            prec = 4;
        } else if (strcmp(argv[i], "f64") == 0) {
            prec = 8;
        } else {
            long long a = 0, b = 0, c = 0;
            int k = sscanf(argv[i], "%lldx%lldx%lld", &a, &b, &c);
            if (k < 1 || a < 1 || (k >= 2 && b < 1) || (k == 3 && c < 1)) {
                fprintf(stderr, "usage: %s [N0xN1[xN2]] [f32|f64]\n", argv[0]);
                return 2;
            }
            rank = k;
            n[0] = a;
            n[1] = b;
            n[2] = c;
        }
    }
    int64_t total = n[0] * (rank > 1 ? n[1] : 1) * (rank > 2 ? n[2] : 1);
    size_t bytes = (size_t)total * 2 * (size_t)prec;
    void *in = hfft_malloc(bytes), *out = hfft_malloc(bytes);
    if (!in || !out) {
        fprintf(stderr, "hfft-demo: cannot allocate 2 x %zu bytes\n", bytes);
        return 1;
    }
    hfft_ref_fill(prec, in, total, 42);
    double t0 = hfft_ref_now();
    void *plan = prec == 4 ? (void *)hfftf_plan_dft(rank, n, in, out, HFFT_FORWARD, HFFT_ESTIMATE, NULL)
                           : (void *)hfft_plan_dft(rank, n, in, out, HFFT_FORWARD, HFFT_ESTIMATE, NULL);
    if (!plan) {
        fprintf(stderr, "hfft-demo: planning failed: %s\n", hfft_last_error_message());
        return 1;
    }
    double t1 = hfft_ref_now();
    int st = prec == 4 ? hfftf_execute(plan) : hfft_execute(plan);
    double t2 = hfft_ref_now();
    if (st) {
        fprintf(stderr, "hfft-demo: execute failed: %s\n", hfft_last_error_message());
        return 1;
    }
    hfft_info info;
    if (prec == 4)
        hfftf_plan_info(plan, &info);
    else
        hfft_plan_info(plan, &info);
    double err = hfft_ref_error(prec, rank, n, in, out, HFFT_FORWARD, 0);
    static const char *const where[] = {"CPU only", "GPU only", "GPU + CPU"};
    printf("hfft %s demo: %s transform of ", hfft_version(), prec == 4 ? "single" : "double");
    for (int k = 0; k < rank; k++)
        printf("%s%lld", k ? "x" : "", (long long)n[k]);
    printf(" (%.1f MiB) on %s [%s, %d threads]\n", bytes / 1048576.0, where[info.placement],
           info.device_name, info.threads);
    printf("  plan    %.3f s\n  execute %.3f s\n", t1 - t0, t2 - t1);
    printf("  relative RMS error against FFTW in %s: %.3g\n",
           prec == 4 ? "double" : "long double", err);
    if (prec == 4)
        hfftf_destroy_plan(plan);
    else
        hfft_destroy_plan(plan);
    hfft_free(in);
    hfft_free(out);
    double limit = prec == 4 ? 1e-6 : 1e-14;
    return err >= 0 && err <= limit ? 0 : 1;
}
