/* SPDX-License-Identifier: Apache-2.0 */
#include "bx_schema.h"
#include "tap.h"

#include <stdlib.h>
#include <string.h>

/* Serializes v (stolen) and compares with want. */
static void jcs_is(json_t *v, const char *want, size_t wantlen, const char *name)
{
    bx_error err = {0};
    char *out = NULL;
    size_t len = 0;
    ok_err(bx_jcs_serialize(v, &out, &len, &err), &err, "%s: serialize", name);
    ok(out && len == wantlen && memcmp(out, want, wantlen) == 0 && out[len] == '\0', "%s: bytes",
       name);
    if (out && (len != wantlen || memcmp(out, want, wantlen) != 0))
        printf("#   got  %s\n#   want %.*s\n", out, (int)wantlen, want);
    free(out);
    json_decref(v);
}

#define JCS_IS(v, want, name) jcs_is(v, want, sizeof(want) - 1, name)

static void jcs_refused(json_t *v, const char *where, const char *substr, const char *name)
{
    bx_error err = {0};
    char *out = NULL;
    size_t len = 0;
    is_int(bx_jcs_serialize(v, &out, &len, &err), BX_EINVAL, "%s: refused", name);
    is_str(err.where, where, "%s: where", name);
    ok(strstr(err.msg, substr) != NULL, "%s: message '%s' has '%s'", name, err.msg, substr);
    ok(out == NULL, "%s: no output", name);
    free(out);
    json_decref(v);
}

static json_t *parse(const char *s)
{
    json_error_t je;
    json_t *v = json_loads(s, JSON_DECODE_ANY, &je);
    if (!v) {
        printf("Bail out! test input does not parse: %s: %s\n", s, je.text);
        exit(1);
    }
    return v;
}

static void test_scalars(void)
{
    JCS_IS(json_null(), "null", "null");
    JCS_IS(json_true(), "true", "true");
    JCS_IS(json_false(), "false", "false");
    JCS_IS(json_integer(0), "0", "zero");
    JCS_IS(json_integer(-1), "-1", "minus one");
    JCS_IS(json_integer(1234567890), "1234567890", "integer");
    JCS_IS(json_integer(BX_JSON_MAX_INT), "9007199254740992", "2^53");
    JCS_IS(json_integer(-BX_JSON_MAX_INT), "-9007199254740992", "-2^53");
    JCS_IS(json_string(""), "\"\"", "empty string");
    JCS_IS(parse("[]"), "[]", "empty array");
    JCS_IS(parse("{}"), "{}", "empty object");
    JCS_IS(parse(" [ 1 , [ 2, {} ] , null ] "), "[1,[2,{}],null]", "nested arrays, no whitespace");
}

static void test_strings(void)
{
    JCS_IS(json_string("a\"b\\c/d"), "\"a\\\"b\\\\c/d\"", "quote, backslash; slash raw");
    JCS_IS(json_string("\b\f\n\r\t"), "\"\\b\\f\\n\\r\\t\"", "short escapes");
    JCS_IS(json_string("\x01\x1f\x0b"), "\"\\u0001\\u001f\\u000b\"", "control chars as \\u00xx");
    JCS_IS(json_string("\x7f"), "\"\x7f\"", "DEL raw");
    JCS_IS(json_string("\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x82"),
           "\"\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x82\"", "non-ASCII raw UTF-8");
    JCS_IS(json_stringn("a\0b", 3), "\"a\\u0000b\"", "NUL as \\u0000");
    JCS_IS(parse("\"\\u0041\\u00e9\""), "\"A\xc3\xa9\"", "escaped input written raw");
}

