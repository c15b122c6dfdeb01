/* SPDX-License-Identifier: Apache-2.0 */
/* The stronger/weaker comparator (schema/compare.c), field by field: a table of
 * {field, requested, effective containment, expected verdict}. The effective containment is
 * written as the members it needs; a member left out is not observed. */
#include "tap.h"
#include "bx_schema.h"

#include <string.h>

#define W BX_CMP_WEAKER
#define U BX_CMP_UNKNOWN
#define A BX_CMP_AT_LEAST

static const struct {
    const char *field, *requested, *containment;
    bx_cmp want;
    const char *why; /* a part of the reason, or NULL */
} cases[] = {
    /* null (not observed) is weaker than anything: unknown, never at least */
    {"rootfs", "{\"readOnly\":true}", "{\"rootfs\":{\"readOnly\":null}}", U, "not observed"},
    {"rootfs", "{\"readOnly\":true}", "{}", U, NULL},
    {"noNewPrivileges", "true", "{\"noNewPrivileges\":null}", U, NULL},
    {"network", "\"none\"", "{\"network\":{\"mode\":null}}", U, NULL},
    {"resources", "{\"memoryBytes\":1}", "{\"resources\":{\"memoryBytes\":null}}", W, "unlimited"},
    /* network: none > named/internal > bridge > container:<id> > host */
    {"network", "\"none\"", "{\"network\":{\"mode\":\"none\"}}", A, NULL},
    {"network", "\"none\"", "{\"network\":{\"mode\":\"bridge\"}}", W, "weaker network mode"},
    {"network", "{\"mode\":\"none\"}", "{\"network\":{\"mode\":\"mynet\"}}", W, NULL},
    {"network", "\"mynet\"", "{\"network\":{\"mode\":\"none\"}}", A, NULL},
    {"network", "\"mynet\"", "{\"network\":{\"mode\":\"mynet\"}}", A, NULL},
    {"network", "\"mynet\"", "{\"network\":{\"mode\":\"other\"}}", W, "another network"},
    {"network", "\"mynet\"", "{\"network\":{\"mode\":\"bridge\"}}", W, NULL},
    {"network", "\"bridge\"", "{\"network\":{\"mode\":\"mynet\"}}", A, NULL},
    {"network", "\"bridge\"", "{\"network\":{\"mode\":\"container:abc\"}}", W, NULL},
    {"network", "\"container:abc\"", "{\"network\":{\"mode\":\"host\"}}", W, NULL},
    {"network", "\"host\"", "{\"network\":{\"mode\":\"host\"}}", A, NULL},
    {"network", "{\"mode\":\"mynet\",\"internal\":true}",
     "{\"network\":{\"mode\":\"mynet\",\"internal\":false}}", W, "not internal"},
    {"network", "{\"internal\":true}", "{\"network\":{\"mode\":\"mynet\",\"internal\":true}}", A,
     NULL},
    {"network", "{\"internal\":true}", "{\"network\":{\"mode\":\"none\",\"internal\":false}}", A,
     NULL},
    {"network", "{\"interfaces\":[\"lo\"]}", "{\"network\":{\"interfaces\":[\"lo\"]}}", A, NULL},
    {"network", "{\"interfaces\":[\"lo\"]}", "{\"network\":{\"interfaces\":[\"eth0\",\"lo\"]}}", W,
     "interface"},
    {"network", "{\"interfaces\":[\"lo\"]}", "{\"network\":{\"interfaces\":null}}", U, NULL},
    {"network", "{\"ports\":[]}",
     "{\"network\":{\"ports\":[{\"hostIp\":\"\",\"hostPort\":80,\"containerPort\":80,\"proto\":"
     "\"tcp\"}]}}",
     W, "port"},
    {"network", "{\"color\":\"blue\"}", "{\"network\":{\"mode\":\"none\"}}", U, NULL},
    /* rootfs: read-only > writable */
    {"rootfs", "{\"readOnly\":true}", "{\"rootfs\":{\"readOnly\":true}}", A, NULL},
    {"rootfs", "{\"readOnly\":true}", "{\"rootfs\":{\"readOnly\":false}}", W, NULL},
    {"rootfs", "{\"readOnly\":false}", "{\"rootfs\":{\"readOnly\":false}}", A, NULL},
    {"rootfs", "{\"readOnly\":\"yes\"}", "{\"rootfs\":{\"readOnly\":true}}", U, NULL},
    /* capabilities: a subset is stronger; bounding counts only without nnp */
    {"capabilities", "{\"effective\":[]}",
     "{\"noNewPrivileges\":true,\"capabilities\":{\"effective\":[],\"permitted\":[],\"ambient\":"
     "[],\"bounding\":[\"CHOWN\"]}}",
     A, NULL},
    {"capabilities", "{\"effective\":[]}",
     "{\"noNewPrivileges\":false,\"capabilities\":{\"effective\":[],\"permitted\":[],\"ambient\":"
     "[],\"bounding\":[\"CHOWN\"]}}",
     W, "beyond"},
    {"capabilities", "{\"effective\":[\"CHOWN\",\"KILL\"]}",
     "{\"noNewPrivileges\":true,\"capabilities\":{\"effective\":[\"KILL\"],\"permitted\":[\"KILL\"]"
     ","
     "\"ambient\":[],\"bounding\":[\"KILL\"]}}",
     A, NULL},
    {"capabilities", "{\"effective\":[\"KILL\"]}",
     "{\"noNewPrivileges\":true,\"capabilities\":{\"effective\":[],\"permitted\":[\"CHOWN\"],"
     "\"ambient\":[],\"bounding\":[]}}",
     W, NULL},
    {"capabilities", "{\"effective\":[]}",
     "{\"noNewPrivileges\":true,\"capabilities\":{\"effective\":[],\"permitted\":[],\"ambient\":"
     "[\"NET_RAW\"],\"bounding\":[]}}",
     W, NULL},
    {"capabilities", "{\"drop\":[\"ALL\"]}",
     "{\"noNewPrivileges\":true,\"capabilities\":{\"effective\":[],\"permitted\":[],\"ambient\":[],"
     "\"bounding\":[]}}",
     A, NULL},
    {"capabilities", "{\"drop\":[\"NET_RAW\"]}",
     "{\"noNewPrivileges\":true,\"capabilities\":{\"effective\":[\"NET_RAW\"],\"permitted\":[],"
     "\"ambient\":[],\"bounding\":[]}}",
     W, NULL},
    {"capabilities", "{\"add\":[\"ALL\"]}",
     "{\"noNewPrivileges\":false,\"capabilities\":{\"effective\":[\"SYS_ADMIN\"],\"permitted\":[],"
     "\"ambient\":[],\"bounding\":[\"SYS_ADMIN\"]}}",
     A, NULL},
    {"capabilities", "{\"effective\":[]}", "{\"capabilities\":{\"effective\":null}}", U, NULL},
    /* no-new-privileges: on > off */
    {"noNewPrivileges", "true", "{\"noNewPrivileges\":true}", A, NULL},
    {"noNewPrivileges", "true", "{\"noNewPrivileges\":false}", W, NULL},
    {"noNewPrivileges", "false", "{\"noNewPrivileges\":false}", A, NULL},
    /* seccomp: the same pinned profile >= default > custom-unknown > disabled */
    {"seccomp", "\"default\"", "{\"seccomp\":{\"mode\":\"filter\",\"profile\":\"default\"}}", A,
     NULL},
    {"seccomp", "\"default\"", "{\"seccomp\":{\"mode\":\"filter\",\"profile\":\"custom\"}}", W,
     "default"},
    {"seccomp", "\"default\"", "{\"seccomp\":{\"mode\":\"disabled\",\"profile\":\"unconfined\"}}",
     W, NULL},
    {"seccomp", "{\"mode\":\"filter\"}",
     "{\"seccomp\":{\"mode\":\"filter\",\"profile\":\"custom\"}}", A, NULL},
    {"seccomp", "{\"mode\":\"filter\"}", "{\"seccomp\":{\"mode\":\"disabled\"}}", W, NULL},
    {"seccomp", "\"sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef\"",
     "{\"seccomp\":{\"mode\":\"filter\",\"profile\":\"default\",\"profileSha256\":"
     "\"0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef\"}}",
     A, NULL},
    {"seccomp",
     "{\"profileSha256\":\"0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef\"}",
     "{\"seccomp\":{\"mode\":\"filter\",\"profile\":\"custom\",\"profileSha256\":"
     "\"1123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef\"}}",
     W, "pinned"},
    {"seccomp",
     "{\"profileSha256\":\"0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef\"}",
     "{\"seccomp\":{\"mode\":\"filter\",\"profile\":\"default\",\"profileSha256\":null}}", U, NULL},
    {"seccomp", "\"unconfined\"", "{\"seccomp\":{\"mode\":\"disabled\"}}", A, NULL},
    {"seccomp", "\"strict\"", "{\"seccomp\":{\"mode\":\"filter\"}}", U, NULL},
    /* privileged: off > on */
    {"privileged", "false", "{\"privileged\":false}", A, NULL},
    {"privileged", "false", "{\"privileged\":true}", W, NULL},
    {"privileged", "true", "{\"privileged\":true}", A, NULL},
    /* runtime: runsc > runc/crun */
    {"runtime", "\"runsc\"", "{\"runtime\":{\"name\":\"runsc\"}}", A, NULL},
    {"runtime", "\"runsc\"", "{\"runtime\":{\"name\":\"runc\"}}", W, "not runsc"},
    {"runtime", "{\"name\":\"runc\"}", "{\"runtime\":{\"name\":\"runsc\"}}", A, NULL},
    {"runtime", "{\"name\":\"runc\"}", "{\"runtime\":{\"name\":\"crun\"}}", A, NULL},
    {"runtime", "\"kata\"", "{\"runtime\":{\"name\":\"runc\"}}", W, NULL},
    {"runtime", "\"runsc\"", "{\"runtime\":{\"name\":null}}", U, NULL},
    /* user: a listed non-root uid >= any non-root uid > root */
    {"user", "{\"nonRoot\":true}", "{\"user\":{\"spec\":\"\",\"uids\":[1000,1000,1000,1000]}}", A,
     NULL},
    {"user", "{\"nonRoot\":true}", "{\"user\":{\"spec\":\"\",\"uids\":[1000,0,1000,1000]}}", W,
     "root"},
    {"user", "{\"uids\":[1000]}", "{\"user\":{\"spec\":\"\",\"uids\":[1000,1000,1000,1000]}}", A,
     NULL},
    {"user", "{\"uids\":[1000]}", "{\"user\":{\"spec\":\"\",\"uids\":[1001,1001,1001,1001]}}", W,
     "not requested"},
    {"user", "{\"nonRoot\":true}", "{\"user\":{\"spec\":\"65532:65532\",\"uids\":null}}", A, NULL},
    {"user", "{\"nonRoot\":true}", "{\"user\":{\"spec\":\"\",\"uids\":null}}", W, "root"},
    {"user", "{\"nonRoot\":true}", "{\"user\":{\"spec\":\"root\",\"uids\":null}}", W, NULL},
    {"user", "{\"nonRoot\":true}", "{\"user\":{\"spec\":\"nobody\",\"uids\":null}}", U, NULL},
    {"user", "{\"nonRoot\":false}", "{\"user\":{\"spec\":\"\",\"uids\":[0,0,0,0]}}", A, NULL},
    {"user", "{\"uids\":[0]}", "{\"user\":{\"spec\":\"\"}}", U, "non-root"},
    /* v2: every uid of every task, on the host and in its own user namespace */
    {"user", "{\"nonRoot\":true}",
     "{\"user\":{\"spec\":\"\",\"uids\":[1000,1000,1000,1000],\"everyUid\":[0,1000]}}", W,
     "a task runs as root"},
    {"user", "{\"nonRoot\":true}",
     "{\"user\":{\"spec\":\"\",\"uids\":[1000,1000,1000,1000],\"everyUid\":[1000],"
     "\"inNamespace\":{\"everyUid\":[0]}}}",
     W, "a task runs as root"},
    {"user", "{\"uids\":[1000]}",
     "{\"user\":{\"spec\":\"\",\"uids\":[1000,1000,1000,1000],\"everyUid\":[1000,1001]}}", W,
     "was not requested"},
    {"user", "{\"nonRoot\":true}",
     "{\"user\":{\"spec\":\"\",\"uids\":[1000,1000,1000,1000],\"everyUid\":[1000],"
     "\"inNamespace\":{\"everyUid\":[1000]}}}",
     A, NULL},
    {"user", "{\"spec\":\"x\"}", "{\"user\":{\"spec\":\"\"}}", U, NULL},
    /* namespaces: private > host */
    {"namespaces", "{\"pid\":\"private\"}",
     "{\"namespaces\":{\"pid\":{\"engine\":\"private\",\"kernel\":\"private\"}}}", A, NULL},
    {"namespaces", "{\"pid\":\"private\"}",
     "{\"namespaces\":{\"pid\":{\"engine\":\"private\",\"kernel\":\"host\"}}}", W, "host"},
    {"namespaces", "{\"pid\":\"private\"}",
     "{\"namespaces\":{\"pid\":{\"engine\":\"host\",\"kernel\":null}}}", W, NULL},
    {"namespaces", "{\"user\":\"private\"}",
     "{\"namespaces\":{\"user\":{\"engine\":\"default\",\"kernel\":null}}}", W, NULL},
    {"namespaces", "{\"user\":\"private\"}",
     "{\"namespaces\":{\"user\":{\"engine\":\"remapped\",\"kernel\":null}}}", A, NULL},
    {"namespaces", "{\"net\":\"host\"}",
     "{\"namespaces\":{\"net\":{\"engine\":\"host\",\"kernel\":\"host\"}}}", A, NULL},
    {"namespaces", "{\"net\":\"private\"}", "{\"namespaces\":{}}", U, NULL},
    {"namespaces", "{\"mnt\":\"private\"}", "{\"namespaces\":{}}", U, NULL},
    /* resources: set and <= requested is stronger; unlimited is weakest */
    {"resources", "{\"memoryBytes\":100}", "{\"resources\":{\"memoryBytes\":100}}", A, NULL},
    {"resources", "{\"memoryBytes\":100}", "{\"resources\":{\"memoryBytes\":50}}", A, NULL},
    {"resources", "{\"memoryBytes\":100}", "{\"resources\":{\"memoryBytes\":101}}", W, "higher"},
    {"resources", "{\"pidsLimit\":64}", "{\"resources\":{\"pidsLimit\":null}}", W, NULL},
    {"resources", "{\"pidsLimit\":null}", "{\"resources\":{\"pidsLimit\":null}}", A, NULL},
    {"resources", "{\"nanoCpus\":500000000}",
     "{\"resources\":{\"nanoCpus\":null,\"cpuQuota\":50000,\"cpuPeriod\":100000}}", A, NULL},
    {"resources", "{\"nanoCpus\":500000000}", "{\"resources\":{\"nanoCpus\":1000000000}}", W,
     "CPU"},
    {"resources", "{\"nanoCpus\":500000000}", "{\"resources\":{\"nanoCpus\":null}}", W, NULL},
    {"resources", "{\"cgroupParent\":\"\"}", "{\"resources\":{\"cgroupParent\":\"\"}}", A, NULL},
    {"resources", "{\"cgroupParent\":\"\"}", "{\"resources\":{\"cgroupParent\":\"/x\"}}", W, NULL},
    {"resources", "{\"memoryBytes\":0}", "{\"resources\":{\"memoryBytes\":1}}", U, NULL},
    /* writeSurface, mounts, devices: a subset is stronger; ro over rw */
    {"writeSurface", "[{\"path\":\"/tmp\",\"sizeBytes\":100}]",
     "{\"writeSurface\":[{\"path\":\"/tmp\",\"kind\":\"tmpfs\",\"sizeBytes\":100}]}", A, NULL},
    {"writeSurface", "[{\"path\":\"/tmp\",\"sizeBytes\":100}]",
     "{\"writeSurface\":[{\"path\":\"/tmp\",\"kind\":\"tmpfs\",\"sizeBytes\":200}]}", W, NULL},
    {"writeSurface", "[{\"path\":\"/tmp\",\"sizeBytes\":100}]",
     "{\"writeSurface\":[{\"path\":\"/tmp\",\"kind\":\"tmpfs\",\"sizeBytes\":null}]}", U, NULL},
    {"writeSurface", "[{\"path\":\"/tmp\"}]",
     "{\"writeSurface\":[{\"path\":\"/tmp\",\"kind\":\"tmpfs\"},{\"path\":\"/\",\"kind\":"
     "\"rootfs\"}]}",
     W, "beyond"},
    {"writeSurface", "[{\"path\":\"/tmp\",\"kind\":\"bind\"}]",
     "{\"writeSurface\":[{\"path\":\"/tmp\",\"kind\":\"tmpfs\"}]}", W, NULL},
    {"writeSurface", "[]", "{\"writeSurface\":[]}", A, NULL},
    {"mounts", "[{\"destination\":\"/data\",\"readOnly\":true}]",
     "{\"mounts\":[{\"destination\":\"/data\",\"source\":\"/srv\",\"readOnly\":true}]}", A, NULL},
    {"mounts", "[{\"destination\":\"/data\",\"readOnly\":true}]",
     "{\"mounts\":[{\"destination\":\"/data\",\"source\":\"/srv\",\"readOnly\":false}]}", W, NULL},
    {"mounts", "[{\"destination\":\"/data\",\"readOnly\":false}]",
     "{\"mounts\":[{\"destination\":\"/data\",\"source\":\"/srv\",\"readOnly\":true}]}", A, NULL},
    {"mounts", "[{\"destination\":\"/data\",\"source\":\"/var/run/x\"}]",
     "{\"mounts\":[{\"destination\":\"/data\",\"source\":\"/run/x\",\"sourceAsGiven\":"
     "\"/var/run/x\",\"readOnly\":true}]}",
     A, NULL},
    {"mounts", "[]",
     "{\"mounts\":[{\"destination\":\"/x\",\"source\":\"/run/docker.sock\",\"readOnly\":true}]}", W,
     NULL},
    {"devices", "{\"allowAll\":false}",
     "{\"devices\":{\"allowAll\":true,\"devices\":[],\"cgroupRules\":[]}}", W, "every device"},
    {"devices", "{\"devices\":[{\"pathOnHost\":\"/dev/fuse\",\"cgroupPermissions\":\"rwm\"}]}",
     "{\"devices\":{\"allowAll\":false,\"devices\":[{\"pathOnHost\":\"/dev/fuse\","
     "\"pathInContainer\":\"/dev/fuse\",\"cgroupPermissions\":\"r\"}],\"cgroupRules\":[]}}",
     A, NULL},
    {"devices", "{\"devices\":[]}",
     "{\"devices\":{\"allowAll\":false,\"devices\":[{\"pathOnHost\":\"/dev/fuse\","
     "\"pathInContainer\":\"/dev/fuse\",\"cgroupPermissions\":\"r\"}],\"cgroupRules\":[]}}",
     W, NULL},
    {"devices", "{\"devices\":[{\"pathOnHost\":\"/dev/fuse\",\"cgroupPermissions\":\"r\"}]}",
     "{\"devices\":{\"allowAll\":false,\"devices\":[{\"pathOnHost\":\"/dev/fuse\","
     "\"pathInContainer\":\"/dev/fuse\",\"cgroupPermissions\":\"rw\"}],\"cgroupRules\":[]}}",
     W, NULL},
    {"devices", "{\"cgroupRules\":[]}",
     "{\"devices\":{\"allowAll\":false,\"devices\":[],\"cgroupRules\":[\"c 1:3 rwm\"]}}", W, NULL},
    /* masked and read-only paths: a superset is stronger */
    {"maskedPaths", "[\"/proc/kcore\"]", "{\"maskedPaths\":[\"/proc/kcore\",\"/proc/keys\"]}", A,
     NULL},
    {"maskedPaths", "[\"/proc/kcore\"]", "{\"maskedPaths\":[]}", W, NULL},
    {"readonlyPaths", "[\"/proc/sys\"]", "{\"readonlyPaths\":null}", U, NULL},
    /* LSMs */
    {"apparmor", "\"docker-default\"", "{\"apparmor\":{\"profile\":\"docker-default\"}}", A, NULL},
    {"apparmor", "\"docker-default\"", "{\"apparmor\":{\"profile\":null}}", W, "none"},
    {"selinux", "{\"label\":\"x\"}", "{\"selinux\":{\"label\":\"y\"}}", W, NULL},
    /* what the comparator does not know */
    {"colour", "\"blue\"", "{}", U, "not a containment field"},
};

