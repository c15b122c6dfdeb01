/* SPDX-License-Identifier: Apache-2.0 */
/* The repository: opening it, resolving revisions, reading and writing notes trees,
 * and the compare-and-swap update of refs/notes/boxcert. */
#include "ledger_internal.h"
#include "bx_gitlayout.h"

#include <errno.h>
#include <stdarg.h>
#include <string.h>
#include <time.h>
#include <openssl/rand.h>

int bxl_git_error(bx_error *err, int code, const char *where, const char *fmt, ...)
{
    char msg[200];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    const git_error *g = git_error_last();
    if (g && g->message)
        return bx_error_set(err, code, where, "%s: %s", msg, g->message);
    return bx_error_set(err, code, where, "%s", msg);
}

int bx_ledger_open(const char *path, bx_ledger **out, bx_error *err)
{
    bx_ledger *l = NULL;
    int rc;
    if (git_libgit2_init() < 0)
        return bxl_git_error(err, BX_EENV, NULL, "cannot initialise libgit2");
    /* libgit2 runs no hooks and no program the repository's configuration names, and the
     * ledger never checks files out: it reads and writes objects and refs. A CI runner or
     * an auditor (root) must be able to use a checkout that another user owns. */
    if (git_libgit2_opts(GIT_OPT_SET_OWNER_VALIDATION, 0) < 0) {
        rc = bxl_git_error(err, BX_EENV, NULL, "cannot set owner validation");
        goto fail;
    }
    l = calloc(1, sizeof *l);
    if (!l) {
        rc = bx_error_set(err, BX_ENOMEM, NULL, "out of memory");
        goto fail;
    }
    /* a FIFO, device, socket or link among the files libgit2 reads is refused before it
     * opens any (a session may have written its checkout's .git) */
    int bare = 0;
    if ((rc = bx_git_layout_check(path, 1, &bare, err)) != 0)
        goto fail;
    int g = git_repository_open_ext(&l->repo, path, 0, NULL);
    if (g == GIT_ENOTFOUND) {
        rc = bx_error_set(err, BX_ECONFIG, path, "not a git repository");
        goto fail;
    }
    if (g < 0) {
        rc = bxl_git_error(err, BX_ECONFIG, path, "cannot open the repository");
        goto fail;
    }
    *out = l;
    return 0;
fail:
    free(l);
    git_libgit2_shutdown();
    return rc;
}

void bx_ledger_close(bx_ledger *l)
{
    if (!l)
        return;
    git_repository_free(l->repo);
    free(l);
    git_libgit2_shutdown();
}

int bx_ledger_resolve(bx_ledger *l, const char *rev, char out[41], bx_error *err)
{
    git_object *obj = NULL, *commit = NULL;
    int rc = 0;
    if (git_revparse_single(&obj, l->repo, rev) < 0) {
        rc = bxl_git_error(err, BX_ECONFIG, rev, "unknown revision");
        goto out;
    }
    if (git_object_peel(&commit, obj, GIT_OBJECT_COMMIT) < 0) {
        rc = bx_error_set(err, BX_ECONFIG, rev, "not a commit");
        goto out;
    }
    git_oid_tostr(out, 41, git_object_id(commit));
out:
    git_object_free(commit);
    git_object_free(obj);
    return rc;
}

int bxl_ref_id(bx_ledger *l, const char *ref, git_oid *out, int *exists, bx_error *err)
{
    int g = git_reference_name_to_id(out, l->repo, ref);
    *exists = g == 0;
    if (g == GIT_ENOTFOUND) {
        memset(out, 0, sizeof *out);
        return 0;
    }
    if (g < 0)
        return bxl_git_error(err, BX_EIO, ref, "cannot read the reference");
    return 0;
}

