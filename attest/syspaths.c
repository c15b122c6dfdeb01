/* SPDX-License-Identifier: Apache-2.0 */
/* containment.systemPaths from the session's mountinfo (runc, crun): whether /proc/bus,
 * /proc/irq, /proc/sys and /proc/sysrq-trigger are read-only (a writable /proc/sys is a
 * writable kernel.core_pattern: host root through a core pipe), and which masked paths are
 * masked. A path is read-only when the mount that shows it and every mount below it are
 * read-only (or when the kernel has no such file: nothing to write); masked when a /dev/null (a file named null on a tmpfs or devtmpfs; on this
 * host's /proc, checked to be the character device 1:3) or a read-only tmpfs is mounted on
 * it; absent when it is not in the session at all (looked up beneath the session's root,
 * never through a link). Every mount namespace of the session is folded in, the weakest
 * kept. */
#include "attest_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

const char *const bxa_sys_ro_paths[4] = {"/proc/bus", "/proc/irq", "/proc/sys",
                                          "/proc/sysrq-trigger"};

/* Docker's default masked paths (moby oci/defaults.go, 20.10), and powercap (later ones). */
const char *const bxa_masked_watched[] = {
    "/proc/acpi",        "/proc/asound",          "/proc/kcore",      "/proc/keys",
    "/proc/latency_stats", "/proc/sched_debug",   "/proc/scsi",       "/proc/timer_list",
    "/proc/timer_stats", "/sys/devices/virtual/powercap", "/sys/firmware", NULL,
};

enum { MASKED = 1, ABSENT = 2, EXPOSED = 3 };
static const char *const mask_words[] = {NULL, "masked", "absent", "exposed"};

/* 1 when point is path or one of its ancestors. */
static int holds(const char *point, const char *path)
{
    size_t n = strlen(point);
    if (strcmp(point, "/") == 0)
        return 1;
    return strncmp(path, point, n) == 0 && (path[n] == '\0' || path[n] == '/');
}

/* The mount that shows path: the last mounted of those at path or above it. */
static const bxa_mount *showing(const bxa_mount *m, size_t n, const char *path)
{
    const bxa_mount *r = NULL;
    for (size_t i = 0; i < n; i++)
        if (holds(m[i].point, path))
            r = &m[i];
    return r;
}

/* 1 read-only, 0 writable, -1 not shown by any mount. */
static int read_only(const bxa_mount *m, size_t n, const char *path)
{
    const bxa_mount *v = showing(m, n, path);

    if (!v)
        return -1;
    if (v->writable)
        return 0;
    for (size_t i = 0; i < n; i++) {
        /* a mount below the path that is itself shown, writable */
        if (strcmp(m[i].point, path) != 0 && holds(path, m[i].point) && m[i].writable &&
            showing(m, n, m[i].point) == &m[i])
            return 0;
    }
    return 1;
}

static int ends_null(const char *root)
{
    size_t n = strlen(root);
    return n >= 5 && strcmp(root + n - 5, "/null") == 0;
}

/* The state of one masked path in one mount namespace; rootfd: the session's root. */
static int mask_state(bxa_kctx *k, int rootfd, const bxa_mount *m, size_t n, const char *path)
{
    const bxa_mount *v = showing(m, n, path);
    int fd;

    if (v && strcmp(v->point, path) == 0) {
        int tmp = strcmp(v->fstype, "tmpfs") == 0, dev = strcmp(v->fstype, "devtmpfs") == 0;
        if (tmp && !v->writable)
            return MASKED; /* a read-only tmpfs over a folder */
        if ((tmp || dev) && ends_null(v->root)) {
            struct stat st;
            if (!k->real_proc)
                return MASKED;
            if (rootfd >= 0 && (fd = bxa_open_beneath(rootfd, path + 1, O_PATH)) >= 0) {
                int null = fstat(fd, &st) == 0 && S_ISCHR(st.st_mode) && major(st.st_rdev) == 1 &&
                           minor(st.st_rdev) == 3;
                close(fd);
                if (null)
                    return MASKED;
            }
        }
        return EXPOSED;
    }
    if (rootfd < 0)
        return EXPOSED;
    fd = bxa_open_beneath(rootfd, path + 1, O_PATH);
    if (fd >= 0) {
        close(fd);
        return EXPOSED;
    }
    return errno == ENOENT ? ABSENT : EXPOSED;
}

static int fold_mask(bxa_kctx *k, bxa_weakest *w, int rootfd, const bxa_mount *m, size_t n,
                     const char *path)
{
    const char *was;
    int state, old = 0;

    if (!path || path[0] != '/')
        return 0;
    state = mask_state(k, rootfd, m, n, path);
    if ((was = json_string_value(json_object_get(w->masks, path))))
        for (int i = 1; i <= 3; i++)
            if (strcmp(was, mask_words[i]) == 0)
                old = i;
    if (state > old && json_object_set_new(w->masks, path, json_string(mask_words[state])) != 0)
        return bxa_oom(k->err);
    return 0;
}

int bxa_fold_syspaths(bxa_kctx *k, bxa_weakest *w, bxa_proc *p, const bxa_mount *m, size_t n)
{
    const json_t *lists[2] = {json_object_get(k->v->spec, "maskedPaths"), k->s->masked}, *v;
    int rootfd = bxa_root_open(k, p), rc = 0;
    size_t i;

    for (int r = 0; r < 4; r++) {
        int ro = read_only(m, n, bxa_sys_ro_paths[r]);
        if (ro == 0 && rootfd >= 0) {
            /* a path this kernel does not have is nothing the session can write */
            int fd = bxa_open_beneath(rootfd, bxa_sys_ro_paths[r] + 1, O_PATH);
            if (fd >= 0)
                close(fd);
            else if (errno == ENOENT)
                ro = 1;
        }
        if (ro < 0)
            continue;
        w->sys_ro[r] = w->sys_ro[r] < 0 ? ro : (w->sys_ro[r] && ro);
    }
    for (const char *const *wp = bxa_masked_watched; rc == 0 && *wp; wp++)
        rc = fold_mask(k, w, rootfd, m, n, *wp);
    for (int l = 0; rc == 0 && l < 2; l++)
        json_array_foreach(lists[l], i, v)
        {
            if (rc == 0)
                rc = fold_mask(k, w, rootfd, m, n, json_string_value(v));
        }
    if (rootfd >= 0)
        close(rootfd);
    return rc;
}
