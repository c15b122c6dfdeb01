/* SPDX-License-Identifier: Apache-2.0 */
/* Parsers of the kernel's own files: /proc/<pid>/{status,stat,cgroup,mountinfo,net/dev,
 * cmdline} and the cgroup controllers' limit files. Pure functions over bytes already read:
 * the reading (through a /proc/<pid> directory descriptor) is procread.c's. Every parser is
 * strict: a line it does not understand where it expects one is BX_EINVAL, so a kernel
 * that changed its formats stops the collection rather than giving a wrong reading. */
#include "attest_internal.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* ---- lines ------------------------------------------------------------------------- */

/* The next line of buf[*at..len) without its newline; 0 at the end. */
static int next_line(const char *buf, size_t len, size_t *at, const char **line, size_t *n)
{
    const char *nl;

    if (*at >= len)
        return 0;
    *line = buf + *at;
    nl = memchr(*line, '\n', len - *at);
    *n = nl ? (size_t)(nl - *line) : len - *at;
    *at += *n + (nl != NULL);
    return 1;
}

static int no_nul(const char *buf, size_t len)
{
    return memchr(buf, '\0', len) == NULL;
}

/* A decimal number without sign of at most 19 digits; the rest of s after it in *end. */
static int parse_u64(const char *s, size_t n, uint64_t *out, size_t *used)
{
    uint64_t v = 0;
    size_t i;

    for (i = 0; i < n && s[i] >= '0' && s[i] <= '9'; i++) {
        if (v > (UINT64_MAX - 9) / 10)
            return -1;
        v = v * 10 + (uint64_t)(s[i] - '0');
    }
    if (i == 0)
        return -1;
    *out = v;
    *used = i;
    return 0;
}

static int parse_hex64(const char *s, size_t n, uint64_t *out)
{
    uint64_t v = 0;

    if (n == 0 || n > 16)
        return -1;
    for (size_t i = 0; i < n; i++) {
        int d = isdigit((unsigned char)s[i])   ? s[i] - '0'
                : (s[i] >= 'a' && s[i] <= 'f') ? s[i] - 'a' + 10
                : (s[i] >= 'A' && s[i] <= 'F') ? s[i] - 'A' + 10
                                               : -1;
        if (d < 0)
            return -1;
        v = v << 4 | (uint64_t)d;
    }
    *out = v;
    return 0;
}

static size_t skip_ws(const char *s, size_t n, size_t i)
{
    while (i < n && (s[i] == ' ' || s[i] == '\t'))
        i++;
    return i;
}

/* ---- /proc/<pid>/status ------------------------------------------------------------- */

/* n ids separated by white space into out (at most max), count into *count. */
static int id_list(const char *s, size_t n, int64_t *out, size_t max, size_t *count)
{
    size_t i = 0, k = 0, used;
    uint64_t v;

    for (;;) {
        i = skip_ws(s, n, i);
        if (i == n)
            break;
        if (k == max || parse_u64(s + i, n - i, &v, &used) != 0 || v > 0xffffffffu)
            return -1;
        out[k++] = (int64_t)v;
        i += used;
        if (i < n && s[i] != ' ' && s[i] != '\t')
            return -1;
    }
    *count = k;
    return 0;
}

