/* SPDX-License-Identifier: Apache-2.0 */
/* containment.hostObjects (v2): what of this host the session's mounts reach, judged by the
 * host object's identity (device and inode), never by the engine's path for it.
 *
 * The host objects are fixed (docs/collector.md): the engine's, containerd's and other
 * runtimes' sockets and state folders, this host's procfs and sysfs, the collector's signing
 * key and its folder, and this host's root. Each is found here by its path, and known by its
 * device, its inode and its path within its file system (the collector's own mountinfo: the
 * mount showing the path, its root plus the rest of the path).
 *
 * A mount of the session (a line of its mountinfo) exposes an object when it is of the same
 * device and its root within that file system is the object's path or an ancestor of it (a
 * bind of a parent folder is found without walking), or, for a state folder, a descendant of
 * it; any mount of this host's procfs or sysfs exposes it whole. A hard link to a forbidden
 * file elsewhere in the same file system is found only by walking: done only when the object
 * has more than one link, beneath the session's own root without following links, bounded by
 * depth and entries; a bound reached, or a part of the walk covered by another mount, gives
 * "unknown", never "absent". fuse, nfs, cifs, 9p and the like are never walked nor opened (a
 * session's FUSE server could hang the collector): recorded as uninspected. Some file system
 * types are forbidden whatever they hold: devtmpfs, a writable cgroup v1 hierarchy, debugfs,
 * tracefs, securityfs, bpf, nsfs, efivarfs, configfs; one mount of devtmpfs is not: a
 * read-only bind of the null device (character 1:3) alone, as crun masks a path with the host's
 * /dev/null (the session gets that node and nothing else of the file system). */

#include "attest_internal.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

/* Where an object is looked for on this host. below: a state folder, reached also by a mount
 * of anything inside it. whole: a file system reached by any mount of it. */
static const struct {
    const char *what, *path;
    int below, whole;
} candidates[] = {
    {"engine socket", "/run/docker.sock", 0, 0},
    {"engine socket", "/var/run/docker.sock", 0, 0},
    {"containerd socket", "/run/containerd/containerd.sock", 0, 0},
    {"containerd socket", "/run/containerd/containerd.sock.ttrpc", 0, 0},
    {"containerd socket", "/run/docker/containerd/containerd.sock", 0, 0},
    {"containerd socket", "/run/docker/containerd/containerd.sock.ttrpc", 0, 0},
    {"containerd socket", "/run/docker/containerd/containerd-debug.sock", 0, 0},
    {"runtime socket", "/run/podman/podman.sock", 0, 0},
    {"runtime socket", "/run/crio/crio.sock", 0, 0},
    {"runtime socket", "/run/buildkit/buildkitd.sock", 0, 0},
    {"runtime socket", "/run/k3s/containerd/containerd.sock", 0, 0},
    {"runtime socket", "/run/cri-dockerd.sock", 0, 0},
    {"engine folder", "/run/docker", 1, 0},
    {"engine folder", "/run/containerd", 1, 0},
    {"engine folder", "/run/podman", 1, 0},
    {"engine folder", "/run/crio", 1, 0},
    {"host procfs", "/proc", 0, 1},
    {"host sysfs", "/sys", 0, 1},
    {"host root", "/", 0, 0},
};

/* The walk for hard links: at most this deep, this many entries per mount. */
#define WALK_DEPTH 16
#define WALK_ENTRIES 20000

int bxa_path_within(const char *anc, const char *p)
{
    size_t n = strlen(anc);

    if (strcmp(anc, "/") == 0)
        return p[0] == '/';
    return strncmp(anc, p, n) == 0 && (p[n] == '\0' || p[n] == '/');
}

