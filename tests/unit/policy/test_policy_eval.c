/* Policy rules over a statement: one finding per policy key, null -> unknown. */
#include "bx_policy.h"
#include "tap.h"

#define NOW 1780000000LL /* 2026-05-28T20:26:40Z */

static bx_policy *policy(const char *text)
{
    bx_policy *p = NULL;
    bx_error err;
    if (bx_policy_load_buffer(text, strlen(text), "eval.yaml", &p, &err) != 0) {
        printf("Bail out! policy: %s: %s\n", err.where, err.msg);
        exit(1);
    }
    return p;
}

/* A statement around containment (JSON text, stolen into the predicate). */
static json_t *statement(const char *containment_json, const char *image_id, const char *issued_at)
{
    json_error_t jerr;
    json_t *c = json_loads(containment_json, 0, &jerr);
    if (!c) {
        printf("Bail out! containment json: %s\n", jerr.text);
        exit(1);
    }
    return json_pack("{s:s, s:{s:o, s:{s:s?}, s:s?}}", "_type", BX_STATEMENT_TYPE, "predicate",
                     "containment", c, "image", "id", image_id, "issuedAt", issued_at);
}

/* Evaluate and return the one finding of rule (borrowed from *all, which the caller
 * frees), or NULL. Checks the finding's shape on the way. */
static const json_t *eval_rule(const bx_policy *p, const json_t *st, const char *rule, json_t **all)
{
    bx_eval_ctx ctx = {.now = NOW};
    bx_error err;
    const json_t *found = NULL, *f;
    size_t i, n = 0;

    *all = json_array();
    ok_err(bx_policy_eval(p, st, &ctx, *all, &err), &err, "eval for %s", rule);
    json_array_foreach(*all, i, f)
    {
        int shaped = json_object_size(f) == 5 && json_is_string(json_object_get(f, "rule")) &&
                     json_is_string(json_object_get(f, "status")) &&
                     json_object_get(f, "expected") && json_object_get(f, "observed") &&
                     json_is_string(json_object_get(f, "message"));
        if (!shaped)
            ok(0, "finding %zu has the five members", i);
        if (strcmp(json_string_value(json_object_get(f, "rule")), rule) == 0) {
            found = f;
            n++;
        }
    }
    if (n > 1)
        ok(0, "rule %s yields one finding, got %zu", rule, n);
    return found;
}

/* The rule's status (and, when msg is given, a substring of its message). */
static void expect(const bx_policy *p, const json_t *st, const char *rule, const char *status,
                   const char *msg, const char *name)
{
    json_t *all = NULL;
    const json_t *f = eval_rule(p, st, rule, &all);
    const char *m = json_string_value(json_object_get(f, "message"));
    is_str(json_string_value(json_object_get(f, "status")), status, "%s: %s", name, rule);
    if (msg)
        ok(m && strstr(m, msg), "%s: message '%s' has '%s'", name, m ? m : "(none)", msg);
    json_decref(all);
}

static const char *const demo =
    "version: 1\ncontainment:\n  network: [none]\n  readOnlyRootfs: true\n"
    "  capabilities: {allow: []}\n  noNewPrivileges: true\n  privileged: false\n";

static const char *const good_containment =
    "{\"network\": {\"mode\": \"none\", \"internal\": null, \"interfaces\": [\"lo\"], "
    "\"ports\": []}, \"rootfs\": {\"readOnly\": true}, \"capabilities\": {\"add\": [], "
    "\"drop\": [\"ALL\"], \"effective\": [], \"permitted\": [], \"inheritable\": [], "
    "\"ambient\": [], \"bounding\": []}, \"noNewPrivileges\": true, \"privileged\": false}";

static void test_demo_pass(void)
{
    bx_policy *p = policy(demo);
    json_t *st = statement(good_containment, "sha256:aa", "2026-05-28T20:00:00Z");
    json_t *all = NULL;
    const json_t *f;
    size_t i;
    static const char *const order[] = {"containment.network", "containment.rootfs",
                                        "containment.capabilities", "containment.no_new_privileges",
                                        "containment.privileged"};

    eval_rule(p, st, "containment.network", &all);
    is_int(json_array_size(all), 5, "demo: five findings, one per key");
    json_array_foreach(all, i, f)
    {
        is_str(json_string_value(json_object_get(f, "status")), "pass", "demo: %s passes",
               json_string_value(json_object_get(f, "rule")));
        if (i < 5)
            is_str(json_string_value(json_object_get(f, "rule")), order[i], "demo: order %zu", i);
    }
    json_decref(all);
    json_decref(st);
    bx_policy_free(p);
}

