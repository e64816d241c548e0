/* config.h for FFTW's libbench2 and test program, built against hfft's FFTW
   drop-in on a GNU/Linux system (FFTW's configure would write this file). */
#define HAVE_STDDEF_H 1
#define HAVE_STDLIB_H 1
#define HAVE_STRING_H 1
#define HAVE_SYS_TIME_H 1
#define HAVE_UNISTD_H 1
#define HAVE_GETTIMEOFDAY 1
#define HAVE_DRAND48 1
#define HAVE_DECL_DRAND48 1
#define HAVE_DECL_SRAND48 1
#define HAVE_ISNAN 1
#define HAVE_MALLOC_H 1
#define HAVE_POSIX_MEMALIGN 1
#define HAVE_DECL_POSIX_MEMALIGN 1
#define HAVE_SNPRINTF 1
#define HAVE_ALLOCA_H 1
/* The threads calls (fftw_init_threads, fftw_plan_with_nthreads, ...) are
   exercised: the drop-in maps them to hfft's thread count. */
#define HAVE_THREADS 1
