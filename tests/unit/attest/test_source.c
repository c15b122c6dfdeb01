/* SPDX-License-Identifier: Apache-2.0 */
/* --source-repo/--source-rev (attest/source.c, libgit2): the commit must exist; dirty is
 * the tracked work tree against that commit, hashed raw; untracked files do not count; a
 * repository owned by another user is accepted; what the checkout says about itself
 * (skip-worktree, assume-unchanged, core.worktree, core.fileMode, info/attributes) cannot
 * make a changed tree read as clean, and is reported (source.ignored). The repository is
 * made with the git command line (skipped without one). */
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
    unsigned ign = 99;
    bx_error e;

    if (system("git --version >/dev/null 2>&1") != 0)
        skip_all("no git command line to make a repository with");
    if (!mkdtemp(repo)) {
        ok(0, "mkdtemp");
        return tap_done();
    }
    ok(sh(NULL, 0,
          "git init -q . && echo a >a && git add a && git commit -qm one && "
          "echo b >b && echo a2 >>a && git add a b && git commit -qm two") == 0,
       "a repository with two commits");
    sh(head, sizeof head, "git rev-parse HEAD");
    sh(first, sizeof first, "git rev-parse HEAD~1");

    ok_err(bx_source_check(repo, head, &dirty, &ign, &e), &e, "HEAD is a commit of the repository");
    is_int(dirty, 0, "a clean work tree");
    snprintf(sub, sizeof sub, "%s/sub", repo);
    ok(sh(NULL, 0, "mkdir -p sub") == 0, "a subfolder");
    is_int(bx_source_check(sub, head, &dirty, &ign, &e), BX_ECONFIG,
           "a subfolder is not the checkout: never searched upwards");
    ok(sh(NULL, 0, "echo scratch >untracked") == 0 &&
           bx_source_check(repo, head, &dirty, &ign, &e) == 0 && dirty == 0,
       "an untracked file does not make it dirty");
    ok(sh(NULL, 0, "echo changed >>a") == 0 && bx_source_check(repo, head, &dirty, &ign, &e) == 0 &&
           dirty == 1,
       "a changed tracked file makes it dirty");
    ok(sh(NULL, 0, "git checkout -q -- a") == 0 && bx_source_check(repo, first, &dirty, &ign, &e) == 0 &&
           dirty == 1,
       "the work tree at HEAD differs from an older commit: dirty against it");
    ok(sh(NULL, 0, "echo staged >>b && git add b") == 0 &&
           bx_source_check(repo, head, &dirty, &ign, &e) == 0 && dirty == 1,
       "a staged change of the work tree makes it dirty");
    ok(sh(NULL, 0, "git checkout -q HEAD -- b && echo staged >>b && git add b && "
                   "git show HEAD:b >b") == 0 &&
           bx_source_check(repo, head, &dirty, &ign, &e) == 0 && dirty == 0,
       "a change only staged does not count (the index is never read)");
    sh(NULL, 0, "git reset -q --hard");
    ok(bx_source_check(repo, head, &dirty, &ign, &e) == 0 && dirty == 0 && ign == 0,
       "clean again, nothing ignored");

    /* what the checkout says about itself cannot hide a change (issue 19.4) */
    static const struct {
        const char *make, *what;
        unsigned ignored;
    } fake[] = {
        {"git update-index --skip-worktree a && echo changed >>a", "skip-worktree",
         BX_SRC_SKIP_WORKTREE},
        {"git update-index --assume-unchanged a && echo changed >>a", "assume-unchanged",
         BX_SRC_ASSUME_UNCHANGED},
        {"git config core.fileMode false && chmod +x a", "core.fileMode false and a chmod",
         BX_SRC_CONFIG},
        {"mkdir -p .git/info && echo '* ident' >.git/info/attributes && "
         "printf 'x $Id$\n' >c && git add c && git commit -qm ident && "
         "printf 'x $Id: 0123456789abcdef0123456789abcdef01234567 $\n' >c",
         "an ident filter in .git/info/attributes", BX_SRC_INFO_ATTRIBUTES},
        {"mkdir -p \"$PWD.elsewhere\" && cp a b c \"$PWD.elsewhere/\" && "
         "git config core.worktree \"$PWD.elsewhere\" && echo changed >>a",
         "core.worktree pointing at a clean copy", BX_SRC_CORE_WORKTREE},
    };
    for (size_t i = 0; i < sizeof fake / sizeof fake[0]; i++) {
        char h[64];
        ok(sh(NULL, 0, fake[i].make) == 0, "%s: made", fake[i].what);
        sh(h, sizeof h, "git rev-parse HEAD");
        ok_err(bx_source_check(repo, h, &dirty, &ign, &e), &e, "%s: checked", fake[i].what);
        is_int(dirty, 1, "%s: the changed tree is dirty", fake[i].what);
        ok((ign & fake[i].ignored) != 0, "%s: reported as ignored (0x%x)", fake[i].what, ign);
        sh(NULL, 0, "git update-index --no-skip-worktree a; git update-index "
                    "--no-assume-unchanged a; git config --unset core.fileMode; git config "
                    "--unset core.worktree; rm -f .git/info/attributes; chmod -x a; "
                    "git reset -q --hard");
    }
    sh(head, sizeof head, "git rev-parse HEAD");
    ok(sh(NULL, 0, "rm a && ln -s /etc/hostname a") == 0 &&
           bx_source_check(repo, head, &dirty, &ign, &e) == 0 && dirty == 1,
       "a tracked file replaced by a link is dirty (never followed)");
    sh(NULL, 0, "rm -f a && git reset -q --hard");
    ok(sh(NULL, 0, "rm a && mkfifo a") == 0 && bx_source_check(repo, head, &dirty, &ign, &e) == 0 &&
           dirty == 1,
       "a tracked file replaced by a FIFO is dirty, and never blocks");
    sh(NULL, 0, "rm -f a && git reset -q --hard");
    ok(sh(NULL, 0, "ln -s a lnk && git add lnk && git commit -qm link") == 0, "a tracked link");
    sh(head, sizeof head, "git rev-parse HEAD");
    ok(bx_source_check(repo, head, &dirty, &ign, &e) == 0 && dirty == 0,
       "a tracked link with its target is clean");
    ok(sh(NULL, 0, "rm lnk && ln -s b lnk") == 0 &&
           bx_source_check(repo, head, &dirty, &ign, &e) == 0 && dirty == 1,
       "a link with another target is dirty");
    sh(NULL, 0, "git reset -q --hard");

    ok(bx_source_check(repo, "0123456789abcdef0123456789abcdef01234567", &dirty, &ign, &e) ==
               BX_ECONFIG &&
           strstr(e.msg, "no such commit"),
       "an unknown commit refused (%s)", e.msg);
    ok(bx_source_check(repo, "HEAD", &dirty, &ign, &e) == BX_ECONFIG, "a name, not a commit id, refused");
    ok(bx_source_check(repo, "0123456", &dirty, &ign, &e) == BX_ECONFIG, "a short id refused");
    ok(bx_source_check(repo, "0123456789ABCDEF0123456789abcdef01234567", &dirty, &ign, &e) == BX_ECONFIG,
       "upper case refused");
    ok(bx_source_check("/", head, &dirty, &ign, &e) == BX_ECONFIG && strstr(e.msg, "not a git"),
       "not a repository (%s)", e.msg);

    /* owned by someone else (a CI checkout): accepted */
    struct passwd *pw = getpwnam("nobody");
    if (getuid() == 0 && pw) {
        char cmd[256];
        snprintf(cmd, sizeof cmd, "chown -R %d:%d .", (int)pw->pw_uid, (int)pw->pw_gid);
        ok(sh(NULL, 0, cmd) == 0, "the repository given to nobody");
        ok_err(bx_source_check(repo, head, &dirty, &ign, &e), &e,
               "a repository owned by another user accepted");
        is_int(dirty, 0, "... and read");
    }
    snprintf(sub, sizeof sub, "rm -rf '%s' '%s.elsewhere'", repo, repo);
    if (system(sub) != 0)
        printf("# cleanup failed\n");
    return tap_done();
}
