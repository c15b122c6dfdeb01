/* SPDX-License-Identifier: Apache-2.0 */
/* The one home of every containment fact (bx_schema.h, "the containment table"): the shape
 * of each member of the predicate in every version, how a --requested file names it, how two
 * values compare, which sources can give it and how inspect shows it. The closed-schema
 * check, the JSON Schemas (generated from these shapes at build time), the requested-file
 * reader, the comparator, the reconciler's source list and inspect all read it.
 *
 * Adding a fact: a row here (its shape with since = the version that adds it), one collector
 * function in attest/, the policy rule, fixtures (docs/architecture.md, "Adding a containment
 * fact"). Nullability follows "a value that could not be observed is null": identities, times,
 * the nonce, hashes of inputs and the shape of the document are never null; observations the
 * spec types as plain bool and the lists the engine always reports are never null. */
#include "schema_internal.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define UINT32_MAXV 4294967295LL

/* Member rows are written {name, shape} or {name, shape, flags, since, until, doc}. */
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

/* ---- capabilities: the one list ------------------------------------------------------------ */

/* clang-format off */
const char *const bx_cap_names[] = {
    "CHOWN", "DAC_OVERRIDE", "DAC_READ_SEARCH", "FOWNER", "FSETID", "KILL", "SETGID", "SETUID",
    "SETPCAP", "LINUX_IMMUTABLE", "NET_BIND_SERVICE", "NET_BROADCAST", "NET_ADMIN", "NET_RAW",
    "IPC_LOCK", "IPC_OWNER", "SYS_MODULE", "SYS_RAWIO", "SYS_CHROOT", "SYS_PTRACE", "SYS_PACCT",
    "SYS_ADMIN", "SYS_BOOT", "SYS_NICE", "SYS_RESOURCE", "SYS_TIME", "SYS_TTY_CONFIG", "MKNOD",
    "LEASE", "AUDIT_WRITE", "AUDIT_CONTROL", "SETFCAP", "MAC_OVERRIDE", "MAC_ADMIN", "SYSLOG",
    "WAKE_ALARM", "BLOCK_SUSPEND", "AUDIT_READ", "PERFMON", "BPF", "CHECKPOINT_RESTORE", NULL,
};
/* clang-format on */
_Static_assert(sizeof bx_cap_names / sizeof bx_cap_names[0] == BX_CAP_COUNT + 1,
               "capability table");

/* Docker's default set (moby's oci/caps/defaults.go, unchanged from 20.10 to 26). */
const char *const bx_cap_docker_defaults[] = {
    "AUDIT_WRITE", "CHOWN",   "DAC_OVERRIDE",     "FOWNER",     "FSETID",
    "KILL",        "MKNOD",   "NET_BIND_SERVICE", "NET_RAW",    "SETFCAP",
    "SETGID",      "SETPCAP", "SETUID",           "SYS_CHROOT", NULL,
};

int bx_cap_index(const char *name)
{
    for (int i = 0; name && i < BX_CAP_COUNT; i++)
        if (strcmp(bx_cap_names[i], name) == 0)
            return i;
    return -1;
}

uint64_t bx_cap_docker_default_bits(void)
{
    uint64_t bits = 0;
    for (const char *const *c = bx_cap_docker_defaults; *c; c++)
        bits |= UINT64_C(1) << bx_cap_index(*c);
    return bits;
}

int bx_cap_is_docker_default(const char *name)
{
    for (const char *const *c = bx_cap_docker_defaults; name && *c; c++)
        if (strcmp(*c, name) == 0)
            return 1;
    return 0;
}

/* ---- value sets ------------------------------------------------------------------------------ */

static const char *const e_engine_kind[] = {"docker", "podman", NULL};
static const char *const e_restart[] = {"no", "always", "unless-stopped", "on-failure", NULL};
static const char *const e_proto[] = {"tcp", "udp", "sctp", NULL};
static const char *const e_seccomp_mode[] = {"filter", "disabled", NULL};
static const char *const e_seccomp_profile[] = {"default", "unconfined", "custom", NULL};
static const char *const e_ns_kernel[] = {"private", "host", NULL};
const char *const bx_surface_kinds[] = {"rootfs", "tmpfs", "bind", "volume", "engine", NULL};
static const char *const e_propagation[] = {"",        "private", "rprivate", "shared",
                                            "rshared", "slave",   "rslave",   NULL};
const char *const bx_evidence_levels[] = {"engine", "engine+kernel", "engine+runtime", NULL};
const char *const bx_namespace_names[] = {"pid", "ipc", "uts", "net", "user", "cgroup", NULL};

/* ---- shape shorthands ------------------------------------------------------------------------ */

#define SHAPE(...) (&(const bx_shape){__VA_ARGS__})
#define STR(f) SHAPE(.kind = BX_K_STRING, .fmt = (f))
#define STR_N(f) SHAPE(.kind = BX_K_STRING, .fmt = (f), .nullable = 1)
#define ENUM(c) SHAPE(.kind = BX_K_STRING, .choices = (c))
#define ENUM_N(c) SHAPE(.kind = BX_K_STRING, .choices = (c), .nullable = 1)
#define INT(lo, hi) SHAPE(.kind = BX_K_INT, .min = (lo), .max = (hi))
#define INT_N(lo, hi) SHAPE(.kind = BX_K_INT, .min = (lo), .max = (hi), .nullable = 1)
#define BOOL SHAPE(.kind = BX_K_BOOL)
#define BOOL_N SHAPE(.kind = BX_K_BOOL, .nullable = 1)
#define ANY SHAPE(.kind = BX_K_ANY, .nullable = 1)
#define OBJ(m) SHAPE(.kind = BX_K_OBJECT, .members = (m))
#define OBJ_N(m) SHAPE(.kind = BX_K_OBJECT, .members = (m), .nullable = 1)
#define ARR(it, o, u) SHAPE(.kind = BX_K_ARRAY, .item = (it), .order = (o), .unique = (u))
#define ARR_N(it, o, u)                                                                            \
    SHAPE(.kind = BX_K_ARRAY, .item = (it), .order = (o), .unique = (u), .nullable = 1)
#define LIST(it) SHAPE(.kind = BX_K_ARRAY, .item = (it))

static const bx_shape hex64 = {.kind = BX_K_STRING,
                               .fmt = BX_F_HEX64,
                               .def = "hex64",
                               .doc = "SHA-256 as 64 lowercase hex digits."};
static const bx_shape hex64_n = {.kind = BX_K_STRING,
                                 .fmt = BX_F_HEX64,
                                 .nullable = 1,
                                 .def = "hex64",
                                 .doc = "SHA-256 as 64 lowercase hex digits."};
static const bx_shape image_id = {.kind = BX_K_STRING,
                                  .fmt = BX_F_DIGEST,
                                  .def = "imageId",
                                  .doc = "An image ID (the config digest): sha256: and 64 "
                                         "lowercase hex digits."};
static const bx_shape image_id_n = {.kind = BX_K_STRING,
                                    .fmt = BX_F_DIGEST,
                                    .nullable = 1,
                                    .def = "imageId",
                                    .doc = "An image ID (the config digest): sha256: and 64 "
                                           "lowercase hex digits."};
static const bx_shape time_s = {.kind = BX_K_STRING,
                                .fmt = BX_F_TIME,
                                .def = "time",
                                .doc = "RFC 3339 UTC with seconds and Z (YYYY-MM-DDTHH:MM:SSZ), "
                                       "a real calendar date."};
/* From v2 a session start keeps the engine's fraction of a second (a certificate binds one
 * start: two starts within a second are told apart) */
static const bx_shape time_ns = {.kind = BX_K_STRING,
                                 .fmt = BX_F_TIME_FRAC,
                                 .def = "timeNs",
                                 .doc = "RFC 3339 UTC with seconds, the engine's fraction of a "
                                        "second (1 to 9 digits, no trailing 0; none when it is 0) "
                                        "and Z, a real calendar date."};
static const bx_shape path = {
    .kind = BX_K_STRING, .fmt = BX_F_ABSPATH, .def = "path", .doc = "An absolute path."};
/* From v2 a path the policy compares is canonical: /a/b, no //, ., .. or trailing / */
static const bx_shape canon_path = {.kind = BX_K_STRING,
                                    .fmt = BX_F_CANONPATH,
                                    .def = "canonicalPath",
                                    .doc = "An absolute path in canonical form: no //, no . or .. "
                                           "component, no trailing /."};
static const bx_shape canon_path_or_empty = {
    .kind = BX_K_STRING,
    .fmt = BX_F_CANONPATH_OR_EMPTY,
    .def = "canonicalPathOrEmpty",
    .doc = "An absolute path in canonical form, or \"\" (a mount without a host source)."};
static const bx_shape limit = {.kind = BX_K_INT,
                               .min = 1,
                               .max = BX_JSON_MAX_INT,
                               .nullable = 1,
                               .def = "limit",
                               .doc = "A limit in its unit; null when unlimited or not observed."};
static const bx_shape capability = {.kind = BX_K_CAP,
                                    .def = "capability",
                                    .doc = "A capability name without CAP_, or the number of a bit "
                                           "the collector has no name for."};
static const bx_shape cap_set = {.kind = BX_K_ARRAY,
                                 .item = &capability,
                                 .order = BX_O_CAP,
                                 .unique = 1,
                                 .def = "capabilitySet",
                                 .doc = "A capability set: names sorted by their bytes, then "
                                        "unknown bits as numbers ascending; no repeats."};
static const bx_shape cap_set_n = {.kind = BX_K_ARRAY,
                                   .item = &capability,
                                   .order = BX_O_CAP,
                                   .unique = 1,
                                   .nullable = 1,
                                   .def = "capabilitySet",
                                   .doc = "A capability set: names sorted by their bytes, then "
                                          "unknown bits as numbers ascending; no repeats."};
static const bx_shape cap_config = {
    .kind = BX_K_ARRAY,
    .item = SHAPE(.kind = BX_K_CAP, .all = 1),
    .order = BX_O_STRING,
    .unique = 1,
    .def = "capabilityConfig",
    .doc = "Capabilities as configured (HostConfig.CapAdd / CapDrop), normalised, sorted, no "
           "repeats."};
