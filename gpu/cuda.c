/*
 * cuda.c: the CUDA backend of the device interface: budgeted device
 * memory, streams and events, pinned 2D copies, cuFFT plans with work areas
 * we allocate (so the budget counts them) and launches of our kernels.  Every
 * CUDA and cuFFT failure becomes an hfft status whose message names the call.
 */
#include <cuda_runtime_api.h>
#include <cufft.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu/cufft_text.h"
#include "gpu/kernels.h"
#include "gpu/r2r_plan.h"
#include "gpu/split.h"
#include "src/core/device.h"
#include "src/core/fault.h"
#include "src/core/problem.h"
#include "src/core/status.h"

#define MAX_ALLOCS 64

struct hfft__dev {
    int device;
    int64_t budget, used, memory;
    char name[96];
    struct {
        void *p;
        size_t bytes;
    } allocs[MAX_ALLOCS];
};

typedef struct cuda_plan {
    cufftHandle h;
    int prec, kind, sign;
    hfft__split *split; /* lines cut in card (gpu/split.h) instead of h */
    hfft__r2r *r2r;     /* real-to-real lines (gpu/r2r.c) instead of h */
} cuda_plan;

extern const hfft__dev_ops hfft__cuda_ops;

static int cuda_fail(cudaError_t e, const char *call) {
    int st = e == cudaErrorMemoryAllocation ? HFFT_ERR_DEVICE_MEMORY
             : (e == cudaErrorNoDevice || e == cudaErrorInsufficientDriver)
                 ? HFFT_ERR_NO_DEVICE
                 : HFFT_ERR_CUDA;
    return hfft__fail(st, "%s failed: %s", call, cudaGetErrorString(e));
}

