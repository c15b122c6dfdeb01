// SPDX-License-Identifier: Apache-2.0
/* The verdict's checks at their bounds (certificate.md section 5, steps 1-10): each case signs
 * the golden statement (fixtures/certificate/valid/ed25519), edited, with keys made here and
 * trusted by a policy written here, and looks at the one finding the step gives. Every bound
 * is tried on both sides: what is allowed exactly passes, one second (or byte) more fails. */
#include "bx_verify.h"
#include "tap.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#define FIX BOXCERT_SOURCE_DIR "/fixtures/certificate"
#define SKEW 300 /* the policy language's default clockSkew (5m) */

enum { A, B, P, U, NKEYS }; /* Ed25519, Ed25519, P-256, Ed25519 trusted by no policy */
static EVP_PKEY *key[NKEYS];
static char *pem[NKEYS];       /* each line indented for a YAML block scalar */
static json_t *base, *sourced; /* the golden statements, without and with a source commit */
static int64_t issued, expires;

static int64_t t_of(const char *s)
{
    int64_t t = 0;
    bx_error e;
    if (bx_time_parse(s, 0, &t, &e) != 0)
        printf("# bad time %s\n", s);
    return t;
}

static char *text_of(int64_t t)
{
    static char buf[4][21];
    static int i;
    i = (i + 1) % 4;
    return bx_time_format(t, buf[i]);
}

/* The statement inside a golden certificate. Caller owns. */
static json_t *statement_of(const char *path)
{
    size_t len = 0;
    char *buf = tap_slurp(path, &len);
    bx_envelope env;
    bx_error e;
    json_t *st = NULL;
    if (buf && bx_envelope_parse(buf, len, &env, &e) == 0) {
        st = json_loadb((const char *)env.payload, env.payload_len, 0, NULL);
        bx_envelope_free(&env);
    }
    free(buf);
    return st;
}

static char *indented_pem(EVP_PKEY *k)
{
    char *p = NULL, *out;
    bx_error e;
    size_t o = 0;
    if (bx_key_public_pem(k, &p, &e) != 0)
        return NULL;
    out = malloc(strlen(p) * 2 + 16);
    for (const char *line = p; out && *line;) {
        const char *nl = strchr(line, '\n');
        size_t n = nl ? (size_t)(nl - line) : strlen(line);
        o += (size_t)sprintf(out + o, "        %.*s\n", (int)n, line);
        line += n + (nl != NULL);
    }
    free(p);
    return out;
}

/* One trusted key of a policy: which, and its extra YAML lines ("      revoked: true\n"). */
typedef struct {
    int k;
    const char *extra;
} trust;

/* Load a policy trusting the keys t[0..n), then the top-level YAML more (may be NULL). */
static int load_policy(const trust *t, size_t n, const char *more, bx_policy **p, bx_error *e)
{
    char buf[16384];
    size_t o = (size_t)snprintf(buf, sizeof buf, "version: 1\ntrust:\n  keys:\n");
    for (size_t i = 0; i < n; i++)
        o += (size_t)snprintf(buf + o, sizeof buf - o, "    - pem: |\n%s      name: key%zu\n%s",
                              pem[t[i].k], i, t[i].extra ? t[i].extra : "");
    snprintf(buf + o, sizeof buf - o, "%s", more ? more : "");
    *p = NULL;
    return bx_policy_load_buffer(buf, strlen(buf), "verdict.yaml", p, e);
}

static bx_policy *policy_of(const trust *t, size_t n, const char *more)
{
    bx_policy *p = NULL;
    bx_error e;
    if (load_policy(t, n, more, &p, &e) != 0)
        printf("# policy: %s: %s\n", e.where, e.msg);
    return p;
}

static bx_policy *policy1(int k, const char *extra, const char *more)
{
    trust t = {k, extra};
    return policy_of(&t, 1, more);
}

