/* SPDX-License-Identifier: Apache-2.0 */
#include "cli.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <openssl/crypto.h>

#ifdef BOXCERT_VERIFY_ONLY
const char *cli_prog = "boxcert-verify";
#else
const char *cli_prog = "boxcert";
#endif
int cli_quiet;

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

static void put_line(const char *where, const char *msg)
{
    fputs(cli_prog, stderr);
    fputs(": ", stderr);
    if (where && *where) {
        cli_put_safe(stderr, where);
        fputs(": ", stderr);
    }
    cli_put_safe(stderr, msg);
    fputc('\n', stderr);
}

int cli_report(const char *ctx, const bx_error *err)
{
    put_line(err->where[0] ? err->where : ctx, err->msg);
    return cli_exit_for(err->code);
}

int cli_usage_error(const char *where, const char *fmt, ...)
{
    char msg[768];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    put_line(where, msg);
    return EXIT_USAGE;
}

/* The optimal string alignment distance (adjacent transpositions count one), capped. */
static size_t distance(const char *a, const char *b)
{
    enum { MAX = 64 };
    size_t la = strlen(a), lb = strlen(b), d[MAX + 1][MAX + 1];
    if (la > MAX || lb > MAX)
        return (size_t)-1;
    for (size_t i = 0; i <= la; i++)
        d[i][0] = i;
    for (size_t j = 0; j <= lb; j++)
        d[0][j] = j;
    for (size_t i = 1; i <= la; i++)
        for (size_t j = 1; j <= lb; j++) {
            size_t cost = a[i - 1] != b[j - 1], v = d[i - 1][j] + 1;
            if (d[i][j - 1] + 1 < v)
                v = d[i][j - 1] + 1;
            if (d[i - 1][j - 1] + cost < v)
                v = d[i - 1][j - 1] + cost;
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
                d[i - 2][j - 2] + 1 < v)
                v = d[i - 2][j - 2] + 1;
            d[i][j] = v;
        }
    return d[la][lb];
}

const char *cli_nearest(const char *s, const char *const *names)
{
    size_t len = strlen(s), limit = len <= 3 ? 1 : len <= 6 ? 2 : 3, best = (size_t)-1;
    const char *pick = NULL;
    for (size_t i = 0; names[i]; i++) {
        size_t d = distance(s, names[i]);
        if (d < best) {
            best = d;
            pick = names[i];
        }
    }
    /* a word that the name starts with, or that starts with the name, is near too */
    if (best > limit)
        for (size_t i = 0; names[i] && best > limit; i++)
            if (len >= 3 && strncmp(names[i], s, len) == 0)
                return names[i];
    return best <= limit ? pick : NULL;
}

int cli_unknown(const char *where, const char *what, const char *s, const char *const *names)
{
    const char *near = cli_nearest(s, names);
    if (near)
        return cli_usage_error(where, "unknown %s '%s'; did you mean '%s'?", what, s, near);
    return cli_usage_error(where, "unknown %s '%s' (see '%s%s%s --help')", what, s, cli_prog,
                           where ? " " : "", where ? where : "");
}

/* The long names of opts, for "did you mean". */
static void option_names(const struct option *opts, const char **names, size_t max)
{
    size_t n = 0;
    for (size_t i = 0; opts[i].name && n + 1 < max; i++)
        if (strcmp(opts[i].name, "from-json") != 0) /* hidden */
            names[n++] = opts[i].name;
    names[n] = NULL;
}

static int option_error(const char *cmd, const char *word, const struct option *opts)
{
    const char *names[64], *eq = strchr(word, '=');
    char name[128], list[512] = "";
    size_t n = eq ? (size_t)(eq - word) : strlen(word), matches = 0;

    option_names(opts, names, sizeof names / sizeof *names);
    if (strncmp(word, "--", 2) != 0) {
        /* -policy: a long option written with one dash */
        const char *near = word[0] == '-' && strlen(word) > 2 ? cli_nearest(word + 1, names) : NULL;
        if (near)
            return cli_usage_error(cmd, "unknown option '%s'; did you mean '--%s'?", word, near);
        return cli_usage_error(cmd, "unknown option '%s' (see '%s %s --help')", word, cli_prog,
                               cmd);
    }
    snprintf(name, sizeof name, "%.*s", (int)(n - 2 < sizeof name ? n - 2 : sizeof name - 1),
             word + 2);
    for (size_t i = 0; names[i]; i++) {
        if (strcmp(names[i], name) == 0)
            return cli_usage_error(cmd, "option '--%s' takes no value", name);
        if (*name && strncmp(names[i], name, strlen(name)) == 0) {
            matches++;
            size_t l = strlen(list);
            snprintf(list + l, sizeof list - l, "%s--%s", l ? ", " : "", names[i]);
        }
    }
    if (matches > 1)
        return cli_usage_error(cmd, "option '--%s' is ambiguous: %s", name, list);
    const char *near = cli_nearest(name, names);
    if (near)
        return cli_usage_error(cmd, "unknown option '--%s'; did you mean '--%s'?", name, near);
    return cli_usage_error(cmd, "unknown option '--%s' (see '%s %s --help')", name, cli_prog, cmd);
}

/* The first word of argv that is a long option written with one dash (-policy), or NULL:
 * a word after "--", or the value of an option that takes one, is not looked at. */
