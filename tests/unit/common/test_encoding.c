/* SPDX-License-Identifier: Apache-2.0 */
#include "bx_common.h"
#include "tap.h"

#include <stdlib.h>
#include <string.h>

/* Decodes s; returns rc and, on success, compares with want (wantlen bytes). */
static int decode_is(const char *s, const char *want, size_t wantlen, const char *name)
{
    bx_error err = {0};
    unsigned char *out = NULL;
    size_t len = 99;
    int rc = bx_b64_decode(s, strlen(s), &out, &len, &err);
    ok_err(rc, &err, "b64 decode %s", name);
    if (rc == 0) {
        is_int(len, wantlen, "b64 decode %s: length", name);
        ok(len == wantlen && memcmp(out, want, wantlen) == 0, "b64 decode %s: bytes", name);
        ok(out[len] == '\0', "b64 decode %s: NUL-terminated", name);
    }
    free(out);
    return rc;
}

static void refused(const char *s, const char *substr, const char *name)
{
    bx_error err = {0};
    unsigned char *out = NULL;
    size_t len = 0;
    int rc = bx_b64_decode(s, strlen(s), &out, &len, &err);
    is_int(rc, BX_EINVAL, "b64 refuses %s", name);
    is_int(err.code, BX_EINVAL, "b64 refuses %s: err.code", name);
    ok(strstr(err.msg, substr) != NULL, "b64 refuses %s: message '%s' has '%s'", name, err.msg,
       substr);
    ok(out == NULL, "b64 refuses %s: no output", name);
    free(out);
}

static void test_b64_encode(void)
{
    static const struct {
        const char *in, *out;
    } v[] = {{"", ""},
             {"f", "Zg=="},
             {"fo", "Zm8="},
             {"foo", "Zm9v"},
             {"foob", "Zm9vYg=="},
             {"fooba", "Zm9vYmE="},
             {"foobar", "Zm9vYmFy"}};
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
        char *e = bx_b64_encode(v[i].in, strlen(v[i].in));
        is_str(e, v[i].out, "b64 encode '%s'", v[i].in);
        free(e);
        decode_is(v[i].out, v[i].in, strlen(v[i].in), v[i].out);
    }
    unsigned char bin[] = {0xfb, 0xff, 0xbf, 0x00};
    char *e = bx_b64_encode(bin, sizeof bin);
    is_str(e, "+/+/AA==", "b64 encode uses the standard alphabet");
    free(e);
}

static void test_b64_decode(void)
{
    unsigned char bin[] = {0xfb, 0xff, 0xbf, 0x00};
    decode_is("+/+/AA==", (const char *)bin, sizeof bin, "standard alphabet");
    decode_is("-_-_AA==", (const char *)bin, sizeof bin, "URL-safe alphabet");
    decode_is("QQ==", "A", 1, "QQ==");
    decode_is("QUI=", "AB", 2, "QUI=");
    decode_is("", "", 0, "empty string");

    refused("QR==", "padding bits", "non-zero pad bits (QR==)");
    refused("QUJ=", "padding bits", "non-zero pad bits (QUJ=)");
    refused("QQ", "multiple of 4", "unpadded QQ");
    refused("QUI", "multiple of 4", "unpadded QUI");
    refused("-+AA", "mixed", "mixed alphabets -+");
    refused("_/AA", "mixed", "mixed alphabets _/");
    refused("+/-_AA==", "mixed", "mixed alphabets across quads");
    refused("QQ==\n", "multiple of 4", "trailing newline");
    refused("QU I", "character 0x20", "space inside");
    refused("QQ==QQ==", "misplaced", "padding in the middle");
    refused("Q===", "misplaced", "three pads");
    refused("====", "misplaced", "only padding");
    refused("QQ=A", "misplaced", "pad before data");
    refused("QQ.=", "character 0x2e", "dot");
}

static void test_hex(void)
{
    unsigned char bin[] = {0x00, 0x01, 0xab, 0xff};
    char hex[9];
    is_str(bx_hex_encode(bin, sizeof bin, hex), "0001abff", "hex encode");
    is_str(bx_hex_encode(bin, 0, hex), "", "hex encode empty");
    ok(bx_is_lower_hex("0001abff", 8), "is_lower_hex accepts");
    ok(!bx_is_lower_hex("0001ABFF", 8), "is_lower_hex refuses uppercase");
    ok(!bx_is_lower_hex("0001abf", 8), "is_lower_hex refuses too short");
    ok(!bx_is_lower_hex("0001abffa", 8), "is_lower_hex refuses too long");
    ok(!bx_is_lower_hex("0001abfg", 8), "is_lower_hex refuses g");
    ok(!bx_is_lower_hex(NULL, 0), "is_lower_hex refuses NULL");

    unsigned char out[4] = {0};
    bx_error err = {0};
    ok_err(bx_hex_decode("0001abff", out, 4, &err), &err, "hex decode");
    ok(memcmp(out, bin, 4) == 0, "hex decode bytes");
    is_int(bx_hex_decode("0001ABFF", out, 4, &err), BX_EINVAL, "hex decode refuses uppercase");
    is_int(bx_hex_decode("0001abf", out, 4, &err), BX_EINVAL, "hex decode refuses odd length");
    is_int(bx_hex_decode("0001abff00", out, 4, &err), BX_EINVAL, "hex decode refuses too long");
}

static void test_sha256(void)
{
    char hex[65];
    is_str(bx_sha256_hex("abc", 3, hex),
           "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad", "sha256 abc");
    is_str(bx_sha256_hex("", 0, hex),
           "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855", "sha256 empty");
    unsigned char md[32];
    bx_sha256("abc", 3, md);
    ok(md[0] == 0xba && md[31] == 0xad, "sha256 raw bytes");
}

int main(void)
{
    test_b64_encode();
    test_b64_decode();
    test_hex();
    test_sha256();
    return tap_done();
}
