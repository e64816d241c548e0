/*
 * bench.c: hfft-bench, the benchmark program.  For each problem string
 * ("2d:32768x32768:f32") it times hfft in the requested placements and the
 * baselines (FFTW threads ESTIMATE and MEASURE, MKL DFTI, cuFFT in card and
 * copy-transform-copy) on the same data in one run, measures the PCIe link,
 * and prints a table (and CSV rows) with the median time, GFLOPS, bytes over
 * the link, the fraction of the link bound reached, the error and the plan.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fftw3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench.h"
#include "ref.h"

#ifdef HFFT_BENCH_HAVE_CUDA
#include "cuda_baselines.h"
#endif

bench_env G;
const char *const engine_name[E_COUNT] = {"hfft-hybrid", "hfft-gpu",      "hfft-cpu",
                                                 "hfft-auto",   "fftw-estimate", "fftw-measure",
                                                 "mkl",         "cufft-incard",  "cufft-copy-exec-copy",
                                                 "cufftxt-copy-exec-copy"};

static void account(const problem *p, const result *r) {
    if (r->status == ST_FAILED || (r->status == ST_OK && r->err > bench_tolerance(p->prec)))
        G.any_failure = 1;
    if (r->status == ST_OK)
        fprintf(stderr, "[%s] %s: median %.4g s%s\n", p->text, engine_name[r->engine], r->med,
                r->err > bench_tolerance(p->prec) ? " (error above tolerance)" : "");
    else
        fprintf(stderr, "[%s] %s: %s\n", p->text, engine_name[r->engine], r->note);
}

/* Where a symbol came from: libmkl_rt and hfft's drop-in export FFTW's names too,
   and either one ahead of FFTW (linked first, or preloaded) would silently turn
   every FFTW figure into its own. */
static const char *origin(void *sym) {
    Dl_info di;
    if (!dladdr(sym, &di) || !di.dli_fname)
        return "?";
    const char *s = strrchr(di.dli_fname, '/');
    return s ? s + 1 : di.dli_fname;
}

