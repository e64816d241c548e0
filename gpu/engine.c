/*
 * engine.c: the GPU engine's out-of-card pass schedule: sizing each round's
 * passes to the budget, allocating everything at plan time, and running a
 * round with the schedule its size calls for (one file each):
 *   plain    whole lines per pass through rotating buffers (plain.c);
 *   radix2   the 2013 four-subsequence split inside a pass (radix2.c);
 *   long     lines longer than a pass, by decimation in time (longline.c);
 *   four     both rounds of an out-of-place 2D (or planes) plan as runs of whole
 *            rows, four-step along dimension 0 (fourstep.c).
 * Written once against the device interface, so that the CUDA backend and
 * the emulated device run the same passes.
 */
#include <stdlib.h>
#include <string.h>

#include "gpu/engine.h"
#include "gpu/sched.h"

#define DEFAULT_SLOTS 2
#define RADIX2_SLOTS 4 /* two buffer sets of two halves */
#define MIN_PASSES 4 /* automatic passes: at least this many in the largest round */
#define WIDE_ROW 65536 /* strided rows this wide copy at the link's rate */
#define CONTIG_PASS_MAX ((size_t)2 << 30) /* contiguous-only problems: passes at most */

static const hfft__cards_ops engine_ops;

/* Sizes one round for slot capacity cap: kind, pass size and cuFFT plans. */
static int plan_round(hfft__gpu *g, rstate *r, int want, size_t cap, size_t *work, int *nwork) {
    size_t es = g->es;
    hfft__sched_destroy_plans(g, r);
    *work = 0;
    *nwork = 0;
    if (r->units == 0) {
        r->kind = NULL;
        return 0;
    }
    if (!hfft__round_strided(&r->r)) {
        size_t line = (size_t)r->r.dout * es; /* complex side (real rounds: padded rows) */
        if (line > cap)
            return hfft__fail(HFFT_ERR_BUDGET,
                              "a contiguous line of %lld elements (%s) does not fit a pass of %s; "
                              "raise the device budget or use HFFT_CPU_ONLY",
                              (long long)r->r.L, hfft__bytes_text((double)line).s,
                              hfft__bytes_text((double)cap).s);
        r->kind = &hfft__plain_kind;
        r->blk = (int64_t)(cap / line);
        if (r->blk > r->units)
            r->blk = r->units;
        return hfft__plain_size(g, r, r->r.L, work, nwork);
    }
    size_t col = (size_t)r->r.L * es;
    if (col <= cap) {
        int64_t w = (int64_t)(cap / col);
        /* An execute waits, beyond its copies, for one whole strided pass (its
           FFTs need all of each column before any of it goes out).  Where the
           buffer's rows would be wider than WIDE_ROW, narrower passes (down to
           an eighth of the buffer) cut that wait at no cost in copy rate. */
        int64_t wide = (int64_t)(WIDE_ROW / es);
        if (!g->fixed_passes && w > wide)
            w = w / 8 > wide ? w / 8 : wide;
        if (w > r->units)
            w = r->units;
        r->blk = w;
        /* Radix-2 keeps a whole pass in two slots (quarters in halves). */
        /* (not a four-step round: radix-2 applies no twiddles) */
        /* (nor r2r lines, whose kinds' steps read across a whole line) */
        int radix_ok = r->r.L % 4 == 0 && (size_t)w * col <= 2 * cap && !r->r.twn && !r->r.r2r;
        if (want == 2 && radix_ok)
            return hfft__radix2_size(g, r, cap, work, nwork);
        r->kind = &hfft__plain_kind;
        return hfft__plain_size(g, r, r->r.L, work, nwork);
    }
    if (r->r.twn) /* the long-line schedule applies no four-step twiddles */
        return hfft__fail(HFFT_ERR_BUDGET,
                          "a column of %lld points (%s) of a line cut four-step does not fit "
                          "a pass of %s",
                          (long long)r->r.L, hfft__bytes_text((double)col).s,
                          hfft__bytes_text((double)cap).s);
    if (r->r.r2r) /* nor r2r lines cut: their kinds' steps read across a whole line */
        return hfft__fail(HFFT_ERR_BUDGET,
                          "an r2r line of %lld pairs of reals (%s) does not fit a pass of %s",
                          (long long)r->r.L, hfft__bytes_text((double)col).s,
                          hfft__bytes_text((double)cap).s);
    return hfft__long_size(g, r, cap, work, nwork);
}

