// SPDX-License-Identifier: Apache-2.0
/* The kernel view (attest/kernel.c, process.c, surface.c, cgroup.c) read from a /proc of our
 * own making, written here into a temporary folder: the session's processes (each with its
 * tasks, uid_map and gid_map), one cgroup v2 hierarchy, this host's mountinfo and the engine
 * daemon. Which processes count (every folder of /proc that is a pid, in the session's cgroup,
 * started no later than the collection began, no zombie), the weakest value over them and
 * their tasks, scans that never agree (the weakest of everything), what stops the collection
 * (a kernel file that does not parse, a size past 2^53) and what only leaves the level at
 * engine; then the kernel parsers' refusals and the reconciler's notes on disagreements
 * about mounts and sysctls. The mutations of tests/mutations/collect.txt are what these
 * catch. */
#include "tap.h"
#include "attest_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <ftw.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define ID "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
#define SCOPE "/system.slice/docker-" ID ".scope"
#define BEGIN 5000
#define NO_CAPS "0000000000000000"
#define ALL_CAPS "000001ffffffffff"
#define CHOWN "0000000000000001"
#define SYS_ADMIN "0000000000200000"

static char tmp[] = "/tmp/bx-failclosed.XXXXXX";

/* ---- the folder ------------------------------------------------------------------------ */

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *f)
{
    (void)st;
    (void)f;
    return flag == FTW_DP ? rmdir(path) : unlink(path);
}

