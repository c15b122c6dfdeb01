/* SPDX-License-Identifier: Apache-2.0 */
/* The host objects' judgement (attest/hostobj.c): paths within paths, the forbidden and
 * uninspected file system types, crun's masking bind of the null device, an object's path within its file system from a recorded
 * host mountinfo, whether a mount exposes an object, and the bounded walk for hard links on a
 * folder made here. */
#include "tap.h"
#include "attest_internal.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

static void within(void)
{
    static const struct {
        const char *anc, *p;
        int want;
    } c[] = {
        {"/", "/", 1},           {"/", "/run/docker.sock", 1}, {"/run", "/run", 1},
        {"/run", "/run/docker.sock", 1}, {"/run", "/running", 0}, {"/run/docker.sock", "/run", 0},
        {"/a/b", "/a", 0},       {"/a/b", "/a/bc/d", 0},       {"/a/b", "/a/b/c/d", 1},
    };
    for (size_t i = 0; i < sizeof c / sizeof *c; i++)
        is_int(bxa_path_within(c[i].anc, c[i].p), c[i].want, "%s within %s", c[i].p, c[i].anc);
}

static void fstypes(void)
{
    static const struct {
        const char *type;
        int writable, want;
    } c[] = {
        {"devtmpfs", 0, BXA_FS_FORBIDDEN},   {"debugfs", 0, BXA_FS_FORBIDDEN},
        {"tracefs", 0, BXA_FS_FORBIDDEN},    {"securityfs", 0, BXA_FS_FORBIDDEN},
        {"bpf", 0, BXA_FS_FORBIDDEN},        {"nsfs", 1, BXA_FS_FORBIDDEN},
        {"efivarfs", 0, BXA_FS_FORBIDDEN},   {"configfs", 0, BXA_FS_FORBIDDEN},
        {"cgroup", 1, BXA_FS_FORBIDDEN},     {"cgroup", 0, BXA_FS_PLAIN},
        {"cgroup2", 1, BXA_FS_PLAIN},        {"fuse.sshfs", 0, BXA_FS_UNINSPECTED},
        {"fuse", 0, BXA_FS_UNINSPECTED},     {"fuseblk", 0, BXA_FS_UNINSPECTED},
        {"nfs4", 0, BXA_FS_UNINSPECTED},     {"nfs", 0, BXA_FS_UNINSPECTED},
        {"cifs", 0, BXA_FS_UNINSPECTED},     {"9p", 0, BXA_FS_UNINSPECTED},
        {"virtiofs", 0, BXA_FS_UNINSPECTED}, {"ext4", 1, BXA_FS_PLAIN},
        {"tmpfs", 1, BXA_FS_PLAIN},          {"proc", 1, BXA_FS_PLAIN},
        {"overlay", 0, BXA_FS_PLAIN},        {"fusectl", 0, BXA_FS_PLAIN},
    };
    for (size_t i = 0; i < sizeof c / sizeof *c; i++) {
        bxa_mount m = {.fstype = (char *)c[i].type, .writable = c[i].writable};
        is_int(bxa_fstype_class(&m), c[i].want, "%s%s", c[i].type,
               c[i].writable ? " (writable)" : "");
    }
}

/* A devtmpfs mount is forbidden unless it is a read-only bind of the null device alone (crun
 * masks /proc/kcore and the like with the host's /dev/null). */
static void masking(void)
{
    static const struct {
        const char *what, *type;
        int writable;
        mode_t mode;
        unsigned rmaj, rmin, dmaj, dmin;
        int want;
    } c[] = {
        {"read-only bind of the null device", "devtmpfs", 0, S_IFCHR, 1, 3, 0, 5, 1},
        {"the null device bound writable (the host's node could be chmod-ed)", "devtmpfs", 1,
         S_IFCHR, 1, 3, 0, 5, 0},
        {"the zero device", "devtmpfs", 0, S_IFCHR, 1, 5, 0, 5, 0},
        {"the memory device", "devtmpfs", 0, S_IFCHR, 1, 1, 0, 5, 0},
        {"minor 3 of another major", "devtmpfs", 0, S_IFCHR, 4, 3, 0, 5, 0},
        {"a block device 1:3", "devtmpfs", 0, S_IFBLK, 1, 3, 0, 5, 0},
        {"the whole file system (a folder)", "devtmpfs", 0, S_IFDIR, 0, 0, 0, 5, 0},
        {"a null device of another file system at the point", "devtmpfs", 0, S_IFCHR, 1, 3, 0,
         6, 0},
        {"debugfs over a null device", "debugfs", 0, S_IFCHR, 1, 3, 0, 5, 0},
    };
    for (size_t i = 0; i < sizeof c / sizeof *c; i++) {
        bxa_mount m = {.fstype = (char *)c[i].type, .writable = c[i].writable, .major = 0,
                       .minor = 5};
        struct stat st = {.st_mode = c[i].mode | 0666,
                          .st_rdev = makedev(c[i].rmaj, c[i].rmin),
                          .st_dev = makedev(c[i].dmaj, c[i].dmin)};
        is_int(bxa_masking_null(&m, &st), c[i].want, "%s", c[i].what);
    }
    {
        bxa_mount m = {.fstype = "devtmpfs", .major = 0, .minor = 5};
        is_int(bxa_masking_null(&m, NULL), 0, "nothing read at the point: forbidden");
    }
}

