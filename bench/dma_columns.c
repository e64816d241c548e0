/*
 * dma_columns.c: hfft-dma-columns, a microbenchmark of the 2D strided round's
 * copies alone: an 8 GiB pinned 32768 x 32768 array of 8-byte elements streamed
 * column block by column block (pitched copies in and out, no FFT) through a few
 * device buffers, with slot streams or separate copy-in and copy-out streams;
 * the same with contiguous row blocks; with the array off a page or a cache
 * line.  `hfft-dma-columns work` puts device work (a memset) between each
 * pass's copy in and copy out, as the FFT sits in hfft's passes; `split` also
 * splits each copy by rows over several streams.  It separates the link from
 * the engine (bench/RESULTS.md).
 */
#include <cuda_runtime_api.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#define CK(x) do { cudaError_t e = (x); if (e) { printf("%s: %s\n", #x, cudaGetErrorString(e)); exit(1);} } while (0)
static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + 1e-9 * t.tv_nsec; }
enum { N = 32768, ES = 8 };
static char *A, *B;
static size_t OFF;  /* bytes the array starts past a page */
static size_t DPAD; /* bytes the device tile's pitch exceeds the row */
static int WORK;    /* device work between copy in and out: 1 on the slot stream, 2 on a compute stream */
static cudaEvent_t ework[8];
static void *buf[8]; static cudaStream_t st[8]; static cudaEvent_t ein[8], eout[8];
/* mode: 0 slot streams (h2d+d2h per stream), 1 in/out streams with events; dir: 3 both, 1 in only, 2 out only; other: d2h to B */
static double run(int K, int w, int mode, int dir, int other, int contig) {
    CK(cudaDeviceSynchronize()); double t0 = now(); int p = 0;
    size_t pitch = (size_t)N * ES, tile = contig ? (size_t)w * N * ES : (size_t)N * w * ES;
    for (int c0 = 0; c0 < N; c0 += w, p++) {
        int s = p % K; char *src = A + OFF + (contig ? (size_t)c0 * pitch : (size_t)c0 * ES);
        char *dst = (other ? B : A) + OFF + (contig ? (size_t)c0 * pitch : (size_t)c0 * ES);
        cudaStream_t qi = mode ? st[6] : st[s], qo = mode ? st[7] : st[s];
        if (mode && p >= K) CK(cudaStreamWaitEvent(qi, eout[s], 0));
        if (dir & 1) { if (contig) CK(cudaMemcpyAsync(buf[s], src, tile, cudaMemcpyHostToDevice, qi)); else CK(cudaMemcpy2DAsync(buf[s], w * ES + DPAD, src, pitch, w * ES, N, cudaMemcpyHostToDevice, qi)); }
        if (mode) { CK(cudaEventRecord(ein[s], qi)); CK(cudaStreamWaitEvent(qo, ein[s], 0)); }
        if (WORK == 1) CK(cudaMemsetAsync(buf[s], 0, tile, qi));
        if (WORK == 2) { CK(cudaEventRecord(ein[s], qi)); CK(cudaStreamWaitEvent(st[5], ein[s], 0)); CK(cudaMemsetAsync(buf[s], 0, tile, st[5]));
                         CK(cudaEventRecord(ework[s], st[5])); CK(cudaStreamWaitEvent(qo, ework[s], 0)); }
        if (dir & 2) { if (contig) CK(cudaMemcpyAsync(dst, buf[s], tile, cudaMemcpyDeviceToHost, qo)); else CK(cudaMemcpy2DAsync(dst, pitch, buf[s], w * ES + DPAD, w * ES, N, cudaMemcpyDeviceToHost, qo)); }
        if (mode) CK(cudaEventRecord(eout[s], qo));
    }
    CK(cudaDeviceSynchronize()); double t = now() - t0;
    double gbs = (double)N * N * ES / t / 1e9;
    printf("  %-8s K=%d w=%5d rows %6d B off %4zu pad %3zu work %d %-10s %-7s: %.4f s  %.1f GB/s per direction\n", contig ? "contig" : "2D", K, w, w * ES, OFF, DPAD, WORK,
           mode ? "in/out" : "slots", other ? "to B" : (dir == 3 ? "inplace" : dir == 1 ? "h2d" : "d2h"), t, gbs);
    return t;
}
/* Each pass's 2D copies split by rows into `parts` copies, each on its own copy
   stream (in and out apart), with device work on the slot stream between. */
static cudaStream_t cin[8], cout_[8];
static cudaEvent_t evin[8][8], evout[8][8], evfree[8], evwork[8];
static double run_split(int K, int w, int parts) {
    CK(cudaDeviceSynchronize()); double t0 = now(); int p = 0;
    size_t pitch = (size_t)N * ES, tile = (size_t)N * w * ES;
    int rows = N / parts;
    for (int c0 = 0; c0 < N; c0 += w, p++) {
        int s = p % K;
        char *src = A + (size_t)c0 * ES;
        for (int j = 0; j < parts; j++) {
            if (p >= K) CK(cudaStreamWaitEvent(cin[j], evfree[s], 0));
            CK(cudaMemcpy2DAsync((char *)buf[s] + (size_t)j * rows * w * ES, w * ES, src + (size_t)j * rows * pitch, pitch, w * ES, rows, cudaMemcpyHostToDevice, cin[j]));
            CK(cudaEventRecord(evin[s][j], cin[j]));
            CK(cudaStreamWaitEvent(st[s], evin[s][j], 0));
        }
        CK(cudaMemsetAsync(buf[s], 0, tile, st[s]));
        CK(cudaEventRecord(evwork[s], st[s]));
        for (int j = 0; j < parts; j++) {
            CK(cudaStreamWaitEvent(cout_[j], evwork[s], 0));
            CK(cudaMemcpy2DAsync(src + (size_t)j * rows * pitch, pitch, (char *)buf[s] + (size_t)j * rows * w * ES, w * ES, w * ES, rows, cudaMemcpyDeviceToHost, cout_[j]));
            CK(cudaEventRecord(evout[s][j], cout_[j]));
            CK(cudaStreamWaitEvent(st[s], evout[s][j], 0));
        }
        CK(cudaEventRecord(evfree[s], st[s]));
    }
    CK(cudaDeviceSynchronize()); double t = now() - t0;
    printf("  2D split K=%d w=%5d parts %d, work between: %.4f s  %.1f GB/s per direction\n", K, w, parts, t, (double)N * N * ES / t / 1e9);
    return t;
}

