/* SPDX-License-Identifier: Apache-2.0 */
/* Certificates to session starts, verdicts, flags and the report document, without an
 * engine: the audit's state is filled in directly (sessions as the engine phase leaves
 * them, certificates as verification leaves them: statement or none, findings). The
 * real engine and real certificates are tests/engine/audit.sh. */
#include "tap.h"
#include "audit_internal.h"

#include <stdlib.h>
#include <string.h>

#define T0 1767225600 /* 2026-01-01T00:00:00Z */
#define ENG "ABCD:EFGH:IJKL"

static const char policy_yaml[] = "version: 1\n"
                                  "certificate: {maxCollectionDelay: 60s}\n"
                                  "containment: {network: [none]}\n";

static char ids[16][65];

static const char *id(int n)
{
    if (!ids[n][0])
        for (int i = 0; i < 64; i++)
            ids[n][i] = "0123456789abcdef"[(n * 7 + i) % 16 ^ (i % 3)];
    return ids[n];
}

static bxu_session *session(bx_audit *a, int n, const char *name, const char *state,
                            bxu_where where, int64_t started)
{
    bxu_session *s;

    a->sessions = bxu_grow(a->sessions, &a->nsessions, sizeof *a->sessions);
    s = &a->sessions[a->nsessions - 1];
    memcpy(s->id, id(n), 65);
    s->name = strdup(name);
    snprintf(s->state, sizeof s->state, "%s", state);
    s->where = where;
    s->has_started = started > 0;
    s->started_at = started;
    s->selected = 1;
    return s;
}

/* A certificate as verification leaves it. fail_rule: a failed finding, or NULL. */
static bxu_cert *cert(bx_audit *a, const char *file, int n, const char *name, int64_t started,
                      int64_t issued, const char *fail_rule, const char *label)
{
    char ts[21], ti[21];
    bxu_cert *c;

    a->certs = bxu_grow(a->certs, &a->ncerts, sizeof *a->certs);
    c = &a->certs[a->ncerts - 1];
    c->file = strdup(file);
    c->row = -1;
    bx_sha256_hex(file, strlen(file), c->res.certificate_id);
    c->res.findings = json_array();
    bx_finding_add(c->res.findings, "signature.threshold", "pass", json_integer(1), json_integer(1),
                   "1 distinct trusted key(s) signed");
    if (fail_rule)
        bx_finding_add(c->res.findings, fail_rule, "fail", NULL, NULL, "weak");
    c->res.statement = json_pack(
        "{s:{s:s, s:{s:s}, s:{s:s, s:s, s:s, s:{s:s}}}}", "predicate", "issuedAt",
        bx_time_format(issued, ti), "engine", "id", ENG, "session", "containerId", id(n), "name",
        name, "startedAt", bx_time_format(started, ts), "labels", "run", label ? label : "r1");
    bxu_cert_judge(a, c);
    return c;
}

static void rejected(bx_audit *a, const char *file)
{
    bxu_cert *c;

    a->certs = bxu_grow(a->certs, &a->ncerts, sizeof *a->certs);
    c = &a->certs[a->ncerts - 1];
    c->file = strdup(file);
    c->row = -1;
    c->res.findings = json_array();
    bx_finding_add(c->res.findings, "signature.threshold", "fail", json_integer(1), json_integer(0),
                   "0 distinct trusted key(s) signed");
    bxu_cert_judge(a, c);
}

static const json_t *row_named(const json_t *doc, const char *name, int nth)
{
    size_t i;
    json_t *r;

    json_array_foreach(json_object_get(doc, "sessions"), i, r)
    {
        const char *n = json_string_value(json_object_get(r, "name"));
        if (n && strcmp(n, name) == 0 && nth-- == 0)
            return r;
    }
    return NULL;
}

static const char *flags(const json_t *row, char *buf, size_t len)
{
    size_t i, o = 0;
    json_t *f;

    buf[0] = '\0';
    json_array_foreach(json_object_get(row, "flags"), i, f) o +=
        (size_t)snprintf(buf + o, len - o, "%s%s", i ? "," : "", json_string_value(f));
    return buf;
}

static int has_finding(const json_t *row, const char *rule, const char *status)
{
    size_t i;
    json_t *f;

    json_array_foreach(json_object_get(row, "findings"), i, f)
    {
        if (strcmp(json_string_value(json_object_get(f, "rule")), rule) == 0 &&
            strcmp(json_string_value(json_object_get(f, "status")), status) == 0)
            return 1;
    }
    return 0;
}

