/*
 * baselines.c: what hfft is measured against, on the same arrays: FFTW
 * threads (ESTIMATE and MEASURE, guru64 for 64-bit sizes, in place on a
 * copy) and cuFFT in card and copy-transform-copy; MKL's is mkl_baseline.c.
 */
#include <fftw3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "ref.h"

#ifdef HFFT_BENCH_HAVE_CUDA
#include "cuda_baselines.h"
#include "cufft_dct.h"
#endif

/* ---- FFTW: in place on a copy, all cores, guru64 for 64-bit sizes ---- */

void bench_run_fftw(const args *a, const problem *p, int e, void *A, void *B, result *r) {
    int measure = e == E_FFTW_MEAS;
    /* Complex problems in place on a copy in B; real ones from A into B, the way an
       FFTW user keeps a real input (FFTW's r2c leaves an out-of-place input alone). */
    fftw_iodim64 d[3], h;
    int r2c = p->kind == PK_R2C, r2r = p->kind == PK_R2R;
    int64_t cs = 1, rs = 1, ol = r2c ? p->n[p->rank - 1] / 2 + 1 : p->n[p->rank - 1];
    for (int k = p->rank - 1; k >= 0; k--) {
        d[k].n = p->n[k];
        d[k].is = r2c ? rs : cs;
        d[k].os = cs;
        rs *= p->n[k];
        cs *= k == p->rank - 1 ? ol : p->n[k];
    }
    h.n = p->howmany;
    h.is = r2c ? rs : cs;
    h.os = cs;
    /* r2r: in place on a copy in B, as complex problems (reals both sides) */
    fftw_r2r_kind kinds[3] = {(fftw_r2r_kind)p->r2r, (fftw_r2r_kind)p->r2r,
                              (fftw_r2r_kind)p->r2r};
    const char *what = r2r ? "r2r" : r2c ? "r2c" : "dft";
    unsigned flags = measure ? FFTW_MEASURE : FFTW_ESTIMATE;
    bench_fill(p, A, a->seed + (uint64_t)e * 7919u);
    snprintf(r->device, sizeof r->device, "cpu");
    void *plan;
    double t0 = hfft_ref_now();
    if (p->prec == 4) {
        fftwf_plan_with_nthreads(a->bthreads);
        if (measure)
            fftwf_set_timelimit(a->measure_limit);
        plan = r2c   ? (void *)fftwf_plan_guru64_dft_r2c(p->rank, d, 1, &h, A, B, flags)
               : r2r ? (void *)fftwf_plan_guru64_r2r(p->rank, (fftwf_iodim64 *)d, 1,
                                                     (fftwf_iodim64 *)&h, B, B,
                                                     (fftwf_r2r_kind *)kinds, flags)
                     : (void *)fftwf_plan_guru64_dft(p->rank, d, 1, &h, B, B, FFTW_FORWARD,
                                                     flags);
        fftwf_set_timelimit(FFTW_NO_TIMELIMIT);
    } else {
        fftw_plan_with_nthreads(a->bthreads);
        if (measure)
            fftw_set_timelimit(a->measure_limit);
        plan = r2c   ? (void *)fftw_plan_guru64_dft_r2c(p->rank, d, 1, &h, A, B, flags)
               : r2r ? (void *)fftw_plan_guru64_r2r(p->rank, d, 1, &h, B, B, kinds, flags)
                     : (void *)fftw_plan_guru64_dft(p->rank, d, 1, &h, B, B, FFTW_FORWARD,
                                                    flags);
        fftw_set_timelimit(FFTW_NO_TIMELIMIT);
    }
    r->plan_s = hfft_ref_now() - t0;
    bench_fftw_threads_reset();
    if (!plan) {
        r->status = ST_FAILED;
        snprintf(r->note, sizeof r->note, "FFTW planning failed");
        return;
    }
    if (measure)
        snprintf(r->plan, sizeof r->plan, "fftw%s %s measure threads=%d timelimit=%gs %s",
                 p->prec == 4 ? "f" : "", what, a->bthreads, a->measure_limit,
                 r2c ? "out-of-place" : "in-place");
    else
        snprintf(r->plan, sizeof r->plan, "fftw%s %s estimate threads=%d %s",
                 p->prec == 4 ? "f" : "", what, a->bthreads, r2c ? "out-of-place" : "in-place");
    double *t = calloc((size_t)a->reps, sizeof *t);
    if (!t)
        bench_die("out of memory");
    for (int k = -1; k < a->reps; k++) {
        if (r2c)
            bench_fill(p, A, a->seed + (uint64_t)e * 7919u); /* MEASURE overwrote A */
        else
            bench_copy(p, B, A); /* MEASURE overwrote B; every run starts from A */
        double s = hfft_ref_now();
        if (p->prec == 4)
            fftwf_execute(plan);
        else
            fftw_execute(plan);
        if (k >= 0)
            t[k] = hfft_ref_now() - s;
    }
    bench_summarize(t, a->reps, r);
    free(t);
    if (p->prec == 4)
        fftwf_destroy_plan(plan);
    else
        fftw_destroy_plan(plan);
    /* Forget what MEASURE learned so later engines and problems plan from scratch. */
    if (measure) {
        fftw_forget_wisdom();
        fftwf_forget_wisdom();
    }
    r->err = bench_verify(a, p, A, B);
}

