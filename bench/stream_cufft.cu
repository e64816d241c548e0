/*
 * stream_cufft.cu: what a cuFFT user writes by hand for a streaming image, the
 * baseline of hfft-stream-bench: the points copied to the card as they come
 * (pinned staging), summed into a device grid by a scatter-add kernel, and at
 * each flush the grid copied into the image buffer on the card, transformed
 * there in place (cufftExecC2C / Z2Z) and the image copied to host memory.
 * Every CUDA and cuFFT call is checked; a failure prints it and exits 1.
 */
#include <cuda_runtime.h>
#include <cufft.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "stream_cufft.h"
#include "cuda_check.cuh"

namespace {

template <typename R>
__global__ void scatter(R *grid, const int64_t *cell, const R *val, int64_t n) {
    for (int64_t p = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; p < n;
         p += (int64_t)gridDim.x * blockDim.x) {
        atomicAdd(grid + 2 * cell[p], val[2 * p]);
        atomicAdd(grid + 2 * cell[p] + 1, val[2 * p + 1]);
    }
}

} // namespace

extern "C" double bench_stream_cufft(int prec, int64_t n, int64_t npts, const int64_t *cells,
                                     const void *vals, int64_t every, int sign, void *image,
                                     double *flush_s, int64_t *nflush) {
    size_t es = 2u * (size_t)prec, img = (size_t)(n * n) * es;
    const int64_t piece = (int64_t)1 << 20;
    void *grid, *dimg, *dcell, *dval, *hcell, *hval;
    cudaStream_t s;
    cufftHandle plan;
    cuda_ok(cudaStreamCreate(&s), "cudaStreamCreate");
    cuda_ok(cudaMalloc(&grid, img), "cudaMalloc (grid)");
    cuda_ok(cudaMalloc(&dimg, img), "cudaMalloc (image)");
    cuda_ok(cudaMalloc(&dcell, (size_t)piece * 8), "cudaMalloc (cells)");
    cuda_ok(cudaMalloc(&dval, (size_t)piece * es), "cudaMalloc (values)");
    cuda_ok(cudaMallocHost(&hcell, (size_t)piece * 8), "cudaMallocHost (cells)");
    cuda_ok(cudaMallocHost(&hval, (size_t)piece * es), "cudaMallocHost (values)");
    cuda_ok(cudaMemsetAsync(grid, 0, img, s), "cudaMemsetAsync");
    cufft_ok(cufftPlan2d(&plan, (int)n, (int)n, prec == 4 ? CUFFT_C2C : CUFFT_Z2Z), "cufftPlan2d");
    cufft_ok(cufftSetStream(plan, s), "cufftSetStream");
    cuda_ok(cudaStreamSynchronize(s), "cudaStreamSynchronize");
    int dir = sign < 0 ? CUFFT_FORWARD : CUFFT_INVERSE;
    if (every <= 0)
        every = npts;
    *nflush = 0;
    double t0 = now();
    for (int64_t p0 = 0; p0 < npts; p0 += every) {
        int64_t m = npts - p0 < every ? npts - p0 : every;
        for (int64_t q = 0; q < m; q += piece) {
            int64_t k = m - q < piece ? m - q : piece;
            memcpy(hcell, cells + p0 + q, (size_t)k * 8);
            memcpy(hval, (const char *)vals + (size_t)(p0 + q) * es, (size_t)k * es);
            cuda_ok(cudaMemcpyAsync(dcell, hcell, (size_t)k * 8, cudaMemcpyHostToDevice, s),
                    "cudaMemcpyAsync (cells)");
            cuda_ok(cudaMemcpyAsync(dval, hval, (size_t)k * es, cudaMemcpyHostToDevice, s),
                    "cudaMemcpyAsync (values)");
            unsigned blocks = (unsigned)((k + 255) / 256 < 65536 ? (k + 255) / 256 : 65536);
            if (prec == 4)
                scatter<float><<<blocks, 256, 0, s>>>((float *)grid, (const int64_t *)dcell,
                                                       (const float *)dval, k);
            else
                scatter<double><<<blocks, 256, 0, s>>>((double *)grid, (const int64_t *)dcell,
                                                        (const double *)dval, k);
            cuda_ok(cudaGetLastError(), "scatter kernel");
            cuda_ok(cudaStreamSynchronize(s), "cudaStreamSynchronize"); /* staging reused */
        }
        double f0 = now();
        cuda_ok(cudaMemcpyAsync(dimg, grid, img, cudaMemcpyDeviceToDevice, s), "cudaMemcpyAsync");
        if (prec == 4)
            cufft_ok(cufftExecC2C(plan, (cufftComplex *)dimg, (cufftComplex *)dimg, dir),
                     "cufftExecC2C");
        else
            cufft_ok(cufftExecZ2Z(plan, (cufftDoubleComplex *)dimg, (cufftDoubleComplex *)dimg,
                                  dir),
                     "cufftExecZ2Z");
        cuda_ok(cudaMemcpyAsync(image, dimg, img, cudaMemcpyDeviceToHost, s), "cudaMemcpyAsync");
        cuda_ok(cudaStreamSynchronize(s), "cudaStreamSynchronize");
        flush_s[(*nflush)++] = now() - f0;
    }
    double total = now() - t0;
    cufftDestroy(plan);
    cudaFree(grid);
    cudaFree(dimg);
    cudaFree(dcell);
    cudaFree(dval);
    cudaFreeHost(hcell);
    cudaFreeHost(hval);
    cudaStreamDestroy(s);
    return total;
}
