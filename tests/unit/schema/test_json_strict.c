/* SPDX-License-Identifier: Apache-2.0 */
#include "bx_schema.h"
#include "tap.h"

#include <stdlib.h>
#include <string.h>

static json_t *accepted(const char *buf, size_t len, int want_object, int require_jcs,
                        const char *name)
{
    bx_error err = {0};
    json_t *v = NULL;
    ok_err(bx_json_parse_strict(buf, len, (want_object ? BX_JSON_OBJECT : 0) | (require_jcs ? BX_JSON_JCS : 0), &v, &err), &err, "accepts %s",
           name);
    ok(v != NULL, "%s: value returned", name);
    return v;
}

/* where: exact expected where, or NULL to only require "line:col" shape. */
static void refused(const char *buf, size_t len, int want_object, int require_jcs,
                    const char *where, const char *substr, const char *name)
{
    bx_error err = {0};
    json_t *v = NULL;
    is_int(bx_json_parse_strict(buf, len, (want_object ? BX_JSON_OBJECT : 0) | (require_jcs ? BX_JSON_JCS : 0), &v, &err), BX_EINVAL,
           "refuses %s", name);
    ok(v == NULL, "%s: no value", name);
    if (where) {
        is_str(err.where, where, "%s: where", name);
    } else {
        int l = 0, c = 0;
        char tail = 0;
        ok(sscanf(err.where, "%d:%d%c", &l, &c, &tail) == 2 && l > 0 && c >= 0,
           "%s: where is line:col ('%s')", name, err.where);
    }
    ok(strstr(err.msg, substr) != NULL, "%s: message '%s' has '%s'", name, err.msg, substr);
    ok(strchr(err.msg, '\n') == NULL, "%s: message is one line", name);
    json_decref(v);
}

#define ACCEPTED(s, o, j, name) accepted(s, sizeof(s) - 1, o, j, name)
#define REFUSED(s, o, j, where, sub, name) refused(s, sizeof(s) - 1, o, j, where, sub, name)

static void test_accepts(void)
{
    json_t *v = ACCEPTED("{\"a\":{\"b\":[1,\"x\",null,true]},\"c\":-9007199254740992}", 1, 0,
                         "a plain object");
    is_int(json_integer_value(json_object_get(v, "c")), -BX_JSON_MAX_INT, "value of c");
    is_str(json_string_value(json_array_get(json_object_get(json_object_get(v, "a"), "b"), 1)), "x",
           "nested value");
    json_decref(v);
    v = ACCEPTED("{\"a\":1,\"b\":9007199254740992}", 1, 1, "JCS form with 2^53");
    is_int(json_integer_value(json_object_get(v, "b")), BX_JSON_MAX_INT, "2^53 kept");
    json_decref(v);
    json_decref(ACCEPTED("{ \"b\" : 1,\n \"a\" : 2 }\n", 1, 0, "spacing without require_jcs"));
    json_decref(ACCEPTED("[1,2]", 0, 0, "an array when no object is required"));
    json_decref(ACCEPTED("5", 0, 1, "a scalar when no object is required"));
    json_decref(ACCEPTED("{\"\xc3\xa9\":1,\"\xc3\x89\":2}", 1, 0, "non-ASCII case pairs"));
    v = ACCEPTED("{\"a\":-0}", 1, 0, "-0 without require_jcs");
    is_int(json_integer_value(json_object_get(v, "a")), 0, "-0 is 0");
    json_decref(v);
}

