/*
 * dma_kernels.cu: device work for hfft-dma-columns to put between a pass's
 * copy in and copy out: a spin that keeps every SM busy without touching
 * memory, and fills of the tile with ordinary or streaming (evict-first)
 * stores, to tell which property of the FFT's work slows the copies.
 */
#include <cuda_runtime.h>
#include <stdint.h>

namespace {

__global__ void spin_kernel(long long cycles) {
    long long t0 = clock64();
    while (clock64() - t0 < cycles) {
    }
}

__global__ void fill_kernel(float4 *p, size_t n, int streaming) {
    float4 v = make_float4(0.f, 0.f, 0.f, 0.f);
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x) {
        if (streaming)
            __stcs(p + i, v);
        else
            p[i] = v;
    }
}

} // namespace

extern "C" int dma_spin(void *stream, long long cycles, int blocks) {
    spin_kernel<<<blocks, 128, 0, (cudaStream_t)stream>>>(cycles);
    return (int)cudaGetLastError();
}

extern "C" int dma_fill(void *stream, void *p, size_t bytes, int streaming, int blocks) {
    fill_kernel<<<blocks, 256, 0, (cudaStream_t)stream>>>((float4 *)p, bytes / 16, streaming);
    return (int)cudaGetLastError();
}

/* ---- the column pass's compute, chunk by chunk through a small scratch ---- */

#include <cufft.h>

namespace {

constexpr int kT = 32, kR = 8;

/* dst[j * dp + i] = src[i * sp + j], i < rows, j < cols; `cs` bit 1: streaming
   loads of src, bit 2: streaming stores of dst. */
__global__ void transpose_kernel(float2 *dst, int64_t dp, const float2 *src, int64_t sp,
                                 int64_t rows, int64_t cols, int cs) {
    __shared__ float2 tile[kT][kT + 1];
    int64_t i0 = (int64_t)blockIdx.y * kT, j0 = (int64_t)blockIdx.x * kT;
    for (int k = threadIdx.y; k < kT; k += kR) {
        int64_t i = i0 + k, j = j0 + threadIdx.x;
        if (i < rows && j < cols)
            tile[k][threadIdx.x] = (cs & 1) ? __ldcs(src + i * sp + j) : src[i * sp + j];
    }
    __syncthreads();
    for (int k = threadIdx.y; k < kT; k += kR) {
        int64_t j = j0 + k, i = i0 + threadIdx.x;
        if (i < rows && j < cols) {
            if (cs & 2)
                __stcs(dst + j * dp + i, tile[threadIdx.x][k]);
            else
                dst[j * dp + i] = tile[threadIdx.x][k];
        }
    }
}

cufftHandle plan;
int64_t plan_L, plan_wc;

void transpose(cudaStream_t s, float2 *dst, int64_t dp, const float2 *src, int64_t sp,
               int64_t rows, int64_t cols, int cs) {
    dim3 grid((unsigned)((cols + kT - 1) / kT), (unsigned)((rows + kT - 1) / kT));
    transpose_kernel<<<grid, dim3(kT, kR), 0, s>>>(dst, dp, src, sp, rows, cols, cs);
}

} // namespace

/* The pass's L x cols tile (row pitch w) transformed along its columns, wc
   columns at a time through tb (wc x L).  hints: streaming accesses to the
   tile in the transposes. */
extern "C" int dma_fft_columns(void *stream, void *tile, int64_t L, int64_t w, int64_t cols,
                               void *tb, int64_t wc, int hints) {
    cudaStream_t s = (cudaStream_t)stream;
    if (plan_L != L || plan_wc != wc) {
        if (plan_L)
            cufftDestroy(plan);
        long long n = L;
        size_t work;
        if (cufftCreate(&plan) != CUFFT_SUCCESS ||
            cufftMakePlanMany64(plan, 1, &n, NULL, 1, L, NULL, 1, L, CUFFT_C2C, wc, &work) !=
                CUFFT_SUCCESS)
            return 1;
        plan_L = L;
        plan_wc = wc;
    }
    cufftSetStream(plan, s);
    float2 *t = (float2 *)tile, *b = (float2 *)tb;
    for (int64_t c = 0; c < cols; c += wc) {
        int64_t n = cols - c < wc ? cols - c : wc;
        transpose(s, b, L, t + c, w, L, n, hints ? 1 : 0);
        if (cufftExecC2C(plan, (cufftComplex *)b, (cufftComplex *)b, CUFFT_FORWARD) !=
            CUFFT_SUCCESS)
            return 2;
        transpose(s, t + c, w, b, L, n, L, hints ? 2 : 0);
    }
    return (int)cudaGetLastError();
}

/* cuFFT's strided transform straight on the tile (stride w, distance 1). */
extern "C" int dma_fft_strided(void *stream, void *tile, int64_t L, int64_t w) {
    static cufftHandle sp;
    static int64_t sp_w;
    if (sp_w != w) {
        if (sp_w)
            cufftDestroy(sp);
        long long n = L;
        size_t work;
        if (cufftCreate(&sp) != CUFFT_SUCCESS ||
            cufftMakePlanMany64(sp, 1, &n, &n, w, 1, &n, w, 1, CUFFT_C2C, w, &work) !=
                CUFFT_SUCCESS)
            return 1;
        sp_w = w;
    }
    cufftSetStream(sp, (cudaStream_t)stream);
    if (cufftExecC2C(sp, (cufftComplex *)tile, (cufftComplex *)tile, CUFFT_FORWARD) !=
        CUFFT_SUCCESS)
        return 2;
    return (int)cudaGetLastError();
}
