/* SPDX-License-Identifier: Apache-2.0 */
/* A task's references beyond its descriptors: the pure parsers of /proc/<pid>/maps and of
 * an io_uring descriptor's fdinfo (its registered files), and the judgement of a mapping
 * against the mounts of its task's mount namespace. Nothing here reads a file. */
#include "attest_internal.h"

#include <stdlib.h>
#include <string.h>

#define DELETED " (deleted)"

static int next_line(const char *buf, size_t len, size_t *at, const char **line, size_t *n)
{
    const char *nl;

    if (*at >= len)
        return 0;
    *line = buf + *at;
    nl = memchr(*line, '\n', len - *at);
    *n = nl ? (size_t)(nl - *line) : len - *at;
    *at += *n + (nl ? 1 : 0);
    return 1;
}

/* A number in base 10 or 16 at s[*i], at most max digits; -1 when none or it overflows. */
static int num(const char *s, size_t n, size_t *i, int base, uint64_t *v)
{
    size_t start = *i;

    *v = 0;
    while (*i < n) {
        int d;
        char c = s[*i];
        if (c >= '0' && c <= '9')
            d = c - '0';
        else if (base == 16 && c >= 'a' && c <= 'f')
            d = c - 'a' + 10;
        else if (base == 16 && c >= 'A' && c <= 'F')
            d = c - 'A' + 10;
        else
            break;
        if (*v > (UINT64_MAX - (uint64_t)d) / (uint64_t)base)
            return -1;
        *v = *v * (uint64_t)base + (uint64_t)d;
        (*i)++;
    }
    return *i > start ? 0 : -1;
}

static int expect(const char *s, size_t n, size_t *i, char c)
{
    if (*i >= n || s[*i] != c)
        return -1;
    (*i)++;
    return 0;
}

void bxa_mappings_free(bxa_mapping *m, size_t n)
{
    if (!m)
        return;
    for (size_t i = 0; i < n; i++)
        free(m[i].path);
    free(m);
}

static int parse_map_line(const char *s, size_t n, bxa_mapping *m)
{
    size_t i = 0;
    uint64_t v;

    memset(m, 0, sizeof *m);
    if (num(s, n, &i, 16, &m->start) || expect(s, n, &i, '-') || num(s, n, &i, 16, &m->end) ||
        m->end < m->start || expect(s, n, &i, ' ') || i + 4 > n)
        return -1;
    if ((s[i] != 'r' && s[i] != '-') || (s[i + 1] != 'w' && s[i + 1] != '-') ||
        (s[i + 2] != 'x' && s[i + 2] != '-') || (s[i + 3] != 's' && s[i + 3] != 'p'))
        return -1;
    m->read = s[i] == 'r';
    m->write = s[i + 1] == 'w';
    m->exec = s[i + 2] == 'x';
    m->shared = s[i + 3] == 's';
    i += 4;
    if (expect(s, n, &i, ' ') || num(s, n, &i, 16, &m->offset) || expect(s, n, &i, ' '))
        return -1;
    if (num(s, n, &i, 16, &v) || v > 0xfff || expect(s, n, &i, ':'))
        return -1;
    m->major = (unsigned)v;
    if (num(s, n, &i, 16, &v) || v > 0xfffff || expect(s, n, &i, ' '))
        return -1;
    m->minor = (unsigned)v;
    if (num(s, n, &i, 10, &m->inode))
        return -1;
    if (i == n)
        return 0;
    if (s[i] != ' ')
        return -1;
    while (i < n && s[i] == ' ')
        i++;
    if (i == n)
        return 0;
    n -= i;
    s += i;
    if (n >= sizeof DELETED - 1 &&
        memcmp(s + n - (sizeof DELETED - 1), DELETED, sizeof DELETED - 1) == 0) {
        m->deleted = 1;
        n -= sizeof DELETED - 1;
    }
    m->path = strndup(s, n);
    return m->path ? 0 : -2;
}

int bxa_parse_maps(const char *buf, size_t len, bxa_mapping **out, size_t *n, bx_error *err)
{
    size_t at = 0, ln = 0, cap = 0, ll;
    const char *line;
    bxa_mapping *m = NULL;

    *out = NULL;
    *n = 0;
    if (memchr(buf, '\0', len))
        return bx_error_set(err, BX_EINVAL, "maps", "NUL byte");
    while (next_line(buf, len, &at, &line, &ll)) {
        int rc;
        ln++;
        if (*n == cap) {
            size_t nc = cap ? cap * 2 : 16;
            bxa_mapping *g = realloc(m, nc * sizeof *m);
            if (!g) {
                bxa_mappings_free(m, *n);
                *n = 0;
                return bxa_oom(err);
            }
            m = g;
            cap = nc;
        }
        rc = parse_map_line(line, ll, &m[*n]);
        if (rc != 0) {
            bxa_mappings_free(m, *n);
            *n = 0;
            if (rc == -2)
                return bxa_oom(err);
            return bx_error_set(err, BX_EINVAL, "maps", "line %zu: not a mapping", ln);
        }
        (*n)++;
    }
    *out = m;
    return 0;
}