/* The member at "a/b/c" of st, set to v (stolen). */
static void set(json_t *st, const char *path, json_t *v)
{
    char buf[256], *save = NULL, *seg, *next;
    json_t *o = st;
    snprintf(buf, sizeof buf, "%s", path);
    seg = strtok_r(buf, "/", &save);
    while (seg && (next = strtok_r(NULL, "/", &save)) != NULL) {
        o = json_is_array(o) ? json_array_get(o, (size_t)atoi(seg)) : json_object_get(o, seg);
        seg = next;
    }
    if (json_is_array(o))
        json_array_set_new(o, (size_t)atoi(seg), v);
    else
        json_object_set_new(o, seg, v);
}

static void fix_inputs(json_t *st)
{
    char h[65];
    bx_error e;
    json_t *pred = json_object_get(st, "predicate");
    if (bx_predicate_inputs_sha256(pred, h, &e) == 0)
        json_object_set_new(pred, "inputsSha256", json_string(h));
}

/* A certificate: st signed by the keys listed (ends with -1). Caller frees. */
static char *sign(const json_t *st, size_t *len, ...)
{
    EVP_PKEY *ks[8];
    size_t n = 0;
    char *out = NULL;
    bx_error e;
    va_list ap;
    va_start(ap, len);
    for (int k; (k = va_arg(ap, int)) >= 0 && n < 8;)
        ks[n++] = key[k];
    va_end(ap);
    if (bx_certificate_encode(st, ks, n, &out, len, &e) != 0)
        printf("# sign: %s\n", e.msg);
    return out;
}

/* Verify buf with p at `at` (opts o, may be NULL); the status of the first finding of rule
 * ("absent" when none). */
static const char *verify_rule(const bx_policy *p, const bx_verify_opts *o, int64_t at,
                               const char *buf, size_t len, const char *rule, int *pass)
{
    static char status[32];
    bx_verify_opts vo = o ? *o : (bx_verify_opts){0};
    bx_verify_result res;
    bx_error e;
    size_t i;
    json_t *f;
    vo.at = at;
    snprintf(status, sizeof status, "absent");
    if (!p || !buf) {
        *pass = -1;
        return "no input";
    }
    if (bx_verify_envelope(p, &vo, buf, len, &res, &e) != 0) {
        *pass = -1;
        bx_verify_result_free(&res);
        return "error";
    }
    *pass = res.pass;
    json_array_foreach(res.findings, i, f)
    {
        const char *r = json_string_value(json_object_get(f, "rule"));
        if (r && strcmp(r, rule) == 0) {
            snprintf(status, sizeof status, "%s", json_string_value(json_object_get(f, "status")));
            break;
        }
    }
    bx_verify_result_free(&res);
    return status;
}

/* rule's finding has status want, and the verdict is a pass exactly when want is "pass" or
 * "absent" (steps that add a finding only when they fail). */
#define expect(p, o, at, buf, len, rule, want, ...)                                                \
    do {                                                                                           \
        int pass_;                                                                                 \
        const char *got_ = verify_rule(p, o, at, buf, len, rule, &pass_);                          \
        is_str(got_, want, __VA_ARGS__);                                                           \
        int want_pass_ = strcmp(want, "pass") == 0 || strcmp(want, "absent") == 0;                 \
        is_int(pass_, want_pass_, "... and the certificate %s", want_pass_ ? "passes" : "fails");  \
    } while (0)

/* rule's finding has status want, whatever the verdict. */
#define finding(p, o, at, buf, len, rule, want, ...)                                               \
    do {                                                                                           \
        int pass_;                                                                                 \
        is_str(verify_rule(p, o, at, buf, len, rule, &pass_), want, __VA_ARGS__);                  \
    } while (0)

