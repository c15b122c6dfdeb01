/* SPDX-License-Identifier: Apache-2.0 */
/* Kernel references beyond descriptors, made and held for tests/engine/references.sh.
 *   serve SOCK          on this host: listen on the unix socket SOCK; for each connection read
 *                       one request "<how> <path>" (how: p O_PATH, r O_RDONLY, w O_RDWR), open
 *                       the path, pass the descriptor, close it and the connection
 *   take SOCK HOW PATH MODE
 *                       in a session: ask SOCK for PATH, receive its descriptor, make the
 *                       reference of MODE with it, close the descriptor, print "took", hold:
 *                         cwd     fchdir to it
 *                         root    chroot to it (the working directory back on the session's /)
 *                         exe     execute it (as "hold", which prints "took")
 *                         mapro   a private read-only mapping
 *                         maprw   a shared writable mapping (one byte written through it)
 *                         uring   an io_uring with it as its registered file (or "no-uring
 *                                 <errno>" when the kernel refuses a ring)
 *                         tcwd    a second thread, its file-system context its own, fchdir
 *                                 to it; the main thread stays
 *   own PATH            in a session: map PATH (a file of the session's own) private and
 *                       read-only, change to its folder, print "took", hold
 *   chroot DIR          in a session: chroot to DIR (of the session's own files), print
 *                       "took", hold
 *   hold                print "took", hold */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/io_uring.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <unistd.h>

static void hold(const char *what)
{
    printf("%s\n", what);
    fflush(stdout);
    for (;;)
        pause();
}

static void die(const char *what)
{
    perror(what);
    exit(1);
}

static int unix_sock(const char *path, struct sockaddr_un *a)
{
    int s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

    if (s < 0)
        die("socket");
    memset(a, 0, sizeof *a);
    a->sun_family = AF_UNIX;
    snprintf(a->sun_path, sizeof a->sun_path, "%s", path);
    return s;
}

static void serve(const char *path)
{
    struct sockaddr_un a;
    int s = unix_sock(path, &a);

    if (bind(s, (struct sockaddr *)&a, sizeof a) != 0 || listen(s, 8) != 0)
        die("listen");
    printf("listening\n");
    fflush(stdout);
    for (;;) {
        char req[4096], ctl[CMSG_SPACE(sizeof(int))], byte = 'x';
        struct iovec io = {&byte, 1};
        struct msghdr m = {
            .msg_iov = &io, .msg_iovlen = 1, .msg_control = ctl, .msg_controllen = sizeof ctl};
        struct cmsghdr *c;
        int fl, fd, conn = accept4(s, NULL, NULL, SOCK_CLOEXEC);
        ssize_t n;

        if (conn < 0)
            continue;
        n = read(conn, req, sizeof req - 1);
        if (n < 3) {
            close(conn);
            continue;
        }
        req[n] = '\0';
        req[strcspn(req, "\n")] = '\0';
        fl = req[0] == 'p' ? O_PATH : req[0] == 'w' ? O_RDWR : O_RDONLY;
        if ((fd = open(req + 2, fl | O_CLOEXEC)) < 0) {
            perror(req + 2);
            close(conn);
            continue;
        }
        memset(ctl, 0, sizeof ctl);
        c = CMSG_FIRSTHDR(&m);
        c->cmsg_level = SOL_SOCKET;
        c->cmsg_type = SCM_RIGHTS;
        c->cmsg_len = CMSG_LEN(sizeof(int));
        memcpy(CMSG_DATA(c), &fd, sizeof fd);
        if (sendmsg(conn, &m, 0) != 1)
            perror("sendmsg");
        else
            printf("sent %s\n", req + 2);
        fflush(stdout);
        close(fd);
        close(conn);
    }
}