static void test_only_present_keys(void)
{
    bx_policy *p = policy("version: 1\n");
    json_t *st = statement("{}", NULL, NULL), *all = NULL;
    eval_rule(p, st, "none", &all);
    is_int(json_array_size(all), 0, "no keys, no findings");
    json_decref(all);
    json_decref(st);
    bx_policy_free(p);

    bx_error err;
    bx_eval_ctx ctx = {.now = NOW};
    p = policy(demo);
    all = json_array();
    json_t *bad = json_pack("{s:s}", "_type", BX_STATEMENT_TYPE);
    is_int(bx_policy_eval(p, bad, &ctx, all, &err), BX_EINVAL, "statement without predicate");
    is_int(json_array_size(all), 0, "nothing appended on error");
    json_decref(bad);
    json_decref(all);
    bx_policy_free(p);
}

static void test_network(void)
{
    bx_policy *p = policy("version: 1\ncontainment:\n  network: [none]\n");
    json_t *st =
        statement("{\"network\": {\"mode\": \"bridge\", \"internal\": false}}", NULL, NULL);
    expect(p, st, "containment.network", "fail", "network mode is bridge; policy allows none",
           "bridge");
    json_decref(st);
    st = statement("{\"network\": {\"mode\": null, \"internal\": null}}", NULL, NULL);
    expect(p, st, "containment.network", "unknown", "not observed", "null mode");
    json_decref(st);
    st = statement("{\"network\": null}", NULL, NULL);
    expect(p, st, "containment.network", "unknown", NULL, "null network");
    json_decref(st);
    st = statement("{}", NULL, NULL);
    expect(p, st, "containment.network", "unknown", NULL, "absent network");
    json_decref(st);
    bx_policy_free(p);

    p = policy("version: 1\ncontainment:\n  network: [internal, container, build-net]\n");
    st = statement("{\"network\": {\"mode\": \"mynet\", \"internal\": true}}", NULL, NULL);
    expect(p, st, "containment.network", "pass", "mynet (internal)", "internal network");
    json_decref(st);
    st = statement("{\"network\": {\"mode\": \"mynet\", \"internal\": false}}", NULL, NULL);
    expect(p, st, "containment.network", "fail", NULL, "non-internal network");
    json_decref(st);
    st = statement("{\"network\": {\"mode\": \"mynet\", \"internal\": null}}", NULL, NULL);
    expect(p, st, "containment.network", "unknown", "internal not observed",
           "internal flag unknown");
    json_decref(st);
    st = statement("{\"network\": {\"mode\": \"host\", \"internal\": true}}", NULL, NULL);
    expect(p, st, "containment.network", "fail", NULL, "host is never internal");
    json_decref(st);
    st = statement("{\"network\": {\"mode\": \"container:0123abcd\", \"internal\": null}}", NULL,
                   NULL);
    expect(p, st, "containment.network", "pass", NULL, "container:<id>");
    json_decref(st);
    st = statement("{\"network\": {\"mode\": \"build-net\", \"internal\": false}}", NULL, NULL);
    expect(p, st, "containment.network", "pass", NULL, "named network");
    json_decref(st);
    st = statement("{\"network\": {\"mode\": \"none\", \"internal\": null}}", NULL, NULL);
    expect(p, st, "containment.network", "fail", "policy allows internal, container, build-net",
           "none not in the list");
    json_decref(st);
    bx_policy_free(p);
}