static void test_key_order(void)
{
    JCS_IS(parse("{\"b\":1,\"a\":2,\"\":3,\"aa\":4,\"B\":5}"),
           "{\"\":3,\"B\":5,\"a\":2,\"aa\":4,\"b\":1}", "ASCII key order");
    /* UTF-16 order: U+E000 and U+FFFF sort after astral characters (surrogates D8xx). */
    JCS_IS(parse("{\"\\ue000\":1,\"\\ud83d\\ude00\":2,\"\\uffff\":3,\"\\ud7ff\":4}"),
           "{\"\xed\x9f\xbf\":4,\"\xf0\x9f\x98\x80\":2,\"\xee\x80\x80\":1,\"\xef\xbf\xbf\":3}",
           "astral characters sort by surrogate values");
    JCS_IS(parse("{\"a\\ue000\":1,\"a\\ud800\\udc00\":2,\"a\":3}"),
           "{\"a\":3,\"a\xf0\x90\x80\x80\":2,\"a\xee\x80\x80\":1}",
           "surrogate order after a prefix");
}

/* Reference: UTF-16 units of code points. */
static size_t utf16(const unsigned *cp, size_t n, unsigned short *out)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        if (cp[i] >= 0x10000) {
            out[k++] = (unsigned short)(0xd800 + ((cp[i] - 0x10000) >> 10));
            out[k++] = (unsigned short)(0xdc00 + ((cp[i] - 0x10000) & 0x3ff));
        } else {
            out[k++] = (unsigned short)cp[i];
        }
    }
    return k;
}

static size_t utf8(const unsigned *cp, size_t n, char *out)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned c = cp[i];
        if (c < 0x80) {
            out[k++] = (char)c;
        } else if (c < 0x800) {
            out[k++] = (char)(0xc0 | c >> 6);
            out[k++] = (char)(0x80 | (c & 0x3f));
        } else if (c < 0x10000) {
            out[k++] = (char)(0xe0 | c >> 12);
            out[k++] = (char)(0x80 | ((c >> 6) & 0x3f));
            out[k++] = (char)(0x80 | (c & 0x3f));
        } else {
            out[k++] = (char)(0xf0 | c >> 18);
            out[k++] = (char)(0x80 | ((c >> 12) & 0x3f));
            out[k++] = (char)(0x80 | ((c >> 6) & 0x3f));
            out[k++] = (char)(0x80 | (c & 0x3f));
        }
    }
    out[k] = '\0';
    return k;
}

static int ref_cmp(const unsigned short *a, size_t an, const unsigned short *b, size_t bn)
{
    for (size_t i = 0; i < an && i < bn; i++)
        if (a[i] != b[i])
            return a[i] < b[i] ? -1 : 1;
    return an < bn ? -1 : an > bn;
}

static unsigned rng_state = 12345;

static unsigned rng(unsigned n)
{
    rng_state = rng_state * 1103515245u + 12345u;
    return (rng_state >> 16) % n;
}

static void test_key_order_random(void)
{
    static const unsigned pool[] = {'a',    'b',    'A',    0xe9,    0x7ff,   0x800,   0xd7ff,
                                    0xe000, 0xfb33, 0xffff, 0x10000, 0x1f602, 0x10ffff};
    const unsigned np = sizeof pool / sizeof pool[0];
    int bad = 0, checked = 0;
    for (int round = 0; round < 3000 && !bad; round++) {
        unsigned a[4], b[4];
        size_t an = 1 + rng(4), bn = 1 + rng(4);
        int shared = (int)rng(3); /* common prefix length, to compare inside sequences */
        for (int i = 0; i < 4; i++) {
            a[i] = pool[rng(np)];
            b[i] = i < shared ? a[i] : pool[rng(np)];
        }
        char ka[20], kb[20];
        unsigned short ua[8], ub[8];
        utf8(a, an, ka);
        utf8(b, bn, kb);
        int want = ref_cmp(ua, utf16(a, an, ua), ub, utf16(b, bn, ub));
        if (want == 0)
            continue;
        json_t *o = json_object();
        json_object_set_new(o, ka, json_integer(1));
        json_object_set_new(o, kb, json_integer(2));
        char *out = NULL;
        size_t len = 0;
        bx_error err = {0};
        if (bx_jcs_serialize(o, &out, &len, &err) != 0) {
            bad = 1;
        } else {
            int got = strncmp(out, "{\"", 2) == 0 &&
                      strncmp(out + 2, want < 0 ? ka : kb, strlen(want < 0 ? ka : kb)) == 0;
            got = got && out[2 + strlen(want < 0 ? ka : kb)] == '"';
            if (!got) {
                printf("#   order wrong: %s\n", out);
                bad = 1;
            }
            checked++;
        }
        free(out);
        json_decref(o);
    }
    ok(!bad && checked > 1000, "random key pairs sort in UTF-16 order (%d checked)", checked);
}

