/* SPDX-License-Identifier: Apache-2.0 */
/* seccomp by meaning (containment.seccomp.deny, .programs): judged on the chains the kernel
 * enforces (containment.seccompPrograms, v2), not on the name or hash of the profile the
 * runtime was given. Every chain counts (the weakest decides); a task whose chain could not
 * be read, or that runs without seccomp, fails. */
#include "policy_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int listed(const json_t *list, const char *s)
{
    const json_t *v;
    size_t i;
    json_array_foreach(list, i, v)
    {
        if (json_is_string(v) && strcmp(json_string_value(v), s) == 0)
            return 1;
    }
    return 0;
}

/* 1 when the session's programs can be judged; otherwise a finding of rule was added. */
static int judgeable(const bxp_ev *e, const char *rule, const json_t *want, const json_t *sp)
{
    const json_t *unread = json_object_get(sp, "unread"), *u;
    json_int_t none = json_integer_value(bxp_seen(sp, "tasks.none"));
    char bad[BXP_MSG_MAX] = "";
    size_t i;

    if (!json_is_array(bxp_seen(sp, "chains"))) {
        bxp_add(e, rule, "fail", bxp_copy(want), bxp_copy(sp),
                "the seccomp programs could not be read: %s",
                json_is_string(json_object_get(sp, "why"))
                    ? json_string_value(json_object_get(sp, "why"))
                    : "no reason given");
        return 0;
    }
    if (json_array_size(unread)) {
        json_array_foreach(unread, i, u)
        {
            bxp_append(bad, sizeof bad, "%stask %lld: %s", *bad ? "; " : "",
                       (long long)json_integer_value(json_object_get(u, "tid")),
                       json_string_value(json_object_get(u, "reason")));
        }
        bxp_add(e, rule, "fail", bxp_copy(want), bxp_copy(unread),
                "%zu task(s) whose seccomp programs could not be read: %s", json_array_size(unread),
                bad);
        return 0;
    }
    if (none > 0) {
        bxp_add(e, rule, "fail", bxp_copy(want), bxp_copy(json_object_get(sp, "tasks")),
                "%lld task(s) of the session run without seccomp", (long long)none);
        return 0;
    }
    if (json_array_size(bxp_seen(sp, "chains")) == 0 &&
        json_integer_value(bxp_seen(sp, "tasks.strict")) == 0) {
        bxp_add(e, rule, "fail", bxp_copy(want), bxp_copy(sp),
                "no seccomp program is in force (servedBy %s)",
                json_is_string(json_object_get(sp, "servedBy"))
                    ? json_string_value(json_object_get(sp, "servedBy"))
                    : "?");
        return 0;
    }
    return 1;
}

/* The programs member, or NULL after a finding (not carried, not observed). */
static const json_t *programs(const bxp_ev *e, const char *rule, const json_t *want)
{
    const json_t *sp = e->cont ? json_object_get(e->cont, "seccompPrograms") : NULL;

    if (!sp) {
        bxp_not_carried(e, rule, "containment.seccompPrograms", want,
                        "the seccomp programs the kernel enforces");
        return NULL;
    }
    if (json_is_null(sp)) {
        bxp_add(e, rule, "unknown", bxp_copy(want), json_null(),
                "the seccomp programs were not read (no kernel or runtime view)");
        return NULL;
    }
    return judgeable(e, rule, want, sp) ? sp : NULL;
}

/* The deny list's names, sorted once per evaluation, so that each ABI's allow and depends
 * lists are read once (a bsearch per name) instead of once per denied name: a chain lets
 * through some 350 names on each of three ABIs, and strict@2 denies 92. */
typedef struct {
    const char *name;
    size_t at; /* its place in the deny list */
} deny_name;

static int deny_cmp(const void *a, const void *b)
{
    const deny_name *x = a, *y = b;
    int c = strcmp(x->name, y->name);
    return c ? c : (x->at > y->at) - (x->at < y->at);
}

/* Mark how[at] = mark for every place of the deny list that names s (a name may be listed
 * more than once), unless an earlier mark is already there. */
