/*
 * lines.c: batched 1D or 2D complex transforms on host memory through FFTW,
 * written once and compiled per precision (HFFT_SINGLE selects float).  Used
 * by the CPU executor and by the emulated device.  FFTW's planner is not
 * thread safe, so planning holds one lock shared by both precisions.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cpu/cpu.h"
#include "cpu/fftw_bind.h" /* FFTW through a private table, never by name */
#include "src/core/chirp.h"
#include "src/core/status.h"

#include "src/core/precision.h"

extern pthread_mutex_t hfft__fftw_mutex;
void hfft__fftw_threads_once(void);

struct hfft__lines {
    int prec, kind, r2r;
    void *plan;             /* FFTW's plan of the lines (Bluestein's fallback) */
    struct chirp *chirp;    /* double lines of a length with a large prime factor */
    struct planes *planes;  /* double planes with such a dimension */
};

#ifndef HFFT_SINGLE
/*
 * Bluestein's algorithm (src/core/chirp.h) on FFTW's M-point transforms, a line
 * at a time through a scratch of M points.  Executes run on several pool
 * threads at once: each takes a scratch from the plan's free list, or
 * allocates one; where none can be had, the lines run through FFTW's own plan.
 */
#define CHIRP_THREADED (1 << 16) /* M from which the M-point plans take FFTW's threads */

typedef struct chirp {
    int kind, sign;
    int64_t n, M, howmany, is, os, idist, odist;
    double *B;              /* 2 M: the chirp's transform over M, then */
    double *w;              /* 2 n: the chirp (in B's allocation: src/core/chirp.h) */
    fftw_plan fwd, bwd;     /* M points in place */
    pthread_mutex_t lock;
    double **spare;         /* idle scratches */
    int nspare, cap;
} chirp;

static void chirp_destroy(chirp *c) {
    if (!c)
        return;
    pthread_mutex_lock(&hfft__fftw_mutex);
    if (c->fwd)
        fftw_destroy_plan(c->fwd);
    if (c->bwd)
        fftw_destroy_plan(c->bwd);
    pthread_mutex_unlock(&hfft__fftw_mutex);
    for (int i = 0; i < c->nspare; i++)
        fftw_free(c->spare[i]);
    free(c->spare);
    free(c->B);
    pthread_mutex_destroy(&c->lock);
    free(c);
}

/* The M-point plans, on scratch, under the FFTW lock the caller holds. */
static int chirp_plans(chirp *c, unsigned flags) {
    double *a = fftw_malloc((size_t)c->M * 2u * sizeof(double));
    if (!a)
        return hfft__fail(HFFT_ERR_HOST_MEMORY, "Bluestein's scratch of %lld points",
                          (long long)c->M);
    fftw_iodim64 dim = {.n = c->M, .is = 1, .os = 1};
    c->fwd = fftw_plan_guru64_dft(1, &dim, 0, NULL, (fftw_complex *)a, (fftw_complex *)a,
                                  FFTW_FORWARD, flags & ~FFTW_UNALIGNED);
    c->bwd = fftw_plan_guru64_dft(1, &dim, 0, NULL, (fftw_complex *)a, (fftw_complex *)a,
                                  FFTW_BACKWARD, flags & ~FFTW_UNALIGNED);
    fftw_free(a);
    if (!c->fwd || !c->bwd)
        return hfft__fail(HFFT_ERR_FFTW, "fftw_plan_guru64_dft failed (Bluestein's %lld points)",
                          (long long)c->M);
    return 0;
}

static int chirp_plan(const hfft__lines_desc *d, chirp **out) {
    *out = NULL;
    chirp *c = calloc(1, sizeof *c);
    if (!c)
        return hfft__fail(HFFT_ERR_HOST_MEMORY, "Bluestein's plan: out of memory");
    *c = (chirp){.kind = d->kind, .sign = d->sign, .n = d->n[0],
                 .M = hfft__chirp_length(d->n[0]), .howmany = d->howmany, .is = d->is,
                 .os = d->os, .idist = d->idist, .odist = d->odist};
    pthread_mutex_init(&c->lock, NULL);
    /* real kinds: the complex transform of the real line, forward or backward */
    if (c->kind != HFFT__C2C)
        c->sign = c->kind == HFFT__R2C ? FFTW_FORWARD : FFTW_BACKWARD;
    c->B = malloc((size_t)(c->M + c->n) * 2u * sizeof(double));
    int st = c->B ? 0
                  : hfft__fail(HFFT_ERR_HOST_MEMORY, "Bluestein's tables of %lld points",
                               (long long)(c->M + c->n));
    if (!st) {
        c->w = c->B + 2 * c->M;
        st = hfft__chirp_table(c->n, c->M, c->sign, c->B);
    }
    if (!st) {
        pthread_mutex_lock(&hfft__fftw_mutex);
        int nthreads = fftw_planner_nthreads();
        /* FFTW's threads only where the M-point transforms are long enough to share */
        fftw_plan_with_nthreads(d->nthreads > 1 && c->M >= CHIRP_THREADED ? d->nthreads : 1);
        st = chirp_plans(c, d->fftw_flags);
        fftw_plan_with_nthreads(nthreads);
        pthread_mutex_unlock(&hfft__fftw_mutex);
    }
    if (st) {
        chirp_destroy(c);
        return st;
    }
    *out = c;
    return 0;
}

