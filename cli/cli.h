/* SPDX-License-Identifier: Apache-2.0 */
/* The command-line shell: dispatch, option helpers, error lines and exit codes.
 * Only cli/ prints to the user or exits. */
#ifndef BX_CLI_H
#define BX_CLI_H

#include "bx_verify.h"

#include <getopt.h>

enum { EXIT_PASS = 0, EXIT_REJECT = 1, EXIT_USAGE = 2, EXIT_ENV = 3 };

/* The program's own name ("boxcert" or "boxcert-verify"): the one prefix of every message. */
extern const char *cli_prog;
/* --quiet: no progress, no informational lines (ids, PASS rows, summaries); errors and the
 * documents asked for are still written. */
extern int cli_quiet;

typedef struct {
    const char *name;
    int (*fn)(int argc, char **argv);
    const char *summary;
} bx_cmd;

/* A growable list of strings for repeated options (borrowed argv pointers). */
typedef struct {
    char **v;
    size_t n;
} cli_list;
void cli_list_add(cli_list *l, char *s);

/* Exit code for a library error code (BX_E*). */
int cli_exit_for(int code);
/* Print "PROG: <where>: <what>" for err (where defaults to ctx); return its exit code. */
int cli_report(const char *ctx, const bx_error *err);
/* Print o (taken: freed) as one line of compact JSON with sorted keys on stdout; EXIT_PASS,
 * or EXIT_ENV when o is NULL (out of memory) or stdout cannot take it. */
int cli_put_json(json_t *o);
/* Print "PROG: <where>: <what>" ("PROG: <what>" when where is NULL) and return EXIT_USAGE. */
int cli_usage_error(const char *where, const char *fmt, ...) BX_FMT(2, 3);

/* getopt_long over opts for the command cmd ("verify", "ledger add"), with -h (returned as 'h')
 * and -q/--quiet (sets cli_quiet; not returned). Returns the next option's val, -1 at the end,
 * or '?' after the one-line error for an unknown option (with the nearest known one as "did
 * you mean"), an ambiguous one or a missing value: the caller returns EXIT_USAGE. opts must
 * hold {"help", 'h'} and {"quiet", 'q'}. */
int cli_getopt(const char *cmd, int argc, char **argv, const struct option *opts);
/* The word of names[] (NULL-terminated) nearest to s, or NULL when none is near. */
const char *cli_nearest(const char *s, const char *const *names);
/* Report an unknown word ("command", "schema", ...) of where, with "did you mean" when one of
 * names is near; returns EXIT_USAGE. */
int cli_unknown(const char *where, const char *what, const char *s, const char *const *names);
/* Print a command's help on stdout, its usage lines naming cli_prog. */
void cli_help(const char *text);
/* The value of the environment variable name when set and not empty, else NULL. */
const char *cli_env(const char *name);
/* "-" as --out/--output: standard output (NULL); anything else as it is. */
const char *cli_out_path(const char *arg);
/* Load a signing key (--key of collect, sign; --signing-key): a public key given instead is
 * named as such. Prints the error; returns 0 or the exit code. */
int cli_load_signing_key(const char *path, EVP_PKEY **out);
/* When no --key was given: the public keys of BOXCERT_KEY (paths separated by ':') into keys;
 * *owned is the copy they point into (free it after the list). */
void cli_keys_from_env(cli_list *keys, char **owned);
/* The same for private keys: BOXCERT_SIGNING_KEY. */
void cli_signing_keys_from_env(cli_list *keys, char **owned);
/* When no --format was given: BOXCERT_FORMAT, else def. *from_env says which. */
const char *cli_format_from_env(const char *given, const char *def, int *from_env);
/* The --format error: names BOXCERT_FORMAT when the value came from it. */
int cli_bad_format(const char *value, int from_env, const char *choices);
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


int cmd_verify(int argc, char **argv);
int cmd_version(int argc, char **argv);
/* The text (json: 1, the JSON object) of --version. */
int cli_print_version(int json);
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
