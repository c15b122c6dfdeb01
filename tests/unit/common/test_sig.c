// SPDX-License-Identifier: Apache-2.0
/* Signatures and keys (common/keys.c): a signature verifies only over its message, by its
 * key, in the encoding asked for; the keyid is the SHA-256 of the key's SPKI DER; only
 * Ed25519 and P-256 are keys (not P-384, not X25519); a private key file is read only when
 * it is a regular file (no link) that no group or other may read. */
#include "bx_common.h"
#include "tap.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <openssl/ecdsa.h>
#include <openssl/pem.h>
#include <openssl/x509.h>

static const char msg[] = "DSSEv1 4 type 7 {\"a\":1}";

static void test_verify(bx_alg alg, const char *name)
{
    EVP_PKEY *k = NULL, *other = NULL;
    unsigned char *sig = NULL;
    size_t n = 0;
    bx_error e;

    if (!ok(bx_key_generate(alg, &k, &e) == 0 && bx_key_generate(alg, &other, &e) == 0 &&
                bx_sign(k, msg, sizeof msg - 1, &sig, &n, &e) == 0,
            "%s: keys and a signature", name))
        return;
    is_int(bx_verify_sig(k, BX_SIGENC_DER, msg, sizeof msg - 1, sig, n, &e), 0, "%s: verifies",
           name);
    is_int(bx_verify_sig(k, BX_SIGENC_DER, msg, sizeof msg - 2, sig, n, &e), BX_ESIG,
           "%s: not over another message", name);
    is_int(bx_verify_sig(other, BX_SIGENC_DER, msg, sizeof msg - 1, sig, n, &e), BX_ESIG,
           "%s: not by another key", name);
    sig[n / 2] ^= 0x10;
    is_int(bx_verify_sig(k, BX_SIGENC_DER, msg, sizeof msg - 1, sig, n, &e), BX_ESIG,
           "%s: not with a byte of it changed", name);
    sig[n / 2] ^= 0x10;

    if (alg == BX_ALG_ECDSA_P256) {
        /* the same signature as r||s */
        const unsigned char *p = sig;
        ECDSA_SIG *es = d2i_ECDSA_SIG(NULL, &p, (long)n);
        unsigned char raw[64];
        const BIGNUM *r = NULL, *s = NULL;
        if (ok(es != NULL, "%s: the DER parses", name)) {
            ECDSA_SIG_get0(es, &r, &s);
            BN_bn2binpad(r, raw, 32);
            BN_bn2binpad(s, raw + 32, 32);
            is_int(bx_verify_sig(k, BX_SIGENC_P1363, msg, sizeof msg - 1, raw, 64, &e), 0,
                   "%s: r||s verifies as p1363", name);
            is_int(bx_verify_sig(k, BX_SIGENC_DER, msg, sizeof msg - 1, raw, 64, &e), BX_ESIG,
                   "%s: r||s is not DER", name);
            is_int(bx_verify_sig(k, BX_SIGENC_P1363, msg, sizeof msg - 1, sig, n, &e), BX_ESIG,
                   "%s: DER is not p1363", name);
            raw[40] ^= 1;
            is_int(bx_verify_sig(k, BX_SIGENC_P1363, msg, sizeof msg - 1, raw, 64, &e), BX_ESIG,
                   "%s: r||s with a byte changed", name);
            ECDSA_SIG_free(es);
        }
    }

    /* the keyid: SHA-256 of the SPKI DER, for a key computed, for a key read from PEM */
    unsigned char *der = NULL;
    int dn = i2d_PUBKEY(k, &der);
    char want[65], got[65], *pem = NULL;
    EVP_PKEY *back = NULL;
    bx_sha256_hex(der, dn > 0 ? (size_t)dn : 0, want);
    OPENSSL_free(der);
    ok(bx_key_id(k, got, &e) == 0 && strcmp(got, want) == 0, "%s: keyid of a generated key", name);
    ok(bx_key_public_pem(k, &pem, &e) == 0 &&
           bx_key_parse_public(pem, strlen(pem), &back, &e) == 0 && bx_key_id(back, got, &e) == 0 &&
           strcmp(got, want) == 0,
       "%s: keyid of the key read back from its PEM", name);
    free(pem);
    EVP_PKEY_free(back);
    free(sig);
    EVP_PKEY_free(k);
    EVP_PKEY_free(other);
}

