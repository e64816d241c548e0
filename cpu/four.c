/*
 * four.c: the CPU's share of a four-step streaming plan (gpu/fourstep.c),
 * in the GPU's layout between the rounds, so that the two sides split each
 * round's units: with d0 = fa fb and input index q + fb p,
 *   round A, group by group of the CPU's, all threads on a group together
 *     (as exec.c's planes): the group's fa indices' rows transformed into one
 *     of RING shared buffers (index p at its row p), then the fa-point lines
 *     across them through tiles (exec.h: a few columns gathered into a
 *     column-major buffer sized to the cache, transformed, scattered) out to
 *     output rows fa q + k1.  The next group's rows run beside this group's
 *     tiles, so that a group's buffer is still in the shared cache when its
 *     tiles read it (a buffer a thread, of fa whole rows, outgrew the cache
 *     on large arrays and left the share bound by memory beside the GPU);
 *   round B, a job per tile of each of the CPU's pieces (piece u: columns
 *     [(u % nb) pw, + pw) of rows fa q + k1, k1 = u / nb, q < fb): the
 *     columns gathered, element q times W_d0^(q k1), the fb-point lines, and
 *     scattered back where they were read (result k2 at row fa k2 + k1:
 *     natural order).
 * The GPU takes the first units of each round, the CPU the rest; round B
 * starts once both sides' round A is in host memory (the plan's barrier).
 * Near the end of its units the GPU may take back the CPU's last ones that no
 * thread has started (hfft__cpu_take), where the CPU is running late:
 * each unit has a claim, set once by whichever side starts it first.
 * FFTW's strided plans over the same lines, made with FFTW_ESTIMATE, ran the
 * CPU's share several times slower beside the GPU; tiles need only plans of
 * contiguous columns, which ESTIMATE plans well.
 */
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "cpu/exec.h"
#include "src/core/status.h"

#define RING 3 /* round A's group buffers: a group's rows run up to two groups ahead */

struct cpu_four {
    hfft__cpu_four_desc d;
    size_t es, in_index; /* bytes of a complex element; between input indices */
    hfft__lines *rows;   /* one index's rows, input to a group buffer */
    tile ta, tb;         /* round A: fa-point columns of a group buffer (pitch row); round
                            B: fb-point columns of the output (pitch fa row) */
    int64_t kr, rper;    /* round A: row jobs a group, indices a row job */
    int64_t kc, tper;    /* round A: tile jobs a group, tiles a tile job */
    int64_t nck;         /* round B: jobs a piece, a tile of tb.B columns each */
    hfft__twiddles tw;   /* W_d0 */
    size_t abytes;       /* a group buffer: fa indices' rows */
    int64_t stage_ld;    /* r2c rows staged in the thread's buffer (0: none): complex
                            elements between its rows, which start on cache lines */
    char *ring[RING];
    _Atomic int64_t *rows_done, *tiles_done; /* round A, per group of the CPU's */
    /* each round's units of the CPU's (A: groups, B: pieces): FREE, CPU (a job of it
       started) or GPU (taken back); the CPU's tile jobs finished (kc a group of round
       A, nck a piece of round B: partial units count); start time */
    _Atomic int *claim[2];
    int64_t nunits[2];
    _Atomic int64_t done[2];
    double t0[2];
    int64_t taken[2];     /* units the GPU took back in the last execute */
    _Atomic int asked[2]; /* the GPU asked, this round (hfft__cpu_late) */
};

/* Whether the CPU does unit i of round h: its first job claims it, unless the
   GPU took it back first. */
static int cpu_takes(cpu_four *f, int h, int64_t i) {
    return hfft__cpu_claims(f->claim[h], i, &f->asked[h]);
}

void hfft__cpu_four_destroy(cpu_four *f) {
    if (!f)
        return;
    if (f->rows)
        hfft__lines_destroy(f->rows);
    const tile *t[2] = {&f->ta, &f->tb};
    for (int k = 0; k < 2; k++) {
        if (t[k]->plan)
            hfft__lines_destroy(t[k]->plan);
        if (t[k]->plan_one)
            hfft__lines_destroy(t[k]->plan_one);
    }
    hfft__twiddles_free(&f->tw);
    for (int k = 0; k < RING; k++)
        free(f->ring[k]);
    free((void *)f->rows_done);
    free((void *)f->tiles_done);
    for (int h = 0; h < 2; h++)
        free((void *)f->claim[h]);
    free(f);
}

