/* SPDX-License-Identifier: Apache-2.0 */
/* Strict YAML reader: refusals at the event, marks, quoted flags, nulls. */
#include "bx_common.h"
#include "tap.h"

#define DEPTH 32
#define EVENTS 10000

static int load(const char *text, bx_yaml_doc *doc, bx_error *err)
{
    bx_error_clear(err);
    return bx_yaml_load(text, strlen(text), "t.yaml", DEPTH, EVENTS, doc, err);
}

/* text must be refused with a message containing msg at where ("t.yaml:L:C"). */
static void refused(const char *text, const char *where, const char *msg, const char *name)
{
    bx_yaml_doc doc;
    bx_error err;
    int rc = load(text, &doc, &err);
    is_int(rc, BX_ECONFIG, "%s: refused", name);
    is_str(err.where, where, "%s: where", name);
    ok(strstr(err.msg, msg) != NULL, "%s: message '%s' has '%s'", name, err.msg, msg);
    ok(doc.root == NULL && doc.marks == NULL, "%s: nothing left in doc", name);
    bx_yaml_free(&doc);
}

static long long mark(const bx_yaml_doc *doc, const char *ptr, size_t i)
{
    json_t *m = json_object_get(doc->marks, ptr);
    return m ? (long long)json_integer_value(json_array_get(m, i)) : -1;
}

static void test_basic(void)
{
    bx_yaml_doc doc;
    bx_error err;
    const char *text = "a: 1\n"
                       "b: [x, 'y', \"z\"]\n"
                       "c:\n"
                       "  d: plain text\n"
                       "  e:\n"
                       "    - q\n"
                       "a/b: 2\n"
                       "~c: 3\n";
    ok_err(load(text, &doc, &err), &err, "basic: loads");
    is_str(json_string_value(json_object_get(doc.root, "a")), "1", "scalars stay strings");
    is_str(json_string_value(json_array_get(json_object_get(doc.root, "b"), 2)), "z",
           "flow sequence item");
    is_str(json_string_value(json_object_get(json_object_get(doc.root, "c"), "d")), "plain text",
           "nested value");
    is_int(mark(&doc, "/a", 0), 1, "/a line");
    is_int(mark(&doc, "/a", 1), 4, "/a column (value)");
    is_int(mark(&doc, "/a", 3), 1, "/a key line");
    is_int(mark(&doc, "/a", 4), 1, "/a key column");
    is_int(mark(&doc, "/b/1", 0), 2, "/b/1 line");
    is_int(mark(&doc, "/b/1", 1), 8, "/b/1 column");
    is_int(mark(&doc, "/c/e/0", 0), 6, "/c/e/0 line");
    is_int(mark(&doc, "/c/e/0", 1), 7, "/c/e/0 column");
    is_int(mark(&doc, "/c/d", 3), 4, "/c/d key line");
    is_int(mark(&doc, "/c/d", 4), 3, "/c/d key column");
    is_int(mark(&doc, "", 0), 1, "root mark");
    is_int(mark(&doc, "/a~1b", 0), 7, "key with / escaped per RFC 6901");
    is_int(mark(&doc, "/~0c", 0), 8, "key with ~ escaped per RFC 6901");
    is_int(bx_yaml_quoted(&doc, "/b/0"), 0, "plain not quoted");
    is_int(bx_yaml_quoted(&doc, "/b/1"), 1, "single quoted");
    is_int(bx_yaml_quoted(&doc, "/b/2"), 1, "double quoted");
    is_int(bx_yaml_quoted(&doc, "/nope"), 0, "absent pointer not quoted");

    is_int(bx_yaml_error(&doc, "/c/d", &err, BX_ECONFIG, "bad %s", "thing"), BX_ECONFIG,
           "bx_yaml_error returns code");
    is_str(err.where, "t.yaml:4:6", "error at the value");
    is_str(err.msg, "bad thing", "error message");
    bx_yaml_key_error(&doc, "/c/d", &err, BX_ECONFIG, "unknown key");
    is_str(err.where, "t.yaml:4:3", "key error at the key");
    bx_yaml_error(&doc, "/c/nope/deeper", &err, BX_ECONFIG, "x");
    is_str(err.where, "t.yaml:4:3", "missing pointer falls back to nearest parent (/c)");
    bx_yaml_key_error(&doc, "/b/1", &err, BX_ECONFIG, "x");
    is_str(err.where, "t.yaml:2:8", "key error on a list item is at the item");
    bx_yaml_free(&doc);
    bx_yaml_free(&doc); /* idempotent */
}

