#include "cli.h"
#include "bx_attest.h"

#include <getopt.h>
#include <string.h>
#include <time.h>

static const char help[] =
    "usage: boxcert collect CONTAINER --key KEY... [--engine URL] [--expect-image sha256:HEX]\n"
    "                       [--nonce HEX] [--ttl DURATION] [--out FILE]\n\n"
    "Observe a running session through the Engine API and write one signed certificate\n"
    "(a DSSE envelope around an in-toto statement) to FILE, or to stdout.\n"
    "  --key KEY            private key (PKCS#8 PEM, mode 0600); repeat to add signatures\n"
    "  --engine URL         unix:///path (default $DOCKER_HOST, else unix:///var/run/docker.sock)\n"
    "  --expect-image ID    refuse unless the session runs exactly this image ID\n"
    "  --nonce HEX          a verifier's challenge (16 to 128 lowercase hex digits)\n"
    "  --ttl DURATION       validity, e.g. 24h (default), 30m, 7d\n"
    "  --out FILE           written atomically; refused if a symlink\n"
    "Exit: 0 written, 1 refused to attest (nothing written), 2 usage/key error,\n"
    "3 engine unreachable or I/O error.\n";

static int sign_and_encode(json_t *statement, EVP_PKEY **keys, size_t nkeys, char **out,
                           size_t *outlen, bx_error *err)
{
    bx_envelope env = {0};
    char *payload = NULL;
    size_t plen = 0;
    int rc = bx_jcs_serialize(statement, &payload, &plen, err);
    if (rc)
        goto out;
    env.payload_type = strdup(BX_PAYLOAD_TYPE);
    env.payload = (unsigned char *)payload;
    env.payload_len = plen;
    payload = NULL;
    for (size_t i = 0; i < nkeys && rc == 0; i++)
        rc = bx_envelope_sign(&env, keys[i], err);
    if (rc == 0)
        rc = bx_envelope_serialize(&env, out, outlen, err);
out:
    free(payload);
    bx_envelope_free(&env);
    return rc;
}

int cmd_collect(int argc, char **argv)
{
    static const struct option opts[] = {{"key", required_argument, 0, 'k'},
                                         {"engine", required_argument, 0, 'e'},
                                         {"expect-image", required_argument, 0, 'i'},
                                         {"nonce", required_argument, 0, 'n'},
                                         {"ttl", required_argument, 0, 't'},
                                         {"out", required_argument, 0, 'o'},
                                         {"help", no_argument, 0, 'h'},
                                         {0, 0, 0, 0}};
    cli_list keyfiles = {0};
    const char *engine_url = NULL, *expect = NULL, *nonce = NULL, *ttl_s = "24h", *out = NULL;
    int c, rc = EXIT_PASS;
    bx_error err;
    EVP_PKEY **keys = NULL;
    bx_engine *eng = NULL;
    json_t *pred = NULL, *st = NULL;
    char *doc = NULL;
    size_t doclen = 0;
    int64_t ttl = 0;

    optind = 1;
    while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        switch (c) {
        case 'k': cli_list_add(&keyfiles, optarg); break;
        case 'e': engine_url = optarg; break;
        case 'i': expect = optarg; break;
        case 'n': nonce = optarg; break;
        case 't': ttl_s = optarg; break;
        case 'o': out = optarg; break;
        case 'h': fputs(help, stdout); return EXIT_PASS;
        default: fputs(help, stderr); return EXIT_USAGE;
        }
    }
    if (optind != argc - 1) {
        rc = cli_usage_error("collect", "exactly one CONTAINER is required (see --help)");
        goto out;
    }
    if (keyfiles.n == 0) {
        rc = cli_usage_error("collect", "at least one --key is required");
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
    keys = calloc(keyfiles.n, sizeof *keys);
    if (!keys) {
        rc = EXIT_ENV;
        goto out;
    }
    for (size_t i = 0; i < keyfiles.n; i++) {
        if (bx_key_load_private(keyfiles.v[i], NULL, &keys[i], &err) != 0) {
            rc = cli_report(keyfiles.v[i], &err);
            goto out;
        }
    }
    if (bx_engine_open(engine_url, &eng, &err) != 0) {
        rc = cli_report("--engine", &err);
        goto out;
    }
    bx_collect_opts co = {.container = argv[optind], .now = (int64_t)time(NULL), .ttl = ttl,
                          .expect_image = expect, .nonce = nonce};
    if (bx_collect(eng, &co, &pred, &err) != 0 || bx_statement_build(pred, NULL, &st, &err) != 0 ||
        sign_and_encode(st, keys, keyfiles.n, &doc, &doclen, &err) != 0 ||
        cli_write_output(out, doc, doclen, &err) != 0) {
        rc = cli_report(argv[optind], &err);
        goto out;
    }
out:
    for (size_t i = 0; keys && i < keyfiles.n; i++)
        EVP_PKEY_free(keys[i]);
    free(keys);
    free(keyfiles.v);
    bx_engine_close(eng);
    json_decref(pred);
    json_decref(st);
    free(doc);
    return rc;
}
