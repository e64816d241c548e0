/*
 * fuzz_plan.c: libFuzzer target for plan arguments and settings.  The input
 * picks a rank, sizes (small, or huge to probe overflow), sign, flags, options
 * and the text of HFFT_DEVICE_MEMORY / HFFT_THREADS / HFFT_DEVICE; the plan must
 * come back NULL with a status and message, or run correctly on the emulated
 * device (checked against a direct DFT of one output element).
 */
#include <complex.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "hfft.h"

typedef struct reader {
    const uint8_t *p;
    size_t n;
} reader;

static uint64_t take(reader *r, int bytes) {
    uint64_t v = 0;
    for (int i = 0; i < bytes; i++) {
        v <<= 8;
        if (r->n) {
            v |= *r->p++;
            r->n--;
        }
    }
    return v;
}

static void take_text(reader *r, char *buf, size_t cap) {
    size_t len = (size_t)take(r, 1) % cap;
    for (size_t i = 0; i < len; i++)
        buf[i] = (char)take(r, 1);
    buf[len] = '\0';
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    reader r = {data, size};
    int rank = (int)(take(&r, 1) % 5) - 1; /* -1..3: invalid ranks too */
    int64_t n[3];
    int64_t total = 1;
    int huge = 0, overflow = 0;
    for (int k = 0; k < 3; k++) {
        uint64_t v = take(&r, 2);
        if (v & 0x8000) {
            /* huge: negative, or positive and large enough to overflow together */
            n[k] = (int64_t)(take(&r, 8) & 0x3fffffffffffffffull) | ((int64_t)1 << 40);
            if (v & 1)
                n[k] = -n[k];
            huge |= k < rank;
        } else {
            n[k] = (int64_t)(v % 18) - 2; /* -2..15: at most 3375 elements */
        }
        if (k < rank && n[k] > 0 && __builtin_mul_overflow(total, n[k], &total))
            overflow = 1;
    }
    int valid_huge = 0;
    for (int k = 0; k < rank; k++)
        valid_huge |= n[k] > ((int64_t)1 << 40);
    for (int k = 0; k < rank; k++)
        if (n[k] < 1)
            valid_huge = 0;
    if (valid_huge && !overflow && total < ((int64_t)1 << 58))
        return 0; /* a valid plan of terabytes: not something to create here */
    int sign = (int)(take(&r, 1) % 5) - 2;
    unsigned flags = (unsigned)take(&r, 2);
    if (take(&r, 1) & 1)
        flags &= 0x3ff; /* mostly known bits */
    hfft_options o;
    hfft_options_init(&o);
    o.device = HFFT_DEVICE_EMULATED;
    o.wisdom = "none";
    uint64_t sel = take(&r, 1);
    if (sel & 1)
        o.device_memory = (int64_t)take(&r, 3) - 1000;
    if (sel & 2)
        o.threads = (int)(take(&r, 1)) - 10;
    if (sel & 4)
        o.ratio = (double)(take(&r, 1)) / 200.0 - 0.1;
    if (sel & 8)
        o.slots = (int)take(&r, 1) % 12;
    if (sel & 16)
        o.pass_bytes = (int64_t)take(&r, 3);
    char mem[24], thr[12], dev[12];
    take_text(&r, mem, sizeof mem);
    take_text(&r, thr, sizeof thr);
    take_text(&r, dev, sizeof dev);
    if (sel & 32)
        setenv("HFFT_DEVICE_MEMORY", mem, 1);
    if (sel & 64)
        setenv("HFFT_THREADS", thr, 1);
    if (sel & 128)
        setenv("HFFT_DEVICE", dev, 1);
    int64_t bytes_parsed;
    (void)hfft_parse_bytes(mem, &bytes_parsed);

    /* arrays only for small problems; huge sizes must fail before touching them */
    size_t count = (!huge && rank >= 1 && total > 0 && total <= 4096) ? (size_t)total : 16;
    (void)overflow;
    double complex *in = calloc(count, sizeof *in), *out = calloc(count, sizeof *out);
    for (size_t i = 0; i < count; i++)
        in[i] = (double)(i % 7) - 3.0 + I * (double)(i % 5);
    int inplace = take(&r, 1) & 1;
    hfft_plan p = hfft_plan_dft(rank, n, (hfft_complex *)in,
                                inplace ? (hfft_complex *)in : (hfft_complex *)out, sign, flags,
                                &o);
    if (!p) {
        if (hfft_last_error() >= 0 || !hfft_last_error_message()[0])
            abort();
    } else {
        if (huge || count != (size_t)total)
            abort(); /* huge sizes left here must have failed */
        double complex *x = malloc(count * sizeof *x);
        memcpy(x, in, count * sizeof *x);
        if (hfft_execute(p) == 0) {
            /* output element 0 is the sum of the input */
            double complex s = 0, y = inplace ? in[0] : out[0];
            for (size_t i = 0; i < count; i++)
                s += x[i];
            if (cabs(y - s) > 1e-9 * (1 + cabs(s)))
                abort();
        } else if (!hfft_last_error_message()[0]) {
            abort();
        }
        free(x);
        hfft_destroy_plan(p);
    }
    unsetenv("HFFT_DEVICE_MEMORY");
    unsetenv("HFFT_THREADS");
    unsetenv("HFFT_DEVICE");
    free(in);
    free(out);
    return 0;
}
