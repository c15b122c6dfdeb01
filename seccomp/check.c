/* SPDX-License-Identifier: Apache-2.0 */
/* The kernel's checks of a seccomp program (net/core/filter.c bpf_check_classic and
 * check_load_and_stores, kernel/seccomp.c seccomp_check_filter and the chain length of
 * seccomp_attach_filter), in the order the kernel runs them. */
#include "seccomp_internal.h"

#include <stdio.h>
#include <string.h>

/* Opcodes classic BPF knows (chk_code_allowed): seccomp refuses some of them later. */
static int classic_code_allowed(uint16_t code)
{
    switch (code) {
    case BPF_ALU | BPF_ADD | BPF_K:
    case BPF_ALU | BPF_ADD | BPF_X:
    case BPF_ALU | BPF_SUB | BPF_K:
    case BPF_ALU | BPF_SUB | BPF_X:
    case BPF_ALU | BPF_MUL | BPF_K:
    case BPF_ALU | BPF_MUL | BPF_X:
    case BPF_ALU | BPF_DIV | BPF_K:
    case BPF_ALU | BPF_DIV | BPF_X:
    case BPF_ALU | BPF_MOD | BPF_K:
    case BPF_ALU | BPF_MOD | BPF_X:
    case BPF_ALU | BPF_AND | BPF_K:
    case BPF_ALU | BPF_AND | BPF_X:
    case BPF_ALU | BPF_OR | BPF_K:
    case BPF_ALU | BPF_OR | BPF_X:
    case BPF_ALU | BPF_XOR | BPF_K:
    case BPF_ALU | BPF_XOR | BPF_X:
    case BPF_ALU | BPF_LSH | BPF_K:
    case BPF_ALU | BPF_LSH | BPF_X:
    case BPF_ALU | BPF_RSH | BPF_K:
    case BPF_ALU | BPF_RSH | BPF_X:
    case BPF_ALU | BPF_NEG:
    case BPF_LD | BPF_W | BPF_ABS:
    case BPF_LD | BPF_H | BPF_ABS:
    case BPF_LD | BPF_B | BPF_ABS:
    case BPF_LD | BPF_W | BPF_LEN:
    case BPF_LD | BPF_W | BPF_IND:
    case BPF_LD | BPF_H | BPF_IND:
    case BPF_LD | BPF_B | BPF_IND:
    case BPF_LD | BPF_IMM:
    case BPF_LD | BPF_MEM:
    case BPF_LDX | BPF_W | BPF_LEN:
    case BPF_LDX | BPF_B | BPF_MSH:
    case BPF_LDX | BPF_IMM:
    case BPF_LDX | BPF_MEM:
    case BPF_ST:
    case BPF_STX:
    case BPF_MISC | BPF_TAX:
    case BPF_MISC | BPF_TXA:
    case BPF_RET | BPF_K:
    case BPF_RET | BPF_A:
    case BPF_JMP | BPF_JA:
    case BPF_JMP | BPF_JEQ | BPF_K:
    case BPF_JMP | BPF_JEQ | BPF_X:
    case BPF_JMP | BPF_JGE | BPF_K:
    case BPF_JMP | BPF_JGE | BPF_X:
    case BPF_JMP | BPF_JGT | BPF_K:
    case BPF_JMP | BPF_JGT | BPF_X:
    case BPF_JMP | BPF_JSET | BPF_K:
    case BPF_JMP | BPF_JSET | BPF_X:
        return 1;
    }
    return 0;
}

static int is_cond_jump(uint16_t code)
{
    return BPF_CLASS(code) == BPF_JMP && BPF_OP(code) != BPF_JA;
}

