/* SPDX-License-Identifier: Apache-2.0 */
/* cgroup v2's device programs (attest/devbpf.c), engine-free: the programs runc, crun and
 * systemd loaded on a Debian 13 host, recorded as the kernel gave them back
 * (fixtures/devbpf/<case>/devices.bpf.<n>, the collector's evidence files), judged over the
 * devices expected.json names; and programs written here for each rule of the interpreter
 * (every program must allow, what it cannot interpret is null). */
#include "tap.h"
#include "attest_internal.h"

#include <dirent.h>
#include <linux/bpf.h>
#include <stdlib.h>
#include <string.h>

#define DIR_CASES BOXCERT_SOURCE_DIR "/fixtures/devbpf"

#define I(c, d, s, o, i)                                                                           \
    ((bxa_insn){.code = (c), .regs = (uint8_t)((d) | (s) << 4), .off = (o), .imm = (i)})
#define MOV64_IMM(d, i) I(BPF_ALU64 | BPF_MOV | BPF_K, d, 0, 0, i)
#define MOV64_REG(d, s) I(BPF_ALU64 | BPF_MOV | BPF_X, d, s, 0, 0)
#define ALU32_IMM(op, d, i) I(BPF_ALU | (op) | BPF_K, d, 0, 0, i)
#define ALU64_IMM(op, d, i) I(BPF_ALU64 | (op) | BPF_K, d, 0, 0, i)
#define LDX_W(d, s, o) I(BPF_LDX | BPF_MEM | BPF_W, d, s, o, 0)
#define LDX_H(d, s, o) I(BPF_LDX | BPF_MEM | BPF_H, d, s, o, 0)
#define JMP_IMM(op, d, i, o) I(BPF_JMP | (op) | BPF_K, d, 0, o, i)
#define JMP32_IMM(op, d, i, o) I(BPF_JMP32 | (op) | BPF_K, d, 0, o, i)
#define JMP_REG(op, d, s, o) I(BPF_JMP | (op) | BPF_X, d, s, o, 0)
#define EXIT() I(BPF_JMP | BPF_EXIT, 0, 0, 0, 0)

/* runc's shape: type in r2, access in r3, major in r4, minor in r5; one block per rule:
 * allow c 1:3 rw (not m), allow c 136:* rwm, else deny */
static const bxa_insn RULES[] = {
    LDX_W(2, 1, 0),
    ALU32_IMM(BPF_AND, 2, 0xFFFF),
    LDX_W(3, 1, 0),
    ALU32_IMM(BPF_RSH, 3, 16),
    LDX_W(4, 1, 4),
    LDX_W(5, 1, 8),
    /* block 1: c 1:3 rw */
    JMP_IMM(BPF_JNE, 2, BPF_DEVCG_DEV_CHAR, 7),
    MOV64_REG(1, 3),
    ALU32_IMM(BPF_AND, 1, BPF_DEVCG_ACC_READ | BPF_DEVCG_ACC_WRITE),
    JMP_REG(BPF_JNE, 1, 3, 4),
    JMP_IMM(BPF_JNE, 4, 1, 3),
    JMP_IMM(BPF_JNE, 5, 3, 2),
    MOV64_IMM(0, 1),
    EXIT(),
    /* block 2: c 136:* rwm */
    JMP_IMM(BPF_JNE, 2, BPF_DEVCG_DEV_CHAR, 3),
    JMP_IMM(BPF_JNE, 4, 136, 2),
    MOV64_IMM(0, 1),
    EXIT(),
    MOV64_IMM(0, 0),
    EXIT(),
};

static const bxa_insn ALLOW[] = {MOV64_IMM(0, 1), EXIT()};
/* denies writes to block devices of majors 8 to 15, allows everything else */
static const bxa_insn NO_DISK_WRITE[] = {
    LDX_H(2, 1, 0), /* type: the low half of access_type */
    LDX_H(3, 1, 2), /* access: the high half */
    LDX_W(4, 1, 4),
    JMP32_IMM(BPF_JNE, 2, BPF_DEVCG_DEV_BLOCK, 5),
    JMP_IMM(BPF_JSET, 3, BPF_DEVCG_ACC_WRITE, 1),
    JMP_IMM(BPF_JA, 0, 0, 3),
    JMP_IMM(BPF_JLT, 4, 8, 2),
    JMP_IMM(BPF_JGT, 4, 15, 1),
    I(BPF_JMP | BPF_JA, 0, 0, 2, 0),
    MOV64_IMM(0, 1),
    EXIT(),
    MOV64_IMM(0, 0),
    EXIT(),
};

