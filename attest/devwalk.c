/* SPDX-License-Identifier: Apache-2.0 */
/* containment.devices.nodesAnywhere, walk and mknod (v3): every character and block node on a
 * mount of the session that lets a device be opened (not nodev, not proc or sysfs), found by
 * walking the session's tree from its init process's root, each judged against the device rules
 * in force (devanywhere.c decides which are standard); and whether a task could make one.
 * Names, types and device numbers only: nothing is opened but folders, each one name at a time
 * with O_NOFOLLOW beneath the folder read before it, and checked to be the folder stat saw (no
 * link is followed out, a folder swapped in between is not entered). Depth and entries are
 * bounded; reaching a bound is recorded (walk.truncated) and the policy reads it as unknown. */
#include "attest_internal.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#define WALK_DEPTH 48
#define WALK_ENTRIES 400000
#define WALK_NODES 4096

typedef struct {
    bxa_kctx *k;
    const bxa_mount *m;
    size_t nm;
    unsigned char *walked; /* per mount: entered */
    int known;
    unsigned pts_major, pts_minor; /* the file system of the session's /dev/pts, when any */
    int have_pts;
    long long entries;
    int truncated;
    json_t *nodes;
} walk;

static const bxa_mount *mount_by_id(const walk *w, uint64_t id, size_t *idx)
{
    for (size_t i = 0; i < w->nm; i++)
        if ((uint64_t)w->m[i].id == id) {
            if (idx)
                *idx = i;
            return &w->m[i];
        }
    return NULL;
}

/* A mount a device can be opened through: not nodev, and not the kernel's own views. */
int bxa_walk_mount(const char *fstype, const char *mnt_opts, const char *super_opts)
{
    if (bxa_mount_nodev(mnt_opts, super_opts))
        return 0;
    return !(fstype && (strcmp(fstype, "proc") == 0 || strcmp(fstype, "sysfs") == 0));
}

static int cmp_path(const void *a, const void *b)
{
    return strcmp(json_string_value(json_object_get(*(json_t *const *)a, "path")),
                  json_string_value(json_object_get(*(json_t *const *)b, "path")));
}

static int cmp_string(const void *a, const void *b)
{
    return strcmp(json_string_value(*(json_t *const *)a), json_string_value(*(json_t *const *)b));
}

static int add_node(walk *w, const char *path, const struct statx *sx, const bxa_mount *mnt)
{
    char type = S_ISCHR(sx->stx_mode) ? 'c' : 'b';
    unsigned ma = sx->stx_rdev_major, mi = sx->stx_rdev_minor;
    int own_pty = 0, access;
    json_t *n;

    /* the session's own terminal at /dev/console: a pty of the devpts at /dev/pts */
    if (w->have_pts && mnt && strcmp(mnt->fstype, "devpts") == 0 && mnt->major == w->pts_major &&
        mnt->minor == w->pts_minor)
        own_pty = 1;
    if (bxa_dev_standard(type, ma, mi, path, own_pty))
        return 0;
    if (json_array_size(w->nodes) >= WALK_NODES) {
        w->truncated = 1;
        return 0;
    }
    access = !w->known         ? -1
             : w->k->dev_progs ? bxa_devbpf_access(w->k->dev_progs, type, ma, mi)
                               : bxa_device_access(w->k->dev_rules, type, ma, mi);
    n = json_pack("{s:s,s:s#,s:I,s:I,s:o,s:s}", "path", path, "type", &type, 1, "major",
                  (json_int_t)ma, "minor", (json_int_t)mi, "accessible",
                  access >= 0 ? json_boolean(access & (BXA_DEV_READ | BXA_DEV_WRITE)) : json_null(),
                  "mount", mnt ? mnt->point : "?");
    if (!n || json_array_append_new(w->nodes, n) != 0)
        return bxa_oom(w->k->err);
    return 0;
}

