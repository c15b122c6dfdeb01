/* SPDX-License-Identifier: Apache-2.0 */
/* attest module internals: typed access to Engine API replies, the kernel's files, the
 * evidence kept for --evidence-out, and the views each source gives of the containment.
 * Not installed. */
#ifndef BX_ATTEST_INTERNAL_H
#define BX_ATTEST_INTERNAL_H

#include "bx_attest.h"

#include <dirent.h>

#include <pthread.h>

/* ---- engine replies --------------------------------------------------------------- */

/* Member at a JSON-pointer-like path ("/HostConfig/Memory"; no escapes) or NULL when any
 * step is absent or not an object. Borrowed. */
const json_t *bxa_get(const json_t *root, const char *ptr);

/* Typed reads of root's member at ptr. doc names the reply in err->where
 * ("container:/HostConfig/Memory"). Absent and null are the same: *out = NULL / *present
 * = 0 / *out = -1, or BX_EINVAL when required. A wrong type, a string with a NUL and an
 * integer beyond 2^53 are BX_EINVAL. Strings are borrowed from root. */
int bxa_str(const json_t *root, const char *doc, const char *ptr, int required, const char **out,
            bx_error *err) BX_WUR;
int bxa_int(const json_t *root, const char *doc, const char *ptr, int required, int *present,
            int64_t *out, bx_error *err) BX_WUR;
int bxa_bool(const json_t *root, const char *doc, const char *ptr, int required, int *out,
             bx_error *err) BX_WUR;
/* BX_EINVAL at doc:ptr with msg. */
int bxa_bad(bx_error *err, const char *doc, const char *ptr, const char *msg);
/* BX_EIO "out of memory". */
int bxa_oom(bx_error *err);

/* 1 if s is "sha256:" and 64 lowercase hex digits. */
int bxa_is_image_id(const char *s);

/* The fail-closed checks on a container inspect, in the order of certificate.md section 4:
 * the image ID first (BX_EDENIED when expect_image is given and differs), then running
 * (BX_EDENIED "container X is not running"). */
int bxa_check_session(const json_t *c, const char *expect_image, bx_error *err) BX_WUR;

/* Sort an array of strings in place (bytewise); of integers, ascending. */
void bxa_sort_json(json_t *arr, int (*cmp)(const void *, const void *));
void bxa_sort_strings(json_t *arr);
void bxa_sort_ints(json_t *arr);

/* ---- capabilities (capabilities.c) ---------------------------------------------------- */

#define BXA_CAP_COUNT 41 /* CAP_CHOWN (0) .. CAP_CHECKPOINT_RESTORE (40) */
/* Name without CAP_ of capability bit, or NULL beyond the known ones. */
const char *bxa_cap_name(unsigned bit);
/* Bit of a name without CAP_ (upper case), or -1. */
int bxa_cap_index(const char *name);
/* The names of the set bits, sorted; unknown bits as numbers after them. Caller owns. */
json_t *bxa_cap_names(uint64_t bits);
/* Docker 20.10's default set as bits. */
uint64_t bxa_cap_docker_defaults(void);

/* ---- kernel files (procfs.c): pure parsers ------------------------------------------ */

#define BXA_GROUPS_MAX 256
#define BXA_CGROUP_LINES_MAX 64
#define BXA_MOUNTS_MAX 4096
#define BXA_INTERFACES_MAX 256
#define BXA_ARGS_MAX 512
#define BXA_DEVICE_RULES_MAX 512

enum { BXA_CAP_INH, BXA_CAP_PRM, BXA_CAP_EFF, BXA_CAP_BND, BXA_CAP_AMB };

/* /proc/<pid>/status: the capability masks, NoNewPrivs, Seccomp (0 disabled, 1 strict,
 * 2 filter), real/effective/saved/fs uids and gids, supplementary groups. */
typedef struct {
    char name[64];
    uint64_t caps[5]; /* by BXA_CAP_* */
    int nnp, seccomp;
    int64_t uid[4], gid[4];
    int64_t groups[BXA_GROUPS_MAX];
    size_t ngroups;
} bxa_status;
/* Every one of the fields above must be present (BX_EINVAL names the first missing). */
int bxa_parse_status(const char *buf, size_t len, bxa_status *st, bx_error *err) BX_WUR;

