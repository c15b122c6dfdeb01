// SPDX-License-Identifier: Apache-2.0
/* The policy rules at their edges: one side of each comparison, bound and match, and the
 * verdict of findings (unknown never passes). Each case is one the mutations of
 * tests/mutations/policy.txt would get wrong. */
#include "eval_case.h"

/* ---- the verdict of findings ------------------------------------------------------------ */

static void verdicts(void)
{
    static const struct {
        const char *finding;
        int failing;
    } t[] = {
        {"{\"status\":\"pass\"}", 0},
        {"{\"status\":\"n/a\"}", 0},
        {"{\"status\":\"warn\"}", 0},
        {"{\"status\":\"fail\"}", 1},
        {"{\"status\":\"unknown\"}", 1},
        {"{\"status\":\"PASS\"}", 1},
        {"{\"status\":\"passed\"}", 1},
        {"{\"status\":null}", 1},
        {"{}", 1},
        {"{\"status\":1}", 1},
    };
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        json_t *f = json(t[i].finding), *list = json_pack("[{s:s},O]", "status", "pass", f);
        is_int(bx_finding_failing(f), t[i].failing, "%s is %s", t[i].finding,
               t[i].failing ? "failing" : "not failing");
        is_int(bx_findings_pass(list), !t[i].failing, "a list with %s %s", t[i].finding,
               t[i].failing ? "fails" : "passes");
        json_decref(list);
        json_decref(f);
    }
    json_t *empty = json_array();
    is_int(bx_findings_pass(empty), 0, "no findings: no pass");
    json_decref(empty);
    is_int(bx_findings_pass(NULL), 0, "no list: no pass");

    /* rootfs.readOnly null: unknown, and the certificate fails its policy */
    bx_policy *p = policy("version: 1\ncontainment: {readOnlyRootfs: true}\n");
    json_t *st = statement("{\"rootfs\": {\"readOnly\": null}}", NULL), *all = eval(p, st, NULL);
    is_str(status_of(all, "containment.rootfs"), "unknown", "rootfs.readOnly null: unknown");
    is_str(status_of(all, "evidence.level"), "pass", "... the other findings pass");
    is_int(bx_findings_pass(all), 0, "rootfs.readOnly null: the certificate fails");
    json_decref(all);
    json_decref(st);
    st = statement("{\"rootfs\": {\"readOnly\": true}}", NULL);
    all = eval(p, st, NULL);
    is_int(bx_findings_pass(all), 1, "rootfs.readOnly true: the certificate passes");
    json_decref(all);
    json_decref(st);
    bx_policy_free(p);
}

/* ---- exact matches: labels, network names, lists ------------------------------------------- */

static void networks(void)
{
    static const struct {
        const char *allowed, *mode, *internal, *want;
    } t[] = {
        {"[build]", "build", "false", "pass"},
        {"[build]", "build-net", "false", "fail"},
        {"[build]", "buil", "false", "fail"},
        {"[build-net]", "build", "false", "fail"},
        {"[none]", "none2", "false", "fail"},
        {"[host]", "hostile", "false", "fail"},
        {"[container]", "containers", "false", "fail"},
        {"[container]", "container:0123", "null", "pass"},
        {"[internal]", "internal-ish", "false", "fail"},
        {"[internal]", "mynet", "true", "pass"},
        {"[internal]", "host", "true", "fail"},
        {"[internal]", "container:0123", "true", "fail"},
        {"[internal]", "mynet", "null", "unknown"},
        {"[internal, mynet]", "mynet", "null", "pass"},
    };
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        char pol[128], c[160];
        snprintf(pol, sizeof pol, "version: 1\ncontainment: {network: %s}\n", t[i].allowed);
        snprintf(c, sizeof c, "{\"network\": {\"mode\": \"%s\", \"internal\": %s}}", t[i].mode,
                 t[i].internal);
        expect(pol, c, NULL, "containment.network", t[i].want, t[i].mode);
    }
}

