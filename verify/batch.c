/* SPDX-License-Identifier: Apache-2.0 */
/* The one batch verifier (bx_verify.h, "batches"): certificates verified by N threads and
 * handed back in input order, for verify, the audit and the ledger.
 *
 * With one job each certificate is verified and handed back before the next is taken. With
 * N > 1, N threads verify while the calling thread reads ahead into a ring of RING slots and
 * hands results back in order; each result goes back to the thread that verified it to be
 * freed. Memory stays bounded by the ring (and BATCH_BYTES of queued input), whatever the
 * number of certificates. Findings hold references to the policy's values: each thread has
 * its own clone of the policy, and results are freed by the thread that made them, so no JSON
 * value's reference count is touched by two threads at once. */
#include "bx_verify.h"

#include <malloc.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define RING 8
#define BATCH_BYTES (16u * 1024 * 1024)

typedef struct {
    char *file;
    size_t line;
    char *buf;
    size_t len;
    char *source; /* a binding of its own (the ledger's commit), or NULL */
    void *tag;
    int unreadable;
    bx_error err;
    bx_verify_result res;
    int rc;
    size_t worker; /* who verified it */
    int done;      /* under lock */
} item;

typedef struct {
    pthread_t tid;
    bx_policy *policy;                  /* its own clone */
    bx_verify_result garbage[RING + 1]; /* its handed-back results, to free */
    size_t ngarbage;
} wstate;

struct bx_batch {
    const bx_policy *policy;
    bx_verify_opts vo;
    int jobs, cache;
    bx_batch_fn fn;
    void *arg;
    int fn_rc; /* the first non-zero return of fn */
    item items[RING];
    size_t head, next, tail; /* hand back, verify, fill: head <= next <= tail <= head + RING */
    size_t bytes;            /* queued input */
    pthread_mutex_t lock;
    pthread_cond_t work, done;
    wstate *w;
    size_t nthreads, idle;
    size_t waiting_for; /* the item the calling thread waits for, or SIZE_MAX */
    int stop;
};

/* ---- small blocks for jansson ---------------------------------------------------------
 * A certificate's statement tree and findings are some 850 small blocks, allocated and freed
 * within moments; glibc keeps 7 freed blocks of a size per thread, so most of them went
 * through its arena bins (a sixth of the time of a verification in the profile). With
 * opts.cache, freed blocks of up to 512 bytes are kept here, per thread and 16-byte class, for
 * the next certificate. Every block is an ordinary malloc() block (its class is read with
 * malloc_usable_size), so blocks pass freely between this cache, jansson and free(). jansson's
 * allocator is the process's: only a caller that runs nothing else with JSON meanwhile (the
 * verify command) asks for it. Not under the sanitizers, which should see every free. */
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define JCACHE 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define JCACHE 0
#else
#define JCACHE 1
#endif
#else
#define JCACHE 1
#endif
#define JCACHE_CLASSES 33               /* class c: blocks of at least 16 * c usable bytes */
#define JCACHE_MAX 1024                 /* blocks per class and thread */
#define JCACHE_BYTES (2u * 1024 * 1024) /* per thread */

typedef struct {
    void *head[JCACHE_CLASSES];
    unsigned n[JCACHE_CLASSES];
    size_t bytes;
} jcache;

static __thread jcache jc;

static void *jc_malloc(size_t size)
{
    size_t c = (size + 15) / 16;
    if (c >= JCACHE_CLASSES)
        return malloc(size);
    if (jc.head[c]) {
        void *p = jc.head[c];
        jc.head[c] = *(void **)p;
        jc.n[c]--;
        jc.bytes -= c * 16;
        return p;
    }
    return malloc(c * 16);
}

static void jc_free(void *p)
{
    size_t c = p ? malloc_usable_size(p) / 16 : 0;
    if (c > 0 && c < JCACHE_CLASSES && jc.n[c] < JCACHE_MAX && jc.bytes < JCACHE_BYTES) {
        *(void **)p = jc.head[c];
        jc.head[c] = p;
        jc.n[c]++;
        jc.bytes += c * 16;
        return;
    }
    free(p);
}

static void jc_release(void)
{
    for (size_t c = 0; c < JCACHE_CLASSES; c++) {
        while (jc.head[c]) {
            void *p = jc.head[c];
            jc.head[c] = *(void **)p;
            free(p);
        }
        jc.n[c] = 0;
    }
    jc.bytes = 0;
}

/* ---- verifying one item ------------------------------------------------------------------ */

/* An input that could not be read is judged without being read: too large, or not a
 * certificate (format). */
