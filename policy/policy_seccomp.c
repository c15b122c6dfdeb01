/* SPDX-License-Identifier: Apache-2.0 */
/* seccomp by meaning (containment.seccomp.deny, .programs): judged on the chains the kernel
 * enforces (containment.seccompPrograms, v2), not on the name or hash of the profile the
 * runtime was given. Every chain counts (the weakest decides); a task whose chain could not
 * be read, or that runs without seccomp, fails. */
#include "policy_internal.h"

#include <stdarg.h>
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
    if (!json_is_array(unread) || !json_is_integer(bxp_seen(sp, "tasks.none")) ||
        !json_is_integer(bxp_seen(sp, "tasks.strict"))) { /* which tasks run what: not counted */
        bxp_add(e, rule, "unknown", bxp_copy(want), bxp_copy(sp),
                "the seccomp programs were read, but not which tasks run them (tasks.none, "
                "tasks.strict or unread missing)");
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

/* ---- deny: judged on the syscall tables (syscalls.c), never on names alone ----------------
 *
 * A denied name is judged by the numbers it stands for in each ABI's table: let through when
 * one of them is in the chain's allow or depends list (by its name, or inside a run #A-B of
 * numbers the collector's libseccomp did not name), or, past 1023, when the ABI's beyond lets
 * them through. Nothing judged is not a pass: a chain that does not carry every ABI of one
 * known architecture, an entry of its lists no table resolves (it could be any number, so a
 * denied one), or a denied name no table of the chain's architecture knows makes the rule
 * unknown. */

#define NR_COUNT 1024 /* the numbers a chain's lists name: 0..1023 */
#define NRS_MAX 8     /* numbers one name stands for in one table (x32 has at most 2) */

/* SECCOMP_MODE_STRICT lets these through on every ABI (read, write, _exit, sigreturn). */
static const char *const strict_allows[] = {"read",         "write",     "exit",
                                            "rt_sigreturn", "sigreturn", NULL};

/* "#A" or "#A-B", 0 <= A <= B < NR_COUNT, decimal without leading zeros: 0 with the run in
 * lo..hi, -1 when s is not such a run. */
static int parse_run(const char *s, unsigned *lo, unsigned *hi)
{
    unsigned v[2] = {0, 0};
    int k = 0;

    if (*s++ != '#')
        return -1;
    for (;;) {
        const char *d = s;
        while (*s >= '0' && *s <= '9') {
            v[k] = v[k] * 10 + (unsigned)(*s - '0');
            if (v[k] >= NR_COUNT)
                return -1;
            s++;
        }
        if (s == d || (s - d > 1 && *d == '0'))
            return -1;
        if (*s == '\0')
            break;
        if (*s != '-' || k == 1)
            return -1;
        s++;
        k = 1;
    }
    *lo = v[0];
    *hi = k ? v[1] : v[0];
    return *lo <= *hi ? 0 : -1;
}

/* Mark let[nr] = mark for every number list lets through (an earlier mark stays). The
 * first entry no table of ABI abi resolves goes into *odd (unless one is already there);
 * the count of such entries is returned. */
static size_t mark_numbers(int abi, const json_t *list, char *let, char mark, const char **odd)
{
    const json_t *v;
    size_t i, bad = 0;
    json_array_foreach(list, i, v)
    {
        const char *s = json_string_value(v);
        unsigned nrs[NRS_MAX], lo, hi;
        size_t k;
        if (s && parse_run(s, &lo, &hi) == 0) {
            for (unsigned nr = lo; nr <= hi; nr++)
                if (!let[nr])
                    let[nr] = mark;
            continue;
        }
        k = s && *s != '#' ? bxp_syscall_numbers(abi, s, nrs, NRS_MAX) : 0;
        if (k == 0 || k > NRS_MAX) {
            if (!bad++ && !*odd)
                *odd = s ? s : "(not a string)";
            continue;
        }
        for (size_t x = 0; x < k; x++)
            if (nrs[x] < NR_COUNT && !let[nrs[x]])
                let[nrs[x]] = mark;
    }
    return bad;
}

/* The architecture of a chain's abis: its family when they are exactly the ABIs of one known
 * architecture, each with allow and depends lists; else -1 with the reason in why. */
static int chain_family(const json_t *abis, char *why, size_t n)
{
    const char *abi;
    const json_t *lists;
    int fam = -1;

    if (!json_is_object(abis) || json_object_size(abis) == 0) {
        snprintf(why, n, "it carries no ABI's syscall table");
        return -1;
    }
    json_object_foreach((json_t *)abis, abi, lists)
    {
        int f = bxp_syscall_family(bxp_syscall_abi(abi));
        if (f < 0 || (fam >= 0 && f != fam)) {
            snprintf(why, n,
                     "ABI %s is not one of a known architecture's (x86_64, x32, x86; "
                     "aarch64, arm)",
                     abi);
            return -1;
        }
        fam = f;
        if (!json_is_array(json_object_get(lists, "allow")) ||
            !json_is_array(json_object_get(lists, "depends"))) {
            snprintf(why, n, "ABI %s has no allow and depends lists", abi);
            return -1;
        }
    }
    if (json_object_size(abis) != bxp_syscall_family_size(fam)) {
        snprintf(why, n, "it carries %zu of its architecture's %zu ABIs", json_object_size(abis),
                 bxp_syscall_family_size(fam));
        return -1;
    }
    return fam;
}

typedef struct {
    const json_t *deny;
    json_t *through; /* [{chain, abi, syscall, kernel}] */
    char bad[BXP_MSG_MAX], unsure[BXP_MSG_MAX];
    size_t count, nunsure;
} deny_run;

static void let_through(deny_run *r, const char *chain, const char *abi, const char *name,
                        const char *kind)
{
    r->count++;
    json_array_append_new(r->through, json_pack("{s:s,s:s,s:s,s:s}", "chain", chain, "abi", abi,
                                                "syscall", name, "kernel", kind));
    bxp_append(r->bad, sizeof r->bad, "%s%s %s (%s)", *r->bad ? ", " : "", abi, name, kind);
}

static void unsure(deny_run *r, const char *chain, const char *fmt, ...) BX_FMT(3, 4);
static void unsure(deny_run *r, const char *chain, const char *fmt, ...)
{
    char one[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(one, sizeof one, fmt, ap);
    va_end(ap);
    r->nunsure++;
    bxp_append(r->unsure, sizeof r->unsure, "%schain %.12s: %s", *r->unsure ? "; " : "", chain,
               one);
}

/* One chain against the deny list; resolved[j] is set when denied name j is in a table of
 * the chain's architecture. */
static void judge_chain(deny_run *r, const json_t *c, char *resolved)
{
    const char *sha = json_string_value(json_object_get(c, "sha256"));
    const json_t *abis = json_object_get(c, "abis"), *lists, *n;
    const char *abi;
    char why[160];
    size_t j;

    if (!sha)
        sha = "?";
    if (chain_family(abis, why, sizeof why) < 0) {
        unsure(r, sha, "%s", why);
        return;
    }
    memset(resolved, 0, json_array_size(r->deny));
    json_object_foreach((json_t *)abis, abi, lists)
    {
        int t = bxp_syscall_abi(abi);
        const char *beyond = json_string_value(json_object_get(lists, "beyond")), *odd = NULL;
        char let[NR_COUNT] = {0};
        int said_odd = 0; /* one line per ABI for a name no table resolves */
        size_t nodd = mark_numbers(t, json_object_get(lists, "allow"), let, 'a', &odd);
        nodd += mark_numbers(t, json_object_get(lists, "depends"), let, 'd', &odd);
        json_array_foreach(r->deny, j, n)
        {
            unsigned nrs[NRS_MAX];
            const char *name = json_string_value(n), *kind = NULL;
            size_t k = name ? bxp_syscall_numbers(t, name, nrs, NRS_MAX) : 0;
            int maybe_odd = 0, maybe_beyond = 0;
            if (k == 0)
                continue; /* no such call on this ABI: nothing to let through */
            resolved[j] = 1;
            for (size_t x = 0; x < k && x < NRS_MAX && !kind; x++) {
                if (nrs[x] < NR_COUNT && let[nrs[x]])
                    kind = let[nrs[x]] == 'a' ? "allow" : "depends";
                else if (nrs[x] < NR_COUNT)
                    maybe_odd |= nodd > 0;
                else if (!beyond)
                    maybe_beyond = 1;
                else if (strcmp(beyond, "allow") == 0 || strcmp(beyond, "depends") == 0)
                    kind = beyond;
            }
            if (kind)
                let_through(r, sha, abi, name, kind);
            else if (maybe_odd && !said_odd++)
                unsure(r, sha, "%s lists %s, a name no table resolves: it may be a denied call",
                       abi, odd);
            else if (maybe_odd)
                r->nunsure++;
            else if (maybe_beyond)
                unsure(r, sha, "%s: what numbers past 1023 get is not recorded (%s)", abi, name);
        }
    }
    json_array_foreach(r->deny, j, n)
    {
        if (!resolved[j])
            unsure(r, sha, "no syscall table of its architecture knows %s",
                   json_is_string(n) ? json_string_value(n) : "?");
    }
}

/* deny: each syscall named is denied for every argument on every ABI, by every chain. */
static void eval_deny(const bxp_ev *e, const json_t *want, const json_t *deny)
{
    const json_t *sp = programs(e, "containment.seccomp_deny", want), *c, *n;
    size_t i, j, nd = json_array_size(deny);
    deny_run r = {.deny = deny};
    char *resolved;

    if (!sp)
        return;
    resolved = calloc(nd ? nd : 1, 1);
    r.through = json_array();
    if (!resolved || !r.through) {
        free(resolved);
        json_decref(r.through);
        bxp_add(e, "containment.seccomp_deny", "fail", bxp_copy(want), json_null(),
                "out of memory while judging the seccomp programs");
        return;
    }
    json_array_foreach(json_object_get(sp, "chains"), i, c) /* every chain: the weakest decides */
        judge_chain(&r, c, resolved);
    if (json_integer_value(bxp_seen(sp, "tasks.strict")) > 0) {
        json_array_foreach(deny, j, n)
        {
            for (size_t k = 0; strict_allows[k]; k++)
                if (json_is_string(n) && strcmp(json_string_value(n), strict_allows[k]) == 0)
                    let_through(&r, "strict", "every", strict_allows[k], "allow");
        }
    }
    free(resolved);
    if (r.count)
        bxp_add(e, "containment.seccomp_deny", "fail", bxp_copy(want), r.through,
                "the kernel lets through %zu syscall(s) the policy denies: %s", r.count, r.bad);
    else if (r.nunsure) {
        json_decref(r.through);
        bxp_add(e, "containment.seccomp_deny", "unknown", bxp_copy(want), bxp_copy(sp),
                "the seccomp programs cannot be judged against the %zu denied syscall(s): %s", nd,
                r.unsure);
    } else {
        json_decref(r.through);
        bxp_add(e, "containment.seccomp_deny", "pass", bxp_copy(want),
                bxp_copy(json_object_get(sp, "tasks")),
                "every seccomp chain of the session (%zu) denies the %zu syscall(s) on every ABI",
                json_array_size(json_object_get(sp, "chains")), nd);
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
