/* SPDX-License-Identifier: Apache-2.0 */
/* The audit report document: what every output format renders. */
#include "audit_internal.h"

#include <stdlib.h>
#include <string.h>

static json_t *str_or_null(const char *s)
{
    return s && *s ? bxu_string(s) : json_null();
}

/* A start: to the nanosecond when it is known, else to the second. */
static json_t *time_or_null(int has, int64_t t, int has_ns, int32_t ns)
{
    char buf[31];
    if (!has)
        return json_null();
    return json_string(has_ns ? bx_time_format_ns(t, ns, buf) : bx_time_format(t, buf));
}

static json_t *engines_json(const bx_audit *a)
{
    json_t *arr = json_array();

    for (size_t i = 0; arr && i < a->nengines; i++) {
        const bxu_engine *e = &a->engines[i];
        json_array_append_new(
            arr,
            json_pack("{s:o, s:o, s:o, s:b, s:b, s:o, s:o, s:o}", "endpoint",
                      bxu_string(e->endpoint), "id", str_or_null(e->id), "name",
                      str_or_null(e->name), "reachable", e->reachable, "lost",
                      e->lost && e->reachable, "sameAs",
                      e->alias_of >= 0 ? bxu_string(a->engines[e->alias_of].endpoint) : json_null(),
                      "conflictWith",
                      e->conflict ? bxu_string(a->engines[e->conflict_of].endpoint) : json_null(),
                      "error", str_or_null(e->error)));
    }
    return arr;
}

static void audit_finding(json_t *f, const char *rule, const char *status, json_t *expected,
                          json_t *observed, const char *msg)
{
    bx_finding_add(f, rule, status, expected, observed, "%s", msg);
}

/* The row's findings: its certificate's (the primary one), then the audit's own. */
static json_t *row_findings(const bx_audit *a, const bxu_row *r)
{
    /* a new array of the same finding objects (they are not changed; the row's own are
     * appended to this array only) */
    json_t *f = json_array();

    if (f && r->primary >= 0 && json_array_extend(f, a->certs[r->primary].findings) != 0) {
        json_decref(f);
        return NULL;
    }
    const bxu_session *s = r->session >= 0 ? &a->sessions[r->session] : NULL;
    char msg[512], t[31];

    if (!f)
        return NULL;
    switch (r->verdict) {
    case BXU_V_UNATTESTED:
        if (r->ambiguous)
            snprintf(msg, sizeof msg,
                     "%zu certificate(s) name the start at %s only to the second (predicate v1), "
                     "and another start of the session in that second is known: none is for "
                     "this start",
                     r->ambiguous,
                     r->has_ns ? bx_time_format_ns(r->started_at, r->started_ns, t)
                               : bx_time_format(r->started_at, t));
        else if (r->has_started)
            snprintf(msg, sizeof msg,
                     "no verified certificate in --certs for this session's start at %s",
                     r->has_ns ? bx_time_format_ns(r->started_at, r->started_ns, t)
                               : bx_time_format(r->started_at, t));
        else
            snprintf(msg, sizeof msg, "no verified certificate in --certs for this session");
        audit_finding(f, "audit.attested", "fail", json_string("a verified certificate"),
                      json_null(), msg);
        break;
    case BXU_V_MISSING:
        audit_finding(f, "audit.expected", "fail", json_string("on an engine, or certified"),
                      json_null(),
                      "listed in --expect, never seen on any engine, and no certificate names it");
        break;
    case BXU_V_UNREACHABLE:
        if (s)
            snprintf(msg, sizeof msg,
                     "its engine was lost before the session could be inspected: %s",
                     a->engines[s->engine].error);
        else
            snprintf(msg, sizeof msg,
                     "listed in --expect and not seen, but an engine could not be reached");
        audit_finding(f, "audit.engine", "fail", json_string("reachable"),
                      json_string("unreachable"), msg);
        break;
    }
    if (r->flags & BXU_F_DUPLICATE) {
        json_t *ids = json_array();
        for (size_t i = 0; ids && i < r->ncerts; i++)
            json_array_append_new(ids, json_string(a->certs[r->certs[i]].res.certificate_id));
        snprintf(msg, sizeof msg, "%zu verified certificates for this one session start",
                 r->ncerts);
        audit_finding(f, "audit.duplicate", "warn", json_integer(1), ids, msg);
    }
    if (r->flags & BXU_F_LEFTOVER) {
        snprintf(msg, sizeof msg, "the session is still on its engine (%s) after the run",
                 r->state);
        audit_finding(f, "audit.leftover", "fail", json_string("removed"), bxu_string(r->state),
                      msg);
    }
    if (s && s->audit_findings)
        json_array_extend(f, s->audit_findings);
    return f;
}

