/* SPDX-License-Identifier: Apache-2.0 */
/* Workers: the audit's sessions are inspected and collected several at a time, each
 * worker with its own connection to each engine (an engine handle is one connection). */
#include "audit_internal.h"

#include <stdlib.h>

typedef struct {
    bx_audit *a;
    bxu_job fn;
    void *ud;
    size_t n, next; /* next: the next item, taken atomically */
} pool;

typedef struct {
    pool *p;
    unsigned worker;
} wctx;

static void *run(void *arg)
{
    wctx *me = arg;
    pool *p = me->p;

    for (;;) {
        size_t i = __atomic_fetch_add(&p->next, 1, __ATOMIC_RELAXED);
        if (i >= p->n)
            break;
        p->fn(p->a, me->worker, i, p->ud);
    }
    return NULL;
}

/* Open the handles of workers 1..n-1 on engine i (from its handle, bx_engine_open_like);
 * returns how many workers have one (n, or fewer when one could not be opened). */
static unsigned engine_more(bx_audit *a, size_t i, unsigned n)
{
    bxu_engine *e = &a->engines[i];

    if (n > BX_AUDIT_JOBS_MAX)
        n = BX_AUDIT_JOBS_MAX;
    if (!e->more && !(e->more = calloc(BX_AUDIT_JOBS_MAX, sizeof *e->more)))
        return 1;
    for (unsigned w = 1; w < n; w++) {
        bx_error err;
        if (!e->more[w - 1] && bx_engine_open_like(e->eng, e->flags, &e->more[w - 1], &err) != 0) {
            e->more[w - 1] = NULL;
            return w;
        }
        if (w > e->nmore)
            e->nmore = w;
    }
    return n;
}

/* Handles for workers 1..n-1 on every engine in use; returns how many workers have one on
 * each of them (the others are not started). */
static unsigned open_more(bx_audit *a, unsigned n)
{
    unsigned ok = n;

    for (size_t i = 0; i < a->nengines; i++) {
        bxu_engine *e = &a->engines[i];
        unsigned got;
        if (!e->reachable || e->lost || e->alias_of >= 0)
            continue;
        if ((got = engine_more(a, i, n)) < ok)
            ok = got;
    }
    return ok;
}

bx_engine *bxu_engine_for(bx_audit *a, size_t i, unsigned worker)
{
    bxu_engine *e = &a->engines[i];
    return worker == 0 || worker > e->nmore || !e->more[worker - 1] ? e->eng
                                                                      : e->more[worker - 1];
}

void bxu_parallel(bx_audit *a, size_t n, bxu_job fn, void *ud)
{
    unsigned nw = a->jobs < n ? a->jobs : (unsigned)n, started = 0;
    pthread_t th[BX_AUDIT_JOBS_MAX];
    wctx ws[BX_AUDIT_JOBS_MAX];
    pool p = {.a = a, .fn = fn, .ud = ud, .n = n};

    if (nw > 1)
        nw = open_more(a, nw);
    for (unsigned w = 0; w < nw; w++)
        ws[w] = (wctx){.p = &p, .worker = w};
    /* a thread that cannot be started leaves its share to the others */
    for (unsigned w = 1; w < nw && pthread_create(&th[w], NULL, run, &ws[w]) == 0; w++)
        started++;
    ws[0] = (wctx){.p = &p, .worker = 0};
    run(&ws[0]);
    for (unsigned w = 1; w <= started; w++)
        pthread_join(th[w], NULL);
}

int bxu_engine_is_lost(bx_audit *a, size_t i)
{
    int lost;

    pthread_mutex_lock(&a->mu);
    lost = a->engines[i].lost;
    pthread_mutex_unlock(&a->mu);
    return lost;
}

void bxu_progress(bx_audit *a, const char *phase, size_t done, size_t total)
{
    if (!a->o.progress)
        return;
    pthread_mutex_lock(&a->mu);
    a->o.progress(a->o.progress_ud, phase, done, total);
    pthread_mutex_unlock(&a->mu);
}
