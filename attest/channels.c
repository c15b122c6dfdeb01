/* SPDX-License-Identifier: Apache-2.0 */
/* containment.channels (v3): the sockets of the session's processes that are a channel out of
 * it or were made in another network namespace.
 * - Every socket descriptor is copied with pidfd_getfd (ptrace-attach rights over the process)
 *   and asked for the network namespace it was made in (SIOCGSKNS, CAP_NET_ADMIN over that
 *   namespace), its family and type (SO_DOMAIN, SO_TYPE). A socket whose namespace cannot be
 *   asked has netns null.
 * - A unix socket's peer is read with sock_diag (UNIX_DIAG_PEER) in the socket's own network
 *   namespace; the peer's holders are found among this host's processes (their fd links, at
 *   most HOLDERS_SCAN_MAX processes): another container's (its cgroup) or the host's (pid,
 *   comm) when any holder is outside the session, else a session process. A listening or
 *   unconnected socket has no peer.
 * - scm_fds of a unix socket's fdinfo: descriptors sent to it and not yet received (in flight).
 * Recorded: a socket of another namespace (or of one not known), a unix socket whose peer is
 * not held by a session process, and one with descriptors in flight. Under runsc (the sandbox,
 * its gofer and helpers are the session's processes) a socket of another namespace is the
 * runtime's own and not recorded for that alone. Nothing is sent on a
 * socket: the copies are only asked and closed. */
#include "attest_internal.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <linux/sock_diag.h>
#include <linux/sockios.h>
#include <linux/unix_diag.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#define CH_SOCKS_MAX 4096
#define HOLDERS_SCAN_MAX 65536

#define BXA_NET_INIT_INO 0xEFFFFFF9u

#ifndef SIOCGSKNS
#define SIOCGSKNS 0x894C
#endif

typedef struct {
    int64_t pid;
    long long fd;
    uint64_t ino;
    int family, type; /* -1: not known */
    uint64_t netns;   /* 0: not known */
    long long inflight; /* -1: not shown */
    uint32_t peer;      /* unix: the peer's inode, 0 none */
    char path[108];     /* unix: the name bound on this socket or its peer */
} ch_sock;

typedef struct {
    ch_sock *s;
    size_t n;
} ch_set;

static int pidfd_getfd_(int pidfd, int fd)
{
#ifdef SYS_pidfd_getfd
    return (int)syscall(SYS_pidfd_getfd, pidfd, fd, 0);
#else
    (void)pidfd;
    (void)fd;
    errno = ENOSYS;
    return -1;
#endif
}

const char *bxa_channel_family(int family)
{
    switch (family) {
    case AF_UNIX:
        return "unix";
    case AF_INET:
        return "inet";
    case AF_INET6:
        return "inet6";
    case AF_NETLINK:
        return "netlink";
    case AF_PACKET:
        return "packet";
    case AF_VSOCK:
        return "vsock";
    default:
        return "other";
    }
}

static const char *type_name(int type)
{
    switch (type) {
    case SOCK_STREAM:
        return "stream";
    case SOCK_DGRAM:
        return "dgram";
    case SOCK_SEQPACKET:
        return "seqpacket";
    case SOCK_RAW:
        return "raw";
    default:
        return "other";
    }
}

/* scm_fds of a unix socket's fdinfo, or -1 when the kernel does not show it. */
long long bxa_parse_scm_fds(const char *buf, size_t len)
{
    const char *p = buf, *end = buf + len;
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        size_t l = nl ? (size_t)(nl - p) : (size_t)(end - p);
        if (l > 8 && strncmp(p, "scm_fds:", 8) == 0) {
            char num[32], *e;
            size_t k = 0;
            for (const char *q = p + 8; q < p + l && k + 1 < sizeof num; q++)
                if (*q != ' ' && *q != '\t')
                    num[k++] = *q;
            num[k] = '\0';
            long long v = strtoll(num, &e, 10);
            return k && !*e && v >= 0 ? v : -1;
        }
        p += l + 1;
    }
    return -1;
}