int bxa_parse_status(const char *buf, size_t len, bxa_status *st, bx_error *err)
{
    static const char *const caps[] = {"CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb"};
    size_t at = 0, n, k;
    const char *line;
    unsigned seen = 0;

    memset(st, 0, sizeof *st);
    if (!no_nul(buf, len))
        return bx_error_set(err, BX_EINVAL, "status", "NUL byte");
    while (next_line(buf, len, &at, &line, &n)) {
        const char *colon = memchr(line, ':', n);
        size_t klen, vs;
        uint64_t v;

        if (!colon)
            continue;
        klen = (size_t)(colon - line);
        vs = skip_ws(line, n, klen + 1);
        for (size_t c = 0; c < 5; c++) {
            if (klen == strlen(caps[c]) && memcmp(line, caps[c], klen) == 0) {
                if (parse_hex64(line + vs, n - vs, &st->caps[c]) != 0)
                    return bx_error_set(err, BX_EINVAL, "status", "%s is not a hex mask", caps[c]);
                seen |= 1u << c;
            }
        }
        if (klen == 4 && memcmp(line, "Name", 4) == 0) {
            size_t m = n - vs < sizeof st->name - 1 ? n - vs : sizeof st->name - 1;
            memcpy(st->name, line + vs, m);
            st->name[m] = '\0';
        } else if ((klen == 10 && memcmp(line, "NoNewPrivs", 10) == 0) ||
                   (klen == 7 && memcmp(line, "Seccomp", 7) == 0)) {
            if (parse_u64(line + vs, n - vs, &v, &k) != 0 || vs + k != n || v > 2)
                return bx_error_set(err, BX_EINVAL, "status", "%.*s is not 0, 1 or 2", (int)klen,
                                    line);
            if (klen == 10) {
                if (v > 1)
                    return bx_error_set(err, BX_EINVAL, "status", "NoNewPrivs is not 0 or 1");
                st->nnp = (int)v;
                seen |= 1u << 5;
            } else {
                st->seccomp = (int)v;
                seen |= 1u << 6;
            }
        } else if ((klen == 3 && (memcmp(line, "Uid", 3) == 0 || memcmp(line, "Gid", 3) == 0))) {
            int64_t *ids = line[0] == 'U' ? st->uid : st->gid;
            if (id_list(line + vs, n - vs, ids, 4, &k) != 0 || k != 4)
                return bx_error_set(err, BX_EINVAL, "status", "%.3s is not four ids", line);
            seen |= 1u << (line[0] == 'U' ? 7 : 8);
        } else if (klen == 6 && memcmp(line, "Groups", 6) == 0) {
            if (id_list(line + vs, n - vs, st->groups, BXA_GROUPS_MAX, &st->ngroups) != 0)
                return bx_error_set(err, BX_EINVAL, "status",
                                    "Groups is not a list of at most %d ids", BXA_GROUPS_MAX);
            seen |= 1u << 9;
        } else if (klen == 9 && memcmp(line, "TracerPid", 9) == 0) {
            if (parse_u64(line + vs, n - vs, &v, &k) != 0 || vs + k != n || v > INT64_MAX)
                return bx_error_set(err, BX_EINVAL, "status", "TracerPid is not a pid");
            st->tracer = (int64_t)v;
        } else if (klen == 5 && memcmp(line, "NSpid", 5) == 0) {
            int64_t levels[BXA_NSPID_MAX];
            size_t nl = 0;
            if (id_list(line + vs, n - vs, levels, BXA_NSPID_MAX, &nl) != 0 || nl == 0)
                return bx_error_set(err, BX_EINVAL, "status",
                                    "NSpid is not a list of at most %d pids", BXA_NSPID_MAX);
            st->nspid_depth = (int)nl;
            st->nspid_last = levels[nl - 1];
        }
    }
    if (seen != 0x3ff) {
        static const char *const names[] = {"CapInh",     "CapPrm",  "CapEff", "CapBnd", "CapAmb",
                                            "NoNewPrivs", "Seccomp", "Uid",    "Gid",    "Groups"};
        for (unsigned i = 0; i < 10; i++)
            if (!(seen & (1u << i)))
                return bx_error_set(err, BX_EINVAL, "status", "no %s line", names[i]);
    }
    /* "Seccomp: 1" is strict mode: recorded as a filter (the weaker reading) by callers */
    return 0;
}

/* ---- /proc/<pid>/stat ----------------------------------------------------------------- */

int bxa_parse_stat(const char *buf, size_t len, bxa_stat *st, bx_error *err)
{
    const char *close = NULL;
    size_t i, field, used;
    uint64_t v;

    memset(st, 0, sizeof *st);
    if (!no_nul(buf, len))
        return bx_error_set(err, BX_EINVAL, "stat", "NUL byte");
    /* comm may hold spaces and parentheses: the fields start after the last ')' */
    for (i = 0; i < len; i++)
        if (buf[i] == ')')
            close = buf + i;
    if (!close || close + 2 > buf + len || close[1] != ' ')
        return bx_error_set(err, BX_EINVAL, "stat", "no comm field");
    if (parse_u64(buf, len, &v, &used) != 0 || buf[used] != ' ')
        return bx_error_set(err, BX_EINVAL, "stat", "no pid field");
    st->pid = (int64_t)v;
    i = (size_t)(close - buf) + 2;
    /* field 3 is the state (one character); 4 ppid; 22 starttime */
    for (field = 3; field <= 22; field++) {
        size_t start = i;
        while (i < len && buf[i] != ' ' && buf[i] != '\n')
            i++;
        if (i == start)
            return bx_error_set(err, BX_EINVAL, "stat", "field %zu missing", field);
        if (field == 3) {
            st->state = buf[start];
        } else if (field == 4 || field == 22) {
            if (parse_u64(buf + start, i - start, &v, &used) != 0 || used != i - start)
                return bx_error_set(err, BX_EINVAL, "stat", "field %zu is not a number", field);
            if (field == 4)
                st->ppid = (int64_t)v;
            else
                st->starttime = v;
        }
        if (i < len && buf[i] == ' ')
            i++;
    }
    return 0;
}

