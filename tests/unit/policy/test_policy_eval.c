/* SPDX-License-Identifier: Apache-2.0 */
/* Policy rules over a statement: one finding per policy key, null -> unknown. The rules of
 * the whole language are covered case by case in fixtures/policy-eval/; these are the
 * finer points. */
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
    return json_pack("{s:s, s:{s:o, s:{s:s?}, s:s?, s:{s:s, s:[]}}}", "_type", BX_STATEMENT_TYPE,
                     "predicate", "containment", c, "image", "id", image_id, "issuedAt", issued_at,
                     "evidence", "level", "engine+kernel", "discrepancies");
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
        const char *r = json_string_value(json_object_get(f, "rule"));
        size_t members = r && strncmp(r, "cis.", 4) == 0 ? 6 : 5;
        int shaped = json_object_size(f) == members && r &&
                     json_is_string(json_object_get(f, "status")) &&
                     json_object_get(f, "expected") && json_object_get(f, "observed") &&
                     json_is_string(json_object_get(f, "message"));
        if (!shaped)
            ok(0, "finding %zu has the five members (six with cis)", i);
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
    static const char *const order[] = {"containment.network",      "containment.rootfs",
                                        "containment.capabilities", "containment.no_new_privileges",
                                        "containment.privileged",   "evidence.level",
                                        "evidence.discrepancies"};

    eval_rule(p, st, "containment.network", &all);
    is_int(json_array_size(all), 7, "demo: one finding per key, and the evidence defaults");
    json_array_foreach(all, i, f)
    {
        is_str(json_string_value(json_object_get(f, "status")), "pass", "demo: %s passes",
               json_string_value(json_object_get(f, "rule")));
        if (i < 7)
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
    is_int(json_array_size(all), 2, "no keys: only the defaults' findings");
    is_str(json_string_value(json_object_get(json_array_get(all, 0), "rule")), "evidence.level",
           "default evidence.accept: all levels");
    is_str(json_string_value(json_object_get(json_array_get(all, 1), "rule")),
           "evidence.discrepancies", "default evidence.discrepancies: deny");
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
                   "[\"NET_RAW\", \"SYS_ADMIN\"], \"ambient\": [], \"bounding\": null}, "
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
    st = statement("{\"capabilities\": {\"effective\": [], \"permitted\": [], \"ambient\": null,"
                   " \"bounding\": []}, \"noNewPrivileges\": true}",
                   NULL, NULL);
    expect(p, st, "containment.capabilities", "unknown", NULL, "one set null: not observed");
    json_decref(st);
    st = statement("{\"capabilities\": {\"effective\": [], \"permitted\": [], \"ambient\": [],"
                   " \"bounding\": null}, \"noNewPrivileges\": false}",
                   NULL, NULL);
    expect(p, st, "containment.capabilities", "unknown", NULL,
           "bounding null while it counts (nnp off)");
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

/* Every key of the language at once. */
static const char *const full =
    "version: 1\nbenchmark: cis-docker-1.6\n"
    "certificate: {maxAge: 24h, maxCollectionDelay: 60s}\n"
    "collector: {minVersion: 0.1.0}\n"
    "images: {pins: [sha256:aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa], "
    "requireCollectorPin: true}\n"
    "source: {required: true}\n"
    "containment:\n  network: [none]\n  publishedPorts: false\n  readOnlyRootfs: true\n"
    "  capabilities: {allow: []}\n  noNewPrivileges: true\n  seccomp: {allow: [default]}\n"
    "  apparmor: required\n  selinux: any\n  privileged: false\n  runtimes: [runsc]\n"
    "  user: {nonRoot: true}\n  namespaces: {host: [user]}\n  userns: any\n"
    "  resources: {memoryMax: 1Gi, pidsMax: 100, cpusMax: \"1.5\"}\n"
    "  writable: [{path: /tmp, kinds: [tmpfs], maxSize: 64Mi}]\n"
    "  forbiddenMounts: [{source: /etc, access: rw}]\n  devices: none\n"
    "  mountPropagationShared: false\n  cgroupParentDefault: true\n  restartMaxRetries: 3\n"
    "evidence: {accept: [engine+kernel], discrepancies: warn}\nrequested: {mustMatch: true}\n";

/* Fail closed: with nothing observed, no rule passes, and CIS findings say which id. */
static void test_nothing_observed(void)
{
    bx_policy *p = policy(full);
    json_t *st = json_pack("{s:s, s:{}}", "_type", BX_STATEMENT_TYPE, "predicate"), *all = NULL;
    const json_t *f;
    size_t i, cis = 0;

    eval_rule(p, st, "none", &all);
    is_int(json_array_size(all), 31 + 25, "31 policy rules and 25 CIS checks");
    json_array_foreach(all, i, f)
    {
        const char *rule = json_string_value(json_object_get(f, "rule"));
        const char *status = json_string_value(json_object_get(f, "status"));
        ok(strcmp(status, "fail") == 0 || strcmp(status, "unknown") == 0,
           "nothing observed: %s is %s", rule, status);
        if (strncmp(rule, "cis.", 4) == 0) {
            cis++;
            is_str(json_string_value(json_object_get(f, "cis")), rule + 4, "%s names its id", rule);
        } else {
            ok(json_object_get(f, "cis") == NULL, "%s has no cis member", rule);
        }
    }
    is_int(cis, 25, "25 CIS findings");
    json_decref(all);
    json_decref(st);

    /* the same with containment: null */
    st = json_pack("{s:s, s:{s:n}}", "_type", BX_STATEMENT_TYPE, "predicate", "containment");
    eval_rule(p, st, "none", &all);
    json_array_foreach(all, i, f)
    {
        const char *status = json_string_value(json_object_get(f, "status"));
        ok(strcmp(status, "fail") == 0 || strcmp(status, "unknown") == 0,
           "containment null: %s is %s", json_string_value(json_object_get(f, "rule")), status);
    }
    json_decref(all);
    json_decref(st);
    bx_policy_free(p);
}

static json_t *with_times(const char *issued, const char *started)
{
    return json_pack("{s:s, s:{s:s, s:{s:s}}}", "_type", BX_STATEMENT_TYPE, "predicate", "issuedAt",
                     issued, "session", "startedAt", started);
}

static void test_collection_delay(void)
{
    bx_policy *p = policy("version: 1\ncertificate: {maxCollectionDelay: 60s}\n");
    struct {
        const char *issued, *status, *msg;
    } cases[] = {
        {"2026-05-28T20:01:00Z", "pass",
         "collected 1m after the session started; policy allows 60s"},
        {"2026-05-28T20:01:01Z", "fail", "collected 1m1s after"},
        {"2026-05-28T19:56:00Z", "pass", NULL}, /* within the clock skew */
        {"2026-05-28T19:54:59Z", "fail", "issued 5m1s before the session started"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        json_t *st = with_times(cases[i].issued, "2026-05-28T20:00:00Z");
        expect(p, st, "certificate.collection_delay", cases[i].status, cases[i].msg,
               cases[i].issued);
        json_decref(st);
    }
    json_t *st = with_times("2026-05-28T20:00:00Z", "yesterday");
    expect(p, st, "certificate.collection_delay", "unknown", "not observed", "bad startedAt");
    json_decref(st);
    bx_policy_free(p);
}

static void test_collector_version(void)
{
    bx_policy *p = policy("version: 1\ncollector: {minVersion: 1.10.0}\n");
    struct {
        const char *v, *status;
    } cases[] = {
        {"1.10.0", "pass"},        {"1.9.9", "fail"},   {"1.10.1", "pass"},
        {"2.0.0", "pass"},         {"1.2.0", "fail"},   {"1.10.0-rc1", "fail"},
        {"1.10.0+build7", "pass"}, {"1.10", "unknown"}, {"v1.10.0", "unknown"},
        {"01.10.0", "unknown"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        json_t *st = json_pack("{s:s, s:{s:{s:s, s:s}}}", "_type", BX_STATEMENT_TYPE, "predicate",
                               "collector", "name", "boxcert", "version", cases[i].v);
        expect(p, st, "collector.version", cases[i].status, NULL, cases[i].v);
        json_decref(st);
    }
    bx_policy_free(p);
}

static void test_lsm_any_and_na(void)
{
    bx_policy *p = policy("version: 1\ncontainment: {apparmor: any, selinux: required}\n");
    json_t *st = statement("{\"apparmor\": {\"available\": true, \"profile\": null}, "
                           "\"selinux\": {\"available\": true, "
                           "\"label\": \"system_u:system_r:spc_t:s0\"}}",
                           NULL, NULL);
    expect(p, st, "containment.apparmor", "pass", "policy allows any", "any: no profile passes");
    expect(p, st, "containment.selinux", "fail", NULL, "spc_t is not confinement");
    json_decref(st);
    st = statement("{\"apparmor\": {\"available\": null, \"profile\": null}, "
                   "\"selinux\": {\"available\": false, \"label\": null}}",
                   NULL, NULL);
    expect(p, st, "containment.apparmor", "unknown", NULL, "availability not observed");
    expect(p, st, "containment.selinux", "n/a", NULL, "host without SELinux");
    json_decref(st);
    bx_policy_free(p);
}

static void test_user_from_spec(void)
{
    bx_policy *p = policy("version: 1\ncontainment: {user: {nonRoot: true}}\n");
    struct {
        const char *spec, *status;
    } cases[] = {
        {"1000:1000", "pass"},  {"1000", "unknown"},  {"0", "fail"},         {"root", "fail"},
        {"", "fail"},           {"1000:0", "fail"},   {"1000:root", "fail"}, {"app", "unknown"},
        {"app:app", "unknown"}, {":1000", "unknown"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char c[128];
        snprintf(c, sizeof c,
                 "{\"user\": {\"spec\": \"%s\", \"uids\": null, \"gids\": null, \"groups\": null}}",
                 cases[i].spec);
        json_t *st = statement(c, NULL, NULL);
        expect(p, st, "containment.user", cases[i].status, NULL, cases[i].spec);
        json_decref(st);
    }
    bx_policy_free(p);

    p = policy("version: 1\ncontainment: {user: {uids: [1000, 1001]}}\n");
    json_t *st = statement("{\"user\": {\"spec\": \"x\", \"uids\": [1000, 1001, 1000, 1000], "
                           "\"gids\": [0, 0, 0, 0], \"groups\": [0]}}",
                           NULL, NULL);
    expect(p, st, "containment.user", "pass", NULL, "uids listed; gid not constrained by uids");
    json_decref(st);
    st = statement("{\"user\": {\"spec\": \"x\", \"uids\": [1000, 0, 1000, 1000], "
                   "\"gids\": [1, 1, 1, 1], \"groups\": []}}",
                   NULL, NULL);
    expect(p, st, "containment.user", "fail", "runs as root", "saved uid 0");
    json_decref(st);
    bx_policy_free(p);
}

static void test_cpus(void)
{
    bx_policy *p = policy("version: 1\ncontainment: {resources: {cpusMax: \"0.25\"}}\n");
    struct {
        const char *res, *status;
    } cases[] = {
        {"{\"nanoCpus\": 250000000}", "pass"},
        {"{\"nanoCpus\": 250000001}", "fail"},
        {"{\"cpuQuota\": 25000, \"cpuPeriod\": 100000}", "pass"},
        {"{\"cpuQuota\": 25000}", "pass"}, /* the kernel's default period, 100ms */
        {"{\"cpuQuota\": 50000, \"cpuPeriod\": 100000, \"nanoCpus\": 200000000}", "pass"},
        {"{\"cpuShares\": 2}", "fail"}, /* a weight, not a limit */
        {"{}", "fail"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char c[256];
        snprintf(c, sizeof c, "{\"resources\": %s}", cases[i].res);
        json_t *st = statement(c, NULL, NULL);
        expect(p, st, "containment.resources.cpus", cases[i].status, NULL, cases[i].res);
        json_decref(st);
    }
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
    test_nothing_observed();
    test_collection_delay();
    test_collector_version();
    test_lsm_any_and_na();
    test_user_from_spec();
    test_cpus();
    test_finding_add();
    return tap_done();
}
