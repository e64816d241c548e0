/*
 * hfft.h: the whole public interface of hfft, a library for multi-dimensional
 * FFTs (complex, real-to-complex / complex-to-real, and FFTW's real-to-real
 * kinds: DCTs, DSTs, the Hartley and halfcomplex transforms) of arrays in host
 * memory that are larger than GPU memory.  The array streams through the GPU
 * in passes while FFTW threads on the CPU take a share; a cost model decides
 * the split.  Conventions follow FFTW: row-major, last index fastest,
 * unnormalized, FORWARD = -1; the basic, advanced (plan_many) and guru
 * interfaces take FFTW's arguments with FFTW's meaning.  hfft_* is double
 * precision, hfftf_* single; both are declared once by HFFT_DEFINE_API below.
 */
#ifndef HFFT_H
#define HFFT_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(HFFT_BUILDING) && defined(__GNUC__)
#define HFFT_API __attribute__((visibility("default")))
#else
#define HFFT_API
#endif

#define HFFT_VERSION_MAJOR 0
#define HFFT_VERSION_MINOR 2
#define HFFT_VERSION_PATCH 0
#define HFFT_VERSION_STRING "0.2.0"

/* Limits of the guru interface: transform rank and batch (vector) rank. */
#define HFFT_MAX_RANK 16
/* Cards one plan may use (hfft_info.card_ids). */
#define HFFT_MAX_CARDS 16

/* CPU threads a plan may use (hfft_options.threads, HFFT_THREADS). */
#define HFFT_MAX_THREADS 4096

/* Rounds a plan may make of a problem (hfft_info's per-round arrays). */
#define HFFT_MAX_ROUNDS 8

#define HFFT_FORWARD (-1)
#define HFFT_BACKWARD (+1)

/* Real-to-real kinds, one per dimension, with FFTW's values and definitions (FFTW's
   manual, "What FFTW Really Computes"), unnormalized: R2HC/HC2R the real DFT in FFTW's
   halfcomplex order and its inverse, DHT the discrete Hartley transform, REDFTab the
   DCTs (REDFT00 type I on n >= 2 points, 10 type II, 01 type III, 11 type IV) and
   RODFTab the DSTs likewise.  A transform and its inverse multiply by 2(n-1) (REDFT00),
   2(n+1) (RODFT00), 2n (the other DCTs and DSTs) or n (R2HC, DHT). */
typedef enum hfft_r2r_kind_e {
    HFFT_R2HC = 0,
    HFFT_HC2R = 1,
    HFFT_DHT = 2,
    HFFT_REDFT00 = 3,
    HFFT_REDFT01 = 4,
    HFFT_REDFT10 = 5,
    HFFT_REDFT11 = 6,
    HFFT_RODFT00 = 7,
    HFFT_RODFT01 = 8,
    HFFT_RODFT10 = 9,
    HFFT_RODFT11 = 10
} hfft_r2r_kind;

/* Planning rigour (pick one; ESTIMATE is the default). */
#define HFFT_ESTIMATE (1u << 0)     /* plan from the cost model and stored calibration */
#define HFFT_MEASURE (1u << 1)      /* time candidates (bounded; see README) */
/* Placement (pick at most one; default: automatic from the cost model). */
#define HFFT_CPU_ONLY (1u << 4)     /* FFTW threads only; no GPU is touched */
#define HFFT_GPU_ONLY (1u << 5)     /* the GPU engine only; an error where no GPU is usable */
#define HFFT_HYBRID (1u << 6)       /* GPU and CPU together, even where the model disagrees */
/* GPU schedule (pick at most one; default: chosen by the planner, one trip where the
   array and its work areas fit the device budget). */
#define HFFT_SCHEDULE_PLAIN (1u << 8)   /* whole lines per pass, rotating streams */
#define HFFT_SCHEDULE_RADIX2 (1u << 9)  /* four subsequences per pass, radix-2 combinations */
/* Input arrays (FFTW's meaning).  Out-of-place c2c and r2c transforms keep their
   input by default; c2r transforms may overwrite theirs (as FFTW's do) unless
   HFFT_PRESERVE_INPUT, which may cost a host scratch of the input's size. */
#define HFFT_PRESERVE_INPUT (1u << 12)
#define HFFT_DESTROY_INPUT (1u << 13)   /* the input may be overwritten */
#define HFFT_UNALIGNED (1u << 14)       /* execute_* may get arrays of any alignment */
/* 1D transforms in transposed order, for convolutions that go straight back: hfft cuts
   n = n0 n1 (hfft_info.split; n1 the largest divisor of n at most sqrt(n), so both
   directions agree) and, with TRANSPOSED_OUT, leaves X[k0 + n0 k1] at k0 n1 + k1; a
   plan with TRANSPOSED_IN reads its input in that order.  As FFTW-MPI's flags. */
