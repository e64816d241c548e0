/*
 * four.c: the CPU's share of a four-step streaming plan (gpu/fourstep.c),
 * in the GPU's layout between the rounds, so that the two sides split each
 * round's units: with d0 = fa fb and input index q + fb p,
 *   round A, a job per group q of the CPU's: the group's fa indices' rows
 *     transformed into the thread's buffer (index p at buffer row p), then
 *     the fa-point lines across them, in column chunks of about 1 MiB, out
 *     to output rows fa q + k1;
 *   round B, a job per column chunk of each of the CPU's pieces (piece u:
 *     columns [(u % nb) pw, + pw) of rows fa q + k1, k1 = u / nb, q < fb):
 *     the chunk gathered into the thread's buffer (row q at q wb), row q
 *     times W_d0^(q k1), the fb-point lines along q, and scattered back
 *     where it was read (result k2 at row fa k2 + k1: natural order).
 * The GPU takes the first units of each round, the CPU the rest; round B
 * starts once both sides' round A is in host memory (the plan's barrier).
 * Measured on an H100 host (16 threads, 2D 32768^2 f32, a prototype of these
 * jobs): round A 0.5-1.0 s and round B 0.33-0.54 s for the whole array,
 * depending on fa (bench/RESULTS.md): the shares a hybrid gives the CPU.
 */
#include <stdlib.h>
#include <string.h>

#include "cpu/exec.h"
#include "src/core/status.h"

#define CHUNK_BYTES (1u << 20) /* the columns of a job's fa- or fb-point lines: about this */

struct cpu_four {
    hfft__cpu_four_desc d;
    size_t es, in_index;        /* bytes of a complex element; between input indices */
    hfft__lines *rows;          /* one index's rows, input to buffer */
    int64_t wa, wb, nck;        /* columns of round A's and round B's chunks; B's per piece */
    hfft__lines *fa[2], *fb[2]; /* [0]: a whole chunk, [1]: the last, narrower one (or NULL) */
    hfft__twiddles tw;
};

static int64_t min64(int64_t a, int64_t b) { return a < b ? a : b; }

static int plan_lines(const hfft__cpu *c, int64_t n, int64_t stride, int64_t howmany, int inplace,
                      int unaligned, hfft__lines **out) {
    hfft__lines_desc d;
    memset(&d, 0, sizeof d);
    d.prec = c->prec;
    d.sign = c->sign;
    d.rank = 1;
    d.kind = HFFT__C2C;
    d.n[0] = n;
    d.is = d.os = stride;
    d.howmany = howmany;
    d.idist = d.odist = 1;
    d.inplace = inplace;
    d.fftw_flags = hfft__fftw_estimate() | (unaligned ? hfft__fftw_unaligned() : 0u);
    return hfft__lines_plan(&d, out);
}

void hfft__cpu_four_destroy(cpu_four *f) {
    if (!f)
        return;
    if (f->rows)
        hfft__lines_destroy(f->rows);
    for (int k = 0; k < 2; k++) {
        if (f->fa[k])
            hfft__lines_destroy(f->fa[k]);
        if (f->fb[k])
            hfft__lines_destroy(f->fb[k]);
    }
    hfft__twiddles_free(&f->tw);
    free(f);
}

