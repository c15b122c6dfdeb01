/* SPDX-License-Identifier: Apache-2.0 */
/* A task's references beyond its descriptors (attest/references.c): /proc/<pid>/maps lines
 * crafted as the kernel writes them (files, deleted files, anonymous and named pseudo
 * mappings, names with spaces and escaped newlines, a huge line, malformed lines), a
 * mapping judged against a mount namespace's devices, and an io_uring descriptor's
 * registered files from its fdinfo (old and new kernels' forms, the lock not held), and the
 * links of every task of a process (a /proc/<pid> folder made of links to this host's
 * folders: a thread's own root read, not only the leader's). */
#include "tap.h"
#include "attest_internal.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void maps_good(void)
{
    static const char buf[] =
        "55d0c0a00000-55d0c0a02000 r--p 00000000 00:2f 1234567                    /bin/busybox\n"
        "7f0000000000-7f0000001000 rw-s 00001000 08:01 42                         /srv/shared "
        "file\n"
        "7f0000002000-7f0000003000 rw-s 00000000 00:01 1025                       /memfd:x "
        "(deleted)\n"
        "7f0000004000-7f0000005000 r-xp 00000000 fd:00 7                          /tmp/a\\012b "
        "(deleted)\n"
        "7f0000006000-7f0000007000 rw-p 00000000 00:00 0 \n"
        "7ffd00000000-7ffd00021000 rw-p 00000000 00:00 0                          [stack]\n"
        "ffffffffff600000-ffffffffff601000 --xp 00000000 00:00 0                  [vsyscall]\n"
        "7f0000008000-7f0000009000 rw-s 00000000 00:0f 5                          "
        "anon_inode:[io_uring]";
    bxa_mapping *m = NULL;
    size_t n = 0;
    bx_error e = {0};

    ok_err(bxa_parse_maps(buf, strlen(buf), &m, &n, &e), &e, "maps: parses");
    is_int(n, 8, "maps: 8 mappings");
    if (n != 8) {
        bxa_mappings_free(m, n);
        return;
    }
    is_int(m[0].start, 0x55d0c0a00000ull, "maps: start");
    is_int(m[0].end, 0x55d0c0a02000ull, "maps: end");
    is_int(m[0].major, 0, "maps: major");
    is_int(m[0].minor, 0x2f, "maps: minor in hex");
    is_int(m[0].inode, 1234567, "maps: inode");
    ok(m[0].read && !m[0].write && !m[0].exec && !m[0].shared, "maps: r--p");
    is_str(m[0].path, "/bin/busybox", "maps: path");
    ok(!m[0].deleted, "maps: not deleted");
    ok(m[1].shared && m[1].write && m[1].read, "maps: rw-s shared writable");
    is_int(m[1].offset, 0x1000, "maps: offset in hex");
    is_int(m[1].major, 8, "maps: major 8");
    is_str(m[1].path, "/srv/shared file", "maps: a space in a name kept");
    ok(m[2].deleted, "maps: memfd deleted");
    is_str(m[2].path, "/memfd:x", "maps: deleted suffix removed");
    is_str(m[3].path, "/tmp/a\\012b", "maps: an escaped newline left as written");
    ok(m[3].deleted && m[3].exec, "maps: deleted executable");
    is_int(m[3].major, 0xfd, "maps: major fd");
    ok(m[4].path == NULL && m[4].inode == 0, "maps: anonymous with a trailing blank");
    is_str(m[5].path, "[stack]", "maps: [stack]");
    is_int(m[6].start, 0xffffffffff600000ull, "maps: vsyscall start");
    is_str(m[7].path, "anon_inode:[io_uring]", "maps: last line without a newline");
    bxa_mappings_free(m, n);
}

static void maps_huge(void)
{
    size_t plen = 1 << 16, len;
    char *buf = malloc(plen + 128);
    bxa_mapping *m = NULL;
    size_t n = 0;
    bx_error e = {0};

    if (!buf) {
        ok(0, "maps: huge line buffer");
        return;
    }
    len = (size_t)snprintf(buf, 128, "1000-2000 rw-s 00000000 08:01 9 /");
    memset(buf + len, 'a', plen);
    len += plen;
    buf[len++] = '\n';
    ok_err(bxa_parse_maps(buf, len, &m, &n, &e), &e, "maps: a huge line parses");
    ok(n == 1 && m[0].path && strlen(m[0].path) == plen + 1, "maps: the huge name kept whole");
    bxa_mappings_free(m, n);
    free(buf);
}

