/* SPDX-License-Identifier: Apache-2.0 */
/* The closed schema of the containment predicate v1 (certificate.md section 3) as data:
 * one row per member, checked by one walk that allocates nothing. It runs on every
 * certificate verified, after the signatures: a value of the wrong type, an unknown or
 * missing member, upper-case hex or an unsorted unordered list is a certificate.format
 * finding with the JSON pointer of the value. schema/schemas/predicate.schema.json says
 * the same for JSON Schema validators (sort orders aside, which it can only describe).
 *
 * Nullability follows "a value that could not be observed is null": identities, times,
 * the nonce, hashes of inputs and the shape of the document are never null; observations
 * the spec types as plain bool (privileged, noNewPrivileges, allowAll, readOnly of a
 * mount) and the lists the engine always reports are never null; other observations may
 * be. */
#include "bx_schema_int.h"

#include <stdarg.h>
#include <string.h>

typedef enum { K_OBJECT = 1, K_MAP, K_ARRAY, K_STRING, K_INT, K_BOOL, K_CAP, K_ANY } kind;

typedef enum {
    F_TEXT = 0,   /* any string */
    F_NONEMPTY,   /* at least one byte */
    F_HEX64,      /* 64 lowercase hex digits */
    F_DIGEST,     /* sha256: and 64 lowercase hex digits */
    F_TIME,       /* YYYY-MM-DDTHH:MM:SSZ */
    F_ENUM,       /* one of choices */
    F_NONCE,      /* 16 to 128 lowercase hex digits, an even count */
    F_UUID,       /* 8-4-4-4-12 lowercase hex */
    F_SEMVER,     /* MAJOR.MINOR.PATCH with an optional -pre or +build */
    F_APIVER,     /* MAJOR.MINOR */
    F_ENDPOINT,   /* unix:///path or tcp://host:port */
    F_NETMODE,    /* none, bridge, host, container:<name|id>, or a network name */
    F_ABSPATH,    /* starts with / */
    F_REPODIGEST, /* name@sha256:<64 hex> */
    F_PERMS,      /* device cgroup permissions: r, w, m, each once */
    F_HOSTIP,     /* "" or an IPv4/IPv6 address in lowercase */
} format;

typedef enum {
    O_NONE = 0,    /* ordered as observed (arguments) */
    O_STRING,      /* by bytes (UTF-8 code points) */
    O_INT,         /* ascending */
    O_CAP,         /* names by bytes, then unknown bits as numbers ascending */
    O_PORT,        /* containerPort, proto, hostIp, hostPort */
    O_SURFACE,     /* path, kind */
    O_MOUNT,       /* destination, sourceAsGiven, type */
    O_DEVICE,      /* pathInContainer, pathOnHost, cgroupPermissions */
    O_DISCREPANCY, /* field */
} order;

typedef struct node node;

typedef struct {
    const char *name;
    const node *type;
    int optional;
} member;

struct node {
    unsigned char kind, fmt, order;
    unsigned char nullable, unique, all; /* all: a capability list may say ALL */
    const member *members;               /* K_OBJECT: NULL-name terminated */
    const node *item;                    /* K_ARRAY, K_MAP */
    const char *const *choices;          /* F_ENUM: NULL terminated */
    int64_t min, max;                    /* K_INT: bounds; K_ARRAY: item count (max 0: any) */
};

#define UINT32_MAXV 4294967295LL

/* ---- value tables ---------------------------------------------------------------- */

/* clang-format off */
static const char *const cap_names[] = {
    "CHOWN", "DAC_OVERRIDE", "DAC_READ_SEARCH", "FOWNER", "FSETID", "KILL", "SETGID", "SETUID",
    "SETPCAP", "LINUX_IMMUTABLE", "NET_BIND_SERVICE", "NET_BROADCAST", "NET_ADMIN", "NET_RAW",
    "IPC_LOCK", "IPC_OWNER", "SYS_MODULE", "SYS_RAWIO", "SYS_CHROOT", "SYS_PTRACE", "SYS_PACCT",
    "SYS_ADMIN", "SYS_BOOT", "SYS_NICE", "SYS_RESOURCE", "SYS_TIME", "SYS_TTY_CONFIG", "MKNOD",
    "LEASE", "AUDIT_WRITE", "AUDIT_CONTROL", "SETFCAP", "MAC_OVERRIDE", "MAC_ADMIN", "SYSLOG",
    "WAKE_ALARM", "BLOCK_SUSPEND", "AUDIT_READ", "PERFMON", "BPF", "CHECKPOINT_RESTORE", NULL,
};
/* clang-format on */

