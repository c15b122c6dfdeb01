/* SPDX-License-Identifier: Apache-2.0 */
/* What the sessions of tests/engine/seccomp_userns.sh run inside (built static by the test,
 * mounted read-only at /h): whether the kernel lets this session create a user namespace, by
 * each way there is, each tried in a child process that exits at once (the session itself
 * never changes namespace). Prints "unshare-user E", "clone-user E", "clone3-user E" (E the
 * errno, 0 when the namespace was made), "done", then sleeps until killed. */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef SYS_clone3
#define SYS_clone3 435
#endif

struct clone_args_v0 {
    uint64_t flags, pidfd, child_tid, parent_tid, exit_signal, stack, stack_size, tls;
};

/* The errno of a child's attempt, sent back as its exit status. */
static int wait_errno(pid_t pid)
{
    int st = 0;
    if (waitpid(pid, &st, 0) != pid)
        return -1;
    return WIFEXITED(st) ? WEXITSTATUS(st) : 255;
}

static int try_unshare(void)
{
    pid_t pid = fork();
    if (pid == 0)
        _exit(unshare(CLONE_NEWUSER) == 0 ? 0 : errno);
    return pid < 0 ? -1 : wait_errno(pid);
}

static int try_clone(void)
{
    long r = syscall(SYS_clone, (unsigned long)(CLONE_NEWUSER | SIGCHLD), 0L, 0L, 0L, 0L);
    if (r == 0)
        _exit(0);
    if (r < 0)
        return errno;
    return wait_errno((pid_t)r);
}

static int try_clone3(void)
{
    struct clone_args_v0 a;
    long r;
    memset(&a, 0, sizeof a);
    a.flags = CLONE_NEWUSER;
    a.exit_signal = SIGCHLD;
    r = syscall(SYS_clone3, &a, sizeof a);
    if (r == 0)
        _exit(0);
    if (r < 0)
        return errno;
    return wait_errno((pid_t)r);
}

int main(void)
{
    printf("unshare-user %d\n", try_unshare());
    printf("clone-user %d\n", try_clone());
    printf("clone3-user %d\n", try_clone3());
    printf("done\n");
    fflush(stdout);
    for (;;)
        pause();
}
