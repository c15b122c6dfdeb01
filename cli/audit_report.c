/* SPDX-License-Identifier: Apache-2.0 */
/* Not part of boxcert-verify, which has no audit. */
#ifndef BOXCERT_VERIFY_ONLY
#include "audit_report.h"
#include "rules.h"

#include <stdlib.h>
#include <string.h>

int audit_parse_format(const char *s, audit_format *out)
{
    report_format f;

    if (strcmp(s, "html") == 0) {
        *out = AUDIT_HTML;
        return 0;
    }
    if (report_parse_format(s, &f) != 0)
        return -1;
    switch (f) {
    case FMT_TEXT:
        *out = AUDIT_TEXT;
        break;
    case FMT_JSON:
        *out = AUDIT_JSON;
        break;
    case FMT_JUNIT:
        *out = AUDIT_JUNIT;
        break;
    case FMT_SARIF:
        *out = AUDIT_SARIF;
        break;
    case FMT_GITHUB:
        *out = AUDIT_GITHUB;
        break;
    case FMT_MARKDOWN: return -1; /* verify's step summary */
    }
    return 0;
}

/* ---- reading the document ------------------------------------------------------- */

static const char *str(const json_t *o, const char *k)
{
    return json_string_value(json_object_get(o, k));
}

/* A file name of the document (the byte escaping, bxu_file) as its bytes again, for the
 * format's own escaping: caller frees; NULL when out of memory. */
static char *file_of(const json_t *o, const char *k)
{
    const char *e = str(o, k);
    char *raw = e ? bx_unescape(e, NULL) : NULL;
    return raw ? raw : e ? strdup(e) : NULL;
}

static long long num(const json_t *o, const char *k)
{
    return (long long)json_integer_value(json_object_get(o, k));
}

static int failed(const json_t *finding)
{
    return bx_finding_failing(finding);
}

static int has_flag(const json_t *row, const char *flag)
{
    size_t i;
    json_t *f;

    json_array_foreach(json_object_get(row, "flags"), i,
                       f) if (strcmp(json_string_value(f), flag) == 0) return 1;
    return 0;
}

static int violation(const json_t *row)
{
    return strcmp(str(row, "verdict"), "compliant") != 0 || has_flag(row, "leftover");
}

static char *compact(const json_t *v)
{
    return report_json_ascii(v);
}

/* "name", else the short Id, else "?" (borrowed or from buf). */
static const char *label(const json_t *row, char buf[16])
{
    const char *n = str(row, "name"), *id = str(row, "containerId");
    if (n)
        return n;
    if (id) {
        snprintf(buf, 16, "%.12s", id);
        return buf;
    }
    return "?";
}

static void put_short(FILE *f, const char *s, void (*put)(FILE *, const char *))
{
    char buf[16];
    snprintf(buf, sizeof buf, "%.12s", s ? s : "-");
    put(f, buf);
}

/* ---- text ------------------------------------------------------------------------ */

static void text_findings(FILE *f, const json_t *findings, const char *indent)
{
    size_t i;
    json_t *x;

    json_array_foreach(findings, i, x)
    {
        if (!failed(x))
            continue;
        char *exp = compact(json_object_get(x, "expected"));
        char *obs = compact(json_object_get(x, "observed"));
        fprintf(f, "%s%s ", indent, str(x, "status"));
        cli_put_safe(f, str(x, "rule"));
        fputs(": ", f);
        cli_put_safe(f, str(x, "message"));
        fprintf(f, " (expected %s, observed %s", exp, obs);
        fputs(")\n", f);
        free(exp);
        free(obs);
    }
}

static const char *colour_of(const char *verdict)
{
    if (strcmp(verdict, "compliant") == 0)
        return "\033[32m";
    if (strcmp(verdict, "noncompliant") == 0 || strcmp(verdict, "unattested") == 0)
        return "\033[31m";
    if (strcmp(verdict, "missing") == 0)
        return "\033[35m";
    return "\033[33m";
}

static void summary_line(FILE *f, const json_t *doc)
{
    const json_t *s = json_object_get(doc, "summary");
    const json_t *c = json_object_get(s, "certificates");

    fprintf(f,
            "%lld session%s: %lld compliant, %lld noncompliant, %lld unattested, %lld missing, "
            "%lld unreachable; %lld late, %lld leftover, %lld duplicate; %lld orphan%s; "
            "%lld certificate%s (%lld matched, %lld unmatched, %lld rejected); %lld violation%s\n",
            num(s, "sessions"), num(s, "sessions") == 1 ? "" : "s", num(s, "compliant"),
            num(s, "noncompliant"), num(s, "unattested"), num(s, "missing"), num(s, "unreachable"),
            num(s, "late"), num(s, "leftover"), num(s, "duplicate"), num(s, "orphans"),
            num(s, "orphans") == 1 ? "" : "s", num(c, "total"), num(c, "total") == 1 ? "" : "s",
            num(c, "matched"), num(c, "unmatched"), num(c, "rejected"), num(s, "violations"),
            num(s, "violations") == 1 ? "" : "s");
    if (!json_is_true(json_object_get(doc, "complete")))
        fputs("audit incomplete: an engine, the certificates or the task folder could not all "
              "be read\n",
              f);
}

static void text_render(FILE *f, const json_t *doc, int colour)
{
    size_t i;
    json_t *x;
    char up[16], buf[16];

    json_array_foreach(json_object_get(doc, "sessions"), i, x)
    {
        const char *v = str(x, "verdict");
        size_t k;
        for (k = 0; v[k] && k < sizeof up - 1; k++)
            up[k] = (char)(v[k] - 32 * (v[k] >= 'a' && v[k] <= 'z'));
        up[k] = '\0';
        fprintf(f, "%s%-12s%s ", colour ? colour_of(v) : "", up, colour ? "\033[0m" : "");
        cli_put_field(f, label(x, buf));
        if (str(x, "containerId") && str(x, "name"))
            fprintf(f, " %.12s", str(x, "containerId"));
        if (str(x, "certificateId"))
            fprintf(f, " cert %.12s", str(x, "certificateId"));
        if (str(x, "state")) {
            fputs(" ", f);
            cli_put_field(f, str(x, "state"));
        }
        json_t *fl;
        size_t j;
        json_array_foreach(json_object_get(x, "flags"), j, fl)
            fprintf(f, " [%s]", json_string_value(fl));
        fputc('\n', f);
        text_findings(f, json_object_get(x, "findings"), "    ");
    }
    json_array_foreach(json_object_get(doc, "certificates"), i, x)
    {
        const json_t *s = json_object_get(x, "session");
        fprintf(f, "%-12s ", strcmp(str(x, "status"), "rejected") == 0 ? "REJECTED" : "UNMATCHED");
        char *file = file_of(x, "file");
        cli_put_field(f, file ? file : "?");
        free(file);
        if (str(x, "certificateId"))
            fprintf(f, " %.12s", str(x, "certificateId"));
        if (json_is_object(s)) {
            fputs(" session=", f);
            cli_put_field(f, str(s, "name") ? str(s, "name") : "?");
        }
        fputc('\n', f);
        text_findings(f, json_object_get(x, "findings"), "    ");
    }
    json_array_foreach(json_object_get(doc, "orphans"), i, x)
    {
        fputs("ORPHAN       ", f);
        cli_put_field(f, str(x, "id"));
        if (json_is_integer(json_object_get(x, "pid")))
            fprintf(f, " pid %lld", num(x, "pid"));
        fputs(" in ", f);
        cli_put_safe(f, str(x, "folder"));
        fputc('\n', f);
    }
    json_array_foreach(json_object_get(doc, "engines"), i, x)
    {
        if (str(x, "conflictWith")) { /* one engine ID, two engines */
            fputs("CONFLICT     ", f);
            cli_put_safe(f, str(x, "endpoint"));
            fputs(": the engine ID of ", f);
            cli_put_safe(f, str(x, "conflictWith"));
            fputs(", other containers or starts (two engines, both audited)\n", f);
        }
        if (json_is_true(json_object_get(x, "reachable")) &&
            !json_is_true(json_object_get(x, "lost")))
            continue;
        fputs(json_is_true(json_object_get(x, "reachable")) ? "LOST         " : "UNREACHABLE  ", f);
        cli_put_safe(f, str(x, "endpoint"));
        if (str(x, "error")) {
            fputs(": ", f);
            cli_put_safe(f, str(x, "error"));
        }
        fputc('\n', f);
    }
    summary_line(f, doc);
}