/* ---- /proc/<pid>/cgroup --------------------------------------------------------------- */

void bxa_cgroups_free(bxa_cgroup *cg, size_t n)
{
    for (size_t i = 0; cg && i < n; i++) {
        free(cg[i].controllers);
        free(cg[i].path);
    }
    free(cg);
}

int bxa_parse_cgroup(const char *buf, size_t len, bxa_cgroup **out, size_t *count, bx_error *err)
{
    bxa_cgroup *cg = NULL;
    size_t n = 0, at = 0, ln, used;
    const char *line;
    int rc = 0;

    *out = NULL;
    *count = 0;
    if (!no_nul(buf, len))
        return bx_error_set(err, BX_EINVAL, "cgroup", "NUL byte");
    while (next_line(buf, len, &at, &line, &ln)) {
        const char *c1, *c2;
        uint64_t h;
        bxa_cgroup *g;

        if (ln == 0)
            continue;
        c1 = memchr(line, ':', ln);
        c2 = c1 ? memchr(c1 + 1, ':', ln - (size_t)(c1 + 1 - line)) : NULL;
        if (!c2 || parse_u64(line, (size_t)(c1 - line), &h, &used) != 0 ||
            used != (size_t)(c1 - line) || c2[1] != '/') {
            rc = bx_error_set(err, BX_EINVAL, "cgroup", "line %zu is not ID:CONTROLLERS:/PATH",
                              n + 1);
            goto out;
        }
        if (n == BXA_CGROUP_LINES_MAX) {
            rc = bx_error_set(err, BX_EINVAL, "cgroup", "more than %d hierarchies",
                              BXA_CGROUP_LINES_MAX);
            goto out;
        }
        if (!(g = realloc(cg, (n + 1) * sizeof *cg))) {
            rc = bx_error_set(err, BX_ENOMEM, NULL, "out of memory");
            goto out;
        }
        cg = g;
        cg[n].hierarchy = (int)h;
        cg[n].controllers = strndup(c1 + 1, (size_t)(c2 - c1 - 1));
        cg[n].path = strndup(c2 + 1, ln - (size_t)(c2 + 1 - line));
        n++;
        if (!cg[n - 1].controllers || !cg[n - 1].path) {
            rc = bx_error_set(err, BX_ENOMEM, NULL, "out of memory");
            goto out;
        }
    }
    *out = cg;
    *count = n;
    cg = NULL;
out:
    if (cg)
        bxa_cgroups_free(cg, n);
    return rc;
}

/* 1 if the comma-separated list has item. */
static int list_has(const char *list, const char *item)
{
    size_t n = strlen(item);

    for (const char *p = list; p && *p;) {
        const char *c = strchr(p, ',');
        size_t m = c ? (size_t)(c - p) : strlen(p);
        if (m == n && strncmp(p, item, n) == 0)
            return 1;
        p = c ? c + 1 : NULL;
    }
    return 0;
}

const char *bxa_cgroup_path(const bxa_cgroup *cg, size_t n, const char *controller)
{
    for (size_t i = 0; i < n; i++) {
        if (!controller && cg[i].hierarchy == 0 && cg[i].controllers[0] == '\0')
            return cg[i].path;
        if (controller && list_has(cg[i].controllers, controller))
            return cg[i].path;
    }
    return NULL;
}

/* The container Id as a whole component of a cgroup path, or inside one as docker's and
 * podman's drivers name them: "/docker/<id>", "docker-<id>.scope", "libpod-<id>". */
int bxa_cgroup_names(const char *path, const char *id)
{
    size_t n = strlen(id);

    if (n != 64)
        return 0;
    for (const char *p = path; (p = strstr(p, id)) != NULL; p++) {
        char before = p == path ? '/' : p[-1], after = p[n];
        if ((before == '/' || before == '-') &&
            (after == '\0' || after == '/' || strncmp(p + n, ".scope", 6) == 0))
            return 1;
    }
    return 0;
}

