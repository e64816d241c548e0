/*
 * emulated_kernels.c: the emulated device's queued operations run on the host:
 * pitched copies, FFTW's batched lines, and the same butterfly, twiddle and
 * transpose arithmetic as the CUDA kernels (gpu/butterfly.h).
 */
#include <stdint.h>
#include <string.h>

#include "gpu/emulated.h"
#include "gpu/r2r.h"
#include "gpu/spift.h"
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
        int64_t k = op->period ? (op->k0 + r) % op->period : (op->k0 + r) * op->c0;
        for (int64_t c = 0; c < op->cols; c++) {
            int64_t i = 2 * (r * op->pitch + c), kc = op->period ? k * (op->c0 + c) : k;
            if (op->prec == 4)
                hfft__rotate_f((float *)op->dst + i, kc, op->n, op->sign);
            else
                hfft__rotate_d((double *)op->dst + i, kc, op->n, op->sign);
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

/* One of Bluestein's steps (gpu/butterfly.h). */
#define DEFINE_CHIRP(R, sfx)                                                                \
    static void chirp_##sfx(const emu_op *op) {                                             \
        const hfft__chirps *c = &op->chirp;                                                 \
        int64_t len = hfft__chirp_points(c);                                                \
        for (int64_t b = 0; b < c->batch; b++)                                              \
            for (int64_t k = 0; k < len; k++)                                               \
                hfft__chirp_step_##sfx((R *)op->dst, (R *)op->blk[0], (const R *)op->src,   \
                                       c, b, k);                                            \
    }
DEFINE_CHIRP(float, f)
DEFINE_CHIRP(double, d)

/* A streaming image's step (hfft__spift), as the CUDA kernels do it. */
#define DEFINE_SPIFT(R, sfx)                                                                 \
    static void spift_##sfx(const emu_op *op) {                                              \
        const hfft__spift *a = &op->spift;                                                   \
        R *dst = op->dst;                                                                    \
        R *src = (R *)(uintptr_t)op->src;                                                    \
        if (a->step == HFFT__SPIFT_SCATTER) {                                                \
            for (int64_t p = 0; p < a->count; p++) {                                         \
                int64_t c = hfft__spift_cell(a, a->cell[p]);                                 \
                if (c < 0)                                                                   \
                    continue;                                                                \
                dst[2 * c] += src[2 * p];                                                    \
                dst[2 * c + 1] += src[2 * p + 1];                                            \
            }                                                                                \
        } else if (a->step == HFFT__SPIFT_COMBINE) {                                         \
            for (int64_t r = 0; r < a->rows; r++)                                            \
                for (int64_t k = 0; k < a->L; k++) {                                         \
                    R acc[2];                                                                \
                    hfft__spift_combine_at_##sfx(a, src, r, k, acc);                         \
                    dst[2 * (r * a->L + k)] += acc[0];                                       \
                    dst[2 * (r * a->L + k) + 1] += acc[1];                                   \
                }                                                                            \
        } else if (a->step == HFFT__SPIFT_ZERO) {                                            \
            memset(dst, 0, (size_t)a->count * 2 * sizeof(R));                                \
        } else if (a->step == HFFT__SPIFT_ADD) {                                             \
            for (int64_t k = 0; k < 2 * a->count; k++) {                                     \
                dst[k] += src[k];                                                            \
                src[k] = 0;                                                                  \
            }                                                                                \
        } else {                                                                             \
            for (int64_t j = a->row0; j < a->row0 + a->rows; j++)                            \
                for (int64_t k = 0; k < a->L; k++) {                                         \
                    R acc[2];                                                                \
                    hfft__spift_at_##sfx(a, src, a->tw, j, k, acc);                          \
                    dst[2 * ((j - a->drow) * a->L + k)] += acc[0];                           \
                    dst[2 * ((j - a->drow) * a->L + k) + 1] += acc[1];                       \
                }                                                                            \
        }                                                                                    \
    }
DEFINE_SPIFT(float, f)
DEFINE_SPIFT(double, d)

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
    case OP_R2R: {
        const hfft__r2r_step *a = &op->r2r;
        if (a->step == HFFT__R2R_WHOLE) /* the tables once, after the line's points */
            for (int64_t e = 0; e < hfft__r2r_whole_tabs(a->kind, a->n, a->m); e++) {
                if (op->prec == 4)
                    hfft__r2r_whole_tab_f((float *)op->src + 2 * a->m, a->kind, a->n, a->m, e);
                else
                    hfft__r2r_whole_tab_d((double *)op->src + 2 * a->m, a->kind, a->n, a->m, e);
            }
        for (int64_t l = 0; l < a->count; l++) {
            if (op->prec == 4)
                hfft__r2r_line_step_f(a, op->dst, (float *)op->src, l);
            else
                hfft__r2r_line_step_d(a, op->dst, (double *)op->src, l);
        }
        break;
    }
    case OP_SPIFT:
        if (op->prec == 4)
            spift_f(op);
        else
            spift_d(op);
        break;
    case OP_RECORD:
        op->ev->done = op->seq;
        op->ev->at = hfft__now();
        break;
    case OP_HOST: op->fn(op->arg); break;
    default: /* OP_WAIT: nothing left to do once ready */ break;
    }
}
