/* SPDX-License-Identifier: Apache-2.0 */
/* The session's processes (runc, crun), read on this host.
 *
 * Which processes: those scan.c finds by the session's rule (its own pid namespace, or its
 * cgroup, never another container's), scanned again after each round of reading until two
 * scans agree (bxa_settle). Each process is read through its own /proc/<pid> directory
 * descriptor, opened after a pidfd was taken; its start time and cgroup are taken again
 * after reading (a process that changed is not counted).
 *
 * Everything the kernel keeps per thread is read per thread: every task's status
 * (/proc/<pid>/task/<tid>/status) is folded into the weakest values over them all: every
 * capability any task holds, no-new-privileges only when every task has it, the weakest
 * seccomp mode, every id (real, effective, saved, fs) and supplementary group, as this host
 * sees them and as the task's own user namespace does (its uid_map and gid_map), the 4 ids
 * of the weakest task (one with a root uid first, then one with a root gid or group, then the
 * init process). Per process: its user namespace, its memory, pids and devices cgroups
 * against the session's, its descriptors (descriptors.c); per mount namespace its
 * mountinfo (surface.c, syspaths.c); per network namespace its interfaces. */
#include "attest_internal.h"
#include "attest_seccomp.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define TASKS_MAX 4096 /* threads of one process */

/* ---- one process ------------------------------------------------------------------------- */

void bxa_proc_close(bxa_proc *p)
{
    if (p->dfd >= 0)
        close(p->dfd);
    if (p->pidfd >= 0)
        close(p->pidfd);
    free(p->stat);
    free(p->cgroup);
    memset(p, 0, sizeof *p);
    p->dfd = p->pidfd = -1;
}

/* Open /proc/<pid> (a pidfd first, on this host's /proc), read its stat and cgroup: 1 when
 * it started no later than the collection began (and is no zombie), 0 when not or gone, <0
 * error. */
