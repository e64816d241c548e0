/*
 * wisdom.c: what hfft-tune learned, kept as text.  The first lines sign the
 * configuration (library version, GPU, driver, CUDA, cuFFT, FFTW, threads,
 * the cards: each one's ordinal, name and memory); wisdom signed by another
 * configuration is ignored and the plan says why.
 * Then the link's rates (one card's; over several, all of them copying at
 * once too: optional, files of one card have none), the host memory's
 * bandwidth (optional: files written before it was measured have none), and
 * tuned problems:
 *
 *   hfft-wisdom 1                (2 where an entry has kind=: see below)
 *   signature version=0.1.0;gpu=NVIDIA H200;driver=13000;...;threads=16;cards=2;
 *             devices=0:NVIDIA H200:143771MiB,1:NVIDIA H200:143771MiB        (one line)
 *   link h2d=5.53e10 d2h=5.51e10 duplex=5.05e10 cards=2 all_h2d=1.099e11
 *        all_d2h=1.09e11 all_duplex=7.58e10 rows=2048:0.65,8192:0.9          (one line)
 *   host bw=1.2e11
 *   problem prec=4 n=32768x32768 inplace=1 budget=2147483648 ratio=1,0.72 slots=4
 *           pass=268435456 schedule=1 predicted=0.19,0.13 measured=0.19,0.135
 *           cpu=1.1e9,2.4e10 cpuslow=1.2,1.3 gpuslow=1.0,1.05      (one line)
 *   problem prec=4 n=65536 howmany=131072 inplace=1 budget=0 ratio=0.7 ...
 *
 * `howmany` (optional, 1 where absent) is a dense batch's count of transforms,
 * one after the other; `kind` (optional, c2c where absent: written only for
 * real transforms) is c2c, r2c or c2r; a real transform's n are its real sizes.
 * A file with such an entry says format 2, which readers of format 1 refuse by
 * its first line; this one reads both.
 * A line that does not parse makes the file corrupt: HFFT_ERR_WISDOM naming
 * the line, never a crash and never a guess.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "balancer/wisdom.h"
#include "cpu/cpu.h"
#include "hfft.h"
#include "src/core/problem.h"
#include "src/core/status.h"

int hfft__wisdom_default_path(char *buf, size_t n) {
    const char *xdg = getenv("XDG_CONFIG_HOME"), *home = getenv("HOME");
    int k;
    if (xdg && *xdg)
        k = snprintf(buf, n, "%s/hfft/wisdom", xdg);
    else if (home && *home)
        k = snprintf(buf, n, "%s/.config/hfft/wisdom", home);
    else
        return -1;
    return k > 0 && (size_t)k < n ? 0 : -1;
}

int hfft__wisdom_fftw_path(const char *setting, int prec, char *buf, size_t n) {
    char def[1024];
    if (!setting || strcmp(setting, "none") == 0)
        return -1;
    if (!*setting) {
        if (hfft__wisdom_default_path(def, sizeof def) != 0)
            return -1;
        setting = def;
    }
    int k = snprintf(buf, n, "%s.fftw-f%d", setting, prec * 8);
    return k > 0 && (size_t)k < n ? 0 : -1;
}

static int parse_list(const char *v, double *out, int max, int *count) {
    int k = 0;
    const char *p = v;
    while (*p) {
        if (k == max)
            return -1;
        char *end;
        errno = 0;
        out[k] = strtod(p, &end);
        if (end == p || errno || !isfinite(out[k]) || out[k] < 0)
            return -1;
        k++;
        p = end;
        if (*p == ',')
            p++;
        else if (*p)
            return -1;
    }
    *count = k;
    return k > 0 ? 0 : -1;
}

static int parse_i64(const char *v, int64_t *out) {
    char *end;
    errno = 0;
    long long x = strtoll(v, &end, 10);
    if (end == v || *end || errno)
        return -1;
    *out = x;
    return 0;
}

static int parse_shape(const char *v, int *rank, int64_t *n) {
    int r = 0;
    const char *p = v;
    while (*p && r < 3) {
        char *end;
        errno = 0;
        long long x = strtoll(p, &end, 10);
        if (end == p || errno || x < 1)
            return -1;
        n[r++] = x;
        p = end;
        if (*p == 'x')
            p++;
        else if (*p)
            return -1;
    }
    if (*p || r == 0)
        return -1;
    *rank = r;
    return 0;
}

/* The link's rate of a wisdom key, or NULL. */
static double *link_rate(hfft__link *l, const char *key) {
    static const char *const keys[] = {"h2d", "d2h", "duplex", "all_h2d", "all_d2h", "all_duplex"};
    double *const at[] = {&l->h2d, &l->d2h, &l->duplex, &l->all_h2d, &l->all_d2h, &l->all_duplex};
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
        if (strcmp(key, keys[i]) == 0)
            return at[i];
    return NULL;
}

