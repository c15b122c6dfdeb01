/* SPDX-License-Identifier: Apache-2.0 */
/* Cross-check against libseccomp: seeded random rule sets (default and bad-arch actions,
 * per-syscall actions, argument conditions with every SCMP_CMP_* operator, the ABIs
 * x86_64, x32 and x86 in every combination) compiled by libseccomp, exported to a memfd,
 * evaluated; every entry of every ABI must equal the rule set's intent as libseccomp
 * documents it:
 *   - a syscall of an ABI in the filter with no rule, or whose rule has the default action
 *     (seccomp_rule_add(3) refuses such a rule with -EACCES), gets the default action;
 *   - a rule without conditions: its action for every argument value;
 *   - rules with conditions (ANDed within a rule, ORed across rules; never tautological
 *     here) and an action other than the default: both the rule's action and the
 *     default, depending on the arguments;
 *   - an ABI not in the filter gets the bad-arch action (SCMP_FLTATR_ACT_BADARCH, default
 *     SCMP_ACT_KILL), x32 and x86_64 being separate ABIs for libseccomp although they share
 *     AUDIT_ARCH_X86_64 (libseccomp's x86_64 filter sends the x32 numbers, nr >= 0x40000000
 *     except -1, to the bad-arch action; its x32 filter those below 0x40000000);
 *   - out-of-range numbers reach no rule: the default where their ABI is in the filter,
 *     the bad-arch action elsewhere.
 * Multiplexed syscalls (socketcall, ipc and the calls libseccomp rewrites onto them on
 * x86) are left out: seccomp_rule_add may rewrite those rules (seccomp_rule_add(3)). */
#include "bx_seccomp.h"
#include "tap.h"

#include <errno.h>
#include <linux/audit.h>
#include <seccomp.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#define X64 BX_SECCOMP_ABI_X86_64
#define X32 BX_SECCOMP_ABI_X32
#define X86 BX_SECCOMP_ABI_X86
#define RULESETS 400

static const char *const pool[] = {
    "read",
    "write",
    "open",
    "close",
    "stat",
    "fstat",
    "lstat",
    "poll",
    "lseek",
    "mmap",
    "mprotect",
    "munmap",
    "brk",
    "rt_sigaction",
    "rt_sigprocmask",
    "ioctl",
    "pread64",
    "pwrite64",
    "readv",
    "writev",
    "access",
    "pipe",
    "select",
    "sched_yield",
    "mremap",
    "msync",
    "mincore",
    "madvise",
    "dup",
    "dup2",
    "pause",
    "nanosleep",
    "getitimer",
    "alarm",
    "setitimer",
    "getpid",
    "sendfile",
    "clone",
    "fork",
    "vfork",
    "execve",
    "exit",
    "wait4",
    "kill",
    "uname",
    "fcntl",
    "flock",
    "fsync",
    "truncate",
    "ftruncate",
    "getdents",
    "getcwd",
    "chdir",
    "rename",
    "mkdir",
    "rmdir",
    "unlink",
    "chmod",
    "chown",
    "umask",
    "gettimeofday",
    "getrlimit",
    "sysinfo",
    "ptrace",
    "getuid",
    "syslog",
    "setuid",
    "personality",
    "arch_prctl",
    "mmap2",
    "fcntl64",
    "stat64",
    "_llseek",
    "time",
    "ugetrlimit",
    "waitpid",
    "sigreturn",
    "clone3",
    "openat2",
    "epoll_pwait2",
    "futex_waitv",
    "memfd_secret",
    "process_mrelease",
    "cachestat",
    "fchmodat2",
    "seccomp",
    "bpf",
    "unshare",
    "setns",
    "mount",
};
#define NPOOL (sizeof pool / sizeof pool[0])

static uint64_t rng = 0x5eed5eed12345ull;
static uint32_t rnd(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (uint32_t)(rng >> 13);
}

