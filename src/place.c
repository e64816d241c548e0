/*
 * place.c: where a GPU plan's host arrays stand.  Arrays from hfft_malloc are
 * pinned already; others are registered (cudaHostRegister) for the plan's
 * lifetime, counted so that several plans may share one array, or left
 * pageable and copied through staging buffers.  Also hfft_malloc and
 * hfft_free.  The registration table is process-wide, under one lock.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu/devices.h"
#include "gpu/engine.h"
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
static int pin(hfft__place *p, void *in, void *out, size_t bytes) {
    void *arr[2] = {in, out};
    int pinned = 2;
    if (p->registered[0] || p->registered[1])
        return 0; /* pinned by an earlier build of this plan */
    for (int i = 0; i < 2; i++) {
        if (i == 1 && out == in)
            break;
        int registered;
        int st = pin_one(p, arr[i], bytes, &registered);
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
int hfft__place_arrays(hfft__place *p, void *in, void *out, size_t bytes, int pinning,
                       hfft__gpu *gpu, int threads) {
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
        return hfft__gpu_stage(gpu, 1, threads);
    }
    int st = pin(p, in, out, bytes);
    if (st && pinning == HFFT_PINNING_AUTO && st != HFFT_ERR_HOST_MEMORY) {
        char why[256];
        snprintf(why, sizeof why, "%s", hfft_last_error_message());
        hfft__clear_error();
        p->host_pinned = 0;
        st = hfft__gpu_stage(gpu, 1, threads);
        if (st)
            hfft__fail_context(st, "%s; staging instead", why);
    }
    return st;
}

#define MALLOC_HEAD 4096

void *hfft__malloc(size_t bytes) {
    /* The block starts a page after the allocation, whose first bytes say how it
       was allocated: page-aligned rows keep pitched copies at the link's rate. */
    /* Pinned where a GPU is usable and not switched off for this process. */
    const char *env = getenv("HFFT_DEVICE");
    int no_gpu = env && (strcmp(env, "none") == 0 || strcmp(env, "cpu") == 0);
    const hfft__dev_ops *ops = !no_gpu && hfft__cuda_usable()
                                   ? hfft__device_ops(HFFT_DEVICE_CUDA)
                                   : hfft__device_ops(HFFT_DEVICE_EMULATED);
    if (bytes > SIZE_MAX - MALLOC_HEAD) {
        hfft__fail(HFFT_ERR_INVALID_ARGUMENT, "hfft_malloc: %zu bytes", bytes);
        return NULL;
    }
    void *m = NULL;
    if (ops->host_alloc(NULL, &m, bytes + MALLOC_HEAD))
        return NULL;
    memcpy(m, &ops, sizeof ops);
    return (char *)m + MALLOC_HEAD;
}

void hfft__free(void *ptr) {
    if (!ptr)
        return;
    char *m = (char *)ptr - MALLOC_HEAD;
    const hfft__dev_ops *ops;
    memcpy(&ops, m, sizeof ops);
    ops->host_free(NULL, m);
}