/* n jobs split into about `threads` jobs: the jobs, and n's a job. */
static void split(int64_t n, int64_t threads, int64_t *jobs, int64_t *per) {
    int64_t k = n < threads ? n : threads;
    *per = (n + k - 1) / k;
    *jobs = (n + *per - 1) / *per;
}

int hfft__cpu_four(hfft__cpu *c, const hfft__cpu_four_desc *d, const void *in) {
    if (d->fa < 2 || d->fb < 2 || d->fa * d->fb != d->d0 || d->nb < 1 || d->pw * d->nb != d->row ||
        d->per < 1 || d->L * d->per != d->row || d->first[0] < 0 || d->first[0] > d->fb ||
        d->first[1] < 0 || d->first[1] > d->fa * d->nb ||
        (d->kind != HFFT__C2C && d->kind != HFFT__R2C))
        return hfft__fail(HFFT_ERR_INTERNAL, "CPU four-step share: a layout it cannot follow");
    cpu_four *f = calloc(1, sizeof *f);
    if (!f)
        return hfft__fail(HFFT_ERR_HOST_MEMORY, "CPU four-step share: out of memory");
    f->d = *d;
    size_t es = f->es = c->es;
    size_t rs = es / 2;
    f->in_index = d->kind == HFFT__R2C ? (size_t)(d->per * d->rpitch) * rs : (size_t)d->row * es;
    /* FFTW's aligned plans need every array they meet aligned as planned.  Real rows
       whose complex rows of nreal/2 + 1 do not start on cache lines are transformed
       into the thread's buffer, whose rows do, and copied to the group buffer
       (exec.c's real rounds do the same: FFTW's unaligned plans lack its vector code). */
    int real_ok = !c->unaligned && !((uintptr_t)in % 64) && f->in_index % 64 == 0 &&
                  ((size_t)d->rpitch * rs) % 64 == 0;
    int64_t ld = hfft__cpu_whole_lines(d->L, es);
    if (d->kind == HFFT__R2C && real_ok && ((size_t)d->L * es) % 64 &&
        (size_t)(d->per * ld) * es <= STAGE_MAX)
        f->stage_ld = ld;
    int una = !f->stage_ld && (c->unaligned || ((uintptr_t)in % 64) || f->in_index % 64 ||
                               ((size_t)d->row * es) % 64 ||
                               (d->kind == HFFT__R2C && ((size_t)d->rpitch * rs) % 64));
    hfft__lines_desc r;
    memset(&r, 0, sizeof r);
    r.prec = c->prec;
    r.sign = c->sign;
    r.rank = 1;
    r.kind = d->kind;
    r.n[0] = d->kind == HFFT__R2C ? d->nreal : d->L;
    r.is = r.os = 1;
    r.howmany = d->per;
    r.idist = d->kind == HFFT__R2C ? d->rpitch : d->L;
    r.odist = f->stage_ld ? f->stage_ld : d->L;
    /* (FFTW_MEASURE under HFFT_MEASURE: on scratch, as every measured plan of ours) */
    unsigned tf = c->measure ? hfft__fftw_measure() : hfft__fftw_estimate();
    r.fftw_flags = tf | (una ? hfft__fftw_unaligned() : 0u);
    int st = hfft__lines_plan(&r, &f->rows);
    if (!st)
        st = hfft__cpu_plan_tile(c, &f->ta, d->fa, d->row, d->row, tf, 0);
    if (!st)
        st = hfft__cpu_plan_tile(c, &f->tb, d->fb, d->fa * d->row, d->pw, tf, 0);
    if (!st)
        st = hfft__twiddles_make(d->d0, c->sign, &f->tw);
    if (!st)
        hfft__cpu_reserve(c, (size_t)(d->per * f->stage_ld) * es);
    if (!st)
        st = hfft__cpu_buffers(c, 0); /* the tiles', and staged rows' */
    if (!st) {
        f->nck = (d->pw + f->tb.B - 1) / f->tb.B;
        /* round A's jobs a group: its rows, and its tiles, each about one a thread */
        int64_t threads = hfft__pool_size(c->pool);
        split(d->fa, threads, &f->kr, &f->rper);
        split((d->row + f->ta.B - 1) / f->ta.B, threads, &f->kc, &f->tper);
        f->abytes = ((size_t)d->fa * (size_t)d->row * es + 63) & ~(size_t)63;
    }
    /* the group buffers, where the CPU has groups of round A */
    for (int k = 0; !st && d->first[0] < d->fb && k < RING; k++) {
        if (!(f->ring[k] = aligned_alloc(64, f->abytes)))
            st = hfft__fail(HFFT_ERR_HOST_MEMORY, "CPU four-step share: a %zu-byte group buffer",
                            f->abytes);
        else
            memset(f->ring[k], 0, f->abytes);
    }
    f->nunits[0] = d->fb - d->first[0];
    f->nunits[1] = d->fa * d->nb - d->first[1];
    if (!st && (!(f->rows_done = calloc((size_t)d->fb, sizeof *f->rows_done)) ||
                !(f->tiles_done = calloc((size_t)d->fb, sizeof *f->tiles_done)) ||
                /* (+ 1: never calloc(0), where the CPU has no units of a round) */
                !(f->claim[0] = calloc((size_t)f->nunits[0] + 1, sizeof *f->claim[0])) ||
                !(f->claim[1] = calloc((size_t)f->nunits[1] + 1, sizeof *f->claim[1]))))
        st = hfft__fail(HFFT_ERR_HOST_MEMORY, "CPU four-step share: out of memory");
    if (st) {
        hfft__cpu_four_destroy(f);
        return st;
    }
    hfft__cpu_four_destroy(c->four);
    c->four = f;
    return 0;
}

