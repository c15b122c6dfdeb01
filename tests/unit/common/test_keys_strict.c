/* SPDX-License-Identifier: Apache-2.0 */
/* Public keys are read strictly (bx_key_parse_public, the one reader behind a policy's
 * trust.keys, --key and --verify-key): exactly one PUBLIC KEY block in RFC 7468's strict form
 * and nothing around it but one line end; strict DER; Ed25519 as RFC 8410 writes it; P-256 on
 * the named curve with an uncompressed or compressed point on the curve. Each refusal names
 * its reason; a private key is named as one. Keys are made here (OpenSSL) or written out. */
#include "bx_common.h"
#include "tap.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/ec.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/x509.h>

/* The PEM of der[n]: base64 in lines of width, each line ended by eol, then tail after the
 * END line's own eol. Caller frees. */
static char *wrap(const unsigned char *der, size_t n, size_t width, const char *eol,
                  const char *tail)
{
    char *b = bx_b64_encode(der, n), *o;
    size_t bl = strlen(b), p = 0, el = strlen(eol);

    o = malloc(bl + (bl / width + 4) * el + strlen(tail) + 64);
    p += (size_t)sprintf(o, "-----BEGIN PUBLIC KEY-----%s", eol);
    for (size_t i = 0; i < bl; i += width) {
        size_t l = bl - i < width ? bl - i : width;
        memcpy(o + p, b + i, l);
        p += l;
        memcpy(o + p, eol, el);
        p += el;
    }
    sprintf(o + p, "-----END PUBLIC KEY-----%s%s", eol, tail);
    free(b);
    return o;
}

static char *pem_of(const unsigned char *der, size_t n)
{
    return wrap(der, n, 64, "\n", "");
}

/* A formatted string. Caller frees. */
static char *fmt(const char *f, ...)
{
    char *s = NULL;
    va_list ap;
    va_start(ap, f);
    if (vasprintf(&s, f, ap) < 0)
        s = NULL;
    va_end(ap);
    return s;
}

/* pem is refused (BX_ECONFIG, no key) with a message holding want. Frees pem. */
static void refused(char *pem, const char *want, const char *name)
{
    bx_error err = {0};
    EVP_PKEY *k = NULL;
    int rc = pem ? bx_key_parse_public(pem, strlen(pem), &k, &err) : -1;

    ok(rc == BX_ECONFIG && !k, "%s: refused", name);
    if (!ok(strstr(err.msg, want) != NULL, "%s: says '%s'", name, want))
        printf("#   message: %s\n", err.msg);
    EVP_PKEY_free(k);
    free(pem);
}

/* The same DER, refused: by the bytes der[n]. */
static void refused_der(const unsigned char *der, size_t n, const char *want, const char *name)
{
    refused(pem_of(der, n), want, name);
}

/* SHA-256 hex of i2d_PUBKEY of ref (its point uncompressed). */
static void ref_id(EVP_PKEY *ref, char hex[65])
{
    unsigned char *der = NULL;
    int n = i2d_PUBKEY(ref, &der);
    bx_sha256_hex(der, n > 0 ? (size_t)n : 0, hex);
    OPENSSL_free(der);
}

/* pem is read as ref, with ref's keyid. Frees pem. */
static void accepted(char *pem, EVP_PKEY *ref, const char *name)
{
    bx_error err = {0};
    EVP_PKEY *k = NULL;
    char id[65] = "", want[65] = "";
    int rc = pem ? bx_key_parse_public(pem, strlen(pem), &k, &err) : -1;

    ok_err(rc, &err, "%s: read", name);
    if (rc == 0) {
        ok(EVP_PKEY_eq(k, ref) == 1, "%s: the same key", name);
        ref_id(ref, want);
        ok(bx_key_id(k, id, &err) == 0 && strcmp(id, want) == 0,
           "%s: keyid %.12s... as a signer "
           "computes it",
           name, id);
    }
    EVP_PKEY_free(k);
    free(pem);
}

/* The SPKI DER of k. Caller frees (OPENSSL_free). */
static unsigned char *der_of(EVP_PKEY *k, size_t *n)
{
    unsigned char *der = NULL;
    int l = i2d_PUBKEY(k, &der);
    *n = l > 0 ? (size_t)l : 0;
    return der;
}

static EVP_PKEY *gen(const char *type, const char *curve)
{
    EVP_PKEY *k = curve                      ? EVP_PKEY_Q_keygen(NULL, NULL, type, curve)
                  : strcmp(type, "RSA") == 0 ? EVP_PKEY_Q_keygen(NULL, NULL, type, (size_t)1024)
                                             : EVP_PKEY_Q_keygen(NULL, NULL, type);
    ERR_clear_error();
    return k;
}

/* ---- PEM framing ------------------------------------------------------------------------ */

