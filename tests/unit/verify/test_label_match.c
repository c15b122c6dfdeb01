// SPDX-License-Identifier: Apache-2.0
/* bx_label_matches (verify --label K=V, audit --label): the key and the value exactly, never
 * a prefix of either. */
#include "bx_verify.h"
#include "tap.h"

#include <string.h>

int main(void)
{
    json_t *labels = json_pack("{s:s, s:s, s:s, s:s}", "run", "4", "team", "build-infra", "empty",
                               "", "a=b", "c");
    static const struct {
        const char *kv;
        int want;
    } t[] = {
        {"run=4", 1},
        {"run=42", 0}, /* the value held is a prefix of the one asked for */
        {"run=", 0},   /* the one asked for is a prefix of the value held */
        {"team=build", 0},
        {"team=build-infra", 1},
        {"team=build-infra2", 0},
        {"tea=build-infra", 0},
        {"teams=build-infra", 0},
        {"empty=", 1},
        {"empty=x", 0},
        {"missing=", 0},
        {"run", 0}, /* no '=' */
        {"=4", 0},
        {"a=b=c", 0}, /* the key ends at the first '=' */
    };
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
        is_int(bx_label_matches(labels, t[i].kv), t[i].want, "%s %s", t[i].kv,
               t[i].want ? "matches" : "does not match");
    ok(!bx_label_matches(NULL, "run=4"), "no labels: nothing matches");
    json_decref(labels);
    return tap_done();
}