#define ROW(name, nth, verdict_, flags_)                                                           \
    do {                                                                                           \
        const json_t *r_ = row_named(doc, name, nth);                                              \
        char fb_[64];                                                                              \
        ok(r_ != NULL, "row %s #%d exists", name, nth);                                            \
        if (r_) {                                                                                  \
            is_str(json_string_value(json_object_get(r_, "verdict")), verdict_, "%s: %s", name,    \
                   verdict_);                                                                      \
            is_str(flags(r_, fb_, sizeof fb_), flags_, "%s: flags [%s]", name, flags_);            \
        }                                                                                          \
    } while (0)

static long long count(const json_t *doc, const char *k)
{
    return json_integer_value(json_object_get(json_object_get(doc, "summary"), k));
}

static bx_audit *new_audit(bx_policy *p, const char *const *labels, size_t nlabels,
                           const bx_expect *expect)
{
    bx_audit_opts o = {
        .policy = p, .labels = labels, .nlabels = nlabels, .expect = expect, .now = T0 + 3600};
    bx_audit *a = NULL;
    bx_error err;
    bxu_engine *e;

    ok_err(bx_audit_new(&o, &a, &err), &err, "new audit");
    a->engines = bxu_grow(a->engines, &a->nengines, sizeof *a->engines);
    e = &a->engines[0];
    e->endpoint = strdup("unix:///run/test.sock");
    snprintf(e->id, sizeof e->id, "%s", ENG);
    e->reachable = 1;
    e->local = 1;
    e->docker = 1;
    e->alias_of = -1;
    return a;
}

