/* SPDX-License-Identifier: Apache-2.0 */
/* ledger_mkcert: certificates for the ledger tests (tests/cli/ledger.sh). Test tool only.
 *
 *   ledger_mkcert --template FILE --key PRIV [--key PRIV]... [--source COMMIT]
 *                 [--issued RFC3339] [--ttl DURATION] [--nonce HEX]
 *
 * Takes the predicate of FILE (an in-toto statement, or a DSSE envelope whose payload is
 * one: e.g. `mkcert statement --inspect fixtures/inspect/hardened`), sets issuedAt
 * (default now), expiresAt (issuedAt + ttl, default 24h), nonce (default random) and
 * source ({dirty: false} with --source, else null), recomputes inputsSha256, builds the
 * statement (a source subject naming COMMIT with --source), signs it with each key and
 * writes the envelope to stdout, one line. Nothing is verified: it signs what it is told. */
#include "bx_schema.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <openssl/rand.h>

#define MAX_KEYS 8

#define TOOL_NAME "ledger_mkcert"
#include "die.h"

/* The predicate of a statement or of an envelope's payload. */
static json_t *template_predicate(const char *path)
{
    char *buf = NULL;
    size_t len = 0;
    bx_error e;
    bx_envelope env = {0};
    json_t *doc = NULL, *pred;
    if (bx_read_file(path, 16 * 1024 * 1024, 0, &buf, &len, &e) != 0)
        die_err(path, &e);
    while (len > 0 && (buf[len - 1] == '\n' || buf[len - 1] == '\r'))
        len--;
    if (bx_envelope_parse(buf, len, &env, &e) == 0) {
        if (bx_json_parse_strict((const char *)env.payload, env.payload_len, BX_JSON_OBJECT, &doc, &e) != 0)
            die_err("template payload", &e);
        bx_envelope_free(&env);
    } else if (bx_json_parse_strict(buf, len, BX_JSON_OBJECT, &doc, &e) != 0) {
        die_err(path, &e);
    }
    free(buf);
    pred = json_object_get(doc, "predicate");
    if (!json_is_object(pred))
        die("%s: no predicate", path);
    json_incref(pred);
    json_decref(doc);
    return pred;
}

int main(int argc, char **argv)
{
    const char *template = NULL, *source = NULL, *issued_s = NULL, *ttl_s = "24h", *nonce = NULL;
    const char *keyfiles[MAX_KEYS];
    size_t nkeys = 0;
    int64_t issued = (int64_t)time(NULL), ttl = 0;
    bx_error e;
    char t1[21], t2[21], inputs[65], nonce_buf[33];

    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!v)
            die("%s needs a value", a);
        if (!strcmp(a, "--template"))
            template = v;
        else if (!strcmp(a, "--key") && nkeys < MAX_KEYS)
            keyfiles[nkeys++] = v;
        else if (!strcmp(a, "--source"))
            source = v;
        else if (!strcmp(a, "--issued"))
            issued_s = v;
        else if (!strcmp(a, "--ttl"))
            ttl_s = v;
        else if (!strcmp(a, "--nonce"))
            nonce = v;
        else
            die("unknown argument %s", a);
        i++;
    }
    if (!template || nkeys == 0)
        die("usage: ledger_mkcert --template FILE --key PRIV... [--source COMMIT] [--issued T] "
            "[--ttl D] [--nonce HEX]");
    if (issued_s && bx_time_parse(issued_s, 0, &issued, &e) != 0)
        die_err("--issued", &e);
    if (bx_duration_parse(ttl_s, &ttl, &e) != 0)
        die_err("--ttl", &e);
    if (!nonce) {
        unsigned char r[16];
        if (RAND_bytes(r, sizeof r) != 1)
            die("no randomness");
        nonce = bx_hex_encode(r, sizeof r, nonce_buf);
    }

    json_t *pred = template_predicate(template), *st = NULL;
    json_object_set_new(pred, "issuedAt", json_string(bx_time_format(issued, t1)));
    json_object_set_new(pred, "expiresAt", json_string(bx_time_format(issued + ttl, t2)));
    json_object_set_new(pred, "nonce", json_string(nonce));
    json_object_set_new(pred, "source", source ? json_pack("{s:b, s:[]}", "dirty", 0, "ignored") : json_null());
    if (bx_predicate_inputs_sha256(pred, inputs, &e) != 0)
        die_err("inputs", &e);
    json_object_set_new(pred, "inputsSha256", json_string(inputs));
    if (bx_statement_build(pred, source, &st, &e) != 0 || bx_statement_check(st, &e) != 0)
        die_err("statement", &e);

    bx_envelope env = {0};
    char *payload = NULL, *out = NULL;
    size_t plen = 0, olen = 0;
    if (bx_jcs_serialize(st, &payload, &plen, &e) != 0)
        die_err("jcs", &e);
    env.payload_type = strdup(BX_PAYLOAD_TYPE);
    env.payload = (unsigned char *)payload;
    env.payload_len = plen;
    for (size_t i = 0; i < nkeys; i++) {
        EVP_PKEY *k = NULL;
        if (bx_key_load_private(keyfiles[i], NULL, &k, &e) != 0)
            die_err(keyfiles[i], &e);
        if (bx_envelope_sign(&env, k, &e) != 0)
            die_err("sign", &e);
        EVP_PKEY_free(k);
    }
    if (bx_envelope_serialize(&env, &out, &olen, &e) != 0)
        die_err("serialize", &e);
    if (fwrite(out, 1, olen, stdout) != olen || putchar('\n') == EOF || fflush(stdout) != 0)
        die("cannot write");
    free(out);
    bx_envelope_free(&env);
    json_decref(st);
    json_decref(pred);
    return 0;
}