static int parse_link(char *rest, hfft__link *l) {
    char *save = NULL;
    for (char *tok = strtok_r(rest, " \t", &save); tok; tok = strtok_r(NULL, " \t", &save)) {
        char *eq = strchr(tok, '=');
        if (!eq)
            return -1;
        *eq = '\0';
        const char *k = tok, *v = eq + 1;
        int cnt;
        double *rate = link_rate(l, k);
        if (rate && parse_list(v, rate, 1, &cnt) == 0)
            continue;
        int64_t cards;
        if (strcmp(k, "cards") == 0 && parse_i64(v, &cards) == 0 && cards >= 2 &&
            cards <= HFFT_MAX_CARDS) {
            l->cards = (int)cards;
            continue;
        }
        if (strcmp(k, "rows") == 0) {
            int n = 0;
            const char *p = v;
            while (*p) {
                if (n == 12)
                    return -1;
                char *end;
                double b = strtod(p, &end);
                if (end == p || *end != ':')
                    return -1;
                p = end + 1;
                double e = strtod(p, &end);
                if (end == p)
                    return -1;
                l->row_bytes[n] = b;
                l->row_eff[n] = e;
                n++;
                p = end;
                if (*p == ',')
                    p++;
                else if (*p)
                    return -1;
            }
            l->nrow = n;
            continue;
        }
        return -1;
    }
    /* all cards' rates come together with their count, or not at all */
    int all = (l->all_h2d > 0) + (l->all_d2h > 0) + (l->all_duplex > 0);
    return l->duplex > 0 && all == (l->cards ? 3 : 0) ? 0 : -1;
}

/* "bw=B": B > 0 */
static int parse_host(char *rest, double *bw) {
    while (*rest == ' ' || *rest == '\t')
        rest++;
    int cnt;
    if (strncmp(rest, "bw=", 3) != 0 || strpbrk(rest, " \t") ||
        parse_list(rest + 3, bw, 1, &cnt) != 0)
        return -1;
    return *bw > 0 ? 0 : -1;
}

