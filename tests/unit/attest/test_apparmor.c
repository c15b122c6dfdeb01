/* SPDX-License-Identifier: Apache-2.0 */
/* AppArmor from the kernel (attest/apparmor.c): labels as the kernel writes them (stacks,
 * policy namespaces, modes), and a session's tasks over a host written here (the module's
 * enabled parameter, securityfs's profiles with their hashes, each task's
 * attr/apparmor/current): enforced only when every task is confined in enforce mode. */
#include "tap.h"
#include "attest_internal.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define SHA "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
#define SHA2 "fedcba9876543210fedcba9876543210fedcba9876543210fedcba9876543210"

static void labels(void)
{
    static const struct {
        const char *in;
        size_t n;
        const char *ns0, *name0, *mode0, *ns1, *name1, *mode1;
        int enforced;
    } t[] = {
        {"docker-default (enforce)\n", 1, "", "docker-default", "enforce", 0, 0, 0, 1},
        {"unconfined\n", 1, "", "unconfined", "unconfined", 0, 0, 0, 0},
        {"bx-custom (complain)\n", 1, "", "bx-custom", "complain", 0, 0, 0, 0},
        {"bx-kill (kill)", 1, "", "bx-kill", "kill", 0, 0, 0, 1},
        {"a//&b (complain)\n", 2, "", "a", "complain", "", "b", "complain", 0},
        {"a (complain)//&b (enforce)\n", 2, "", "a", "complain", "", "b", "enforce", 1},
        {":docker:p (enforce)\n", 1, "docker", "p", "enforce", 0, 0, 0, 1},
        {"p (enforce)//&:lxd//inner:unconfined\n", 2, "", "p", "enforce", "lxd//inner",
         "unconfined", "unconfined", 1},
        {"/usr/bin/foo//null-/bin/sh (complain)\n", 1, "", "/usr/bin/foo//null-/bin/sh", "complain",
         0, 0, 0, 0},
        /* crun on Debian 13: its own profile (unconfined mode) stacked with docker-default */
        {"crun//&docker-default (mixed)\n", 2, "", "crun", "mixed", "", "docker-default", "mixed",
         0},
    };
    static const char *const bad[] = {"",
                                      "\n",
                                      "p (bogus)\n",
                                      "a//&\n",
                                      ":ns (enforce)\n",
                                      "::p (enforce)\n",
                                      "p\n",
                                      "a\nb (enforce)\n",
                                      "p (enforce)//& (enforce)\n"};

    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        bxa_aa_label l;
        int r = bxa_aa_parse_label(t[i].in, strlen(t[i].in), &l);
        if (!ok(r == 0, "label %zu parses", i))
            continue;
        is_int(l.n, t[i].n, "label %zu: %zu profile(s)", i, t[i].n);
        is_str(l.p[0].ns, t[i].ns0, "label %zu: namespace", i);
        is_str(l.p[0].name, t[i].name0, "label %zu: name", i);
        is_str(l.p[0].mode, t[i].mode0, "label %zu: mode", i);
        if (t[i].n > 1) {
            is_str(l.p[1].ns, t[i].ns1, "label %zu: second namespace", i);
            is_str(l.p[1].name, t[i].name1, "label %zu: second name", i);
            is_str(l.p[1].mode, t[i].mode1, "label %zu: second mode", i);
        }
        is_int(bxa_aa_label_enforced(&l), t[i].enforced, "label %zu: enforced %d", i,
               t[i].enforced);
    }
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        bxa_aa_label l;
        ok(bxa_aa_parse_label(bad[i], strlen(bad[i]), &l) != 0, "refused: %zu", i);
    }
}

static char tmp[] = "/tmp/bx-apparmor-XXXXXX";

static void put(const char *path, const char *text)
{
    char full[1024];
    FILE *f;

    snprintf(full, sizeof full, "%s/%s", tmp, path);
    for (char *p = full + strlen(tmp) + 1; *p; p++)
        if (*p == '/') {
            *p = '\0';
            mkdir(full, 0755);
            *p = '/';
        }
    if ((f = fopen(full, "w"))) {
        fputs(text, f);
        fclose(f);
    }
}

