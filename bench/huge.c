/*
 * huge.c: hfft-huge, the largest arrays a node holds: one array, in place, too
 * big for a second copy or an FFTW reference.  It times hfft_malloc and
 * hfft_free of the array, fills it with a plane wave
 * x[j] = exp(2 pi i sum_k m_k j_k / n_k), transforms it forward, and checks
 * every element: the result must be one spike of height N at m and nothing
 * elsewhere (the relative RMS error against that, over the whole array, within
 * 5e-7 (f32) or 5e-16 (f64) above the input's own rounding, which the
 * transform carries into the result at the same ratio).  It
 * reports the execute's time against the one-trip bound of the cards it ran
 * on (S / B_h2d + S / B_d2h, both measured with all those cards copying at
 * once) where a GPU is present.  With --timeline FILE.png the plan is made with
 * tracing on (hfft_options.trace) and the last execute's device operations are
 * drawn (bench/timeline.h), with the CSV beside it.  With --probe-each the
 * link is measured again before every execute, and each execute is set against
 * its own measurement (the H100's link varied by 10% between runs of a
 * session: bench/RESULTS.md), with the median of those fractions at the end.
 * With --link-array the link of a plan on one card is measured over the array
 * itself after the executes (S each way, each direction alone and both at
 * once), beside the probe's 2 GiB buffers.
 *
 *   hfft-huge [--devices LIST] [--budget BYTES] [--reps N] [--schedule plain]
 *             [--slots N] [--pass-bytes BYTES] [--probe-each] [--link-array]
 *             [--mode gpu|auto|hybrid|cpu] [--ratio R] [--measure] [--timeline FILE.png]
 *             PROBLEM   (RANKd:N0[xN1[xN2]][:f32|f64][:bHOWMANY]; a batch repeats the wave in
 *                        each transform)
 * --ratio R fixes the GPU's share of every round (with auto or hybrid); --measure plans
 * with HFFT_MEASURE (the planner's probe chooses the shares where no wisdom does).  With
 * a CPU share the link moves only the GPU's, so each execute is set both against the
 * duplex bound of the bytes it moved (the GPU side's efficiency) and against S / duplex
 * (the whole array's, the figure --probe-each's median reports: above 100% where the
 * CPU's share takes bytes off the link).
 */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hfft.h"
#include "ref.h"
#include "timeline.h"
#ifdef HFFT_BENCH_HAVE_CUDA
#include "cuda_baselines.h"
#endif

#define PI_L 3.141592653589793238462643383279502884L

/* exp(2 pi i m j / n) for j < n as two tables, (re, im) pairs: lo[b] for b < 2^shift and
   hi[a] for the rest, j = a 2^shift + b, so a line of 2^33 points needs two tables of
   2^17 entries, not one of 2^33. */
typedef struct wave {
    long double *lo, *hi;
    int shift;
} wave;

static inline void wave_at(const wave *w, int64_t j, long double *re, long double *im) {
    int64_t a = j >> w->shift, b = j & (((int64_t)1 << w->shift) - 1);
    long double hr = w->hi[2 * a], hi = w->hi[2 * a + 1], lr = w->lo[2 * b], li = w->lo[2 * b + 1];
    *re = hr * lr - hi * li;
    *im = hr * li + hi * lr;
}

/* exact phases: (m j mod n) / n in 128-bit integers */
static int wave_make(wave *w, int64_t n, int64_t m) {
    w->shift = 0;
    while (((int64_t)1 << (2 * w->shift)) < n)
        w->shift++;
    int64_t nb = (int64_t)1 << w->shift, na = (n + nb - 1) / nb;
    w->lo = malloc(sizeof(long double) * 2 * (size_t)nb);
    w->hi = malloc(sizeof(long double) * 2 * (size_t)na);
    if (!w->lo || !w->hi)
        return -1;
    for (int64_t t = 0; t < nb + na; t++) {
        int64_t j = t < nb ? t : (t - nb) * nb;
        long double *d = t < nb ? &w->lo[2 * t] : &w->hi[2 * (t - nb)];
        int64_t r = (int64_t)(((unsigned __int128)m * (unsigned __int128)j) % (unsigned __int128)n);
        long double ph = 2 * PI_L * (long double)r / (long double)n;
        d[0] = cosl(ph);
        d[1] = sinl(ph);
    }
    return 0;
}

