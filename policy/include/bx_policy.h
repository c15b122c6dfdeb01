/* SPDX-License-Identifier: Apache-2.0 */
/* boxcert policy module: the YAML policy language (policy.md), built-in profiles, and
 * rule evaluation over a verified statement. */
#ifndef BX_POLICY_H
#define BX_POLICY_H

#include "bx_schema.h"

#define BX_POLICY_MAX_SIZE (256 * 1024)
#define BX_POLICY_MAX_DEPTH 32
#define BX_POLICY_MAX_EVENTS 100000

typedef struct {
    EVP_PKEY *key;  /* owned */
    char name[96];  /* "name" from the policy, else the file, else "key N" */
    char keyid[65]; /* recomputed keyid */
    bx_sigenc enc;  /* ECDSA signature encoding */
    int has_not_before, has_not_after, revoked;
    int64_t not_before, not_after;
} bx_trust_key;

/* A loaded policy: opaque (bx_policy_load, bx_policy_clone, bx_policy_free). */
typedef struct bx_policy bx_policy;

/* Load a built-in profile when arg is written as one (NAME or NAME@VERSION: never a file;
 * a file of that name in the working directory is an error, BX_ECONFIG naming it: write
 * ./NAME for the file), else the policy file arg. Errors are BX_ECONFIG with err->where
 * "file:line:col".
 * Caller owns *out (bx_policy_free). trust.threshold above the number of keys the
 * policy lists is an error; a policy listing no keys (keys given with --key) leaves
 * that check to verification. */
int bx_policy_load(const char *arg, bx_policy **out, bx_error *err) BX_WUR;
/* Load from memory; name is used in messages and for relative key paths (its folder). */
int bx_policy_load_buffer(const char *buf, size_t len, const char *name, bx_policy **out,
                          bx_error *err) BX_WUR;
/* What reports say of the policy: {"name": the built-in profile as resolved ("strict@2") or the
 * file as given, "extends": the profile it stands on, resolved, or null, "sha256": the SHA-256
 * of the JCS of the effective policy}. Caller owns; NULL with err when out of memory. */
json_t *bx_policy_identity(const bx_policy *p, bx_error *err);
/* Add a trusted key from a PEM file (--key). A key equal (EVP_PKEY_eq) to one the
 * policy already lists is ignored. */
int bx_policy_add_key_file(bx_policy *p, const char *path, bx_error *err) BX_WUR;
void bx_policy_free(bx_policy *p);
/* A copy with an effective policy of its own (JSON values shared with no other thread; the
 * keys are shared, read-only): one per thread that verifies. Caller owns *out. */
int bx_policy_clone(const bx_policy *p, bx_policy **out, bx_error *err) BX_WUR;

/* The effective policy: after extends/merge, in the language's own form (sizes and durations
 * as written). Borrowed. */
const json_t *bx_policy_effective(const bx_policy *p);
/* The file path as given, or "profile:NAME@VERSION". Borrowed. */
const char *bx_policy_source(const bx_policy *p);
/* The trusted keys (the policy's, then those added with --key). */
size_t bx_policy_nkeys(const bx_policy *p);
const bx_trust_key *bx_policy_key(const bx_policy *p, size_t i);
/* trust.threshold (default 1); a --threshold overrides it. */
int bx_policy_threshold(const bx_policy *p);
void bx_policy_set_threshold(bx_policy *p, int threshold);
/* certificate.clockSkew in seconds (default 300); certificate.maxAge, -1 when absent. */
int64_t bx_policy_clock_skew(const bx_policy *p);
int64_t bx_policy_max_age(const bx_policy *p);

/* The built-in profiles: names ("strict", "gvisor", "cis-docker"), NULL-terminated. Each has
 * versions 1 .. BX_POLICY_PROFILE_LATEST, written NAME@VERSION; a released version is frozen
 * forever (strict@1 is the first release's strict), the latest is in development until its
 * release; a bare NAME means the latest. */
#define BX_POLICY_PROFILE_LATEST 3
extern const char *const bx_policy_profiles[];
/* NAME or NAME@VERSION -> "NAME@VERSION" into out; -1 when it names no built-in profile. */
int bx_policy_profile_resolve(const char *name, char *out, size_t n);
/* 1 when arg is written as a profile name: a built-in NAME, alone or with "@..." (whether
 * or not that version exists). Such an argument is never a file (bx_policy_load). */
int bx_policy_profile_named(const char *arg);
/* The YAML text of a profile, NAME or NAME@VERSION (borrowed, embedded from policy/profiles/
 * NAME@VERSION.yaml), or NULL (also for a NULL name). The text is a policy file: `extends:
 * NAME` and loading NAME both use it. Inside profile NAME@N, a bare `extends: OTHER` means
 * OTHER@N. */
const char *bx_policy_profile_text(const char *name);

/* Context of an evaluation. */
typedef struct {
    int64_t now; /* --at or the clock, seconds since the epoch */
} bx_eval_ctx;

/* Evaluate the policy's rules (policy.md, "Findings": certificate.age and
 * certificate.collection_delay, collector.*, image.*, source.*, containment.*, evidence.*,
 * requested.*, in that order) on a verified statement (borrowed), appending one finding
 * per rule the policy sets to the array `findings`:
 *   {rule, status: pass|fail|unknown|warn|n/a, expected, observed, message}
 * then, with `benchmark: cis-docker-1.6`, one finding per CIS check with rule "cis.<id>"
 * and a sixth member "cis": "<id>". A null or absent observation gives unknown; an LSM the
 * host lacks gives n/a; evidence.discrepancies: warn gives warn. For list rules that fail
 * (write surface, mounts, propagation), observed holds the entries that failed.
 * Everything is read from the statement: nothing else from the verifier is needed.
 * Returns BX_EINVAL (nothing appended) only when findings is not an array or the
 * statement has no predicate object; any predicate, however malformed, evaluates. */
int bx_policy_eval(const bx_policy *p, const json_t *statement, const bx_eval_ctx *ctx,
                   json_t *findings, bx_error *err) BX_WUR;
/* bx_policy_eval that also appends to lacking (an array, may be NULL), for each finding that
 * is unknown only because the statement's predicate version does not carry a member the rule
 * reads, {"rule": ..., "member": "containment.sysctls"}: a policy for a newer version judging
 * an older certificate (docs/policy.md, "Versions"). */
int bx_policy_eval_ex(const bx_policy *p, const json_t *statement, const bx_eval_ctx *ctx,
                      json_t *findings, json_t *lacking, bx_error *err) BX_WUR;

/* Findings are schema/'s (bx_finding_add, bx_finding_failing, bx_findings_pass). */

#endif
