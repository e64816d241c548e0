/* r2r.h: FFTW's r2r declarations, which hfft's drop-in leaves out (it has no
   real-to-real transforms), for FFTW's test program: bench.c refers to them in
   its r2r planner.  Force-included when bench.c is compiled; r2r.c defines them
   to fail as a planner does (NULL), so r2r problems are reported undoable. */
#ifndef HFFT_TESTS_FFTW3_R2R_H
#define HFFT_TESTS_FFTW3_R2R_H
#include <fftw3.h>

enum fftw_r2r_kind_do_not_use_me {
    FFTW_R2HC = 0, FFTW_HC2R = 1, FFTW_DHT = 2,
    FFTW_REDFT00 = 3, FFTW_REDFT01 = 4, FFTW_REDFT10 = 5, FFTW_REDFT11 = 6,
    FFTW_RODFT00 = 7, FFTW_RODFT01 = 8, FFTW_RODFT10 = 9, FFTW_RODFT11 = 10
};

#define HFFT_TEST_R2R_API(X, R)                                                            \
    typedef enum fftw_r2r_kind_do_not_use_me X(r2r_kind);                                  \
    X(plan) X(plan_r2r)(int rank, const int *n, R *in, R *out, const X(r2r_kind) *kind,    \
                        unsigned flags);                                                   \
    X(plan) X(plan_r2r_1d)(int n, R *in, R *out, X(r2r_kind) kind, unsigned flags);        \
    X(plan) X(plan_r2r_2d)(int n0, int n1, R *in, R *out, X(r2r_kind) kind0,               \
                           X(r2r_kind) kind1, unsigned flags);                             \
    X(plan) X(plan_r2r_3d)(int n0, int n1, int n2, R *in, R *out, X(r2r_kind) kind0,       \
                           X(r2r_kind) kind1, X(r2r_kind) kind2, unsigned flags);          \
    X(plan) X(plan_many_r2r)(int rank, const int *n, int howmany, R *in,                   \
                             const int *inembed, int istride, int idist, R *out,           \
                             const int *onembed, int ostride, int odist,                   \
                             const X(r2r_kind) *kind, unsigned flags);                     \
    X(plan) X(plan_guru_r2r)(int rank, const X(iodim) *dims, int howmany_rank,             \
                             const X(iodim) *howmany_dims, R *in, R *out,                  \
                             const X(r2r_kind) *kind, unsigned flags);

HFFT_TEST_R2R_API(FFTW_MANGLE_DOUBLE, double)
HFFT_TEST_R2R_API(FFTW_MANGLE_FLOAT, float)
#endif
