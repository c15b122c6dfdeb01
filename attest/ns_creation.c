/* SPDX-License-Identifier: Apache-2.0 */
/* containment.namespaceCreation (v3): which namespaces the session's tasks can create, by
 * what the seccomp chains the kernel enforces let clone, unshare and clone3 do with their
 * arguments (seccomp/argreach.c: each comparison on both 32-bit halves of the flags followed,
 * no value tried), and user.max_user_namespaces as the session sees it (docs/collector.md,
 * "Namespace creation"). */
#include "attest_seccomp.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* The namespace bits, with the names containment.namespaces gives the kinds, in name order. */
static const struct {
    const char *name;
    uint32_t bit;
} ns_bits[] = {
    {"cgroup", BX_SECCOMP_NS_CGROUP}, {"ipc", BX_SECCOMP_NS_IPC}, {"mnt", BX_SECCOMP_NS_MNT},
    {"net", BX_SECCOMP_NS_NET},       {"pid", BX_SECCOMP_NS_PID}, {"time", BX_SECCOMP_NS_TIME},
    {"user", BX_SECCOMP_NS_USER},     {"uts", BX_SECCOMP_NS_UTS},
};
#define NS_COUNT (sizeof ns_bits / sizeof ns_bits[0])

/* Every namespace bit of unshare's flags; clone's lack CLONE_NEWTIME (0x80 is part of the
 * exit signal there: clone cannot create a time namespace). */
static uint32_t all_bits(int with_time)
{
    uint32_t b = 0;
    for (size_t i = 0; i < NS_COUNT; i++)
        b |= ns_bits[i].bit;
    return with_time ? b : b & ~BX_SECCOMP_NS_TIME;
}

static uint32_t names_bits(const json_t *names)
{
    uint32_t b = 0;
    size_t i;
    json_t *v;
    json_array_foreach(names, i, v)
    {
        for (size_t k = 0; k < NS_COUNT; k++)
            if (json_is_string(v) && strcmp(json_string_value(v), ns_bits[k].name) == 0)
                b |= ns_bits[k].bit;
    }
    return b;
}

static json_t *bits_names(uint32_t b)
{
    json_t *l = json_array();
    for (size_t i = 0; l && i < NS_COUNT; i++)
        if ((b & ns_bits[i].bit) && json_array_append_new(l, json_string(ns_bits[i].name)) != 0) {
            json_decref(l);
            return NULL;
        }
    return l;
}

/* The namespace bits a call of name (flags in argument 0 on every ABI of this machine; s390's
 * clone takes them in argument 1 and is no ABI here) can carry to an allowing return. */
static int reach(const bx_seccomp_prog *chain, size_t n, size_t abi, const char *name, uint32_t ask,
                 uint32_t *bits, int *any, bx_error *err)
{
    bx_seccomp_argreach r;
    int rc;

    if (n == 0) { /* no filter: every call goes through */
        *bits = ask;
        *any = 1;
        return 0;
    }
    if ((rc = bx_seccomp_arg_reach(chain, n, abi, name, 0, ask, &r, err)) != 0)
        return rc;
    *bits = r.reachable ? r.bits & ask : 0;
    *any = r.reachable;
    return 0;
}

int bxa_ns_creation_fold(const bx_seccomp_prog *chain, size_t n, json_t *abis, bx_error *err)
{
    for (size_t a = 0; a < BX_SECCOMP_NABI; a++) {
        const char *abi = bx_seccomp_abi(a)->name;
        json_t *have = json_object_get(abis, abi), *o;
        uint32_t cb = 0, ub = 0, ignored;
        int c3 = 0, any;
        bx_error e = {0};

        if (have && json_is_null(have))
            continue; /* not known for some chain already */
        if (reach(chain, n, a, "clone", all_bits(0), &cb, &any, &e) != 0 ||
            reach(chain, n, a, "unshare", all_bits(1), &ub, &any, &e) != 0 ||
            reach(chain, n, a, "clone3", 0, &ignored, &c3, &e) != 0) {
            if (e.code != BX_ENOTFOUND && e.code != BX_EINVAL)
                return bx_error_set(err, e.code, e.where, "%s", e.msg);
            /* libseccomp knows no such syscall for the ABI, or a program the kernel would
             * not hold: not known */
            if (json_object_set_new(abis, abi, json_null()) != 0)
                return bxa_oom(err);
            continue;
        }
        if (have) { /* joined: what some task can do */
            cb |= names_bits(json_object_get(have, "clone"));
            ub |= names_bits(json_object_get(have, "unshare"));
            c3 |= json_is_true(json_object_get(have, "clone3"));
        }
        o = json_pack("{s:o*,s:o*,s:b}", "clone", bits_names(cb), "unshare", bits_names(ub),
                      "clone3", c3);
        if (!o || !json_object_get(o, "clone") || !json_object_get(o, "unshare") ||
            json_object_set_new(abis, abi, o) != 0) {
            json_decref(o);
            return bxa_oom(err);
        }
    }
    return 0;
}

