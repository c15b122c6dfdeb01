/* SPDX-License-Identifier: Apache-2.0 */
/* runsc (gVisor): the sandbox's own arguments as a view of the containment. The workload
 * runs inside the sentry, so nothing of it is read through the host's /proc: what runsc
 * applies is read from the flags the sandbox process was started with (its cmdline) and
 * the task's OCI spec.
 *
 * Every global flag runsc 2022-12 knows is classified below. Flags that weaken containment
 * are interpreted:
 *   --network=none       network none, interfaces ["lo"] (gVisor's netstack keeps a
 *                        loopback, as runc's --network none does)
 *   --network=host       network host, interfaces null (the host's)
 *   --oci-seccomp        the spec's seccomp filter applied inside the sandbox; without
 *                        it, none (mode disabled)
 *   --ignore-cgroups     no resource limit applies (every limit null)
 *   --net-raw            CAP_NET_RAW kept; without it runsc removes it from every set
 *   --host-uds, --host-fifo (other than none), --fsgofer-host-uds
 *                        host sockets and pipes under the mounts become reachable: a
 *                        discrepancy on containment.mounts (the mount list no longer
 *                        bounds what the session reaches through it)
 *   --profile            loosens the sandbox's own seccomp filter: evidence.sandbox's
 *                        seccompMode null
 * A flag not in the table, or one that skips runsc's protections (--rootless,
 * --TESTONLY-*, --allow-flag-override: annotations may then override flags), makes every
 * field a runtime flag could touch null, or its weakest value where the predicate has no
 * null (every capability, no-new-privileges off, all devices allowed). */
#include "attest_internal.h"

#include <string.h>

enum {
    F_HARMLESS, /* logging, debugging, performance, file-system plumbing */
    F_NETWORK,
    F_OCI_SECCOMP,
    F_IGNORE_CGROUPS,
    F_NET_RAW,
    F_HOST_UDS,  /* value: none|open|create|all */
    F_HOST_FIFO, /* value: none|open */
    F_HOST_BOOL, /* --fsgofer-host-uds */
    F_PROFILE,
    F_UNSAFE,
};

static const struct {
    const char *name;
    int cls;
    int takes_value; /* a string/int flag: "--x v" reads the next argument */
} flags[] = {
    {"EXPERIMENTAL-afxdp", F_HARMLESS, 0},
    {"TESTONLY-allow-packet-endpoint-write", F_UNSAFE, 0},
    {"TESTONLY-test-name-env", F_HARMLESS, 1},
    {"TESTONLY-unsafe-nonroot", F_UNSAFE, 0},
    {"allow-flag-override", F_UNSAFE, 0},
    {"alsologtostderr", F_HARMLESS, 0},
    {"buffer-pooling", F_HARMLESS, 0},
    {"cgroupfs", F_HARMLESS, 0},
    {"coverage-fd", F_HARMLESS, 1},
    {"coverage-report", F_HARMLESS, 1},
    {"cpu-num-from-quota", F_HARMLESS, 0},
    {"dcache", F_HARMLESS, 1},
    {"debug", F_HARMLESS, 0},
    {"debug-command", F_HARMLESS, 1},
    {"debug-log", F_HARMLESS, 1},
    {"debug-log-fd", F_HARMLESS, 1},
    {"debug-log-format", F_HARMLESS, 1},
    {"enable-core-tags", F_HARMLESS, 0},
    {"fdlimit", F_HARMLESS, 1},
    {"file-access", F_HARMLESS, 1},
    {"file-access-mounts", F_HARMLESS, 1},
    {"fsgofer-host-uds", F_HOST_BOOL, 0},
    {"fuse", F_HARMLESS, 0},
    {"gso", F_HARMLESS, 0},
    {"gvisor-gro", F_HARMLESS, 1},
    {"host-fifo", F_HOST_FIFO, 1},
    {"host-uds", F_HOST_UDS, 1},
    {"ignore-cgroups", F_IGNORE_CGROUPS, 0},
    {"lisafs", F_HARMLESS, 0},
    {"log", F_HARMLESS, 1},
    {"log-fd", F_HARMLESS, 1},
    {"log-format", F_HARMLESS, 1},
    {"log-packets", F_HARMLESS, 0},
    {"net-raw", F_NET_RAW, 0},
    {"network", F_NETWORK, 1},
    {"num-network-channels", F_HARMLESS, 1},
    {"oci-seccomp", F_OCI_SECCOMP, 0},
    {"overlay", F_HARMLESS, 0},
    {"overlay2", F_HARMLESS, 1},
    {"panic-log", F_HARMLESS, 1},
    {"panic-log-fd", F_HARMLESS, 1},
    {"panic-signal", F_HARMLESS, 1},
    {"pcap-log", F_HARMLESS, 1},
    {"platform", F_HARMLESS, 1},
    {"platform_device_path", F_HARMLESS, 1},
    {"pod-init-config", F_HARMLESS, 1},
    {"profile", F_PROFILE, 0},
    {"profile-block", F_HARMLESS, 1},
    {"profile-cpu", F_HARMLESS, 1},
    {"profile-heap", F_HARMLESS, 1},
    {"profile-mutex", F_HARMLESS, 1},
    {"qdisc", F_HARMLESS, 1},
    {"ref-leak-mode", F_HARMLESS, 1},
    {"root", F_HARMLESS, 1},
    {"rootless", F_UNSAFE, 0},
    {"rx-checksum-offload", F_HARMLESS, 0},
    {"software-gso", F_HARMLESS, 0},
    {"strace", F_HARMLESS, 0},
    {"strace-event", F_HARMLESS, 0},
    {"strace-log-size", F_HARMLESS, 1},
    {"strace-syscalls", F_HARMLESS, 1},
    {"systemd-cgroup", F_HARMLESS, 0},
    {"trace", F_HARMLESS, 1},
    {"traceback", F_HARMLESS, 1},
    {"tx-checksum-offload", F_HARMLESS, 0},
    {"vfs2", F_HARMLESS, 0},
    {"watchdog-action", F_HARMLESS, 1},
};