static int parse_problem(char *rest, hfft__wisdom_problem *q) {
    memset(q, 0, sizeof *q);
    char *save = NULL;
    int cnt, have_n = 0, have_prec = 0;
    for (char *tok = strtok_r(rest, " \t", &save); tok; tok = strtok_r(NULL, " \t", &save)) {
        char *eq = strchr(tok, '=');
        if (!eq)
            return -1;
        *eq = '\0';
        const char *k = tok, *v = eq + 1;
        int64_t x;
        if (strcmp(k, "prec") == 0 && parse_i64(v, &x) == 0 && (x == 4 || x == 8)) {
            q->prec = (int)x;
            have_prec = 1;
        } else if (strcmp(k, "n") == 0 && parse_shape(v, &q->rank, q->n) == 0) {
            have_n = 1;
        } else if (strcmp(k, "kind") == 0 &&
                   (!strcmp(v, "c2c") || !strcmp(v, "r2c") || !strcmp(v, "c2r"))) {
            q->kind = !strcmp(v, "r2c") ? HFFT__R2C : !strcmp(v, "c2r") ? HFFT__C2R : HFFT__C2C;
        } else if (strcmp(k, "howmany") == 0 && parse_i64(v, &x) == 0 && x >= 1) {
            q->howmany = x;
        } else if (strcmp(k, "inplace") == 0 && parse_i64(v, &x) == 0 && (x == 0 || x == 1)) {
            q->inplace = (int)x;
        } else if (strcmp(k, "budget") == 0 && parse_i64(v, &x) == 0 && x >= 0) {
            q->budget = x;
        } else if (strcmp(k, "ratio") == 0 && parse_list(v, q->ratio, 3, &cnt) == 0) {
            for (int i = 0; i < cnt; i++)
                if (!(q->ratio[i] >= 0 && q->ratio[i] <= 1))
                    return -1;
            q->nratio = cnt;
        } else if (strcmp(k, "slots") == 0 && parse_i64(v, &x) == 0 && x >= 0 && x <= 8) {
            q->slots = (int)x;
        } else if (strcmp(k, "pass") == 0 && parse_i64(v, &x) == 0 && x >= 0) {
            q->pass_bytes = x;
        } else if (strcmp(k, "schedule") == 0 && parse_i64(v, &x) == 0 && x >= 0 && x <= 2) {
            q->schedule = (int)x;
        } else if (strcmp(k, "predicted") == 0 && parse_list(v, q->predicted, 3, &cnt) == 0) {
        } else if (strcmp(k, "measured") == 0 && parse_list(v, q->measured, 3, &cnt) == 0) {
        } else if (strcmp(k, "cpu") == 0 && parse_list(v, q->cpu_rate, 3, &cnt) == 0) {
        } else if (strcmp(k, "cpuslow") == 0 && parse_list(v, q->cpu_slow, 3, &cnt) == 0) {
        } else if (strcmp(k, "gpuslow") == 0 && parse_list(v, q->gpu_slow, 3, &cnt) == 0) {
        } else if (strcmp(k, "gpu") == 0 && parse_list(v, q->gpu_rate, 3, &cnt) == 0) {
        } else {
            return -1;
        }
    }
    if (!q->howmany)
        q->howmany = 1;
    return have_n && have_prec ? 0 : -1;
}

int hfft__wisdom_parse(const char *text, const char *where, hfft__wisdom *w) {
    memset(w, 0, sizeof *w);
    int lineno = 0, header = 0;
    const char *p = text;
    char line[2048];
    while (*p) {
        const char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p) : strlen(p);
        lineno++;
        if (len >= sizeof line)
            return hfft__fail(HFFT_ERR_WISDOM, "wisdom %s:%d: line too long", where, lineno);
        memcpy(line, p, len);
        line[len] = '\0';
        p += len + (nl ? 1 : 0);
        if (len && line[len - 1] == '\r')
            line[--len] = '\0';
        char *s = line;
        while (*s == ' ' || *s == '\t')
            s++;
        if (*s == '\0' || *s == '#')
            continue;
        char *rest = strpbrk(s, " \t");
        if (rest)
            *rest++ = '\0';
        else
            rest = s + strlen(s);
        int bad = 0;
        if (!header) {
            bad =
                strcmp(s, "hfft-wisdom") != 0 || (strcmp(rest, "1") != 0 && strcmp(rest, "2") != 0);
            header = !bad;
        } else if (strcmp(s, "signature") == 0) {
            while (*rest == ' ')
                rest++;
            bad = strlen(rest) >= sizeof w->signature || w->signature[0];
            if (!bad)
                strcpy(w->signature, rest);
        } else if (strcmp(s, "link") == 0) {
            bad = parse_link(rest, &w->link);
            w->have_link = !bad;
        } else if (strcmp(s, "host") == 0) {
            bad = w->host_bw > 0 || parse_host(rest, &w->host_bw);
        } else if (strcmp(s, "problem") == 0) {
            if (w->nprob == HFFT__WISDOM_MAX)
                return hfft__fail(HFFT_ERR_WISDOM, "wisdom %s:%d: more than %d problems", where,
                                  lineno, HFFT__WISDOM_MAX);
            bad = parse_problem(rest, &w->prob[w->nprob]);
            if (!bad)
                w->nprob++;
        } else {
            bad = 1;
        }
        if (bad)
            return hfft__fail(HFFT_ERR_WISDOM, "wisdom %s:%d: cannot parse this line", where,
                              lineno);
    }
    if (!header)
        return hfft__fail(HFFT_ERR_WISDOM, "wisdom %s: no 'hfft-wisdom 1' or '2' header", where);
    if (!w->signature[0])
        return hfft__fail(HFFT_ERR_WISDOM, "wisdom %s: no signature line", where);
    return 0;
}

