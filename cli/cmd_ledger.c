/* SPDX-License-Identifier: Apache-2.0 */
#include "cli.h"
#include "paths.h"
#include "report.h"
#include "bx_ledger.h"

#include <getopt.h>
#include <string.h>
#include <time.h>

static const char help[] =
    "usage: boxcert ledger add    --repo DIR --rev REV --policy FILE|PROFILE [--key PUB]...\n"
    "                             [--threshold N] [--at T] CERT...\n"
    "       boxcert ledger show   --repo DIR --rev REV --policy FILE|PROFILE [--key PUB]...\n"
    "                             [--threshold N] [--at T] [--format FMT]\n"
    "       boxcert ledger verify --repo DIR --range A..B [--first-parent] --policy FILE|PROFILE\n"
    "                             [--key PUB]... [--threshold N] [--at T] [--format FMT]\n"
    "                             [--output FILE|-]\n"
    "       boxcert ledger push   --repo DIR --remote NAME\n"
    "       boxcert ledger fetch  --repo DIR --remote NAME\n\n"
    "Certificates kept as git notes on refs/notes/boxcert: one note per commit, one envelope\n"
    "per line (JSON Lines). See docs/ledger.md.\n"
    "  add     verify each CERT (a file, a *.jsonl bundle, or - for stdin) against the policy\n"
    "          and REV's commit (its source subject must name it), then record them all;\n"
    "          if one fails, nothing is stored. The same envelope again changes nothing; the\n"
    "          same certificate with new signatures has them merged into its line.\n"
    "  show    the certificates on REV's commit, verified, one verdict line each\n"
    "  verify  every commit of A..B (git rev-list semantics, merges included) must carry a\n"
    "          certificate that passes and names it as its source; else ledger.missing\n"
    "  fetch   fetch the remote's notes and merge them with ours (a union: nothing dropped)\n"
    "  push    push our notes; when the remote moved, fetch, merge and push again\n"
    "  --repo DIR      the git repository holding the commits and the notes\n"
    "  --rev REV       the commit (any git revision naming one)\n"
    "  --range A..B    the commits to gate (git rev-list A..B)\n"
    "  --first-parent  follow only the first parent of merges\n"
    "  --remote NAME   the git remote to push to or fetch from\n"
    "  --policy P      a policy file or a built-in profile (NAME or NAME@VERSION)\n"
    "  --key PUB       trust this public key (SPKI PEM) besides the policy's\n"
    "  --threshold N   override trust.threshold\n"
    "  --at T          judge times at T (RFC 3339) instead of now\n"
    "  --format F      text (default), json, junit, sarif or github\n"
    "  --output FILE   write the report to FILE (atomically) instead of stdout (-)\n"
    "  -q, --quiet     print only what failed (no status lines, PASS lines or summary)\n"
    "  -h, --help      this help ('ledger help' too)\n"
    "Environment: BOXCERT_POLICY, BOXCERT_KEY (PUB:PUB...), BOXCERT_FORMAT; the command\n"
    "line wins.\n"
    "Exit: 0 pass (stored, every commit attested, synced), 1 a certificate or commit failed,\n"
    "2 usage or configuration error (also --output naming the policy or a key, refused\n"
    "first), 3 repository, network or I/O error.\n";

enum {
    O_REPO = 256,
    O_REV,
    O_RANGE,
    O_FIRST_PARENT,
    O_POLICY,
    O_KEY,
    O_THRESHOLD,
    O_AT,
    O_FORMAT,
    O_OUTPUT,
    O_REMOTE,
    O_HELP
};

/* Each subcommand accepts only its own options. */
static const struct {
    const char *sub;
    const char *allowed; /* option letters from the table below */
} accepts[] = {
    {"add", "rRpktaH"}, {"show", "rRpktafH"}, {"verify", "rgFpktafoH"},
    {"push", "rmH"},    {"fetch", "rmH"},
};

