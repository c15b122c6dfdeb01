/* SPDX-License-Identifier: Apache-2.0 */
/* The session's processes (runc, crun), read on this host.
 *
 * Which processes: every process of the session's cgroup (its cgroup.procs and those of
 * the cgroups below it, found from /proc/<State.Pid>/cgroup and this host's cgroup
 * mounts); when the cgroup folder is not reachable from here, every process of /proc whose
 * cgroup names the container. A process counts only once proven the session's: its
 * /proc/<pid>/cgroup names the container Id and it started (stat field 22) no later than
 * the collection began; it is read through its own /proc/<pid> directory descriptor, and
 * the proof is taken again after reading (same start time, same cgroup bytes).
 *
 * Each proven process is folded into the weakest values over them all: every capability
 * any of them holds, no-new-privileges only when every one has it, the weakest seccomp
 * mode, a namespace the host's when any of them shares it with the engine daemon, the ids
 * of the weakest (a process with a root id first, else the init process). */
#include "attest_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- one process ------------------------------------------------------------------------- */

void bxa_proc_close(bxa_proc *p)
{
    if (p->dfd >= 0)
        close(p->dfd);
    free(p->stat);
    free(p->cgroup);
    memset(p, 0, sizeof *p);
    p->dfd = -1;
}

/* Open /proc/<pid>, read its stat and cgroup: 1 when it started no later than the
 * collection began (and is no zombie), 0 when not or gone, <0 error. */
int bxa_proc_open(bxa_kctx *k, int64_t pid, bxa_proc *p)
{
    char path[32];
    bxa_stat st;
    int rc;

    memset(p, 0, sizeof *p);
    p->pid = pid;
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

/* After reading: the same process still (start time and cgroup unchanged). */
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
           cl == p->cgroup_len && memcmp(cg, p->cgroup, cl) == 0;
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

static int has_root(const bxa_status *st)
{
    for (int i = 0; i < 4; i++)
        if (st->uid[i] == 0)
            return 1;
    return 0;
}

static void fold_status(bxa_weakest *w, const bxa_status *st, int is_init)
{
    int rank = has_root(st) ? 2 : is_init ? 1 : 0;
    static const int order[3] = {0, 2, 1}; /* strength of Seccomp 0, 1, 2 */

    for (int i = 0; i < 5; i++)
        w->caps[i] |= st->caps[i];
    w->nnp = w->n == 0 ? st->nnp : (w->nnp && st->nnp);
    if (w->n == 0 || order[st->seccomp] < order[w->seccomp])
        w->seccomp = st->seccomp;
    if (rank > w->user_rank) {
        w->user = *st;
        w->user_rank = rank;
    }
    w->n++;
}

/* Read one proven process: status always; mountinfo and net/dev once per mount and network
 * namespace. */
static int read_proc(bxa_kctx *k, bxa_weakest *w, bxa_proc *p, int is_init)
{
    char *status = NULL, *mi = NULL, *nd = NULL;
    size_t sl = 0, ml = 0, nl = 0;
    int new_mnt = 0, new_net = 0, rc;
    bxa_status st;

    if ((rc = bxa_read_at(p->dfd, "status", BXA_PROC_FILE_MAX, &status, &sl, k->err)) != 0)
        goto out;
    if (!seen_ns(w->mnt_seen, &w->nmnt, p->ns[6])) {
        new_mnt = 1;
        if ((rc = bxa_read_at(p->dfd, "mountinfo", BXA_PROC_FILE_MAX, &mi, &ml, k->err)) != 0)
            goto out;
    }
    if (!seen_ns(w->net_seen, &w->nnet, p->ns[3])) {
        new_net = 1;
        if ((rc = bxa_read_at(p->dfd, "net/dev", BXA_PROC_FILE_MAX, &nd, &nl, k->err)) != 0)
            goto out;
    }
    if (!bxa_proc_same(k, p)) {
        rc = is_init ? bx_error_set(k->err, BX_EDENIED, "kernel",
                                    "the session's process %lld changed during collection",
                                    (long long)p->pid)
                     : BX_ENOTFOUND;
        goto out;
    }
    if ((rc = bxa_parse_status(status, sl, &st, k->err)) != 0)
        goto out;
    fold_status(w, &st, is_init);
    if (k->have_daemon) {
        for (int i = 0; i < BXA_NS_CONTAINMENT; i++)
            w->ns_host[i] |= p->ns[i][0] && strcmp(p->ns[i], k->daemon_ns[i]) == 0;
        w->ns_known = 1;
    }
    if (new_mnt && (rc = bxa_fold_mounts(k, w, p, mi, ml)) != 0)
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
        (rc = bxa_keep_proc(k, p, "status", status, sl)) != 0 ||
        (mi && (rc = bxa_keep_proc(k, p, "mountinfo", mi, ml)) != 0) ||
        (nd && (rc = bxa_keep_proc(k, p, "net_dev", nd, nl)) != 0))
        goto out;
    {
        char who[24];
        snprintf(who, sizeof who, "%lld", (long long)p->pid);
        rc = keep_ns(k, who, p->ns);
    }
out:
    free(status);
    free(mi);
    free(nd);
    return rc;
}

/* ---- runc, crun: the session's processes --------------------------------------------------- */

