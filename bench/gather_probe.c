/*
 * gather_probe.c: hfft-gather-probe (not installed), the first half of the
 * CPU's column round without hfft: every thread walks down its own columns of
 * a row-major array (rows `pitch` bytes apart) a tile at a time, `row` bytes
 * of each row, into a buffer of its own.  It tells what the gather costs from
 * what the FFTs cost (issue 15: the column round against the row round).
 *
 *   hfft-gather-probe [--gib G] [--pitch BYTES] [--row BYTES] [--threads T]
 *                     [--ahead ROWS] [--pages huge|small|default]
 *                     [--mode copy|tile|staged]
 *
 * Modes, per tile of row/8 columns of 8-byte elements (complex f32):
 *   copy    each row's bytes copied whole, one after the other, into a
 *           row-major buffer (the bound: no transposition)
 *   tile    as cpu/tiles.c gathers: 8 rows at a time, each column's 8
 *           elements written to its own column of a column-major buffer
 *           (columns one padded column length apart)
 *   staged  64 rows copied whole into a stage, then each column's 64
 *           elements written out as one run
 *   tile4   as cpu/tiles.c gathers on x86-64 with AVX (cpu/blocks.h): 4 x 4
 *           blocks through 256-bit registers, 32 bytes a store to each column
 *   tile8   as tile, in 8 x 8 blocks through AVX-512 registers: each column
 *           gets a whole cache line a store (where the CPU has AVX-512)
 * `--ahead` prefetches that many rows ahead (into L2).  The array is first
 * touched by the threads, rows dealt round-robin; `--pages` advises huge
 * pages, small pages, or nothing.  Prints the slowest thread's time and the
 * rate over the whole array, with the huge pages the kernel gave.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include "cpu/blocks.h"

enum { MODE_COPY, MODE_TILE, MODE_STAGED, MODE_TILE4, MODE_TILE8 };
enum { STEP = 8, STAGE_ROWS = 64, ES = 8, MAX_THREADS = 256 };

static struct {
    size_t bytes, pitch, row;
    int threads, ahead, mode;
    char *a;
    pthread_barrier_t bar;
    double secs[MAX_THREADS];
    size_t wrong[MAX_THREADS]; /* elements the check found out of place */
} G;

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void prefetch_row(const char *p) {
    for (size_t k = 0; k < G.row; k += 64)
        __builtin_prefetch(p + k, 0, 2);
}

#ifdef HFFT_HAVE_BLOCKS
/* As hfft__gather_blocks (cpu/blocks.h, which tile4 runs), in 8 x 8 blocks of
   8-byte elements (w a multiple of 8): a whole line to each column a store. */
__attribute__((target("avx512f"))) static void block8(const char *s, size_t pitch, size_t w,
                                                      char *d, size_t ld) {
    const __m512i lo2 = _mm512_set_epi64(13, 12, 5, 4, 9, 8, 1, 0);
    const __m512i hi2 = _mm512_set_epi64(15, 14, 7, 6, 11, 10, 3, 2);
    const __m512i lo4 = _mm512_set_epi64(11, 10, 9, 8, 3, 2, 1, 0);
    const __m512i hi4 = _mm512_set_epi64(15, 14, 13, 12, 7, 6, 5, 4);
    for (size_t k = 0; k < w; k += 8) {
        __m512d r[8], t[8], u[8];
        for (int i = 0; i < 8; i++)
            r[i] = _mm512_loadu_pd((const double *)(s + (size_t)i * pitch + k * ES));
        for (int i = 0; i < 8; i += 2) {
            t[i] = _mm512_unpacklo_pd(r[i], r[i + 1]);
            t[i + 1] = _mm512_unpackhi_pd(r[i], r[i + 1]);
        }
        for (int i = 0; i < 8; i += 4) { /* rows i..i+3: columns {0,4}, {2,6}, {1,5}, {3,7} */
            u[i] = _mm512_permutex2var_pd(t[i], lo2, t[i + 2]);
            u[i + 1] = _mm512_permutex2var_pd(t[i], hi2, t[i + 2]);
            u[i + 2] = _mm512_permutex2var_pd(t[i + 1], lo2, t[i + 3]);
            u[i + 3] = _mm512_permutex2var_pd(t[i + 1], hi2, t[i + 3]);
        }
        static const int col[4][2] = {{0, 4}, {2, 6}, {1, 5}, {3, 7}};
        for (int i = 0; i < 4; i++) {
            char *o = d + k * ld;
            _mm512_storeu_pd((double *)(o + (size_t)col[i][0] * ld),
                             _mm512_permutex2var_pd(u[i], lo4, u[i + 4]));
            _mm512_storeu_pd((double *)(o + (size_t)col[i][1] * ld),
                             _mm512_permutex2var_pd(u[i], hi4, u[i + 4]));
        }
    }
}
#endif

