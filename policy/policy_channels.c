/* SPDX-License-Identifier: Apache-2.0 */
/* containment.channels (v3): no socket of the session's processes is a channel out of it, but
 * those whose peer is bound to a path the policy allows; none was made in a network namespace
 * not the session's; none holds descriptors in flight (sent and not yet received: no one has
 * looked at them). A socket whose namespace could not be asked makes the rule unknown. */
#include "policy_internal.h"

#include <string.h>

static int allowed(const json_t *allow, const char *path)
{
    const json_t *v;
    size_t i;
    if (!path)
        return 0;
    json_array_foreach(allow, i, v)
    {
        if (json_is_string(v) && strcmp(json_string_value(v), path) == 0)
            return 1;
    }
    return 0;
}

bxp_ch bxp_channel_judge(const json_t *ch, const json_t *allow, char *why, size_t n)
{
    const json_t *peer = json_object_get(ch, "peer");
    const char *whose = json_string_value(json_object_get(ch, "netnsOf"));
    const char *path = json_string_value(json_object_get(ch, "path"));
    const char *fam = json_string_value(json_object_get(ch, "family"));
    const json_t *inflight = json_object_get(ch, "inFlight");
    const char *pk = json_string_value(json_object_get(peer, "kind"));

    fam = fam ? fam : "socket";
    if (!json_is_integer(json_object_get(ch, "netns")) || !whose) {
        snprintf(why, n, "a socket (%s) whose network namespace was not asked", fam);
        return BXP_CH_UNKNOWN;
    }
    if (strcmp(whose, "session") != 0) {
        snprintf(why, n, "a socket (%s) made in %s network namespace", fam,
                 strcmp(whose, "host") == 0     ? "the host's"
                 : strcmp(whose, "daemon") == 0 ? "the daemon's"
                                                : "another");
        return BXP_CH_FAIL;
    }
    if (json_is_integer(inflight) && json_integer_value(inflight) > 0) {
        snprintf(why, n, "%lld descriptor(s) in flight on a unix socket",
                 (long long)json_integer_value(inflight));
        return BXP_CH_FAIL;
    }
    if (json_is_object(peer) && (!pk || strcmp(pk, "session") != 0)) {
        if (allowed(allow, path)) {
            snprintf(why, n, "connected to %s, allowed", path);
            return BXP_CH_PASS;
        }
        if (pk && strcmp(pk, "container") == 0)
            snprintf(why, n, "connected to container %s%s%s",
                     json_string_value(json_object_get(peer, "container"))
                         ? json_string_value(json_object_get(peer, "container"))
                         : "?",
                     path ? " at " : "", path ? path : "");
        else if (pk && strcmp(pk, "host") == 0)
            snprintf(why, n, "connected to the host's process %lld (%s)%s%s",
                     (long long)json_integer_value(json_object_get(peer, "pid")),
                     json_string_value(json_object_get(peer, "comm"))
                         ? json_string_value(json_object_get(peer, "comm"))
                         : "?",
                     path ? " at " : "", path ? path : "");
        else
            snprintf(why, n, "connected to a peer no process was found holding%s%s",
                     path ? " at " : "", path ? path : "");
        return BXP_CH_FAIL;
    }
    snprintf(why, n, "the session's own");
    return BXP_CH_PASS;
}

void bxp_eval_channels(const bxp_ev *e)
{
    const json_t *want = e->pcont ? json_object_get(e->pcont, "channels") : NULL;
    const json_t *allow = json_object_get(want, "allow");
    const json_t *have = bxp_seen(e->cont, "channels"), *v;
    char fail[BXP_MSG_MAX] = "", unk[BXP_MSG_MAX] = "", list[BXP_LIST_MAX];
    json_t *bad;
    size_t i, nfail = 0, nunk = 0;

    if (!want)
        return;
    if (!json_is_array(have)) {
        if (e->version && bx_predicate_version_lacks(e->version, "containment.channels")) {
            if (e->lacking)
                json_array_append_new(e->lacking,
                                      json_pack("{s:s,s:s}", "rule", "containment.channels",
                                                "member", "containment.channels"));
            bxp_add(e, "containment.channels", "unknown", bxp_copy(want), json_null(),
                    "the session's channels: not in predicate v%u (a member of v3 and later): "
                    "the policy needs a newer certificate",
                    e->version);
        } else
            bxp_add(e, "containment.channels", "unknown", bxp_copy(want), json_null(),
                    "the session's channels: not observed");
        return;
    }
    bad = json_array();
    json_array_foreach(have, i, v)
    {
        char why[256], *to;
        size_t used;
        bxp_ch r = bxp_channel_judge(v, allow, why, sizeof why);
        if (r == BXP_CH_PASS)
            continue;
        to = r == BXP_CH_FAIL ? fail : unk;
        used = strlen(to);
        if (used + 1 < BXP_MSG_MAX)
            snprintf(to + used, BXP_MSG_MAX - used, "%sprocess %lld fd %lld: %s",
                     used ? "; " : "", (long long)json_integer_value(json_object_get(v, "pid")),
                     (long long)json_integer_value(json_object_get(v, "fd")), why);
        *(r == BXP_CH_FAIL ? &nfail : &nunk) += 1;
        json_array_append(bad, (json_t *)v);
    }
    bxp_join(allow, list, sizeof list);
    if (nfail)
        bxp_add(e, "containment.channels", "fail", bxp_copy(want), bad,
                "%zu socket(s) reach outside the session: %s; policy allows %s", nfail, fail,
                list);
    else if (nunk)
        bxp_add(e, "containment.channels", "unknown", bxp_copy(want), bad,
                "%zu socket(s) not judged: %s", nunk, unk);
    else {
        json_decref(bad);
        bxp_add(e, "containment.channels", "pass", bxp_copy(want), bxp_copy(have),
                "no socket is a channel out of the session but to those allowed (%s), none of "
                "another network namespace, none with descriptors in flight",
                list);
    }
}