typedef struct job {
    int prec, rank, check;
    const int64_t *n;     /* one transform's sizes; the batch repeats them */
    const wave *tw[3];    /* per dimension: exp(2 pi i m_k j / n_k) */
    void *a;
    int64_t lo, hi;       /* elements: whole rows, or part of one (a 1D line) */
    const int64_t *m;
    double total;         /* N: the spike's height */
    long double err2;     /* check: sum |y - spike|^2; fill: sum |stored - exact|^2 */
    double worst;         /* the largest |y| away from the spike, over N */
} job;

/* Row by row: the slower dimensions' factor once per row, then the last dimension's
   table; the exact wave in long double, rounded once into the array. */
static void *work(void *arg) {
    job *j = arg;
    int64_t nl = j->n[j->rank - 1];
    const wave *tl = j->tw[j->rank - 1];
    for (int64_t row = j->lo / nl; row * nl < j->hi; row++) {
        int64_t c0 = j->lo > row * nl ? j->lo - row * nl : 0;
        int64_t c1 = j->hi < (row + 1) * nl ? j->hi - row * nl : nl;
        int64_t rest = row, idx[3] = {0, 0, 0};
        for (int k = j->rank - 2; k >= 0; k--) {
            idx[k] = rest % j->n[k];
            rest /= j->n[k];
        }
        /* rest: the transform of the batch */
        long double fr = 1, fi = 0;
        int spike_row = 1;
        for (int k = 0; k + 1 < j->rank; k++) {
            long double wr, wi;
            wave_at(j->tw[k], idx[k], &wr, &wi);
            long double r2 = fr * wr - fi * wi;
            fi = fr * wi + fi * wr;
            fr = r2;
            spike_row &= idx[k] == j->m[k];
        }
        float *xf = (float *)j->a + 2 * row * nl;
        double *xd = (double *)j->a + 2 * row * nl;
        if (!j->check) {
            long double e2 = 0;
            for (int64_t c = c0; c < c1; c++) {
                long double tr, ti;
                wave_at(tl, c, &tr, &ti);
                long double lr = fr * tr - fi * ti;
                long double li = fr * ti + fi * tr;
                long double sr, si;
                if (j->prec == 4) {
                    xf[2 * c] = (float)lr;
                    xf[2 * c + 1] = (float)li;
                    sr = xf[2 * c], si = xf[2 * c + 1];
                } else {
                    xd[2 * c] = (double)lr;
                    xd[2 * c + 1] = (double)li;
                    sr = xd[2 * c], si = xd[2 * c + 1];
                }
                e2 += (sr - lr) * (sr - lr) + (si - li) * (si - li);
            }
            j->err2 += e2;
            continue;
        }
        double e2 = 0, most = 0;
        for (int64_t c = c0; c < c1; c++) {
            double re = j->prec == 4 ? xf[2 * c] : xd[2 * c];
            double im = j->prec == 4 ? xf[2 * c + 1] : xd[2 * c + 1];
            double d2 = re * re + im * im;
            if (spike_row && c == j->m[j->rank - 1]) {
                re -= j->total;
                e2 += re * re + im * im;
                continue;
            }
            e2 += d2;
            most = d2 > most || d2 != d2 ? d2 : most;
        }
        j->err2 += e2;
        double w = sqrt(most) / j->total;
        if (w > j->worst || w != w)
            j->worst = w != w ? INFINITY : w;
    }
    return NULL;
}