/* The fold over a namespace's mounts: this host's own /dev/null (character 1:3, whatever file
 * system /dev is here) described as a devtmpfs mount of its device at /dev/null, beneath "/". */
static void fold_masking(void)
{
    struct stat null_st;
    bx_error err = {0};
    int root = open("/", O_PATH | O_DIRECTORY);
    static const struct {
        const char *what, *point;
        int writable;
        size_t want;
    } c[] = {
        {"a read-only bind of /dev/null: a masked path, not forbidden", "/dev/null", 0, 0},
        {"the same bind writable: forbidden", "/dev/null", 1, 1},
        {"the device folder itself (the whole file system): forbidden", "/dev", 0, 1},
    };

    if (!ok(root >= 0 && stat("/dev/null", &null_st) == 0 && S_ISCHR(null_st.st_mode),
            "this host's /dev/null"))
        return;
    for (size_t i = 0; i < sizeof c / sizeof *c; i++) {
        bxa_kctx k = {.err = &err, .real_proc = 1, .hobj_read = 1};
        bxa_weakest w = {0};
        struct stat st;
        stat(c[i].point, &st);
        bxa_mount m = {.id = 1,
                       .major = major(st.st_dev),
                       .minor = minor(st.st_dev),
                       .root = "/null",
                       .point = (char *)c[i].point,
                       .mnt_opts = c[i].writable ? "rw" : "ro",
                       .optional = "",
                       .fstype = "devtmpfs",
                       .source = "devtmpfs",
                       .super_opts = "rw",
                       .writable = c[i].writable};
        w.hobj_types = json_array();
        w.hobj_uninspected = json_array();
        w.hobj_mounts = json_array();
        is_int(bxa_fold_hostobj(&k, &w, root, &m, 1), 0, "%s: folded", c[i].what);
        is_int((int)json_array_size(w.hobj_types), (int)c[i].want, "%s", c[i].what);
        is_int((int)json_array_size(w.hobj_mounts), 1, "%s: the mount described", c[i].what);
        json_decref(w.hobj_types);
        json_decref(w.hobj_uninspected);
        json_decref(w.hobj_mounts);
    }
    close(root);
}

/* This host's mountinfo, recorded: the root on 254:0, /run a tmpfs (stacked twice), /srv
 * bound at /mnt/sub, /proc. */
static const char host_mi[] =
    "21 1 254:0 / / rw,relatime - ext4 /dev/vda rw\n"
    "22 21 0:25 / /run rw,nosuid - tmpfs tmpfs rw\n"
    "23 22 0:26 / /run rw,nosuid - tmpfs tmpfs rw\n"
    "24 21 254:0 /srv /mnt/sub rw,relatime - ext4 /dev/vda rw\n"
    "25 21 0:21 / /proc rw - proc proc rw\n";

