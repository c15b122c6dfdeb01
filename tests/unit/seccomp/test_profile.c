/* SPDX-License-Identifier: Apache-2.0 */
/* OCI seccomp profiles (compiled with libseccomp as runc does), Docker's default profile
 * (fixtures/seccomp/docker-default.json) and the comparison of verdict tables. */
#include "bx_seccomp.h"
#include "tap.h"

#include <stdlib.h>
#include <time.h>

#define X64 BX_SECCOMP_ABI_X86_64
#define X32 BX_SECCOMP_ABI_X32
#define X86 BX_SECCOMP_ABI_X86

static json_t *docker_oci(const char *const *caps)
{
    bx_error err = {0};
    json_t *prof = json_load_file(BOXCERT_SOURCE_DIR "/fixtures/seccomp/docker-default.json",
                                  JSON_REJECT_DUPLICATES, NULL),
           *oci = NULL;
    if (!prof || bx_seccomp_docker_to_oci(prof, "amd64", caps, 6, 12, &oci, &err) != 0)
        printf("#   %s: %s\n", err.where, err.msg);
    json_decref(prof);
    return oci;
}

static int nr_of(int abi, const char *name)
{
    for (unsigned n = 0; n < BX_SECCOMP_NR_COUNT; n++) {
        const char *s = bx_seccomp_syscall_name((size_t)abi, n);
        if (s && strcmp(s, name) == 0)
            return (int)n;
    }
    return -1;
}

static const bx_seccomp_entry *by_name(const bx_seccomp_table *t, int abi, const char *name)
{
    static const bx_seccomp_entry none = {0xff, 0, 0, 0};
    int n = nr_of(abi, name);
    return n < 0 ? &none : &t->nr[abi][n];
}

static int compile_str(const char *json, bx_seccomp_table **t, bx_error *err)
{
    json_t *j = json_loads(json, JSON_REJECT_DUPLICATES, NULL);
    int rc = bx_seccomp_profile_eval(j, BX_SECCOMP_NOCACHE, t, err);
    json_decref(j);
    return rc;
}

