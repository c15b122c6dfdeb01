/* SPDX-License-Identifier: Apache-2.0 */
#include "cli.h"
#include "paths.h"
#include "report.h"
#include "bx_expect.h"

#include <getopt.h>
#include <string.h>
#include <time.h>

static const char help[] =
    "usage: boxcert verify CERT... --policy FILE|PROFILE [--key PUB]... [--threshold N]\n"
    "         [--at RFC3339] [--nonce HEX] [--expect-image sha256:HEX] [--expect-container[-id|-name] C]\n"
    "         [--expect-label K=V]... [--expect-source COMMIT] [--seen FILE [--seen-run RUN]]\n"
    "         [--jobs N]\n"
    "         [--expect FILE] [--recursive] [--max-size BYTES]\n"
    "         [--format text|json|junit|sarif|github|markdown] [--output FILE|-]\n"
    "         [--report FORMAT=FILE]... [-q|--quiet]\n\n"
    "Verify certificates offline: envelope, signatures (distinct trusted keys >= threshold),\n"
    "statement, key validity, times, challenge and bindings, then the policy's rules.\n"
    "CERT is a file (*.intoto.json), a JSON Lines bundle (*.intoto.jsonl: one envelope per\n"
    "line), a directory of those, or - for stdin (read as JSON Lines). A directory's other\n"
    "entries are listed as skipped (never failing); its subfolders too, unless --recursive.\n"
    "An entry that cannot be examined or opened is an error row (exit 3).\n"
    "  --policy P             a policy file or a built-in profile (NAME or NAME@VERSION)\n"
    "  --key PUB              trust this public key (SPKI PEM) besides the policy's\n"
    "  --threshold N          override trust.threshold\n"
    "  --at TIME              judge times at TIME (RFC 3339) instead of now\n"
    "  --nonce HEX            the certificate must carry this challenge\n"
    "  --expect-image ID      bind: predicate.image.id\n"
    "  --expect-container C   bind: the session's container Id (64 hex digits), an Id prefix\n"
    "                         (12 to 63 hex digits) or, for anything else, its name; a session\n"
    "                         named with an Id prefix it does not have is ambiguous (exit 2)\n"
    "  --expect-container-id ID, --expect-container-name NAME\n"
    "                         bind by the Id (or a 12+ digit prefix) only, or the name only\n"
    "  --expect-label K=V     bind: the session carries this label (repeatable)\n"
    "  --expect-source SHA    bind: the statement's source commit\n"
    "  --seen FILE            reject certificates seen before; record those that pass\n"
    "  --seen-run RUN         the gate's run (CI's run id): what this run recorded in the\n"
    "                         --seen file passes again in it (a re-run), in no other run\n"
    "  --expect FILE          the launcher's list of sessions (boxcert schema expect): each\n"
    "                         needs a passing certificate for its start (certificate.missing)\n"
    "  --recursive            read a directory's subfolders too (never a link to one)\n"
    "  --jobs N               verify with N threads (output stays in input order)\n"
    "  --max-size N           envelope size cap in bytes (default 1048576)\n"
    "  --format F             text (default), json, junit, sarif, github or markdown (a\n"
    "                         table of what failed, for a CI's step summary)\n"
    "  --output FILE          write the report to FILE (atomically) instead of stdout (-)\n"
    "  --report F=FILE        also write the report in format F to FILE, from the same\n"
    "                         verification (repeatable, up to 8): --seen records once\n"
    "  -q, --quiet            text and github: only what failed (no PASS or SKIP lines, no\n"
    "                         summary)\n"
    "  -h, --help             this help\n"
    "Environment: BOXCERT_POLICY (for --policy), BOXCERT_KEY (PUB:PUB...: for --key, when\n"
    "none is given), BOXCERT_FORMAT (for --format); the command line wins.\n"
    "Files: an output (--output, --report, --seen) that is another output, an input (a\n"
    "certificate, the policy, a key, the --expect list) or a certificate's name in a folder\n"
    "read is refused before anything is read or written (exit 2), however it is spelled.\n"
    "Exit: 0 all pass, 1 a certificate failed, 2 usage or configuration error, 3 I/O error\n"
    "(a --seen file that cannot be written is also a failed row in every report).\n";

/* What one verify run keeps: the report, the seen file, and whether an input could not be
 * read or verified (exit 3). Certificates are read and verified by verify/'s batch verifier. */
