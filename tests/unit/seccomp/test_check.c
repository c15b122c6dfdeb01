/* SPDX-License-Identifier: Apache-2.0 */
/* The kernel's checks of seccomp programs and chains (bx_seccomp_check, _check_chain). */
#include "bx_seccomp.h"
#include "tap.h"

#include <stddef.h>
#include <stdlib.h>

#define N(a) (sizeof(a) / sizeof((a)[0]))
#define ALLOW BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW)

static int refused(const struct sock_filter *f, size_t len, const char *want)
{
    bx_error err = {0};
    int rc = bx_seccomp_check(f, len, &err);
    if (rc != BX_EINVAL || !strstr(err.msg, want)) {
        printf("#   rc=%d msg='%s' (wanted '%s')\n", rc, err.msg, want);
        return 0;
    }
    return 1;
}

int main(void)
{
    bx_error err = {0};

    struct sock_filter ok1[] = {
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 1, 0, 1),
        ALLOW,
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
    };
    ok_err(bx_seccomp_check(ok1, N(ok1), &err), &err, "a plain program is accepted");

    ok(refused(ok1, 0, "length 0"), "length 0 is refused");
    struct sock_filter *big = calloc(4097, sizeof *big);
    for (int i = 0; i < 4097; i++)
        big[i] = (struct sock_filter)ALLOW;
    ok_err(bx_seccomp_check(big, 4096, &err), &err, "4096 instructions are accepted");
    ok(refused(big, 4097, "length 4097"), "4097 instructions are refused (BPF_MAXINSNS)");

    struct sock_filter noret[] = {
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, 0),
    };
    ok(refused(noret, N(noret), "not a RET"), "a program not ending in RET is refused");

    struct sock_filter past[] = {
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 1, 0, 2),
        ALLOW,
    };
    ok(refused(past, N(past), "jump past the end"), "a conditional jump past the end");
    struct sock_filter jat[] = {
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 1, 1, 0),
        ALLOW,
    };
    ok(refused(jat, N(jat), "jump past the end"), "jt past the end");
    struct sock_filter ja[] = {
        BPF_STMT(BPF_JMP | BPF_JA, 1),
        ALLOW,
    };
    ok(refused(ja, N(ja), "past the end"), "ja past the end");
    /* A "backward" jump: k = 0xffffffff would wrap to pc - 1 + 1. */
    struct sock_filter back[] = {
        ALLOW,
        BPF_STMT(BPF_JMP | BPF_JA, 0xffffffffu),
        ALLOW,
    };
    ok(refused(back, N(back), "past the end"), "a backward ja (k wraps) is refused");

    struct sock_filter beyond[] = {
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, sizeof(struct seccomp_data)),
        ALLOW,
    };
    ok(refused(beyond, N(beyond), "offset 64"), "a load beyond struct seccomp_data");
    struct sock_filter mis[] = {
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, 2),
        ALLOW,
    };
    ok(refused(mis, N(mis), "offset 2"), "a misaligned load");
    struct sock_filter half[] = {
        BPF_STMT(BPF_LD | BPF_H | BPF_ABS, 0),
        ALLOW,
    };
    ok(refused(half, N(half), "not allowed in seccomp"), "a half-word load (seccomp refuses)");
    struct sock_filter ind[] = {
        BPF_STMT(BPF_LD | BPF_W | BPF_IND, 0),
        ALLOW,
    };
    ok(refused(ind, N(ind), "not allowed in seccomp"), "an indirect load");
    struct sock_filter anc[] = {
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, 0xfffff000u), /* SKF_AD_OFF: ancillary */
        ALLOW,
    };
    ok(refused(anc, N(anc), "offset"), "an ancillary load");
    struct sock_filter mod[] = {
        BPF_STMT(BPF_ALU | BPF_MOD | BPF_K, 3),
        ALLOW,
    };
    ok(refused(mod, N(mod), "not allowed in seccomp"), "BPF_MOD (classic BPF has it, seccomp not)");
    struct sock_filter div0[] = {
        BPF_STMT(BPF_ALU | BPF_DIV | BPF_K, 0),
        ALLOW,
    };
    ok(refused(div0, N(div0), "division by constant 0"), "division by constant 0");
    struct sock_filter sh[] = {
        BPF_STMT(BPF_ALU | BPF_LSH | BPF_K, 32),
        ALLOW,
    };
    ok(refused(sh, N(sh), "shift by 32"), "a shift by 32");
    struct sock_filter unk[] = {
        {0xffff, 0, 0, 0},
        ALLOW,
    };
    ok(refused(unk, N(unk), "unknown opcode"), "an unknown opcode");
    struct sock_filter cell[] = {
        BPF_STMT(BPF_ST, 16),
        ALLOW,
    };
    ok(refused(cell, N(cell), "scratch cell 16"), "scratch cell 16");
    struct sock_filter unset[] = {
        BPF_STMT(BPF_LD | BPF_MEM, 3),
        ALLOW,
    };
    ok(refused(unset, N(unset), "read before it is written"), "a scratch cell read unwritten");
    /* Written on one path only. */
    struct sock_filter onepath[] = {
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, 0),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 1, 0, 1),
        BPF_STMT(BPF_ST, 0),
        BPF_STMT(BPF_LDX | BPF_MEM, 0),
        ALLOW,
    };
    ok(refused(onepath, N(onepath), "read before it is written"),
       "a scratch cell written on one path only");
    struct sock_filter both[] = {
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, 0),
        BPF_STMT(BPF_ST, 0),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 1, 0, 1),
        BPF_STMT(BPF_ST, 0),
        BPF_STMT(BPF_LDX | BPF_MEM, 0),
        BPF_STMT(BPF_RET | BPF_A, 0),
    };
    ok_err(bx_seccomp_check(both, N(both), &err), &err, "a cell written on every path");
    struct sock_filter len[] = {
        BPF_STMT(BPF_LD | BPF_W | BPF_LEN, 0),
        BPF_STMT(BPF_LDX | BPF_W | BPF_LEN, 0),
        BPF_STMT(BPF_RET | BPF_A, 0),
    };
    ok_err(bx_seccomp_check(len, N(len), &err), &err,
           "BPF_LEN loads (the kernel turns them to 64)");

    /* Chains: MAX_INSNS_PER_PATH with the 4-instruction penalty per earlier filter. */
    bx_seccomp_prog chain[9];
    for (int i = 0; i < 9; i++)
        chain[i] = (bx_seccomp_prog){big, 4096};
    /* 7 filters: 4096 + 6 * 4100 = 28696 <= 32768; 8: 4096 + 7 * 4100 = 32796 > 32768. */
    ok_err(bx_seccomp_check_chain(chain, 7, &err), &err, "7 filters of 4096");
    is_int(bx_seccomp_check_chain(chain, 8, &err), BX_EINVAL, "8 filters of 4096 are refused");
    ok(strstr(err.msg, "32796") != NULL, "with the kernel's count: %s", err.msg);
    chain[7].len = 4092; /* 4092 + 7 * 4100 = 32792 */
    is_int(bx_seccomp_check_chain(chain, 8, &err), BX_EINVAL, "32792 is refused too");
    chain[7].len = 4068; /* exactly 32768 */
    ok_err(bx_seccomp_check_chain(chain, 8, &err), &err, "exactly 32768 is accepted");
    chain[1] = (bx_seccomp_prog){noret, 1};
    is_int(bx_seccomp_check_chain(chain, 2, &err), BX_EINVAL, "a bad filter in a chain");
    is_str(err.where, "filter 1", "named by its place");
    is_int(bx_seccomp_check_chain(chain, 0, &err), BX_EINVAL, "an empty chain");
    free(big);
    return tap_done();
}