int64_t hfft__cpu_four_bytes(const hfft__cpu *c) {
    return c->four && c->four->ring[0] ? (int64_t)c->four->abytes * RING : 0;
}

static void wait_for(_Atomic int64_t *n, int64_t want) {
    while (atomic_load_explicit(n, memory_order_acquire) < want)
        sched_yield();
}

/*
 * Round A, job j over the CPU's groups: a group's kr row jobs, then its kc
 * tile jobs, which wait until its rows are done (hfft__cpu_interleaved); a
 * group's rows also wait until the tiles of the group RING before it, whose
 * buffer they take, are done: jobs handed out before them.
 */
static void job_a(const hfft__cpu *c, cpu_four *f, int64_t j, int thread) {
    const hfft__cpu_four_desc *d = &f->d;
    int64_t kr = f->kr, kc = f->kc, g, k;
    int rows = hfft__cpu_interleaved(j, kr, kc, d->fb - d->first[0], &g, &k);
    size_t rowb = (size_t)d->row * f->es;
    char *b = f->ring[g % RING];
    int64_t q = d->first[0] + g;
    if (rows) {
        if (!cpu_takes(f, 0, g))
            return; /* the GPU took this group back */
        if (g >= RING)
            wait_for(&f->tiles_done[g - RING], kc);
        size_t line = (size_t)d->L * f->es, ld = (size_t)f->stage_ld * f->es;
        for (int64_t p = k * f->rper; p < (k + 1) * f->rper && p < d->fa; p++) {
            char *src = (char *)c->src + (size_t)(q + d->fb * p) * f->in_index;
            char *o = b + (size_t)p * rowb, *buf = c->buf[thread];
            if (!f->stage_ld) {
                hfft__lines_exec(f->rows, src, o);
                continue;
            }
            hfft__lines_exec(f->rows, src, buf);
            for (int64_t i = 0; i < d->per; i++)
                memcpy(o + (size_t)i * line, buf + (size_t)i * ld, line);
        }
        atomic_fetch_add_explicit(&f->rows_done[g], 1, memory_order_release);
        return;
    }
    /* a group the GPU took back has its rows counted done by the taker (after its
       claim), so that this wait ends; its tiles are then the GPU's */
    wait_for(&f->rows_done[g], kr);
    if (atomic_load_explicit(&f->claim[0][g], memory_order_acquire) == GPU_CLAIM)
        return;
    int64_t i0 = k * f->tper * f->ta.B, i1 = i0 + f->tper * f->ta.B;
    hfft__cpu_tiles(c, &f->ta, NULL, b, c->dst + (size_t)(d->fa * q) * rowb, i0,
                    i1 < d->row ? i1 : d->row, thread, 1);
    atomic_fetch_add_explicit(&f->tiles_done[g], 1, memory_order_release);
    atomic_fetch_add_explicit(&f->done[0], 1, memory_order_relaxed);
}

/* Round B: tile k of piece u of the CPU's: rows fa q + k1 (q < fb) times
   W_d0^(q k1), the fb-point columns, back in place. */
