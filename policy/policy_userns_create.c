/* SPDX-License-Identifier: Apache-2.0 */
/* containment.user_namespaces (v3): with userNamespaces: false, no task of the session can
 * create a user namespace — in which it would hold every capability — by what the seccomp
 * chains the kernel enforces let clone, unshare and clone3 do, and user.max_user_namespaces as
 * the session sees it (docs/policy.md). */
#include "policy_internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#define RULE "containment.user_namespaces"

static int has_user(const json_t *kinds)
{
    const json_t *v;
    size_t i;

    json_array_foreach(kinds, i, v) if (json_is_string(v) &&
                                        strcmp(json_string_value(v), "user") == 0) return 1;
    return 0;
}

__attribute__((format(printf, 4, 5))) static void append(char *buf, size_t cap, size_t *n,
                                                         const char *fmt, ...)
{
    va_list ap;
    int w;

    if (*n + 1 >= cap)
        return;
    va_start(ap, fmt);
    w = vsnprintf(buf + *n, cap - *n, fmt, ap);
    va_end(ap);
    *n = w < 0 ? *n : *n + (size_t)w >= cap ? cap - 1 : *n + (size_t)w;
}

bxp_ch bxp_userns_create_judge(const json_t *nc, char *why, size_t n)
{
    const json_t *abis = json_object_get(nc, "abis"),
                 *max = json_object_get(nc, "maxUserNamespaces");
    const json_t *a;
    const char *name;
    size_t len = 0;
    int open = 0, unknown_abi = 0;

    why[0] = '\0';
    if (json_is_integer(max) && json_integer_value(max) == 0) {
        snprintf(why, n, "user.max_user_namespaces is 0 in the session's user namespace");
        return BXP_CH_PASS;
    }
    if (!json_is_object(abis)) {
        const char *w = json_string_value(json_object_get(nc, "why"));
        snprintf(why, n, "which namespaces its tasks can create was not read: %s",
                 w ? w : "no reason recorded");
        return BXP_CH_UNKNOWN;
    }
    json_object_foreach((json_t *)abis, name, a)
    {
        int c, u, c3;
        if (!json_is_object(a)) {
            unknown_abi = 1;
            continue;
        }
        c = has_user(json_object_get(a, "clone"));
        u = has_user(json_object_get(a, "unshare"));
        c3 = json_is_true(json_object_get(a, "clone3"));
        if (!c && !u && !c3)
            continue;
        append(why, n, &len, "%s%s:%s%s%s", open ? "; " : "", name, c ? " clone" : "",
               u ? " unshare" : "", c3 ? " clone3" : "");
        open = 1;
    }
    if (open && !json_is_integer(max)) {
        append(why, n, &len, " let through by seccomp, and user.max_user_namespaces not read");
        return BXP_CH_UNKNOWN;
    }
    if (open) {
        append(why, n, &len,
               " let through by seccomp with CLONE_NEWUSER; user.max_user_namespaces "
               "%lld",
               (long long)json_integer_value(max));
        return BXP_CH_FAIL;
    }
    if (unknown_abi) {
        snprintf(why, n, "an ABI's clone, unshare or clone3 is unknown to libseccomp: not judged");
        return BXP_CH_UNKNOWN;
    }
    snprintf(why, n,
             "seccomp refuses CLONE_NEWUSER to clone and unshare and refuses clone3 on "
             "every ABI");
    return BXP_CH_PASS;
}

void bxp_eval_userns_create(const bxp_ev *e)
{
    const json_t *want = e->pcont ? json_object_get(e->pcont, "userNamespaces") : NULL;
    const json_t *have = bxp_seen(e->cont, "namespaceCreation");
    char why[BXP_MSG_MAX];
    bxp_ch r;

    if (!json_is_boolean(want))
        return;
    if (json_is_true(want)) {
        bxp_add(e, RULE, "pass", bxp_copy(want), have ? bxp_copy(have) : json_null(),
                "the policy lets the session create user namespaces");
        return;
    }
    if (!json_is_object(have)) {
        if (e->version && bx_predicate_version_lacks(e->version, "containment.namespaceCreation")) {
            if (e->lacking)
                json_array_append_new(e->lacking, json_pack("{s:s,s:s}", "rule", RULE, "member",
                                                            "containment.namespaceCreation"));
            bxp_add(e, RULE, "unknown", bxp_copy(want), json_null(),
                    "the session's namespace creation: not in predicate v%u (a member of v3 and "
                    "later): the policy needs a newer certificate",
                    e->version);
        } else
            bxp_add(e, RULE, "unknown", bxp_copy(want), json_null(),
                    "the session's namespace creation: not observed");
        return;
    }
    r = bxp_userns_create_judge(have, why, sizeof why);
    bxp_add(e, RULE,
            r == BXP_CH_PASS   ? "pass"
            : r == BXP_CH_FAIL ? "fail"
                               : "unknown",
            bxp_copy(want), bxp_copy(have), "%s%s",
            r == BXP_CH_FAIL ? "a task of the session can create a user namespace: " : "", why);
}
