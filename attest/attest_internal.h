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
#define BXA_NSPID_MAX 33
#define BXA_ID_MAP_MAX 340 /* the kernel's limit of uid_map lines */
#define BXA_OVERFLOW_ID 65534
#define BXA_NS_COUNT 8
#define BXA_NS_CONTAINMENT 6 /* the first six are v1 predicate fields; mnt and time are v2's */
enum { BXA_NS_PID, BXA_NS_IPC, BXA_NS_UTS, BXA_NS_NET, BXA_NS_USER, BXA_NS_CGROUP, BXA_NS_MNT,
       BXA_NS_TIME };
#define BXA_SCANS_MAX 4 /* scans of the session's processes before giving up on agreement */
#define BXA_SEEN_MAX 16 /* distinct namespaces of one kind among the session's processes */
#define BXA_IDS_MAX 4096

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
    int64_t tracer;    /* TracerPid (0: not traced) */
    int nspid_depth;   /* NSpid: how many pid namespaces see it (0: no NSpid line) */
    int64_t nspid_last; /* its pid in its own pid namespace */
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
    unsigned major, minor; /* the file system's device (field 3) */
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
/* cpuset.cpus.effective, cpuset.mems.effective (v1 cpuset.effective_cpus/_mems), an
 * engine's CpusetCpus/CpusetMems: "0-3,8" in canonical form into out (NUL-terminated); ""
 * for an empty list. Numbers below BXA_CPULIST_MAX (the kernel's largest NR_CPUS). */
#define BXA_CPULIST_MAX 8192
#define BXA_CPULIST_LEN 8192 /* the longest canonical list kept (longer: an error) */
int bxa_parse_cpulist(const char *buf, size_t len, char *out, size_t outlen, bx_error *err) BX_WUR;
/* v1 devices.list: the rules as lines; *allow_all when "a *:* rwm" is among them. */
int bxa_parse_devices_list(const char *buf, size_t len, int *allow_all, json_t **rules,
                           bx_error *err) BX_WUR;

/* /proc/<pid>/uid_map or gid_map: [first inside, first outside, count] lines. */
typedef struct {
    int64_t inside[BXA_ID_MAP_MAX], outside[BXA_ID_MAP_MAX], count[BXA_ID_MAP_MAX];
    size_t n;
} bxa_id_map;
int bxa_parse_id_map(const char *buf, size_t len, bxa_id_map *m, bx_error *err) BX_WUR;
/* The id inside the namespace of an id outside it, or BXA_OVERFLOW_ID when it maps none. */
int64_t bxa_id_map_inside(const bxa_id_map *m, int64_t outside);
/* /proc/<pid>/fdinfo/<fd>: its mnt_id line. */
int bxa_parse_fdinfo_mnt(const char *buf, size_t len, int64_t *mnt_id, bx_error *err) BX_WUR;
/* "net:[4026531833]" -> "net" and 4026531833; -1 when not a namespace link. */
int bxa_ns_link_parse(const char *link, char type[16], uint64_t *ino);
/* What the rules of a v1 devices.list (lines, as bxa_parse_devices_list gives them) let a
 * process do with device type ('c' or 'b') major:minor: BXA_DEV_* bits. */
enum { BXA_DEV_READ = 1, BXA_DEV_WRITE = 2, BXA_DEV_MKNOD = 4 };
int bxa_device_access(const json_t *rules, char type, unsigned major, unsigned minor);

/* devbpf.c: cgroup v2's device programs. One instruction as the kernel holds it (struct
 * bpf_insn: dst register in the low nibble of regs, src in the high one). */
typedef struct {
    uint8_t code, regs;
    int16_t off;
    int32_t imm;
} bxa_insn;
typedef struct {
    size_t n;         /* programs */
    bxa_insn **insns; /* each program's instructions */
    size_t *len;      /* and their counts */
} bxa_devprogs;
void bxa_devbpf_free(bxa_devprogs *p);
/* One program on one access (type BPF_DEVCG_DEV_*, access BPF_DEVCG_ACC_* bits): 1 allowed,
 * 0 denied, -1 it cannot be interpreted (why says where). *steps (when given) counts. */
int bxa_devbpf_run(const bxa_insn *p, size_t n, unsigned type, unsigned major, unsigned minor,
                   unsigned access, uint64_t *steps, char *why, size_t whylen);
/* What every program together lets a process do with device type ('c' or 'b') major:minor:
 * BXA_DEV_* bits; -1 when some program cannot be interpreted. */
