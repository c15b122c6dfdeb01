/* SPDX-License-Identifier: Apache-2.0 */
/* The seccomp evaluator on arbitrary chains: no crash, bounded time, and a sound table.
 * Input: byte 0 = flags (bits 0-2: filters - 1; bit 7: repair the instructions into a
 * program the kernel accepts), then per filter a 16-bit little-endian length (1 + n % 4096
 * instructions) and that many 8-byte struct sock_filter (fewer when the input ends). Every
 * table is checked against concrete runs of the chain on inputs drawn from the data. */
#include "bx_seccomp.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const uint16_t codes[] = {
    BPF_LD | BPF_W | BPF_ABS,
    BPF_LD | BPF_W | BPF_LEN,
    BPF_LDX | BPF_W | BPF_LEN,
    BPF_LD | BPF_IMM,
    BPF_LDX | BPF_IMM,
    BPF_LD | BPF_MEM,
    BPF_LDX | BPF_MEM,
    BPF_ST,
    BPF_STX,
    BPF_MISC | BPF_TAX,
    BPF_MISC | BPF_TXA,
    BPF_ALU | BPF_ADD | BPF_K,
    BPF_ALU | BPF_ADD | BPF_X,
    BPF_ALU | BPF_SUB | BPF_K,
    BPF_ALU | BPF_SUB | BPF_X,
    BPF_ALU | BPF_MUL | BPF_K,
    BPF_ALU | BPF_MUL | BPF_X,
    BPF_ALU | BPF_DIV | BPF_K,
    BPF_ALU | BPF_DIV | BPF_X,
    BPF_ALU | BPF_AND | BPF_K,
    BPF_ALU | BPF_AND | BPF_X,
    BPF_ALU | BPF_OR | BPF_K,
    BPF_ALU | BPF_OR | BPF_X,
    BPF_ALU | BPF_XOR | BPF_K,
    BPF_ALU | BPF_XOR | BPF_X,
    BPF_ALU | BPF_LSH | BPF_K,
    BPF_ALU | BPF_LSH | BPF_X,
    BPF_ALU | BPF_RSH | BPF_K,
    BPF_ALU | BPF_RSH | BPF_X,
    BPF_ALU | BPF_NEG,
    BPF_JMP | BPF_JA,
    BPF_JMP | BPF_JEQ | BPF_K,
    BPF_JMP | BPF_JEQ | BPF_X,
    BPF_JMP | BPF_JGE | BPF_K,
    BPF_JMP | BPF_JGE | BPF_X,
    BPF_JMP | BPF_JGT | BPF_K,
    BPF_JMP | BPF_JGT | BPF_X,
    BPF_JMP | BPF_JSET | BPF_K,
    BPF_JMP | BPF_JSET | BPF_X,
    BPF_RET | BPF_K,
    BPF_RET | BPF_A,
};

static void repair(struct sock_filter *f, size_t len)
{
    for (size_t pc = 0; pc < len; pc++) {
        struct sock_filter *t = &f[pc];
        size_t room = len - pc - 1;
        t->code = codes[t->code % (sizeof codes / sizeof codes[0])];
        if (t->code == (BPF_LD | BPF_W | BPF_ABS))
            t->k = (t->k % 16) * 4;
        else if (BPF_CLASS(t->code) == BPF_ST || BPF_CLASS(t->code) == BPF_STX ||
                 BPF_MODE(t->code) == BPF_MEM)
            t->k %= 16;
        else if (t->code == (BPF_ALU | BPF_LSH | BPF_K) || t->code == (BPF_ALU | BPF_RSH | BPF_K))
            t->k %= 32;
        else if (t->code == (BPF_ALU | BPF_DIV | BPF_K) && t->k == 0)
            t->k = 1;
        if (t->code == (BPF_JMP | BPF_JA))
            t->k = room ? t->k % room : 0;
        if (BPF_CLASS(t->code) == BPF_JMP && t->code != (BPF_JMP | BPF_JA)) {
            t->jt = (uint8_t)(room ? t->jt % (room < 256 ? room : 256) : 0);
            t->jf = (uint8_t)(room ? t->jf % (room < 256 ? room : 256) : 0);
        }
        if (room == 0 && BPF_CLASS(t->code) != BPF_RET)
            t->code = BPF_RET | BPF_K;
    }
    /* scratch cells read before written: each such load becomes a constant load */
    for (int tries = 0; tries < 64; tries++) {
        bx_error err = {0};
        size_t at;
        if (bx_seccomp_check(f, len, &err) == 0 || sscanf(err.msg, "insn %zu", &at) != 1 ||
            at >= len)
            return;
        f[at].code = BPF_LD | BPF_IMM;
    }
}

