/* SPDX-License-Identifier: Apache-2.0 */
/* The session's cgroup on this host: which hierarchy proves a process is the session's
 * (the first whose path names the container Id), the session's folder under this host's
 * cgroup mounts, and its limit files and (v1) devices.list read as the kernel's view of
 * resources and devices. This host's mounts (the collector's own mountinfo) are read once
 * per proc root when collections share host facts (bx_collect_shared). */
#include "attest_internal.h"

#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- the session's cgroup ----------------------------------------------------------------- */

/* The session's cgroup: the topmost folder of path that names the Id (with the systemd
 * driver crun runs the session in docker-<id>.scope/container, runc in the scope itself: every
 * process of the scope is the session's either way). */
static int key_of(bxa_kctx *k, const char *controller, const char *p)
{
    size_t l = strlen(p);

    for (size_t i = 1; i <= l; i++) {
        if (i < l && p[i] != '/')
            continue;
        char *q = strndup(p, i);
        if (!q)
            return bxa_oom(k->err);
        if (bxa_cgroup_names(q, k->s->id)) {
            free(k->key_own);
            k->key_own = q;
            k->key_controller = controller;
            k->key_path = q;
            return 0;
        }
        free(q);
    }
    return -1;
}

/* Which hierarchy proves a process is the session's: the first v1 controller of these whose
 * path names the Id, else the unified (v2) one. */
int bxa_cgroup_key(bxa_kctx *k)
{
    static const char *const pref[] = {"pids",    "memory", "cpu",         "devices",
                                       "freezer", "blkio",  "name=systemd"};
    const char *p;

    for (size_t i = 0; i < sizeof pref / sizeof pref[0]; i++) {
        if ((p = bxa_cgroup_path(k->cg, k->ncg, pref[i])) && bxa_cgroup_names(p, k->s->id))
            return key_of(k, pref[i], p);
    }
    if ((p = bxa_cgroup_path(k->cg, k->ncg, NULL)) && bxa_cgroup_names(p, k->s->id))
        return key_of(k, NULL, p);
    return -1;
}

/* 1 if a process's cgroup file puts it in the session's cgroup (or one below it). */
int bxa_in_session(bxa_kctx *k, const char *buf, size_t len)
{
    bxa_cgroup *cg = NULL;
    size_t n = 0;
    const char *p;
    bx_error e;
    int r = 0;

    if (bxa_parse_cgroup(buf, len, &cg, &n, &e) != 0)
        return 0;
    p = bxa_cgroup_path(cg, n, k->key_controller);
    if (p && bxa_cgroup_names(p, k->s->id)) {
        size_t kl = strlen(k->key_path);
        r = strncmp(p, k->key_path, kl) == 0 && (p[kl] == '\0' || p[kl] == '/');
    }
    bxa_cgroups_free(cg, n);
    return r;
}

/* This host's folder of the session's cgroup in the hierarchy of controller (NULL: v2), or
 * -1 when that hierarchy is not mounted here or the cgroup is outside its mount. *base (when
 * given): the length of its mount's folder, the root of the hierarchy as the collector sees it
 * (the root of the collector's cgroup namespace, or the mount's root). */
static int cgroup_dir(bxa_kctx *k, const char *controller, char *out, size_t len, size_t *base)
{
    const char *path = bxa_cgroup_path(k->cg, k->ncg, controller);
    const char *want = controller && strncmp(controller, "name=", 5) == 0 ? controller : NULL;

    if (!path)
        return -1;
    for (size_t i = 0; i < k->nhm; i++) {
        const bxa_mount *m = &k->hm[i];
        size_t rl = strlen(m->root);
        int match;
        if (controller) {
            if (strcmp(m->fstype, "cgroup") != 0)
                continue;
            /* the controller is among the super options: "rw,cpu,cpuacct" */
            char opts[256];
            snprintf(opts, sizeof opts, ",%s,", m->super_opts);
            char needle[64];
            snprintf(needle, sizeof needle, ",%s,", want ? want : controller);
            match = strstr(opts, needle) != NULL;
        } else {
            match = strcmp(m->fstype, "cgroup2") == 0;
        }
        if (!match)
            continue;
        if (strcmp(m->root, "/") == 0)
            rl = 0;
        else if (strncmp(path, m->root, rl) != 0 || (path[rl] != '\0' && path[rl] != '/'))
            continue;
        if ((size_t)snprintf(out, len, "%s%s%s",
                             k->s->paths.mount_prefix ? k->s->paths.mount_prefix : "", m->point,
                             path + rl) >= len)
            return -1;
        if (base)
            *base = strlen(out) - strlen(path + rl);
        return 0;
    }
    return -1;
}