/* Host memory from mmap with transparent huge pages asked for, then registered. */
static char *huge_registered(size_t bytes) {
    char *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) { printf("mmap failed\n"); exit(1); }
    madvise(p, bytes, MADV_HUGEPAGE);
    memset(p, 1, bytes);
    CK(cudaHostRegister(p, bytes, cudaHostRegisterDefault));
    return p;
}
int main(int argc, char **argv) {
    size_t bytes = (size_t)N * N * ES;
    int work_only = argc > 1 && strcmp(argv[1], "work") == 0;
    CK(cudaMallocHost((void **)&A, bytes + (1 << 20))); CK(cudaMallocHost((void **)&B, bytes + (1 << 20)));
    memset(A, 1, bytes + (1 << 20)); memset(B, 2, bytes + (1 << 20));
    for (int i = 0; i < 8; i++) { CK(cudaMalloc(&buf[i], (size_t)N * 4096 * ES)); CK(cudaStreamCreateWithFlags(&st[i], cudaStreamNonBlocking));
        CK(cudaEventCreateWithFlags(&ein[i], cudaEventDisableTiming)); CK(cudaEventCreateWithFlags(&eout[i], cudaEventDisableTiming));
        CK(cudaEventCreateWithFlags(&ework[i], cudaEventDisableTiming)); }
    for (int i = 0; i < 8; i++) {
        CK(cudaStreamCreateWithFlags(&cin[i], cudaStreamNonBlocking)); CK(cudaStreamCreateWithFlags(&cout_[i], cudaStreamNonBlocking));
        CK(cudaEventCreateWithFlags(&evfree[i], cudaEventDisableTiming)); CK(cudaEventCreateWithFlags(&evwork[i], cudaEventDisableTiming));
        for (int j = 0; j < 8; j++) { CK(cudaEventCreateWithFlags(&evin[i][j], cudaEventDisableTiming)); CK(cudaEventCreateWithFlags(&evout[i][j], cudaEventDisableTiming)); }
    }
    if (argc > 1 && strcmp(argv[1], "split") == 0) {
        run_split(4, 1024, 1); run_split(4, 1024, 2); run_split(4, 1024, 4); run_split(4, 1024, 8);
        run_split(4, 512, 4); run_split(3, 2048, 4);
        return 0;
    }
    if (work_only) {
        /* Device work between the copies: which direction slows, whether the rows'
           width or host pages matter. */
        WORK = 1;
        run(4, 1024, 0, 3, 0, 0); run(4, 1024, 0, 1, 0, 0); run(4, 1024, 0, 2, 0, 0);
        run(4, 1024, 0, 3, 1, 0); run(3, 2048, 0, 3, 0, 0); run(2, 4096, 0, 3, 0, 0);
        run(8, 512, 0, 3, 0, 0);
        char *h = huge_registered(bytes + (1 << 20));
        char *keep = A; A = h;
        printf("  host memory from mmap, huge pages asked for, registered:\n");
        WORK = 0; run(4, 1024, 0, 3, 0, 0);
        WORK = 1; run(4, 1024, 0, 3, 0, 0); run(4, 1024, 0, 1, 0, 0);
        A = keep;
        return 0;
    }
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
    /* Off a page: 64 bytes (an allocation header), 3584 bytes (a pass edge at an odd column). */
    OFF = 64; run(4, 1024, 0, 3, 0, 0); run(4, 1024, 0, 3, 0, 1);
    OFF = 3584; run(4, 1024, 0, 3, 0, 0);
    OFF = 0; run(4, 64, 0, 3, 0, 0); run(4, 256, 0, 3, 0, 0);
    /* Rows that start and end inside a cache line: 966 columns (7728 bytes) at
       column 930, as an unaligned pass split makes them; the same rows padded
       on the device; and 896 columns (7 KiB) on a 1 KiB boundary. */
    OFF = 7440; run(4, 966, 0, 3, 0, 0);
    DPAD = 208; run(4, 966, 0, 3, 0, 0);
    DPAD = 0; OFF = 8; run(4, 1024, 0, 3, 0, 0);
    OFF = 1024; run(4, 896, 0, 3, 0, 0);
    OFF = 0; run(4, 896, 0, 3, 0, 0);
    /* Device work between the copies, as the engine's FFT: on the slot's stream,
       then on a stream of its own with events. */
    WORK = 1; run(4, 1024, 0, 3, 0, 0); run(4, 1024, 0, 3, 0, 1);
    WORK = 2; run(4, 1024, 0, 3, 0, 0); run(4, 1024, 0, 3, 0, 1);
    WORK = 0;
    return 0;
}
