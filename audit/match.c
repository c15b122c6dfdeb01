/* SPDX-License-Identifier: Apache-2.0 */
/* Certificates to sessions, and a verdict for each session start.
 *
 * A verified certificate belongs to a session start when its session.containerId is the
 * session's Id and its session.startedAt the session's State.StartedAt (to the second;
 * and its engine.id, when it has one, the engine's ID). Sessions no longer on any engine
 * are known from --expect: their rows come from the certificates that name them, one row
 * per start. */
#include "audit_internal.h"

#include <stdlib.h>
#include <string.h>

static void rows_reset(bx_audit *a)
{
    for (size_t i = 0; i < a->nrows; i++)
        free(a->rows[i].certs);
    free(a->rows);
    a->rows = NULL;
    a->nrows = 0;
    for (size_t i = 0; i < a->ncerts; i++)
        a->certs[i].row = -1;
}

static bxu_row *new_row(bx_audit *a, bx_error *err)
{
    bxu_row *r = bxu_grow(a->rows, &a->nrows, sizeof *a->rows);

    if (!r) {
        bx_error_set(err, BX_ENOMEM, NULL, "out of memory");
        return NULL;
    }
    a->rows = r;
    r = &a->rows[a->nrows - 1];
    r->session = -1;
    r->expect = -1;
    r->primary = -1;
    return r;
}

static int attach(bx_audit *a, size_t row, size_t cert, bx_error *err)
{
    bxu_row *r = &a->rows[row];
    size_t *g = realloc(r->certs, (r->ncerts + 1) * sizeof *g);

    if (!g)
        return bx_error_set(err, BX_ENOMEM, NULL, "out of memory");
    r->certs = g;
    r->certs[r->ncerts++] = cert;
    a->certs[cert].row = (long)row;
    return 0;
}

static int usable(const bxu_cert *c)
{
    return c->res.statement && c->ok_times && c->container_id && c->row < 0;
}

/* What certificate c records of its start (bx_start_matches compares starts). */
static bx_start start_of(const bxu_cert *c)
{
    bx_start s = c->start;

    s.has_started = c->ok_times;
    return s;
}

/* The starts of the verified certificates cand names (indices into a->certs; NULL: all),
 * for bx_start_takes. Caller frees; NULL with *n 0 when there is none; -1 out of memory. */
static int starts_of(const bx_audit *a, const json_t *cand, bx_start **out, size_t *n)
{
    size_t m = cand ? json_array_size(cand) : a->ncerts, k = 0;
    bx_start *v = m ? malloc(m * sizeof *v) : NULL;

    *out = NULL;
    *n = 0;
    if (m && !v)
        return -1;
    for (size_t i = 0; i < m; i++) {
        const bxu_cert *c = &a->certs[cand ? (size_t)json_integer_value(json_array_get(cand, i)) : i];
        if (c->res.statement && c->ok_times && c->container_id)
            v[k++] = start_of(c);
    }
    *out = v;
    *n = k;
    return 0;
}

/* Rows for the starts of a session no engine has any more, from the certificates that
 * want() takes: one row per (engine, containerId, startedAt). want returns BX_START_* (of
 * bx_start_takes); *ambiguous counts the certificates it did not take for ambiguity. Returns
 * the number of rows made, or -1 on error. */
typedef int (*want_fn)(const bx_audit *a, const bxu_cert *c, const void *ud, const json_t *idx);

static long rows_from_certs(bx_audit *a, const json_t *idx, const json_t *cand, want_fn want,
                            const void *ud, long session, long expect, size_t *ambiguous,
                            bx_error *err)
{
    size_t n = cand ? json_array_size(cand) : a->ncerts;
    long made = 0;

    *ambiguous = 0;
    for (size_t k = 0; k < n; k++) {
        size_t i = cand ? (size_t)json_integer_value(json_array_get(cand, k)) : k;
        bxu_cert *c = &a->certs[i];
        bxu_row *r;
        size_t row;
        int how;
        if (!usable(c))
            continue;
        how = want(a, c, ud, idx);
        *ambiguous += how == BX_START_AMBIGUOUS;
        if (!BX_START_TAKEN(how))
            continue;
        if (!(r = new_row(a, err)))
            return -1;
        row = a->nrows - 1;
        r->session = session;
        r->expect = expect;
        snprintf(r->engine, sizeof r->engine, "%s", c->engine_id ? c->engine_id : "");
        if (strlen(c->container_id) == 64)
            memcpy(r->id, c->container_id, 65);
        r->name = c->name;
        r->has_started = 1;
        r->started_at = c->start.started_at;
        r->has_ns = c->start.has_ns;
        r->started_ns = c->start.started_ns;
        r->expected = expect >= 0;
        if (attach(a, row, i, err) != 0)
            return -1;
        made++;
        bx_start first = start_of(c);
        for (size_t q = k + 1; q < n; q++) {
            size_t j = cand ? (size_t)json_integer_value(json_array_get(cand, q)) : q;
            bxu_cert *d = &a->certs[j];
            bx_start got = start_of(d);
            if (usable(d) && BX_START_TAKEN(want(a, d, ud, idx)) &&
                bx_start_matches(&first, &got) != BX_START_NO && attach(a, row, j, err) != 0)
                return -1;
        }
    }
    return made;
}