int bxa_devbpf_access(const bxa_devprogs *p, char type, unsigned major, unsigned minor);
/* 1 when every program allows every access to every device (no program: 1), 0 when one
 * denies one, -1 when they cannot be interpreted (why). */
int bxa_devbpf_allow_all(const bxa_devprogs *p, char *why, size_t whylen);

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
    const char *possible; /* the highest level the session's runtime allows here (static) */
} bxa_views;
void bxa_views_free(bxa_views *v);

/* ---- what collections by one process share (shared.c) ------------------------------- */

/* The engine daemon's namespaces as one lookup found them (key: how it was looked up). */
struct bxa_daemon {
    struct bxa_daemon *next;
    char *key;
    char ns[BXA_NS_COUNT][64];
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
    /* prefix of this host's mount points (the cgroup folders): "" on a host; a recorded tree's
     * folder in the tests */
    const char *mount_prefix;
} bxa_paths;

/* Another container the engine lists: its Id and name (without the leading "/"). */
typedef struct {
    char id[65];
    char name[256];
} bxa_container;

/* The engine's other containers, asked for only when the kernel view needs them (a process
 * in the session's pid namespace or cgroup may be another container's). 0 with *list (caller
 * frees) and *n, or an error. */
typedef int (*bxa_containers_fn)(void *arg, bxa_container **list, size_t *n, bx_error *err);

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
    const json_t *host_config;       /* HostConfig (the namespace modes) */
    const char *sandbox_key;         /* NetworkSettings.SandboxKey: the engine's netns mount */
    const char *const *signing_keys; /* the collector's signing keys (host objects) */
    const json_t *mounts;            /* the inspect's Mounts (their Source names the object) */
    size_t nsigning_keys;
    bxa_containers_fn containers;    /* the engine's containers, or NULL: none known */
    void *containers_arg;
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
/* The highest level a session of this runtime can be collected at on its own host:
 * engine+runtime for runsc, engine+kernel for runc and crun, engine otherwise. */
const char *bxa_level_possible(const char *runtime);

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
    const char *key_path;       /* its topmost folder naming the Id (key_own) */
    char *key_own;
    /* this host's cgroup mounts (the collector's own mountinfo) */
    bxa_mount *hm;
    size_t nhm;
    int hm_shared; /* hm belongs to s->shared */
    char daemon_ns[BXA_NS_COUNT][64];
    int have_daemon;
    int64_t daemon_pid;
    json_t *spec_json; /* the parsed config.json */
    int real_proc;     /* the proc root is this host's own /proc: pidfds, ioctls, netlink */
    /* while ns_root_of's mount namespace is folded: that namespace's root (bxa_root_open) */
    const void *ns_root_of; /* a bxa_proc */
    int ns_root;
    int64_t self_pid;  /* the collector (never the session's, never sharing) */
    /* who is the session's (scan.c) */
    int rule;                 /* BXA_RULE_* */
    char init_pidns[64];      /* the init process's pid namespace link */
    int init_nspid_depth;     /* how many pid namespaces see the init */
    bxa_container *others;    /* the engine's other containers */
    size_t nothers;
    int others_read;
    uint64_t below_ino[64];   /* pid namespaces found below the session's or not */
    signed char below_is[64];
    size_t nbelow;
    /* the engine's sockets (descriptors.c) */
    uint64_t *engine_ino;     /* listening sockets bound to an engine path, and their peers */
    char (*engine_path)[108];
    size_t nengine;
    json_t *dev_rules;        /* v1 devices.list of the session's cgroup, or NULL */
    /* the host objects the session must not reach (hostobj.c), found once */
    struct bxa_hostobj *hobj;
    size_t nhobj;
    int hobj_read;
    const char *hobj_unknown; /* why they are not known (then hostObjects is null) */
    bxa_devprogs *dev_progs;  /* v2: the device programs in force, when interpreted */
} bxa_kctx;

enum { BXA_RULE_PIDNS = 1, BXA_RULE_CGROUP, BXA_RULE_SANDBOX };

/* One process, open through its /proc/<pid> directory (process.c). */
typedef struct {
    int64_t pid;
    int dfd;
    int pidfd; /* a pidfd taken before /proc/<pid> was opened, or -1 */
    uint64_t start;
    char *stat, *cgroup;
    size_t stat_len, cgroup_len;
    char ns[BXA_NS_COUNT][64];
} bxa_proc;

/* A process found by a scan: its pid and start time (one process, whatever pid reuse). */
typedef struct {
    int64_t pid;
    uint64_t start;
} bxa_pidstart;