/* As it is: for a format whose encoder escapes (SARIF through jansson). */
static void put_plain(FILE *f, const char *s)
{
    fputs(s, f);
}

/* A certificate that belongs to no row, in one line: rejected (its first failed finding) or
 * unmatched (the session it names), through the format's own escaping. */
static void cert_why(FILE *f, const json_t *c, void (*put)(FILE *, const char *))
{
    const json_t *fi = json_array_get(json_object_get(c, "findings"), 0), *s;
    char buf[16];

    if (strcmp(str(c, "status"), "rejected") == 0) {
        put(f, "certificate rejected: ");
        put(f, fi && str(fi, "message") ? str(fi, "message") : "did not verify");
        return;
    }
    s = json_object_get(c, "session");
    put(f, "certificate ");
    put(f, str(c, "certificateId") ? str(c, "certificateId") : "?");
    put(f, " verified but matches no session of this audit (it names ");
    put(f, json_is_object(s) ? label(s, buf) : "?");
    if (json_is_object(s) && str(s, "startedAt")) {
        put(f, " started ");
        put(f, str(s, "startedAt"));
    }
    put(f, ")");
}

/* ---- junit ---------------------------------------------------------------------- */

static void junit_case_open(FILE *f, const json_t *row, const char *name)
{
    char buf[16];
    fputs("    <testcase classname=\"", f);
    report_xml_put(f, label(row, buf));
    if (str(row, "containerId") && str(row, "name"))
        fprintf(f, " %.12s", str(row, "containerId"));
    fputs("\" name=\"", f);
    report_xml_put(f, name);
    fputs("\"", f);
}

/* An engine that could not be read, or a session of one, is the audit's error, not the
 * session's failure: JUnit's <error> (the test could not run). */
static int row_errs(const json_t *row)
{
    return strcmp(str(row, "verdict"), "unreachable") == 0;
}

static int engine_errs(const json_t *e)
{
    return !json_is_true(json_object_get(e, "reachable")) || json_is_true(json_object_get(e, "lost"));
}

static void junit_render(FILE *f, const json_t *doc)
{
    size_t i, j, tests = 0, failures = 0, errors = 0, skipped;
    json_t *x, *fi;
    const json_t *pol = json_object_get(doc, "policy");

    json_array_foreach(json_object_get(doc, "sessions"), i, x)
    {
        size_t k = 1 + json_array_size(json_object_get(x, "findings")), bad = 0;
        tests += k;
        bad += strcmp(str(x, "verdict"), "compliant") != 0;
        json_array_foreach(json_object_get(x, "findings"), j, fi) bad += failed(fi);
        *(row_errs(x) ? &errors : &failures) += bad;
    }
    json_array_foreach(json_object_get(doc, "engines"), i, x)
    {
        tests += engine_errs(x);
        errors += engine_errs(x);
    }
    tests += json_array_size(json_object_get(doc, "orphans"));
    failures += json_array_size(json_object_get(doc, "orphans"));
    /* certificates of no row: a skipped case each (neither is a violation, both are shown) */
    skipped = json_array_size(json_object_get(doc, "certificates"));
    tests += skipped;
    fprintf(f,
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
            "<testsuites name=\"boxcert audit\" tests=\"%zu\" failures=\"%zu\" errors=\"%zu\">\n"
            "  <testsuite name=\"boxcert audit\" tests=\"%zu\" failures=\"%zu\" errors=\"%zu\" "
            "skipped=\"%zu\" timestamp=\"%.19s\">\n"
            "    <properties>\n"
            "      <property name=\"tool\" value=\"%s %s\"/>\n"
            "      <property name=\"auditedAt\" value=\"",
            tests, failures, errors, tests, failures, errors, skipped,
            str(doc, "auditedAt") ? str(doc, "auditedAt") : "", cli_prog, BOXCERT_VERSION);
    report_xml_put(f, str(doc, "auditedAt"));
    fputs("\"/>\n      <property name=\"policy\" value=\"", f);
    report_xml_put(f, str(pol, "name"));
    if (str(pol, "extends")) {
        fputs(" (extends ", f);
        report_xml_put(f, str(pol, "extends"));
        fputs(")", f);
    }
    fputs("\"/>\n      <property name=\"policySha256\" value=\"", f);
    report_xml_put(f, str(pol, "sha256"));
    fputs("\"/>\n    </properties>\n", f);
    json_array_foreach(json_object_get(doc, "engines"), i, x)
    {
        if (!engine_errs(x))
            continue;
        fputs("    <testcase classname=\"engines\" name=\"", f);
        report_xml_put(f, str(x, "endpoint"));
        fputs("\">\n      <error type=\"unreachable\" message=\"", f);
        fputs(json_is_true(json_object_get(x, "lost")) ? "lost during the audit: "
                                                        : "could not be reached: ",
              f);
        report_xml_put(f, str(x, "error") ? str(x, "error") : "no reply");
        fputs("\"/>\n    </testcase>\n", f);
    }
    json_array_foreach(json_object_get(doc, "sessions"), i, x)
    {
        const char *v = str(x, "verdict");
        junit_case_open(f, x, "verdict");
        if (strcmp(v, "compliant") == 0) {
            fputs("/>\n", f);
        } else {
            fputs(row_errs(x) ? ">\n      <error type=\"" : ">\n      <failure type=\"", f);
            report_xml_put(f, v);
            fputs("\" message=\"session is ", f);
            report_xml_put(f, v);
            fputs("\"/>\n    </testcase>\n", f);
        }
        json_array_foreach(json_object_get(x, "findings"), j, fi)
        {
            junit_case_open(f, x, str(fi, "rule"));
            if (!failed(fi)) {
                fputs("/>\n", f);
                continue;
            }
            char *exp = compact(json_object_get(fi, "expected"));
            char *obs = compact(json_object_get(fi, "observed"));
            const char *el = row_errs(x) ? "error" : "failure";
            fprintf(f, ">\n      <%s type=\"", el);
            report_xml_put(f, str(fi, "status"));
            fputs("\" message=\"", f);
            report_xml_put(f, str(fi, "message"));
            fputs("\">expected ", f);
            report_xml_put_json(f, exp);
            fputs(", observed ", f);
            report_xml_put_json(f, obs);
            fprintf(f, "</%s>\n    </testcase>\n", el);
            free(exp);
            free(obs);
        }
    }
    json_array_foreach(json_object_get(doc, "orphans"), i, x)
    {
        fputs("    <testcase classname=\"orphans\" name=\"", f);
        report_xml_put(f, str(x, "id"));
        fputs("\">\n      <failure type=\"orphan\" message=\"a runtime task no engine knows, in ",
              f);
        report_xml_put(f, str(x, "folder"));
        fputs("\"/>\n    </testcase>\n", f);
    }
    json_array_foreach(json_object_get(doc, "certificates"), i, x)
    {
        char *file = file_of(x, "file");
        fputs("    <testcase classname=\"certificates\" name=\"", f);
        report_xml_put(f, file ? file : "?");
        fputs("\">\n      <skipped message=\"", f);
        cert_why(f, x, report_xml_put);
        fputs("\"/>\n    </testcase>\n", f);
        free(file);
    }
    fputs("  </testsuite>\n</testsuites>\n", f);
}