/* /proc/<pid>/stat: pid (1), state (3), ppid (4), starttime (22, clock ticks after boot). */
typedef struct {
    int64_t pid, ppid;
    char state;
    uint64_t starttime;
} bxa_stat;
int bxa_parse_stat(const char *buf, size_t len, bxa_stat *st, bx_error *err) BX_WUR;

/* /proc/<pid>/cgroup: "ID:CONTROLLERS:/PATH" lines (v2's is "0::/PATH"). */
typedef struct {
    int hierarchy;
    char *controllers; /* "pids", "cpu,cpuacct", "name=systemd", "" for v2 */
    char *path;
} bxa_cgroup;
int bxa_parse_cgroup(const char *buf, size_t len, bxa_cgroup **out, size_t *n,
                     bx_error *err) BX_WUR;
void bxa_cgroups_free(bxa_cgroup *cg, size_t n);
/* The path of the hierarchy holding controller (v1), or of the unified one when
 * controller is NULL; NULL when there is none. Borrowed. */
const char *bxa_cgroup_path(const bxa_cgroup *cg, size_t n, const char *controller);
/* 1 if a cgroup path names the 64-hex container Id as its drivers spell it
 * ("/docker/<id>", ".../docker-<id>.scope", ".../libpod-<id>"). */
int bxa_cgroup_names(const char *path, const char *id);

/* /proc/<pid>/mountinfo, escapes undone. writable: the mount is rw and its file system
 * is not ro. optional holds the optional fields ("shared:2 master:1"). */
typedef struct {
    int64_t id;
    char *root, *point, *mnt_opts, *optional, *fstype, *source, *super_opts;
    int writable;
} bxa_mount;
int bxa_parse_mountinfo(const char *buf, size_t len, bxa_mount **out, size_t *n,
                        bx_error *err) BX_WUR;
void bxa_mounts_free(bxa_mount *m, size_t n);
/* The topmost mount at point, or NULL. Borrowed. */
const bxa_mount *bxa_mount_at(const bxa_mount *m, size_t n, const char *point);
/* size= of the file system's options (bytes), 0 when none, -1 beyond 2^53. */
int64_t bxa_mount_size_option(const bxa_mount *m);
int64_t bxa_size_option(const char *opts);

/* /proc/<pid>/net/dev: the interface names, sorted. Caller owns *names. */
int bxa_parse_net_dev(const char *buf, size_t len, json_t **names, bx_error *err) BX_WUR;
/* /proc/<pid>/cmdline: NUL-separated arguments. Caller owns *argv. */
int bxa_parse_cmdline(const char *buf, size_t len, json_t **argv, bx_error *err) BX_WUR;

/* A cgroup limit file (memory.limit_in_bytes, memory.max, pids.max, cpu.shares,
 * cpu.cfs_quota_us ...): *out = -1 for unlimited ("max", -1, or a value past 2^53 such
 * as v1's 9223372036854771712). */
int bxa_parse_limit(const char *buf, size_t len, int64_t *out, bx_error *err) BX_WUR;
/* v2 cpu.max "QUOTA PERIOD" or "max PERIOD": quota -1 when max. */
int bxa_parse_cpu_max(const char *buf, size_t len, int64_t *quota, int64_t *period,
                      bx_error *err) BX_WUR;
/* v1 devices.list: the rules as lines; *allow_all when "a *:* rwm" is among them. */
int bxa_parse_devices_list(const char *buf, size_t len, int *allow_all, json_t **rules,
                           bx_error *err) BX_WUR;

/* ---- evidence (evidence.c) ---------------------------------------------------------- */

enum { BXA_EV_ENGINE, BXA_EV_KERNEL, BXA_EV_SPEC, BXA_EV_KINDS };

/* An empty set of evidence files (NULL when out of memory); free with bxa_evidence_free. */
bx_evidence *bxa_evidence_new(void);
void bxa_evidence_free(bx_evidence *ev);
/* Forget every file of kind (a view that was read but does not count). */
void bxa_evidence_clear(bx_evidence *ev, int kind);

