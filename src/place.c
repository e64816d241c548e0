/*
 * place.c: where a GPU plan's host arrays stand.  Arrays from hfft_malloc are
 * pinned already; others are registered (cudaHostRegister) for the plan's
 * lifetime, counted so that several plans may share one array, or left
 * pageable and copied through staging buffers.  Also hfft_malloc and
 * hfft_free.  The registration table is process-wide, under one lock.
 */
#include <pthread.h>
#include <sys/mman.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "gpu/devices.h"
#include "gpu/cards.h"
#include "cpu/cpu.h"
#include "src/core/fault.h"
#include "src/core/status.h"
#include "src/place.h"

/*
 * Host ranges this library registered, counted: several plans may share an
 * array, and the range stays registered until the last of them is destroyed.
 */
#define MAX_PINS 256
static pthread_mutex_t pins_mu = PTHREAD_MUTEX_INITIALIZER;
static struct {
    void *ptr;
    size_t bytes;
    int refs;
} pins[MAX_PINS];

/* One reference to [ptr, ptr + bytes) for plan p: an existing registration of
   ours, the caller's own pinned memory (no reference), or a new registration.
   The lock covers the look-up and the registration, so two plans made at once
   on one array register it once. */
static int pin_one(hfft__place *p, void *ptr, size_t bytes, int *registered) {
    int st = 0, done = 0, free_slot = -1;
    *registered = 0;
    pthread_mutex_lock(&pins_mu);
    for (int i = 0; i < MAX_PINS && !done; i++) {
        if (pins[i].refs && pins[i].ptr == ptr && pins[i].bytes >= bytes) {
            pins[i].refs++;
            *registered = done = 1;
        } else if (!pins[i].refs && free_slot < 0) {
            free_slot = i;
        }
    }
    if (!done && !p->ops->host_is_pinned(p->dev, ptr)) {
        if (free_slot < 0) {
            st = hfft__fail(HFFT_ERR_INTERNAL, "more than %d pinned arrays", MAX_PINS);
        } else if (!(st = p->ops->host_register(p->dev, ptr, bytes))) {
            pins[free_slot].ptr = ptr;
            pins[free_slot].bytes = bytes;
            pins[free_slot].refs = 1;
            *registered = 1;
        }
    }
    pthread_mutex_unlock(&pins_mu);
    return st;
}

void hfft__place_release(hfft__place *p) {
    pthread_mutex_lock(&pins_mu);
    for (int k = 0; k < 2; k++) {
        void *ptr = p->registered[k];
        p->registered[k] = NULL;
        for (int i = 0; ptr && i < MAX_PINS; i++) {
            if (pins[i].refs && pins[i].ptr == ptr) {
                if (--pins[i].refs == 0)
                    p->ops->host_unregister(p->dev, ptr);
                break;
            }
        }
    }
    pthread_mutex_unlock(&pins_mu);
}

/* Registers the arrays that are not pinned yet, for the plan's lifetime, so
   that every copy is a pinned DMA. */
static int pin(hfft__place *p, void *in, size_t in_bytes, void *out, size_t out_bytes) {
    void *arr[2] = {in, out};
    size_t bytes[2] = {in_bytes, out_bytes};
    int pinned = 2;
    if (p->registered[0] || p->registered[1])
        return 0; /* pinned by an earlier build of this plan */
    for (int i = 0; i < 2; i++) {
        if (i == 1 && out == in)
            break;
        int registered;
        /* in place: the larger of the two views */
        size_t b = out == in && in_bytes < out_bytes ? out_bytes : bytes[i];
        int st = pin_one(p, arr[i], b, &registered);
        if (st) {
            hfft__place_release(p);
            return hfft__fail_context(st, "pinning the %s array for the GPU",
                                      i ? "output" : "input");
        }
        if (registered) {
            p->registered[i] = arr[i];
            pinned = 1;
        }
    }
    p->host_pinned = pinned;
    return 0;
}

