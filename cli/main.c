/* SPDX-License-Identifier: Apache-2.0 */
#include "cli.h"

#include <openssl/crypto.h>
#include <string.h>

static const bx_cmd commands[] = {
#ifndef BOXCERT_VERIFY_ONLY
    {"keygen", cmd_keygen, "create a signing key pair"},
    {"inspect", cmd_inspect, "show how a running session is contained, field by field"},
    {"collect", cmd_collect, "observe a running session and write a signed certificate"},
    {"sign", cmd_sign, "verify a certificate, then countersign it"},
    {"audit", cmd_audit, "audit a run: every session attested, compliant, and removed"},
    {"ledger", cmd_ledger, "keep certificates as git notes; gate a range of commits"},
#endif
    {"verify", cmd_verify, "verify certificates offline against a policy"},
    {"show", cmd_show, "print a certificate's statement once it verifies"},
    {"policy", cmd_policy, "check a policy file, or show a built-in profile"},
    {"schema", cmd_schema, "print the JSON Schema of a document boxcert reads or writes"},
    {"version", cmd_version, "print the version, the commit and the libraries' versions"},
};
#define NCOMMANDS (sizeof commands / sizeof *commands)

/* The commands only the full boxcert has: boxcert-verify names them as such. */
static const char *const collector_only[] = {"keygen", "inspect", "collect", "sign",
                                             "audit",  "ledger",  NULL};

static void usage(FILE *f)
{
    fprintf(f, "usage: %s [-q|--quiet] COMMAND [ARGS]\n", cli_prog);
    fprintf(f, "       %s help COMMAND | --help | --version\n\n", cli_prog);
#ifdef BOXCERT_VERIFY_ONLY
    fputs("boxcert-verify checks, offline, certificates of how sandbox sessions were contained:\n"
          "boxcert's verifier, built without the collector, libcurl or libgit2.\n\ncommands:\n",
          f);
#else
    fputs("boxcert proves, offline, how a sandbox session was contained.\n\ncommands:\n", f);
#endif
    for (size_t i = 0; i < NCOMMANDS; i++)
        fprintf(f, "  %-9s %s\n", commands[i].name, commands[i].summary);
    fprintf(f, "\n'%s help COMMAND' (or '%s COMMAND --help') describes a command.\n"
               "Exit codes: 0 pass, 1 rejected, 2 usage or configuration error, 3 environment\n"
               "error.\n",
            cli_prog, cli_prog);
}

static const bx_cmd *find(const char *name)
{
    for (size_t i = 0; i < NCOMMANDS; i++)
        if (strcmp(name, commands[i].name) == 0)
            return &commands[i];
    return NULL;
}

static int unknown_command(const char *name)
{
    const char *names[NCOMMANDS + 1];
    for (size_t i = 0; i < NCOMMANDS; i++)
        names[i] = commands[i].name;
    names[NCOMMANDS] = NULL;
#ifdef BOXCERT_VERIFY_ONLY
    for (size_t i = 0; collector_only[i]; i++)
        if (strcmp(name, collector_only[i]) == 0)
            return cli_usage_error(NULL, "'%s' is a command of boxcert, not of boxcert-verify "
                                         "(which only verifies)",
                                   name);
#else
    (void)collector_only;
#endif
    return cli_unknown(NULL, "command", name, names);
}

int main(int argc, char **argv)
{
    int i = 1;
    /* options before the command: the quiet flag, help and version */
    for (; i < argc && argv[i][0] == '-'; i++) {
        if (strcmp(argv[i], "-q") == 0 || strcmp(argv[i], "--quiet") == 0)
            cli_quiet = 1;
        else if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            usage(stdout);
            return EXIT_PASS;
        } else if (strcmp(argv[i], "--version") == 0) {
            /* --version --format json: the same as 'version --format json' */
            argv[i] = "version";
            break;
        } else {
            const char *names[] = {"quiet", "help", "version", NULL};
            const char *near = strncmp(argv[i], "--", 2) == 0 ? cli_nearest(argv[i] + 2, names)
                                                              : NULL;
            if (near)
                return cli_usage_error(NULL, "unknown option '%s'; did you mean '--%s'?", argv[i],
                                       near);
            return cli_usage_error(NULL, "unknown option '%s' before the command (see '%s "
                                         "--help')",
                                   argv[i], cli_prog);
        }
    }
    if (i >= argc) {
        usage(stderr);
        return EXIT_USAGE;
    }
    if (strcmp(argv[i], "help") == 0) {
        if (i + 1 >= argc) {
            usage(stdout);
            return EXIT_PASS;
        }
        const bx_cmd *c = find(argv[i + 1]);
        if (!c)
            return unknown_command(argv[i + 1]);
        char *hargv[] = {argv[i + 1], "--help", NULL};
        optind = 1;
        return c->fn(2, hargv);
    }
    /* The process ends after one command: OpenSSL's tables go with it instead of being taken
     * apart by its atexit handler (some 1.2M instructions, as much as half a certificate's
     * verification). They stay reachable: leak checkers do not count them. */
    OPENSSL_init_crypto(OPENSSL_INIT_NO_ATEXIT, NULL);
    const bx_cmd *c = find(argv[i]);
    if (!c)
        return unknown_command(argv[i]);
    optind = 1;
    return c->fn(argc - i, argv + i);
}