/* Keep a copy of the bytes behind one evidence hash under name (a relative path of at
 * most two components of [A-Za-z0-9._-], e.g. "container", "4242/status",
 * "cgroup/pids.max", "config.json"). A name kept twice is BX_EINVAL. */
int bxa_evidence_add(bx_evidence *ev, int kind, const char *name, const void *data, size_t len,
                     bx_error *err) BX_WUR;
/* The manifest {name: sha256 hex of the bytes} of kind and the SHA-256 of its JCS into
 * hex; hex = "" when nothing of that kind was kept. */
int bxa_evidence_digest(const bx_evidence *ev, int kind, char hex[65], bx_error *err) BX_WUR;
/* raw (JSON) with every string of the array at path (e.g. {"Config", "Env", NULL}) that
 * reads "K=V" replaced by "K=<redacted>"; every other byte kept as it was. Caller owns
 * *out (NUL-terminated one past *outlen). raw must be valid JSON. */
int bxa_redact_env(const char *raw, size_t len, const char *const *path, char **out, size_t *outlen,
                   bx_error *err) BX_WUR;

/* ---- the views of the sources (kernel.c, runsc.c, ocispec.c) ------------------------ */

/* What each source says, in the predicate's own shapes, under "containment" member names
 * ("rootfs": {"readOnly": true}, "capabilities": {...}, "resources": {...}, ...). A member
 * absent: the source says nothing; a member null: the source says it cannot be vouched
 * for (e.g. runsc with a flag this collector does not know). Extra members, not in the
 * predicate's shape: "namespaces" holds {pid: "private"|"host", ...}; "mountsReadOnly"
 * {destination: bool}; "writeSurface" entries carry "root" (the mount's root) until
 * reconciled. */
typedef struct {
    const char *level;    /* "engine", "engine+kernel" or "engine+runtime" */
    json_t *spec;         /* the task's OCI spec, or NULL */
    json_t *runtime;      /* runsc's actual arguments, or NULL */
    json_t *kernel;       /* the session's processes and cgroup, or NULL */
    json_t *runtime_args; /* runsc: the global flags of the sandbox's cmdline */
    json_t *sandbox;      /* runsc: evidence.sandbox */
    char why[200];        /* why the level is what it is (shown by inspect) */
} bxa_views;
void bxa_views_free(bxa_views *v);

/* ---- what collections by one process share (shared.c) ------------------------------- */

/* The engine daemon's namespaces as one lookup found them (key: how it was looked up). */
struct bxa_daemon {
    struct bxa_daemon *next;
    char *key;
    char ns[7][64];
    int have;
    int64_t pid;
};

struct bx_collect_shared {
    pthread_mutex_t mu;
    struct bxa_image *images; /* image inspects by engine and ID */
    struct bxa_daemon *daemons;
    char *host_proc; /* the proc root host_mounts were read from; NULL: not read yet */
    bxa_mount *host_mounts;
    size_t nhost_mounts;
    int host_mounts_read; /* 1 once tried (host_mounts may stay NULL) */
};

/* The image inspect of id on endpoint, when an earlier collection asked for it: 1 and
 * copies of it (*json, *raw, *len; caller owns them); 0 when not kept. */
int bxa_shared_image_get(bx_collect_shared *s, const char *endpoint, const char *id, json_t **json,
                         char **raw, size_t *len);
/* Keep an image inspect for the next collections (copied). */
void bxa_shared_image_put(bx_collect_shared *s, const char *endpoint, const char *id, json_t *json,
                          const char *raw, size_t len);

/* Where the collector looks; defaults (all NULL) are the host's own. */
typedef struct {
    const char *proc;      /* "/proc" */
    const char *task_root; /* "/run/containerd/io.containerd.runtime.v2.task/moby" */
    const char *pidfile;   /* "/var/run/docker.pid" */
} bxa_paths;

