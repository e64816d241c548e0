/*
 * tune.c: hfft-tune, the installed tuner.  For each problem it calibrates the
 * link, times the transform GPU-only (over a few pass sizes and slot counts),
 * CPU-only and at a probe share, fits the cost model, then searches the
 * shares per round around the model's choice and keeps what measured best.
 * It prints the model's prediction beside each measurement and writes the
 * result to wisdom, which plans then read.
 */
#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "balancer/balancer.h"
#include "balancer/calib.h"
#include "balancer/wisdom.h"
#include "cpu/cpu.h"
#include "gpu/devices.h"
#include "src/core/status.h"

typedef struct problem {
    int rank, prec;
    int64_t n[3];
} problem;

typedef struct cand {
    double ratio[3];
    int slots;
    int64_t pass_bytes;
    int schedule;
    unsigned flags;
} cand;

typedef struct result {
    int ok;
    double total, round[3], gpu[3], cpu[3];
    hfft_info info;
} result;

static int reps = 3, quiet = 0;
static int64_t budget = 0;
static int threads = 0;

static void usage(FILE *f) {
    fprintf(f,
            "usage: hfft-tune [options] PROBLEM...\n"
            "Calibrates this machine for hfft and tunes the given problems: the GPU share of\n"
            "each round (Rx, Ry), the pass size and the number of passes in flight.  Prints the\n"
            "cost model's prediction beside each measurement and writes the result to wisdom,\n"
            "which hfft plans read from then on.\n\n"
            "PROBLEM  2d 32768x32768 f32   (or 2d:32768x32768:f32); 3d ZxYxX; f32 or f64\n\n"
            "options:\n"
            "  --budget BYTES    device memory budget to tune for (\"2GiB\"); default: automatic.\n"
            "                    Plans use the entry only with the same budget setting.\n"
            "  --wisdom FILE     wisdom file to update; default $HFFT_WISDOM, else\n"
            "                    $XDG_CONFIG_HOME/hfft/wisdom or ~/.config/hfft/wisdom\n"
            "  --out-of-place    tune the out-of-place transform (default: in-place)\n"
            "  --reps N          timed runs per candidate, median kept (default 3)\n"
            "  --threads N       CPU threads (default: one per core)\n"
            "  --quiet           no progress lines on stderr\n"
            "  --help            this text\n\n"
            "Time: about (8 + 5 x reps) transforms of each problem, plus CPU-only runs and a\n"
            "second of link calibration; the array is allocated pinned, once per problem.\n"
            "HFFT_DEVICE=emulated tunes the emulated device (tests only; its timings mean\n"
            "nothing for a GPU).\n");
}

static int parse_problem(const char *dim, const char *shape, const char *prec, problem *p) {
    memset(p, 0, sizeof *p);
    p->rank = (int)strtol(dim, NULL, 10);
    if (p->rank < 1 || p->rank > 3 || dim[1] != 'd' || dim[2])
        return -1;
    const char *s = shape;
    for (int k = 0; k < p->rank; k++) {
        char *end;
        long long v = strtoll(s, &end, 10);
        if (end == s || v < 1)
            return -1;
        p->n[k] = v;
        s = end;
        if (k + 1 < p->rank) {
            if (*s != 'x')
                return -1;
            s++;
        }
    }
    if (*s)
        return -1;
    if (strcmp(prec, "f32") == 0)
        p->prec = 4;
    else if (strcmp(prec, "f64") == 0)
        p->prec = 8;
    else
        return -1;
    return 0;
}

static void progress(const char *fmt, ...) {
    if (quiet)
        return;
    va_list ap;
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fflush(stderr);
}

static void sort(double *v, int n) {
    for (int i = 0; i < n; i++)
        for (int j = i + 1; j < n; j++)
            if (v[j] < v[i]) {
                double t = v[i];
                v[i] = v[j];
                v[j] = t;
            }
}

