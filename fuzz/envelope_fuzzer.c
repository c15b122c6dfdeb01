/* SPDX-License-Identifier: Apache-2.0 */
/* One envelope through the whole offline verification (bx_verify_envelope) with a fixed
 * in-memory policy that trusts the regression test keys of fixtures/certificate/keys
 * (inline PEM), judged at 2026-06-01T00:00:00Z. Whatever the bytes, verification
 * returns a result (never an environment error), every finding is well formed, and a
 * pass carries the verified statement. */
#include "bx_verify.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static const char policy_yaml[] =
    "version: 1\n"
    "trust:\n"
    "  keys:\n"
    "    - name: regress-ed25519\n"
    "      pem: |\n"
    "        -----BEGIN PUBLIC KEY-----\n"
    "        MCowBQYDK2VwAyEA6xnV+6ayLtBUo6K778W5iaeclWT39xqT4obzkC0XPdI=\n"
    "        -----END PUBLIC KEY-----\n"
    "    - name: regress-p256\n"
    "      pem: |\n"
    "        -----BEGIN PUBLIC KEY-----\n"
    "        MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAEL+oA3ey2ZC6mCzxtEd90RkYTZwUJ\n"
    "        SNBRsTE+b4BHwbs+v6IPNDkdlcv4tAWp7goOBjtya6ngdpky5S+wQX+P3A==\n"
    "        -----END PUBLIC KEY-----\n"
    "containment:\n"
    "  network: [none]\n"
    "  readOnlyRootfs: true\n"
    "  capabilities: {allow: []}\n"
    "  noNewPrivileges: true\n"
    "  privileged: false\n";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static bx_policy *policy;
    bx_verify_opts o = {.at = 1780272000 /* 2026-06-01T00:00:00Z */};
    bx_verify_result res;
    bx_error e;
    size_t i;
    json_t *f;

    if (!policy && bx_policy_load_buffer(policy_yaml, sizeof policy_yaml - 1, "fuzz-policy.yaml",
                                         &policy, &e) != 0)
        abort();
    if (bx_verify_envelope(policy, &o, (const char *)data, size, &res, &e) != 0)
        __builtin_trap();
    if (!json_is_array(res.findings) || json_array_size(res.findings) == 0)
        __builtin_trap();
    json_array_foreach(res.findings, i, f)
    {
        const char *rule = json_string_value(json_object_get(f, "rule"));
        const char *status = json_string_value(json_object_get(f, "status"));
        const char *msg = json_string_value(json_object_get(f, "message"));
        if (!rule || !status || !msg || strchr(msg, '\n'))
            __builtin_trap();
    }
    if (res.pass && (!res.statement || strlen(res.certificate_id) != 64))
        __builtin_trap();
    bx_verify_result_free(&res);
    return 0;
}
