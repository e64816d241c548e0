/*
 * internal.h: what the library's parts share and users never see: settings,
 * error reporting, the description of a round of 1D transforms, the device
 * interface (implemented by the CUDA backend and by the emulated device) and
 * the plan.  Precision-neutral code passes `prec` (4 or 8 bytes per real).
 */
#ifndef HFFT_INTERNAL_H
#define HFFT_INTERNAL_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include "hfft.h"

#define HFFT__MAX_SLOTS 8
#define HFFT__MAX_RADIX 64

/* ---- errors (src/errors.c) ---- */

/* Records status and message for hfft_last_error*(); returns status. */
int hfft__fail(int status, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* Prefixes the current message with more context; returns status. */
int hfft__fail_context(int status, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
void hfft__clear_error(void);
/* Seconds on a monotonic clock. */
double hfft__now(void);

/* Fault injection for tests (src/fault.c): HFFT_FAULT=op:N makes the N-th call
   of op fail (counted from when the variable last changed).  Ops: alloc, h2d,
   d2h, fft_plan, fft_exec, kernel, host_alloc, host_register, host_fn, thread. */
int hfft__fault_hit(const char *op);

/* ---- settings (src/settings.c) ---- */

typedef struct hfft__settings {
    int64_t budget;     /* device bytes; 0: automatic */
    int threads;        /* 0: automatic */
    int device;         /* enum hfft_device_kind */
    char wisdom[1024];  /* "" : none */
    double ratio[3];    /* per round; < 0: balancer decides */
    int64_t pass_bytes; /* 0: planner decides */
    int slots;          /* 0: planner decides */
    int pinning;        /* enum hfft_pinning */
} hfft__settings;

int hfft__settings_resolve(const hfft_options *opts, hfft__settings *out);

/* Returns a failing status from the enclosing function. */
#define HFFT__TRY(expr)        \
    do {                       \
        int st_ = (expr);      \
        if (st_)               \
            return st_;        \
    } while (0)

/* ---- checked arithmetic ---- */

static inline int hfft__mul_overflows(int64_t a, int64_t b, int64_t *r) {
    return __builtin_mul_overflow(a, b, r);
}

/* ---- one round: a batch of 1D (or 2D plane) transforms over the array ----
 * Lines of length L with element stride s.  Line (o, i) starts at o*dout + i,
 * o < no, i < ni.  Strided rounds have ni > 1 (neighbouring lines are
 * neighbouring columns, i.e. s >= ni); contiguous rounds have ni == 1, s == 1.
 * Rank 2 (3D planes): each "line" is a contiguous plane n2[0] x n2[1].
 */
typedef struct hfft__round {
    int rank;        /* 1 or 2 */
    int64_t L;       /* transform length (rank 1); plane elements (rank 2) */
    int64_t n2[2];   /* plane shape (rank 2) */
    int64_t s;       /* element stride along the transform */
    int64_t ni;      /* neighbouring lines per outer index */
    int64_t no;      /* outer count */
    int64_t dout;    /* elements between outer indices */
} hfft__round;

static inline int hfft__round_strided(const hfft__round *r) { return r->ni > 1; }
/* Units split between GPU and CPU: columns for strided rounds, lines otherwise. */
static inline int64_t hfft__round_units(const hfft__round *r) {
    return hfft__round_strided(r) ? r->ni : r->no;
}

/* ---- the device interface ---- */

typedef struct hfft__dev hfft__dev;
typedef void *hfft__stream;
typedef void *hfft__event;
typedef void *hfft__fftplan;

typedef struct hfft__dev_ops {
    const char *name;
    int kind; /* enum hfft_device_kind */
    /* Opens the device with a budget (0: free memory less a margin). */
    int (*open)(int64_t budget, hfft__dev **out);
    void (*close)(hfft__dev *d);
    int64_t (*budget)(hfft__dev *d);
    int64_t (*used)(hfft__dev *d);
    /* Budget bytes to leave to the backend's own plan data (cuFFT's tables). */
    int64_t (*reserve)(hfft__dev *d);
    const char *(*describe)(hfft__dev *d);
    /* "gpu=NAME;driver=V;cuda=V;cufft=V" for wisdom signatures. */
    void (*signature)(hfft__dev *d, char *buf, size_t n);
    int (*alloc)(hfft__dev *d, void **p, size_t bytes);
    void (*free)(hfft__dev *d, void *p);
    int (*stream_create)(hfft__dev *d, hfft__stream *s);
    void (*stream_destroy)(hfft__dev *d, hfft__stream s);
    int (*event_create)(hfft__dev *d, hfft__event *e);
    void (*event_destroy)(hfft__dev *d, hfft__event e);
    int (*record)(hfft__dev *d, hfft__event e, hfft__stream s);
    int (*wait)(hfft__dev *d, hfft__stream s, hfft__event e);
    int (*sync)(hfft__dev *d, hfft__stream s);
    /* Blocks until the event's last record has run. */
    int (*event_sync)(hfft__dev *d, hfft__event e);
    /* Runs fn(arg) on a host thread once the stream's earlier work is done; the
       stream's later work waits for it.  fn must not call the device. */
    int (*host_fn)(hfft__dev *d, hfft__stream s, void (*fn)(void *), void *arg);
    /* Makes the plan's device current on the calling thread (execute may run
       on another thread than planning did). */
    int (*activate)(hfft__dev *d);
    /* 2D copies: height rows of width bytes, pitches in bytes. */
    int (*h2d)(hfft__dev *d, hfft__stream s, void *dst, size_t dpitch, const void *src,
               size_t spitch, size_t width, size_t height);
    int (*d2h)(hfft__dev *d, hfft__stream s, void *dst, size_t dpitch, const void *src,
               size_t spitch, size_t width, size_t height);
    /* Batched in-place C2C: rank 1 or 2 of shape n, element stride `stride`,
       `dist` between transforms, `batch` transforms.  Reports its work bytes. */
    int (*fft_plan)(hfft__dev *d, int prec, int rank, const int64_t *n, int64_t stride,
                    int64_t dist, int64_t batch, int sign, hfft__fftplan *plan,
                    size_t *work_bytes);
    int (*fft_exec)(hfft__dev *d, hfft__fftplan plan, hfft__stream s, void *data, void *work);
    void (*fft_destroy)(hfft__dev *d, hfft__fftplan plan);
    /* a' = a + w b, b' = a - w b with w = exp(sign 2 pi i (k0 + row) / N), on rows x w tiles. */
    int (*radix2)(hfft__dev *d, int prec, hfft__stream s, void *a, void *b, int64_t rows,
                  int64_t width, int64_t N, int64_t k0, int sign);
    /* dst[j * dpitch + i] = src[i * spitch + j] for i < rows, j < cols: complex
       elements, pitches in elements. */
    int (*transpose)(hfft__dev *d, int prec, hfft__stream s, void *dst, int64_t dpitch,
                     const void *src, int64_t spitch, int64_t rows, int64_t cols);
    /* Radix-r DIT combination of r tiles (see gpu/butterfly.h). */
    int (*radixr)(hfft__dev *d, int prec, hfft__stream s, void *const *blk, int r, int64_t rows,
                  int64_t width, int64_t L, int64_t k0, int sign);
    /* Host memory: pinned allocation, registration, and whether p is pinned. */
    int (*host_alloc)(hfft__dev *d, void **p, size_t bytes);
    void (*host_free)(hfft__dev *d, void *p);
    int (*host_register)(hfft__dev *d, void *p, size_t bytes);
    void (*host_unregister)(hfft__dev *d, void *p);
    int (*host_is_pinned)(hfft__dev *d, const void *p);
} hfft__dev_ops;

/* Registered backends (src/device.c); NULL where not built. */
const hfft__dev_ops *hfft__device_ops(int kind);
/* Whether a CUDA GPU is usable now (cached). */
int hfft__cuda_usable(void);

/* ---- the CPU executor (cpu/) ---- */

typedef struct hfft__pool hfft__pool;
/* Threads bound with hwloc; `reserve` cores are left free (the GPU feeder). */
int hfft__pool_create(int threads, int reserve, hfft__pool **out);
void hfft__pool_destroy(hfft__pool *p);
int hfft__pool_size(const hfft__pool *p);
typedef void (*hfft__job_fn)(void *ctx, int64_t job, int thread);
/* Starts njobs jobs; returns at once.  hfft__pool_wait blocks until all ran. */
int hfft__pool_start(hfft__pool *p, int64_t njobs, hfft__job_fn fn, void *ctx);
void hfft__pool_wait(hfft__pool *p);
/* When the last job of the last batch finished (hfft__now's clock). */
double hfft__pool_done_at(hfft__pool *p);
int hfft__cores(void);

/* Batched FFTW transforms on host memory, by precision (cpu/lines.c). */
typedef struct hfft__lines hfft__lines;
typedef struct hfft__lines_desc {
    int prec, rank, sign;
    int64_t n[3];          /* row-major shape of one transform, rank 1 to 3 */
    int64_t is, os;        /* element stride of the (last) dimension */
    int64_t howmany, idist, odist;
    int inplace;
    unsigned fftw_flags;   /* FFTW_ESTIMATE/FFTW_MEASURE and FFTW_UNALIGNED */
    void *plan_in, *plan_out; /* plan on these instead of scratch (MEASURE overwrites them) */
    int nthreads;          /* FFTW's own threads for this plan (0 or 1: none) */
} hfft__lines_desc;
int hfft__lines_plan(const hfft__lines_desc *d, hfft__lines **out);
void hfft__lines_exec(hfft__lines *l, void *in, void *out);
void hfft__lines_destroy(hfft__lines *l);
unsigned hfft__fftw_estimate(void);
unsigned hfft__fftw_measure(void);
unsigned hfft__fftw_unaligned(void);
const char *hfft__fftw_version(void);

/* The CPU round executor (cpu/exec.c). */
typedef struct hfft__cpu hfft__cpu;
int hfft__cpu_create(int prec, int sign, int nrounds, const hfft__round *rounds, int measure,
                     hfft__pool *pool, void *in, void *out, hfft__cpu **out_cpu);
void hfft__cpu_destroy(hfft__cpu *c);
/* Runs units [u0, u1) of round h from src to dst on the pool (asynchronously). */
int hfft__cpu_start(hfft__cpu *c, int h, const void *src, void *dst, int64_t u0, int64_t u1);
int hfft__cpu_finish(hfft__cpu *c);
int64_t hfft__cpu_host_bytes(const hfft__cpu *c);

/* ---- staged copies for arrays that are not pinned (src/stage.c) ---- */

typedef struct hfft__stage hfft__stage;
/* Pinned slots of slot_bytes (two per direction) and `threads` host threads. */
int hfft__stage_create(const hfft__dev_ops *ops, hfft__dev *d, size_t slot_bytes, int threads,
                       hfft__stage **out);
void hfft__stage_destroy(hfft__stage *s);
/* As ops->h2d and ops->d2h, from and to pageable host memory, on the caller's stream. */
int hfft__stage_h2d(hfft__stage *s, hfft__stream in, void *dev, size_t dpitch, const void *host,
                    size_t hpitch, size_t width, size_t rows);
int hfft__stage_d2h(hfft__stage *s, hfft__stream out, void *host, size_t hpitch, const void *dev,
                    size_t dpitch, size_t width, size_t rows);
int hfft__stage_sync(hfft__stage *s);
int64_t hfft__stage_bytes(const hfft__stage *s);

/* ---- the GPU engine: the out-of-card pass schedule (src/sched.c) ---- */

typedef struct hfft__gpu hfft__gpu;
typedef struct hfft__gpu_req {
    int prec, sign, nrounds;
    const hfft__round *rounds;
    int64_t units[3];   /* units each round gives the GPU: [0, units) */
    int schedule;       /* 0 auto, 1 plain, 2 radix-2 */
    int64_t pass_bytes; /* 0 auto */
    int slots;          /* pass buffers in flight; 0 auto */
    int inplace;
} hfft__gpu_req;
int hfft__gpu_create(const hfft__dev_ops *ops, hfft__dev *dev, const hfft__gpu_req *req,
                     hfft__gpu **out);
void hfft__gpu_destroy(hfft__gpu *g);
int hfft__gpu_run(hfft__gpu *g, int h, const void *src, void *dst);
/* Copies through staging buffers (on) or straight from pinned arrays (off).
   HFFT_ERR_UNSUPPORTED where a round uses the radix-2 or long-line schedule. */
int hfft__gpu_stage(hfft__gpu *g, int on, int threads);
int hfft__gpu_staged(const hfft__gpu *g);
void hfft__gpu_fill_info(const hfft__gpu *g, hfft_info *info);

/* ---- the plan (src/plan.c) ---- */

typedef struct hfft__plan {
    int prec;
    size_t esize; /* bytes per complex element */
    int rank;
    int64_t n[3];
    int64_t total;
    int sign;
    unsigned flags;
    void *in, *out;
    hfft__settings set;
    int nrounds;
    hfft__round rounds[3];
    int64_t cut[3]; /* units [0, cut) go to the GPU in each round */
    const hfft__dev_ops *ops;
    hfft__dev *dev;
    hfft__gpu *gpu;
    hfft__pool *pool;
    hfft__cpu *cpu;
    hfft__lines *whole;  /* CPU-only under MEASURE: FFTW's whole-array plan, where faster */
    void *registered[2]; /* host ranges this plan registered */
    hfft_info info;
} hfft__plan;

hfft__plan *hfft__plan_create(int prec, int rank, const int64_t *n, void *in, void *out, int sign,
                              unsigned flags, const hfft_options *opts);
int hfft__plan_execute(hfft__plan *p, void *in, void *out);
void hfft__plan_destroy(hfft__plan *p);
void *hfft__malloc(size_t bytes);
void hfft__free(void *ptr);

#endif /* HFFT_INTERNAL_H */
