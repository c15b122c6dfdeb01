/* SPDX-License-Identifier: Apache-2.0 */
/* The policy language as data: every key the loader knows, its type and its checks.
 * Adding a key of policy.md is a row here (and a rule in policy_eval.c). */
#include "policy_internal.h"

#include <ctype.h>
#include <string.h>

/* ---- checks of single values ---------------------------------------------- */

static int check_pin(const char *s, char *why, size_t n)
{
    if (strncmp(s, "sha256:", 7) == 0 && strlen(s) == 71 && bx_is_lower_hex(s + 7, 64))
        return 0;
    snprintf(why, n, "want sha256:<64 lowercase hex>");
    return -1;
}

static int check_keyid(const char *s, char *why, size_t n)
{
    if (strlen(s) == 64 && bx_is_lower_hex(s, 64))
        return 0;
    snprintf(why, n, "want 64 lowercase hex digits");
    return -1;
}

/* A network name as Docker allows it: [A-Za-z0-9][A-Za-z0-9_.-]*. */
static int network_name_ok(const char *s)
{
    if (!isalnum((unsigned char)s[0]))
        return 0;
    for (const char *c = s; *c; c++)
        if (!isalnum((unsigned char)*c) && !strchr("_.-", *c))
            return 0;
    return 1;
}

/* The list form: a keyword (bxp_network_keywords), which means only the keyword, or a
 * network name that is not one. */
static int check_network(const char *s, char *why, size_t n)
{
    if (network_name_ok(s))
        return 0;
    snprintf(why, n, "want none, host, bridge, internal, container or a network name");
    return -1;
}

/* names: any network name, a keyword's too ("internal" names the network of that name);
 * not the engine's own none, host, bridge and default, which are modes. */
static int check_network_name(const char *s, char *why, size_t n)
{
    if (!network_name_ok(s)) {
        snprintf(why, n, "want a network name ([A-Za-z0-9][A-Za-z0-9_.-]*)");
        return -1;
    }
    if (!strcmp(s, "none") || !strcmp(s, "host") || !strcmp(s, "bridge") ||
        !strcmp(s, "default")) {
        snprintf(why, n, "%s is the engine's own network: list it under modes", s);
        return -1;
    }
    return 0;
}

static int check_semver(const char *s, char *why, size_t n)
{
    long long v[4];
    if (bxp_semver_parse(s, v) == 0 && !v[3] && !strpbrk(s, "+-"))
        return 0;
    snprintf(why, n, "want a version x.y.z");
    return -1;
}

/* Runtime names as the engine knows them: runsc, runc, io.containerd.runc.v2, nvidia. */
static int check_name(const char *s, char *why, size_t n)
{
    if (!isalnum((unsigned char)s[0]) || strlen(s) > 128)
        goto bad;
    for (const char *c = s; *c; c++)
        if (!isalnum((unsigned char)*c) && !strchr("_.-", *c))
            goto bad;
    return 0;
bad:
    snprintf(why, n, "want a name of letters, digits, '_', '.' and '-'");
    return -1;
}

/* An absolute path in its plain form: no empty, "." or ".." component, no trailing "/"
 * (but "/" itself), so paths compare as strings component by component. */
static int check_path(const char *s, char *why, size_t n)
{
    if (s[0] != '/' || strlen(s) > 4095)
        goto bad;
    for (const char *c = s; *c; c++) {
        if (*c != '/')
            continue;
        const char *e = c + 1;
        size_t len = strcspn(e, "/");
        if ((len == 0 && (*e || c != s)) || (len == 1 && e[0] == '.') ||
            (len == 2 && e[0] == '.' && e[1] == '.'))
            goto bad;
    }
    return 0;
bad:
    snprintf(why, n, "want an absolute path without '.', '..', '//' or a trailing '/'");
    return -1;
}

