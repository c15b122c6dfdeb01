/* SPDX-License-Identifier: Apache-2.0 */
/* The seccomp programs the kernel enforces on each task of the session (docs/collector.md,
 * "Seccomp programs"): PTRACE_SEIZE, PTRACE_INTERRUPT, PTRACE_SECCOMP_GET_FILTER for every
 * filter of the task's chain and PTRACE_SECCOMP_GET_METADATA for its flags, then detach.
 *
 * Every ptrace request is made by a helper thread that exists only for that: a task that
 * does not stop within the deadline (a task in D state) cannot be detached while it runs
 * (PTRACE_DETACH wants a stopped tracee), but the kernel detaches every tracee of a thread
 * that exits (exit_ptrace), so the helper ends at once and a new one reads the next task.
 * No path leaves a task traced or stopped. One task at a time. */
#include "attest_seccomp.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifndef PTRACE_SECCOMP_GET_FILTER
#define PTRACE_SECCOMP_GET_FILTER 0x420c
#endif
#ifndef PTRACE_SECCOMP_GET_METADATA
#define PTRACE_SECCOMP_GET_METADATA 0x420d
#endif
#ifndef PTRACE_EVENT_STOP
#define PTRACE_EVENT_STOP 128
#endif

/* the kernel's struct seccomp_metadata (linux/ptrace.h clashes with glibc's sys/ptrace.h) */
struct sc_metadata {
    uint64_t filter_off;
    uint64_t flags;
};

#define PROC_USER_INIT_INO 4026531837ULL /* the initial user namespace (include/linux/proc_ns.h) */
#define CAP_SYS_ADMIN_BIT 21
#define FILTERS_MAX BXA_SC_FILTERS_MAX

long bxa_sc_deadline_us = 100000; /* how long a task may take to stop (tests lower it) */

/* ---- the collector's own confinement ----------------------------------------------------- */

static int status_field(const char *buf, const char *key, char *out, size_t n)
{
    size_t kl = strlen(key);
    for (const char *l = buf; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
        if (strncmp(l, key, kl) == 0 && l[kl] == ':') {
            const char *v = l + kl + 1;
            size_t len;
            while (*v == ' ' || *v == '\t')
                v++;
            len = strcspn(v, "\n");
            if (len >= n)
                len = n - 1;
            memcpy(out, v, len);
            out[len] = '\0';
            return 0;
        }
    }
    return -1;
}

/* The calling thread's own confinement: what the kernel's PTRACE_SECCOMP_GET_FILTER checks
 * (CAP_SYS_ADMIN in the initial user namespace, no seccomp filter of its own). */
void bxa_sc_self(bxa_sc_reader *r)
{
    char *buf = NULL, v[64], link[64];
    size_t len;
    bx_error e;
    ssize_t l;
    int fd = open("/proc/thread-self", O_RDONLY | O_DIRECTORY | O_CLOEXEC);

    r->cap_sys_admin = r->initial_userns = 0;
    r->seccomp = -1;
    if (fd >= 0 && bxa_read_at(fd, "status", 64 * 1024, &buf, &len, &e) == 0) {
        if (status_field(buf, "Seccomp", v, sizeof v) == 0)
            r->seccomp = atoi(v);
        if (status_field(buf, "CapEff", v, sizeof v) == 0)
            r->cap_sys_admin = (strtoull(v, NULL, 16) >> CAP_SYS_ADMIN_BIT) & 1;
    }
    free(buf);
    if (fd >= 0)
        close(fd);
    l = readlink("/proc/self/ns/user", link, sizeof link - 1);
    if (l > 0) {
        char type[16];
        uint64_t ino;
        link[l] = '\0';
        r->initial_userns = bxa_ns_link_parse(link, type, &ino) == 0 && ino == PROC_USER_INIT_INO;
    }
    r->why[0] = '\0';
    if (!r->initial_userns)
        snprintf(r->why, sizeof r->why,
                 "the collector is not in the initial user namespace: the kernel gives seccomp "
                 "programs only to CAP_SYS_ADMIN there");
    else if (!r->cap_sys_admin)
        snprintf(r->why, sizeof r->why,
                 "the collector does not hold CAP_SYS_ADMIN: the kernel gives seccomp programs "
                 "only to it");
    else if (r->seccomp != 0)
        snprintf(r->why, sizeof r->why,
                 "the collector runs under seccomp (mode %d): the kernel gives seccomp programs "
                 "only to an unconfined reader",
                 r->seccomp);
    r->confined = r->why[0] != '\0';
    r->checked = 1;
}

