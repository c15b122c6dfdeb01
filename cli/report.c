/* SPDX-License-Identifier: Apache-2.0 */
/* Reports of verification results (report.h). Every result, every skipped input and every
 * expected session is carried by every format, whatever bytes its names hold: strings from a
 * certificate or a folder are written with the one reversible escaping (bx_escape; docs/ci.md,
 * "Encodings"), then escaped for the format they land in. */
#include "report.h"
#include "rules.h"

#include <string.h>

/* GitHub refuses a step summary over 1 MiB: the Markdown report stops its rows short of it,
 * and says how many it left out. */
#define MD_ROWS_MAX (900u * 1024)

struct report {
    report_format fmt;
    FILE *f;
    FILE *spool; /* junit test cases; markdown rows */
    const char *tool;
    char policy_sha[65];
    json_t *policy; /* the policy's identity (bx_policy_identity) */
    int colour;
    int oom; /* something could not be written whole: report_close fails */
    size_t n, failed, cases, case_failures, nskipped;
    json_t *rules;   /* sarif: rule ids seen */
    json_t *inputs;  /* sarif: every result, as run.properties.inputs */
    json_t *skipped; /* json: [{file, reason}]; sarif: notifications */
    json_t *rows;    /* the expected sessions' rows (report_rows), or NULL */
    size_t rows_failed;
    char verified_at[21]; /* report_set_time */
    size_t md_rows, md_left_out;
    int started; /* report_start done */
};

int report_parse_format(const char *s, report_format *out)
{
    static const char *const names[] = {"text", "json", "junit", "sarif", "github", "markdown"};
    for (size_t i = 0; i < sizeof names / sizeof *names; i++)
        if (strcmp(s, names[i]) == 0) {
            *out = (report_format)i;
            return 0;
        }
    return -1;
}

size_t report_failed(const report *r)
{
    return r->failed + r->rows_failed;
}

size_t report_count(const report *r)
{
    return r->n;
}

/* ---- escaping ------------------------------------------------------------------ */

/* XML text or an attribute: the human escaping first (when human), so what XML 1.0 cannot
 * carry (C0 controls, U+FFFE, U+FFFF) and what would not show (bidirectional controls) become
 * \xNN or \u{XXXX}; then & < > " ' as entities. */
static void xml_put(FILE *f, const char *s, int human)
{
    size_t n = strlen(s ? s : ""), step;
    char esc[12];
    for (size_t i = 0; i < n; i += step) {
        if (bx_escape_char(s + i, n - i, BX_ESC_HUMAN, esc, &step) && human) {
            fputs(esc, f);
            continue;
        }
        switch (s[i]) {
        case '&': fputs("&amp;", f); break;
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '"': fputs("&quot;", f); break;
        case '\'': fputs("&apos;", f); break;
        default: fwrite(s + i, 1, step, f);
        }
    }
}

/* A workflow command's data (or, with property, a property's value): the human escaping
 * first (when human), so no CR, LF or other control reaches it raw, then its own escaping of %
 * (and of : , in properties): GitHub decodes only that, never into a command of its own. */
static void gh_put(FILE *f, const char *s, int property, int human)
{
    size_t n = strlen(s ? s : ""), step;
    char esc[12];
    for (size_t i = 0; i < n; i += step) {
        if (bx_escape_char(s + i, n - i, BX_ESC_HUMAN, esc, &step) && human)
            fputs(esc, f);
        else if (s[i] == '%')
            fputs("%25", f);
        else if (property && s[i] == ':')
            fputs("%3A", f);
        else if (property && s[i] == ',')
            fputs("%2C", f);
        else
            fwrite(s + i, 1, step, f);
    }
}

void report_xml_put(FILE *f, const char *s)
{
    xml_put(f, s, 1);
}

void report_xml_put_json(FILE *f, const char *ascii_json)
{
    xml_put(f, ascii_json, 0);
}

void report_gh_put(FILE *f, const char *s, int property)
{
    gh_put(f, s, property, 1);
}

void report_gh_put_json(FILE *f, const char *ascii_json)
{
    gh_put(f, ascii_json, 0, 0);
}

char *report_json_ascii(const json_t *v)
{
    char *s = json_dumps(v ? v : json_null(), JSON_ENCODE_ANY | JSON_COMPACT | JSON_ENSURE_ASCII);
    return s ? s : strdup("null");
}

/* Markdown (GitHub's, in a table cell, never in a code span): the human escaping first, then
 * every character that Markdown or HTML reads inline (and a backslash, so the escapes read as
 * written) as an entity: a name can neither end a cell nor start a link, an emphasis, a code
 * span or a tag. Nor an autolink (GFM's extended ones: http://, https://, ftp://, www.,
 * mailto:, xmpp: and bare e-mail addresses): ':' and '.' are entities too, which GFM's
 * autolinker never reads as the characters they stand for, and '@' is preceded by a
 * zero-width space (U+200B), since GitHub links an e-mail address in text however its '@'
 * was written. */