/* The table entry for "--name[=value]" or "-name[=value]", or -1. */
static int lookup(const char *arg, size_t *name_len)
{
    const char *n = arg + (arg[1] == '-' ? 2 : 1), *eq = strchr(n, '=');
    size_t len = eq ? (size_t)(eq - n) : strlen(n);

    *name_len = len;
    for (size_t i = 0; i < sizeof flags / sizeof flags[0]; i++)
        if (strlen(flags[i].name) == len && strncmp(flags[i].name, n, len) == 0)
            return (int)i;
    return -1;
}

json_t *bxa_runsc_flags(const json_t *argv)
{
    json_t *r = json_array();
    size_t n = json_array_size(argv);

    for (size_t i = 1; r && i < n; i++) {
        const char *a = json_string_value(json_array_get(argv, i)), *name;
        char *s = NULL;
        size_t len;
        int k;

        if (!a || a[0] != '-' || strcmp(a, "-") == 0 || strcmp(a, "--") == 0)
            break; /* the subcommand ("boot", "gofer") */
        k = lookup(a, &len);
        name = a + (a[1] == '-' ? 2 : 1);
        if (strchr(name, '=') || k < 0 || !flags[k].takes_value || i + 1 >= n) {
            if (asprintf(&s, "--%s", name) < 0)
                s = NULL;
        } else {
            const char *v = json_string_value(json_array_get(argv, ++i));
            if (asprintf(&s, "--%s=%s", name, v ? v : "") < 0)
                s = NULL;
        }
        if (!s || json_array_append_new(r, json_string(s)) != 0) {
            json_decref(r);
            r = NULL;
        }
        free(s);
    }
    return r;
}

/* Go's flag.ParseBool; bare flag = true. -1 when not a bool. */
static int go_bool(const char *v)
{
    static const char *const t[] = {"1", "t", "T", "true", "TRUE", "True"};
    static const char *const f[] = {"0", "f", "F", "false", "FALSE", "False"};

    if (!v)
        return 1;
    for (size_t i = 0; i < 6; i++) {
        if (strcmp(v, t[i]) == 0)
            return 1;
        if (strcmp(v, f[i]) == 0)
            return 0;
    }
    return -1;
}

static json_t *without_net_raw(const json_t *caps)
{
    json_t *c = json_deep_copy(caps);
    const char *k;
    json_t *set;

    json_object_foreach(c, k, set)
    {
        for (size_t i = json_array_size(set); i > 0; i--) {
            const char *s = json_string_value(json_array_get(set, i - 1));
            if (s && strcmp(s, "NET_RAW") == 0)
                json_array_remove(set, i - 1);
        }
    }
    return c;
}

static json_t *null_limits(void)
{
    return json_pack("{s:n,s:n,s:n,s:n,s:n,s:n,s:n}", "memoryBytes", "memorySwapBytes", "pidsLimit",
                     "nanoCpus", "cpuShares", "cpuQuota", "cpuPeriod");
}

/* Every field a runtime flag could touch, at its weakest: null where the predicate allows
 * it, else the weakest value (every capability, no-new-privileges off, all devices). */