/* containerId -> [certificate index, ...] of the verified certificates: matching looks a
 * session up instead of scanning every certificate. Caller owns the object. */
static json_t *index_by_id(const bx_audit *a)
{
    json_t *idx = json_object();

    for (size_t i = 0; idx && i < a->ncerts; i++) {
        const bxu_cert *c = &a->certs[i];
        json_t *list;
        if (!c->res.statement || !c->ok_times || !c->container_id)
            continue;
        if (!(list = json_object_get(idx, c->container_id))) {
            list = json_array();
            if (!list || json_object_set_new(idx, c->container_id, list) != 0) {
                json_decref(idx);
                return NULL;
            }
        }
        if (json_array_append_new(list, json_integer((json_int_t)i)) != 0) {
            json_decref(idx);
            return NULL;
        }
    }
    return idx;
}

static int want_id(const bx_audit *a, const bxu_cert *c, const void *ud, const json_t *idx)
{
    (void)a;
    (void)idx;
    return strcmp(c->container_id, (const char *)ud) == 0 ? BX_START_SAME : BX_START_NO;
}

/* bx_start_takes for an --expect entry: a match to the second only is settled against every
 * verified certificate of that container. */
static int want_entry(const bx_audit *a, const bxu_cert *c, const void *ud, const json_t *idx)
{
    bx_start got = start_of(c), *known = NULL;
    size_t n = 0;
    /* by name only, the certificate must also carry the run's labels */
    int how = bx_expect_names(ud, &got, c->labels, a->o.labels, a->o.nlabels);

    if (how != BX_START_SECOND)
        return how;
    if (starts_of(a, json_object_get(idx, c->container_id), &known, &n) != 0)
        return BX_START_AMBIGUOUS; /* out of memory: not taken */
    how = bx_start_ambiguous(&got, known, n) ? BX_START_AMBIGUOUS : BX_START_SECOND;
    free(known);
    return how;
}

static int entry_seen(const bx_audit *a, const bx_expect_entry *e)
{
    for (size_t i = 0; i < a->nsessions; i++) {
        const bxu_session *s = &a->sessions[i];
        if (s->dropped)
            continue;
        if (e->id[0] ? strcmp(s->id, e->id) == 0 : (s->name && strcmp(s->name, e->name) == 0))
            return 1;
    }
    return 0;
}

static int any_engine_lost(const bx_audit *a)
{
    for (size_t i = 0; i < a->nengines; i++)
        if (a->engines[i].lost)
            return 1;
    return 0;
}

static int issued_cmp(const void *x, const void *y, void *ud)
{
    const bx_audit *a = ud;
    const bxu_cert *c = &a->certs[*(const size_t *)x], *d = &a->certs[*(const size_t *)y];

    if (c->issued_at != d->issued_at)
        return c->issued_at < d->issued_at ? -1 : 1;
    return strcmp(c->file, d->file);
}

static void judge(bx_audit *a, bxu_row *r)
{
    const bxu_session *s = r->session >= 0 ? &a->sessions[r->session] : NULL;

    r->flags = 0;
    if (r->state)
        r->flags |= BXU_F_LEFTOVER;
    if (r->ncerts == 0) {
        if (s && s->where == BXU_LOST)
            r->verdict = BXU_V_UNREACHABLE;
        else if (s)
            r->verdict = BXU_V_UNATTESTED;
        else if (r->ambiguous)
            r->verdict = BXU_V_UNATTESTED; /* certified only to the second: not this start */
        else
            r->verdict = any_engine_lost(a) ? BXU_V_UNREACHABLE : BXU_V_MISSING;
        return;
    }
    qsort_r(r->certs, r->ncerts, sizeof *r->certs, issued_cmp, a);
    r->verdict = BXU_V_COMPLIANT;
    r->primary = (long)r->certs[0];
    for (size_t i = 0; i < r->ncerts; i++) {
        if (!a->certs[r->certs[i]].pass) {
            if (r->verdict == BXU_V_COMPLIANT)
                r->primary = (long)r->certs[i];
            r->verdict = BXU_V_NONCOMPLIANT;
        }
    }
    if (a->certs[r->certs[0]].late)
        r->flags |= BXU_F_LATE;
    if (r->ncerts > 1)
        r->flags |= BXU_F_DUPLICATE;
}

static int row_cmp(const void *x, const void *y)
{
    const bxu_row *r = x, *q = y;
    int c;

    if (!r->name != !q->name)
        return r->name ? -1 : 1;
    if (r->name && (c = strcmp(r->name, q->name)) != 0)
        return c;
    if ((c = strcmp(r->id, q->id)) != 0)
        return c;
    if ((c = strcmp(r->engine, q->engine)) != 0)
        return c;
    if (r->started_at != q->started_at)
        return (r->started_at > q->started_at) - (r->started_at < q->started_at);
    return (r->started_ns > q->started_ns) - (r->started_ns < q->started_ns);
}

