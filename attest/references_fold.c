/* SPDX-License-Identifier: Apache-2.0 */
/* containment.references (v3): what a session's task holds beyond its descriptors — its
 * cwd, root and exe, its file mappings, the files registered with its io_urings — placed
 * by the mount each lies on, as descriptors are (docs/collector.md "References"). */
#include "attest_internal.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAPS_MAX (8u << 20)
#define FDINFO_MAX (256u * 1024)

/* The mount id of what name under dfd names (a magic link: cwd, root, exe,
 * map_files/<range>), opened O_PATH by this process: 0 with *mnt and *st, -1 with errno
 * when it cannot be opened, BX_* on an error. */
static int place(bxa_kctx *k, int dfd, const char *name, int64_t *mnt, struct stat *st)
{
    char info[64], *buf = NULL;
    size_t len;
    bx_error ign = {0};
    int fd = openat(dfd, name, O_PATH | O_CLOEXEC), rc;

    if (fd < 0)
        return -1;
    if (fstat(fd, st) != 0) {
        int e = errno;
        close(fd);
        errno = e;
        return -1;
    }
    snprintf(info, sizeof info, "/proc/self/fdinfo/%d", fd);
    rc = bxa_read_at(AT_FDCWD, info, 4096, &buf, &len, &ign);
    close(fd);
    if (rc != 0) {
        free(buf);
        errno = EIO;
        return -1;
    }
    rc = bxa_parse_fdinfo_mnt(buf, len, mnt, k->err);
    free(buf);
    return rc;
}

static int has_mount(const bxa_mntns *mn, int64_t id)
{
    for (size_t i = 0; i < mn->nmount_ids; i++)
        if (mn->mount_ids[i] == id)
            return 1;
    return 0;
}

static const char *kind_of(const struct stat *st)
{
    return S_ISDIR(st->st_mode)                           ? "host-directory"
           : S_ISCHR(st->st_mode) || S_ISBLK(st->st_mode) ? "host-device"
                                                          : "host-file";
}

static int add_ref(bxa_kctx *k, json_t *list, int64_t pid, const char *via, const char *kind,
                   const char *target, const char *perms)
{
    json_t *e = json_pack("{s:I,s:s,s:s,s:s,s:s?}", "pid", (json_int_t)pid, "via", via, "kind",
                          kind, "target", target, "perms", perms);
    if (e && !perms && json_object_set_new(e, "perms", json_null()) != 0) {
        json_decref(e);
        e = NULL;
    }
    if (!e || json_array_append_new(list, e) != 0)
        return bxa_oom(k->err);
    return 0;
}

/* One already in the list (a file mapped in several ranges is one reference). */
static int listed(const json_t *list, int64_t pid, const char *via, const char *target,
                  const char *perms)
{
    const json_t *e;
    size_t i;

    json_array_foreach(list, i, e)
    {
        const char *t = json_string_value(json_object_get(e, "target")),
                   *v = json_string_value(json_object_get(e, "via")),
                   *p = json_string_value(json_object_get(e, "perms"));
        if (json_integer_value(json_object_get(e, "pid")) == pid && t && v &&
            strcmp(t, target) == 0 && strcmp(v, via) == 0 &&
            ((!p && !perms) || (p && perms && strcmp(p, perms) == 0)))
            return 1;
    }
    return 0;
}

/* cwd, root, exe (first n of them) at dfd: outside when on a mount the task's namespace does
 * not have. */
static int links_at(bxa_kctx *k, json_t *refs, bxa_proc *p, int dfd, size_t n_names,
                    const bxa_mntns *mn)
{
    static const char *const names[] = {"cwd", "root", "exe"};

    for (size_t i = 0; i < n_names && i < 3; i++) {
        char target[4096];
        struct stat st;
        int64_t mnt;
        ssize_t n;
        int rc = place(k, dfd, names[i], &mnt, &st);

        if (rc > 0)
            return rc;
        if (rc < 0) {
            if (errno == ENOENT || errno == ESRCH)
                continue; /* a kernel thread's exe, or the task gone */
            if (!listed(refs, p->pid, names[i], names[i], NULL) &&
                (rc = add_ref(k, refs, p->pid, names[i], "unplaced", names[i], NULL)) != 0)
                return rc;
            continue;
        }
        if (has_mount(mn, mnt))
            continue;
        if ((n = readlinkat(dfd, names[i], target, sizeof target - 1)) <= 0)
            snprintf(target, sizeof target, "%s", names[i]);
        else
            target[n] = '\0';
        if (listed(refs, p->pid, names[i], target, NULL))
            continue;
        if ((rc = add_ref(k, refs, p->pid, names[i], kind_of(&st), target, NULL)) != 0)
            return rc;
    }
    return 0;
}

/* The process's cwd, root and exe, then every other task's cwd and root: a thread that
 * unshared its file-system context (unshare(CLONE_FS), clone without CLONE_FS) has its own,
 * which the leader's links do not show. The exe is the memory's, one for all. */
