/* SPDX-License-Identifier: Apache-2.0 */
/* The CIS Docker Benchmark 1.6 checks a certificate can decide (policy.md, "cis-docker"):
 * each its own finding, rule "cis.<id>" with "cis": "<id>", selected by `benchmark:
 * cis-docker-1.6`. They are code with fixed semantics, not policy keys; docs/policy.md
 * lists them. They read the same predicate fields as the policy rules. */
#include "policy_internal.h"

#include <arpa/inet.h>

#include <string.h>

#define LIST_MAX BXP_LIST_MAX
#define MSG_MAX BXP_MSG_MAX

static void cis_4_1(const bxp_ev *e)
{
    const json_t *user = bxp_seen(e->cont, "user");
    char who[160];
    bxp_user u;

    if (bxp_user_read(user, &u) != BXP_YES) {
        bxp_cis(e, "4.1", "unknown", json_string("non-root user"), bxp_copy(user),
                "user not observed");
        return;
    }
    bxp_user_text(user, &u, who, sizeof who);
    bxp_cis(e, "4.1",
            u.uid_root              ? "fail"
            : u.have_uid || u.named ? "pass"
                                    : "unknown",
            json_string("non-root user"), bxp_copy(user), "%s%s", who,
            u.uid_root              ? " runs as root"
            : u.have_uid || u.named ? ", not root"
                                    : ": uid not observed");
}

static void cis_lsm(const bxp_ev *e, const char *id, const char *field, const char *member,
                    const char *name)
{
    const json_t *lsm = bxp_seen(e->cont, field), *avail = bxp_seen(lsm, "available");
    const char *v = json_string_value(bxp_seen(lsm, member));
    int confined = bxp_lsm_confines(member, v);

    if (!json_is_boolean(avail))
        bxp_cis(e, id, "unknown", json_string("confined"), bxp_copy(lsm),
                "whether the host has %s was not observed", name);
    else if (!json_is_true(avail))
        bxp_cis(e, id, "n/a", json_string("confined"), bxp_copy(lsm), "the host has no %s", name);
    else if (confined < 0)
        bxp_cis(e, id, "unknown", json_string("confined"), bxp_copy(lsm),
                "%s %s %s has no type to judge", name, member, v);
    else
        bxp_cis(e, id, confined ? "pass" : "fail", json_string("confined"), bxp_copy(lsm),
                "%s %s %s", name, member, v ? v : "none (disabled)");
}

static void cis_5_2(const bxp_ev *e)
{
    cis_lsm(e, "5.2", "apparmor", "profile", "AppArmor");
}

static void cis_5_3(const bxp_ev *e)
{
    cis_lsm(e, "5.3", "selinux", "label", "SELinux");
}

static void cis_5_4(const bxp_ev *e)
{
    json_t *held =
        bx_caps_held(bxp_seen(e->cont, "capabilities"), bxp_seen(e->cont, "noNewPrivileges"));
    json_t *beyond = json_array();
    const json_t *priv = bxp_seen(e->cont, "privileged"), *v;
    char b[LIST_MAX];
    size_t i;

    json_array_foreach(held, i, v)
    {
        if (!bxp_default_cap(json_string_value(v)))
            json_array_append_new(beyond, bxp_copy(v));
    }
    if (json_is_true(priv))
        bxp_cis(e, "5.4", "fail", json_string("engine defaults at most"), held,
                "privileged: every capability");
    else if (!held || !json_is_boolean(priv))
        bxp_cis(e, "5.4", "unknown", json_string("engine defaults at most"),
                held ? held : json_null(), "capabilities or privileged not observed");
    else if (json_array_size(beyond))
        bxp_cis(e, "5.4", "fail", json_string("engine defaults at most"), held,
                "capabilities beyond the engine defaults: %s", bxp_join(beyond, b, sizeof b));
    else
        bxp_cis(e, "5.4", "pass", json_string("engine defaults at most"), held,
                "no capability beyond the engine defaults");
    json_decref(beyond);
}

static void cis_5_5(const bxp_ev *e)
{
    const json_t *v = bxp_seen(e->cont, "privileged");
    bxp_cis(e, "5.5", json_is_boolean(v) ? json_is_true(v) ? "fail" : "pass" : "unknown",
            json_false(), bxp_copy(v), "%s",
            json_is_boolean(v) ? json_is_true(v) ? "privileged" : "not privileged"
                               : "privileged not observed");
}

