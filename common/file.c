/* SPDX-License-Identifier: Apache-2.0 */
#include "bx_common.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <stdio.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>
#include <openssl/rand.h>

/* ---- reading ---------------------------------------------------------------- */

typedef struct {
    char *p;
    size_t len, cap;
} rbuf;

static int rbuf_grow(rbuf *b, size_t limit)
{
    size_t cap = b->cap < 4096 ? 4096 : b->cap * 2;
    if (cap > limit + 1)
        cap = limit + 1;
    if (cap <= b->cap)
        return -1;
    char *p = bx_realloc(b->p, cap);
    if (!p)
        return -1;
    b->p = p;
    b->cap = cap;
    return 0;
}

/* Reads fd to EOF into b, stopping once more than max bytes have arrived. */
static int read_all(int fd, const char *path, size_t max, rbuf *b, bx_error *err)
{
    size_t limit = max < SIZE_MAX - 1 ? max + 1 : SIZE_MAX - 1; /* one over the cap detects it */
    for (;;) {
        if (b->len == limit)
            return bx_error_set(err, BX_EINVAL, path, "too large: over %zu bytes", max);
        if (b->cap - b->len < 2 && rbuf_grow(b, limit) < 0)
            return bx_error_set(err, BX_ENOMEM, path, "out of memory");
        size_t want = b->cap - 1 - b->len;
        if (want > limit - b->len)
            want = limit - b->len;
        ssize_t n = read(fd, b->p + b->len, want);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return bx_error_errno(err, BX_EIO, path, "cannot read");
        if (n == 0)
            return 0;
        b->len += (size_t)n;
    }
}

/* Refuses what is not a regular file (stdin, "-", is a stream) and what is over max. */
static int check_readable(int fd, const char *path, int is_stdin, size_t max, rbuf *b,
                          bx_error *err)
{
    struct stat st;
    if (fstat(fd, &st) < 0)
        return bx_error_errno(err, BX_EIO, path, "cannot stat");
    if (S_ISDIR(st.st_mode))
        return bx_error_set(err, BX_ECONFIG, path, "is a directory");
    if (!S_ISREG(st.st_mode) && !is_stdin)
        return bx_error_set(err, BX_ECONFIG, path,
                            "is not a regular file (a FIFO, socket or device is never read)");
    if (S_ISREG(st.st_mode) && (uintmax_t)st.st_size > max)
        return bx_error_set(err, BX_EINVAL, path, "too large: %jd bytes (max %zu)",
                            (intmax_t)st.st_size, max);
    if (S_ISREG(st.st_mode) && st.st_size > 0) {
        b->cap = (size_t)st.st_size + 2; /* +1 for the NUL, +1 to see growth at once */
        b->p = bx_malloc(b->cap);
        if (!b->p)
            return bx_error_set(err, BX_ENOMEM, path, "out of memory");
    }
    return 0;
}

int bx_read_file(const char *path, size_t max, unsigned flags, char **out, size_t *len,
                 bx_error *err)
{
    int is_stdin = strcmp(path, "-") == 0;
    const char *name = is_stdin ? "<stdin>" : path;
    /* O_NONBLOCK: opening a FIFO or a device must not block; what is not a regular file is
     * refused before a byte is read */
    int fd = is_stdin ? STDIN_FILENO : open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    rbuf b = {0};
    int rc = 0;
    if (fd < 0 && errno == ENXIO) { /* a socket (or a device without its driver) */
        rc = bx_error_set(err, BX_ECONFIG, name,
                          "is not a regular file (a FIFO, socket or device is never read)");
        goto out;
    }
    if (fd < 0) {
        rc = bx_error_errno(err, BX_EIO, name, "cannot open");
        goto out;
    }
    rc = check_readable(fd, name, is_stdin, max, &b, err);
    if (rc)
        goto out;
    rc = read_all(fd, name, max, &b, err);
    if (rc)
        goto out;
    if (b.len == 0 && !(flags & BX_READ_EMPTY_OK)) {
        rc = bx_error_set(err, BX_ECONFIG, name, "is empty");
        goto out;
    }
    if (!b.p && rbuf_grow(&b, 0) < 0) {
        rc = bx_error_set(err, BX_ENOMEM, name, "out of memory");
        goto out;
    }
    b.p[b.len] = '\0';
    *out = b.p;
    *len = b.len;
    b.p = NULL;
out:
    free(b.p);
    if (fd >= 0 && !is_stdin)
        close(fd);
    return rc;
}

