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

/* Which hierarchy proves a process is the session's: the first v1 controller of these whose
 * path names the Id, else the unified (v2) one. */
int bxa_cgroup_key(bxa_kctx *k)
{
    static const char *const pref[] = {"pids",    "memory", "cpu",         "devices",
                                       "freezer", "blkio",  "name=systemd"};
    const char *p;

    for (size_t i = 0; i < sizeof pref / sizeof pref[0]; i++) {
        if ((p = bxa_cgroup_path(k->cg, k->ncg, pref[i])) && bxa_cgroup_names(p, k->s->id)) {
            k->key_controller = pref[i];
            k->key_path = p;
            return 0;
        }
    }
    if ((p = bxa_cgroup_path(k->cg, k->ncg, NULL)) && bxa_cgroup_names(p, k->s->id)) {
        k->key_controller = NULL;
        k->key_path = p;
        return 0;
    }
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
 * -1 when that hierarchy is not mounted here or the cgroup is outside its mount. */
int bxa_cgroup_dir(bxa_kctx *k, const char *controller, char *out, size_t len)
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
        return 0;
    }
    return -1;
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

/* A limit file of the session's cgroup in controller's hierarchy: 1 read (*v = -1 for
 * unlimited), 0 not readable here. */
static int cg_limit(bxa_kctx *k, const char *controller, const char *file, int64_t *v, int64_t *v2)
{
    char dir[PATH_MAX], name[96], *buf = NULL;
    size_t len;
    int dfd, rc;
    bx_error e;

    if (bxa_cgroup_dir(k, controller, dir, sizeof dir) != 0)
        return 0;
    if ((dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
        return 0;
    rc = bxa_read_at(dfd, file, 64 * 1024, &buf, &len, &e);
    close(dfd);
    if (rc != 0)
        return 0;
    snprintf(name, sizeof name, "cgroup/%s", file);
    rc = v2 ? bxa_parse_cpu_max(buf, len, v, v2, k->err) : bxa_parse_limit(buf, len, v, k->err);
    if (rc == 0)
        rc = bxa_keep(k, BXA_EV_KERNEL, name, buf, len);
    free(buf);
    return rc == 0 ? 1 : rc;
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
        TRY(cg_limit(k, "memory", "memory.limit_in_bytes", &v, NULL));
        if (r)
            json_object_set_new(res, "memoryBytes", lim(v));
        TRY(cg_limit(k, "memory", "memory.memsw.limit_in_bytes", &v, NULL));
        if (r)
            json_object_set_new(res, "memorySwapBytes", lim(v));
        TRY(cg_limit(k, "pids", "pids.max", &v, NULL));
        if (r)
            json_object_set_new(res, "pidsLimit", lim(v));
        TRY(cg_limit(k, "cpu", "cpu.cfs_quota_us", &q, NULL));
        int have_q = r;
        TRY(cg_limit(k, "cpu", "cpu.cfs_period_us", &p, NULL));
        if (have_q && r) {
            json_object_set_new(res, "cpuQuota", lim(q));
            json_object_set_new(res, "cpuPeriod", lim(p));
        }
        TRY(cg_limit(k, "cpu", "cpu.shares", &v, NULL));
        if (r)
            json_object_set_new(res, "cpuShares", lim(v));
    } else {
        int64_t mem = -1;
        TRY(cg_limit(k, NULL, "memory.max", &mem, NULL));
        if (r)
            json_object_set_new(res, "memoryBytes", lim(mem));
        TRY(cg_limit(k, NULL, "memory.swap.max", &v, NULL));
        /* v2 limits swap alone; the engine's MemorySwap is memory + swap */
        if (r)
            json_object_set_new(res, "memorySwapBytes",
                                mem > 0 && v >= 0 && v <= BX_JSON_MAX_INT - mem ? lim(mem + v)
                                                                                : json_null());
        TRY(cg_limit(k, NULL, "pids.max", &v, NULL));
        if (r)
            json_object_set_new(res, "pidsLimit", lim(v));
        TRY(cg_limit(k, NULL, "cpu.max", &q, &p));
        if (r) {
            json_object_set_new(res, "cpuQuota", lim(q));
            json_object_set_new(res, "cpuPeriod", lim(p));
        }
        TRY(cg_limit(k, NULL, "cpu.weight", &v, NULL));
        /* cpu.weight back to the shares the engine set (runc's conversion, inverted) */
        if (r && v > 0)
            json_object_set_new(res, "cpuWeight", json_integer(v));
    }
#undef TRY
    if (json_object_size(res) && json_object_set(view, "resources", res) != 0) {
        json_decref(res);
        return bxa_oom(k->err);
    }
    json_decref(res);
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