/* ---- /proc/<pid>/mountinfo -------------------------------------------------------------- */

void bxa_mounts_free(bxa_mount *m, size_t n)
{
    for (size_t i = 0; m && i < n; i++) {
        free(m[i].root);
        free(m[i].point);
        free(m[i].mnt_opts);
        free(m[i].optional);
        free(m[i].fstype);
        free(m[i].source);
        free(m[i].super_opts);
    }
    free(m);
}

/* A mountinfo field with the kernel's octal escapes (\040 for a space, \011, \012, \134)
 * undone. */
static char *unescape(const char *s, size_t n)
{
    char *out = malloc(n + 1);
    size_t k = 0;

    if (!out)
        return NULL;
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '\\' && i + 3 < n && s[i + 1] >= '0' && s[i + 1] <= '3' && s[i + 2] >= '0' &&
            s[i + 2] <= '7' && s[i + 3] >= '0' && s[i + 3] <= '7') {
            out[k++] = (char)((s[i + 1] - '0') * 64 + (s[i + 2] - '0') * 8 + (s[i + 3] - '0'));
            i += 3;
        } else {
            out[k++] = s[i];
        }
    }
    out[k] = '\0';
    if (memchr(out, '\0', k)) {
        free(out);
        return NULL;
    }
    return out;
}

/* Split line into space-separated fields (at most max). */
static size_t fields(const char *line, size_t n, const char **f, size_t *fl, size_t max)
{
    size_t k = 0, i = 0;

    while (i < n && k < max) {
        size_t s = i;
        while (i < n && line[i] != ' ')
            i++;
        f[k] = line + s;
        fl[k++] = i - s;
        if (i < n)
            i++;
    }
    return i < n ? max + 1 : k;
}

/* "major:minor", each decimal below 2^20 (the kernel's MINORBITS bound for both here). */
static int device_field(const char *s, size_t n, unsigned *major, unsigned *minor)
{
    uint64_t a, b;
    size_t used, used2;

    if (parse_u64(s, n, &a, &used) != 0 || used == 0 || used >= n || s[used] != ':' ||
        parse_u64(s + used + 1, n - used - 1, &b, &used2) != 0 || used2 == 0 ||
        used + 1 + used2 != n || a > 0xfffff || b > 0xfffff)
        return 0;
    *major = (unsigned)a;
    *minor = (unsigned)b;
    return 1;
}

int bxa_parse_mountinfo(const char *buf, size_t len, bxa_mount **out, size_t *count, bx_error *err)
{
    bxa_mount *m = NULL;
    size_t n = 0, at = 0, ln;
    const char *line;
    int rc = 0;

    *out = NULL;
    *count = 0;
    if (!no_nul(buf, len))
        return bx_error_set(err, BX_EINVAL, "mountinfo", "NUL byte");
    while (next_line(buf, len, &at, &line, &ln)) {
        const char *f[32];
        size_t fl[32], nf, sep, used, opt_len = 0;
        uint64_t v;
        bxa_mount *g, *e;
        char *opt = NULL;

        if (ln == 0)
            continue;
        nf = fields(line, ln, f, fl, 32);
        for (sep = 6; sep < nf && nf <= 32 && !(fl[sep] == 1 && f[sep][0] == '-'); sep++)
            ;
        if (nf > 32 || sep + 4 != nf || parse_u64(f[0], fl[0], &v, &used) != 0 || used != fl[0]) {
            rc = bx_error_set(err, BX_EINVAL, "mountinfo", "line %zu is not a mountinfo line",
                              n + 1);
            goto out;
        }
        if (n == BXA_MOUNTS_MAX) {
            rc = bx_error_set(err, BX_EINVAL, "mountinfo", "more than %d mounts", BXA_MOUNTS_MAX);
            goto out;
        }
        if (!(g = realloc(m, (n + 1) * sizeof *m))) {
            rc = bx_error_set(err, BX_ENOMEM, NULL, "out of memory");
            goto out;
        }
        m = g;
        e = &m[n++];
        memset(e, 0, sizeof *e);
        for (size_t i = 6; i < sep; i++)
            opt_len += fl[i] + 1;
        if (opt_len && (opt = malloc(opt_len))) {
            size_t k = 0;
            for (size_t i = 6; i < sep; i++) {
                memcpy(opt + k, f[i], fl[i]);
                k += fl[i];
                opt[k++] = i + 1 < sep ? ' ' : '\0';
            }
        }
        e->id = (int64_t)v;
        if (!device_field(f[2], fl[2], &e->major, &e->minor)) {
            rc = bx_error_set(err, BX_EINVAL, "mountinfo", "line %zu: bad device", n);
            goto out;
        }
        e->root = unescape(f[3], fl[3]);
        e->point = unescape(f[4], fl[4]);
        e->mnt_opts = strndup(f[5], fl[5]);
        e->optional = opt ? opt : strdup("");
        e->fstype = unescape(f[sep + 1], fl[sep + 1]);
        e->source = unescape(f[sep + 2], fl[sep + 2]);
        e->super_opts = strndup(f[sep + 3], fl[sep + 3]);
        if (!e->root || !e->point || !e->mnt_opts || !e->optional || !e->fstype || !e->source ||
            !e->super_opts) {
            rc = bx_error_set(err, BX_EINVAL, "mountinfo", "line %zu: bad field", n);
            goto out;
        }
        /* writable only when neither the mount nor its file system is read-only */
        e->writable = list_has(e->mnt_opts, "rw") && !list_has(e->super_opts, "ro");
    }
    *out = m;
    *count = n;
    m = NULL;
out:
    if (m)
        bxa_mounts_free(m, n);
    return rc;
}