static void unreadable_result(bx_batch *b, item *it)
{
    char buf[400];
    if (!(it->res.findings = json_array())) {
        it->rc = bx_error_set(&it->err, BX_ENOMEM, it->file, "out of memory");
        return;
    }
    if (it->err.code == BX_EINVAL && strstr(it->err.msg, "too large")) {
        bx_finding_add(
            it->res.findings, "certificate.too_large", "fail",
            json_integer((json_int_t)(b->vo.max_size ? b->vo.max_size : BX_ENVELOPE_MAX_DEFAULT)),
            json_null(), "%s", it->err.msg);
    } else {
        bx_finding_add(it->res.findings, "certificate.format", "fail", NULL, NULL, "%s",
                       bx_error_str(&it->err, buf, sizeof buf));
    }
}

static void verify_item(bx_batch *b, const bx_policy *p, item *it)
{
    bx_verify_opts vo = b->vo;
    if (it->unreadable) {
        unreadable_result(b, it);
        return;
    }
    if (it->source)
        vo.expect.source = it->source;
    it->rc = bx_verify_envelope(p, &vo, it->buf, it->len, &it->res, &it->err);
}

typedef struct {
    bx_batch *b;
    size_t id;
} wctx;

/* Verifies queued items, and frees the results of its own that were handed back. */
static void *worker(void *arg)
{
    bx_batch *b = ((wctx *)arg)->b;
    size_t id = ((wctx *)arg)->id;
    wstate *w = &b->w[id];
    free(arg);
    pthread_mutex_lock(&b->lock);
    for (;;) {
        if (w->ngarbage) {
            bx_verify_result g = w->garbage[--w->ngarbage];
            pthread_mutex_unlock(&b->lock);
            bx_verify_result_free(&g);
            pthread_mutex_lock(&b->lock);
            continue;
        }
        if (b->next == b->tail) {
            if (b->stop)
                break;
            b->idle++;
            pthread_cond_wait(&b->work, &b->lock);
            b->idle--;
            continue;
        }
        size_t i = b->next++;
        item *it = &b->items[i % RING];
        it->worker = id;
        pthread_mutex_unlock(&b->lock);
        verify_item(b, w->policy, it);
        pthread_mutex_lock(&b->lock);
        it->done = 1;
        if (b->waiting_for == i)
            pthread_cond_signal(&b->done);
    }
    pthread_mutex_unlock(&b->lock);
    if (b->cache)
        jc_release();
    return NULL;
}

/* Hand a verified item back and release it. */
static void finish(bx_batch *b, item *it)
{
    bx_batch_item out = {.file = it->file,
                         .line = it->line,
                         .unreadable = it->unreadable,
                         .res = &it->res,
                         .rc = it->rc,
                         .err = it->err,
                         .tag = it->tag};
    int rc = b->fn_rc ? 0 : b->fn(b->arg, &out);
    if (rc && !b->fn_rc)
        b->fn_rc = rc;
    if (b->nthreads) { /* back to the thread that verified it, to free */
        wstate *w = &b->w[it->worker];
        pthread_mutex_lock(&b->lock);
        if (w->ngarbage < RING + 1) {
            w->garbage[w->ngarbage++] = it->res;
            memset(&it->res, 0, sizeof it->res);
            if (b->idle)
                pthread_cond_broadcast(&b->work);
        }
        pthread_mutex_unlock(&b->lock);
    }
    bx_verify_result_free(&it->res);
    free(it->file);
    free(it->buf);
    free(it->source);
    memset(it, 0, sizeof *it);
}

/* Hand back queued items in order, at least the oldest. When it is not verified yet, wait
 * for the one `ahead` places further (the items are taken in order) and then hand back all
 * that are verified: the calling thread wakes once per batch, not once per certificate. */
static void drain(bx_batch *b, size_t ahead)
{
    pthread_mutex_lock(&b->lock);
    if (!b->items[b->head % RING].done) {
        size_t want = b->head + (ahead < b->tail - b->head ? ahead : b->tail - b->head - 1);
        while (!b->items[want % RING].done) {
            b->waiting_for = want;
            pthread_cond_wait(&b->done, &b->lock);
        }
        while (!b->items[b->head % RING].done) { /* an earlier one still being verified */
            b->waiting_for = b->head;
            pthread_cond_wait(&b->done, &b->lock);
        }
        b->waiting_for = SIZE_MAX;
    }
    while (b->head < b->tail && b->items[b->head % RING].done) {
        item *it = &b->items[b->head % RING];
        pthread_mutex_unlock(&b->lock);
        b->bytes -= it->len;
        finish(b, it);
        pthread_mutex_lock(&b->lock);
        b->head++;
    }
    pthread_mutex_unlock(&b->lock);
}

static void start_workers(bx_batch *b)
{
    b->waiting_for = SIZE_MAX;
    b->w = calloc((size_t)b->jobs, sizeof *b->w);
    for (; b->w && b->nthreads < (size_t)b->jobs; b->nthreads++) {
        wstate *w = &b->w[b->nthreads];
        wctx *c = malloc(sizeof *c);
        bx_error err;
        if (!c || bx_policy_clone(b->policy, &w->policy, &err) != 0) {
            free(c);
            break;
        }
        *c = (wctx){b, b->nthreads};
        if (pthread_create(&w->tid, NULL, worker, c) != 0) {
            free(c);
            bx_policy_free(w->policy);
            w->policy = NULL;
            break;
        }
    }
    if (b->nthreads == 0) /* no thread at all: verify here, one at a time */
        b->jobs = 1;
}