/*
 * Automatic passes are as large as the budget allows over the buffers, but
 * leave the largest round at least MIN_PASSES passes so that copies in and out
 * overlap.  Large matters for strided rounds: a pass of cap bytes copies rows
 * of cap / L bytes, and while FFTs run the link moves narrow pitched rows
 * slower than wide ones, and those slower than contiguous copies.  The
 * allocation loop shrinks the passes until the buffers, the scratch and
 * cuFFT's work areas fit.
 */
static size_t pick_capacity(const hfft__gpu_req *req, int64_t budget, size_t es, int nslot) {
    int64_t biggest = 0;
    for (int h = 0; h < req->nrounds; h++) {
        const hfft__round *r = &req->rounds[h];
        int64_t e = r->dout * r->no; /* the round's complex elements */
        if (e > biggest)
            biggest = e;
    }
    size_t total = (size_t)biggest * es;
    size_t cap = req->pass_bytes > 0 ? (size_t)req->pass_bytes : total / MIN_PASSES;
    if (req->pass_bytes <= 0 && cap < (4u << 20))
        cap = 4u << 20;
    /* Contiguous rounds gain nothing from passes beyond a few GiB (their copies are
       whole rows at any size), and very large ones copy slower both ways at once. */
    int strided = 0;
    for (int h = 0; h < req->nrounds; h++)
        strided |= hfft__round_strided(&req->rounds[h]);
    if (req->pass_bytes <= 0 && !strided && cap > CONTIG_PASS_MAX)
        cap = CONTIG_PASS_MAX;
    /* A pass holds at least one whole line of each contiguous round (a batch of one
       line is its own pass), where the budget allows. */
    for (int h = 0; h < req->nrounds && req->pass_bytes <= 0; h++) {
        const hfft__round *r = &req->rounds[h];
        size_t line = ((size_t)r->dout * es + 255) & ~(size_t)255; /* kept by the rounding below */
        if (!hfft__round_strided(r) && cap < line)
            cap = line;
    }
    if (cap > (size_t)budget / (size_t)nslot)
        cap = (size_t)budget / (size_t)nslot;
    return cap & ~(size_t)255;
}

static int any_transpose(const hfft__gpu *g) {
    for (int h = 0; h < g->nrounds; h++)
        if (g->rd[h].kind && g->rd[h].transpose)
            return 1;
    return 0;
}

/* Bytes of the transposed compute's scratch: WCOLS lines of the longest such line. */
static size_t scratch_bytes(const hfft__gpu *g) {
    size_t most = 0;
    for (int h = 0; h < g->nrounds; h++) {
        const rstate *r = &g->rd[h];
        int64_t L = r->kind == &hfft__long_kind ? r->leaf : r->r.L;
        size_t b = r->kind && r->transpose ? (size_t)(r->wc * L) * g->es : 0;
        if (b > most)
            most = b;
    }
    return most;
}

/* Rounds that write transposed need a second buffer per slot. */
static int any_tout(const hfft__gpu *g) {
    for (int h = 0; h < g->nrounds; h++)
        if (g->rd[h].kind && g->rd[h].r.tout)
            return 1;
    return 0;
}

static int allocate(hfft__gpu *g) {
    for (int i = 0; i < g->nslot; i++) {
        TRY(g->ops->alloc(g->d, &g->buf[i], g->cap));
        if (any_tout(g))
            TRY(g->ops->alloc(g->d, &g->tbuf[i], g->cap));
    }
    g->tb_bytes = scratch_bytes(g);
    if (g->tb_bytes)
        TRY(g->ops->alloc(g->d, &g->tb, g->tb_bytes));
    for (int i = 0; i < g->nwork && g->work_bytes; i++)
        TRY(g->ops->alloc(g->d, &g->work[i], g->work_bytes));
    return 0;
}

/* The engine's streams and events. */
static int make_handles(hfft__gpu *g) {
    const hfft__dev_ops *o = g->ops;
    for (int i = 0; i < NSTREAM + 1; i++)
        TRY(o->stream_create(g->d, &g->stream[i]));
    for (int i = 0; i < 3 * NSTREAM; i++)
        TRY(o->event_create(g->d, &g->ev[i]));
    for (int i = 0; i < NCHUNK; i++)
        TRY(o->event_create(g->d, &g->prev_out[i]));
    for (int i = 0; i <= HFFT__MAX_ROUNDS; i++)
        TRY(o->event_create_timed(g->d, &g->round_end[i]));
    for (int i = 0; i < NSLOT; i++)
        for (int j = 0; j < NCHUNK; j++) {
            TRY(o->event_create(g->d, &g->in_ev[i][j]));
            TRY(o->event_create(g->d, &g->comp_ev[i][j]));
            TRY(o->event_create(g->d, &g->out_ev[i][j]));
        }
    return 0;
}

