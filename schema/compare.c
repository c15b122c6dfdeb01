/* SPDX-License-Identifier: Apache-2.0 */
/* The stronger/weaker comparator of certificate.md section 3 ("Stronger and weaker"):
 * whether an effective containment is at least as strong as what was asked for, field by
 * field. Requested values have the predicate's shapes (only the members asked for), with
 * user as {nonRoot, uids[]}; where a launcher naturally writes a bare value it is taken
 * too: network "none", runtime "runsc", seccomp "default" or "sha256:<hex>", apparmor and
 * selinux a profile or label, a namespace "private" or "host". Anything else cannot be
 * compared: BX_CMP_UNKNOWN, which callers treat as a failure (fail closed), as they treat
 * an effective value that was not observed (null). */
#include "schema_internal.h"

#include <stdlib.h>
#include <string.h>

#define CFS_PERIOD_DEFAULT 100000 /* µs: the kernel's period when none is set */

static bx_cmp why_is(char *why, size_t n, bx_cmp r, const char *what)
{
    if (why && n)
        snprintf(why, n, "%s", what);
    return r;
}

#define AT_LEAST(why, n) why_is(why, n, BX_CMP_AT_LEAST, "at least as strong")
#define WEAKER(why, n, what) why_is(why, n, BX_CMP_WEAKER, what)
#define UNKNOWN(why, n, what) why_is(why, n, BX_CMP_UNKNOWN, what)

/* Comparing two lists a certificate carries (the requested one and the effective one) costs
 * their product: past PAIRS_MAX pairs the field is unknown instead, so no certificate under
 * the size cap costs more than a few milliseconds per field (docs/benchmarks.md, "judge-worst").
 * A real session's lists are tens of entries each. */
#define PAIRS_MAX 65536
#define TOO_MANY "too many entries to compare (more than 65536 pairs)"

static int too_many(const json_t *a, const json_t *b)
{
    return (double)json_array_size(a) * (double)json_array_size(b) > PAIRS_MAX;
}

static const json_t *member(const json_t *o, const char *k)
{
    return json_is_object(o) ? json_object_get(o, k) : NULL;
}

static const char *smember(const json_t *o, const char *k)
{
    return json_string_value(member(o, k));
}

static int listed(const json_t *list, const json_t *item)
{
    const json_t *v;
    size_t i;

    json_array_foreach(list, i, v)
    {
        if (json_equal((json_t *)v, (json_t *)item))
            return 1;
    }
    return 0;
}

/* Members of an object all among names (NULL-terminated). */
static int only(const json_t *o, const char *const *names)
{
    const char *k;
    const json_t *v;

    json_object_foreach((json_t *)o, k, v)
    {
        int ok = 0;
        for (const char *const *n = names; *n; n++)
            ok |= strcmp(*n, k) == 0;
        if (!ok)
            return 0;
    }
    return 1;
}

static bx_cmp cmp_bool(const json_t *req, const json_t *eff, int strong, char *why, size_t n)
{
    if (!json_is_boolean(req))
        return UNKNOWN(why, n, "the request is not true or false");
    if (json_is_true(req) != strong)
        return AT_LEAST(why, n); /* the weaker setting was asked for: anything holds */
    if (!json_is_boolean(eff))
        return UNKNOWN(why, n, "not observed");
    return json_is_true(eff) == strong ? AT_LEAST(why, n) : WEAKER(why, n, "the weaker setting");
}

/* ---- network ---------------------------------------------------------------------------- */

/* none > a named/internal network > bridge > container:<id> > host */
static int net_rank(const char *mode)
{
    if (!strcmp(mode, "none"))
        return 4;
    if (!strcmp(mode, "host"))
        return 0;
    if (!strncmp(mode, "container:", 10))
        return 1;
    if (!strcmp(mode, "bridge") || !strcmp(mode, "default"))
        return 2;
    return 3;
}

/* Two container references (a name, an Id, a 12- or more digit Id prefix) are the same
 * container: equal, or one a hex prefix of 12 or more digits of the other's 64-digit Id. */
static int same_container(const char *a, const char *b)
{
    size_t na = strlen(a), nb = strlen(b);
    if (!na || !nb)
        return 0;
    if (na == nb)
        return strcmp(a, b) == 0;
    if (na > nb) {
        const char *t = a;
        size_t tn = na;
        a = b, na = nb, b = t, nb = tn;
    }
    return nb == 64 && na >= 12 && bx_is_lower_hex(a, na) && bx_is_lower_hex(b, nb) &&
           strncmp(a, b, na) == 0;
}