static void rm_tree(const char *path)
{
    nftw(path, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

static void mkdirs(const char *path)
{
    char p[1024];
    snprintf(p, sizeof p, "%s", path);
    for (char *s = p + 1; *s; s++)
        if (*s == '/') {
            *s = '\0';
            mkdir(p, 0755);
            *s = '/';
        }
    mkdir(p, 0755);
}

/* Write text at tmp/rel, making its folders. */
static void put(const char *rel, const char *text)
{
    char path[1024], dir[1024];
    snprintf(path, sizeof path, "%s/%s", tmp, rel);
    snprintf(dir, sizeof dir, "%s", path);
    *strrchr(dir, '/') = '\0';
    mkdirs(dir);
    FILE *f = fopen(path, "w");
    if (!f || fputs(text, f) < 0 || fclose(f) != 0) {
        printf("Bail out! cannot write %s\n", path);
        exit(1);
    }
}

static void putf(const char *rel, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void putf(const char *rel, const char *fmt, ...)
{
    char text[8192];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    put(rel, text);
}

/* ---- processes ------------------------------------------------------------------------- */

typedef struct {
    int pid, stat_pid; /* stat_pid: what its stat says (0: pid) */
    unsigned long long start;
    char state;
    const char *cgroup;            /* the path in its 0:: line */
    const char *cap_eff, *cap_bnd; /* hex masks; permitted is effective */
    int nnp, seccomp;
    const char *uid;           /* four ids */
    const char *net, *mnt;     /* namespace ids ("" the session's default) */
    const char *mountinfo;     /* NULL: the default (read-only rootfs, a tmpfs /tmp) */
    int no_status;             /* no status and no task: its tasks cannot be read */
    int status_without_groups; /* the leader's /proc/<pid>/status only, not its task's */
    int thread_without_groups; /* a second task, its status without its Groups line */
    const char *dir;           /* the folder's name under /proc (NULL: the pid) */
} fproc;

#define ROOTFS_RO "1 0 0:50 / / ro,relatime - overlay overlay rw,lowerdir=/l,upperdir=/u\n"
#define ROOTFS_RW "1 0 0:50 / / rw,relatime - overlay overlay rw,lowerdir=/l,upperdir=/u\n"
#define TMP_64M "2 1 0:51 / /tmp rw,nosuid,nodev - tmpfs tmpfs rw,size=65536k\n"
#define DEFAULT_MOUNTS ROOTFS_RO TMP_64M

static const char *const ns_names[] = {"pid", "ipc", "uts", "net", "user", "cgroup", "mnt", "time"};
#define NNS (sizeof ns_names / sizeof ns_names[0])

static void ns_links(int pid, const char *const ids[NNS])
{
    for (size_t i = 0; i < NNS; i++) {
        char path[1024], target[64], dir[900];
        snprintf(dir, sizeof dir, "%s/proc/%d/ns", tmp, pid);
        mkdirs(dir);
        snprintf(path, sizeof path, "%s/%s", dir, ns_names[i]);
        snprintf(target, sizeof target, "%s:[%s]", ns_names[i], ids[i]);
        unlink(path);
        if (symlink(target, path) != 0) {
            printf("Bail out! symlink %s\n", path);
            exit(1);
        }
    }
}

static void write_proc(const fproc *p)
{
    char rel[64];
    const char *ids[NNS] = {"4026532101",
                            "4026532102",
                            "4026532103",
                            p->net && *p->net ? p->net : "4026532104",
                            "4026531837",
                            "4026532106",
                            p->mnt && *p->mnt ? p->mnt : "4026532107",
                            "4026531834"};
    char status[1024];

    snprintf(rel, sizeof rel, "proc/%d/stat", p->pid);
    putf(rel, "%d (sh) %c 1 %d %d 0 -1 4194560 0 0 0 0 0 0 0 0 20 0 1 0 %llu 2000000 100\n",
         p->stat_pid ? p->stat_pid : p->pid, p->state ? p->state : 'S', p->pid, p->pid, p->start);
    snprintf(rel, sizeof rel, "proc/%d/cgroup", p->pid);
    putf(rel, "0::%s\n", p->cgroup ? p->cgroup : SCOPE);
    if (!p->no_status) {
        /* the process's status is its leader's, also read as its task's */
        snprintf(status, sizeof status,
                 "Name:\tsh\nUid:\t%s\nGid:\t1000\t1000\t1000\t1000\n%sCapInh:\t" NO_CAPS
                 "\nCapPrm:\t%s\nCapEff:\t%s\nCapBnd:\t%s\nCapAmb:\t" NO_CAPS
                 "\nNoNewPrivs:\t%d\nSeccomp:\t%d\n",
                 p->uid ? p->uid : "1000\t1000\t1000\t1000", "Groups:\t1000 \n",
                 p->cap_eff ? p->cap_eff : NO_CAPS, p->cap_eff ? p->cap_eff : NO_CAPS,
                 p->cap_bnd ? p->cap_bnd : NO_CAPS, p->nnp, p->seccomp);
        snprintf(rel, sizeof rel, "proc/%d/task/%d/status", p->pid, p->pid);
        put(rel, status);
        if (p->thread_without_groups) {
            char thread[1024];
            snprintf(thread, sizeof thread, "%.*s%s", (int)(strstr(status, "Groups:") - status),
                     status, strstr(strstr(status, "Groups:"), "\n") + 1);
            snprintf(rel, sizeof rel, "proc/%d/task/%d/status", p->pid, p->pid + 1000);
            put(rel, thread);
        }
        if (p->status_without_groups) {
            char *g = strstr(status, "Groups:");
            memmove(g, strchr(g, '\n') + 1, strlen(strchr(g, '\n') + 1) + 1);
        }
        snprintf(rel, sizeof rel, "proc/%d/status", p->pid);
        put(rel, status);
    }
    /* the host's user namespace: every id maps to itself */
    snprintf(rel, sizeof rel, "proc/%d/uid_map", p->pid);
    put(rel, "         0          0 4294967295\n");
    snprintf(rel, sizeof rel, "proc/%d/gid_map", p->pid);
    put(rel, "         0          0 4294967295\n");
    snprintf(rel, sizeof rel, "proc/%d/mountinfo", p->pid);
    put(rel, p->mountinfo ? p->mountinfo : DEFAULT_MOUNTS);
    snprintf(rel, sizeof rel, "proc/%d/net/dev", p->pid);
    put(rel, "Inter-|   Receive                 |  Transmit\n"
             " face |bytes    packets errs drop|bytes    packets errs drop\n"
             "    lo:       0       0    0    0        0       0    0    0\n");
    ns_links(p->pid, ids);
    if (p->dir) {
        char from[1024], to[1024];
        snprintf(from, sizeof from, "%s/proc/%d", tmp, p->pid);
        snprintf(to, sizeof to, "%s/proc/%s", tmp, p->dir);
        if (rename(from, to) != 0) {
            printf("Bail out! rename %s\n", from);
            exit(1);
        }
    }
}

typedef struct {
    const char *procs; /* cgroup.procs */
    const char *memory_max, *swap_max, *pids_max, *cpu_max;
    const char *daemon_net; /* the daemon's net namespace id (NULL: the host's own) */
} fcgroup;

/* A fresh /proc: this host's mountinfo (cgroup2 at tmp/cg), the daemon (pid 50, dockerd),
 * the session's cgroup and the processes. */
static void world(const fproc *procs, size_t n, const fcgroup *cg)
{
    rm_tree(tmp);
    mkdir(tmp, 0700);
    putf("proc/self/mountinfo", "30 25 0:26 / %s/cg rw,nosuid shared:4 - cgroup2 cgroup2 rw\n",
         tmp);
    put("docker.pid", "50\n");
    put("proc/50/comm", "dockerd\n");
    const char *host[NNS] = {
        "4026531836", "4026531839", "4026531838", cg->daemon_net ? cg->daemon_net : "4026531840",
        "4026531837", "4026531835", "4026531841", "4026531834"};
    ns_links(50, host);
#define CGFILE(name, v) put("cg" SCOPE "/" name, v)
    CGFILE("cgroup.procs", cg->procs);
    CGFILE("memory.max", cg->memory_max ? cg->memory_max : "268435456\n");
    CGFILE("memory.swap.max", cg->swap_max ? cg->swap_max : "0\n");
    CGFILE("pids.max", cg->pids_max ? cg->pids_max : "64\n");
    CGFILE("cpu.max", cg->cpu_max ? cg->cpu_max : "max 100000\n");
    CGFILE("cpu.weight", "100\n");
#undef CGFILE
    for (size_t i = 0; i < n; i++)
        write_proc(&procs[i]);
}

typedef struct {
    int rc;
    bx_error err;
    bxa_views v;
    bx_evidence *ev;
} reading;

static reading read_kernel(const json_t *masked)
{
    char proc[512], tasks[512], pidfile[512];
    reading r = {.v = {.level = "engine"}, .ev = bxa_evidence_new()};
    snprintf(proc, sizeof proc, "%s/proc", tmp);
    snprintf(tasks, sizeof tasks, "%s/tasks", tmp);
    snprintf(pidfile, sizeof pidfile, "%s/docker.pid", tmp);
    bxa_session s = {.id = ID,
                     .pid = 100,
                     .begin = BEGIN,
                     .runtime = "runc",
                     .kind = "docker",
                     .masked = masked,
                     .paths = {.proc = proc, .task_root = tasks, .pidfile = pidfile}};
    r.rc = bxa_kernel_read(&s, &r.v, r.ev, &r.err);
    return r;
}

static void reading_free(reading *r)
{
    bxa_views_free(&r->v);
    bxa_evidence_free(r->ev);
}

/* The kernel view's member at a dotted path (a number indexes an array), as compact JSON
 * ("(absent)" when not there). */
static char *at(const reading *r, const char *dotted)
{
    const json_t *v = r->v.kernel;
    char seg[128];
    for (const char *p = dotted; v && *p;) {
        size_t n = strcspn(p, ".");
        snprintf(seg, sizeof seg, "%.*s", (int)n, p);
        v = json_is_array(v) ? json_array_get(v, strtoul(seg, NULL, 10)) : json_object_get(v, seg);
        p += n + (p[n] == '.');
    }
    char *s = v ? json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT) : NULL;
    return s ? s : strdup("(absent)");
}

static void view_is(const reading *r, const char *dotted, const char *want, const char *name)
{
    char *got = at(r, dotted);
    is_str(got, want, "%s: %s", name, dotted);
    free(got);
}

static const fcgroup CG = {.procs = "100\n"};

/* ---- which processes count --------------------------------------------------------------- */

static void baseline(void)
{
    fproc init = {.pid = 100, .start = BEGIN, .nnp = 1, .seccomp = 2};
    world(&init, 1, &CG);
    reading r = read_kernel(NULL);
    ok(r.rc == 0, "baseline read (%s)", r.rc ? r.err.msg : "ok");
    is_str(r.v.level, "engine+kernel", "an init process started as the collection began counts");
    view_is(&r, "capabilities.effective", "[]", "baseline");
    view_is(&r, "noNewPrivileges", "true", "baseline");
    view_is(&r, "seccomp.mode", "\"filter\"", "baseline");
    view_is(&r, "user.uids", "[1000,1000,1000,1000]", "baseline");
    view_is(&r, "rootfs.readOnly", "true", "baseline");
    view_is(&r, "namespaces.net", "\"private\"", "baseline");
    view_is(&r, "namespaces.user", "\"host\"", "baseline");
    view_is(&r, "resources.memoryBytes", "268435456", "baseline");
    view_is(&r, "resources.memorySwapBytes", "268435456", "swap.max 0: memory and no swap");
    view_is(&r, "resources.pidsLimit", "64", "baseline");
    view_is(&r, "network.interfaces", "[\"lo\"]", "baseline");
    view_is(&r, "writeSurface.0.path", "\"/tmp\"", "baseline");
    view_is(&r, "writeSurface.0.sizeBytes", "67108864", "baseline");
    view_is(&r, "writeSurface.1", "(absent)", "the read-only rootfs is no writable place");
    reading_free(&r);

    fcgroup lim = {.procs = "100\n",
                   .memory_max = "max\n",
                   .swap_max = "max\n",
                   .pids_max = "max\n",
                   .cpu_max = "50000 100000\n"};
    world(&init, 1, &lim);
    r = read_kernel(NULL);
    ok(r.rc == 0, "limits read (%s)", r.rc ? r.err.msg : "ok");
    view_is(&r, "resources.memoryBytes", "null", "memory.max max");
    view_is(&r, "resources.memorySwapBytes", "null", "memory.max max");
    view_is(&r, "resources.pidsLimit", "null", "pids.max max");
    view_is(&r, "resources.cpuQuota", "50000", "cpu.max");
    view_is(&r, "resources.cpuPeriod", "100000", "cpu.max");
    reading_free(&r);
}

/* Every process of the session: the weakest of each value. */
static void weakest(void)
{
    fproc p[] = {
        {.pid = 100, .start = 10, .cap_eff = CHOWN, .nnp = 1, .seccomp = 2},
        {.pid = 101,
         .start = 20,
         .cap_eff = SYS_ADMIN,
         .nnp = 0,
         .seccomp = 0,
         .uid = "1000\t1000\t1000\t0"},
    };
    fcgroup cg = {.procs = "100\n101\n"};
    world(p, 2, &cg);
    reading r = read_kernel(NULL);
    ok(r.rc == 0 && !strcmp(r.v.level, "engine+kernel"), "two processes read (%s)",
       r.rc ? r.err.msg : r.v.why);
    view_is(&r, "capabilities.effective", "[\"CHOWN\",\"SYS_ADMIN\"]",
            "every capability any holds");
    view_is(&r, "noNewPrivileges", "false", "no-new-privileges only when every one has it");
    view_is(&r, "seccomp.mode", "\"disabled\"", "the weakest seccomp mode");
    view_is(&r, "user.uids", "[1000,1000,1000,0]", "the process with a root id (its fs uid)");
    reading_free(&r);

    /* the same, the other way round: the init process the weaker */
    fproc q[] = {
        {.pid = 100,
         .start = 10,
         .cap_eff = SYS_ADMIN,
         .nnp = 0,
         .seccomp = 0,
         .uid = "0\t1000\t1000\t1000"},
        {.pid = 101, .start = 20, .cap_eff = CHOWN, .nnp = 1, .seccomp = 2},
    };
    world(q, 2, &cg);
    r = read_kernel(NULL);
    view_is(&r, "capabilities.effective", "[\"CHOWN\",\"SYS_ADMIN\"]", "init weaker: union");
    view_is(&r, "noNewPrivileges", "false", "init weaker: nnp");
    view_is(&r, "seccomp.mode", "\"disabled\"", "init weaker: seccomp");
    view_is(&r, "user.uids", "[0,1000,1000,1000]", "init weaker: its ids");
    reading_free(&r);
}

/* Processes that are not the session's add nothing. */
static void not_counted(void)
{
    fproc p[] = {
        {.pid = 100, .start = 10, .nnp = 1, .seccomp = 2},
        {.pid = 102, .start = BEGIN + 1, .cap_eff = ALL_CAPS, .seccomp = 0},
        {.pid = 103, .start = 10, .state = 'Z', .cap_eff = ALL_CAPS, .seccomp = 0},
        {.pid = 104, .start = 10, .cgroup = SCOPE "-evil", .cap_eff = ALL_CAPS, .seccomp = 0},
        {.pid = 105, .start = 10, .stat_pid = 999, .cap_eff = ALL_CAPS, .seccomp = 0},
        {.pid = 106, .start = 10, .cgroup = "/system.slice/other.scope", .cap_eff = ALL_CAPS},
        /* folders of /proc that are no pid: never read as processes */
        {.pid = 0, .start = 10, .cap_eff = ALL_CAPS, .seccomp = 0},
        {.pid = 109, .start = 10, .dir = "109x", .cap_eff = ALL_CAPS, .seccomp = 0},
    };
    /* cgroup.procs is not how the session's processes are found (every /proc folder is
     * looked at): what it lists adds nothing */
    fcgroup cg = {.procs = "100\n102\n103\n104\n105\n106\n107\n108\n"};
    world(p, sizeof p / sizeof p[0], &cg);
    reading r = read_kernel(NULL);
    ok(r.rc == 0 && !strcmp(r.v.level, "engine+kernel"), "read with strangers (%s)",
       r.rc ? r.err.msg : r.v.why);
    view_is(&r, "capabilities.effective", "[]",
            "none of: started later, a zombie, another cgroup, another pid, no pid");
    view_is(&r, "noNewPrivileges", "true", "strangers: nnp");
    view_is(&r, "seccomp.mode", "\"filter\"", "strangers: seccomp");
    view_is(&r, "processes.count", "1", "strangers: only the init process counted");
    view_is(&r, "processes.settled", "true", "strangers: the scans agree");
    reading_free(&r);
}

/* A process of the session the scans keep finding but whose tasks cannot be read (its
 * status and task folder gone): the scans never agree, and every fact of the processes is
 * the weakest (or null), never the init process's alone. */
static void never_settled(void)
{
    fproc p[] = {
        {.pid = 100, .start = 10, .nnp = 1, .seccomp = 2},
        {.pid = 107, .start = 10, .no_status = 1},
    };
    fcgroup cg = {.procs = "100\n107\n"};
    world(p, 2, &cg);
    reading r = read_kernel(NULL);
    ok(r.rc == 0 && !strcmp(r.v.level, "engine+kernel"), "read, unsettled (%s)",
       r.rc ? r.err.msg : r.v.why);
    view_is(&r, "processes.settled", "false", "unsettled");
    const json_t *eff = bx_json_dotted(r.v.kernel, "capabilities.effective");
    ok(json_array_size(eff) == BXA_CAP_COUNT, "unsettled: every capability (%zu)",
       json_array_size(eff));
    view_is(&r, "noNewPrivileges", "false", "unsettled");
    view_is(&r, "seccomp.mode", "null", "unsettled");
    view_is(&r, "user.uids", "null", "unsettled");
    reading_free(&r);
}

/* A process proven the session's by its cgroup alone (bxa_proc_prove: how runsc's gofer is
 * found): the session's cgroup or one below it, never a cgroup whose name only begins with
 * it, never another. */
static void proven_by_cgroup(void)
{
    fproc p[] = {
        {.pid = 100, .start = 10},
        {.pid = 101, .start = 10, .cgroup = SCOPE "/sub"},
        {.pid = 104, .start = 10, .cgroup = SCOPE "-evil"},
        {.pid = 106, .start = 10, .cgroup = "/system.slice/other.scope"},
    };
    static const struct {
        int64_t pid;
        int want;
        const char *name;
    } t[] = {
        {100, 1, "the session's cgroup"},
        {101, 1, "a cgroup below it"},
        {104, 0, "a cgroup whose name only begins with the session's"},
        {106, 0, "another cgroup"},
    };
    char proc[512];
    bx_error e = {0};
    bxa_session s = {.id = ID, .pid = 100, .begin = BEGIN, .runtime = "runsc", .kind = "docker"};
    bxa_kctx k = {.s = &s, .err = &e, .procfd = -1, .daemon_pid = -1};
    bxa_proc init = {.dfd = -1, .pidfd = -1};

    world(p, sizeof p / sizeof p[0], &CG);
    snprintf(proc, sizeof proc, "%s/proc", tmp);
    k.procfd = open(proc, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    ok(k.procfd >= 0 && bxa_proc_open(&k, 100, &init) == 1 &&
           bxa_parse_cgroup(init.cgroup, init.cgroup_len, &k.cg, &k.ncg, &e) == 0 &&
           bxa_cgroup_key(&k) == 0,
       "the session's cgroup from its init process (%s)", e.msg);
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        bxa_proc q = {.dfd = -1, .pidfd = -1};
        int r = bxa_proc_prove(&k, t[i].pid, &q);
        ok(r == t[i].want, "proven by cgroup: %s: %s (%d)", t[i].name,
           t[i].want ? "the session's" : "not the session's", r);
        bxa_proc_close(&q);
    }
    bxa_proc_close(&init);
    bxa_cgroups_free(k.cg, k.ncg);
    free(k.key_own);
    if (k.procfd >= 0)
        close(k.procfd);
}

/* An init process that cannot be proven the session's: the engine's word only. */
static void not_proven(void)
{
    static const struct {
        fproc init;
        const char *name;
    } t[] = {
        {{.pid = 100, .start = BEGIN + 1}, "started after the collection began"},
        {{.pid = 100, .start = 10, .state = 'Z'}, "a zombie"},
        {{.pid = 100, .start = 10, .cgroup = "/system.slice/other.scope"}, "in another cgroup"},
        {{.pid = 100, .start = 10, .stat_pid = 7}, "its stat of another pid"},
    };
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        world(&t[i].init, 1, &CG);
        reading r = read_kernel(NULL);
        ok(r.rc == 0 && !strcmp(r.v.level, "engine") && !r.v.kernel,
           "init %s: level engine, no kernel view (rc %d, %s)", t[i].name, r.rc, r.v.level);
        reading_free(&r);
    }
}

/* What stops the collection. */
static void refusals(void)
{
    static const struct {
        fproc init;
        const char *procs;
        int rc;
        const char *name;
    } t[] = {
        {{.pid = 100, .start = 10, .status_without_groups = 1},
         "100\n",
         BX_EINVAL,
         "the init process's status without its Groups line"},
        {{.pid = 100, .start = 10, .thread_without_groups = 1},
         "100\n",
         BX_EINVAL,
         "a thread's status without its Groups line"},
        {{.pid = 100, .start = 10, .no_status = 1},
         "100\n",
         BX_EDENIED,
         "the init process's status gone"},
        {{.pid = 100,
          .start = 10,
          .mountinfo = ROOTFS_RO "3 1 0:52 / /big rw - tmpfs tmpfs rw,size=8388608t\n"},
         "100\n",
         BX_EINVAL,
         "a tmpfs past 2^53 bytes"},
        {{.pid = 100, .start = 10, .mountinfo = ROOTFS_RO "garbage\n"},
         "100\n",
         BX_EINVAL,
         "a mountinfo line that does not parse"},
    };
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        fcgroup cg = {.procs = t[i].procs};
        world(&t[i].init, 1, &cg);
        reading r = read_kernel(NULL);
        ok(r.rc == t[i].rc && !r.v.kernel && !strcmp(r.v.level, "engine"),
           "%s: refused (rc %d, want %d: %s)", t[i].name, r.rc, t[i].rc, r.err.msg);
        reading_free(&r);
    }
}