/* The session as the engine described it, for the kernel view. */
typedef struct {
    const char *id;                  /* container Id, 64 hex */
    int64_t pid;                     /* State.Pid */
    uint64_t begin;                  /* clock ticks after boot when the collection began */
    const char *runtime;             /* "runc", "crun", "runsc" or another name */
    const char *kind;                /* "docker" or "podman" */
    const char *socket;              /* the engine's unix socket (to find its daemon) */
    const char *oci_config;          /* podman: the task's config.json as libpod names it */
    const json_t *masked;            /* the engine's MaskedPaths (masks are not write surface) */
    const json_t *runtime_info_args; /* /info Runtimes.<runsc>.runtimeArgs */
    const json_t *sysctls;           /* HostConfig.Sysctls (the names to read back) */
    bxa_paths paths;
    bx_collect_shared *shared; /* host facts read once for several collections, or NULL */
} bxa_session;

/* Clock ticks after boot now (CLOCK_BOOTTIME in units of _SC_CLK_TCK). */
uint64_t bxa_boot_ticks(void);

/* Read the kernel's and the runtime's view of the session into v, keeping the raw files in
 * ev. Fails (BX_EINVAL/BX_EDENIED) only on what must stop the collection: a kernel file
 * that does not parse, or the session's init process changing under us. Otherwise, when
 * the view cannot be had (another PID namespace, an unknown runtime), v->level stays
 * "engine" and v->why says why. */
int bxa_kernel_read(const bxa_session *s, bxa_views *v, bx_evidence *ev, bx_error *err) BX_WUR;

/* The OCI spec's view of the containment (config.json already parsed). *seccomp_sha is the
 * SHA-256 (hex) of the JCS of linux.seccomp, "" when the spec has none. Caller owns *view. */
int bxa_spec_view(const json_t *config, json_t **view, char seccomp_sha[65], bx_error *err) BX_WUR;

/* runsc: interpret the global flags of the sandbox's command line. *view gets the runtime's
 * view (network, seccomp applied or not, NET_RAW, cgroups; every field null when a flag
 * is not known); spec is the spec's view (for the capabilities runsc leaves). */
int bxa_runsc_view(const json_t *flags, const json_t *spec, json_t **view, bx_error *err) BX_WUR;
/* The global flags of a runsc cmdline (argv[1] up to the subcommand), each normalised to
 * "--name" or "--name=value". Caller owns. */
json_t *bxa_runsc_flags(const json_t *argv);

/* ---- the kernel view's reading (kernel.c and the files it calls) --------------------- */

#define BXA_PROC_FILE_MAX (1024 * 1024)
#define BXA_PIDS_MAX 1024
#define BXA_NS_COUNT 7
#define BXA_NS_CONTAINMENT 6 /* the first six are predicate fields; mnt only tells mounts apart */
/* The namespaces read of a process, in this order (procread.c). */
extern const char *const bxa_ns_names[BXA_NS_COUNT];

/* One reading of the kernel's view (bxa_kernel_read). */
typedef struct {
    const bxa_session *s;
    bxa_views *v;
    bx_evidence *ev;
    bx_error *err;
    int procfd;
    /* the session's cgroup, from its init process */
    bxa_cgroup *cg;
    size_t ncg;
    const char *key_controller; /* v1 controller whose path names the Id; NULL: v2 */
    const char *key_path;
    /* this host's cgroup mounts (the collector's own mountinfo) */
    bxa_mount *hm;
    size_t nhm;
    int hm_shared; /* hm belongs to s->shared */
    char daemon_ns[BXA_NS_COUNT][64];
    int have_daemon;
    int64_t daemon_pid;
    json_t *spec_json; /* the parsed config.json */
} bxa_kctx;

/* One process, open through its /proc/<pid> directory (process.c). */
typedef struct {
    int64_t pid;
    int dfd;
    uint64_t start;
    char *stat, *cgroup;
    size_t stat_len, cgroup_len;
    char ns[BXA_NS_COUNT][64];
} bxa_proc;

/* The weakest over the session's processes (process.c; the mounts: surface.c). */
typedef struct {
    size_t n;
    uint64_t caps[5];
    int nnp;     /* 1 only when every process has it */
    int seccomp; /* the weakest: 0 < 2 < 1 */
    int ns_host[BXA_NS_CONTAINMENT];
    int ns_known;
    /* the user of the weakest process: one with a root id first, else the init process */
    bxa_status user;
    int user_rank; /* 2 has root, 1 init, 0 other, -1 none yet */
    json_t *surface, *interfaces, *mounts_ro;
    int rootfs_ro, rootfs_seen;
    char mnt_seen[16][64], net_seen[16][64];
    size_t nmnt, nnet;
} bxa_weakest;

