/*
 * options.c: hfft-bench's command line: the usage text, problem strings
 * ("2d:32768x32768:f32"), engine lists and the option values, each checked
 * (a bad value is a usage error, exit status 2).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "ref.h"

const char *const option_name[E_COUNT] = {"hybrid", "gpu",           "cpu",
                                                 "auto",   "fftw-estimate", "fftw-measure",
                                                 "mkl",    "cufft-incard",  "cufft-copy-exec-copy",
                                                 "cufftxt-copy-exec-copy"};

void bench_usage(FILE *f) {
    fprintf(f,
            "usage: hfft-bench [options] PROBLEM...\n"
            "  PROBLEM  RANKd:N0[xN1[xN2]][:f32|f64|r32|r64][:KIND][:bHOWMANY], e.g.\n"
            "           2d:32768x32768:f32, 3d:1024x1024x1024:f64, 1d:1048576 (default\n"
            "           f32: complex single); r32/r64: real input, FFTW's r2c (halved last\n"
            "           dimension out); :KIND after f32/f64: FFTW's real-to-real kind along\n"
            "           every dimension, in place (e10 REDFT10, e01, e11, e00, o10, o01, o11,\n"
            "           o00, r2hc, hc2r, dht: 2d:16384x16384:f32:e10); :bHOWMANY: that many\n"
            "           transforms one after the other (1d:65536:f32:b4096)\n"
            "options:\n"
            "  --mode LIST             hfft placements, a comma list of hybrid (HFFT_HYBRID),\n"
            "                          gpu (HFFT_GPU_ONLY), cpu (HFFT_CPU_ONLY), auto (no\n"
            "                          flag: the planner decides), all (= hybrid,gpu,cpu;\n"
            "                          the default) or none\n"
            "  --baselines LIST        a comma list of fftw-estimate, fftw-measure, mkl (DFTI,\n"
            "                          where configure found MKL), cufft-incard,\n"
            "                          cufft-copy-exec-copy,\n"
            "                          cufftxt-copy-exec-copy (2D/3D c2c over the run's cards,\n"
            "                          two or more), all or none; default: all available\n"
            "  --budget BYTES          hfft_options.device_memory (\"2GiB\", \"512MiB\")\n"
            "  --reps N                timed runs after one warm-up (default 5)\n"
            "  --ratio R               fixed GPU share in (0, 1]\n"
            "  --round-ratio R1,R2[,R3] fixed GPU share per round (round 1: the strided one)\n"
            "  --slots N               pass buffers on the device (2..8)\n"
            "  --wisdom FILE           hfft_options.wisdom (a file written by hfft-tune)\n"
            "  --hfft-measure          plan hfft with HFFT_MEASURE (default HFFT_ESTIMATE)\n"
            "  --schedule S            plain or radix2 (default: the planner's choice)\n"
            "  --pass-bytes BYTES      fixed pass size on the device\n"
            "  --threads N             hfft's CPU threads (default: the library's)\n"
            "  --baseline-threads N    FFTW and MKL threads (default: all %d cores)\n"
            "  --host H                where the arrays come from: hfft_malloc (pinned, the\n"
            "                          default) or malloc (each plan pins or stages them)\n"
            "  --pinning P             malloc arrays: auto, register or stage (hfft_options\n"
            "                          .pinning; default auto)\n"
            "  --inplace               time hfft in place (the error still comes from an\n"
            "                          out-of-place run); baselines always run in place\n"
            "                          on a copy\n"
            "  --probe-each            hfft's GPU rows: the link measured again before each\n"
            "                          timed execute, and bound, trip and dup the median of\n"
            "                          each execute against the probe just before it (the\n"
            "                          link's rate drifts between and within processes)\n"
            "  --each                  hfft's rows: a line per timed execute (its time, and each\n"
            "                          round's, with the GPU and CPU sides of hybrid rounds),\n"
            "                          then the executes' mean: a hybrid's CPU side can be slow\n"
            "                          in a few executes, which a median leaves out\n"
            "  --alternate             hfft's rows of a problem take turns: every plan made\n"
            "                          first, then each one's warm-up, then its timed\n"
            "                          executes one after the other's, in order on even\n"
            "                          turns and in reverse on odd ones, each after a pause\n"
            "                          of 0.25 s (on a GPU) and an untimed execute of its\n"
            "                          own row (a CPU-only execute slows the next GPU\n"
            "                          execute's copies for about 0.1 s; a hybrid's threads\n"
            "                          woken after a pause run slower), so that drift falls\n"
            "                          on all alike and each timed execute follows its own\n"
            "                          row's (in place, it transforms that execute's output;\n"
            "                          needs each plan's device budget at once)\n"
            "  --verify                relative RMS error against FFTW in higher precision\n"
            "                          (double for f32, long double for f64); needs two\n"
            "                          more arrays' worth of host memory\n"
            "  --fftw-measure-limit S  fftw_set_timelimit for FFTW_MEASURE (default 60)\n"
            "  --csv FILE              append rows to FILE (a header when it is new)\n"
            "  --timeline FILE.png     after each GPU row's timed runs, one more execute with\n"
            "                          every copy and kernel timed (hfft_options.trace), drawn\n"
            "                          per card and stream against time, and written as CSV\n"
            "                          beside it (FILE.csv); the second and later pictures of\n"
            "                          a run are FILE-2.png, FILE-3.png, ...\n"
            "  --devices LIST          the cards hfft uses: all or ordinals (hfft_options.devices)\n"
            "  --bandwidth             measure the link (default where a GPU is present);\n"
            "                          with no PROBLEM, only that\n"
            "  --no-bandwidth          do not\n"
            "  --seed N                random data seed (default 1)\n"
            "  --help\n"
            "columns:\n"
            "  median_s, min_s, max_s  over the timed runs; plan_s: plan creation\n"
            "  GFLOPS   5 N log2 N / median_s\n"
            "  link_GB  bytes over PCIe per execution, both directions (hfft: what the\n"
            "           last execute copied, hfft_info.link_bytes; cufft-copy-exec-copy: 2 S)\n"
            "  bound    the bound of the schedule that ran / median_s: one trip (hfft's\n"
            "           one-trip schedule, cufft-copy-exec-copy) or duplex (streaming)\n"
            "  trip     one-trip bound / median_s: S / B_h2d + S / B_d2h, each direction\n"
            "           measured alone at start\n"
            "  dup      duplex bound / median_s: the bytes moved one way over the\n"
            "           per-direction rate with both directions busy\n"
            "  error    relative RMS error, ! above %g (f32) or %g (f64)\n"
            "  model_s  hfft's predicted time; xFFTW: best FFTW median / this median;\n"
            "           xMKL: MKL's median / this median\n"
            "  plan     what hfft_plan_info reports; round_s: each round's median time\n"
            "           over the timed runs (gpu:cpu_s: each side's, in hybrid rounds)\n"
            "  cpu_mem  each round's CPU side against the host memory bandwidth (its\n"
            "           share of the array read and written once)\n"
            "environment: HFFT_DEVICE=none|cuda|emulated and the other HFFT_* settings apply\n"
            "to hfft; the emulated device is a test double, never a GPU timing.\n",
            G.cores, bench_tolerance(4), bench_tolerance(8));
}

/* FFTW's real-to-real kinds by the digits of their names (hfft_r2r_kind's order). */
static const char *const R2R_NAMES[] = {"r2hc", "hc2r", "dht", "e00", "e01", "e10",
                                        "e11",  "o00",  "o01", "o10", "o11"};

