/* SPDX-License-Identifier: Apache-2.0 */
/* Sockets made, passed and held for tests/engine/channels.sh; no packet is sent to any
 * address (the only data written is one byte carrying SCM_RIGHTS on a unix socket).
 *   serve PATH KIND   listen on the unix socket PATH, accept one connection, make a socket of
 *                     KIND (inet, netlink, packet, pair: one end of a socketpair, the other
 *                     kept; none: nothing) and pass it over the connection; print "sent" and
 *                     hold everything until killed
 *   take PATH MODE    connect to PATH, receive one descriptor (unless MODE is bare), close the
 *                     connection when MODE is close, print "took" and hold the rest
 *   inflight          send a descriptor on a socketpair and never receive it; print "held"
 *   listen PATH       listen on PATH and accept connections, holding them */
#include <errno.h>
#include <linux/netlink.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#ifndef AF_PACKET
#define AF_PACKET 17
#endif

static void hold(const char *what)
{
    printf("%s\n", what);
    fflush(stdout);
    for (;;)
        pause();
}

static int send_fd(int sock, int fd)
{
    char byte = 'x', ctl[CMSG_SPACE(sizeof(int))];
    struct iovec io = {&byte, 1};
    struct msghdr m = {.msg_iov = &io, .msg_iovlen = 1, .msg_control = ctl,
                       .msg_controllen = sizeof ctl};
    struct cmsghdr *c;
    memset(ctl, 0, sizeof ctl);
    c = CMSG_FIRSTHDR(&m);
    c->cmsg_level = SOL_SOCKET;
    c->cmsg_type = SCM_RIGHTS;
    c->cmsg_len = CMSG_LEN(sizeof(int));
    memcpy(CMSG_DATA(c), &fd, sizeof fd);
    return sendmsg(sock, &m, 0) == 1 ? 0 : -1;
}

static int recv_fd(int sock)
{
    char byte, ctl[CMSG_SPACE(sizeof(int))];
    struct iovec io = {&byte, 1};
    struct msghdr m = {.msg_iov = &io, .msg_iovlen = 1, .msg_control = ctl,
                       .msg_controllen = sizeof ctl};
    struct cmsghdr *c;
    int fd = -1;
    if (recvmsg(sock, &m, 0) != 1)
        return -1;
    c = CMSG_FIRSTHDR(&m);
    if (c && c->cmsg_type == SCM_RIGHTS)
        memcpy(&fd, CMSG_DATA(c), sizeof fd);
    return fd;
}

static struct sockaddr_un addr(const char *path)
{
    struct sockaddr_un a = {.sun_family = AF_UNIX};
    snprintf(a.sun_path, sizeof a.sun_path, "%s", path);
    return a;
}

int main(int argc, char **argv)
{
    if (argc == 4 && strcmp(argv[1], "serve") == 0) {
        struct sockaddr_un a = addr(argv[2]);
        int l = socket(AF_UNIX, SOCK_STREAM, 0), c, s = -1, pair[2];
        unlink(argv[2]);
        if (l < 0 || bind(l, (struct sockaddr *)&a, sizeof a) != 0 || listen(l, 4) != 0 ||
            (c = accept(l, NULL, NULL)) < 0) {
            perror("serve");
            return 1;
        }
        if (strcmp(argv[3], "inet") == 0)
            s = socket(AF_INET, SOCK_STREAM, 0);
        else if (strcmp(argv[3], "netlink") == 0)
            s = socket(AF_NETLINK, SOCK_RAW, NETLINK_ROUTE);
        else if (strcmp(argv[3], "packet") == 0)
            s = socket(AF_PACKET, SOCK_DGRAM, 0);
        else if (strcmp(argv[3], "pair") == 0 && socketpair(AF_UNIX, SOCK_STREAM, 0, pair) == 0)
            s = pair[0];
        if (strcmp(argv[3], "none") != 0 && (s < 0 || send_fd(c, s) != 0)) {
            perror("make or pass");
            return 1;
        }
        if (strcmp(argv[3], "pair") != 0 && s >= 0)
            close(s); /* the session holds the only reference */
        hold("sent");
    }
    if (argc == 4 && strcmp(argv[1], "take") == 0) {
        struct sockaddr_un a = addr(argv[2]);
        int c = socket(AF_UNIX, SOCK_STREAM, 0), fd = -1;
        if (c < 0 || connect(c, (struct sockaddr *)&a, sizeof a) != 0) {
            perror("take");
            return 1;
        }
        if (strcmp(argv[3], "bare") != 0 && (fd = recv_fd(c)) < 0) {
            perror("receive");
            return 1;
        }
        if (strcmp(argv[3], "close") == 0)
            close(c);
        hold("took");
    }
    if (argc == 2 && strcmp(argv[1], "inflight") == 0) {
        int pair[2], p[2];
        if (socketpair(AF_UNIX, SOCK_STREAM, 0, pair) != 0 || pipe(p) != 0 ||
            send_fd(pair[0], p[0]) != 0) {
            perror("inflight");
            return 1;
        }
        close(p[0]);
        hold("held");
    }
    if (argc == 3 && strcmp(argv[1], "listen") == 0) {
        struct sockaddr_un a = addr(argv[2]);
        int l = socket(AF_UNIX, SOCK_STREAM, 0);
        unlink(argv[2]);
        if (l < 0 || bind(l, (struct sockaddr *)&a, sizeof a) != 0 || listen(l, 4) != 0) {
            perror("listen");
            return 1;
        }
        printf("listening\n");
        fflush(stdout);
        for (;;)
            if (accept(l, NULL, NULL) < 0 && errno != EINTR)
                return 1;
    }
    fprintf(stderr, "usage: serve PATH KIND | take PATH MODE | inflight | listen PATH\n");
    return 2;
}
