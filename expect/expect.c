/* SPDX-License-Identifier: Apache-2.0 */
/* The --expect file: the launcher's list of the sessions it started. */
#include "bx_expect.h"

#include <stdlib.h>
#include <string.h>

void bx_expect_free(bx_expect *e)
{
    if (!e)
        return;
    for (size_t i = 0; i < e->n; i++)
        free(e->v[i].name);
    free(e->v);
    e->v = NULL;
    e->n = 0;
}

/* BX_ECONFIG at "name:/sessions/i/member" (i < 0: "name:/member"; member may be NULL). */
static int bad(bx_error *err, const char *name, long i, const char *member, const char *msg)
{
    char where[128];

    if (i < 0)
        snprintf(where, sizeof where, "%s:/%s", name, member ? member : "");
    else if (member)
        snprintf(where, sizeof where, "%s:/sessions/%ld/%s", name, i, member);
    else
        snprintf(where, sizeof where, "%s:/sessions/%ld", name, i);
    return bx_error_set(err, BX_ECONFIG, where, "%s", msg);
}

int bx_container_name_ok(const char *s)
{
    size_t n = s ? strlen(s) : 0;

    if (n == 0 || n > 255 ||
        !((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9')))
        return 0;
    return strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-") == n;
}

static int entry(const json_t *o, const char *name, long i, bx_expect_entry *e, bx_error *err)
{
    const char *k;
    json_t *v;

    if (!json_is_object(o))
        return bad(err, name, i, NULL, "an entry is an object {id, name, startedAt}");
    json_object_foreach((json_t *)o, k, v)
    {
        if (strcmp(k, "id") == 0) {
            const char *s = json_string_value(v);
            if (!s || !bx_is_lower_hex(s, 64))
                return bad(err, name, i, "id", "not a full container Id (64 lowercase hex)");
            memcpy(e->id, s, 65);
        } else if (strcmp(k, "name") == 0) {
            const char *s = json_string_value(v);
            if (s && *s == '/')
                return bad(err, name, i, "name", "a container name without the leading '/'");
            if (!s || !bx_container_name_ok(s))
                return bad(err, name, i, "name",
                           "not a container name ([A-Za-z0-9][A-Za-z0-9_.-]*, at most 255)");
            if (!(e->name = strdup(s)))
                return bx_error_set(err, BX_ENOMEM, NULL, "out of memory");
        } else if (strcmp(k, "startedAt") == 0) {
            const char *s = json_string_value(v);
            bx_error e2;
            if (!s || bx_time_parse_ns(s, &e->started_at, &e->started_ns, &e->has_ns, &e2) != 0)
                return bad(err, name, i, "startedAt",
                           "not an RFC 3339 UTC time (at most 9 digits of a second)");
            e->has_started = 1;
        } else {
            return bad(err, name, i, k, "unknown member");
        }
    }
    if (!e->id[0] && !e->name)
        return bad(err, name, i, NULL, "an entry needs an id or a name");
    return 0;
}

static int entry_cmp(const void *a, const void *b)
{
    const bx_expect_entry *x = a, *y = b;

    /* entries with an Id first, by Id; then the name-only ones by name */
    if (!!x->id[0] != !!y->id[0])
        return x->id[0] ? -1 : 1;
    if (x->id[0])
        return strcmp(x->id, y->id);
    return strcmp(x->name, y->name);
}

int bx_expect_parse(const char *buf, size_t len, const char *name, bx_expect *out, bx_error *err)
{
    json_t *doc = NULL, *sessions, *v, *x;
    bx_expect e = {0}, sorted = {0};
    const char *k;
    char where[128];
    size_t i;
    int rc = 0;

    memset(out, 0, sizeof *out);
    if (!name)
        name = "expect";
    if (len > BX_EXPECT_MAX_SIZE) {
        rc = bx_error_set(err, BX_ECONFIG, name, "too large (over %d bytes)", BX_EXPECT_MAX_SIZE);
        goto out;
    }
    if (len == 0) {
        rc = bx_error_set(err, BX_ECONFIG, name, "is empty");
        goto out;
    }
    if ((rc = bx_json_parse_strict(buf, len, BX_JSON_OBJECT, &doc, err)) != 0) {
        /* where is a JSON pointer or line:col; keep the file name first */
        int n = snprintf(where, sizeof where, err->where[0] ? "%s:" : "%s", name);
        if (n > 0 && (size_t)n < sizeof where)
            snprintf(where + n, sizeof where - (size_t)n, "%.*s",
                     (int)(sizeof where - (size_t)n - 1), err->where);
        memcpy(err->where, where, sizeof where);
        if (rc != BX_EIO && rc != BX_ENOMEM)
            rc = err->code = BX_ECONFIG;
        goto out;
    }
    json_object_foreach(doc, k, v)
    {
        if (strcmp(k, "version") != 0 && strcmp(k, "sessions") != 0) {
            rc = bad(err, name, -1, k, "unknown member");
            goto out;
        }
    }
    v = json_object_get(doc, "version");
    if (!json_is_integer(v) || json_integer_value(v) != 1) {
        rc = bad(err, name, -1, "version", "version 1 is required");
        goto out;
    }
    sessions = json_object_get(doc, "sessions");
    if (!json_is_array(sessions)) {
        rc = bad(err, name, -1, "sessions", "sessions (an array) is required");
        goto out;
    }
    if (json_array_size(sessions) > BX_EXPECT_MAX_SESSIONS) {
        rc = bad(err, name, -1, "sessions", "more than 100000 sessions");
        goto out;
    }
    if (json_array_size(sessions) && !(e.v = calloc(json_array_size(sessions), sizeof *e.v))) {
        rc = bx_error_set(err, BX_ENOMEM, NULL, "out of memory");
        goto out;
    }
    json_array_foreach(sessions, i, x)
    {
        e.n++;
        if ((rc = entry(x, name, (long)i, &e.v[i], err)) != 0)
            goto out;
    }
    /* duplicates: the same Id twice, or the same name twice without an Id */
    if (e.n) {
        if (!(sorted.v = malloc(e.n * sizeof *sorted.v))) {
            rc = bx_error_set(err, BX_ENOMEM, NULL, "out of memory");
            goto out;
        }
        memcpy(sorted.v, e.v, e.n * sizeof *e.v);
        qsort(sorted.v, e.n, sizeof *sorted.v, entry_cmp);
        for (i = 1; i < e.n; i++) {
            if (entry_cmp(&sorted.v[i - 1], &sorted.v[i]) == 0) {
                const bx_expect_entry *d = &sorted.v[i];
                rc = bx_error_set(err, BX_ECONFIG, name, "session %s is listed twice",
                                  d->id[0] ? d->id : d->name);
                goto out;
            }
        }
    }
    *out = e;
    e.v = NULL;
    e.n = 0;
out:
    free(sorted.v); /* shallow: the names belong to e or *out */
    bx_expect_free(&e);
    json_decref(doc);
    return rc;
}

int bx_expect_load(const char *path, bx_expect *out, bx_error *err)
{
    char *buf = NULL;
    size_t len = 0;
    int rc;

    memset(out, 0, sizeof *out);
    /* a list that cannot be loaded, for whatever reason, is the configuration's fault */
    if ((rc = bx_read_file(path, BX_EXPECT_MAX_SIZE, 0, &buf, &len, err)) != 0) {
        if (rc != BX_ENOMEM)
            err->code = BX_ECONFIG;
        return err->code;
    }
    rc = bx_expect_parse(buf, len, path, out, err);
    free(buf);
    return rc;
}