/* The folder dfd (the session's path prefix, "" for its root), at depth. */
static int walk_dir(walk *w, int dfd, const char *prefix, int depth)
{
    int rc = 0;
    DIR *d = bxa_opendir_dup(dfd);
    struct dirent *e;

    if (!d) {
        w->truncated = 1; /* a folder of a walked mount that cannot be read: not all seen */
        return 0;
    }
    while (rc == 0 && (e = readdir(d)) != NULL) {
        struct statx sx;
        const bxa_mount *mnt;
        size_t idx = 0;
        char path[4096];
        if (e->d_name[0] == '.' && (!e->d_name[1] || (e->d_name[1] == '.' && !e->d_name[2])))
            continue;
        if (++w->entries > WALK_ENTRIES) {
            w->truncated = 1;
            break;
        }
        if (e->d_type != DT_UNKNOWN && e->d_type != DT_DIR && e->d_type != DT_CHR &&
            e->d_type != DT_BLK)
            continue; /* a file, link, socket or fifo: no statx needed */
        if (statx(dfd, e->d_name, AT_SYMLINK_NOFOLLOW | AT_NO_AUTOMOUNT,
                  STATX_TYPE | STATX_MODE | STATX_INO | STATX_MNT_ID, &sx) != 0 ||
            !(sx.stx_mask & STATX_MNT_ID))
            continue; /* gone since readdir */
        if ((size_t)snprintf(path, sizeof path, "%s/%s", prefix, e->d_name) >= sizeof path) {
            w->truncated = 1;
            continue;
        }
        mnt = mount_by_id(w, sx.stx_mnt_id, &idx);
        if (mnt && !bxa_walk_mount(mnt->fstype, mnt->mnt_opts, mnt->super_opts))
            continue; /* a node here opens no device; proc and sysfs are the kernel's */
        if (S_ISCHR(sx.stx_mode) || S_ISBLK(sx.stx_mode)) {
            if (mnt)
                w->walked[idx] = 1; /* a node is in a mount entered, or is its root */
            rc = add_node(w, path, &sx, mnt);
            continue;
        }
        if (!S_ISDIR(sx.stx_mode))
            continue;
        if (depth + 1 >= WALK_DEPTH) {
            w->truncated = 1;
            continue;
        }
        {
            struct stat st;
            int sub = openat(dfd, e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
            if (sub < 0 || fstat(sub, &st) != 0 || st.st_ino != sx.stx_ino ||
                major(st.st_dev) != sx.stx_dev_major || minor(st.st_dev) != sx.stx_dev_minor) {
                if (sub >= 0)
                    close(sub);
                w->truncated = 1; /* swapped or unreadable: not all seen */
                continue;
            }
            if (mnt)
                w->walked[idx] = 1;
            rc = walk_dir(w, sub, path, depth + 1);
            close(sub);
        }
    }
    closedir(d);
    return rc;
}

/* The mounts a device opens through that the walk from the root did not reach: beneath a mount
 * it does not enter (nodev, proc, sysfs), or on a file (a node bound at a path). Each is
 * opened at its mount point beneath the root; one the path no longer reaches (shadowed by a
 * later mount) is not reachable by a path either. */
static int walk_rest(walk *w, int root)
{
    int rc = 0;

    for (size_t i = 0; rc == 0 && i < w->nm; i++) {
        const bxa_mount *mt = &w->m[i];
        struct statx sx;
        int fd, dir;
        if (w->walked[i] || !bxa_walk_mount(mt->fstype, mt->mnt_opts, mt->super_opts) ||
            mt->point[0] != '/' || !mt->point[1])
            continue;
        if ((fd = bxa_open_beneath(root, mt->point + 1, O_PATH)) < 0) {
            w->truncated = 1; /* a mount point that cannot be reached: not all seen */
            continue;
        }
        if (statx(fd, "", AT_EMPTY_PATH, STATX_TYPE | STATX_MODE | STATX_MNT_ID, &sx) != 0 ||
            !(sx.stx_mask & STATX_MNT_ID) || sx.stx_mnt_id != (uint64_t)mt->id) {
            close(fd); /* shadowed */
            continue;
        }
        w->walked[i] = 1;
        if (S_ISCHR(sx.stx_mode) || S_ISBLK(sx.stx_mode)) {
            rc = add_node(w, mt->point, &sx, mt);
        } else if (S_ISDIR(sx.stx_mode)) {
            if ((dir = openat(fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
                w->truncated = 1;
            else {
                rc = walk_dir(w, dir, mt->point, 1);
                close(dir);
            }
        }
        close(fd);
    }
    return rc;
}

static int mknod_view(bxa_kctx *k, const bxa_weakest *wk, int known, json_t **out)
{
    int capable =
        bxa_mknod_capable(wk->caps[BXA_CAP_EFF], wk->caps[BXA_CAP_PRM], wk->caps[BXA_CAP_AMB]);
    int ns = -1, verdict;
    json_t *rules = json_array();

    if (!rules)
        return bxa_oom(k->err);
    if (known)
        ns = k->dev_progs ? bxa_mknod_progs(k->dev_progs, rules)
                          : bxa_mknod_rules(k->dev_rules, rules);
    if (ns == -2 || (ns == -1 && !k->dev_progs && known)) {
        json_decref(rules);
        return bxa_oom(k->err);
    }
    verdict = bxa_mknod_verdict(capable, ns);
    bxa_sort_json(rules, cmp_string);
    if (ns < 0) {
        json_decref(rules);
        rules = json_null();
    }
    *out = json_pack("{s:o,s:b,s:o}", "allowed", verdict < 0 ? json_null() : json_boolean(verdict),
                     "capable", capable, "rules", rules);
    return *out ? 0 : bxa_oom(k->err);
}

int bxa_dev_walk(bxa_kctx *k, bxa_proc *init, const bxa_weakest *wk, int known, json_t *dev)
{
    walk w = {.k = k, .known = known};
    bxa_mount *m = NULL;
    size_t nm = 0;
    char *mi = NULL;
    size_t ml = 0;
    int root = -1, top = -1, rc = 0;
    json_t *mounts = NULL, *walkv = NULL, *mk = NULL;
    struct statx sx;

    if ((rc = bxa_read_at(init->dfd, "mountinfo", BXA_PROC_FILE_MAX, &mi, &ml, k->err)) != 0 ||
        (rc = bxa_parse_mountinfo(mi, ml, &m, &nm, k->err)) != 0)
        goto out;
    w.m = m;
    w.nm = nm;
    if (!(w.walked = calloc(nm ? nm : 1, 1)) || !(w.nodes = json_array()) ||
        !(mounts = json_array())) {
        rc = bxa_oom(k->err);
        goto out;
    }
    {
        const bxa_mount *pts = bxa_mount_at(m, nm, "/dev/pts");
        if (pts && strcmp(pts->fstype, "devpts") == 0) {
            w.have_pts = 1;
            w.pts_major = pts->major;
            w.pts_minor = pts->minor;
        }
    }
    if ((root = openat(init->dfd, "root", O_PATH | O_DIRECTORY | O_CLOEXEC)) < 0 ||
        (top = openat(root, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0 ||
        statx(top, "", AT_EMPTY_PATH, STATX_MNT_ID, &sx) != 0 || !(sx.stx_mask & STATX_MNT_ID)) {
        /* the session's tree cannot be reached from here: not read */
        json_object_set_new(dev, "nodesAnywhere", json_null());
        json_object_set_new(dev, "walk", json_null());
        goto mknod;
    }
    {
        size_t idx = 0;
        const bxa_mount *rm = mount_by_id(&w, sx.stx_mnt_id, &idx);
        if (!rm || bxa_walk_mount(rm->fstype, rm->mnt_opts, rm->super_opts)) {
            if (rm)
                w.walked[idx] = 1;
            if ((rc = walk_dir(&w, top, "", 0)) != 0)
                goto out;
        }
    }
    if ((rc = walk_rest(&w, root)) != 0)
        goto out;
    for (size_t i = 0; i < nm; i++)
        if (w.walked[i] && json_array_append_new(mounts, json_string(m[i].point)) != 0) {
            rc = bxa_oom(k->err);
            goto out;
        }
    bxa_sort_json(w.nodes, cmp_path);
    bxa_sort_json(mounts, cmp_string);
    walkv = json_pack("{s:o,s:I,s:b}", "mounts", mounts, "entries", (json_int_t)w.entries,
                      "truncated", w.truncated);
    mounts = NULL;
    if (!walkv || json_object_set_new(dev, "walk", walkv) != 0 ||
        json_object_set(dev, "nodesAnywhere", w.nodes) != 0) {
        rc = bxa_oom(k->err);
        goto out;
    }
mknod:
    if ((rc = mknod_view(k, wk, known, &mk)) != 0 || json_object_set_new(dev, "mknod", mk) != 0) {
        rc = rc ? rc : bxa_oom(k->err);
        goto out;
    }
out:
    json_decref(mounts);
    json_decref(w.nodes);
    free(w.walked);
    if (top >= 0)
        close(top);
    if (root >= 0)
        close(root);
    bxa_mounts_free(m, nm);
    free(mi);
    return rc;
}