/* The kernel's AppArmor of a session of tasks 100 and 101 (their labels l100, l101; NULL: the
 * file missing) on a host whose module parameter says enabled (NULL: no module). */
static json_t *session(const char *enabled, const char *l100, const char *l101)
{
    char cmd[128], dir[256];
    bxa_session s = {.id = "x", .pid = 100, .paths = {.mount_prefix = tmp}};
    bx_evidence *ev = bxa_evidence_new();
    bx_error e = {0};
    bxa_kctx k = {.s = &s, .ev = ev, .err = &e, .procfd = -1, .daemon_pid = -1};
    bxa_weakest *w = bxa_weakest_new();
    bxa_proc p = {.pid = 100, .dfd = -1, .pidfd = -1};
    json_t *view = json_object(), *out = NULL;

    snprintf(cmd, sizeof cmd, "rm -rf '%s'/*", tmp);
    (void)!system(cmd);
    put("proc/100/task/100/stat", "");
    put("proc/100/task/101/stat", "");
    if (enabled)
        put("sys/module/apparmor/parameters/enabled", enabled);
    put("sys/kernel/security/apparmor/policy/profiles/docker-default.3/name", "docker-default\n");
    put("sys/kernel/security/apparmor/policy/profiles/docker-default.3/sha256", SHA "\n");
    put("sys/kernel/security/apparmor/policy/profiles/bx-custom.5/name", "bx-custom\n");
    put("sys/kernel/security/apparmor/policy/profiles/bx-custom.5/sha256", "not a hash\n");
    put("sys/kernel/security/apparmor/policy/profiles/docker-default.3/mode", "enforce\n");
    put("sys/kernel/security/apparmor/policy/profiles/crun.1/name", "crun\n");
    put("sys/kernel/security/apparmor/policy/profiles/crun.1/mode", "unconfined\n");
    put("sys/kernel/security/apparmor/policy/profiles/crun.1/sha256", SHA2 "\n");
    if (l100)
        put("proc/100/task/100/attr/apparmor/current", l100);
    if (l101)
        put("proc/100/task/101/attr/apparmor/current", l101);
    snprintf(dir, sizeof dir, "%s/proc/100", tmp);
    p.dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (w && view && p.dfd >= 0 && bxa_aa_task(&k, w, &p, 100) == 0 &&
        bxa_aa_task(&k, w, &p, 101) == 0 && bxa_aa_view(&k, w, view) == 0)
        out = json_incref(json_object_get(json_object_get(view, "apparmor"), "kernel"));
    if (p.dfd >= 0)
        close(p.dfd);
    json_decref(view);
    bxa_weakest_free(w);
    bxa_evidence_free(ev);
    return out;
}

static void check(const char *name, json_t *got, const char *want)
{
    json_t *w = json_loads(want, 0, NULL);
    if (!ok(got && w && json_equal(got, w), "%s", name)) {
        char *g = got ? json_dumps(got, JSON_SORT_KEYS | JSON_COMPACT) : NULL;
        printf("#   got  %s\n#   want %s\n", g ? g : "(null)", want);
        free(g);
    }
    json_decref(got);
    json_decref(w);
}