/* "default" (the engine's profile) or the pin of a profile: sha256:<64 hex>. */
static int check_seccomp(const char *s, char *why, size_t n)
{
    if (strcmp(s, "default") == 0 || check_pin(s, why, n) == 0)
        return 0;
    snprintf(why, n, "want default or sha256:<64 lowercase hex>");
    return -1;
}

/* A syscall name as libseccomp spells it: [a-z0-9_], 1 to 64 bytes, that a table of
 * syscalls.c knows. */
static int check_syscall(const char *s, char *why, size_t n)
{
    size_t len = strspn(s, "abcdefghijklmnopqrstuvwxyz0123456789_");
    if (!len || len > 64 || s[len] != '\0') {
        snprintf(why, n, "want a syscall name: lowercase letters, digits and _");
        return -1;
    }
    if (!bxp_syscall_known(s)) { /* it could never be judged: no certificate would pass */
        snprintf(why, n, "no syscall table (x86_64, x32, x86, aarch64, arm) knows %s", s);
        return -1;
    }
    return 0;
}

/* A built-in profile, by name (the latest) or name@version. */
static int check_profile(const char *s, char *why, size_t n)
{
    char resolved[64];
    if (bx_policy_profile_resolve(s, resolved, sizeof resolved) == 0)
        return 0;
    snprintf(why, n, "no such built-in profile (profiles: strict, gvisor, cis-docker, each "
                     "also as NAME@VERSION)");
    return -1;
}

/* ---- the language ------------------------------------------------------------ */

static const char *const sigenc_choices[] = {"der", "p1363", NULL};
static const char *const benchmark_choices[] = {"cis-docker-1.6", NULL};
static const char *const lsm_choices[] = {"required", "any", NULL};
static const char *const apparmor_choices[] = {"required", "enforced", "any", NULL};
static const char *const userns_choices[] = {"any", "remapped", NULL};
static const char *const access_choices[] = {"any", "rw", NULL};
static const char *const devices_choices[] = {"none", "any", NULL};
static const char *const discrepancy_choices[] = {"deny", "warn", NULL};

#define SHAPE(...) (&(const bx_shape){__VA_ARGS__})
#define WORD SHAPE(.kind = BX_K_STRING, .fmt = BX_F_LINE)
#define WORD_CHECK(fn) SHAPE(.kind = BX_K_STRING, .fmt = BX_F_LINE, .check = (fn))
#define CHOICE(c) SHAPE(.kind = BX_K_STRING, .fmt = BX_F_LINE, .choices = (c))
#define FMT(f) SHAPE(.kind = BX_K_STRING, .fmt = (f))
#define BOOL SHAPE(.kind = BX_K_BOOL)
#define INT(lo, hi) SHAPE(.kind = BX_K_INT, .min = (lo), .max = (hi))
#define MAP(m) SHAPE(.kind = BX_K_OBJECT, .members = (m))
#define LIST(it) SHAPE(.kind = BX_K_ARRAY, .item = (it))
#define SET(it) SHAPE(.kind = BX_K_ARRAY, .item = (it), .unique = 1)
#define REQ BX_M_REQUIRED

/* Members are written {name, shape} or {name, shape, flags}. */
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

static const bx_member trust_key_members[] = {
    {"file", WORD},
    {"pem", FMT(BX_F_BLOCK)},
    {"name", WORD},
    {"keyid", WORD_CHECK(check_keyid)},
    {"sigEncoding", CHOICE(sigenc_choices)},
    {"notBefore", FMT(BX_F_TIME)},
    {"notAfter", FMT(BX_F_TIME)},
    {"revoked", BOOL},
    {0},
};

static const bx_member trust_members[] = {
    {"keys", LIST(MAP(trust_key_members))},
    {"threshold", INT(1, 1000)},
    {0},
};

static const bx_member certificate_members[] = {
    {"maxAge", FMT(BX_F_DURATION)},
    {"clockSkew", FMT(BX_F_DURATION)},
    {"maxCollectionDelay", FMT(BX_F_DURATION)},
    {0},
};