/* A sorted set of ids (every uid, gid, group). */
typedef struct {
    int64_t v[BXA_IDS_MAX];
    size_t n;
    int full; /* more than BXA_IDS_MAX distinct ids: not recorded */
} bxa_idset;
void bxa_idset_add(bxa_idset *s, int64_t id);
json_t *bxa_idset_json(const bxa_idset *s);

/* One mount namespace of the session, as its mountinfo shows it. */
typedef struct {
    char ns[64];
    int64_t *mount_ids; /* sorted */
    size_t nmount_ids;
} bxa_mntns;

/* One user namespace of the session. */
typedef struct {
    char ns[64];
    bxa_id_map uid, gid;
    int have_maps;
    int64_t processes;
} bxa_userns;

/* ---- host objects (hostobj.c) ----------------------------------------------------------- */

#define BXA_HOSTOBJ_MAX 48
enum { BXA_REACH_NO = 0, BXA_REACH_YES = 1, BXA_REACH_UNKNOWN = 2, BXA_REACH_WALK = 3 };
enum { BXA_FS_PLAIN = 0, BXA_FS_FORBIDDEN, BXA_FS_UNINSPECTED };
/* One host object, by identity. fs_path: its path within its file system (NULL when this
 * host's mountinfo cannot place it). below: a folder reached also by a mount inside it.
 * whole: a file system reached by any mount of it. */
typedef struct bxa_hostobj {
    const char *what;
    char *path, *fs_path;
    unsigned major, minor;
    uint64_t ino, nlink;
    int is_dir, below, whole;
} bxa_hostobj;
/* 1 when path p is anc or below it (both absolute, canonical). */
int bxa_path_within(const char *anc, const char *p);
/* BXA_FS_FORBIDDEN (devtmpfs, a writable cgroup v1 hierarchy, debugfs, ...),
 * BXA_FS_UNINSPECTED (fuse, nfs, cifs, 9p, ...: never opened) or BXA_FS_PLAIN. */
int bxa_fstype_class(const bxa_mount *e);
/* 1 when mount e, of devtmpfs, is a read-only bind of the null device alone (st: the object at
 * its point, on e's device): a masked path, not a forbidden mount. */
struct stat;
int bxa_masking_null(const bxa_mount *e, const struct stat *st);
/* The path within its file system of host path `path` on device major:minor, from this host's
 * mountinfo hm (the mount showing it: the longest mount point holding it, the last at that
 * point). BX_ENOTFOUND when that mount is not of the device. Caller frees *out. */
int bxa_fs_path(const bxa_mount *hm, size_t n, const char *path, unsigned major,
                unsigned minor, char **out) BX_WUR;
/* Whether mount e exposes o: BXA_REACH_YES, _NO, _UNKNOWN (same device, o not placed) or
 * _WALK (same device, elsewhere: only a hard link could reach it). */
int bxa_hostobj_exposes(const bxa_hostobj *o, const bxa_mount *e);
/* Look beneath fd (O_PATH, taken; a mount's object) for a hard link to o, at most `entries`
 * entries: _YES, _NO, or _UNKNOWN (a bound reached, a covered part, an unreadable entry). */
int bxa_find_link(int fd, const bxa_hostobj *o, size_t entries);
void bxa_hostobjs_free(bxa_hostobj *o, size_t n);
/* The host objects into k (once; k->hobj_unknown says why there are none). */
int bxa_host_objects(bxa_kctx *k) BX_WUR;
/* One mount namespace's mounts folded into w's host objects (rootfd: the session's root for
 * that namespace, or -1). */
struct bxa_weakest;
int bxa_fold_hostobj(bxa_kctx *k, struct bxa_weakest *w, int rootfd, const bxa_mount *m,
                     size_t n) BX_WUR;
/* containment.hostObjects from w (null when the objects are not known). */
int bxa_hostobj_view(bxa_kctx *k, struct bxa_weakest *w, json_t **out) BX_WUR;
/* apparmor.c: one task's AppArmor label, "[:NS:]NAME[ (MODE)]" profiles stacked with //&. */
#define BXA_AA_STACK_MAX 8
typedef struct {
    char ns[128], name[256], mode[16];
} bxa_aa_profile;
typedef struct {
    char text[1024]; /* the label as the kernel wrote it, without the newline */
    bxa_aa_profile p[BXA_AA_STACK_MAX];
    size_t n;
} bxa_aa_label;
typedef struct bxa_aa bxa_aa;
/* 0, or -1 when buf is not a label the kernel writes (a mode given to each profile: the one
 * written after it or, "a//&b (enforce)", after the last; "unconfined" has its own; "mixed"
 * when the kernel says the stack's modes differ: the caller reads each from securityfs). */