static double *chirp_take(chirp *c) {
    double *a = NULL;
    pthread_mutex_lock(&c->lock);
    if (c->nspare)
        a = c->spare[--c->nspare];
    pthread_mutex_unlock(&c->lock);
    return a ? a : fftw_malloc((size_t)c->M * 2u * sizeof(double));
}

static void chirp_give(chirp *c, double *a) {
    pthread_mutex_lock(&c->lock);
    if (c->nspare == c->cap) {
        int cap = c->cap ? 2 * c->cap : 8;
        double **s = realloc(c->spare, (size_t)cap * sizeof *s);
        if (s) {
            c->spare = s;
            c->cap = cap;
        }
    }
    if (c->nspare < c->cap) {
        c->spare[c->nspare++] = a;
        a = NULL;
    }
    pthread_mutex_unlock(&c->lock);
    fftw_free(a);
}

/* One line: in and out at the line's first element of each side. */
static void chirp_line(const chirp *c, double *a, const double *in, double *out) {
    const double *w = c->w, *B = c->B;
    int64_t n = c->n, M = c->M, is = c->is, os = c->os;
    if (c->kind == HFFT__C2R) { /* the Hermitian line whole; FFTW ignores Im X_0 (X_n/2) */
        for (int64_t k = 0; k <= n / 2; k++) {
            a[2 * k] = in[2 * k * is];
            a[2 * k + 1] = in[2 * k * is + 1];
        }
        for (int64_t k = 1; k < (n + 1) / 2; k++) {
            a[2 * (n - k)] = a[2 * k];
            a[2 * (n - k) + 1] = -a[2 * k + 1];
        }
    }
    for (int64_t j = 0; j < n; j++) {
        double xr, xi;
        if (c->kind == HFFT__C2R) {
            xr = a[2 * j];
            xi = a[2 * j + 1];
        } else if (c->kind == HFFT__R2C) {
            xr = in[j * is];
            xi = 0;
        } else {
            xr = in[2 * j * is];
            xi = in[2 * j * is + 1];
        }
        a[2 * j] = xr * w[2 * j] - xi * w[2 * j + 1];
        a[2 * j + 1] = xr * w[2 * j + 1] + xi * w[2 * j];
    }
    for (int64_t j = 2 * n; j < 2 * M; j++)
        a[j] = 0;
    fftw_execute_dft(c->fwd, (fftw_complex *)a, (fftw_complex *)a);
    for (int64_t k = 0; k < M; k++) {
        double ar = a[2 * k], ai = a[2 * k + 1];
        a[2 * k] = ar * B[2 * k] - ai * B[2 * k + 1];
        a[2 * k + 1] = ar * B[2 * k + 1] + ai * B[2 * k];
    }
    fftw_execute_dft(c->bwd, (fftw_complex *)a, (fftw_complex *)a);
    int64_t last = c->kind == HFFT__R2C ? n / 2 + 1 : n;
    for (int64_t k = 0; k < last; k++) {
        double yr = a[2 * k] * w[2 * k] - a[2 * k + 1] * w[2 * k + 1];
        if (c->kind == HFFT__C2R) {
            out[k * os] = yr;
            continue;
        }
        out[2 * k * os] = yr;
        out[2 * k * os + 1] = a[2 * k] * w[2 * k + 1] + a[2 * k + 1] * w[2 * k];
    }
}

