/* SPDX-License-Identifier: Apache-2.0 */
/* The certificates in --certs: read, verified (only verified ones are matched), and the
 * collection delay judged. */
#include "audit_internal.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static int has_rule(const json_t *findings, const char *rule, const char **status)
{
    size_t i;
    json_t *f;

    json_array_foreach(findings, i, f)
    {
        const char *r = json_string_value(json_object_get(f, "rule"));
        if (r && strcmp(r, rule) == 0) {
            *status = json_string_value(json_object_get(f, "status"));
            return 1;
        }
    }
    return 0;
}

static const char *fmt_secs(int64_t s, char out[32])
{
    snprintf(out, 32, "%llds", (long long)s);
    return out;
}

/* certificate.collection_delay (policy.md): issuedAt - session.startedAt must not exceed
 * certificate.maxCollectionDelay. Added here unless the policy's evaluation gave it. */
static void collection_delay(const bx_audit *a, bxu_cert *c)
{
    const json_t *pol = json_object_get(json_object_get(bx_policy_effective(a->o.policy), "certificate"),
                                        "maxCollectionDelay");
    const char *status = NULL;
    char got[32];

    if (has_rule(c->findings, "certificate.collection_delay", &status)) {
        /* the policy judged it; late means collected too long after, not issued before */
        c->late =
            status && strcmp(status, "fail") == 0 && (!c->ok_times || c->issued_at > c->started_at);
        return;
    }
    if (a->max_delay < 0)
        return;
    if (!c->ok_times) {
        bx_finding_add(c->findings, "certificate.collection_delay", "unknown", json_deep_copy(pol),
                       json_null(), "session.startedAt or issuedAt could not be read");
        return;
    }
    int64_t d = c->issued_at - c->started_at;
    fmt_secs(d, got);
    if (d > a->max_delay) {
        c->late = 1;
        bx_finding_add(c->findings, "certificate.collection_delay", "fail", json_deep_copy(pol),
                       json_string(got),
                       "certificate issued %s after the session started; the policy allows %s", got,
                       json_string_value(pol));
    } else {
        bx_finding_add(c->findings, "certificate.collection_delay", "pass", json_deep_copy(pol),
                       json_string(got), "certificate issued %s after the session started", got);
    }
}

/* Fields of a verified statement that matching uses (borrowed from the statement). */
static void read_statement(bxu_cert *c)
{
    const json_t *pred = json_object_get(c->res.statement, "predicate");
    const json_t *s = json_object_get(pred, "session");
    const char *issued = json_string_value(json_object_get(pred, "issuedAt"));
    bx_error e;

    c->container_id = json_string_value(json_object_get(s, "containerId"));
    c->name = json_string_value(json_object_get(s, "name"));
    c->labels = json_object_get(s, "labels");
    c->engine_id = json_string_value(json_object_get(json_object_get(pred, "engine"), "id"));
    /* the start to the nanosecond (v2) or the second (v1), and session.pid */
    c->ok_times = issued && bx_start_of(c->res.statement, &c->start, &e) == 0 &&
                  bx_time_parse(issued, 0, &c->issued_at, &e) == 0;
    c->started_at = c->start.started_at;
}

void bxu_cert_judge(const bx_audit *a, bxu_cert *c)
{
    unsigned long lost = bx_findings_lost();

    json_decref(c->findings);
    c->findings = json_incref(c->res.findings);
    c->late = 0;
    if (c->res.statement) {
        read_statement(c);
        collection_delay(a, c);
    }
    /* a collection-delay finding that could not be recorded (out of memory) might have
     * failed: not a pass */
    c->pass = c->res.statement && bx_findings_pass(c->findings) && bx_findings_lost() == lost;
}

int bxu_verify_cert(const bx_audit *a, const bx_policy *p, const char *buf, size_t len,
                    bx_verify_result *res, bx_error *err)
{
    bx_verify_opts vo = {.at = a->o.now};

    memset(res, 0, sizeof *res);
    return bx_verify_envelope(p ? p : a->o.policy, &vo, buf, len, res, err);
}

