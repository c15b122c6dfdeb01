/* SPDX-License-Identifier: Apache-2.0 */
#include "bx_schema.h"

#include <string.h>

int bx_dsse_pae(const char *type, const unsigned char *body, size_t len, unsigned char **out,
                size_t *outlen, bx_error *err)
{
    size_t tlen = strlen(type);
    char head[96];
    int hn = snprintf(head, sizeof head, "DSSEv1 %zu ", tlen);
    char mid[32];
    int mn = snprintf(mid, sizeof mid, " %zu ", len);
    size_t total = (size_t)hn + tlen + (size_t)mn + len;
    unsigned char *p = malloc(total ? total : 1);
    if (!p)
        return bx_error_set(err, BX_ENOMEM, NULL, "out of memory");
    memcpy(p, head, (size_t)hn);
    memcpy(p + hn, type, tlen);
    memcpy(p + hn + tlen, mid, (size_t)mn);
    if (len)
        memcpy(p + hn + tlen + mn, body, len);
    *out = p;
    *outlen = total;
    return 0;
}

void bx_envelope_free(bx_envelope *env)
{
    if (!env)
        return;
    free(env->payload_type);
    free(env->payload);
    for (size_t i = 0; i < env->nsigs; i++) {
        free(env->sigs[i].keyid);
        free(env->sigs[i].sig);
    }
    free(env->sigs);
    memset(env, 0, sizeof *env);
}

static int only_members(json_t *obj, const char *const *allowed, const char *where, bx_error *err)
{
    const char *k;
    json_t *v;
    json_object_foreach(obj, k, v) {
        int known = 0;
        for (size_t i = 0; allowed[i]; i++)
            known |= strcmp(k, allowed[i]) == 0;
        if (!known)
            return bx_error_set(err, BX_EINVAL, where, "unknown member '%s'", k);
    }
    return 0;
}

static int parse_sig(json_t *s, size_t i, bx_dsse_sig *out, bx_error *err)
{
    static const char *const allowed[] = {"keyid", "sig", NULL};
    char where[64];
    snprintf(where, sizeof where, "/signatures/%zu", i);
    if (!json_is_object(s))
        return bx_error_set(err, BX_EINVAL, where, "a signature must be an object");
    int rc = only_members(s, allowed, where, err);
    if (rc)
        return rc;
    json_t *kid = json_object_get(s, "keyid");
    json_t *sig = json_object_get(s, "sig");
    if (kid && !json_is_string(kid))
        return bx_error_set(err, BX_EINVAL, where, "keyid must be a string");
    if (!json_is_string(sig))
        return bx_error_set(err, BX_EINVAL, where, "sig must be a base64 string");
    if (kid && json_string_length(kid) > 0) {
        out->keyid = strdup(json_string_value(kid));
        if (!out->keyid)
            return bx_error_set(err, BX_ENOMEM, NULL, "out of memory");
    }
    rc = bx_b64_decode(json_string_value(sig), json_string_length(sig), &out->sig, &out->siglen,
                       err);
    if (rc) {
        snprintf(err->where, sizeof err->where, "%s/sig", where);
        return BX_EINVAL;
    }
    return 0;
}

/* ---- the fast path -----------------------------------------------------------------
 * Envelopes are almost always of one shape: the three members, each once, strings of
 * printable ASCII without escapes. Those are read here straight from the bytes (the payload
 * is most of them, and a JSON library copies it byte by byte). Anything else -- an escape,
 * another byte, a member twice or unknown, a wrong type, bad base64 -- is left to the
 * strict parse below, which decides and says why; what the fast path accepts the strict
 * parse accepts with the same result. */

typedef struct {
    const char *p, *end;
} scan;

typedef struct {
    const char *s;
    size_t n;
} span;

static void skip_ws(scan *c)
{
    while (c->p < c->end && (*c->p == ' ' || *c->p == '\t' || *c->p == '\n' || *c->p == '\r'))
        c->p++;
}

