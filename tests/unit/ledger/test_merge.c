/* SPDX-License-Identifier: Apache-2.0 */
/* The notes-tree merge on real repositories (libgit2, in a temporary folder): union of
 * both sides, fast-forward, nothing to do, fanned-out trees as git writes them, and the
 * compare-and-swap of refs/notes/boxcert. */
#include "tap.h"
#include "ledger_internal.h"

#include <stdarg.h>
#include <stdlib.h>
#include <unistd.h>

static git_repository *repo;
static git_signature *sig;
static char dir[] = "/tmp/boxcert-ledger-merge.XXXXXX";

static git_oid commit_on(const git_oid *parent, const char *msg)
{
    git_treebuilder *tb = NULL;
    git_tree *tree = NULL;
    git_commit *p = NULL;
    git_oid tid, id;
    if (git_treebuilder_new(&tb, repo, NULL) < 0 || git_treebuilder_write(&tid, tb) < 0 ||
        git_tree_lookup(&tree, repo, &tid) < 0 ||
        (parent && git_commit_lookup(&p, repo, parent) < 0))
        abort();
    const git_commit *parents[1] = {p};
    if (git_commit_create(&id, repo, NULL, sig, sig, NULL, msg, tree, p ? 1 : 0, parents) < 0)
        abort();
    git_commit_free(p);
    git_tree_free(tree);
    git_treebuilder_free(tb);
    return id;
}

static void note(const char *ref, const git_oid *target, const char *text)
{
    git_oid id;
    if (git_note_create(&id, repo, ref, sig, sig, target, text, 1) < 0)
        abort();
}

/* The note text on ref for target, or "" (caller frees). */
static char *read_note(const char *ref, const git_oid *target)
{
    git_note *n = NULL;
    if (git_note_read(&n, repo, ref, target) < 0)
        return strdup("");
    char *s = strdup(git_note_message(n));
    git_note_free(n);
    return s;
}

static git_oid ref_id(const char *ref)
{
    git_oid id;
    memset(&id, 0, sizeof id);
    git_reference_name_to_id(&id, repo, ref);
    return id;
}

static size_t parents_of(const git_oid *id)
{
    git_commit *c = NULL;
    if (git_commit_lookup(&c, repo, id) < 0)
        return 99;
    size_t n = git_commit_parentcount(c);
    git_commit_free(c);
    return n;
}

/* A notes commit whose tree fans out: "ab/cdef…" as git writes past 256 notes. */
static git_oid fanned_notes_commit(const git_oid *target, const char *text)
{
    char hex[41], two[3];
    git_oid blob, sub, top, id;
    git_treebuilder *tb = NULL;
    git_tree *tree = NULL;
    git_oid_tostr(hex, sizeof hex, target);
    memcpy(two, hex, 2);
    two[2] = '\0';
    if (git_blob_create_from_buffer(&blob, repo, text, strlen(text)) < 0 ||
        git_treebuilder_new(&tb, repo, NULL) < 0 ||
        git_treebuilder_insert(NULL, tb, hex + 2, &blob, GIT_FILEMODE_BLOB) < 0 ||
        git_treebuilder_write(&sub, tb) < 0)
        abort();
    git_treebuilder_free(tb);
    if (git_treebuilder_new(&tb, repo, NULL) < 0 ||
        git_treebuilder_insert(NULL, tb, two, &sub, GIT_FILEMODE_TREE) < 0 ||
        git_treebuilder_write(&top, tb) < 0 || git_tree_lookup(&tree, repo, &top) < 0)
        abort();
    if (git_commit_create(&id, repo, NULL, sig, sig, NULL, "fanned", tree, 0, NULL) < 0)
        abort();
    git_tree_free(tree);
    git_treebuilder_free(tb);
    return id;
}

