/* complex.c: compiled, not run.  With <complex.h> included first, the drop-in's
   fftw_complex is C99's double complex, as with FFTW's own header, and the
   same bytes as double[2]. */
#include <complex.h>
#include <fftw3.h>

_Static_assert(sizeof(fftw_complex) == 2 * sizeof(double), "fftw_complex is two doubles");
_Static_assert(sizeof(fftwf_complex) == 2 * sizeof(float), "fftwf_complex is two floats");

double complex hfft_test_dropin_complex(fftw_complex *a, fftwf_complex *b);
double complex hfft_test_dropin_complex(fftw_complex *a, fftwf_complex *b) {
    *a = 1.0 + 2.0 * I; /* an assignment only C99's complex type accepts */
    *b = 3.0f - 1.0f * I;
    return *a + *b;
}
