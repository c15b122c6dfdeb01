/* SPDX-License-Identifier: Apache-2.0 */
/* attest/channels.c's readings: scm_fds of a unix socket's fdinfo (descriptors in flight),
 * from texts and from this process's own socketpair with descriptors sent and not received;
 * which sockets are listed; the family names. */
#include "tap.h"
#include "attest_internal.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static void texts(void)
{
    static const struct {
        const char *text;
        long long want;
    } c[] = {
        {"pos:\t0\nflags:\t02000002\nmnt_id:\t10\nino:\t247074\nscm_fds: 1\n", 1},
        {"pos:\t0\nflags:\t02\nmnt_id:\t10\nino:\t1\nscm_fds:\t0\n", 0},
        {"scm_fds: 253\n", 253},
        {"scm_fds: 7", 7}, /* no final newline */
        {"pos:\t0\nflags:\t02\nmnt_id:\t10\nino:\t1\n", -1}, /* a kernel that does not show it */
        {"", -1},
        {"scm_fds: \n", -1},
        {"scm_fds: -1\n", -1},
        {"scm_fds: 3x\n", -1},
        {"scm_fdsx: 3\n", -1},
        {"xscm_fds: 3\n", -1},
        {"pos:\t0\nscm_fds: 2\nscm_fds: 9\n", 2}, /* the first */
    };
    for (size_t i = 0; i < sizeof c / sizeof c[0]; i++)
        is_int(bxa_parse_scm_fds(c[i].text, strlen(c[i].text)), c[i].want, "scm_fds of text %zu",
               i);
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

static long long own(int fd)
{
    char path[64], *buf;
    size_t len;
    long long v;
    snprintf(path, sizeof path, "/proc/self/fdinfo/%d", fd);
    if (!(buf = tap_slurp(path, &len)))
        return -2;
    v = bxa_parse_scm_fds(buf, len);
    free(buf);
    return v;
}

static void in_flight(void)
{
    int sp[2], p[2];
    long long before;
    if (socketpair(AF_UNIX, SOCK_STREAM, 0, sp) != 0 || pipe(p) != 0) {
        ok(0, "socketpair and pipe");
        return;
    }
    before = own(sp[1]);
    if (before < 0) {
        printf("# this kernel shows no scm_fds: nothing in flight can be read\n");
        is_int(before, -1, "no scm_fds: -1 (the member null)");
        return;
    }
    is_int(before, 0, "a fresh socketpair: nothing in flight");
    ok(send_fd(sp[0], p[0]) == 0 && send_fd(sp[0], p[1]) == 0, "two descriptors sent");
    is_int(own(sp[1]), 2, "two in flight at the receiving end");
    is_int(own(sp[0]), 0, "none at the sending end");
    close(sp[0]);
    close(sp[1]);
    close(p[0]);
    close(p[1]);
}

static void families(void)
{
    is_str(bxa_channel_family(AF_UNIX), "unix", "AF_UNIX");
    is_str(bxa_channel_family(AF_INET), "inet", "AF_INET");
    is_str(bxa_channel_family(AF_INET6), "inet6", "AF_INET6");
    is_str(bxa_channel_family(AF_NETLINK), "netlink", "AF_NETLINK");
    is_str(bxa_channel_family(AF_PACKET), "packet", "AF_PACKET");
    is_str(bxa_channel_family(AF_VSOCK), "vsock", "AF_VSOCK");
    is_str(bxa_channel_family(AF_BLUETOOTH), "other", "any other family");
}

static void recorded(void)
{
    static const struct {
        const char *whose;
        int sandbox, peer_out;
        long long inflight;
        int want;
    } c[] = {
        {"session", 0, 0, 0, 0},  {"session", 0, 0, -1, 0}, {"session", 0, 1, 0, 1},
        {"session", 0, 0, 1, 1},  {"host", 0, 0, 0, 1},     {"daemon", 0, 0, -1, 1},
        {"other", 0, 0, 0, 1},    {NULL, 0, 0, 0, 1},       {"host", 1, 0, 0, 0},
        {NULL, 1, 0, -1, 0},      {"host", 1, 1, 0, 1},     {"host", 1, 0, 2, 1},
        {"session", 1, 0, 0, 0},  {"sessionx", 0, 0, 0, 1},
    };
    for (size_t i = 0; i < sizeof c / sizeof c[0]; i++)
        is_int(bxa_channel_recorded(c[i].whose, c[i].sandbox, c[i].peer_out, c[i].inflight),
               c[i].want, "recorded: namespace %s, sandbox %d, peer out %d, in flight %lld",
               c[i].whose ? c[i].whose : "(not asked)", c[i].sandbox, c[i].peer_out,
               c[i].inflight);
}

int main(void)
{
    texts();
    recorded();
    in_flight();
    families();
    return tap_done();
}
