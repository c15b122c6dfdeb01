/* SPDX-License-Identifier: Apache-2.0 */
#include "report.h"

#include <string.h>

struct report {
    report_format fmt;
    FILE *f;
    FILE *spool; /* junit test cases */
    const char *tool;
    char policy_sha[65];
    json_t *policy; /* the policy's identity (bx_policy_identity) */
    int colour;
    size_t n, failed, cases, case_failures;
    json_t *rules; /* sarif: rule ids seen */
};

int report_parse_format(const char *s, report_format *out)
{
    static const char *const names[] = {"text", "json", "junit", "sarif", "github"};
    for (size_t i = 0; i < sizeof names / sizeof *names; i++)
        if (strcmp(s, names[i]) == 0) {
            *out = (report_format)i;
            return 0;
        }
    return -1;
}

size_t report_failed(const report *r)
{
    return r->failed;
}

size_t report_count(const report *r)
{
    return r->n;
}

/* ---- escaping ------------------------------------------------------------------ */

void report_xml_put(FILE *f, const char *s)
{
    const unsigned char *p = (const unsigned char *)(s ? s : "");
    for (; *p; p++) {
        switch (*p) {
        case '&': fputs("&amp;", f); break;
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '"': fputs("&quot;", f); break;
        case '\'': fputs("&apos;", f); break;
        default:
            if ((*p < 0x20 && *p != '\t') || *p == 0x7f)
                fprintf(f, "\\x%02x", *p); /* not representable in XML 1.0 */
            else if (*p == 0xc2 && p[1] >= 0x80 && p[1] <= 0x9f)
                fprintf(f, "\\xc2\\x%02x", *++p);
            else
                fputc(*p, f);
        }
    }
}

/* GitHub workflow command escaping: data escapes % CR LF; properties also : and ,.
 * Other control characters are shown as \xNN so nothing reaches the log raw. */
void report_gh_put(FILE *f, const char *s, int property)
{
    const unsigned char *p = (const unsigned char *)(s ? s : "");
    for (; *p; p++) {
        if (*p == '%')
            fputs("%25", f);
        else if (*p == '\r')
            fputs("%0D", f);
        else if (*p == '\n')
            fputs("%0A", f);
        else if (property && *p == ':')
            fputs("%3A", f);
        else if (property && *p == ',')
            fputs("%2C", f);
        else if (*p < 0x20 || *p == 0x7f)
            fprintf(f, "\\x%02x", *p);
        else if (*p == 0xc2 && p[1] >= 0x80 && p[1] <= 0x9f)
            fprintf(f, "\\xc2\\x%02x", *++p);
        else
            fputc(*p, f);
    }
}