int bxa_fstype_class(const bxa_mount *e)
{
    static const char *const forbidden[] = {"devtmpfs", "debugfs",  "tracefs",  "securityfs",
                                            "bpf",      "nsfs",     "efivarfs", "configfs"};
    static const char *const remote[] = {"fuse",  "fuseblk", "nfs",  "nfs4", "cifs", "smb3",
                                         "9p",    "ceph",    "glusterfs", "afs",  "virtiofs",
                                         "sshfs", "lustre",  "gfs2", "ocfs2"};
    const char *t = e->fstype;

    for (size_t i = 0; i < sizeof forbidden / sizeof *forbidden; i++)
        if (strcmp(t, forbidden[i]) == 0)
            return BXA_FS_FORBIDDEN;
    /* a v1 hierarchy the session may write: its release_agent runs on this host */
    if (strcmp(t, "cgroup") == 0 && e->writable)
        return BXA_FS_FORBIDDEN;
    if (strncmp(t, "fuse.", 5) == 0)
        return BXA_FS_UNINSPECTED;
    for (size_t i = 0; i < sizeof remote / sizeof *remote; i++)
        if (strcmp(t, remote[i]) == 0)
            return BXA_FS_UNINSPECTED;
    return BXA_FS_PLAIN;
}

int bxa_masking_null(const bxa_mount *e, const struct stat *st)
{
    return strcmp(e->fstype, "devtmpfs") == 0 && !e->writable && st && S_ISCHR(st->st_mode) &&
           major(st->st_rdev) == 1 && minor(st->st_rdev) == 3 && major(st->st_dev) == e->major &&
           minor(st->st_dev) == e->minor;
}

int bxa_fs_path(const bxa_mount *hm, size_t n, const char *path, unsigned major, unsigned minor,
                char **out)
{
    const bxa_mount *best = NULL;
    size_t best_len = 0, rl, pl;
    const char *rest;
    char *s;

    *out = NULL;
    for (size_t i = 0; i < n; i++) {
        size_t l = strlen(hm[i].point);
        if (bxa_path_within(hm[i].point, path) && (!best || l >= best_len)) {
            best = &hm[i];
            best_len = l;
        }
    }
    if (!best || best->major != major || best->minor != minor)
        return BX_ENOTFOUND; /* not shown by a mount of its own device: cannot place it */
    rest = strcmp(best->point, "/") == 0 ? path : path + best_len; /* "" or "/..." */
    if (strcmp(rest, "/") == 0)
        rest = "";
    rl = strlen(best->root);
    pl = strlen(rest);
    if (!(s = malloc(rl + pl + 2)))
        return BX_ENOMEM;
    if (strcmp(best->root, "/") == 0)
        snprintf(s, rl + pl + 2, "%s", *rest ? rest : "/");
    else
        snprintf(s, rl + pl + 2, "%s%s", best->root, rest);
    *out = s;
    return 0;
}

int bxa_hostobj_exposes(const bxa_hostobj *o, const bxa_mount *e)
{
    if (e->major != o->major || e->minor != o->minor)
        return BXA_REACH_NO;
    if (o->whole)
        return BXA_REACH_YES;
    if (!o->fs_path)
        return BXA_REACH_UNKNOWN;
    if (bxa_path_within(e->root, o->fs_path))
        return BXA_REACH_YES;
    if (o->below && bxa_path_within(o->fs_path, e->root))
        return BXA_REACH_YES;
    /* elsewhere in the same file system: only a hard link can make it reachable there */
    if (!o->is_dir && o->nlink > 1)
        return BXA_REACH_WALK;
    return BXA_REACH_NO;
}

