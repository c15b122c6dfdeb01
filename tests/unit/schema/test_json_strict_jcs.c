// SPDX-License-Identifier: Apache-2.0
/* The strict parser with and without the canonical (JCS) requirement, and the JCS writer at
 * its bounds. A canonical input goes through the one-pass fast path of json_strict.c, every
 * other one through jansson and the JCS comparison: whatever the strict parse refuses, the
 * fast path must refuse too, so each refusal here is tried with BX_JSON_JCS as well. The
 * mutations of tests/mutations/json.txt are what these catch. */
#include "bx_schema.h"
#include "tap.h"

#include <stdlib.h>
#include <string.h>

static const unsigned flag_sets[] = {BX_JSON_OBJECT, BX_JSON_OBJECT | BX_JSON_JCS};

static int parse(const char *buf, size_t len, unsigned flags, json_t **v, bx_error *err)
{
    *v = NULL;
    memset(err, 0, sizeof *err);
    return bx_json_parse_strict(buf, len, flags, v, err);
}

/* Refused (BX_EINVAL, no value) with every flag set from first on. */
static void refused_from(const char *buf, size_t len, size_t first, const char *name)
{
    for (size_t i = first; i < sizeof flag_sets / sizeof flag_sets[0]; i++) {
        bx_error err;
        json_t *v = NULL;
        int rc = parse(buf, len, flag_sets[i], &v, &err);
        ok(rc == BX_EINVAL && v == NULL, "%s refused (require_jcs=%d): rc %d, %s", name,
           (flag_sets[i] & BX_JSON_JCS) != 0, rc, err.msg);
        json_decref(v);
    }
}

/* Accepted with every flag set from first on; the value of the last parse returned. */
static json_t *accepted_from(const char *buf, size_t len, size_t first, const char *name)
{
    json_t *last = NULL;
    for (size_t i = first; i < sizeof flag_sets / sizeof flag_sets[0]; i++) {
        bx_error err;
        json_t *v = NULL;
        int rc = parse(buf, len, flag_sets[i], &v, &err);
        ok(rc == 0 && v != NULL, "%s accepted (require_jcs=%d): %s", name,
           (flag_sets[i] & BX_JSON_JCS) != 0, rc ? err.msg : "ok");
        json_decref(last);
        last = v;
    }
    return last;
}

#define REFUSED(s, name) refused_from(s, sizeof(s) - 1, 0, name)
#define REFUSED_JCS(s, name) refused_from(s, sizeof(s) - 1, 1, name)
#define ACCEPTED(s, name) json_decref(accepted_from(s, sizeof(s) - 1, 0, name))

/* Every refusal of test_json_strict.c, and more, with and without require_jcs: the
 * inputs that are canonical but for what makes them wrong reach the fast path. */
static void refusals_both_ways(void)
{
    REFUSED("{\"a\":1,\"a\":2}", "duplicate, all lower case (canonical otherwise)");
    REFUSED("{\"a\":1,\"b\":{\"c\":1,\"c\":1},\"d\":2}", "duplicate at depth");
    REFUSED("{\"a\":[{\"x\":1,\"x\":1}]}", "duplicate in an array's object");
    REFUSED("{\"K\":1,\"k\":2}", "case collision");
    REFUSED("{\"A\":1,\"a\":2}", "case collision on A");
    REFUSED("{\"Z\":1,\"z\":2}", "case collision on Z");
    REFUSED("{\"a\":[{\"ID\":2,\"id\":1,\"z\":0}]}", "case collision at depth");
    REFUSED("{\"aB\":1,\"b\":2,\"ab\":3}", "case collision, keys apart");
    REFUSED("[1,2]", "an array when an object is required");
    REFUSED("\"s\"", "a string when an object is required");
    REFUSED("", "empty input");
    REFUSED("{} x", "trailing bytes");
    REFUSED("{}x", "trailing byte");
    REFUSED("{}{}", "two values");
    REFUSED("{\"a\":1}\0", "a NUL after the value");
    REFUSED("{\"a\":\"\\u0000\"}", "escaped NUL");
    REFUSED("{\"\\u0000\":1}", "NUL in a key");
    REFUSED("{\"a\":\"\xff\"}", "invalid UTF-8 byte");
    REFUSED("{\"a\":\"\xc0\xaf\"}", "overlong UTF-8 (two bytes)");
    REFUSED("{\"a\":\"\xc1\xbf\"}", "overlong UTF-8 (C1)");
    REFUSED("{\"a\":\"\xe0\x80\xaf\"}", "overlong UTF-8 (three bytes)");
    REFUSED("{\"a\":\"\xf0\x80\x80\xaf\"}", "overlong UTF-8 (four bytes)");
    REFUSED("{\"a\":\"\xed\xa0\x80\"}", "encoded surrogate");
    REFUSED("{\"a\":\"\xed\xbf\xbf\"}", "encoded low surrogate");
    REFUSED("{\"a\":\"\xf4\x90\x80\x80\"}", "above U+10FFFF");
    REFUSED("{\"a\":\"\xf5\x80\x80\x80\"}", "lead byte F5");
    REFUSED("{\"a\":\"\xe2\x82\"}", "truncated sequence");
    REFUSED("{\"a\":\"\\ud800\"}", "lone high surrogate escape");
    REFUSED("{\"a\":\"\\udc00\"}", "lone low surrogate escape");
    REFUSED("{\"a\":\"x\ny\"}", "raw newline in a string");
    REFUSED("{\"a\":\"x\ty\"}", "raw tab in a string");
    REFUSED("{\"a\":\"\x01\"}", "raw control character");
    REFUSED("{\"a\xff\":1}", "invalid UTF-8 in a key");
    REFUSED("{\"a\":1.0}", "a real");
    REFUSED("{\"a\":[1e2]}", "an exponent");
    REFUSED("{\"a\":1E2}", "an upper-case exponent");
    REFUSED("{\"a\":01}", "a leading zero");
    REFUSED("{\"a\":-01}", "a negative leading zero");
    REFUSED("{\"a\":+1}", "a plus sign");
    REFUSED("{\"a\":-}", "a sign alone");
    REFUSED("{\"n\":9007199254740993}", "2^53+1");
    REFUSED("{\"n\":-9007199254740993}", "-(2^53+1)");
    REFUSED("{\"n\":9999999999999999}", "sixteen nines");
    REFUSED("{\"n\":9223372036854775808}", "beyond int64");
    REFUSED("{\"a\":tru}", "a cut literal");
    REFUSED("{\"a\":nul}", "a cut null");
    REFUSED("{\"a\":[1,]}", "a trailing comma in an array");
    REFUSED("{\"a\":1,}", "a trailing comma in an object");
    REFUSED("{\"a\"}", "a key without a value");
    REFUSED("{\"a\":\"x}", "an unterminated string");
    REFUSED("{\"a\":\"\\x\"}", "an unknown escape");
}

