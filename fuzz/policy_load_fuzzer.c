/* The policy loader on arbitrary bytes: strict YAML, schema typing, extends, merge.
 * Relative key files resolve against a folder that does not exist. */
#include "bx_policy.h"

#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    bx_policy *p = NULL;
    bx_error err;
    if (bx_policy_load_buffer((const char *)data, size, "/nonexistent/fuzz/policy.yaml", &p,
                              &err) == 0) {
        json_t *findings = json_array();
        json_t *st = json_pack("{s:{s:{}}}", "predicate", "containment");
        bx_eval_ctx ctx = {.now = 0};
        if (bx_policy_eval(p, st, &ctx, findings, &err) != 0)
            __builtin_trap(); /* a well-formed statement always evaluates */
        json_decref(st);
        json_decref(findings);
    }
    bx_policy_free(p);
    return 0;
}