/*
 * Arrays already pinned (hfft_malloc) are used as they are.  Others are
 * registered for the plan's lifetime (HFFT_PINNING=register, and auto), or
 * left pageable and copied through staging buffers (HFFT_PINNING=stage, and
 * auto where registration fails).
 */
int hfft__place_arrays(hfft__place *p, void *in, size_t in_bytes, void *out, size_t out_bytes,
                       int pinning, hfft__cards *gpu, int threads) {
    int pinned = 1;
    pthread_mutex_lock(&pins_mu);
    for (int i = 0; i < 2; i++) {
        void *ptr = i ? out : in;
        int ours = 0;
        for (int k = 0; k < MAX_PINS && !ours; k++)
            ours = pins[k].refs && pins[k].ptr == ptr;
        pinned &= !ours && p->ops->host_is_pinned(p->dev, ptr);
    }
    pthread_mutex_unlock(&pins_mu);
    if (pinned) {
        p->host_pinned = 2;
        return 0;
    }
    if (pinning == HFFT_PINNING_STAGE) {
        p->host_pinned = 0;
        return hfft__cards_stage(gpu, 1, threads);
    }
    int st = pin(p, in, in_bytes, out, out_bytes);
    if (st && pinning == HFFT_PINNING_AUTO && st != HFFT_ERR_HOST_MEMORY) {
        char why[256];
        snprintf(why, sizeof why, "%s", hfft_last_error_message());
        hfft__clear_error();
        p->host_pinned = 0;
        st = hfft__cards_stage(gpu, 1, threads);
        if (st)
            hfft__fail_context(st, "%s; staging instead", why);
    }
    return st;
}

/*
 * Arrays handed to a plan's new-array executes: the plan's own, pinned
 * already (hfft_malloc, or the caller's), one this plan registered for an
 * earlier execute (kept in a small cache, least recently used first out), or
 * registered now.  Where registration fails under HFFT_PINNING=auto, the
 * engine stages from then on.
 */
static int known(const hfft__place *p, void *ptr) {
    if (ptr == p->registered[0] || ptr == p->registered[1])
        return 1;
    for (int i = 0; i < HFFT__PLACE_CACHE; i++)
        if (p->cache[i].ptr == ptr)
            return 1;
    return 0;
}

static void drop_cached(hfft__place *p, int i) {
    pthread_mutex_lock(&pins_mu);
    for (int k = 0; k < MAX_PINS; k++) {
        if (pins[k].refs && pins[k].ptr == p->cache[i].ptr) {
            if (--pins[k].refs == 0)
                p->ops->host_unregister(p->dev, pins[k].ptr);
            break;
        }
    }
    pthread_mutex_unlock(&pins_mu);
    p->cache_bytes -= (int64_t)p->cache[i].bytes;
    memset(&p->cache[i], 0, sizeof p->cache[i]);
}

int hfft__place_new(hfft__place *p, void *const ptrs[], const size_t bytes[], int n, int pinning,
                    hfft__cards *gpu, int threads) {
    double t0 = hfft__now();
    p->pin_seconds = 0.0;
    for (int a = 0; a < n; a++) {
        void *ptr = ptrs[a];
        if (!ptr || bytes[a] == 0)
            continue;
        int hit = -1;
        for (int i = 0; i < HFFT__PLACE_CACHE && hit < 0; i++)
            if (p->cache[i].ptr == ptr && p->cache[i].bytes >= bytes[a])
                hit = i;
        if (hit >= 0) {
            p->cache[hit].used = ++p->clock;
            continue;
        }
        if (known(p, ptr) || p->host_pinned == 0 || pinning == HFFT_PINNING_STAGE ||
            (p->ops->host_is_pinned(p->dev, ptr) &&
             p->ops->host_is_pinned(p->dev, (char *)ptr + bytes[a] - 1)))
            continue; /* pinned already, or the engine stages */
        int slot = 0;
        for (int i = 1; i < HFFT__PLACE_CACHE; i++)
            if (p->cache[i].used < p->cache[slot].used)
                slot = i;
        if (p->cache[slot].ptr)
            drop_cached(p, slot);
        int registered = 0;
        int st = pin_one(p, ptr, bytes[a], &registered);
        if (st) {
            if (pinning != HFFT_PINNING_AUTO || st == HFFT_ERR_HOST_MEMORY)
                return hfft__fail_context(st, "pinning a new array for the GPU");
            hfft__clear_error();
            p->host_pinned = 0;
            HFFT__TRY(hfft__cards_stage(gpu, 1, threads));
            continue;
        }
        if (registered) {
            p->cache[slot].ptr = ptr;
            p->cache[slot].bytes = bytes[a];
            p->cache[slot].used = ++p->clock;
            p->cache_bytes += (int64_t)bytes[a];
        }
    }
    p->pin_seconds = hfft__now() - t0;
    return 0;
}

