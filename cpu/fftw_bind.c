/*
 * fftw_bind.c: loads the real FFTW for the CPU engine.  Each precision's
 * threads library (which pulls in its base library) is opened with dlopen,
 * RTLD_LOCAL, and every function the engine calls is read with dlsym on that
 * handle, never from the global scope: a drop-in that exports FFTW's names
 * (libhfftw3, MKL's wrappers) cannot capture these calls.  RTLD_DEEPBIND also
 * makes FFTW's calls to its own public functions (fftw_plan_with_nthreads
 * calling fftw_init_threads, for one) bind inside FFTW.
 */
#define _GNU_SOURCE /* RTLD_DEEPBIND, RTLD_DEFAULT */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "cpu/fftw_bind.h"
#include "src/core/status.h"

/* Where the build found FFTW: tried when the loader's search by soname fails. */
#ifndef HFFT_FFTW_LIBDIR
#define HFFT_FFTW_LIBDIR ""
#endif

hfft__fftw_table hfft__fftw;

static pthread_once_t bind_once = PTHREAD_ONCE_INIT;
static int bind_status;
static char bind_message[512];
static const char *version = "unavailable";

/* The sanitizers' runtimes refuse RTLD_DEEPBIND (their interceptors would be
   bypassed); under them FFTW is opened without it. */
static int under_sanitizer(void) {
    return dlsym(RTLD_DEFAULT, "__asan_init") || dlsym(RTLD_DEFAULT, "__tsan_init") ||
           dlsym(RTLD_DEFAULT, "__msan_init");
}

static void *open_fftw(const char *soname, int flags) {
    void *h = dlopen(soname, flags);
    if (!h && HFFT_FFTW_LIBDIR[0]) {
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", HFFT_FFTW_LIBDIR, soname);
        h = dlopen(path, flags);
    }
    return h;
}

static void *lookup(void *handle, const char *soname, const char *name) {
    dlerror();
    void *f = dlsym(handle, name);
    if (!f && bind_status == 0) {
        const char *why = dlerror();
        bind_status = HFFT_ERR_FFTW;
        snprintf(bind_message, sizeof bind_message, "FFTW: %s has no %s (%s)", soname, name,
                 why ? why : "null symbol");
    }
    return f;
}

static void bind_all(void) {
    static const char *const sonames[2] = {"libfftw3_threads.so.3", "libfftw3f_threads.so.3"};
    int flags = RTLD_NOW | RTLD_LOCAL | (under_sanitizer() ? 0 : RTLD_DEEPBIND);
    void *h[2];
    for (int k = 0; k < 2; k++) {
        h[k] = open_fftw(sonames[k], flags);
        if (!h[k]) {
            const char *why = dlerror();
            bind_status = HFFT_ERR_FFTW;
            snprintf(bind_message, sizeof bind_message,
                     "FFTW: cannot load %s (%s); hfft needs FFTW 3 in double and single "
                     "precision with its threads libraries (Debian: libfftw3-double3, "
                     "libfftw3-single3)",
                     sonames[k], why ? why : "not found");
            return;
        }
    }
#define HFFT__FFTW_LOOKUP_(name)                                               \
    *(void **)&hfft__fftw.d_##name = lookup(h[0], sonames[0], "fftw_" #name);  \
    *(void **)&hfft__fftw.f_##name = lookup(h[1], sonames[1], "fftwf_" #name);
    HFFT__FFTW_CALLS(HFFT__FFTW_LOOKUP_)
#undef HFFT__FFTW_LOOKUP_
    const char *v = lookup(h[0], sonames[0], "fftw_version");
    if (bind_status == 0)
        version = v;
    /* The handles stay open: FFTW's plans may live until the process ends. */
}

int hfft__fftw_bind(void) {
    pthread_once(&bind_once, bind_all);
    if (bind_status)
        return hfft__fail(bind_status, "%s", bind_message);
    return 0;
}

const char *hfft__fftw_version_text(void) {
    pthread_once(&bind_once, bind_all);
    return version;
}
