/*
 * cuda_baselines.c: what hfft-bench measures on the GPU without hfft: the
 * link bandwidth with pinned buffers (each direction alone, then both at once
 * on two streams), and cuFFT on the whole array, in card and as a plain
 * copy-transform-copy.  C against the CUDA runtime and cuFFT; no kernels.
 */
#include "cuda_baselines.h"

#include <cuda_runtime.h>
#include <cufft.h>
#include <cufftXt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../gpu/cufft_text.h"

static void die_cuda(cudaError_t e, const char *call, int line) {
    fprintf(stderr, "hfft-bench: %s failed: %s (%s) [cuda_baselines.c:%d]\n", call,
            cudaGetErrorString(e), cudaGetErrorName(e), line);
    exit(1);
}

static void die_cufft(cufftResult r, const char *call, int line) {
    fprintf(stderr, "hfft-bench: %s failed: %s (cufftResult %d) [cuda_baselines.c:%d]\n", call,
            hfft_cufft_text(r), (int)r, line);
    exit(1);
}

#define CK(call)                           \
    do {                                   \
        cudaError_t e_ = (call);           \
        if (e_ != cudaSuccess)             \
            die_cuda(e_, #call, __LINE__); \
    } while (0)
#define CKF(call)                           \
    do {                                    \
        cufftResult r_ = (call);            \
        if (r_ != CUFFT_SUCCESS)            \
            die_cufft(r_, #call, __LINE__); \
    } while (0)

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n) {
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

int bench_gpu_probe(bench_gpu *g) {
    memset(g, 0, sizeof *g);
    int count = 0;
    cudaError_t e = cudaGetDeviceCount(&count);
    if (e != cudaSuccess || count < 1) {
        snprintf(g->name, sizeof g->name, "no GPU (cudaGetDeviceCount: %s)",
                 e != cudaSuccess ? cudaGetErrorString(e) : "no CUDA device");
        cudaGetLastError(); /* a missing driver is an answer here, not an error to keep */
        return 0;
    }
    int dev = 0;
    CK(cudaGetDevice(&dev));
    struct cudaDeviceProp prop;
    CK(cudaGetDeviceProperties(&prop, dev));
    snprintf(g->name, sizeof g->name, "%s", prop.name);
    CK(cudaMemGetInfo(&g->free_bytes, &g->total_bytes));
    g->present = 1;
    return 1;
}

int bench_cuda_host_pinned(const void *p) {
    struct cudaPointerAttributes a;
    cudaError_t e = cudaPointerGetAttributes(&a, p);
    if (e != cudaSuccess) {
        cudaGetLastError();
        return 0;
    }
    return a.type == cudaMemoryTypeHost;
}

/* `bytes` copied as back-to-back chunks of `chunk` bytes, on stream s. */
static void chunks(void *dst, const void *src, size_t bytes, size_t chunk,
                   enum cudaMemcpyKind kind, cudaStream_t s) {
    for (size_t at = 0; at < bytes; at += chunk) {
        size_t n = bytes - at < chunk ? bytes - at : chunk;
        CK(cudaMemcpyAsync((char *)dst + at, (const char *)src + at, n, kind, s));
    }
}

/* Host wall time from before issuing to after every card finished: copies on
   several cards cannot share one event timeline. */
static void sync_cards(const int *cards, int n) {
    for (int k = 0; k < n; k++) {
        CK(cudaSetDevice(cards[k]));
        CK(cudaDeviceSynchronize());
    }
}

void bench_link_measure(size_t bytes, size_t chunk, int reps, const int *cards, int n,
                        bench_link *l) {
    memset(l, 0, sizeof *l);
    enum { MAXC = 16 };
    void *h[MAXC][2], *d[MAXC][2];
    cudaStream_t s[MAXC][2];
    for (int k = 0; k < n; k++) {
        CK(cudaSetDevice(cards[k]));
        for (int i = 0; i < 2; i++) {
            CK(cudaHostAlloc(&h[k][i], bytes, cudaHostAllocPortable));
            CK(cudaMalloc(&d[k][i], bytes));
            memset(h[k][i], i + 1, bytes);
            CK(cudaMemset(d[k][i], 0, bytes));
            CK(cudaStreamCreateWithFlags(&s[k][i], cudaStreamNonBlocking));
        }
    }
    double *t = calloc(3 * (size_t)reps, sizeof *t);
    if (!t) {
        fprintf(stderr, "hfft-bench: out of memory\n");
        exit(1);
    }
    /* One untimed round of each first: the first copies pay for mappings.  Then each
       direction alone on every card at once, then both directions. */
    for (int r = -1; r < reps; r++) {
        for (int dir = 0; dir < 3; dir++) {
            sync_cards(cards, n);
            double t0 = now();
            for (int k = 0; k < n; k++) {
                CK(cudaSetDevice(cards[k]));
                if (dir != 1)
                    chunks(d[k][0], h[k][0], bytes, chunk, cudaMemcpyHostToDevice, s[k][0]);
                if (dir != 0)
                    chunks(h[k][1], d[k][1], bytes, chunk, cudaMemcpyDeviceToHost, s[k][1]);
            }
            sync_cards(cards, n);
            if (r >= 0)
                t[dir * reps + r] = now() - t0;
        }
    }
    double th = median(t, reps), td = median(t + reps, reps), tb = median(t + 2 * reps, reps);
    double all = (double)bytes * n;
    l->measured = 1;
    l->bytes = bytes;
    l->reps = reps;
    l->cards = n;
    l->h2d = all / th;
    l->d2h = all / td;
    l->duplex_h2d = all / tb;
    l->duplex_d2h = all / tb;
    free(t);
    for (int k = 0; k < n; k++) {
        CK(cudaSetDevice(cards[k]));
        for (int i = 0; i < 2; i++) {
            CK(cudaStreamDestroy(s[k][i]));
            CK(cudaFreeHost(h[k][i]));
            CK(cudaFree(d[k][i]));
        }
    }
    CK(cudaSetDevice(cards[0]));
}

void bench_link_on(void *host, size_t bytes, size_t chunk, double *in_s, double *out_s,
                   double *both_in_s, double *both_out_s) {
    enum { RING = 8 };
    char *ring;
    cudaStream_t s[2];
    cudaEvent_t ev[3];
    CK(cudaMalloc((void **)&ring, RING * chunk));
    for (int i = 0; i < 2; i++)
        CK(cudaStreamCreateWithFlags(&s[i], cudaStreamNonBlocking));
    for (int i = 0; i < 3; i++)
        CK(cudaEventCreate(&ev[i]));
    double t[4] = {0, 0, 0, 0};
    /* dir 0: in alone, 1: out alone, 2: both (out into the array's other half) */
    for (int dir = 0; dir < 3; dir++) {
        CK(cudaDeviceSynchronize());
        CK(cudaEventRecord(ev[0], s[0]));
        CK(cudaStreamWaitEvent(s[1], ev[0], 0));
        size_t i = 0;
        for (size_t at = 0; at < bytes; at += chunk, i++) {
            size_t n = bytes - at < chunk ? bytes - at : chunk;
            char *slot = ring + (i % RING) * chunk;
            if (dir != 1)
                CK(cudaMemcpyAsync(slot, (char *)host + at, n, cudaMemcpyHostToDevice, s[0]));
            if (dir != 0) {
                size_t to = dir == 2 ? (at + bytes / 2) % bytes : at;
                n = bytes - to < n ? bytes - to : n;
                CK(cudaMemcpyAsync((char *)host + to, slot, n, cudaMemcpyDeviceToHost, s[1]));
            }
        }
        CK(cudaEventRecord(ev[1], s[0]));
        CK(cudaEventRecord(ev[2], s[1]));
        CK(cudaDeviceSynchronize());
        float a = 0, b = 0;
        CK(cudaEventElapsedTime(&a, ev[0], ev[1]));
        CK(cudaEventElapsedTime(&b, ev[0], ev[2]));
        if (dir == 0)
            t[0] = a / 1e3;
        else if (dir == 1)
            t[1] = b / 1e3;
        else {
            t[2] = a / 1e3;
            t[3] = b / 1e3;
        }
    }
    *in_s = t[0];
    *out_s = t[1];
    *both_in_s = t[2];
    *both_out_s = t[3];
    for (int i = 0; i < 3; i++)
        CK(cudaEventDestroy(ev[i]));
    for (int i = 0; i < 2; i++)
        CK(cudaStreamDestroy(s[i]));
    CK(cudaFree(ring));
}

int bench_gpu_count(void) {
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess) {
        cudaGetLastError();
        return 0;
    }
    return n;
}

/* ---- cuFFTXt: one C2C/Z2Z plan over several cards, as its documentation shows ---- */

struct bench_cufftxt {
    int prec;
    size_t bytes;
    cufftHandle plan;
    cudaLibXtDesc *desc;
};

int bench_cufftxt_open(int prec, int rank, const int64_t *n, const int *cards, int ncards,
                       bench_cufftxt **out, double *plan_s, char *note, size_t note_len) {
    *out = NULL;
    if (rank < 2 || rank > 3) {
        snprintf(note, note_len, "cuFFTXt baseline: 2D and 3D only");
        return 1;
    }
    bench_cufftxt *c = calloc(1, sizeof *c);
    if (!c) {
        fprintf(stderr, "hfft-bench: out of memory\n");
        exit(1);
    }
    c->prec = prec;
    c->bytes = 2 * (size_t)prec;
    for (int k = 0; k < rank; k++)
        c->bytes *= (size_t)n[k];
    double t0 = now();
    CKF(cufftCreate(&c->plan));
    int ids[16];
    for (int k = 0; k < ncards && k < 16; k++)
        ids[k] = cards[k];
    CKF(cufftXtSetGPUs(c->plan, ncards, ids));
    size_t ws[16];
    cufftResult r = rank == 2 ? cufftMakePlan2d(c->plan, (int)n[0], (int)n[1],
                                                prec == 4 ? CUFFT_C2C : CUFFT_Z2Z, ws)
                              : cufftMakePlan3d(c->plan, (int)n[0], (int)n[1], (int)n[2],
                                                prec == 4 ? CUFFT_C2C : CUFFT_Z2Z, ws);
    if (r == CUFFT_SUCCESS)
        r = cufftXtMalloc(c->plan, &c->desc, CUFFT_XT_FORMAT_INPLACE);
    *plan_s = now() - t0;
    if (r != CUFFT_SUCCESS) {
        snprintf(note, note_len, "cuFFTXt cannot take it on %d cards: %s", ncards,
                 hfft_cufft_text(r));
        if (c->desc)
            cufftXtFree(c->desc);
        cufftDestroy(c->plan);
        free(c);
        return 1;
    }
    size_t work = 0;
    for (int k = 0; k < ncards; k++)
        work += ws[k];
    snprintf(note, note_len, "%d cards, work %.2f GiB in all", ncards, work / 1073741824.0);
    *out = c;
    return 0;
}

/* Copy in, execute, copy out, timed end to end (host clock: several cards); natural
   order in host memory at both ends (cufftXtMemcpy undoes the shuffle). */
void bench_cufftxt_run(bench_cufftxt *c, void *a, void *b, int reps, double *times) {
    for (int r = -1; r < reps; r++) {
        double t0 = now();
        CKF(cufftXtMemcpy(c->plan, c->desc, a, CUFFT_COPY_HOST_TO_DEVICE));
        CKF(cufftXtExecDescriptor(c->plan, c->desc, c->desc, CUFFT_FORWARD));
        CKF(cufftXtMemcpy(c->plan, b, c->desc, CUFFT_COPY_DEVICE_TO_HOST));
        if (r >= 0)
            times[r] = now() - t0;
    }
}

void bench_cufftxt_close(bench_cufftxt *c) {
    if (!c)
        return;
    CKF(cufftXtFree(c->desc));
    CKF(cufftDestroy(c->plan));
    free(c);
}

struct bench_cufft {
    int prec, kind;
    size_t in_bytes, out_bytes;
    cufftHandle plan;
    void *d, *dout, *work; /* dout: the R2C output (C2C runs in place in d) */
    cudaStream_t s;
    cudaEvent_t e0, e1;
};

static const size_t MARGIN = (size_t)64 << 20; /* context growth, cuFFT's own tables */

int bench_cufft_open(int prec, int kind, int rank, const int64_t *n, int64_t howmany,
                     bench_cufft **out, double *plan_s, char *note, size_t note_len) {
    *out = NULL;
    long long nn[3];
    size_t total = 1;
    for (int k = 0; k < rank; k++) {
        nn[k] = (long long)n[k];
        total *= (size_t)n[k];
    }
    size_t nl = (size_t)n[rank - 1], ol = kind ? nl / 2 + 1 : nl;
    size_t in_bytes = total * (size_t)howmany * (kind ? 1u : 2u) * (size_t)prec;
    size_t out_bytes = total / nl * ol * (size_t)howmany * 2u * (size_t)prec;
    size_t bytes = kind ? in_bytes + out_bytes : in_bytes;
    size_t free_b = 0, total_b = 0;
    CK(cudaMemGetInfo(&free_b, &total_b));
    if (bytes + MARGIN > free_b) {
        snprintf(note, note_len, "does not fit: arrays %.2f GiB, %.2f GiB free of %.2f GiB",
                 bytes / 1073741824.0, free_b / 1073741824.0, total_b / 1073741824.0);
        return 1;
    }
    bench_cufft *c = calloc(1, sizeof *c);
    if (!c) {
        fprintf(stderr, "hfft-bench: out of memory\n");
        exit(1);
    }
    c->prec = prec;
    c->kind = kind;
    c->in_bytes = in_bytes;
    c->out_bytes = out_bytes;
    double t0 = now();
    CKF(cufftCreate(&c->plan));
    /* The work area is ours to allocate, so that "fits" is decided before it is. */
    CKF(cufftSetAutoAllocation(c->plan, 0));
    size_t ws = 0;
    cufftType type = kind ? (prec == 4 ? CUFFT_R2C : CUFFT_D2Z) : (prec == 4 ? CUFFT_C2C : CUFFT_Z2Z);
    cufftResult r = cufftMakePlanMany64(c->plan, rank, nn, NULL, 1, 0, NULL, 1, 0, type,
                                        (long long)howmany, &ws);
    *plan_s = now() - t0;
    if (r == CUFFT_INVALID_SIZE || r == CUFFT_ALLOC_FAILED || r == CUFFT_NOT_SUPPORTED) {
        snprintf(note, note_len, "cuFFT cannot plan it: cufftMakePlanMany64: %s",
                 hfft_cufft_text(r));
        CKF(cufftDestroy(c->plan));
        free(c);
        return 1;
    }
    if (r != CUFFT_SUCCESS)
        die_cufft(r, "cufftMakePlanMany64", __LINE__);
    CK(cudaMemGetInfo(&free_b, &total_b));
    if (bytes + ws + MARGIN > free_b) {
        snprintf(note, note_len,
                 "does not fit: arrays %.2f GiB + work %.2f GiB, %.2f GiB free of %.2f GiB",
                 bytes / 1073741824.0, ws / 1073741824.0, free_b / 1073741824.0,
                 total_b / 1073741824.0);
        CKF(cufftDestroy(c->plan));
        free(c);
        return 1;
    }
    CK(cudaMalloc(&c->d, in_bytes));
    c->dout = c->d;
    if (kind)
        CK(cudaMalloc(&c->dout, out_bytes));
    if (ws) {
        CK(cudaMalloc(&c->work, ws));
        CKF(cufftSetWorkArea(c->plan, c->work));
    }
    CK(cudaStreamCreateWithFlags(&c->s, cudaStreamNonBlocking));
    CKF(cufftSetStream(c->plan, c->s));
    CK(cudaEventCreate(&c->e0));
    CK(cudaEventCreate(&c->e1));
    snprintf(note, note_len, "%s device %.2f GiB (work %.2f GiB)%s",
             kind ? "out-of-place" : "in-place", (bytes + ws) / 1073741824.0, ws / 1073741824.0,
             howmany > 1 ? " batched" : "");
    *out = c;
    return 0;
}

static void exec(bench_cufft *c) {
    if (c->kind)
        CKF(c->prec == 4 ? cufftExecR2C(c->plan, c->d, c->dout)
                         : cufftExecD2Z(c->plan, c->d, c->dout));
    else if (c->prec == 4)
        CKF(cufftExecC2C(c->plan, c->d, c->d, CUFFT_FORWARD));
    else
        CKF(cufftExecZ2Z(c->plan, c->d, c->d, CUFFT_FORWARD));
}

void bench_cufft_incard(bench_cufft *c, const void *a, void *b, int reps, double *times) {
    CK(cudaMemcpyAsync(c->d, a, c->in_bytes, cudaMemcpyHostToDevice, c->s));
    exec(c);
    CK(cudaMemcpyAsync(b, c->dout, c->out_bytes, cudaMemcpyDeviceToHost, c->s));
    CK(cudaStreamSynchronize(c->s));
    for (int r = 0; r < reps; r++) {
        float ms;
        CK(cudaMemcpyAsync(c->d, a, c->in_bytes, cudaMemcpyHostToDevice, c->s));
        CK(cudaEventRecord(c->e0, c->s));
        exec(c);
        CK(cudaEventRecord(c->e1, c->s));
        CK(cudaEventSynchronize(c->e1));
        CK(cudaEventElapsedTime(&ms, c->e0, c->e1));
        times[r] = ms * 1e-3;
    }
}

void bench_cufft_copy_exec_copy(bench_cufft *c, const void *a, void *b, int reps, double *times) {
    for (int r = -1; r < reps; r++) {
        float ms;
        CK(cudaEventRecord(c->e0, c->s));
        CK(cudaMemcpyAsync(c->d, a, c->in_bytes, cudaMemcpyHostToDevice, c->s));
        exec(c);
        CK(cudaMemcpyAsync(b, c->dout, c->out_bytes, cudaMemcpyDeviceToHost, c->s));
        CK(cudaEventRecord(c->e1, c->s));
        CK(cudaEventSynchronize(c->e1));
        CK(cudaEventElapsedTime(&ms, c->e0, c->e1));
        if (r >= 0)
            times[r] = ms * 1e-3;
    }
}

void bench_cufft_close(bench_cufft *c) {
    if (!c)
        return;
    CK(cudaEventDestroy(c->e0));
    CK(cudaEventDestroy(c->e1));
    CK(cudaStreamDestroy(c->s));
    CKF(cufftDestroy(c->plan));
    CK(cudaFree(c->d));
    if (c->dout != c->d)
        CK(cudaFree(c->dout));
    if (c->work)
        CK(cudaFree(c->work));
    free(c);
}