/* The last mount at point (the one on top), or NULL. */
const bxa_mount *bxa_mount_at(const bxa_mount *m, size_t n, const char *point)
{
    for (size_t i = n; i > 0; i--)
        if (strcmp(m[i - 1].point, point) == 0)
            return &m[i - 1];
    return NULL;
}

int64_t bxa_mount_size_option(const bxa_mount *m)
{
    return bxa_size_option(m->super_opts);
}

/* size= in a comma-separated option list, as the kernel's memparse reads it (suffix k m g t
 * p e, either case); 0 when absent or not a plain size (e.g. a percentage), -1 when beyond
 * 2^53. */
int64_t bxa_size_option(const char *opts)
{
    const char *p = NULL;
    uint64_t v;
    size_t used;

    for (const char *o = opts; o && *o;) {
        if (strncmp(o, "size=", 5) == 0)
            p = o + 5;
        o = strchr(o, ',');
        o = o ? o + 1 : NULL;
    }
    if (!p || parse_u64(p, strlen(p), &v, &used) != 0)
        return 0;
    const char *units = "KMGTPE",
               *u = p[used] ? strchr(units, toupper((unsigned char)p[used])) : NULL;
    int shift = u && *u ? 10 * (int)(u - units + 1) : 0;
    const char *end = p + used + (u && *u ? 1 : 0);
    if (*end && *end != ',')
        return 0;
    if (v > (uint64_t)BX_JSON_MAX_INT || (shift && v > ((uint64_t)BX_JSON_MAX_INT >> shift)))
        return -1;
    return (int64_t)(v << shift);
}

/* ---- /proc/<pid>/net/dev --------------------------------------------------------------- */

int bxa_parse_net_dev(const char *buf, size_t len, json_t **names, bx_error *err)
{
    size_t at = 0, ln, k = 0;
    const char *line;
    json_t *r = json_array();
    int rc = 0;

    *names = NULL;
    if (!r)
        return bx_error_set(err, BX_ENOMEM, NULL, "out of memory");
    if (!no_nul(buf, len)) {
        rc = bx_error_set(err, BX_EINVAL, "net/dev", "NUL byte");
        goto out;
    }
    while (next_line(buf, len, &at, &line, &ln)) {
        const char *colon;
        size_t s;

        if (k++ < 2) { /* two header lines */
            if (!memchr(line, '|', ln)) {
                rc = bx_error_set(err, BX_EINVAL, "net/dev", "no header");
                goto out;
            }
            continue;
        }
        if (ln == 0)
            continue;
        colon = memchr(line, ':', ln);
        s = skip_ws(line, ln, 0);
        if (!colon || (size_t)(colon - line) <= s || (size_t)(colon - line) - s > 15) {
            rc = bx_error_set(err, BX_EINVAL, "net/dev", "line %zu has no interface name", k);
            goto out;
        }
        if (json_array_size(r) >= BXA_INTERFACES_MAX) {
            rc = bx_error_set(err, BX_EINVAL, "net/dev", "more than %d interfaces",
                              BXA_INTERFACES_MAX);
            goto out;
        }
        if (json_array_append_new(r, json_stringn_nocheck(line + s, (size_t)(colon - line) - s))) {
            rc = bx_error_set(err, BX_ENOMEM, NULL, "out of memory");
            goto out;
        }
    }
    if (k < 2) {
        rc = bx_error_set(err, BX_EINVAL, "net/dev", "no header");
        goto out;
    }
    bxa_sort_strings(r);
    *names = r;
    r = NULL;
out:
    json_decref(r);
    return rc;
}