static void md_put(FILE *f, const char *s)
{
    size_t n = strlen(s ? s : ""), step;
    char esc[12];
    for (size_t i = 0; i < n; i += step) {
        const char *c = s + i;
        size_t k = 1;
        if (bx_escape_char(s + i, n - i, BX_ESC_HUMAN, esc, &step)) {
            c = esc;
            k = strlen(esc);
        } else if (step > 1) {
            fwrite(s + i, 1, step, f);
            continue;
        }
        for (size_t j = 0; j < k; j++) {
            if (c[j] == '@')
                fputs("&#8203;", f);
            if (strchr("&<>|\\`*_[]~:.@", c[j]) && c[j])
                fprintf(f, "&#%d;", (unsigned char)c[j]);
            else
                fputc(c[j], f);
        }
    }
}

static void put_time_line(report *r)
{
    const char *name = json_string_value(json_object_get(r->policy, "name"));
    fprintf(r->f, "%s %s; policy ", cli_prog, BOXCERT_VERSION);
    cli_put_field(r->f, name ? name : "?");
    fprintf(r->f, " sha256:%s; verified at %s\n", r->policy_sha, r->verified_at);
}

/* " signers=ID,ID" of the keyids (hex, checked) that signed, nothing when none did. */
static void put_signers(FILE *f, const char *lead, const json_t *signers)
{
    size_t i, k = 0;
    json_t *x;
    json_array_foreach(signers, i, x) {
        const char *id = json_string_value(x);
        if (id && bx_is_lower_hex(id, strlen(id)))
            fprintf(f, "%s%s", k++ ? "," : lead, id);
    }
}

static int failed_status(const json_t *finding)
{
    return bx_finding_failing(finding);
}

static char *display_name(const char *file, size_t line)
{
    char *s = NULL;
    int n = line ? asprintf(&s, "%s:%zu", file, line) : asprintf(&s, "%s", file);
    return n < 0 ? NULL : s;
}

/* A JSON string of a name from a folder: the byte escaping, so that one that is not UTF-8
 * is carried too (and read back with bx_unescape). NULL only when out of memory. */
static json_t *name_json(const char *s)
{
    char *e = bx_escape(s, BX_ESC_BYTES);
    json_t *j = e ? json_string(e) : NULL;
    free(e);
    return j;
}

static void put_json_doc(report *r, FILE *f, json_t *o, const char *sep)
{
    char *s = o ? json_dumps(o, JSON_COMPACT) : NULL;
    if (!s) { /* never a null in place of a result: the report is not whole */
        r->oom = 1;
        return;
    }
    fprintf(f, "%s%s", sep, s);
    free(s);
}

static const char *str(const json_t *o, const char *k)
{
    return json_string_value(json_object_get(o, k));
}

/* ---- per format ---------------------------------------------------------------- */

static void text_result(report *r, const char *name, const bx_verify_result *res)
{
    const char *on = "", *off = "";
    if (r->colour) {
        on = res->pass ? "\033[32m" : "\033[31m";
        off = "\033[0m";
    }
    fprintf(r->f, "%s%s%s ", on, res->pass ? "PASS" : "FAIL", off);
    cli_put_field(r->f, name);
    if (res->certificate_id[0])
        fprintf(r->f, " %.12s", res->certificate_id);
    if (res->statement) {
        json_t *pred = json_object_get(res->statement, "predicate");
        const char *sn = str(json_object_get(pred, "session"), "name");
        const char *img = str(json_object_get(pred, "image"), "id");
        fputs(" session=", r->f);
        cli_put_field(r->f, sn ? sn : "?");
        fputs(" image=", r->f);
        cli_put_field(r->f, img ? img : "?");
    }
    put_signers(r->f, " signers=", res->signers);
    fputc('\n', r->f);
    if (!res->pass) /* a result passes when none of its findings failed */
        cli_print_failed_findings(r->f, name, res);
}

