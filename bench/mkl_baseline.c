/*
 * mkl_baseline.c: hfft-bench's MKL row, DFTI on the same arrays as the FFTW
 * rows.  libmkl_rt is opened at run time from the path configure found, with
 * RTLD_LOCAL, instead of being linked: it exports FFTW's names, and its folder
 * (a Python prefix's lib/) holds other libraries, libhwloc among them, that a
 * run path to it would put before the system's.  libmkl_rt loads its
 * threading layer and libiomp5 from its own folder.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mkl_dfti.h>
#include <mkl_service.h>
#include <mkl_version.h>

#include "bench.h"
#include "ref.h"

#ifndef HFFT_BENCH_MKL_RT
#error "HFFT_BENCH_MKL_RT: the path of libmkl_rt that configure found"
#endif

/* DFTI_FWD_* replaced DFTI_INPUT_* and DFTI_OUTPUT_* (deprecated) in oneMKL 2024.1. */
#if INTEL_MKL_VERSION >= 20240100
#define STRIDES_IN DFTI_FWD_STRIDES
#define STRIDES_OUT DFTI_BWD_STRIDES
#define DISTANCE_IN DFTI_FWD_DISTANCE
#define DISTANCE_OUT DFTI_BWD_DISTANCE
#else
#define STRIDES_IN DFTI_INPUT_STRIDES
#define STRIDES_OUT DFTI_OUTPUT_STRIDES
#define DISTANCE_IN DFTI_INPUT_DISTANCE
#define DISTANCE_OUT DFTI_OUTPUT_DISTANCE
#endif

static struct {
    __typeof__(&DftiCreateDescriptor) create;
    __typeof__(&DftiSetValue) set;
    __typeof__(&DftiCommitDescriptor) commit;
    __typeof__(&DftiComputeForward) forward;
    __typeof__(&DftiFreeDescriptor) release;
    __typeof__(&DftiErrorClass) error_class;
    __typeof__(&DftiErrorMessage) error_message;
    __typeof__(&MKL_Set_Num_Threads) set_threads;
    __typeof__(&MKL_Get_Max_Threads) max_threads;
    __typeof__(&MKL_Get_Version_String) version;
} mkl;

static int loaded; /* 0: not tried, 1: loaded, -1: failed (why says so) */
static char why[600];

int bench_mkl_load(void) {
    if (loaded)
        return loaded > 0 ? 0 : -1;
    loaded = -1;
    void *h = dlopen(HFFT_BENCH_MKL_RT, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        const char *e = dlerror();
        snprintf(why, sizeof why, "cannot load %s (%s)", HFFT_BENCH_MKL_RT, e ? e : "?");
        return -1;
    }
    const struct {
        const char *name;
        void **slot;
    } calls[] = {{"DftiCreateDescriptor", (void **)&mkl.create},
                 {"DftiSetValue", (void **)&mkl.set},
                 {"DftiCommitDescriptor", (void **)&mkl.commit},
                 {"DftiComputeForward", (void **)&mkl.forward},
                 {"DftiFreeDescriptor", (void **)&mkl.release},
                 {"DftiErrorClass", (void **)&mkl.error_class},
                 {"DftiErrorMessage", (void **)&mkl.error_message},
                 {"MKL_Set_Num_Threads", (void **)&mkl.set_threads},
                 {"MKL_Get_Max_Threads", (void **)&mkl.max_threads},
                 {"MKL_Get_Version_String", (void **)&mkl.version}};
    for (size_t k = 0; k < sizeof calls / sizeof *calls; k++) {
        dlerror();
        *calls[k].slot = dlsym(h, calls[k].name);
        if (!*calls[k].slot) {
            const char *e = dlerror();
            snprintf(why, sizeof why, "%s has no %s (%s)", HFFT_BENCH_MKL_RT, calls[k].name,
                     e ? e : "null symbol");
            dlclose(h);
            return -1;
        }
    }
    loaded = 1;
    return 0;
}

void bench_mkl_describe(char *s, size_t n) {
    if (bench_mkl_load()) {
        snprintf(s, n, "not loaded: %s", why);
        return;
    }
    char v[256];
    mkl.version(v, (int)sizeof v);
    const char *file = strrchr(HFFT_BENCH_MKL_RT, '/');
    snprintf(s, n, "%s (%s)", v, file ? file + 1 : HFFT_BENCH_MKL_RT);
}

static int dfti_error(MKL_LONG s) { return s && !mkl.error_class(s, DFTI_NO_ERROR); }

/* Nonzero, and r failed with DFTI's message, where status s is an error. */
static int failed(MKL_LONG s, const char *call, result *r) {
    if (!dfti_error(s))
        return 0;
    r->status = ST_FAILED;
    snprintf(r->note, sizeof r->note, "%s: %s", call, mkl.error_message(s));
    return 1;
}

