/* SPDX-License-Identifier: Apache-2.0 */
#include "bx_common.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

static const char b64_std[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
static const char hex_digits[] = "0123456789abcdef";

enum { ALPHA_ANY = 0, ALPHA_STD = 1, ALPHA_URL = 2 };

char *bx_b64_encode(const void *buf, size_t len)
{
    const unsigned char *p = buf;
    if (len > (SIZE_MAX - 1) / 4 * 3 - 3)
        return NULL;
    char *out = malloc((len + 2) / 3 * 4 + 1);
    if (!out)
        return NULL;
    size_t i = 0, o = 0;
    for (; i + 2 < len; i += 3) {
        unsigned v = (unsigned)p[i] << 16 | (unsigned)p[i + 1] << 8 | p[i + 2];
        out[o++] = b64_std[v >> 18];
        out[o++] = b64_std[(v >> 12) & 63];
        out[o++] = b64_std[(v >> 6) & 63];
        out[o++] = b64_std[v & 63];
    }
    if (i < len) {
        unsigned v = (unsigned)p[i] << 16 | (i + 1 < len ? (unsigned)p[i + 1] << 8 : 0);
        out[o++] = b64_std[v >> 18];
        out[o++] = b64_std[(v >> 12) & 63];
        out[o++] = i + 1 < len ? b64_std[(v >> 6) & 63] : '=';
        out[o++] = '=';
    }
    out[o] = '\0';
    return out;
}

/* Value of c (0..63) and the alphabet it belongs to; -1 when in neither. */
static int b64_value(unsigned char c, int *alpha)
{
    *alpha = ALPHA_ANY;
    if (c >= 'A' && c <= 'Z')
        return c - 'A';
    if (c >= 'a' && c <= 'z')
        return c - 'a' + 26;
    if (c >= '0' && c <= '9')
        return c - '0' + 52;
    *alpha = (c == '+' || c == '/') ? ALPHA_STD : ALPHA_URL;
    if (c == '+' || c == '-')
        return 62;
    if (c == '/' || c == '_')
        return 63;
    return -1;
}

static int b64_decode_chars(const char *s, size_t n, unsigned char *out, bx_error *err)
{
    int seen = ALPHA_ANY;
    unsigned acc = 0;
    size_t o = 0;
    for (size_t i = 0; i < n; i++) {
        int alpha;
        int v = b64_value((unsigned char)s[i], &alpha);
        if (s[i] == '=')
            return bx_error_set(err, BX_EINVAL, NULL, "invalid base64: misplaced '=' at offset %zu",
                                i);
        if (v < 0)
            return bx_error_set(err, BX_EINVAL, NULL,
                                "invalid base64: character 0x%02x at offset %zu",
                                (unsigned char)s[i], i);
        if (alpha != ALPHA_ANY && seen != ALPHA_ANY && alpha != seen)
            return bx_error_set(err, BX_EINVAL, NULL,
                                "invalid base64: standard and URL-safe alphabets mixed");
        if (alpha != ALPHA_ANY)
            seen = alpha;
        acc = acc << 6 | (unsigned)v;
        if (i % 4 == 3) {
            out[o++] = (unsigned char)(acc >> 16);
            out[o++] = (unsigned char)(acc >> 8);
            out[o++] = (unsigned char)acc;
            acc = 0;
        }
    }
    /* Tail of a padded quad: 2 chars = 1 byte (4 pad bits), 3 chars = 2 bytes (2 pad bits). */
    size_t rem = n % 4;
    if (rem == 2) {
        if (acc & 0xf)
            return bx_error_set(err, BX_EINVAL, NULL, "invalid base64: non-zero padding bits");
        out[o++] = (unsigned char)(acc >> 4);
    } else if (rem == 3) {
        if (acc & 0x3)
            return bx_error_set(err, BX_EINVAL, NULL, "invalid base64: non-zero padding bits");
        out[o++] = (unsigned char)(acc >> 10);
        out[o++] = (unsigned char)(acc >> 2);
    }
    return 0;
}

/* Values of the characters of both alphabets (-1: neither, '=' included) and the alphabet
 * each belongs to, for the fast loop below. */
static signed char b64_table[256];
static unsigned char b64_alpha[256];

static void b64_table_init(void)
{
    for (int c = 0; c < 256; c++) {
        int alpha;
        b64_table[c] = (signed char)b64_value((unsigned char)c, &alpha);
        b64_alpha[c] = (unsigned char)(b64_table[c] < 0 ? 0 : alpha);
    }
}

/* The common case, four characters at a time: 0 when s decodes, -1 when it holds anything
 * b64_decode_chars would refuse (which then says what, and where). */
static int b64_decode_fast(const char *s, size_t n, unsigned char *out)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    const unsigned char *p = (const unsigned char *)s;
    unsigned alpha = 0;
    size_t i = 0, o = 0;
    pthread_once(&once, b64_table_init);
    for (; i + 4 <= n; i += 4) {
        int a = b64_table[p[i]], b = b64_table[p[i + 1]], c = b64_table[p[i + 2]],
            d = b64_table[p[i + 3]];
        if ((a | b | c | d) < 0)
            return -1;
        alpha |= b64_alpha[p[i]] | b64_alpha[p[i + 1]] | b64_alpha[p[i + 2]] | b64_alpha[p[i + 3]];
        unsigned v = (unsigned)a << 18 | (unsigned)b << 12 | (unsigned)c << 6 | (unsigned)d;
        out[o++] = (unsigned char)(v >> 16);
        out[o++] = (unsigned char)(v >> 8);
        out[o++] = (unsigned char)v;
    }
    if (n - i == 1 || alpha == (ALPHA_STD | ALPHA_URL))
        return -1;
    if (n - i >= 2) {
        int a = b64_table[p[i]], b = b64_table[p[i + 1]], c = n - i == 3 ? b64_table[p[i + 2]] : 0;
        if ((a | b | c) < 0)
            return -1;
        alpha |= b64_alpha[p[i]] | b64_alpha[p[i + 1]] | (n - i == 3 ? b64_alpha[p[i + 2]] : 0);
        if (alpha == (ALPHA_STD | ALPHA_URL))
            return -1;
        unsigned v = (unsigned)a << 18 | (unsigned)b << 12 | (unsigned)c << 6;
        if (n - i == 2) {
            if (v & 0xffff)
                return -1;
            out[o++] = (unsigned char)(v >> 16);
        } else {
            if (v & 0xff)
                return -1;
            out[o++] = (unsigned char)(v >> 16);
            out[o++] = (unsigned char)(v >> 8);
        }
    }
    return 0;
}

