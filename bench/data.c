/*
 * data.c: hfft-bench's arrays and checks: threaded fills, copies and poison
 * (arrays of tens of GiB take too long on one core), the error against the
 * FFTW reference, timing summaries and the host's name.
 */
#include <fftw3.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "ref.h"

void bench_die(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fputs("hfft-bench: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    exit(1);
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

void bench_summarize(double *t, int n, result *r) {
    qsort(t, (size_t)n, sizeof *t, cmp_double);
    r->min = t[0];
    r->max = t[n - 1];
    r->med = n % 2 ? t[n / 2] : 0.5 * (t[n / 2 - 1] + t[n / 2]);
}

const char *bench_fmt_bytes(double b, char *buf, size_t len) {
    static const char *const unit[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    int u = 0;
    while (b >= 1024.0 && u < 4) {
        b /= 1024.0;
        u++;
    }
    snprintf(buf, len, u ? "%.1f%s" : "%.0f%s", b, unit[u]);
    return buf;
}

void bench_host_description(char *out, size_t len) {
    char cpu[200] = "unknown CPU";
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (f) {
        char line[512];
        while (fgets(line, sizeof line, f)) {
            if (strncmp(line, "model name", 10) == 0) {
                char *c = strchr(line, ':');
                if (c) {
                    c++;
                    while (*c == ' ')
                        c++;
                    c[strcspn(c, "\n")] = 0;
                    snprintf(cpu, sizeof cpu, "%s", c);
                }
                break;
            }
        }
        fclose(f);
    }
    snprintf(out, len, "%s", cpu);
}

/* ---- threaded fill and copy: arrays of tens of GiB take too long on one core ---- */

typedef struct chunk_job {
    int kind; /* 0 fill, 1 copy, 2 poison */
    int prec;
    char *dst;
    const char *src;
    size_t off, len; /* bytes */
    uint64_t seed;
} chunk_job;

static void *chunk_run(void *p) {
    chunk_job *j = p;
    if (j->kind == 0)
        hfft_ref_fill(j->prec, j->dst + j->off, (int64_t)(j->len / (2u * (size_t)j->prec)),
                      j->seed);
    else if (j->kind == 1)
        memcpy(j->dst + j->off, j->src + j->off, j->len);
    else
        memset(j->dst + j->off, 0xff, j->len); /* NaN in both precisions */
    return NULL;
}

static void chunked(int kind, int prec, void *dst, const void *src, size_t bytes, uint64_t seed) {
    enum { MAXT = 64 };
    int t = G.cores < MAXT ? G.cores : MAXT;
    size_t elem = 2u * (size_t)prec;
    if (bytes < ((size_t)4 << 20))
        t = 1;
    chunk_job job[MAXT];
    pthread_t th[MAXT];
    int started[MAXT] = {0};
    size_t per = (bytes / elem + (size_t)t - 1) / (size_t)t * elem, off = 0;
    for (int i = 0; i < t; i++) {
        size_t len = off >= bytes ? 0 : bytes - off < per ? bytes - off : per;
        job[i] = (chunk_job){kind, prec, dst, src, off, len, seed * 1000003u + (uint64_t)i};
        off += len;
        if (i > 0 && len && pthread_create(&th[i], NULL, chunk_run, &job[i]) == 0)
            started[i] = 1;
    }
    chunk_run(&job[0]);
    for (int i = 1; i < t; i++) {
        if (started[i])
            pthread_join(th[i], NULL);
        else if (job[i].len)
            chunk_run(&job[i]);
    }
}

void bench_fill(const problem *p, void *a, uint64_t seed) {
    chunked(0, p->prec, a, NULL, p->in_bytes, seed);
}
void bench_copy(const problem *p, void *dst, const void *src) {
    chunked(1, p->prec, dst, src, p->in_bytes, 0);
}
void bench_poison(const problem *p, void *dst) { chunked(2, p->prec, dst, NULL, p->out_bytes, 0); }

/* The reference leaves FFTW's global thread count where it put it; the library
   and the baselines plan under that global, so it goes back to 1 after each. */
void bench_fftw_threads_reset(void) {
    fftw_plan_with_nthreads(1);
    fftwf_plan_with_nthreads(1);
#ifdef HFFT_BENCH_HAVE_FFTWL_THREADS
    fftwl_plan_with_nthreads(1);
#endif
}

double bench_verify(const args *a, const problem *p, const void *in, const void *out) {
    if (!a->verify)
        return -1.0;
    double e;
    if (p->kind == PK_R2R) {
        hfft_ref_dim d[3], h = {p->howmany, p->total, p->total};
        int kinds[3] = {p->r2r, p->r2r, p->r2r};
        int64_t s = 1;
        for (int k = p->rank - 1; k >= 0; k--) {
            d[k] = (hfft_ref_dim){p->n[k], s, s};
            s *= p->n[k];
        }
        e = hfft_ref_r2r_error(p->prec, p->rank, d, 1, &h, kinds, in, out);
    } else {
        e = hfft_ref_error_many(p->prec, p->kind, p->rank, p->n, p->howmany, in, out,
                                HFFT_FORWARD, a->bthreads);
    }
    bench_fftw_threads_reset();
    if (e < 0)
        bench_die("verification: cannot allocate the %s reference of %zu elements",
            p->prec == 4 ? "double" : "long double", (size_t)p->out_bytes / (2u * (size_t)p->prec));
    return isnan(e) ? INFINITY : e;
}

double bench_tolerance(int prec) { return prec == 4 ? 1e-5 : 1e-13; }