int bench_parse_problem(const char *s, problem *p) {
    memset(p, 0, sizeof *p);
    int rank = 0, used = 0;
    if (sscanf(s, "%1dd:%n", &rank, &used) != 1 || used == 0 || rank < 1 || rank > 3)
        return -1;
    const char *c = s + used;
    for (int k = 0; k < rank; k++) {
        char *end;
        errno = 0;
        long long v = strtoll(c, &end, 10);
        if (end == c || errno || v < 1)
            return -1;
        p->n[k] = v;
        c = end;
        if (k + 1 < rank) {
            if (*c != 'x')
                return -1;
            c++;
        }
    }
    p->prec = 4;
    p->howmany = 1;
    if (*c == ':') {
        c++;
        size_t w = strcspn(c, ":");
        if (w == 3 && (c[0] == 'f' || c[0] == 'r') &&
            (strncmp(c + 1, "32", 2) == 0 || strncmp(c + 1, "64", 2) == 0)) {
            p->prec = c[1] == '3' ? 4 : 8;
            p->kind = c[0] == 'r' ? PK_R2C : PK_C2C;
        } else {
            return -1;
        }
        c += w;
    }
    if (*c == ':' && c[1] != 'b' && p->kind == PK_C2C) {
        c++;
        size_t w = strcspn(c, ":");
        int found = -1;
        for (int k = 0; k < (int)(sizeof R2R_NAMES / sizeof *R2R_NAMES); k++)
            if (strlen(R2R_NAMES[k]) == w && strncmp(c, R2R_NAMES[k], w) == 0)
                found = k;
        if (found < 0)
            return -1;
        p->kind = PK_R2R;
        p->r2r = found;
        c += w;
    }
    if (*c == ':') {
        char *end;
        errno = 0;
        long long v = c[1] == 'b' ? strtoll(c + 2, &end, 10) : 0;
        if (c[1] != 'b' || end == c + 2 || errno || v < 1 || *end)
            return -1;
        p->howmany = v;
        c = end;
    }
    if (*c)
        return -1;
    p->rank = rank;
    p->total = 1;
    for (int k = 0; k < rank; k++) {
        if (__builtin_mul_overflow(p->total, p->n[k], &p->total))
            return -1;
    }
    int64_t lines = p->total / p->n[rank - 1], in, out;
    int64_t ol = p->kind == PK_R2C ? p->n[rank - 1] / 2 + 1 : p->n[rank - 1];
    int64_t in_es = p->kind != PK_C2C ? p->prec : 2 * p->prec; /* bytes per input element */
    int64_t out_es = p->kind == PK_R2R ? p->prec : 2 * p->prec;
    if (__builtin_mul_overflow(p->total, p->howmany, &in) ||
        __builtin_mul_overflow(in, in_es, &in) ||
        __builtin_mul_overflow(lines * ol, p->howmany, &out) ||
        __builtin_mul_overflow(out, out_es, &out))
        return -1;
    p->in_bytes = (size_t)in;
    p->out_bytes = (size_t)out;
    p->bytes = p->in_bytes > p->out_bytes ? p->in_bytes : p->out_bytes;
    for (int k = rank; k < 3; k++)
        p->n[k] = 1;
    snprintf(p->text, sizeof p->text, "%dd:", rank);
    for (int k = 0; k < rank; k++)
        snprintf(p->text + strlen(p->text), sizeof p->text - strlen(p->text), "%s%lld",
                 k ? "x" : "", (long long)p->n[k]);
    snprintf(p->text + strlen(p->text), sizeof p->text - strlen(p->text), ":%c%s",
             p->kind == PK_R2C ? 'r' : 'f', p->prec == 4 ? "32" : "64");
    if (p->kind == PK_R2R)
        snprintf(p->text + strlen(p->text), sizeof p->text - strlen(p->text), ":%s",
                 R2R_NAMES[p->r2r]);
    if (p->howmany > 1)
        snprintf(p->text + strlen(p->text), sizeof p->text - strlen(p->text), ":b%lld",
                 (long long)p->howmany);
    return 0;
}

