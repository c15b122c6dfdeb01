/* SPDX-License-Identifier: Apache-2.0 */
#include "cli.h"

#include <string.h>

/* "predicate" is the latest version's predicate. */
static const char *resolve(const char *name, char *buf, size_t n)
{
    if (strcmp(name, "predicate") == 0) {
        snprintf(buf, n, "predicate-v%d", BX_PREDICATE_LATEST);
        return buf;
    }
    return name;
}

static const char help[] =
    "usage: boxcert schema NAME\n"
    "       boxcert schema list\n\n"
    "Print the JSON Schema (draft 2020-12) of a document boxcert reads or writes; list: the\n"
    "names, one a line.\n"
    "  -q, --quiet    accepted, changes nothing\n"
    "  -h, --help     this help\n"
    "Names: predicate (the latest version's)";

int cmd_schema(int argc, char **argv)
{
    static const struct option opts[] = {{"quiet", no_argument, 0, 'q'},
                                         {"help", no_argument, 0, 'h'},
                                         {0, 0, 0, 0}};
    char buf[32];
    int c;
    while ((c = cli_getopt("schema", argc, argv, opts)) != -1) {
        if (c == 'h') {
            cli_help(help);
            for (size_t i = 0; bx_schema_text_names[i]; i++)
                printf(" %s", bx_schema_text_names[i]);
            putchar('\n');
            return EXIT_PASS;
        }
        return EXIT_USAGE;
    }
    if (optind != argc - 1)
        return cli_usage_error("schema", "exactly one NAME is required (see 'boxcert schema "
                                         "--help')");
    const char *name = argv[optind];
    if (strcmp(name, "list") == 0) {
        puts("predicate");
        for (size_t i = 0; bx_schema_text_names[i]; i++)
            puts(bx_schema_text_names[i]);
        return fflush(stdout) != 0 ? EXIT_ENV : EXIT_PASS;
    }
    const char *t = bx_schema_text(resolve(name, buf, sizeof buf));
    if (!t) {
        const char *names[32] = {"predicate", "list"};
        size_t n = 2;
        for (size_t i = 0; bx_schema_text_names[i] && n + 1 < 32; i++)
            names[n++] = bx_schema_text_names[i];
        names[n] = NULL;
        return cli_unknown("schema", "schema", name, names);
    }
    fputs(t, stdout);
    return EXIT_PASS;
}
