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

/* Linux capabilities 0..40, without the CAP_ prefix (as the predicate names them). */
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

static int check_cap(const char *s, char *why, size_t n)
{
    if (strncmp(s, "CAP_", 4) == 0) {
        snprintf(why, n, "write capability names without CAP_");
        return -1;
    }
    for (const char *const *c = cap_names; *c; c++)
        if (strcmp(*c, s) == 0)
            return 0;
    snprintf(why, n, "unknown capability");
    return -1;
}

/* none, host, bridge, internal, container, or a network name as Docker allows it. */
static int check_network(const char *s, char *why, size_t n)
{
    if (!isalnum((unsigned char)s[0]))
        goto bad;
    for (const char *c = s; *c; c++)
        if (!isalnum((unsigned char)*c) && !strchr("_.-", *c))
            goto bad;
    return 0;
bad:
    snprintf(why, n, "want none, host, bridge, internal, container or a network name");
    return -1;
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

/* ---- the schema -------------------------------------------------------------- */

static const char *const sigenc_choices[] = {"der", "p1363", NULL};
static const char *const benchmark_choices[] = {"cis-docker-1.6", NULL};
static const char *const lsm_choices[] = {"required", "any", NULL};
static const char *const ns_choices[] = {"pid", "ipc", "uts", "net", "user", "cgroup", NULL};
static const char *const userns_choices[] = {"any", "remapped", NULL};
static const char *const kind_choices[] = {"rootfs", "tmpfs", "bind", "volume", "engine", NULL};
static const char *const access_choices[] = {"any", "rw", NULL};
static const char *const devices_choices[] = {"none", "any", NULL};
static const char *const level_choices[] = {"engine", "engine+kernel", "engine+runtime", NULL};
static const char *const discrepancy_choices[] = {"deny", "warn", NULL};

static const bxp_key trust_key_members[] = {
    {.name = "file", .type = BXP_STRING},
    {.name = "pem", .type = BXP_TEXT},
    {.name = "name", .type = BXP_STRING},
    {.name = "keyid", .type = BXP_STRING, .check = check_keyid},
    {.name = "sigEncoding", .type = BXP_STRING, .choices = sigenc_choices},
    {.name = "notBefore", .type = BXP_TIME},
    {.name = "notAfter", .type = BXP_TIME},
    {.name = "revoked", .type = BXP_BOOL},
    {0},
};

static const bxp_key trust_members[] = {
    {.name = "keys", .type = BXP_MAPLIST, .sub = trust_key_members},
    {.name = "threshold", .type = BXP_INT, .min = 1, .max = 1000},
    {0},
};

static const bxp_key certificate_members[] = {
    {.name = "maxAge", .type = BXP_DURATION},
    {.name = "clockSkew", .type = BXP_DURATION},
    {.name = "maxCollectionDelay", .type = BXP_DURATION},
    {0},
};

static const bxp_key collector_members[] = {
    {.name = "minVersion", .type = BXP_STRING, .check = check_semver},
    {0},
};

static const bxp_key images_members[] = {
    {.name = "pins", .type = BXP_STRLIST, .check = check_pin, .unique = 1},
    {.name = "requireCollectorPin", .type = BXP_BOOL},
    {0},
};

static const bxp_key source_members[] = {
    {.name = "required", .type = BXP_BOOL},
    {0},
};

static const bxp_key capabilities_members[] = {
    {.name = "allow", .type = BXP_STRLIST, .check = check_cap, .unique = 1},
    {0},
};

static const bxp_key seccomp_members[] = {
    {.name = "allow", .type = BXP_STRLIST, .check = check_seccomp, .unique = 1},
    {0},
};

static const bxp_key user_members[] = {
    {.name = "nonRoot", .type = BXP_BOOL},
    {.name = "uids", .type = BXP_INTLIST, .min = 0, .max = 4294967294LL, .unique = 1},
    {0},
};

static const bxp_key namespaces_members[] = {
    {.name = "host", .type = BXP_STRLIST, .choices = ns_choices, .unique = 1},
    {0},
};

static const bxp_key resources_members[] = {
    {.name = "memoryMax", .type = BXP_SIZE},
    {.name = "pidsMax", .type = BXP_INT, .min = 1, .max = 4194304},
    {.name = "cpusMax", .type = BXP_DECIMAL},
    {0},
};

static const bxp_key writable_members[] = {
    {.name = "path", .type = BXP_STRING, .check = check_path, .required = 1},
    {.name = "kinds", .type = BXP_STRLIST, .choices = kind_choices, .required = 1, .unique = 1},
    {.name = "maxSize", .type = BXP_SIZE},
    {0},
};

static const bxp_key forbidden_members[] = {
    {.name = "source", .type = BXP_STRING, .check = check_path, .required = 1},
    {.name = "access", .type = BXP_STRING, .choices = access_choices, .required = 1},
    {0},
};

static const bxp_key containment_members[] = {
    {.name = "network", .type = BXP_STRLIST, .check = check_network, .unique = 1},
    {.name = "publishedPorts", .type = BXP_BOOL},
    {.name = "readOnlyRootfs", .type = BXP_BOOL},
    {.name = "capabilities", .type = BXP_MAP, .sub = capabilities_members},
    {.name = "noNewPrivileges", .type = BXP_BOOL},
    {.name = "seccomp", .type = BXP_MAP, .sub = seccomp_members},
    {.name = "apparmor", .type = BXP_STRING, .choices = lsm_choices},
    {.name = "selinux", .type = BXP_STRING, .choices = lsm_choices},
    {.name = "privileged", .type = BXP_BOOL},
    {.name = "runtimes", .type = BXP_STRLIST, .check = check_name, .unique = 1},
    {.name = "user", .type = BXP_MAP, .sub = user_members},
    {.name = "namespaces", .type = BXP_MAP, .sub = namespaces_members},
    {.name = "userns", .type = BXP_STRING, .choices = userns_choices},
    {.name = "resources", .type = BXP_MAP, .sub = resources_members},
    {.name = "writable", .type = BXP_MAPLIST, .sub = writable_members},
    {.name = "forbiddenMounts", .type = BXP_MAPLIST, .sub = forbidden_members},
    {.name = "devices", .type = BXP_STRING, .choices = devices_choices},
    {.name = "mountPropagationShared", .type = BXP_BOOL},
    {.name = "cgroupParentDefault", .type = BXP_BOOL},
    {.name = "restartMaxRetries", .type = BXP_INT, .min = 0, .max = 1000000},
    {0},
};

static const bxp_key evidence_members[] = {
    {.name = "accept", .type = BXP_STRLIST, .choices = level_choices, .unique = 1},
    {.name = "discrepancies", .type = BXP_STRING, .choices = discrepancy_choices},
    {0},
};

static const bxp_key requested_members[] = {
    {.name = "mustMatch", .type = BXP_BOOL},
    {0},
};

static const bxp_key top_members[] = {
    {.name = "version", .type = BXP_INT, .min = 0, .max = BX_JSON_MAX_INT},
    {.name = "extends", .type = BXP_STRING, .choices = bx_policy_profiles},
    {.name = "benchmark", .type = BXP_STRING, .choices = benchmark_choices},
    {.name = "trust", .type = BXP_MAP, .sub = trust_members},
    {.name = "certificate", .type = BXP_MAP, .sub = certificate_members},
    {.name = "collector", .type = BXP_MAP, .sub = collector_members},
    {.name = "images", .type = BXP_MAP, .sub = images_members},
    {.name = "source", .type = BXP_MAP, .sub = source_members},
    {.name = "containment", .type = BXP_MAP, .sub = containment_members},
    {.name = "evidence", .type = BXP_MAP, .sub = evidence_members},
    {.name = "requested", .type = BXP_MAP, .sub = requested_members},
    {0},
};

const bxp_key bxp_schema = {.name = "policy", .type = BXP_MAP, .sub = top_members};

int bxp_size_parse(const char *s, int64_t *bytes)
{
    static const struct {
        const char *suffix;
        int64_t mult;
    } units[] = {{"", 1}, {"Ki", 1024}, {"Mi", 1024 * 1024}, {"Gi", 1024 * 1024 * 1024}};
    size_t n = strspn(s, "0123456789");
    int64_t v = 0;

    if (n == 0 || n > 16 || (s[0] == '0' && n > 1))
        return -1;
    for (size_t i = 0; i < n; i++)
        v = v * 10 + (s[i] - '0');
    for (size_t u = 0; u < sizeof units / sizeof units[0]; u++) {
        if (strcmp(s + n, units[u].suffix) != 0)
            continue;
        if (v > BX_JSON_MAX_INT / units[u].mult)
            return -1;
        *bytes = v * units[u].mult;
        return 0;
    }
    return -1;
}

int bxp_cpus_parse(const char *s, int64_t *nano)
{
    size_t n = strspn(s, "0123456789"), f = 0;
    int64_t whole = 0, frac = 0;

    if (n == 0 || n > 7 || (s[0] == '0' && n > 1))
        return -1;
    for (size_t i = 0; i < n; i++)
        whole = whole * 10 + (s[i] - '0');
    if (s[n] == '.') {
        f = strspn(s + n + 1, "0123456789");
        if (f == 0 || f > 9)
            return -1;
        for (size_t i = 0; i < 9; i++)
            frac = frac * 10 + (i < f ? s[n + 1 + i] - '0' : 0);
        n += 1 + f;
    }
    if (s[n] || (whole == 0 && frac == 0))
        return -1;
    *nano = whole * 1000000000 + frac;
    return 0;
}

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
