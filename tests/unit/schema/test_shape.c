/* SPDX-License-Identifier: Apache-2.0 */
/* The shape language and predicate versions (schema/shape.c, containment.c, predicate.c,
 * merge_patch.c): which predicateType names which version, what each version's closed schema
 * accepts, what v1 lacks, nulls put back for documents written by difference, and RFC 7396's
 * own examples of a merge patch (Appendix A). */
#include "tap.h"
#include "bx_schema.h"

#include <string.h>

static json_t *parse(const char *s)
{
    json_error_t e;
    json_t *v = json_loads(s, JSON_DECODE_ANY, &e);
    if (!v)
        printf("#   cannot parse %s: %s\n", s, e.text);
    return v;
}

/* What a v2 statement carries that a v1 one does not: nulled by the patch (a merge patch deletes
 * with null, and the fixture tools put back only what the version carries). */
#define V1_CONTAINMENT                                                                             \
    "\"sysctls\":null,\"processes\":null,\"systemPaths\":null,\"descriptors\":null,"               \
    "\"hostObjects\":null,\"channels\":null,\"references\":null,\"namespaceCreation\":null," \
    "\"propagationPeers\":null," \
    "\"seccompPrograms\":null,"                                                                  \
    "\"devices\":{\"nodes\":null,\"mknod\":null,\"nodesAnywhere\":null,\"walk\":null},"   \
    "\"namespaces\":{\"mnt\":null,\"time\":null,\"cgroup\":"          \
    "{\"shared\":null},\"ipc\":{\"shared\":null},\"net\":{\"shared\":null},\"pid\":{\"shared\":"     \
    "null},\"user\":{\"shared\":null},\"uts\":{\"shared\":null}},\"user\":{\"everyUid\":null,"      \
    "\"everyGid\":null,\"everyGroup\":null,\"inNamespace\":null},"                               \
    "\"network\":{\"links\":null,\"networks\":null,\"routes\":null},"                         \
    "\"apparmor\":{\"kernel\":null}"
#define V1_EVIDENCE "\"evidence\":{\"collection\":null},\"source\":{\"ignored\":null}"

static void versions(void)
{
    static const struct {
        const char *type;
        unsigned want;
    } t[] = {
        {"urn:boxcert:containment:v1", 1},
        {"urn:boxcert:containment:v2", 2},
        {"urn:boxcert:containment:v3", 3},
        {"urn:boxcert:containment:v255", 255},
        {"urn:boxcert:containment:v256", 0},
        {"urn:boxcert:containment:v01", 0},
        {"urn:boxcert:containment:v", 0},
        {"urn:boxcert:containment:v1x", 0},
        {"urn:boxcert:containment:V1", 0},
        {"urn:boxcert:containment:v-1", 0},
        {"urn:boxcert:containment:v0", 0},
        {"urn:example:v1", 0},
        {"", 0},
    };
    char buf[40];
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
        is_int(bx_predicate_version(t[i].type), t[i].want, "version of '%s'", t[i].type);
    is_int(bx_predicate_version(NULL), 0, "no type: no version");
    is_str(bx_predicate_type(BX_PREDICATE_LATEST, buf), BX_PREDICATE_TYPE, "the latest is what collect writes");
    is_str(bx_predicate_type(3, buf), "urn:boxcert:containment:v3", "v3 is the latest");
    ok(bx_predicate_version_lacks(1, "containment.sysctls"), "v1 lacks containment.sysctls");
    ok(!bx_predicate_version_lacks(2, "containment.sysctls"), "v2 carries it");
    ok(!bx_predicate_version_lacks(1, "containment.rootfs"), "v1 carries rootfs");
    ok(bx_predicate_version_lacks(2, "containment.channels"), "v2 lacks containment.channels");
    ok(!bx_predicate_version_lacks(3, "containment.channels"), "v3 carries it");
    ok(bx_predicate_version_lacks(2, "containment.references"), "v2 lacks containment.references");
    ok(!bx_predicate_version_lacks(3, "containment.references"), "v3 carries it");
    ok(bx_predicate_version_lacks(2, "containment.namespaceCreation"),
       "v2 lacks containment.namespaceCreation");
    ok(!bx_predicate_version_lacks(3, "containment.namespaceCreation"), "v3 carries it");
    ok(bx_predicate_lacks(BX_PREDICATE_LATEST)[0] == NULL, "the latest lacks nothing");
    ok(bx_predicate_lacks(99)[0] == NULL, "an unknown version: nothing listed");
    for (const char *const *l = bx_predicate_lacks(1); *l; l++)
        ok(strncmp(*l, "requested", 9) != 0, "a request is not a fact: %s", *l);
}

