/* SPDX-License-Identifier: Apache-2.0 */
/* Who the session's processes are, on this host (runc, crun), and scanning them until two
 * scans agree.
 *
 * The rule (docs/collector.md, "Whose processes"): when the session's init process is the
 * first process of a pid namespace of its own, the session's processes are those in that pid
 * namespace or in namespaces below it (the kernel's NS_GET_PARENT), but those in another
 * container's cgroup (which joined it: --pid container:S); otherwise (--pid host, --pid
 * container:W) those in the session's cgroup, in any hierarchy, or below it, but the
 * cgroups the engine lists as other containers' (--cgroup-parent under the session). Every
 * process of /proc is looked at, each scan; one started after the collection began, a
 * zombie and the collector itself never count.
 *
 * A process is taken with a pidfd before its /proc/<pid> folder is opened, so that after
 * reading, a live pidfd says the folder read was that process's all along (no pid reuse in
 * between). After a round of reading, the session is scanned again: the scans agree when the
 * later finds no process the earlier did not and each process it finds is still the one
 * read; otherwise the later scan's processes are read again, a bounded number of times. */
#include "attest_internal.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/nsfs.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

/* ---- pidfds ------------------------------------------------------------------------------- */

int bxa_pidfd_open(int64_t pid)
{
#ifdef SYS_pidfd_open
    long fd = syscall(SYS_pidfd_open, (pid_t)pid, 0);
    return fd >= 0 ? (int)fd : -1;
#else
    (void)pid;
    return -1;
#endif
}

int bxa_pidfd_alive(int pidfd)
{
    struct pollfd p = {.fd = pidfd, .events = POLLIN};
    int r;

    if (pidfd < 0)
        return -1;
    do
        r = poll(&p, 1, 0);
    while (r < 0 && errno == EINTR);
    if (r < 0)
        return -1;
    return r == 0 ? 1 : 0; /* readable once the process has exited */
}

/* ---- the rule ----------------------------------------------------------------------------- */

void bxa_session_rule(bxa_kctx *k, const bxa_proc *init, const bxa_status *st)
{
    int daemons = k->have_daemon && strcmp(init->ns[BXA_NS_PID], k->daemon_ns[BXA_NS_PID]) == 0;

    snprintf(k->init_pidns, sizeof k->init_pidns, "%s", init->ns[BXA_NS_PID]);
    k->init_nspid_depth = st->nspid_depth;
    k->rule = st->nspid_depth >= 2 && st->nspid_last == 1 && init->ns[BXA_NS_PID][0] && !daemons
                  ? BXA_RULE_PIDNS
                  : BXA_RULE_CGROUP;
}

int bxa_others(bxa_kctx *k)
{
    bxa_container *list = NULL;
    size_t n = 0, keep = 0;
    int rc;

    if (k->others_read)
        return 0;
    k->others_read = 1;
    if (!k->s->containers)
        return 0;
    if ((rc = k->s->containers(k->s->containers_arg, &list, &n, k->err)) != 0)
        return rc;
    for (size_t i = 0; i < n; i++)
        if (strcmp(list[i].id, k->s->id) != 0)
            list[keep++] = list[i];
    k->others = list;
    k->nothers = keep;
    return 0;
}

/* ---- cgroups: the session's, another container's -------------------------------------------- */

static int is_hex(char c)
{
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
}

/* The 64-hex Id a path component names ("<id>", "docker-<id>.scope", "libpod-<id>"), or
 * NULL. */
static const char *component_id(const char *c, size_t n, char out[65])
{
    for (size_t i = 0; i + 64 <= n; i++) {
        size_t j = 0;
        if (i > 0 && is_hex(c[i - 1]))
            continue;
        while (j < 64 && is_hex(c[i + j]))
            j++;
        if (j == 64 && (i + 64 == n || !is_hex(c[i + 64]))) {
            memcpy(out, c + i, 64);
            out[64] = '\0';
            return out;
        }
    }
    return NULL;
}

/* 0: the deepest container the path names is the session (or none is named); 1: another
 * of the engine's containers (its Id into id); -1: names no container of the engine's. */
static int path_owner(bxa_kctx *k, const char *path, char *id)
{
    const char *end = path + strlen(path);

    while (end > path) {
        const char *start = end;
        char cid[65];
        while (start > path && start[-1] != '/')
            start--;
        if (component_id(start, (size_t)(end - start), cid)) {
            if (strcmp(cid, k->s->id) == 0)
                return 0;
            for (size_t i = 0; i < k->nothers; i++) {
                if (strcmp(cid, k->others[i].id) == 0) {
                    if (id)
                        memcpy(id, cid, 65);
                    return 1;
                }
            }
        }
        end = start > path ? start - 1 : path;
    }
    return -1;
}