static void run(void)
{
    static const char *const labels[] = {"run=r1"};
    bx_policy *p = NULL;
    bx_error err;
    bx_expect ex = {0};
    json_t *doc = NULL;
    int complete = 0;
    size_t viol = 0;
    char t[21];
    char exbuf[2048];

    ok_err(bx_policy_load_buffer(policy_yaml, strlen(policy_yaml), "/nonexistent/p.yaml", &p, &err),
           &err, "policy loads");
    snprintf(
        exbuf, sizeof exbuf,
        "{\"version\":1,\"sessions\":[{\"id\":\"%s\"},{\"id\":\"%s\"},{\"name\":\"rm-by-name\"},"
        "{\"name\":\"never\"},{\"id\":\"%s\",\"startedAt\":\"%s\"}]}",
        id(0), id(9), id(11), bx_time_format(T0 + 7, t));
    ok_err(bx_expect_parse(exbuf, strlen(exbuf), "expect", &ex, &err), &err, "expect parses");
    bx_audit *a = new_audit(p, labels, 1, &ex);

    session(a, 0, "h1", "running", BXU_PRESENT, T0)->expected = 1;
    cert(a, "c/h1.intoto.json", 0, "h1", T0, T0 + 5, NULL, NULL);
    session(a, 1, "h2", "exited", BXU_PRESENT, T0);
    cert(a, "c/h2b.intoto.json", 1, "h2", T0, T0 + 30, NULL, NULL);
    cert(a, "c/h2a.intoto.json", 1, "h2", T0, T0 + 5, NULL, NULL);
    session(a, 2, "w1", "running", BXU_PRESENT, T0);
    cert(a, "c/w1.intoto.json", 2, "w1", T0, T0 + 5, "containment.network", NULL);
    session(a, 3, "u1", "running", BXU_PRESENT, T0);
    session(a, 4, "slow", "running", BXU_PRESENT, T0);
    cert(a, "c/slow.intoto.json", 4, "slow", T0, T0 + 61, NULL, NULL);
    session(a, 5, "restarted", "running", BXU_PRESENT, T0 + 100);
    cert(a, "c/restarted-old.intoto.json", 5, "restarted", T0, T0 + 5, NULL, NULL);
    session(a, 6, "gone", "", BXU_GONE, 0);
    cert(a, "c/gone.intoto.json", 6, "gone", T0, T0 + 2, NULL, NULL);
    session(a, 7, "lost", "running", BXU_LOST, 0);
    /* only the launcher knows these */
    cert(a, "c/rm.intoto.json", 9, "rm1", T0, T0 + 3, NULL, NULL);
    cert(a, "c/rm-by-name.intoto.json", 10, "rm-by-name", T0, T0 + 3, NULL, NULL);
    cert(a, "c/rm-by-name-other-run.intoto.json", 12, "rm-by-name", T0, T0 + 3, NULL, "r0");
    cert(a, "c/pinned-start-other.intoto.json", 11, "pinned", T0, T0 + 3, NULL, NULL);
    cert(a, "c/pinned-start.intoto.json", 11, "pinned", T0 + 7, T0 + 9, NULL, NULL);
    rejected(a, "c/forged.intoto.json");

    ok_err(bx_audit_report(a, &doc, &complete, &viol, &err), &err, "report");
    ok_err(bx_audit_report_check(doc, &err), &err, "the report has the audit shape");
    is_int(complete, 1, "complete: no engine lost");
    ROW("h1", 0, "compliant", "leftover");
    ok(json_is_true(json_object_get(row_named(doc, "h1", 0), "expected")), "h1 was expected");
    ROW("h2", 0, "compliant", "leftover,duplicate");
    is_str(json_string_value(json_object_get(row_named(doc, "h2", 0), "certificate")),
           "c/h2a.intoto.json", "h2 shows its earliest certificate");
    is_int(json_array_size(json_object_get(row_named(doc, "h2", 0), "duplicates")), 1,
           "h2 lists the other as a duplicate");
    ok(has_finding(row_named(doc, "h2", 0), "audit.duplicate", "warn"), "h2: audit.duplicate warn");
    ROW("w1", 0, "noncompliant", "leftover");
    ok(has_finding(row_named(doc, "w1", 0), "containment.network", "fail"),
       "w1 carries its failed finding");
    ROW("u1", 0, "unattested", "leftover");
    ok(has_finding(row_named(doc, "u1", 0), "audit.attested", "fail"), "u1: audit.attested");
    ok(has_finding(row_named(doc, "u1", 0), "audit.leftover", "fail"), "u1: audit.leftover");
    ROW("slow", 0, "noncompliant", "late,leftover");
    ok(has_finding(row_named(doc, "slow", 0), "certificate.collection_delay", "fail"),
       "slow: certificate.collection_delay fails (61s > 60s)");
    ok(has_finding(row_named(doc, "h1", 0), "certificate.collection_delay", "pass"),
       "h1: certificate.collection_delay passes (5s)");
    ROW("restarted", 0, "unattested", "leftover");
    ROW("gone", 0, "compliant", "");
    ok(json_is_null(json_object_get(row_named(doc, "gone", 0), "state")), "gone: state null");
    ok(row_named(doc, "lost", 0) != NULL, "lost row exists");
    is_str(json_string_value(json_object_get(row_named(doc, "lost", 0), "verdict")), "unreachable",
           "lost: unreachable");
    ROW("rm1", 0, "compliant", "");
    ok(json_is_true(json_object_get(row_named(doc, "rm1", 0), "expected")), "rm1 expected");
    ROW("rm-by-name", 0, "compliant", "");
    ok(row_named(doc, "rm-by-name", 1) == NULL,
       "a name-only entry ignores a certificate of another run's labels");
    ROW("pinned", 0, "compliant", "");
    is_str(json_string_value(json_object_get(row_named(doc, "pinned", 0), "startedAt")),
           bx_time_format(T0 + 7, t), "an entry with startedAt takes only that start");
    ROW("never", 0, "missing", "");
    ok(has_finding(row_named(doc, "never", 0), "audit.expected", "fail"), "never: audit.expected");

    is_int(count(doc, "sessions"), 12, "12 rows");
    is_int(count(doc, "compliant"), 6, "6 compliant");
    is_int(count(doc, "noncompliant"), 2, "2 noncompliant");
    is_int(count(doc, "unattested"), 2, "2 unattested");
    is_int(count(doc, "missing"), 1, "1 missing");
    is_int(count(doc, "unreachable"), 1, "1 unreachable");
    is_int(count(doc, "late"), 1, "1 late");
    is_int(count(doc, "leftover"), 7, "7 leftover");
    is_int(count(doc, "duplicate"), 1, "1 duplicate");
    is_int(count(doc, "violations"), 8,
           "8 violations: 6 on the engine, the lost one, the missing one");
    is_int(viol, 8, "bx_audit_report counts the same");
    json_t *cs = json_object_get(json_object_get(doc, "summary"), "certificates");
    is_int(json_integer_value(json_object_get(cs, "total")), 13, "13 certificates");
    is_int(json_integer_value(json_object_get(cs, "matched")), 9, "9 matched");
    is_int(json_integer_value(json_object_get(cs, "unmatched")), 3, "3 unmatched");
    is_int(json_integer_value(json_object_get(cs, "rejected")), 1, "1 rejected");
    json_t *rej = NULL, *c;
    size_t i;
    json_array_foreach(json_object_get(doc, "certificates"), i,
                       c) if (strcmp(json_string_value(json_object_get(c, "status")), "rejected") ==
                              0) rej = c;
    ok(rej && json_is_null(json_object_get(rej, "session")),
       "a rejected certificate shows nothing of its statement");
    json_decref(doc);
    doc = NULL;

    /* the same audit with its engine lost: an expected session never seen may be there */
    a->engines[0].lost = 1;
    snprintf(a->engines[0].error, sizeof a->engines[0].error, "engine lost");
    ok_err(bx_audit_report(a, &doc, &complete, &viol, &err), &err, "report again");
    is_int(complete, 0, "incomplete once the engine is lost");
    ROW("never", 0, "unreachable", "");
    json_decref(doc);
    bx_audit_free(a);
    bx_expect_free(&ex);
    bx_policy_free(p);
}