static uint32_t rand_action(void)
{
    switch (rnd() % 9) {
    case 0:
        return SCMP_ACT_ALLOW;
    case 1:
        return SCMP_ACT_KILL_THREAD;
    case 2:
        return SCMP_ACT_KILL_PROCESS;
    case 3:
        return SCMP_ACT_TRAP;
    case 4:
        return SCMP_ACT_ERRNO(rnd() % 3 ? 1 + rnd() % 200
                                        : rnd() % 4096); /* libseccomp: <= MAX_ERRNO */
    case 5:
        return SCMP_ACT_LOG;
    case 6:
        return SCMP_ACT_TRACE(rnd() % 100);
    case 7:
        return SCMP_ACT_NOTIFY;
    }
    return SCMP_ACT_ALLOW;
}

static struct scmp_arg_cmp rand_cond(unsigned arg, int eq_only)
{
    static const enum scmp_compare ops[] = {SCMP_CMP_NE,       SCMP_CMP_LT, SCMP_CMP_LE,
                                            SCMP_CMP_EQ,       SCMP_CMP_GE, SCMP_CMP_GT,
                                            SCMP_CMP_MASKED_EQ};
    enum scmp_compare op = eq_only ? SCMP_CMP_EQ : ops[rnd() % 7];
    uint64_t a = 1 + rnd() % 0xfffffffeu, b = 0; /* never 0 or 0xffffffff: no tautology */
    if (op == SCMP_CMP_MASKED_EQ) {
        a = rnd() | 1; /* the mask */
        b = rnd() & a; /* a value the mask can give */
    }
    return (struct scmp_arg_cmp){arg, op, a, b};
}

/* ---- the intent -------------------------------------------------------------------- */

typedef struct {
    int n;
    uint32_t v[4];
} rset;

static void rs_add(rset *s, uint32_t v)
{
    for (int i = 0; i < s->n; i++) {
        if (s->v[i] == v)
            return;
    }
    s->v[s->n++] = v;
}

static int lets_through(uint32_t r)
{
    unsigned a = bx_seccomp_ret_action(r);
    return a == BX_SECCOMP_ACT_ALLOW || a == BX_SECCOMP_ACT_LOG || a == BX_SECCOMP_ACT_TRACE ||
           a == BX_SECCOMP_ACT_USER_NOTIF;
}

static bx_seccomp_entry rs_entry(const rset *s)
{
    bx_seccomp_entry e = {0};
    int let = 0, deny = 0;
    for (int i = 0; i < s->n; i++) {
        e.actions |= (uint16_t)bx_seccomp_ret_action(s->v[i]);
        if (lets_through(s->v[i]))
            let = 1;
        else
            deny = 1;
    }
    e.verdict = let && deny ? BX_SECCOMP_DEPENDS : deny ? BX_SECCOMP_DENY : BX_SECCOMP_ALLOW;
    e.uniform = s->n == 1;
    e.ret = s->n == 1 ? s->v[0] : 0;
    return e;
}

typedef struct {
    uint32_t def, badarch;
    int in[BX_SECCOMP_NABI];
    int nsys;
    struct {
        const char *name;
        uint32_t act;
        int unconditional;
        int conditional;
        int nrules;
        unsigned ncond[3];
        struct scmp_arg_cmp cond[3][3];
    } sys[40];
} ruleset;

static int entry_eq(const bx_seccomp_entry *a, const bx_seccomp_entry *b)
{
    return a->verdict == b->verdict && a->uniform == b->uniform && a->ret == b->ret &&
           a->actions == b->actions;
}

static int mismatches, shown, depends_seen, deny_seen, allow_seen, eacces_seen;
static int violated; /* the program itself breaks the rule set's intent (libseccomp's bug) */
static const bx_seccomp_prog *cur_prog;

/* Concrete runs of the program for (arch, nr): one outside the intent shows that the
 * program, not the evaluator, departs from the rule set. */
static const ruleset *cur_rs;