static const char *const e_engine_kind[] = {"docker", "podman", NULL};
static const char *const e_restart[] = {"no", "always", "unless-stopped", "on-failure", NULL};
static const char *const e_proto[] = {"tcp", "udp", "sctp", NULL};
static const char *const e_seccomp_mode[] = {"filter", "disabled", NULL};
static const char *const e_seccomp_profile[] = {"default", "unconfined", "custom", NULL};
static const char *const e_ns_kernel[] = {"private", "host", NULL};
static const char *const e_surface_kind[] = {"rootfs", "tmpfs", "bind", "volume", "engine", NULL};
static const char *const e_propagation[] = {"",        "private", "rprivate", "shared",
                                            "rshared", "slave",   "rslave",   NULL};
static const char *const e_level[] = {"engine", "engine+kernel", "engine+runtime", NULL};

/* ---- the schema ------------------------------------------------------------------- */

#define NODE(...) (&(const node){__VA_ARGS__})
#define STR(f) NODE(.kind = K_STRING, .fmt = (f))
#define STR_N(f) NODE(.kind = K_STRING, .fmt = (f), .nullable = 1)
#define ENUM(c) NODE(.kind = K_STRING, .fmt = F_ENUM, .choices = (c))
#define ENUM_N(c) NODE(.kind = K_STRING, .fmt = F_ENUM, .choices = (c), .nullable = 1)
#define INT(lo, hi) NODE(.kind = K_INT, .min = (lo), .max = (hi))
#define INT_N(lo, hi) NODE(.kind = K_INT, .min = (lo), .max = (hi), .nullable = 1)
#define BOOL NODE(.kind = K_BOOL)
#define BOOL_N NODE(.kind = K_BOOL, .nullable = 1)
#define ANY NODE(.kind = K_ANY, .nullable = 1)
#define OBJ(m) NODE(.kind = K_OBJECT, .members = (m))
#define OBJ_N(m) NODE(.kind = K_OBJECT, .members = (m), .nullable = 1)
#define ARR(it, o, u) NODE(.kind = K_ARRAY, .item = (it), .order = (o), .unique = (u))
#define ARR_N(it, o, u)                                                                            \
    NODE(.kind = K_ARRAY, .item = (it), .order = (o), .unique = (u), .nullable = 1)
#define CAPS NODE(.kind = K_ARRAY, .item = NODE(.kind = K_CAP), .order = O_CAP, .unique = 1)
#define CAPS_N                                                                                     \
    NODE(.kind = K_ARRAY, .item = NODE(.kind = K_CAP), .order = O_CAP, .unique = 1, .nullable = 1)
#define CAPS_CONF                                                                                  \
    NODE(.kind = K_ARRAY, .item = NODE(.kind = K_CAP, .all = 1), .order = O_STRING, .unique = 1)
#define IDS4 NODE(.kind = K_ARRAY, .item = INT(0, UINT32_MAXV), .min = 4, .max = 4, .nullable = 1)
#define LIMIT INT_N(1, BX_JSON_MAX_INT)

static const member m_collector[] = {
    {"name", STR(F_NONEMPTY), 0},
    {"version", STR(F_SEMVER), 0},
    {0},
};

static const member m_host[] = {
    {"bootId", STR_N(F_UUID), 0},
    {"hostname", STR_N(F_NONEMPTY), 0},
    {0},
};

static const member m_engine[] = {
    {"apiVersion", STR_N(F_APIVER), 0},
    {"endpoint", STR_N(F_ENDPOINT), 0},
    {"id", STR_N(F_NONEMPTY), 0},
    {"kind", ENUM(e_engine_kind), 0},
    {"tlsPeerSha256", STR_N(F_HEX64), 0},
    {"version", STR_N(F_NONEMPTY), 0},
    {0},
};

static const member m_restart[] = {
    {"maximumRetryCount", INT_N(0, BX_JSON_MAX_INT), 0},
    {"name", ENUM(e_restart), 0},
    {0},
};

