/*
 * abi.c: prints, as JSON, what the Python package's ctypes declarations must
 * match in include/hfft.h: the offset and size of every field of hfft_iodim,
 * hfft_options, hfft_info and hfft_stream_stats, the structs' sizes, and the constants the
 * package uses.  test_runtime.py compares them, so a change of the header
 * that the package does not follow fails a test instead of corrupting memory.
 */
#include <stddef.h>
#include <stdio.h>

#include <hfft.h>

#define FIELD(T, f) printf("  \"%s.%s\": [%zu, %zu],\n", #T, #f, offsetof(T, f), sizeof(((T *)0)->f))
#define CONST(c) printf("  \"%s\": %lld,\n", #c, (long long)(c))

int main(void) {
    printf("{\n");
    FIELD(hfft_iodim, n);
    FIELD(hfft_iodim, is);
    FIELD(hfft_iodim, os);
    FIELD(hfft_options, device_memory);
    FIELD(hfft_options, threads);
    FIELD(hfft_options, device);
    FIELD(hfft_options, wisdom);
    FIELD(hfft_options, ratio);
    FIELD(hfft_options, round_ratio);
    FIELD(hfft_options, pass_bytes);
    FIELD(hfft_options, slots);
    FIELD(hfft_options, pinning);
    FIELD(hfft_options, trace);
    FIELD(hfft_options, devices);
    FIELD(hfft_info, kind);
    FIELD(hfft_info, rank);
    FIELD(hfft_info, n);
    FIELD(hfft_info, howmany);
    FIELD(hfft_info, split);
    FIELD(hfft_info, precision);
    FIELD(hfft_info, device);
    FIELD(hfft_info, cards);
    FIELD(hfft_info, card_ids);
    FIELD(hfft_info, placement);
    FIELD(hfft_info, schedule);
    FIELD(hfft_info, rounds);
    FIELD(hfft_info, passes);
    FIELD(hfft_info, streams);
    FIELD(hfft_info, transposed);
    FIELD(hfft_info, ratio);
    FIELD(hfft_info, threads);
    FIELD(hfft_info, cpu_plan);
    FIELD(hfft_info, device_budget);
    FIELD(hfft_info, device_bytes);
    FIELD(hfft_info, resident_bytes);
    FIELD(hfft_info, host_bytes);
    FIELD(hfft_info, host_pinned);
    FIELD(hfft_info, link_bytes);
    FIELD(hfft_info, pin_seconds);
    FIELD(hfft_info, pinned_bytes);
    FIELD(hfft_info, predicted_seconds);
    FIELD(hfft_info, measured_seconds);
    FIELD(hfft_info, measured_gpu);
    FIELD(hfft_info, measured_cpu);
    FIELD(hfft_info, wisdom);
    FIELD(hfft_info, wisdom_note);
    FIELD(hfft_info, note);
    FIELD(hfft_info, device_name);
    FIELD(hfft_info, done_ratio);
    FIELD(hfft_info, r2r_kinds);
    FIELD(hfft_info, r2r_paired);
    FIELD(hfft_stream_stats, rank);
    FIELD(hfft_stream_stats, n);
    FIELD(hfft_stream_stats, points_added);
    FIELD(hfft_stream_stats, points_applied);
    FIELD(hfft_stream_stats, flushes);
    FIELD(hfft_stream_stats, last_strategy);
    FIELD(hfft_stream_stats, last_keys);
    FIELD(hfft_stream_stats, last_points);
    FIELD(hfft_stream_stats, last_seconds);
    FIELD(hfft_stream_stats, flush_seconds);
    FIELD(hfft_stream_stats, add_seconds);
    FIELD(hfft_stream_stats, link_bytes);
    FIELD(hfft_stream_stats, shift_keys);
    FIELD(hfft_stream_stats, image_on_cards);
    FIELD(hfft_stream_stats, cards);
    FIELD(hfft_stream_stats, card_ids);
    FIELD(hfft_stream_stats, threads);
    CONST(HFFT_FORWARD);
    CONST(HFFT_BACKWARD);
    CONST(HFFT_ESTIMATE);
    CONST(HFFT_PRESERVE_INPUT);
    CONST(HFFT_DESTROY_INPUT);
    CONST(HFFT_ERR_INVALID_ARGUMENT);
    CONST(HFFT_ERR_HOST_MEMORY);
    CONST(HFFT_DEVICE_AUTO);
    CONST(HFFT_DEVICE_NONE);
    CONST(HFFT_DEVICE_CUDA);
    CONST(HFFT_DEVICE_EMULATED);
    CONST(HFFT_PINNING_AUTO);
    CONST(HFFT_PINNING_REGISTER);
    CONST(HFFT_PINNING_STAGE);
    CONST(HFFT_MAX_RANK);
    CONST(HFFT_MAX_ROUNDS);
    CONST(HFFT_MAX_CARDS);
    CONST(HFFT_STREAM_DIRECT);
    CONST(HFFT_STREAM_GRID);
    printf("  \"sizeof\": [%zu, %zu, %zu, %zu]\n}\n", sizeof(hfft_iodim), sizeof(hfft_options),
           sizeof(hfft_info), sizeof(hfft_stream_stats));
    return 0;
}