int hfft__wisdom_read(const char *path, hfft__wisdom *w) {
    memset(w, 0, sizeof *w);
    /* without blocking: a FIFO or a device at the path would stall the plan */
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
        return errno == ENOENT ? 1
                               : hfft__fail(HFFT_ERR_IO, "wisdom %s: %s", path, strerror(errno));
    struct stat sb;
    if (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode)) {
        close(fd);
        return hfft__fail(HFFT_ERR_IO, "wisdom %s: not a regular file", path);
    }
    FILE *f = fdopen(fd, "rb");
    if (!f) {
        close(fd);
        return hfft__fail(HFFT_ERR_IO, "wisdom %s: %s", path, strerror(errno));
    }
    char *buf = NULL;
    size_t len = 0, cap = 0;
    for (;;) {
        if (len + 4096 + 1 > cap) {
            if (cap > (16u << 20)) {
                free(buf);
                fclose(f);
                return hfft__fail(HFFT_ERR_WISDOM, "wisdom %s: larger than 16 MiB", path);
            }
            cap = cap ? 2 * cap : 65536;
            char *nb = realloc(buf, cap);
            if (!nb) {
                free(buf);
                fclose(f);
                return hfft__fail(HFFT_ERR_HOST_MEMORY, "wisdom %s: out of memory", path);
            }
            buf = nb;
        }
        size_t got = fread(buf + len, 1, 4096, f);
        len += got;
        if (got < 4096)
            break;
    }
    int err = ferror(f);
    fclose(f);
    if (err) {
        free(buf);
        return hfft__fail(HFFT_ERR_IO, "wisdom %s: read error", path);
    }
    buf[len] = '\0';
    if (memchr(buf, '\0', len)) {
        free(buf);
        return hfft__fail(HFFT_ERR_WISDOM, "wisdom %s: binary data", path);
    }
    int st = hfft__wisdom_parse(buf, path, w);
    free(buf);
    return st;
}

/* Values the parser takes back: finite and not negative (0, "none", otherwise). */
static void put_list(FILE *f, const char *key, const double *v, int n) {
    fprintf(f, " %s=", key);
    for (int i = 0; i < n; i++)
        fprintf(f, "%s%.6g", i ? "," : "", isfinite(v[i]) && v[i] > 0 ? v[i] : 0.0);
}