static int take(scan *c, char ch)
{
    skip_ws(c);
    if (c->p < c->end && *c->p == ch) {
        c->p++;
        return 1;
    }
    return 0;
}

/* A string of printable ASCII without escapes; the opening quote not yet taken. With
 * b64, the string is base64 that bx_b64_decode will check byte by byte anyway (which
 * refuses a quote, backslash or control character): only its end is looked for here. */
static int plain_string_ex(scan *c, span *out, int b64)
{
    if (!take(c, '"'))
        return 0;
    const char *start = c->p, *q = memchr(start, '"', (size_t)(c->end - start));
    if (!q)
        return 0;
    if (!b64)
        for (const char *p = start; p < q; p++)
            if ((unsigned char)*p < 0x20 || (unsigned char)*p > 0x7e || *p == '\\')
                return 0;
    out->s = start;
    out->n = (size_t)(q - start);
    c->p = q + 1;
    return 1;
}

static int plain_string(scan *c, span *out)
{
    return plain_string_ex(c, out, 0);
}

static int key_is(const span *k, const char *name)
{
    return strlen(name) == k->n && memcmp(k->s, name, k->n) == 0;
}

/* {"keyid": "...", "sig": "..."} with keyid optional. */
static int fast_sig(scan *c, span *kid, span *sig)
{
    int have_kid = 0, have_sig = 0;
    span k;
    kid->s = NULL;
    kid->n = 0;
    if (!take(c, '{'))
        return 0;
    do {
        if (!plain_string(c, &k) || !take(c, ':'))
            return 0;
        if (key_is(&k, "keyid") && !have_kid++) {
            if (!plain_string(c, kid))
                return 0;
        } else if (key_is(&k, "sig") && !have_sig++) {
            if (!plain_string_ex(c, sig, 1))
                return 0;
        } else {
            return 0;
        }
    } while (take(c, ','));
    return take(c, '}') && have_sig;
}

static int fast_parse(const char *buf, size_t len, bx_envelope *env)
{
    scan c = {buf, buf + len};
    span k, payload = {0}, ptype = {0}, kids[BX_ENVELOPE_MAX_SIGS], sigs[BX_ENVELOPE_MAX_SIGS];
    int have_payload = 0, have_type = 0, have_sigs = 0;
    size_t n = 0;
    bx_error e;

    if (!take(&c, '{'))
        return -1;
    do {
        if (!plain_string(&c, &k) || !take(&c, ':'))
            return -1;
        if (key_is(&k, "payload") && !have_payload++) {
            if (!plain_string_ex(&c, &payload, 1))
                return -1;
        } else if (key_is(&k, "payloadType") && !have_type++) {
            if (!plain_string(&c, &ptype))
                return -1;
        } else if (key_is(&k, "signatures") && !have_sigs++) {
            if (!take(&c, '['))
                return -1;
            if (!take(&c, ']')) {
                do {
                    if (n == BX_ENVELOPE_MAX_SIGS || !fast_sig(&c, &kids[n], &sigs[n]))
                        return -1;
                    n++;
                } while (take(&c, ','));
                if (!take(&c, ']'))
                    return -1;
            }
        } else {
            return -1;
        }
    } while (take(&c, ','));
    if (!take(&c, '}') || !have_payload || !have_type || !have_sigs)
        return -1;
    skip_ws(&c);
    if (c.p != c.end)
        return -1;

    unsigned char *pl = NULL;
    size_t pllen = 0;
    if (!(env->payload_type = strndup(ptype.s, ptype.n)) ||
        bx_b64_decode(payload.s, payload.n, &pl, &pllen, &e) != 0)
        goto fail;
    env->payload = pl; /* NUL-terminated by bx_b64_decode */
    env->payload_len = pllen;
    if (n && !(env->sigs = calloc(n, sizeof *env->sigs)))
        goto fail;
    for (size_t i = 0; i < n; i++) {
        env->nsigs = i + 1;
        if ((kids[i].n && !(env->sigs[i].keyid = strndup(kids[i].s, kids[i].n))) ||
            bx_b64_decode(sigs[i].s, sigs[i].n, &env->sigs[i].sig, &env->sigs[i].siglen, &e) != 0)
            goto fail;
    }
    return 0;
fail:
    bx_envelope_free(env);
    return -1;
}

