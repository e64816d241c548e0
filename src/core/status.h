/*
 * status.h: how every part of the library reports failure.  A failing call
 * returns a negative hfft_status and leaves a message (naming the call that
 * failed and why) in this thread's last-error slot, which hfft_last_error*()
 * read; nothing is ever printed.  Also the monotonic clock every timing uses.
 */
#ifndef HFFT_CORE_STATUS_H
#define HFFT_CORE_STATUS_H

#include <stdarg.h>

#include "hfft.h"

/* Records status and message for hfft_last_error*(); returns status.  Thread
   safe: the slot is thread local. */
int hfft__fail(int status, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* Prefixes this thread's current message with more context; returns status. */
int hfft__fail_context(int status, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
void hfft__clear_error(void);

/* Returns a failing status from the enclosing function. */
#define HFFT__TRY(expr)        \
    do {                       \
        int st_ = (expr);      \
        if (st_)               \
            return st_;        \
    } while (0)

/* A byte count in the unit that fits it, for messages: "640 bytes", "64 KiB",
   "1.5 GiB".  Use within the call it is an argument of:
   hfft__fail(..., "%s", hfft__bytes_text(n).s). */
typedef struct hfft__text {
    char s[32];
} hfft__text;
hfft__text hfft__bytes_text(double bytes);

/* Seconds on a monotonic clock.  Thread safe. */
double hfft__now(void);

#endif