static void test_many_keys(void)
{
    json_t *o = json_object();
    for (int i = 99; i >= 0; i--) {
        char k[8];
        snprintf(k, sizeof k, "k%02d", i);
        json_object_set_new(o, k, json_integer(i));
    }
    char want[2048];
    size_t n = 0;
    want[n++] = '{';
    for (int i = 0; i < 100; i++)
        n += (size_t)snprintf(want + n, sizeof want - n, "%s\"k%02d\":%d", i ? "," : "", i, i);
    want[n++] = '}';
    jcs_is(o, want, n, "100 keys sorted (heap path)");
}

static void test_refusals(void)
{
    jcs_refused(parse("{\"a\":{\"b\":[1,2.5]}}"), "/a/b/1",
                "not an integer: floats are not allowed", "real at depth");
    jcs_refused(json_real(1.0), "", "not an integer: floats are not allowed", "real at the root");
    jcs_refused(parse("{\"x/y~z\":[0.5]}"), "/x~1y~0z/0", "not an integer",
                "pointer escapes ~ and /");
    jcs_refused(parse("[9007199254740993]"), "/0", "out of range", "2^53+1");
    jcs_refused(parse("{\"n\":-9007199254740993}"), "/n", "out of range", "-(2^53+1)");
    jcs_refused(json_integer(INT64_MIN), "", "out of range", "INT64_MIN");
    jcs_refused(json_stringn_nocheck("a\xff", 2), "", "invalid UTF-8", "invalid UTF-8 string");
    jcs_refused(json_stringn_nocheck("\xed\xa0\x80", 3), "", "invalid UTF-8", "encoded surrogate");
    jcs_refused(json_stringn_nocheck("\xc0\xaf", 2), "", "invalid UTF-8", "overlong");
    json_t *o = json_object();
    json_object_set_new_nocheck(o, "k\xfe", json_integer(1));
    jcs_refused(o, "/k\xfe", "invalid UTF-8", "invalid UTF-8 key");

    json_t *root = json_array(), *cur = root;
    for (int i = 0; i < 5000; i++) {
        json_t *next = json_array();
        json_array_append_new(cur, next);
        cur = next;
    }
    bx_error err = {0};
    char *out = NULL;
    size_t len = 0;
    is_int(bx_jcs_serialize(root, &out, &len, &err), BX_EINVAL, "5000 levels refused");
    ok(strstr(err.msg, "nested deeper") != NULL, "depth message: %s", err.msg);
    free(out);
    json_decref(root);
}

static void test_sha256(void)
{
    bx_error err = {0};
    char hex[65], want[65];
    json_t *v = parse("{\"b\":[1,true],\"a\":\"x\"}");
    ok_err(bx_jcs_sha256_hex(v, hex, &err), &err, "jcs sha256");
    const char *jcs = "{\"a\":\"x\",\"b\":[1,true]}";
    is_str(hex, bx_sha256_hex(jcs, strlen(jcs), want), "jcs sha256 is the sha256 of the JCS bytes");
    json_decref(v);
    v = parse("[1.5]");
    is_int(bx_jcs_sha256_hex(v, hex, &err), BX_EINVAL, "jcs sha256 refuses reals");
    json_decref(v);
}

int main(void)
{
    test_scalars();
    test_strings();
    test_key_order();
    test_key_order_random();
    test_many_keys();
    test_refusals();
    test_sha256();
    return tap_done();
}
