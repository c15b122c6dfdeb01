/* SPDX-License-Identifier: Apache-2.0 */
/* The collector's own safety. A session sharing the host's pid namespace with CAP_SYS_PTRACE
 * could trace the collector, read its memory or make it dump core: the collector makes
 * itself non-dumpable, refuses to load a key or sign while any of its tasks has a tracer, and
 * opens what lies beneath a session's root only without following a link (a path there is
 * the session's to change). */
#include "attest_internal.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

void bx_collector_protect(void)
{
    (void)prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
}

int bx_collector_untraced(bx_error *err)
{
    int dfd = open("/proc/self/task", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    DIR *d = dfd >= 0 ? fdopendir(dfd) : NULL;
    struct dirent *e;
    int rc = 0, seen = 0;

    if (!d) {
        if (dfd >= 0)
            close(dfd);
        return bx_error_errno(err, BX_EENV, "/proc/self/task", "cannot list the collector's tasks");
    }
    while (rc == 0 && (e = readdir(d)) != NULL) {
        char path[48], *buf = NULL;
        size_t len;
        bxa_status st;
        if (e->d_name[0] < '0' || e->d_name[0] > '9')
            continue;
        snprintf(path, sizeof path, "%.20s/status", e->d_name);
        rc = bxa_read_at(dirfd(d), path, BXA_PROC_FILE_MAX, &buf, &len, err);
        if (rc == BX_ENOTFOUND) { /* a task that ended meanwhile */
            rc = 0;
            continue;
        }
        if (rc == 0 && (rc = bxa_parse_status(buf, len, &st, err)) == 0) {
            seen++;
            if (st.tracer != 0)
                rc = bx_error_set(err, BX_EENV, "collector",
                                  "task %s of the collector is traced by process %lld: refusing "
                                  "to load a key or sign",
                                  e->d_name, (long long)st.tracer);
        } else if (rc != 0 && rc != BX_ENOMEM) {
            rc = bx_error_set(err, BX_EENV, path, "cannot read the collector's own status");
        }
        free(buf);
    }
    closedir(d);
    if (rc == 0 && seen == 0)
        rc = bx_error_set(err, BX_EENV, "/proc/self/task", "no task of the collector read");
    return rc;
}

int bxa_open_beneath(int dirfd, const char *path, int flags)
{
    struct open_how how = {.flags = (uint64_t)(flags | O_CLOEXEC | O_NOFOLLOW),
                           .resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS |
                                      RESOLVE_NO_MAGICLINKS};
    long fd = syscall(SYS_openat2, dirfd, path, &how, sizeof how);

    if (fd >= 0 || errno != ENOSYS)
        return (int)fd;
    /* without openat2 (an older kernel, valgrind): one component at a time, each opened
     * O_NOFOLLOW (so never through a link, magic links included) and never "..", "." or an
     * empty component (so never above dirfd) */
    char comp[256];
    const char *p = path;
    int cur = dirfd, next;

    if (!*path || *path == '/') {
        errno = EXDEV;
        return -1;
    }
    for (;;) {
        size_t l = strcspn(p, "/");
        int last = p[l] == '\0';
        if (l == 0 || l >= sizeof comp || (l == 1 && p[0] == '.') ||
            (l == 2 && p[0] == '.' && p[1] == '.')) {
            if (cur != dirfd)
                close(cur);
            errno = EXDEV;
            return -1;
        }
        memcpy(comp, p, l);
        comp[l] = '\0';
        next = openat(cur, comp,
                      last ? flags | O_CLOEXEC | O_NOFOLLOW
                           : O_PATH | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
        if (cur != dirfd) {
            int e = errno;
            close(cur);
            errno = e;
        }
        if (next < 0 || last)
            return next;
        cur = next;
        p += l + 1;
    }
}
