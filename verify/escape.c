/* SPDX-License-Identifier: Apache-2.0 */
/* How a string that came from a certificate, an engine or a folder is written into a report
 * (bx_verify.h, "escaping"; docs/ci.md, "Encodings"). One reversible escaping for every format:
 * a backslash is doubled, a byte that is not part of well-formed UTF-8 is \xNN, and in the
 * human formats a code point that would not show as itself (a control, a noncharacter, a
 * bidirectional control or another invisible format character) is \u{XXXX}. bx_unescape
 * gives the bytes back. */
#include "bx_verify.h"

#include <stdlib.h>
#include <string.h>

/* Invisible format characters (Unicode general category Cf) and the line and paragraph
 * separators: ranges of code points, inclusive. */
static const struct {
    uint32_t lo, hi;
} hidden_ranges[] = {
    {0x00ad, 0x00ad},   {0x0600, 0x0605},   {0x061c, 0x061c},   {0x06dd, 0x06dd},
    {0x070f, 0x070f},   {0x0890, 0x0891},   {0x08e2, 0x08e2},   {0x180e, 0x180e},
    {0x200b, 0x200f},   {0x2028, 0x202e},   {0x2060, 0x2064},   {0x2066, 0x206f},
    {0xfeff, 0xfeff},   {0xfff9, 0xfffb},   {0x110bd, 0x110bd}, {0x110cd, 0x110cd},
    {0x13430, 0x1343f}, {0x1bca0, 0x1bca3}, {0x1d173, 0x1d17a}, {0xe0001, 0xe0001},
    {0xe0020, 0xe007f},
};

int bx_codepoint_hidden(uint32_t cp)
{
    if (cp < 0x20 || (cp >= 0x7f && cp <= 0x9f)) /* C0, DEL, C1 */
        return 1;
    if ((cp >= 0xfdd0 && cp <= 0xfdef) || (cp & 0xfffe) == 0xfffe) /* noncharacters */
        return 1;
    for (size_t i = 0; i < sizeof hidden_ranges / sizeof hidden_ranges[0]; i++)
        if (cp >= hidden_ranges[i].lo && cp <= hidden_ranges[i].hi)
            return 1;
    return 0;
}

static uint32_t decode(const unsigned char *p, size_t k)
{
    switch (k) {
    case 1: return p[0];
    case 2: return (uint32_t)(p[0] & 0x1f) << 6 | (p[1] & 0x3f);
    case 3: return (uint32_t)(p[0] & 0x0f) << 12 | (uint32_t)(p[1] & 0x3f) << 6 | (p[2] & 0x3f);
    default:
        return (uint32_t)(p[0] & 0x07) << 18 | (uint32_t)(p[1] & 0x3f) << 12 |
               (uint32_t)(p[2] & 0x3f) << 6 | (p[3] & 0x3f);
    }
}

/* The escape of the sequence at p (k bytes, 0: one byte that is not UTF-8) into out (at least
 * 12 bytes), or 0 when it is written as itself. */
static size_t escape_one(const unsigned char *p, size_t k, int flags, char *out)
{
    if (k == 0)
        return (size_t)snprintf(out, 12, "\\x%02x", p[0]);
    if (k == 1 && p[0] == '\\')
        return (size_t)snprintf(out, 12, "\\\\");
    if (k == 1 && p[0] == '"' && (flags & BX_ESC_QUOTE))
        return (size_t)snprintf(out, 12, "\\\"");
    if (flags & BX_ESC_HUMAN) {
        uint32_t cp = decode(p, k);
        if (cp < 0x20 || cp == 0x7f)
            return (size_t)snprintf(out, 12, "\\x%02x", (unsigned)cp);
        if (bx_codepoint_hidden(cp))
            return (size_t)snprintf(out, 12, "\\u{%04X}", (unsigned)cp);
    }
    return 0;
}

size_t bx_escape_char(const char *s, size_t n, int flags, char out[12], size_t *step)
{
    const unsigned char *p = (const unsigned char *)s;
    size_t k = bx_utf8_seq(p, n);
    *step = k ? k : 1;
    return escape_one(p, k, flags, out);
}

int bx_escape_needed(const char *s, int flags)
{
    size_t n = strlen(s ? s : ""), step;
    char tmp[12];
    for (size_t i = 0; i < n; i += step)
        if (bx_escape_char(s + i, n - i, flags, tmp, &step))
            return 1;
    return 0;
}

