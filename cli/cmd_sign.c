/* SPDX-License-Identifier: Apache-2.0 */
#include "cli.h"

#include <getopt.h>
#include <string.h>
#include <time.h>

static const char help[] =
    "usage: boxcert sign CERT --key KEY... --policy FILE|PROFILE [--verify-key PUB]...\n"
    "                    [--out FILE]\n\n"
    "Countersign: verify CERT against the policy (with --verify-key added to its trusted\n"
    "keys), then add one signature per --key over the same payload, which is left\n"
    "untouched (its certificateId does not change). A key that has already signed is not\n"
    "added twice. Writes the envelope to FILE (atomically) or stdout.\n"
    "Exit: 0 signed, 1 the certificate did not verify (nothing written), 2 usage or\n"
    "configuration error, 3 I/O error.\n";

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

    optind = 1;
    while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        switch (c) {
        case 'k': cli_list_add(&keyfiles, optarg); break;
        case 'p': policy_arg = optarg; break;
        case 'v': cli_list_add(&vkeys, optarg); break;
        case 'o': out = optarg; break;
        case 'h': fputs(help, stdout); goto out;
        default: fputs(help, stderr); rc = EXIT_USAGE; goto out;
        }
    }
    if (optind != argc - 1 || keyfiles.n == 0) {
        rc = cli_usage_error("sign", "one CERT and at least one --key are required (see --help)");
        goto out;
    }
    if ((rc = cli_load_policy(policy_arg, vkeys.v, vkeys.n, 0, &p)) != 0)
        goto out;
    if ((rc = cli_verify_one(argv[optind], p, &vo, &buf, &len, &res)) != 0)
        goto out;
    if (!res.pass) {
        cli_print_failed_findings(stderr, argv[optind], &res);
        fprintf(stderr, "boxcert: %s: does not verify; not countersigned\n", argv[optind]);
        rc = EXIT_REJECT;
        goto out;
    }
    if (bx_envelope_parse(buf, len, &env, &err) != 0) {
        rc = cli_report(argv[optind], &err);
        goto out;
    }
    for (size_t i = 0; i < keyfiles.n; i++) {
        if (bx_key_load_private(keyfiles.v[i], NULL, &key, &err) != 0) {
            rc = cli_report(keyfiles.v[i], &err);
            goto out;
        }
        if (!already_signed(&env, key) && bx_envelope_sign(&env, key, &err) != 0) {
            rc = cli_report(keyfiles.v[i], &err);
            goto out;
        }
        EVP_PKEY_free(key);
        key = NULL;
    }
    if (bx_envelope_serialize(&env, &doc, &doclen, &err) != 0 ||
        cli_write_output(out, doc, doclen, &err) != 0) {
        rc = cli_report(out ? out : "stdout", &err);
        goto out;
    }
out:
    EVP_PKEY_free(key);
    bx_envelope_free(&env);
    bx_verify_result_free(&res);
    free(buf);
    free(doc);
    free(keyfiles.v);
    free(vkeys.v);
    bx_policy_free(p);
    return rc;
}
