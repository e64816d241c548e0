/*
 * dma_columns.c: hfft-dma-columns, a microbenchmark of the 2D column round's
 * copies alone.  An 8 GiB 32768 x 32768 array of 8-byte elements is streamed
 * column block by column block (pitched copies in and out, no FFT) through a
 * few device buffers.  Each argument is one case, tokens joined by ':':
 *
 *   pinned|thp|nothp|vmm   host memory: cudaMallocHost; mmap with transparent
 *                      huge pages asked for, then cudaHostRegister; mmap with
 *                      them refused, then registered; host memory from the
 *                      virtual memory API (cuMemCreate on the host NUMA node,
 *                      mapped for the GPU in its allocation granularity)
 *                                                               (default pinned)
 *   wN                 columns per pass (N * 8 bytes per row)   (default 1024)
 *   kN                 device buffers                           (default 4)
 *   none|event|tiny|memset|spin|fill|fillcs   between a pass's copy in and
 *                      copy out: nothing, a dependency through another stream,
 *                      a 256-byte memset, a memset of the whole tile, every SM
 *                      spinning for 0.5 ms without touching memory, the tile
 *                      written by a kernel with ordinary or streaming stores
 *                                                               (default none)
 *   mN                 memset only the tile's first N MiB
 *   apw                the slot streams' L2 access policy: the buffers streaming
 *   both|in|out        directions copied                        (default both)
 *   slots|roll|gate    each pass on its buffer's stream; or one copy-in and one
 *                      copy-out stream, the copy in of a pass chunk by chunk
 *                      behind the copy out of the buffer's last pass; or gated:
 *                      the copy in of pass p and out of p-2 together, then the
 *                      work of p-1 alone (3 buffers)            (default slots)
 *   cN                 chunks per pass for roll                 (default 8)
 *   contig             contiguous row blocks of the same bytes instead
 *
 * It separates what the link does from what the engine's schedule does
 * (bench/RESULTS.md).
 */