/* Without maxCollectionDelay nothing is late, and no finding is added. */
static void no_delay_rule(void)
{
    static const char yaml[] = "version: 1\ncontainment: {network: [none]}\n";
    static const char *const labels[] = {"run=r1"};
    bx_policy *p = NULL;
    bx_error err;
    json_t *doc = NULL;
    int complete;
    size_t viol;

    ok_err(bx_policy_load_buffer(yaml, strlen(yaml), "/nonexistent/p.yaml", &p, &err), &err,
           "policy without maxCollectionDelay");
    bx_audit *a = new_audit(p, labels, 1, NULL);
    session(a, 4, "slow", "running", BXU_PRESENT, T0);
    cert(a, "c/slow.intoto.json", 4, "slow", T0, T0 + 86000, NULL, NULL);
    ok_err(bx_audit_report(a, &doc, &complete, &viol, &err), &err, "report");
    ROW("slow", 0, "compliant", "leftover");
    ok(!has_finding(row_named(doc, "slow", 0), "certificate.collection_delay", "pass"),
       "no collection_delay finding without the rule");
    json_decref(doc);
    bx_audit_free(a);
    bx_policy_free(p);
}

/* A report with nothing in it: no session, no certificate. */
static void empty(void)
{
    static const char *const labels[] = {"run=none"};
    bx_policy *p = NULL;
    bx_error err;
    json_t *doc = NULL;
    int complete;
    size_t viol = 1;

    ok_err(bx_policy_load_buffer(policy_yaml, strlen(policy_yaml), "/nonexistent/p.yaml", &p, &err),
           &err, "policy");
    bx_audit *a = new_audit(p, labels, 1, NULL);
    ok_err(bx_audit_report(a, &doc, &complete, &viol, &err), &err, "empty report");
    ok_err(bx_audit_report_check(doc, &err), &err, "has the audit shape");
    is_int(viol, 0, "no violation");
    json_decref(doc);
    bx_audit_free(a);
    bx_policy_free(p);
}

static void labels_checked(void)
{
    static const char *const bad[] = {"=x"};
    bx_policy *p = NULL;
    bx_audit *a = NULL;
    bx_error err;
    bx_audit_opts o = {.labels = bad, .nlabels = 1};

    ok_err(bx_policy_load_buffer(policy_yaml, strlen(policy_yaml), "/nonexistent/p.yaml", &p, &err),
           &err, "policy");
    o.policy = p;
    is_int(bx_audit_new(&o, &a, &err), BX_ECONFIG, "a label without a key is refused");
    ok(a == NULL, "... and no audit is made");
    bx_policy_free(p);
}