static const member m_session[] = {
    {"containerId", STR(F_HEX64), 0},
    {"execCount", INT(0, BX_JSON_MAX_INT), 0},
    {"labels", NODE(.kind = K_MAP, .item = STR(F_TEXT)), 0},
    {"name", STR(F_NONEMPTY), 0},
    {"pid", INT(1, BX_JSON_MAX_INT), 0},
    {"restartPolicy", OBJ_N(m_restart), 0},
    {"startedAt", STR(F_TIME), 0},
    {0},
};

static const member m_image[] = {
    {"id", STR(F_DIGEST), 0},
    {"pin", STR_N(F_DIGEST), 0},
    {"ref", STR_N(F_NONEMPTY), 0},
    {"repoDigests", ARR(STR(F_REPODIGEST), O_STRING, 0), 0},
    {0},
};

static const member m_source[] = {
    {"dirty", BOOL, 0},
    {0},
};

static const member m_runtime[] = {
    {"args", ARR_N(STR(F_TEXT), O_NONE, 0), 0},
    {"name", STR_N(F_NONEMPTY), 0},
    {"path", STR_N(F_NONEMPTY), 0},
    {0},
};

static const member m_port[] = {
    {"containerPort", INT(0, 65535), 0},
    {"hostIp", STR(F_HOSTIP), 0},
    {"hostPort", INT(0, 65535), 0},
    {"proto", ENUM(e_proto), 0},
    {0},
};

static const member m_network[] = {
    {"interfaces", ARR_N(STR(F_NONEMPTY), O_STRING, 1), 0},
    {"internal", BOOL_N, 0},
    {"mode", STR_N(F_NETMODE), 0},
    {"ports", ARR(OBJ(m_port), O_PORT, 1), 0},
    {0},
};

static const member m_rootfs[] = {
    {"readOnly", BOOL_N, 0},
    {0},
};

static const member m_caps[] = {
    {"add", CAPS_CONF, 0},  {"ambient", CAPS, 0},
    {"bounding", CAPS, 0},  {"drop", CAPS_CONF, 0},
    {"effective", CAPS, 0}, {"inheritable", CAPS, 0},
    {"permitted", CAPS, 0}, {0},
};

static const member m_seccomp[] = {
    {"mode", ENUM_N(e_seccomp_mode), 0},
    {"profile", ENUM_N(e_seccomp_profile), 0},
    {"profileSha256", STR_N(F_HEX64), 0},
    {0},
};

static const member m_apparmor[] = {
    {"available", BOOL_N, 0},
    {"profile", STR_N(F_NONEMPTY), 0},
    {0},
};

static const member m_selinux[] = {
    {"available", BOOL_N, 0},
    {"label", STR_N(F_NONEMPTY), 0},
    {0},
};

static const member m_user[] = {
    {"gids", IDS4, 0},
    {"groups", ARR_N(INT(0, UINT32_MAXV), O_INT, 1), 0},
    {"spec", STR(F_TEXT), 0},
    {"uids", IDS4, 0},
    {0},
};

#define NS OBJ(m_ns)
static const member m_ns[] = {
    {"engine", STR_N(F_NONEMPTY), 0},
    {"kernel", ENUM_N(e_ns_kernel), 0},
    {0},
};

static const member m_namespaces[] = {
    {"cgroup", NS, 0},
    {"ipc", NS, 0},
    {"net", NS, 0},
    {"pid", NS, 0},
    {"user", NS, 0},
    {"uts", NS, 0},
    {0},
};

static const member m_resources[] = {
    {"cgroupParent", STR_N(F_TEXT), 0},
    {"cpuPeriod", LIMIT, 0},
    {"cpuQuota", LIMIT, 0},
    {"cpuShares", LIMIT, 0},
    {"memoryBytes", LIMIT, 0},
    {"memorySwapBytes", LIMIT, 0},
    {"nanoCpus", LIMIT, 0},
    {"pidsLimit", LIMIT, 0},
    {0},
};

static const member m_surface[] = {
    {"fsType", STR_N(F_NONEMPTY), 0},
    {"kind", ENUM(e_surface_kind), 0},
    {"options", ARR(STR(F_NONEMPTY), O_STRING, 0), 0},
    {"path", STR(F_ABSPATH), 0},
    {"sizeBytes", LIMIT, 0},
    {0},
};

static const member m_mount[] = {
    {"destination", STR(F_ABSPATH), 0},
    {"propagation", ENUM(e_propagation), 0},
    {"readOnly", BOOL, 0},
    {"source", STR(F_TEXT), 0},
    {"sourceAsGiven", STR(F_TEXT), 0},
    {"type", STR(F_NONEMPTY), 0},
    {0},
};