static void framing(EVP_PKEY *key, const char *kind)
{
    size_t n = 0;
    unsigned char *der = der_of(key, &n);
    char name[128], *pem = pem_of(der, n), *bad;
    size_t plen = strlen(pem);

#define NAME(...) (snprintf(name, sizeof name, __VA_ARGS__), name)
    /* accepted: LF or CRLF, with or without the one line end after END */
    accepted(wrap(der, n, 64, "\n", ""), key, NAME("%s, LF", kind));
    accepted(wrap(der, n, 64, "\r\n", ""), key, NAME("%s, CRLF", kind));
    bad = strndup(pem, plen - 1);
    accepted(bad, key, NAME("%s, no line end after END", kind));
    bad = wrap(der, n, 64, "\r\n", "");
    bad[strlen(bad) - 2] = '\0';
    accepted(bad, key, NAME("%s, CRLF, no line end after END", kind));

    /* around the block */
    refused(fmt("a comment\n%s", pem), "text before", NAME("%s after a comment line", kind));
    refused(fmt("\n%s", pem), "text before", NAME("%s after an empty line", kind));
    refused(fmt(" %s", pem), "text before", NAME("%s after a space", kind));
    refused(fmt("\xef\xbb\xbf%s", pem), "text before", NAME("%s after a UTF-8 BOM", kind));
    refused(fmt("%s\n", pem), "more than one line end", NAME("%s, a blank line after", kind));
    refused(fmt("%s\r\n", pem), "more than one line end", NAME("%s, LF then CRLF after", kind));
    refused(fmt("%s# a comment\n", pem), "text after", NAME("%s, a comment after", kind));
    refused(fmt("%s ", pem), "text after", NAME("%s, a space after", kind));
    refused(fmt("%s%c", pem, 0x01), "text after", NAME("%s, a control byte after", kind));
    refused(fmt("%s%s", pem, pem), "second PEM block", NAME("%s twice", kind));
    refused(fmt("%s-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n", pem),
            "second PEM block", NAME("%s, then a certificate", kind));
    bad = strndup(pem, plen - 1);
    refused(fmt("%s\r\n", bad), "more than one line end", NAME("%s, END line ended CRLF", kind));
    free(bad);

    /* line ends and widths */
    bad = strdup(pem);
    bad[26] = '\r'; /* the BEGIN line ended by CR alone */
    refused(bad, "line ends", NAME("%s, a CR line end", kind));
    bad = wrap(der, n, 64, "\r\n", "");
    memmove(bad + 26, bad + 27, strlen(bad + 27) + 1); /* BEGIN's CRLF now a CR */
    refused(bad, "line ends", NAME("%s, CR then CRLF", kind));
    bad = wrap(der, n, 64, "\n", "");
    {
        char *cr = strstr(bad, "\n-----END");
        char *mixed = fmt("%.*s\r%s", (int)(cr - bad), bad, cr);
        refused(mixed, "line ends", NAME("%s, LF and one CRLF", kind));
    }
    free(bad);
    if (n > 48) { /* more than one line of base64 */
        refused(wrap(der, n, 76, "\n", ""), "lines of 64", NAME("%s, 76-column lines", kind));
        refused(wrap(der, n, 1000, "\n", ""), "lines of 64", NAME("%s, all on one line", kind));
        refused(wrap(der, n, 65, "\n", ""), "lines of 64", NAME("%s, 65-column lines", kind));
        refused(wrap(der, n, 63, "\n", ""), "lines of 64", NAME("%s, 63-column lines", kind));
    } else {
        accepted(wrap(der, n, 1000, "\n", ""), key, NAME("%s, its one line", kind));
    }
    refused(wrap(der, n, 48, "\n", ""), "lines of 64", NAME("%s, 48-column lines", kind));
    refused(wrap(der, n, 4, "\n", ""), "lines of 64", NAME("%s, 4-column lines", kind));
    refused(fmt("-----BEGIN PUBLIC KEY-----\n\n%s", pem + 27), "lines of 64",
            NAME("%s, an empty line in the block", kind));
    refused(fmt("-----BEGIN PUBLIC KEY-----\nProc-Type: 4,ENCRYPTED\n\n%s", pem + 27),
            "lines of 64", NAME("%s, a PEM header", kind));
    refused(fmt("-----BEGIN PUBLIC KEY----- \n%s", pem + 27), "line ends",
            NAME("%s, a space after BEGIN", kind));
    bad = strdup(pem);
    bad[plen - 2] = 'S'; /* "-----END PUBLIC KEY----S" */
    refused(bad, "does not match the BEGIN", NAME("%s, a damaged END line", kind));
    refused(fmt("%.*s", (int)(strstr(pem, "-----END") - pem), pem), "no END",
            NAME("%s, no END line", kind));
    refused(fmt("%.*s-----END PUBLIC KEYS-----\n", (int)(strstr(pem, "-----END") - pem), pem),
            "does not match the BEGIN", NAME("%s, END of another label", kind));

    /* base64 that is not canonical */
    bad = strdup(pem);
    for (char *c = bad + 27; *c && *c != '-'; c++)
        if (*c == '+' || *c == '/') {
            *c = *c == '+' ? '-' : '_';
            break;
        }
    if (strchr(bad + 27, '-') != strstr(bad, "-----END") || strchr(bad + 27, '_'))
        refused(bad, "canonical base64", NAME("%s, URL-safe base64", kind));
    else
        free(bad);
    bad = strdup(pem);
    {
        char *eq = strchr(bad + 27, '='), *last;
        if (eq) {
            /* the last character before the padding with a stray low bit */
            static const char alphabet[] =
                "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
            last = eq - 1;
            *last = alphabet[(strchr(alphabet, *last) - alphabet) | 1];
            refused(bad, "canonical base64", NAME("%s, stray padding bits", kind));
            bad = strdup(pem);
            eq = strchr(bad + 27, '=');
            memmove(eq, eq + 1, strlen(eq + 1) + 1); /* one '=' fewer */
            refused(bad, "", NAME("%s, padding missing", kind));
        } else {
            free(bad);
        }
    }
    bad = strdup(pem);
    bad[30] = '*';
    refused(bad, "canonical base64", NAME("%s, a character not of base64", kind));
    bad = strdup(pem);
    bad[30] = ' ';
    refused(bad, "canonical base64", NAME("%s, a space in a line", kind));
    bad = strdup(pem);
    bad[30] = '\t';
    refused(bad, "canonical base64", NAME("%s, a tab in a line", kind));
#undef NAME
    free(pem);
    OPENSSL_free(der);
}

