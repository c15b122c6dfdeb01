/* SPDX-License-Identifier: Apache-2.0 */
/* Ed25519 keys and signatures that verify too much: a public key A or a signature's R of
 * small order, or not canonically encoded, is refused -- A when the key is read (with LF and
 * with CRLF line ends), R when a signature is checked. Then the 12 vectors of "Taming the many EdDSAs" (fixtures/vectors/ed25519-speccheck):
 * only vector 3 (mixed order, out of scope) verifies, as with libsodium. */
#include "bx_common.h"
#include "tap.h"

#include <openssl/err.h>
#include <openssl/evp.h>
#include <stdio.h>
#include <string.h>

static const unsigned char spki_prefix[12] = {0x30, 0x2a, 0x30, 0x05, 0x06, 0x03,
                                              0x2b, 0x65, 0x70, 0x03, 0x21, 0x00};

static void unhex(const char *s, unsigned char *out, size_t n)
{
    bx_error e;
    if (bx_hex_decode(s, out, n, &e) != 0)
        memset(out, 0, n);
}

/* A PUBLIC KEY block for the 32 bytes a; with CRLF line ends when crlf. */
static char *pem_of(const unsigned char a[32], int crlf)
{
    unsigned char der[44];
    char b64[80], *out = NULL;
    memcpy(der, spki_prefix, sizeof spki_prefix);
    memcpy(der + sizeof spki_prefix, a, 32);
    EVP_EncodeBlock((unsigned char *)b64, der, sizeof der);
    const char *e = crlf ? "\r\n" : "\n";
    if (asprintf(&out, "-----BEGIN PUBLIC KEY-----%s%s%s-----END PUBLIC KEY-----%s", e, b64, e,
                 e) < 0)
        return NULL;
    return out;
}

/* rc of reading a as a public key, both ways; *why gets the message */
static int read_key(const unsigned char a[32], int slow, EVP_PKEY **k, char *why, size_t n)
{
    bx_error err = {0};
    char *pem = pem_of(a, slow);
    int rc = pem ? bx_key_parse_public(pem, strlen(pem), k, &err) : -1;
    snprintf(why, n, "%s", err.msg);
    free(pem);
    return rc;
}

static void refused_key(const unsigned char a[32], const char *name, const char *reason)
{
    for (int slow = 0; slow < 2; slow++) {
        EVP_PKEY *k = NULL;
        char why[256];
        int rc = read_key(a, slow, &k, why, sizeof why);
        ok(rc == BX_ECONFIG && !k, "%s (%s): refused", name, slow ? "CRLF" : "LF");
        ok(strstr(why, reason) != NULL, "%s: the message says %s (%s)", name, reason, why);
        EVP_PKEY_free(k);
    }
}

/* The y values of the points of small order, and the non-canonical forms. */
static void blocklist(void)
{
    static const char *small[] = {
        "0000000000000000000000000000000000000000000000000000000000000000",
        "0100000000000000000000000000000000000000000000000000000000000000",
        "26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc05",
        "c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a",
        "ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",
    };
    static const char *noncanonical[] = {
        "edffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f", /* p: 0 */
        "eeffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f", /* p + 1: 1 */
        "efffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f", /* p + 2 */
        "ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f", /* 2^255 - 1 */
    };
    unsigned char a[32];
    char name[96];
    for (size_t i = 0; i < sizeof small / sizeof small[0]; i++)
        for (int sign = 0; sign < 2; sign++) {
            unhex(small[i], a, 32);
            a[31] |= (unsigned char)(sign << 7);
            snprintf(name, sizeof name, "small order y=%.8s..., sign bit %d", small[i], sign);
            ok(bx_ed25519_point_refused(a) != NULL, "%s: a refused point", name);
            refused_key(a, name, "small order");
        }
    for (size_t i = 0; i < sizeof noncanonical / sizeof noncanonical[0]; i++)
        for (int sign = 0; sign < 2; sign++) {
            unhex(noncanonical[i], a, 32);
            a[31] |= (unsigned char)(sign << 7);
            snprintf(name, sizeof name, "y=%.8s...7f (>= p), sign bit %d", noncanonical[i], sign);
            ok(bx_ed25519_point_refused(a) != NULL, "%s: a refused point", name);
            refused_key(a, name, "y >= p");
        }
    /* the largest canonical y, p - 2 (not a point: left to OpenSSL), and values next to the
     * blocked ones are not refused by the blocklist */
    unhex("ebffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f", a, 32);
    ok(bx_ed25519_point_refused(a) == NULL, "y = p - 2: not blocked (canonical, not small)");
    unhex("0200000000000000000000000000000000000000000000000000000000000000", a, 32);
    ok(bx_ed25519_point_refused(a) == NULL, "y = 2: not blocked");
    unhex("c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037b", a, 32);
    ok(bx_ed25519_point_refused(a) == NULL, "an order-8 y plus 2^248: not blocked");
}

/* The attack the check closes: A = the identity, R = the identity, S = 0 verifies any
 * payload under the bare equation. Even with a key made without the readers, the R check
 * refuses the signature. */