/* An argument value meeting (meet) or failing a condition. */
static uint64_t arg_for(const struct scmp_arg_cmp *c, int meet)
{
    uint64_t a = c->datum_a;
    switch (c->op) {
    case SCMP_CMP_NE:
        return meet ? a + 1 : a;
    case SCMP_CMP_LT:
        return meet ? a - 1 : a;
    case SCMP_CMP_LE:
        return meet ? a : a + 1;
    case SCMP_CMP_EQ:
        return meet ? a : a + 1;
    case SCMP_CMP_GE:
        return meet ? a : a - 1;
    case SCMP_CMP_GT:
        return meet ? a + 1 : a;
    case SCMP_CMP_MASKED_EQ:
        return meet ? c->datum_b : c->datum_b ^ (a & (0 - a)); /* flip the mask's lowest bit */
    default:
        return 0;
    }
}

/* Witnesses: arguments meeting every condition of one rule give its action; arguments
 * failing the first condition of every rule give the default. */
static int witness_departs(uint32_t arch, uint32_t nr, int rule)
{
    const ruleset *rs = cur_rs;
    struct seccomp_data sd = {.nr = (int)nr, .arch = arch};
    for (int r = 0; r < rs->sys[rule].nrules; r++) {
        memset(sd.args, 0, sizeof sd.args);
        for (unsigned k = 0; k < rs->sys[rule].ncond[r]; k++)
            sd.args[rs->sys[rule].cond[r][k].arg] = arg_for(&rs->sys[rule].cond[r][k], 1);
        if (bx_seccomp_run(cur_prog, 1, &sd) != rs->sys[rule].act)
            return 1;
    }
    memset(sd.args, 0, sizeof sd.args);
    for (int r = 0; r < rs->sys[rule].nrules; r++) {
        const struct scmp_arg_cmp *c = &rs->sys[rule].cond[r][0];
        sd.args[c->arg] = arg_for(c, 0);
    }
    return !rs->sys[rule].unconditional && bx_seccomp_run(cur_prog, 1, &sd) != rs->def;
}

static int program_departs(uint32_t arch, uint32_t nr, const rset *want, int rule)
{
    if (rule >= 0 && cur_rs->sys[rule].act != cur_rs->def && !cur_rs->sys[rule].unconditional &&
        witness_departs(arch, nr, rule))
        return 1;
    for (int k = 0; k < 24; k++) {
        struct seccomp_data sd = {.nr = (int)nr, .arch = arch};
        for (int i = 0; i < 6; i++)
            sd.args[i] = k == 0 ? 0 : k == 1 ? 0xffffffffu : rnd() % 4 ? rnd() % 2000 : rnd();
        uint32_t r = bx_seccomp_run(cur_prog, 1, &sd);
        int in = 0;
        for (int i = 0; i < want->n; i++)
            in |= want->v[i] == r;
        if (!in)
            return 1;
    }
    return 0;
}

static void compare(const char *what, int set, const bx_seccomp_entry *got,
                    const bx_seccomp_entry *want, uint32_t arch, uint32_t nr, const rset *ws,
                    int rule)
{
    if (entry_eq(got, want)) {
        depends_seen += want->verdict == BX_SECCOMP_DEPENDS;
        deny_seen += want->verdict == BX_SECCOMP_DENY;
        allow_seen += want->verdict == BX_SECCOMP_ALLOW;
        return;
    }
    if (ws && program_departs(arch, nr, ws, rule)) {
        if (violated++ == 0)
            printf("#   rule set %d, %s: the program itself departs from the rules\n", set, what);
        return;
    }
    mismatches++;
    if (shown++ < 10) {
        char a[48], b[48];
        printf("#   rule set %d, %s: evaluator %s %s 0x%x, intent %s %s 0x%x\n", set, what,
               bx_seccomp_verdict_name(got->verdict),
               got->uniform ? bx_seccomp_ret_str(got->ret, a, sizeof a) : "-", got->actions,
               bx_seccomp_verdict_name(want->verdict),
               want->uniform ? bx_seccomp_ret_str(want->ret, b, sizeof b) : "-", want->actions);
    }
}