int bx_envelope_parse(const char *buf, size_t len, bx_envelope *env, bx_error *err)
{
    static const char *const allowed[] = {"payload", "payloadType", "signatures", NULL};
    json_t *root = NULL;
    int rc;
    memset(env, 0, sizeof *env);
    if (fast_parse(buf, len, env) == 0)
        return 0;

    rc = bx_json_parse_strict(buf, len, BX_JSON_OBJECT, &root, err);
    if (rc)
        goto out;
    if ((rc = only_members(root, allowed, "", err)) != 0)
        goto out;
    json_t *payload = json_object_get(root, "payload");
    json_t *ptype = json_object_get(root, "payloadType");
    json_t *sigs = json_object_get(root, "signatures");
    if (!json_is_string(payload)) {
        rc = bx_error_set(err, BX_EINVAL, "/payload", "payload must be a base64 string");
        goto out;
    }
    if (!json_is_string(ptype)) {
        rc = bx_error_set(err, BX_EINVAL, "/payloadType", "payloadType must be a string");
        goto out;
    }
    if (!json_is_array(sigs)) {
        rc = bx_error_set(err, BX_EINVAL, "/signatures", "signatures must be an array");
        goto out;
    }
    const char *pt = json_string_value(ptype);
    for (const char *c = pt; *c; c++) {
        if ((unsigned char)*c < 0x20 || (unsigned char)*c > 0x7e) {
            rc = bx_error_set(err, BX_EINVAL, "/payloadType", "payloadType must be printable ASCII");
            goto out;
        }
    }
    env->payload_type = strdup(pt);
    if (!env->payload_type) {
        rc = bx_error_set(err, BX_ENOMEM, NULL, "out of memory");
        goto out;
    }
    unsigned char *pl = NULL;
    size_t pllen = 0;
    rc = bx_b64_decode(json_string_value(payload), json_string_length(payload), &pl, &pllen, err);
    if (rc) {
        snprintf(err->where, sizeof err->where, "/payload");
        rc = BX_EINVAL;
        goto out;
    }
    env->payload = realloc(pl, pllen + 1);
    if (!env->payload) {
        free(pl);
        rc = bx_error_set(err, BX_ENOMEM, NULL, "out of memory");
        goto out;
    }
    env->payload[pllen] = '\0';
    env->payload_len = pllen;
    size_t n = json_array_size(sigs);
    if (n > BX_ENVELOPE_MAX_SIGS) {
        rc = bx_error_set(err, BX_EINVAL, "/signatures", "%zu signatures: at most %d are accepted", n,
                          BX_ENVELOPE_MAX_SIGS);
        goto out;
    }
    if (n) {
        env->sigs = calloc(n, sizeof *env->sigs);
        if (!env->sigs) {
            rc = bx_error_set(err, BX_ENOMEM, NULL, "out of memory");
            goto out;
        }
    }
    for (size_t i = 0; i < n; i++) {
        rc = parse_sig(json_array_get(sigs, i), i, &env->sigs[i], err);
        env->nsigs = i + 1;
        if (rc)
            goto out;
    }
out:
    json_decref(root);
    if (rc)
        bx_envelope_free(env);
    return rc;
}

int bx_envelope_sign(bx_envelope *env, EVP_PKEY *key, bx_error *err)
{
    unsigned char *pae = NULL, *sig = NULL;
    size_t paelen = 0, siglen = 0;
    char keyid[65];
    int rc;
    if ((rc = bx_key_id(key, keyid, err)) != 0)
        return rc;
    rc = bx_dsse_pae(env->payload_type, env->payload, env->payload_len, &pae, &paelen, err);
    if (rc)
        goto out;
    if ((rc = bx_sign(key, pae, paelen, &sig, &siglen, err)) != 0)
        goto out;
    bx_dsse_sig *grown = realloc(env->sigs, (env->nsigs + 1) * sizeof *grown);
    if (!grown) {
        rc = bx_error_set(err, BX_ENOMEM, NULL, "out of memory");
        goto out;
    }
    env->sigs = grown;
    env->sigs[env->nsigs].keyid = strdup(keyid);
    env->sigs[env->nsigs].sig = sig;
    env->sigs[env->nsigs].siglen = siglen;
    env->nsigs++;
    sig = NULL;
out:
    free(pae);
    free(sig);
    return rc;
}