static void fs_paths(void)
{
    static const struct {
        const char *path;
        unsigned major, minor;
        const char *want; /* NULL: not placed */
    } c[] = {
        {"/run/docker.sock", 0, 26, "/docker.sock"}, /* the mount on top at /run */
        {"/run/docker.sock", 0, 25, NULL},           /* covered: not the device showing it */
        {"/run", 0, 26, "/"},
        {"/etc/passwd", 254, 0, "/etc/passwd"},
        {"/mnt/sub/a/b", 254, 0, "/srv/a/b"},
        {"/mnt/sub", 254, 0, "/srv"},
        {"/mnt/subway", 254, 0, "/mnt/subway"},
        {"/", 254, 0, "/"},
        {"/proc", 0, 21, "/"},
        {"/etc/passwd", 254, 1, NULL}, /* another minor */
        {"/etc/passwd", 253, 0, NULL}, /* another major */
    };
    bxa_mount *m = NULL;
    size_t n = 0;
    bx_error e = {0};

    if (!ok(bxa_parse_mountinfo(host_mi, sizeof host_mi - 1, &m, &n, &e) == 0 && n == 5,
            "the host's mountinfo parses"))
        return;
    is_int(m[0].major, 254, "field 3: major");
    is_int(m[1].minor, 25, "field 3: minor");
    for (size_t i = 0; i < sizeof c / sizeof *c; i++) {
        char *got = NULL;
        int rc = bxa_fs_path(m, n, c[i].path, c[i].major, c[i].minor, &got);
        if (c[i].want)
            is_str(rc == 0 ? got : "(not placed)", c[i].want, "%s on %u:%u", c[i].path,
                   c[i].major, c[i].minor);
        else
            is_int(rc, BX_ENOTFOUND, "%s on %u:%u: not placed", c[i].path, c[i].major,
                   c[i].minor);
        free(got);
    }
    bxa_mounts_free(m, n);
    {
        static const char *const bad[] = {
            "21 1 254 / / rw - ext4 /dev/vda rw\n",     "21 1 254:x / / rw - ext4 /dev/vda rw\n",
            "21 1 :0 / / rw - ext4 /dev/vda rw\n",      "21 1 254: / / rw - ext4 /dev/vda rw\n",
            "21 1 9999999:0 / / rw - ext4 /dev/vda rw\n", "21 1 1:2:3 / / rw - ext4 /dev/vda rw\n",
        };
        for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
            m = NULL;
            n = 0;
            ok(bxa_parse_mountinfo(bad[i], strlen(bad[i]), &m, &n, &e) == BX_EINVAL,
               "a bad device field refused: %.*s", (int)strlen(bad[i]) - 1, bad[i]);
            bxa_mounts_free(m, n);
        }
    }
}

static void exposes(void)
{
    bxa_hostobj sock = {.what = "engine socket", .fs_path = "/docker.sock", .major = 0,
                        .minor = 26, .ino = 77, .nlink = 1};
    bxa_hostobj linked = sock, folder = {.what = "engine folder", .fs_path = "/containerd",
                                         .major = 0, .minor = 26, .is_dir = 1, .below = 1};
    bxa_hostobj key_folder = {.what = "signing key folder", .fs_path = "/keys", .major = 254,
                              .minor = 0, .is_dir = 1};
    bxa_hostobj procfs = {.what = "host procfs", .fs_path = "/", .major = 0, .minor = 21,
                          .is_dir = 1, .whole = 1};
    bxa_hostobj unplaced = {.what = "engine socket", .major = 0, .minor = 26, .nlink = 1};
    static const struct {
        const char *root;
        unsigned major, minor;
        int which, want;
    } c[] = {
        {"/", 0, 26, 0, BXA_REACH_YES},           /* a bind of /run */
        {"/docker.sock", 0, 26, 0, BXA_REACH_YES}, /* of the socket itself */
        {"/docker", 0, 26, 0, BXA_REACH_NO},      /* a sibling */
        {"/docker.sock.d", 0, 26, 0, BXA_REACH_NO},
        {"/", 0, 25, 0, BXA_REACH_NO},            /* another file system */
        {"/", 1, 26, 0, BXA_REACH_NO},
        {"/x", 0, 26, 1, BXA_REACH_WALK},         /* elsewhere, the socket has two links */
        {"/", 0, 26, 1, BXA_REACH_YES},
        {"/containerd/s", 0, 26, 2, BXA_REACH_YES}, /* inside a state folder */
        {"/containerd", 0, 26, 2, BXA_REACH_YES},
        {"/containerdx", 0, 26, 2, BXA_REACH_NO},
        {"/keys/sub", 254, 0, 3, BXA_REACH_NO},   /* inside the key's folder: not the key's */
        {"/", 254, 0, 3, BXA_REACH_YES},
        {"/sys", 0, 21, 4, BXA_REACH_YES},        /* any part of this host's procfs */
        {"/", 0, 22, 4, BXA_REACH_NO},
        {"/", 0, 26, 5, BXA_REACH_UNKNOWN},       /* same device, the object not placed */
        {"/", 0, 27, 5, BXA_REACH_NO},
    };
    const bxa_hostobj *objs[] = {&sock, &linked, &folder, &key_folder, &procfs, &unplaced};

    linked.nlink = 2;
    for (size_t i = 0; i < sizeof c / sizeof *c; i++) {
        bxa_mount m = {.root = (char *)c[i].root, .major = c[i].major, .minor = c[i].minor};
        is_int(bxa_hostobj_exposes(objs[c[i].which], &m), c[i].want, "%s by a mount of %u:%u %s",
               objs[c[i].which]->what, c[i].major, c[i].minor, c[i].root);
    }
}