static const char *one_dash_word(int argc, char **argv, const struct option *opts)
{
    for (int i = 1; i < argc; i++) {
        const char *w = argv[i];
        if (strcmp(w, "--") == 0)
            return NULL;
        if (strncmp(w, "--", 2) == 0) {
            size_t n = strcspn(w + 2, "=");
            for (size_t j = 0; opts[j].name && !w[2 + n]; j++)
                if (strlen(opts[j].name) == n && strncmp(opts[j].name, w + 2, n) == 0 &&
                    opts[j].has_arg == required_argument)
                    i++;
            continue;
        }
        /* a cluster of -h and -q is what it says */
        if (w[0] == '-' && w[1] && w[2] && strspn(w + 1, "hq") != strlen(w + 1))
            return w;
    }
    return NULL;
}

int cli_getopt(const char *cmd, int argc, char **argv, const struct option *opts)
{
    const char *bad;
    if (optind <= 1 && (bad = one_dash_word(argc, argv, opts)) != NULL)
        return option_error(cmd, bad, opts), '?';
    for (;;) {
        int idx = -1, before = optind;
        opterr = 0;
        int c = getopt_long(argc, argv, ":hq", opts, &idx);
        if (c == 'q') {
            cli_quiet = 1;
            continue;
        }
        if (c == ':') {
            const char *word = optind - 1 < argc ? argv[optind - 1] : "";
            for (size_t i = 0; opts[i].name; i++)
                if (optopt && opts[i].val == optopt && strncmp(word, "--", 2) == 0)
                    return cli_usage_error(cmd, "option '--%s' needs a value", opts[i].name), '?';
            return cli_usage_error(cmd, "option '%s' needs a value", word), '?';
        }
        if (c == '?') {
            char shortopt[3] = {'-', (char)optopt, 0};
            const char *word = optopt ? shortopt
                               : optind - 1 >= before && optind - 1 < argc ? argv[optind - 1]
                                                                           : "?";
            return option_error(cmd, word, opts), '?';
        }
        return c;
    }
}

void cli_help(const char *text)
{
    static const char *const leads[] = {"usage: boxcert ", "       boxcert ", NULL};
    for (const char *line = text; *line;) {
        const char *nl = strchr(line, '\n');
        size_t len = nl ? (size_t)(nl - line) + 1 : strlen(line);
        int done = 0;
        for (size_t i = 0; leads[i] && !done; i++)
            if (strncmp(line, leads[i], strlen(leads[i])) == 0) {
                size_t pre = strlen(leads[i]) - strlen("boxcert ");
                printf("%.*s%s %.*s", (int)pre, line, cli_prog, (int)(len - pre - 8),
                       line + pre + 8);
                done = 1;
            }
        if (!done)
            fwrite(line, 1, len, stdout);
        line += len;
    }
}

const char *cli_env(const char *name)
{
    const char *v = getenv(name);
    return v && *v ? v : NULL;
}

const char *cli_out_path(const char *arg)
{
    return arg && strcmp(arg, "-") == 0 ? NULL : arg;
}

static void keys_from(const char *var, cli_list *keys, char **owned)
{
    const char *v = cli_env(var);
    *owned = NULL;
    if (keys->n || !v)
        return;
    if (!(*owned = strdup(v))) {
        fprintf(stderr, "%s: out of memory\n", cli_prog);
        exit(EXIT_ENV);
    }
    for (char *save = NULL, *k = strtok_r(*owned, ":", &save); k; k = strtok_r(NULL, ":", &save))
        cli_list_add(keys, k);
}

void cli_keys_from_env(cli_list *keys, char **owned)
{
    keys_from("BOXCERT_KEY", keys, owned);
}

void cli_signing_keys_from_env(cli_list *keys, char **owned)
{
    keys_from("BOXCERT_SIGNING_KEY", keys, owned);
}

const char *cli_format_from_env(const char *given, const char *def, int *from_env)
{
    const char *v = cli_env("BOXCERT_FORMAT");
    *from_env = !given && v;
    return given ? given : v ? v : def;
}

int cli_bad_format(const char *value, int from_env, const char *choices)
{
    return cli_usage_error(from_env ? "BOXCERT_FORMAT" : "--format", "'%s' is not %s", value,
                           choices);
}

/* Whether path holds a public key (PEM) rather than a private one: read only to name the
 * mistake, after the private key could not be loaded. */
static int holds_public_key(const char *path)
{
    char head[512];
    ssize_t n;
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    struct stat st;
    if (fd < 0)
        return 0;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || (n = read(fd, head, sizeof head - 1)) <= 0) {
        close(fd);
        return 0;
    }
    close(fd);
    head[n] = '\0';
    int pub = strstr(head, "-----BEGIN PUBLIC KEY-----") != NULL &&
              strstr(head, "PRIVATE KEY-----") == NULL;
    OPENSSL_cleanse(head, sizeof head);
    return pub;
}

int cli_load_signing_key(const char *path, EVP_PKEY **out)
{
    bx_error err;
    if (bx_key_load_private(path, NULL, out, &err) == 0)
        return 0;
    if (err.code == BX_ECONFIG && holds_public_key(path))
        return cli_usage_error(path, "is a public key: signing needs the private key (the .key "
                                     "file keygen wrote beside this .pub)");
    return cli_report(path, &err);
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
        fprintf(stderr, "%s: out of memory\n", cli_prog);
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
        arg = cli_env("BOXCERT_POLICY");
    if (!arg)
        return cli_usage_error("--policy", "a policy file or profile is required (or "
                                           "BOXCERT_POLICY)");
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

int cli_put_json(json_t *o)
{
    char *s = o ? json_dumps(o, JSON_COMPACT | JSON_SORT_KEYS) : NULL;

    json_decref(o);
    if (!s)
        return EXIT_ENV;
    puts(s);
    free(s);
    return fflush(stdout) != 0 ? EXIT_ENV : EXIT_PASS;
}
