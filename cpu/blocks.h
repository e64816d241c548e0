/*
 * blocks.h: a tile's gather (tiles.c) in square blocks through 256-bit
 * registers, on x86-64 (HFFT_HAVE_BLOCKS) where the CPU has AVX
 * (hfft__blocks_usable).  bench/gather_probe.c times the same code alone.
 */
#ifndef HFFT_CPU_BLOCKS_H
#define HFFT_CPU_BLOCKS_H

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#include <stddef.h>
#include <stdint.h>

#define HFFT_HAVE_BLOCKS 1

static inline int hfft__blocks_usable(void) {
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx");
}

/* Rows [0, 8) of columns [0, w) from s (rows `pitch` bytes apart) into d (column
   k at k * ld bytes), through 256-bit registers: 4 x 4 blocks of 8-byte elements
   (w a multiple of 4), 2 x 2 of 16-byte ones (w even), so that each store writes
   32 bytes of a column, not one element.  A tile's buffer outgrows L2 and the
   gather's stores miss, so fewer, wider stores gather markedly faster than one
   element at a time. */
__attribute__((target("avx"))) static inline void
hfft__gather_blocks(const char *s, size_t pitch, int64_t w, char *d, size_t ld, size_t es) {
    if (es == 8) {
        for (size_t h = 0; h < 8; h += 4)
            for (int64_t k = 0; k + 4 <= w; k += 4) {
                const char *r = s + h * pitch + (size_t)k * 8;
                __m256d r0 = _mm256_loadu_pd((const double *)r);
                __m256d r1 = _mm256_loadu_pd((const double *)(r + pitch));
                __m256d r2 = _mm256_loadu_pd((const double *)(r + 2 * pitch));
                __m256d r3 = _mm256_loadu_pd((const double *)(r + 3 * pitch));
                __m256d t0 = _mm256_unpacklo_pd(r0, r1), t1 = _mm256_unpackhi_pd(r0, r1);
                __m256d t2 = _mm256_unpacklo_pd(r2, r3), t3 = _mm256_unpackhi_pd(r2, r3);
                char *o = d + (size_t)k * ld + h * 8;
                _mm256_storeu_pd((double *)o, _mm256_permute2f128_pd(t0, t2, 0x20));
                _mm256_storeu_pd((double *)(o + ld), _mm256_permute2f128_pd(t1, t3, 0x20));
                _mm256_storeu_pd((double *)(o + 2 * ld), _mm256_permute2f128_pd(t0, t2, 0x31));
                _mm256_storeu_pd((double *)(o + 3 * ld), _mm256_permute2f128_pd(t1, t3, 0x31));
            }
        return;
    }
    for (size_t h = 0; h < 8; h += 2)
        for (int64_t k = 0; k + 2 <= w; k += 2) {
            const char *r = s + h * pitch + (size_t)k * 16;
            __m256d r0 = _mm256_loadu_pd((const double *)r);
            __m256d r1 = _mm256_loadu_pd((const double *)(r + pitch));
            char *o = d + (size_t)k * ld + h * 16;
            _mm256_storeu_pd((double *)o, _mm256_permute2f128_pd(r0, r1, 0x20));
            _mm256_storeu_pd((double *)(o + ld), _mm256_permute2f128_pd(r0, r1, 0x31));
        }
}
#endif

#endif
