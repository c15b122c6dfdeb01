/* SPDX-License-Identifier: Apache-2.0 */
/* containment.propagation_peers (v3): no mount of the session receives mounts from a peer
 * group that has a mount point of this host outside the session (a volume's folder, the
 * engine's data root, any host path), whatever its tag: a mount made there later appears
 * inside. The default root, master of its own overlay's group alone, passes (docs/policy.md). */
#include "policy_internal.h"

#include <stdio.h>
#include <string.h>

bxp_ch bxp_peer_judge(const json_t *peer)
{
    const json_t *out = json_object_get(peer, "outside");

    if (!json_is_array(out))
        return BXP_CH_UNKNOWN;
    return json_array_size(out) ? BXP_CH_FAIL : BXP_CH_PASS;
}

void bxp_eval_propagation_peers(const bxp_ev *e)
{
    static const char rule[] = "containment.propagation_peers";
    const json_t *want = e->pcont ? json_object_get(e->pcont, "propagationFromHost") : NULL;
    const json_t *have = bxp_seen(e->cont, "propagationPeers"), *v, *p;
    char fail[BXP_MSG_MAX] = "", unk[BXP_MSG_MAX] = "";
    json_t *bad;
    size_t i, j, nfail = 0, nunk = 0;

    if (!want)
        return;
    if (json_is_true(want)) {
        bxp_add(e, rule, "pass", bxp_copy(want), bxp_copy(have),
                "policy allows mounts that receive propagation from this host");
        return;
    }
    if (!json_is_array(have)) {
        if (e->version && bx_predicate_version_lacks(e->version, "containment.propagationPeers")) {
            if (e->lacking)
                json_array_append_new(e->lacking, json_pack("{s:s,s:s}", "rule", rule, "member",
                                                            "containment.propagationPeers"));
            bxp_add(e, rule, "unknown", bxp_copy(want), json_null(),
                    "the session's mount propagation: not in predicate v%u (a member of v3 and "
                    "later): the policy needs a newer certificate",
                    e->version);
        } else
            bxp_add(e, rule, "unknown", bxp_copy(want), json_null(),
                    "the session's mount propagation: not observed");
        return;
    }
    bad = json_array();
    json_array_foreach(have, i, v)
    {
        bxp_ch r = bxp_peer_judge(v);
        const char *dest = json_string_value(json_object_get(v, "destination"));
        const char *prop = json_string_value(json_object_get(v, "propagation"));

        if (r == BXP_CH_PASS)
            continue;
        if (r == BXP_CH_FAIL) {
            bxp_append(fail, sizeof fail, "%s%s (%s) receives from", nfail ? "; " : "",
                       dest ? dest : "?", prop ? prop : "?");
            json_array_foreach(json_object_get(v, "outside"), j, p)
                bxp_append(fail, sizeof fail, "%s %s", j ? "," : "", json_string_value(p));
            nfail++;
        } else {
            bxp_append(unk, sizeof unk, "%s%s (%s)", nunk ? ", " : "", dest ? dest : "?",
                       prop ? prop : "?");
            nunk++;
        }
        json_array_append(bad, (json_t *)v);
    }
    if (nfail)
        bxp_add(e, rule, "fail", bxp_copy(want), bad,
                "%zu mount(s) receive mounts made on this host outside the session: %s", nfail,
                fail);
    else if (nunk)
        bxp_add(e, rule, "unknown", bxp_copy(want), bad,
                "%zu mount(s) receive from a peer group not resolved: %s", nunk, unk);
    else {
        json_decref(bad);
        bxp_add(e, rule, "pass", bxp_copy(want), bxp_copy(have),
                "%zu mount(s) receive propagation, none from a mount point outside the session",
                json_array_size(have));
    }
}