static void cis_5_6(const bxp_ev *e)
{
    static const char *const dirs[] = {"/boot", "/dev", "/etc", "/lib", "/proc", "/sys", "/usr"};
    const json_t *mounts = bxp_seen(e->cont, "mounts"), *m;
    char msg[MSG_MAX] = "";
    json_t *bad = NULL;
    size_t i;
    int unseen = 0;

    if (!json_is_array(mounts)) {
        bxp_cis(e, "5.6", "unknown", json_string("no sensitive host directory read-write"),
                json_null(), "mounts not observed");
        return;
    }
    json_array_foreach(mounts, i, m)
    {
        const char *src = json_string_value(json_object_get(m, "source"));
        const char *srcs[2] = {src, json_string_value(json_object_get(m, "sourceAsGiven"))};
        int hit = 0;
        if (!bxp_mount_canonical(m)) { /* a v1 certificate's path: not comparable */
            unseen = 1;
            continue;
        }
        for (int k = 0; k < 2 && !hit; k++) {
            hit = srcs[k] && strcmp(srcs[k], "/") == 0;
            for (size_t d = 0; srcs[k] && !hit && d < sizeof dirs / sizeof dirs[0]; d++)
                hit = bxp_path_under(srcs[k], dirs[d]);
        }
        if (!hit)
            continue;
        if (!json_is_boolean(json_object_get(m, "readOnly")))
            unseen = 1;
        else if (!json_is_true(json_object_get(m, "readOnly"))) {
            bxp_append(msg, sizeof msg, "%s%s", *msg ? ", " : "", src ? src : "?");
            if (bad || (bad = json_array()))
                json_array_append_new(bad, bxp_copy(m));
        }
    }
    bxp_cis(e, "5.6",
            *msg     ? "fail"
            : unseen ? "unknown"
                     : "pass",
            json_string("no sensitive host directory read-write"), bxp_observed_list(bad, mounts),
            "%s%s",
            *msg ? "sensitive host directories mounted read-write: " : "none mounted read-write",
            msg);
}

/* A port's host address binds every interface: "" (the engine's all), or any spelling of
 * an unspecified address (0.0.0.0, ::, ::0, 0:0:0:0:0:0:0:0, ::ffff:0.0.0.0, [::]): 1; a
 * specific address: 0; not an address at all: -1. */
static int all_interfaces(const char *ip)
{
    unsigned char a[16];
    char buf[64];
    size_t n;
    if (!ip)
        return -1;
    if (!*ip)
        return 1;
    n = strlen(ip);
    if (ip[0] == '[' && n > 2 && ip[n - 1] == ']' && n - 2 < sizeof buf) {
        memcpy(buf, ip + 1, n - 2);
        buf[n - 2] = '\0';
        ip = buf;
    }
    if (inet_pton(AF_INET, ip, a) == 1)
        return !a[0] && !a[1] && !a[2] && !a[3];
    if (inet_pton(AF_INET6, ip, a) == 1) {
        static const unsigned char mapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
        int zero = 1;
        for (int i = 12; i < 16; i++)
            zero &= a[i] == 0;
        for (int i = 0; i < 10; i++)
            zero &= a[i] == 0;
        return zero && ((a[10] == 0 && a[11] == 0) || memcmp(a, mapped, 12) == 0);
    }
    return -1;
}

static void cis_ports(const bxp_ev *e, const char *id)
{
    const json_t *ports = bxp_seen(e->cont, "network.ports"), *p;
    char msg[MSG_MAX] = "", one[96];
    size_t i;
    int priv = strcmp(id, "5.8") == 0, odd = 0;

    if (!json_is_array(ports)) {
        bxp_cis(e, id, "unknown", json_null(), json_null(), "published ports not observed");
        return;
    }
    json_array_foreach(ports, i, p)
    {
        long long hp = json_integer_value(json_object_get(p, "hostPort"));
        const char *ip = json_string_value(json_object_get(p, "hostIp"));
        int all = priv ? 0 : all_interfaces(ip);
        int bad = priv ? hp > 0 && hp < 1024 : all == 1;
        odd |= all < 0;
        if (bad)
            bxp_append(msg, sizeof msg, "%s%s", *msg ? ", " : "",
                       bxp_port_text(p, one, sizeof one));
    }
    if (priv)
        bxp_cis(e, id, *msg ? "fail" : "pass", json_string("host ports >= 1024"), bxp_copy(ports),
                "%s%s", *msg ? "privileged host ports: " : "no privileged host port", msg);
    else
        bxp_cis(e, id,
                *msg  ? "fail"
                : odd ? "unknown"
                      : "pass",
                json_string("bound to a host interface"), bxp_copy(ports), "%s%s",
                *msg  ? "ports bound to every interface: "
                : odd ? "a port's host address is not an address"
                      : "no port bound to every interface",
                msg);
}