/* Fills (check 0) or checks (check 1) the whole array on every core. */
static void run_all(int check, int prec, int rank, const int64_t *n, int64_t howmany,
                    const int64_t *m, const wave *const *tw, void *a, double *rel,
                    double *worst) {
    long nc = sysconf(_SC_NPROCESSORS_ONLN);
    int threads = nc > 0 ? (int)nc : 1;
    if (threads > 256)
        threads = 256;
    int64_t per = 1;
    for (int k = 0; k < rank; k++)
        per *= n[k];
    int64_t total = per * howmany;
    job jobs[256];
    pthread_t th[256];
    for (int t = 0; t < threads; t++) {
        jobs[t] = (job){prec, rank, check, n, {tw[0], tw[1], tw[2]}, a,
                        total * t / threads, total * (t + 1) / threads, m, (double)per, 0, 0};
        if (pthread_create(&th[t], NULL, work, &jobs[t])) {
            fprintf(stderr, "hfft-huge: cannot start a thread\n");
            exit(1);
        }
    }
    long double e2 = 0;
    double w = 0;
    for (int t = 0; t < threads; t++) {
        pthread_join(th[t], NULL);
        e2 += jobs[t].err2;
        if (jobs[t].worst > w)
            w = jobs[t].worst;
    }
    /* check: ||y - N delta|| / ||N delta|| over the batch; fill: the input's rounding, RMS
       per element (the transform scales that error by sqrt(N) and the spike is N: the
       same ratio) */
    *rel = check ? (double)(sqrtl(e2 / (long double)howmany) / (long double)per)
                 : (double)sqrtl(e2 / total);
    if (check)
        *worst = w;
}