static bx_cmp subset_of(const json_t *eff, const json_t *req, const char *what_weaker, char *why,
                        size_t n)
{
    const json_t *v;
    size_t i;

    if (!json_is_array(req))
        return UNKNOWN(why, n, "the request is not a list");
    if (!json_is_array(eff))
        return UNKNOWN(why, n, "not observed");
    if (too_many(eff, req))
        return UNKNOWN(why, n, TOO_MANY);
    json_array_foreach(eff, i, v)
    {
        if (!listed(req, v))
            return WEAKER(why, n, what_weaker);
    }
    return AT_LEAST(why, n);
}

bx_cmp bxs_cmp_network(const json_t *req, const json_t *c, char *why, size_t n)
{
    static const char *const members[] = {"mode", "internal", "interfaces", "ports", NULL};
    const json_t *net = member(c, "network");
    const char *rmode = json_is_string(req) ? json_string_value(req) : smember(req, "mode");
    const char *emode = smember(net, "mode");
    const json_t *v;
    bx_cmp r;

    if (!json_is_string(req) && !(json_is_object(req) && only(req, members)))
        return UNKNOWN(why, n,
                       "the request is not a network mode or {mode, internal, "
                       "interfaces, ports}");
    if (rmode) {
        if (!emode)
            return UNKNOWN(why, n, "network mode not observed");
        if (net_rank(emode) < net_rank(rmode))
            return WEAKER(why, n, "a weaker network mode");
        if (net_rank(emode) == 3 && net_rank(rmode) == 3 && strcmp(emode, rmode) != 0)
            return WEAKER(why, n, "another network than the one requested");
        /* container:<id>: the same container's namespace, by its name or its Id (a 12-digit
         * or longer prefix of one names the other), never another's */
        if (net_rank(emode) == 1 && net_rank(rmode) == 1 && !same_container(emode + 10, rmode + 10))
            return WEAKER(why, n, "another container's network than the one requested");
    }
    if (json_is_true(member(req, "internal")) && !(emode && !strcmp(emode, "none"))) {
        v = member(net, "internal");
        if (!json_is_boolean(v))
            return UNKNOWN(why, n, "internal not observed");
        if (!json_is_true(v))
            return WEAKER(why, n, "the network is not internal");
    }
    if ((v = member(req, "interfaces")) &&
        (r = subset_of(member(net, "interfaces"), v, "an interface that was not requested", why,
                       n)) != BX_CMP_AT_LEAST)
        return r;
    if ((v = member(req, "ports")) &&
        (r = subset_of(member(net, "ports"), v, "a port published that was not requested", why,
                       n)) != BX_CMP_AT_LEAST)
        return r;
    return AT_LEAST(why, n);
}

/* ---- rootfs, privileges ------------------------------------------------------------------- */

bx_cmp bxs_cmp_rootfs(const json_t *req, const json_t *c, char *why, size_t n)
{
    static const char *const members[] = {"readOnly", NULL};
    if (!json_is_object(req) || !only(req, members) || !member(req, "readOnly"))
        return UNKNOWN(why, n, "the request is not {readOnly}");
    return cmp_bool(member(req, "readOnly"), member(member(c, "rootfs"), "readOnly"), 1, why, n);
}

bx_cmp bxs_cmp_nnp(const json_t *req, const json_t *c, char *why, size_t n)
{
    return cmp_bool(req, member(c, "noNewPrivileges"), 1, why, n);
}

bx_cmp bxs_cmp_privileged(const json_t *req, const json_t *c, char *why, size_t n)
{
    return cmp_bool(req, member(c, "privileged"), 0, why, n);
}

/* ---- capabilities ------------------------------------------------------------------------ */


static int add_all(json_t *out, const json_t *set)
{
    const json_t *v;
    size_t i;

    json_array_foreach(set, i, v)
    {
        if (!listed(out, v) && json_array_append(out, (json_t *)v) != 0)
            return -1;
    }
    return 0;
}

/* What a capability can be used through: effective, permitted and ambient; the bounding
 * set too unless no-new-privileges holds (a setuid program could raise it). NULL when not
 * observed. */
json_t *bx_caps_held(const json_t *caps, const json_t *nnp)
{
    static const char *const sets[] = {"effective", "permitted", "ambient", "bounding"};
    json_t *out = json_array();
    size_t nsets = json_is_true(nnp) ? 3 : 4;

    for (size_t s = 0; out && s < nsets; s++) {
        const json_t *set = member(caps, sets[s]);
        /* a set longer than every capability there is, numbered too, is not one to judge:
         * unknown rather than a union that costs the square of its length */
        if (!json_is_array(set) || json_array_size(set) > 64 || add_all(out, set) != 0) {
            json_decref(out);
            return NULL;
        }
    }
    return out;
}