int hfft__cpu_four(hfft__cpu *c, const hfft__cpu_four_desc *d, const void *in, const void *out) {
    if (d->fa < 2 || d->fb < 2 || d->fa * d->fb != d->d0 || d->nb < 1 || d->pw * d->nb != d->row ||
        d->per < 1 || d->L * d->per != d->row || d->first[0] < 0 || d->first[0] > d->fb ||
        d->first[1] < 0 || d->first[1] > d->fa * d->nb ||
        (d->kind != HFFT__C2C && d->kind != HFFT__R2C))
        return hfft__fail(HFFT_ERR_INTERNAL, "CPU four-step share: a layout it cannot follow");
    cpu_four *f = calloc(1, sizeof *f);
    if (!f)
        return hfft__fail(HFFT_ERR_HOST_MEMORY, "CPU four-step share: out of memory");
    f->d = *d;
    size_t es = f->es = c->es;
    size_t rs = es / 2;
    f->in_index = d->kind == HFFT__R2C ? (size_t)(d->per * d->rpitch) * rs : (size_t)d->row * es;
    /* FFTW's aligned plans need every array they meet aligned as planned */
    int una = c->unaligned || ((uintptr_t)in % 64) || ((uintptr_t)out % 64) || f->in_index % 64 ||
              ((size_t)d->row * es) % 64 ||
              (d->kind == HFFT__R2C && ((size_t)d->rpitch * rs) % 64) || ((size_t)d->pw * es) % 64;
    hfft__lines_desc r;
    memset(&r, 0, sizeof r);
    r.prec = c->prec;
    r.sign = c->sign;
    r.rank = 1;
    r.kind = d->kind;
    r.n[0] = d->kind == HFFT__R2C ? d->nreal : d->L;
    r.is = r.os = 1;
    r.howmany = d->per;
    r.idist = d->kind == HFFT__R2C ? d->rpitch : d->L;
    r.odist = d->L;
    r.fftw_flags = hfft__fftw_estimate() | (una ? hfft__fftw_unaligned() : 0u);
    int st = hfft__lines_plan(&r, &f->rows);
    /* round A: fa-point lines over wa columns of the buffer, out to the output's rows */
    f->wa = min64(d->row, (int64_t)(CHUNK_BYTES / ((size_t)d->fa * es)));
    f->wa = f->wa > 8 ? f->wa - f->wa % 8 : f->wa < 1 ? 1 : f->wa;
    if (!st)
        st = plan_lines(c, d->fa, d->row, f->wa, 0, 1, &f->fa[0]);
    if (!st && d->row % f->wa)
        st = plan_lines(c, d->fa, d->row, d->row % f->wa, 0, 1, &f->fa[1]);
    /* round B: fb-point lines over wb columns of a piece, in the buffer (pitch wb) */
    f->wb = min64(d->pw, (int64_t)(CHUNK_BYTES / ((size_t)d->fb * es)));
    f->wb = f->wb > 8 ? f->wb - f->wb % 8 : f->wb < 1 ? 1 : f->wb;
    f->nck = (d->pw + f->wb - 1) / f->wb;
    if (!st)
        st = plan_lines(c, d->fb, f->wb, f->wb, 1, 0, &f->fb[0]);
    if (!st && d->pw % f->wb)
        st = plan_lines(c, d->fb, f->wb, d->pw % f->wb, 1, 0, &f->fb[1]);
    if (!st)
        st = hfft__twiddles_make(d->d0, c->sign, &f->tw);
    size_t need = (size_t)d->fa * (size_t)d->row * es, nb = (size_t)(d->fb * f->wb) * es;
    if (!st)
        st = hfft__cpu_buffers(c, need > nb ? need : nb);
    if (st) {
        hfft__cpu_four_destroy(f);
        return st;
    }
    hfft__cpu_four_destroy(c->four);
    c->four = f;
    return 0;
}

/* Round A: group q of the CPU's. */
static void job_a(const hfft__cpu *c, const cpu_four *f, int64_t q, char *buf) {
    const hfft__cpu_four_desc *d = &f->d;
    size_t es = f->es, rowb = (size_t)d->row * es;
    for (int64_t p = 0; p < d->fa; p++)
        hfft__lines_exec(f->rows, (char *)c->src + (size_t)(q + d->fb * p) * f->in_index,
                         buf + (size_t)p * rowb);
    char *o = c->dst + (size_t)(d->fa * q) * rowb;
    for (int64_t c0 = 0; c0 < d->row; c0 += f->wa)
        hfft__lines_exec(c0 + f->wa <= d->row ? f->fa[0] : f->fa[1], buf + (size_t)c0 * es,
                         o + (size_t)c0 * es);
}

/* Round B: chunk k of piece u of the CPU's. */
static void job_b(const hfft__cpu *c, const cpu_four *f, int64_t u, int64_t k, char *buf) {
    const hfft__cpu_four_desc *d = &f->d;
    size_t es = f->es, rowb = (size_t)d->row * es;
    int64_t k1 = u / d->nb, c0 = (u % d->nb) * d->pw + k * f->wb;
    int64_t w = min64(f->wb, d->pw - k * f->wb);
    size_t run = (size_t)w * es, pitch = (size_t)f->wb * es;
    char *base = c->dst + (size_t)k1 * rowb + (size_t)c0 * es, *b = buf;
    size_t step = (size_t)d->fa * rowb; /* rows fa q + k1, q = 0, 1, ... */
    for (int64_t q = 0; q < d->fb; q++)
        memcpy(b + (size_t)q * pitch, base + (size_t)q * step, run);
    hfft__twiddles_rows(&f->tw, c->prec, b, d->fb, f->wb, w, k1);
    hfft__lines_exec(w == f->wb ? f->fb[0] : f->fb[1], b, b);
    for (int64_t q = 0; q < d->fb; q++)
        memcpy(base + (size_t)q * step, b + (size_t)q * pitch, run);
}

static void four_job(void *ctx, int64_t j, int thread) {
    hfft__cpu *c = ctx;
    const cpu_four *f = c->four;
    if (c->h == 0)
        job_a(c, f, f->d.first[0] + j, c->buf[thread]);
    else
        job_b(c, f, f->d.first[1] + j / f->nck, j % f->nck, c->buf[thread]);
}

int hfft__cpu_four_start(hfft__cpu *c, int h, const void *src, void *dst) {
    const cpu_four *f = c->four;
    c->h = h;
    c->src = src;
    c->dst = dst;
    int64_t jobs = h == 0 ? f->d.fb - f->d.first[0] : (f->d.fa * f->d.nb - f->d.first[1]) * f->nck;
    return hfft__pool_start(c->pool, jobs > 0 ? jobs : 0, four_job, c);
}
