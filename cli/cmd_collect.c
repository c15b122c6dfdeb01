/* SPDX-License-Identifier: Apache-2.0 */
#include "cli.h"
#include "paths.h"
#include "bx_attest.h"

#include <getopt.h>
#include <string.h>
#include <time.h>

static const char help[] =
    "usage: boxcert collect CONTAINER --key KEY... [--engine URL|--context NAME]\n"
    "                       [--insecure-engine] [--require-level LEVEL]\n"
    "                       [--expect-image sha256:HEX] [--requested FILE]\n"
    "                       [--source-repo DIR --source-rev COMMIT] [--nonce HEX]\n"
    "                       [--ttl DURATION] [--evidence-out DIR] [--out FILE|-]\n"
    "                       [--format text|json] [-q|--quiet]\n\n"
    "Observe a running session (the engine, and on this host the kernel or the runsc\n"
    "sandbox) and write one signed certificate (a DSSE envelope around an in-toto\n"
    "statement) to FILE, or to stdout. Then print its certificate ID (the SHA-256 of its\n"
    "payload): on stdout when the certificate went to FILE, else on stderr.\n"
    "  --key KEY            private key (PKCS#8 PEM, mode 0600); repeat to add signatures\n"
    "  --engine URL         unix:///path, tcp://host:port (mutual TLS with DOCKER_TLS_VERIFY=1\n"
    "                       and DOCKER_CERT_PATH: ca.pem, cert.pem, key.pem) or context:NAME;\n"
    "                       without it $BOXCERT_ENGINE, else DOCKER_HOST, DOCKER_CONTEXT, the\n"
    "                       docker config's currentContext, as the docker CLI\n"
    "  --context NAME       the engine of docker context NAME (its own TLS material)\n"
    "  --insecure-engine    allow a plain tcp:// engine (no TLS)\n"
    "  --require-level L    refuse (exit 1, nothing written) below level L: engine,\n"
    "                       engine+kernel, engine+runtime, or highest (what the session's\n"
    "                       runtime allows here); without it a lower level than that warns\n"
    "  --expect-image ID    refuse unless the session runs exactly this image ID\n"
    "  --requested FILE     what the launcher asked for (YAML or JSON, `boxcert schema\n"
    "                       requested`): refuse if the session is weaker\n"
    "  --source-repo DIR    the session's source repository, with --source-rev COMMIT (40 hex):\n"
    "                       recorded as the statement's source subject\n"
    "  --nonce HEX          a verifier's challenge (16 to 128 lowercase hex digits)\n"
    "  --ttl DURATION       validity, e.g. 24h (default), 30m, 7d\n"
    "  --evidence-out DIR   also write the raw inputs behind each evidence hash (a new folder)\n"
    "  --out FILE           written atomically; refused if a symlink; - or none: stdout\n"
    "  --format F           text (default: the certificate ID) or json: a result object\n"
    "                       {certificateId, file, session, image, issuedAt, expiresAt,\n"
    "                       evidenceLevel, keyids} on stdout (needs --out FILE)\n"
    "  -q, --quiet          print nothing but errors\n"
    "  -h, --help           this help\n"
    "Environment: BOXCERT_SIGNING_KEY (KEY:KEY...: for --key), BOXCERT_ENGINE (for\n"
    "--engine), BOXCERT_KEY_PASSPHRASE_FILE; the command line wins.\n"
    "Exit: 0 written, 1 refused to attest (nothing written), 2 usage/key/file error (also\n"
    "--out or --evidence-out naming a key, --requested or each other, refused first),\n"
    "3 engine unreachable or I/O error.\n";

/* --requested FILE: parsed, with the SHA-256 of its bytes. */
static int load_requested(const char *path, json_t **req, char sha[65])
{
    bx_error err;
    char old[256];
    char *buf = NULL;
    size_t len = 0;
    int rc;

    if (bx_read_file(path, 256 * 1024, 0, &buf, &len, &err) != 0) {
        cli_report(path, &err);
        return EXIT_USAGE;
    }
    rc = bx_requested_load(buf, len, path, req, sha, old, &err);
    free(buf);
    if (rc != 0) {
        cli_report(path, &err);
        return EXIT_USAGE;
    }
    if (old[0] && !cli_quiet) { /* read all the same (docs/collector.md) */
        fprintf(stderr, "%s: warning: ", cli_prog);
        cli_put_safe(stderr, path);
        fprintf(stderr, ": deprecated names, the predicate's: %s\n", old);
    }
    return 0;
}

