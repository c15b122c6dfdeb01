/* SPDX-License-Identifier: Apache-2.0 */
/* containment.namespaceCreation from seccomp chains (attest/ns_creation.c): profiles compiled
 * by libseccomp as runc compiles them — Docker's masked clone rule, one that leaves
 * CLONE_NEWUSER out of its mask, everything allowed, everything refused — read per ABI; chains
 * joined over the tasks (a task without seccomp can create every kind); a task not read makes
 * the whole null; user.max_user_namespaces read from this process's own user namespace. */
#include "tap.h"
#include "attest_seccomp.h"

#include <fcntl.h>
#include <sched.h>
#include <sys/wait.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define ARCHES "\"architectures\":[\"SCMP_ARCH_X86_64\",\"SCMP_ARCH_X86\",\"SCMP_ARCH_X32\"]"
/* Docker's default: clone only without a namespace bit (mask 0x7E020000), clone3 ENOSYS,
 * unshare in no rule */
#define DOCKER                                                                                     \
    "{\"defaultAction\":\"SCMP_ACT_ERRNO\"," ARCHES ",\"syscalls\":["                              \
    "{\"names\":[\"read\",\"write\"],\"action\":\"SCMP_ACT_ALLOW\"},"                              \
    "{\"names\":[\"clone\"],\"action\":\"SCMP_ACT_ALLOW\",\"args\":[{\"index\":0,\"value\":"       \
    "2114060288,\"valueTwo\":0,\"op\":\"SCMP_CMP_MASKED_EQ\"}]},"                                  \
    "{\"names\":[\"clone3\"],\"action\":\"SCMP_ACT_ERRNO\",\"errnoRet\":38}]}"
/* the same mask without CLONE_NEWUSER (0x6E020000): user namespaces let through */
#define USER_OPEN                                                                                  \
    "{\"defaultAction\":\"SCMP_ACT_ERRNO\"," ARCHES ",\"syscalls\":["                              \
    "{\"names\":[\"clone\"],\"action\":\"SCMP_ACT_ALLOW\",\"args\":[{\"index\":0,\"value\":"       \
    "1845624832,\"valueTwo\":0,\"op\":\"SCMP_CMP_MASKED_EQ\"}]}]}"
/* unshare only with CLONE_NEWNET (0x40000000) exactly, as a 64-bit EQ */
#define NET_ONLY                                                                                   \
    "{\"defaultAction\":\"SCMP_ACT_ERRNO\"," ARCHES ",\"syscalls\":["                              \
    "{\"names\":[\"unshare\"],\"action\":\"SCMP_ACT_ALLOW\",\"args\":[{\"index\":0,\"value\":"     \
    "1073741824,\"op\":\"SCMP_CMP_EQ\"}]}]}"
#define ALL_OPEN "{\"defaultAction\":\"SCMP_ACT_ALLOW\"," ARCHES "}"
#define LOGGED "{\"defaultAction\":\"SCMP_ACT_LOG\"," ARCHES "}"
#define ALL_SHUT                                                                                   \
    "{\"defaultAction\":\"SCMP_ACT_ALLOW\"," ARCHES ",\"syscalls\":[{\"names\":[\"clone\","        \
    "\"clone3\",\"unshare\"],\"action\":\"SCMP_ACT_KILL_PROCESS\"}]}"

typedef struct {
    struct sock_filter *insns;
    size_t len;
} prog;

static prog compile(const char *text)
{
    json_error_t je;
    json_t *j = json_loads(text, 0, &je);
    bx_error e = {0};
    prog p = {NULL, 0};
    if (!j) {
        printf("Bail out! %s\n", je.text);
        exit(1);
    }
    if (bx_seccomp_profile_compile(j, &p.insns, &p.len, NULL, &e) != 0) {
        printf("Bail out! compile: %s\n", e.msg);
        exit(1);
    }
    json_decref(j);
    return p;
}

