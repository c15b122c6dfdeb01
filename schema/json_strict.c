/* SPDX-License-Identifier: Apache-2.0 */
#include "schema_internal.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define STRICT_STACK_KEYS 32

typedef struct {
    const char *key;
    size_t len;
} skey;


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
        return bx_error_set(err, BX_ENOMEM, NULL, "out of memory");
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

/* ---- the canonical fast path ---------------------------------------------------------
 * A payload that is already its own JCS -- every signed certificate -- is read here in one
 * pass that builds the values and checks the canonical form as it goes: no whitespace,
 * members in UTF-16 order (hence no duplicates), the JCS escapes only, valid UTF-8 without
 * NUL, integers in canonical form within 2^53, no reals, no keys equal but for case. The
 * first byte it does not take (anything not canonical, or merely unusual: an escaped key,
 * deep nesting) hands the whole input to the strict parse and the JCS comparison below,
 * which decide and say why: the fast path accepts only what they accept, with the same
 * values, so the outcome never depends on which path ran. */

#define FAST_MAX_DEPTH 64

typedef struct {
    const char *p, *end;
    char *tmp; /* unescaped strings */
    size_t tmpcap;
    bxs_capture *cap;
} fast;

static json_t *fast_value(fast *c, int depth, int capture);

static int fast_tmp(fast *c, size_t need)
{
    if (need <= c->tmpcap)
        return 1;
    size_t cap = c->tmpcap ? c->tmpcap : 256;
    while (cap < need)
        cap *= 2;
    char *t = realloc(c->tmp, cap);
    if (!t)
        return 0;
    c->tmp = t;
    c->tmpcap = cap;
    return 1;
}

static int hexval(char h)
{
    return h >= '0' && h <= '9' ? h - '0' : h >= 'a' && h <= 'f' ? h - 'a' + 10 : -1;
}

/* Index (0-7) of the first byte of the 8 at p that a string cannot hold as it is -- a
 * control character, the quote, the backslash or a non-ASCII byte -- or 8 when all are
 * plain. Word at a time: x - 0x20 per byte borrows (sets bit 7 of a byte whose bit 7 was
 * clear) only in a byte below 0x20, x ^ '"' - 1 only in a quote, and a borrow can only
 * mark bytes after the first one that caused it, so the lowest mark is exact. */
static unsigned plain_run(const unsigned char *p)
{
    const uint64_t ones = 0x0101010101010101u, high = 0x8080808080808080u;
    uint64_t w, q, b, m;
    memcpy(&w, p, 8);
    q = w ^ (ones * '"');
    b = w ^ (ones * '\\');
    m = (((w - ones * 0x20) & ~w) | ((q - ones) & ~q) | ((b - ones) & ~b) | w) & high;
    if (!m)
        return 8;
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    return (unsigned)__builtin_ctzll(m) / 8;
#else
    return (unsigned)__builtin_clzll(m) / 8;
#endif
}

/* After the opening quote: *s, *n the string's bytes (into the input, or c->tmp when it
 * held escapes); 0 when not canonical. */
static int fast_string(fast *c, const char **s, size_t *n, int escapes_ok)
{
    const unsigned char *p = (const unsigned char *)c->p, *end = (const unsigned char *)c->end;
    const unsigned char *start = p;
    size_t o = 0;
    int esc = 0;

    for (;;) {
        while (end - p >= 8) { /* the plain bytes, eight at a time */
            unsigned k = plain_run(p);
            if (esc)
                memcpy(c->tmp + o, p, k);
            o += esc ? k : 0;
            p += k;
            if (k < 8)
                break;
        }
        if (p == end)
            return 0;
        unsigned char ch = *p;
        if (ch == '"')
            break;
        if (ch == '\\') {
            unsigned char d = 0;
            if (!escapes_ok || end - p < 2)
                return 0;
            if (!esc) { /* copy what came before */
                if (!fast_tmp(c, (size_t)(end - start)))
                    return 0;
                o = (size_t)(p - start);
                memcpy(c->tmp, start, o);
                esc = 1;
            }
            switch (p[1]) {
            case '"': d = '"'; break;
            case '\\': d = '\\'; break;
            case 'b': d = '\b'; break;
            case 'f': d = '\f'; break;
            case 'n': d = '\n'; break;
            case 'r': d = '\r'; break;
            case 't': d = '\t'; break;
            case 'u':
                /* JCS writes \u00xx (lowercase) for the controls without a short form */
                if (end - p < 6 || p[2] != '0' || p[3] != '0' || hexval((char)p[4]) < 0 ||
                    hexval((char)p[4]) > 1 || hexval((char)p[5]) < 0)
                    return 0;
                d = (unsigned char)(hexval((char)p[4]) << 4 | hexval((char)p[5]));
                if (d == 0 || d == '\b' || d == '\f' || d == '\n' || d == '\r' || d == '\t')
                    return 0;
                c->tmp[o++] = (char)d;
                p += 6;
                continue;
            default:
                return 0;
            }
            c->tmp[o++] = (char)d;
            p += 2;
            continue;
        }
        if (ch < 0x20)
            return 0;
        size_t k = ch < 0x80 ? 1 : bx_utf8_seq(p, (size_t)(end - p));
        if (!k)
            return 0;
        if (esc) {
            memcpy(c->tmp + o, p, k);
            o += k;
        }
        p += k;
    }
    *s = esc ? c->tmp : (const char *)start;
    *n = esc ? o : (size_t)(p - start);
    c->p = (const char *)p + 1;
    return 1;
}

