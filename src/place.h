/*
 * place.h: where a GPU plan's host arrays stand, and hfft_malloc.  Arrays
 * from hfft_malloc are pinned already; others are registered for the plan's
 * lifetime (counted in one process-wide table, so that plans may share an
 * array) or left pageable and copied through the engine's staging buffers.
 *
 * Thread safety: every function is thread safe; an hfft__place belongs to
 * one plan, which releases it.
 */
#ifndef HFFT_SRC_PLACE_H
#define HFFT_SRC_PLACE_H

#include <stddef.h>
#include <stdint.h>

#include "gpu/cards.h"
#include "src/core/device.h"

#define HFFT__PLACE_CACHE 8 /* new arrays a plan keeps registered, at most */

typedef struct hfft__place {
    const hfft__dev_ops *ops; /* the plan's device */
    hfft__dev *dev;
    void *registered[2];      /* ranges this plan holds a reference to */
    int host_pinned;          /* as hfft_info.host_pinned */
    struct {
        void *ptr;
        size_t bytes;
        uint64_t used;
    } cache[HFFT__PLACE_CACHE]; /* new arrays it registered, by last use */
    uint64_t clock;
    int64_t cache_bytes;      /* bytes the cache holds registered */
    double pin_seconds;       /* registering in the last new-array execute */
} hfft__place;

/* Pins or stages the arrays [in, in + in_bytes) and [out, out + out_bytes) for gpu,
   as `pinning` (enum hfft_pinning) says; `threads` host threads stage. */
int hfft__place_arrays(hfft__place *p, void *in, size_t in_bytes, void *out, size_t out_bytes,
                       int pinning, hfft__cards *gpu, int threads);
/* Gives back this plan's references to its own arrays; the last one unregisters. */
void hfft__place_release(hfft__place *p);
/* New arrays for an execute (n of them, bytes each from its base): registered on
   first use and kept in the plan's cache, or staged where registration fails
   under pinning auto. */
int hfft__place_new(hfft__place *p, void *const ptrs[], const size_t bytes[], int n, int pinning,
                    hfft__cards *gpu, int threads);
/* hfft__place_release and the cache's registrations too. */
void hfft__place_release_all(hfft__place *p);

/* hfft_malloc and hfft_free.  hfft__malloc refuses a block larger than the host
   memory available (HFFT_ERR_HOST_MEMORY) rather than touch pages the kernel cannot
   give, which ends the process. */
void *hfft__malloc(size_t bytes);
/* Bytes of host memory available to this process: MemAvailable from the text of
   /proc/meminfo, less where a cgroup's limit (memory.max, "max": none) less its
   use (memory.current) leaves less; either text may be NULL; -1 where meminfo
   gives no figure. */
int64_t hfft__host_available_from(const char *meminfo, const char *cg_max, const char *cg_current);
void hfft__free(void *ptr);

#endif