static const bx_shape ids = {.kind = BX_K_ARRAY,
                             .item = INT(0, UINT32_MAXV),
                             .min = 4,
                             .max = 4,
                             .nullable = 1,
                             .def = "ids",
                             .doc = "Real, effective, saved and filesystem ids from the kernel; "
                                    "null when there is no kernel view."};

/* ---- the predicate -----------------------------------------------------------------------------
 */

static const bx_member m_collector[] = {
    {"name", STR(BX_F_NONEMPTY)},
    {"version", STR(BX_F_SEMVER)},
    {0},
};

static const bx_member m_host[] = {
    {"bootId", STR_N(BX_F_UUID)},
    {"hostname", STR_N(BX_F_NONEMPTY)},
    {0},
};

static const bx_member m_engine[] = {
    {"apiVersion", STR_N(BX_F_APIVER)},
    {"endpoint", STR_N(BX_F_ENDPOINT), 0, 1, 1},
    {"endpoint", STR_N(BX_F_ENDPOINT2), 0, 2, 0,
     "The engine's address: unix:///path, tcp://host:port or ssh://[user@]host[:port]."},
    {"id", STR_N(BX_F_NONEMPTY)},
    {"kind", ENUM(e_engine_kind)},
    {"sshHostKey", STR_N(BX_F_NONEMPTY), BX_M_OPTIONAL, 2, 0,
     "For an ssh:// engine, the server host key ssh checked: its type and SHA256 fingerprint "
     "as ssh prints them (ssh-ed25519 SHA256:...). Absent for other engines."},
    {"tlsPeerSha256", &hex64_n},
    {"version", STR_N(BX_F_NONEMPTY)},
    {0},
};

static const bx_member m_restart[] = {
    {"maximumRetryCount", INT_N(0, BX_JSON_MAX_INT)},
    {"name", ENUM(e_restart)},
    {0},
};

static const bx_member m_session[] = {
    {"containerId", &hex64},
    {"execCount", INT(0, BX_JSON_MAX_INT)},
    {"labels", SHAPE(.kind = BX_K_MAP, .item = STR(BX_F_TEXT))},
    {"name", STR(BX_F_NONEMPTY)},
    {"pid", INT(1, BX_JSON_MAX_INT)},
    {"restartPolicy", OBJ_N(m_restart)},
    {"startedAt", &time_s, 0, 0, 1, "State.StartedAt to the second."},
    {"startedAt", &time_ns, 0, 2, 0,
     "State.StartedAt as the engine gives it, to the nanosecond (compared as seconds and "
     "nanoseconds, never as text)."},
    {0},
};

static const bx_member m_image[] = {
    {"id", &image_id},
    {"pin", &image_id_n},
    {"ref", STR_N(BX_F_NONEMPTY)},
    {"repoDigests", ARR(STR(BX_F_REPODIGEST), BX_O_STRING, 0), 0, 0, 0, "Sorted."},
    {0},
};

static const char *const e_src_ignored[] = {"assume-unchanged", "config", "core.worktree",
                                            "info-attributes", "skip-worktree", NULL};
static const bx_member m_source[] = {
    {"dirty", BOOL, 0, 0, 0,
     "The checkout's tracked files differ from the commit's tree (each hashed raw; the index, "
     "the repository's configuration and attributes never read)."},
    {"ignored", ARR(ENUM(e_src_ignored), BX_O_STRING, 1), 0, 2, 0,
     "What the checkout said and the check did not read: skip-worktree or assume-unchanged "
     "entries in its index, a core.worktree or other settings in its config, "
     ".git/info/attributes. Sorted."},
    {0},
};

/* containment members */

static const bx_member m_runtime[] = {
    {"args", ARR_N(STR(BX_F_TEXT), BX_O_NONE, 0), 0, 0, 0, "In the order given (not sorted)."},
    {"name", STR_N(BX_F_NONEMPTY)},
    {"path", STR_N(BX_F_NONEMPTY)},
    {0},
};

static const bx_member m_port[] = {
    {"containerPort", INT(0, 65535)},
    {"hostIp", STR(BX_F_HOSTIP), 0, 0, 0, "An IP address, or \"\" for every address."},
    {"hostPort", INT(0, 65535)},
    {"proto", ENUM(e_proto)},
    {0},
};

static const char *const e_operstate[] = {"unknown", "notpresent", "down", "lowerlayerdown",
                                          "testing", "dormant",    "up",   NULL};
static const bx_member m_link_peer[] = {
    {"bridge", STR_N(BX_F_NONEMPTY), 0, 0, 0,
     "The bridge the peer is enslaved to in the engine daemon's network namespace (its "
     "IFLA_MASTER, a link of kind bridge); null when none or not known."},
    {"host", BOOL_N, 0, 0, 0,
     "The peer is in the engine daemon's network namespace (IFLA_LINK_NETNSID against the nsid "
     "each namespace gives the other, the peer pointing back); null when not known."},
    {"internal", BOOL_N, 0, 0, 0, "That network is internal (the engine's word); null: not known."},
    {"network", STR_N(BX_F_NONEMPTY), 0, 0, 0,
     "The engine's network whose bridge that is (network.networks); null when none is."},
    {0},
};
static const bx_member m_link[] = {
    {"addresses", ARR_N(STR(BX_F_NONEMPTY), BX_O_STRING, 1), 0, 0, 0,
     "Its IPv4 and IPv6 addresses as ip/prefix, sorted; null when not read."},
    {"kind", STR_N(BX_F_NONEMPTY), 0, 0, 0,
     "IFLA_INFO_KIND (veth, bridge, sit, ipip, macvlan, ...); null when the kernel gives none "
     "(lo, a physical device)."},
    {"name", STR(BX_F_NONEMPTY)},
    {"operState", ENUM_N(e_operstate), 0, 0, 0, "IFLA_OPERSTATE; null when not given."},
    {"peer", OBJ_N(m_link_peer), 0, 0, 0, "For a veth: where its other end is; else null."},
    {"up", BOOL, 0, 0, 0, "IFF_UP (administratively up)."},
    {0},
};
static const bx_member m_route[] = {
    {"dev", STR_N(BX_F_NONEMPTY), 0, 0, 0, "The output link (RTA_OIF); null: none (multipath)."},
    {"dst", STR(BX_F_NONEMPTY), 0, 0, 0, "ip/prefix: 0.0.0.0/0 and ::/0 are default routes."},
    {"gateway", STR_N(BX_F_NONEMPTY)},
    {"table", INT(0, UINT32_MAXV)},
    {"type", STR_N(BX_F_NONEMPTY), 0, 0, 0, "unicast, blackhole, unreachable, prohibit, ..."},
    {0},
};
static const bx_member m_engine_net[] = {
    {"bridge", STR_N(BX_F_NONEMPTY), 0, 0, 0,
     "The bridge device of a bridge-driver network (com.docker.network.bridge.name, else "
     "br-<first 12 of its Id>); null when not a bridge network or not known."},
    {"id", STR_N(BX_F_NONEMPTY), 0, 0, 0, "NetworkID."},
    {"internal", BOOL_N, 0, 0, 0, "The network's Internal flag; null when not read."},
    {"ipAddress", STR_N(BX_F_NONEMPTY), 0, 0, 0, "IPAddress/IPPrefixLen; null when none."},
    {"name", STR(BX_F_NONEMPTY)},
    {0},
};

static const bx_member m_network[] = {
    {"interfaces", ARR_N(STR(BX_F_NONEMPTY), BX_O_STRING, 1), 0, 0, 0,
     "Interface names seen in the session's namespace, sorted, no repeats."},
    {"internal", BOOL_N},
    {"links", ARR_N(OBJ(m_link), BX_O_NAME, 1), 0, 2, 0,
     "Every link of the session's network namespace, from the kernel over netlink "
     "(RTM_GETLINK, RTM_GETADDR), sorted by name; null without a kernel view."},
    {"mode", STR_N(BX_F_NETMODE), 0, 0, 0, "none, bridge, host, container:<id> or a network name."},
    {"networks", ARR_N(OBJ(m_engine_net), BX_O_NAME, 1), 0, 2, 0,
     "NetworkSettings.Networks, the engine's word, sorted by name; null when the engine gives "
     "none."},
    {"ports", ARR(OBJ(m_port), BX_O_PORT, 1), 0, 0, 0,
     "Host bindings actually made, sorted by containerPort, proto, hostIp, hostPort; no "
     "repeats."},
    {"routes", ARR_N(OBJ(m_route), BX_O_NONE, 0), 0, 2, 0,
     "The routes of the session's network namespace (RTM_GETROUTE, every table, the local, "
     "broadcast, anycast and multicast ones left out), sorted by table, dst, dev, gateway, "
     "type; null without a kernel view."},
    {0},
};

static const bx_member m_rootfs[] = {
    {"readOnly", BOOL_N},
    {0},
};

static const bx_member m_caps[] = {
    {"add", &cap_config},    {"ambient", &cap_set},
    {"bounding", &cap_set},  {"drop", &cap_config},
    {"effective", &cap_set}, {"inheritable", &cap_set},
    {"permitted", &cap_set}, {0},
};

static const bx_member m_seccomp[] = {
    {"mode", ENUM_N(e_seccomp_mode)},
    {"profile", ENUM_N(e_seccomp_profile)},
    {"profileSha256", &hex64_n, 0, 0, 0,
     "SHA-256 of the JCS of the OCI spec's linux.seccomp; null at level engine."},
    {0},
};

