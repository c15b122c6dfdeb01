/* SPDX-License-Identifier: Apache-2.0 */
#include "cli.h"

#include <errno.h>
#include <stdarg.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

int cli_exit_for(int code)
{
    switch (code) {
    case 0:
        return EXIT_PASS;
    case BX_ECONFIG:
    case BX_EUNSUPPORTED:
        return EXIT_USAGE;
    case BX_EIO:
    case BX_EENV:
    case BX_ENOMEM:
        return EXIT_ENV;
    default:
        return EXIT_REJECT;
    }
}

int cli_report(const char *ctx, const bx_error *err)
{
    fputs("boxcert: ", stderr);
    cli_put_safe(stderr, err->where[0] ? err->where : ctx);
    fputs(": ", stderr);
    cli_put_safe(stderr, err->msg);
    fputc('\n', stderr);
    return cli_exit_for(err->code);
}

int cli_usage_error(const char *where, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    fputs("boxcert: ", stderr);
    cli_put_safe(stderr, where);
    fputs(": ", stderr);
    cli_put_safe(stderr, msg);
    fputc('\n', stderr);
    return EXIT_USAGE;
}

void cli_put_escaped(FILE *f, const char *s, int flags)
{
    size_t n = strlen(s ? s : ""), step;
    char esc[12];
    for (size_t i = 0; i < n; i += step) {
        if (bx_escape_char(s + i, n - i, flags, esc, &step))
            fputs(esc, f);
        else
            fwrite(s + i, 1, step, f);
    }
}

void cli_put_safe(FILE *f, const char *s)
{
    cli_put_escaped(f, s, BX_ESC_HUMAN);
}

void cli_put_field(FILE *f, const char *s)
{
    char *q = bx_text_field(s);
    if (q) {
        fputs(q, f);
        free(q);
        return;
    }
    fputc('"', f); /* out of memory: the same, written as it goes */
    cli_put_escaped(f, s, BX_ESC_HUMAN | BX_ESC_QUOTE);
    fputc('"', f);
}

void cli_list_add(cli_list *l, char *s)
{
    char **v = realloc(l->v, (l->n + 1) * sizeof *v);
    if (!v) {
        fputs("boxcert: out of memory\n", stderr);
        exit(EXIT_ENV);
    }
    l->v = v;
    l->v[l->n++] = s;
}

int cli_load_policy(const char *arg, char **keys, size_t nkeys, int threshold, bx_policy **out)
{
    bx_error err;
    bx_policy *p = NULL;
    if (!arg)
        return cli_usage_error("--policy", "a policy file or profile is required");
    if (bx_policy_load(arg, &p, &err) != 0) {
        cli_report(arg, &err);
        return EXIT_USAGE;
    }
    for (size_t i = 0; i < nkeys; i++) {
        if (bx_policy_add_key_file(p, keys[i], &err) != 0) {
            bx_policy_free(p);
            cli_report(keys[i], &err);
            return EXIT_USAGE;
        }
    }
    if (threshold > 0)
        bx_policy_set_threshold(p, threshold);
    if (bx_policy_nkeys(p) == 0) {
        bx_policy_free(p);
        return cli_usage_error(arg, "no trusted keys: add trust.keys to the policy or --key PUB");
    }
    if ((size_t)bx_policy_threshold(p) > bx_policy_nkeys(p)) {
        int t = bx_policy_threshold(p);
        size_t n = bx_policy_nkeys(p);
        bx_policy_free(p);
        return cli_usage_error(arg, "threshold %d is more than the %zu trusted key(s)", t, n);
    }
    *out = p;
    return 0;
}

int cli_parse_time(const char *opt, const char *s, int64_t *out)
{
    bx_error err;
    if (strcmp(s, "now") == 0) {
        *out = (int64_t)time(NULL);
        return 0;
    }
    if (bx_time_parse(s, 0, out, &err) != 0)
        return cli_usage_error(opt, "'%s' is not an RFC 3339 UTC time (YYYY-MM-DDTHH:MM:SSZ)", s);
    return 0;
}

int cli_colour(FILE *f)
{
    const char *nc = getenv("NO_COLOR");
    return isatty(fileno(f)) && !(nc && *nc);
}

int cli_parse_threshold(const char *s, int *out)
{
    char *end = NULL;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || !*s || *end || v < 1 || v > 1000)
        return cli_usage_error("--threshold", "'%s' is not a whole number from 1 to 1000", s);
    *out = (int)v;
    return 0;
}

/* Compact JSON of v, cut to about 160 bytes (at a character boundary) with "...": the
 * text report stays readable; the json report has every value whole. */
static void put_json(FILE *f, const json_t *v)
{
    enum { CUT = 160 };
    char *s = json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT | JSON_ENSURE_ASCII);
    if (s && strlen(s) > CUT + 3) {
        size_t n = CUT;
        while (n > 0 && ((unsigned char)s[n] & 0xc0) == 0x80)
            n--;
        memcpy(s + n, "...", 4);
    }
    fputs(s ? s : "null", f); /* ASCII JSON: every character escaped the JSON way */
    free(s);
}

void cli_print_failed_findings(FILE *f, const char *name, const bx_verify_result *res)
{
    size_t i;
    json_t *x;
    (void)name;
    json_array_foreach(res->findings, i, x) {
        const char *st = json_string_value(json_object_get(x, "status"));
        if (!bx_finding_failing(x))
            continue;
        fprintf(f, "    %s ", st ? st : "(no status)");
        cli_put_safe(f, json_string_value(json_object_get(x, "rule")));
        fputs(": ", f);
        cli_put_safe(f, json_string_value(json_object_get(x, "message")));
        fputs(" (expected ", f);
        put_json(f, json_object_get(x, "expected"));
        fputs(", observed ", f);
        put_json(f, json_object_get(x, "observed"));
        fputs(")\n", f);
    }
    if (res->lacks[0]) {
        fprintf(f, "    hint: this fails only on what predicate v%u does not carry (", res->lacks_version);
        cli_put_safe(f, res->lacks);
        fprintf(f, "): the policy is for newer certificates; a gate that must accept v%u ones "
                   "names a profile of that release (strict@%u)\n",
                res->lacks_version, res->lacks_version);
    }
}

int cli_verify_one(const char *path, const bx_policy *p, const bx_verify_opts *vo, char **buf,
                   size_t *len, bx_verify_result *res)
{
    bx_error err;
    int rc;
    if (bx_source_read_one(path, NULL, buf, len, &err) != 0) {
        rc = cli_report(path, &err);
        return rc == EXIT_USAGE ? EXIT_REJECT : rc;
    }
    if (bx_verify_envelope(p, vo, *buf, *len, res, &err) != 0)
        return cli_report(path, &err);
    return 0;
}

int cli_write_output(const char *path, char *doc, size_t len, bx_error *err)
{
    doc[len] = '\n'; /* the buffer is NUL-terminated one past len */
    if (!path) {
        if (fwrite(doc, 1, len + 1, stdout) != len + 1 || fflush(stdout) != 0)
            return bx_error_errno(err, BX_EIO, "stdout", "cannot write");
        return 0;
    }
    return bx_write_file_atomic(path, doc, len + 1, 0644, err);
}

int cli_parse_count(const char *opt, const char *s, long min, long max, long *out)
{
    char *end = NULL;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || !*s || *end || v < min || v > max)
        return cli_usage_error(opt, "'%s' is not a whole number from %ld to %ld", s, min, max);
    *out = v;
    return 0;
}