static json_t *flags_json(int flags)
{
    json_t *arr = json_array();
    if (arr && (flags & BXU_F_LATE))
        json_array_append_new(arr, json_string("late"));
    if (arr && (flags & BXU_F_LEFTOVER))
        json_array_append_new(arr, json_string("leftover"));
    if (arr && (flags & BXU_F_DUPLICATE))
        json_array_append_new(arr, json_string("duplicate"));
    return arr;
}

/* What the row's certificate says of its runtime and evidence (it verified), else what its
 * engine said of the runtime; null when neither. */
static json_t *row_runtime(const bx_audit *a, const bxu_row *r, const bxu_cert *c)
{
    const json_t *pred = c ? json_object_get(c->res.statement, "predicate") : NULL;
    const char *n = json_string_value(
        json_object_get(json_object_get(json_object_get(pred, "containment"), "runtime"), "name"));
    if (!n && r->session >= 0)
        n = json_string_value(json_object_get(
            json_object_get(a->sessions[r->session].inspect, "HostConfig"), "Runtime"));
    return str_or_null(n);
}

static json_t *row_engine_name(const bx_audit *a, const bxu_row *r)
{
    for (size_t i = 0; r->engine[0] && i < a->nengines; i++)
        if (!strcmp(a->engines[i].id, r->engine) && a->engines[i].name[0])
            return bxu_string(a->engines[i].name);
    return json_null();
}

static json_t *row_json(const bx_audit *a, const bxu_row *r)
{
    const bxu_cert *c = r->primary >= 0 ? &a->certs[r->primary] : NULL;
    const json_t *pred = c ? json_object_get(c->res.statement, "predicate") : NULL;
    const char *level =
        json_string_value(json_object_get(json_object_get(pred, "evidence"), "level"));
    json_t *dups = json_array();

    for (size_t i = 0; dups && i < r->ncerts; i++)
        if ((long)r->certs[i] != r->primary)
            json_array_append_new(dups, json_string(a->certs[r->certs[i]].res.certificate_id));
    return json_pack("{s:o, s:o, s:O, s:o, s:o, s:o, s:o, s:o, s:o, s:b, s:s, s:o, s:o, s:o, s:o, "
                     "s:o}",
                     "runtime", row_runtime(a, r, c), "evidenceLevel", str_or_null(level),
                     "signers", c && c->res.signers ? c->res.signers : json_null(), "engineName",
                     row_engine_name(a, r), "engine",
                     str_or_null(r->engine), "containerId", str_or_null(r->id), "name",
                     str_or_null(r->name), "startedAt",
                     time_or_null(r->has_started, r->started_at, r->has_ns, r->started_ns),
                     "state", str_or_null(r->state), "expected", r->expected, "verdict",
                     bxu_verdict_name(r->verdict), "flags", flags_json(r->flags), "certificateId",
                     c ? json_string(c->res.certificate_id) : json_null(), "certificate",
                     c ? bxu_file(c->file) : json_null(), "duplicates", dups, "findings",
                     row_findings(a, r));
}

