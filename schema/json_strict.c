#include "bx_schema.h"

#include <stdlib.h>
#include <string.h>

#define STRICT_STACK_KEYS 32

typedef struct {
    const char *key;
    size_t len;
} skey;

void bx_json_where_push(bx_error *err, const char *seg, size_t len)
{
    if (!err)
        return;
    char old[sizeof err->where];
    size_t o = 0, cap = sizeof err->where - 1;
    memcpy(old, err->where, sizeof old);
    err->where[o++] = '/';
    for (size_t i = 0; i < len && o < cap; i++) {
        unsigned char c = (unsigned char)seg[i];
        if (c == '~' || c == '/') {
            if (o + 2 > cap)
                break;
            err->where[o++] = '~';
            err->where[o++] = c == '~' ? '0' : '1';
        } else if (c < 0x20 || c == 0x7f) { /* keep the message on one line */
            if (o + 6 > cap)
                break;
            o += (size_t)snprintf(err->where + o, 7, "\\u%04x", c);
        } else {
            err->where[o++] = seg[i];
        }
    }
    size_t rest = strnlen(old, sizeof old - 1);
    if (rest > cap - o)
        rest = cap - o;
    memcpy(err->where + o, old, rest);
    err->where[o + rest] = '\0';
}

void bx_json_where_push_index(bx_error *err, size_t index)
{
    char seg[24];
    int n = snprintf(seg, sizeof seg, "%zu", index);
    bx_json_where_push(err, seg, (size_t)n);
}

/* Messages quote input: keep them on one line (and ASCII when ascii_only). */
static void one_line(bx_error *err, int ascii_only)
{
    for (char *p = err ? err->msg : NULL; p && *p; p++) {
        unsigned char c = (unsigned char)*p;
        if (c < 0x20 || c == 0x7f || (ascii_only && c >= 0x80))
            *p = '?';
    }
}

static unsigned char ascii_lower(unsigned char c)
{
    return c >= 'A' && c <= 'Z' ? (unsigned char)(c + 32) : c;
}

static int casecmp_n(const char *a, size_t alen, const char *b, size_t blen)
{
    size_t n = alen < blen ? alen : blen;
    for (size_t i = 0; i < n; i++) {
        unsigned char ca = ascii_lower((unsigned char)a[i]), cb = ascii_lower((unsigned char)b[i]);
        if (ca != cb)
            return ca < cb ? -1 : 1;
    }
    return alen < blen ? -1 : alen > blen;
}

static int skey_cmp(const void *x, const void *y)
{
    const skey *a = x, *b = y;
    int c = casecmp_n(a->key, a->len, b->key, b->len);
    if (c)
        return c;
    size_t n = a->len < b->len ? a->len : b->len; /* then bytes: a total order */
    c = memcmp(a->key, b->key, n);
    return c ? c : (a->len > b->len) - (a->len < b->len);
}

/* Keys equal ignoring ASCII case: sort case-folded, then compare neighbours. */
static int check_case_collisions(json_t *obj, bx_error *err)
{
    skey stack[STRICT_STACK_KEYS], *k = stack;
    size_t n = json_object_size(obj), i = 0;
    int rc = 0;
    if (n < 2)
        return 0;
    if (n > STRICT_STACK_KEYS && !(k = calloc(n, sizeof *k)))
        return bx_error_set(err, BX_EIO, NULL, "out of memory");
    for (void *it = json_object_iter(obj); it && i < n; it = json_object_iter_next(obj, it), i++) {
        k[i].key = json_object_iter_key(it);
        k[i].len = json_object_iter_key_len(it);
    }
    qsort(k, i, sizeof *k, skey_cmp);
    for (size_t j = 1; j < i && !rc; j++) {
        if (casecmp_n(k[j - 1].key, k[j - 1].len, k[j].key, k[j].len) == 0) {
            rc = bx_error_set(err, BX_EINVAL, NULL,
                              "keys differ only in case: \"%.60s\" and \"%.60s\"", k[j - 1].key,
                              k[j].key);
            one_line(err, 0);
            bx_json_where_push(err, k[j].key, k[j].len);
        }
    }
    if (k != stack)
        free(k);
    return rc;
}

static int walk(json_t *v, bx_error *err);

static int walk_object(json_t *v, bx_error *err)
{
    int rc = check_case_collisions(v, err);
    if (rc)
        return rc;
    for (void *it = json_object_iter(v); it; it = json_object_iter_next(v, it)) {
        rc = walk(json_object_iter_value(it), err);
        if (rc) {
            bx_json_where_push(err, json_object_iter_key(it), json_object_iter_key_len(it));
            return rc;
        }
    }
    return 0;
}

static int walk(json_t *v, bx_error *err)
{
    size_t i;
    json_t *item;
    switch (json_typeof(v)) {
    case JSON_OBJECT:
        return walk_object(v, err);
    case JSON_ARRAY:
        json_array_foreach(v, i, item)
        {
            int rc = walk(item, err);
            if (rc) {
                bx_json_where_push_index(err, i);
                return rc;
            }
        }
        return 0;
    case JSON_REAL:
        return bx_error_set(err, BX_EINVAL, NULL, "not an integer: floats are not allowed");
    case JSON_INTEGER:
        if (!bx_json_int_ok(json_integer_value(v)))
            return bx_error_set(err, BX_EINVAL, NULL, "integer out of range: |n| > 2^53");
        return 0;
    default:
        return 0;
    }
}

/* jansson's "near" text quotes raw, possibly invalid, input bytes. */
static int parse_error(const json_error_t *je, bx_error *err)
{
    char where[32] = "";
    if (je->line > 0)
        snprintf(where, sizeof where, "%d:%d", je->line, je->column);
    int rc = bx_error_set(err, BX_EINVAL, where, "invalid JSON: %s", je->text);
    one_line(err, 1);
    return rc;
}

static int check_jcs(const json_t *v, const char *buf, size_t len, bx_error *err)
{
    char *jcs = NULL;
    size_t jlen = 0;
    int rc = bx_jcs_serialize(v, &jcs, &jlen, err);
    if (rc)
        goto out;
    if (jlen != len || memcmp(jcs, buf, len) != 0) {
        size_t i = 0, line = 1, col = 1;
        char where[48];
        while (i < len && i < jlen && jcs[i] == buf[i])
            i++;
        for (size_t j = 0; j < i; j++, col++)
            if (buf[j] == '\n') {
                line++;
                col = 0;
            }
        snprintf(where, sizeof where, "%zu:%zu", line, col);
        rc = bx_error_set(err, BX_EINVAL, where,
                          "not in canonical JSON (JCS) form: first difference at byte %zu", i);
    }
out:
    free(jcs);
    return rc;
}

int bx_json_parse_strict(const char *buf, size_t len, int want_object, int require_jcs,
                         json_t **out, bx_error *err)
{
    json_error_t je;
    size_t flags = JSON_REJECT_DUPLICATES | (want_object ? 0 : JSON_DECODE_ANY);
    json_t *v = json_loadb(buf, len, flags, &je);
    int rc = 0;
    if (!v) {
        rc = parse_error(&je, err);
        goto out;
    }
    if (want_object && !json_is_object(v)) {
        rc = bx_error_set(err, BX_EINVAL, NULL, "not a JSON object");
        goto out;
    }
    rc = walk(v, err);
    if (rc)
        goto out;
    if (require_jcs) {
        rc = check_jcs(v, buf, len, err);
        if (rc)
            goto out;
    }
    *out = v;
    v = NULL;
out:
    json_decref(v);
    return rc;
}
