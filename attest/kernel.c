/* SPDX-License-Identifier: Apache-2.0 */
/* The kernel's view of a session (runc, crun) and the runtime's (runsc), read on this
 * host.
 *
 * Which processes: every process of the session's cgroup (its cgroup.procs and those of
 * the cgroups below it, found from /proc/<State.Pid>/cgroup and this host's cgroup
 * mounts); when the cgroup folder is not reachable from here, every process of /proc whose
 * cgroup names the container. A process counts only once proven the session's: its
 * /proc/<pid>/cgroup names the container Id and it started (stat field 22) no later than
 * the collection began; it is read through its own /proc/<pid> directory descriptor, and
 * the proof is taken again after reading (same start time, same cgroup bytes).
 *
 * The engine daemon (to compare namespaces with): docker's pid file (/var/run/docker.pid)
 * when the process it names is "dockerd"; otherwise (podman, or no pid file) the process
 * holding the listening end of the engine's unix socket (/proc/net/unix, then the
 * socket's inode among every process's descriptors). */
#include "bx_attest_int.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/openat2.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define SPEC_MAX (4 * 1024 * 1024)
#define CGROUP_DEPTH_MAX 4
#define TASK_ROOT "/run/containerd/io.containerd.runtime.v2.task/moby"
#define DOCKER_PIDFILE "/var/run/docker.pid"

const char *const bxa_ns_names[BXA_NS_COUNT] = {"pid",  "ipc",    "uts", "net",
                                                "user", "cgroup", "mnt"};

uint64_t bxa_boot_ticks(void)
{
    struct timespec ts;
    long hz = sysconf(_SC_CLK_TCK);

    if (clock_gettime(CLOCK_BOOTTIME, &ts) != 0 || hz <= 0)
        return UINT64_MAX;
    return (uint64_t)ts.tv_sec * (uint64_t)hz +
           (uint64_t)ts.tv_nsec / (1000000000UL / (uint64_t)hz);
}

void bxa_views_free(bxa_views *v)
{
    json_decref(v->spec);
    json_decref(v->runtime);
    json_decref(v->kernel);
    json_decref(v->runtime_args);
    json_decref(v->sandbox);
    v->spec = v->runtime = v->kernel = v->runtime_args = v->sandbox = NULL;
}

/* ---- reading ------------------------------------------------------------------------ */

/* A whole file at dfd/name (no link followed at the last step), at most max bytes. A file
 * that is gone (the process exited) is BX_ENOTFOUND. */
int bxa_read_at(int dfd, const char *name, size_t max, char **buf, size_t *len, bx_error *err)
{
    int fd = openat(dfd, name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY);
    size_t cap = 4096, n = 0;
    char *b = NULL;
    int rc = 0;

    *buf = NULL;
    *len = 0;
    if (fd < 0)
        return errno == ENOENT || errno == ESRCH ? bx_error_set(err, BX_ENOTFOUND, name, "gone")
                                                 : bx_error_errno(err, BX_EIO, name, "cannot open");
    for (;;) {
        ssize_t r;
        if (!b || n + 1 >= cap) {
            char *nb;
            if (b)
                cap *= 2;
            if (cap > max + 2)
                cap = max + 2;
            if (n + 1 >= cap) {
                rc = bx_error_set(err, BX_EINVAL, name, "over %zu bytes", max);
                break;
            }
            if (!(nb = realloc(b, cap))) {
                rc = bxa_oom(err);
                break;
            }
            b = nb;
        }
        r = read(fd, b + n, cap - 1 - n);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0) {
            rc = errno == ESRCH ? bx_error_set(err, BX_ENOTFOUND, name, "gone")
                                : bx_error_errno(err, BX_EIO, name, "cannot read");
            break;
        }
        if (r == 0)
            break;
        n += (size_t)r;
    }
    close(fd);
    if (rc != 0) {
        free(b);
        return rc;
    }
    b[n] = '\0';
    *buf = b;
    *len = n;
    return 0;
}

int bxa_keep(bxa_kctx *k, int kind, const char *name, const char *buf, size_t len)
{
    return bxa_evidence_add(k->ev, kind, name, buf, len, k->err);
}

/* readlink of dfd/ns/<name> ("net:[4026531833]") into out; "" when unreadable. */
void bxa_ns_link(int dfd, const char *name, char out[64])
{
    char path[16];
    ssize_t n;

    snprintf(path, sizeof path, "ns/%s", name);
    n = readlinkat(dfd, path, out, 63);
    out[n > 0 ? n : 0] = '\0';
}

/* ---- the engine daemon -------------------------------------------------------------------- */

static int comm_is(int procfd, int64_t pid, const char *want)
{
    char path[32], *buf = NULL;
    size_t len;
    bx_error e;
    int r;

    snprintf(path, sizeof path, "%lld/comm", (long long)pid);
    if (bxa_read_at(procfd, path, 256, &buf, &len, &e) != 0)
        return 0;
    while (len > 0 && buf[len - 1] == '\n')
        buf[--len] = '\0';
    r = strcmp(buf, want) == 0;
    free(buf);
    return r;
}

/* The inode of the listening socket bound to path, from <proc>/net/unix; 0 when none. */
static unsigned long socket_inode(int procfd, const char *path)
{
    char *buf = NULL, *line, *save = NULL;
    size_t len;
    bx_error e;
    unsigned long ino = 0;

    if (bxa_read_at(procfd, "net/unix", 16 * 1024 * 1024, &buf, &len, &e) != 0)
        return 0;
    for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        unsigned long flags, inode;
        char p[PATH_MAX];
        /* Num RefCount Protocol Flags Type St Inode Path */
        if (sscanf(line, "%*s %*s %*s %lx %*s %*s %lu %4095s", &flags, &inode, p) == 3 &&
            (flags & 0x10000) && strcmp(p, path) == 0) { /* __SO_ACCEPTCON: listening */
            ino = inode;
            break;
        }
    }
    free(buf);
    return ino;
}