/* Many sessions and certificates: matching looks sessions up, it does not scan. */
static void scale(void)
{
    static const char *const labels[] = {"run=r1"};
    enum { N = 20000 };
    bx_policy *p = NULL;
    bx_error err;
    json_t *doc = NULL;
    int complete;
    size_t viol = 1;
    char name[32], file[64];

    ok_err(bx_policy_load_buffer(policy_yaml, strlen(policy_yaml), "/nonexistent/p.yaml", &p, &err),
           &err, "policy");
    bx_audit *a = new_audit(p, labels, 1, NULL);
    for (int i = 0; i < N; i++) {
        bxu_session *s;
        a->sessions = bxu_grow(a->sessions, &a->nsessions, sizeof *a->sessions);
        s = &a->sessions[a->nsessions - 1];
        snprintf(s->id, sizeof s->id, "%064x", i);
        snprintf(name, sizeof name, "s%05d", i);
        s->name = strdup(name);
        s->where = BXU_GONE;
        s->selected = 1;
    }
    for (int i = 0; i < N; i++) {
        char ts[21], ti[21], cid[65];
        bxu_cert *c;
        a->certs = bxu_grow(a->certs, &a->ncerts, sizeof *a->certs);
        c = &a->certs[a->ncerts - 1];
        snprintf(file, sizeof file, "c/%d.intoto.json", i);
        snprintf(cid, sizeof cid, "%064x", i);
        snprintf(name, sizeof name, "s%05d", i);
        c->file = strdup(file);
        c->row = -1;
        bx_sha256_hex(file, strlen(file), c->res.certificate_id);
        c->res.findings = json_array();
        c->res.statement =
            json_pack("{s:{s:s, s:{s:s}, s:{s:s, s:s, s:s, s:{}}}}", "predicate", "issuedAt",
                      bx_time_format(T0 + 1, ti), "engine", "id", ENG, "session", "containerId",
                      cid, "name", name, "startedAt", bx_time_format(T0, ts), "labels");
        bxu_cert_judge(a, c);
    }
    ok_err(bx_audit_report(a, &doc, &complete, &viol, &err), &err, "%d sessions, %d certificates",
           N, N);
    is_int(count(doc, "compliant"), N, "every one compliant");
    is_int(viol, 0, "no violation");
    json_decref(doc);
    bx_audit_free(a);
    bx_policy_free(p);
}


/* A certificate of session start (started, ns when v2) with session.pid pid. */
static void cert_start(bx_audit *a, const char *file, int n, const char *name, int v2,
                       int64_t started, int32_t ns, int64_t pid)
{
    char ts[31], ti[21];
    bxu_cert *c;

    a->certs = bxu_grow(a->certs, &a->ncerts, sizeof *a->certs);
    c = &a->certs[a->ncerts - 1];
    c->file = strdup(file);
    c->row = -1;
    bx_sha256_hex(file, strlen(file), c->res.certificate_id);
    c->res.findings = json_array();
    c->res.statement = json_pack(
        "{s:s, s:{s:s, s:{s:s}, s:{s:s, s:s, s:s, s:I, s:{s:s}}}}", "predicateType",
        v2 ? "urn:boxcert:containment:v2" : "urn:boxcert:containment:v1", "predicate",
        "issuedAt", bx_time_format(started + 2, ti), "engine", "id", ENG, "session",
        "containerId", id(n), "name", name, "startedAt",
        v2 ? bx_time_format_ns(started, ns, ts) : bx_time_format(started, ts), "pid",
        (json_int_t)pid, "labels", "run", "r1");
    bxu_cert_judge(a, c);
}

/* A certificate binds one start (issue 19.3): a restart within the same second keeps its
 * second but not its nanoseconds or its pid. */