static void cis_5_8(const bxp_ev *e)
{
    cis_ports(e, "5.8");
}

static void cis_5_14(const bxp_ev *e)
{
    cis_ports(e, "5.14");
}

static void cis_5_10(const bxp_ev *e)
{
    const char *mode = json_string_value(bxp_seen(e->cont, "network.mode"));
    const char *ns = bxp_ns_mode(e->cont, "net");
    int host = (mode && strcmp(mode, "host") == 0) || bxp_ns_is_host("net", ns);
    bxp_cis(e, "5.10",
            host         ? "fail"
            : mode || ns ? "pass"
                         : "unknown",
            json_string("not host"), mode ? json_string(mode) : json_null(), "network %s%s",
            mode ? mode
            : ns ? ns
                 : "not observed",
            host ? ": the host's network is shared" : "");
}

static void cis_set(const bxp_ev *e, const char *id, const char *const *fields, const char *what)
{
    const json_t *res = bxp_seen(e->cont, "resources");
    json_t *obs = json_object();
    int set = 0;
    for (const char *const *f = fields; *f; f++) {
        const json_t *v = json_object_get(res, *f);
        set |= json_is_integer(v);
        json_object_set_new(obs, *f, bxp_copy(json_is_null(v) ? NULL : v));
    }
    if (!json_is_object(res)) {
        json_decref(obs);
        bxp_cis(e, id, "unknown", json_string("set"), json_null(), "resources not observed");
        return;
    }
    bxp_cis(e, id, set ? "pass" : "fail", json_string("set"), obs, "%s %s", what,
            set ? "set" : "not set (unlimited)");
}

static void cis_5_11(const bxp_ev *e)
{
    static const char *const f[] = {"memoryBytes", NULL};
    cis_set(e, "5.11", f, "memory limit");
}

static void cis_5_12(const bxp_ev *e)
{
    static const char *const f[] = {"cpuShares", "nanoCpus", "cpuQuota", NULL};
    cis_set(e, "5.12", f, "CPU shares or limit");
}

static void cis_5_29(const bxp_ev *e)
{
    static const char *const f[] = {"pidsLimit", NULL};
    cis_set(e, "5.29", f, "PIDs limit");
}

static void cis_5_13(const bxp_ev *e)
{
    const json_t *v = bxp_seen(e->cont, "rootfs.readOnly");
    bxp_cis(e, "5.13", json_is_boolean(v) ? json_is_true(v) ? "pass" : "fail" : "unknown",
            json_true(), bxp_copy(v), "rootfs %s",
            json_is_boolean(v) ? json_is_true(v) ? "read-only" : "writable" : "not observed");
}

static void cis_5_15(const bxp_ev *e)
{
    json_t *five = json_integer(5);
    bxp_restart_finding(e, "5.15", 5, five);
    json_decref(five);
}

static void cis_ns(const bxp_ev *e, const char *id, const char *name)
{
    const char *mode = bxp_ns_mode(e->cont, name);
    bxp_cis(e, id,
            !mode                        ? "unknown"
            : bxp_ns_is_host(name, mode) ? "fail"
                                         : "pass",
            json_string("not host"), mode ? json_string(mode) : json_null(), "%s namespace %s",
            name,
            !mode                        ? "not observed"
            : bxp_ns_is_host(name, mode) ? "is the host's"
                                         : mode);
}

static void cis_5_16(const bxp_ev *e)
{
    cis_ns(e, "5.16", "pid");
}

static void cis_5_17(const bxp_ev *e)
{
    cis_ns(e, "5.17", "ipc");
}

