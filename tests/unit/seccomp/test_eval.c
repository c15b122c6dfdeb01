/* SPDX-License-Identifier: Apache-2.0 */
/* The evaluator on hand-written programs and chains, checked entry by entry, and on
 * random programs checked against concrete runs (bx_seccomp_run). */
#include "bx_seccomp.h"
#include "seccomp_internal.h"
#include "tap.h"

#include <linux/audit.h>
#include <stddef.h>
#include <stdlib.h>
#include <time.h>

#define N(a) (sizeof(a) / sizeof((a)[0]))
#define LD(off) BPF_STMT(BPF_LD | BPF_W | BPF_ABS, (off))
#define LD_NR LD(offsetof(struct seccomp_data, nr))
#define LD_ARCH LD(offsetof(struct seccomp_data, arch))
#define LD_ARG(i) LD(offsetof(struct seccomp_data, args) + 8 * (i))
#define RET(v) BPF_STMT(BPF_RET | BPF_K, (v))
#define JEQ(k, t, f) BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (k), (t), (f))
#define ERRNO(e) (SECCOMP_RET_ERRNO | (e))
#define X64 BX_SECCOMP_ABI_X86_64
#define X32 BX_SECCOMP_ABI_X32
#define X86 BX_SECCOMP_ABI_X86

static bx_seccomp_table *eval_chain(const bx_seccomp_prog *c, size_t n)
{
    bx_error err = {0};
    bx_seccomp_table *t = NULL;
    int rc = bx_seccomp_eval(c, n, BX_SECCOMP_NOCACHE, &t, &err);
    if (rc != 0)
        printf("#   eval failed: %s: %s\n", err.where, err.msg);
    return t;
}

static bx_seccomp_table *eval1(const struct sock_filter *f, size_t n)
{
    bx_seccomp_prog p = {f, n};
    return eval_chain(&p, 1);
}

static int is_entry(const bx_seccomp_entry *e, int verdict, int uniform, uint32_t ret)
{
    int good = e->verdict == verdict && e->uniform == uniform && (!uniform || e->ret == ret);
    if (!good) {
        char b[48];
        printf("#   got verdict=%s uniform=%d ret=%s actions=0x%x\n",
               bx_seccomp_verdict_name(e->verdict), e->uniform,
               bx_seccomp_ret_str(e->ret, b, sizeof b), e->actions);
    }
    return good;
}

/* Every number of every ABI has the same entry. */
static int all_are(const bx_seccomp_table *t, int abi, int verdict, int uniform, uint32_t ret)
{
    for (int a = 0; a < BX_SECCOMP_NABI; a++) {
        if (abi >= 0 && a != abi)
            continue;
        for (int n = 0; n < BX_SECCOMP_NR_COUNT; n++) {
            if (!is_entry(&t->nr[a][n], verdict, uniform, ret)) {
                printf("#   at %s %d\n", bx_seccomp_abi(a)->name, n);
                return 0;
            }
        }
    }
    return 1;
}

/* Soundness against concrete runs: for random inputs of a few numbers of each ABI (and
 * out-of-range numbers and other arches), the concrete result is one the table allows. */
static int admits(const bx_seccomp_entry *e, uint32_t ret)
{
    if (e->uniform && e->ret != ret)
        return 0;
    if (!(e->actions & bx_seccomp_ret_action(ret)))
        return 0;
    if (e->verdict == BX_SECCOMP_ALLOW && !bxsc_ret_lets_through(ret))
        return 0;
    if (e->verdict == BX_SECCOMP_DENY && bxsc_ret_lets_through(ret))
        return 0;
    return 1;
}

static uint64_t rng = 0x9e3779b97f4a7c15ull;
static uint32_t rnd(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (uint32_t)(rng >> 11);
}

static int sound(const bx_seccomp_prog *c, size_t n, const bx_seccomp_table *t, int samples)
{
    for (int s = 0; s < samples; s++) {
        struct seccomp_data sd;
        const bx_seccomp_entry *e;
        int a = (int)(rnd() % (BX_SECCOMP_NABI + 2));
        unsigned nr = rnd() % BX_SECCOMP_NR_COUNT;
        for (int i = 0; i < 6; i++)
            sd.args[i] = rnd() % 4 == 0 ? rnd() % 4 : ((uint64_t)rnd() << 32) | rnd();
        sd.instruction_pointer = ((uint64_t)rnd() << 32) | rnd();
        if (a < BX_SECCOMP_NABI) {
            sd.arch = bx_seccomp_abi((size_t)a)->audit_arch;
            sd.nr = (int)(bx_seccomp_abi((size_t)a)->nr_base + nr);
            e = &t->nr[a][nr];
        } else if (a == BX_SECCOMP_NABI) { /* out of range */
            int b = (int)(rnd() % BX_SECCOMP_NABI);
            uint32_t v;
            do
                v = rnd() % 3 == 0 ? 1024 + rnd() % 4096
                    : rnd() % 2    ? rnd()
                                   : 0xffffffffu - rnd() % 8;
            while (v < 1024 || (v >= 0x40000000u && v < 0x40000400u));
            sd.arch = bx_seccomp_abi((size_t)b)->audit_arch;
            sd.nr = (int)v;
            e = &t->beyond[b];
        } else {
            do
                sd.arch = rnd() % 2 ? rnd() : bx_seccomp_abi(0)->audit_arch + rnd() % 3 - 1;
            while (sd.arch == AUDIT_ARCH_X86_64 || sd.arch == AUDIT_ARCH_I386);
            sd.nr = (int)(rnd() % 2 ? rnd() : rnd() % 2048);
            e = &t->other_arch;
        }
        uint32_t ret = bx_seccomp_run(c, n, &sd);
        if (!admits(e, ret)) {
            char b[48];
            printf("#   arch 0x%x nr 0x%x: ran %s, table says %s (actions 0x%x)\n", sd.arch,
                   (unsigned)sd.nr, bx_seccomp_ret_str(ret, b, sizeof b),
                   bx_seccomp_verdict_name(e->verdict), e->actions);
            return 0;
        }
    }
    return 1;
}

