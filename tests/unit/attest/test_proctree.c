/* SPDX-License-Identifier: Apache-2.0 */
/* The kernel view (attest/kernel.c and what it calls) over recorded hosts: every folder of
 * fixtures/proctree/ is a /proc, a cgroup tree and the engine's names written by
 * scripts/mkfixtures-proctree.py (its links listed in `links`, made in a copy of the tree), with
 * a session and the processes around it. expected.json: {"level": ..., "kernel": {"<JSON pointer
 * into the kernel's view>": <value>, ...}}: which processes are the session's, every task's
 * credentials and ids, the user namespaces, the cgroups a process left, the namespaces shared
 * and held open, the system paths, the descriptors reaching outside. BOXCERT_DUMP=1 prints each
 * view (to write an expected.json; check it by hand against the case's description). */
#include "tap.h"
#include "attest_internal.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define DIR_TREES BOXCERT_SOURCE_DIR "/fixtures/proctree"

static int containers(void *arg, bxa_container **list, size_t *n, bx_error *err)
{
    const json_t *all = arg, *c;
    size_t i;

    (void)err;
    *n = 0;
    *list = calloc(json_array_size(all) + 1, sizeof **list);
    if (!*list)
        return BX_ENOMEM;
    json_array_foreach(all, i, c)
    {
        snprintf((*list)[*n].id, sizeof(*list)[*n].id, "%s",
                 json_string_value(json_object_get(c, "Id")));
        snprintf((*list)[*n].name, sizeof(*list)[*n].name, "%s",
                 json_string_value(json_array_get(json_object_get(c, "Names"), 0)) + 1);
        (*n)++;
    }
    return 0;
}

/* mkdir -p of the folder holding path */
static void parents(char *path)
{
    for (char *p = path + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        mkdir(path, 0755);
        *p = '/';
    }
}

/* A copy of the case in a scratch folder, its links made. */
static int copy_case(const char *dir, char *tmp)
{
    char cmd[2048], *links, *line, *save = NULL;
    size_t len;

    snprintf(cmd, sizeof cmd, "cp -a '%s/.' '%s/'", dir, tmp);
    if (system(cmd) != 0)
        return -1;
    snprintf(cmd, sizeof cmd, "%s/links", dir);
    if (!(links = tap_slurp(cmd, &len)))
        return -1;
    for (line = strtok_r(links, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        char *tab = strchr(line, '\t'), path[1024];
        if (!tab)
            continue;
        *tab = '\0';
        snprintf(path, sizeof path, "%s/%s", tmp, line);
        parents(path);
        if (symlink(tab + 1, path) != 0) {
            free(links);
            return -1;
        }
    }
    free(links);
    return 0;
}

/* The kernel view of the recorded host copied to tmp: session (session.json) and the
 * engine's other containers (containers.json) as the collector would be given them. */
static int read_tree(const char *tmp, const json_t *session, json_t *others, bxa_views *views,
                     bx_evidence *ev, bx_error *err)
{
    char proc[1100], pidfile[1100], tasks[1100];

    snprintf(proc, sizeof proc, "%s/proc", tmp);
    snprintf(pidfile, sizeof pidfile, "%s/docker.pid", tmp);
    snprintf(tasks, sizeof tasks, "%s/tasks", tmp);
    bxa_session s = {
        .id = json_string_value(json_object_get(session, "id")),
        .pid = json_integer_value(json_object_get(session, "pid")),
        .begin = (uint64_t)json_integer_value(json_object_get(session, "begin")),
        .runtime = "runc",
        .kind = "docker",
        .socket = "/var/run/docker.sock",
        .sandbox_key = json_string_value(json_object_get(session, "sandboxKey")),
        .containers = containers,
        .containers_arg = others,
        .paths = {.proc = proc, .task_root = tasks, .pidfile = pidfile, .mount_prefix = tmp},
    };
    return bxa_kernel_read(&s, views, ev, err);
}

static void one_case(const char *name, const char *dir)
{
    char tmp[] = "/tmp/bx-proctree-XXXXXX", path[1100];
    json_t *session = NULL, *others = NULL, *want = NULL;
    const json_t *v;
    const char *ptr;
    bxa_views views = {.level = "engine"};
    bx_evidence *ev = bxa_evidence_new();
    bx_error err = {0};
    int rc;

    if (!ok(mkdtemp(tmp) != NULL && copy_case(dir, tmp) == 0, "%s: the tree copied, links made",
            name))
        goto out;
    snprintf(path, sizeof path, "%s/session.json", dir);
    session = json_load_file(path, 0, NULL);
    snprintf(path, sizeof path, "%s/containers.json", dir);
    others = json_load_file(path, 0, NULL);
    snprintf(path, sizeof path, "%s/expected.json", dir);
    want = json_load_file(path, 0, NULL);
    if (!ok(session && others && want, "%s: session.json, containers.json, expected.json", name))
        goto out;
    rc = read_tree(tmp, session, others, &views, ev, &err);
    ok_err(rc, &err, "%s: the kernel view read", name);
    if (getenv("BOXCERT_DUMP")) {
        char *s = json_dumps(views.kernel, JSON_INDENT(1) | JSON_SORT_KEYS);
        printf("# %s (%s): %s\n%s\n", name, views.level, views.why, s ? s : "null");
        free(s);
    }
    is_str(views.level, json_string_value(json_object_get(want, "level")), "%s: level", name);
    json_object_foreach(json_object_get(want, "kernel"), ptr, v)
    {
        const json_t *got = bx_json_at(views.kernel, ptr);
        if (!ok(got && json_equal((json_t *)got, (json_t *)v), "%s: %s", name, ptr)) {
            char *g = got ? json_dumps(got, JSON_ENCODE_ANY | JSON_COMPACT) : NULL;
            char *w = json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT);
            printf("#   got  %s\n#   want %s\n", g ? g : "(absent)", w ? w : "?");
            free(g);
            free(w);
        }
    }
out:
    if (tmp[0] && strcmp(tmp, "/tmp/bx-proctree-XXXXXX") != 0) {
        char cmd[128];
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp);
        (void)!system(cmd);
    }
    bxa_views_free(&views);
    bxa_evidence_free(ev);
    json_decref(session);
    json_decref(others);
    json_decref(want);
}