/* ---- namespaces, rootfs, write surface ------------------------------------------------------ */

static void shared_with_the_host(void)
{
    fproc p[] = {
        {.pid = 100, .start = 10, .net = "4026539999"},
        {.pid = 101, .start = 20},
    };
    fcgroup cg = {.procs = "100\n101\n", .daemon_net = "4026539999"};
    world(p, 2, &cg);
    reading r = read_kernel(NULL);
    view_is(&r, "namespaces.net", "\"host\"", "the init process shares the daemon's network");
    view_is(&r, "namespaces.pid", "\"private\"", "... not its pid namespace");
    reading_free(&r);
    p[0].net = "";
    p[1].net = "4026539999";
    world(p, 2, &cg);
    r = read_kernel(NULL);
    view_is(&r, "namespaces.net", "\"host\"", "another process shares the daemon's network");
    reading_free(&r);
}

static void rootfs_and_surface(void)
{
    fproc p[] = {
        {.pid = 100, .start = 10, .mnt = "4026538001", .mountinfo = ROOTFS_RW},
        {.pid = 101, .start = 20, .mnt = "4026538002", .mountinfo = ROOTFS_RO},
    };
    fcgroup cg = {.procs = "100\n101\n"};
    world(p, 2, &cg);
    reading r = read_kernel(NULL);
    view_is(&r, "rootfs.readOnly", "false", "one mount namespace with a writable rootfs");
    reading_free(&r);

    fproc q = {.pid = 100,
               .start = 10,
               .mountinfo = "1 0 0:50 / / rw,relatime - overlay overlay ro,lowerdir=/l\n"
                            "2 1 0:51 / /proc/acpi rw - tmpfs tmpfs rw,size=4k\n"
                            "3 1 0:52 / /data rw - ext4 /dev/vda ro\n"
                            "4 1 0:53 / /out rw,relatime - ext4 /dev/vdb rw\n"};
    world(&q, 1, &CG);
    json_t *masked = json_pack("[s]", "/proc/acpi");
    r = read_kernel(masked);
    ok(r.rc == 0, "surface read (%s)", r.rc ? r.err.msg : "ok");
    view_is(&r, "rootfs.readOnly", "true", "a rootfs whose file system is read-only");
    view_is(&r, "writeSurface.0.path", "\"/out\"", "only /out is writable");
    view_is(&r, "writeSurface.1", "(absent)", "not the masked path, nor a read-only file system");
    view_is(&r, "mountsReadOnly./out", "false", "/out read-write");
    view_is(&r, "mountsReadOnly./data", "true", "/data read-only");
    reading_free(&r);
    json_decref(masked);
}