static const char *verdict(bx_cmp c)
{
    return c == A ? "at-least" : c == W ? "weaker" : "unknown";
}

static void table(void)
{
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        json_error_t je;
        json_t *req = json_loads(cases[i].requested, JSON_DECODE_ANY, &je);
        json_t *c = json_loads(cases[i].containment, 0, &je);
        char why[128] = "";
        bx_cmp got;

        if (!ok(req && c, "case %zu parses (%s)", i, je.text))
            continue;
        got = bx_compare_field(cases[i].field, req, c, why, sizeof why);
        if (!ok(got == cases[i].want && (!cases[i].why || strstr(why, cases[i].why)),
                "%s: %s vs %.60s: %s", cases[i].field, cases[i].requested, cases[i].containment,
                verdict(cases[i].want)))
            printf("#   got %s (%s)\n", verdict(got), why);
        json_decref(req);
        json_decref(c);
    }
}

static void whole(void)
{
    json_t *req = json_loads("{\"rootfs\":{\"readOnly\":true},\"network\":\"none\"}", 0, NULL);
    json_t *good =
        json_loads("{\"rootfs\":{\"readOnly\":true},\"network\":{\"mode\":\"none\"}}", 0, NULL);
    json_t *bad =
        json_loads("{\"rootfs\":{\"readOnly\":true},\"network\":{\"mode\":\"bridge\"}}", 0, NULL);
    const char *field = NULL;
    char why[128];

    ok(bx_compare_containment(req, good, &field, why, sizeof why) == A && !field,
       "a whole request met");
    ok(bx_compare_containment(req, bad, &field, why, sizeof why) == W && field &&
           !strcmp(field, "network"),
       "the first weaker field named (%s)", field ? field : "none");
    ok(bx_compare_containment(json_null(), good, &field, why, sizeof why) == U,
       "a request that is not an object");
    json_decref(req);
    json_decref(good);
    json_decref(bad);
}