/* Every round's passes at capacity cap: kinds, plans and work areas, then the buffers.
   Where they do not fit, HFFT_ERR_BUDGET or HFFT_ERR_DEVICE_MEMORY with *next, the
   capacity to try next; *final where smaller passes will not help (a line no pass
   can hold). */
static int size_passes(hfft__gpu *g, const hfft__gpu_req *req, int want, size_t cap,
                       int64_t budget, size_t *next, int *final) {
    size_t work = 0;
    int nwork = 0;
    *next = (cap * 3 / 4) & ~(size_t)255;
    *final = 0;
    for (int h = 0; h < g->nrounds; h++) {
        size_t w;
        int n;
        int st = plan_round(g, &g->rd[h], want, cap, &w, &n);
        *final = st && st != HFFT_ERR_DEVICE_MEMORY;
        if (st)
            return st;
        if (g->rd[h].u0 && g->rd[h].kind && !g->rd[h].kind->shares)
            return hfft__fail(HFFT_ERR_UNSUPPORTED,
                              "a card's share of round %d needs the %s schedule, which takes "
                              "a round from its first unit only",
                              h + 1, g->rd[h].kind->name);
        work = w > work ? w : work;
        nwork = n > nwork ? n : nwork;
    }
    g->cap = cap;
    g->work_bytes = work;
    g->nwork = nwork;
    size_t other = scratch_bytes(g) + (size_t)nwork * work;
    size_t per = (size_t)g->nslot * (any_tout(g) ? 2 : 1);
    if ((int64_t)(per * cap + other) > budget) {
        /* Passes that take what the scratch and work areas leave (these shrink with
           the passes, so the next try fits). */
        size_t fit = (int64_t)other < budget ? ((size_t)budget - other) / per : 0;
        fit &= ~(size_t)255;
        if (fit > *next && fit < cap && req->pass_bytes <= 0)
            *next = fit;
        return HFFT_ERR_BUDGET;
    }
    return allocate(g);
}

/* The passes as large as the budget allows over the buffers, shrinking until they,
   the scratch and the work areas fit; partial residency in what they leave. */
static int make_passes(hfft__gpu *g, const hfft__gpu_req *req, int64_t budget) {
    int want = req->schedule == 2 ? 2 : 1;
    g->nslot = req->slots > 0 ? req->slots : DEFAULT_SLOTS;
    g->nslot = g->nslot < 2 ? 2 : g->nslot > NSLOT ? NSLOT : g->nslot;
    if (want == 2 && g->nslot < RADIX2_SLOTS)
        g->nslot = RADIX2_SLOTS;
    size_t cap = pick_capacity(req, budget, g->es, g->nslot);
    /* Residency where the passes at a width that keeps rows wide leave room for it,
       and each pass still holds whole columns and whole rows (the long-line schedule
       keeps none). */
    int resident = req->schedule == 0 && req->slots == 0 && req->pass_bytes <= 0 &&
                   hfft__res_eligible(g) &&
                   (int64_t)((size_t)g->nslot * hfft__res_pass_bytes(g)) < budget / 2 &&
                   hfft__res_pass_bytes(g) >= 256 &&
                   hfft__res_pass_bytes(g) >= (size_t)req->rounds[0].L * g->es &&
                   hfft__res_pass_bytes(g) >= (size_t)req->rounds[0].ni * g->es;
    if (resident) {
        cap = hfft__res_pass_bytes(g);
        g->fixed_passes = 1;
    }
    for (;;) {
        if (cap < 256)
            return hfft__fail(HFFT_ERR_BUDGET,
                              "device budget of %s (%s free of it) is too small for any pass "
                              "of this problem",
                              hfft__bytes_text((double)g->ops->budget(g->d)).s,
                              hfft__bytes_text((double)budget).s);
        size_t next;
        int final;
        int st = size_passes(g, req, want, cap, budget, &next, &final);
        if (!st)
            break;
        if (final || (st != HFFT_ERR_DEVICE_MEMORY && st != HFFT_ERR_BUDGET))
            return st;
        /* Too big, or the device refused memory: shrink the passes and try again. */
        hfft__sched_release(g);
        hfft__clear_error();
        cap = next;
    }
    return resident ? hfft__res_size(g) : 0;
}

