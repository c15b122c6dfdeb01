/* SPDX-License-Identifier: Apache-2.0 */
/* Which argument values of one syscall reach an allowing return: a path walk over each
 * filter with the number and arch fixed and the argument's two 32-bit halves kept as
 * constraints (docs/seccomp.md "Argument conditions"). */
#include "seccomp_internal.h"

#include <seccomp.h>
#include <string.h>

#define AR_STEP_BUDGET (1u << 20)

enum { S_UNK = 0, S_CONST = 1, S_ARG = 2 };

typedef struct {
    uint8_t kind;
    uint8_t half; /* S_ARG: 0 low, 1 high */
    uint32_t c;   /* S_CONST: the value; S_ARG: the mask ANDed into the half */
} sym;

typedef struct {
    uint32_t one, zero; /* bits known set, known clear */
    uint32_t lo, hi;    /* unsigned range */
} halfc;

typedef struct {
    sym a, x, m[BXSC_MEMWORDS];
    halfc h[2];
} state;

typedef struct {
    const struct sock_filter *insns;
    size_t len;
    uint32_t nr, arch, off_lo, off_hi, bits;
    size_t steps;
    int widened, reachable;
    uint32_t got;
} walk;

static int half_ok(const halfc *h)
{
    return (h->one & h->zero) == 0 && h->lo <= h->hi && h->one <= h->hi && ~h->zero >= h->lo;
}

/* Refine *h by "(x & mask) op k" being taken (t = 1) or not (t = 0). 0 when infeasible. */
static int refine(halfc *h, uint32_t mask, unsigned op, uint32_t k, int t)
{
    uint32_t vmin = h->one & mask, vmax = ~h->zero & mask;
    if (mask == 0xffffffffu) {
        if (h->lo > vmin)
            vmin = h->lo;
        if (h->hi < vmax)
            vmax = h->hi;
    }
    switch (op) {
    case BPF_JEQ:
        if (t) {
            if (k & ~mask)
                return 0;
            h->one |= k;
            h->zero |= mask & ~k;
            if (mask == 0xffffffffu) {
                h->lo = h->lo > k ? h->lo : k;
                h->hi = h->hi < k ? h->hi : k;
            }
        } else {
            /* (x & mask) != k: decided once at most one bit of mask is unknown */
            uint32_t unk = mask & ~(h->one | h->zero), known = mask & ~unk;
            if ((k & ~mask) == 0 && (h->one & known) == (k & known)) {
                if (unk == 0)
                    return 0;
                if ((unk & (unk - 1)) == 0) {
                    if (k & unk)
                        h->zero |= unk;
                    else
                        h->one |= unk;
                }
            }
        }
        if (!t && mask == 0xffffffffu && vmin == k && vmax == k)
            return 0;
        break;
    case BPF_JSET: {
        uint32_t tb = mask & k, free_ = tb & ~h->zero;
        if (t) {
            if (free_ == 0)
                return 0;
            if ((free_ & (free_ - 1)) == 0)
                h->one |= free_;
        } else {
            if (tb & h->one)
                return 0;
            h->zero |= tb;
        }
        break;
    }
    case BPF_JGT:
        if (t) {
            if (vmax <= k)
                return 0;
            if (mask == 0xffffffffu)
                h->lo = h->lo > k + 1 ? h->lo : k + 1;
        } else {
            if (vmin > k)
                return 0;
            if (mask == 0xffffffffu)
                h->hi = h->hi < k ? h->hi : k;
        }
        break;
    case BPF_JGE:
        if (t) {
            if (vmax < k)
                return 0;
            if (mask == 0xffffffffu)
                h->lo = h->lo > k ? h->lo : k;
        } else {
            if (vmin >= k)
                return 0;
            if (mask == 0xffffffffu)
                h->hi = h->hi < k - 1 ? h->hi : k - 1;
        }
        break;
    default:
        break;
    }
    return half_ok(h);
}