int bxu_append_cert(bx_audit *a, const char *file, bx_verify_result *res, bx_error *err)
{
    bxu_cert *c;

    if (!(c = bxu_grow(a->certs, &a->ncerts, sizeof *a->certs))) {
        bx_verify_result_free(res);
        return bx_error_set(err, BX_ENOMEM, NULL, "out of memory");
    }
    a->certs = c;
    c = &a->certs[a->ncerts - 1];
    c->row = -1;
    if (!(c->file = strdup(file))) {
        a->ncerts--;
        bx_verify_result_free(res);
        return bx_error_set(err, BX_ENOMEM, NULL, "out of memory");
    }
    c->res = *res;
    memset(res, 0, sizeof *res);
    bxu_cert_judge(a, c);
    return 0;
}

/* A certificate handed back by the batch verifier, in name order: appended with its result
 * (taken over). An input that could not be read is judged as one (too large, or not a
 * certificate); only an I/O failure makes the audit incomplete. */
typedef struct {
    bx_audit *a;
    size_t done;
    int first_rc;
    bx_error *err;
} loading;

static int loaded(void *arg, bx_batch_item *it)
{
    loading *l = arg;
    bx_audit *a = l->a;
    bxu_cert *c;
    int rc = 0;

    if (a->o.progress)
        a->o.progress(a->o.progress_ud, "certificates", ++l->done, 0);
    if (it->rc != 0) { /* the environment: out of memory */
        a->certs_incomplete = 1;
        if (!l->first_rc) {
            *l->err = it->err;
            l->first_rc = it->rc;
        }
        return 0;
    }
    if (!(c = bxu_grow(a->certs, &a->ncerts, sizeof *a->certs)))
        return BX_ENOMEM;
    a->certs = c;
    c = &a->certs[a->ncerts - 1];
    c->row = -1;
    if ((it->line ? asprintf(&c->file, "%s:%zu", it->file, it->line)
                  : asprintf(&c->file, "%s", it->file)) < 0) {
        c->file = NULL;
        a->ncerts--;
        return BX_ENOMEM;
    }
    if (it->unreadable) {
        c->unreadable = it->err.code == BX_EIO;
        if (c->unreadable) {
            a->certs_incomplete = 1;
            if (!l->first_rc) {
                *l->err = it->err;
                l->first_rc = BX_EIO;
            }
        }
    }
    c->res = *it->res;
    memset(it->res, 0, sizeof *it->res);
    bxu_cert_judge(a, c);
    return rc;
}

int bx_audit_load_certs(bx_audit *a, const char *dir, bx_error *err)
{
    struct stat st;
    bx_verify_opts vo = {.at = a->o.now};
    bx_batch_opts bo = {.jobs = 1};
    loading l = {.a = a, .err = err};
    bx_batch *b = NULL;
    int rc, crc;

    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode))
        return bx_error_set(err, BX_ECONFIG, dir, "--certs is not a folder");
    free(a->certs_dir);
    if (!(a->certs_dir = strdup(dir)))
        return bx_error_set(err, BX_ENOMEM, NULL, "out of memory");
    if ((rc = bx_batch_open(a->o.policy, &vo, &bo, loaded, &l, &b, err)) != 0)
        return rc;
    rc = bx_batch_path(b, dir, NULL, NULL, NULL);
    crc = bx_batch_close(b);
    if (rc == 0)
        rc = crc;
    if (a->o.progress)
        a->o.progress(a->o.progress_ud, "certificates", l.done, l.done);
    if (rc != 0) { /* out of memory: the list would be shorter */
        a->certs_incomplete = 1;
        return bx_error_set(err, rc, dir, "out of memory: not every certificate was read");
    }
    return l.first_rc;
}
