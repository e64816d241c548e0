/*
 * engine.h: the GPU engine, as the planner sees it.  A GPU engine is made for
 * one plan's rounds and the units of each that the GPU takes; it owns its
 * device buffers, streams and cuFFT plans, sized at creation inside the
 * device budget, and runs one round at a time between host arrays.
 *
 * Thread safety: an engine belongs to one plan: one call at a time.
 */
#ifndef HFFT_GPU_ENGINE_H
#define HFFT_GPU_ENGINE_H

#include <stdint.h>

#include "hfft.h"
#include "src/core/device.h"
#include "src/core/problem.h"

typedef struct hfft__gpu hfft__gpu;
typedef struct hfft__gpu_req {
    int prec, sign, nrounds;
    const hfft__round *rounds;
    int64_t units[HFFT__MAX_ROUNDS]; /* units each round gives this card: [lo, lo + units) */
    int64_t lo[HFFT__MAX_ROUNDS];    /* (lo > 0: no one trip; the plain schedule unless
                                        cards is set) */
    int schedule;       /* 0 auto (one trip where the array fits), 1 plain, 2 radix-2 */
    int64_t pass_bytes; /* 0 auto */
    int slots;          /* pass buffers in flight; 0 auto */
    int inplace;
    int round_inplace[HFFT__MAX_ROUNDS]; /* round h reads and writes one host array */
    int share_four; /* four-step streaming may share its rounds with the CPU (one card) */
    /* Several cards streaming every unit of every round between them (cards.c): this
       is card `card` of `cards`, and four-step streaming, where it applies, cuts its
       own units between them the same way on every card (0: one card, or the plain
       schedule's shares lo and units only). */
    int card, cards;
    int no_four; /* several cards: the plain schedule even where four-step applies */
} hfft__gpu_req;

/* A four-step streaming plan's layout between its rounds, which a CPU share
   follows (cpu/four.c): d0 = fa fb; round A's units are the fb groups of rows
   q + fb p (fa dimension-0 indices of `row` complex elements each, `per` rows
   of the row round), written to rows fa q + k1; round B's are fa nb pieces
   (piece u: columns [(u % nb) pw, + pw) of rows fa q + u / nb, q < fb).  The
   GPU takes units [0, gpu[x]) of round x. */
typedef struct hfft__four_shape {
    int z;
    int64_t d0, fa, fb, row, per, nb, pw;
    int64_t gpu[2];
} hfft__four_shape;
/* 0 and *s where g streams four-step; -1 where not. */
int hfft__gpu_four(const hfft__gpu *g, hfft__four_shape *s);

/* One card's part of a four-step plan streamed over several cards: round A's groups
   [qa, qb), of which [q_res, qb) stay on the card between the rounds, in `res` (output
   rows [fa q_res, fa qb) in the host's layout).  Round B on every card reads those
   rows from `res`, card to card, rather than from the host. */
typedef struct hfft__four_part {
    hfft__dev *d;
    char *res;
    int64_t qa, q_res, qb;
    int64_t fa, nb; /* the layout the card planned (d0 = fa fb, round B's pieces a row):
                       the cards run together only where all planned the same */
} hfft__four_part;
/* One card's part of a plain plan's residency over several cards: its columns of
   round 1 [ca, cb), of which [c0, cb) stay on the card between the rounds, in `res`
   (every row's, cb - c0 apart).  Round 2 on every card reads them card to card. */
typedef struct hfft__res_part {
    hfft__dev *d;
    const char *res;
    int64_t ca, c0, cb;
} hfft__res_part;
/* g's part (0), where it streams the plain schedule as one of several cards; -1 where
   not. */
int hfft__gpu_res_part(const hfft__gpu *g, hfft__res_part *p);
/* Every card's part, in card order, for round 2 (where any card keeps columns). */
void hfft__gpu_res_parts(hfft__gpu *g, const hfft__res_part *parts, int n);

/* 0 and *p where g streams four-step as one of several cards; -1 where not. */
int hfft__gpu_four_part(const hfft__gpu *g, hfft__four_part *p);
/* Every card's part, in card order (n of them, g's own among them), for round B. */
void hfft__gpu_four_parts(hfft__gpu *g, const hfft__four_part *parts, int n);
/* The CPU's side of a round it shares, asked near the end of the GPU's units of
   round h (four-step: x = h), which took unit_s seconds a unit and end in about
   left_s: how many of the CPU's last units the GPU takes back, the first of them
   at *first (cpu/: hfft__cpu_take).  Plain rounds ask; radix-2, long-line and
   partly resident rounds do not. */
typedef int64_t (*hfft__take_fn)(void *ctx, int h, double unit_s, double left_s, int64_t *first);
/* Sets it (NULL: never asks); the GPU then runs what it is given after its own. */
void hfft__gpu_set_take(hfft__gpu *g, hfft__take_fn fn, void *ctx);

/* Everything is allocated here, inside the budget the device has left.  0, or a
   negative status. */
int hfft__gpu_create(const hfft__dev_ops *ops, hfft__dev *dev, const hfft__gpu_req *req,
                     hfft__gpu **out);
void hfft__gpu_destroy(hfft__gpu *g);
/* Runs the GPU's units of round h from src to dst (host arrays); returns when
   they have landed in dst, or, with drain 0, once they are all issued: the next
   round's copies then wait only for the bytes they read (hfft__gpu_run of the
   last round, or with drain 1, waits for everything).  After a failure nothing
   of it is still in flight. */
int hfft__gpu_run(hfft__gpu *g, int h, const void *src, void *dst, int drain);
/* Copies through staging buffers (on) or straight from pinned arrays (off).
   HFFT_ERR_UNSUPPORTED where a round uses the radix-2 or long-line schedule. */
int hfft__gpu_stage(hfft__gpu *g, int on, int threads);
int hfft__gpu_staged(const hfft__gpu *g);
/* Bytes copied host to device [0] and back [1] since the last call. */
void hfft__gpu_take_link(hfft__gpu *g, int64_t bytes[2]);
/* Streaming: the last execute's time per round on the device, from the end of the
   round before (of round 0's first copy in) to the end of the round's last copy
   out, where rounds met without a drain too; secs[0..nrounds).  -1 (secs
   untouched) unless the last execute ran every round, in turn, to the end. */
int hfft__gpu_round_times(const hfft__gpu *g, double *secs);
void hfft__gpu_fill_info(const hfft__gpu *g, hfft_info *info);

#endif