/* apparmor.kernel (v2): AppArmor as the kernel applies it to every task of the session */
static const char *const e_aa_mode[] = {"enforce", "complain", "kill", "unconfined", "user", NULL};
static const bx_member m_aa_profile[] = {
    {"mode", ENUM(e_aa_mode)},
    {"name", STR(BX_F_LINE)},
    {"namespace", STR(BX_F_TEXT), 0, 0, 0,
     "The policy namespace (:ns: in the label); \"\": the root's."},
    {"sha256", &hex64_n, 0, 0, 0,
     "The loaded profile's hash from securityfs (policy/profiles/<name>.<n>/sha256): an edited "
     "profile reloaded under the same name has another; null when not readable."},
    {0},
};
static const bx_member m_aa_kernel[] = {
    {"enforced", BOOL_N, 0, 0, 0,
     "Every task of the session is confined by a profile in enforce or kill mode (a stack by "
     "one of its profiles); false on a host without AppArmor; null when a task's label could "
     "not be read."},
    {"hostEnabled", BOOL_N, 0, 0, 0,
     "This host has AppArmor (/sys/module/apparmor/parameters/enabled)."},
    {"labels", ARR(STR(BX_F_LINE), BX_O_STRING, 1), 0, 0, 0,
     "Every task's label as the kernel writes it (attr/apparmor/current), sorted."},
    {"profiles", ARR(OBJ(m_aa_profile), BX_O_NONE, 1), 0, 0, 0,
     "The profiles of those labels, sorted by namespace, name, mode."},
    {0},
};

static const bx_member m_apparmor[] = {
    {"available", BOOL_N},
    {"kernel", OBJ_N(m_aa_kernel), BX_M_OPTIONAL, 2, 0,
     "AppArmor as the kernel applies it; null without a kernel view (level engine, runsc)."},
    {"profile", STR_N(BX_F_NONEMPTY)},
    {0},
};

static const bx_member m_selinux[] = {
    {"available", BOOL_N},
    {"label", STR_N(BX_F_NONEMPTY)},
    {0},
};

static const bx_shape every_id = {
    .kind = BX_K_ARRAY,
    .item = INT(0, UINT32_MAXV),
    .order = BX_O_INT,
    .unique = 1,
    .def = "everyId",
    .doc = "Every id of its kind over every task (thread) of every process of the session, "
           "ascending, no repeats."};
static const bx_shape every_id_n = {
    .kind = BX_K_ARRAY,
    .item = INT(0, UINT32_MAXV),
    .order = BX_O_INT,
    .unique = 1,
    .nullable = 1,
    .def = "everyId",
    .doc = "Every id of its kind over every task (thread) of every process of the session, "
           "ascending, no repeats."};

static const bx_member m_user_inns[] = {
    {"everyGid", &every_id},
    {"everyGroup", &every_id},
    {"everyUid", &every_id},
    {0},
};

static const bx_member m_user[] = {
    {"everyGid", &every_id_n, 0, 2, 0,
     "Every real, effective, saved and fs gid of every task, as the collector (in the initial "
     "user namespace) sees them; null without a kernel view."},
    {"everyGroup", &every_id_n, 0, 2, 0,
     "Every supplementary group of every task, as the collector sees them; null without a "
     "kernel view."},
    {"everyUid", &every_id_n, 0, 2, 0,
     "Every real, effective, saved and fs uid of every task, as the collector (in the initial "
     "user namespace) sees them; null without a kernel view."},
    {"gids", &ids},
    {"groups", ARR_N(INT(0, UINT32_MAXV), BX_O_INT, 1), 0, 0, 0,
     "Supplementary groups, ascending, no repeats."},
    {"inNamespace", OBJ_N(m_user_inns), 0, 2, 0,
     "The same ids as each task's own user namespace sees them: mapped back through its "
     "uid_map and gid_map, an id it does not map as the overflow id 65534; null without a "
     "kernel view."},
    {"spec", STR(BX_F_TEXT), 0, 0, 0, "As configured (\"\" when not)."},
    {"uids", &ids},
    {0},
};

static const char *const e_ns_holder[] = {"fd", "mount", NULL};
static const bx_member m_ns_holder[] = {
    {"by", ENUM(e_ns_holder), 0, 0, 0, "fd: a descriptor of a process; mount: a bind mount."},
    {"container", STR_N(BX_F_NONEMPTY), 0, 0, 0,
     "The Id of the container whose process holds it, or null for a process of the host."},
    {"pid", INT(1, BX_JSON_MAX_INT), 0, 0, 0, "The holding process (this host's pid)."},
    {"place", STR(BX_F_NONEMPTY), 0, 0, 0,
     "\"fd N\", or the mount point as the holder's mount namespace names it."},
    {0},
};

static const bx_member m_ns_shared[] = {
    {"containers", ARR(STR(BX_F_NONEMPTY), BX_O_STRING, 1), 0, 0, 0,
     "Other containers with a process in it, or that the engine says it is shared with "
     "(container:<id> modes): their Ids, sorted."},
    {"heldOpen", ARR(OBJ(m_ns_holder), BX_O_HOLDER, 1), 0, 0, 0,
     "Descriptors and bind mounts outside the session that keep it (and a way into it) open, "
     "sorted by pid, by, place; the engine's own bind mount of a network namespace is not "
     "listed."},
    {"host", BOOL, 0, 0, 0, "A process of the host (not of a container) is in it."},
    {0},
};

#define NS_ENGINE                                                                                  \
    {"engine", STR_N(BX_F_NONEMPTY), 0, 0, 0,                                                      \
     "The engine's mode: private, host, container:<id>, shareable, default, remapped, ..."}
#define NS_KERNEL                                                                                  \
    {"kernel", ENUM_N(e_ns_kernel), 0, 0, 0,                                                       \
     "private or host by comparing namespace inodes with the engine daemon's own; null without "   \
     "a kernel view."}
static const bx_member m_ns_v1[] = {NS_ENGINE, NS_KERNEL, {0}};
static const bx_member m_ns[] = {
    NS_ENGINE,
    NS_KERNEL,
    {"shared", OBJ_N(m_ns_shared), 0, 0, 0,
     "Who outside the session shares it, from every process of this host; null without a "
     "kernel view."},
    {0},
};
/* one JSON Schema def per shape: v1's namespace has no shared member */
static const bx_shape ns_v1 = {.kind = BX_K_OBJECT, .members = m_ns_v1, .def = "namespace"};
static const bx_shape ns = {.kind = BX_K_OBJECT, .members = m_ns, .def = "namespaceV2"};

static const bx_member m_namespaces[] = {
    {"cgroup", &ns_v1, 0, 0, 1}, {"cgroup", &ns, 0, 2}, {"ipc", &ns_v1, 0, 0, 1},
    {"ipc", &ns, 0, 2},          {"mnt", &ns, 0, 2},    {"net", &ns_v1, 0, 0, 1},
    {"net", &ns, 0, 2},          {"pid", &ns_v1, 0, 0, 1}, {"pid", &ns, 0, 2},
    {"time", &ns, 0, 2},         {"user", &ns_v1, 0, 0, 1}, {"user", &ns, 0, 2},
    {"uts", &ns_v1, 0, 0, 1},    {"uts", &ns, 0, 2},    {0},
};

static const bx_member m_resources[] = {
    {"cgroupParent", STR_N(BX_F_TEXT), 0, 0, 0, "\"\" for the engine's default parent."},
    {"cpuPeriod", &limit},
    {"cpuQuota", &limit},
    {"cpuShares", &limit},
    {"cpusetCpus", STR_N(BX_F_LINE), BX_M_OPTIONAL, 2, 0,
     "The CPUs the session may run on, as the kernel lists them (\"0-3,8\", canonical: "
     "cpuset.cpus.effective); null when they are all of this host's."},
    {"cpusetMems", STR_N(BX_F_LINE), BX_M_OPTIONAL, 2, 0,
     "The memory nodes the session may allocate from, the same way (cpuset.mems.effective)."},
    {"memoryBytes", &limit},
    {"memorySwapBytes", &limit},
    {"nanoCpus", &limit},
    {"pidsLimit", &limit},
    {0},
};

static const bx_member m_surface[] = {
    {"fsType", STR_N(BX_F_NONEMPTY), 0, 0, 0,
     "As the kernel's mountinfo names it; null when not observed."},
    {"kind", ENUM(bx_surface_kinds)},
    {"options", ARR(STR(BX_F_NONEMPTY), BX_O_STRING, 0), 0, 0, 0, "Mount options, sorted."},
    {"path", &path, 0, 0, 1},
    {"path", &canon_path, 0, 2, 0},
    {"sizeBytes", &limit},
    {0},
};

static const bx_member m_mount[] = {
    {"destination", &path, 0, 0, 1},
    {"destination", &canon_path, 0, 2, 0},
    {"propagation", ENUM(e_propagation)},
    {"readOnly", BOOL},
    {"source", STR(BX_F_TEXT), 0, 0, 1, "The canonical host path (symlinks resolved on the host)."},
    {"source", &canon_path_or_empty, 0, 2, 0,
     "The canonical host path (symlinks resolved on the engine's host when it is this one; "
     "else made lexical); \"\" when the mount has no host source."},
    {"sourceAsGiven", STR(BX_F_TEXT)},
    {"type", STR(BX_F_NONEMPTY)},
    {0},
};

static const bx_member m_device[] = {
    {"cgroupPermissions", STR(BX_F_PERMS), 0, 0, 0, "r, w and m, each at most once."},
    {"pathInContainer", &path},
    {"pathOnHost", &path},
    {0},
};

static const char *const e_node_type[] = {"b", "c", NULL};
static const bx_member m_node[] = {
    {"accessible", BOOL_N, 0, 0, 0,
     "The device cgroup lets the session read or write it; null when its rules are not known "
     "(runsc, a device program not interpreted)."},
    {"major", INT(0, 4095)},
    {"minor", INT(0, 1048575)},
    {"path", &path, 0, 0, 0, "In the session's /dev."},
    {"type", ENUM(e_node_type), 0, 0, 0, "c: a character device; b: a block device."},
    {0},
};

static const bx_member m_anynode[] = {
    {"accessible", BOOL_N, 0, 0, 0,
     "The device rules in force let the session read or write it; null when they are not known."},
    {"major", INT(0, 4095)},
    {"minor", INT(0, 1048575)},
    {"mount", STR(BX_F_NONEMPTY), 0, 0, 0, "The mount point of the mount it is on."},
    {"path", &path, 0, 0, 0, "In the session's tree."},
    {"type", ENUM(e_node_type), 0, 0, 0, "c: a character device; b: a block device."},
    {0},
};