int bxa_proc_open(bxa_kctx *k, int64_t pid, bxa_proc *p)
{
    char path[32];
    bxa_stat st;
    int rc;

    memset(p, 0, sizeof *p);
    p->pid = pid;
    p->dfd = p->pidfd = -1;
    if (k->real_proc)
        p->pidfd = bxa_pidfd_open(pid);
    snprintf(path, sizeof path, "%lld", (long long)pid);
    if ((p->dfd = openat(k->procfd, path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
        return errno == ENOENT ? 0 : bx_error_errno(k->err, BX_EIO, path, "cannot open");
    rc = bxa_read_at(p->dfd, "stat", BXA_PROC_FILE_MAX, &p->stat, &p->stat_len, k->err);
    if (rc == 0)
        rc = bxa_read_at(p->dfd, "cgroup", BXA_PROC_FILE_MAX, &p->cgroup, &p->cgroup_len, k->err);
    if (rc != 0)
        return rc == BX_ENOTFOUND ? 0 : rc;
    if ((rc = bxa_parse_stat(p->stat, p->stat_len, &st, k->err)) != 0)
        return rc;
    if (st.pid != pid || st.starttime > k->s->begin || st.state == 'Z')
        return 0;
    p->start = st.starttime;
    for (int i = 0; i < BXA_NS_COUNT; i++)
        bxa_ns_link(p->dfd, bxa_ns_names[i], p->ns[i]);
    return 1;
}

/* bxa_proc_open, and its cgroup names the session's. */
int bxa_proc_prove(bxa_kctx *k, int64_t pid, bxa_proc *p)
{
    int r = bxa_proc_open(k, pid, p);

    if (r != 1)
        return r;
    return k->key_path && bxa_in_session(k, p->cgroup, p->cgroup_len) ? 1 : 0;
}

/* After reading: the same process still (start time and cgroup unchanged, and alive by its
 * pidfd when it has one). */
int bxa_proc_same(bxa_kctx *k, bxa_proc *p)
{
    char *stat = NULL, *cg = NULL;
    size_t sl, cl;
    bxa_stat st;
    bx_error e;
    int same;

    same = bxa_read_at(p->dfd, "stat", BXA_PROC_FILE_MAX, &stat, &sl, &e) == 0 &&
           bxa_read_at(p->dfd, "cgroup", BXA_PROC_FILE_MAX, &cg, &cl, &e) == 0 &&
           bxa_parse_stat(stat, sl, &st, &e) == 0 && st.starttime == p->start &&
           cl == p->cgroup_len && memcmp(cg, p->cgroup, cl) == 0 && bxa_pidfd_alive(p->pidfd) != 0;
    (void)k;
    free(stat);
    free(cg);
    return same;
}

int bxa_keep_proc(bxa_kctx *k, bxa_proc *p, const char *what, const char *buf, size_t len)
{
    char name[64];

    snprintf(name, sizeof name, "%lld/%s", (long long)p->pid, what);
    return bxa_keep(k, BXA_EV_KERNEL, name, buf, len);
}

static int keep_ns(bxa_kctx *k, const char *who, char ns[BXA_NS_COUNT][64])
{
    char buf[BXA_NS_COUNT * 64 + 8], name[48];
    size_t n = 0;

    for (int i = 0; i < BXA_NS_COUNT; i++)
        n += (size_t)snprintf(buf + n, sizeof buf - n, "%s\n", ns[i]);
    snprintf(name, sizeof name, "%s/ns", who);
    return bxa_keep(k, BXA_EV_KERNEL, name, buf, n);
}

/* ---- sets of ids ---------------------------------------------------------------------------- */

void bxa_idset_add(bxa_idset *s, int64_t id)
{
    size_t lo = 0, hi = s->n;

    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (s->v[mid] == id)
            return;
        if (s->v[mid] < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (s->n == BXA_IDS_MAX) {
        s->full = 1;
        return;
    }
    memmove(&s->v[lo + 1], &s->v[lo], (s->n - lo) * sizeof s->v[0]);
    s->v[lo] = id;
    s->n++;
}

json_t *bxa_idset_json(const bxa_idset *s)
{
    json_t *a;

    if (s->full)
        return json_null();
    if (!(a = json_array()))
        return NULL;
    for (size_t i = 0; i < s->n; i++)
        if (json_array_append_new(a, json_integer(s->v[i])) != 0) {
            json_decref(a);
            return NULL;
        }
    return a;
}

/* ---- the weakest over the session's processes ------------------------------------------------ */

static int seen_ns(char list[16][64], size_t *n, const char *ns)
{
    for (size_t i = 0; i < *n; i++)
        if (strcmp(list[i], ns) == 0)
            return 1;
    if (*n < 16)
        snprintf(list[(*n)++], 64, "%s", ns);
    return 0;
}

/* 3: a root uid; 2: a root gid or group; 1: the init process; 0: another. */
static int rank_of(const bxa_status *st, int is_init)
{
    for (int i = 0; i < 4; i++)
        if (st->uid[i] == 0)
            return 3;
    for (int i = 0; i < 4; i++)
        if (st->gid[i] == 0)
            return 2;
    for (size_t i = 0; i < st->ngroups; i++)
        if (st->groups[i] == 0)
            return 2;
    return is_init ? 1 : 0;
}

static void fold_status(bxa_weakest *w, const bxa_status *st, int is_init, const bxa_userns *un)
{
    int rank = rank_of(st, is_init);
    static const int order[3] = {0, 2, 1}; /* strength of Seccomp 0, 1, 2 */

    for (int i = 0; i < 5; i++)
        w->caps[i] |= st->caps[i];
    w->nnp = w->ntasks == 0 ? st->nnp : (w->nnp && st->nnp);
    if (w->ntasks == 0 || order[st->seccomp] < order[w->seccomp])
        w->seccomp = st->seccomp;
    if (rank > w->user_rank) {
        w->user = *st;
        w->user_rank = rank;
    }
    for (int i = 0; i < 4; i++) {
        bxa_idset_add(&w->every_uid, st->uid[i]);
        bxa_idset_add(&w->every_gid, st->gid[i]);
        bxa_idset_add(&w->inns_uid, un && un->have_maps ? bxa_id_map_inside(&un->uid, st->uid[i])
                                                         : BXA_OVERFLOW_ID);
        bxa_idset_add(&w->inns_gid, un && un->have_maps ? bxa_id_map_inside(&un->gid, st->gid[i])
                                                         : BXA_OVERFLOW_ID);
    }
    for (size_t i = 0; i < st->ngroups; i++) {
        bxa_idset_add(&w->every_group, st->groups[i]);
        bxa_idset_add(&w->inns_group, un && un->have_maps
                                          ? bxa_id_map_inside(&un->gid, st->groups[i])
                                          : BXA_OVERFLOW_ID);
    }
    w->ntasks++;
}

void bxa_weakest_free(bxa_weakest *w)
{
    json_decref(w->surface);
    json_decref(w->interfaces);
    json_decref(w->mounts_ro);
    json_decref(w->outside);
    json_decref(w->descriptors);
    json_decref(w->references);
    json_decref(w->peers);
    json_decref(w->ns_fds);
    json_decref(w->masks);
    json_decref(w->hobj_via);
    json_decref(w->hobj_types);
    json_decref(w->hobj_uninspected);
    json_decref(w->hobj_mounts);
    for (size_t i = 0; i < w->nmntns; i++)
        free(w->mntns[i].mount_ids);
    free(w->pids);
    bxa_aa_free(w->aa);
    bxa_sc_set_free(w->sc);
    free(w);
}

/* The host objects one mount namespace reaches, beneath the root of a process in it. */
static int fold_hostobj(bxa_kctx *k, bxa_weakest *w, bxa_proc *p, const bxa_mount *m, size_t n)
{
    int root = bxa_root_open(k, p);
    int rc = bxa_fold_hostobj(k, w, root, m, n);

    if (root >= 0)
        close(root);
    return rc;
}

bxa_weakest *bxa_weakest_new(void)
{
    bxa_weakest *w = calloc(1, sizeof *w);

    if (!w)
        return NULL;
    w->user_rank = -1;
    for (int i = 0; i < 4; i++)
        w->sys_ro[i] = -1;
    w->surface = json_array();
    w->interfaces = json_array();
    w->mounts_ro = json_object();
    w->outside = json_array();
    w->descriptors = json_array();
    w->references = json_array();
    w->peers = json_array();
    w->ns_fds = json_array();
    w->masks = json_object();
    w->hobj_types = json_array();
    w->hobj_uninspected = json_array();
    w->hobj_mounts = json_array();
    w->pids = calloc(BXA_PIDS_MAX, sizeof *w->pids);
    w->sc = bxa_sc_set_new();
    if (!w->surface || !w->interfaces || !w->mounts_ro || !w->outside || !w->descriptors || !w->references || !w->peers ||
        !w->ns_fds || !w->masks || !w->pids || !w->hobj_types || !w->hobj_uninspected ||
        !w->hobj_mounts || !w->sc) {
        bxa_weakest_free(w);
        return NULL;
    }
    return w;
}

static bxa_userns *userns_of(bxa_weakest *w, const char *ns)
{
    for (size_t i = 0; i < w->nuserns; i++)
        if (strcmp(w->userns[i].ns, ns) == 0)
            return &w->userns[i];
    return NULL;
}

static const bxa_mntns *mntns_of(const bxa_weakest *w, const char *ns)
{
    for (size_t i = 0; i < w->nmntns; i++)
        if (strcmp(w->mntns[i].ns, ns) == 0)
            return &w->mntns[i];
    return NULL;
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* The mount ids of a mount namespace, for telling the descriptors that reach outside it. */
static int keep_mntns(bxa_kctx *k, bxa_weakest *w, const char *ns, const bxa_mount *m, size_t n)
{
    bxa_mntns *e;

    if (w->nmntns == sizeof w->mntns / sizeof w->mntns[0])
        return 0;
    e = &w->mntns[w->nmntns];
    if (!(e->mount_ids = calloc(n ? n : 1, sizeof *e->mount_ids)))
        return bxa_oom(k->err);
    for (size_t i = 0; i < n; i++)
        e->mount_ids[i] = m[i].id;
    qsort(e->mount_ids, n, sizeof *e->mount_ids, cmp_i64);
    e->nmount_ids = n;
    snprintf(e->ns, sizeof e->ns, "%s", ns);
    w->nmntns++;
    return 0;
}

/* The process's memory, pids and devices cgroups against the session's: one outside it makes
 * that limit unknown. */
static int check_cgroups(bxa_kctx *k, bxa_weakest *w, bxa_proc *p)
{
    static const char *const ctl[3] = {"memory", "pids", "devices"};
    bxa_cgroup *cg = NULL;
    size_t n = 0;
    int rc = 0;

    if ((rc = bxa_parse_cgroup(p->cgroup, p->cgroup_len, &cg, &n, k->err)) != 0)
        return rc;
    for (int i = 0; rc == 0 && i < 3; i++) {
        const char *c = k->key_controller ? ctl[i] : NULL;
        const char *sp = bxa_cgroup_path(k->cg, k->ncg, c), *pp = bxa_cgroup_path(cg, n, c);
        json_t *e;
        if (!sp || (pp && bxa_path_at_or_below(pp, sp)))
            continue;
        w->escaped[i] = 1;
        e = json_pack("{s:s,s:s,s:I}", "controller", ctl[i], "path", pp ? pp : "(none)", "pid",
                      (json_int_t)p->pid);
        if (!e || json_array_append_new(w->outside, e) != 0)
            rc = bxa_oom(k->err);
    }
    bxa_cgroups_free(cg, n);
    return rc;
}

typedef struct {
    int64_t tid;
    char *buf;
    size_t len;
} task_status;

static void tasks_free(task_status *t, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(t[i].buf);
    free(t);
}

/* Every task's status of the process at p (the leader's among them). */
static int read_tasks(bxa_kctx *k, bxa_proc *p, task_status **out, size_t *n)
{
    int tfd = openat(p->dfd, "task", O_RDONLY | O_DIRECTORY | O_CLOEXEC), dup_fd;
    task_status *t = NULL;
    DIR *d = NULL;
    struct dirent *e;
    int rc = 0;

    *out = NULL;
    *n = 0;
    if (tfd < 0)
        return errno == ENOENT || errno == ESRCH ? BX_ENOTFOUND
                                                  : bx_error_errno(k->err, BX_EIO, "task", "cannot open");
    if ((dup_fd = dup(tfd)) < 0 || !(d = fdopendir(dup_fd))) {
        if (dup_fd >= 0)
            close(dup_fd);
        close(tfd);
        return bx_error_errno(k->err, BX_EIO, "task", "cannot list");
    }
    if (!(t = calloc(TASKS_MAX, sizeof *t)))
        rc = bxa_oom(k->err);
    while (rc == 0 && (e = readdir(d)) != NULL) {
        char *end, path[48];
        long long tid = strtoll(e->d_name, &end, 10);
        if (*end || tid <= 0)
            continue;
        if (*n == TASKS_MAX) {
            rc = bx_error_set(k->err, BX_EINVAL, "task", "more than %d threads in process %lld",
                              TASKS_MAX, (long long)p->pid);
            break;
        }
        snprintf(path, sizeof path, "%lld/status", tid);
        rc = bxa_read_at(tfd, path, BXA_PROC_FILE_MAX, &t[*n].buf, &t[*n].len, k->err);
        if (rc == BX_ENOTFOUND) { /* a thread that ended meanwhile */
            rc = 0;
            continue;
        }
        if (rc == 0)
            t[(*n)++].tid = tid;
    }
    closedir(d);
    close(tfd);
    if (rc == 0 && *n == 0)
        rc = BX_ENOTFOUND; /* every thread gone: the process exited */
    if (rc != 0) {
        tasks_free(t, *n);
        *n = 0;
        return rc;
    }
    *out = t;
    return 0;
}

int bxa_fold_tasks(bxa_kctx *k, bxa_weakest *w, bxa_proc *p)
{
    task_status *tasks = NULL;
    size_t nt = 0;
    int rc;

    if ((rc = read_tasks(k, p, &tasks, &nt)) != 0)
        return rc;
    for (size_t i = 0; rc == 0 && i < nt; i++) {
        bxa_status st;
        char what[48];
        if ((rc = bxa_parse_status(tasks[i].buf, tasks[i].len, &st, k->err)) != 0)
            break;
        fold_status(w, &st, tasks[i].tid == p->pid, NULL);
        if (tasks[i].tid == p->pid)
            snprintf(what, sizeof what, "status");
        else
            snprintf(what, sizeof what, "task.%lld.status", (long long)tasks[i].tid);
        rc = bxa_keep_proc(k, p, what, tasks[i].buf, tasks[i].len);
    }
    tasks_free(tasks, nt);
    return rc;
}

/* Every task's seccomp chain (seccomp_kernel.c), read after its status. */
static int fold_seccomp(bxa_kctx *k, bxa_weakest *w, bxa_proc *p, task_status *t, size_t n)
{
    int64_t *tids = calloc(n ? n : 1, sizeof *tids);
    char **bufs = calloc(n ? n : 1, sizeof *bufs);
    int rc;

    if (!tids || !bufs) {
        rc = bxa_oom(k->err);
    } else {
        for (size_t i = 0; i < n; i++) {
            tids[i] = t[i].tid;
            bufs[i] = t[i].buf;
        }
        rc = bxa_sc_fold_proc(k, w->sc, p, tids, bufs, n);
    }
    free(tids);
    free(bufs);
    return rc;
}

/* Read one process: every task's status; mountinfo and net/dev once per mount and network
 * namespace, uid_map and gid_map once per user namespace; its descriptors. */
static int read_proc(bxa_kctx *k, bxa_weakest *w, bxa_proc *p, int is_init)
{
    char *mi = NULL, *nd = NULL, *umap = NULL, *gmap = NULL;
    size_t ml = 0, nl = 0, ul = 0, gl = 0, nt = 0;
    int new_mnt = 0, new_net = 0, new_user = 0, ns_root = -1, rc;
    task_status *tasks = NULL;
    bxa_mount *m = NULL;
    size_t nm = 0;
    bxa_userns *un;

    if ((rc = read_tasks(k, p, &tasks, &nt)) != 0)
        goto out;
    if (!seen_ns(w->mnt_seen, &w->nmnt, p->ns[BXA_NS_MNT])) {
        new_mnt = 1;
        if ((rc = bxa_read_mntns_mountinfo(k, p, &mi, &ml, &ns_root)) != 0)
            goto out;
    }
    if (!seen_ns(w->net_seen, &w->nnet, p->ns[BXA_NS_NET])) {
        new_net = 1;
        if ((rc = bxa_read_at(p->dfd, "net/dev", BXA_PROC_FILE_MAX, &nd, &nl, k->err)) != 0)
            goto out;
    }
    if (!(un = userns_of(w, p->ns[BXA_NS_USER]))) {
        new_user = 1;
        if ((rc = bxa_read_at(p->dfd, "uid_map", 64 * 1024, &umap, &ul, k->err)) != 0 ||
            (rc = bxa_read_at(p->dfd, "gid_map", 64 * 1024, &gmap, &gl, k->err)) != 0)
            goto out;
    }
    if (!bxa_proc_same(k, p)) {
        rc = is_init ? bx_error_set(k->err, BX_EDENIED, "kernel",
                                    "the session's process %lld changed during collection",
                                    (long long)p->pid)
                     : BX_ENOTFOUND;
        goto out;
    }
    if (new_user) {
        if (w->nuserns == BXA_SEEN_MAX) {
            w->userns_overflow = 1;
        } else {
            un = &w->userns[w->nuserns++];
            snprintf(un->ns, sizeof un->ns, "%s", p->ns[BXA_NS_USER]);
            if ((rc = bxa_parse_id_map(umap, ul, &un->uid, k->err)) != 0 ||
                (rc = bxa_parse_id_map(gmap, gl, &un->gid, k->err)) != 0)
                goto out;
            un->have_maps = 1;
        }
    }
    if (un)
        un->processes++;
    for (size_t i = 0; i < nt; i++) {
        bxa_status st;
        if ((rc = bxa_parse_status(tasks[i].buf, tasks[i].len, &st, k->err)) != 0)
            goto out;
        fold_status(w, &st, is_init && tasks[i].tid == p->pid, un);
        if ((rc = bxa_aa_task(k, w, p, tasks[i].tid)) != 0)
            goto out;
    }
    if ((rc = fold_seccomp(k, w, p, tasks, nt)) != 0)
        goto out;
    w->n++;
    if (w->npids < BXA_PIDS_MAX)
        w->pids[w->npids++] = p->pid;
    for (int i = 0; i < BXA_NS_COUNT; i++) {
        int dup = 0;
        for (size_t j = 0; j < w->nns_seen[i]; j++)
            dup |= strcmp(w->ns_seen[i][j], p->ns[i]) == 0;
        if (!dup && p->ns[i][0] && w->nns_seen[i] < BXA_SEEN_MAX)
            snprintf(w->ns_seen[i][w->nns_seen[i]++], 64, "%s", p->ns[i]);
        if (k->have_daemon)
            w->ns_host[i] |= p->ns[i][0] && strcmp(p->ns[i], k->daemon_ns[i]) == 0;
    }
    if (k->have_daemon)
        w->ns_known = 1;
    if ((rc = check_cgroups(k, w, p)) != 0)
        goto out;
    if (new_mnt) {
        k->ns_root_of = p;
        k->ns_root = ns_root;
        rc = bxa_parse_mountinfo(mi, ml, &m, &nm, k->err);
        if (rc == 0)
            rc = bxa_fold_mounts(k, w, p, m, nm);
        if (rc == 0)
            rc = bxa_fold_syspaths(k, w, p, m, nm);
        if (rc == 0)
            rc = fold_hostobj(k, w, p, m, nm);
        if (rc == 0)
            rc = bxa_fold_propagation(k, &w->peers, m, nm);
        k->ns_root_of = NULL;
        k->ns_root = -1;
        if (rc != 0 || (rc = keep_mntns(k, w, p->ns[BXA_NS_MNT], m, nm)) != 0)
            goto out;
    }
    if ((new_net && (rc = bxa_engine_peers_of(k, p)) != 0) ||
        (rc = bxa_fold_fds(k, w, p, mntns_of(w, p->ns[BXA_NS_MNT]), 1)) != 0 ||
        (rc = bxa_fold_refs(k, w->references, p, mntns_of(w, p->ns[BXA_NS_MNT]))) != 0)
        goto out;
    if (new_net) {
        json_t *names = NULL;
        const json_t *v;
        size_t i;
        if ((rc = bxa_parse_net_dev(nd, nl, &names, k->err)) != 0)
            goto out;
        json_array_foreach(names, i, v)
        {
            int dup = 0;
            const json_t *x;
            size_t j;
            json_array_foreach(w->interfaces, j, x) dup |= json_equal((json_t *)x, (json_t *)v);
            if (!dup)
                json_array_append(w->interfaces, (json_t *)v);
        }
        json_decref(names);
        bxa_sort_strings(w->interfaces);
    }
    if ((rc = bxa_keep_proc(k, p, "stat", p->stat, p->stat_len)) != 0 ||
        (rc = bxa_keep_proc(k, p, "cgroup", p->cgroup, p->cgroup_len)) != 0 ||
        (mi && (rc = bxa_keep_proc(k, p, "mountinfo", mi, ml)) != 0) ||
        (nd && (rc = bxa_keep_proc(k, p, "net_dev", nd, nl)) != 0) ||
        (umap && (rc = bxa_keep_proc(k, p, "uid_map", umap, ul)) != 0) ||
        (gmap && (rc = bxa_keep_proc(k, p, "gid_map", gmap, gl)) != 0))
        goto out;
    for (size_t i = 0; rc == 0 && i < nt; i++) {
        char what[48];
        if (tasks[i].tid == p->pid)
            snprintf(what, sizeof what, "status");
        else
            snprintf(what, sizeof what, "task.%lld.status", (long long)tasks[i].tid);
        rc = bxa_keep_proc(k, p, what, tasks[i].buf, tasks[i].len);
    }
    if (rc == 0) {
        char who[24];
        snprintf(who, sizeof who, "%lld", (long long)p->pid);
        rc = keep_ns(k, who, p->ns);
    }
out:
    if (ns_root >= 0)
        close(ns_root);
    bxa_mounts_free(m, nm);
    tasks_free(tasks, nt);
    free(mi);
    free(nd);
    free(umap);
    free(gmap);
    return rc;
}

int bxa_foreign_ns_fds(bxa_kctx *k, bxa_weakest *w)
{
    const json_t *d;
    size_t i;

    json_array_foreach(w->ns_fds, i, d)
    {
        const char *link = json_string_value(json_object_get(d, "target"));
        char type[16];
        uint64_t ino;
        int ours = 0;
        if (!link || bxa_ns_link_parse(link, type, &ino) != 0)
            continue;
        for (int t = 0; t < BXA_NS_COUNT; t++)
            if (strcmp(type, bxa_ns_names[t]) == 0)
                for (size_t j = 0; j < w->nns_seen[t]; j++)
                    ours |= strcmp(w->ns_seen[t][j], link) == 0;
        if (!ours && json_array_append(w->descriptors, (json_t *)d) != 0)
            return bxa_oom(k->err);
    }
    return 0;
}

/* ---- rounds until two scans agree ------------------------------------------------------------ */

typedef struct {
    bxa_kctx *k;
    bxa_proc *init;
    bxa_weakest *w;
    bxa_proc *procs; /* the processes of the last round, open (their pidfds) */
    size_t nprocs;
} rounds;

static void rounds_close(rounds *r)
{
    for (size_t i = 0; i < r->nprocs; i++)
        bxa_proc_close(&r->procs[i]);
    r->nprocs = 0;
}

static int op_scan(void *ctx, bxa_pidstart *out, size_t max, size_t *n)
{
    rounds *r = ctx;
    int rc = bxa_scan_session(r->k, out, max, n);
    int found = 0;

    if (rc != 0)
        return rc;
    for (size_t i = 0; i < *n; i++) {
        found |= out[i].pid == r->init->pid && out[i].start == r->init->start;
    }
    if (!found)
        return bx_error_set(r->k->err, BX_EDENIED, "kernel",
                            "the session's process %lld changed during collection (a scan did not "
                            "find it again)",
                            (long long)r->init->pid);
    return 0;
}

static int op_read(void *ctx, const bxa_pidstart *set, size_t n)
{
    rounds *r = ctx;
    bxa_kctx *k = r->k;
    int rc;

    rounds_close(r);
    if (r->w)
        bxa_weakest_free(r->w);
    bxa_evidence_clear(k->ev, BXA_EV_KERNEL); /* a round starts again */
    if (!(r->w = bxa_weakest_new()))
        return bxa_oom(k->err);
    /* the init process first: it was proven already */
    if ((rc = read_proc(k, r->w, r->init, 1)) != 0) {
        if (rc == BX_ENOTFOUND)
            rc = bx_error_set(k->err, BX_EDENIED, "kernel",
                              "the session's process %lld exited during collection",
                              (long long)r->init->pid);
        return rc;
    }
    for (size_t i = 0; i < n; i++) {
        bxa_proc *p = &r->procs[r->nprocs];
        int o;
        if (set[i].pid == r->init->pid)
            continue;
        o = bxa_proc_open(k, set[i].pid, p);
        r->nprocs++;
        if (o == 1 && p->start != set[i].start)
            o = 0; /* another process under the same pid: not the one scanned */
        if (o == 1) {
            o = read_proc(k, r->w, p, 0);
            if (o == BX_ENOTFOUND)
                o = 0; /* gone or changed while read: not counted */
            else if (o == 0)
                o = 1;
        }
        if (o < 0)
            return o;
        if (o == 0)
            bxa_proc_close(p); /* not read: a later scan that finds it does not agree */
    }
    return 0;
}

static int op_alive(void *ctx, const bxa_pidstart *set, size_t n)
{
    rounds *r = ctx;

    for (size_t i = 0; i < n; i++) {
        const bxa_proc *p = NULL;
        if (set[i].pid == r->init->pid) {
            p = r->init;
        } else {
            for (size_t j = 0; j < r->nprocs && !p; j++)
                if (r->procs[j].pid == set[i].pid && r->procs[j].dfd >= 0)
                    p = &r->procs[j];
        }
        /* a process scanned but not read, or read and since gone (its pid reused) */
        if (!p || p->start != set[i].start || bxa_pidfd_alive(p->pidfd) == 0)
            return 0;
    }
    return 1;
}

/* ---- the view ------------------------------------------------------------------------------ */

/* The session's sysctls read back in its own namespaces (sysctl.c): every name the engine
 * set, the spec's and the watched ones; only on this host's own /proc (a recorded one has no
 * namespaces to join). */
static int kernel_sysctls(bxa_kctx *k, bxa_proc *init, json_t *view)
{
    const json_t *spec = json_object_get(k->v->spec, "sysctls"), *v;
    const char *name;
    json_t *names = json_object(), *vals = NULL;
    int rc = 0;

    if (!k->real_proc) {
        json_decref(names);
        return 0;
    }
    if (!names)
        return bxa_oom(k->err);
    json_object_foreach((json_t *)k->s->sysctls, name, v) json_object_set(names, name, json_null());
    json_object_foreach((json_t *)spec, name, v) json_object_set(names, name, json_null());
    for (const char *const *w = bxa_sysctl_watched; *w; w++)
        json_object_set(names, *w, json_null());
    if ((rc = bxa_sysctl_read(init->dfd, names, &vals, k->err)) == 0 &&
        json_object_set_new(view, "sysctls", vals) != 0)
        rc = bxa_oom(k->err);
    json_decref(names);
    return rc;
}

/* The init process's network namespace over netlink (netlink.c): its links, addresses and
 * routes; its link names join net/dev's, which were read in every network namespace of the
 * session's processes. */
static int kernel_network(bxa_kctx *k, bxa_proc *init, json_t *view)
{
    json_t *net = NULL, *vnet = json_object_get(view, "network");
    json_t *names = json_object_get(vnet, "interfaces");
    const json_t *v, *x;
    size_t i, j;
    int rc;

    if ((rc = bxa_net_read(k, init, &net)) != 0 || !net)
        return rc;
    json_array_foreach(json_object_get(net, "interfaces"), i, v)
    {
        int dup = 0;
        json_array_foreach(names, j, x) dup |= json_equal((json_t *)x, (json_t *)v);
        if (!dup && json_is_array(names) && json_array_append(names, (json_t *)v) != 0)
            rc = bxa_oom(k->err);
    }
    bxa_sort_strings(names);
    json_object_del(net, "interfaces");
    if (rc == 0 && (!json_is_object(vnet) || json_object_update(vnet, net) != 0))
        rc = bxa_oom(k->err);
    json_decref(net);
    return rc;
}

static json_t *user_namespaces(const bxa_weakest *w)
{
    json_t *a = json_array();

    for (size_t i = 0; a && i < w->nuserns; i++) {
        const bxa_userns *u = &w->userns[i];
        json_t *maps[2] = {json_array(), json_array()};
        const bxa_id_map *src[2] = {&u->uid, &u->gid};
        for (int m = 0; m < 2; m++)
            for (size_t j = 0; maps[m] && j < src[m]->n; j++)
                json_array_append_new(maps[m], json_pack("[III]", (json_int_t)src[m]->inside[j],
                                                         (json_int_t)src[m]->outside[j],
                                                         (json_int_t)src[m]->count[j]));
        if (json_array_append_new(a, json_pack("{s:s,s:o,s:o,s:I}", "id", u->ns, "uidMap", maps[0],
                                               "gidMap", maps[1], "processes",
                                               (json_int_t)u->processes)) != 0) {
            json_decref(a);
            return NULL;
        }
    }
    return a;
}

static int cmp_by_id(const void *a, const void *b)
{
    return strcmp(json_string_value(json_object_get(*(json_t *const *)a, "id")),
                  json_string_value(json_object_get(*(json_t *const *)b, "id")));
}

static int cmp_outside(const void *a, const void *b)
{
    const json_t *x = *(json_t *const *)a, *y = *(json_t *const *)b;
    json_int_t p = json_integer_value(json_object_get(x, "pid")),
               q = json_integer_value(json_object_get(y, "pid"));
    if (p != q)
        return (p > q) - (p < q);
    return strcmp(json_string_value(json_object_get(x, "controller")),
                  json_string_value(json_object_get(y, "controller")));
}

static int cmp_descriptor(const void *a, const void *b)
{
    const json_t *x = *(json_t *const *)a, *y = *(json_t *const *)b;
    json_int_t p = json_integer_value(json_object_get(x, "pid")),
               q = json_integer_value(json_object_get(y, "pid"));
    json_int_t f = json_integer_value(json_object_get(x, "fd")),
               g = json_integer_value(json_object_get(y, "fd"));
    return p != q ? (p > q) - (p < q) : (f > g) - (f < g);
}

static int cmp_reference(const void *a, const void *b)
{
    const json_t *x = *(json_t *const *)a, *y = *(json_t *const *)b;
    json_int_t p = json_integer_value(json_object_get(x, "pid")),
               q = json_integer_value(json_object_get(y, "pid"));
    const char *keys[] = {"via", "target", "perms"};
    if (p != q)
        return (p > q) - (p < q);
    for (int i = 0; i < 3; i++) {
        const char *s = json_string_value(json_object_get(x, keys[i])),
                   *t = json_string_value(json_object_get(y, keys[i]));
        int c = !s || !t ? (s != NULL) - (t != NULL) : strcmp(s, t);
        if (c)
            return c;
    }
    return 0;
}

/* What every process's facts become when the scans did not agree: the weakest where the
 * predicate has no null, null elsewhere. */
static int unsettled(bxa_kctx *k, json_t *view)
{
    json_t *all = json_array(), *caps;
    int rc = 0;

    for (unsigned b = 0; all && b < BXA_CAP_COUNT; b++)
        json_array_append_new(all, json_string(bxa_cap_name(b)));
    caps = all ? json_pack("{s:O,s:O,s:O,s:O,s:O}", "inheritable", all, "permitted", all,
                           "effective", all, "bounding", all, "ambient", all)
               : NULL;
    json_decref(all);
    if (!caps || json_object_set_new(view, "capabilities", caps) != 0 ||
        json_object_set_new(view, "noNewPrivileges", json_false()) != 0 ||
        json_object_set_new(view, "seccomp", json_pack("{s:n}", "mode")) != 0 ||
        json_object_set_new(view, "user",
                            json_pack("{s:n,s:n,s:n,s:n,s:n,s:n,s:n}", "uids", "gids", "groups",
                                      "everyUid", "everyGid", "everyGroup", "inNamespace")) != 0 ||
        json_object_set_new(view, "descriptors", json_null()) != 0 ||
        json_object_set_new(view, "references", json_null()) != 0 ||
        json_object_set_new(view, "propagationPeers", json_null()) != 0 ||
        json_object_set_new(view, "namespacesShared", json_null()) != 0)
        rc = bxa_oom(k->err);
    return rc;
}

int bxa_kernel_processes(bxa_kctx *k, bxa_proc *init)
{
    static const bxa_settle_ops ops = {op_scan, op_read, op_alive};
    bxa_pidstart *a = calloc(BXA_PIDS_MAX, sizeof *a), *b = calloc(BXA_PIDS_MAX, sizeof *b);
    rounds r = {.k = k, .init = init, .procs = calloc(BXA_PIDS_MAX, sizeof(bxa_proc))};
    json_t *view = NULL, *shared = NULL, *nodes = NULL;
    char *status = NULL;
    size_t sl;
    bxa_status st;
    int rc = 0, scans = 0, settled = 0;
    bxa_weakest *w;

    if (!a || !b || !r.procs) {
        rc = bxa_oom(k->err);
        goto out;
    }
    for (size_t i = 0; i < BXA_PIDS_MAX; i++)
        r.procs[i].dfd = r.procs[i].pidfd = -1;
    if ((rc = bxa_read_at(init->dfd, "status", BXA_PROC_FILE_MAX, &status, &sl, k->err)) != 0 ||
        (rc = bxa_parse_status(status, sl, &st, k->err)) != 0) {
        if (rc == BX_ENOTFOUND)
            rc = bx_error_set(k->err, BX_EDENIED, "kernel",
                              "the session's process %lld exited during collection",
                              (long long)init->pid);
        goto out;
    }
    bxa_session_rule(k, init, &st);
    if ((rc = bxa_engine_sockets(k)) != 0 ||
        (rc = bxa_settle(&r, &ops, BXA_SCANS_MAX, a, b, BXA_PIDS_MAX, &scans, &settled)) != 0)
        goto out;
    w = r.w;
    if ((k->have_daemon && (rc = keep_ns(k, "daemon", k->daemon_ns)) != 0) ||
        (rc = bxa_foreign_ns_fds(k, w)) != 0)
        goto out;
    if (settled && (rc = bxa_ns_sharing(k, w, &shared)) != 0)
        goto out;
    bxa_sort_strings(w->interfaces);
    bxa_sort_json(w->outside, cmp_outside);
    bxa_sort_json(w->descriptors, cmp_descriptor);
    bxa_sort_json(w->references, cmp_reference);
    {
        json_t *caps = json_pack(
            "{s:o,s:o,s:o,s:o,s:o}", "inheritable", bxa_cap_names(w->caps[BXA_CAP_INH]),
            "permitted", bxa_cap_names(w->caps[BXA_CAP_PRM]), "effective",
            bxa_cap_names(w->caps[BXA_CAP_EFF]), "bounding", bxa_cap_names(w->caps[BXA_CAP_BND]),
            "ambient", bxa_cap_names(w->caps[BXA_CAP_AMB]));
        json_t *uids = json_pack("[IIII]", (json_int_t)w->user.uid[0], (json_int_t)w->user.uid[1],
                                 (json_int_t)w->user.uid[2], (json_int_t)w->user.uid[3]);
        json_t *gids = json_pack("[IIII]", (json_int_t)w->user.gid[0], (json_int_t)w->user.gid[1],
                                 (json_int_t)w->user.gid[2], (json_int_t)w->user.gid[3]);
        json_t *groups = json_array(), *ns = json_object(), *uns = user_namespaces(w);
        json_t *ro = json_object();
        for (size_t i = 0; groups && i < w->user.ngroups; i++)
            json_array_append_new(groups, json_integer(w->user.groups[i]));
        bxa_sort_ints(groups);
        for (int i = 0; ns && i < BXA_NS_COUNT; i++)
            json_object_set_new(ns, bxa_ns_names[i],
                                w->ns_known ? json_string(w->ns_host[i] ? "host" : "private")
                                            : json_null());
        for (int i = 0; ro && i < 4; i++)
            json_object_set_new(ro, bxa_sys_ro_paths[i],
                                w->sys_ro[i] < 0 ? json_null() : json_boolean(w->sys_ro[i]));
        if (uns)
            bxa_sort_json(uns, cmp_by_id);
        view = json_pack(
            "{s:o,s:b,s:{s:s?},s:{s:o,s:o,s:o,s:o,s:o,s:o,s:{s:o,s:o,s:o}},s:o,s:{s:O},s:O,s:O,"
            "s:{s:b},s:{s:s,s:I,s:I,s:I,s:b,s:O,s:o},s:{s:s,s:o,s:O},s:O}",
            "capabilities", caps, "noNewPrivileges", w->nnp, "seccomp", "mode",
            w->seccomp == 0 ? "disabled" : "filter", "user", "uids", uids, "gids", gids, "groups",
            groups, "everyUid", bxa_idset_json(&w->every_uid), "everyGid",
            bxa_idset_json(&w->every_gid), "everyGroup", bxa_idset_json(&w->every_group),
            "inNamespace", "everyUid", bxa_idset_json(&w->inns_uid), "everyGid",
            bxa_idset_json(&w->inns_gid), "everyGroup", bxa_idset_json(&w->inns_group),
            "namespaces", ns, "network", "interfaces", w->interfaces, "writeSurface", w->surface,
            "mountsReadOnly", w->mounts_ro, "rootfs", "readOnly", w->rootfs_seen && w->rootfs_ro,
            "processes", "rule", k->rule == BXA_RULE_PIDNS ? "pid-namespace" : "cgroup", "count",
            (json_int_t)w->n, "tasks", (json_int_t)w->ntasks, "scans", (json_int_t)scans,
            "settled", settled, "outsideCgroups", w->outside, "userNamespaces",
            uns ? uns : json_null(), "systemPaths", "servedBy", "kernel", "readOnly", ro, "masks",
            w->masks, "descriptors", w->descriptors);
        if (!view) {
            rc = bxa_oom(k->err);
            goto out;
        }
    }
    if (w->userns_overflow || w->every_uid.full || w->every_gid.full || w->every_group.full)
        json_object_set_new(view, "user",
                            json_pack("{s:n,s:n,s:n,s:n,s:n,s:n,s:n}", "uids", "gids", "groups",
                                      "everyUid", "everyGid", "everyGroup", "inNamespace"));
    if (!w->rootfs_seen)
        json_object_set_new(json_object_get(view, "rootfs"), "readOnly", json_null());
    {
        json_t *ho = NULL;
        if ((rc = bxa_hostobj_view(k, w, &ho)) != 0 ||
            json_object_set_new(view, "hostObjects", ho) != 0) {
            rc = rc ? rc : bxa_oom(k->err);
            goto out;
        }
    }
    if (json_object_set_new(view, "namespacesShared", shared ? shared : json_null()) != 0) {
        shared = NULL;
        rc = bxa_oom(k->err);
        goto out;
    }
    {
        json_t *ch = NULL;
        if (json_object_set(view, "references", w->references) != 0 ||
            json_object_set(view, "propagationPeers", w->peers ? w->peers : json_null()) != 0) {
            rc = bxa_oom(k->err);
            goto out;
        }
        if ((rc = bxa_channels(k, w, 0, &ch)) != 0)
            goto out;
        if (json_object_set_new(view, "channels", ch ? ch : json_null()) != 0) {
            rc = bxa_oom(k->err);
            goto out;
        }
    }
    shared = NULL;
    if ((rc = bxa_read_limits(k, view, NULL)) != 0 || (rc = bxa_aa_view(k, w, view)) != 0 ||
        (rc = kernel_sysctls(k, init, view)) != 0 ||
        (rc = kernel_network(k, init, view)) != 0)
        goto out;
    {
        /* a process outside the session's memory, pids or devices cgroup: that limit is not
         * the session's whole (reconcile.c makes it a discrepancy) */
        json_t *res = json_object_get(view, "resources");
        json_t *dev = json_object_get(view, "devices");
        if (w->escaped[0] && json_is_object(res)) {
            json_object_set_new(res, "memoryBytes", json_null());
            json_object_set_new(res, "memorySwapBytes", json_null());
        }
        if (w->escaped[1] && json_is_object(res))
            json_object_set_new(res, "pidsLimit", json_null());
        if (!json_is_object(dev)) {
            dev = json_object();
            if (!dev || json_object_set_new(view, "devices", dev) != 0) {
                rc = bxa_oom(k->err);
                goto out;
            }
        }
        if (w->escaped[2])
            json_object_set_new(dev, "allowAll", json_true());
        if ((rc = bxa_dev_nodes(k, init, !w->escaped[2] && (k->dev_rules || k->dev_progs), &nodes)) != 0)
            goto out;
        json_object_set_new(dev, "nodes", nodes);
        nodes = NULL;
        if ((rc = bxa_dev_walk(k, init, w, !w->escaped[2] && (k->dev_rules || k->dev_progs),
                               dev)) != 0)
            goto out;
    }
    {
        json_t *sc = NULL;
        if ((rc = bxa_sc_json(w->sc, json_object_get(json_object_get(k->spec_json, "linux"),
                                                     "seccomp"),
                              "kernel", NULL, NULL, &sc, k->err)) != 0)
            goto out;
        if (json_object_set_new(view, "seccompPrograms", settled ? sc : json_null()) != 0) {
            rc = bxa_oom(k->err);
            goto out;
        }
        if (!settled)
            json_decref(sc);
    }
    {
        json_t *nc = NULL;
        long long max = -1;
        if (k->real_proc)
            bxa_userns_max_read(init->dfd, &max);
        if ((rc = bxa_ns_creation_json(w->sc, "kernel", max, &nc, k->err)) != 0)
            goto out;
        if (json_object_set_new(view, "namespaceCreation", settled ? nc : json_null()) != 0) {
            rc = bxa_oom(k->err);
            goto out;
        }
        if (!settled)
            json_decref(nc);
    }
    if (!settled && (rc = unsettled(k, view)) != 0)
        goto out;
    k->v->kernel = view;
    view = NULL;
    k->v->level = "engine+kernel";
    snprintf(k->v->why, sizeof k->v->why,
             "%zu process(es), %zu task(s) of the session read on this host (cgroup %s; %s; %d "
             "scan(s)%s)",
             w->n, w->ntasks, k->key_path,
             k->rule == BXA_RULE_PIDNS ? "its pid namespace" : "its cgroup", scans,
             settled ? ", agreeing" : ", never agreeing");
out:
    json_decref(view);
    json_decref(shared);
    json_decref(nodes);
    rounds_close(&r);
    if (r.w)
        bxa_weakest_free(r.w);
    free(r.procs);
    free(a);
    free(b);
    free(status);
    return rc;
}
