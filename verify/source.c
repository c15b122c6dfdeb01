/* SPDX-License-Identifier: Apache-2.0 */
/* The one certificate source (bx_verify.h, "certificate inputs"): a file, a JSON Lines
 * bundle, a folder of them, or standard input, every input handed on in order, and none
 * dropped in silence. What cannot be read is an input too, an error one, naming the file and
 * the line; what runs out of memory stops the whole (BX_ENOMEM), never a shorter list.
 *
 * Nothing is read that could block or never end: only regular files are opened (without
 * blocking, and checked with fstat before a byte is read); a bundle's lines are bounded by the
 * size cap while they are read, and a line over it ends that bundle (its framing can no longer
 * be trusted, and an endless input must end). */
#include "bx_verify.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define DEPTH_MAX 32
#define CHUNK (64 * 1024)

typedef struct {
    const bx_source_opts *o;
    size_t max;
    bx_source_fn fn;
    void *arg;
    char *path; /* the name of what is read in a folder, grown as the walk goes down */
    size_t plen, pcap;
} src;

static int ends_with(const char *s, const char *suf)
{
    size_t a = strlen(s), b = strlen(suf);
    return a >= b && strcmp(s + a - b, suf) == 0;
}

int bx_source_is_certificate_name(const char *name)
{
    return ends_with(name, ".intoto.json") || ends_with(name, ".intoto.jsonl");
}

/* An error input: file (and line) could not be read, for reason. */
static int error_input(src *s, const char *file, size_t line, const bx_error *why)
{
    bx_input in = {.kind = BX_INPUT_ERROR, .file = file, .line = line, .err = *why};
    return s->fn(s->arg, &in);
}

static int skipped_input(src *s, const char *file, const char *why)
{
    bx_input in = {.kind = BX_INPUT_SKIPPED, .file = file};
    snprintf(in.err.msg, sizeof in.err.msg, "%s", why);
    return s->fn(s->arg, &in);
}

/* Hand on buf (ownership passes): one envelope. */
static int cert_input(src *s, const char *file, size_t line, char *buf, size_t len)
{
    bx_input in = {.kind = BX_INPUT_CERT, .file = file, .line = line, .buf = buf, .len = len};
    int rc = s->fn(s->arg, &in);
    free(in.buf); /* NULL when the callback took it */
    return rc;
}

/* Open name in the folder dfd (AT_FDCWD: path) for reading only if it is a regular file:
 * O_NONBLOCK so a FIFO or a device named like a certificate cannot hang the open, fstat
 * before any read. path names it in errors. -1 with why set otherwise. */
