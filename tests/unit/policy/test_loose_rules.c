// SPDX-License-Identifier: Apache-2.0
/* Rules that compared too loosely, closed in policy/: SELinux types read from the label
 * (with or without a level, or the engine's label= options), every spelling of the
 * unspecified address in CIS 5.14, device cgroup rules read exactly, and mount and
 * write-surface paths that are not canonical (possible only in a v1 certificate) making the
 * rule unknown instead of a raw string comparison. */
#include "eval_case.h"

static char nm[256];
/* expect() with a formatted name */
#define expectf(pol, cont, more, rule, want, ...)                                                 \
    (snprintf(nm, sizeof nm, __VA_ARGS__), expect(pol, cont, more, rule, want, nm))

static void selinux(void)
{
    static const struct {
        const char *label, *want;
    } t[] = {
        {"system_u:system_r:spc_t", "fail"},
        {"system_u:system_r:spc_t:s0", "fail"},
        {"system_u:system_r:spc_t:s0:c1,c2", "fail"},
        {"system_u:system_r:unconfined_t", "fail"},
        {"unconfined_u:unconfined_r:unconfined_t:s0-s0:c0.c1023", "fail"},
        {"system_u:system_r:container_runtime_t:s0", "fail"},
        {"type:spc_t", "fail"},
        {"type:spc_t,level:s0", "fail"},
        {"level:s0,type:unconfined_t", "fail"},
        {"user:system_u,role:system_r,type:spc_t", "fail"},
        {"system_u:system_r:container_t:s0:c1,c2", "pass"},
        {"system_u:system_r:container_t", "pass"},
        {"type:container_t,level:s0:c1", "pass"},
        {"system_u:system_r:spc_tx:s0", "pass"},
        {"system_u:system_r:xspc_t:s0", "pass"},
        {"level:s0", "unknown"},
        {"just-a-word", "unknown"},
        {"system_u:system_r", "unknown"},
        {"system_u:system_r::s0", "unknown"},
    };
    char cont[256];
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        snprintf(cont, sizeof cont, "{\"selinux\":{\"available\":true,\"label\":\"%s\"}}",
                 t[i].label);
        expectf("version: 1\ncontainment:\n  selinux: required\n", cont, NULL,
               "containment.selinux", t[i].want, "selinux: required, label %s", t[i].label);
        expectf("version: 1\nbenchmark: cis-docker-1.6\n", cont, NULL, "cis.5.3", t[i].want,
               "CIS 5.3, label %s", t[i].label);
    }
}

static void cis_5_14(void)
{
    static const struct {
        const char *ip, *want;
    } t[] = {
        {"", "fail"},        {"0.0.0.0", "fail"},         {"::", "fail"},
        {"::0", "fail"},     {"0:0:0:0:0:0:0:0", "fail"}, {"0000::0000", "fail"},
        {"::ffff:0.0.0.0", "fail"}, {"[::]", "fail"},     {"::0.0.0.0", "fail"},
        {"127.0.0.1", "pass"}, {"::1", "pass"},           {"10.0.0.1", "pass"},
        {"fe80::1", "pass"}, {"::ffff:127.0.0.1", "pass"}, {"0.0.0.1", "pass"},
        {"0", "unknown"},    {"localhost", "unknown"},    {"0.0.0.0.0", "unknown"},
        {"[::", "unknown"},
    };
    char cont[256];
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        snprintf(cont, sizeof cont,
                 "{\"network\":{\"mode\":\"bridge\",\"ports\":[{\"containerPort\":80,\"hostIp\":"
                 "\"%s\",\"hostPort\":8080,\"proto\":\"tcp\"}]}}",
                 t[i].ip);
        expectf("version: 1\nbenchmark: cis-docker-1.6\n", cont, NULL, "cis.5.14", t[i].want,
               "CIS 5.14, host address '%s'", t[i].ip);
    }
}