static void test_nulls(void)
{
    bx_yaml_doc doc;
    bx_error err;
    const char *text = "a: null\nb: ~\nc:\nd: ''\ne: 'null'\nf: Null\ng: \"~\"\nh: [~, null, '']\n";
    ok_err(load(text, &doc, &err), &err, "nulls: loads");
    ok(json_is_null(json_object_get(doc.root, "a")), "plain null -> null");
    ok(json_is_null(json_object_get(doc.root, "b")), "~ -> null");
    ok(json_is_null(json_object_get(doc.root, "c")), "empty -> null");
    is_str(json_string_value(json_object_get(doc.root, "d")), "", "quoted empty stays a string");
    is_str(json_string_value(json_object_get(doc.root, "e")), "null", "quoted null stays a string");
    is_str(json_string_value(json_object_get(doc.root, "f")), "Null", "Null is a string");
    is_str(json_string_value(json_object_get(doc.root, "g")), "~", "quoted ~ stays a string");
    json_t *h = json_object_get(doc.root, "h");
    ok(json_is_null(json_array_get(h, 0)) && json_is_null(json_array_get(h, 1)) &&
           json_is_string(json_array_get(h, 2)),
       "nulls in a list");
    bx_yaml_free(&doc);
}

static void test_json(void)
{
    bx_yaml_doc doc;
    bx_error err;
    const char *text = "{\"a\": [1, true, null, \"s\"],\n \"b\": {\"c\": \"d\"}}";
    ok_err(load(text, &doc, &err), &err, "json: loads");
    json_t *a = json_object_get(doc.root, "a");
    is_str(json_string_value(json_array_get(a, 0)), "1", "json number as string");
    is_str(json_string_value(json_array_get(a, 1)), "true", "json true as string");
    ok(json_is_null(json_array_get(a, 2)), "json null -> null");
    is_int(bx_yaml_quoted(&doc, "/a/3"), 1, "json string is quoted");
    is_int(bx_yaml_quoted(&doc, "/a/1"), 0, "json true is plain");
    is_str(json_string_value(json_object_get(json_object_get(doc.root, "b"), "c")), "d",
           "json nested");
    is_int(mark(&doc, "/b/c", 0), 2, "json line");
    is_int(mark(&doc, "/b/c", 1), 13, "json column");
    bx_yaml_free(&doc);
    refused("{\"a\": 1, \"a\": 2}", "t.yaml:1:10", "duplicate key 'a'", "json duplicate");

    /* what jansson writes compactly (no space after ':'), with escapes */
    text = "{\"a\":\"2\",\"b\":[false,0.5,\"\\u00e9\\n\\\"\"],\"c\":{}}";
    ok_err(load(text, &doc, &err), &err, "compact json: loads");
    is_str(json_string_value(json_object_get(doc.root, "a")), "2", "compact json: \"2\"");
    is_int(bx_yaml_quoted(&doc, "/a"), 1, "compact json: \"2\" stays quoted");
    is_int(bx_yaml_quoted(&doc, "/b/0"), 0, "compact json: false is plain");
    is_str(json_string_value(json_array_get(json_object_get(doc.root, "b"), 1)), "0.5",
           "compact json: a real is its text");
    is_str(json_string_value(json_array_get(json_object_get(doc.root, "b"), 2)), "\xc3\xa9\n\"",
           "compact json: escapes decoded");
    ok(json_is_object(json_object_get(doc.root, "c")), "compact json: empty object");
    bx_yaml_free(&doc);
}

static void test_refusals(void)
{
    refused("a: &x 1\n", "t.yaml:1:4", "anchor '&x' not allowed", "anchor on scalar");
    refused("a: 1\nb: &list\n  - 1\n", "t.yaml:2:4", "anchor", "anchor on sequence");
    refused("a: 1\nb: *x\n", "t.yaml:2:4", "alias '*x' not allowed", "alias");
    refused("a: !!str 1\n", "t.yaml:1:4", "tag 'tag:yaml.org,2002:str' not allowed", "tag");
    refused("a: !custom {}\n", "t.yaml:1:4", "tag '!custom'", "local tag on mapping");
    refused("a: ! x\n", "t.yaml:1:4", "tag '!'", "non-specific tag");
    refused("%TAG !e! tag:example.com,2000:\n---\na: 1\n", "t.yaml:1:1", "%TAG", "tag directive");
    refused("a: 1\nb: 2\na: 3\n", "t.yaml:3:1", "duplicate key 'a' (first at line 1)",
            "duplicate key");
    refused("x:\n  a: 1\n  a: 1\n", "t.yaml:3:3", "duplicate key 'a'", "nested duplicate");
    refused("a: 1\n---\nb: 2\n", "t.yaml:2:1", "more than one document", "two documents");
    refused("a: 1\n...\n---\nb: 2\n", "t.yaml:3:1", "more than one document",
            "two documents with end marker");
    refused("? [a]\n: 1\n", "t.yaml:1:3", "mapping key must be a scalar", "sequence as key");
    refused("{{a: 1}: 2}", "t.yaml:1:2", "mapping key must be a scalar", "mapping as key");
    refused("", "t.yaml:1:1", "empty document", "empty input");
    refused("# only a comment\n", "t.yaml:2:1", "empty document", "only comments");
    refused("a: \"x\\0y\"\n", "t.yaml:1:4", "NUL", "escaped NUL in a scalar");
    refused("a: [1, 2\n", "t.yaml:2:1", "", "syntax error");
    refused("a: b: c\n", "t.yaml:1:5", "mapping values are not allowed", "syntax error message");

    bx_yaml_doc doc;
    bx_error err;
    static const char nul[] = "a: 1\nb: x\0y\n";
    int rc = bx_yaml_load(nul, sizeof nul - 1, "t.yaml", DEPTH, EVENTS, &doc, &err);
    is_int(rc, BX_ECONFIG, "NUL byte in input refused");
    is_str(err.where, "t.yaml:2:5", "NUL byte position");
    is_int(doc.events, 0, "NUL refused before parsing");
}

