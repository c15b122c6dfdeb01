/* SPDX-License-Identifier: Apache-2.0 */
#include "cli.h"

#include <getopt.h>
#include <string.h>
#include <unistd.h>
#include <openssl/crypto.h>

static const char help[] =
    "usage: boxcert keygen --out PREFIX [--alg ed25519|ecdsa-p256] [--encrypt] [-q|--quiet]\n\n"
    "Create PREFIX.key (PKCS#8 PEM, mode 0600) and PREFIX.pub (SPKI PEM), both created\n"
    "exclusively: existing files are never overwritten, and on failure neither is left.\n"
    "Prints the keyid (hex SHA-256 of the public key's SPKI DER).\n"
    "  --out PREFIX   the two files' names, without .key and .pub\n"
    "  --alg ALG      ed25519 (default) or ecdsa-p256\n"
    "  --encrypt      encrypt the private key with a passphrase (asked on the terminal,\n"
    "                 or the first line of $BOXCERT_KEY_PASSPHRASE_FILE)\n"
    "  -q, --quiet    do not print the keyid\n"
    "  -h, --help     this help\n"
    "Exit: 0 written, 2 usage error, 3 a file exists or cannot be written.\n";

static int get_passphrase(char *buf, size_t len)
{
    bx_error err;
    char again[1024];
    int rc;
    if (bx_passphrase_read(buf, len, "New passphrase: ", &err) != 0)
        return cli_report("keygen", &err);
    if (getenv("BOXCERT_KEY_PASSPHRASE_FILE") && *getenv("BOXCERT_KEY_PASSPHRASE_FILE"))
        return 0;
    if (bx_passphrase_read(again, sizeof again, "Repeat passphrase: ", &err) != 0)
        return cli_report("keygen", &err);
    rc = strcmp(buf, again) == 0 ? 0 : cli_usage_error("keygen", "the passphrases differ");
    OPENSSL_cleanse(again, sizeof again);
    return rc;
}

int cmd_keygen(int argc, char **argv)
{
    static const struct option opts[] = {{"out", required_argument, 0, 'o'},
                                         {"alg", required_argument, 0, 'a'},
                                         {"encrypt", no_argument, 0, 'e'},
                                         {"quiet", no_argument, 0, 'q'},
                                         {"help", no_argument, 0, 'h'},
                                         {0, 0, 0, 0}};
    const char *prefix = NULL, *alg_s = "ed25519";
    int encrypt = 0, c, rc = EXIT_PASS;
    bx_error err;
    EVP_PKEY *key = NULL;
    char *priv = NULL, *pub = NULL, *kpath = NULL, *ppath = NULL;
    char pass[1024] = "", keyid[65];
    bx_alg alg;

    while ((c = cli_getopt("keygen", argc, argv, opts)) != -1) {
        switch (c) {
        case 'o': prefix = optarg; break;
        case 'a': alg_s = optarg; break;
        case 'e': encrypt = 1; break;
        case 'h': cli_help(help); return EXIT_PASS;
        default: return EXIT_USAGE;
        }
    }
    if (!prefix || optind != argc)
        return cli_usage_error("keygen", "--out PREFIX is required and nothing else (see --help)");
    if (strcmp(prefix, "-") == 0)
        return cli_usage_error("--out", "keygen writes two files (PREFIX.key, PREFIX.pub): '-' "
                                        "cannot name them");
    if (strcmp(alg_s, "ed25519") == 0)
        alg = BX_ALG_ED25519;
    else if (strcmp(alg_s, "ecdsa-p256") == 0)
        alg = BX_ALG_ECDSA_P256;
    else
        return cli_usage_error("--alg", "'%s' is not ed25519 or ecdsa-p256", alg_s);
    if (encrypt && (rc = get_passphrase(pass, sizeof pass)) != 0)
        return rc;

    if (asprintf(&kpath, "%s.key", prefix) < 0 || asprintf(&ppath, "%s.pub", prefix) < 0) {
        rc = EXIT_ENV;
        goto out;
    }
    if (bx_key_generate(alg, &key, &err) || bx_key_private_pem(key, encrypt ? pass : NULL, &priv, &err) ||
        bx_key_public_pem(key, &pub, &err) || bx_key_id(key, keyid, &err)) {
        rc = cli_report("keygen", &err);
        goto out;
    }
    if (bx_write_file_excl(kpath, priv, strlen(priv), 0600, &err) != 0) {
        rc = cli_report(kpath, &err);
        goto out;
    }
    if (bx_write_file_excl(ppath, pub, strlen(pub), 0644, &err) != 0) {
        rc = cli_report(ppath, &err);
        unlink(kpath);
        goto out;
    }
    if (!cli_quiet)
        printf("%s\n", keyid);
out:
    OPENSSL_cleanse(pass, sizeof pass);
    if (priv) {
        OPENSSL_cleanse(priv, strlen(priv));
        free(priv);
    }
    free(pub);
    free(kpath);
    free(ppath);
    EVP_PKEY_free(key);
    return rc;
}