/* The session's sysctls read back in its own namespaces (sysctl.c): every name the engine
 * set, the spec's and the watched ones; only on this host's own /proc (a recorded one has no
 * namespaces to join). */
static int kernel_sysctls(bxa_kctx *k, bxa_proc *init, json_t *view)
{
    const json_t *spec = json_object_get(k->v->spec, "sysctls"), *v;
    const char *name;
    json_t *names = json_object(), *vals = NULL;
    int rc = 0;

    if (k->s->paths.proc && strcmp(k->s->paths.proc, "/proc") != 0) {
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

int bxa_kernel_processes(bxa_kctx *k, bxa_proc *init)
{
    int64_t *pids = calloc(BXA_PIDS_MAX, sizeof *pids);
    size_t n = 0;
    bxa_weakest w = {.user_rank = -1};
    char dir[PATH_MAX];
    json_t *view = NULL;
    int rc = 0, dfd;

    w.surface = json_array();
    w.interfaces = json_array();
    w.mounts_ro = json_object();
    if (!pids || !w.surface || !w.interfaces || !w.mounts_ro) {
        rc = bxa_oom(k->err);
        goto out;
    }
    if (bxa_cgroup_dir(k, k->key_controller, dir, sizeof dir) == 0 &&
        (dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) >= 0) {
        rc = bxa_list_procs(k, dfd, "", 0, pids, &n);
        close(dfd);
    } else {
        rc = bxa_scan_procs(k, pids, &n);
    }
    if (rc != 0)
        goto out;
    /* the init process first: it was proven already */
    if ((rc = read_proc(k, &w, init, 1)) != 0) {
        if (rc == BX_ENOTFOUND)
            rc = bx_error_set(k->err, BX_EDENIED, "kernel",
                              "the session's process %lld exited during collection",
                              (long long)init->pid);
        goto out;
    }
    for (size_t i = 0; i < n; i++) {
        bxa_proc p;
        int r;
        if (pids[i] == init->pid)
            continue;
        r = bxa_proc_prove(k, pids[i], &p);
        if (r == 1) {
            r = read_proc(k, &w, &p, 0);
            if (r == BX_ENOTFOUND)
                r = 0; /* gone or changed while read: not counted */
        }
        bxa_proc_close(&p);
        if (r < 0) {
            rc = r;
            goto out;
        }
    }
    if (k->have_daemon && (rc = keep_ns(k, "daemon", k->daemon_ns)) != 0)
        goto out;
    bxa_sort_strings(w.interfaces);
    {
        json_t *caps = json_pack(
            "{s:o,s:o,s:o,s:o,s:o}", "inheritable", bxa_cap_names(w.caps[BXA_CAP_INH]), "permitted",
            bxa_cap_names(w.caps[BXA_CAP_PRM]), "effective", bxa_cap_names(w.caps[BXA_CAP_EFF]),
            "bounding", bxa_cap_names(w.caps[BXA_CAP_BND]), "ambient",
            bxa_cap_names(w.caps[BXA_CAP_AMB]));
        json_t *uids = json_pack("[IIII]", (json_int_t)w.user.uid[0], (json_int_t)w.user.uid[1],
                                 (json_int_t)w.user.uid[2], (json_int_t)w.user.uid[3]);
        json_t *gids = json_pack("[IIII]", (json_int_t)w.user.gid[0], (json_int_t)w.user.gid[1],
                                 (json_int_t)w.user.gid[2], (json_int_t)w.user.gid[3]);
        json_t *groups = json_array(), *ns = json_object();
        for (size_t i = 0; groups && i < w.user.ngroups; i++)
            json_array_append_new(groups, json_integer(w.user.groups[i]));
        bxa_sort_ints(groups);
        for (int i = 0; ns && i < BXA_NS_CONTAINMENT; i++)
            json_object_set_new(ns, bxa_ns_names[i],
                                w.ns_known ? json_string(w.ns_host[i] ? "host" : "private")
                                           : json_null());
        view = json_pack("{s:o,s:b,s:{s:s?},s:{s:o,s:o,s:o},s:o,s:{s:O},s:O,s:O,s:{s:b}}",
                         "capabilities", caps, "noNewPrivileges", w.nnp, "seccomp", "mode",
                         w.seccomp == 0 ? "disabled" : "filter", "user", "uids", uids, "gids", gids,
                         "groups", groups, "namespaces", ns, "network", "interfaces", w.interfaces,
                         "writeSurface", w.surface, "mountsReadOnly", w.mounts_ro, "rootfs",
                         "readOnly", w.rootfs_seen && w.rootfs_ro);
        if (!view) {
            rc = bxa_oom(k->err);
            goto out;
        }
    }
    if (!w.rootfs_seen)
        json_object_set_new(json_object_get(view, "rootfs"), "readOnly", json_null());
    if ((rc = bxa_read_limits(k, view, NULL)) != 0 || (rc = kernel_sysctls(k, init, view)) != 0)
        goto out;
    k->v->kernel = view;
    view = NULL;
    k->v->level = "engine+kernel";
    snprintf(k->v->why, sizeof k->v->why,
             "%zu process(es) of the session read on this host (cgroup %s)", w.n, k->key_path);
out:
    json_decref(view);
    json_decref(w.surface);
    json_decref(w.interfaces);
    json_decref(w.mounts_ro);
    free(pids);
    return rc;
}