/* A comma list of names from option_name[] within `allowed`; returns the bits. */
static unsigned parse_list(const char *opt, const char *list, unsigned allowed) {
    unsigned bits = 0;
    char buf[512];
    snprintf(buf, sizeof buf, "%s", list);
    for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok;
         tok = strtok_r(NULL, ",", &save)) {
        if (strcmp(tok, "all") == 0) {
            bits |= allowed == HFFT_ENGINES ? ((1u << E_HYBRID) | (1u << E_GPU) | (1u << E_CPU))
                                            : allowed;
            continue;
        }
        if (strcmp(tok, "none") == 0)
            continue;
        int found = 0;
        for (int e = 0; e < E_COUNT; e++)
            if ((allowed >> e & 1u) && strcmp(tok, option_name[e]) == 0) {
                bits |= 1u << e;
                found = 1;
            }
        if (!found) {
            fprintf(stderr, "hfft-bench: %s: unknown name '%s'\n", opt, tok);
            exit(2);
        }
    }
    return bits;
}

static const char *need(int argc, char **argv, int *i) {
    if (*i + 1 >= argc) {
        fprintf(stderr, "hfft-bench: %s needs a value\n", argv[*i]);
        exit(2);
    }
    return argv[++*i];
}

static int64_t parse_size_opt(const char *opt, const char *v) {
    int64_t b = 0;
    if (hfft_parse_bytes(v, &b) || b <= 0) {
        fprintf(stderr, "hfft-bench: %s '%s': not a byte size\n", opt, v);
        exit(2);
    }
    return b;
}

