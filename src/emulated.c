/*
 * emulated.c: the emulated device, a test double of the GPU.  It implements
 * the device interface in host memory with the budget enforced on every
 * allocation, FFTW for the batched transforms and the same butterfly code as
 * the CUDA kernels, so that CI (which has no GPU) runs the whole out-of-card
 * schedule: passes, subsequence splits, combinations, ratios.  Operations run
 * synchronously in issue order.  It says nothing about GPU speed.
 *
 * Faults injected through HFFT_FAULT (src/fault.c) fail its calls as they
 * would fail on the GPU.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "../gpu/butterfly.h"
#include "internal.h"

#define EMU_DEFAULT_BUDGET (64 << 20)
#define HDR 64

struct hfft__dev {
    int64_t budget, used;
};

static int fault(const char *op) {
    if (!hfft__fault_hit(op))
        return 0;
    return hfft__fail(strcmp(op, "alloc") == 0 ? HFFT_ERR_DEVICE_MEMORY : HFFT_ERR_CUDA,
                      "emulated device: %s failed: injected fault", op);
}

static int emu_open(int64_t budget, hfft__dev **out) {
    hfft__dev *d = calloc(1, sizeof *d);
    if (!d)
        return hfft__fail(HFFT_ERR_HOST_MEMORY, "emulated device: out of memory");
    d->budget = budget > 0 ? budget : EMU_DEFAULT_BUDGET;
    *out = d;
    return 0;
}

static void emu_close(hfft__dev *d) { free(d); }
static int64_t emu_budget(hfft__dev *d) { return d->budget; }
static int64_t emu_used(hfft__dev *d) { return d->used; }
static int64_t emu_reserve(hfft__dev *d) {
    (void)d;
    return 0; /* FFTW plans live in host memory */
}
static const char *emu_describe(hfft__dev *d) {
    (void)d;
    return "emulated";
}

static void emu_signature(hfft__dev *d, char *buf, size_t n) {
    (void)d;
    snprintf(buf, n, "gpu=emulated;driver=0;cuda=0;cufft=0");
}

static int emu_alloc(hfft__dev *d, void **p, size_t bytes) {
    *p = NULL;
    int st = fault("alloc");
    if (st)
        return st;
    if (d->used + (int64_t)bytes > d->budget)
        return hfft__fail(HFFT_ERR_DEVICE_MEMORY,
                          "emulated device: %zu bytes would exceed the %lld-byte budget "
                          "(%lld in use)",
                          bytes, (long long)d->budget, (long long)d->used);
    char *m = aligned_alloc(HDR, HDR + ((bytes + HDR - 1) / HDR) * HDR);
    if (!m)
        return hfft__fail(HFFT_ERR_DEVICE_MEMORY, "emulated device: host allocation failed");
    memcpy(m, &bytes, sizeof bytes);
    /* Fresh device memory holds garbage: so does ours, to catch unwritten reads. */
    memset(m + HDR, 0x7f, bytes);
    d->used += (int64_t)bytes;
    *p = m + HDR;
    return 0;
}

static void emu_free(hfft__dev *d, void *p) {
    if (!p)
        return;
    char *m = (char *)p - HDR;
    size_t bytes;
    memcpy(&bytes, m, sizeof bytes);
    d->used -= (int64_t)bytes;
    free(m);
}

/* Work is synchronous: streams and events only need distinct non-NULL handles. */
static int emu_stream_create(hfft__dev *d, hfft__stream *s) {
    (void)d;
    *s = malloc(1);
    return *s ? 0 : hfft__fail(HFFT_ERR_HOST_MEMORY, "emulated stream");
}
static void emu_stream_destroy(hfft__dev *d, hfft__stream s) {
    (void)d;
    free(s);
}
static int emu_event_create(hfft__dev *d, hfft__event *e) {
    (void)d;
    *e = malloc(1);
    return *e ? 0 : hfft__fail(HFFT_ERR_HOST_MEMORY, "emulated event");
}
static void emu_event_destroy(hfft__dev *d, hfft__event e) {
    (void)d;
    free(e);
}
static int emu_nop2(hfft__dev *d, void *a, void *b) {
    (void)d;
    (void)a;
    (void)b;
    return 0;
}
static int emu_activate(hfft__dev *d) {
    (void)d;
    return 0;
}

static int emu_sync(hfft__dev *d, hfft__stream s) {
    (void)d;
    (void)s;
    return 0;
}

static void copy2d(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width,
                   size_t height) {
    for (size_t r = 0; r < height; r++)
        memcpy((char *)dst + r * dpitch, (const char *)src + r * spitch, width);
}