int bxa_cgroup_dir(bxa_kctx *k, const char *controller, char *out, size_t len)
{
    return cgroup_dir(k, controller, out, len, NULL);
}

DIR *bxa_proc_list(bxa_kctx *k)
{
    int dfd = dup(k->procfd);
    DIR *d = dfd >= 0 ? fdopendir(dfd) : NULL;
    if (!d && dfd >= 0)
        close(dfd);
    if (d)
        rewinddir(d); /* the descriptor's offset is shared with every earlier listing */
    return d;
}

/* ---- cgroup limits ------------------------------------------------------------------------ */

/* A limit in force is the smallest on the way up: the session's cgroup and every ancestor up
 * to the root of the hierarchy as the collector sees it. The session's own folder is
 * cgroup/<file> in the evidence, its n-th ancestor cgroup.up<n>/<file>. */
#define CG_DEPTH_MAX 64

/* The folders from the session's cgroup (dirs[0]) up to the hierarchy's root in controller's
 * hierarchy; 0 when that hierarchy is not mounted here. */
static size_t cg_chain(bxa_kctx *k, const char *controller, char dirs[][PATH_MAX])
{
    size_t base, n = 0, l;

    if (cgroup_dir(k, controller, dirs[0], PATH_MAX, &base) != 0)
        return 0;
    for (n = 1; n < CG_DEPTH_MAX; n++) {
        l = strlen(dirs[n - 1]);
        if (l <= base)
            break;
        while (l > base && dirs[n - 1][l - 1] != '/')
            l--;
        if (l > base) /* the separator itself */
            l--;
        memcpy(dirs[n], dirs[n - 1], l);
        dirs[n][l] = '\0';
    }
    return n;
}