/* procread.c. A whole file at dfd/name (no link followed at the last step), at most max
 * bytes; caller owns *buf (NUL-terminated). A file that is gone (the process exited) is
 * BX_ENOTFOUND. */
int bxa_read_at(int dfd, const char *name, size_t max, char **buf, size_t *len,
                bx_error *err) BX_WUR;
/* Keep what was read as evidence of kind (bxa_evidence_add into k->ev). */
int bxa_keep(bxa_kctx *k, int kind, const char *name, const char *buf, size_t len) BX_WUR;
/* readlink of dfd/ns/<name> ("net:[4026531833]") into out; "" when unreadable. */
void bxa_ns_link(int dfd, const char *name, char out[64]);

/* daemon.c: the engine daemon's namespaces into k (have_daemon 0 when not found); looked up
 * once per way of looking when k->s->shared is given. */
void bxa_daemon_lookup(bxa_kctx *k, const char *proc_root);

/* cgroup.c. Which hierarchy proves a process is the session's: the first v1 controller
 * whose path names the Id, else the unified (v2) one; -1 when none names it. */
int bxa_cgroup_key(bxa_kctx *k);
/* 1 if a process's cgroup file puts it in the session's cgroup (or one below it). */
int bxa_in_session(bxa_kctx *k, const char *buf, size_t len);
/* This host's folder of the session's cgroup in the hierarchy of controller (NULL: v2), or
 * -1 when that hierarchy is not mounted here or the cgroup is outside its mount. */
int bxa_cgroup_dir(bxa_kctx *k, const char *controller, char *out, size_t len);
/* Pids listed in dir/cgroup.procs and below (depth-limited), appended to pids (at most
 * BXA_PIDS_MAX), each cgroup.procs kept as evidence. */
int bxa_list_procs(bxa_kctx *k, int dfd, const char *rel, int depth, int64_t *pids,
                   size_t *n) BX_WUR;
/* Every pid of /proc whose cgroup names the session (when its cgroup folder is not
 * reachable from here). */
/* The collector's /proc (k->procfd) opened for listing, or NULL (errno set). */
DIR *bxa_proc_list(bxa_kctx *k);
int bxa_scan_procs(bxa_kctx *k, int64_t *pids, size_t *n) BX_WUR;
/* The cgroup's limits into view's "resources" and (v1) devices.list into its "devices",
 * members only for what was read. */
int bxa_read_limits(bxa_kctx *k, json_t *view, const json_t *engine_res) BX_WUR;
/* This host's mounts into k->hm: read once per proc root when the collection shares host
 * facts (then k->hm_shared). */
void bxa_host_mounts(bxa_kctx *k, const char *proc_root);

/* process.c. Open /proc/<pid>, read its stat and cgroup: 1 when it started no later than
 * the collection began (and is no zombie), 0 when not or gone, <0 error. Close with
 * bxa_proc_close whatever it returns. */
int bxa_proc_open(bxa_kctx *k, int64_t pid, bxa_proc *p) BX_WUR;
/* bxa_proc_open, and its cgroup names the session's. */
int bxa_proc_prove(bxa_kctx *k, int64_t pid, bxa_proc *p) BX_WUR;
/* After reading: 1 when the same process still (start time and cgroup unchanged). */
int bxa_proc_same(bxa_kctx *k, bxa_proc *p);
void bxa_proc_close(bxa_proc *p);
/* Keep a file of p as evidence, named "<pid>/<what>". */
int bxa_keep_proc(bxa_kctx *k, bxa_proc *p, const char *what, const char *buf, size_t len) BX_WUR;
/* runc, crun: every process of the session read and folded into k->v->kernel, the level
 * engine+kernel. */
int bxa_kernel_processes(bxa_kctx *k, bxa_proc *init) BX_WUR;

/* surface.c: one process's mountinfo folded into w's write surface, mounts_ro and rootfs. */
int bxa_fold_mounts(bxa_kctx *k, bxa_weakest *w, bxa_proc *p, const char *buf, size_t len) BX_WUR;

/* runsc_sandbox.c. 1 when argv is runsc's process `sub` ("boot", "gofer") of the container
 * id. */
