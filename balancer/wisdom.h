/*
 * wisdom.h: reading and writing wisdom (see wisdom.c for the format).
 */
#ifndef HFFT_WISDOM_H
#define HFFT_WISDOM_H

#include <stddef.h>
#include <stdint.h>

#include "balancer/model.h"
#include "src/core/device.h"

#define HFFT__WISDOM_MAX 256
#define HFFT__SIGNATURE_MAX 1536 /* sixteen cards with their names */

typedef struct hfft__wisdom_problem {
    int kind; /* enum hfft__kind: c2c (0), r2c or c2r; sizes n are then the real ones */
    int prec, rank;
    int64_t n[3];
    int64_t howmany; /* transforms of a dense batch, one after the other (1: one) */
    int inplace;
    int64_t budget;  /* the budget setting it was tuned for (0: automatic) */
    double ratio[3]; /* GPU share per round */
    int nratio;      /* rounds the line gave (the rest stay as planned) */
    int slots;
    int64_t pass_bytes;
    int schedule;
    double predicted[3], measured[3];
    double gpu_rate[3], cpu_rate[3], gpu_slow[3], cpu_slow[3];
} hfft__wisdom_problem;

typedef struct hfft__wisdom {
    char signature[HFFT__SIGNATURE_MAX];
    int have_link;
    hfft__link link;
    double host_bw; /* host memory bandwidth, bytes read plus written per second (0: none) */
    int nprob;
    hfft__wisdom_problem prob[HFFT__WISDOM_MAX];
} hfft__wisdom;

/* 0 and *w filled; 1 when the file does not exist; a negative status otherwise. */
int hfft__wisdom_read(const char *path, hfft__wisdom *w);
int hfft__wisdom_parse(const char *text, const char *where, hfft__wisdom *w);
int hfft__wisdom_write(const char *path, const hfft__wisdom *w);
int hfft__wisdom_default_path(char *buf, size_t n);
/* Beside the wisdom file (setting: a path, "" for the default one, "none"), FFTW's
   own wisdom of the CPU's line plans of precision prec, which hfft-tune measures:
   PATH.fftw-f32 or PATH.fftw-f64.  0, or -1 where there is none to use. */
int hfft__wisdom_fftw_path(const char *setting, int prec, char *buf, size_t n);
const hfft__wisdom_problem *hfft__wisdom_find(const hfft__wisdom *w, int kind, int prec, int rank,
                                              const int64_t *n, int64_t howmany, int inplace,
                                              int64_t budget);
/* The tuned problem of the same kind, precision, rank and budget nearest in size, a
   batch's nearest among batches and a single transform's among single ones. */
const hfft__wisdom_problem *hfft__wisdom_nearest(const hfft__wisdom *w, int kind, int prec,
                                                 int rank, const int64_t *n, int64_t howmany,
                                                 int64_t budget);
int hfft__wisdom_add(hfft__wisdom *w, const hfft__wisdom_problem *q);
/* The configuration's signature: version, device (the first card's name, driver, CUDA,
   cuFFT), FFTW, threads, and the n cards the plans use, in their order, each card's
   ordinal, name and memory: wisdom tuned on one set of cards steers no plan on another. */
void hfft__signature(const hfft__dev_ops *ops, hfft__dev *const *cards, int n, int threads,
                     char *buf, size_t len);
/* 0 when equal; else 1 and a note naming the first difference. */
int hfft__signature_diff(const char *file, const char *here, char *what, size_t n);

#endif