/* ---- labels and private keys -------------------------------------------------------------- */

static void labels(EVP_PKEY *ed)
{
    static const char *other[] = {"CERTIFICATE", "RSA PUBLIC KEY",      "EC PARAMETERS",
                                  "X509 CRL",    "PUBLIC KEYS",         "SSH2 PUBLIC KEY",
                                  "PUBLIC  KEY", "PGP PUBLIC KEY BLOCK"};
    static const char *priv[] = {"PRIVATE KEY",
                                 "ENCRYPTED PRIVATE KEY",
                                 "EC PRIVATE KEY",
                                 "RSA PRIVATE KEY",
                                 "DSA PRIVATE KEY",
                                 "OPENSSH PRIVATE KEY",
                                 "SSH2 ENCRYPTED PRIVATE KEY",
                                 "ANY PRIVATE KEY"};
    bx_error err = {0};
    char name[128], *pub = NULL, *pk = NULL, *epk = NULL;
    size_t n = 0;
    unsigned char *der = der_of(ed, &n);
    char *b64 = bx_b64_encode(der, n);

    for (size_t i = 0; i < sizeof other / sizeof other[0]; i++) {
        snprintf(name, sizeof name, "a block labelled '%s'", other[i]);
        refused(fmt("-----BEGIN %s-----\n%s\n-----END %s-----\n", other[i], b64, other[i]),
                strchr(other[i], ' ') && strstr(other[i], "  ") ? "PEM" : "not 'PUBLIC KEY'", name);
    }
    for (size_t i = 0; i < sizeof priv / sizeof priv[0]; i++) {
        snprintf(name, sizeof name, "a '%s' block", priv[i]);
        refused(fmt("-----BEGIN %s-----\n%s\n-----END %s-----\n", priv[i], b64, priv[i]),
                "holds a private key", name);
        snprintf(name, sizeof name, "a '%s' block after text", priv[i]);
        refused(fmt("key:\n-----BEGIN %s-----\n%s\n-----END %s-----\n", priv[i], b64, priv[i]),
                "holds a private key", name);
    }
    refused(strdup("PuTTY-User-Key-File-3: ssh-ed25519\nEncryption: none\n"), "holds a private key",
            "a PuTTY key file");
    refused(strdup("-----BEGIN PRIVATE KEY-----\n"), "holds a private key",
            "a private key's BEGIN line alone");
    /* real ones, and a public key with a private key after it */
    if (ok(bx_key_private_pem(ed, NULL, &pk, &err) == 0 &&
               bx_key_private_pem(ed, "correct horse", &epk, &err) == 0 &&
               bx_key_public_pem(ed, &pub, &err) == 0,
           "PEM of a key")) {
        bx_error e = {0};
        EVP_PKEY *k = NULL;
        refused(strdup(pk), "holds a private key (PRIVATE KEY)", "a PKCS#8 private key");
        refused(strdup(epk), "holds a private key (ENCRYPTED PRIVATE KEY)",
                "an encrypted private key");
        refused(fmt("%s%s", pub, pk), "holds a private key", "a public key, then its private key");
        refused(fmt("%s%s", pk, pub), "holds a private key", "a private key, then its public key");
        /* the message never carries the key */
        is_int(bx_key_parse_public(pk, strlen(pk), &k, &e), BX_ECONFIG, "private key refused");
        ok(!strstr(e.msg, "MC4C") && !strchr(e.msg, '\n'), "the message holds none of the key");
    }
    refused(strdup("ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIMm6 user@host\n"), "OpenSSH",
            "an OpenSSH public key line");
    refused(strdup("ecdsa-sha2-nistp256 AAAAE2VjZHNh user@host\n"), "OpenSSH",
            "an OpenSSH ECDSA public key line");
    refused(strdup("-----begin public key-----\nMCowBQYDK2VwAyEA\n-----end public key-----\n"),
            "not a PEM", "lower-case labels");
    refused(fmt("%s", b64), "not a PEM", "base64 alone");
    refused(strdup(""), "not a PEM", "an empty file");
    refused(strdup("-----BEGIN PUBLIC KEY-----"), "no END", "a BEGIN line alone, no line end");
    refused(strdup("-----BEGIN PUBLIC KEY-----\n"), "no END", "a BEGIN line alone");
    refused(strdup("-----BEGIN PUBLIC KEY-----\n-----END PUBLIC KEY-----\n"), "canonical base64",
            "an empty block");
    free(b64);
    free(pub);
    free(pk);
    free(epk);
    OPENSSL_free(der);
}

