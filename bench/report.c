/*
 * report.c: hfft-bench's output: a table per problem on stdout and, with
 * --csv, one row per engine appended to a file that bench/sweep.py plots.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "bench.h"
#include "ref.h"

/* FFTW's convention: 5 N log2 N per complex transform, half that per real one. */
double bench_flops(const problem *p) {
    return (p->kind != PK_C2C ? 2.5 : 5.0) * (double)p->howmany * (double)p->total * log2((double)p->total);
}

double bench_cpu_memory_fraction(const problem *p, const result *r, int h) {
    const hfft_info *i = &r->info;
    if (r->status != ST_OK || !r->have_info || G.host_bw <= 0 || h >= i->rounds ||
        i->placement == 1 || !(i->measured_cpu[h] > 0) || i->ratio[h] >= 1.0)
        return -1.0;
    return 2.0 * (1.0 - i->ratio[h]) * (double)p->bytes / i->measured_cpu[h] / G.host_bw;
}

/* "61%/78%": each round's CPU side against the host memory; "-" where none. */
static void cpu_memory_text(const problem *p, const result *r, char *s, size_t n) {
    size_t o = 0;
    int any = 0;
    for (int h = 0; h < r->info.rounds && h < 3 && o < n; h++) {
        double f = bench_cpu_memory_fraction(p, r, h);
        any |= f >= 0;
        if (f < 0)
            o += (size_t)snprintf(s + o, n - o, "%s-", h ? "/" : "");
        else
            o += (size_t)snprintf(s + o, n - o, "%s%.0f%%", h ? "/" : "", 100.0 * f);
    }
    if (!any)
        snprintf(s, n, "-");
}

/* The lowest median among the rows of the engines in mask; 0 where none ran. */
static double best_median(const result *res, int nres, unsigned mask) {
    double best = 0;
    for (int i = 0; i < nres; i++)
        if ((mask >> res[i].engine & 1u) && res[i].status == ST_OK &&
            (best == 0 || res[i].med < best))
            best = res[i].med;
    return best;
}

#define FFTW_ROWS ((1u << E_FFTW_EST) | (1u << E_FFTW_MEAS))

void bench_print_table(const args *a, const problem *p, result *res, int nres) {
    double best_fftw = best_median(res, nres, FFTW_ROWS);
    double best_mkl = best_median(res, nres, 1u << E_MKL);
    char b1[32];
    char b2[32], bat[48] = "";
    if (p->howmany > 1)
        snprintf(bat, sizeof bat, " x %lld transforms", (long long)p->howmany);
    printf("\n== %s: %s in, %s out, %lld elements%s, %s, %d timed runs after 1 warm-up ==\n",
           p->text, bench_fmt_bytes((double)p->in_bytes, b1, sizeof b1),
           bench_fmt_bytes((double)p->out_bytes, b2, sizeof b2), (long long)p->total, bat,
           a->inplace ? "in-place" : "out-of-place", a->reps);
    printf("%-14s %-22s %10s %10s %10s %9s %9s %8s %6s %6s %6s %11s %9s %9s %6s %6s  %s\n",
           "engine", "device", "median_s", "min_s", "max_s", "plan_s", "GFLOPS", "link_GB", "bound",
           "trip", "dup", "cpu_mem", "error", "model_s", "xFFTW", "xMKL", "plan");
    int emulated = 0;
    for (int i = 0; i < nres; i++) {
        result *r = &res[i];
        const char *dev = r->device[0] ? r->device : "-";
        if (strcmp(dev, "emulated") == 0)
            emulated = 1;
        char devbuf[40];
        snprintf(devbuf, sizeof devbuf, "%.38s%s", dev, strcmp(dev, "emulated") == 0 ? "*" : "");
        if (r->status != ST_OK) {
            printf("%-14s %-22.22s %s\n", engine_name[r->engine], devbuf,
                   r->note[0] ? r->note : "-");
            continue;
        }
        char trip[16] = "-", dup[16] = "-", bound[16] = "-", err[24] = "-", model[16] = "-",
             xf[16] = "-", xm[16] = "-";
        char mem[24] = "-";
        if (r->have_info)
            cpu_memory_text(p, r, mem, sizeof mem);
        if (r->floor_s > 0 && G.link_measured) {
            snprintf(bound, sizeof bound, "%.1f%%", 100.0 * r->floor_s / r->med);
            snprintf(trip, sizeof trip, "%.1f%%", 100.0 * r->trip_s / r->med);
            snprintf(dup, sizeof dup, "%.1f%%", 100.0 * r->duplex_s / r->med);
        }
        if (r->err >= 0)
            snprintf(err, sizeof err, "%.2e%s", r->err, r->err > bench_tolerance(p->prec) ? "!" : "");
        if (r->predicted_s > 0)
            snprintf(model, sizeof model, "%.4g", r->predicted_s);
        if (best_fftw > 0)
            snprintf(xf, sizeof xf, "%.2f", best_fftw / r->med);
        if (best_mkl > 0)
            snprintf(xm, sizeof xm, "%.2f", best_mkl / r->med);
        printf("%-14s %-22.22s %10.4g %10.4g %10.4g %9.3g %9.2f %8.3f %6s %6s %6s %11s %9s %9s %6s "
               "%6s  %s\n",
               engine_name[r->engine], devbuf, r->med, r->min, r->max, r->plan_s,
               bench_flops(p) / r->med / 1e9, r->link_bytes / 1e9, bound, trip, dup, mem, err,
               model, xf, xm, r->plan[0] ? r->plan : "-");
    }
    if (G.host_bw > 0)
        printf("cpu_mem: each round's CPU side (its share of the array read and written once) "
               "against the host memory's %.1f GB/s\n",
               G.host_bw / 1e9);
    if (emulated)
        printf("* emulated: hfft's test double runs the GPU schedule in host memory; "
               "these are NOT GPU timings.\n");
    fflush(stdout);
}

