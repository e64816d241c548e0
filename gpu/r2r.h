/*
 * r2r.h: the real-to-real kinds on a card, each a complex FFT of m points with
 * a step before it (buf = the kind's sequence from a line) and one after it
 * (the line = the kind's output from buf), written once for the CUDA kernels
 * (__host__ __device__ under nvcc) and for the emulated device (plain C).
 *
 * Every kind is real-linear with real coefficients, so the same steps apply
 * it to a complex line (its real and imaginary parts as two real lines, the
 * pairs of src/core/problem.h) or to a real line read with imaginary parts
 * zero (a row: the line's reals, of which only the real parts are written).
 * With X the FFT of buf (sign hfft__r2r_sign), W = exp(-i pi / 2n):
 *   R2HC    buf = x;  y_k = (X_k + X_-k) / 2 (2k <= n), (X_-k - X_k) / 2i
 *   DHT     buf = x;  y_k = ((1 + i) X_k + (1 - i) X_-k) / 2
 *   HC2R    buf_0 = x_0, buf_t = x_t + i x_n-t (2t < n), x_n-t - i x_t, x_n/2;
 *           y = X (the inverse FFT)
 *   REDFT10 buf = Makhoul's order (x_0, x_2, ..., then the odd ones reversed);
 *           y_k = W^k X_k + W^-k X_-k
 *   RODFT10 the same on (-1)^j x_j, y reversed
 *   REDFT01 buf_0 = x_0, buf_t = W^-t (x_t - i x_n-t); y in Makhoul's order
 *           undone (the inverse FFT: REDFT10's inverse times 2n)
 *   RODFT01 the same on x reversed, y_k times (-1)^k
 *   REDFT11 m = 2n, buf_t = W^t x_t (t < n, zero after);
 *           y_k = V^(2k+1) X_k + V^-(2k+1) X_2n-1-k, V = exp(-i pi / 4n)
 *   RODFT11 the same on x reversed, y_k times (-1)^k
 *   REDFT00 m = 2(n - 1), buf the even extension; y_k = X_k
 *   RODFT00 m = 2(n + 1), buf the odd extension (0, x, 0, -x reversed);
 *           y_k = i X_k+1
 * Twiddles come from exact integer phases (src/core/twiddle.h); the steps
 * compute in double in both precisions.  The one-pass step (below) reads its
 * twiddles, the same values rounded to the array's precision, from tables that
 * a card keeps in shared memory, and runs its FFT in that precision, as cuFFT
 * does.
 */
#ifndef HFFT_GPU_R2R_H
#define HFFT_GPU_R2R_H

#include <stdint.h>

#include "gpu/butterfly.h"
#include "hfft.h"
#include "src/core/device.h"
#include "src/core/twiddle.h"

/* Points of the complex FFT that a kind of n reals takes. */
HFFT__HD int64_t hfft__r2r_points(int kind, int64_t n) {
    return kind == HFFT_REDFT00   ? 2 * (n - 1)
           : kind == HFFT_RODFT00 ? 2 * (n + 1)
           : kind == HFFT_REDFT11 || kind == HFFT_RODFT11 ? 2 * n
                                                           : n;
}

/* That FFT's sign: the inverse for the kinds that undo another. */
HFFT__HD int hfft__r2r_sign(int kind) {
    return kind == HFFT_HC2R || kind == HFFT_REDFT01 || kind == HFFT_RODFT01 ? HFFT_BACKWARD
                                                                             : HFFT_FORWARD;
}

/* Where line b of a step starts, in complex elements (in 32 bits where b and inner
   fit: a 64-bit division is a long routine on a card, and the kernels take a line's
   start once for a few of its points). */
HFFT__HD int64_t hfft__r2r_line(const hfft__r2r_step *a, int64_t b) {
    int64_t q;
    if (((uint64_t)b | (uint64_t)a->inner) >> 32 == 0)
        q = (int64_t)((uint32_t)b / (uint32_t)a->inner);
    else
        q = b / a->inner;
    return q * a->odist + (b - q * a->inner) * a->idist;
}

