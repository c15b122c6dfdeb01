/* SPDX-License-Identifier: Apache-2.0 */
/* containment.namespaces.<kind>.shared: who outside the session is in one of its namespaces
 * or keeps one open. Every process of this host but the session's and the collector's is
 * looked at: its namespace links (a process of another container, as its cgroup names it, or
 * of the host), its descriptors of namespaces (setns() needs nothing more), and, once per
 * mount namespace, the nsfs bind mounts its mountinfo shows. The engine's own bind mount of a
 * session's network namespace (its NetworkSettings.SandboxKey, /run/docker/netns/<sandbox>),
 * outside any container, is not sharing. A container: mode of the engine counts as shared with that container,
 * whatever the kernel shows. */
#include "attest_internal.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MNTNS_MAX 256

typedef struct {
    json_t *kind[BXA_NS_COUNT]; /* {host, containers, heldOpen} */
    int64_t unreadable;         /* a process outside whose namespaces could not be read */
    int host[BXA_NS_COUNT];     /* kind[i].host is true: who else shares it is not named */
} sharing;

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* heldOpen: by pid, by, place */
static int cmp_holder(const void *a, const void *b)
{
    const json_t *x = *(json_t *const *)a, *y = *(json_t *const *)b;
    json_int_t p = json_integer_value(json_object_get(x, "pid")),
               q = json_integer_value(json_object_get(y, "pid"));
    int c;
    if (p != q)
        return (p > q) - (p < q);
    if ((c = strcmp(json_string_value(json_object_get(x, "by")),
                    json_string_value(json_object_get(y, "by")))) != 0)
        return c;
    return strcmp(json_string_value(json_object_get(x, "place")),
                  json_string_value(json_object_get(y, "place")));
}

static int session_ns(const bxa_weakest *w, int kind, const char *link)
{
    for (size_t i = 0; link[0] && i < w->nns_seen[kind]; i++)
        if (strcmp(w->ns_seen[kind][i], link) == 0)
            return 1;
    return 0;
}

static int kind_of(const char *type)
{
    for (int i = 0; i < BXA_NS_COUNT; i++)
        if (strcmp(type, bxa_ns_names[i]) == 0)
            return i;
    return -1;
}

static int add_container(bxa_kctx *k, json_t *obj, const char *id)
{
    json_t *list = json_object_get(obj, "containers"), *v;
    size_t i;

    json_array_foreach(list, i, v) if (strcmp(json_string_value(v), id) == 0) return 0;
    if (json_array_append_new(list, json_string(id)) != 0)
        return bxa_oom(k->err);
    return 0;
}

static int add_holder(bxa_kctx *k, json_t *obj, const char *by, int64_t pid, const char *place,
                      const char *container)
{
    json_t *e = json_pack("{s:s,s:I,s:s,s:s?}", "by", by, "pid", (json_int_t)pid, "place", place,
                          "container", container);
    if (!e || json_array_append_new(json_object_get(obj, "heldOpen"), e) != 0)
        return bxa_oom(k->err);
    return 0;
}

/* The container whose process this is (its Id into id), or "" for a process of the host. */
static void owner(bxa_kctx *k, int dfd, char id[65], int *known)
{
    char *buf = NULL;
    size_t len;
    bx_error ign;

    if (*known)
        return;
    *known = 1;
    id[0] = '\0';
    if (bxa_read_at(dfd, "cgroup", BXA_PROC_FILE_MAX, &buf, &len, &ign) == 0 &&
        !bxa_cgroup_other(k, buf, len, id))
        id[0] = '\0';
    free(buf);
}

/* The engine's own bind mount of the session's network namespace: its SandboxKey (as the
 * engine wrote it, or with this host's links resolved: /var/run is /run). */
static int engine_netns(bxa_kctx *k, const char *point)
{
    char real[PATH_MAX];
    const char *key = k->s->sandbox_key;

    if (!key || key[0] != '/')
        return 0;
    return strcmp(point, key) == 0 || (realpath(key, real) && strcmp(point, real) == 0);
}

/* 1 when the process at dfd has the engine daemon's root (this host's). */
static int host_root(bxa_kctx *k, int dfd);

/* The nsfs mounts of one mount namespace (seen from process pid at dfd). A mountinfo whose
 * bytes hold no "nsfs" has no nsfs mount (a file system type is never escaped): it is read
 * but neither parsed nor attributed, and most are like that (every container's). */