static int open_regular(int dfd, const char *name, const char *path, struct stat *st, bx_error *why)
{
    int fd = openat(dfd, name, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    if (fd < 0) {
        /* a socket cannot be opened at all (ENXIO): what is not a regular file is the input's
         * fault, not the environment's */
        struct stat ls;
        if (errno == ENXIO && fstatat(dfd, name, &ls, 0) == 0 && !S_ISREG(ls.st_mode))
            return bx_error_set(why, BX_EINVAL, path,
                                "not a regular file (a FIFO, socket or device is never read)"),
                   -1;
        bx_error_errno(why, BX_EIO, path, "cannot open");
        return -1;
    }
    if (fstat(fd, st) != 0) {
        bx_error_errno(why, BX_EIO, path, "cannot stat");
        close(fd);
        return -1;
    }
    if (!S_ISREG(st->st_mode)) {
        bx_error_set(why, BX_EINVAL, path,
                     "not a regular file (a FIFO, socket or device is never read)");
        close(fd);
        return -1;
    }
    return fd;
}

/* ---- one envelope a file --------------------------------------------------------------- */

static int single(src *s, int dfd, const char *name, const char *path)
{
    struct stat st;
    bx_error why;
    char *buf = NULL;
    size_t len = 0;
    int fd = open_regular(dfd, name, path, &st, &why);

    if (fd < 0)
        return error_input(s, path, 0, &why);
    /* one byte of slack for a final newline, which is not part of the envelope */
    if ((uintmax_t)st.st_size > s->max + 1) {
        close(fd);
        bx_error_set(&why, BX_EINVAL, path, "too large: %jd bytes (max %zu)", (intmax_t)st.st_size,
                     s->max);
        return error_input(s, path, 0, &why);
    }
    if (!(buf = bx_malloc((size_t)st.st_size + 2))) {
        close(fd);
        return BX_ENOMEM;
    }
    for (;;) { /* read to the end, never past the cap (a file growing while read) */
        ssize_t n = read(fd, buf + len, (size_t)st.st_size + 1 - len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            bx_error_errno(&why, BX_EIO, path, "cannot read");
            close(fd);
            free(buf);
            return error_input(s, path, 0, &why);
        }
        if (n == 0)
            break;
        len += (size_t)n;
        if (len > (size_t)st.st_size) {
            close(fd);
            free(buf);
            bx_error_set(&why, BX_EIO, path, "changed while it was read");
            return error_input(s, path, 0, &why);
        }
    }
    close(fd);
    while (len > 0 && (buf[len - 1] == '\n' || buf[len - 1] == '\r'))
        len--;
    buf[len] = '\0';
    return cert_input(s, path, 0, buf, len);
}

/* ---- JSON Lines ------------------------------------------------------------------------- */

/* Append n bytes to the line being read; -1 when out of memory. */
static int append(char **line, size_t *len, size_t *cap, const char *p, size_t n)
{
    if (*len + n + 1 > *cap) {
        size_t want = *cap ? *cap : 4096;
        char *g;
        while (want < *len + n + 1)
            want *= 2;
        if (!(g = bx_realloc(*line, want)))
            return -1;
        *line = g;
        *cap = want;
    }
    memcpy(*line + *len, p, n);
    *len += n;
    return 0;
}

/* A line over the cap: an error input naming it (the bundle is not read further). */
static int too_long(src *s, const char *path, size_t lineno)
{
    bx_error why;
    bx_error_set(&why, BX_EINVAL, path,
                 "line %zu: too large: over %zu bytes (the rest of the bundle is not read)", lineno,
                 s->max);
    return error_input(s, path, lineno, &why);
}

/* The lines of fd, each at most s->max bytes (a CR before the LF is not counted): a longer
 * one is an error input naming its line, and the end of the bundle. Blank lines are none. */
static int lines(src *s, int fd, const char *path)
{
    char *chunk = bx_malloc(CHUNK), *line = NULL;
    size_t llen = 0, lcap = 0, lineno = 1;
    int rc = 0;
    bx_error why;

    if (!chunk)
        return BX_ENOMEM;
    for (;;) {
        ssize_t n = read(fd, chunk, CHUNK);
        size_t i = 0;
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            bx_error_errno(&why, BX_EIO, path, "cannot read line %zu", lineno);
            rc = error_input(s, path, lineno, &why);
            break;
        }
        while (rc == 0 && (i < (size_t)n || (n == 0 && llen))) {
            const char *nl = n ? memchr(chunk + i, '\n', (size_t)n - i) : NULL;
            size_t take = nl ? (size_t)(nl - (chunk + i)) : (size_t)n - i;
            if (llen + take > s->max + 1) { /* over the cap (and its CR) before its end */
                rc = too_long(s, path, lineno);
                goto out;
            }
            if (take && append(&line, &llen, &lcap, chunk + i, take) != 0) {
                rc = BX_ENOMEM;
                goto out;
            }
            i += take;
            if (!nl && n)
                break; /* the line goes on in the next chunk */
            i += nl != NULL;
            if (llen && line[llen - 1] == '\r')
                llen--;
            if (llen > s->max) {
                rc = too_long(s, path, lineno);
                goto out;
            }
            if (llen) {
                char *buf = bx_malloc(llen + 1);
                if (!buf) {
                    rc = BX_ENOMEM;
                    goto out;
                }
                memcpy(buf, line, llen);
                buf[llen] = '\0';
                rc = cert_input(s, path, lineno, buf, llen);
            }
            llen = 0;
            lineno++;
        }
        if (rc != 0 || n == 0)
            break;
    }
out:
    free(chunk);
    free(line);
    return rc;
}

