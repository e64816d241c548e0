/*
 * stream_bench.c: hfft-stream-bench, streaming images (hfft_stream_*) on the
 * workload of the SPIFT thesis: random integer (u, v) on an N x N image, one
 * visibility for every point, an image wanted every F points (0: once, at the
 * end).  Each way side by side in one process: hfft's cost model (auto), each
 * of its ways forced (direct, grid), and a cuFFT user's hand-written stream
 * (scatter-add into a device grid, a copy of it transformed into the image at
 * each flush, the image copied to host memory; built with CUDA only).
 * Reported: seconds, points per second and microseconds per point from the
 * first point to the last flush's end, the flushes' median and largest
 * latency, the image's copy to host at the link's rate where a card holds it,
 * and with --verify the final image's error against FFTW in higher precision
 * of the points' grid.
 *
 *   hfft-stream-bench [--sizes N,...] [--points P] [--every F,...] [--flushes K]
 *                     [--prec f32|f64] [--ways auto,direct,grid,cufft] [--verify]
 *                     [--csv FILE]
 *
 * --flushes K caps a run at K flushes (P at most F K points), so that small F stay
 * short.  Settings (HFFT_DEVICE, HFFT_DEVICES, HFFT_DEVICE_MEMORY, HFFT_THREADS)
 * apply as to any hfft program: HFFT_DEVICES naming several cards holds the image
 * on them where its size allows (docs/streaming.md); the last flush's line gives
 * its bytes out, their rate and the cards.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hfft.h"
#include "ref.h"
#ifdef HFFT_BENCH_HAVE_CUDA
#include "stream_cufft.h"
#endif

enum { WAY_AUTO, WAY_DIRECT, WAY_GRID, WAY_CUFFT, NWAY };
static const char *way_name[NWAY] = {"auto", "direct", "grid", "cufft"};

static int parse_list(const char *s, int64_t *v, int max) {
    int n = 0;
    while (*s && n < max) {
        char *end;
        v[n++] = strtoll(s, &end, 10);
        if (end == s)
            return -1;
        s = *end == ',' ? end + 1 : end;
    }
    return n;
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static void usage(void) {
    fprintf(stderr, "usage: hfft-stream-bench [--sizes N,...] [--points P] [--every F,...] "
                    "[--flushes K] [--prec f32|f64] [--ways auto,direct,grid,cufft] "
                    "[--verify] [--csv FILE]\n");
    exit(2);
}

/* One way's run: the image after it, the seconds, each flush's seconds. */
static int run_hfft(int prec, int way, int64_t n, int64_t npts, const int64_t *index,
                    const void *vals, int64_t every, void *image, double *total, double *flush,
                    int64_t *nflush, hfft_stream_stats *st) {
    size_t es = 2u * (size_t)prec;
    memset(image, 0, (size_t)(n * n) * es);
    unsigned flags = way == WAY_DIRECT ? HFFT_STREAM_DIRECT : way == WAY_GRID ? HFFT_STREAM_GRID : 0;
    int64_t dims[2] = {n, n};
    void *s = prec == 4 ? (void *)hfftf_stream_dft(2, dims, image, HFFT_BACKWARD, flags, NULL)
                        : (void *)hfft_stream_dft(2, dims, image, HFFT_BACKWARD, flags, NULL);
    if (!s) {
        fprintf(stderr, "hfft-stream-bench: stream: %s\n", hfft_last_error_message());
        return -1;
    }
    if (every <= 0)
        every = npts;
    *nflush = 0;
    double t0 = hfft_ref_now();
    for (int64_t p0 = 0; p0 < npts; p0 += every) {
        int64_t m = npts - p0 < every ? npts - p0 : every;
        const char *v = (const char *)vals + (size_t)p0 * es;
        int rc = prec == 4 ? hfftf_stream_add(s, m, index + 2 * p0, (const void *)v)
                           : hfft_stream_add(s, m, index + 2 * p0, (const void *)v);
        double f0 = hfft_ref_now();
        if (!rc)
            rc = prec == 4 ? hfftf_stream_flush(s) : hfft_stream_flush(s);
        if (rc) {
            fprintf(stderr, "hfft-stream-bench: %s\n", hfft_last_error_message());
            return -1;
        }
        flush[(*nflush)++] = hfft_ref_now() - f0;
    }
    *total = hfft_ref_now() - t0;
    if (prec == 4) {
        hfftf_stream_info(s, st);
        hfftf_stream_destroy(s);
    } else {
        hfft_stream_info(s, st);
        hfft_stream_destroy(s);
    }
    return 0;
}

