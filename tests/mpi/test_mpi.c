/*
 * test_mpi.c: libhfft_mpi under mpirun (CTest: mpi_np1..4 on the CPU, and
 * mpi_npN_emulated on the emulated device).  Criterion forks, which MPI does
 * not survive, so this is a plain program: a list of cases, each run on every
 * rank, each rank's part of the output compared with FFTW in higher precision
 * on the whole array (every rank computes the whole reference; the sizes are
 * small), the verdicts reduced over the ranks.  Exits non-zero on a failure.
 * Usage: test_mpi [--device none|emulated] [--filter TEXT]
 */
#define _GNU_SOURCE
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <fftw3.h>
#include <mpi.h>

#include "hfft.h"
#include "hfft_mpi.h"
#include "ref.h"

#ifdef HFFT_TEST_FFTW_MPI
#include <fftw3-mpi.h>
#endif

#define T_OUT HFFT_MPI_TRANSPOSED_OUT
#define T_IN HFFT_MPI_TRANSPOSED_IN

/* The bounds: relative RMS error against FFTW in higher precision. */
static double tolerance(int prec) { return prec == 4 ? 5e-7 : 5e-16; }

static int me, ranks, failures, cases, verbose;
static const char *filter;
static MPI_Comm comm; /* the transforms' communicator: the world, or a part of it */

/* ---- a failure on any rank fails the case; rank 0 reports ---- */

static int case_failed; /* this rank's verdict on the case in progress */

