/* SPDX-License-Identifier: Apache-2.0 */
/* A git repository's files checked before libgit2 opens them (bx_gitlayout.h). */
#include "bx_gitlayout.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define DEPTH_MAX 32 /* folders below refs/, logs/ or objects/ */

/* The files of a git folder libgit2 may open, each absent or a regular file. */
static const char *const files[] = {
    "HEAD",
    "config",
    "commondir",
    "gitdir",
    "packed-refs",
    "index",
    "shallow",
    "FETCH_HEAD",
    "ORIG_HEAD",
    "MERGE_HEAD",
    "info/attributes",
    "info/exclude",
    "info/grafts",
    "info/sparse-checkout",
    NULL,
};
/* Its folders, walked: every file in them a regular file, every folder a folder. */
static const char *const trees[] = {"refs", "logs", "objects", "info", NULL};

static const char *kind(mode_t m)
{
    return S_ISFIFO(m)   ? "a FIFO"
           : S_ISSOCK(m) ? "a socket"
           : S_ISCHR(m)  ? "a character device"
           : S_ISBLK(m)  ? "a block device"
           : S_ISLNK(m)  ? "a symbolic link"
           : S_ISDIR(m)  ? "a folder"
                         : "not a regular file";
}

static int refuse(bx_error *err, const char *path, mode_t m, const char *want)
{
    return bx_error_set(err, BX_ECONFIG, path,
                        "%s, not %s: the repository is refused (libgit2 would read it)", kind(m),
                        want);
}

/* 0 absent, 1 present as wanted (a regular file, or a folder when dir), <0 refused. */
static int one(const char *path, int dir, bx_error *err)
{
    struct stat st;
    if (fstatat(AT_FDCWD, path, &st, AT_SYMLINK_NOFOLLOW) != 0) {
        if (errno == ENOENT || errno == ENOTDIR)
            return 0;
        return bx_error_errno(err, BX_EIO, path, "cannot look at it");
    }
    if (dir ? S_ISDIR(st.st_mode) : S_ISREG(st.st_mode))
        return 1;
    return refuse(err, path, st.st_mode, dir ? "a folder" : "a regular file");
}

static int join(char *out, size_t n, const char *a, const char *b, bx_error *err)
{
    int w = snprintf(out, n, "%s/%s", a, b);
    if (w < 0 || (size_t)w >= n)
        return bx_error_set(err, BX_ECONFIG, a, "path too long");
    return 0;
}

/* Every entry under path a regular file or a folder (depth levels below it at most). */
static int tree(const char *path, int depth, bx_error *err)
{
    char sub[PATH_MAX];
    struct dirent *d;
    DIR *dir;
    int fd, rc = 0;

    if ((rc = one(path, 1, err)) <= 0)
        return rc;
    rc = 0;
    if (depth > DEPTH_MAX)
        return bx_error_set(err, BX_ECONFIG, path, "folders nested deeper than %d", DEPTH_MAX);
    fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0 || !(dir = fdopendir(fd))) {
        if (fd >= 0)
            close(fd);
        return bx_error_errno(err, BX_EIO, path, "cannot read the folder");
    }
    while (rc == 0 && (errno = 0, d = readdir(dir))) {
        struct stat st;
        if (strcmp(d->d_name, ".") == 0 || strcmp(d->d_name, "..") == 0)
            continue;
        if ((rc = join(sub, sizeof sub, path, d->d_name, err)) != 0)
            break;
        if (d->d_type == DT_REG)
            continue;
        if (d->d_type == DT_DIR) {
            rc = tree(sub, depth + 1, err);
            continue;
        }
        if (fstatat(dirfd(dir), d->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0) {
            rc = bx_error_errno(err, BX_EIO, sub, "cannot look at it");
        } else if (S_ISDIR(st.st_mode)) {
            rc = tree(sub, depth + 1, err);
        } else if (!S_ISREG(st.st_mode)) {
            rc = refuse(err, sub, st.st_mode, "a regular file");
        }
    }
    if (rc == 0 && errno != 0)
        rc = bx_error_errno(err, BX_EIO, path, "cannot read the folder");
    closedir(dir);
    return rc;
}

/* The text of a small file (checked regular, read without blocking), NUL-terminated, one
 * trailing newline removed: 1 read, 0 absent, <0 refused. */
static int small(const char *path, char *out, size_t n, bx_error *err)
{
    struct stat st;
    ssize_t got;
    int fd, rc = one(path, 0, err);

    if (rc <= 0)
        return rc;
    fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
        return bx_error_errno(err, BX_EIO, path, "cannot open it");
    if (fstat(fd, &st) != 0) {
        close(fd);
        return bx_error_errno(err, BX_EIO, path, "cannot look at it");
    }
    if (!S_ISREG(st.st_mode)) { /* replaced since it was looked at */
        close(fd);
        return refuse(err, path, st.st_mode, "a regular file");
    }
    if (st.st_size >= (off_t)n) {
        close(fd);
        return bx_error_set(err, BX_ECONFIG, path, "%lld bytes: longer than a path",
                            (long long)st.st_size);
    }
    got = read(fd, out, n - 1);
    close(fd);
    if (got < 0)
        return bx_error_errno(err, BX_EIO, path, "cannot read it");
    out[got] = '\0';
    if (got > 0 && out[got - 1] == '\n')
        out[--got] = '\0';
    if (got > 0 && out[got - 1] == '\r')
        out[--got] = '\0';
    return 1;
}

