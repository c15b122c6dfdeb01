/* SPDX-License-Identifier: Apache-2.0 */
/* What the hostile sessions of tests/engine/zoo_processes.sh run inside (built static by the
 * test, mounted read-only at /zoo): each mode sets up one way of looking contained while
 * holding a way out, says on stdout what it did, and sleeps until killed.
 *   threads        a second thread keeps every capability; the main thread drops them all
 *                  (its effective, permitted, inheritable and bounding sets)
 *   connect PATH   a connection to the engine's unix socket at PATH, kept open (it asks for the
 *                  engine's events, so that the engine keeps its end open too)
 *   receive PATH   connect to PATH and keep the descriptors sent over it (SCM_RIGHTS)
 *   userns         a user namespace of its own, root in it (uid_map "0 <uid> 1")
 * Exit 1 with one line on stderr when a step fails. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <unistd.h>

static void die(const char *what)
{
    fprintf(stderr, "zoo_helper: %s: %s\n", what, strerror(errno));
    exit(1);
}

static void *keeper(void *arg)
{
    (void)arg;
    for (;;)
        pause();
    return NULL;
}

static void threads(void)
{
    struct __user_cap_header_struct h = {.version = _LINUX_CAPABILITY_VERSION_3, .pid = 0};
    struct __user_cap_data_struct d[2];
    pthread_t t;

    if (pthread_create(&t, NULL, keeper, NULL) != 0)
        die("pthread_create");
    /* capset and the bounding set are per thread: only this one drops them */
    for (int cap = 0; cap <= 63; cap++)
        if (prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) != 0 && errno != EINVAL)
            die("PR_CAPBSET_DROP");
    memset(d, 0, sizeof d);
    if (syscall(SYS_capset, &h, d) != 0)
        die("capset");
}

static int dial(const char *path)
{
    struct sockaddr_un a = {.sun_family = AF_UNIX};
    int fd = socket(AF_UNIX, SOCK_STREAM, 0);

    if (fd < 0)
        die("socket");
    snprintf(a.sun_path, sizeof a.sun_path, "%s", path);
    if (connect(fd, (struct sockaddr *)&a, sizeof a) != 0)
        die(path);
    return fd;
}

static void receive(const char *path)
{
    int fd = dial(path), n = 0;
    char data[1], ctl[CMSG_SPACE(8 * sizeof(int))];
    struct iovec io = {.iov_base = data, .iov_len = 1};
    struct msghdr m = {.msg_iov = &io, .msg_iovlen = 1, .msg_control = ctl,
                       .msg_controllen = sizeof ctl};
    struct cmsghdr *c;

    if (recvmsg(fd, &m, 0) <= 0)
        die("recvmsg");
    for (c = CMSG_FIRSTHDR(&m); c; c = CMSG_NXTHDR(&m, c))
        if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS)
            n += (int)((c->cmsg_len - CMSG_LEN(0)) / sizeof(int));
    close(fd); /* the descriptors received stay open */
    printf("received %d\n", n);
}

static void userns(void)
{
    char map[64];
    unsigned uid = (unsigned)getuid(), gid = (unsigned)getgid();
    int fd;

    if (unshare(CLONE_NEWUSER) != 0)
        die("unshare");
    if ((fd = open("/proc/self/setgroups", O_WRONLY)) >= 0) {
        (void)!write(fd, "deny", 4);
        close(fd);
    }
    snprintf(map, sizeof map, "0 %u 1", uid);
    if ((fd = open("/proc/self/uid_map", O_WRONLY)) < 0 || write(fd, map, strlen(map)) < 0)
        die("uid_map");
    close(fd);
    snprintf(map, sizeof map, "0 %u 1", gid);
    if ((fd = open("/proc/self/gid_map", O_WRONLY)) < 0 || write(fd, map, strlen(map)) < 0)
        die("gid_map");
    close(fd);
}

int main(int argc, char **argv)
{
    if (argc == 2 && strcmp(argv[1], "threads") == 0)
        threads();
    else if (argc == 3 && strcmp(argv[1], "connect") == 0) {
        static const char ask[] = "GET /events HTTP/1.1\r\nHost: engine\r\n\r\n";
        int fd = dial(argv[2]);
        if (write(fd, ask, sizeof ask - 1) != (ssize_t)(sizeof ask - 1))
            die("write");
        printf("connected\n");
    }
    else if (argc == 3 && strcmp(argv[1], "receive") == 0)
        receive(argv[2]);
    else if (argc == 2 && strcmp(argv[1], "userns") == 0)
        userns();
    else {
        fprintf(stderr, "usage: zoo_helper threads | connect PATH | receive PATH | userns\n");
        return 2;
    }
    fflush(stdout);
    for (;;)
        pause();
}
