/*
 * cpu.h: the CPU engine, for the planner and for the parts of the GPU side
 * that run host work (staged copies, the emulated device):
 *   - the pool: worker threads bound to cores with hwloc;
 *   - lines: batched FFTW transforms on host memory, by precision;
 *   - the round executor: any range of a round's units on the pool.
 * Includes only the ground headers (src/core/).
 */
#ifndef HFFT_CPU_H
#define HFFT_CPU_H

#include <stddef.h>
#include <stdint.h>

#include "src/core/problem.h"

/* ---- the pool (pool.c) ----
 * Threads bound with hwloc; `reserve` cores are left free (the GPU feeder).
 * Thread safety: one batch at a time per pool; start and wait from one thread
 * (the pool's owner).  hfft__cores and hfft__cache_bytes are thread safe. */
typedef struct hfft__pool hfft__pool;
int hfft__pool_create(int threads, int reserve, hfft__pool **out);
void hfft__pool_destroy(hfft__pool *p);
int hfft__pool_size(const hfft__pool *p);
typedef void (*hfft__job_fn)(void *ctx, int64_t job, int thread);
/* Starts njobs jobs (fewer than 2^32); returns at once, or a failure where there are
   too many (nothing started).  hfft__pool_wait blocks until all ran. */
int hfft__pool_start(hfft__pool *p, int64_t njobs, hfft__job_fn fn, void *ctx);
void hfft__pool_wait(hfft__pool *p);
/* Starts njobs jobs and runs them on the calling thread too, as thread `self` (a
   number no worker has: hfft__pool_size or more), until all ran; or fails as
   hfft__pool_start does. */
int hfft__pool_help(hfft__pool *p, int64_t njobs, hfft__job_fn fn, void *ctx, int self);
/* Runs fn(ctx, t, t) once on each thread t and waits: per-thread memory is
   allocated and first touched this way, on the core that will use it. */
void hfft__pool_each(hfft__pool *p, hfft__job_fn fn, void *ctx);
/* When the last job of the last batch finished (hfft__now's clock). */
double hfft__pool_done_at(hfft__pool *p);
int hfft__cores(void);
/* Bytes of the last-level cache, which the pool's threads share (hwloc). */
size_t hfft__cache_bytes(void);

/* ---- batched FFTW transforms on host memory (lines.c) ----
 * Planning holds one process-wide lock (FFTW's planner is not thread safe);
 * executing a plan is thread safe on distinct arrays.  The creator destroys. */
typedef struct hfft__lines hfft__lines;
typedef struct hfft__lines_desc {
    int prec, rank, sign;
    int kind;              /* HFFT__C2C, or HFFT__R2C / HFFT__C2R (n: the real sizes) */
    int r2r;               /* C2C lines of an r2r problem's pairs of reals: their r2r code
                              (src/core/problem.h): FFTW's r2r of the real lines they hold */
    int64_t n[3];          /* row-major shape of one transform, rank 1 to 3 */
    int64_t is, os;        /* element stride of the (last) dimension, in each side's elements */
    int64_t ipitch, opitch; /* elements between rows of each side (0: the last n) */
    int64_t howmany, idist, odist;
    int inplace;
    unsigned fftw_flags;   /* FFTW_ESTIMATE/FFTW_MEASURE and FFTW_UNALIGNED */
    void *plan_in, *plan_out; /* plan on these instead of scratch (MEASURE overwrites them) */
    int nthreads;          /* FFTW's own threads for this plan (0 or 1: none) */
} hfft__lines_desc;
int hfft__lines_plan(const hfft__lines_desc *d, hfft__lines **out);
void hfft__lines_exec(hfft__lines *l, void *in, void *out);
void hfft__lines_destroy(hfft__lines *l);
unsigned hfft__fftw_estimate(void);
unsigned hfft__fftw_measure(void);
unsigned hfft__fftw_unaligned(void);
const char *hfft__fftw_version(void);
/* FFTW's wisdom of precision prec (4 or 8) from a file that FFTW exported: 1, or 0
   where there is none or FFTW refused it (another FFTW's, corrupt); planning goes
   on either way.  Once per process for a path.  The export writes what this
   process's FFTW holds of that precision (0, or HFFT_ERR_IO). */
int hfft__fftw_wisdom_import(int prec, const char *path);
int hfft__fftw_wisdom_export(int prec, const char *path);

/* ---- FFTW's plan of a whole guru problem, on its own threads (guru.c) ----
 * Any kind, interleaved or split arrays, any strides.  Planning holds the FFTW
 * lock; executing is thread safe on distinct arrays.  The creator destroys. */
#define HFFT__WHOLE_MEASURE 1u   /* FFTW_MEASURE (overwrites the arrays) */
#define HFFT__WHOLE_PRESERVE 2u  /* FFTW_PRESERVE_INPUT */
#define HFFT__WHOLE_DESTROY 4u   /* FFTW_DESTROY_INPUT */
#define HFFT__WHOLE_UNALIGNED 8u /* FFTW_UNALIGNED */
typedef struct hfft__whole hfft__whole;
/* Plans pb's transform on the arrays in and out ([1]: imaginary parts of split arrays). */
int hfft__whole_plan(const hfft__problem *pb, void *const in[2], void *const out[2],
                     unsigned flags, int nthreads, hfft__whole **res);