static void json_result(report *r, const char *name, const bx_verify_result *res)
{
    json_t *session = json_null(), *image = json_null();
    if (res->statement) {
        json_t *pred = json_object_get(res->statement, "predicate");
        json_t *s = json_object_get(pred, "session");
        session = json_pack("{s:O?, s:O?}", "containerId", json_object_get(s, "containerId"),
                            "name", json_object_get(s, "name"));
        json_t *img = json_object_get(json_object_get(pred, "image"), "id");
        image = img ? json_incref(img) : json_null();
    }
    json_t *o = json_pack("{s:o, s:s?, s:s, s:o, s:o, s:O, s:O}", "file", name_json(name),
                          "certificateId", res->certificate_id[0] ? res->certificate_id : NULL,
                          "verdict", res->pass ? "pass" : "fail", "session",
                          session ? session : json_null(), "image", image, "findings",
                          res->findings, "signers", res->signers ? res->signers : json_null());
    if (o && res->lacks[0]) {
        json_t *members = json_array();
        char buf[sizeof res->lacks], *save = NULL;
        snprintf(buf, sizeof buf, "%s", res->lacks);
        for (char *m = strtok_r(buf, ", ", &save); members && m; m = strtok_r(NULL, ", ", &save))
            json_array_append_new(members, json_string(m));
        json_object_set_new(o, "lacks",
                            json_pack("{s:i,s:o}", "predicateVersion", (int)res->lacks_version,
                                      "members", members ? members : json_array()));
    }
    put_json_doc(r, r->f, o, r->n > 1 ? "," : "");
    json_decref(o);
}

/* The keyids that signed, as a test case's output. */
static void junit_signers(report *r, const json_t *signers)
{
    if (!json_array_size(signers))
        return;
    fputs("      <system-out>", r->spool);
    put_signers(r->spool, "signers=", signers);
    fputs("</system-out>\n", r->spool);
}

static void junit_case(report *r, const char *classname, const char *id, const char *name,
                       const json_t *finding, const json_t *signers)
{
    int failed = finding && failed_status(finding);
    r->cases++;
    r->case_failures += failed;
    fputs("    <testcase classname=\"", r->spool);
    report_xml_put(r->spool, classname);
    if (id && id[0])
        fprintf(r->spool, " %.12s", id);
    fputs("\" name=\"", r->spool);
    report_xml_put(r->spool, name);
    if (!failed) {
        if (!json_array_size(signers)) {
            fputs("\"/>\n", r->spool);
            return;
        }
        fputs("\">\n", r->spool);
        junit_signers(r, signers);
        fputs("    </testcase>\n", r->spool);
        return;
    }
    char *exp = report_json_ascii(json_object_get(finding, "expected"));
    char *obs = report_json_ascii(json_object_get(finding, "observed"));
    fputs("\">\n      <failure type=\"", r->spool);
    report_xml_put(r->spool, str(finding, "status"));
    fputs("\" message=\"", r->spool);
    report_xml_put(r->spool, str(finding, "message"));
    fputs("\">expected ", r->spool);
    report_xml_put_json(r->spool, exp);
    fputs(", observed ", r->spool);
    report_xml_put_json(r->spool, obs);
    fputs("</failure>\n", r->spool);
    junit_signers(r, signers);
    fputs("    </testcase>\n", r->spool);
    free(exp);
    free(obs);
}

static void junit_result(report *r, const char *name, const bx_verify_result *res)
{
    size_t i;
    json_t *x;
    /* the signers with the result's first case */
    json_array_foreach(res->findings, i, x)
        junit_case(r, name, res->certificate_id, str(x, "rule"), x, i ? NULL : res->signers);
    if (json_array_size(res->findings) == 0) /* never a result without a test case */
        junit_case(r, name, res->certificate_id, "verdict", NULL, res->signers);
}

/* A row of the step summary: verdict, file, session, certificate, failed findings. */
static void md_row(report *r, const char *verdict, const char *file, const char *session,
                   const char *cert_id, const json_t *findings)
{
    size_t i, k = 0;
    json_t *x;
    if (ftell(r->spool) > (long)MD_ROWS_MAX) {
        r->md_left_out++;
        return;
    }
    r->md_rows++;
    fprintf(r->spool, "| **%s** | ", verdict);
    if (file)
        md_put(r->spool, file);
    fputs(" | ", r->spool);
    md_put(r->spool, session ? session : "");
    fputs(" | ", r->spool);
    if (cert_id && cert_id[0] && bx_is_lower_hex(cert_id, strlen(cert_id)))
        fprintf(r->spool, "<code>%.12s</code>", cert_id);
    fputs(" | ", r->spool);
    json_array_foreach(findings, i, x) {
        if (!failed_status(x))
            continue;
        fprintf(r->spool, "%s<code>", k++ ? "<br>" : "");
        md_put(r->spool, str(x, "rule"));
        fputs("</code> ", r->spool);
        md_put(r->spool, str(x, "message"));
    }
    fputs(" |\n", r->spool);
}

static void markdown_result(report *r, const char *name, const bx_verify_result *res)
{
    if (res->pass)
        return;
    const char *sn = NULL;
    if (res->statement)
        sn = str(json_object_get(json_object_get(res->statement, "predicate"), "session"), "name");
    md_row(r, "FAIL", name, sn, res->certificate_id, res->findings);
}

/* A SARIF location of a file (its URI: RFC 3986 percent-encoding, so any name is carried and
 * read back by percent-decoding) and a line of a bundle. */