/* Plans c and runs it reps times after a warm-up; medians per round. */
static result measure(const problem *p, void *in, void *out, const cand *c, int nreps) {
    result r;
    memset(&r, 0, sizeof r);
    hfft_options o;
    hfft_options_init(&o);
    o.device_memory = budget;
    o.threads = threads;
    o.wisdom = "none";
    for (int h = 0; h < 3; h++)
        o.round_ratio[h] = c->ratio[h];
    o.slots = c->slots;
    o.pass_bytes = c->pass_bytes;
    unsigned flags = c->flags | (c->schedule == 2 ? HFFT_SCHEDULE_RADIX2
                                 : c->schedule == 1 ? HFFT_SCHEDULE_PLAIN : 0);
    void *plan = p->prec == 4 ? (void *)hfftf_plan_dft(p->rank, p->n, in, out, HFFT_FORWARD,
                                                       flags, &o)
                              : (void *)hfft_plan_dft(p->rank, p->n, in, out, HFFT_FORWARD,
                                                      flags, &o);
    if (!plan) {
        progress("    (plan failed: %s)\n", hfft_last_error_message());
        return r;
    }
    double tot[16] = {0}, rd[3][16] = {{0}}, g[3][16] = {{0}}, cp[3][16] = {{0}};
    for (int i = 0; i <= nreps; i++) {
        double t0 = hfft__now();
        int st = p->prec == 4 ? hfftf_execute(plan) : hfft_execute(plan);
        double t = hfft__now() - t0;
        if (st) {
            progress("    (execute failed: %s)\n", hfft_last_error_message());
            break;
        }
        if (p->prec == 4)
            hfftf_plan_info(plan, &r.info);
        else
            hfft_plan_info(plan, &r.info);
        if (i == 0)
            continue; /* warm-up */
        tot[i - 1] = t;
        for (int h = 0; h < 3; h++) {
            rd[h][i - 1] = r.info.measured_seconds[h];
            g[h][i - 1] = r.info.measured_gpu[h];
            cp[h][i - 1] = r.info.measured_cpu[h];
        }
        r.ok = i == nreps;
    }
    if (r.ok) {
        sort(tot, nreps);
        r.total = tot[nreps / 2];
        for (int h = 0; h < 3; h++) {
            sort(rd[h], nreps);
            sort(g[h], nreps);
            sort(cp[h], nreps);
            r.round[h] = rd[h][nreps / 2];
            r.gpu[h] = g[h][nreps / 2];
            r.cpu[h] = cp[h][nreps / 2];
        }
    }
    if (p->prec == 4)
        hfftf_destroy_plan(plan);
    else
        hfft_destroy_plan(plan);
    return r;
}

static void show(const char *what, const result *r, const double *pred, int nr) {
    printf("  %-30s", what);
    if (!r->ok) {
        printf(" failed\n");
        return;
    }
    printf(" %8.4f s  rounds", r->total);
    for (int h = 0; h < nr; h++)
        printf(" %.4f", r->round[h]);
    if (pred) {
        printf("  predicted");
        for (int h = 0; h < nr; h++)
            printf(" %.4f (%+.0f%%)", pred[h], r->round[h] > 0 ? 100 * (pred[h] / r->round[h] - 1) : 0);
    }
    printf("  ratio");
    for (int h = 0; h < nr; h++)
        printf(" %.3f", r->info.ratio[h]);
    printf("\n");
    fflush(stdout);
}