static int bundle(src *s, int dfd, const char *name, const char *path)
{
    struct stat st;
    bx_error why;
    int fd, rc;

    if (strcmp(path, "-") == 0)
        return lines(s, STDIN_FILENO, "-");
    if ((fd = open_regular(dfd, name, path, &st, &why)) < 0)
        return error_input(s, path, 0, &why);
    rc = lines(s, fd, path);
    close(fd);
    return rc;
}

/* ---- folders ------------------------------------------------------------------------------
 * Walked by descriptor: each entry is examined (fstatat) and opened (openat) relative to its
 * folder's descriptor, never by a path, so no path length limits the walk and no folder is
 * reached through a link. s->path holds the name of what is being read, for the report. */

static int name_cmp(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Append "/name" (no second slash) to s->path; BX_ENOMEM when out of memory. */
static int path_push(src *s, const char *name)
{
    size_t n = strlen(name), sep = s->plen && s->path[s->plen - 1] != '/';
    if (s->plen + sep + n + 1 > s->pcap) {
        size_t cap = s->pcap ? s->pcap : 256;
        char *g;
        while (cap < s->plen + sep + n + 1)
            cap *= 2;
        if (!(g = bx_realloc(s->path, cap)))
            return BX_ENOMEM;
        s->path = g;
        s->pcap = cap;
    }
    if (sep)
        s->path[s->plen++] = '/';
    memcpy(s->path + s->plen, name, n + 1);
    s->plen += n;
    return 0;
}

static int folder(src *s, int dfd, int depth);

/* One entry of the folder dfd, named s->path. */
static int entry(src *s, int dfd, const char *name, int depth)
{
    struct stat st, to;
    bx_error why;
    const char *path = s->path;
    int rc;

    /* an entry that cannot be examined is an error, never "not a certificate" */
    if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) != 0) {
        bx_error_errno(&why, BX_EIO, path,
                       errno == ENOENT ? "gone while its folder was read" : "cannot examine");
        return error_input(s, path, 0, &why);
    }
    if (bx_source_is_certificate_name(name))
        /* named as a certificate, it is judged as one: what is not a regular file (a folder,
         * a FIFO, a device) is an error input, never a silence */
        return ends_with(name, ".jsonl") ? bundle(s, dfd, name, path) : single(s, dfd, name, path);
    if (S_ISDIR(st.st_mode)) {
        if (!s->o || !s->o->recursive)
            return skipped_input(s, path, "a folder (--recursive reads folders too)");
        if (depth + 1 >= DEPTH_MAX) {
            bx_error_set(&why, BX_EINVAL, path, "folders nested deeper than %d", DEPTH_MAX);
            return error_input(s, path, 0, &why);
        }
        int cfd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
        if (cfd < 0) {
            bx_error_errno(&why, BX_EIO, path, "cannot open the folder");
            return error_input(s, path, 0, &why);
        }
        if (fstat(cfd, &to) != 0 || to.st_dev != st.st_dev || to.st_ino != st.st_ino) {
            close(cfd);
            bx_error_set(&why, BX_EIO, path, "replaced while its folder was read");
            return error_input(s, path, 0, &why);
        }
        rc = folder(s, cfd, depth + 1);
        close(cfd);
        return rc;
    }
    if (S_ISLNK(st.st_mode) && fstatat(dfd, name, &to, 0) == 0 && S_ISDIR(to.st_mode))
        return skipped_input(s, path, "a link to a folder (never followed)");
    return skipped_input(s, path, "not a certificate's name (*.intoto.json, *.intoto.jsonl)");
}