int bxa_cgroup_other(bxa_kctx *k, const char *buf, size_t len, char *id)
{
    bxa_cgroup *cg = NULL;
    size_t n = 0;
    bx_error e;
    int r = 0;

    if (bxa_parse_cgroup(buf, len, &cg, &n, &e) != 0)
        return 0;
    for (size_t i = 0; i < n; i++) {
        int o = path_owner(k, cg[i].path, id);
        if (o >= 0) {
            r = o;
            break;
        }
    }
    bxa_cgroups_free(cg, n);
    return r;
}

int bxa_path_at_or_below(const char *p, const char *base)
{
    size_t bl = strlen(base);
    if (strcmp(base, "/") == 0)
        return 1;
    return strncmp(p, base, bl) == 0 && (p[bl] == '\0' || p[bl] == '/');
}

int bxa_in_session_any(bxa_kctx *k, const char *buf, size_t len)
{
    bxa_cgroup *cg = NULL;
    size_t n = 0;
    bx_error e;
    int r = 0;

    if (bxa_parse_cgroup(buf, len, &cg, &n, &e) != 0)
        return 0;
    for (size_t i = 0; !r && i < n; i++) {
        for (size_t j = 0; j < k->ncg; j++) {
            if (k->cg[j].hierarchy != cg[i].hierarchy ||
                strcmp(k->cg[j].controllers, cg[i].controllers) != 0)
                continue;
            r = bxa_cgroup_names(k->cg[j].path, k->s->id) && bxa_path_at_or_below(cg[i].path, k->cg[j].path);
            break;
        }
    }
    bxa_cgroups_free(cg, n);
    return r;
}

/* ---- the pid namespace rule ------------------------------------------------------------------ */

static uint64_t link_ino(const char *link)
{
    char type[16];
    uint64_t ino = 0;
    return bxa_ns_link_parse(link, type, &ino) == 0 ? ino : 0;
}

/* 1 when the pid namespace of the process at dfd (link) lies below the session's, by the
 * kernel's parents of the namespace (only on this host's own /proc). */
static int pidns_below(bxa_kctx *k, int dfd, const char *link)
{
    uint64_t ino = link_ino(link), want = link_ino(k->init_pidns);
    int fd, below = 0;

    if (!ino || !want || !k->real_proc)
        return 0;
    for (size_t i = 0; i < k->nbelow; i++)
        if (k->below_ino[i] == ino)
            return k->below_is[i];
    if ((fd = openat(dfd, "ns/pid", O_RDONLY | O_CLOEXEC)) >= 0) {
        for (int depth = 0; depth < BXA_NSPID_MAX; depth++) {
            struct stat st;
            int parent = ioctl(fd, NS_GET_PARENT);
            close(fd);
            fd = parent;
            if (fd < 0)
                break;
            if (fstat(fd, &st) == 0 && (uint64_t)st.st_ino == want) {
                below = 1;
                break;
            }
        }
        if (fd >= 0)
            close(fd);
    }
    if (k->nbelow < sizeof k->below_ino / sizeof k->below_ino[0]) {
        k->below_ino[k->nbelow] = ino;
        k->below_is[k->nbelow++] = (signed char)below;
    }
    return below;
}

/* ---- one scan --------------------------------------------------------------------------------- */

static int by_pid(const void *a, const void *b)
{
    const bxa_pidstart *x = a, *y = b;
    return (x->pid > y->pid) - (x->pid < y->pid);
}

/* 0 when the process named by its /proc entry is, by its pid namespace link alone, not the
 * session's (another pid namespace, one already found not below the session's, or none
 * readable): one system call, before its folder is opened; 1 when it may be. */
static int may_be_in_session_pidns(bxa_kctx *k, const char *entry)
{
    char path[48], link[64];
    uint64_t ino;
    ssize_t n;

    snprintf(path, sizeof path, "%.20s/ns/pid", entry);
    if ((n = readlinkat(k->procfd, path, link, sizeof link - 1)) <= 0)
        return 0;
    link[n] = '\0';
    if (strcmp(link, k->init_pidns) == 0 || !(ino = link_ino(link)))
        return 1;
    for (size_t i = 0; i < k->nbelow; i++)
        if (k->below_ino[i] == ino)
            return k->below_is[i];
    return 1;
}

/* 1 when the process at dfd is in the session's pid namespace or one below it (its ns/pid link
 * in pidlink when already read, else NULL). */
static int in_session_pidns(bxa_kctx *k, int dfd, const char *pidlink)
{
    char buf[64];
    const char *link = pidlink;

    if (!link) {
        bxa_ns_link(dfd, "pid", buf);
        link = buf;
    }
    return link[0] && (strcmp(link, k->init_pidns) == 0 || pidns_below(k, dfd, link));
}