static const bx_member m_devwalk[] = {
    {"entries", INT(0, BX_JSON_MAX_INT), 0, 0, 0, "Folder entries read."},
    {"mounts", ARR(STR(BX_F_NONEMPTY), BX_O_STRING, 1), 0, 0, 0,
     "The mount points of the mounts entered, sorted."},
    {"truncated", BOOL, 0, 0, 0,
     "A bound (depth, entries, nodes) was reached or a folder could not be read: not every "
     "node was seen."},
    {0},
};

static const bx_member m_mknod[] = {
    {"allowed", BOOL_N, 0, 0, 0,
     "capable and a rule lets a device that is not standard be made; null when not known."},
    {"capable", BOOL, 0, 0, 0, "CAP_MKNOD in some task's effective, permitted or ambient set."},
    {"rules", ARR_N(STR(BX_F_NONEMPTY), BX_O_STRING, 0), 0, 0, 0,
     "The device rules with m that let a task make a device that is not standard (cgroup v2: "
     "the probed devices the programs let be made); null when the rules are not known."},
    {0},
};

static const bx_member m_devices[] = {
    {"allowAll", BOOL, 0, 0, 1},
    {"allowAll", BOOL_N, 0, 2, 0,
     "Every device with every access allowed; null when the kernel's device programs (cgroup "
     "v2) cannot be read or interpreted."},
    {"cgroupRules", ARR(STR(BX_F_NONEMPTY), BX_O_STRING, 0), 0, 0, 0,
     "HostConfig.DeviceCgroupRules, sorted."},
    {"devices", ARR(OBJ(m_device), BX_O_DEVICE, 1), 0, 0, 0,
     "HostConfig.Devices, sorted by pathInContainer, pathOnHost, cgroupPermissions; no "
     "repeats."},
    {"nodes", ARR_N(OBJ(m_node), BX_O_PATH, 1), 0, 2, 0,
     "The device nodes present in the session's /dev (and one level below), sorted by path; "
     "null without a kernel view."},
    {"mknod", OBJ_N(m_mknod), 0, 3, 0,
     "Whether a task of the session can make a device node that is not standard; null without "
     "a kernel view (runsc: the sentry makes and serves its own devices)."},
    {"nodesAnywhere", ARR_N(OBJ(m_anynode), BX_O_PATH, 1), 0, 3, 0,
     "The device nodes that are not standard on every mount of the session a device opens "
     "through (not nodev, not proc or sysfs), /dev included, sorted by path; null when not "
     "walked (no kernel view, runsc)."},
    {"walk", OBJ_N(m_devwalk), 0, 3, 0, "What nodesAnywhere's walk covered; null when not walked."},
    {0},
};

/* processes (v2): which processes are the session's, and whether every one was read */
static const char *const e_proc_rule[] = {"pid-namespace", "cgroup", "sandbox", NULL};
static const char *const e_controller[] = {"devices", "memory", "pids", NULL};
static const bx_member m_outside[] = {
    {"controller", ENUM(e_controller)},
    {"path", STR(BX_F_NONEMPTY), 0, 0, 0, "Its cgroup in that hierarchy."},
    {"pid", INT(1, BX_JSON_MAX_INT)},
    {0},
};
static const bx_shape id_map = {
    .kind = BX_K_ARRAY,
    .item = SHAPE(.kind = BX_K_ARRAY, .item = INT(0, UINT32_MAXV), .min = 3, .max = 3),
    .def = "idMap",
    .doc = "The lines of uid_map or gid_map: [first id inside, first id outside, count]."};
static const bx_member m_userns[] = {
    {"gidMap", &id_map},
    {"id", STR(BX_F_NONEMPTY), 0, 0, 0, "The namespace as the kernel names it: user:[inode]."},
    {"processes", INT(1, BX_JSON_MAX_INT), 0, 0, 0, "How many of the session's processes are in it."},
    {"uidMap", &id_map},
    {0},
};
static const bx_member m_processes[] = {
    {"count", INT(0, BX_JSON_MAX_INT), 0, 0, 0, "Processes read."},
    {"outsideCgroups", ARR(OBJ(m_outside), BX_O_PID_CONTROLLER, 1), 0, 0, 0,
     "Processes of the session whose memory, pids or devices cgroup is not the session's (nor "
     "below it), sorted by pid, controller."},
    {"rule", ENUM(e_proc_rule), 0, 0, 0,
     "pid-namespace: the processes in the session's own pid namespace or below it, but those "
     "of other containers; cgroup: those in the session's cgroup but the cgroups of other "
     "containers; sandbox: runsc's sandbox and gofer."},
    {"scans", INT(1, BX_JSON_MAX_INT), 0, 0, 0, "Scans of the session's processes made."},
    {"settled", BOOL, 0, 0, 0,
     "Two consecutive scans found the same processes, each alive from its first reading to "
     "the last scan (pidfds); false: the per-process facts are the weakest values or null."},
    {"tasks", INT(0, BX_JSON_MAX_INT), 0, 0, 0, "Tasks (threads) read."},
    {"userNamespaces", ARR(OBJ(m_userns), BX_O_ID, 1), 0, 0, 0,
     "The user namespaces of the session's processes, sorted by id."},
    {0},
};

/* systemPaths (v2): the kernel's files a session must not write, and the masks */
static const char *const e_served[] = {"kernel", "sentry", NULL};
static const char *const e_mask[] = {"masked", "absent", "exposed", NULL};
static const bx_member m_sys_ro[] = {
    {"/proc/bus", BOOL_N},
    {"/proc/irq", BOOL_N},
    {"/proc/sys", BOOL_N},
    {"/proc/sysrq-trigger", BOOL_N},
    {0},
};
static const bx_member m_syspaths[] = {
    {"masks", SHAPE(.kind = BX_K_MAP, .fmt = BX_F_ABSPATH, .item = ENUM(e_mask), .nullable = 1),
     0, 0, 0,
     "Each path the engine masks and each of Docker's default masked paths: masked (a /dev/null "
     "or a read-only tmpfs over it), absent (not in the session) or exposed; null when not "
     "read (runsc)."},
    {"readOnly", OBJ(m_sys_ro), 0, 0, 0,
     "true when the mount holding the path and every mount below it are read-only, in every "
     "mount namespace of the session, or when the kernel has no such file; null when not "
     "read."},
    {"servedBy", ENUM(e_served), 0, 0, 0,
     "kernel: this host's kernel serves them (runc, crun); sentry: gVisor's sentry does, the "
     "host's files are not the session's."},
    {0},
};

/* seccompPrograms (v2): the seccomp programs the kernel enforces, read from every task */
static const char *const e_sc_verdict[] = {"allow", "depends", NULL};
static const bx_shape sc_names = {.kind = BX_K_ARRAY,
                                  .item = STR(BX_F_NONEMPTY),
                                  .order = BX_O_STRING,
                                  .unique = 1,
                                  .doc = "Syscall names as libseccomp resolves them; the numbers "
                                         "it does not know as runs #A or #A-B; sorted."};
static const bx_member m_sc_abi[] = {
    {"allow", &sc_names, 0, 0, 0,
     "Every number 0..1023 let through for every argument; those in neither list are denied."},
    {"beyond", STR(BX_F_NONEMPTY), 0, 0, 0,
     "What every number past the table (1024 and up, -1 too) gets: a return value such as "
     "errno(1) when they all get it, else allow, deny or depends."},
    {"depends", &sc_names, 0, 0, 0, "Let through for some arguments only."},
    {0},
};
static const bx_member m_sc_chain[] = {
    {"abis", SHAPE(.kind = BX_K_MAP, .fmt = BX_F_NONEMPTY, .item = OBJ(m_sc_abi)), 0, 0, 0,
     "Per ABI of the machine (x86_64, x32, x86; aarch64, arm)."},
    {"filters", INT(0, 64), 0, 0, 0, "0 for the sentry's workload chain (rules, no program)."},
    {"insns", INT(0, 32768)},
    {"log", BOOL, 0, 0, 0, "A filter of the chain was installed with SECCOMP_FILTER_FLAG_LOG."},
    {"otherArch", STR(BX_F_NONEMPTY), 0, 0, 0, "What a syscall of any other arch value gets."},
    {"sha256", &hex64, 0, 0, 0,
     "SHA-256 of the chain's canonical bytes (docs/seccomp.md), oldest filter first; for the "
     "sentry's workload chain, of the JCS of the OCI profile."},
    {"tasks", INT(0, BX_JSON_MAX_INT), 0, 0, 0, "How many of the session's tasks run it."},
    {0},
};
static const bx_member m_sc_unread[] = {
    {"reason", STR(BX_F_NONEMPTY)},
    {"tid", INT(1, BX_JSON_MAX_INT)},
    {0},
};
static const bx_member m_sc_looser[] = {
    {"abi", STR(BX_F_NONEMPTY)},
    {"kernel", ENUM(e_sc_verdict)},
    {"syscall", STR(BX_F_NONEMPTY)},
    {0},
};
static const bx_member m_sc_profile[] = {
    {"looser", ARR_N(OBJ(m_sc_looser), BX_O_NONE, 0), 0, 0, 0,
     "Where a chain the kernel runs lets through what the profile denies, by the profile's "
     "rules; null when they could not be read."},
    {"sha256", &hex64, 0, 0, 0, "SHA-256 of the JCS of the OCI spec's linux.seccomp."},
    {0},
};
static const bx_member m_sc_reader[] = {
    {"capSysAdmin", BOOL},
    {"initialUserNamespace", BOOL},
    {"seccomp", BOOL, 0, 0, 0, "The collector itself runs under seccomp."},
    {0},
};
static const bx_member m_sc_tasks[] = {
    {"filter", INT(0, BX_JSON_MAX_INT), 0, 0, 0, "Tasks whose chain was read."},
    {"none", INT(0, BX_JSON_MAX_INT), 0, 0, 0, "Tasks without seccomp."},
    {"strict", INT(0, BX_JSON_MAX_INT), 0, 0, 0, "Tasks in strict mode."},
    {"unread", INT(0, BX_JSON_MAX_INT), 0, 0, 0, "Tasks in filter mode not read."},
    {0},
};
static const bx_member m_sc_programs[] = {
    {"chains", ARR_N(OBJ(m_sc_chain), BX_O_NONE, 0), 0, 0, 0,
     "Each distinct chain, sorted by sha256; null when the collector could not read any (why)."},
    {"profile", OBJ_N(m_sc_profile), 0, 0, 0,
     "The OCI profile the runtime was given, judged against the chains; null without one."},
    {"reader", OBJ(m_sc_reader), 0, 0, 0, "The collector's own confinement."},
    {"sandbox", ARR_N(OBJ(m_sc_chain), BX_O_NONE, 0), 0, 0, 0,
     "runsc: the sentry's own host filter (its tasks' chains); null otherwise."},
    {"servedBy", ENUM(e_served), 0, 0, 0,
     "kernel: the chains are the session's tasks'; sentry: the workload's filter is the OCI "
     "profile the sentry enforces (--oci-seccomp), chains the profile's program."},
    {"tasks", OBJ(m_sc_tasks)},
    {"unread", ARR(OBJ(m_sc_unread), BX_O_NONE, 0), 0, 0, 0, "Sorted by tid."},
    {"why", STR_N(BX_F_NONEMPTY), 0, 0, 0, "Why chains is null."},
    {0},
};

