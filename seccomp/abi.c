/* SPDX-License-Identifier: Apache-2.0 */
/* The ABIs of this machine and their syscall names (libseccomp's resolver). */
#include "seccomp_internal.h"

#include <linux/audit.h>
#include <pthread.h>
#include <seccomp.h>
#include <stdlib.h>
#include <string.h>

#ifndef AUDIT_ARCH_AARCH64
#define AUDIT_ARCH_AARCH64 (EM_AARCH64 | __AUDIT_ARCH_64BIT | __AUDIT_ARCH_LE)
#endif

static const bx_seccomp_abi_info abis[BX_SECCOMP_NABI] = {
#if defined(__x86_64__)
    {"x86_64", AUDIT_ARCH_X86_64, 0, SCMP_ARCH_X86_64},
    {"x32", AUDIT_ARCH_X86_64, 0x40000000u, SCMP_ARCH_X32}, /* __X32_SYSCALL_BIT */
    {"x86", AUDIT_ARCH_I386, 0, SCMP_ARCH_X86},
#elif defined(__aarch64__)
    {"aarch64", AUDIT_ARCH_AARCH64, 0, SCMP_ARCH_AARCH64},
    {"arm", AUDIT_ARCH_ARM, 0, SCMP_ARCH_ARM},
#endif
};

const bx_seccomp_abi_info *bx_seccomp_abi(size_t i)
{
    return i < BX_SECCOMP_NABI ? &abis[i] : NULL;
}

int bx_seccomp_abi_find(const char *name)
{
    for (size_t i = 0; name && i < BX_SECCOMP_NABI; i++) {
        if (strcmp(abis[i].name, name) == 0)
            return (int)i;
    }
    return -1;
}

/* Resolved once: libseccomp's answers are fixed for the library loaded. Names it could
 * not give (unknown numbers, or no memory) stay NULL and are shown by number. */
static char *names[BX_SECCOMP_NABI][BX_SECCOMP_NR_COUNT];
static pthread_once_t names_once = PTHREAD_ONCE_INIT;

static void names_load(void)
{
    for (size_t a = 0; a < BX_SECCOMP_NABI; a++) {
        for (unsigned n = 0; n < BX_SECCOMP_NR_COUNT; n++)
            names[a][n] =
                seccomp_syscall_resolve_num_arch(abis[a].scmp_arch, (int)(abis[a].nr_base + n));
    }
}

const char *bx_seccomp_syscall_name(size_t abi, unsigned nr)
{
    if (abi >= BX_SECCOMP_NABI || nr >= BX_SECCOMP_NR_COUNT)
        return NULL;
    pthread_once(&names_once, names_load);
    return names[abi][nr];
}