/* The requested ceiling: the union of the sets listed, else Docker's reading of add/drop
 * (ALL in add: everything; ALL in drop: only add; else the defaults - drop + add). */
static json_t *requested_caps(const json_t *req, int *all)
{
    static const char *const sets[] = {"effective", "permitted", "ambient", "bounding",
                                       "inheritable"};
    const json_t *add = member(req, "add"), *drop = member(req, "drop");
    json_t *out = json_array(), *ALL = json_string("ALL");
    int any = 0;

    *all = 0;
    for (size_t s = 0; out && s < 5; s++) {
        const json_t *set = member(req, sets[s]);
        if (json_is_array(set)) {
            any = 1;
            if (json_array_size(set) > 64 || add_all(out, set) != 0) /* see bx_caps_held */
                goto fail;
        }
    }
    if (json_array_size(add) > 64 || json_array_size(drop) > 64)
        goto fail;
    if (!any && (json_is_array(add) || json_is_array(drop))) {
        if (listed(add, ALL)) {
            *all = 1;
        } else {
            if (!listed(drop, ALL))
                for (const char *const *d = bx_cap_docker_defaults; *d; d++) {
                    json_t *name = json_string(*d);
                    int keep = !listed(drop, name);
                    if (keep && json_array_append(out, name) != 0) {
                        json_decref(name);
                        goto fail;
                    }
                    json_decref(name);
                }
            if (add_all(out, add) != 0)
                goto fail;
        }
        any = 1;
    }
    if (!any)
        goto fail;
    json_decref(ALL);
    return out;
fail:
    json_decref(ALL);
    json_decref(out);
    return NULL;
}

bx_cmp bxs_cmp_capabilities(const json_t *req, const json_t *c, char *why, size_t n)
{
    static const char *const members[] = {"add",     "drop",     "effective",   "permitted",
                                          "ambient", "bounding", "inheritable", NULL};
    json_t *held = NULL, *want = NULL;
    const json_t *v;
    size_t i;
    int all = 0;
    bx_cmp r = BX_CMP_AT_LEAST;

    if (!json_is_object(req) || !only(req, members) || !(want = requested_caps(req, &all)))
        r = UNKNOWN(why, n, "the request is not capability sets or add/drop");
    else if (!(held = bx_caps_held(member(c, "capabilities"), member(c, "noNewPrivileges"))))
        r = UNKNOWN(why, n, "capabilities not observed");
    else if (!all)
        json_array_foreach(held, i, v)
        {
            if (!listed(want, v)) {
                r = WEAKER(why, n, "capabilities held beyond those requested");
                break;
            }
        }
    if (r == BX_CMP_AT_LEAST)
        AT_LEAST(why, n);
    json_decref(held);
    json_decref(want);
    return r;
}

/* ---- seccomp, runtime, LSMs --------------------------------------------------------------- */

/* disabled < custom-unknown < default <= the same pinned profile */
bx_cmp bxs_cmp_seccomp(const json_t *req, const json_t *c, char *why, size_t n)
{
    static const char *const members[] = {"mode", "profile", "profileSha256", NULL};
    const json_t *sc = member(c, "seccomp");
    const char *mode = smember(sc, "mode"), *prof = smember(sc, "profile");
    const char *sha = smember(sc, "profileSha256");
    const char *rs = json_string_value(req), *rmode = smember(req, "mode");
    const char *rprof = smember(req, "profile"), *rsha = smember(req, "profileSha256");

    if (!rs && !(json_is_object(req) && only(req, members)))
        return UNKNOWN(why, n, "the request is not a profile or {mode, profile, profileSha256}");
    if (rs && !strncmp(rs, "sha256:", 7))
        rsha = rs;
    else if (rs)
        rprof = rs;
    if (rsha && !strncmp(rsha, "sha256:", 7))
        rsha += 7;
    if ((rmode && !strcmp(rmode, "disabled")) || (rprof && !strcmp(rprof, "unconfined")))
        return AT_LEAST(why, n);
    if (rmode && strcmp(rmode, "filter") != 0)
        return UNKNOWN(why, n, "the requested mode is not filter or disabled");
    if (!mode)
        return UNKNOWN(why, n, "seccomp mode not observed");
    if (strcmp(mode, "filter") != 0)
        return WEAKER(why, n, "no seccomp filter");
    if (rsha) {
        if (!sha)
            return UNKNOWN(why, n, "profile hash not observed");
        return strcmp(sha, rsha) == 0
                   ? AT_LEAST(why, n)
                   : WEAKER(why, n, "another seccomp profile than the pinned one");
    }
    if (rprof && !strcmp(rprof, "default")) {
        if (!prof)
            return UNKNOWN(why, n, "seccomp profile not observed");
        return !strcmp(prof, "default") ? AT_LEAST(why, n)
                                        : WEAKER(why, n, "not the default profile");
    }
    if (rprof && strcmp(rprof, "custom") != 0)
        return UNKNOWN(why, n, "the requested profile is not default, custom or unconfined");
    return AT_LEAST(why, n); /* a filter was asked for, and one is in force */
}