#define HFFT_TRANSPOSED_OUT (1u << 16)
#define HFFT_TRANSPOSED_IN (1u << 17)
/* Streaming images (hfft_stream_*): how a flush brings the image up to date (pick at
   most one; default: per flush, whichever the stream's cost model finds faster). */
#define HFFT_STREAM_DIRECT (1u << 20) /* each pending key's update applied to the image */
#define HFFT_STREAM_GRID (1u << 21)   /* the pending points' grid transformed, then added */

/*
 * One dimension of the guru interface, as FFTW's fftw_iodim64: n elements,
 * input stride is and output stride os.  Strides count elements of the array
 * they apply to: complex numbers for interleaved complex arrays, reals for
 * real and for split (separate real and imaginary) arrays.
 */
typedef struct hfft_iodim {
    int64_t n, is, os;
} hfft_iodim;

/*
 * Status codes: 0 is success, every failure is negative.  One table produces
 * the enum and hfft_strerror().
 */
#define HFFT_STATUS_TABLE(X)                                                             \
    X(HFFT_SUCCESS, 0, "success")                                                        \
    X(HFFT_ERR_INVALID_ARGUMENT, -1, "invalid argument")                                 \
    X(HFFT_ERR_HOST_MEMORY, -2, "host memory allocation failed")                         \
    X(HFFT_ERR_DEVICE_MEMORY, -3, "device memory allocation failed")                     \
    X(HFFT_ERR_NO_DEVICE, -4, "no usable GPU")                                           \
    X(HFFT_ERR_CUDA, -5, "CUDA runtime call failed")                                     \
    X(HFFT_ERR_CUFFT, -6, "cuFFT call failed")                                           \
    X(HFFT_ERR_FFTW, -7, "FFTW planning failed")                                         \
    X(HFFT_ERR_SETTING, -8, "malformed setting")                                         \
    X(HFFT_ERR_BUDGET, -9, "device memory budget too small for this problem")            \
    X(HFFT_ERR_UNSUPPORTED, -10, "problem not supported by the requested engine")        \
    X(HFFT_ERR_THREAD, -11, "thread creation failed")                                    \
    X(HFFT_ERR_WISDOM, -12, "corrupt or unreadable wisdom")                              \
    X(HFFT_ERR_IO, -13, "file input/output failed")                                      \
    X(HFFT_ERR_INTERNAL, -14, "internal error")

#define HFFT_STATUS_ENUM_(name, value, text) name = value,
typedef enum hfft_status { HFFT_STATUS_TABLE(HFFT_STATUS_ENUM_) } hfft_status;
#undef HFFT_STATUS_ENUM_

/* Backend selection for hfft_options.device (also HFFT_DEVICE=none|cuda|emulated). */
enum hfft_device_kind {
    HFFT_DEVICE_AUTO = 0,     /* CUDA where a GPU is usable, else none */
    HFFT_DEVICE_NONE = 1,     /* CPU only */
    HFFT_DEVICE_CUDA = 2,     /* the GPU */
    HFFT_DEVICE_EMULATED = 3  /* a test double: the GPU schedule in host memory, budget enforced */
};

/* How a GPU plan copies arrays that are not pinned (not from hfft_malloc), for
   hfft_options.pinning (also HFFT_PINNING=auto|register|stage). */
enum hfft_pinning {
    HFFT_PINNING_AUTO = 0,     /* register them; under HFFT_MEASURE, whichever of the two
                                  executed faster; staged where registration fails */
    HFFT_PINNING_REGISTER = 1, /* page-lock them for the plan's lifetime (cudaHostRegister) */
    HFFT_PINNING_STAGE = 2     /* leave them pageable: copy through a few pinned buffers that
                                  host threads fill and empty (plain schedule only) */
};

