/* SPDX-License-Identifier: Apache-2.0 */
/* boxcert schema module: JCS (RFC 8785), strict JSON, the DSSE envelope, the in-toto
 * statement and containment predicate model, and the stronger/weaker comparator. */
#ifndef BX_SCHEMA_H
#define BX_SCHEMA_H

#include "bx_common.h"

#define BX_PAYLOAD_TYPE "application/vnd.in-toto+json"
#define BX_STATEMENT_TYPE "https://in-toto.io/Statement/v1"
#define BX_PREDICATE_TYPE "urn:boxcert:containment:v1"
#define BX_ENVELOPE_MAX_DEFAULT (1024 * 1024)
#define BX_JSON_MAX_INT 9007199254740992LL /* 2^53 */
/* More signatures than this make an envelope invalid: each is tried against every
 * trusted key, so the count bounds the work one envelope can cause. */
#define BX_ENVELOPE_MAX_SIGS 32

/* ---- JCS ------------------------------------------------------------------- */

/* Serialize v as RFC 8785 JCS. Only integers (|n| <= 2^53) are allowed as numbers:
 * reals are refused (BX_EINVAL, where = JSON pointer). Caller owns *out (free()),
 * NUL-terminated one past *len. Strings may hold NUL (written \u0000) but must be valid
 * UTF-8, as must keys (BX_EINVAL); nesting deeper than 4096 levels is refused. */
int bx_jcs_serialize(const json_t *v, char **out, size_t *len, bx_error *err) BX_WUR;
/* SHA-256 (lowercase hex) of the JCS of v. */
int bx_jcs_sha256_hex(const json_t *v, char out[65], bx_error *err) BX_WUR;

/* ---- strict JSON ----------------------------------------------------------- */

/* Length of the well-formed UTF-8 sequence at s (n bytes left), or 0. (A lead byte
 * alone, an overlong form, a surrogate or a code point above U+10FFFF is not one.) */
static inline size_t bx_utf8_seq(const unsigned char *s, size_t n)
{
    unsigned char c = s[0];
    if (c < 0x80)
        return 1;
    if (c >= 0xc2 && c <= 0xdf)
        return n >= 2 && (s[1] & 0xc0) == 0x80 ? 2 : 0;
    if (c >= 0xe0 && c <= 0xef) {
        unsigned char lo = c == 0xe0 ? 0xa0 : 0x80, hi = c == 0xed ? 0x9f : 0xbf;
        return n >= 3 && s[1] >= lo && s[1] <= hi && (s[2] & 0xc0) == 0x80 ? 3 : 0;
    }
    if (c >= 0xf0 && c <= 0xf4) {
        unsigned char lo = c == 0xf0 ? 0x90 : 0x80, hi = c == 0xf4 ? 0x8f : 0xbf;
        return n >= 4 && s[1] >= lo && s[1] <= hi && (s[2] & 0xc0) == 0x80 && (s[3] & 0xc0) == 0x80
                   ? 4
                   : 0;
    }
    return 0;
}

/* 1 if n is an integer this project accepts in JSON: |n| <= 2^53. */
static inline int bx_json_int_ok(json_int_t n)
{
    return n >= -BX_JSON_MAX_INT && n <= BX_JSON_MAX_INT;
}

/* Prepend "/" and the RFC 6901-escaped segment (~ as ~0, / as ~1) to err->where, keeping
 * what fits. For building an error's JSON pointer while returning from a nested value.
 * Control characters are shown as \u00xx so the pointer stays on one line.
 * No-op when err is NULL. */
void bx_json_where_push(bx_error *err, const char *seg, size_t len);
void bx_json_where_push_index(bx_error *err, size_t index);

/* Parse buf strictly: one JSON value (object required when want_object), no trailing
 * bytes, duplicate keys refused at every depth, keys differing only in case refused,
 * NUL and invalid UTF-8 refused, reals refused, integers beyond 2^53 refused.
 * When require_jcs, the bytes must equal the JCS serialization of the value.
 * On error, err->where is a JSON pointer or "line:col". Caller owns *out.
 * Errors are BX_EINVAL (BX_EIO when out of memory). Whitespace after the value (e.g. a
 * final newline) is not a trailing byte unless require_jcs. */
int bx_json_parse_strict(const char *buf, size_t len, int want_object, int require_jcs,
                         json_t **out, bx_error *err) BX_WUR;

/* ---- DSSE ------------------------------------------------------------------ */

typedef struct {
    char *keyid;        /* owned; NULL when absent or empty */
    unsigned char *sig; /* owned, decoded */
    size_t siglen;
} bx_dsse_sig;

typedef struct {
    char *payload_type;     /* owned */
    unsigned char *payload; /* owned, decoded, NUL-terminated one past payload_len */
    size_t payload_len;
    bx_dsse_sig *sigs; /* owned */
    size_t nsigs;
} bx_envelope;

/* PAE(type, body). Caller owns *out. */
int bx_dsse_pae(const char *type, const unsigned char *body, size_t len, unsigned char **out,
                size_t *outlen, bx_error *err) BX_WUR;
/* Parse an envelope strictly (members payload, payloadType, signatures[{keyid?, sig}],
 * nothing else; canonical base64). Does not check the payloadType value or signatures. */
