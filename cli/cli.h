/* SPDX-License-Identifier: Apache-2.0 */
/* The command-line shell: dispatch, option helpers, error lines and exit codes.
 * Only cli/ prints to the user or exits. */
#ifndef BX_CLI_H
#define BX_CLI_H

#include "bx_verify.h"

enum { EXIT_PASS = 0, EXIT_REJECT = 1, EXIT_USAGE = 2, EXIT_ENV = 3 };

typedef struct {
    const char *name;
    int (*fn)(int argc, char **argv);
    const char *summary;
} bx_cmd;

/* Exit code for a library error code (BX_E*). */
int cli_exit_for(int code);
/* Print "boxcert: <where>: <what>" for err (where defaults to ctx); return its exit code. */
int cli_report(const char *ctx, const bx_error *err);
/* Print "boxcert: <where>: <what>" and return EXIT_USAGE. */
int cli_usage_error(const char *where, const char *fmt, ...) BX_FMT(2, 3);
/* A whole number from min to max as option opt's value, else a usage error (exit 2). */
int cli_parse_count(const char *opt, const char *s, long min, long max, long *out);
/* Write s to f escaped (bx_escape's flags) without allocating. */
void cli_put_escaped(FILE *f, const char *s, int flags);
/* Write s to f with the human escaping (docs/ci.md, "Encodings"): no control, bidirectional
 * control or other invisible character reaches a terminal raw. */
void cli_put_safe(FILE *f, const char *s);
/* Write s as one field of a text line (bx_text_field): bare when plain, else quoted. */
void cli_put_field(FILE *f, const char *s);
/* Load --policy with the --key files added and --threshold applied; prints the error
 * and returns an exit code on failure, else 0. */
int cli_load_policy(const char *arg, char **keys, size_t nkeys, int threshold, bx_policy **out);
/* Parse an RFC 3339 time or "now"; prints the error. */
int cli_parse_time(const char *opt, const char *s, int64_t *out);
/* Parse --threshold (a whole number from 1); prints the error. */
int cli_parse_threshold(const char *s, int *out);
/* Print a result's failed and unknown findings, one indented line each:
 * "    fail RULE: message (expected X, observed Y)". */
void cli_print_failed_findings(FILE *f, const char *name, const bx_verify_result *res);
/* Read the one certificate of path (a file, or "-") into *buf (the caller frees) and verify it
 * into *res: 0, or the exit code after the one-line error (exit 1 for what cannot be read as
 * a certificate, 3 for the environment). */
int cli_verify_one(const char *path, const bx_policy *p, const bx_verify_opts *vo, char **buf,
                   size_t *len, bx_verify_result *res);
/* Write doc (len bytes, NUL-terminated one past) plus a newline to path atomically, or to
 * stdout when path is NULL. */
int cli_write_output(const char *path, char *doc, size_t len, bx_error *err);
/* Whether colour may be used on f (a terminal and no NO_COLOR). */
int cli_colour(FILE *f);

/* A growable list of strings for repeated options (borrowed argv pointers). */
typedef struct {
    char **v;
    size_t n;
} cli_list;
void cli_list_add(cli_list *l, char *s);

int cmd_verify(int argc, char **argv);
int cmd_policy(int argc, char **argv);
int cmd_show(int argc, char **argv);
int cmd_schema(int argc, char **argv);
#ifndef BOXCERT_VERIFY_ONLY
int cmd_sign(int argc, char **argv);
int cmd_keygen(int argc, char **argv);
int cmd_collect(int argc, char **argv);
int cmd_inspect(int argc, char **argv);
int cmd_audit(int argc, char **argv);
int cmd_ledger(int argc, char **argv);
#endif

#endif