int bx_b64_decode(const char *s, size_t slen, unsigned char **out, size_t *outlen, bx_error *err)
{
    unsigned char *buf = NULL;
    if (slen % 4 != 0)
        return bx_error_set(err, BX_EINVAL, NULL,
                            "invalid base64: length %zu is not a multiple of 4", slen);
    size_t pad = 0;
    if (slen > 0 && s[slen - 1] == '=')
        pad = (s[slen - 2] == '=') ? 2 : 1;
    size_t dlen = slen / 4 * 3 - pad;
    int rc = 0;
    buf = malloc(dlen + 1);
    if (!buf) {
        rc = bx_error_set(err, BX_ENOMEM, NULL, "out of memory");
        goto out;
    }
    if (b64_decode_fast(s, slen - pad, buf) != 0)
        rc = b64_decode_chars(s, slen - pad, buf, err);
    if (rc)
        goto out;
    buf[dlen] = '\0';
    *out = buf;
    *outlen = dlen;
    buf = NULL;
out:
    free(buf);
    return rc;
}

char *bx_hex_encode(const void *buf, size_t len, char *out)
{
    const unsigned char *p = buf;
    for (size_t i = 0; i < len; i++) {
        out[2 * i] = hex_digits[p[i] >> 4];
        out[2 * i + 1] = hex_digits[p[i] & 0xf];
    }
    out[2 * len] = '\0';
    return out;
}

static int lower_hex_value(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    return -1;
}

int bx_is_lower_hex(const char *s, size_t n)
{
    if (!s)
        return 0;
    for (size_t i = 0; i < n; i++)
        if (lower_hex_value(s[i]) < 0)
            return 0;
    return s[n] == '\0';
}

int bx_hex_decode(const char *s, unsigned char *out, size_t outlen, bx_error *err)
{
    if (!bx_is_lower_hex(s, 2 * outlen))
        return bx_error_set(err, BX_EINVAL, NULL, "not %zu lowercase hex digits", 2 * outlen);
    for (size_t i = 0; i < outlen; i++)
        out[i] = (unsigned char)(lower_hex_value(s[2 * i]) << 4 | lower_hex_value(s[2 * i + 1]));
    return 0;
}

static EVP_MD *sha256_md;

static void sha256_fetch(void)
{
    sha256_md = EVP_MD_fetch(NULL, "SHA256", NULL);
}

void bx_sha256(const void *buf, size_t len, unsigned char out[32])
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    unsigned int n = 0;
    /* fetched once: EVP_sha256() is looked up in the provider store on every use */
    pthread_once(&once, sha256_fetch);
    /* A digest that silently failed would be compared as if real: fail hard instead. */
    if (!EVP_Digest(buf, len, out, &n, sha256_md ? sha256_md : EVP_sha256(), NULL) || n != 32)
        abort();
}

char *bx_sha256_hex(const void *buf, size_t len, char out[65])
{
    unsigned char md[32];
    bx_sha256(buf, len, md);
    return bx_hex_encode(md, sizeof md, out);
}