int main(int argc, char **argv) {
    long nc = sysconf(_SC_NPROCESSORS_ONLN);
    G.cores = nc > 0 ? (int)nc : 1;
    bench_host_description(G.host, sizeof G.host);

    args a;
    problem *probs = calloc((size_t)argc, sizeof *probs);
    int nprob = 0;
    if (!probs)
        bench_die("out of memory");
    int st = bench_parse_args(argc, argv, &a, probs, &nprob);
    if (st >= 0) {
        free(probs);
        return st;
    }
    bench_check_csv(&a);

    fftw_init_threads();
    fftwf_init_threads();
#ifdef HFFT_BENCH_HAVE_FFTWL_THREADS
    fftwl_init_threads();
#endif
    {
        void *const syms[] = {(void *)fftw_execute,
                              (void *)fftwf_execute,
                              (void *)fftw_plan_guru64_dft,
                              (void *)fftwf_plan_guru64_dft,
                              (void *)fftw_plan_with_nthreads,
                              (void *)fftwf_plan_with_nthreads};
        for (size_t i = 0; i < sizeof syms / sizeof *syms; i++)
            if (strncmp(origin(syms[i]), "libfftw3", 8) != 0) /* not libhfftw3 */
                bench_die("an FFTW function resolves to %s, not FFTW: a library that "
                          "exports FFTW's names (libmkl_rt, libhfftw3) comes before FFTW",
                          origin(syms[i]));
    }

    /* What is available, and what is skipped with a reason. */
    char why_gpu[300] = "built without CUDA";
#ifdef HFFT_BENCH_HAVE_CUDA
    bench_gpu g;
    G.gpu_present = bench_gpu_probe(&g);
    snprintf(G.gpu_name, sizeof G.gpu_name, "%s", g.name);
    snprintf(why_gpu, sizeof why_gpu, "%s", g.name);
#endif
    unsigned available = (1u << E_FFTW_EST) | (1u << E_FFTW_MEAS);
#ifdef HFFT_BENCH_HAVE_MKL
    if (bench_mkl_load() == 0)
        available |= 1u << E_MKL;
#endif
    /* The cards hfft's plans use: --devices, else every card. */
    G.ncards = 1;
#ifdef HFFT_BENCH_HAVE_CUDA
    if (G.gpu_present) {
        G.ncards = 0;
        int seen = bench_gpu_count();
        if (!a.devices || strcmp(a.devices, "all") == 0) {
            for (int k = 0; k < seen && k < 16; k++)
                G.cards[G.ncards++] = k;
        } else {
            for (const char *c = a.devices; *c && G.ncards < 16;) {
                char *end;
                long v = strtol(c, &end, 10);
                if (end == c || v < 0 || v >= seen)
                    bench_die("--devices '%s': card ordinals below %d, or all", a.devices, seen);
                G.cards[G.ncards++] = (int)v;
                c = *end == ',' ? end + 1 : end;
            }
        }
    }
#endif
    if (G.gpu_present)
        available |= (1u << E_CU_INCARD) | (1u << E_CU_COPY);
    if (G.gpu_present && G.ncards > 1)
        available |= 1u << E_CU_XT;
    if (!a.baselines_given)
        a.baselines &= available;
    a.engines |= a.baselines;

    printf("hfft-bench, hfft %s: host %s, %d cores; baselines use %d threads\n", hfft_version(),
           G.host, G.cores, a.bthreads);
    printf("FFTW %s (%s, %s)", fftw_version, origin((void *)fftw_execute),
           origin((void *)fftwf_execute));
#ifdef HFFT_BENCH_HAVE_MKL
    {
        char v[800];
        bench_mkl_describe(v, sizeof v);
        printf("; MKL: %s", v);
    }
#else
    printf("; MKL: not built (no MKL at configure time, or HFFT_BENCH_MKL=OFF)");
#endif
    printf("\nGPU: %s\n", G.gpu_present ? G.gpu_name : why_gpu);
    const char *hd = getenv("HFFT_DEVICE");
    if (hd && *hd)
        printf("HFFT_DEVICE=%s\n", hd);

    bench_measure_link(&a, why_gpu);
    bench_measure_host(&a);
    fflush(stdout);

    /* Two arrays of the largest problem, reused by every engine and problem:
       A holds the input, B the output (or the in-place copy). */
    size_t maxb = 0;
    for (int i = 0; i < nprob; i++)
        if (probs[i].bytes > maxb)
            maxb = probs[i].bytes;
    void *A = NULL, *B = NULL;
    if (nprob) {
        A = a.host_malloc ? malloc(maxb) : hfft_malloc(maxb);
        B = a.host_malloc ? malloc(maxb) : hfft_malloc(maxb);
        if (!A || !B) {
            char b1[32];
            bench_die("cannot allocate 2 x %s of host memory (%s: %s)",
                bench_fmt_bytes((double)maxb, b1, sizeof b1), a.host_malloc ? "malloc" : "hfft_malloc",
                a.host_malloc ? "out of memory" : hfft_last_error_message());
        }
    }

    for (int pi = 0; pi < nprob; pi++) {
        const problem *p = &probs[pi];
        result res[E_COUNT];
        int nres = 0;
        if (a.alternate) {
            /* hfft's rows take turns: every plan, every warm-up, then execute k of each,
               the rows in order on even turns and in reverse on odd ones (A B C, C B A),
               so that what runs before a row (a CPU-only execute slows the next GPU
               execute's copies for a while) is the same for every row */
            bench_hrun *h[E_COUNT] = {0};
            int first = nres, n = 0;
            for (int e = 0; e <= E_AUTO; e++) {
                if (!(a.engines >> e & 1u))
                    continue;
                result *r = &res[nres++];
                memset(r, 0, sizeof *r);
                r->engine = e;
                r->err = -1;
                h[n++] = bench_hfft_begin(&a, p, e, A, B, r);
            }
            for (int k = -1; k < a.reps; k++)
                for (int i = 0; i < n; i++) {
                    bench_hrun *x = h[k % 2 ? n - 1 - i : i];
                    if (x)
                        bench_hfft_exec(x, k);
                }
            for (int i = 0; i < n; i++)
                if (h[i])
                    bench_hfft_end(h[i]);
            for (int i = first; i < nres; i++)
                account(p, &res[i]);
        }
        for (int e = 0; e < E_COUNT; e++) {
            if (!(a.engines >> e & 1u) || (a.alternate && e <= E_AUTO))
                continue;
            if (e == E_CU_COPY && (a.engines >> E_CU_INCARD & 1u))
                continue; /* ran together with cufft-incard */
            result *r = &res[nres];
            memset(r, 0, sizeof *r);
            r->engine = e;
            r->err = -1;
            if (e <= E_AUTO) {
                bench_run_hfft(&a, p, e, A, B, r);
            } else if (e == E_FFTW_EST || e == E_FFTW_MEAS) {
                bench_run_fftw(&a, p, e, A, B, r);
            } else if (e == E_CU_XT) {
#ifdef HFFT_BENCH_HAVE_CUDA
                if (G.gpu_present && G.ncards > 1) {
                    bench_run_cufftxt(&a, p, A, B, r);
                } else
#endif
                {
                    r->status = ST_SKIPPED;
                    snprintf(r->note, sizeof r->note, "skipped: %s",
                             G.gpu_present ? "one card (cuFFTXt needs two or more)" : why_gpu);
                }
            } else if (e == E_MKL) {
#ifdef HFFT_BENCH_HAVE_MKL
                bench_run_mkl(&a, p, A, B, r);
#else
                r->status = ST_SKIPPED;
                snprintf(r->note, sizeof r->note, "skipped: built without MKL");
#endif
            } else {
                /* cufft-incard and cufft-copy-exec-copy share one plan and device array. */
                int want_i = a.engines >> E_CU_INCARD & 1u, want_c = a.engines >> E_CU_COPY & 1u;
                result *ri = want_i ? r : NULL;
                result *rc = want_c ? (want_i ? &res[nres + 1] : r) : NULL;
                if (ri && rc) {
                    memset(rc, 0, sizeof *rc);
                    rc->err = -1;
                }
                if (ri)
                    ri->engine = E_CU_INCARD;
                if (rc)
                    rc->engine = E_CU_COPY;
#ifdef HFFT_BENCH_HAVE_CUDA
                if (G.gpu_present) {
                    bench_run_cufft(&a, p, want_i, want_c, A, B, ri, rc);
                } else
#endif
                {
                    for (int k = 0; k < 2; k++) {
                        result *q = k ? rc : ri;
                        if (!q)
                            continue;
                        q->status = ST_SKIPPED;
                        snprintf(q->note, sizeof q->note, "skipped: %s", why_gpu);
                    }
                }
                if (ri && rc) {
                    account(p, ri);
                    nres++;
                    r = rc;
                }
            }
            account(p, r);
            nres++;
        }
        bench_print_table(&a, p, res, nres);
        bench_write_csv(&a, p, res, nres);
    }
    if (a.host_malloc) {
        free(A);
        free(B);
    } else {
        hfft_free(A);
        hfft_free(B);
    }
    free(probs);
    return G.any_failure ? 1 : 0;
}