static const struct option opts[] = {{"repo", required_argument, 0, O_REPO},
                                     {"rev", required_argument, 0, O_REV},
                                     {"range", required_argument, 0, O_RANGE},
                                     {"first-parent", no_argument, 0, O_FIRST_PARENT},
                                     {"policy", required_argument, 0, O_POLICY},
                                     {"key", required_argument, 0, O_KEY},
                                     {"threshold", required_argument, 0, O_THRESHOLD},
                                     {"at", required_argument, 0, O_AT},
                                     {"format", required_argument, 0, O_FORMAT},
                                     {"output", required_argument, 0, O_OUTPUT},
                                     {"remote", required_argument, 0, O_REMOTE},
                                     {"help", no_argument, 0, 'h'},
                                     {"quiet", no_argument, 0, 'q'},
                                     {0, 0, 0, 0}};
static const char letters[] = "rRgFpktafomH"; /* the same order as opts[] */

typedef struct {
    const char *sub, *repo, *rev, *range, *policy, *format, *output, *remote;
    char cmd[32];
    int format_env;
    int first_parent, threshold, help;
    cli_list keys;
    bx_verify_opts vo;
    report_format fmt;
} args;

static int parse(int argc, char **argv, const char *allowed, args *a)
{
    int c, rc;
    a->vo.at = (int64_t)time(NULL);
    snprintf(a->cmd, sizeof a->cmd, "ledger %s", a->sub);
    optind = 1;
    while ((c = cli_getopt(a->cmd, argc, argv, opts)) != -1) {
        if (c == '?')
            return EXIT_USAGE;
        if (c == 'h') {
            a->help = 1;
            continue;
        }
        if (c < O_REPO || !strchr(allowed, letters[c - O_REPO]))
            return cli_usage_error(a->cmd, "--%s is not an option of 'ledger %s' (see --help)",
                                   opts[c - O_REPO].name, a->sub);
        switch (c) {
        case O_REPO:
            a->repo = optarg;
            break;
        case O_REV:
            a->rev = optarg;
            break;
        case O_RANGE:
            a->range = optarg;
            break;
        case O_FIRST_PARENT:
            a->first_parent = 1;
            break;
        case O_POLICY:
            a->policy = optarg;
            break;
        case O_KEY:
            cli_list_add(&a->keys, optarg);
            break;
        case O_THRESHOLD:
            if ((rc = cli_parse_threshold(optarg, &a->threshold)) != 0)
                return rc;
            break;
        case O_AT:
            if ((rc = cli_parse_time("--at", optarg, &a->vo.at)) != 0)
                return rc;
            break;
        case O_FORMAT:
            a->format = optarg;
            break;
        case O_OUTPUT:
            a->output = cli_out_path(optarg);
            break;
        case O_REMOTE:
            a->remote = optarg;
            break;
        }
    }
    if (a->help)
        return 0;
    if (!a->repo)
        return cli_usage_error(a->sub, "--repo DIR is required");
    if (strchr(allowed, 'R') && !a->rev)
        return cli_usage_error(a->sub, "--rev REV is required");
    if (strchr(allowed, 'g') && !a->range)
        return cli_usage_error(a->sub, "--range A..B is required");
    if (strchr(allowed, 'm') && !a->remote)
        return cli_usage_error(a->sub, "--remote NAME is required");
    if (strchr(allowed, 'f'))
        a->format = cli_format_from_env(a->format, "text", &a->format_env);
    else
        a->format = "text";
    if (report_parse_format(a->format, &a->fmt) != 0)
        return cli_bad_format(a->format, a->format_env, "text, json, junit, sarif or github");
    if (strcmp(a->sub, "add") == 0 ? optind >= argc : optind < argc)
        return cli_usage_error(a->sub,
                               strcmp(a->sub, "add") == 0 ? "no certificate given (see --help)"
                                                          : "unexpected argument '%s'",
                               argv[optind < argc ? optind : 0]);
    return 0;
}

static int open_ledger(const args *a, bx_ledger **l)
{
    bx_error err;
    if (bx_ledger_open(a->repo, l, &err) != 0)
        return cli_report(a->repo, &err);
    return 0;
}

static void on_result(const char *commit, size_t lineno, const bx_verify_result *res, void *ctx)
{
    report_result(ctx, commit, lineno, res);
}

/* ---- add ---------------------------------------------------------------------- */

typedef struct {
    char **names, **bufs;
    size_t *lens, n;
} certs;