static void csv_str(FILE *f, const char *s) {
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"')
            fputc('"', f);
        fputc(*s, f);
    }
    fputc('"', f);
}

static const char CSV_HEADER[] =
    "time,host,problem,rank,n0,n1,n2,precision,elements,bytes,kind,howmany,in_bytes,out_bytes,"
    "inplace,engine,device,status,note,"
    "reps,median_s,min_s,max_s,plan_s,gflops,link_bytes,bw_h2d_gbs,bw_d2h_gbs,"
    "bw_duplex_h2d_gbs,bw_duplex_d2h_gbs,bound_fraction,trip_fraction,duplex_fraction,"
    "predicted_s,error,speedup_vs_fftw,speedup_vs_mkl,"
    "placement,schedule,rounds,passes,streams,ratio_mean,ratio0,ratio1,ratio2,threads,"
    "device_budget,device_bytes,host_bytes,host_pinned,round0_s,round1_s,round2_s,"
    "predicted0_s,predicted1_s,predicted2_s,gpu0_s,gpu1_s,gpu2_s,cpu0_s,cpu1_s,cpu2_s,"
    "transposed,wisdom,host_bw_gbs,cpu_mem0,cpu_mem1,cpu_mem2,plan\n";

void bench_check_csv(const args *a) {
    struct stat sb;
    if (!a->csv || stat(a->csv, &sb) != 0 || sb.st_size == 0)
        return;
    /* Rows under another release's header would be read into the wrong columns. */
    char head[sizeof CSV_HEADER + 1] = "";
    FILE *f = fopen(a->csv, "r");
    if (!f)
        bench_die("cannot read %s: %s", a->csv, strerror(errno));
    if (!fgets(head, sizeof head, f))
        head[0] = 0;
    fclose(f);
    if (strcmp(head, CSV_HEADER) != 0)
        bench_die("%s has other columns than this hfft-bench writes (an older one's?): "
                  "name a new file",
                  a->csv);
}

