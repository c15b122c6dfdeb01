/* SPDX-License-Identifier: Apache-2.0 */
/* Reading the kernel's files for the kernel view (kernel.c and the files it calls): a whole
 * file at a directory descriptor (a /proc/<pid> folder, a cgroup folder), the last step
 * never through a link and the size capped, a process that exited told apart from an
 * error (BX_ENOTFOUND); a process's namespace links; and every file read kept as the
 * kernel's evidence. */
#include "attest_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

const char *const bxa_ns_names[BXA_NS_COUNT] = {"pid",  "ipc",    "uts", "net",
                                                "user", "cgroup", "mnt", "time"};

/* A whole file at dfd/name (no link followed at the last step), at most max bytes. A file
 * that is gone (the process exited) is BX_ENOTFOUND. */
int bxa_read_at(int dfd, const char *name, size_t max, char **buf, size_t *len, bx_error *err)
{
    int fd = openat(dfd, name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY);
    size_t cap = 4096, n = 0;
    char *b = NULL;
    int rc = 0;

    *buf = NULL;
    *len = 0;
    if (fd < 0)
        return errno == ENOENT || errno == ESRCH ? bx_error_set(err, BX_ENOTFOUND, name, "gone")
                                                 : bx_error_errno(err, BX_EIO, name, "cannot open");
    for (;;) {
        ssize_t r;
        if (!b || n + 1 >= cap) {
            char *nb;
            if (b)
                cap *= 2;
            if (cap > max + 2)
                cap = max + 2;
            if (n + 1 >= cap) {
                rc = bx_error_set(err, BX_EINVAL, name, "over %zu bytes", max);
                break;
            }
            if (!(nb = realloc(b, cap))) {
                rc = bxa_oom(err);
                break;
            }
            b = nb;
        }
        r = read(fd, b + n, cap - 1 - n);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0) {
            rc = errno == ESRCH ? bx_error_set(err, BX_ENOTFOUND, name, "gone")
                                : bx_error_errno(err, BX_EIO, name, "cannot read");
            break;
        }
        if (r == 0)
            break;
        n += (size_t)r;
    }
    close(fd);
    if (rc != 0) {
        free(b);
        return rc;
    }
    b[n] = '\0';
    *buf = b;
    *len = n;
    return 0;
}

DIR *bxa_opendir_dup(int dfd)
{
    int fd = fcntl(dfd, F_DUPFD_CLOEXEC, 0);
    DIR *d = fd >= 0 ? fdopendir(fd) : NULL;

    if (!d && fd >= 0)
        close(fd);
    return d;
}

int bxa_keep(bxa_kctx *k, int kind, const char *name, const char *buf, size_t len)
{
    return bxa_evidence_add(k->ev, kind, name, buf, len, k->err);
}

/* readlink of dfd/ns/<name> ("net:[4026531833]") into out; "" when unreadable. */
void bxa_ns_link(int dfd, const char *name, char out[64])
{
    char path[16];
    ssize_t n;

    snprintf(path, sizeof path, "ns/%s", name);
    n = readlinkat(dfd, path, out, 63);
    out[n > 0 ? n : 0] = '\0';
}
