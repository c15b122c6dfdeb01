/* SPDX-License-Identifier: Apache-2.0 */
#include "policy_internal.h"

#include <string.h>

/* The built-in profiles are written in the policy language itself (policy/profiles/NAME.yaml,
 * embedded at build time) so that `policy show NAME` prints exactly what is enforced. */
const char *const bx_policy_profiles[] = {"strict", "gvisor", "cis-docker", NULL};

const char *bx_policy_profile_text(const char *name)
{
    for (const char *const *p = bx_policy_profiles; name && *p; p++)
        if (strcmp(*p, name) == 0)
            return bxp_profile_file(name);
    return NULL;
}
