/* SPDX-License-Identifier: Apache-2.0 */
/* bx_seccomp_arg_reach: which namespace bits of clone/unshare flags reach an allowing
 * return, on programs built by libseccomp (masked, 64-bit and 32-bit-halves comparisons,
 * x86_64, x32 and x86) and on Docker's default profiles. */
#include "bx_seccomp.h"
#include "tap.h"

#include <linux/audit.h>
#include <linux/filter.h>
#include <seccomp.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/mman.h>
#include <unistd.h>

#define X64 BX_SECCOMP_ABI_X86_64
#define X32 BX_SECCOMP_ABI_X32
#define X86 BX_SECCOMP_ABI_X86
#define U BX_SECCOMP_NS_USER
#define NS_CLONE                                                                                   \
    (BX_SECCOMP_NS_USER | BX_SECCOMP_NS_MNT | BX_SECCOMP_NS_PID | BX_SECCOMP_NS_NET |              \
     BX_SECCOMP_NS_IPC | BX_SECCOMP_NS_UTS | BX_SECCOMP_NS_CGROUP)
#define NS_ALL (NS_CLONE | BX_SECCOMP_NS_TIME)

static struct sock_filter *export(scmp_filter_ctx ctx, size_t *len)
{
    int fd = memfd_create("bxsc_argreach", MFD_CLOEXEC);
    off_t l = 0;
    struct sock_filter *p = NULL;
    if (fd < 0 || seccomp_export_bpf(ctx, fd) != 0 || (l = lseek(fd, 0, SEEK_END)) <= 0 ||
        !(p = malloc((size_t)l)) || pread(fd, p, (size_t)l, 0) != l) {
        free(p);
        p = NULL;
    }
    if (fd >= 0)
        close(fd);
    seccomp_release(ctx);
    *len = (size_t)l / sizeof *p;
    return p;
}

static scmp_filter_ctx ctx_new(uint32_t def)
{
    scmp_filter_ctx c = seccomp_init(def);
    seccomp_arch_add(c, SCMP_ARCH_X32);
    seccomp_arch_add(c, SCMP_ARCH_X86);
    return c;
}

/* reach of name's argument 0 over the one-program chain, on abi */
static bx_seccomp_argreach reach(const struct sock_filter *p, size_t len, int abi, const char *name,
                                 uint32_t bits)
{
    bx_seccomp_prog pr = {p, len};
    bx_seccomp_argreach r;
    bx_error err = {0};
    if (!p || bx_seccomp_arg_reach(&pr, 1, (size_t)abi, name, 0, bits, &r, &err) != 0) {
        printf("#   %s: %s\n", err.where, err.msg);
        r.reachable = -1;
        r.bits = 0xdeadbeefu;
    }
    return r;
}

#define ERR SCMP_ACT_ERRNO(1)