static json_t *sarif_file_location(report *r, const char *file, size_t line)
{
    char *uri = bx_uri_path(file);
    json_t *loc = uri ? json_pack("{s:{s:s}}", "artifactLocation", "uri", uri) : NULL;
    free(uri);
    if (loc && line)
        json_object_set_new(loc, "region", json_pack("{s:I}", "startLine", (json_int_t)line));
    if (!loc)
        r->oom = 1;
    return loc;
}

/* partialFingerprints: the same rule failing for the same file, line and session is the same
 * finding across runs (the certificate's id changes with every collection). */
json_t *report_sarif_fingerprint(const char *rule, const char *place, size_t line,
                                 const char *session)
{
    char *s = NULL, hex[65];
    if (asprintf(&s, "%s\n%s\n%zu\n%s", rule ? rule : "", place ? place : "", line,
                 session ? session : "") < 0)
        return NULL;
    bx_sha256_hex(s, strlen(s), hex);
    free(s);
    hex[32] = '\0';
    return json_pack("{s:s}", "boxcertFinding/v1", hex);
}

static void sarif_result(report *r, const char *file, size_t line, const bx_verify_result *res)
{
    const char *sn = NULL;
    if (res->statement)
        sn = str(json_object_get(json_object_get(res->statement, "predicate"), "session"), "name");
    size_t i;
    json_t *x;
    char *uri = bx_uri_path(file);
    /* SARIF's results are the failed findings; every result, passing ones too, is an input */
    json_t *in =
        uri ? json_pack("{s:s, s:I, s:s, s:s?, s:O?}", "uri", uri, "line", (json_int_t)line,
                        "verdict", res->pass ? "pass" : "fail", "certificateId",
                        res->certificate_id[0] ? res->certificate_id : NULL, "signers",
                        res->signers)
            : NULL;
    free(uri);
    if (!in || json_array_append_new(r->inputs, in) != 0)
        r->oom = 1;
    json_array_foreach(res->findings, i, x) {
        if (!failed_status(x))
            continue;
        const char *rule = str(x, "rule");
        json_object_set_new(r->rules, rule ? rule : "?", json_true());
        json_t *o =
            json_pack("{s:s, s:s, s:{s:s}, s:[{s:o}], s:o, s:{s:s?, s:O, s:O, s:O, s:O?}}",
                      "ruleId", rule ? rule : "?", "level", "error", "message", "text",
                      str(x, "message") ? str(x, "message") : "", "locations", "physicalLocation",
                      sarif_file_location(r, file, line), "partialFingerprints",
                      report_sarif_fingerprint(rule, file, line, sn), "properties", "certificateId",
                      res->certificate_id[0] ? res->certificate_id : NULL, "status",
                      json_object_get(x, "status"), "expected", json_object_get(x, "expected"),
                      "observed", json_object_get(x, "observed"), "signers", res->signers);
        put_json_doc(r, r->f, o, r->cases++ ? "," : "");
        json_decref(o);
    }
}

static void github_result(report *r, const char *file, size_t line, const bx_verify_result *res)
{
    size_t i;
    json_t *x;
    if (res->pass) { /* a plain line, never a command: the human escaping only */
        fputs("PASS ", r->f);
        cli_put_safe(r->f, file);
        if (line)
            fprintf(r->f, ":%zu", line);
        fputc('\n', r->f);
        return;
    }
    json_array_foreach(res->findings, i, x) {
        if (!failed_status(x))
            continue;
        char *exp = report_json_ascii(json_object_get(x, "expected"));
        char *obs = report_json_ascii(json_object_get(x, "observed"));
        fputs("::error file=", r->f);
        gh_put(r->f, file, 1, 1);
        if (line)
            fprintf(r->f, ",line=%zu", line);
        fputs(",title=", r->f);
        gh_put(r->f, str(x, "rule"), 1, 1);
        fputs("::", r->f);
        gh_put(r->f, str(x, "message"), 0, 1);
        fputs(" (expected ", r->f);
        report_gh_put_json(r->f, exp);
        fputs(", observed ", r->f);
        report_gh_put_json(r->f, obs);
        fputs(")\n", r->f);
        free(exp);
        free(obs);
    }
}

json_t *report_sarif_rule(const char *id)
{
    const rule_doc *d = rule_doc_of(id);
    char *md = NULL;
    if (asprintf(&md, "**%s**\n\n%s\n\n%s", d->name, d->full, d->help) < 0)
        return NULL;
    json_t *o = json_pack("{s:s, s:{s:s}, s:{s:s}, s:{s:s, s:s}, s:{s:s}, s:{s:s, s:s, s:[s, s]}}",
                          "id", id, "shortDescription", "text", d->name, "fullDescription",
                          "text", d->full, "help", "text", d->help, "markdown", md,
                          "defaultConfiguration", "level", "error", "properties",
                          "security-severity", d->severity, "precision", "very-high", "tags",
                          "security", strncmp(id, "cis.", 4) == 0 ? "cis-docker" : "containment");
    free(md);
    return o;
}