/* Step 9: expiry and not-yet-valid, each with the clock skew, at its bound. */
static void test_times(void)
{
    bx_policy *p = policy1(A, NULL, NULL);
    size_t len = 0;
    char *c = sign(base, &len, A, -1);
    expect(p, NULL, expires + SKEW, c, len, "certificate.expired", "pass",
           "expired by exactly the clock skew: still valid");
    expect(p, NULL, expires + SKEW + 1, c, len, "certificate.expired", "fail",
           "one second beyond the clock skew: expired");
    expect(p, NULL, issued - SKEW, c, len, "certificate.not_yet_valid", "pass",
           "issued the clock skew in the future: valid");
    expect(p, NULL, issued - SKEW - 1, c, len, "certificate.not_yet_valid", "fail",
           "issued one second more in the future: not yet valid");
    bx_policy_free(p);
    p = policy1(A, NULL, "certificate:\n  clockSkew: 0s\n");
    expect(p, NULL, expires, c, len, "certificate.expired", "pass",
           "no clock skew: valid at expiresAt");
    expect(p, NULL, expires + 1, c, len, "certificate.expired", "fail",
           "no clock skew: expired one second after");
    bx_policy_free(p);
    free(c);
}

/* Step 8b: the signing key's window and revocation, at issuedAt. */
static void test_key_validity(void)
{
    char extra[128];
    size_t len = 0;
    char *c = sign(base, &len, A, -1);
    int64_t at = issued + 86400;
    bx_policy *p;

    snprintf(extra, sizeof extra, "      notAfter: %s\n", text_of(issued));
    p = policy1(A, extra, NULL);
    expect(p, NULL, at, c, len, "signature.key_validity", "absent",
           "the key's notAfter is issuedAt: valid (no failure)");
    bx_policy_free(p);
    snprintf(extra, sizeof extra, "      notAfter: %s\n", text_of(issued - 1));
    p = policy1(A, extra, NULL);
    expect(p, NULL, at, c, len, "signature.key_validity", "fail",
           "the key's notAfter one second before issuedAt: expired key");
    bx_policy_free(p);
    snprintf(extra, sizeof extra, "      notBefore: %s\n", text_of(issued));
    p = policy1(A, extra, NULL);
    expect(p, NULL, at, c, len, "signature.key_validity", "absent",
           "the key's notBefore is issuedAt: valid");
    bx_policy_free(p);
    snprintf(extra, sizeof extra, "      notBefore: %s\n", text_of(issued + 1));
    p = policy1(A, extra, NULL);
    expect(p, NULL, at, c, len, "signature.key_validity", "fail",
           "the key's notBefore one second after issuedAt: not yet valid");
    bx_policy_free(p);
    p = policy1(A, "      revoked: true\n", NULL);
    expect(p, NULL, at, c, len, "signature.key_validity", "fail", "a revoked key");
    bx_policy_free(p);

    /* Only the keys that signed count: another trusted key's validity is not the signer's. */
    snprintf(extra, sizeof extra, "      notAfter: %s\n", text_of(issued - 1));
    trust revoked_a[] = {{A, "      revoked: true\n"}, {B, NULL}};
    trust expired_a[] = {{A, extra}, {B, NULL}};
    p = policy_of(revoked_a, 2, NULL);
    finding(p, NULL, at, c, len, "signature.threshold", "pass",
            "signed by a revoked key: it verifies");
    expect(p, NULL, at, c, len, "signature.key_validity", "fail",
           "signed only by a revoked key, another trusted key valid: fails");
    bx_policy_free(p);
    p = policy_of(expired_a, 2, NULL);
    expect(p, NULL, at, c, len, "signature.key_validity", "fail",
           "signed only by an expired key, another trusted key valid: fails");
    bx_policy_free(p);
    free(c);

    /* threshold 2: both sign, one is revoked */
    trust revoked_b[] = {{A, NULL}, {B, "      revoked: true\n"}};
    p = policy_of(revoked_b, 2, "  threshold: 2\n");
    c = sign(base, &len, A, B, -1);
    expect(p, NULL, at, c, len, "signature.key_validity", "fail",
           "threshold 2, two signers, one revoked: fails");
    bx_policy_free(p);
    free(c);
}

