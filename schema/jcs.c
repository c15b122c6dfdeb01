/* SPDX-License-Identifier: Apache-2.0 */
#include "schema_internal.h"

#include <stdlib.h>
#include <string.h>

/* Cyclic or absurdly deep values stop here instead of exhausting the stack. */
#define JCS_MAX_DEPTH 4096
#define JCS_STACK_KEYS 32

typedef struct {
    char *p;
    size_t len, cap;
    int oom;
} jbuf;

typedef struct {
    const char *key;
    size_t len;
    json_t *value;
} jmember;

static int jb_grow(jbuf *b, size_t n)
{
    if (b->oom)
        return -1;
    size_t cap = b->cap ? b->cap : 256;
    while (cap - b->len < n) {
        if (cap > SIZE_MAX / 2)
            goto fail;
        cap *= 2;
    }
    char *p = realloc(b->p, cap);
    if (!p)
        goto fail;
    b->p = p;
    b->cap = cap;
    return 0;
fail:
    b->oom = 1;
    return -1;
}

static inline int jb_reserve(jbuf *b, size_t n)
{
    return b->cap - b->len >= n ? 0 : jb_grow(b, n);
}

static inline void jb_put(jbuf *b, const char *s, size_t n)
{
    if (jb_reserve(b, n) == 0) {
        memcpy(b->p + b->len, s, n);
        b->len += n;
    }
}

static inline void jb_putc(jbuf *b, char c)
{
    if (jb_reserve(b, 1) == 0)
        b->p[b->len++] = c;
}

static int utf8_valid(const char *s, size_t n)
{
    const unsigned char *p = (const unsigned char *)s;
    for (size_t i = 0; i < n;) {
        if (p[i] < 0x80) {
            i++;
            continue;
        }
        size_t k = bx_utf8_seq(p + i, n - i);
        if (!k)
            return 0;
        i += k;
    }
    return 1;
}

static void put_escape(jbuf *b, unsigned char c)
{
    static const char hex[] = "0123456789abcdef";
    char e[6] = {'\\', 0, '0', '0', hex[c >> 4], hex[c & 0xf]};
    switch (c) {
    case '"':
    case '\\':
        e[1] = (char)c;
        break;
    case '\b':
        e[1] = 'b';
        break;
    case '\f':
        e[1] = 'f';
        break;
    case '\n':
        e[1] = 'n';
        break;
    case '\r':
        e[1] = 'r';
        break;
    case '\t':
        e[1] = 't';
        break;
    default:
        e[1] = 'u';
        jb_put(b, e, 6);
        return;
    }
    jb_put(b, e, 2);
}

/* Writes s as a JSON string; the caller has checked it is valid UTF-8. */
static void put_string(jbuf *b, const char *s, size_t n)
{
    const unsigned char *p = (const unsigned char *)s;
    size_t run = 0;
    jb_putc(b, '"');
    for (size_t i = 0; i < n; i++) {
        unsigned char c = p[i];
        if (c >= 0x20 && c != '"' && c != '\\')
            continue;
        jb_put(b, s + run, i - run);
        put_escape(b, c);
        run = i + 1;
    }
    jb_put(b, s + run, n - run);
    jb_putc(b, '"');
}

static void put_integer(jbuf *b, json_int_t v)
{
    char tmp[24];
    size_t i = sizeof tmp;
    unsigned long long u = v < 0 ? 0ULL - (unsigned long long)v : (unsigned long long)v;
    do {
        tmp[--i] = (char)('0' + u % 10);
        u /= 10;
    } while (u);
    if (v < 0)
        tmp[--i] = '-';
    jb_put(b, tmp + i, sizeof tmp - i);
}

static int member_cmp(const void *x, const void *y)
{
    const jmember *a = x, *b = y;
    return bxs_utf16_cmp(a->key, a->len, b->key, b->len);
}

static int emit(jbuf *b, const json_t *v, int depth, bx_error *err);

static int emit_array(jbuf *b, const json_t *v, int depth, bx_error *err)
{
    size_t n = json_array_size(v);
    jb_putc(b, '[');
    for (size_t i = 0; i < n; i++) {
        if (i)
            jb_putc(b, ',');
        int rc = emit(b, json_array_get(v, i), depth + 1, err);
        if (rc) {
            bx_json_where_push_index(err, i);
            return rc;
        }
    }
    jb_putc(b, ']');
    return 0;
}

