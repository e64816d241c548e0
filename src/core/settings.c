/*
 * settings.c: the settings a plan reads at creation, from hfft_options, then
 * the environment (HFFT_DEVICE_MEMORY, HFFT_THREADS, HFFT_DEVICE, HFFT_WISDOM,
 * HFFT_PINNING), then defaults.  A malformed value is an error, never a silent default.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "src/core/settings.h"
#include "src/core/status.h"

#define HFFT__MAX_THREADS HFFT_MAX_THREADS

void hfft_options_init(hfft_options *opts) {
    if (!opts)
        return;
    memset(opts, 0, sizeof *opts);
}

int hfft_parse_bytes(const char *text, int64_t *bytes) {
    static const struct {
        const char *unit;
        double scale;
    } units[] = {
        {"", 1.0},          {"b", 1.0},           {"k", 1024.0},       {"kib", 1024.0},
        {"kb", 1e3},        {"m", 1048576.0},     {"mib", 1048576.0},  {"mb", 1e6},
        {"g", 1073741824.0}, {"gib", 1073741824.0}, {"gb", 1e9},        {"t", 1099511627776.0},
        {"tib", 1099511627776.0}, {"tb", 1e12},
    };
    if (!text || !bytes)
        return hfft__fail(HFFT_ERR_SETTING, "byte size: NULL argument");
    const char *p = text;
    while (isspace((unsigned char)*p))
        p++;
    if (!isdigit((unsigned char)*p) && *p != '.')
        return hfft__fail(HFFT_ERR_SETTING, "byte size '%s': expected a number", text);
    errno = 0;
    char *end;
    double v = strtod(p, &end);
    if (errno || end == p || !isfinite(v))
        return hfft__fail(HFFT_ERR_SETTING, "byte size '%s': not a number", text);
    while (isspace((unsigned char)*end))
        end++;
    char unit[8];
    size_t len = strlen(end);
    while (len > 0 && isspace((unsigned char)end[len - 1]))
        len--;
    if (len >= sizeof unit)
        return hfft__fail(HFFT_ERR_SETTING, "byte size '%s': unknown unit", text);
    for (size_t i = 0; i < len; i++)
        unit[i] = (char)tolower((unsigned char)end[i]);
    unit[len] = '\0';
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++) {
        if (strcmp(unit, units[i].unit) != 0)
            continue;
        double b = floor(v * units[i].scale);
        if (!(b >= 1.0))
            return hfft__fail(HFFT_ERR_SETTING, "byte size '%s': must be at least one byte",
                              text);
        if (b >= 9.2e18)
            return hfft__fail(HFFT_ERR_SETTING, "byte size '%s': too large", text);
        *bytes = (int64_t)b;
        return 0;
    }
    return hfft__fail(HFFT_ERR_SETTING,
                      "byte size '%s': unknown unit (use B, KiB, MiB, GiB, TiB, KB, MB, GB, TB)",
                      text);
}

static int parse_threads(const char *text, int *out) {
    char *end;
    errno = 0;
    long v = strtol(text, &end, 10);
    while (isspace((unsigned char)*end))
        end++;
    if (errno || end == text || *end != '\0')
        return hfft__fail(HFFT_ERR_SETTING, "HFFT_THREADS='%s': not an integer", text);
    if (v < 1 || v > HFFT__MAX_THREADS)
        return hfft__fail(HFFT_ERR_SETTING, "HFFT_THREADS='%s': must be between 1 and %d", text,
                          HFFT__MAX_THREADS);
    *out = (int)v;
    return 0;
}

static int parse_device(const char *text, int *out) {
    static const struct {
        const char *name;
        int kind;
    } names[] = {{"auto", HFFT_DEVICE_AUTO},
                 {"none", HFFT_DEVICE_NONE},
                 {"cpu", HFFT_DEVICE_NONE},
                 {"cuda", HFFT_DEVICE_CUDA},
                 {"gpu", HFFT_DEVICE_CUDA},
                 {"emulated", HFFT_DEVICE_EMULATED}};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        if (strcasecmp(text, names[i].name) == 0) {
            *out = names[i].kind;
            return 0;
        }
    }
    return hfft__fail(HFFT_ERR_SETTING, "HFFT_DEVICE='%s': use none, cuda, emulated or auto",
                      text);
}

static int parse_pinning(const char *text, int *out) {
    static const char *const names[] = {"auto", "register", "stage"};
    for (int i = 0; i < 3; i++) {
        if (strcasecmp(text, names[i]) == 0) {
            *out = i;
            return 0;
        }
    }
    return hfft__fail(HFFT_ERR_SETTING, "HFFT_PINNING='%s': use auto, register or stage", text);
}

/* "all", or distinct ordinals "0,1,3". */
static int parse_devices(const char *what, const char *text, hfft__settings *s) {
    s->ncard = 0;
    if (strcasecmp(text, "all") == 0)
        return 0;
    const char *c = text;
    for (;;) {
        char *end;
        errno = 0;
        long v = strtol(c, &end, 10);
        if (end == c || errno || v < 0 || v > 1023 || (*end && *end != ','))
            return hfft__fail(HFFT_ERR_SETTING,
                              "%s='%s': use all or a comma list of card ordinals (0,1)", what,
                              text);
        for (int k = 0; k < s->ncard; k++)
            if (s->card[k] == (int)v)
                return hfft__fail(HFFT_ERR_SETTING, "%s='%s': card %ld twice", what, text, v);
        if (s->ncard == HFFT_MAX_CARDS)
            return hfft__fail(HFFT_ERR_SETTING, "%s='%s': more than %d cards", what, text,
                              HFFT_MAX_CARDS);
        s->card[s->ncard++] = (int)v;
        if (!*end)
            return 0;
        c = end + 1;
    }
}