static void fail(const char *fmt, ...) {
    char text[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    fprintf(stderr, "  rank %d: %s\n", me, text);
    case_failed = 1;
}

static void begin(void) { case_failed = 0; }

static void end(const char *name, const char *detail) {
    int any = 0;
    MPI_Allreduce(&case_failed, &any, 1, MPI_INT, MPI_LOR, MPI_COMM_WORLD);
    cases++;
    failures += any;
    if (me == 0)
        printf("%s  %s%s%s\n", any ? "FAIL" : "ok  ", name, detail ? "  " : "",
               detail ? detail : "");
    fflush(stdout);
}

static int selected(const char *name) { return !filter || strstr(name, filter); }

/* ---- the API in either precision ---- */

static void *plan_many(int prec, int rnk, const ptrdiff_t *n, ptrdiff_t howmany, ptrdiff_t iblock,
                       ptrdiff_t oblock, void *in, void *out, int sign, unsigned flags,
                       const hfft_options *o) {
    if (prec == 4)
        return hfftf_mpi_plan_many_dft_opts(rnk, n, howmany, iblock, oblock, in, out, comm, sign,
                                            flags, o);
    return hfft_mpi_plan_many_dft_opts(rnk, n, howmany, iblock, oblock, in, out, comm, sign, flags,
                                       o);
}
static int execute(int prec, void *p) {
    return prec == 4 ? hfftf_mpi_execute(p) : hfft_mpi_execute(p);
}
static int execute_dft(int prec, void *p, void *in, void *out) {
    return prec == 4 ? hfftf_mpi_execute_dft(p, in, out) : hfft_mpi_execute_dft(p, in, out);
}
static void destroy(int prec, void *p) {
    if (prec == 4)
        hfftf_mpi_destroy_plan(p);
    else
        hfft_mpi_destroy_plan(p);
}
static ptrdiff_t local_size(int prec, int rnk, const ptrdiff_t *n, ptrdiff_t howmany, ptrdiff_t b0,
                            ptrdiff_t b1, ptrdiff_t *ln0, ptrdiff_t *s0, ptrdiff_t *ln1,
                            ptrdiff_t *s1) {
    if (prec == 4)
        return hfftf_mpi_local_size_many_transposed(rnk, n, howmany, b0, b1, comm, ln0, s0, ln1,
                                                    s1);
    return hfft_mpi_local_size_many_transposed(rnk, n, howmany, b0, b1, comm, ln0, s0, ln1, s1);
}

static void *alloc(size_t bytes) {
    void *p = NULL;
    if (posix_memalign(&p, 64, bytes ? bytes : 64))
        p = NULL;
    if (!p) {
        fprintf(stderr, "rank %d: out of memory\n", me);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    return p;
}

/* ---- a problem, its global array, and where each rank's part sits in it ---- */

typedef struct problem {
    int prec, rnk;
    ptrdiff_t n[HFFT_MAX_RANK], howmany;
    int64_t rest, rowlen, total; /* elements after dimension 1, after dimension 0, in all */
    size_t esize;
} problem;

static problem make_problem(int prec, int rnk, const int64_t *n, int64_t howmany) {
    problem pb = {prec, rnk, {0}, howmany, howmany, 0, 0, 2 * (size_t)prec};
    for (int i = 0; i < rnk; i++)
        pb.n[i] = n[i];
    for (int i = 2; i < rnk; i++)
        pb.rest *= n[i];
    pb.rowlen = n[1] * pb.rest;
    pb.total = n[0] * pb.rowlen;
    return pb;
}

/* One side's layout on this rank: rows of dimension 0 (start, count) in natural order, or
   (transposed) rows of dimension 1, each holding n0 x rest elements. */
typedef struct part {
    int transposed;
    int64_t start, count;
} part;

static int64_t part_elems(const problem *pb, const part *pt) {
    return pt->count * (pt->transposed ? pb->n[0] * pb->rest : pb->rowlen);
}

/* The global (natural, howmany interleaved) index of element k of a part. */
static int64_t global_index(const problem *pb, const part *pt, int64_t k) {
    if (!pt->transposed)
        return pt->start * pb->rowlen + k;
    int64_t r = k % pb->rest, i0 = k / pb->rest % pb->n[0], i1 = k / pb->rest / pb->n[0];
    return (i0 * pb->n[1] + pt->start + i1) * pb->rest + r;
}

static void gather_part(const problem *pb, const part *pt, const void *global, void *local) {
    for (int64_t k = 0; k < part_elems(pb, pt); k++)
        memcpy((char *)local + k * pb->esize,
               (const char *)global + global_index(pb, pt, k) * pb->esize, pb->esize);
}

/* The reference of the whole array in higher precision, natural order. */
typedef struct reference {
    int prec;
    int64_t howmany, per; /* the reference holds the howmany transforms one after another */
    void *data;
} reference;

static reference make_reference(const problem *pb, const void *global, int sign) {
    reference r = {pb->prec, pb->howmany, pb->total / pb->howmany, NULL};
    void *batch = alloc((size_t)pb->total * pb->esize);
    for (int64_t e = 0; e < r.per; e++)
        for (int64_t h = 0; h < pb->howmany; h++)
            memcpy((char *)batch + (h * r.per + e) * pb->esize,
                   (const char *)global + (e * pb->howmany + h) * pb->esize, pb->esize);
    int64_t n64[HFFT_MAX_RANK], count;
    for (int i = 0; i < pb->rnk; i++)
        n64[i] = pb->n[i];
    r.data =
        hfft_ref_transform_many(pb->prec, 0, pb->rnk, n64, pb->howmany, batch, sign, 1, &count);
    free(batch);
    if (!r.data) {
        fprintf(stderr, "rank %d: reference failed\n", me);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    return r;
}

static long double ref_at(const reference *r, int64_t g, int part) {
    int64_t i = (g % r->howmany) * r->per + g / r->howmany;
    return r->prec == 4 ? ((const double *)r->data)[2 * i + part]
                        : ((const long double *)r->data)[2 * i + part];
}

static long double val_at(int prec, const void *y, int64_t k, int part) {
    return prec == 4 ? ((const float *)y)[2 * k + part] : ((const double *)y)[2 * k + part];
}

/* Relative RMS error of every rank's part against the reference (scaled by scale), over all
   ranks; NaN where some element was left unwritten. */
static double part_error(const problem *pb, const part *pt, const void *y,
                         long double (*expect)(const void *ctx, int64_t g, int c),
                         const void *ctx) {
    double sums[2] = {0, 0}, all[2];
    long double num = 0, den = 0;
    for (int64_t k = 0; k < part_elems(pb, pt); k++) {
        int64_t g = global_index(pb, pt, k);
        for (int c = 0; c < 2; c++) {
            long double a = expect(ctx, g, c), e = val_at(pb->prec, y, k, c) - a;
            num += e * e;
            den += a * a;
        }
    }
    sums[0] = (double)num;
    sums[1] = (double)den;
    MPI_Allreduce(sums, all, 2, MPI_DOUBLE, MPI_SUM, comm);
    if (!(all[0] == all[0]))
        return NAN;
    return all[1] > 0 ? sqrt(all[0] / all[1]) : sqrt(all[0]);
}

static long double expect_ref(const void *ctx, int64_t g, int c) { return ref_at(ctx, g, c); }

typedef struct scaled {
    const problem *pb;
    const void *global;
    long double scale;
} scaled;

static long double expect_scaled(const void *ctx, int64_t g, int c) {
    const scaled *s = ctx;
    return s->scale * val_at(s->pb->prec, s->global, g, c);
}

/* With --verbose: what each rank's plan chose. */
static void print_info(int prec, void *p) {
    hfft_mpi_info f;
    if (prec == 4)
        hfftf_mpi_plan_info(p, &f);
    else
        hfft_mpi_plan_info(p, &f);
    fprintf(
        stderr,
        "  rank %d: rows %lld at %lld, columns %lld at %lld, groups %d/%d, threads %d, "
        "shared %d, scratch %lld, budget %lld, rows on %s (schedule %d, %d rounds), columns on %s "
        "(schedule %d), %.2g s (compute %.2g, MPI %.2g, waiting %.2g), sent %lld\n",
        f.rank, (long long)f.local_n0, (long long)f.local_0_start, (long long)f.columns,
        (long long)f.column_start, f.groups[0], f.groups[1], f.threads, f.shared_ranks,
        (long long)f.scratch_bytes, (long long)f.device_budget, f.rows.device_name, f.rows.schedule,
        f.rows.rounds, f.cols.device_name, f.cols.schedule, f.seconds, f.compute_seconds,
        f.mpi_seconds, f.exchange_seconds, (long long)f.sent_bytes);
}

/* ---- settings of a case ---- */

typedef struct setting {
    const char *groups, *message, *shared;
} setting;

static void apply(const setting *s) {
    const char *names[3] = {"HFFT_MPI_GROUPS", "HFFT_MPI_MESSAGE", "HFFT_MPI_SHARED"};
    const char *values[3] = {s ? s->groups : NULL, s ? s->message : NULL, s ? s->shared : NULL};
    for (int i = 0; i < 3; i++) {
        if (values[i])
            setenv(names[i], values[i], 1);
        else
            unsetenv(names[i]);
    }
}

/* The layouts of a plan's input and output on this rank, from the local sizes as an
   FFTW-MPI user finds them; the elements each array must hold. */
static ptrdiff_t layouts(const problem *pb, unsigned flags, ptrdiff_t iblock, ptrdiff_t oblock,
                         part *in, part *out) {
    int ti = !!(flags & T_IN), to = !!(flags & T_OUT);
    /* the distributed dimension of each side: blocks as plan_many_dft takes them */
    ptrdiff_t b0_in = ti ? 0 : iblock, b1_in = ti ? iblock : 0;
    ptrdiff_t b0_out = to ? 0 : oblock, b1_out = to ? oblock : 0;
    ptrdiff_t l0, s0, l1, s1;
    ptrdiff_t a =
        local_size(pb->prec, pb->rnk, pb->n, pb->howmany, b0_in, b1_in, &l0, &s0, &l1, &s1);
    *in = ti ? (part){1, s1, l1} : (part){0, s0, l0};
    ptrdiff_t b =
        local_size(pb->prec, pb->rnk, pb->n, pb->howmany, b0_out, b1_out, &l0, &s0, &l1, &s1);
    *out = to ? (part){1, s1, l1} : (part){0, s0, l0};
    return a > b ? a : b;
}

/* ---- accuracy: one transform against the reference ---- */

typedef struct acase {
    int prec, rnk;
    int64_t n[5], howmany;
    int sign, inplace;
    unsigned flags;
    int blocks;   /* 1: iblock and oblock other than the default */
    int newarray; /* 1: execute on new arrays too */
    setting set;
    int halves; /* 1: on two communicators, the even and the odd ranks */
} acase;

static void describe(const acase *c, char *buf, size_t size) {
    int k = snprintf(buf, size, "%dd ", c->rnk);
    for (int i = 0; i < c->rnk; i++)
        k += snprintf(buf + k, size - (size_t)k, "%s%lld", i ? "x" : "", (long long)c->n[i]);
    snprintf(buf + k, size - (size_t)k, "%s f%d %s %s%s%s%s%s%s%s%s", c->howmany > 1 ? " many" : "",
             c->prec * 8, c->sign < 0 ? "fwd" : "bwd", c->inplace ? "in-place" : "out-of-place",
             c->flags & T_IN ? " T_IN" : "", c->flags & T_OUT ? " T_OUT" : "",
             c->blocks ? " blocks" : "", c->newarray ? " new-arrays" : "",
             c->set.groups ? " groups" : "",
             c->set.shared && c->set.shared[0] == '0' ? " messages-only" : "",
             c->halves ? " on halves of the ranks" : "");
}

static uint64_t shared_seed(void) {
    uint64_t seed = (uint64_t)(MPI_Wtime() * 1e6);
    MPI_Bcast(&seed, 1, MPI_UINT64_T, 0, comm);
    return seed;
}

static void run_accuracy(const acase *c) {
    char name[200];
    describe(c, name, sizeof name);
    if (!selected(name) || (c->halves && ranks < 2))
        return;
    begin();
    if (c->halves)
        MPI_Comm_split(MPI_COMM_WORLD, me % 2, me, &comm);
    apply(&c->set);
    problem pb = make_problem(c->prec, c->rnk, c->n, c->howmany);
    ptrdiff_t iblock = 0, oblock = 0;
    if (c->blocks) { /* fewer, larger blocks than the default: trailing ranks hold nothing */
        iblock = (pb.n[c->flags & T_IN ? 1 : 0] + ranks - 1) / ranks + 1;
        oblock = (pb.n[c->flags & T_OUT ? 1 : 0] + ranks - 1) / ranks + 2;
    }
    part pin, pout;
    ptrdiff_t alloc_n = layouts(&pb, c->flags, iblock, oblock, &pin, &pout);
    size_t bytes = (size_t)alloc_n * pb.esize;
    void *global = alloc((size_t)pb.total * pb.esize);
    hfft_ref_fill(pb.prec, global, pb.total, shared_seed());
    void *in = alloc(bytes), *out = c->inplace ? in : alloc(bytes);
    memset(out, 0xff, bytes);
    gather_part(&pb, &pin, global, in);
    void *keep = alloc(bytes);
    memcpy(keep, in, bytes);
    void *p = plan_many(pb.prec, pb.rnk, pb.n, pb.howmany, iblock, oblock, in, out, c->sign,
                        c->flags, NULL);
    double err = NAN, err2 = 0;
    if (!p) {
        fail("plan: %s", hfft_mpi_last_error_message());
    } else {
        /* planning may write the arrays (HFFT_MEASURE); fill again */
        gather_part(&pb, &pin, global, in);
        if (!c->inplace)
            memset(out, 0xff, bytes);
        int st = execute(pb.prec, p);
        if (st)
            fail("execute: %s", hfft_mpi_last_error_message());
        if (verbose)
            print_info(pb.prec, p);
        reference ref = make_reference(&pb, global, c->sign);
        err = part_error(&pb, &pout, out, expect_ref, &ref);
        if (!(err <= tolerance(pb.prec)))
            fail("error %.3g above %.1g", err, tolerance(pb.prec));
        if (!c->inplace && memcmp(in, keep, (size_t)part_elems(&pb, &pin) * pb.esize))
            fail("the input of an out-of-place transform changed");
        if (c->newarray) {
            void *in2 = alloc(bytes), *out2 = c->inplace ? in2 : alloc(bytes);
            memset(out2, 0xff, bytes);
            gather_part(&pb, &pin, global, in2);
            if (execute_dft(pb.prec, p, in2, out2))
                fail("execute_dft: %s", hfft_mpi_last_error_message());
            err2 = part_error(&pb, &pout, out2, expect_ref, &ref);
            if (!(err2 <= tolerance(pb.prec)))
                fail("new arrays: error %.3g above %.1g", err2, tolerance(pb.prec));
            if (out2 != in2)
                free(out2);
            free(in2);
        }
        hfft_ref_free(pb.prec, ref.data);
        destroy(pb.prec, p);
    }
    char detail[64];
    snprintf(detail, sizeof detail, "err %.2g", err > err2 ? err : err2);
    if (c->halves)
        MPI_Comm_free(&comm);
    comm = MPI_COMM_WORLD;
    end(name, detail);
    apply(NULL);
    free(keep);
    if (out != in)
        free(out);
    free(in);
    free(global);
}

/* ---- round trips: forward then backward gives n times the input ---- */

static void run_round_trip(int prec, int rnk, const int64_t *n, unsigned fwd_flags,
                           unsigned bwd_flags, int inplace, const setting *set) {
    char name[160];
    int k = snprintf(name, sizeof name, "round trip %dd ", rnk);
    for (int i = 0; i < rnk; i++)
        k += snprintf(name + k, sizeof name - (size_t)k, "%s%lld", i ? "x" : "", (long long)n[i]);
    snprintf(name + k, sizeof name - (size_t)k, " f%d %s%s%s", prec * 8,
             inplace ? "in-place" : "out-of-place", fwd_flags & T_OUT ? " T_OUT then T_IN" : "",
             set && set->groups ? " groups" : "");
    if (!selected(name))
        return;
    begin();
    apply(set);
    problem pb = make_problem(prec, rnk, n, 1);
    part pin, pmid, pend;
    ptrdiff_t a1 = layouts(&pb, fwd_flags, 0, 0, &pin, &pmid);
    ptrdiff_t a2 = layouts(&pb, bwd_flags, 0, 0, &pmid, &pend);
    size_t bytes = (size_t)(a1 > a2 ? a1 : a2) * pb.esize;
    void *global = alloc((size_t)pb.total * pb.esize);
    hfft_ref_fill(prec, global, pb.total, shared_seed());
    void *a = alloc(bytes), *b = inplace ? a : alloc(bytes);
    void *f = plan_many(prec, rnk, pb.n, 1, 0, 0, a, b, HFFT_FORWARD, fwd_flags, NULL);
    void *g = plan_many(prec, rnk, pb.n, 1, 0, 0, b, a, HFFT_BACKWARD, bwd_flags, NULL);
    double err = NAN;
    if (!f || !g) {
        fail("plan: %s", hfft_mpi_last_error_message());
    } else {
        gather_part(&pb, &pin, global, a);
        if (execute(prec, f) || execute(prec, g))
            fail("execute: %s", hfft_mpi_last_error_message());
        scaled s = {&pb, global, (long double)pb.total};
        err = part_error(&pb, &pend, a, expect_scaled, &s);
        if (!(err <= 2 * tolerance(prec)))
            fail("error %.3g above %.1g", err, 2 * tolerance(prec));
    }
    destroy(prec, f);
    destroy(prec, g);
    char detail[64];
    snprintf(detail, sizeof detail, "err %.2g", err);
    end(name, detail);
    apply(NULL);
    if (b != a)
        free(b);
    free(a);
    free(global);
}

/* ---- errors: every rank the same status, none hangs ---- */

/* Every rank's status equal to want, and (want != 0) every rank's message equal to rank 0's
   and containing text. */
static void expect_status(int st, int want, const char *text) {
    int lo = 0, hi = 0;
    MPI_Allreduce(&st, &lo, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(&st, &hi, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (lo != hi || st != want)
        fail("status %d (%s), want %d on every rank (seen %d to %d): %s", st, hfft_mpi_strerror(st),
             want, lo, hi, hfft_mpi_last_error_message());
    if (!want)
        return;
    char root[1024];
    snprintf(root, sizeof root, "%s", hfft_mpi_last_error_message());
    MPI_Bcast(root, (int)sizeof root, MPI_CHAR, 0, MPI_COMM_WORLD);
    if (strcmp(root, hfft_mpi_last_error_message()))
        fail("message '%s' differs from rank 0's '%s'", hfft_mpi_last_error_message(), root);
    if (text && !strstr(hfft_mpi_last_error_message(), text))
        fail("message '%s' lacks '%s'", hfft_mpi_last_error_message(), text);
}

/* Plans every rank makes with the same arguments but some differ on one rank. */
typedef struct eplan {
    int64_t n0;   /* the last rank's first size, where it differs */
    int null_out; /* rank 0 passes a NULL output */
    int rnk;
    unsigned flags;
    hfft_options *opts, *last_opts;
} eplan;

static void *error_plan(int prec, const eplan *e, void **in, void **out) {
    ptrdiff_t n[3] = {24, 20, 3};
    if (me == ranks - 1 && e->n0)
        n[0] = e->n0;
    ptrdiff_t l0, s0;
    ptrdiff_t count = (prec == 4 ? hfftf_mpi_local_size_many
                                 : hfft_mpi_local_size_many)(2, n, 1, 0, MPI_COMM_WORLD, &l0, &s0);
    *in = alloc((size_t)(count + 1) * 2 * (size_t)prec);
    *out = alloc((size_t)(count + 1) * 2 * (size_t)prec);
    memset(*in, 0, (size_t)(count + 1) * 2 * (size_t)prec);
    const hfft_options *o = me == ranks - 1 && e->last_opts ? e->last_opts : e->opts;
    return plan_many(prec, e->rnk ? e->rnk : 2, n, 1, 0, 0, *in,
                     e->null_out && me == 0 ? NULL : *out, HFFT_FORWARD, e->flags, o);
}

static void error_case(const char *name, int prec, const eplan *e, int want, const char *text) {
    if (!selected(name))
        return;
    begin();
    void *in, *out;
    void *p = error_plan(prec, e, &in, &out);
    if (p)
        fail("a plan where one was expected to fail");
    expect_status(p ? 0 : hfft_mpi_last_error(), want, text);
    destroy(prec, p);
    free(in);
    free(out);
    end(name, NULL);
}

static void run_errors(int prec) {
    char name[160], text[32];
    eplan e = {0};
    if (ranks > 1) {
        e.n0 = 25;
        snprintf(name, sizeof name, "errors f%d: n[0] differs on the last rank", prec * 8);
        error_case(name, prec, &e, HFFT_ERR_INVALID_ARGUMENT, "n[0] differs between ranks");
    }
    e = (eplan){0};
    e.null_out = 1;
    snprintf(name, sizeof name, "errors f%d: rank 0's output NULL", prec * 8);
    error_case(name, prec, &e, HFFT_ERR_INVALID_ARGUMENT, "NULL");
    e = (eplan){0};
    e.rnk = 1;
    snprintf(name, sizeof name, "errors f%d: a 1D transform", prec * 8);
    error_case(name, prec, &e, HFFT_ERR_UNSUPPORTED, "1D");

    /* a node plan that fails on the last rank only: a device budget it cannot use */
    hfft_options o, tiny;
    hfft_options_init(&o);
    o.device = HFFT_DEVICE_EMULATED;
    tiny = o;
    tiny.device_memory = 64;
    e = (eplan){0};
    e.flags = HFFT_GPU_ONLY;
    e.opts = &o;
    e.last_opts = &tiny;
    snprintf(name, sizeof name, "errors f%d: a node plan fails on the last rank", prec * 8);
    snprintf(text, sizeof text, "rank %d: ", ranks - 1);
    error_case(name, prec, &e, HFFT_ERR_BUDGET, ranks > 1 ? text : NULL);

    /* a failure inside an execute on the last rank: every rank returns it; the plan works
       again afterwards */
    snprintf(name, sizeof name, "errors f%d: an execute fails on the last rank", prec * 8);
    if (selected(name)) {
        begin();
        setting s = {"3", NULL, NULL};
        apply(&s);
        e = (eplan){0};
        e.flags = HFFT_GPU_ONLY;
        e.opts = &o;
        void *in, *out;
        void *p = error_plan(prec, &e, &in, &out);
        if (!p) {
            fail("plan: %s", hfft_mpi_last_error_message());
        } else {
            if (me == ranks - 1)
                setenv("HFFT_FAULT", "fft_exec:2", 1);
            int st = execute(prec, p);
            unsetenv("HFFT_FAULT");
            int lo = 0;
            MPI_Allreduce(&st, &lo, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
            expect_status(st, lo < 0 ? lo : -1, ranks > 1 ? text : NULL);
            expect_status(execute(prec, p), 0, NULL);
            /* new arrays with in == out where the plan's were apart: refused everywhere */
            st = execute_dft(prec, p, in, me == ranks - 1 ? in : out);
            expect_status(st, HFFT_ERR_INVALID_ARGUMENT, "in == out");
        }
        destroy(prec, p);
        free(in);
        free(out);
        apply(NULL);
        end(name, NULL);
    }
}

/* ---- local sizes: FFTW-MPI's, exactly ---- */

#ifdef HFFT_TEST_FFTW_MPI
static void run_local_sizes(void) {
    const char *name = "local sizes equal FFTW-MPI's";
    if (!selected(name))
        return;
    begin();
    static const ptrdiff_t shapes[][4] = {
        {2, 45, 34},  {2, 3, 50},   {2, 40, 2},     {2, 1, 7},       {2, 7, 1}, {3, 9, 10, 11},
        {3, 2, 3, 7}, {3, 5, 1, 4}, {2, 1000, 999}, {3, 64, 64, 64}, {2, 4, 4}};
    static const ptrdiff_t howmany[] = {1, 3};
    int checked = 0;
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
        int rnk = (int)shapes[s][0];
        const ptrdiff_t *n = &shapes[s][1];
        for (size_t h = 0; h < 2; h++) {
            for (int b = 0; b < 3; b++) {
                ptrdiff_t b0 = b == 1 ? (n[0] + ranks - 1) / ranks + 1 : 0;
                ptrdiff_t b1 = b == 2 ? (n[1] + ranks - 1) / ranks + 1 : 0;
                ptrdiff_t a[4], f[4], ta, tf;
                ta = hfft_mpi_local_size_many_transposed(rnk, n, howmany[h], b0, b1, MPI_COMM_WORLD,
                                                         a, a + 1, a + 2, a + 3);
                tf = fftw_mpi_local_size_many_transposed(rnk, n, howmany[h], b0, b1, MPI_COMM_WORLD,
                                                         f, f + 1, f + 2, f + 3);
                if (ta != tf || memcmp(a, f, sizeof a))
                    fail("transposed %dd n0 %td n1 %td howmany %td blocks %td %td: hfft %td "
                         "(%td %td %td %td), FFTW %td (%td %td %td %td)",
                         rnk, n[0], n[1], howmany[h], b0, b1, ta, a[0], a[1], a[2], a[3], tf, f[0],
                         f[1], f[2], f[3]);
                ta = hfftf_mpi_local_size_many(rnk, n, howmany[h], b0, MPI_COMM_WORLD, a, a + 1);
                tf = fftwf_mpi_local_size_many(rnk, n, howmany[h], b0, MPI_COMM_WORLD, f, f + 1);
                if (ta != tf || a[0] != f[0] || a[1] != f[1])
                    fail("%dd n0 %td n1 %td howmany %td block %td: hfft %td (%td %td), FFTW %td "
                         "(%td %td)",
                         rnk, n[0], n[1], howmany[h], b0, ta, a[0], a[1], tf, f[0], f[1]);
                checked += 2;
            }
        }
    }
    ptrdiff_t a[4], f[4];
    if (hfft_mpi_local_size_2d(45, 34, MPI_COMM_WORLD, a, a + 1) !=
            fftw_mpi_local_size_2d(45, 34, MPI_COMM_WORLD, f, f + 1) ||
        hfft_mpi_local_size_3d_transposed(9, 10, 11, MPI_COMM_WORLD, a, a + 1, a + 2, a + 3) !=
            fftw_mpi_local_size_3d_transposed(9, 10, 11, MPI_COMM_WORLD, f, f + 1, f + 2, f + 3) ||
        memcmp(a, f, sizeof a))
        fail("the 2d/3d forms differ from FFTW-MPI's");
    char detail[32];
    snprintf(detail, sizeof detail, "%d layouts", checked);
    end(name, detail);
}
#endif

/* ---- the list ---- */

static void run_all(void) {
#ifdef HFFT_TEST_FFTW_MPI
    run_local_sizes();
#endif
    const setting groups = {"3", "1KiB", NULL}, messages = {"2", NULL, "0"};
    const acase list[] = {
        {8, 2, {45, 34}, 1, HFFT_FORWARD, 1, 0},
        {4, 2, {45, 34}, 1, HFFT_FORWARD, 0, 0},
        {8, 2, {17, 31}, 1, HFFT_BACKWARD, 0, 0, 0, 1},
        {4, 2, {64, 48}, 1, HFFT_FORWARD, 1, 0, 0, 0, groups},
        {8, 2, {64, 48}, 1, HFFT_BACKWARD, 0, 0, 0, 1, groups},
        {8, 2, {30, 21}, 1, HFFT_FORWARD, 0, 0, 0, 0, messages},
        {8, 2, {3, 50}, 1, HFFT_FORWARD, 0, 0}, /* n0 < ranks: ranks without rows */
        {4, 2, {40, 2}, 1, HFFT_FORWARD, 1, 0}, /* n1 < ranks */
        {8, 2, {1, 7}, 1, HFFT_FORWARD, 0, 0},
        {8, 2, {7, 1}, 1, HFFT_BACKWARD, 1, 0},
        {8, 3, {9, 10, 11}, 1, HFFT_FORWARD, 0, 0},
        {4, 3, {9, 10, 11}, 1, HFFT_BACKWARD, 1, 0, 0, 0, groups},
        {8, 3, {2, 3, 7}, 1, HFFT_FORWARD, 1, 0}, /* n0 and n1 < ranks */
        {4, 3, {5, 1, 4}, 1, HFFT_FORWARD, 0, 0},
        {8, 4, {3, 4, 5, 2}, 1, HFFT_FORWARD, 0, 0},
        {8, 2, {12, 10}, 3, HFFT_FORWARD, 0, 0}, /* howmany interleaved */
        {4, 3, {6, 5, 4}, 2, HFFT_BACKWARD, 1, 0, 0, 0, groups},
        {8, 2, {20, 18}, 1, HFFT_FORWARD, 0, 0, 1}, /* blocks */
        {8, 2, {45, 34}, 1, HFFT_FORWARD, 0, T_OUT},
        {4, 2, {45, 34}, 1, HFFT_FORWARD, 1, T_OUT, 0, 1},
        {8, 3, {9, 10, 11}, 1, HFFT_BACKWARD, 0, T_OUT, 0, 0, groups},
        {8, 2, {33, 26}, 1, HFFT_FORWARD, 0, T_IN},
        {4, 2, {33, 26}, 1, HFFT_BACKWARD, 1, T_IN, 0, 0, groups},
        {8, 3, {7, 6, 5}, 1, HFFT_FORWARD, 1, T_IN, 0, 1},
        {8, 2, {3, 50}, 1, HFFT_FORWARD, 0, T_OUT},
        {8, 2, {50, 3}, 1, HFFT_FORWARD, 0, T_IN},
        {8, 2, {19, 23}, 1, HFFT_FORWARD, 0, T_IN | T_OUT},
        {4, 3, {5, 6, 7}, 1, HFFT_BACKWARD, 1, T_IN | T_OUT},
        {8, 2, {20, 18}, 1, HFFT_FORWARD, 1, T_OUT, 1},
        {8, 2, {20, 18}, 1, HFFT_FORWARD, 0, T_IN, 1, 0, groups},
        {4, 2, {12, 10}, 3, HFFT_FORWARD, 0, T_OUT},
        {8, 3, {6, 5, 4}, 2, HFFT_BACKWARD, 1, T_IN, 0, 0, groups},
        {8, 2, {21, 19}, 1, HFFT_FORWARD, 0, 0, 0, 1, groups, 1},
        {4, 3, {7, 6, 5}, 1, HFFT_BACKWARD, 1, T_OUT, 0, 0, {0}, 1},
    };
    for (size_t i = 0; i < sizeof list / sizeof list[0]; i++)
        run_accuracy(&list[i]);
    static const int64_t n2[2] = {36, 28}, n3[3] = {8, 9, 10};
    run_round_trip(8, 2, n2, 0, 0, 1, NULL);
    run_round_trip(4, 3, n3, 0, 0, 0, &groups);
    run_round_trip(8, 2, n2, T_OUT, T_IN, 0, NULL);
    run_round_trip(4, 2, n2, T_OUT, T_IN, 1, &groups);
    run_round_trip(8, 3, n3, T_OUT, T_IN, 1, NULL);
    run_errors(8);
    run_errors(4);
}

int main(int argc, char **argv) {
    int provided = 0;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &ranks);
    comm = MPI_COMM_WORLD;
    const char *device = "none";
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--device") && i + 1 < argc)
            device = argv[++i];
        else if (!strcmp(argv[i], "--filter") && i + 1 < argc)
            filter = argv[++i];
        else if (!strcmp(argv[i], "--verbose"))
            verbose = 1;
    }
    /* no machine wisdom; one thread per rank (the ranks share the machine) */
    setenv("HFFT_WISDOM", "none", 1);
    setenv("HFFT_THREADS", "1", 0);
    unsetenv("HFFT_FAULT");
    setenv("HFFT_DEVICE", device, 1);
    if (!strcmp(device, "emulated"))
        setenv("HFFT_DEVICE_MEMORY", "64KiB", 0);
    /* FFTW's threads before any plan (the reference's plan_with_nthreads would otherwise
       clean up FFTW's planner under the library's live plans) */
    fftw_init_threads();
    fftwl_init_threads();
    double t0 = MPI_Wtime();
    if (me == 0)
        printf("test_mpi: %d ranks, device %s\n", ranks, device);
    run_all();
    if (me == 0)
        printf("test_mpi: %d cases, %d failed, %.1f s\n", cases, failures, MPI_Wtime() - t0);
    MPI_Finalize();
    return failures ? 1 : 0;
}
