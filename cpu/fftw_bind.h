/*
 * fftw_bind.h: the real FFTW, reached only through a private table of function
 * pointers that fftw_bind.c fills from FFTW's own libraries (dlopen, then dlsym
 * on their handles).  libhfft so has no undefined fftw_* symbol, and a program
 * that also loads the drop-in libhfftw3 (which exports FFTW's names) cannot
 * bind the engine's FFTW calls to the drop-in.  Include it instead of
 * <fftw3.h>: its macros turn each FFTW function the engine calls into its entry.
 */
#ifndef HFFT_CPU_FFTW_BIND_H
#define HFFT_CPU_FFTW_BIND_H

#include <fftw3.h>
#include <stddef.h>
#include <stdint.h>

/* Every FFTW function the library calls, without its fftw_/fftwf_ prefix. */
#define HFFT__FFTW_CALLS(X)                                                                   \
    X(plan_guru64_dft) X(plan_guru64_split_dft) X(plan_guru64_dft_r2c)                        \
        X(plan_guru64_split_dft_r2c) X(plan_guru64_dft_c2r) X(plan_guru64_split_dft_c2r)      \
            X(execute_dft) X(execute_split_dft) X(execute_dft_r2c) X(execute_split_dft_r2c)   \
                X(execute_dft_c2r) X(execute_split_dft_c2r) X(destroy_plan) X(malloc) X(free) \
                    X(init_threads) X(plan_with_nthreads) X(planner_nthreads)                 \
                        X(import_wisdom_from_filename) X(export_wisdom_to_filename)         \
                            X(plan_guru64_r2r) X(execute_r2r)

typedef struct hfft__fftw_table {
#define HFFT__FFTW_ENTRY_(name)        \
    __typeof__(&fftw_##name) d_##name; \
    __typeof__(&fftwf_##name) f_##name;
    HFFT__FFTW_CALLS(HFFT__FFTW_ENTRY_)
#undef HFFT__FFTW_ENTRY_
} hfft__fftw_table;

/* Filled once by hfft__fftw_bind; read only after it returned 0. */
extern hfft__fftw_table hfft__fftw;

/* Loads FFTW (double and single, with their threads libraries) once.  0, or
   HFFT_ERR_FFTW with a message naming the library or function missing.  Thread
   safe; every later call returns the first call's result. */
int hfft__fftw_bind(void);
/* 0 where the host has the memory FFTW's planner takes for lines of lengths n[0..rank)
   in complex elements of esize bytes, else HFFT_ERR_HOST_MEMORY: FFTW aborts the process
   where an allocation of its own fails, and a length with a large prime factor takes
   several times the line in tables and buffers. */
int hfft__fftw_room(int rank, const int64_t *n, size_t esize);
/* FFTW's version string, or "unavailable" where it cannot be loaded. */
const char *hfft__fftw_version_text(void);

#define fftw_plan_guru64_dft (hfft__fftw.d_plan_guru64_dft)
#define fftw_plan_guru64_split_dft (hfft__fftw.d_plan_guru64_split_dft)
#define fftw_plan_guru64_dft_r2c (hfft__fftw.d_plan_guru64_dft_r2c)
#define fftw_plan_guru64_split_dft_r2c (hfft__fftw.d_plan_guru64_split_dft_r2c)
#define fftw_plan_guru64_dft_c2r (hfft__fftw.d_plan_guru64_dft_c2r)
#define fftw_plan_guru64_split_dft_c2r (hfft__fftw.d_plan_guru64_split_dft_c2r)
#define fftw_execute_dft (hfft__fftw.d_execute_dft)
#define fftw_execute_split_dft (hfft__fftw.d_execute_split_dft)
#define fftw_execute_dft_r2c (hfft__fftw.d_execute_dft_r2c)
#define fftw_execute_split_dft_r2c (hfft__fftw.d_execute_split_dft_r2c)
#define fftw_execute_dft_c2r (hfft__fftw.d_execute_dft_c2r)
#define fftw_execute_split_dft_c2r (hfft__fftw.d_execute_split_dft_c2r)
#define fftw_destroy_plan (hfft__fftw.d_destroy_plan)
#define fftw_malloc (hfft__fftw.d_malloc)
#define fftw_free (hfft__fftw.d_free)
#define fftw_init_threads (hfft__fftw.d_init_threads)
#define fftw_plan_with_nthreads (hfft__fftw.d_plan_with_nthreads)
#define fftw_planner_nthreads (hfft__fftw.d_planner_nthreads)
#define fftw_import_wisdom_from_filename (hfft__fftw.d_import_wisdom_from_filename)
#define fftw_export_wisdom_to_filename (hfft__fftw.d_export_wisdom_to_filename)
#define fftw_plan_guru64_r2r (hfft__fftw.d_plan_guru64_r2r)
#define fftw_execute_r2r (hfft__fftw.d_execute_r2r)

#define fftwf_plan_guru64_dft (hfft__fftw.f_plan_guru64_dft)
#define fftwf_plan_guru64_split_dft (hfft__fftw.f_plan_guru64_split_dft)
#define fftwf_plan_guru64_dft_r2c (hfft__fftw.f_plan_guru64_dft_r2c)
#define fftwf_plan_guru64_split_dft_r2c (hfft__fftw.f_plan_guru64_split_dft_r2c)
#define fftwf_plan_guru64_dft_c2r (hfft__fftw.f_plan_guru64_dft_c2r)
#define fftwf_plan_guru64_split_dft_c2r (hfft__fftw.f_plan_guru64_split_dft_c2r)
#define fftwf_execute_dft (hfft__fftw.f_execute_dft)
#define fftwf_execute_split_dft (hfft__fftw.f_execute_split_dft)
#define fftwf_execute_dft_r2c (hfft__fftw.f_execute_dft_r2c)
#define fftwf_execute_split_dft_r2c (hfft__fftw.f_execute_split_dft_r2c)
#define fftwf_execute_dft_c2r (hfft__fftw.f_execute_dft_c2r)
#define fftwf_execute_split_dft_c2r (hfft__fftw.f_execute_split_dft_c2r)
#define fftwf_destroy_plan (hfft__fftw.f_destroy_plan)
#define fftwf_malloc (hfft__fftw.f_malloc)
#define fftwf_free (hfft__fftw.f_free)
#define fftwf_init_threads (hfft__fftw.f_init_threads)
#define fftwf_plan_with_nthreads (hfft__fftw.f_plan_with_nthreads)
#define fftwf_planner_nthreads (hfft__fftw.f_planner_nthreads)
#define fftwf_import_wisdom_from_filename (hfft__fftw.f_import_wisdom_from_filename)
#define fftwf_export_wisdom_to_filename (hfft__fftw.f_export_wisdom_to_filename)
#define fftwf_plan_guru64_r2r (hfft__fftw.f_plan_guru64_r2r)
#define fftwf_execute_r2r (hfft__fftw.f_execute_r2r)

#define fftw_version (hfft__fftw_version_text())

#endif
