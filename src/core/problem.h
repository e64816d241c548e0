/*
 * problem.h: what is being transformed, as every layer below the API sees it.
 * A problem is FFTW's guru problem: transform dimensions and vector (batch)
 * dimensions, each a size and two strides, over interleaved or split arrays,
 * complex or real.  The planner finds where such a problem is a dense
 * row-major array (hfft__dense) and cuts that into rounds, each a batch of
 * independent 1D (or 2D plane) transforms over the whole array that one
 * engine, or both sharing its units, can run.  Plain data: copy and share.
 */
#ifndef HFFT_CORE_PROBLEM_H
#define HFFT_CORE_PROBLEM_H

#include <stddef.h>
#include <stdint.h>

#include "hfft.h"

#define HFFT__MAX_RADIX 64
#define HFFT__MAX_DIMS HFFT_MAX_RANK
#define HFFT__MAX_ROUNDS HFFT_MAX_ROUNDS

enum hfft__kind { HFFT__C2C = 0, HFFT__R2C = 1, HFFT__C2R = 2, HFFT__R2R = 3 };

/*
 * Real-to-real transforms (FFTW's kinds, enum hfft_r2r_kind, one per dimension).
 * Where the real array is dense with an even innermost dimension, the engines
 * see it as complex elements, each two neighbouring reals, and run C2C rounds
 * whose lines carry an r2r code: each line's transform is its dimension's kind
 * applied to the line's real and imaginary parts as two real lines (the kind
 * is real-linear, so this is the kind applied to the complex line), or, along
 * the innermost dimension, to the line's 2L reals as one real line (a "row").
 * Only the transforms of whole lines change (gpu/r2r.c on a card, FFTW's r2r
 * lines on the CPU); every copy, transpose and exchange is a C2C round's.
 * The code: HFFT__R2R_BIT; bits 0-3 the kind of the line (rank 1) or of a
 * plane's first dimension, bits 4-7 of a plane's second; HFFT__R2R_ROW: the
 * line's (a plane's second) dimension is a row.  A device FFT plan takes the
 * code or'ed into its kind.
 */
#define HFFT__R2R_BIT 0x100
#define HFFT__R2R_ROW 0x200
static inline int hfft__r2r_code(int k0, int k1, int row) {
    return HFFT__R2R_BIT | (k0 & 15) | (k1 & 15) << 4 | (row ? HFFT__R2R_ROW : 0);
}
/* Kinds whose last dimension is halved on the complex side (r2c, c2r). */
static inline int hfft__halved(int kind) { return kind == HFFT__R2C || kind == HFFT__C2R; }
/* The FFTW kind of dimension `dim` (0 or 1) of a line or plane. */
static inline int hfft__r2r_kind(int code, int dim) { return code >> (4 * dim) & 15; }

typedef struct hfft__dim {
    int64_t n, is, os; /* size; strides in elements of each side's array */
} hfft__dim;

typedef struct hfft__problem {
    int kind;                       /* enum hfft__kind */
    int r2r[HFFT__MAX_DIMS];        /* HFFT__R2R: each transform dimension's FFTW kind */
    int prec;                       /* bytes per real: 4 or 8 */
    int sign;                       /* HFFT_FORWARD or HFFT_BACKWARD (r2c -1, c2r +1) */
    int rank, hrank;                /* transform and vector ranks */
    hfft__dim dims[HFFT__MAX_DIMS]; /* transform dimensions; r2c/c2r: the real sizes, the
                                       last one halved on the complex side */
    hfft__dim hdims[HFFT__MAX_DIMS];
    int split_in, split_out;        /* arrays given as separate real and imaginary parts */
    void *in[2], *out[2];           /* the arrays ([1]: imaginary parts of split arrays) */
    int inplace;                    /* the input and output arrays are the same */
    int unpadded;                   /* in-place r2c/c2r whose real strides are not twice the
                                       complex ones (FFTW's padded layout): not dense */
    /* Derived by the planner: */
    int64_t total;                  /* complex elements of the whole batch (r2c/c2r: of the
                                       complex side; r2r: reals) */
    int64_t howmany;                /* transforms (0: none, the plan does nothing) */
    int64_t n[HFFT__MAX_DIMS];      /* the transform sizes (dims[k].n) */
    size_t esize;                   /* bytes per complex element (r2r: per real) */
    int64_t lo[2], hi[2];           /* bytes each side reaches, from its array's base:
                                       [lo, hi) ([0] input, [1] output; per array when split) */
} hfft__problem;

