/* SPDX-License-Identifier: Apache-2.0 */
/* containment.descriptors: the open descriptors of the session's processes that reach
 * outside it. A mount can be unmounted and a descriptor passed in (SCM_RIGHTS) or inherited,
 * so the mounts alone do not bound what a session reaches:
 * - engine-socket: a unix socket that is the engine's or containerd's listening socket (its
 *   inode among this host's sockets bound to one of their paths, /proc/net/unix), or one
 *   connected to it: the peer (sock_diag, UNIX_DIAG_PEER) of a socket named by such a path,
 *   in the daemon's network namespace and in each of the session's (the server's end of a
 *   connection is in the namespace of the client that made it);
 * - host-file, host-directory, host-device: a file on a mount the process's own mount
 *   namespace does not have (the mnt_id of /proc/<pid>/fdinfo/<fd> against its mountinfo),
 *   but the standard pseudo-devices (the engine's /dev/null on a session's stdin);
 * - namespace: a namespace none of the session's processes is in.
 * Nothing a descriptor names is opened: links are read, and a target is only stat()ed. */
#include "attest_internal.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <linux/sock_diag.h>
#include <linux/unix_diag.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#define ENGINE_SOCKS_MAX 4096

/* The paths an engine's or containerd's socket is bound to (the engine's own is added). */
static const char *const engine_paths[] = {
    "/run/docker.sock",
    "/var/run/docker.sock",
    "/run/containerd/containerd.sock",
    "/var/run/containerd/containerd.sock",
    "/run/containerd/containerd.sock.ttrpc",
    "/var/run/containerd/containerd.sock.ttrpc",
    "/run/docker/containerd/containerd.sock",
    "/var/run/docker/containerd/containerd.sock",
    "/run/podman/podman.sock",
    "/var/run/podman/podman.sock",
    "/run/crio/crio.sock",
    "/var/run/crio/crio.sock",
    NULL,
};

static int is_engine_path(bxa_kctx *k, const char *p)
{
    if (k->s->socket && strcmp(k->s->socket, p) == 0)
        return 1;
    for (const char *const *e = engine_paths; *e; e++)
        if (strcmp(*e, p) == 0)
            return 1;
    return 0;
}

static int add_engine(bxa_kctx *k, uint64_t ino, const char *path)
{
    if (!k->engine_ino) {
        k->engine_ino = calloc(ENGINE_SOCKS_MAX, sizeof *k->engine_ino);
        k->engine_path = calloc(ENGINE_SOCKS_MAX, sizeof *k->engine_path);
        if (!k->engine_ino || !k->engine_path)
            return bxa_oom(k->err);
    }
    for (size_t i = 0; i < k->nengine; i++)
        if (k->engine_ino[i] == ino)
            return 0;
    if (k->nengine == ENGINE_SOCKS_MAX)
        return bx_error_set(k->err, BX_EINVAL, "net/unix", "more than %d engine sockets",
                            ENGINE_SOCKS_MAX);
    k->engine_ino[k->nengine] = ino;
    snprintf(k->engine_path[k->nengine], sizeof k->engine_path[0], "%s", path);
    k->nengine++;
    return 0;
}

/* Every socket of net/unix (the daemon's network namespace) bound to an engine path. */
static int engine_listeners(bxa_kctx *k)
{
    char where[48], *buf = NULL, *line, *save = NULL;
    size_t len;
    bx_error e;
    int rc = 0;

    if (k->daemon_pid > 0)
        snprintf(where, sizeof where, "%lld/net/unix", (long long)k->daemon_pid);
    else
        snprintf(where, sizeof where, "net/unix");
    if (bxa_read_at(k->procfd, where, 64 * 1024 * 1024, &buf, &len, &e) != 0)
        return 0; /* no sockets to compare with: none is found */
    for (line = strtok_r(buf, "\n", &save); rc == 0 && line; line = strtok_r(NULL, "\n", &save)) {
        unsigned long inode;
        char path[108];
        /* Num RefCount Protocol Flags Type St Inode Path */
        if (sscanf(line, "%*s %*s %*s %*s %*s %*s %lu %107s", &inode, path) == 2 &&
            is_engine_path(k, path))
            rc = add_engine(k, inode, path);
    }
    free(buf);
    return rc;
}

/* ---- sock_diag: the peers of the engine's sockets ------------------------------------------- */

typedef struct {
    bxa_kctx *k;
    int netns; /* the daemon's network namespace, or -1: the collector's own */
    int rc, done;
    uint64_t *ino;
    char (*path)[108];
    size_t n;
} diag_job;