static const member m_device[] = {
    {"cgroupPermissions", STR(F_PERMS), 0},
    {"pathInContainer", STR(F_ABSPATH), 0},
    {"pathOnHost", STR(F_ABSPATH), 0},
    {0},
};

static const member m_devices[] = {
    {"allowAll", BOOL, 0},
    {"cgroupRules", ARR(STR(F_NONEMPTY), O_STRING, 0), 0},
    {"devices", ARR(OBJ(m_device), O_DEVICE, 1), 0},
    {0},
};

static const member m_containment[] = {
    {"apparmor", OBJ(m_apparmor), 0},
    {"capabilities", OBJ(m_caps), 0},
    {"devices", OBJ(m_devices), 0},
    {"maskedPaths", ARR_N(STR(F_ABSPATH), O_STRING, 0), 0},
    {"mounts", ARR(OBJ(m_mount), O_MOUNT, 0), 0},
    {"namespaces", OBJ(m_namespaces), 0},
    {"network", OBJ(m_network), 0},
    {"noNewPrivileges", BOOL, 0},
    {"privileged", BOOL, 0},
    {"readonlyPaths", ARR_N(STR(F_ABSPATH), O_STRING, 0), 0},
    {"resources", OBJ(m_resources), 0},
    {"rootfs", OBJ(m_rootfs), 0},
    {"runtime", OBJ(m_runtime), 0},
    {"seccomp", OBJ(m_seccomp), 0},
    {"selinux", OBJ(m_selinux), 0},
    {"user", OBJ(m_user), 0},
    {"writeSurface", ARR(OBJ(m_surface), O_SURFACE, 0), 0},
    {0},
};

/* What the launcher asked for: the containment field names, only those asked for. Their
 * values are the requested file's (schema `boxcert schema requested`); user is
 * {nonRoot, uids[]}. */
static const member m_req_user[] = {
    {"nonRoot", BOOL, 1},
    {"uids", ARR(INT(0, UINT32_MAXV), O_INT, 1), 1},
    {0},
};

static const member m_req_containment[] = {
    {"apparmor", ANY, 1},         {"capabilities", ANY, 1},    {"devices", ANY, 1},
    {"maskedPaths", ANY, 1},      {"mounts", ANY, 1},          {"namespaces", ANY, 1},
    {"network", ANY, 1},          {"noNewPrivileges", ANY, 1}, {"privileged", ANY, 1},
    {"readonlyPaths", ANY, 1},    {"resources", ANY, 1},       {"rootfs", ANY, 1},
    {"runtime", ANY, 1},          {"seccomp", ANY, 1},         {"selinux", ANY, 1},
    {"user", OBJ(m_req_user), 1}, {"writeSurface", ANY, 1},    {0},
};

static const member m_requested[] = {
    {"containment", OBJ(m_req_containment), 0},
    {"sha256", STR(F_HEX64), 0},
    {0},
};

static const member m_sandbox[] = {
    {"capEffective", CAPS_N, 0},         {"noNewPrivileges", BOOL_N, 0},
    {"pid", INT(1, BX_JSON_MAX_INT), 0}, {"seccompMode", ENUM_N(e_seccomp_mode), 0},
    {"uid", INT_N(0, UINT32_MAXV), 0},   {0},
};

static const member m_values[] = {
    {"engine", ANY, 0}, {"kernel", ANY, 0}, {"runtime", ANY, 0}, {"spec", ANY, 0}, {0},
};

static const member m_discrepancy[] = {
    {"field", STR(F_NONEMPTY), 0},
    {"reason", STR(F_NONEMPTY), 0},
    {"recorded", ANY, 0},
    {"values", OBJ(m_values), 0},
    {0},
};

static const member m_evidence[] = {
    {"discrepancies", ARR(OBJ(m_discrepancy), O_DISCREPANCY, 0), 0},
    {"engineInspectSha256", STR(F_HEX64), 0},
    {"kernelSha256", STR_N(F_HEX64), 0},
    {"level", ENUM(e_level), 0},
    {"ociSpecSha256", STR_N(F_HEX64), 0},
    {"sandbox", OBJ_N(m_sandbox), 0},
    {0},
};