/* runsc > runc, crun and any other */
bx_cmp bxs_cmp_runtime(const json_t *req, const json_t *c, char *why, size_t n)
{
    static const char *const members[] = {"name", NULL};
    const char *r = json_is_string(req) ? json_string_value(req) : smember(req, "name");
    const char *e = smember(member(c, "runtime"), "name");

    if (!r || (json_is_object(req) && !only(req, members)))
        return UNKNOWN(why, n, "the request is not a runtime name or {name}");
    if (!e)
        return UNKNOWN(why, n, "runtime not observed");
    if (!strcmp(r, "runsc"))
        return !strcmp(e, "runsc") ? AT_LEAST(why, n) : WEAKER(why, n, "not runsc");
    if (!strcmp(r, "runc") || !strcmp(r, "crun"))
        return AT_LEAST(why, n); /* runc, crun and runsc all hold */
    return !strcmp(e, r) || !strcmp(e, "runsc") ? AT_LEAST(why, n)
                                                : WEAKER(why, n, "another runtime");
}

static bx_cmp cmp_lsm(const json_t *req, const json_t *lsm, const char *key, char *why, size_t n)
{
    const char *want = json_is_string(req) ? json_string_value(req) : smember(req, key);
    const char *have = smember(lsm, key);

    if (!want)
        return UNKNOWN(why, n, "the request is not a profile or label");
    if (!json_is_object(lsm))
        return UNKNOWN(why, n, "not observed");
    if (!have)
        return WEAKER(why, n, "none applied");
    return !strcmp(want, have) ? AT_LEAST(why, n) : WEAKER(why, n, "another one applied");
}

bx_cmp bxs_cmp_apparmor(const json_t *req, const json_t *c, char *why, size_t n)
{
    return cmp_lsm(req, member(c, "apparmor"), "profile", why, n);
}

bx_cmp bxs_cmp_selinux(const json_t *req, const json_t *c, char *why, size_t n)
{
    return cmp_lsm(req, member(c, "selinux"), "label", why, n);
}

/* ---- user -------------------------------------------------------------------------------- */

/* The session's uids: the kernel's four when observed, else the number in user.spec
 * ("65532", "65532:65532"; "" and "root" are root; a name cannot be read here: -1). */
static int user_uids(const json_t *user, long long uids[4], size_t *nuids)
{
    const json_t *k = member(user, "uids"), *v;
    const char *spec = smember(user, "spec");
    size_t i;

    *nuids = 0;
    if (json_is_array(k)) {
        json_array_foreach(k, i, v)
        {
            if (!json_is_integer(v) || *nuids == 4)
                return -1;
            uids[(*nuids)++] = json_integer_value(v);
        }
        return *nuids ? 0 : -1;
    }
    if (!spec)
        return -1;
    size_t len = strcspn(spec, ":");
    if (len == 0 || (len == 4 && !strncmp(spec, "root", 4))) {
        uids[(*nuids)++] = 0;
        return 0;
    }
    if (len > 10 || strspn(spec, "0123456789") != len)
        return -1; /* a user name: its uid is the image's to say */
    uids[(*nuids)++] = strtoll(spec, NULL, 10);
    return 0;
}