/* ---- sarif ---------------------------------------------------------------------- */

static json_t *sarif_location(const json_t *row)
{
    char fq[512];
    json_t *loc;

    snprintf(fq, sizeof fq, "%s/%s", str(row, "engine") ? str(row, "engine") : "-",
             str(row, "containerId") ? str(row, "containerId") : "-");
    loc = json_pack("{s:[{s:s, s:s*, s:s}]}", "logicalLocations", "fullyQualifiedName", fq, "name",
                    str(row, "name"), "kind", "resource");
    char *file = file_of(row, "certificate"), *uri = file ? bx_uri_path(file) : NULL;
    if (loc && uri)
        json_object_set_new(loc, "physicalLocation",
                            json_pack("{s:{s:s}}", "artifactLocation", "uri", uri));
    free(uri);
    free(file);
    return loc;
}

static int sarif_render(FILE *f, const json_t *doc)
{
    json_t *results = json_array(), *rules = json_object(), *x, *fi;
    size_t i, j;
    char *msg = NULL;
    int lost = !results || !rules;

    json_array_foreach(json_object_get(doc, "sessions"), i, x)
    {
        json_array_foreach(json_object_get(x, "findings"), j, fi)
        {
            if (!failed(fi))
                continue;
            json_object_set_new(rules, str(fi, "rule"), json_true());
            if (asprintf(&msg, "session %s: %s", str(x, "name") ? str(x, "name") : "?",
                         str(fi, "message")) < 0) {
                msg = NULL;
                lost = 1;
                continue;
            }
            lost |= json_array_append_new(
                results,
                json_pack("{s:s, s:s, s:{s:s}, s:[o], s:o, s:{s:s, s:O, s:O, s:O, s:O}}",
                          "ruleId", str(fi, "rule"), "level", "error", "message", "text", msg,
                          "locations", sarif_location(x), "partialFingerprints",
                          report_sarif_fingerprint(str(fi, "rule"), "audit session", 0,
                                                   str(x, "name") ? str(x, "name")
                                                                  : str(x, "containerId")),
                          "properties", "verdict", str(x, "verdict"),
                          "certificateId", json_object_get(x, "certificateId"), "status",
                          json_object_get(fi, "status"), "expected",
                          json_object_get(fi, "expected"), "observed",
                          json_object_get(fi, "observed"))) != 0;
            free(msg);
            msg = NULL;
        }
    }
    json_array_foreach(json_object_get(doc, "orphans"), i, x)
    {
        json_object_set_new(rules, "audit.orphan", json_true());
        if (asprintf(&msg, "runtime task %s is known to no engine", str(x, "id")) < 0) {
            msg = NULL;
            lost = 1;
            continue;
        }
        lost |= json_array_append_new(results,
                              json_pack("{s:s, s:s, s:{s:s}, s:[{s:[{s:s, s:s}]}]}", "ruleId",
                                        "audit.orphan", "level", "error", "message", "text", msg,
                                        "locations", "logicalLocations", "fullyQualifiedName",
                                        str(x, "id"), "kind", "resource")) != 0;
        free(msg);
        msg = NULL;
    }
    json_array_foreach(json_object_get(doc, "certificates"), i, x)
    {
        int rejected = strcmp(str(x, "status"), "rejected") == 0;
        const char *rule = rejected ? "audit.rejected" : "audit.unmatched";
        char *file = file_of(x, "file"), *uri = file ? bx_uri_path(file) : NULL, *why = NULL;
        size_t wlen = 0;
        FILE *w = open_memstream(&why, &wlen);

        if (w) {
            cert_why(w, x, put_plain);
            if (fclose(w) != 0) {
                free(why);
                why = NULL;
            }
        }
        json_object_set_new(rules, rule, json_true());
        lost |= !uri || !why ||
                json_array_append_new(
                    results,
                    json_pack("{s:s, s:s, s:{s:s}, s:[{s:{s:{s:s}}}], s:{s:O, s:O, s:O}}",
                              "ruleId", rule, "level", rejected ? "warning" : "note", "message",
                              "text", why, "locations", "physicalLocation", "artifactLocation",
                              "uri", uri, "properties", "status", json_object_get(x, "status"),
                              "certificateId", json_object_get(x, "certificateId"), "findings",
                              json_object_get(x, "findings"))) != 0;
        free(why);
        free(uri);
        free(file);
    }
    json_t *rl = json_array();
    const char *k;
    json_t *v;
    json_object_foreach(rules, k, v) lost |= json_array_append_new(rl, report_sarif_rule(k)) != 0;
    json_t *sarif = json_pack(
        "{s:s, s:s, s:[{s:{s:{s:s, s:s, s:o}}, s:o, s:{s:s, s:O, s:O, s:O, s:O}}]}", "$schema",
        "https://json.schemastore.org/sarif-2.1.0.json", "version", "2.1.0", "runs", "tool",
        "driver", "name", "boxcert", "version", BOXCERT_VERSION, "rules", rl, "results", results,
        "properties", "tool", "boxcert " BOXCERT_VERSION, "auditedAt",
        json_object_get(doc, "auditedAt"), "policy", json_object_get(doc, "policy"), "complete",
        json_object_get(doc, "complete"), "summary", json_object_get(doc, "summary"));
    char *s = sarif ? json_dumps(sarif, JSON_COMPACT) : NULL;
    if (s)
        fprintf(f, "%s\n", s);
    free(s);
    json_decref(sarif);
    json_decref(rules);
    return lost || !s ? -1 : 0; /* never a document with a result left out */
}

/* ---- github --------------------------------------------------------------------- */

static void gh_put(FILE *f, const char *s)
{
    report_gh_put(f, s, 0);
}