static const member m_predicate[] = {
    {"collector", OBJ(m_collector), 0},   {"containment", OBJ(m_containment), 0},
    {"engine", OBJ(m_engine), 0},         {"evidence", OBJ(m_evidence), 0},
    {"expiresAt", STR(F_TIME), 0},        {"host", OBJ(m_host), 0},
    {"image", OBJ(m_image), 0},           {"inputsSha256", STR(F_HEX64), 0},
    {"issuedAt", STR(F_TIME), 0},         {"nonce", STR(F_NONCE), 0},
    {"requested", OBJ_N(m_requested), 0}, {"session", OBJ(m_session), 0},
    {"source", OBJ_N(m_source), 0},       {0},
};

static const node predicate = {.kind = K_OBJECT, .members = m_predicate};

/* ---- errors --------------------------------------------------------------------- */

static int bad(bx_error *err, const char *fmt, ...) BX_FMT(2, 3);
static int bad(bx_error *err, const char *fmt, ...)
{
    va_list ap;
    if (!err)
        return BX_EINVAL;
    err->code = BX_EINVAL;
    err->sys_errno = 0;
    err->where[0] = '\0';
    va_start(ap, fmt);
    vsnprintf(err->msg, sizeof err->msg, fmt, ap);
    va_end(ap);
    return BX_EINVAL;
}

static const char *kind_name(int k)
{
    switch (k) {
    case K_OBJECT:
    case K_MAP:
        return "an object";
    case K_ARRAY:
        return "an array";
    case K_STRING:
        return "a string";
    case K_INT:
        return "an integer";
    case K_BOOL:
        return "true or false";
    case K_CAP:
        return "a capability";
    default:
        return "a value";
    }
}

static const char *json_name(const json_t *v)
{
    switch (json_typeof(v)) {
    case JSON_OBJECT:
        return "an object";
    case JSON_ARRAY:
        return "an array";
    case JSON_STRING:
        return "a string";
    case JSON_INTEGER:
        return "an integer";
    case JSON_REAL:
        return "a real";
    case JSON_TRUE:
    case JSON_FALSE:
        return "a boolean";
    default:
        return "null";
    }
}

static int wrong_type(const node *n, const json_t *v, bx_error *err)
{
    return bad(err, "expected %s%s, found %s", kind_name(n->kind), n->nullable ? " or null" : "",
               json_name(v));
}

/* ---- string formats ---------------------------------------------------------------- */

static int is_hex(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
            return 0;
    return 1;
}

static int is_digits(const char *s, size_t n)
{
    if (n == 0)
        return 0;
    for (size_t i = 0; i < n; i++)
        if (s[i] < '0' || s[i] > '9')
            return 0;
    return 1;
}

/* Docker's name rule for containers and networks: [A-Za-z0-9][A-Za-z0-9_.-]*. */
static int is_name(const char *s, size_t n)
{
    static const char more[] = "_.-";
    if (n == 0 || !((s[0] >= 'a' && s[0] <= 'z') || (s[0] >= 'A' && s[0] <= 'Z') ||
                    (s[0] >= '0' && s[0] <= '9')))
        return 0;
    for (size_t i = 1; i < n; i++) {
        char c = s[i];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              memchr(more, c, 3)))
            return 0;
    }
    return 1;
}

static int is_time(const char *s, size_t n)
{
    int64_t t;
    return n == 20 && bx_time_parse(s, 0, &t, NULL) == 0;
}

/* 1.2.3, 1.2.3-rc.1, 1.2.3+dfsg */
static int is_semver(const char *s, size_t n)
{
    size_t i = 0;
    for (int part = 0; part < 3; part++) {
        size_t d = strspn(s + i, "0123456789");
        if (d == 0 || (d > 1 && s[i] == '0'))
            return 0;
        i += d;
        if (part < 2) {
            if (s[i] != '.')
                return 0;
            i++;
        }
    }
    if (i == n)
        return 1;
    if ((s[i] != '-' && s[i] != '+') || i + 1 == n)
        return 0;
    return strspn(s + i + 1, "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ.+-") ==
           n - i - 1;
}

static int is_uuid(const char *s, size_t n)
{
    if (n != 36)
        return 0;
    for (size_t i = 0; i < n; i++) {
        int dash = i == 8 || i == 13 || i == 18 || i == 23;
        if (dash ? s[i] != '-' : !is_hex(s + i, 1))
            return 0;
    }
    return 1;
}

static int is_choice(const char *const *choices, const char *s, size_t n)
{
    for (const char *const *c = choices; *c; c++)
        if ((*c)[0] == (n ? s[0] : '\0') && strlen(*c) == n && memcmp(*c, s, n) == 0)
            return 1;
    return 0;
}