/* ---- /proc/<pid>/cmdline ------------------------------------------------------------------ */

int bxa_parse_cmdline(const char *buf, size_t len, json_t **argv, bx_error *err)
{
    json_t *r = json_array();
    size_t i = 0;

    *argv = NULL;
    if (!r)
        return bx_error_set(err, BX_ENOMEM, NULL, "out of memory");
    while (i < len) {
        const char *end = memchr(buf + i, '\0', len - i);
        size_t n = end ? (size_t)(end - (buf + i)) : len - i;
        if (json_array_size(r) >= BXA_ARGS_MAX ||
            json_array_append_new(r, json_stringn_nocheck(buf + i, n)) != 0) {
            json_decref(r);
            return bx_error_set(err, BX_EINVAL, "cmdline", "more than %d arguments", BXA_ARGS_MAX);
        }
        i += n + 1;
    }
    *argv = r;
    return 0;
}

/* ---- cgroup controller files ----------------------------------------------------------- */

/* One value and a newline (or not). */
static int one_value(const char *buf, size_t len, size_t *n)
{
    if (!no_nul(buf, len))
        return -1;
    while (len > 0 && (buf[len - 1] == '\n' || buf[len - 1] == ' '))
        len--;
    if (len == 0 || memchr(buf, '\n', len))
        return -1;
    *n = len;
    return 0;
}

int bxa_parse_limit(const char *buf, size_t len, int64_t *out, bx_error *err)
{
    size_t n, used;
    uint64_t v;
    int neg = 0;

    *out = -1;
    if (one_value(buf, len, &n) != 0)
        return bx_error_set(err, BX_EINVAL, "cgroup", "not one value");
    if (n == 3 && memcmp(buf, "max", 3) == 0)
        return 0;
    if (buf[0] == '-') {
        neg = 1;
        buf++;
        n--;
    }
    if (parse_u64(buf, n, &v, &used) != 0 || used != n)
        return bx_error_set(err, BX_EINVAL, "cgroup", "not a number or max");
    if (neg) { /* cfs_quota_us -1: no quota */
        if (v != 1)
            return bx_error_set(err, BX_EINVAL, "cgroup", "negative value other than -1");
        return 0;
    }
    /* v1 writes "unlimited" as PAGE_COUNTER_MAX pages (9223372036854771712 with 4 KiB
     * pages); any value past 2^53 cannot be a limit anyone set */
    if (v > (uint64_t)BX_JSON_MAX_INT)
        return 0;
    *out = (int64_t)v;
    return 0;
}

int bxa_parse_cpu_max(const char *buf, size_t len, int64_t *quota, int64_t *period, bx_error *err)
{
    size_t n, used, sp;
    uint64_t v;
    const char *s;

    *quota = *period = -1;
    if (one_value(buf, len, &n) != 0 || !(s = memchr(buf, ' ', n)))
        return bx_error_set(err, BX_EINVAL, "cpu.max", "not QUOTA PERIOD");
    sp = (size_t)(s - buf);
    if (!(sp == 3 && memcmp(buf, "max", 3) == 0)) {
        if (parse_u64(buf, sp, &v, &used) != 0 || used != sp || v > (uint64_t)BX_JSON_MAX_INT)
            return bx_error_set(err, BX_EINVAL, "cpu.max", "quota is not a number or max");
        *quota = (int64_t)v;
    }
    if (parse_u64(s + 1, n - sp - 1, &v, &used) != 0 || used != n - sp - 1 ||
        v > (uint64_t)BX_JSON_MAX_INT)
        return bx_error_set(err, BX_EINVAL, "cpu.max", "period is not a number");
    *period = (int64_t)v;
    return 0;
}