int hfft__settings_resolve(const hfft_options *o, hfft__settings *s) {
    memset(s, 0, sizeof *s);
    for (int h = 0; h < HFFT_MAX_ROUNDS; h++)
        s->ratio[h] = -1.0;
    const char *env;

    if (o && o->device_memory < 0)
        return hfft__fail(HFFT_ERR_SETTING, "options.device_memory %lld is negative",
                          (long long)o->device_memory);
    if (o && o->device_memory > 0) {
        s->budget = o->device_memory;
    } else if ((env = getenv("HFFT_DEVICE_MEMORY")) && *env) {
        int st = hfft_parse_bytes(env, &s->budget);
        if (st)
            return hfft__fail_context(st, "HFFT_DEVICE_MEMORY");
    }

    if (o && (o->threads < 0 || o->threads > HFFT__MAX_THREADS))
        return hfft__fail(HFFT_ERR_SETTING, "options.threads %d: must be between 1 and %d",
                          o->threads, HFFT__MAX_THREADS);
    if (o && o->threads > 0) {
        s->threads = o->threads;
    } else if ((env = getenv("HFFT_THREADS")) && *env) {
        int st = parse_threads(env, &s->threads);
        if (st)
            return st;
    }

    if (o && (o->device < HFFT_DEVICE_AUTO || o->device > HFFT_DEVICE_EMULATED))
        return hfft__fail(HFFT_ERR_SETTING, "options.device %d: unknown device kind", o->device);
    if (o && o->device != HFFT_DEVICE_AUTO) {
        s->device = o->device;
    } else if ((env = getenv("HFFT_DEVICE")) && *env) {
        int st = parse_device(env, &s->device);
        if (st)
            return st;
    }
    if (o && (o->pinning < HFFT_PINNING_AUTO || o->pinning > HFFT_PINNING_STAGE))
        return hfft__fail(HFFT_ERR_SETTING, "options.pinning %d: use an enum hfft_pinning value",
                          o->pinning);
    if (o && o->pinning != HFFT_PINNING_AUTO) {
        s->pinning = o->pinning;
    } else if ((env = getenv("HFFT_PINNING")) && *env) {
        int st = parse_pinning(env, &s->pinning);
        if (st)
            return st;
    }

    if (o && (o->trace < 0 || o->trace > 1))
        return hfft__fail(HFFT_ERR_SETTING, "options.trace %d: use 0 or 1", o->trace);
    if (o && o->trace) {
        s->trace = 1;
    } else if ((env = getenv("HFFT_TRACE")) && *env) {
        if (strcmp(env, "0") && strcmp(env, "1"))
            return hfft__fail(HFFT_ERR_SETTING, "HFFT_TRACE='%s': use 0 or 1", env);
        s->trace = env[0] == '1';
    }

    if (o && o->devices) {
        int st = parse_devices("options.devices", o->devices, s);
        if (st)
            return st;
    } else if ((env = getenv("HFFT_DEVICES")) && *env) {
        int st = parse_devices("HFFT_DEVICES", env, s);
        if (st)
            return st;
    }

    const char *w = (o && o->wisdom) ? o->wisdom : getenv("HFFT_WISDOM");
    if (w && *w) {
        if (strlen(w) >= sizeof s->wisdom)
            return hfft__fail(HFFT_ERR_SETTING, "wisdom path longer than %zu bytes",
                              sizeof s->wisdom - 1);
        strcpy(s->wisdom, w);
    }

    if (o && o->ratio != 0.0) {
        if (!(o->ratio > 0.0 && o->ratio <= 1.0))
            return hfft__fail(HFFT_ERR_SETTING, "options.ratio %g: must be in (0, 1]", o->ratio);
        for (int h = 0; h < HFFT_MAX_ROUNDS; h++)
            s->ratio[h] = o->ratio;
    }
    for (int h = 0; o && h < 3; h++) {
        if (o->round_ratio[h] == 0.0)
            continue;
        if (!(o->round_ratio[h] > 0.0 && o->round_ratio[h] <= 1.0))
            return hfft__fail(HFFT_ERR_SETTING, "options.round_ratio[%d] %g: must be in (0, 1]", h,
                              o->round_ratio[h]);
        s->ratio[h] = o->round_ratio[h];
    }
    if (o && o->pass_bytes < 0)
        return hfft__fail(HFFT_ERR_SETTING, "options.pass_bytes is negative");
    s->pass_bytes = o ? o->pass_bytes : 0;
    if (o && (o->slots < 0 || o->slots > 8 || o->slots == 1))
        return hfft__fail(HFFT_ERR_SETTING, "options.slots %d: use 2 to 8, or 0", o->slots);
    s->slots = o ? o->slots : 0;
    return 0;
}
