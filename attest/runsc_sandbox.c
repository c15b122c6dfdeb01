/* SPDX-License-Identifier: Apache-2.0 */
/* runsc (gVisor) on this host: the sandbox process, proven the session's by its command
 * line (runsc boot ... <Id>) and its start time, read for the runtime's view: its global
 * flags (interpreted by runsc.c), its own status (evidence.sandbox), the gofer beside it,
 * and the cgroup's limits when the sandbox is in the session's cgroup. The workload runs
 * inside the sentry: nothing of it is read through the host's /proc. */
#include "attest_internal.h"
#include "attest_seccomp.h"

#include <fcntl.h>

#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define FAMILY_MAX 256 /* the sandbox's own helper processes */

/* ---- runsc: the sandbox ------------------------------------------------------------------- */

/* 1 when argv is runsc's process `sub` ("boot", "gofer") of the container id. */
int bxa_runsc_of(const json_t *argv, const char *sub, const char *id)
{
    size_t n = json_array_size(argv), i;
    const char *a0 = json_string_value(json_array_get(argv, 0));
    int has_sub = 0, names = 0;

    if (!a0 ||
        (strncmp(bxa_base_name(a0), "runsc", 5) != 0 && strcmp(bxa_base_name(a0), "exe") != 0))
        return 0;
    for (i = 1; i < n; i++) {
        const char *a = json_string_value(json_array_get(argv, i));
        if (!a)
            return 0;
        if (!has_sub && a[0] != '-')
            has_sub = strcmp(a, sub) == 0 ? 1 : -1;
        if (has_sub == 1 &&
            (strcmp(a, id) == 0 ||
             (strncmp(a, "--bundle", 8) == 0 &&
              strcmp(bxa_base_name(strchr(a, '=') ? strchr(a, '=') + 1 : ""), id) == 0)))
            names = 1;
        if (has_sub == 1 && strcmp(a, "--bundle") == 0 && i + 1 < n &&
            strcmp(bxa_base_name(json_string_value(json_array_get(argv, i + 1))), id) == 0)
            names = 1;
    }
    return has_sub == 1 && names;
}

int bxa_read_argv(bxa_kctx *k, int dfd, json_t **argv)
{
    char *buf = NULL;
    size_t len;
    int rc = bxa_read_at(dfd, "cmdline", BXA_PROC_FILE_MAX, &buf, &len, k->err);

    *argv = NULL;
    if (rc == 0)
        rc = bxa_parse_cmdline(buf, len, argv, k->err);
    free(buf);
    return rc;
}

/* The gofer: a runsc "gofer" of the same container, child of the sandbox's parent. */
static int find_gofer(bxa_kctx *k, int64_t ppid, int64_t *gofer)
{
    DIR *d = bxa_proc_list(k);
    struct dirent *e;

    *gofer = -1;
    if (!d)
        return 0;
    while (*gofer < 0 && (e = readdir(d)) != NULL) {
        char *end;
        long long pid = strtoll(e->d_name, &end, 10);
        bxa_proc p = {.dfd = -1, .pidfd = -1};
        json_t *argv = NULL;
        bxa_stat st;
        bx_error ign;
        if (*end || pid <= 0)
            continue;
        if (bxa_proc_prove(k, pid, &p) == 1 && bxa_parse_stat(p.stat, p.stat_len, &st, &ign) == 0 &&
            st.ppid == ppid && bxa_read_argv(k, p.dfd, &argv) == 0 &&
            bxa_runsc_of(argv, "gofer", k->s->id) && bxa_proc_same(k, &p)) {
            char *cl = json_dumps(argv, JSON_COMPACT);
            *gofer = pid;
            if (!cl || bxa_keep_proc(k, &p, "cmdline.json", cl, strlen(cl)) != 0)
                *gofer = -1;
            free(cl);
        }
        json_decref(argv);
        bxa_proc_close(&p);
    }
    closedir(d);
    return 0;
}

static const char *seccomp_word(int mode)
{
    return mode == 0 ? "disabled" : "filter";
}

