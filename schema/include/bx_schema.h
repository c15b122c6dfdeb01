/* SPDX-License-Identifier: Apache-2.0 */
/* boxcert schema module: JCS (RFC 8785), strict JSON, the DSSE envelope, the in-toto
 * statement and containment predicate model, and the stronger/weaker comparator. */
#ifndef BX_SCHEMA_H
#define BX_SCHEMA_H

#include "bx_common.h"

#include <stdarg.h>

#define BX_PAYLOAD_TYPE "application/vnd.in-toto+json"
#define BX_STATEMENT_TYPE "https://in-toto.io/Statement/v1"
/* Predicate versions (certificate.md, "Versions"): each has its own closed schema; v1 stays
 * verifiable by every later release; the collector writes the latest. */
#define BX_PREDICATE_TYPE_PREFIX "urn:boxcert:containment:v"
#define BX_PREDICATE_V1 1
#define BX_PREDICATE_LATEST 3
#define BX_PREDICATE_TYPE "urn:boxcert:containment:v3" /* the latest, as collect writes it */
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

/* Flags of bx_json_parse_strict. */
enum {
    BX_JSON_OBJECT = 1, /* the value must be an object */
    BX_JSON_JCS = 2,    /* the bytes must be the JCS serialization of the value */
};
/* Parse buf strictly: one JSON value (an object with BX_JSON_OBJECT), no trailing bytes,
 * duplicate keys refused at every depth, keys differing only in case refused, NUL and
 * invalid UTF-8 refused, reals refused, integers beyond 2^53 refused. With BX_JSON_JCS the
 * bytes must equal the JCS serialization of the value. On error, err->where is a JSON
 * pointer or "line:col". Caller owns *out. Errors are BX_EINVAL (BX_ENOMEM when out of
 * memory). Whitespace after the value (e.g. a final newline) is not a trailing byte unless
 * BX_JSON_JCS. */
int bx_json_parse_strict(const char *buf, size_t len, unsigned flags, json_t **out,
                         bx_error *err) BX_WUR;

/* RFC 7396 merge patch: target (borrowed, may be NULL) with patch (borrowed) laid over it;
 * a null in patch removes the member. A new value (caller owns), NULL when out of memory. */
json_t *bx_json_merge_patch(const json_t *target, const json_t *patch);

/* ---- JSON lookups ---------------------------------------------------------- */

/* The member at a dotted path of objects ("containment.network.mode"), or NULL. Borrowed. */
const json_t *bx_json_dotted(const json_t *o, const char *path);
/* The value at an RFC 6901 JSON pointer ("/containment/mounts/0/source", ~0 and ~1 read as
 * ~ and /), or NULL. Borrowed. */
const json_t *bx_json_at(const json_t *o, const char *pointer);

/* ---- findings (findings.c) --------------------------------------------------
 * A finding is {rule, status, expected, observed, message} (and cis for a CIS check). */
typedef enum {
    BX_FINDING_PASS,
    BX_FINDING_FAIL,
    BX_FINDING_UNKNOWN,
    BX_FINDING_WARN,
    BX_FINDING_NA,
    BX_FINDING_INVALID, /* a status missing, or not one of the five */
} bx_finding_status;

bx_finding_status bx_finding_status_of(const json_t *finding);
/* 1 when the finding fails a verdict: fail, unknown, or a status missing or unknown. */
int bx_finding_failing(const json_t *finding);
/* 1 when findings is a non-empty array none of whose findings is failing. */
int bx_findings_pass(const json_t *findings);
/* Append a finding to findings. expected and observed are stolen (NULL: JSON null); the
 * message (printf) is kept on one line and valid UTF-8 (control characters and incomplete
 * characters as '?'); cis (may be NULL) adds the "cis" member. A finding that cannot be
 * recorded (out of memory) is counted (bx_findings_lost), never silently dropped. */
void bx_finding_add(json_t *findings, const char *rule, const char *status, json_t *expected,
                    json_t *observed, const char *fmt, ...) BX_FMT(6, 7);
void bx_finding_addv(json_t *findings, const char *rule, const char *cis, const char *status,
                     json_t *expected, json_t *observed, const char *fmt, va_list ap)
    BX_FMT(7, 0);
