/* SPDX-License-Identifier: Apache-2.0 */
#include "bx_verify.h"

#include <string.h>

void bx_verify_result_free(bx_verify_result *res)
{
    if (!res)
        return;
    json_decref(res->statement);
    json_decref(res->findings);
    json_decref(res->signers);
    memset(res, 0, sizeof *res);
}

static void fail(json_t *findings, const char *rule, json_t *expected, json_t *observed,
                 const bx_error *e)
{
    char buf[400];
    bx_finding_add(findings, rule, "fail", expected, observed, "%s", bx_error_str(e, buf, sizeof buf));
}

/* Distinct trusted keys whose signature verifies over pae. verified[] marks them; the
 * count is returned. The keyid is a hint only: the key it names is tried first, then
 * every other, so the verdict never depends on the unsigned hint. */
static size_t count_signers(const bx_policy *p, const bx_envelope *env, const unsigned char *pae,
                            size_t paelen, unsigned char *verified)
{
    size_t count = 0;
    for (size_t s = 0; s < env->nsigs && count < bx_policy_nkeys(p); s++) {
        const bx_dsse_sig *sig = &env->sigs[s];
        size_t hint = bx_policy_nkeys(p);
        if (sig->keyid)
            for (size_t k = 0; k < bx_policy_nkeys(p) && hint == bx_policy_nkeys(p); k++)
                if (strcmp(bx_policy_key(p, k)->keyid, sig->keyid) == 0)
                    hint = k;
        for (size_t j = 0; j <= bx_policy_nkeys(p); j++) {
            size_t k = j == 0 ? hint : j - 1;
            if (k >= bx_policy_nkeys(p) || (j > 0 && k == hint) || verified[k])
                continue;
            bx_error e;
            if (bx_verify_sig(bx_policy_key(p, k)->key, bx_policy_key(p, k)->enc, pae, paelen, sig->sig, sig->siglen,
                              &e) == 0) {
                verified[k] = 1;
                count++;
                break;
            }
        }
    }
    return count;
}

static int key_valid_at(const bx_trust_key *k, int64_t t)
{
    if (k->revoked)
        return 0;
    if (k->has_not_before && t < k->not_before)
        return 0;
    if (k->has_not_after && t > k->not_after)
        return 0;
    return 1;
}

/* A new reference to v (a value of the verified statement: nothing modifies it). */
static json_t *share(json_t *v)
{
    return v ? json_incref(v) : json_null();
}

/* t as RFC 3339 into out[21]; the last one formatted is kept: a run judges every
 * certificate at the same time. Returns its length. */
static size_t time_text(int64_t t, char out[21])
{
    static __thread int64_t last_t;
    static __thread char last[21];
    if (!last[0] || last_t != t) {
        bx_time_format(t, last);
        last_t = t;
    }
    memcpy(out, last, sizeof last);
    return strlen(out);
}

/* Step 9, with issuedAt (issued) already read. */
static int check_times(const bx_policy *p, const bx_verify_opts *o, const json_t *pred,
                       json_t *findings, int64_t issued)
{
    bx_error e;
    int64_t exp = 0;
    json_t *isv = json_object_get(pred, "issuedAt"), *esv = json_object_get(pred, "expiresAt");
    const char *is = json_string_value(isv), *es = json_string_value(esv);
    if (!es || bx_time_parse(es, 0, &exp, &e) != 0) {
        bx_error_set(&e, BX_EINVAL, "/predicate/issuedAt",
                     "issuedAt/expiresAt missing or not RFC 3339");
        fail(findings, "certificate.format", NULL, NULL, &e);
        return 0;
    }
    char at[21];
    size_t atn = time_text(o->at, at);
    if (o->at > exp + bx_policy_clock_skew(p))
        bx_finding_add(findings, "certificate.expired", "fail", json_stringn_nocheck(at, atn),
                       share(esv), "certificate expired at %s (checked at %s)", es, at);
    else
        bx_finding_add(findings, "certificate.expired", "pass", json_stringn_nocheck(at, atn),
                       share(esv), "expires at %s", es);
    if (issued > o->at + bx_policy_clock_skew(p))
        bx_finding_add(findings, "certificate.not_yet_valid", "fail", json_stringn_nocheck(at, atn),
                       share(isv), "issued at %s, after %s beyond the clock skew", is, at);
    else
        bx_finding_add(findings, "certificate.not_yet_valid", "pass", json_stringn_nocheck(at, atn),
                       share(isv), "issued at %s", is);
    return 1;
}