static void github_render(FILE *f, const json_t *doc)
{
    size_t i, j;
    json_t *x, *fi;
    char buf[16];

    json_array_foreach(json_object_get(doc, "sessions"), i, x)
    {
        if (!violation(x)) {
            fputs("COMPLIANT ", f);
            report_gh_put(f, label(x, buf), 0);
            fputc('\n', f);
            continue;
        }
        json_array_foreach(json_object_get(x, "findings"), j, fi)
        {
            if (!failed(fi))
                continue;
            char *exp = compact(json_object_get(fi, "expected"));
            char *obs = compact(json_object_get(fi, "observed"));
            fputs("::error ", f);
            if (str(x, "certificate")) {
                fputs("file=", f);
                char *file = file_of(x, "certificate");
                report_gh_put(f, file ? file : "?", 1);
                free(file);
                fputc(',', f);
            }
            fputs("title=", f);
            report_gh_put(f, str(fi, "rule"), 1);
            fputs("::session ", f);
            report_gh_put(f, label(x, buf), 0);
            if (str(x, "containerId") && str(x, "name")) {
                fputs(" (", f);
                put_short(f, str(x, "containerId"), gh_put);
                fputc(')', f);
            }
            fputs(" is ", f);
            report_gh_put(f, str(x, "verdict"), 0);
            fputs(": ", f);
            report_gh_put(f, str(fi, "message"), 0);
            fputs(" (expected ", f);
            report_gh_put_json(f, exp);
            fputs(", observed ", f);
            report_gh_put_json(f, obs);
            fputs(")\n", f);
            free(exp);
            free(obs);
        }
    }
    json_array_foreach(json_object_get(doc, "orphans"), i, x)
    {
        fputs("::error title=audit.orphan::runtime task ", f);
        report_gh_put(f, str(x, "id"), 0);
        fputs(" is known to no engine (", f);
        report_gh_put(f, str(x, "folder"), 0);
        fputs(")\n", f);
    }
    json_array_foreach(json_object_get(doc, "certificates"), i, x)
    {
        int rejected = strcmp(str(x, "status"), "rejected") == 0;
        fputs(rejected ? "::warning file=" : "::notice file=", f);
        char *file = file_of(x, "file");
        report_gh_put(f, file ? file : "?", 1);
        free(file);
        fputs(rejected ? ",title=audit.rejected::" : ",title=audit.unmatched::", f);
        cert_why(f, x, gh_put);
        fputc('\n', f);
    }
    summary_line(f, doc);
}

/* ---- html ----------------------------------------------------------------------- */

/* The page's one script: sorting by a column and a filter, for a reviewer (the page reads the
 * same without it: rows come sorted by severity). Inline, allowed by its SHA-256 in the
 * Content-Security-Policy, which allows nothing else: nothing is fetched, nothing else runs. */
static const char html_script[] =
    "(function(){var t=document.getElementById('sessions');if(!t)return;"
    "var body=t.tBodies[0],rows=[].slice.call(body.rows),"
    "f=document.getElementById('filter'),v=document.getElementById('verdict-filter'),"
    "c=document.getElementById('controls'),shown=document.getElementById('shown');"
    "c.hidden=false;"
    "function apply(){var q=f.value.toLowerCase(),w=v.value,n=0;"
    "rows.forEach(function(r){var ok=(!q||r.textContent.toLowerCase().indexOf(q)>=0)&&"
    "(w==='all'||(w==='violations'?r.getAttribute('data-violation')==='1':"
    "r.getAttribute('data-verdict')===w));r.hidden=!ok;n+=ok?1:0;});"
    "shown.textContent=n+' of '+rows.length+' sessions shown';}"
    "f.addEventListener('input',apply);v.addEventListener('change',apply);"
    "var ths=[].slice.call(t.tHead.rows[0].cells);"
    "ths.forEach(function(th){var k=th.getAttribute('data-key');if(!k)return;"
    "var b=document.createElement('button');b.type='button';b.className='sort';"
    "b.textContent=th.textContent;th.textContent='';th.appendChild(b);"
    "b.addEventListener('click',function(){var d=th.getAttribute('aria-sort')==='ascending'?-1:1;"
    "ths.forEach(function(x){x.removeAttribute('aria-sort');});"
    "th.setAttribute('aria-sort',d>0?'ascending':'descending');"
    "rows.sort(function(a,b){var x=a.getAttribute('data-'+k)||'',y=b.getAttribute('data-'+k)||'',"
    "nx=Number(x),ny=Number(y),r=(x!==''&&y!==''&&!isNaN(nx)&&!isNaN(ny))?nx-ny:"
    "x.localeCompare(y);return r*d||(a.getAttribute('data-order')-b.getAttribute('data-order'));});"
    "rows.forEach(function(r){body.appendChild(r);});});});apply();})();";