/* ---- cuFFT ---- */

#ifdef HFFT_BENCH_HAVE_CUDA
/* One baseline's in-card and copy-execute-copy rows on the same plan: where `skip` is
   set, both rows skipped with it; else each row timed, its error checked, and the
   copy row's link figures (one trip: the input in, then the output out). */
typedef void (*timed_fn)(void *plan, const void *a, void *b, int reps, double *times);
static void gpu_rows(const args *a, const problem *p, void *plan, timed_fn incard, timed_fn copy,
                     const char *skip, const char *desc, double plan_s, void *A, void *B,
                     result *ri, result *rc) {
    result *rs[2] = {ri, rc};
    for (int i = 0; i < 2; i++) {
        if (!rs[i])
            continue;
        snprintf(rs[i]->device, sizeof rs[i]->device, "%.95s", G.gpu_name);
        rs[i]->plan_s = plan_s;
        if (skip) {
            rs[i]->status = ST_SKIPPED;
            snprintf(rs[i]->note, sizeof rs[i]->note, "%s", skip);
        } else
            snprintf(rs[i]->plan, sizeof rs[i]->plan, "%s", desc);
    }
    if (skip)
        return;
    double *t = calloc((size_t)a->reps, sizeof *t);
    if (!t)
        bench_die("out of memory");
    for (int i = 0; i < 2; i++) {
        if (!rs[i])
            continue;
        bench_fill(p, A, a->seed + (uint64_t)(i ? E_CU_COPY : E_CU_INCARD) * 7919u);
        (i ? copy : incard)(plan, A, B, a->reps, t);
        bench_summarize(t, a->reps, rs[i]);
        if (i) {
            rc->link_bytes = (double)p->in_bytes + (double)p->out_bytes;
            bench_link_bounds(p, (double)p->bytes, 1, rc);
            rc->floor_s = rc->trip_s;
        }
        rs[i]->err = bench_verify(a, p, A, B);
    }
    free(t);
}

static void fft_incard(void *c, const void *a, void *b, int reps, double *t) {
    bench_cufft_incard(c, a, b, reps, t);
}
static void fft_copy(void *c, const void *a, void *b, int reps, double *t) {
    bench_cufft_copy_exec_copy(c, a, b, reps, t);
}
static void dct_incard(void *c, const void *a, void *b, int reps, double *t) {
    bench_dct_incard(c, a, b, reps, t);
}
static void dct_copy(void *c, const void *a, void *b, int reps, double *t) {
    bench_dct_copy_exec_copy(c, a, b, reps, t);
}