int bxl_tree_find(bx_ledger *l, git_tree *tree, const char *target, int *found,
                         git_oid *blob, char path[64], bx_error *err)
{
    git_tree *cur = tree, *sub = NULL;
    size_t off = 0, plen = 0;
    int rc = 0;
    *found = 0;
    path[0] = '\0';
    /* git fans notes out two hex digits per level: "ab/cdef…", "ab/cd/ef…". */
    while (off < 40) {
        const git_tree_entry *e = git_tree_entry_byname(cur, target + off);
        if (e && git_tree_entry_type(e) == GIT_OBJECT_BLOB) {
            snprintf(path + plen, 64 - plen, "%s", target + off);
            git_oid_cpy(blob, git_tree_entry_id(e));
            *found = 1;
            break;
        }
        char two[3] = {target[off], target[off + 1], '\0'};
        e = off + 2 < 40 ? git_tree_entry_byname(cur, two) : NULL;
        if (!e || git_tree_entry_type(e) != GIT_OBJECT_TREE)
            break;
        git_tree *next = NULL;
        if (git_tree_lookup(&next, l->repo, git_tree_entry_id(e)) < 0) {
            rc = bxl_git_error(err, BX_EIO, target, "cannot read the notes tree");
            break;
        }
        git_tree_free(sub);
        sub = cur = next;
        plen += (size_t)snprintf(path + plen, 64 - plen, "%s/", two);
        off += 2;
    }
    git_tree_free(sub);
    return rc;
}

int bxl_blob_read(bx_ledger *l, const git_oid *id, char **buf, size_t *len, bx_error *err)
{
    git_blob *b = NULL;
    char hex[41];
    int rc = 0;
    git_oid_tostr(hex, sizeof hex, id);
    if (git_blob_lookup(&b, l->repo, id) < 0)
        return bxl_git_error(err, BX_EIO, hex, "cannot read the note");
    git_object_size_t size = git_blob_rawsize(b);
    if (size > BX_LEDGER_NOTE_MAX) {
        rc = bx_error_set(err, BX_EINVAL, hex, "too large: note of %llu bytes; the cap is %d",
                          (unsigned long long)size, BX_LEDGER_NOTE_MAX);
        goto out;
    }
    char *p = malloc((size_t)size + 1);
    if (!p) {
        rc = bx_error_set(err, BX_ENOMEM, NULL, "out of memory");
        goto out;
    }
    if (size)
        memcpy(p, git_blob_rawcontent(b), (size_t)size);
    p[size] = '\0';
    *buf = p;
    *len = (size_t)size;
out:
    git_blob_free(b);
    return rc;
}

int bx_ledger_note_read(bx_ledger *l, const char *commit, char **buf, size_t *len, bx_error *err)
{
    git_oid head, blob;
    git_commit *c = NULL;
    git_tree *t = NULL;
    char path[64];
    int exists = 0, found = 0, rc;
    *buf = NULL;
    *len = 0;
    if ((rc = bxl_ref_id(l, BX_LEDGER_NOTES_REF, &head, &exists, err)) != 0 || !exists)
        return rc;
    if (git_commit_lookup(&c, l->repo, &head) < 0 || git_commit_tree(&t, c) < 0) {
        rc = bxl_git_error(err, BX_EIO, BX_LEDGER_NOTES_REF, "cannot read the notes commit");
        goto out;
    }
    if ((rc = bxl_tree_find(l, t, commit, &found, &blob, path, err)) != 0 || !found)
        goto out;
    rc = bxl_blob_read(l, &blob, buf, len, err);
out:
    git_tree_free(t);
    git_commit_free(c);
    return rc;
}

static int signature(bx_ledger *l, git_signature **out)
{
    if (git_signature_default(out, l->repo) == 0)
        return 0;
    return git_signature_now(out, "boxcert", "boxcert@localhost");
}