static void cis_5_21(const bxp_ev *e)
{
    cis_ns(e, "5.21", "uts");
}

static void cis_5_18(const bxp_ev *e)
{
    const json_t *dev = bxp_seen(e->cont, "devices");
    char msg[MSG_MAX] = "";
    int r = bxp_host_devices(dev, msg, sizeof msg);
    bxp_cis(e, "5.18",
            r < 0 ? "unknown"
            : r   ? "fail"
                  : "pass",
            json_string("no host device"), bxp_copy(dev), "%s%s",
            r < 0 ? "devices not observed"
            : r   ? "host devices: "
                  : "no host device",
            msg);
}

static void cis_5_20(const bxp_ev *e)
{
    const json_t *mounts = bxp_seen(e->cont, "mounts");
    char msg[MSG_MAX] = "";
    json_t *bad = json_array();
    int unseen = json_is_array(mounts) ? bxp_shared_mounts(mounts, msg, sizeof msg, bad) : -1;
    bxp_cis(e, "5.20",
            *msg     ? "fail"
            : unseen ? "unknown"
                     : "pass",
            json_string("not shared"), bxp_observed_list(bad, mounts), "%s%s",
            *msg     ? "mounts with shared propagation: "
            : unseen ? "propagation not observed"
                     : "no mount with shared propagation",
            msg);
}

static void cis_5_22(const bxp_ev *e)
{
    const char *mode = json_string_value(bxp_seen(e->cont, "seccomp.mode"));
    const json_t *priv = bxp_seen(e->cont, "privileged");
    const char *status = json_is_true(priv)            ? "fail"
                         : !mode                       ? "unknown"
                         : strcmp(mode, "filter") == 0 ? "pass"
                                                       : "fail";
    bxp_cis(e, "5.22", status, json_string("filter"), bxp_copy(bxp_seen(e->cont, "seccomp")), "%s",
            json_is_true(priv)            ? "privileged: no seccomp filter"
            : !mode                       ? "seccomp mode not observed"
            : strcmp(mode, "filter") == 0 ? "seccomp filter applied"
                                          : "seccomp disabled");
}

static void cis_5_25(const bxp_ev *e)
{
    const char *parent = json_string_value(bxp_seen(e->cont, "resources.cgroupParent"));
    bxp_cis(e, "5.25",
            !parent   ? "unknown"
            : *parent ? "fail"
                      : "pass",
            json_string(""), parent ? json_string(parent) : json_null(), "cgroup parent is %s",
            !parent   ? "not observed"
            : *parent ? parent
                      : "the engine's default");
}

static void cis_5_26(const bxp_ev *e)
{
    const json_t *v = bxp_seen(e->cont, "noNewPrivileges");
    bxp_cis(e, "5.26", json_is_boolean(v) ? json_is_true(v) ? "pass" : "fail" : "unknown",
            json_true(), bxp_copy(v), "no-new-privileges %s",
            json_is_boolean(v) ? json_is_true(v) ? "on" : "off" : "not observed");
}

/* The default bridge by the mode, and (v2) by the kernel's links: a veth whose host peer is on
 * the bridge network's bridge (a session that joined another's namespace, container:W, has
 * W's links). */
static void cis_5_30(const bxp_ev *e)
{
    const char *mode = json_string_value(bxp_seen(e->cont, "network.mode"));
    const json_t *links = bxp_seen(e->cont, "network.links"), *l;
    int on_bridge = 0;
    size_t i;

    /* a mode of none is recorded only when the links say so too, but under runsc: the
     * sentry's netstack then has its loopback alone, whatever the sandbox's host side holds */
    json_array_foreach(links, i, l)
    {
        const char *n = json_string_value(json_object_get(json_object_get(l, "peer"), "network"));
        on_bridge |= n && strcmp(n, "bridge") == 0 && !(mode && !strcmp(mode, "none"));
    }
    bxp_cis(e, "5.30",
            !mode && !on_bridge                        ? "unknown"
            : on_bridge || strcmp(mode, "bridge") == 0 ? "fail"
                                                       : "pass",
            json_string("not the default bridge"), mode ? json_string(mode) : json_null(),
            "network %s%s", mode ? mode : "not observed",
            on_bridge && !(mode && !strcmp(mode, "bridge"))
                ? ": the kernel's links are on the default bridge"
                : "");
}

