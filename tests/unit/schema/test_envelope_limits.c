/* SPDX-License-Identifier: Apache-2.0 */
/* A signer writes only what verify takes: bx_envelope_check_limits refuses an envelope over
 * BX_ENVELOPE_MAX_DEFAULT bytes (at the byte) or with more than BX_ENVELOPE_MAX_SIGS
 * signatures, and bx_certificate_encode (collect) refuses to make one. */
#include "bx_schema.h"
#include "tap.h"

#include <stdlib.h>
#include <string.h>

/* {"payload":"<b64 of n bytes>","payloadType":"<t>","signatures":[<nsigs of 64 bytes>]}
 * padded with the payloadType to exactly size bytes when size is not 0. Caller frees. */
static char *envelope(size_t n, size_t nsigs, size_t size, size_t *len)
{
    unsigned char *raw = calloc(n ? n : 1, 1), sig[64] = {1};
    char *p64 = bx_b64_encode(raw, n), *s64 = bx_b64_encode(sig, sizeof sig);
    size_t cap = 4 * n / 3 + nsigs * 128 + 256 + size, o = 0, fixed;
    char *out = malloc(cap), type[2048] = "t";

    o += (size_t)sprintf(out, "{\"payload\":\"%s\",\"payloadType\":\"", p64);
    /* the length with an empty type: the signatures' text, the closing brackets */
    fixed = o + strlen("\",\"signatures\":[]}");
    for (size_t i = 0; i < nsigs; i++)
        fixed += (size_t)snprintf(NULL, 0, "%s{\"keyid\":\"\",\"sig\":\"%s\"}", i ? "," : "", s64);
    if (size && size > fixed && size - fixed < sizeof type) {
        memset(type, 'x', size - fixed);
        type[size - fixed] = '\0';
    }
    o += (size_t)sprintf(out + o, "%s\",\"signatures\":[", type);
    for (size_t i = 0; i < nsigs; i++)
        o += (size_t)sprintf(out + o, "%s{\"keyid\":\"\",\"sig\":\"%s\"}", i ? "," : "", s64);
    o += (size_t)sprintf(out + o, "]}");
    *len = o;
    free(raw);
    free(p64);
    free(s64);
    return out;
}

int main(void)
{
    bx_error err = {0};
    size_t len = 0;
    char *doc;

    for (size_t n = 0; n <= BX_ENVELOPE_MAX_SIGS + 3; n++) {
        doc = envelope(16, n, 0, &len);
        is_int(bx_envelope_check_limits(doc, len, &err), n <= BX_ENVELOPE_MAX_SIGS ? 0 : BX_ECONFIG,
               "%zu signatures: %s", n, n <= BX_ENVELOPE_MAX_SIGS ? "within" : "refused");
        if (n == BX_ENVELOPE_MAX_SIGS + 1)
            ok(strstr(err.msg, "at most 32"), "says at most 32 (%s)", err.msg);
        free(doc);
    }
    /* the size cap, at the byte: a payload of 786,000 bytes, the type padding the rest */
    for (long d = -2; d <= 2; d++) {
        size_t want = (size_t)((long)BX_ENVELOPE_MAX_DEFAULT + d);
        doc = envelope(786000, 1, want, &len);
        if (!ok(len == want, "an envelope of %zu bytes made (%zu)", want, len)) {
            free(doc);
            continue;
        }
        is_int(bx_envelope_check_limits(doc, len, &err), d <= 0 ? 0 : BX_ECONFIG, "%zu bytes: %s",
               len, d <= 0 ? "within" : "refused");
        if (d == 1)
            ok(strstr(err.msg, "1048577 bytes"), "says its size (%s)", err.msg);
        free(doc);
    }
    /* what the parser refuses is refused */
    doc = strdup("{\"payload\":\"AA==\",\"payloadType\":\"t\",\"signatures\":[],\"x\":1}");
    is_int(bx_envelope_check_limits(doc, strlen(doc), &err), BX_ECONFIG, "an unknown member");
    free(doc);

    /* bx_certificate_encode: 32 keys make a certificate, 33 do not */
    {
        EVP_PKEY *keys[BX_ENVELOPE_MAX_SIGS + 1] = {0};
        json_t *st = json_pack("{s:s}", "_type", "https://in-toto.io/Statement/v1");
        char *out = NULL;
        size_t olen = 0;
        int made = 1;
        for (size_t i = 0; i < BX_ENVELOPE_MAX_SIGS + 1; i++)
            made &= bx_key_generate(BX_ALG_ED25519, &keys[i], &err) == 0;
        if (ok(made && st, "33 keys")) {
            ok_err(bx_certificate_encode(st, keys, BX_ENVELOPE_MAX_SIGS, &out, &olen, &err), &err,
                   "32 signatures: encoded");
            free(out);
            out = (char *)"untouched";
            is_int(bx_certificate_encode(st, keys, BX_ENVELOPE_MAX_SIGS + 1, &out, &olen, &err),
                   BX_ECONFIG, "33 signatures: refused");
            ok(out == NULL || strcmp(out, "untouched") == 0, "nothing handed out");
        }
        for (size_t i = 0; i < BX_ENVELOPE_MAX_SIGS + 1; i++)
            EVP_PKEY_free(keys[i]);
        json_decref(st);
    }
    return tap_done();
}