int bxl_write_commit(bx_ledger *l, git_commit *base, const bxl_update *updates,
                            size_t nupdates, git_commit **parents, size_t nparents, const char *msg,
                            git_oid *out, bx_error *err)
{
    git_tree *baseline = NULL, *tree = NULL;
    git_treebuilder *tb = NULL;
    git_signature *sig = NULL;
    git_tree_update *ups = NULL;
    git_oid id;
    int rc = 0;

    if (base) {
        if (git_commit_tree(&baseline, base) < 0) {
            rc = bxl_git_error(err, BX_EIO, BX_LEDGER_NOTES_REF,
                                      "cannot read the notes tree");
            goto out;
        }
    } else if (git_treebuilder_new(&tb, l->repo, NULL) < 0 || git_treebuilder_write(&id, tb) < 0 ||
               git_tree_lookup(&baseline, l->repo, &id) < 0) {
        rc = bxl_git_error(err, BX_EIO, NULL, "cannot write an empty tree");
        goto out;
    }
    ups = calloc(nupdates ? nupdates : 1, sizeof *ups);
    if (!ups) {
        rc = bx_error_set(err, BX_ENOMEM, NULL, "out of memory");
        goto out;
    }
    for (size_t i = 0; i < nupdates; i++) {
        ups[i].action = GIT_TREE_UPDATE_UPSERT;
        ups[i].filemode = GIT_FILEMODE_BLOB;
        ups[i].path = updates[i].path;
        if (!updates[i].buf) { /* an entry that is not a note, copied untouched */
            git_oid_cpy(&ups[i].id, &updates[i].id);
            ups[i].filemode = updates[i].mode;
            continue;
        }
        if (git_blob_create_from_buffer(&ups[i].id, l->repo, updates[i].buf, updates[i].len) < 0) {
            rc = bxl_git_error(err, BX_EIO, updates[i].path, "cannot write the note");
            goto out;
        }
    }
    if (git_tree_create_updated(&id, l->repo, baseline, nupdates, ups) < 0 ||
        git_tree_lookup(&tree, l->repo, &id) < 0) {
        rc = bxl_git_error(err, BX_EIO, BX_LEDGER_NOTES_REF, "cannot write the notes tree");
        goto out;
    }
    if (signature(l, &sig) < 0) {
        rc = bxl_git_error(err, BX_EIO, NULL, "cannot make a commit signature");
        goto out;
    }
    if (git_commit_create(out, l->repo, NULL, sig, sig, NULL, msg, tree, nparents,
                          (const git_commit **)parents) < 0) {
        rc =
            bxl_git_error(err, BX_EIO, BX_LEDGER_NOTES_REF, "cannot write the notes commit");
        goto out;
    }
out:
    git_signature_free(sig);
    free(ups);
    git_tree_free(tree);
    git_tree_free(baseline);
    git_treebuilder_free(tb);
    return rc;
}

int bxl_ref_cas(bx_ledger *l, const git_oid *expected, const git_oid *new_id,
                       const char *msg, bx_error *err)
{
    git_reference *ref = NULL;
    int g = expected ? git_reference_create_matching(&ref, l->repo, BX_LEDGER_NOTES_REF, new_id, 1,
                                                     expected, msg)
                     : git_reference_create(&ref, l->repo, BX_LEDGER_NOTES_REF, new_id, 0, msg);
    git_reference_free(ref);
    if (g == GIT_EMODIFIED || g == GIT_ELOCKED || g == GIT_EEXISTS)
        return BX__LEDGER_RETRY;
    if (g < 0)
        return bxl_git_error(err, BX_EIO, BX_LEDGER_NOTES_REF,
                                    "cannot update the reference");
    return 0;
}

void bxl_backoff(unsigned attempt)
{
    unsigned char r[2] = {0, 0};
    unsigned span = 1u << (attempt < 6 ? attempt : 6); /* ms */
    if (RAND_bytes(r, sizeof r) != 1)
        r[0] = r[1] = (unsigned char)attempt;
    unsigned ms = 1 + ((unsigned)r[0] << 8 | r[1]) % span;
    struct timespec ts = {.tv_sec = 0, .tv_nsec = (long)ms * 1000000L};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
        ;
}

int bxl_gave_up(bx_error *err)
{
    return bx_error_set(err, BX_EIO, BX_LEDGER_NOTES_REF,
                        "the reference kept changing under concurrent writers: gave up after %d "
                        "attempts",
                        BX__LEDGER_MAX_ATTEMPTS);
}
