/* SPDX-License-Identifier: Apache-2.0 */
/* DSSE: PAE, signing and verification with both algorithms, strict envelope parsing. */
#include "tap.h"
#include "bx_schema.h"

#include <string.h>

static void roundtrip(bx_alg alg, const char *name)
{
    bx_error e;
    EVP_PKEY *key = NULL;
    bx_envelope env = {0}, back = {0};
    char *ser = NULL, id1[65], id2[65];
    size_t len = 0;
    unsigned char *pae = NULL;
    size_t paelen = 0;

    ok_err(bx_key_generate(alg, &key, &e), &e, "%s: generate", name);
    env.payload_type = strdup(BX_PAYLOAD_TYPE);
    env.payload = (unsigned char *)strdup("{\"a\":1}");
    env.payload_len = 7;
    ok_err(bx_envelope_sign(&env, key, &e), &e, "%s: sign", name);
    ok_err(bx_envelope_serialize(&env, &ser, &len, &e), &e, "%s: serialize", name);
    ok_err(bx_envelope_parse(ser, len, &back, &e), &e, "%s: parse back", name);
    is_int(back.nsigs, 1, "%s: one signature", name);
    ok(back.payload_len == 7 && memcmp(back.payload, "{\"a\":1}", 7) == 0, "%s: payload intact", name);
    ok_err(bx_dsse_pae(back.payload_type, back.payload, back.payload_len, &pae, &paelen, &e), &e,
           "%s: pae", name);
    ok(back.nsigs == 1 && bx_verify_sig(key, BX_SIGENC_DER, pae, paelen, back.sigs[0].sig,
                                        back.sigs[0].siglen, &e) == 0,
       "%s: signature verifies", name);
    is_str(bx_envelope_id(&env, id1), bx_envelope_id(&back, id2), "%s: certificate id stable", name);
    char kid[65];
    ok(bx_key_id(key, kid, &e) == 0 && back.nsigs == 1 && back.sigs[0].keyid &&
           strcmp(kid, back.sigs[0].keyid) == 0,
       "%s: keyid hint is the key's id", name);
    if (alg == BX_ALG_ED25519)
        is_int(back.sigs[0].siglen, 64, "%s: raw 64-byte signature", name);
    free(pae);
    free(ser);
    bx_envelope_free(&env);
    bx_envelope_free(&back);
    EVP_PKEY_free(key);
}

static void refuse(const char *json, const char *what)
{
    bx_envelope env;
    bx_error e;
    int rc = bx_envelope_parse(json, strlen(json), &env, &e);
    ok(rc == BX_EINVAL, "refused: %s", what);
    if (rc == 0)
        bx_envelope_free(&env);
}

int main(void)
{
    bx_error e;
    unsigned char *pae = NULL;
    size_t paelen = 0;
    ok_err(bx_dsse_pae("t", (const unsigned char *)"", 0, &pae, &paelen, &e), &e, "pae of empty");
    ok(paelen == 13 && memcmp(pae, "DSSEv1 1 t 0 ", 13) == 0, "PAE of an empty body");
    free(pae);

    roundtrip(BX_ALG_ED25519, "ed25519");
    roundtrip(BX_ALG_ECDSA_P256, "p256");

    bx_envelope env;
    const char *good = "{\"payload\":\"e30=\",\"payloadType\":\"x\",\"signatures\":[{\"keyid\":\"\",\"sig\":\"AAAA\"}]}";
    ok_err(bx_envelope_parse(good, strlen(good), &env, &e), &e, "minimal envelope parses");
    ok(env.nsigs == 1 && env.sigs[0].keyid == NULL, "empty keyid means absent");
    bx_envelope_free(&env);
    const char *nosig = "{\"payload\":\"e30=\",\"payloadType\":\"x\",\"signatures\":[]}";
    ok_err(bx_envelope_parse(nosig, strlen(nosig), &env, &e), &e, "no signatures parses (rejected later)");
    bx_envelope_free(&env);

    refuse("{\"payload\":\"e30=\",\"payloadType\":\"x\",\"signatures\":[],\"extra\":1}", "unknown member");
    refuse("{\"payload\":\"e30\",\"payloadType\":\"x\",\"signatures\":[]}", "unpadded base64");
    refuse("{\"payload\":\"e31=\",\"payloadType\":\"x\",\"signatures\":[]}", "non-zero pad bits");
    refuse("{\"payload\":\"e30=\",\"payloadType\":\"x\",\"signatures\":[{\"sig\":\"AA-/\"}]}", "mixed alphabets");
    refuse("{\"payload\":\"e30=\",\"payloadType\":\"x\",\"signatures\":[{\"sig\":\"AAAA\",\"x\":1}]}", "unknown signature member");
    refuse("{\"payload\":\"e30=\",\"payloadType\":\"x\",\"signatures\":[{\"keyid\":\"a\"}]}", "signature without sig");
    refuse("{\"payload\":\"e30=\",\"payloadType\":\"x\"}", "no signatures member");
    refuse("{\"payload\":\"e30=\",\"payload\":\"e30=\",\"payloadType\":\"x\",\"signatures\":[]}", "duplicate key");
    refuse("{\"payload\":\"e30=\",\"payloadType\":\"x\",\"Signatures\":[],\"signatures\":[]}", "case-colliding keys");
    refuse("{\"payload\":\"e30=\",\"payloadType\":\"x\",\"signatures\":[]} x", "trailing bytes");
    refuse("[]", "not an object");
    refuse("{\"payload\":\"e30=\",\"payloadType\":\"x\\u0001\",\"signatures\":[]}", "control character in payloadType");
    refuse("{\"payload\":\"e3 0=\",\"payloadType\":\"x\",\"signatures\":[]}", "whitespace in base64");
    {
        char big[4096] = "{\"payload\":\"e30=\",\"payloadType\":\"x\",\"signatures\":[";
        for (int i = 0; i <= BX_ENVELOPE_MAX_SIGS; i++)
            strcat(big, i ? ",{\"sig\":\"AAAA\"}" : "{\"sig\":\"AAAA\"}");
        strcat(big, "]}");
        refuse(big, "more signatures than the cap");
    }
    const char *url = "{\"payload\":\"e30=\",\"payloadType\":\"x\",\"signatures\":[{\"sig\":\"_-8=\"}]}";
    ok_err(bx_envelope_parse(url, strlen(url), &env, &e), &e, "URL-safe base64 accepted");
    ok(env.nsigs == 1 && env.sigs[0].siglen == 2 && env.sigs[0].sig[0] == 0xff && env.sigs[0].sig[1] == 0xef,
       "URL-safe decoded");
    bx_envelope_free(&env);
    return tap_done();
}
