/*
 * emulated_host.c: host memory the emulated device counts as pinned (from its
 * host_alloc, or registered), one registry per process under a mutex, with
 * the faults HFFT_FAULT injects into those calls.
 */
#include <pthread.h>
#include <stdlib.h>

#include "gpu/emulated.h"
#include "src/core/fault.h"
#include "src/core/status.h"

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

int hfft__emu_host_alloc(hfft__dev *d, void **p, size_t bytes) {
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
void hfft__emu_host_free(hfft__dev *d, void *p) {
    (void)d;
    pins_remove(p, 0);
    free(p);
}
int hfft__emu_host_register(hfft__dev *d, void *p, size_t bytes) {
    (void)d;
    if (hfft__fault_hit("host_register"))
        return hfft__fail(HFFT_ERR_CUDA, "cudaHostRegister failed: injected fault (emulated)");
    return pins_add(p, bytes, 1);
}
void hfft__emu_host_unregister(hfft__dev *d, void *p) {
    (void)d;
    pins_remove(p, 1);
}
int hfft__emu_host_is_pinned(hfft__dev *d, const void *p) {
    (void)d;
    int pinned = 0;
    pthread_mutex_lock(&pins_mu);
    for (pinned_range *q = pins; q && !pinned; q = q->next)
        pinned = (const char *)p >= q->p && (const char *)p < q->p + q->bytes;
    pthread_mutex_unlock(&pins_mu);
    return pinned;
}