static void lists_exact(void)
{
    expect("version: 1\nevidence: {accept: [engine+kernel]}\n", "{}", NULL, "evidence.level",
           "pass", "engine+kernel accepted");
    bx_policy *p = policy("version: 1\nevidence: {accept: [engine+kernel, engine+runtime]}\n");
    json_t *st = statement("{}", "{\"evidence\": {\"level\": \"engine\", \"discrepancies\": []}}");
    json_t *all = eval(p, st, NULL);
    is_str(status_of(all, "evidence.level"), "fail", "engine is not engine+kernel");
    json_decref(all);
    json_decref(st);
    bx_policy_free(p);

    expect("version: 1\ncontainment: {runtimes: [runsc]}\n", "{\"runtime\": {\"name\": \"runs\"}}",
           NULL, "containment.runtime", "fail", "runs is not runsc");
    expect("version: 1\ncontainment: {runtimes: [runsc]}\n",
           "{\"runtime\": {\"name\": \"runsc-debug\"}}", NULL, "containment.runtime", "fail",
           "runsc-debug is not runsc");
}

/* ---- user ----------------------------------------------------------------------------------- */

static void users(void)
{
    static const struct {
        const char *uids, *want;
    } t[] = {
        {"[1000, 1000, 1000, 1000]", "pass"}, {"[1000, 1000, 1000, 2000]", "fail"},
        {"[2000, 1000, 1000, 1000]", "fail"}, {"[1000, 2000, 1000, 1000]", "fail"},
        {"[1000, 1000, 2000, 1000]", "fail"}, {"[1000, 1000, 1000, 0]", "fail"},
    };
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        char c[200];
        snprintf(c, sizeof c,
                 "{\"user\": {\"spec\": \"1000\", \"uids\": %s, \"gids\": [1, 1, 1, 1], "
                 "\"groups\": []}}",
                 t[i].uids);
        expect("version: 1\ncontainment: {user: {uids: [1000]}}\n", c, NULL, "containment.user",
               t[i].want, t[i].uids);
    }

    /* the comparator reads the same four uids */
    static const struct {
        const char *uids;
        bx_cmp want;
    } c[] = {
        {"[1000, 1000, 1000, 1000]", BX_CMP_AT_LEAST},
        {"[1000, 1000, 1000, 2000]", BX_CMP_WEAKER},
        {"[2000, 1000, 1000, 1000]", BX_CMP_WEAKER},
    };
    for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
        char buf[160];
        snprintf(buf, sizeof buf, "{\"user\": {\"spec\": \"1000\", \"uids\": %s}}", c[i].uids);
        json_t *cont = json(buf), *req = json("{\"uids\": [1000]}");
        is_int(bx_compare_field("user", req, cont, NULL, 0), c[i].want,
               "requested uids [1000] against %s", c[i].uids);
        json_decref(req);
        json_decref(cont);
    }
}

/* ---- limits: at most, with the limit itself allowed ------------------------------------------ */

static void limits(void)
{
    static const struct {
        const char *res, *rule, *want;
    } t[] = {
        {"{\"pidsLimit\": 100}", "containment.resources.pids", "pass"},
        {"{\"pidsLimit\": 99}", "containment.resources.pids", "pass"},
        {"{\"pidsLimit\": 101}", "containment.resources.pids", "fail"},
        {"{\"pidsLimit\": null}", "containment.resources.pids", "fail"},
        {"{\"memoryBytes\": 1073741824}", "containment.resources.memory", "pass"},
        {"{\"memoryBytes\": 1073741825}", "containment.resources.memory", "fail"},
        {"{\"memoryBytes\": null}", "containment.resources.memory", "fail"},
        {"{\"nanoCpus\": 1500000000}", "containment.resources.cpus", "pass"},
        {"{\"nanoCpus\": 1500000001}", "containment.resources.cpus", "fail"},
    };
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        char c[160];
        snprintf(c, sizeof c, "{\"resources\": %s}", t[i].res);
        expect("version: 1\ncontainment:\n  resources: {memoryMax: 1Gi, pidsMax: 100, "
               "cpusMax: \"1.5\"}\n",
               c, NULL, t[i].rule, t[i].want, t[i].res);
    }
    expect("version: 1\ncontainment: {resources: {pidsMax: 100}}\n", "{\"resources\": null}", NULL,
           "containment.resources.pids", "unknown", "resources null");

    /* the comparator: a limit equal to the one requested holds, a higher one does not */
    static const struct {
        const char *have;
        bx_cmp want;
    } c[] = {
        {"64", BX_CMP_AT_LEAST},
        {"63", BX_CMP_AT_LEAST},
        {"65", BX_CMP_WEAKER},
        {"null", BX_CMP_WEAKER},
    };
    for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
        char buf[96];
        snprintf(buf, sizeof buf, "{\"resources\": {\"pidsLimit\": %s}}", c[i].have);
        json_t *cont = json(buf), *req = json("{\"pidsLimit\": 64}");
        is_int(bx_compare_field("resources", req, cont, NULL, 0), c[i].want,
               "requested pidsLimit 64 against %s", c[i].have);
        json_decref(req);
        json_decref(cont);
    }

    /* restarts: at most restartMaxRetries */
    static const struct {
        const char *rp, *want;
    } r[] = {
        {"{\"name\": \"on-failure\", \"maximumRetryCount\": 3}", "pass"},
        {"{\"name\": \"on-failure\", \"maximumRetryCount\": 4}", "fail"},
        {"{\"name\": \"on-failure\", \"maximumRetryCount\": 0}", "fail"},
        {"{\"name\": \"always\", \"maximumRetryCount\": 0}", "fail"},
        {"{\"name\": \"no\", \"maximumRetryCount\": 0}", "pass"},
    };
    for (size_t i = 0; i < sizeof r / sizeof r[0]; i++) {
        char more[160];
        snprintf(more, sizeof more, "{\"session\": {\"restartPolicy\": %s}}", r[i].rp);
        expect("version: 1\ncontainment: {restartMaxRetries: 3}\n", "{}", more,
               "containment.restart", r[i].want, r[i].rp);
    }

    /* certificate age: maxAge plus the clock skew, not a second more */
    static const struct {
        const char *at, *want;
    } a[] = {
        {"2026-05-28T19:21:40Z", "pass"}, /* 1h + 5m */
        {"2026-05-28T19:21:39Z", "fail"},
    };
    for (size_t i = 0; i < sizeof a / sizeof a[0]; i++) {
        char more[80];
        snprintf(more, sizeof more, "{\"issuedAt\": \"%s\"}", a[i].at);
        expect("version: 1\ncertificate: {maxAge: 1h}\n", "{}", more, "certificate.age", a[i].want,
               a[i].at);
    }
}