static int emu_h2d(hfft__dev *d, hfft__stream s, void *dst, size_t dpitch, const void *src,
                   size_t spitch, size_t width, size_t height) {
    (void)d;
    (void)s;
    int st = fault("h2d");
    if (!st)
        copy2d(dst, dpitch, src, spitch, width, height);
    return st;
}

static int emu_d2h(hfft__dev *d, hfft__stream s, void *dst, size_t dpitch, const void *src,
                   size_t spitch, size_t width, size_t height) {
    (void)d;
    (void)s;
    int st = fault("d2h");
    if (!st)
        copy2d(dst, dpitch, src, spitch, width, height);
    return st;
}

static int emu_fft_plan(hfft__dev *d, int prec, int rank, const int64_t *n, int64_t stride,
                        int64_t dist, int64_t batch, int sign, hfft__fftplan *plan,
                        size_t *work_bytes) {
    (void)d;
    *plan = NULL;
    *work_bytes = 0;
    int st = fault("fft_plan");
    if (st)
        return st;
    hfft__lines_desc ld;
    memset(&ld, 0, sizeof ld);
    ld.prec = prec;
    ld.rank = rank;
    ld.sign = sign;
    ld.n[0] = n[0];
    ld.n[1] = rank == 2 ? n[1] : 1;
    ld.n[2] = 1;
    ld.is = ld.os = stride;
    ld.howmany = batch;
    ld.idist = ld.odist = dist;
    ld.inplace = 1;
    ld.fftw_flags = hfft__fftw_estimate() | hfft__fftw_unaligned();
    return hfft__lines_plan(&ld, (hfft__lines **)plan);
}

static int emu_fft_exec(hfft__dev *d, hfft__fftplan plan, hfft__stream s, void *data, void *work) {
    (void)d;
    (void)s;
    (void)work;
    int st = fault("fft_exec");
    if (!st)
        hfft__lines_exec(plan, data, data);
    return st;
}

static void emu_fft_destroy(hfft__dev *d, hfft__fftplan plan) {
    (void)d;
    hfft__lines_destroy(plan);
}

static int emu_radix2(hfft__dev *d, int prec, hfft__stream s, void *a, void *b, int64_t rows,
                      int64_t width, int64_t N, int64_t k0, int sign) {
    (void)d;
    (void)s;
    int st = fault("kernel");
    if (st)
        return st;
    for (int64_t r = 0; r < rows; r++) {
        double wr, wi;
        hfft__twiddle(k0 + r, N, sign, &wr, &wi);
        for (int64_t c = 0; c < width; c++) {
            int64_t i = 2 * (r * width + c);
            if (prec == 4)
                hfft__radix2_f((float *)a + i, (float *)b + i, wr, wi);
            else
                hfft__radix2_d((double *)a + i, (double *)b + i, wr, wi);
        }
    }
    return 0;
}

static int emu_radixr(hfft__dev *d, int prec, hfft__stream s, void *const *blk, int r, int64_t rows,
                      int64_t width, int64_t L, int64_t k0, int sign) {
    (void)d;
    (void)s;
    int st = fault("kernel");
    if (st)
        return st;
    for (int64_t row = 0; row < rows; row++) {
        for (int64_t c = 0; c < width; c++) {
            int64_t i = 2 * (row * width + c);
            if (prec == 4) {
                float *v[HFFT__RADIXR_MAX];
                for (int j = 0; j < r; j++)
                    v[j] = (float *)blk[j] + i;
                hfft__radixr_f(v, r, k0 + row, L, sign);
            } else {
                double *v[HFFT__RADIXR_MAX];
                for (int j = 0; j < r; j++)
                    v[j] = (double *)blk[j] + i;
                hfft__radixr_d(v, r, k0 + row, L, sign);
            }
        }
    }
    return 0;
}

static int emu_transpose(hfft__dev *d, int prec, hfft__stream s, void *dst, const void *src,
                         int64_t rows, int64_t cols) {
    (void)d;
    (void)s;
    int st = fault("kernel");
    if (st)
        return st;
    size_t es = 2u * (size_t)prec;
    for (int64_t r = 0; r < rows; r++)
        for (int64_t c = 0; c < cols; c++)
            memcpy((char *)dst + (size_t)(c * rows + r) * es, (const char *)src + (size_t)(r * cols + c) * es,
                   es);
    return 0;
}