static int mounts_of(bxa_kctx *k, const bxa_weakest *w, sharing *sh, int64_t pid, int dfd,
                     char cid[65], int *known)
{
    char *buf = NULL;
    size_t len, n = 0;
    bxa_mount *m = NULL;
    bx_error ign;
    int rc = 0;

    if (bxa_read_at(dfd, "mountinfo", BXA_PROC_FILE_MAX, &buf, &len, &ign) != 0 ||
        !memmem(buf, len, "nsfs", 4)) {
        free(buf);
        return 0;
    }
    owner(k, dfd, cid, known);
    /* a container's process still at this host's root is the runtime setting it up: its
     * mount namespace is a copy of the host's (the engine's mounts in it), until it moves
     * into its own root */
    if ((*cid && host_root(k, dfd)) || bxa_parse_mountinfo(buf, len, &m, &n, &ign) != 0) {
        free(buf);
        return 0;
    }
    for (size_t i = 0; rc == 0 && i < n; i++) {
        char type[16];
        uint64_t ino;
        int kind;
        if (strcmp(m[i].fstype, "nsfs") != 0 || bxa_ns_link_parse(m[i].root, type, &ino) != 0 ||
            (kind = kind_of(type)) < 0 || sh->host[kind] || !session_ns(w, kind, m[i].root))
            continue;
        if (kind == BXA_NS_NET && !*cid && engine_netns(k, m[i].point))
            continue; /* the engine's own handle on the session's network */
        rc = add_holder(k, sh->kind[kind], "mount", pid, m[i].point, *cid ? cid : NULL);
    }
    bxa_mounts_free(m, n);
    free(buf);
    return rc;
}

