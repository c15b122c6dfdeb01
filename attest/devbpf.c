/* SPDX-License-Identifier: Apache-2.0 */
/* cgroup v2's device controller: the eBPF programs (BPF_CGROUP_DEVICE) in force on the
 * session's cgroup, read back from the kernel (BPF_PROG_QUERY with BPF_F_QUERY_EFFECTIVE,
 * BPF_OBJ_GET_INFO_BY_FD for the instructions as the kernel runs them), and an interpreter
 * of the instructions runc, crun and systemd emit: loads of the context (type and access,
 * major, minor), ALU on scalars, forward jumps, exit. An access is allowed only when every
 * program allows it. A program that does anything else (a call, a map, the stack, a backward
 * jump, arithmetic on a major or minor) cannot be interpreted: the caller records null.
 *
 * Every comparison of a major or minor is against a constant, so a program's verdict is the
 * same for every value between two consecutive constants of its jumps: evaluating it at each
 * constant, each constant + 1 and 0 (within the kernel's 12-bit majors and 20-bit minors),
 * for both types and the 7 non-empty accesses, decides every device. */
#include "attest_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/bpf.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#define MAJOR_MAX 4095u    /* MAJOR(dev) is 12 bits */
#define MINOR_MAX 1048575u /* MINOR(dev) is 20 bits */
#define STEPS_MAX 200000000ULL

void bxa_devbpf_free(bxa_devprogs *p)
{
    if (!p)
        return;
    for (size_t i = 0; i < p->n; i++)
        free(p->insns[i]);
    free(p->insns);
    free(p->len);
    free(p);
}

/* ---- the interpreter ----------------------------------------------------------------------- */

enum { T_NONE = 0, T_SCALAR, T_MAJOR, T_MINOR, T_CTX };

#define REFUSE(...)                                                                                \
    do {                                                                                           \
        if (why)                                                                                   \
            snprintf(why, whylen, __VA_ARGS__);                                                    \
        return -1;                                                                                 \
    } while (0)

static uint64_t alu(unsigned op, uint64_t a, uint64_t b, int is64)
{
    unsigned sh = (unsigned)(b & (is64 ? 63 : 31));
    if (!is64) {
        a = (uint32_t)a;
        b = (uint32_t)b;
    }
    switch (op) {
    case BPF_ADD:
        return a + b;
    case BPF_SUB:
        return a - b;
    case BPF_MUL:
        return a * b;
    case BPF_DIV:
        return b ? a / b : 0;
    case BPF_MOD:
        return b ? a % b : a;
    case BPF_OR:
        return a | b;
    case BPF_AND:
        return a & b;
    case BPF_XOR:
        return a ^ b;
    case BPF_LSH:
        return a << sh;
    case BPF_RSH:
        return a >> sh;
    case BPF_ARSH:
        return is64 ? (uint64_t)((int64_t)a >> sh)
                    : (uint64_t)(uint32_t)((int32_t)(uint32_t)a >> sh);
    case BPF_NEG:
        return -a;
    default:
        return 0;
    }
}

static int cond(unsigned op, uint64_t a, uint64_t b, int is64)
{
    if (!is64) {
        a = (uint32_t)a;
        b = (uint32_t)b;
    }
    int64_t sa = is64 ? (int64_t)a : (int32_t)(uint32_t)a;
    int64_t sb = is64 ? (int64_t)b : (int32_t)(uint32_t)b;
    switch (op) {
    case BPF_JEQ:
        return a == b;
    case BPF_JNE:
        return a != b;
    case BPF_JGT:
        return a > b;
    case BPF_JGE:
        return a >= b;
    case BPF_JLT:
        return a < b;
    case BPF_JLE:
        return a <= b;
    case BPF_JSET:
        return (a & b) != 0;
    case BPF_JSGT:
        return sa > sb;
    case BPF_JSGE:
        return sa >= sb;
    case BPF_JSLT:
        return sa < sb;
    case BPF_JSLE:
        return sa <= sb;
    default:
        return -1;
    }
}