static void weaker(void)
{
    json_t *ro = json_pack("{s:b}", "readOnly", 1), *rw = json_pack("{s:b}", "readOnly", 0);
    json_t *none = json_string("none"), *host = json_string("host");
    json_t *n1 = json_pack("{s:s}", "mode", "none"), *n2 = json_pack("{s:s}", "mode", "bridge");

    ok(bx_compare_weaker("rootfs", ro, rw) == rw && bx_compare_weaker("rootfs", rw, ro) == rw,
       "rootfs: writable is the weaker");
    ok(bx_compare_weaker("rootfs", ro, json_null()) == json_null(), "null is the weaker");
    ok(bx_compare_weaker("network", n1, n2) == n2, "network: bridge is weaker than none");
    ok(bx_compare_weaker("rootfs", ro, ro) == ro, "equal: either");
    ok(bx_compare_weaker("privileged", json_true(), json_false()) == json_true(),
       "privileged on is the weaker");
    (void)none;
    (void)host;
    json_decref(ro);
    json_decref(rw);
    json_decref(none);
    json_decref(host);
    json_decref(n1);
    json_decref(n2);

    json_t *caps = json_pack("{s:[s],s:[],s:[],s:[s]}", "effective", "KILL", "permitted", "ambient",
                             "bounding", "CHOWN");
    json_t *held = bx_caps_held(caps, json_true());
    ok(held && json_array_size(held) == 1, "held with nnp: effective, permitted, ambient");
    json_decref(held);
    held = bx_caps_held(caps, json_false());
    ok(held && json_array_size(held) == 2, "held without nnp: bounding too");
    json_decref(held);
    json_decref(caps);
    json_t *res = json_pack("{s:I,s:I,s:n}", "cpuQuota", (json_int_t)25000, "cpuPeriod",
                            (json_int_t)50000, "nanoCpus");
    is_int(bx_cpu_limit(res), 500000000, "quota/period as nano-CPUs");
    json_decref(res);
}

int main(void)
{
    table();
    whole();
    weaker();
    for (const bx_containment_row *r = bx_containment; r->name; r++) {
        char why[64];
        if (!r->requested) { /* a fact no request can name (v2's processes, descriptors, ...) */
            ok(!r->compare, "%s: not requestable, no comparator", r->name);
            continue;
        }
        ok(r->compare && bx_compare_field(r->name, NULL, NULL, why, sizeof why) == U &&
               strcmp(why, "nothing requested") == 0,
           "%s: known to the comparator", r->name);
    }
    return tap_done();
}