void hfft__place_release_all(hfft__place *p) {
    for (int i = 0; i < HFFT__PLACE_CACHE; i++)
        if (p->cache[i].ptr)
            drop_cached(p, i);
    hfft__place_release(p);
}

/*
 * hfft_malloc: memory the GPU copies at full speed, in seconds rather than the
 * minute cudaHostAlloc takes for tens of GiB.  The block is backed by huge
 * pages where the kernel offers them (madvise), first touched by one thread
 * per core (so the page faults run in parallel, and on the cores' own memory
 * node), then registered with the device; for a large block, the contexts of
 * the cards plans use by default are made (hfft__devices_prepare).  A header
 * page before the block says how to give it back.
 */
#define MALLOC_HEAD 4096
#define HUGE_PAGE ((size_t)2 << 20)
#define TOUCH_PIECE ((size_t)64 << 20)
#define CHECK_ABOVE ((size_t)64 << 20) /* blocks this large are set against what is available */
#define PREPARE_ABOVE ((size_t)1 << 30) /* blocks this large: every card's context made */

typedef struct malloc_head {
    const hfft__dev_ops *ops; /* the GPU it is registered with (NULL: none; the emulated
                                 device's record always) */
    void *base;               /* the allocation */
    size_t bytes;             /* its size */
} malloc_head;

typedef struct touch_job {
    char *base;
    size_t bytes;
} touch_job;

static void touch_piece(void *ctx, int64_t i, int thread) {
    (void)thread;
    const touch_job *t = ctx;
    size_t at = (size_t)i * TOUCH_PIECE;
    size_t n = t->bytes - at < TOUCH_PIECE ? t->bytes - at : TOUCH_PIECE;
    memset(t->base + at, 0, n);
}

int64_t hfft__host_available_from(const char *meminfo, const char *cg_max, const char *cg_current) {
    const char *m = meminfo ? strstr(meminfo, "MemAvailable:") : NULL;
    long long kb;
    if (!m || sscanf(m, "MemAvailable: %lld kB", &kb) != 1 || kb < 0)
        return -1;
    int64_t avail = (int64_t)kb * 1024;
    long long max, cur;
    if (cg_max && cg_current && sscanf(cg_max, "%lld", &max) == 1 &&
        sscanf(cg_current, "%lld", &cur) == 1 && max >= 0 && cur >= 0)
        avail = max - cur < avail ? (max - cur > 0 ? max - cur : 0) : avail;
    return avail;
}

/* A small file's text into buf (NULL where it cannot be read). */
static const char *read_text(const char *path, char *buf, size_t n) {
    FILE *f = fopen(path, "r");
    if (!f)
        return NULL;
    size_t got = fread(buf, 1, n - 1, f);
    fclose(f);
    buf[got] = '\0';
    return got ? buf : NULL;
}

static int64_t host_available(void) {
    char mi[8192], mx[64], cu[64];
    return hfft__host_available_from(read_text("/proc/meminfo", mi, sizeof mi),
                                     read_text("/sys/fs/cgroup/memory.max", mx, sizeof mx),
                                     read_text("/sys/fs/cgroup/memory.current", cu, sizeof cu));
}

