/*
 * api.c: FFTW 3's DFT interface over hfft's own, written once and compiled per
 * precision (HFFT_SINGLE: fftwf_* over hfftf_*, otherwise fftw_* over hfft_*).
 * Each entry translates FFTW's names, flags, int arrays and iodims into the
 * hfft call that does the same thing; nothing here plans or transforms.  The
 * calls hfft has no counterpart for (wisdom, timelimit, cleanup, threads
 * callback) are accepted and do what src/fftw3/README.md says.
 */
#include <math.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hfft.h"
#include "hfft/fftw3/fftw3.h"

#include "src/core/precision.h"

#define X FFTW /* the names this file defines, FFTW's, over hfft's H(name) */
#define NAME(name) TEXT_OF(FFTW(name)) /* "fftw_name", for messages */
#define TEXT_OF(x) QUOTE(x)               /* x expanded, then quoted */
#define QUOTE(x) #x
typedef X(complex) C;

/* An FFTW plan is the hfft plan itself: hfft's one plan type covers every kind. */
static X(plan) wrap(H(plan) p) { return (X(plan))(void *)p; }
static H(plan) unwrap(const X(plan) p) { return (H(plan))(void *)p; }

/* ---- what the planner calls share ---- */

/* The count fftw_plan_with_nthreads gave for later plans; 0: hfft's own choice
   (HFFT_THREADS, else one thread per core). */
static atomic_int nthreads;

/* Settings for a plan: the environment and defaults, as for hfft itself, and
   the thread count the program asked for. */
static const hfft_options *options(hfft_options *o) {
    hfft_options_init(o);
    o->threads = atomic_load(&nthreads);
    return o;
}

static unsigned flags_of(unsigned f) {
    unsigned h = f & (FFTW_ESTIMATE | FFTW_WISDOM_ONLY) ? HFFT_ESTIMATE : HFFT_MEASURE;
    if (f & FFTW_PRESERVE_INPUT) /* FFTW: PRESERVE wins over DESTROY */
        h |= HFFT_PRESERVE_INPUT;
    else if (f & FFTW_DESTROY_INPUT)
        h |= HFFT_DESTROY_INPUT;
    if (f & FFTW_UNALIGNED)
        h |= HFFT_UNALIGNED;
    return h;
}

/* FFTW's int arrays and iodims as hfft's 64-bit ones.  A rank hfft refuses is
   passed on unconverted, for hfft to refuse with its message. */
static const int64_t *widen(int rank, const int *v, int64_t *w) {
    if (!v)
        return NULL;
    for (int k = 0; k < rank && k < HFFT_MAX_RANK; k++)
        w[k] = v[k];
    return w;
}

/* FFTW's two iodims (int and ptrdiff_t) as hfft's. */
#define IODIMS(name, T)                                                                          \
    static const hfft_iodim *name(int rank, const T *d, hfft_iodim *w) {                         \
        if (!d)                                                                                  \
            return NULL;                                                                         \
        for (int k = 0; k < rank && k < HFFT_MAX_RANK; k++)                                      \
            w[k] = (hfft_iodim){d[k].n, d[k].is, d[k].os};                                       \
        return w;                                                                                \
    }
IODIMS(dims32, X(iodim))
IODIMS(dims64, X(iodim64))

/*
 * FFTW's executes return nothing, so a failure hfft reports cannot reach the
 * program; going on with an undefined output would be worse than stopping,
 * so the drop-in stops as FFTW does when one of its own checks fails.
 */
static void must(int status, const char *call) {
    if (status == 0)
        return;
    fprintf(stderr, "hfftw: %s failed: %s\n", call, hfft_last_error_message());
    abort();
}

/* ---- complex ---- */

X(plan) X(plan_dft)(int rank, const int *n, C *in, C *out, int sign, unsigned flags) {
    int64_t w[HFFT_MAX_RANK];
    hfft_options o;
    return wrap(H(plan_dft)(rank, widen(rank, n, w), in, out, sign, flags_of(flags), options(&o)));
}

X(plan) X(plan_dft_1d)(int n, C *in, C *out, int sign, unsigned flags) {
    return X(plan_dft)(1, &n, in, out, sign, flags);
}

X(plan) X(plan_dft_2d)(int n0, int n1, C *in, C *out, int sign, unsigned flags) {
    int n[2] = {n0, n1};
    return X(plan_dft)(2, n, in, out, sign, flags);
}

X(plan) X(plan_dft_3d)(int n0, int n1, int n2, C *in, C *out, int sign, unsigned flags) {
    int n[3] = {n0, n1, n2};
    return X(plan_dft)(3, n, in, out, sign, flags);
}