/* ---- open, result, skipped, rows, close ------------------------------------------ */

int report_open(report **out, report_format fmt, FILE *f, const char *tool, const json_t *policy,
                int colour)
{
    report *r = calloc(1, sizeof *r);
    const char *policy_sha = json_string_value(json_object_get(policy, "sha256"));
    if (!r)
        return -1;
    r->policy = policy ? json_incref((json_t *)policy) : json_object();
    r->fmt = fmt;
    r->f = f;
    r->tool = tool;
    r->colour = colour && fmt == FMT_TEXT;
    snprintf(r->policy_sha, sizeof r->policy_sha, "%s", policy_sha ? policy_sha : "");
    bx_time_format((int64_t)time(NULL), r->verified_at);
    if (!r->policy || !(r->skipped = json_array()) ||
        ((fmt == FMT_JUNIT || fmt == FMT_MARKDOWN) && !(r->spool = tmpfile())) ||
        (fmt == FMT_SARIF && (!(r->rules = json_object()) || !(r->inputs = json_array())))) {
        json_decref(r->rules);
        json_decref(r->policy);
        json_decref(r->skipped);
        if (r->spool)
            fclose(r->spool);
        free(r);
        return -1;
    }
    *out = r;
    return 0;
}

/* What a format writes before the first result (the time is known by then). */
static void report_start(report *r)
{
    FILE *f = r->f;
    if (r->started)
        return;
    r->started = 1;
    if (r->fmt == FMT_JSON) {
        char *pol = json_dumps(r->policy, JSON_COMPACT);
        fprintf(f,
                "{\"version\":1,\"tool\":{\"name\":\"%s\",\"version\":\"%s\"},"
                "\"verifiedAt\":\"%s\",\"policy\":%s,\"results\":[",
                cli_prog, BOXCERT_VERSION, r->verified_at, pol ? pol : "{}");
        if (!pol)
            r->oom = 1;
        free(pol);
    }
    else if (r->fmt == FMT_SARIF)
        fputs("{\"$schema\":\"https://json.schemastore.org/sarif-2.1.0.json\",\"version\":\"2.1.0\","
              "\"runs\":[{\"results\":[",
              f);
}

void report_set_time(report *r, int64_t verified_at)
{
    bx_time_format(verified_at, r->verified_at);
}

void report_result(report *r, const char *file, size_t line, const bx_verify_result *res)
{
    report_start(r);
    char *name = display_name(file, line);
    if (!name)
        r->oom = 1;
    r->n++;
    r->failed += !res->pass;
    int quiet = cli_quiet && res->pass && (r->fmt == FMT_TEXT || r->fmt == FMT_GITHUB);
    switch (quiet ? -1 : (int)r->fmt) {
    case FMT_TEXT: text_result(r, name ? name : file, res); break;
    case FMT_JSON: json_result(r, name ? name : file, res); break;
    case FMT_JUNIT: junit_result(r, name ? name : file, res); break;
    case FMT_SARIF: sarif_result(r, file, line, res); break;
    case FMT_GITHUB: github_result(r, file, line, res); break;
    case FMT_MARKDOWN: markdown_result(r, name ? name : file, res); break;
    }
    free(name);
}

void report_skipped(report *r, const char *file, const char *why)
{
    report_start(r);
    r->nskipped++;
    switch (cli_quiet && (r->fmt == FMT_TEXT || r->fmt == FMT_GITHUB) ? -1 : (int)r->fmt) {
    case FMT_TEXT:
        fputs("SKIP ", r->f);
        cli_put_field(r->f, file);
        fputs(": ", r->f);
        cli_put_safe(r->f, why);
        fputc('\n', r->f);
        break;
    case FMT_GITHUB:
        fputs("::notice file=", r->f);
        gh_put(r->f, file, 1, 1);
        fputs(",title=skipped::", r->f);
        gh_put(r->f, why, 0, 1);
        fputc('\n', r->f);
        break;
    case FMT_JUNIT:
        r->cases++;
        fputs("    <testcase classname=\"", r->spool);
        report_xml_put(r->spool, file);
        fputs("\" name=\"skipped\">\n      <skipped message=\"", r->spool);
        report_xml_put(r->spool, why);
        fputs("\"/>\n    </testcase>\n", r->spool);
        break;
    case FMT_JSON: {
        json_t *o = json_pack("{s:o, s:s}", "file", name_json(file), "reason", why);
        if (!o || json_array_append_new(r->skipped, o) != 0)
            r->oom = 1;
        break;
    }
    case FMT_SARIF: {
        json_t *o = json_pack("{s:s, s:{s:s}, s:[{s:o}]}", "level", "note", "message", "text", why,
                              "locations", "physicalLocation",
                              sarif_file_location(r, file, 0));
        if (!o || json_array_append_new(r->skipped, o) != 0)
            r->oom = 1;
        break;
    }
    }
}