static json_t *unknown_view(void)
{
    uint64_t all = (UINT64_C(1) << BXA_CAP_COUNT) - 1;
    json_t *caps = json_pack("{s:o,s:o,s:o,s:o,s:o}", "effective", bxa_cap_names(all), "permitted",
                             bxa_cap_names(all), "inheritable", bxa_cap_names(all), "ambient",
                             bxa_cap_names(all), "bounding", bxa_cap_names(all));

    return json_pack("{s:{s:n,s:n},s:{s:n},s:o,s:b,s:{s:n,s:n},s:{s:n,s:n,s:n},s:o,"
                     "s:{s:b},s:{s:n}}",
                     "network", "mode", "interfaces", "rootfs", "readOnly", "capabilities", caps,
                     "noNewPrivileges", 0, "seccomp", "mode", "profileSha256", "user", "uids",
                     "gids", "groups", "resources", null_limits(), "devices", "allowAll", 1,
                     "sandbox", "seccompMode");
}

int bxa_runsc_view(const json_t *fl, const json_t *spec, json_t **view, bx_error *err)
{
    const char *network = "sandbox", *host_uds = "none", *host_fifo = "none";
    int oci_seccomp = 0, ignore_cgroups = 0, net_raw = 0, host_bool = 0, profile = 0, unknown = 0;
    const json_t *a;
    json_t *v = NULL;
    size_t i;

    *view = NULL;
    json_array_foreach(fl, i, a)
    {
        const char *s = json_string_value(a), *eq;
        size_t len;
        int k = s ? lookup(s, &len) : -1, b;

        eq = s ? strchr(s, '=') : NULL;
        if (k < 0) {
            unknown = 1;
            continue;
        }
        b = flags[k].takes_value ? 0 : go_bool(eq ? eq + 1 : NULL);
        if (b < 0) {
            unknown = 1;
            continue;
        }
        switch (flags[k].cls) {
        case F_NETWORK:
            network = eq ? eq + 1 : "";
            break;
        case F_OCI_SECCOMP:
            oci_seccomp = b;
            break;
        case F_IGNORE_CGROUPS:
            ignore_cgroups = b;
            break;
        case F_NET_RAW:
            net_raw = b;
            break;
        case F_HOST_UDS:
            host_uds = eq ? eq + 1 : "";
            break;
        case F_HOST_FIFO:
            host_fifo = eq ? eq + 1 : "";
            break;
        case F_HOST_BOOL:
            host_bool = b;
            break;
        case F_PROFILE:
            profile = b;
            break;
        case F_UNSAFE:
            unknown |= b;
            break;
        default:
            break;
        }
    }
    if (strcmp(network, "sandbox") != 0 && strcmp(network, "none") != 0 &&
        strcmp(network, "host") != 0)
        unknown = 1;
    if (strcmp(host_uds, "none") != 0 && strcmp(host_uds, "open") != 0 &&
        strcmp(host_uds, "create") != 0 && strcmp(host_uds, "all") != 0)
        unknown = 1;
    if (strcmp(host_fifo, "none") != 0 && strcmp(host_fifo, "open") != 0)
        unknown = 1;
    if (unknown) {
        if (!(*view = unknown_view()))
            return bx_error_set(err, BX_ENOMEM, NULL, "out of memory");
        return 0;
    }
    if (!(v = json_object()))
        return bx_error_set(err, BX_ENOMEM, NULL, "out of memory");
    if (strcmp(network, "none") == 0)
        json_object_set_new(v, "network",
                            json_pack("{s:s,s:[s]}", "mode", "none", "interfaces", "lo"));
    else if (strcmp(network, "host") == 0)
        json_object_set_new(v, "network", json_pack("{s:s,s:n}", "mode", "host", "interfaces"));
    if (!oci_seccomp)
        json_object_set_new(v, "seccomp",
                            json_pack("{s:s,s:n}", "mode", "disabled", "profileSha256"));
    else if (json_object_get(spec, "seccomp"))
        json_object_set(v, "seccomp", json_object_get(spec, "seccomp"));
    if (ignore_cgroups)
        json_object_set_new(v, "resources", null_limits());
    if (json_is_object(json_object_get(spec, "capabilities")))
        json_object_set_new(v, "capabilities",
                            net_raw ? json_deep_copy(json_object_get(spec, "capabilities"))
                                    : without_net_raw(json_object_get(spec, "capabilities")));
    if (strcmp(host_uds, "none") != 0)
        json_object_set_new(v, "hostSockets", json_sprintf("--host-uds=%s", host_uds));
    else if (strcmp(host_fifo, "none") != 0)
        json_object_set_new(v, "hostSockets", json_sprintf("--host-fifo=%s", host_fifo));
    else if (host_bool)
        json_object_set_new(v, "hostSockets", json_string("--fsgofer-host-uds"));
    if (profile)
        json_object_set_new(v, "sandbox", json_pack("{s:n}", "seccompMode"));
    *view = v;
    return 0;
}