/* A CPU or memory-node list ("0-3,8,10-11"): a bitmap of BXA_CPULIST_MAX bits, written back
 * in the kernel's own canonical form (ranges ascending, merged, "a-b" only when b > a). */
int bxa_parse_cpulist(const char *buf, size_t len, char *out, size_t outlen, bx_error *err)
{
    unsigned char set[BXA_CPULIST_MAX / 8];
    size_t i = 0, w = 0;

    memset(set, 0, sizeof set);
    if (!no_nul(buf, len))
        return bx_error_set(err, BX_EINVAL, "cpuset", "not a list of numbers");
    while (len > 0 && (buf[len - 1] == '\n' || buf[len - 1] == ' '))
        len--;
    while (i < len) {
        uint64_t a, b;
        size_t used;
        if (parse_u64(buf + i, len - i, &a, &used) != 0 || used == 0 || a >= BXA_CPULIST_MAX)
            return bx_error_set(err, BX_EINVAL, "cpuset", "not a list of numbers below %d",
                                BXA_CPULIST_MAX);
        i += used;
        b = a;
        if (i < len && buf[i] == '-') {
            i++;
            if (parse_u64(buf + i, len - i, &b, &used) != 0 || used == 0 ||
                b >= BXA_CPULIST_MAX || b < a)
                return bx_error_set(err, BX_EINVAL, "cpuset", "not a range a-b with a <= b");
            i += used;
        }
        for (uint64_t c = a; c <= b; c++)
            set[c / 8] |= (unsigned char)(1u << (c % 8));
        if (i < len) {
            if (buf[i] != ',' || i + 1 == len)
                return bx_error_set(err, BX_EINVAL, "cpuset", "not a comma-separated list");
            i++;
        }
    }
    if (outlen == 0)
        return bx_error_set(err, BX_EINVAL, "cpuset", "no room");
    out[0] = '\0';
    for (size_t c = 0; c < BXA_CPULIST_MAX;) {
        size_t e;
        int n;
        if (!(set[c / 8] & (1u << (c % 8)))) {
            c++;
            continue;
        }
        for (e = c; e + 1 < BXA_CPULIST_MAX && (set[(e + 1) / 8] & (1u << ((e + 1) % 8))); e++)
            ;
        n = e > c ? snprintf(out + w, outlen - w, "%s%zu-%zu", w ? "," : "", c, e)
                  : snprintf(out + w, outlen - w, "%s%zu", w ? "," : "", c);
        if (n < 0 || (size_t)n >= outlen - w)
            return bx_error_set(err, BX_EINVAL, "cpuset", "list longer than %zu bytes", outlen);
        w += (size_t)n;
        c = e + 1;
    }
    return 0;
}

int bxa_parse_devices_list(const char *buf, size_t len, int *allow_all, json_t **rules,
                           bx_error *err)
{
    size_t at = 0, ln;
    const char *line;
    json_t *r = json_array();

    *allow_all = 0;
    *rules = NULL;
    if (!r)
        return bx_error_set(err, BX_ENOMEM, NULL, "out of memory");
    if (!no_nul(buf, len)) {
        json_decref(r);
        return bx_error_set(err, BX_EINVAL, "devices.list", "NUL byte");
    }
    while (next_line(buf, len, &at, &line, &ln)) {
        bx_devrule dr;
        char tmp[64];

        if (ln == 0)
            continue;
        if (ln >= sizeof tmp) {
            json_decref(r);
            return bx_error_set(err, BX_EINVAL, "devices.list", "line too long");
        }
        memcpy(tmp, line, ln);
        tmp[ln] = '\0';
        if (bx_devrule_parse(tmp, &dr) != 0) { /* read exactly, as the kernel writes them */
            json_decref(r);
            return bx_error_set(err, BX_EINVAL, "devices.list", "not a device rule: %s", tmp);
        }
        if (dr.type == 'a' && dr.major == -1 && dr.minor == -1 &&
            dr.access == (BX_DEV_READ | BX_DEV_WRITE | BX_DEV_MKNOD))
            *allow_all = 1;
        if (json_array_size(r) >= BXA_DEVICE_RULES_MAX ||
            json_array_append_new(r, json_string(tmp)) != 0) {
            json_decref(r);
            return bx_error_set(err, BX_EINVAL, "devices.list", "too many rules");
        }
    }
    *rules = r;
    return 0;
}