/* The sockets of one session process, asked through copies of its descriptors. */
static int read_proc(bxa_kctx *k, int64_t pid, ch_set *set)
{
    char name[24];
    int dfd, fdd, pidfd;
    DIR *d;
    struct dirent *e;

    snprintf(name, sizeof name, "%lld", (long long)pid);
    pidfd = bxa_pidfd_open(pid);
    if ((dfd = openat(k->procfd, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0) {
        if (pidfd >= 0)
            close(pidfd);
        return 0;
    }
    if ((fdd = openat(dfd, "fd", O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0 ||
        !(d = fdopendir(fdd))) {
        if (fdd >= 0)
            close(fdd);
        close(dfd);
        if (pidfd >= 0)
            close(pidfd);
        return 0;
    }
    while ((e = readdir(d)) != NULL) {
        char link[64], info[48], *buf = NULL, *end;
        long long fd = strtoll(e->d_name, &end, 10);
        ssize_t n;
        size_t len;
        bx_error ign;
        ch_sock *s;
        int cp;

        if (*end || fd < 0)
            continue;
        if ((n = readlinkat(dirfd(d), e->d_name, link, sizeof link - 1)) <= 0)
            continue;
        link[n] = '\0';
        if (strncmp(link, "socket:[", 8) != 0)
            continue;
        if (set->n == CH_SOCKS_MAX)
            break;
        s = &set->s[set->n++];
        memset(s, 0, sizeof *s);
        s->pid = pid;
        s->fd = fd;
        s->ino = strtoull(link + 8, NULL, 10);
        s->family = s->type = -1;
        s->inflight = -1;
        snprintf(info, sizeof info, "fdinfo/%lld", fd);
        if (bxa_read_at(dfd, info, 64 * 1024, &buf, &len, &ign) == 0)
            s->inflight = bxa_parse_scm_fds(buf, len);
        free(buf);
        if (pidfd < 0 || (cp = pidfd_getfd_(pidfd, (int)fd)) < 0)
            continue;
        {
            socklen_t l = sizeof s->family;
            int ns;
            struct stat st;
            if (getsockopt(cp, SOL_SOCKET, SO_DOMAIN, &s->family, &l) != 0)
                s->family = -1;
            l = sizeof s->type;
            if (getsockopt(cp, SOL_SOCKET, SO_TYPE, &s->type, &l) != 0)
                s->type = -1;
            if ((ns = ioctl(cp, SIOCGSKNS)) >= 0) {
                if (fstat(ns, &st) == 0)
                    s->netns = (uint64_t)st.st_ino;
                close(ns);
            }
        }
        close(cp);
    }
    closedir(d);
    close(dfd);
    if (pidfd >= 0)
        close(pidfd);
    return 0;
}

/* ---- sock_diag in one network namespace: each unix socket's peer and name ------------------ */

typedef struct {
    int netns;
    ch_set *set;
    uint64_t ns_ino;
} diag_job;

static ch_sock *find_ino(ch_set *set, uint64_t ino)
{
    for (size_t i = 0; i < set->n; i++)
        if (set->s[i].ino == ino)
            return &set->s[i];
    return NULL;
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
    long *buf = malloc(32768);
    int fd, done = 0;

    if (!buf)
        return NULL;
    if (setns(j->netns, CLONE_NEWNET) != 0 ||
        (fd = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_SOCK_DIAG)) < 0) {
        free(buf);
        return NULL;
    }
    if (sendto(fd, &req, sizeof req, 0, (struct sockaddr *)&sa, sizeof sa) < 0) {
        close(fd);
        free(buf);
        return NULL;
    }
    while (!done) {
        ssize_t got = recv(fd, buf, 32768, 0);
        const struct nlmsghdr *h = (const struct nlmsghdr *)buf;
        int len = (int)got;
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0)
            break;
        for (; NLMSG_OK(h, len); h = NLMSG_NEXT(h, len)) {
            const struct unix_diag_msg *m;
            const struct rtattr *a;
            int alen;
            char name[108] = "";
            uint32_t peer = 0;
            if (h->nlmsg_type == NLMSG_DONE || h->nlmsg_type == NLMSG_ERROR) {
                done = 1;
                break;
            }
            if (h->nlmsg_len < NLMSG_LENGTH(sizeof(struct unix_diag_msg)))
                continue;
            m = NLMSG_DATA(h);
            a = (const struct rtattr *)(m + 1);
            alen = (int)(h->nlmsg_len - NLMSG_LENGTH(sizeof *m));
            for (; RTA_OK(a, alen); a = RTA_NEXT(a, alen)) {
                size_t pl = RTA_PAYLOAD(a);
                if (a->rta_type == UNIX_DIAG_NAME && pl > 0 && pl < sizeof name) {
                    memcpy(name, RTA_DATA(a), pl);
                    name[pl] = '\0';
                    if (name[0] == '\0') /* abstract: @name */
                        name[0] = '@';
                } else if (a->rta_type == UNIX_DIAG_PEER && pl >= sizeof peer) {
                    memcpy(&peer, RTA_DATA(a), sizeof peer);
                }
            }
            for (size_t i = 0; i < j->set->n; i++) {
                ch_sock *s = &j->set->s[i];
                if (s->family != AF_UNIX || s->netns != j->ns_ino)
                    continue;
                if (s->ino == m->udiag_ino) {
                    s->peer = peer;
                    if (name[0] && !s->path[0])
                        snprintf(s->path, sizeof s->path, "%s", name);
                } else if (peer && peer == s->ino && name[0]) {
                    /* the socket this one is connected to is bound: its name */
                    snprintf(s->path, sizeof s->path, "%s", name);
                }
            }
        }
    }
    close(fd);
    free(buf);
    return NULL;
}

/* The peers in the network namespace of socket copy's namespace inode ns_ino, entered through
 * the netns link of a session process whose socket it is (or of the collector's own). */
static void peers_in(bxa_kctx *k, ch_set *set, uint64_t ns_ino)
{
    /* a process holding a socket of that namespace: its socket's namespace opened again */
    for (size_t i = 0; i < set->n; i++) {
        ch_sock *s = &set->s[i];
        int pidfd, cp, ns;
        diag_job j = {.set = set, .ns_ino = ns_ino};
        pthread_t t;
        if (s->netns != ns_ino || s->family != AF_UNIX)
            continue;
        if ((pidfd = bxa_pidfd_open(s->pid)) < 0)
            return;
        cp = pidfd_getfd_(pidfd, (int)s->fd);
        close(pidfd);
        if (cp < 0)
            continue;
        ns = ioctl(cp, SIOCGSKNS);
        close(cp);
        if (ns < 0)
            continue;
        j.netns = ns;
        if (pthread_create(&t, NULL, diag_dump, &j) == 0)
            pthread_join(t, NULL);
        close(ns);
        (void)k;
        return;
    }
}

/* ---- who holds a peer ------------------------------------------------------------------------ */

typedef struct {
    int kind; /* 0 not found, 1 session, 2 container, 3 host */
    int64_t pid;
    char comm[32];
    char id[65];
} holder;

static int session_pid(const bxa_weakest *w, int64_t pid)
{
    for (size_t i = 0; i < w->npids; i++)
        if (w->pids[i] == pid)
            return 1;
    return 0;
}

/* The holders of the peers wanted (peer inodes of set): one outside the session names it
 * whether or not a session process holds it too (it can write to the session at any time),
 * else a session process makes it the session's own. */
static void holders(bxa_kctx *k, const bxa_weakest *w, ch_set *set, holder *h)
{
    DIR *d = bxa_proc_list(k);
    struct dirent *e;
    size_t scanned = 0;

    if (!d)
        return;
    while ((e = readdir(d)) != NULL && scanned < HOLDERS_SCAN_MAX) {
        char *end, name[24];
        long long pid = strtoll(e->d_name, &end, 10);
        int dfd, fdd, in_session;
        DIR *fd_dir;
        struct dirent *f;
        if (*end || pid <= 0 || pid == k->self_pid)
            continue;
        scanned++;
        in_session = session_pid(w, pid);
        snprintf(name, sizeof name, "%lld", pid);
        if ((dfd = openat(k->procfd, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
            continue;
        if ((fdd = openat(dfd, "fd", O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0 ||
            !(fd_dir = fdopendir(fdd))) {
            if (fdd >= 0)
                close(fdd);
            close(dfd);
            continue;
        }
        while ((f = readdir(fd_dir)) != NULL) {
            char link[64];
            ssize_t n = readlinkat(dirfd(fd_dir), f->d_name, link, sizeof link - 1);
            uint64_t ino;
            if (n <= 8)
                continue;
            link[n] = '\0';
            if (strncmp(link, "socket:[", 8) != 0)
                continue;
            ino = strtoull(link + 8, NULL, 10);
            for (size_t i = 0; i < set->n; i++) {
                holder *x = &h[i];
                if (!set->s[i].peer || set->s[i].peer != ino)
                    continue;
                if (in_session) {
                    if (!x->kind) {
                        x->kind = 1;
                        x->pid = pid;
                    }
                    continue;
                }
                if (x->kind >= 2)
                    continue; /* the first holder outside names it */
                {
                    char *buf = NULL;
                    size_t len;
                    bx_error ign;
                    x->pid = pid;
                    x->kind = 3;
                    if (bxa_read_at(dfd, "cgroup", BXA_PROC_FILE_MAX, &buf, &len, &ign) == 0 &&
                        bxa_cgroup_other(k, buf, len, x->id))
                        x->kind = 2;
                    free(buf);
                    buf = NULL;
                    if (bxa_read_at(dfd, "comm", 64, &buf, &len, &ign) == 0) {
                        while (len && buf[len - 1] == '\n')
                            buf[--len] = '\0';
                        snprintf(x->comm, sizeof x->comm, "%s", buf);
                    }
                    free(buf);
                }
            }
        }
        closedir(fd_dir);
        close(dfd);
    }
    closedir(d);
}

/* Whose a network namespace is: the session's, the host's (pid 1's), the daemon's, or another's
 * (the host's before the daemon's: a daemon in the host's namespace names it the host's). */
static const char *netns_whose(bxa_kctx *k, const bxa_weakest *w, uint64_t ino)
{
    char link[64], host[64] = "";
    snprintf(link, sizeof link, "net:[%llu]", (unsigned long long)ino);
    for (size_t i = 0; i < w->nns_seen[BXA_NS_NET]; i++)
        if (strcmp(w->ns_seen[BXA_NS_NET][i], link) == 0)
            return "session";
    {
        int one = openat(k->procfd, "1", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (one >= 0) {
            bxa_ns_link(one, "net", host);
            close(one);
        }
    }
    /* pid 1's link (some hosts deny it even to root), or the initial network namespace's
     * fixed inode (PROC_NET_INIT_INO on kernels that fix it; below every dynamic inode, so
     * never another namespace's) */
    if ((host[0] && strcmp(host, link) == 0) || ino == BXA_NET_INIT_INO)
        return "host";
    if (k->have_daemon && strcmp(k->daemon_ns[BXA_NS_NET], link) == 0)
        return "daemon";
    return "other";
}

int bxa_channel_recorded(const char *whose, int sandbox, int peer_out, long long inflight)
{
    if (peer_out || inflight > 0)
        return 1;
    /* a sandbox's sockets of other namespaces are the runtime's own (the workload's network
     * is the sentry's netstack): only its peers and what is in flight count */
    if (sandbox)
        return 0;
    return !whose || strcmp(whose, "session") != 0;
}

static int cmp_channel(const void *a, const void *b)
{
    const json_t *x = *(json_t *const *)a, *y = *(json_t *const *)b;
    json_int_t p = json_integer_value(json_object_get(x, "pid")),
               q = json_integer_value(json_object_get(y, "pid"));
    json_int_t f = json_integer_value(json_object_get(x, "fd")),
               g = json_integer_value(json_object_get(y, "fd"));
    return p != q ? (p > q) - (p < q) : (f > g) - (f < g);
}

int bxa_channels(bxa_kctx *k, const bxa_weakest *w, int sandbox, json_t **out)
{
    ch_set set = {calloc(CH_SOCKS_MAX, sizeof(ch_sock)), 0};
    holder *h = NULL;
    json_t *list = NULL;
    uint64_t done_ns[64];
    size_t ndone = 0;
    int rc = 0;

    *out = NULL;
    if (!set.s)
        return bxa_oom(k->err);
    if (!k->real_proc)
        goto out; /* null: no pidfds in another proc root */
    for (size_t i = 0; i < w->npids; i++)
        if ((rc = read_proc(k, w->pids[i], &set)) != 0)
            goto out;
    /* the peers: one dump per network namespace a session's unix socket was made in */
    for (size_t i = 0; i < set.n; i++) {
        int seen = 0;
        if (set.s[i].family != AF_UNIX || !set.s[i].netns)
            continue;
        for (size_t d = 0; d < ndone; d++)
            seen |= done_ns[d] == set.s[i].netns;
        if (seen || ndone == sizeof done_ns / sizeof done_ns[0])
            continue;
        done_ns[ndone++] = set.s[i].netns;
        peers_in(k, &set, set.s[i].netns);
    }
    if (!(h = calloc(set.n ? set.n : 1, sizeof *h)) || !(list = json_array())) {
        rc = bxa_oom(k->err);
        goto out;
    }
    /* a peer held by a session process is the session's own */
    for (size_t i = 0; i < set.n; i++) {
        const ch_sock *o = set.s[i].peer ? find_ino(&set, set.s[i].peer) : NULL;
        if (o) {
            h[i].kind = 1;
            h[i].pid = o->pid;
        }
    }
    holders(k, w, &set, h);
    for (size_t i = 0; i < set.n; i++) {
        ch_sock *s = &set.s[i];
        const char *whose = s->netns ? netns_whose(k, w, s->netns) : NULL;
        json_t *peer = json_null(), *e;
        int out_peer = s->peer && h[i].kind != 1;
        if (!bxa_channel_recorded(whose, sandbox, out_peer, s->inflight))
            continue;
        if (s->peer && h[i].kind != 1) {
            static const char *const kinds[] = {"unknown", "session", "container", "host"};
            peer = json_pack("{s:s,s:s?,s:I,s:s?}", "kind", kinds[h[i].kind], "container",
                             h[i].kind == 2 ? h[i].id : NULL, "pid", (json_int_t)h[i].pid,
                             "comm", h[i].kind >= 2 ? h[i].comm : NULL);
            if (peer && !h[i].kind)
                json_object_set_new(peer, "pid", json_null());
        } else if (s->peer) {
            peer = json_pack("{s:s,s:n,s:I,s:n}", "kind", "session", "container", "pid",
                             (json_int_t)h[i].pid, "comm");
        }
        e = json_pack("{s:I,s:I,s:s?,s:s?,s:o,s:s?,s:o,s:s?,s:o}", "pid", (json_int_t)s->pid,
                      "fd", (json_int_t)s->fd, "family",
                      s->family >= 0 ? bxa_channel_family(s->family) : NULL, "type",
                      s->type >= 0 ? type_name(s->type) : NULL, "netns",
                      s->netns ? json_integer((json_int_t)s->netns) : json_null(), "netnsOf",
                      whose, "peer", peer ? peer : json_null(), "path",
                      s->path[0] ? s->path : NULL, "inFlight",
                      s->inflight >= 0 ? json_integer(s->inflight) : json_null());
        if (!e || json_array_append_new(list, e) != 0) {
            rc = bxa_oom(k->err);
            goto out;
        }
    }
    bxa_sort_json(list, cmp_channel);
    *out = list;
    list = NULL;
out:
    json_decref(list);
    free(h);
    free(set.s);
    return rc;
}
