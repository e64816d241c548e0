/*
 * kernels.cu: our CUDA kernels, the radix-2 and radix-r combinations of the
 * decimation-in-time split (phases 2 and 3).  The arithmetic is the shared
 * code of butterfly.h; here it only gets a grid.  One thread per element of
 * a tile row; a block row shares one twiddle, computed in double from the
 * exact integer phase.
 */
#include <atomic>

#include <cuda_runtime.h>

#include "gpu/butterfly.h"
#include "gpu/kernels.h"
#include "gpu/r2r.h"
#include "gpu/spift.h"

namespace {

constexpr int kThreads = 256;

__device__ inline void rad2(float *a, float *b, double wr, double wi) { hfft__radix2_f(a, b, wr, wi); }
__device__ inline void rad2(double *a, double *b, double wr, double wi) { hfft__radix2_d(a, b, wr, wi); }
__device__ inline void radr(float *const *v, int r, int64_t k, int64_t L, int s) { hfft__radixr_f(v, r, k, L, s); }
__device__ inline void radr(double *const *v, int r, int64_t k, int64_t L, int s) { hfft__radixr_d(v, r, k, L, s); }
__device__ inline void rotate(float *x, int64_t k, int64_t n, int s) { hfft__rotate_f(x, k, n, s); }
__device__ inline void rotate(double *x, int64_t k, int64_t n, int s) { hfft__rotate_d(x, k, n, s); }

/* blockIdx.y walks rows (grid-stride), x walks the row's columns. */
template <typename R>
__global__ void radix2_kernel(R *a, R *b, int64_t rows, int64_t width, int64_t N, int64_t k0,
                              int sign) {
    for (int64_t row = blockIdx.y; row < rows; row += gridDim.y) {
        double wr, wi;
        hfft__twiddle(k0 + row, N, sign, &wr, &wi);
        for (int64_t c = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; c < width;
             c += (int64_t)gridDim.x * blockDim.x) {
            int64_t i = 2 * (row * width + c);
            rad2(a + i, b + i, wr, wi);
        }
    }
}

struct Tiles {
    void *p[HFFT__RADIXR_MAX];
};

template <typename R>
__global__ void radixr_kernel(Tiles t, int r, int64_t rows, int64_t width, int64_t L, int64_t k0,
                              int sign) {
    for (int64_t row = blockIdx.y; row < rows; row += gridDim.y) {
        for (int64_t c = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; c < width;
             c += (int64_t)gridDim.x * blockDim.x) {
            int64_t i = 2 * (row * width + c);
            R *v[HFFT__RADIXR_MAX];
            for (int j = 0; j < r; j++)
                v[j] = static_cast<R *>(t.p[j]) + i;
            radr(v, r, k0 + row, L, sign);
        }
    }
}

/*
 * 32 x 32 tiles through shared memory (padded against bank conflicts), so that
 * both the reads and the writes are coalesced; complex elements move whole.
 * (Streaming loads and stores gain nothing at the engine's row widths.)
 * blockIdx.z walks the batch; where twn > 0 each element leaves times
 * exp(sign 2 pi i (row col) / twn), its source row and column.
 */
constexpr int kTile = 32, kRows = 8;
constexpr int kR2RPoints = 4; /* points of a line each thread of r2r_kernel takes */

__device__ inline void rot(float2 &v, int64_t k, int64_t n, int s) {
    float x[2] = {v.x, v.y};
    hfft__rotate_f(x, k, n, s);
    v = make_float2(x[0], x[1]);
}
__device__ inline void rot(double2 &v, int64_t k, int64_t n, int s) {
    double x[2] = {v.x, v.y};
    hfft__rotate_d(x, k, n, s);
    v = make_double2(x[0], x[1]);
}

template <typename V>
__global__ void transpose_kernel(V *dst, int64_t dpitch, int64_t ddist, const V *src,
                                 int64_t spitch, int64_t sdist, int64_t rows, int64_t cols,
                                 int64_t batch, int64_t twn, int sign) {
    __shared__ V tile[kTile][kTile + 1];
    for (int64_t b = blockIdx.z; b < batch; b += gridDim.z) {
        const V *sb = src + b * sdist;
        V *db = dst + b * ddist;
        for (int64_t by = blockIdx.y; by * kTile < rows; by += gridDim.y) {
            for (int64_t bx = blockIdx.x; bx * kTile < cols; bx += gridDim.x) {
                int64_t c = bx * kTile + threadIdx.x;
                for (int k = threadIdx.y; k < kTile; k += kRows) {
                    int64_t r = by * kTile + k;
                    if (r < rows && c < cols)
                        tile[k][threadIdx.x] = sb[r * spitch + c];
                }
                __syncthreads();
                int64_t r = by * kTile + threadIdx.x;
                for (int k = threadIdx.y; k < kTile; k += kRows) {
                    int64_t cc = bx * kTile + k;
                    if (r < rows && cc < cols) {
                        V v = tile[threadIdx.x][k];
                        if (twn > 0)
                            rot(v, r * cc, twn, sign);
                        db[cc * dpitch + r] = v;
                    }
                }
                __syncthreads();
            }
        }
    }
}

/* The four-step's twiddles, one thread per element, each from its exact integer
   phase (gpu/butterfly.h). */
template <typename R>
__global__ void twiddle_kernel(R *data, int64_t rows, int64_t cols, int64_t pitch, int64_t n,
                               int64_t r0, int64_t period, int64_t c0, int sign) {
    for (int64_t row = blockIdx.y; row < rows; row += gridDim.y) {
        int64_t k = period ? (r0 + row) % period : (r0 + row) * c0;
        for (int64_t c = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; c < cols;
             c += (int64_t)gridDim.x * blockDim.x)
            rotate(data + 2 * (row * pitch + c), period ? k * (c0 + c) : k, n, sign);
    }
}

__device__ inline void pair(float *row, int64_t k, int64_t M, int f) { hfft__real_pair_f(row, k, M, f); }
__device__ inline void pair(double *row, int64_t k, int64_t M, int f) { hfft__real_pair_d(row, k, M, f); }

/* One thread per pair (k, M - k) of a row, blockIdx.y walks the rows. */
template <typename R>
__global__ void real_pairs_kernel(R *data, int64_t M, int64_t dist, int64_t batch, int forward) {
    for (int64_t b = blockIdx.y; b < batch; b += gridDim.y)
        for (int64_t k = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; k <= M / 2;
             k += (int64_t)gridDim.x * blockDim.x)
            pair(data + 2 * b * dist, k, M, forward);
}

__device__ inline void chirp_step(float *l, float *x, const float *t, const hfft__chirps &c,
                                  int64_t b, int64_t k) { hfft__chirp_step_f(l, x, t, &c, b, k); }
__device__ inline void chirp_step(double *l, double *x, const double *t, const hfft__chirps &c,
                                  int64_t b, int64_t k) { hfft__chirp_step_d(l, x, t, &c, b, k); }

/* One of Bluestein's steps (gpu/butterfly.h), one thread per point of a line,
   blockIdx.y walking the lines. */
template <typename R>
__global__ void chirp_kernel(R *lines, R *buf, const R *table, hfft__chirps c) {
    int64_t len = hfft__chirp_points(&c);
    for (int64_t b = blockIdx.y; b < c.batch; b += gridDim.y)
        for (int64_t k = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; k < len;
             k += (int64_t)gridDim.x * blockDim.x)
            chirp_step(lines, buf, table, c, b, k);
}

dim3 grid_for(int64_t rows, int64_t width) {
    int64_t gx = (width + kThreads - 1) / kThreads;
    if (gx > 1024)
        gx = 1024;
    int64_t gy = rows < 65535 ? rows : 65535;
    return dim3((unsigned)(gx > 0 ? gx : 1), (unsigned)(gy > 0 ? gy : 1));
}

/* A streaming image's steps (hfft__spift): grid-stride loops over the points or
   elements; the keys' image is walked by rows (y) and columns (x), each element
   read and written once whatever the keys. */
__device__ inline void add_at(float *p, float x) { atomicAdd(p, x); }
__device__ inline void add_at(double *p, double x) { atomicAdd(p, x); }

template <typename R>
__global__ void spift_scatter_kernel(R *dst, const R *src, hfft__spift a) {
    for (int64_t p = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; p < a.count;
         p += (int64_t)gridDim.x * blockDim.x) {
        int64_t c = hfft__spift_cell(&a, a.cell[p]);
        if (c < 0)
            continue;
        add_at(dst + 2 * c, src[2 * p]);
        add_at(dst + 2 * c + 1, src[2 * p + 1]);
    }
}

template <typename R>
__global__ void spift_zero_kernel(R *dst, int64_t count) {
    for (int64_t k = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; k < count;
         k += (int64_t)gridDim.x * blockDim.x) {
        dst[2 * k] = 0;
        dst[2 * k + 1] = 0;
    }
}

template <typename R>
__global__ void spift_add_kernel(R *dst, R *src, int64_t count) {
    for (int64_t k = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; k < count;
         k += (int64_t)gridDim.x * blockDim.x) {
        dst[2 * k] += src[2 * k];
        dst[2 * k + 1] += src[2 * k + 1];
        src[2 * k] = 0;
        src[2 * k + 1] = 0;
    }
}

__device__ inline void spift_at(const hfft__spift *a, const float *v, const float *tw, int64_t j,
                                int64_t k, float *acc) {
    hfft__spift_at_f(a, v, tw, j, k, acc);
}
__device__ inline void spift_at(const hfft__spift *a, const double *v, const double *tw,
                                int64_t j, int64_t k, double *acc) {
    hfft__spift_at_d(a, v, tw, j, k, acc);
}

template <typename R>
__global__ void spift_keys_kernel(R *image, const R *v, hfft__spift a) {
    const R *tw = static_cast<const R *>(a.tw);
    for (int64_t j = a.row0 + blockIdx.y; j < a.row0 + a.rows; j += gridDim.y)
        for (int64_t k = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; k < a.L;
             k += (int64_t)gridDim.x * blockDim.x) {
            R acc[2];
            spift_at(&a, v, tw, j, k, acc);
            image[2 * ((j - a.drow) * a.L + k)] += acc[0];
            image[2 * ((j - a.drow) * a.L + k) + 1] += acc[1];
        }
}

__device__ inline void spift_combine_at(const hfft__spift *a, const float *src, int64_t r,
                                        int64_t k, float *acc) {
    hfft__spift_combine_at_f(a, src, r, k, acc);
}
__device__ inline void spift_combine_at(const hfft__spift *a, const double *src, int64_t r,
                                        int64_t k, double *acc) {
    hfft__spift_combine_at_d(a, src, r, k, acc);
}

template <typename R>
__global__ void spift_combine_kernel(R *dst, const R *src, hfft__spift a) {
    for (int64_t r = blockIdx.y; r < a.rows; r += gridDim.y)
        for (int64_t k = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; k < a.L;
             k += (int64_t)gridDim.x * blockDim.x) {
            R acc[2];
            spift_combine_at(&a, src, r, k, acc);
            dst[2 * (r * a.L + k)] += acc[0];
            dst[2 * (r * a.L + k) + 1] += acc[1];
        }
}

unsigned blocks_for(int64_t count) {
    int64_t b = (count + kThreads - 1) / kThreads;
    return (unsigned)(b < 1 ? 1 : b > 65536 ? 65536 : b);
}

template <typename R>
int spift_launch(cudaStream_t s, void *dst, const void *src, const hfft__spift *a) {
    R *d = static_cast<R *>(dst);
    switch (a->step) {
    case HFFT__SPIFT_SCATTER:
        if (a->count > 0)
            spift_scatter_kernel<R><<<blocks_for(a->count), kThreads, 0, s>>>(
                d, static_cast<const R *>(src), *a);
        break;
    case HFFT__SPIFT_COMBINE:
        if (a->nk > 0 && a->rows > 0)
            spift_combine_kernel<R><<<grid_for(a->rows, a->L), kThreads, 0, s>>>(
                d, static_cast<const R *>(src), *a);
        break;
    case HFFT__SPIFT_ADD:
        if (a->count > 0)
            spift_add_kernel<R><<<blocks_for(a->count), kThreads, 0, s>>>(
                d, static_cast<R *>(const_cast<void *>(src)), a->count);
        break;
    case HFFT__SPIFT_ZERO:
        if (a->count > 0)
            spift_zero_kernel<R><<<blocks_for(a->count), kThreads, 0, s>>>(d, a->count);
        break;
    default:
        if (a->nk > 0 && a->rows > 0)
            spift_keys_kernel<R><<<grid_for(a->rows, a->L), kThreads, 0, s>>>(
                d, static_cast<const R *>(src), *a);
        break;
    }
    return static_cast<int>(cudaGetLastError());
}

/* A real-to-real step (hfft__r2r_step): kernels instantiated per kind K (the steps'
   switch then compiles away, and with it most of a point's instructions and
   registers), a grid-stride loop over the chunk's lines (y) and each line's points
   or outputs (x). */
template <int K>
__device__ inline void r2r_pre(const hfft__r2r_step *a, const float *tt, const float *line,
                               int64_t t, float *w) {
    hfft__r2r_pre_f(a, K, tt, line, t, w);
}
template <int K>
__device__ inline void r2r_pre(const hfft__r2r_step *a, const double *tt, const double *line,
                               int64_t t, double *w) {
    hfft__r2r_pre_d(a, K, tt, line, t, w);
}
template <int K>
__device__ inline void r2r_post(const hfft__r2r_step *a, const float *tt, const float *X,
                                int64_t k, double *yr, double *yi) {
    hfft__r2r_post_f(a, K, tt, X, k, yr, yi);
}
template <int K>
__device__ inline void r2r_post(const hfft__r2r_step *a, const double *tt, const double *X,
                                int64_t k, double *yr, double *yi) {
    hfft__r2r_post_d(a, K, tt, X, k, yr, yi);
}
__device__ inline void r2r_put(const hfft__r2r_step *a, float *line, int64_t t, double yr,
                               double yi) {
    hfft__r2r_put_f(a, line, t, yr, yi);
}
__device__ inline void whole_tab(float *tab, int kind, int64_t n, int64_t m, int64_t e) {
    hfft__r2r_whole_tab_f(tab, kind, n, m, e);
}
__device__ inline void whole_tab(double *tab, int kind, int64_t n, int64_t m, int64_t e) {
    hfft__r2r_whole_tab_d(tab, kind, n, m, e);
}
/* S stages at once (S a constant, so that the registers' loops unroll). */
template <int S>
__device__ inline void whole_stages(float *X, int g, int p, int lm, const float *tw) {
    hfft__r2r_stages_f(X, g, p, S, lm, tw);
}
template <int S>
__device__ inline void whole_stages(double *X, int g, int p, int lm, const double *tw) {
    hfft__r2r_stages_d(X, g, p, S, lm, tw);
}
__device__ inline void r2r_put(const hfft__r2r_step *a, double *line, int64_t t, double yr,
                               double yi) {
    hfft__r2r_put_d(a, line, t, yr, yi);
}

/* The same where neighbouring lines are neighbours in memory (a.across): tiles of
   kTile lines by kTile points through shared memory (the transpose's tile), the
   lines read (PRE) or written (POST) across lines and the buffer along them, so
   that every access is coalesced; blocks of kTile x kRows threads. */

template <typename R, int K>
__global__ void r2r_tiled_kernel(R *lines, R *buf, hfft__r2r_step a) {
    __shared__ R sr[kTile][kTile + 1], si[kTile][kTile + 1]; /* [point][line] */
    int64_t per = a.step == HFFT__R2R_PRE ? a.m : a.n;
    int tx = threadIdx.x, ty = threadIdx.y;
    for (int64_t l0 = (int64_t)blockIdx.y * kTile; l0 < a.count; l0 += (int64_t)gridDim.y * kTile)
        for (int64_t t0 = (int64_t)blockIdx.x * kTile; t0 < per;
             t0 += (int64_t)gridDim.x * kTile) {
            if (a.step == HFFT__R2R_PRE) {
                int64_t l = l0 + tx; /* across the lines */
                const R *line = lines + 2 * hfft__r2r_line(&a, a.b0 + l);
                for (int i = ty; i < kTile; i += kRows)
                    if (l < a.count && t0 + i < per) {
                        R w[2];
                        r2r_pre<K>(&a, (const R *)nullptr, line, t0 + i, w);
                        sr[i][tx] = w[0];
                        si[i][tx] = w[1];
                    }
                __syncthreads();
                int64_t t = t0 + tx; /* along each line's points in the buffer */
                for (int i = ty; i < kTile; i += kRows)
                    if (l0 + i < a.count && t < per) {
                        R *b = buf + 2 * ((l0 + i) * a.m + t);
                        b[0] = sr[tx][i];
                        b[1] = si[tx][i];
                    }
            } else {
                int64_t k = t0 + tx; /* along each line's points in the buffer */
                for (int i = ty; i < kTile; i += kRows)
                    if (l0 + i < a.count && k < per) {
                        double yr, yi;
                        r2r_post<K>(&a, (const R *)nullptr, buf + 2 * (l0 + i) * a.m, k, &yr,
                                   &yi);
                        sr[tx][i] = (R)yr;
                        si[tx][i] = (R)yi;
                    }
                __syncthreads();
                int64_t l = l0 + tx; /* across the lines */
                R *line = lines + 2 * hfft__r2r_line(&a, a.b0 + l);
                for (int i = ty; i < kTile; i += kRows)
                    if (l < a.count && t0 + i < per) {
                        R *y = line + 2 * (t0 + i) * a.stride;
                        y[0] = sr[i][tx];
                        y[1] = si[i][tx];
                    }
            }
            __syncthreads();
        }
}

template <typename R, int K>
__global__ void r2r_kernel(R *lines, R *buf, hfft__r2r_step a) {
    int64_t per = a.step == HFFT__R2R_PRE ? a.m : a.n;
    for (int64_t l = blockIdx.y; l < a.count; l += gridDim.y) {
        /* the line's start once for all of this thread's points of it */
        R *line = lines + 2 * hfft__r2r_line(&a, a.b0 + l), *b = buf + 2 * l * a.m;
        for (int64_t t = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; t < per;
             t += (int64_t)gridDim.x * blockDim.x) {
            if (a.step == HFFT__R2R_PRE) {
                r2r_pre<K>(&a, (const R *)nullptr, line, t, b + 2 * t);
            } else {
                double yr, yi;
                r2r_post<K>(&a, (const R *)nullptr, b, t, &yr, &yi);
                r2r_put(&a, line, t, yr, yi);
            }
        }
    }
}

/* The one-pass step (HFFT__R2R_WHOLE, gpu/r2r.h): each block takes C lines whole
   into shared memory, in turn.  A holds their points (a row's reals or pairs): across
   lines point-major, so that each point's C neighbours come in at once, else
   line-major; X their kinds' sequences, then FFTs, line-major; before them the
   tables, which whole_tables_kernel writes once a step into the buffer and each
   block copies from there.  The steps and the
   butterflies give neighbouring threads neighbouring lines, and the pitches make
   them meet distinct banks: X's lines xpitch points apart (16 / C banks of pairs
   between lines), A's rows an odd number apart.  Rows go out through A again, so
   that their stores run along them.  A thread issues kWholeLoads loads before it
   stores them, so that enough bytes are in flight from the few blocks an SM holds. */
constexpr int kWholeLoads = 8;

struct whole_shape {
    int C, lc, lm, apitch, xpitch; /* lines, log2 C, log2 m, pitches in points */
};

__host__ __device__ inline whole_shape whole_of(const hfft__r2r_step *a, int C) {
    whole_shape w;
    w.C = C;
    w.lc = hfft__ctz64((uint64_t)C);
    w.lm = a->m > 1 ? hfft__ctz64((uint64_t)a->m) : 0;
    w.apitch = a->across ? C : (int)(a->n | 1);
    w.xpitch = (int)a->m + (C >= 16 ? 1 : 16 / C);
    return w;
}

/* Line c's first point in A (points w.apitch apart where the lines lie across). */
template <typename R>
__device__ inline R *whole_line(R *A, const hfft__r2r_step &a, const whole_shape &w, int c) {
    return a.across ? A + 2 * c : A + (a.row ? 1 : 2) * c * w.apitch;
}

/* The one-pass step's tables (the FFT's twiddles, then the kind's), as the emulated
   device lays them after a line in the buffer, once a step for all its blocks. */
template <typename R>
__global__ void whole_tables_kernel(R *tab, int kind, int64_t n, int64_t m) {
    for (int64_t e = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
         e < hfft__r2r_whole_tabs(kind, n, m); e += (int64_t)gridDim.x * blockDim.x)
        whole_tab(tab, kind, n, m, e);
}

template <typename R, int K>
__global__ void __launch_bounds__(kThreads) r2r_whole_kernel(R *lines, const R *tab,
                                                             hfft__r2r_step a, whole_shape w) {
    extern __shared__ __align__(16) unsigned char smem[];
    const int C = w.C, lc = w.lc, lm = w.lm, per = a.row ? 1 : 2; /* reals a point */
    const int n = (int)a.n, m = (int)a.m, tid = threadIdx.x, T = blockDim.x;
    const int tabs = 2 * (int)hfft__r2r_whole_tabs(K, n, m); /* reals of the tables */
    int64_t *start = reinterpret_cast<int64_t *>(smem);
    R *tw = reinterpret_cast<R *>(start + C), *tt = tw + 2 * (m / 2);
    R *A = tw + tabs;
    R *X = A + per * (a.across ? n * C : C * w.apitch);
    hfft__r2r_step la = a; /* the lines as A holds them */
    la.stride = a.across ? C : 1;
    for (int i = tid; i < tabs; i += T)
        tw[i] = tab[i];
    const int total = n * C; /* points of the block's lines, as (c, t) */
    for (int64_t l0 = (int64_t)blockIdx.x * C; l0 < a.count; l0 += (int64_t)gridDim.x * C) {
        const int cnt = (int)(a.count - l0 < C ? a.count - l0 : C);
        if (tid < cnt)
            start[tid] = hfft__r2r_line(&a, a.b0 + l0 + tid);
        __syncthreads();
        /* in: neighbours in memory to neighbouring threads (across: c fastest, else t) */
        for (int base = tid; base < total; base += T * kWholeLoads) {
            R v[kWholeLoads][2];
#pragma unroll
            for (int u = 0; u < kWholeLoads; u++) {
                int idx = base + u * T, c = a.across ? idx & (C - 1) : idx / n,
                    t = a.across ? idx >> lc : idx - c * n;
                if (idx < total && c < cnt) {
                    const R *p = lines + 2 * start[c];
                    if (a.row) {
                        v[u][0] = p[t];
                    } else {
                        v[u][0] = p[2 * t * a.stride];
                        v[u][1] = p[2 * t * a.stride + 1];
                    }
                }
            }
#pragma unroll
            for (int u = 0; u < kWholeLoads; u++) {
                int idx = base + u * T, c = a.across ? idx & (C - 1) : idx / n,
                    t = a.across ? idx >> lc : idx - c * n;
                if (idx < total && c < cnt) {
                    R *q = whole_line(A, a, w, c) + per * t * la.stride;
                    q[0] = v[u][0];
                    if (!a.row)
                        q[1] = v[u][1];
                }
            }
        }
        __syncthreads();
        /* the kinds' sequences, point s of X from point bitrev(s) of the sequence */
        for (int idx = tid; idx < C * m; idx += T) {
            int c = idx & (C - 1), s = idx >> lc;
            if (c < cnt)
                r2r_pre<K>(&la, tt, whole_line(A, a, w, c), (int)hfft__bitrev(s, lm),
                           X + 2 * (c * w.xpitch + s));
        }
        __syncthreads();
        for (int p = 0; p < lm; p += 3) { /* three stages a pass, in registers */
            int st = lm - p < 3 ? lm - p : 3;
            for (int u = tid; u < C * (m >> st); u += T) {
                int c = u & (C - 1);
                R *x = X + 2 * c * w.xpitch;
                if (c >= cnt)
                    continue;
                if (st == 3)
                    whole_stages<3>(x, u >> lc, p, lm, tw);
                else if (st == 2)
                    whole_stages<2>(x, u >> lc, p, lm, tw);
                else
                    whole_stages<1>(x, u >> lc, p, lm, tw);
            }
            __syncthreads();
        }
        /* out: across lines straight to memory; else into A, then along the lines */
        for (int idx = tid; idx < total; idx += T) {
            int c = idx & (C - 1), t = idx >> lc;
            if (c < cnt) {
                double yr, yi;
                r2r_post<K>(&a, tt, X + 2 * c * w.xpitch, t, &yr, &yi);
                if (a.across)
                    r2r_put(&a, lines + 2 * start[c], t, yr, yi);
                else
                    r2r_put(&la, whole_line(A, a, w, c), t, yr, yi);
            }
        }
        if (!a.across) {
            __syncthreads();
            for (int idx = tid; idx < total; idx += T) {
                int c = idx / n, t = idx - c * n;
                if (c < cnt) {
                    const R *q = whole_line(A, a, w, c) + per * t;
                    R *p = lines + 2 * start[c];
                    if (a.row) {
                        p[t] = q[0];
                    } else {
                        p[2 * t * a.stride] = q[0];
                        p[2 * t * a.stride + 1] = q[1];
                    }
                }
            }
        }
        __syncthreads();
    }
}

/* Shared bytes of r2r_whole_kernel for step a. */
template <typename R>
size_t whole_shared(const hfft__r2r_step *a, const whole_shape &w) {
    size_t per = a->row ? 1 : 2, pts = a->across ? (size_t)a->n * w.C : (size_t)w.C * w.apitch;
    size_t tabs = 2 * (size_t)hfft__r2r_whole_tabs(a->kind, a->n, a->m);
    return sizeof(int64_t) * w.C + sizeof(R) * (tabs + per * pts + 2 * (size_t)w.xpitch * w.C);
}

/* Cards whose shared-memory limit and kernels' attributes are kept (beyond them,
   asked at each launch). */
constexpr int kCardsKept = 64;

/* The shared memory a block may take on the current card (dev), asked once a card. */
cudaError_t whole_most(int *dev, int *most) {
    static std::atomic<int> kept[kCardsKept]; /* 0: not asked yet */
    cudaError_t e = cudaGetDevice(dev);
    if (e != cudaSuccess)
        return e;
    if (*dev < kCardsKept && (*most = kept[*dev].load(std::memory_order_relaxed)) > 0)
        return cudaSuccess;
    e = cudaDeviceGetAttribute(most, cudaDevAttrMaxSharedMemoryPerBlockOptin, *dev);
    if (e == cudaSuccess && *dev < kCardsKept)
        kept[*dev].store(*most, std::memory_order_relaxed);
    return e;
}

/* One step of kind K on stream s. */
template <typename R, int K>
int r2r_launch(R *lines, R *buf, const hfft__r2r_step *a, cudaStream_t s) {
    if (a->step == HFFT__R2R_WHOLE) {
        /* the kernel may take all the card allows, once a card (always the same value,
           so that threads racing here agree) */
        static std::atomic<bool> allowed[kCardsKept];
        int C = hfft__r2r_whole_lines((int)sizeof(R), a->m), dev = 0, most = 0;
        if (!C)
            return static_cast<int>(cudaErrorInvalidValue);
        cudaError_t e = whole_most(&dev, &most);
        if (e != cudaSuccess)
            return static_cast<int>(e);
        whole_shape w = whole_of(a, C);
        size_t bytes = whole_shared<R>(a, w);
        while (bytes > (size_t)most && C > 1) { /* cards of 64 KiB a block (7.5): fewer lines */
            C /= 2;
            w = whole_of(a, C);
            bytes = whole_shared<R>(a, w);
        }
        if (dev >= kCardsKept || !allowed[dev].load(std::memory_order_acquire)) {
            e = cudaFuncSetAttribute(r2r_whole_kernel<R, K>,
                                     cudaFuncAttributeMaxDynamicSharedMemorySize, most);
            if (e != cudaSuccess)
                return static_cast<int>(e);
            if (dev < kCardsKept)
                allowed[dev].store(true, std::memory_order_release);
        }
        int64_t blocks = (a->count + C - 1) / C, tabs = hfft__r2r_whole_tabs(K, a->n, a->m);
        R *tab = buf + 2 * a->m; /* after the line the emulated device keeps there */
        if (tabs > 0)
            whole_tables_kernel<R><<<blocks_for(tabs), kThreads, 0, s>>>(tab, K, a->n, a->m);
        r2r_whole_kernel<R, K><<<(unsigned)(blocks < (1 << 20) ? blocks : (1 << 20)), kThreads,
                                 bytes, s>>>(lines, tab, *a, w);
        return 0;
    }
    int64_t per = a->step == HFFT__R2R_PRE ? a->m : a->n;
    if (a->across) {
        int64_t tx = (per + kTile - 1) / kTile, ty = (a->count + kTile - 1) / kTile;
        dim3 g((unsigned)(tx < 65535 ? tx : 65535), (unsigned)(ty < 65535 ? ty : 65535));
        r2r_tiled_kernel<R, K><<<g, dim3(kTile, kRows), 0, s>>>(lines, buf, *a);
        return 0;
    }
    /* a few points of a line a thread (kR2RPoints), so that its start is taken once
       for them */
    r2r_kernel<R, K><<<grid_for(a->count, (per + kR2RPoints - 1) / kR2RPoints), kThreads, 0, s>>>(
        lines, buf, *a);
    return 0;
}

template <typename R>
int r2r_kind(R *lines, R *buf, const hfft__r2r_step *a, cudaStream_t s) {
    int st;
    switch (a->kind) {
    case HFFT_R2HC: st = r2r_launch<R, HFFT_R2HC>(lines, buf, a, s); break;
    case HFFT_HC2R: st = r2r_launch<R, HFFT_HC2R>(lines, buf, a, s); break;
    case HFFT_DHT: st = r2r_launch<R, HFFT_DHT>(lines, buf, a, s); break;
    case HFFT_REDFT00: st = r2r_launch<R, HFFT_REDFT00>(lines, buf, a, s); break;
    case HFFT_REDFT01: st = r2r_launch<R, HFFT_REDFT01>(lines, buf, a, s); break;
    case HFFT_REDFT10: st = r2r_launch<R, HFFT_REDFT10>(lines, buf, a, s); break;
    case HFFT_REDFT11: st = r2r_launch<R, HFFT_REDFT11>(lines, buf, a, s); break;
    case HFFT_RODFT00: st = r2r_launch<R, HFFT_RODFT00>(lines, buf, a, s); break;
    case HFFT_RODFT01: st = r2r_launch<R, HFFT_RODFT01>(lines, buf, a, s); break;
    case HFFT_RODFT10: st = r2r_launch<R, HFFT_RODFT10>(lines, buf, a, s); break;
    case HFFT_RODFT11: st = r2r_launch<R, HFFT_RODFT11>(lines, buf, a, s); break;
    default: return static_cast<int>(cudaErrorInvalidValue);
    }
    return st ? st : static_cast<int>(cudaGetLastError());
}

} // namespace

