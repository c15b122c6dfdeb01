/* SPDX-License-Identifier: Apache-2.0 */
/* The mounts of a process's mount namespace, whatever the process's root. The kernel lists in
 * /proc/<pid>/mountinfo only the mounts below <pid>'s root: a chrooted process shows none of
 * the namespace's mounts above its new root (the container's root file system among them). A
 * thread of the collector that joins the namespace (unshare(CLONE_FS), then setns) has the
 * namespace's root as its own, and its /proc/thread-self/mountinfo lists every mount of the
 * namespace, with the mount points the namespace gives them. Joining also sets the thread's
 * root to the namespace's (the topmost mount at its /): what is looked up beneath the
 * session's root is looked up beneath that one, not beneath a chrooted process's. */
#include "attest_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct {
    int procfd;
    int nsfd;
    const char *want; /* the namespace's link, "mnt:[N]" */
    int list;         /* read the mountinfo too */
    char *buf;
    size_t len;
    int root;   /* the namespace's root, opened O_PATH by the joined thread */
    int joined; /* 1: the namespace joined (and buf its whole list when asked) */
} mi_job;

static void *mi_reader(void *arg)
{
    mi_job *j = arg;
    char link[64];
    ssize_t n;
    bx_error ign = {0};

    if (unshare(CLONE_FS) != 0 || setns(j->nsfd, CLONE_NEWNS) != 0)
        return NULL;
    n = readlinkat(j->procfd, "thread-self/ns/mnt", link, sizeof link - 1);
    if (n <= 0)
        return NULL;
    link[n] = '\0';
    if (strcmp(link, j->want) != 0)
        return NULL; /* the pid's namespace is not the one it had when it was opened */
    if (j->list && bxa_read_at(j->procfd, "thread-self/mountinfo", BXA_PROC_FILE_MAX, &j->buf,
                               &j->len, &ign) != 0) {
        free(j->buf);
        j->buf = NULL;
        return NULL;
    }
    j->root = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
    j->joined = 1;
    return NULL;
}

/* Join p's mount namespace from a thread of this process (j->joined 1 when it could). */
static void join(bxa_kctx *k, const bxa_proc *p, mi_job *j)
{
    pthread_t t;

    j->procfd = k->procfd;
    j->nsfd = j->root = -1;
    j->want = p->ns[BXA_NS_MNT];
    if (k->real_proc && p->ns[BXA_NS_MNT][0] &&
        (j->nsfd = openat(p->dfd, "ns/mnt", O_RDONLY | O_CLOEXEC)) >= 0) {
        if (pthread_create(&t, NULL, mi_reader, j) == 0)
            pthread_join(t, NULL);
        close(j->nsfd);
    }
}

int bxa_read_mntns_mountinfo(bxa_kctx *k, bxa_proc *p, char **buf, size_t *len, int *root)
{
    mi_job j = {.list = 1};

    *buf = NULL;
    *len = 0;
    *root = -1;
    join(k, p, &j);
    if (j.joined) {
        *buf = j.buf;
        *len = j.len;
        *root = j.root;
        return 0;
    }
    /* setns refused (a collector without CAP_SYS_ADMIN) or no real /proc: the process's own
     * list, right unless the process is chrooted */
    return bxa_read_at(p->dfd, "mountinfo", BXA_PROC_FILE_MAX, buf, len, k->err);
}

int bxa_root_open(bxa_kctx *k, const bxa_proc *p)
{
    mi_job j = {.list = 0};

    if (k->ns_root_of == p && k->ns_root >= 0)
        return fcntl(k->ns_root, F_DUPFD_CLOEXEC, 3);
    join(k, p, &j);
    if (j.root >= 0)
        return j.root;
    return openat(p->dfd, "root", O_PATH | O_DIRECTORY | O_CLOEXEC);
}
