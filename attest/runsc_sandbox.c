/* SPDX-License-Identifier: Apache-2.0 */
/* runsc (gVisor) on this host: the sandbox process, proven the session's by its command
 * line (runsc boot ... <Id>) and its start time, read for the runtime's view: its global
 * flags (interpreted by runsc.c), its own status (evidence.sandbox), the gofer beside it,
 * and the cgroup's limits when the sandbox is in the session's cgroup. The workload runs
 * inside the sentry: nothing of it is read through the host's /proc. */
#include "attest_internal.h"

#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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
        bxa_proc p = {.dfd = -1};
        json_t *argv = NULL;
        bxa_stat st;
        bx_error ign;
        if (*end || pid <= 0)
            continue;
        if (bxa_proc_prove(k, pid, &p) == 1 && bxa_parse_stat(p.stat, p.stat_len, &st, &ign) == 0 &&
            st.ppid == ppid && bxa_read_argv(k, p.dfd, &argv) == 0 &&
            bxa_runsc_of(argv, "gofer", k->s->id)) {
            char *status = NULL;
            size_t sl;
            if (bxa_read_at(p.dfd, "status", BXA_PROC_FILE_MAX, &status, &sl, &ign) == 0 &&
                bxa_proc_same(k, &p)) {
                char *cl = json_dumps(argv, JSON_COMPACT);
                *gofer = pid;
                if (bxa_keep_proc(k, &p, "status", status, sl) != 0 ||
                    (cl && bxa_keep_proc(k, &p, "cmdline.json", cl, strlen(cl)) != 0))
                    *gofer = -1;
                free(cl);
            }
            free(status);
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

int bxa_runsc_sandbox(bxa_kctx *k, bxa_proc *sb, int in_cgroup)
{
    json_t *argv = NULL, *flags = NULL, *rt = NULL, *res = NULL;
    char *status = NULL, *cmdline = NULL;
    size_t sl, cl;
    bxa_status st;
    int64_t gofer = -1;
    bxa_stat pst;
    int rc;

    if ((rc = bxa_read_at(sb->dfd, "status", BXA_PROC_FILE_MAX, &status, &sl, k->err)) != 0 ||
        (rc = bxa_read_at(sb->dfd, "cmdline", BXA_PROC_FILE_MAX, &cmdline, &cl, k->err)) != 0 ||
        (rc = bxa_parse_cmdline(cmdline, cl, &argv, k->err)) != 0 ||
        (rc = bxa_parse_status(status, sl, &st, k->err)) != 0 ||
        (rc = bxa_parse_stat(sb->stat, sb->stat_len, &pst, k->err)) != 0)
        goto out;
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
        (rc = bxa_keep_proc(k, sb, "status", status, sl)) != 0 ||
        (rc = bxa_keep_proc(k, sb, "cmdline", cmdline, cl)) != 0)
        goto out;
    find_gofer(k, pst.ppid, &gofer);
    if ((rc = bxa_runsc_view(flags, k->v->spec, &rt, k->err)) != 0)
        goto out;
    /* the cgroup holds the sandbox (its limits apply to the whole sandbox) unless runsc
     * was told to leave cgroups alone */
    if (in_cgroup &&
        !json_is_null(json_object_get(json_object_get(rt, "resources"), "memoryBytes")) &&
        (res = json_object()) && (rc = bxa_read_limits(k, res, NULL)) == 0 &&
        json_object_get(res, "resources")) {
        k->v->kernel = json_pack("{s:O}", "resources", json_object_get(res, "resources"));
    }
    if (rc != 0)
        goto out;
    k->v->sandbox =
        json_pack("{s:I,s:o,s:b,s:s,s:I}", "pid", (json_int_t)sb->pid, "capEffective",
                  bxa_cap_names(st.caps[BXA_CAP_EFF]), "noNewPrivileges", st.nnp, "seccompMode",
                  seccomp_word(st.seccomp), "uid", (json_int_t)st.uid[1]);
    if (json_object_get(rt, "sandbox"))
        json_object_update(k->v->sandbox, json_object_get(rt, "sandbox"));
    json_object_del(rt, "sandbox");
    k->v->runtime = rt;
    k->v->runtime_args = flags;
    rt = flags = NULL;
    k->v->level = "engine+runtime";
    snprintf(k->v->why, sizeof k->v->why,
             "runsc sandbox %lld%s read on this host with the task's OCI spec", (long long)sb->pid,
             gofer > 0 ? " and its gofer" : "");
out:
    json_decref(argv);
    json_decref(flags);
    json_decref(rt);
    json_decref(res);
    free(status);
    free(cmdline);
    return rc;
}
