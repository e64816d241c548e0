/*
 * consumer.c: a downstream program that uses an installed hfft and nothing
 * else.  It plans and runs a small single-precision 2D transform out of place,
 * checks it against a direct DFT computed here in double precision, checks
 * that the input was preserved, then runs the backward transform in place and
 * checks that it returns n0 * n1 times the input.  Exit status 0 means pass.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hfft.h>

enum { N0 = 48, N1 = 40 };

static const double two_pi = 6.283185307179586476925286766559;

/* Separable direct DFT in double: rows (length N1), then columns (length N0). */
static void direct_dft(const hfftf_complex *in, double (*out)[2], int sign) {
    double(*tmp)[2] = malloc(sizeof(double[2]) * N0 * N1);
    if (!tmp)
        exit(2);
    for (int r = 0; r < N0; r++)
        for (int k = 0; k < N1; k++) {
            double re = 0, im = 0;
            for (int j = 0; j < N1; j++) {
                double a = sign * two_pi * (double)((k * j) % N1) / N1;
                double x = in[r * N1 + j][0], y = in[r * N1 + j][1];
                re += x * cos(a) - y * sin(a);
                im += x * sin(a) + y * cos(a);
            }
            tmp[r * N1 + k][0] = re;
            tmp[r * N1 + k][1] = im;
        }
    for (int c = 0; c < N1; c++)
        for (int k = 0; k < N0; k++) {
            double re = 0, im = 0;
            for (int j = 0; j < N0; j++) {
                double a = sign * two_pi * (double)((k * j) % N0) / N0;
                double x = tmp[j * N1 + c][0], y = tmp[j * N1 + c][1];
                re += x * cos(a) - y * sin(a);
                im += x * sin(a) + y * cos(a);
            }
            out[k * N1 + c][0] = re;
            out[k * N1 + c][1] = im;
        }
    free(tmp);
}

/* Relative RMS error of got against ref * scale. */
static double rel_rms(const hfftf_complex *got, const double (*ref)[2], double scale) {
    double num = 0, den = 0;
    for (int i = 0; i < N0 * N1; i++)
        for (int c = 0; c < 2; c++) {
            double d = got[i][c] - scale * ref[i][c];
            num += d * d;
            den += scale * ref[i][c] * scale * ref[i][c];
        }
    return sqrt(num / den);
}

int main(void) {
    const size_t bytes = sizeof(hfftf_complex) * N0 * N1;
    hfftf_complex *in = hfftf_malloc(bytes), *out = hfftf_malloc(bytes), *copy = malloc(bytes);
    double(*ref)[2] = malloc(sizeof(double[2]) * N0 * N1);
    double(*orig)[2] = malloc(sizeof(double[2]) * N0 * N1);
    if (!in || !out || !copy || !ref || !orig) {
        fprintf(stderr, "consumer: out of memory\n");
        return 2;
    }
    srand(12345);
    for (int i = 0; i < N0 * N1; i++)
        for (int c = 0; c < 2; c++) {
            in[i][c] = (float)rand() / (float)RAND_MAX - 0.5f;
            orig[i][c] = in[i][c];
        }
    memcpy(copy, in, bytes);
    direct_dft(in, ref, HFFT_FORWARD);

    hfftf_plan p = hfftf_plan_2d(N0, N1, in, out, HFFT_FORWARD, HFFT_ESTIMATE);
    if (!p) {
        fprintf(stderr, "consumer: hfftf_plan_2d: %s\n", hfft_last_error_message());
        return 1;
    }
    if (hfftf_execute(p) != 0) {
        fprintf(stderr, "consumer: hfftf_execute: %s\n", hfft_last_error_message());
        return 1;
    }
    hfft_info info;
    if (hfftf_plan_info(p, &info) != 0) {
        fprintf(stderr, "consumer: hfftf_plan_info: %s\n", hfft_last_error_message());
        return 1;
    }
    hfftf_destroy_plan(p);
    double fwd = rel_rms(out, ref, 1.0);
    int kept = memcmp(in, copy, bytes) == 0;

    /* Backward, in place: FFTW's convention, so the result is N0 * N1 * input. */
    hfftf_plan b = hfftf_plan_2d(N0, N1, out, out, HFFT_BACKWARD, HFFT_ESTIMATE);
    if (!b || hfftf_execute(b) != 0) {
        fprintf(stderr, "consumer: backward in place: %s\n", hfft_last_error_message());
        return 1;
    }
    hfftf_destroy_plan(b);
    double back = rel_rms(out, (const double(*)[2])orig, (double)N0 * N1);

    printf("hfft %s consumer: %dx%d single precision on %s: forward error %.2e, "
           "input %s, round trip error %.2e\n",
           hfft_version(), N0, N1, info.device_name, fwd, kept ? "preserved" : "MODIFIED", back);
    int ok = fwd < 1e-5 && back < 1e-5 && kept && strcmp(hfft_version(), HFFT_VERSION_STRING) == 0;
    hfftf_free(in);
    hfftf_free(out);
    free(copy);
    free(ref);
    free(orig);
    puts(ok ? "consumer: PASS" : "consumer: FAIL");
    return ok ? 0 : 1;
}
