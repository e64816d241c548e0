/*
 * device.h: the device interface, the seam between the GPU engine and a GPU.
 * Two backends implement it, one file each in gpu/: the CUDA backend and the
 * emulated device (a test double in host memory that enforces the budget and
 * runs queued work in a random legal order).  The engine's schedules are
 * written once against this table.
 *
 * Thread safety: a device (hfft__dev) belongs to one plan and is driven by one
 * thread at a time; host_alloc/host_free/host_register/host_unregister/
 * host_is_pinned may be called with d == NULL from any thread.
 * Ownership: whoever creates a stream, event, allocation or plan destroys it.
 */
#ifndef HFFT_CORE_DEVICE_H
#define HFFT_CORE_DEVICE_H

#include <stddef.h>
#include <stdint.h>

typedef struct hfft__dev hfft__dev;
typedef void *hfft__stream;
typedef void *hfft__event;
typedef void *hfft__fftplan;

/* Batched transposes, each element times an optional twiddle: for b < batch, i < rows,
   j < cols, dst[b ddist + j dpitch + i] = src[b sdist + i spitch + j] exp(sign 2 pi i
   i j / twn) (twn 0: none); pitches and distances in complex elements. */
typedef struct hfft__transposes {
    int64_t rows, cols, spitch, dpitch, sdist, ddist, batch, twn;
    int sign;
} hfft__transposes;

/* Bluestein's steps (src/core/chirp.h) on `batch` lines of n points (`stride` elements
   apart in a line, `dist` between lines) and a buffer of `batch` lines of M points:
   HFFT__CHIRP_IN  buf = the lines times the chirp w_j, zero-padded to M;
   HFFT__CHIRP_MUL buf = buf times B;
   HFFT__CHIRP_OUT the lines = the first n points of buf times the chirp;
   `table` holds B (M points) then the chirp (n points) of `sign`, the same for
   every line (hfft__chirp_table in src/core/chirp.h).
   `real` (0 for complex lines) takes rows of FFTW's padded layout (stride 1, `dist`
   complex elements apart) as the complex transform of n points: HFFT__R2C reads n
   reals and writes the n/2 + 1 complex points; HFFT__C2R reads the n/2 + 1 points
   (the rest by Hermitian symmetry, the imaginary parts of X_0 and, n even, X_n/2
   ignored, as FFTW's c2r does) and writes the n reals (the real parts). */
enum { HFFT__CHIRP_IN, HFFT__CHIRP_MUL, HFFT__CHIRP_OUT };
typedef struct hfft__chirps {
    int64_t n, M, stride, dist, batch;
    int sign, step, real;
} hfft__chirps;

/* A streaming image's steps on a card (gpu/spift.c), each on `count` elements or over
   the image:
   HFFT__SPIFT_SCATTER dst[cell[p]] += src[p] for p < count (repeated cells summed);
                       with parts > 1, only cells whose index along dimension 0 (cell /
                       plane) is part modulo parts, at that index over parts (a card's
                       share of an image's grid held on `parts` cards);
   HFFT__SPIFT_ADD     dst[k] += src[k], then src[k] = 0, for k < count;
   HFFT__SPIFT_ZERO    dst[k] = 0 for k < count (src unused);
   HFFT__SPIFT_KEYS    image rows [row0, row0 + rows) of dst (rows of L points, dst's
                       first row being image row drow) gain nk key vectors src (L
                       points each) of keys cell[q]: with `shift` (an L x L image, L a power of
                       two), column key t < L adds its vector shifted left by t j to row j,
                       row key L + t adds v[(j + t k) mod L] at (j, k); without, row j gains
                       the vector times the product over d < rank - 1 of tw[q twn + off_d +
                       j_d], j_d the row's index along dimension d (lead[d] rows apart),
                       off_d the sum of the sizes before d;
   HFFT__SPIFT_COMBINE dst's element (r, k) (rows r < rows of L elements) gains the sum
                       over s < nk of src's element (s rows + r, k) times exp(sign 2 pi i
                       s (row0 + r) / n[0]): the last step of a transform along dimension
                       0 split over nk cards (each card's rows of dimension 0 transformed,
                       then combined where each output row lies). */
enum { HFFT__SPIFT_SCATTER, HFFT__SPIFT_ADD, HFFT__SPIFT_ZERO, HFFT__SPIFT_KEYS,
       HFFT__SPIFT_COMBINE };
typedef struct hfft__spift {
    int step, shift, rank, sign;
    int64_t count, row0, rows, drow, L, nk, twn;
    int64_t parts, part, plane; /* SCATTER: a card's share of the grid (parts 0, 1: all) */
    int64_t n[3], lead[3];
    const int64_t *cell; /* SCATTER: the cells; KEYS: the keys (device memory) */
    const void *tw;      /* KEYS without shift: nk tables of twn phases (device memory) */
} hfft__spift;

