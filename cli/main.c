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
};

#ifdef BOXCERT_VERIFY_ONLY
#define PROG "boxcert-verify"
#else
#define PROG "boxcert"
#endif

static void usage(FILE *f)
{
    fprintf(f, "usage: %s COMMAND [ARGS]\n\n", PROG);
    fprintf(f, "boxcert proves, offline, how a sandbox session was contained.\n\ncommands:\n");
    for (size_t i = 0; i < sizeof commands / sizeof *commands; i++)
        fprintf(f, "  %-9s %s\n", commands[i].name, commands[i].summary);
    fprintf(f, "\n'%s COMMAND --help' describes a command. Exit codes: 0 pass, 1 rejected,\n"
               "2 usage or configuration error, 3 environment error.\n",
            PROG);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return EXIT_USAGE;
    }
    if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "help") == 0) {
        usage(stdout);
        return EXIT_PASS;
    }
    if (strcmp(argv[1], "--version") == 0) {
        printf("%s %s\n", PROG, BOXCERT_VERSION);
        return EXIT_PASS;
    }
    /* The process ends after one command: OpenSSL's tables go with it instead of being taken
     * apart by its atexit handler (some 1.2M instructions, as much as half a certificate's
     * verification). They stay reachable: leak checkers do not count them. */
    OPENSSL_init_crypto(OPENSSL_INIT_NO_ATEXIT, NULL);
    for (size_t i = 0; i < sizeof commands / sizeof *commands; i++)
        if (strcmp(argv[1], commands[i].name) == 0)
            return commands[i].fn(argc - 1, argv + 1);
    return cli_usage_error(PROG, "unknown command '%s' (see '%s --help')", argv[1], PROG);
}
