/*
 * devices.c: the table of device backends.  The CUDA backend is registered
 * only when the library was built with the CUDA Toolkit; the emulated device
 * always is.  This is the one place that knows which backends exist, and
 * which cards a plan's settings name (plans and hfft-tune open them here).
 */
#include "gpu/devices.h"

#include <string.h>

#include "hfft.h"
#include "src/core/status.h"

extern const hfft__dev_ops hfft__emulated_ops;
#ifdef HFFT_HAVE_CUDA
extern const hfft__dev_ops hfft__cuda_ops;
int hfft__cuda_probe(void);
void hfft__cuda_contexts(const int *cards, int n);
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

void hfft__devices_prepare(void) {
#ifdef HFFT_HAVE_CUDA
    if (!hfft__cuda_probe())
        return;
    hfft__settings s;
    if (hfft__settings_resolve(NULL, &s) != 0) {
        hfft__clear_error(); /* a bad setting is the plan's to report; no guess here */
        return;
    }
    if (s.device != HFFT_DEVICE_AUTO && s.device != HFFT_DEVICE_CUDA)
        return; /* plans will not use the cards */
    int all[HFFT_MAX_CARDS], n = s.ncard;
    if (!n) {
        n = hfft__cuda_ops.count();
        n = n < HFFT_MAX_CARDS ? n : HFFT_MAX_CARDS;
        for (int k = 0; k < n; k++)
            all[k] = k;
    }
    if (n > 1)
        hfft__cuda_contexts(s.ncard ? s.card : all, n);
#endif
}

int hfft__devices_open(const hfft__dev_ops *ops, const hfft__settings *set, hfft__dev **cards,
                       int *n) {
    int ids[HFFT_MAX_CARDS], want = set->ncard, seen = ops->count();
    *n = 0;
    if (want > 0) {
        memcpy(ids, set->card, (size_t)want * sizeof *ids);
        for (int k = 0; k < want; k++)
            if (ids[k] >= seen)
                return hfft__fail(HFFT_ERR_NO_DEVICE,
                                  "devices: card %d asked for; the %s backend sees %d", ids[k],
                                  ops->name, seen);
    } else {
        want = ops->kind == HFFT_DEVICE_EMULATED || seen < 1 ? 1 : seen;
        want = want > HFFT_MAX_CARDS ? HFFT_MAX_CARDS : want;
        for (int k = 0; k < want; k++)
            ids[k] = want == 1 ? -1 : k; /* one card: the current one */
    }
    for (int k = 0; k < want; k++) {
        int st = ops->open_card(ids[k], set->budget, cards, k, &cards[k]);
        if (st) {
            while (k-- > 0)
                ops->close(cards[k]);
            return st;
        }
    }
    *n = want;
    return 0;
}