static int host_root(bxa_kctx *k, int dfd)
{
    struct stat a, b;
    char path[48];

    if (!k->have_daemon)
        return 0;
    snprintf(path, sizeof path, "%lld/root", (long long)k->daemon_pid);
    return fstatat(dfd, "root", &a, 0) == 0 && fstatat(k->procfd, path, &b, 0) == 0 &&
           a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

/* One process outside the session; pidlink: its ns/pid link, denied: reading it was refused. */
static int one(bxa_kctx *k, const bxa_weakest *w, sharing *sh, int64_t pid, int dfd,
               const char *pidlink, int denied, char (*mntns)[64], size_t *nmntns)
{
    char id[65] = "", links[BXA_NS_COUNT][64];
    int known = 0, rc = 0, fdd;
    ssize_t n;
    DIR *d;
    struct dirent *e;

    /* a process whose namespace links this collector may not read (no ptrace access: not
     * root, an LSM) could share any of them: then no one knows (shared null), never "no".
     * The host's init (pid 1 here) is the host's own, whose root is out of scope: some hosts
     * deny reading it even to root (docs/collector.md, "Namespaces shared"). */
    if (denied) {
        if (pid != 1)
            sh->unreadable = pid;
        return 0;
    }
    snprintf(links[BXA_NS_PID], sizeof links[BXA_NS_PID], "%s", pidlink);
    for (int i = 0; i < BXA_NS_COUNT; i++) {
        /* a kind the host shares is decided: nothing another process shows changes it */
        if (sh->host[i] && i != BXA_NS_MNT) {
            links[i][0] = '\0';
            continue;
        }
        if (i != BXA_NS_PID)
            bxa_ns_link(dfd, bxa_ns_names[i], links[i]);
        if (sh->host[i] || !session_ns(w, i, links[i]))
            continue;
        owner(k, dfd, id, &known);
        if (*id)
            rc = add_container(k, sh->kind[i], id);
        else if (json_object_set_new(sh->kind[i], "host", json_true()) != 0)
            rc = bxa_oom(k->err);
        else
            sh->host[i] = 1;
        if (rc != 0)
            return rc;
    }
    /* one descriptor for the folder: listed and its links read through it */
    if ((fdd = openat(dfd, "fd", O_RDONLY | O_DIRECTORY | O_CLOEXEC)) >= 0) {
        if ((d = fdopendir(fdd)) != NULL) {
            while (rc == 0 && (e = readdir(d)) != NULL) {
                char link[128], type[16], place[48];
                uint64_t ino;
                int kind;
                if (e->d_name[0] == '.' ||
                    (n = readlinkat(fdd, e->d_name, link, sizeof link - 1)) <= 0)
                    continue;
                link[n] = '\0';
                if (bxa_ns_link_parse(link, type, &ino) != 0 || (kind = kind_of(type)) < 0 ||
                    sh->host[kind] || !session_ns(w, kind, link))
                    continue;
                owner(k, dfd, id, &known);
                snprintf(place, sizeof place, "fd %.20s", e->d_name);
                rc = add_holder(k, sh->kind[kind], "fd", pid, place, *id ? id : NULL);
            }
            closedir(d); /* closes fdd */
        } else {
            close(fdd);
        }
    }
    if (rc == 0 && links[BXA_NS_MNT][0]) {
        for (size_t i = 0; i < *nmntns; i++)
            if (strcmp(mntns[i], links[BXA_NS_MNT]) == 0)
                return 0;
        if (*nmntns < MNTNS_MAX)
            snprintf(mntns[(*nmntns)++], 64, "%s", links[BXA_NS_MNT]);
        rc = mounts_of(k, w, sh, pid, dfd, id, &known);
    }
    return rc;
}

/* The engine's container:<ref> modes, ref resolved by Id, Id prefix or name. */
static int engine_modes(bxa_kctx *k, sharing *sh)
{
    static const char *const keys[BXA_NS_COUNT] = {"PidMode", "IpcMode", "UTSMode", "NetworkMode",
                                                  "UsernsMode", "CgroupnsMode", NULL, NULL};
    int rc = 0;

    for (int i = 0; rc == 0 && i < BXA_NS_COUNT; i++) {
        const char *mode = keys[i] ? json_string_value(json_object_get(k->s->host_config, keys[i]))
                                   : NULL;
        const char *ref, *id = NULL;
        size_t rl;
        if (!mode || strncmp(mode, "container:", 10) != 0 || !*(ref = mode + 10))
            continue;
        rl = strlen(ref);
        for (size_t o = 0; !id && o < k->nothers; o++)
            if (strcmp(k->others[o].name, ref[0] == '/' ? ref + 1 : ref) == 0 ||
                (rl >= 12 && strncmp(k->others[o].id, ref, rl) == 0))
                id = k->others[o].id;
        rc = add_container(k, sh->kind[i], id ? id : ref);
    }
    return rc;
}

int bxa_ns_sharing(bxa_kctx *k, const bxa_weakest *w, json_t **out)
{
    sharing sh = {{NULL}, 0, {0}};
    char(*mntns)[64] = calloc(MNTNS_MAX, 64);
    size_t nmntns = 0, nall = 0, cap = 0;
    int64_t *pids = NULL, *all = NULL;
    json_t *r = json_object();
    DIR *d = NULL;
    struct dirent *e;
    int rc = 0;

    *out = NULL;
    if (!r || !mntns || !(pids = calloc(w->npids ? w->npids : 1, sizeof *pids))) {
        rc = bxa_oom(k->err);
        goto out;
    }
    for (int i = 0; i < BXA_NS_COUNT; i++) {
        sh.kind[i] = json_pack("{s:b,s:[],s:[]}", "host", 0, "containers", "heldOpen");
        if (!sh.kind[i] || json_object_set_new(r, bxa_ns_names[i], sh.kind[i]) != 0) {
            rc = bxa_oom(k->err);
            goto out;
        }
    }
    memcpy(pids, w->pids, w->npids * sizeof *pids);
    qsort(pids, w->npids, sizeof *pids, cmp_i64);
    if ((rc = engine_modes(k, &sh)) != 0)
        goto out;
    if (!(d = bxa_proc_list(k))) {
        rc = bx_error_errno(k->err, BX_EIO, "/proc", "cannot list");
        goto out;
    }
    /* every pid, in order: a mount namespace is read from its lowest pid */
    while ((e = readdir(d)) != NULL) {
        char *end;
        long long pid = strtoll(e->d_name, &end, 10);
        if (*end || pid <= 0 || pid == k->self_pid ||
            bsearch(&(int64_t){pid}, pids, w->npids, sizeof *pids, cmp_i64))
            continue;
        if (nall == cap) {
            int64_t *more = realloc(all, (cap = cap ? 2 * cap : 1024) * sizeof *all);
            if (!more) {
                rc = bxa_oom(k->err);
                goto out;
            }
            all = more;
        }
        all[nall++] = pid;
    }
    qsort(all, nall, sizeof *all, cmp_i64);
    for (size_t i = 0; rc == 0 && i < nall; i++) {
        char name[24], pidlink[64];
        ssize_t n;
        int dfd, denied;
        snprintf(name, sizeof name, "%lld", (long long)all[i]);
        if ((dfd = openat(k->procfd, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
            continue;
        /* read once: whether it is the session's, and the access check of one() */
        n = readlinkat(dfd, "ns/pid", pidlink, sizeof pidlink - 1);
        denied = n < 0 && (errno == EACCES || errno == EPERM);
        pidlink[n > 0 ? n : 0] = '\0';
        /* one of the session's, started after the collection began: not outside it */
        if (!bxa_session_member(k, dfd, pidlink))
            rc = one(k, w, &sh, all[i], dfd, pidlink, denied, mntns, &nmntns);
        close(dfd);
    }
    if (rc == 0 && sh.unreadable) {
        /* unknown for every kind (the caller records null) */
        json_decref(r);
        r = json_null();
    }
    for (int i = 0; rc == 0 && !sh.unreadable && i < BXA_NS_COUNT; i++) {
        if (json_is_true(json_object_get(sh.kind[i], "host")) &&
            (json_array_clear(json_object_get(sh.kind[i], "containers")) != 0 ||
             json_array_clear(json_object_get(sh.kind[i], "heldOpen")) != 0))
            rc = bxa_oom(k->err); /* the host's: every container shares it, none is named */
        bxa_sort_strings(json_object_get(sh.kind[i], "containers"));
        bxa_sort_json(json_object_get(sh.kind[i], "heldOpen"), cmp_holder);
    }
    if (rc == 0) {
        *out = r;
        r = NULL;
    }
out:
    if (d)
        closedir(d);
    json_decref(r);
    free(mntns);
    free(pids);
    free(all);
    return rc;
}
