/* SPDX-License-Identifier: Apache-2.0 */
/* The raw bytes behind each evidence hash: kept while collecting, hashed into manifests,
 * and written out by collect --evidence-out so an auditor can re-derive every hash.
 *
 * Redaction: the container inspect's Config.Env (and the OCI spec's process.env) carry the
 * session's environment, often secrets. Each "K=V" string is replaced by "K=<redacted>"
 * in the JSON text itself (every other byte kept as the engine sent it) before the bytes
 * are hashed or written, so what is hashed is exactly what an auditor is given. */
#include "attest_internal.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

typedef struct {
    char *name;
    unsigned char *data;
    size_t len;
} ev_file;

struct bx_evidence {
    ev_file *files[BXA_EV_KINDS];
    size_t n[BXA_EV_KINDS];
};

static const char *const kind_dir[BXA_EV_KINDS] = {"engineInspect", "kernel", "ociSpec"};

bx_evidence *bxa_evidence_new(void)
{
    return calloc(1, sizeof(bx_evidence));
}

void bxa_evidence_free(bx_evidence *ev)
{
    if (!ev)
        return;
    for (int k = 0; k < BXA_EV_KINDS; k++) {
        for (size_t i = 0; i < ev->n[k]; i++) {
            free(ev->files[k][i].name);
            free(ev->files[k][i].data);
        }
        free(ev->files[k]);
    }
    free(ev);
}

/* At most two components of [A-Za-z0-9._-], none "." or "..", none "manifest.json" at the
 * top. */