extern "C" int hfft__cuda_r2r(int prec, void *stream, void *lines, void *buf,
                              const hfft__r2r_step *a) {
    if (a->count <= 0)
        return 0;
    cudaStream_t s = static_cast<cudaStream_t>(stream);
    if (prec == 4)
        return r2r_kind(static_cast<float *>(lines), static_cast<float *>(buf), a, s);
    return r2r_kind(static_cast<double *>(lines), static_cast<double *>(buf), a, s);
}

extern "C" int hfft__cuda_radix2(int prec, void *stream, void *a, void *b, int64_t rows,
                                 int64_t width, int64_t N, int64_t k0, int sign) {
    if (rows <= 0 || width <= 0)
        return 0;
    dim3 g = grid_for(rows, width);
    cudaStream_t s = static_cast<cudaStream_t>(stream);
    if (prec == 4)
        radix2_kernel<float><<<g, kThreads, 0, s>>>(static_cast<float *>(a),
                                                    static_cast<float *>(b), rows, width, N, k0,
                                                    sign);
    else
        radix2_kernel<double><<<g, kThreads, 0, s>>>(static_cast<double *>(a),
                                                     static_cast<double *>(b), rows, width, N, k0,
                                                     sign);
    return static_cast<int>(cudaGetLastError());
}