/* --format json: what was written, for a launcher to read. */
static int print_result(const json_t *st, const char *id, const char *file, EVP_PKEY **keys,
                        size_t nkeys)
{
    const json_t *pred = json_object_get(st, "predicate");
    const json_t *sess = json_object_get(pred, "session");
    json_t *kids = json_array();
    bx_error err;
    char kid[65];
    for (size_t i = 0; kids && i < nkeys; i++)
        if (bx_key_id(keys[i], kid, &err) == 0)
            json_array_append_new(kids, json_string(kid));
    json_t *o = json_pack(
        "{s:s, s:s, s:{s:O?, s:O?}, s:O?, s:O?, s:O?, s:O?, s:O?, s:o}", "certificateId", id, "file",
        file, "session", "containerId", json_object_get(sess, "containerId"), "name",
        json_object_get(sess, "name"), "image", json_object_get(json_object_get(pred, "image"), "id"),
        "issuedAt", json_object_get(pred, "issuedAt"), "expiresAt", json_object_get(pred, "expiresAt"),
        "evidenceLevel", json_object_get(json_object_get(pred, "evidence"), "level"),
        "predicateType", json_object_get(st, "predicateType"), "keyids", kids);
    return cli_put_json(o);
}

/* 1 when loading the key at path asks its passphrase at the terminal (an encrypted key and no
 * BOXCERT_KEY_PASSPHRASE_FILE). */
static int prompts(const char *path)
{
    char head[64] = "";
    FILE *f;

    if (getenv("BOXCERT_KEY_PASSPHRASE_FILE"))
        return 0;
    if (!(f = fopen(path, "re")))
        return 0;
    if (!fgets(head, sizeof head, f))
        head[0] = '\0';
    fclose(f);
    return strstr(head, "ENCRYPTED") != NULL;
}

/* The level reached against --require-level (refused: exit 1) or, without it, against what
 * the session's runtime allows here (one warning line). */
static int level_check(const bx_collection *col, const char *need)
{
    const char *got = json_string_value(bx_json_at(col->predicate, "/evidence/level"));
    const char *want = need && strcmp(need, "highest") == 0 ? col->possible : need;

    if (!got)
        got = "engine";
    if (want && strcmp(want, "engine") != 0 && strcmp(got, want) != 0) {
        fprintf(stderr, "%s: collect: level %s, not the %s --require-level %s asks: %s\n", cli_prog,
                got, want, need, col->why);
        return EXIT_REJECT;
    }
    if (!need && !cli_quiet && strcmp(got, col->possible) != 0)
        fprintf(stderr, "%s: warning: certificate at level %s, below the %s its runtime allows "
                        "here: %s\n",
                cli_prog, got, col->possible, col->why);
    return 0;
}