#define MORE_MAX 8

typedef struct {
    report *rep;
    report *more[MORE_MAX]; /* --report F=FILE */
    size_t nmore;
    bx_seen *seen;
    bx_expect_check *expect; /* --expect, or NULL */
    int io_error, env_error;
    int config_error; /* a certificate showed the gate misconfigured (an ambiguous binding) */
} run;

static int on_skip(void *arg, const char *file, const char *why)
{
    run *r = arg;
    report_skipped(r->rep, file, why);
    for (size_t i = 0; i < r->nmore; i++)
        report_skipped(r->more[i], file, why);
    return 0;
}

/* A result, in input order: replay check, then the report. */
static int on_result(void *arg, bx_batch_item *it)
{
    run *r = arg;
    bx_error err;
    if (it->unreadable) {
        /* what the environment failed to read makes the run an environment error; what is
         * not a certificate (too large, not a regular file) is a failed row */
        cli_report(it->file, &it->err);
        if (cli_exit_for(it->err.code) == EXIT_ENV)
            r->io_error = 1;
    } else if (it->rc != 0) {
        cli_report(it->file, &it->err);
        r->env_error = 1;
    } else if (r->seen && bx_seen_check(r->seen, it->res, &err) != 0) {
        cli_report(it->file, &err);
        r->env_error = 1;
    }
    if (r->expect && bx_expect_check_add(r->expect, it->file, it->line, it->res, &err) != 0) {
        cli_report(it->file, &err);
        r->env_error = 1;
    }
    if (it->res && it->res->config_error && !r->config_error) {
        bx_error e = {0};
        r->config_error = 1;
        bx_error_set(&e, BX_ECONFIG, NULL,
                     "--expect-container is ambiguous: the session is named so and its Id does "
                     "not start with it; say --expect-container-id or --expect-container-name");
        cli_report(it->file, &e);
    }
    report_result(r->rep, it->file, it->line, it->res);
    for (size_t i = 0; i < r->nmore; i++)
        report_result(r->more[i], it->file, it->line, it->res);
    return 0;
}

/* The --seen file could not be written: a failed row in every report, naming it (the
 * certificates that passed are not recorded, so a replay of them would pass). */
static void seen_failed(run *r, const char *path, const bx_error *why)
{
    char buf[400];
    bx_verify_result res = {0};
    if (!(res.findings = json_array()))
        return; /* the error line and exit 3 still say it */
    bx_finding_add(res.findings, "certificate.replay", "fail", NULL, NULL,
                   "the --seen file could not be written (%s): the certificates that passed "
                   "are not recorded, so a replay of them would pass",
                   bx_error_str(why, buf, sizeof buf));
    report_result(r->rep, path, 0, &res);
    for (size_t i = 0; i < r->nmore; i++)
        report_result(r->more[i], path, 0, &res);
    bx_verify_result_free(&res);
}

/* --report F=FILE, each written atomically beside FILE. */
typedef struct {
    report_format fmt;
    const char *path;
    bx_atomic *atomic;
    FILE *out;
} more_out;

static int parse_more(const char *arg, more_out *m)
{
    const char *eq = strchr(arg, '=');
    char name[16];
    if (!eq || eq == arg || (size_t)(eq - arg) >= sizeof name || !eq[1])
        return cli_usage_error("--report", "'%s' is not FORMAT=FILE", arg);
    snprintf(name, sizeof name, "%.*s", (int)(eq - arg), arg);
    if (report_parse_format(name, &m->fmt) != 0)
        return cli_usage_error("--report", "unknown format '%s': text, json, junit, sarif, github "
                               "or markdown", name);
    m->path = eq + 1;
    if (!strcmp(m->path, "-"))
        return cli_usage_error("--report", "'%s': a report of --report goes to a file", arg);
    return 0;
}