static void maps_bad(void)
{
    static const char *const bad[] = {
        "1000-2000 rw-s 00000000 08:01\n",                      /* no inode */
        "1000-2000 rw-s 00000000 08:01 9x\n",                   /* trailing junk after the inode */
        "2000-1000 rw-s 00000000 08:01 9\n",                    /* end before start */
        "1000-2000 rwxq 00000000 08:01 9\n",                    /* neither s nor p */
        "1000-2000 Rw-s 00000000 08:01 9\n",                    /* not r or - */
        "1000 2000 rw-s 00000000 08:01 9\n",                    /* no dash */
        "1000-2000 rw-s 00000000 0801 9\n",                     /* no colon */
        "1000-2000 rw-s 00000000 1000:01 9\n",                  /* major past 12 bits */
        "1000-2000 rw-s 00000000 08:100000 9\n",                /* minor past 20 bits */
        "10000000000000000-20000000000000000 rw-s 0 08:01 9\n", /* overflow */
        "1000-2000 rw-s 00000000 08:01 99999999999999999999999\n",
        "1000-2000 rw\n",
        "\n",
        "-\n",
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        bxa_mapping *m = NULL;
        size_t n = 0;
        bx_error e = {0};
        int rc = bxa_parse_maps(bad[i], strlen(bad[i]), &m, &n, &e);
        ok(rc != 0 && m == NULL && n == 0, "maps: bad line %zu refused", i);
        ok(rc == 0 || strstr(e.msg, "line 1") != NULL, "maps: bad line %zu: error names the line",
           i);
        bxa_mappings_free(m, n);
    }
    {
        static const char nul[] = "1000-2000 rw-s 00000000 08:01 9 /a\0b\n";
        bxa_mapping *m = NULL;
        size_t n = 0;
        bx_error e = {0};
        ok(bxa_parse_maps(nul, sizeof nul - 1, &m, &n, &e) != 0, "maps: a NUL byte refused");
    }
    {
        static const char two[] = "1000-2000 rw-s 00000000 08:01 9 /a\nbad\n";
        bxa_mapping *m = NULL;
        size_t n = 0;
        bx_error e = {0};
        ok(bxa_parse_maps(two, sizeof two - 1, &m, &n, &e) != 0 && strstr(e.msg, "line 2"),
           "maps: the second line's fault named");
    }
    {
        bxa_mapping *m = NULL;
        size_t n = 7;
        bx_error e = {0};
        ok_err(bxa_parse_maps("", 0, &m, &n, &e), &e, "maps: empty file parses");
        is_int(n, 0, "maps: empty file has none");
    }
}

static void where(void)
{
    bxa_mount mounts[2] = {{.id = 1, .major = 0, .minor = 0x2f}, {.id = 2, .major = 8, .minor = 2}};
    static const struct {
        unsigned major, minor;
        uint64_t inode;
        const char *path;
        int deleted, write, shared, want, worst;
    } c[] = {
        {0, 0x2f, 5, "/bin/sh", 0, 0, 0, BXA_REF_INSIDE, 0},
        {8, 2, 5, "/data/x", 0, 1, 1, BXA_REF_INSIDE, 0},
        {8, 1, 5, "/data/x", 0, 1, 1, BXA_REF_OUTSIDE, 1}, /* minor differs */
        {9, 2, 5, "/data/x", 0, 1, 1, BXA_REF_OUTSIDE, 1}, /* major differs */
        {8, 1, 5, "/data/x", 0, 1, 0, BXA_REF_OUTSIDE, 0}, /* private */
        {8, 1, 5, "/data/x", 0, 0, 1, BXA_REF_OUTSIDE, 0}, /* read-only */
        {8, 1, 5, "/data/x", 1, 1, 1, BXA_REF_OUTSIDE, 1}, /* deleted host file */
        {0, 0, 0, NULL, 0, 1, 0, BXA_REF_NONE, 0},         /* anonymous */
        {0, 0, 0, "[heap]", 0, 1, 0, BXA_REF_NONE, 0},
        {0, 1, 3, "/memfd:x", 1, 1, 1, BXA_REF_KERNEL, 0},
        {0, 1, 3, "/SYSV00000000", 1, 1, 1, BXA_REF_KERNEL, 0},
        {0, 1, 3, "/dev/zero", 1, 1, 1, BXA_REF_KERNEL, 0},
        {0, 0xf, 3, "anon_inode:[io_uring]", 0, 1, 1, BXA_REF_KERNEL, 0},
        {0, 1, 3, "/memfd:x", 0, 1, 1, BXA_REF_OUTSIDE, 1}, /* not deleted: a host file */
        {0, 1, 3, "/dev/zero", 0, 1, 1, BXA_REF_OUTSIDE, 1},
        {0, 0x30, 3, "/memfd:x", 1, 1, 1, BXA_REF_KERNEL, 0},
        {8, 1, 3, "/memfd:x", 1, 1, 1, BXA_REF_OUTSIDE, 1}, /* a real device is not internal */
        {8, 1, 3, "anon_inode:x", 0, 1, 1, BXA_REF_OUTSIDE, 1},
        {0, 0x31, 3, "/tmp/host", 0, 1, 1, BXA_REF_OUTSIDE, 1}, /* a host tmpfs */
    };
    for (size_t i = 0; i < sizeof c / sizeof *c; i++) {
        bxa_mapping m = {.major = c[i].major,
                         .minor = c[i].minor,
                         .inode = c[i].inode,
                         .path = (char *)c[i].path,
                         .deleted = c[i].deleted,
                         .write = c[i].write,
                         .shared = c[i].shared,
                         .read = 1};
        int w = bxa_mapping_where(&m, mounts, 2);
        is_int(w, c[i].want, "where %zu: %x:%x %s", i, c[i].major, c[i].minor,
               c[i].path ? c[i].path : "(anon)");
        is_int(bxa_mapping_worst(&m, w), c[i].worst, "worst %zu", i);
    }
    {
        bxa_mapping m = {.major = 0, .minor = 0x2f, .inode = 5, .path = "/bin/sh"};
        is_int(bxa_mapping_where(&m, mounts, 0), BXA_REF_OUTSIDE, "where: no mounts, outside");
    }
}

