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

static void usage(FILE *f)
{
    fputs("usage: boxcert schema NAME\n\nPrint the JSON Schema (draft 2020-12) of a document "
          "boxcert reads or writes.\nNames: predicate (the latest version's)",
          f);
    for (size_t i = 0; bx_schema_text_names[i]; i++)
        fprintf(f, " %s", bx_schema_text_names[i]);
    fputc('\n', f);
}

int cmd_schema(int argc, char **argv)
{
    char buf[32];
    if (argc == 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
        usage(stdout);
        return EXIT_PASS;
    }
    if (argc != 2) {
        usage(stderr);
        return EXIT_USAGE;
    }
    const char *t = bx_schema_text(resolve(argv[1], buf, sizeof buf));
    if (!t)
        return cli_usage_error(argv[1], "no such schema (see 'boxcert schema --help')");
    fputs(t, stdout);
    return EXIT_PASS;
}