/* ---- expected sessions -------------------------------------------------------- */

static const char *row_label(const json_t *row, char buf[16])
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

static int row_fails(const json_t *row)
{
    return strcmp(str(row, "verdict"), "compliant") != 0;
}

static void text_row(report *r, const json_t *row)
{
    const char *v = str(row, "verdict");
    char up[16], buf[16];
    size_t k, i;
    json_t *x;
    for (k = 0; v[k] && k < sizeof up - 1; k++)
        up[k] = (char)(v[k] - 32 * (v[k] >= 'a' && v[k] <= 'z'));
    up[k] = '\0';
    if (r->colour)
        fputs(row_fails(row) ? "\033[31m" : "\033[32m", r->f);
    fprintf(r->f, "%-12s", up);
    if (r->colour)
        fputs("\033[0m", r->f);
    fputc(' ', r->f);
    cli_put_field(r->f, row_label(row, buf));
    if (str(row, "containerId") && str(row, "name"))
        fprintf(r->f, " %.12s", str(row, "containerId"));
    if (str(row, "certificateId"))
        fprintf(r->f, " cert %.12s", str(row, "certificateId"));
    json_array_foreach(json_object_get(row, "flags"), i, x)
        fprintf(r->f, " [%s]", json_string_value(x));
    put_signers(r->f, " signers=", json_object_get(row, "signers"));
    fputc('\n', r->f);
    json_array_foreach(json_object_get(row, "findings"), i, x) {
        if (!failed_status(x))
            continue;
        char *exp = report_json_ascii(json_object_get(x, "expected"));
        char *obs = report_json_ascii(json_object_get(x, "observed"));
        fprintf(r->f, "    %s ", str(x, "status"));
        cli_put_safe(r->f, str(x, "rule"));
        fputs(": ", r->f);
        cli_put_safe(r->f, str(x, "message"));
        fprintf(r->f, " (expected %s, observed %s)\n", exp, obs);
        free(exp);
        free(obs);
    }
}

static void sarif_row(report *r, const json_t *row)
{
    size_t i;
    json_t *x;
    char buf[16];
    const char *id = str(row, "containerId");
    json_array_foreach(json_object_get(row, "findings"), i, x) {
        if (!failed_status(x))
            continue;
        char *msg = NULL;
        const char *rule = str(x, "rule");
        if (asprintf(&msg, "session %s: %s", row_label(row, buf), str(x, "message")) < 0) {
            r->oom = 1;
            return;
        }
        json_object_set_new(r->rules, rule, json_true());
        json_t *loc = json_pack("{s:[{s:s, s:s*, s:s}]}", "logicalLocations", "fullyQualifiedName",
                                id ? id : row_label(row, buf), "name", str(row, "name"), "kind",
                                "resource");
        char *file = str(row, "certificate") ? bx_unescape(str(row, "certificate"), NULL) : NULL;
        char *uri = file ? bx_uri_path(file) : NULL;
        if (loc && uri)
            json_object_set_new(loc, "physicalLocation",
                                json_pack("{s:{s:s}}", "artifactLocation", "uri", uri));
        free(uri);
        free(file);
        json_t *o = json_pack("{s:s, s:s, s:{s:s}, s:[o], s:o, s:{s:O, s:O, s:O, s:O}}",
                              "ruleId", rule, "level", "error", "message", "text", msg,
                              "locations", loc, "partialFingerprints",
                              report_sarif_fingerprint(rule, "expected session", 0,
                                                id ? id : row_label(row, buf)),
                              "properties", "verdict", json_object_get(row, "verdict"),
                              "status", json_object_get(x, "status"), "expected",
                              json_object_get(x, "expected"), "observed",
                              json_object_get(x, "observed"));
        free(msg);
        put_json_doc(r, r->f, o, r->cases++ ? "," : "");
        json_decref(o);
    }
}

static void github_row(report *r, const json_t *row)
{
    size_t i;
    json_t *x;
    char buf[16];
    if (!row_fails(row)) {
        fputs("COMPLIANT ", r->f);
        cli_put_safe(r->f, row_label(row, buf));
        fputc('\n', r->f);
        return;
    }
    json_array_foreach(json_object_get(row, "findings"), i, x) {
        if (!failed_status(x))
            continue;
        fputs("::error title=", r->f);
        gh_put(r->f, str(x, "rule"), 1, 1);
        fputs("::session ", r->f);
        gh_put(r->f, row_label(row, buf), 0, 1);
        fputs(" is ", r->f);
        gh_put(r->f, str(row, "verdict"), 0, 1);
        fputs(": ", r->f);
        gh_put(r->f, str(x, "message"), 0, 1);
        fputc('\n', r->f);
    }
}