/* The process holding socket inode ino (the lowest pid other than 1), or -1. */
static int64_t socket_owner(int procfd, unsigned long ino)
{
    char want[64];
    int64_t best = -1;
    int dfd = dup(procfd);
    DIR *d = dfd >= 0 ? fdopendir(dfd) : NULL;
    struct dirent *e;

    if (!d) {
        if (dfd >= 0)
            close(dfd);
        return -1;
    }
    snprintf(want, sizeof want, "socket:[%lu]", ino);
    while ((e = readdir(d)) != NULL) {
        char *end, fdpath[64];
        long long pid = strtoll(e->d_name, &end, 10);
        DIR *fds;
        struct dirent *f;
        int fdd;

        if (*end || pid <= 1 || (best > 0 && pid >= best))
            continue;
        snprintf(fdpath, sizeof fdpath, "%lld/fd", pid);
        if ((fdd = openat(procfd, fdpath, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
            continue;
        if (!(fds = fdopendir(fdd))) {
            close(fdd);
            continue;
        }
        while ((f = readdir(fds)) != NULL) {
            char link[64];
            ssize_t n = readlinkat(fdd, f->d_name, link, sizeof link - 1);
            if (n <= 0)
                continue;
            link[n] = '\0';
            if (strcmp(link, want) == 0) {
                best = pid;
                break;
            }
        }
        closedir(fds);
    }
    closedir(d);
    return best;
}

static void find_daemon(bxa_kctx *k)
{
    const char *pidfile = k->s->paths.pidfile ? k->s->paths.pidfile : DOCKER_PIDFILE;
    int64_t pid = -1;
    char path[32];
    int dfd;

    if (strcmp(k->s->kind, "docker") == 0) {
        int fd = open(pidfile, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
        char buf[32];
        ssize_t n = fd >= 0 ? read(fd, buf, sizeof buf - 1) : -1;
        if (fd >= 0)
            close(fd);
        if (n > 0) {
            char *end;
            buf[n] = '\0';
            pid = strtoll(buf, &end, 10);
            if (pid <= 0 || (*end && *end != '\n') || !comm_is(k->procfd, pid, "dockerd"))
                pid = -1;
        }
    }
    if (pid < 0 && k->s->socket) {
        unsigned long ino = socket_inode(k->procfd, k->s->socket);
        if (ino)
            pid = socket_owner(k->procfd, ino);
    }
    if (pid <= 0)
        return;
    snprintf(path, sizeof path, "%lld", (long long)pid);
    if ((dfd = openat(k->procfd, path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
        return;
    for (int i = 0; i < BXA_NS_COUNT; i++)
        bxa_ns_link(dfd, bxa_ns_names[i], k->daemon_ns[i]);
    close(dfd);
    k->have_daemon = k->daemon_ns[0][0] != '\0';
    k->daemon_pid = pid;
}

/* ---- the session's cgroup ----------------------------------------------------------------- */

/* Which hierarchy proves a process is the session's: the first v1 controller of these whose
 * path names the Id, else the unified (v2) one. */
int bxa_cgroup_key(bxa_kctx *k)
{
    static const char *const pref[] = {"pids",    "memory", "cpu",         "devices",
                                       "freezer", "blkio",  "name=systemd"};
    const char *p;

    for (size_t i = 0; i < sizeof pref / sizeof pref[0]; i++) {
        if ((p = bxa_cgroup_path(k->cg, k->ncg, pref[i])) && bxa_cgroup_names(p, k->s->id)) {
            k->key_controller = pref[i];
            k->key_path = p;
            return 0;
        }
    }
    if ((p = bxa_cgroup_path(k->cg, k->ncg, NULL)) && bxa_cgroup_names(p, k->s->id)) {
        k->key_controller = NULL;
        k->key_path = p;
        return 0;
    }
    return -1;
}

/* 1 if a process's cgroup file puts it in the session's cgroup (or one below it). */
int bxa_in_session(bxa_kctx *k, const char *buf, size_t len)
{
    bxa_cgroup *cg = NULL;
    size_t n = 0;
    const char *p;
    bx_error e;
    int r = 0;

    if (bxa_parse_cgroup(buf, len, &cg, &n, &e) != 0)
        return 0;
    p = bxa_cgroup_path(cg, n, k->key_controller);
    if (p && bxa_cgroup_names(p, k->s->id)) {
        size_t kl = strlen(k->key_path);
        r = strncmp(p, k->key_path, kl) == 0 && (p[kl] == '\0' || p[kl] == '/');
    }
    bxa_cgroups_free(cg, n);
    return r;
}

/* This host's folder of the session's cgroup in the hierarchy of controller (NULL: v2), or
 * -1 when that hierarchy is not mounted here or the cgroup is outside its mount. */
int bxa_cgroup_dir(bxa_kctx *k, const char *controller, char *out, size_t len)
{
    const char *path = bxa_cgroup_path(k->cg, k->ncg, controller);
    const char *want = controller && strncmp(controller, "name=", 5) == 0 ? controller : NULL;

    if (!path)
        return -1;
    for (size_t i = 0; i < k->nhm; i++) {
        const bxa_mount *m = &k->hm[i];
        size_t rl = strlen(m->root);
        int match;
        if (controller) {
            if (strcmp(m->fstype, "cgroup") != 0)
                continue;
            /* the controller is among the super options: "rw,cpu,cpuacct" */
            char opts[256];
            snprintf(opts, sizeof opts, ",%s,", m->super_opts);
            char needle[64];
            snprintf(needle, sizeof needle, ",%s,", want ? want : controller);
            match = strstr(opts, needle) != NULL;
        } else {
            match = strcmp(m->fstype, "cgroup2") == 0;
        }
        if (!match)
            continue;
        if (strcmp(m->root, "/") == 0)
            rl = 0;
        else if (strncmp(path, m->root, rl) != 0 || (path[rl] != '\0' && path[rl] != '/'))
            continue;
        if ((size_t)snprintf(out, len, "%s%s", m->point, path + rl) >= len)
            return -1;
        return 0;
    }
    return -1;
}

/* Pids listed in dir/cgroup.procs and below (depth-limited), appended to pids. */
int bxa_list_procs(bxa_kctx *k, int dfd, const char *rel, int depth, int64_t *pids, size_t *n)
{
    char *buf = NULL, *p, *end, name[160];
    size_t len;
    int rc;
    DIR *d;
    struct dirent *e;
    int dup_fd;

    if ((rc = bxa_read_at(dfd, "cgroup.procs", BXA_PROC_FILE_MAX, &buf, &len, k->err)) != 0)
        return rc;
    if (depth == 0) {
        snprintf(name, sizeof name, "cgroup/cgroup.procs");
    } else {
        snprintf(name, sizeof name, "cgroup/%s.cgroup.procs", rel);
        for (char *c = name + 7; *c; c++)
            if (!isalnum((unsigned char)*c) && *c != '.' && *c != '-' && *c != '_')
                *c = '_';
    }
    if ((rc = bxa_keep(k, BXA_EV_KERNEL, name, buf, len)) != 0) {
        free(buf);
        return rc;
    }
    for (p = buf; *p;) {
        long long v = strtoll(p, &end, 10);
        if (end == p || v <= 0 || (*end && *end != '\n')) {
            free(buf);
            return bx_error_set(k->err, BX_EINVAL, "cgroup.procs", "not a list of pids");
        }
        if (*n == BXA_PIDS_MAX) {
            free(buf);
            return bx_error_set(k->err, BX_EINVAL, "cgroup.procs",
                                "more than %d processes in the session", BXA_PIDS_MAX);
        }
        pids[(*n)++] = v;
        p = *end ? end + 1 : end;
    }
    free(buf);
    if (depth >= CGROUP_DEPTH_MAX || (dup_fd = dup(dfd)) < 0)
        return 0;
    if (!(d = fdopendir(dup_fd))) {
        close(dup_fd);
        return 0;
    }
    rewinddir(d);
    while (rc == 0 && (e = readdir(d)) != NULL) {
        char sub[96];
        int sfd;
        if (e->d_type != DT_DIR || e->d_name[0] == '.' ||
            strlen(rel) + strlen(e->d_name) + 2 > sizeof sub)
            continue;
        if ((sfd = openat(dfd, e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0)
            continue;
        snprintf(sub, sizeof sub, "%.40s%s%.50s", rel, *rel ? "." : "", e->d_name);
        rc = bxa_list_procs(k, sfd, sub, depth + 1, pids, n);
        close(sfd);
    }
    closedir(d);
    return rc;
}

/* Every pid of /proc whose cgroup names the session (when its cgroup folder is not
 * reachable from here). */
int bxa_scan_procs(bxa_kctx *k, int64_t *pids, size_t *n)
{
    int dfd = dup(k->procfd);
    DIR *d = dfd >= 0 ? fdopendir(dfd) : NULL;
    struct dirent *e;

    if (!d) {
        if (dfd >= 0)
            close(dfd);
        return bx_error_errno(k->err, BX_EIO, "/proc", "cannot list");
    }
    while ((e = readdir(d)) != NULL) {
        char *end, path[48], *buf = NULL;
        size_t len;
        bx_error ignored;
        long long pid = strtoll(e->d_name, &end, 10);
        if (*end || pid <= 0)
            continue;
        snprintf(path, sizeof path, "%lld/cgroup", pid);
        if (bxa_read_at(k->procfd, path, BXA_PROC_FILE_MAX, &buf, &len, &ignored) == 0 &&
            bxa_in_session(k, buf, len) && *n < BXA_PIDS_MAX)
            pids[(*n)++] = pid;
        free(buf);
    }
    closedir(d);
    return 0;
}

/* ---- one process ------------------------------------------------------------------------- */

void bxa_proc_close(bxa_proc *p)
{
    if (p->dfd >= 0)
        close(p->dfd);
    free(p->stat);
    free(p->cgroup);
    memset(p, 0, sizeof *p);
    p->dfd = -1;
}

/* Open /proc/<pid>, read its stat and cgroup: 1 when it started no later than the
 * collection began (and is no zombie), 0 when not or gone, <0 error. */
int bxa_proc_open(bxa_kctx *k, int64_t pid, bxa_proc *p)
{
    char path[32];
    bxa_stat st;
    int rc;

    memset(p, 0, sizeof *p);
    p->pid = pid;
    snprintf(path, sizeof path, "%lld", (long long)pid);
    if ((p->dfd = openat(k->procfd, path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
        return errno == ENOENT ? 0 : bx_error_errno(k->err, BX_EIO, path, "cannot open");
    rc = bxa_read_at(p->dfd, "stat", BXA_PROC_FILE_MAX, &p->stat, &p->stat_len, k->err);
    if (rc == 0)
        rc = bxa_read_at(p->dfd, "cgroup", BXA_PROC_FILE_MAX, &p->cgroup, &p->cgroup_len, k->err);
    if (rc != 0)
        return rc == BX_ENOTFOUND ? 0 : rc;
    if ((rc = bxa_parse_stat(p->stat, p->stat_len, &st, k->err)) != 0)
        return rc;
    if (st.pid != pid || st.starttime > k->s->begin || st.state == 'Z')
        return 0;
    p->start = st.starttime;
    for (int i = 0; i < BXA_NS_COUNT; i++)
        bxa_ns_link(p->dfd, bxa_ns_names[i], p->ns[i]);
    return 1;
}

/* bxa_proc_open, and its cgroup names the session's. */
int bxa_proc_prove(bxa_kctx *k, int64_t pid, bxa_proc *p)
{
    int r = bxa_proc_open(k, pid, p);

    if (r != 1)
        return r;
    return k->key_path && bxa_in_session(k, p->cgroup, p->cgroup_len) ? 1 : 0;
}

/* After reading: the same process still (start time and cgroup unchanged). */
int bxa_proc_same(bxa_kctx *k, bxa_proc *p)
{
    char *stat = NULL, *cg = NULL;
    size_t sl, cl;
    bxa_stat st;
    bx_error e;
    int same;

    same = bxa_read_at(p->dfd, "stat", BXA_PROC_FILE_MAX, &stat, &sl, &e) == 0 &&
           bxa_read_at(p->dfd, "cgroup", BXA_PROC_FILE_MAX, &cg, &cl, &e) == 0 &&
           bxa_parse_stat(stat, sl, &st, &e) == 0 && st.starttime == p->start &&
           cl == p->cgroup_len && memcmp(cg, p->cgroup, cl) == 0;
    (void)k;
    free(stat);
    free(cg);
    return same;
}

int bxa_keep_proc(bxa_kctx *k, bxa_proc *p, const char *what, const char *buf, size_t len)
{
    char name[64];

    snprintf(name, sizeof name, "%lld/%s", (long long)p->pid, what);
    return bxa_keep(k, BXA_EV_KERNEL, name, buf, len);
}

static int keep_ns(bxa_kctx *k, const char *who, char ns[BXA_NS_COUNT][64])
{
    char buf[BXA_NS_COUNT * 64 + 8], name[48];
    size_t n = 0;

    for (int i = 0; i < BXA_NS_COUNT; i++)
        n += (size_t)snprintf(buf + n, sizeof buf - n, "%s\n", ns[i]);
    snprintf(name, sizeof name, "%s/ns", who);
    return bxa_keep(k, BXA_EV_KERNEL, name, buf, n);
}

/* ---- the weakest over the session's processes ------------------------------------------------ */

static int seen_ns(char list[16][64], size_t *n, const char *ns)
{
    for (size_t i = 0; i < *n; i++)
        if (strcmp(list[i], ns) == 0)
            return 1;
    if (*n < 16)
        snprintf(list[(*n)++], 64, "%s", ns);
    return 0;
}

static int has_root(const bxa_status *st)
{
    for (int i = 0; i < 4; i++)
        if (st->uid[i] == 0)
            return 1;
    return 0;
}

static void fold_status(bxa_weakest *w, const bxa_status *st, int is_init)
{
    int rank = has_root(st) ? 2 : is_init ? 1 : 0;
    static const int order[3] = {0, 2, 1}; /* strength of Seccomp 0, 1, 2 */

    for (int i = 0; i < 5; i++)
        w->caps[i] |= st->caps[i];
    w->nnp = w->n == 0 ? st->nnp : (w->nnp && st->nnp);
    if (w->n == 0 || order[st->seccomp] < order[w->seccomp])
        w->seccomp = st->seccomp;
    if (rank > w->user_rank) {
        w->user = *st;
        w->user_rank = rank;
    }
    w->n++;
}

/* A mount path that is one of the masked paths (a /dev/null or an empty read-only tmpfs the
 * engine put there to hide a file): not a place the session can write to. */
static int masked(const json_t *list, const char *point)
{
    const json_t *v;
    size_t i;

    json_array_foreach(list, i, v)
    {
        if (json_is_string(v) && strcmp(json_string_value(v), point) == 0)
            return 1;
    }
    return 0;
}

static json_t *options_of(const bxa_mount *m)
{
    json_t *r = json_array();
    const char *lists[2] = {m->mnt_opts, m->super_opts};

    for (int l = 0; r && l < 2; l++) {
        for (const char *p = lists[l]; p && *p;) {
            const char *c = strchr(p, ',');
            size_t n = c ? (size_t)(c - p) : strlen(p);
            int dup = 0;
            const json_t *v;
            size_t i;
            json_array_foreach(r, i, v)
            {
                if (json_string_length(v) == n && memcmp(json_string_value(v), p, n) == 0)
                    dup = 1;
            }
            if (n && !dup && json_array_append_new(r, json_stringn_nocheck(p, n)) != 0) {
                json_decref(r);
                return NULL;
            }
            p = c ? c + 1 : NULL;
        }
    }
    bxa_sort_strings(r);
    return r;
}

static int tmpfs_backed(const char *fstype)
{
    return strcmp(fstype, "tmpfs") == 0 || strcmp(fstype, "ramfs") == 0 ||
           strcmp(fstype, "shm") == 0;
}

/* statvfs of point inside the session's root (resolved in that root, never outside it):
 * the size of the file system in bytes, or 0. */
static int64_t size_in_root(int dfd, const char *point)
{
    struct open_how how = {.flags = O_PATH | O_CLOEXEC,
                           .resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS};
    int root = openat(dfd, "root", O_PATH | O_DIRECTORY | O_CLOEXEC), fd;
    struct statvfs sv;
    int64_t size = 0;

    if (root < 0)
        return 0;
    fd = (int)syscall(SYS_openat2, root, point, &how, sizeof how);
    if (fd >= 0 && fstatvfs(fd, &sv) == 0 && sv.f_frsize > 0 &&
        sv.f_blocks <= (uint64_t)BX_JSON_MAX_INT / sv.f_frsize)
        size = (int64_t)(sv.f_blocks * sv.f_frsize);
    if (fd >= 0)
        close(fd);
    close(root);
    return size;
}

int bxa_fold_mounts(bxa_kctx *k, bxa_weakest *w, bxa_proc *p, const char *buf, size_t len)
{
    bxa_mount *m = NULL;
    size_t n = 0;
    const json_t *mask = json_object_get(k->v->spec, "maskedPaths");
    int rc;

    if (!json_is_array(mask))
        mask = k->s->masked;
    if ((rc = bxa_parse_mountinfo(buf, len, &m, &n, k->err)) != 0)
        return rc;
    for (size_t i = 0; rc == 0 && i < n; i++) {
        const bxa_mount *e = &m[i];
        int64_t size;
        json_t *opts, *entry;

        if (e != bxa_mount_at(m, n, e->point))
            continue; /* covered by a later mount at the same place */
        if (strcmp(e->point, "/") == 0) {
            w->rootfs_ro = (w->rootfs_seen ? w->rootfs_ro : 1) && !e->writable;
            w->rootfs_seen = 1;
        }
        if (json_object_set_new(w->mounts_ro, e->point, json_boolean(!e->writable)) != 0) {
            rc = bxa_oom(k->err);
            break;
        }
        if (!e->writable || masked(mask, e->point))
            continue;
        size = bxa_mount_size_option(e);
        if (size < 0) {
            rc = bx_error_set(k->err, BX_EINVAL, "mountinfo", "size beyond 2^53 at %s", e->point);
            break;
        }
        if (size == 0 && tmpfs_backed(e->fstype))
            size = size_in_root(p->dfd, e->point);
        if (!tmpfs_backed(e->fstype))
            size = 0;
        if (!(opts = options_of(e))) {
            rc = bxa_oom(k->err);
            break;
        }
        entry = json_pack("{s:s,s:s,s:o,s:o,s:s,s:s}", "path", e->point, "fsType", e->fstype,
                          "options", opts, "sizeBytes", size > 0 ? json_integer(size) : json_null(),
                          "root", e->root, "source", e->source);
        if (!entry || json_array_append_new(w->surface, entry) != 0)
            rc = bxa_oom(k->err);
    }
    bxa_mounts_free(m, n);
    return rc;
}

/* Read one proven process: status always; mountinfo and net/dev once per mount and network
 * namespace. */
static int read_proc(bxa_kctx *k, bxa_weakest *w, bxa_proc *p, int is_init)
{
    char *status = NULL, *mi = NULL, *nd = NULL;
    size_t sl = 0, ml = 0, nl = 0;
    int new_mnt = 0, new_net = 0, rc;
    bxa_status st;

    if ((rc = bxa_read_at(p->dfd, "status", BXA_PROC_FILE_MAX, &status, &sl, k->err)) != 0)
        goto out;
    if (!seen_ns(w->mnt_seen, &w->nmnt, p->ns[6])) {
        new_mnt = 1;
        if ((rc = bxa_read_at(p->dfd, "mountinfo", BXA_PROC_FILE_MAX, &mi, &ml, k->err)) != 0)
            goto out;
    }
    if (!seen_ns(w->net_seen, &w->nnet, p->ns[3])) {
        new_net = 1;
        if ((rc = bxa_read_at(p->dfd, "net/dev", BXA_PROC_FILE_MAX, &nd, &nl, k->err)) != 0)
            goto out;
    }
    if (!bxa_proc_same(k, p)) {
        rc = is_init ? bx_error_set(k->err, BX_EDENIED, "kernel",
                                    "the session's process %lld changed during collection",
                                    (long long)p->pid)
                     : BX_ENOTFOUND;
        goto out;
    }
    if ((rc = bxa_parse_status(status, sl, &st, k->err)) != 0)
        goto out;
    fold_status(w, &st, is_init);
    if (k->have_daemon) {
        for (int i = 0; i < BXA_NS_CONTAINMENT; i++)
            w->ns_host[i] |= p->ns[i][0] && strcmp(p->ns[i], k->daemon_ns[i]) == 0;
        w->ns_known = 1;
    }
    if (new_mnt && (rc = bxa_fold_mounts(k, w, p, mi, ml)) != 0)
        goto out;
    if (new_net) {
        json_t *names = NULL;
        const json_t *v;
        size_t i;
        if ((rc = bxa_parse_net_dev(nd, nl, &names, k->err)) != 0)
            goto out;
        json_array_foreach(names, i, v)
        {
            int dup = 0;
            const json_t *x;
            size_t j;
            json_array_foreach(w->interfaces, j, x) dup |= json_equal((json_t *)x, (json_t *)v);
            if (!dup)
                json_array_append(w->interfaces, (json_t *)v);
        }
        json_decref(names);
        bxa_sort_strings(w->interfaces);
    }
    if ((rc = bxa_keep_proc(k, p, "stat", p->stat, p->stat_len)) != 0 ||
        (rc = bxa_keep_proc(k, p, "cgroup", p->cgroup, p->cgroup_len)) != 0 ||
        (rc = bxa_keep_proc(k, p, "status", status, sl)) != 0 ||
        (mi && (rc = bxa_keep_proc(k, p, "mountinfo", mi, ml)) != 0) ||
        (nd && (rc = bxa_keep_proc(k, p, "net_dev", nd, nl)) != 0))
        goto out;
    {
        char who[24];
        snprintf(who, sizeof who, "%lld", (long long)p->pid);
        rc = keep_ns(k, who, p->ns);
    }
out:
    free(status);
    free(mi);
    free(nd);
    return rc;
}

/* ---- cgroup limits ------------------------------------------------------------------------ */

/* A limit file of the session's cgroup in controller's hierarchy: 1 read (*v = -1 for
 * unlimited), 0 not readable here. */
static int cg_limit(bxa_kctx *k, const char *controller, const char *file, int64_t *v, int64_t *v2)
{
    char dir[PATH_MAX], name[96], *buf = NULL;
    size_t len;
    int dfd, rc;
    bx_error e;

    if (bxa_cgroup_dir(k, controller, dir, sizeof dir) != 0)
        return 0;
    if ((dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
        return 0;
    rc = bxa_read_at(dfd, file, 64 * 1024, &buf, &len, &e);
    close(dfd);
    if (rc != 0)
        return 0;
    snprintf(name, sizeof name, "cgroup/%s", file);
    rc = v2 ? bxa_parse_cpu_max(buf, len, v, v2, k->err) : bxa_parse_limit(buf, len, v, k->err);
    if (rc == 0)
        rc = bxa_keep(k, BXA_EV_KERNEL, name, buf, len);
    free(buf);
    return rc == 0 ? 1 : rc;
}

static json_t *lim(int64_t v)
{
    return v > 0 ? json_integer(v) : json_null();
}

/* The cgroup's limits in the predicate's terms. Members only for what was read. */
int bxa_read_limits(bxa_kctx *k, json_t *view, const json_t *engine_res)
{
    json_t *res = json_object(), *dev;
    int64_t v, q, p;
    int r, v1 = k->key_controller != NULL;

    (void)engine_res;
    if (!res)
        return bxa_oom(k->err);
#define TRY(call)                                                                                  \
    do {                                                                                           \
        if ((r = (call)) < 0) {                                                                    \
            json_decref(res);                                                                      \
            return r;                                                                              \
        }                                                                                          \
    } while (0)
    if (v1) {
        TRY(cg_limit(k, "memory", "memory.limit_in_bytes", &v, NULL));
        if (r)
            json_object_set_new(res, "memoryBytes", lim(v));
        TRY(cg_limit(k, "memory", "memory.memsw.limit_in_bytes", &v, NULL));
        if (r)
            json_object_set_new(res, "memorySwapBytes", lim(v));
        TRY(cg_limit(k, "pids", "pids.max", &v, NULL));
        if (r)
            json_object_set_new(res, "pidsLimit", lim(v));
        TRY(cg_limit(k, "cpu", "cpu.cfs_quota_us", &q, NULL));
        int have_q = r;
        TRY(cg_limit(k, "cpu", "cpu.cfs_period_us", &p, NULL));
        if (have_q && r) {
            json_object_set_new(res, "cpuQuota", lim(q));
            json_object_set_new(res, "cpuPeriod", lim(p));
        }
        TRY(cg_limit(k, "cpu", "cpu.shares", &v, NULL));
        if (r)
            json_object_set_new(res, "cpuShares", lim(v));
    } else {
        int64_t mem = -1;
        TRY(cg_limit(k, NULL, "memory.max", &mem, NULL));
        if (r)
            json_object_set_new(res, "memoryBytes", lim(mem));
        TRY(cg_limit(k, NULL, "memory.swap.max", &v, NULL));
        /* v2 limits swap alone; the engine's MemorySwap is memory + swap */
        if (r)
            json_object_set_new(res, "memorySwapBytes",
                                mem > 0 && v >= 0 && v <= BX_JSON_MAX_INT - mem ? lim(mem + v)
                                                                                : json_null());
        TRY(cg_limit(k, NULL, "pids.max", &v, NULL));
        if (r)
            json_object_set_new(res, "pidsLimit", lim(v));
        TRY(cg_limit(k, NULL, "cpu.max", &q, &p));
        if (r) {
            json_object_set_new(res, "cpuQuota", lim(q));
            json_object_set_new(res, "cpuPeriod", lim(p));
        }
        TRY(cg_limit(k, NULL, "cpu.weight", &v, NULL));
        /* cpu.weight back to the shares the engine set (runc's conversion, inverted) */
        if (r && v > 0)
            json_object_set_new(res, "cpuWeight", json_integer(v));
    }
#undef TRY
    if (json_object_size(res) && json_object_set(view, "resources", res) != 0) {
        json_decref(res);
        return bxa_oom(k->err);
    }
    json_decref(res);
    if (v1) {
        char dir[PATH_MAX], *buf = NULL;
        size_t len;
        int dfd, allow;
        json_t *rules = NULL;
        bx_error e;
        if (bxa_cgroup_dir(k, "devices", dir, sizeof dir) == 0 &&
            (dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) >= 0) {
            int rr = bxa_read_at(dfd, "devices.list", 256 * 1024, &buf, &len, &e);
            close(dfd);
            if (rr == 0) {
                if ((rr = bxa_parse_devices_list(buf, len, &allow, &rules, k->err)) == 0 &&
                    (rr = bxa_keep(k, BXA_EV_KERNEL, "cgroup/devices.list", buf, len)) == 0) {
                    dev = json_pack("{s:b}", "allowAll", allow);
                    if (!dev || json_object_set_new(view, "devices", dev) != 0)
                        rr = bxa_oom(k->err);
                }
                json_decref(rules);
                free(buf);
                if (rr != 0)
                    return rr;
            }
        }
    }
    return 0;
}

/* ---- the OCI spec --------------------------------------------------------------------------- */

int bxa_spec_read(bxa_kctx *k)
{
    static const char *const env[] = {"process", "env", NULL};
    char path[PATH_MAX], sha[65], *buf = NULL, *red = NULL;
    size_t len = 0, rlen = 0;
    int rc;
    json_t *view = NULL;
    const char *root = k->s->paths.task_root ? k->s->paths.task_root : TASK_ROOT;

    if (k->s->oci_config)
        snprintf(path, sizeof path, "%s", k->s->oci_config);
    else
        snprintf(path, sizeof path, "%s/%s/config.json", root, k->s->id);
    {
        int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
        if (fd < 0)
            return 0; /* not here: no spec view */
        close(fd);
    }
    if ((rc = bx_read_file(path, SPEC_MAX, 0, &buf, &len, k->err)) != 0)
        goto out;
    if ((rc = bx_json_parse_strict(buf, len, 1, 0, &k->spec_json, k->err)) != 0) {
        bx_error_prefix(k->err, "config.json");
        goto out;
    }
    if ((rc = bxa_redact_env(buf, len, env, &red, &rlen, k->err)) != 0 ||
        (rc = bxa_evidence_add(k->ev, BXA_EV_SPEC, "config.json", red, rlen, k->err)) != 0 ||
        (rc = bxa_spec_view(k->spec_json, &view, sha, k->err)) != 0)
        goto out;
    k->v->spec = view;
    view = NULL;
out:
    json_decref(view);
    free(buf);
    free(red);
    return rc;
}

/* ---- runc, crun: the session's processes --------------------------------------------------- */

/* The session's sysctls read back in its own namespaces (sysctl.c): every name the engine
 * set, the spec's and the watched ones; only on this host's own /proc (a recorded one has no
 * namespaces to join). */
static int kernel_sysctls(bxa_kctx *k, bxa_proc *init, json_t *view)
{
    const json_t *spec = json_object_get(k->v->spec, "sysctls"), *v;
    const char *name;
    json_t *names = json_object(), *vals = NULL;
    int rc = 0;

    if (k->s->paths.proc && strcmp(k->s->paths.proc, "/proc") != 0) {
        json_decref(names);
        return 0;
    }
    if (!names)
        return bxa_oom(k->err);
    json_object_foreach((json_t *)k->s->sysctls, name, v) json_object_set(names, name, json_null());
    json_object_foreach((json_t *)spec, name, v) json_object_set(names, name, json_null());
    for (const char *const *w = bxa_sysctl_watched; *w; w++)
        json_object_set(names, *w, json_null());
    if ((rc = bxa_sysctl_read(init->dfd, names, &vals, k->err)) == 0 &&
        json_object_set_new(view, "sysctls", vals) != 0)
        rc = bxa_oom(k->err);
    json_decref(names);
    return rc;
}

int bxa_kernel_processes(bxa_kctx *k, bxa_proc *init)
{
    int64_t *pids = calloc(BXA_PIDS_MAX, sizeof *pids);
    size_t n = 0;
    bxa_weakest w = {.user_rank = -1};
    char dir[PATH_MAX];
    json_t *view = NULL;
    int rc = 0, dfd;

    w.surface = json_array();
    w.interfaces = json_array();
    w.mounts_ro = json_object();
    if (!pids || !w.surface || !w.interfaces || !w.mounts_ro) {
        rc = bxa_oom(k->err);
        goto out;
    }
    if (bxa_cgroup_dir(k, k->key_controller, dir, sizeof dir) == 0 &&
        (dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) >= 0) {
        rc = bxa_list_procs(k, dfd, "", 0, pids, &n);
        close(dfd);
    } else {
        rc = bxa_scan_procs(k, pids, &n);
    }
    if (rc != 0)
        goto out;
    /* the init process first: it was proven already */
    if ((rc = read_proc(k, &w, init, 1)) != 0) {
        if (rc == BX_ENOTFOUND)
            rc = bx_error_set(k->err, BX_EDENIED, "kernel",
                              "the session's process %lld exited during collection",
                              (long long)init->pid);
        goto out;
    }
    for (size_t i = 0; i < n; i++) {
        bxa_proc p;
        int r;
        if (pids[i] == init->pid)
            continue;
        r = bxa_proc_prove(k, pids[i], &p);
        if (r == 1) {
            r = read_proc(k, &w, &p, 0);
            if (r == BX_ENOTFOUND)
                r = 0; /* gone or changed while read: not counted */
        }
        bxa_proc_close(&p);
        if (r < 0) {
            rc = r;
            goto out;
        }
    }
    if (k->have_daemon && (rc = keep_ns(k, "daemon", k->daemon_ns)) != 0)
        goto out;
    bxa_sort_strings(w.interfaces);
    {
        json_t *caps = json_pack(
            "{s:o,s:o,s:o,s:o,s:o}", "inheritable", bxa_cap_names(w.caps[BXA_CAP_INH]), "permitted",
            bxa_cap_names(w.caps[BXA_CAP_PRM]), "effective", bxa_cap_names(w.caps[BXA_CAP_EFF]),
            "bounding", bxa_cap_names(w.caps[BXA_CAP_BND]), "ambient",
            bxa_cap_names(w.caps[BXA_CAP_AMB]));
        json_t *uids = json_pack("[IIII]", (json_int_t)w.user.uid[0], (json_int_t)w.user.uid[1],
                                 (json_int_t)w.user.uid[2], (json_int_t)w.user.uid[3]);
        json_t *gids = json_pack("[IIII]", (json_int_t)w.user.gid[0], (json_int_t)w.user.gid[1],
                                 (json_int_t)w.user.gid[2], (json_int_t)w.user.gid[3]);
        json_t *groups = json_array(), *ns = json_object();
        for (size_t i = 0; groups && i < w.user.ngroups; i++)
            json_array_append_new(groups, json_integer(w.user.groups[i]));
        bxa_sort_ints(groups);
        for (int i = 0; ns && i < BXA_NS_CONTAINMENT; i++)
            json_object_set_new(ns, bxa_ns_names[i],
                                w.ns_known ? json_string(w.ns_host[i] ? "host" : "private")
                                           : json_null());
        view = json_pack("{s:o,s:b,s:{s:s?},s:{s:o,s:o,s:o},s:o,s:{s:O},s:O,s:O,s:{s:b}}",
                         "capabilities", caps, "noNewPrivileges", w.nnp, "seccomp", "mode",
                         w.seccomp == 0 ? "disabled" : "filter", "user", "uids", uids, "gids", gids,
                         "groups", groups, "namespaces", ns, "network", "interfaces", w.interfaces,
                         "writeSurface", w.surface, "mountsReadOnly", w.mounts_ro, "rootfs",
                         "readOnly", w.rootfs_seen && w.rootfs_ro);
        if (!view) {
            rc = bxa_oom(k->err);
            goto out;
        }
    }
    if (!w.rootfs_seen)
        json_object_set_new(json_object_get(view, "rootfs"), "readOnly", json_null());
    if ((rc = bxa_read_limits(k, view, NULL)) != 0 || (rc = kernel_sysctls(k, init, view)) != 0)
        goto out;
    k->v->kernel = view;
    view = NULL;
    k->v->level = "engine+kernel";
    snprintf(k->v->why, sizeof k->v->why,
             "%zu process(es) of the session read on this host (cgroup %s)", w.n, k->key_path);
out:
    json_decref(view);
    json_decref(w.surface);
    json_decref(w.interfaces);
    json_decref(w.mounts_ro);
    free(pids);
    return rc;
}

/* ---- runsc: the sandbox ------------------------------------------------------------------- */

const char *bxa_base_name(const char *s)
{
    const char *b = s ? strrchr(s, '/') : NULL;
    return b ? b + 1 : s ? s : "";
}

/* 1 when argv is runsc's process `sub` ("boot", "gofer") of the container id. */
int bxa_runsc_of(const json_t *argv, const char *sub, const char *id)
{
    size_t n = json_array_size(argv), i;
    const char *a0 = json_string_value(json_array_get(argv, 0));
    int has_sub = 0, names = 0;

    if (!a0 ||
        (strncmp(bxa_base_name(a0), "runsc", 5) != 0 && strcmp(bxa_base_name(a0), "exe") != 0))
        return 0;
    for (i = 1; i < n; i++) {
        const char *a = json_string_value(json_array_get(argv, i));
        if (!a)
            return 0;
        if (!has_sub && a[0] != '-')
            has_sub = strcmp(a, sub) == 0 ? 1 : -1;
        if (has_sub == 1 &&
            (strcmp(a, id) == 0 ||
             (strncmp(a, "--bundle", 8) == 0 &&
              strcmp(bxa_base_name(strchr(a, '=') ? strchr(a, '=') + 1 : ""), id) == 0)))
            names = 1;
        if (has_sub == 1 && strcmp(a, "--bundle") == 0 && i + 1 < n &&
            strcmp(bxa_base_name(json_string_value(json_array_get(argv, i + 1))), id) == 0)
            names = 1;
    }
    return has_sub == 1 && names;
}

int bxa_read_argv(bxa_kctx *k, int dfd, json_t **argv)
{
    char *buf = NULL;
    size_t len;
    int rc = bxa_read_at(dfd, "cmdline", BXA_PROC_FILE_MAX, &buf, &len, k->err);

    *argv = NULL;
    if (rc == 0)
        rc = bxa_parse_cmdline(buf, len, argv, k->err);
    free(buf);
    return rc;
}

/* The gofer: a runsc "gofer" of the same container, child of the sandbox's parent. */
static int find_gofer(bxa_kctx *k, int64_t ppid, int64_t *gofer)
{
    int dfd = dup(k->procfd);
    DIR *d = dfd >= 0 ? fdopendir(dfd) : NULL;
    struct dirent *e;

    *gofer = -1;
    if (!d) {
        if (dfd >= 0)
            close(dfd);
        return 0;
    }
    while (*gofer < 0 && (e = readdir(d)) != NULL) {
        char *end;
        long long pid = strtoll(e->d_name, &end, 10);
        bxa_proc p = {.dfd = -1};
        json_t *argv = NULL;
        bxa_stat st;
        bx_error ign;
        if (*end || pid <= 0)
            continue;
        if (bxa_proc_prove(k, pid, &p) == 1 && bxa_parse_stat(p.stat, p.stat_len, &st, &ign) == 0 &&
            st.ppid == ppid && bxa_read_argv(k, p.dfd, &argv) == 0 &&
            bxa_runsc_of(argv, "gofer", k->s->id)) {
            char *status = NULL;
            size_t sl;
            if (bxa_read_at(p.dfd, "status", BXA_PROC_FILE_MAX, &status, &sl, &ign) == 0 &&
                bxa_proc_same(k, &p)) {
                char *cl = json_dumps(argv, JSON_COMPACT);
                *gofer = pid;
                if (bxa_keep_proc(k, &p, "status", status, sl) != 0 ||
                    (cl && bxa_keep_proc(k, &p, "cmdline.json", cl, strlen(cl)) != 0))
                    *gofer = -1;
                free(cl);
            }
            free(status);
        }
        json_decref(argv);
        bxa_proc_close(&p);
    }
    closedir(d);
    return 0;
}

static const char *seccomp_word(int mode)
{
    return mode == 0 ? "disabled" : "filter";
}

int bxa_runsc_sandbox(bxa_kctx *k, bxa_proc *sb, int in_cgroup)
{
    json_t *argv = NULL, *flags = NULL, *rt = NULL, *res = NULL;
    char *status = NULL, *cmdline = NULL;
    size_t sl, cl;
    bxa_status st;
    int64_t gofer = -1;
    bxa_stat pst;
    int rc;

    if ((rc = bxa_read_at(sb->dfd, "status", BXA_PROC_FILE_MAX, &status, &sl, k->err)) != 0 ||
        (rc = bxa_read_at(sb->dfd, "cmdline", BXA_PROC_FILE_MAX, &cmdline, &cl, k->err)) != 0 ||
        (rc = bxa_parse_cmdline(cmdline, cl, &argv, k->err)) != 0 ||
        (rc = bxa_parse_status(status, sl, &st, k->err)) != 0 ||
        (rc = bxa_parse_stat(sb->stat, sb->stat_len, &pst, k->err)) != 0)
        goto out;
    if (!bxa_proc_same(k, sb)) {
        rc = bx_error_set(k->err, BX_EDENIED, "runsc", "the sandbox changed during collection");
        goto out;
    }
    if (!(flags = bxa_runsc_flags(argv))) {
        rc = bxa_oom(k->err);
        goto out;
    }
    if ((rc = bxa_keep_proc(k, sb, "stat", sb->stat, sb->stat_len)) != 0 ||
        (rc = bxa_keep_proc(k, sb, "cgroup", sb->cgroup, sb->cgroup_len)) != 0 ||
        (rc = bxa_keep_proc(k, sb, "status", status, sl)) != 0 ||
        (rc = bxa_keep_proc(k, sb, "cmdline", cmdline, cl)) != 0)
        goto out;
    find_gofer(k, pst.ppid, &gofer);
    if ((rc = bxa_runsc_view(flags, k->v->spec, &rt, k->err)) != 0)
        goto out;
    /* the cgroup holds the sandbox (its limits apply to the whole sandbox) unless runsc
     * was told to leave cgroups alone */
    if (in_cgroup &&
        !json_is_null(json_object_get(json_object_get(rt, "resources"), "memoryBytes")) &&
        (res = json_object()) && (rc = bxa_read_limits(k, res, NULL)) == 0 &&
        json_object_get(res, "resources")) {
        k->v->kernel = json_pack("{s:O}", "resources", json_object_get(res, "resources"));
    }
    if (rc != 0)
        goto out;
    k->v->sandbox =
        json_pack("{s:I,s:o,s:b,s:s,s:I}", "pid", (json_int_t)sb->pid, "capEffective",
                  bxa_cap_names(st.caps[BXA_CAP_EFF]), "noNewPrivileges", st.nnp, "seccompMode",
                  seccomp_word(st.seccomp), "uid", (json_int_t)st.uid[1]);
    if (json_object_get(rt, "sandbox"))
        json_object_update(k->v->sandbox, json_object_get(rt, "sandbox"));
    json_object_del(rt, "sandbox");
    k->v->runtime = rt;
    k->v->runtime_args = flags;
    rt = flags = NULL;
    k->v->level = "engine+runtime";
    snprintf(k->v->why, sizeof k->v->why,
             "runsc sandbox %lld%s read on this host with the task's OCI spec", (long long)sb->pid,
             gofer > 0 ? " and its gofer" : "");
out:
    json_decref(argv);
    json_decref(flags);
    json_decref(rt);
    json_decref(res);
    free(status);
    free(cmdline);
    return rc;
}

/* ---- host facts shared by several collections ---------------------------------------------- */

_Static_assert(sizeof(((struct bxa_daemon *)0)->ns) == sizeof(((bxa_kctx *)0)->daemon_ns),
               "bxa_daemon holds every namespace bxa_kctx compares");

static void read_host_mounts(bxa_kctx *k)
{
    char *buf = NULL;
    size_t len;
    bx_error e;

    if (bxa_read_at(k->procfd, "self/mountinfo", BXA_PROC_FILE_MAX, &buf, &len, &e) == 0 &&
        bxa_parse_mountinfo(buf, len, &k->hm, &k->nhm, &e) != 0) {
        k->hm = NULL;
        k->nhm = 0;
    }
    free(buf);
}

/* This host's mounts: read once per proc root when the collection shares host facts. */
void bxa_host_mounts(bxa_kctx *k, const char *proc_root)
{
    bx_collect_shared *sh = k->s->shared;

    if (!sh) {
        read_host_mounts(k);
        return;
    }
    pthread_mutex_lock(&sh->mu);
    if (!sh->host_mounts_read) {
        read_host_mounts(k);
        sh->host_proc = strdup(proc_root);
        sh->host_mounts = k->hm;
        sh->nhost_mounts = k->nhm;
        sh->host_mounts_read = sh->host_proc != NULL;
        if (!sh->host_mounts_read) { /* not kept: this collection frees them */
            sh->host_mounts = NULL;
            sh->nhost_mounts = 0;
            pthread_mutex_unlock(&sh->mu);
            return;
        }
    } else if (strcmp(sh->host_proc, proc_root) != 0) {
        pthread_mutex_unlock(&sh->mu);
        read_host_mounts(k);
        return;
    }
    k->hm = sh->host_mounts;
    k->nhm = sh->nhost_mounts;
    k->hm_shared = 1;
    pthread_mutex_unlock(&sh->mu);
}

/* The engine daemon: looked up once per way of looking when host facts are shared. */
void bxa_daemon_lookup(bxa_kctx *k, const char *proc_root)
{
    bx_collect_shared *sh = k->s->shared;
    struct bxa_daemon *d;
    char *key = NULL;

    if (!sh || asprintf(&key, "%s\n%s\n%s\n%s", k->s->kind ? k->s->kind : "",
                        k->s->paths.pidfile ? k->s->paths.pidfile : DOCKER_PIDFILE,
                        k->s->socket ? k->s->socket : "", proc_root) < 0) {
        find_daemon(k);
        return;
    }
    pthread_mutex_lock(&sh->mu);
    for (d = sh->daemons; d && strcmp(d->key, key) != 0; d = d->next)
        ;
    if (d) {
        memcpy(k->daemon_ns, d->ns, sizeof k->daemon_ns);
        k->have_daemon = d->have;
        k->daemon_pid = d->pid;
        pthread_mutex_unlock(&sh->mu);
        free(key);
        return;
    }
    pthread_mutex_unlock(&sh->mu);
    find_daemon(k);
    if (!(d = calloc(1, sizeof *d))) {
        free(key);
        return;
    }
    d->key = key;
    memcpy(d->ns, k->daemon_ns, sizeof d->ns);
    d->have = k->have_daemon;
    d->pid = k->daemon_pid;
    pthread_mutex_lock(&sh->mu);
    d->next = sh->daemons;
    sh->daemons = d;
    pthread_mutex_unlock(&sh->mu);
}

/* ---- the whole view ------------------------------------------------------------------------ */

static int is_runsc(const char *rt)
{
    return rt && (strcmp(rt, "runsc") == 0 || strncmp(bxa_base_name(rt), "runsc", 5) == 0);
}

static int is_process_runtime(const char *rt)
{
    const char *b = bxa_base_name(rt);
    return rt && (strcmp(b, "runc") == 0 || strcmp(b, "crun") == 0 ||
                  strcmp(rt, "io.containerd.runc.v2") == 0 ||
                  strcmp(rt, "io.containerd.runtime.v1.linux") == 0);
}

int bxa_kernel_read(const bxa_session *s, bxa_views *v, bx_evidence *ev, bx_error *err)
{
    bxa_kctx k = {.s = s, .v = v, .ev = ev, .err = err, .procfd = -1, .daemon_pid = -1};
    const char *proc_root = s->paths.proc ? s->paths.proc : "/proc";
    bxa_proc init = {.dfd = -1};
    int rc = 0, r, have_cg = 0;

    v->level = "engine";
    if (!is_runsc(s->runtime) && !is_process_runtime(s->runtime)) {
        snprintf(v->why, sizeof v->why,
                 "runtime %s is not one whose processes are the workload's (runc, crun) nor "
                 "runsc",
                 s->runtime ? s->runtime : "(unknown)");
        return 0;
    }
    if ((k.procfd = open(proc_root, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0) {
        snprintf(v->why, sizeof v->why, "%s is not readable here", proc_root);
        return 0;
    }
    /* the session's init process, as the engine names it */
    if ((r = bxa_proc_open(&k, s->pid, &init)) < 0) {
        rc = r;
        goto out;
    }
    if (r == 1 && bxa_parse_cgroup(init.cgroup, init.cgroup_len, &k.cg, &k.ncg, err) == 0)
        have_cg = bxa_cgroup_key(&k) == 0;
    if (r != 1 || (!have_cg && !is_runsc(s->runtime))) {
        snprintf(v->why, sizeof v->why,
                 "process %lld (State.Pid) cannot be proven the session's here (its cgroup does "
                 "not name the container, it started after the collection began, or it is in "
                 "another PID namespace)",
                 (long long)s->pid);
        goto out;
    }
    bxa_host_mounts(&k, proc_root);
    bxa_daemon_lookup(&k, proc_root);
    if ((rc = bxa_spec_read(&k)) != 0)
        goto out;
    if (is_runsc(s->runtime)) {
        /* the sandbox is proven by its command line (runsc boot ... <Id>) and start time;
         * with --ignore-cgroups it is in no cgroup of the container's */
        json_t *argv = NULL;
        if ((rc = bxa_read_argv(&k, init.dfd, &argv)) != 0)
            goto out;
        r = bxa_runsc_of(argv, "boot", s->id);
        json_decref(argv);
        if (!r) {
            snprintf(v->why, sizeof v->why,
                     "process %lld is not the runsc sandbox of this container", (long long)s->pid);
            goto out;
        }
        if (!v->spec) {
            snprintf(v->why, sizeof v->why, "the task's OCI spec is not readable here");
            goto out;
        }
        rc = bxa_runsc_sandbox(&k, &init, have_cg);
        goto out;
    }
    rc = bxa_kernel_processes(&k, &init);
out:
    if (rc != 0 || strcmp(v->level, "engine") == 0) {
        /* nothing read counts unless the level was reached */
        json_decref(v->kernel);
        json_decref(v->runtime);
        json_decref(v->sandbox);
        json_decref(v->runtime_args);
        v->kernel = v->runtime = v->sandbox = v->runtime_args = NULL;
        if (rc == 0 && v->spec && strcmp(v->level, "engine") == 0) {
            json_decref(v->spec); /* the spec alone is not a level of its own */
            v->spec = NULL;
        }
        bxa_evidence_clear(ev, BXA_EV_KERNEL);
        bxa_evidence_clear(ev, BXA_EV_SPEC);
    }
    bxa_proc_close(&init);
    json_decref(k.spec_json);
    bxa_cgroups_free(k.cg, k.ncg);
    if (!k.hm_shared)
        bxa_mounts_free(k.hm, k.nhm);
    if (k.procfd >= 0)
        close(k.procfd);
    return rc;
}