static void diag_one(diag_job *j, const struct nlmsghdr *h)
{
    const struct unix_diag_msg *m = NLMSG_DATA(h);
    const struct rtattr *a = (const struct rtattr *)(m + 1);
    int alen = (int)(h->nlmsg_len - NLMSG_LENGTH(sizeof *m));
    char name[108] = "";
    uint32_t peer = 0;

    for (; RTA_OK(a, alen); a = RTA_NEXT(a, alen)) {
        size_t pl = RTA_PAYLOAD(a);
        if (a->rta_type == UNIX_DIAG_NAME && pl > 0 && pl < sizeof name &&
            ((const char *)RTA_DATA(a))[0] != '\0') {
            memcpy(name, RTA_DATA(a), pl);
            name[pl] = '\0';
        } else if (a->rta_type == UNIX_DIAG_PEER && pl >= sizeof peer) {
            memcpy(&peer, RTA_DATA(a), sizeof peer);
        }
    }
    if (peer && name[0] && is_engine_path(j->k, name) && j->n < ENGINE_SOCKS_MAX) {
        j->ino[j->n] = peer;
        snprintf(j->path[j->n], sizeof j->path[0], "%s", name);
        j->n++;
    }
}

static void *diag_dump(void *arg)
{
    diag_job *j = arg;
    struct {
        struct nlmsghdr h;
        struct unix_diag_req r;
    } req = {.h = {.nlmsg_len = sizeof req,
                   .nlmsg_type = SOCK_DIAG_BY_FAMILY,
                   .nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP},
             .r = {.sdiag_family = AF_UNIX,
                   .udiag_states = ~0u,
                   .udiag_show = UDIAG_SHOW_NAME | UDIAG_SHOW_PEER}};
    struct sockaddr_nl sa = {.nl_family = AF_NETLINK};
    long *buf = malloc(32768); /* netlink messages are 4-byte aligned */
    int fd;

    if (!buf)
        return NULL;
    if ((j->netns >= 0 && setns(j->netns, CLONE_NEWNET) != 0) ||
        (fd = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_SOCK_DIAG)) < 0) {
        free(buf);
        return NULL;
    }
    if (sendto(fd, &req, sizeof req, 0, (struct sockaddr *)&sa, sizeof sa) < 0) {
        close(fd);
        free(buf);
        return NULL;
    }
    while (!j->done) {
        ssize_t got = recv(fd, buf, 32768, 0);
        const struct nlmsghdr *h = (const struct nlmsghdr *)buf;
        int len = (int)got;
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0)
            break;
        for (; NLMSG_OK(h, len); h = NLMSG_NEXT(h, len)) {
            if (h->nlmsg_type == NLMSG_DONE) {
                j->done = 1;
                break;
            }
            if (h->nlmsg_type == NLMSG_ERROR)
                break;
            if (h->nlmsg_len >= NLMSG_LENGTH(sizeof(struct unix_diag_msg)))
                diag_one(j, h);
        }
        if (h->nlmsg_type == NLMSG_ERROR)
            break;
    }
    close(fd);
    free(buf);
    return NULL;
}

/* The sockets connected to an engine socket in the network namespace netns (-1: the
 * collector's own): the server's side of a connection lives in the namespace of the client that
 * connected, so each of the session's network namespaces is looked in too. */
static int peers_in(bxa_kctx *k, int netns)
{
    diag_job j = {.k = k, .netns = netns};
    pthread_t t;
    int rc = 0;

    j.ino = calloc(ENGINE_SOCKS_MAX, sizeof *j.ino);
    j.path = calloc(ENGINE_SOCKS_MAX, sizeof *j.path);
    if (!j.ino || !j.path) {
        rc = bxa_oom(k->err);
        goto out;
    }
    if (pthread_create(&t, NULL, diag_dump, &j) != 0)
        goto out;
    pthread_join(t, NULL);
    for (size_t i = 0; rc == 0 && i < j.n; i++)
        rc = add_engine(k, j.ino[i], j.path[i]);
out:
    free(j.ino);
    free(j.path);
    return rc;
}

