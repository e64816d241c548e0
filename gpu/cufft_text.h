/*
 * cufft_text.h: a cufftResult in words, for the CUDA backend's messages and
 * hfft-bench's cuFFT baselines alike.  cuFFT has no function for it.
 */
#ifndef HFFT_CUFFT_TEXT_H
#define HFFT_CUFFT_TEXT_H

#include <cufft.h>

static inline const char *hfft_cufft_text(cufftResult r) {
    switch (r) {
    case CUFFT_SUCCESS: return "success";
    case CUFFT_INVALID_PLAN: return "invalid plan";
    case CUFFT_ALLOC_FAILED: return "allocation failed";
    case CUFFT_INVALID_TYPE: return "invalid type";
    case CUFFT_INVALID_VALUE: return "invalid value";
    case CUFFT_INTERNAL_ERROR: return "internal error";
    case CUFFT_EXEC_FAILED: return "execution failed";
    case CUFFT_SETUP_FAILED: return "setup failed";
    case CUFFT_INVALID_SIZE: return "invalid size";
    case CUFFT_UNALIGNED_DATA: return "unaligned data";
    case CUFFT_INVALID_DEVICE: return "invalid device";
    case CUFFT_NO_WORKSPACE: return "no workspace";
    case CUFFT_NOT_IMPLEMENTED: return "not implemented";
    case CUFFT_NOT_SUPPORTED: return "not supported";
    default: return "unknown cuFFT error";
    }
}

#endif
