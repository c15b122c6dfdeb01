/* SPDX-License-Identifier: Apache-2.0 */
/* containment.sysctls from the kernel: the namespaced sysctls as the session's own
 * namespaces hold them. The kernel resolves /proc/sys/net/..., the ipc sysctls (kernel.shm*,
 * kernel.msg*, kernel.sem, fs.mqueue.*) and the uts ones (kernel.hostname, kernel.domainname)
 * in the namespaces of the task that *reads* them, not of the procfs mount: read through the
 * session's /proc/<pid>/root/proc/sys they are the collector's own host values. So a helper
 * thread joins the session's net, ipc and uts namespaces (setns on descriptors of the
 * session's init process, opened beneath its /proc/<pid> descriptor) and reads its own
 * /proc/sys; nothing inside the session's root is ever opened. */
#include "attest_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <string.h>
#include <unistd.h>

#define VALUE_MAX 4096

/* The sysctls read whatever the engine set (docs/collector.md, "sysctls"): those that
 * widen what an unprivileged process of the session may do on its network. */
const char *const bxa_sysctl_watched[] = {
    "net.ipv4.conf.all.route_localnet",
    "net.ipv4.ip_forward",
    "net.ipv4.ip_unprivileged_port_start",
    "net.ipv4.ping_group_range",
    NULL,
};

/* "net.ipv4.ip_forward" -> "net/ipv4/ip_forward"; -1 unless words of [a-z0-9_-] joined by
 * single dots (so the path has no "..", no "/" of its own and no empty component). */
static int sysctl_path(const char *name, char *out, size_t n)
{
    size_t len = strlen(name), word = 0;
    if (len == 0 || len >= n)
        return -1;
    for (size_t i = 0; i < len; i++) {
        char c = name[i];
        if (c == '.') {
            if (!word)
                return -1;
            word = 0;
            out[i] = '/';
        } else if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '-') {
            word++;
            out[i] = c;
        } else {
            return -1;
        }
    }
    out[len] = '\0';
    return word ? 0 : -1;
}

int bxa_sysctl_name_ok(const char *name)
{
    char path[256];
    return sysctl_path(name, path, sizeof path) == 0;
}

/* A value with every run of whitespace as one space, none at either end. */
static json_t *normalised(const char *buf, size_t len)
{
    char out[VALUE_MAX + 1];
    size_t o = 0;
    int space = 0;

    for (size_t i = 0; i < len; i++) {
        char c = buf[i];
        if (c == ' ' || c == '\t' || c == '\n') {
            space = o > 0;
            continue;
        }
        if ((unsigned char)c < 0x20 || c == 0x7f)
            return json_null(); /* not a value this collector records */
        if (space)
            out[o++] = ' ';
        space = 0;
        out[o++] = c;
    }
    out[o] = '\0';
    return json_string(out);
}

typedef struct {
    int ns[3]; /* net, ipc, uts of the session */
    const json_t *names;
    json_t *values; /* filled by the thread */
    int failed;     /* setns refused: every value stays null */
    int oom;
} job;

static void *reader(void *arg)
{
    static const int types[3] = {CLONE_NEWNET, CLONE_NEWIPC, CLONE_NEWUTS};
    job *j = arg;
    int dir = -1;
    const char *name;
    const json_t *v;

    for (int i = 0; i < 3; i++)
        if (setns(j->ns[i], types[i]) != 0) {
            j->failed = 1;
            return NULL;
        }
    dir = open("/proc/sys", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    json_object_foreach((json_t *)j->names, name, v)
    {
        char path[256], buf[VALUE_MAX];
        json_t *val = json_null();
        int fd;
        ssize_t got = -1;

        if (dir >= 0 && sysctl_path(name, path, sizeof path) == 0 &&
            (fd = openat(dir, path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)) >= 0) {
            got = read(fd, buf, sizeof buf);
            close(fd);
        }
        if (got >= 0 && got < (ssize_t)sizeof buf)
            val = normalised(buf, (size_t)got);
        if (!val || json_object_set_new(j->values, name, val) != 0)
            j->oom = 1;
    }
    if (dir >= 0)
        close(dir);
    return NULL;
}

int bxa_sysctl_read(int proc_dfd, const json_t *names, json_t **out, bx_error *err)
{
    static const char *const ns_files[3] = {"ns/net", "ns/ipc", "ns/uts"};
    job j = {.ns = {-1, -1, -1}, .names = names, .values = json_object()};
    pthread_t t;
    int rc = 0;

    *out = NULL;
    if (!j.values)
        return bx_error_set(err, BX_ENOMEM, NULL, "out of memory");
    for (int i = 0; i < 3; i++)
        j.ns[i] = openat(proc_dfd, ns_files[i], O_RDONLY | O_CLOEXEC);
    if (j.ns[0] < 0 || j.ns[1] < 0 || j.ns[2] < 0)
        j.failed = 1;
    else if (pthread_create(&t, NULL, reader, &j) != 0)
        j.failed = 1;
    else
        pthread_join(t, NULL);
    for (int i = 0; i < 3; i++)
        if (j.ns[i] >= 0)
            close(j.ns[i]);
    if (j.oom) {
        rc = bx_error_set(err, BX_ENOMEM, NULL, "out of memory");
        goto out;
    }
    if (j.failed) { /* not readable here (no CAP_SYS_ADMIN, another user namespace): null */
        const char *name;
        const json_t *v;
        json_object_clear(j.values);
        json_object_foreach((json_t *)names, name, v)
        {
            if (json_object_set_new(j.values, name, json_null()) != 0) {
                rc = bx_error_set(err, BX_ENOMEM, NULL, "out of memory");
                goto out;
            }
        }
    }
    *out = j.values;
    j.values = NULL;
out:
    json_decref(j.values);
    return rc;
}
