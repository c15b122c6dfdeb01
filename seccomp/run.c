/* SPDX-License-Identifier: Apache-2.0 */
/* A concrete run of a checked chain, as the kernel's cBPF-to-eBPF translation executes it:
 * A and X start at 0, arithmetic is 32-bit, shifts by X use X & 31, a division by X == 0
 * ends the program with return value 0, and the filters' results combine as in
 * seccomp_run_filters. */
#include "seccomp_internal.h"

#include <string.h>

uint32_t bxsc_alu(unsigned op, uint32_t a, uint32_t b, int *divzero)
{
    switch (op) {
    case BPF_ADD:
        return a + b;
    case BPF_SUB:
        return a - b;
    case BPF_MUL:
        return a * b;
    case BPF_DIV:
        if (b == 0) {
            *divzero = 1;
            return 0;
        }
        return a / b;
    case BPF_MOD:
        if (b == 0) {
            *divzero = 1;
            return 0;
        }
        return a % b;
    case BPF_AND:
        return a & b;
    case BPF_OR:
        return a | b;
    case BPF_XOR:
        return a ^ b;
    case BPF_LSH:
        return a << (b & 31);
    case BPF_RSH:
        return a >> (b & 31);
    case BPF_NEG:
        return 0u - a;
    }
    return 0;
}

int bxsc_jmp(unsigned op, uint32_t a, uint32_t b)
{
    switch (op) {
    case BPF_JEQ:
        return a == b;
    case BPF_JGT:
        return a > b;
    case BPF_JGE:
        return a >= b;
    case BPF_JSET:
        return (a & b) != 0;
    }
    return 0;
}

static uint32_t load_word(const struct seccomp_data *sd, uint32_t k)
{
    uint32_t w;
    memcpy(&w, (const unsigned char *)sd + k, sizeof w);
    return w;
}

static uint32_t run_one(const struct sock_filter *f, size_t len, const struct seccomp_data *sd)
{
    uint32_t a = 0, x = 0, m[BXSC_MEMWORDS] = {0};

    for (size_t pc = 0; pc < len; pc++) {
        const struct sock_filter *t = &f[pc];
        uint32_t src = BPF_SRC(t->code) == BPF_X ? x : t->k;
        int divzero = 0;

        switch (BPF_CLASS(t->code)) {
        case BPF_LD:
            switch (BPF_MODE(t->code)) {
            case BPF_ABS:
                a = load_word(sd, t->k);
                break;
            case BPF_LEN:
                a = sizeof(struct seccomp_data);
                break;
            case BPF_IMM:
                a = t->k;
                break;
            case BPF_MEM:
                a = m[t->k];
                break;
            }
            break;
        case BPF_LDX:
            switch (BPF_MODE(t->code)) {
            case BPF_LEN:
                x = sizeof(struct seccomp_data);
                break;
            case BPF_IMM:
                x = t->k;
                break;
            case BPF_MEM:
                x = m[t->k];
                break;
            }
            break;
        case BPF_ST:
            m[t->k] = a;
            break;
        case BPF_STX:
            m[t->k] = x;
            break;
        case BPF_ALU:
            a = bxsc_alu(BPF_OP(t->code), a, src, &divzero);
            if (divzero)
                return 0;
            break;
        case BPF_JMP:
            if (BPF_OP(t->code) == BPF_JA)
                pc += t->k;
            else
                pc += bxsc_jmp(BPF_OP(t->code), a, src) ? t->jt : t->jf;
            break;
        case BPF_RET:
            return BPF_RVAL(t->code) == BPF_A ? a : t->k;
        case BPF_MISC:
            if (BPF_MISCOP(t->code) == BPF_TAX)
                x = a;
            else
                a = x;
            break;
        }
    }
    return 0; /* unreachable for a checked program */
}

uint32_t bx_seccomp_run(const bx_seccomp_prog *chain, size_t n, const struct seccomp_data *sd)
{
    uint32_t ret = SECCOMP_RET_ALLOW;

    /* Newest first; an older filter wins only when strictly stricter. */
    for (size_t i = n; i-- > 0;) {
        uint32_t cur = run_one(chain[i].insns, chain[i].len, sd);
        if (BXSC_AO(cur) < BXSC_AO(ret))
            ret = cur;
    }
    return ret;
}