/*
 * Settings that a plan reads at creation.  A field left at 0 (NULL for
 * strings) falls back to its environment variable, then to the built-in
 * default; a field set here wins over the environment.
 *   device_memory  HFFT_DEVICE_MEMORY  device budget in bytes ("2GiB", "512MiB", "4096")
 *                                      default: free device memory at plan time less 5%
 *                                      and 256 MiB
 *   threads        HFFT_THREADS        CPU threads; default: one per core
 *   device         HFFT_DEVICE         enum hfft_device_kind
 *   wisdom         HFFT_WISDOM         wisdom file written by hfft-tune
 *   ratio          (none)              fixed GPU share of every round in (0, 1]; 0: balancer
 *   round_ratio    (none)              fixed GPU share per round (overrides ratio where > 0).
 *                                      Round 1 is the strided one (columns in 2D, Z lines in
 *                                      3D), round 2 the rows (2D) or XY planes (3D)
 *   pass_bytes     (none)              fixed pass size on the device in bytes; 0: planner
 *   slots          (none)              pass buffers on the device, 2..8; 0: planner
 *   pinning        HFFT_PINNING        enum hfft_pinning: arrays not from hfft_malloc are
 *                                      registered or staged; default auto
 *   devices        HFFT_DEVICES        the cards GPU plans use: "all" (the default: every
 *                                      card the backend sees) or a comma list of ordinals
 *                                      ("0,1"); with HFFT_DEVICE=emulated, that many
 *                                      emulated cards, each with the budget
 *   trace          HFFT_TRACE          1: GPU plans time every device operation of each
 *                                      execute (CUDA events; a few microseconds each) for
 *                                      hfft_plan_trace; default 0
 * Thread safety: an options struct is plain data; share it read-only freely.
 */
typedef struct hfft_options {
    int64_t device_memory;
    int threads;
    int device;
    const char *wisdom;
    double ratio;
    double round_ratio[3];
    int64_t pass_bytes;
    int slots;
    int pinning;
    int trace;
    const char *devices;
} hfft_options;

/* The GPU schedule a plan runs (hfft_info.schedule). */
enum hfft_schedule_kind {
    HFFT_SCHED_NONE = 0,      /* none: the plan runs on the CPU */
    HFFT_SCHED_PLAIN = 1,     /* streaming: whole lines per pass */
    HFFT_SCHED_RADIX2 = 2,    /* streaming: four subsequences per pass, radix-2 combinations */
    HFFT_SCHED_ONE_TRIP = 3,  /* the whole array on the card(s): each byte crosses a link once
                                 each way */
    HFFT_SCHED_FOUR_STEP = 4  /* streaming out of place: two rounds that copy runs of whole
                                 rows */
};

/* Kinds of device operation in a trace. */
enum hfft_trace_kind {
    HFFT_TRACE_H2D = 0,     /* a copy host to device */
    HFFT_TRACE_D2H = 1,     /* device to host */
    HFFT_TRACE_D2D = 2,     /* within a card, or card to card */
    HFFT_TRACE_COMPUTE = 3  /* an FFT or one of hfft's kernels */
};

/* One device operation of a plan's last execute (hfft_plan_trace). */
typedef struct hfft_trace_op {
    int device;         /* the card, 0 on a single-card plan */
    int stream;         /* the plan's stream it ran on, 0, 1, ... in the order created */
    int kind;           /* enum hfft_trace_kind */
    double start, end;  /* seconds since the execute began on the device */
    int64_t bytes;      /* bytes a copy moved; 0 for compute */
    char name[16];      /* "h2d", "d2h", "d2d", "fft", "transpose", "twiddle", "radix2",
                           "radixr" */
} hfft_trace_op;

/* What a plan chose and what it holds; filled by hfft_plan_info/hfftf_plan_info.
   Per-round arrays hold the first `rounds` entries. */