/* The entries of the folder dfd (borrowed), named s->path, in name order. */
static int folder(src *s, int dfd, int depth)
{
    DIR *d = NULL;
    struct dirent *e;
    char **names = NULL;
    size_t n = 0, cap = 0, base = s->plen;
    int rc = 0, lfd = dup(dfd);
    bx_error why;

    if (lfd < 0 || !(d = fdopendir(lfd))) {
        if (lfd >= 0)
            close(lfd);
        bx_error_errno(&why, BX_EIO, s->path, "cannot open the folder");
        return error_input(s, s->path, 0, &why);
    }
    rewinddir(d);
    for (;;) {
        errno = 0;
        if (!(e = readdir(d))) {
            if (errno) { /* the folder could not be read to its end: the list is not whole */
                bx_error_errno(&why, BX_EIO, s->path, "cannot read the folder");
                rc = error_input(s, s->path, 0, &why);
                if (rc)
                    goto out;
            }
            break;
        }
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        if (n == cap) {
            size_t c = cap ? 2 * cap : 64;
            char **g = bx_realloc(names, c * sizeof *names);
            if (!g) {
                rc = BX_ENOMEM;
                goto out;
            }
            names = g;
            cap = c;
        }
        if (!(names[n] = bx_strdup(e->d_name))) {
            rc = BX_ENOMEM;
            goto out;
        }
        n++;
    }
    closedir(d);
    d = NULL;
    if (n)
        qsort(names, n, sizeof *names, name_cmp);
    for (size_t i = 0; rc == 0 && i < n; i++) {
        if ((rc = path_push(s, names[i])) != 0)
            break;
        rc = entry(s, dfd, names[i], depth);
        s->plen = base;
        s->path[base] = '\0';
    }
out:
    if (d)
        closedir(d);
    for (size_t i = 0; i < n; i++)
        free(names[i]);
    free(names);
    return rc;
}

static int input(src *s, const char *path)
{
    struct stat st;
    bx_error why;
    int fd, rc;

    if (strcmp(path, "-") == 0)
        return bundle(s, AT_FDCWD, path, path);
    if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
        /* the folder named is read through a link; none below it is */
        if ((fd = open(path, O_RDONLY | O_DIRECTORY | O_NONBLOCK | O_CLOEXEC)) < 0) {
            bx_error_errno(&why, BX_EIO, path, "cannot open the folder");
            return error_input(s, path, 0, &why);
        }
        s->plen = 0;
        rc = path_push(s, path);
        if (rc == 0)
            rc = folder(s, fd, 0);
        close(fd);
        return rc;
    }
    return ends_with(path, ".jsonl") ? bundle(s, AT_FDCWD, path, path)
                                     : single(s, AT_FDCWD, path, path);
}

int bx_source_read(const char *path, const bx_source_opts *o, bx_source_fn fn, void *arg)
{
    src s = {.o = o,
             .max = o && o->max_size ? o->max_size : BX_ENVELOPE_MAX_DEFAULT,
             .fn = fn,
             .arg = arg};
    int rc = input(&s, path);
    free(s.path);
    return rc;
}

/* ---- exactly one ------------------------------------------------------------------------- */

typedef struct {
    char *buf;
    size_t len, n;
    bx_error why;
    int error;
} one;

static int take_one(void *arg, bx_input *in)
{
    one *o = arg;
    o->n++;
    if (in->kind == BX_INPUT_ERROR && !o->error) {
        o->error = 1;
        o->why = in->err;
    } else if (in->kind == BX_INPUT_CERT && !o->buf) {
        o->buf = in->buf;
        o->len = in->len;
        in->buf = NULL;
    }
    return 0;
}

int bx_source_read_one(const char *path, const bx_source_opts *opts, char **buf, size_t *len,
                       bx_error *err)
{
    struct stat st;
    one o = {0};
    int rc;

    *buf = NULL;
    *len = 0;
    if (strcmp(path, "-") != 0 && stat(path, &st) == 0 && S_ISDIR(st.st_mode))
        return bx_error_set(err, BX_EINVAL, path, "a folder: one certificate is wanted here");
    if ((rc = bx_source_read(path, opts, take_one, &o)) != 0) {
        free(o.buf);
        return bx_error_set(err, rc, path, "out of memory");
    }
    if (o.error || o.n != 1 || !o.buf) {
        free(o.buf);
        if (o.error) {
            *err = o.why;
            return o.why.code ? o.why.code : BX_EINVAL;
        }
        return bx_error_set(err, BX_EINVAL, path, "holds %zu certificates: one is wanted here",
                            o.n);
    }
    *buf = o.buf;
    *len = o.len;
    return 0;
}
