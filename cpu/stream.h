/*
 * stream.h: stores that bypass the cache, private to cpu/.  A store to a line
 * that is not cached first reads the line from memory (read for ownership);
 * a streaming store writes whole lines without reading them, so a scatter of
 * a tile, or a copy, moves each byte once each way instead of twice in.
 * x86-64 only (SSE2 is part of its baseline); elsewhere plain copies.
 */
#ifndef HFFT_CPU_STREAM_H
#define HFFT_CPU_STREAM_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#if defined(__SSE2__)
#include <emmintrin.h>
#define HFFT__STREAMING 1
#else
#define HFFT__STREAMING 0
#endif

/* Streaming stores apply to whole, aligned cache lines. */
#define HFFT__LINE 64

static inline int hfft__streamable(const void *dst, size_t bytes) {
    return HFFT__STREAMING && ((uintptr_t)dst % HFFT__LINE) == 0 && bytes % HFFT__LINE == 0;
}

/* Copies bytes from src (16-byte aligned) to dst (streamable) past the cache. */
static inline void hfft__stream_copy(void *dst, const void *src, size_t bytes) {
#if HFFT__STREAMING
    __m128i *d = dst;
    const __m128i *s = src;
    for (size_t k = 0; k < bytes / 16; k += 4) {
        __m128i a = _mm_load_si128(s + k), b = _mm_load_si128(s + k + 1);
        __m128i c = _mm_load_si128(s + k + 2), e = _mm_load_si128(s + k + 3);
        _mm_stream_si128(d + k, a);
        _mm_stream_si128(d + k + 1, b);
        _mm_stream_si128(d + k + 2, c);
        _mm_stream_si128(d + k + 3, e);
    }
#else
    memcpy(dst, src, bytes);
#endif
}

/* Orders this thread's streaming stores before whatever it does next (such as
   telling the pool that its job is done). */
static inline void hfft__stream_fence(void) {
#if HFFT__STREAMING
    _mm_sfence();
#endif
}

#endif