static const bx_member collector_members[] = {
    {"minVersion", WORD_CHECK(check_semver)},
    {0},
};

static const bx_member images_members[] = {
    {"pins", SET(WORD_CHECK(check_pin))},
    {"requireCollectorPin", BOOL},
    {0},
};

static const bx_member source_members[] = {
    {"required", BOOL},
    {0},
};

static const bx_member capabilities_members[] = {
    {"allow", SET(SHAPE(.kind = BX_K_CAP))},
    {0},
};

static const bx_member seccomp_members[] = {
    {"allow", SET(WORD_CHECK(check_seccomp))},
    {"deny", SET(WORD_CHECK(check_syscall))},
    {"programs", SET(WORD_CHECK(check_pin))},
    {0},
};

static const bx_member user_members[] = {
    {"nonRoot", BOOL},
    {"uids", SET(INT(0, 4294967294LL))},
    {0},
};

static const char *const ns_all_choices[] = {"pid", "ipc", "uts", "net", "user",
                                             "cgroup", "mnt", "time", NULL};
static const char *const sys_ro_choices[] = {"/proc/bus", "/proc/irq", "/proc/sys",
                                             "/proc/sysrq-trigger", NULL};
static const char *const descriptor_choices[] = {"engine-socket", "host-device", "host-directory",
                                                 "host-file", "namespace", NULL};

static const bx_member namespaces_members[] = {
    {"host", SET(CHOICE(bx_namespace_names))},
    {"notShared", SET(CHOICE(ns_all_choices))},
    {0},
};

static const bx_member system_paths_members[] = {
    {"readOnly", SET(CHOICE(sys_ro_choices))},
    {"masked", SET(WORD_CHECK(check_path))},
    {0},
};

static const bx_member descriptors_members[] = {
    {"allow", SET(CHOICE(descriptor_choices))},
    {0},
};

/* containment.channels (v3): the socket paths a session may be connected to */
static int check_channel_path(const char *s, char *why, size_t n)
{
    if (s[0] == '@' && s[1] && strlen(s) <= 107)
        return 0; /* an abstract name */
    if (check_path(s, why, n) != 0 || strlen(s) > 107) {
        snprintf(why, n, "want a socket's absolute path (at most 107 bytes) or an @abstract name");
        return -1;
    }
    return 0;
}

static const bx_member channels_members[] = {
    {"allow", SET(WORD_CHECK(check_channel_path))},
    {0},
};

/* containment.references (v3): the kinds of reference beyond descriptors allowed */
static const char *const reference_choices[] = {"host-device", "host-directory", "host-file",
                                                "unplaced", NULL};
static const bx_member references_members[] = {
    {"allow", SET(CHOICE(reference_choices))},
    {0},
};

static const bx_member resources_members[] = {
    {"memoryMax", FMT(BX_F_SIZE)},
    {"pidsMax", INT(1, 4194304)},
    {"cpusMax", FMT(BX_F_DECIMAL)},
    {0},
};

static const bx_member writable_members[] = {
    {"path", WORD_CHECK(check_path), REQ},
    {"kinds", SET(CHOICE(bx_surface_kinds)), REQ},
    {"maxSize", FMT(BX_F_SIZE)},
    {0},
};

static const bx_member forbidden_members[] = {
    {"source", WORD_CHECK(check_path), REQ},
    {"access", CHOICE(access_choices), REQ},
    {0},
};

static const bx_member sysctls_members[] = {
    {"allow", SET(FMT(BX_F_SYSCTL))},
    {"pin", SHAPE(.kind = BX_K_MAP, .fmt = BX_F_SYSCTL, .item = WORD)},
    {0},
};

const char *const bxp_network_keywords[] = {"none", "host", "bridge", "internal", "container",
                                            NULL};

static const bx_member network_members[] = {
    {"modes", SET(CHOICE(bxp_network_keywords))},
    {"names", SET(WORD_CHECK(check_network_name))},
    {0},
};