/* Only an explicit --userns=host: the engine's own setting, not the kernel's reading of a
 * daemon that does not remap. */
static void cis_5_31(const bxp_ev *e)
{
    const char *mode = json_string_value(bxp_seen(e->cont, "namespaces.user.engine"));
    int host = mode && strcmp(mode, "host") == 0;
    bxp_cis(e, "5.31",
            !mode  ? "unknown"
            : host ? "fail"
                   : "pass",
            json_string("not host"), mode ? json_string(mode) : json_null(), "user namespace %s",
            !mode  ? "not observed"
            : host ? "set to the host's (--userns=host)"
                   : mode);
}

/* Engine sockets, and the folders that hold them, as canonical host paths. */
static const char *const engine_sockets[] = {
    "/run/docker.sock",
    "/var/run/docker.sock",
    "/run/containerd/containerd.sock",
    "/var/run/containerd/containerd.sock",
    "/run/docker/containerd/containerd.sock",
    "/run/podman/podman.sock",
    "/var/run/podman/podman.sock",
    "/run/crio/crio.sock",
    "/var/run/crio/crio.sock",
    NULL,
};

/* A rootless engine's socket: /run/user/<uid>/docker.sock or .../podman/podman.sock. */
static int rootless_socket(const char *src)
{
    const char *p = src;
    if (strncmp(p, "/run/user", 9) != 0 || (p[9] && p[9] != '/'))
        return 0;
    if (!p[9] || !p[10])
        return 1; /* /run/user itself holds them all */
    p += 10;
    p += strspn(p, "0123456789");
    return *p == '\0' || strcmp(p, "/docker.sock") == 0 || strcmp(p, "/podman") == 0 ||
           strcmp(p, "/podman/podman.sock") == 0;
}

static void cis_5_32(const bxp_ev *e)
{
    const json_t *mounts = bxp_seen(e->cont, "mounts"), *m;
    char msg[MSG_MAX] = "";
    json_t *bad = json_array();
    size_t i;
    int odd = 0;

    if (!json_is_array(mounts)) {
        json_decref(bad);
        bxp_cis(e, "5.32", "unknown", json_string("no engine socket"), json_null(),
                "mounts not observed");
        return;
    }
    json_array_foreach(mounts, i, m)
    {
        const char *src = json_string_value(json_object_get(m, "source"));
        const char *given = json_string_value(json_object_get(m, "sourceAsGiven"));
        int hit = (src && rootless_socket(src)) || (given && rootless_socket(given));
        odd |= !bxp_mount_canonical(m);
        for (const char *const *s = engine_sockets; !hit && *s; s++)
            hit = (src && bxp_path_under(*s, src)) || (given && bxp_path_under(*s, given));
        if (hit) {
            bxp_append(msg, sizeof msg, "%s%s", *msg ? ", " : "", src ? src : given);
            json_array_append_new(bad, bxp_copy(m));
        }
    }
    bxp_cis(e, "5.32",
            *msg  ? "fail"
            : odd ? "unknown"
                  : "pass",
            json_string("no engine socket"), bxp_observed_list(bad, mounts), "%s%s",
            *msg  ? "engine socket mounted: "
            : odd ? "a mount's path is not in canonical form"
                  : "no engine socket mounted",
            msg);
}

void bxp_eval_cis(const bxp_ev *e)
{
    static void (*const checks[])(const bxp_ev *) = {
        cis_4_1,  cis_5_2,  cis_5_3,  cis_5_4,  cis_5_5,  cis_5_6,  cis_5_8,  cis_5_10, cis_5_11,
        cis_5_12, cis_5_13, cis_5_14, cis_5_15, cis_5_16, cis_5_17, cis_5_18, cis_5_20, cis_5_21,
        cis_5_22, cis_5_25, cis_5_26, cis_5_29, cis_5_30, cis_5_31, cis_5_32,
    };
    const char *b = json_string_value(bxp_get(e->p->effective, "benchmark"));
    if (!b || strcmp(b, "cis-docker-1.6") != 0)
        return;
    for (size_t i = 0; i < sizeof checks / sizeof checks[0]; i++)
        checks[i](e);
}
