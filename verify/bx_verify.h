/* SPDX-License-Identifier: Apache-2.0 */
/* boxcert verify module: the offline verification of certificate.md section 5. */
#ifndef BX_VERIFY_H
#define BX_VERIFY_H

#include "bx_policy.h"

/* What the gate is admitting (step 10 of certificate.md section 5): each non-NULL
 * member must match the certificate, else certificate.binding (or certificate.nonce). */
typedef struct {
    const char *image;        /* "sha256:<hex>": predicate.image.id */
    const char *container;    /* full Id, a prefix of 12 or more hex digits, or the name */
    const char *const *labels; /* "K=V" each, exact match in session.labels */
    size_t nlabels;
    const char *source;       /* 40-hex commit: the statement's source subject */
    const char *nonce;        /* predicate.nonce */
} bx_binding;

typedef struct {
    int64_t at;          /* evaluation time (seconds); --at or now */
    size_t max_size;     /* envelope size cap; 0 = BX_ENVELOPE_MAX_DEFAULT */
    int threshold;       /* > 0 overrides the policy's */
    bx_binding expect;
} bx_verify_opts;

typedef struct {
    char certificate_id[65]; /* "" until the payload is decoded */
    json_t *statement;       /* owned; NULL unless signatures verified and it parsed */
    json_t *findings;        /* owned: array of findings */
    int pass;                /* 1 when no finding is fail or unknown */
    /* "" unless every failing finding is unknown only because the certificate's predicate
     * version (lacks_version) lacks what the rule reads: then those members, ", "-separated
     * ("containment.sysctls"), for a one-line hint */
    char lacks[160];
    unsigned lacks_version;
} bx_verify_result;

/* Verify one envelope held in buf. Returns 0 with res filled (pass or not) for any
 * certificate, and a negative code only for errors of the environment. */
int bx_verify_envelope(const bx_policy *p, const bx_verify_opts *o, const char *buf, size_t len,
                       bx_verify_result *res, bx_error *err) BX_WUR;
void bx_verify_result_free(bx_verify_result *res);
/* 1 when the labels object carries kv ("K=V", exact key and value). */
int bx_label_matches(const json_t *labels, const char *kv);
/* Recompute res->pass from its findings. */
void bx_verify_result_update(bx_verify_result *res);

/* ---- the --seen file: replay protection ------------------------------------------
 * JSON Lines: a header {"boxcertSeen":1}, then one {certificateId, bootId, nonce,
 * expiresAt} per certificate that passed. Opened under an exclusive lock on FILE.lock
 * (held until bx_seen_close); a missing file starts empty; entries expired at `now`
 * are pruned when it is written back (atomically). An empty, truncated or otherwise
 * corrupted file is BX_ECONFIG with file:line. */
typedef struct bx_seen bx_seen;
int bx_seen_open(const char *path, int64_t now, bx_seen **out, bx_error *err) BX_WUR;
/* Parse a seen file's bytes (also the fuzz target). entries receives an array. */
int bx_seen_parse(const char *buf, size_t len, const char *name, json_t **entries,
                  bx_error *err) BX_WUR;
/* Add a certificate.replay finding to res (fail when its certificateId, or its
 * bootId+nonce pair, was seen before) and, when res then passes, record it. */
int bx_seen_check(bx_seen *s, bx_verify_result *res, bx_error *err) BX_WUR;
/* Write back (when changed) and release the lock. Returns the write's error. */
int bx_seen_close(bx_seen *s, bx_error *err);

#endif