/* a listed non-root uid >= any non-root uid > root */
bx_cmp bxs_cmp_user(const json_t *req, const json_t *c, char *why, size_t n)
{
    static const char *const members[] = {"nonRoot", "uids", NULL};
    const json_t *nonroot = member(req, "nonRoot"), *list = member(req, "uids"), *v;
    long long uids[4];
    size_t nu, i;

    if (!json_is_object(req) || !only(req, members) || (!nonroot && !list) ||
        (nonroot && !json_is_boolean(nonroot)) || (list && !json_is_array(list)))
        return UNKNOWN(why, n, "the request is not {nonRoot, uids}");
    json_array_foreach(
        list, i, v) if (!json_is_integer(v) ||
                        json_integer_value(v) <=
                            0) return UNKNOWN(why, n, "requested uids must be non-root numbers");
    if (!json_is_true(nonroot) && json_array_size(list) == 0)
        return AT_LEAST(why, n);
    if (user_uids(member(c, "user"), uids, &nu) != 0)
        return UNKNOWN(why, n, "the session's uid is not observed");
    for (i = 0; i < nu; i++)
        if (uids[i] == 0)
            return WEAKER(why, n, "runs as root");
    for (i = 0; json_array_size(list) && i < nu; i++) {
        json_t *u = json_integer(uids[i]);
        int ok = listed(list, u);
        json_decref(u);
        if (!ok)
            return WEAKER(why, n, "a uid that was not requested");
    }
    /* v2: every uid of every task, as the host and as its own user namespace see it */
    {
        const json_t *every[2] = {member(member(c, "user"), "everyUid"),
                                  member(member(member(c, "user"), "inNamespace"), "everyUid")};
        if (too_many(every[0], list) || too_many(every[1], list))
            return UNKNOWN(why, n, TOO_MANY);
        for (int e = 0; e < 2; e++)
            json_array_foreach(every[e], i, v)
            {
                if (json_integer_value(v) == 0)
                    return WEAKER(why, n, "a task runs as root");
                if (json_array_size(list) && !listed(list, v))
                    return WEAKER(why, n, "a task's uid was not requested");
            }
    }
    return AT_LEAST(why, n);
}

/* ---- namespaces ---------------------------------------------------------------------------- */

/* The session's namespace as the host's or not: the kernel's reading, else the engine's mode
 * ("host"; a user namespace "default" shares the host's unless remapped). NULL: unknown. */
static const char *ns_effective(const json_t *c, const char *name)
{
    const json_t *ns = member(member(c, "namespaces"), name);
    const char *k = smember(ns, "kernel"), *e = smember(ns, "engine");

    if (k)
        return k;
    if (!e)
        return NULL;
    if (!strcmp(e, "host"))
        return "host";
    if (!strcmp(name, "user"))
        return !strcmp(e, "remapped") || !strcmp(e, "private") ? "private" : "host";
    return "private";
}

bx_cmp bxs_cmp_namespaces(const json_t *req, const json_t *c, char *why, size_t n)
{
    static const char *const names[] = {"pid", "ipc", "uts", "net", "user", "cgroup", NULL};
    const char *name;
    const json_t *v;

    if (!json_is_object(req) || !only(req, names))
        return UNKNOWN(why, n, "the request is not {pid, ipc, uts, net, user, cgroup}");
    json_object_foreach((json_t *)req, name, v)
    {
        const char *want = json_is_string(v) ? json_string_value(v) : NULL, *have;
        if (json_is_object(v))
            want = smember(v, "kernel") ? smember(v, "kernel") : smember(v, "engine");
        if (!want || (strcmp(want, "host") != 0 && strcmp(want, "private") != 0))
            return UNKNOWN(why, n, "a requested namespace is not private or host");
        if (!strcmp(want, "host"))
            continue;
        if (!(have = ns_effective(c, name)))
            return UNKNOWN(why, n, "a namespace not observed");
        if (!strcmp(have, "host"))
            return WEAKER(why, n, "a namespace shared with the host");
    }
    return AT_LEAST(why, n);
}

/* ---- resources ------------------------------------------------------------------------------ */

/* The CPU limit in nano-CPUs: nanoCpus, or quota * 1e9 / period (the lower when both); -1
 * unlimited. */
int64_t bx_cpu_limit(const json_t *res)
{
    const json_t *nano = member(res, "nanoCpus"), *q = member(res, "cpuQuota");
    const json_t *p = member(res, "cpuPeriod");
    int64_t limit = -1;

    if (json_is_integer(nano) && json_integer_value(nano) > 0)
        limit = json_integer_value(nano);
    if (json_is_integer(q) && json_integer_value(q) > 0) {
        long double period = json_is_integer(p) && json_integer_value(p) > 0
                                 ? (long double)json_integer_value(p)
                                 : CFS_PERIOD_DEFAULT;
        long double v = (long double)json_integer_value(q) * 1e9L / period;
        int64_t qn = v > (long double)BX_JSON_MAX_INT ? BX_JSON_MAX_INT : (int64_t)(v + 0.5L);
        if (limit < 0 || qn < limit)
            limit = qn;
    }
    return limit;
}

