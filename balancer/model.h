/*
 * model.h: the cost model of a round split between GPU and CPU, after the
 * 2013 library: per round, Time = max(GPU, CPU), T_total = sum over rounds.
 * The GPU side is the link (copies in and out overlapped with the kernels:
 * Tlap_in + Tg_comb + Tlap_out collapse to the slower copy direction when
 * passes pipeline), the CPU side the FFTW executor's rate.  Both sides use
 * host memory: every byte the link moves is read or written there, and so is
 * every byte the CPU transforms.  While both run, the CPU gets the host
 * memory bandwidth the copy engines of all the plan's cards leave; what
 * contention remains beyond that (for the cache, for the cores that feed the
 * cards) is a residual slowdown of each side, fitted to a measured hybrid
 * round.  Each side is slowed only while the other works: the one done first
 * leaves the other its own rate.
 * Pure functions of measured rates: unit-tested with synthetic ones.
 */
#ifndef HFFT_MODEL_H
#define HFFT_MODEL_H

#include <stdint.h>

/* The machine: link rates and the 2D-copy efficiency against row width.  Where
   the cards share the host, k of them copying at once move min(k x one card's
   rate, the rate of all `cards` measured together) each way: one direction alone may
   scale with the cards where both directions at once fall well short of k times
   one card's rate (the host's memory holds them back). */
typedef struct hfft__link {
    double h2d, d2h;      /* bytes/s, one card, one direction alone, large pinned copies */
    double duplex;        /* bytes/s per direction with both busy, one card */
    int cards;            /* cards measured copying at once (0 or 1: none beyond one) */
    double all_h2d, all_d2h, all_duplex; /* their bytes/s together, as above */
    int nrow;
    double row_bytes[12]; /* ascending */
    double row_eff[12];   /* duplex 2D rate / duplex contiguous rate */
} hfft__link;

/* One round of a problem, as the model sees it. */
typedef struct hfft__round_model {
    double bytes;      /* S: the array's bytes (every round moves all of them) */
    double row_bytes;  /* DMA row width of a strided pass; 0 for contiguous passes */
    double pass_bytes; /* bytes per pass (each card's) */
    int cards;         /* cards streaming the GPU's share at once, each its part (0: one) */
    double gpu_rate;   /* bytes/s the GPU engine achieves on this round, all its cards
                          together (0: from the link) */
    double cpu_rate;   /* bytes/s the CPU executor achieves alone (0: unknown) */
    double gpu_slow;   /* GPU slowdown while the CPU works (0: none); once the CPU's
                          share is done the GPU goes on at gpu_rate */
    double cpu_slow;   /* CPU slowdown while the link runs, beyond host memory (0: none) */
    double host_bw;    /* host memory bytes/s, read plus written, that the link and the
                          CPU share (0: not counted) */
    double cpu_traffic; /* host memory bytes the CPU moves per byte of its share (0: 2,
                           each byte read once and written once) */
} hfft__round_model;

enum { HFFT__LINK_H2D, HFFT__LINK_D2H, HFFT__LINK_DUPLEX };
/* Bytes/s each way over k cards copying at once in direction `dir` (HFFT__LINK_*). */
double hfft__link_rate(const hfft__link *l, int k, int dir);
/* 2D-copy efficiency for rows of `row_bytes` (1 for contiguous). */
double hfft__link_efficiency(const hfft__link *l, double row_bytes);
/* GPU engine throughput of a round from the link alone. */
double hfft__model_gpu_rate(const hfft__link *l, const hfft__round_model *r);
/* Seconds for the GPU to do share f (0..1) of the round, and the CPU the rest
   (at the rate the link's use of host memory leaves it while the GPU works). */
double hfft__model_gpu_time(const hfft__link *l, const hfft__round_model *r, double f);
double hfft__model_cpu_time(const hfft__link *l, const hfft__round_model *r, double f);
/* max(GPU, CPU) for share f. */
double hfft__model_round_time(const hfft__link *l, const hfft__round_model *r, double f);
/* The share that minimises the round's time, with that time in *t.  A hybrid
   split is returned only where it beats GPU-only by more than `margin`
   (0.03: never risk more than 3% against the better single device). */
double hfft__model_best_share(const hfft__link *l, const hfft__round_model *r, double margin,
                              double *t);

/* The share of a round's next probe, after one at `probed` where the model had
   proposed `proposed`, with `probes` probes of the round fitted into r: the
   model's best (no margin), except that a round the model had split, probed at
   that share, leaves the hybrid (a share of 0 or 1) only once the model fitted
   to two probes or more says so: after one, it is probed again at the same
   share, since one slow probe can fit slowdowns that send a round wholly to one
   side where a split would have been faster; *again is then 1, else 0. */
double hfft__model_next_share(const hfft__link *l, const hfft__round_model *r, double proposed,
                              double probed, int probes, int *again);

/* From one measured hybrid probe (share f, GPU side tg, CPU side tc) and the
   GPU-only and CPU-only round times, the rates and slowdowns of the model
   (host_bw and cpu_traffic as set by the caller).  Without a CPU-only time
   the CPU's rate alone is the one that explains the probe. */
void hfft__model_fit(hfft__round_model *r, double t_gpu_only, double t_cpu_only, double f,
                     double tg, double tc);

/* hfft-tune's last word on a candidate that beat the faster single side once:
   with both timed twice (h[], s[]; a run that failed is 0 or not finite), 1
   where each of the candidate's runs beats each of the single side's by more
   than `margin` (0.02: 2% ahead at least), else 0. */
int hfft__model_keep(const double h[2], const double s[2], double margin);

#endif
