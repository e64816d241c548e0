/*
 * problem.h: what is being transformed, as every layer below the planner
 * sees it.  A problem is the caller's array (precision, shape, direction,
 * placement); the planner cuts it into rounds, each a batch of independent 1D
 * (or 2D plane) transforms over the whole array that one engine, or both
 * engines sharing its units, can run.  Plain data: copy and share freely.
 */
#ifndef HFFT_CORE_PROBLEM_H
#define HFFT_CORE_PROBLEM_H

#include <stddef.h>
#include <stdint.h>

#define HFFT__MAX_RADIX 64

typedef struct hfft__problem {
    int prec;          /* bytes per real: 4 or 8 */
    int sign;          /* HFFT_FORWARD or HFFT_BACKWARD */
    int rank;          /* as the caller gave it, 1 to 3 */
    int64_t n[3];      /* sizes as the caller gave them, slowest first */
    int64_t total;     /* elements */
    size_t esize;      /* bytes per complex element */
    int inplace;
} hfft__problem;

/*
 * One round: lines of length L with element stride s.  Line (o, i) starts at
 * o*dout + i, o < no, i < ni.  Strided rounds have ni > 1 (neighbouring lines
 * are neighbouring columns, i.e. s >= ni); contiguous rounds have ni == 1,
 * s == 1.  Rank 2 (3D planes): each "line" is a contiguous plane n2[0] x n2[1].
 */
typedef struct hfft__round {
    int rank;        /* 1 or 2 */
    int64_t L;       /* transform length (rank 1); plane elements (rank 2) */
    int64_t n2[2];   /* plane shape (rank 2) */
    int64_t s;       /* element stride along the transform */
    int64_t ni;      /* neighbouring lines per outer index */
    int64_t no;      /* outer count */
    int64_t dout;    /* elements between outer indices */
} hfft__round;

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
