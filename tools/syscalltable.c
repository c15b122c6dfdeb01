/* SPDX-License-Identifier: Apache-2.0 */
/* bx-syscalltable: the syscall tables of policy/syscalls.c, as libseccomp resolves every number
 * of x86_64, x32, x86, aarch64 and arm (0..1023 after the ABI's base; arm's private calls at
 * 0xf0000 and up), sorted by name then number. Run against the newest libseccomp a collector may
 * be built with (Debian 13's 2.6), its output replaces the tables of that file;
 * tests/unit/policy/test_syscall_tables.c checks they agree with the build's libseccomp. */
#include <seccomp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
typedef struct {
    const char *abi;
    uint32_t arch;
    uint32_t base;
} A;
static const A abis[] = {{"x86_64", SCMP_ARCH_X86_64, 0},
                         {"x32", SCMP_ARCH_X32, 0x40000000u},
                         {"x86", SCMP_ARCH_X86, 0},
                         {"aarch64", SCMP_ARCH_AARCH64, 0},
                         {"arm", SCMP_ARCH_ARM, 0}};
typedef struct {
    char *name;
    unsigned nr;
} E;
static int cmp(const void *a, const void *b)
{
    const E *x = a, *y = b;
    int c = strcmp(x->name, y->name);
    return c ? c : (x->nr > y->nr) - (x->nr < y->nr);
}
int main(void)
{
    for (size_t a = 0; a < sizeof abis / sizeof *abis; a++) {
        E *e = NULL;
        size_t n = 0;
        for (unsigned nr = 0; nr < 0x100000; nr++) {
            if (nr >= 1024 && !(strcmp(abis[a].abi, "arm") == 0 && nr >= 0xf0000))
                continue;
            char *s = seccomp_syscall_resolve_num_arch(abis[a].arch, (int)(abis[a].base + nr));
            if (!s)
                continue;
            e = realloc(e, (n + 1) * sizeof *e);
            e[n].name = s;
            e[n].nr = nr;
            n++;
        }
        qsort(e, n, sizeof *e, cmp);
        printf("static const bxp_syscall t_%s[] = {\n", abis[a].abi);
        for (size_t i = 0; i < n; i++)
            printf("    {\"%s\", %u},\n", e[i].name, e[i].nr);
        printf("};\n");
        fprintf(stderr, "%s %zu\n", abis[a].abi, n);
    }
}