/* ---- one task ------------------------------------------------------------------------------ */

static int64_t now_us(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (int64_t)t.tv_sec * 1000000 + t.tv_nsec / 1000;
}

typedef struct {
    bxa_sc_reader *r;
    bxa_sc_task *tasks;
    size_t n, next; /* the helper reads tasks[next..n) and stops after a task that hung */
} helper_arg;

__attribute__((format(printf, 3, 4))) static void task_fail(bxa_sc_task *t, int state,
                                                             const char *fmt, ...)
{
    va_list ap;
    t->state = state;
    va_start(ap, fmt);
    vsnprintf(t->why, sizeof t->why, fmt, ap);
    va_end(ap);
}

/* Seized and stopped: every filter of the chain, oldest first (index 0 is the first
 * installed: kernel/seccomp.c get_nth_filter). */
static void read_chain(bxa_sc_task *t)
{
    size_t total = 0;

    t->nfilters = 0;
    for (unsigned long i = 0; i < FILTERS_MAX; i++) {
        long n = ptrace(PTRACE_SECCOMP_GET_FILTER, (pid_t)t->tid, (void *)i, NULL);
        struct sc_metadata md = {.filter_off = i};
        struct sock_filter *f;
        if (n < 0 && errno == ENOENT)
            break;
        if (n < 0 || n > BX_SECCOMP_MAXINSNS) {
            task_fail(t, BXA_SC_UNREAD, "PTRACE_SECCOMP_GET_FILTER: %s",
                      n < 0 ? strerror(errno) : "longer than 4096 instructions");
            return;
        }
        /* zeroed: valgrind does not know the kernel writes it */
        if (!(f = calloc((size_t)n, sizeof *f))) {
            task_fail(t, BXA_SC_UNREAD, "out of memory");
            return;
        }
        t->filter[t->nfilters] = f;
        t->len[t->nfilters] = (size_t)n;
        t->nfilters++;
        errno = 0;
        if (ptrace(PTRACE_SECCOMP_GET_FILTER, (pid_t)t->tid, (void *)i, f) != n) {
            task_fail(t, BXA_SC_UNREAD, "PTRACE_SECCOMP_GET_FILTER: %s",
                      errno ? strerror(errno) : "the filter changed");
            return;
        }
        if (ptrace(PTRACE_SECCOMP_GET_METADATA, (pid_t)t->tid, (void *)sizeof md, &md) < 0) {
            task_fail(t, BXA_SC_UNREAD, "PTRACE_SECCOMP_GET_METADATA: %s", strerror(errno));
            return;
        }
        t->flags[t->nfilters - 1] = md.flags;
        total += (size_t)n;
    }
    if (t->nfilters == FILTERS_MAX) {
        task_fail(t, BXA_SC_UNREAD, "more than 64 filters");
        return;
    }
    if (t->expect >= 0 && (int64_t)t->nfilters != t->expect) {
        char d[64];
        snprintf(d, sizeof d, "%zu filters read, Seccomp_filters: %lld", t->nfilters,
                 (long long)t->expect);
        task_fail(t, BXA_SC_UNREAD, "%s", d);
        return;
    }
    (void)total;
    t->state = t->nfilters ? BXA_SC_READ : BXA_SC_UNREAD;
    if (!t->nfilters)
        task_fail(t, BXA_SC_UNREAD, "seccomp filter mode, but no filter read");
}

