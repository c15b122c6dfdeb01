/* SPDX-License-Identifier: Apache-2.0 */
/* One certificate on one commit: verification with the source binding; the result of a
 * commit that has no passing certificate. */
#include "bx_ledger.h"

#include <string.h>

int bx_ledger_verify_cert(const bx_policy *p, const bx_verify_opts *o, const char *commit,
                          const char *buf, size_t len, bx_verify_result *res, bx_error *err)
{
    /* The binding is verify's own step 10 (--expect-source): a certificate.binding
     * finding, looked at only once the signatures have verified. */
    bx_verify_opts bound = *o;
    bound.expect.source = commit;
    return bx_verify_envelope(p, &bound, buf, len, res, err);
}

int bx_ledger_missing_result(const char *commit, size_t ncerts, bx_verify_result *res,
                             bx_error *err)
{
    memset(res, 0, sizeof *res);
    res->findings = json_array();
    if (!res->findings)
        return bx_error_set(err, BX_ENOMEM, NULL, "out of memory");
    if (ncerts == 0)
        bx_finding_add(res->findings, BX_LEDGER_RULE_MISSING, "fail", json_string(commit),
                       json_integer(0), "commit %s carries no certificate", commit);
    else
        bx_finding_add(res->findings, BX_LEDGER_RULE_MISSING, "fail", json_string(commit),
                       json_integer((json_int_t)ncerts),
                       "none of the %zu certificate(s) on commit %s passes the policy and names "
                       "it as its source",
                       ncerts, commit);
    res->pass = 0;
    return 0;
}