int hfft__wisdom_write(const char *path, const hfft__wisdom *w) {
    char tmp[1100];
    if (snprintf(tmp, sizeof tmp, "%s.tmp", path) >= (int)sizeof tmp)
        return hfft__fail(HFFT_ERR_IO, "wisdom path too long");
    FILE *f = fopen(tmp, "w");
    if (!f)
        return hfft__fail(HFFT_ERR_IO, "wisdom %s: %s", tmp, strerror(errno));
    fprintf(f, "# hfft wisdom, written by hfft-tune; lines: signature, link, host, problem\n");
    /* format 2 where a real transform's entry (kind=) is in it: a reader that knows
       only format 1 then refuses the file by its header */
    int format = 1;
    for (int i = 0; i < w->nprob; i++)
        format = w->prob[i].kind != HFFT__C2C ? 2 : format;
    fprintf(f, "hfft-wisdom %d\nsignature %s\n", format, w->signature);
    if (w->have_link) {
        fprintf(f, "link h2d=%.6g d2h=%.6g duplex=%.6g", w->link.h2d, w->link.d2h, w->link.duplex);
        if (w->link.cards > 1)
            fprintf(f, " cards=%d all_h2d=%.6g all_d2h=%.6g all_duplex=%.6g", w->link.cards,
                    w->link.all_h2d, w->link.all_d2h, w->link.all_duplex);
        if (w->link.nrow) {
            fprintf(f, " rows=");
            for (int i = 0; i < w->link.nrow; i++)
                fprintf(f, "%s%.0f:%.4f", i ? "," : "", w->link.row_bytes[i], w->link.row_eff[i]);
        }
        fprintf(f, "\n");
    }
    if (w->host_bw > 0)
        fprintf(f, "host bw=%.6g\n", w->host_bw);
    for (int i = 0; i < w->nprob; i++) {
        const hfft__wisdom_problem *q = &w->prob[i];
        int nr = q->nratio > 0 ? q->nratio : q->rank == 3 ? 2 : q->rank;
        fprintf(f, "problem prec=%d n=", q->prec);
        for (int k = 0; k < q->rank; k++)
            fprintf(f, "%s%lld", k ? "x" : "", (long long)q->n[k]);
        if (q->kind != HFFT__C2C)
            fprintf(f, " kind=%s", q->kind == HFFT__R2C ? "r2c" : "c2r");
        if (q->howmany > 1)
            fprintf(f, " howmany=%lld", (long long)q->howmany);
        fprintf(f, " inplace=%d budget=%lld", q->inplace, (long long)q->budget);
        put_list(f, "ratio", q->ratio, nr);
        fprintf(f, " slots=%d pass=%lld schedule=%d", q->slots, (long long)q->pass_bytes,
                q->schedule);
        put_list(f, "predicted", q->predicted, nr);
        put_list(f, "measured", q->measured, nr);
        put_list(f, "gpu", q->gpu_rate, nr);
        put_list(f, "cpu", q->cpu_rate, nr);
        put_list(f, "gpuslow", q->gpu_slow, nr);
        put_list(f, "cpuslow", q->cpu_slow, nr);
        fprintf(f, "\n");
    }
    int bad = ferror(f);
    if (fclose(f) != 0 || bad) {
        remove(tmp);
        return hfft__fail(HFFT_ERR_IO, "wisdom %s: write failed", tmp);
    }
    if (rename(tmp, path) != 0) {
        remove(tmp);
        return hfft__fail(HFFT_ERR_IO, "wisdom %s: %s", path, strerror(errno));
    }
    return 0;
}

static int64_t count_of(int64_t howmany) { return howmany > 1 ? howmany : 1; }

static int same_problem(const hfft__wisdom_problem *q, int kind, int prec, int rank,
                        const int64_t *n, int64_t howmany, int inplace, int64_t budget) {
    if (q->kind != kind || q->prec != prec || q->rank != rank || q->inplace != inplace ||
        q->budget != budget || count_of(q->howmany) != count_of(howmany))
        return 0;
    for (int k = 0; k < rank; k++)
        if (q->n[k] != n[k])
            return 0;
    return 1;
}

const hfft__wisdom_problem *hfft__wisdom_find(const hfft__wisdom *w, int kind, int prec, int rank,
                                              const int64_t *n, int64_t howmany, int inplace,
                                              int64_t budget) {
    for (int i = 0; i < w->nprob; i++)
        if (same_problem(&w->prob[i], kind, prec, rank, n, howmany, inplace, budget))
            return &w->prob[i];
    return NULL;
}

