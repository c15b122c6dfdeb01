/* SPDX-License-Identifier: Apache-2.0 */
/* The offline check of `verify --expect` (bx_expect.h, "the offline check"): every session the
 * launcher listed needs a passing certificate for its start; one row per expected start. */
#include "bx_expect.h"

#include <stdlib.h>
#include <string.h>

typedef struct {
    char *file; /* escaped (BX_ESC_BYTES), "file:line" for a bundle line */
    char certificate_id[65];
    char *container_id, *name, *engine_id;
    bx_start start; /* pointing into the copies above */
    int pass, late;
    size_t *entries; /* the entries that name it */
    int *levels;     /* how: BX_START_SAME or BX_START_SECOND (bx_expect_names) */
    size_t nentries;
    long row; /* taken by a row, or -1 */
} kept;

/* The start of every verified certificate, kept or not: a match to the second only is taken
 * when no other start of that session in that second is known (bx_start_ambiguous). */
typedef struct {
    char id[65];
    char *engine_id; /* owned; NULL when not known */
    bx_start start;  /* pointing into the copies above */
} seen_start;

struct bx_expect_check {
    const bx_expect *x;
    const char *const *kv;
    size_t nkv;
    json_t *by_id, *by_name; /* Id / name (name-only entries) -> [entry index] */
    kept *v;
    size_t n;
    seen_start *seen;
    size_t nseen;
};

void bx_expect_check_free(bx_expect_check *c)
{
    if (!c)
        return;
    for (size_t i = 0; i < c->n; i++) {
        free(c->v[i].file);
        free(c->v[i].container_id);
        free(c->v[i].name);
        free(c->v[i].engine_id);
        free(c->v[i].entries);
        free(c->v[i].levels);
    }
    free(c->v);
    for (size_t i = 0; i < c->nseen; i++)
        free(c->seen[i].engine_id);
    free(c->seen);
    json_decref(c->by_id);
    json_decref(c->by_name);
    free(c);
}

static int index_add(json_t *idx, const char *key, size_t i)
{
    json_t *list = json_object_get(idx, key);
    if (!list && (!(list = json_array()) || json_object_set_new(idx, key, list) != 0))
        return -1;
    return json_array_append_new(list, json_integer((json_int_t)i));
}

int bx_expect_check_new(const bx_expect *x, const char *const *kv, size_t nkv,
                        bx_expect_check **out, bx_error *err)
{
    bx_expect_check *c = calloc(1, sizeof *c);

    *out = NULL;
    if (!c || !(c->by_id = json_object()) || !(c->by_name = json_object()))
        goto oom;
    c->x = x;
    c->kv = kv;
    c->nkv = nkv;
    for (size_t i = 0; i < x->n; i++) {
        const bx_expect_entry *e = &x->v[i];
        if (e->id[0] ? index_add(c->by_id, e->id, i) : index_add(c->by_name, e->name, i))
            goto oom;
    }
    *out = c;
    return 0;
oom:
    bx_expect_check_free(c);
    return bx_error_set(err, BX_ENOMEM, NULL, "out of memory");
}

static int has_failed(const json_t *findings, const char *rule)
{
    size_t i;
    json_t *f;
    json_array_foreach(findings, i, f)
    {
        const char *r = json_string_value(json_object_get(f, "rule"));
        if (r && strcmp(r, rule) == 0 && bx_finding_failing(f))
            return 1;
    }
    return 0;
}

/* The entries of list (an index's array) that name got; appended to k. -1 out of memory. */
static int naming(bx_expect_check *c, const json_t *list, const bx_start *got,
                  const json_t *labels, kept *k)
{
    size_t i;
    json_t *v;
    json_array_foreach(list, i, v)
    {
        size_t e = (size_t)json_integer_value(v);
        int m = bx_expect_names(&c->x->v[e], got, labels, c->kv, c->nkv);
        if (m == BX_START_NO)
            continue;
        size_t *g = realloc(k->entries, (k->nentries + 1) * sizeof *g);
        if (!g)
            return -1;
        k->entries = g;
        int *l = realloc(k->levels, (k->nentries + 1) * sizeof *l);
        if (!l)
            return -1;
        k->levels = l;
        k->levels[k->nentries] = m;
        k->entries[k->nentries++] = e;
    }
    return 0;
}