static void one_start(void)
{
    static const char *const labels[] = {"run=r1"};
    bx_policy *p = NULL;
    bx_error err;
    bx_expect ex = {0};
    json_t *doc = NULL;
    int complete;
    size_t viol;
    char exbuf[512], t0[21];

    ok_err(bx_policy_load_buffer(policy_yaml, strlen(policy_yaml), "/nonexistent/p.yaml", &p, &err),
           &err, "policy");
    snprintf(exbuf, sizeof exbuf,
             "{\"version\":1,\"sessions\":[{\"id\":\"%s\"},{\"id\":\"%s\",\"startedAt\":\"%.19s."
             "000000009Z\"},{\"id\":\"%s\",\"startedAt\":\"%s\"}]}",
             id(14), id(15), bx_time_format(T0, t0), id(13), t0);
    ok_err(bx_expect_parse(exbuf, strlen(exbuf), "expect", &ex, &err), &err, "expect parses");
    bx_audit *a = new_audit(p, labels, 1, &ex);
    bxu_session *s;

    s = session(a, 0, "v2-same", "running", BXU_PRESENT, T0);
    s->started_ns = 5000;
    s->pid = 42;
    cert_start(a, "c/v2-same.json", 0, "v2-same", 1, T0, 5000, 42);
    s = session(a, 1, "v2-restart", "running", BXU_PRESENT, T0);
    s->started_ns = 7000;
    s->pid = 43;
    cert_start(a, "c/v2-old.json", 1, "v2-restart", 1, T0, 5000, 42);
    s = session(a, 2, "v1-pid", "running", BXU_PRESENT, T0);
    s->started_ns = 7000;
    s->pid = 43;
    cert_start(a, "c/v1-pid-old.json", 2, "v1-pid", 0, T0, 0, 42);
    s = session(a, 3, "v1-same", "running", BXU_PRESENT, T0);
    s->started_ns = 7000;
    s->pid = 43;
    cert_start(a, "c/v1-same.json", 3, "v1-same", 0, T0, 0, 43);
    s = session(a, 4, "v1-exited", "exited", BXU_PRESENT, T0);
    s->started_ns = 7000;
    cert_start(a, "c/v1-exited.json", 4, "v1-exited", 0, T0, 0, 43);
    s = session(a, 5, "v1-exited-twice", "exited", BXU_PRESENT, T0);
    s->started_ns = 7000;
    cert_start(a, "c/v1-twice-a.json", 5, "v1-exited-twice", 0, T0, 0, 43);
    cert_start(a, "c/v1-twice-b.json", 5, "v1-exited-twice", 1, T0, 100, 42);
    /* removed sessions only --expect names */
    cert_start(a, "c/gone-alone.json", 14, "gone-alone", 0, T0, 0, 42);
    cert_start(a, "c/gone-twice-a.json", 15, "gone-twice", 0, T0, 0, 42);
    cert_start(a, "c/gone-twice-b.json", 15, "gone-twice", 1, T0, 9, 50);
    cert_start(a, "c/gone-amb-a.json", 13, "gone-amb", 0, T0, 0, 42);
    cert_start(a, "c/gone-amb-b.json", 13, "gone-amb", 1, T0, 9, 50);

    ok_err(bx_audit_report(a, &doc, &complete, &viol, &err), &err, "report");
    ROW("v2-same", 0, "compliant", "leftover");
    ROW("v2-restart", 0, "unattested", "leftover");
    ROW("v1-pid", 0, "unattested", "leftover");
    ROW("v1-same", 0, "compliant", "leftover");
    ROW("v1-exited", 0, "compliant", "leftover");
    ROW("v1-exited-twice", 0, "unattested", "leftover");
    is_str(json_string_value(json_object_get(row_named(doc, "v2-same", 0), "startedAt")),
           "2026-01-01T00:00:00.000005Z", "the row shows the start to the nanosecond");
    ROW("gone-alone", 0, "compliant", "");
    ok(json_is_true(json_object_get(row_named(doc, "gone-alone", 0), "expected")),
       "gone-alone expected");
    /* pinned to the ns: the v2 certificate; the v1 one of that second is not taken */
    ROW("gone-twice", 0, "compliant", "");
    ok(row_named(doc, "gone-twice", 1) == NULL, "the v1 certificate in that second is not taken");
    is_int(json_array_size(json_object_get(row_named(doc, "gone-twice", 0), "duplicates")), 0,
           "... nor a duplicate");
    /* pinned to the second, with two starts known in that second: neither is taken */
    ok(row_named(doc, "gone-amb", 0) == NULL, "no certificate row for an ambiguous second");
    {
        size_t i;
        json_t *r, *found = NULL;
        json_array_foreach(json_object_get(doc, "sessions"), i, r)
        {
            const char *cid = json_string_value(json_object_get(r, "containerId"));
            if (cid && strcmp(cid, id(13)) == 0)
                found = r;
        }
        ok(found && strcmp(json_string_value(json_object_get(found, "verdict")), "unattested") == 0,
           "the entry pinned to an ambiguous second is unattested, not missing");
    }
    json_decref(doc);
    bx_audit_free(a);
    bx_expect_free(&ex);
    bx_policy_free(p);
}

int main(void)
{
    scale();
    one_start();
    run();
    no_delay_rule();
    empty();
    labels_checked();
    return tap_done();
}
