/*
 * fault.h: deterministic fault injection for the reliability tests.
 * HFFT_FAULT=op:N makes the N-th call of op fail (counted from when the
 * variable last changed), through the same error path a real CUDA, cuFFT or
 * pthread failure takes.  Ops: alloc, h2d, d2h, fft_plan, fft_exec, kernel,
 * host_alloc, host_register, host_fn, thread.
 */
#ifndef HFFT_CORE_FAULT_H
#define HFFT_CORE_FAULT_H

/* 1 when this call of op is the one to fail.  Thread safe. */
int hfft__fault_hit(const char *op);

#endif
