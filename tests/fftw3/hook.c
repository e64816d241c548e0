/*
 * hook.c: stands in for FFTW's tests/hook.c, which installs a planner hook
 * built on FFTW's internals (api.h, dft.h, rdft.h: the kernel's problem and
 * plan structures) to verify every sub-plan FFTW's planner tries, under
 * `-o paranoid`.  A drop-in has no such internals; the whole plan is still
 * verified by libbench2's tests.  Instead, when the test program stops on a
 * plan it could not make, this says hfft's reason.
 */
#include <stdio.h>
#include <stdlib.h>

#include <hfft.h>

static void say_why(void) {
    if (hfft_last_error())
        fprintf(stderr, "hfft: %s: %s\n", hfft_strerror(hfft_last_error()),
                hfft_last_error_message());
}

/* From the start: the program may stop at its first planner call (can_do). */
__attribute__((constructor)) static void init(void) { atexit(say_why); }

void install_hook(void) {}

void uninstall_hook(void) {}