void report_rows(report *r, const json_t *rows)
{
    size_t i, k;
    json_t *row, *x;
    char buf[16];

    report_start(r);
    json_decref(r->rows);
    r->rows = json_incref((json_t *)rows);
    r->rows_failed = 0;
    json_array_foreach(rows, i, row) {
        r->rows_failed += row_fails(row);
        switch (cli_quiet && !row_fails(row) && (r->fmt == FMT_TEXT || r->fmt == FMT_GITHUB)
                    ? -1
                    : (int)r->fmt) {
        case FMT_TEXT: text_row(r, row); break;
        case FMT_GITHUB: github_row(r, row); break;
        case FMT_SARIF: sarif_row(r, row); break;
        case FMT_JUNIT: {
            char *cls = NULL;
            if (asprintf(&cls, "expected session %s", row_label(row, buf)) < 0) {
                r->oom = 1;
                break;
            }
            json_array_foreach(json_object_get(row, "findings"), k, x)
                junit_case(r, cls, str(row, "containerId"), str(x, "rule"), x,
                           k ? NULL : json_object_get(row, "signers"));
            free(cls);
            break;
        }
        case FMT_MARKDOWN:
            if (row_fails(row)) {
                char *file = str(row, "certificate") ? bx_unescape(str(row, "certificate"), NULL)
                                                      : NULL;
                char up[16];
                const char *v = str(row, "verdict");
                size_t j;
                for (j = 0; v[j] && j < sizeof up - 1; j++)
                    up[j] = (char)(v[j] - 32 * (v[j] >= 'a' && v[j] <= 'z'));
                up[j] = '\0';
                md_row(r, up, file, row_label(row, buf), str(row, "certificateId"),
                       json_object_get(row, "findings"));
                free(file);
            }
            break;
        case FMT_JSON: break; /* written whole at the end */
        }
    }
}

static int copy_spool(report *r)
{
    char buf[65536];
    size_t n;
    rewind(r->spool);
    while ((n = fread(buf, 1, sizeof buf, r->spool)) > 0)
        if (fwrite(buf, 1, n, r->f) != n)
            return -1;
    return ferror(r->spool) ? -1 : 0;
}

/* "; 4 expected sessions: 2 compliant, 1 noncompliant, 1 missing" */
static void rows_summary(report *r, int json)
{
    size_t i, c = 0, nc = 0, m = 0, n = json_array_size(r->rows);
    json_t *row;
    json_array_foreach(r->rows, i, row) {
        const char *v = str(row, "verdict");
        c += strcmp(v, "compliant") == 0;
        nc += strcmp(v, "noncompliant") == 0;
        m += strcmp(v, "missing") == 0;
    }
    if (json)
        fprintf(r->f, ",\"sessions\":{\"total\":%zu,\"compliant\":%zu,\"noncompliant\":%zu,"
                      "\"missing\":%zu}",
                n, c, nc, m);
    else
        fprintf(r->f, "; %zu expected session%s: %zu compliant, %zu noncompliant, %zu missing", n,
                n == 1 ? "" : "s", c, nc, m);
}