static char *compact(const json_t *v)
{
    char *s = json_dumps(v ? v : json_null(), JSON_ENCODE_ANY | JSON_COMPACT);
    return s ? s : strdup("null");
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

/* ---- per format ---------------------------------------------------------------- */

/* cli_put_safe, writing a string that needs no escaping in one call. */
static void put_safe(FILE *f, const char *s)
{
    for (const unsigned char *p = (const unsigned char *)s; *p; p++)
        if (*p < 0x20 || *p == 0x7f || *p == 0xc2) {
            cli_put_safe(f, s);
            return;
        }
    fputs(s, f);
}

static void text_result(report *r, const char *name, const bx_verify_result *res)
{
    const char *on = "", *off = "";
    if (r->colour) {
        on = res->pass ? "\033[32m" : "\033[31m";
        off = "\033[0m";
    }
    fprintf(r->f, "%s%s%s ", on, res->pass ? "PASS" : "FAIL", off);
    put_safe(r->f, name);
    if (res->certificate_id[0])
        fprintf(r->f, " %.12s", res->certificate_id);
    if (res->statement) {
        json_t *pred = json_object_get(res->statement, "predicate");
        const char *sn = json_string_value(json_object_get(json_object_get(pred, "session"), "name"));
        const char *img = json_string_value(json_object_get(json_object_get(pred, "image"), "id"));
        fputs(" session=", r->f);
        put_safe(r->f, sn ? sn : "?");
        fputs(" image=", r->f);
        put_safe(r->f, img ? img : "?");
    }
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
    json_t *o = json_pack("{s:s, s:s?, s:s, s:o, s:o, s:O}", "file", name, "certificateId",
                          res->certificate_id[0] ? res->certificate_id : NULL, "verdict",
                          res->pass ? "pass" : "fail", "session", session ? session : json_null(),
                          "image", image, "findings", res->findings);
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
    char *s = o ? json_dumps(o, JSON_COMPACT) : NULL;
    fprintf(r->f, "%s%s", r->n > 1 ? "," : "", s ? s : "null");
    free(s);
    json_decref(o);
}

static void junit_result(report *r, const char *name, const bx_verify_result *res)
{
    size_t i;
    json_t *x;
    json_array_foreach(res->findings, i, x) {
        int failed = failed_status(x);
        r->cases++;
        r->case_failures += failed;
        fputs("    <testcase classname=\"", r->spool);
        report_xml_put(r->spool, name);
        if (res->certificate_id[0])
            fprintf(r->spool, " %.12s", res->certificate_id);
        fputs("\" name=\"", r->spool);
        report_xml_put(r->spool, json_string_value(json_object_get(x, "rule")));
        if (!failed) {
            fputs("\"/>\n", r->spool);
            continue;
        }
        char *exp = compact(json_object_get(x, "expected"));
        char *obs = compact(json_object_get(x, "observed"));
        fputs("\">\n      <failure type=\"", r->spool);
        report_xml_put(r->spool, json_string_value(json_object_get(x, "status")));
        fputs("\" message=\"", r->spool);
        report_xml_put(r->spool, json_string_value(json_object_get(x, "message")));
        fputs("\">expected ", r->spool);
        report_xml_put(r->spool, exp);
        fputs(", observed ", r->spool);
        report_xml_put(r->spool, obs);
        fputs("</failure>\n    </testcase>\n", r->spool);
        free(exp);
        free(obs);
    }
}

static void sarif_result(report *r, const char *file, size_t line, const bx_verify_result *res)
{
    size_t i;
    json_t *x;
    json_array_foreach(res->findings, i, x) {
        if (!failed_status(x))
            continue;
        const char *rule = json_string_value(json_object_get(x, "rule"));
        json_object_set_new(r->rules, rule, json_true());
        json_t *loc = json_pack("{s:{s:s}}", "artifactLocation", "uri", file);
        if (line)
            json_object_set_new(loc, "region", json_pack("{s:I}", "startLine", (json_int_t)line));
        json_t *o = json_pack("{s:s, s:s, s:{s:s}, s:[{s:o}], s:{s:s?, s:O, s:O, s:O}}", "ruleId",
                              rule, "level", "error", "message", "text",
                              json_string_value(json_object_get(x, "message")), "locations",
                              "physicalLocation", loc, "properties", "certificateId",
                              res->certificate_id[0] ? res->certificate_id : NULL, "status",
                              json_object_get(x, "status"), "expected",
                              json_object_get(x, "expected"), "observed",
                              json_object_get(x, "observed"));
        char *s = o ? json_dumps(o, JSON_COMPACT) : NULL;
        fprintf(r->f, "%s%s", r->cases++ ? "," : "", s ? s : "null");
        free(s);
        json_decref(o);
    }
}

static void github_result(report *r, const char *file, size_t line, const bx_verify_result *res)
{
    size_t i;
    json_t *x;
    if (res->pass) {
        fputs("PASS ", r->f);
        report_gh_put(r->f, file, 0);
        if (line)
            fprintf(r->f, ":%zu", line);
        fputc('\n', r->f);
        return;
    }
    json_array_foreach(res->findings, i, x) {
        if (!failed_status(x))
            continue;
        char *exp = compact(json_object_get(x, "expected"));
        char *obs = compact(json_object_get(x, "observed"));
        fputs("::error file=", r->f);
        report_gh_put(r->f, file, 1);
        if (line)
            fprintf(r->f, ",line=%zu", line);
        fputs(",title=", r->f);
        report_gh_put(r->f, json_string_value(json_object_get(x, "rule")), 1);
        fputs("::", r->f);
        report_gh_put(r->f, json_string_value(json_object_get(x, "message")), 0);
        fputs(" (expected ", r->f);
        report_gh_put(r->f, exp, 0);
        fputs(", observed ", r->f);
        report_gh_put(r->f, obs, 0);
        fputs(")\n", r->f);
        free(exp);
        free(obs);
    }
}

/* ---- open, result, close ------------------------------------------------------- */

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
    if (!r->policy || (fmt == FMT_JUNIT && !(r->spool = tmpfile())) ||
        (fmt == FMT_SARIF && !(r->rules = json_object()))) {
        json_decref(r->policy);
        free(r);
        return -1;
    }
    if (fmt == FMT_JSON) {
        char *pol = json_dumps(r->policy, JSON_COMPACT);
        fprintf(f, "{\"version\":1,\"policy\":%s,\"results\":[", pol ? pol : "{}");
        free(pol);
    }
    else if (fmt == FMT_SARIF)
        fputs("{\"$schema\":\"https://json.schemastore.org/sarif-2.1.0.json\",\"version\":\"2.1.0\","
              "\"runs\":[{\"results\":[",
              f);
    *out = r;
    return 0;
}