static void at_return(walk *w, const state *s, uint32_t ret, int ret_known)
{
    if (ret_known && !bxsc_ret_lets_through(ret))
        return;
    w->reachable = 1;
    for (unsigned b = 0; b < 32; b++) {
        uint32_t bit = 1u << b;
        if (!(w->bits & bit) || (w->got & bit))
            continue;
        halfc h = s->h[0];
        h.one |= bit;
        if (half_ok(&h))
            w->got |= bit;
    }
}

static sym operand(const state *s, const struct sock_filter *f)
{
    if (BPF_SRC(f->code) == BPF_X)
        return s->x;
    return (sym){S_CONST, 0, f->k};
}

static void run(walk *w, state s, size_t pc)
{
    while (pc < w->len) {
        if (w->widened)
            return;
        if (++w->steps > AR_STEP_BUDGET) {
            w->widened = 1;
            return;
        }
        const struct sock_filter *f = &w->insns[pc];
        switch (BPF_CLASS(f->code)) {
        case BPF_RET:
            if (BPF_RVAL(f->code) == BPF_A)
                at_return(w, &s, s.a.c, s.a.kind == S_CONST);
            else
                at_return(w, &s, f->k, 1);
            return;
        case BPF_LD:
            if (BPF_MODE(f->code) == BPF_ABS) {
                if (f->k == 0)
                    s.a = (sym){S_CONST, 0, w->nr};
                else if (f->k == 4)
                    s.a = (sym){S_CONST, 0, w->arch};
                else if (f->k == w->off_lo)
                    s.a = (sym){S_ARG, 0, 0xffffffffu};
                else if (f->k == w->off_hi)
                    s.a = (sym){S_ARG, 1, 0xffffffffu};
                else
                    s.a = (sym){S_UNK, 0, 0};
            } else if (BPF_MODE(f->code) == BPF_LEN) {
                s.a = (sym){S_CONST, 0, (uint32_t)sizeof(struct seccomp_data)};
            } else if (BPF_MODE(f->code) == BPF_IMM) {
                s.a = (sym){S_CONST, 0, f->k};
            } else if (BPF_MODE(f->code) == BPF_MEM && f->k < BXSC_MEMWORDS) {
                s.a = s.m[f->k];
            } else {
                s.a = (sym){S_UNK, 0, 0};
            }
            break;
        case BPF_LDX:
            if (BPF_MODE(f->code) == BPF_IMM)
                s.x = (sym){S_CONST, 0, f->k};
            else if (BPF_MODE(f->code) == BPF_LEN)
                s.x = (sym){S_CONST, 0, (uint32_t)sizeof(struct seccomp_data)};
            else if (BPF_MODE(f->code) == BPF_MEM && f->k < BXSC_MEMWORDS)
                s.x = s.m[f->k];
            else
                s.x = (sym){S_UNK, 0, 0};
            break;
        case BPF_ST:
            if (f->k < BXSC_MEMWORDS)
                s.m[f->k] = s.a;
            break;
        case BPF_STX:
            if (f->k < BXSC_MEMWORDS)
                s.m[f->k] = s.x;
            break;
        case BPF_ALU: {
            unsigned op = BPF_OP(f->code);
            sym b = operand(&s, f);
            if (op == BPF_NEG) {
                s.a =
                    s.a.kind == S_CONST ? (sym){S_CONST, 0, (uint32_t)-s.a.c} : (sym){S_UNK, 0, 0};
            } else if (s.a.kind == S_CONST && b.kind == S_CONST) {
                int divzero = 0;
                uint32_t v = bxsc_alu(op, s.a.c, b.c, &divzero);
                if (divzero) {
                    at_return(w, &s, 0, 1);
                    return;
                }
                s.a.c = v;
            } else if (s.a.kind == S_ARG && op == BPF_AND && b.kind == S_CONST) {
                s.a.c &= b.c;
            } else {
                s.a = (sym){S_UNK, 0, 0};
            }
            break;
        }
        case BPF_MISC:
            if (BPF_MISCOP(f->code) == BPF_TAX)
                s.x = s.a;
            else
                s.a = s.x;
            break;
        case BPF_JMP: {
            unsigned op = BPF_OP(f->code);
            if (op == BPF_JA) {
                pc += 1 + f->k;
                continue;
            }
            sym b = operand(&s, f);
            size_t pt = pc + 1 + f->jt, pf = pc + 1 + f->jf;
            if (s.a.kind == S_CONST && b.kind == S_CONST) {
                pc = bxsc_jmp(op, s.a.c, b.c) ? pt : pf;
                continue;
            }
            if (s.a.kind == S_ARG && b.kind == S_CONST) {
                state st = s, sf = s;
                int okt = refine(&st.h[s.a.half], s.a.c, op, b.c, 1);
                int okf = refine(&sf.h[s.a.half], s.a.c, op, b.c, 0);
                if (okt && okf) {
                    run(w, st, pt);
                    s = sf;
                    pc = pf;
                } else if (okt) {
                    s = st;
                    pc = pt;
                } else if (okf) {
                    s = sf;
                    pc = pf;
                } else {
                    return;
                }
                continue;
            }
            run(w, s, pt);
            pc = pf;
            continue;
        }
        default:
            return;
        }
        pc++;
    }
}