/* The sandbox's user namespace and its maps (processes.userNamespaces). */
static int sandbox_userns(bxa_kctx *k, bxa_proc *sb, int count, json_t **out)
{
    char *u = NULL, *g = NULL;
    size_t ul, gl;
    bxa_id_map *maps = calloc(2, sizeof *maps);
    json_t *m[2] = {NULL, NULL};
    int rc;

    *out = NULL;
    if (!maps)
        return bxa_oom(k->err);
    if ((rc = bxa_read_at(sb->dfd, "uid_map", 64 * 1024, &u, &ul, k->err)) != 0 ||
        (rc = bxa_read_at(sb->dfd, "gid_map", 64 * 1024, &g, &gl, k->err)) != 0 ||
        (rc = bxa_parse_id_map(u, ul, &maps[0], k->err)) != 0 ||
        (rc = bxa_parse_id_map(g, gl, &maps[1], k->err)) != 0 ||
        (rc = bxa_keep_proc(k, sb, "uid_map", u, ul)) != 0 ||
        (rc = bxa_keep_proc(k, sb, "gid_map", g, gl)) != 0)
        goto out;
    for (int i = 0; i < 2; i++) {
        if (!(m[i] = json_array())) {
            rc = bxa_oom(k->err);
            goto out;
        }
        for (size_t j = 0; j < maps[i].n; j++)
            json_array_append_new(m[i], json_pack("[III]", (json_int_t)maps[i].inside[j],
                                                  (json_int_t)maps[i].outside[j],
                                                  (json_int_t)maps[i].count[j]));
    }
    *out = json_pack("[{s:s,s:o,s:o,s:i}]", "id", sb->ns[BXA_NS_USER], "uidMap", m[0], "gidMap",
                     m[1], "processes", count);
    m[0] = m[1] = NULL;
    if (!*out)
        rc = bxa_oom(k->err);
out:
    json_decref(m[0]);
    json_decref(m[1]);
    free(maps);
    free(u);
    free(g);
    return rc;
}

/* The sandbox's descendants (the sentry's own helper processes), by their parents. */
static int sandbox_family(bxa_kctx *k, int64_t sandbox, int64_t *pids, size_t max, size_t *n)
{
    size_t before;

    *n = 0;
    do {
        DIR *d = bxa_proc_list(k);
        struct dirent *e;
        before = *n;
        if (!d)
            return 0;
        while ((e = readdir(d)) != NULL && *n < max) {
            char *end, *buf = NULL, path[48];
            size_t len, i;
            long long pid = strtoll(e->d_name, &end, 10);
            bxa_stat st;
            bx_error ign;
            int known = 0, parent = 0;
            if (*end || pid <= 0)
                continue;
            for (i = 0; i < *n; i++)
                known |= pids[i] == pid;
            snprintf(path, sizeof path, "%lld/stat", pid);
            if (!known && bxa_read_at(k->procfd, path, BXA_PROC_FILE_MAX, &buf, &len, &ign) == 0 &&
                bxa_parse_stat(buf, len, &st, &ign) == 0 && st.starttime <= k->s->begin) {
                parent = st.ppid == sandbox;
                for (i = 0; !parent && i < *n; i++)
                    parent = st.ppid == pids[i];
                if (parent)
                    pids[(*n)++] = pid;
            }
            free(buf);
        }
        closedir(d);
    } while (*n > before && *n < max);
    return 0;
}

/* The descriptors of the sandbox, its descendants and the gofer (engine sockets and
 * namespaces only: their host files are the runtime's own), and who shares the sandbox's
 * network namespace (the workload's other namespaces are the sentry's: no host process is in
 * them). */