/* Every scratch cell read is written before on every path (check_load_and_stores). */
static int check_mem(const struct sock_filter *f, size_t len, bx_error *err)
{
    uint16_t masks[BX_SECCOMP_MAXINSNS], memvalid = 0;

    memset(masks, 0xff, len * sizeof masks[0]);
    for (size_t pc = 0; pc < len; pc++) {
        memvalid &= masks[pc];
        switch (f[pc].code) {
        case BPF_ST:
        case BPF_STX:
            memvalid |= (uint16_t)(1u << f[pc].k);
            break;
        case BPF_LD | BPF_MEM:
        case BPF_LDX | BPF_MEM:
            if (!(memvalid & (1u << f[pc].k)))
                return bx_error_set(err, BX_EINVAL, NULL,
                                    "insn %zu: scratch cell M[%u] read before it is written", pc,
                                    f[pc].k);
            break;
        case BPF_JMP | BPF_JA:
            masks[pc + 1 + f[pc].k] &= memvalid;
            memvalid = 0xffff;
            break;
        default:
            if (is_cond_jump(f[pc].code)) {
                masks[pc + 1 + f[pc].jt] &= memvalid;
                masks[pc + 1 + f[pc].jf] &= memvalid;
                memvalid = 0xffff;
            }
        }
    }
    return 0;
}

static int check_classic(const struct sock_filter *f, size_t len, bx_error *err)
{
    for (size_t pc = 0; pc < len; pc++) {
        const struct sock_filter *t = &f[pc];

        if (!classic_code_allowed(t->code))
            return bx_error_set(err, BX_EINVAL, NULL, "insn %zu: unknown opcode 0x%04x", pc,
                                t->code);
        switch (t->code) {
        case BPF_ALU | BPF_DIV | BPF_K:
        case BPF_ALU | BPF_MOD | BPF_K:
            if (t->k == 0)
                return bx_error_set(err, BX_EINVAL, NULL, "insn %zu: division by constant 0", pc);
            break;
        case BPF_ALU | BPF_LSH | BPF_K:
        case BPF_ALU | BPF_RSH | BPF_K:
            if (t->k >= 32)
                return bx_error_set(err, BX_EINVAL, NULL, "insn %zu: shift by %u", pc, t->k);
            break;
        case BPF_LD | BPF_MEM:
        case BPF_LDX | BPF_MEM:
        case BPF_ST:
        case BPF_STX:
            if (t->k >= BXSC_MEMWORDS)
                return bx_error_set(err, BX_EINVAL, NULL, "insn %zu: scratch cell %u", pc, t->k);
            break;
        case BPF_JMP | BPF_JA:
            if (t->k >= (uint32_t)(len - pc - 1))
                return bx_error_set(err, BX_EINVAL, NULL, "insn %zu: jump by %u past the end", pc,
                                    t->k);
            break;
        case BPF_LD | BPF_W | BPF_ABS:
        case BPF_LD | BPF_H | BPF_ABS:
        case BPF_LD | BPF_B | BPF_ABS:
            /* Ancillary loads (k >= SKF_AD_OFF) mean nothing to seccomp, which refuses
             * every absolute load outside struct seccomp_data below. */
            break;
        default:
            if (is_cond_jump(t->code) && (pc + t->jt + 1 >= len || pc + t->jf + 1 >= len))
                return bx_error_set(err, BX_EINVAL, NULL, "insn %zu: jump past the end", pc);
        }
    }
    uint16_t last = f[len - 1].code;
    if (last != (BPF_RET | BPF_K) && last != (BPF_RET | BPF_A))
        return bx_error_set(err, BX_EINVAL, NULL, "insn %zu: the last instruction is not a RET",
                            len - 1);
    return check_mem(f, len, err);
}