/* The record of the chains (each one filter), as "abi clone|unshare|clone3" lines. */
static char *fold(const char *const *profiles, size_t n, int none)
{
    json_t *abis = json_object();
    bx_error e = {0};
    static char out[2048];
    size_t l = 0;
    const char *k;
    json_t *v;

    if (none)
        ok_err(bxa_ns_creation_fold(NULL, 0, abis, &e), &e, "no filter folded");
    for (size_t i = 0; i < n; i++) {
        prog p = compile(profiles[i]);
        bx_seccomp_prog c = {p.insns, p.len};
        ok_err(bxa_ns_creation_fold(&c, 1, abis, &e), &e, "chain %zu folded", i);
        free(p.insns);
    }
    out[0] = '\0';
    json_object_foreach(abis, k, v)
    {
        char *cl = json_dumps(json_object_get(v, "clone"), JSON_COMPACT);
        char *un = json_dumps(json_object_get(v, "unshare"), JSON_COMPACT);
        l += (size_t)snprintf(out + l, sizeof out - l, "%s%s %s %s %d", l ? "; " : "", k, cl, un,
                              json_is_true(json_object_get(v, "clone3")));
        free(cl);
        free(un);
    }
    json_decref(abis);
    return out;
}

#define ALLK "[\"cgroup\",\"ipc\",\"mnt\",\"net\",\"pid\",\"user\",\"uts\"]"
#define ALLT "[\"cgroup\",\"ipc\",\"mnt\",\"net\",\"pid\",\"time\",\"user\",\"uts\"]"
#define EACH(s) "x86_64 " s "; x32 " s "; x86 " s