static void mark_listed(const deny_name *sorted, size_t n, const char *s, char *how, char mark)
{
    size_t lo = 0, hi = n;
    while (lo < hi) { /* the first place whose name is not below s */
        size_t mid = lo + (hi - lo) / 2;
        if (strcmp(sorted[mid].name, s) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    for (; lo < n && strcmp(sorted[lo].name, s) == 0; lo++)
        if (!how[sorted[lo].at])
            how[sorted[lo].at] = mark;
}

static void mark_list(const deny_name *sorted, size_t n, const json_t *list, char *how, char mark)
{
    const json_t *v;
    size_t i;
    json_array_foreach(list, i, v)
    {
        if (json_is_string(v))
            mark_listed(sorted, n, json_string_value(v), how, mark);
    }
}

/* deny: each syscall named is denied for every argument on every ABI, by every chain. */
static void eval_deny(const bxp_ev *e, const json_t *want, const json_t *deny)
{
    const json_t *sp = programs(e, "containment.seccomp_deny", want), *c, *n, *chains;
    char bad[BXP_MSG_MAX] = "";
    json_t *through;
    size_t i, j, nd = json_array_size(deny), count = 0;
    deny_name *sorted;
    char *how;

    if (!sp)
        return;
    sorted = calloc(nd ? nd : 1, sizeof *sorted);
    how = calloc(nd ? nd : 1, 1);
    through = json_array();
    if (!sorted || !how || !through) {
        free(sorted);
        free(how);
        json_decref(through);
        bxp_add(e, "containment.seccomp_deny", "fail", bxp_copy(want), json_null(),
                "out of memory while judging the seccomp programs");
        return;
    }
    json_array_foreach(deny, j, n)
    {
        /* a name that is not a string is never let through by name: matched by no list */
        sorted[j].name = json_is_string(n) ? json_string_value(n) : "";
        sorted[j].at = j;
    }
    qsort(sorted, nd, sizeof *sorted, deny_cmp);
    chains = json_object_get(sp, "chains"); /* every chain: the weakest decides */
    json_array_foreach(chains, i, c)
    {
        const char *abi;
        const json_t *lists;
        json_object_foreach((json_t *)json_object_get(c, "abis"), abi, lists)
        {
            memset(how, 0, nd);
            mark_list(sorted, nd, json_object_get(lists, "allow"), how, 'a');
            mark_list(sorted, nd, json_object_get(lists, "depends"), how, 'd');
            json_array_foreach(deny, j, n)
            {
                const char *name = json_string_value(n);
                const char *kind = !json_is_string(n) ? NULL
                                   : how[j] == 'a'    ? "allow"
                                   : how[j] == 'd'    ? "depends"
                                                      : NULL;
                if (!kind)
                    continue;
                count++;
                json_array_append_new(through,
                                      json_pack("{s:s,s:s,s:s,s:s}", "chain",
                                                json_string_value(json_object_get(c, "sha256")),
                                                "abi", abi, "syscall", name, "kernel", kind));
                bxp_append(bad, sizeof bad, "%s%s %s (%s)", *bad ? ", " : "", abi, name, kind);
            }
        }
    }
    free(sorted);
    free(how);
    if (count)
        bxp_add(e, "containment.seccomp_deny", "fail", bxp_copy(want), through,
                "the kernel lets through %zu syscall(s) the policy denies: %s", count, bad);
    else {
        json_decref(through);
        bxp_add(e, "containment.seccomp_deny", "pass", bxp_copy(want),
                bxp_copy(json_object_get(sp, "tasks")),
                "every seccomp chain of the session (%zu) denies the %zu syscall(s) on every ABI",
                json_array_size(json_object_get(sp, "chains")), json_array_size(deny));
    }
}

/* programs: every chain the session's tasks run is one of those pinned. */
static void eval_pins(const bxp_ev *e, const json_t *want, const json_t *pins)
{
    const json_t *sp = programs(e, "containment.seccomp_programs", want), *c;
    char bad[BXP_MSG_MAX] = "", pin[80];
    size_t i, n = 0;

    if (!sp)
        return;
    json_array_foreach(json_object_get(sp, "chains"), i, c)
    {
        const char *sha = json_string_value(json_object_get(c, "sha256"));
        snprintf(pin, sizeof pin, "sha256:%s", sha ? sha : "");
        if (listed(pins, pin))
            continue;
        n++;
        bxp_append(bad, sizeof bad, "%s%s", *bad ? ", " : "", pin);
    }
    if (n)
        bxp_add(e, "containment.seccomp_programs", "fail", bxp_copy(want),
                bxp_copy(json_object_get(sp, "chains")), "%zu seccomp chain(s) not pinned: %s", n,
                bad);
    else
        bxp_add(e, "containment.seccomp_programs", "pass", bxp_copy(want), json_null(),
                "every seccomp chain of the session (%zu) is pinned",
                json_array_size(json_object_get(sp, "chains")));
}

void bxp_eval_seccomp_programs(const bxp_ev *e)
{
    const json_t *want = e->pcont ? json_object_get(e->pcont, "seccomp") : NULL;
    const json_t *deny = json_object_get(want, "deny"), *pins = json_object_get(want, "programs");

    if (deny)
        eval_deny(e, deny, deny);
    if (pins)
        eval_pins(e, pins, pins);
}
