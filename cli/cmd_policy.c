/* SPDX-License-Identifier: Apache-2.0 */
#include "cli.h"

#include <string.h>

static const char help[] =
    "usage: boxcert policy check FILE [--key PUB]...\n"
    "       boxcert policy show PROFILE\n"
    "       boxcert policy list\n\n"
    "check: load FILE strictly and print the effective policy (after extends and defaults)\n"
    "       as JSON; errors name file:line:col (exit 2). Every trusted key is listed with\n"
    "       its keyid, those of --key too (as {file, keyid}): loaded again, a key file that\n"
    "       holds another key is refused.\n"
    "show:  print a built-in profile's policy text (NAME, the latest, or NAME@VERSION).\n"
    "list:  print every built-in profile's name, one a line: NAME, then each NAME@VERSION.\n"
    "  --key PUB      check: trust this public key (SPKI PEM) besides the policy's\n"
    "                 (repeatable)\n"
    "  -q, --quiet    accepted, changes nothing\n"
    "  -h, --help     this help\n"
    "Environment: BOXCERT_KEY (PUB:PUB...: for --key); the command line wins.\n"
    "Profiles:";

static void usage(void)
{
    cli_help(help);
    for (size_t i = 0; bx_policy_profiles[i]; i++)
        printf(" %s", bx_policy_profiles[i]);
    putchar('\n');
}

static int policy_sub(int argc, char **argv, cli_list *keys, bx_error *err, char **env_keys);

int cmd_policy(int argc, char **argv)
{
    static const struct option opts[] = {{"key", required_argument, 0, 'k'},
                                         {"quiet", no_argument, 0, 'q'},
                                         {"help", no_argument, 0, 'h'},
                                         {0, 0, 0, 0}};
    bx_error err;
    cli_list keys = {0};
    char *env_keys = NULL;
    int c, rc;
    while ((c = cli_getopt("policy", argc, argv, opts)) != -1) {
        if (c == 'k') {
            cli_list_add(&keys, optarg);
            continue;
        }
        free(keys.v);
        if (c == 'h') {
            usage();
            return EXIT_PASS;
        }
        return EXIT_USAGE;
    }
    rc = policy_sub(argc - optind, argv + optind, &keys, &err, &env_keys);
    free(keys.v);
    free(env_keys);
    return rc;
}

static int policy_sub(int argc, char **argv, cli_list *keys, bx_error *err, char **env_keys)
{
    static const char *const subs[] = {"check", "show", "list", NULL};
    if (keys->n && (argc == 0 || strcmp(argv[0], "check") != 0))
        return cli_usage_error("--key", "only 'policy check' takes keys");
    if (argc == 0)
        return cli_usage_error("policy", "check FILE, show PROFILE or list (see 'boxcert policy "
                                         "--help')");
    if (strcmp(argv[0], "help") == 0) {
        usage();
        return EXIT_PASS;
    }
    if (strcmp(argv[0], "list") == 0) {
        if (argc != 1)
            return cli_usage_error("policy list", "unexpected argument '%s'", argv[1]);
        for (size_t i = 0; bx_policy_profiles[i]; i++) {
            printf("%s\n", bx_policy_profiles[i]);
            for (unsigned v = 1; v <= BX_POLICY_PROFILE_LATEST; v++) {
                char name[64], resolved[64];
                snprintf(name, sizeof name, "%s@%u", bx_policy_profiles[i], v);
                if (bx_policy_profile_resolve(name, resolved, sizeof resolved) == 0 &&
                    bx_policy_profile_text(name))
                    printf("%s\n", name);
            }
        }
        return fflush(stdout) != 0 ? EXIT_ENV : EXIT_PASS;
    }
    if (strcmp(argv[0], "show") != 0 && strcmp(argv[0], "check") != 0)
        return cli_unknown("policy", "subcommand", argv[0], subs);
    if (argc != 2)
        return cli_usage_error(argv[0][0] == 's' ? "policy show" : "policy check",
                               "exactly one %s is required", argv[0][0] == 's' ? "PROFILE" : "FILE");
    if (strcmp(argv[0], "show") == 0) {
        const char *t = bx_policy_profile_text(argv[1]);
        if (!t) {
            const char *names[16];
            size_t n = 0;
            for (size_t i = 0; bx_policy_profiles[i] && n + 1 < 16; i++)
                names[n++] = bx_policy_profiles[i];
            names[n] = NULL;
            return cli_unknown("policy show", "profile", argv[1], names);
        }
        fputs(t, stdout);
        return EXIT_PASS;
    }
    bx_policy *p = NULL;
    if (bx_policy_load(argv[1], &p, err) != 0) {
        cli_report(argv[1], err);
        return EXIT_USAGE;
    }
    cli_keys_from_env(keys, env_keys);
    for (size_t i = 0; i < keys->n; i++)
        if (bx_policy_add_key_file(p, keys->v[i], err) != 0) {
            bx_policy_free(p);
            cli_report(keys->v[i], err);
            return EXIT_USAGE;
        }
    char *s = json_dumps(bx_policy_effective(p), JSON_INDENT(2) | JSON_SORT_KEYS);
    printf("%s\n", s ? s : "null");
    free(s);
    bx_policy_free(p);
    return EXIT_PASS;
}