static json_t *fast_integer(fast *c)
{
    const char *p = c->p;
    int neg = 0, digits = 0;
    json_int_t v = 0;

    if (*p == '-') {
        neg = 1;
        p++;
    }
    if (p == c->end)
        return NULL;
    if (*p == '0') {
        p++;
        if (neg)
            return NULL; /* -0 is written 0 */
    } else {
        for (; p < c->end && *p >= '0' && *p <= '9'; p++) {
            if (++digits > 16)
                return NULL;
            v = v * 10 + (*p - '0');
        }
        if (!digits)
            return NULL;
    }
    if (p < c->end && ((*p >= '0' && *p <= '9') || *p == '.' || *p == 'e' || *p == 'E'))
        return NULL;
    if (neg)
        v = -v;
    if (!bx_json_int_ok(v))
        return NULL;
    c->p = p;
    return json_integer(v);
}

static int fast_literal(fast *c, const char *word, size_t n)
{
    if ((size_t)(c->end - c->p) < n || memcmp(c->p, word, n) != 0)
        return 0;
    c->p += n;
    return 1;
}

/* 1 when one of the n bytes at s is an ASCII capital. end bounds the readable input: a
 * word may be read past s + n (the key's closing quote and what follows), not past end. */
static int ascii_upper_in(const char *s, size_t n, const char *end)
{
    const uint64_t ones = 0x0101010101010101u, high = 0x8080808080808080u;
    size_t i = 0;
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    for (; i < n && end - (s + i) >= 8; i += 8) {
        /* per byte, without carries: 'A' <= b <= 'Z' and b < 0x80; bytes from n on masked */
        uint64_t w, t, keep = n - i >= 8 ? ~(uint64_t)0 : ((uint64_t)1 << (8 * (n - i))) - 1;
        memcpy(&w, s + i, 8);
        t = w & ones * 0x7f;
        if ((ones * (127 + 'Z' + 1) - t) & ~w & (t + ones * (127 - ('A' - 1))) & high & keep)
            return 1;
    }
#else
    (void)end;
#endif
    for (; i < n; i++)
        if (s[i] >= 'A' && s[i] <= 'Z')
            return 1;
    return 0;
}

/* Members in strictly increasing UTF-16 order; keys without escapes (they stay in the
 * input, where the previous key is compared and the case check finds them). */