static const char html_style[] =
    "<style>\n"
    ":root{--ok:#1a7f37;--bad:#cf222e;--unatt:#bc4c00;--miss:#8250df;--gray:#59636e;"
    "--line:#d1d9e0;--warn:#9a6700}\n"
    "*{box-sizing:border-box}\n"
    "body{font:14px/1.45 system-ui,-apple-system,\"Segoe UI\",Roboto,sans-serif;margin:0;"
    "padding:24px 32px;color:#1f2328;background:#fff;overflow-wrap:break-word}\n"
    "h1{font-size:22px;margin:0 0 4px}h2{font-size:16px;margin:28px 0 8px}\n"
    ".meta{color:var(--gray);margin:0 0 16px}dl.meta{display:grid;"
    "grid-template-columns:max-content 1fr;gap:2px 12px}dl.meta dt{font-weight:600}"
    "dl.meta dd{margin:0}\n"
    "code{font:12px ui-monospace,SFMono-Regular,Menlo,Consolas,monospace}\n"
    "td.findings code,dl.meta code,td.wide code{overflow-wrap:anywhere}\n"
    ".outcome{padding:10px 14px;border-radius:6px;font-weight:600;margin:0 0 16px}\n"
    ".outcome.pass{background:#dafbe1;color:#116329}"
    ".outcome.fail{background:#ffebe9;color:#a40e26}"
    ".outcome.incomplete{background:#fff8c5;color:#7d4e00}\n"
    ".tiles{display:flex;flex-wrap:wrap;gap:10px;margin:0 0 8px}\n"
    ".tile{border:1px solid var(--line);border-left-width:6px;border-radius:6px;"
    "padding:4px 10px;min-width:72px}\n"
    ".tile .n{font-size:22px;font-weight:700}.tile .l{color:var(--gray);font-size:11px;"
    "text-transform:uppercase;letter-spacing:.04em}\n"
    ".tile.compliant{border-left-color:var(--ok)}.tile.noncompliant{border-left-color:var(--bad)}"
    ".tile.unattested{border-left-color:var(--unatt)}.tile.missing{border-left-color:var(--miss)}"
    ".tile.unreachable{border-left-color:var(--gray)}.tile.flagcount{border-left-color:#0969da}"
    ".tile.violations{border-left-color:#1f2328}\n"
    "#controls{display:flex;flex-wrap:wrap;gap:8px 16px;align-items:center;margin:8px 0}"
    "#controls[hidden]{display:none}#controls input{min-width:260px;max-width:100%;padding:4px 8px}"
    "#shown{color:var(--gray)}\n"
    "table{border-collapse:collapse;width:100%;font-size:13px}\n"
    "th,td{text-align:left;padding:6px 8px;border-bottom:1px solid var(--line);"
    "vertical-align:top}\n"
    "th{background:#f6f8fa;font-size:12px;text-transform:uppercase;letter-spacing:.04em;"
    "color:var(--gray);white-space:nowrap}th button.sort{all:inherit;cursor:pointer}"
    "th[aria-sort=ascending] button.sort::after{content:' \\25B2'}"
    "th[aria-sort=descending] button.sort::after{content:' \\25BC'}\n"
    "table.rows>tbody>tr>td{overflow-wrap:anywhere}"
    "td.time{font-size:12px;color:var(--gray);white-space:nowrap}td.findings{min-width:300px}"
    "td.verdict{min-width:130px;max-width:220px}td.c-name{min-width:150px}"
    "td.c-runtime{min-width:64px}td.c-level{min-width:120px}td.c-engine{min-width:100px}"
    "td.c-state{min-width:76px}td.c-cert{min-width:120px}td.c-flags{min-width:80px}\n"
    "tr[hidden]{display:none!important}\n"
    "tr.v-compliant td:first-child{box-shadow:inset 5px 0 var(--ok)}"
    "tr.v-noncompliant td:first-child{box-shadow:inset 5px 0 var(--bad)}"
    "tr.v-unattested td:first-child{box-shadow:inset 5px 0 var(--unatt)}"
    "tr.v-missing td:first-child{box-shadow:inset 5px 0 var(--miss)}"
    "tr.v-unreachable td:first-child{box-shadow:inset 5px 0 var(--gray)}"
    "tr.v-compliant.violation td:first-child{box-shadow:inset 5px 0 var(--warn)}\n"
    "tr.v-noncompliant,tr.v-unattested{background:#fff8f7}"
    "tr.v-missing{background:#fbf7ff}tr.v-unreachable{background:#f6f8fa}"
    "tr.v-compliant.violation{background:#fffbea}\n"
    ".badge{display:inline-block;padding:1px 9px;border-radius:10px;font-size:12px;"
    "font-weight:600;color:#fff;white-space:nowrap}\n"
    ".badge.compliant{background:var(--ok)}.badge.noncompliant{background:var(--bad)}"
    ".badge.unattested{background:var(--unatt)}.badge.missing{background:var(--miss)}"
    ".badge.unreachable{background:var(--gray)}.badge.orphan,.badge.rejected{background:var(--bad)}"
    ".badge.unmatched{background:var(--gray)}.badge.violation{background:var(--warn)}\n"
    ".why{display:block;margin-top:4px;font-size:12px;color:var(--warn)}\n"
    ".flag{display:inline-block;padding:0 7px;margin:0 4px 2px 0;border-radius:10px;"
    "font-size:12px;border:1px solid}\n"
    ".flag.late{color:#9a6700;border-color:#d4a72c;background:#fff8c5}"
    ".flag.leftover{color:#0550ae;border-color:#54aeff;background:#ddf4ff}"
    ".flag.duplicate{color:#59636e;border-color:#d1d9e0;background:#f6f8fa}\n"
    ".level{display:inline-block;padding:0 7px;border-radius:10px;font-size:12px;"
    "border:1px solid var(--line);white-space:nowrap}.level.engine{color:var(--bad);"
    "border-color:#ff8182}\n"
    "ul.findings{margin:0;padding-left:16px}ul.findings li{margin:0 0 4px}\n"
    "table.values{margin:4px 0;font-size:12px;width:auto;max-width:100%}"
    "table.values th,table.values td{padding:2px 6px;border:1px solid var(--line);"
    "overflow-wrap:anywhere}"
    "table.values th{text-transform:none;letter-spacing:0}\n"
    ".rule{font-weight:600}.muted{color:var(--gray)}.sev{font-size:11px;color:var(--gray)}\n"
    "footer{margin-top:28px;color:var(--gray);font-size:12px}\n"
    /* narrow screens and paper: each row a card, each cell labelled */
    "@media (max-width:1100px){body{padding:16px}table.rows>thead{display:none}"
    "table.rows,table.rows>tbody,table.rows>tbody>tr,table.rows>tbody>tr>td{display:block;"
    "width:100%;min-width:0;max-width:none}"
    "table.rows>tbody>tr{border:1px solid var(--line);border-radius:6px;margin:0 0 10px}"
    "table.rows>tbody>tr>td{border:0;padding:3px 10px 3px 14px}"
    "table.rows>tbody>tr>td[data-label]::before{content:attr(data-label);display:inline-block;"
    "min-width:96px;margin-right:8px;color:var(--gray);font-size:11px;"
    "text-transform:uppercase;letter-spacing:.04em}"
    "table.rows>tbody>tr>td:first-child{padding-top:8px}}\n"
    "@media print{#controls{display:none!important}body{padding:0;font-size:12px}"
    "table.rows tr,.tile{break-inside:avoid}h2{break-after:avoid}"
    "*{-webkit-print-color-adjust:exact;print-color-adjust:exact}}\n"
    "</style>\n";

static void x(FILE *f, const char *s)
{
    report_xml_put(f, s);
}

static void html_tile(FILE *f, const char *cls, const char *id, long long n, const char *label_)
{
    fprintf(f,
            "<div class=\"tile %s\"><div class=\"n\" id=\"count-%s\">%lld</div>"
            "<div class=\"l\">%s</div></div>\n",
            cls, id, n, label_);
}

/* A list of objects of scalars (the write surface, mounts, ports) as a table; else NULL. */
static int html_value_table(FILE *f, const json_t *v)
{
    const char *keys[12];
    size_t nk = 0, i, k;
    json_t *o, *m;
    const char *name;

    if (!json_is_array(v) || json_array_size(v) == 0)
        return 0;
    json_array_foreach(v, i, o)
    {
        if (!json_is_object(o))
            return 0;
        json_object_foreach(o, name, m)
        {
            if (json_is_object(m) || (json_is_array(m) && json_array_size(m) > 8))
                return 0;
            for (k = 0; k < nk && strcmp(keys[k], name) != 0; k++)
                ;
            if (k == nk) {
                if (nk == sizeof keys / sizeof *keys)
                    return 0;
                keys[nk++] = name;
            }
        }
    }
    fputs("<table class=\"values\"><tr>", f);
    for (k = 0; k < nk; k++) {
        fputs("<th>", f);
        x(f, keys[k]);
        fputs("</th>", f);
    }
    fputs("</tr>", f);
    json_array_foreach(v, i, o)
    {
        fputs("<tr>", f);
        for (k = 0; k < nk; k++) {
            m = json_object_get(o, keys[k]);
            fputs("<td>", f);
            if (json_is_string(m))
                x(f, json_string_value(m));
            else if (m && !json_is_null(m)) {
                char *c = compact(m);
                fputs("<code>", f);
                report_xml_put_json(f, c);
                fputs("</code>", f);
                free(c);
            }
            fputs("</td>", f);
        }
        fputs("</tr>", f);
    }
    fputs("</table>", f);
    return 1;
}

static void html_value(FILE *f, const char *what, const json_t *v)
{
    fprintf(f, "<span class=\"muted\">%s</span> ", what);
    if (html_value_table(f, v))
        return;
    char *c = compact(v);
    fputs("<code>", f);
    report_xml_put_json(f, c);
    fputs("</code> ", f);
    free(c);
}