/* The base statement (a v2 one) turned into each case: the closed check's verdict. */
static void closed(void)
{
    json_t *base = NULL;
    json_error_t je;
    char path[4096];
    snprintf(path, sizeof path, "%s/fixtures/base/statement.json", BOXCERT_SOURCE_DIR);
    base = json_load_file(path, 0, &je);
    if (!ok(base != NULL, "fixtures/base/statement.json loads")) {
        printf("#   %s\n", je.text);
        return;
    }
    static const struct {
        const char *patch, *where, *msg; /* msg NULL: accepted */
        int code;
    } t[] = {
        {"{}", NULL, NULL, 0},
        /* v1 has its own closed schema: no v2 member, every v1 member */
        {"{\"predicateType\":\"urn:boxcert:containment:v1\"}", "/predicate/containment/apparmor/kernel",
         "unknown member", BX_EINVAL},
        {"{\"predicateType\":\"urn:boxcert:containment:v1\",\"predicate\":{\"containment\":"
         "{" V1_CONTAINMENT "}," V1_EVIDENCE "}}",
         NULL, NULL, 0},
        {"{\"predicateType\":\"urn:boxcert:containment:v1\",\"predicate\":{\"containment\":"
         "{" V1_CONTAINMENT "}}}",
         "/predicate/evidence/collection", "unknown member", BX_EINVAL},
        {"{\"predicate\":{\"containment\":{\"sysctls\":null}}}", "/predicate/containment/sysctls",
         "expected an object, found null", BX_EINVAL},
        {"{\"predicateType\":\"urn:boxcert:containment:v4\"}", "/predicateType", "v4 is newer",
         BX_EUNSUPPORTED},
        {"{\"predicateType\":\"urn:boxcert:containment:v9\"}", "/predicateType", "v9 is newer",
         BX_EUNSUPPORTED},
        {"{\"predicateType\":\"urn:boxcert:containment:v02\"}", "/predicateType",
         "is not urn:boxcert:containment:v", BX_EUNSUPPORTED},
        {"{\"predicateType\":\"urn:boxcert:containment:v0\"}", "/predicateType",
         "is not urn:boxcert:containment:v", BX_EUNSUPPORTED},
        /* sysctls: names are sysctl names, entries {engine, kernel} */
        {"{\"predicate\":{\"containment\":{\"sysctls\":{\"net..x\":{\"engine\":null,\"kernel\":"
         "null}}}}}",
         "/predicate/containment/sysctls/net..x", "not a sysctl name", BX_EINVAL},
        {"{\"predicate\":{\"containment\":{\"sysctls\":{\"net/ipv4\":{\"engine\":null,\"kernel\":"
         "null}}}}}",
         "/predicate/containment/sysctls/net~1ipv4", "not a sysctl name", BX_EINVAL},
        {"{\"predicate\":{\"containment\":{\"sysctls\":{\"Net.x\":{\"engine\":null,\"kernel\":"
         "null}}}}}",
         "/predicate/containment/sysctls/Net.x", "not a sysctl name", BX_EINVAL},
        {"{\"predicate\":{\"containment\":{\"sysctls\":{\"net.x\":{\"engine\":1,\"kernel\":null}}}}"
         "}",
         "/predicate/containment/sysctls/net.x/engine", "expected a string or null", BX_EINVAL},
        {"{\"predicate\":{\"containment\":{\"sysctls\":{\"net.x\":{\"engine\":null,\"kernel\":null,"
         "\"spec\":\"1\"}}}}}",
         "/predicate/containment/sysctls/net.x/spec", "unknown member", BX_EINVAL},
        {"{\"predicate\":{\"containment\":{\"sysctls\":[]}}}", "/predicate/containment/sysctls",
         "expected an object", BX_EINVAL},
        /* v2 types what was requested by the requested file's shapes; v1 took any value */
        {"{\"predicate\":{\"requested\":{\"containment\":{\"rootfs\":{\"readOnly\":\"yes\"}},"
         "\"sha256\":\"0000000000000000000000000000000000000000000000000000000000000000\"}}}",
         "/predicate/requested/containment/rootfs/readOnly", "expected true or false", BX_EINVAL},
        {"{\"predicateType\":\"urn:boxcert:containment:v1\",\"predicate\":{" V1_EVIDENCE
         ",\"containment\":{" V1_CONTAINMENT "},\"requested\":{\"containment\":{\"rootfs\":{"
         "\"readOnly\":\"yes\"}},"
         "\"sha256\":\"0000000000000000000000000000000000000000000000000000000000000000\"}}}",
         NULL, NULL, 0},
        {"{\"predicate\":{\"requested\":{\"containment\":{\"network\":\"none\",\"sysctls\":"
         "{\"net.ipv4.ip_forward\":\"0\"}},\"sha256\":"
         "\"0000000000000000000000000000000000000000000000000000000000000000\"}}}",
         NULL, NULL, 0},
        {"{\"predicateType\":\"urn:boxcert:containment:v1\",\"predicate\":{" V1_EVIDENCE
         ",\"containment\":{" V1_CONTAINMENT "},\"requested\":{\"containment\":{\"sysctls\":{}},"
         "\"sha256\":"
         "\"0000000000000000000000000000000000000000000000000000000000000000\"}}}",
         "/predicate/requested/containment/sysctls", "unknown member", BX_EINVAL},
    };
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        json_t *p = parse(t[i].patch), *st = p ? bx_json_merge_patch(base, p) : NULL;
        bx_error e = {0};
        int rc;
        rc = st ? bx_predicate_fill_nulls(json_object_get(st, "predicate"),
                                          bx_statement_version(st), &e)
                : -99;
        if (rc == 0)
            rc = bx_statement_check(st, &e);
        if (!t[i].msg)
            ok_err(rc, &e, "accepted: %s", t[i].patch);
        else if (!ok(rc == t[i].code && !strcmp(e.where, t[i].where) && strstr(e.msg, t[i].msg),
                     "refused: %s", t[i].patch))
            printf("#   rc %d where '%s' msg '%s'\n", rc, e.where, e.msg);
        json_decref(p);
        json_decref(st);
    }
    json_decref(base);
}