static void test_bools(void)
{
    bx_policy *p = policy("version: 1\ncontainment:\n  readOnlyRootfs: true\n"
                          "  noNewPrivileges: true\n  privileged: false\n");
    json_t *st = statement("{\"rootfs\": {\"readOnly\": false}, \"noNewPrivileges\": false, "
                           "\"privileged\": true}",
                           NULL, NULL);
    expect(p, st, "containment.rootfs", "fail", "rootfs is writable; policy requires read-only",
           "writable rootfs");
    expect(p, st, "containment.no_new_privileges", "fail",
           "no-new-privileges is off; policy requires on", "nnp off");
    expect(p, st, "containment.privileged", "fail",
           "session is privileged; policy requires not privileged", "privileged");
    json_decref(st);

    st = statement("{\"rootfs\": {\"readOnly\": null}, \"noNewPrivileges\": null, "
                   "\"privileged\": null}",
                   NULL, NULL);
    expect(p, st, "containment.rootfs", "unknown", "rootfs not observed", "null rootfs");
    expect(p, st, "containment.no_new_privileges", "unknown", NULL, "null nnp");
    expect(p, st, "containment.privileged", "unknown", NULL, "null privileged");
    json_decref(st);
    bx_policy_free(p);

    p = policy("version: 1\ncontainment:\n  readOnlyRootfs: false\n  privileged: true\n");
    st = statement("{\"rootfs\": {\"readOnly\": false}, \"privileged\": true}", NULL, NULL);
    expect(p, st, "containment.rootfs", "pass", "policy allows either", "writable allowed");
    expect(p, st, "containment.privileged", "pass", NULL, "privileged allowed");
    json_decref(st);
    st = statement("{\"rootfs\": null, \"privileged\": null}", NULL, NULL);
    expect(p, st, "containment.rootfs", "unknown", NULL, "null fails even when either is allowed");
    json_decref(st);
    bx_policy_free(p);
}

static void test_capabilities(void)
{
    bx_policy *p =
        policy("version: 1\ncontainment:\n  capabilities: {allow: [NET_BIND_SERVICE]}\n");
    json_t *st, *all = NULL;

    st =
        statement("{\"capabilities\": {\"effective\": [\"NET_BIND_SERVICE\"], \"permitted\": "
                  "[\"NET_BIND_SERVICE\"], \"ambient\": [], \"bounding\": [\"NET_BIND_SERVICE\"]}, "
                  "\"noNewPrivileges\": false}",
                  NULL, NULL);
    expect(p, st, "containment.capabilities", "pass", NULL, "within allow");
    json_decref(st);

    st = statement("{\"capabilities\": {\"effective\": [\"NET_RAW\"], \"permitted\": "
                   "[\"NET_RAW\", \"SYS_ADMIN\"], \"ambient\": null, \"bounding\": null}, "
                   "\"noNewPrivileges\": true}",
                   NULL, NULL);
    expect(p, st, "containment.capabilities", "fail",
           "capabilities beyond those allowed: NET_RAW, SYS_ADMIN; policy allows NET_BIND_SERVICE",
           "beyond allow");
    const json_t *f = eval_rule(p, st, "containment.capabilities", &all);
    json_t *want = json_pack("[ss]", "NET_RAW", "SYS_ADMIN");
    ok(json_equal(json_object_get(f, "observed"), want), "observed is the union, deduplicated");
    json_decref(want);
    json_decref(all);
    json_decref(st);

    st = statement("{\"capabilities\": {\"effective\": [], \"permitted\": [], \"ambient\": [], "
                   "\"bounding\": [\"SYS_ADMIN\"]}, \"noNewPrivileges\": false}",
                   NULL, NULL);
    expect(p, st, "containment.capabilities", "fail", "SYS_ADMIN", "bounding counts without nnp");
    json_decref(st);
    st = statement("{\"capabilities\": {\"effective\": [], \"permitted\": [], \"ambient\": [], "
                   "\"bounding\": [\"SYS_ADMIN\"]}, \"noNewPrivileges\": null}",
                   NULL, NULL);
    expect(p, st, "containment.capabilities", "fail", NULL, "bounding counts when nnp unknown");
    json_decref(st);
    st = statement("{\"capabilities\": {\"effective\": [], \"permitted\": [], \"ambient\": [], "
                   "\"bounding\": [\"SYS_ADMIN\"]}, \"noNewPrivileges\": true}",
                   NULL, NULL);
    expect(p, st, "containment.capabilities", "pass", NULL, "bounding ignored with nnp");
    json_decref(st);
    st = statement("{\"capabilities\": {\"effective\": [41], \"permitted\": [], \"ambient\": []},"
                   " \"noNewPrivileges\": true}",
                   NULL, NULL);
    expect(p, st, "containment.capabilities", "fail", "allowed: 41", "unknown bit never allowed");
    json_decref(st);
    st = statement("{\"capabilities\": {\"effective\": null, \"permitted\": null, \"ambient\": "
                   "null, \"bounding\": [\"CHOWN\"]}, \"noNewPrivileges\": false}",
                   NULL, NULL);
    expect(p, st, "containment.capabilities", "unknown", "capabilities not observed",
           "all sets null");
    json_decref(st);
    st = statement("{\"capabilities\": null}", NULL, NULL);
    expect(p, st, "containment.capabilities", "unknown", NULL, "capabilities null");
    json_decref(st);
    bx_policy_free(p);

    p = policy("version: 1\ncontainment:\n  capabilities: {}\n");
    st = statement("{\"capabilities\": {\"effective\": [\"CHOWN\"], \"permitted\": [], "
                   "\"ambient\": []}, \"noNewPrivileges\": true}",
                   NULL, NULL);
    expect(p, st, "containment.capabilities", "fail", "policy allows none",
           "capabilities without allow allows none");
    json_decref(st);
    bx_policy_free(p);
}