static int rule_of(const ruleset *rs, const bx_seccomp_abi_info *abi, unsigned n)
{
    int rule = -1;
    for (int i = 0; i < rs->nsys; i++) {
        int nr = seccomp_syscall_resolve_name_arch(abi->scmp_arch, rs->sys[i].name);
        if (nr >= 0 && (uint32_t)nr == abi->nr_base + n)
            rule = i;
    }
    return rule;
}

static int check_set(int set, const ruleset *rs, const bx_seccomp_table *t, int *miscompiled)
{
    int before = mismatches, v0 = violated;
    for (int a = 0; a < BX_SECCOMP_NABI; a++) {
        const bx_seccomp_abi_info *abi = bx_seccomp_abi((size_t)a);
        for (unsigned n = 0; n < BX_SECCOMP_NR_COUNT; n++) {
            rset s = {0};
            if (!rs->in[a]) {
                rs_add(&s, rs->badarch);
            } else {
                int rule = -1;
                for (int i = 0; i < rs->nsys; i++) {
                    int nr = seccomp_syscall_resolve_name_arch(abi->scmp_arch, rs->sys[i].name);
                    if (nr >= 0 && (uint32_t)nr == abi->nr_base + n)
                        rule = i;
                }
                if (rule < 0 || rs->sys[rule].act == rs->def) {
                    rs_add(&s, rs->def);
                } else if (rs->sys[rule].unconditional) {
                    rs_add(&s, rs->sys[rule].act);
                } else {
                    rs_add(&s, rs->sys[rule].act);
                    rs_add(&s, rs->def);
                }
            }
            bx_seccomp_entry want = rs_entry(&s);
            char what[64];
            snprintf(what, sizeof what, "%s %u", abi->name, n);
            compare(what, set, &t->nr[a][n], &want, abi->audit_arch, abi->nr_base + n, &s,
                    rs->in[a] ? rule_of(rs, abi, n) : -1);
        }
    }
    /* out of range: AUDIT_ARCH_X86_64 numbers outside both tables, then i386's */
    rset s64 = {0}, s86 = {0}, so = {0};
    rs_add(&s64, rs->in[X64] ? rs->def : rs->badarch);                /* 1024 .. 0x3fffffff */
    rs_add(&s64, rs->in[X32] ? rs->def : rs->badarch);                /* 0x40000400 .. -2 */
    rs_add(&s64, rs->in[X32] || rs->in[X64] ? rs->def : rs->badarch); /* -1 */
    rs_add(&s86, rs->in[X86] ? rs->def : rs->badarch);
    rs_add(&so, rs->badarch);
    bx_seccomp_entry w64 = rs_entry(&s64), w86 = rs_entry(&s86), wo = rs_entry(&so);
    compare("x86_64 beyond", set, &t->beyond[X64], &w64, 0, 0, NULL, -1);
    compare("x32 beyond", set, &t->beyond[X32], &w64, 0, 0, NULL, -1);
    compare("x86 beyond", set, &t->beyond[X86], &w86, 0, 0, NULL, -1);
    compare("other arches", set, &t->other_arch, &wo, 0, 0, NULL, -1);
    *miscompiled = violated > v0;
    if (*miscompiled) /* the defaults are compared with the intent no more */
        mismatches = before;
    return mismatches == before;
}

