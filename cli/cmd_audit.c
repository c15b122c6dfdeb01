/* SPDX-License-Identifier: Apache-2.0 */
#include "cli.h"
#include "paths.h"
#include "audit_report.h"
#include "bx_audit.h"

#include <getopt.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static const char help[] =
    "usage: boxcert audit --policy FILE|PROFILE [--key PUB]... --certs DIR [--engine URL]...\n"
    "         [--insecure-engine] [--label K=V]... [--expect FILE] [--collect --signing-key KEY...]\n"
    "         [--tasks DIR|none] [--jobs N] [--format text|json|junit|sarif|github|html]\n"
    "         [--output FILE|-] [-q|--quiet]\n\n"
    "The post-run audit. Sessions are the containers carrying every --label (exact match),\n"
    "running or exited, on every engine (one engine reached through two endpoints counts\n"
    "once), plus those listed in --expect. Each certificate in DIR is verified; a verified\n"
    "one belongs to the session start with its containerId and startedAt. Each session is\n"
    "one row: compliant, noncompliant, unattested (no certificate for this start), missing\n"
    "(expected, never seen, no certificate) or unreachable; flagged late (issued after\n"
    "certificate.maxCollectionDelay), leftover (still on its engine, running or exited) or\n"
    "duplicate. Runtime tasks no engine knows are orphans.\n"
    "  --policy P           a policy file or a built-in profile (NAME or NAME@VERSION)\n"
    "  --key PUB            trust this public key (SPKI PEM) besides the policy's\n"
    "  --certs DIR          the run's certificates (*.intoto.json, *.intoto.jsonl)\n"
    "  --engine URL         unix:///path or tcp://host:port; repeat for several engines\n"
    "                       (default $BOXCERT_ENGINE, else $DOCKER_HOST, else\n"
    "                       unix:///var/run/docker.sock;\n"
    "                       tcp:// with mutual TLS: DOCKER_TLS_VERIFY, DOCKER_CERT_PATH)\n"
    "  --insecure-engine    allow a plain tcp:// engine (no TLS)\n"
    "  --label K=V          select sessions carrying this label (repeatable: all of them)\n"
    "  --expect FILE        the launcher's list of sessions (boxcert schema expect)\n"
    "  --collect            first collect certificates for running sessions without one\n"
    "  --signing-key KEY    private key for --collect (repeat to add signatures)\n"
    "  --tasks DIR|none     the runtime's task folder for orphans (default\n"
    "                       " BX_AUDIT_TASKS_DEFAULT ",\n"
    "                       checked when a local Docker engine is audited)\n"
    "  --jobs N             inspect and collect N sessions at a time, each with its own\n"
    "                       connection to its engine (default 4; 1 = one after another)\n"
    "  --format F           text (default), json, junit, sarif, github or html\n"
    "  --output FILE        write the report to FILE (atomically) instead of stdout (-)\n"
    "  -q, --quiet          no progress; text and github: only the rows that fail\n"
    "  -h, --help           this help\n"
    "Progress (on a terminal): each phase's count only goes up.\n"
    "Environment: BOXCERT_POLICY, BOXCERT_KEY (PUB:PUB...), BOXCERT_FORMAT, BOXCERT_ENGINE,\n"
    "BOXCERT_SIGNING_KEY (for --signing-key); the command line wins.\n"
    "Exit: 0 every session compliant and none left over, 1 a violation, 2 usage or\n"
    "configuration error (also --output naming an input, or a certificate's name in\n"
    "--certs, refused first), 3 an engine unreachable or lost, or an I/O error (the audit is\n"
    "incomplete; the report holds what was read).\n";

/* total 0: not known yet (the certificates are counted as they are read). The workers report
 * as they take a session, one at a time but not in the order they took them: a count below
 * the one shown for the same phase is not shown, so the count never goes backwards. Called
 * under the audit's lock, never at once. */
static void progress(void *ud, const char *phase, size_t done, size_t total)
{
    static char last_phase[32];
    static size_t last_done;
    (void)ud;
    if (strcmp(phase, last_phase) == 0 && done < last_done)
        return;
    if (strcmp(phase, last_phase) != 0)
        snprintf(last_phase, sizeof last_phase, "%s", phase);
    last_done = done;
    if (total)
        fprintf(stderr, "\r%s audit: %s %zu/%zu\033[K", cli_prog, phase, done, total);
    else
        fprintf(stderr, "\r%s audit: %s %zu\033[K", cli_prog, phase, done);
    fflush(stderr);
}