/* One tile: columns [0, row / ES) of `rows` rows from src into buf (column k at
   k * ld bytes, or row-major for MODE_COPY). */
static void tile(const char *src, size_t rows, char *buf, size_t ld, char *stage) {
    size_t w = G.row / ES;
    if (G.mode == MODE_COPY) {
        for (size_t r = 0; r < rows; r++) {
            if (G.ahead && r + (size_t)G.ahead < rows)
                prefetch_row(src + (r + (size_t)G.ahead) * G.pitch);
            memcpy(buf + r * G.row, src + r * G.pitch, G.row);
        }
        return;
    }
    size_t step = G.mode == MODE_STAGED ? STAGE_ROWS : STEP;
    for (size_t l0 = 0; l0 < rows; l0 += step) {
        size_t n = rows - l0 < step ? rows - l0 : step;
        for (size_t l = l0 + (size_t)G.ahead; G.ahead && l < l0 + (size_t)G.ahead + n && l < rows;
             l++)
            prefetch_row(src + l * G.pitch);
        const char *s = src + l0 * G.pitch;
        char *d = buf + l0 * ES;
        if ((G.mode == MODE_TILE4 || G.mode == MODE_TILE8) && n == 8) {
#ifdef HFFT_HAVE_BLOCKS
            if (G.mode == MODE_TILE4)
                hfft__gather_blocks(s, G.pitch, (int64_t)w, d, ld, ES);
            else
                block8(s, G.pitch, w, d, ld);
            continue;
#endif
        }
        if (G.mode != MODE_STAGED) {
            for (size_t k = 0; k < w; k++, s += ES, d += ld)
                for (size_t l = 0; l < n; l++)
                    memcpy(d + l * ES, s + l * G.pitch, ES);
            continue;
        }
        for (size_t l = 0; l < n; l++)
            memcpy(stage + l * G.row, s + l * G.pitch, G.row);
        for (size_t k = 0; k < w; k++, d += ld)
            for (size_t l = 0; l < n; l++)
                memcpy(d + l * ES, stage + l * G.row + k * ES, ES);
    }
}

static void *worker(void *arg) {
    int id = (int)(intptr_t)arg;
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(id, &set);
    (void)pthread_setaffinity_np(pthread_self(), sizeof set, &set);
    size_t rows = G.bytes / G.pitch, tiles = G.pitch / G.row;
    for (size_t r = (size_t)id; r < rows; r += (size_t)G.threads)
        memset(G.a + r * G.pitch, 1, G.pitch);
    /* a padded column length: an odd number of cache lines, as cpu/exec.c pads */
    size_t lines = (rows * ES + 63) / 64;
    size_t ld = (lines | 1) * 64;
    size_t buf_bytes = G.mode == MODE_COPY ? rows * G.row : ld * (G.row / ES);
    char *buf = aligned_alloc(64, (buf_bytes + 63) / 64 * 64);
    char *stage = aligned_alloc(64, STAGE_ROWS * G.row);
    if (!buf || !stage) {
        fprintf(stderr, "hfft-gather-probe: out of memory\n");
        exit(1);
    }
    memset(buf, 0, buf_bytes);
    pthread_barrier_wait(&G.bar);
    double t0 = now();
    for (size_t t = tiles * (size_t)id / (size_t)G.threads;
         t < tiles * (size_t)(id + 1) / (size_t)G.threads; t++)
        tile(G.a + t * G.row, rows, buf, ld, stage);
    G.secs[id] = now() - t0;
    /* the thread's first tile again, on numbered elements: each must land in place */
    size_t t1 = tiles * (size_t)id / (size_t)G.threads, w = G.row / ES;
    if (t1 < tiles * (size_t)(id + 1) / (size_t)G.threads && G.mode != MODE_COPY) {
        for (size_t r = 0; r < rows; r++)
            for (size_t k = 0; k < w; k++) {
                uint64_t v = r * w + k + 1;
                memcpy(G.a + r * G.pitch + t1 * G.row + k * ES, &v, ES);
            }
        tile(G.a + t1 * G.row, rows, buf, ld, stage);
        for (size_t r = 0; r < rows; r++)
            for (size_t k = 0; k < w; k++) {
                uint64_t v;
                memcpy(&v, buf + k * ld + r * ES, ES);
                if (v != r * w + k + 1)
                    G.wrong[id]++;
            }
    }
    free(buf);
    free(stage);
    return NULL;
}

static void usage(void) {
    fprintf(stderr, "usage: hfft-gather-probe [--gib G] [--pitch BYTES] [--row BYTES] "
                    "[--threads T] [--ahead ROWS] [--pages huge|small|default] "
                    "[--mode copy|tile|staged|tile4|tile8]\n");
    exit(2);
}