static int links(bxa_kctx *k, json_t *refs, bxa_proc *p, const bxa_mntns *mn)
{
    int rc = links_at(k, refs, p, p->dfd, 3, mn), tdir;
    DIR *d;
    struct dirent *e;

    if (rc != 0)
        return rc;
    if ((tdir = openat(p->dfd, "task", O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
        return 0;
    if (!(d = fdopendir(tdir))) {
        close(tdir);
        return 0;
    }
    while (rc == 0 && (e = readdir(d)) != NULL) {
        char *end;
        long long tid = strtoll(e->d_name, &end, 10);
        int td;

        if (*end || tid <= 0 || tid == p->pid)
            continue;
        if ((td = openat(dirfd(d), e->d_name, O_PATH | O_DIRECTORY | O_CLOEXEC)) < 0)
            continue; /* the task gone */
        rc = links_at(k, refs, p, td, 2, mn);
        close(td);
    }
    closedir(d);
    return rc;
}

/* The file mappings: each placed by the mount map_files/<range> lies on. */
static int mappings(bxa_kctx *k, json_t *refs, bxa_proc *p, const bxa_mntns *mn)
{
    char *buf = NULL;
    size_t len, n = 0;
    bxa_mapping *m = NULL;
    bx_error ign = {0};
    int rc;

    if (bxa_read_at(p->dfd, "maps", MAPS_MAX, &buf, &len, &ign) != 0) {
        free(buf);
        if (ign.code == BX_ENOTFOUND)
            return 0; /* gone */
        return add_ref(k, refs, p->pid, "mapping", "unplaced", "maps", NULL);
    }
    rc = bxa_parse_maps(buf, len, &m, &n, &ign);
    free(buf);
    if (rc != 0)
        return add_ref(k, refs, p->pid, "mapping", "unplaced", "maps", NULL);
    for (size_t i = 0; rc == 0 && i < n; i++) {
        char range[80], perms[5];
        struct stat st;
        int64_t mnt;
        int r;

        if (bxa_mapping_where(&m[i], NULL, 0) != BXA_REF_OUTSIDE)
            continue; /* no file, or an object on the kernel's internal mounts */
        snprintf(perms, sizeof perms, "%c%c%c%c", m[i].read ? 'r' : '-', m[i].write ? 'w' : '-',
                 m[i].exec ? 'x' : '-', m[i].shared ? 's' : 'p');
        snprintf(range, sizeof range, "map_files/%llx-%llx", (unsigned long long)m[i].start,
                 (unsigned long long)m[i].end);
        r = place(k, p->dfd, range, &mnt, &st);
        if (r > 0) {
            rc = r;
            break;
        }
        if (r < 0 && errno == ENOENT)
            continue; /* unmapped since */
        if (r == 0 && has_mount(mn, mnt))
            continue; /* on the task's own mounts */
        {
            const char *t = m[i].path ? m[i].path : "?";
            const char *kind = r < 0 ? "unplaced" : kind_of(&st);
            if (!listed(refs, p->pid, "mapping", t, perms))
                rc = add_ref(k, refs, p->pid, "mapping", kind, t, perms);
        }
    }
    bxa_mappings_free(m, n);
    return rc;
}

/* The files registered with each io_uring the task holds: the kernel names them but shows
 * no mount, so each one is recorded unplaced; a ring whose files are not listed is one
 * unplaced reference. */
static int urings(bxa_kctx *k, json_t *refs, bxa_proc *p)
{
    int fdd = openat(p->dfd, "fd", O_RDONLY | O_DIRECTORY | O_CLOEXEC), dup_fd, rc = 0;
    DIR *d;
    struct dirent *e;

    if (fdd < 0)
        return 0;
    if ((dup_fd = dup(fdd)) < 0 || !(d = fdopendir(dup_fd))) {
        if (dup_fd >= 0)
            close(dup_fd);
        close(fdd);
        return 0;
    }
    while (rc == 0 && (e = readdir(d)) != NULL) {
        char link[64], info[64], *buf = NULL;
        ssize_t n = readlinkat(fdd, e->d_name, link, sizeof link - 1);
        json_t *files = NULL;
        const json_t *f;
        size_t len, i;
        bx_error ign = {0};

        char *end;
        long long fd = strtoll(e->d_name, &end, 10);

        if (n <= 0 || *end || fd < 0)
            continue;
        link[n] = '\0';
        if (strcmp(link, "anon_inode:[io_uring]") != 0)
            continue;
        snprintf(info, sizeof info, "fdinfo/%lld", fd);
        if (bxa_read_at(p->dfd, info, FDINFO_MAX, &buf, &len, &ign) != 0 ||
            bxa_parse_io_uring_files(buf, len, &files, &ign) != 0) {
            char t[64];
            free(buf);
            json_decref(files);
            snprintf(t, sizeof t, "io_uring fd %lld", fd);
            rc = add_ref(k, refs, p->pid, "io_uring", "unplaced", t, NULL);
            continue;
        }
        free(buf);
        json_array_foreach(files, i, f)
        {
            const char *t = json_string_value(f);
            if (!t || strncmp(t, "socket:[", 8) == 0 || strncmp(t, "anon_inode:", 11) == 0 ||
                strncmp(t, "pipe:[", 6) == 0 || listed(refs, p->pid, "io_uring", t, NULL))
                continue; /* kernel objects, judged where they are channels */
            if ((rc = add_ref(k, refs, p->pid, "io_uring", "unplaced", t, NULL)) != 0)
                break;
        }
        json_decref(files);
    }
    closedir(d);
    close(fdd);
    return rc;
}

int bxa_fold_refs(bxa_kctx *k, json_t *refs, bxa_proc *p, const bxa_mntns *mn)
{
    int rc;

    if (!mn)
        return 0;
    if ((rc = links(k, refs, p, mn)) != 0 || (rc = mappings(k, refs, p, mn)) != 0)
        return rc;
    return urings(k, refs, p);
}
