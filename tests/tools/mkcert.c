/* SPDX-License-Identifier: Apache-2.0 */
/* mkcert: makes the golden certificates of fixtures/certificate/ (see
 * scripts/mkfixtures-certificate.sh). Test tool only: it signs whatever it is told to,
 * broken on purpose.
 *
 *   mkcert statement --inspect DIR [--source COMMIT]
 *       The statement around the predicate built from the recorded replies in DIR with
 *       bx_predicate_from_inspect at a fixed time (issuedAt 2026-01-01T00:00:00Z, ttl
 *       3650d, a fixed nonce, a fixed host), as JCS on stdout.
 *   mkcert envelope --statement FILE [edits] [signing] [encoding]
 *       edits (in order):   --set PTR JSON | --del PTR | --fix-inputs
 *                           --sub OLD NEW  (bytes of the JCS payload; NEW may hold \xHH)
 *       signing (in order): --keyid auto|empty|absent|TEXT   (for the next signatures)
 *                           --key PRIV | --key-p1363 PRIV | --dup
 *                           --payload-type T  (the envelope's)   --sign-type T (in PAE)
 *       encoding:           --b64 MODE, --sig-b64 MODE: std url unpadded padbits mixed
 *                           --env-sub OLD NEW (bytes of the envelope)
 *       The envelope goes to stdout, one line. A mutation that changes nothing fails. */
#include "bx_attest.h"
#include "bx_schema.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <openssl/bn.h>
#include <openssl/ecdsa.h>

#define NOW 1767225600 /* 2026-01-01T00:00:00Z */
#define TTL (3650LL * 86400)
#define NONCE "00112233445566778899aabbccddeeff"
#define HOSTNAME "regress-host"
#define BOOT_ID "6f1c2a9e-7d3b-4e5f-9a8b-0c1d2e3f4a5b"
#define ENDPOINT "unix:///var/run/docker.sock"
#define MAX_SIGS 16

#define TOOL_NAME "mkcert"
#include "die.h"

static char *slurp(const char *path, size_t *len)
{
    char *buf = NULL;
    bx_error e;
    if (bx_read_file(path, 16 * 1024 * 1024, BX_READ_EMPTY_OK, &buf, len, &e) != 0)
        die_err(path, &e);
    return buf;
}

static json_t *load_json(const char *dir, const char *name, char **raw, size_t *rawlen, int must)
{
    char path[4096];
    size_t len = 0;
    json_error_t je;
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "rb");
    if (!f) {
        if (must)
            die("%s: cannot open", path);
        return NULL;
    }
    fclose(f);
    char *buf = slurp(path, &len);
    json_t *j = json_loadb(buf, len, JSON_REJECT_DUPLICATES, &je);
    if (!j)
        die("%s: %s", path, je.text);
    if (raw) {
        *raw = buf;
        *rawlen = len;
    } else {
        free(buf);
    }
    return j;
}

static void put(const char *buf, size_t len)
{
    if (fwrite(buf, 1, len, stdout) != len || fputc('\n', stdout) == EOF || fflush(stdout) != 0)
        die("cannot write stdout");
}

/* ---- statement ----------------------------------------------------------------------- */

