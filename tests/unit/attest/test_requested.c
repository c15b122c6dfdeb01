/* SPDX-License-Identifier: Apache-2.0 */
/* collect --requested FILE (attest/requested.c): YAML and JSON typed by place, and every
 * refusal with its line and column. */
#include "tap.h"
#include "bx_attest.h"

#include <string.h>

static const char full_yaml[] =
    "# everything a launcher may ask for\n"
    "runtime: runsc\n"
    "network: {mode: none, interfaces: [lo]}\n"
    "rootfs: {readOnly: true}\n"
    "capabilities: {drop: [ALL]}\n"
    "noNewPrivileges: true\n"
    "seccomp: default\n"
    "apparmor: {profile: docker-default}\n"
    "selinux: my_label\n"
    "privileged: false\n"
    "user: {nonRoot: true, uids: [1000, 65532]}\n"
    "namespaces: {pid: private, net: private, user: host}\n"
    "resources: {memoryBytes: 268435456, pidsLimit: 64, nanoCpus: 500000000, cgroupParent: \"\","
    " memorySwapBytes: null}\n"
    "writeSurface:\n"
    "  - {path: /tmp, kind: tmpfs, sizeBytes: 67108864}\n"
    "  - {path: /dev}\n"
    "mounts: [{destination: /data, source: /srv/data, readOnly: true}]\n"
    "devices: {allowAll: false, devices: [], cgroupRules: []}\n"
    "maskedPaths: [/proc/kcore]\n"
    "readonlyPaths: [/proc/sys]\n";

static const char full_json[] =
    "{\"runtime\":\"runsc\",\"network\":{\"mode\":\"none\",\"interfaces\":[\"lo\"]},"
    "\"rootfs\":{\"readOnly\":true},\"capabilities\":{\"drop\":[\"ALL\"]},"
    "\"noNewPrivileges\":true,\"seccomp\":\"default\",\"apparmor\":{\"profile\":"
    "\"docker-default\"},\"selinux\":\"my_label\",\"privileged\":false,\"user\":{\"nonRoot\":true,"
    "\"uids\":[1000,65532]},\"namespaces\":{\"pid\":\"private\",\"net\":\"private\",\"user\":"
    "\"host\"},\"resources\":{\"memoryBytes\":268435456,\"pidsLimit\":64,\"nanoCpus\":500000000,"
    "\"cgroupParent\":\"\",\"memorySwapBytes\":null},\"writeSurface\":[{\"path\":\"/tmp\","
    "\"kind\":\"tmpfs\",\"sizeBytes\":67108864},{\"path\":\"/dev\"}],\"mounts\":[{\"destination\":"
    "\"/data\",\"source\":\"/srv/data\",\"readOnly\":true}],\"devices\":{\"allowAll\":false,"
    "\"devices\":[],\"cgroupRules\":[]},\"maskedPaths\":[\"/proc/kcore\"],\"readonlyPaths\":"
    "[\"/proc/sys\"]}";

static void good(void)
{
    json_t *a = NULL, *b = NULL, *want = json_loads(full_json, 0, NULL);
    char sha[65], hex[65], old[256];
    bx_error e;

    ok_err(bx_requested_load(full_yaml, strlen(full_yaml), "req.yaml", &a, sha, old, &e), &e,
           "the full YAML request loads");
    ok(a && want && json_equal(a, want), "typed by place: booleans, numbers, null, strings");
    is_str(sha, bx_sha256_hex(full_yaml, strlen(full_yaml), hex), "sha256 of the file bytes");
    ok_err(bx_requested_load(full_json, strlen(full_json), "req.json", &b, sha, old, &e), &e,
           "the same request as JSON loads");
    ok(b && json_equal(a, b), "JSON and YAML read alike");
    json_decref(a);
    json_decref(b);
    json_decref(want);
}

/* The policy's names, and the predicate's (deprecated) read all the same. */
static void policy_names(void)
{
    static const char now[] = "version: 1\n"
                              "readOnlyRootfs: true\n"
                              "runtimes: [runsc]\n"
                              "noNewPrivileges: true\n"
                              "resources: {memoryMax: 256Mi, pidsMax: 64, cpusMax: \"0.5\"}\n";
    static const char was[] = "rootfs: {readOnly: true}\n"
                              "runtime: runsc\n"
                              "noNewPrivileges: true\n"
                              "resources: {memoryBytes: 268435456, pidsLimit: 64, nanoCpus: "
                              "500000000}\n";
    json_t *a = NULL, *b = NULL;
    char sha[65], old[256];
    bx_error e;

    ok_err(bx_requested_load(now, strlen(now), "req.yaml", &a, sha, old, &e), &e,
           "the policy's names load, with version: 1");
    is_str(old, "", "... and nothing deprecated");
    ok_err(bx_requested_load(was, strlen(was), "req.yaml", &b, sha, old, &e), &e,
           "the predicate's names still load");
    is_str(old,
           "rootfs (write readOnlyRootfs), runtime (write runtimes), resources.memoryBytes "
           "(write resources.memoryMax), resources.pidsLimit (write resources.pidsMax), "
           "resources.nanoCpus (write resources.cpusMax)",
           "... each named deprecated, with its replacement");
    ok(a && b && json_equal(a, b), "both are recorded in the predicate's names, alike");
    ok(json_integer_value(json_object_get(json_object_get(a, "resources"), "memoryBytes")) ==
               268435456 &&
           !json_object_get(a, "version") && !json_object_get(a, "readOnlyRootfs"),
       "memoryMax 256Mi is memoryBytes 268435456; version is not a member");
    json_decref(a);
    json_decref(b);
}

