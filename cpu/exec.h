/*
 * exec.h: the CPU executor's insides, private to cpu/: a round's mode and
 * plans, the executor's state, and the tile and transposed-row kernels that
 * tiles.c holds and exec.c's jobs call.
 */
#ifndef HFFT_CPU_EXEC_H
#define HFFT_CPU_EXEC_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "cpu/cpu.h"
#include "cpu/twiddle.h"

enum { MODE_TILE, MODE_STRIDED, MODE_CONTIG, MODE_PLANE, MODE_TOUT };

#define TILE_BYTES (1u << 20)  /* a tile's buffer: what a core's L2 cache holds */
#define ROW_MIN 128            /* bytes a tile takes from each row at least: a pair of cache
                                  lines, as the adjacent-line prefetcher fetches them */
#define ROW_MAX 1024           /* and at most: wider rows only grow the buffer */
#define TILE_MAX (4u << 20)    /* never a larger buffer: long columns take fewer at a time */
#define COLUMN_MAX (4u << 20)  /* longer columns are transformed where they lie */
#define PLANE_ROWS (512u << 10) /* bytes of a plane's rows per job */
#define LINES_BYTES (1u << 20) /* bytes of contiguous lines per job */
#define RUN 1024               /* bytes of each row a job's run of tiles covers */
#define STEP 8                 /* rows per step of a tile's transposes */
#define AHEAD 16               /* rows the gather prefetches ahead: hardware prefetchers stop
                                  at page boundaries, and a tile's rows are pages apart */
#define MAX_SCRATCH_PLAN (256u << 20)
#define STAGE_MAX (16u << 20)  /* a thread's block of staged real rows at most */
#define TOUT_RUN 128           /* bytes of each output column a transposed write covers: the
                                  rows of a four-step group a job takes */

/* Neighbouring columns of L elements, `pitch` elements between rows, taken B
   at a time into a buffer where column c starts at element c * ld. */
typedef struct tile {
    int64_t L, pitch, B, ld;
    int blocks;            /* the gather moves square blocks through 256-bit registers (tiles.c) */
    hfft__lines *plan;     /* B columns */
    hfft__lines *plan_one; /* one column: tiles cut short by the range */
} tile;

typedef struct cpu_round {
    hfft__round r;
    int mode;
    int inplace;
    int stream;               /* tiles scatter with streaming stores */
    int64_t blk;              /* columns (tile, strided), lines (contig) or plane rows per job */
    size_t sline, dline;      /* contiguous rounds: bytes between lines on each side (a real
                                 side's lines are rows of rpitch reals) */
    tile t;                   /* tile rounds, and the columns of planes */
    hfft__lines *plan;        /* lines (contig), a plane's rows, long columns (strided) */
    hfft__lines *plan_one;    /* one line or row: short blocks */
    int64_t kr, kc;           /* planes: row jobs and column-tile jobs per plane */
    _Atomic int64_t *rows_done; /* planes: row jobs finished, per plane of the batch */
    hfft__twiddles tw;        /* four-step rounds (r.twn): the twiddle tables */
    int64_t ld;               /* transposed rows (r.tout): elements between rows in the buffer */
    int64_t stage_ld;         /* real rows staged (0: none): complex elements between rows in
                                 the thread's buffer, whose rows start on cache lines */
} cpu_round;

typedef struct cpu_four cpu_four;

struct hfft__cpu {
    int prec;
    int sign;
    int unaligned; /* FFTW plans of the arrays' lines take any alignment (HFFT_UNALIGNED) */
    int measure;   /* FFTW_MEASURE plans, on scratch (HFFT_MEASURE) */
    size_t es;
    int nrounds;
    cpu_round rd[HFFT__MAX_ROUNDS];
    hfft__pool *pool;
    char **buf;
    size_t buf_bytes; /* what the plans need a buffer to hold */
    size_t buf_alloc; /* what each buffer holds */
    /* the batch in flight */
    int h;
    const char *src;
    char *dst;
    int64_t u0, u1, nblk, b0;
    cpu_four *four; /* a four-step plan's share (four.c), or NULL */
    /* The GPU's take-back (exec.c) of the batch in flight: a claim per unit of it
       (a job's block of lines, a block of columns, a plane), set once by the side
       that starts it; jobs finished; when it started; units taken back per round */
    _Atomic int *claim;
    int64_t nclaim, claim_cap;
    _Atomic int64_t jobs_done;
    _Atomic int asked; /* the GPU asked, this batch (hfft__cpu_late) */
    double t0;
    int64_t first[HFFT__MAX_ROUNDS]; /* each round's first unit of the CPU's, last batch
                                        (-1: none yet) */
    int64_t taken[HFFT__MAX_ROUNDS];
    pthread_mutex_t take_mu; /* several cards may ask at once */
    int mu_ok;
};