/* Step 4: distinct trusted keys that signed, against the threshold. */
static void test_signers(void)
{
    trust abp[] = {{A, NULL}, {B, NULL}, {P, NULL}};
    bx_policy *p = policy_of(abp, 3, "  threshold: 2\n");
    bx_policy *p1 = policy_of(abp, 3, NULL);
    int64_t at = issued + 86400;
    size_t len = 0;
    char *c;

    c = sign(base, &len, A, B, -1);
    expect(p, NULL, at, c, len, "signature.threshold", "pass", "threshold 2, two keys sign");
    free(c);
    c = sign(base, &len, A, -1);
    expect(p, NULL, at, c, len, "signature.threshold", "fail", "threshold 2, one key signs");
    free(c);
    c = sign(base, &len, A, A, -1);
    expect(p, NULL, at, c, len, "signature.threshold", "fail",
           "threshold 2, one key signs twice: counts once");
    free(c);
    c = sign(base, &len, U, -1);
    expect(p1, NULL, at, c, len, "signature.threshold", "fail", "signed by an untrusted key only");
    free(c);
    c = sign(base, &len, U, P, -1);
    expect(p1, NULL, at, c, len, "signature.threshold", "pass",
           "an untrusted signature first, then a trusted one: passes");
    free(c);

    /* The last trusted key, without a keyid to hint at it, is still tried. */
    bx_envelope env = {0};
    bx_error e;
    char *payload = NULL, *out = NULL;
    size_t plen = 0;
    if (bx_jcs_serialize(base, &payload, &plen, &e) == 0) {
        env.payload_type = strdup(BX_PAYLOAD_TYPE);
        env.payload = (unsigned char *)payload;
        env.payload_len = plen;
        if (bx_envelope_sign(&env, key[P], &e) == 0) {
            free(env.sigs[0].keyid);
            env.sigs[0].keyid = NULL;
        }
        if (bx_envelope_serialize(&env, &out, &len, &e) != 0)
            out = NULL;
    }
    expect(p1, NULL, at, out, len, "signature.threshold", "pass",
           "signed by the policy's last key, no keyid: passes");
    free(out);
    out = NULL;
    /* step 2: a payloadType that is not in-toto's, signed over as it is */
    free(env.payload_type);
    env.payload_type = strdup("application/json");
    for (size_t i = 0; i < env.nsigs; i++) {
        free(env.sigs[i].keyid);
        free(env.sigs[i].sig);
    }
    env.nsigs = 0;
    if (bx_envelope_sign(&env, key[A], &e) != 0 || bx_envelope_serialize(&env, &out, &len, &e) != 0)
        out = NULL;
    expect(p1, NULL, at, out, len, "certificate.type", "fail",
           "payloadType application/json, signed: certificate.type fails");
    free(out);
    bx_envelope_free(&env);
    bx_policy_free(p);
    bx_policy_free(p1);
}

/* Steps 1, 7 and 8: the size cap, the image subject, the inputs hash. */
static void test_statement(void)
{
    bx_policy *p = policy1(A, NULL, NULL);
    int64_t at = issued + 86400;
    size_t len = 0;
    char *c = sign(base, &len, A, -1);
    bx_verify_opts o = {.max_size = len};
    expect(p, &o, at, c, len, "certificate.too_large", "absent", "an envelope of exactly the cap");
    o.max_size = len - 1;
    expect(p, &o, at, c, len, "certificate.too_large", "fail", "one byte over the cap");
    free(c);

    json_t *st = json_deep_copy(base);
    set(st, "subject/0/digest/sha256",
        json_string("0000000000000000000000000000000000000000000000000000000000000000"));
    c = sign(st, &len, A, -1);
    expect(p, NULL, at, c, len, "certificate.subject", "fail",
           "the image subject differs from predicate.image.id");
    free(c);
    json_decref(st);

    st = json_deep_copy(base);
    set(st, "predicate/containment/privileged", json_true());
    c = sign(st, &len, A, -1);
    expect(p, NULL, at, c, len, "certificate.inputs", "fail",
           "a containment value changed, inputsSha256 left: fails");
    fix_inputs(st);
    free(c);
    c = sign(st, &len, A, -1);
    expect(p, NULL, at, c, len, "certificate.inputs", "absent",
           "... and passes with it recomputed");
    free(c);
    json_decref(st);
    bx_policy_free(p);
}

