/* SPDX-License-Identifier: Apache-2.0 */
/* Reports of verification results in every output format, streamed: a result is
 * written as soon as it is given, and memory does not grow with the number of results
 * (junit needs its counts first: its test cases are spooled to a temporary file). */
#ifndef BX_REPORT_H
#define BX_REPORT_H

#include "cli.h"

typedef enum { FMT_TEXT, FMT_JSON, FMT_JUNIT, FMT_SARIF, FMT_GITHUB, FMT_MARKDOWN } report_format;

typedef struct report report;

/* Parse a --format value ("text", "json", "junit", "sarif", "github", "markdown"). */
int report_parse_format(const char *s, report_format *out);
/* Start a report on out (borrowed). tool: "verify", "ledger verify", ...; policy: the
 * policy's identity (bx_policy_identity; a reference is taken), NULL when there is none. */
int report_open(report **out, report_format fmt, FILE *f, const char *tool, const json_t *policy,
                int colour);
/* The time the results were judged at (seconds since the epoch; verify's --at, else now):
 * carried by every format with the tool's version and the policy's identity. */
void report_set_time(report *r, int64_t verified_at);
/* One result: the input file (or commit) and, for JSON Lines bundles and notes, the
 * line (0 when none). */
void report_result(report *r, const char *file, size_t line, const bx_verify_result *res);
/* An input of a folder that was not read as a certificate (bx_source_read's skipped): listed,
 * never failing. */
void report_skipped(report *r, const char *file, const char *why);
/* The rows of the expected sessions (bx_expect_check_rows; a reference is taken), after the
 * last result: each is carried by every format, and each that is not compliant fails. */
void report_rows(report *r, const json_t *rows);
/* The summary; frees r. Returns 0, or -1 on a write error or when something could not be
 * written whole (out of memory): the report is then not to be trusted. */
int report_close(report *r);

/* Escapers for strings that came from a certificate, an engine or a folder: the human escaping
 * first (bx_escape, BX_ESC_HUMAN: controls, noncharacters, bidirectional and other invisible
 * characters as \xNN or \u{XXXX}, a backslash doubled), then the format's own: XML/HTML text
 * and attributes (& < > " ' as entities); GitHub workflow commands (% encoded, and : , in
 * properties). The _json variants write ASCII JSON (report_json_ascii) with the format's
 * escaping only. */
void report_xml_put(FILE *f, const char *s);
void report_xml_put_json(FILE *f, const char *ascii_json);
void report_gh_put(FILE *f, const char *s, int property);
void report_gh_put_json(FILE *f, const char *ascii_json);
/* v as compact JSON in ASCII (every other character \uXXXX): caller frees; "null" copied when
 * out of memory. */
char *report_json_ascii(const json_t *v);

/* A SARIF reportingDescriptor of rule id (rules.h): short and full descriptions, help (text
 * and Markdown), properties.security-severity. Caller owns it; NULL when out of memory. */
json_t *report_sarif_rule(const char *id);
/* SARIF partialFingerprints {"boxcertFinding/v1": 32 hex digits} of a finding: its rule, its
 * place (a file, or what stands for one), line and session name, so the same finding is one
 * across runs (a certificate's id changes with each collection). NULL when out of memory. */
json_t *report_sarif_fingerprint(const char *rule, const char *place, size_t line,
                                 const char *session);

size_t report_failed(const report *r);
size_t report_count(const report *r);

#endif
