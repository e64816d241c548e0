/*
 * fuzz_wisdom.c: libFuzzer target for the wisdom parser.  Any bytes must give
 * either a parsed wisdom or HFFT_ERR_WISDOM with a message; never a crash, a
 * leak or a read out of bounds.  A parsed wisdom must write and read back.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "balancer/wisdom.h"
#include "hfft.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    char *text = malloc(size + 1);
    if (!text)
        return 0;
    memcpy(text, data, size);
    text[size] = '\0';
    static hfft__wisdom w, back;
    int st = hfft__wisdom_parse(text, "fuzz", &w);
    if (st == 0) {
        char path[64];
        snprintf(path, sizeof path, "/tmp/hfft-fuzz-wisdom-%d", (int)getpid());
        if (hfft__wisdom_write(path, &w) == 0) {
            if (hfft__wisdom_read(path, &back) != 0 || back.nprob != w.nprob)
                abort(); /* what we write we must read */
            remove(path);
        }
    } else if (st != HFFT_ERR_WISDOM || !hfft_last_error_message()[0]) {
        abort();
    }
    free(text);
    return 0;
}