static int check_seccomp(const struct sock_filter *f, size_t len, bx_error *err)
{
    for (size_t pc = 0; pc < len; pc++) {
        uint16_t code = f[pc].code;
        uint32_t k = f[pc].k;

        switch (code) {
        case BPF_LD | BPF_W | BPF_ABS:
            if (k >= sizeof(struct seccomp_data) || (k & 3))
                return bx_error_set(err, BX_EINVAL, NULL,
                                    "insn %zu: load of offset %u: not an aligned word of "
                                    "struct seccomp_data",
                                    pc, k);
            continue;
        case BPF_LD | BPF_W | BPF_LEN:
        case BPF_LDX | BPF_W | BPF_LEN:
        case BPF_RET | BPF_K:
        case BPF_RET | BPF_A:
        case BPF_ALU | BPF_ADD | BPF_K:
        case BPF_ALU | BPF_ADD | BPF_X:
        case BPF_ALU | BPF_SUB | BPF_K:
        case BPF_ALU | BPF_SUB | BPF_X:
        case BPF_ALU | BPF_MUL | BPF_K:
        case BPF_ALU | BPF_MUL | BPF_X:
        case BPF_ALU | BPF_DIV | BPF_K:
        case BPF_ALU | BPF_DIV | BPF_X:
        case BPF_ALU | BPF_AND | BPF_K:
        case BPF_ALU | BPF_AND | BPF_X:
        case BPF_ALU | BPF_OR | BPF_K:
        case BPF_ALU | BPF_OR | BPF_X:
        case BPF_ALU | BPF_XOR | BPF_K:
        case BPF_ALU | BPF_XOR | BPF_X:
        case BPF_ALU | BPF_LSH | BPF_K:
        case BPF_ALU | BPF_LSH | BPF_X:
        case BPF_ALU | BPF_RSH | BPF_K:
        case BPF_ALU | BPF_RSH | BPF_X:
        case BPF_ALU | BPF_NEG:
        case BPF_LD | BPF_IMM:
        case BPF_LDX | BPF_IMM:
        case BPF_MISC | BPF_TAX:
        case BPF_MISC | BPF_TXA:
        case BPF_LD | BPF_MEM:
        case BPF_LDX | BPF_MEM:
        case BPF_ST:
        case BPF_STX:
        case BPF_JMP | BPF_JA:
        case BPF_JMP | BPF_JEQ | BPF_K:
        case BPF_JMP | BPF_JEQ | BPF_X:
        case BPF_JMP | BPF_JGE | BPF_K:
        case BPF_JMP | BPF_JGE | BPF_X:
        case BPF_JMP | BPF_JGT | BPF_K:
        case BPF_JMP | BPF_JGT | BPF_X:
        case BPF_JMP | BPF_JSET | BPF_K:
        case BPF_JMP | BPF_JSET | BPF_X:
            continue;
        default:
            return bx_error_set(err, BX_EINVAL, NULL,
                                "insn %zu: opcode 0x%04x is not allowed in seccomp", pc, code);
        }
    }
    return 0;
}

int bx_seccomp_check(const struct sock_filter *insns, size_t len, bx_error *err)
{
    int rc;

    if (!insns || len == 0 || len > BX_SECCOMP_MAXINSNS)
        return bx_error_set(err, BX_EINVAL, NULL, "program length %zu: must be 1..%d", len,
                            BX_SECCOMP_MAXINSNS);
    if ((rc = check_classic(insns, len, err)) != 0)
        return rc;
    return check_seccomp(insns, len, err);
}

int bx_seccomp_check_chain(const bx_seccomp_prog *chain, size_t n, bx_error *err)
{
    size_t total = 0;

    if (!chain || n == 0)
        return bx_error_set(err, BX_EINVAL, NULL, "empty filter chain");
    for (size_t i = 0; i < n; i++) {
        int rc = bx_seccomp_check(chain[i].insns, chain[i].len, err);
        if (rc != 0) {
            if (err)
                snprintf(err->where, sizeof err->where, "filter %zu", i);
            return rc;
        }
        /* seccomp_attach_filter: the new filter's length plus every earlier one's + 4. */
        if (total + chain[i].len > BX_SECCOMP_MAX_INSNS_PER_PATH)
            return bx_error_set(err, BX_EINVAL, NULL,
                                "filter %zu: the chain's length %zu exceeds %d (the kernel "
                                "refuses it with ENOMEM)",
                                i, total + chain[i].len, BX_SECCOMP_MAX_INSNS_PER_PATH);
        total += chain[i].len + 4;
    }
    return 0;
}