static int cmd_statement(int argc, char **argv)
{
    const char *dir = NULL, *source = NULL;
    for (int i = 2; i < argc; i++) {
        if (!strcmp(argv[i], "--inspect") && i + 1 < argc)
            dir = argv[++i];
        else if (!strcmp(argv[i], "--source") && i + 1 < argc)
            source = argv[++i];
        else
            die("statement: unknown argument %s", argv[i]);
    }
    if (!dir)
        die("statement: --inspect DIR is required");
    char *raw_c = NULL, *raw_i = NULL, *out = NULL;
    size_t lc = 0, li = 0, olen = 0;
    json_t *version = load_json(dir, "version.json", NULL, NULL, 1);
    json_t *info = load_json(dir, "info.json", NULL, NULL, 1);
    json_t *c = load_json(dir, "container.json", &raw_c, &lc, 1);
    json_t *img = load_json(dir, "image.json", &raw_i, &li, 1);
    json_t *net = load_json(dir, "network.json", NULL, NULL, 0);
    json_t *pred = NULL, *st = NULL;
    bx_error e;
    char inputs[65];
    bx_collect_opts o = {.container = "x",
                         .now = NOW,
                         .ttl = TTL,
                         .nonce = NONCE,
                         .expect_image = json_string_value(json_object_get(c, "Image"))};

    if (bx_predicate_from_inspect(version, info, c, img, net, raw_c, lc, raw_i, li, &o, ENDPOINT,
                                  &pred, &e) != 0)
        die_err("predicate", &e);
    /* the host that runs the generator is not part of the fixture */
    json_object_set_new(pred, "host",
                        json_pack("{s:s,s:s}", "bootId", BOOT_ID, "hostname", HOSTNAME));
    if (source)
        json_object_set_new(pred, "source", json_pack("{s:b, s:[]}", "dirty", 0, "ignored"));
    if (bx_predicate_inputs_sha256(pred, inputs, &e) != 0)
        die_err("inputs", &e);
    json_object_set_new(pred, "inputsSha256", json_string(inputs));
    if (bx_statement_build(pred, source, &st, &e) != 0 || bx_statement_check(st, &e) != 0 ||
        bx_jcs_serialize(st, &out, &olen, &e) != 0)
        die_err("statement", &e);
    put(out, olen);
    free(out);
    free(raw_c);
    free(raw_i);
    json_decref(st);
    json_decref(pred);
    json_decref(version);
    json_decref(info);
    json_decref(c);
    json_decref(img);
    json_decref(net);
    return 0;
}

/* ---- edits ----------------------------------------------------------------------------- */

/* The parent of the RFC 6901 pointer ptr and its last segment (unescaped) in last. */
static json_t *parent_of(json_t *root, const char *ptr, char *last, size_t lastlen)
{
    json_t *v = root;
    if (*ptr != '/')
        die("pointer %s: must start with /", ptr);
    while (*ptr == '/') {
        size_t n = 0;
        for (ptr++; *ptr && *ptr != '/' && n + 1 < lastlen; ptr++) {
            if (*ptr == '~' && (ptr[1] == '0' || ptr[1] == '1'))
                last[n++] = *++ptr == '0' ? '~' : '/';
            else
                last[n++] = *ptr;
        }
        last[n] = '\0';
        if (!*ptr)
            return v;
        v = json_is_array(v) ? json_array_get(v, strtoul(last, NULL, 10))
                             : json_object_get(v, last);
        if (!v)
            die("pointer: no %s", last);
    }
    return v;
}

static void edit_set(json_t *root, const char *ptr, const char *text)
{
    char last[256];
    json_error_t je;
    json_t *parent = parent_of(root, ptr, last, sizeof last);
    json_t *v = json_loads(text, JSON_DECODE_ANY, &je);
    if (!v)
        die("--set %s: %s", ptr, je.text);
    if (json_is_array(parent)) {
        if (!strcmp(last, "-"))
            json_array_append_new(parent, v);
        else if (json_array_set_new(parent, strtoul(last, NULL, 10), v) != 0)
            die("--set %s: no such index", ptr);
    } else if (json_is_object(parent)) {
        json_object_set_new(parent, last, v);
    } else {
        die("--set %s: parent is not an object or array", ptr);
    }
}

static void edit_del(json_t *root, const char *ptr)
{
    char last[256];
    json_t *parent = parent_of(root, ptr, last, sizeof last);
    int rc = json_is_array(parent) ? json_array_remove(parent, strtoul(last, NULL, 10))
                                   : json_object_del(parent, last);
    if (rc != 0)
        die("--del %s: nothing there", ptr);
}