static uint64_t rng;
static uint32_t rnd(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (uint32_t)(rng >> 11);
}

static int lets(uint32_t ret)
{
    return (bx_seccomp_ret_action(ret) & (BX_SECCOMP_ACT_ALLOW | BX_SECCOMP_ACT_LOG |
                                          BX_SECCOMP_ACT_TRACE | BX_SECCOMP_ACT_USER_NOTIF)) != 0;
}

static void admit(const bx_seccomp_entry *e, uint32_t ret)
{
    if ((e->uniform && e->ret != ret) || !(e->actions & bx_seccomp_ret_action(ret)) ||
        (e->verdict == BX_SECCOMP_ALLOW && !lets(ret)) ||
        (e->verdict == BX_SECCOMP_DENY && lets(ret)))
        __builtin_trap();
}

static void well_formed(const bx_seccomp_entry *e)
{
    unsigned letbits = BX_SECCOMP_ACT_ALLOW | BX_SECCOMP_ACT_LOG | BX_SECCOMP_ACT_TRACE |
                       BX_SECCOMP_ACT_USER_NOTIF;
    if (e->verdict > BX_SECCOMP_DEPENDS || !e->actions ||
        (e->verdict == BX_SECCOMP_ALLOW && (e->actions & ~letbits)) ||
        (e->verdict == BX_SECCOMP_DENY && (e->actions & letbits)) ||
        (e->verdict == BX_SECCOMP_DEPENDS &&
         (!(e->actions & letbits) || !(e->actions & ~letbits))) ||
        (e->uniform && e->actions != bx_seccomp_ret_action(e->ret)))
        __builtin_trap();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    bx_seccomp_prog chain[8];
    struct sock_filter *progs[8] = {0};
    size_t n = 0, off = 1;
    bx_seccomp_table *t = NULL;
    bx_error err;

    if (size < 3)
        return 0;
    size_t want = 1 + (data[0] & 7u);
    int fix = data[0] & 0x80;
    while (n < want && off + 2 <= size) {
        size_t len = 1 + ((size_t)(data[off] | data[off + 1] << 8) % BX_SECCOMP_MAXINSNS);
        off += 2;
        if ((size - off) / 8 < len)
            len = (size - off) / 8;
        if (len == 0)
            break;
        progs[n] = malloc(len * sizeof *progs[n]);
        if (!progs[n])
            break;
        memcpy(progs[n], data + off, len * 8);
        off += len * 8;
        if (fix)
            repair(progs[n], len);
        chain[n] = (bx_seccomp_prog){progs[n], len};
        n++;
    }
    if (n == 0)
        goto out;
    int valid = bx_seccomp_check_chain(chain, n, &err) == 0;
    int rc = bx_seccomp_eval(chain, n, BX_SECCOMP_NOCACHE, &t, &err);
    if (valid != (rc == 0) && rc != BX_ENOMEM)
        __builtin_trap(); /* an accepted chain evaluates; a refused one is an error */
    if (rc != 0)
        goto out;
    for (size_t a = 0; a < BX_SECCOMP_NABI; a++) {
        for (size_t k = 0; k < BX_SECCOMP_NR_COUNT; k++)
            well_formed(&t->nr[a][k]);
        well_formed(&t->beyond[a]);
    }
    well_formed(&t->other_arch);
    /* concrete runs: the table admits each result */
    rng = 0x9e3779b97f4a7c15ull ^ size;
    for (size_t i = 0; i < size && i < 64; i++)
        rng = rng * 31 + data[i];
    rng |= 1;
    for (int s = 0; s < 64; s++) {
        struct seccomp_data sd;
        size_t a = rnd() % BX_SECCOMP_NABI;
        unsigned nr = rnd() % BX_SECCOMP_NR_COUNT;
        for (int i = 0; i < 6; i++)
            sd.args[i] = rnd() % 2 ? rnd() % 8 : ((uint64_t)rnd() << 32) | rnd();
        sd.instruction_pointer = ((uint64_t)rnd() << 32) | rnd();
        sd.arch = bx_seccomp_abi(a)->audit_arch;
        sd.nr = (int)(bx_seccomp_abi(a)->nr_base + nr);
        admit(&t->nr[a][nr], bx_seccomp_run(chain, n, &sd));
        sd.nr = (int)(1024 + rnd() % 0x3ffffc00u);
        admit(&t->beyond[a], bx_seccomp_run(chain, n, &sd));
    }
out:
    bx_seccomp_table_free(t);
    for (size_t i = 0; i < n; i++)
        free(progs[i]);
    return 0;
}