typedef struct hfft_info {
    int kind;                   /* 0 complex (c2c), 1 real to complex (r2c), 2 complex to real,
                                   3 real to real (r2r_kinds) */
    int rank;                   /* transform rank as given (1 to HFFT_MAX_RANK; 0: a copy) */
    int64_t n[HFFT_MAX_RANK];   /* transform sizes, slowest first (r2c/c2r: the real sizes) */
    int64_t howmany;            /* transforms in the batch (product of the vector sizes) */
    int64_t split[2];           /* n0, n1 where the last dimension is cut four-step (a line
                                   too long for the device, or HFFT_TRANSPOSED_*); 0 if not */
    int precision;              /* 4 (single) or 8 (double): bytes of one real */
    int device;                 /* enum hfft_device_kind actually used */
    int cards;                  /* cards the plan uses (0: none) */
    int card_ids[HFFT_MAX_CARDS]; /* their ordinals */
    int placement;              /* 0 CPU only, 1 GPU only, 2 hybrid */
    int schedule;               /* enum hfft_schedule_kind */
    int rounds;                 /* rounds of passes over the array */
    int passes[HFFT_MAX_ROUNDS];    /* GPU passes per round */
    int streams;                /* pass buffers in flight (plain) or streams (radix-2) */
    int transposed;             /* 1 where long strided lines are computed transposed */
    double ratio[HFFT_MAX_ROUNDS];  /* GPU share of each round's transforms, 0..1 */
    int threads;                /* CPU threads */
    int cpu_plan;               /* CPU only: 0 rounds of batched lines, 1 FFTW's own plan of
                                   the whole problem (chosen by timing under HFFT_MEASURE, or
                                   for layouts the rounds do not take; see note) */
    int64_t device_budget;      /* bytes the plan may use on the device (all its cards) */
    int64_t device_bytes;       /* bytes it allocated there (buffers and cuFFT work areas) */
    int64_t resident_bytes;     /* of which the array's part that stays on the device between
                                   two streaming rounds (partial residency) */
    int64_t host_bytes;         /* host scratch and staging it allocated */
    int host_pinned;            /* GPU plans: 0 pageable arrays staged, 1 registered by the
                                   plan, 2 already pinned (hfft_malloc) */
    int64_t link_bytes[2];      /* bytes copied host to device [0] and device to host [1] by
                                   the last execute (0 for CPU plans) */
    double pin_seconds;         /* GPU plans: seconds the last new-array execute spent
                                   registering arrays it had not seen (0 for the plan's own or
                                   pinned ones) */
    int64_t pinned_bytes;       /* GPU plans: host bytes kept registered for new arrays (the 8
                                   most recently used; released at destroy) */
    double predicted_seconds[HFFT_MAX_ROUNDS]; /* model's time per round (0: no model ran) */
    double measured_seconds[HFFT_MAX_ROUNDS];  /* each round's time in the last execute
                                                  (GPU-only streaming: on the device, from
                                                  the end of the round before, as rounds
                                                  overlap there) */
    double measured_gpu[HFFT_MAX_ROUNDS];      /* of which the GPU side (hybrid rounds run
                                                  both at once) */
    double measured_cpu[HFFT_MAX_ROUNDS];      /* and the CPU side */
    int wisdom;                 /* 1 tuned for this problem, 2 model on the rates of a similar
                                   tuned problem, -1 wisdom ignored (see note), 0 none */
    char wisdom_note[160];      /* why wisdom was ignored, or "" */
    char note[256];             /* where a part of the problem runs other than asked, and why;
                                   or "" */
    char device_name[96];       /* GPU name, "emulated" or "none" */
    double done_ratio[HFFT_MAX_ROUNDS]; /* the GPU share of each round in the last execute
                                           that succeeded: ratio, or more in a hybrid round
                                           where the GPU took back units a late CPU had not
                                           started */
    int r2r_kinds[HFFT_MAX_RANK]; /* r2r plans: each dimension's hfft_r2r_kind */
    int r2r_paired;             /* r2r plans on the rounds: 1 where the array runs as complex
                                   elements of two neighbouring reals (each kind through a
                                   complex FFT with its steps before and after, on the card
                                   or FFTW's r2r lines on the CPU); 0 FFTW's r2r plan of the
                                   whole problem (odd innermost size, or a layout the rounds
                                   do not take: see note) */
} hfft_info;

/*
 * Streaming images: an image kept equal to I0 (the array's contents when the
 * stream was made) plus the unnormalized DFT, in FFTW's sign convention, of
 * every point added, as points arrive (the Single Point Incremental Fourier
 * Transform).  Points are first summed by cell and by key: with rank 2 and an
 * N x N image, N a power of two, a point (u, v) adds a matrix whose rows are
 * cyclic shifts of one N-vector, and points of the same shift type and shift
 * index (at most 2N keys) share that vector; elsewhere a key is a point's
 * indices but the last (a row), whose points share a vector along the last
 * dimension.  Two ways bring the image up to date at a flush: DIRECT, each
 * pending key's vector transformed and added along every row (one pass over
 * the image, the cost growing with the keys), and GRID, the pending points'
 * grid transformed by hfft's own plan (CPU, GPU, one trip, streaming or
 * several cards as that plan chooses) and added (the cost of a transform).
 */
enum hfft_stream_strategy {
    HFFT_STREAM_NONE = 0,        /* no flush has applied points yet */
    HFFT_STREAM_BY_KEYS = 1,     /* the last flush applied each key (HFFT_STREAM_DIRECT) */
    HFFT_STREAM_BY_GRID = 2      /* the last flush transformed the grid (HFFT_STREAM_GRID) */
};