static int check_format(const node *nd, const json_t *v, bx_error *err)
{
    const char *s = json_string_value(v);
    size_t n = json_string_length(v), o = 0;
    char list[160];
    const char *at;

    switch (nd->fmt) {
    case F_TEXT:
        return 0;
    case F_NONEMPTY:
        return n ? 0 : bad(err, "must not be empty");
    case F_HEX64:
        return n == 64 && is_hex(s, n) ? 0 : bad(err, "expected 64 lowercase hex digits");
    case F_DIGEST:
        return n == 71 && memcmp(s, "sha256:", 7) == 0 && is_hex(s + 7, 64)
                   ? 0
                   : bad(err, "expected sha256: and 64 lowercase hex digits");
    case F_TIME:
        return is_time(s, n) ? 0 : bad(err, "expected an RFC 3339 UTC time YYYY-MM-DDTHH:MM:SSZ");
    case F_ENUM:
        if (is_choice(nd->choices, s, n))
            return 0;
        list[0] = '\0';
        for (const char *const *c = nd->choices; *c && o < sizeof list; c++)
            o += (size_t)snprintf(list + o, sizeof list - o, "%s\"%s\"", o ? ", " : "", *c);
        return bad(err, "expected one of %s", list);
    case F_NONCE:
        return n >= 16 && n <= 128 && n % 2 == 0 && is_hex(s, n)
                   ? 0
                   : bad(err, "expected 16 to 128 lowercase hex digits (an even count)");
    case F_UUID:
        return is_uuid(s, n) ? 0 : bad(err, "expected a lowercase UUID (the kernel's boot_id)");
    case F_SEMVER:
        return is_semver(s, n) ? 0 : bad(err, "expected a version MAJOR.MINOR.PATCH");
    case F_APIVER:
        at = memchr(s, '.', n);
        return at && is_digits(s, (size_t)(at - s)) && is_digits(at + 1, n - (size_t)(at - s) - 1)
                   ? 0
                   : bad(err, "expected an API version MAJOR.MINOR");
    case F_ENDPOINT:
        return (n > 8 && memcmp(s, "unix:///", 8) == 0) || (n > 6 && memcmp(s, "tcp://", 6) == 0)
                   ? 0
                   : bad(err, "expected unix:///path or tcp://host:port");
    case F_NETMODE:
        if (n > 10 && memcmp(s, "container:", 10) == 0 ? is_name(s + 10, n - 10) : is_name(s, n))
            return 0;
        return bad(err, "expected none, bridge, host, container:<id> or a network name");
    case F_ABSPATH:
        return n && s[0] == '/' ? 0 : bad(err, "expected an absolute path");
    case F_REPODIGEST:
        at = n > 72 ? s + n - 72 : NULL;
        return at && at[0] == '@' && memcmp(at + 1, "sha256:", 7) == 0 && is_hex(at + 8, 64) &&
                       !memchr(s, ' ', n)
                   ? 0
                   : bad(err, "expected NAME@sha256: and 64 lowercase hex digits");
    case F_PERMS:
        if (n >= 1 && n <= 3 && strspn(s, "rwm") == n && !(n > 1 && s[0] == s[1]) &&
            !(n == 3 && (s[0] == s[2] || s[1] == s[2])))
            return 0;
        return bad(err, "expected device permissions of r, w and m");
    case F_HOSTIP:
        return strspn(s, "0123456789abcdef.:") == n && n <= 45
                   ? 0
                   : bad(err, "expected an IP address (lowercase) or \"\"");
    default:
        return bad(err, "no such format");
    }
}

/* ---- sort orders --------------------------------------------------------------------- */

static int cmp_str(const json_t *a, const json_t *b)
{
    size_t la = json_string_length(a), lb = json_string_length(b);
    int c = memcmp(json_string_value(a), json_string_value(b), la < lb ? la : lb);
    return c ? (c < 0 ? -1 : 1) : (la > lb) - (la < lb);
}

static int cmp_int(const json_t *a, const json_t *b)
{
    json_int_t x = json_integer_value(a), y = json_integer_value(b);
    return (x > y) - (x < y);
}

static int cmp_member_str(const json_t *a, const json_t *b, const char *k)
{
    return cmp_str(json_object_get(a, k), json_object_get(b, k));
}

