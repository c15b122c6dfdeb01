/* SPDX-License-Identifier: Apache-2.0 */
/* Findings (bx_schema.h, "findings"): how one is made, what its status means, the verdict of a
 * list. Every report, the verifier and the audit read them through these functions, so a
 * finding is judged one way everywhere: a missing or unknown status counts as failing. */
#include "bx_schema.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

static const char *const statuses[] = {"pass", "fail", "unknown", "warn", "n/a"};

bx_finding_status bx_finding_status_of(const json_t *f)
{
    const char *s = json_string_value(json_object_get(f, "status"));
    for (int i = 0; s && i < (int)(sizeof statuses / sizeof statuses[0]); i++)
        if (strcmp(s, statuses[i]) == 0)
            return (bx_finding_status)i;
    return BX_FINDING_INVALID;
}

int bx_finding_failing(const json_t *f)
{
    bx_finding_status s = bx_finding_status_of(f);
    return s == BX_FINDING_FAIL || s == BX_FINDING_UNKNOWN || s == BX_FINDING_INVALID;
}

int bx_findings_pass(const json_t *findings)
{
    const json_t *f;
    size_t i;
    if (!json_is_array(findings) || json_array_size(findings) == 0)
        return 0;
    json_array_foreach(findings, i, f) if (bx_finding_failing(f)) return 0;
    return 1;
}

/* A message quotes observed values, which come from the certificate: keep it on one line,
 * and valid UTF-8 -- a message cut to its buffer (bxp_append, bxp_join) can end inside a
 * character, and a string jansson refused would lose the finding with it. Bytes that do
 * not fit are replaced by '?'. */
static void clean_message(char *msg, size_t n)
{
    unsigned char *p = (unsigned char *)msg;
    for (size_t i = 0; i < n;) {
        size_t k = p[i] < 0x20 || p[i] == 0x7f ? 0 : bx_utf8_seq(p + i, n - i);
        if (!k) {
            p[i++] = '?';
            continue;
        }
        i += k;
    }
}

static json_t *text(const char *s)
{
    return json_stringn_nocheck(s, strlen(s));
}

/* Findings that could not be recorded (out of memory) on this thread: a verdict is not
 * given from findings that lost one (bx_findings_lost). */
static __thread unsigned long lost;

unsigned long bx_findings_lost(void)
{
    return lost;
}

void bx_finding_addv(json_t *findings, const char *rule, const char *cis, const char *status,
                     json_t *expected, json_t *observed, const char *fmt, va_list ap)
{
    char stack[512], *msg = stack;
    va_list aq;
    json_t *f = json_object();
    int n;

    va_copy(aq, ap);
    n = vsnprintf(stack, sizeof stack, fmt, aq);
    va_end(aq);
    if (n < 0)
        msg = NULL;
    else if ((size_t)n >= sizeof stack && (msg = malloc((size_t)n + 1)) != NULL)
        vsnprintf(msg, (size_t)n + 1, fmt, ap);
    if (msg)
        clean_message(msg, (size_t)n);
    /* the members in this order: rule, status, expected, observed, message[, cis]; rule,
     * status and cis are the program's own ASCII. Each setter takes its value, also when it
     * fails; a value not yet handed over is released here. */
    int ok = f != NULL;
    ok = ok && json_object_set_new_nocheck(f, "rule", text(rule)) == 0;
    ok = ok && json_object_set_new_nocheck(f, "status", text(status)) == 0;
    if (ok)
        ok = json_object_set_new_nocheck(f, "expected", expected ? expected : json_null()) == 0;
    else
        json_decref(expected);
    if (ok)
        ok = json_object_set_new_nocheck(f, "observed", observed ? observed : json_null()) == 0;
    else
        json_decref(observed);
    ok = ok && json_object_set_new_nocheck(f, "message",
                                           msg ? json_stringn_nocheck(msg, (size_t)n)
                                               : text("(out of memory)")) == 0;
    ok = ok && (!cis || json_object_set_new_nocheck(f, "cis", text(cis)) == 0);
    if (!ok) {
        json_decref(f);
        lost++;
    } else if (!json_is_array(findings)) {
        json_decref(f);
        lost++;
    } else if (json_array_append_new(findings, f) != 0) {
        lost++; /* json_array_append_new released f */
    }
    if (msg != stack)
        free(msg);
}

void bx_finding_add(json_t *findings, const char *rule, const char *status, json_t *expected,
                    json_t *observed, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    bx_finding_addv(findings, rule, NULL, status, expected, observed, fmt, ap);
    va_end(ap);
}