/* What a stream did; filled by hfft_stream_info/hfftf_stream_info. */
typedef struct hfft_stream_stats {
    int rank;                    /* the image's rank, 1 to 3 */
    int64_t n[3];                /* its sizes, slowest first */
    int64_t points_added;        /* points added since the stream was made */
    int64_t points_applied;      /* of which the image holds (those added before the last
                                    flush) */
    int64_t flushes;             /* flushes that applied points */
    int last_strategy;           /* enum hfft_stream_strategy of the last such flush */
    int64_t last_keys;           /* keys pending at that flush */
    int64_t last_points;         /* points it applied (repeated points counted each time) */
    double last_seconds;         /* its time */
    double flush_seconds;        /* the time of every flush together */
    double add_seconds;          /* the time of every add together */
    int64_t link_bytes[2];       /* bytes host to device [0] and back [1] of the last flush */
    int shift_keys;              /* 1 where points are summed by shift keys (rank 2, N x N,
                                    N a power of two), 0 by rows */
    int image_on_cards;          /* 1 where the image stays on the cards between flushes, 0
                                    in host memory (the user's array) */
    int cards;                   /* cards the stream's flushes use (0: the CPU alone) */
    int card_ids[HFFT_MAX_CARDS]; /* their ordinals */
    int threads;                 /* CPU threads */
} hfft_stream_stats;