int report_close(report *r)
{
    int rc = 0;
    report_start(r);
    size_t passed = r->n - r->failed;
    switch (cli_quiet && (r->fmt == FMT_TEXT || r->fmt == FMT_GITHUB) ? -1 : (int)r->fmt) {
    case FMT_TEXT:
    case FMT_GITHUB:
        fprintf(r->f, "%zu certificate%s: %zu passed, %zu failed", r->n, r->n == 1 ? "" : "s",
                passed, r->failed);
        if (r->nskipped)
            fprintf(r->f, "; %zu skipped", r->nskipped);
        if (r->rows)
            rows_summary(r, 0);
        fputc('\n', r->f);
        put_time_line(r); /* in github, a plain line: it never starts with :: */
        break;
    case FMT_MARKDOWN: {
        const char *pname = json_string_value(json_object_get(r->policy, "name"));
        fprintf(r->f, "### boxcert %s: %s\n\n", r->tool, report_failed(r) ? "FAIL" : "PASS");
        fprintf(r->f, "%zu certificate%s: %zu passed, %zu failed", r->n, r->n == 1 ? "" : "s",
                passed, r->failed);
        if (r->nskipped)
            fprintf(r->f, "; %zu skipped", r->nskipped);
        if (r->rows)
            rows_summary(r, 0);
        fputs("\n\n", r->f);
        if (r->md_rows) {
            fputs("| verdict | file | session | certificate | failed findings |\n"
                  "|---|---|---|---|---|\n",
                  r->f);
            rc = copy_spool(r);
            fputc('\n', r->f);
        }
        if (r->md_left_out)
            fprintf(r->f,
                    "**%zu more failing row%s not shown**: a step summary is at most 1 MiB; the "
                    "SARIF, JUnit and JSON reports carry every one.\n\n",
                    r->md_left_out, r->md_left_out == 1 ? "" : "s");
        fprintf(r->f, "%s %s · policy <code>", cli_prog, BOXCERT_VERSION);
        md_put(r->f, pname ? pname : "?");
        fprintf(r->f, "</code> sha256 <code>%s</code> · verified at %s\n", r->policy_sha,
                r->verified_at);
        break;
    }
    case FMT_JSON:
        fputs("]", r->f);
        if (r->nskipped)
            put_json_doc(r, r->f, r->skipped, ",\"skipped\":");
        if (r->rows)
            put_json_doc(r, r->f, r->rows, ",\"sessions\":");
        fprintf(r->f, ",\"summary\":{\"total\":%zu,\"passed\":%zu,\"failed\":%zu", r->n, passed,
                r->failed);
        if (r->nskipped)
            fprintf(r->f, ",\"skipped\":%zu", r->nskipped);
        if (r->rows)
            rows_summary(r, 1);
        fputs("}}\n", r->f);
        break;
    case FMT_JUNIT:
        fprintf(r->f,
                "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
                "<testsuites name=\"boxcert %s\" tests=\"%zu\" failures=\"%zu\">\n"
                "  <testsuite name=\"boxcert %s\" tests=\"%zu\" failures=\"%zu\" errors=\"0\" "
                "skipped=\"%zu\" timestamp=\"%.19s\">\n"
                "    <properties>\n"
                "      <property name=\"tool\" value=\"%s %s\"/>\n"
                "      <property name=\"verifiedAt\" value=\"%s\"/>\n"
                "      <property name=\"policy\" value=\"",
                r->tool, r->cases, r->case_failures, r->tool, r->cases, r->case_failures,
                r->nskipped, r->verified_at, cli_prog, BOXCERT_VERSION, r->verified_at);
        report_xml_put(r->f, json_string_value(json_object_get(r->policy, "name")));
        fprintf(r->f,
                "\"/>\n"
                "      <property name=\"policySha256\" value=\"%s\"/>\n"
                "    </properties>\n",
                r->policy_sha);
        rc = copy_spool(r);
        fputs("  </testsuite>\n</testsuites>\n", r->f);
        break;
    case FMT_SARIF: {
        json_t *rules = json_array();
        const char *k;
        json_t *v;
        json_object_foreach(r->rules, k, v)
            if (json_array_append_new(rules, report_sarif_rule(k)) != 0)
                r->oom = 1;
        json_t *tool = json_pack("{s:{s:s, s:s, s:s, s:o}}", "driver", "name", "boxcert", "version",
                                 BOXCERT_VERSION, "semanticVersion", BOXCERT_VERSION, "rules",
                                 rules);
        const char *pname = json_string_value(json_object_get(r->policy, "name"));
        json_t *pn = json_string(pname ? pname : "");
        char *pq = pn ? json_dumps(pn, JSON_ENCODE_ANY) : NULL;
        fputs("],\"tool\":", r->f);
        put_json_doc(r, r->f, tool, "");
        json_t *inv = json_pack("[{s:b, s:s, s:O}]", "executionSuccessful", 1, "endTimeUtc",
                                r->verified_at, "toolExecutionNotifications", r->skipped);
        put_json_doc(r, r->f, inv, ",\"invocations\":");
        json_decref(inv);
        fprintf(r->f, ",\"properties\":{\"tool\":\"%s %s\",\"verifiedAt\":\"%s\","
                      "\"policy\":%s,\"policySha256\":\"%s\","
                      "\"total\":%zu,\"passed\":%zu,\"failed\":%zu,\"skipped\":%zu",
                cli_prog, BOXCERT_VERSION, r->verified_at, pq ? pq : "\"\"", r->policy_sha, r->n,
                passed, r->failed, r->nskipped);
        put_json_doc(r, r->f, r->inputs, ",\"inputs\":");
        if (r->rows)
            rows_summary(r, 1);
        fputs("}}]}\n", r->f);
        if (!pq)
            r->oom = 1;
        free(pq);
        json_decref(pn);
        json_decref(tool);
        break;
    }
    }
    if (ferror(r->f) || r->oom)
        rc = -1;
    if (r->spool)
        fclose(r->spool);
    json_decref(r->rules);
    json_decref(r->inputs);
    json_decref(r->skipped);
    json_decref(r->rows);
    json_decref(r->policy);
    free(r);
    return rc;
}