/* descriptors (v2): open descriptors of the session's processes that reach outside it */
static const char *const e_desc_kind[] = {"engine-socket", "host-device", "host-directory",
                                          "host-file", "namespace", NULL};
static const bx_member m_descriptor[] = {
    {"fd", INT(0, BX_JSON_MAX_INT)},
    {"kind", ENUM(e_desc_kind), 0, 0, 0,
     "engine-socket: the engine's or containerd's listening socket, or a connection to it; "
     "host-*: a file, folder or device on a mount the process's mount namespace does not have; "
     "namespace: a namespace none of the session's processes is in."},
    {"pid", INT(1, BX_JSON_MAX_INT)},
    {"target", STR(BX_F_TEXT), 0, 0, 0,
     "What the kernel names it: the socket's path, the file's path on this host, net:[inode]."},
    {0},
};

/* propagationPeers (v3): session mounts that receive mounts from a peer group, and the host
 * mount points of that group outside the session */
static const bx_shape abs_paths = {.kind = BX_K_ARRAY,
                                   .item = &path,
                                   .order = BX_O_STRING,
                                   .unique = 1,
                                   .nullable = 1};
static const bx_member m_peer[] = {
    {"destination", &path, 0, 0, 0, "The mount point in the session's mount namespace."},
    {"outside", &abs_paths, 0, 0, 0,
     "The mount points of this host's mountinfo in a peer group the mount receives from (its "
     "peers, its master's group, the group propagate_from names) that are not the session's own "
     "root file system, sorted; [] when the group is the session's alone; null when this host's "
     "mountinfo could not be read to resolve it."},
    {"propagation", STR(BX_F_TEXT), 0, 0, 0,
     "The mount's optional fields as the kernel shows them: \"shared:N\", \"master:N\", "
     "\"shared:N master:M\", with \"propagate_from:P\" when the master group is not visible."},
    {0},
};

/* references (v3): what the session's tasks hold beyond descriptors that reaches outside */
static const char *const e_ref_via[] = {"cwd", "exe", "io_uring", "mapping", "root", NULL};
static const char *const e_ref_kind[] = {"host-device", "host-directory", "host-file", "unplaced",
                                         NULL};
static const char *const e_ref_perms[] = {"---p", "---s", "--xp", "--xs", "-w-p", "-w-s",
                                          "-wxp", "-wxs", "r--p", "r--s", "r-xp", "r-xs",
                                          "rw-p", "rw-s", "rwxp", "rwxs", NULL};
static const bx_member m_reference[] = {
    {"kind", ENUM(e_ref_kind), 0, 0, 0,
     "host-*: a file, folder or device on a mount the task's mount namespace does not have; "
     "unplaced: the kernel names it but shows no mount for it (a file registered with io_uring), "
     "or it could not be opened to ask."},
    {"perms", ENUM_N(e_ref_perms), 0, 0, 0,
     "A mapping's permissions as maps writes them (s: shared); null for the others."},
    {"pid", INT(1, BX_JSON_MAX_INT)},
    {"target", STR(BX_F_TEXT), 0, 0, 0, "What the kernel names it: the path on this host."},
    {"via", ENUM(e_ref_via), 0, 0, 0,
     "How the task holds it: its working directory, root, executable, a file mapping, or a file "
     "registered with an io_uring it holds."},
    {0},
};

/* channels (v3): sockets of the session's processes that are a channel out or were made in
 * another network namespace */
static const char *const e_ch_family[] = {"inet",   "inet6", "netlink", "other",
                                          "packet", "unix",  "vsock",   NULL};
static const char *const e_ch_type[] = {"dgram", "other", "raw", "seqpacket", "stream", NULL};
static const char *const e_ch_netns[] = {"daemon", "host", "other", "session", NULL};
static const char *const e_ch_peer[] = {"container", "host", "session", "unknown", NULL};
static const bx_member m_ch_peer[] = {
    {"comm", STR_N(BX_F_TEXT), 0, 0, 0, "The holder's comm (container and host); else null."},
    {"container", STR_N(BX_F_TEXT), 0, 0, 0, "The other container's Id (kind container)."},
    {"kind", ENUM(e_ch_peer), 0, 0, 0,
     "Who holds the peer socket: a session process, another container's, the host's, or no "
     "process found (unknown: a socket in flight or the holder not readable)."},
    {"pid", INT_N(1, BX_JSON_MAX_INT), 0, 0, 0, "A process holding it (null when unknown)."},
    {0},
};
static const bx_member m_channel[] = {
    {"family", ENUM_N(e_ch_family), 0, 0, 0, "SO_DOMAIN of a copy (pidfd_getfd); null when no copy."},
    {"fd", INT(0, BX_JSON_MAX_INT)},
    {"inFlight", INT_N(0, BX_JSON_MAX_INT), 0, 0, 0,
     "scm_fds of the fdinfo: descriptors sent to this socket and not yet received; null when "
     "not shown."},
    {"netns", INT_N(1, BX_JSON_MAX_INT), 0, 0, 0,
     "The inode of the network namespace the socket was made in (SIOCGSKNS); null when it could "
     "not be asked."},
    {"netnsOf", ENUM_N(e_ch_netns), 0, 0, 0,
     "Whose that namespace is: the session's, the host's (pid 1's), the daemon's, or another's."},
    {"path", STR_N(BX_F_TEXT), 0, 0, 0,
     "The name a unix socket or its peer is bound to (@ for an abstract name); else null."},
    {"peer", OBJ_N(m_ch_peer), 0, 0, 0, "A unix socket's connected peer; null when none."},
    {"pid", INT(1, BX_JSON_MAX_INT)},
    {"type", ENUM_N(e_ch_type), 0, 0, 0, "SO_TYPE of a copy; null when no copy."},
    {0},
};

/* namespaceCreation (v3): which namespaces the session's tasks can create, by seccomp */
static const char *const e_nsc_kind[] = {"cgroup", "ipc", "mnt", "net",
                                         "pid",    "time", "user", "uts", NULL};
static const bx_shape nsc_kinds = {.kind = BX_K_ARRAY,
                                   .item = ENUM(e_nsc_kind),
                                   .order = BX_O_STRING,
                                   .unique = 1,
                                   .doc = "Namespace kinds, sorted."};
static const bx_member m_nsc_abi[] = {
    {"clone", &nsc_kinds, 0, 0, 0,
     "The kinds whose CLONE_NEW* bit some flags value carries through every filter to an "
     "allowing return (allow, log, trace, user_notif), by the filters' comparisons on both "
     "halves of the flags argument; never time (that bit is clone's exit signal)."},
    {"clone3", BOOL, 0, 0, 0,
     "Some clone3 call is let through: its flags are in a structure seccomp cannot read, so "
     "it can create every kind."},
    {"unshare", &nsc_kinds, 0, 0, 0, "As clone, for unshare's flags (time included)."},
    {0},
};
static const bx_member m_nsc[] = {
    {"abis",
     SHAPE(.kind = BX_K_MAP, .fmt = BX_F_NONEMPTY, .item = OBJ_N(m_nsc_abi), .nullable = 1), 0, 0,
     0,
     "Per ABI of the machine, joined over every task (a task without seccomp can create every "
     "kind); an ABI is null when a syscall is unknown to libseccomp there; null when some task's "
     "chain was not read (why)."},
    {"maxUserNamespaces", INT_N(0, BX_JSON_MAX_INT), 0, 0, 0,
     "user.max_user_namespaces as a task of the session reads it (in its user namespace); null "
     "when not read."},
    {"servedBy", ENUM(e_served), 0, 0, 0,
     "kernel: the session's tasks; sentry: the sandbox's own tasks as this host's kernel sees "
     "them (the workload's namespaces are the sentry's)."},
    {"why", STR_N(BX_F_NONEMPTY), 0, 0, 0, "Why abis is null."},
    {0},
};

static const bx_member m_sysctl[] = {
    {"engine", STR_N(BX_F_TEXT), 0, 0, 0,
     "The value the engine had the runtime set (the OCI spec's linux.sysctl where read, else "
     "HostConfig.Sysctls); null when it set none."},
    {"kernel", STR_N(BX_F_TEXT), 0, 0, 0,
     "The value read back in the session's own net, ipc and uts namespaces (whitespace runs "
     "as one space); null when not read (level engine, runsc, not this host's kernel)."},
    {0},
};

/* hostObjects (v2): what of this host the session's mounts reach, by the object's identity */
static const char *const e_hostobj[] = {"containerd socket", "engine folder", "engine socket",
                                        "host procfs", "host root", "host sysfs",
                                        "runtime socket", "signing key", "signing key folder",
                                        NULL};
static const char *const e_objtype[] = {"block-device", "char-device", "directory", "fifo",
                                        "file", "other", "socket", "symlink", NULL};