static int cmp_member_int(const json_t *a, const json_t *b, const char *k)
{
    return cmp_int(json_object_get(a, k), json_object_get(b, k));
}

/* Items were checked against their schema before they are compared. */
static int compare(int ord, const json_t *a, const json_t *b)
{
    int c = 0;
    switch (ord) {
    case O_STRING:
        return cmp_str(a, b);
    case O_INT:
        return cmp_int(a, b);
    case O_CAP:
        if (json_is_string(a) != json_is_string(b))
            return json_is_string(a) ? -1 : 1;
        return json_is_string(a) ? cmp_str(a, b) : cmp_int(a, b);
    case O_PORT:
        if (!(c = cmp_member_int(a, b, "containerPort")) && !(c = cmp_member_str(a, b, "proto")) &&
            !(c = cmp_member_str(a, b, "hostIp")))
            c = cmp_member_int(a, b, "hostPort");
        return c;
    case O_SURFACE:
        if (!(c = cmp_member_str(a, b, "path")))
            c = cmp_member_str(a, b, "kind");
        return c;
    case O_MOUNT:
        if (!(c = cmp_member_str(a, b, "destination")) &&
            !(c = cmp_member_str(a, b, "sourceAsGiven")))
            c = cmp_member_str(a, b, "type");
        return c;
    case O_DEVICE:
        if (!(c = cmp_member_str(a, b, "pathInContainer")) &&
            !(c = cmp_member_str(a, b, "pathOnHost")))
            c = cmp_member_str(a, b, "cgroupPermissions");
        return c;
    case O_DISCREPANCY:
        return cmp_member_str(a, b, "field");
    default:
        return -1;
    }
}

/* ---- the walk ------------------------------------------------------------------------- */

static int check(const node *n, const json_t *v, bx_error *err);

static int member_is(const member *m, const char *key, size_t len)
{
    return strncmp(m->name, key, len) == 0 && m->name[len] == '\0';
}

/* The tables are sorted and a canonical object's members come sorted: look from just
 * after the previous match first (*from), then from the start. */
static const member *find_member(const member *m, const char *key, size_t len, size_t *from)
{
    size_t i = *from;
    for (; m[i].name; i++)
        if (member_is(&m[i], key, len))
            goto found;
    for (i = 0; i < *from; i++)
        if (member_is(&m[i], key, len))
            goto found;
    return NULL;
found:
    *from = i + 1;
    return &m[i];
}

static int check_object(const node *n, const json_t *v, bx_error *err)
{
    size_t required = 0, seen = 0, from = 0;
    int rc;

    for (const member *m = n->members; m->name; m++)
        required += !m->optional;
    for (void *it = json_object_iter((json_t *)v); it;
         it = json_object_iter_next((json_t *)v, it)) {
        const char *key = json_object_iter_key(it);
        size_t klen = json_object_iter_key_len(it);
        const json_t *val = json_object_iter_value(it);
        const member *m =
            memchr(key, '\0', klen) ? NULL : find_member(n->members, key, klen, &from);
        if (!m)
            rc = bad(err, "unknown member");
        else
            rc = check(m->type, val, err);
        if (rc) {
            bx_json_where_push(err, key, klen);
            return rc;
        }
        seen += !m->optional;
    }
    if (seen == required)
        return 0;
    for (const member *m = n->members; m->name; m++) {
        if (!m->optional && !json_object_get(v, m->name)) {
            bad(err, "missing member (a value not observed is null)");
            bx_json_where_push(err, m->name, strlen(m->name));
            return BX_EINVAL;
        }
    }
    return 0;
}

static int check_array(const node *n, const json_t *v, bx_error *err)
{
    size_t count = json_array_size(v);
    int rc;

    if ((n->min && count < (size_t)n->min) || (n->max && count > (size_t)n->max))
        return n->min == n->max
                   ? bad(err, "expected %lld items", (long long)n->min)
                   : bad(err, "expected %lld to %lld items", (long long)n->min, (long long)n->max);
    for (size_t i = 0; i < count; i++) {
        const json_t *item = json_array_get(v, i);
        if ((rc = check(n->item, item, err)) == 0 && i > 0 && n->order != O_NONE) {
            int c = compare(n->order, json_array_get(v, i - 1), item);
            if (c > 0)
                rc = bad(err, "list not sorted: this item belongs before the previous one");
            else if (c == 0 && n->unique)
                rc = bad(err, "list item repeated");
        }
        if (rc) {
            bx_json_where_push_index(err, i);
            return rc;
        }
    }
    return 0;
}