int main(int argc, char **argv) {
    int64_t sizes[16] = {1024, 2048, 4096, 8192}, every[16] = {0};
    int nsizes = 4, nevery = 1, prec = 4, verify = 0, ways[NWAY] = {1, 1, 1, 1};
    int64_t points = (int64_t)1 << 22, flushes = 256;
    const char *csv = NULL;
    for (int i = 1; i < argc; i++) {
        const char *o = argv[i], *a = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(o, "--sizes") && a)
            nsizes = parse_list(argv[++i], sizes, 16);
        else if (!strcmp(o, "--every") && a)
            nevery = parse_list(argv[++i], every, 16);
        else if (!strcmp(o, "--points") && a)
            points = strtoll(argv[++i], NULL, 10);
        else if (!strcmp(o, "--flushes") && a)
            flushes = strtoll(argv[++i], NULL, 10);
        else if (!strcmp(o, "--prec") && a)
            prec = !strcmp(argv[++i], "f64") ? 8 : 4;
        else if (!strcmp(o, "--ways") && a) {
            memset(ways, 0, sizeof ways);
            const char *w = argv[++i];
            for (int k = 0; k < NWAY; k++)
                ways[k] = strstr(w, way_name[k]) != NULL;
        } else if (!strcmp(o, "--verify"))
            verify = 1;
        else if (!strcmp(o, "--csv") && a)
            csv = argv[++i];
        else
            usage();
    }
    if (nsizes < 1 || nevery < 1 || points < 1 || flushes < 1)
        usage();
#ifndef HFFT_BENCH_HAVE_CUDA
    ways[WAY_CUFFT] = 0;