#define HFFT_DEFINE_API(X, R)                                                                      \
    typedef R X(complex)[2];                                                                       \
    typedef struct X(plan_s) *X(plan);                                                             \
                                                                                                   \
    /* ---- Plans.  Every constructor returns NULL on failure (see hfft_last_error). in == out     \
       is in-place; an out-of-place c2c or r2c transform leaves its input untouched, a c2r one     \
       may overwrite it (FFTW's default; HFFT_PRESERVE_INPUT keeps it).  Thread safety: safe to    \
       call from several threads. ---- */                                                          \
                                                                                                   \
    /* Basic complex transforms of a dense row-major array. */                                     \
    HFFT_API X(plan) X(plan_1d)(int n, X(complex) *in, X(complex) *out, int sign, unsigned flags); \
    HFFT_API X(plan) X(plan_2d)(int n0, int n1, X(complex) *in, X(complex) *out, int sign,         \
                                unsigned flags);                                                   \
    HFFT_API X(plan) X(plan_3d)(int n0, int n1, int n2, X(complex) *in, X(complex) *out, int sign, \
                                unsigned flags);                                                   \
    /* Any rank (1..HFFT_MAX_RANK), 64-bit sizes, and optional settings (NULL: environment         \
       and defaults). */                                                                           \
    HFFT_API X(plan) X(plan_dft)(int rank, const int64_t *n, X(complex) *in, X(complex) *out,      \
                                 int sign, unsigned flags, const hfft_options *opts);              \
                                                                                                   \
    /* Basic real transforms: real n0 x ... x n(d-1) to complex n0 x ... x (n(d-1)/2+1),           \
       unnormalized.  In place (in == out) the real array's last dimension is padded to            \
       2 (n(d-1)/2 + 1) reals, as FFTW's. */                                                       \
    HFFT_API X(plan) X(plan_dft_r2c_1d)(int n, R *in, X(complex) *out, unsigned flags);            \
    HFFT_API X(plan) X(plan_dft_r2c_2d)(int n0, int n1, R *in, X(complex) *out, unsigned flags);   \
    HFFT_API X(plan) X(plan_dft_r2c_3d)(int n0, int n1, int n2, R *in, X(complex) *out,            \
                                        unsigned flags);                                           \
    HFFT_API X(plan) X(plan_dft_r2c)(int rank, const int64_t *n, R *in, X(complex) *out,           \
                                     unsigned flags, const hfft_options *opts);                    \
    HFFT_API X(plan) X(plan_dft_c2r_1d)(int n, X(complex) *in, R *out, unsigned flags);            \
    HFFT_API X(plan) X(plan_dft_c2r_2d)(int n0, int n1, X(complex) *in, R *out, unsigned flags);   \
    HFFT_API X(plan) X(plan_dft_c2r_3d)(int n0, int n1, int n2, X(complex) *in, R *out,            \
                                        unsigned flags);                                           \
    HFFT_API X(plan) X(plan_dft_c2r)(int rank, const int64_t *n, X(complex) *in, R *out,           \
                                     unsigned flags, const hfft_options *opts);                    \
                                                                                                   \
    /* The advanced interface: howmany transforms of rank `rank` and sizes n, with FFTW's          \
       embeddings, strides and distances (inembed/onembed NULL: n itself).  The 64-bit forms       \
       take settings. */                                                                           \
    HFFT_API X(plan) X(plan_many_dft)(int rank, const int *n, int howmany, X(complex) *in,         \
                                      const int *inembed, int istride, int idist, X(complex) *out, \
                                      const int *onembed, int ostride, int odist, int sign,        \
                                      unsigned flags);                                             \
    HFFT_API X(plan) X(plan_many_dft64)(int rank, const int64_t *n, int64_t howmany,             \
                                        X(complex) *in,                                            \
                                        const int64_t *inembed, int64_t istride, int64_t idist,    \
                                        X(complex) *out, const int64_t *onembed, int64_t ostride,  \
                                        int64_t odist, int sign, unsigned flags,                   \
                                        const hfft_options *opts);                                 \
    HFFT_API X(plan) X(plan_many_dft_r2c)(int rank, const int *n, int howmany, R *in,              \
                                          const int *inembed, int istride, int idist,              \
                                          X(complex) *out, const int *onembed, int ostride,        \
                                          int odist, unsigned flags);                              \
    HFFT_API X(plan) X(plan_many_dft_r2c64)(int rank, const int64_t *n, int64_t howmany, R *in,    \
                                            const int64_t *inembed, int64_t istride, int64_t idist, \
                                            X(complex) *out, const int64_t *onembed,               \
                                            int64_t ostride, int64_t odist, unsigned flags,        \
                                            const hfft_options *opts);                             \
    HFFT_API X(plan) X(plan_many_dft_c2r)(int rank, const int *n, int howmany, X(complex) *in,     \
                                          const int *inembed, int istride, int idist, R *out,      \
                                          const int *onembed, int ostride, int odist,              \
                                          unsigned flags);                                         \
    HFFT_API X(plan) X(plan_many_dft_c2r64)(int rank, const int64_t *n, int64_t howmany,           \
                                            X(complex) *in, const int64_t *inembed,                \
                                            int64_t istride, int64_t idist, R *out,                \
                                            const int64_t *onembed,                                \
                                            int64_t ostride, int64_t odist, unsigned flags,        \
                                            const hfft_options *opts);                             \
                                                                                                   \
    /* The guru interface: `rank` transform dimensions and `howmany_rank` vector (batch)           \
       dimensions, each with its size and strides (hfft_iodim), on interleaved or split            \
       (separate real and imaginary) arrays.  Everything FFTW's guru64 DFT interface accepts.      \
       Split complex transforms take their direction from the arrays' order, as FFTW's: pass       \
       the imaginary arrays in place of the real ones for the inverse. */                          \
    HFFT_API X(plan) X(plan_guru_dft)(int rank, const hfft_iodim *dims, int howmany_rank,          \
                                      const hfft_iodim *howmany_dims, X(complex) *in,              \
                                      X(complex) *out, int sign, unsigned flags,                   \
                                      const hfft_options *opts);                                   \
    HFFT_API X(plan) X(plan_guru_split_dft)(int rank, const hfft_iodim *dims, int howmany_rank,    \
                                            const hfft_iodim *howmany_dims, R *ri, R *ii, R *ro,   \
                                            R *io, unsigned flags, const hfft_options *opts);      \
    HFFT_API X(plan) X(plan_guru_dft_r2c)(int rank, const hfft_iodim *dims, int howmany_rank,      \
                                          const hfft_iodim *howmany_dims, R *in, X(complex) *out,  \
                                          unsigned flags, const hfft_options *opts);               \
    HFFT_API X(plan) X(plan_guru_split_dft_r2c)(int rank, const hfft_iodim *dims, int howmany_rank, \
                                                const hfft_iodim *howmany_dims, R *in, R *ro,      \
                                                R *io, unsigned flags, const hfft_options *opts);  \
    HFFT_API X(plan) X(plan_guru_dft_c2r)(int rank, const hfft_iodim *dims, int howmany_rank,      \
                                          const hfft_iodim *howmany_dims, X(complex) *in, R *out,  \
                                          unsigned flags, const hfft_options *opts);               \
    HFFT_API X(plan) X(plan_guru_split_dft_c2r)(int rank, const hfft_iodim *dims, int howmany_rank, \
                                                const hfft_iodim *howmany_dims, R *ri, R *ii,      \
                                                R *out, unsigned flags, const hfft_options *opts); \
                                                                                                   \
    /* Real-to-real transforms: kind[k] (hfft_r2r_kind) along dimension k, each side real,      \
       the same shape in and out (FFTW's r2r interface, with its arguments' meaning). */          \
    HFFT_API X(plan) X(plan_r2r_1d)(int n, R *in, R *out, hfft_r2r_kind kind, unsigned flags);    \
    HFFT_API X(plan) X(plan_r2r_2d)(int n0, int n1, R *in, R *out, hfft_r2r_kind kind0,           \
                                    hfft_r2r_kind kind1, unsigned flags);                          \
    HFFT_API X(plan) X(plan_r2r_3d)(int n0, int n1, int n2, R *in, R *out, hfft_r2r_kind kind0,   \
                                    hfft_r2r_kind kind1, hfft_r2r_kind kind2, unsigned flags);     \
    HFFT_API X(plan) X(plan_r2r)(int rank, const int *n, R *in, R *out,                           \
                                 const hfft_r2r_kind *kind, unsigned flags);                       \
    /* Any rank, 64-bit sizes and settings. */                                                    \
    HFFT_API X(plan) X(plan_r2r64)(int rank, const int64_t *n, R *in, R *out,                     \
                                   const hfft_r2r_kind *kind, unsigned flags,                      \
                                   const hfft_options *opts);                                      \
    HFFT_API X(plan) X(plan_many_r2r)(int rank, const int *n, int howmany, R *in,                 \
                                      const int *inembed, int istride, int idist, R *out,          \
                                      const int *onembed, int ostride, int odist,                  \
                                      const hfft_r2r_kind *kind, unsigned flags);                  \
    HFFT_API X(plan) X(plan_many_r2r64)(int rank, const int64_t *n, int64_t howmany, R *in,       \
                                        const int64_t *inembed, int64_t istride, int64_t idist,   \
                                        R *out, const int64_t *onembed, int64_t ostride,           \
                                        int64_t odist, const hfft_r2r_kind *kind, unsigned flags,  \
                                        const hfft_options *opts);                                 \
    HFFT_API X(plan) X(plan_guru_r2r)(int rank, const hfft_iodim *dims, int howmany_rank,         \
                                      const hfft_iodim *howmany_dims, R *in, R *out,               \
                                      const hfft_r2r_kind *kind, unsigned flags,                   \
                                      const hfft_options *opts);                                   \
                                                                                                   \
    /* ---- Execution: 0 or a negative status.  After a failure an out-of-place input is           \
       untouched (c2r: as the plan's flags say) and the output undefined; an in-place array is     \
       undefined (the message says so).  Thread safety: one execute per plan at a time;            \
       different plans may execute concurrently. ---- */                                           \
                                                                                                   \
    /* Runs the plan on its arrays. */                                                             \
    HFFT_API int X(execute)(X(plan) p);                                                            \
    /* The new-array executes: the plan's transform on other arrays of the same layout, with       \
       in == out exactly where the plan's were, and the plan's arrays' alignment modulo 64 bytes   \
       (any alignment with HFFT_UNALIGNED).  Each takes the plan kind it names.  A plan that uses  \
       the GPU registers a new array on first use (kept for the 8 most recently used arrays,      \
       until the plan is destroyed; hfft_info.pin_seconds, pinned_bytes) or stages it.  Such an   \
       array must stay allocated while the plan lives (a registration outlives a free, and an     \
       array allocated later at the same address would be copied from the old pages): arrays      \
       freed earlier come from hfft_malloc (pinned already: nothing registered), or the plan is   \
       made with HFFT_PINNING=stage. */                                                           \
    HFFT_API int X(execute_dft)(X(plan) p, X(complex) *in, X(complex) *out);                       \
    HFFT_API int X(execute_split_dft)(X(plan) p, R *ri, R *ii, R *ro, R *io);                      \
    HFFT_API int X(execute_dft_r2c)(X(plan) p, R *in, X(complex) *out);                            \
    HFFT_API int X(execute_split_dft_r2c)(X(plan) p, R *in, R *ro, R *io);                         \
    HFFT_API int X(execute_dft_c2r)(X(plan) p, X(complex) *in, R *out);                            \
    HFFT_API int X(execute_split_dft_c2r)(X(plan) p, R *ri, R *ii, R *out);                        \
    HFFT_API int X(execute_r2r)(X(plan) p, R *in, R *out);                                         \
    /* Accepts NULL.  Not while the plan executes. */                                              \
    HFFT_API void X(destroy_plan)(X(plan) p);                                                      \
    HFFT_API int X(plan_info)(X(plan) p, hfft_info *info);                                         \
    /* The device operations of the last execute of a plan made with hfft_options.trace, in       \
       the order issued: the first min(count, max) into ops; returns count (more than max when     \
       ops was too small), or a negative status (a plan without trace or without a device). */    \
    HFFT_API int X(plan_trace)(X(plan) p, hfft_trace_op *ops, int max);                            \
                                                                                                   \
    /* Host memory, page-aligned (4096 bytes) and pinned (page-locked) where a GPU is usable,      \
       so transfers run at full speed without staging.  NULL on failure.  Thread safe. */          \
    HFFT_API void *X(malloc)(size_t bytes);                                                        \
    HFFT_API R *X(alloc_real)(size_t count);                                                       \
    HFFT_API X(complex) *X(alloc_complex)(size_t count);                                           \
    HFFT_API void X(free)(void *p);                                                                \
                                                                                                   \
    /* ---- Streaming images (see hfft_stream_stats above).  A stream owns no array: the image    \
       is the caller's, written only inside X(stream_flush), and must stay allocated until       \
       X(stream_destroy); the caller reads it between flushes and does not write it (a flush    \
       may write all of it from the stream's own state).  Thread safety: one call per stream   \
       at a time. ---- */                                                                        \
    typedef struct X(stream_s) *X(stream);                                                         \
    /* A stream of an n0 x n1 image; sign FORWARD or BACKWARD (the exponent's sign); flags:      \
       HFFT_STREAM_DIRECT or HFFT_STREAM_GRID (default: chosen per flush), placement flags as   \
       a plan's (HFFT_CPU_ONLY keeps the stream off the GPU), HFFT_MEASURE for the grid's plan  \
       (not where an image in host memory holds data, which trial executes would write).       \
       NULL on failure (hfft_last_error). */                                                     \
    HFFT_API X(stream) X(stream_2d)(int n0, int n1, X(complex) *image, int sign, unsigned flags); \
    /* Rank 1 to 3, 64-bit sizes, optional settings (NULL: environment and defaults). */         \
    HFFT_API X(stream) X(stream_dft)(int rank, const int64_t *n, X(complex) *image, int sign,     \
                                     unsigned flags, const hfft_options *opts);                  \
    /* Adds `count` points: point p at indices index[p rank + d] (any int64, taken modulo n_d)   \
       with value value[p], so that the image gains value_p exp(sign 2 pi i sum_d index_d j_d /  \
       n_d) at every position j once flushed.  Copies what it needs before it returns; never    \
       touches the image.  0, or a negative status with nothing added (count < 0, or a NULL        \
       array with count > 0: HFFT_ERR_INVALID_ARGUMENT), but where a card fails midway (as         \
       X(stream_flush) says). */                                                                   \
    HFFT_API int X(stream_add)(X(stream) s, int64_t count, const int64_t *index,                   \
                               const X(complex) *value);                                         \
    /* Brings the image up to date with every point added before the call; 0 at once where     \
       none is pending.  On failure the image is as before; the pending points stay pending,    \
       except where the grid's own transform failed (its grid is then lost: the message says    \
       how many points were dropped), or a card failed midway (the image is then unknown, and      \
       every later call fails: destroy the stream; docs/streaming.md). */                          \
    HFFT_API int X(stream_flush)(X(stream) s);                                                     \
    HFFT_API int X(stream_info)(X(stream) s, hfft_stream_stats *stats);                            \
    /* Accepts NULL.  Points not flushed are dropped. */                                         \
    HFFT_API void X(stream_destroy)(X(stream) s);

#define HFFT_NAME_D_(name) hfft_##name
#define HFFT_NAME_F_(name) hfftf_##name
HFFT_DEFINE_API(HFFT_NAME_D_, double)
HFFT_DEFINE_API(HFFT_NAME_F_, float)
#undef HFFT_NAME_D_
#undef HFFT_NAME_F_

/* Fills *opts with "unset" (environment, then defaults).  Thread safe. */
HFFT_API void hfft_options_init(hfft_options *opts);

/* Text for a status code; never NULL.  Thread safe. */
HFFT_API const char *hfft_strerror(int status);
/* The status of this thread's last failed call, and its message ("" when none). Thread local. */
HFFT_API int hfft_last_error(void);
HFFT_API const char *hfft_last_error_message(void);

/* Parses a byte size as HFFT_DEVICE_MEMORY does ("2GiB", "512MiB", "64KiB", "1.5GB",
   "4096").  0 and *bytes set, or HFFT_ERR_SETTING.  Thread safe. */
HFFT_API int hfft_parse_bytes(const char *text, int64_t *bytes);

/* The library's version string (HFFT_VERSION_STRING). */
HFFT_API const char *hfft_version(void);

#ifdef __cplusplus
}
#endif
#endif /* HFFT_H */