/* The names the kernel gives objects on its internal mounts (no mount namespace has them). */
static int kernel_object(const bxa_mapping *m)
{
    const char *p = m->path;

    if (!p || m->major != 0)
        return 0;
    if (strncmp(p, "anon_inode:", 11) == 0)
        return 1;
    if (!m->deleted)
        return 0;
    return strncmp(p, "/memfd:", 7) == 0 || strncmp(p, "/SYSV", 5) == 0 ||
           strcmp(p, "/dev/zero") == 0;
}

int bxa_mapping_where(const bxa_mapping *m, const bxa_mount *mounts, size_t nmounts)
{
    if (m->inode == 0)
        return BXA_REF_NONE;
    for (size_t i = 0; i < nmounts; i++)
        if (mounts[i].major == m->major && mounts[i].minor == m->minor)
            return BXA_REF_INSIDE;
    if (kernel_object(m))
        return BXA_REF_KERNEL;
    return BXA_REF_OUTSIDE;
}

int bxa_mapping_worst(const bxa_mapping *m, int where)
{
    return where == BXA_REF_OUTSIDE && m->shared && m->write;
}

/* Undo seq_file's octal escapes (\ooo) in place; -1 on a malformed one. */
static int unescape(char *s)
{
    char *w = s;

    for (char *r = s; *r; r++) {
        if (*r != '\\') {
            *w++ = *r;
            continue;
        }
        if (r[1] < '0' || r[1] > '3' || r[2] < '0' || r[2] > '7' || r[3] < '0' || r[3] > '7')
            return -1;
        *w++ = (char)((r[1] - '0') * 64 + (r[2] - '0') * 8 + (r[3] - '0'));
        r += 3;
    }
    *w = '\0';
    return 0;
}

int bxa_parse_io_uring_files(const char *buf, size_t len, json_t **files, bx_error *err)
{
    size_t at = 0, ll, i;
    const char *line;
    uint64_t count = 0, seen = 0, last = 0, v;
    int found = 0;

    *files = NULL;
    if (memchr(buf, '\0', len))
        return bx_error_set(err, BX_EINVAL, "io_uring fdinfo", "NUL byte");
    while (next_line(buf, len, &at, &line, &ll)) {
        if (ll >= 10 && memcmp(line, "UserFiles:", 10) == 0) {
            i = 10;
            while (i < ll && (line[i] == ' ' || line[i] == '\t'))
                i++;
            if (num(line, ll, &i, 10, &count) || i != ll || count > 1u << 20)
                return bx_error_set(err, BX_EINVAL, "io_uring fdinfo", "UserFiles is not a count");
            found = 1;
            break;
        }
    }
    if (!found)
        return bx_error_set(err, BX_EINVAL, "io_uring fdinfo", "no UserFiles line");
    *files = json_array();
    if (!*files)
        return bxa_oom(err);
    /* Older kernels print every slot ("<none>" when empty), newer ones only the filled
     * ones: the indexes rise and stay below the count. */
    while (next_line(buf, len, &at, &line, &ll)) {
        char *p;
        json_t *js;
        i = 0;
        while (i < ll && line[i] == ' ')
            i++;
        if (num(line, ll, &i, 10, &v) || expect(line, ll, &i, ':') || expect(line, ll, &i, ' '))
            break;
        if (v >= count || (seen && v <= last)) {
            json_decref(*files);
            *files = NULL;
            return bx_error_set(err, BX_EINVAL, "io_uring fdinfo", "entry %llu out of order",
                                (unsigned long long)v);
        }
        last = v;
        seen++;
        if (ll - i == 6 && memcmp(line + i, "<none>", 6) == 0)
            continue;
        p = strndup(line + i, ll - i);
        if (!p) {
            json_decref(*files);
            *files = NULL;
            return bxa_oom(err);
        }
        if (unescape(p) != 0 || !(js = json_string(p))) {
            free(p);
            json_decref(*files);
            *files = NULL;
            return bx_error_set(err, BX_EINVAL, "io_uring fdinfo", "entry %llu: not a path",
                                (unsigned long long)v);
        }
        free(p);
        if (json_array_append_new(*files, js) != 0) {
            json_decref(*files);
            *files = NULL;
            return bxa_oom(err);
        }
    }
    /* Files counted and none listed: the kernel did not hold the ring's lock. */
    if (count > 0 && seen == 0) {
        json_decref(*files);
        *files = NULL;
        return bx_error_set(err, BX_EINVAL, "io_uring fdinfo", "UserFiles lists none of %llu",
                            (unsigned long long)count);
    }
    return 0;
}