/* ---- capabilities, privileges, seccomp, LSMs ----------------------------------------------- */

#define CAPS(eff, bnd, nnp)                                                                        \
    "{\"capabilities\": {\"effective\": " eff ", \"permitted\": " eff ", \"inheritable\": [], "    \
    "\"ambient\": [], \"bounding\": " bnd "}, \"noNewPrivileges\": " nnp "}"

static void privileges(void)
{
    const char *none = "version: 1\ncontainment: {capabilities: {allow: []}}\n";
    const char *bind = "version: 1\ncontainment: {capabilities: {allow: [NET_BIND_SERVICE]}}\n";
    expect(none, CAPS("[]", "[]", "true"), NULL, "containment.capabilities", "pass", "none held");
    expect(none, CAPS("[\"SYS_ADMIN\"]", "[\"SYS_ADMIN\"]", "true"), NULL,
           "containment.capabilities", "fail", "an added capability");
    expect(bind, CAPS("[\"NET_BIND_SERVICE\", \"NET_RAW\"]", "[]", "true"), NULL,
           "containment.capabilities", "fail", "one beyond the allowed one");
    expect(none, CAPS("[]", "[\"SYS_ADMIN\"]", "false"), NULL, "containment.capabilities", "fail",
           "bounding without no-new-privileges");
    expect(none, CAPS("[]", "[\"SYS_ADMIN\"]", "true"), NULL, "containment.capabilities", "pass",
           "bounding with no-new-privileges");

    const char *nopriv = "version: 1\ncontainment: {privileged: false}\n";
    expect(nopriv, "{\"privileged\": true}", NULL, "containment.privileged", "fail",
           "privileged refused");
    expect(nopriv, "{\"privileged\": false}", NULL, "containment.privileged", "pass",
           "not privileged");
    expect("version: 1\ncontainment: {privileged: true}\n", "{\"privileged\": true}", NULL,
           "containment.privileged", "pass", "privileged allowed");
    expect("version: 1\ncontainment: {noNewPrivileges: true}\n", "{\"noNewPrivileges\": false}",
           NULL, "containment.no_new_privileges", "fail", "nnp off");
    expect("version: 1\ncontainment: {readOnlyRootfs: true}\n",
           "{\"rootfs\": {\"readOnly\": false}}", NULL, "containment.rootfs", "fail",
           "rootfs writable");

    const char *dflt = "version: 1\ncontainment: {seccomp: {allow: [default]}}\n";
    const char *pin =
        "version: 1\ncontainment: {seccomp: {allow: "
        "[\"sha256:1111111111111111111111111111111111111111111111111111111111111111\"]"
        "}}\n";
    expect(dflt, "{\"seccomp\": {\"mode\": \"filter\", \"profile\": \"default\"}}", NULL,
           "containment.seccomp", "pass", "the default filter");
    expect(dflt, "{\"seccomp\": {\"mode\": \"disabled\", \"profile\": \"default\"}}", NULL,
           "containment.seccomp", "fail", "seccomp disabled, whatever the profile says");
    expect(dflt, "{\"seccomp\": {\"mode\": \"disabled\", \"profile\": \"unconfined\"}}", NULL,
           "containment.seccomp", "fail", "seccomp unconfined");
    expect(pin,
           "{\"seccomp\": {\"mode\": \"filter\", \"profile\": \"default\", \"profileSha256\": "
           "\"2222222222222222222222222222222222222222222222222222222222222222\"}}",
           NULL, "containment.seccomp", "fail", "default is not the pinned profile");
    expect(pin,
           "{\"seccomp\": {\"mode\": \"filter\", \"profile\": \"custom\", \"profileSha256\": "
           "\"1111111111111111111111111111111111111111111111111111111111111111\"}}",
           NULL, "containment.seccomp", "pass", "the pinned profile");

    const char *aa = "version: 1\ncontainment: {apparmor: required}\n";
    expect(aa, "{\"apparmor\": {\"available\": true, \"profile\": \"unconfined\"}}", NULL,
           "containment.apparmor", "fail", "AppArmor unconfined");
    expect(aa, "{\"apparmor\": {\"available\": true, \"profile\": \"docker-default\"}}", NULL,
           "containment.apparmor", "pass", "docker-default");
    expect(aa, "{\"apparmor\": {\"available\": true, \"profile\": null}}", NULL,
           "containment.apparmor", "fail", "no AppArmor profile");

    const char *cis = "version: 1\nbenchmark: cis-docker-1.6\n";
    expect(cis, "{\"apparmor\": {\"available\": true, \"profile\": \"unconfined\"}}", NULL,
           "cis.5.2", "fail", "CIS 5.2: unconfined");
    expect(cis, "{\"apparmor\": {\"available\": true, \"profile\": \"docker-default\"}}", NULL,
           "cis.5.2", "pass", "CIS 5.2: docker-default");
    expect(cis,
           "{\"network\": {\"ports\": [{\"hostIp\": \"127.0.0.1\", \"hostPort\": 1023, "
           "\"containerPort\": 80, \"proto\": \"tcp\"}]}}",
           NULL, "cis.5.8", "fail", "CIS 5.8: port 1023");
    expect(cis,
           "{\"network\": {\"ports\": [{\"hostIp\": \"127.0.0.1\", \"hostPort\": 1024, "
           "\"containerPort\": 80, \"proto\": \"tcp\"}]}}",
           NULL, "cis.5.8", "pass", "CIS 5.8: port 1024");
}