static const bx_member containment_members[] = {
    {"network", SHAPE(.kind = BX_K_OBJECT, .members = network_members,
                      .alt = SET(WORD_CHECK(check_network)))},
    {"publishedPorts", BOOL},
    {"readOnlyRootfs", BOOL},
    {"capabilities", MAP(capabilities_members)},
    {"noNewPrivileges", BOOL},
    {"seccomp", MAP(seccomp_members)},
    {"apparmor", CHOICE(apparmor_choices)},
    {"selinux", CHOICE(lsm_choices)},
    {"privileged", BOOL},
    {"runtimes", SET(WORD_CHECK(check_name))},
    {"user", MAP(user_members)},
    {"namespaces", MAP(namespaces_members)},
    {"userns", CHOICE(userns_choices)},
    {"resources", MAP(resources_members)},
    {"writable", LIST(MAP(writable_members))},
    {"forbiddenMounts", LIST(MAP(forbidden_members))},
    {"devices", CHOICE(devices_choices)},
    {"mountPropagationShared", BOOL},
    {"cgroupParentDefault", BOOL},
    {"restartMaxRetries", INT(0, 1000000)},
    {"sysctls", MAP(sysctls_members)},
    {"processesSettled", BOOL},
    {"networkFromKernel", BOOL},
    {"systemPaths", MAP(system_paths_members)},
    {"descriptors", MAP(descriptors_members)},
    {"channels", MAP(channels_members)},
    {"references", MAP(references_members)},
    {"userNamespaces", BOOL},
    {"hostObjectsUnreachable", BOOL},
    {"propagationFromHost", BOOL},
    {0},
};

static const bx_member evidence_members[] = {
    {"accept", SET(CHOICE(bx_evidence_levels))},
    {"discrepancies", CHOICE(discrepancy_choices)},
    {0},
};

static const bx_member requested_members[] = {
    {"mustMatch", BOOL},
    {0},
};

static const bx_member top_members[] = {
    {"version", INT(0, BX_JSON_MAX_INT)},
    {"extends", WORD_CHECK(check_profile)},
    {"benchmark", CHOICE(benchmark_choices)},
    {"trust", MAP(trust_members)},
    {"certificate", MAP(certificate_members)},
    {"collector", MAP(collector_members)},
    {"images", MAP(images_members)},
    {"source", MAP(source_members)},
    {"containment", MAP(containment_members)},
    {"evidence", MAP(evidence_members)},
    {"requested", MAP(requested_members)},
    {0},
};

const bx_shape bxp_schema = {.kind = BX_K_OBJECT, .members = top_members};

/* A decimal without leading zeros into *v; the number of characters read, 0 when none. */
static size_t semver_part(const char *s, long long *v)
{
    size_t n = strspn(s, "0123456789");
    *v = 0;
    if (n == 0 || n > 15 || (s[0] == '0' && n > 1))
        return 0;
    for (size_t i = 0; i < n; i++)
        *v = *v * 10 + (s[i] - '0');
    return n;
}

int bxp_semver_parse(const char *s, long long v[4])
{
    size_t o = 0, n;
    for (int i = 0; i < 3; i++) {
        if (i && s[o++] != '.')
            return -1;
        if ((n = semver_part(s + o, &v[i])) == 0)
            return -1;
        o += n;
    }
    v[3] = s[o] == '-';
    if (s[o] != '-' && s[o] != '+' && s[o] != '\0')
        return -1;
    for (const char *c = s + o + (s[o] != '\0'); *c; c++)
        if (!isalnum((unsigned char)*c) && !strchr(".-+", *c))
            return -1;
    return 0;
}

int bxp_semver_cmp(const long long a[4], const long long b[4])
{
    for (int i = 0; i < 3; i++)
        if (a[i] != b[i])
            return a[i] < b[i] ? -1 : 1;
    return (int)(b[3] - a[3]); /* a pre-release (1) comes before the release (0) */
}
