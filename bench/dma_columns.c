/*
 * dma_columns.c: hfft-dma-columns, a microbenchmark of the 2D strided round's
 * copies alone: an 8 GiB pinned 32768 x 32768 array of 8-byte elements streamed
 * column block by column block (pitched copies in and out, no FFT) through a few
 * device buffers, with slot streams or separate copy-in and copy-out streams;
 * and the same with contiguous row blocks.  It separates the link from the engine.
 */
#include <cuda_runtime_api.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#define CK(x) do { cudaError_t e = (x); if (e) { printf("%s: %s\n", #x, cudaGetErrorString(e)); exit(1);} } while (0)
static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + 1e-9 * t.tv_nsec; }
enum { N = 32768, ES = 8 };
static char *A, *B; static void *buf[8]; static cudaStream_t st[8]; static cudaEvent_t ein[8], eout[8];
/* mode: 0 slot streams (h2d+d2h per stream), 1 in/out streams with events; dir: 3 both, 1 in only, 2 out only; other: d2h to B */
static double run(int K, int w, int mode, int dir, int other, int contig) {
    CK(cudaDeviceSynchronize()); double t0 = now(); int p = 0;
    size_t pitch = (size_t)N * ES, tile = contig ? (size_t)w * N * ES : (size_t)N * w * ES;
    for (int c0 = 0; c0 < N; c0 += w, p++) {
        int s = p % K; char *src = contig ? A + (size_t)c0 * pitch : A + (size_t)c0 * ES;
        char *dst = (other ? B : A) + (contig ? (size_t)c0 * pitch : (size_t)c0 * ES);
        cudaStream_t qi = mode ? st[6] : st[s], qo = mode ? st[7] : st[s];
        if (mode && p >= K) CK(cudaStreamWaitEvent(qi, eout[s], 0));
        if (dir & 1) { if (contig) CK(cudaMemcpyAsync(buf[s], src, tile, cudaMemcpyHostToDevice, qi)); else CK(cudaMemcpy2DAsync(buf[s], w * ES, src, pitch, w * ES, N, cudaMemcpyHostToDevice, qi)); }
        if (mode) { CK(cudaEventRecord(ein[s], qi)); CK(cudaStreamWaitEvent(qo, ein[s], 0)); }
        if (dir & 2) { if (contig) CK(cudaMemcpyAsync(dst, buf[s], tile, cudaMemcpyDeviceToHost, qo)); else CK(cudaMemcpy2DAsync(dst, pitch, buf[s], w * ES, w * ES, N, cudaMemcpyDeviceToHost, qo)); }
        if (mode) CK(cudaEventRecord(eout[s], qo));
    }
    CK(cudaDeviceSynchronize()); double t = now() - t0;
    double gbs = (double)N * N * ES / t / 1e9;
    printf("  %-8s K=%d w=%5d rows %6d B %-10s %-7s: %.4f s  %.1f GB/s per direction\n", contig ? "contig" : "2D", K, w, w * ES,
           mode ? "in/out" : "slots", other ? "to B" : (dir == 3 ? "inplace" : dir == 1 ? "h2d" : "d2h"), t, gbs);
    return t;
}
int main(void) {
    size_t bytes = (size_t)N * N * ES;
    CK(cudaMallocHost((void **)&A, bytes)); CK(cudaMallocHost((void **)&B, bytes));
    memset(A, 1, bytes); memset(B, 2, bytes);
    for (int i = 0; i < 8; i++) { CK(cudaMalloc(&buf[i], (size_t)N * 2048 * ES)); CK(cudaStreamCreateWithFlags(&st[i], cudaStreamNonBlocking));
        CK(cudaEventCreateWithFlags(&ein[i], cudaEventDisableTiming)); CK(cudaEventCreateWithFlags(&eout[i], cudaEventDisableTiming)); }
    run(4, 1024, 0, 3, 0, 0);
    run(4, 1024, 0, 3, 0, 0);
    run(6, 1024, 0, 3, 0, 0);
    run(3, 2048, 0, 3, 0, 0);
    run(4, 1024, 1, 3, 0, 0);
    run(4, 2048, 1, 3, 0, 0);
    run(4, 1024, 0, 3, 1, 0);
    run(4, 1024, 0, 1, 0, 0);
    run(4, 1024, 0, 2, 0, 0);
    run(4, 512, 0, 3, 0, 0);
    run(4, 1024, 0, 3, 0, 1);
    run(4, 1024, 1, 3, 0, 1);
    return 0;
}