int bxa_runsc_of(const json_t *argv, const char *sub, const char *id);
/* The cmdline of the process at dfd. Caller owns *argv. */
int bxa_read_argv(bxa_kctx *k, int dfd, json_t **argv) BX_WUR;
/* runsc: the sandbox sb read into k->v (runtime, runtime_args, sandbox, the cgroup's
 * limits as kernel when in_cgroup), the level engine+runtime. */
int bxa_runsc_sandbox(bxa_kctx *k, bxa_proc *sb, int in_cgroup) BX_WUR;

/* ocispec.c: the task's config.json, when it is here, into k->spec_json, its view into
 * k->v->spec and its bytes (process.env redacted) into the spec's evidence. */
int bxa_spec_read(bxa_kctx *k) BX_WUR;

/* kernel.c: the last component of a path ("" for NULL). Borrowed from s. */
const char *bxa_base_name(const char *s);

/* ---- sysctls (sysctl.c) -------------------------------------------------------------- */

/* The sysctls read back whatever the engine set (NULL-terminated). */
extern const char *const bxa_sysctl_watched[];
/* 1 when name is a sysctl name this collector records: words of [a-z0-9_-] joined by single
 * dots, at most 255 bytes. */
int bxa_sysctl_name_ok(const char *name);
/* The values of the sysctls named by the keys of names, as the namespaces of the process
 * whose /proc/<pid> directory is proc_dfd hold them, read by a helper thread that joins its
 * net, ipc and uts namespaces: *out {name: value | null} (null: no such sysctl, or not
 * readable; every value null when the namespaces cannot be joined). Whitespace runs in a
 * value are one space. BX_ENOMEM only; caller owns *out. */
int bxa_sysctl_read(int proc_dfd, const json_t *names, json_t **out, bx_error *err) BX_WUR;

/* ---- predicate (predicate.c), reconciliation (reconcile.c) ------------------------- */

/* The engine-level predicate, keeping the redacted inspect replies in ev (may be NULL);
 * inputsSha256 not yet computed. tls_peer: engine.tlsPeerSha256 or NULL. */
int bxa_predicate_engine(const bx_engine_replies *r, const bx_collect_opts *o, const char *endpoint,
                         const char *tls_peer, json_t **predicate, bx_evidence *ev,
                         bx_error *err) BX_WUR;
/* Refuse what cannot be recorded faithfully, then set inputsSha256. */
int bxa_predicate_finish(json_t *predicate, bx_error *err) BX_WUR;

/* ---- the engine-level predicate's builders (predicate*.c, capabilities.c) ----------- */

#define BXA_CONTAINER "container" /* the container inspect, as err->where names it */

/* One building of the engine-level predicate (bxa_predicate_engine). */
typedef struct {
    const json_t *version, *info, *c, *img, *net, *libpod;
    const bx_engine_replies *r;
    const bx_collect_opts *o;
    const char *endpoint, *tls_peer;
    bx_evidence *ev;
    int privileged;
    bx_error *err;
    json_error_t jerr;
} bxa_pctx;

/* SecurityOpt, parsed once (predicate_security.c). */
typedef struct {
    int nnp;
    int label_disable;
    int writable_cgroups;
    const char *seccomp;
    const char *apparmor;
    json_t *labels; /* owned: label=... values other than disable */
} bxa_secopts;

/* One member of the predicate: *out (caller owns) or an error. */
typedef int (*bxa_builder)(bxa_pctx *x, json_t **out);

/* predicate.c: the builders' tools. Hand over a value made by json_pack_ex(&x->jerr, ...). */
int bxa_packed(bxa_pctx *x, json_t *v, json_t **out) BX_WUR;
/* Set obj's key to v, append v to arr (v stolen; NULL is out of memory). */
int bxa_set(bxa_pctx *x, json_t *obj, const char *key, json_t *v) BX_WUR;
int bxa_push(bxa_pctx *x, json_t *arr, json_t *v) BX_WUR;
/* qsort comparator of json_t * strings. */
int bxa_cmp_str(const void *a, const void *b);
/* The string member k of o, "" when absent. Borrowed. */
const char *bxa_member(const json_t *o, const char *k);
/* Sort arr in place; with unique, drop items equal to their predecessor. */
int bxa_sort_array(bxa_pctx *x, json_t *arr, int (*cmp)(const void *, const void *),
                   int unique) BX_WUR;