static void test_structure(void)
{
    REFUSED("[1,2]", 1, 0, "", "not a JSON object", "an array when an object is required");
    REFUSED("\"s\"", 1, 0, NULL, "invalid JSON", "a string when an object is required");
    REFUSED("", 1, 0, NULL, "invalid JSON", "empty input");
    REFUSED("{\n\"a\":1,\n\"a\":2}", 1, 0, "3:3", "duplicate", "duplicate at the top");
    REFUSED("{\"x\":[{\"y\":{\"b\":1,\"b\":2}}]}", 1, 0, NULL, "duplicate", "duplicate at depth");
    REFUSED("{\"Key\":1,\"key\":2}", 1, 0, "/key", "differ only in case", "case collision");
    REFUSED("{\"a\":[{\"id\":1,\"z\":0,\"ID\":2}]}", 1, 0, "/a/0/id", "differ only in case",
            "case collision at depth");
    REFUSED("{\"K\\n\":1,\"k\\n\":2}", 1, 0, "/k\\u000a", "differ only in case",
            "case collision of keys with a newline");
    REFUSED("{} x", 1, 0, NULL, "end of file expected", "trailing bytes");
    REFUSED("{}{}", 1, 0, NULL, "end of file expected", "two values");
}

static void test_bytes(void)
{
    REFUSED("{\"a\":\"\\u0000\"}", 1, 0, "1:13", "JSON_ALLOW_NUL", "escaped NUL");
    REFUSED("{\"\\u0000\":1}", 1, 0, NULL, "NUL", "NUL in a key");
    REFUSED("{\"a\":1}\0", 1, 0, NULL, "end of file expected", "raw NUL after the value");
    REFUSED("{\"a\":\"\xff\"}", 1, 0, "1:6", "unable to decode byte", "invalid UTF-8 byte");
    REFUSED("{\"a\":\"\xc0\xaf\"}", 1, 0, NULL, "unable to decode byte", "overlong UTF-8");
    REFUSED("{\"a\":\"\xed\xa0\x80\"}", 1, 0, NULL, "unable to decode", "encoded surrogate");
    REFUSED("{\"a\":\"\\ud800\"}", 1, 0, NULL, "invalid Unicode", "lone surrogate escape");
    REFUSED("{\"a\":\"x\ny\"}", 1, 0, NULL, "newline", "raw newline in a string");
    REFUSED("{\"a\xff\":1}", 1, 0, NULL, "invalid JSON", "invalid UTF-8 in a key");
}

static void test_numbers(void)
{
    REFUSED("{\"a\":1.0}", 1, 0, "/a", "not an integer: floats are not allowed", "1.0");
    REFUSED("{\"a\":[1e2]}", 1, 0, "/a/0", "not an integer", "1e2");
    REFUSED("{\"a/b\":{\"c~d\":1.5}}", 1, 0, "/a~1b/c~0d", "not an integer", "pointer escapes");
    REFUSED("{\"a\\nb\":[0.5]}", 1, 0, "/a\\u000ab/0", "not an integer",
            "control characters in the pointer shown escaped");
    REFUSED("{\"n\":9007199254740993}", 1, 0, "/n", "out of range", "2^53+1");
    REFUSED("[-9007199254740993]", 0, 0, "/0", "out of range", "-(2^53+1)");
    REFUSED("{\"n\":9223372036854775808}", 1, 0, NULL, "too big integer", "beyond int64");
}

static void test_jcs(void)
{
    REFUSED("{\"a\":-0}", 1, 1, "1:6", "not in canonical JSON (JCS) form", "-0 with require_jcs");
    REFUSED("{\"a\": 1}", 1, 1, "1:6", "not in canonical JSON (JCS) form", "spacing");
    REFUSED("{\"a\":1}\n", 1, 1, "1:8", "not in canonical JSON (JCS) form", "trailing newline");
    REFUSED("{\"b\":1,\"a\":2}", 1, 1, "1:3", "not in canonical JSON (JCS) form", "key order");
    REFUSED("{\"a\":\"\\u0041\"}", 1, 1, "1:7", "not in canonical JSON (JCS) form", "needless escape");
    REFUSED("{\"a\":\"\\u001F\"}", 1, 1, "1:12", "not in canonical JSON (JCS) form", "uppercase hex");
    REFUSED("{\"a\":01}", 1, 1, NULL, "invalid JSON", "leading zero");
    json_decref(ACCEPTED("{\"a\":\"\\u001f\\n\xc3\xa9\"}", 1, 1, "JCS escapes"));
}

int main(void)
{
    test_accepts();
    test_structure();
    test_bytes();
    test_numbers();
    test_jcs();
    return tap_done();
}