/* Remember got's start (every verified certificate's). -1 out of memory. */
static int remember(bx_expect_check *c, const bx_start *got)
{
    seen_start *g, *x;

    if (strlen(got->container_id) > 64)
        return 0; /* not a start of any session (the schema says 64 hex) */
    if (!(g = realloc(c->seen, (c->nseen + 1) * sizeof *g)))
        return -1;
    c->seen = g;
    x = &c->seen[c->nseen];
    memset(x, 0, sizeof *x);
    memcpy(x->id, got->container_id, strlen(got->container_id) + 1);
    if (got->engine_id && !(x->engine_id = bx_strdup(got->engine_id)))
        return -1;
    x->start = *got;
    x->start.container_id = x->id;
    x->start.name = NULL;
    x->start.engine_id = x->engine_id;
    c->nseen++;
    return 0;
}

static char *dup_or_null(const char *s, int *oom)
{
    char *d = s ? bx_strdup(s) : NULL;
    if (s && !d)
        *oom = 1;
    return d;
}

int bx_expect_check_add(bx_expect_check *c, const char *file, size_t line,
                        const bx_verify_result *res, bx_error *err)
{
    bx_start got;
    bx_error e;
    kept k = {.row = -1};
    int oom = 0;
    char *name = NULL;
    const json_t *labels;

    if (!res->statement || bx_start_of(res->statement, &got, &e) != 0)
        return 0; /* only what verified can be for a session */
    if (remember(c, &got) != 0)
        goto oom;
    labels = json_object_get(json_object_get(json_object_get(res->statement, "predicate"),
                                             "session"),
                             "labels");
    if (naming(c, json_object_get(c->by_id, got.container_id), &got, labels, &k) != 0 ||
        (got.name && naming(c, json_object_get(c->by_name, got.name), &got, labels, &k) != 0))
        goto oom;
    if (k.nentries == 0)
        return 0;
    if (!(name = bx_escape(file, BX_ESC_BYTES)))
        goto oom;
    if (line && asprintf(&k.file, "%s:%zu", name, line) < 0) {
        k.file = NULL;
        goto oom;
    } else if (!line) {
        k.file = name;
        name = NULL;
    }
    memcpy(k.certificate_id, res->certificate_id, sizeof k.certificate_id);
    k.container_id = dup_or_null(got.container_id, &oom);
    k.name = dup_or_null(got.name, &oom);
    k.engine_id = dup_or_null(got.engine_id, &oom);
    if (oom)
        goto oom;
    k.start = got;
    k.start.container_id = k.container_id;
    k.start.name = k.name;
    k.start.engine_id = k.engine_id;
    k.pass = res->pass && bx_findings_pass(res->findings);
    k.late = has_failed(res->findings, "certificate.collection_delay");
    kept *g = realloc(c->v, (c->n + 1) * sizeof *g);
    if (!g)
        goto oom;
    c->v = g;
    c->v[c->n++] = k;
    free(name);
    return 0;
oom:
    free(name);
    free(k.file);
    free(k.container_id);
    free(k.name);
    free(k.engine_id);
    free(k.entries);
    free(k.levels);
    return bx_error_set(err, BX_ENOMEM, file, "out of memory");
}

/* How k names entry e (BX_START_NO when it does not). */
static int names_entry(const kept *k, size_t e)
{
    for (size_t i = 0; i < k->nentries; i++)
        if (k->entries[i] == e)
            return k->levels[i];
    return BX_START_NO;
}

static json_t *str_or_null(const char *s)
{
    return s && *s ? json_string(s) : json_null();
}

static json_t *start_json(int has, int64_t t, int has_ns, int32_t ns)
{
    char buf[31];
    if (!has)
        return json_null();
    return json_string(has_ns ? bx_time_format_ns(t, ns, buf) : bx_time_format(t, buf));
}

/* One row: entry e and the certificates certs[0..n) (indices into c->v) of one start; amb
 * certificates name its start only to the second while another start in that second is known
 * (with none other: unattested). */