/* 0 where no scratch could be had (the caller runs FFTW's plan). */
static int chirp_exec(chirp *c, void *in, void *out) {
    double *a = chirp_take(c);
    if (!a)
        return 0;
    /* element sizes in doubles: a real side's elements are one, a complex side's two */
    size_t ie = c->kind == HFFT__R2C ? 1 : 2, oe = c->kind == HFFT__C2R ? 1 : 2;
    for (int64_t b = 0; b < c->howmany; b++)
        chirp_line(c, a, (const double *)in + (size_t)(b * c->idist) * ie,
                   (double *)out + (size_t)(b * c->odist) * oe);
    chirp_give(c, a);
    return 1;
}
#endif

int XI(lines_plan)(const hfft__lines_desc *d, hfft__lines **out);
void XI(lines_exec)(hfft__lines *l, void *in, void *out);
void XI(lines_destroy)(hfft__lines *l);

#ifndef HFFT_SINGLE
/*
 * Planes (rank 2) with a dimension of a prime factor above 31: FFTW's plan of
 * the plane would run its own, less accurate transforms along it, so each
 * plane runs as its rows, then its columns (c2r: columns
 * first, in the complex input, which a c2r may overwrite), each through
 * Bluestein where its length takes it.
 */
typedef struct planes {
    hfft__lines *rows, *cols;
    int64_t howmany;
    size_t idist, odist; /* bytes between planes on each side */
} planes;

static int planes_wanted(const hfft__lines_desc *d) {
    return d->rank == 2 && (hfft__chirp_wants(d->n[0], HFFT__CHIRP_FFTW) ||
                            hfft__chirp_wants(d->n[1], HFFT__CHIRP_FFTW));
}

static int planes_plan(const hfft__lines_desc *d, hfft__lines *l) {
    planes *q = calloc(1, sizeof *q);
    if (!q)
        return hfft__fail(HFFT_ERR_HOST_MEMORY, "a plan of planes: out of memory");
    l->planes = q;
    size_t ie = d->kind == HFFT__R2C ? sizeof(double) : 2 * sizeof(double);
    size_t oe = d->kind == HFFT__C2R ? sizeof(double) : 2 * sizeof(double);
    int64_t irow = (d->ipitch ? d->ipitch : d->n[1]) * d->is;
    int64_t orow = (d->opitch ? d->opitch : d->n[1]) * d->os;
    int c2r = d->kind == HFFT__C2R;
    q->howmany = d->howmany;
    q->idist = (size_t)d->idist * ie;
    q->odist = (size_t)d->odist * oe;
    hfft__lines_desc r = *d, c = *d;
    r.rank = c.rank = 1;
    r.n[0] = d->n[1];
    r.howmany = d->n[0];
    r.idist = irow;
    r.odist = orow;
    r.plan_in = r.plan_out = c.plan_in = c.plan_out = NULL; /* planned on scratch */
    /* the columns, on the complex side: the output, or a c2r's input */
    c.kind = HFFT__C2C;
    c.sign = d->kind == HFFT__C2C ? d->sign : c2r ? FFTW_BACKWARD : FFTW_FORWARD;
    c.n[0] = d->n[0];
    c.is = c.os = c2r ? irow : orow;
    c.ipitch = c.opitch = 0;
    c.howmany = d->kind == HFFT__C2C ? d->n[1] : d->n[1] / 2 + 1;
    c.idist = c.odist = c2r ? d->is : d->os;
    c.inplace = 1;
    HFFT__TRY(XI(lines_plan)(&r, &q->rows));
    return XI(lines_plan)(&c, &q->cols);
}

static void planes_exec(const hfft__lines *l, char *in, char *out) {
    const planes *q = l->planes;
    for (int64_t p = 0; p < q->howmany; p++) {
        char *a = in + (size_t)p * q->idist, *b = out + (size_t)p * q->odist;
        if (l->kind == HFFT__C2R)
            XI(lines_exec)(q->cols, a, a);
        XI(lines_exec)(q->rows, a, b);
        if (l->kind != HFFT__C2R)
            XI(lines_exec)(q->cols, b, b);
    }
}
#endif

/*
 * The real lines a C2C line of an r2r problem holds (HFFT__R2R_BIT in
 * src/core/problem.h), as FFTW's r2r dimensions in reals: every stride twice the
 * complex one; a row's last dimension 2 n reals of stride one, else each line's
 * real and imaginary parts two lines (a vector dimension of two, one real apart).
 */