/* A random valid program of len instructions (len >= 2). */
static void random_prog(struct sock_filter *f, size_t len)
{
    static const uint32_t rets[] = {SECCOMP_RET_ALLOW,
                                    SECCOMP_RET_KILL_PROCESS,
                                    SECCOMP_RET_KILL_THREAD,
                                    ERRNO(1),
                                    ERRNO(13),
                                    SECCOMP_RET_TRAP,
                                    SECCOMP_RET_LOG,
                                    SECCOMP_RET_TRACE | 3,
                                    SECCOMP_RET_USER_NOTIF,
                                    0x00060000u};
    static const uint16_t alu[] = {BPF_ADD, BPF_SUB, BPF_MUL, BPF_DIV, BPF_AND,
                                   BPF_OR,  BPF_XOR, BPF_LSH, BPF_RSH};
    static const uint16_t jmp[] = {BPF_JEQ, BPF_JGT, BPF_JGE, BPF_JSET};
    uint16_t written = 0;
    for (size_t pc = 0; pc + 1 < len; pc++) {
        size_t room = len - pc - 2; /* farthest forward offset */
        uint32_t r = rnd() % 16, k = rnd() % 3 ? rnd() % 1100 : rnd();
        if (rnd() % 4 == 0)
            k = 0x40000000u + rnd() % 1100;
        if (rnd() % 8 == 0)
            k = rnd() % 2 ? AUDIT_ARCH_X86_64 : AUDIT_ARCH_I386;
        if (r < 4) {
            f[pc] = (struct sock_filter)LD(4 * (rnd() % 16));
        } else if (r < 5) {
            f[pc] = (struct sock_filter)BPF_STMT(BPF_LDX | BPF_IMM, rnd() % 3 ? k : rnd() % 4);
        } else if (r < 6) {
            f[pc] = (struct sock_filter)BPF_STMT(BPF_MISC | (rnd() % 2 ? BPF_TAX : BPF_TXA), 0);
        } else if (r < 7) {
            uint32_t cell = rnd() % 4;
            f[pc] = (struct sock_filter)BPF_STMT(rnd() % 2 ? BPF_ST : BPF_STX, cell);
            written |= (uint16_t)(1u << cell);
        } else if (r < 8 && written) {
            uint32_t cell = rnd() % 4;
            while (!(written & (1u << cell)))
                cell = (cell + 1) % 4;
            /* only valid when written on every path: keep such loads before any jump */
            f[pc] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_IMM, k);
        } else if (r < 10) {
            uint16_t op = alu[rnd() % N(alu)];
            int x = rnd() % 3 == 0;
            uint32_t kk = op == BPF_LSH || op == BPF_RSH ? rnd() % 32
                          : op == BPF_DIV                ? 1 + rnd() % 7
                                                         : k;
            f[pc] = (struct sock_filter)BPF_STMT(BPF_ALU | op | (x ? BPF_X : BPF_K), kk);
        } else if (r < 11) {
            f[pc] = (struct sock_filter)RET(rets[rnd() % N(rets)]);
        } else if (r < 12 && room > 0) {
            f[pc] = (struct sock_filter)BPF_STMT(BPF_JMP | BPF_JA, rnd() % (room + 1));
        } else {
            uint8_t jt = (uint8_t)(room ? rnd() % (room + 1 < 8 ? room + 1 : 8) : 0);
            uint8_t jf = (uint8_t)(room ? rnd() % (room + 1 < 8 ? room + 1 : 8) : 0);
            uint16_t op = jmp[rnd() % N(jmp)];
            f[pc] = (struct sock_filter)BPF_JUMP(BPF_JMP | op | (rnd() % 4 == 0 ? BPF_X : BPF_K), k,
                                                 jt, jf);
        }
    }
    f[len - 1] = rnd() % 4 ? (struct sock_filter)RET(rets[rnd() % N(rets)])
                           : (struct sock_filter)BPF_STMT(BPF_RET | BPF_A, 0);
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(void)
{
    bx_seccomp_table *t;
    bx_error err = {0};

    /* allow-all and deny-all */
    struct sock_filter allow[] = {RET(SECCOMP_RET_ALLOW)};
    t = eval1(allow, N(allow));
    ok(t && all_are(t, -1, BX_SECCOMP_ALLOW, 1, SECCOMP_RET_ALLOW), "allow-all: every number");
    ok(t && is_entry(&t->beyond[X64], BX_SECCOMP_ALLOW, 1, SECCOMP_RET_ALLOW) &&
           is_entry(&t->other_arch, BX_SECCOMP_ALLOW, 1, SECCOMP_RET_ALLOW),
       "allow-all: out of range and other arches");
    bx_seccomp_table_free(t);
    struct sock_filter deny[] = {RET(SECCOMP_RET_KILL_PROCESS)};
    t = eval1(deny, N(deny));
    ok(t && all_are(t, -1, BX_SECCOMP_DENY, 1, SECCOMP_RET_KILL_PROCESS), "deny-all");
    ok(t && t->nr[X64][0].actions == BX_SECCOMP_ACT_KILL_PROCESS, "with its action");
    ok(t && is_entry(&t->other_arch, BX_SECCOMP_DENY, 1, SECCOMP_RET_KILL_PROCESS),
       "deny-all: other arches");
    bx_seccomp_table_free(t);

    /* an arch check that kills other arches */
    struct sock_filter arch[] = {
        LD_ARCH,
        JEQ(AUDIT_ARCH_X86_64, 1, 0),
        RET(SECCOMP_RET_KILL_PROCESS),
        RET(SECCOMP_RET_ALLOW),
    };
    t = eval1(arch, N(arch));
    ok(t && all_are(t, X64, BX_SECCOMP_ALLOW, 1, SECCOMP_RET_ALLOW) &&
           all_are(t, X32, BX_SECCOMP_ALLOW, 1, SECCOMP_RET_ALLOW),
       "arch check: x86_64 and x32 (same AUDIT_ARCH) let through");
    ok(t && all_are(t, X86, BX_SECCOMP_DENY, 1, SECCOMP_RET_KILL_PROCESS),
       "arch check: i386 killed");
    ok(t && is_entry(&t->other_arch, BX_SECCOMP_DENY, 1, SECCOMP_RET_KILL_PROCESS),
       "arch check: other arches killed");
    ok(t && is_entry(&t->beyond[X64], BX_SECCOMP_ALLOW, 1, SECCOMP_RET_ALLOW) &&
           is_entry(&t->beyond[X86], BX_SECCOMP_DENY, 1, SECCOMP_RET_KILL_PROCESS),
       "arch check: out of range follows the arch");
    bx_seccomp_table_free(t);

    /* a branch on an argument: write(fd == 2) allowed, other fds ERRNO(1) */
    struct sock_filter args[] = {
        LD_ARCH,
        JEQ(AUDIT_ARCH_X86_64, 0, 6),
        LD_NR,
        JEQ(1, 0, 3),
        LD_ARG(0),
        JEQ(2, 1, 0),
        RET(ERRNO(1)),
        RET(SECCOMP_RET_ALLOW),
        RET(SECCOMP_RET_KILL_THREAD),
    };
    t = eval1(args, N(args));
    ok(t && t->nr[X64][1].verdict == BX_SECCOMP_DEPENDS &&
           t->nr[X64][1].actions == (BX_SECCOMP_ACT_ERRNO | BX_SECCOMP_ACT_ALLOW) &&
           !t->nr[X64][1].uniform,
       "args: write depends, with ERRNO and ALLOW");
    ok(t && is_entry(&t->nr[X64][0], BX_SECCOMP_ALLOW, 1, SECCOMP_RET_ALLOW) &&
           is_entry(&t->nr[X64][2], BX_SECCOMP_ALLOW, 1, SECCOMP_RET_ALLOW),
       "args: read and open are let through");
    ok(t && is_entry(&t->nr[X32][1], BX_SECCOMP_ALLOW, 1, SECCOMP_RET_ALLOW),
       "args: x32 write (0x40000001) is not write");
    ok(t && all_are(t, X86, BX_SECCOMP_DENY, 1, SECCOMP_RET_KILL_THREAD), "args: i386 killed");
    ok(t && sound(&(bx_seccomp_prog){args, N(args)}, 1, t, 3000), "args: sound");
    bx_seccomp_table_free(t);

    /* the same argument compared with itself both ways joins again: still exact elsewhere */
    struct sock_filter ip[] = {
        LD_NR,
        JEQ(39, 0, 3),
        LD(offsetof(struct seccomp_data, instruction_pointer)),
        BPF_JUMP(BPF_JMP | BPF_JGT | BPF_K, 0x1000, 1, 0),
        RET(SECCOMP_RET_TRAP | 7),
        RET(SECCOMP_RET_LOG),
    };
    t = eval1(ip, N(ip));
    ok(t && t->nr[X64][39].verdict == BX_SECCOMP_DEPENDS &&
           t->nr[X64][39].actions == (BX_SECCOMP_ACT_TRAP | BX_SECCOMP_ACT_LOG),
       "instruction pointer: getpid depends");
    ok(t && is_entry(&t->nr[X64][38], BX_SECCOMP_ALLOW, 1, SECCOMP_RET_LOG),
       "LOG counts as let through, recorded");
    ok(t && is_entry(&t->nr[X86][39], BX_SECCOMP_DEPENDS, 0, 0), "i386 39 too (no arch check)");
    bx_seccomp_table_free(t);

    /* jt/jf and ja */
    struct sock_filter jumps[] = {
        LD_NR,
        BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, 100, 0, 2), /* < 100: to 3 */
        BPF_JUMP(BPF_JMP | BPF_JGT | BPF_K, 199, 3, 0), /* >= 200: to 6 */
        BPF_STMT(BPF_JMP | BPF_JA, 1),                  /* 100..199: to 5 */
        RET(ERRNO(5)),                                  /* < 100 */
        BPF_STMT(BPF_JMP | BPF_JA, 1),
        RET(SECCOMP_RET_KILL_THREAD),
        RET(SECCOMP_RET_TRACE | 9),
    };
    /* pc3 (< 100 path lands at 3: JA 1 -> 5), wait: from 1 with jf=2 -> pc 4 */
    t = eval1(jumps, N(jumps));
    ok(t && is_entry(&t->nr[X64][99], BX_SECCOMP_DENY, 1, ERRNO(5)), "jumps: 99 -> errno(5)");
    ok(t && is_entry(&t->nr[X64][100], BX_SECCOMP_ALLOW, 1, SECCOMP_RET_TRACE | 9) &&
           is_entry(&t->nr[X64][199], BX_SECCOMP_ALLOW, 1, SECCOMP_RET_TRACE | 9),
       "jumps: 100..199 -> ja -> ja -> trace(9)");
    ok(t && is_entry(&t->nr[X64][200], BX_SECCOMP_DENY, 1, SECCOMP_RET_KILL_THREAD) &&
           is_entry(&t->nr[X64][1023], BX_SECCOMP_DENY, 1, SECCOMP_RET_KILL_THREAD),
       "jumps: >= 200 -> kill_thread");
    ok(t && is_entry(&t->beyond[X64], BX_SECCOMP_DENY, 1, SECCOMP_RET_KILL_THREAD),
       "jumps: out of range -> kill_thread");
    ok(t && sound(&(bx_seccomp_prog){jumps, N(jumps)}, 1, t, 2000), "jumps: sound");
    bx_seccomp_table_free(t);

    /* a constant compared with the number in X: c >= nr, c > nr */
    struct sock_filter rev[] = {
        LD_NR,
        BPF_STMT(BPF_MISC | BPF_TAX, 0),
        BPF_STMT(BPF_LD | BPF_IMM, 100),
        BPF_JUMP(BPF_JMP | BPF_JGE | BPF_X, 0, 0, 1), /* 100 >= nr */
        RET(ERRNO(7)),
        BPF_STMT(BPF_LD | BPF_IMM, 300),
        BPF_JUMP(BPF_JMP | BPF_JGT | BPF_X, 0, 0, 1), /* 300 > nr */
        RET(ERRNO(8)),
        RET(SECCOMP_RET_ALLOW),
    };
    t = eval1(rev, N(rev));
    ok(t && is_entry(&t->nr[X64][100], BX_SECCOMP_DENY, 1, ERRNO(7)) &&
           is_entry(&t->nr[X64][0], BX_SECCOMP_DENY, 1, ERRNO(7)),
       "c >= nr: 0 .. 100 exactly");
    ok(t && is_entry(&t->nr[X64][101], BX_SECCOMP_DENY, 1, ERRNO(8)) &&
           is_entry(&t->nr[X64][299], BX_SECCOMP_DENY, 1, ERRNO(8)),
       "c > nr: 101 .. 299 exactly");
    ok(t && is_entry(&t->nr[X64][300], BX_SECCOMP_ALLOW, 1, SECCOMP_RET_ALLOW) &&
           is_entry(&t->beyond[X64], BX_SECCOMP_ALLOW, 1, SECCOMP_RET_ALLOW),
       "300 and above allowed, out of range too");
    ok(t && sound(&(bx_seccomp_prog){rev, N(rev)}, 1, t, 2000), "reversed comparisons: sound");
    bx_seccomp_table_free(t);

    /* scratch memory and X */
    struct sock_filter mem[] = {
        LD_NR,
        BPF_STMT(BPF_ST, 3),
        BPF_STMT(BPF_LDX | BPF_IMM, 59),
        BPF_STMT(BPF_LD | BPF_IMM, 0),
        BPF_STMT(BPF_LD | BPF_MEM, 3),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_X, 0, 0, 1), /* A == X (59, execve) */
        RET(SECCOMP_RET_KILL_PROCESS),
        BPF_STMT(BPF_STX, 5),
        BPF_STMT(BPF_LDX | BPF_MEM, 3),
        BPF_STMT(BPF_MISC | BPF_TXA, 0),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 322, 0, 1), /* execveat */
        RET(ERRNO(1)),
        BPF_STMT(BPF_LD | BPF_MEM, 5),
        BPF_STMT(BPF_MISC | BPF_TAX, 0),
        BPF_STMT(BPF_MISC | BPF_TXA, 0),
        BPF_STMT(BPF_RET | BPF_A, 0), /* 59: ALLOW would be 0x3b: kill_thread data */
    };
    t = eval1(mem, N(mem));
    ok(t && is_entry(&t->nr[X64][59], BX_SECCOMP_DENY, 1, SECCOMP_RET_KILL_PROCESS),
       "scratch memory and X: execve killed");
    ok(t && is_entry(&t->nr[X64][322], BX_SECCOMP_DENY, 1, ERRNO(1)), "execveat errno(1)");
    ok(t && is_entry(&t->nr[X64][0], BX_SECCOMP_DENY, 1, 59), "others return M[5] = X = 59");
    ok(t && sound(&(bx_seccomp_prog){mem, N(mem)}, 1, t, 2000), "memory: sound");
    bx_seccomp_table_free(t);

    /* ALU on the number: RET A of computed values, exact per number */
    struct sock_filter alu[] = {
        LD_NR,
        BPF_STMT(BPF_ALU | BPF_AND | BPF_K, 0xff),
        BPF_STMT(BPF_ALU | BPF_ADD | BPF_K, 3),
        BPF_STMT(BPF_ALU | BPF_SUB | BPF_K, 1),
        BPF_STMT(BPF_ALU | BPF_MUL | BPF_K, 4),
        BPF_STMT(BPF_ALU | BPF_DIV | BPF_K, 2),
        BPF_STMT(BPF_ALU | BPF_LSH | BPF_K, 4),
        BPF_STMT(BPF_ALU | BPF_RSH | BPF_K, 4),
        BPF_STMT(BPF_ALU | BPF_XOR | BPF_K, 1),
        BPF_STMT(BPF_ALU | BPF_NEG, 0),
        BPF_STMT(BPF_ALU | BPF_NEG, 0),
        BPF_STMT(BPF_LDX | BPF_IMM, 0x00050000),
        BPF_STMT(BPF_ALU | BPF_OR | BPF_X, 0),
        BPF_STMT(BPF_RET | BPF_A, 0), /* ERRNO((((n & 0xff) + 2) * 2) ^ 1) */
    };
    t = eval1(alu, N(alu));
    int alu_ok = t != NULL;
    for (unsigned n = 0; alu_ok && n < BX_SECCOMP_NR_COUNT; n++)
        alu_ok = is_entry(&t->nr[X64][n], BX_SECCOMP_DENY, 1, ERRNO((((n & 0xff) + 2) * 2) ^ 1)) &&
                 is_entry(&t->nr[X32][n], BX_SECCOMP_DENY, 1, ERRNO((((n & 0xff) + 2) * 2) ^ 1));
    ok(alu_ok, "ALU ops on the number: errno computed per number, every one exact");
    ok(t && t->beyond[X64].verdict == BX_SECCOMP_DEPENDS && !t->beyond[X64].uniform,
       "ALU: out of range, where the number is no single value, is conservative (depends)");
    ok(t && sound(&(bx_seccomp_prog){alu, N(alu)}, 1, t, 2000), "ALU: sound");
    bx_seccomp_table_free(t);

    /* division by X == 0 returns 0 (kill_thread) */
    struct sock_filter dz[] = {
        LD_NR,
        BPF_STMT(BPF_LDX | BPF_IMM, 0),
        BPF_STMT(BPF_ALU | BPF_DIV | BPF_X, 0),
        RET(SECCOMP_RET_ALLOW),
    };
    t = eval1(dz, N(dz));
    ok(t && all_are(t, -1, BX_SECCOMP_DENY, 1, SECCOMP_RET_KILL_THREAD), "A / 0 ends with 0");
    bx_seccomp_table_free(t);
    struct sock_filter dzarg[] = {
        LD_ARG(1),
        BPF_STMT(BPF_MISC | BPF_TAX, 0),
        LD_NR,
        BPF_STMT(BPF_ALU | BPF_DIV | BPF_X, 0),
        RET(SECCOMP_RET_ALLOW),
    };
    t = eval1(dzarg, N(dzarg));
    ok(t && all_are(t, -1, BX_SECCOMP_DEPENDS, 0, 0),
       "A / argument: depends (the argument may be 0)");
    bx_seccomp_table_free(t);

    /* RET A of an argument: anything */
    struct sock_filter reta[] = {LD_ARG(2), BPF_STMT(BPF_RET | BPF_A, 0)};
    t = eval1(reta, N(reta));
    ok(t && all_are(t, -1, BX_SECCOMP_DEPENDS, 0, 0), "RET A of an argument depends");
    ok(t && t->nr[X64][0].actions == 0x1ff, "and may be any action");
    bx_seccomp_table_free(t);

    /* the x32 bit */
    struct sock_filter x32[] = {
        LD_ARCH,        JEQ(AUDIT_ARCH_X86_64, 0, 3),
        LD_NR,          BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, 0x40000000, 0, 1),
        RET(ERRNO(38)), RET(SECCOMP_RET_ALLOW),
    };
    t = eval1(x32, N(x32));
    ok(t && all_are(t, X64, BX_SECCOMP_ALLOW, 1, SECCOMP_RET_ALLOW), "x32 bit: x86_64 allowed");
    ok(t && all_are(t, X32, BX_SECCOMP_DENY, 1, ERRNO(38)), "x32 bit: every x32 number errno(38)");
    ok(t && all_are(t, X86, BX_SECCOMP_ALLOW, 1, SECCOMP_RET_ALLOW), "x32 bit: i386 allowed");
    ok(t && t->beyond[X64].verdict == BX_SECCOMP_DEPENDS,
       "x32 bit: out of range depends on the number");
    bx_seccomp_table_free(t);
    struct sock_filter x32ge[] = {
        LD_NR,
        BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, 0x40000000, 0, 1),
        RET(SECCOMP_RET_KILL_PROCESS),
        RET(SECCOMP_RET_ALLOW),
    };
    t = eval1(x32ge, N(x32ge));
    ok(t && all_are(t, X32, BX_SECCOMP_DENY, 1, SECCOMP_RET_KILL_PROCESS) &&
           all_are(t, X64, BX_SECCOMP_ALLOW, 1, SECCOMP_RET_ALLOW),
       "jge 0x40000000 separates x32");
    bx_seccomp_table_free(t);

    /* out-of-range default and other arches */
    struct sock_filter oor[] = {
        LD_ARCH,
        JEQ(AUDIT_ARCH_X86_64, 2, 0),
        JEQ(AUDIT_ARCH_I386, 1, 0),
        RET(ERRNO(95)),
        LD_NR,
        JEQ(0x40000000 + 1023, 3, 0),
        BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, 1024, 0, 1),
        RET(ERRNO(38)),
        RET(SECCOMP_RET_ALLOW),
        RET(SECCOMP_RET_KILL_PROCESS),
    };
    t = eval1(oor, N(oor));
    ok(t && is_entry(&t->beyond[X64], BX_SECCOMP_DENY, 1, ERRNO(38)) &&
           is_entry(&t->beyond[X32], BX_SECCOMP_DENY, 1, ERRNO(38)),
       "out of range: x86_64 and x32 (one arch) errno(38)");
    ok(t && is_entry(&t->beyond[X86], BX_SECCOMP_DENY, 0, 0) &&
           t->beyond[X86].actions == (BX_SECCOMP_ACT_ERRNO | BX_SECCOMP_ACT_KILL_PROCESS),
       "out of range on i386 holds 0x400003ff too: errno(38) and kill_process");
    ok(t && is_entry(&t->nr[X32][0], BX_SECCOMP_DENY, 1, ERRNO(38)) &&
           is_entry(&t->nr[X32][1023], BX_SECCOMP_DENY, 1, SECCOMP_RET_KILL_PROCESS),
       "x32 numbers are >= 1024 as values");
    ok(t && is_entry(&t->other_arch, BX_SECCOMP_DENY, 1, ERRNO(95)), "other arches errno(95)");
    ok(t && sound(&(bx_seccomp_prog){oor, N(oor)}, 1, t, 3000), "out of range: sound");
    bx_seccomp_table_free(t);

    /* unknown action values kill the process */
    struct sock_filter unk[] = {RET(0x00060000u)};
    t = eval1(unk, N(unk));
    ok(t && all_are(t, -1, BX_SECCOMP_DENY, 1, 0x00060000u) &&
           t->nr[0][0].actions == BX_SECCOMP_ACT_UNKNOWN,
       "an undefined action is a deny");
    bx_seccomp_table_free(t);
    struct sock_filter hi[] = {RET(0x7ffd0000u)};
    t = eval1(hi, N(hi));
    ok(t && all_are(t, -1, BX_SECCOMP_DENY, 1, 0x7ffd0000u), "also between LOG and ALLOW");
    bx_seccomp_table_free(t);

    /* chains: the kernel's precedence, ties to the newest */
    static const uint32_t order[] = {
        SECCOMP_RET_KILL_PROCESS, SECCOMP_RET_KILL_THREAD, SECCOMP_RET_TRAP | 1, ERRNO(1),
        SECCOMP_RET_USER_NOTIF,   SECCOMP_RET_TRACE | 1,   SECCOMP_RET_LOG,      SECCOMP_RET_ALLOW};
    int prec_ok = 1;
    for (size_t i = 0; i < N(order); i++) {
        for (size_t j = 0; j < N(order); j++) {
            struct sock_filter f0[] = {RET(order[i])}, f1[] = {RET(order[j])};
            bx_seccomp_prog c[2] = {{f0, 1}, {f1, 1}};
            t = eval_chain(c, 2);
            uint32_t want = order[i < j ? i : j];
            if (i == j)
                want = order[j];
            prec_ok = prec_ok && t && is_entry(&t->nr[X64][5], t->nr[X64][5].verdict, 1, want);
            bx_seccomp_table_free(t);
        }
    }
    ok(prec_ok,
       "chains: KILL_PROCESS > KILL_THREAD > TRAP > ERRNO > USER_NOTIF > TRACE > LOG > ALLOW");
    struct sock_filter e1[] = {RET(ERRNO(1))}, e2[] = {RET(ERRNO(2))};
    bx_seccomp_prog ties[2] = {{e1, 1}, {e2, 1}};
    t = eval_chain(ties, 2);
    ok(t && is_entry(&t->nr[X64][0], BX_SECCOMP_DENY, 1, ERRNO(2)),
       "chains: a tie keeps the newest filter's data");
    bx_seccomp_table_free(t);

    /* a chain of two filters, the second stricter */
    struct sock_filter second[] = {
        LD_NR,
        JEQ(2, 0, 1), /* open */
        RET(ERRNO(13)),
        RET(SECCOMP_RET_ALLOW),
    };
    bx_seccomp_prog two[2] = {{args, N(args)}, {second, N(second)}};
    t = eval_chain(two, 2);
    ok(t && is_entry(&t->nr[X64][2], BX_SECCOMP_DENY, 1, ERRNO(13)),
       "chain: open denied by the second");
    ok(t && t->nr[X64][1].verdict == BX_SECCOMP_DEPENDS, "chain: write still depends (first)");
    ok(t && is_entry(&t->nr[X86][2], BX_SECCOMP_DENY, 1, SECCOMP_RET_KILL_THREAD),
       "chain: i386 open kill_thread (the first is stricter there)");
    ok(t && t->filters == 2 && t->insns == N(args) + N(second), "chain size recorded");
    ok(t && sound(two, 2, t, 3000), "chain: sound");
    bx_seccomp_table_free(t);
    /* the second stricter on what the first allows, with arguments on both sides */
    struct sock_filter argdeny[] = {LD_ARG(0), JEQ(7, 0, 1), RET(SECCOMP_RET_TRAP),
                                    RET(SECCOMP_RET_ALLOW)};
    bx_seccomp_prog two2[2] = {{args, N(args)}, {argdeny, N(argdeny)}};
    t = eval_chain(two2, 2);
    ok(t && is_entry(&t->nr[X64][1], BX_SECCOMP_DEPENDS, 0, 0) &&
           t->nr[X64][1].actions ==
               (BX_SECCOMP_ACT_ERRNO | BX_SECCOMP_ACT_ALLOW | BX_SECCOMP_ACT_TRAP),
       "chain: the strictest of both per argument value");
    ok(t && sound(two2, 2, t, 3000), "chain with arguments: sound");
    bx_seccomp_table_free(t);

    /* invalid programs are errors, not verdicts */
    struct sock_filter bad[] = {LD(64), RET(SECCOMP_RET_ALLOW)};
    bx_seccomp_prog pb = {bad, N(bad)};
    is_int(bx_seccomp_eval(&pb, 1, 0, &t, &err), BX_EINVAL, "a load beyond seccomp_data: error");
    ok(t == NULL, "no table");
    struct sock_filter bad2[] = {LD_NR, JEQ(1, 5, 0), RET(SECCOMP_RET_ALLOW)};
    pb = (bx_seccomp_prog){bad2, N(bad2)};
    is_int(bx_seccomp_eval(&pb, 1, 0, &t, &err), BX_EINVAL, "an out-of-range jump: error");

    /* the cache: same chain, same table, keyed by the chain's SHA-256 */
    bx_seccomp_prog pa = {args, N(args)};
    bx_seccomp_table *c1 = NULL, *c2 = NULL, *c3 = NULL;
    unsigned char sha[32];
    bx_seccomp_cache_clear();
    ok_err(bx_seccomp_eval(&pa, 1, 0, &c1, &err), &err, "cached evaluation");
    ok_err(bx_seccomp_eval(&pa, 1, 0, &c2, &err), &err, "from the cache");
    ok_err(bx_seccomp_eval(&pa, 1, BX_SECCOMP_NOCACHE, &c3, &err), &err, "without the cache");
    bx_seccomp_chain_sha256(&pa, 1, sha);
    ok(c1 && c2 && c3 && memcmp(c1, c2, sizeof *c1) == 0 && memcmp(c1, c3, sizeof *c1) == 0 &&
           memcmp(c1->sha256, sha, 32) == 0,
       "identical tables, with the chain's digest");
    bx_seccomp_table_free(c1);
    bx_seccomp_table_free(c2);
    bx_seccomp_table_free(c3);

    /* names from libseccomp; unknown numbers kept by number */
    is_str(bx_seccomp_syscall_name(X64, 0), "read", "x86_64 0 is read");
    is_str(bx_seccomp_syscall_name(X32, 0), "read", "x32 0 is read");
    is_str(bx_seccomp_syscall_name(X86, 11), "execve", "i386 11 is execve");
    ok(bx_seccomp_syscall_name(X64, 1000) == NULL, "x86_64 1000 has no name");
    t = eval1(allow, N(allow));
    json_t *j = t ? bx_seccomp_table_json(t) : NULL;
    json_t *lst = json_object_get(json_object_get(json_object_get(j, "abis"), "x86_64"), "allow");
    ok(json_array_size(lst) == BX_SECCOMP_NR_COUNT, "the JSON lists all 1024 x86_64 numbers");
    json_t *last = json_array_get(lst, 1000);
    ok(json_integer_value(json_object_get(last, "nr")) == 1000 &&
           json_is_null(json_object_get(last, "name")),
       "a number without a name is kept, name null");
    json_decref(j);
    bx_seccomp_table_free(t);

    /* random programs: the table admits every concrete run */
    int rand_ok = 1, valid = 0;
    struct sock_filter rp[64];
    for (int i = 0; i < 1500 && rand_ok; i++) {
        size_t len = 2 + rnd() % 62;
        random_prog(rp, len);
        if (bx_seccomp_check(rp, len, &err) != 0)
            continue;
        valid++;
        bx_seccomp_prog c[2] = {{rp, len}, {second, N(second)}};
        size_t n = 1 + (rnd() % 3 == 0);
        t = eval_chain(c, n);
        rand_ok = t && sound(c, n, t, 200);
        if (!rand_ok)
            for (size_t pc = 0; pc < len; pc++)
                printf("#   %zu: {0x%04x, %u, %u, 0x%x}\n", pc, rp[pc].code, rp[pc].jt, rp[pc].jf,
                       rp[pc].k);
        bx_seccomp_table_free(t);
    }
    ok(rand_ok && valid > 300, "%d random programs: every concrete run admitted", valid);

    /* the worst case: 4096 instructions that split on arguments into distinct states
     * (scratch cells set differently on each side, read at the end), compute on the
     * number into per-number tables, and compare the number with hundreds of constants */
    struct sock_filter *w = calloc(4096, sizeof *w);
    size_t pc = 0;
    w[pc++] = (struct sock_filter)LD_NR;
    w[pc++] = (struct sock_filter)BPF_STMT(BPF_ST, 15);
    for (uint32_t i = 0; pc < 4096 - 40; i++) {
        uint32_t cell = i % 15;
        w[pc++] = (struct sock_filter)LD_ARG(pc % 6);
        w[pc++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, 1u << (pc % 32), 0, 2);
        w[pc++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_MEM, 15);
        w[pc++] = (struct sock_filter)BPF_STMT(BPF_JMP | BPF_JA, 1);
        w[pc++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_IMM, (uint32_t)pc);
        w[pc++] = (struct sock_filter)BPF_STMT(BPF_ALU | BPF_MUL | BPF_K, 3 + (uint32_t)pc);
        w[pc++] = (struct sock_filter)BPF_STMT(BPF_ST, cell);
        w[pc++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_MEM, 15);
        w[pc++] =
            (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (uint32_t)pc % 1024, 0, 1);
        w[pc++] = (struct sock_filter)RET(ERRNO((uint32_t)pc % 4096));
    }
    for (uint32_t c = 0; c < 15; c++) {
        w[pc++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_MEM, c);
        w[pc++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JGT | BPF_K, 0x1000 * c, 0, 1);
    }
    while (pc < 4095)
        w[pc++] = (struct sock_filter)BPF_STMT(BPF_ALU | BPF_ADD | BPF_K, 1);
    w[pc++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_A, 0);
    /* the cells written on every path before the final reads: each loop body writes its cell
     * on both sides; cells not covered by the loop are written here */
    pb = (bx_seccomp_prog){w, 4096};
    int wrc = bx_seccomp_check(w, 4096, &err);
    ok_err(wrc, &err, "the worst-case program is valid");
    double t0 = now();
    t = wrc == 0 ? eval_chain(&pb, 1) : NULL;
    double dt = now() - t0;
    bxsc_stats st = bxsc_last_stats;
    printf("# worst case: %.1f ms, %zu states at most, %zu joins widened, %zu element steps, "
           "%zu KiB at most\n",
           dt * 1e3, st.states_max, st.widened, st.elem_steps, st.bytes_max / 1024);
    /* the bound is on the work, not the clock (times are for bench/): the element steps
     * stay within the per-pass budget, counted over every pass */
    ok(t != NULL && st.elem_steps <= (size_t)BXSC_ELEM_BUDGET * 4,
       "4096 instructions evaluated within the work bound (%zu element steps)", st.elem_steps);
    ok(st.states_max <= BXSC_LIVE_MAX + 4096 * 2 && st.bytes_max < 256u << 20,
       "within the state and memory bounds");
    ok(t && sound(&pb, 1, t, 3000), "worst case: sound");
    bx_seccomp_table_free(t);
    /* the longest chain the kernel takes: 7 filters of 4096 */
    bx_seccomp_prog seven[7];
    for (int i = 0; i < 7; i++)
        seven[i] = pb;
    t0 = now();
    t = eval_chain(seven, 7);
    dt = now() - t0;
    printf("# 7 x 4096: %.1f ms\n", dt * 1e3);
    ok(t != NULL, "a chain of 7 worst cases (%.3f s)", dt);
    bx_seccomp_table_free(t);
    free(w);
    bx_seccomp_cache_clear();
    return tap_done();
}