/* ---- the parsers ---------------------------------------------------------------------------- */

static void status_refusals(void)
{
    static const char *const base[] = {
        "Name:\tsh\n",
        "Uid:\t0\t0\t0\t0\n",
        "Gid:\t0\t0\t0\t0\n",
        "Groups:\t0\n",
        "CapInh:\t" NO_CAPS "\n",
        "CapPrm:\t" NO_CAPS "\n",
        "CapEff:\t" NO_CAPS "\n",
        "CapBnd:\t" NO_CAPS "\n",
        "CapAmb:\t" NO_CAPS "\n",
        "NoNewPrivs:\t1\n",
        "Seccomp:\t2\n",
    };
    static const struct {
        size_t line;
        const char *repl, *name;
        int ok;
    } t[] = {
        {0, NULL, "the whole", 1},
        {1, "Uid:\t0\t0\t0\n", "three uids", 0},
        {2, "Gid:\t0\t0\t0\t0\t0\n", "five gids", 0},
        {1, "Uid:\t0\t0\t0\t4294967296\n", "a uid past 32 bits", 0},
        {6, "CapEff:\t10000000000000000\n", "a mask of 17 digits", 0},
        {6, "CapEff:\t000000000000000g\n", "a mask not hex", 0},
        {6, "CapEff:\t\n", "an empty mask", 0},
        {9, "NoNewPrivs:\t2\n", "NoNewPrivs 2", 0},
        {10, "Seccomp:\t3\n", "Seccomp 3", 0},
        {10, "Seccomp:\t2x\n", "Seccomp 2x", 0},
        {3, "", "no Groups line", 0},
        {10, "", "no Seccomp line", 0},
        {8, "", "no CapAmb line", 0},
    };
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        char buf[1024] = "";
        for (size_t l = 0; l < sizeof base / sizeof base[0]; l++)
            strcat(buf, t[i].repl && l == t[i].line ? t[i].repl : base[l]);
        bxa_status st;
        bx_error e;
        int rc = bxa_parse_status(buf, strlen(buf), &st, &e);
        if (t[i].ok)
            ok(rc == 0 && st.nnp == 1 && st.seccomp == 2, "status: %s read", t[i].name);
        else
            ok(rc == BX_EINVAL, "status: %s refused (rc %d)", t[i].name, rc);
    }
}