#define _GNU_SOURCE
#include <cuda.h>
#include <cuda_runtime_api.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#define CK(x)                                                                     \
    do {                                                                          \
        cudaError_t e_ = (x);                                                     \
        if (e_) {                                                                 \
            printf("%s: %s\n", #x, cudaGetErrorString(e_));                       \
            exit(1);                                                              \
        }                                                                         \
    } while (0)

enum { N = 32768, ES = 8, MAXK = 8, MAXC = 64 };
enum { MEM_PINNED, MEM_THP, MEM_NOTHP, MEM_VMM, MEM_KINDS };
enum {
    DEP_NONE, DEP_EVENT, DEP_TINY, DEP_MEMSET, DEP_SPIN, DEP_FILL, DEP_FILLCS,
    DEP_FFTT, DEP_FFTTCS, DEP_FFTTP, DEP_FFTS, DEP_KINDS
};
enum { S_SLOTS, S_ROLL, S_GATE };
static const char *const mem_name[] = {"pinned", "thp", "nothp", "vmm"};
static const char *const dep_name[] = {"none",   "event", "tiny",  "memset", "spin", "fill",
                                       "fillcs", "fftT",  "fftTcs", "fftTp", "fftS"};

int dma_spin(void *stream, long long cycles, int blocks);
int dma_fill(void *stream, void *p, size_t bytes, int streaming, int blocks);
int dma_fft_columns(void *stream, void *tile, int64_t L, int64_t w, int64_t cols, void *tb,
                    int64_t wc, int hints);
int dma_fft_strided(void *stream, void *tile, int64_t L, int64_t w);

typedef struct kase {
    int mem, w, k, dep, dir, sched, chunks, contig, msize, apw, wc;
} kase;
static void *tb[MAXK];
enum { MAX_WC = 512 };
static int sms;

static const size_t BYTES = (size_t)N * N * ES;
static char *host[MEM_KINDS];
static void *buf[MAXK];
static size_t buf_bytes;
static cudaStream_t st[MAXK], qin, qout, qside;
static cudaStream_t qwork;
static cudaEvent_t ev_side[MAXK], ev_in[MAXK], ev_done[MAXK], ev_out[MAXK][MAXC];
static cudaEvent_t ev_gi, ev_go, ev_gw;

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static long anon_huge_kb(void) {
    FILE *f = fopen("/proc/self/smaps_rollup", "r");
    char line[256];
    long kb = -1;
    while (f && fgets(line, sizeof line, f))
        if (sscanf(line, "AnonHugePages: %ld kB", &kb) == 1)
            break;
    if (f)
        fclose(f);
    return kb;
}

static char *host_array(int mem) {
    if (host[mem])
        return host[mem];
    double t0 = now();
    char *p;
    if (mem == MEM_PINNED) {
        CK(cudaMallocHost((void **)&p, BYTES));
        memset(p, 1, BYTES);
    } else if (mem == MEM_VMM) {
        CUmemAllocationProp prop = {0};
        prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
        prop.location.type = CU_MEM_LOCATION_TYPE_HOST_NUMA;
        prop.location.id = 0;
        size_t gran = 0;
        CUmemGenericAllocationHandle h;
        CUdeviceptr va;
        CUresult r = cuMemGetAllocationGranularity(&gran, &prop, CU_MEM_ALLOC_GRANULARITY_RECOMMENDED);
        if (r == CUDA_SUCCESS)
            r = cuMemCreate(&h, BYTES, &prop, 0);
        if (r == CUDA_SUCCESS)
            r = cuMemAddressReserve(&va, BYTES, gran, 0, 0);
        if (r == CUDA_SUCCESS)
            r = cuMemMap(va, BYTES, 0, h, 0);
        CUmemAccessDesc acc[2] = {{{CU_MEM_LOCATION_TYPE_DEVICE, 0}, CU_MEM_ACCESS_FLAGS_PROT_READWRITE},
                                  {{CU_MEM_LOCATION_TYPE_HOST_NUMA, 0}, CU_MEM_ACCESS_FLAGS_PROT_READWRITE}};
        if (r == CUDA_SUCCESS)
            r = cuMemSetAccess(va, BYTES, acc, 2);
        if (r != CUDA_SUCCESS) {
            const char *m = "?";
            cuGetErrorString(r, &m);
            printf("  vmm host memory failed: %s (granularity %zu)\n", m, gran);
            exit(1);
        }
        p = (char *)(uintptr_t)va;
        memset(p, 1, BYTES);
        printf("  vmm: granularity %zu bytes\n", gran);
    } else {
        long before = anon_huge_kb();
        p = mmap(NULL, BYTES, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (p == MAP_FAILED) {
            printf("mmap of %zu bytes failed\n", BYTES);
            exit(1);
        }
        if (madvise(p, BYTES, mem == MEM_THP ? MADV_HUGEPAGE : MADV_NOHUGEPAGE) != 0)
            printf("  madvise failed\n");
        memset(p, 1, BYTES);
        double t1 = now();
        CK(cudaHostRegister(p, BYTES, cudaHostRegisterDefault));
        printf("  %s: AnonHugePages grew by %ld MiB; cudaHostRegister %.3f s\n", mem_name[mem],
               (anon_huge_kb() - before) / 1024, now() - t1);
    }
    printf("  %s: 8 GiB ready in %.2f s\n", mem_name[mem], now() - t0);
    host[mem] = p;
    return p;
}

static int parse(const char *text, kase *c) {
    *c = (kase){MEM_PINNED, 1024, 4, DEP_NONE, 3, S_SLOTS, 8, 0, 0, 0, 128};
    char tmp[256];
    snprintf(tmp, sizeof tmp, "%s", text);
    for (char *save, *t = strtok_r(tmp, ":", &save); t; t = strtok_r(NULL, ":", &save)) {
        int found = 0;
        for (int i = 0; i < MEM_KINDS; i++)
            if (strcmp(t, mem_name[i]) == 0)
                c->mem = i, found = 1;
        for (int i = 0; i < DEP_KINDS; i++)
            if (strcmp(t, dep_name[i]) == 0)
                c->dep = i, found = 1;
        if (found)
            continue;
        if (t[0] == 'w' && t[1] == 'c')
            c->wc = atoi(t + 2);
        else if (t[0] == 'w')
            c->w = atoi(t + 1);
        else if (t[0] == 'k')
            c->k = atoi(t + 1);
        else if (t[0] == 'c' && strcmp(t, "contig") != 0)
            c->chunks = atoi(t + 1);
        else if (t[0] == 'm' && t[1] >= '0' && t[1] <= '9')
            c->dep = DEP_MEMSET, c->msize = atoi(t + 1);
        else if (strcmp(t, "apw") == 0)
            c->apw = 1;
        else if (strcmp(t, "contig") == 0)
            c->contig = 1;
        else if (strcmp(t, "both") == 0)
            c->dir = 3;
        else if (strcmp(t, "in") == 0)
            c->dir = 1;
        else if (strcmp(t, "out") == 0)
            c->dir = 2;
        else if (strcmp(t, "slots") == 0)
            c->sched = S_SLOTS;
        else if (strcmp(t, "roll") == 0)
            c->sched = S_ROLL;
        else if (strcmp(t, "gate") == 0)
            c->sched = S_GATE, c->k = 3;
        else
            return -1;
    }
    if (c->w < 1 || c->w > N || c->wc < 1 || c->wc > MAX_WC || c->k < 1 || c->k > MAXK || c->chunks < 1 || c->chunks > MAXC ||
        (size_t)c->w * N * ES > buf_bytes)
        return -1;
    return 0;
}

/* Rows [r0, r0 + rows) of the pass's tile, in or out. */
static void copy(const kase *c, char *a, int s, int c0, int r0, int rows, int in, cudaStream_t q) {
    size_t pitch = (size_t)N * ES, row = (size_t)c->w * ES;
    size_t width = (size_t)(N - c0 < c->w ? N - c0 : c->w) * ES;
    char *d = (char *)buf[s] + (size_t)r0 * row;
    if (c->contig) {
        /* the same bytes as a contiguous block of whole rows */
        char *h = a + (size_t)c0 * pitch + (size_t)r0 * width;
        if (in)
            CK(cudaMemcpyAsync(d, h, (size_t)rows * width, cudaMemcpyHostToDevice, q));
        else
            CK(cudaMemcpyAsync(h, d, (size_t)rows * width, cudaMemcpyDeviceToHost, q));
        return;
    }
    char *h = a + (size_t)r0 * pitch + (size_t)c0 * ES;
    if (in)
        CK(cudaMemcpy2DAsync(d, row, h, pitch, width, rows, cudaMemcpyHostToDevice, q));
    else
        CK(cudaMemcpy2DAsync(h, pitch, d, row, width, rows, cudaMemcpyDeviceToHost, q));
}

static void between(const kase *c, int s, int cols, cudaStream_t q) {
    size_t tile = (size_t)c->w * N * ES;
    if (c->dep >= DEP_FFTT && c->dep <= DEP_FFTTP) {
        CK((cudaError_t)dma_fft_columns(q, buf[s], N, c->w, cols, tb[s], c->wc, c->dep != DEP_FFTT));
        return;
    }
    if (c->dep == DEP_FFTS) {
        CK((cudaError_t)dma_fft_strided(q, buf[s], N, c->w));
        return;
    }
    if (c->dep == DEP_EVENT) {
        CK(cudaEventRecord(ev_in[s], q));
        CK(cudaStreamWaitEvent(qside, ev_in[s], 0));
        CK(cudaEventRecord(ev_side[s], qside));
        CK(cudaStreamWaitEvent(q, ev_side[s], 0));
    } else if (c->dep == DEP_TINY) {
        CK(cudaMemsetAsync(buf[s], 0, 256, q));
    } else if (c->dep == DEP_MEMSET) {
        size_t b = c->msize ? (size_t)c->msize << 20 : tile;
        CK(cudaMemsetAsync(buf[s], 0, b < tile ? b : tile, q));
    } else if (c->dep == DEP_SPIN) {
        CK((cudaError_t)dma_spin(q, 900000, 4 * sms)); /* about 0.5 ms at 1.8-2 GHz */
    } else if (c->dep == DEP_FILL || c->dep == DEP_FILLCS) {
        CK((cudaError_t)dma_fill(q, buf[s], tile, c->dep == DEP_FILLCS, 8 * sms));
    }
}

static void access_policy(const kase *c) {
    size_t tbb = (size_t)c->wc * N * ES;
    CK(cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, c->dep == DEP_FFTTP ? tbb : 0));
    for (int i = 0; i < MAXK; i++) {
        cudaStreamAttrValue v;
        memset(&v, 0, sizeof v);
        if (c->dep == DEP_FFTTCS || c->dep == DEP_FFTTP) {
            v.accessPolicyWindow.base_ptr = tb[i];
            v.accessPolicyWindow.num_bytes = tbb;
            v.accessPolicyWindow.hitRatio = 1.0f;
            v.accessPolicyWindow.hitProp =
                c->dep == DEP_FFTTP ? cudaAccessPropertyPersisting : cudaAccessPropertyStreaming;
            v.accessPolicyWindow.missProp = cudaAccessPropertyStreaming;
        } else if (c->apw) {
            v.accessPolicyWindow.base_ptr = buf[i];
            v.accessPolicyWindow.num_bytes = (size_t)c->w * N * ES;
            int most = 0;
            cudaDeviceGetAttribute(&most, cudaDevAttrMaxAccessPolicyWindowSize, 0);
            if (v.accessPolicyWindow.num_bytes > (size_t)most)
                v.accessPolicyWindow.num_bytes = (size_t)most;
            v.accessPolicyWindow.hitRatio = 1.0f;
            v.accessPolicyWindow.hitProp = cudaAccessPropertyStreaming;
            v.accessPolicyWindow.missProp = cudaAccessPropertyStreaming;
        }
        CK(cudaStreamSetAttribute(st[i], cudaStreamAttributeAccessPolicyWindow, &v));
        if (i == 0)
            CK(cudaStreamSetAttribute(qwork, cudaStreamAttributeAccessPolicyWindow, &v));
    }
}

/* Gated: the copy in of pass p and out of p - 2 run together, then the work of
   p - 1 alone; the next pair waits for it. */
static int pass_cols(const kase *c, int p) { return N - p * c->w < c->w ? N - p * c->w : c->w; }

static void run_gate(const kase *c, char *a) {
    int passes = (N + c->w - 1) / c->w;
    for (int p = 0; p < passes + 2; p++) {
        if (p < passes) {
            if (p >= 2)
                CK(cudaStreamWaitEvent(qin, ev_gw, 0));
            copy(c, a, p % 3, p * c->w, 0, N, 1, qin);
        }
        CK(cudaEventRecord(ev_gi, qin));
        if (p >= 2) {
            CK(cudaStreamWaitEvent(qout, ev_gw, 0));
            copy(c, a, (p - 2) % 3, (p - 2) * c->w, 0, N, 0, qout);
        }
        CK(cudaEventRecord(ev_go, qout));
        if (p >= 1 && p - 1 < passes) {
            CK(cudaStreamWaitEvent(qwork, ev_gi, 0));
            CK(cudaStreamWaitEvent(qwork, ev_go, 0));
            between(c, (p - 1) % 3, pass_cols(c, p - 1), qwork);
            CK(cudaEventRecord(ev_gw, qwork));
        }
    }
}

static double run(const kase *c) {
    char *a = host_array(c->mem);
    access_policy(c);
    CK(cudaDeviceSynchronize());
    double t0 = now();
    int passes = (N + c->w - 1) / c->w;
    if (c->sched == S_GATE)
        run_gate(c, a);
    for (int p = 0; p < passes && c->sched != S_GATE; p++) {
        int s = p % c->k, c0 = p * c->w;
        if (c->sched == S_SLOTS) {
            if (c->dir & 1)
                copy(c, a, s, c0, 0, N, 1, st[s]);
            between(c, s, pass_cols(c, p), st[s]);
            if (c->dir & 2)
                copy(c, a, s, c0, 0, N, 0, st[s]);
            continue;
        }
        int rows = N / c->chunks;
        for (int j = 0; j < c->chunks; j++) {
            if (p >= c->k && (c->dir & 2))
                CK(cudaStreamWaitEvent(qin, ev_out[s][j], 0));
            if (c->dir & 1)
                copy(c, a, s, c0, j * rows, rows, 1, qin);
        }
        CK(cudaEventRecord(ev_done[s], qin));
        CK(cudaStreamWaitEvent(st[s], ev_done[s], 0));
        between(c, s, pass_cols(c, p), st[s]);
        CK(cudaEventRecord(ev_done[s], st[s]));
        CK(cudaStreamWaitEvent(qout, ev_done[s], 0));
        for (int j = 0; j < c->chunks && (c->dir & 2); j++) {
            copy(c, a, s, c0, j * rows, rows, 0, qout);
            CK(cudaEventRecord(ev_out[s][j], qout));
        }
    }
    CK(cudaDeviceSynchronize());
    return now() - t0;
}

int main(int argc, char **argv) {
    if (argc < 2) {
        printf("usage: hfft-dma-columns CASE... (see the file's head)\n");
        return 2;
    }
    buf_bytes = (size_t)8192 * N * ES; /* 2 GiB: up to 8192 columns per pass */
    for (int i = 0; i < MAXK; i++) {
        CK(cudaMalloc(&buf[i], buf_bytes));
        CK(cudaMalloc(&tb[i], (size_t)MAX_WC * N * ES));
        CK(cudaStreamCreateWithFlags(&st[i], cudaStreamNonBlocking));
        CK(cudaEventCreateWithFlags(&ev_side[i], cudaEventDisableTiming));
        CK(cudaEventCreateWithFlags(&ev_in[i], cudaEventDisableTiming));
        CK(cudaEventCreateWithFlags(&ev_done[i], cudaEventDisableTiming));
        for (int j = 0; j < MAXC; j++)
            CK(cudaEventCreateWithFlags(&ev_out[i][j], cudaEventDisableTiming));
    }
    CK(cudaStreamCreateWithFlags(&qin, cudaStreamNonBlocking));
    CK(cudaStreamCreateWithFlags(&qout, cudaStreamNonBlocking));
    CK(cudaStreamCreateWithFlags(&qside, cudaStreamNonBlocking));
    CK(cudaStreamCreateWithFlags(&qwork, cudaStreamNonBlocking));
    CK(cudaEventCreateWithFlags(&ev_gi, cudaEventDisableTiming));
    CK(cudaEventCreateWithFlags(&ev_go, cudaEventDisableTiming));
    CK(cudaEventCreateWithFlags(&ev_gw, cudaEventDisableTiming));
    CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    {
        int vmm = 0, l2 = 0, win = 0;
        CUdevice dev;
        cuInit(0);
        cuDeviceGet(&dev, 0);
        cuDeviceGetAttribute(&vmm, CU_DEVICE_ATTRIBUTE_HOST_NUMA_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED, dev);
        cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, 0);
        cudaDeviceGetAttribute(&win, cudaDevAttrMaxAccessPolicyWindowSize, 0);
        printf("SMs %d, L2 %d MiB, access policy window up to %d MiB, host NUMA VMM %d\n", sms,
               l2 >> 20, win >> 20, vmm);
    }
    printf("%-44s %9s %9s  %s\n", "case", "time s", "again s", "GB/s per direction (best)");
    for (int i = 1; i < argc; i++) {
        kase c;
        if (parse(argv[i], &c)) {
            printf("%s: not a case\n", argv[i]);
            return 2;
        }
        host_array(c.mem);
        double t1 = run(&c), t2 = run(&c), t = t1 < t2 ? t1 : t2;
        printf("%-44s %9.4f %9.4f  %.1f\n", argv[i], t1, t2, (double)BYTES / t / 1e9);
        fflush(stdout);
    }
    return 0;
}
