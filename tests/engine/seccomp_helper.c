/* SPDX-License-Identifier: Apache-2.0 */
/* What the sessions of tests/engine/seccomp_kernel.sh run inside (built static by the test,
 * mounted read-only at /sc): each mode does one thing, says on stdout what it saw, and
 * sleeps until killed. The probe of what seccomp lets through is the kernel's own answer to a
 * syscall made with arguments the kernel refuses by itself (a bad address), so that a
 * seccomp denial (the profile's errno, EPERM) is told apart from a call let through (EFAULT,
 * EINVAL, ...).
 *   try NAME...   for each of mount, keyctl, bpf, ptrace, unshare, socket-inet, socket-unix:
 *                 "NAME errno" (0 when the call succeeded), then sleep
 *   i386          getpid and keyctl through int 0x80 (the i386 ABI): "i386-getpid ok|errno",
 *                 "i386-keyctl errno"; on a kernel without IA32 emulation, where int 0x80
 *                 kills the caller, a child probes first and it says "i386-getpid absent"
 *   extra         a second thread loads a filter of its own (denying uname with ENOSYS)
 *                 after start (no-new-privileges set by the engine), then both sleep
 *   trace         a child process traced by this one (PTRACE_SEIZE), both sleep */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

static void sleep_forever(void)
{
    fflush(stdout);
    for (;;)
        pause();
}

static int err_of(long r)
{
    return r < 0 ? errno : 0;
}

static void try_one(const char *name)
{
    long r = -1;
    errno = 0;
    if (!strcmp(name, "mount"))
        r = syscall(SYS_mount, NULL, (void *)1, NULL, 0, NULL); /* EFAULT when let through */
    else if (!strcmp(name, "keyctl"))
        r = syscall(SYS_keyctl, 0x7fff, 0, 0, 0, 0); /* an unknown command: EOPNOTSUPP */
    else if (!strcmp(name, "bpf"))
        r = syscall(SYS_bpf, 0x7fff, NULL, 0); /* EINVAL (or EPERM without CAP_BPF) */
    else if (!strcmp(name, "ptrace"))
        r = syscall(SYS_ptrace, 0x7fff, 0, 0, 0); /* EIO / ESRCH */
    else if (!strcmp(name, "unshare"))
        r = syscall(SYS_unshare, 0x80000000L); /* EINVAL: not a namespace flag */
    else if (!strcmp(name, "socket-inet"))
        r = socket(AF_INET, SOCK_STREAM, 0);
    else if (!strcmp(name, "socket-unix"))
        r = socket(AF_UNIX, SOCK_STREAM, 0);
    printf("%s %d\n", name, err_of(r));
}

static long int80(long nr, long a, long b)
{
    long r;
    __asm__ volatile("int $0x80" : "=a"(r) : "a"(nr), "b"(a), "c"(b) : "memory");
    return r;
}

static void *extra_thread(void *arg)
{
    struct sock_filter f[] = {
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, 0),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_uname, 0, 1),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ENOSYS),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
    };
    struct sock_fprog p = {4, f};
    (void)arg;
    if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &p) != 0)
        printf("extra-filter %d\n", errno);
    else
        printf("extra-filter 0\n");
    fflush(stdout);
    for (;;)
        pause();
    return NULL;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: seccomp_helper try NAME...|i386|extra|trace\n");
        return 2;
    }
    setvbuf(stdout, NULL, _IOLBF, 0);
    if (!strcmp(argv[1], "try")) {
        for (int i = 2; i < argc; i++)
            try_one(argv[i]);
        printf("done\n");
        sleep_forever();
    }
    if (!strcmp(argv[1], "i386")) {
        pid_t c = fork();
        int st = 0;
        if (c == 0)
            _exit(int80(20, 0, 0) > 0 ? 0 : 1);
        if (c < 0 || waitpid(c, &st, 0) != c)
            return 1;
        if (WIFSIGNALED(st)) {
            /* SIGSEGV: no IA32 emulation; any other signal (SIGSYS from a filter) is said
             * as such, and the test fails on it */
            printf("i386-getpid %s %d\n", WTERMSIG(st) == SIGSEGV ? "absent" : "killed",
                   WTERMSIG(st));
            printf("done\n");
            sleep_forever();
        }
        long r = int80(20, 0, 0);                   /* getpid */
        long k = int80(288, 0x7fff, 0);             /* keyctl */
        printf("i386-getpid %s\n", r > 0 ? "ok" : "failed");
        printf("i386-keyctl %ld\n", k < 0 ? -k : 0);
        printf("done\n");
        sleep_forever();
    }
    if (!strcmp(argv[1], "extra")) {
        pthread_t t;
        if (pthread_create(&t, NULL, extra_thread, NULL) != 0)
            return 1;
        sleep(1);
        printf("done\n");
        sleep_forever();
    }
    if (!strcmp(argv[1], "trace")) {
        pid_t c = fork();
        if (c == 0)
            sleep_forever();
        if (c < 0 || ptrace(PTRACE_SEIZE, c, NULL, NULL) != 0) {
            printf("trace %d\n", errno);
            return 1;
        }
        printf("trace 0 %d\n", (int)c);
        printf("done\n");
        sleep_forever();
    }
    fprintf(stderr, "seccomp_helper: unknown mode %s\n", argv[1]);
    return 2;
}