int cmd_collect(int argc, char **argv)
{
    static const struct option opts[] = {{"key", required_argument, 0, 'k'},
                                         {"engine", required_argument, 0, 'e'},
                                         {"context", required_argument, 0, 'C'},
                                         {"require-level", required_argument, 0, 'L'},
                                         {"insecure-engine", no_argument, 0, 'I'},
                                         {"expect-image", required_argument, 0, 'i'},
                                         {"requested", required_argument, 0, 'r'},
                                         {"source-repo", required_argument, 0, 'R'},
                                         {"source-rev", required_argument, 0, 'V'},
                                         {"nonce", required_argument, 0, 'n'},
                                         {"ttl", required_argument, 0, 't'},
                                         {"evidence-out", required_argument, 0, 'E'},
                                         {"out", required_argument, 0, 'o'},
                                         {"format", required_argument, 0, 'f'},
                                         {"quiet", no_argument, 0, 'q'},
                                         {"help", no_argument, 0, 'h'},
                                         {0, 0, 0, 0}};
    cli_list keyfiles = {0};
    const char *engine_url = NULL, *expect = NULL, *nonce = NULL, *ttl_s = "24h", *out = NULL;
    const char *req_file = NULL, *repo = NULL, *rev = NULL, *evidence_dir = NULL;
    const char *format = "text";
    char *env_skeys = NULL, cert_id[65] = "";
    const char *context = NULL, *need_level = NULL;
    char ctx_url[300];
    int c, rc = EXIT_PASS, insecure = 0, dirty = 0;
    unsigned src_ignored = 0;
    bx_error err;
    EVP_PKEY **keys = NULL;
    bx_engine *eng = NULL;
    bx_collection col = {0};
    json_t *st = NULL, *req = NULL;
    char *doc = NULL, *staged = NULL, req_sha[65] = "";
    size_t doclen = 0;
    int64_t ttl = 0;
    cli_files files = {0};

    while ((c = cli_getopt("collect", argc, argv, opts)) != -1) {
        switch (c) {
        case 'k': cli_list_add(&keyfiles, optarg); break;
        case 'e': engine_url = optarg; break;
        case 'C': context = optarg; break;
        case 'L': need_level = optarg; break;
        case 'I': insecure = 1; break;
        case 'i': expect = optarg; break;
        case 'r': req_file = optarg; break;
        case 'R': repo = optarg; break;
        case 'V': rev = optarg; break;
        case 'n': nonce = optarg; break;
        case 't': ttl_s = optarg; break;
        case 'E': evidence_dir = optarg; break;
        case 'o': out = cli_out_path(optarg); break;
        case 'f': format = optarg; break;
        case 'h': cli_help(help); return EXIT_PASS;
        default: return EXIT_USAGE;
        }
    }
    cli_signing_keys_from_env(&keyfiles, &env_skeys);
    if (!engine_url && !context)
        engine_url = cli_env("BOXCERT_ENGINE");
    if (strcmp(format, "text") != 0 && strcmp(format, "json") != 0) {
        rc = cli_bad_format(format, 0, "text or json");
        goto out;
    }
    if (strcmp(format, "json") == 0 && !out) {
        rc = cli_usage_error("--format", "json writes a result object on stdout: give the "
                                         "certificate --out FILE");
        goto out;
    }
    if (optind != argc - 1) {
        rc = cli_usage_error("collect", "exactly one CONTAINER is required (see --help)");
        goto out;
    }
    if (engine_url && context) {
        rc = cli_usage_error("--context", "either --engine or --context, not both");
        goto out;
    }
    if (context) {
        snprintf(ctx_url, sizeof ctx_url, "context:%.280s", context);
        engine_url = ctx_url;
    }
    if (need_level && strcmp(need_level, "engine") != 0 && strcmp(need_level, "engine+kernel") != 0 &&
        strcmp(need_level, "engine+runtime") != 0 && strcmp(need_level, "highest") != 0) {
        rc = cli_usage_error("--require-level",
                             "'%s' is not engine, engine+kernel, engine+runtime or highest",
                             need_level);
        goto out;
    }
    if (keyfiles.n == 0) {
        rc = cli_usage_error("collect", "at least one --key is required (or BOXCERT_SIGNING_KEY)");
        goto out;
    }
    if (expect && (strncmp(expect, "sha256:", 7) != 0 || !bx_is_lower_hex(expect + 7, 64))) {
        rc = cli_usage_error("--expect-image", "'%s' is not sha256:<64 lowercase hex>", expect);
        goto out;
    }
    if (nonce && (strlen(nonce) < 16 || strlen(nonce) > 128 || strlen(nonce) % 2 ||
                  !bx_is_lower_hex(nonce, strlen(nonce)))) {
        rc = cli_usage_error("--nonce", "want 16 to 128 lowercase hex digits (an even count)");
        goto out;
    }
    if (bx_duration_parse(ttl_s, &ttl, &err) != 0 || ttl <= 0) {
        rc = cli_usage_error("--ttl", "'%s' is not a positive duration (e.g. 24h, 30m)", ttl_s);
        goto out;
    }
    if (!repo != !rev) {
        rc = cli_usage_error(repo ? "--source-repo" : "--source-rev",
                             "--source-repo and --source-rev go together");
        goto out;
    }
    cli_files_add(&files, "--out", out, CLI_OUT);
    cli_files_add(&files, "--evidence-out", evidence_dir, CLI_OUT_FOLDER);
    for (size_t i = 0; i < keyfiles.n; i++)
        cli_files_add(&files, "--key", keyfiles.v[i], CLI_IN);
    cli_files_add(&files, "--requested", req_file, CLI_IN);
    if ((rc = cli_files_check(&files)) != 0)
        goto out;
    /* Each key is loaded once to check it and freed (OpenSSL clears its private part), and
     * loaded again only once the session has been read: a session that could trace or dump
     * the collector meanwhile finds no key in it. A key unlocked at the terminal stays
     * loaded (its passphrase is not asked twice). */
    bx_collector_protect();
    keys = calloc(keyfiles.n, sizeof *keys);
    if (!keys) {
        rc = EXIT_ENV;
        goto out;
    }
    for (size_t i = 0; i < keyfiles.n; i++) {
        if ((rc = cli_load_signing_key(keyfiles.v[i], &keys[i])) != 0)
            goto out;
        if (!prompts(keyfiles.v[i])) {
            EVP_PKEY_free(keys[i]);
            keys[i] = NULL;
        }
    }
    if (req_file && (rc = load_requested(req_file, &req, req_sha)) != 0)
        goto out;
    if (repo && bx_source_check(repo, rev, &dirty, &src_ignored, &err) != 0) {
        rc = cli_report("--source-repo", &err);
        goto out;
    }
    if (bx_engine_open_ex(engine_url, insecure ? BX_ENGINE_INSECURE : 0, &eng, &err) != 0) {
        rc = cli_report("--engine", &err);
        goto out;
    }
    bx_collect_opts co = {.container = argv[optind],
                          .now = (int64_t)time(NULL),
                          .ttl = ttl,
                          .expect_image = expect,
                          .nonce = nonce,
                          .requested = req,
                          .requested_sha256 = req ? req_sha : NULL,
                          .source_given = repo != NULL,
                          .source_dirty = dirty,
                          .source_ignored = src_ignored,
                          .signing_keys = (const char *const *)keyfiles.v,
                          .nsigning_keys = keyfiles.n};
    if (bx_collect_full(eng, &co, &col, &err) != 0 ||
        bx_statement_build(col.predicate, rev, &st, &err) != 0) {
        rc = cli_report(argv[optind], &err);
        goto out;
    }
    if ((rc = level_check(&col, need_level)) != 0)
        goto out;
    if (bx_collector_untraced(&err) != 0) {
        rc = cli_report("collect", &err);
        goto out;
    }
    for (size_t i = 0; i < keyfiles.n; i++) {
        if (!keys[i] && bx_key_load_private(keyfiles.v[i], NULL, &keys[i], &err) != 0) {
            rc = cli_report(keyfiles.v[i], &err);
            goto out;
        }
    }
    if (bx_collector_untraced(&err) != 0 ||
        bx_certificate_encode(st, keys, keyfiles.n, &doc, &doclen, &err) != 0 ||
        (evidence_dir && bx_evidence_stage(col.evidence, evidence_dir, &staged, &err) != 0)) {
        rc = cli_report(argv[optind], &err);
        goto out;
    }
    if (cli_write_output(out, doc, doclen, &err) != 0) {
        rc = cli_report(out ? out : "stdout", &err);
        goto out;
    }
    if (staged && bx_evidence_commit(staged, evidence_dir, &err) != 0) {
        rc = cli_report(evidence_dir, &err);
        goto out;
    }
    free(staged);
    staged = NULL;
    if (bx_jcs_sha256_hex(st, cert_id, &err) != 0) {
        rc = cli_report("collect", &err);
        goto out;
    }
    rc = strcmp(format, "json") == 0 ? print_result(st, cert_id, out, keys, keyfiles.n)
         : cli_quiet                 ? EXIT_PASS
         : out                       ? (printf("%s\n", cert_id), fflush(stdout) ? EXIT_ENV : 0)
                                     : (fprintf(stderr, "%s: certificate %s\n", cli_prog, cert_id), 0);
out:
    if (staged) {
        bx_evidence_discard(staged);
        free(staged);
    }
    for (size_t i = 0; keys && i < keyfiles.n; i++)
        EVP_PKEY_free(keys[i]);
    free(keys);
    cli_files_free(&files);
    free(keyfiles.v);
    free(env_skeys);
    bx_engine_close(eng);
    bx_collection_free(&col);
    json_decref(st);
    json_decref(req);
    free(doc);
    return rc;
}