static int certs_push(certs *c, const char *name, size_t line, const char *buf, size_t len)
{
    char **nn = realloc(c->names, (c->n + 1) * sizeof *nn);
    if (nn)
        c->names = nn;
    char **nb = realloc(c->bufs, (c->n + 1) * sizeof *nb);
    if (nb)
        c->bufs = nb;
    size_t *nl = realloc(c->lens, (c->n + 1) * sizeof *nl);
    if (nl)
        c->lens = nl;
    if (!nn || !nb || !nl)
        return -1;
    char *copy = malloc(len + 1);
    char *name_copy = NULL;
    if (!copy || (line ? asprintf(&name_copy, "%s:%zu", name, line)
                       : asprintf(&name_copy, "%s", name)) < 0) {
        free(copy);
        return -1;
    }
    memcpy(copy, buf, len);
    copy[len] = '\0';
    c->names[c->n] = name_copy;
    c->bufs[c->n] = copy;
    c->lens[c->n] = len;
    c->n++;
    return 0;
}

static void certs_free(certs *c)
{
    for (size_t i = 0; i < c->n; i++) {
        free(c->names[i]);
        free(c->bufs[i]);
    }
    free(c->names);
    free(c->bufs);
    free(c->lens);
}

typedef struct {
    certs *c;
    const char *path;
    int oom;
} bundle_ctx;

static int bundle_line(const bx_ledger_note_line *line, void *ctx)
{
    bundle_ctx *b = ctx;
    if (certs_push(b->c, b->path, line->lineno, line->bytes, line->len) != 0)
        b->oom = 1;
    return b->oom;
}

static int ends_with(const char *s, const char *suf)
{
    size_t a = strlen(s), b = strlen(suf);
    return a >= b && strcmp(s + a - b, suf) == 0;
}

/* Read CERT: one envelope, or one per line of a *.jsonl bundle or of stdin. */
static int read_cert(const char *path, size_t max, certs *c)
{
    char *buf = NULL;
    size_t len = 0;
    bx_error err;
    int rc = 0;
    int lines = strcmp(path, "-") == 0 || ends_with(path, ".jsonl");
    /* A bundle may hold many envelopes; one envelope gets a byte of slack for its newline. */
    if (bx_read_file(path, lines ? BX_LEDGER_NOTE_MAX : max + 1, 0, &buf, &len, &err) != 0)
        return cli_report(path, &err);
    if (lines) {
        bundle_ctx b = {c, path, 0};
        if (bx_ledger_note_parse(buf, len, (size_t)-1, bundle_line, &b, &err) != 0 || b.oom)
            rc = EXIT_ENV;
    } else {
        while (len > 0 && (buf[len - 1] == '\n' || buf[len - 1] == '\r'))
            len--;
        if (certs_push(c, path, 0, buf, len) != 0)
            rc = EXIT_ENV;
    }
    if (rc)
        fprintf(stderr, "%s: %s: out of memory\n", cli_prog, path);
    free(buf);
    return rc;
}

static const char *status_word(int status)
{
    switch (status) {
    case BX_LEDGER_ADDED:
        return "added";
    case BX_LEDGER_MERGED:
        return "merged";
    default:
        return "unchanged";
    }
}

static int ledger_add(const args *a, bx_ledger *l, const bx_policy *p, int argc, char **argv)
{
    certs c = {0};
    bx_ledger_add_item *items = NULL;
    bx_error err;
    char commit[41];
    int rc = 0;

    for (int i = optind; i < argc && rc == 0; i++)
        rc = read_cert(argv[i], BX_ENVELOPE_MAX_DEFAULT, &c);
    if (rc)
        goto out;
    if (c.n == 0) {
        rc = cli_usage_error("add", "no certificate in the input");
        goto out;
    }
    if (bx_ledger_resolve(l, a->rev, commit, &err) != 0) {
        rc = cli_report(a->rev, &err);
        goto out;
    }
    items = calloc(c.n, sizeof *items);
    if (!items) {
        rc = EXIT_ENV;
        goto out;
    }
    int lrc =
        bx_ledger_add(l, p, &a->vo, commit, c.n, (const char *const *)c.bufs, c.lens, items, &err);
    if (lrc == BX_EDENIED) {
        /* Show why, as verify would; nothing was stored. */
        report *rep = NULL;
        if (report_open(&rep, FMT_TEXT, stdout, "ledger add", NULL, cli_colour(stdout)) == 0) {
            for (size_t i = 0; i < c.n; i++)
                report_result(rep, c.names[i], 0, &items[i].res);
            report_close(rep);
        }
        fflush(stdout);
    }
    if (lrc != 0) {
        rc = cli_report(commit, &err);
        goto out;
    }
    for (size_t i = 0; i < c.n && !cli_quiet; i++) {
        printf("%-9s %.12s ", status_word(items[i].status), items[i].certificate_id);
        cli_put_safe(stdout, c.names[i]);
        printf(" %s %s\n", items[i].status == BX_LEDGER_UNCHANGED ? "already on" : "on", commit);
    }
    if (fflush(stdout) != 0)
        rc = EXIT_ENV;
out:
    bx_ledger_add_items_free(items, c.n);
    free(items);
    certs_free(&c);
    return rc;
}