int main(void)
{
    size_t len;
    struct sock_filter *p;
    bx_seccomp_argreach r;
    static const int abis[] = {X64, X32, X86};

    /* Docker's clone rule: (flags & 0x7E020000) == 0 allows */
    scmp_filter_ctx c = ctx_new(ERR);
    seccomp_rule_add(c, SCMP_ACT_ALLOW, SCMP_SYS(clone), 1,
                     SCMP_A0(SCMP_CMP_MASKED_EQ, 0x7E020000u, 0));
    p = export(c, &len);
    for (int i = 0; i < 3; i++) {
        r = reach(p, len, abis[i], "clone", NS_CLONE);
        ok(r.reachable == 1 && r.bits == 0, "masked clone rule: no namespace bit (abi %d)",
           abis[i]);
        r = reach(p, len, abis[i], "clone", 0x00000100u);
        ok(r.bits == 0x100u, "masked clone rule: CLONE_VM reachable (abi %d)", abis[i]);
        r = reach(p, len, abis[i], "unshare", NS_ALL);
        ok(r.reachable == 0 && r.bits == 0, "no unshare rule: unreachable (abi %d)", abis[i]);
    }
    free(p);

    /* the same mask less CLONE_NEWUSER: only the user bit gets through */
    c = ctx_new(ERR);
    seccomp_rule_add(c, SCMP_ACT_ALLOW, SCMP_SYS(clone), 1,
                     SCMP_A0(SCMP_CMP_MASKED_EQ, 0x7E020000u & ~U, 0));
    p = export(c, &len);
    for (int i = 0; i < 3; i++)
        is_int(reach(p, len, abis[i], "clone", NS_CLONE).bits, U, "mask without NEWUSER (abi %d)",
               abis[i]);
    free(p);

    /* allowed only with CLONE_NEWUSER set */
    c = ctx_new(ERR);
    seccomp_rule_add(c, SCMP_ACT_ALLOW, SCMP_SYS(clone), 1, SCMP_A0(SCMP_CMP_MASKED_EQ, U, U));
    p = export(c, &len);
    r = reach(p, len, X64, "clone", NS_CLONE);
    is_int(r.bits, NS_CLONE, "allowed when NEWUSER set: every bit rides along");
    free(p);

    /* exact 64-bit value: high half 1, low half NEWUSER|NEWNET */
    c = ctx_new(ERR);
    seccomp_rule_add(c, SCMP_ACT_ALLOW, SCMP_SYS(unshare), 1,
                     SCMP_A0(SCMP_CMP_EQ, 0x100000000ull | U | BX_SECCOMP_NS_NET));
    p = export(c, &len);
    is_int(reach(p, len, X64, "unshare", NS_ALL).bits, U | BX_SECCOMP_NS_NET,
           "64-bit equality: exactly its bits");
    free(p);

    /* ranges: flags < 0x20000 (both halves compared on 64-bit ABIs) */
    c = ctx_new(ERR);
    seccomp_rule_add(c, SCMP_ACT_ALLOW, SCMP_SYS(unshare), 1, SCMP_A0(SCMP_CMP_LT, 0x20000u));
    p = export(c, &len);
    for (int i = 0; i < 3; i++)
        is_int(reach(p, len, abis[i], "unshare", NS_ALL).bits, BX_SECCOMP_NS_TIME,
               "below 0x20000: only NEWTIME (abi %d)", abis[i]);
    free(p);
    c = ctx_new(ERR);
    seccomp_rule_add(c, SCMP_ACT_ALLOW, SCMP_SYS(unshare), 1, SCMP_A0(SCMP_CMP_GE, 0x40000000u));
    p = export(c, &len);
    is_int(reach(p, len, X86, "unshare", NS_ALL).bits, NS_ALL, "at least 0x40000000: every bit");
    free(p);
    c = ctx_new(ERR);
    seccomp_rule_add(c, SCMP_ACT_ALLOW, SCMP_SYS(unshare), 1, SCMP_A0(SCMP_CMP_GT, 0xffffffffull));
    p = export(c, &len);
    is_int(reach(p, len, X64, "unshare", NS_ALL).bits, NS_ALL,
           "above 2^32-1 (high half): every bit");
    is_int(reach(p, len, X86, "unshare", NS_ALL).reachable, 0, "above 2^32-1 on x86: never");
    free(p);

    /* deny when NEWUSER set, default allow; != rule */
    c = ctx_new(SCMP_ACT_ALLOW);
    seccomp_rule_add(c, ERR, SCMP_SYS(clone), 1, SCMP_A0(SCMP_CMP_MASKED_EQ, U, U));
    p = export(c, &len);
    is_int(reach(p, len, X64, "clone", NS_CLONE).bits, NS_CLONE & ~U, "deny NEWUSER, allow rest");
    free(p);
    c = ctx_new(ERR);
    seccomp_rule_add(c, SCMP_ACT_ALLOW, SCMP_SYS(unshare), 1, SCMP_A0(SCMP_CMP_NE, U));
    p = export(c, &len);
    is_int(reach(p, len, X64, "unshare", NS_ALL).bits, NS_ALL, "!= NEWUSER: every bit");
    free(p);

    /* allowing actions and refusing ones, clone3 unconditional */
    struct {
        uint32_t act;
        int want;
        const char *what;
    } acts[] = {{SCMP_ACT_ALLOW, 1, "ALLOW"},      {SCMP_ACT_LOG, 1, "LOG"},
                {SCMP_ACT_TRACE(1), 1, "TRACE"},   {SCMP_ACT_NOTIFY, 1, "USER_NOTIF"},
                {SCMP_ACT_ERRNO(38), 0, "ENOSYS"}, {SCMP_ACT_KILL, 0, "KILL"},
                {SCMP_ACT_TRAP, 0, "TRAP"},        {SCMP_ACT_KILL_PROCESS, 0, "KILL_PROCESS"}};
    for (size_t i = 0; i < sizeof acts / sizeof acts[0]; i++) {
        uint32_t def = acts[i].want ? SCMP_ACT_KILL : SCMP_ACT_ALLOW;
        c = ctx_new(def);
        seccomp_rule_add(c, acts[i].act, SCMP_SYS(clone3), 0);
        p = export(c, &len);
        for (int a = 0; a < 3; a++)
            is_int(reach(p, len, abis[a], "clone3", 0).reachable, acts[i].want,
                   "clone3 under %s (abi %d)", acts[i].what, abis[a]);
        free(p);
    }

    /* a chain: the older filter forbids NEWUSER, the newer allows all */
    c = ctx_new(SCMP_ACT_ALLOW);
    seccomp_rule_add(c, ERR, SCMP_SYS(unshare), 1, SCMP_A0(SCMP_CMP_MASKED_EQ, U, U));
    size_t l1, l2;
    struct sock_filter *p1 = export(c, &l1), *p2;
    p2 = export(ctx_new(SCMP_ACT_ALLOW), &l2);
    bx_seccomp_prog ch[2] = {{p1, l1}, {p2, l2}};
    bx_error err = {0};
    ok(bx_seccomp_arg_reach(ch, 2, X64, "unshare", 0, NS_ALL, &r, &err) == 0 &&
           r.bits == (NS_ALL & ~U),
       "chain: the stricter filter keeps NEWUSER out");
    ok(bx_seccomp_arg_reach(ch, 2, X64, "no_such_call", 0, NS_ALL, &r, &err) == BX_ENOTFOUND,
       "unknown syscall name");
    free(p1);
    free(p2);

    /* Docker's defaults (20.10 and 26): no namespace bit without CAP_SYS_ADMIN, clone3 ENOSYS */
    const char *files[] = {"docker-20.10-oci.json", "docker-26-oci.json"};
    for (int f = 0; f < 2; f++) {
        char path[512];
        snprintf(path, sizeof path, "%s/fixtures/seccomp/%s", BOXCERT_SOURCE_DIR, files[f]);
        json_t *j = json_load_file(path, JSON_REJECT_DUPLICATES, NULL);
        p = NULL;
        if (!j || bx_seccomp_profile_compile(j, &p, &len, NULL, &err) != 0)
            printf("#   %s: %s\n", err.where, err.msg);
        json_decref(j);
        for (int a = 0; a < 3; a++) {
            r = reach(p, len, abis[a], "clone", NS_CLONE);
            ok(r.reachable == 1 && r.bits == 0, "%s: clone makes no namespace (abi %d)", files[f],
               abis[a]);
            ok(reach(p, len, abis[a], "unshare", NS_ALL).reachable == 0,
               "%s: unshare refused (abi %d)", files[f], abis[a]);
            ok(reach(p, len, abis[a], "clone3", 0).reachable == 0, "%s: clone3 refused (abi %d)",
               files[f], abis[a]);
        }
        free(p);
    }
    /* socket families and personality values: Docker 26 refuses AF_VSOCK only, 20.10 none;
     * both allow the five personas of their list and no other */
    static const struct {
        const char *call;
        uint32_t v;
        int want20, want26;
    } vals[] = {{"socket", 40, 1, 0},
                {"socket", 16, 1, 1},
                {"socket", 17, 1, 1},
                {"socket", 2, 1, 1},
                {"socket", 41, 1, 1},
                {"socket", 39, 1, 1},
                {"personality", 0, 1, 1},
                {"personality", 8, 1, 1},
                {"personality", 0x20000, 1, 1},
                {"personality", 0x20008, 1, 1},
                {"personality", 0xffffffffu, 1, 1},
                {"personality", 0x0400000, 0, 0},
                {"personality", 0x0040000, 0, 0},
                {"personality", 9, 0, 0},
                {"personality", 0x20009, 0, 0}};
    for (int f = 0; f < 2; f++) {
        char path[512];
        snprintf(path, sizeof path, "%s/fixtures/seccomp/%s", BOXCERT_SOURCE_DIR, files[f]);
        json_t *j = json_load_file(path, JSON_REJECT_DUPLICATES, NULL);
        p = NULL;
        if (!j || bx_seccomp_profile_compile(j, &p, &len, NULL, &err) != 0)
            printf("#   %s: %s\n", err.where, err.msg);
        json_decref(j);
        bx_seccomp_prog pr = {p, len};
        for (size_t v = 0; v < sizeof vals / sizeof vals[0]; v++) {
            for (int a = 0; a < 3; a++) {
                int got = -1, want = f ? vals[v].want26 : vals[v].want20;
                if (abis[a] == X86 && strcmp(vals[v].call, "socket") == 0)
                    continue; /* x86 multiplexes socket through socketcall */
                /* libseccomp's 64-bit != on x86_64 lets any nonzero high half through,
                 * and socket reads an int: AF_VSOCK gets past Docker 26's rule there */
                if (abis[a] == X64 && strcmp(vals[v].call, "socket") == 0)
                    want = 1;
                if (bx_seccomp_arg_value_reach(&pr, 1, (size_t)abis[a], vals[v].call, 0, vals[v].v,
                                               &got, &err) != 0)
                    printf("#   %s: %s\n", err.where, err.msg);
                is_int(got, want, "%s: %s(%#x) (abi %d)", files[f], vals[v].call, vals[v].v,
                       abis[a]);
            }
        }
        free(p);
    }

    /* hand-built programs over unshare's flags on x86_64, the comparisons libseccomp does not
     * emit in this order: each allowing return is unreachable */
#define HDR                                                                                        \
    BPF_STMT(BPF_LD | BPF_W | BPF_ABS, 4),                                                         \
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 0, 0),                              \
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, 0),                                                     \
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_unshare, 0, 0)
    {
        /* flags >= 2^31 and bit 31 clear: the range and the clear bits disagree */
        struct sock_filter a[] = {HDR,
                                  BPF_STMT(BPF_LD | BPF_W | BPF_ABS, 16),
                                  BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, 0x80000000u, 0, 2),
                                  BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, 0x80000000u, 1, 0),
                                  BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
                                  BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | 1)};
        /* (flags & 0xff00) == 0x100 and bit 8 clear: the equality's set bits disagree */
        struct sock_filter b[] = {HDR,
                                  BPF_STMT(BPF_LD | BPF_W | BPF_ABS, 16),
                                  BPF_STMT(BPF_ALU | BPF_AND | BPF_K, 0xff00u),
                                  BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0x100u, 0, 3),
                                  BPF_STMT(BPF_LD | BPF_W | BPF_ABS, 16),
                                  BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, 0x100u, 1, 0),
                                  BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
                                  BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | 1)};
        /* the same with bit 8 set instead: reachable, a check that the walk is not blind */
        struct sock_filter c2[] = {HDR,
                                   BPF_STMT(BPF_LD | BPF_W | BPF_ABS, 16),
                                   BPF_STMT(BPF_ALU | BPF_AND | BPF_K, 0xff00u),
                                   BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0x100u, 0, 3),
                                   BPF_STMT(BPF_LD | BPF_W | BPF_ABS, 16),
                                   BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, 0x100u, 0, 1),
                                   BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
                                   BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | 1)};
        struct sock_filter *progs[] = {a, b, c2};
        size_t lens[] = {sizeof a / sizeof a[0], sizeof b / sizeof b[0], sizeof c2 / sizeof c2[0]};
        int want[] = {0, 0, 1};
        for (int i = 0; i < 3; i++) {
            /* the header's jumps to the last instruction (the errno return) */
            progs[i][1].jf = (uint8_t)(lens[i] - 3);
            progs[i][3].jf = (uint8_t)(lens[i] - 5);
            is_int(reach(progs[i], lens[i], X64, "unshare", NS_ALL).reachable, want[i],
                   "hand-built unshare program %d", i);
        }
    }
#undef HDR

    /* with CAP_SYS_ADMIN Docker allows clone, unshare and clone3 outright */
    const char *caps[] = {"CAP_SYS_ADMIN", NULL};
    json_t *prof = json_load_file(BOXCERT_SOURCE_DIR "/fixtures/seccomp/docker-default.json",
                                  JSON_REJECT_DUPLICATES, NULL),
           *oci = NULL;
    p = NULL;
    if (!prof || bx_seccomp_docker_to_oci(prof, "amd64", caps, 6, 12, &oci, &err) != 0 ||
        bx_seccomp_profile_compile(oci, &p, &len, NULL, &err) != 0)
        printf("#   %s: %s\n", err.where, err.msg);
    is_int(reach(p, len, X64, "clone", NS_CLONE).bits, NS_CLONE, "CAP_SYS_ADMIN: clone, every bit");
    is_int(reach(p, len, X64, "unshare", NS_ALL).bits, NS_ALL, "CAP_SYS_ADMIN: unshare, every bit");
    is_int(reach(p, len, X64, "clone3", 0).reachable, 1, "CAP_SYS_ADMIN: clone3 allowed");
    free(p);
    json_decref(oci);
    json_decref(prof);
    return tap_done();
}