/* In the daemon's network namespace (the connections made from the host). */
static int engine_peers(bxa_kctx *k)
{
    char own[64] = "";
    int netns = -1, rc;

    if (!k->real_proc)
        return 0;
    if (k->have_daemon) {
        int self = openat(k->procfd, "self", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (self >= 0) {
            bxa_ns_link(self, "net", own);
            close(self);
        }
        if (strcmp(own, k->daemon_ns[BXA_NS_NET]) != 0) {
            char path[48];
            snprintf(path, sizeof path, "%lld/ns/net", (long long)k->daemon_pid);
            if ((netns = openat(k->procfd, path, O_RDONLY | O_CLOEXEC)) < 0)
                return 0; /* the daemon's sockets cannot be listed: only listeners count */
        }
    }
    rc = peers_in(k, netns);
    if (netns >= 0)
        close(netns);
    return rc;
}

int bxa_engine_peers_of(bxa_kctx *k, bxa_proc *p)
{
    int netns, rc;

    if (!k->real_proc || (netns = openat(p->dfd, "ns/net", O_RDONLY | O_CLOEXEC)) < 0)
        return 0;
    rc = peers_in(k, netns);
    close(netns);
    return rc;
}

int bxa_engine_sockets(bxa_kctx *k)
{
    int rc = engine_listeners(k);
    return rc != 0 ? rc : engine_peers(k);
}

/* ---- one process's descriptors ---------------------------------------------------------------- */

/* The engine's standard pseudo-devices (and the ptys): what a session's stdio may be. */
static int pseudo_device(const struct stat *st)
{
    unsigned ma = major(st->st_rdev), mi = minor(st->st_rdev);
    if (!S_ISCHR(st->st_mode))
        return 0;
    return (ma == 1 && (mi == 3 || mi == 5 || mi == 7 || mi == 8 || mi == 9)) ||
           (ma == 5 && mi <= 2) || ma == 136 || (ma == 10 && mi == 200);
}

static int has_mount(const bxa_mntns *mn, int64_t id)
{
    size_t lo = 0, hi = mn->nmount_ids;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (mn->mount_ids[mid] == id)
            return 1;
        if (mn->mount_ids[mid] < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    return 0;
}

static int add_desc(bxa_kctx *k, json_t *list, bxa_proc *p, long long fd, const char *kind,
                    const char *target)
{
    json_t *e = json_pack("{s:I,s:I,s:s,s:s}", "pid", (json_int_t)p->pid, "fd", (json_int_t)fd,
                          "kind", kind, "target", target);
    if (!e || json_array_append_new(list, e) != 0)
        return bxa_oom(k->err);
    return 0;
}

int bxa_fold_fds(bxa_kctx *k, bxa_weakest *w, bxa_proc *p, const bxa_mntns *mn, int all)
{
    int fdd = openat(p->dfd, "fd", O_RDONLY | O_DIRECTORY | O_CLOEXEC), dup_fd, rc = 0;
    DIR *d;
    struct dirent *e;

    if (fdd < 0)
        return 0; /* gone, or not ours to read: the process's proof says which */
    if ((dup_fd = dup(fdd)) < 0 || !(d = fdopendir(dup_fd))) {
        if (dup_fd >= 0)
            close(dup_fd);
        close(fdd);
        return 0;
    }
    while (rc == 0 && (e = readdir(d)) != NULL) {
        char link[4096], type[16], info[48], *buf = NULL;
        char *end;
        long long fd = strtoll(e->d_name, &end, 10);
        uint64_t ino;
        ssize_t n;
        size_t len;
        int64_t mnt;
        struct stat st;
        bx_error ign;

        if (*end || fd < 0)
            continue;
        if ((n = readlinkat(fdd, e->d_name, link, sizeof link - 1)) <= 0)
            continue;
        link[n] = '\0';
        if (strncmp(link, "socket:[", 8) == 0) {
            ino = strtoull(link + 8, NULL, 10);
            for (size_t i = 0; i < k->nengine; i++)
                if (k->engine_ino[i] == ino) {
                    rc = add_desc(k, w->descriptors, p, fd, "engine-socket", k->engine_path[i]);
                    break;
                }
            continue;
        }
        if (bxa_ns_link_parse(link, type, &ino) == 0) {
            for (int i = 0; i < BXA_NS_COUNT; i++)
                if (strcmp(type, bxa_ns_names[i]) == 0)
                    rc = add_desc(k, w->ns_fds, p, fd, "namespace", link);
            continue;
        }
        if (!all || link[0] != '/' || !mn)
            continue;
        snprintf(info, sizeof info, "fdinfo/%lld", fd);
        if (bxa_read_at(p->dfd, info, 64 * 1024, &buf, &len, &ign) != 0) {
            free(buf);
            continue;
        }
        rc = bxa_parse_fdinfo_mnt(buf, len, &mnt, k->err);
        free(buf);
        if (rc != 0 || has_mount(mn, mnt))
            continue;
        /* on a mount the process's namespace does not have: the target stat()ed, not opened */
        if (fstatat(fdd, e->d_name, &st, 0) != 0)
            continue;
        if (pseudo_device(&st))
            continue;
        rc = add_desc(k, w->descriptors, p, fd,
                      S_ISDIR(st.st_mode)                            ? "host-directory"
                      : S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode) ? "host-device"
                                                                     : "host-file",
                      link);
    }
    closedir(d);
    close(fdd);
    return rc;
}