/* Steps 5-8 of certificate.md section 5 on the verified payload. */
static int check_statement(const bx_envelope *env, json_t *findings, json_t **st_out)
{
    bx_error e;
    json_t *st = NULL;
    char want[65];
    int rc = bx_statement_parse((const char *)env->payload, env->payload_len, &st, want, &e);
    if (rc) {
        bx_error_prefix(&e, "payload");
        fail(findings, "certificate.format", NULL, NULL, &e);
        return 0;
    }
    rc = bx_statement_check(st, &e);
    if (rc) {
        fail(findings, rc == BX_EUNSUPPORTED ? "certificate.type" : "certificate.format", NULL, NULL,
             &e);
        goto bad;
    }
    json_t *pred = json_object_get(st, "predicate");
    const char *subj = json_string_value(
        json_object_get(json_object_get(json_array_get(json_object_get(st, "subject"), 0), "digest"),
                        "sha256"));
    const char *img = json_string_value(json_object_get(json_object_get(pred, "image"), "id"));
    if (!img || strncmp(img, "sha256:", 7) != 0 || !subj || strcmp(img + 7, subj) != 0) {
        bx_finding_add(findings, "certificate.subject", "fail", json_string(subj ? subj : ""),
                       img ? json_string(img) : json_null(),
                       "image subject does not equal predicate.image.id");
        goto bad;
    }
    const char *got = json_string_value(json_object_get(pred, "inputsSha256"));
    if ((!want[0] && bx_predicate_inputs_sha256(pred, want, &e) != 0) || !got ||
        strcmp(got, want) != 0) {
        bx_finding_add(findings, "certificate.inputs", "fail", json_string(want),
                       got ? json_string(got) : json_null(),
                       "inputsSha256 does not match the recomputed hash of the attested inputs");
        goto bad;
    }
    *st_out = st;
    return 1;
bad:
    json_decref(st);
    return 0;
}

int bx_label_matches(const json_t *labels, const char *kv)
{
    const char *eq = strchr(kv, '=');
    if (!eq)
        return 0;
    char key[512];
    size_t n = (size_t)(eq - kv);
    if (n >= sizeof key)
        return 0;
    memcpy(key, kv, n);
    key[n] = '\0';
    const char *v = json_string_value(json_object_get(labels, key));
    return v && strcmp(v, eq + 1) == 0;
}

/* A 12- to 64-digit lowercase hex prefix of the session's containerId. */
static int id_prefix_of(const char *id, const char *want)
{
    size_t n = strlen(want);
    return id && n >= 12 && n <= 64 && bx_is_lower_hex(want, n) && strncmp(id, want, n) == 0;
}

/* --expect-container: 1 match, 0 no match, -1 ambiguous (the session is named want, which
 * could also be an Id prefix, and its Id does not start with it). A full Id is an Id only;
 * 12 to 63 hex digits an Id prefix, never a name; anything else a name. */
static int container_matches(const json_t *session, const char *want)
{
    const char *id = json_string_value(json_object_get(session, "containerId"));
    const char *name = json_string_value(json_object_get(session, "name"));
    size_t n = strlen(want);
    int hex = n >= 12 && n <= 64 && bx_is_lower_hex(want, n);

    if (!hex)
        return name && strcmp(name, want) == 0;
    if (id_prefix_of(id, want))
        return 1;
    return n < 64 && name && strcmp(name, want) == 0 ? -1 : 0;
}

static const char *source_commit(const json_t *st)
{
    size_t i;
    json_t *s;
    json_array_foreach(json_object_get(st, "subject"), i, s) {
        const char *name = json_string_value(json_object_get(s, "name"));
        if (name && strcmp(name, "source") == 0)
            return json_string_value(json_object_get(json_object_get(s, "digest"), "gitCommit"));
    }
    return NULL;
}

static void bind_one(json_t *f, int ok, const char *what, const char *want, json_t *observed)
{
    if (ok)
        bx_finding_add(f, "certificate.binding", "pass", json_string(want), observed, "%s is %s",
                       what, want);
    else
        bx_finding_add(f, "certificate.binding", "fail", json_string(want), observed,
                       "%s does not match the expected %s", what, want);
}