/* p made absolute against base (when relative) into out. */
static int resolve(char *out, size_t n, const char *base, const char *p, bx_error *err)
{
    if (p[0] == '/') {
        if (strlen(p) >= n)
            return bx_error_set(err, BX_ECONFIG, base, "path too long");
        memcpy(out, p, strlen(p) + 1);
        return 0;
    }
    return join(out, n, base, p, err);
}

/* An objects folder named by objects/info/alternates: its files regular; one that names
 * alternates of its own is refused (libgit2 would follow them, and they are not checked). */
static int alternates(const char *gitdir, bx_error *err)
{
    char path[PATH_MAX], text[PATH_MAX * 4], objects[PATH_MAX], alt[PATH_MAX];
    char *line, *save = NULL;
    int rc;

    if ((rc = join(objects, sizeof objects, gitdir, "objects", err)) != 0 ||
        (rc = join(path, sizeof path, objects, "info/alternates", err)) != 0)
        return rc;
    if ((rc = small(path, text, sizeof text, err)) <= 0)
        return rc;
    for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        char nested[PATH_MAX];
        struct stat st;
        if (!*line || *line == '#')
            continue;
        if ((rc = resolve(alt, sizeof alt, objects, line, err)) != 0 ||
            (rc = tree(alt, 0, err)) < 0)
            return rc;
        if ((rc = join(nested, sizeof nested, alt, "info/alternates", err)) != 0)
            return rc;
        if (fstatat(AT_FDCWD, nested, &st, AT_SYMLINK_NOFOLLOW) == 0 && st.st_size > 0)
            return bx_error_set(err, BX_ECONFIG, nested,
                                "alternates of an alternate object folder: not followed");
    }
    return 0;
}

/* A git folder: its files, its trees, its alternates and (depth 0) its common folder. */
static int gitdir(const char *g, int depth, bx_error *err)
{
    char path[PATH_MAX], text[PATH_MAX], common[PATH_MAX];
    int rc;

    if ((rc = one(g, 1, err)) < 0)
        return rc;
    if (rc == 0)
        return 0; /* nothing there: libgit2 says it is no repository */
    for (size_t i = 0; files[i]; i++) {
        if ((rc = join(path, sizeof path, g, files[i], err)) != 0 || (rc = one(path, 0, err)) < 0)
            return rc;
    }
    for (size_t i = 0; trees[i]; i++) {
        if ((rc = join(path, sizeof path, g, trees[i], err)) != 0 || (rc = tree(path, 0, err)) < 0)
            return rc;
    }
    if ((rc = alternates(g, err)) != 0)
        return rc;
    if ((rc = join(path, sizeof path, g, "commondir", err)) != 0 ||
        (rc = small(path, text, sizeof text, err)) < 0)
        return rc;
    if (rc == 1 && *text) {
        if (depth > 0)
            return bx_error_set(err, BX_ECONFIG, path, "a common folder that has one itself");
        if ((rc = resolve(common, sizeof common, g, text, err)) != 0)
            return rc;
        return gitdir(common, depth + 1, err);
    }
    return 0;
}

/* dir/.git, or dir as a git folder: 1 found and checked, 0 nothing there, <0 refused. */
static int at(const char *dir, int *bare, bx_error *err)
{
    char dotgit[PATH_MAX], text[PATH_MAX], g[PATH_MAX], head[PATH_MAX];
    struct stat st;
    int rc;

    if ((rc = join(dotgit, sizeof dotgit, dir, ".git", err)) != 0)
        return rc;
    if (fstatat(AT_FDCWD, dotgit, &st, AT_SYMLINK_NOFOLLOW) == 0) {
        if (S_ISDIR(st.st_mode))
            return (rc = gitdir(dotgit, 0, err)) < 0 ? rc : 1;
        if (!S_ISREG(st.st_mode))
            return refuse(err, dotgit, st.st_mode, "a folder or a file naming one");
        if ((rc = small(dotgit, text, sizeof text, err)) < 0)
            return rc;
        if (strncmp(text, "gitdir: ", 8) != 0)
            return bx_error_set(err, BX_ECONFIG, dotgit, "a file that names no git folder");
        if ((rc = resolve(g, sizeof g, dir, text + 8, err)) != 0)
            return rc;
        return (rc = gitdir(g, 0, err)) < 0 ? rc : 1;
    }
    if (errno != ENOENT && errno != ENOTDIR)
        return bx_error_errno(err, BX_EIO, dotgit, "cannot look at it");
    if ((rc = join(head, sizeof head, dir, "HEAD", err)) != 0)
        return rc;
    if (fstatat(AT_FDCWD, head, &st, AT_SYMLINK_NOFOLLOW) != 0)
        return 0;
    *bare = 1;
    return (rc = gitdir(dir, 0, err)) < 0 ? rc : 1;
}

int bx_git_layout_check(const char *dir, int search, int *bare, bx_error *err)
{
    char cur[PATH_MAX];
    int rc;

    *bare = 0;
    if (!dir || !*dir)
        return bx_error_set(err, BX_ECONFIG, NULL, "no repository folder given");
    if (!realpath(dir, cur))
        return 0; /* no such folder: libgit2 says so */
    for (;;) {
        char *slash;
        if ((rc = at(cur, bare, err)) != 0)
            return rc < 0 ? rc : 0;
        if (!search || strcmp(cur, "/") == 0)
            return 0;
        slash = strrchr(cur, '/');
        if (slash == cur)
            slash[1] = '\0';
        else
            *slash = '\0';
    }
}