static int check_binding_args(const bx_binding *b)
{
    if (b->image && (strncmp(b->image, "sha256:", 7) != 0 || !bx_is_lower_hex(b->image + 7, 64)))
        return cli_usage_error("--expect-image", "'%s' is not sha256:<64 lowercase hex>", b->image);
    if (b->source && !bx_is_lower_hex(b->source, 40))
        return cli_usage_error("--expect-source", "'%s' is not a 40-hex commit id", b->source);
    if (b->nonce && (!*b->nonce || !bx_is_lower_hex(b->nonce, strlen(b->nonce))))
        return cli_usage_error("--nonce", "'%s' is not lowercase hex", b->nonce);
    for (size_t i = 0; i < b->nlabels; i++)
        if (!strchr(b->labels[i], '=') || b->labels[i][0] == '=')
            return cli_usage_error("--expect-label", "'%s' is not K=V", b->labels[i]);
    if (!!b->container + !!b->container_id + !!b->container_name > 1)
        return cli_usage_error("--expect-container",
                               "give one of --expect-container, --expect-container-id and "
                               "--expect-container-name");
    if (b->container && !*b->container)
        return cli_usage_error("--expect-container", "empty");
    if (b->container_id && (strlen(b->container_id) < 12 || strlen(b->container_id) > 64 ||
                            !bx_is_lower_hex(b->container_id, strlen(b->container_id))))
        return cli_usage_error("--expect-container-id",
                               "'%s' is not a container Id or a prefix of 12 or more lowercase hex "
                               "digits",
                               b->container_id);
    if (b->container_name && !*b->container_name)
        return cli_usage_error("--expect-container-name", "empty");
    return 0;
}