void bench_write_csv(const args *a, const problem *p, result *res, int nres) {
    if (!a->csv)
        return;
    struct stat sb;
    int fresh = stat(a->csv, &sb) != 0 || sb.st_size == 0;
    FILE *f = fopen(a->csv, "a");
    if (!f)
        bench_die("cannot open %s for appending: %s", a->csv, strerror(errno));
    if (fresh)
        fputs(CSV_HEADER, f);
    double best_fftw = best_median(res, nres, FFTW_ROWS);
    double best_mkl = best_median(res, nres, 1u << E_MKL);
    char stamp[32];
    time_t now = time(NULL);
    strftime(stamp, sizeof stamp, "%Y-%m-%dT%H:%M:%S", localtime(&now));
    static const char *const status[] = {"ok", "skipped", "failed"};
    for (int i = 0; i < nres; i++) {
        const result *r = &res[i];
        int ok = r->status == ST_OK;
        fprintf(f, "%s,", stamp);
        csv_str(f, G.host);
        fputc(',', f);
        csv_str(f, p->text);
        fprintf(f, ",%d,%lld,%lld,%lld,%s,%lld,%zu,%s,%lld,%zu,%zu,%d,%s,", p->rank,
                (long long)p->n[0], (long long)(p->rank > 1 ? p->n[1] : 1),
                (long long)(p->rank > 2 ? p->n[2] : 1), p->prec == 4 ? "f32" : "f64",
                (long long)p->total, p->bytes,
                p->kind == PK_R2R ? "r2r" : p->kind == PK_R2C ? "r2c" : "c2c", (long long)p->howmany,
                p->in_bytes, p->out_bytes, a->inplace, engine_name[r->engine]);
        csv_str(f, r->device);
        fprintf(f, ",%s,", status[r->status]);
        csv_str(f, r->note);
        fprintf(f, ",%d,", a->reps);
        if (ok)
            fprintf(f, "%.6g,%.6g,%.6g,%.6g,%.6g,%.0f,", r->med, r->min, r->max, r->plan_s,
                    bench_flops(p) / r->med / 1e9, r->link_bytes);
        else
            fprintf(f, ",,,%.6g,,,", r->plan_s);
        if (G.link_measured)
            fprintf(f, "%.4g,%.4g,%.4g,%.4g,", G.h2d[r->cards > 1] / 1e9, G.d2h[r->cards > 1] / 1e9,
                    G.dup_h2d[r->cards > 1] / 1e9, G.dup_d2h[r->cards > 1] / 1e9);
        else
            fputs(",,,,", f);
        if (ok && r->floor_s > 0)
            fprintf(f, "%.4g,%.4g,%.4g,", r->floor_s / r->med, r->trip_s / r->med,
                    r->duplex_s / r->med);
        else
            fputs(",,,", f);
        if (r->predicted_s > 0)
            fprintf(f, "%.6g,", r->predicted_s);
        else
            fputc(',', f);
        if (ok && r->err >= 0)
            fprintf(f, "%.4g,", r->err);
        else
            fputc(',', f);
        if (ok && best_fftw > 0)
            fprintf(f, "%.4g,", best_fftw / r->med);
        else
            fputc(',', f);
        if (ok && best_mkl > 0)
            fprintf(f, "%.4g,", best_mkl / r->med);
        else
            fputc(',', f);
        if (r->have_info) {
            const hfft_info *q = &r->info;
            static const char *const place[] = {"cpu", "gpu", "hybrid"};
            static const char *const sched[] = {"none", "plain", "radix2", "one-trip", "four-step"};
            double mean = 0;
            for (int h = 0; h < q->rounds && h < 3; h++)
                mean += q->ratio[h];
            mean = q->rounds ? mean / q->rounds : 0;
            char passes[48] = "";
            for (int h = 0; h < q->rounds && h < 3; h++)
                snprintf(passes + strlen(passes), sizeof passes - strlen(passes), "%s%d",
                         h ? "/" : "", q->passes[h]);
            fprintf(f, "%s,%s,%d,\"%s\",%d,%.4g,%.4g,%.4g,%.4g,%d,%lld,%lld,%lld,%d,",
                    place[q->placement >= 0 && q->placement <= 2 ? q->placement : 0],
                    sched[q->schedule >= 0 && q->schedule <= 4 ? q->schedule : 0], q->rounds,
                    passes, q->streams, mean, q->ratio[0], q->ratio[1], q->ratio[2], q->threads,
                    (long long)q->device_budget, (long long)q->device_bytes,
                    (long long)q->host_bytes, q->host_pinned);
            for (int h = 0; h < 3; h++)
                if (ok && h < q->rounds)
                    fprintf(f, "%.6g,", q->measured_seconds[h]);
                else
                    fputc(',', f);
            for (int h = 0; h < 3; h++)
                if (h < q->rounds && q->predicted_seconds[h] > 0)
                    fprintf(f, "%.6g,", q->predicted_seconds[h]);
                else
                    fputc(',', f);
            for (int h = 0; h < 6; h++) {
                int k = h % 3;
                double v = h < 3 ? q->measured_gpu[k] : q->measured_cpu[k];
                if (ok && k < q->rounds && q->placement == 2)
                    fprintf(f, "%.6g,", v);
                else
                    fputc(',', f);
            }
            fprintf(f, "%d,%d,", q->transposed, q->wisdom);
        } else {
            fputs(",,,,,,,,,,,,,,,,,,,,,,,,,,,,", f);
        }
        if (G.host_bw > 0)
            fprintf(f, "%.4g,", G.host_bw / 1e9);
        else
            fputc(',', f);
        for (int h = 0; h < 3; h++) {
            double m = bench_cpu_memory_fraction(p, r, h);
            if (m >= 0)
                fprintf(f, "%.4g,", m);
            else
                fputc(',', f);
        }
        csv_str(f, r->plan);
        fputc('\n', f);
    }
    if (fclose(f))
        bench_die("writing %s: %s", a->csv, strerror(errno));
}
