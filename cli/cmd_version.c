/* SPDX-License-Identifier: Apache-2.0 */
#include "cli.h"
#include "bx_buildinfo.h"

#include <string.h>
#include <jansson.h>
#include <openssl/crypto.h>
#include <yaml.h>
#ifndef BOXCERT_VERIFY_ONLY
#include <curl/curl.h>
#include <git2.h>
#endif

static const char help[] =
    "usage: %s version [--format text|json]\n"
    "       %s --version [--format text|json]\n\n"
    "Print the version, the commit it was built from (\"unknown\" outside a git checkout;\n"
    "\"-dirty\" when the tree had changes) and the versions of the libraries it runs with.\n"
    "  --format F     text (default) or json: {name, version, commit, libraries}\n"
    "  -q, --quiet    accepted, changes nothing\n"
    "  -h, --help     this help\n";

static void libraries(const char **names, char vals[][64], size_t *n)
{
    size_t i = 0;
    names[i] = "openssl";
    snprintf(vals[i++], 64, "%s", OpenSSL_version(OPENSSL_VERSION_STRING));
    names[i] = "jansson";
    snprintf(vals[i++], 64, "%s", jansson_version_str());
    names[i] = "libyaml";
    snprintf(vals[i++], 64, "%s", yaml_get_version_string());
#ifndef BOXCERT_VERIFY_ONLY
    int maj = 0, min = 0, rev = 0;
    names[i] = "libcurl";
    snprintf(vals[i++], 64, "%s", curl_version_info(CURLVERSION_NOW)->version);
    git_libgit2_version(&maj, &min, &rev);
    names[i] = "libgit2";
    snprintf(vals[i++], 64, "%d.%d.%d", maj, min, rev);
#endif
    *n = i;
}

int cli_print_version(int json)
{
    const char *names[8];
    char vals[8][64];
    size_t n = 0;
    libraries(names, vals, &n);
    if (json) {
        json_t *libs = json_object(),
               *o = json_pack("{s:s, s:s, s:s, s:o}", "name", cli_prog, "version", BOXCERT_VERSION,
                              "commit", BOXCERT_COMMIT, "libraries", libs);
        for (size_t i = 0; o && i < n; i++)
            json_object_set_new(libs, names[i], json_string(vals[i]));
        int rc = cli_put_json(o);
        if (rc != EXIT_PASS)
            return rc;
    } else {
        printf("%s %s\ncommit: %s\n", cli_prog, BOXCERT_VERSION, BOXCERT_COMMIT);
        for (size_t i = 0; i < n; i++)
            printf("%s: %s\n", names[i], vals[i]);
    }
    return fflush(stdout) != 0 ? EXIT_ENV : EXIT_PASS;
}

int cmd_version(int argc, char **argv)
{
    static const struct option opts[] = {{"format", required_argument, 0, 'f'},
                                         {"quiet", no_argument, 0, 'q'},
                                         {"help", no_argument, 0, 'h'},
                                         {0, 0, 0, 0}};
    const char *format = "text";
    int c;
    while ((c = cli_getopt("version", argc, argv, opts)) != -1) {
        switch (c) {
        case 'f':
            format = optarg;
            break;
        case 'h':
            printf(help, cli_prog, cli_prog);
            return EXIT_PASS;
        default:
            return EXIT_USAGE;
        }
    }
    if (optind < argc)
        return cli_usage_error("version", "unexpected argument '%s'", argv[optind]);
    if (strcmp(format, "text") != 0 && strcmp(format, "json") != 0)
        return cli_bad_format(format, 0, "text or json");
    return cli_print_version(strcmp(format, "json") == 0);
}