int bxa_devbpf_run(const bxa_insn *p, size_t n, unsigned type, unsigned major, unsigned minor,
                   unsigned access, uint64_t *steps, char *why, size_t whylen)
{
    uint64_t r[11] = {0};
    unsigned char t[11] = {0};
    uint32_t ctx[3] = {(uint32_t)(access << 16 | type), major, minor};
    size_t pc = 0;

    t[1] = T_CTX;
    for (size_t ran = 0; pc < n; ran++) {
        const bxa_insn *in = &p[pc];
        unsigned cls = BPF_CLASS(in->code), dst = in->regs & 0x0f, src = in->regs >> 4;
        int64_t imm = in->imm;
        if (steps)
            (*steps)++;
        if (ran >= n) /* forward jumps only: never more steps than instructions */
            REFUSE("instruction %zu: run more than once", pc);
        if (dst > 10 || src > 10)
            REFUSE("instruction %zu: register out of range", pc);
        switch (cls) {
        case BPF_ALU:
        case BPF_ALU64: {
            unsigned op = BPF_OP(in->code), is64 = cls == BPF_ALU64,
                     isx = BPF_SRC(in->code) == BPF_X;
            if (in->off != 0 || op == BPF_END || op > BPF_END || dst == 10)
                REFUSE("instruction %zu: ALU 0x%02x not interpreted", pc, in->code);
            if (isx && t[src] == T_NONE)
                REFUSE("instruction %zu: reads a register never written", pc);
            if (op == BPF_MOV) {
                if (isx) {
                    if (t[src] == T_CTX && !is64)
                        REFUSE("instruction %zu: the context pointer truncated", pc);
                    t[dst] = t[src];
                    r[dst] = is64 ? r[src] : (uint32_t)r[src];
                } else {
                    t[dst] = T_SCALAR;
                    r[dst] = is64 ? (uint64_t)imm : (uint32_t)imm;
                }
                break;
            }
            if (t[dst] != T_SCALAR || (isx && t[src] != T_SCALAR))
                REFUSE("instruction %zu: arithmetic on a major, a minor or a pointer", pc);
            r[dst] = alu(op, r[dst], isx ? r[src] : (uint64_t)imm, is64);
            if (!is64)
                r[dst] = (uint32_t)r[dst];
            break;
        }
        case BPF_LDX: {
            unsigned size = BPF_SIZE(in->code), bytes;
            bytes = size == BPF_W ? 4 : size == BPF_H ? 2 : size == BPF_B ? 1 : 8;
            if (BPF_MODE(in->code) != BPF_MEM || t[src] != T_CTX || dst == 10 || in->off < 0 ||
                (size_t)in->off + bytes > sizeof ctx)
                REFUSE("instruction %zu: a load that is not of the device context", pc);
            if (in->off == 4 || in->off == 8) {
                if (bytes != 4)
                    REFUSE("instruction %zu: a part of a major or minor loaded", pc);
                t[dst] = in->off == 4 ? T_MAJOR : T_MINOR;
                r[dst] = ctx[in->off / 4];
            } else {
                if ((size_t)in->off + bytes > 4)
                    REFUSE("instruction %zu: a load across the context's fields", pc);
                unsigned char b[4];
                uint64_t v = 0;
                memcpy(b, &ctx[0], 4);
                for (unsigned i = 0; i < bytes; i++)
                    v |= (uint64_t)b[in->off + i] << (8 * i);
                t[dst] = T_SCALAR;
                r[dst] = v;
            }
            break;
        }
        case BPF_LD:
            if (in->code != (BPF_LD | BPF_IMM | BPF_DW) || src != 0 || pc + 1 >= n || dst == 10)
                REFUSE("instruction %zu: a load of a map or a packet", pc);
            t[dst] = T_SCALAR;
            r[dst] = (uint32_t)in->imm | (uint64_t)(uint32_t)p[pc + 1].imm << 32;
            pc += 2;
            continue;
        case BPF_JMP:
        case BPF_JMP32: {
            unsigned op = BPF_OP(in->code), is64 = cls == BPF_JMP, isx = BPF_SRC(in->code) == BPF_X;
            int c;
            if (op == BPF_EXIT && is64) {
                if (t[0] != T_SCALAR)
                    REFUSE("instruction %zu: exit without a verdict in r0", pc);
                return r[0] != 0;
            }
            if (op == BPF_CALL || op == BPF_EXIT || (op == BPF_JA && !is64))
                REFUSE("instruction %zu: a call or a long jump", pc);
            if (in->off < 0)
                REFUSE("instruction %zu: a backward jump", pc);
            if (pc + 1 + (size_t)in->off > n)
                REFUSE("instruction %zu: a jump past the end", pc);
            if (op == BPF_JA) {
                pc += 1 + (size_t)in->off;
                continue;
            }
            if (t[dst] == T_NONE || (isx && t[src] == T_NONE))
                REFUSE("instruction %zu: reads a register never written", pc);
            if (t[dst] == T_CTX || (isx && t[src] == T_CTX))
                REFUSE("instruction %zu: a pointer compared", pc);
            if ((t[dst] == T_MAJOR || t[dst] == T_MINOR ||
                 (isx && (t[src] == T_MAJOR || t[src] == T_MINOR))) &&
                (isx || op == BPF_JSET))
                REFUSE("instruction %zu: a major or minor compared but with a constant", pc);
            if ((c = cond(op, r[dst], isx ? r[src] : (uint64_t)imm, is64)) < 0)
                REFUSE("instruction %zu: jump 0x%02x not interpreted", pc, in->code);
            pc += 1 + (c ? (size_t)in->off : 0);
            continue;
        }
        default:
            REFUSE("instruction %zu: class %u (a store) not interpreted", pc, cls);
        }
        pc++;
    }
    REFUSE("the program runs past its end");
}