/* Walk dirfd (a directory on the object's device) for an entry that is (dev, ino). */
static int walk(int fd, dev_t dev, ino_t ino, int depth, size_t *budget)
{
    DIR *d = fdopendir(fd);
    struct dirent *de;
    int result = BXA_REACH_NO;

    if (!d) {
        close(fd);
        return BXA_REACH_UNKNOWN;
    }
    while (result != BXA_REACH_YES && (errno = 0, de = readdir(d)) != NULL) {
        struct stat st;
        int sub;
        if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
            continue;
        if (*budget == 0) {
            result = BXA_REACH_UNKNOWN;
            break;
        }
        (*budget)--;
        if (fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0) {
            if (errno != ENOENT) /* gone meanwhile: nothing there now */
                result = BXA_REACH_UNKNOWN;
            continue;
        }
        if (st.st_dev != dev) {
            /* another mount covers this place: what it hides is not seen here */
            result = BXA_REACH_UNKNOWN;
            continue;
        }
        if (st.st_ino == ino && !S_ISDIR(st.st_mode)) {
            result = BXA_REACH_YES;
            break;
        }
        if (!S_ISDIR(st.st_mode))
            continue;
        if (depth == 0) {
            result = BXA_REACH_UNKNOWN;
            continue;
        }
        sub = openat(dirfd(d), de->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (sub < 0) {
            if (errno != ENOENT)
                result = BXA_REACH_UNKNOWN;
            continue;
        }
        {
            int r = walk(sub, dev, ino, depth - 1, budget);
            if (r == BXA_REACH_YES || (r == BXA_REACH_UNKNOWN && result == BXA_REACH_NO))
                result = r;
        }
    }
    if (!de && errno != 0 && result == BXA_REACH_NO)
        result = BXA_REACH_UNKNOWN;
    closedir(d);
    return result;
}

int bxa_find_link(int fd, const bxa_hostobj *o, size_t entries)
{
    struct stat st;
    dev_t dev = makedev(o->major, o->minor);
    size_t budget = entries;
    int dir;

    if (fstat(fd, &st) != 0 || st.st_dev != dev) {
        close(fd); /* unreadable, or covered at the mount point itself */
        return BXA_REACH_UNKNOWN;
    }
    if (!S_ISDIR(st.st_mode)) {
        close(fd);
        return st.st_ino == (ino_t)o->ino ? BXA_REACH_YES : BXA_REACH_NO;
    }
    dir = openat(fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    close(fd);
    if (dir < 0)
        return BXA_REACH_UNKNOWN;
    return walk(dir, dev, (ino_t)o->ino, WALK_DEPTH, &budget);
}

void bxa_hostobjs_free(bxa_hostobj *o, size_t n)
{
    for (size_t i = 0; o && i < n; i++) {
        free(o[i].fs_path);
        free(o[i].path);
    }
    free(o);
}

/* One candidate: found (1), absent (0) or an error. */
static int add_object(bxa_kctx *k, const char *what, const char *path, int below, int whole)
{
    char real[PATH_MAX];
    struct stat st;
    bxa_hostobj *o;
    int rc;

    if (!realpath(path, real) || lstat(real, &st) != 0)
        return 0; /* this host has no such object */
    for (size_t i = 0; i < k->nhobj; i++)
        if (k->hobj[i].major == major(st.st_dev) && k->hobj[i].minor == minor(st.st_dev) &&
            k->hobj[i].ino == (uint64_t)st.st_ino && k->hobj[i].whole == whole)
            return 0; /* the same object by another path (/var/run -> /run) */
    if (k->nhobj == BXA_HOSTOBJ_MAX)
        return 0;
    o = &k->hobj[k->nhobj];
    memset(o, 0, sizeof *o);
    o->what = what;
    o->below = below;
    o->whole = whole;
    o->major = major(st.st_dev);
    o->minor = minor(st.st_dev);
    o->ino = (uint64_t)st.st_ino;
    o->nlink = (uint64_t)st.st_nlink;
    o->is_dir = S_ISDIR(st.st_mode);
    if (!(o->path = strdup(real)))
        return bxa_oom(k->err);
    rc = bxa_fs_path(k->hm, k->nhm, real, o->major, o->minor, &o->fs_path);
    if (rc == BX_ENOMEM) {
        free(o->path);
        return bxa_oom(k->err);
    }
    k->nhobj++;
    return 0;
}

int bxa_host_objects(bxa_kctx *k)
{
    int rc = 0;

    if (k->hobj_read)
        return 0;
    k->hobj_read = 1;
    if (!k->real_proc || !k->hm) {
        k->hobj_unknown = !k->real_proc ? "not this host's procfs" : "this host's mountinfo unread";
        return 0;
    }
    if (!(k->hobj = calloc(BXA_HOSTOBJ_MAX, sizeof *k->hobj)))
        return bxa_oom(k->err);
    if (k->s->socket && k->s->socket[0] == '/')
        rc = add_object(k, "engine socket", k->s->socket, 0, 0);
    for (size_t i = 0; rc == 0 && i < sizeof candidates / sizeof *candidates; i++)
        rc = add_object(k, candidates[i].what, candidates[i].path, candidates[i].below,
                        candidates[i].whole);
    /* any other listening socket bound to an engine's path (descriptors.c found them) */
    for (size_t i = 0; rc == 0 && i < k->nengine; i++)
        if (k->engine_path[i][0] == '/')
            rc = add_object(k, "runtime socket", k->engine_path[i], 0, 0);
    for (size_t i = 0; rc == 0 && i < k->s->nsigning_keys; i++) {
        char folder[PATH_MAX], *slash;
        if (!realpath(k->s->signing_keys[i], folder))
            continue;
        rc = add_object(k, "signing key", folder, 0, 0);
        slash = strrchr(folder, '/');
        if (rc == 0 && slash) {
            *(slash == folder ? slash + 1 : slash) = '\0';
            rc = add_object(k, "signing key folder", folder, 0, 0);
        }
    }
    return rc;
}

static const char *object_type(mode_t m)
{
    return S_ISDIR(m)    ? "directory"
           : S_ISREG(m)  ? "file"
           : S_ISSOCK(m) ? "socket"
           : S_ISFIFO(m) ? "fifo"
           : S_ISLNK(m)  ? "symlink"
           : S_ISCHR(m)  ? "char-device"
           : S_ISBLK(m)  ? "block-device"
                         : "other";
}

/* The host path of a mount's object: through a mount of this host of the same device whose
 * root holds the session mount's root, the one nearest the file system's own root first (so
 * a volume bound to /run is /run, not the volume's folder), the inode checked there. NULL
 * when no path of this host shows it. */
static char *host_path(const bxa_kctx *k, const bxa_mount *e, const struct stat *obj)
{
    size_t last_len = 0;
    int64_t last_id = -1;

    for (size_t tried = 0; tried < k->nhm; tried++) {
        const bxa_mount *best = NULL;
        size_t best_len = 0;
        char p[PATH_MAX];
        const char *rest;
        struct stat st;
        for (size_t i = 0; i < k->nhm; i++) {
            const bxa_mount *h = &k->hm[i];
            size_t l = strlen(h->root);
            if (h->major != e->major || h->minor != e->minor || !bxa_path_within(h->root, e->root))
                continue;
            /* in order of (root length, mount id), after the last one tried */
            if (tried && (l < last_len || (l == last_len && h->id <= last_id)))
                continue;
            if (!best || l < best_len || (l == best_len && h->id < best->id)) {
                best = h;
                best_len = l;
            }
        }
        if (!best)
            return NULL;
        last_len = best_len;
        last_id = best->id;
        rest = strcmp(best->root, "/") == 0 ? e->root : e->root + best_len;
        if (strcmp(rest, "/") == 0)
            rest = "";
        if (snprintf(p, sizeof p, "%s%s", strcmp(best->point, "/") == 0 ? "" : best->point, rest) >=
            (int)sizeof p)
            continue;
        if (!p[0])
            snprintf(p, sizeof p, "/");
        if (lstat(p, &st) == 0 && st.st_dev == obj->st_dev && st.st_ino == obj->st_ino)
            return strdup(p);
    }
    return NULL;
}

static char *device_text(unsigned major, unsigned minor)
{
    char b[32];
    snprintf(b, sizeof b, "%u:%u", major, minor);
    return strdup(b);
}

static int add_via(bxa_weakest *w, size_t i, const char *point)
{
    json_t *via, *v;
    size_t j;

    if (!w->hobj_via && !(w->hobj_via = json_object()))
        return -1;
    {
        char key[24];
        snprintf(key, sizeof key, "%zu", i);
        if (!(via = json_object_get(w->hobj_via, key))) {
            if (!(via = json_array()) || json_object_set_new(w->hobj_via, key, via) != 0)
                return -1;
        }
    }
    json_array_foreach(via, j, v) if (strcmp(json_string_value(v), point) == 0) return 0;
    return json_array_append_new(via, json_string(point));
}

/* Add entry to list unless one of the same place is there (destination, fsType and, when
 * the entries have them, root and device): a mount stacked on an identical one is one place.
 * Of two, the one that says more (an inode read) is kept; of two forbidden-type mounts, the
 * place is read-only only when both are. Takes entry. */
static int add_unique(json_t *list, json_t *entry)
{
    static const char *const keys[] = {"destination", "fsType", "root", "device"};
    json_t *v;
    size_t i;

    if (!entry)
        return -1;
    json_array_foreach(list, i, v)
    {
        int same = 1;
        for (size_t k = 0; same && k < sizeof keys / sizeof *keys; k++) {
            const char *a = json_string_value(json_object_get(v, keys[k]));
            const char *b = json_string_value(json_object_get(entry, keys[k]));
            same = (!a && !b) || (a && b && strcmp(a, b) == 0);
        }
        if (!same)
            continue;
        if (json_is_integer(json_object_get(entry, "inode")) &&
            !json_is_integer(json_object_get(v, "inode")))
            return json_array_set_new(list, i, entry);
        if (json_is_false(json_object_get(entry, "readOnly")) &&
            json_object_set_new(v, "readOnly", json_false()) != 0) {
            json_decref(entry);
            return -1;
        }
        json_decref(entry);
        return 0;
    }
    return json_array_append_new(list, entry);
}

int bxa_fold_hostobj(bxa_kctx *k, bxa_weakest *w, int rootfd, const bxa_mount *m, size_t n)
{
    int rc;

    if ((rc = bxa_host_objects(k)) != 0)
        return rc;
    if (k->hobj_unknown)
        return 0;
    for (size_t i = 0; i < n; i++) {
        const bxa_mount *e = &m[i];
        int cls = bxa_fstype_class(e), top = e == bxa_mount_at(m, n, e->point);
        struct stat st;
        int have = 0;
        char *dev = device_text(e->major, e->minor), *hp = NULL;
        json_t *entry;

        if (!dev)
            return bxa_oom(k->err);
        /* the object at the mount point, opened beneath the session's root without following
         * links: only for the mount on top there, and never on a remote or FUSE file system */
        if (cls != BXA_FS_UNINSPECTED && top && rootfd >= 0) {
            int fd = strcmp(e->point, "/") == 0
                         ? dup(rootfd)
                         : bxa_open_beneath(rootfd, e->point + 1, O_PATH | O_NOFOLLOW);
            if (fd >= 0) {
                have = fstat(fd, &st) == 0 && major(st.st_dev) == e->major &&
                       minor(st.st_dev) == e->minor;
                close(fd);
            }
        }
        if (cls == BXA_FS_FORBIDDEN && !(have && bxa_masking_null(e, &st)) &&
            add_unique(w->hobj_types, json_pack("{s:s,s:s,s:b}", "destination", e->point,
                                                "fsType", e->fstype, "readOnly", !e->writable)) != 0) {
            free(dev);
            return bxa_oom(k->err);
        }
        if (cls == BXA_FS_UNINSPECTED &&
            add_unique(w->hobj_uninspected, json_pack("{s:s,s:s}", "destination", e->point,
                                                      "fsType", e->fstype)) != 0) {
            free(dev);
            return bxa_oom(k->err);
        }
        if (have && cls != BXA_FS_UNINSPECTED)
            hp = host_path(k, e, &st);
        entry = json_pack("{s:s,s:s,s:s,s:s,s:b,s:s,s:o,s:o,s:o}", "destination", e->point,
                          "device", dev, "root", e->root, "fsType", e->fstype, "readOnly",
                          !e->writable, "options", e->mnt_opts, "inode",
                          have ? json_integer((json_int_t)st.st_ino) : json_null(), "type",
                          have ? json_string(object_type(st.st_mode)) : json_null(), "hostPath",
                          hp ? json_string(hp) : json_null());
        free(dev);
        free(hp);
        if (add_unique(w->hobj_mounts, entry) != 0)
            return bxa_oom(k->err);
        for (size_t j = 0; j < k->nhobj; j++) {
            int r = bxa_hostobj_exposes(&k->hobj[j], e);
            if (r == BXA_REACH_WALK) {
                if (cls == BXA_FS_UNINSPECTED || !top || rootfd < 0) {
                    r = BXA_REACH_UNKNOWN;
                } else {
                    /* O_PATH: nothing at the mount point is opened for reading (a device
                     * node, a fifo) */
                    int fd = strcmp(e->point, "/") == 0
                                 ? dup(rootfd)
                                 : bxa_open_beneath(rootfd, e->point + 1, O_PATH | O_NOFOLLOW);
                    r = fd < 0 ? BXA_REACH_UNKNOWN : bxa_find_link(fd, &k->hobj[j], WALK_ENTRIES);
                }
            }
            if (r == BXA_REACH_YES) {
                w->hobj_reach[j] = BXA_REACH_YES;
                if (add_via(w, j, e->point) != 0)
                    return bxa_oom(k->err);
            } else if (r == BXA_REACH_UNKNOWN && w->hobj_reach[j] != BXA_REACH_YES) {
                w->hobj_reach[j] = BXA_REACH_UNKNOWN;
            }
        }
    }
    return 0;
}

static int cmp_dest(const void *a, const void *b)
{
    const json_t *x = *(const json_t *const *)a, *y = *(const json_t *const *)b;
    int c = strcmp(json_string_value(json_object_get(x, "destination")),
                   json_string_value(json_object_get(y, "destination")));
    if (c)
        return c;
    c = strcmp(json_string_value(json_object_get(x, "fsType")),
               json_string_value(json_object_get(y, "fsType")));
    if (c)
        return c;
    {
        const char *rx = json_string_value(json_object_get(x, "root"));
        const char *ry = json_string_value(json_object_get(y, "root"));
        const char *dx = json_string_value(json_object_get(x, "device"));
        const char *dy = json_string_value(json_object_get(y, "device"));
        if (!rx || !ry)
            return 0;
        c = strcmp(rx, ry);
        return c || !dx || !dy ? c : strcmp(dx, dy);
    }
}

static int cmp_object(const void *a, const void *b)
{
    const json_t *x = *(const json_t *const *)a, *y = *(const json_t *const *)b;
    int c = strcmp(json_string_value(json_object_get(x, "what")),
                   json_string_value(json_object_get(y, "what")));
    return c ? c : strcmp(json_string_value(json_object_get(x, "path")),
                          json_string_value(json_object_get(y, "path")));
}

int bxa_hostobj_view(bxa_kctx *k, bxa_weakest *w, json_t **out)
{
    json_t *objs;

    *out = NULL;
    if (k->hobj_unknown) {
        *out = json_null();
        return 0;
    }
    if (!(objs = json_array()))
        return bxa_oom(k->err);
    for (size_t i = 0; i < k->nhobj; i++) {
        const bxa_hostobj *o = &k->hobj[i];
        char key[24], *dev = device_text(o->major, o->minor);
        json_t *via, *e;
        snprintf(key, sizeof key, "%zu", i);
        via = w->hobj_via ? json_object_get(w->hobj_via, key) : NULL;
        e = dev ? json_pack("{s:s,s:s,s:s,s:I,s:o,s:o}", "what", o->what, "path", o->path,
                            "device", dev, "inode", (json_int_t)o->ino, "reachable",
                            w->hobj_reach[i] == BXA_REACH_YES       ? json_true()
                            : w->hobj_reach[i] == BXA_REACH_UNKNOWN ? json_null()
                                                                    : json_false(),
                            "via", via ? json_incref(via) : json_array())
                : NULL;
        free(dev);
        if (!e || json_array_append_new(objs, e) != 0) {
            json_decref(objs);
            return bxa_oom(k->err);
        }
    }
    bxa_sort_json(objs, cmp_object);
    bxa_sort_json(w->hobj_types, cmp_dest);
    bxa_sort_json(w->hobj_uninspected, cmp_dest);
    bxa_sort_json(w->hobj_mounts, cmp_dest);
    *out = json_pack("{s:o,s:O,s:O,s:O}", "objects", objs, "forbiddenTypes", w->hobj_types,
                     "uninspected", w->hobj_uninspected, "mounts", w->hobj_mounts);
    return *out ? 0 : bxa_oom(k->err);
}