/* A real-to-real kind's steps around its complex FFT (gpu/r2r.h) on lines
   [b0, b0 + count) of a batch: line b starts at (b / inner) odist + (b % inner) idist
   complex elements, its points `stride` apart (a pair each: the kind applied to the
   complex line), or, with `row`, holds n reals at stride one; buf holds `count` lines
   of m complex points, m apart (`across`: neighbouring lines are neighbours in
   memory, which a kernel may read and write across lines):
   HFFT__R2R_PRE   buf = the kind's sequence of each line;
   HFFT__R2R_POST  each line = the kind's output from buf's transform;
   HFFT__R2R_WHOLE each line = its kind's transform, the step before, the FFT and the
                   step after in one pass over the lines (m a power of two that
                   hfft__r2r_whole_lines takes; buf holds hfft__r2r_whole_buf points:
                   a line, the FFT's twiddles and the kind's table). */
enum { HFFT__R2R_PRE, HFFT__R2R_POST, HFFT__R2R_WHOLE };
typedef struct hfft__r2r_step {
    int step, kind, row, across;
    int64_t n, m, stride, inner, idist, odist, b0, count;
} hfft__r2r_step;

typedef struct hfft__dev_ops {
    const char *name;
    int kind; /* enum hfft_device_kind */
    /* Opens the device with a budget (0: free memory less a margin). */
    int (*open)(int64_t budget, hfft__dev **out);
    void (*close)(hfft__dev *d);
    /* Several cards: how many the backend sees; card `ordinal` (-1: the current one, as
       open) opened beside the `nopen` cards of the same plan already open (`open`):
       emulated cards of one plan share their queues, a CUDA card gets peer access to
       each of them both ways (every pair of the plan's cards exchanges directly); the
       card's ordinal. */
    int (*count)(void);
    int (*open_card)(int ordinal, int64_t budget, hfft__dev *const *open, int nopen,
                     hfft__dev **out);
    int (*ordinal)(hfft__dev *d);
    int64_t (*budget)(hfft__dev *d);
    int64_t (*used)(hfft__dev *d);
    /* Budget bytes to leave to the backend's own plan data (cuFFT's tables). */
    int64_t (*reserve)(hfft__dev *d);
    const char *(*describe)(hfft__dev *d);
    /* The card's own memory in bytes, whatever the budget (0: none of its own, as an
       emulated card's): with the name, what tells the cards of wisdom signatures apart. */
    int64_t (*memory)(hfft__dev *d);
    /* "gpu=NAME;driver=V;cuda=V;cufft=V" for wisdom signatures. */
    void (*signature)(hfft__dev *d, char *buf, size_t n);
    int (*alloc)(hfft__dev *d, void **p, size_t bytes);
    void (*free)(hfft__dev *d, void *p);
    int (*stream_create)(hfft__dev *d, hfft__stream *s);
    void (*stream_destroy)(hfft__dev *d, hfft__stream s);
    int (*event_create)(hfft__dev *d, hfft__event *e);
    void (*event_destroy)(hfft__dev *d, hfft__event e);
    int (*record)(hfft__dev *d, hfft__event e, hfft__stream s);
    int (*wait)(hfft__dev *d, hfft__stream s, hfft__event e);
    int (*sync)(hfft__dev *d, hfft__stream s);
    /* Blocks until the event's last record has run. */
    int (*event_sync)(hfft__dev *d, hfft__event e);
    /* Events that keep the time of their record (for traces), and the seconds between
       two such records that have run. */
    int (*event_create_timed)(hfft__dev *d, hfft__event *e);
    int (*event_elapsed)(hfft__dev *d, hfft__event from, hfft__event to, double *secs);
    /* Runs fn(arg) on a host thread once the stream's earlier work is done; the
       stream's later work waits for it.  fn must not call the device. */
    int (*host_fn)(hfft__dev *d, hfft__stream s, void (*fn)(void *), void *arg);
    /* Makes the plan's device current on the calling thread (execute may run
       on another thread than planning did). */
    int (*activate)(hfft__dev *d);
    /* 2D copies: height rows of width bytes, pitches in bytes. */
    int (*h2d)(hfft__dev *d, hfft__stream s, void *dst, size_t dpitch, const void *src,
               size_t spitch, size_t width, size_t height);
    int (*d2h)(hfft__dev *d, hfft__stream s, void *dst, size_t dpitch, const void *src,
               size_t spitch, size_t width, size_t height);
    /* The same within the device. */
    int (*d2d)(hfft__dev *d, hfft__stream s, void *dst, size_t dpitch, const void *src,
               size_t spitch, size_t width, size_t height);
    /* The same between this card's memory and card `to`'s, either way (the pointers
       say which), on this card's stream s. */
    int (*peer)(hfft__dev *d, hfft__stream s, hfft__dev *to, void *dst, size_t dpitch,
                const void *src, size_t spitch, size_t width, size_t height);
    /* Batched in-place transforms of kind HFFT__C2C (rank 1 or 2 of shape n, element
       stride `stride`, `dist` elements between transforms, `batch` transforms; with an
       r2r code or'ed in, HFFT__R2R_BIT in src/core/problem.h, each line's or plane's
       real-to-real kinds through gpu/r2r.c), or
       HFFT__R2C / HFFT__C2R (n the real shape, stride 1, FFTW's padded in-place layout:
       complex rows of n/2 + 1 elements, `dist` complex elements apart, the real rows
       overlaying them).  Reports its work bytes. */
    int (*fft_plan)(hfft__dev *d, int prec, int kind, int rank, const int64_t *n,
                    int64_t stride, int64_t dist, int64_t batch, int sign, hfft__fftplan *plan,
                    size_t *work_bytes);
    int (*fft_exec)(hfft__dev *d, hfft__fftplan plan, hfft__stream s, void *data, void *work);
    void (*fft_destroy)(hfft__dev *d, hfft__fftplan plan);
    /* a' = a + w b, b' = a - w b with w = exp(sign 2 pi i (k0 + row) / N), on rows x w tiles. */
    int (*radix2)(hfft__dev *d, int prec, hfft__stream s, void *a, void *b, int64_t rows,
                  int64_t width, int64_t N, int64_t k0, int sign);
    /* dst[j * dpitch + i] = src[i * spitch + j] for i < rows, j < cols: complex
       elements, pitches in elements. */
    int (*transpose)(hfft__dev *d, int prec, hfft__stream s, void *dst, int64_t dpitch,
                     const void *src, int64_t spitch, int64_t rows, int64_t cols);
    /* The same, batched and with twiddles (hfft__transposes). */
    int (*transposes)(hfft__dev *d, int prec, hfft__stream s, void *dst, const void *src,
                      const hfft__transposes *t);
    /* The four-step twiddles: element (r, c) of a rows x cols tile (row pitch `pitch`
       elements) times exp(sign 2 pi i k / n), k = ((r0 + r) mod period) (c0 + c), a
       product below n; period 0: k = (r0 + r) c0, the same along each row. */
    int (*twiddle)(hfft__dev *d, int prec, hfft__stream s, void *data, int64_t rows,
                   int64_t cols, int64_t pitch, int64_t n, int64_t r0, int64_t period,
                   int64_t c0, int sign);
    /* A real transform of 2M points through a complex one of M (gpu/butterfly.h,
       hfft__real_pair): on `batch` padded rows of M + 1 complex elements, `dist`
       apart, forward after the complex transform, backward before it. */
    int (*real_pairs)(hfft__dev *d, int prec, hfft__stream s, void *data, int64_t M,
                      int64_t dist, int64_t batch, int forward);
    /* One of Bluestein's steps (hfft__chirps). */
    int (*chirp)(hfft__dev *d, int prec, hfft__stream s, void *lines, void *buf,
                 const void *table, const hfft__chirps *c);
    /* One of a real-to-real kind's steps (hfft__r2r_step) between `lines` and `buf`. */
    int (*r2r)(hfft__dev *d, int prec, hfft__stream s, void *lines, void *buf,
               const hfft__r2r_step *a);
    /* One of a streaming image's steps (hfft__spift). */
    int (*spift)(hfft__dev *d, int prec, hfft__stream s, void *dst, const void *src,
                 const hfft__spift *a);
    /* Radix-r DIT combination of r tiles (see gpu/butterfly.h). */
    int (*radixr)(hfft__dev *d, int prec, hfft__stream s, void *const *blk, int r, int64_t rows,
                  int64_t width, int64_t L, int64_t k0, int sign);
    /* Host memory: pinned allocation, registration, and whether p is pinned. */
    int (*host_alloc)(hfft__dev *d, void **p, size_t bytes);
    void (*host_free)(hfft__dev *d, void *p);
    int (*host_register)(hfft__dev *d, void *p, size_t bytes);
    void (*host_unregister)(hfft__dev *d, void *p);
    int (*host_is_pinned)(hfft__dev *d, const void *p);
} hfft__dev_ops;

#endif