/* ---- mounts, devices, namespaces, sysctls -------------------------------------------------- */

#define MOUNT(src, ro)                                                                             \
    "{\"mounts\": [{\"destination\": \"/x\", \"source\": \"" src "\", \"readOnly\": " ro           \
    ", \"type\": \"bind\"}]}"

static void mounts(void)
{
    const char *sock = "version: 1\ncontainment:\n  forbiddenMounts:\n"
                       "    - {source: /run/docker.sock, access: any}\n"
                       "    - {source: /etc, access: rw}\n";
    expect(sock, MOUNT("/run/docker.sock", "true"), NULL, "containment.mounts", "fail",
           "the engine socket read-only (any access forbidden)");
    expect(sock, MOUNT("/run", "true"), NULL, "containment.mounts", "fail",
           "the folder holding the socket");
    expect(sock, MOUNT("/", "true"), NULL, "containment.mounts", "fail", "the host's root");
    expect(sock, MOUNT("/etc/ssl", "false"), NULL, "containment.mounts", "fail",
           "under a forbidden path, read-write");
    expect(sock, MOUNT("/etc/ssl", "true"), NULL, "containment.mounts", "pass",
           "under a forbidden path, read-only (rw forbidden)");
    expect(sock, MOUNT("/etcetera", "false"), NULL, "containment.mounts", "pass",
           "a name that only starts like a forbidden path");
    expect(sock, MOUNT("/run/docker.socket", "false"), NULL, "containment.mounts", "pass",
           "a name that only starts like the socket");

    const char *cis = "version: 1\nbenchmark: cis-docker-1.6\n";
    expect(cis, MOUNT("/run", "true"), NULL, "cis.5.32", "fail", "CIS 5.32: /run holds sockets");
    expect(cis, MOUNT("/run/docker.sock", "true"), NULL, "cis.5.32", "fail",
           "CIS 5.32: the socket");
    expect(cis, MOUNT("/srv/data", "false"), NULL, "cis.5.32", "pass", "CIS 5.32: a data folder");

    const char *dev = "version: 1\ncontainment: {devices: none}\n";
    expect(dev,
           "{\"devices\": {\"allowAll\": false, \"devices\": [], \"cgroupRules\": [\"c *:* m\", "
           "\"c 1:3 rwm\"]}}",
           NULL, "containment.devices", "pass", "the engine's default rules");
    expect(dev, "{\"devices\": {\"allowAll\": false, \"devices\": [], \"cgroupRules\": []}}", NULL,
           "containment.devices", "pass", "no devices");
    expect(
        dev,
        "{\"devices\": {\"allowAll\": false, \"devices\": [], \"cgroupRules\": [\"c *:* rwm\"]}}",
        NULL, "containment.devices", "fail", "every character device read-write");
    expect(
        dev,
        "{\"devices\": {\"allowAll\": false, \"devices\": [], \"cgroupRules\": [\"c 1:4 rwm\"]}}",
        NULL, "containment.devices", "fail", "a rule not among the engine's defaults");
    expect(dev,
           "{\"devices\": {\"allowAll\": false, \"devices\": [], \"cgroupRules\": [\"b *:* rm\"]}}",
           NULL, "containment.devices", "fail", "reading every block device");
}