bx_cmp bxs_cmp_resources(const json_t *req, const json_t *c, char *why, size_t n)
{
    static const char *const limits[] = {"memoryBytes", "memorySwapBytes", "pidsLimit", "cpuShares",
                                         NULL};
    static const char *const members[] = {"memoryBytes", "memorySwapBytes", "pidsLimit",
                                          "cpuShares",   "nanoCpus",        "cpuQuota",
                                          "cpuPeriod",   "cgroupParent",    NULL};
    const json_t *res = member(c, "resources"), *v;
    const char *k;

    if (!json_is_object(req) || !only(req, members))
        return UNKNOWN(why, n, "the request is not resource limits");
    if (!json_is_object(res))
        return UNKNOWN(why, n, "resources not observed");
    json_object_foreach((json_t *)req, k, v)
    {
        for (const char *const *l = limits; *l; l++) {
            const json_t *e = member(res, *l);
            if (strcmp(k, *l) != 0 || json_is_null(v))
                continue;
            if (!json_is_integer(v) || json_integer_value(v) <= 0)
                return UNKNOWN(why, n, "a requested limit is not a positive number");
            if (!json_is_integer(e))
                return WEAKER(why, n, "unlimited where a limit was requested");
            if (json_integer_value(e) > json_integer_value(v))
                return WEAKER(why, n, "a higher limit than requested");
        }
        if (!strcmp(k, "cgroupParent")) {
            const char *e = smember(res, "cgroupParent");
            if (!json_is_string(v))
                return UNKNOWN(why, n, "the requested cgroupParent is not a string");
            if (!e)
                return UNKNOWN(why, n, "cgroupParent not observed");
            if (strcmp(e, json_string_value(v)) != 0)
                return WEAKER(why, n, "another cgroup parent");
        }
    }
    if (member(req, "nanoCpus") || member(req, "cpuQuota")) {
        int64_t want = bx_cpu_limit(req), have = bx_cpu_limit(res);
        if (want >= 0 && have < 0)
            return WEAKER(why, n, "no CPU limit where one was requested");
        if (want >= 0 && have > want)
            return WEAKER(why, n, "a higher CPU limit than requested");
    }
    return AT_LEAST(why, n);
}

/* ---- write surface, mounts, devices, paths ----------------------------------------------------
 */

bx_cmp bxs_cmp_surface(const json_t *req, const json_t *c, char *why, size_t n)
{
    const json_t *ws = member(c, "writeSurface"), *e, *r;
    size_t i, j;

    if (!json_is_array(req))
        return UNKNOWN(why, n, "the request is not a list");
    if (!json_is_array(ws))
        return UNKNOWN(why, n, "writeSurface not observed");
    if (too_many(ws, req))
        return UNKNOWN(why, n, TOO_MANY);
    json_array_foreach(ws, i, e)
    {
        const char *path = smember(e, "path"), *kind = smember(e, "kind");
        bx_cmp best = BX_CMP_WEAKER;
        if (!path)
            return UNKNOWN(why, n, "a writable place without a path");
        json_array_foreach(req, j, r)
        {
            const json_t *rsize = member(r, "sizeBytes"), *esize = member(e, "sizeBytes");
            if (!smember(r, "path") || strcmp(smember(r, "path"), path) != 0 ||
                (smember(r, "kind") && (!kind || strcmp(smember(r, "kind"), kind) != 0)))
                continue;
            if (!json_is_integer(rsize) ||
                (json_is_integer(esize) && json_integer_value(esize) <= json_integer_value(rsize)))
                best = BX_CMP_AT_LEAST;
            else if (!json_is_integer(esize) && best == BX_CMP_WEAKER)
                best = BX_CMP_UNKNOWN;
        }
        if (best == BX_CMP_WEAKER)
            return WEAKER(why, n, "a writable place beyond those requested");
        if (best == BX_CMP_UNKNOWN)
            return UNKNOWN(why, n, "a size not observed");
    }
    return AT_LEAST(why, n);
}

/* private > slave > shared: what the session's mounts share with the host's. The engine's
 * default ("") is rprivate for a bind. Unknown words, or none observed, rank lowest. */
static int propagation_rank(const char *p)
{
    if (!p)
        return -1;
    if (!strcmp(p, "") || !strcmp(p, "private") || !strcmp(p, "rprivate"))
        return 2;
    if (!strcmp(p, "slave") || !strcmp(p, "rslave"))
        return 1;
    if (!strcmp(p, "shared") || !strcmp(p, "rshared"))
        return 0;
    return -1;
}

