/*
 * pool.c: the CPU executor's threads.  Each thread is bound to its own core
 * with hwloc, skipping `reserve` cores so that the thread feeding the GPU is
 * never starved.  Work comes as numbered jobs taken dynamically; the caller
 * starts a batch and later waits for it, so it can drive the GPU meanwhile.
 * A batch can also run once on every thread (hfft__pool_each), so that each
 * thread allocates and first touches the memory it will use.
 *
 * A batch is over when its jobs have run, not when every worker has woken: a
 * worker asleep since the last batch can take a tenth of a millisecond to run
 * again, as long as a small batch's whole work (a stream's add).  Jobs are
 * claimed from a counter that carries the batch's generation, so that a worker
 * waking late takes no job of a later batch with the earlier batch's function.
 */
#include <errno.h>
#include <hwloc.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cpu/cpu.h"
#include "src/core/fault.h"
#include "src/core/status.h"

struct worker {
    struct hfft__pool *pool;
    int index;
    pthread_t tid;
};

struct hfft__pool {
    int nthreads;
    struct worker *workers;
    pthread_mutex_t mu;
    pthread_cond_t wake, done;
    uint64_t generation;
    int quit;
    hfft__job_fn fn;
    void *ctx;
    int64_t njobs;
    int each;                 /* this batch: fn once per thread, job = thread index */
    _Atomic uint64_t next;    /* the generation's low bits above JOB_BITS, the next job */
    _Atomic int64_t finished; /* jobs of this batch run */
    int over;                 /* and the batch declared over (done_at set) */
    hwloc_topology_t topo;
    int topo_ok;
    int reserve;
    double done_at;
};

/* Jobs of a batch below 2^JOB_BITS; the generation's other bits tell batches apart, so
   that a worker would have to sleep through 2^32 batches to take a later one's job. */
#define JOB_BITS 32
#define JOB_MASK (((uint64_t)1 << JOB_BITS) - 1)

/* The next job of batch `gen` (of njobs), or -1 where none is left or a later batch
   has started. */
static int64_t claim(hfft__pool *p, uint64_t gen, int64_t njobs) {
    uint64_t cur = atomic_load(&p->next);
    for (;;) {
        if (cur >> JOB_BITS != (gen & (~(uint64_t)0 >> JOB_BITS)))
            return -1;
        int64_t j = (int64_t)(cur & JOB_MASK);
        if (j >= njobs)
            return -1;
        if (atomic_compare_exchange_weak(&p->next, &cur, cur + 1))
            return j;
    }
}

/* n more jobs of a batch of njobs run: the last wakes the waiter. */
static void ran(hfft__pool *p, int64_t n, int64_t njobs) {
    if (n && atomic_fetch_add(&p->finished, n) + n == njobs) {
        pthread_mutex_lock(&p->mu);
        p->done_at = hfft__now();
        p->over = 1;
        pthread_cond_broadcast(&p->done);
        pthread_mutex_unlock(&p->mu);
    }
}

static pthread_once_t cores_once = PTHREAD_ONCE_INIT;
static int cores_count = 1;
static size_t cache_size = 32u << 20; /* where hwloc cannot tell */

static void cores_init(void) {
    hwloc_topology_t t;
    if (hwloc_topology_init(&t) == 0) {
        if (hwloc_topology_load(t) == 0) {
            int n = hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_CORE);
            if (n > 0)
                cores_count = n;
            static const hwloc_obj_type_t levels[] = {HWLOC_OBJ_L3CACHE, HWLOC_OBJ_L2CACHE};
            for (int i = 0; i < 2; i++) {
                hwloc_obj_t o = hwloc_get_obj_by_type(t, levels[i], 0);
                if (o && o->attr && o->attr->cache.size > 0) {
                    cache_size = (size_t)o->attr->cache.size;
                    break;
                }
            }
        }
        hwloc_topology_destroy(t);
    }
    if (cores_count <= 1) {
        long n = sysconf(_SC_NPROCESSORS_ONLN);
        cores_count = n > 0 ? (int)n : 1;
    }
}

int hfft__cores(void) {
    pthread_once(&cores_once, cores_init);
    return cores_count;
}

size_t hfft__cache_bytes(void) {
    pthread_once(&cores_once, cores_init);
    return cache_size;
}

static void bind_self(struct hfft__pool *p, int index) {
    if (!p->topo_ok)
        return;
    int ncores = hwloc_get_nbobjs_by_type(p->topo, HWLOC_OBJ_CORE);
    if (ncores <= 0)
        return;
    int usable = ncores - p->reserve;
    if (usable <= 0)
        usable = ncores;
    /* Reserved cores are the first ones; the feeder thread is not moved. */
    int core = ncores - usable + index % usable;
    hwloc_obj_t obj = hwloc_get_obj_by_type(p->topo, HWLOC_OBJ_CORE, (unsigned)core);
    if (!obj || !obj->cpuset)
        return;
    hwloc_bitmap_t set = hwloc_bitmap_dup(obj->cpuset);
    if (set) {
        hwloc_bitmap_singlify(set);
        /* Placement is an optimisation: a refusal (containers, cgroups) is not an error. */
        (void)hwloc_set_cpubind(p->topo, set, HWLOC_CPUBIND_THREAD);
        hwloc_bitmap_free(set);
    }
}