static const bx_member m_hostobj[] = {
    {"device", STR(BX_F_NONEMPTY), 0, 0, 0, "major:minor of its file system."},
    {"inode", INT(0, BX_JSON_MAX_INT)},
    {"path", &path, 0, 0, 0, "Its canonical path on this host."},
    {"reachable", BOOL_N, 0, 0, 0,
     "true when a mount of the session exposes it (same device, and the mount's root within the "
     "file system is its path or an ancestor, or for a folder below it; for procfs and sysfs "
     "any mount of them; a hard link found beneath a mount); null when that cannot be told (a "
     "walk's bound reached, a covered place, the object not placed in this host's mountinfo)."},
    {"via", ARR(&path, BX_O_STRING, 1), 0, 0, 0, "The mount points that reach it, sorted."},
    {"what", ENUM(e_hostobj)},
    {0},
};
static const bx_member m_fstype_mount[] = {
    {"destination", &path},
    {"fsType", STR(BX_F_NONEMPTY)},
    {"readOnly", BOOL, BX_M_OPTIONAL},
    {0},
};
static const bx_member m_kmount[] = {
    {"destination", &path},
    {"device", STR(BX_F_NONEMPTY), 0, 0, 0, "major:minor (mountinfo field 3)."},
    {"fsType", STR(BX_F_NONEMPTY)},
    {"hostPath", STR_N(BX_F_TEXT), 0, 0, 0,
     "Where this host shows the same object (a mount of this host of the same device holding "
     "the root, the inode checked there); null when none does or it was not opened."},
    {"inode", INT_N(0, BX_JSON_MAX_INT), 0, 0, 0,
     "The object at the mount point, opened beneath the session's root without following "
     "links; null for a covered mount, a remote or FUSE file system, or one not opened."},
    {"options", STR(BX_F_TEXT), 0, 0, 0, "The per-mount options, as mountinfo writes them."},
    {"readOnly", BOOL},
    {"root", STR(BX_F_TEXT), 0, 0, 0, "The mount's root within its file system (field 4)."},
    {"type", ENUM_N(e_objtype)},
    {0},
};
static const bx_member m_hostobjs[] = {
    {"forbiddenTypes", ARR(OBJ(m_fstype_mount), BX_O_MOUNTLINE, 1), 0, 0, 0,
     "Mounts of a type forbidden whatever they hold: devtmpfs, a writable cgroup v1 hierarchy, "
     "debugfs, tracefs, securityfs, bpf, nsfs, efivarfs, configfs."},
    {"mounts", ARR(OBJ(m_kmount), BX_O_MOUNTLINE, 1), 0, 0, 0,
     "Every mount of every mount namespace of the session (under runsc, its gofer's), sorted."},
    {"objects", ARR(OBJ(m_hostobj), BX_O_HOSTOBJ, 1), 0, 0, 0,
     "The host objects this host has (docs/collector.md), sorted by what, path."},
    {"uninspected", ARR(OBJ(m_fstype_mount), BX_O_MOUNTLINE, 1), 0, 0, 0,
     "fuse, nfs, cifs, 9p and other remote mounts: never opened nor walked."},
    {0},
};

/* ---- requested: how a --requested file names each member -----------------------------------
 * Every member is optional (only what was asked for is written). The reader (attest/
 * requested.c) types a file by these shapes; predicate.requested.containment of v2 holds what
 * it read and is checked by them too (v1 kept the values loosely). */

#define OPT BX_M_OPTIONAL
static const char *const e_seccomp_word[] = {"default", "custom", "unconfined", NULL};
static const bx_shape r_path = {.kind = BX_K_STRING, .fmt = BX_F_ABSPATH};
static const bx_shape r_limit = {.kind = BX_K_INT,
                                 .min = 1,
                                 .max = BX_JSON_MAX_INT,
                                 .nullable = 1,
                                 .doc = "A limit in its unit: the effective value must be set "
                                        "and at most this; null asks for nothing."};
static const bx_shape r_cap = {.kind = BX_K_CAP, .doc = "A name as the predicate writes it."};
static const bx_shape r_cap_all = {.kind = BX_K_CAP, .all = 1};

static const bx_member r_port[] = {
    {"hostIp", STR(BX_F_HOSTIP), OPT},
    {"hostPort", INT(0, 65535), OPT},
    {"containerPort", INT(0, 65535), OPT},
    {"proto", ENUM(e_proto), OPT},
    {0},
};
static const bx_member r_runtime[] = {{"name", STR(BX_F_NONEMPTY), BX_M_REQUIRED}, {0}};
static const bx_member r_network[] = {
    {"mode", STR(BX_F_NETMODE), OPT},
    {"internal", BOOL, OPT},
    {"interfaces", LIST(STR(BX_F_NONEMPTY)), OPT},
    {"ports", LIST(OBJ(r_port)), OPT},
    {0},
};
static const bx_member r_rootfs[] = {{"readOnly", BOOL, BX_M_REQUIRED}, {0}};
static const bx_member r_caps[] = {
    {"add", LIST(&r_cap_all), OPT},     {"drop", LIST(&r_cap_all), OPT},
    {"effective", LIST(&r_cap), OPT},   {"permitted", LIST(&r_cap), OPT},
    {"inheritable", LIST(&r_cap), OPT}, {"ambient", LIST(&r_cap), OPT},
    {"bounding", LIST(&r_cap), OPT},    {0},
};
static const bx_member r_seccomp[] = {
    {"mode", ENUM(e_seccomp_mode), OPT},
    {"profile", ENUM(e_seccomp_word), OPT},
    {"profileSha256", STR(BX_F_HEX64_PIN), OPT},
    {0},
};
static const bx_member r_apparmor[] = {{"profile", STR(BX_F_NONEMPTY), BX_M_REQUIRED}, {0}};
static const bx_member r_selinux[] = {{"label", STR(BX_F_NONEMPTY), BX_M_REQUIRED}, {0}};
/* v1 kept uids as integers, ascending, each once */
static const bx_member r_user_v1[] = {
    {"nonRoot", BOOL, OPT},
    {"uids", ARR(INT(0, UINT32_MAXV), BX_O_INT, 1), OPT, 0, 0, "Ascending, no repeats."},
    {0},
};
/* requested uids: non-root, ascending, each once (the predicate records them so) */
static const bx_member r_user[] = {
    {"nonRoot", BOOL, OPT},
    {"uids", ARR(INT(1, UINT32_MAXV), BX_O_INT, 1), OPT, 0, 0,
     "Non-root uids, ascending, no repeats."},
    {0},
};
#define RNS ENUM(e_ns_kernel)
static const bx_member r_namespaces[] = {
    {"pid", RNS, OPT},
    {"ipc", RNS, OPT},
    {"uts", RNS, OPT},
    {"net", RNS, OPT},
    {"user", RNS, OPT},
    {"cgroup", RNS, OPT},
    {0},
};
static const bx_member r_resources[] = {
    {"memoryBytes", &r_limit, OPT},
    {"memorySwapBytes", &r_limit, OPT},
    {"pidsLimit", &r_limit, OPT},
    {"nanoCpus", &r_limit, OPT},
    {"cpuShares", &r_limit, OPT},
    {"cpuQuota", &r_limit, OPT},
    {"cpuPeriod", &r_limit, OPT},
    {"cgroupParent", STR(BX_F_TEXT), OPT},
    {0},
};
static const bx_member r_surface[] = {
    {"path", &r_path, BX_M_REQUIRED}, {"kind", ENUM(bx_surface_kinds), OPT},
    {"fsType", STR(BX_F_TEXT), OPT},  {"options", LIST(STR(BX_F_TEXT)), OPT},
    {"sizeBytes", &r_limit, OPT},     {0},
};
static const bx_member r_mount[] = {
    {"type", STR(BX_F_TEXT), OPT},
    {"source", STR(BX_F_TEXT), OPT},
    {"sourceAsGiven", STR(BX_F_TEXT), OPT},
    {"destination", &r_path, BX_M_REQUIRED},
    {"readOnly", BOOL, OPT},
    {"propagation", ENUM(e_propagation), OPT},
    {0},
};
static const bx_member r_device[] = {
    {"pathOnHost", &r_path, BX_M_REQUIRED},
    {"pathInContainer", &r_path, OPT},
    {"cgroupPermissions", STR(BX_F_PERMS), OPT},
    {0},
};
static const bx_member r_devices[] = {
    {"devices", LIST(OBJ(r_device)), OPT},
    {"cgroupRules", LIST(STR(BX_F_TEXT)), OPT},
    {"allowAll", BOOL, OPT},
    {0},
};
/* A --requested file names what the policy also names by the policy's name (readOnlyRootfs,
 * runtimes, resources.memoryMax/pidsMax/cpusMax) and may say version: 1; the predicate's
 * names (rootfs, runtime, resources.memoryBytes/pidsLimit/nanoCpus) are still read, and
 * deprecated. attest/requested.c writes the request in the predicate's names, as
 * predicate.requested.containment records it and the comparator reads it. */
#define DEPRECATED(now) "Deprecated (the predicate's name): write " now ", the policy's name."
static const bx_member r_resources_file[] = {
    {"memoryMax", STR(BX_F_SIZE), OPT, 0, 0,
     "At most this memory, a size above 0 as the policy writes it (512Mi); recorded as "
     "memoryBytes."},
    {"pidsMax", INT(1, 4194304), OPT, 0, 0, "At most this many PIDs; recorded as pidsLimit."},
    {"cpusMax", STR(BX_F_DECIMAL), OPT, 0, 0,
     "At most this many CPUs, a decimal as the policy writes it (\"0.5\"); recorded as "
     "nanoCpus."},
    {"memoryBytes", &r_limit, OPT, 0, 0, DEPRECATED("memoryMax")},
    {"memorySwapBytes", &r_limit, OPT},
    {"pidsLimit", &r_limit, OPT, 0, 0, DEPRECATED("pidsMax")},
    {"nanoCpus", &r_limit, OPT, 0, 0, DEPRECATED("cpusMax")},
    {"cpuShares", &r_limit, OPT},
    {"cpuQuota", &r_limit, OPT},
    {"cpuPeriod", &r_limit, OPT},
    {"cgroupParent", STR(BX_F_TEXT), OPT},
    {0},
};
#define R_RESOURCES_DOC                                                                          \
    "Set and at most the requested value is stronger; unlimited is weakest. nanoCpus, cpuQuota "  \
    "and cpuPeriod are compared as one CPU limit."