char *bx_escape(const char *s, int flags)
{
    size_t n, o = 0, step;
    char *out;
    if (!s)
        s = "";
    n = strlen(s);
    if (!(out = bx_malloc(n * 9 + 1))) /* \u{XXXXX} for a 4-byte sequence at most */
        return NULL;
    for (size_t i = 0; i < n; i += step) {
        size_t e = bx_escape_char(s + i, n - i, flags, out + o, &step);
        if (e)
            o += e;
        else
            memcpy(out + o, s + i, step), o += step;
    }
    out[o] = '\0';
    return out;
}

static int hexval(int c)
{
    return c >= '0' && c <= '9' ? c - '0'
           : c >= 'a' && c <= 'f' ? c - 'a' + 10
           : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                  : -1;
}

char *bx_unescape(const char *s, size_t *len)
{
    size_t n = strlen(s), o = 0;
    char *out = bx_malloc(n + 1);
    if (!out)
        return NULL;
    for (size_t i = 0; i < n;) {
        if (s[i] != '\\') {
            out[o++] = s[i++];
            continue;
        }
        if (s[i + 1] == '\\' || s[i + 1] == '"') {
            out[o++] = s[i + 1];
            i += 2;
        } else if (s[i + 1] == 'x' && hexval(s[i + 2]) >= 0 && hexval(s[i + 3]) >= 0) {
            out[o++] = (char)(hexval(s[i + 2]) << 4 | hexval(s[i + 3]));
            i += 4;
        } else if (s[i + 1] == 'u' && s[i + 2] == '{') {
            uint32_t cp = 0;
            size_t j = i + 3, d = 0;
            for (; hexval(s[j]) >= 0 && d < 6; j++, d++)
                cp = cp << 4 | (uint32_t)hexval(s[j]);
            if (s[j] != '}' || d == 0 || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) {
                free(out);
                return NULL;
            }
            if (cp < 0x80) {
                out[o++] = (char)cp;
            } else if (cp < 0x800) {
                out[o++] = (char)(0xc0 | cp >> 6);
                out[o++] = (char)(0x80 | (cp & 0x3f));
            } else if (cp < 0x10000) {
                out[o++] = (char)(0xe0 | cp >> 12);
                out[o++] = (char)(0x80 | (cp >> 6 & 0x3f));
                out[o++] = (char)(0x80 | (cp & 0x3f));
            } else {
                out[o++] = (char)(0xf0 | cp >> 18);
                out[o++] = (char)(0x80 | (cp >> 12 & 0x3f));
                out[o++] = (char)(0x80 | (cp >> 6 & 0x3f));
                out[o++] = (char)(0x80 | (cp & 0x3f));
            }
            i = j + 1;
        } else { /* not an escape this encoding writes */
            free(out);
            return NULL;
        }
    }
    out[o] = '\0';
    if (len)
        *len = o;
    return out;
}

/* RFC 3986: unreserved characters, the path's sub-delimiters, '@' and '/' stay. A relative
 * reference is all it can be read as: ':' is always %3A (so nothing reads as a scheme,
 * "javascript:", "C:", "file:"), and a second leading '/' is %2F (so "//host" is no
 * authority). */
char *bx_uri_path(const char *s)
{
    static const char keep[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
                               "-._~!$&'()*+,;=@/";
    const unsigned char *p = (const unsigned char *)(s ? s : "");
    size_t n = strlen((const char *)p), o = 0;
    char *out = bx_malloc(n * 3 + 1);
    if (!out)
        return NULL;
    for (size_t i = 0; i < n; i++) {
        if (p[i] && strchr(keep, p[i]) && !(i == 1 && p[0] == '/' && p[1] == '/'))
            out[o++] = (char)p[i];
        else
            o += (size_t)snprintf(out + o, 4, "%%%02X", p[i]);
    }
    out[o] = '\0';
    return out;
}

/* A text field: bare when every byte is one of a few plain ones, else in double quotes with
 * the human escaping (and \" for a quote), so no value can look like another field. */
static int plain(const char *s)
{
    static const char ok[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
                             "-._:/@+,~%";
    return *s && strspn(s, ok) == strlen(s);
}

char *bx_text_field(const char *s)
{
    char *e, *q;
    size_t n;
    if (!s)
        s = "";
    if (plain(s))
        return bx_strdup(s);
    if (!(e = bx_escape(s, BX_ESC_HUMAN | BX_ESC_QUOTE)))
        return NULL;
    n = strlen(e);
    if ((q = bx_malloc(n + 3))) {
        q[0] = '"';
        memcpy(q + 1, e, n);
        q[n + 1] = '"';
        q[n + 2] = '\0';
    }
    free(e);
    return q;
}
