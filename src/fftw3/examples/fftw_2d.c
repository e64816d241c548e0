/*
 * fftw_2d.c: a plain FFTW 3 program, as one would write it for FFTW itself: a
 * 2D complex transform and its inverse, then a 2D real-to-complex transform
 * and back, on fftw_malloc'd arrays, checked against a direct DFT.  It uses
 * only FFTW's API: built against FFTW it runs on FFTW, built against hfft's
 * drop-in (include/hfft/fftw3, -lhfftw3) it runs on hfft, unchanged.
 *
 *   cc fftw_2d.c -lfftw3 -lm                          FFTW
 *   cc fftw_2d.c $(pkg-config --cflags --libs hfftw3) -lm    hfft
 */
#include <fftw3.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define N0 24
#define N1 36

/* One output element of the 2D DFT of x, directly from the definition. */
static void dft_at(fftw_complex *x, int k0, int k1, int sign, double *re, double *im) {
    const double pi = 3.14159265358979323846;
    double sr = 0.0, si = 0.0;
    for (int j0 = 0; j0 < N0; j0++)
        for (int j1 = 0; j1 < N1; j1++) {
            double a = sign * 2.0 * pi * ((double)j0 * k0 / N0 + (double)j1 * k1 / N1);
            double c = cos(a), s = sin(a);
            const double *v = x[j0 * N1 + j1];
            sr += v[0] * c - v[1] * s;
            si += v[0] * s + v[1] * c;
        }
    *re = sr;
    *im = si;
}

int main(void) {
    fftw_complex *x = fftw_malloc(sizeof(fftw_complex) * N0 * N1);
    fftw_complex *y = fftw_malloc(sizeof(fftw_complex) * N0 * N1);
    double *r = fftw_alloc_real(N0 * N1);
    fftw_complex *h = fftw_alloc_complex(N0 * (N1 / 2 + 1));
    fftw_complex *keep = fftw_malloc(sizeof(fftw_complex) * N0 * N1);
    if (!x || !y || !r || !h || !keep) {
        fprintf(stderr, "fftw_malloc failed\n");
        return 1;
    }

    /* Plans first (FFTW_MEASURE may overwrite the arrays), then the data. */
    fftw_plan fwd = fftw_plan_dft_2d(N0, N1, x, y, FFTW_FORWARD, FFTW_ESTIMATE);
    fftw_plan bwd = fftw_plan_dft_2d(N0, N1, y, y, FFTW_BACKWARD, FFTW_ESTIMATE);
    fftw_plan r2c = fftw_plan_dft_r2c_2d(N0, N1, r, h, FFTW_ESTIMATE);
    fftw_plan c2r = fftw_plan_dft_c2r_2d(N0, N1, h, r, FFTW_ESTIMATE);
    if (!fwd || !bwd || !r2c || !c2r) {
        fprintf(stderr, "planning failed\n");
        return 1;
    }
    srand(7);
    for (int i = 0; i < N0 * N1; i++) {
        x[i][0] = keep[i][0] = rand() / (double)RAND_MAX - 0.5;
        x[i][1] = keep[i][1] = rand() / (double)RAND_MAX - 0.5;
        r[i] = keep[i][0];
    }

    /* Complex: forward against the direct DFT, then backward (unnormalized). */
    fftw_execute(fwd);
    double err = 0.0, norm = 0.0;
    for (int k0 = 0; k0 < N0; k0++)
        for (int k1 = 0; k1 < N1; k1++) {
            double re, im;
            dft_at(keep, k0, k1, FFTW_FORWARD, &re, &im);
            const double *v = y[k0 * N1 + k1];
            err = fmax(err, hypot(v[0] - re, v[1] - im));
            norm = fmax(norm, hypot(re, im));
        }
    fftw_execute(bwd);
    double back = 0.0;
    for (int i = 0; i < N0 * N1; i++)
        back = fmax(back, hypot(y[i][0] / (N0 * N1) - keep[i][0], y[i][1] / (N0 * N1) - keep[i][1]));

    /* Real: the half spectrum against the complex transform of the same real data. */
    for (int i = 0; i < N0 * N1; i++)
        keep[i][1] = 0.0;
    fftw_execute(r2c);
    double herr = 0.0;
    for (int k0 = 0; k0 < N0; k0++)
        for (int k1 = 0; k1 <= N1 / 2; k1++) {
            double re, im;
            dft_at(keep, k0, k1, FFTW_FORWARD, &re, &im);
            const double *v = h[k0 * (N1 / 2 + 1) + k1];
            herr = fmax(herr, hypot(v[0] - re, v[1] - im));
        }
    fftw_execute(c2r);
    double rback = 0.0;
    for (int i = 0; i < N0 * N1; i++)
        rback = fmax(rback, fabs(r[i] / (N0 * N1) - keep[i][0]));

    fftw_destroy_plan(fwd);
    fftw_destroy_plan(bwd);
    fftw_destroy_plan(r2c);
    fftw_destroy_plan(c2r);
    fftw_free(x);
    fftw_free(y);
    fftw_free(r);
    fftw_free(h);
    fftw_free(keep);
    fftw_cleanup();

    const double tol = 1e-12 * norm;
    printf("%s: %dx%d c2c error %.2e, round trip %.2e; r2c error %.2e, round trip %.2e\n",
           fftw_version, N0, N1, err, back, herr, rback);
    if (err > tol || herr > tol || back > 1e-13 || rback > 1e-13) {
        printf("FAILED (tolerance %.2e)\n", tol);
        return 1;
    }
    return 0;
}