/* How many findings this thread could not record (out of memory) since it started; a
 * caller compares the count before and after an evaluation: a verdict must not be given
 * from findings that lost one. */
unsigned long bx_findings_lost(void);

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
/* Whether the serialized envelope doc[len] is within the limits verify enforces: at most
 * BX_ENVELOPE_MAX_DEFAULT bytes (verify's default cap), at most BX_ENVELOPE_MAX_SIGS
 * signatures, and read back by bx_envelope_parse. BX_ECONFIG with the reason (where: the
 * envelope's JSON pointer, if any) when not: a signer writes nothing then. */
int bx_envelope_check_limits(const char *doc, size_t len, bx_error *err) BX_WUR;
/* A certificate: the JCS bytes of statement as the payload (payloadType in-toto), signed
 * by each key in turn, serialized as one line of JSON (NUL-terminated one past *len,
 * no newline), within bx_envelope_check_limits (BX_ECONFIG if not). Caller owns *out. */
int bx_certificate_encode(const json_t *statement, EVP_PKEY *const *keys, size_t nkeys,
                          char **out, size_t *len, bx_error *err) BX_WUR;
/* Lowercase hex SHA-256 of the decoded payload. */
char *bx_envelope_id(const bx_envelope *env, char out[65]);

/* ---- statement ------------------------------------------------------------- */

/* Compute predicate.inputsSha256 over {containment, image, requested, session}. */
int bx_predicate_inputs_sha256(const json_t *predicate, char out[65], bx_error *err) BX_WUR;
/* Parse a payload as the verifier reads it -- bx_json_parse_strict(buf, len, BX_JSON_OBJECT | BX_JSON_JCS, ...),
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
 * certificate.type: not a boxcert predicate, or a version newer than BX_PREDICATE_LATEST,
 * named in the message), subjects and the closed schema of the predicate's version
 * (BX_EINVAL). */
int bx_statement_check(const json_t *st, bx_error *err) BX_WUR;
/* The predicate version of a statement (bx_predicate_version of its predicateType), 0 when
 * it names none this release knows. */
unsigned bx_statement_version(const json_t *st);

/* ---- JSON Schemas ------------------------------------------------------------ */

/* The JSON Schemas made from the shapes (documents.c): "predicate-v1", "predicate-v2",
 * "statement", "requested" (NULL-terminated), and one of them by name (caller owns; NULL for
 * another name or when out of memory). The build writes them (tools/schemagen.c) and the
 * binaries embed them with the hand-written ones (certificate, expect, policy, report). */
extern const char *const bx_schema_generated_names[];
json_t *bx_schema_document(const char *name);
/* The embedded JSON Schema (draft 2020-12) named name ("certificate", "predicate-v1",
 * "statement", "requested", "report", "policy", ...), or NULL; "predicate" is the latest
 * version's. Borrowed. In the binaries' own library bx_schema_texts. */
const char *bx_schema_text(const char *name);
extern const char *const bx_schema_text_names[];

/* ---- shapes (shape.c): one language for what a document may hold ------------------------
 * A shape describes a value: its kind, a string's format, a list's order, the members of an
 * object with the document versions that carry each. Three walkers read the same shapes:
 * bx_shape_check (a parsed JSON document, closed: every member present unless optional),
 * bx_shape_type_yaml (a strict YAML document typed by place: members absent unless
 * required) and bx_shape_json_schema (the JSON Schema of a version). The predicate, a
 * --requested file and a policy are described this way (containment.c, policy_schema.c). */

typedef enum {
    BX_K_OBJECT = 1, /* the members listed, no other */
    BX_K_MAP,        /* any keys; every value an item */
    BX_K_ARRAY,      /* items */
    BX_K_STRING,
    BX_K_INT,
    BX_K_BOOL,
    BX_K_CAP, /* a capability name without CAP_ ("ALL" too when all), or in a set the number
               * of a bit the collector has no name for */
    BX_K_ANY,
} bx_kind;

