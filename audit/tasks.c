/* SPDX-License-Identifier: Apache-2.0 */
/* Orphans: tasks the runtime holds (containerd's task folder for the engine's namespace,
 * one sub-folder per task) whose ids no engine of the audit knows. */
#include "audit_internal.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define TASKS_MAX 100000

/* Engine i shares this host's containerd: a dockerd of this host on a local socket, or an
 * engine (tcp://, ssh://) proven the same as one (alias_of, audit/engines.c). */
static int owns_tasks(const bx_audit *a, size_t i)
{
    if (a->engines[i].host_daemon)
        return 1;
    for (size_t j = 0; j < a->nengines; j++)
        if (a->engines[j].alias_of == (long)i && a->engines[j].host_daemon)
            return 1;
    return 0;
}

/* The Ids every engine that owns this host's tasks listed, as a set: a remote engine's
 * listing never hides a local orphan. Caller owns it. */
static json_t *listed_ids(const bx_audit *a)
{
    json_t *set = json_object(), *c;
    size_t k;

    for (size_t i = 0; set && i < a->nengines; i++) {
        if (!owns_tasks(a, i))
            continue;
        json_array_foreach(a->engines[i].all, k, c)
        {
            if (json_object_set(set, json_string_value(json_object_get(c, "Id")), json_true())) {
                json_decref(set);
                return NULL;
            }
        }
    }
    return set;
}

/* Known after all to an engine that owns this host's tasks (created since its listing)?
 * Asked by Id or name. */
static int known_now(bx_audit *a, const char *id)
{
    char path[320];

    if (!bx_container_name_ok(id))
        return 0;
    snprintf(path, sizeof path, "/containers/%s/json", id);
    for (size_t i = 0; i < a->nengines; i++) {
        bxu_engine *e = &a->engines[i];
        json_t *c = NULL;
        bx_error ee;
        int rc;
        if (!owns_tasks(a, i) || !e->reachable || e->lost || e->alias_of >= 0)
            continue;
        rc = bx_engine_get(e->eng, path, &c, NULL, NULL, &ee);
        /* the engine resolves prefixes and names: only the exact Id counts */
        if (rc == 0 && json_is_string(json_object_get(c, "Id")) &&
            strcmp(json_string_value(json_object_get(c, "Id")), id) == 0) {
            json_decref(c);
            return 1;
        }
        json_decref(c);
        if (rc != 0 && rc != BX_ENOTFOUND)
            bxu_engine_lost(a, i, &ee);
    }
    return 0;
}

/* init.pid of the task, or -1. */
static long task_pid(int dfd, const char *id)
{
    char path[320], buf[32];
    int fd;
    ssize_t n;
    long pid = -1;

    snprintf(path, sizeof path, "%s/init.pid", id);
    fd = openat(dfd, path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        return -1;
    n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n > 0) {
        char *end;
        buf[n] = '\0';
        pid = strtol(buf, &end, 10);
        if (end == buf || (*end && *end != '\n') || pid <= 0)
            pid = -1;
    }
    return pid;
}

static int local_docker_reached(const bx_audit *a)
{
    for (size_t i = 0; i < a->nengines; i++) {
        const bxu_engine *e = &a->engines[i];
        if (e->host_daemon && e->docker && e->reachable)
            return 1;
    }
    return 0;
}

/* Every local engine was listed (or is another endpoint of one that was): otherwise its
 * tasks would all look like orphans. (Only the engines that own this host's tasks subtract
 * theirs: owns_tasks.) */
static int local_listed(const bx_audit *a)
{
    int any = 0;

    for (size_t i = 0; i < a->nengines; i++) {
        const bxu_engine *e = &a->engines[i];
        if (!e->reachable) {
            if (e->local)
                return 0;
            continue;
        }
        any = 1;
        if (e->local && e->alias_of < 0 && !e->all)
            return 0;
    }
    return any;
}

static int name_cmp(const void *x, const void *y)
{
    return strcmp(*(char *const *)x, *(char *const *)y);
}

int bx_audit_check_tasks(bx_audit *a, const char *folder, bx_error *err)
{
    int explicit = folder != NULL, rc = 0, dfd = -1;
    json_t *known = NULL;
    DIR *d = NULL;
    struct dirent *e;
    char **cand = NULL;
    size_t n = 0, seen = 0;
    struct stat st;

    if (!folder)
        folder = BX_AUDIT_TASKS_DEFAULT;
    if (!local_listed(a) || (!explicit && !local_docker_reached(a)))
        return 0;
    dfd = open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd < 0 && !explicit && errno == ENOENT)
        return 0; /* no containerd on this host: nothing to check */
    free(a->tasks_folder);
    if (!(a->tasks_folder = strdup(folder))) {
        rc = bx_error_set(err, BX_ENOMEM, NULL, "out of memory");
        goto out;
    }
    if (!(known = listed_ids(a))) {
        rc = bx_error_set(err, BX_ENOMEM, NULL, "out of memory");
        goto out;
    }
    if (dfd < 0 || !(d = fdopendir(dup(dfd)))) {
        a->tasks_incomplete = 1;
        rc = bx_error_errno(err, BX_EIO, folder,
                            "cannot read the runtime's task folder (orphans not checked; "
                            "--tasks none skips the check)");
        goto out;
    }
    errno = 0;
    while ((e = readdir(d)) != NULL) {
        char **g;
        if (e->d_name[0] == '.')
            continue;
        if (fstatat(dfd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISDIR(st.st_mode))
            continue;
        if (++seen > TASKS_MAX) {
            a->tasks_incomplete = 1;
            rc = bx_error_set(err, BX_EIO, folder, "more than %d tasks", TASKS_MAX);
            goto out;
        }
        if (json_object_get(known, e->d_name))
            continue;
        if (!(g = realloc(cand, (n + 1) * sizeof *cand)) || !(g[n] = strdup(e->d_name))) {
            cand = g ? g : cand;
            rc = bx_error_set(err, BX_ENOMEM, NULL, "out of memory");
            goto out;
        }
        cand = g;
        n++;
        errno = 0;
    }
    if (errno) {
        a->tasks_incomplete = 1;
        rc = bx_error_errno(err, BX_EIO, folder, "cannot read the runtime's task folder");
        goto out;
    }
    if (n)
        qsort(cand, n, sizeof *cand, name_cmp);
    for (size_t i = 0; i < n; i++) {
        /* a session created since the listing is known by now; a session removed since
         * has no task folder any more (the engine deletes the task first) */
        if (known_now(a, cand[i]))
            continue;
        if (fstatat(dfd, cand[i], &st, AT_SYMLINK_NOFOLLOW) != 0)
            continue;
        long pid = task_pid(dfd, cand[i]);
        json_t *o =
            json_pack("{s:o, s:o, s:o}", "id", bxu_string(cand[i]), "pid",
                      pid > 0 ? json_integer(pid) : json_null(), "folder", bxu_string(folder));
        if (!o || json_array_append_new(a->orphans, o) != 0) {
            rc = bx_error_set(err, BX_ENOMEM, NULL, "out of memory");
            goto out;
        }
    }
out:
    json_decref(known);
    if (d)
        closedir(d);
    if (dfd >= 0)
        close(dfd);
    for (size_t i = 0; i < n; i++)
        free(cand[i]);
    free(cand);
    return rc;
}