/* ---- the reconciler's notes ------------------------------------------------------------------ */

static json_t *load(const char *dir, const char *name, char **raw, size_t *len)
{
    char path[512];
    snprintf(path, sizeof path, BOXCERT_SOURCE_DIR "/fixtures/inspect/%s/%s", dir, name);
    json_t *j = json_load_file(path, JSON_REJECT_DUPLICATES, NULL);
    if (j && raw) {
        *raw = json_dumps(j, JSON_COMPACT);
        *len = strlen(*raw);
    }
    return j;
}

/* The engine-level predicate of a recorded session, with HostConfig changes. */
static json_t *engine_predicate(const char *dir, const char *hostconfig)
{
    char *rc_ = NULL, *ri = NULL;
    size_t lc = 0, li = 0;
    json_t *version = load(dir, "version.json", NULL, NULL),
           *info = load(dir, "info.json", NULL, NULL);
    json_t *c = load(dir, "container.json", &rc_, &lc), *img = load(dir, "image.json", &ri, &li);
    json_t *net = load(dir, "network.json", NULL, NULL), *p = NULL;
    bx_collect_opts o = {.container = "x", .now = 1767225600, .ttl = 60};
    bx_error e;

    if (hostconfig) {
        json_t *ch = json_loads(hostconfig, 0, NULL);
        json_object_update(json_object_get(c, "HostConfig"), ch);
        json_decref(ch);
    }
    if (!c || bx_predicate_from_inspect(version, info, c, img, net, rc_, lc, ri, li, &o,
                                        "unix:///var/run/docker.sock", &p, &e) != 0)
        printf("# engine predicate of %s: %s\n", dir, c ? e.msg : "no fixture");
    json_decref(version);
    json_decref(info);
    json_decref(c);
    json_decref(img);
    json_decref(net);
    free(rc_);
    free(ri);
    return p;
}