void hfft__whole_exec(hfft__whole *w, int sign, void *const in[2], void *const out[2]);
void hfft__whole_destroy(hfft__whole *w);
/* Whether the whole plan takes a double line of a large prime factor through
   Bluestein's algorithm, as the rounds do: one dimension, at most one vector
   dimension, interleaved arrays.  Elsewhere its lines are FFTW's own. */
static inline int hfft__whole_takes_chirp(const hfft__problem *pb) {
    return pb->rank == 1 && pb->hrank <= 1 && !pb->split_in && !pb->split_out;
}

/* ---- the round executor (exec.c) ----
 * Owned by one plan; one batch in flight at a time, started and finished by
 * the plan's executing thread. */
typedef struct hfft__cpu hfft__cpu;
#define HFFT__CPU_MEASURE 1u   /* FFTW_MEASURE plans (on scratch) */
#define HFFT__CPU_UNALIGNED 2u /* arrays of any alignment at execute (new-array execute) */
/* inplace[h]: round h reads and writes one array (its src and dst at execute);
   in and out: the arrays planned for (their alignment). */
int hfft__cpu_create(int prec, int sign, int nrounds, const hfft__round *rounds,
                     const int *inplace, unsigned flags, hfft__pool *pool, void *in, void *out,
                     hfft__cpu **out_cpu);
void hfft__cpu_destroy(hfft__cpu *c);
/* Runs units [u0, u1) of round h from src to dst on the pool (asynchronously). */
int hfft__cpu_start(hfft__cpu *c, int h, const void *src, void *dst, int64_t u0, int64_t u1);
int hfft__cpu_finish(hfft__cpu *c);
/* Whether a CPU-only plan should cut `lines` lines of n = n0 n1 elements
   (es bytes each) four-step: where FFTW's plan of a line would run out of
   cache and the lines are too few to give each thread its own. */
int hfft__cpu_splits(int64_t n0, int64_t n1, int64_t lines, size_t es, int threads);
int64_t hfft__cpu_host_bytes(const hfft__cpu *c);
/* While round h runs: the GPU, about to end its units in left_s seconds at unit_s
   a unit, takes back the CPU's last units that no thread has started, as many as
   make both sides end soonest; returns how many, the first of them at *first
   (the round's lines, columns or planes; with a four-step share, round A's groups
   or round B's pieces).  Safe to call from several threads (cards) at once, except
   for a four-step share (one card).  Rounds written transposed (r.tout) give none. */
int64_t hfft__cpu_take(hfft__cpu *c, int h, double unit_s, double left_s, int64_t *first);
/* Units of round h the GPU took back in the last execute. */
int64_t hfft__cpu_taken(const hfft__cpu *c, int h);
/* The share of round h's units the GPU did in the last execute, those taken back
   included; -1 where the CPU had no part of the round. */
double hfft__cpu_gpu_share(const hfft__cpu *c, int h);

/* ---- a share of a four-step streaming plan (four.c) ----
 * Where the GPU streams a two-round plan four-step (gpu/fourstep.c), the CPU's
 * share of each round follows that layout instead of the plan's rounds:
 * d0 = fa fb; round A (h 0) takes groups [first[0], fb): the rows of input
 * indices q + fb p (p < fa; `per` rows of L complex elements an index, `row`
 * in all; R2C: rows of nreal reals, rpitch apart on the input), transformed,
 * and the fa-point lines across them, to output rows fa q + k1; round B (h 1)
 * takes pieces [first[1], fa nb): piece u is columns [(u % nb) pw, + pw) of
 * rows fa q + u / nb, q < fb, times W_d0^(q (u / nb)), then the fb-point
 * lines along q, in place.  After it, hfft__cpu_start runs these for h 0 and
 * 1 (its range arguments unused). */
typedef struct hfft__cpu_four_desc {
    int64_t d0, fa, fb, row, per, nb, pw;
    int64_t first[2];
    int kind; /* the rows: HFFT__C2C or HFFT__R2C */
    int64_t L, nreal, rpitch;
} hfft__cpu_four_desc;
/* in: the input array planned for (its alignment). */
int hfft__cpu_four(hfft__cpu *c, const hfft__cpu_four_desc *d, const void *in);

/* ---- host memory (memory.c) ----
 * The host memory bandwidth as the pool's threads see it, the figure that CPU
 * rounds and the link share: each thread copies its share of `bytes` (first
 * touched by that thread) with the executor's streaming stores; the best of
 * `reps` copies, as bytes read plus bytes written per second (STREAM's
 * convention).  Holds the pool while it runs. */
int hfft__host_bandwidth(hfft__pool *p, size_t bytes, int reps, double *bytes_per_s);

#endif