/* Step 10: challenge and bindings. */
static void check_bindings(const bx_binding *b, const json_t *st, json_t *f, int *config_error)
{
    const json_t *pred = json_object_get(st, "predicate");
    const json_t *session = json_object_get(pred, "session");
    if (b->nonce) {
        const char *n = json_string_value(json_object_get(pred, "nonce"));
        int ok = n && strcmp(n, b->nonce) == 0;
        bx_finding_add(f, "certificate.nonce", ok ? "pass" : "fail", json_string(b->nonce),
                       n ? json_string(n) : json_null(),
                       ok ? "the certificate carries the challenge"
                          : "the certificate does not carry the challenge");
    }
    if (b->image) {
        json_t *img = json_object_get(json_object_get(pred, "image"), "id");
        bind_one(f, json_is_string(img) && strcmp(json_string_value(img), b->image) == 0,
                 "image", b->image, img ? json_incref(img) : json_null());
    }
    if (b->container || b->container_id || b->container_name) {
        const char *id = json_string_value(json_object_get(session, "containerId"));
        const char *name = json_string_value(json_object_get(session, "name"));
        json_t *obs = json_pack("{s:O?, s:O?}", "containerId", json_object_get(session, "containerId"),
                                "name", json_object_get(session, "name"));
        int m;
        if (b->container_id) {
            bind_one(f, id_prefix_of(id, b->container_id), "container id", b->container_id, obs);
        } else if (b->container_name) {
            bind_one(f, name && strcmp(name, b->container_name) == 0, "container name",
                     b->container_name, obs);
        } else if ((m = container_matches(session, b->container)) >= 0) {
            bind_one(f, m, "container", b->container, obs);
        } else {
            *config_error = 1;
            bx_finding_add(f, "certificate.binding", "fail", json_string(b->container), obs,
                           "--expect-container %s is ambiguous: the session is named so and "
                           "its Id does not start with it; say --expect-container-id or "
                           "--expect-container-name",
                           b->container);
        }
    }
    for (size_t i = 0; i < b->nlabels; i++) {
        json_t *labels = json_object_get(session, "labels");
        bind_one(f, bx_label_matches(labels, b->labels[i]), "label", b->labels[i],
                 labels ? json_incref(labels) : json_null());
    }
    if (b->source) {
        const char *c = source_commit(st);
        bind_one(f, c && strcmp(c, b->source) == 0, "source commit", b->source,
                 c ? json_string(c) : json_null());
    }
}

void bx_verify_result_update(bx_verify_result *res)
{
    res->pass = bx_findings_pass(res->findings);
}

/* When every failing finding is unknown only because the certificate's predicate version
 * lacks a member the policy's rule reads, name those members in res->lacks (verify prints a
 * one-line hint: the policy is for a newer certificate). */
static void note_lacking(bx_verify_result *res, const json_t *lacking, unsigned version)
{
    const json_t *f, *l;
    size_t i, j, o = 0, failing = 0;

    res->lacks[0] = '\0';
    if (!json_array_size(lacking))
        return;
    json_array_foreach(res->findings, i, f)
    {
        const char *status = json_string_value(json_object_get(f, "status"));
        const char *rule = json_string_value(json_object_get(f, "rule"));
        int only_lack = 0;
        if (!bx_finding_failing(f))
            continue;
        failing++;
        json_array_foreach(lacking, j, l)
        {
            only_lack |= status && !strcmp(status, "unknown") && rule &&
                         !strcmp(json_string_value(json_object_get(l, "rule")), rule);
        }
        if (!only_lack)
            return; /* a failure of its own: no hint */
    }
    if (!failing)
        return;
    json_array_foreach(lacking, j, l)
    {
        const char *m = json_string_value(json_object_get(l, "member"));
        if (m && !strstr(res->lacks, m) && o < sizeof res->lacks)
            o += (size_t)snprintf(res->lacks + o, sizeof res->lacks - o, "%s%s", o ? ", " : "", m);
    }
    res->lacks_version = version;
}

