/* SPDX-License-Identifier: Apache-2.0 */
/* The policy loader on arbitrary bytes: strict YAML, schema typing, extends, merge; a
 * policy that loads is evaluated on an empty and on a realistic statement (every rule of
 * the language reached), and its effective policy must load back to itself. Relative key
 * files resolve against a folder that does not exist. */
#include "bx_policy.h"
#include "policy_statement.h" /* generated from fixtures/base (fuzz/CMakeLists.txt) */

#include <stdint.h>
#include <string.h>

static void eval(const bx_policy *p, json_t *st)
{
    json_t *findings = json_array();
    bx_eval_ctx ctx = {.now = 1780000000};
    bx_error err;
    if (!st || bx_policy_eval(p, st, &ctx, findings, &err) != 0)
        __builtin_trap(); /* a well-formed statement always evaluates */
    json_decref(findings);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char *const name = "/nonexistent/fuzz/policy.yaml";
    bx_policy *p = NULL, *q = NULL;
    bx_error err;
    char *text = NULL;

    if (bx_policy_load_buffer((const char *)data, size, name, &p, &err) != 0)
        goto out;
    json_t *empty = json_pack("{s:{s:{}}}", "predicate", "containment");
    json_t *full = json_loads(policy_fuzz_statement, 0, NULL);
    eval(p, empty);
    eval(p, full);
    json_decref(empty);
    json_decref(full);
    /* the effective policy is a policy file (JSON is YAML) that gives itself */
    text = json_dumps(bx_policy_effective(p), JSON_COMPACT | JSON_SORT_KEYS);
    if (text && bx_policy_nkeys(p) == 0 &&
        (bx_policy_load_buffer(text, strlen(text), name, &q, &err) != 0 ||
         !json_equal(bx_policy_effective(p), bx_policy_effective(q))))
        __builtin_trap();
out:
    free(text);
    bx_policy_free(q);
    bx_policy_free(p);
    return 0;
}