/* In-place long lines need a host scratch for phase 1. */
static int make_host_scratch(hfft__gpu *g) {
    for (int h = 0; h < g->nrounds; h++) {
        rstate *r = &g->rd[h];
        if (r->kind == &hfft__long_kind && r->inplace) {
            size_t b = (size_t)(r->r.L * r->wcols) * g->es;
            if (b > g->scratch_bytes)
                g->scratch_bytes = b;
        }
    }
    return g->scratch_bytes ? g->ops->host_alloc(g->d, &g->scratch, g->scratch_bytes) : 0;
}

/* The engine's schedule: four-step where it applies and fits (out of place, two
   rounds, no schedule asked for), else rounds of passes. */
static int make_schedule(hfft__gpu *g, const hfft__gpu_req *req) {
    /* What is left of the budget after what the device already holds and what
       the backend keeps for its own plan data. */
    const hfft__dev_ops *o = g->ops;
    int64_t budget = o->budget(g->d) - o->used(g->d) - o->reserve(g->d);
    if (budget <= 0)
        return hfft__fail(HFFT_ERR_BUDGET,
                          "device budget of %s leaves nothing for passes (%s in use, %s kept for "
                          "cuFFT)",
                          hfft__bytes_text((double)o->budget(g->d)).s,
                          hfft__bytes_text((double)o->used(g->d)).s,
                          hfft__bytes_text((double)o->reserve(g->d)).s);
    if (req->schedule == 0 && req->slots == 0 && req->pass_bytes <= 0) {
        int st = hfft__four_size(g, budget);
        if (st <= 0)
            return st;
    }
    TRY(make_passes(g, req, budget));
    return make_host_scratch(g);
}

int hfft__gpu_create(const hfft__dev_ops *ops, hfft__dev *dev, const hfft__gpu_req *req,
                     hfft__gpu **out) {
    *out = NULL;
    hfft__gpu *g = calloc(1, sizeof *g);
    if (!g)
        return hfft__fail(HFFT_ERR_HOST_MEMORY, "GPU engine: out of memory");
    g->base.ops = &engine_ops;
    g->ops = ops;
    g->d = dev;
    g->xfer.ops = ops;
    g->xfer.d = dev;
    g->prec = req->prec;
    g->es = 2u * (size_t)req->prec;
    g->sign = req->sign;
    g->inplace = req->inplace;
    g->share_four = req->share_four;
    g->card = req->card;
    g->cards = req->cards;
    g->no_four = req->no_four;
    g->nrounds = req->nrounds;
    g->fixed_passes = req->pass_bytes > 0;
    for (int h = 0; h < req->nrounds; h++) {
        g->rd[h].r = req->rounds[h];
        g->rd[h].units = req->units[h];
        g->rd[h].u0 = req->lo[h];
        g->rd[h].inplace = req->round_inplace[h];
    }
    int st = make_handles(g);
    if (!st)
        st = make_schedule(g, req);
    if (st) {
        hfft__gpu_destroy(g);
        return st;
    }
    *out = g;
    return 0;
}

void hfft__gpu_destroy(hfft__gpu *g) {
    if (!g)
        return;
    hfft__stage_destroy(g->xfer.stage);
    hfft__four_destroy(g);
    hfft__res_release(g);
    hfft__sched_release(g);
    for (int i = 0; i < NSTREAM + 1; i++)
        if (g->stream[i])
            g->ops->stream_destroy(g->d, g->stream[i]);
    for (int i = 0; i < 3 * NSTREAM; i++)
        if (g->ev[i])
            g->ops->event_destroy(g->d, g->ev[i]);
    for (int i = 0; i < NCHUNK; i++)
        if (g->prev_out[i])
            g->ops->event_destroy(g->d, g->prev_out[i]);
    for (int i = 0; i <= HFFT__MAX_ROUNDS; i++)
        if (g->round_end[i])
            g->ops->event_destroy(g->d, g->round_end[i]);
    for (int i = 0; i < NSLOT; i++) {
        for (int j = 0; j < NCHUNK; j++) {
            hfft__event e[3] = {g->in_ev[i][j], g->comp_ev[i][j], g->out_ev[i][j]};
            for (int k = 0; k < 3; k++)
                if (e[k])
                    g->ops->event_destroy(g->d, e[k]);
        }
    }
    if (g->scratch)
        g->ops->host_free(g->d, g->scratch);
    free(g);
}

