/*
 * util.h: what every test binary shares: fresh seeds, aligned and poisoned
 * buffers, a precision-neutral handle over the hfft_/hfftf_ API, and
 * run_case(), which fills an input, plans, executes and checks the output
 * against the higher-precision FFTW reference of bench/ref.h (and, out of
 * place, that the input is bit-identical afterwards).
 */
#ifndef HFFT_TEST_UTIL_H
#define HFFT_TEST_UTIL_H

#include <stddef.h>
#include <stdint.h>

#include "hfft.h"

/* Relative RMS tolerances against the reference, per precision. */
#define TU_TOL_F 1e-6
#define TU_TOL_D 1e-14
static inline double tu_tol(int prec) { return prec == 4 ? TU_TOL_F : TU_TOL_D; }

/* A fresh seed per call: a counter, the clock and the process id. */
uint64_t tu_seed(void);

/* 64-byte aligned memory (never NULL: the test fails instead); tu_free frees it. */
void *tu_alloc(size_t bytes);
void tu_free(void *p);
/* Fills with 0xff bytes: NaN in both precisions, so unwritten elements show. */
void tu_poison(void *p, size_t bytes);
/* A heap copy of bytes from p (tu_free it). */
void *tu_dup(const void *p, size_t bytes);

int64_t tu_total(int rank, const int64_t *n);
static inline size_t tu_esize(int prec) { return 2u * (size_t)prec; }

/* Unsets every variable the library reads (HFFT_DEVICE, HFFT_DEVICE_MEMORY,
   HFFT_THREADS, HFFT_WISDOM, HFFT_FAULT). */
void tu_env_clear(void);
/* Suite .init: tu_env_clear(); HFFT_WISDOM=none, so that no wisdom file of the
   machine's (by default $XDG_CONFIG_HOME/hfft/wisdom) changes what a test
   plans; and FFTW's threads initialised before any plan exists (the reference
   calls fftw_plan_with_nthreads, which otherwise runs fftw_cleanup() and
   frees the library's live double-precision plans). */
void tu_setup(void);

/* Sets HFFT_FAULT to spec ("op:N"), spelt differently on each call ("op:N",
   "op:0N", "op:00N", ...) so that every arming is a new value and the call
   count restarts even where an unset in between went unnoticed (the library
   handles that itself now: see faults::rearmed_after_unset). */
void tu_fault_arm(const char *spec);

/* One plan of either precision. */
typedef struct tplan {
    int prec;
    void *p; /* hfft_plan or hfftf_plan; NULL when planning failed */
} tplan;

tplan tp_dft(int prec, int rank, const int64_t *n, void *in, void *out, int sign, unsigned flags,
             const hfft_options *opts);
/* Through hfft_plan_1d/2d/3d (int sizes, no options). */
tplan tp_nd(int prec, int rank, const int64_t *n, void *in, void *out, int sign, unsigned flags);
int tp_execute(tplan t);
int tp_execute_dft(tplan t, void *in, void *out);
int tp_info(tplan t, hfft_info *info);
int tp_trace(tplan t, hfft_trace_op *ops, int max);
void tp_destroy(tplan t);

/* Relative RMS difference of y against ref (count complex elements, long double sums). */
double tu_rel_rms(int prec, const void *y, const void *ref, int64_t count);

/* Complex elements with a NaN part (poison left unwritten, or worse). */
int64_t tu_count_nan(int prec, const void *data, int64_t count);
/* One line of what a plan chose, for failure messages. */
const char *tu_describe_info(char *buf, size_t size, const hfft_info *info);

/* "f32 2D 64x48" */
const char *tu_shape(char *buf, size_t size, int prec, int rank, const int64_t *n);

/* One accuracy case for run_case. */
typedef struct tu_case {
    int prec;
    int rank;
    int64_t n[3];
    int inplace;
    int sign;
    unsigned flags;
    const hfft_options *opts; /* NULL: environment and defaults */
    int use_nd;               /* plan through hfft_plan_1d/2d/3d instead of plan_dft */
    int fill_after_plan;      /* fill the input after planning (plans that probe on the arrays) */
    int input_may_change;     /* out of place with HFFT_DESTROY_INPUT: the input is not checked */
} tu_case;

/* Fills a fresh random input, poisons the output, plans, executes and asserts:
   a plan, status 0, the error below tu_tol(prec), out of place an input
   bit-identical to what it was before planning, and a measured time for every
   round.  Fills *info (as plan_info gives it after the execute) if non-NULL. */
void run_case(const tu_case *c, hfft_info *info);

#endif