static void test_image(void)
{
    bx_policy *p =
        policy("version: 1\nimages:\n  pins:\n"
               "    - sha256:bb9a7d70aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\n");
    const char *pinned = "sha256:bb9a7d70aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa";
    const char *other = "sha256:cc9a7d70aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa";
    json_t *st = statement("{}", pinned, NULL);
    expect(p, st, "image.allowed", "pass", "is pinned", "pinned image");
    json_decref(st);
    st = statement("{}", other, NULL);
    expect(p, st, "image.allowed", "fail", "is not in images.pins (1 pinned)", "other image");
    json_decref(st);
    st = statement("{}", NULL, NULL);
    expect(p, st, "image.allowed", "unknown", NULL, "image id null");
    json_decref(st);
    bx_policy_free(p);
}

static void test_age(void)
{
    bx_policy *p = policy("version: 1\ncertificate:\n  maxAge: 1h\n");
    struct {
        const char *at, *status, *name;
    } cases[] = {
        {"2026-05-28T20:00:00Z", "pass", "26m old"},
        {"2026-05-28T19:26:40Z", "pass", "exactly maxAge"},
        {"2026-05-28T19:21:40Z", "pass", "maxAge + clockSkew"},
        {"2026-05-28T19:21:39Z", "fail", "one second past maxAge + clockSkew"},
        {"2026-05-27T20:26:40Z", "fail", "a day old"},
        {"2026-05-28T21:00:00Z", "pass", "in the future (not this rule's business)"},
        {NULL, "unknown", "issuedAt null"},
        {"yesterday", "unknown", "issuedAt invalid"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        json_t *st = statement("{}", NULL, cases[i].at);
        expect(p, st, "certificate.age", cases[i].status, NULL, cases[i].name);
        json_decref(st);
    }
    json_t *st = statement("{}", NULL, "2026-05-27T20:26:40Z");
    expect(p, st, "certificate.age", "fail",
           "certificate issued 1d ago (at 2026-05-27T20:26:40Z); policy allows 1h (+5m clock skew)",
           "age message");
    json_decref(st);
    bx_policy_free(p);

    p = policy("version: 1\n");
    st = statement("{}", NULL, "2000-01-01T00:00:00Z");
    json_t *all = NULL;
    ok(eval_rule(p, st, "certificate.age", &all) == NULL, "no maxAge, no age finding");
    json_decref(all);
    json_decref(st);
    bx_policy_free(p);
}

static void test_finding_add(void)
{
    json_t *f = json_array();
    bx_finding_add(f, "x.rule", "warn", NULL, json_integer(3), "line one\nline %d", 2);
    const json_t *x = json_array_get(f, 0);
    is_str(json_string_value(json_object_get(x, "rule")), "x.rule", "rule");
    is_str(json_string_value(json_object_get(x, "status")), "warn", "status");
    ok(json_is_null(json_object_get(x, "expected")), "NULL expected -> null");
    is_int(json_integer_value(json_object_get(x, "observed")), 3, "observed stolen");
    is_str(json_string_value(json_object_get(x, "message")), "line one?line 2",
           "message kept on one line");
    json_decref(f);
}

int main(void)
{
    test_demo_pass();
    test_only_present_keys();
    test_network();
    test_bools();
    test_capabilities();
    test_image();
    test_age();
    test_finding_add();
    return tap_done();
}