static int tune(const problem *p, int inplace, const hfft__link *link, hfft__wisdom *w) {
    int64_t total = p->n[0] * (p->rank > 1 ? p->n[1] : 1) * (p->rank > 2 ? p->n[2] : 1);
    size_t bytes = (size_t)total * 2u * (size_t)p->prec;
    void *in = hfft_malloc(bytes), *out = inplace ? in : hfft_malloc(bytes);
    if (!in || !out) {
        fprintf(stderr, "hfft-tune: cannot allocate %zu bytes\n", bytes);
        hfft_free(in);
        if (out != in)
            hfft_free(out);
        return 1;
    }
    /* random data: timings on zeros flatter */
    uint64_t s = 0x9E3779B97F4A7C15ull;
    for (size_t i = 0; i < bytes / 8; i++) {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        ((uint64_t *)in)[i] = p->prec == 4 ? (s & 0x3f7fffff3f7fffffull) : (s & 0x3fefffffffffffffull);
    }
    int nr = p->rank == 3 ? 2 : p->rank;
    printf("problem %dd ", p->rank);
    for (int k = 0; k < p->rank; k++)
        printf("%s%lld", k ? "x" : "", (long long)p->n[k]);
    printf(" %s %s, %.2f GiB, budget %s\n", p->prec == 4 ? "f32" : "f64",
           inplace ? "in-place" : "out-of-place", bytes / 1073741824.0,
           budget ? "set" : "automatic");

    /* 1. GPU-only over pass parameters */
    cand best = {{1, 1, 1}, 0, 0, 0, HFFT_GPU_ONLY};
    result rbest = measure(p, in, out, &best, reps);
    progress("  [1/5] GPU-only, default passes: %.4f s\n", rbest.total);
    show("GPU-only (default passes)", &rbest, NULL, nr);
    if (!rbest.ok) {
        hfft_free(in);
        if (out != in)
            hfft_free(out);
        return 1;
    }
    static const int slots[] = {2, 3, 4};
    static const double scale[] = {0.5, 1.0, 2.0};
    int64_t base_pass = 0;
    {
        /* the planner's own pass size, from its pass count on the largest round */
        int most = 1;
        for (int h = 0; h < nr; h++)
            if (rbest.info.passes[h] > most)
                most = rbest.info.passes[h];
        base_pass = (int64_t)(bytes / (size_t)most);
    }
    for (int i = 0; i < 3; i++) {
        for (int j = 0; j < 3; j++) {
            cand c = best;
            c.slots = slots[i];
            c.pass_bytes = (int64_t)(scale[j] * (double)base_pass) & ~(int64_t)255;
            result r = measure(p, in, out, &c, reps);
            char what[64];
            snprintf(what, sizeof what, "GPU-only slots %d pass %.1f MiB", c.slots,
                     c.pass_bytes / 1048576.0);
            show(what, &r, NULL, nr);
            if (r.ok && r.total < rbest.total) {
                best = c;
                rbest = r;
            }
        }
    }
    progress("  [2/5] pass parameters: slots %d, pass %.1f MiB: %.4f s\n", best.slots,
             best.pass_bytes / 1048576.0, rbest.total);
    cand rad = best;
    rad.schedule = 2;
    result rr = measure(p, in, out, &rad, reps);
    show("GPU-only radix-2 schedule", &rr, NULL, nr);
    if (rr.ok && rr.info.schedule == 2 && rr.total < rbest.total) {
        best = rad;
        rbest = rr;
    } else {
        best.schedule = 1;
    }
    result gpu_only = rbest;

    /* 2. CPU-only, once (it is slow), and the probe */
    cand cpu = {{0, 0, 0}, 0, 0, 0, HFFT_CPU_ONLY};
    result rc = measure(p, in, out, &cpu, 1);
    show("CPU-only", &rc, NULL, nr);
    progress("  [3/5] CPU-only: %.4f s\n", rc.total);
    cand probe = best;
    probe.flags = HFFT_HYBRID;
    for (int h = 0; h < 3; h++)
        probe.ratio[h] = HFFT__PROBE_SHARE;
    result rp = measure(p, in, out, &probe, reps);
    show("probe (share 0.9)", &rp, NULL, nr);
    progress("  [4/5] probe at 0.9: %.4f s\n", rp.total);

    /* 3. the model */
    hfft__choice ch;
    memset(&ch, 0, sizeof ch);
    ch.link = *link;
    ch.have_link = link->duplex > 0;
    double share[3] = {1, 1, 1}, pred[3] = {0};
    hfft__round_model m[3];
    for (int h = 0; h < nr; h++) {
        memset(&m[h], 0, sizeof m[h]);
        m[h].bytes = (double)bytes;
        hfft__model_fit(&m[h], gpu_only.round[h], rc.ok ? rc.round[h] : 0.0, HFFT__PROBE_SHARE,
                        rp.gpu[h], rp.cpu[h]);
        share[h] = hfft__model_best_share(&ch.link, &m[h], 0.03, &pred[h]);
    }
    printf("  model: share per round");
    for (int h = 0; h < nr; h++)
        printf(" %.3f (GPU %.1f GB/s x%.2f, CPU %.1f GB/s x%.2f)", share[h], m[h].gpu_rate / 1e9,
               m[h].gpu_slow, m[h].cpu_rate / 1e9, m[h].cpu_slow);
    printf("\n");

    /* 4. search around the model's shares; rounds are timed apart */
    static const double delta[] = {-0.06, -0.03, 0.0, 0.03, 0.06};
    double best_t[3], best_f[3], best_pred[3];
    for (int h = 0; h < nr; h++) {
        best_t[h] = gpu_only.round[h];
        best_f[h] = 1.0;
        best_pred[h] = hfft__model_round_time(&ch.link, &m[h], 1.0);
    }
    printf("  %-30s %8.4f s (GPU-only, reference)\n", "search:", gpu_only.total);
    for (size_t k = 0; k < sizeof delta / sizeof delta[0]; k++) {
        cand c = best;
        c.flags = HFFT_HYBRID;
        double pr[3];
        int any = 0;
        for (int h = 0; h < 3; h++) {
            double f = (h < nr ? share[h] : 1.0) + delta[k];
            if (h < nr && share[h] >= 1.0)
                f = 1.0 - 0.02 * (double)(k + 1); /* the model said GPU-only: look anyway */
            c.ratio[h] = f < 0.02 ? 0.02 : f > 1.0 ? 1.0 : f;
            if (h < nr)
                pr[h] = hfft__model_round_time(&ch.link, &m[h], c.ratio[h]);
            any |= c.ratio[h] < 1.0;
        }
        if (!any)
            continue;
        result r = measure(p, in, out, &c, reps);
        char what[64];
        snprintf(what, sizeof what, "hybrid %+.2f", delta[k]);
        show(what, &r, pr, nr);
        for (int h = 0; r.ok && h < nr; h++) {
            if (r.round[h] < best_t[h]) {
                best_t[h] = r.round[h];
                best_f[h] = c.ratio[h];
                best_pred[h] = pr[h];
            }
        }
        progress("  [5/5] search %zu/%zu\n", k + 1, sizeof delta / sizeof delta[0]);
    }
    /* 5. confirm the per-round choice as one plan */
    cand fin = best;
    fin.flags = 0;
    int hybrid = 0;
    for (int h = 0; h < 3; h++) {
        fin.ratio[h] = h < nr ? best_f[h] : 1.0;
        hybrid |= fin.ratio[h] < 1.0;
    }
    if (hybrid)
        fin.flags = HFFT_HYBRID;
    else
        fin.flags = HFFT_GPU_ONLY;
    result rf = measure(p, in, out, &fin, reps);
    show("chosen", &rf, best_pred, nr);
    if (!rf.ok || (hybrid && rf.total > gpu_only.total)) {
        /* never keep a hybrid that lost to GPU-only in the same run */
        for (int h = 0; h < 3; h++)
            fin.ratio[h] = 1.0;
        rf = gpu_only;
        for (int h = 0; h < nr; h++)
            best_pred[h] = hfft__model_round_time(&ch.link, &m[h], 1.0);
    }
    if (rc.ok && rc.total < rf.total) {
        /* nor anything that lost to the CPU alone */
        for (int h = 0; h < 3; h++)
            fin.ratio[h] = 0.0;
        rf = rc;
        for (int h = 0; h < nr; h++)
            best_pred[h] = hfft__model_round_time(&ch.link, &m[h], 0.0);
    }
    printf("  summary: GPU-only %.4f s, CPU-only %.4f s, tuned %.4f s (%.1f%% over GPU-only)\n",
           gpu_only.total, rc.ok ? rc.total : NAN, rf.total,
           rf.ok ? 100.0 * (gpu_only.total / rf.total - 1.0) : 0.0);

    hfft__wisdom_problem q;
    memset(&q, 0, sizeof q);
    q.prec = p->prec;
    q.rank = p->rank;
    memcpy(q.n, p->n, sizeof q.n);
    q.inplace = inplace;
    q.budget = budget;
    q.slots = fin.slots;
    q.pass_bytes = fin.pass_bytes;
    q.schedule = fin.schedule;
    q.nratio = nr;
    for (int h = 0; h < nr; h++) {
        q.ratio[h] = fin.ratio[h];
        q.predicted[h] = best_pred[h];
        q.measured[h] = rf.round[h];
        q.gpu_rate[h] = m[h].gpu_rate;
        q.cpu_rate[h] = m[h].cpu_rate;
        q.gpu_slow[h] = m[h].gpu_slow;
        q.cpu_slow[h] = m[h].cpu_slow;
    }
    int st = hfft__wisdom_add(w, &q);
    hfft_free(in);
    if (out != in)
        hfft_free(out);
    return st ? 1 : 0;
}