/* config_error after verifying buf with o at `at` (-1: no verdict). */
static int config_error_of(const bx_policy *p, const bx_verify_opts *o, int64_t at,
                           const char *buf, size_t len)
{
    bx_verify_opts vo = *o;
    bx_verify_result res;
    bx_error e;
    int r;
    vo.at = at;
    r = bx_verify_envelope(p, &vo, buf, len, &res, &e) != 0 ? -1 : res.config_error;
    bx_verify_result_free(&res);
    return r;
}

/* Bindings mean one thing: a session named with hex digits. A full Id matches only the
 * containerId; 12 to 63 hex digits only an Id prefix, and a session that has that name with
 * another Id makes the binding ambiguous (the gate's error: config_error, exit 2). */
static void test_hex_names(const bx_policy *p, int64_t at)
{
    static const struct {
        const char *name, *want;
        int status; /* 1 pass, 0 fail, -1 ambiguous */
        const char *what;
    } t[] = {
        {"0123456789ab0123456789ab0123456789ab0123456789ab0123456789abcdef",
         "0123456789ab0123456789ab0123456789ab0123456789ab0123456789abcdef", 0,
         "a session named with another's full Id: the full Id is an Id only"},
        {"0123456789ab", "0123456789ab", -1, "named with a 12-digit prefix it does not have"},
        {"0123456789ab0123456789ab", "0123456789ab0123456789ab", -1,
         "named with a 24-digit prefix it does not have"},
        {"0123456789ab0123456789ab0123456789ab0123456789ab0123456789abcde",
         "0123456789ab0123456789ab0123456789ab0123456789ab0123456789abcde", -1,
         "named with a 63-digit prefix it does not have"},
        {"c34ab363b7ab", "c34ab363b7ab", 1, "named with its own Id prefix: the Id matches"},
        {"0123456789a", "0123456789a", 1, "11 hex digits are a name"},
        {"0123456789AB", "0123456789AB", 1, "upper-case hex is a name"},
        {"0123456789ab", "0123456789ac", 0, "another 12-digit prefix, not the name either"},
    };
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        json_t *st = json_deep_copy(base);
        size_t len = 0;
        char *c;
        bx_verify_opts o = {0};
        set(st, "predicate/session/name", json_string(t[i].name));
        fix_inputs(st);
        c = sign(st, &len, A, -1);
        o.expect.container = t[i].want;
        if (t[i].status < 0) {
            expect(p, &o, at, c, len, "certificate.binding", "fail", "%s: fails", t[i].what);
            is_int(config_error_of(p, &o, at, c, len), 1, "... and is the gate's error (exit 2)");
            o.expect.container = NULL;
            o.expect.container_name = t[i].want;
            expect(p, &o, at, c, len, "certificate.binding", "pass",
                   "... --expect-container-name says it is the name");
            o.expect.container_name = NULL;
            o.expect.container_id = t[i].want;
            expect(p, &o, at, c, len, "certificate.binding", "fail",
                   "... --expect-container-id says it is an Id");
            is_int(config_error_of(p, &o, at, c, len), 0, "... and no error then");
        } else {
            expect(p, &o, at, c, len, "certificate.binding", t[i].status ? "pass" : "fail", "%s",
                   t[i].what);
            is_int(config_error_of(p, &o, at, c, len), 0, "... no gate error");
        }
        free(c);
        json_decref(st);
    }
}