static json_t *row(const bx_expect_check *c, size_t e, const size_t *certs, size_t n, size_t amb)
{
    const bx_expect_entry *en = &c->x->v[e];
    const kept *first = n ? &c->v[certs[0]] : NULL, *primary = first;
    int any_pass = 0, all_pass = n > 0;
    char msg[512];
    json_t *flags = json_array(), *dups = json_array(), *findings = json_array();
    const char *verdict;

    for (size_t i = 0; i < n; i++) {
        const kept *k = &c->v[certs[i]];
        any_pass |= k->pass;
        if (!k->pass && all_pass)
            primary = k; /* the row shows the first failing one */
        all_pass &= k->pass;
    }
    verdict = n == 0 ? (amb ? "unattested" : "missing") : all_pass ? "compliant" : "noncompliant";
    for (size_t i = 0; dups && i < n; i++)
        if (&c->v[certs[i]] != primary)
            json_array_append_new(dups, json_string(c->v[certs[i]].certificate_id));
    if (flags && primary && primary->late)
        json_array_append_new(flags, json_string("late"));
    if (flags && n > 1)
        json_array_append_new(flags, json_string("duplicate"));
    if (n == 0 && amb)
        snprintf(msg, sizeof msg,
                 "%zu certificate(s) name this start only to the second (predicate v1, or a start "
                 "given without a fraction), and another start of the session in that second is "
                 "known: not attested",
                 amb);
    else if (n == 0)
        snprintf(msg, sizeof msg, "listed in --expect, and no certificate given names %s",
                 en->has_started ? "this start of the session" : "the session");
    else if (!any_pass)
        snprintf(msg, sizeof msg, "no passing certificate for this start: %zu given, each failed",
                 n);
    else
        snprintf(msg, sizeof msg, "a passing certificate for this start");
    if (findings)
        bx_finding_add(findings, "certificate.missing", any_pass ? "pass" : "fail",
                       json_string("a passing certificate"),
                       first ? json_string(primary->certificate_id) : json_null(), "%s", msg);
    return json_pack(
        "{s:o, s:o, s:o, s:o, s:n, s:b, s:s, s:o, s:o, s:o, s:o, s:o}", "engine",
        str_or_null(first ? first->engine_id : NULL), "containerId",
        str_or_null(first ? first->container_id : en->id), "name",
        str_or_null(first ? first->name : en->name), "startedAt",
        first ? start_json(1, first->start.started_at, first->start.has_ns,
                           first->start.started_ns)
              : start_json(en->has_started, en->started_at, en->has_ns, en->started_ns),
        "state", "expected", 1, "verdict", verdict, "flags", flags, "certificateId",
        primary ? json_string(primary->certificate_id) : json_null(), "certificate",
        primary ? json_string(primary->file) : json_null(), "duplicates", dups, "findings",
        findings);
}

/* A match to the second only is taken when no other start of that session in that second is
 * known among all the verified certificates: else it becomes BX_START_AMBIGUOUS. -1 OOM. */
static int settle(bx_expect_check *c)
{
    bx_start *all = c->nseen ? malloc(c->nseen * sizeof *all) : NULL;

    if (c->nseen && !all)
        return -1;
    for (size_t i = 0; i < c->nseen; i++)
        all[i] = c->seen[i].start;
    for (size_t i = 0; i < c->n; i++)
        for (size_t k = 0; k < c->v[i].nentries; k++)
            if (c->v[i].levels[k] == BX_START_SECOND &&
                bx_start_ambiguous(&c->v[i].start, all, c->nseen))
                c->v[i].levels[k] = BX_START_AMBIGUOUS;
    free(all);
    return 0;
}

int bx_expect_check_rows(bx_expect_check *c, json_t **rows, size_t *failed, bx_error *err)
{
    json_t *out = json_array();
    size_t *group = c->n ? malloc(c->n * sizeof *group) : NULL;

    *rows = NULL;
    *failed = 0;
    if (!out || (c->n && !group) || settle(c) != 0)
        goto oom;
    for (size_t i = 0; i < c->n; i++)
        c->v[i].row = -1;
    for (size_t e = 0; e < c->x->n; e++) {
        size_t made = 0, amb = 0;
        for (size_t i = 0; i < c->n; i++) {
            kept *k = &c->v[i];
            size_t n = 0;
            int how = names_entry(k, e);
            amb += how == BX_START_AMBIGUOUS;
            if (k->row >= 0 || !BX_START_TAKEN(how))
                continue;
            /* a new start of this session: every later certificate of the same start joins */
            for (size_t j = i; j < c->n; j++) {
                kept *d = &c->v[j];
                if (d->row < 0 && BX_START_TAKEN(names_entry(d, e)) &&
                    bx_start_matches(&k->start, &d->start) != BX_START_NO) {
                    d->row = (long)json_array_size(out);
                    group[n++] = j;
                }
            }
            json_t *r = row(c, e, group, n, 0);
            if (!r || json_array_append_new(out, r) != 0)
                goto oom;
            *failed += strcmp(json_string_value(json_object_get(r, "verdict")), "compliant") != 0;
            made++;
        }
        if (!made) {
            json_t *r = row(c, e, NULL, 0, amb);
            if (!r || json_array_append_new(out, r) != 0)
                goto oom;
            (*failed)++;
        }
    }
    free(group);
    *rows = out;
    return 0;
oom:
    free(group);
    json_decref(out);
    return bx_error_set(err, BX_ENOMEM, NULL, "out of memory");
}