/* 1 when the process at dfd is the session's by k->rule (its cgroup read into *cg). */
static int candidate(bxa_kctx *k, int dfd, const char *pidlink, char **cg, size_t *cgl)
{
    bx_error ign;

    if (k->rule == BXA_RULE_PIDNS) {
        if (!in_session_pidns(k, dfd, pidlink))
            return 0;
        if (bxa_read_at(dfd, "cgroup", BXA_PROC_FILE_MAX, cg, cgl, &ign) != 0)
            return 0;
    } else {
        if (bxa_read_at(dfd, "cgroup", BXA_PROC_FILE_MAX, cg, cgl, &ign) != 0 ||
            !bxa_in_session_any(k, *cg, *cgl))
            return 0;
    }
    return !bxa_cgroup_other(k, *cg, *cgl, NULL);
}

int bxa_session_member(bxa_kctx *k, int dfd, const char *pidlink)
{
    char *cg = NULL;
    size_t cgl = 0;
    int r = candidate(k, dfd, pidlink, &cg, &cgl);
    free(cg);
    return r;
}

int bxa_scan_session(bxa_kctx *k, bxa_pidstart *out, size_t max, size_t *n)
{
    DIR *d;
    struct dirent *e;
    int rc = 0;

    *n = 0;
    if ((rc = bxa_others(k)) != 0)
        return rc;
    if (!(d = bxa_proc_list(k)))
        return bx_error_errno(k->err, BX_EIO, "/proc", "cannot list");
    while (rc == 0 && (e = readdir(d)) != NULL) {
        char *end, *stat = NULL, *cg = NULL;
        size_t sl, cgl;
        long long pid = strtoll(e->d_name, &end, 10);
        bxa_stat st;
        bx_error ign;
        int dfd;

        if (*end || pid <= 0 || pid == k->self_pid)
            continue;
        /* by the pid namespace rule, most of this host's processes are told apart by one link,
         * before their folder is opened and their stat read (the same conditions, in a cheaper
         * order) */
        if (k->rule == BXA_RULE_PIDNS && !may_be_in_session_pidns(k, e->d_name))
            continue;
        if ((dfd = openat(k->procfd, e->d_name, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
            continue;
        if ((k->rule != BXA_RULE_PIDNS || in_session_pidns(k, dfd, NULL)) &&
            bxa_read_at(dfd, "stat", BXA_PROC_FILE_MAX, &stat, &sl, &ign) == 0 &&
            bxa_parse_stat(stat, sl, &st, &ign) == 0 && st.pid == pid && st.state != 'Z' &&
            st.starttime <= k->s->begin && candidate(k, dfd, NULL, &cg, &cgl)) {
            if (*n == max)
                rc = bx_error_set(k->err, BX_EINVAL, "kernel", "more than %zu processes in the session",
                                  max);
            else
                out[(*n)++] = (bxa_pidstart){pid, st.starttime};
        }
        free(stat);
        free(cg);
        close(dfd);
    }
    closedir(d);
    if (rc == 0)
        qsort(out, *n, sizeof *out, by_pid);
    return rc;
}

int bxa_scans_agree(const bxa_pidstart *prev, size_t nprev, const bxa_pidstart *cur, size_t ncur)
{
    for (size_t i = 0; i < ncur; i++) {
        const bxa_pidstart *hit = bsearch(&cur[i], prev, nprev, sizeof *prev, by_pid);
        if (!hit || hit->start != cur[i].start)
            return 0;
    }
    return 1;
}

int bxa_settle(void *ctx, const bxa_settle_ops *ops, int max_scans, bxa_pidstart *bufa,
               bxa_pidstart *bufb, size_t cap, int *scans, int *settled)
{
    bxa_pidstart *prev = bufa, *cur = bufb, *t;
    size_t np = 0, nc = 0;
    int rc;

    *scans = 0;
    *settled = 0;
    if ((rc = ops->scan(ctx, prev, cap, &np)) < 0)
        return rc;
    (*scans)++;
    for (;;) {
        if ((rc = ops->read(ctx, prev, np)) < 0)
            return rc;
        if ((rc = ops->scan(ctx, cur, cap, &nc)) < 0)
            return rc;
        (*scans)++;
        if (bxa_scans_agree(prev, np, cur, nc)) {
            if ((rc = ops->alive(ctx, cur, nc)) < 0)
                return rc;
            if (rc == 1) {
                *settled = 1;
                return 0;
            }
        }
        if (*scans >= max_scans)
            return 0;
        t = prev;
        prev = cur;
        cur = t;
        np = nc;
    }
}