/* ---- DER ------------------------------------------------------------------------------------ */

static const unsigned char ed_prefix[12] = {0x30, 0x2a, 0x30, 0x05, 0x06, 0x03,
                                            0x2b, 0x65, 0x70, 0x03, 0x21, 0x00};
static const unsigned char ec_alg[21] = {0x30, 0x13, 0x06, 0x07, 0x2a, 0x86, 0x48,
                                         0xce, 0x3d, 0x02, 0x01, 0x06, 0x08, 0x2a,
                                         0x86, 0x48, 0xce, 0x3d, 0x03, 0x01, 0x07};

/* An SPKI of alg[an] and the point pt[pn]. Into out; its length. */
static size_t spki(unsigned char *out, const unsigned char *alg, size_t an, const unsigned char *pt,
                   size_t pn)
{
    size_t inner = an + 3 + pn, o = 0;
    out[o++] = 0x30;
    if (inner >= 0x80)
        out[o++] = 0x81;
    out[o++] = (unsigned char)inner;
    memcpy(out + o, alg, an);
    o += an;
    out[o++] = 0x03;
    out[o++] = (unsigned char)(pn + 1);
    out[o++] = 0x00;
    memcpy(out + o, pt, pn);
    return o + pn;
}

static void der_ed25519(EVP_PKEY *ed)
{
    unsigned char raw[32], d[128];
    size_t rn = sizeof raw;

    if (!ok(EVP_PKEY_get_raw_public_key(ed, raw, &rn) == 1, "Ed25519 raw key"))
        return;
    memcpy(d, ed_prefix, 12);
    memcpy(d + 12, raw, 32);
    accepted(pem_of(d, 44), ed, "Ed25519 DER built by hand");
    d[44] = 0x00;
    refused_der(d, 45, "bytes after the key's SEQUENCE", "Ed25519, a zero byte after the DER");
    d[45] = 0x00;
    refused_der(d, 46, "bytes after the key's SEQUENCE", "Ed25519, two bytes after the DER");
    d[44] = 0x30, d[45] = 0x00;
    refused_der(d, 46, "bytes after the key's SEQUENCE", "Ed25519, an empty SEQUENCE after");
    refused_der(d, 43, "past the end", "Ed25519, one byte short");
    refused_der(d, 12, "past the end", "Ed25519, the header alone");
    /* non-minimal and indefinite lengths, each place */
    {
        unsigned char e[128];
        /* outer length 30 81 2a */
        e[0] = 0x30, e[1] = 0x81, e[2] = 0x2a;
        memcpy(e + 3, d + 2, 42);
        refused_der(e, 45, "long-form length under 128", "Ed25519, outer length 81 2a");
        e[1] = 0x82, e[2] = 0x00, e[3] = 0x2a;
        memcpy(e + 4, d + 2, 42);
        refused_der(e, 46, "leading zero", "Ed25519, outer length 82 00 2a");
        e[1] = 0x83, e[2] = 0x00, e[3] = 0x00, e[4] = 0x2a;
        memcpy(e + 5, d + 2, 42);
        refused_der(e, 47, "more than two bytes", "Ed25519, outer length 83 00 00 2a");
        e[1] = 0x80;
        memcpy(e + 2, d + 2, 42);
        e[44] = 0x00, e[45] = 0x00;
        refused_der(e, 46, "indefinite length", "Ed25519, outer length indefinite (BER)");
        /* AlgorithmIdentifier 30 81 05 */
        e[0] = 0x30, e[1] = 0x2b, e[2] = 0x30, e[3] = 0x81, e[4] = 0x05;
        memcpy(e + 5, d + 4, 40);
        refused_der(e, 45, "long-form length under 128", "Ed25519, AlgorithmIdentifier 81 05");
        e[3] = 0x80;
        memcpy(e + 4, d + 4, 5);
        e[9] = 0x00, e[10] = 0x00;
        memcpy(e + 11, d + 9, 35);
        e[1] = 0x2c;
        refused_der(e, 46, "indefinite length", "Ed25519, AlgorithmIdentifier indefinite");
        /* OID 06 81 03 */
        e[0] = 0x30, e[1] = 0x2b, e[2] = 0x30, e[3] = 0x06, e[4] = 0x06, e[5] = 0x81, e[6] = 0x03;
        memcpy(e + 7, d + 6, 38);
        refused_der(e, 45, "long-form length under 128", "Ed25519, OID length 81 03");
        /* BIT STRING 03 81 21 */
        memcpy(e, d, 9);
        e[1] = 0x2b, e[9] = 0x03, e[10] = 0x81, e[11] = 0x21;
        memcpy(e + 12, d + 11, 33);
        refused_der(e, 45, "long-form length under 128", "Ed25519, BIT STRING length 81 21");
        /* tags: SET for SEQUENCE, OCTET STRING for BIT STRING, a multi-byte tag */
        memcpy(e, d, 44);
        e[0] = 0x31;
        refused_der(e, 44, "not a SubjectPublicKeyInfo SEQUENCE", "Ed25519, a SET outside");
        memcpy(e, d, 44);
        e[9] = 0x04;
        refused_der(e, 44, "BIT STRING", "Ed25519, an OCTET STRING for the BIT STRING");
        memcpy(e, d, 44);
        e[2] = 0x31;
        refused_der(e, 44, "BIT STRING", "Ed25519, a SET for the AlgorithmIdentifier");
        memcpy(e, d, 44);
        e[4] = 0x04;
        refused_der(e, 44, "without an OID", "Ed25519, an OCTET STRING for the OID");
        memcpy(e, d, 44);
        e[0] = 0x3f;
        refused_der(e, 44, "multi-byte tag", "a multi-byte tag outside");
        /* parameters: NULL (what RFC 8410 forbids), an empty SEQUENCE, an OID */
        e[0] = 0x30, e[1] = 0x2c, e[2] = 0x30, e[3] = 0x07;
        memcpy(e + 4, d + 4, 5);
        e[9] = 0x05, e[10] = 0x00;
        memcpy(e + 11, d + 9, 35);
        refused_der(e, 46, "with parameters", "Ed25519 with NULL parameters");
        e[9] = 0x30;
        refused_der(e, 46, "with parameters", "Ed25519 with an empty SEQUENCE as parameters");
        /* unused bits, 31 and 33 bytes, a trailing element in the SEQUENCE */
        memcpy(e, d, 44);
        e[11] = 0x01;
        refused_der(e, 44, "unused bits", "Ed25519, BIT STRING with an unused bit");
        e[11] = 0x07;
        refused_der(e, 44, "unused bits", "Ed25519, BIT STRING with 7 unused bits");
        memcpy(e, d, 44);
        e[1] = 0x29, e[10] = 0x20;
        refused_der(e, 43, "not 32 bytes", "Ed25519, a 31-byte key");
        memcpy(e, d, 44);
        e[1] = 0x2b, e[10] = 0x22, e[44] = 0x00;
        refused_der(e, 45, "not 32 bytes", "Ed25519, a 33-byte key");
        memcpy(e, d, 44);
        e[1] = 0x2c, e[44] = 0x05, e[45] = 0x00;
        refused_der(e, 46, "bytes after the key's BIT STRING", "Ed25519, a NULL after the key");
        memcpy(e, d, 44);
        e[1] = 0x0a, e[9] = 0x03, e[10] = 0x01, e[11] = 0x00;
        refused_der(e, 12, "not 32 bytes", "Ed25519, an empty key");
        e[1] = 0x09, e[10] = 0x00;
        refused_der(e, 11, "unused bits", "Ed25519, an empty BIT STRING");
    }
}