int bx_verify_envelope(const bx_policy *p, const bx_verify_opts *o, const char *buf, size_t len,
                       bx_verify_result *res, bx_error *err)
{
    bx_envelope env = {0};
    bx_error e;
    unsigned char *pae = NULL, *verified = NULL;
    size_t paelen = 0;
    json_t *st = NULL, *lacking = NULL;
    int rc = 0;
    size_t max = o->max_size ? o->max_size : BX_ENVELOPE_MAX_DEFAULT;
    int threshold = o->threshold > 0 ? o->threshold : bx_policy_threshold(p);

    unsigned long lost = bx_findings_lost();

    memset(res, 0, sizeof *res);
    res->findings = json_array();
    if (!res->findings)
        return bx_error_set(err, BX_ENOMEM, NULL, "out of memory");

    if (len > max) {
        bx_finding_add(res->findings, "certificate.too_large", "fail", json_integer((json_int_t)max),
                       json_integer((json_int_t)len), "envelope is %zu bytes; the cap is %zu", len,
                       max);
        goto done;
    }
    if (bx_envelope_parse(buf, len, &env, &e) != 0) {
        bx_error_prefix(&e, "envelope");
        fail(res->findings, "certificate.format", NULL, NULL, &e);
        goto done;
    }
    bx_envelope_id(&env, res->certificate_id);
    if (strcmp(env.payload_type, BX_PAYLOAD_TYPE) != 0) {
        bx_finding_add(res->findings, "certificate.type", "fail", json_string(BX_PAYLOAD_TYPE),
                       json_string(env.payload_type), "payloadType is not %s", BX_PAYLOAD_TYPE);
        goto done;
    }
    if (env.nsigs == 0) {
        bx_finding_add(res->findings, "signature.threshold", "fail", json_integer(threshold),
                       json_integer(0), "the envelope carries no signature");
        goto done;
    }
    if ((rc = bx_dsse_pae(env.payload_type, env.payload, env.payload_len, &pae, &paelen, err)) != 0)
        goto done;
    verified = calloc(bx_policy_nkeys(p) ? bx_policy_nkeys(p) : 1, 1);
    if (!verified) {
        rc = bx_error_set(err, BX_ENOMEM, NULL, "out of memory");
        goto done;
    }
    size_t signers = count_signers(p, &env, pae, paelen, verified);
    if (signers < (size_t)threshold) {
        bx_finding_add(res->findings, "signature.threshold", "fail", json_integer(threshold),
                       json_integer((json_int_t)signers),
                       "%zu distinct trusted key(s) signed; the threshold is %d", signers, threshold);
        goto done;
    }
    bx_finding_add(res->findings, "signature.threshold", "pass", json_integer(threshold),
                   json_integer((json_int_t)signers), "%zu distinct trusted key(s) signed", signers);
    if (!check_statement(&env, res->findings, &st))
        goto done;
    json_t *pred = json_object_get(st, "predicate");
    int64_t issued = 0;
    /* 8b before 9: issuedAt is a valid time (the closed schema checked it) */
    const char *issued_at = json_string_value(json_object_get(pred, "issuedAt"));
    if (!issued_at || bx_time_parse(issued_at, 0, &issued, &e) != 0) {
        bx_error_set(&e, BX_EINVAL, "/predicate/issuedAt", "issuedAt is not an RFC 3339 time");
        fail(res->findings, "certificate.format", NULL, NULL, &e);
        goto done;
    }
    size_t valid = 0;
    for (size_t k = 0; k < bx_policy_nkeys(p); k++)
        valid += verified[k] && key_valid_at(bx_policy_key(p, k), issued);
    if (valid < (size_t)threshold) {
        bx_finding_add(res->findings, "signature.key_validity", "fail", json_integer(threshold),
                       json_integer((json_int_t)valid),
                       "%zu signing key(s) valid at issuedAt; the threshold is %d", valid, threshold);
        goto done;
    }
    if ((res->signers = json_array()))
        for (size_t k = 0; k < bx_policy_nkeys(p); k++)
            if (verified[k] && key_valid_at(bx_policy_key(p, k), issued) &&
                json_array_append_new(res->signers, json_string(bx_policy_key(p, k)->keyid))) {
                rc = bx_error_set(err, BX_ENOMEM, NULL, "out of memory");
                goto done;
            }
    if (!check_times(p, o, pred, res->findings, issued))
        goto done;
    check_bindings(&o->expect, st, res->findings, &res->config_error);
    bx_eval_ctx ctx = {.now = o->at};
    if (!(lacking = json_array())) {
        rc = bx_error_set(err, BX_ENOMEM, NULL, "out of memory");
        goto done;
    }
    if ((rc = bx_policy_eval_ex(p, st, &ctx, res->findings, lacking, err)) != 0)
        goto done;
    note_lacking(res, lacking, bx_statement_version(st));
    res->statement = st;
    st = NULL;
done:
    /* fail closed: a finding that could not be recorded could have been a failing one */
    if (rc == 0 && bx_findings_lost() != lost)
        rc = bx_error_set(err, BX_ENOMEM, NULL, "out of memory: a finding could not be recorded");
    res->pass = rc == 0 && bx_findings_pass(res->findings);
    if (res->pass) {
        res->lacks[0] = '\0';
        res->lacks_version = 0;
    }
    json_decref(lacking);
    json_decref(st);
    free(pae);
    free(verified);
    bx_envelope_free(&env);
    return rc;
}