static void html_findings(FILE *f, const json_t *findings)
{
    size_t i, n = 0;
    json_t *fi;

    json_array_foreach(findings, i, fi) n += failed(fi);
    if (n == 0) {
        fputs("<span class=\"muted\">none</span>", f);
        return;
    }
    fputs("<ul class=\"findings\">", f);
    json_array_foreach(findings, i, fi)
    {
        if (!failed(fi))
            continue;
        const rule_doc *d = rule_doc_of(str(fi, "rule"));
        fputs("<li><span class=\"rule\" title=\"", f);
        x(f, d->name);
        fputs("\">", f);
        x(f, str(fi, "rule"));
        fprintf(f, "</span> <span class=\"sev\">severity %s</span> ", d->severity);
        x(f, str(fi, "message"));
        fputs("<br>", f);
        html_value(f, "expected", json_object_get(fi, "expected"));
        html_value(f, "observed", json_object_get(fi, "observed"));
        fputs("</li>", f);
    }
    fputs("</ul>", f);
}

static void html_code_short(FILE *f, const char *full)
{
    if (!full) {
        fputs("<span class=\"muted\">-</span>", f);
        return;
    }
    fputs("<code title=\"", f);
    x(f, full);
    fputs("\">", f);
    put_short(f, full, x);
    fputs("</code>", f);
}

/* How bad a row is, for the order of the table: its verdict first (noncompliant, unattested,
 * missing, unreachable, then compliant rows that are violations all the same, then the
 * others), then the highest security-severity of its failed findings, as one number: lower
 * first. */
static int row_violation(const json_t *row)
{
    size_t i;
    json_t *fi;
    if (strcmp(str(row, "verdict"), "compliant") != 0)
        return 1;
    json_array_foreach(json_object_get(row, "findings"), i, fi)
    {
        if (!strcmp(str(fi, "status"), "fail") && !strncmp(str(fi, "rule"), "audit.", 6))
            return 1; /* left over on its engine, say: a violation all the same */
    }
    return 0;
}

static double row_rank(const json_t *row)
{
    static const char *const order[] = {"noncompliant", "unattested", "missing", "unreachable",
                                        "compliant"};
    const char *v = str(row, "verdict");
    double worst = 0;
    size_t i, k;
    json_t *fi;
    for (k = 0; k < 4 && strcmp(order[k], v) != 0; k++)
        ;
    if (k == 4)
        k = row_violation(row) ? 4 : 5;
    json_array_foreach(json_object_get(row, "findings"), i, fi)
    {
        double sev = failed(fi) ? atof(rule_doc_of(str(fi, "rule"))->severity) : 0;
        worst = sev > worst ? sev : worst;
    }
    return (double)k * 100 + (10 - worst) * 5;
}

typedef struct {
    const json_t *row;
    double rank;
    size_t at;
} ranked;

static int by_rank(const void *a, const void *b)
{
    const ranked *p = a, *q = b;
    if (p->rank != q->rank)
        return p->rank < q->rank ? -1 : 1;
    return p->at < q->at ? -1 : p->at > q->at;
}

static void html_keyids(FILE *f, const json_t *ids)
{
    size_t i;
    json_t *k;
    json_array_foreach(ids, i, k)
    {
        fputs(i ? " " : "", f);
        html_code_short(f, json_string_value(k));
    }
}

/* The reason a compliant row is a violation all the same: its audit.* findings that failed. */
static void html_why(FILE *f, const json_t *row)
{
    size_t i;
    json_t *fi;
    int n = 0;
    json_array_foreach(json_object_get(row, "findings"), i, fi)
    {
        if (strcmp(str(fi, "status"), "fail") != 0 || strncmp(str(fi, "rule"), "audit.", 6) != 0)
            continue;
        fputs(n++ ? "; " : "<span class=\"why\">Its certificate complies, but the session is a "
                           "violation: ",
              f);
        x(f, str(fi, "message"));
        fputs(" (", f);
        x(f, str(fi, "rule"));
        fputs(")", f);
    }
    if (n)
        fputs("</span>", f);
}