/* The case read by uid 65534 with proc/<hidden>/ns closed to it (root's, 0700), as a host
 * whose processes the collector may not all read: 0 when the view is as this wants (hidden
 * the session's init: level engine; else engine+kernel with namespacesShared null). */
static int hidden_run(char *tmp, const char *dir, const char *hidden, int session_init)
{
    char path[1100];
    json_t *session;
    bxa_views views = {.level = "engine"};
    bx_evidence *ev = bxa_evidence_new();
    bx_error err = {0};
    int rc;

    if (copy_case(dir, tmp) != 0)
        return 10;
    snprintf(path, sizeof path, "chown -R 65534:65534 '%s' && chown 0:0 '%s/proc/%s/ns' && "
             "chmod 0700 '%s/proc/%s/ns'", tmp, tmp, hidden, tmp, hidden);
    if (system(path) != 0)
        return 11;
    snprintf(path, sizeof path, "%s/session.json", dir);
    if (!(session = json_load_file(path, 0, NULL)))
        return 12;
    snprintf(path, sizeof path, "%s/containers.json", dir);
    json_t *others = json_load_file(path, 0, NULL);
    if (setresgid(65534, 65534, 65534) != 0 || setresuid(65534, 65534, 65534) != 0)
        return 13;
    rc = read_tree(tmp, session, others, &views, ev, &err);
    if (rc != 0)
        return 14;
    if (session_init)
        return strcmp(views.level, "engine") == 0 && !views.kernel &&
                       strstr(views.why, "not readable by this collector")
                   ? 0
                   : 15;
    if (strcmp(views.level, "engine+kernel") != 0)
        return 16;
    return json_is_null(json_object_get(views.kernel, "namespacesShared")) ? 0 : 17;
}

static void hidden(const char *dir, const char *pid, int session_init, const char *what)
{
    char tmp[] = "/tmp/bx-proctree-XXXXXX", cmd[128];
    pid_t c;
    int st = 0;

    if (!ok(mkdtemp(tmp) != NULL, "%s: a directory for the tree", what))
        return;
    c = fork();
    if (c == 0)
        _exit(hidden_run(tmp, dir, pid, session_init));
    ok(c > 0 && waitpid(c, &st, 0) == c && WIFEXITED(st) && WEXITSTATUS(st) == 0,
       "%s (exit %d)", what, WIFEXITED(st) ? WEXITSTATUS(st) : -1);
    /* the copy goes with the case (the child, as uid 65534, could not remove it) */
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp);
    (void)!system(cmd);
}

int main(void)
{
    DIR *d = opendir(DIR_TREES);
    struct dirent *de;
    int cases = 0;

    if (!d) {
        ok(0, "open %s", DIR_TREES);
        return tap_done();
    }
    while ((de = readdir(d)) != NULL) {
        char dir[1024];
        if (de->d_name[0] == '.')
            continue;
        snprintf(dir, sizeof dir, "%s/%s", DIR_TREES, de->d_name);
        one_case(de->d_name, dir);
        cases++;
    }
    closedir(d);
    ok(cases >= 2, "at least two recorded hosts (%d)", cases);
    /* a collector that may not read every process */
    hidden(DIR_TREES "/pidns-neighbours", "500", 0,
           "a process outside whose namespaces cannot be read: namespacesShared null, never "
           "\"not shared\"");
    hidden(DIR_TREES "/pidns-neighbours", "400", 0, "... another such process");
    hidden(DIR_TREES "/pidns-neighbours", "100", 1,
           "the session's init unreadable: level engine, saying why, no kernel view");
    return tap_done();
}