static int r2r_dims(const hfft__lines_desc *d, const FFTW(iodim64) *dims,
                    const FFTW(iodim64) *howmany, FFTW(iodim64) *rd, FFTW(iodim64) *rh,
                    FFTW(r2r_kind) *kinds) {
    int rank = d->rank, row = (d->r2r & HFFT__R2R_ROW) != 0, nh = 1;
    for (int k = 0; k < rank; k++) {
        rd[k] = (FFTW(iodim64)){dims[k].n, 2 * dims[k].is, 2 * dims[k].os};
        kinds[k] = (FFTW(r2r_kind))hfft__r2r_kind(d->r2r, k);
    }
    if (row)
        rd[rank - 1] = (FFTW(iodim64)){2 * dims[rank - 1].n, 1, 1};
    rh[0] = (FFTW(iodim64)){howmany->n, 2 * howmany->is, 2 * howmany->os};
    if (!row)
        rh[nh++] = (FFTW(iodim64)){2, 1, 1};
    return nh;
}

int XI(lines_plan)(const hfft__lines_desc *d, hfft__lines **out) {
    *out = NULL;
    HFFT__TRY(hfft__fftw_bind());
#ifndef HFFT_SINGLE
    if (!d->r2r && planes_wanted(d)) {
        hfft__lines *l = calloc(1, sizeof *l);
        if (!l)
            return hfft__fail(HFFT_ERR_HOST_MEMORY, "a plan of planes: out of memory");
        l->prec = PREC;
        l->kind = d->kind;
        int st = planes_plan(d, l);
        if (st) {
            XI(lines_destroy)(l);
            return st;
        }
        *out = l;
        return 0;
    }
#endif
    FFTW(iodim64) dims[3], howmany;
    int rank = d->rank;
    /* Each side's rows: the last dimension's n, or (real kinds) the given row pitch. */
    int64_t in_inner = 1, out_inner = 1;
    for (int k = rank - 1; k >= 0; k--) {
        dims[k].n = d->n[k];
        dims[k].is = in_inner * d->is;
        dims[k].os = out_inner * d->os;
        int last = k == rank - 1;
        in_inner *= last && d->ipitch ? d->ipitch : d->n[k];
        out_inner *= last && d->opitch ? d->opitch : d->n[k];
    }
    howmany.n = d->howmany;
    howmany.is = d->idist;
    howmany.os = d->odist;

    /* Plan on scratch of the same span so that MEASURE never touches user data. */
    int64_t span_i = 1, span_o = 1;
    for (int k = 0; k < rank; k++) {
        span_i += (dims[k].n - 1) * dims[k].is;
        span_o += (dims[k].n - 1) * dims[k].os;
    }
    span_i += (d->howmany - 1) * d->idist;
    span_o += (d->howmany - 1) * d->odist;
    size_t bytes_i = (size_t)span_i * (d->kind == HFFT__R2C ? sizeof(R) : sizeof(FFTW(complex)));
    size_t bytes_o = (size_t)span_o * (d->kind == HFFT__C2R ? sizeof(R) : sizeof(FFTW(complex)));
    if (d->inplace && bytes_o > bytes_i)
        bytes_i = bytes_o;
    int own = d->plan_in == NULL;
    FFTW(complex) *a = own ? FFTW(malloc)(bytes_i) : d->plan_in;
    FFTW(complex) *b = d->inplace ? a : own ? FFTW(malloc)(bytes_o) : d->plan_out;
    if (own && (!a || !b)) {
        FFTW(free)(a);
        if (b != a)
            FFTW(free)(b);
        return hfft__fail(HFFT_ERR_HOST_MEMORY, "FFTW planning scratch of %zu bytes", bytes_i);
    }
    if (own) {
        memset(a, 0, bytes_i);
        if (b != a)
            memset(b, 0, bytes_o);
    }
    int st = hfft__fftw_room(rank, d->n, sizeof(FFTW(complex)));
    if (st) {
        if (own) {
            FFTW(free)(a);
            if (b != a)
                FFTW(free)(b);
        }
        return st;
    }
    /* Our plans run one per pool thread: single-threaded, whatever thread count
       the application gave FFTW's planner for its own plans. */
    hfft__fftw_threads_once();
    pthread_mutex_lock(&hfft__fftw_mutex);
    int nthreads = FFTW(planner_nthreads)();
    FFTW(plan_with_nthreads)(d->nthreads > 1 ? d->nthreads : 1);
    FFTW(iodim64) rd[3], rh[2];
    FFTW(r2r_kind) rk[3];
    int nh = d->r2r ? r2r_dims(d, dims, &howmany, rd, rh, rk) : 0;
    FFTW(plan) p = d->r2r ? FFTW(plan_guru64_r2r)(rank, rd, nh, rh, (R *)a, (R *)b, rk,
                                                  d->fftw_flags)
                   : d->kind == HFFT__R2C
                       ? FFTW(plan_guru64_dft_r2c)(rank, dims, 1, &howmany, (R *)a, b, d->fftw_flags)
                   : d->kind == HFFT__C2R
                       ? FFTW(plan_guru64_dft_c2r)(rank, dims, 1, &howmany, a, (R *)b, d->fftw_flags)
                       : FFTW(plan_guru64_dft)(rank, dims, 1, &howmany, a, b, d->sign,
                                               d->fftw_flags);
    FFTW(plan_with_nthreads)(nthreads);
    pthread_mutex_unlock(&hfft__fftw_mutex);
    if (own) {
        FFTW(free)(a);
        if (b != a)
            FFTW(free)(b);
    }
    if (!p)
        return hfft__fail(HFFT_ERR_FFTW,
                          "fftw_plan_guru64_%s failed (rank %d, n %lld, batch %lld, stride %lld)",
                          d->r2r ? "r2r" : "dft", rank, (long long)d->n[0],
                          (long long)d->howmany, (long long)d->is);
    hfft__lines *l = malloc(sizeof *l);
    if (!l) {
        pthread_mutex_lock(&hfft__fftw_mutex);
        FFTW(destroy_plan)(p);
        pthread_mutex_unlock(&hfft__fftw_mutex);
        return hfft__fail(HFFT_ERR_HOST_MEMORY, "FFTW plan: out of memory");
    }
    l->prec = PREC;
    l->kind = d->kind;
    l->r2r = d->r2r;
    l->plan = p;
    l->chirp = NULL;
    l->planes = NULL;
#ifndef HFFT_SINGLE
    if (!d->r2r && rank == 1 && hfft__chirp_wants(d->n[0], HFFT__CHIRP_FFTW)) {
        int st = chirp_plan(d, &l->chirp);
        if (st) {
            XI(lines_destroy)(l);
            return st;
        }
    }
#endif
    *out = l;
    return 0;
}