#define NS(user)                                                                                   \
    "{\"namespaces\": {\"pid\": {\"engine\": \"private\"}, \"ipc\": {\"engine\": \"private\"}, "   \
    "\"uts\": {\"engine\": \"private\"}, \"net\": {\"engine\": \"private\"}, \"user\": "           \
    "{\"engine\": \"" user "\"}, \"cgroup\": {\"engine\": \"private\"}}}"

static void namespaces(void)
{
    const char *remap = "version: 1\ncontainment: {userns: remapped}\n";
    expect(remap, NS("default"), NULL, "containment.userns", "fail",
           "a daemon that does not remap: the host's user namespace");
    expect(remap, NS("host"), NULL, "containment.userns", "fail", "--userns=host");
    expect(remap, NS("remapped"), NULL, "containment.userns", "pass", "remapped");
    const char *shared = "version: 1\ncontainment: {namespaces: {host: [cgroup]}}\n";
    expect(shared, NS("private"), NULL, "containment.namespaces", "pass", "only private ones");
    expect(shared, NS("default"), NULL, "containment.namespaces", "fail",
           "the user namespace of a daemon that does not remap");
    expect(shared,
           "{\"namespaces\": {\"pid\": {\"engine\": \"host\"}, \"ipc\": {\"engine\": \"private\"}, "
           "\"uts\": {\"engine\": \"private\"}, \"net\": {\"engine\": \"private\"}, \"user\": "
           "{\"engine\": \"remapped\"}, \"cgroup\": {\"engine\": \"host\"}}}",
           NULL, "containment.namespaces", "fail", "the host's pid namespace");
}

