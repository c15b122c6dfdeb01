/* SPDX-License-Identifier: Apache-2.0 */
/* AppArmor as the kernel applies it: whether this host has AppArmor at all
 * (/sys/module/apparmor/parameters/enabled), every task's label
 * (/proc/<pid>/task/<tid>/attr/apparmor/current, or attr/current on kernels before the
 * LSM-specific files, when AppArmor is this host's LSM), its stacked profiles (a//&b), their
 * policy namespaces (:ns:) and modes, and each loaded profile's hash from securityfs
 * (policy/profiles/<name>.<n>/sha256), so a profile edited and reloaded under the same name
 * shows. */
#include "attest_internal.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define LABEL_MAX 4096
#define LABELS_MAX 64

struct bxa_aa {
    int host;     /* 1 AppArmor on this host, 0 not, -1 not known */
    int read;     /* host looked at */
    int enforced; /* every task so far confined by a profile in enforce or kill mode */
    int unread;   /* some task's label not readable */
    json_t *labels;
};

void bxa_aa_free(bxa_aa *a)
{
    if (!a)
        return;
    json_decref(a->labels);
    free(a);
}

/* ---- the label, parsed --------------------------------------------------------------------- */

/* "mixed": the kernel's word for a stack whose profiles' modes differ (each profile's own is
 * then read from securityfs) */
static const char *const modes[] = {"enforce", "complain", "kill", "unconfined",
                                    "user",    "mixed",    NULL};

static int mode_known(const char *m, size_t n)
{
    for (size_t i = 0; modes[i]; i++)
        if (strlen(modes[i]) == n && memcmp(modes[i], m, n) == 0)
            return 1;
    return 0;
}

/* One component "[:NS:]NAME[ (MODE)]" of a label into p; mode NULL when not written. */
static int component(const char *s, size_t n, bxa_aa_profile *p)
{
    const char *ns = "", *name = s, *mode = NULL;
    size_t nsl = 0, namel = n, model = 0;

    if (n >= 3 && s[n - 1] == ')') {
        const char *open = NULL;
        for (size_t i = n - 1; i-- > 1;)
            if (s[i] == '(' && s[i - 1] == ' ') {
                open = s + i;
                break;
            }
        if (open) {
            mode = open + 1;
            model = (size_t)(s + n - 1 - mode);
            if (!mode_known(mode, model))
                return -1;
            namel = (size_t)(open - 1 - s);
        }
    }
    if (namel && name[0] == ':') {
        const char *end = memchr(name + 1, ':', namel - 1);
        if (!end || end == name + 1)
            return -1;
        ns = name + 1;
        nsl = (size_t)(end - ns);
        namel -= nsl + 2;
        name = end + 1;
    }
    if (namel == 0 || namel >= sizeof p->name || nsl >= sizeof p->ns || model >= sizeof p->mode)
        return -1;
    for (size_t i = 0; i < namel; i++)
        if ((unsigned char)name[i] < 0x20 || name[i] == 0x7f)
            return -1;
    memcpy(p->name, name, namel);
    p->name[namel] = '\0';
    memcpy(p->ns, ns, nsl);
    p->ns[nsl] = '\0';
    memcpy(p->mode, mode ? mode : "", model);
    p->mode[model] = '\0';
    return 0;
}

int bxa_aa_parse_label(const char *buf, size_t len, bxa_aa_label *out)
{
    size_t at = 0, n = len;
    const char *last_mode = NULL;

    memset(out, 0, sizeof *out);
    while (n && (buf[n - 1] == '\n' || buf[n - 1] == '\0'))
        n--;
    if (n == 0 || n >= sizeof out->text || memchr(buf, '\0', n) || memchr(buf, '\n', n))
        return -1;
    memcpy(out->text, buf, n);
    out->text[n] = '\0';
    while (at < n) {
        const char *s = buf + at, *sep = NULL;
        for (size_t i = at; i + 3 <= n; i++)
            if (buf[i] == '/' && buf[i + 1] == '/' && buf[i + 2] == '&') {
                sep = buf + i;
                break;
            }
        size_t cl = sep ? (size_t)(sep - s) : n - at;
        if (out->n == BXA_AA_STACK_MAX || component(s, cl, &out->p[out->n]) != 0)
            return -1;
        out->n++;
        at += cl + (sep ? 3 : 0);
        if (sep && at == n)
            return -1;
    }
    /* "a//&b (enforce)": one mode at the end is every profile's */
    for (size_t i = 0; i < out->n; i++)
        if (out->p[i].mode[0])
            last_mode = out->p[i].mode;
    for (size_t i = 0; i < out->n; i++) {
        if (!out->p[i].mode[0]) {
            if (strcmp(out->p[i].name, "unconfined") == 0)
                snprintf(out->p[i].mode, sizeof out->p[i].mode, "unconfined");
            else if (last_mode)
                snprintf(out->p[i].mode, sizeof out->p[i].mode, "%s", last_mode);
            else
                return -1; /* a profile without a mode */
        }
    }
    return 0;
}

