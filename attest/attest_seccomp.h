/* SPDX-License-Identifier: Apache-2.0 */
/* The seccomp programs of the session's tasks (seccomp_kernel.c reads them from the kernel,
 * seccomp_programs.c gives them their meaning for the certificate). Internal to attest. */
#ifndef BX_ATTEST_SECCOMP_H
#define BX_ATTEST_SECCOMP_H

#include "attest_internal.h"
#include "bx_seccomp.h"

/* A task's reading, by state. */
enum {
    BXA_SC_PENDING, /* in filter mode, to be read */
    BXA_SC_READ,    /* its chain read, counted against Seccomp_filters */
    BXA_SC_NONE,    /* Seccomp: 0, no filter */
    BXA_SC_STRICT,  /* Seccomp: 1, strict mode (read, write, exit, sigreturn only) */
    BXA_SC_UNREAD,  /* could not be read: why says why */
    BXA_SC_GONE,    /* exited, or a zombie: runs no syscall */
};

#define BXA_SC_FILTERS_MAX 64

typedef struct {
    int64_t tid;
    int state;
    int64_t expect; /* Seccomp_filters of its status, -1 when the kernel has no such line */
    char why[200];
    struct sock_filter *filter[BXA_SC_FILTERS_MAX]; /* owned, oldest first */
    size_t len[BXA_SC_FILTERS_MAX];
    uint64_t flags[BXA_SC_FILTERS_MAX]; /* SECCOMP_FILTER_FLAG_* the kernel reports (LOG) */
    size_t nfilters;
    int64_t stopped_us; /* how long it was stopped */
} bxa_sc_task;

/* The reader: the collector's own confinement and what the reading cost. */
typedef struct {
    int checked, confined;
    int cap_sys_admin, initial_userns, seccomp;
    char why[200];
    int64_t stopped_us_total, stopped_us_max, wait_us_total;
} bxa_sc_reader;

/* How long a task may take to stop after PTRACE_INTERRUPT, in microseconds (100 ms). */
extern long bxa_sc_deadline_us;

/* The calling thread's confinement into r (checked, confined, why). */
void bxa_sc_self(bxa_sc_reader *r);
/* A task from its status: its state (PENDING when its chain is to be read), expect, why. */
void bxa_sc_task_init(bxa_sc_task *t, int64_t tid, const char *status);
void bxa_sc_task_clear(bxa_sc_task *t);
/* Read the PENDING tasks, one at a time, each by a helper thread (never left traced). A task
 * ends READ, UNREAD (why) or GONE. BX_EIO only when no thread can be started. */
int bxa_sc_read_tasks(bxa_sc_reader *r, bxa_sc_task *tasks, size_t n, bx_error *err) BX_WUR;

/* ---- the set of chains of a session (seccomp_programs.c) ------------------------------- */

typedef struct bxa_sc_set bxa_sc_set;
bxa_sc_set *bxa_sc_set_new(void);
void bxa_sc_set_free(bxa_sc_set *s);
/* The reader of the set (its confinement, its costs). Borrowed. */
bxa_sc_reader *bxa_sc_set_reader(bxa_sc_set *s);
/* One task's chain (or state) counted; filters copied. */
int bxa_sc_set_add(bxa_sc_set *s, const bxa_sc_task *t, bx_error *err) BX_WUR;
/* Every task of process p (tids and their status texts) read and counted; the filters'
 * bytes kept as the kernel's evidence ("seccomp/<sha256 of the filter>") and one line per
 * task in "<pid>/seccomp". On a recorded /proc (not this host's) nothing is read: the
 * tasks in filter mode are unread. */
int bxa_sc_fold_proc(bxa_kctx *k, bxa_sc_set *s, const bxa_proc *p, const int64_t *tids,
                     char *const *status, size_t n) BX_WUR;
/* containment.seccompPrograms: servedBy ("kernel", "sentry"), the chains with their
 * meaning, the tasks' counts, those unread, the evaluation of the OCI profile oci (the
 * spec's linux.seccomp, or NULL) against them, and, for runsc, sandbox: the sentry's own
 * chains (sandbox_set, or NULL); workload, when given, is one more chain (runsc: the profile's
 * rules the sentry enforces). The profile is judged by its rules (bxa_sc_rules_table), never
 * compiled. Caller owns *out. */
int bxa_sc_json(bxa_sc_set *s, const json_t *oci, const char *served_by, bxa_sc_set *sandbox_set,
                const bx_seccomp_table *workload, json_t **out, bx_error *err) BX_WUR;
/* runsc: containment.seccompPrograms of a sandbox sb: servedBy sentry, chains the OCI
 * profile's program when the runtime's view rt_seccomp says the sentry enforces it (mode
 * filter: --oci-seccomp), none otherwise; sandbox the sentry's own chains, read from every
 * task of sb; *ns containment.namespaceCreation of the sandbox's own tasks (servedBy sentry).
 * Caller owns *out and *ns. */
int bxa_sc_runsc(bxa_kctx *k, const bxa_proc *sb, const json_t *rt_seccomp, json_t **out,
                 json_t **ns) BX_WUR;
/* The verdicts of an OCI profile (linux.seccomp) from its rules, without compiling it
 * (seccomp_rules.c); sha256 zero, filters and insns 0. BX_EINVAL for an action it does not
 * know. Caller owns *out (bx_seccomp_table_free). */
int bxa_sc_rules_table(const json_t *oci, bx_seccomp_table **out, bx_error *err) BX_WUR;
/* The distinct chains of s read so far: chain i's filters (borrowed) into *progs, *n. */
size_t bxa_sc_set_nchains(const bxa_sc_set *s);
const bx_seccomp_prog *bxa_sc_set_chain(const bxa_sc_set *s, size_t i, size_t *n);
/* The tasks of s by state: without seccomp, not read (unread or the reader confined). */
int64_t bxa_sc_set_none(const bxa_sc_set *s);
int64_t bxa_sc_set_unread(const bxa_sc_set *s);

/* ---- namespace creation (ns_creation.c) -------------------------------------------------- */

/* containment.namespaceCreation (v3): per ABI, the namespaces a task of s can create with
 * clone, unshare and clone3 by the seccomp chains the kernel enforces (bx_seccomp_arg_reach),
 * and user.max_user_namespaces as the session's process proc_dfd sees it (max_user_ns: the
 * value, or -1 when not read). served_by: "kernel" or "sentry". Caller owns *out. */
int bxa_ns_creation_json(bxa_sc_set *s, const char *served_by, long long max_user_ns,
                         json_t **out, bx_error *err) BX_WUR;
/* The per-ABI record of one chain (n filters, n 0: a task without seccomp) into abis
 * ({abi: {clone, unshare, clone3} | null}), joined with what is there. */
int bxa_ns_creation_fold(const bx_seccomp_prog *chain, size_t n, json_t *abis,
                         bx_error *err) BX_WUR;
/* user.max_user_namespaces as a task in the user namespace of process proc_dfd reads it (the
 * kernel resolves the user.* sysctls in the reader's user namespace): *out the value, -1 when
 * it could not be read. A child process joins that namespace when it is not the collector's. */
void bxa_userns_max_read(int proc_dfd, long long *out);

/* One chain's meaning: {sha256, tasks, filters, insns, log, abis, otherArch}. */
json_t *bxa_sc_chain_json(const bx_seccomp_table *t, int64_t tasks, int log);

#endif
