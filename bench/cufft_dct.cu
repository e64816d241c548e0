/*
 * cufft_dct.cu: the hand-written cuFFT DCT-II of cufft_dct.h.  Makhoul (1980):
 * with v_k = x_{2k} for k < ceil(N/2) and v_{N-1-k} = x_{2k+1}, the DCT-II is
 * Y_k = 2 Re(exp(-i pi k / 2N) V_k), V the N-point DFT of v, whose upper half
 * is the conjugate of its lower one (V_k = conj(V_{N-k})): an N-point
 * real-to-complex transform gives all of it.  Each dimension reads the reals,
 * writes the reordered reals into a second array, transforms them into a
 * third (complex) one and writes the output back over the first.
 */
#include <cuda_runtime.h>
#include <cufft.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cufft_dct.h"
#include "cuda_check.cuh"

namespace {

/* v[o][k][i] = x[o][j(k)][i], j(k) = 2k below ceil(N/2), 2(N-1-k)+1 above. */
template <typename R>
__global__ void reorder(const R *x, R *v, int64_t outer, int64_t N, int64_t inner) {
    int64_t total = outer * N * inner, half = (N + 1) / 2;
    for (int64_t t = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; t < total;
         t += (int64_t)gridDim.x * blockDim.x) {
        int64_t i = t % inner, k = (t / inner) % N, o = t / (inner * N);
        int64_t j = k < half ? 2 * k : 2 * (N - 1 - k) + 1;
        v[t] = x[(o * N + j) * inner + i];
    }
}

__device__ inline void sincospi_t(double a, double *s, double *c) { sincospi(a, s, c); }
__device__ inline void sincospi_t(float a, float *s, float *c) { sincospif(a, s, c); }

/* x[o][k][i] = 2 Re(exp(-i pi k / 2N) V_k), V_k = C[o][k][i] (k <= N/2) or the
   conjugate of C[o][N-k][i]. */
template <typename R, typename C>
__global__ void post(const C *c, R *x, int64_t outer, int64_t N, int64_t inner) {
    int64_t total = outer * N * inner, nc = N / 2 + 1;
    for (int64_t t = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; t < total;
         t += (int64_t)gridDim.x * blockDim.x) {
        int64_t i = t % inner, k = (t / inner) % N, o = t / (inner * N);
        int64_t kk = k < nc ? k : N - k;
        C v = c[(o * nc + kk) * inner + i];
        R im = k < nc ? v.y : -v.y, s, co;
        sincospi_t((R)k / (R)(2 * N), &s, &co);
        x[t] = 2 * (co * v.x + s * im);
    }
}

} // namespace

struct bench_dct {
    int prec, rank;
    int64_t n[3], total;
    size_t bytes;
    void *x, *v, *c, *work;
    cufftHandle plan[3];
    int64_t outer[3], inner[3], calls[3];
    cudaStream_t s;
    cudaEvent_t e0, e1;
};

static void launch_dims(bench_dct *c) {
    int grid = 4096, block = 256;
    for (int d = 0; d < c->rank; d++) {
        int64_t outer = c->outer[d], N = c->n[d], inner = c->inner[d], nc = N / 2 + 1;
        int64_t step = c->calls[d] > 1 ? 1 : outer; /* outer indices per call */
        if (c->prec == 4) {
            reorder<<<grid, block, 0, c->s>>>((const float *)c->x, (float *)c->v, outer, N, inner);
            cuda_ok(cudaGetLastError(), "reorder kernel");
            for (int64_t o = 0; o < outer; o += step)
                cufft_ok(cufftExecR2C(c->plan[d], (float *)c->v + o * N * inner,
                                      (cufftComplex *)c->c + o * nc * inner),
                         "cufftExecR2C");
            post<<<grid, block, 0, c->s>>>((const cufftComplex *)c->c, (float *)c->x, outer, N,
                                           inner);
        } else {
            reorder<<<grid, block, 0, c->s>>>((const double *)c->x, (double *)c->v, outer, N,
                                              inner);
            cuda_ok(cudaGetLastError(), "reorder kernel");
            for (int64_t o = 0; o < outer; o += step)
                cufft_ok(cufftExecD2Z(c->plan[d], (double *)c->v + o * N * inner,
                                      (cufftDoubleComplex *)c->c + o * nc * inner),
                         "cufftExecD2Z");
            post<<<grid, block, 0, c->s>>>((const cufftDoubleComplex *)c->c, (double *)c->x,
                                           outer, N, inner);
        }
        cuda_ok(cudaGetLastError(), "post kernel");
    }
}

