/*
 * devices.c: the table of device backends.  The CUDA backend is registered
 * only when the library was built with the CUDA Toolkit; the emulated device
 * always is.  This is the one place that knows which backends exist.
 */
#include "gpu/devices.h"
#include "hfft.h"

extern const hfft__dev_ops hfft__emulated_ops;
#ifdef HFFT_HAVE_CUDA
extern const hfft__dev_ops hfft__cuda_ops;
int hfft__cuda_probe(void);
#endif

const hfft__dev_ops *hfft__device_ops(int kind) {
    switch (kind) {
    case HFFT_DEVICE_EMULATED:
        return &hfft__emulated_ops;
#ifdef HFFT_HAVE_CUDA
    case HFFT_DEVICE_CUDA:
        return &hfft__cuda_ops;
#endif
    default:
        return NULL;
    }
}

int hfft__cuda_usable(void) {
#ifdef HFFT_HAVE_CUDA
    return hfft__cuda_probe();
#else
    return 0;
#endif
}