/* The point of key (uncompressed, 65 bytes) into pt. */
static int point_of(EVP_PKEY *key, unsigned char pt[65])
{
    size_t n = 0;
    return EVP_PKEY_get_octet_string_param(key, OSSL_PKEY_PARAM_PUB_KEY, pt, 65, &n) == 1 &&
           n == 65 && pt[0] == 0x04;
}

static void der_p256(EVP_PKEY *key, int *seen)
{
    unsigned char pt[65], c[33], d[128], e[160], zero[65];
    size_t n;
    char name[96];

    if (!ok(point_of(key, pt), "P-256 point"))
        return;
    n = spki(d, ec_alg, sizeof ec_alg, pt, 65);
    accepted(pem_of(d, n), key, "P-256 DER built by hand");
    /* the compressed point: the same key, the keyid of the uncompressed one */
    c[0] = (unsigned char)(0x02 | (pt[64] & 1));
    memcpy(c + 1, pt + 1, 32);
    seen[c[0] & 1] = 1;
    snprintf(name, sizeof name, "P-256 compressed (0x%02x)", c[0]);
    accepted(pem_of(e, spki(e, ec_alg, sizeof ec_alg, c, 33)), key, name);
    {
        /* the other parity: another point, the same x; still on the curve, another key */
        bx_error err = {0};
        EVP_PKEY *k = NULL;
        char *pem;
        c[0] ^= 1;
        pem = pem_of(e, spki(e, ec_alg, sizeof ec_alg, c, 33));
        ok(bx_key_parse_public(pem, strlen(pem), &k, &err) == 0 && EVP_PKEY_eq(k, key) != 1,
           "P-256 compressed, the other parity: the point (x, -y), read, another key");
        EVP_PKEY_free(k);
        free(pem);
        c[0] ^= 1;
    }
    /* point forms */
    d[n - 65] = 0x06 | (pt[64] & 1);
    refused_der(d, n, "neither uncompressed", "P-256 hybrid point (0x06/0x07)");
    d[n - 65] = 0x05;
    refused_der(d, n, "neither uncompressed", "P-256 point with prefix 0x05");
    d[n - 65] = 0x04;
    refused_der(e, spki(e, ec_alg, sizeof ec_alg, pt, 64), "neither uncompressed",
                "P-256 point of 64 bytes");
    refused_der(e, spki(e, ec_alg, sizeof ec_alg, pt + 1, 64), "neither uncompressed",
                "P-256 point with no prefix");
    refused_der(e, spki(e, ec_alg, sizeof ec_alg, c, 32), "neither uncompressed",
                "P-256 compressed point of 32 bytes");
    c[0] = 0x04;
    refused_der(e, spki(e, ec_alg, sizeof ec_alg, c, 33), "neither uncompressed",
                "P-256 33 bytes with prefix 0x04");
    c[0] = 0x02 | (pt[64] & 1);
    refused_der(e, spki(e, ec_alg, sizeof ec_alg, (const unsigned char *)"\x00", 1),
                "neither uncompressed", "P-256 point at infinity (0x00)");
    refused_der(e, spki(e, ec_alg, sizeof ec_alg, pt, 0), "neither uncompressed",
                "P-256 empty point");
    /* off the curve */
    pt[64] ^= 0x01;
    refused_der(e, spki(e, ec_alg, sizeof ec_alg, pt, 65), "not on the curve",
                "P-256 point with y changed");
    pt[64] ^= 0x01;
    pt[1] ^= 0x80;
    refused_der(e, spki(e, ec_alg, sizeof ec_alg, pt, 65), "not on the curve",
                "P-256 point with x changed");
    pt[1] ^= 0x80;
    memset(zero, 0, sizeof zero);
    zero[0] = 0x04;
    refused_der(d, spki(d, ec_alg, sizeof ec_alg, zero, 65), "not on the curve",
                "P-256 point (0, 0)");
    /* trailing bytes, non-minimal lengths */
    n = spki(d, ec_alg, sizeof ec_alg, pt, 65);
    d[n] = 0x00;
    refused_der(d, n + 1, "bytes after the key's SEQUENCE", "P-256, a byte after the DER");
    memmove(d + 2, d + 1, n - 1 + 1);
    d[1] = 0x82, d[2] = 0x00;
    refused_der(d, n + 1, "leading zero", "P-256, outer length 82 00 59");
}