typedef enum {
    BX_F_TEXT = 0,   /* any string, "" too */
    BX_F_NONEMPTY,   /* at least one byte */
    BX_F_LINE,       /* at least one byte, one line: no control character */
    BX_F_BLOCK,      /* at least one byte, lines allowed (an inline PEM key) */
    BX_F_HEX64,      /* 64 lowercase hex digits */
    BX_F_HEX64_PIN,  /* 64 lowercase hex digits, optionally after sha256: */
    BX_F_DIGEST,     /* sha256: and 64 lowercase hex digits */
    BX_F_TIME,       /* YYYY-MM-DDTHH:MM:SSZ */
    BX_F_TIME_FRAC,  /* the same with an optional fraction of 1 to 9 digits, not ending in 0 */
    BX_F_NONCE,      /* 16 to 128 lowercase hex digits, an even count */
    BX_F_UUID,       /* 8-4-4-4-12 lowercase hex */
    BX_F_SEMVER,     /* MAJOR.MINOR.PATCH with an optional -pre or +build */
    BX_F_APIVER,     /* MAJOR.MINOR */
    BX_F_ENDPOINT,   /* unix:///path or tcp://host:port */
    BX_F_ENDPOINT2,  /* from v2 also ssh://[user@]host[:port] */
    BX_F_NETMODE,    /* none, bridge, host, container:<name|id>, or a network name */
    BX_F_ABSPATH,    /* starts with / */
    BX_F_CANONPATH,  /* an absolute path in canonical form (bx_path_canonical) */
    BX_F_CANONPATH_OR_EMPTY, /* the same, or "" */
    BX_F_REPODIGEST, /* name@sha256:<64 hex> */
    BX_F_PERMS,      /* device cgroup permissions: r, w, m, each once */
    BX_F_HOSTIP,     /* "" or an IPv4/IPv6 address in lowercase */
    BX_F_SIZE,       /* \d+(Ki|Mi|Gi)?, kept as written */
    BX_F_DURATION,   /* a number and one of s m h d, kept as written */
    BX_F_DECIMAL,    /* a CPU count "0.5", kept as written */
    BX_F_SYSCTL,     /* a sysctl name: dot-separated words of [a-z0-9_-] */
    BX_F_SECCOMP_WORD, /* default, custom, unconfined or sha256:<64 hex> (a requested seccomp) */
} bx_format;

typedef enum {
    BX_O_NONE = 0,    /* as observed (arguments) */
    BX_O_STRING,      /* by bytes (UTF-8 code points) */
    BX_O_INT,         /* ascending */
    BX_O_CAP,         /* names by bytes, then unknown bits as numbers ascending */
    BX_O_PORT,        /* containerPort, proto, hostIp, hostPort */
    BX_O_SURFACE,     /* path, kind */
    BX_O_MOUNT,       /* destination, sourceAsGiven, type */
    BX_O_DEVICE,      /* pathInContainer, pathOnHost, cgroupPermissions */
    BX_O_DISCREPANCY, /* field */
    BX_O_HOLDER,      /* pid, by, place (who holds a namespace open) */
    BX_O_DESCRIPTOR,  /* pid, fd */
    BX_O_PATH,        /* path */
    BX_O_ID,          /* id */
    BX_O_PID_CONTROLLER, /* pid, controller */
    BX_O_NAME,        /* name */
    BX_O_MOUNTLINE,   /* destination, fsType, then root and device (when both have them) */
    BX_O_HOSTOBJ,     /* what, path */
    BX_O_REFERENCE,   /* pid, via, target, perms (null first) */
    BX_O_PEER,        /* destination, propagation */
} bx_order;

enum {
    BX_M_OPTIONAL = 1, /* may be absent from a closed document */
    BX_M_REQUIRED = 2, /* must be present in an open document (a policy, a requested file) */
};

typedef struct bx_shape bx_shape;

/* One member of an object. since/until: the first and last document version that carry it
 * (0: no bound); in other versions it is not a member. doc: its description. */
typedef struct {
    const char *name; /* NULL ends a member list */
    const bx_shape *shape;
    unsigned char flags;
    unsigned char since, until;
    const char *doc;
} bx_member;

/* An extra check of a string: 0 when fine, else a short reason in why. */
typedef int (*bx_shape_check_fn)(const char *s, char *why, size_t whylen);

