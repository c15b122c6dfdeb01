/* SPDX-License-Identifier: Apache-2.0 */
/* Outside vectors through the project's own signature and DSSE code: Wycheproof
 * Ed25519, ECDSA P-256 (DER and P1363), and the DSSE specification's example. */
#include "tap.h"
#include "bx_schema.h"

#include <string.h>

static json_t *load(const char *rel)
{
    char path[512];
    json_error_t je;
    snprintf(path, sizeof path, "%s/fixtures/vectors/%s", BOXCERT_SOURCE_DIR, rel);
    json_t *j = json_load_file(path, 0, &je);
    if (!j)
        printf("# cannot load %s: %s\n", path, je.text);
    return j;
}

static unsigned char *unhex(const char *s, size_t *len)
{
    size_t n = strlen(s) / 2;
    unsigned char *b = malloc(n ? n : 1);
    bx_error e;
    if (b && bx_hex_decode(s, b, n, &e) != 0) {
        free(b);
        return NULL;
    }
    *len = n;
    return b;
}

static void wycheproof(const char *file, bx_sigenc enc)
{
    json_t *d = load(file);
    size_t gi, ti, valid_ok = 0, valid_n = 0, invalid_ok = 0, invalid_n = 0;
    json_t *g, *t;
    if (!ok(d != NULL, "%s loads", file))
        return;
    json_array_foreach(json_object_get(d, "testGroups"), gi, g) {
        EVP_PKEY *key = NULL;
        bx_error e;
        const char *pem = json_string_value(json_object_get(g, "publicKeyPem"));
        if (bx_key_parse_public(pem, strlen(pem), &key, &e) != 0) {
            /* A key we refuse cannot accept anything: every test in it must be invalid. */
            json_array_foreach(json_object_get(g, "tests"), ti, t) {
                int valid = strcmp(json_string_value(json_object_get(t, "result")), "valid") == 0;
                valid_n += valid;
                invalid_n += !valid;
                invalid_ok += !valid;
            }
            continue;
        }
        json_array_foreach(json_object_get(g, "tests"), ti, t) {
            size_t mlen = 0, slen = 0;
            unsigned char *msg = unhex(json_string_value(json_object_get(t, "msg")), &mlen);
            unsigned char *sig = unhex(json_string_value(json_object_get(t, "sig")), &slen);
            int valid = strcmp(json_string_value(json_object_get(t, "result")), "valid") == 0;
            int accepted = msg && sig && bx_verify_sig(key, enc, msg, mlen, sig, slen, &e) == 0;
            if (valid) {
                valid_n++;
                valid_ok += accepted;
                if (!accepted)
                    printf("# %s tcId %lld valid but rejected: %s\n", file,
                           json_integer_value(json_object_get(t, "tcId")), e.msg);
            } else {
                invalid_n++;
                invalid_ok += !accepted;
                if (accepted)
                    printf("# %s tcId %lld invalid but accepted\n", file,
                           json_integer_value(json_object_get(t, "tcId")));
            }
            free(msg);
            free(sig);
        }
        EVP_PKEY_free(key);
    }
    ok(valid_n > 0 && valid_ok == valid_n, "%s: every valid accepted (%zu/%zu)", file, valid_ok,
       valid_n);
    ok(invalid_n > 0 && invalid_ok == invalid_n, "%s: every invalid rejected (%zu/%zu)", file,
       invalid_ok, invalid_n);
    json_decref(d);
}

static void dsse_example(void)
{
    json_t *d = load("dsse/spec_p256_p1363_example.json");
    bx_error e;
    EVP_PKEY *key = NULL;
    unsigned char *pae = NULL;
    size_t paelen = 0;
    bx_envelope env = {0};
    char *envjson = NULL, keyid[65];
    if (!ok(d != NULL, "DSSE example loads"))
        return;
    const char *type = json_string_value(json_object_get(d, "payloadType"));
    const char *body = json_string_value(json_object_get(d, "payload_utf8"));
    ok_err(bx_dsse_pae(type, (const unsigned char *)body, strlen(body), &pae, &paelen, &e), &e,
           "PAE");
    is_int(paelen, strlen(json_string_value(json_object_get(d, "pae_ascii"))), "PAE length");
    ok(pae && memcmp(pae, json_string_value(json_object_get(d, "pae_ascii")), paelen) == 0,
       "PAE bytes equal the spec's");
    json_t *k = json_object_get(d, "key");
    const char *pem = json_string_value(json_object_get(k, "publicKeyPem"));
    ok_err(bx_key_parse_public(pem, strlen(pem), &key, &e), &e, "spec key parses");
    ok_err(bx_key_id(key, keyid, &e), &e, "keyid");
    is_str(keyid, json_string_value(json_object_get(k, "spki_sha256_hex")), "keyid = spki sha256");
    envjson = json_dumps(json_object_get(d, "envelope"), JSON_COMPACT);
    ok_err(bx_envelope_parse(envjson, strlen(envjson), &env, &e), &e, "spec envelope parses");
    ok(env.nsigs == 1 && env.sigs[0].keyid == NULL, "one signature, no keyid");
    ok(env.nsigs == 1 && bx_verify_sig(key, BX_SIGENC_P1363, pae, paelen, env.sigs[0].sig,
                                       env.sigs[0].siglen, &e) == 0,
       "spec signature verifies as p1363");
    ok(env.nsigs == 1 && bx_verify_sig(key, BX_SIGENC_DER, pae, paelen, env.sigs[0].sig,
                                       env.sigs[0].siglen, &e) != 0,
       "the same signature is refused as DER");
    size_t dlen = 0;
    unsigned char *der = unhex(json_string_value(json_object_get(d, "signature_der_hex")), &dlen);
    ok(der && bx_verify_sig(key, BX_SIGENC_DER, pae, paelen, der, dlen, &e) == 0,
       "its DER form verifies as DER");
    pae[paelen - 1] ^= 1;
    ok(env.nsigs == 1 && bx_verify_sig(key, BX_SIGENC_P1363, pae, paelen, env.sigs[0].sig,
                                       env.sigs[0].siglen, &e) == BX_ESIG,
       "a changed message fails");
    free(der);
    free(pae);
    free(envjson);
    bx_envelope_free(&env);
    EVP_PKEY_free(key);
    json_decref(d);
}

int main(void)
{
    wycheproof("wycheproof/ed25519_test.json", BX_SIGENC_DER);
    wycheproof("wycheproof/ecdsa_secp256r1_sha256_test.json", BX_SIGENC_DER);
    wycheproof("wycheproof/ecdsa_secp256r1_sha256_p1363_test.json", BX_SIGENC_P1363);
    dsse_example();
    return tap_done();
}
