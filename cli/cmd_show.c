/* SPDX-License-Identifier: Apache-2.0 */
#include "cli.h"

#include <getopt.h>
#include <string.h>
#include <time.h>

static const char help[] =
    "usage: boxcert show CERT --policy FILE|PROFILE [--key PUB]... [--threshold N] [--at TIME]\n"
    "         [-q|--quiet]\n\n"
    "Print a certificate's statement (pretty JSON) once its envelope, signatures and\n"
    "statement have verified (certificate.md section 5, steps 1-8b): nothing from an\n"
    "unverified certificate is printed. Failed policy rules are listed on stderr.\n"
    "  --policy P         a policy file or a built-in profile (NAME or NAME@VERSION)\n"
    "  --key PUB          trust this public key (SPKI PEM) besides the policy's\n"
    "  --threshold N      override trust.threshold\n"
    "  --at TIME          judge times at TIME (RFC 3339) instead of now\n"
    "  -q, --quiet        do not list the failed rules on stderr\n"
    "  -h, --help         this help\n"
    "Environment: BOXCERT_POLICY, BOXCERT_KEY (PUB:PUB...), as for verify.\n"
    "Exit: 0 verified and compliant, 1 not verified (nothing printed) or non-compliant,\n"
    "2 usage or configuration error, 3 I/O error.\n";

int cmd_show(int argc, char **argv)
{
    static const struct option opts[] = {{"policy", required_argument, 0, 'p'},
                                         {"key", required_argument, 0, 'k'},
                                         {"threshold", required_argument, 0, 'T'},
                                         {"at", required_argument, 0, 'a'},
                                         {"quiet", no_argument, 0, 'q'},
                                         {"help", no_argument, 0, 'h'},
                                         {0, 0, 0, 0}};
    cli_list keys = {0};
    const char *policy_arg = NULL;
    char *env_keys = NULL;
    int c, rc = EXIT_PASS, threshold = 0;
    bx_policy *p = NULL;
    bx_verify_opts vo = {.at = (int64_t)time(NULL)};
    bx_verify_result res = {0};
    char *buf = NULL;
    size_t len = 0;

    while ((c = cli_getopt("show", argc, argv, opts)) != -1) {
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
        case 'h': cli_help(help); goto out;
        default: rc = EXIT_USAGE; goto out;
        }
    }
    if (optind != argc - 1) {
        rc = cli_usage_error("show", "exactly one CERT is required (see --help)");
        goto out;
    }
    cli_keys_from_env(&keys, &env_keys);
    if ((rc = cli_load_policy(policy_arg, keys.v, keys.n, threshold, &p)) != 0)
        goto out;
    if ((rc = cli_verify_one(argv[optind], p, &vo, &buf, &len, &res)) != 0)
        goto out;
    if (res.statement) {
        char *s = json_dumps(res.statement, JSON_INDENT(2) | JSON_SORT_KEYS);
        printf("%s\n", s ? s : "null");
        free(s);
    }
    if (!cli_quiet)
        cli_print_failed_findings(stderr, argv[optind], &res);
    rc = res.pass ? EXIT_PASS : EXIT_REJECT;
out:
    bx_verify_result_free(&res);
    free(buf);
    free(keys.v);
    free(env_keys);
    bx_policy_free(p);
    return rc;
}