struct bx_shape {
    unsigned char kind, fmt, order;
    unsigned char nullable, unique, all;
    const bx_member *members;   /* BX_K_OBJECT */
    const bx_shape *item;       /* BX_K_ARRAY, BX_K_MAP */
    const bx_shape *alt;        /* BX_K_OBJECT: a string that may stand for it ("none") */
    const char *const *choices; /* strings: the allowed values, NULL-terminated */
    bx_shape_check_fn check;    /* strings: an extra check */
    int64_t min, max;           /* BX_K_INT: bounds; BX_K_ARRAY: item count (0, 0: any) */
    const char *doc;            /* JSON Schema description */
    const char *def;            /* JSON Schema: emitted once under $defs by this name */
};

/* 1 when member m belongs to version (0: every version). */
static inline int bx_member_in(const bx_member *m, unsigned version)
{
    return !version || ((!m->since || version >= m->since) && (!m->until || version <= m->until));
}

/* Check a parsed JSON value against shape s of document version `version`, closed: every
 * member present (but BX_M_OPTIONAL ones), none unknown, each of its kind and format,
 * unordered lists sorted. BX_EINVAL with err->where the JSON pointer of the value (relative
 * to v) and a one-line reason. Allocates nothing. */
int bx_shape_check(const bx_shape *s, const json_t *v, unsigned version, bx_error *err) BX_WUR;

/* Type the value v at JSON pointer ptr of a strict YAML document (every scalar a string)
 * by shape s: booleans only the plain words, integers only plain digits, formats checked,
 * sizes, durations, times and CPU counts kept as written; members absent unless
 * BX_M_REQUIRED; unique lists without repeats. Errors are BX_ECONFIG at "file:line:col"
 * with the dotted place ("containment.rootfs: expected ..."; root names the document itself,
 * "policy"). Caller owns *out. */
int bx_shape_type_yaml(const bx_shape *s, const bx_yaml_doc *doc, const char *root,
                       const char *ptr, const json_t *v, unsigned version, json_t **out,
                       bx_error *err) BX_WUR;

/* The JSON Schema (draft 2020-12) of shape s in version `version`; closed: members required
 * unless BX_M_OPTIONAL, else none required but BX_M_REQUIRED ones. Shapes with a def name
 * are put in defs (an object, borrowed) once and referenced. Caller owns the result; NULL
 * when out of memory. */
json_t *bx_shape_json_schema(const bx_shape *s, unsigned version, int closed, json_t *defs);

/* parent + "/" + key escaped per RFC 6901, into out (cut to n). */
void bx_pointer_child(char *out, size_t n, const char *parent, const char *key);
/* s for a one-line message: control characters as '?', cut with "..." to n. Returns out. */
const char *bx_text_snip(const char *s, char *out, size_t n);
/* "/trust/keys/0/file" -> "trust.keys[0].file" (for messages); "" -> root. */
const char *bx_pointer_dotted(const char *ptr, const char *root, char *out, size_t n);

/* ---- the containment table (containment.c): every containment fact described once ------ */

/* Where a fact can come from (the reconciler's order of standing, lowest first). */
enum {
    BX_SRC_ENGINE = 1,
    BX_SRC_SPEC = 2,
    BX_SRC_RUNTIME = 4,
    BX_SRC_KERNEL = 8,
};

typedef enum {
    BX_CMP_WEAKER = -1,  /* the effective value is weaker than requested */
    BX_CMP_UNKNOWN = 0,  /* cannot be decided: not observed (null) or not comparable */
    BX_CMP_AT_LEAST = 1, /* the effective value is at least as strong */
} bx_cmp;

typedef bx_cmp (*bx_cmp_fn)(const json_t *requested, const json_t *containment, char *why,
                            size_t whylen);

/* One fact as `inspect` shows it and the reconciler names its source: a path below the
 * member ("" for the member itself) and the key of the collection's sources map. */
typedef struct {
    const char *path;   /* "mode" (of network), "" */
    const char *source; /* "network.mode"; NULL: always the engine's (as configured) */
} bx_fact;