X(plan) X(plan_many_dft)(int rank, const int *n, int howmany, C *in, const int *inembed,
                         int istride, int idist, C *out, const int *onembed, int ostride,
                         int odist, int sign, unsigned flags) {
    int64_t wn[HFFT_MAX_RANK], wi[HFFT_MAX_RANK], wo[HFFT_MAX_RANK];
    hfft_options o;
    return wrap(H(plan_many_dft64)(rank, widen(rank, n, wn), howmany, in, widen(rank, inembed, wi),
                                   istride, idist, out, widen(rank, onembed, wo), ostride, odist,
                                   sign, flags_of(flags), options(&o)));
}

/* ---- real to complex and complex to real, basic and advanced ----
   One shape for both, the real and complex sides swapped: REAL_PLANNERS(r2c, R, C)
   defines fftw_plan_dft_r2c, fftw_plan_dft_r2c_1d, _2d, _3d and
   fftw_plan_many_dft_r2c; REAL_PLANNERS(c2r, C, R) the c2r ones. */

#define REAL_PLANNERS(dir, I, O)                                                                   \
    X(plan) X(plan_dft_##dir)(int rank, const int *n, I *in, O *out, unsigned flags) {            \
        int64_t w[HFFT_MAX_RANK];                                                                  \
        hfft_options o;                                                                            \
        return wrap(H(plan_dft_##dir)(rank, widen(rank, n, w), in, out, flags_of(flags),           \
                                      options(&o)));                                               \
    }                                                                                              \
    X(plan) X(plan_dft_##dir##_1d)(int n, I *in, O *out, unsigned flags) {                         \
        return X(plan_dft_##dir)(1, &n, in, out, flags);                                           \
    }                                                                                              \
    X(plan) X(plan_dft_##dir##_2d)(int n0, int n1, I *in, O *out, unsigned flags) {                \
        int n[2] = {n0, n1};                                                                       \
        return X(plan_dft_##dir)(2, n, in, out, flags);                                            \
    }                                                                                              \
    X(plan) X(plan_dft_##dir##_3d)(int n0, int n1, int n2, I *in, O *out, unsigned flags) {        \
        int n[3] = {n0, n1, n2};                                                                   \
        return X(plan_dft_##dir)(3, n, in, out, flags);                                            \
    }                                                                                              \
    X(plan) X(plan_many_dft_##dir)(int rank, const int *n, int howmany, I *in, const int *inembed, \
                                   int istride, int idist, O *out, const int *onembed,             \
                                   int ostride, int odist, unsigned flags) {                       \
        int64_t wn[HFFT_MAX_RANK], wi[HFFT_MAX_RANK], wo[HFFT_MAX_RANK];                           \
        hfft_options o;                                                                            \
        return wrap(H(plan_many_dft_##dir##64)(rank, widen(rank, n, wn), howmany, in,              \
                                               widen(rank, inembed, wi), istride, idist, out,      \
                                               widen(rank, onembed, wo), ostride, odist,           \
                                               flags_of(flags), options(&o)));                     \
    }

REAL_PLANNERS(r2c, R, C)
REAL_PLANNERS(c2r, C, R)

/* ---- the guru planners, each twice: with fftw_iodim (int) and with
   fftw_iodim64 (ptrdiff_t) dimensions.  GURU_PLANNERS(dft_r2c, (R *in, C *out),
   (in, out)) defines fftw_plan_guru_dft_r2c and fftw_plan_guru64_dft_r2c over
   hfft_plan_guru_dft_r2c; one line for each kind of arrays. ---- */

#define STRIP(...) __VA_ARGS__
#define GURU_PLANNER(guru, T, conv, kind, params, args)                                            \
    X(plan) X(guru##_##kind)(int rank, const T *dims, int howmany_rank, const T *howmany_dims,    \
                             STRIP params, unsigned flags) {                                       \
        hfft_iodim d[HFFT_MAX_RANK], h[HFFT_MAX_RANK];                                             \
        hfft_options o;                                                                            \
        return wrap(H(plan_guru_##kind)(rank, conv(rank, dims, d), howmany_rank,                   \
                                        conv(howmany_rank, howmany_dims, h), STRIP args,           \
                                        flags_of(flags), options(&o)));                            \
    }
#define GURU_PLANNERS(kind, params, args)                                                          \
    GURU_PLANNER(plan_guru, X(iodim), dims32, kind, params, args)                                  \
    GURU_PLANNER(plan_guru64, X(iodim64), dims64, kind, params, args)

GURU_PLANNERS(dft, (C *in, C *out, int sign), (in, out, sign))
/* split c2c: the direction is the arrays' order, as in FFTW, and hfft takes it so */
GURU_PLANNERS(split_dft, (R *ri, R *ii, R *ro, R *io), (ri, ii, ro, io))
GURU_PLANNERS(dft_r2c, (R *in, C *out), (in, out))
GURU_PLANNERS(dft_c2r, (C *in, R *out), (in, out))
GURU_PLANNERS(split_dft_r2c, (R *in, R *ro, R *io), (in, ro, io))
GURU_PLANNERS(split_dft_c2r, (R *ri, R *ii, R *out), (ri, ii, out))

/* ---- real to real: FFTW's kinds are hfft's (the same values) ---- */

_Static_assert(FFTW_R2HC == (int)HFFT_R2HC && FFTW_HC2R == (int)HFFT_HC2R &&
                   FFTW_DHT == (int)HFFT_DHT && FFTW_REDFT00 == (int)HFFT_REDFT00 &&
                   FFTW_REDFT01 == (int)HFFT_REDFT01 && FFTW_REDFT10 == (int)HFFT_REDFT10 &&
                   FFTW_REDFT11 == (int)HFFT_REDFT11 && FFTW_RODFT00 == (int)HFFT_RODFT00 &&
                   FFTW_RODFT01 == (int)HFFT_RODFT01 && FFTW_RODFT10 == (int)HFFT_RODFT10 &&
                   FFTW_RODFT11 == (int)HFFT_RODFT11,
               "FFTW's r2r kinds are hfft's");

static const hfft_r2r_kind *kinds_of(int rank, const X(r2r_kind) *k, hfft_r2r_kind *w) {
    if (!k)
        return NULL;
    for (int i = 0; i < rank && i < HFFT_MAX_RANK; i++)
        w[i] = (hfft_r2r_kind)k[i];
    return w;
}

X(plan) X(plan_many_r2r)(int rank, const int *n, int howmany, R *in, const int *inembed,
                         int istride, int idist, R *out, const int *onembed, int ostride,
                         int odist, const X(r2r_kind) *kind, unsigned flags) {
    int64_t wn[HFFT_MAX_RANK], wi[HFFT_MAX_RANK], wo[HFFT_MAX_RANK];
    hfft_r2r_kind wk[HFFT_MAX_RANK];
    hfft_options o;
    return wrap(H(plan_many_r2r64)(rank, widen(rank, n, wn), howmany, in, widen(rank, inembed, wi),
                                   istride, idist, out, widen(rank, onembed, wo), ostride, odist,
                                   kinds_of(rank, kind, wk), flags_of(flags), options(&o)));
}

X(plan) X(plan_r2r)(int rank, const int *n, R *in, R *out, const X(r2r_kind) *kind,
                    unsigned flags) {
    int64_t wn[HFFT_MAX_RANK];
    hfft_r2r_kind wk[HFFT_MAX_RANK];
    hfft_options o;
    return wrap(H(plan_r2r64)(rank, widen(rank, n, wn), in, out, kinds_of(rank, kind, wk),
                              flags_of(flags), options(&o)));
}

X(plan) X(plan_r2r_1d)(int n, R *in, R *out, X(r2r_kind) kind, unsigned flags) {
    return X(plan_r2r)(1, &n, in, out, &kind, flags);
}

X(plan) X(plan_r2r_2d)(int n0, int n1, R *in, R *out, X(r2r_kind) kind0, X(r2r_kind) kind1,
                       unsigned flags) {
    int n[2] = {n0, n1};
    X(r2r_kind) k[2] = {kind0, kind1};
    return X(plan_r2r)(2, n, in, out, k, flags);
}

X(plan) X(plan_r2r_3d)(int n0, int n1, int n2, R *in, R *out, X(r2r_kind) kind0,
                       X(r2r_kind) kind1, X(r2r_kind) kind2, unsigned flags) {
    int n[3] = {n0, n1, n2};
    X(r2r_kind) k[3] = {kind0, kind1, kind2};
    return X(plan_r2r)(3, n, in, out, k, flags);
}

#define GURU_R2R(guru, T, conv)                                                                    \
    X(plan) X(guru##_r2r)(int rank, const T *dims, int howmany_rank, const T *howmany_dims,       \
                          R *in, R *out, const X(r2r_kind) *kind, unsigned flags) {                \
        hfft_iodim d[HFFT_MAX_RANK], h[HFFT_MAX_RANK];                                             \
        hfft_r2r_kind wk[HFFT_MAX_RANK];                                                           \
        hfft_options o;                                                                            \
        return wrap(H(plan_guru_r2r)(rank, conv(rank, dims, d), howmany_rank,                      \
                                     conv(howmany_rank, howmany_dims, h), in, out,                 \
                                     kinds_of(rank, kind, wk), flags_of(flags), options(&o)));     \
    }
GURU_R2R(plan_guru, X(iodim), dims32)
GURU_R2R(plan_guru64, X(iodim64), dims64)

/* ---- execution ---- */

void X(execute)(const X(plan) p) { must(H(execute)(unwrap(p)), NAME(execute)); }

void X(execute_dft)(const X(plan) p, C *in, C *out) {
    must(H(execute_dft)(unwrap(p), in, out), NAME(execute_dft));
}

void X(execute_split_dft)(const X(plan) p, R *ri, R *ii, R *ro, R *io) {
    must(H(execute_split_dft)(unwrap(p), ri, ii, ro, io), NAME(execute_split_dft));
}

void X(execute_dft_r2c)(const X(plan) p, R *in, C *out) {
    must(H(execute_dft_r2c)(unwrap(p), in, out), NAME(execute_dft_r2c));
}

void X(execute_split_dft_r2c)(const X(plan) p, R *in, R *ro, R *io) {
    must(H(execute_split_dft_r2c)(unwrap(p), in, ro, io), NAME(execute_split_dft_r2c));
}

void X(execute_dft_c2r)(const X(plan) p, C *in, R *out) {
    must(H(execute_dft_c2r)(unwrap(p), in, out), NAME(execute_dft_c2r));
}

void X(execute_split_dft_c2r)(const X(plan) p, R *ri, R *ii, R *out) {
    must(H(execute_split_dft_c2r)(unwrap(p), ri, ii, out), NAME(execute_split_dft_c2r));
}

void X(execute_r2r)(const X(plan) p, R *in, R *out) {
    must(H(execute_r2r)(unwrap(p), in, out), NAME(execute_r2r));
}

void X(destroy_plan)(X(plan) p) { H(destroy_plan)(unwrap(p)); }

/* ---- state FFTW keeps and hfft does not: accepted, nothing to do ---- */

void X(cleanup)(void) {}
void X(set_timelimit)(double t) { (void)t; }

/* ---- threads: the count for later plans ---- */

int X(init_threads)(void) { return 1; }

/* FFTW takes any count; hfft's plans take at most HFFT_MAX_THREADS. */
void X(plan_with_nthreads)(int n) {
    atomic_store(&nthreads, n > HFFT_MAX_THREADS ? HFFT_MAX_THREADS : n > 0 ? n : 0);
}

int X(planner_nthreads)(void) { return atomic_load(&nthreads); }

void X(cleanup_threads)(void) {
    atomic_store(&nthreads, 0);
    X(cleanup)();
}

void X(threads_set_callback)(void (*parallel_loop)(void *(*work)(char *), char *jobdata,
                                                   size_t elsize, int njobs, void *data),
                             void *data) {
    (void)parallel_loop; /* hfft runs its own thread pool */
    (void)data;
}

void X(make_planner_thread_safe)(void) {} /* hfft's planners are thread safe */

/* ---- wisdom: hfft plans read hfft's own (hfft-tune, HFFT_WISDOM); FFTW's is
   accepted and not used, and exports write a placeholder the imports accept ---- */

static const char wisdom_text[] = "(hfft-" HFFT_VERSION_STRING " fftw_wisdom)\n";

void X(forget_wisdom)(void) {}

void X(export_wisdom)(X(write_char_func) write_char, void *data) {
    for (const char *c = wisdom_text; *c; c++)
        write_char(*c, data);
}

void X(export_wisdom_to_file)(FILE *output_file) { fputs(wisdom_text, output_file); }

int X(export_wisdom_to_filename)(const char *filename) {
    FILE *f = fopen(filename, "w");
    if (!f)
        return 0;
    int ok = fputs(wisdom_text, f) >= 0;
    return fclose(f) == 0 && ok;
}

char *X(export_wisdom_to_string)(void) {
    char *s = malloc(sizeof wisdom_text); /* the caller frees it with free(), as FFTW's */
    if (s)
        memcpy(s, wisdom_text, sizeof wisdom_text);
    return s;
}

int X(import_system_wisdom)(void) { return 0; } /* none: hfft has no system wisdom */

int X(import_wisdom)(X(read_char_func) read_char, void *data) {
    (void)read_char;
    (void)data;
    return 1;
}

int X(import_wisdom_from_file)(FILE *input_file) { return input_file != NULL; }

int X(import_wisdom_from_string)(const char *input_string) { return input_string != NULL; }

int X(import_wisdom_from_filename)(const char *filename) {
    FILE *f = filename ? fopen(filename, "r") : NULL; /* FFTW: 0 where it cannot be read */
    if (!f)
        return 0;
    fclose(f);
    return 1;
}

/* ---- describing a plan ---- */

/* The name of value v in a table of n names, "?" outside it. */
static const char *name_of(const char *const *names, int n, int v) {
    return v >= 0 && v < n ? names[v] : "?";
}

static int describe(const X(plan) p, char *buf, size_t size) {
    static const char *const kinds[] = {"c2c", "r2c", "c2r", "r2r"};
    static const char *const placements[] = {"cpu", "gpu", "hybrid"};
    static const char *const schedules[] = {"none", "plain", "radix2", "one-trip", "four-step"};
    hfft_info i;
    if (!p || H(plan_info)(unwrap(p), &i))
        return snprintf(buf, size, "(hfft null-plan)");
    char n[HFFT_MAX_RANK * 21 + 2] = "", split[48] = "";
    size_t len = 0;
    for (int k = 0; k < i.rank && len < sizeof n; k++)
        len += (size_t)snprintf(n + len, sizeof n - len, "%s%lld", k ? "x" : "",
                                (long long)i.n[k]);
    if (i.split[0])
        snprintf(split, sizeof split, " split=%lldx%lld", (long long)i.split[0],
                 (long long)i.split[1]);
    return snprintf(buf, size,
                    "(hfft-%s %s %s howmany=%lld %s device=%s placement=%s schedule=%s%s "
                    "rounds=%d threads=%d%s%s%s)",
                    HFFT_VERSION_STRING, name_of(kinds, 4, i.kind), i.rank ? n : "rank0",
                    (long long)i.howmany, i.precision == 4 ? "single" : "double", i.device_name,
                    name_of(placements, 3, i.placement), name_of(schedules, 5, i.schedule), split,
                    i.rounds, i.threads, i.cpu_plan ? " cpu-plan=fftw-whole" : "",
                    i.note[0] ? " note=" : "", i.note);
}

char *X(sprint_plan)(const X(plan) p) {
    int len = describe(p, NULL, 0);
    char *s = len >= 0 ? malloc((size_t)len + 1) : NULL; /* freed with free(), as FFTW's */
    if (s)
        describe(p, s, (size_t)len + 1);
    return s;
}

void X(fprint_plan)(const X(plan) p, FILE *output_file) {
    char *s = X(sprint_plan)(p);
    if (s)
        fputs(s, output_file);
    free(s);
}

void X(print_plan)(const X(plan) p) { X(fprint_plan)(p, stdout); }

/* Operation counts by the usual 5 N log2 N per complex transform (half for
   real data), split 3:2 between additions and multiplications. */
void X(flops)(const X(plan) p, double *add, double *mul, double *fmas) {
    hfft_info i;
    double total = 0.0;
    if (p && H(plan_info)(unwrap(p), &i) == 0) {
        double n = 1.0;
        for (int k = 0; k < i.rank; k++)
            n *= (double)i.n[k];
        total = (i.kind == 0 ? 5.0 : 2.5) * n * log2(n) * (double)i.howmany;
    }
    *add = 0.6 * total;
    *mul = 0.4 * total;
    *fmas = 0.0;
}

double X(estimate_cost)(const X(plan) p) {
    double add, mul, fmas;
    X(flops)(p, &add, &mul, &fmas);
    return add + mul;
}

double X(cost)(const X(plan) p) { return X(estimate_cost)(p); }

/* ---- memory ---- */

void *X(malloc)(size_t n) { return H(malloc)(n); }
R *X(alloc_real)(size_t n) { return H(alloc_real)(n); }
C *X(alloc_complex)(size_t n) { return H(alloc_complex)(n); }
void X(free)(void *p) { H(free)(p); }

/* Two arrays take the same plan in a new-array execute exactly when these are
   equal: hfft's rule is the plan's alignment modulo 64 bytes. */
int X(alignment_of)(R *p) { return (int)((uintptr_t)p % 64u); }

const char X(version)[] = "hfft-" HFFT_VERSION_STRING "-fftw3";
const char X(cc)[] = "cc " __VERSION__;
const char X(codelet_optim)[] = "";