/* NEW with \xHH escapes (and \\) decoded, into out; returns its length. */
static size_t unescape(const char *s, char *out, size_t cap)
{
    size_t n = 0;
    for (; *s && n + 1 < cap; s++) {
        if (s[0] == '\\' && s[1] == 'x' && s[2] && s[3]) {
            char hex[3] = {s[2], s[3], 0};
            out[n++] = (char)strtoul(hex, NULL, 16);
            s += 3;
        } else if (s[0] == '\\' && s[1] == '\\') {
            out[n++] = '\\';
            s++;
        } else {
            out[n++] = *s;
        }
    }
    out[n] = '\0';
    return n;
}

/* Replace the first OLD in *buf (length *len) by NEW; dies when OLD is absent. */
static void substitute(char **buf, size_t *len, const char *old, const char *new_esc)
{
    char neu[4096];
    size_t nl = unescape(new_esc, neu, sizeof neu), ol = strlen(old);
    char *at = memmem(*buf, *len, old, ol);
    if (!at)
        die("--sub: '%s' not found", old);
    size_t off = (size_t)(at - *buf), total = *len - ol + nl;
    char *r = malloc(total + 1);
    if (!r)
        die("out of memory");
    memcpy(r, *buf, off);
    memcpy(r + off, neu, nl);
    memcpy(r + off + nl, *buf + off + ol, *len - off - ol);
    r[total] = '\0';
    free(*buf);
    *buf = r;
    *len = total;
}

/* ---- base64 modes -------------------------------------------------------------------------- */

static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

static char *encode(const unsigned char *buf, size_t len, const char *mode)
{
    char *s = bx_b64_encode(buf, len);
    size_t n = s ? strlen(s) : 0;
    int changed = 0;
    if (!s)
        die("out of memory");
    if (!strcmp(mode, "std"))
        return s;
    if (!strcmp(mode, "url")) {
        for (char *c = s; *c; c++) {
            if (*c == '+' || *c == '/') {
                *c = *c == '+' ? '-' : '_';
                changed = 1;
            }
        }
    } else if (!strcmp(mode, "unpadded")) {
        while (n > 0 && s[n - 1] == '=') {
            s[--n] = '\0';
            changed = 1;
        }
    } else if (!strcmp(mode, "padbits")) {
        /* the character before the padding carries unused low bits: set one */
        size_t pad = n >= 2 && s[n - 2] == '=' ? 2 : n >= 1 && s[n - 1] == '=' ? 1 : 0;
        if (pad) {
            char *c = &s[n - pad - 1];
            size_t v = (size_t)(strchr(b64, *c) - b64);
            *c = b64[v | 1];
            changed = 1;
        }
    } else if (!strcmp(mode, "mixed")) {
        /* one URL-safe character among standard ones */
        char *first = strpbrk(s, "+/");
        if (first && strpbrk(first + 1, "+/")) {
            *first = *first == '+' ? '-' : '_';
            changed = 1;
        }
    } else {
        die("unknown base64 mode %s", mode);
    }
    if (!changed)
        die("base64 mode %s changes nothing here", mode);
    return s;
}

/* ---- signing ----------------------------------------------------------------------------------
 */

typedef struct {
    char *keyid; /* NULL: no keyid member */
    unsigned char *sig;
    size_t siglen;
} sigout;

static EVP_PKEY *load_key(const char *path)
{
    EVP_PKEY *k = NULL;
    bx_error e;
    if (bx_key_load_private(path, NULL, &k, &e) != 0)
        die_err(path, &e);
    return k;
}