/* ---- writing ---------------------------------------------------------------- */

static int write_all(int fd, const void *buf, size_t len)
{
    const char *p = buf;
    while (len > 0) {
        ssize_t n = write(fd, p, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return -1;
        if (n == 0) {
            errno = EIO;
            return -1;
        }
        p += n;
        len -= (size_t)n;
    }
    return 0;
}

/* Write, fsync and close fd (always closed). */
static int write_sync_close(int fd, const void *buf, size_t len, const char *path, bx_error *err)
{
    int rc = 0;
    if (write_all(fd, buf, len) < 0)
        rc = bx_error_errno(err, BX_EIO, path, "cannot write %zu bytes", len);
    else if (fsync(fd) < 0)
        rc = bx_error_errno(err, BX_EIO, path, "cannot sync");
    if (close(fd) < 0 && rc == 0)
        rc = bx_error_errno(err, BX_EIO, path, "cannot close");
    return rc;
}

/* Split path into its folder (malloc'd) and final component (pointer into path). */
static int split_path(const char *path, char **dir, const char **base, bx_error *err)
{
    const char *slash = strrchr(path, '/');
    *base = slash ? slash + 1 : path;
    if (!**base || strcmp(*base, ".") == 0 || strcmp(*base, "..") == 0)
        return bx_error_set(err, BX_EIO, path, "not a file name");
    if (!slash)
        *dir = strdup(".");
    else if (slash == path)
        *dir = strdup("/");
    else
        *dir = strndup(path, (size_t)(slash - path));
    if (!*dir)
        return bx_error_set(err, BX_ENOMEM, path, "out of memory");
    return 0;
}

static int open_dir_checked(const char *dir, const char *path, int *dfd, bx_error *err)
{
    struct stat st;
    *dfd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (*dfd < 0)
        return bx_error_errno(err, BX_EIO, path, "cannot open folder %s", dir);
    if (fstat(*dfd, &st) < 0)
        return bx_error_errno(err, BX_EIO, path, "cannot stat folder %s", dir);
    if ((st.st_mode & S_IWOTH) && !(st.st_mode & S_ISVTX))
        return bx_error_set(err, BX_EIO, path,
                            "folder %s is writable by others without the sticky bit", dir);
    return 0;
}

static int check_target(int dfd, const char *base, const char *path, bx_error *err)
{
    struct stat st;
    if (fstatat(dfd, base, &st, AT_SYMLINK_NOFOLLOW) < 0)
        return errno == ENOENT ? 0 : bx_error_errno(err, BX_EIO, path, "cannot stat");
    if (S_ISLNK(st.st_mode))
        return bx_error_set(err, BX_EIO, path, "is a symlink");
    if (!S_ISREG(st.st_mode))
        return bx_error_set(err, BX_EIO, path, "exists and is not a regular file");
    return 0;
}

/* Create ".<base>.XXXXXX" exclusively in dfd; its name goes to tmp. */
static int create_temp(int dfd, const char *base, unsigned mode, char *tmp, size_t tmplen,
                       const char *path, bx_error *err)
{
    static const char chars[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
    if ((size_t)snprintf(tmp, tmplen, ".%s.XXXXXX", base) >= tmplen)
        return bx_error_set(err, BX_EIO, path, "file name too long");
    char *suffix = tmp + strlen(tmp) - 6;
    for (int attempt = 0; attempt < 100; attempt++) {
        unsigned char rnd[6];
        /* a name, not a secret (O_EXCL makes it safe): the kernel's bytes, not OpenSSL's
         * DRBG, whose first use costs as much as verifying a certificate */
        if (getrandom(rnd, sizeof rnd, 0) != (ssize_t)sizeof rnd && RAND_bytes(rnd, sizeof rnd) != 1)
            return bx_error_ssl(err, BX_EIO, path, "no randomness for a temporary name");
        for (int i = 0; i < 6; i++)
            suffix[i] = chars[rnd[i] % (sizeof chars - 1)];
        int fd = openat(dfd, tmp, O_CREAT | O_EXCL | O_NOFOLLOW | O_WRONLY | O_CLOEXEC,
                        (mode_t)(mode & 07777));
        if (fd >= 0)
            return fd;
        if (errno != EEXIST)
            return bx_error_errno(err, BX_EIO, path, "cannot create a temporary file");
    }
    return bx_error_set(err, BX_EIO, path, "cannot create a temporary file: names exhausted");
}

struct bx_atomic {
    char *path;
    char *dir;
    char tmp[NAME_MAX + 1];
    int dfd;
    FILE *f;
};

void bx_atomic_abort(bx_atomic *a)
{
    if (!a)
        return;
    if (a->f)
        fclose(a->f);
    if (a->tmp[0])
        unlinkat(a->dfd, a->tmp, 0);
    if (a->dfd >= 0)
        close(a->dfd);
    free(a->dir);
    free(a->path);
    free(a);
}

int bx_atomic_open(const char *path, unsigned mode, bx_atomic **out, FILE **f, bx_error *err)
{
    const char *base;
    int fd, rc;
    bx_atomic *a = calloc(1, sizeof *a);
    if (!a)
        return bx_error_set(err, BX_ENOMEM, path, "out of memory");
    a->dfd = -1;
    if (!(a->path = strdup(path))) {
        rc = bx_error_set(err, BX_ENOMEM, path, "out of memory");
        goto fail;
    }
    if ((rc = split_path(path, &a->dir, &base, err)) != 0 ||
        (rc = open_dir_checked(a->dir, path, &a->dfd, err)) != 0 ||
        (rc = check_target(a->dfd, base, path, err)) != 0)
        goto fail;
    fd = create_temp(a->dfd, base, mode, a->tmp, sizeof a->tmp, path, err);
    if (fd < 0) {
        a->tmp[0] = '\0';
        rc = fd;
        goto fail;
    }
    a->f = fdopen(fd, "w");
    if (!a->f) {
        close(fd);
        rc = bx_error_errno(err, BX_EIO, path, "cannot open the temporary file");
        goto fail;
    }
    *out = a;
    *f = a->f;
    return 0;
fail:
    bx_atomic_abort(a);
    return rc;
}

int bx_atomic_commit(bx_atomic *a, bx_error *err)
{
    int rc = 0;
    const char *base = strrchr(a->path, '/') ? strrchr(a->path, '/') + 1 : a->path;
    FILE *f = a->f;
    a->f = NULL;
    if (fflush(f) != 0 || ferror(f))
        rc = bx_error_errno(err, BX_EIO, a->path, "cannot write");
    else if (fsync(fileno(f)) < 0)
        rc = bx_error_errno(err, BX_EIO, a->path, "cannot sync");
    if (fclose(f) != 0 && rc == 0)
        rc = bx_error_errno(err, BX_EIO, a->path, "cannot close");
    if (rc == 0 && renameat(a->dfd, a->tmp, a->dfd, base) < 0)
        rc = bx_error_errno(err, BX_EIO, a->path, "cannot rename the temporary file into place");
    if (rc == 0) {
        a->tmp[0] = '\0';
        if (fsync(a->dfd) < 0 && errno != EINVAL)
            rc = bx_error_errno(err, BX_EIO, a->path, "cannot sync folder %s", a->dir);
    }
    bx_atomic_abort(a);
    return rc;
}

int bx_write_file_atomic(const char *path, const void *buf, size_t len, unsigned mode,
                         bx_error *err)
{
    bx_atomic *a = NULL;
    FILE *f = NULL;
    int rc = bx_atomic_open(path, mode, &a, &f, err);
    if (rc)
        return rc;
    if (len && fwrite(buf, 1, len, f) != len) {
        rc = bx_error_errno(err, BX_EIO, path, "cannot write %zu bytes", len);
        bx_atomic_abort(a);
        return rc;
    }
    return bx_atomic_commit(a, err);
}

/* renameat2(RENAME_NOREPLACE); where the file system cannot, link(2) the temporary file to
 * the name (fails if it exists) and unlink it. 0, or -1 with errno (EEXIST: taken). */
static int rename_noreplace(int dfd, const char *from, const char *to)
{
    if (renameat2(dfd, from, dfd, to, RENAME_NOREPLACE) == 0)
        return 0;
    if (errno != EINVAL && errno != ENOSYS)
        return -1;
    if (linkat(dfd, from, dfd, to, 0) != 0)
        return -1;
    unlinkat(dfd, from, 0);
    return 0;
}

int bx_write_file_new(const char *path, const void *buf, size_t len, unsigned mode, int sync_folder,
                      int *exists, bx_error *err)
{
    char *dir = NULL, tmp[NAME_MAX + 1] = "";
    const char *base;
    int dfd = -1, fd, rc;

    if (exists)
        *exists = 0;
    if ((rc = split_path(path, &dir, &base, err)) != 0 ||
        (rc = open_dir_checked(dir, path, &dfd, err)) != 0 ||
        (rc = check_target(dfd, base, path, err)) != 0)
        goto out;
    if (faccessat(dfd, base, F_OK, AT_SYMLINK_NOFOLLOW) == 0) {
        if (exists)
            *exists = 1;
        rc = bx_error_set(err, BX_EIO, path, "already exists");
        goto out;
    }
    if ((fd = create_temp(dfd, base, mode, tmp, sizeof tmp, path, err)) < 0) {
        tmp[0] = '\0';
        rc = fd;
        goto out;
    }
    if ((rc = write_sync_close(fd, buf, len, path, err)) != 0)
        goto out;
    if (rename_noreplace(dfd, tmp, base) != 0) {
        if (errno == EEXIST && exists)
            *exists = 1;
        rc = errno == EEXIST ? bx_error_set(err, BX_EIO, path, "already exists")
                             : bx_error_errno(err, BX_EIO, path,
                                              "cannot rename the temporary file into place");
        goto out;
    }
    tmp[0] = '\0';
    if (sync_folder && fsync(dfd) < 0 && errno != EINVAL)
        rc = bx_error_errno(err, BX_EIO, path, "cannot sync folder %s", dir);
out:
    if (tmp[0])
        unlinkat(dfd, tmp, 0);
    if (dfd >= 0)
        close(dfd);
    free(dir);
    return rc;
}

int bx_sync_folder(const char *dir, bx_error *err)
{
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC), rc = 0;

    if (fd < 0)
        return bx_error_errno(err, BX_EIO, dir, "cannot open folder");
    if (fsync(fd) < 0 && errno != EINVAL)
        rc = bx_error_errno(err, BX_EIO, dir, "cannot sync folder");
    close(fd);
    return rc;
}

int bx_write_file_excl(const char *path, const void *buf, size_t len, unsigned mode, bx_error *err)
{
    int fd =
        open(path, O_CREAT | O_EXCL | O_NOFOLLOW | O_WRONLY | O_CLOEXEC, (mode_t)(mode & 07777));
    if (fd < 0)
        return errno == EEXIST ? bx_error_set(err, BX_EIO, path, "already exists")
                               : bx_error_errno(err, BX_EIO, path, "cannot create");
    int rc = write_sync_close(fd, buf, len, path, err);
    if (rc)
        unlink(path);
    return rc;
}