static json_t *uring(const char *buf, bx_error *e, int *rc)
{
    json_t *f = NULL;
    *rc = bxa_parse_io_uring_files(buf, strlen(buf), &f, e);
    return f;
}

static void io_uring(void)
{
    bx_error e = {0};
    int rc;
    json_t *f;
    char *s;

    f = uring("SqMask:\t0x3\nSqHead:\t0\nUserFiles:\t3\n    0: /etc/hosts\n    1: <none>\n"
              "    2: /srv/a\\040b\\012c\\134d\nUserBufs:\t0\nPollList:\n",
              &e, &rc);
    ok_err(rc, &e, "uring: old form parses");
    s = f ? json_dumps(f, JSON_COMPACT) : NULL;
    is_str(s, "[\"/etc/hosts\",\"/srv/a b\\nc\\\\d\"]", "uring: paths unescaped, <none> left out");
    free(s);
    json_decref(f);

    f = uring("UserFiles:\t5\n    1: /x\n    4: socket:[123]\nUserBufs:\t0\n", &e, &rc);
    ok_err(rc, &e, "uring: new form (filled slots only) parses");
    is_int(f ? json_array_size(f) : 99, 2, "uring: two files");
    json_decref(f);

    f = uring("UserFiles:\t0\nUserBufs:\t0\n", &e, &rc);
    ok_err(rc, &e, "uring: none registered");
    is_int(f ? json_array_size(f) : 99, 0, "uring: empty list");
    json_decref(f);

    f = uring("UserFiles:\t2\n    0: <none>\n    1: <none>\n", &e, &rc);
    ok_err(rc, &e, "uring: every slot empty (old form)");
    is_int(f ? json_array_size(f) : 99, 0, "uring: empty slots only");
    json_decref(f);

    static const char *const bad[] = {
        "SqMask:\t0x3\n",                /* no UserFiles: unknown */
        "UserFiles:\t2\nUserBufs:\t0\n", /* counted, none listed: no lock */
        "UserFiles:\t1\n",
        "UserFiles:\tx\n",
        "UserFiles:\t2\n    1: /a\n    0: /b\n", /* out of order */
        "UserFiles:\t2\n    0: /a\n    0: /b\n", /* repeated */
        "UserFiles:\t2\n    2: /a\n",            /* past the count */
        "UserFiles:\t1\n    0: /a\\9\n",         /* bad escape */
        "UserFiles:\t1\n    0: /a\\01\n",        /* short escape */
        "UserFiles:\t99999999999999999999\n",
        "UserFiles:\t1\n    0: /\xff\n", /* not UTF-8 */
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        f = uring(bad[i], &e, &rc);
        ok(rc != 0 && f == NULL, "uring: bad %zu refused", i);
        json_decref(f);
    }
    {
        static const char nul[] = "UserFiles:\t1\n    0: /a\0b\n";
        json_t *g = NULL;
        ok(bxa_parse_io_uring_files(nul, sizeof nul - 1, &g, &e) != 0 && !g,
           "uring: a NUL byte refused");
    }
}