static int run_round(hfft__gpu *g, int h, const void *src, void *dst, int drain) {
    rstate *r = &g->rd[h];
    int64_t pass = 0;
    if (h == 0 || g->rec != h)
        g->rec = -1; /* an execute starts with round 0; rounds run out of turn get no times */
    if (h == 0)
        TRY(g->ops->record(g->d, g->round_end[0], g->stream[0]));
    if (!r->kind)
        return 0;
    /* Rounds that do not wait for the round before by themselves start once it is
       done. */
    if (!r->kind->pipelined && (g->piped || g->nprev))
        TRY(hfft__sched_sync(g));
    TRY(r->kind->run(g, r, h, src, dst, &pass));
    if (r->kind == &hfft__plain_kind && h == 0 && g->res)
        TRY(hfft__res_round1(g, src));
    g->passes[h] = pass;
    /* Pipelined rounds may meet the next one without a drain (see plain.c): every copy
       out goes through stream[1], so the event after the round's last one ends it. */
    if (!drain && r->kind->pipelined && !g->xfer.stage) {
        /* round 0's resident columns end on the compute stream; round 1's copies in
           wait for them already, so the copy-out stream waiting too orders nothing new */
        if (h == 0 && g->res)
            TRY(g->ops->wait(g->d, g->stream[1], g->res_ev));
        TRY(g->ops->record(g->d, g->round_end[h + 1], g->stream[1]));
        g->rec = h + 1;
        return 0;
    }
    TRY(hfft__sched_sync(g));
    TRY(g->ops->record(g->d, g->round_end[h + 1], g->stream[1]));
    TRY(g->ops->event_sync(g->d, g->round_end[h + 1])); /* at once: every stream is idle */
    g->rec = h + 1;
    return 0;
}

int hfft__gpu_run(hfft__gpu *g, int h, const void *src, void *dst, int drain) {
    int st = g->ops->activate(g->d);
    if (st)
        return st;
    st = run_round(g, h, src, dst, drain);
    if (st) {
        /* Let what was already queued finish, so that nothing of this execute
           is still in flight when the caller (or the next execute) goes on. */
        for (int i = 0; i < NSTREAM + 1; i++)
            (void)g->ops->sync(g->d, g->stream[i]);
        if (g->xfer.stage)
            (void)hfft__stage_sync(g->xfer.stage);
        g->piped = 0;
    }
    return st;
}

/* The largest chunk a plain pass copies, in bytes. */
static size_t largest_chunk(const hfft__gpu *g) {
    size_t most = 0;
    for (int h = 0; h < g->nrounds; h++) {
        size_t b = g->rd[h].kind == &hfft__plain_kind ? hfft__plain_chunk_bytes(g, &g->rd[h]) : 0;
        if (b > most)
            most = b;
    }
    return most;
}
int hfft__gpu_stage(hfft__gpu *g, int on, int threads) {
    if (!on || g->xfer.stage) {
        if (!on) {
            hfft__stage_destroy(g->xfer.stage);
            g->xfer.stage = NULL;
        }
        return 0;
    }
    for (int h = 0; h < g->nrounds; h++)
        if (g->rd[h].kind && !g->rd[h].kind->stages)
            return hfft__fail(HFFT_ERR_UNSUPPORTED,
                              "staged copies need the plain schedule; the %s schedule copies "
                              "straight from pinned (registered) arrays",
                              g->rd[h].kind->name);
    /* four-step: slots of 32 MiB, wide rows going through them in pieces */
    size_t slot = g->four ? (size_t)32 << 20 : largest_chunk(g);
    return hfft__stage_create(g->ops, g->d, slot, threads > 0 ? threads : 1, &g->xfer.stage);
}

int hfft__gpu_staged(const hfft__gpu *g) { return g->xfer.stage != NULL; }

int hfft__gpu_four(const hfft__gpu *g, hfft__four_shape *s) { return hfft__four_layout(g, s); }
int hfft__gpu_four_part(const hfft__gpu *g, hfft__four_part *p) { return hfft__four_own_part(g, p); }
int hfft__gpu_res_part(const hfft__gpu *g, hfft__res_part *p) { return hfft__res_own_part(g, p); }
void hfft__gpu_res_parts(hfft__gpu *g, const hfft__res_part *parts, int n) {
    hfft__res_set_parts(g, parts, n);
}
void hfft__gpu_four_parts(hfft__gpu *g, const hfft__four_part *parts, int n) {
    hfft__four_set_parts(g, parts, n);
}

