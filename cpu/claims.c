/*
 * claims.c: the claims that let the GPU take back a late CPU's units, shared
 * by the executor's batches (exec.c) and a four-step share (four.c): each
 * unit's claim goes from FREE to CPU_CLAIM when a CPU job starts it, or to
 * GPU_CLAIM when the GPU takes it, once (exec.h).
 */
#include <sched.h>
#include <stdatomic.h>

#include "cpu/exec.h"
#include "src/core/status.h"

/* Tests only (tests/test_internals.c): the CPU's jobs of a batch wait until the GPU
   has been asked for units to take back (or a second has passed), as a CPU
   running late would. */
_Atomic int hfft__cpu_late;

int hfft__cpu_claims(_Atomic int *claims, int64_t i, _Atomic int *asked) {
    if (atomic_load_explicit(&hfft__cpu_late, memory_order_relaxed))
        for (double t = hfft__now();
             !atomic_load_explicit(asked, memory_order_acquire) && hfft__now() - t < 1.0;)
            sched_yield();
    int s = FREE; /* FREE becomes CPU_CLAIM, or s reads what is there */
    atomic_compare_exchange_strong_explicit(&claims[i], &s, CPU_CLAIM, memory_order_acq_rel,
                                            memory_order_acquire);
    return s != GPU_CLAIM;
}

int64_t hfft__cpu_take_claims(_Atomic int *claims, int64_t total, double u, double first_u,
                              double last_u, double all, double done, double elapsed, double unit_s,
                              double left_s, int64_t *first) {
    int64_t top = total, free_n = 0;
    while (top > 0 && atomic_load_explicit(&claims[top - 1], memory_order_acquire) == GPU_CLAIM)
        top--;
    *first = top;
    if (!(unit_s > 0))
        return 0;
    while (free_n < top &&
           atomic_load_explicit(&claims[top - 1 - free_n], memory_order_acquire) == FREE)
        free_n++;
    /* n in [0, free_n] with both ends soonest: max(left_s + units unit_s, (left - units)
       cpu_s), units the round units of the top n */
    double cpu_s = elapsed / (done > 0 ? done : u), left = all - done, units = 0;
    double best = left * cpu_s > left_s ? left * cpu_s : left_s;
    int64_t want = 0;
    for (int64_t n = 1; n <= free_n; n++) {
        int64_t i = top - n;
        units += i == total - 1 ? last_u : i == 0 ? first_u : u;
        double g = left_s + units * unit_s, cpu = (left - units) * cpu_s;
        double end = g > cpu ? g : cpu;
        if (end < best) {
            best = end;
            want = n;
        }
    }
    int64_t n = 0;
    while (n < want) {
        int s = FREE;
        if (!atomic_compare_exchange_strong_explicit(&claims[top - 1 - n], &s, GPU_CLAIM,
                                                     memory_order_acq_rel, memory_order_acquire))
            break;
        n++;
    }
    *first = top - n;
    return n;
}
