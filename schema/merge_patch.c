/* SPDX-License-Identifier: Apache-2.0 */
/* RFC 7396 JSON Merge Patch, for fixtures written by difference (tests/, fuzz seeds): a case
 * is a few lines over one base statement. */
#include "bx_schema.h"

json_t *bx_json_merge_patch(const json_t *target, const json_t *patch)
{
    const char *k;
    json_t *v, *out;

    if (!json_is_object(patch))
        return json_deep_copy(patch);
    out = json_is_object(target) ? json_deep_copy(target) : json_object();
    if (!out)
        return NULL;
    json_object_foreach((json_t *)patch, k, v)
    {
        json_t *merged;
        if (json_is_null(v)) {
            json_object_del(out, k);
            continue;
        }
        merged = bx_json_merge_patch(json_object_get(out, k), v);
        if (!merged || json_object_set_new(out, k, merged) != 0) {
            json_decref(out);
            return NULL;
        }
    }
    return out;
}