/* 1: the task hung (the helper must end to detach it); 0 otherwise. */
static int read_one(bxa_sc_reader *r, bxa_sc_task *t)
{
    pid_t tid = (pid_t)t->tid;
    int64_t t0, stopped_at, end;
    int st = 0, sig = 0;
    pid_t w;
    unsigned spins = 0;

    if (ptrace(PTRACE_SEIZE, tid, NULL, NULL) != 0) {
        if (errno == ESRCH)
            t->state = BXA_SC_GONE;
        else
            task_fail(t, BXA_SC_UNREAD, "PTRACE_SEIZE: %s (traced by another process?)",
                      strerror(errno));
        return 0;
    }
    t0 = now_us();
    if (ptrace(PTRACE_INTERRUPT, tid, NULL, NULL) != 0) {
        int gone = errno == ESRCH;
        task_fail(t, gone ? BXA_SC_GONE : BXA_SC_UNREAD, "PTRACE_INTERRUPT: %s", strerror(errno));
        return 1; /* seized: only the helper's end detaches it */
    }
    end = t0 + bxa_sc_deadline_us;
    for (;;) {
        w = waitpid(tid, &st, __WALL | WNOHANG);
        if (w == tid || (w < 0 && errno != EINTR))
            break;
        if (now_us() >= end) {
            task_fail(t, BXA_SC_UNREAD,
                      "did not stop within %ld ms (uninterruptible sleep?)", bxa_sc_deadline_us / 1000);
            return 1;
        }
        if (++spins > 64) {
            struct timespec ts = {0, 20000};
            nanosleep(&ts, NULL);
        } else {
            sched_yield();
        }
    }
    if (w < 0) { /* cannot wait for it: only the helper's end detaches it */
        task_fail(t, BXA_SC_UNREAD, "waitpid: %s", strerror(errno));
        return 1;
    }
    if (WIFEXITED(st) || WIFSIGNALED(st)) {
        t->state = BXA_SC_GONE; /* it exited while we waited: nothing to detach */
        return 0;
    }
    stopped_at = now_us();
    /* a signal-delivery stop: the signal goes back to the task on detach */
    if (WIFSTOPPED(st) && (st >> 16) != PTRACE_EVENT_STOP)
        sig = WSTOPSIG(st);
    read_chain(t);
    if (ptrace(PTRACE_DETACH, tid, NULL, (void *)(long)sig) != 0) {
        if (errno == ESRCH && t->state == BXA_SC_READ)
            t->state = BXA_SC_GONE; /* killed while stopped (SIGKILL needs no stop) */
        if (errno != ESRCH)
            return 1;
    }
    end = now_us();
    t->stopped_us = end - stopped_at;
    r->stopped_us_total += t->stopped_us;
    if (t->stopped_us > r->stopped_us_max)
        r->stopped_us_max = t->stopped_us;
    r->wait_us_total += stopped_at - t0;
    return 0;
}

static void *helper(void *p)
{
    helper_arg *a = p;

    if (!a->r->checked)
        bxa_sc_self(a->r);
    while (a->next < a->n) {
        bxa_sc_task *t = &a->tasks[a->next++];
        if (a->r->confined) {
            task_fail(t, BXA_SC_UNREAD, "%s", a->r->why);
            continue;
        }
        if (read_one(a->r, t))
            break; /* this thread's end detaches the task */
    }
    return NULL;
}

void bxa_sc_task_clear(bxa_sc_task *t)
{
    for (size_t i = 0; i < t->nfilters; i++)
        free(t->filter[i]);
    t->nfilters = 0;
}

/* Read tasks[0..n): those in filter mode (state BXA_SC_PENDING) by ptrace, one at a time. */
int bxa_sc_read_tasks(bxa_sc_reader *r, bxa_sc_task *tasks, size_t n, bx_error *err)
{
    helper_arg a = {.r = r, .tasks = tasks, .n = n, .next = 0};

    while (a.next < n) {
        pthread_t th;
        int e;
        while (a.next < n && tasks[a.next].state != BXA_SC_PENDING)
            a.next++;
        if (a.next == n)
            break;
        if ((e = pthread_create(&th, NULL, helper, &a)) != 0) {
            errno = e;
            return bx_error_errno(err, BX_EIO, "seccomp", "cannot start a helper thread");
        }
        pthread_join(th, NULL);
    }
    return 0;
}

/* ---- a task's status ------------------------------------------------------------------- */

void bxa_sc_task_init(bxa_sc_task *t, int64_t tid, const char *status)
{
    char v[64];

    memset(t, 0, sizeof *t);
    t->tid = tid;
    t->expect = -1;
    t->state = BXA_SC_UNREAD;
    if (status_field(status, "State", v, sizeof v) == 0 && (v[0] == 'Z' || v[0] == 'X')) {
        t->state = BXA_SC_GONE; /* a zombie runs no syscall */
        return;
    }
    if (status_field(status, "Seccomp", v, sizeof v) != 0) {
        snprintf(t->why, sizeof t->why, "no Seccomp line in its status");
        return;
    }
    if (strcmp(v, "0") == 0) {
        t->state = BXA_SC_NONE;
        return;
    }
    if (strcmp(v, "1") == 0) {
        t->state = BXA_SC_STRICT;
        return;
    }
    if (strcmp(v, "2") != 0) {
        snprintf(t->why, sizeof t->why, "Seccomp: %.32s", v);
        return;
    }
    if (status_field(status, "Seccomp_filters", v, sizeof v) == 0)
        t->expect = strtoll(v, NULL, 10);
    if (status_field(status, "TracerPid", v, sizeof v) == 0 && strcmp(v, "0") != 0) {
        snprintf(t->why, sizeof t->why, "traced by process %.20s", v);
        return;
    }
    t->state = BXA_SC_PENDING;
}