#endif
    FILE *out = csv ? fopen(csv, "w") : NULL;
    if (csv && !out) {
        perror(csv);
        return 1;
    }
    if (out)
        fprintf(out, "n,prec,every,points,way,seconds,us_per_point,points_per_s,flushes,"
                     "flush_median_s,flush_max_s,keys_last,strategy_last,on_card,error\n");
    printf("hfft-stream-bench, hfft %s: f%d, image N x N, points uniform in (u, v), one "
           "visibility\n",
           hfft_version(), prec * 8);
    printf("%6s %8s %9s %-7s %9s %9s %11s %7s %10s %10s %6s %9s\n", "N", "every", "points",
           "way", "seconds", "us/point", "points/s", "flushes", "flush med", "flush max",
           "card", "error");
    size_t es = 2u * (size_t)prec;
    for (int si = 0; si < nsizes; si++)
        for (int ei = 0; ei < nevery; ei++) {
            int64_t n = sizes[si], F = every[ei];
            int64_t npts = F > 0 && F * flushes < points ? F * flushes : points;
            int64_t *index = malloc((size_t)npts * 2 * sizeof(int64_t));
            int64_t *cells = malloc((size_t)npts * sizeof(int64_t));
            void *vals = malloc((size_t)npts * es);
            int64_t nfl = F > 0 ? (npts + F - 1) / F : 1;
            double *flush = malloc((size_t)nfl * sizeof(double));
            void *image = hfft_malloc((size_t)(n * n) * es);
            if (!index || !cells || !vals || !flush || !image) {
                fprintf(stderr, "hfft-stream-bench: out of memory for N = %lld\n", (long long)n);
                return 1;
            }
            uint64_t x = 88172645463325252ull ^ (uint64_t)n;
            for (int64_t p = 0; p < npts; p++) {
                x ^= x << 13, x ^= x >> 7, x ^= x << 17;
                index[2 * p] = (int64_t)(x % (uint64_t)n);
                index[2 * p + 1] = (int64_t)((x >> 32) % (uint64_t)n);
                cells[p] = index[2 * p] * n + index[2 * p + 1];
                if (prec == 4) {
                    ((float *)vals)[2 * p] = 1.0f;
                    ((float *)vals)[2 * p + 1] = 0.5f;
                } else {
                    ((double *)vals)[2 * p] = 1.0;
                    ((double *)vals)[2 * p + 1] = 0.5;
                }
            }
            void *ref = NULL;
            if (verify) { /* the grid (exact: counts of one visibility), and its transform */
                double *cnt = calloc((size_t)(n * n), sizeof(double));
                void *grid = calloc((size_t)(n * n), es);
                for (int64_t p = 0; p < npts && cnt && grid; p++)
                    cnt[cells[p]] += 1;
                for (int64_t c = 0; c < n * n && cnt && grid; c++) {
                    if (prec == 4) {
                        ((float *)grid)[2 * c] = (float)cnt[c];
                        ((float *)grid)[2 * c + 1] = (float)(0.5 * cnt[c]);
                    } else {
                        ((double *)grid)[2 * c] = cnt[c];
                        ((double *)grid)[2 * c + 1] = 0.5 * cnt[c];
                    }
                }
                int64_t dims[2] = {n, n};
                ref = grid ? hfft_ref_transform(prec, 2, dims, grid, HFFT_BACKWARD, 0) : NULL;
                free(cnt);
                free(grid);
            }
            for (int w = 0; w < NWAY; w++) {
                if (!ways[w])
                    continue;
                double total = 0;
                int64_t nflush = 0;
                hfft_stream_stats st;
                memset(&st, 0, sizeof st);
                if (w == WAY_CUFFT) {
#ifdef HFFT_BENCH_HAVE_CUDA
                    total = bench_stream_cufft(prec, n, npts, cells, vals, F, HFFT_BACKWARD,
                                               image, flush, &nflush);
                    st.image_on_cards = 1;
#endif
                } else if (run_hfft(prec, w, n, npts, index, vals, F, image, &total, flush,
                                    &nflush, &st)) {
                    return 1;
                }
                double err = ref ? hfft_ref_compare(prec, ref, image, n * n) : -1;
                qsort(flush, (size_t)nflush, sizeof(double), cmp_double);
                double med = nflush ? flush[nflush / 2] : 0, mx = nflush ? flush[nflush - 1] : 0;
                char errs[32] = "-";
                if (err >= 0)
                    snprintf(errs, sizeof errs, "%.2e", err);
                printf("%6lld %8lld %9lld %-7s %9.4f %9.5f %11.4g %7lld %10.6f %10.6f %6s %9s\n",
                       (long long)n, (long long)F, (long long)npts, way_name[w], total,
                       1e6 * total / (double)npts, (double)npts / total, (long long)nflush, med,
                       mx, st.image_on_cards ? "yes" : "no", errs);
                if (w != WAY_CUFFT && st.flushes)
                    printf("%6s %8s %9s %-7s last flush: %s, %lld keys, %.4f s, %.1f GB out "
                           "(%.1f GB/s) over %d card(s); adds %.4f s, flushes %.4f s\n",
                           "", "", "", "",
                           st.last_strategy == HFFT_STREAM_BY_KEYS ? "keys" : "grid",
                           (long long)st.last_keys, st.last_seconds, 1e-9 * (double)st.link_bytes[1],
                           st.last_seconds > 0 ? 1e-9 * (double)st.link_bytes[1] / st.last_seconds
                                               : 0.0,
                           st.cards, st.add_seconds, st.flush_seconds);
                if (out)
                    fprintf(out, "%lld,%d,%lld,%lld,%s,%.6f,%.6g,%.6g,%lld,%.6g,%.6g,%lld,%d,%d,%.3g\n",
                            (long long)n, prec * 8, (long long)F, (long long)npts, way_name[w],
                            total, 1e6 * total / (double)npts, (double)npts / total,
                            (long long)nflush, med, mx, (long long)st.last_keys, st.last_strategy,
                            st.image_on_cards, err);
                fflush(stdout);
            }
            if (ref)
                hfft_ref_free(prec, ref);
            hfft_free(image);
            free(index);
            free(cells);
            free(vals);
            free(flush);
        }
    if (out)
        fclose(out);
    return 0;
}
