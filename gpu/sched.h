/*
 * sched.h: what the GPU engine's schedule files share (engine.c sizes and
 * runs rounds; plain.c, radix2.c, longline.c and fourstep.c each hold one schedule kind;
 * pass.c what all of them use).
 * Private to gpu/: the planner sees gpu/engine.h only.  Everything here is
 * driven by the engine's one thread.
 */
#ifndef HFFT_GPU_SCHED_H
#define HFFT_GPU_SCHED_H

#include <stddef.h>
#include <stdint.h>

#include "gpu/cards.h"
#include "gpu/engine.h"
#include "gpu/xfer.h"
#include "gpu/stage.h"
#include "src/core/device.h"
#include "src/core/problem.h"
#include "src/core/status.h"

typedef struct hfft__gpu hfft__gpu;
typedef struct hfft__four hfft__four;

typedef struct rstate rstate;
/*
 * A round's pass schedule, one table per kind (plain.c, radix2.c, longline.c,
 * fourstep.c): what the engine asks of it, chosen once when the round is sized.
 */
typedef struct pass_kind {
    const char *name;    /* "plain", "radix-2", "long-line", "four-step" */
    int schedule;        /* its enum hfft_schedule_kind */
    int pipelined;       /* waits for the round before by itself (its copies out, its
                            buffers' reuse): rounds meet without a drain */
    int shares;          /* takes a card's share from any unit, not only the first */
    int stages;          /* copies through staging slots where the arrays are pageable */
    /* Issues round h's passes from src to dst; *pass: the passes issued. */
    int (*run)(hfft__gpu *g, rstate *r, int h, const char *src, char *dst, int64_t *pass);
    /* Passes of the round (its outer count apart). */
    int64_t (*passes)(const hfft__gpu *g, const rstate *r, int h);
} pass_kind;
extern const pass_kind hfft__plain_kind, hfft__radix2_kind, hfft__long_kind, hfft__four_kind;

#define NSLOT 8     /* device buffers at most */
#define NSTREAM 8   /* streams and cuFFT plans */
#define NCHUNK 8    /* copy chunks per plain pass */
#define MAX_LEVELS 48
#define MIB (1024.0 * 1024.0)
#define TRY HFFT__TRY

/* One round as the engine runs it. */
struct rstate {
    hfft__round r;
    int64_t units;                  /* this card's units [u0, u0 + units) */
    int64_t u0;
    int inplace;                    /* src == dst when this round runs */
    const pass_kind *kind;          /* NULL: no units on this card */
    int transpose;                  /* strided passes computed as contiguous lines */
    int64_t wc;                     /* transposed compute: columns per chunk */
    int64_t cb;                     /* contiguous: lines per chunk (copies and compute) */
    int64_t blk;                    /* columns (strided) or lines (contiguous) per pass */
    hfft__fftplan plan[NSTREAM];
    int nplan;
    /* long lines */
    int nlev;
    int radix[MAX_LEVELS];
    int64_t leaf;                   /* leaf transform length */
    int64_t wcols;                  /* columns per top-level batch */
    int64_t ccols;                  /* combination: columns per chunk */
};

struct hfft__gpu {
    hfft__cards base; /* one card streaming as a plan's GPU side (engine.c) */
    const hfft__dev_ops *ops;
    hfft__dev *d;
    int prec, sign, inplace;
    int share_four; /* four-step may share its rounds with the CPU (one card) */
    int card, cards; /* card `card` of `cards` streaming every unit between them (0: one) */
    int no_four;     /* the plain schedule even where four-step applies (cards.c) */
    size_t es;
    size_t cap;                     /* bytes per slot buffer */
    size_t work_bytes;
    int nwork;
    int nslot;                      /* pass buffers in flight */
    void *buf[NSLOT];
    void *work[NSTREAM];
    hfft__stream stream[NSTREAM + 1]; /* plain: [0] copies in, [1] out, the last computes */
    hfft__event ev[3 * NSTREAM];
    /* plain passes: per buffer and chunk, the copy in landed, the compute done,
       the copy out done (with the byte where that copy out chunk ended) */
    hfft__event in_ev[NSLOT][NCHUNK], comp_ev[NSLOT][NCHUNK], out_ev[NSLOT][NCHUNK];
    size_t out_end[NSLOT][NCHUNK];
    int out_n[NSLOT];
    int64_t piped;                  /* plain passes issued since everything was idle */
    /* The last pass of the round before, still in flight (the round ended without a
       drain): each chunk of its copy out, the host bytes it wrote, and an event. */
    hfft__event prev_out[NCHUNK];
    const char *prev_lo[NCHUNK], *prev_hi[NCHUNK];
    int nprev, pending_prev;          /* recorded by the round before; by this round so far */
    int last_pass;                  /* the pass being issued is its round's last */
    hfft__event last_in;            /* the last plain pass issued: its copy in landed, */
    int64_t last_w;                 /* and its columns or lines */
    void *tbuf[NSLOT];              /* four-step, natural order: each slot's lines transposed */
    void *tb;                       /* transposed compute: scratch of wc lines */
    size_t tb_bytes;
    int nrounds;
    rstate rd[HFFT__MAX_ROUNDS];
    void *scratch;                  /* host, pinned: in-place long lines */
    size_t scratch_bytes;
    int64_t passes[HFFT__MAX_ROUNDS];
    int fixed_passes;               /* options.pass_bytes set: passes of that size */
    hfft__xfer xfer;                  /* the card's link: staging, bytes copied */
    /* partial residency (resident.c): the last rw columns of every row (of the card's
       columns, on several cards) */
    void *res;
    int64_t rw, rwb, rcol;          /* resident columns, per block; the first of them */
    hfft__fftplan rplan[2];
    hfft__event res_ev;
    /* round 2's columns by card, where any card keeps some (0 parts: none does) */
    hfft__res_part rpart[HFFT_MAX_CARDS];
    int nrpart;
    hfft__four *four;               /* the four-step streaming schedule (both rounds) */
    hfft__take_fn take;             /* a CPU share's units that four-step may take back */
    void *take_ctx;
    /* Timed events at each round's end on the copy-out stream (round_end[0]: the start of
       round 0's copy in), so that rounds that meet without a drain still get each
       its own time; rec counts those recorded by the execute in flight. */
    hfft__event round_end[HFFT__MAX_ROUNDS + 1];
    int rec;
};

