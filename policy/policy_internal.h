/* SPDX-License-Identifier: Apache-2.0 */
/* Internal to the policy module: the schema of the language as data, value parsers shared
 * by the loader and the rules, and readings of the predicate the rules share. */
#ifndef BX_POLICY_INTERNAL_H
#define BX_POLICY_INTERNAL_H

#include "bx_policy.h"

struct bx_policy {
    json_t *effective;  /* owned: the effective policy after extends/merge, in the
                         * language's own form (sizes and durations as written) */
    char source[256];   /* file path or "profile:NAME@VERSION" */
    char profile[64];   /* the built-in profile it is or extends, resolved ("strict@2"), or "" */
    bx_trust_key *keys; /* owned */
    size_t nkeys;
    int threshold;      /* trust.threshold, default 1 */
    int64_t max_age;    /* seconds; -1 when absent */
    int64_t clock_skew; /* seconds; default 300 */
    int keys_shared;    /* a clone: the keys are the original's */
};

/* The top-level mapping of the language. */
extern const bx_shape bxp_schema;

/* Parse a semantic version "x.y.z" (each a decimal without leading zeros), optionally
 * followed by "-prerelease" and/or "+build". v[3] is 1 when there is a pre-release.
 * 0 on success, -1 when invalid. */
int bxp_semver_parse(const char *s, long long v[4]);
/* Compare two parsed versions: <0, 0, >0 (a pre-release sorts before its release). */
int bxp_semver_cmp(const long long a[4], const long long b[4]);

/* Built-in profiles: the text embedded from policy/profiles/NAME.yaml at build time
 * (generated, see CMakeLists.txt); NULL when there is no such file. */
const char *bxp_profile_file(const char *name);
extern const char *const bxp_profile_file_names[];

/* Effective-policy lookups: the value at a dotted path ("containment.network"), or NULL. */
const json_t *bxp_get(const json_t *effective, const char *path);

/* ---- readings of the predicate shared by the rules (observe.c) ------------------
 * The stronger/weaker comparator (requested.match) is schema/'s bx_compare_field, the
 * one the collector uses for `collect --requested`; so are bx_caps_held and
 * bx_cpu_limit. */

/* 1 when path equals base or lies under it ("/etc/x" under "/etc"; everything is under
 * "/"). Both must be absolute; trailing slashes are not special. */
int bxp_path_under(const char *path, const char *base);

/* The tri-state outcome of a reading. */
typedef enum { BXP_NO = 0, BXP_YES = 1, BXP_UNSEEN = -1 } bxp_tri;

/* 1 when name is in Docker 20.10's default capability set. */
int bxp_default_cap(const char *name);

/* The mode of namespace name ("pid", "net", ...): the kernel's reading when there is one,
 * else the engine's; NULL when neither was observed. */
const char *bxp_ns_mode(const json_t *containment, const char *name);
/* The same reading as the JSON string it is in the predicate (borrowed), or NULL. */
const json_t *bxp_ns_mode_value(const json_t *containment, const char *name);
/* 1 when mode (of namespace name) means the host's namespace: "host", and for the user
 * namespace also the engine's "default" (a daemon that does not remap; an explicit
 * --userns=host is "host", a remapping daemon "remapped"). container:<id> is another
 * container's namespace, not the host's. */
int bxp_ns_is_host(const char *name, const char *mode);

/* The session's user, as far as it was observed: uids (real, effective, saved, fs) and
 * gids from the kernel when recorded, else parsed from user.spec ("uid[:gid]", "" = the
 * image's default user, which the container config merges in: root). */
typedef struct {
    int have_uid, have_gid; /* uid/gid known (from the kernel or a numeric spec) */
    int uid_root, gid_root; /* some uid / gid (or supplementary group) is 0 */
    int named;              /* spec names a user that is not root: uid unknown */
    long long uids[4];      /* the uids seen (nuids of them) */
    size_t nuids;
    const json_t *every_uid; /* v2: every uid of every task (borrowed), or NULL */
} bxp_user;
/* Read containment.user into u. BXP_UNSEEN when user is null or unreadable. With v2's
 * every-id members, a root id is one of any task's ids, as this host or as the task's own user
 * namespace sees them. */