/* ---- /proc/<pid>/uid_map, gid_map -------------------------------------------------------- */

int bxa_parse_id_map(const char *buf, size_t len, bxa_id_map *m, bx_error *err)
{
    size_t at = 0, n;
    const char *line;

    memset(m, 0, sizeof *m);
    if (!no_nul(buf, len))
        return bx_error_set(err, BX_EINVAL, "uid_map", "NUL byte");
    while (next_line(buf, len, &at, &line, &n)) {
        int64_t v[3];
        size_t k = 0;
        if (n == 0)
            continue;
        if (m->n == BXA_ID_MAP_MAX || id_list(line, n, v, 3, &k) != 0 || k != 3 || v[2] == 0 ||
            v[0] + v[2] > 4294967296LL || v[1] + v[2] > 4294967296LL)
            return bx_error_set(err, BX_EINVAL, "uid_map",
                                "not lines of three ids (inside, outside, count)");
        m->inside[m->n] = v[0];
        m->outside[m->n] = v[1];
        m->count[m->n] = v[2];
        m->n++;
    }
    return 0;
}

int64_t bxa_id_map_inside(const bxa_id_map *m, int64_t outside)
{
    for (size_t i = 0; i < m->n; i++)
        if (outside >= m->outside[i] && outside - m->outside[i] < m->count[i])
            return m->inside[i] + (outside - m->outside[i]);
    return BXA_OVERFLOW_ID;
}

/* ---- /proc/<pid>/fdinfo/<fd> -------------------------------------------------------------- */

int bxa_parse_fdinfo_mnt(const char *buf, size_t len, int64_t *mnt_id, bx_error *err)
{
    size_t at = 0, n;
    const char *line;

    *mnt_id = -1;
    if (!no_nul(buf, len))
        return bx_error_set(err, BX_EINVAL, "fdinfo", "NUL byte");
    while (next_line(buf, len, &at, &line, &n)) {
        uint64_t v;
        size_t k, vs;
        if (n < 7 || memcmp(line, "mnt_id:", 7) != 0)
            continue;
        vs = skip_ws(line, n, 7);
        if (parse_u64(line + vs, n - vs, &v, &k) != 0 || vs + k != n || v > INT64_MAX)
            return bx_error_set(err, BX_EINVAL, "fdinfo", "mnt_id is not a number");
        *mnt_id = (int64_t)v;
        return 0;
    }
    return bx_error_set(err, BX_EINVAL, "fdinfo", "no mnt_id line");
}

/* ---- namespace links ------------------------------------------------------------------------ */

int bxa_ns_link_parse(const char *link, char type[16], uint64_t *ino)
{
    const char *open = strchr(link, ':');
    size_t tl, used;
    uint64_t v;

    if (!open || open == link || (tl = (size_t)(open - link)) >= 16 || open[1] != '[')
        return -1;
    for (size_t i = 0; i < tl; i++)
        if (!((link[i] >= 'a' && link[i] <= 'z') || link[i] == '_'))
            return -1;
    if (parse_u64(open + 2, strlen(open + 2), &v, &used) != 0 || used == 0 ||
        strcmp(open + 2 + used, "]") != 0)
        return -1;
    memcpy(type, link, tl);
    type[tl] = '\0';
    *ino = v;
    return 0;
}

/* ---- a device against the rules of devices.list --------------------------------------------- */

int bxa_device_access(const json_t *rules, char type, unsigned major, unsigned minor)
{
    const json_t *r;
    size_t i;
    int access = 0;

    json_array_foreach(rules, i, r)
    {
        char t, maj[12], min[12], acc[8];
        int used = 0;
        const char *s = json_string_value(r);
        if (!s || sscanf(s, "%c %11[0-9*]:%11[0-9*] %7[rwm]%n", &t, maj, min, acc, &used) != 4 ||
            s[used] != '\0')
            continue;
        if (t != 'a' && t != type)
            continue;
        if (strcmp(maj, "*") != 0 && strtoul(maj, NULL, 10) != major)
            continue;
        if (strcmp(min, "*") != 0 && strtoul(min, NULL, 10) != minor)
            continue;
        access |= (strchr(acc, 'r') ? BXA_DEV_READ : 0) | (strchr(acc, 'w') ? BXA_DEV_WRITE : 0) |
                  (strchr(acc, 'm') ? BXA_DEV_MKNOD : 0);
    }
    return access;
}