static int mkdirs(char *path, int levels)
{
    size_t l = strlen(path);
    for (int i = 0; i < levels; i++) {
        l += (size_t)snprintf(path + l, 4096 - l, "/d%d", i);
        if (mkdir(path, 0700) != 0)
            return -1;
    }
    return 0;
}

static void links(void)
{
    char tmp[] = "/tmp/bx-hostobj-XXXXXX", p[4096], q[4096];
    struct stat st;
    bxa_hostobj o = {.what = "engine socket"};
    int fd;

    if (!ok(mkdtemp(tmp) != NULL, "a folder to walk"))
        return;
    snprintf(p, sizeof p, "%s/target", tmp);
    fd = open(p, O_CREAT | O_WRONLY, 0600);
    close(fd);
    stat(p, &st);
    o.major = major(st.st_dev);
    o.minor = minor(st.st_dev);
    o.ino = (uint64_t)st.st_ino;
    o.nlink = 2;

    /* a folder without the link */
    snprintf(q, sizeof q, "%s/clean", tmp);
    mkdir(q, 0700);
    snprintf(p, sizeof p, "%s/clean/other", tmp);
    close(open(p, O_CREAT | O_WRONLY, 0600));
    is_int(bxa_find_link(open(q, O_PATH), &o, 1000), BXA_REACH_NO, "no link below: absent");

    /* a link three levels down */
    snprintf(q, sizeof q, "%s/linked", tmp);
    mkdir(q, 0700);
    mkdirs(q, 3);
    snprintf(p, sizeof p, "%s/target", tmp);
    {
        char l[4200];
        snprintf(l, sizeof l, "%s/link", q);
        ok(link(p, l) == 0, "a hard link made");
    }
    snprintf(q, sizeof q, "%s/linked", tmp);
    is_int(bxa_find_link(open(q, O_PATH), &o, 1000), BXA_REACH_YES, "the link found below");
    is_int(bxa_find_link(open(q, O_PATH), &o, 2), BXA_REACH_UNKNOWN,
           "the entries' bound reached: unknown, never absent");
    /* the whole folder: the target itself is found too */
    is_int(bxa_find_link(open(tmp, O_PATH), &o, 1000), BXA_REACH_YES, "the folder holding it");

    /* a bind of a file: the object itself */
    snprintf(p, sizeof p, "%s/target", tmp);
    is_int(bxa_find_link(open(p, O_PATH | O_NOFOLLOW), &o, 1000), BXA_REACH_YES,
           "a mount of the linked file itself");
    snprintf(p, sizeof p, "%s/clean/other", tmp);
    is_int(bxa_find_link(open(p, O_PATH | O_NOFOLLOW), &o, 1000), BXA_REACH_NO,
           "a mount of another file");

    /* a symlink to the target is not the target (never followed) */
    snprintf(q, sizeof q, "%s/sym", tmp);
    mkdir(q, 0700);
    snprintf(p, sizeof p, "%s/sym/to-target", tmp);
    {
        char t[4200];
        snprintf(t, sizeof t, "%s/target", tmp);
        ok(symlink(t, p) == 0, "a symlink made");
    }
    is_int(bxa_find_link(open(q, O_PATH), &o, 1000), BXA_REACH_NO, "a symlink is not followed");

    /* deeper than the walk goes */
    snprintf(q, sizeof q, "%s/deep", tmp);
    mkdir(q, 0700);
    mkdirs(q, 18);
    {
        char l[4200], t[4200];
        snprintf(l, sizeof l, "%s/link", q);
        snprintf(t, sizeof t, "%s/target", tmp);
        ok(link(t, l) == 0, "a link 18 folders down");
    }
    snprintf(q, sizeof q, "%s/deep", tmp);
    is_int(bxa_find_link(open(q, O_PATH), &o, 100000), BXA_REACH_UNKNOWN,
           "deeper than the bound: unknown");

    /* another device at the mount point: covered, not judged */
    {
        bxa_hostobj other = o;
        other.minor ^= 1;
        is_int(bxa_find_link(open(tmp, O_PATH), &other, 1000), BXA_REACH_UNKNOWN,
               "the mount point on another device: unknown");
        snprintf(p, sizeof p, "%s/target", tmp);
        is_int(bxa_find_link(open(p, O_PATH | O_NOFOLLOW), &other, 1000), BXA_REACH_UNKNOWN,
               "a file of the same inode on another device: unknown, not the object");
    }
    {
        char cmd[128];
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp);
        ok(system(cmd) == 0, "cleaned up");
    }
}

int main(void)
{
    within();
    fstypes();
    masking();
    fold_masking();
    fs_paths();
    exposes();
    links();
    return tap_done();
}