extern "C" int bench_dct_open(int prec, int rank, const int64_t *n, bench_dct **out,
                              double *plan_s, char *note, size_t note_len) {
    *out = NULL;
    bench_dct *c = (bench_dct *)calloc(1, sizeof *c);
    if (!c) {
        fprintf(stderr, "hfft-bench: out of memory\n");
        exit(1);
    }
    c->prec = prec;
    c->rank = rank;
    c->total = 1;
    int64_t ncmax = 0;
    for (int d = 0; d < rank; d++) {
        c->n[d] = n[d];
        c->total *= n[d];
    }
    /* the complex array's largest layout: N/2 + 1 in place of N along one dimension */
    for (int d = 0; d < rank; d++) {
        int64_t m = c->total / n[d] * (n[d] / 2 + 1);
        ncmax = m > ncmax ? m : ncmax;
    }
    c->bytes = (size_t)c->total * (size_t)prec;
    size_t cbytes = (size_t)ncmax * 2 * (size_t)prec, fr = 0, tot = 0, most = 0;
    double t0 = now();
    cuda_ok(cudaStreamCreate(&c->s), "cudaStreamCreate");
    cuda_ok(cudaEventCreate(&c->e0), "cudaEventCreate");
    cuda_ok(cudaEventCreate(&c->e1), "cudaEventCreate");
    /* the plans first, without work areas: one shared area of the largest, counted
       against the card's memory with the arrays */
    for (int d = 0; d < rank; d++) {
        int64_t outer = 1, inner = 1;
        for (int k = 0; k < d; k++)
            outer *= n[k];
        for (int k = d + 1; k < rank; k++)
            inner *= n[k];
        c->outer[d] = outer;
        c->inner[d] = inner;
        long long N = n[d], nc = n[d] / 2 + 1;
        size_t work = 0;
        cufftType type = prec == 4 ? CUFFT_R2C : CUFFT_D2Z;
        cufft_ok(cufftCreate(&c->plan[d]), "cufftCreate");
        cufft_ok(cufftSetAutoAllocation(c->plan[d], 0), "cufftSetAutoAllocation");
        if (inner == 1) { /* the last dimension: one call over every line */
            cufft_ok(cufftMakePlanMany64(c->plan[d], 1, &N, &N, 1, N, &nc, 1, nc, type, outer,
                                         &work),
                     "cufftMakePlanMany64");
            c->calls[d] = 1;
        } else { /* lines inner apart: one call per outer index */
            cufft_ok(cufftMakePlanMany64(c->plan[d], 1, &N, &N, inner, 1, &nc, inner, 1, type,
                                         inner, &work),
                     "cufftMakePlanMany64");
            c->calls[d] = outer;
        }
        cufft_ok(cufftSetStream(c->plan[d], c->s), "cufftSetStream");
        most = work > most ? work : most;
    }
    cuda_ok(cudaMemGetInfo(&fr, &tot), "cudaMemGetInfo");
    if (2 * c->bytes + cbytes + most + ((size_t)1 << 30) > fr) {
        snprintf(note, note_len, "skipped: the DCT-II by hand needs %.1f GiB of the card, %.1f free",
                 (double)(2 * c->bytes + cbytes + most) / (1 << 30), (double)fr / (1 << 30));
        c->x = c->v = c->c = NULL;
        bench_dct_close(c);
        return 1;
    }
    cuda_ok(cudaMalloc(&c->x, c->bytes), "cudaMalloc (reals)");
    cuda_ok(cudaMalloc(&c->v, c->bytes), "cudaMalloc (reordered)");
    cuda_ok(cudaMalloc(&c->c, cbytes), "cudaMalloc (complex)");
    if (most)
        cuda_ok(cudaMalloc(&c->work, most), "cudaMalloc (cuFFT's work area)");
    for (int d = 0; d < rank; d++)
        cufft_ok(cufftSetWorkArea(c->plan[d], c->work), "cufftSetWorkArea");
    cuda_ok(cudaStreamSynchronize(c->s), "cudaStreamSynchronize");
    *plan_s = now() - t0;
    snprintf(note, note_len, "Makhoul + %s, %lld call(s)", prec == 4 ? "R2C" : "D2Z",
             (long long)(c->calls[0] + (rank > 1 ? c->calls[1] : 0) +
                         (rank > 2 ? c->calls[2] : 0)));
    *out = c;
    return 0;
}