static void devices(void)
{
    static const struct {
        const char *rule, *want;
    } t[] = {
        {"c 1:3 rwm", "pass"}, {"c 1:3 r", "pass"},     {"c 136:* rwm", "pass"},
        {"c *:* m", "pass"},   {"c 1:3rwm", "fail"},    {"c 1:3  rwm", "fail"},
        {"c 01:3 rwm", "fail"}, {"c 1:3 rwmm", "fail"}, {"c 1:3 rw m", "fail"},
        {"c 1:4 rwm", "fail"}, {"c *:* rwm", "fail"},   {"a *:* rwm", "fail"},
        {"b 1:3 rwm", "fail"}, {" c 1:3 rwm", "fail"},
    };
    char cont[256];
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        snprintf(cont, sizeof cont,
                 "{\"devices\":{\"allowAll\":false,\"devices\":[],\"cgroupRules\":[\"%s\"]}}",
                 t[i].rule);
        expectf("version: 1\ncontainment:\n  devices: none\n", cont, NULL, "containment.devices",
               t[i].want, "devices: none, cgroup rule '%s'", t[i].rule);
    }
}

#define MOUNT(src, dest)                                                                           \
    "{\"mounts\":[{\"destination\":\"" dest "\",\"propagation\":\"\",\"readOnly\":true,"          \
    "\"source\":\"" src "\",\"sourceAsGiven\":\"" src "\",\"type\":\"bind\"}]}"

static void paths(void)
{
    static const char *forbid =
        "version: 1\ncontainment:\n  forbiddenMounts:\n    - {source: /run/docker.sock, access: any}\n";
    static const char *cis = "version: 1\nbenchmark: cis-docker-1.6\n";
    /* (CIS 5.32 also reads a folder of the socket with a trailing slash as the socket's: a
     * failure, which is as good as unknown) */
    static const struct {
        const char *cont, *want, *cis_want, *name;
    } t[] = {
        {MOUNT("/run/docker.sock", "/s"), "fail", "fail", "the socket itself"},
        {MOUNT("/run/./docker.sock", "/s"), "unknown", "unknown", "/run/./docker.sock"},
        {MOUNT("/run//docker.sock", "/s"), "unknown", "unknown", "/run//docker.sock"},
        {MOUNT("/var/../run/docker.sock", "/s"), "unknown", "unknown", "/var/../run/docker.sock"},
        {MOUNT("/run/docker.sock/", "/s"), "unknown", "fail", "a trailing slash"},
        {MOUNT("/srv/data", "/tmp/../etc"), "unknown", "unknown", "a destination with .."},
        {MOUNT("/srv/data", "/data"), "pass", "pass", "another folder"},
        {MOUNT("", "/data"), "pass", "pass", "no host source"},
    };
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        expectf(forbid, t[i].cont, NULL, "containment.mounts", t[i].want, "forbiddenMounts: %s",
               t[i].name);
        expectf(cis, t[i].cont, NULL, "cis.5.32", t[i].cis_want, "CIS 5.32: %s", t[i].name);
    }
    /* CIS 5.6: a sensitive folder read-write, its path written oddly */
#define RW(src)                                                                                    \
    "{\"mounts\":[{\"destination\":\"/h\",\"propagation\":\"\",\"readOnly\":false,"               \
    "\"source\":\"" src "\",\"sourceAsGiven\":\"" src "\",\"type\":\"bind\"}]}"
    expectf(cis, RW("/etc"), NULL, "cis.5.6", "fail", "CIS 5.6: /etc read-write");
    expectf(cis, RW("/srv/../etc"), NULL, "cis.5.6", "unknown", "CIS 5.6: /srv/../etc");
    expectf(cis, RW("//etc"), NULL, "cis.5.6", "unknown", "CIS 5.6: //etc");
    expectf(cis, RW("/srv"), NULL, "cis.5.6", "pass", "CIS 5.6: /srv");
#undef RW
    /* the write surface: a place whose path is not canonical is not compared */
    static const char *wp = "version: 1\ncontainment:\n  writable:\n"
                            "    - {path: /tmp, kinds: [tmpfs], maxSize: 64Mi}\n";
#define WS(p) "{\"writeSurface\":[{\"fsType\":\"tmpfs\",\"kind\":\"tmpfs\",\"options\":[],\"path\":\"" p "\",\"sizeBytes\":1024}]}"
    expectf(wp, WS("/tmp"), NULL, "containment.write_surface", "pass", "surface /tmp");
    expectf(wp, WS("/tmp/"), NULL, "containment.write_surface", "unknown", "surface /tmp/");
    expectf(wp, WS("/tmp/../etc"), NULL, "containment.write_surface", "unknown",
           "surface /tmp/../etc");
    expectf(wp, WS("/etc"), NULL, "containment.write_surface", "fail", "surface /etc");
#undef WS
}

int main(void)
{
    selinux();
    cis_5_14();
    devices();
    paths();
    return tap_done();
}