static int reach(const bx_seccomp_prog *chain, size_t n, size_t abi, const char *name,
                 unsigned argi, uint32_t bits, const halfc *low, bx_seccomp_argreach *out,
                 bx_error *err)
{
    const bx_seccomp_abi_info *ai = bx_seccomp_abi(abi);
    memset(out, 0, sizeof *out);
    if (!ai || !name || argi > 5)
        return bx_error_set(err, BX_EINVAL, "seccomp", "argument reach: bad ABI or argument");
    int nr = seccomp_syscall_resolve_name_arch(ai->scmp_arch, name);
    if (nr < 0)
        return bx_error_set(err, BX_ENOTFOUND, ai->name, "no syscall %s", name);
    uint32_t nrv = (uint32_t)nr;
    if (nrv < ai->nr_base)
        nrv += ai->nr_base;
    out->reachable = 1;
    out->bits = bits;
    for (size_t i = 0; i < n; i++) {
        walk w = {chain[i].insns,
                  chain[i].len,
                  nrv,
                  ai->audit_arch,
                  (uint32_t)(16 + 8 * argi),
                  (uint32_t)(20 + 8 * argi),
                  bits,
                  0,
                  0,
                  0,
                  0};
        state s;
        memset(&s, 0, sizeof s);
        s.h[0] = *low;
        s.h[1] = (halfc){0, 0, 0, 0xffffffffu};
        run(&w, s, 0);
        if (w.widened) {
            out->widened = 1;
            continue; /* this filter: every bit, reachable */
        }
        out->reachable &= w.reachable;
        out->bits &= w.got;
    }
    if (!out->reachable)
        out->bits = 0;
    return 0;
}

int bx_seccomp_arg_reach(const bx_seccomp_prog *chain, size_t n, size_t abi, const char *name,
                         unsigned argi, uint32_t bits, bx_seccomp_argreach *out, bx_error *err)
{
    halfc any = {0, 0, 0, 0xffffffffu};
    return reach(chain, n, abi, name, argi, bits, &any, out, err);
}

int bx_seccomp_arg_value_reach(const bx_seccomp_prog *chain, size_t n, size_t abi, const char *name,
                               unsigned argi, uint32_t value, int *reachable, bx_error *err)
{
    halfc exact = {value, ~value, value, value};
    bx_seccomp_argreach r;
    int rc = reach(chain, n, abi, name, argi, 0, &exact, &r, err);
    *reachable = rc == 0 ? r.reachable : 1;
    return rc;
}