static void refused(void)
{
    static const struct {
        const char *doc, *where, *msg;
    } t[] = {
        {"colour: blue\n", "1:1", "unknown key 'colour'"},
        {"rootfs: {readOnly: yes}\n", "1:20", "true or false"},
        {"rootfs: {readOnly: \"true\"}\n", "1:20", "true or false"},
        {"rootfs: {readonly: true}\n", "1:10", "unknown key 'readonly'"},
        {"noNewPrivileges: 1\n", "1:18", "true or false"},
        {"resources: {memoryBytes: 256Mi}\n", "1:26", "expected an integer"},
        {"resources: {pidsLimit: 064}\n", "1:24", "expected an integer"},
        {"resources: {pidsLimit: -1}\n", "1:24", "expected an integer"},
        {"resources: {pidsLimit: 9007199254740993}\n", "1:24", "at most 9007199254740992"},
        {"resources: {pidsLimit: 0}\n", "1:24", "at least 1"},
        {"capabilities: {drop: [net_raw]}\n", "1:23", "unknown capability"},
        {"capabilities: {drop: [CAP_NET_RAW]}\n", "1:23", "without CAP_"},
        {"capabilities: {effective: [ALL]}\n", "1:28", "unknown capability"},
        {"namespaces: {pid: shared}\n", "1:19", "is not one of: private, host"},
        {"namespaces: {mnt: private}\n", "1:14", "unknown key 'mnt'"},
        {"seccomp: {profile: mine}\n", "1:20", "is not one of"},
        {"seccomp: mine\n", "1:10", "expected default, custom, unconfined"},
        {"seccomp: {profileSha256: abc}\n", "1:26", "64 lowercase hex"},
        {"user: {uids: [65532, 1000]}\n", "1:22", "ascending"},
        {"user: {uids: [0]}\n", "1:15", "at least 1"},
        {"user: {uids: [1000, 1000]}\n", "1:21", "listed twice"},
        {"user: {uids: [\"1000\"]}\n", "1:15", "expected an integer"},
        {"rootfs: {}\n", "1:9", "missing key 'readOnly'"},
        {"network: {mode: \"a b\"}\n", "1:17", "invalid value"},
        {"sysctls: {Net.IPv4: \"1\"}\n", "1:11", "not a sysctl name"},
        {"sysctls: {net.ipv4.ip_forward: [1]}\n", "1:32", "expected a string"},
        {"user: {nonRoot: true, spec: root}\n", "1:23", "unknown key 'spec'"},
        {"network: [none]\n", "1:10", "mapping"},
        {"writeSurface: {path: /tmp}\n", "1:15", "list"},
        {"a: &x 1\n", "1:4", "anchor"},
        {"- rootfs\n", "1:1", "mapping of containment fields"},
        {"{}\n", "1:1", "asks for nothing"},
        {"rootfs: {readOnly: true}\nrootfs: {readOnly: false}\n", "2:1", "duplicate"},
        {"version: 2\nreadOnlyRootfs: true\n", "1:10", "at most 1"},
        {"version: \"1\"\nreadOnlyRootfs: true\n", "1:10", "expected an integer"},
        {"version: 1\n", "1:1", "asks for nothing"},
        {"readOnlyRootfs: yes\n", "1:17", "true or false"},
        {"readOnlyRootfs: true\nrootfs: {readOnly: true}\n", "1:1",
         "readOnlyRootfs and rootfs name one member: write readOnlyRootfs only"},
        {"runtimes: [runsc, runc]\n", "1:11", "a request names one runtime, found 2"},
        {"runtimes: []\n", "1:11", "a request names one runtime, found 0"},
        {"runtimes: runsc\n", "1:11", "list"},
        {"resources: {memoryMax: 512M}\n", "1:24", "invalid size"},
        {"resources: {memoryMax: 0}\n", "1:24", "must be above 0"},
        {"resources: {pidsMax: 0}\n", "1:22", "at least 1"},
        {"resources: {cpusMax: \"-1\"}\n", "1:22", "invalid CPU count"},
        {"resources: {pidsMax: 4, pidsLimit: 4}\n", "1:13",
         "pidsMax and pidsLimit name one member"},
        {"readonlyRootfs: true\n", "1:1", "unknown key 'readonlyRootfs'"},
    };
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        json_t *r = NULL;
        char sha[65], old[256], where[64], name[48];
        bx_error e;
        int rc = bx_requested_load(t[i].doc, strlen(t[i].doc), "req.yaml", &r, sha, old, &e);
        snprintf(where, sizeof where, "req.yaml:%s", t[i].where);
        snprintf(name, sizeof name, "%s", t[i].doc);
        name[strcspn(name, "\n")] = '\0';
        if (!ok(rc == BX_ECONFIG && !r && strstr(e.msg, t[i].msg) && !strcmp(e.where, where),
                "refused: %s", name))
            printf("#   rc %d where '%s' msg '%s' (want %s, %s)\n", rc, e.where, e.msg, where,
                   t[i].msg);
        json_decref(r);
    }
}

int main(void)
{
    good();
    policy_names();
    refused();
    return tap_done();
}
