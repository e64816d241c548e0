/*
 * precision.h: the names a file written once and compiled per precision uses
 * (HFFT_SINGLE selects float), as FFTW's X(name) and R: R, the real type; PREC,
 * its size in bytes; H(name), hfft's public name (hfftf_ or hfft_); FFTW(name),
 * FFTW's (fftwf_ or fftw_); XI(name), the library's internal one (hfft__f_ or
 * hfft__d_).  Macros only: it includes nothing and defines no symbol.
 */
#ifndef HFFT_CORE_PRECISION_H
#define HFFT_CORE_PRECISION_H

#ifdef HFFT_SINGLE
typedef float R;
#define PREC 4
#define H(name) hfftf_##name
#define FFTW(name) fftwf_##name
#define XI(name) hfft__f_##name
#else
typedef double R;
#define PREC 8
#define H(name) hfft_##name
#define FFTW(name) fftw_##name
#define XI(name) hfft__d_##name
#endif

#endif
