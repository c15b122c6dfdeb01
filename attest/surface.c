/* SPDX-License-Identifier: Apache-2.0 */
/* The write surface as the kernel shows it: one process's mountinfo (read once per mount
 * namespace) folded into the places the session can write. Every writable mount counts but
 * the engine's masks (a /dev/null or an empty read-only tmpfs over a hidden path), with its
 * options and, for a memory-backed file system, its size (size= of its options, else
 * statvfs of the mount point resolved inside the session's root, never outside it); and
 * whether the rootfs and every mount point are read-only. */
#include "attest_internal.h"

#include <fcntl.h>
#include <linux/openat2.h>
#include <string.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <unistd.h>

/* A mount path that is one of the masked paths (a /dev/null or an empty read-only tmpfs the
 * engine put there to hide a file): not a place the session can write to. */
static int masked(const json_t *list, const char *point)
{
    const json_t *v;
    size_t i;

    json_array_foreach(list, i, v)
    {
        if (json_is_string(v) && strcmp(json_string_value(v), point) == 0)
            return 1;
    }
    return 0;
}

static json_t *options_of(const bxa_mount *m)
{
    json_t *r = json_array();
    const char *lists[2] = {m->mnt_opts, m->super_opts};

    for (int l = 0; r && l < 2; l++) {
        for (const char *p = lists[l]; p && *p;) {
            const char *c = strchr(p, ',');
            size_t n = c ? (size_t)(c - p) : strlen(p);
            int dup = 0;
            const json_t *v;
            size_t i;
            json_array_foreach(r, i, v)
            {
                if (json_string_length(v) == n && memcmp(json_string_value(v), p, n) == 0)
                    dup = 1;
            }
            if (n && !dup && json_array_append_new(r, json_stringn_nocheck(p, n)) != 0) {
                json_decref(r);
                return NULL;
            }
            p = c ? c + 1 : NULL;
        }
    }
    bxa_sort_strings(r);
    return r;
}

static int tmpfs_backed(const char *fstype)
{
    return strcmp(fstype, "tmpfs") == 0 || strcmp(fstype, "ramfs") == 0 ||
           strcmp(fstype, "shm") == 0;
}

/* statvfs of point inside the session's root (resolved in that root, never outside it nor
 * through a link):
 * the size of the file system in bytes, or 0. */
static int64_t size_in_root(bxa_kctx *k, const bxa_proc *p, const char *point)
{
    struct open_how how = {.flags = O_PATH | O_CLOEXEC,
                           .resolve = RESOLVE_IN_ROOT | RESOLVE_NO_SYMLINKS |
                                      RESOLVE_NO_MAGICLINKS};
    int root = bxa_root_open(k, p), fd;
    struct statvfs sv;
    int64_t size = 0;

    if (root < 0)
        return 0;
    fd = (int)syscall(SYS_openat2, root, point, &how, sizeof how);
    if (fd >= 0 && fstatvfs(fd, &sv) == 0 && sv.f_frsize > 0 &&
        sv.f_blocks <= (uint64_t)BX_JSON_MAX_INT / sv.f_frsize)
        size = (int64_t)(sv.f_blocks * sv.f_frsize);
    if (fd >= 0)
        close(fd);
    close(root);
    return size;
}

int bxa_fold_mounts(bxa_kctx *k, bxa_weakest *w, bxa_proc *p, const bxa_mount *m, size_t n)
{
    const json_t *mask = json_object_get(k->v->spec, "maskedPaths");
    int rc = 0;

    if (!json_is_array(mask))
        mask = k->s->masked;
    for (size_t i = 0; rc == 0 && i < n; i++) {
        const bxa_mount *e = &m[i];
        int64_t size;
        json_t *opts, *entry;

        if (e != bxa_mount_at(m, n, e->point))
            continue; /* covered by a later mount at the same place */
        if (strcmp(e->point, "/") == 0) {
            w->rootfs_ro = (w->rootfs_seen ? w->rootfs_ro : 1) && !e->writable;
            w->rootfs_seen = 1;
        }
        if (json_object_set_new(w->mounts_ro, e->point, json_boolean(!e->writable)) != 0) {
            rc = bxa_oom(k->err);
            break;
        }
        if (!e->writable || masked(mask, e->point))
            continue;
        size = bxa_mount_size_option(e);
        if (size < 0) {
            rc = bx_error_set(k->err, BX_EINVAL, "mountinfo", "size beyond 2^53 at %s", e->point);
            break;
        }
        if (size == 0 && tmpfs_backed(e->fstype))
            size = size_in_root(k, p, e->point);
        if (!tmpfs_backed(e->fstype))
            size = 0;
        if (!(opts = options_of(e))) {
            rc = bxa_oom(k->err);
            break;
        }
        entry = json_pack("{s:s,s:s,s:o,s:o,s:s,s:s}", "path", e->point, "fsType", e->fstype,
                          "options", opts, "sizeBytes", size > 0 ? json_integer(size) : json_null(),
                          "root", e->root, "source", e->source);
        if (!entry || json_array_append_new(w->surface, entry) != 0)
            rc = bxa_oom(k->err);
    }
    return rc;
}