extern "C" int hfft__cuda_radixr(int prec, void *stream, void *const *blk, int r, int64_t rows,
                                 int64_t width, int64_t L, int64_t k0, int sign) {
    if (rows <= 0 || width <= 0)
        return 0;
    Tiles t;
    for (int j = 0; j < r && j < HFFT__RADIXR_MAX; j++)
        t.p[j] = blk[j];
    dim3 g = grid_for(rows, width);
    cudaStream_t s = static_cast<cudaStream_t>(stream);
    if (prec == 4)
        radixr_kernel<float><<<g, kThreads, 0, s>>>(t, r, rows, width, L, k0, sign);
    else
        radixr_kernel<double><<<g, kThreads, 0, s>>>(t, r, rows, width, L, k0, sign);
    return static_cast<int>(cudaGetLastError());
}

extern "C" int hfft__cuda_transpose(int prec, void *stream, void *dst, int64_t dpitch,
                                    int64_t ddist, const void *src, int64_t spitch, int64_t sdist,
                                    int64_t rows, int64_t cols, int64_t batch, int64_t twn,
                                    int sign) {
    if (rows <= 0 || cols <= 0 || batch <= 0)
        return 0;
    int64_t gx = (cols + kTile - 1) / kTile, gy = (rows + kTile - 1) / kTile;
    dim3 grid((unsigned)(gx < 65535 ? gx : 65535), (unsigned)(gy < 65535 ? gy : 65535),
              (unsigned)(batch < 65535 ? batch : 65535));
    dim3 block(kTile, kRows);
    cudaStream_t s = static_cast<cudaStream_t>(stream);
    if (prec == 4)
        transpose_kernel<float2><<<grid, block, 0, s>>>(
            static_cast<float2 *>(dst), dpitch, ddist, static_cast<const float2 *>(src), spitch,
            sdist, rows, cols, batch, twn, sign);
    else
        transpose_kernel<double2><<<grid, block, 0, s>>>(
            static_cast<double2 *>(dst), dpitch, ddist, static_cast<const double2 *>(src), spitch,
            sdist, rows, cols, batch, twn, sign);
    return static_cast<int>(cudaGetLastError());
}