int bx_envelope_serialize(const bx_envelope *env, char **out, size_t *len, bx_error *err)
{
    int rc = 0;
    char *p64 = NULL, *s = NULL;
    json_t *sigs = json_array();
    json_t *root = NULL;
    p64 = bx_b64_encode(env->payload, env->payload_len);
    if (!sigs || !p64) {
        rc = bx_error_set(err, BX_ENOMEM, NULL, "out of memory");
        goto out;
    }
    for (size_t i = 0; i < env->nsigs; i++) {
        char *s64 = bx_b64_encode(env->sigs[i].sig, env->sigs[i].siglen);
        json_t *o = s64 ? json_pack("{s:s, s:s}", "keyid", env->sigs[i].keyid ? env->sigs[i].keyid : "",
                                    "sig", s64)
                        : NULL;
        free(s64);
        if (!o || json_array_append_new(sigs, o)) {
            rc = bx_error_set(err, BX_ENOMEM, NULL, "out of memory");
            goto out;
        }
    }
    root = json_pack("{s:s, s:s, s:O}", "payload", p64, "payloadType", env->payload_type,
                     "signatures", sigs);
    if (!root || (rc = bx_jcs_serialize(root, &s, len, err)) != 0) {
        rc = rc ? rc : bx_error_set(err, BX_ENOMEM, NULL, "out of memory");
        goto out;
    }
    *out = s;
out:
    free(p64);
    json_decref(sigs);
    json_decref(root);
    return rc;
}

int bx_certificate_encode(const json_t *statement, EVP_PKEY *const *keys, size_t nkeys,
                          char **out, size_t *len, bx_error *err)
{
    bx_envelope env = {0};
    char *payload = NULL;
    size_t plen = 0;
    int rc = bx_jcs_serialize(statement, &payload, &plen, err);
    if (rc)
        goto out;
    if (!(env.payload_type = strdup(BX_PAYLOAD_TYPE))) {
        rc = bx_error_set(err, BX_ENOMEM, NULL, "out of memory");
        goto out;
    }
    env.payload = (unsigned char *)payload;
    env.payload_len = plen;
    payload = NULL;
    for (size_t i = 0; i < nkeys && rc == 0; i++)
        rc = bx_envelope_sign(&env, keys[i], err);
    if (rc == 0)
        rc = bx_envelope_serialize(&env, out, len, err);
    if (rc == 0 && (rc = bx_envelope_check_limits(*out, *len, err)) != 0) {
        free(*out);
        *out = NULL;
    }
out:
    free(payload);
    bx_envelope_free(&env);
    return rc;
}

int bx_envelope_check_limits(const char *doc, size_t len, bx_error *err)
{
    bx_envelope back = {0};
    int rc;

    if (len > BX_ENVELOPE_MAX_DEFAULT)
        return bx_error_set(err, BX_ECONFIG, NULL,
                            "the envelope would be %zu bytes: verify refuses one over %d", len,
                            BX_ENVELOPE_MAX_DEFAULT);
    /* read back as verify reads it: the signature count and the envelope's form */
    if ((rc = bx_envelope_parse(doc, len, &back, err)) != 0)
        return rc == BX_ENOMEM ? rc : (err->code = BX_ECONFIG);
    bx_envelope_free(&back);
    return 0;
}

char *bx_envelope_id(const bx_envelope *env, char out[65])
{
    return bx_sha256_hex(env->payload, env->payload_len, out);
}