int main(int argc, char **argv) {
    static const struct option opts[] = {
        {"budget", required_argument, 0, 'b'}, {"wisdom", required_argument, 0, 'w'},
        {"out-of-place", no_argument, 0, 'o'}, {"reps", required_argument, 0, 'r'},
        {"threads", required_argument, 0, 't'}, {"quiet", no_argument, 0, 'q'},
        {"help", no_argument, 0, 'h'},         {0, 0, 0, 0}};
    const char *wpath = NULL;
    int inplace = 1, c;
    while ((c = getopt_long(argc, argv, "b:w:or:t:qh", opts, NULL)) != -1) {
        switch (c) {
        case 'b':
            if (hfft_parse_bytes(optarg, &budget)) {
                fprintf(stderr, "hfft-tune: %s\n", hfft_last_error_message());
                return 2;
            }
            break;
        case 'w': wpath = optarg; break;
        case 'o': inplace = 0; break;
        case 'r':
            reps = atoi(optarg);
            if (reps < 1 || reps > 15) {
                fprintf(stderr, "hfft-tune: --reps takes 1 to 15\n");
                return 2;
            }
            break;
        case 't': threads = atoi(optarg); break;
        case 'q': quiet = 1; break;
        case 'h': usage(stdout); return 0;
        default: usage(stderr); return 2;
        }
    }
    problem probs[32];
    int np = 0;
    for (int i = optind; i < argc && np < 32; i++) {
        char a[32], b[64], d[16];
        if (strchr(argv[i], ':') && sscanf(argv[i], "%31[^:]:%63[^:]:%15s", a, b, d) == 3) {
            if (parse_problem(a, b, d, &probs[np]) == 0) {
                np++;
                continue;
            }
        } else if (i + 2 < argc && parse_problem(argv[i], argv[i + 1], argv[i + 2], &probs[np]) == 0) {
            np++;
            i += 2;
            continue;
        }
        fprintf(stderr, "hfft-tune: cannot read problem at '%s'\n", argv[i]);
        usage(stderr);
        return 2;
    }
    if (np == 0) {
        usage(stderr);
        return 2;
    }
    char path[1024];
    if (!wpath)
        wpath = getenv("HFFT_WISDOM");
    if (!wpath || !*wpath) {
        if (hfft__wisdom_default_path(path, sizeof path)) {
            fprintf(stderr, "hfft-tune: no wisdom path: set --wisdom or HFFT_WISDOM\n");
            return 2;
        }
        wpath = path;
    }
    const char *env = getenv("HFFT_DEVICE");
    int kind = env && strcmp(env, "emulated") == 0 ? HFFT_DEVICE_EMULATED : HFFT_DEVICE_CUDA;
    const hfft__dev_ops *ops = hfft__device_ops(kind);
    hfft__dev *dev = NULL;
    if (!ops || (kind == HFFT_DEVICE_CUDA && !hfft__cuda_usable()) || ops->open(budget, &dev)) {
        fprintf(stderr, "hfft-tune: no usable GPU (HFFT_DEVICE=emulated tunes the test double)\n");
        return 1;
    }
    hfft__wisdom *w = calloc(1, sizeof *w);
    if (!w)
        return 1;
    int st = hfft__wisdom_read(wpath, w);
    char here[512];
    int nthreads = threads > 0 ? threads : hfft__cores();
    hfft__signature(ops, dev, nthreads, here, sizeof here);
    if (st < 0) {
        fprintf(stderr, "hfft-tune: %s (remove or fix the file)\n", hfft_last_error_message());
        return 1;
    }
    char what[160];
    if (st == 0 && hfft__signature_diff(w->signature, here, what, sizeof what)) {
        fprintf(stderr, "hfft-tune: %s was made on another configuration (%s); starting afresh\n",
                wpath, what);
        memset(w, 0, sizeof *w);
    }
    snprintf(w->signature, sizeof w->signature, "%s", here);
    printf("hfft-tune %s on %s, %d CPU threads\n", hfft_version(), ops->describe(dev), nthreads);
    progress("  calibrating the link...\n");
    hfft__link link;
    if (hfft__calibrate_link(ops, dev, 0, &link)) {
        fprintf(stderr, "hfft-tune: link calibration failed: %s\n", hfft_last_error_message());
        return 1;
    }
    ops->close(dev);
    w->link = link;
    w->have_link = 1;
    printf("link: h2d %.1f GB/s, d2h %.1f GB/s, duplex %.1f GB/s per direction; 2D rows",
           link.h2d / 1e9, link.d2h / 1e9, link.duplex / 1e9);
    for (int i = 0; i < link.nrow; i++)
        printf(" %.0fK:%.2f", link.row_bytes[i] / 1024, link.row_eff[i]);
    printf("\n");
    int fails = 0;
    for (int i = 0; i < np; i++)
        fails += tune(&probs[i], inplace, &link, w);
    if (hfft__wisdom_write(wpath, w)) {
        fprintf(stderr, "hfft-tune: %s\n", hfft_last_error_message());
        return 1;
    }
    printf("wisdom written to %s\n", wpath);
    free(w);
    return fails ? 1 : 0;
}