/* cuFFT has no real-to-real transform: REDFT10 (the DCT-II) as a cuFFT user writes
   it (cufft_dct.h); other kinds are skipped. */
static void run_dct(const args *a, const problem *p, void *A, void *B, result *ri, result *rc) {
    bench_dct *c = NULL;
    double plan_s = 0;
    char note[256], desc[300];
    int no = 1;
    if (p->r2r != HFFT_REDFT10 || p->howmany != 1)
        snprintf(note, sizeof note,
                 "skipped: cuFFT has no real-to-real transform; the baseline written by hand "
                 "is the DCT-II (e10) of one array (bench/cupy_dct.py runs CuPy's dctn)");
    else
        no = bench_dct_open(p->prec, p->rank, p->n, &c, &plan_s, note, sizeof note);
    snprintf(desc, sizeof desc, "cufft DCT-II by hand: %s", note);
    gpu_rows(a, p, c, dct_incard, dct_copy, no ? note : NULL, desc, plan_s, A, B, ri, rc);
    if (!no)
        bench_dct_close(c);
}

void bench_run_cufft(const args *a, const problem *p, int want_incard, int want_chunk, void *A,
                      void *B, result *ri, result *rc) {
    ri = want_incard ? ri : NULL;
    rc = want_chunk ? rc : NULL;
    if (p->kind == PK_R2R) {
        run_dct(a, p, A, B, ri, rc);
        return;
    }
    bench_cufft *c = NULL;
    double plan_s = 0;
    char note[256], desc[300];
    int no = bench_cufft_open(p->prec, p->kind, p->rank, p->n, p->howmany, &c, &plan_s, note,
                              sizeof note);
    snprintf(desc, sizeof desc, "cufft %s %s host=%s",
             p->kind ? (p->prec == 4 ? "R2C" : "D2Z") : (p->prec == 4 ? "C2C" : "Z2Z"), note,
             bench_cuda_host_pinned(A) && bench_cuda_host_pinned(B) ? "pinned" : "pageable");
    gpu_rows(a, p, c, fft_incard, fft_copy, no ? note : NULL, desc, plan_s, A, B, ri, rc);
    if (!no)
        bench_cufft_close(c);
}
#endif

#ifdef HFFT_BENCH_HAVE_CUDA
/* cuFFTXt over the run's cards: copy in, execute, copy out in natural order. */
void bench_run_cufftxt(const args *a, const problem *p, void *A, void *B, result *r) {
    snprintf(r->device, sizeof r->device, "%d x %.80s", G.ncards, G.gpu_name);
    if (p->kind != PK_C2C || p->howmany > 1) {
        r->status = ST_SKIPPED;
        snprintf(r->note, sizeof r->note, "skipped: the cuFFTXt baseline runs one c2c transform");
        return;
    }
    bench_cufftxt *c = NULL;
    char note[256];
    int no = bench_cufftxt_open(p->prec, p->rank, p->n, G.cards, G.ncards, &c, &r->plan_s, note,
                                sizeof note);
    if (no) {
        r->status = ST_SKIPPED;
        snprintf(r->note, sizeof r->note, "%s", note);
        return;
    }
    snprintf(r->plan, sizeof r->plan, "cufftxt %s in-place %s natural order",
             p->prec == 4 ? "C2C" : "Z2Z", note);
    double *t = calloc((size_t)a->reps, sizeof *t);
    if (!t)
        bench_die("out of memory");
    bench_fill(p, A, a->seed + (uint64_t)E_CU_XT * 7919u);
    bench_cufftxt_run(c, A, B, a->reps, t);
    bench_summarize(t, a->reps, r);
    free(t);
    bench_cufftxt_close(c);
    r->link_bytes = (double)p->in_bytes + (double)p->out_bytes;
    bench_link_bounds(p, (double)p->bytes, G.ncards, r);
    r->floor_s = r->trip_s;
    r->err = bench_verify(a, p, A, B);
}
#endif