static void tasks(void)
{
    check("every task docker-default (enforce): enforced, the profile's hash from securityfs",
          session("Y\n", "docker-default (enforce)\n", "docker-default (enforce)\n"),
          "{\"hostEnabled\":true,\"enforced\":true,\"labels\":[\"docker-default (enforce)\"],"
          "\"profiles\":[{\"namespace\":\"\",\"name\":\"docker-default\",\"mode\":\"enforce\","
          "\"sha256\":\"" SHA "\"}]}");
    check("a task in complain mode: not enforced (its hash not one: null)",
          session("Y\n", "docker-default (enforce)\n", "bx-custom (complain)\n"),
          "{\"hostEnabled\":true,\"enforced\":false,\"labels\":[\"bx-custom (complain)\","
          "\"docker-default (enforce)\"],\"profiles\":[{\"namespace\":\"\",\"name\":\"bx-custom\","
          "\"mode\":\"complain\",\"sha256\":null},{\"namespace\":\"\",\"name\":"
          "\"docker-default\",\"mode\":\"enforce\",\"sha256\":\"" SHA "\"}]}");
    check(
        "apparmor=unconfined: not enforced", session("Y\n", "unconfined\n", "unconfined\n"),
        "{\"hostEnabled\":true,\"enforced\":false,\"labels\":[\"unconfined\"],\"profiles\":"
        "[{\"namespace\":\"\",\"name\":\"unconfined\",\"mode\":\"unconfined\",\"sha256\":null}]}");
    check("a task whose label cannot be read: enforced null",
          session("Y\n", "docker-default (enforce)\n", NULL),
          "{\"hostEnabled\":true,\"enforced\":null,\"labels\":[\"docker-default (enforce)\"],"
          "\"profiles\":[{\"namespace\":\"\",\"name\":\"docker-default\",\"mode\":\"enforce\","
          "\"sha256\":\"" SHA "\"}]}");
    check("a label that is not the kernel's: enforced null",
          session("Y\n", "docker-default (enforce)\n", "docker-default (sure)\n"),
          "{\"hostEnabled\":true,\"enforced\":null,\"labels\":[\"docker-default (enforce)\"],"
          "\"profiles\":[{\"namespace\":\"\",\"name\":\"docker-default\",\"mode\":\"enforce\","
          "\"sha256\":\"" SHA "\"}]}");
    check("crun's stack (mixed): each profile's mode from securityfs; enforced by docker-default",
          session("Y\n", "crun//&docker-default (mixed)\n", "crun//&docker-default (mixed)\n"),
          "{\"hostEnabled\":true,\"enforced\":true,\"labels\":[\"crun//&docker-default (mixed)\"],"
          "\"profiles\":[{\"namespace\":\"\",\"name\":\"crun\",\"mode\":\"unconfined\",\"sha256\":"
          "\"" SHA2 "\"},{\"namespace\":\"\",\"name\":\"docker-default\",\"mode\":\"enforce\","
          "\"sha256\":\"" SHA "\"}]}");
    check("a mixed stack whose profile securityfs does not show: enforced null",
          session("Y\n", "docker-default (enforce)\n", "bx-gone//&docker-default (mixed)\n"),
          "{\"hostEnabled\":true,\"enforced\":null,\"labels\":[\"docker-default (enforce)\"],"
          "\"profiles\":[{\"namespace\":\"\",\"name\":\"docker-default\",\"mode\":\"enforce\","
          "\"sha256\":\"" SHA "\"}]}");
    check("a host without the module: no AppArmor, nothing enforced, no label read",
          session(NULL, "docker-default (enforce)\n", "docker-default (enforce)\n"),
          "{\"hostEnabled\":false,\"enforced\":false,\"labels\":[],\"profiles\":[]}");
    check("the module disabled (N): no AppArmor",
          session("N\n", "docker-default (enforce)\n", "docker-default (enforce)\n"),
          "{\"hostEnabled\":false,\"enforced\":false,\"labels\":[],\"profiles\":[]}");
    check("an enabled parameter that is neither Y nor N: not known, labels read",
          session("maybe\n", "docker-default (enforce)\n", "docker-default (enforce)\n"),
          "{\"hostEnabled\":null,\"enforced\":true,\"labels\":[\"docker-default (enforce)\"],"
          "\"profiles\":[{\"namespace\":\"\",\"name\":\"docker-default\",\"mode\":\"enforce\","
          "\"sha256\":\"" SHA "\"}]}");
}

int main(void)
{
    char cmd[128];

    labels();
    if (!mkdtemp(tmp))
        return 1;
    tasks();
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp);
    (void)!system(cmd);
    return tap_done();
}