int main(void)
{
    bx_ledger *l = NULL;
    bx_error err;
    bx_ledger_sync s;
    char *t = NULL, cmd[128];

    git_libgit2_init();
    if (!mkdtemp(dir) || git_repository_init(&repo, dir, 0) < 0 ||
        git_signature_now(&sig, "test", "test@example.invalid") < 0)
        skip_all("cannot make a repository in /tmp");
    ok_err(bx_ledger_open(dir, &l, &err), &err, "open the repository");
    if (!l)
        return tap_done();

    git_oid c1 = commit_on(NULL, "c1"), c2 = commit_on(&c1, "c2"), c3 = commit_on(&c2, "c3");
    const char *ours = BX_LEDGER_NOTES_REF, *theirs = "refs/notes/theirs";

    /* Nothing local: their notes are taken as they are (fast-forward). */
    note(theirs, &c1, "T1\n");
    ok_err(bx_ledger_merge(l, theirs, "theirs", &s, &err), &err, "merge into no notes");
    is_int(s.outcome, BX_LEDGER_SYNC_FASTFORWARD, "fast-forward");
    git_oid o = ref_id(ours), th = ref_id(theirs);
    ok(git_oid_equal(&o, &th), "ours is theirs");

    /* Both sides add: a merge commit with both parents holding the union. */
    note(ours, &c1, "O1\n");
    note(ours, &c2, "O2\n");
    note(theirs, &c1, "T1\nT1b\n");
    note(theirs, &c3, "T3\n");
    git_oid before = ref_id(ours), their_tip = ref_id(theirs);
    ok_err(bx_ledger_merge(l, theirs, "theirs", &s, &err), &err, "merge diverged notes");
    is_int(s.outcome, BX_LEDGER_SYNC_MERGED, "merged");
    o = ref_id(ours);
    is_int(parents_of(&o), 2, "the merge commit has both parents");
    is_str((t = read_note(ours, &c1)), "O1\nT1\nT1b\n", "a note on both sides: union, sorted");
    free(t);
    is_str((t = read_note(ours, &c2)), "O2\n", "our own note is kept");
    free(t);
    is_str((t = read_note(ours, &c3)), "T3\n", "their own note is taken");
    free(t);
    is_int(s.notes_changed, 2, "two notes changed (c1, c3)");
    {
        git_commit *m = NULL;
        int have = git_commit_lookup(&m, repo, &o) == 0;
        ok(have && git_oid_equal(git_commit_parent_id(m, 0), &before), "first parent: ours");
        ok(have && git_oid_equal(git_commit_parent_id(m, 1), &their_tip), "second parent: theirs");
        git_commit_free(m);
    }

    /* Again: nothing to do. */
    ok_err(bx_ledger_merge(l, theirs, "theirs", &s, &err), &err, "merge again");
    is_int(s.outcome, BX_LEDGER_SYNC_NONE, "nothing to do once merged");

    /* Theirs built on ours and adds one: fast-forward. */
    if (git_reference_create(NULL, repo, theirs, &o, 1, NULL) < 0)
        abort();
    note(theirs, &c2, "O2\nT2\n");
    ok_err(bx_ledger_merge(l, theirs, "theirs", &s, &err), &err,
           "merge notes that descend from ours");
    is_int(s.outcome, BX_LEDGER_SYNC_FASTFORWARD, "fast-forward");
    o = ref_id(ours);
    th = ref_id(theirs);
    ok(git_oid_equal(&o, &th), "ours moved to theirs");

    /* Theirs rewrote history and dropped a note: the union keeps it. */
    git_reference_remove(repo, theirs);
    note(theirs, &c3, "T3\nX3\n");
    ok_err(bx_ledger_merge(l, theirs, "theirs", &s, &err), &err, "merge unrelated notes history");
    is_int(s.outcome, BX_LEDGER_SYNC_MERGED, "merged");
    is_str((t = read_note(ours, &c1)), "O1\nT1\nT1b\n", "nothing dropped on c1");
    free(t);
    is_str((t = read_note(ours, &c3)), "T3\nX3\n", "c3 gained a line");
    free(t);

    /* A fanned-out tree (git's layout past 256 notes) is read and merged in place. */
    git_oid fan = fanned_notes_commit(&c2, "F2\n");
    if (git_reference_create(NULL, repo, theirs, &fan, 1, NULL) < 0)
        abort();
    ok_err(bx_ledger_merge(l, theirs, "fanned", &s, &err), &err, "merge a fanned-out notes tree");
    is_str((t = read_note(ours, &c2)), "F2\nO2\nT2\n", "the fanned note is merged in");
    free(t);
    char *buf = NULL;
    size_t len = 0;
    char c2hex[41];
    git_oid_tostr(c2hex, sizeof c2hex, &c2);
    ok_err(bx_ledger_note_read(l, c2hex, &buf, &len, &err), &err, "bx_ledger_note_read");
    is_str(buf, "F2\nO2\nT2\n", "reads the same");
    free(buf);
    /* ours now fanned for c2? merge into a fanned base keeps its path */
    if (git_reference_create(NULL, repo, ours, &fan, 1, NULL) < 0)
        abort();
    git_reference_remove(repo, theirs);
    note(theirs, &c2, "G2\n");
    ok_err(bx_ledger_merge(l, theirs, "theirs", &s, &err), &err, "merge into a fanned-out tree");
    {
        git_commit *m = NULL;
        git_tree *tree = NULL;
        git_tree_entry *e = NULL;
        o = ref_id(ours);
        char path[64];
        snprintf(path, sizeof path, "%.2s/%s", c2hex, c2hex + 2);
        ok(git_commit_lookup(&m, repo, &o) == 0 && git_commit_tree(&tree, m) == 0 &&
               git_tree_entry_bypath(&e, tree, path) == 0,
           "the note stays at its fanned-out path");
        ok(git_tree_entry_byname(tree, c2hex) == NULL, "and is not written twice");
        git_tree_entry_free(e);
        git_tree_free(tree);
        git_commit_free(m);
    }
    is_str((t = read_note(ours, &c2)), "F2\nG2\n", "union at the fanned-out path");
    free(t);

    /* Compare-and-swap. */
    git_oid cur = ref_id(ours), other = c1;
    is_int(bxl_ref_cas(l, &other, &c2, "test", &err), BX__LEDGER_RETRY,
           "a stale expected value is a retry");
    o = ref_id(ours);
    ok(git_oid_equal(&o, &cur), "and leaves the ref alone");
    is_int(bxl_ref_cas(l, NULL, &c2, "test", &err), BX__LEDGER_RETRY,
           "creating a ref that exists is a retry");
    snprintf(cmd, sizeof cmd, "%s/.git/refs/notes/boxcert.lock", dir);
    FILE *lock = fopen(cmd, "w");
    is_int(bxl_ref_cas(l, &cur, &c2, "test", &err), BX__LEDGER_RETRY,
           "a locked ref is a retry");
    if (lock)
        fclose(lock);
    unlink(cmd);
    ok_err(bxl_ref_cas(l, &cur, &cur, "test", &err), &err, "the right expected value wins");

    ok(bx_ledger_merge(l, "refs/notes/none", "x", &s, &err) == BX_ENOTFOUND,
       "merging a ref that does not exist: BX_ENOTFOUND");

    bx_ledger_close(l);
    git_signature_free(sig);
    git_repository_free(repo);
    git_libgit2_shutdown();
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        printf("# could not remove %s\n", dir);
    return tap_done();
}