static int check_labels(const cli_list *l)
{
    for (size_t i = 0; i < l->n; i++) {
        const char *eq = strchr(l->v[i], '=');
        if (!eq || eq == l->v[i])
            return cli_usage_error("--label", "'%s' is not K=V", l->v[i]);
    }
    return 0;
}

static int load_expect(const char *path, bx_expect *e)
{
    bx_error err;

    /* an --expect file that cannot be loaded, for whatever reason, is configuration */
    if (bx_expect_load(path, e, &err) != 0) {
        cli_report(path, &err);
        return err.code == BX_ENOMEM ? EXIT_ENV : EXIT_USAGE;
    }
    return 0;
}

/* The hidden --from-json FILE: render a report written before (tests, the example page). */
static int from_json(const char *path, audit_format fmt, const char *output)
{
    char *buf = NULL;
    size_t len = 0;
    json_t *doc = NULL;
    json_error_t je;
    bx_error err;
    bx_atomic *atomic = NULL;
    FILE *out = stdout;
    int rc;

    if (bx_read_file(path, 64u * 1024 * 1024, 0, &buf, &len, &err) != 0) {
        rc = cli_report(path, &err);
        goto out;
    }
    if (!(doc = json_loadb(buf, len, JSON_REJECT_DUPLICATES, &je))) {
        rc = cli_usage_error(path, "not JSON: %s (at %d:%d)", je.text, je.line, je.column);
        goto out;
    }
    if (bx_audit_report_check(doc, &err) != 0) {
        rc = cli_usage_error(path, "not an audit report: %s: %s", err.where, err.msg);
        goto out;
    }
    if (output && bx_atomic_open(output, 0644, &atomic, &out, &err) != 0) {
        rc = cli_report(output, &err);
        goto out;
    }
    if (audit_render(out, doc, fmt, !output && cli_colour(stdout)) != 0) {
        rc = EXIT_ENV;
        goto out;
    }
    if (atomic) {
        bx_atomic *a = atomic;
        atomic = NULL;
        if (bx_atomic_commit(a, &err) != 0) {
            rc = cli_report(output, &err);
            goto out;
        }
    } else if (fflush(stdout) != 0) {
        rc = EXIT_ENV;
        goto out;
    }
    rc = !json_is_true(json_object_get(doc, "complete")) ? EXIT_ENV
         : json_integer_value(json_object_get(json_object_get(doc, "summary"), "violations"))
             ? EXIT_REJECT
             : EXIT_PASS;
out:
    bx_atomic_abort(atomic);
    json_decref(doc);
    free(buf);
    return rc;
}

