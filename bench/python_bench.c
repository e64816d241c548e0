/*
 * python_bench.c: the C side of python_bench.py.  The script compiles this
 * file into a small shared library and calls it on the arrays it times
 * through the Python package: one plan of the same 2D transform made as a C
 * program makes it (hfft_plan_dft on those arrays, the same options and
 * flags), one untimed execute, then `reps` timed executes, all in C.  Uses
 * the public API only.
 */
#include <stdint.h>
#include <time.h>

#include <hfft.h>

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* seconds[0]: planning; seconds[1 + r]: execute r.  0, or the failing status. */
int pybench_fft2(int prec, int64_t n0, int64_t n1, void *in, void *out, int reps,
                 const hfft_options *opts, double *seconds, hfft_info *info) {
    const int64_t n[2] = {n0, n1};
    double t0 = now();
    hfftf_plan pf = NULL;
    hfft_plan pd = NULL;
    if (prec == 4)
        pf = hfftf_plan_dft(2, n, in, out, HFFT_FORWARD, HFFT_ESTIMATE, opts);
    else
        pd = hfft_plan_dft(2, n, in, out, HFFT_FORWARD, HFFT_ESTIMATE, opts);
    seconds[0] = now() - t0;
    if (!pf && !pd)
        return hfft_last_error();
    int st = 0;
    for (int r = -1; r < reps && !st; r++) {
        t0 = now();
        st = pf ? hfftf_execute(pf) : hfft_execute(pd);
        if (r >= 0)
            seconds[1 + r] = now() - t0;
    }
    if (!st)
        st = pf ? hfftf_plan_info(pf, info) : hfft_plan_info(pd, info);
    hfftf_destroy_plan(pf);
    hfft_destroy_plan(pd);
    return st;
}