static void identity_forgery(void)
{
    unsigned char id[32] = {1}, sig[64] = {1};
    bx_error err = {0};
    EVP_PKEY *k = EVP_PKEY_new_raw_public_key(EVP_PKEY_ED25519, NULL, id, 32);
    EVP_MD_CTX *ctx = EVP_MD_CTX_new();
    const char *msgs[] = {"any payload", "another payload"};
    if (!ok(k && ctx, "an identity key made directly"))
        goto out;
    for (int i = 0; i < 2; i++) {
        int openssl = EVP_DigestVerifyInit(ctx, NULL, NULL, NULL, k) == 1 &&
                      EVP_DigestVerify(ctx, sig, 64, (const unsigned char *)msgs[i],
                                       strlen(msgs[i])) == 1;
        printf("# OpenSSL alone %s the fixed signature on \"%s\"\n",
               openssl ? "accepts" : "refuses", msgs[i]);
        ERR_clear_error();
        int rc = bx_verify_sig(k, BX_SIGENC_DER, msgs[i], strlen(msgs[i]), sig, 64, &err);
        ok(rc == BX_ESIG && strstr(err.msg, "R is a point of small order"),
           "the fixed signature on \"%s\" is refused for its R (%s)", msgs[i], err.msg);
    }
out:
    EVP_MD_CTX_free(ctx);
    EVP_PKEY_free(k);
    ERR_clear_error();
}

/* A real key still works, and a signature of it whose R is replaced by a small-order point
 * is refused for that reason, not merely because it does not verify. */
static void real_key(void)
{
    bx_error err = {0};
    EVP_PKEY *k = NULL, *pub = NULL;
    unsigned char *sig = NULL, raw[32];
    size_t siglen = 0, n = sizeof raw;
    char why[256];
    const char *msg = "a statement";
    if (!ok(bx_key_generate(BX_ALG_ED25519, &k, &err) == 0, "a fresh key"))
        return;
    ok(EVP_PKEY_get_raw_public_key(k, raw, &n) == 1 && bx_ed25519_point_refused(raw) == NULL,
       "its public key is not refused");
    ok(read_key(raw, 0, &pub, why, sizeof why) == 0 && pub, "it reads (LF)");
    EVP_PKEY_free(pub);
    pub = NULL;
    ok(read_key(raw, 1, &pub, why, sizeof why) == 0 && pub, "it reads (CRLF)");
    if (ok(bx_sign(k, msg, strlen(msg), &sig, &siglen, &err) == 0 && siglen == 64, "a signature")) {
        ok(bx_verify_sig(pub, BX_SIGENC_DER, msg, strlen(msg), sig, siglen, &err) == 0,
           "it verifies");
        ok(bx_ed25519_point_refused(sig) == NULL, "its R is not refused");
        unsigned char bad[64];
        memcpy(bad, sig, 64);
        unhex("26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc85", bad, 32);
        ok(bx_verify_sig(pub, BX_SIGENC_DER, msg, strlen(msg), bad, 64, &err) == BX_ESIG &&
               strstr(err.msg, "small order"),
           "R replaced by an order-8 point: refused for it (%s)", err.msg);
    }
    OPENSSL_free(sig);
    EVP_PKEY_free(pub);
    EVP_PKEY_free(k);
}

static void taming(void)
{
    char path[512], line[512];
    snprintf(path, sizeof path, "%s/fixtures/vectors/ed25519-speccheck/cases.txt",
             BOXCERT_SOURCE_DIR);
    FILE *f = fopen(path, "r");
    int count = 0, i = 0, accepted = 0;
    if (!ok(f && fgets(line, sizeof line, f) && sscanf(line, "%d", &count) == 1 && count == 12,
            "the 12 vectors load"))
        goto out;
    for (i = 0; i < count; i++) {
        char m[80] = "", a[80] = "", s[160] = "";
        unsigned char msg[32], pk[32], sig[64];
        if (!fgets(line, sizeof line, f) || sscanf(line, "msg=%79s", m) != 1 ||
            !fgets(line, sizeof line, f) || sscanf(line, "pbk=%79s", a) != 1 ||
            !fgets(line, sizeof line, f) || sscanf(line, "sig=%159s", s) != 1 ||
            strlen(m) != 64 || strlen(a) != 64 || strlen(s) != 128)
            break;
        unhex(m, msg, 32);
        unhex(a, pk, 32);
        unhex(s, sig, 64);
        EVP_PKEY *k = NULL;
        bx_error err = {0};
        char why[256] = "";
        int loaded = read_key(pk, 0, &k, why, sizeof why) == 0;
        int verified = loaded && bx_verify_sig(k, BX_SIGENC_DER, msg, 32, sig, 64, &err) == 0;
        /* 0, 1, 10, 11: A of small order (10 and 11 as the non-canonical -0 form) */
        int a_refused = i == 0 || i == 1 || i == 10 || i == 11;
        ok(loaded == !a_refused, "vector %d: the key is %s (%s)", i,
           a_refused ? "refused" : "read", loaded ? "read" : why);
        ok(verified == (i == 3), "vector %d: %s (%s)", i, i == 3 ? "verifies" : "does not verify",
           loaded ? err.msg : why);
        if (i == 2 || i == 8 || i == 9)
            ok(loaded && strstr(err.msg, "R is"), "vector %d: refused for its R (%s)", i,
               err.msg);
        accepted += verified;
        EVP_PKEY_free(k);
    }
    is_int(i, 12, "all 12 vectors read");
    is_int(accepted, 1, "one vector of 12 verifies (3: mixed order, out of scope)");
out:
    if (f)
        fclose(f);
}

int main(void)
{
    blocklist();
    identity_forgery();
    real_key();
    taming();
    return tap_done();
}