static void der_to_p1363(unsigned char **sig, size_t *len)
{
    const unsigned char *p = *sig;
    ECDSA_SIG *es = d2i_ECDSA_SIG(NULL, &p, (long)*len);
    const BIGNUM *r, *s;
    unsigned char *raw = malloc(64);
    if (!es || !raw)
        die("not a DER ECDSA signature");
    ECDSA_SIG_get0(es, &r, &s);
    if (BN_bn2binpad(r, raw, 32) != 32 || BN_bn2binpad(s, raw + 32, 32) != 32)
        die("ECDSA signature does not fit P-256");
    ECDSA_SIG_free(es);
    free(*sig);
    *sig = raw;
    *len = 64;
}

static void sign_one(sigout *out, const char *path, int p1363, const char *keyid_mode,
                     const char *sign_type, const unsigned char *payload, size_t plen)
{
    EVP_PKEY *k = load_key(path);
    unsigned char *pae = NULL;
    size_t paelen = 0;
    char kid[65];
    bx_error e;
    if (bx_dsse_pae(sign_type, payload, plen, &pae, &paelen, &e) != 0 ||
        bx_sign(k, pae, paelen, &out->sig, &out->siglen, &e) != 0 || bx_key_id(k, kid, &e) != 0)
        die_err(path, &e);
    if (p1363) {
        if (bx_key_alg(k) != BX_ALG_ECDSA_P256)
            die("%s: p1363 needs a P-256 key", path);
        der_to_p1363(&out->sig, &out->siglen);
    }
    if (!strcmp(keyid_mode, "auto"))
        out->keyid = strdup(kid);
    else if (!strcmp(keyid_mode, "empty"))
        out->keyid = strdup("");
    else if (!strcmp(keyid_mode, "absent"))
        out->keyid = NULL;
    else
        out->keyid = strdup(keyid_mode);
    free(pae);
    EVP_PKEY_free(k);
}

/* ---- envelope -------------------------------------------------------------------------------- */