static int take_fd(const char *sock, const char *how, const char *path)
{
    struct sockaddr_un a;
    char req[4200], ctl[CMSG_SPACE(sizeof(int))], byte;
    struct iovec io = {&byte, 1};
    struct msghdr m = {
        .msg_iov = &io, .msg_iovlen = 1, .msg_control = ctl, .msg_controllen = sizeof ctl};
    struct cmsghdr *c;
    int fd, s = unix_sock(sock, &a);

    if (connect(s, (struct sockaddr *)&a, sizeof a) != 0)
        die("connect");
    snprintf(req, sizeof req, "%s %s\n", how, path);
    if (write(s, req, strlen(req)) != (ssize_t)strlen(req))
        die("write");
    if (recvmsg(s, &m, MSG_CMSG_CLOEXEC) != 1 || !(c = CMSG_FIRSTHDR(&m)) ||
        c->cmsg_type != SCM_RIGHTS)
        die("recvmsg");
    memcpy(&fd, CMSG_DATA(c), sizeof fd);
    close(s);
    return fd;
}

static int tfd;

static void *tcwd(void *arg)
{
    (void)arg;
    if (unshare(CLONE_FS) != 0 || fchdir(tfd) != 0)
        die("thread fchdir");
    close(tfd);
    printf("took\n");
    fflush(stdout);
    for (;;)
        pause();
    return NULL;
}

static void uring(int fd)
{
    struct io_uring_params p;
    int ring;

    memset(&p, 0, sizeof p);
    ring = (int)syscall(__NR_io_uring_setup, 4, &p);
    if (ring < 0) {
        printf("no-uring %d\n", errno);
        fflush(stdout);
        close(fd);
        hold("took");
    }
    if (syscall(__NR_io_uring_register, ring, IORING_REGISTER_FILES, &fd, 1) != 0)
        die("io_uring_register");
    close(fd);
    hold("took");
}

int main(int argc, char **argv)
{
    if (argc == 3 && strcmp(argv[1], "serve") == 0)
        serve(argv[2]);
    if (argc == 2 && strcmp(argv[1], "hold") == 0)
        hold("took");
    if (argc == 3 && strcmp(argv[1], "own") == 0) {
        int fd = open(argv[2], O_RDONLY | O_CLOEXEC);
        char *slash = strrchr(argv[2], '/');
        if (fd < 0 || mmap(NULL, 4096, PROT_READ, MAP_PRIVATE, fd, 0) == MAP_FAILED)
            die("own");
        close(fd);
        if (slash)
            *slash = '\0';
        if (slash && slash != argv[2] && chdir(argv[2]) != 0)
            die("chdir");
        hold("took");
    }
    if (argc == 3 && strcmp(argv[1], "chroot") == 0) {
        if (chroot(argv[2]) != 0)
            die("chroot");
        hold("took");
    }
    if (argc == 6 && strcmp(argv[1], "take") == 0) {
        const char *mode = argv[5];
        int fd = take_fd(argv[2], argv[3], argv[4]);

        if (strcmp(mode, "cwd") == 0) {
            if (fchdir(fd) != 0)
                die("fchdir");
        } else if (strcmp(mode, "root") == 0) {
            int self = open("/", O_PATH | O_CLOEXEC);
            if (self < 0 || fchdir(fd) != 0 || chroot(".") != 0 || fchdir(self) != 0)
                die("chroot");
            close(self);
        } else if (strcmp(mode, "exe") == 0) {
            char *args[] = {"references_helper", "hold", NULL};
            syscall(__NR_execveat, fd, "", args, (char *[]){NULL}, AT_EMPTY_PATH);
            die("execveat");
        } else if (strcmp(mode, "mapro") == 0 || strcmp(mode, "maprw") == 0) {
            int rw = mode[3] == 'r' && mode[4] == 'w';
            char *p = mmap(NULL, 4096, rw ? PROT_READ | PROT_WRITE : PROT_READ,
                           rw ? MAP_SHARED : MAP_PRIVATE, fd, 0);
            if (p == MAP_FAILED)
                die("mmap");
            if (rw)
                p[0] = 'w';
        } else if (strcmp(mode, "uring") == 0) {
            uring(fd);
        } else if (strcmp(mode, "tcwd") == 0) {
            pthread_t t;
            tfd = fd;
            if (pthread_create(&t, NULL, tcwd, NULL) != 0)
                die("pthread_create");
            for (;;)
                pause();
        } else {
            die("mode");
        }
        close(fd);
        hold("took");
    }
    fprintf(stderr, "usage: see the file's head\n");
    return 2;
}