static long parse_int_opt(const char *opt, const char *v, long lo) {
    char *end;
    errno = 0;
    long x = strtol(v, &end, 10);
    if (end == v || *end || errno || x < lo) {
        fprintf(stderr, "hfft-bench: %s '%s': expected an integer >= %ld\n", opt, v, lo);
        exit(2);
    }
    return x;
}

int bench_parse_args(int argc, char **argv, args *a, problem *probs, int *nprob) {
    memset(a, 0, sizeof *a);
    a->engines = (1u << E_HYBRID) | (1u << E_GPU) | (1u << E_CPU);
    a->baselines = BASELINES;
    a->reps = 5;
    a->measure_limit = 60.0;
    a->bandwidth = -1;
    a->seed = 1;
    a->bthreads = G.cores;
    for (int i = 1; i < argc; i++) {
        const char *o = argv[i];
        if (strcmp(o, "--help") == 0 || strcmp(o, "-h") == 0) {
            bench_usage(stdout);
            return 0;
        } else if (strcmp(o, "--mode") == 0) {
            a->engines = parse_list(o, need(argc, argv, &i), HFFT_ENGINES);
        } else if (strcmp(o, "--baselines") == 0) {
            a->baselines = parse_list(o, need(argc, argv, &i), BASELINES);
            a->baselines_given = 1;
        } else if (strcmp(o, "--budget") == 0) {
            a->budget = parse_size_opt(o, need(argc, argv, &i));
        } else if (strcmp(o, "--pass-bytes") == 0) {
            a->pass_bytes = parse_size_opt(o, need(argc, argv, &i));
        } else if (strcmp(o, "--reps") == 0) {
            a->reps = (int)parse_int_opt(o, need(argc, argv, &i), 1);
        } else if (strcmp(o, "--threads") == 0) {
            a->threads = (int)parse_int_opt(o, need(argc, argv, &i), 1);
        } else if (strcmp(o, "--baseline-threads") == 0) {
            a->bthreads = (int)parse_int_opt(o, need(argc, argv, &i), 1);
        } else if (strcmp(o, "--seed") == 0) {
            a->seed = (uint64_t)parse_int_opt(o, need(argc, argv, &i), 0);
        } else if (strcmp(o, "--ratio") == 0) {
            const char *v = need(argc, argv, &i);
            char *end;
            a->ratio = strtod(v, &end);
            if (end == v || *end || !(a->ratio > 0 && a->ratio <= 1)) {
                fprintf(stderr, "hfft-bench: --ratio '%s': expected a number in (0, 1]\n", v);
                return 2;
            }
        } else if (strcmp(o, "--round-ratio") == 0) {
            const char *v = need(argc, argv, &i);
            char *c = (char *)v, *end;
            for (int h = 0; h < 3 && *c; h++) {
                a->round_ratio[h] = strtod(c, &end);
                if (end == c || !(a->round_ratio[h] >= 0 && a->round_ratio[h] <= 1)) {
                    fprintf(stderr,
                            "hfft-bench: --round-ratio '%s': expected R1,R2[,R3] in [0, 1]\n", v);
                    return 2;
                }
                c = *end == ',' ? end + 1 : end;
            }
            if (*c) {
                fprintf(stderr, "hfft-bench: --round-ratio '%s': at most three shares\n", v);
                return 2;
            }
        } else if (strcmp(o, "--slots") == 0) {
            a->slots = (int)parse_int_opt(o, need(argc, argv, &i), 1);
        } else if (strcmp(o, "--wisdom") == 0) {
            a->wisdom = need(argc, argv, &i);
        } else if (strcmp(o, "--hfft-measure") == 0) {
            a->hfft_measure = 1;
        } else if (strcmp(o, "--fftw-measure-limit") == 0) {
            const char *v = need(argc, argv, &i);
            char *end;
            a->measure_limit = strtod(v, &end);
            if (end == v || *end || !(a->measure_limit > 0)) {
                fprintf(stderr, "hfft-bench: --fftw-measure-limit '%s': expected seconds > 0\n", v);
                return 2;
            }
        } else if (strcmp(o, "--schedule") == 0) {
            const char *v = need(argc, argv, &i);
            if (strcmp(v, "plain") == 0)
                a->schedule = HFFT_SCHEDULE_PLAIN;
            else if (strcmp(v, "radix2") == 0)
                a->schedule = HFFT_SCHEDULE_RADIX2;
            else {
                fprintf(stderr, "hfft-bench: --schedule '%s': plain or radix2\n", v);
                return 2;
            }
        } else if (strcmp(o, "--csv") == 0) {
            a->csv = need(argc, argv, &i);
        } else if (strcmp(o, "--timeline") == 0) {
            a->timeline = need(argc, argv, &i);
        } else if (strcmp(o, "--devices") == 0) {
            a->devices = need(argc, argv, &i);
        } else if (strcmp(o, "--verify") == 0) {
            a->verify = 1;
        } else if (strcmp(o, "--inplace") == 0) {
            a->inplace = 1;
        } else if (strcmp(o, "--probe-each") == 0) {
            a->probe_each = 1;
        } else if (strcmp(o, "--each") == 0) {
            a->each = 1;
        } else if (strcmp(o, "--alternate") == 0) {
            a->alternate = 1;
        } else if (strcmp(o, "--host") == 0) {
            const char *v = need(argc, argv, &i);
            if (strcmp(v, "hfft_malloc") == 0)
                a->host_malloc = 0;
            else if (strcmp(v, "malloc") == 0)
                a->host_malloc = 1;
            else {
                fprintf(stderr, "hfft-bench: --host '%s': hfft_malloc or malloc\n", v);
                return 2;
            }
        } else if (strcmp(o, "--pinning") == 0) {
            const char *v = need(argc, argv, &i);
            static const char *const modes[] = {"auto", "register", "stage"};
            a->pinning = -1;
            for (int k = 0; k < 3; k++)
                if (strcmp(v, modes[k]) == 0)
                    a->pinning = k;
            if (a->pinning < 0) {
                fprintf(stderr, "hfft-bench: --pinning '%s': auto, register or stage\n", v);
                return 2;
            }
        } else if (strcmp(o, "--bandwidth") == 0) {
            a->bandwidth = 1;
        } else if (strcmp(o, "--no-bandwidth") == 0) {
            a->bandwidth = 0;
        } else if (o[0] == '-' && o[1] == '-') {
            fprintf(stderr, "hfft-bench: unknown option %s (see --help)\n", o);
            return 2;
        } else if (bench_parse_problem(o, &probs[*nprob]) == 0) {
            (*nprob)++;
        } else {
            fprintf(stderr, "hfft-bench: problem '%s': expected e.g. 2d:1024x1024:f32, "
                            "2d:1024x1024:r32 or 1d:65536:f32:b64\n", o);
            return 2;
        }
    }
    for (int k = 0; k < *nprob; k++)
        if (a->inplace && probs[k].kind == PK_R2C) {
            fprintf(stderr, "hfft-bench: %s: --inplace is for complex problems (real ones "
                            "run out of place)\n", probs[k].text);
            return 2;
        }
    if (*nprob == 0 && a->bandwidth != 1) {
        bench_usage(stderr);
        return 2;
    }
    return -1;
}
