/* SPDX-License-Identifier: Apache-2.0 */
/* The audit report (bx_audit_report's document) in every output format: text, json,
 * junit, sarif, github, and html (one self-contained page). */
#ifndef BX_AUDIT_REPORT_H
#define BX_AUDIT_REPORT_H

#include "report.h"

typedef enum {
    AUDIT_TEXT,
    AUDIT_JSON,
    AUDIT_JUNIT,
    AUDIT_SARIF,
    AUDIT_GITHUB,
    AUDIT_HTML
} audit_format;

/* Parse a --format value: the formats of verify, and "html". */
int audit_parse_format(const char *s, audit_format *out);

/* Write doc (borrowed; an audit report that bx_audit_report_check accepts) to f.
 * colour: text only. Returns 0, or -1 on a write error. */
int audit_render(FILE *f, const json_t *doc, audit_format fmt, int colour);

#endif
