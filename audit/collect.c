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
static int target(const char *dir, const bxa_session *s, char **path, bx_error *err)
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
    return bx_error_set(err, BX_EIO, NULL, "out of memory");
}

static void note(bxa_session *s, const bx_error *e)
{
    char msg[400];

    if (!s->audit_findings && !(s->audit_findings = json_array()))
        return;
    bx_finding_add(s->audit_findings, "audit.collect", "fail", json_string("a certificate"),
                   json_null(), "--collect: %s", bx_error_str(e, msg, sizeof msg));
}

/* Collect, sign, write and read back one session's certificate. */
static int collect_one(bx_audit *a, bxa_session *s, const char *dir, EVP_PKEY *const *keys,
                       size_t nkeys, int64_t ttl, bx_error *err)
{
    bxa_engine *e = &a->engines[s->engine];
    json_t *pred = NULL, *st = NULL;
    char *doc = NULL, *path = NULL, *back = NULL;
    size_t len = 0, blen = 0;
    int rc;
    bx_collect_opts co = {.container = s->id, .now = (int64_t)time(NULL), .ttl = ttl};

    rc = bx_collect(e->eng, &co, &pred, err);
    if (rc == BX_EENV) {
        bxa_engine_lost(a, s->engine, err);
        goto out;
    }
    if (rc != 0 || (rc = bx_statement_build(pred, NULL, &st, err)) != 0 ||
        (rc = bx_certificate_encode(st, keys, nkeys, &doc, &len, err)) != 0 ||
        (rc = target(dir, s, &path, err)) != 0)
        goto out;
    /* the envelope is one line; a final newline as collect writes it */
    doc[len] = '\n';
    if ((rc = bx_write_file_atomic(path, doc, len + 1, 0644, err)) != 0)
        goto out;
    /* what counts is what is on disk: read it back and verify it like the others */
    if ((rc = bx_read_file(path, BX_ENVELOPE_MAX_DEFAULT + 1, 0, &back, &blen, err)) != 0)
        goto out;
    while (blen > 0 && back[blen - 1] == '\n')
        blen--;
    rc = bxa_add_cert(a, path, 0, back, blen, NULL, err);
out:
    if (rc != 0)
        note(s, err);
    json_decref(pred);
    json_decref(st);
    free(doc);
    free(path);
    free(back);
    return rc;
}

int bx_audit_collect(bx_audit *a, const char *dir, EVP_PKEY *const *keys, size_t nkeys, int64_t ttl,
                     bx_error *err)
{
    size_t todo = 0, done = 0;
    long *which = NULL;
    int rc, first = 0;
    bx_error e;

    if ((rc = bxa_match(a, err)) != 0)
        return rc;
    if (a->nrows && !(which = calloc(a->nrows, sizeof *which)))
        return bx_error_set(err, BX_EIO, NULL, "out of memory");
    /* rows change as certificates are added: decide first, then collect */
    for (size_t i = 0; i < a->nrows; i++) {
        const bxa_row *r = &a->rows[i];
        const bxa_session *s = r->session >= 0 ? &a->sessions[r->session] : NULL;
        if (r->verdict == BXA_V_UNATTESTED && s && s->where == BXA_PRESENT &&
            strcmp(s->state, "running") == 0)
            which[todo++] = r->session;
    }
    rc = 0;
    for (size_t i = 0; i < todo; i++) {
        bxa_session *s = &a->sessions[which[i]];
        int r;
        if (a->o.progress)
            a->o.progress(a->o.progress_ud, "collect", done++, todo);
        if (a->engines[s->engine].lost)
            continue;
        r = collect_one(a, s, dir, keys, nkeys, ttl, &e);
        /* a refusal (the session stopped or changed, data that cannot be recorded) is
         * the row's; writing and reading the file and out of memory are the audit's */
        if ((r == BX_EIO) && !first) {
            first = 1;
            *err = e;
            rc = r;
        }
    }
    if (a->o.progress)
        a->o.progress(a->o.progress_ud, "collect", done, todo);
    free(which);
    return rc;
}