static json_t *failed_only(const json_t *findings)
{
    json_t *out = json_array();
    size_t i;
    json_t *f;

    json_array_foreach(findings, i, f)
    {
        if (out && bx_finding_failing(f))
            json_array_append(out, f);
    }
    return out;
}

static json_t *cert_json(const bxu_cert *c)
{
    json_t *session = json_null();

    /* what a certificate says is shown only once it verified */
    if (c->res.statement)
        session = json_pack("{s:o, s:o, s:o}", "containerId", str_or_null(c->container_id),
                            "name", str_or_null(c->name), "startedAt",
                            time_or_null(c->ok_times, c->start.started_at, c->start.has_ns,
                                         c->start.started_ns));
    return json_pack("{s:o, s:o, s:s, s:o, s:o}", "file", bxu_file(c->file), "certificateId",
                     c->res.certificate_id[0] ? json_string(c->res.certificate_id) : json_null(),
                     "status", c->res.statement ? "unmatched" : "rejected", "session", session,
                     "findings", failed_only(c->findings));
}

int bx_audit_report(bx_audit *a, json_t **report, int *complete, size_t *violations, bx_error *err)
{
    size_t count[5] = {0}, late = 0, leftover = 0, dup = 0, viol = 0, conflicts = 0;
    size_t matched = 0, unmatched = 0, rejected = 0;
    json_t *doc = NULL, *sessions = NULL, *certs = NULL, *policy = NULL;
    char at[21];
    int rc, done = 1;

    *report = NULL;
    if ((rc = bxu_match(a, err)) != 0)
        return rc;
    if (!(policy = bx_policy_identity(a->o.policy, err)))
        return err->code ? err->code : BX_ENOMEM;
    if (!(sessions = json_array()) || !(certs = json_array()))
        goto oom;
    for (size_t i = 0; i < a->nrows; i++) {
        const bxu_row *r = &a->rows[i];
        json_t *row = row_json(a, r);
        if (!row || json_array_append_new(sessions, row) != 0)
            goto oom;
        count[r->verdict]++;
        late += !!(r->flags & BXU_F_LATE);
        leftover += !!(r->flags & BXU_F_LEFTOVER);
        dup += !!(r->flags & BXU_F_DUPLICATE);
        viol += r->verdict != BXU_V_COMPLIANT || (r->flags & BXU_F_LEFTOVER);
    }
    for (size_t i = 0; i < a->ncerts; i++) {
        const bxu_cert *c = &a->certs[i];
        if (c->row >= 0) {
            matched++;
            continue;
        }
        unmatched += c->res.statement != NULL;
        rejected += c->res.statement == NULL;
        json_t *cj = cert_json(c);
        if (!cj || json_array_append_new(certs, cj) != 0)
            goto oom;
    }
    viol += json_array_size(a->orphans);
    for (size_t i = 0; i < a->nengines; i++) {
        done &= !a->engines[i].lost;
        conflicts += a->engines[i].conflict != 0; /* an engine ID shared by engines that differ */
    }
    viol += conflicts;
    done &= !a->certs_incomplete && !a->tasks_incomplete;
    doc = json_pack(
        "{s:i, s:o, s:s, s:b, s:o, s:o, s:o, s:O, s:o, s:{s:I, s:I, s:I, s:I, s:I, s:I, "
        "s:I, s:I, s:I, s:I, s:I, s:I, s:{s:I, s:I, s:I, s:I}}}",
        "version", 1, "policy", policy, "auditedAt", bx_time_format(a->o.now, at),
        "complete", done, "engines", engines_json(a), "sessions", sessions, "certificates", certs,
        "orphans", a->orphans, "tasksFolder", str_or_null(a->tasks_folder), "summary", "sessions",
        (json_int_t)a->nrows, "compliant", (json_int_t)count[BXU_V_COMPLIANT], "noncompliant",
        (json_int_t)count[BXU_V_NONCOMPLIANT], "unattested", (json_int_t)count[BXU_V_UNATTESTED],
        "missing", (json_int_t)count[BXU_V_MISSING], "unreachable",
        (json_int_t)count[BXU_V_UNREACHABLE], "late", (json_int_t)late, "leftover",
        (json_int_t)leftover, "duplicate", (json_int_t)dup, "orphans",
        (json_int_t)json_array_size(a->orphans), "conflicts", (json_int_t)conflicts,
        "violations", (json_int_t)viol, "certificates",
        "total", (json_int_t)a->ncerts, "matched", (json_int_t)matched, "unmatched",
        (json_int_t)unmatched, "rejected", (json_int_t)rejected);
    sessions = certs = policy = NULL; /* stolen by json_pack, even when it fails */
    if (!doc)
        return bx_error_set(err, BX_ENOMEM, NULL, "out of memory building the report");
    *report = doc;
    *complete = done;
    *violations = viol;
    return 0;
oom:
    json_decref(sessions);
    json_decref(certs);
    json_decref(policy);
    return bx_error_set(err, BX_ENOMEM, NULL, "out of memory building the report");
}