extern "C" int hfft__cuda_twiddle(int prec, void *stream, void *data, int64_t rows, int64_t cols,
                                  int64_t pitch, int64_t n, int64_t r0, int64_t period,
                                  int64_t c0, int sign) {
    if (rows <= 0 || cols <= 0)
        return 0;
    dim3 g = grid_for(rows, cols);
    cudaStream_t s = static_cast<cudaStream_t>(stream);
    if (prec == 4)
        twiddle_kernel<float><<<g, kThreads, 0, s>>>(static_cast<float *>(data), rows, cols, pitch,
                                                     n, r0, period, c0, sign);
    else
        twiddle_kernel<double><<<g, kThreads, 0, s>>>(static_cast<double *>(data), rows, cols,
                                                      pitch, n, r0, period, c0, sign);
    return static_cast<int>(cudaGetLastError());
}

extern "C" int hfft__cuda_real_pairs(int prec, void *stream, void *data, int64_t M, int64_t dist,
                                     int64_t batch, int forward) {
    if (M <= 0 || batch <= 0)
        return 0;
    dim3 g = grid_for(batch, M / 2 + 1);
    cudaStream_t s = static_cast<cudaStream_t>(stream);
    if (prec == 4)
        real_pairs_kernel<float><<<g, kThreads, 0, s>>>(static_cast<float *>(data), M, dist,
                                                        batch, forward);
    else
        real_pairs_kernel<double><<<g, kThreads, 0, s>>>(static_cast<double *>(data), M, dist,
                                                         batch, forward);
    return static_cast<int>(cudaGetLastError());
}

extern "C" int hfft__cuda_chirp(int prec, void *stream, void *lines, void *buf, const void *table,
                                const hfft__chirps *c) {
    int64_t len = hfft__chirp_points(c);
    if (len <= 0 || c->batch <= 0)
        return 0;
    dim3 g = grid_for(c->batch, len);
    cudaStream_t s = static_cast<cudaStream_t>(stream);
    if (prec == 4)
        chirp_kernel<float><<<g, kThreads, 0, s>>>(static_cast<float *>(lines),
                                                   static_cast<float *>(buf),
                                                   static_cast<const float *>(table), *c);
    else
        chirp_kernel<double><<<g, kThreads, 0, s>>>(static_cast<double *>(lines),
                                                    static_cast<double *>(buf),
                                                    static_cast<const double *>(table), *c);
    return static_cast<int>(cudaGetLastError());
}

extern "C" int hfft__cuda_spift(int prec, void *stream, void *dst, const void *src,
                                const hfft__spift *a) {
    cudaStream_t s = static_cast<cudaStream_t>(stream);
    return prec == 4 ? spift_launch<float>(s, dst, src, a) : spift_launch<double>(s, dst, src, a);
}
