/* SPDX-License-Identifier: Apache-2.0 */
#include "policy_internal.h"

#include <stdlib.h>
#include <string.h>

/* The built-in profiles are written in the policy language itself (policy/profiles/
 * NAME@VERSION.yaml, embedded at build time) so that `policy show NAME` prints exactly what
 * is enforced. A version, once released, is frozen (docs/policy.md, "Versions"); a bare name
 * means the latest. */
const char *const bx_policy_profiles[] = {"strict", "gvisor", "cis-docker", NULL};

int bx_policy_profile_resolve(const char *name, char *out, size_t n)
{
    const char *at = name ? strchr(name, '@') : NULL;
    size_t base = at ? (size_t)(at - name) : (name ? strlen(name) : 0);
    unsigned v = BX_POLICY_PROFILE_LATEST;

    if (!name)
        return -1;
    if (at) {
        size_t d = strspn(at + 1, "0123456789");
        if (d == 0 || d > 3 || at[1 + d] != '\0' || at[1] == '0')
            return -1;
        v = (unsigned)strtoul(at + 1, NULL, 10);
        if (v < 1 || v > BX_POLICY_PROFILE_LATEST)
            return -1;
    }
    for (const char *const *p = bx_policy_profiles; *p; p++)
        if (strlen(*p) == base && strncmp(*p, name, base) == 0) {
            if ((size_t)snprintf(out, n, "%s@%u", *p, v) >= n)
                return -1;
            return 0;
        }
    return -1;
}

int bx_policy_profile_named(const char *arg)
{
    const char *at = arg ? strchr(arg, '@') : NULL;
    size_t base = at ? (size_t)(at - arg) : (arg ? strlen(arg) : 0);
    for (const char *const *p = bx_policy_profiles; arg && *p; p++)
        if (strlen(*p) == base && strncmp(*p, arg, base) == 0)
            return 1;
    return 0;
}

const char *bx_policy_profile_text(const char *name)
{
    char resolved[64];
    if (bx_policy_profile_resolve(name, resolved, sizeof resolved) != 0)
        return NULL;
    return bxp_profile_file(resolved);
}