/* ---- reading a report back --------------------------------------------------------- */

static int need(const json_t *o, const char *ptr, const char *member, json_type t, int nullable,
                bx_error *err)
{
    const json_t *v = json_object_get(o, member);

    if ((v && json_typeof(v) == t) || (nullable && json_is_null(v)) ||
        (v && t == JSON_TRUE && json_is_boolean(v)))
        return 0;
    return bx_error_set(err, BX_EINVAL, ptr, "member '%s' is missing or of the wrong type", member);
}

static int check_findings(const json_t *f, const char *ptr, bx_error *err)
{
    size_t i;
    json_t *x;

    if (!json_is_array(f))
        return bx_error_set(err, BX_EINVAL, ptr, "findings is not an array");
    json_array_foreach(f, i, x)
    {
        if (!json_is_object(x) || need(x, ptr, "rule", JSON_STRING, 0, err) ||
            need(x, ptr, "status", JSON_STRING, 0, err) ||
            need(x, ptr, "message", JSON_STRING, 0, err))
            return bx_error_set(err, BX_EINVAL, ptr, "finding %zu lacks rule, status or message",
                                i);
    }
    return 0;
}

int bx_audit_report_check(const json_t *doc, bx_error *err)
{
    static const char *const verdicts[] = {"compliant", "noncompliant", "unattested", "missing",
                                           "unreachable"};
    static const char *const counts[] = {"sessions",  "compliant",   "noncompliant", "unattested",
                                         "missing",   "unreachable", "late",         "leftover",
                                         "duplicate", "orphans",     "violations"};
    const json_t *v, *x, *sum;
    size_t i;

    if (!json_is_object(doc))
        return bx_error_set(err, BX_EINVAL, "", "not an object");
    v = json_object_get(doc, "version");
    if (!json_is_integer(v) || json_integer_value(v) != 1)
        return bx_error_set(err, BX_EINVAL, "/version", "not 1");
    if (!json_is_string(json_object_get(json_object_get(doc, "policy"), "sha256")))
        return bx_error_set(err, BX_EINVAL, "/policy/sha256", "missing");
    if (need(doc, "", "auditedAt", JSON_STRING, 0, err) ||
        need(doc, "", "complete", JSON_TRUE, 0, err) ||
        need(doc, "", "engines", JSON_ARRAY, 0, err) ||
        need(doc, "", "sessions", JSON_ARRAY, 0, err) ||
        need(doc, "", "certificates", JSON_ARRAY, 0, err) ||
        need(doc, "", "orphans", JSON_ARRAY, 0, err) ||
        need(doc, "", "tasksFolder", JSON_STRING, 1, err) ||
        need(doc, "", "summary", JSON_OBJECT, 0, err))
        return BX_EINVAL;
    json_array_foreach(json_object_get(doc, "engines"), i, x)
    {
        if (!json_is_object(x) || need(x, "/engines", "endpoint", JSON_STRING, 0, err) ||
            need(x, "/engines", "id", JSON_STRING, 1, err) ||
            need(x, "/engines", "reachable", JSON_TRUE, 0, err) ||
            need(x, "/engines", "lost", JSON_TRUE, 0, err) ||
            need(x, "/engines", "sameAs", JSON_STRING, 1, err) ||
            need(x, "/engines", "error", JSON_STRING, 1, err))
            return bx_error_set(err, BX_EINVAL, "/engines", "engine %zu is malformed", i);
    }
    json_array_foreach(json_object_get(doc, "sessions"), i, x)
    {
        const char *verdict = json_string_value(json_object_get(x, "verdict"));
        const json_t *fl = json_object_get(x, "flags"), *f;
        size_t k, ok = 0;
        for (k = 0; verdict && k < 5; k++)
            ok |= strcmp(verdict, verdicts[k]) == 0;
        if (!json_is_object(x) || !ok || !json_is_array(fl) ||
            need(x, "/sessions", "engine", JSON_STRING, 1, err) ||
            need(x, "/sessions", "containerId", JSON_STRING, 1, err) ||
            need(x, "/sessions", "name", JSON_STRING, 1, err) ||
            need(x, "/sessions", "startedAt", JSON_STRING, 1, err) ||
            need(x, "/sessions", "state", JSON_STRING, 1, err) ||
            need(x, "/sessions", "expected", JSON_TRUE, 0, err) ||
            need(x, "/sessions", "certificateId", JSON_STRING, 1, err) ||
            need(x, "/sessions", "certificate", JSON_STRING, 1, err) ||
            need(x, "/sessions", "duplicates", JSON_ARRAY, 0, err) ||
            check_findings(json_object_get(x, "findings"), "/sessions", err))
            return bx_error_set(err, BX_EINVAL, "/sessions", "session row %zu is malformed", i);
        json_array_foreach(fl, k, f) if (!json_is_string(f)) return bx_error_set(
            err, BX_EINVAL, "/sessions", "row %zu: a flag is not a string", i);
    }
    json_array_foreach(json_object_get(doc, "certificates"), i, x)
    {
        if (!json_is_object(x) || need(x, "/certificates", "file", JSON_STRING, 0, err) ||
            need(x, "/certificates", "certificateId", JSON_STRING, 1, err) ||
            need(x, "/certificates", "status", JSON_STRING, 0, err) ||
            check_findings(json_object_get(x, "findings"), "/certificates", err))
            return bx_error_set(err, BX_EINVAL, "/certificates", "certificate %zu is malformed", i);
    }
    json_array_foreach(json_object_get(doc, "orphans"), i, x)
    {
        if (!json_is_object(x) || need(x, "/orphans", "id", JSON_STRING, 0, err) ||
            need(x, "/orphans", "folder", JSON_STRING, 0, err))
            return bx_error_set(err, BX_EINVAL, "/orphans", "orphan %zu is malformed", i);
    }
    sum = json_object_get(doc, "summary");
    for (i = 0; i < sizeof counts / sizeof *counts; i++)
        if (!json_is_integer(json_object_get(sum, counts[i])))
            return bx_error_set(err, BX_EINVAL, "/summary", "count '%s' is missing", counts[i]);
    x = json_object_get(sum, "certificates");
    if (!json_is_integer(json_object_get(x, "total")) ||
        !json_is_integer(json_object_get(x, "unmatched")) ||
        !json_is_integer(json_object_get(x, "rejected")) ||
        !json_is_integer(json_object_get(x, "matched")))
        return bx_error_set(err, BX_EINVAL, "/summary/certificates", "counts are missing");
    return 0;
}