extern "C" void bench_dct_incard(bench_dct *c, const void *a, void *b, int reps, double *times) {
    for (int r = -1; r < reps; r++) {
        float ms;
        cuda_ok(cudaMemcpyAsync(c->x, a, c->bytes, cudaMemcpyHostToDevice, c->s), "cudaMemcpyAsync");
        cuda_ok(cudaEventRecord(c->e0, c->s), "cudaEventRecord");
        launch_dims(c);
        cuda_ok(cudaEventRecord(c->e1, c->s), "cudaEventRecord");
        if (r < 0)
            cuda_ok(cudaMemcpyAsync(b, c->x, c->bytes, cudaMemcpyDeviceToHost, c->s),
                    "cudaMemcpyAsync");
        cuda_ok(cudaStreamSynchronize(c->s), "cudaStreamSynchronize");
        cuda_ok(cudaEventElapsedTime(&ms, c->e0, c->e1), "cudaEventElapsedTime");
        if (r >= 0)
            times[r] = ms * 1e-3;
    }
}

extern "C" void bench_dct_copy_exec_copy(bench_dct *c, const void *a, void *b, int reps,
                                         double *times) {
    for (int r = -1; r < reps; r++) {
        float ms;
        cuda_ok(cudaEventRecord(c->e0, c->s), "cudaEventRecord");
        cuda_ok(cudaMemcpyAsync(c->x, a, c->bytes, cudaMemcpyHostToDevice, c->s), "cudaMemcpyAsync");
        launch_dims(c);
        cuda_ok(cudaMemcpyAsync(b, c->x, c->bytes, cudaMemcpyDeviceToHost, c->s), "cudaMemcpyAsync");
        cuda_ok(cudaEventRecord(c->e1, c->s), "cudaEventRecord");
        cuda_ok(cudaEventSynchronize(c->e1), "cudaEventSynchronize");
        cuda_ok(cudaEventElapsedTime(&ms, c->e0, c->e1), "cudaEventElapsedTime");
        if (r >= 0)
            times[r] = ms * 1e-3;
    }
}

extern "C" void bench_dct_close(bench_dct *c) {
    if (!c)
        return;
    for (int d = 0; d < c->rank; d++) /* (open makes every plan before it can stop) */
        cufft_ok(cufftDestroy(c->plan[d]), "cufftDestroy");
    cuda_ok(cudaFree(c->x), "cudaFree"); /* (NULL: nothing) */
    cuda_ok(cudaFree(c->v), "cudaFree");
    cuda_ok(cudaFree(c->c), "cudaFree");
    cuda_ok(cudaFree(c->work), "cudaFree");
    cuda_ok(cudaEventDestroy(c->e0), "cudaEventDestroy");
    cuda_ok(cudaEventDestroy(c->e1), "cudaEventDestroy");
    cuda_ok(cudaStreamDestroy(c->s), "cudaStreamDestroy");
    free(c);
}