int cmd_verify(int argc, char **argv)
{
    static const struct option opts[] = {{"policy", required_argument, 0, 'p'},
                                         {"key", required_argument, 0, 'k'},
                                         {"threshold", required_argument, 0, 'T'},
                                         {"at", required_argument, 0, 'a'},
                                         {"nonce", required_argument, 0, 'n'},
                                         {"expect-image", required_argument, 0, 'I'},
                                         {"expect-container", required_argument, 0, 'C'},
                                         {"expect-container-id", required_argument, 0, 'D'},
                                         {"expect-container-name", required_argument, 0, 'N'},
                                         {"expect-label", required_argument, 0, 'L'},
                                         {"expect-source", required_argument, 0, 'S'},
                                         {"seen", required_argument, 0, 's'},
                                         {"seen-run", required_argument, 0, 'U'},
                                         {"jobs", required_argument, 0, 'j'},
                                         {"max-size", required_argument, 0, 'm'},
                                         {"expect", required_argument, 0, 'x'},
                                         {"recursive", no_argument, 0, 'R'},
                                         {"format", required_argument, 0, 'f'},
                                         {"output", required_argument, 0, 'o'},
                                         {"report", required_argument, 0, 'r'},
                                         {"quiet", no_argument, 0, 'q'},
                                         {"help", no_argument, 0, 'h'},
                                         {0, 0, 0, 0}};
    cli_list keys = {0}, labels = {0};
    const char *policy_arg = NULL, *format = NULL, *output = NULL, *seen_path = NULL,
               *seen_run = NULL;
    char *env_keys = NULL;
    int format_env = 0;
    const char *expect_path = NULL;
    bx_expect expect = {0};
    json_t *rows = NULL;
    int c, rc = EXIT_PASS, threshold = 0;
    long v = 0;
    bx_policy *p = NULL;
    bx_error err;
    json_t *policy_id = NULL;
    bx_atomic *atomic = NULL;
    FILE *out = NULL;
    report_format fmt = FMT_TEXT;
    bx_verify_opts vo = {.at = (int64_t)time(NULL)};
    bx_batch_opts bo = {.jobs = 1, .cache = 1};
    bx_source_opts so = {0};
    bx_batch *batch = NULL;
    run run_ = {0}, *r = &run_;
    more_out more[MORE_MAX] = {0};
    size_t nmore = 0;
    cli_files files = {0};

    while ((c = cli_getopt("verify", argc, argv, opts)) != -1) {
        switch (c) {
        case 'p': policy_arg = optarg; break;
        case 'k': cli_list_add(&keys, optarg); break;
        case 'T':
            if ((rc = cli_parse_threshold(optarg, &threshold)) != 0)
                goto out;
            break;
        case 'a':
            if ((rc = cli_parse_time("--at", optarg, &vo.at)) != 0)
                goto out;
            break;
        case 'n': vo.expect.nonce = optarg; break;
        case 'I': vo.expect.image = optarg; break;
        case 'C': vo.expect.container = optarg; break;
        case 'D': vo.expect.container_id = optarg; break;
        case 'N': vo.expect.container_name = optarg; break;
        case 'L': cli_list_add(&labels, optarg); break;
        case 'S': vo.expect.source = optarg; break;
        case 's': seen_path = optarg; break;
        case 'U': seen_run = optarg; break;
        case 'r':
            if (nmore == MORE_MAX) {
                rc = cli_usage_error("--report", "at most %d", MORE_MAX);
                goto out;
            }
            if ((rc = parse_more(optarg, &more[nmore])) != 0)
                goto out;
            nmore++;
            break;
        case 'j':
            if ((rc = cli_parse_count("--jobs", optarg, 1, 64, &v)) != 0)
                goto out;
            bo.jobs = (int)v;
            break;
        case 'm':
            if ((rc = cli_parse_count("--max-size", optarg, 1, 1L << 30, &v)) != 0)
                goto out;
            vo.max_size = so.max_size = (size_t)v;
            break;
        case 'x': expect_path = optarg; break;
        case 'R': so.recursive = 1; break;
        case 'f': format = optarg; break;
        case 'o': output = cli_out_path(optarg); break;
        case 'h': cli_help(help); goto out;
        default: rc = EXIT_USAGE; goto out;
        }
    }
    vo.expect.labels = (const char *const *)labels.v;
    vo.expect.nlabels = labels.n;
    format = cli_format_from_env(format, "text", &format_env);
    if (report_parse_format(format, &fmt) != 0) {
        rc = cli_bad_format(format, format_env, "text, json, junit, sarif, github or markdown");
        goto out;
    }
    cli_keys_from_env(&keys, &env_keys);
    if ((rc = check_binding_args(&vo.expect)) != 0)
        goto out;
    if (optind >= argc) {
        rc = cli_usage_error("verify", "no certificate given (see --help)");
        goto out;
    }
    /* every file written is checked against every file read, before anything is */
    cli_files_add(&files, "--output", output, CLI_OUT);
    for (size_t i = 0; i < nmore; i++)
        cli_files_add(&files, "--report", more[i].path, CLI_OUT);
    cli_files_add(&files, "--seen", seen_path, CLI_OUT);
    cli_files_add_policy(&files, policy_arg);
    for (size_t i = 0; i < keys.n; i++)
        cli_files_add(&files, "--key", keys.v[i], CLI_IN);
    cli_files_add(&files, "--expect", expect_path, CLI_IN);
    cli_files_add_certs(&files, argv + optind, (size_t)(argc - optind), so.recursive);
    if ((rc = cli_files_check(&files)) != 0)
        goto out;
    if ((rc = cli_load_policy(policy_arg, keys.v, keys.n, threshold, &p)) != 0)
        goto out;
    if (!(policy_id = bx_policy_identity(p, &err))) {
        rc = cli_report(policy_arg, &err);
        goto out;
    }
    if (expect_path && bx_expect_load(expect_path, &expect, &err) != 0) {
        rc = cli_report(expect_path, &err);
        goto out;
    }
    if (expect_path && bx_expect_check_new(&expect, vo.expect.labels, vo.expect.nlabels,
                                           &r->expect, &err) != 0) {
        rc = cli_report(expect_path, &err);
        goto out;
    }
    if (seen_run && !seen_path) {
        rc = cli_usage_error("--seen-run", "needs --seen FILE");
        goto out;
    }
    if (seen_run && !bx_seen_run_ok(seen_run)) {
        rc = cli_usage_error("--seen-run", "'%s' is not 1 to 128 of A-Z a-z 0-9 . _ : / @ + -",
                             seen_run);
        goto out;
    }
    /* pruned by the wall clock, kept for the largest skew the file was used with */
    if (seen_path &&
        bx_seen_open(seen_path, (int64_t)time(NULL), bx_policy_clock_skew(p), &r->seen, &err) != 0) {
        rc = cli_report(seen_path, &err);
        goto out;
    }
    if (seen_run && bx_seen_set_run(r->seen, seen_run, &err) != 0) {
        rc = cli_report(seen_path, &err);
        goto out;
    }
    if (output && bx_atomic_open(output, 0644, &atomic, &out, &err) != 0) {
        rc = cli_report(output, &err);
        goto out;
    }
    if (!output)
        out = stdout;
    if (report_open(&r->rep, fmt, out, "verify", policy_id, !output && cli_colour(stdout))) {
        rc = EXIT_ENV;
        goto out;
    }
    report_set_time(r->rep, vo.at);
    for (size_t i = 0; i < nmore; i++) {
        if (bx_atomic_open(more[i].path, 0644, &more[i].atomic, &more[i].out, &err) != 0) {
            rc = cli_report(more[i].path, &err);
            goto out;
        }
        if (report_open(&r->more[i], more[i].fmt, more[i].out, "verify", policy_id, 0)) {
            rc = EXIT_ENV;
            goto out;
        }
        r->nmore = i + 1;
        report_set_time(r->more[i], vo.at);
    }
    if (bx_batch_open(p, &vo, &bo, on_result, r, &batch, &err) != 0) {
        rc = cli_report("verify", &err);
        goto out;
    }
    for (int i = optind; i < argc; i++) {
        int brc = bx_batch_path(batch, argv[i], &so, on_skip, r);
        if (brc != 0) { /* out of memory: the list would be shorter, so nothing passes */
            bx_error_set(&err, brc, argv[i], "out of memory: not every certificate was read");
            bx_batch_close(batch);
            batch = NULL;
            rc = cli_report(argv[i], &err);
            goto out;
        }
    }
    bx_batch_close(batch);
    batch = NULL;
    if (r->expect) {
        size_t missing = 0;
        if (bx_expect_check_rows(r->expect, &rows, &missing, &err) != 0) {
            rc = cli_report(expect_path, &err);
            goto out;
        }
        report_rows(r->rep, rows);
        for (size_t i = 0; i < r->nmore; i++)
            report_rows(r->more[i], rows);
    }
    /* the --seen file before the reports: when it cannot be written, every report says so */
    if (r->seen) {
        int src = bx_seen_close(r->seen, &err);
        r->seen = NULL;
        if (src != 0) {
            cli_report(seen_path, &err);
            r->io_error = 1;
            seen_failed(r, seen_path, &err);
        }
    }
    size_t total = report_count(r->rep), failed = report_failed(r->rep);
    int werr = report_close(r->rep);
    r->rep = NULL;
    for (size_t i = 0; i < r->nmore; i++) {
        int mw = report_close(r->more[i]);
        bx_atomic *a = more[i].atomic;
        r->more[i] = NULL;
        more[i].atomic = NULL;
        if (mw != 0) { /* not whole: never in place of the report */
            bx_atomic_abort(a);
            bx_error_set(&err, BX_EIO, more[i].path, "the report could not be written whole");
            cli_report(more[i].path, &err);
            r->io_error = 1;
        } else if (bx_atomic_commit(a, &err) != 0) {
            cli_report(more[i].path, &err);
            r->io_error = 1;
        }
    }
    if (atomic && werr) {
        bx_atomic_abort(atomic);
        atomic = NULL;
        bx_error_set(&err, BX_EIO, output, "the report could not be written whole");
        rc = cli_report(output, &err);
        goto out;
    } else if (atomic) {
        bx_atomic *a = atomic;
        atomic = NULL;
        if (bx_atomic_commit(a, &err) != 0) {
            rc = cli_report(output, &err);
            goto out;
        }
    } else if (werr || fflush(stdout) != 0) {
        rc = EXIT_ENV;
        goto out;
    }
    /* with --expect, an empty list and no certificate is a pass: nothing was to be shown */
    rc = r->config_error                           ? EXIT_USAGE
         : (r->io_error || r->env_error)           ? EXIT_ENV
         : failed || (total == 0 && !r->expect) ? EXIT_REJECT
                                                  : EXIT_PASS;
out:
    bx_batch_close(batch);
    if (r->rep)
        report_close(r->rep);
    for (size_t i = 0; i < r->nmore; i++)
        if (r->more[i])
            report_close(r->more[i]);
    for (size_t i = 0; i < nmore; i++)
        bx_atomic_abort(more[i].atomic);
    if (r->seen)
        bx_seen_close(r->seen, &err);
    bx_atomic_abort(atomic);
    bx_expect_check_free(r->expect);
    bx_expect_free(&expect);
    json_decref(rows);
    cli_files_free(&files);
    free(keys.v);
    free(env_keys);
    free(labels.v);
    bx_policy_free(p);
    json_decref(policy_id);
    return rc;
}
