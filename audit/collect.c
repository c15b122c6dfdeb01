/* SPDX-License-Identifier: Apache-2.0 */
/* --collect: certificates for the running sessions that have none, written into --certs
 * and then verified like every other certificate there. */
#include "audit_internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

/* dir/<id>.intoto.json, or dir/<id>-<start>.intoto.json when that is taken; never an
 * existing name. Caller frees *path. */
static int target(const char *dir, const bxu_session *s, char **path, bx_error *err)
{
    struct stat st;
    char t[21], compact[21];
    size_t o = 0;

    *path = NULL;
    if (asprintf(path, "%s/%s.intoto.json", dir, s->id) < 0)
        goto oom;
    if (lstat(*path, &st) != 0 && errno == ENOENT)
        return 0;
    free(*path);
    bx_time_format(s->started_at, t);
    for (const char *p = t; *p; p++) /* 2026-01-02T03:04:05Z -> 20260102T030405Z */
        if (*p != '-' && *p != ':')
            compact[o++] = *p;
    compact[o] = '\0';
    if (asprintf(path, "%s/%s-%s.intoto.json", dir, s->id, compact) < 0)
        goto oom;
    if (lstat(*path, &st) != 0 && errno == ENOENT)
        return 0;
    bx_error_set(err, BX_EIO, *path, "a certificate of that name exists already");
    free(*path);
    *path = NULL;
    return BX_EIO;
oom:
    *path = NULL;
    return bx_error_set(err, BX_ENOMEM, NULL, "out of memory");
}

static void note(bxu_session *s, const bx_error *e)
{
    char msg[400];

    if (!s->audit_findings && !(s->audit_findings = json_array()))
        return;
    bx_finding_add(s->audit_findings, "audit.collect", "fail", json_string("a certificate"),
                   json_null(), "--collect: %s", bx_error_str(e, msg, sizeof msg));
}

/* One session's collection, made by a worker. */
typedef struct {
    long session;
    int rc;                /* 0: res holds the verified certificate read back from path */
    bx_error err;
    char *path;            /* owned: the certificate written */
    bx_verify_result res;  /* owned until appended */
    int verified;
} result;

typedef struct {
    const char *dir;
    EVP_PKEY *const *keys;
    size_t nkeys;
    int64_t ttl;
    bx_collect_shared *shared;
    result *results;
    size_t todo, done;
    /* the policy each worker verifies with: a copy of the effective policy of its own, as
     * findings take references to its values and reference counts are not for values two
     * threads use at once */
    bx_policy *policies[BX_AUDIT_JOBS_MAX]; /* a clone per worker */
} job;

/* Write doc as dir/<id>.intoto.json, or dir/<id>-<start>.intoto.json when that is taken:
 * never over an existing file, also when another writer races for the name. The folder is
 * synced once, after every collection. */
static int write_new(const char *dir, const bxu_session *s, const char *doc, size_t len,
                     char **path, bx_error *err)
{
    int exists = 0, rc;

    for (int attempt = 0; attempt < 2; attempt++) {
        if ((rc = target(dir, s, path, err)) != 0)
            return rc;
        rc = bx_write_file_new(*path, doc, len, 0644, 0, &exists, err);
        if (rc == 0 || !exists)
            return rc;
        free(*path); /* taken since target() looked: look again */
        *path = NULL;
    }
    return rc;
}

