/*
 * errors.c: status texts (from the one table in hfft.h) and the thread-local
 * last error that plan constructors and every failing call leave behind.
 * The library never prints: callers read these instead.
 */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "src/core/status.h"

static _Thread_local int last_status;
static _Thread_local char last_message[1024];

const char *hfft_strerror(int status) {
    switch (status) {
#define HFFT_STATUS_CASE_(name, value, text) \
    case value:                               \
        return text;
        HFFT_STATUS_TABLE(HFFT_STATUS_CASE_)
#undef HFFT_STATUS_CASE_
    default:
        return "unknown status";
    }
}

int hfft_last_error(void) { return last_status; }

const char *hfft_last_error_message(void) { return last_message; }

void hfft__clear_error(void) {
    last_status = 0;
    last_message[0] = '\0';
}

hfft__text hfft__bytes_text(double bytes) {
    static const char *unit[] = {"KiB", "MiB", "GiB", "TiB", "PiB"};
    hfft__text t;
    if (bytes < 1024) {
        snprintf(t.s, sizeof t.s, "%.0f bytes", bytes);
        return t;
    }
    int u = 0;
    bytes /= 1024;
    while (bytes >= 1024 && u < 4) {
        bytes /= 1024;
        u++;
    }
    snprintf(t.s, sizeof t.s, "%.4g %s", bytes, unit[u]);
    return t;
}

int hfft__fail(int status, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(last_message, sizeof last_message, fmt, ap);
    va_end(ap);
    last_status = status;
    return status;
}

int hfft__fail_context(int status, const char *fmt, ...) {
    char head[256], tail[sizeof last_message - sizeof head - 4];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(head, sizeof head, fmt, ap);
    va_end(ap);
    size_t n = strnlen(last_message, sizeof tail - 1);
    memcpy(tail, last_message, n);
    tail[n] = '\0';
    snprintf(last_message, sizeof last_message, "%s: %s", head, tail);
    last_status = status;
    return status;
}

const char *hfft_version(void) { return HFFT_VERSION_STRING; }

double hfft__now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}