static int safe_name(const char *name)
{
    const char *p = name;
    int parts = 0;

    if (strcmp(name, "manifest.json") == 0)
        return 0;
    while (*p) {
        size_t n = strspn(p, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-");
        if (n == 0 || n > 100 || (n == 1 && p[0] == '.') || (n == 2 && p[0] == '.' && p[1] == '.'))
            return 0;
        parts++;
        p += n;
        if (*p == '/' && p[1])
            p++;
        else if (*p)
            return 0;
    }
    return parts >= 1 && parts <= 2;
}

int bxa_evidence_add(bx_evidence *ev, int kind, const char *name, const void *data, size_t len,
                     bx_error *err)
{
    ev_file *f;

    if (!ev)
        return 0;
    if (kind < 0 || kind >= BXA_EV_KINDS || !safe_name(name))
        return bx_error_set(err, BX_EINVAL, name, "not an evidence file name");
    for (size_t i = 0; i < ev->n[kind]; i++)
        if (strcmp(ev->files[kind][i].name, name) == 0)
            return bx_error_set(err, BX_EINVAL, name, "evidence file kept twice");
    if (!(f = realloc(ev->files[kind], (ev->n[kind] + 1) * sizeof *f)))
        return bx_error_set(err, BX_ENOMEM, NULL, "out of memory");
    ev->files[kind] = f;
    f += ev->n[kind];
    f->name = strdup(name);
    f->data = malloc(len ? len : 1);
    f->len = len;
    if (!f->name || !f->data) {
        free(f->name);
        free(f->data);
        return bx_error_set(err, BX_ENOMEM, NULL, "out of memory");
    }
    if (len)
        memcpy(f->data, data, len);
    ev->n[kind]++;
    return 0;
}

static json_t *manifest(const bx_evidence *ev, int kind)
{
    json_t *m = json_object();
    char hex[65];

    for (size_t i = 0; m && i < ev->n[kind]; i++) {
        bx_sha256_hex(ev->files[kind][i].data, ev->files[kind][i].len, hex);
        if (json_object_set_new(m, ev->files[kind][i].name, json_string(hex)) != 0) {
            json_decref(m);
            m = NULL;
        }
    }
    return m;
}

int bxa_evidence_digest(const bx_evidence *ev, int kind, char hex[65], bx_error *err)
{
    json_t *m;
    int rc;

    hex[0] = '\0';
    if (!ev || ev->n[kind] == 0)
        return 0;
    if (!(m = manifest(ev, kind)))
        return bx_error_set(err, BX_ENOMEM, NULL, "out of memory");
    rc = bx_jcs_sha256_hex(m, hex, err);
    json_decref(m);
    return rc;
}

/* ---- redaction -------------------------------------------------------------------------- */

typedef struct {
    const char *s;
    size_t n, i;
    char *out;
    size_t len, cap;
    const char *const *path;
    size_t plen;
    int failed;
} scan;

static void emit(scan *x, const char *p, size_t n)
{
    if (x->failed)
        return;
    if (x->len + n + 1 > x->cap) {
        size_t cap = x->cap ? x->cap : 4096;
        while (cap < x->len + n + 1)
            cap *= 2;
        char *b = realloc(x->out, cap);
        if (!b) {
            x->failed = 1;
            return;
        }
        x->out = b;
        x->cap = cap;
    }
    memcpy(x->out + x->len, p, n);
    x->len += n;
    x->out[x->len] = '\0';
}

static void ws(scan *x)
{
    size_t s = x->i;
    while (x->i < x->n && strchr(" \t\r\n", x->s[x->i]))
        x->i++;
    emit(x, x->s + s, x->i - s);
}

/* The extent of the string token at x->i (quotes included). */
static int string_end(scan *x, size_t *end)
{
    size_t i = x->i + 1;
    while (i < x->n && x->s[i] != '"')
        i += x->s[i] == '\\' ? 2 : 1;
    if (i >= x->n)
        return -1;
    *end = i + 1;
    return 0;
}

static json_t *decode(const char *p, size_t n)
{
    return json_loadb(p, n, JSON_DECODE_ANY | JSON_ALLOW_NUL, NULL);
}

static int value(scan *x, long match, int depth);

static int redacted_string(scan *x, size_t end)
{
    json_t *v = decode(x->s + x->i, end - x->i), *r = NULL;
    const char *s = json_string_value(v), *eq = s ? memchr(s, '=', json_string_length(v)) : NULL;
    char *k = NULL, *dump = NULL;

    if (!s)
        goto fail;
    if (!eq) { /* "K" alone: nothing to redact */
        emit(x, x->s + x->i, end - x->i);
    } else {
        size_t kl = (size_t)(eq - s);
        if (!(k = malloc(kl + 12)))
            goto fail;
        memcpy(k, s, kl);
        memcpy(k + kl, "=<redacted>", 12);
        if (!(r = json_stringn_nocheck(k, kl + 11)) ||
            !(dump = json_dumps(r, JSON_ENCODE_ANY | JSON_COMPACT)))
            goto fail;
        emit(x, dump, strlen(dump));
    }
    x->i = end;
    free(dump);
    free(k);
    json_decref(r);
    json_decref(v);
    return 0;
fail:
    free(dump);
    free(k);
    json_decref(r);
    json_decref(v);
    return -1;
}

/* After a member or an item: ',' goes on (1), close ends the value (0), anything else is not
 * JSON (-1). */
static int next_or_close(scan *x, char close)
{
    ws(x);
    if (x->i < x->n && x->s[x->i] == ',') {
        emit(x, ",", 1);
        x->i++;
        ws(x);
        return 1;
    }
    if (x->i < x->n && x->s[x->i] == close) {
        emit(x, &close, 1);
        x->i++;
        return 0;
    }
    return -1;
}

static int object(scan *x, long match, int depth)
{
    int r;
    emit(x, "{", 1);
    x->i++;
    ws(x);
    if (x->i < x->n && x->s[x->i] == '}') {
        emit(x, "}", 1);
        x->i++;
        return 0;
    }
    for (;;) {
        size_t end;
        long child = -1;
        json_t *key;

        if (x->i >= x->n || x->s[x->i] != '"' || string_end(x, &end) != 0)
            return -1;
        /* only a key on the path is decoded and compared */
        if (match >= 0 && (size_t)match < x->plen) {
            key = decode(x->s + x->i, end - x->i);
            if (json_is_string(key) && strcmp(json_string_value(key), x->path[match]) == 0)
                child = match + 1;
            json_decref(key);
        }
        emit(x, x->s + x->i, end - x->i);
        x->i = end;
        ws(x);
        if (x->i >= x->n || x->s[x->i] != ':')
            return -1;
        emit(x, ":", 1);
        x->i++;
        ws(x);
        if (value(x, child, depth + 1) != 0)
            return -1;
        if ((r = next_or_close(x, '}')) <= 0)
            return r;
    }
}

static int array(scan *x, long match, int depth)
{
    int target = match >= 0 && (size_t)match == x->plen, r;

    emit(x, "[", 1);
    x->i++;
    ws(x);
    if (x->i < x->n && x->s[x->i] == ']') {
        emit(x, "]", 1);
        x->i++;
        return 0;
    }
    for (;;) {
        size_t end;
        if (target && x->i < x->n && x->s[x->i] == '"') {
            if (string_end(x, &end) != 0 || redacted_string(x, end) != 0)
                return -1;
        } else if (value(x, -1, depth + 1) != 0) {
            return -1;
        }
        if ((r = next_or_close(x, ']')) <= 0)
            return r;
    }
}

static int value(scan *x, long match, int depth)
{
    size_t s = x->i, end;

    if (depth > 512 || x->i >= x->n)
        return -1;
    switch (x->s[x->i]) {
    case '{':
        return object(x, match, depth);
    case '[':
        return array(x, match, depth);
    case '"':
        if (string_end(x, &end) != 0)
            return -1;
        x->i = end;
        break;
    default:
        while (x->i < x->n && !strchr(",]} \t\r\n", x->s[x->i]))
            x->i++;
        if (x->i == s)
            return -1;
    }
    emit(x, x->s + s, x->i - s);
    return 0;
}

int bxa_redact_env(const char *raw, size_t len, const char *const *path, char **out, size_t *outlen,
                   bx_error *err)
{
    scan x = {.s = raw, .n = len, .path = path};

    *out = NULL;
    *outlen = 0;
    while (path[x.plen])
        x.plen++;
    ws(&x);
    if (value(&x, 0, 0) != 0) {
        free(x.out);
        return bx_error_set(err, BX_EINVAL, NULL, "reply is not JSON: cannot redact it");
    }
    ws(&x);
    if (x.failed || x.i != x.n) {
        free(x.out);
        return x.failed ? bx_error_set(err, BX_ENOMEM, NULL, "out of memory")
                        : bx_error_set(err, BX_EINVAL, NULL, "trailing bytes after the reply");
    }
    if (!x.out)
        emit(&x, "", 0);
    *out = x.out;
    *outlen = x.len;
    return x.failed ? bx_error_set(err, BX_ENOMEM, NULL, "out of memory") : 0;
}

/* ---- writing ------------------------------------------------------------------------------ */

static int write_at(int dfd, const char *name, const void *buf, size_t len, bx_error *err)
{
    int fd = openat(dfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    const unsigned char *p = buf;
    int rc = 0;

    if (fd < 0)
        return bx_error_errno(err, BX_EIO, name, "cannot create evidence file");
    while (len > 0) {
        ssize_t n = write(fd, p, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            rc = bx_error_errno(err, BX_EIO, name, "cannot write evidence file");
            break;
        }
        p += n;
        len -= (size_t)n;
    }
    if (rc == 0 && fsync(fd) != 0)
        rc = bx_error_errno(err, BX_EIO, name, "cannot fsync evidence file");
    close(fd);
    return rc;
}

/* name "a/b": mkdirat a (once), write b under it. */
static int write_file(int dfd, const ev_file *f, bx_error *err)
{
    const char *slash = strchr(f->name, '/');
    char sub[128];
    int sfd, rc;

    if (!slash)
        return write_at(dfd, f->name, f->data, f->len, err);
    snprintf(sub, sizeof sub, "%.*s", (int)(slash - f->name), f->name);
    if (mkdirat(dfd, sub, 0700) != 0 && errno != EEXIST)
        return bx_error_errno(err, BX_EIO, sub, "cannot create evidence folder");
    sfd = openat(dfd, sub, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (sfd < 0)
        return bx_error_errno(err, BX_EIO, sub, "cannot open evidence folder");
    rc = write_at(sfd, slash + 1, f->data, f->len, err);
    close(sfd);
    return rc;
}

static int write_kind(int top, const bx_evidence *ev, int kind, bx_error *err)
{
    json_t *m = NULL;
    char *jcs = NULL;
    size_t jlen = 0;
    int dfd = -1, rc = 0;

    if (ev->n[kind] == 0)
        return 0;
    if (mkdirat(top, kind_dir[kind], 0700) != 0)
        return bx_error_errno(err, BX_EIO, kind_dir[kind], "cannot create evidence folder");
    if ((dfd = openat(top, kind_dir[kind], O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0)
        return bx_error_errno(err, BX_EIO, kind_dir[kind], "cannot open evidence folder");
    for (size_t i = 0; rc == 0 && i < ev->n[kind]; i++)
        rc = write_file(dfd, &ev->files[kind][i], err);
    if (rc == 0 && !(m = manifest(ev, kind)))
        rc = bx_error_set(err, BX_ENOMEM, NULL, "out of memory");
    if (rc == 0 && (rc = bx_jcs_serialize(m, &jcs, &jlen, err)) == 0)
        rc = write_at(dfd, "manifest.json", jcs, jlen, err);
    if (rc == 0 && fsync(dfd) != 0)
        rc = bx_error_errno(err, BX_EIO, kind_dir[kind], "cannot fsync evidence folder");
    free(jcs);
    json_decref(m);
    close(dfd);
    return rc;
}

/* The parent folder of path and its last component; refuses a parent writable by others
 * without the sticky bit. */
static int split(const char *path, char *parent, size_t plen, char *base, size_t blen,
                 bx_error *err)
{
    char a[PATH_MAX], b[PATH_MAX];
    struct stat st;

    if (!*path || strlen(path) >= sizeof a || path[strlen(path) - 1] == '/')
        return bx_error_set(err, BX_EIO, path, "not a folder path");
    snprintf(a, sizeof a, "%s", path);
    snprintf(b, sizeof b, "%s", path);
    snprintf(parent, plen, "%s", dirname(a));
    snprintf(base, blen, "%s", basename(b));
    if (strcmp(base, ".") == 0 || strcmp(base, "..") == 0)
        return bx_error_set(err, BX_EIO, path, "not a folder path");
    if (lstat(parent, &st) != 0)
        return bx_error_errno(err, BX_EIO, parent, "evidence folder's parent");
    if ((st.st_mode & S_IWOTH) && !(st.st_mode & S_ISVTX))
        return bx_error_set(err, BX_EIO, parent,
                            "writable by others without the sticky bit: refused");
    return 0;
}

int bx_evidence_stage(const bx_evidence *ev, const char *dir, char **staged, bx_error *err)
{
    char parent[PATH_MAX], base[NAME_MAX + 1], *tmp = NULL;
    struct stat st;
    int top = -1, rc;

    *staged = NULL;
    if ((rc = split(dir, parent, sizeof parent, base, sizeof base, err)) != 0)
        return rc;
    if (lstat(dir, &st) == 0) {
        DIR *d;
        struct dirent *e;
        int empty = 1;
        if (!S_ISDIR(st.st_mode))
            return bx_error_set(err, BX_EIO, dir, "exists and is not a folder");
        if (!(d = opendir(dir)))
            return bx_error_errno(err, BX_EIO, dir, "cannot read");
        while ((e = readdir(d)) != NULL)
            empty &= !strcmp(e->d_name, ".") || !strcmp(e->d_name, "..");
        closedir(d);
        if (!empty)
            return bx_error_set(err, BX_EIO, dir, "exists and is not empty: refused");
    }
    if (asprintf(&tmp, "%s/.%s.XXXXXX", parent, base) < 0)
        return bx_error_set(err, BX_ENOMEM, NULL, "out of memory");
    if (!mkdtemp(tmp)) {
        rc = bx_error_errno(err, BX_EIO, parent, "cannot create a folder for the evidence");
        free(tmp);
        return rc;
    }
    if ((top = open(tmp, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0) {
        rc = bx_error_errno(err, BX_EIO, tmp, "cannot open");
        goto out;
    }
    for (int k = 0; rc == 0 && k < BXA_EV_KINDS; k++)
        rc = write_kind(top, ev, k, err);
    if (rc == 0 && fsync(top) != 0)
        rc = bx_error_errno(err, BX_EIO, tmp, "cannot fsync");
out:
    if (top >= 0)
        close(top);
    if (rc != 0) {
        bx_evidence_discard(tmp);
        free(tmp);
        return rc;
    }
    *staged = tmp;
    return 0;
}

int bx_evidence_commit(const char *staged, const char *dir, bx_error *err)
{
    char parent[PATH_MAX], base[NAME_MAX + 1];
    int rc, pfd;

    if ((rc = split(dir, parent, sizeof parent, base, sizeof base, err)) != 0)
        return rc;
    /* rename(2) replaces only an empty folder: an existing file, a symlink or a folder with
     * something in it is refused */
    if (rename(staged, dir) != 0)
        return bx_error_errno(err, BX_EIO, dir, "cannot put the evidence in place");
    if ((pfd = open(parent, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) >= 0) {
        (void)fsync(pfd);
        close(pfd);
    }
    return 0;
}

static void remove_tree(int dfd, int depth)
{
    DIR *d;
    struct dirent *e;
    int fd = dup(dfd);

    if (fd < 0 || !(d = fdopendir(fd))) {
        if (fd >= 0)
            close(fd);
        return;
    }
    while ((e = readdir(d)) != NULL) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        if (unlinkat(dfd, e->d_name, 0) == 0)
            continue;
        if (depth < 4) {
            int sub = openat(dfd, e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
            if (sub >= 0) {
                remove_tree(sub, depth + 1);
                close(sub);
            }
        }
        (void)unlinkat(dfd, e->d_name, AT_REMOVEDIR);
    }
    closedir(d);
}

void bx_evidence_discard(const char *staged)
{
    int fd;

    if (!staged)
        return;
    fd = open(staged, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd >= 0) {
        remove_tree(fd, 0);
        close(fd);
    }
    (void)rmdir(staged);
}

void bxa_evidence_clear(bx_evidence *ev, int kind)
{
    if (!ev)
        return;
    for (size_t i = 0; i < ev->n[kind]; i++) {
        free(ev->files[kind][i].name);
        free(ev->files[kind][i].data);
    }
    free(ev->files[kind]);
    ev->files[kind] = NULL;
    ev->n[kind] = 0;
}