bx_cmp bxs_cmp_mounts(const json_t *req, const json_t *c, char *why, size_t n)
{
    const json_t *list = member(c, "mounts"), *e, *r;
    size_t i, j;

    if (!json_is_array(req))
        return UNKNOWN(why, n, "the request is not a list");
    if (!json_is_array(list))
        return UNKNOWN(why, n, "mounts not observed");
    if (too_many(list, req))
        return UNKNOWN(why, n, TOO_MANY);
    json_array_foreach(list, i, e)
    {
        const char *dest = smember(e, "destination");
        int found = 0;
        json_array_foreach(req, j, r)
        {
            const char *rs = smember(r, "source"), *rt = smember(r, "type");
            if (!dest || !smember(r, "destination") || strcmp(smember(r, "destination"), dest))
                continue;
            if (rs && !(smember(e, "source") && !strcmp(rs, smember(e, "source"))) &&
                !(smember(e, "sourceAsGiven") && !strcmp(rs, smember(e, "sourceAsGiven"))))
                continue;
            if (rt && !(smember(e, "type") && !strcmp(rt, smember(e, "type"))))
                continue;
            if (json_is_true(member(r, "readOnly")) && !json_is_true(member(e, "readOnly")))
                continue; /* read-only was asked, read-write is weaker */
            if (smember(r, "propagation") &&
                propagation_rank(smember(e, "propagation")) <
                    propagation_rank(smember(r, "propagation")))
                continue; /* a more shared propagation than the one asked is weaker */
            found = 1;
            break;
        }
        if (!found)
            return WEAKER(why, n, "a mount beyond those requested, or read-write");
    }
    return AT_LEAST(why, n);
}

/* A device's permissions within the requested one's ("r" within "rwm"). */
static int device_within(const json_t *e, const json_t *r)
{
    const char *ep = smember(e, "cgroupPermissions"), *rp = smember(r, "cgroupPermissions");

    if (!smember(e, "pathOnHost") || !smember(r, "pathOnHost") ||
        strcmp(smember(e, "pathOnHost"), smember(r, "pathOnHost")) != 0)
        return 0;
    if (smember(r, "pathInContainer") &&
        (!smember(e, "pathInContainer") ||
         strcmp(smember(e, "pathInContainer"), smember(r, "pathInContainer")) != 0))
        return 0;
    for (const char *p = ep ? ep : "rwm"; rp && *p; p++)
        if (!strchr(rp, *p))
            return 0;
    return 1;
}

bx_cmp bxs_cmp_devices(const json_t *req, const json_t *c, char *why, size_t n)
{
    static const char *const members[] = {"devices", "cgroupRules", "allowAll", NULL};
    const json_t *dev = member(c, "devices"), *e, *r;
    size_t i, j;

    if (!json_is_object(req) || !only(req, members))
        return UNKNOWN(why, n, "the request is not {devices, cgroupRules, allowAll}");
    if (!json_is_boolean(member(dev, "allowAll")) || !json_is_array(member(dev, "devices")) ||
        !json_is_array(member(dev, "cgroupRules")))
        return UNKNOWN(why, n, "devices not observed");
    if (json_is_true(member(dev, "allowAll")) && !json_is_true(member(req, "allowAll")))
        return WEAKER(why, n, "every device allowed");
    if (too_many(member(dev, "devices"), member(req, "devices")) ||
        too_many(member(dev, "cgroupRules"), member(req, "cgroupRules")))
        return UNKNOWN(why, n, TOO_MANY);
    json_array_foreach(member(dev, "devices"), i, e)
    {
        int ok = 0;
        json_array_foreach(member(req, "devices"), j, r) ok |= device_within(e, r);
        if (!ok)
            return WEAKER(why, n, "a host device that was not requested");
    }
    /* rules by what they allow, read exactly: "c 1:3 r" is within a requested "c 1:* rw" */
    json_array_foreach(member(dev, "cgroupRules"), i, e)
    {
        bx_devrule er, rr;
        int ok = 0;
        if (bx_devrule_parse(json_string_value(e), &er) != 0)
            return UNKNOWN(why, n, "a device rule that is not TYPE MAJOR:MINOR ACCESS");
        json_array_foreach(member(req, "cgroupRules"), j, r)
        {
            if (bx_devrule_parse(json_string_value(r), &rr) != 0)
                return UNKNOWN(why, n, "a requested device rule that is not TYPE MAJOR:MINOR ACCESS");
            ok |= bx_devrule_within(&er, &rr);
        }
        if (!ok)
            return WEAKER(why, n, "a device rule that was not requested");
    }
    return AT_LEAST(why, n);
}

/* More paths masked or read-only is stronger: each requested one must be there. */
static bx_cmp cmp_paths(const json_t *req, const json_t *eff, char *why, size_t n)
{
    const json_t *v;
    size_t i;

    if (!json_is_array(req))
        return UNKNOWN(why, n, "the request is not a list");
    if (!json_is_array(eff))
        return UNKNOWN(why, n, "not observed");
    if (too_many(eff, req)) /* each requested path looked up among those observed */
        return UNKNOWN(why, n, TOO_MANY);
    json_array_foreach(req, i, v)
    {
        if (!listed(eff, v))
            return WEAKER(why, n, "a requested path is missing");
    }
    return AT_LEAST(why, n);
}