bxp_tri bxp_user_read(const json_t *user, bxp_user *u);

/* 1 when a device cgroup rule ("c 1:3 rwm") only grants one of the engine's default
 * pseudo-devices (or mknod): not a host device. */
int bxp_default_device_rule(const char *rule);

/* ---- evaluation (policy_eval.c, policy_cis.c, observe.c) ------------------------------ */

#define BXP_LIST_MAX 512 /* a list in a message */
#define BXP_MSG_MAX 1024 /* a message */

/* One evaluation: the policy, the statement and its parts (borrowed), where findings go. */
typedef struct {
    const bx_policy *p;
    const json_t *st;    /* the statement */
    const json_t *pred;  /* statement.predicate */
    const json_t *cont;  /* predicate.containment, or NULL */
    const json_t *pcont; /* the policy's containment section (most rules), or NULL */
    int64_t now;
    json_t *findings;
    unsigned version; /* the statement's predicate version (0: not one this release knows) */
    json_t *lacking;  /* optional: rules unknown only for a member that version lacks */
} bxp_ev;

/* Append a CIS finding: rule "cis.<id>" with "cis": id. expected/observed are stolen. */
/* A finding of rule (policy_eval.c's rules). expected and observed are stolen. */
void bxp_add(const bxp_ev *e, const char *rule, const char *status, json_t *expected,
             json_t *observed, const char *fmt, ...) BX_FMT(6, 7);
void bxp_cis(const bxp_ev *e, const char *id, const char *status, json_t *expected,
             json_t *observed, const char *fmt, ...) BX_FMT(6, 7);
/* A finding "unknown" for a rule whose member the statement lacks: "not in predicate vN"
 * when its version does not carry member, else "not observed". */
void bxp_not_carried(const bxp_ev *e, const char *rule, const char *member, const json_t *want,
                     const char *what);
/* containment.seccomp.deny and .programs, on containment.seccompPrograms (policy_seccomp.c). */
void bxp_eval_seccomp_programs(const bxp_ev *e);
/* The CIS Docker Benchmark 1.6 checks, when the policy selects the benchmark. */
void bxp_eval_cis(const bxp_ev *e);
/* containment.restart (id NULL) or CIS 5.15 (id "5.15"): at most max restarts. */
void bxp_restart_finding(const bxp_ev *e, const char *id, long long max, const json_t *expected);

/* ---- containment.channels (policy_channels.c, v3) ---- */
typedef enum { BXP_CH_PASS, BXP_CH_FAIL, BXP_CH_UNKNOWN } bxp_ch;
/* One entry of containment.channels judged against allow (socket paths, or NULL): fail for a
 * socket of a network namespace not the session's, for descriptors in flight, for a unix peer
 * not the session's whose path is not allowed; unknown when its namespace was not asked. */
bxp_ch bxp_channel_judge(const json_t *ch, const json_t *allow, char *why, size_t n);
void bxp_eval_channels(const bxp_ev *e);

/* ---- containment.references (policy_references.c, v3) ---- */
/* One entry of containment.references against allow (kinds, or NULL): pass when its kind is
 * allowed, unknown when unplaced (or no kind), fail otherwise. */
bxp_ch bxp_reference_judge(const json_t *ref, const json_t *allow);
void bxp_eval_references(const bxp_ev *e);

/* ---- containment.user_namespaces (policy_userns_create.c, v3) ---- */
/* containment.namespaceCreation judged for userNamespaces: false: fail when some ABI lets
 * clone or unshare through with CLONE_NEWUSER, or lets clone3 through, and
 * user.max_user_namespaces is above 0; pass when it is 0 or nothing is let through; unknown
 * when not read. why gets the reason. */
bxp_ch bxp_userns_create_judge(const json_t *nc, char *why, size_t n);
void bxp_eval_userns_create(const bxp_ev *e);
/* ---- containment.propagation_peers (policy_propagation.c, v3) ---- */
/* One entry of containment.propagationPeers: fail when its group has a host mount point
 * outside the session, unknown when that was not resolved (outside not a list), else pass. */
