// SPDX-License-Identifier: Apache-2.0
/* The verifier's syscall tables (policy/syscalls.c) against the build's libseccomp, which names
 * the numbers of a chain in the collector: every number libseccomp names is in the table under
 * that name, in each of the five ABIs; an entry whose number it does not name is one of a newer
 * libseccomp (the tables are written with Debian 13's), and those stay few. Skipped in a build
 * without libseccomp (boxcert-verify alone). */
#include "policy_internal.h"
#include "tap.h"

#include <stdlib.h>
#include <string.h>

#ifdef BX_TEST_HAVE_LIBSECCOMP
#include <seccomp.h>

static const struct {
    const char *abi;
    uint32_t arch, base;
} abis[] = {{"x86_64", SCMP_ARCH_X86_64, 0},
            {"x32", SCMP_ARCH_X32, 0x40000000u},
            {"x86", SCMP_ARCH_X86, 0},
            {"aarch64", SCMP_ARCH_AARCH64, 0},
            {"arm", SCMP_ARCH_ARM, 0}};

int main(void)
{
    for (size_t a = 0; a < sizeof abis / sizeof abis[0]; a++) {
        int t = bxp_syscall_abi(abis[a].abi);
        size_t n = 0, wrong = 0, named = 0, missing = 0, newer = 0;
        unsigned nr;
        const char *name;
        ok(t >= 0, "%s has a table", abis[a].abi);
        for (; (name = bxp_syscall_name_at(t, n, &nr)); n++) {
            char *s = seccomp_syscall_resolve_num_arch(abis[a].arch, (int)(abis[a].base + nr));
            wrong += s && strcmp(s, name) != 0;
            newer += !s;
            free(s);
        }
        ok(n > 300, "%s: %zu entries", abis[a].abi, n);
        is_int((int)wrong, 0, "%s: every entry libseccomp names is its name for the number",
               abis[a].abi);
        ok(newer <= 16, "%s: %zu entries of a newer libseccomp (at most 16)", abis[a].abi, newer);
        for (unsigned k = 0; k < 0x100000; k++) {
            if (k >= 1024 && !(strcmp(abis[a].abi, "arm") == 0 && k >= 0xf0000))
                continue;
            char *s = seccomp_syscall_resolve_num_arch(abis[a].arch, (int)(abis[a].base + k));
            if (!s)
                continue;
            unsigned nrs[8];
            size_t got = bxp_syscall_numbers(t, s, nrs, 8), hit = 0;
            for (size_t x = 0; x < got && x < 8; x++)
                hit |= nrs[x] == k;
            named++;
            missing += !hit;
            free(s);
        }
        is_int((int)(named + newer), (int)n, "%s: every entry named, or a newer one", abis[a].abi);
        is_int((int)missing, 0, "%s: every number libseccomp names is in the table", abis[a].abi);
        is_int(bxp_syscall_family(t),
               strcmp(abis[a].abi, "aarch64") == 0 || strcmp(abis[a].abi, "arm") == 0,
               "%s: its architecture", abis[a].abi);
    }
    is_int(bxp_syscall_abi("mips"), -1, "no table for mips");
    is_int((int)bxp_syscall_family_size(0), 3, "x86: three ABIs");
    is_int((int)bxp_syscall_family_size(1), 2, "arm: two ABIs");
    return tap_done();
}
#else
int main(void)
{
    skip_all("built without libseccomp");
}
#endif