int main(int argc, char **argv) {
    double gib = 8;
    const char *pages = "huge", *mode = "tile";
    G.pitch = 262144;
    G.row = 128;
    G.threads = 16;
    G.ahead = 16;
    for (int i = 1; i < argc; i++) {
        const char *o = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!v)
            usage();
        if (strcmp(o, "--gib") == 0)
            gib = atof(v);
        else if (strcmp(o, "--pitch") == 0)
            G.pitch = (size_t)atoll(v);
        else if (strcmp(o, "--row") == 0)
            G.row = (size_t)atoll(v);
        else if (strcmp(o, "--threads") == 0)
            G.threads = atoi(v);
        else if (strcmp(o, "--ahead") == 0)
            G.ahead = atoi(v);
        else if (strcmp(o, "--pages") == 0)
            pages = v;
        else if (strcmp(o, "--mode") == 0)
            mode = v;
        else
            usage();
        i++;
    }
    G.mode = strcmp(mode, "copy") == 0     ? MODE_COPY
             : strcmp(mode, "tile") == 0   ? MODE_TILE
             : strcmp(mode, "staged") == 0 ? MODE_STAGED
             : strcmp(mode, "tile4") == 0  ? MODE_TILE4
             : strcmp(mode, "tile8") == 0  ? MODE_TILE8
                                           : -1;
#ifdef HFFT_HAVE_BLOCKS
    if ((G.mode == MODE_TILE4 && !hfft__blocks_usable()) ||
        (G.mode == MODE_TILE8 && !__builtin_cpu_supports("avx512f"))) {
        fprintf(stderr, "hfft-gather-probe: %s needs %s\n", mode,
                G.mode == MODE_TILE4 ? "AVX" : "AVX-512");
        return 2;
    }
#else
    if (G.mode == MODE_TILE4 || G.mode == MODE_TILE8) {
        fprintf(stderr, "hfft-gather-probe: %s needs x86-64\n", mode);
        return 2;
    }
#endif
    G.bytes = (size_t)(gib * (double)(1u << 30)) / G.pitch * G.pitch;
    if (G.mode < 0 || G.threads < 1 || G.threads > MAX_THREADS || G.row < ES || G.row % 64 ||
        G.pitch < G.row || G.pitch % G.row || G.bytes < G.pitch || G.ahead < 0 ||
        (strcmp(pages, "huge") && strcmp(pages, "small") && strcmp(pages, "default")))
        usage();
    size_t huge = (size_t)2 << 20, span = G.bytes + huge;
    char *m = mmap(NULL, span, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED) {
        fprintf(stderr, "hfft-gather-probe: cannot map %.1f GiB\n", gib);
        return 1;
    }
    G.a = (char *)(((uintptr_t)m + huge - 1) & ~(uintptr_t)(huge - 1));
#ifdef MADV_HUGEPAGE
    if (strcmp(pages, "huge") == 0)
        (void)madvise(G.a, G.bytes, MADV_HUGEPAGE);
    else if (strcmp(pages, "small") == 0)
        (void)madvise(G.a, G.bytes, MADV_NOHUGEPAGE);
#endif
    pthread_barrier_init(&G.bar, NULL, (unsigned)G.threads);
    pthread_t th[MAX_THREADS];
    for (int i = 0; i < G.threads; i++)
        if (pthread_create(&th[i], NULL, worker, (void *)(intptr_t)i)) {
            fprintf(stderr, "hfft-gather-probe: cannot start thread %d\n", i);
            return 1;
        }
    for (int i = 0; i < G.threads; i++)
        pthread_join(th[i], NULL);
    double most = 0;
    for (int i = 0; i < G.threads; i++)
        most = G.secs[i] > most ? G.secs[i] : most;
    long huge_kb = 0;
    FILE *f = fopen("/proc/self/smaps_rollup", "r");
    char line[256];
    while (f && fgets(line, sizeof line, f))
        if (strncmp(line, "AnonHugePages:", 14) == 0)
            huge_kb = atol(line + 14);
    if (f)
        fclose(f);
    printf("%s: %.1f GiB, rows %zu bytes apart, %zu bytes of each per tile, %d threads, ahead "
           "%d, pages %s (%.1f GiB huge): %.3f s, %.1f GB/s, %.2f GB/s per thread\n",
           mode, (double)G.bytes / (1u << 30), G.pitch, G.row, G.threads, G.ahead, pages,
           huge_kb / 1048576.0, most, (double)G.bytes / most / 1e9,
           (double)G.bytes / most / 1e9 / G.threads);
    size_t wrong = 0;
    for (int i = 0; i < G.threads; i++)
        wrong += G.wrong[i];
    if (wrong)
        printf("%s: %zu elements out of place in the check\n", mode, wrong);
    munmap(m, span);
    return wrong ? 1 : 0;
}