void XI(lines_exec)(hfft__lines *l, void *in, void *out) {
#ifndef HFFT_SINGLE
    if (l->planes) {
        planes_exec(l, in, out);
        return;
    }
    if (l->chirp && chirp_exec(l->chirp, in, out))
        return;
#endif
    if (l->r2r)
        FFTW(execute_r2r)((FFTW(plan))l->plan, in, out);
    else if (l->kind == HFFT__R2C)
        FFTW(execute_dft_r2c)((FFTW(plan))l->plan, in, out);
    else if (l->kind == HFFT__C2R)
        FFTW(execute_dft_c2r)((FFTW(plan))l->plan, in, out);
    else
        FFTW(execute_dft)((FFTW(plan))l->plan, in, out);
}

void XI(lines_destroy)(hfft__lines *l) {
#ifndef HFFT_SINGLE
    chirp_destroy(l->chirp);
    if (l->planes) {
        if (l->planes->rows)
            XI(lines_destroy)(l->planes->rows);
        if (l->planes->cols)
            XI(lines_destroy)(l->planes->cols);
        free(l->planes);
    }
#endif
    if (l->plan) {
        pthread_mutex_lock(&hfft__fftw_mutex);
        FFTW(destroy_plan)((FFTW(plan))l->plan);
        pthread_mutex_unlock(&hfft__fftw_mutex);
    }
    free(l);
}

#ifndef HFFT_SINGLE
/* The precision-neutral entry points, compiled once (with the double build). */
pthread_mutex_t hfft__fftw_mutex = PTHREAD_MUTEX_INITIALIZER;

static int64_t largest_prime_factor(int64_t n) {
    int64_t p = 1;
    for (int64_t f = 2; f * f <= n; f += f == 2 ? 1 : 2)
        while (n % f == 0) {
            p = f;
            n /= f;
        }
    return n > 1 ? n : p;
}

/* FFTW's Rader and Bluestein plans of a length with a prime factor above this hold
   tables and buffers of about PRIME_ROOM lines; smooth lengths hold little. */
#define PRIME_BIG 1024
#define PRIME_ROOM 6
#define ROOM_MIN ((int64_t)1 << 20) /* shorter lines need too little to probe */

