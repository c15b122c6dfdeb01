/* SPDX-License-Identifier: Apache-2.0 */
/* Public key files: the strict reading of one PUBLIC KEY block (Ed25519, P-256) gives the
 * key and keyid OpenSSL's own reader gives, refuses what that reader refuses, and refuses
 * what OpenSSL's reader takes but is not one strict block (tests/unit/common/test_keys_strict.c
 * has the classes). */
#include "bx_common.h"
#include "tap.h"

#include <stdlib.h>
#include <string.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/x509.h>

/* OpenSSL's reader, as the reference. */
static EVP_PKEY *reference(const char *pem)
{
    BIO *b = BIO_new_mem_buf(pem, (int)strlen(pem));
    EVP_PKEY *k = b ? PEM_read_bio_PUBKEY(b, NULL, NULL, NULL) : NULL;
    BIO_free(b);
    ERR_clear_error();
    return k;
}

/* SHA-256 of i2d_PUBKEY, computed without bx_key_id. */
static void der_id(EVP_PKEY *k, char hex[65])
{
    unsigned char *der = NULL;
    int n = i2d_PUBKEY(k, &der);
    bx_sha256_hex(der, n > 0 ? (size_t)n : 0, hex);
    OPENSSL_free(der);
}

/* pem parses, to the reference's key, with the reference's keyid. */
static void same_as_reference(const char *pem, const char *name)
{
    bx_error err = {0};
    EVP_PKEY *k = NULL, *r = reference(pem);
    char id[65] = "", want[65] = "";
    int rc = bx_key_parse_public(pem, strlen(pem), &k, &err);

    ok_err(rc, &err, "%s: parses", name);
    ok(r != NULL, "%s: OpenSSL's reader parses it too", name);
    if (rc == 0 && r) {
        ok(EVP_PKEY_eq(k, r) == 1, "%s: the same key", name);
        der_id(r, want);
        ok(bx_key_id(k, id, &err) == 0 && strcmp(id, want) == 0, "%s: the same keyid", name);
        ok(bx_key_id(k, id, &err) == 0 && strcmp(id, want) == 0, "%s: the same keyid again (kept)",
           name);
    }
    EVP_PKEY_free(k);
    EVP_PKEY_free(r);
}

/* Refused, though OpenSSL's reader takes it. */
static void stricter(const char *pem, const char *name)
{
    bx_error err = {0};
    EVP_PKEY *k = NULL, *r = reference(pem);

    is_int(bx_key_parse_public(pem, strlen(pem), &k, &err), BX_ECONFIG, "%s: refused (%s)", name,
           err.msg);
    ok(r != NULL, "%s: which OpenSSL's reader takes", name);
    EVP_PKEY_free(k);
    EVP_PKEY_free(r);
}

static void refused(const char *pem, const char *name)
{
    bx_error err = {0};
    EVP_PKEY *k = NULL, *r = reference(pem);
    int rc = bx_key_parse_public(pem, strlen(pem), &k, &err);

    is_int(rc, BX_ECONFIG, "%s: refused", name);
    ok(r == NULL || !bx_key_alg(r), "%s: OpenSSL's reader has no usable key either", name);
    EVP_PKEY_free(k);
    EVP_PKEY_free(r);
}

/* s with every "\n" made "\r\n". Caller frees. */
static char *crlf(const char *s)
{
    char *o = malloc(strlen(s) * 2 + 1), *p = o;
    for (; o && *s; s++) {
        if (*s == '\n')
            *p++ = '\r';
        *p++ = *s;
    }
    if (o)
        *p = '\0';
    return o;
}

/* The PEM of der (64-column base64). Caller frees. */
static char *pem_of(const unsigned char *der, size_t n)
{
    char *b = bx_b64_encode(der, n), *o;
    size_t bl = strlen(b), p = 0;

    o = malloc(bl + bl / 64 + 64);
    p += (size_t)sprintf(o, "-----BEGIN PUBLIC KEY-----\n");
    for (size_t i = 0; i < bl; i += 64) {
        size_t l = bl - i < 64 ? bl - i : 64;
        memcpy(o + p, b + i, l);
        p += l;
        o[p++] = '\n';
    }
    sprintf(o + p, "-----END PUBLIC KEY-----\n");
    free(b);
    return o;
}

