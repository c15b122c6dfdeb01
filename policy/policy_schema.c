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

/* ---- the schema -------------------------------------------------------------- */

static const char *const sigenc_choices[] = {"der", "p1363", NULL};
static const char *const benchmark_choices[] = {"cis-docker-1.6", NULL};

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
    {0},
};

static const bxp_key images_members[] = {
    {.name = "pins", .type = BXP_STRLIST, .check = check_pin},
    {0},
};

static const bxp_key capabilities_members[] = {
    {.name = "allow", .type = BXP_STRLIST, .check = check_cap},
    {0},
};

static const bxp_key containment_members[] = {
    {.name = "network", .type = BXP_STRLIST, .check = check_network},
    {.name = "readOnlyRootfs", .type = BXP_BOOL},
    {.name = "capabilities", .type = BXP_MAP, .sub = capabilities_members},
    {.name = "noNewPrivileges", .type = BXP_BOOL},
    {.name = "privileged", .type = BXP_BOOL},
    {0},
};

static const bxp_key top_members[] = {
    {.name = "version", .type = BXP_INT, .min = 0, .max = BX_JSON_MAX_INT},
    {.name = "extends", .type = BXP_STRING, .choices = bx_policy_profiles},
    {.name = "benchmark", .type = BXP_STRING, .choices = benchmark_choices},
    {.name = "trust", .type = BXP_MAP, .sub = trust_members},
    {.name = "certificate", .type = BXP_MAP, .sub = certificate_members},
    {.name = "images", .type = BXP_MAP, .sub = images_members},
    {.name = "containment", .type = BXP_MAP, .sub = containment_members},
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
