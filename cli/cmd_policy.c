/* SPDX-License-Identifier: Apache-2.0 */
#include "cli.h"

#include <string.h>

static const char help[] =
    "usage: boxcert policy check FILE\n"
    "       boxcert policy show PROFILE\n\n"
    "check: load FILE strictly and print the effective policy (after extends and defaults)\n"
    "       as JSON; errors name file:line:col (exit 2).\n"
    "show:  print a built-in profile's policy text. Profiles:";

static void usage(FILE *f)
{
    fputs(help, f);
    for (size_t i = 0; bx_policy_profiles[i]; i++)
        fprintf(f, " %s", bx_policy_profiles[i]);
    fputc('\n', f);
}

int cmd_policy(int argc, char **argv)
{
    bx_error err;
    if (argc == 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
        usage(stdout);
        return EXIT_PASS;
    }
    if (argc != 3) {
        usage(stderr);
        return EXIT_USAGE;
    }
    if (strcmp(argv[1], "show") == 0) {
        const char *t = bx_policy_profile_text(argv[2]);
        if (!t)
            return cli_usage_error(argv[2], "no such built-in profile");
        fputs(t, stdout);
        return EXIT_PASS;
    }
    if (strcmp(argv[1], "check") == 0) {
        bx_policy *p = NULL;
        if (bx_policy_load(argv[2], &p, &err) != 0) {
            cli_report(argv[2], &err);
            return EXIT_USAGE;
        }
        char *s = json_dumps(bx_policy_effective(p), JSON_INDENT(2) | JSON_SORT_KEYS);
        printf("%s\n", s ? s : "null");
        free(s);
        bx_policy_free(p);
        return EXIT_PASS;
    }
    usage(stderr);
    return EXIT_USAGE;
}