#define CU(call)                                  \
    do {                                          \
        cudaError_t e_ = (call);                  \
        if (e_ != cudaSuccess)                    \
            return cuda_fail(e_, #call);          \
    } while (0)

static int cufft_fail(cufftResult r, const char *call) {
    return hfft__fail(r == CUFFT_ALLOC_FAILED ? HFFT_ERR_DEVICE_MEMORY : HFFT_ERR_CUFFT,
                      "%s failed: %s (%d)", call, hfft_cufft_text(r), (int)r);
}

#define CF(call)                                  \
    do {                                          \
        cufftResult r_ = (call);                  \
        if (r_ != CUFFT_SUCCESS)                  \
            return cufft_fail(r_, #call);         \
    } while (0)

static pthread_once_t probe_once = PTHREAD_ONCE_INIT;
static int probe_result;

static void probe(void) {
    int n = 0;
    probe_result = cudaGetDeviceCount(&n) == cudaSuccess && n > 0;
    if (!probe_result)
        (void)cudaGetLastError(); /* the failed query must not linger as a sticky error */
}

int hfft__cuda_probe(void) {
    pthread_once(&probe_once, probe);
    return probe_result;
}

/* Cards a and b read and write each other's memory directly (NVLink or PCIe peer
   to peer), for every pair of a plan's cards: a pair without it copies through host
   memory, which the links' copies in and out then share.  Where the platform offers
   no peer access, peer copies still work that way.  Pairs this process enabled are remembered, so that later
   plans do not call again (the call's "already enabled" is harmless, but
   compute-sanitizer reports each as an error; a cudaDeviceReset by the program
   would make the record stale, which costs speed only). */
static _Atomic uint64_t peer_on[64]; /* bit b of [a]: a reaches b */
static int peer_access(int a, int b) {
    if (a == b)
        return 0;
    int pairs[2][2] = {{a, b}, {b, a}};
    for (int k = 0; k < 2; k++) {
        int can = 0, from = pairs[k][0], to = pairs[k][1];
        int known = from < 64 && to < 64;
        if (known && (atomic_load(&peer_on[from]) >> to & 1u))
            continue;
        CU(cudaDeviceCanAccessPeer(&can, pairs[k][0], pairs[k][1]));
        if (!can)
            continue;
        CU(cudaSetDevice(pairs[k][0]));
        cudaError_t e = cudaDeviceEnablePeerAccess(pairs[k][1], 0);
        if (e == cudaErrorPeerAccessAlreadyEnabled)
            cudaGetLastError(); /* enabled elsewhere in the process: fine */
        else if (e != cudaSuccess)
            return cuda_fail(e, "cudaDeviceEnablePeerAccess");
        if (known)
            atomic_fetch_or(&peer_on[from], (uint64_t)1 << to);
    }
    CU(cudaSetDevice(b));
    return 0;
}

static int cuda_count(void) {
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess) {
        cudaGetLastError();
        return 0;
    }
    return n;
}

/* Makes d's card current on the calling thread: allocations, streams, plans and
   launches go to the current card. */
static int on(hfft__dev *d) {
    int c = -1;
    if (cudaGetDevice(&c) != cudaSuccess || c != d->device)
        CU(cudaSetDevice(d->device));
    return 0;
}
#define ON(d) HFFT__TRY(on(d))

static int cuda_open_card(int ordinal, int64_t budget, hfft__dev *const *open, int nopen,
                          hfft__dev **out) {
    *out = NULL;
    hfft__dev *d = calloc(1, sizeof *d);
    if (!d)
        return hfft__fail(HFFT_ERR_HOST_MEMORY, "CUDA device: out of memory");
    int st = 0;
    size_t free_b = 0, total_b = 0;
    const char *call = "cudaGetDevice";
    cudaError_t e = cudaSuccess;
    if (ordinal >= 0)
        d->device = ordinal;
    else
        e = cudaGetDevice(&d->device);
    if (e == cudaSuccess) {
        call = "cudaSetDevice";
        e = cudaSetDevice(d->device); /* makes this thread's context current */
    }
    if (e != cudaSuccess) {
        st = cuda_fail(e, call);
    } else if ((e = cudaMemGetInfo(&free_b, &total_b)) != cudaSuccess) {
        st = cuda_fail(e, "cudaMemGetInfo");
    } else {
        struct cudaDeviceProp prop;
        if ((e = cudaGetDeviceProperties(&prop, d->device)) != cudaSuccess) {
            st = cuda_fail(e, "cudaGetDeviceProperties");
        } else {
            snprintf(d->name, sizeof d->name, "%.95s", prop.name);
        }
    }
    for (int k = 0; k < nopen && !st; k++)
        st = peer_access(open[k]->device, d->device);
    if (st) {
        free(d);
        return st;
    }
    /* Default: free memory less 5% and 256 MiB for cuFFT, the context and others. */
    d->memory = (int64_t)total_b;
    int64_t margin = (int64_t)(free_b / 20) + (256 << 20);
    int64_t avail = (int64_t)free_b > margin ? (int64_t)free_b - margin : 0;
    d->budget = budget > 0 ? budget : avail;
    if (d->budget > (int64_t)free_b - (64 << 20)) {
        /* A budget above what is free now: the passes shrink to what can be had. */
        d->budget = (int64_t)free_b > (64 << 20) ? (int64_t)free_b - (64 << 20) : 0;
    }
    *out = d;
    return 0;
}

static int cuda_open(int64_t budget, hfft__dev **out) {
    return cuda_open_card(-1, budget, NULL, 0, out);
}

static void cuda_close(hfft__dev *d) { free(d); }
static int cuda_ordinal(hfft__dev *d) { return d->device; }
static int64_t cuda_budget(hfft__dev *d) { return d->budget; }
static int64_t cuda_used(hfft__dev *d) { return d->used; }
/* cuFFT keeps twiddle tables and kernels per plan outside our work areas: an
   eighth of the budget, at most 64 MiB, is left to it. */
static int64_t cuda_reserve(hfft__dev *d) {
    return d->budget / 8 < (64 << 20) ? d->budget / 8 : (64 << 20);
}
static const char *cuda_describe(hfft__dev *d) { return d->name; }
static int64_t cuda_memory(hfft__dev *d) { return d->memory; }

static void cuda_signature(hfft__dev *d, char *buf, size_t n) {
    int drv = 0, rt = 0, fft = 0;
    cudaDriverGetVersion(&drv);
    cudaRuntimeGetVersion(&rt);
    cufftGetVersion(&fft);
    snprintf(buf, n, "gpu=%s;driver=%d;cuda=%d;cufft=%d", d->name, drv, rt, fft);
}

static int cuda_alloc(hfft__dev *d, void **p, size_t bytes) {
    ON(d);
    *p = NULL;
    if (d->used + (int64_t)bytes > d->budget)
        return hfft__fail(HFFT_ERR_DEVICE_MEMORY,
                          "device allocation of %s would exceed the %s budget (%s in use)",
                          hfft__bytes_text((double)bytes).s, hfft__bytes_text((double)d->budget).s,
                          hfft__bytes_text((double)d->used).s);
    int slot = -1;
    for (int i = 0; i < MAX_ALLOCS && slot < 0; i++)
        if (!d->allocs[i].p)
            slot = i;
    if (slot < 0)
        return hfft__fail(HFFT_ERR_INTERNAL, "CUDA device: more than %d allocations", MAX_ALLOCS);
    if (hfft__fault_hit("alloc"))
        return hfft__fail(HFFT_ERR_DEVICE_MEMORY, "cudaMalloc failed: injected fault");
    CU(cudaMalloc(p, bytes));
    /* Pass padding is read by the FFTs: start it defined.  The plan's streams do
       not wait for the legacy stream, so the zeroing must be over before any of
       them copies in. */
    const char *call = "cudaMemset";
    cudaError_t e = cudaMemset(*p, 0, bytes);
    if (e == cudaSuccess) {
        call = "cudaStreamSynchronize";
        e = cudaStreamSynchronize(0);
    }
    if (e != cudaSuccess) {
        cudaFree(*p);
        *p = NULL;
        return cuda_fail(e, call);
    }
    d->allocs[slot].p = *p;
    d->allocs[slot].bytes = bytes;
    d->used += (int64_t)bytes;
    return 0;
}

static void cuda_free(hfft__dev *d, void *p) {
    on(d);
    for (int i = 0; i < MAX_ALLOCS; i++) {
        if (d->allocs[i].p == p) {
            d->used -= (int64_t)d->allocs[i].bytes;
            d->allocs[i].p = NULL;
            break;
        }
    }
    cudaFree(p);
}

static int cuda_stream_create(hfft__dev *d, hfft__stream *s) {
    ON(d);
    CU(cudaStreamCreateWithFlags((cudaStream_t *)s, cudaStreamNonBlocking));
    return 0;
}
static void cuda_stream_destroy(hfft__dev *d, hfft__stream s) {
    on(d);
    cudaStreamDestroy((cudaStream_t)s);
}
static int cuda_event_create(hfft__dev *d, hfft__event *e) {
    ON(d);
    CU(cudaEventCreateWithFlags((cudaEvent_t *)e, cudaEventDisableTiming));
    return 0;
}
static int cuda_event_create_timed(hfft__dev *d, hfft__event *e) {
    ON(d);
    CU(cudaEventCreate((cudaEvent_t *)e));
    return 0;
}
static int cuda_event_elapsed(hfft__dev *d, hfft__event from, hfft__event to, double *secs) {
    (void)d;
    float ms = 0;
    CU(cudaEventElapsedTime(&ms, (cudaEvent_t)from, (cudaEvent_t)to));
    *secs = 1e-3 * (double)ms;
    return 0;
}
static void cuda_event_destroy(hfft__dev *d, hfft__event e) {
    (void)d;
    cudaEventDestroy((cudaEvent_t)e);
}
static int cuda_record(hfft__dev *d, hfft__event e, hfft__stream s) {
    (void)d;
    CU(cudaEventRecord((cudaEvent_t)e, (cudaStream_t)s));
    return 0;
}
static int cuda_wait(hfft__dev *d, hfft__stream s, hfft__event e) {
    (void)d;
    CU(cudaStreamWaitEvent((cudaStream_t)s, (cudaEvent_t)e, 0));
    return 0;
}
static int cuda_activate(hfft__dev *d) {
    CU(cudaSetDevice(d->device));
    return 0;
}

static int cuda_sync(hfft__dev *d, hfft__stream s) {
    (void)d;
    CU(cudaStreamSynchronize((cudaStream_t)s));
    return 0;
}

static int cuda_event_sync(hfft__dev *d, hfft__event e) {
    (void)d;
    CU(cudaEventSynchronize((cudaEvent_t)e));
    return 0;
}

static int cuda_host_fn(hfft__dev *d, hfft__stream s, void (*fn)(void *), void *arg) {
    (void)d;
    if (hfft__fault_hit("host_fn"))
        return hfft__fail(HFFT_ERR_CUDA, "cudaLaunchHostFunc failed: injected fault");
    CU(cudaLaunchHostFunc((cudaStream_t)s, fn, arg));
    return 0;
}

static int copy(hfft__stream s, void *dst, size_t dpitch, const void *src, size_t spitch,
                size_t width, size_t height, enum cudaMemcpyKind kind, const char *what) {
    if (hfft__fault_hit(what))
        return hfft__fail(HFFT_ERR_CUDA, "%s failed: injected fault", what);
    cudaError_t e;
    int flat = height == 1 || (dpitch == width && spitch == width);
    if (flat) {
        e = cudaMemcpyAsync(dst, src, width * height, kind, (cudaStream_t)s);
    } else {
        e = cudaMemcpy2DAsync(dst, dpitch, src, spitch, width, height, kind, (cudaStream_t)s);
        if (e == cudaErrorInvalidPitchValue && dpitch >= width && spitch >= width) {
            /* a pitch above what the card takes (rows gigabytes apart: dimension 0
               four-step over hundreds of GiB): one copy a row */
            (void)cudaGetLastError();
            flat = 1;
            e = cudaSuccess;
            for (size_t r = 0; r < height && e == cudaSuccess; r++)
                e = cudaMemcpyAsync((char *)dst + r * dpitch, (const char *)src + r * spitch,
                                    width, kind, (cudaStream_t)s);
        }
    }
    if (e != cudaSuccess)
        return cuda_fail(e, flat ? "cudaMemcpyAsync" : "cudaMemcpy2DAsync");
    return 0;
}

static int cuda_h2d(hfft__dev *d, hfft__stream s, void *dst, size_t dpitch, const void *src,
                    size_t spitch, size_t width, size_t height) {
    ON(d);
    return copy(s, dst, dpitch, src, spitch, width, height, cudaMemcpyHostToDevice, "h2d");
}

static int cuda_d2h(hfft__dev *d, hfft__stream s, void *dst, size_t dpitch, const void *src,
                    size_t spitch, size_t width, size_t height) {
    ON(d);
    return copy(s, dst, dpitch, src, spitch, width, height, cudaMemcpyDeviceToHost, "d2h");
}

/* Unified addressing tells each pointer's card: cudaMemcpyDefault goes card to card,
   either way (over NVLink where peer access is on). */
static int cuda_peer(hfft__dev *d, hfft__stream s, hfft__dev *to, void *dst, size_t dpitch,
                     const void *src, size_t spitch, size_t width, size_t height) {
    (void)to;
    ON(d);
    return copy(s, dst, dpitch, src, spitch, width, height, cudaMemcpyDefault, "peer");
}

static cufftType cufft_type(int prec, int kind) {
    if (kind == HFFT__R2C)
        return prec == 4 ? CUFFT_R2C : CUFFT_D2Z;
    if (kind == HFFT__C2R)
        return prec == 4 ? CUFFT_C2R : CUFFT_Z2D;
    return prec == 4 ? CUFFT_C2C : CUFFT_Z2Z;
}

static int cuda_d2d(hfft__dev *d, hfft__stream s, void *dst, size_t dpitch, const void *src,
                    size_t spitch, size_t width, size_t height) {
    ON(d);
    return copy(s, dst, dpitch, src, spitch, width, height, cudaMemcpyDeviceToDevice, "d2d");
}

static int cuda_fft_plan(hfft__dev *d, int prec, int kind, int rank, const int64_t *n,
                         int64_t stride, int64_t dist, int64_t batch, int sign,
                         hfft__fftplan *plan, size_t *work_bytes) {
    ON(d);
    *plan = NULL;
    *work_bytes = 0;
    if (hfft__fault_hit("fft_plan"))
        return hfft__fail(HFFT_ERR_CUFFT, "cufftMakePlanMany64 failed: injected fault");
    cuda_plan *cp = calloc(1, sizeof *cp);
    if (!cp)
        return hfft__fail(HFFT_ERR_HOST_MEMORY, "cuFFT plan: out of memory");
    cp->prec = prec;
    cp->kind = kind;
    cp->sign = sign;
    if (kind & HFFT__R2R_BIT) {
        int st = hfft__r2r_plan(&hfft__cuda_ops, d, prec, kind, rank, n, stride, dist, batch,
                                &cp->r2r, work_bytes);
        if (st)
            free(cp);
        else
            *plan = cp;
        return st;
    }
    int st = hfft__split_plan(&hfft__cuda_ops, d, prec, kind, rank, n, stride, dist, batch, sign,
                              &cp->split, work_bytes);
    if (st || cp->split) {
        if (st)
            free(cp);
        else
            *plan = cp;
        return st;
    }
    long long nn[2] = {n[0], rank == 2 ? n[1] : 1};
    long long in[2] = {nn[0], nn[1]}, on[2] = {nn[0], nn[1]};
    long long idist = dist, odist = dist;
    if (kind != HFFT__C2C) {
        /* FFTW's padded in-place layout: complex rows of n/2 + 1, real rows of twice that */
        long long half = nn[rank - 1] / 2 + 1;
        int real_in = kind == HFFT__R2C;
        in[rank - 1] = real_in ? 2 * half : half;
        on[rank - 1] = real_in ? half : 2 * half;
        idist = real_in ? 2 * dist : dist;
        odist = real_in ? dist : 2 * dist;
    }
    cufftResult r = cufftCreate(&cp->h);
    if (r != CUFFT_SUCCESS) {
        free(cp);
        return cufft_fail(r, "cufftCreate");
    }
    r = cufftSetAutoAllocation(cp->h, 0);
    if (r == CUFFT_SUCCESS)
        r = cufftMakePlanMany64(cp->h, rank, nn, in, stride, idist, on, stride, odist,
                                cufft_type(prec, kind), batch, work_bytes);
    if (r != CUFFT_SUCCESS) {
        cufftDestroy(cp->h);
        free(cp);
        return cufft_fail(r, "cufftMakePlanMany64");
    }
    *plan = cp;
    return 0;
}

static int cuda_fft_exec(hfft__dev *d, hfft__fftplan plan, hfft__stream s, void *data,
                         void *work) {
    ON(d);
    cuda_plan *cp = plan;
    if (cp->r2r)
        return hfft__r2r_exec(cp->r2r, s, data, work);
    if (cp->split)
        return hfft__split_exec(cp->split, s, data, work);
    if (hfft__fault_hit("fft_exec"))
        return hfft__fail(HFFT_ERR_CUFFT, "cufftExecC2C failed: injected fault");
    CF(cufftSetStream(cp->h, (cudaStream_t)s));
    if (work)
        CF(cufftSetWorkArea(cp->h, work));
    /* CUFFT_FORWARD is -1 and CUFFT_INVERSE +1, as our signs. */
    if (cp->kind == HFFT__R2C && cp->prec == 4)
        CF(cufftExecR2C(cp->h, data, data));
    else if (cp->kind == HFFT__R2C)
        CF(cufftExecD2Z(cp->h, data, data));
    else if (cp->kind == HFFT__C2R && cp->prec == 4)
        CF(cufftExecC2R(cp->h, data, data));
    else if (cp->kind == HFFT__C2R)
        CF(cufftExecZ2D(cp->h, data, data));
    else if (cp->prec == 4)
        CF(cufftExecC2C(cp->h, data, data, cp->sign));
    else
        CF(cufftExecZ2Z(cp->h, data, data, cp->sign));
    return 0;
}

static void cuda_fft_destroy(hfft__dev *d, hfft__fftplan plan) {
    on(d);
    cuda_plan *cp = plan;
    if (cp->r2r)
        hfft__r2r_destroy(cp->r2r);
    else if (cp->split)
        hfft__split_destroy(cp->split);
    else
        cufftDestroy(cp->h);
    free(cp);
}

static int launch_status(int e, const char *kernel) {
    if (hfft__fault_hit("kernel"))
        return hfft__fail(HFFT_ERR_CUDA, "%s launch failed: injected fault", kernel);
    if (e != 0)
        return hfft__fail(HFFT_ERR_CUDA, "%s launch failed: %s", kernel,
                          cudaGetErrorString((cudaError_t)e));
    return 0;
}

static int cuda_radix2(hfft__dev *d, int prec, hfft__stream s, void *a, void *b, int64_t rows,
                       int64_t width, int64_t N, int64_t k0, int sign) {
    ON(d);
    return launch_status(hfft__cuda_radix2(prec, s, a, b, rows, width, N, k0, sign),
                         "hfft radix-2 kernel");
}

static int cuda_radixr(hfft__dev *d, int prec, hfft__stream s, void *const *blk, int r,
                       int64_t rows, int64_t width, int64_t L, int64_t k0, int sign) {
    ON(d);
    return launch_status(hfft__cuda_radixr(prec, s, blk, r, rows, width, L, k0, sign),
                         "hfft radix-r kernel");
}

static int cuda_transpose(hfft__dev *d, int prec, hfft__stream s, void *dst, int64_t dpitch,
                          const void *src, int64_t spitch, int64_t rows, int64_t cols) {
    ON(d);
    return launch_status(
        hfft__cuda_transpose(prec, s, dst, dpitch, 0, src, spitch, 0, rows, cols, 1, 0, 0),
        "hfft transpose kernel");
}

static int cuda_transposes(hfft__dev *d, int prec, hfft__stream s, void *dst, const void *src,
                           const hfft__transposes *t) {
    ON(d);
    return launch_status(hfft__cuda_transpose(prec, s, dst, t->dpitch, t->ddist, src, t->spitch,
                                              t->sdist, t->rows, t->cols, t->batch, t->twn,
                                              t->sign),
                         "hfft transpose kernel");
}

static int cuda_real_pairs(hfft__dev *d, int prec, hfft__stream s, void *data, int64_t M,
                           int64_t dist, int64_t batch, int forward) {
    ON(d);
    return launch_status(hfft__cuda_real_pairs(prec, s, data, M, dist, batch, forward),
                         "hfft real pairs kernel");
}

static int cuda_chirp(hfft__dev *d, int prec, hfft__stream s, void *lines, void *buf,
                      const void *table, const hfft__chirps *c) {
    ON(d);
    return launch_status(hfft__cuda_chirp(prec, s, lines, buf, table, c), "hfft chirp kernel");
}

static int cuda_twiddle(hfft__dev *d, int prec, hfft__stream s, void *data, int64_t rows,
                        int64_t cols, int64_t pitch, int64_t n, int64_t r0, int64_t period,
                        int64_t c0, int sign) {
    ON(d);
    return launch_status(
        hfft__cuda_twiddle(prec, s, data, rows, cols, pitch, n, r0, period, c0, sign),
        "hfft twiddle kernel");
}

static int cuda_r2r(hfft__dev *d, int prec, hfft__stream s, void *lines, void *buf,
                    const hfft__r2r_step *a) {
    ON(d);
    return launch_status(hfft__cuda_r2r(prec, s, lines, buf, a), "hfft r2r kernel");
}

static int cuda_spift(hfft__dev *d, int prec, hfft__stream s, void *dst, const void *src,
                      const hfft__spift *a) {
    ON(d);
    return launch_status(hfft__cuda_spift(prec, s, dst, src, a), "hfft streaming image kernel");
}

static int cuda_host_alloc(hfft__dev *d, void **p, size_t bytes) {
    (void)d;
    *p = NULL;
    if (hfft__fault_hit("host_alloc"))
        return hfft__fail(HFFT_ERR_HOST_MEMORY, "cudaMallocHost failed: injected fault");
    CU(cudaHostAlloc(p, bytes, cudaHostAllocPortable)); /* pinned for every card */
    return 0;
}
static void cuda_host_free(hfft__dev *d, void *p) {
    (void)d;
    cudaFreeHost(p);
}
/* Card k's primary context, made on a thread of its own (the calling thread's
   current card stays as it was).  A card that cannot be opened here is left to
   the plan that names it, which reports why. */
static void *open_context(void *arg) {
    int k = (int)(intptr_t)arg;
    if (cudaSetDevice(k) != cudaSuccess || cudaFree(0) != cudaSuccess)
        (void)cudaGetLastError();
    return NULL;
}

/* The primary contexts of cards[0..n), each made on a thread of its own (the
   driver maps pinned memory into each in turn, threads or not; together they
   still save a little). */
void hfft__cuda_contexts(const int *cards, int n) {
    pthread_t th[HFFT_MAX_CARDS];
    int made = 0, count = cuda_count();
    for (int k = 0; k < n && made < HFFT_MAX_CARDS; k++) {
        if (cards[k] < 0 || cards[k] >= count)
            continue;
        if (pthread_create(&th[made], NULL, open_context, (void *)(intptr_t)cards[k]) != 0)
            break; /* no thread: the rest open at their plans' first use */
        made++;
    }
    for (int k = 0; k < made; k++)
        pthread_join(th[k], NULL);
}

static int cuda_host_register(hfft__dev *d, void *p, size_t bytes) {
    (void)d;
    if (hfft__fault_hit("host_register"))
        return hfft__fail(HFFT_ERR_CUDA, "cudaHostRegister failed: injected fault");
    CU(cudaHostRegister(p, bytes, cudaHostRegisterPortable)); /* for every card */
    return 0;
}
static void cuda_host_unregister(hfft__dev *d, void *p) {
    (void)d;
    cudaHostUnregister(p);
}
static int cuda_host_is_pinned(hfft__dev *d, const void *p) {
    (void)d;
    struct cudaPointerAttributes a;
    if (cudaPointerGetAttributes(&a, p) != cudaSuccess) {
        (void)cudaGetLastError();
        return 0;
    }
    return a.type == cudaMemoryTypeHost;
}

const hfft__dev_ops hfft__cuda_ops = {
    .name = "cuda",
    .kind = HFFT_DEVICE_CUDA,
    .open = cuda_open,
    .count = cuda_count,
    .open_card = cuda_open_card,
    .ordinal = cuda_ordinal,
    .peer = cuda_peer,
    .close = cuda_close,
    .budget = cuda_budget,
    .used = cuda_used,
    .reserve = cuda_reserve,
    .describe = cuda_describe,
    .memory = cuda_memory,
    .signature = cuda_signature,
    .alloc = cuda_alloc,
    .free = cuda_free,
    .stream_create = cuda_stream_create,
    .stream_destroy = cuda_stream_destroy,
    .event_create = cuda_event_create,
    .event_destroy = cuda_event_destroy,
    .record = cuda_record,
    .wait = cuda_wait,
    .sync = cuda_sync,
    .event_sync = cuda_event_sync,
    .event_create_timed = cuda_event_create_timed,
    .event_elapsed = cuda_event_elapsed,
    .host_fn = cuda_host_fn,
    .activate = cuda_activate,
    .h2d = cuda_h2d,
    .d2h = cuda_d2h,
    .d2d = cuda_d2d,
    .fft_plan = cuda_fft_plan,
    .fft_exec = cuda_fft_exec,
    .fft_destroy = cuda_fft_destroy,
    .radix2 = cuda_radix2,
    .radixr = cuda_radixr,
    .transpose = cuda_transpose,
    .transposes = cuda_transposes,
    .real_pairs = cuda_real_pairs,
    .chirp = cuda_chirp,
    .twiddle = cuda_twiddle,
    .spift = cuda_spift,
    .r2r = cuda_r2r,
    .host_alloc = cuda_host_alloc,
    .host_free = cuda_host_free,
    .host_register = cuda_host_register,
    .host_unregister = cuda_host_unregister,
    .host_is_pinned = cuda_host_is_pinned,
};