static int sandbox_outside(bxa_kctx *k, bxa_proc *const *ps, size_t nps, json_t **desc,
                           json_t **shared, json_t **channels)
{
    bxa_weakest *w = bxa_weakest_new(), *net = bxa_weakest_new();
    int rc = 0;

    *desc = *shared = *channels = NULL;
    if (!w || !net) {
        rc = bxa_oom(k->err);
        goto out;
    }
    for (size_t i = 0; i < nps; i++) {
        for (int t = 0; t < BXA_NS_COUNT; t++) {
            int dup = 0;
            for (size_t j = 0; j < w->nns_seen[t]; j++)
                dup |= strcmp(w->ns_seen[t][j], ps[i]->ns[t]) == 0;
            if (!dup && ps[i]->ns[t][0] && w->nns_seen[t] < BXA_SEEN_MAX)
                snprintf(w->ns_seen[t][w->nns_seen[t]++], 64, "%s", ps[i]->ns[t]);
        }
        if (net->npids < BXA_PIDS_MAX)
            net->pids[net->npids++] = ps[i]->pid;
        if ((i == 0 && (rc = bxa_engine_peers_of(k, ps[i])) != 0) ||
            (rc = bxa_fold_fds(k, w, ps[i], NULL, 0)) != 0)
            goto out;
    }
    if ((rc = bxa_foreign_ns_fds(k, w)) != 0)
        goto out;
    snprintf(net->ns_seen[BXA_NS_NET][0], 64, "%s", ps[0]->ns[BXA_NS_NET]);
    net->nns_seen[BXA_NS_NET] = ps[0]->ns[BXA_NS_NET][0] ? 1 : 0;
    if ((rc = bxa_ns_sharing(k, net, shared)) != 0)
        goto out;
    *desc = json_incref(w->descriptors);
    if ((rc = bxa_channels(k, net, 1, channels)) != 0)
        goto out;
out:
    if (w)
        bxa_weakest_free(w);
    if (net)
        bxa_weakest_free(net);
    return rc;
}