/* ---- show and verify ---------------------------------------------------------- */

static int ledger_report(const args *a, bx_ledger *l, const bx_policy *p, int show)
{
    bx_error err;
    json_t *policy_id = NULL;
    bx_atomic *atomic = NULL;
    FILE *out = stdout;
    report *rep = NULL;
    bx_ledger_summary sum = {0};
    int rc = 0;

    if (!(policy_id = bx_policy_identity(p, &err)))
        return cli_report(a->policy, &err);
    if (a->output && bx_atomic_open(a->output, 0644, &atomic, &out, &err) != 0) {
        json_decref(policy_id);
        return cli_report(a->output, &err);
    }
    if (report_open(&rep, a->fmt, out, show ? "ledger show" : "ledger verify", policy_id,
                    !a->output && cli_colour(stdout)) != 0) {
        rc = EXIT_ENV;
        goto out;
    }
    int lrc = show ? bx_ledger_show(l, p, &a->vo, a->rev, on_result, rep, &sum, &err)
                   : bx_ledger_verify_range(l, p, &a->vo, a->range, a->first_parent, on_result, rep,
                                            &sum, &err);
    int werr = report_close(rep);
    if (lrc != 0) {
        rc = cli_report(show ? a->rev : a->range, &err);
        goto out;
    }
    if ((a->fmt == FMT_TEXT || a->fmt == FMT_GITHUB) && !cli_quiet)
        fprintf(out, "%zu commit%s: %zu attested, %zu without a passing certificate\n", sum.commits,
                sum.commits == 1 ? "" : "s", sum.attested, sum.commits - sum.attested);
    if (atomic) {
        bx_atomic *x = atomic;
        atomic = NULL;
        if (bx_atomic_commit(x, &err) != 0) {
            rc = cli_report(a->output, &err);
            goto out;
        }
    } else if (werr || fflush(stdout) != 0) {
        rc = EXIT_ENV;
        goto out;
    }
    if (sum.commits == 0 && !show) {
        cli_usage_error(a->range, "the range holds no commit: nothing is attested");
        rc = EXIT_REJECT;
    } else {
        rc = sum.attested == sum.commits ? EXIT_PASS : EXIT_REJECT;
    }
out:
    bx_atomic_abort(atomic);
    json_decref(policy_id);
    return rc;
}

/* ---- push and fetch ----------------------------------------------------------- */