int hfft__fftw_room(int rank, const int64_t *n, size_t esize) {
    double want = 0;
    for (int k = 0; k < rank; k++)
        if (n[k] >= ROOM_MIN && largest_prime_factor(n[k]) > PRIME_BIG)
            want += (double)n[k] * (double)esize * PRIME_ROOM;
    if (!(want > 0))
        return 0;
    if (want >= (double)SIZE_MAX / 2)
        return hfft__fail(HFFT_ERR_HOST_MEMORY,
                          "FFTW's planner needs about %s for lines of a length with a large "
                          "prime factor",
                          hfft__bytes_text(want).s);
    size_t need = (size_t)want;
    /* reserved, not touched: an address-space limit (ulimit -v) refuses it here */
    void *probe = malloc(need);
    if (!probe)
        return hfft__fail(HFFT_ERR_HOST_MEMORY,
                          "FFTW's planner needs about %s for lines of a length with a large "
                          "prime factor",
                          hfft__bytes_text((double)need).s);
    free(probe);
    return 0;
}

static pthread_once_t threads_once = PTHREAD_ONCE_INIT;
static void threads_init(void) {
    fftw_init_threads();
    fftwf_init_threads();
}
void hfft__fftw_threads_once(void) { pthread_once(&threads_once, threads_init); }

int hfft__f_lines_plan(const hfft__lines_desc *d, hfft__lines **out);
void hfft__f_lines_exec(hfft__lines *l, void *in, void *out);
void hfft__f_lines_destroy(hfft__lines *l);

int hfft__lines_plan(const hfft__lines_desc *d, hfft__lines **out) {
    return d->prec == 4 ? hfft__f_lines_plan(d, out) : hfft__d_lines_plan(d, out);
}

void hfft__lines_exec(hfft__lines *l, void *in, void *out) {
    if (l->prec == 4)
        hfft__f_lines_exec(l, in, out);
    else
        hfft__d_lines_exec(l, in, out);
}

void hfft__lines_destroy(hfft__lines *l) {
    if (!l)
        return;
    if (l->prec == 4)
        hfft__f_lines_destroy(l);
    else
        hfft__d_lines_destroy(l);
}

/* FFTW's wisdom of one precision from or to a file, under the planner's lock.  An
   import of the path last imported for that precision is skipped: FFTW adds what
   it reads to what it holds, so once per process is enough. */
int hfft__fftw_wisdom_import(int prec, const char *path) {
    static char last[2][1100];
    if (hfft__fftw_bind()) {
        hfft__clear_error();
        return 0;
    }
    /* FFTW signs its wisdom with the set of its planner's algorithms, which its
       threads add to: with them registered first, as every process of ours that
       plans has them, the signatures agree (without, a fresh process's first
       import was refused) */
    /* FFTW opens the path itself, blocking: only a regular file goes to it */
    struct stat sb;
    if (stat(path, &sb) != 0 || !S_ISREG(sb.st_mode))
        return 0;
    hfft__fftw_threads_once();
    int k = prec == 4 ? 0 : 1, ok = 1;
    pthread_mutex_lock(&hfft__fftw_mutex);
    if (strcmp(last[k], path) != 0) {
        ok = prec == 4 ? fftwf_import_wisdom_from_filename(path)
                       : fftw_import_wisdom_from_filename(path);
        if (ok && strlen(path) < sizeof last[k])
            strcpy(last[k], path);
    }
    pthread_mutex_unlock(&hfft__fftw_mutex);
    return ok;
}

int hfft__fftw_wisdom_export(int prec, const char *path) {
    char tmp[1100];
    if (snprintf(tmp, sizeof tmp, "%s.tmp", path) >= (int)sizeof tmp)
        return hfft__fail(HFFT_ERR_IO, "FFTW wisdom %s: path too long", path);
    HFFT__TRY(hfft__fftw_bind());
    hfft__fftw_threads_once(); /* (the signature, as above) */
    pthread_mutex_lock(&hfft__fftw_mutex);
    int ok = prec == 4 ? fftwf_export_wisdom_to_filename(tmp) : fftw_export_wisdom_to_filename(tmp);
    pthread_mutex_unlock(&hfft__fftw_mutex);
    if (!ok || rename(tmp, path) != 0) {
        remove(tmp);
        return hfft__fail(HFFT_ERR_IO, "FFTW wisdom %s: write failed", path);
    }
    return 0;
}

unsigned hfft__fftw_estimate(void) { return FFTW_ESTIMATE; }
unsigned hfft__fftw_measure(void) { return FFTW_MEASURE; }
unsigned hfft__fftw_unaligned(void) { return FFTW_UNALIGNED; }
const char *hfft__fftw_version(void) { return fftw_version; }
#endif
