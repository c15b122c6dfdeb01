/* SPDX-License-Identifier: Apache-2.0 */
/* Who the session's processes are and how they are read (attest/scan.c), and the collector's
 * own safety (attest/guard.c), without an engine: scans that agree or do not (bxa_settle with
 * scans of our own making), pidfds of real children that exit, the cgroup paths that make a
 * process another container's, the session's in any hierarchy, a tracer seen by the
 * collector, links refused beneath a root. */
#include "tap.h"
#include "attest_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* ---- bxa_settle with scans of our own ----------------------------------------------------- */

typedef struct {
    const bxa_pidstart *const *scans; /* one set per scan, NULL-ended; the last repeats */
    const size_t *counts;
    int at;      /* scans made */
    int reads;   /* rounds read */
    int dead;    /* alive() says a process exited */
    int fail_at; /* a scan that fails (0: none) */
} script;

static int s_scan(void *ctx, bxa_pidstart *out, size_t max, size_t *n)
{
    script *s = ctx;
    int last = 0, i;
    while (s->scans[last + 1])
        last++;
    i = s->at < last ? s->at : last;
    s->at++;
    if (s->fail_at && s->at == s->fail_at)
        return BX_EDENIED;
    *n = s->counts[i] < max ? s->counts[i] : max;
    memcpy(out, s->scans[i], *n * sizeof *out);
    return 0;
}

static int s_read(void *ctx, const bxa_pidstart *set, size_t n)
{
    (void)set;
    (void)n;
    ((script *)ctx)->reads++;
    return 0;
}

static int s_alive(void *ctx, const bxa_pidstart *set, size_t n)
{
    (void)set;
    (void)n;
    return ((script *)ctx)->dead ? 0 : 1;
}

static const bxa_settle_ops ops = {s_scan, s_read, s_alive};

static void settle(void)
{
    static const bxa_pidstart one[] = {{10, 5}}, two[] = {{10, 5}, {11, 6}},
                              reused[] = {{10, 5}, {11, 7}}, three[] = {{10, 5}, {11, 6}, {12, 6}},
                              four[] = {{10, 5}, {11, 6}, {12, 6}, {13, 6}};
    bxa_pidstart a[8], b[8];
    int scans = 0, settled = 0;

    {
        const bxa_pidstart *sc[] = {two, NULL};
        const size_t cn[] = {2};
        script s = {.scans = sc, .counts = cn};
        ok(bxa_settle(&s, &ops, 4, a, b, 8, &scans, &settled) == 0 && settled && scans == 2 &&
               s.reads == 1,
           "two scans that agree: settled after one round");
    }
    {
        const bxa_pidstart *sc[] = {two, one, NULL};
        const size_t cn[] = {2, 1};
        script s = {.scans = sc, .counts = cn};
        ok(bxa_settle(&s, &ops, 4, a, b, 8, &scans, &settled) == 0 && settled && scans == 2,
           "a process that exited between the scans (read before): they agree");
    }
    {
        const bxa_pidstart *sc[] = {one, two, NULL};
        const size_t cn[] = {1, 2};
        script s = {.scans = sc, .counts = cn};
        ok(bxa_settle(&s, &ops, 4, a, b, 8, &scans, &settled) == 0 && settled && scans == 3 &&
               s.reads == 2,
           "a process the first scan missed: read again, settled at the third scan");
    }
    {
        const bxa_pidstart *sc[] = {two, reused, NULL};
        const size_t cn[] = {2, 2};
        script s = {.scans = sc, .counts = cn};
        ok(bxa_settle(&s, &ops, 4, a, b, 8, &scans, &settled) == 0 && settled && scans == 3,
           "a pid reused by another process (other start): not the one read, read again");
    }
    {
        const bxa_pidstart *sc[] = {one, two, three, four, NULL};
        const size_t cn[] = {1, 2, 3, 4};
        script s = {.scans = sc, .counts = cn};
        ok(bxa_settle(&s, &ops, 4, a, b, 8, &scans, &settled) == 0 && !settled && scans == 4,
           "scans that never agree: not settled, bounded at 4 scans");
    }
    {
        const bxa_pidstart *sc[] = {two, NULL};
        const size_t cn[] = {2};
        script s = {.scans = sc, .counts = cn, .dead = 1};
        ok(bxa_settle(&s, &ops, 3, a, b, 8, &scans, &settled) == 0 && !settled && scans == 3,
           "a process whose pidfd says it exited: never settled");
    }
    {
        const bxa_pidstart *sc[] = {two, NULL};
        const size_t cn[] = {2};
        script s = {.scans = sc, .counts = cn, .fail_at = 2};
        ok(bxa_settle(&s, &ops, 4, a, b, 8, &scans, &settled) == BX_EDENIED && !settled,
           "a scan that fails stops the collection");
    }
    ok(bxa_scans_agree(two, 2, one, 1), "agree: a subset");
    ok(!bxa_scans_agree(one, 1, two, 2), "disagree: a new process");
    ok(!bxa_scans_agree(two, 2, reused, 2), "disagree: the same pid, another start");
    ok(bxa_scans_agree(one, 1, NULL, 0), "agree: nothing left (the rest exited)");
}