int bxa_aa_label_enforced(const bxa_aa_label *l)
{
    for (size_t i = 0; i < l->n; i++)
        if (strcmp(l->p[i].mode, "enforce") == 0 || strcmp(l->p[i].mode, "kill") == 0)
            return 1;
    return 0;
}

/* ---- this host --------------------------------------------------------------------------- */

static const char *prefix(bxa_kctx *k)
{
    return k->s->paths.mount_prefix ? k->s->paths.mount_prefix : "";
}

/* A small file of this host (under the recorded tree's prefix): 0, or -1 (errno). */
static int host_file(bxa_kctx *k, const char *path, char *out, size_t len)
{
    char full[PATH_MAX];
    ssize_t r;
    int fd;

    if ((size_t)snprintf(full, sizeof full, "%s%s", prefix(k), path) >= sizeof full) {
        errno = ENAMETOOLONG;
        return -1;
    }
    if ((fd = open(full, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)) < 0)
        return -1;
    r = read(fd, out, len - 1);
    close(fd);
    if (r < 0)
        return -1;
    out[r] = '\0';
    while (r > 0 && (out[r - 1] == '\n' || out[r - 1] == ' '))
        out[--r] = '\0';
    return 0;
}

static int host_has(bxa_kctx *k)
{
    char v[16];

    if (host_file(k, "/sys/module/apparmor/parameters/enabled", v, sizeof v) != 0)
        return errno == ENOENT ? 0 : -1; /* no such module: no AppArmor */
    return strcmp(v, "Y") == 0 ? 1 : strcmp(v, "N") == 0 ? 0 : -1;
}

static int hex64(const char *s)
{
    if (strlen(s) != 64)
        return 0;
    for (size_t i = 0; i < 64; i++)
        if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
            return 0;
    return 1;
}

/* A file of the loaded profile in securityfs (sha256, mode): the folder of
 * policy/[namespaces/NS/]profiles whose name file says name; "" when not found (no
 * securityfs, a hat, hashing off). */
static void profile_file(bxa_kctx *k, const char *ns, const char *name, const char *file, char *out,
                         size_t outlen)
{
    char dir[PATH_MAX];
    size_t l;
    DIR *d;
    struct dirent *e;

    out[0] = '\0';
    l = (size_t)snprintf(dir, sizeof dir, "%s/sys/kernel/security/apparmor/policy", prefix(k));
    for (const char *p = ns; *p && l < sizeof dir;) {
        const char *end = strstr(p, "//");
        size_t pl = end ? (size_t)(end - p) : strlen(p);
        if (pl == 0 || memchr(p, '/', pl) || (pl <= 2 && p[0] == '.'))
            return;
        l += (size_t)snprintf(dir + l, sizeof dir - l, "/namespaces/%.*s", (int)pl, p);
        p += pl + (end ? 2 : 0);
    }
    if (l >= sizeof dir || (size_t)snprintf(dir + l, sizeof dir - l, "/profiles") >= sizeof dir - l)
        return;
    if (!(d = opendir(dir)))
        return;
    while ((e = readdir(d))) {
        char path[PATH_MAX], v[512];
        if (e->d_name[0] == '.')
            continue;
        if ((size_t)snprintf(path, sizeof path, "%s/%s/name", dir + strlen(prefix(k)), e->d_name) >=
                sizeof path ||
            host_file(k, path, v, sizeof v) != 0 || strcmp(v, name) != 0)
            continue;
        if ((size_t)snprintf(path, sizeof path, "%s/%s/%s", dir + strlen(prefix(k)), e->d_name,
                             file) < sizeof path &&
            host_file(k, path, v, sizeof v) == 0 && strlen(v) < outlen)
            memcpy(out, v, strlen(v) + 1);
        break;
    }
    closedir(d);
}

static void profile_sha(bxa_kctx *k, const char *ns, const char *name, char out[65])
{
    profile_file(k, ns, name, "sha256", out, 65);
    if (!hex64(out))
        out[0] = '\0';
}

/* "a//&b (mixed)": each profile's own mode from securityfs; -1 when one is not found there
 * or is not a mode. */
static int resolve_mixed(bxa_kctx *k, bxa_aa_label *l)
{
    for (size_t i = 0; i < l->n; i++) {
        char m[32];
        if (strcmp(l->p[i].mode, "mixed") != 0)
            continue;
        profile_file(k, l->p[i].ns, l->p[i].name, "mode", m, sizeof m);
        if (!m[0] || strcmp(m, "mixed") == 0 || !mode_known(m, strlen(m)))
            return -1;
        if (strlen(m) >= sizeof l->p[i].mode)
            return -1;
        memcpy(l->p[i].mode, m, strlen(m) + 1);
    }
    return 0;
}

/* ---- the session's tasks ------------------------------------------------------------------- */

static bxa_aa *state(bxa_kctx *k, bxa_weakest *w)
{
    if (!w->aa) {
        if (!(w->aa = calloc(1, sizeof *w->aa)) || !(w->aa->labels = json_array())) {
            bxa_aa_free(w->aa);
            w->aa = NULL;
            return NULL;
        }
        w->aa->enforced = 1;
    }
    if (!w->aa->read) {
        w->aa->host = host_has(k);
        w->aa->read = 1;
    }
    return w->aa;
}

