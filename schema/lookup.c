/* SPDX-License-Identifier: Apache-2.0 */
/* The two ways code here names a place in a JSON document: a dotted path of object members
 * (the policy language's "containment.network") and an RFC 6901 JSON pointer (a certificate's
 * "/predicate/containment/mounts/0"). Each is written once. */
#include "bx_schema.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const json_t *bx_json_dotted(const json_t *o, const char *path)
{
    for (const char *seg = path; o && seg;) {
        const char *dot = strchr(seg, '.');
        o = json_object_getn(o, seg, dot ? (size_t)(dot - seg) : strlen(seg));
        seg = dot ? dot + 1 : NULL;
    }
    return o;
}

const json_t *bx_json_at(const json_t *o, const char *pointer)
{
    char key[256];
    const char *p = pointer;

    if (!p)
        return NULL;
    while (o && *p == '/') {
        size_t n = 0;
        for (p++; *p && *p != '/'; p++) {
            if (n + 1 >= sizeof key)
                return NULL;
            if (*p == '~' && (p[1] == '0' || p[1] == '1')) {
                key[n++] = p[1] == '0' ? '~' : '/';
                p++;
            } else {
                key[n++] = *p;
            }
        }
        key[n] = '\0';
        if (json_is_object(o)) {
            o = json_object_getn(o, key, n);
        } else if (json_is_array(o)) {
            char *end;
            unsigned long i = strtoul(key, &end, 10);
            o = n && *end == '\0' && strspn(key, "0123456789") == n && !(n > 1 && key[0] == '0')
                    ? json_array_get(o, i)
                    : NULL;
        } else {
            o = NULL;
        }
    }
    return *p ? NULL : o;
}

/* ---- building an error's pointer on the way back from a nested value ---------------- */

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

void bx_pointer_child(char *out, size_t n, const char *parent, const char *key)
{
    size_t o = (size_t)snprintf(out, n, "%s/", parent);
    for (const char *c = key; *c && o + 3 < n; c++) {
        if (*c == '~' || *c == '/') {
            out[o++] = '~';
            out[o++] = *c == '~' ? '0' : '1';
        } else {
            out[o++] = *c;
        }
    }
    out[o < n ? o : n - 1] = '\0';
}

const char *bx_text_snip(const char *s, char *out, size_t n)
{
    size_t i = 0, len = strlen(s);
    for (; s[i] && i + 4 < n; i++)
        out[i] = ((unsigned char)s[i] < 0x20 || s[i] == 0x7f) ? '?' : s[i];
    out[i] = '\0';
    if (i < len)
        snprintf(out + i, n - i, "...");
    return out;
}

int bx_path_canonical(const char *p)
{
    if (!p || p[0] != '/')
        return 0;
    if (p[1] == '\0')
        return 1;
    for (const char *c = p; *c;) {
        const char *e;
        size_t k;
        if (*c++ != '/')
            return 0;
        e = strchr(c, '/');
        k = e ? (size_t)(e - c) : strlen(c);
        if (k == 0 || (k == 1 && c[0] == '.') || (k == 2 && c[0] == '.' && c[1] == '.'))
            return 0; /* "//", a trailing "/", ".", ".." */
        c += k;
    }
    return 1;
}