/* allows majors up to 7 and from 9: only major 8 is denied */
static const bxa_insn GAP[] = {
    LDX_W(4, 1, 4),
    JMP_IMM(BPF_JLE, 4, 7, 2),
    JMP_IMM(BPF_JGE, 4, 9, 1),
    I(BPF_JMP | BPF_JA, 0, 0, 2, 0),
    MOV64_IMM(0, 1),
    EXIT(),
    MOV64_IMM(0, 0),
    EXIT(),
};
/* denies reading, writing and mknod asked at once, allows each alone */
static const bxa_insn NOT_ALL_AT_ONCE[] = {
    LDX_W(3, 1, 0),
    ALU32_IMM(BPF_RSH, 3, 16),
    JMP_IMM(BPF_JEQ, 3, 7, 2),
    MOV64_IMM(0, 1),
    EXIT(),
    MOV64_IMM(0, 0),
    EXIT(),
};

static bxa_devprogs *progs(size_t n, const bxa_insn *const *p, const size_t *len)
{
    bxa_devprogs *d = calloc(1, sizeof *d);
    d->insns = calloc(n ? n : 1, sizeof *d->insns);
    d->len = calloc(n ? n : 1, sizeof *d->len);
    d->n = n;
    for (size_t i = 0; i < n; i++) {
        d->insns[i] = malloc(len[i] * sizeof(bxa_insn));
        memcpy(d->insns[i], p[i], len[i] * sizeof(bxa_insn));
        d->len[i] = len[i];
    }
    return d;
}

#define ONE(a) progs(1, (const bxa_insn *const[]){a}, (const size_t[]){sizeof a / sizeof a[0]})