static void test_depth(void)
{
    bx_yaml_doc doc;
    bx_error err;
    const char *text = "a: {b: {c: [d]}}\n"; /* four collections */
    ok_err(bx_yaml_load(text, strlen(text), "t.yaml", 4, EVENTS, &doc, &err), &err,
           "depth 4 within cap 4");
    bx_yaml_free(&doc);
    is_int(bx_yaml_load(text, strlen(text), "t.yaml", 3, EVENTS, &doc, &err), BX_ECONFIG,
           "depth 4 over cap 3");
    is_str(err.where, "t.yaml:1:12", "depth error at the collection that is too deep");
    ok(strstr(err.msg, "nesting deeper than 3") != NULL, "depth message: %s", err.msg);

    char deep[4096];
    size_t n = 0;
    for (int i = 0; i < 1000; i++)
        deep[n++] = '[';
    deep[n] = '\0';
    is_int(bx_yaml_load(deep, n, "t.yaml", DEPTH, EVENTS, &doc, &err), BX_ECONFIG,
           "1000 nested flow sequences refused");
    ok(doc.events < 40, "refused early (%zu events)", doc.events);
}

static void test_events(void)
{
    bx_yaml_doc doc;
    bx_error err;
    const char *text = "a: 1\n";
    ok_err(load(text, &doc, &err), &err, "events: loads");
    /* stream, document, mapping start, key, value, mapping end, document end, stream end */
    is_int(doc.events, 8, "events counted");
    bx_yaml_free(&doc);

    char big[8192];
    size_t n = (size_t)snprintf(big, sizeof big, "[");
    for (int i = 0; i < 1000; i++)
        n += (size_t)snprintf(big + n, sizeof big - n, "%d,", i);
    big[n - 1] = ']';
    is_int(bx_yaml_load(big, n, "t.yaml", DEPTH, 100, &doc, &err), BX_ECONFIG, "event cap refused");
    is_int(doc.events, 101, "stopped at the first event over the cap");
    ok(strstr(err.msg, "more than 100 YAML events") != NULL, "event cap message: %s", err.msg);
    /* 1000 items + stream, document and sequence start and end */
    ok_err(bx_yaml_load(big, n, "t.yaml", DEPTH, 1006, &doc, &err), &err,
           "same input within a cap of exactly its events");
    is_int(doc.events, 1006, "every event counted");
    is_int(json_array_size(doc.root), 1000, "all items read");
    bx_yaml_free(&doc);

    /* The billion-laughs shape: refused at the first anchor, nothing expanded. */
    const char *bomb = "a: &a [\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\"]\n"
                       "b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]\n"
                       "c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]\n"
                       "d: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]\n";
    is_int(load(bomb, &doc, &err), BX_ECONFIG, "alias bomb refused");
    is_str(err.where, "t.yaml:1:4", "at the first anchor");
    ok(doc.events <= 5, "after %zu events", doc.events);
}

static void test_quoted_styles(void)
{
    bx_yaml_doc doc;
    bx_error err;
    const char *text = "a: 'it''s'\nb: |\n  line1\n  line2\nc: >\n  folded\n";
    ok_err(load(text, &doc, &err), &err, "styles: loads");
    is_str(json_string_value(json_object_get(doc.root, "a")), "it's", "single-quote escape");
    is_str(json_string_value(json_object_get(doc.root, "b")), "line1\nline2\n", "literal block");
    is_int(bx_yaml_quoted(&doc, "/b"), 1, "block scalar counts as not plain");
    is_int(bx_yaml_quoted(&doc, "/a"), 1, "single quoted");
    bx_yaml_free(&doc);
}

int main(void)
{
    test_basic();
    test_nulls();
    test_json();
    test_refusals();
    test_depth();
    test_events();
    test_quoted_styles();
    return tap_done();
}