bxp_ch bxp_peer_judge(const json_t *peer);
void bxp_eval_propagation_peers(const bxp_ev *e);

/* Observed value at a dotted path of o (may be NULL), or NULL when absent or JSON null. */
const json_t *bxp_seen(const json_t *o, const char *path);
/* A new reference to v (findings share the statement's values: nothing modifies either),
 * or JSON null for NULL. */
json_t *bxp_copy(const json_t *v);
/* "a, b, c" (strings, or numbers for unknown capability bits) into out; "none" when empty. */
const char *bxp_join(const json_t *arr, char *out, size_t n);
/* A mount's source (when it has one) and destination are canonical paths (bx_path_canonical):
 * a v2 certificate's always are (its schema); in a v1 certificate a path that is not makes
 * each rule that compares it unknown, never a raw string comparison. */
int bxp_mount_canonical(const json_t *m);
/* Does an LSM value confine? member "profile" (AppArmor: anything but unconfined) or "label"
 * (SELinux: its type, from user:role:type[:level] or the joined label= options, is not one
 * of the unconfined domains spc_t, unconfined_t, ...): 1, 0 (also for none), -1 when the
 * label has no type to judge. */
int bxp_lsm_confines(const char *member, const char *v);
/* containment.network's keywords: none host bridge internal container (policy_schema.c) */
extern const char *const bxp_network_keywords[];
/* Append to a bounded message buffer ("..." when it is full). */
void bxp_append(char *buf, size_t n, const char *fmt, ...) BX_FMT(3, 4);
/* What a list rule reports as observed: bad (stolen) when it holds entries, else all
 * (a new reference). */
json_t *bxp_observed_list(json_t *bad, const json_t *all);
/* A published port as "hostIp:hostPort->containerPort/proto" into out. */
const char *bxp_port_text(const json_t *p, char *out, size_t n);
/* The session's user in words into out. */
const char *bxp_user_text(const json_t *user, const bxp_user *u, char *out, size_t n);
/* 1 when a mount's host source (canonical, or as given) is the forbidden path, under it
 * or holds it. "/" forbids only a mount of "/" itself. */
int bxp_mount_hits(const json_t *m, const char *forbidden);
/* Mounts with shared propagation: described into msg, copied into bad; -1 when a mount's
 * propagation is not observed, else 0. */
int bxp_shared_mounts(const json_t *mounts, char *msg, size_t n, json_t *bad);
/* Host devices exposed, described into msg: 1 some, 0 none, -1 not observed (or, v2, a
 * device node in the session's /dev whose cgroup access is not known). The nodes of v2 count:
 * one the device cgroup lets the session read or write, but the standard pseudo-devices. */
int bxp_host_devices(const json_t *dev, char *msg, size_t n);
/* policy_devnodes.c: predicate v3's device nodes anywhere and mknod in containment cont (a
 * statement of predicate version): 1 a node the rules open or a device a task can make (msg
 * says which), -1 not known (why says what), 0 neither or an older predicate. */
int bxp_devices_anywhere(const json_t *cont, unsigned version, char *msg, size_t n, char *why,
                         size_t wn);

/* ---- syscall tables (syscalls.c) ---- */
typedef struct {
    const char *name;
    unsigned nr; /* after the ABI's base (x32's 0x40000000) */
} bxp_syscall;
/* The table of ABI abi ("x86_64", "x32", "x86", "aarch64", "arm"), or -1. */
int bxp_syscall_abi(const char *abi);
/* The architecture of table abi (0: x86_64, x32, x86; 1: aarch64, arm), or -1. */
int bxp_syscall_family(int abi);
/* How many tables architecture family has. */
size_t bxp_syscall_family_size(int family);
/* How many numbers name stands for in table abi (0: none); the first max into nrs. */
size_t bxp_syscall_numbers(int abi, const char *name, unsigned *nrs, size_t max);
/* 1 when some table knows name. */
int bxp_syscall_known(const char *name);
/* Entry i of table abi (its name; its number into *nr), or NULL past the end. */
const char *bxp_syscall_name_at(int abi, size_t i, unsigned *nr);

#endif