/*
 * The one-pass step (HFFT__R2R_WHOLE): each line's kind in one read and one write
 * of the line, where the FFT's m points are a power of two that fits a card's
 * shared memory beside the line: the step before writes the kind's sequence in
 * bit-reversed order, radix-2 passes in place give the FFT in natural order, and
 * the step after writes the line.  The lines of a card's block (the value below)
 * are neighbours in memory where the lines lie across (columns): 64 bytes or more
 * of each point's row are read and written at once.  Longer lines, four to a
 * block (32 bytes), gained nothing in one trip of a 1024^3 DCT-II and ran up to
 * 4% slower streamed at 1 GiB than the three kernels, which keep them.
 */
#define HFFT__R2R_WHOLE_MOST(prec) ((prec) == 4 ? 512 : 256)   /* points */
#define HFFT__R2R_WHOLE_BLOCK(prec) ((prec) == 4 ? 4096 : 2048) /* points a block */

/* Lines a block of the one-pass step takes for an FFT of m points, or 0 where the
   step does not take m. */
HFFT__HD int hfft__r2r_whole_lines(int prec, int64_t m) {
    if (m < 1 || m > HFFT__R2R_WHOLE_MOST(prec) || (m & (m - 1)))
        return 0;
    int64_t c = HFFT__R2R_WHOLE_BLOCK(prec) / m;
    return c > 64 ? 64 : (int)c;
}

/* The lm low bits of k in reverse order. */
HFFT__HD int64_t hfft__bitrev(int64_t k, int lm) {
#ifdef __CUDA_ARCH__
    return lm ? (int64_t)(__brevll((unsigned long long)k) >> (64 - lm)) : 0;
#else
    int64_t r = 0;
    for (int i = 0; i < lm; i++)
        r = r << 1 | (k >> i & 1);
    return r;
#endif
}

/* Point j of a line's FFT in the buffer (hfft__r2r_post's X). */
#define XR_(j) ((double)X[2 * (j)])
#define XI_(j) ((double)X[2 * (j) + 1])

/* Entries of a kind's table of twiddles (hfft__r2r_whole_tab): types II and III take
   exp(-2 pi i j / 4n) for j < n, types IV exp(-2 pi i j / 8n) for j < 2n. */
HFFT__HD int64_t hfft__r2r_table_len(int kind, int64_t n) {
    return kind == HFFT_REDFT11 || kind == HFFT_RODFT11   ? 2 * n
           : kind == HFFT_REDFT10 || kind == HFFT_RODFT10 ||
                   kind == HFFT_REDFT01 || kind == HFFT_RODFT01
               ? n
               : 0;
}

/* Entries (complex) of the one-pass step's tables: the FFT's m/2 twiddles, then the
   kind's table. */
HFFT__HD int64_t hfft__r2r_whole_tabs(int kind, int64_t n, int64_t m) {
    return m / 2 + hfft__r2r_table_len(kind, n);
}

/* Points of the one-pass step's buffer: one line of m (the emulated device's), then
   the tables. */
HFFT__HD int64_t hfft__r2r_whole_buf(int kind, int64_t n, int64_t m) {
    return m + hfft__r2r_whole_tabs(kind, n, m);
}