int bxa_runsc_sandbox(bxa_kctx *k, bxa_proc *sb, int in_cgroup)
{
    json_t *argv = NULL, *flags = NULL, *rt = NULL, *res = NULL, *view = NULL, *uns = NULL;
    json_t *desc = NULL, *shared = NULL, *chans = NULL;
    char *cmdline = NULL;
    size_t cl;
    int64_t gofer = -1;
    bxa_proc gp = {.dfd = -1, .pidfd = -1}, *famp = NULL, **all = NULL;
    int64_t *fam = NULL;
    size_t nfam = 0, nall = 0;
    bxa_weakest *w = NULL;
    bxa_stat pst;
    int rc, settled, count = 1;
    size_t tasks;

    if (!(w = bxa_weakest_new())) {
        rc = bxa_oom(k->err);
        goto out;
    }
    if ((rc = bxa_fold_tasks(k, w, sb)) != 0 ||
        (rc = bxa_read_at(sb->dfd, "cmdline", BXA_PROC_FILE_MAX, &cmdline, &cl, k->err)) != 0 ||
        (rc = bxa_parse_cmdline(cmdline, cl, &argv, k->err)) != 0 ||
        (rc = bxa_parse_stat(sb->stat, sb->stat_len, &pst, k->err)) != 0) {
        if (rc == BX_ENOTFOUND)
            rc = bx_error_set(k->err, BX_EDENIED, "runsc", "the sandbox exited during collection");
        goto out;
    }
    tasks = w->ntasks;
    if (!bxa_proc_same(k, sb)) {
        rc = bx_error_set(k->err, BX_EDENIED, "runsc", "the sandbox changed during collection");
        goto out;
    }
    if (!(flags = bxa_runsc_flags(argv))) {
        rc = bxa_oom(k->err);
        goto out;
    }
    if ((rc = bxa_keep_proc(k, sb, "stat", sb->stat, sb->stat_len)) != 0 ||
        (rc = bxa_keep_proc(k, sb, "cgroup", sb->cgroup, sb->cgroup_len)) != 0 ||
        (rc = bxa_keep_proc(k, sb, "cmdline", cmdline, cl)) != 0)
        goto out;
    find_gofer(k, pst.ppid, &gofer);
    if (gofer > 0 && bxa_proc_open(k, gofer, &gp) == 1) {
        bxa_weakest *gw = bxa_weakest_new();
        if (!gw) {
            rc = bxa_oom(k->err);
            goto out;
        }
        rc = bxa_fold_tasks(k, gw, &gp);
        tasks += gw->ntasks;
        bxa_weakest_free(gw);
        if (rc == BX_ENOTFOUND) {
            rc = 0;
            bxa_proc_close(&gp);
        } else if (rc != 0) {
            goto out;
        } else {
            count = 2;
        }
    }
    /* the sentry's helper processes below the sandbox */
    if (!(fam = calloc(FAMILY_MAX, sizeof *fam)) || !(famp = calloc(FAMILY_MAX, sizeof *famp)) ||
        !(all = calloc(FAMILY_MAX + 2, sizeof *all))) {
        rc = bxa_oom(k->err);
        goto out;
    }
    for (size_t i = 0; i < FAMILY_MAX; i++)
        famp[i].dfd = famp[i].pidfd = -1;
    all[nall++] = sb;
    if (gp.dfd >= 0)
        all[nall++] = &gp;
    if ((rc = sandbox_family(k, sb->pid, fam, FAMILY_MAX, &nfam)) != 0)
        goto out;
    for (size_t i = 0; i < nfam; i++) {
        bxa_weakest *fw;
        if (fam[i] == gofer || bxa_proc_open(k, fam[i], &famp[i]) != 1)
            continue;
        if (!(fw = bxa_weakest_new())) {
            rc = bxa_oom(k->err);
            goto out;
        }
        rc = bxa_fold_tasks(k, fw, &famp[i]);
        tasks += fw->ntasks;
        bxa_weakest_free(fw);
        if (rc == BX_ENOTFOUND) {
            rc = 0;
            continue;
        }
        if (rc != 0)
            goto out;
        all[nall++] = &famp[i];
        count++;
    }
    if ((rc = bxa_runsc_view(flags, k->v->spec, &rt, k->err)) != 0 ||
        (rc = sandbox_userns(k, sb, count, &uns)) != 0 ||
        (rc = sandbox_outside(k, all, nall, &desc, &shared, &chans)) != 0)
        goto out;
    /* the sandbox, the gofer and the helpers still the processes read */
    settled = bxa_proc_same(k, sb);
    for (size_t i = 0; i < nall; i++)
        settled = settled && bxa_pidfd_alive(all[i]->pidfd) != 0;
    view = json_pack("{s:{s:s,s:i,s:I,s:i,s:b,s:[],s:o},s:{s:s,s:{s:n,s:n,s:n,s:n},s:n},s:o,s:o}",
                     "processes", "rule", "sandbox", "count", count, "tasks", (json_int_t)tasks,
                     "scans", 1, "settled", settled, "outsideCgroups", "userNamespaces", uns,
                     "systemPaths", "servedBy", "sentry", "readOnly", "/proc/bus", "/proc/irq",
                     "/proc/sys", "/proc/sysrq-trigger", "masks", "descriptors", desc,
                     "namespacesShared", shared);
    uns = desc = shared = NULL;
    if (view && json_object_set_new(view, "channels", chans ? chans : json_null()) != 0)
        json_decref(view), view = NULL;
    chans = NULL;
    /* the sandbox's own cwd, root, exe and mappings are the runtime's (as its host files are) */
    if (view && json_object_set_new(view, "references", json_array()) != 0)
        json_decref(view), view = NULL;
    if (!view) {
        rc = bxa_oom(k->err);
        goto out;
    }
    /* the cgroup holds the sandbox (its limits apply to the whole sandbox) unless runsc
     * was told to leave cgroups alone */
    if (in_cgroup &&
        !json_is_null(json_object_get(json_object_get(rt, "resources"), "memoryBytes")) &&
        (res = json_object()) && (rc = bxa_read_limits(k, res, NULL)) == 0 &&
        json_object_get(res, "resources"))
        json_object_set(view, "resources", json_object_get(res, "resources"));
    if (rc != 0)
        goto out;
    /* what of this host the sandbox's mounts reach: the gofer's mountinfo (the gofer serves
     * the session's files; the sentry's own mount namespace holds none of them) */
    {
        json_t *ho = json_null(), *peers = json_array();
        if (!peers) {
            rc = bxa_oom(k->err);
            goto out;
        }
        if (gp.dfd >= 0) {
            char *mi = NULL;
            size_t ml = 0, nm = 0;
            bxa_mount *m = NULL;
            int root;
            if ((rc = bxa_read_at(gp.dfd, "mountinfo", BXA_PROC_FILE_MAX, &mi, &ml, k->err)) ==
                    0 &&
                (rc = bxa_parse_mountinfo(mi, ml, &m, &nm, k->err)) == 0) {
                root = openat(gp.dfd, "root", O_PATH | O_DIRECTORY | O_CLOEXEC);
                rc = bxa_fold_hostobj(k, w, root, m, nm);
                if (root >= 0)
                    close(root);
                if (rc == 0)
                    rc = bxa_keep_proc(k, &gp, "mountinfo", mi, ml);
                if (rc == 0)
                    rc = bxa_hostobj_view(k, w, &ho);
                if (rc == 0)
                    rc = bxa_fold_propagation(k, &peers, m, nm);
            }
            bxa_mounts_free(m, nm);
            free(mi);
            if (rc == BX_ENOTFOUND) { /* the gofer went meanwhile: not known */
                rc = 0;
                ho = json_null();
                json_decref(peers);
                peers = NULL;
            }
            if (rc != 0) {
                json_decref(peers);
                goto out;
            }
        } else { /* no gofer: the session's mounts not read */
            json_decref(peers);
            peers = NULL;
        }
        /* the gofer's mount namespace holds the session's files: a mount propagating there
         * appears in the sandbox's view of them */
        if (json_object_set_new(view, "propagationPeers", peers ? peers : json_null()) != 0) {
            json_decref(ho);
            rc = bxa_oom(k->err);
            goto out;
        }
        if (json_object_set_new(view, "hostObjects", ho) != 0) {
            rc = bxa_oom(k->err);
            goto out;
        }
    }
    {
        json_t *sc = NULL, *nc = NULL;
        if ((rc = bxa_sc_runsc(k, sb, json_object_get(rt, "seccomp"), &sc, &nc)) != 0)
            goto out;
        if (json_object_set_new(view, "seccompPrograms", sc) != 0 ||
            json_object_set_new(view, "namespaceCreation", nc) != 0) {
            rc = bxa_oom(k->err);
            goto out;
        }
    }
    /* the sandbox's network namespace as this host's kernel holds it: the sentry's netstack
     * takes its links, addresses and routes from there when it boots */
    {
        json_t *net = NULL;
        if ((rc = bxa_net_read(k, sb, &net)) != 0)
            goto out;
        if (net && json_object_set_new(view, "network", net) != 0) {
            rc = bxa_oom(k->err);
            goto out;
        }
    }
    k->v->kernel = view;
    view = NULL;
    k->v->sandbox =
        json_pack("{s:I,s:o,s:b,s:s,s:I}", "pid", (json_int_t)sb->pid, "capEffective",
                  bxa_cap_names(w->caps[BXA_CAP_EFF]), "noNewPrivileges", w->nnp, "seccompMode",
                  seccomp_word(w->seccomp), "uid", (json_int_t)w->user.uid[1]);
    if (json_object_get(rt, "sandbox"))
        json_object_update(k->v->sandbox, json_object_get(rt, "sandbox"));
    json_object_del(rt, "sandbox");
    k->v->runtime = rt;
    k->v->runtime_args = flags;
    rt = flags = NULL;
    k->v->level = "engine+runtime";
    snprintf(k->v->why, sizeof k->v->why,
             "runsc sandbox %lld (%zu task(s))%s read on this host with the task's OCI spec",
             (long long)sb->pid, tasks, gofer > 0 ? " and its gofer" : "");
out:
    json_decref(argv);
    json_decref(flags);
    json_decref(rt);
    json_decref(res);
    json_decref(view);
    json_decref(uns);
    json_decref(desc);
    json_decref(shared);
    json_decref(chans);
    bxa_proc_close(&gp);
    for (size_t i = 0; famp && i < nfam; i++)
        bxa_proc_close(&famp[i]);
    free(famp);
    free(fam);
    free(all);
    if (w)
        bxa_weakest_free(w);
    free(cmdline);
    return rc;
}