/* Refused only when the bytes must be the value's JCS (the values themselves are fine). */
static void refusals_jcs_only(void)
{
    static const struct {
        const char *s, *name;
    } t[] = {
        {"{\"a\":-0}", "-0"},
        {"{\"a\": 1}", "spacing"},
        {"{\"a\":1}\n", "a trailing newline"},
        {" {\"a\":1}", "a leading space"},
        {"{\"b\":1,\"a\":2}", "key order"},
        {"{\"b\":1,\"a\":2,\"c\":3}", "key order, same length as canonical"},
        {"{\"aa\":1,\"a\":2}", "a prefix after the longer key"},
        {"{\"a\":\"\\u0041\"}", "a needless escape"},
        {"{\"a\":\"\\u0020\"}", "a space escaped"},
        {"{\"a\":\"\\u007f\"}", "DEL escaped"},
        {"{\"a\":\"\\u001F\"}", "upper-case hex"},
        {"{\"a\":\"\\u000a\"}", "a newline as \\u000a"},
        {"{\"a\":\"\\u0009\"}", "a tab as \\u0009"},
        {"{\"a\":\"\\u0008\"}", "a backspace as \\u0008"},
        {"{\"a\":\"\\/\"}", "an escaped slash"},
        {"{\"a\":\"\\u00e9\"}", "an escaped non-ASCII character"},
        /* UTF-16 order: U+E000 after the astral planes */
        {"{\"\xee\x80\x80\":1,\"\xf0\x9f\x98\x80\":2}", "U+E000 before an astral key"},
        {"{\"\xef\xbf\xbf\":1,\"\xf0\x90\x80\x80\":2}", "U+FFFF before an astral key"},
    };
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        bx_error err;
        json_t *v = NULL;
        int rc = parse(t[i].s, strlen(t[i].s), BX_JSON_OBJECT, &v, &err);
        ok(rc == 0 && v, "%s accepted (require_jcs=0): %s", t[i].name, rc ? err.msg : "ok");
        json_decref(v);
        refused_from(t[i].s, strlen(t[i].s), 1, t[i].name);
    }
}

/* Canonical inputs the fast path takes, with the values the strict parse gives. */
static void canonical_accepted(void)
{
    json_t *v;
    ACCEPTED("{\"\xf0\x9f\x98\x80\":2,\"\xee\x80\x80\":1}", "an astral key before U+E000");
    ACCEPTED("{\"\xed\x9f\xbf\":1,\"\xf0\x90\x80\x80\":2}", "U+D7FF before an astral key");
    ACCEPTED("{\"a\":\"\\u001f\\b\\f\\n\\r\\t\\\"\\\\\"}", "the JCS escapes");
    ACCEPTED("{\"a\":\"\x7f\xc2\x80\xdf\xbf\xe0\xa0\x80\xed\x9f\xbf\xee\x80\x80\xf0\x90\x80\x80"
             "\xf4\x8f\xbf\xbf\"}",
             "the edges of well-formed UTF-8");
    ACCEPTED("{\"A\":1,\"B\":2,\"c\":3}", "upper-case keys without a collision");
    ACCEPTED("{\"a\":0,\"b\":-1,\"c\":9007199254740992,\"d\":-9007199254740992}",
             "integers at the bounds");
    ACCEPTED("{\"a\":[],\"b\":{},\"c\":[{},[]],\"d\":true,\"e\":false,\"f\":null}",
             "empty containers and literals");
    bx_error err;
    ok(parse("{\"a\":\"x\\u0001y\"}", 16, BX_JSON_OBJECT | BX_JSON_JCS, &v, &err) == 0 &&
           json_string_length(json_object_get(v, "a")) == 3 &&
           memcmp(json_string_value(json_object_get(v, "a")), "x\001y", 3) == 0,
       "an escaped control character is that byte");
    json_decref(v);
    ok(parse("{\"n\":-9007199254740992}", 23, BX_JSON_OBJECT | BX_JSON_JCS, &v, &err) == 0 &&
           json_integer_value(json_object_get(v, "n")) == -BX_JSON_MAX_INT,
       "-2^53 read as itself");
    json_decref(v);
}

