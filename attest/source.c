/* SPDX-License-Identifier: Apache-2.0 */
/* The session's source revision, checked with libgit2: the commit exists in the repository
 * and whether the work tree differs from it.
 *
 * dirty: the tracked files of the work tree and the index, against the commit's tree
 * (whether or not the commit is HEAD). Untracked files do not count: they are not part of
 * any commit, and a build's outputs or a session's scratch files would otherwise make
 * every source dirty. A bare repository has no work tree: never dirty. */
#include "bx_attest.h"

#include <git2.h>
#include <string.h>

static int git_fail(bx_error *err, int code, const char *where, const char *what)
{
    const git_error *e = git_error_last();
    char msg[160];
    size_t i;

    snprintf(msg, sizeof msg, "%s", e && e->message ? e->message : "");
    for (i = 0; msg[i]; i++)
        if ((unsigned char)msg[i] < 0x20)
            msg[i] = ' ';
    return msg[0] ? bx_error_set(err, code, where, "%s: %s", what, msg)
                  : bx_error_set(err, code, where, "%s", what);
}

int bx_source_check(const char *dir, const char *rev, int *dirty, bx_error *err)
{
    git_repository *repo = NULL;
    git_commit *commit = NULL;
    git_tree *tree = NULL;
    git_diff *diff = NULL;
    git_diff_options dopts;
    git_oid oid;
    int rc = 0, g;

    *dirty = 0;
    if (!rev || strlen(rev) != 40 || !bx_is_lower_hex(rev, 40))
        return bx_error_set(err, BX_ECONFIG, "--source-rev",
                            "must be a full commit id (40 lowercase hex digits)");
    if (git_libgit2_init() < 0)
        return bx_error_set(err, BX_EENV, NULL, "cannot initialise libgit2");
    /* the repository may belong to another user (a CI checkout): accepted, as the caller
     * named it explicitly */
    if (git_libgit2_opts(GIT_OPT_SET_OWNER_VALIDATION, 0) < 0) {
        rc = git_fail(err, BX_EENV, NULL, "cannot configure libgit2");
        goto out;
    }
    if ((g = git_repository_open_ext(&repo, dir, 0, NULL)) < 0) {
        rc = git_fail(err, BX_ECONFIG, dir, "not a git repository");
        goto out;
    }
    if (git_oid_fromstr(&oid, rev) < 0 || git_commit_lookup(&commit, repo, &oid) < 0) {
        rc = git_fail(err, BX_ECONFIG, rev, "no such commit in the repository");
        goto out;
    }
    if (git_repository_is_bare(repo))
        goto out;
    if (git_commit_tree(&tree, commit) < 0) {
        rc = git_fail(err, BX_EIO, rev, "cannot read the commit's tree");
        goto out;
    }
    if (git_diff_options_init(&dopts, GIT_DIFF_OPTIONS_VERSION) < 0) {
        rc = git_fail(err, BX_EENV, NULL, "cannot configure libgit2");
        goto out;
    }
    dopts.flags = GIT_DIFF_IGNORE_SUBMODULES;
    if (git_diff_tree_to_workdir_with_index(&diff, repo, tree, &dopts) < 0) {
        rc = git_fail(err, BX_EIO, dir, "cannot compare the work tree with the commit");
        goto out;
    }
    *dirty = git_diff_num_deltas(diff) > 0;
out:
    git_diff_free(diff);
    git_tree_free(tree);
    git_commit_free(commit);
    git_repository_free(repo);
    git_libgit2_shutdown();
    return rc;
}
