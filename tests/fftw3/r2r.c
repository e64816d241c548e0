/* r2r.c: FFTW's r2r planners for FFTW's test program, which the drop-in does
   not provide: each fails as an FFTW planner fails, with NULL (see r2r.h). */
#include "r2r.h"

#define HFFT_TEST_R2R_DEF(X, R)                                                            \
    X(plan) X(plan_r2r)(int rank, const int *n, R *in, R *out, const X(r2r_kind) *kind,    \
                        unsigned flags) {                                                  \
        (void)rank, (void)n, (void)in, (void)out, (void)kind, (void)flags;                 \
        return 0;                                                                          \
    }                                                                                      \
    X(plan) X(plan_r2r_1d)(int n, R *in, R *out, X(r2r_kind) kind, unsigned flags) {       \
        return X(plan_r2r)(1, &n, in, out, &kind, flags);                                  \
    }                                                                                      \
    X(plan) X(plan_r2r_2d)(int n0, int n1, R *in, R *out, X(r2r_kind) kind0,               \
                           X(r2r_kind) kind1, unsigned flags) {                            \
        (void)n1, (void)kind1;                                                             \
        return X(plan_r2r)(1, &n0, in, out, &kind0, flags);                                \
    }                                                                                      \
    X(plan) X(plan_r2r_3d)(int n0, int n1, int n2, R *in, R *out, X(r2r_kind) kind0,       \
                           X(r2r_kind) kind1, X(r2r_kind) kind2, unsigned flags) {         \
        (void)n1, (void)n2, (void)kind1, (void)kind2;                                      \
        return X(plan_r2r)(1, &n0, in, out, &kind0, flags);                                \
    }                                                                                      \
    X(plan) X(plan_many_r2r)(int rank, const int *n, int howmany, R *in,                   \
                             const int *inembed, int istride, int idist, R *out,           \
                             const int *onembed, int ostride, int odist,                   \
                             const X(r2r_kind) *kind, unsigned flags) {                    \
        (void)howmany, (void)inembed, (void)istride, (void)idist, (void)onembed;           \
        (void)ostride, (void)odist;                                                        \
        return X(plan_r2r)(rank, n, in, out, kind, flags);                                 \
    }                                                                                      \
    X(plan) X(plan_guru_r2r)(int rank, const X(iodim) *dims, int howmany_rank,             \
                             const X(iodim) *howmany_dims, R *in, R *out,                  \
                             const X(r2r_kind) *kind, unsigned flags) {                    \
        (void)dims, (void)howmany_rank, (void)howmany_dims;                                \
        return X(plan_r2r)(rank, 0, in, out, kind, flags);                                 \
    }

HFFT_TEST_R2R_DEF(FFTW_MANGLE_DOUBLE, double)
HFFT_TEST_R2R_DEF(FFTW_MANGLE_FLOAT, float)