static const json_t *discrepancy(const json_t *p, const char *field)
{
    const json_t *d;
    size_t i;
    json_array_foreach(bx_json_dotted(p, "evidence.discrepancies"), i, d)
    {
        if (!strcmp(json_string_value(json_object_get(d, "field")), field))
            return d;
    }
    return NULL;
}

static json_t *reconciled(const char *dir, const char *hostconfig, const char *kernel)
{
    json_t *p = engine_predicate(dir, hostconfig);
    bxa_views v = {.level = "engine+kernel", .kernel = json_loads(kernel, 0, NULL)};
    bx_evidence *ev = bxa_evidence_new();
    bx_error e;
    if (bxa_evidence_add(ev, BXA_EV_KERNEL, "1/status", "x", 1, &e) != 0 || !p ||
        bxa_reconcile(p, &v, ev, NULL, &e) != 0) {
        printf("# reconcile: %s\n", p ? e.msg : "no predicate");
        json_decref(p);
        p = NULL;
    }
    bxa_views_free(&v);
    bxa_evidence_free(ev);
    return p;
}

static void reconciler(void)
{
    /* /hostrun is read-only to the engine; the kernel shows it read-write */
    json_t *p = reconciled("ports-mounts", NULL, "{\"mountsReadOnly\": {\"/hostrun\": false}}");
    const json_t *m, *hostrun = NULL;
    size_t i;
    json_array_foreach(bx_json_dotted(p, "containment.mounts"), i, m)
    {
        if (!strcmp(json_string_value(json_object_get(m, "destination")), "/hostrun"))
            hostrun = m;
    }
    ok(hostrun && json_is_false(json_object_get(hostrun, "readOnly")),
       "a mount the kernel shows read-write is recorded read-write");
    ok(discrepancy(p, "containment.mounts[/hostrun].readOnly") != NULL,
       "... and the disagreement noted");
    json_decref(p);
    p = reconciled("ports-mounts", NULL, "{\"mountsReadOnly\": {\"/hostrun\": true}}");
    ok(p && !discrepancy(p, "containment.mounts[/hostrun].readOnly"), "agreeing: no note");
    json_decref(p);

    /* a sysctl the engine set to 0 that the kernel holds at 1 */
    p = reconciled("hardened", "{\"Sysctls\": {\"net.ipv4.ip_forward\": \"0\"}}",
                   "{\"sysctls\": {\"net.ipv4.ip_forward\": \"1\"}}");
    const json_t *d = discrepancy(p, "containment.sysctls.net.ipv4.ip_forward");
    ok(d && !strcmp(json_string_value(json_object_get(d, "reason")), "kernel"),
       "a sysctl value the kernel does not hold: noted");
    const char *kv = json_string_value(json_object_get(
        json_object_get(bx_json_dotted(p, "containment.sysctls"), "net.ipv4.ip_forward"),
        "kernel"));
    ok(kv && !strcmp(kv, "1"), "... the kernel's value recorded");
    json_decref(p);
    p = reconciled("hardened", "{\"Sysctls\": {\"net.ipv4.ip_forward\": \"0\"}}",
                   "{\"sysctls\": {\"net.ipv4.ip_forward\": \"0\"}}");
    ok(p && !discrepancy(p, "containment.sysctls.net.ipv4.ip_forward"), "sysctl agreeing: no note");
    json_decref(p);

    /* the kernel's evidence: its manifest's digest in the predicate */
    p = reconciled("hardened", NULL, "{}");
    json_t *manifest = json_pack(
        "{s:s}", "1/status", "2d711642b726b04401627ca9fbac32f5c8530fb1903cc4db02258717921a4881");
    char want[65] = "";
    bx_error e;
    const char *got = json_string_value(bx_json_dotted(p, "evidence.kernelSha256"));
    ok(bx_jcs_sha256_hex(manifest, want, &e) == 0 && got && !strcmp(got, want),
       "evidence.kernelSha256: the SHA-256 of the JCS of {name: sha256(bytes)} (%s)",
       got ? got : "null");
    json_decref(manifest);
    json_decref(p);

    /* the rootfs: the kernel's writable one over the engine's read-only */
    p = reconciled("hardened", NULL, "{\"rootfs\": {\"readOnly\": false}}");
    ok(p && json_is_false(bx_json_dotted(p, "containment.rootfs.readOnly")) &&
           discrepancy(p, "containment.rootfs.readOnly"),
       "rootfs: the kernel's writable recorded, the disagreement noted");
    json_decref(p);
}