/* ---- every program over every device --------------------------------------------------------- */

static int verdict(const bxa_devprogs *p, unsigned type, unsigned ma, unsigned mi, unsigned acc,
                   uint64_t *steps, char *why, size_t whylen)
{
    for (size_t i = 0; i < p->n; i++) {
        int v = bxa_devbpf_run(p->insns[i], p->len[i], type, ma, mi, acc, steps, why, whylen);
        if (v <= 0)
            return v;
    }
    return 1;
}

int bxa_devbpf_access(const bxa_devprogs *p, char type, unsigned major, unsigned minor)
{
    static const struct {
        unsigned bpf, bit;
    } acc[] = {{BPF_DEVCG_ACC_READ, BXA_DEV_READ},
               {BPF_DEVCG_ACC_WRITE, BXA_DEV_WRITE},
               {BPF_DEVCG_ACC_MKNOD, BXA_DEV_MKNOD}};
    unsigned t = type == 'b' ? BPF_DEVCG_DEV_BLOCK : BPF_DEVCG_DEV_CHAR;
    int out = 0;

    for (size_t i = 0; i < sizeof acc / sizeof acc[0]; i++) {
        int v = verdict(p, t, major, minor, acc[i].bpf, NULL, NULL, 0);
        if (v < 0)
            return -1;
        if (v)
            out |= (int)acc[i].bit;
    }
    return out;
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

/* The values of a major or minor at which every program's verdict may change, up to max. */
static uint32_t *points(const bxa_devprogs *p, uint32_t max, size_t *np)
{
    size_t cap = 3, n = 0, k = 0;
    uint32_t *v;

    for (size_t i = 0; i < p->n; i++)
        cap += 2 * p->len[i];
    if (!(v = malloc(cap * sizeof *v)))
        return NULL;
    v[n++] = 0;
    for (size_t i = 0; i < p->n; i++) {
        for (size_t j = 0; j < p->len[i]; j++) {
            const bxa_insn *in = &p->insns[i][j];
            unsigned cls = BPF_CLASS(in->code);
            if ((cls != BPF_JMP && cls != BPF_JMP32) || BPF_SRC(in->code) != BPF_K)
                continue;
            uint32_t c = (uint32_t)in->imm;
            if (c <= max)
                v[n++] = c;
            if (c < max)
                v[n++] = c + 1;
        }
    }
    qsort(v, n, sizeof *v, cmp_u32);
    for (size_t i = 0; i < n; i++)
        if (k == 0 || v[k - 1] != v[i])
            v[k++] = v[i];
    *np = k;
    return v;
}

int bxa_devbpf_allow_all(const bxa_devprogs *p, char *why, size_t whylen)
{
    static const unsigned types[] = {BPF_DEVCG_DEV_BLOCK, BPF_DEVCG_DEV_CHAR};
    size_t nma = 0, nmi = 0;
    uint32_t *ma = points(p, MAJOR_MAX, &nma), *mi = points(p, MINOR_MAX, &nmi);
    uint64_t steps = 0;
    int rc = 1;

    if (why && whylen)
        why[0] = '\0';
    if (!ma || !mi) {
        rc = -1;
        if (why)
            snprintf(why, whylen, "out of memory");
        goto out;
    }
    for (size_t t = 0; rc == 1 && t < 2; t++)
        for (unsigned acc = 1; rc == 1 && acc <= 7; acc++)
            for (size_t i = 0; rc == 1 && i < nma; i++)
                for (size_t j = 0; rc == 1 && j < nmi; j++) {
                    rc = verdict(p, types[t], ma[i], mi[j], acc, &steps, why, whylen);
                    if (rc == 1 && steps > STEPS_MAX) {
                        rc = -1;
                        if (why)
                            snprintf(why, whylen, "more than %llu steps to decide",
                                     (unsigned long long)STEPS_MAX);
                    }
                }
out:
    free(ma);
    free(mi);
    return rc;
}

/* ---- reading them from the kernel ------------------------------------------------------------ */

#define PROGS_MAX 64
#define INSNS_MAX 65536

static long sys_bpf(int cmd, union bpf_attr *a)
{
    return syscall(__NR_bpf, cmd, a, sizeof *a);
}

int bxa_devbpf_read(bxa_kctx *k, const char *dir, bxa_devprogs **out, char *why, size_t whylen)
{
    uint32_t ids[PROGS_MAX];
    union bpf_attr a;
    bxa_devprogs *p = NULL;
    int fd = -1, pfd = -1, rc = 0;

    *out = NULL;
    why[0] = '\0';
    if ((fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
        return 0;
    memset(&a, 0, sizeof a);
    a.query.target_fd = (uint32_t)fd;
    a.query.attach_type = BPF_CGROUP_DEVICE;
    a.query.query_flags = BPF_F_QUERY_EFFECTIVE;
    a.query.prog_ids = (uint64_t)(uintptr_t)ids;
    a.query.prog_cnt = PROGS_MAX;
    if (sys_bpf(BPF_PROG_QUERY, &a) != 0) {
        /* EBADF: not a cgroup here (a recorded tree); anything else: the programs are there
         * but not readable by this collector */
        if (errno != EBADF)
            snprintf(why, whylen, "BPF_PROG_QUERY: %s", strerror(errno));
        goto out;
    }
    if (a.query.prog_cnt > PROGS_MAX) {
        snprintf(why, whylen, "more than %d device programs", PROGS_MAX);
        goto out;
    }
    if (!(p = calloc(1, sizeof *p)) || !(p->insns = calloc(PROGS_MAX, sizeof *p->insns)) ||
        !(p->len = calloc(PROGS_MAX, sizeof *p->len))) {
        rc = bxa_oom(k->err);
        goto out;
    }
    for (uint32_t i = 0; i < a.query.prog_cnt; i++) {
        struct bpf_prog_info info;
        union bpf_attr g;
        char name[64];
        memset(&g, 0, sizeof g);
        g.prog_id = ids[i];
        if ((pfd = (int)sys_bpf(BPF_PROG_GET_FD_BY_ID, &g)) < 0) {
            snprintf(why, whylen, "BPF_PROG_GET_FD_BY_ID %u: %s", ids[i], strerror(errno));
            goto fail;
        }
        memset(&info, 0, sizeof info);
        memset(&g, 0, sizeof g);
        g.info.bpf_fd = (uint32_t)pfd;
        g.info.info_len = sizeof info;
        g.info.info = (uint64_t)(uintptr_t)&info;
        if (sys_bpf(BPF_OBJ_GET_INFO_BY_FD, &g) != 0 || info.type != BPF_PROG_TYPE_CGROUP_DEVICE ||
            info.xlated_prog_len == 0 || info.xlated_prog_len % sizeof(bxa_insn) != 0 ||
            info.xlated_prog_len / sizeof(bxa_insn) > INSNS_MAX) {
            snprintf(why, whylen, "program %u: its instructions are not readable", ids[i]);
            goto fail;
        }
        uint32_t len = info.xlated_prog_len;
        if (!(p->insns[i] = malloc(len))) {
            rc = bxa_oom(k->err);
            goto out;
        }
        p->n = i + 1;
        memset(&info, 0, sizeof info);
        info.xlated_prog_len = len;
        info.xlated_prog_insns = (uint64_t)(uintptr_t)p->insns[i];
        memset(&g, 0, sizeof g);
        g.info.bpf_fd = (uint32_t)pfd;
        g.info.info_len = sizeof info;
        g.info.info = (uint64_t)(uintptr_t)&info;
        if (sys_bpf(BPF_OBJ_GET_INFO_BY_FD, &g) != 0 || info.xlated_prog_len != len) {
            snprintf(why, whylen, "program %u: its instructions changed while read", ids[i]);
            goto fail;
        }
        p->len[i] = len / sizeof(bxa_insn);
        close(pfd);
        pfd = -1;
        snprintf(name, sizeof name, "cgroup/devices.bpf.%u", i);
        if ((rc = bxa_keep(k, BXA_EV_KERNEL, name, (const char *)p->insns[i], len)) != 0)
            goto out;
    }
    *out = p;
    p = NULL;
    goto out;
fail:
    bxa_devbpf_free(p);
    p = NULL;
out:
    bxa_devbpf_free(p);
    if (pfd >= 0)
        close(pfd);
    if (fd >= 0)
        close(fd);
    return rc;
}
