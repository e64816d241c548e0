/*
 * fault.c: deterministic fault injection for the reliability tests.
 * HFFT_FAULT=op:N makes the N-th call of op fail, counted from the moment the
 * variable took its current value, through the same error paths a real CUDA,
 * cuFFT or pthread failure takes.  Unset, it costs a getenv per call site.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "src/core/fault.h"

static pthread_mutex_t fault_mu = PTHREAD_MUTEX_INITIALIZER;
static char fault_spec[256];
static long fault_count;
static _Atomic int fault_armed;

int hfft__fault_hit(const char *op) {
    const char *env = getenv("HFFT_FAULT");
    if (!env || !*env || strlen(env) >= sizeof fault_spec) {
        if (atomic_load(&fault_armed)) {
            /* Unset: the next value, even the same one, counts afresh. */
            pthread_mutex_lock(&fault_mu);
            fault_spec[0] = '\0';
            atomic_store(&fault_armed, 0);
            pthread_mutex_unlock(&fault_mu);
        }
        return 0;
    }
    int hit = 0;
    pthread_mutex_lock(&fault_mu);
    if (strcmp(env, fault_spec) != 0) {
        snprintf(fault_spec, sizeof fault_spec, "%s", env);
        fault_count = 0;
        atomic_store(&fault_armed, 1);
    }
    const char *colon = strchr(fault_spec, ':');
    size_t len = strlen(op);
    if (colon && (size_t)(colon - fault_spec) == len && strncmp(fault_spec, op, len) == 0) {
        long n = strtol(colon + 1, NULL, 10);
        hit = ++fault_count == n;
    }
    pthread_mutex_unlock(&fault_mu);
    return hit;
}