int main(void)
{
    bx_error err = {0};
    bx_seccomp_table *t = NULL, *tp = NULL, *ta = NULL;
    json_t *oci = docker_oci(bx_seccomp_docker_default_caps), *skipped = NULL;
    struct sock_filter *insns = NULL;
    size_t len = 0;

    ok(oci != NULL, "Docker's default profile to linux.seccomp (amd64, default caps, 6.12)");
    is_int(json_array_size(json_object_get(oci, "architectures")), 3,
           "the amd64 archMap: x86_64, x86, x32");
    ok_err(bx_seccomp_profile_compile(oci, &insns, &len, &skipped, &err), &err,
           "compiled with libseccomp");
    printf("# Docker's default program: %zu instructions, %zu names skipped\n", len,
           json_array_size(skipped));
    ok(len > 500 && len <= BX_SECCOMP_MAXINSNS, "a program the kernel takes (%zu)", len);
    bx_seccomp_prog p = {insns, len};
    ok_err(bx_seccomp_eval(&p, 1, BX_SECCOMP_NOCACHE, &t, &err), &err, "evaluated");
    if (!t)
        return tap_done();

    /* what Docker's default lets through */
    ok(by_name(t, X64, "read")->verdict == BX_SECCOMP_ALLOW && by_name(t, X64, "read")->uniform,
       "read is allowed");
    ok(by_name(t, X64, "ptrace")->verdict == BX_SECCOMP_ALLOW, "ptrace (minKernel 4.8)");
    ok(by_name(t, X64, "clone3")->uniform &&
           by_name(t, X64, "clone3")->ret == (SECCOMP_RET_ERRNO | 38),
       "clone3 is ENOSYS (38)");
    ok(by_name(t, X64, "mount")->uniform &&
           by_name(t, X64, "mount")->ret == (SECCOMP_RET_ERRNO | 1),
       "mount is EPERM without CAP_SYS_ADMIN");
    const char *dep[] = {"socket", "clone", "personality"};
    for (int i = 0; i < 3; i++)
        ok(by_name(t, X64, dep[i])->verdict == BX_SECCOMP_DEPENDS &&
               by_name(t, X32, dep[i])->verdict == BX_SECCOMP_DEPENDS,
           "%s depends on its arguments (x86_64 and x32)", dep[i]);
    ok(by_name(t, X86, "socketcall")->verdict == BX_SECCOMP_ALLOW, "i386 socketcall allowed");
    ok(by_name(t, X86, "socket")->verdict == BX_SECCOMP_DEPENDS, "i386 socket depends");
    ok(t->beyond[X64].uniform && t->beyond[X64].ret == (SECCOMP_RET_ERRNO | 1) &&
           t->beyond[X86].uniform && t->beyond[X86].ret == (SECCOMP_RET_ERRNO | 1),
       "out of range: the default, EPERM");
    ok(t->other_arch.uniform && t->other_arch.ret == SECCOMP_RET_KILL_THREAD,
       "other arches: libseccomp's bad-arch action, kill_thread");
    int counts[3] = {0};
    for (int n = 0; n < BX_SECCOMP_NR_COUNT; n++)
        counts[t->nr[X64][n].verdict]++;
    printf("# x86_64: %d allow, %d deny, %d depends\n", counts[0], counts[1], counts[2]);
    is_int(counts[2], 3, "x86_64: three syscalls depend on arguments");

    /* names vs numbers: numbers libseccomp 2.5.4 does not name are kept */
    ok(bx_seccomp_syscall_name(X64, 462) == NULL,
       "x86_64 462 (mseal) has no name in libseccomp 2.5.4");
    ok(t->nr[X64][462].verdict == BX_SECCOMP_DENY && t->nr[X64][462].uniform,
       "and its verdict is recorded: denied with the default");
    json_t *j = bx_seccomp_table_json(t);
    json_t *deny = json_object_get(json_object_get(json_object_get(j, "abis"), "x86_64"), "deny");
    int found = 0;
    size_t i;
    json_t *item;
    json_array_foreach(deny, i, item)
    {
        if (json_integer_value(json_object_get(item, "nr")) == 462 &&
            json_is_null(json_object_get(item, "name")))
            found = 1;
    }
    ok(found, "the JSON lists 462 by number with a null name");
    json_decref(j);

    /* how long it takes is measured by make bench (bench/seccomp_bench.c), not here */

    /* the profile's table equals the program's */
    ok_err(bx_seccomp_profile_eval(oci, 0, &tp, &err), &err, "the profile evaluated");
    bx_seccomp_diff_item *d = NULL;
    size_t nd = 99;
    ok_err(bx_seccomp_diff(t, tp, &d, &nd, &err), &err, "compared");
    is_int(nd, 0, "program and profile agree everywhere");
    free(d);

    /* with CAP_SYS_ADMIN: the comparison names every syscall that changes */
    const char *caps[32];
    size_t nc = 0;
    for (; bx_seccomp_docker_default_caps[nc]; nc++)
        caps[nc] = bx_seccomp_docker_default_caps[nc];
    caps[nc++] = "CAP_SYS_ADMIN";
    caps[nc] = NULL;
    json_t *admin = docker_oci(caps);
    ok_err(bx_seccomp_profile_eval(admin, 0, &ta, &err), &err, "the CAP_SYS_ADMIN profile");
    ok_err(bx_seccomp_diff(t, ta, &d, &nd, &err), &err, "compared with the default");
    int named_mount = 0, named_clone3 = 0, named_clone = 0, expected = 0, wrong = 0;
    for (int a = 0; a < BX_SECCOMP_NABI; a++) {
        for (int n = 0; n < BX_SECCOMP_NR_COUNT; n++)
            expected += memcmp(&t->nr[a][n], &ta->nr[a][n], sizeof t->nr[a][n]) != 0;
    }
    for (size_t k = 0; k < nd; k++) {
        if (d[k].nr < 0)
            continue;
        const char *name = d[k].name ? d[k].name : "";
        named_mount |= d[k].abi == X64 && !strcmp(name, "mount");
        named_clone3 |=
            d[k].abi == X64 && !strcmp(name, "clone3") && d[k].b.verdict == BX_SECCOMP_ALLOW;
        named_clone |= d[k].abi == X64 && !strcmp(name, "clone") &&
                       d[k].a.verdict == BX_SECCOMP_DEPENDS && d[k].b.verdict == BX_SECCOMP_ALLOW;
        wrong |= d[k].a.verdict != BX_SECCOMP_ALLOW && d[k].b.verdict == BX_SECCOMP_DENY;
    }
    printf("# CAP_SYS_ADMIN changes %zu entries\n", nd);
    ok(nd == (size_t)expected && nd > 40, "every differing entry is named (%zu)", nd);
    ok(named_mount && named_clone3 && named_clone,
       "mount, clone3 (now allowed) and clone (depends -> allow)");
    ok(!wrong, "nothing becomes stricter");
    json_t *dj = bx_seccomp_diff_json(d, nd);
    json_t *first = json_array_get(dj, 0);
    ok(json_is_string(json_object_get(first, "abi")) && json_object_get(first, "a") &&
           json_object_get(first, "b"),
       "the comparison as JSON");
    json_decref(dj);
    free(d);

    /* runc's rules: a repeated argument index becomes one rule per condition (OR) */
    bx_seccomp_table *x = NULL;
    ok_err(
        compile_str("{\"defaultAction\": \"SCMP_ACT_ERRNO\", \"syscalls\": [{\"names\": "
                    "[\"personality\"], \"action\": \"SCMP_ACT_ALLOW\", \"args\": [{\"index\": 0, "
                    "\"value\": 1, \"op\": \"SCMP_CMP_EQ\"}, {\"index\": 0, \"value\": 2, \"op\": "
                    "\"SCMP_CMP_EQ\"}]}, {\"names\": [\"mkdir\"], \"action\": \"SCMP_ACT_ERRNO\"}, "
                    "{\"names\": [\"rmdir\"], \"action\": \"SCMP_ACT_TRACE\", \"errnoRet\": 5}, "
                    "{\"names\": [\"nosuchcall\", \"read\"], \"action\": \"SCMP_ACT_ALLOW\"}]}",
                    &x, &err),
        &err, "a small OCI profile");
    ok(x && by_name(x, X64, "personality")->verdict == BX_SECCOMP_DEPENDS,
       "personality(1) or personality(2): depends (the conditions are ORed)");
    ok(x && by_name(x, X64, "mkdir")->uniform &&
           by_name(x, X64, "mkdir")->ret == (SECCOMP_RET_ERRNO | 1),
       "ERRNO without errnoRet is EPERM");
    ok(x && by_name(x, X64, "rmdir")->uniform &&
           by_name(x, X64, "rmdir")->ret == (SECCOMP_RET_TRACE | 5),
       "TRACE with errnoRet 5");
    ok(x && by_name(x, X64, "read")->verdict == BX_SECCOMP_ALLOW, "read allowed");
    ok(x && x->other_arch.verdict == BX_SECCOMP_DENY, "only the native ABI without architectures");
    ok(x && x->nr[X86][3].verdict == BX_SECCOMP_DENY, "i386 read: not in the filter");
    bx_seccomp_table_free(x);
    json_t *small = json_loads("{\"defaultAction\": \"SCMP_ACT_KILL\", \"syscalls\": [{\"names\": "
                               "[\"nosuchcall\"], \"action\": \"SCMP_ACT_ALLOW\"}]}",
                               0, NULL);
    struct sock_filter *si = NULL;
    size_t sl = 0;
    json_t *sk = NULL;
    ok_err(bx_seccomp_profile_compile(small, &si, &sl, &sk, &err), &err, "an unknown name");
    ok(json_array_size(sk) == 1 && !strcmp(json_string_value(json_array_get(sk, 0)), "nosuchcall"),
       "is skipped, as runc does, and listed");
    free(si);
    json_decref(sk);
    json_decref(small);

    /* strict input */
    static const struct {
        const char *json;
        int code;
        const char *what;
    } bad[] = {
        {"{\"defaultAction\": \"SCMP_ACT_ALLOW\", \"extra\": 1}", BX_EINVAL, "unknown member"},
        {"{\"defaultAction\": \"SCMP_ACT_MAYBE\"}", BX_EINVAL, "unknown action"},
        {"{}", BX_EINVAL, "no defaultAction"},
        {"{\"defaultAction\": \"SCMP_ACT_ERRNO\", \"defaultErrnoRet\": 70000}", BX_EINVAL,
         "errnoRet out of range"},
        {"{\"defaultAction\": \"SCMP_ACT_ALLOW\", \"architectures\": [\"x86_64\"]}", BX_EINVAL,
         "an arch without SCMP_ARCH_"},
        {"{\"defaultAction\": \"SCMP_ACT_ALLOW\", \"architectures\": [\"SCMP_ARCH_LOONGARCH64\"]}",
         BX_EUNSUPPORTED, "an arch libseccomp 2.5 does not know"},
        {"{\"defaultAction\": \"SCMP_ACT_ALLOW\", \"flags\": [\"SECCOMP_FILTER_FLAG_NOPE\"]}",
         BX_EINVAL, "an unknown flag"},
        {"{\"defaultAction\": \"SCMP_ACT_ALLOW\", \"syscalls\": [{\"names\": [\"read\"], "
         "\"action\": \"SCMP_ACT_KILL\", \"args\": [{\"index\": 6, \"value\": 1, \"op\": "
         "\"SCMP_CMP_EQ\"}]}]}",
         BX_EINVAL, "argument index 6"},
        {"{\"defaultAction\": \"SCMP_ACT_ALLOW\", \"syscalls\": [{\"names\": [\"read\"], "
         "\"action\": \"SCMP_ACT_KILL\", \"args\": [{\"index\": 0, \"value\": 1, \"op\": "
         "\"SCMP_CMP_SOMETIMES\"}]}]}",
         BX_EINVAL, "an unknown operator"},
        {"{\"defaultAction\": \"SCMP_ACT_ALLOW\", \"syscalls\": [{\"names\": [], \"action\": "
         "\"SCMP_ACT_KILL\"}]}",
         BX_EINVAL, "no names"},
        {"{\"defaultAction\": \"SCMP_ACT_ALLOW\", \"syscalls\": [{\"names\": [\"read\"], "
         "\"action\": \"SCMP_ACT_KILL\", \"comment\": \"x\"}]}",
         BX_EINVAL, "Docker's own members are not OCI"},
    };
    for (size_t b = 0; b < sizeof bad / sizeof bad[0]; b++) {
        bx_seccomp_table *y = NULL;
        is_int(compile_str(bad[b].json, &y, &err), bad[b].code, "refused: %s", bad[b].what);
        bx_seccomp_table_free(y);
    }

    json_decref(skipped);
    json_decref(oci);
    json_decref(admin);
    free(insns);
    bx_seccomp_table_free(t);
    bx_seccomp_table_free(tp);
    bx_seccomp_table_free(ta);
    bx_seccomp_cache_clear();
    return tap_done();
}