/* n keys "k00".."k<n-1>", in order, each an integer; with upper, "K00" first (it sorts before
 * every lower-case key and collides with k00). */
static char *many_keys(size_t n, int upper, size_t *len)
{
    char *buf = malloc(16 * (n + 2));
    size_t o = 0;
    buf[o++] = '{';
    if (upper)
        o += (size_t)sprintf(buf + o, "\"K00\":0");
    for (size_t i = 0; i < n - (upper ? 1 : 0); i++)
        o += (size_t)sprintf(buf + o, "%s\"k%02zu\":%zu", o > 1 ? "," : "", i, i);
    buf[o++] = '}';
    buf[o] = '\0';
    *len = o;
    return buf;
}

/* The case check of the fast path: pairwise up to 32 keys, sorted beyond. */
static void case_collisions_by_size(void)
{
    static const size_t sizes[] = {2, 31, 32, 33, 34, 64, 100};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        char name[80];
        size_t len;
        char *buf = many_keys(sizes[i], 1, &len);
        snprintf(name, sizeof name, "%zu keys, K00 and k00", sizes[i]);
        refused_from(buf, len, 0, name);
        free(buf);
        buf = many_keys(sizes[i], 0, &len);
        snprintf(name, sizeof name, "%zu keys without a collision", sizes[i]);
        json_decref(accepted_from(buf, len, 0, name));
        free(buf);
    }
    /* a collision between the last two of many keys, one of them upper case */
    char buf[1024];
    size_t o = 0;
    o += (size_t)sprintf(buf + o, "{");
    for (int i = 0; i < 40; i++)
        o += (size_t)sprintf(buf + o, "%s\"a%02d\":%d", i ? "," : "", i, i);
    o += (size_t)sprintf(buf + o, ",\"zZ\":1,\"zz\":2}");
    refused_from(buf, o, 0, "42 keys, zZ and zz last");
}

/* The JCS writer at its edges. */
static void jcs_writer(void)
{
    static const struct {
        const char *in, *want;
    } t[] = {
        {"a b", "\"a b\""}, {" ", "\" \""},       {"\x1f", "\"\\u001f\""},
        {"!", "\"!\""},     {"\x7f", "\"\x7f\""}, {"\"", "\"\\\"\""},
        {"\\", "\"\\\\\""}, {"/", "\"/\""},       {"\n\t", "\"\\n\\t\""},
    };
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        json_t *v = json_string(t[i].in);
        char *out = NULL;
        size_t len = 0;
        bx_error err;
        ok(bx_jcs_serialize(v, &out, &len, &err) == 0 && out && strcmp(out, t[i].want) == 0,
           "JCS of %s is %s (got %s)", t[i].want, t[i].want, out ? out : "(none)");
        free(out);
        json_decref(v);
    }

    json_t *o = json_object();
    json_object_set_new(o, "\xee\x80\x80", json_integer(1));
    json_object_set_new(o, "\xf0\x90\x80\x80", json_integer(2));
    json_object_set_new(o, "\xed\x9f\xbf", json_integer(3));
    char *out = NULL;
    size_t len = 0;
    bx_error err;
    ok(bx_jcs_serialize(o, &out, &len, &err) == 0 && out &&
           strcmp(out, "{\"\xed\x9f\xbf\":3,\"\xf0\x90\x80\x80\":2,\"\xee\x80\x80\":1}") == 0,
       "keys in UTF-16 order: U+D7FF, U+10000, U+E000");
    free(out);
    json_decref(o);

    /* nesting: 4096 levels below the root are written, 4097 are not */
    for (int extra = 0; extra < 2; extra++) {
        json_t *root = json_array(), *cur = root;
        for (int i = 0; i < 4096 + extra; i++) {
            json_t *next = json_array();
            json_array_append_new(cur, next);
            cur = next;
        }
        out = NULL;
        int rc = bx_jcs_serialize(root, &out, &len, &err);
        if (extra)
            ok(rc == BX_EINVAL && !out, "4097 levels below the root refused");
        else
            ok(rc == 0 && out && len == 2 * 4097, "4096 levels below the root written");
        free(out);
        json_decref(root);
    }
}

int main(void)
{
    refusals_both_ways();
    refusals_jcs_only();
    canonical_accepted();
    case_collisions_by_size();
    jcs_writer();
    return tap_done();
}