int bxa_aa_parse_label(const char *buf, size_t len, bxa_aa_label *out);
/* 1 when some profile of the stack is in enforce or kill mode. */
int bxa_aa_label_enforced(const bxa_aa_label *l);
void bxa_aa_free(bxa_aa *a);

/* The weakest over the session's processes (process.c; the mounts: surface.c). */
typedef struct bxa_weakest {
    size_t n;
    uint64_t caps[5];
    int nnp;     /* 1 only when every process has it */
    int seccomp; /* the weakest: 0 < 2 < 1 */
    int ns_host[BXA_NS_COUNT];
    int ns_known;
    /* the user of the weakest process: one with a root id first, else the init process */
    bxa_status user;
    int user_rank; /* 2 has root, 1 init, 0 other, -1 none yet */
    json_t *surface, *interfaces, *mounts_ro;
    int rootfs_ro, rootfs_seen;
    char mnt_seen[16][64], net_seen[16][64];
    size_t nmnt, nnet;
    /* v2 */
    size_t ntasks;
    bxa_idset every_uid, every_gid, every_group;    /* as the collector sees them */
    bxa_idset inns_uid, inns_gid, inns_group;       /* as each task's user namespace does */
    bxa_userns userns[BXA_SEEN_MAX];
    size_t nuserns;
    int userns_overflow;
    bxa_mntns mntns[16];
    size_t nmntns;
    char ns_seen[BXA_NS_COUNT][BXA_SEEN_MAX][64]; /* the session's namespaces, by kind */
    size_t nns_seen[BXA_NS_COUNT];
    json_t *outside;     /* processes.outsideCgroups */
    int escaped[3];      /* memory, pids, devices: some process outside the session's cgroup */
    json_t *descriptors; /* descriptors reaching outside */
    json_t *references;  /* references beyond descriptors reaching outside (v3) */
    json_t *peers;       /* propagationPeers (v3); NULL once not known */
    json_t *ns_fds;      /* descriptors of namespaces, judged once every process is read */
    int sys_ro[4];       /* systemPaths.readOnly: 1, 0, -1 not seen */
    json_t *masks;       /* systemPaths.masks */
    int64_t *pids;       /* the processes counted */
    size_t npids;
    /* containment.hostObjects (hostobj.c): per host object of k, BXA_REACH_*; the mounts
     * through which each is reached ({"<index>": [destination...]}); the mounts of a
     * forbidden type, the uninspected ones, and every mount described */
    signed char hobj_reach[BXA_HOSTOBJ_MAX];
    json_t *hobj_via, *hobj_types, *hobj_uninspected, *hobj_mounts;
    bxa_aa *aa;          /* apparmor.c: every task's label */
    struct bxa_sc_set *sc; /* the tasks' seccomp chains (attest_seccomp.h) */
} bxa_weakest;

/* apparmor.c: task tid of process p's label folded into w (a label not readable makes
 * enforced null); the view's "apparmor": {"kernel": {hostEnabled, enforced, labels,
 * profiles}}. */
int bxa_aa_task(bxa_kctx *k, bxa_weakest *w, bxa_proc *p, int64_t tid) BX_WUR;
int bxa_aa_view(bxa_kctx *k, bxa_weakest *w, json_t *view) BX_WUR;

/* procread.c. A whole file at dfd/name (no link followed at the last step), at most max
 * bytes; caller owns *buf (NUL-terminated). A file that is gone (the process exited) is
 * BX_ENOTFOUND. */
int bxa_read_at(int dfd, const char *name, size_t max, char **buf, size_t *len,
                bx_error *err) BX_WUR;
/* A directory stream over a copy of dfd (dfd stays the caller's, at its offset); NULL when
 * the copy or the stream cannot be had. */
DIR *bxa_opendir_dup(int dfd);
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
/* The collector's /proc (k->procfd) opened for listing, or NULL (errno set). */
DIR *bxa_proc_list(bxa_kctx *k);
/* The cgroup's limits into view's "resources" and (v1) devices.list into its "devices",
 * members only for what was read. */
int bxa_read_limits(bxa_kctx *k, json_t *view, const json_t *engine_res) BX_WUR;
/* devbpf.c: the device programs in force on the cgroup folder dir (the kernel's effective
 * list, each kept as evidence cgroup/devices.bpf.<n>): 0 with *out (caller frees with
 * bxa_devbpf_free), or *out NULL and why empty (not a cgroup: not read here) or why saying
 * what could not be read; < 0 an error. */
