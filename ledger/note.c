/* SPDX-License-Identifier: Apache-2.0 */
/* Notes as JSON Lines of envelopes: parsing, normal form, union, put. Pure functions. */
#include "bx_ledger.h"

#include <string.h>

int bx_ledger_note_parse(const char *buf, size_t len, size_t max_line, bx_ledger_note_fn fn,
                         void *ctx, bx_error *err)
{
    size_t pos = 0, lineno = 0;
    if (max_line == 0)
        max_line = BX_ENVELOPE_MAX_DEFAULT;
    while (pos < len) {
        const char *start = buf + pos;
        const char *nl = memchr(start, '\n', len - pos);
        size_t n = nl ? (size_t)(nl - start) : len - pos;
        pos += n + (nl ? 1 : 0);
        lineno++;
        while (n > 0 && start[n - 1] == '\r') /* CRLF, and CRs before it */
            n--;
        size_t k = 0;
        while (k < n && (start[k] == ' ' || start[k] == '\t' || start[k] == '\r'))
            k++;
        if (k == n)
            continue;

        bx_ledger_note_line line;
        bx_envelope env;
        int parsed = 0, rc;
        memset(&line, 0, sizeof line);
        line.lineno = lineno;
        line.bytes = start;
        line.len = n;
        if (n > max_line) {
            bx_error_set(&line.error, BX_EINVAL, NULL,
                         "too large: line of %zu bytes; the cap is %zu", n, max_line);
        } else if (bx_envelope_parse(start, n, &env, &line.error) == 0) {
            parsed = 1;
            line.env = &env;
            bx_envelope_id(&env, line.certificate_id);
        } else if (line.error.code == BX_ENOMEM) {
            return bx_error_set(err, BX_ENOMEM, NULL, "out of memory");
        }
        rc = fn(&line, ctx);
        if (parsed)
            bx_envelope_free(&env);
        if (rc)
            return rc;
    }
    return 0;
}

/* ---- normal form ------------------------------------------------------------- */

typedef struct {
    int is_env;
    char id[65];
    char *bytes; /* owned */
    size_t len;
} entry;

typedef struct {
    entry *v;
    size_t n, cap;
    bx_error *err;
} entries;

static void entries_free(entries *es)
{
    for (size_t i = 0; i < es->n; i++)
        free(es->v[i].bytes);
    free(es->v);
    memset(es, 0, sizeof *es);
}

/* Takes ownership of bytes (freed on failure). */
static int entries_push(entries *es, int is_env, const char *id, char *bytes, size_t len)
{
    if (es->n == es->cap) {
        size_t cap = es->cap ? es->cap * 2 : 8;
        entry *v = realloc(es->v, cap * sizeof *v);
        if (!v) {
            free(bytes);
            return bx_error_set(es->err, BX_ENOMEM, NULL, "out of memory");
        }
        es->v = v;
        es->cap = cap;
    }
    entry *e = &es->v[es->n++];
    e->is_env = is_env;
    snprintf(e->id, sizeof e->id, "%s", id ? id : "");
    e->bytes = bytes;
    e->len = len;
    return 0;
}

static int collect_line(const bx_ledger_note_line *line, void *ctx)
{
    entries *es = ctx;
    char *bytes = NULL;
    size_t len = 0;
    if (line->env) {
        int rc = bx_envelope_serialize(line->env, &bytes, &len, es->err);
        if (rc)
            return rc;
        return entries_push(es, 1, line->certificate_id, bytes, len);
    }
    bytes = malloc(line->len + 1);
    if (!bytes)
        return bx_error_set(es->err, BX_ENOMEM, NULL, "out of memory");
    memcpy(bytes, line->bytes, line->len);
    bytes[line->len] = '\0';
    return entries_push(es, 0, NULL, bytes, line->len);
}

/* Notes are never capped per line here: a merge keeps what it cannot parse. */
#define NO_LINE_CAP ((size_t)-1)

static int collect(entries *es, const char *buf, size_t len)
{
    if (!buf || len == 0)
        return 0;
    return bx_ledger_note_parse(buf, len, NO_LINE_CAP, collect_line, es, es->err);
}

static int bytes_cmp(const entry *a, const entry *b)
{
    size_t n = a->len < b->len ? a->len : b->len;
    int c = memcmp(a->bytes, b->bytes, n);
    if (c)
        return c;
    return a->len < b->len ? -1 : a->len > b->len;
}

static int entry_cmp(const void *pa, const void *pb)
{
    const entry *a = pa, *b = pb;
    if (a->is_env != b->is_env)
        return a->is_env ? -1 : 1;
    int c = strcmp(a->id, b->id);
    return c ? c : bytes_cmp(a, b);
}

/* Sort, drop duplicates, and join with "\n" after each line. */
static int render(entries *es, char **out, size_t *outlen)
{
    size_t total = 0, w = 0;
    if (es->n)
        qsort(es->v, es->n, sizeof *es->v, entry_cmp);
    for (size_t i = 0; i < es->n; i++) {
        if (w > 0 && entry_cmp(&es->v[w - 1], &es->v[i]) == 0) {
            free(es->v[i].bytes);
            continue;
        }
        es->v[w++] = es->v[i];
        total += es->v[i].len + 1;
    }
    es->n = w;
    char *buf = malloc(total + 1), *p = buf;
    if (!buf)
        return bx_error_set(es->err, BX_ENOMEM, NULL, "out of memory");
    for (size_t i = 0; i < es->n; i++) {
        memcpy(p, es->v[i].bytes, es->v[i].len);
        p += es->v[i].len;
        *p++ = '\n';
    }
    *p = '\0';
    *out = buf;
    *outlen = total;
    return 0;
}