/* ---- pidfds of real processes -------------------------------------------------------------- */

static void pidfds(void)
{
    pid_t child = fork();
    int fd, status;

    if (child == 0) {
        pause();
        _exit(0);
    }
    fd = bxa_pidfd_open(child);
    ok(fd >= 0, "a pidfd of a child");
    ok(bxa_pidfd_alive(fd) == 1, "alive while it runs");
    kill(child, SIGKILL);
    waitid(P_PID, (id_t)child, NULL, WEXITED | WNOWAIT);
    ok(bxa_pidfd_alive(fd) == 0, "not alive once it exited (a zombie: its pid not yet free)");
    waitpid(child, &status, 0);
    ok(bxa_pidfd_alive(fd) == 0, "not alive once reaped");
    ok(bxa_pidfd_alive(-1) == -1, "no pidfd: unknown");
    if (fd >= 0)
        close(fd);
    ok(bxa_pidfd_open(child) < 0, "no pidfd of a pid that is gone");
}

/* ---- cgroups ---------------------------------------------------------------------------------- */

#define SID "1111111111111111111111111111111111111111111111111111111111111111"
#define WID "2222222222222222222222222222222222222222222222222222222222222222"
#define XID "3333333333333333333333333333333333333333333333333333333333333333"

static void cgroups(void)
{
    bxa_container others[] = {{WID, "w"}};
    bxa_session s = {.id = SID};
    bxa_kctx k = {.s = &s, .others = others, .nothers = 1, .others_read = 1};
    static const char own[] = "8:pids:/docker/" SID "\n4:memory:/docker/" SID "\n0::/docker/" SID
                              "\n";
    static const char child[] = "8:pids:/docker/" SID "/" WID "\n0::/docker/" SID "/" WID "\n";
    static const char joined[] = "8:pids:/docker/" WID "\n4:memory:/docker/" WID "\n";
    static const char moved[] = "8:pids:/boxcert-test\n4:memory:/docker/" SID "\n";
    static const char unknown[] = "8:pids:/docker/" XID "\n";
    static const char sub[] = "8:pids:/docker/" SID "/sub\n";
    static const char sibling[] = "8:pids:/docker/" SID "x\n";
    char id[65] = "";

    ok(bxa_parse_cgroup(own, strlen(own), &k.cg, &k.ncg, NULL) == 0, "the session's cgroup");
    ok(!bxa_cgroup_other(&k, own, strlen(own), id), "the session's own: not another's");
    ok(bxa_cgroup_other(&k, child, strlen(child), id) && !strcmp(id, WID),
       "--cgroup-parent under the session: the deepest container named is another's");
    ok(bxa_cgroup_other(&k, joined, strlen(joined), NULL), "another container's cgroup");
    ok(!bxa_cgroup_other(&k, moved, strlen(moved), NULL),
       "moved out of one hierarchy: still the session's by the others");
    ok(!bxa_cgroup_other(&k, unknown, strlen(unknown), NULL),
       "an Id the engine does not list is not another container's");
    ok(bxa_in_session_any(&k, own, strlen(own)), "in the session's cgroup");
    ok(bxa_in_session_any(&k, sub, strlen(sub)), "in a cgroup below the session's");
    ok(bxa_in_session_any(&k, moved, strlen(moved)), "in the session's memory cgroup alone");
    ok(!bxa_in_session_any(&k, sibling, strlen(sibling)), "a sibling with the Id as a prefix: not");
    ok(!bxa_in_session_any(&k, joined, strlen(joined)), "another container's: not");
    ok(bxa_path_at_or_below("/a/b", "/a") && bxa_path_at_or_below("/a", "/a") &&
           !bxa_path_at_or_below("/ab", "/a") && bxa_path_at_or_below("/x", "/"),
       "at or below a cgroup path");
    bxa_cgroups_free(k.cg, k.ncg);
}

