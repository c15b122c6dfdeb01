/* SPDX-License-Identifier: Apache-2.0 */
/* Reports of verification results in every output format, streamed: a result is
 * written as soon as it is given, and memory does not grow with the number of results
 * (junit needs its counts first: its test cases are spooled to a temporary file). */
#ifndef BX_REPORT_H
#define BX_REPORT_H

#include "cli.h"

typedef enum { FMT_TEXT, FMT_JSON, FMT_JUNIT, FMT_SARIF, FMT_GITHUB } report_format;

typedef struct report report;

/* Parse a --format value ("text", "json", "junit", "sarif", "github"). */
int report_parse_format(const char *s, report_format *out);
/* Start a report on out (borrowed). tool: "verify", "ledger verify", ...; policy: the
 * policy's identity (bx_policy_identity; a reference is taken), NULL when there is none. */
int report_open(report **out, report_format fmt, FILE *f, const char *tool, const json_t *policy,
                int colour);
/* One result: the input file (or commit) and, for JSON Lines bundles and notes, the
 * line (0 when none). */
void report_result(report *r, const char *file, size_t line, const bx_verify_result *res);
/* The summary; frees r. Returns 0, or -1 on a write error. */
int report_close(report *r);

/* Escapers for strings that came from a certificate or an engine:
 * XML/HTML text and attributes (& < > " ' escaped; control characters as \xNN, which
 * XML 1.0 cannot carry); GitHub workflow commands (% CR LF encoded, and : , in
 * properties; other control characters as \xNN). */
void report_xml_put(FILE *f, const char *s);
void report_gh_put(FILE *f, const char *s, int property);

size_t report_failed(const report *r);
size_t report_count(const report *r);

#endif