void hfft__gpu_set_take(hfft__gpu *g, hfft__take_fn fn, void *ctx) {
    g->take = fn;
    g->take_ctx = ctx;
}

void hfft__gpu_take_link(hfft__gpu *g, int64_t bytes[2]) {
    bytes[0] = g->xfer.bytes[0];
    bytes[1] = g->xfer.bytes[1];
    g->xfer.bytes[0] = g->xfer.bytes[1] = 0;
}

int hfft__gpu_round_times(const hfft__gpu *g, double *secs) {
    if (g->rec != g->nrounds)
        return -1;
    double t[HFFT__MAX_ROUNDS];
    for (int h = 0; h < g->nrounds; h++)
        if (g->ops->event_elapsed(g->d, g->round_end[h], g->round_end[h + 1], &t[h]) || !(t[h] >= 0))
            return -1;
    memcpy(secs, t, (size_t)g->nrounds * sizeof *t);
    return 0;
}

void hfft__gpu_fill_info(const hfft__gpu *g, hfft_info *info) {
    int sched = HFFT_SCHED_NONE;
    for (int h = 0; h < g->nrounds; h++) {
        const rstate *r = &g->rd[h];
        int64_t outer = hfft__round_strided(&r->r) ? r->r.no : 1;
        info->passes[h] = r->kind ? (int)(outer * r->kind->passes(g, r, h)) : 0;
        /* radix-2 in any round names the plan's schedule; plain for the rest */
        if (r->kind && r->kind->schedule == HFFT_SCHED_RADIX2)
            sched = HFFT_SCHED_RADIX2;
        else if (r->kind && sched == HFFT_SCHED_NONE)
            sched = HFFT_SCHED_PLAIN;
    }
    info->schedule = g->four ? HFFT_SCHED_FOUR_STEP : sched;
    info->transposed = any_transpose(g);
    info->streams = sched == HFFT_SCHED_RADIX2 ? NSTREAM : g->nslot;
    info->device_bytes = g->ops->used(g->d);
    info->resident_bytes =
        g->res ? g->rw * g->rd[0].r.L * (int64_t)g->es : hfft__four_resident_bytes(g);
    info->host_bytes += (int64_t)g->scratch_bytes + hfft__stage_bytes(g->xfer.stage);
}

/* ---- one card streaming as a plan's GPU side ---- */

static hfft__gpu *of(hfft__cards *c) { return (hfft__gpu *)c; }
static const hfft__gpu *of_c(const hfft__cards *c) { return (const hfft__gpu *)c; }

hfft__cards *hfft__gpu_side(hfft__gpu *g) { return &g->base; }

static void side_destroy(hfft__cards *c) { hfft__gpu_destroy(of(c)); }

static int side_run(hfft__cards *c, int h, const void *src, void *dst, int drain) {
    return hfft__gpu_run(of(c), h, src, dst, drain);
}

static int side_stage(hfft__cards *c, int on, int threads) {
    return hfft__gpu_stage(of(c), on, threads);
}

static int side_staged(const hfft__cards *c) { return hfft__gpu_staged(of_c(c)); }

static int side_used(const hfft__cards *c) {
    (void)c;
    return 1;
}

static int side_four(const hfft__cards *c, hfft__four_shape *s) {
    return hfft__gpu_four(of_c(c), s);
}

static void side_set_take(hfft__cards *c, hfft__take_fn fn, void *ctx) {
    hfft__gpu_set_take(of(c), fn, ctx);
}

static void side_take_link(hfft__cards *c, int64_t bytes[2]) {
    hfft__gpu_take_link(of(c), bytes);
}

static void side_times(const hfft__cards *c, double *secs) {
    for (int h = 0; h < of_c(c)->nrounds; h++)
        secs[h] = 0.0;
}

static int side_round_times(const hfft__cards *c, double *secs) {
    return hfft__gpu_round_times(of_c(c), secs);
}

static void side_fill_info(const hfft__cards *c, hfft_info *info) {
    hfft__gpu_fill_info(of_c(c), info);
}

static const hfft__cards_ops engine_ops = {
    .kind = 0,
    .destroy = side_destroy,
    .run = side_run,
    .stage = side_stage,
    .staged = side_staged,
    .used = side_used,
    .four = side_four,
    .set_take = side_set_take,
    .take_link = side_take_link,
    .times = side_times,
    .round_times = side_round_times,
    .fill_info = side_fill_info,
};