bx_cmp bxs_cmp_masked(const json_t *req, const json_t *c, char *why, size_t n)
{
    return cmp_paths(req, member(c, "maskedPaths"), why, n);
}

bx_cmp bxs_cmp_ro_paths(const json_t *req, const json_t *c, char *why, size_t n)
{
    return cmp_paths(req, member(c, "readonlyPaths"), why, n);
}

/* ---- sysctls ------------------------------------------------------------------------------- */

/* Each requested sysctl must have that value in the session's namespaces, read back from the
 * kernel (the engine's word is not enough: the kernel's is what holds). */
bx_cmp bxs_cmp_sysctls(const json_t *req, const json_t *c, char *why, size_t n)
{
    const json_t *have = member(c, "sysctls"), *v;
    const char *name;

    if (!json_is_object(req) || json_object_size(req) == 0)
        return UNKNOWN(why, n, "the request is not a map of sysctl names to values");
    if (!json_is_object(have))
        return UNKNOWN(why, n, "sysctls not observed");
    json_object_foreach((json_t *)req, name, v)
    {
        const char *want = json_string_value(v);
        const char *got = smember(member(have, name), "kernel");
        if (!want)
            return UNKNOWN(why, n, "a requested sysctl value is not a string");
        if (!got)
            return UNKNOWN(why, n, "a requested sysctl was not read back from the kernel");
        if (!bx_sysctl_value_equal(want, got))
            return WEAKER(why, n, "a sysctl with another value than requested");
    }
    return AT_LEAST(why, n);
}

static const char *skip_ws(const char *s)
{
    while (*s == ' ' || *s == '\t' || *s == '\n')
        s++;
    return s;
}

/* Two sysctl values alike but for whitespace runs ("0 2147483647" and "0\t2147483647"). */
int bx_sysctl_value_equal(const char *a, const char *b)
{
    a = skip_ws(a);
    b = skip_ws(b);
    while (*a && *b) {
        size_t la = strcspn(a, " \t\n"), lb = strcspn(b, " \t\n");
        if (la != lb || memcmp(a, b, la) != 0)
            return 0;
        a = skip_ws(a + la);
        b = skip_ws(b + lb);
    }
    return !*a && !*b;
}

/* ---- by name ------------------------------------------------------------------------------- */

bx_cmp bx_compare_field(const char *name, const json_t *requested, const json_t *containment,
                        char *why, size_t whylen)
{
    const bx_containment_row *row = bx_containment_row_of(name);

    if (!row || !row->compare)
        return UNKNOWN(why, whylen, "not a containment field");
    if (!requested)
        return UNKNOWN(why, whylen, "nothing requested");
    return row->compare(requested, containment, why, whylen);
}

bx_cmp bx_compare_containment(const json_t *requested, const json_t *containment,
                              const char **field, char *why, size_t whylen)
{
    const char *name;
    const json_t *v;

    *field = NULL;
    if (!json_is_object(requested))
        return UNKNOWN(why, whylen, "the request is not an object");
    json_object_foreach((json_t *)requested, name, v)
    {
        bx_cmp r = bx_compare_field(name, v, containment, why, whylen);
        if (r != BX_CMP_AT_LEAST) {
            *field = name;
            return r;
        }
    }
    return AT_LEAST(why, whylen);
}

const json_t *bx_compare_weaker(const char *name, const json_t *a, const json_t *b)
{
    json_t *ca, *cb;
    bx_cmp ab, ba;

    if (!a || json_is_null(a))
        return a ? a : b;
    if (!b || json_is_null(b))
        return b ? b : a;
    ca = json_pack("{s:O}", name, a);
    cb = json_pack("{s:O}", name, b);
    /* the value that holds as a request against the other is the weaker */
    ab = ca && cb ? bx_compare_field(name, a, cb, NULL, 0) : BX_CMP_UNKNOWN; /* b >= a */
    ba = ca && cb ? bx_compare_field(name, b, ca, NULL, 0) : BX_CMP_UNKNOWN; /* a >= b */
    json_decref(ca);
    json_decref(cb);
    if (ab == BX_CMP_AT_LEAST && ba != BX_CMP_AT_LEAST)
        return a; /* b is at least a, not the other way round: a is weaker */
    if (ba == BX_CMP_AT_LEAST && ab != BX_CMP_AT_LEAST)
        return b;
    return ab == BX_CMP_AT_LEAST ? a : NULL; /* equal: either; incomparable: NULL */
}
