/* SPDX-License-Identifier: Apache-2.0 */
/* The engine daemon, whose namespaces the session's are compared with (a namespace the
 * session shares with the daemon is the host's): docker's pid file (/var/run/docker.pid)
 * when the process it names is "dockerd"; otherwise (podman, or no pid file) the process
 * holding the listening end of the engine's unix socket (/proc/net/unix, then the
 * socket's inode among every process's descriptors). Looked up once per way of looking
 * when collections share host facts (bx_collect_shared). */
#include "attest_internal.h"

#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define DOCKER_PIDFILE "/var/run/docker.pid"

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

/* ---- host facts shared by several collections ---------------------------------------------- */

_Static_assert(sizeof(((struct bxa_daemon *)0)->ns) == sizeof(((bxa_kctx *)0)->daemon_ns),
               "bxa_daemon holds every namespace bxa_kctx compares");

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
