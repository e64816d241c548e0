/*
 * emulated.h: what the emulated device's files share, private to gpu/: the
 * operations its streams queue (emulated.c), how one runs on the host
 * (emulated_kernels.c), and the registry of pinned host memory
 * (emulated_host.c).  Operations run on the thread that synchronizes; the
 * registry is thread safe.
 */
#ifndef HFFT_GPU_EMULATED_H
#define HFFT_GPU_EMULATED_H

#include <stddef.h>
#include <stdint.h>

#include "cpu/cpu.h"
#include "gpu/butterfly.h"
#include "src/core/device.h"

enum {
    OP_COPY,
    OP_FFT,
    OP_RADIX2,
    OP_RADIXR,
    OP_TRANSPOSE,
    OP_REAL_PAIRS,
    OP_TWIDDLE,
    OP_CHIRP,
    OP_SPIFT,
    OP_R2R,
    OP_RECORD,
    OP_WAIT,
    OP_HOST
};

typedef struct emu_event {
    uint64_t issued, done; /* records issued, and the last one run */
    double at;             /* when the last one ran (host clock) */
} emu_event;

typedef struct emu_op {
    int kind, prec, sign, r;
    void *dst;
    const void *src;
    size_t dpitch, spitch, width, height; /* copies; transposes: pitches, rows, cols */
    int64_t rows, cols, n, k0;            /* kernels */
    int64_t pitch, period, c0;            /* twiddles */
    int64_t batch, sdist, ddist;          /* transposes: members and their distances */
    hfft__chirps chirp;                   /* Bluestein's steps: dst the lines, blk[0] the
                                             buffer, src the table */
    hfft__spift spift;                    /* a streaming image's step: dst, src */
    hfft__r2r_step r2r;                   /* a real-to-real step: dst the lines, src the buffer */
    void *blk[HFFT__RADIXR_MAX];
    hfft__lines *plan;
    void (*fn)(void *);
    void *arg;
    emu_event *ev;
    uint64_t seq;
    uint64_t order; /* issue order on the device */
} emu_op;

/* Runs one queued operation on the calling thread. */
void hfft__emu_execute(const emu_op *op);

/* Host memory the emulated device counts as pinned: allocated by it, or registered. */
int hfft__emu_host_alloc(hfft__dev *d, void **p, size_t bytes);
void hfft__emu_host_free(hfft__dev *d, void *p);
int hfft__emu_host_register(hfft__dev *d, void *p, size_t bytes);
void hfft__emu_host_unregister(hfft__dev *d, void *p);
int hfft__emu_host_is_pinned(hfft__dev *d, const void *p);

#endif