int bxa_devbpf_read(bxa_kctx *k, const char *dir, bxa_devprogs **out, char *why,
                    size_t whylen) BX_WUR;
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

/* process.c: the weakest values, empty (NULL when out of memory); free. */
bxa_weakest *bxa_weakest_new(void);
void bxa_weakest_free(bxa_weakest *w);
/* Every task of p folded into w (capabilities, no-new-privileges, seccomp, ids), each
 * task's status kept as evidence. BX_ENOTFOUND when the process is gone. */
int bxa_fold_tasks(bxa_kctx *k, bxa_weakest *w, bxa_proc *p) BX_WUR;
/* The ns_fds of w that are not the session's namespaces moved into w->descriptors. */
int bxa_foreign_ns_fds(bxa_kctx *k, bxa_weakest *w) BX_WUR;

/* surface.c: one process's mountinfo (parsed) folded into w's write surface, mounts_ro and
 * rootfs. */
int bxa_fold_mounts(bxa_kctx *k, bxa_weakest *w, bxa_proc *p, const bxa_mount *m,
                    size_t n) BX_WUR;

/* ---- who is the session's (scan.c) ----------------------------------------------------- */

/* A pidfd of pid (pidfd_open), or -1 (the kernel has none, or the process is gone). */
int bxa_pidfd_open(int64_t pid);
/* 1 while the process of a pidfd has not exited, 0 once it has, -1 without a pidfd. */
int bxa_pidfd_alive(int pidfd);
/* Which rule says who the session's processes are, from the init process and its status:
 * BXA_RULE_PIDNS when it is the first process of a pid namespace of its own (NSpid ends in
 * 1, seen by more than one pid namespace, not the daemon's), else BXA_RULE_CGROUP. */
void bxa_session_rule(bxa_kctx *k, const bxa_proc *init, const bxa_status *st);
/* The engine's other containers into k (once): 0, or the error of the engine's listing. */
int bxa_others(bxa_kctx *k) BX_WUR;
/* 1 when a process's cgroup file puts it in another container's cgroup (the deepest
 * container a hierarchy's path names is not the session), with that container's Id in
 * id (65 bytes) when given; 0 otherwise. */
int bxa_cgroup_other(bxa_kctx *k, const char *buf, size_t len, char *id);
/* 1 when one of a process's v1 hierarchies (or v2's) puts it in the session's cgroup or below
 * it (the session's path in that hierarchy). */
int bxa_in_session_any(bxa_kctx *k, const char *buf, size_t len);
/* 1 when cgroup path p is base or below it. */
int bxa_path_at_or_below(const char *p, const char *base);
/* Every process of the session now, by k->rule, sorted by pid (at most max). Processes
 * started after the collection began, zombies and the collector are never the session's. */
int bxa_scan_session(bxa_kctx *k, bxa_pidstart *out, size_t max, size_t *n) BX_WUR;
/* 1 when the process at dfd is the session's by k->rule, whenever it started (a process
 * started after the collection began is the session's too, though not read). pidlink: its
 * ns/pid link ("" when unreadable) when the caller has read it, else NULL. */
int bxa_session_member(bxa_kctx *k, int dfd, const char *pidlink);
/* 1 when a later scan (cur) agrees with an earlier one (prev): every process it finds was
 * found before, with the same start time (processes that exited in between were read). */
int bxa_scans_agree(const bxa_pidstart *prev, size_t nprev, const bxa_pidstart *cur, size_t ncur);

/* Scanning until two scans agree (bxa_settle): scan the session's processes; read the
 * processes of a scan (a round: the weakest values start again); say whether every process
 * of a scan is the one read (its pidfd alive). Each returns <0 on an error that stops the
 * collection. */
typedef struct {
    int (*scan)(void *ctx, bxa_pidstart *out, size_t max, size_t *n);
    int (*read)(void *ctx, const bxa_pidstart *set, size_t n);
    int (*alive)(void *ctx, const bxa_pidstart *set, size_t n);
} bxa_settle_ops;
/* Scan, read, scan again until a scan agrees with the one read and every process it finds
 * is alive, at most max_scans scans: *scans made, *settled 1 when they agreed. The last
 * round read stays in the caller's context. bufa, bufb: room for cap processes each. */
int bxa_settle(void *ctx, const bxa_settle_ops *ops, int max_scans, bxa_pidstart *bufa,
               bxa_pidstart *bufb, size_t cap, int *scans, int *settled) BX_WUR;

/* ---- what else the session's processes show (sharing.c, syspaths.c, descriptors.c,
 * devnodes.c) ------------------------------------------------------------------------------ */