int main(void)
{
    int built = 0, bad_sets = 0, ops_used = 0, acts_used = 0, miscompiled = 0, missing_load = 0;
    unsigned abisets = 0;
    bx_error err = {0};

    for (int set = 0; set < RULESETS; set++) {
        ruleset rs = {0};
        scmp_filter_ctx ctx = NULL;
        int fd = -1, ok_set = 1;

        rs.def = rand_action();
        if (!(ctx = seccomp_init(rs.def))) {
            set--;
            continue;
        }
        rs.badarch = SCMP_ACT_KILL;
        if (rnd() % 3 == 0) {
            uint32_t b = rand_action();
            if (seccomp_attr_set(ctx, SCMP_FLTATR_ACT_BADARCH, b) == 0)
                rs.badarch = b;
        }
        /* ABIs: any non-empty combination */
        unsigned combo = 1 + rnd() % 7;
        abisets |= 1u << combo;
        rs.in[X64] = 1;
        if (combo & 2)
            ok_set &= seccomp_arch_add(ctx, SCMP_ARCH_X32) == 0, rs.in[X32] = 1;
        if (combo & 4)
            ok_set &= seccomp_arch_add(ctx, SCMP_ARCH_X86) == 0, rs.in[X86] = 1;
        if (!(combo & 1) && (combo & 6)) {
            ok_set &= seccomp_arch_remove(ctx, SCMP_ARCH_NATIVE) == 0;
            rs.in[X64] = 0;
        }
        /* rules */
        int want = 5 + (int)(rnd() % 30);
        for (int i = 0; i < want && rs.nsys < 40; i++) {
            const char *name = pool[rnd() % NPOOL];
            int nr = seccomp_syscall_resolve_name(name), dup = 0;
            for (int j = 0; j < rs.nsys; j++)
                dup |= rs.sys[j].name == name;
            if (dup || nr == __NR_SCMP_ERROR)
                continue;
            uint32_t act = rnd() % 8 == 0 ? rs.def : rand_action();
            int shape = (int)(rnd() % 4); /* 0 none, 1 one rule, 2 several, 3 several + none */
            int rc = 0, added = 0;
            if (shape == 0 || shape == 3)
                rc = seccomp_rule_add(ctx, act, nr, 0);
            if (rc == 0 && shape == 1) {
                struct scmp_arg_cmp c[3];
                unsigned ncond = 1 + rnd() % 3, used = 0;
                for (unsigned k = 0; k < ncond; k++) {
                    unsigned arg;
                    do
                        arg = rnd() % 6;
                    while (used & (1u << arg));
                    used |= 1u << arg;
                    c[k] = rand_cond(arg, 0);
                    ops_used |= 1 << c[k].op;
                }
                rc = seccomp_rule_add_array(ctx, act, nr, ncond, c);
                memcpy(rs.sys[rs.nsys].cond[0], c, sizeof c);
                rs.sys[rs.nsys].ncond[0] = ncond;
                rs.sys[rs.nsys].nrules = 1;
                added = 1;
            }
            if (rc == 0 && shape >= 2) {
                unsigned nrules = 2 + rnd() % 2;
                for (unsigned r = 0; r < nrules && rc == 0; r++) {
                    struct scmp_arg_cmp c[2];
                    unsigned ncond = 1;
                    c[0] = rand_cond(0, 1);
                    c[0].datum_a = 1 + r * 1000 + rnd() % 1000; /* distinct per rule */
                    if (rnd() % 2) {
                        c[1] = rand_cond(1 + rnd() % 5, 0);
                        ops_used |= 1 << c[1].op;
                        ncond = 2;
                    }
                    rc = seccomp_rule_add_array(ctx, act, nr, ncond, c);
                    memcpy(rs.sys[rs.nsys].cond[r], c, sizeof c);
                    rs.sys[rs.nsys].ncond[r] = ncond;
                    rs.sys[rs.nsys].nrules = (int)r + 1;
                }
                added = 1;
            }
            if (act == rs.def) {
                /* seccomp_rule_add(3): a rule whose action is the default is refused */
                if (rc != -EACCES) {
                    printf("#   rule set %d: a rule with the default action gave %d\n", set, rc);
                    ok_set = 0;
                }
                eacces_seen++;
            } else if (rc != 0) {
                printf("#   rule set %d: libseccomp refused %s: %d\n", set, name, rc);
                ok_set = 0;
            }
            acts_used |= 1 << (bx_seccomp_ret_action(act) == BX_SECCOMP_ACT_UNKNOWN
                                   ? 9
                                   : __builtin_ctz(bx_seccomp_ret_action(act)));
            rs.sys[rs.nsys].name = name;
            rs.sys[rs.nsys].act = act;
            rs.sys[rs.nsys].unconditional = shape == 0 || shape == 3;
            rs.sys[rs.nsys].conditional = added;
            rs.nsys++;
        }
        /* export and evaluate */
        struct sock_filter *prog = NULL;
        off_t len = 0;
        if ((fd = memfd_create("bxsc_test", MFD_CLOEXEC)) < 0 || seccomp_export_bpf(ctx, fd) != 0 ||
            (len = lseek(fd, 0, SEEK_END)) <= 0 || !(prog = malloc((size_t)len)) ||
            pread(fd, prog, (size_t)len, 0) != len) {
            printf("#   rule set %d: export failed\n", set);
            ok_set = 0;
        }
        if (ok_set) {
            bx_seccomp_prog p = {prog, (size_t)len / 8};
            bx_seccomp_table *t = NULL;
            if (bx_seccomp_eval(&p, 1, BX_SECCOMP_NOCACHE, &t, &err) != 0) {
                printf("#   rule set %d: %s: %s\n", set, err.where, err.msg);
                ok_set = 0;
            } else {
                int mis = 0;
                cur_prog = &p;
                cur_rs = &rs;
                ok_set = check_set(set, &rs, t, &mis);
                miscompiled += mis;
                if (mis) {
                    /* what each such program we looked at had: after the arch check that
                     * opens the x86_64/x32 section, a jump on the number with no load */
                    int load = 0;
                    for (size_t pc = 0; pc + 1 < p.len; pc++) {
                        if (p.insns[pc].code == (BPF_JMP | BPF_JEQ | BPF_K) &&
                            p.insns[pc].k == AUDIT_ARCH_X86_64) {
                            load = p.insns[pc + 1].code == (BPF_LD | BPF_W | BPF_ABS);
                            break;
                        }
                    }
                    printf("#   rule set %d: %s\n", set,
                           load ? "the number is loaded after the arch check"
                                : "no load of the number after the x86_64 arch check");
                    missing_load += !load;
                }
                built++;
            }
            bx_seccomp_table_free(t);
        }
        bad_sets += !ok_set;
        free(prog);
        if (fd >= 0)
            close(fd);
        seccomp_release(ctx);
    }
    printf("# %d rule sets, %d entries matched (%d allow, %d deny, %d depends), %d mismatches, "
           "%d rules with the default action refused\n",
           built, allow_seen + deny_seen + depends_seen, allow_seen, deny_seen, depends_seen,
           mismatches, eacces_seen);
    printf("# %d rule sets whose program departs from its rules (libseccomp 2.5.4 leaves out the "
           "syscall-number load after the x86_64/x32 arch check in some filters)\n",
           miscompiled);
    ok(built == RULESETS, "%d rule sets compiled and evaluated", built);
    ok(miscompiled <= RULESETS / 50 && missing_load == miscompiled,
       "few programs depart from their rules (%d), each for the missing load", miscompiled);
    is_int(mismatches, 0, "no entry differs from the rule set's intent");
    is_int(bad_sets, 0, "no rule set failed");
    ok(depends_seen > 1000 && deny_seen > 10000 && allow_seen > 10000,
       "all three verdicts were exercised");
    is_int(ops_used, 0x7f << SCMP_CMP_NE, "every SCMP_CMP_* operator was used");
    ok((acts_used & 0xff) == 0xff, "every action was used (0x%x)", acts_used);
    is_int(abisets, 0xfe, "every combination of the three ABIs was used");
    ok(eacces_seen > 0, "rules with the default action were tried");
    return tap_done();
}
