/*
 * cuda_check.cuh: what the hand-written CUDA baselines (stream_cufft.cu,
 * cufft_dct.cu) share: a CUDA or cuFFT failure printed with the call and the
 * program's name, then exit 1 (a baseline has no caller to hand a status to);
 * and the monotonic clock.
 */
#ifndef HFFT_BENCH_CUDA_CHECK_CUH
#define HFFT_BENCH_CUDA_CHECK_CUH

#include <cuda_runtime.h>
#include <cufft.h>
#include <errno.h> /* program_invocation_short_name (glibc) */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static inline void cuda_ok(cudaError_t e, const char *what) {
    if (e != cudaSuccess) {
        fprintf(stderr, "%s: %s: %s\n", program_invocation_short_name, what,
                cudaGetErrorString(e));
        exit(1);
    }
}

static inline void cufft_ok(cufftResult r, const char *what) {
    if (r != CUFFT_SUCCESS) {
        fprintf(stderr, "%s: %s: cuFFT error %d\n", program_invocation_short_name, what, (int)r);
        exit(1);
    }
}

static inline double now() {
    timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

#endif