int bxu_match(bx_audit *a, bx_error *err)
{
    const bx_expect *x = a->o.expect;
    json_t *idx;
    int rc = BX_EIO;

    rows_reset(a);
    if (!(idx = index_by_id(a)))
        return bx_error_set(err, BX_ENOMEM, NULL, "out of memory");
    /* sessions on an engine */
    for (size_t i = 0; i < a->nsessions; i++) {
        bxu_session *s = &a->sessions[i];
        const bxu_engine *e = &a->engines[s->engine];
        bxu_row *r;
        if (s->dropped || s->where == BXU_GONE)
            continue;
        if (!(r = new_row(a, err)))
            goto out;
        r->session = (long)i;
        snprintf(r->engine, sizeof r->engine, "%s", e->id[0] ? e->id : e->endpoint);
        memcpy(r->id, s->id, 65);
        r->name = s->name;
        r->has_started = s->has_started;
        r->started_at = s->started_at;
        r->has_ns = s->has_started;
        r->started_ns = s->started_ns;
        r->state = s->state[0] ? s->state : "unknown";
        r->expected = s->expected;
        if (s->where != BXU_PRESENT || !s->has_started)
            continue;
        const json_t *cand = json_object_get(idx, s->id), *v;
        /* the engine's start to the nanosecond, and its process while it runs */
        bx_start want = {.container_id = s->id,
                         .engine_id = r->engine,
                         .has_started = 1,
                         .started_at = s->started_at,
                         .has_ns = 1,
                         .started_ns = s->started_ns,
                         .pid = s->pid},
                 *known = NULL;
        size_t k, nknown = 0;
        if (starts_of(a, cand, &known, &nknown) != 0) {
            rc = bx_error_set(err, BX_ENOMEM, NULL, "out of memory");
            goto out;
        }
        json_array_foreach(cand, k, v)
        {
            size_t j = (size_t)json_integer_value(v);
            const bxu_cert *c = &a->certs[j];
            bx_start got = start_of(c);
            int how = usable(c) ? bx_start_takes(&want, &got, known, nknown) : BX_START_NO;
            a->rows[a->nrows - 1].ambiguous += how == BX_START_AMBIGUOUS;
            if (BX_START_TAKEN(how) && attach(a, a->nrows - 1, j, err) != 0) {
                free(known);
                goto out;
            }
        }
        free(known);
    }
    /* sessions listed, then removed before their inspect */
    for (size_t i = 0; i < a->nsessions; i++) {
        bxu_session *s = &a->sessions[i];
        const bxu_engine *e = &a->engines[s->engine];
        long made;
        if (s->dropped || s->where != BXU_GONE)
            continue;
        size_t amb = 0;
        made = rows_from_certs(a, idx, json_object_get(idx, s->id), want_id, s->id, (long)i, -1,
                               &amb, err);
        if (made < 0)
            goto out;
        if (made == 0) {
            bxu_row *r = new_row(a, err);
            if (!r)
                goto out;
            r->session = (long)i;
            snprintf(r->engine, sizeof r->engine, "%s", e->id[0] ? e->id : e->endpoint);
            memcpy(r->id, s->id, 65);
            r->name = s->name;
            r->expected = s->expected;
        }
        for (size_t k = a->nrows - (made > 0 ? (size_t)made : 1); k < a->nrows; k++)
            a->rows[k].expected = s->expected;
    }
    /* sessions only the launcher knows of */
    for (size_t n = 0; x && n < x->n; n++) {
        const bx_expect_entry *en = &x->v[n];
        long made;
        if (entry_seen(a, en))
            continue;
        /* by Id: that Id's certificates; by name: all of them */
        size_t amb = 0;
        made = rows_from_certs(a, idx, en->id[0] ? json_object_get(idx, en->id) : NULL, want_entry,
                               en, -1, (long)n, &amb, err);
        if (made < 0)
            goto out;
        if (made == 0) {
            bxu_row *r = new_row(a, err);
            if (!r)
                goto out;
            r->expect = (long)n;
            memcpy(r->id, en->id, 65);
            r->name = en->name;
            r->has_started = en->has_started;
            r->started_at = en->started_at;
            r->has_ns = en->has_ns;
            r->started_ns = en->started_ns;
            r->expected = 1;
            r->ambiguous = amb;
        }
    }
    for (size_t i = 0; i < a->nrows; i++)
        judge(a, &a->rows[i]);
    if (a->nrows > 1) {
        /* keep each certificate's row index right after sorting */
        qsort(a->rows, a->nrows, sizeof *a->rows, row_cmp);
        for (size_t i = 0; i < a->nrows; i++)
            for (size_t k = 0; k < a->rows[i].ncerts; k++)
                a->certs[a->rows[i].certs[k]].row = (long)i;
    }
    rc = 0;
out:
    json_decref(idx);
    return rc;
}