/* For each namespace kind, who outside the session is in one of the session's namespaces of
 * that kind or holds it open (every process of this host but the session's and the
 * collector's: their namespaces, descriptors and nsfs mounts). *out {pid: {host, containers,
 * heldOpen}, ...} by bxa_ns_names. */
int bxa_ns_sharing(bxa_kctx *k, const bxa_weakest *w, json_t **out) BX_WUR;

/* The paths systemPaths.readOnly names (sorted), and the masked paths watched whatever the
 * engine masks (Docker's defaults), NULL-terminated. */
extern const char *const bxa_sys_ro_paths[4];
extern const char *const bxa_masked_watched[];
/* One mount namespace's mounts folded into w->sys_ro and w->masks (the process p gives its
 * root, to tell an absent path from an exposed one). */
int bxa_fold_syspaths(bxa_kctx *k, bxa_weakest *w, bxa_proc *p, const bxa_mount *m,
                      size_t n) BX_WUR;

/* The engine's and containerd's listening sockets (this host's net/unix) and, through
 * sock_diag in the daemon's network namespace, the sockets connected to them (their
 * peers), into k. */
int bxa_engine_sockets(bxa_kctx *k) BX_WUR;
/* The sockets connected to an engine socket in p's network namespace, into k (this host's
 * /proc only). */
int bxa_engine_peers_of(bxa_kctx *k, bxa_proc *p) BX_WUR;
/* The descriptors of p that reach outside the session appended to w->descriptors; mn is
 * p's mount namespace. all = 0: only engine sockets and namespaces (runsc's sandbox, whose
 * host files are the runtime's own). */
int bxa_fold_fds(bxa_kctx *k, bxa_weakest *w, bxa_proc *p, const bxa_mntns *mn,
                 int all) BX_WUR;

/* The device nodes of the session's /dev (and one level below), read beneath the init
 * process's root, each judged against k->dev_rules (accessible null when they are not known
 * or known_rules is 0). */
int bxa_dev_nodes(bxa_kctx *k, bxa_proc *init, int known_rules, json_t **out) BX_WUR;

/* guard.c: open path beneath dirfd, never through a symlink nor out of it (openat2
 * RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS; without openat2 a single
 * component with O_NOFOLLOW only). -1 with errno. */
int bxa_open_beneath(int dirfd, const char *path, int flags);

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

/* ---- a task's references beyond its descriptors (references.c): pure parsers ------- */

/* One line of /proc/<pid>/maps. path is the text after the inode as the kernel wrote it
 * (a newline in a name is written "\012", a backslash is not escaped), NULL when the line
 * has none; deleted: it ended in " (deleted)" (removed from path). */
typedef struct {
    uint64_t start, end, offset, inode;
    unsigned major, minor;
    int read, write, exec, shared;
    int deleted;
    char *path;
} bxa_mapping;
int bxa_parse_maps(const char *buf, size_t len, bxa_mapping **out, size_t *n,
                   bx_error *err) BX_WUR;
void bxa_mappings_free(bxa_mapping *m, size_t n);
/* Where a mapping's object is against the mounts of its task's mount namespace. */
enum {
    BXA_REF_NONE = 0, /* no file: anonymous, [heap], [stack], [vdso] (inode 0) */
    BXA_REF_INSIDE,   /* a file on a device one of the mounts has */
    BXA_REF_KERNEL,   /* a kernel-internal object: memfd, SysV shm, shared anonymous, anon_inode */
    BXA_REF_OUTSIDE,  /* a file on a device none of the mounts has */
};
int bxa_mapping_where(const bxa_mapping *m, const bxa_mount *mounts, size_t nmounts);
/* 1 for the worst case: a shared writable mapping of an object outside. */
int bxa_mapping_worst(const bxa_mapping *m, int where);
/* An io_uring descriptor's fdinfo: the files registered with it ("UserFiles:" and its
 * entries, escapes undone), a JSON array of names as the kernel gives them (a path, or
 * "socket:[N]", "anon_inode:..."; a bare name on kernels that print only the last
 * component), empty slots left out. An error when the fdinfo has no UserFiles line, or
 * counts files and lists none (the kernel lists them only when it holds the ring's lock):
 * the registered files are then unknown. */
int bxa_parse_io_uring_files(const char *buf, size_t len, json_t **files, bx_error *err) BX_WUR;
/* references_fold.c: p's cwd, root, exe, file mappings and io_uring registered files that
 * are not on a mount of its namespace mn, appended to refs ({pid, via, kind, target, perms});
 * nothing when mn is NULL (as for descriptors). */