/* Strided lines of a round, from src (row pitch ss elements) to dst (ds). */
typedef struct view {
    const char *src;
    int64_t ss;
    char *dst;
    int64_t ds;
} view;

/* pass.c */
/* n cuFFT plans for the round's tiles (see pass.c); reports the largest work area. */
int hfft__sched_make_plans(hfft__gpu *g, rstate *r, int n, int64_t L, int64_t batch, size_t *work);
void hfft__sched_destroy_plans(hfft__gpu *g, rstate *r);
/* One cuFFT plan (the backend's fft_plan with the engine's precision and sign); *work
   raised to its work area where that is larger. */
int hfft__sched_plan(hfft__gpu *g, hfft__fftplan *p, int kind, int rank, const int64_t *n,
                     int64_t stride, int64_t dist, int64_t batch, size_t *work);
/* Frees the passes' buffers, scratch, work areas and plans. */
void hfft__sched_release(hfft__gpu *g);
/* Waits for everything issued; every buffer is idle afterwards. */
int hfft__sched_sync(hfft__gpu *g);
/* Copies between host and device, straight or staged, counted in g->link. */
int hfft__sched_h2d(hfft__gpu *g, hfft__stream s, void *dev, size_t dpitch, const char *host,
                    size_t hpitch, size_t width, size_t rows);
int hfft__sched_d2h(hfft__gpu *g, hfft__stream s, char *host, size_t hpitch, const void *dev,
                    size_t dpitch, size_t width, size_t rows);
/* w strided columns of a tile (row pitch `pitch` elements) computed transposed
   through the scratch g->tb, wc at a time, with plan (wc contiguous lines). */
int hfft__sched_columns(hfft__gpu *g, hfft__fftplan plan, char *tile, int64_t pitch, int64_t L,
                        int64_t w, int64_t wc);

/* plain.c: whole lines per pass through the rotating slot buffers */
int hfft__plain_size(hfft__gpu *g, rstate *r, int64_t L, size_t *work, int *nwork);
int hfft__plain_round(hfft__gpu *g, rstate *r, const char *src, char *dst, int64_t *pass);
int hfft__plain_strided(hfft__gpu *g, rstate *r, view v, int64_t L, int64_t c_first, int64_t cols,
                        int64_t *pass);
/* Passes the round splits into; the largest chunk one copy moves, in bytes. */
int64_t hfft__plain_passes(const hfft__gpu *g, const rstate *r);
size_t hfft__plain_chunk_bytes(const hfft__gpu *g, const rstate *r);

/* radix2.c: the 2013 four-subsequence split inside a pass */
int hfft__radix2_size(hfft__gpu *g, rstate *r, size_t cap, size_t *work, int *nwork);
int hfft__radix2_round(hfft__gpu *g, rstate *r, const char *src, char *dst, int64_t *pass);

/* fourstep.c: out-of-place two-round plans streamed as runs of whole rows */
/* 0 and g->four (both rounds four-step) where it applies and fits `budget`; 1 where not. */
int hfft__four_size(hfft__gpu *g, int64_t budget);
/* Round h (0: from src into dst, 1: in place on dst), issued, not waited for. */
int hfft__four_round(hfft__gpu *g, int h, const char *src, char *dst);
int64_t hfft__four_passes(const hfft__gpu *g, int h);
int hfft__four_layout(const hfft__gpu *g, hfft__four_shape *s);
void hfft__four_destroy(hfft__gpu *g);
/* Bytes of round A's output kept on the device between the rounds (0: none). */
int64_t hfft__four_resident_bytes(const hfft__gpu *g);
int hfft__four_own_part(const hfft__gpu *g, hfft__four_part *p);
int hfft__res_own_part(const hfft__gpu *g, hfft__res_part *p);
void hfft__res_set_parts(hfft__gpu *g, const hfft__res_part *parts, int n);
void hfft__four_set_parts(hfft__gpu *g, const hfft__four_part *parts, int n);

/* resident.c: partial residency for two-round streaming plans */
int hfft__res_eligible(const hfft__gpu *g);
/* The pass size that keeps column rows wide while leaving room to the residents. */
size_t hfft__res_pass_bytes(const hfft__gpu *g);
/* After the passes are allocated: the resident columns in what is left, or none. */
int hfft__res_size(hfft__gpu *g);
void hfft__res_release(hfft__gpu *g);
/* Round 1's resident columns: copied in, transformed, kept. */
int hfft__res_round1(hfft__gpu *g, const char *src);

/* longline.c: lines longer than a pass, by decimation in time */
int hfft__long_size(hfft__gpu *g, rstate *r, size_t cap, size_t *work, int *nwork);
int hfft__long_round(hfft__gpu *g, rstate *r, const char *src, char *dst, int64_t *pass);

#endif