/* Read file in dirs[i], keep it as evidence: 1 read (*v, *v2 for cpu.max), 0 not readable. */
static int cg_read_one(bxa_kctx *k, const char *dir, size_t level, const char *file, int64_t *v,
                       int64_t *v2, char **raw)
{
    char name[128], *buf = NULL;
    size_t len;
    int dfd, rc;
    bx_error e;

    if ((dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
        return 0;
    rc = bxa_read_at(dfd, file, 64 * 1024, &buf, &len, &e);
    close(dfd);
    if (rc != 0)
        return 0;
    if (level == 0)
        snprintf(name, sizeof name, "cgroup/%s", file);
    else
        snprintf(name, sizeof name, "cgroup.up%zu/%s", level, file);
    if (raw) {
        rc = 0;
    } else {
        rc = v2 ? bxa_parse_cpu_max(buf, len, v, v2, k->err) : bxa_parse_limit(buf, len, v, k->err);
    }
    if (rc == 0)
        rc = bxa_keep(k, BXA_EV_KERNEL, name, buf, len);
    if (rc == 0 && raw) {
        *raw = buf;
        buf = NULL;
    }
    free(buf);
    return rc == 0 ? 1 : rc;
}

/* 1 when a is a tighter limit than b (-1: unlimited). */
static int tighter(int64_t a, int64_t b)
{
    return a >= 0 && (b < 0 || a < b);
}

/* v1: how many folders of the memory chain charge the session: up to the first whose
 * memory.use_hierarchy reads 0 (its children are not charged to it, so no limit from it or
 * above binds them). */
static int v1_memory_depth(bxa_kctx *k, size_t *depth)
{
    char (*dirs)[PATH_MAX] = malloc(CG_DEPTH_MAX * sizeof *dirs);
    size_t n;
    int r = 0;

    *depth = 0;
    if (!dirs)
        return bxa_oom(k->err);
    n = cg_chain(k, "memory", dirs);
    *depth = n;
    for (size_t i = 1; i < n; i++) {
        char *raw = NULL;
        if ((r = cg_read_one(k, dirs[i], i, "memory.use_hierarchy", NULL, NULL, &raw)) < 0)
            break;
        r = 0;
        if (raw && raw[0] == '0') {
            *depth = i;
            free(raw);
            break;
        }
        free(raw);
    }
    free(dirs);
    return r;
}

/* The limit of file in force for the session over the first depth folders of the chain: 1 read
 * somewhere on the way up (*v the smallest, -1 unlimited), 0 read nowhere, < 0 an error. */
static int cg_limit(bxa_kctx *k, const char *controller, const char *file, size_t depth,
                    int64_t *v)
{
    char (*dirs)[PATH_MAX] = malloc(CG_DEPTH_MAX * sizeof *dirs);
    size_t n;
    int any = 0, r = 0;

    *v = -1;
    if (!dirs)
        return bxa_oom(k->err);
    n = cg_chain(k, controller, dirs);
    for (size_t i = 0; i < n && i < depth; i++) {
        int64_t a = -1;
        if ((r = cg_read_one(k, dirs[i], i, file, &a, NULL, NULL)) < 0)
            break;
        if (r == 1 && (!any || tighter(a, *v)))
            *v = a;
        any |= r;
        r = 0;
    }
    free(dirs);
    return r < 0 ? r : any;
}

/* The CPU limit in force: the smallest share quota/period on the way up (v1: cfs_quota_us and
 * cfs_period_us of one folder; v2: cpu.max). 1 read somewhere (*q -1 without a quota), 0 read
 * nowhere. */
static int cg_cpu(bxa_kctx *k, int v1, int64_t *q, int64_t *p)
{
    char (*dirs)[PATH_MAX] = malloc(CG_DEPTH_MAX * sizeof *dirs);
    size_t n;
    int any = 0, r = 0;

    *q = *p = -1;
    if (!dirs)
        return bxa_oom(k->err);
    n = cg_chain(k, v1 ? "cpu" : NULL, dirs);
    for (size_t i = 0; i < n; i++) {
        int64_t a = -1, b = -1;
        if (v1) {
            if ((r = cg_read_one(k, dirs[i], i, "cpu.cfs_quota_us", &a, NULL, NULL)) == 1)
                r = cg_read_one(k, dirs[i], i, "cpu.cfs_period_us", &b, NULL, NULL);
        } else {
            r = cg_read_one(k, dirs[i], i, "cpu.max", &a, &b, NULL);
        }
        if (r < 0)
            break;
        if (r == 1 && (!any || (a >= 0 && b > 0 &&
                                (*q < 0 || *p <= 0 || (__int128)a * *p < (__int128)*q * b)))) {
            *q = a;
            *p = b;
        }
        any |= r;
        r = 0;
    }
    free(dirs);
    return r < 0 ? r : any;
}

/* The CPUs or memory nodes the session may use (what = "cpus" or "mems"): the effective set of
 * the nearest folder from the session's own up that has one (the kernel intersects it with
 * every ancestor's; on v2 a folder without the cpuset controller has no such file, and its
 * tasks run in the nearest ancestor's set), and the hierarchy root's, this host's whole set.
 * v1 cpuset.effective_cpus/_mems, v2 cpuset.cpus.effective/.mems.effective. 1 read (*own, and
 * *all or "" when the root's is not readable), 0 read nowhere, < 0 an error. */
static int cg_cpuset(bxa_kctx *k, int v1, const char *what, char *own, char *all)
{
    char (*dirs)[PATH_MAX] = malloc(CG_DEPTH_MAX * sizeof *dirs);
    char file[64], *raw = NULL;
    size_t n, at;
    int r = 0;

    own[0] = all[0] = '\0';
    if (!dirs)
        return bxa_oom(k->err);
    snprintf(file, sizeof file, v1 ? "cpuset.effective_%s" : "cpuset.%s.effective", what);
    n = cg_chain(k, v1 ? "cpuset" : NULL, dirs);
    for (at = 0; at < n; at++) {
        if ((r = cg_read_one(k, dirs[at], at, file, NULL, NULL, &raw)) != 0)
            break;
    }
    if (r <= 0) /* an error, or read nowhere */
        goto out;
    r = bxa_parse_cpulist(raw, strlen(raw), own, BXA_CPULIST_LEN, k->err);
    free(raw);
    raw = NULL;
    if (r != 0)
        goto out;
    r = 1;
    if (at + 1 == n) { /* the set read is the root's */
        memcpy(all, own, strlen(own) + 1);
        goto out;
    }
    if ((r = cg_read_one(k, dirs[n - 1], n - 1, file, NULL, NULL, &raw)) < 0)
        goto out;
    if (r == 1) {
        r = bxa_parse_cpulist(raw, strlen(raw), all, BXA_CPULIST_LEN, k->err);
        free(raw);
        if (r != 0)
            goto out;
    }
    r = 1; /* the root's unknown: the set is kept as it is */
out:
    free(dirs);
    return r;
}

static int set_cpuset(bxa_kctx *k, json_t *res, int v1, const char *what, const char *name,
                      const char *all_name)
{
    char *own = malloc(2 * BXA_CPULIST_LEN);
    int r;

    if (!own)
        return bxa_oom(k->err);
    r = cg_cpuset(k, v1, what, own, own + BXA_CPULIST_LEN);
    if (r == 1 && (json_object_set_new(res, name, json_string(own)) != 0 ||
                   json_object_set_new(res, all_name, json_string(own + BXA_CPULIST_LEN)) != 0))
        r = bxa_oom(k->err);
    free(own);
    return r < 0 ? r : 0;
}

/* A file of the session's own cgroup (its init's folder), not of its ancestors. */
static int cg_own(bxa_kctx *k, const char *controller, const char *file, int64_t *v)
{
    char dir[PATH_MAX];

    *v = -1;
    if (bxa_cgroup_dir(k, controller, dir, sizeof dir) != 0)
        return 0;
    return cg_read_one(k, dir, 0, file, v, NULL, NULL);
}

static json_t *lim(int64_t v)
{
    return v > 0 ? json_integer(v) : json_null();
}

/* The cgroup's limits in the predicate's terms. Members only for what was read. */
int bxa_read_limits(bxa_kctx *k, json_t *view, const json_t *engine_res)
{
    json_t *res = json_object(), *dev;
    int64_t v, q, p;
    int r, v1 = k->key_controller != NULL;

    (void)engine_res;
    if (!res)
        return bxa_oom(k->err);
#define TRY(call)                                                                                  \
    do {                                                                                           \
        if ((r = (call)) < 0) {                                                                    \
            json_decref(res);                                                                      \
            return r;                                                                              \
        }                                                                                          \
    } while (0)
    if (v1) {
        size_t md;
        TRY(v1_memory_depth(k, &md));
        TRY(cg_limit(k, "memory", "memory.limit_in_bytes", md, &v));
        if (r)
            json_object_set_new(res, "memoryBytes", lim(v));
        /* memsw is memory + swap already, as the engine's MemorySwap */
        TRY(cg_limit(k, "memory", "memory.memsw.limit_in_bytes", md, &v));
        if (r)
            json_object_set_new(res, "memorySwapBytes", lim(v));
        TRY(cg_limit(k, "pids", "pids.max", CG_DEPTH_MAX, &v));
        if (r)
            json_object_set_new(res, "pidsLimit", lim(v));
        TRY(cg_cpu(k, 1, &q, &p));
        if (r) {
            json_object_set_new(res, "cpuQuota", lim(q));
            json_object_set_new(res, "cpuPeriod", lim(p));
        }
        TRY(cg_own(k, "cpu", "cpu.shares", &v));
        if (r)
            json_object_set_new(res, "cpuShares", lim(v));
    } else {
        int64_t mem = -1;
        TRY(cg_limit(k, NULL, "memory.max", CG_DEPTH_MAX, &mem));
        if (r)
            json_object_set_new(res, "memoryBytes", lim(mem));
        TRY(cg_limit(k, NULL, "memory.swap.max", CG_DEPTH_MAX, &v));
        /* v2 limits swap alone; the engine's MemorySwap is memory + swap */
        if (r)
            json_object_set_new(res, "memorySwapBytes",
                                mem > 0 && v >= 0 && v <= BX_JSON_MAX_INT - mem ? lim(mem + v)
                                                                                : json_null());
        TRY(cg_limit(k, NULL, "pids.max", CG_DEPTH_MAX, &v));
        if (r)
            json_object_set_new(res, "pidsLimit", lim(v));
        TRY(cg_cpu(k, 0, &q, &p));
        if (r) {
            json_object_set_new(res, "cpuQuota", lim(q));
            json_object_set_new(res, "cpuPeriod", lim(p));
        }
        TRY(cg_own(k, NULL, "cpu.weight", &v));
        /* cpu.weight back to the shares the engine set (runc's conversion, inverted) */
        if (r && v > 0)
            json_object_set_new(res, "cpuWeight", json_integer(v));
    }
    /* the CPUs and memory nodes in force, with this host's whole sets to tell "every one"
     * (reconcile: null) from a restriction */
    TRY(set_cpuset(k, res, v1, "cpus", "cpusetCpus", "cpusetCpusHost"));
    TRY(set_cpuset(k, res, v1, "mems", "cpusetMems", "cpusetMemsHost"));
#undef TRY
    if (json_object_size(res) && json_object_set(view, "resources", res) != 0) {
        json_decref(res);
        return bxa_oom(k->err);
    }
    json_decref(res);
    if (!v1) {
        /* v2: the device programs in force; null when they cannot be read or interpreted */
        char dir[PATH_MAX], why[160];
        bxa_devprogs *pr = NULL;
        int all;
        if (bxa_cgroup_dir(k, NULL, dir, sizeof dir) == 0) {
            if ((r = bxa_devbpf_read(k, dir, &pr, why, sizeof why)) != 0)
                return r;
            if (pr || why[0]) {
                all = pr ? bxa_devbpf_allow_all(pr, why, sizeof why) : -1;
                dev = json_pack("{s:o}", "allowAll", all < 0 ? json_null() : json_boolean(all));
                if (!dev || json_object_set_new(view, "devices", dev) != 0) {
                    bxa_devbpf_free(pr);
                    return bxa_oom(k->err);
                }
                bxa_devbpf_free(k->dev_progs);
                k->dev_progs = all < 0 ? NULL : pr; /* the device nodes are judged by them */
                if (all < 0)
                    bxa_devbpf_free(pr);
            }
        }
    }
    if (v1) {
        char dir[PATH_MAX], *buf = NULL;
        size_t len;
        int dfd, allow;
        json_t *rules = NULL;
        bx_error e;
        if (bxa_cgroup_dir(k, "devices", dir, sizeof dir) == 0 &&
            (dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) >= 0) {
            int rr = bxa_read_at(dfd, "devices.list", 256 * 1024, &buf, &len, &e);
            close(dfd);
            if (rr == 0) {
                if ((rr = bxa_parse_devices_list(buf, len, &allow, &rules, k->err)) == 0 &&
                    (rr = bxa_keep(k, BXA_EV_KERNEL, "cgroup/devices.list", buf, len)) == 0) {
                    dev = json_pack("{s:b}", "allowAll", allow);
                    if (!dev || json_object_set_new(view, "devices", dev) != 0)
                        rr = bxa_oom(k->err);
                }
                json_decref(k->dev_rules);
                k->dev_rules = rr == 0 ? rules : NULL; /* the device nodes are judged by them */
                if (rr != 0)
                    json_decref(rules);
                free(buf);
                if (rr != 0)
                    return rr;
            }
        }
    }
    return 0;
}

/* ---- this host's cgroup mounts -------------------------------------------------------------- */

static void read_host_mounts(bxa_kctx *k)
{
    char *buf = NULL;
    size_t len;
    bx_error e;

    if (bxa_read_at(k->procfd, "self/mountinfo", BXA_PROC_FILE_MAX, &buf, &len, &e) == 0 &&
        bxa_parse_mountinfo(buf, len, &k->hm, &k->nhm, &e) != 0) {
        k->hm = NULL;
        k->nhm = 0;
    }
    free(buf);
}

/* This host's mounts: read once per proc root when the collection shares host facts. */
void bxa_host_mounts(bxa_kctx *k, const char *proc_root)
{
    bx_collect_shared *sh = k->s->shared;

    if (!sh) {
        read_host_mounts(k);
        return;
    }
    pthread_mutex_lock(&sh->mu);
    if (!sh->host_mounts_read) {
        read_host_mounts(k);
        sh->host_proc = strdup(proc_root);
        sh->host_mounts = k->hm;
        sh->nhost_mounts = k->nhm;
        sh->host_mounts_read = sh->host_proc != NULL;
        if (!sh->host_mounts_read) { /* not kept: this collection frees them */
            sh->host_mounts = NULL;
            sh->nhost_mounts = 0;
            pthread_mutex_unlock(&sh->mu);
            return;
        }
    } else if (strcmp(sh->host_proc, proc_root) != 0) {
        pthread_mutex_unlock(&sh->mu);
        read_host_mounts(k);
        return;
    }
    k->hm = sh->host_mounts;
    k->nhm = sh->nhost_mounts;
    k->hm_shared = 1;
    pthread_mutex_unlock(&sh->mu);
}