/* Step 10: the challenge and every binding, matching and not. */
static void test_bindings(void)
{
    bx_policy *p = policy1(A, NULL, NULL);
    int64_t at = issued + 86400;
    size_t len = 0, slen = 0;
    char *c = sign(base, &len, A, -1), *sc = sign(sourced, &slen, A, -1);
    const char *nonce =
        json_string_value(json_object_get(json_object_get(base, "predicate"), "nonce"));
    bx_verify_opts o = {0};

    o.expect.nonce = nonce;
    expect(p, &o, at, c, len, "certificate.nonce", "pass", "the challenge carried");
    o.expect.nonce = "00112233445566778899aabbccddeefe";
    expect(p, &o, at, c, len, "certificate.nonce", "fail", "another challenge");
    o = (bx_verify_opts){0};
    o.expect.image = "sha256:a718e8935c8e400ef5418beccf861e21824480777b4f805eb2da65c283b74e7c";
    expect(p, &o, at, c, len, "certificate.binding", "pass", "the image bound");
    o.expect.image = "sha256:a718e8935c8e400ef5418beccf861e21824480777b4f805eb2da65c283b74e7d";
    expect(p, &o, at, c, len, "certificate.binding", "fail", "another image");
    o = (bx_verify_opts){0};
    const char *good[] = {"boxcert.test=helper-c"}, *bad[] = {"boxcert.test=helper-d"},
               *none[] = {"other=helper-c"};
    o.expect.labels = good, o.expect.nlabels = 1;
    expect(p, &o, at, c, len, "certificate.binding", "pass", "the label bound");
    o.expect.labels = bad;
    expect(p, &o, at, c, len, "certificate.binding", "fail", "the label with another value");
    o.expect.labels = none;
    expect(p, &o, at, c, len, "certificate.binding", "fail", "a label the session lacks");
    o = (bx_verify_opts){0};
    o.expect.container = "c34ab363b7ab";
    expect(p, &o, at, c, len, "certificate.binding", "pass", "a 12-digit container prefix");
    o.expect.container = "c34ab363b7a";
    expect(p, &o, at, c, len, "certificate.binding", "fail", "an 11-digit prefix is refused");
    o.expect.container = "c34ab363b7ac";
    expect(p, &o, at, c, len, "certificate.binding", "fail", "another 12-digit prefix");
    o.expect.container = "c34ab363b7aba303cd2db5c6ed3a1d6f19eb501255c3523ed3fe359d06512e2c";
    expect(p, &o, at, c, len, "certificate.binding", "pass", "the full container Id");
    o.expect.container = "bxc-hardened";
    expect(p, &o, at, c, len, "certificate.binding", "pass", "the container name");
    o.expect.container = "bxc-hardene";
    expect(p, &o, at, c, len, "certificate.binding", "fail", "another container name");
    o = (bx_verify_opts){0};
    o.expect.container_id = "c34ab363b7ab";
    expect(p, &o, at, c, len, "certificate.binding", "pass", "--expect-container-id: a prefix");
    o.expect.container_id = "c34ab363b7ac";
    expect(p, &o, at, c, len, "certificate.binding", "fail", "--expect-container-id: another");
    o.expect.container_id = "c34ab363b7a";
    expect(p, &o, at, c, len, "certificate.binding", "fail",
           "--expect-container-id: 11 digits are too few");
    o.expect.container_id = "bxc-hardened";
    expect(p, &o, at, c, len, "certificate.binding", "fail",
           "--expect-container-id never matches the name");
    o.expect.container_id = NULL;
    o.expect.container_name = "bxc-hardened";
    expect(p, &o, at, c, len, "certificate.binding", "pass", "--expect-container-name: the name");
    o.expect.container_name = "c34ab363b7ab";
    expect(p, &o, at, c, len, "certificate.binding", "fail",
           "--expect-container-name never matches an Id prefix");
    o.expect.container_name = "c34ab363b7aba303cd2db5c6ed3a1d6f19eb501255c3523ed3fe359d06512e2c";
    expect(p, &o, at, c, len, "certificate.binding", "fail",
           "--expect-container-name never matches the Id");
    test_hex_names(p, at);
    o = (bx_verify_opts){0};
    o.expect.source = "0123456789abcdef0123456789abcdef01234567";
    expect(p, &o, at, sc, slen, "certificate.binding", "pass", "the source commit bound");
    o.expect.source = "0123456789abcdef0123456789abcdef01234568";
    expect(p, &o, at, sc, slen, "certificate.binding", "fail", "another source commit");
    expect(p, &o, at, c, len, "certificate.binding", "fail", "a certificate without a source");
    free(c);
    free(sc);
    bx_policy_free(p);
}

/* The time rules of the policy: certificate.age (maxAge) and certificate.collection_delay,
 * each with the clock skew where it applies. */