/* One containment member. */
typedef struct {
    const char *name;           /* "network" */
    const bx_shape *shape;      /* its value in the predicate */
    unsigned char since, until; /* the predicate versions that carry it */
    const bx_shape *requested;  /* its value in a --requested file; NULL: cannot be asked */
    bx_cmp_fn compare;          /* at least as strong as requested? (NULL: not comparable) */
    unsigned sources;           /* BX_SRC_* that can give it */
    const bx_fact *facts;       /* what inspect shows; {NULL} ends */
    const char *doc;
} bx_containment_row;

/* An absolute path in canonical form: "/" or "/a/b" -- no empty component ("//", a
 * trailing "/"), no "." or "..". 1 or 0. */
int bx_path_canonical(const char *p);

/* A device cgroup rule, read exactly (devrule.c): "TYPE MAJOR:MINOR ACCESS", TYPE a, b or
 * c, MAJOR and MINOR "*" (-1) or a decimal below 2^32 without a leading zero, ACCESS r, w
 * and m each at most once; single spaces. 0, or -1 for anything else. */
enum { BX_DEV_READ = 1, BX_DEV_WRITE = 2, BX_DEV_MKNOD = 4 };
typedef struct {
    char type;
    long long major, minor;
    unsigned access;
} bx_devrule;
int bx_devrule_parse(const char *s, bx_devrule *out);
/* Every device and access e allows, r allows too ('a' and '*' cover all). */
int bx_devrule_within(const bx_devrule *e, const bx_devrule *r);

/* The table, in the order inspect and the comparator walk it; NULL-name terminated. */
extern const bx_containment_row bx_containment[];
/* The row named name, or NULL. */
const bx_containment_row *bx_containment_row_of(const char *name);

/* The shape of the whole predicate (every version's members, each with its since/until),
 * and of a --requested file's containment (the latest version's). Static, borrowed. */
const bx_shape *bx_predicate_shape(void);
const bx_shape *bx_requested_shape(void);
/* Value sets the policy language shares with the predicate, NULL-terminated. */
extern const char *const bx_surface_kinds[];   /* rootfs tmpfs bind volume engine */
extern const char *const bx_evidence_levels[]; /* engine engine+kernel engine+runtime */
extern const char *const bx_namespace_names[]; /* pid ipc uts net user cgroup */

/* Linux capabilities by bit (CAP_CHOWN = 0 ...), written without CAP_; the count of names. */
extern const char *const bx_cap_names[];
#define BX_CAP_COUNT 41
/* The bit of a capability name, or -1. */
int bx_cap_index(const char *name);
/* Docker's default capability set (certificate.md, "Engine defaults"), NULL-terminated, and
 * as bits; 1 when name is one of them. */
extern const char *const bx_cap_docker_defaults[];
uint64_t bx_cap_docker_default_bits(void);
int bx_cap_is_docker_default(const char *name);

/* ---- predicate versions (predicate.c) --------------------------------------------------- */

/* The version of a predicateType: 1, 2, ... for urn:boxcert:containment:vN (N without leading
 * zeros, at most 255), 0 when it is not one; a version above BX_PREDICATE_LATEST is returned
 * as it is (the caller refuses it, naming it). */
unsigned bx_predicate_version(const char *predicate_type);
/* The predicateType of version v into out. */
const char *bx_predicate_type(unsigned v, char out[40]);
/* The dotted names ("containment.sysctls") of the members of the latest predicate that
 * version v does not carry, NULL-terminated (borrowed, static). */
const char *const *bx_predicate_lacks(unsigned v);
/* 1 when the member at dotted path (below the predicate, "containment.sysctls") is one
 * version v does not carry though the latest does. */
int bx_predicate_version_lacks(unsigned v, const char *dotted);
/* Add a JSON null for every member of version v's predicate that p lacks (in p's objects,
 * and in the objects of its lists), so that a document written by difference (an RFC 7396
 * merge patch deletes with null) reads as one with every value present. 0, or BX_ENOMEM. */
int bx_predicate_fill_nulls(json_t *p, unsigned v, bx_error *err) BX_WUR;

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
/* 1 when two sysctl values are the same but for runs of whitespace. */
int bx_sysctl_value_equal(const char *a, const char *b);
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