/* A unit's claim (exec.c, four.c): FREE until the CPU starts it or the GPU takes it. */
enum { FREE, CPU_CLAIM, GPU_CLAIM };
/* Claims unit i of claims for the CPU: 0 where the GPU took it first.  Where
   hfft__cpu_late is set (tests), first waits until *asked (or a second). */
int hfft__cpu_claims(_Atomic int *claims, int64_t i, _Atomic int *asked);
/* The GPU's take-back over a batch's claims [0, total), each of u round units (the
   first of first_u, the last of last_u): of the FREE claims just below any the GPU
   took already, the top n,
   n the count that ends both sides soonest, the GPU's side ending in left_s at unit_s a
   round unit, the CPU's having done `done` of its `all` round units in `elapsed`
   seconds (none: as if the time so far had been one claim's).  Claimed from the
   top down, stopping at one the CPU holds; returns n, the first at *first. */
int64_t hfft__cpu_take_claims(_Atomic int *claims, int64_t total, double u, double first_u,
                              double last_u, double all, double done, double elapsed, double unit_s,
                              double left_s, int64_t *first);

/* The same, each column's element k first times W^(k pre_j) (tiles.c). */
void hfft__cpu_tiles_pre(const hfft__cpu *c, const tile *t, const hfft__twiddles *pre,
                         int64_t pre_j, const char *src, char *dst, int64_t i0, int64_t i1,
                         int thread, int stream);
/* Jobs over n items (planes, groups), each kr row jobs then kc tile jobs that wait
   for that item's rows, interleaved: job j's item and its index among the item's
   row or tile jobs; 1 for a row job (tiles.c). */
int hfft__cpu_interleaved(int64_t j, int64_t kr, int64_t kc, int64_t n, int64_t *item, int64_t *k);

/* Each pool thread's buffer at least `bytes`, or what the plans so far need where
   that is more; and giving them back (tiles.c). */
int hfft__cpu_buffers(hfft__cpu *c, size_t bytes);
void hfft__cpu_free_buffers(hfft__cpu *c);
/* A tile round's plans for columns of L elements, pitch apart, ni of them; L
   rounded up to an odd number of cache lines (tiles.c). */
int hfft__cpu_plan_tile(hfft__cpu *c, tile *t, int64_t L, int64_t pitch, int64_t ni,
                        unsigned flags, int r2r);
int64_t hfft__cpu_padded(int64_t L, size_t es);
/* L elements rounded up to whole cache lines (tiles.c). */
int64_t hfft__cpu_whole_lines(int64_t L, size_t es);
/* What each thread's buffer must hold at least, for a plan about to be made: the
   buffers are allocated once every plan has said (hfft__cpu_buffers). */
void hfft__cpu_reserve(hfft__cpu *c, size_t bytes);
/* four.c */
void hfft__cpu_four_destroy(cpu_four *f);
int hfft__cpu_four_start(hfft__cpu *c, int h, const void *src, void *dst);
int64_t hfft__cpu_four_bytes(const hfft__cpu *c);
/* hfft__cpu_take and the figures after it, for a four-step share (units: round
   A's groups, round B's pieces) */
int64_t hfft__cpu_four_take(hfft__cpu *c, int h, double unit_s, double left_s, int64_t *first);
int64_t hfft__cpu_four_taken(const hfft__cpu *c, int h);
double hfft__cpu_four_gpu_share(const hfft__cpu *c, int h);

/* Columns [i0, i1) of tile round t (its column 0 at src and dst, which may be one
   array) through thread's buffer; with tw, each column's four-step twiddles;
   with stream, scattered with streaming stores where the rows allow (tiles.c). */
void hfft__cpu_tiles(const hfft__cpu *c, const tile *t, const hfft__twiddles *tw, const char *src,
                     char *dst, int64_t i0, int64_t i1, int thread, int stream);
/* Job j of a transposed-rows round (r.tout) of the batch in flight (tiles.c). */
void hfft__cpu_tout_job(const hfft__cpu *c, const cpu_round *cr, int64_t j, int thread);

#endif
