/* SPDX-License-Identifier: Apache-2.0 */
/* --source-repo/--source-rev (attest/source.c, libgit2): the commit must exist; dirty is
 * the tracked work tree against that commit; untracked files do not count; a repository
 * owned by another user is accepted. The repository is made with the git command line
 * (skipped without one). */
#include "tap.h"
#include "bx_attest.h"

#include <pwd.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char repo[] = "/tmp/bx-source-test.XXXXXX";

static int sh(char *out, size_t len, const char *cmd)
{
    char full[1024];
    FILE *p;

    snprintf(full, sizeof full,
             "cd '%s' && GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1 "
             "GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@e GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@e "
             "%s",
             repo, cmd);
    if (!(p = popen(full, "r")))
        return -1;
    if (out) {
        out[0] = '\0';
        if (fgets(out, (int)len, p))
            out[strcspn(out, "\n")] = '\0';
    }
    while (fgetc(p) != EOF)
        ;
    return pclose(p) == 0 ? 0 : -1;
}

int main(void)
{
    char head[64], first[64], sub[600];
    int dirty = -1;
    bx_error e;

    if (system("git --version >/dev/null 2>&1") != 0)
        skip_all("no git command line to make a repository with");
    if (!mkdtemp(repo)) {
        ok(0, "mkdtemp");
        return tap_done();
    }
    ok(sh(NULL, 0,
          "git init -q . && echo a >a && git add a && git commit -qm one && "
          "echo b >b && git add b && git commit -qm two") == 0,
       "a repository with two commits");
    sh(head, sizeof head, "git rev-parse HEAD");
    sh(first, sizeof first, "git rev-parse HEAD~1");

    ok_err(bx_source_check(repo, head, &dirty, &e), &e, "HEAD is a commit of the repository");
    is_int(dirty, 0, "a clean work tree");
    snprintf(sub, sizeof sub, "%s/sub", repo);
    ok(sh(NULL, 0, "mkdir -p sub") == 0, "a subfolder");
    ok_err(bx_source_check(sub, head, &dirty, &e), &e, "found from a subfolder, as git does");
    ok(sh(NULL, 0, "echo scratch >untracked") == 0 &&
           bx_source_check(repo, head, &dirty, &e) == 0 && dirty == 0,
       "an untracked file does not make it dirty");
    ok(sh(NULL, 0, "echo changed >>a") == 0 && bx_source_check(repo, head, &dirty, &e) == 0 &&
           dirty == 1,
       "a changed tracked file makes it dirty");
    ok(sh(NULL, 0, "git checkout -q -- a") == 0 && bx_source_check(repo, first, &dirty, &e) == 0 &&
           dirty == 1,
       "the work tree at HEAD differs from an older commit: dirty against it");
    ok(sh(NULL, 0, "echo staged >>b && git add b") == 0 &&
           bx_source_check(repo, head, &dirty, &e) == 0 && dirty == 1,
       "a staged change makes it dirty");
    sh(NULL, 0, "git reset -q --hard");

    ok(bx_source_check(repo, "0123456789abcdef0123456789abcdef01234567", &dirty, &e) ==
               BX_ECONFIG &&
           strstr(e.msg, "no such commit"),
       "an unknown commit refused (%s)", e.msg);
    ok(bx_source_check(repo, "HEAD", &dirty, &e) == BX_ECONFIG, "a name, not a commit id, refused");
    ok(bx_source_check(repo, "0123456", &dirty, &e) == BX_ECONFIG, "a short id refused");
    ok(bx_source_check(repo, "0123456789ABCDEF0123456789abcdef01234567", &dirty, &e) == BX_ECONFIG,
       "upper case refused");
    ok(bx_source_check("/", head, &dirty, &e) == BX_ECONFIG && strstr(e.msg, "not a git"),
       "not a repository (%s)", e.msg);

    /* owned by someone else (a CI checkout): accepted */
    struct passwd *pw = getpwnam("nobody");
    if (getuid() == 0 && pw) {
        char cmd[256];
        snprintf(cmd, sizeof cmd, "chown -R %d:%d .", (int)pw->pw_uid, (int)pw->pw_gid);
        ok(sh(NULL, 0, cmd) == 0, "the repository given to nobody");
        ok_err(bx_source_check(repo, head, &dirty, &e), &e,
               "a repository owned by another user accepted");
        is_int(dirty, 0, "... and read");
    }
    snprintf(sub, sizeof sub, "rm -rf '%s'", repo);
    if (system(sub) != 0)
        printf("# cleanup failed\n");
    return tap_done();
}