static const bx_shape r_resources_file_shape = {
    .kind = BX_K_OBJECT, .members = r_resources_file, .doc = R_RESOURCES_DOC};
static const bx_member r_file_policy_names[] = {
    {"version", INT(1, 1), OPT, 0, 0, "The request language's version: 1, as a policy's."},
    {"readOnlyRootfs", BOOL, OPT, 0, 0,
     "true asks for a read-only root filesystem; recorded as rootfs: {readOnly}."},
    {"runtimes", SHAPE(.kind = BX_K_ARRAY, .item = STR(BX_F_NONEMPTY), .min = 1, .max = 1), OPT,
     0, 0, "The runtime asked for, one (runsc > runc/crun); recorded as runtime."},
    {0},
};

#define WORD_OR(m, w, d) SHAPE(.kind = BX_K_OBJECT, .members = (m), .alt = (w), .doc = (d))
#define OBJ_D(m, d) SHAPE(.kind = BX_K_OBJECT, .members = (m), .doc = (d))
#define LIST_D(it, d) SHAPE(.kind = BX_K_ARRAY, .item = (it), .doc = (d))

/* ---- the table ----------------------------------------------------------------------------------
 */

#define FACTS(...) ((const bx_fact[]){__VA_ARGS__, {NULL, NULL}})
#define ALL_SOURCES (BX_SRC_ENGINE | BX_SRC_SPEC | BX_SRC_RUNTIME | BX_SRC_KERNEL)

/* The order inspect shows them and the comparator walks a request. */
const bx_containment_row bx_containment[] = {
    {"runtime", OBJ(m_runtime), 0, 0,
     WORD_OR(r_runtime, STR(BX_F_NONEMPTY),
             "runsc > runc/crun: asking for runsc refuses any other runtime."),
     bxs_cmp_runtime, BX_SRC_ENGINE | BX_SRC_RUNTIME,
     FACTS({"name", "runtime"}, {"path", "runtime"}, {"args", "runtime"})},
    {"network", OBJ(m_network), 0, 0,
     WORD_OR(r_network, STR(BX_F_NETMODE),
             "none > a named/internal network > bridge > container:<id> > host. interfaces and "
             "ports: the effective ones must be among those listed."),
     bxs_cmp_network, ALL_SOURCES,
     FACTS({"mode", "network.mode"}, {"internal", "network.internal"},
           {"interfaces", "network.interfaces"}, {"ports", "network.ports"})},
    {"rootfs", OBJ(m_rootfs), 0, 0, OBJ(r_rootfs), bxs_cmp_rootfs, ALL_SOURCES,
     FACTS({"readOnly", "rootfs.readOnly"})},
    {"capabilities", OBJ(m_caps), 0, 0,
     OBJ_D(r_caps, "The ceiling: the union of the sets listed (else Docker's reading of add/drop); "
                   "the effective, permitted and ambient sets (and bounding when no-new-privileges "
                   "is off) must stay within it."),
     bxs_cmp_capabilities, ALL_SOURCES,
     FACTS({"effective", "capabilities"}, {"permitted", "capabilities"},
           {"inheritable", "capabilities"}, {"ambient", "capabilities"},
           {"bounding", "capabilities"}, {"add", NULL}, {"drop", NULL})},
    {"noNewPrivileges", BOOL, 0, 0, BOOL, bxs_cmp_nnp, ALL_SOURCES, FACTS({"", "noNewPrivileges"})},
    {"seccomp", OBJ(m_seccomp), 0, 0,
     WORD_OR(r_seccomp, STR(BX_F_SECCOMP_WORD),
             "the same pinned profile >= default > custom > disabled. A bare word: default, "
             "custom, unconfined, or sha256:<hex> (a pinned profile: the SHA-256 of the JCS of the "
             "OCI spec's linux.seccomp)."),
     bxs_cmp_seccomp, ALL_SOURCES,
     FACTS({"mode", "seccomp.mode"}, {"profile", "seccomp.profile"},
           {"profileSha256", "seccomp.profileSha256"})},
    {"apparmor", OBJ(m_apparmor), 0, 0,
     WORD_OR(r_apparmor, STR(BX_F_NONEMPTY), "The same profile."), bxs_cmp_apparmor,
     BX_SRC_ENGINE | BX_SRC_SPEC | BX_SRC_KERNEL,
     FACTS({"", "apparmor"}, {"kernel", "apparmor.kernel"})},
    {"selinux", OBJ(m_selinux), 0, 0, WORD_OR(r_selinux, STR(BX_F_NONEMPTY), "The same label."),
     bxs_cmp_selinux, BX_SRC_ENGINE | BX_SRC_SPEC, FACTS({"", "selinux"})},
    {"privileged", BOOL, 0, 0, BOOL, bxs_cmp_privileged, BX_SRC_ENGINE, FACTS({"", "privileged"})},
    {"user", OBJ(m_user), 0, 0,
     OBJ_D(r_user, "a listed non-root uid >= any non-root uid > root; the kernel's uids when "
                   "observed, else the configured user."),
     bxs_cmp_user, ALL_SOURCES,
     FACTS({"spec", "user.spec"}, {"uids", "user.ids"}, {"gids", "user.ids"},
           {"groups", "user.ids"}, {"everyUid", "user.ids"}, {"everyGid", "user.ids"},
           {"everyGroup", "user.ids"}, {"inNamespace", "user.ids"})},
    {"namespaces", OBJ(m_namespaces), 0, 0,
     OBJ_D(r_namespaces, "private > host, per namespace (the kernel's reading when there is one)."),
     bxs_cmp_namespaces, BX_SRC_ENGINE | BX_SRC_KERNEL,
     FACTS({"pid", "namespaces.pid"}, {"ipc", "namespaces.ipc"}, {"uts", "namespaces.uts"},
           {"net", "namespaces.net"}, {"user", "namespaces.user"},
           {"cgroup", "namespaces.cgroup"}, {"mnt", "namespaces.mnt"},
           {"time", "namespaces.time"})},
    {"resources", OBJ(m_resources), 0, 0,
     OBJ_D(r_resources, R_RESOURCES_DOC),
     bxs_cmp_resources, ALL_SOURCES,
     FACTS({"memoryBytes", "resources.memoryBytes"},
           {"memorySwapBytes", "resources.memorySwapBytes"}, {"pidsLimit", "resources.pidsLimit"},
           {"nanoCpus", "resources.nanoCpus"}, {"cpuShares", "resources.cpuShares"},
           {"cpuQuota", "resources.cpuQuota"}, {"cpuPeriod", "resources.cpuPeriod"},
           {"cpusetCpus", "resources.cpusetCpus"}, {"cpusetMems", "resources.cpusetMems"},
           {"cgroupParent", "resources.cgroupParent"})},
    {"writeSurface", ARR(OBJ(m_surface), BX_O_SURFACE, 0), 0, 0,
     LIST_D(OBJ(r_surface), "Every writable place of the session must be listed (path, and kind "
                            "when given); sizeBytes a ceiling for tmpfs-backed places."),
     bxs_cmp_surface, ALL_SOURCES, FACTS({"", "writeSurface"}),
     "Every place mounted read-write in the session, sorted by path, kind."},
    {"mounts", ARR(OBJ(m_mount), BX_O_MOUNT, 0), 0, 0,
     LIST_D(OBJ(r_mount),
            "Every mount of the session must be listed (destination; source, canonical or as "
            "given, and type when given); readOnly true refuses a read-write mount."),
     bxs_cmp_mounts, ALL_SOURCES, FACTS({"", "mounts"}),
     "Sorted by destination, sourceAsGiven, type."},
    {"devices", OBJ(m_devices), 0, 0, OBJ(r_devices), bxs_cmp_devices, ALL_SOURCES,
     FACTS({"allowAll", "devices.allowAll"}, {"devices", "devices.devices"},
           {"cgroupRules", "devices.devices"}, {"nodes", "devices.nodes"},
           {"nodesAnywhere", "devices.nodesAnywhere"}, {"walk", "devices.walk"},
           {"mknod", "devices.mknod"})},
    {"maskedPaths", ARR_N(&path, BX_O_STRING, 0), 0, 0,
     LIST_D(&r_path, "Each path listed must be masked."), bxs_cmp_masked,
     BX_SRC_ENGINE | BX_SRC_SPEC | BX_SRC_RUNTIME, FACTS({"", "maskedPaths"}),
     "As configured, sorted."},
    {"readonlyPaths", ARR_N(&path, BX_O_STRING, 0), 0, 0,
     LIST_D(&r_path, "Each path listed must be read-only."), bxs_cmp_ro_paths,
     BX_SRC_ENGINE | BX_SRC_SPEC | BX_SRC_RUNTIME, FACTS({"", "readonlyPaths"}),
     "As configured, sorted."},
    {"processes", OBJ_N(m_processes), 2, 0, NULL, NULL, BX_SRC_KERNEL | BX_SRC_RUNTIME,
     FACTS({"rule", "processes"}, {"count", "processes"}, {"tasks", "processes"},
           {"scans", "processes"}, {"settled", "processes"}, {"outsideCgroups", "processes"},
           {"userNamespaces", "processes"}),
     "Which processes are the session's, how they were read, and their user namespaces; null "
     "without a kernel or runtime view."},
    {"systemPaths", OBJ_N(m_syspaths), 2, 0, NULL, NULL, BX_SRC_KERNEL | BX_SRC_RUNTIME,
     FACTS({"servedBy", "systemPaths"}, {"readOnly", "systemPaths"}, {"masks", "systemPaths"}),
     "/proc/sys, /proc/sysrq-trigger, /proc/irq and /proc/bus read-only or not, and the masked "
     "paths, from the session's mountinfo; null without a kernel or runtime view."},
    {"descriptors", ARR_N(OBJ(m_descriptor), BX_O_DESCRIPTOR, 1), 2, 0, NULL, NULL, BX_SRC_KERNEL,
     FACTS({"", "descriptors"}),
     "Open descriptors of the session's processes that reach outside it, sorted by pid, fd; null "
     "without a kernel view."},
    {"hostObjects", OBJ_N(m_hostobjs), 2, 0, NULL, NULL, BX_SRC_KERNEL | BX_SRC_RUNTIME,
     FACTS({"objects", "hostObjects"}, {"forbiddenTypes", "hostObjects"},
           {"uninspected", "hostObjects"}, {"mounts", "hostObjects"}),
     "What of this host the session's mounts reach, judged by the host object's device and "
     "inode (docs/collector.md); null without a kernel or runtime view."},
    {"sysctls", SHAPE(.kind = BX_K_MAP, .fmt = BX_F_SYSCTL, .item = OBJ(m_sysctl)), 2, 0,
     SHAPE(.kind = BX_K_MAP, .fmt = BX_F_SYSCTL, .item = STR(BX_F_TEXT),
           .doc = "Each sysctl named must hold this value in the session's namespaces, read back "
                  "from the kernel."),
     bxs_cmp_sysctls, BX_SRC_ENGINE | BX_SRC_SPEC | BX_SRC_KERNEL, FACTS({"", "sysctls"}),
     "The namespaced sysctls the session was given: by name, every one the engine set and the "
     "watched ones (docs/collector.md), each with the engine's value and the kernel's."},
    {"seccompPrograms", OBJ_N(m_sc_programs), 2, 0, NULL, NULL, BX_SRC_KERNEL | BX_SRC_RUNTIME,
     FACTS({"", "seccompPrograms"}),
     "The seccomp programs the kernel enforces on the session's tasks and what they let "
     "through; null without a kernel or runtime view."},
    {"references", ARR_N(OBJ(m_reference), BX_O_REFERENCE, 1), 3, 0, NULL, NULL, BX_SRC_KERNEL,
     FACTS({"", "references"}),
     "What the session's processes hold beyond their descriptors (working directory, root, "
     "executable, file mappings, files registered with io_uring) that is not on a mount of their "
     "own mount namespace; sorted by pid, via, target, perms; null without a kernel view."},
    {"namespaceCreation", OBJ_N(m_nsc), 3, 0, NULL, NULL, BX_SRC_KERNEL | BX_SRC_RUNTIME,
     FACTS({"", "namespaceCreation"}),
     "Which namespaces the session's tasks can create with clone, unshare and clone3, per ABI, "
     "by the seccomp chains the kernel enforces, and user.max_user_namespaces as the session "
     "sees it; null without a kernel or runtime view."},
    {"propagationPeers", ARR_N(OBJ(m_peer), BX_O_PEER, 1), 3, 0, NULL, NULL,
     BX_SRC_KERNEL | BX_SRC_RUNTIME, FACTS({"", "propagationPeers"}),
     "Every mount of the session that receives mounts from a peer group (shared:N or master:N in "
     "its mountinfo; runsc: the gofer's), with the host mount points of that group outside the "
     "session; sorted by destination, propagation; null without a kernel or runtime view."},
    {"channels", ARR_N(OBJ(m_channel), BX_O_DESCRIPTOR, 1), 3, 0, NULL, NULL, BX_SRC_KERNEL,
     FACTS({"", "channels"}),
     "Sockets of the session's processes that are a channel out of it (a unix peer no session "
     "process holds), were made in a network namespace not the session's (or one not known), or "
     "hold descriptors in flight; sorted by pid, fd; null without a kernel view."},
    {0},
};