/* Collect, sign, write and read back one session's certificate, and verify it. */
static void collect_one(bx_audit *a, unsigned worker, size_t i, void *ud)
{
    job *j = ud;
    result *res = &j->results[i];
    bxu_session *s = &a->sessions[res->session];
    bx_error *err = &res->err;
    json_t *pred = NULL, *st = NULL;
    char *doc = NULL, *back = NULL;
    size_t len = 0, blen = 0;
    int rc;
    bx_collect_opts co = {.container = s->id,
                          .now = (int64_t)time(NULL),
                          .ttl = j->ttl,
                          .shared = j->shared,
                          .signing_keys = a->o.signing_keys,
                          .nsigning_keys = a->o.nsigning_keys,
                          .inspect = s->inspect,
                          .inspect_raw = s->inspect_raw,
                          .inspect_raw_len = s->inspect_raw_len};

    bxu_progress(a, "collect", __atomic_fetch_add(&j->done, 1, __ATOMIC_RELAXED), j->todo);
    if (bxu_engine_is_lost(a, s->engine)) {
        res->rc = -1; /* not tried */
        return;
    }
    rc = bx_collect(bxu_engine_for(a, s->engine, worker), &co, &pred, err);
    if (rc == BX_EENV) {
        bxu_engine_lost(a, s->engine, err);
        goto out;
    }
    if (rc != 0 || (rc = bx_statement_build(pred, NULL, &st, err)) != 0 ||
        (rc = bx_collector_untraced(err)) != 0 ||
        (rc = bx_certificate_encode(st, j->keys, j->nkeys, &doc, &len, err)) != 0)
        goto out;
    /* the envelope is one line; a final newline as collect writes it */
    doc[len] = '\n';
    if ((rc = write_new(j->dir, s, doc, len + 1, &res->path, err)) != 0)
        goto out;
    /* what counts is what is on disk: read it back and verify it like the others */
    if ((rc = bx_read_file(res->path, BX_ENVELOPE_MAX_DEFAULT + 1, 0, &back, &blen, err)) != 0)
        goto out;
    while (blen > 0 && back[blen - 1] == '\n')
        blen--;
    rc = bxu_verify_cert(a, j->policies[worker], back, blen, &res->res, err);
    res->verified = rc == 0;
out:
    if (rc != 0)
        note(s, err);
    res->rc = rc;
    json_decref(pred);
    json_decref(st);
    free(doc);
    free(back);
}

int bx_audit_collect(bx_audit *a, const char *dir, EVP_PKEY *const *keys, size_t nkeys, int64_t ttl,
                     bx_error *err)
{
    job j = {.dir = dir, .keys = keys, .nkeys = nkeys, .ttl = ttl};
    int rc, written = 0;

    if ((rc = bxu_match(a, err)) != 0)
        return rc;
    if (a->nrows && !(j.results = calloc(a->nrows, sizeof *j.results)))
        return bx_error_set(err, BX_ENOMEM, NULL, "out of memory");
    /* rows change as certificates are added: decide first, then collect */
    for (size_t i = 0; i < a->nrows; i++) {
        const bxu_row *r = &a->rows[i];
        const bxu_session *s = r->session >= 0 ? &a->sessions[r->session] : NULL;
        if (r->verdict == BXU_V_UNATTESTED && s && s->where == BXU_PRESENT &&
            strcmp(s->state, "running") == 0)
            j.results[j.todo++].session = r->session;
    }
    rc = 0;
    if (j.todo && (rc = bx_collect_shared_new(&j.shared, err)) != 0)
        goto out;
    for (unsigned w = 0; w < a->jobs && w < BX_AUDIT_JOBS_MAX; w++) {
        if ((rc = bx_policy_clone(a->o.policy, &j.policies[w], err)) != 0)
            goto out;
    }
    bxu_parallel(a, j.todo, collect_one, &j);
    bxu_progress(a, "collect", j.todo, j.todo);
    /* in session order: the certificates, and the first error that is the audit's */
    for (size_t i = 0; i < j.todo; i++) {
        result *res = &j.results[i];
        written |= res->path != NULL;
        if (res->verified && rc == 0) {
            if ((rc = bxu_append_cert(a, res->path, &res->res, err)) != 0)
                continue;
        } else if ((res->rc == BX_EIO || res->rc == BX_ENOMEM) && rc == 0) {
            /* a refusal (the session stopped or changed, data that cannot be recorded) is
             * the row's; writing and reading the file and out of memory are the audit's */
            *err = res->err;
            rc = res->rc;
        }
    }
    if (written) {
        bx_error e;
        if (bx_sync_folder(dir, &e) != 0 && rc == 0) {
            *err = e;
            rc = BX_EIO;
        }
    }
out:
    for (size_t i = 0; i < j.todo; i++) {
        free(j.results[i].path);
        bx_verify_result_free(&j.results[i].res);
    }
    free(j.results);
    bx_collect_shared_free(j.shared);
    for (unsigned w = 0; w < BX_AUDIT_JOBS_MAX; w++)
        bx_policy_free(j.policies[w]);
    return rc;
}