/* An SPKI with id-ecPublicKey and params[pn] for the curve, and the point pt[65]. */
static void ec_params(const unsigned char *params, size_t pn, const unsigned char pt[65],
                      const char *want, const char *name)
{
    unsigned char alg[256], d[512];
    size_t an = 0;
    alg[an++] = 0x30;
    alg[an++] = (unsigned char)(9 + pn);
    memcpy(alg + an, ec_alg + 2, 9); /* the OID id-ecPublicKey */
    an += 9;
    memcpy(alg + an, params, pn);
    an += pn;
    refused_der(d, spki(d, alg, an, pt, 65), want, name);
}

static void curves(EVP_PKEY *p256)
{
    unsigned char pt[65];
    static const struct {
        const char *type, *curve, *want, *name;
    } others[] = {
        {"EC", "P-384", "curve other than P-256", "a P-384 key"},
        {"EC", "P-521", "curve other than P-256", "a P-521 key"},
        {"EC", "secp256k1", "curve other than P-256", "a secp256k1 key"},
        {"EC", "brainpoolP256r1", "curve other than P-256", "a brainpoolP256r1 key"},
        {"EC", "P-224", "curve other than P-256", "a P-224 key"},
        {"RSA", NULL, "an RSA key", "an RSA key"},
        {"X25519", NULL, "an X25519 key", "an X25519 key"},
        {"X448", NULL, "an X448 key", "an X448 key"},
        {"ED448", NULL, "an Ed448 key", "an Ed448 key"},
    };

    for (size_t i = 0; i < sizeof others / sizeof others[0]; i++) {
        EVP_PKEY *k = gen(others[i].type, others[i].curve);
        size_t n = 0;
        unsigned char *der = k ? der_of(k, &n) : NULL;
        if (!ok(k != NULL, "%s made", others[i].name))
            continue;
        refused_der(der, n, others[i].want, others[i].name);
        OPENSSL_free(der);
        EVP_PKEY_free(k);
    }
    if (!ok(point_of(p256, pt), "P-256 point"))
        return;
    /* P-256 itself with explicit parameters, as OpenSSL writes them when asked */
    {
        EVP_PKEY *k = EVP_PKEY_dup(p256);
        size_t n = 0;
        unsigned char *der = NULL;
        EVP_PKEY *ossl = NULL;
        if (k &&
            EVP_PKEY_set_utf8_string_param(k, OSSL_PKEY_PARAM_EC_ENCODING,
                                           OSSL_PKEY_EC_ENCODING_EXPLICIT) == 1 &&
            (der = der_of(k, &n)) != NULL) {
            const unsigned char *p = der;
            ossl = d2i_PUBKEY(NULL, &p, (long)n);
            ok(ossl && EVP_PKEY_eq(ossl, p256) == 1,
               "OpenSSL's own d2i_PUBKEY takes P-256 with explicit parameters");
            refused_der(der, n, "explicit curve parameters", "P-256 with explicit parameters");
        } else {
            ok(0, "P-256 with explicit parameters made");
        }
        ERR_clear_error();
        EVP_PKEY_free(ossl);
        OPENSSL_free(der);
        EVP_PKEY_free(k);
    }
    ec_params((const unsigned char *)"\x30\x00", 2, pt, "explicit curve parameters",
              "an EC key with an empty SEQUENCE as parameters");
    ec_params((const unsigned char *)"\x05\x00", 2, pt, "curve other than P-256",
              "an EC key with implicitlyCA (NULL) parameters");
    ec_params((const unsigned char *)"", 0, pt, "no curve", "an EC key with no parameters");
    ec_params((const unsigned char *)"\x06\x05\x2b\x81\x04\x00\x22", 7, pt,
              "curve other than P-256", "P-256's point under the name of P-384");
    ec_params((const unsigned char *)"\x06\x08\x2a\x86\x48\xce\x3d\x03\x01\x07\x05\x00", 12, pt,
              "bytes after the curve", "prime256v1 followed by a NULL");
    ec_params((const unsigned char *)"\x06\x81\x08\x2a\x86\x48\xce\x3d\x03\x01\x07", 11, pt,
              "long-form length under 128", "prime256v1 with a long-form length");
    ec_params((const unsigned char *)"\x06\x09\x2a\x86\x48\xce\x3d\x03\x01\x07\x00", 11, pt,
              "curve other than P-256", "prime256v1's OID with a byte more");
    {
        /* unknown algorithms */
        unsigned char d[128];
        static const unsigned char unknown[] = {0x30, 0x05, 0x06, 0x03, 0x2a, 0x03, 0x04};
        refused_der(d, spki(d, unknown, sizeof unknown, pt, 65), "unknown algorithm",
                    "OID 1.2.3.4");
        static const unsigned char ed_like[] = {0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x72};
        refused_der(d, spki(d, ed_like, sizeof ed_like, pt + 1, 32), "unknown algorithm",
                    "OID 1.3.101.114 (not Ed25519)");
    }
}