int bx_batch_open(const bx_policy *p, const bx_verify_opts *vo, const bx_batch_opts *bo,
                  bx_batch_fn fn, void *arg, bx_batch **out, bx_error *err)
{
    bx_batch *b = calloc(1, sizeof *b);

    *out = NULL;
    if (!b)
        return bx_error_set(err, BX_ENOMEM, NULL, "out of memory");
    b->policy = p;
    b->vo = *vo;
    b->jobs = bo && bo->jobs > 1 ? bo->jobs : 1;
    b->cache = JCACHE && bo && bo->cache;
    b->fn = fn;
    b->arg = arg;
    pthread_mutex_init(&b->lock, NULL);
    pthread_cond_init(&b->work, NULL);
    pthread_cond_init(&b->done, NULL);
    if (b->cache)
        json_set_alloc_funcs(jc_malloc, jc_free);
    json_object_seed(0); /* before any thread creates objects */
    if (b->jobs > 1)
        start_workers(b);
    *out = b;
    return 0;
}

/* One item: file and line name it; buf (owned from here) holds it, or err says why it could
 * not be read. */
static int add(bx_batch *b, const char *file, size_t line, char *buf, size_t len,
               const bx_error *err, const char *source, void *tag)
{
    item one = {0}, *it = &one;

    if (b->jobs > 1) {
        while (b->tail - b->head == RING || (b->bytes >= BATCH_BYTES && b->head < b->tail))
            drain(b, RING / 2);
        it = &b->items[b->tail % RING];
    }
    it->file = bx_strdup(file);
    it->source = source ? bx_strdup(source) : NULL;
    it->line = line;
    it->buf = buf;
    it->len = buf ? len : 0;
    it->tag = tag;
    if (err) {
        it->unreadable = 1;
        it->err = *err;
    }
    if (!it->file || (source && !it->source)) { /* fail closed: the whole run */
        free(it->file);
        free(it->source);
        free(it->buf);
        memset(it, 0, sizeof *it);
        return BX_ENOMEM;
    }
    if (b->jobs <= 1) {
        verify_item(b, b->policy, it);
        finish(b, it);
        return b->fn_rc;
    }
    b->bytes += it->len;
    pthread_mutex_lock(&b->lock);
    it->done = 0;
    b->tail++;
    if (b->idle)
        pthread_cond_signal(&b->work);
    pthread_mutex_unlock(&b->lock);
    return b->fn_rc;
}

int bx_batch_add(bx_batch *b, const char *file, size_t line, char *buf, size_t len,
                 const char *source, void *tag)
{
    return add(b, file, line, buf, len, NULL, source, tag);
}

int bx_batch_add_error(bx_batch *b, const char *file, size_t line, const bx_error *why, void *tag)
{
    return add(b, file, line, NULL, 0, why, NULL, tag);
}

typedef struct {
    bx_batch *b;
    bx_batch_skip_fn skip;
    void *skip_arg;
} feed;

static int feed_one(void *arg, bx_input *in)
{
    feed *f = arg;
    char *buf;
    switch (in->kind) {
    case BX_INPUT_CERT:
        buf = in->buf;
        in->buf = NULL;
        return add(f->b, in->file, in->line, buf, in->len, NULL, NULL, NULL);
    case BX_INPUT_ERROR:
        return add(f->b, in->file, in->line, NULL, 0, &in->err, NULL, NULL);
    default:
        return f->skip ? f->skip(f->skip_arg, in->file, in->err.msg) : 0;
    }
}

int bx_batch_path(bx_batch *b, const char *path, const bx_source_opts *so, bx_batch_skip_fn skip,
                  void *skip_arg)
{
    feed f = {b, skip, skip_arg};
    return bx_source_read(path, so, feed_one, &f);
}

int bx_batch_close(bx_batch *b)
{
    int rc;
    if (!b)
        return 0;
    while (b->head < b->tail)
        drain(b, RING);
    pthread_mutex_lock(&b->lock);
    b->stop = 1;
    pthread_cond_broadcast(&b->work);
    pthread_mutex_unlock(&b->lock);
    for (size_t i = 0; i < b->nthreads; i++) {
        pthread_join(b->w[i].tid, NULL);
        while (b->w[i].ngarbage)
            bx_verify_result_free(&b->w[i].garbage[--b->w[i].ngarbage]);
        bx_policy_free(b->w[i].policy);
    }
    if (b->cache) {
        json_set_alloc_funcs(malloc, free);
        jc_release();
    }
    free(b->w);
    pthread_cond_destroy(&b->work);
    pthread_cond_destroy(&b->done);
    pthread_mutex_destroy(&b->lock);
    rc = b->fn_rc;
    free(b);
    return rc;
}
