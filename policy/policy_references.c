/* SPDX-License-Identifier: Apache-2.0 */
/* containment.references (v3): nothing a session's process holds beyond its descriptors —
 * working directory, root, executable, file mappings, files registered with io_uring —
 * reaches outside its own mounts, but of a kind the policy allows (docs/policy.md). */
#include "policy_internal.h"

#include <stdio.h>
#include <string.h>

static int allowed(const json_t *allow, const char *kind)
{
    const json_t *v;
    size_t i;

    json_array_foreach(allow, i, v) if (kind && json_is_string(v) &&
                                        strcmp(json_string_value(v), kind) == 0) return 1;
    return 0;
}

bxp_ch bxp_reference_judge(const json_t *ref, const json_t *allow)
{
    const char *kind = json_string_value(json_object_get(ref, "kind"));

    if (!kind)
        return BXP_CH_UNKNOWN;
    if (allowed(allow, kind))
        return BXP_CH_PASS;
    return strcmp(kind, "unplaced") == 0 ? BXP_CH_UNKNOWN : BXP_CH_FAIL;
}

void bxp_eval_references(const bxp_ev *e)
{
    const json_t *want = e->pcont ? json_object_get(e->pcont, "references") : NULL;
    const json_t *allow = json_object_get(want, "allow");
    const json_t *have = bxp_seen(e->cont, "references"), *v;
    char fail[BXP_MSG_MAX] = "", unk[BXP_MSG_MAX] = "", list[BXP_LIST_MAX];
    json_t *bad;
    size_t i, nfail = 0, nunk = 0;

    if (!want)
        return;
    if (!json_is_array(have)) {
        if (e->version && bx_predicate_version_lacks(e->version, "containment.references")) {
            if (e->lacking)
                json_array_append_new(e->lacking,
                                      json_pack("{s:s,s:s}", "rule", "containment.references",
                                                "member", "containment.references"));
            bxp_add(e, "containment.references", "unknown", bxp_copy(want), json_null(),
                    "the session's references: not in predicate v%u (a member of v3 and "
                    "later): the policy needs a newer certificate",
                    e->version);
        } else
            bxp_add(e, "containment.references", "unknown", bxp_copy(want), json_null(),
                    "the session's references: not observed");
        return;
    }
    bad = json_array();
    json_array_foreach(have, i, v)
    {
        bxp_ch r = bxp_reference_judge(v, allow);
        const char *perms = json_string_value(json_object_get(v, "perms"));
        char *to;
        size_t used;

        if (r == BXP_CH_PASS)
            continue;
        to = r == BXP_CH_FAIL ? fail : unk;
        used = strlen(to);
        if (used + 1 < BXP_MSG_MAX)
            snprintf(to + used, BXP_MSG_MAX - used, "%sprocess %lld %s%s%s: %s %s",
                     used ? "; " : "", (long long)json_integer_value(json_object_get(v, "pid")),
                     json_string_value(json_object_get(v, "via")), perms ? " " : "",
                     perms ? perms : "", json_string_value(json_object_get(v, "kind")),
                     json_string_value(json_object_get(v, "target")));
        *(r == BXP_CH_FAIL ? &nfail : &nunk) += 1;
        json_array_append(bad, (json_t *)v);
    }
    bxp_join(allow, list, sizeof list);
    if (nfail)
        bxp_add(e, "containment.references", "fail", bxp_copy(want), bad,
                "%zu reference(s) reach outside the session: %s; policy allows %s", nfail, fail,
                list);
    else if (nunk)
        bxp_add(e, "containment.references", "unknown", bxp_copy(want), bad,
                "%zu reference(s) not placed: %s", nunk, unk);
    else {
        json_decref(bad);
        bxp_add(e, "containment.references", "pass", bxp_copy(want), bxp_copy(have),
                "no working directory, root, executable, mapping or io_uring file of the "
                "session reaches outside it but those allowed (%s)",
                list);
    }
}