int bx_envelope_parse(const char *buf, size_t len, bx_envelope *env, bx_error *err) BX_WUR;
void bx_envelope_free(bx_envelope *env);
/* Append a signature by key over PAE(env). */
int bx_envelope_sign(bx_envelope *env, EVP_PKEY *key, bx_error *err) BX_WUR;
/* Serialize as one line of JSON (no trailing newline). Caller owns *out. */
int bx_envelope_serialize(const bx_envelope *env, char **out, size_t *len, bx_error *err) BX_WUR;
/* A certificate: the JCS bytes of statement as the payload (payloadType in-toto), signed
 * by each key in turn, serialized as one line of JSON (NUL-terminated one past *len,
 * no newline). Caller owns *out. */
int bx_certificate_encode(const json_t *statement, EVP_PKEY *const *keys, size_t nkeys,
                          char **out, size_t *len, bx_error *err) BX_WUR;
/* Lowercase hex SHA-256 of the decoded payload. */
char *bx_envelope_id(const bx_envelope *env, char out[65]);

/* ---- statement ------------------------------------------------------------- */

/* Compute predicate.inputsSha256 over {containment, image, requested, session}. */
int bx_predicate_inputs_sha256(const json_t *predicate, char out[65], bx_error *err) BX_WUR;
/* Parse a payload as the verifier reads it -- bx_json_parse_strict(buf, len, 1, 1, ...),
 * JCS required -- and recompute predicate.inputsSha256 from the same bytes into inputs
 * (what bx_predicate_inputs_sha256 gives for the parsed predicate), or "" when that was not
 * possible there (the caller then uses bx_predicate_inputs_sha256). Caller owns *out. */
int bx_statement_parse(const char *buf, size_t len, json_t **out, char inputs[65],
                       bx_error *err) BX_WUR;
/* Build the in-toto statement around predicate (borrowed; a reference is taken).
 * source_commit may be NULL. Caller owns *out. */
int bx_statement_build(json_t *predicate, const char *source_commit, json_t **out,
                       bx_error *err) BX_WUR;
/* Check a parsed statement's shape: _type, predicateType (BX_EUNSUPPORTED -> rule
 * certificate.type), subjects and the predicate's closed schema (BX_EINVAL). */
int bx_statement_check(const json_t *st, bx_error *err) BX_WUR;

/* ---- JSON Schemas ------------------------------------------------------------ */

/* The embedded JSON Schema (draft 2020-12) named name ("certificate", "predicate",
 * "requested", "report", "policy", ...), or NULL. Borrowed. */
const char *bx_schema_text(const char *name);
extern const char *const bx_schema_text_names[];

/* ---- stronger and weaker (compare.c) -------------------------------------------------- */

/* certificate.md section 3, "Stronger and weaker": null is weaker than anything; network
 * none > a named/internal network > bridge > container:<id> > host; rootfs read-only >
 * writable; capabilities: a subset is stronger (effective, permitted and ambient, and the
 * bounding set when no-new-privileges is off); no-new-privileges on > off; seccomp: the
 * same pinned profile >= default > custom-unknown > disabled; privileged off > on; runtime
 * runsc > runc/crun; user: a listed non-root uid >= any non-root uid > root (uids only);
 * namespaces private > host; resources: set and <= requested (unlimited weakest);
 * writeSurface, mounts, devices: a subset, read-only over read-write; masked and
 * read-only paths: a superset. */
typedef enum {
    BX_CMP_WEAKER = -1,  /* the effective value is weaker than requested */
    BX_CMP_UNKNOWN = 0,  /* cannot be decided: not observed (null) or not comparable */
    BX_CMP_AT_LEAST = 1, /* the effective value is at least as strong */
} bx_cmp;

/* Compare what was asked for one containment member (name: "network", "rootfs",
 * "capabilities", ...; requested in the shapes of `boxcert schema requested`: the
 * predicate's, only the members asked for, user as {nonRoot, uids[]}, and the bare forms
 * network "none", runtime "runsc", seccomp "default"/"sha256:<hex>", apparmor/selinux a
 * name, namespace "private"/"host") with the effective containment (the predicate's
 * containment object). why (may be NULL) receives a short reason. Both borrowed. */
bx_cmp bx_compare_field(const char *name, const json_t *requested, const json_t *containment,
                        char *why, size_t whylen);
/* Every member of requested (an object of containment members); the first that is not
 * BX_CMP_AT_LEAST is returned, its name in *field (borrowed from requested). */
bx_cmp bx_compare_containment(const json_t *requested, const json_t *containment,
                              const char **field, char *why, size_t whylen);
/* The containment member names the comparator knows, NULL-terminated. */
extern const char *const bx_compare_field_names[];
/* Of two observed values of member name, in the predicate's shape where that is also a
 * request's (network, rootfs, capabilities, seccomp, resources, writeSurface, mounts,
 * devices, paths, booleans): the weaker one (borrowed: a or b; null counts weakest), or
 * NULL when they cannot be ordered. */
const json_t *bx_compare_weaker(const char *name, const json_t *a, const json_t *b);
/* Capabilities usable by the session: effective, permitted and ambient, plus bounding when
 * nnp is not true. NULL when a set is not observed. Caller owns. */
json_t *bx_caps_held(const json_t *caps, const json_t *nnp);
/* A resources object's CPU limit in nano-CPUs (nanoCpus, or cpuQuota * 1e9 / cpuPeriod
 * (default 100000), the lower of the two); -1 when unlimited. */
int64_t bx_cpu_limit(const json_t *resources);

#endif