/* Evidence file names (written under --evidence-out): never outside its folder. */
static void evidence_names(void)
{
    static const struct {
        const char *name;
        int ok;
    } t[] = {
        {"1/status", 1},
        {"cgroup/pids.max", 1},
        {"config.json", 1},
        {"..", 0},
        {"../x", 0},
        {"a/..", 0},
        {".", 0},
        {"./x", 0},
        {"a/b/c", 0},
        {"/abs", 0},
        {"a//b", 0},
        {"a/", 0},
        {"manifest.json", 0},
        {"", 0},
        {"a b", 0},
    };
    bx_evidence *ev = bxa_evidence_new();
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        bx_error e;
        int rc = bxa_evidence_add(ev, BXA_EV_KERNEL, t[i].name, "x", 1, &e);
        ok(t[i].ok ? rc == 0 : rc == BX_EINVAL, "evidence name '%s' %s (rc %d)", t[i].name,
           t[i].ok ? "kept" : "refused", rc);
    }
    bxa_evidence_free(ev);
}

int main(void)
{
    if (!mkdtemp(tmp)) {
        ok(0, "mkdtemp: %s", strerror(errno));
        return tap_done();
    }
    baseline();
    weakest();
    not_counted();
    never_settled();
    proven_by_cgroup();
    not_proven();
    refusals();
    shared_with_the_host();
    rootfs_and_surface();
    status_refusals();
    reconciler();
    evidence_names();
    rm_tree(tmp);
    return tap_done();
}
