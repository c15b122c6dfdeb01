/* SPDX-License-Identifier: Apache-2.0 */
/* The verdicts of an OCI seccomp profile (linux.seccomp) from its rules, without compiling
 * it: libseccomp takes 10 to 40 ms to compile Docker's default profile, more than a whole
 * collection may add (docs/benchmarks.md), while the rules give the same verdicts in well
 * under a millisecond. Conservative as the evaluator is: for each syscall the outcomes are
 * the actions of every rule naming it, and the default action unless a rule without
 * arguments names it; all of them denying is "deny", all letting through "allow", else
 * "depends". An ABI the profile does not list (beside the machine's native one) is denied
 * whole (libseccomp's bad-arch action). */
#include "attest_seccomp.h"

#include <stdlib.h>
#include <string.h>

typedef struct {
    const char *name;
    uint32_t ret;
    int args;
} rule_name;

static int by_name(const void *a, const void *b)
{
    return strcmp(((const rule_name *)a)->name, ((const rule_name *)b)->name);
}

/* The kernel's return value of an OCI action (ERRNO and TRACE without errnoRet: EPERM, as
 * runc), or 0 with *bad set for an action this reader does not know. */
static uint32_t ret_of(const char *a, const json_t *errno_ret, int *bad)
{
    uint32_t data = json_is_integer(errno_ret) ? (uint32_t)json_integer_value(errno_ret) & 0xffff
                                               : 1;
    if (!a)
        *bad = 1;
    else if (!strcmp(a, "SCMP_ACT_KILL") || !strcmp(a, "SCMP_ACT_KILL_THREAD"))
        return SECCOMP_RET_KILL_THREAD;
    else if (!strcmp(a, "SCMP_ACT_KILL_PROCESS"))
        return SECCOMP_RET_KILL_PROCESS;
    else if (!strcmp(a, "SCMP_ACT_TRAP"))
        return SECCOMP_RET_TRAP;
    else if (!strcmp(a, "SCMP_ACT_ERRNO"))
        return SECCOMP_RET_ERRNO | data;
    else if (!strcmp(a, "SCMP_ACT_TRACE"))
        return SECCOMP_RET_TRACE | data;
    else if (!strcmp(a, "SCMP_ACT_ALLOW"))
        return SECCOMP_RET_ALLOW;
    else if (!strcmp(a, "SCMP_ACT_LOG"))
        return SECCOMP_RET_LOG;
    else if (!strcmp(a, "SCMP_ACT_NOTIFY"))
        return SECCOMP_RET_USER_NOTIF;
    else
        *bad = 1;
    return 0;
}

static int lets_through(uint32_t ret)
{
    return (bx_seccomp_ret_action(ret) & (BX_SECCOMP_ACT_ALLOW | BX_SECCOMP_ACT_LOG |
                                          BX_SECCOMP_ACT_TRACE | BX_SECCOMP_ACT_USER_NOTIF)) != 0;
}

static void entry_of(bx_seccomp_entry *e, const uint32_t *rets, size_t n)
{
    int through = 0, denied = 0;
    memset(e, 0, sizeof *e);
    for (size_t i = 0; i < n; i++) {
        e->actions |= (uint16_t)bx_seccomp_ret_action(rets[i]);
        if (lets_through(rets[i]))
            through = 1;
        else
            denied = 1;
    }
    e->verdict = through && denied ? BX_SECCOMP_DEPENDS : through ? BX_SECCOMP_ALLOW : BX_SECCOMP_DENY;
    e->uniform = 1;
    for (size_t i = 1; i < n; i++)
        e->uniform &= rets[i] == rets[0];
    e->ret = e->uniform ? rets[0] : 0;
}

/* 1 when the profile's architectures (SCMP_ARCH_X86_64 ...) name ABI abi, or it is native. */
static int abi_listed(const json_t *archs, size_t abi)
{
    const json_t *v;
    size_t i;
    if (abi == 0)
        return 1; /* runc always adds the native arch */
    json_array_foreach(archs, i, v)
    {
        const char *s = json_string_value(v);
        const char *n = bx_seccomp_abi(abi)->name;
        if (!s || strncmp(s, "SCMP_ARCH_", 10) != 0)
            continue;
        s += 10;
        size_t k = 0;
        while (s[k] && n[k] && (s[k] | 0x20) == (n[k] | 0x20))
            k++;
        if (!s[k] && !n[k])
            return 1;
    }
    return 0;
}

int bxa_sc_rules_table(const json_t *oci, bx_seccomp_table **out, bx_error *err)
{
    const json_t *calls = json_object_get(oci, "syscalls"), *r, *n;
    rule_name *names = NULL;
    size_t nn = 0, cap = 0, i, j;
    bx_seccomp_table *t = NULL;
    uint32_t def, rets[64];
    int bad = 0, rc = 0;

    *out = NULL;
    def = ret_of(json_string_value(json_object_get(oci, "defaultAction")),
                 json_object_get(oci, "defaultErrnoRet"), &bad);
    json_array_foreach(calls, i, r)
    {
        const json_t *list = json_object_get(r, "names");
        int args = json_array_size(json_object_get(r, "args")) > 0;
        uint32_t ret = ret_of(json_string_value(json_object_get(r, "action")),
                              json_object_get(r, "errnoRet"), &bad);
        json_array_foreach(list, j, n)
        {
            if (!json_is_string(n))
                continue;
            if (nn == cap) {
                rule_name *nr = realloc(names, (cap = cap ? cap * 2 : 512) * sizeof *nr);
                if (!nr) {
                    rc = bxa_oom(err);
                    goto out;
                }
                names = nr;
            }
            names[nn++] = (rule_name){json_string_value(n), ret, args};
        }
    }
    if (bad) {
        rc = bx_error_set(err, BX_EINVAL, "linux.seccomp", "an action this collector does not know");
        goto out;
    }
    if (nn)
        qsort(names, nn, sizeof *names, by_name);
    if (!(t = calloc(1, sizeof *t))) {
        rc = bxa_oom(err);
        goto out;
    }
    for (size_t abi = 0; abi < BX_SECCOMP_NABI; abi++) {
        int listed = abi_listed(json_object_get(oci, "architectures"), abi);
        uint32_t kill = SECCOMP_RET_KILL_THREAD;
        for (unsigned nr = 0; nr < BX_SECCOMP_NR_COUNT; nr++) {
            const char *name = bx_seccomp_syscall_name(abi, nr);
            size_t k = 0;
            int unconditional = 0;
            if (!listed) {
                entry_of(&t->nr[abi][nr], &kill, 1);
                continue;
            }
            if (name) {
                rule_name key = {name, 0, 0}, *hit = nn ? bsearch(&key, names, nn, sizeof *names,
                                                                   by_name)
                                                        : NULL;
                while (hit && hit > names && !strcmp(hit[-1].name, name))
                    hit--;
                for (; hit && hit < names + nn && !strcmp(hit->name, name) && k < 63; hit++) {
                    rets[k++] = hit->ret;
                    unconditional |= !hit->args;
                }
            }
            if (!unconditional)
                rets[k++] = def;
            entry_of(&t->nr[abi][nr], rets, k);
        }
        entry_of(&t->beyond[abi], listed ? &def : &kill, 1);
    }
    entry_of(&t->other_arch, (uint32_t[]){SECCOMP_RET_KILL_THREAD}, 1);
    *out = t;
    t = NULL;
out:
    free(t);
    free(names);
    return rc;
}