static json_t *fast_object(fast *c, int depth, int capture)
{
    skey stack[STRICT_STACK_KEYS], *keys = stack;
    size_t n = 0, cap = STRICT_STACK_KEYS;
    int upper = 0;
    json_t *obj = json_object();

    if (!obj)
        return NULL;
    c->p++;
    if (c->p < c->end && *c->p == '}') {
        c->p++;
        return obj;
    }
    for (;;) {
        const char *k;
        size_t klen;
        if (c->p == c->end || *c->p != '"')
            goto fail;
        c->p++;
        if (!fast_string(c, &k, &klen, 0) || c->p == c->end || *c->p != ':')
            goto fail;
        c->p++;
        if (n && bxs_utf16_cmp(keys[n - 1].key, keys[n - 1].len, k, klen) >= 0)
            goto fail;
        if (n == cap) {
            skey *grown = malloc(2 * cap * sizeof *grown);
            if (!grown)
                goto fail;
            memcpy(grown, keys, n * sizeof *keys);
            if (keys != stack)
                free(keys);
            keys = grown;
            cap *= 2;
        }
        keys[n].key = k;
        keys[n].len = klen;
        n++;
        upper = upper || ascii_upper_in(k, klen, c->end);

        int sub = depth == 0 && c->cap && c->cap->parent && strlen(c->cap->parent) == klen &&
                  memcmp(c->cap->parent, k, klen) == 0;
        const char *vstart = c->p;
        json_t *v = fast_value(c, depth + 1, sub);
        if (!v || json_object_setn_new_nocheck(obj, k, klen, v) != 0)
            goto fail;
        if (capture) {
            for (size_t i = 0; i < c->cap->n; i++)
                if (strlen(c->cap->names[i]) == klen && memcmp(c->cap->names[i], k, klen) == 0) {
                    c->cap->spans[i].s = vstart;
                    c->cap->spans[i].len = (size_t)(c->p - vstart);
                }
        }
        if (c->p < c->end && *c->p == ',') {
            c->p++;
            continue;
        }
        if (c->p < c->end && *c->p == '}') {
            c->p++;
            break;
        }
        goto fail;
    }
    /* keys equal but for ASCII case: one of the two holds an upper-case letter. Pairwise
     * for a few keys; sorted case-folded for more (a map of labels can hold thousands). */
    if (upper && n > STRICT_STACK_KEYS && check_case_collisions(obj, NULL) != 0)
        goto fail;
    for (size_t i = 0; upper && n <= STRICT_STACK_KEYS && i < n; i++)
        for (size_t j = i + 1; j < n; j++)
            if (keys[i].len == keys[j].len &&
                casecmp_n(keys[i].key, keys[i].len, keys[j].key, keys[j].len) == 0)
                goto fail;
    if (keys != stack)
        free(keys);
    if (capture)
        c->cap->found = 1;
    return obj;
fail:
    if (keys != stack)
        free(keys);
    json_decref(obj);
    return NULL;
}

static json_t *fast_array(fast *c, int depth)
{
    json_t *arr = json_array();

    if (!arr)
        return NULL;
    c->p++;
    if (c->p < c->end && *c->p == ']') {
        c->p++;
        return arr;
    }
    for (;;) {
        json_t *v = fast_value(c, depth + 1, 0);
        if (!v || json_array_append_new(arr, v) != 0)
            goto fail;
        if (c->p < c->end && *c->p == ',') {
            c->p++;
            continue;
        }
        if (c->p < c->end && *c->p == ']') {
            c->p++;
            return arr;
        }
        goto fail;
    }
fail:
    json_decref(arr);
    return NULL;
}

static json_t *fast_value(fast *c, int depth, int capture)
{
    const char *s;
    size_t n;

    if (c->p == c->end || depth > FAST_MAX_DEPTH)
        return NULL;
    switch (*c->p) {
    case '{':
        return fast_object(c, depth, capture);
    case '[':
        return fast_array(c, depth);
    case '"':
        c->p++;
        return fast_string(c, &s, &n, 1) ? json_stringn_nocheck(s, n) : NULL;
    case 't':
        return fast_literal(c, "true", 4) ? json_true() : NULL;
    case 'f':
        return fast_literal(c, "false", 5) ? json_false() : NULL;
    case 'n':
        return fast_literal(c, "null", 4) ? json_null() : NULL;
    default:
        return (*c->p == '-' || (*c->p >= '0' && *c->p <= '9')) ? fast_integer(c) : NULL;
    }
}

/* 0 with *out when buf is a canonical object; -1 when the strict path must decide. */
static int parse_canonical(const char *buf, size_t len, json_t **out, bxs_capture *cap)
{
    fast c = {.p = buf, .end = buf + len, .cap = cap};
    json_t *v = NULL;

    if (cap) {
        cap->found = 0;
        for (size_t i = 0; i < cap->n; i++)
            cap->spans[i].s = NULL;
    }
    if (len && *buf == '{')
        v = fast_value(&c, 0, 0);
    free(c.tmp);
    if (v && c.p == c.end) {
        *out = v;
        return 0;
    }
    json_decref(v);
    if (cap)
        cap->found = 0;
    return -1;
}

static int parse_strict(const char *buf, size_t len, int want_object, int require_jcs, json_t **out,
                        bx_error *err);

int bxs_json_parse_jcs(const char *buf, size_t len, bxs_capture *cap, json_t **out,
                       bx_error *err)
{
    if (parse_canonical(buf, len, out, cap) == 0)
        return 0;
    return parse_strict(buf, len, 1, 1, out, err);
}

int bx_json_parse_strict(const char *buf, size_t len, unsigned flags, json_t **out,
                         bx_error *err)
{
    int want_object = (flags & BX_JSON_OBJECT) != 0, require_jcs = (flags & BX_JSON_JCS) != 0;
    if (want_object && require_jcs && parse_canonical(buf, len, out, NULL) == 0)
        return 0;
    return parse_strict(buf, len, want_object, require_jcs, out, err);
}

static int parse_strict(const char *buf, size_t len, int want_object, int require_jcs,
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