static void *worker_main(void *arg) {
    struct worker *w = arg;
    struct hfft__pool *p = w->pool;
    bind_self(p, w->index);
    uint64_t seen = 0;
    pthread_mutex_lock(&p->mu);
    for (;;) {
        while (!p->quit && p->generation == seen)
            pthread_cond_wait(&p->wake, &p->mu);
        if (p->quit)
            break;
        seen = p->generation;
        hfft__job_fn fn = p->fn;
        void *ctx = p->ctx;
        int64_t njobs = p->njobs;
        int each = p->each;
        pthread_mutex_unlock(&p->mu);
        int64_t n = 0;
        if (each) {
            fn(ctx, w->index, w->index);
            n = 1;
        }
        for (int64_t j; !each && (j = claim(p, seen, njobs)) >= 0; n++)
            fn(ctx, j, w->index);
        ran(p, n, njobs);
        pthread_mutex_lock(&p->mu);
    }
    pthread_mutex_unlock(&p->mu);
    return NULL;
}

int hfft__pool_create(int threads, int reserve, hfft__pool **out) {
    *out = NULL;
    if (threads <= 0)
        return hfft__fail(HFFT_ERR_INVALID_ARGUMENT, "thread pool: %d threads", threads);
    hfft__pool *p = calloc(1, sizeof *p);
    if (!p)
        return hfft__fail(HFFT_ERR_HOST_MEMORY, "thread pool: out of memory");
    p->workers = calloc((size_t)threads, sizeof *p->workers);
    if (!p->workers) {
        free(p);
        return hfft__fail(HFFT_ERR_HOST_MEMORY, "thread pool: out of memory");
    }
    pthread_mutex_init(&p->mu, NULL);
    pthread_cond_init(&p->wake, NULL);
    pthread_cond_init(&p->done, NULL);
    p->reserve = reserve;
    if (hwloc_topology_init(&p->topo) == 0) {
        if (hwloc_topology_load(p->topo) == 0)
            p->topo_ok = 1;
        else
            hwloc_topology_destroy(p->topo);
    }
    for (int i = 0; i < threads; i++) {
        p->workers[i].pool = p;
        p->workers[i].index = i;
        int rc = hfft__fault_hit("thread")
                     ? EAGAIN
                     : pthread_create(&p->workers[i].tid, NULL, worker_main, &p->workers[i]);
        if (rc != 0) {
            p->nthreads = i;
            hfft__pool_destroy(p);
            return hfft__fail(HFFT_ERR_THREAD, "pthread_create failed for CPU thread %d of %d: %s",
                              i + 1, threads, strerror(rc));
        }
    }
    p->nthreads = threads;
    *out = p;
    return 0;
}

void hfft__pool_destroy(hfft__pool *p) {
    if (!p)
        return;
    pthread_mutex_lock(&p->mu);
    p->quit = 1;
    pthread_cond_broadcast(&p->wake);
    pthread_mutex_unlock(&p->mu);
    for (int i = 0; i < p->nthreads; i++)
        pthread_join(p->workers[i].tid, NULL);
    if (p->topo_ok)
        hwloc_topology_destroy(p->topo);
    pthread_mutex_destroy(&p->mu);
    pthread_cond_destroy(&p->wake);
    pthread_cond_destroy(&p->done);
    free(p->workers);
    free(p);
}

int hfft__pool_size(const hfft__pool *p) { return p ? p->nthreads : 0; }

static int start(hfft__pool *p, int64_t njobs, hfft__job_fn fn, void *ctx, int each) {
    if ((uint64_t)njobs > JOB_MASK && njobs > 0)
        return hfft__fail(HFFT_ERR_INTERNAL, "thread pool: %lld jobs in one batch (at most %llu)",
                          (long long)njobs, (unsigned long long)JOB_MASK);
    pthread_mutex_lock(&p->mu);
    p->fn = fn;
    p->ctx = ctx;
    p->njobs = njobs;
    p->each = each;
    p->generation++;
    atomic_store(&p->finished, 0);
    atomic_store(&p->next, p->generation << JOB_BITS);
    p->over = njobs <= 0;
    if (p->over)
        p->done_at = hfft__now();
    pthread_cond_broadcast(&p->wake);
    pthread_mutex_unlock(&p->mu);
    return 0;
}

int hfft__pool_start(hfft__pool *p, int64_t njobs, hfft__job_fn fn, void *ctx) {
    return start(p, njobs, fn, ctx, 0);
}

int hfft__pool_help(hfft__pool *p, int64_t njobs, hfft__job_fn fn, void *ctx, int self) {
    int st = start(p, njobs, fn, ctx, 0);
    if (st)
        return st;
    int64_t n = 0; /* the caller takes jobs at once, beside the workers as they wake */
    for (int64_t j; (j = claim(p, p->generation, njobs)) >= 0; n++)
        fn(ctx, j, self);
    ran(p, n, njobs);
    hfft__pool_wait(p);
    return 0;
}

void hfft__pool_each(hfft__pool *p, hfft__job_fn fn, void *ctx) {
    (void)start(p, p->nthreads, fn, ctx, 1); /* (a thread count: never too many jobs) */
    hfft__pool_wait(p);
}

void hfft__pool_wait(hfft__pool *p) {
    pthread_mutex_lock(&p->mu);
    while (!p->over)
        pthread_cond_wait(&p->done, &p->mu);
    pthread_mutex_unlock(&p->mu);
}

double hfft__pool_done_at(hfft__pool *p) {
    pthread_mutex_lock(&p->mu);
    double t = p->done_at;
    pthread_mutex_unlock(&p->mu);
    return t;
}