int main(void)
{
    const char *docker[] = {DOCKER}, *user[] = {USER_OPEN}, *net[] = {NET_ONLY},
               *all[] = {ALL_OPEN}, *logged[] = {LOGGED}, *shut[] = {ALL_SHUT},
               *join[] = {DOCKER, USER_OPEN};
    const char *want;

    want = bx_seccomp_abi(0) && strcmp(bx_seccomp_abi(0)->name, "x86_64") == 0 ? "" : NULL;
    if (!want) {
        printf("1..0 # SKIP the cases name the ABIs of amd64\n");
        return 77;
    }
    is_str(fold(docker, 1, 0), EACH("[] [] 0"), "Docker's default: nothing on any ABI");
    is_str(fold(user, 1, 0), EACH("[\"user\"] [] 0"),
           "the mask without CLONE_NEWUSER: clone creates user namespaces, nothing else");
    is_str(fold(net, 1, 0), EACH("[] [\"net\"] 0"), "unshare(CLONE_NEWNET) exactly: net only");
    is_str(fold(all, 1, 0), EACH(ALLK " " ALLT " 1"),
           "everything allowed: every kind, time for unshare only, clone3");
    is_str(fold(logged, 1, 0), EACH(ALLK " " ALLT " 1"), "log is an allowing return");
    is_str(fold(shut, 1, 0), EACH("[] [] 0"), "clone, clone3 and unshare killed");
    is_str(fold(join, 2, 0), EACH("[\"user\"] [] 0"), "two tasks' chains joined");
    is_str(fold(docker, 1, 1), EACH(ALLK " " ALLT " 1"), "a task without seccomp: every kind");
    is_str(fold(NULL, 0, 0), "", "no task: no ABI");

    /* the whole member from a set of tasks */
    {
        bxa_sc_set *s = bxa_sc_set_new();
        bxa_sc_task t;
        prog p = compile(USER_OPEN);
        json_t *o = NULL;
        bx_error e = {0};
        memset(&t, 0, sizeof t);
        t.tid = 7;
        t.state = BXA_SC_READ;
        t.filter[0] = p.insns;
        t.len[0] = p.len;
        t.nfilters = 1;
        ok_err(bxa_sc_set_add(s, &t, &e), &e, "a read task added");
        ok_err(bxa_ns_creation_json(s, "kernel", 42, &o, &e), &e, "namespaceCreation");
        is_str(json_string_value(json_object_get(o, "servedBy")), "kernel", "servedBy");
        is_int(json_integer_value(json_object_get(o, "maxUserNamespaces")), 42, "the limit kept");
        ok(json_is_null(json_object_get(o, "why")), "why null");
        is_str(
            json_string_value(json_array_get(
                json_object_get(json_object_get(json_object_get(o, "abis"), "x86"), "clone"), 0)),
            "user", "the chain's ABIs");
        json_decref(o);
        ok_err(bxa_ns_creation_json(s, "kernel", -1, &o, &e), &e, "limit not read");
        ok(json_is_null(json_object_get(o, "maxUserNamespaces")), "maxUserNamespaces null");
        json_decref(o);
        {
            bxa_sc_task none;
            memset(&none, 0, sizeof none);
            none.tid = 8;
            none.state = BXA_SC_NONE;
            ok_err(bxa_sc_set_add(s, &none, &e), &e, "a task without seccomp added");
            ok_err(bxa_ns_creation_json(s, "kernel", 42, &o, &e), &e, "namespaceCreation");
            is_int(json_array_size(json_object_get(
                       json_object_get(json_object_get(o, "abis"), "x86_64"), "unshare")),
                   8, "a task without seccomp beside a chain: every kind for unshare");
            ok(json_is_true(
                   json_object_get(json_object_get(json_object_get(o, "abis"), "x32"), "clone3")),
               "and clone3");
            json_decref(o);
        }
        t.state = BXA_SC_UNREAD;
        snprintf(t.why, sizeof t.why, "traced by process 9");
        ok_err(bxa_sc_set_add(s, &t, &e), &e, "an unread task added");
        ok_err(bxa_ns_creation_json(s, "sentry", 42, &o, &e), &e, "namespaceCreation");
        ok(json_is_null(json_object_get(o, "abis")), "a task not read: abis null");
        ok(strstr(json_string_value(json_object_get(o, "why")), "could not be read") != NULL,
           "and why");
        is_str(json_string_value(json_object_get(o, "servedBy")), "sentry", "servedBy sentry");
        json_decref(o);
        free(p.insns);
        bxa_sc_set_free(s);
    }
    /* the limit as this process reads it */
    {
        long long max = -2, want_max = -1;
        char buf[32] = "";
        int fd = open("/proc/self", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        FILE *f = fopen("/proc/sys/user/max_user_namespaces", "r");
        if (f) {
            if (fgets(buf, sizeof buf, f))
                want_max = atoll(buf);
            fclose(f);
        }
        bxa_userns_max_read(fd, &max);
        is_int(max, want_max, "user.max_user_namespaces of this process's own user namespace");
        close(fd);
        bxa_userns_max_read(-1, &max);
        is_int(max, -1, "no process: not read");
    }
    /* a process in a user namespace of its own, which sets its limit to 5: read by a child that
     * joins it (the collector's /proc would say the collector's own value) */
    {
        int go[2], ready[2];
        pid_t pid;
        char c = 0;
        if (pipe(go) != 0 || pipe(ready) != 0)
            return 1;
        pid = fork();
        if (pid == 0) {
            int fd;
            close(go[1]);
            close(ready[0]);
            c = unshare(CLONE_NEWUSER) == 0 &&
                        (fd = open("/proc/sys/user/max_user_namespaces", O_WRONLY)) >= 0 &&
                        write(fd, "5\n", 2) == 2
                    ? 'y'
                    : 'n';
            if (write(ready[1], &c, 1) != 1 || read(go[0], &c, 1) < 0)
                _exit(1);
            _exit(0);
        }
        close(go[0]);
        close(ready[1]);
        if (read(ready[0], &c, 1) == 1 && c == 'y') {
            char path[32];
            long long max = -2;
            int fd;
            snprintf(path, sizeof path, "/proc/%d", (int)pid);
            fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
            bxa_userns_max_read(fd, &max);
            is_int(max, 5, "another user namespace's limit, read by joining it");
            close(fd);
        } else {
            ok(getuid() != 0, "a user namespace of its own refused only when not root");
        }
        close(go[1]);
        close(ready[0]);
        waitpid(pid, NULL, 0);
    }
    return tap_done();
}