static void one_kind(bx_alg alg, const char *kind)
{
    bx_error err = {0};
    char name[64], *pem = NULL, *c = NULL, *x = NULL;
    EVP_PKEY *key = NULL;
    unsigned char *der = NULL;
    int n;

    if (!ok(bx_key_generate(alg, &key, &err) == 0 && bx_key_public_pem(key, &pem, &err) == 0,
            "%s: a key", kind))
        return;
    snprintf(name, sizeof name, "%s PEM as keygen writes it", kind);
    same_as_reference(pem, name);
    c = crlf(pem);
    snprintf(name, sizeof name, "%s PEM with CRLF line ends", kind);
    same_as_reference(c, name);
    free(c);
    /* text around the block: OpenSSL's reader takes it */
    if (asprintf(&x, "a comment\n%s", pem) > 0) {
        snprintf(name, sizeof name, "%s PEM after a comment line", kind);
        stricter(x, name);
        free(x);
    }
    /* a byte of the key changed: for P-256 a point off the curve, refused both ways */
    n = i2d_PUBKEY(key, &der);
    if (ok(n > 0, "%s: DER", kind)) {
        der[n - 1] ^= 0x01;
        x = pem_of(der, (size_t)n);
        snprintf(name, sizeof name, "%s PEM with its last key byte changed", kind);
        if (alg == BX_ALG_ECDSA_P256)
            refused(x, name);
        else
            same_as_reference(x, name); /* any 32 bytes decode as an Ed25519 key */
        free(x);
        /* one byte more: OpenSSL's reader ignores what follows the DER's outer SEQUENCE */
        unsigned char *longer = malloc((size_t)n + 1);
        der[n - 1] ^= 0x01;
        memcpy(longer, der, (size_t)n);
        longer[n] = 0;
        x = pem_of(longer, (size_t)n + 1);
        snprintf(name, sizeof name, "%s DER with a trailing byte", kind);
        stricter(x, name);
        free(x);
        free(longer);
        OPENSSL_free(der);
    }
    /* the URL-safe alphabet is not PEM */
    char *slash = strchr(pem + 27, '/'), *plus = strchr(pem + 27, '+');
    if (slash || plus) {
        *(slash ? slash : plus) = slash ? '_' : '-';
        snprintf(name, sizeof name, "%s PEM in URL-safe base64", kind);
        refused(pem, name);
    }
    free(pem);
    EVP_PKEY_free(key);
}

int main(void)
{
    for (int i = 0; i < 4; i++) {
        one_kind(BX_ALG_ED25519, "Ed25519");
        one_kind(BX_ALG_ECDSA_P256, "P-256");
    }
    refused("-----BEGIN PUBLIC KEY-----\n-----END PUBLIC KEY-----\n", "an empty block");
    refused("-----BEGIN PUBLIC KEY-----\nMCowBQYDK2VwAyEA\n-----END PUBLIC KEY-----\n",
            "a block cut short");
    refused("not a key\n", "no block");
    /* two keys in one file: never the first taken and the second ignored */
    {
        bx_error err = {0};
        EVP_PKEY *a = NULL, *b = NULL;
        char *pa = NULL, *pb = NULL, *two = NULL;
        if (bx_key_generate(BX_ALG_ED25519, &a, &err) == 0 &&
            bx_key_generate(BX_ALG_ECDSA_P256, &b, &err) == 0 &&
            bx_key_public_pem(a, &pa, &err) == 0 && bx_key_public_pem(b, &pb, &err) == 0 &&
            asprintf(&two, "%s%s", pa, pb) > 0) {
            EVP_PKEY *k = NULL;
            /* (OpenSSL's reader alone would take the first block) */
            is_int(bx_key_parse_public(two, strlen(two), &k, &err), BX_ECONFIG,
                   "two PUBLIC KEY blocks: refused (%s)", err.msg);
            EVP_PKEY_free(k);
            k = NULL;
            free(two);
            if (asprintf(&two, "%s%s", pa, pa) > 0)
                is_int(bx_key_parse_public(two, strlen(two), &k, &err), BX_ECONFIG,
                       "the same PUBLIC KEY block twice: refused");
            EVP_PKEY_free(k);
        } else {
            ok(0, "two keys made");
        }
        free(two);
        free(pa);
        free(pb);
        EVP_PKEY_free(a);
        EVP_PKEY_free(b);
    }
    return tap_done();
}