/* A sorted copy of the string array at ptr: NULL member -> null_value ([] or null). */
int bxa_string_list(bxa_pctx *x, const json_t *root, const char *doc, const char *ptr,
                    int null_is_empty, json_t **out) BX_WUR;
int bxa_build_null(bxa_pctx *x, json_t **out) BX_WUR;

/* predicate_session.c */
int bxa_build_collector(bxa_pctx *x, json_t **out) BX_WUR;
int bxa_build_issued(bxa_pctx *x, json_t **out) BX_WUR;
int bxa_build_expires(bxa_pctx *x, json_t **out) BX_WUR;
int bxa_build_nonce(bxa_pctx *x, json_t **out) BX_WUR;
int bxa_build_host(bxa_pctx *x, json_t **out) BX_WUR;
int bxa_build_engine(bxa_pctx *x, json_t **out) BX_WUR;
int bxa_build_session(bxa_pctx *x, json_t **out) BX_WUR;
int bxa_build_image(bxa_pctx *x, json_t **out) BX_WUR;
int bxa_build_source(bxa_pctx *x, json_t **out) BX_WUR;
int bxa_build_runtime(bxa_pctx *x, json_t **out) BX_WUR;
/* "podman" when /version names a Podman component, else "docker". */
const char *bxa_engine_kind(const json_t *version);

/* predicate_network.c */
int bxa_build_network(bxa_pctx *x, json_t **out) BX_WUR;
/* HostConfig.NetworkMode with the engine's "default" named for what it is. */
int bxa_network_mode(bxa_pctx *x, const char **mode) BX_WUR;
/* The bindings made (NetworkSettings.Ports) against those asked for
 * (HostConfig.PortBindings): a discrepancy appended to disc when they differ. */
int bxa_port_discrepancy(bxa_pctx *x, json_t *disc) BX_WUR;

/* capabilities.c */
int bxa_build_capabilities(bxa_pctx *x, json_t **out) BX_WUR;

/* predicate_security.c: noNewPrivileges, seccomp, apparmor, selinux and writeSurface into
 * ct. */
int bxa_containment_security(bxa_pctx *x, json_t *ct) BX_WUR;
/* 1 when /info SecurityOptions lists name=<name>, 0 when not, -1 when not reported;
 * *profile (optional) its profile= value or NULL. */
int bxa_info_secopt(bxa_pctx *x, const char *name, const char **profile);

/* predicate_user.c */
int bxa_build_user(bxa_pctx *x, json_t **out) BX_WUR;
int bxa_build_namespaces(bxa_pctx *x, json_t **out) BX_WUR;

/* predicate_resources.c */
int bxa_build_resources(bxa_pctx *x, json_t **out) BX_WUR;
int bxa_build_sysctls(bxa_pctx *x, json_t **out) BX_WUR;

/* predicate_surface.c */
int bxa_build_rootfs(bxa_pctx *x, json_t **out) BX_WUR;
int bxa_build_write_surface(bxa_pctx *x, const bxa_secopts *so, json_t **out) BX_WUR;
int bxa_build_mounts(bxa_pctx *x, json_t **out) BX_WUR;
int bxa_build_devices(bxa_pctx *x, json_t **out) BX_WUR;
int bxa_build_masked(bxa_pctx *x, json_t **out) BX_WUR;
int bxa_build_readonly_paths(bxa_pctx *x, json_t **out) BX_WUR;

/* Apply the views to an engine-level predicate (certificate.md, "Which source wins"): the
 * kernel, then the runtime's arguments, then the OCI spec, then the engine; every
 * disagreement an evidence.discrepancies entry. Sets evidence.level, sandbox,
 * kernelSha256 and ociSpecSha256 (from ev). sources (optional) receives
 * {"<field>": "kernel"|"runtime"|"spec"|"engine"} for the fields a reader looks at. */
int bxa_reconcile(json_t *predicate, const bxa_views *v, const bx_evidence *ev, json_t *sources,
                  bx_error *err) BX_WUR;

#endif