static int ledger_sync(const args *a, bx_ledger *l, int push)
{
    bx_ledger_sync s;
    bx_error err;
    int lrc =
        push ? bx_ledger_push(l, a->remote, &s, &err) : bx_ledger_fetch(l, a->remote, &s, &err);
    if (lrc != 0)
        return cli_report("--remote", &err); /* where: the remote without credentials */
    if (cli_quiet)
        return EXIT_PASS;
    if (push) {
        if (!s.after[0])
            printf("no %s to push\n", BX_LEDGER_NOTES_REF);
        else if (s.outcome == BX_LEDGER_SYNC_NONE) {
            cli_put_safe(stdout, s.remote);
            printf(" is up to date: %s at %.12s\n", BX_LEDGER_NOTES_REF, s.after);
        } else {
            printf("pushed %s to ", BX_LEDGER_NOTES_REF);
            cli_put_safe(stdout, s.remote);
            printf(": %.12s..%.12s", s.before[0] ? s.before : "(none)", s.after);
            if (s.attempts > 1)
                printf(" (after %zu rounds of fetch and merge)", s.attempts);
            putchar('\n');
        }
    } else if (!s.remote_has_notes) {
        cli_put_safe(stdout, s.remote);
        printf(" has no %s: nothing fetched\n", BX_LEDGER_NOTES_REF);
    } else if (s.outcome == BX_LEDGER_SYNC_NONE) {
        printf("%s is up to date with ", BX_LEDGER_NOTES_REF);
        cli_put_safe(stdout, s.remote);
        putchar('\n');
    } else {
        printf("%s: %s ", BX_LEDGER_NOTES_REF,
               s.outcome == BX_LEDGER_SYNC_FASTFORWARD ? "fast-forward" : "merged");
        cli_put_safe(stdout, s.remote);
        printf(" %.12s..%.12s", s.before[0] ? s.before : "(none)", s.after);
        if (s.outcome == BX_LEDGER_SYNC_MERGED)
            printf(" (%zu note%s changed)", s.notes_changed, s.notes_changed == 1 ? "" : "s");
        putchar('\n');
    }
    if (s.odd_kept) { /* a gitlink or a stray entry pushed to the shared notes ref */
        printf("kept %zu entr%s of the notes tree that %s not a note untouched (first: ",
               s.odd_kept, s.odd_kept == 1 ? "y" : "ies", s.odd_kept == 1 ? "is" : "are");
        cli_put_safe(stdout, s.odd_first);
        printf(")\n");
    }
    return fflush(stdout) != 0 ? EXIT_ENV : EXIT_PASS;
}

int cmd_ledger(int argc, char **argv)
{
    args a;
    bx_ledger *l = NULL;
    bx_policy *p = NULL;
    const char *allowed = NULL;
    char *env_keys = NULL;
    int rc;

    memset(&a, 0, sizeof a);
    if (argc < 2)
        return cli_usage_error("ledger", "a subcommand is required: add, show, verify, push or "
                                         "fetch (see 'boxcert ledger --help')");
    if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 ||
        strcmp(argv[1], "help") == 0) {
        cli_help(help);
        return EXIT_PASS;
    }
    while (argc > 2 && (strcmp(argv[1], "-q") == 0 || strcmp(argv[1], "--quiet") == 0)) {
        cli_quiet = 1;
        argc--;
        argv++;
    }
    for (size_t i = 0; i < sizeof accepts / sizeof *accepts; i++)
        if (strcmp(argv[1], accepts[i].sub) == 0)
            allowed = accepts[i].allowed;
    if (!allowed) {
        static const char *const subs[] = {"add", "show", "verify", "push", "fetch", NULL};
        return cli_unknown("ledger", "subcommand", argv[1], subs);
    }
    a.sub = argv[1];
    if ((rc = parse(argc - 1, argv + 1, allowed, &a)) != 0 || a.help) {
        if (a.help)
            cli_help(help);
        goto out;
    }
    argc--;
    argv++;
    int push = strcmp(a.sub, "push") == 0, fetch = strcmp(a.sub, "fetch") == 0;
    if (!push && !fetch)
        cli_keys_from_env(&a.keys, &env_keys);
    if (a.output) {
        cli_files files = {0};
        cli_files_add(&files, "--output", a.output, CLI_OUT);
        cli_files_add_policy(&files, a.policy);
        for (size_t i = 0; i < a.keys.n; i++)
            cli_files_add(&files, "--key", a.keys.v[i], CLI_IN);
        rc = cli_files_check(&files);
        cli_files_free(&files);
        if (rc != 0)
            goto out;
    }
    if (!push && !fetch &&
        (rc = cli_load_policy(a.policy, a.keys.v, a.keys.n, a.threshold, &p)) != 0)
        goto out;
    if ((rc = open_ledger(&a, &l)) != 0)
        goto out;
    if (push || fetch)
        rc = ledger_sync(&a, l, push);
    else if (strcmp(a.sub, "add") == 0)
        rc = ledger_add(&a, l, p, argc, argv);
    else
        rc = ledger_report(&a, l, p, strcmp(a.sub, "show") == 0);
out:
    bx_ledger_close(l);
    bx_policy_free(p);
    free(a.keys.v);
    free(env_keys);
    return rc;
}