int cmd_audit(int argc, char **argv)
{
    /* clang-format off */
    static const struct option opts[] = {{"policy", required_argument, 0, 'p'},
                                         {"key", required_argument, 0, 'k'},
                                         {"certs", required_argument, 0, 'c'},
                                         {"engine", required_argument, 0, 'e'},
                                         {"insecure-engine", no_argument, 0, 'I'},
                                         {"label", required_argument, 0, 'l'},
                                         {"expect", required_argument, 0, 'x'},
                                         {"collect", no_argument, 0, 'C'},
                                         {"signing-key", required_argument, 0, 's'},
                                         {"tasks", required_argument, 0, 't'},
                                         {"jobs", required_argument, 0, 'j'},
                                         {"format", required_argument, 0, 'f'},
                                         {"output", required_argument, 0, 'o'},
                                         {"from-json", required_argument, 0, 'J'}, /* hidden */
                                         {"quiet", no_argument, 0, 'q'},
                                         {"help", no_argument, 0, 'h'},
                                         {0, 0, 0, 0}};
    /* clang-format on */
    cli_list keys = {0}, engines = {0}, labels = {0}, signing = {0};
    const char *policy_arg = NULL, *certs = NULL, *expect_path = NULL, *tasks = NULL;
    const char *format = NULL, *output = NULL, *from = NULL;
    char *env_keys = NULL, *env_skeys = NULL;
    int format_env = 0;
    int c, rc = EXIT_PASS, collect = 0, insecure = 0, env_error = 0, complete = 0;
    int progress_shown = 0;
    long jobs = 0;
    bx_policy *p = NULL;
    bx_expect expect = {0};
    EVP_PKEY **skeys = NULL;
    bx_audit *a = NULL;
    json_t *doc = NULL;
    bx_error err;
    bx_atomic *atomic = NULL;
    FILE *out = stdout;
    audit_format fmt = AUDIT_TEXT;
    size_t violations = 0;
    struct stat st;
    cli_files files = {0};

    while ((c = cli_getopt("audit", argc, argv, opts)) != -1) {
        /* clang-format off */
        switch (c) {
        case 'p': policy_arg = optarg; break;
        case 'k': cli_list_add(&keys, optarg); break;
        case 'c': certs = optarg; break;
        case 'e': cli_list_add(&engines, optarg); break;
        case 'I': insecure = 1; break;
        case 'l': cli_list_add(&labels, optarg); break;
        case 'x': expect_path = optarg; break;
        case 'C': collect = 1; break;
        case 's': cli_list_add(&signing, optarg); break;
        case 't': tasks = optarg; break;
        case 'f': format = optarg; break;
        case 'o': output = cli_out_path(optarg); break;
        case 'J': from = optarg; break;
        case 'j':
            if ((rc = cli_parse_count("--jobs", optarg, 1, BX_AUDIT_JOBS_MAX, &jobs)) != 0)
                goto out;
            break;
        case 'h': cli_help(help); goto out;
        default: rc = EXIT_USAGE; goto out;
        }
        /* clang-format on */
    }
    format = cli_format_from_env(format, "text", &format_env);
    if (audit_parse_format(format, &fmt) != 0) {
        rc = cli_bad_format(format, format_env, "text, json, junit, sarif, github or html");
        goto out;
    }
    cli_keys_from_env(&keys, &env_keys);
    if (collect)
        cli_signing_keys_from_env(&signing, &env_skeys);
    if (!engines.n && cli_env("BOXCERT_ENGINE"))
        cli_list_add(&engines, (char *)cli_env("BOXCERT_ENGINE"));
    if (optind < argc) {
        rc = cli_usage_error("audit", "unexpected argument '%s' (see --help)", argv[optind]);
        goto out;
    }
    cli_files_add(&files, "--output", output, CLI_OUT);
    cli_files_add(&files, "--from-json", from, CLI_IN);
    cli_files_add_policy(&files, from ? NULL : policy_arg);
    for (size_t i = 0; i < keys.n; i++)
        cli_files_add(&files, "--key", keys.v[i], CLI_IN);
    for (size_t i = 0; i < signing.n; i++)
        cli_files_add(&files, "--signing-key", signing.v[i], CLI_IN);
    cli_files_add(&files, "--certs", certs, CLI_IN_FOLDER);
    cli_files_add(&files, "--tasks", tasks && strcmp(tasks, "none") ? tasks : NULL, CLI_IN);
    cli_files_add(&files, "--expect", expect_path, CLI_IN);
    if ((rc = cli_files_check(&files)) != 0)
        goto out;
    if (from) {
        rc = from_json(from, fmt, output);
        goto out;
    }
    if ((rc = check_labels(&labels)) != 0)
        goto out;
    if (!certs) {
        rc = cli_usage_error("audit", "--certs DIR is required");
        goto out;
    }
    if (labels.n == 0 && !expect_path) {
        rc =
            cli_usage_error("audit", "select the run's sessions with --label K=V or --expect FILE");
        goto out;
    }
    if (collect && signing.n == 0) {
        rc = cli_usage_error("--collect", "needs at least one --signing-key");
        goto out;
    }
    if (!collect && signing.n) {
        rc = cli_usage_error("--signing-key", "is for --collect");
        goto out;
    }
    if (stat(certs, &st) != 0 || !S_ISDIR(st.st_mode)) {
        rc = cli_usage_error(certs, "--certs is not a folder");
        goto out;
    }
    if (tasks && strcmp(tasks, "none") != 0 && (stat(tasks, &st) != 0 || !S_ISDIR(st.st_mode))) {
        rc = cli_usage_error(tasks, "--tasks is not a folder (or 'none')");
        goto out;
    }
    if ((rc = cli_load_policy(policy_arg, keys.v, keys.n, 0, &p)) != 0)
        goto out;
    if (expect_path && (rc = load_expect(expect_path, &expect)) != 0)
        goto out;
    if (collect)
        bx_collector_protect(); /* the signing keys stay loaded while sessions are read */
    if (signing.n && !(skeys = calloc(signing.n, sizeof *skeys))) {
        rc = EXIT_ENV;
        goto out;
    }
    for (size_t i = 0; i < signing.n; i++) {
        if ((rc = cli_load_signing_key(signing.v[i], &skeys[i])) != 0)
            goto out;
    }
    bx_audit_opts ao = {.policy = p,
                        .labels = (const char *const *)labels.v,
                        .nlabels = labels.n,
                        .expect = expect_path ? &expect : NULL,
                        .now = (int64_t)time(NULL),
                        .progress = isatty(STDERR_FILENO) && !cli_quiet ? progress : NULL,
                        .jobs = (unsigned)jobs,
                        .collect = collect,
                        .signing_keys = (const char *const *)signing.v,
                        .nsigning_keys = signing.n};
    progress_shown = ao.progress != NULL;
    if (bx_audit_new(&ao, &a, &err) != 0) {
        rc = cli_report("audit", &err);
        goto out;
    }
    for (size_t i = 0; i < (engines.n ? engines.n : 1); i++) {
        const char *url = engines.n ? engines.v[i] : NULL;
        if (bx_audit_add_engine(a, url, insecure ? BX_ENGINE_INSECURE : 0, &err) != 0) {
            rc = cli_report(url ? url : "--engine", &err);
            goto out;
        }
    }
    if (output && bx_atomic_open(output, 0644, &atomic, &out, &err) != 0) {
        rc = cli_report(output, &err);
        goto out;
    }
    /* from here on, whatever an engine or a file does, a report is written */
    if (bx_audit_scan(a, &err) != 0) {
        rc = cli_report("audit", &err);
        goto out;
    }
    if ((!tasks || strcmp(tasks, "none") != 0) && bx_audit_check_tasks(a, tasks, &err) != 0) {
        env_error = 1;
        if (progress_shown)
            fputs("\r\033[K", stderr);
        cli_report("--tasks", &err);
    }
    if (bx_audit_load_certs(a, certs, &err) != 0) {
        env_error = 1;
        if (progress_shown)
            fputs("\r\033[K", stderr);
        cli_report(certs, &err);
    }
    if (collect && bx_audit_collect(a, certs, skeys, signing.n, 86400, &err) != 0) {
        env_error = 1;
        if (progress_shown)
            fputs("\r\033[K", stderr);
        cli_report("--collect", &err);
    }
    if (ao.progress) {
        fputs("\r\033[K", stderr);
        progress_shown = 0;
    }
    if (bx_audit_report(a, &doc, &complete, &violations, &err) != 0) {
        rc = cli_report("audit", &err);
        goto out;
    }
    {
        size_t i;
        json_t *e;
        json_array_foreach(json_object_get(doc, "engines"), i, e)
        {
            const char *msg = json_string_value(json_object_get(e, "error"));
            if (msg) {
                bx_error_set(&err, BX_EENV, json_string_value(json_object_get(e, "endpoint")), "%s",
                             msg);
                cli_report("--engine", &err);
            }
        }
    }
    if (audit_render(out, doc, fmt, !output && cli_colour(stdout)) != 0) {
        rc = EXIT_ENV;
        goto out;
    }
    if (atomic) {
        bx_atomic *at = atomic;
        atomic = NULL;
        if (bx_atomic_commit(at, &err) != 0) {
            rc = cli_report(output, &err);
            goto out;
        }
    } else if (fflush(stdout) != 0) {
        rc = EXIT_ENV;
        goto out;
    }
    rc = (!complete || env_error) ? EXIT_ENV : violations ? EXIT_REJECT : EXIT_PASS;
out:
    if (progress_shown)
        fputs("\r\033[K", stderr); /* before an error line */
    bx_atomic_abort(atomic);
    json_decref(doc);
    bx_audit_free(a);
    for (size_t i = 0; skeys && i < signing.n; i++)
        EVP_PKEY_free(skeys[i]);
    free(skeys);
    bx_expect_free(&expect);
    bx_policy_free(p);
    cli_files_free(&files);
    free(keys.v);
    free(engines.v);
    free(labels.v);
    free(signing.v);
    free(env_keys);
    free(env_skeys);
    return rc;
}