/* ---- the collector's own safety --------------------------------------------------------------- */

static void guard(void)
{
    bx_error e;
    pid_t child;
    int status = -1;

    ok(bx_collector_untraced(&e) == 0, "not traced: no refusal");
    child = fork();
    if (child == 0) {
        int rc;
        if (ptrace(PTRACE_TRACEME, 0, NULL, NULL) != 0)
            _exit(3);
        rc = bx_collector_untraced(&e);
        _exit(rc == BX_EENV && strstr(e.msg, "traced by process") ? 0 : 1);
    }
    waitpid(child, &status, 0);
    ok(WIFEXITED(status) && WEXITSTATUS(status) == 0,
       "a collector with a tracer refuses (BX_EENV naming the tracer)");
    child = fork();
    if (child == 0) {
        bx_collector_protect();
        _exit(prctl(PR_GET_DUMPABLE, 0, 0, 0, 0) == 0 ? 0 : 1);
    }
    waitpid(child, &status, 0);
    ok(WIFEXITED(status) && WEXITSTATUS(status) == 0, "bx_collector_protect: not dumpable");
}

static void beneath(void)
{
    char dir[] = "/tmp/bx-beneath-XXXXXX", path[128];
    int d, fd;

    if (!ok(mkdtemp(dir) != NULL, "a scratch folder"))
        return;
    d = open(dir, O_RDONLY | O_DIRECTORY);
    snprintf(path, sizeof path, "%s/sub", dir);
    mkdir(path, 0700);
    snprintf(path, sizeof path, "%s/sub/file", dir);
    close(open(path, O_CREAT | O_WRONLY, 0600));
    snprintf(path, sizeof path, "%s/link", dir);
    symlink("sub", path);
    snprintf(path, sizeof path, "%s/out", dir);
    symlink("/etc", path);
    fd = bxa_open_beneath(d, "sub/file", O_RDONLY);
    ok(fd >= 0, "a plain path beneath: opened");
    if (fd >= 0)
        close(fd);
    ok(bxa_open_beneath(d, "link/file", O_RDONLY) < 0, "through a symlink: refused");
    ok(bxa_open_beneath(d, "out", O_RDONLY) < 0, "a final symlink is not followed");
    fd = bxa_open_beneath(d, "out/passwd", O_RDONLY);
    ok(fd < 0, "a symlink out of the root: refused");
    if (fd >= 0)
        close(fd);
    ok(bxa_open_beneath(d, "../", O_RDONLY | O_DIRECTORY) < 0, "..: refused");
    ok(bxa_open_beneath(d, "/etc/passwd", O_RDONLY) < 0, "an absolute path: refused");
    snprintf(path, sizeof path, "rm -rf '%s'", dir);
    close(d);
    (void)!system(path);
}

int main(void)
{
    settle();
    pidfds();
    cgroups();
    guard();
    beneath();
    return tap_done();
}