/* Collects the members of v into m (n entries), checking that keys are valid UTF-8. */
static int gather_members(const json_t *v, jmember *m, size_t n, bx_error *err)
{
    size_t i = 0;
    for (void *it = json_object_iter((json_t *)v); it && i < n;
         it = json_object_iter_next((json_t *)v, it), i++) {
        m[i].key = json_object_iter_key(it);
        m[i].len = json_object_iter_key_len(it);
        m[i].value = json_object_iter_value(it);
        if (!utf8_valid(m[i].key, m[i].len)) {
            bx_error_set(err, BX_EINVAL, NULL, "invalid UTF-8 in an object key");
            bx_json_where_push(err, m[i].key, m[i].len);
            return BX_EINVAL;
        }
    }
    return 0;
}

static int emit_members(jbuf *b, const jmember *m, size_t n, int depth, bx_error *err)
{
    for (size_t i = 0; i < n; i++) {
        if (i)
            jb_putc(b, ',');
        put_string(b, m[i].key, m[i].len);
        jb_putc(b, ':');
        int rc = emit(b, m[i].value, depth + 1, err);
        if (rc) {
            bx_json_where_push(err, m[i].key, m[i].len);
            return rc;
        }
    }
    return 0;
}

static int emit_object(jbuf *b, const json_t *v, int depth, bx_error *err)
{
    jmember stack[JCS_STACK_KEYS], *m = stack;
    size_t n = json_object_size(v);
    int rc = 0;
    if (n > JCS_STACK_KEYS) {
        m = calloc(n, sizeof *m);
        if (!m) {
            b->oom = 1;
            return 0;
        }
    }
    rc = gather_members(v, m, n, err);
    if (rc)
        goto out;
    qsort(m, n, sizeof *m, member_cmp);
    jb_putc(b, '{');
    rc = emit_members(b, m, n, depth, err);
    if (rc)
        goto out;
    jb_putc(b, '}');
out:
    if (m != stack)
        free(m);
    return rc;
}

static int emit_string(jbuf *b, const json_t *v, bx_error *err)
{
    const char *s = json_string_value(v);
    size_t n = json_string_length(v);
    if (!utf8_valid(s, n))
        return bx_error_set(err, BX_EINVAL, NULL, "invalid UTF-8 in a string");
    put_string(b, s, n);
    return 0;
}

static int emit(jbuf *b, const json_t *v, int depth, bx_error *err)
{
    if (depth > JCS_MAX_DEPTH)
        return bx_error_set(err, BX_EINVAL, NULL, "nested deeper than %d levels", JCS_MAX_DEPTH);
    switch (json_typeof(v)) {
    case JSON_OBJECT:
        return emit_object(b, v, depth, err);
    case JSON_ARRAY:
        return emit_array(b, v, depth, err);
    case JSON_STRING:
        return emit_string(b, v, err);
    case JSON_INTEGER:
        if (!bx_json_int_ok(json_integer_value(v)))
            return bx_error_set(err, BX_EINVAL, NULL, "integer out of range: |n| > 2^53");
        put_integer(b, json_integer_value(v));
        return 0;
    case JSON_REAL:
        return bx_error_set(err, BX_EINVAL, NULL, "not an integer: floats are not allowed");
    case JSON_TRUE:
        jb_put(b, "true", 4);
        return 0;
    case JSON_FALSE:
        jb_put(b, "false", 5);
        return 0;
    case JSON_NULL:
        jb_put(b, "null", 4);
        return 0;
    }
    return bx_error_set(err, BX_EINVAL, NULL, "unknown JSON type");
}

int bx_jcs_serialize(const json_t *v, char **out, size_t *len, bx_error *err)
{
    jbuf b = {0};
    int rc;
    if (!v) {
        rc = bx_error_set(err, BX_EINVAL, NULL, "no JSON value");
        goto out;
    }
    rc = emit(&b, v, 0, err);
    if (rc)
        goto out;
    jb_putc(&b, '\0');
    if (b.oom) {
        rc = bx_error_set(err, BX_ENOMEM, NULL, "out of memory");
        goto out;
    }
    *out = b.p;
    *len = b.len - 1;
    b.p = NULL;
out:
    free(b.p);
    return rc;
}

int bx_jcs_sha256_hex(const json_t *v, char out[65], bx_error *err)
{
    char *buf = NULL;
    size_t len = 0;
    int rc = bx_jcs_serialize(v, &buf, &len, err);
    if (rc == 0)
        bx_sha256_hex(buf, len, out);
    free(buf);
    return rc;
}
