/*
 * settings.c: the settings a plan reads at creation, from hfft_options, then
 * the environment (HFFT_DEVICE_MEMORY, HFFT_THREADS, HFFT_DEVICE, HFFT_PINNING,
 * HFFT_TRACE, HFFT_DEVICES, HFFT_WISDOM), then defaults, each through one row of
 * setting_table.  A malformed value is an error, never a silent default.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stddef.h>
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

/* hfft_parse_bytes' message does not name the variable: the context does. */
static int parse_budget(const char *text, int64_t *out) {
    int st = hfft_parse_bytes(text, out);
    return st ? hfft__fail_context(st, "HFFT_DEVICE_MEMORY") : 0;
}

static int parse_threads(const char *text, int64_t *out) {
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
    *out = v;
    return 0;
}

static int parse_device(const char *text, int64_t *out) {
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

static int parse_pinning(const char *text, int64_t *out) {
    static const char *const names[] = {"auto", "register", "stage"};
    for (int i = 0; i < 3; i++) {
        if (strcasecmp(text, names[i]) == 0) {
            *out = i;
            return 0;
        }
    }
    return hfft__fail(HFFT_ERR_SETTING, "HFFT_PINNING='%s': use auto, register or stage", text);
}

static int parse_trace(const char *text, int64_t *out) {
    if (strcmp(text, "0") && strcmp(text, "1"))
        return hfft__fail(HFFT_ERR_SETTING, "HFFT_TRACE='%s': use 0 or 1", text);
    *out = text[0] == '1';
    return 0;
}

/* "all", or distinct ordinals "0,1,3"; what: the option or variable it came from. */
static int take_devices(const char *what, const char *text, hfft__settings *s) {
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

/* An empty path in the options means no wisdom file, as an unset one does. */
static int take_wisdom(const char *what, const char *text, hfft__settings *s) {
    (void)what;
    if (!*text)
        return 0;
    if (strlen(text) >= sizeof s->wisdom)
        return hfft__fail(HFFT_ERR_SETTING, "wisdom path longer than %zu bytes",
                          sizeof s->wisdom - 1);
    strcpy(s->wisdom, text);
    return 0;
}

/* ---- the table every setting is read through ---- */

/* One setting: where it comes from, how it is checked, where it goes.  Its
   resolve is one of the three below, by the type of its option field. */
typedef struct setting setting;
struct setting {
    int (*resolve)(const setting *t, const hfft_options *o, hfft__settings *s);
    size_t option;   /* the field's offset in hfft_options */
    const char *env; /* its environment variable; NULL: options only */
    /* whole numbers: the field's offset in hfft__settings and its size (int or int64_t,
       as the option's), the range of a value set, and the variable's parser */
    size_t field, size;
    int64_t lo, hi;
    int (*parse)(const char *text, int64_t *out);
    /* texts: what takes the text, given the option's name or the variable's */
    int (*take)(const char *what, const char *text, hfft__settings *s);
    const char *what;
    /* shares: the round the option fixes; -1: every round */
    int round;
    /* whole numbers and shares: the message for an option out of range, a format given
       its value (long long or double), then hi (long long) */
    const char *bad;
};

static int64_t whole_get(const void *at, size_t size) {
    if (size == sizeof(int64_t)) {
        int64_t v;
        memcpy(&v, at, sizeof v);
        return v;
    }
    int v;
    memcpy(&v, at, sizeof v);
    return v;
}

static void whole_put(void *at, size_t size, int64_t v) {
    int narrow = (int)v;
    memcpy(at, size == sizeof(int64_t) ? (const void *)&v : &narrow, size);
}

/* A whole number: the option where not 0, which must lie in [lo, hi]; else the
   variable where set and not empty; else 0, the default each reader knows. */
static int resolve_whole(const setting *t, const hfft_options *o, hfft__settings *s) {
    int64_t v = o ? whole_get((const char *)o + t->option, t->size) : 0;
    if (v && (v < t->lo || v > t->hi))
        return hfft__fail(HFFT_ERR_SETTING, t->bad, (long long)v, (long long)t->hi);
    const char *env;
    if (!v && t->env && (env = getenv(t->env)) && *env)
        HFFT__TRY(t->parse(env, &v));
    whole_put((char *)s + t->field, t->size, v);
    return 0;
}

/* A text: the option where not NULL, even empty; else the variable where not empty. */
static int resolve_text(const setting *t, const hfft_options *o, hfft__settings *s) {
    const char *text = NULL;
    if (o)
        memcpy(&text, (const char *)o + t->option, sizeof text);
    if (text)
        return t->take(t->what, text, s);
    text = getenv(t->env);
    return text && *text ? t->take(t->env, text, s) : 0;
}

/* A share of the GPU (options only): where not 0, in (0, 1], for one round or all. */
static int resolve_share(const setting *t, const hfft_options *o, hfft__settings *s) {
    double v = 0.0;
    if (o)
        memcpy(&v, (const char *)o + t->option, sizeof v);
    if (v == 0.0)
        return 0;
    if (!(v > 0.0 && v <= 1.0))
        return hfft__fail(HFFT_ERR_SETTING, t->bad, v);
    for (int h = 0; h < HFFT_MAX_ROUNDS; h++)
        if (t->round < 0 || t->round == h)
            s->ratio[h] = v;
    return 0;
}

#define WHOLE(opt, to, lo_, hi_, bad_, env_, parse_)                                      \
    {                                                                                     \
        .resolve = resolve_whole, .option = offsetof(hfft_options, opt), .env = env_,     \
        .field = offsetof(hfft__settings, to), .size = sizeof(((hfft__settings *)0)->to), \
        .lo = lo_, .hi = hi_, .parse = parse_, .bad = bad_                                \
    }
#define TEXT(opt, env_, take_)                                                       \
    {                                                                                \
        .resolve = resolve_text, .option = offsetof(hfft_options, opt), .env = env_, \
        .take = take_, .what = "options." #opt                                       \
    }
#define SHARE(opt, round_, bad_)                                                          \
    {                                                                                     \
        .resolve = resolve_share, .option = offsetof(hfft_options, opt), .round = round_, \
        .bad = bad_                                                                       \
    }

/* In the order they are checked: the first error is the one reported. */
static const setting setting_table[] = {
    WHOLE(device_memory, budget, 1, INT64_MAX, "options.device_memory %lld is negative",
          "HFFT_DEVICE_MEMORY", parse_budget),
    WHOLE(threads, threads, 1, HFFT__MAX_THREADS,
          "options.threads %lld: must be between 1 and %lld", "HFFT_THREADS", parse_threads),
    WHOLE(device, device, HFFT_DEVICE_NONE, HFFT_DEVICE_EMULATED,
          "options.device %lld: unknown device kind", "HFFT_DEVICE", parse_device),
    WHOLE(pinning, pinning, HFFT_PINNING_REGISTER, HFFT_PINNING_STAGE,
          "options.pinning %lld: use an enum hfft_pinning value", "HFFT_PINNING", parse_pinning),
    WHOLE(trace, trace, 1, 1, "options.trace %lld: use 0 or 1", "HFFT_TRACE", parse_trace),
    TEXT(devices, "HFFT_DEVICES", take_devices),
    TEXT(wisdom, "HFFT_WISDOM", take_wisdom),
    SHARE(ratio, -1, "options.ratio %g: must be in (0, 1]"),
    SHARE(round_ratio[0], 0, "options.round_ratio[0] %g: must be in (0, 1]"),
    SHARE(round_ratio[1], 1, "options.round_ratio[1] %g: must be in (0, 1]"),
    SHARE(round_ratio[2], 2, "options.round_ratio[2] %g: must be in (0, 1]"),
    WHOLE(pass_bytes, pass_bytes, 1, INT64_MAX, "options.pass_bytes is negative", NULL, NULL),
    WHOLE(slots, slots, 2, 8, "options.slots %lld: use 2 to 8, or 0", NULL, NULL),
};

int hfft__settings_resolve(const hfft_options *o, hfft__settings *s) {
    memset(s, 0, sizeof *s);
    for (int h = 0; h < HFFT_MAX_ROUNDS; h++)
        s->ratio[h] = -1.0;
    for (size_t i = 0; i < sizeof setting_table / sizeof setting_table[0]; i++)
        HFFT__TRY(setting_table[i].resolve(&setting_table[i], o, s));
    return 0;
}
