/* SPDX-License-Identifier: Apache-2.0 */
/* ledger show and ledger verify: the certificates of one commit, of a range of commits. */
#include "ledger_internal.h"

#include <string.h>

typedef struct {
    const char *commit;
    bx_ledger_result_fn fn;
    void *ctx;
    size_t certs, passed;
    bx_batch *batch;
    bx_error *err;
} commit_run;

/* The note's lines go to verify/'s batch verifier, each bound to the commit (verify's own
 * step 10, --expect-source: a certificate.binding finding, looked at only once the
 * signatures have verified); the results come back in order. */
static int verify_line(const bx_ledger_note_line *line, void *ctx)
{
    commit_run *r = ctx;
    char *buf = bx_malloc(line->len + 1);
    if (!buf)
        return bx_error_set(r->err, BX_ENOMEM, r->commit, "out of memory");
    memcpy(buf, line->bytes, line->len);
    buf[line->len] = '\0';
    int rc = bx_batch_add(r->batch, r->commit, line->lineno, buf, line->len, r->commit, NULL);
    if (rc == BX_ENOMEM)
        bx_error_set(r->err, BX_ENOMEM, r->commit, "out of memory");
    return rc;
}

static int verified(void *arg, bx_batch_item *it)
{
    commit_run *r = arg;
    if (it->rc != 0) {
        *r->err = it->err;
        return it->rc;
    }
    r->certs++;
    r->passed += it->res->pass != 0;
    r->fn(r->commit, it->line, it->res, r->ctx);
    return 0;
}

static int verify_commit(bx_ledger *l, const bx_policy *p, const bx_verify_opts *o,
                         const char *commit, bx_ledger_result_fn fn, void *ctx,
                         bx_ledger_summary *sum, bx_error *err)
{
    commit_run r = {.commit = commit, .fn = fn, .ctx = ctx, .err = err};
    bx_verify_result res = {0};
    bx_batch_opts bo = {.jobs = 1};
    char *note = NULL;
    size_t len = 0;
    int rc = bx_ledger_note_read(l, commit, &note, &len, err);
    if (rc == BX_EINVAL) {
        /* A note too large to read: one failed result for it, then the commit is missing. */
        if ((res.findings = json_array()) == NULL) {
            rc = bx_error_set(err, BX_ENOMEM, NULL, "out of memory");
            goto out;
        }
        bx_finding_add(res.findings, "certificate.too_large", "fail",
                       json_integer(BX_LEDGER_NOTE_MAX), json_null(), "%s", err->msg);
        fn(commit, 0, &res, ctx);
        bx_verify_result_free(&res);
        rc = 0;
    } else if (rc) {
        goto out;
    } else if (note) {
        size_t max = o->max_size ? o->max_size : BX_ENVELOPE_MAX_DEFAULT;
        int crc;
        if ((rc = bx_batch_open(p, o, &bo, verified, &r, &r.batch, err)) != 0)
            goto out;
        rc = bx_ledger_note_parse(note, len, max, verify_line, &r, err);
        crc = bx_batch_close(r.batch);
        if (rc == 0 && crc != 0)
            rc = bx_error_set(err, crc, commit, "out of memory verifying its certificates");
        if (rc != 0)
            goto out;
    }
    sum->commits++;
    sum->certificates += r.certs;
    sum->passed += r.passed;
    if (r.passed) {
        sum->attested++;
    } else {
        if ((rc = bx_ledger_missing_result(commit, r.certs, &res, err)) != 0)
            goto out;
        fn(commit, 0, &res, ctx);
    }
out:
    bx_verify_result_free(&res);
    free(note);
    return rc;
}

int bx_ledger_show(bx_ledger *l, const bx_policy *p, const bx_verify_opts *o, const char *rev,
                   bx_ledger_result_fn fn, void *ctx, bx_ledger_summary *sum, bx_error *err)
{
    char commit[41];
    int rc;
    memset(sum, 0, sizeof *sum);
    if ((rc = bx_ledger_resolve(l, rev, commit, err)) != 0)
        return rc;
    return verify_commit(l, p, o, commit, fn, ctx, sum, err);
}

static int peel_commit(git_object *obj, const char *range, git_oid *out, bx_error *err)
{
    git_object *c = NULL;
    if (git_object_peel(&c, obj, GIT_OBJECT_COMMIT) < 0)
        return bx_error_set(err, BX_ECONFIG, range,
                            "the range names something that is not a commit");
    git_oid_cpy(out, git_object_id(c));
    git_object_free(c);
    return 0;
}

int bx_ledger_verify_range(bx_ledger *l, const bx_policy *p, const bx_verify_opts *o,
                           const char *range, int first_parent, bx_ledger_result_fn fn, void *ctx,
                           bx_ledger_summary *sum, bx_error *err)
{
    git_revspec spec = {0};
    git_revwalk *walk = NULL;
    git_oid id;
    int rc = 0, g;

    memset(sum, 0, sizeof *sum);
    if (git_revparse(&spec, l->repo, range) < 0) {
        rc = bxl_git_error(err, BX_ECONFIG, range, "not a revision range");
        goto out;
    }
    if (spec.flags & GIT_REVSPEC_MERGE_BASE) {
        rc = bx_error_set(err, BX_ECONFIG, range,
                          "A...B (symmetric difference) is not supported: use A..B");
        goto out;
    }
    if (git_revwalk_new(&walk, l->repo) < 0 ||
        git_revwalk_sorting(walk, GIT_SORT_TOPOLOGICAL | GIT_SORT_TIME) < 0) {
        rc = bxl_git_error(err, BX_EIO, range, "cannot walk the history");
        goto out;
    }
    if (first_parent)
        git_revwalk_simplify_first_parent(walk);
    if (spec.flags & GIT_REVSPEC_RANGE) {
        git_oid from, to;
        if ((rc = peel_commit(spec.from, range, &from, err)) != 0 ||
            (rc = peel_commit(spec.to, range, &to, err)) != 0)
            goto out;
        if (git_revwalk_push(walk, &to) < 0 || git_revwalk_hide(walk, &from) < 0) {
            rc = bxl_git_error(err, BX_EIO, range, "cannot walk the history");
            goto out;
        }
    } else {
        git_oid tip;
        if ((rc = peel_commit(spec.from, range, &tip, err)) != 0)
            goto out;
        if (git_revwalk_push(walk, &tip) < 0) {
            rc = bxl_git_error(err, BX_EIO, range, "cannot walk the history");
            goto out;
        }
    }
    while ((g = git_revwalk_next(&id, walk)) == 0) {
        char commit[41];
        git_oid_tostr(commit, sizeof commit, &id);
        if ((rc = verify_commit(l, p, o, commit, fn, ctx, sum, err)) != 0)
            goto out;
    }
    if (g != GIT_ITEROVER)
        rc = bxl_git_error(err, BX_EIO, range, "cannot walk the history");
out:
    git_revwalk_free(walk);
    git_object_free(spec.from);
    git_object_free(spec.to);
    return rc;
}