#define HFFT__DEFINE_R2R(R, sfx)                                                               \
    /* Entry e of the one-pass step's tables at tab: the FFT's twiddles exp(sign 2 pi i e / m) \
       for e < m/2, then entry e - m/2 of the kind's (hfft__r2r_table_len), rounded to R. */   \
    HFFT__HD void hfft__r2r_whole_tab_##sfx(R *tab, int kind, int64_t n, int64_t m,            \
                                            int64_t e) {                                       \
        int64_t h = m / 2, big = kind == HFFT_REDFT11 || kind == HFFT_RODFT11 ? 8 * n : 4 * n; \
        double wr, wi;                                                                         \
        if (e < h)                                                                             \
            hfft__twiddle(e, m, hfft__r2r_sign(kind), &wr, &wi);                               \
        else                                                                                   \
            hfft__twiddle(e - h, big, HFFT_FORWARD, &wr, &wi);                                 \
        tab[2 * e] = (R)wr;                                                                    \
        tab[2 * e + 1] = (R)wi;                                                                \
    }                                                                                          \
    /* exp(sign 2 pi i k / N): entry j of the kind's table where tt is given (a card's         \
       one-pass step, whose shared memory holds it), else computed. */                         \
    HFFT__HD void hfft__r2r_w_##sfx(const R *tt, int64_t j, int64_t k, int64_t N, int sign,    \
                                    double *wr, double *wi) {                                  \
        if (tt) {                                                                              \
            *wr = (double)tt[2 * j];                                                           \
            *wi = sign == HFFT_FORWARD ? (double)tt[2 * j + 1] : -(double)tt[2 * j + 1];       \
        } else {                                                                               \
            hfft__twiddle(k, N, sign, wr, wi);                                                 \
        }                                                                                      \
    }                                                                                          \
    /* Element j of a line (starting at `line`): a row's real, or a pair. */                   \
    HFFT__HD void hfft__r2r_get_##sfx(const hfft__r2r_step *a, const R *line, int64_t j,       \
                                      double *re, double *im) {                                \
        if (a->row) {                                                                          \
            *re = (double)line[j];                                                             \
            *im = 0.0;                                                                         \
        } else {                                                                               \
            *re = (double)line[2 * j * a->stride];                                             \
            *im = (double)line[2 * j * a->stride + 1];                                         \
        }                                                                                      \
    }                                                                                          \
    /* buf point t of a line, for a->kind given as `kind` (a constant in the CUDA              \
       kernels, one instance a kind, so that each compiles to its own kind's steps). */        \
    HFFT__HD void hfft__r2r_pre_##sfx(const hfft__r2r_step *a, int kind, const R *tt,          \
                                      const R *line, int64_t t, R *w) {                        \
        int64_t n = a->n, m = a->m;                                                            \
        double re = 0.0, im = 0.0, br, bi, wr, wi;                                             \
        int neg = 0, rot = 0;                                                                  \
        switch (kind) {                                                                        \
        case HFFT_HC2R:                                                                        \
            if (t == 0 || 2 * t == n) {                                                        \
                hfft__r2r_get_##sfx(a, line, t, &re, &im);                                     \
            } else if (2 * t < n) { /* x_t + i x_n-t */                                        \
                hfft__r2r_get_##sfx(a, line, t, &re, &im);                                     \
                hfft__r2r_get_##sfx(a, line, n - t, &br, &bi);                                 \
                re -= bi;                                                                      \
                im += br;                                                                      \
            } else { /* x_n-t - i x_t */                                                       \
                hfft__r2r_get_##sfx(a, line, n - t, &re, &im);                                 \
                hfft__r2r_get_##sfx(a, line, t, &br, &bi);                                     \
                re += bi;                                                                      \
                im -= br;                                                                      \
            }                                                                                  \
            break;                                                                             \
        case HFFT_REDFT10:                                                                     \
        case HFFT_RODFT10:                                                                     \
            if (t < (n + 1) / 2) {                                                             \
                hfft__r2r_get_##sfx(a, line, 2 * t, &re, &im);                                 \
            } else {                                                                           \
                hfft__r2r_get_##sfx(a, line, 2 * n - 1 - 2 * t, &re, &im);                     \
                neg = kind == HFFT_RODFT10;                                                    \
            }                                                                                  \
            break;                                                                             \
        case HFFT_REDFT01:                                                                     \
        case HFFT_RODFT01: {                                                                   \
            int rev = kind == HFFT_RODFT01;                                                    \
            if (t == 0) {                                                                      \
                hfft__r2r_get_##sfx(a, line, rev ? n - 1 : 0, &re, &im);                       \
                break;                                                                         \
            }                                                                                  \
            hfft__r2r_get_##sfx(a, line, rev ? n - 1 - t : t, &re, &im);                       \
            hfft__r2r_get_##sfx(a, line, rev ? t - 1 : n - t, &br, &bi);                       \
            re += bi; /* minus i times the second */                                           \
            im -= br;                                                                          \
            hfft__r2r_w_##sfx(tt, t, t, 4 * n, HFFT_BACKWARD, &wr, &wi);                       \
            rot = 1;                                                                           \
            break;                                                                             \
        }                                                                                      \
        case HFFT_REDFT11:                                                                     \
        case HFFT_RODFT11:                                                                     \
            if (t < n) {                                                                       \
                hfft__r2r_get_##sfx(a, line, kind == HFFT_RODFT11 ? n - 1 - t : t, &re,        \
                                    &im);                                                      \
                hfft__r2r_w_##sfx(tt, 2 * t, t, 4 * n, HFFT_FORWARD, &wr, &wi);                \
                rot = 1;                                                                       \
            }                                                                                  \
            break;                                                                             \
        case HFFT_REDFT00:                                                                     \
            hfft__r2r_get_##sfx(a, line, t < n ? t : m - t, &re, &im);                         \
            break;                                                                             \
        case HFFT_RODFT00:                                                                     \
            if (t >= 1 && t <= n) {                                                            \
                hfft__r2r_get_##sfx(a, line, t - 1, &re, &im);                                 \
            } else if (t >= n + 2) {                                                           \
                hfft__r2r_get_##sfx(a, line, m - t - 1, &re, &im);                             \
                neg = 1;                                                                       \
            }                                                                                  \
            break;                                                                             \
        default: /* R2HC, DHT */                                                               \
            hfft__r2r_get_##sfx(a, line, t, &re, &im);                                         \
            break;                                                                             \
        }                                                                                      \
        if (rot) {                                                                             \
            double r = wr * re - wi * im;                                                      \
            im = wr * im + wi * re;                                                            \
            re = r;                                                                            \
        }                                                                                      \
        w[0] = (R)(neg ? -re : re);                                                            \
        w[1] = (R)(neg ? -im : im);                                                            \
    }                                                                                          \
    /* Output k of a line from its FFT X (buf's m points); `kind` as above. */                 \
    HFFT__HD void hfft__r2r_post_##sfx(const hfft__r2r_step *a, int kind, const R *tt,         \
                                       const R *X, int64_t k, double *yr, double *yi) {        \
        int64_t n = a->n;                                                                      \
        double ar, ai, br, bi, wr, wi, vr, vi;                                                 \
        int flip = 0;                                                                          \
        switch (kind) {                                                                        \
        case HFFT_R2HC:                                                                        \
            if (2 * k <= n) {                                                                  \
                int64_t q = k ? n - k : 0;                                                     \
                *yr = 0.5 * (XR_(k) + XR_(q));                                                 \
                *yi = 0.5 * (XI_(k) + XI_(q));                                                 \
            } else { /* (X_-k - X_k) / 2i, k' = n - k */                                       \
                ar = XR_((n - k)) - XR_(k);                                                    \
                ai = XI_((n - k)) - XI_(k);                                                    \
                *yr = 0.5 * ai;                                                                \
                *yi = -0.5 * ar;                                                               \
            }                                                                                  \
            return;                                                                            \
        case HFFT_DHT: {                                                                       \
            int64_t q = k ? n - k : 0;                                                         \
            ar = XR_(k);                                                                       \
            ai = XI_(k);                                                                       \
            br = XR_(q);                                                                       \
            bi = XI_(q);                                                                       \
            *yr = 0.5 * ((ar - ai) + (br + bi));                                               \
            *yi = 0.5 * ((ar + ai) + (bi - br));                                               \
            return;                                                                            \
        }                                                                                      \
        case HFFT_REDFT10:                                                                     \
        case HFFT_RODFT10: {                                                                   \
            int64_t kk = kind == HFFT_RODFT10 ? n - 1 - k : k, q = kk ? n - kk : 0;            \
            hfft__r2r_w_##sfx(tt, kk, kk, 4 * n, HFFT_FORWARD, &wr, &wi);                      \
            ar = XR_(kk);                                                                      \
            ai = XI_(kk);                                                                      \
            br = XR_(q);                                                                       \
            bi = XI_(q);                                                                       \
            /* W^k a + conj(W^k) b */                                                          \
            *yr = (wr * ar - wi * ai) + (wr * br + wi * bi);                                   \
            *yi = (wr * ai + wi * ar) + (wr * bi - wi * br);                                   \
            return;                                                                            \
        }                                                                                      \
        case HFFT_REDFT01:                                                                     \
        case HFFT_RODFT01: {                                                                   \
            int64_t j = k % 2 == 0 ? k / 2 : n - 1 - (k - 1) / 2;                              \
            flip = kind == HFFT_RODFT01 && k % 2;                                              \
            *yr = XR_(j);                                                                      \
            *yi = XI_(j);                                                                      \
            break;                                                                             \
        }                                                                                      \
        case HFFT_REDFT11:                                                                     \
        case HFFT_RODFT11: {                                                                   \
            int64_t q = 2 * n - 1 - k;                                                         \
            hfft__r2r_w_##sfx(tt, 2 * k + 1, 2 * k + 1, 8 * n, HFFT_FORWARD, &wr, &wi);        \
            ar = XR_(k);                                                                       \
            ai = XI_(k);                                                                       \
            br = XR_(q);                                                                       \
            bi = XI_(q);                                                                       \
            vr = (wr * ar - wi * ai) + (wr * br + wi * bi);                                    \
            vi = (wr * ai + wi * ar) + (wr * bi - wi * br);                                    \
            flip = kind == HFFT_RODFT11 && k % 2;                                              \
            *yr = vr;                                                                          \
            *yi = vi;                                                                          \
            break;                                                                             \
        }                                                                                      \
        case HFFT_RODFT00: /* i X_k+1 */                                                       \
            *yr = -XI_((k + 1));                                                               \
            *yi = XR_((k + 1));                                                                \
            return;                                                                            \
        default: /* HC2R, REDFT00 */                                                           \
            *yr = XR_(k);                                                                      \
            *yi = XI_(k);                                                                      \
            return;                                                                            \
        }                                                                                      \
        if (flip) {                                                                            \
            *yr = -*yr;                                                                        \
            *yi = -*yi;                                                                        \
        }                                                                                      \
    }                                                                                          \
    /* Output t of a line (starting at `line`): a row's real, or a pair. */                    \
    HFFT__HD void hfft__r2r_put_##sfx(const hfft__r2r_step *a, R *line, int64_t t, double yr,  \
                                      double yi) {                                             \
        if (a->row) {                                                                          \
            line[t] = (R)yr;                                                                   \
        } else {                                                                               \
            line[2 * t * a->stride] = (R)yr;                                                   \
            line[2 * t * a->stride + 1] = (R)yi;                                               \
        }                                                                                      \
    }                                                                                          \
    /* Stages p to p + s - 1 (s <= 3) of the in-place radix-2 FFT over the m = 2^lm points     \
       X, which hold the sequence in bit-reversed order before stage 0, on group g < m/2^s:    \
       the 2^s points i0 + r 2^p, each stage's butterflies among them in registers (stage      \
       q's half span 2^q, twiddle W_2^(q+1)^(position) = tw[position m / 2^(q+1)]). */         \
    HFFT__HD void hfft__r2r_stages_##sfx(R *X, int64_t g, int p, int s, int lm, const R *tw) { \
        int64_t h = (int64_t)1 << p, j = g & (h - 1), i0 = ((g >> p) << (p + s)) + j;          \
        R vr[8], vi[8];                                                                        \
        for (int r = 0; r < (1 << s); r++) {                                                   \
            vr[r] = X[2 * (i0 + r * h)];                                                       \
            vi[r] = X[2 * (i0 + r * h) + 1];                                                   \
        }                                                                                      \
        for (int q = 0; q < s; q++)                                                            \
            for (int r = 0; r < (1 << s); r++)                                                 \
                if (!(r >> q & 1)) {                                                           \
                    int b = r + (1 << q);                                                      \
                    int64_t e = (j + (int64_t)(r & ((1 << q) - 1)) * h) << (lm - 1 - p - q);   \
                    R wr = tw[2 * e], wi = tw[2 * e + 1];                                      \
                    R tr = wr * vr[b] - wi * vi[b], ti = wr * vi[b] + wi * vr[b];              \
                    vr[b] = vr[r] - tr;                                                        \
                    vi[b] = vi[r] - ti;                                                        \
                    vr[r] = vr[r] + tr;                                                        \
                    vi[r] = vi[r] + ti;                                                        \
                }                                                                              \
        for (int r = 0; r < (1 << s); r++) {                                                   \
            X[2 * (i0 + r * h)] = vr[r];                                                       \
            X[2 * (i0 + r * h) + 1] = vi[r];                                                   \
        }                                                                                      \
    }                                                                                          \
    /* Line b0 + l of a step, every point of it in buf (PRE) or every output (POST), one       \
       after the other: the emulated device's loop (the CUDA kernel spreads the points         \
       over threads).  WHOLE: buf holds one line's m points, the m/2 twiddles of its FFT       \
       and the kind's table (hfft__r2r_whole_buf). */                                          \
    HFFT__HD void hfft__r2r_line_step_##sfx(const hfft__r2r_step *a, R *lines, R *buf,         \
                                            int64_t l) {                                       \
        R *line = lines + 2 * hfft__r2r_line(a, a->b0 + l);                                    \
        if (a->step == HFFT__R2R_WHOLE) {                                                      \
            int lm = a->m > 1 ? hfft__ctz64((uint64_t)a->m) : 0;                               \
            const R *tw = buf + 2 * a->m, *tt = tw + 2 * (a->m / 2);                           \
            for (int64_t t = 0; t < a->m; t++)                                                 \
                hfft__r2r_pre_##sfx(a, a->kind, tt, line, t, buf + 2 * hfft__bitrev(t, lm));   \
            for (int p = 0; p < lm; p += 3) {                                                  \
                int s = lm - p < 3 ? lm - p : 3;                                               \
                for (int64_t g = 0; g < a->m >> s; g++)                                        \
                    hfft__r2r_stages_##sfx(buf, g, p, s, lm, tw);                              \
            }                                                                                  \
            for (int64_t t = 0; t < a->n; t++) {                                               \
                double yr, yi;                                                                 \
                hfft__r2r_post_##sfx(a, a->kind, tt, buf, t, &yr, &yi);                        \
                hfft__r2r_put_##sfx(a, line, t, yr, yi);                                       \
            }                                                                                  \
            return;                                                                            \
        }                                                                                      \
        R *b = buf + 2 * l * a->m;                                                             \
        if (a->step == HFFT__R2R_PRE) {                                                        \
            for (int64_t t = 0; t < a->m; t++)                                                 \
                hfft__r2r_pre_##sfx(a, a->kind, NULL, line, t, b + 2 * t);                     \
            return;                                                                            \
        }                                                                                      \
        for (int64_t t = 0; t < a->n; t++) {                                                   \
            double yr, yi;                                                                     \
            hfft__r2r_post_##sfx(a, a->kind, NULL, b, t, &yr, &yi);                            \
            hfft__r2r_put_##sfx(a, line, t, yr, yi);                                           \
        }                                                                                      \
    }
HFFT__DEFINE_R2R(float, f)
HFFT__DEFINE_R2R(double, d)
#undef XR_
#undef XI_

#endif