int bxa_ns_creation_json(bxa_sc_set *s, const char *served_by, long long max_user_ns, json_t **out,
                         bx_error *err)
{
    const bxa_sc_reader *r = bxa_sc_set_reader(s);
    json_t *abis = json_object(), *o;
    const char *why = NULL;
    int rc = 0;

    *out = NULL;
    if (!abis)
        return bxa_oom(err);
    if (r->confined) {
        why = r->why;
    } else if (bxa_sc_set_unread(s) > 0) {
        why = "a task in seccomp filter mode could not be read (seccompPrograms.unread)";
    } else {
        if (bxa_sc_set_none(s) > 0 && (rc = bxa_ns_creation_fold(NULL, 0, abis, err)) != 0)
            goto out;
        for (size_t i = 0; i < bxa_sc_set_nchains(s); i++) {
            size_t n;
            const bx_seccomp_prog *c = bxa_sc_set_chain(s, i, &n);
            if ((rc = bxa_ns_creation_fold(c, n, abis, err)) != 0)
                goto out;
        }
    }
    o = json_pack("{s:s,s:O,s:s?}", "servedBy", served_by, "abis", why ? json_null() : abis, "why",
                  why);
    if (o && json_object_set_new(o, "maxUserNamespaces",
                                 max_user_ns < 0 ? json_null()
                                                 : json_integer((json_int_t)max_user_ns)) != 0) {
        json_decref(o);
        o = NULL;
    }
    if (o && !why && json_object_set_new(o, "why", json_null()) != 0) {
        json_decref(o);
        o = NULL;
    }
    if (!o) {
        rc = bxa_oom(err);
        goto out;
    }
    *out = o;
out:
    json_decref(abis);
    return rc;
}

/* ---- user.max_user_namespaces -------------------------------------------------------------- */

static int same_ns(int a, int b)
{
    struct stat x, y;
    return fstat(a, &x) == 0 && fstat(b, &y) == 0 && x.st_dev == y.st_dev && x.st_ino == y.st_ino;
}

/* Read the sysctl into buf (NUL-terminated); -1 on failure. Async-signal-safe (a forked child
 * of a threaded process runs it). */
static int read_max(char *buf, size_t cap)
{
    int fd = open("/proc/sys/user/max_user_namespaces", O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    ssize_t got;
    if (fd < 0)
        return -1;
    got = read(fd, buf, cap - 1);
    close(fd);
    if (got <= 0)
        return -1;
    buf[got] = '\0';
    return 0;
}

static long long parse_max(const char *buf)
{
    char *end;
    long long v;
    errno = 0;
    v = strtoll(buf, &end, 10);
    if (errno || end == buf || (*end != '\n' && *end != '\0') || v < 0)
        return -1;
    return v;
}

void bxa_userns_max_read(int proc_dfd, long long *out)
{
    int ns = openat(proc_dfd, "ns/user", O_RDONLY | O_CLOEXEC);
    int self = open("/proc/self/ns/user", O_RDONLY | O_CLOEXEC);
    int p[2] = {-1, -1};
    char buf[32];
    pid_t pid;

    *out = -1;
    if (ns < 0 || self < 0)
        goto out;
    if (same_ns(ns, self)) {
        if (read_max(buf, sizeof buf) == 0)
            *out = parse_max(buf);
        goto out;
    }
    /* setns into a user namespace wants a single-threaded caller: a child joins it */
    if (pipe2(p, O_CLOEXEC) != 0)
        goto out;
    pid = fork();
    if (pid == 0) {
        size_t len;
        close(p[0]);
        if (setns(ns, CLONE_NEWUSER) != 0 || read_max(buf, sizeof buf) != 0)
            _exit(1);
        len = strlen(buf);
        _exit(write(p[1], buf, len) == (ssize_t)len ? 0 : 1);
    }
    close(p[1]);
    p[1] = -1;
    if (pid > 0) {
        ssize_t got, total = 0;
        int st = -1;
        while ((got = read(p[0], buf + total, sizeof buf - 1 - (size_t)total)) > 0 ||
               (got < 0 && errno == EINTR))
            if (got > 0)
                total += got;
        buf[total] = '\0';
        while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
            ;
        if (WIFEXITED(st) && WEXITSTATUS(st) == 0 && total > 0)
            *out = parse_max(buf);
    }
out:
    if (p[0] >= 0)
        close(p[0]);
    if (p[1] >= 0)
        close(p[1]);
    if (ns >= 0)
        close(ns);
    if (self >= 0)
        close(self);
}