static int cmd_envelope(int argc, char **argv)
{
    const char *stmt_path = NULL, *payload_type = BX_PAYLOAD_TYPE, *sign_type = NULL;
    const char *keyid_mode = "auto", *pmode = "std", *smode = "std";
    char *payload = NULL, *env_text = NULL;
    size_t plen = 0, elen = 0;
    json_t *st = NULL;
    sigout sigs[MAX_SIGS] = {0};
    size_t nsigs = 0;
    bx_error e;

    /* pass 1: the statement and its edits */
    for (int i = 2; i < argc; i++)
        if (!strcmp(argv[i], "--statement") && i + 1 < argc)
            stmt_path = argv[++i];
    if (!stmt_path)
        die("envelope: --statement FILE is required");
    payload = slurp(stmt_path, &plen);
    while (plen > 0 && payload[plen - 1] == '\n')
        plen--;
    if (bx_json_parse_strict(payload, plen, BX_JSON_OBJECT | BX_JSON_JCS, &st, &e) != 0)
        die_err(stmt_path, &e);
    for (int i = 2; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--set") && i + 2 < argc) {
            edit_set(st, argv[i + 1], argv[i + 2]);
            i += 2;
        } else if (!strcmp(a, "--del") && i + 1 < argc) {
            edit_del(st, argv[++i]);
        } else if (!strcmp(a, "--fix-inputs")) {
            char inputs[65];
            json_t *pred = json_object_get(st, "predicate");
            if (bx_predicate_inputs_sha256(pred, inputs, &e) != 0)
                die_err("--fix-inputs", &e);
            json_object_set_new(pred, "inputsSha256", json_string(inputs));
        } else if (!strcmp(a, "--sub") || !strcmp(a, "--env-sub")) {
            i += 2;
        } else if (!strcmp(a, "--statement") || !strcmp(a, "--keyid") || !strcmp(a, "--key") ||
                   !strcmp(a, "--key-p1363") || !strcmp(a, "--payload-type") ||
                   !strcmp(a, "--sign-type") || !strcmp(a, "--b64") || !strcmp(a, "--sig-b64")) {
            i++;
        } else if (strcmp(a, "--dup") != 0) {
            die("envelope: unknown argument %s", a);
        }
    }
    free(payload);
    if (bx_jcs_serialize(st, &payload, &plen, &e) != 0)
        die_err("payload", &e);
    /* pass 2: raw byte substitutions in the payload, then signatures, then encoding */
    for (int i = 2; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--sub") && i + 2 < argc) {
            substitute(&payload, &plen, argv[i + 1], argv[i + 2]);
            i += 2;
        }
    }
    for (int i = 2; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--payload-type") && i + 1 < argc)
            payload_type = argv[++i];
    }
    for (int i = 2; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--keyid") && i + 1 < argc) {
            keyid_mode = argv[++i];
        } else if (!strcmp(a, "--sign-type") && i + 1 < argc) {
            sign_type = argv[++i];
        } else if ((!strcmp(a, "--key") || !strcmp(a, "--key-p1363")) && i + 1 < argc) {
            if (nsigs == MAX_SIGS)
                die("too many signatures");
            sign_one(&sigs[nsigs++], argv[++i], !strcmp(a, "--key-p1363"), keyid_mode,
                     sign_type ? sign_type : payload_type, (unsigned char *)payload, plen);
        } else if (!strcmp(a, "--dup")) {
            if (nsigs == 0 || nsigs == MAX_SIGS)
                die("--dup: no signature to repeat");
            sigs[nsigs].keyid = sigs[nsigs - 1].keyid ? strdup(sigs[nsigs - 1].keyid) : NULL;
            sigs[nsigs].sig = malloc(sigs[nsigs - 1].siglen);
            memcpy(sigs[nsigs].sig, sigs[nsigs - 1].sig, sigs[nsigs - 1].siglen);
            sigs[nsigs].siglen = sigs[nsigs - 1].siglen;
            nsigs++;
        } else if (!strcmp(a, "--b64") && i + 1 < argc) {
            pmode = argv[++i];
        } else if (!strcmp(a, "--sig-b64") && i + 1 < argc) {
            smode = argv[++i];
        }
    }
    json_t *arr = json_array();
    for (size_t s = 0; s < nsigs; s++) {
        char *s64 = encode(sigs[s].sig, sigs[s].siglen, smode);
        json_t *o = json_pack("{s:s}", "sig", s64);
        if (sigs[s].keyid)
            json_object_set_new(o, "keyid", json_string(sigs[s].keyid));
        json_array_append_new(arr, o);
        free(s64);
        free(sigs[s].keyid);
        free(sigs[s].sig);
    }
    char *p64 = encode((unsigned char *)payload, plen, pmode);
    json_t *env =
        json_pack("{s:s,s:s,s:o}", "payload", p64, "payloadType", payload_type, "signatures", arr);
    if (!env || bx_jcs_serialize(env, &env_text, &elen, &e) != 0)
        die_err("envelope", &e);
    for (int i = 2; i < argc; i++) {
        if (!strcmp(argv[i], "--env-sub") && i + 2 < argc) {
            substitute(&env_text, &elen, argv[i + 1], argv[i + 2]);
            i += 2;
        }
    }
    put(env_text, elen);
    free(env_text);
    free(p64);
    free(payload);
    json_decref(env);
    json_decref(st);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc >= 2 && !strcmp(argv[1], "statement"))
        return cmd_statement(argc, argv);
    if (argc >= 2 && !strcmp(argv[1], "envelope"))
        return cmd_envelope(argc, argv);
    fputs("usage: mkcert statement --inspect DIR [--source COMMIT]\n"
          "       mkcert envelope --statement FILE [--set PTR JSON] [--del PTR] [--fix-inputs]\n"
          "              [--sub OLD NEW] [--keyid MODE] [--key PRIV] [--key-p1363 PRIV] [--dup]\n"
          "              [--payload-type T] [--sign-type T] [--b64 MODE] [--sig-b64 MODE]\n"
          "              [--env-sub OLD NEW]\n",
          stderr);
    return 2;
}