static int check_map(const node *n, const json_t *v, bx_error *err)
{
    int rc;

    for (void *it = json_object_iter((json_t *)v); it;
         it = json_object_iter_next((json_t *)v, it)) {
        if ((rc = check(n->item, json_object_iter_value(it), err)) != 0) {
            bx_json_where_push(err, json_object_iter_key(it), json_object_iter_key_len(it));
            return rc;
        }
    }
    return 0;
}

static int check_cap(const node *n, const json_t *v, bx_error *err)
{
    if (json_is_integer(v) && !n->all) {
        json_int_t bit = json_integer_value(v);
        return bit >= 0 && bit <= 63 ? 0 : bad(err, "expected a capability number from 0 to 63");
    }
    if (!json_is_string(v))
        return bad(err, "expected a capability name%s, found %s",
                   n->all ? " or \"ALL\"" : " or number", json_name(v));
    if (is_choice(cap_names, json_string_value(v), json_string_length(v)) ||
        (n->all && strcmp(json_string_value(v), "ALL") == 0))
        return 0;
    return bad(err, "unknown capability name (names are written without CAP_)");
}

static int check(const node *n, const json_t *v, bx_error *err)
{
    if (json_is_null(v))
        return n->nullable || n->kind == K_ANY ? 0 : wrong_type(n, v, err);
    switch (n->kind) {
    case K_OBJECT:
        return json_is_object(v) ? check_object(n, v, err) : wrong_type(n, v, err);
    case K_MAP:
        return json_is_object(v) ? check_map(n, v, err) : wrong_type(n, v, err);
    case K_ARRAY:
        return json_is_array(v) ? check_array(n, v, err) : wrong_type(n, v, err);
    case K_STRING:
        return json_is_string(v) ? check_format(n, v, err) : wrong_type(n, v, err);
    case K_INT:
        if (!json_is_integer(v))
            return wrong_type(n, v, err);
        if (json_integer_value(v) < n->min || json_integer_value(v) > n->max)
            return bad(err, "expected an integer from %lld to %lld", (long long)n->min,
                       (long long)n->max);
        return 0;
    case K_BOOL:
        return json_is_boolean(v) ? 0 : wrong_type(n, v, err);
    case K_CAP:
        return check_cap(n, v, err);
    case K_ANY:
        return 0;
    default:
        return bad(err, "no such kind");
    }
}

/* ---- rules across fields --------------------------------------------------------------- */

static const json_t *at2(const json_t *o, const char *a, const char *b)
{
    return json_object_get(json_object_get(o, a), b);
}

static int cross_checks(const json_t *p, bx_error *err)
{
    int64_t issued, expires;
    const char *level = json_string_value(at2(p, "evidence", "level"));

    if (bx_time_parse(json_string_value(json_object_get(p, "issuedAt")), 0, &issued, NULL) != 0 ||
        bx_time_parse(json_string_value(json_object_get(p, "expiresAt")), 0, &expires, NULL) != 0 ||
        expires <= issued)
        return bx_error_set(err, BX_EINVAL, "/expiresAt", "expiresAt is not after issuedAt");
    if (strcmp(level, "engine") == 0) {
        if (!json_is_null(at2(p, "evidence", "kernelSha256")))
            return bx_error_set(err, BX_EINVAL, "/evidence/kernelSha256",
                                "level engine has no kernel readings: must be null");
        if (!json_is_null(at2(p, "evidence", "ociSpecSha256")))
            return bx_error_set(err, BX_EINVAL, "/evidence/ociSpecSha256",
                                "level engine has no OCI spec: must be null");
        if (!json_is_null(json_object_get(at2(p, "containment", "seccomp"), "profileSha256")))
            return bx_error_set(err, BX_EINVAL, "/containment/seccomp/profileSha256",
                                "level engine has no OCI spec: must be null");
    }
    if (strcmp(level, "engine+runtime") != 0 && !json_is_null(at2(p, "evidence", "sandbox")))
        return bx_error_set(err, BX_EINVAL, "/evidence/sandbox",
                            "only level engine+runtime has sandbox readings: must be null");
    return 0;
}

int bxs_predicate_check(const json_t *p, bx_error *err)
{
    int rc = check(&predicate, p, err);
    return rc ? rc : cross_checks(p, err);
}
