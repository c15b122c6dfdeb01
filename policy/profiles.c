#include "policy_internal.h"

#include <string.h>

/* Built-in profiles, written in the policy language itself so that `policy show NAME`
 * prints exactly what is enforced. Only keys the language reads today appear here. */
static const char strict_text[] = "# boxcert built-in profile: strict (a hardened session)\n"
                                  "version: 1\n"
                                  "containment:\n"
                                  "  network: [none]             # no network at all\n"
                                  "  readOnlyRootfs: true\n"
                                  "  capabilities: {allow: []}   # no capabilities at all\n"
                                  "  noNewPrivileges: true\n"
                                  "  privileged: false\n";

const bxp_profile bxp_profiles[] = {
    {"strict", strict_text},
    {NULL, NULL},
};

const char *const bx_policy_profiles[] = {"strict", NULL};

const char *bx_policy_profile_text(const char *name)
{
    for (const bxp_profile *p = bxp_profiles; name && p->name; p++)
        if (strcmp(p->name, name) == 0)
            return p->text;
    return NULL;
}