/* x >= p for a compressed point: x - p is the x of a point, so reducing it would give a key */
static void coordinate_past_p(void)
{
    BIGNUM *p = NULL, *x = BN_new(), *xp = BN_new();
    EC_GROUP *g = EC_GROUP_new_by_curve_name(NID_X9_62_prime256v1);
    EC_POINT *pt = g ? EC_POINT_new(g) : NULL;
    unsigned char c[33], d[128];
    int found = 0;

    if (!ok(g && pt && x && xp && (p = BN_new()) && EC_GROUP_get_curve(g, p, NULL, NULL, NULL),
            "P-256's p"))
        goto out;
    for (unsigned long v = 1; v < 64 && !found; v++) {
        BN_set_word(x, v);
        if (EC_POINT_set_compressed_coordinates(g, pt, x, 0, NULL) == 1)
            found = 1;
        ERR_clear_error();
    }
    if (!ok(found, "a small x on the curve"))
        goto out;
    BN_add(xp, x, p);
    c[0] = 0x02;
    if (!ok(BN_bn2binpad(xp, c + 1, 32) == 32, "x + p fits in 32 bytes"))
        goto out;
    refused_der(d, spki(d, ec_alg, sizeof ec_alg, c, 33), "not on the curve",
                "P-256 compressed, x + p for a valid x");
    BN_bn2binpad(p, c + 1, 32);
    refused_der(d, spki(d, ec_alg, sizeof ec_alg, c, 33), "not on the curve",
                "P-256 compressed, x = p");
    memset(c + 1, 0xff, 32);
    refused_der(d, spki(d, ec_alg, sizeof ec_alg, c, 33), "not on the curve",
                "P-256 compressed, x = 2^256 - 1");
    /* an x with no y */
    found = 0;
    for (unsigned long v = 1; v < 64 && !found; v++) {
        BN_set_word(x, v);
        if (EC_POINT_set_compressed_coordinates(g, pt, x, 0, NULL) != 1) {
            found = 1;
            memset(c, 0, sizeof c);
            c[0] = 0x03;
            BN_bn2binpad(x, c + 1, 32);
        }
        ERR_clear_error();
    }
    if (ok(found, "an x with no point"))
        refused_der(d, spki(d, ec_alg, sizeof ec_alg, c, 33), "not on the curve",
                    "P-256 compressed, an x with no point");
out:
    BN_free(p);
    BN_free(x);
    BN_free(xp);
    EC_POINT_free(pt);
    EC_GROUP_free(g);
}

/* The file reader: the same refusals, named with the file. */
static void files(EVP_PKEY *ed)
{
    char path[] = "keys-strict-XXXXXX", *pem = NULL, *pk = NULL;
    bx_error err = {0};
    EVP_PKEY *k = NULL;
    int fd = mkstemp(path);
    FILE *f;

    if (!ok(fd >= 0 && bx_key_public_pem(ed, &pem, &err) == 0 &&
                bx_key_private_pem(ed, NULL, &pk, &err) == 0,
            "a key file"))
        goto out;
    f = fdopen(fd, "w");
    fprintf(f, "%s%s", pem, pem);
    fclose(f);
    is_int(bx_key_load_public(path, &k, &err), BX_ECONFIG, "a file of two blocks: refused");
    ok(strcmp(err.where, path) == 0 && strstr(err.msg, "second PEM block"),
       "the error names the file (%s: %s)", err.where, err.msg);
    f = fopen(path, "w");
    fprintf(f, "%s", pk);
    fclose(f);
    is_int(bx_key_load_public(path, &k, &err), BX_ECONFIG, "a private key file: refused");
    ok(strcmp(err.where, path) == 0 && strstr(err.msg, "private key"),
       "the error names the file and says private key (%s)", err.msg);
    f = fopen(path, "w");
    fprintf(f, "%s", pem);
    fclose(f);
    ok(bx_key_load_public(path, &k, &err) == 0 && EVP_PKEY_eq(k, ed) == 1, "the key alone: read");
out:
    EVP_PKEY_free(k);
    if (fd >= 0)
        unlink(path);
    free(pem);
    free(pk);
}