void report_result(report *r, const char *file, size_t line, const bx_verify_result *res)
{
    char *name = display_name(file, line);
    r->n++;
    r->failed += !res->pass;
    switch (r->fmt) {
    case FMT_TEXT: text_result(r, name ? name : file, res); break;
    case FMT_JSON: json_result(r, name ? name : file, res); break;
    case FMT_JUNIT: junit_result(r, name ? name : file, res); break;
    case FMT_SARIF: sarif_result(r, file, line, res); break;
    case FMT_GITHUB: github_result(r, file, line, res); break;
    }
    free(name);
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

int report_close(report *r)
{
    int rc = 0;
    size_t passed = r->n - r->failed;
    switch (r->fmt) {
    case FMT_TEXT:
    case FMT_GITHUB:
        fprintf(r->f, "%zu certificate%s: %zu passed, %zu failed\n", r->n, r->n == 1 ? "" : "s",
                passed, r->failed);
        break;
    case FMT_JSON:
        fprintf(r->f, "],\"summary\":{\"total\":%zu,\"passed\":%zu,\"failed\":%zu}}\n", r->n, passed,
                r->failed);
        break;
    case FMT_JUNIT:
        fprintf(r->f,
                "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
                "<testsuites name=\"boxcert %s\" tests=\"%zu\" failures=\"%zu\">\n"
                "  <testsuite name=\"boxcert %s\" tests=\"%zu\" failures=\"%zu\" errors=\"0\">\n",
                r->tool, r->cases, r->case_failures, r->tool, r->cases, r->case_failures);
        rc = copy_spool(r);
        fputs("  </testsuite>\n</testsuites>\n", r->f);
        break;
    case FMT_SARIF: {
        json_t *rules = json_array();
        const char *k;
        json_t *v;
        json_object_foreach(r->rules, k, v)
            json_array_append_new(rules, json_pack("{s:s}", "id", k));
        json_t *tool = json_pack("{s:{s:s, s:s, s:o}}", "driver", "name", "boxcert", "version",
                                 BOXCERT_VERSION, "rules", rules);
        char *s = tool ? json_dumps(tool, JSON_COMPACT) : NULL;
        const char *pname = json_string_value(json_object_get(r->policy, "name"));
        json_t *pn = json_string(pname ? pname : "");
        char *pq = pn ? json_dumps(pn, JSON_ENCODE_ANY) : NULL;
        fprintf(r->f, "],\"tool\":%s,\"properties\":{\"policy\":%s,\"policySha256\":\"%s\","
                      "\"total\":%zu,\"passed\":%zu,\"failed\":%zu}}]}\n",
                s ? s : "{}", pq ? pq : "\"\"", r->policy_sha, r->n, passed, r->failed);
        free(pq);
        json_decref(pn);
        free(s);
        json_decref(tool);
        break;
    }
    }
    if (ferror(r->f))
        rc = -1;
    if (r->spool)
        fclose(r->spool);
    json_decref(r->rules);
    json_decref(r->policy);
    free(r);
    return rc;
}