int bxa_fold_refs(bxa_kctx *k, json_t *refs, bxa_proc *p, const bxa_mntns *mn) BX_WUR;
/* mntns_read.c: the mountinfo of p's mount namespace as a thread that joined it reads it
 * (every mount of the namespace, whatever p's root), else, where the namespace cannot be
 * joined, p's own (the mounts below p's root). Caller owns *buf and *root: the namespace's
 * root opened O_PATH by the thread that joined it, or -1 when not joined. */
int bxa_read_mntns_mountinfo(bxa_kctx *k, bxa_proc *p, char **buf, size_t *len, int *root) BX_WUR;
/* A new O_PATH descriptor of the root p's mount namespace is judged beneath: the namespace's
 * own root (k->ns_root while p's namespace is folded, else opened by a thread that joins it),
 * else, where it cannot be joined, p's root; -1 with errno. */
int bxa_root_open(bxa_kctx *k, const bxa_proc *p);

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

/* netlink.c: the session's network namespace over NETLINK_ROUTE. */
enum { BXA_NL_LINK, BXA_NL_ADDR, BXA_NL_ROUTE, BXA_NL_NSID, BXA_NL_DUMPS };
/* The kernel's replies of one namespace, as received (NULL: not read). */
typedef struct {
    char *buf[BXA_NL_DUMPS];
    size_t len[BXA_NL_DUMPS];
} bxa_nl_dump;
void bxa_nl_dump_free(bxa_nl_dump *d);
/* Dump links, addresses and routes in the namespace of descriptor sess_ns and the nsid it
 * gives host_ns's; links in host_ns (-1: the collector's own) and the nsid it gives
 * sess_ns's. Each by a helper thread that joins the namespace; what failed stays NULL. */
void bxa_nl_read(int sess_ns, int host_ns, bxa_nl_dump *sess, bxa_nl_dump *host);
/* Pure parsers of a dump's replies (RTM_NEWLINK, RTM_NEWADDR, RTM_NEWROUTE messages ending
 * with NLMSG_DONE): an array of {index, name, kind, up, operState, link, linkNetnsid,
 * master}, of {index, address "ip/len"}, of {table, dst "ip/len", gateway, oif, type}
 * (the local, broadcast, anycast and multicast routes left out); json null when the reply
 * is malformed, truncated or an error (never NULL but out of memory). Caller owns. */
json_t *bxa_nl_links(const char *buf, size_t len);
json_t *bxa_nl_addrs(const char *buf, size_t len);
json_t *bxa_nl_routes(const char *buf, size_t len);
/* The nsid of a RTM_NEWNSID reply: 0, or -1 (malformed, an error, not assigned). */
int bxa_nl_nsid(const char *buf, size_t len, int64_t *nsid);
/* 1 if name and kind are a fallback tunnel device's (sit0 of kind sit, tunl0 ipip, ...). */
int bxa_nl_is_fallback(const char *name, const char *kind);
/* What the facts are made from (all borrowed; null or NULL: not read). */
typedef struct {
    const json_t *links, *addrs, *routes, *host_links;
    int64_t host_nsid; /* the nsid the session's namespace gives the host's, or -1 */
    int64_t sess_nsid; /* the nsid the host's namespace gives the session's, or -1 */
} bxa_nl_facts_in;
/* {interfaces, links, routes}: the links sorted by name (name, kind, up, operState,
 * addresses, peer {host, bridge} for a veth), the routes sorted by table, dst, dev,
 * gateway, type; each null when not read. Caller owns *out. */
int bxa_nl_facts(const bxa_nl_facts_in *in, json_t **out, bx_error *err) BX_WUR;
/* The facts of p's network namespace (the host's: the engine daemon's), the replies kept as
 * evidence of p; *out NULL on a recorded /proc. Caller owns *out. */
int bxa_net_read(bxa_kctx *k, bxa_proc *p, json_t **out) BX_WUR;

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
    const json_t *nets;   /* the other networks' inspects (an array), or NULL */
    const json_t *joined; /* container:W: W's inspect, or NULL */
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

/* ---- channels.c: containment.channels (v3) ------------------------------------------------ */
/* The sockets of the session's processes (w->pids) that are a channel out of it (a unix peer
 * no session process holds), were made in another network namespace or in one not known, or
 * hold descriptors in flight (sandbox: runsc's processes, whose sockets of other namespaces are
 * the runtime's own); *out NULL (the member null) without this host's /proc. */