const hfft__wisdom_problem *hfft__wisdom_nearest(const hfft__wisdom *w, int kind, int prec,
                                                 int rank, const int64_t *n, int64_t howmany,
                                                 int64_t budget) {
    double want = log((double)count_of(howmany));
    for (int k = 0; k < rank; k++)
        want += log((double)n[k]);
    const hfft__wisdom_problem *best = NULL;
    double best_d = 0;
    for (int i = 0; i < w->nprob; i++) {
        const hfft__wisdom_problem *q = &w->prob[i];
        if (q->kind != kind || q->prec != prec || q->rank != rank || q->budget != budget ||
            q->gpu_rate[0] <= 0 || (count_of(q->howmany) > 1) != (count_of(howmany) > 1))
            continue;
        /* distance in log of the element count, then in the shape (the count of a batch's
           transforms its last dimension) */
        double have = log((double)count_of(q->howmany)),
               shape = fabs(log((double)count_of(q->howmany)) - log((double)count_of(howmany)));
        for (int k = 0; k < rank; k++) {
            have += log((double)q->n[k]);
            shape += fabs(log((double)q->n[k]) - log((double)n[k]));
        }
        double d = 4.0 * fabs(have - want) + shape;
        if (!best || d < best_d) {
            best = q;
            best_d = d;
        }
    }
    return best;
}

int hfft__wisdom_add(hfft__wisdom *w, const hfft__wisdom_problem *q) {
    for (int i = 0; i < w->nprob; i++) {
        if (same_problem(&w->prob[i], q->kind, q->prec, q->rank, q->n, q->howmany, q->inplace,
                         q->budget)) {
            w->prob[i] = *q;
            return 0;
        }
    }
    if (w->nprob == HFFT__WISDOM_MAX)
        return hfft__fail(HFFT_ERR_WISDOM, "wisdom holds %d problems already", HFFT__WISDOM_MAX);
    w->prob[w->nprob++] = *q;
    return 0;
}

/* First differing field of two signatures, for the plan's note. */
int hfft__signature_diff(const char *a, const char *b, char *what, size_t n) {
    if (strcmp(a, b) == 0)
        return 0;
    const char *pa = a, *pb = b;
    while (*pa && *pb) {
        size_t la = strcspn(pa, ";"), lb = strcspn(pb, ";");
        if (la != lb || strncmp(pa, pb, la) != 0) {
            snprintf(what, n, "%.*s here, %.*s in the file", (int)lb, pb, (int)la, pa);
            return 1;
        }
        pa += la + (pa[la] == ';');
        pb += lb + (pb[lb] == ';');
    }
    /* one has fields the other lacks (a file signed before they were) */
    if (*pb)
        snprintf(what, n, "%.*s here, not in the file", (int)strcspn(pb, ";"), pb);
    else if (*pa)
        snprintf(what, n, "%.*s in the file, not here", (int)strcspn(pa, ";"), pa);
    else
        snprintf(what, n, "signatures differ");
    return 1;
}

void hfft__signature(const hfft__dev_ops *ops, hfft__dev *const *cards, int n, int threads,
                     char *buf, size_t len) {
    char d[256] = "gpu=none;driver=0;cuda=0;cufft=0";
    if (ops && n > 0)
        ops->signature(cards[0], d, sizeof d);
    size_t o = (size_t)snprintf(buf, len, "version=%s;%s;fftw=%s;threads=%d;cards=%d;devices=",
                                HFFT_VERSION_STRING, d, hfft__fftw_version(), threads, n);
    for (int k = 0; k < n && o < len; k++)
        o += (size_t)snprintf(buf + o, len - o, "%s%d:%s:%lldMiB", k ? "," : "",
                              ops->ordinal(cards[k]), ops->describe(cards[k]),
                              (long long)(ops->memory(cards[k]) >> 20));
}
