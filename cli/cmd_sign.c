/* SPDX-License-Identifier: Apache-2.0 */
#include "cli.h"
#include "paths.h"

#include <getopt.h>
#include <string.h>
#include <time.h>

static const char help[] =
    "usage: boxcert sign CERT --key KEY... --policy FILE|PROFILE [--verify-key PUB]...\n"
    "                    [--out FILE|-] [-q|--quiet]\n\n"
    "Countersign: verify CERT against the policy (with --verify-key added to its trusted\n"
    "keys), then add one signature per --key over the same payload, which is left\n"
    "untouched (its certificateId does not change). A key that has already signed is not\n"
    "added twice. Writes the envelope to FILE (atomically) or stdout, unless verify would\n"
    "refuse it (more than 32 signatures, or over 1 MiB): then nothing is written (exit 2).\n"
    "  --key KEY          a private key to sign with (PKCS#8 PEM, mode 0600); repeatable\n"
    "  --policy P         the policy CERT must pass first (a file or a built-in profile)\n"
    "  --verify-key PUB   trust this public key for that check (repeatable)\n"
    "  --out FILE         write the envelope to FILE (atomically); - or none: stdout\n"
    "  -q, --quiet        print nothing but errors (and the envelope, on stdout)\n"
    "  -h, --help         this help\n"
    "Environment: BOXCERT_SIGNING_KEY (KEY:KEY...: for --key), BOXCERT_POLICY, BOXCERT_KEY\n"
    "(for --verify-key); the command line wins.\n"
    "Exit: 0 signed, 1 the certificate did not verify (nothing written), 2 usage or\n"
    "configuration error (also --out naming the certificate, a key or the policy, refused\n"
    "before anything is read), 3 I/O error.\n";

static int already_signed(const bx_envelope *env, EVP_PKEY *key)
{
    unsigned char *pae = NULL;
    size_t paelen = 0;
    bx_error e;
    int found = 0;
    if (bx_dsse_pae(env->payload_type, env->payload, env->payload_len, &pae, &paelen, &e) != 0)
        return 0;
    for (size_t i = 0; i < env->nsigs && !found; i++)
        found = bx_verify_sig(key, BX_SIGENC_DER, pae, paelen, env->sigs[i].sig, env->sigs[i].siglen,
                              &e) == 0;
    free(pae);
    return found;
}

int cmd_sign(int argc, char **argv)
{
    static const struct option opts[] = {{"key", required_argument, 0, 'k'},
                                         {"policy", required_argument, 0, 'p'},
                                         {"verify-key", required_argument, 0, 'v'},
                                         {"out", required_argument, 0, 'o'},
                                         {"quiet", no_argument, 0, 'q'},
                                         {"help", no_argument, 0, 'h'},
                                         {0, 0, 0, 0}};
    cli_list keyfiles = {0}, vkeys = {0};
    const char *policy_arg = NULL, *out = NULL;
    int c, rc = EXIT_PASS;
    bx_policy *p = NULL;
    bx_error err;
    bx_verify_opts vo = {.at = (int64_t)time(NULL)};
    bx_verify_result res = {0};
    bx_envelope env = {0};
    EVP_PKEY *key = NULL;
    char *buf = NULL, *doc = NULL;
    size_t len = 0, doclen = 0;
    cli_files files = {0};

    char *env_keys = NULL, *env_skeys = NULL;
    while ((c = cli_getopt("sign", argc, argv, opts)) != -1) {
        switch (c) {
        case 'k': cli_list_add(&keyfiles, optarg); break;
        case 'p': policy_arg = optarg; break;
        case 'v': cli_list_add(&vkeys, optarg); break;
        case 'o': out = cli_out_path(optarg); break;
        case 'h': cli_help(help); goto out;
        default: rc = EXIT_USAGE; goto out;
        }
    }
    cli_signing_keys_from_env(&keyfiles, &env_skeys);
    cli_keys_from_env(&vkeys, &env_keys);
    if (optind != argc - 1 || keyfiles.n == 0) {
        rc = cli_usage_error("sign", "one CERT and at least one --key are required (see --help)");
        goto out;
    }
    cli_files_add(&files, "--out", out, CLI_OUT);
    cli_files_add(&files, "certificate", argv[optind], CLI_IN);
    for (size_t i = 0; i < keyfiles.n; i++)
        cli_files_add(&files, "--key", keyfiles.v[i], CLI_IN);
    for (size_t i = 0; i < vkeys.n; i++)
        cli_files_add(&files, "--verify-key", vkeys.v[i], CLI_IN);
    cli_files_add_policy(&files, policy_arg);
    if ((rc = cli_files_check(&files)) != 0)
        goto out;
    if ((rc = cli_load_policy(policy_arg, vkeys.v, vkeys.n, 0, &p)) != 0)
        goto out;
    if ((rc = cli_verify_one(argv[optind], p, &vo, &buf, &len, &res)) != 0)
        goto out;
    if (!res.pass) {
        cli_print_failed_findings(stderr, argv[optind], &res);
        cli_usage_error(argv[optind], "does not verify; not countersigned");
        rc = EXIT_REJECT;
        goto out;
    }
    if (bx_envelope_parse(buf, len, &env, &err) != 0) {
        rc = cli_report(argv[optind], &err);
        goto out;
    }
    for (size_t i = 0; i < keyfiles.n; i++) {
        if ((rc = cli_load_signing_key(keyfiles.v[i], &key)) != 0)
            goto out;
        if (!already_signed(&env, key) && bx_envelope_sign(&env, key, &err) != 0) {
            rc = cli_report(keyfiles.v[i], &err);
            goto out;
        }
        EVP_PKEY_free(key);
        key = NULL;
    }
    if (bx_envelope_serialize(&env, &doc, &doclen, &err) != 0) {
        rc = cli_report(argv[optind], &err);
        goto out;
    }
    /* what verify would refuse is never written */
    if (bx_envelope_check_limits(doc, doclen, &err) != 0) {
        rc = err.code == BX_ECONFIG
                 ? cli_usage_error(argv[optind],
                                   "not countersigned: verify would refuse the result (%s%s%s); "
                                   "nothing written",
                                   err.where, err.where[0] ? ": " : "", err.msg)
                 : cli_report(argv[optind], &err);
        goto out;
    }
    if (cli_write_output(out, doc, doclen, &err) != 0) {
        rc = cli_report(out ? out : "stdout", &err);
        goto out;
    }
out:
    EVP_PKEY_free(key);
    bx_envelope_free(&env);
    bx_verify_result_free(&res);
    free(buf);
    free(doc);
    cli_files_free(&files);
    free(keyfiles.v);
    free(env_keys);
    free(env_skeys);
    free(vkeys.v);
    bx_policy_free(p);
    return rc;
}