static void rules(void)
{
    bxa_devprogs *p = ONE(RULES);
    char why[160];

    is_int(bxa_devbpf_access(p, 'c', 1, 3), BXA_DEV_READ | BXA_DEV_WRITE, "c 1:3: rw, not m");
    is_int(bxa_devbpf_access(p, 'c', 1, 5), 0, "c 1:5: nothing");
    is_int(bxa_devbpf_access(p, 'b', 1, 3), 0, "b 1:3: nothing (another type)");
    is_int(bxa_devbpf_access(p, 'c', 136, 0), BXA_DEV_READ | BXA_DEV_WRITE | BXA_DEV_MKNOD,
           "c 136:0: rwm");
    is_int(bxa_devbpf_access(p, 'c', 136, 1048575), 7, "c 136:1048575: rwm (any minor)");
    is_int(bxa_devbpf_access(p, 'c', 137, 0), 0, "c 137:0: nothing");
    is_int(bxa_devbpf_allow_all(p, why, sizeof why), 0, "rules: not every device");
    bxa_devbpf_free(p);

    p = ONE(ALLOW);
    is_int(bxa_devbpf_allow_all(p, why, sizeof why), 1, "mov r0 1; exit: every device");
    bxa_devbpf_free(p);
    p = progs(0, NULL, NULL);
    is_int(bxa_devbpf_allow_all(p, why, sizeof why), 1, "no program: every device");
    is_int(bxa_devbpf_access(p, 'b', 8, 0), 7, "no program: b 8:0 rwm");
    bxa_devbpf_free(p);

    p = ONE(NO_DISK_WRITE);
    is_int(bxa_devbpf_allow_all(p, why, sizeof why), 0, "no disk write: not every device (%s)",
           why);
    is_int(bxa_devbpf_access(p, 'b', 8, 0), BXA_DEV_READ | BXA_DEV_MKNOD, "b 8:0: r and m, no w");
    is_int(bxa_devbpf_access(p, 'b', 15, 7), BXA_DEV_READ | BXA_DEV_MKNOD, "b 15:7: no w");
    is_int(bxa_devbpf_access(p, 'b', 7, 0), 7, "b 7:0: rwm (below the range)");
    is_int(bxa_devbpf_access(p, 'b', 16, 0), 7, "b 16:0: rwm (above it)");
    is_int(bxa_devbpf_access(p, 'c', 8, 0), 7, "c 8:0: rwm (a char device)");
    bxa_devbpf_free(p);

    p = ONE(GAP);
    is_int(bxa_devbpf_allow_all(p, why, sizeof why), 0,
           "a gap of one major between two constants: not every device");
    is_int(bxa_devbpf_access(p, 'c', 8, 0), 0, "gap: c 8:0 nothing");
    is_int(bxa_devbpf_access(p, 'c', 9, 0), 7, "gap: c 9:0 rwm");
    bxa_devbpf_free(p);
    p = ONE(NOT_ALL_AT_ONCE);
    is_int(bxa_devbpf_allow_all(p, why, sizeof why), 0,
           "rwm at once denied, each alone allowed: not every device");
    is_int(bxa_devbpf_access(p, 'c', 1, 1), 7, "each access alone: rwm");
    bxa_devbpf_free(p);

    /* every program must allow: ALLOW and RULES together are RULES */
    p = progs(2, (const bxa_insn *const[]){ALLOW, RULES},
              (const size_t[]){sizeof ALLOW / sizeof ALLOW[0], sizeof RULES / sizeof RULES[0]});
    is_int(bxa_devbpf_access(p, 'c', 1, 5), 0, "allow-all and rules: c 1:5 denied by one");
    is_int(bxa_devbpf_access(p, 'c', 1, 3), 3, "allow-all and rules: c 1:3 rw");
    is_int(bxa_devbpf_allow_all(p, why, sizeof why), 0, "allow-all and rules: not every device");
    bxa_devbpf_free(p);
    p = progs(2, (const bxa_insn *const[]){RULES, NO_DISK_WRITE},
              (const size_t[]){sizeof RULES / sizeof RULES[0],
                               sizeof NO_DISK_WRITE / sizeof NO_DISK_WRITE[0]});
    is_int(bxa_devbpf_access(p, 'c', 136, 2), 7, "rules and no-disk-write: c 136:2 rwm");
    bxa_devbpf_free(p);
}

/* what the interpreter refuses: null, never a guess */
static void refused(void)
{
    static const struct {
        const char *name;
        bxa_insn p[8];
        size_t n;
    } t[] = {
        {"a helper call", {I(BPF_JMP | BPF_CALL, 0, 0, 0, 1), MOV64_IMM(0, 1), EXIT()}, 3},
        {"a backward jump", {MOV64_IMM(0, 1), JMP_IMM(BPF_JA, 0, 0, -2), EXIT()}, 3},
        {"a store to the stack",
         {I(BPF_STX | BPF_MEM | BPF_W, 10, 1, -4, 0), MOV64_IMM(0, 1), EXIT()},
         3},
        {"arithmetic on a major",
         {LDX_W(4, 1, 4), ALU64_IMM(BPF_ADD, 4, 1), JMP_IMM(BPF_JEQ, 4, 2, 1), MOV64_IMM(0, 1),
          EXIT()},
         5},
        {"a major compared with a register",
         {LDX_W(4, 1, 4), LDX_W(5, 1, 8), JMP_REG(BPF_JEQ, 4, 5, 1), MOV64_IMM(0, 1),
          MOV64_IMM(0, 0), EXIT()},
         6},
        {"a bit test of a minor",
         {LDX_W(5, 1, 8), JMP_IMM(BPF_JSET, 5, 1, 1), MOV64_IMM(0, 1), MOV64_IMM(0, 0), EXIT()},
         5},
        {"half a major", {LDX_H(4, 1, 4), MOV64_IMM(0, 1), EXIT()}, 3},
        {"the context pointer compared", {MOV64_IMM(0, 1), JMP_IMM(BPF_JEQ, 1, 0, 0), EXIT()}, 3},
        {"a load past the context", {LDX_W(4, 1, 12), MOV64_IMM(0, 1), EXIT()}, 3},
        {"exit with r0 never written", {EXIT()}, 1},
        {"the end without exit", {MOV64_IMM(0, 1)}, 1},
        {"a jump past the end", {JMP_IMM(BPF_JA, 0, 0, 5), MOV64_IMM(0, 1), EXIT()}, 3},
        {"a map load",
         {I(BPF_LD | BPF_IMM | BPF_DW, 1, BPF_PSEUDO_MAP_FD, 0, 3), I(0, 0, 0, 0, 0),
          MOV64_IMM(0, 1), EXIT()},
         4},
    };
    char why[160];

    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        bxa_devprogs *p = progs(1, (const bxa_insn *const[]){t[i].p}, (const size_t[]){t[i].n});
        why[0] = '\0';
        is_int(bxa_devbpf_allow_all(p, why, sizeof why), -1, "%s: cannot be interpreted (%s)",
               t[i].name, why);
        is_int(bxa_devbpf_access(p, 'c', 2, 0), -1, "%s: no node judged", t[i].name);
        bxa_devbpf_free(p);
    }
    /* a program that cannot be interpreted beside one that denies: not every device, but the
     * nodes are not judged */
    {
        bxa_insn bad[] = {I(BPF_JMP | BPF_CALL, 0, 0, 0, 1), MOV64_IMM(0, 1), EXIT()};
        bxa_devprogs *p = progs(2, (const bxa_insn *const[]){RULES, bad},
                                (const size_t[]){sizeof RULES / sizeof RULES[0], 3});
        is_int(bxa_devbpf_access(p, 'c', 1, 3), -1, "rules and a call: c 1:3 not judged");
        bxa_devbpf_free(p);
    }
}