static int html_render(FILE *f, const json_t *doc)
{
    const json_t *s = json_object_get(doc, "summary"), *c = json_object_get(s, "certificates");
    const json_t *pol = json_object_get(doc, "policy"), *sessions = json_object_get(doc, "sessions");
    int complete = json_is_true(json_object_get(doc, "complete"));
    long long viol = num(s, "violations");
    size_t i, j, nrows = json_array_size(sessions);
    json_t *row, *fl, *signers = json_array();
    ranked *order = calloc(nrows ? nrows : 1, sizeof *order);
    unsigned char h[32];
    char *b64;

    bx_sha256(html_script, strlen(html_script), h);
    b64 = bx_b64_encode(h, sizeof h);
    if (!order || !signers || !b64) {
        free(order);
        free(b64);
        json_decref(signers);
        return -1;
    }
    fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
          "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n",
          f);
    fprintf(f,
            "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
            "style-src 'unsafe-inline'; script-src 'sha256-%s'\">\n",
            b64);
    fputs("<meta name=\"generator\" content=\"boxcert audit\">\n", f);
    free(b64);
    fprintf(f, "<title>boxcert audit: %lld session%s, %lld violation%s</title>\n",
            num(s, "sessions"), num(s, "sessions") == 1 ? "" : "s", viol, viol == 1 ? "" : "s");
    fputs(html_style, f);
    fputs("</head>\n<body>\n<h1>boxcert audit</h1>\n<dl class=\"meta\" id=\"meta\">"
          "<dt>Audited at</dt><dd><time>",
          f);
    x(f, str(doc, "auditedAt"));
    fputs("</time></dd><dt>Policy</dt><dd id=\"policy\"><code>", f);
    x(f, str(pol, "name") ? str(pol, "name") : "?");
    fputs("</code>", f);
    if (str(pol, "extends")) {
        fputs(" extends <code>", f);
        x(f, str(pol, "extends"));
        fputs("</code>", f);
    }
    fputs(" &middot; <code title=\"SHA-256 of the effective policy's JCS\">sha256:", f);
    x(f, str(pol, "sha256"));
    fputs("</code></dd><dt>Signed by</dt><dd id=\"signers\">", f);
    json_array_foreach(sessions, i, row)
    {
        json_array_foreach(json_object_get(row, "signers"), j, fl)
        {
            size_t k;
            json_t *y;
            int seen = 0;
            json_array_foreach(signers, k, y) seen |= json_equal(y, fl);
            if (!seen)
                json_array_append(signers, fl);
        }
    }
    if (json_array_size(signers)) {
        json_array_foreach(signers, i, fl)
        {
            fputs(i ? ", " : "", f);
            fputs("key <code>", f);
            x(f, json_string_value(fl));
            fputs("</code>", f);
        }
    } else {
        fputs("<span class=\"muted\">no verified certificate</span>", f);
    }
    fputs("</dd><dt>Engines</dt><dd>", f);
    json_array_foreach(json_object_get(doc, "engines"), i, row)
    {
        if (str(row, "sameAs"))
            continue;
        fputs(i ? "; " : "", f);
        x(f, str(row, "name") ? str(row, "name") : "?");
        fputs(" <code>", f);
        x(f, str(row, "endpoint"));
        fputs("</code>", f);
    }
    fputs("</dd></dl>\n", f);
    json_decref(signers);
    if (!complete)
        fprintf(f,
                "<p class=\"outcome incomplete\" id=\"outcome\">Incomplete: an engine, the "
                "certificates or the task folder could not all be read (%lld violation%s "
                "among what was read)</p>\n",
                viol, viol == 1 ? "" : "s");
    else if (viol)
        fprintf(f, "<p class=\"outcome fail\" id=\"outcome\">%lld violation%s</p>\n", viol,
                viol == 1 ? "" : "s");
    else
        fputs("<p class=\"outcome pass\" id=\"outcome\">Every session compliant, none left "
              "over</p>\n",
              f);
    fputs("<section class=\"tiles\" id=\"summary\">\n", f);
    html_tile(f, "violations", "violations", viol, "violations");
    html_tile(f, "compliant", "compliant", num(s, "compliant"), "compliant");
    html_tile(f, "noncompliant", "noncompliant", num(s, "noncompliant"), "noncompliant");
    html_tile(f, "unattested", "unattested", num(s, "unattested"), "unattested");
    html_tile(f, "missing", "missing", num(s, "missing"), "missing");
    html_tile(f, "unreachable", "unreachable", num(s, "unreachable"), "unreachable");
    html_tile(f, "flagcount", "late", num(s, "late"), "late");
    html_tile(f, "flagcount", "leftover", num(s, "leftover"), "leftover");
    html_tile(f, "flagcount", "duplicate", num(s, "duplicate"), "duplicate");
    html_tile(f, "flagcount", "orphans", num(s, "orphans"), "orphans");
    fputs("</section>\n", f);
    fprintf(f,
            "<p class=\"meta\" id=\"certificate-counts\">%lld session%s; %lld certificate%s "
            "read: %lld matched, %lld unmatched, %lld rejected</p>\n",
            num(s, "sessions"), num(s, "sessions") == 1 ? "" : "s", num(c, "total"),
            num(c, "total") == 1 ? "" : "s", num(c, "matched"), num(c, "unmatched"),
            num(c, "rejected"));

    fputs("<h2>Sessions</h2>\n<p class=\"meta\">Most severe first: noncompliant, unattested, "
          "missing, unreachable, then compliant sessions that are violations all the same; "
          "within each, by the highest severity of a failed finding.</p>\n"
          "<div id=\"controls\" hidden><input id=\"filter\" type=\"search\" "
          "placeholder=\"Filter: a name, a rule, a runtime...\" aria-label=\"Filter the sessions\">"
          "<select id=\"verdict-filter\" aria-label=\"Show\"><option value=\"all\">every "
          "session</option><option value=\"violations\">violations</option><option "
          "value=\"noncompliant\">noncompliant</option><option value=\"unattested\">unattested"
          "</option><option value=\"missing\">missing</option><option value=\"unreachable\">"
          "unreachable</option><option value=\"compliant\">compliant</option></select>"
          "<span id=\"shown\"></span><span class=\"muted\">Select a column heading to "
          "sort.</span></div>\n"
          "<table id=\"sessions\" class=\"rows\">\n<thead><tr><th data-key=\"rank\">Verdict</th>"
          "<th data-key=\"name\">Session</th><th data-key=\"runtime\">Runtime</th>"
          "<th data-key=\"level\">Evidence</th><th data-key=\"engine\">Engine</th>"
          "<th data-key=\"started\">Started</th><th>State</th><th>Certificate</th><th>Flags</th>"
          "<th>Failed findings</th></tr></thead>\n<tbody>\n",
          f);
    json_array_foreach(sessions, i, row) order[i] = (ranked){row, row_rank(row), i};
    /* data-index: the row's place in the report (what by_hand.py reads the rows by) */
    qsort(order, nrows, sizeof *order, by_rank);
    for (i = 0; i < nrows; i++) {
        row = (json_t *)order[i].row;
        const char *v = str(row, "verdict");
        int violation = row_violation(row);
        fputs("<tr class=\"session v-", f);
        x(f, v);
        fputs(violation && !strcmp(v, "compliant") ? " violation" : "", f);
        fprintf(f,
                "\" data-index=\"%zu\" data-order=\"%zu\" data-rank=\"%.1f\" data-violation=\"%d\" "
                "data-verdict=\"",
                order[i].at, i, order[i].rank, violation);
        x(f, v);
        fputs("\" data-name=\"", f);
        x(f, str(row, "name") ? str(row, "name") : "");
        fputs("\" data-runtime=\"", f);
        x(f, str(row, "runtime") ? str(row, "runtime") : "");
        fputs("\" data-level=\"", f);
        x(f, str(row, "evidenceLevel") ? str(row, "evidenceLevel") : "");
        fputs("\" data-engine=\"", f);
        x(f, str(row, "engineName") ? str(row, "engineName") : str(row, "engine") ? str(row, "engine") : "");
        fputs("\" data-started=\"", f);
        x(f, str(row, "startedAt") ? str(row, "startedAt") : "");
        fputs("\" data-flags=\"", f);
        json_array_foreach(json_object_get(row, "flags"), j, fl)
        {
            if (j)
                fputc(' ', f);
            x(f, json_string_value(fl));
        }
        fputs("\"><td class=\"verdict\" data-label=\"Verdict\"><span class=\"badge ", f);
        x(f, v);
        fputs("\">", f);
        x(f, v);
        fputs("</span>", f);
        if (violation && !strcmp(v, "compliant")) {
            fputs(" <span class=\"badge violation\">violation</span>", f);
            html_why(f, row);
        }
        fputs("</td><td class=\"c-name\" data-label=\"Session\">", f);
        if (str(row, "name"))
            x(f, str(row, "name"));
        else
            fputs("<span class=\"muted\">-</span>", f);
        fputs("<br>", f);
        html_code_short(f, str(row, "containerId"));
        if (json_is_true(json_object_get(row, "expected")))
            fputs("<br><span class=\"muted\" title=\"listed in --expect\">expected</span>", f);
        fputs("</td><td class=\"c-runtime\" data-label=\"Runtime\">", f);
        if (str(row, "runtime"))
            x(f, str(row, "runtime"));
        else
            fputs("<span class=\"muted\">-</span>", f);
        fputs("</td><td class=\"c-level\" data-label=\"Evidence\">", f);
        if (str(row, "evidenceLevel")) {
            fputs("<span class=\"level ", f);
            fputs(strcmp(str(row, "evidenceLevel"), "engine") == 0 ? "engine" : "deep", f);
            fputs("\" title=\"engine: the engine's word only; engine+kernel, engine+runtime: read "
                  "from the kernel or the runtime too\">",
                  f);
            x(f, str(row, "evidenceLevel"));
            fputs("</span>", f);
        } else {
            fputs("<span class=\"muted\">no certificate</span>", f);
        }
        fputs("</td><td class=\"c-engine\" data-label=\"Engine\">", f);
        if (str(row, "engineName")) {
            fputs("<span title=\"", f);
            x(f, str(row, "engine"));
            fputs("\">", f);
            x(f, str(row, "engineName"));
            fputs("</span>", f);
        } else {
            html_code_short(f, str(row, "engine"));
        }
        fputs("</td><td class=\"time\" data-label=\"Started\">", f);
        x(f, str(row, "startedAt") ? str(row, "startedAt") : "-");
        fputs("</td><td class=\"c-state\" data-label=\"State\">", f);
        if (str(row, "state"))
            x(f, str(row, "state"));
        else
            fputs(strcmp(v, "missing") == 0 ? "never seen" : "removed", f);
        fputs("</td><td class=\"c-cert\" data-label=\"Certificate\">", f);
        html_code_short(f, str(row, "certificateId"));
        if (json_array_size(json_object_get(row, "signers"))) {
            fputs("<br><span class=\"muted\">signed by</span> ", f);
            html_keyids(f, json_object_get(row, "signers"));
        }
        if (json_array_size(json_object_get(row, "duplicates"))) {
            fputs("<br><span class=\"muted\" title=\"", f);
            json_array_foreach(json_object_get(row, "duplicates"), j, fl)
            {
                if (j)
                    fputc(' ', f);
                x(f, json_string_value(fl));
            }
            fprintf(f, "\">+%zu more</span>", json_array_size(json_object_get(row, "duplicates")));
        }
        fputs("</td><td class=\"c-flags\" data-label=\"Flags\">", f);
        json_array_foreach(json_object_get(row, "flags"), j, fl)
        {
            fputs("<span class=\"flag ", f);
            x(f, json_string_value(fl));
            fputs("\">", f);
            x(f, json_string_value(fl));
            fputs("</span>", f);
        }
        if (!json_array_size(json_object_get(row, "flags")))
            fputs("<span class=\"muted\">none</span>", f);
        fputs("</td><td class=\"findings\" data-label=\"Failed findings\">", f);
        html_findings(f, json_object_get(row, "findings"));
        fputs("</td></tr>\n", f);
    }
    free(order);
    fputs("</tbody>\n</table>\n", f);

    if (json_array_size(json_object_get(doc, "certificates"))) {
        fputs("<h2>Certificates that match no session</h2>\n<table id=\"certificates\" "
              "class=\"rows\">\n<thead><tr><th>Status</th><th>File</th><th>Certificate</th>"
              "<th>Session</th><th>Failed findings</th></tr></thead>\n<tbody>\n",
              f);
        json_array_foreach(json_object_get(doc, "certificates"), i, row)
        {
            const json_t *ss = json_object_get(row, "session");
            fputs("<tr class=\"certificate\"><td data-label=\"Status\"><span class=\"badge ", f);
            x(f, str(row, "status"));
            fputs("\">", f);
            x(f, str(row, "status"));
            fputs("</span></td><td class=\"wide\" data-label=\"File\"><code>", f);
            char *file = file_of(row, "file");
            x(f, file ? file : "?");
            free(file);
            fputs("</code></td><td data-label=\"Certificate\">", f);
            html_code_short(f, str(row, "certificateId"));
            fputs("</td><td data-label=\"Session\">", f);
            if (json_is_object(ss)) {
                x(f, str(ss, "name") ? str(ss, "name") : "?");
                fputs(" ", f);
                html_code_short(f, str(ss, "containerId"));
            } else {
                fputs("<span class=\"muted\">not shown: did not verify</span>", f);
            }
            fputs("</td><td class=\"findings\" data-label=\"Failed findings\">", f);
            html_findings(f, json_object_get(row, "findings"));
            fputs("</td></tr>\n", f);
        }
        fputs("</tbody>\n</table>\n", f);
    }
    if (json_array_size(json_object_get(doc, "orphans"))) {
        fputs("<h2>Orphans: runtime tasks no engine knows</h2>\n<table id=\"orphans\" "
              "class=\"rows\">\n<thead><tr><th></th><th>Task</th><th>PID</th><th>Folder</th>"
              "</tr></thead>\n<tbody>\n",
              f);
        json_array_foreach(json_object_get(doc, "orphans"), i, row)
        {
            fputs("<tr class=\"orphan\"><td><span class=\"badge orphan\">orphan</span></td>"
                  "<td data-label=\"Task\"><code>",
                  f);
            x(f, str(row, "id"));
            fputs("</code></td><td data-label=\"PID\">", f);
            if (json_is_integer(json_object_get(row, "pid")))
                fprintf(f, "%lld", num(row, "pid"));
            else
                fputs("-", f);
            fputs("</td><td data-label=\"Folder\"><code>", f);
            x(f, str(row, "folder"));
            fputs("</code></td></tr>\n", f);
        }
        fputs("</tbody>\n</table>\n", f);
    }
    fputs("<h2>Engines</h2>\n<table id=\"engines\" class=\"rows\">\n<thead><tr><th>Host</th>"
          "<th>Endpoint</th><th>Engine ID</th><th>Status</th></tr></thead>\n<tbody>\n",
          f);
    json_array_foreach(json_object_get(doc, "engines"), i, row)
    {
        fputs("<tr class=\"engine\"><td data-label=\"Host\">", f);
        if (str(row, "name"))
            x(f, str(row, "name"));
        else
            fputs("<span class=\"muted\">-</span>", f);
        fputs("</td><td data-label=\"Endpoint\"><code>", f);
        x(f, str(row, "endpoint"));
        fputs("</code></td><td class=\"wide\" data-label=\"Engine ID\">", f);
        if (str(row, "id")) {
            fputs("<code>", f);
            x(f, str(row, "id"));
            fputs("</code>", f);
        } else {
            fputs("<span class=\"muted\">-</span>", f);
        }
        fputs("</td><td data-label=\"Status\">", f);
        if (!json_is_true(json_object_get(row, "reachable")) ||
            json_is_true(json_object_get(row, "lost"))) {
            fputs(json_is_true(json_object_get(row, "reachable")) ? "lost: " : "unreachable: ", f);
            x(f, str(row, "error") ? str(row, "error") : "");
        } else if (str(row, "sameAs")) {
            fputs("the same engine as <code>", f);
            x(f, str(row, "sameAs"));
            fputs("</code>", f);
        } else if (str(row, "conflictWith")) {
            fputs("conflict: the engine ID of <code>", f);
            x(f, str(row, "conflictWith"));
            fputs("</code>, other containers or starts (audited as another engine)", f);
        } else {
            fputs("audited", f);
        }
        fputs("</td></tr>\n", f);
    }
    fputs("</tbody>\n</table>\n", f);
    fputs("<footer>Generated by boxcert " BOXCERT_VERSION
          " (boxcert audit). Verdicts: compliant, noncompliant (failed findings), unattested "
          "(no verified certificate for the session's start), missing (expected, never seen, no "
          "certificate), unreachable (its engine could not be reached); a compliant session "
          "can be a violation all the same (left over on its engine after the run). Flags: late "
          "(certificate issued after certificate.maxCollectionDelay), leftover (still on its "
          "engine after the run), duplicate (several certificates for one start). Evidence: "
          "engine (the engine's word only), engine+kernel, engine+runtime (read from the "
          "kernel or the runtime too). Severity: 0 to 10, as code scanning reads it.</footer>\n",
          f);
    fprintf(f, "<script>%s</script>\n</body>\n</html>\n", html_script);
    return 0;
}

int audit_render(FILE *f, const json_t *doc, audit_format fmt, int colour)
{
    switch (fmt) {
    case AUDIT_TEXT:
        text_render(f, doc, colour);
        break;
    case AUDIT_JSON: {
        char *s = json_dumps(doc, JSON_COMPACT);
        if (!s)
            return -1;
        fprintf(f, "%s\n", s);
        free(s);
        break;
    }
    case AUDIT_JUNIT:
        junit_render(f, doc);
        break;
    case AUDIT_SARIF:
        if (sarif_render(f, doc) != 0)
            return -1;
        break;
    case AUDIT_GITHUB:
        github_render(f, doc);
        break;
    case AUDIT_HTML:
        if (html_render(f, doc) != 0)
            return -1;
        break;
    }
    return ferror(f) ? -1 : 0;
}

#else
typedef int audit_report_not_built; /* an empty file is not C */
#endif
