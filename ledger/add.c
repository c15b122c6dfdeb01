/* SPDX-License-Identifier: Apache-2.0 */
/* ledger add: verify, then record certificates on their commit, by compare-and-swap. */
#include "ledger_internal.h"

#include <string.h>

void bx_ledger_add_items_free(bx_ledger_add_item *items, size_t n)
{
    for (size_t i = 0; items && i < n; i++)
        bx_verify_result_free(&items[i].res);
}

/* Put bufs[0..n) into note (owned; replaced). A merged envelope that no longer passes is
 * added as its own line instead. */
static int put_all(const bx_policy *p, const bx_verify_opts *o, const char *commit, size_t n,
                   const char *const *bufs, const size_t *lens, bx_ledger_add_item *items,
                   char **note, size_t *notelen, bx_error *err)
{
    int rc = 0;
    for (size_t i = 0; i < n && rc == 0; i++) {
        char *out = NULL, *line = NULL;
        size_t outlen = 0, linelen = 0;
        int status = 0;
        rc = bx_ledger_note_put(*note, *notelen, bufs[i], lens[i], 1, &out, &outlen, &line,
                                &linelen, &status, err);
        if (rc == 0 && status == BX_LEDGER_MERGED) {
            bx_verify_result res;
            rc = bx_ledger_verify_cert(p, o, commit, line, linelen, &res, err);
            int pass = res.pass;
            bx_verify_result_free(&res);
            if (rc == 0 && !pass) {
                free(out);
                out = NULL;
                rc = bx_ledger_note_put(*note, *notelen, bufs[i], lens[i], 0, &out, &outlen, NULL,
                                        NULL, &status, err);
            }
        }
        free(line);
        if (rc == 0) {
            free(*note);
            *note = out;
            *notelen = outlen;
            items[i].status = status;
        } else {
            free(out);
        }
    }
    return rc;
}

/* One read-modify-write of refs/notes/boxcert. Returns 0, BX__LEDGER_RETRY or an error. */
static int add_round(bx_ledger *l, const bx_policy *p, const bx_verify_opts *o, const char *commit,
                     size_t n, const char *const *bufs, const size_t *lens,
                     bx_ledger_add_item *items, bx_error *err)
{
    git_oid head, blob, id;
    git_commit *base = NULL;
    git_tree *tree = NULL;
    bxl_update up = {.buf = NULL};
    char *old = NULL;
    size_t oldlen = 0;
    int exists = 0, found = 0, rc;

    for (size_t i = 0; i < n; i++)
        items[i].status = 0;
    if ((rc = bxl_ref_id(l, BX_LEDGER_NOTES_REF, &head, &exists, err)) != 0)
        goto out;
    if (exists) {
        if (git_commit_lookup(&base, l->repo, &head) < 0 || git_commit_tree(&tree, base) < 0) {
            rc = bxl_git_error(err, BX_EIO, BX_LEDGER_NOTES_REF,
                                      "cannot read the notes commit");
            goto out;
        }
        if ((rc = bxl_tree_find(l, tree, commit, &found, &blob, up.path, err)) != 0)
            goto out;
        if (found && (rc = bxl_blob_read(l, &blob, &old, &oldlen, err)) != 0)
            goto out;
    }
    if (!found)
        snprintf(up.path, sizeof up.path, "%s", commit);
    if (old) {
        up.buf = malloc(oldlen + 1);
        if (!up.buf) {
            rc = bx_error_set(err, BX_ENOMEM, NULL, "out of memory");
            goto out;
        }
        memcpy(up.buf, old, oldlen + 1);
        up.len = oldlen;
    }
    if ((rc = put_all(p, o, commit, n, bufs, lens, items, &up.buf, &up.len, err)) != 0)
        goto out;
    if (found && up.len == oldlen && memcmp(up.buf, old, oldlen) == 0)
        goto out; /* every certificate is already there: nothing to write */
    git_commit *parents[1] = {base};
    char msg[160];
    snprintf(msg, sizeof msg, "Notes added by 'boxcert ledger add' to %.12s\n", commit);
    if ((rc = bxl_write_commit(l, base, &up, 1, parents, base ? 1 : 0, msg, &id, err)) != 0)
        goto out;
    rc = bxl_ref_cas(l, exists ? &head : NULL, &id, "boxcert ledger add", err);
out:
    free(old);
    free(up.buf);
    git_tree_free(tree);
    git_commit_free(base);
    return rc;
}

int bx_ledger_add(bx_ledger *l, const bx_policy *p, const bx_verify_opts *o, const char *rev,
                  size_t n, const char *const *bufs, const size_t *lens, bx_ledger_add_item *items,
                  bx_error *err)
{
    char commit[41];
    size_t failed = 0;
    int rc;

    memset(items, 0, n * sizeof *items);
    if ((rc = bx_ledger_resolve(l, rev, commit, err)) != 0)
        return rc;
    for (size_t i = 0; i < n; i++) {
        if ((rc = bx_ledger_verify_cert(p, o, commit, bufs[i], lens[i], &items[i].res, err)) != 0)
            return rc;
        memcpy(items[i].certificate_id, items[i].res.certificate_id,
               sizeof items[i].certificate_id);
        failed += !items[i].res.pass;
    }
    if (failed)
        return bx_error_set(err, BX_EDENIED, commit,
                            "%zu of %zu certificate(s) did not pass: nothing stored", failed, n);
    for (unsigned attempt = 0; attempt < BX__LEDGER_MAX_ATTEMPTS; attempt++) {
        rc = add_round(l, p, o, commit, n, bufs, lens, items, err);
        if (rc != BX__LEDGER_RETRY)
            return rc;
        bxl_backoff(attempt);
    }
    return bxl_gave_up(err);
}