static void usage(void) {
    fprintf(stderr, "usage: hfft-huge [--devices LIST] [--budget BYTES] [--reps N] "
                    "[--schedule plain] [--slots N] [--pass-bytes BYTES] [--probe-each] "
                    "[--link-array] "
                    "[--mode gpu|auto|hybrid|cpu] [--ratio R] [--measure] [--timeline FILE.png] "
                    "RANKd:N0[xN1[xN2]][:f32|f64][:bHOWMANY]\n");
    exit(2);
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* The link with the plan's cards copying at once: the one-trip bound of `bytes` and
   the rate per direction with both busy (both 0 without a CUDA device). */
static void probe_link(const hfft_info *info, size_t bytes, double *bound, double *dup) {
    *bound = *dup = 0;
#ifdef HFFT_BENCH_HAVE_CUDA
    if (info->cards > 0 && info->device == HFFT_DEVICE_CUDA) {
        bench_link l;
        bench_link_measure((size_t)2 << 30, (size_t)32 << 20, 3, info->card_ids, info->cards, &l);
        *bound = (double)bytes / l.h2d + (double)bytes / l.d2h;
        *dup = 0.5 * (l.duplex_h2d + l.duplex_d2h);
        printf("link, %d card(s) at once: H2D %.1f GB/s, D2H %.1f GB/s, both at once %.1f GB/s "
               "each way; one-trip bound %.3f s\n",
               info->cards, l.h2d / 1e9, l.d2h / 1e9, *dup / 1e9, *bound);
    }
#else
    (void)info;
    (void)bytes;
#endif
}

/* --link-array: the link over the array itself (S each way in 32 MiB pieces, each
   direction alone and both at once), against the 2 GiB probe's buffers; the median
   execute against S over the slower direction's rate with both busy.  After the
   executes: the probe overwrites the array. */
static void link_over_array(const hfft_info *info, void *a, size_t bytes, double *times,
                            int reps) {
#ifdef HFFT_BENCH_HAVE_CUDA
    if (info->cards != 1 || info->device != HFFT_DEVICE_CUDA) {
        fprintf(stderr, "hfft-huge: --link-array measures one card's link; this plan ran on %d "
                        "card(s) of %s: not measured\n",
                info->cards, info->device_name);
        return;
    }
    double in, out, both_in, both_out;
    bench_link_on(a, bytes, (size_t)32 << 20, &in, &out, &both_in, &both_out);
    double both = both_in > both_out ? both_in : both_out;
    qsort(times, (size_t)reps, sizeof *times, cmp_double);
    printf("link over the array, %.1f GB each way in 32 MiB pieces: in alone %.1f GB/s, out "
           "alone %.1f GB/s; both at once: in %.1f GB/s, out %.1f GB/s, both done in %.4f s; "
           "median execute %.4f s = %.1f%% of that\n",
           bytes / 1e9, bytes / in / 1e9, bytes / out / 1e9, bytes / both_in / 1e9,
           bytes / both_out / 1e9, both, times[reps / 2], 100 * both / times[reps / 2]);
#else
    (void)info, (void)a, (void)bytes, (void)times, (void)reps;
#endif
}

/* The last execute's device operations into path (PNG, and CSV beside it). */
static int draw(void *p, int prec, const char *problem, const hfft_info *info, const char *path) {
    int n = prec == 4 ? hfftf_plan_trace(p, NULL, 0) : hfft_plan_trace(p, NULL, 0);
    hfft_trace_op *ops = n > 0 ? calloc((size_t)n, sizeof *ops) : NULL;
    if (n > 0 && ops)
        n = prec == 4 ? hfftf_plan_trace(p, ops, n) : hfft_plan_trace(p, ops, n);
    char err[256], title[512];
    snprintf(title, sizeof title, "hfft-huge %s on %s (%d card(s), schedule %d)", problem,
             info->device_name, info->cards, info->schedule);
    int st = n < 0 || (n > 0 && !ops) ? -1 : bench_timeline_png(path, title, ops, n, err, sizeof err);
    if (st)
        fprintf(stderr, "hfft-huge: --timeline: %s\n",
                n < 0 ? hfft_last_error_message() : !ops && n > 0 ? "out of memory" : err);
    else
        printf("timeline of %d operations in %s\n", n, path);
    free(ops);
    return st ? 1 : 0;
}

int main(int argc, char **argv) {
    hfft_options o;
    hfft_options_init(&o);
    int reps = 3, prec = 4, rank = 0;
    int64_t howmany = 1;
    unsigned flags = HFFT_GPU_ONLY;
    int64_t n[3] = {1, 1, 1};
    const char *timeline = NULL, *argv_problem = "";
    int probe_each = 0, link_array = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--devices") == 0 && i + 1 < argc) {
            o.devices = argv[++i];
        } else if (strcmp(argv[i], "--budget") == 0 && i + 1 < argc) {
            if (hfft_parse_bytes(argv[++i], &o.device_memory))
                usage();
        } else if (strcmp(argv[i], "--timeline") == 0 && i + 1 < argc) {
            timeline = argv[++i];
            o.trace = 1;
        } else if (strcmp(argv[i], "--reps") == 0 && i + 1 < argc) {
            reps = atoi(argv[++i]);
            if (reps < 1)
                usage();
        } else if (strcmp(argv[i], "--schedule") == 0 && i + 1 < argc) {
            if (strcmp(argv[++i], "plain"))
                usage();
            flags |= HFFT_SCHEDULE_PLAIN;
        } else if (strcmp(argv[i], "--slots") == 0 && i + 1 < argc) {
            o.slots = atoi(argv[++i]);
        } else if (strcmp(argv[i], "--pass-bytes") == 0 && i + 1 < argc) {
            if (hfft_parse_bytes(argv[++i], &o.pass_bytes))
                usage();
        } else if (strcmp(argv[i], "--probe-each") == 0) {
            probe_each = 1;
        } else if (strcmp(argv[i], "--link-array") == 0) {
            link_array = 1;
        } else if (strcmp(argv[i], "--mode") == 0 && i + 1 < argc) {
            i++;
            unsigned keep = flags & HFFT_MEASURE;
            if (strcmp(argv[i], "auto") == 0)
                flags = 0;
            else if (strcmp(argv[i], "hybrid") == 0)
                flags = HFFT_HYBRID;
            else if (strcmp(argv[i], "cpu") == 0)
                flags = HFFT_CPU_ONLY;
            else if (strcmp(argv[i], "gpu") == 0)
                flags = HFFT_GPU_ONLY;
            else
                usage();
            flags |= keep;
        } else if (strcmp(argv[i], "--ratio") == 0 && i + 1 < argc) {
            char *end;
            o.ratio = strtod(argv[++i], &end);
            if (*end || !(o.ratio > 0 && o.ratio <= 1))
                usage();
        } else if (strcmp(argv[i], "--measure") == 0) {
            flags |= HFFT_MEASURE;
        } else if (argv[i][0] != '-' && !rank) {
            argv_problem = argv[i];
            int used = 0;
            if (sscanf(argv[i], "%1dd:%n", &rank, &used) != 1 || rank < 1 || rank > 3)
                usage();
            char *c = argv[i] + used;
            for (int k = 0; k < rank; k++) {
                n[k] = strtoll(c, &c, 10);
                if (n[k] < 1 || (k + 1 < rank && *c++ != 'x'))
                    usage();
            }
            if (strncmp(c, ":f64", 4) == 0 || strncmp(c, ":f32", 4) == 0) {
                prec = c[2] == '6' ? 8 : 4;
                c += 4;
            }
            if (strncmp(c, ":b", 2) == 0) {
                howmany = strtoll(c + 2, &c, 10);
                if (howmany < 1)
                    usage();
            }
            if (*c)
                usage();
        } else {
            usage();
        }
    }
    if (!rank || (o.ratio > 0 && (flags & (HFFT_GPU_ONLY | HFFT_CPU_ONLY))))
        usage(); /* a share needs --mode auto or hybrid */
    int64_t per = n[0] * n[1] * n[2], total = per * howmany;
    size_t bytes = (size_t)total * 2u * (size_t)prec;
    /* the spike's place: away from every axis, so that a transposed or shifted result shows */
    int64_t m[3] = {n[0] / 3 + 1, n[1] / 5 + 2, n[2] / 7};
    for (int k = 0; k < 3; k++)
        m[k] %= n[k];
    printf("hfft-huge, hfft %s: %dd %lldx%lldx%lld %s x %lld, %.1f GiB in place, spike at (%lld, "
           "%lld, %lld)\n",
           hfft_version(), rank, (long long)n[0], (long long)n[1], (long long)n[2],
           prec == 4 ? "f32" : "f64", (long long)howmany, bytes / 1073741824.0, (long long)m[0],
           (long long)m[1], (long long)m[2]);

    /* The first CUDA use of a process (the driver's context) is not hfft_malloc's cost:
       a small block first, timed apart. */
    double t0 = hfft_ref_now();
    hfft_free(hfft_malloc(4096));
    printf("first use of the device (a 4 KiB hfft_malloc): %.2f s\n", hfft_ref_now() - t0);
    t0 = hfft_ref_now();
    void *a = hfft_malloc(bytes);
    double t_alloc = hfft_ref_now() - t0;
    if (!a) {
        fprintf(stderr, "hfft-huge: hfft_malloc(%zu): %s\n", bytes, hfft_last_error_message());
        return 1;
    }
    printf("hfft_malloc: %.2f s (huge pages, first touch by every core, registration)\n", t_alloc);
    fflush(stdout);

    wave tw[3];
    for (int k = 0; k < 3; k++)
        if (wave_make(&tw[k], n[k], m[k])) {
            fprintf(stderr, "hfft-huge: out of memory\n");
            return 1;
        }
    const wave *const twc[3] = {&tw[0], &tw[1], &tw[2]};

    t0 = hfft_ref_now();
    void *p = prec == 4 ? (void *)hfftf_plan_many_dft64(rank, n, howmany, a, NULL, 1, per, a, NULL,
                                                        1, per, HFFT_FORWARD, flags, &o)
                        : (void *)hfft_plan_many_dft64(rank, n, howmany, a, NULL, 1, per, a, NULL,
                                                       1, per, HFFT_FORWARD, flags, &o);
    double t_plan = hfft_ref_now() - t0;
    if (!p) {
        fprintf(stderr, "hfft-huge: plan: %s\n", hfft_last_error_message());
        return 1;
    }
    hfft_info info;
    if (prec == 4)
        hfftf_plan_info(p, &info);
    else
        hfft_plan_info(p, &info);
    printf("plan: %.2f s, %s, %d card(s), placement %d (%s), schedule %d, rounds %d, split "
           "%lldx%lld, device %.1f GiB of %.1f GiB",
           t_plan, info.device_name, info.cards, info.placement,
           info.placement == 0   ? "CPU"
           : info.placement == 1 ? "GPU"
                                 : "hybrid",
           info.schedule, info.rounds, (long long)info.split[0], (long long)info.split[1],
           info.device_bytes / 1073741824.0, info.device_budget / 1073741824.0);
    if (info.placement == 2) {
        printf(", GPU shares");
        for (int h = 0; h < info.rounds && h < HFFT_MAX_ROUNDS; h++)
            printf("%s%.3f", h ? "," : " ", info.ratio[h]);
    }
    printf("\n");

    double bound = 0, dup = 0; /* dup: the rate per direction with both busy */
    probe_link(&info, bytes, &bound, &dup);
    int bad = 0;
    double *frac = calloc((size_t)reps, sizeof *frac); /* of the bound of the schedule run */
    double *times = calloc((size_t)reps, sizeof *times);
    if (!frac || !times) {
        fprintf(stderr, "hfft-huge: out of memory\n");
        return 1;
    }
    for (int r = 0; r < reps; r++) {
        double rel = 0, worst = 0, floor = 0;
        run_all(0, prec, rank, n, howmany, m, twc, a, &floor, NULL);
        if (probe_each && r > 0)
            probe_link(&info, bytes, &bound, &dup);
        t0 = hfft_ref_now();
        int st = prec == 4 ? hfftf_execute(p) : hfft_execute(p);
        double t = hfft_ref_now() - t0;
        if (st) {
            fprintf(stderr, "hfft-huge: execute: %s\n", hfft_last_error_message());
            return 1;
        }
        if (prec == 4)
            hfftf_plan_info(p, &info);
        else
            hfft_plan_info(p, &info);
        run_all(1, prec, rank, n, howmany, m, twc, a, &rel, &worst);
        double tol = (prec == 4 ? 5e-7 : 5e-16) + floor;
        bad |= !(rel <= tol);
        printf("execute %d: %.4f s", r + 1, t);
        double most = (double)(info.link_bytes[0] > info.link_bytes[1] ? info.link_bytes[0]
                                                                       : info.link_bytes[1]);
        if (bound > 0)
            printf(" = %.1f%% of the one-trip bound", 100 * bound / t);
        /* a hybrid moves only the GPU's share: against what GPU-only streaming moves too
           (each round's S each way), which is the figure the median takes */
        double whole = info.placement == 2 ? (double)bytes * info.rounds : most;
        if (dup > 0)
            printf(", %.1f%% of the duplex bound of the bytes moved", 100 * most / dup / t);
        if (dup > 0 && info.placement == 2)
            printf(" and %.1f%% of the GPU-only streaming bound (%d x S / duplex); GPU %.4f s, "
                   "CPU %.4f s",
                   100 * whole / dup / t, info.rounds, info.measured_gpu[0], info.measured_cpu[0]);
        frac[r] = info.schedule == 3 ? bound / t : dup > 0 ? whole / dup / t : 0;
        times[r] = t;
        printf("; link %.2f GB in, %.2f GB out (S = %.2f GB); relative RMS error %.2e (the "
               "input's own rounding %.1e)%s, largest element off the spike %.2e of N\n",
               info.link_bytes[0] / 1e9, info.link_bytes[1] / 1e9, bytes / 1e9, rel, floor,
               rel <= tol ? "" : " (above tolerance)", worst);
        fflush(stdout);
    }
    if (probe_each && frac[0] > 0) {
        qsort(frac, (size_t)reps, sizeof *frac, cmp_double);
        printf("median over %d executes, each against the link measured just before it: %.1f%% "
               "of the %s bound (lowest %.1f%%, highest %.1f%%)\n",
               reps, 100 * frac[reps / 2], info.schedule == 3 ? "one-trip" : "duplex",
               100 * frac[0], 100 * frac[reps - 1]);
    }
    if (link_array)
        link_over_array(&info, a, bytes, times, reps);
    free(frac);
    free(times);
    if (timeline && !bad)
        bad = draw(p, prec, argv_problem, &info, timeline);
    if (prec == 4)
        hfftf_destroy_plan(p);
    else
        hfft_destroy_plan(p);
    t0 = hfft_ref_now();
    hfft_free(a);
    printf("hfft_free: %.2f s\n", hfft_ref_now() - t0);
    for (int k = 0; k < 3; k++)
        free(tw[k].lo), free(tw[k].hi);
    return bad;
}