/* fixtures/devbpf/<case>: devices.bpf.0, .1, ... and expected.json {"allowAll": b|null,
 * "access": {"c 1:3": "rw", ...}} */
static void recorded(void)
{
    DIR *d = opendir(DIR_CASES);
    struct dirent *e;
    int cases = 0;

    if (!ok(d != NULL, "%s exists", DIR_CASES))
        return;
    while ((e = readdir(d))) {
        char path[1024], why[160];
        bxa_insn *ins[16] = {0};
        size_t len[16] = {0}, n = 0;
        json_t *want;
        if (e->d_name[0] == '.' || strchr(e->d_name, '.'))
            continue; /* SOURCE.txt */
        for (n = 0; n < 16; n++) {
            size_t l;
            char *b;
            snprintf(path, sizeof path, "%s/%s/devices.bpf.%zu", DIR_CASES, e->d_name, n);
            if (!(b = tap_slurp(path, &l)))
                break;
            ins[n] = (bxa_insn *)b;
            len[n] = l / sizeof(bxa_insn);
        }
        snprintf(path, sizeof path, "%s/%s/expected.json", DIR_CASES, e->d_name);
        want = json_load_file(path, 0, NULL);
        if (ok(want && n > 0, "%s: %zu program(s), expected.json", e->d_name, n)) {
            bxa_devprogs *p = progs(n, (const bxa_insn *const *)ins, len);
            const json_t *aa = json_object_get(want, "allowAll"), *v;
            const char *dev;
            int all = bxa_devbpf_allow_all(p, why, sizeof why);
            is_int(all, json_is_null(aa) ? -1 : json_is_true(aa), "%s: allowAll (%s)", e->d_name,
                   why);
            json_object_foreach(json_object_get(want, "access"), dev, v)
            {
                char t;
                unsigned ma, mi;
                int a, w = 0;
                const char *s = json_string_value(v);
                if (sscanf(dev, "%c %u:%u", &t, &ma, &mi) != 3 || !s)
                    continue;
                w = (strchr(s, 'r') ? BXA_DEV_READ : 0) | (strchr(s, 'w') ? BXA_DEV_WRITE : 0) |
                    (strchr(s, 'm') ? BXA_DEV_MKNOD : 0);
                a = bxa_devbpf_access(p, t, ma, mi);
                is_int(a, w, "%s: %s %s", e->d_name, dev, s);
            }
            bxa_devbpf_free(p);
            cases++;
        }
        json_decref(want);
        for (size_t i = 0; i < n; i++)
            free(ins[i]);
    }
    closedir(d);
    ok(cases >= 2, "recorded cases: %d", cases);
}

int main(void)
{
    rules();
    refused();
    recorded();
    return tap_done();
}