int bxa_channels(bxa_kctx *k, const bxa_weakest *w, int sandbox, json_t **out) BX_WUR;
/* Whether a socket is listed: its peer held outside the session (peer_out), descriptors in
 * flight, or (but in a sandbox) its namespace (whose: "session", "host", ...) not the
 * session's or not known (NULL). */
int bxa_channel_recorded(const char *whose, int sandbox, int peer_out, long long inflight);
/* scm_fds of a unix socket's fdinfo, -1 when absent or not a count. */
long long bxa_parse_scm_fds(const char *buf, size_t len);
/* "unix", "inet", "inet6", "netlink", "packet", "vsock" or "other". */
const char *bxa_channel_family(int family);

/* propagation.c: a mount's propagation from mountinfo's optional fields. shared, master
 * and propagate_from hold the peer group ids (0 when the field is absent). A field the
 * kernel does not write, a bad or repeated id, propagate_from without master and
 * unbindable with shared or master are errors (the caller records the mount as unknown). */
typedef struct {
    int64_t shared, master, propagate_from;
    int unbindable;
} bxa_propagation;
int bxa_parse_propagation(const char *optional, bxa_propagation *out, bx_error *err) BX_WUR;
/* 1 when the mount receives mounts from a peer group: it is shared or a slave. */
int bxa_propagation_receives(const bxa_propagation *p);
/* The mount points of host mountinfo hm in a group p receives from (hm's shared:N equal to
 * p's shared, master or propagate_from), less those within one of own (the session's own
 * mounts as this host shows them). *points (borrowed strings of hm, the array to free) is
 * NULL when there is none. */
int bxa_propagation_outside(const bxa_propagation *p, const bxa_mount *hm, size_t nhm,
                            const char *const *own, size_t nown, const char ***points,
                            size_t *n, bx_error *err) BX_WUR;

/* propagation_fold.c: the mounts of one session mount namespace m (or the gofer's) that
 * receive mounts from a peer group appended to *peers ({destination, propagation, outside}),
 * outside resolved in this host's mountinfo k->hm less the session's root file system (the
 * spec's root.path when this host shows the session root's device there), sorted. *peers
 * becomes NULL (the member null) when k->hm was not read; NULL stays NULL. */
int bxa_fold_propagation(bxa_kctx *k, json_t **peers, const bxa_mount *m, size_t n) BX_WUR;

/* devanywhere.c: device nodes anywhere and mknod, the judgments. 1 when a node (type 'c' or
 * 'b', major:minor, its path in the session, or NULL) is one of the engine's standard
 * pseudo-devices: null, zero, full, random, urandom, tty, ptmx anywhere; a pty (c 136-143:N)
 * in /dev/pts, or at /dev/console when own_pty (the session's own terminal). Never c 5:1. */
int bxa_dev_standard(char type, unsigned major, unsigned minor, const char *path, int own_pty);
/* 1 when a mount's options (mountinfo's per-mount field, then its super options) say nodev. */
int bxa_mount_nodev(const char *mount_opts, const char *super_opts);
/* 1 when CAP_MKNOD is in a task's effective, permitted or ambient set (the bits of
 * /proc/<pid>/status); the bounding set reached through an exec is not counted. */
int bxa_mknod_capable(uint64_t eff, uint64_t prm, uint64_t amb);
/* The rules of a v1 devices.list with m that let a task make a non-standard device, appended
 * to out (when given); their count, -1 out of memory. */
int bxa_mknod_rules(const json_t *rules, json_t *out);
/* The same for cgroup v2's device programs, probed on host devices ("c 5:1 m", "b 7:0 m"...):
 * their count, -1 a program cannot be interpreted, -2 out of memory. */
int bxa_mknod_progs(const bxa_devprogs *p, json_t *out);
/* 1 a task can make a non-standard device, 0 it cannot, -1 unknown (either side -1 while the
 * other does not settle it). */
int bxa_mknod_verdict(int capable, int nonstandard);

/* devwalk.c: containment.devices.nodesAnywhere, walk and mknod (v3), set in dev. Walks the
 * session's tree beneath init's root over every mount a device opens through (see
 * bxa_walk_mount), recording each node that is not standard, judged against k's device rules
 * when known; mknod from wk's capabilities and the rules' m. nodesAnywhere and walk null when
 * the tree cannot be reached. */
int bxa_dev_walk(bxa_kctx *k, bxa_proc *init, const bxa_weakest *wk, int known,
                 json_t *dev) BX_WUR;
/* 1 when a mount (its file system type, per-mount and super options) is walked: not nodev,
 * not proc or sysfs. */
int bxa_walk_mount(const char *fstype, const char *mnt_opts, const char *super_opts);

#endif