static void test_age_and_delay(void)
{
    bx_policy *p = policy1(A, NULL, "certificate:\n  maxAge: 1h\n");
    size_t len = 0;
    char *c = sign(base, &len, A, -1);
    expect(p, NULL, issued + 3600 + SKEW, c, len, "certificate.age", "pass",
           "maxAge plus the clock skew exactly: passes");
    expect(p, NULL, issued + 3600 + SKEW + 1, c, len, "certificate.age", "fail",
           "one second older: fails");
    free(c);
    bx_policy_free(p);

    p = policy1(A, NULL, "certificate:\n  maxCollectionDelay: 10m\n");
    static const struct {
        int64_t started; /* relative to issuedAt */
        const char *want, *name;
    } cases[] = {
        {-600, "pass", "collected maxCollectionDelay after the start: passes"},
        {-601, "fail", "one second later: fails"},
        {SKEW, "pass", "issued the clock skew before the start: passes"},
        {SKEW + 1, "fail", "issued one second more before the start: not of this start"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        json_t *st = json_deep_copy(base);
        set(st, "predicate/session/startedAt", json_string(text_of(issued + cases[i].started)));
        fix_inputs(st);
        c = sign(st, &len, A, -1);
        expect(p, NULL, issued + 60, c, len, "certificate.collection_delay", cases[i].want, "%s",
               cases[i].name);
        free(c);
        json_decref(st);
    }
    bx_policy_free(p);
}

/* What the policy says of its trusted keys is checked when it loads. */
static int policy_loads(const trust *t, size_t n)
{
    bx_policy *p = NULL;
    bx_error e;
    int rc = load_policy(t, n, NULL, &p, &e);
    bx_policy_free(p);
    return rc;
}

static void test_trust_keys(void)
{
    char id[65], extra[160];
    bx_error e;
    if (!ok(bx_key_id(key[A], id, &e) == 0, "a keyid"))
        return;
    snprintf(extra, sizeof extra, "      keyid: %s\n", id);
    trust t = {A, extra};
    is_int(policy_loads(&t, 1), 0, "the key's own keyid: loads");
    id[63] = id[63] == '0' ? '1' : '0';
    snprintf(extra, sizeof extra, "      keyid: %s\n", id);
    is_int(policy_loads(&t, 1), BX_ECONFIG, "another keyid: refused");
    snprintf(extra, sizeof extra, "      notBefore: %s\n      notAfter: %s\n", text_of(issued),
             text_of(issued));
    is_int(policy_loads(&t, 1), BX_ECONFIG, "notAfter equal to notBefore: refused");
    snprintf(extra, sizeof extra, "      notBefore: %s\n      notAfter: %s\n", text_of(issued),
             text_of(issued + 1));
    is_int(policy_loads(&t, 1), 0, "notAfter one second after notBefore: loads");
    trust twice[] = {{A, NULL}, {A, NULL}};
    is_int(policy_loads(twice, 2), BX_ECONFIG,
           "one key listed twice (it would count twice toward the threshold): refused");
}

int main(void)
{
    bx_error e;
    for (int i = 0; i < NKEYS; i++) {
        if (bx_key_generate(i == P ? BX_ALG_ECDSA_P256 : BX_ALG_ED25519, &key[i], &e) != 0 ||
            !(pem[i] = indented_pem(key[i]))) {
            ok(0, "key %d", i);
            return tap_done();
        }
    }
    base = statement_of(FIX "/valid/ed25519/cert.intoto.json");
    sourced = statement_of(FIX "/valid/with-source/cert.intoto.json");
    if (!ok(base && sourced, "the golden statements"))
        return tap_done();
    json_t *pred = json_object_get(base, "predicate");
    issued = t_of(json_string_value(json_object_get(pred, "issuedAt")));
    expires = t_of(json_string_value(json_object_get(pred, "expiresAt")));

    test_times();
    test_key_validity();
    test_signers();
    test_statement();
    test_bindings();
    test_age_and_delay();
    test_trust_keys();

    json_decref(base);
    json_decref(sourced);
    for (int i = 0; i < NKEYS; i++) {
        EVP_PKEY_free(key[i]);
        free(pem[i]);
    }
    return tap_done();
}