const bx_containment_row *bx_containment_row_of(const char *name)
{
    for (const bx_containment_row *r = bx_containment; name && r->name; r++)
        if (strcmp(r->name, name) == 0)
            return r;
    return NULL;
}

/* The containment object and the requested containment are made from the table: a member
 * per row, sorted by name (JCS order). Built once; the table is the only list. */
#define ROWS (sizeof bx_containment / sizeof bx_containment[0] - 1)

static bx_member containment_members[ROWS + 1];
static bx_member requested_members_v1[ROWS + 1];
static bx_member requested_members[2 * ROWS + 1];
static bx_member requested_file_members[ROWS + 4];

static int by_name(const void *a, const void *b)
{
    const bx_member *x = a, *y = b;
    return strcmp(x->name, y->name);
}

static const bx_shape any_value = {.kind = BX_K_ANY, .nullable = 1};
static const bx_shape requested_user_v1 = {.kind = BX_K_OBJECT, .members = r_user_v1};

static void build_members(void)
{
    size_t n = 0, r = 0, rv = 0;
    for (const bx_containment_row *row = bx_containment; row->name; row++) {
        containment_members[n++] =
            (bx_member){row->name, row->shape, 0, row->since, row->until, row->doc};
        /* v1 kept the requested values loosely (user typed, the rest any); v2 by their shapes */
        requested_members_v1[r++] =
            (bx_member){row->name,
                        !strcmp(row->name, "user") ? &requested_user_v1 : &any_value,
                        BX_M_OPTIONAL,
                        row->since ? row->since : 1,
                        1,
                        NULL};
        if (row->requested)
            requested_members[rv++] = (bx_member){row->name,     row->requested,
                                                  BX_M_OPTIONAL, row->since > 2 ? row->since : 2,
                                                  row->until,    NULL};
    }
    qsort(containment_members, n, sizeof containment_members[0], by_name);
    for (size_t i = 0; i < r; i++)
        requested_members[rv + i] = requested_members_v1[i];
    qsort(requested_members, rv + r, sizeof requested_members[0], by_name);
    size_t f = 0;
    for (const bx_containment_row *row = bx_containment; row->name; row++) {
        if (!row->requested)
            continue;
        const char *name = row->name;
        requested_file_members[f++] = (bx_member){
            name,
            !strcmp(name, "resources") ? &r_resources_file_shape : row->requested,
            BX_M_OPTIONAL,
            0,
            0,
            !strcmp(name, "rootfs")    ? DEPRECATED("readOnlyRootfs")
            : !strcmp(name, "runtime") ? DEPRECATED("runtimes")
                                       : NULL};
    }
    for (const bx_member *m = r_file_policy_names; m->name; m++)
        requested_file_members[f++] = *m;
    qsort(requested_file_members, f, sizeof requested_file_members[0], by_name);
}

static const bx_shape containment = {.kind = BX_K_OBJECT, .members = containment_members};

static const bx_member m_requested[] = {
    {"containment", SHAPE(.kind = BX_K_OBJECT, .members = requested_members), 0, 0, 0,
     "The containment members asked for, only those, as the --requested file wrote them."},
    {"sha256", &hex64, 0, 0, 0, "SHA-256 of the requested file's bytes."},
    {0},
};

/* evidence */

static const bx_member m_sandbox[] = {
    {"capEffective", &cap_set_n},     {"noNewPrivileges", BOOL_N},
    {"pid", INT(1, BX_JSON_MAX_INT)}, {"seccompMode", ENUM_N(e_seccomp_mode)},
    {"uid", INT_N(0, UINT32_MAXV)},   {0},
};

static const bx_member m_values[] = {
    {"engine", ANY}, {"kernel", ANY}, {"runtime", ANY}, {"spec", ANY}, {0},
};

static const bx_member m_discrepancy[] = {
    {"field", STR(BX_F_NONEMPTY)},
    {"reason", STR(BX_F_NONEMPTY)},
    {"recorded", ANY},
    {"values", OBJ(m_values)},
    {0},
};

static const bx_shape time_frac = {.kind = BX_K_STRING,
                                   .fmt = BX_F_TIME_FRAC,
                                   .def = "timeFrac",
                                   .doc = "RFC 3339 UTC with an optional fraction of a second."};
static const bx_member m_collection[] = {
    {"endedAt", &time_frac, 0, 0, 0, "When the last kernel file was read (the re-inspection follows)."},
    {"startedAt", &time_frac, 0, 0, 0, "Before the first request to the engine."},
    {0},
};

static const bx_member m_evidence[] = {
    {"collection", OBJ(m_collection), 0, 2, 0, "When the collection started and ended."},
    {"discrepancies", ARR(OBJ(m_discrepancy), BX_O_DISCREPANCY, 0), 0, 0, 0, "Sorted by field."},
    {"engineInspectSha256", &hex64},
    {"kernelSha256", &hex64_n},
    {"level", ENUM(bx_evidence_levels)},
    {"ociSpecSha256", &hex64_n},
    {"sandbox", OBJ_N(m_sandbox), 0, 0, 0,
     "The sentry's own readings (level engine+runtime only)."},
    {0},
};

static const bx_member m_predicate[] = {
    {"collector", OBJ(m_collector), 0, 0, 0, "The tool that observed."},
    {"containment", &containment},
    {"engine", OBJ(m_engine)},
    {"evidence", OBJ(m_evidence)},
    {"expiresAt", &time_s, 0, 0, 0, "After issuedAt."},
    {"host", OBJ(m_host)},
    {"image", OBJ(m_image)},
    {"inputsSha256", &hex64},
    {"issuedAt", &time_s},
    {"nonce", STR(BX_F_NONCE), 0, 0, 0,
     "128 random bits, or the verifier's challenge: 16 to 128 lowercase hex digits."},
    {"requested", OBJ_N(m_requested)},
    {"session", OBJ(m_session)},
    {"source", OBJ_N(m_source)},
    {0},
};

static const bx_shape predicate = {.kind = BX_K_OBJECT, .members = m_predicate};
static const bx_shape requested_file = {.kind = BX_K_OBJECT, .members = requested_file_members};
static pthread_once_t members_once = PTHREAD_ONCE_INIT;

const bx_shape *bx_predicate_shape(void)
{
    pthread_once(&members_once, build_members);
    return &predicate;
}

/* A --requested file: the requested members of the latest version, with the policy's names
 * (r_file_policy_names, r_resources_file). */
const bx_shape *bx_requested_shape(void)
{
    pthread_once(&members_once, build_members);
    return &requested_file;
}