static void sysctls(void)
{
    const char *pin = "version: 1\ncontainment:\n  sysctls:\n    pin: {net.ipv4.ip_forward: \"0\", "
                      "net.ipv4.ping_group_range: \"0 2147483647\"}\n";
    static const struct {
        const char *fwd, *range, *want;
    } t[] = {
        {"\"0\"", "\"0 2147483647\"", "pass"},   {"\"0\"", "\"0\\t2147483647\"", "pass"},
        {"\"1\"", "\"0 2147483647\"", "fail"},   {"\"0\"", "\"0\"", "fail"},
        {"\"0\"", "\"0 2147483647 1\"", "fail"}, {"null", "\"0 2147483647\"", "unknown"},
    };
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        char c[300];
        snprintf(c, sizeof c,
                 "{\"sysctls\": {\"net.ipv4.ip_forward\": {\"engine\": null, \"kernel\": %s}, "
                 "\"net.ipv4.ping_group_range\": {\"engine\": null, \"kernel\": %s}}}",
                 t[i].fwd, t[i].range);
        expect(pin, c, NULL, "containment.sysctls", t[i].want, c);
    }
    const char *allow = "version: 1\ncontainment:\n  sysctls:\n    allow: [net.ipv4.ip_forward]\n";
    expect(allow,
           "{\"sysctls\": {\"net.ipv4.ip_forward\": {\"engine\": \"1\", \"kernel\": \"1\"}}}", NULL,
           "containment.sysctls", "pass", "an allowed sysctl");
    expect(allow, "{\"sysctls\": {\"kernel.shmmax\": {\"engine\": \"1\", \"kernel\": \"1\"}}}",
           NULL, "containment.sysctls", "fail", "a sysctl not allowed");

    /* a v1 certificate lacks sysctls: unknown, and said so */
    bx_policy *p = policy(allow);
    json_t *st = statement("{}", NULL), *lacking = json_array();
    json_object_set_new(st, "predicateType", json_string("urn:boxcert:containment:v1"));
    json_t *all = eval(p, st, lacking);
    is_str(status_of(all, "containment.sysctls"), "unknown", "v1: sysctls unknown");
    ok(json_array_size(lacking) == 1 &&
           !strcmp(json_string_value(json_object_get(json_array_get(lacking, 0), "member")),
                   "containment.sysctls"),
       "v1: the rule is noted as reading a member v1 lacks");
    json_decref(all);
    json_decref(lacking);
    lacking = json_array();
    json_object_set_new(st, "predicateType", json_string("urn:boxcert:containment:v2"));
    all = eval(p, st, lacking);
    is_str(status_of(all, "containment.sysctls"), "unknown", "v2 without sysctls: unknown");
    is_int(json_array_size(lacking), 0, "v2: nothing lacking");
    json_decref(all);
    json_decref(lacking);
    json_decref(st);
    bx_policy_free(p);
}

/* ---- evidence, requested, predicate versions ------------------------------------------------ */

static void evidence(void)
{
    const char *d = "{\"evidence\": {\"level\": \"engine+kernel\", \"discrepancies\": [{\"field\": "
                    "\"containment.rootfs.readOnly\", \"reason\": \"kernel\"}]}}";
    expect("version: 1\n", "{}", d, "evidence.discrepancies", "fail", "a discrepancy denied");
    expect("version: 1\nevidence: {discrepancies: warn}\n", "{}", d, "evidence.discrepancies",
           "warn", "a discrepancy warned");

    const char *must = "version: 1\nrequested: {mustMatch: true}\n";
    expect(must, "{\"rootfs\": {\"readOnly\": null}}",
           "{\"requested\": {\"containment\": {\"rootfs\": {\"readOnly\": true}}, \"sha256\": "
           "\"00\"}}",
           "requested.match", "unknown", "requested read-only, not observed");
    expect(must, "{\"rootfs\": {\"readOnly\": false}}",
           "{\"requested\": {\"containment\": {\"rootfs\": {\"readOnly\": true}}, \"sha256\": "
           "\"00\"}}",
           "requested.match", "fail", "requested read-only, writable");
    expect(must, "{\"rootfs\": {\"readOnly\": true}}",
           "{\"requested\": {\"containment\": {\"rootfs\": {\"readOnly\": true}}, \"sha256\": "
           "\"00\"}}",
           "requested.match", "pass", "requested read-only, read-only");
}

static void versions(void)
{
    size_t len = 0;
    char *buf = tap_slurp(BOXCERT_SOURCE_DIR "/fixtures/base/statement.json", &len);
    json_t *st = buf ? json_loadb(buf, len, 0, NULL) : NULL;
    bx_error err;
    char type[40];

    free(buf);
    if (!ok(st != NULL, "the base statement loads"))
        return;
    ok_err(bx_statement_check(st, &err), &err, "the base statement is of a version known here");
    json_object_set_new(st, "predicateType",
                        json_string(bx_predicate_type(BX_PREDICATE_LATEST + 1, type)));
    is_int(bx_statement_check(st, &err), BX_EUNSUPPORTED, "a newer predicate version refused");
    ok(strstr(err.msg, "newer") != NULL, "... as newer than this verifier knows (%s)", err.msg);
    json_object_set_new(st, "predicateType",
                        json_string(bx_predicate_type(BX_PREDICATE_LATEST + 2, type)));
    is_int(bx_statement_check(st, &err), BX_EUNSUPPORTED, "two versions newer refused");
    json_decref(st);
}

int main(void)
{
    verdicts();
    networks();
    lists_exact();
    users();
    limits();
    privileges();
    mounts();
    namespaces();
    sysctls();
    evidence();
    versions();
    return tap_done();
}