static char *pem_of(EVP_PKEY *k)
{
    BIO *b = BIO_new(BIO_s_mem());
    char *data = NULL, *out = NULL;
    long n;
    if (b && PEM_write_bio_PUBKEY(b, k) && (n = BIO_get_mem_data(b, &data)) > 0 &&
        (out = malloc((size_t)n + 1))) {
        memcpy(out, data, (size_t)n);
        out[n] = '\0';
    }
    BIO_free(b);
    return out;
}

/* Keys of other kinds are refused, however they are read. */
static void test_other_kinds(void)
{
    EVP_PKEY *p384 = EVP_PKEY_Q_keygen(NULL, NULL, "EC", "P-384");
    EVP_PKEY *x25519 = EVP_PKEY_Q_keygen(NULL, NULL, "X25519");
    EVP_PKEY *k = NULL;
    bx_error e;
    unsigned char sig[64] = {0};
    char *pem;

    if (!ok(p384 && x25519, "a P-384 and an X25519 key"))
        return;
    is_int(bx_key_alg(p384), 0, "P-384 is not a key algorithm here");
    is_int(bx_verify_sig(p384, BX_SIGENC_DER, msg, sizeof msg - 1, sig, sizeof sig, &e),
           BX_EUNSUPPORTED, "no signature verifies with a P-384 key");
    pem = pem_of(p384);
    is_int(bx_key_parse_public(pem, strlen(pem), &k, &e), BX_ECONFIG,
           "a P-384 public key is refused");
    free(pem);
    EVP_PKEY_free(k);
    k = NULL;
    pem = pem_of(x25519);
    is_int(bx_key_parse_public(pem, strlen(pem), &k, &e), BX_ECONFIG,
           "an X25519 public key (an SPKI as long as Ed25519's) is refused");
    free(pem);
    EVP_PKEY_free(k);
    EVP_PKEY_free(p384);
    EVP_PKEY_free(x25519);
}

static void test_private_file(void)
{
    char dir[256], path[300], link_path[300];
    const char *tmp = getenv("TMPDIR");
    EVP_PKEY *k = NULL, *back = NULL;
    bx_error e;
    char *pem = NULL;
    FILE *f;

    snprintf(dir, sizeof dir, "%s/boxcert-sig.XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!ok(mkdtemp(dir) && bx_key_generate(BX_ALG_ED25519, &k, &e) == 0 &&
                bx_key_private_pem(k, NULL, &pem, &e) == 0,
            "a private key"))
        return;
    snprintf(path, sizeof path, "%s/k.key", dir);
    snprintf(link_path, sizeof link_path, "%s/link.key", dir);
    if ((f = fopen(path, "w"))) {
        fputs(pem, f);
        fclose(f);
    }
    chmod(path, 0600);
    ok(bx_key_load_private(path, NULL, &back, &e) == 0 && EVP_PKEY_eq(back, k) == 1,
       "mode 0600: read");
    EVP_PKEY_free(back);
    back = NULL;
    chmod(path, 0640);
    is_int(bx_key_load_private(path, NULL, &back, &e), BX_ECONFIG,
           "readable by its group: refused");
    chmod(path, 0620);
    is_int(bx_key_load_private(path, NULL, &back, &e), BX_ECONFIG,
           "writable by its group: refused");
    chmod(path, 0604);
    is_int(bx_key_load_private(path, NULL, &back, &e), BX_ECONFIG, "readable by others: refused");
    chmod(path, 0600);
    ok(symlink(path, link_path) == 0, "a link to the key");
    is_int(bx_key_load_private(link_path, NULL, &back, &e), BX_ECONFIG, "a link is not followed");
    EVP_PKEY_free(back);
    unlink(link_path);
    unlink(path);
    rmdir(dir);
    free(pem);
    EVP_PKEY_free(k);
}

int main(void)
{
    test_verify(BX_ALG_ED25519, "Ed25519");
    test_verify(BX_ALG_ECDSA_P256, "P-256");
    test_other_kinds();
    test_private_file();
    return tap_done();
}