static void job_b(const hfft__cpu *c, cpu_four *f, int64_t u, int64_t k, int thread) {
    const hfft__cpu_four_desc *d = &f->d;
    if (!cpu_takes(f, 1, u - d->first[1]))
        return; /* the GPU took this piece back */
    int64_t k1 = u / d->nb, c0 = (u % d->nb) * d->pw;
    int64_t i0 = k * f->tb.B, i1 = i0 + f->tb.B < d->pw ? i0 + f->tb.B : d->pw;
    /* columns counted from the piece's first, so that tiles are whole within it */
    char *base = c->dst + (size_t)(k1 * d->row + c0) * f->es;
    hfft__cpu_tiles_pre(c, &f->tb, &f->tw, k1, base, base, i0, i1, thread, 1);
    atomic_fetch_add_explicit(&f->done[1], 1, memory_order_relaxed);
}

static void four_job(void *ctx, int64_t j, int thread) {
    hfft__cpu *c = ctx;
    cpu_four *f = c->four;
    if (c->h == 0)
        job_a(c, f, j, thread);
    else
        job_b(c, f, f->d.first[1] + j / f->nck, j % f->nck, thread);
}

int hfft__cpu_four_start(hfft__cpu *c, int h, const void *src, void *dst) {
    cpu_four *f = c->four;
    c->h = h;
    c->src = src;
    c->dst = dst;
    int64_t groups = f->d.fb - f->d.first[0];
    for (int64_t g = 0; h == 0 && g < groups; g++) {
        atomic_store_explicit(&f->rows_done[g], 0, memory_order_relaxed);
        atomic_store_explicit(&f->tiles_done[g], 0, memory_order_relaxed);
    }
    for (int64_t i = 0; i < f->nunits[h]; i++)
        atomic_store_explicit(&f->claim[h][i], FREE, memory_order_relaxed);
    atomic_store_explicit(&f->done[h], 0, memory_order_relaxed);
    f->taken[h] = 0;
    atomic_store_explicit(&f->asked[h], 0, memory_order_relaxed);
    f->t0[h] = hfft__now();
    int64_t jobs = h == 0 ? groups * (f->kr + f->kc) : (f->d.fa * f->d.nb - f->d.first[1]) * f->nck;
    return hfft__pool_start(c->pool, jobs > 0 ? jobs : 0, four_job, c);
}

/*
 * The GPU's side of round h ends in about left_s seconds and took unit_s a unit:
 * of the CPU's units that no job has started, the last n (below any the GPU
 * took already) go to the GPU, n the count that makes both sides end soonest by
 * their rates so far (the CPU's: the units it finished since the round began, in
 * tile jobs; none finished, as if it had taken the round so far for one).
 * Claimed from the end down (hfft__cpu_take_claims): the units taken are
 * [*first, *first + n) of the CPU's units (groups of round A, pieces of round
 * B).  Called by the thread that drives the GPU while the pool runs the round.
 */
static int64_t take(cpu_four *f, int h, double unit_s, double left_s, int64_t *first) {
    int64_t total = f->nunits[h];
    /* units done, from the tile jobs done (a group's rows come before its tiles, so
       this counts a group only as its tiles go) */
    double done = (double)atomic_load_explicit(&f->done[h], memory_order_relaxed) /
                  (double)(h ? f->nck : f->kc);
    int64_t n = hfft__cpu_take_claims(f->claim[h], total, 1, 1, 1, (double)total, done,
                                      hfft__now() - f->t0[h], unit_s, left_s, first);
    /* round A: tile jobs of a group taken back may wait for its rows; they end, see
       the claim, and leave the group to the GPU */
    for (int64_t i = *first; h == 0 && i < *first + n; i++)
        atomic_store_explicit(&f->rows_done[i], f->kr, memory_order_release);
    return n;
}

/* (exec.h) */
int64_t hfft__cpu_four_take(hfft__cpu *c, int h, double unit_s, double left_s, int64_t *first) {
    cpu_four *f = c->four;
    *first = 0;
    if (!f || h < 0 || h > 1 || c->h != h || f->nunits[h] < 1)
        return 0;
    int64_t k, n = take(f, h, unit_s, left_s, &k);
    atomic_store_explicit(&f->asked[h], 1, memory_order_release);
    f->taken[h] += n;
    *first = f->d.first[h] + k; /* below any the GPU took already */
    return n;
}

int64_t hfft__cpu_four_taken(const hfft__cpu *c, int h) {
    return c->four && h >= 0 && h < 2 ? c->four->taken[h] : 0;
}

double hfft__cpu_four_gpu_share(const hfft__cpu *c, int h) {
    if (!c->four || h < 0 || h > 1)
        return -1;
    const cpu_four *f = c->four;
    int64_t all = h ? f->d.fa * f->d.nb : f->d.fb;
    return (double)(f->d.first[h] + f->taken[h]) / (double)all;
}
