/* boxcert verify module: the offline verification of certificate.md section 5. */
#ifndef BX_VERIFY_H
#define BX_VERIFY_H

#include "bx_policy.h"

typedef struct {
    int64_t at;          /* evaluation time (seconds); --at or now */
    size_t max_size;     /* envelope size cap; 0 = BX_ENVELOPE_MAX_DEFAULT */
    int threshold;       /* > 0 overrides the policy's */
} bx_verify_opts;

typedef struct {
    char certificate_id[65]; /* "" until the payload is decoded */
    json_t *statement;       /* owned; NULL unless signatures verified and it parsed */
    json_t *findings;        /* owned: array of findings */
    int pass;                /* 1 when no finding is fail or unknown */
} bx_verify_result;

/* Verify one envelope held in buf. Returns 0 with res filled (pass or not) for any
 * certificate, and a negative code only for errors of the environment. */
int bx_verify_envelope(const bx_policy *p, const bx_verify_opts *o, const char *buf, size_t len,
                       bx_verify_result *res, bx_error *err) BX_WUR;
void bx_verify_result_free(bx_verify_result *res);

#endif