static void fill(void)
{
    json_t *p = parse("{\"containment\":{\"rootfs\":{},\"mounts\":[{\"type\":\"bind\"}],"
                      "\"sysctls\":{\"net.x\":{}}}}");
    bx_error e;
    ok(p && bx_predicate_fill_nulls(p, 2, &e) == 0, "fill nulls (v2)");
    ok(json_is_null(json_object_get(json_object_get(json_object_get(p, "containment"), "rootfs"),
                                    "readOnly")),
       "a member of an object: null");
    ok(json_is_null(json_object_get(
           json_array_get(json_object_get(json_object_get(p, "containment"), "mounts"), 0),
           "destination")),
       "a member of a list's object: null");
    ok(json_is_null(json_object_get(
           json_object_get(json_object_get(json_object_get(p, "containment"), "sysctls"), "net.x"),
           "kernel")),
       "a member of a map's object: null");
    ok(json_is_null(json_object_get(p, "requested")), "a top member: null");
    json_decref(p);
    p = parse("{\"containment\":{}}");
    ok(p && bx_predicate_fill_nulls(p, 1, &e) == 0, "fill nulls (v1)");
    ok(!json_object_get(json_object_get(p, "containment"), "sysctls"), "v1: no sysctls put back");
    json_decref(p);
}

/* RFC 7396, Appendix A */
static void merge_patch(void)
{
    static const char *const t[][3] = {
        {"{\"a\":\"b\"}", "{\"a\":\"c\"}", "{\"a\":\"c\"}"},
        {"{\"a\":\"b\"}", "{\"b\":\"c\"}", "{\"a\":\"b\",\"b\":\"c\"}"},
        {"{\"a\":\"b\"}", "{\"a\":null}", "{}"},
        {"{\"a\":\"b\",\"b\":\"c\"}", "{\"a\":null}", "{\"b\":\"c\"}"},
        {"{\"a\":[\"b\"]}", "{\"a\":\"c\"}", "{\"a\":\"c\"}"},
        {"{\"a\":\"c\"}", "{\"a\":[\"b\"]}", "{\"a\":[\"b\"]}"},
        {"{\"a\":{\"b\":\"c\"}}", "{\"a\":{\"b\":\"d\",\"c\":null}}", "{\"a\":{\"b\":\"d\"}}"},
        {"{\"a\":[{\"b\":\"c\"}]}", "{\"a\":[1]}", "{\"a\":[1]}"},
        {"[\"a\",\"b\"]", "[\"c\",\"d\"]", "[\"c\",\"d\"]"},
        {"{\"a\":\"b\"}", "[\"c\"]", "[\"c\"]"},
        {"{\"a\":\"foo\"}", "null", "null"},
        {"{\"a\":\"foo\"}", "\"bar\"", "\"bar\""},
        {"{\"e\":null}", "{\"a\":1}", "{\"e\":null,\"a\":1}"},
        {"[1,2]", "{\"a\":\"b\",\"c\":null}", "{\"a\":\"b\"}"},
        {"{}", "{\"a\":{\"bb\":{\"ccc\":null}}}", "{\"a\":{\"bb\":{}}}"},
    };
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        json_t *target = parse(t[i][0]), *patch = parse(t[i][1]), *want = parse(t[i][2]);
        json_t *got = bx_json_merge_patch(target, patch);
        ok(got && want && json_equal(got, want), "RFC 7396 A.%zu: %s + %s", i + 1, t[i][0],
           t[i][1]);
        json_decref(target);
        json_decref(patch);
        json_decref(want);
        json_decref(got);
    }
}

static void sysctl_values(void)
{
    ok(bx_sysctl_value_equal("0 2147483647", "0\t2147483647"), "tab and space alike");
    ok(bx_sysctl_value_equal(" 1 ", "1\n"), "ends ignored");
    ok(!bx_sysctl_value_equal("1", "10"), "1 is not 10");
    ok(!bx_sysctl_value_equal("10", "1"), "10 is not 1");
    ok(!bx_sysctl_value_equal("0 2", "0"), "0 2 is not 0");
    ok(!bx_sysctl_value_equal("", "0"), "empty is not 0");
    ok(bx_sysctl_value_equal("", " "), "empty is blank");
    ok(!bx_sysctl_value_equal("02", "2"), "compared as text, not numbers");
}

int main(void)
{
    versions();
    closed();
    fill();
    merge_patch();
    sysctl_values();
    return tap_done();
}
