/* SPDX-License-Identifier: Apache-2.0 */
/* schema module internals. Not installed. */
#ifndef BX_SCHEMA_INTERNAL_H
#define BX_SCHEMA_INTERNAL_H

#include "bx_schema.h"

/* The comparators of the containment table (compare.c), one per member. */
bx_cmp bxs_cmp_runtime(const json_t *req, const json_t *c, char *why, size_t n);
bx_cmp bxs_cmp_network(const json_t *req, const json_t *c, char *why, size_t n);
bx_cmp bxs_cmp_rootfs(const json_t *req, const json_t *c, char *why, size_t n);
bx_cmp bxs_cmp_capabilities(const json_t *req, const json_t *c, char *why, size_t n);
bx_cmp bxs_cmp_nnp(const json_t *req, const json_t *c, char *why, size_t n);
bx_cmp bxs_cmp_seccomp(const json_t *req, const json_t *c, char *why, size_t n);
bx_cmp bxs_cmp_apparmor(const json_t *req, const json_t *c, char *why, size_t n);
bx_cmp bxs_cmp_selinux(const json_t *req, const json_t *c, char *why, size_t n);
bx_cmp bxs_cmp_privileged(const json_t *req, const json_t *c, char *why, size_t n);
bx_cmp bxs_cmp_user(const json_t *req, const json_t *c, char *why, size_t n);
bx_cmp bxs_cmp_namespaces(const json_t *req, const json_t *c, char *why, size_t n);
bx_cmp bxs_cmp_resources(const json_t *req, const json_t *c, char *why, size_t n);
bx_cmp bxs_cmp_surface(const json_t *req, const json_t *c, char *why, size_t n);
bx_cmp bxs_cmp_mounts(const json_t *req, const json_t *c, char *why, size_t n);
bx_cmp bxs_cmp_devices(const json_t *req, const json_t *c, char *why, size_t n);
bx_cmp bxs_cmp_masked(const json_t *req, const json_t *c, char *why, size_t n);
bx_cmp bxs_cmp_ro_paths(const json_t *req, const json_t *c, char *why, size_t n);
bx_cmp bxs_cmp_sysctls(const json_t *req, const json_t *c, char *why, size_t n);

/* The closed schema of predicate version `version` (certificate.md section 4) on a parsed
 * predicate (borrowed): every member of that version present, none unknown, each of its type,
 * enum values, lowercase hex, RFC 3339 times with Z, sorted unordered lists, and the few rules
 * across fields (expiresAt after issuedAt; level engine has no kernel or OCI spec readings).
 * BX_EINVAL with err->where a JSON pointer relative to the predicate ("/containment/
 * network/mode") and a one-line reason. Does not allocate. */
int bxs_predicate_check(const json_t *predicate, unsigned version, bx_error *err) BX_WUR;

/* Where the values of some members of one top-level member lie in a canonical document
 * (bxs_json_parse_jcs): as the bytes are their own JCS, each span is the JCS of its value. */
typedef struct {
    const char *s; /* into the parsed buffer; NULL when the member is absent */
    size_t len;
} bxs_span;

typedef struct {
    const char *parent;       /* a top-level member, e.g. "predicate" */
    const char *const *names; /* members of parent whose values are wanted */
    size_t n;
    bxs_span *spans; /* n entries */
    int found;       /* 1 when parent was an object and spans were filled */
} bxs_capture;

/* bx_json_parse_strict(buf, len, BX_JSON_OBJECT | BX_JSON_JCS, out, err) that also fills cap (when it can: found
 * stays 0 otherwise, e.g. when the input is not canonical). */
int bxs_json_parse_jcs(const char *buf, size_t len, bxs_capture *cap, json_t **out,
                       bx_error *err) BX_WUR;

/* Sort class of the code point starting with lead byte c, in UTF-16 code unit order:
 * U+0000..U+D7FF, then the astral planes (surrogates D800..DFFF), then U+E000..U+FFFF. */
static inline int bxs_utf16_class(unsigned char c)
{
    if (c >= 0xf0)
        return 1;
    return c >= 0xee ? 2 : 0;
}

/* UTF-16 code unit order of two valid UTF-8 strings. UTF-8 byte order is code point order,
 * which differs from UTF-16 order only between the astral planes and U+E000..U+FFFF. */
static inline int bxs_utf16_cmp(const char *a, size_t alen, const char *b, size_t blen)
{
    size_t n = alen < blen ? alen : blen, i = 0;
    while (i < n && a[i] == b[i])
        i++;
    if (i == n)
        return alen < blen ? -1 : alen > blen;
    unsigned char ca = (unsigned char)a[i], cb = (unsigned char)b[i];
    if ((ca & 0xc0) != 0x80 && (cb & 0xc0) != 0x80) {
        int ka = bxs_utf16_class(ca), kb = bxs_utf16_class(cb);
        if (ka != kb)
            return ka < kb ? -1 : 1;
    }
    return ca < cb ? -1 : 1;
}

#endif
