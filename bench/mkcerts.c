/* SPDX-License-Identifier: Apache-2.0 */
/* mkcerts: derives many distinct certificates from a few real ones, for the benchmarks
 * (bench/run.sh). Bench tool only: it re-signs what it is given.
 *
 *   mkcerts --key PRIV [--key PRIV]... --count N [--dir DIR] [--jsonl FILE] CERT...
 *
 * Certificate i takes the statement of CERT[i % ncerts] (the payload as collected from a
 * real session) and changes only what is not part of inputsSha256: predicate.nonce (a
 * distinct 32-hex-digit value), issuedAt (the original plus (i / ncerts) % 600 seconds)
 * and expiresAt (issuedAt + 24h). The payload is re-serialized as JCS and signed with
 * every --key (Ed25519 or ECDSA P-256). Each envelope goes to DIR/cert-NNNNNN.intoto.json
 * and, one per line, to FILE. Prints the latest issuedAt (seconds) on stdout. */
#include "bx_schema.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#define MAX_KEYS 4
#define MAX_SEEDS 64

#define TOOL_NAME "mkcerts"
#include "die.h"

typedef struct {
    json_t *st;
    int64_t issued;
    char inputs[65];
} seed;

static void load_seed(const char *path, seed *s)
{
    char *buf = NULL;
    size_t len = 0;
    bx_envelope env;
    bx_error e;
    json_t *pred;

    if (bx_read_file(path, BX_ENVELOPE_MAX_DEFAULT + 1, 0, &buf, &len, &e) != 0)
        die_err(path, &e);
    while (len > 0 && (buf[len - 1] == '\n' || buf[len - 1] == '\r'))
        len--;
    if (bx_envelope_parse(buf, len, &env, &e) != 0)
        die_err(path, &e);
    if (bx_json_parse_strict((const char *)env.payload, env.payload_len, BX_JSON_OBJECT | BX_JSON_JCS, &s->st, &e) != 0 ||
        bx_statement_check(s->st, &e) != 0)
        die_err(path, &e);
    pred = json_object_get(s->st, "predicate");
    if (bx_time_parse(json_string_value(json_object_get(pred, "issuedAt")), 0, &s->issued, &e) !=
        0)
        die_err(path, &e);
    if (bx_predicate_inputs_sha256(pred, s->inputs, &e) != 0)
        die_err(path, &e);
    bx_envelope_free(&env);
    free(buf);
}

static void put(FILE *f, const char *what, const char *buf, size_t len, int newline)
{
    if (fwrite(buf, 1, len, f) != len || (newline && fputc('\n', f) == EOF))
        die("%s: write error", what);
}

int main(int argc, char **argv)
{
    EVP_PKEY *keys[MAX_KEYS];
    seed seeds[MAX_SEEDS];
    size_t nkeys = 0, nseeds = 0;
    long count = 0;
    const char *dir = NULL, *jsonl = NULL;
    FILE *jf = NULL;
    int64_t latest = 0;
    bx_error e;

    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--key") == 0 && i + 1 < argc) {
            if (nkeys == MAX_KEYS)
                die("at most %d keys", MAX_KEYS);
            if (bx_key_load_private(argv[++i], NULL, &keys[nkeys], &e) != 0)
                die_err(argv[i], &e);
            nkeys++;
        } else if (strcmp(argv[i], "--count") == 0 && i + 1 < argc) {
            count = strtol(argv[++i], NULL, 10);
        } else if (strcmp(argv[i], "--dir") == 0 && i + 1 < argc) {
            dir = argv[++i];
        } else if (strcmp(argv[i], "--jsonl") == 0 && i + 1 < argc) {
            jsonl = argv[++i];
        } else if (argv[i][0] == '-') {
            die("usage: mkcerts --key PRIV... --count N [--dir DIR] [--jsonl FILE] CERT...");
        } else {
            if (nseeds == MAX_SEEDS)
                die("at most %d certificates to derive from", MAX_SEEDS);
            load_seed(argv[i], &seeds[nseeds++]);
        }
    }
    if (!nkeys || !nseeds || count <= 0 || (!dir && !jsonl))
        die("usage: mkcerts --key PRIV... --count N [--dir DIR] [--jsonl FILE] CERT...");
    if (jsonl && !(jf = fopen(jsonl, "w")))
        die("%s: cannot create", jsonl);

    for (long i = 0; i < count; i++) {
        seed *s = &seeds[i % (long)nseeds];
        json_t *pred = json_object_get(s->st, "predicate");
        int64_t issued = s->issued + (i / (long)nseeds) % 600;
        char nonce[48], is[21], ex[21], inputs[65], path[4096];
        char *payload = NULL, *out = NULL;
        size_t plen = 0, olen = 0;
        bx_envelope env = {0};

        snprintf(nonce, sizeof nonce, "b0c5%012lx%016lx", (unsigned long)nseeds & 0xffffffffffffUL,
                 (unsigned long)i);
        bx_time_format(issued, is);
        bx_time_format(issued + 86400, ex);
        if (json_object_set_new(pred, "nonce", json_string(nonce)) != 0 ||
            json_object_set_new(pred, "issuedAt", json_string(is)) != 0 ||
            json_object_set_new(pred, "expiresAt", json_string(ex)) != 0)
            die("out of memory");
        if (bx_predicate_inputs_sha256(pred, inputs, &e) != 0)
            die_err("inputsSha256", &e);
        if (strcmp(inputs, s->inputs) != 0)
            die("inputsSha256 changed: nonce and times must not be inputs");
        if (bx_jcs_serialize(s->st, &payload, &plen, &e) != 0)
            die_err("payload", &e);
        env.payload_type = strdup(BX_PAYLOAD_TYPE);
        env.payload = (unsigned char *)payload;
        env.payload_len = plen;
        for (size_t k = 0; k < nkeys; k++)
            if (bx_envelope_sign(&env, keys[k], &e) != 0)
                die_err("sign", &e);
        if (bx_envelope_serialize(&env, &out, &olen, &e) != 0)
            die_err("envelope", &e);
        if (dir) {
            snprintf(path, sizeof path, "%s/cert-%06ld.intoto.json", dir, i);
            FILE *f = fopen(path, "w");
            if (!f)
                die("%s: cannot create", path);
            put(f, path, out, olen, 1);
            if (fclose(f) != 0)
                die("%s: write error", path);
        }
        if (jf)
            put(jf, jsonl, out, olen, 1);
        if (issued > latest)
            latest = issued;
        free(out);
        bx_envelope_free(&env);
    }
    if (jf && fclose(jf) != 0)
        die("%s: write error", jsonl);
    printf("%lld\n", (long long)latest);
    for (size_t k = 0; k < nkeys; k++)
        EVP_PKEY_free(keys[k]);
    for (size_t s = 0; s < nseeds; s++)
        json_decref(seeds[s].st);
    return 0;
}
