/*
 * emulated_kernels.c: the emulated device's queued operations run on the host:
 * pitched copies, FFTW's batched lines, and the same butterfly, twiddle and
 * transpose arithmetic as the CUDA kernels (gpu/butterfly.h).
 */
#include <string.h>

#include "gpu/emulated.h"
#include "src/core/chirp.h"
#include "src/core/status.h"

static void copy2d(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width,
                   size_t height) {
    for (size_t r = 0; r < height; r++)
        memcpy((char *)dst + r * dpitch, (const char *)src + r * spitch, width);
}

static void radix2(const emu_op *op) {
    for (int64_t r = 0; r < op->rows; r++) {
        double wr, wi;
        hfft__twiddle(op->k0 + r, op->n, op->sign, &wr, &wi);
        for (int64_t c = 0; c < op->cols; c++) {
            int64_t i = 2 * (r * op->cols + c);
            if (op->prec == 4)
                hfft__radix2_f((float *)op->dst + i, (float *)op->blk[0] + i, wr, wi);
            else
                hfft__radix2_d((double *)op->dst + i, (double *)op->blk[0] + i, wr, wi);
        }
    }
}

static void radixr(const emu_op *op) {
    for (int64_t row = 0; row < op->rows; row++) {
        for (int64_t c = 0; c < op->cols; c++) {
            int64_t i = 2 * (row * op->cols + c);
            if (op->prec == 4) {
                float *v[HFFT__RADIXR_MAX];
                for (int j = 0; j < op->r; j++)
                    v[j] = (float *)op->blk[j] + i;
                hfft__radixr_f(v, op->r, op->k0 + row, op->n, op->sign);
            } else {
                double *v[HFFT__RADIXR_MAX];
                for (int j = 0; j < op->r; j++)
                    v[j] = (double *)op->blk[j] + i;
                hfft__radixr_d(v, op->r, op->k0 + row, op->n, op->sign);
            }
        }
    }
}

static void twiddle(const emu_op *op) {
    for (int64_t r = 0; r < op->rows; r++) {
        int64_t k = (op->k0 + r) % op->period;
        for (int64_t c = 0; c < op->cols; c++) {
            int64_t i = 2 * (r * op->pitch + c);
            if (op->prec == 4)
                hfft__rotate_f((float *)op->dst + i, k * (op->c0 + c), op->n, op->sign);
            else
                hfft__rotate_d((double *)op->dst + i, k * (op->c0 + c), op->n, op->sign);
        }
    }
}

/* Batched transposes, each element times exp(sign 2 pi i r c / op->n) where op->n > 0. */
static void transpose(const emu_op *op) {
    size_t es = 2u * (size_t)op->prec;
    for (int64_t b = 0; b < op->batch; b++) {
        const char *src = (const char *)op->src + (size_t)(b * op->sdist) * es;
        char *dst = (char *)op->dst + (size_t)(b * op->ddist) * es;
        for (size_t r = 0; r < op->width; r++)
            for (size_t c = 0; c < op->height; c++) {
                char *to = dst + (c * op->dpitch + r) * es;
                memcpy(to, src + (r * op->spitch + c) * es, es);
                if (op->n > 0 && op->prec == 4)
                    hfft__rotate_f((float *)(void *)to, (int64_t)(r * c), op->n, op->sign);
                else if (op->n > 0)
                    hfft__rotate_d((double *)(void *)to, (int64_t)(r * c), op->n, op->sign);
            }
    }
}

/* hfft__real_pair on op->batch rows of op->n + 1 complex elements, op->pitch apart;
   op->sign 1: forward. */
static void real_pairs(const emu_op *op) {
    for (int64_t b = 0; b < op->batch; b++)
        for (int64_t k = 0; k <= op->n / 2; k++) {
            if (op->prec == 4)
                hfft__real_pair_f((float *)op->dst + 2 * b * op->pitch, k, op->n, op->sign);
            else
                hfft__real_pair_d((double *)op->dst + 2 * b * op->pitch, k, op->n, op->sign);
        }
}

/* One of Bluestein's steps (hfft__chirps), in double whatever the precision. */
#define DEFINE_CHIRP(R, sfx)                                                                \
    static void chirp_##sfx(const emu_op *op) {                                             \
        const hfft__chirps *c = &op->chirp;                                                 \
        int64_t len = c->step == HFFT__CHIRP_OUT ? c->n : c->M;                             \
        const R *t = op->src;                                                               \
        for (int64_t b = 0; b < c->batch; b++)                                              \
            for (int64_t k = 0; k < len; k++) {                                             \
                R *x = (R *)op->blk[0] + 2 * (b * c->M + k);                                \
                double wr, wi, fr, fi;                                                      \
                if (c->step == HFFT__CHIRP_MUL) {                                           \
                    wr = (double)t[2 * k];                                                  \
                    wi = (double)t[2 * k + 1];                                              \
                    fr = (double)x[0];                                                      \
                    fi = (double)x[1];                                                      \
                    x[0] = (R)(fr * wr - fi * wi);                                          \
                    x[1] = (R)(fr * wi + fi * wr);                                          \
                    continue;                                                               \
                }                                                                           \
                if (k >= c->n) { /* the padding */                                          \
                    x[0] = x[1] = 0;                                                        \
                    continue;                                                               \
                }                                                                           \
                R *y = (R *)op->dst + 2 * (b * c->dist + k * c->stride);                    \
                hfft__chirp(k, c->n, c->sign, &wr, &wi);                                    \
                const R *from = c->step == HFFT__CHIRP_IN ? y : x;                          \
                R *to = c->step == HFFT__CHIRP_OUT ? y : x;                                 \
                fr = (double)from[0];                                                       \
                fi = (double)from[1];                                                       \
                to[0] = (R)(fr * wr - fi * wi);                                             \
                to[1] = (R)(fr * wi + fi * wr);                                             \
            }                                                                               \
    }
DEFINE_CHIRP(float, f)
DEFINE_CHIRP(double, d)

void hfft__emu_execute(const emu_op *op) {
    switch (op->kind) {
    case OP_COPY: copy2d(op->dst, op->dpitch, op->src, op->spitch, op->width, op->height); break;
    case OP_FFT: hfft__lines_exec(op->plan, op->dst, op->dst); break;
    case OP_RADIX2: radix2(op); break;
    case OP_RADIXR: radixr(op); break;
    case OP_TRANSPOSE: transpose(op); break;
    case OP_REAL_PAIRS: real_pairs(op); break;
    case OP_TWIDDLE: twiddle(op); break;
    case OP_CHIRP:
        if (op->prec == 4)
            chirp_f(op);
        else
            chirp_d(op);
        break;
    case OP_RECORD:
        op->ev->done = op->seq;
        op->ev->at = hfft__now();
        break;
    case OP_HOST: op->fn(op->arg); break;
    default: /* OP_WAIT: nothing left to do once ready */ break;
    }
}