/*
 * A problem whose arrays are one dense row-major array of shape d[0..ndim-1]
 * (in complex elements; a real side's last dimension holds `nreal` reals at a
 * pitch of `rpitch` reals), the same on both sides, with the dimensions in
 * `tmask` transformed and the others a batch.
 */
typedef struct hfft__dense {
    int ndim;
    int64_t d[HFFT__MAX_DIMS];
    unsigned tmask;     /* bit k: dimension k is transformed */
    int64_t nreal;      /* r2c/c2r: real length of the last dimension */
    int64_t rpitch;     /* r2c/c2r: reals between the real side's rows */
} hfft__dense;

/*
 * One round: lines of length L with element stride s.  Line (o, i) starts at
 * o*dout + i, o < no, i < ni.  Strided rounds have ni > 1 (neighbouring lines
 * are neighbouring columns, i.e. s >= ni); contiguous rounds have ni == 1,
 * s == 1.  Rank 2 (planes): each "line" is a contiguous plane n2[0] x n2[1].
 * Positions count complex elements.  A real round (kind HFFT__R2C or
 * HFFT__C2R, always contiguous) turns rows of `nreal` reals, `rpitch` reals
 * apart on the real side, into rows of nreal/2 + 1 complex elements (or
 * back); its lines are rows (rank 1, L = nreal) or planes of n2[0] such rows
 * (rank 2, n2 = {rows, nreal}), dout complex elements apart.
 *
 * A line too long for the device is cut four-step: n = n0 n1 as an n0 x n1
 * matrix, a strided round of length n0 whose results are multiplied by the
 * twiddles W_n^(k j) (twn = n; k along the line, j its column), then a
 * contiguous round of length n1 whose lines, in groups of n0 (tper), are
 * written transposed (tout).  Between the two the data sits in an array of
 * its own (mid) unless the output may stay in transposed order.
 */
typedef struct hfft__round {
    int rank;        /* 1 or 2 */
    int64_t L;       /* transform length (rank 1); plane elements (rank 2) */
    int64_t n2[2];   /* plane shape (rank 2) */
    int64_t s;       /* element stride along the transform */
    int64_t ni;      /* neighbouring lines per outer index */
    int64_t no;      /* outer count */
    int64_t dout;    /* elements between outer indices */
    int kind;        /* HFFT__C2C, or a real round: HFFT__R2C (reads reals), HFFT__C2R */
    int r2r;         /* C2C rounds of a real-to-real problem: the lines' r2r code (0: none) */
    int dim;         /* the dense dimension of the line (a plane's first) */
    int64_t nreal;   /* real rounds: reals in a row */
    int64_t rpitch;  /* real rounds: reals between rows on the real side */
    int64_t twn;     /* four-step: twiddles W_twn^(k j) after the transforms; 0: none */
    int64_t tper;    /* four-step contiguous rounds: lines per group (the j of a twiddle is
                        a line's index in its group) */
    int tout;        /* four-step: each group of tper lines written transposed */
    int src_mid, dst_mid; /* four-step: the round reads from / writes to the mid array */
} hfft__round;

/* Real rounds: rows of the last dimension per line. */
static inline int64_t hfft__round_rows(const hfft__round *r) {
    return r->rank == 2 ? r->n2[0] : 1;
}

static inline int hfft__round_strided(const hfft__round *r) { return r->ni > 1; }
/* Units split between GPU and CPU: columns for strided rounds, lines otherwise. */
static inline int64_t hfft__round_units(const hfft__round *r) {
    return hfft__round_strided(r) ? r->ni : r->no;
}

/* a * b into *r; 1 on overflow. */
static inline int hfft__mul_overflows(int64_t a, int64_t b, int64_t *r) {
    return __builtin_mul_overflow(a, b, r);
}

#endif