int bxa_aa_task(bxa_kctx *k, bxa_weakest *w, bxa_proc *p, int64_t tid)
{
    bxa_aa *a = state(k, w);
    char path[96], what[64], *buf = NULL;
    size_t len = 0;
    bxa_aa_label l;
    bx_error e;
    int rc;

    if (!a)
        return bxa_oom(k->err);
    if (a->host == 0)
        return 0; /* no AppArmor: no label to read */
    snprintf(path, sizeof path, "task/%lld/attr/apparmor/current", (long long)tid);
    rc = bxa_read_at(p->dfd, path, LABEL_MAX, &buf, &len, &e);
    if (rc != 0 && a->host == 1) {
        /* before the LSM-specific files (5.8), attr/current is AppArmor's where it is the LSM */
        snprintf(path, sizeof path, "task/%lld/attr/current", (long long)tid);
        rc = bxa_read_at(p->dfd, path, LABEL_MAX, &buf, &len, &e);
    }
    if (rc != 0 || bxa_aa_parse_label(buf, len, &l) != 0 || resolve_mixed(k, &l) != 0) {
        a->unread = 1;
        free(buf);
        return 0;
    }
    if (tid == p->pid)
        snprintf(what, sizeof what, "apparmor");
    else
        snprintf(what, sizeof what, "task.%lld.apparmor", (long long)tid);
    rc = bxa_keep_proc(k, p, what, buf, len);
    free(buf);
    if (rc != 0)
        return rc;
    a->enforced &= bxa_aa_label_enforced(&l);
    {
        const json_t *v;
        size_t i;
        int dup = 0;
        json_array_foreach(a->labels, i, v) dup |= strcmp(json_string_value(v), l.text) == 0;
        if (!dup && json_array_size(a->labels) >= LABELS_MAX) {
            a->unread = 1; /* more kinds of label than a certificate keeps */
            return 0;
        }
        if (!dup && json_array_append_new(a->labels, json_string(l.text)) != 0)
            return bxa_oom(k->err);
    }
    return 0;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(json_string_value(*(json_t *const *)a), json_string_value(*(json_t *const *)b));
}

static int cmp_profile(const void *a, const void *b)
{
    const json_t *x = *(json_t *const *)a, *y = *(json_t *const *)b;
    int r = strcmp(json_string_value(json_object_get(x, "namespace")),
                   json_string_value(json_object_get(y, "namespace")));
    if (!r)
        r = strcmp(json_string_value(json_object_get(x, "name")),
                   json_string_value(json_object_get(y, "name")));
    return r ? r
             : strcmp(json_string_value(json_object_get(x, "mode")),
                      json_string_value(json_object_get(y, "mode")));
}

int bxa_aa_view(bxa_kctx *k, bxa_weakest *w, json_t *view)
{
    bxa_aa *a = state(k, w);
    json_t *profiles = json_array(), *kern = NULL, *labels;
    const json_t *v;
    size_t i;

    if (!a || !profiles) {
        json_decref(profiles);
        return bxa_oom(k->err);
    }
    labels = a->labels;
    json_array_foreach(labels, i, v)
    {
        bxa_aa_label l;
        const char *s = json_string_value(v);
        if (bxa_aa_parse_label(s, strlen(s), &l) != 0 || resolve_mixed(k, &l) != 0)
            continue;
        for (size_t j = 0; j < l.n; j++) {
            char sha[65] = "";
            const json_t *q;
            size_t m;
            int dup = 0;
            json_array_foreach(profiles, m, q)
            {
                dup |= strcmp(json_string_value(json_object_get(q, "namespace")), l.p[j].ns) == 0 &&
                       strcmp(json_string_value(json_object_get(q, "name")), l.p[j].name) == 0 &&
                       strcmp(json_string_value(json_object_get(q, "mode")), l.p[j].mode) == 0;
            }
            if (dup)
                continue;
            if (strcmp(l.p[j].name, "unconfined") != 0) /* the pseudo-profile has none */
                profile_sha(k, l.p[j].ns, l.p[j].name, sha);
            if (json_array_append_new(profiles,
                                      json_pack("{s:s,s:s,s:s,s:o}", "namespace", l.p[j].ns, "name",
                                                l.p[j].name, "mode", l.p[j].mode, "sha256",
                                                sha[0] ? json_string(sha) : json_null())) != 0) {
                json_decref(profiles);
                return bxa_oom(k->err);
            }
        }
    }
    bxa_sort_json(labels, cmp_str);
    bxa_sort_json(profiles, cmp_profile);
    kern = json_pack("{s:o,s:o,s:O,s:o}", "hostEnabled",
                     a->host < 0 ? json_null() : json_boolean(a->host), "enforced",
                     a->host == 0 ? json_false()
                     : a->unread  ? json_null()
                                  : json_boolean(a->enforced && json_array_size(labels)),
                     "labels", labels, "profiles", profiles);
    if (!kern || json_object_set_new(view, "apparmor", json_pack("{s:o}", "kernel", kern)) != 0)
        return bxa_oom(k->err);
    return 0;
}