/* A private key file of mode 0600 holding text: read with pass, or refused saying want. */
static void private_file(const char *text, const char *pass, EVP_PKEY *ref, const char *want,
                         const char *name)
{
    char path[] = "keys-strict-priv-XXXXXX";
    bx_error err = {0};
    EVP_PKEY *k = NULL;
    int fd = mkstemp(path), rc;
    FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;

    if (!ok(f != NULL, "%s: a file", name))
        return;
    fputs(text, f);
    fclose(f);
    rc = bx_key_load_private(path, pass, &k, &err);
    if (!want) {
        if (!ok(rc == 0 && EVP_PKEY_eq(k, ref) == 1, "%s: read", name))
            printf("#   %s\n", err.msg);
    } else {
        ok(rc == BX_ECONFIG && !k, "%s: refused", name);
        if (!ok(strstr(err.msg, want) && strcmp(err.where, path) == 0,
                "%s: names the file, says '%s'", name, want))
            printf("#   %s: %s\n", err.where, err.msg);
    }
    EVP_PKEY_free(k);
    unlink(path);
}

/* Private keys (sign, collect) are one PKCS#8 block too, nothing around it. */
static void private_keys(EVP_PKEY *key, const char *kind)
{
    bx_error err = {0};
    char *pk = NULL, *epk = NULL, *pub = NULL, *t, name[96];

    if (!ok(bx_key_private_pem(key, NULL, &pk, &err) == 0 &&
                bx_key_private_pem(key, "correct horse", &epk, &err) == 0 &&
                bx_key_public_pem(key, &pub, &err) == 0,
            "%s: PEM", kind))
        goto out;
#define PNAME(...) (snprintf(name, sizeof name, __VA_ARGS__), name)
    private_file(pk, NULL, key, NULL, PNAME("%s private key as written", kind));
    private_file(epk, "correct horse", key, NULL, PNAME("%s encrypted private key", kind));
    t = fmt("%.*s", (int)strlen(pk) - 1, pk);
    private_file(t, NULL, key, NULL, PNAME("%s private key, no line end after END", kind));
    free(t);
    {
        char *c = malloc(strlen(pk) * 2 + 1), *o = c;
        for (const char *x = pk; *x; x++) {
            if (*x == '\n')
                *o++ = '\r';
            *o++ = *x;
        }
        *o = '\0';
        private_file(c, NULL, key, NULL, PNAME("%s private key, CRLF", kind));
        free(c);
    }
    t = fmt("my key\n%s", pk);
    private_file(t, NULL, key, "text before", PNAME("%s private key after a comment", kind));
    free(t);
    t = fmt("%s# the end\n", pk);
    private_file(t, NULL, key, "text after", PNAME("%s private key, text after", kind));
    free(t);
    t = fmt("%s%s", pk, pk);
    private_file(t, NULL, key, "second PEM block", PNAME("%s private key twice", kind));
    free(t);
    t = fmt("%s%s", pk, pub);
    private_file(t, NULL, key, "second PEM block",
                 PNAME("%s private key, then its public key", kind));
    free(t);
    t = fmt("my key\n%s", epk);
    private_file(t, "correct horse", key, "text before",
                 PNAME("%s encrypted private key after a comment", kind));
    free(t);
    private_file(pub, NULL, key, "labelled 'PUBLIC KEY'", PNAME("%s public key as private", kind));
    {
        char *body = strstr(pk, "\n") + 1, *endl = strstr(pk, "-----END");
        t = fmt("-----BEGIN EC PRIVATE KEY-----\n%.*s-----END EC PRIVATE KEY-----\n",
                (int)(endl - body), body);
        private_file(t, NULL, key, "labelled 'EC PRIVATE KEY'",
                     PNAME("%s PKCS#8 under a SEC1 label", kind));
        free(t);
        /* one long line of base64 */
        char *flat = malloc(strlen(pk) + 1), *o = flat;
        for (const char *x = body; x < endl; x++)
            if (*x != '\n')
                *o++ = *x;
        *o = '\0';
        if (strlen(flat) > 64) {
            t = fmt("-----BEGIN PRIVATE KEY-----\n%s\n-----END PRIVATE KEY-----\n", flat);
            private_file(t, NULL, key, "lines of 64", PNAME("%s private key on one line", kind));
            free(t);
        }
        free(flat);
    }
#undef PNAME
out:
    free(pk);
    free(epk);
    free(pub);
}

int main(void)
{
    int seen[2] = {0, 0};

    for (int i = 0; i < 3; i++) {
        EVP_PKEY *ed = gen("ED25519", NULL), *ec = gen("EC", "P-256");
        if (!ok(ed && ec, "keys made"))
            return tap_done();
        framing(ed, "Ed25519");
        framing(ec, "P-256");
        der_ed25519(ed);
        der_p256(ec, seen);
        if (i == 0) {
            private_keys(ed, "Ed25519");
            private_keys(ec, "P-256");
            labels(ed);
            curves(ec);
            files(ed);
        }
        EVP_PKEY_free(ed);
        EVP_PKEY_free(ec);
    }
    /* both parities of compressed points */
    for (int i = 0; i < 32 && !(seen[0] && seen[1]); i++) {
        EVP_PKEY *ec = gen("EC", "P-256");
        der_p256(ec, seen);
        EVP_PKEY_free(ec);
    }
    ok(seen[0] && seen[1], "compressed points with 0x02 and with 0x03 read");
    coordinate_past_p();
    return tap_done();
}