int bx_ledger_note_union(const char *a, size_t alen, const char *b, size_t blen, char **out,
                         size_t *outlen, bx_error *err)
{
    entries es = {.err = err};
    int rc = collect(&es, a, alen);
    if (rc == 0)
        rc = collect(&es, b, blen);
    if (rc == 0)
        rc = render(&es, out, outlen);
    entries_free(&es);
    return rc;
}

/* ---- signatures -------------------------------------------------------------- */

static int has_sig(const bx_envelope *e, const bx_dsse_sig *s)
{
    for (size_t i = 0; i < e->nsigs; i++)
        if (e->sigs[i].siglen == s->siglen && memcmp(e->sigs[i].sig, s->sig, s->siglen) == 0)
            return 1;
    return 0;
}

int bx_ledger_envelope_merge(const bx_envelope *a, const bx_envelope *b, char **out, size_t *outlen,
                             size_t *added, bx_error *err)
{
    bx_envelope m = {0};
    int rc = 0;
    *added = 0;
    if (strcmp(a->payload_type, b->payload_type) != 0 || a->payload_len != b->payload_len ||
        memcmp(a->payload, b->payload, a->payload_len) != 0)
        return bx_error_set(err, BX_EINVAL, NULL, "the envelopes carry different payloads");
    /* A shallow view: m borrows a's and b's buffers and only owns its array. */
    m.payload_type = a->payload_type;
    m.payload = a->payload;
    m.payload_len = a->payload_len;
    m.sigs = calloc(a->nsigs + b->nsigs + 1, sizeof *m.sigs);
    if (!m.sigs)
        return bx_error_set(err, BX_ENOMEM, NULL, "out of memory");
    for (size_t i = 0; i < a->nsigs; i++)
        if (!has_sig(&m, &a->sigs[i]))
            m.sigs[m.nsigs++] = a->sigs[i];
    for (size_t i = 0; i < b->nsigs; i++) {
        if (!has_sig(&m, &b->sigs[i])) {
            m.sigs[m.nsigs++] = b->sigs[i];
            (*added)++;
        }
    }
    rc = bx_envelope_serialize(&m, out, outlen, err);
    free(m.sigs);
    return rc;
}

/* ---- put --------------------------------------------------------------------- */

static char *dup_bytes(const char *s, size_t n)
{
    char *d = malloc(n + 1);
    if (d) {
        memcpy(d, s, n);
        d[n] = '\0';
    }
    return d;
}

int bx_ledger_note_put(const char *note, size_t len, const char *env, size_t envlen,
                       int merge_signatures, char **out, size_t *outlen, char **line,
                       size_t *linelen, int *status, bx_error *err)
{
    entries es = {.err = err};
    bx_envelope e = {0}, old = {0};
    char id[65], *norm = NULL, *merged = NULL;
    size_t normlen = 0, mergedlen = 0, added = 0;
    int rc;

    *status = 0;
    if ((rc = bx_envelope_parse(env, envlen, &e, err)) != 0) {
        bx_error_prefix(err, "envelope");
        goto out;
    }
    bx_envelope_id(&e, id);
    if ((rc = bx_envelope_serialize(&e, &norm, &normlen, err)) != 0 ||
        (rc = collect(&es, note, len)) != 0)
        goto out;

    size_t same = es.n, same_id = es.n;
    for (size_t i = 0; i < es.n; i++) {
        if (!es.v[i].is_env || strcmp(es.v[i].id, id) != 0)
            continue;
        if (es.v[i].len == normlen && memcmp(es.v[i].bytes, norm, normlen) == 0)
            same = i;
        else if (same_id == es.n)
            same_id = i;
    }
    if (same < es.n) {
        *status = BX_LEDGER_UNCHANGED;
    } else if (merge_signatures && same_id < es.n) {
        entry *x = &es.v[same_id];
        if ((rc = bx_envelope_parse(x->bytes, x->len, &old, err)) != 0 ||
            (rc = bx_ledger_envelope_merge(&old, &e, &merged, &mergedlen, &added, err)) != 0)
            goto out;
        if (added == 0) {
            *status = BX_LEDGER_UNCHANGED;
            free(merged);
            merged = NULL;
            free(norm);
            norm = dup_bytes(x->bytes, x->len);
            normlen = x->len;
            if (!norm) {
                rc = bx_error_set(err, BX_ENOMEM, NULL, "out of memory");
                goto out;
            }
        } else {
            *status = BX_LEDGER_MERGED;
            free(x->bytes);
            x->bytes = merged;
            x->len = mergedlen;
            free(norm);
            norm = dup_bytes(merged, mergedlen);
            normlen = mergedlen;
            merged = NULL;
            if (!norm) {
                rc = bx_error_set(err, BX_ENOMEM, NULL, "out of memory");
                goto out;
            }
        }
    } else {
        char *copy = dup_bytes(norm, normlen);
        if (!copy) {
            rc = bx_error_set(err, BX_ENOMEM, NULL, "out of memory");
            goto out;
        }
        if ((rc = entries_push(&es, 1, id, copy, normlen)) != 0)
            goto out;
        *status = BX_LEDGER_ADDED;
    }
    if ((rc = render(&es, out, outlen)) != 0)
        goto out;
    if (line) {
        *line = norm;
        *linelen = normlen;
        norm = NULL;
    }
out:
    if (rc)
        *status = 0;
    free(norm);
    free(merged);
    bx_envelope_free(&e);
    bx_envelope_free(&old);
    entries_free(&es);
    return rc;
}