/* One descriptor for p's howmany transforms, committed: complex in place, real
   to complex out of place into FFTW's halved layout (the FFTW rows' layouts). */
static DFTI_DESCRIPTOR_HANDLE plan(const problem *p, result *r) {
    MKL_LONG len[3], in_st[4] = {0}, out_st[4] = {0}, in_e = 1, out_e = 1;
    for (int k = p->rank - 1; k >= 0; k--) {
        len[k] = (MKL_LONG)p->n[k];
        in_st[k + 1] = in_e;
        out_st[k + 1] = out_e;
        in_e *= len[k];
        out_e *= k == p->rank - 1 && p->kind ? len[k] / 2 + 1 : len[k];
    }
    DFTI_DESCRIPTOR_HANDLE h = NULL;
    enum DFTI_CONFIG_VALUE prec = p->prec == 4 ? DFTI_SINGLE : DFTI_DOUBLE;
    enum DFTI_CONFIG_VALUE domain = p->kind ? DFTI_REAL : DFTI_COMPLEX;
    MKL_LONG s = p->rank == 1 ? mkl.create(&h, prec, domain, (MKL_LONG)1, len[0])
                              : mkl.create(&h, prec, domain, (MKL_LONG)p->rank, len);
    if (failed(s, "DftiCreateDescriptor", r))
        return NULL;
    const char *call = "DftiSetValue";
    if (p->howmany > 1) {
        s = mkl.set(h, DFTI_NUMBER_OF_TRANSFORMS, (MKL_LONG)p->howmany);
        if (!dfti_error(s))
            s = mkl.set(h, DISTANCE_IN, in_e);
        if (!dfti_error(s))
            s = mkl.set(h, DISTANCE_OUT, out_e);
    }
    if (!dfti_error(s) && p->kind) {
        s = mkl.set(h, DFTI_PLACEMENT, DFTI_NOT_INPLACE);
        if (!dfti_error(s))
            s = mkl.set(h, DFTI_CONJUGATE_EVEN_STORAGE, DFTI_COMPLEX_COMPLEX);
        if (!dfti_error(s))
            s = mkl.set(h, STRIDES_IN, in_st);
        if (!dfti_error(s))
            s = mkl.set(h, STRIDES_OUT, out_st);
    }
    if (!dfti_error(s)) {
        call = "DftiCommitDescriptor";
        s = mkl.commit(h);
    }
    if (failed(s, call, r)) {
        mkl.release(&h);
        return NULL;
    }
    return h;
}

void bench_run_mkl(const args *a, const problem *p, void *A, void *B, result *r) {
    snprintf(r->device, sizeof r->device, "cpu");
    if (p->kind == PK_R2R) {
        r->status = ST_SKIPPED;
        snprintf(r->note, sizeof r->note, "skipped: MKL's DFTI has no real-to-real transform");
        return;
    }
    if (bench_mkl_load()) {
        r->status = ST_SKIPPED;
        snprintf(r->note, sizeof r->note, "skipped: MKL %.300s", why);
        return;
    }
    bench_fill(p, A, a->seed + (uint64_t)E_MKL * 7919u);
    mkl.set_threads(a->bthreads);
    double t0 = hfft_ref_now();
    DFTI_DESCRIPTOR_HANDLE h = plan(p, r);
    r->plan_s = hfft_ref_now() - t0;
    if (!h)
        return;
    char batch[48] = "";
    if (p->howmany > 1)
        snprintf(batch, sizeof batch, " x%lld", (long long)p->howmany);
    snprintf(r->plan, sizeof r->plan, "mkl dfti %s %s%s threads=%d %s",
             p->prec == 4 ? "single" : "double", p->kind ? "r2c" : "dft", batch, mkl.max_threads(),
             p->kind ? "out-of-place" : "in-place");
    double *t = calloc((size_t)a->reps, sizeof *t);
    if (!t)
        bench_die("out of memory");
    MKL_LONG s = 0;
    for (int k = -1; k < a->reps && !dfti_error(s); k++) {
        if (!p->kind)
            bench_copy(p, B, A); /* every run starts from A */
        double s0 = hfft_ref_now();
        s = p->kind ? mkl.forward(h, A, B) : mkl.forward(h, B);
        if (k >= 0)
            t[k] = hfft_ref_now() - s0;
    }
    mkl.release(&h);
    if (!failed(s, "DftiComputeForward", r)) {
        bench_summarize(t, a->reps, r);
        r->err = bench_verify(a, p, A, B);
    }
    free(t);
}