/*
 * Host memory as CUDA sees it: what host_alloc returned and what was
 * registered is pinned, the rest is not, and registering a range that
 * overlaps a registered one fails as cudaHostRegister does.  So the planner's
 * registration bookkeeping runs in CI as it runs on a GPU.
 */
typedef struct pinned_range {
    const char *p;
    size_t bytes;
    int registered; /* 0: from host_alloc */
    struct pinned_range *next;
} pinned_range;
static pthread_mutex_t pins_mu = PTHREAD_MUTEX_INITIALIZER;
static pinned_range *pins;

static int pins_add(const void *p, size_t bytes, int registered) {
    pinned_range *r = malloc(sizeof *r);
    if (!r)
        return hfft__fail(HFFT_ERR_HOST_MEMORY, "emulated device: out of memory");
    r->p = p;
    r->bytes = bytes;
    r->registered = registered;
    pthread_mutex_lock(&pins_mu);
    for (pinned_range *q = pins; registered && q; q = q->next) {
        if (q->registered && (const char *)p < q->p + q->bytes && q->p < (const char *)p + bytes) {
            pthread_mutex_unlock(&pins_mu);
            free(r);
            return hfft__fail(HFFT_ERR_CUDA,
                              "cudaHostRegister failed: part or all of the range is already "
                              "registered (emulated)");
        }
    }
    r->next = pins;
    pins = r;
    pthread_mutex_unlock(&pins_mu);
    return 0;
}

static void pins_remove(const void *p, int registered) {
    pthread_mutex_lock(&pins_mu);
    for (pinned_range **q = &pins; *q; q = &(*q)->next) {
        if ((*q)->p == p && (*q)->registered == registered) {
            pinned_range *dead = *q;
            *q = dead->next;
            free(dead);
            break;
        }
    }
    pthread_mutex_unlock(&pins_mu);
}

static int emu_host_alloc(hfft__dev *d, void **p, size_t bytes) {
    (void)d;
    *p = NULL;
    if (hfft__fault_hit("host_alloc"))
        return hfft__fail(HFFT_ERR_HOST_MEMORY, "host allocation failed: injected fault");
    *p = aligned_alloc(4096, ((bytes + 4095) / 4096) * 4096);
    if (!*p)
        return hfft__fail(HFFT_ERR_HOST_MEMORY, "host allocation of %zu bytes", bytes);
    int st = pins_add(*p, bytes, 0);
    if (st) {
        free(*p);
        *p = NULL;
    }
    return st;
}
static void emu_host_free(hfft__dev *d, void *p) {
    (void)d;
    pins_remove(p, 0);
    free(p);
}
static int emu_host_register(hfft__dev *d, void *p, size_t bytes) {
    (void)d;
    return pins_add(p, bytes, 1);
}
static void emu_host_unregister(hfft__dev *d, void *p) {
    (void)d;
    pins_remove(p, 1);
}
static int emu_host_is_pinned(hfft__dev *d, const void *p) {
    (void)d;
    int pinned = 0;
    pthread_mutex_lock(&pins_mu);
    for (pinned_range *q = pins; q && !pinned; q = q->next)
        pinned = (const char *)p >= q->p && (const char *)p < q->p + q->bytes;
    pthread_mutex_unlock(&pins_mu);
    return pinned;
}

const hfft__dev_ops hfft__emulated_ops = {
    .name = "emulated",
    .kind = HFFT_DEVICE_EMULATED,
    .open = emu_open,
    .close = emu_close,
    .budget = emu_budget,
    .used = emu_used,
    .reserve = emu_reserve,
    .describe = emu_describe,
    .signature = emu_signature,
    .alloc = emu_alloc,
    .free = emu_free,
    .stream_create = emu_stream_create,
    .stream_destroy = emu_stream_destroy,
    .event_create = emu_event_create,
    .event_destroy = emu_event_destroy,
    .record = (int (*)(hfft__dev *, hfft__event, hfft__stream))emu_nop2,
    .wait = (int (*)(hfft__dev *, hfft__stream, hfft__event))emu_nop2,
    .sync = emu_sync,
    .activate = emu_activate,
    .h2d = emu_h2d,
    .d2h = emu_d2h,
    .fft_plan = emu_fft_plan,
    .fft_exec = emu_fft_exec,
    .fft_destroy = emu_fft_destroy,
    .radix2 = emu_radix2,
    .radixr = emu_radixr,
    .transpose = emu_transpose,
    .host_alloc = emu_host_alloc,
    .host_free = emu_host_free,
    .host_register = emu_host_register,
    .host_unregister = emu_host_unregister,
    .host_is_pinned = emu_host_is_pinned,
};