/* The mount id of path, as this process's fdinfo gives it; -1 when not known. */
static int64_t mount_of(const char *path)
{
    char info[64], buf[4096];
    int64_t mnt = -1;
    bx_error e = {0};
    int fd = open(path, O_PATH | O_CLOEXEC), ifd;
    ssize_t n = -1;

    if (fd < 0)
        return -1;
    snprintf(info, sizeof info, "/proc/self/fdinfo/%d", fd);
    if ((ifd = open(info, O_RDONLY | O_CLOEXEC)) >= 0) {
        n = read(ifd, buf, sizeof buf - 1);
        close(ifd);
    }
    close(fd);
    if (n <= 0 || bxa_parse_fdinfo_mnt(buf, (size_t)n, &mnt, &e) != 0)
        return -1;
    return mnt;
}

static void task_links(void)
{
    char dir[] = "/tmp/bx-refs-XXXXXX", path[256];
    static const char *const links[][2] = {
        {"cwd", "/proc"},     {"root", "/"},           {"task/7/cwd", "/proc"},
        {"task/7/root", "/"}, {"task/8/cwd", "/proc"}, {"task/8/root", "/sys"},
        {"task/9/cwd", "/"},  {"task/9/root", "/"},
    };
    int64_t root_mnt = mount_of("/"), proc_mnt = mount_of("/proc"), sys_mnt = mount_of("/sys");
    bxa_mntns mn = {.mount_ids = &root_mnt, .nmount_ids = 1};
    bx_error e = {0};
    bxa_kctx k = {.err = &e, .procfd = -1, .ns_root = -1};
    bxa_proc p = {.pid = 7, .dfd = -1, .pidfd = -1};
    json_t *refs = json_array();
    int rc;

    if (root_mnt < 0 || proc_mnt < 0 || sys_mnt < 0 || root_mnt == proc_mnt ||
        root_mnt == sys_mnt || !mkdtemp(dir)) {
        skip_one("/, /proc and /sys are not three mounts here");
        json_decref(refs);
        return;
    }
    snprintf(path, sizeof path, "%s/task", dir);
    mkdir(path, 0700);
    for (int t = 7; t <= 9; t++) {
        snprintf(path, sizeof path, "%s/task/%d", dir, t);
        mkdir(path, 0700);
    }
    for (size_t i = 0; i < sizeof links / sizeof links[0]; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, links[i][0]);
        if (symlink(links[i][1], path) != 0)
            ok(0, "symlink %s", path);
    }
    snprintf(path, sizeof path, "%s/maps", dir);
    close(open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0600));
    p.dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    rc = bxa_fold_refs(&k, refs, &p, &mn);
    is_int(rc, 0, "links: read");
    /* the leader's cwd once (its task's copy of it not again), thread 8's own root */
    is_int((int)json_array_size(refs), 2, "links: the leader's cwd and a thread's own root");
    if (json_array_size(refs) == 2) {
        json_t *a = json_array_get(refs, 0), *b = json_array_get(refs, 1);
        is_str(json_string_value(json_object_get(a, "via")), "cwd", "links: the leader's cwd");
        is_str(json_string_value(json_object_get(a, "target")), "/proc", "links: its target");
        is_str(json_string_value(json_object_get(a, "kind")), "host-directory",
               "links: a folder on a mount the namespace does not have");
        is_str(json_string_value(json_object_get(b, "via")), "root", "links: thread 8's root");
        is_str(json_string_value(json_object_get(b, "target")), "/sys", "links: its target");
        is_int((int)json_integer_value(json_object_get(b, "pid")), 7,
               "links: listed under the process's pid");
    }
    if (p.dfd >= 0)
        close(p.dfd);
    for (size_t i = 0; i < sizeof links / sizeof links[0]; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, links[i][0]);
        unlink(path);
    }
    snprintf(path, sizeof path, "%s/maps", dir);
    unlink(path);
    for (int t = 7; t <= 9; t++) {
        snprintf(path, sizeof path, "%s/task/%d", dir, t);
        rmdir(path);
    }
    snprintf(path, sizeof path, "%s/task", dir);
    rmdir(path);
    rmdir(dir);
    json_decref(refs);
}

int main(void)
{
    maps_good();
    maps_huge();
    maps_bad();
    where();
    io_uring();
    task_links();
    return tap_done();
}