/* Faults every page in, one piece per job on a pool of one thread per core. */
static void first_touch(char *base, size_t bytes) {
    int64_t pieces = (int64_t)((bytes + TOUCH_PIECE - 1) / TOUCH_PIECE);
    hfft__pool *pool = NULL;
    touch_job t = {base, bytes};
    int threads = hfft__cores();
    if (pieces > 1 && threads > 1 && hfft__pool_create(threads, 0, &pool) == 0) {
        hfft__pool_start(pool, pieces, touch_piece, &t);
        hfft__pool_wait(pool);
        hfft__pool_destroy(pool);
        return;
    }
    hfft__clear_error(); /* no threads: touch here */
    for (int64_t i = 0; i < pieces; i++)
        touch_piece(&t, i, 0);
}

void *hfft__malloc(size_t bytes) {
    /* Pinned where a GPU is usable and not switched off for this process; the
       emulated device records the registration otherwise, as CUDA would. */
    const char *env = getenv("HFFT_DEVICE");
    int no_gpu = env && (strcasecmp(env, "none") == 0 || strcasecmp(env, "cpu") == 0);
    const hfft__dev_ops *ops = !no_gpu && hfft__cuda_usable()
                                   ? hfft__device_ops(HFFT_DEVICE_CUDA)
                                   : NULL;
    /* The emulated device, a test double of CUDA, sees the block pinned too. */
    const hfft__dev_ops *emu = hfft__device_ops(HFFT_DEVICE_EMULATED);
    if (bytes > SIZE_MAX - MALLOC_HEAD - HUGE_PAGE) {
        hfft__fail(HFFT_ERR_INVALID_ARGUMENT, "hfft_malloc: %zu bytes", bytes);
        return NULL;
    }
    size_t total = bytes + MALLOC_HEAD;
    int huge = total >= HUGE_PAGE;
    if (huge)
        total = (total + HUGE_PAGE - 1) / HUGE_PAGE * HUGE_PAGE;
    /* The kernel grants more than it has and ends the process at the first touch of a
       page it cannot give: a block beyond what is available fails here instead. */
    int64_t avail = total >= CHECK_ABOVE ? host_available() : -1;
    if (avail >= 0 && (int64_t)total > avail) {
        hfft__fail(HFFT_ERR_HOST_MEMORY, "hfft_malloc: %s of host memory: %s available",
                   hfft__bytes_text((double)bytes).s, hfft__bytes_text((double)avail).s);
        return NULL;
    }
    void *m = NULL;
    if (hfft__fault_hit("host_alloc") ||
        posix_memalign(&m, huge ? HUGE_PAGE : (size_t)MALLOC_HEAD, total) != 0 || !m) {
        hfft__fail(HFFT_ERR_HOST_MEMORY, "hfft_malloc: %s of host memory: %s", hfft__bytes_text((double)bytes).s,
                   m ? "injected fault" : "out of memory");
        free(m);
        return NULL;
    }
#ifdef MADV_HUGEPAGE
    if (huge)
        (void)madvise(m, total, MADV_HUGEPAGE); /* advice only: a refusal changes nothing */
#endif
    first_touch(m, total);
    int st = ops ? ops->host_register(NULL, m, total) : 0;
    if (!st) {
        st = emu->host_register(NULL, m, total);
        if (st && ops)
            ops->host_unregister(NULL, m);
    }
    if (st) {
        free(m);
        hfft__fail_context(st, "hfft_malloc: registering %s with the device",
                           hfft__bytes_text((double)bytes).s);
        return NULL;
    }
    if (ops && total >= PREPARE_ABOVE)
        hfft__devices_prepare(); /* the cards map it now, not at the first plan */
    malloc_head h = {ops, m, total};
    memcpy(m, &h, sizeof h);
    return (char *)m + MALLOC_HEAD;
}

void hfft__free(void *ptr) {
    if (!ptr)
        return;
    malloc_head h;
    memcpy(&h, (char *)ptr - MALLOC_HEAD, sizeof h);
    if (h.ops)
        h.ops->host_unregister(NULL, h.base);
    hfft__device_ops(HFFT_DEVICE_EMULATED)->host_unregister(NULL, h.base);
    free(h.base);
}
