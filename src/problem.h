/*
 * problem.h: the planner's front (problem.c): every interface's arguments
 * made into one checked guru problem, its dense row-major form and rounds.
 * Pure functions of their arguments; thread safe.
 */
#ifndef HFFT_SRC_PROBLEM_H
#define HFFT_SRC_PROBLEM_H

#include <stdint.h>

#include "hfft.h"
#include "src/core/problem.h"

/* Guru dimensions of a dense row-major transform of sizes n (rank 1..HFFT_MAX_RANK),
   FFTW's basic layouts: real rows padded to 2 (n/2 + 1) reals when in place. */
int hfft__dims_dense(int kind, int rank, const int64_t *n, int inplace, hfft_iodim *dims);
/* Guru dimensions of FFTW's advanced interface (embed NULL: FFTW's default). */
int hfft__dims_many(int kind, int rank, const int64_t *n, int64_t howmany, const int64_t *inembed,
                    int64_t istride, int64_t idist, const int64_t *onembed, int64_t ostride,
                    int64_t odist, hfft_iodim *dims, hfft_iodim *hdim);
/* Fills *pb from guru arguments and checks them; in[1]/out[1] are the imaginary
   arrays of split layouts (NULL otherwise).  0 or HFFT_ERR_INVALID_ARGUMENT. */
int hfft__problem_make(hfft__problem *pb, int kind, int prec, int rank, const hfft_iodim *dims,
                       int hrank, const hfft_iodim *hdims, void *const in[2], void *const out[2],
                       int sign);
/* Whether split output arrays out[0] (real parts) and out[1] (imaginary) share an
   element in pb's output layout: 0, 1, or a negative status. */
int hfft__problem_split_alias(const hfft__problem *pb, void *const out[2]);
/* 1 and *dn where the problem is one dense row-major array on both sides. */
int hfft__problem_dense(const hfft__problem *pb, hfft__dense *dn);
/* Double precision with a dimension of a prime factor above 31: the CPU's rounds run
   those lines through Bluestein (src/core/chirp.h) where FFTW's plan of the whole
   problem would run its own, less accurate transforms. */
int hfft__problem_chirp_dims(const hfft__problem *pb);
/* Orders of a four-step split's output (split_line of hfft__dense_rounds). */
enum { HFFT__ORDER_NATURAL = 1, HFFT__ORDER_TRANSPOSED_OUT, HFFT__ORDER_TRANSPOSED_IN };

/* The rounds of a dense problem, one per transformed dimension (the last two as
   one round of planes unless split_planes; r2c: the real round first, c2r: last;
   complex, with split_line, the last dimension cut four-step, its output in that
   order); their number, or a negative status. */
int hfft__dense_rounds(const hfft__dense *dn, int kind, int split_planes, int split_line,
                       hfft__round *r);
/* A real-to-real problem (made with kind HFFT__R2R): each transform dimension's
   FFTW kind, checked (REDFT00 needs n >= 2).  0 or HFFT_ERR_INVALID_ARGUMENT. */
int hfft__problem_r2r(hfft__problem *pb, const int *kinds);
/* The r2r problem as the C2C problem of its complex elements, two neighbouring reals
   each (HFFT__R2R_BIT in src/core/problem.h), where its arrays are one dense real
   array whose innermost dimension is even (at least 4 where it is transformed) and
   no transformed size of one scales: 1, *view that problem, kinds[i] the kind of its
   dense dimension i (transformed ones) and *row whether the innermost is transformed;
   else 0 (FFTW's plan of the whole problem takes it). */
int hfft__problem_r2r_view(const hfft__problem *pb, hfft__problem *view, int *kinds, int *row);
/* Each round's r2r code from the kinds of the dense dimensions (ndim of them). */
void hfft__r2r_codes(hfft__round *r, int nr, int ndim, const int *kinds, int row);

/* n1 of a four-step split n = n0 n1: the largest divisor of n at most sqrt(n). */
int64_t hfft__split_n1(int64_t n);

#endif
