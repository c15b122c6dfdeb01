/* SPDX-License-Identifier: Apache-2.0 */
/* Which source wins (certificate.md section 3): each field is recorded from the most
 * authoritative source that says something about it, the kernel, then the runtime's
 * actual arguments, then the task's OCI spec, then the engine; every disagreement between
 * sources that say something is an evidence.discrepancies entry.
 *
 * What counts as a disagreement, field by field, where the sources do not speak of the
 * same thing in the same terms:
 * - capabilities: the bounding sets are compared (the engine's computed set is what root
 *   would hold; a non-root process holds none of it in effective and permitted, which is
 *   not a disagreement); the recorded sets are the winning source's, add/drop stay the
 *   engine's (as configured).
 * - namespaces: the engine's mode read as the host's or not ("host" is the host's; a
 *   user namespace of mode "default" is the host's unless the daemon remaps), against the
 *   kernel's comparison of namespace inodes with the engine daemon's.
 * - resources: the kernel's defaults for what the engine leaves unset are not limits
 *   (cpu.shares 1024, cpu.weight 100, cpu.cfs_period_us without a quota); a CPU limit set
 *   with --cpus is compared as nano-CPUs (quota * 1e9 / period), one set with --cpu-quota
 *   as quota and period.
 * - writeSurface: the set of paths, and the sizes where both sources know one.
 * - user: the ids the spec sets against the kernel's (uids, gids). */
#include "attest_internal.h"

#include <stdlib.h>
#include <string.h>

enum { S_ENGINE, S_SPEC, S_RUNTIME, S_KERNEL, S_COUNT };
static const char *const source_names[S_COUNT] = {"engine", "spec", "runtime", "kernel"};
static const char *const reasons[S_COUNT] = {"engine", "OCI spec", "runtime argument", "kernel"};

typedef struct {
    json_t *c;    /* the containment being reconciled (the predicate's) */
    json_t *disc; /* new discrepancies */
    json_t *sources;
    const bxa_views *v;
    bx_error *err;
    int failed;
} rctx;

typedef int (*same_fn)(const json_t *a, const json_t *b);

static int same_json(const json_t *a, const json_t *b)
{
    return json_equal((json_t *)a, (json_t *)b);
}

static int same_bounding(const json_t *a, const json_t *b)
{
    return json_equal(json_object_get(a, "bounding"), json_object_get(b, "bounding"));
}

static const json_t *view_member(const json_t *view, const char *a, const char *b)
{
    const json_t *x = json_object_get(view, a);
    return b ? (json_is_object(x) ? json_object_get(x, b) : NULL) : x;
}

static void source(rctx *x, const char *field, int s)
{
    if (x->sources)
        json_object_set_new(x->sources, field, json_string(source_names[s]));
}

static void note(rctx *x, const char *field, json_t *values[S_COUNT], const json_t *recorded,
                 const char *reason)
{
    json_t *e = json_pack("{s:s,s:{s:O,s:O,s:O,s:O},s:O,s:s}", "field", field, "values", "engine",
                          values[S_ENGINE] ? values[S_ENGINE] : json_null(), "spec",
                          values[S_SPEC] ? values[S_SPEC] : json_null(), "runtime",
                          values[S_RUNTIME] ? values[S_RUNTIME] : json_null(), "kernel",
                          values[S_KERNEL] ? values[S_KERNEL] : json_null(), "recorded",
                          recorded ? recorded : json_null(), "reason", reason);
    if (!e || json_array_append_new(x->disc, e) != 0)
        x->failed = 1;
}

/* The recorded value among cand (NULL: the source says nothing; null: it cannot vouch),
 * the highest standing first; *won the source recorded. A discrepancy when two sources
 * that say something (not null) disagree by same (compared through cmp_of when given). */
static const json_t *pick(rctx *x, const char *field, const json_t *cand[S_COUNT], same_fn same,
                          const json_t *(*cmp_of)(const json_t *), int *won)
{
    const json_t *rec = NULL;
    int s, agree = 1, first = -1;

    *won = S_ENGINE;
    for (s = S_COUNT - 1; s >= 0; s--) {
        if (cand[s]) {
            rec = cand[s];
            *won = s;
            break;
        }
    }
    for (s = 0; s < S_COUNT; s++) {
        if (!cand[s] || json_is_null(cand[s]))
            continue;
        if (first < 0)
            first = s;
        else if (!same(cand[first], cand[s]))
            agree = 0;
    }
    if (!agree) {
        json_t *vals[S_COUNT];
        for (s = 0; s < S_COUNT; s++)
            vals[s] = cand[s] ? (cmp_of ? (json_t *)cmp_of(cand[s]) : (json_t *)cand[s]) : NULL;
        note(x, field, vals, rec ? (cmp_of ? cmp_of(rec) : rec) : NULL, reasons[*won]);
    }
    return rec;
}

/* Replace member key of obj by a copy of v. */
static void put(rctx *x, json_t *obj, const char *key, const json_t *v)
{
    if (!json_is_object(obj))
        return;
    if (json_object_set_new(obj, key, v ? json_deep_copy(v) : json_null()) != 0)
        x->failed = 1;
}

/* A plain field: containment.<a>[.<b>] from every view. */
static void plain(rctx *x, const char *a, const char *b, const char *label)
{
    json_t *parent = b ? json_object_get(x->c, a) : x->c;
    const char *key = b ? b : a;
    const json_t *cand[S_COUNT] = {
        json_object_get(parent, key),
        view_member(x->v->spec, a, b),
        view_member(x->v->runtime, a, b),
        view_member(x->v->kernel, a, b),
    };
    char field[96];
    int won;
    const json_t *rec;

    if (b && !json_is_object(parent))
        return;
    snprintf(field, sizeof field, "containment.%s%s%s", a, b ? "." : "", b ? b : "");
    rec = pick(x, field, cand, same_json, NULL, &won);
    if (won != S_ENGINE)
        put(x, parent, key, rec);
    source(x, label, won);
}

/* ---- network -------------------------------------------------------------------------- */

/* The strength of a mode: none > a named network > bridge > container:<id> > host. */
static int mode_rank(const char *m)
{
    if (!m)
        return -1;
    if (!strcmp(m, "none"))
        return 4;
    if (!strcmp(m, "host"))
        return 0;
    if (!strncmp(m, "container:", 10))
        return 1;
    if (!strcmp(m, "bridge") || !strcmp(m, "default"))
        return 2;
    return 3;
}

/* What the kernel's links say of the network (netlink.c's facts): "none" when only lo and
 * fallback tunnel devices that are down and have no address; else the engine's networks
 * whose bridges every veth's host peer is on (each link's peer named in place), the weakest
 * of them as the mode and internal only when every one is; *known 0 when some link is none
 * of those (its mode and internal are then not known). */
static const char *kernel_mode(rctx *x, json_t *links, const json_t *nets, int *known,
                               int *internal)
{
    const char *weakest = NULL;
    const json_t *l, *n;
    size_t i, j;
    int any = 0;

    *known = 1;
    *internal = 1;
    json_array_foreach(links, i, l)
    {
        const char *name = json_string_value(json_object_get(l, "name"));
        const char *kind = json_string_value(json_object_get(l, "kind"));
        json_t *peer = json_object_get(l, "peer");
        const char *br = json_string_value(json_object_get(peer, "bridge"));
        const json_t *addrs = json_object_get(l, "addresses");
        const json_t *hit = NULL;
        if (name && !strcmp(name, "lo") && !kind)
            continue;
        if (bxa_nl_is_fallback(name, kind) && json_is_false(json_object_get(l, "up")) &&
            json_is_array(addrs) && json_array_size(addrs) == 0)
            continue;
        any = 1;
        if (!kind || strcmp(kind, "veth") != 0 || !json_is_true(json_object_get(peer, "host")) ||
            !br) {
            *known = 0;
            continue;
        }
        json_array_foreach(nets, j, n)
        {
            const char *b = json_string_value(json_object_get(n, "bridge"));
            if (b && !strcmp(b, br))
                hit = n;
        }
        if (!hit) {
            *known = 0;
            continue;
        }
        if (json_object_set(peer, "network", json_object_get(hit, "name")) != 0 ||
            json_object_set(peer, "internal", json_object_get(hit, "internal")) != 0)
            x->failed = 1;
        if (json_is_false(json_object_get(hit, "internal")))
            *internal = 0;
        else if (!json_is_true(json_object_get(hit, "internal")) && *internal == 1)
            *internal = -1;
        {
            const char *nm = json_string_value(json_object_get(hit, "name"));
            if (!weakest || mode_rank(nm) < mode_rank(weakest))
                weakest = nm;
        }
    }
    if (!any) {
        *internal = 0;
        return "none";
    }
    return *known ? weakest : NULL;
}

static void network(rctx *x)
{
    json_t *net = json_object_get(x->c, "network");
    const json_t *kns = view_member(x->v->kernel, "namespaces", "net");
    const json_t *rt_mode = view_member(x->v->runtime, "network", "mode");
    json_t *khost = json_is_string(kns) && strcmp(json_string_value(kns), "host") == 0
                        ? json_string("host")
                        : NULL;
    const json_t *cand[S_COUNT] = {json_object_get(net, "mode"), NULL, rt_mode, khost};
    const json_t *rec, *ifs, *klinks = view_member(x->v->kernel, "network", "links");
    int won;

    if (!json_is_object(net)) {
        json_decref(khost);
        return;
    }
    rec = pick(x, "containment.network.mode", cand, same_json, NULL, &won);
    if (won != S_ENGINE) {
        const char *m = json_string_value(rec);
        put(x, net, "mode", rec);
        /* none and host have no network of their own to be internal */
        if (!m || strcmp(m, "none") == 0 || strcmp(m, "host") == 0)
            put(x, net, "internal", m ? json_false() : NULL);
    }
    source(x, "network.mode", won);
    json_decref(khost);
    if ((ifs = view_member(x->v->runtime, "network", "interfaces")) ||
        (ifs = view_member(x->v->kernel, "network", "interfaces"))) {
        put(x, net, "interfaces", ifs);
        source(x, "network.interfaces",
               view_member(x->v->runtime, "network", "interfaces") ? S_RUNTIME : S_KERNEL);
    }
    if (json_is_array(klinks)) {
        /* the kernel's links judge the network: the weaker of the engine's mode and theirs */
        const char *em = json_string_value(json_object_get(net, "mode"));
        const json_t *ei = json_object_get(net, "internal");
        json_t *links = json_deep_copy(klinks), *vals[S_COUNT] = {0};
        const char *km;
        int known, kint, host = em && !strcmp(em, "host");
        if (!links) {
            x->failed = 1;
            return;
        }
        km = kernel_mode(x, links, json_object_get(net, "networks"), &known, &kint);
        if (json_object_set_new(net, "links", links) != 0)
            x->failed = 1;
        put(x, net, "routes", view_member(x->v->kernel, "network", "routes"));
        source(x, "network.links", S_KERNEL);
        source(x, "network.routes", S_KERNEL);
        if (host)
            return; /* the host's own links: the namespace comparison judged it */
        if (json_is_string(rt_mode) && !strcmp(json_string_value(rt_mode), "none"))
            return; /* runsc --network=none: the sentry's netstack has only its loopback; the
                       links are the sandbox's host side, which the sentry does not use */
        if (em && !strncmp(em, "container:", 10)) {
            /* the other container's namespace: its facts, its internal flag */
            if (km && !strcmp(km, "none"))
                return;
            put(x, net, "internal", !known || kint < 0 ? NULL : kint ? json_true() : json_false());
            return;
        }
        if (!known || !km || !em || strcmp(km, em) != 0) {
            json_t *rm = NULL;
            const char *r = !known || !km ? NULL : mode_rank(km) < mode_rank(em) ? km : em;
            vals[S_ENGINE] = json_object_get(net, "mode");
            vals[S_KERNEL] = km ? json_string(km) : NULL;
            rm = r ? json_string(r) : json_null();
            note(x, "containment.network.mode", vals, rm,
                 !known ? "kernel: a link of the session's network namespace is on no "
                          "network of the engine's (the weaker: not known)"
                        : "kernel: the session's links are not what the engine's mode says "
                          "(the weaker recorded)");
            put(x, net, "mode", rm);
            json_decref(vals[S_KERNEL]);
            json_decref(rm);
            source(x, "network.mode", S_KERNEL);
        }
        {
            const char *m = json_string_value(json_object_get(net, "mode"));
            json_t *ki = !known || kint < 0 ? json_null() : json_boolean(kint);
            if (m && !strcmp(m, "none")) {
                put(x, net, "internal", json_false());
            } else if (!json_equal(ki, (json_t *)ei)) {
                json_t *v2[S_COUNT] = {(json_t *)ei, NULL, NULL, ki};
                json_t *rec_i = json_is_true(ki) && json_is_true(ei)     ? json_true()
                                : json_is_false(ki) || json_is_false(ei) ? json_false()
                                                                         : json_null();
                note(x, "containment.network.internal", v2, rec_i,
                     "kernel: the bridges of the session's veth peers (the weaker recorded)");
                put(x, net, "internal", rec_i);
                json_decref(rec_i);
            }
            json_decref(ki);
        }
    }
}

/* ---- containment.channels (v3): sockets made in another network namespace ---------------- */

/* A socket of the host's (or the daemon's) network namespace gives the host's network, one of
 * another namespace a network not known, whatever the session's own namespace shows: the
 * weaker is recorded (host; null for another), a discrepancy the network rule sees. */
static void channels_network(rctx *x)
{
    const json_t *ch = json_object_get(x->v->kernel, "channels"), *e;
    json_t *net = json_object_get(x->c, "network");
    const char *m, *worst = NULL;
    int other = 0;
    size_t i;

    if (!json_is_array(ch) || !json_is_object(net))
        return;
    json_array_foreach(ch, i, e)
    {
        const char *o = json_string_value(json_object_get(e, "netnsOf"));
        if (o && (!strcmp(o, "host") || !strcmp(o, "daemon")))
            worst = "host";
        else if (o && !strcmp(o, "other"))
            other = 1;
    }
    m = json_string_value(json_object_get(net, "mode"));
    if (worst && m && !strcmp(m, "host"))
        return; /* already the host's */
    if (worst || (other && m)) {
        json_t *k = worst ? json_string(worst) : json_null();
        json_t *vals[S_COUNT] = {(json_t *)json_object_get(net, "mode"), NULL, NULL, k};
        note(x, "containment.network.mode", vals, k,
             worst ? "kernel: a session's process holds a socket made in the host's network "
                     "namespace (the weaker recorded)"
                   : "kernel: a session's process holds a socket made in another network "
                     "namespace (its network not known)");
        put(x, net, "mode", k);
        put(x, net, "internal", worst ? json_false() : json_null());
        source(x, "network.mode", S_KERNEL);
        json_decref(k);
    }
}

/* ---- capabilities ----------------------------------------------------------------------- */

static const json_t *bounding_of(const json_t *caps)
{
    return json_object_get(caps, "bounding");
}

static void capabilities(rctx *x)
{
    json_t *caps = json_object_get(x->c, "capabilities");
    const json_t *cand[S_COUNT] = {caps, json_object_get(x->v->spec, "capabilities"),
                                   json_object_get(x->v->runtime, "capabilities"),
                                   json_object_get(x->v->kernel, "capabilities")};
    static const char *const sets[] = {"effective", "permitted", "inheritable", "ambient",
                                       "bounding"};
    const json_t *rec;
    int won;

    if (!json_is_object(caps))
        return;
    rec = pick(x, "containment.capabilities.bounding", cand, same_bounding, bounding_of, &won);
    if (won != S_ENGINE)
        for (size_t i = 0; i < 5; i++)
            put(x, caps, sets[i], json_is_object(rec) ? json_object_get(rec, sets[i]) : NULL);
    source(x, "capabilities", won);
}

/* ---- seccomp, user ---------------------------------------------------------------------- */

static void seccomp(rctx *x)
{
    json_t *sc = json_object_get(x->c, "seccomp");
    const json_t *spec_hash = view_member(x->v->spec, "seccomp", "profileSha256");
    const json_t *rt = json_object_get(x->v->runtime, "seccomp");
    const char *mode;

    plain(x, "seccomp", "mode", "seccomp.mode");
    if (!json_is_object(sc))
        return;
    mode = json_string_value(json_object_get(sc, "mode"));
    /* the profile's hash is the spec's, when a filter is in force */
    if (json_is_object(rt) && json_object_get(rt, "profileSha256"))
        spec_hash = json_object_get(rt, "profileSha256");
    if (x->v->spec || x->v->runtime) {
        put(x, sc, "profileSha256", mode && strcmp(mode, "filter") == 0 ? spec_hash : NULL);
        source(x, "seccomp.profileSha256", x->v->runtime ? S_RUNTIME : S_SPEC);
    }
}

static void user(rctx *x)
{
    json_t *u = json_object_get(x->c, "user");
    static const char *const ids[] = {"uids", "gids"};

    if (!json_is_object(u))
        return;
    for (size_t i = 0; i < 2; i++) {
        const json_t *cand[S_COUNT] = {NULL, view_member(x->v->spec, "user", ids[i]),
                                       view_member(x->v->runtime, "user", ids[i]),
                                       view_member(x->v->kernel, "user", ids[i])};
        char field[48];
        int won;
        const json_t *rec;
        snprintf(field, sizeof field, "containment.user.%s", ids[i]);
        rec = pick(x, field, cand, same_json, NULL, &won);
        if (won != S_ENGINE)
            put(x, u, ids[i], rec);
        if (i == 0)
            source(x, "user.ids", won);
    }
    {
        const json_t *cand[S_COUNT] = {NULL, view_member(x->v->spec, "user", "groups"),
                                       view_member(x->v->runtime, "user", "groups"),
                                       view_member(x->v->kernel, "user", "groups")};
        int s;
        for (s = S_COUNT - 1; s > 0 && !cand[s]; s--)
            ;
        if (s > 0)
            put(x, u, "groups", cand[s]);
    }
    /* v2: every id of every task, the kernel's only */
    {
        static const char *const every[] = {"everyUid", "everyGid", "everyGroup", "inNamespace"};
        const json_t *ku = json_object_get(x->v->kernel, "user");
        for (size_t i = 0; json_is_object(ku) && i < 4; i++)
            if (json_object_get(u, every[i]))
                put(x, u, every[i], json_object_get(ku, every[i]));
    }
}

/* ---- namespaces -------------------------------------------------------------------------- */

/* The engine's mode as the host's ("host") or not ("private"). */
static const char *engine_ns(const char *name, const char *mode)
{
    if (!mode)
        return NULL;
    if (strcmp(mode, "host") == 0)
        return "host";
    if (strcmp(name, "user") == 0)
        return strcmp(mode, "remapped") == 0 || strcmp(mode, "private") == 0 ? "private" : "host";
    return "private";
}

static void namespaces(rctx *x)
{
    static const char *const names[] = {"pid", "ipc", "uts", "net", "user", "cgroup", "mnt", "time"};
    json_t *ns = json_object_get(x->c, "namespaces");
    const json_t *shared = json_object_get(x->v->kernel, "namespacesShared");

    if (!json_is_object(ns))
        return;
    for (size_t i = 0; i < 8; i++) {
        json_t *one = json_object_get(ns, names[i]);
        if (!one)
            continue; /* mnt and time: v2 */
        if (json_object_get(one, "shared") && shared)
            put(x, one, "shared", json_object_get(shared, names[i]));
        const char *em = engine_ns(names[i], json_string_value(json_object_get(one, "engine")));
        json_t *e = em ? json_string(em) : NULL;
        const json_t *k = view_member(x->v->kernel, "namespaces", names[i]);
        const json_t *cand[S_COUNT] = {e, view_member(x->v->spec, "namespaces", names[i]), NULL, k};
        char field[48], label[32];
        int won;

        snprintf(field, sizeof field, "containment.namespaces.%s", names[i]);
        snprintf(label, sizeof label, "namespaces.%s", names[i]);
        (void)pick(x, field, cand, same_json, NULL, &won);
        if (json_is_object(one) && k) {
            put(x, one, "kernel", k);
            source(x, label, S_KERNEL);
        }
        json_decref(e);
    }
}

/* ---- resources ----------------------------------------------------------------------------- */

static json_t *nano_of(const json_t *res)
{
    const json_t *q = json_object_get(res, "cpuQuota"), *p = json_object_get(res, "cpuPeriod");
    json_int_t period;

    if (!json_is_integer(q))
        return json_null();
    period = json_is_integer(p) && json_integer_value(p) > 0 ? json_integer_value(p) : 100000;
    return json_integer(json_integer_value(q) * 1000000000LL / period);
}

/* runc's shares -> cpu.weight on cgroup v2 */
static json_int_t weight_of_shares(json_int_t s)
{
    return s <= 0 ? 100 : 1 + ((s - 2) * 9999) / 262142;
}

/* One view's resources in the engine's terms, given how the engine set the CPU limit.
 * Caller owns. */
static json_t *resources_as_engine(const json_t *res, const json_t *eng, int is_kernel)
{
    json_t *r;
    const json_t *w;
    int by_quota = json_is_integer(json_object_get(eng, "cpuQuota"));
    int by_period = json_is_integer(json_object_get(eng, "cpuPeriod"));

    if (!json_is_object(res))
        return res ? json_incref((json_t *)res) : NULL;
    r = json_deep_copy(res);
    if (!by_quota) {
        if (json_object_get(res, "cpuQuota"))
            json_object_set_new(r, "nanoCpus", nano_of(res));
        json_object_del(r, "cpuQuota");
    }
    if (!by_period)
        json_object_del(r, "cpuPeriod");
    if (is_kernel) {
        /* the CPUs and memory nodes in force: "*" (every one) when they are all of this
         * host's, compared so with the engine's "" (resources()), recorded as null */
        static const char *const sets[][2] = {{"cpusetCpus", "cpusetCpusHost"},
                                              {"cpusetMems", "cpusetMemsHost"}};
        for (size_t i = 0; i < 2; i++) {
            const char *own = json_string_value(json_object_get(r, sets[i][0]));
            const char *all = json_string_value(json_object_get(r, sets[i][1]));
            if (own && all && *all && strcmp(own, all) == 0)
                json_object_set_new(r, sets[i][0], json_string("*")); /* every one */
            json_object_del(r, sets[i][1]);
        }
    }
    if (is_kernel) {
        const json_t *sh = json_object_get(r, "cpuShares");
        const json_t *esh = json_object_get(eng, "cpuShares");
        if (json_is_integer(sh) && json_integer_value(sh) == 1024 && !json_is_integer(esh))
            json_object_set_new(r, "cpuShares", json_null());
        if ((w = json_object_get(r, "cpuWeight"))) {
            json_int_t weight = json_integer_value(w);
            if (json_is_integer(esh) && weight_of_shares(json_integer_value(esh)) == weight)
                json_object_set(r, "cpuShares", (json_t *)esh);
            else if (weight == 100)
                json_object_set_new(r, "cpuShares", json_null());
            else
                json_object_set_new(r, "cpuShares",
                                    json_integer(2 + ((weight - 1) * 262142) / 9999));
            json_object_del(r, "cpuWeight");
        }
    }
    return r;
}

static void resources(rctx *x)
{
    static const char *const limits[] = {"memoryBytes", "memorySwapBytes", "pidsLimit",
                                         "nanoCpus",    "cpuShares",       "cpuQuota",
                                         "cpuPeriod",   "cpusetCpus",      "cpusetMems"};
    json_t *res = json_object_get(x->c, "resources");
    json_t *views[S_COUNT] = {NULL}, *every;
    const json_t *kres = json_object_get(x->v->kernel, "resources");

    if (!json_is_object(res))
        return;
    if (!(every = json_string("*"))) {
        x->failed = 1;
        return;
    }
    views[S_SPEC] = resources_as_engine(json_object_get(x->v->spec, "resources"), res, 0);
    views[S_RUNTIME] = resources_as_engine(json_object_get(x->v->runtime, "resources"), res, 0);
    views[S_KERNEL] = resources_as_engine(json_object_get(x->v->kernel, "resources"), res, 1);
    for (size_t i = 0; i < sizeof limits / sizeof limits[0]; i++) {
        const json_t *cand[S_COUNT] = {json_object_get(res, limits[i]),
                                       json_object_get(views[S_SPEC], limits[i]),
                                       json_object_get(views[S_RUNTIME], limits[i]),
                                       json_object_get(views[S_KERNEL], limits[i])};
        char field[64], label[48], host[64];
        const json_t *rec;
        int won, set = !strncmp(limits[i], "cpuset", 6);
        /* a set: the engine's and the spec's null ("" or none asked for) and a list that is all
         * of this host's are every one, "*", as the kernel's view says it (a null there would
         * be a view that cannot vouch, never a disagreement) */
        snprintf(host, sizeof host, "%sHost", limits[i]);
        const char *all = json_string_value(json_object_get(kres, host));
        for (int s = S_ENGINE; set && s < S_RUNTIME; s++)
            if (json_is_null(cand[s]) ||
                (all && *all && json_is_string(cand[s]) &&
                 strcmp(json_string_value(cand[s]), all) == 0))
                cand[s] = every;
        snprintf(field, sizeof field, "containment.resources.%s", limits[i]);
        snprintf(label, sizeof label, "resources.%s", limits[i]);
        rec = pick(x, field, cand, same_json, NULL, &won);
        if (rec == every || json_equal((json_t *)rec, every))
            put(x, res, limits[i], json_null()); /* every one: null in the certificate */
        else if (won != S_ENGINE || set)
            put(x, res, limits[i], rec);
        source(x, label, won);
    }
    json_decref(every);
    for (int s = 0; s < S_COUNT; s++)
        json_decref(views[s]);
}

/* ---- write surface, mounts ------------------------------------------------------------------ */

static const char *str(const json_t *o, const char *k)
{
    const char *s = json_string_value(json_object_get(o, k));
    return s ? s : "";
}

static const json_t *find_by(const json_t *arr, const char *key, const char *val)
{
    const json_t *e;
    size_t i;

    json_array_foreach(arr, i, e)
    {
        if (strcmp(str(e, key), val) == 0)
            return e;
    }
    return NULL;
}

static int cmp_surface(const void *a, const void *b)
{
    const json_t *x = *(json_t *const *)a, *y = *(json_t *const *)b;
    int r = strcmp(str(x, "path"), str(y, "path"));
    return r ? r : strcmp(str(x, "kind"), str(y, "kind"));
}

static void sort_surface(json_t *arr)
{
    size_t n = json_array_size(arr);
    json_t **items = n > 1 ? calloc(n, sizeof *items) : NULL;

    if (!items)
        return;
    for (size_t i = 0; i < n; i++)
        items[i] = json_incref(json_array_get(arr, i));
    qsort(items, n, sizeof *items, cmp_surface);
    for (size_t i = 0; i < n; i++)
        json_array_set_new(arr, i, items[i]);
    free(items);
}

/* The kind of a writable place the kernel shows, from what the engine says of it. */
static const char *kind_of(rctx *x, const json_t *engine_ws, const json_t *k)
{
    static const char *const engine_paths[] = {
        "/dev",
        "/dev/pts",
        "/dev/shm",
        "/dev/mqueue",
        "/proc",
        "/sys",
        "/sys/fs/cgroup",
        "/etc/hostname",
        "/etc/hosts",
        "/etc/resolv.conf",
        "/run/.containerenv",
    };
    const char *path = str(k, "path");
    const json_t *e, *m;

    if (strcmp(path, "/") == 0)
        return "rootfs";
    if ((e = find_by(engine_ws, "path", path)))
        return str(e, "kind");
    if ((m = find_by(json_object_get(x->c, "mounts"), "destination", path))) {
        const char *t = str(m, "type");
        if (!strcmp(t, "bind") || !strcmp(t, "volume") || !strcmp(t, "tmpfs"))
            return t;
    }
    for (size_t i = 0; i < sizeof engine_paths / sizeof engine_paths[0]; i++)
        if (strcmp(engine_paths[i], path) == 0)
            return "engine";
    return strcmp(str(k, "fsType"), "tmpfs") == 0 ? "tmpfs" : "bind";
}

/* The engine's and the kernel's lists disagree when a place one declares writable is not in
 * the other, or both know its size and the sizes differ. The engine's own mounts (kind
 * engine) are the collector's reading of the engine's defaults, not the engine's word:
 * where they are is not compared, only their sizes. */
static int surface_differs(const json_t *a, const json_t *b)
{
    const json_t *e, *f;
    size_t i;

    for (int pass = 0; pass < 2; pass++) {
        const json_t *x = pass ? b : a, *y = pass ? a : b;
        json_array_foreach(x, i, e)
        {
            const json_t *sa = json_object_get(e, "sizeBytes"), *sb;
            if (!(f = find_by(y, "path", str(e, "path")))) {
                if (strcmp(str(e, "kind"), "engine") != 0)
                    return 1;
                continue;
            }
            sb = json_object_get(f, "sizeBytes");
            if (json_is_integer(sa) && json_is_integer(sb) &&
                !json_equal((json_t *)sa, (json_t *)sb))
                return 1;
        }
    }
    return 0;
}

static void write_surface(rctx *x)
{
    const json_t *kws = json_object_get(x->v->kernel, "writeSurface"), *k;
    json_t *ews = json_object_get(x->c, "writeSurface"), *out;
    const json_t *rt = json_object_get(x->v->runtime, "writeSurface");
    size_t i;

    (void)rt;
    if (!json_is_array(kws)) {
        /* no kernel list: the engine's, with the rootfs entry following the recorded
         * rootfs.readOnly (unknown counts as writable) */
        const json_t *ro = json_object_get(json_object_get(x->c, "rootfs"), "readOnly");
        const json_t *root = find_by(ews, "path", "/");
        if (json_is_array(ews) && !json_is_true(ro) && !root) {
            json_array_append_new(ews, json_pack("{s:s,s:s,s:n,s:[],s:n}", "path", "/", "kind",
                                                 "rootfs", "fsType", "options", "sizeBytes"));
            sort_surface(ews);
        }
        return;
    }
    if (!(out = json_array())) {
        x->failed = 1;
        return;
    }
    json_array_foreach(kws, i, k)
    {
        json_t *e = json_deep_copy(k);
        const json_t *eng = find_by(ews, "path", str(k, "path"));
        json_object_del(e, "root");
        json_object_del(e, "source");
        json_object_set_new(e, "kind", json_string(kind_of(x, ews, k)));
        if (json_is_null(json_object_get(e, "sizeBytes")) && eng &&
            json_is_integer(json_object_get(eng, "sizeBytes")))
            json_object_set(e, "sizeBytes", json_object_get(eng, "sizeBytes"));
        json_array_append_new(out, e);
    }
    sort_surface(out);
    if (json_is_array(ews) && surface_differs(ews, out)) {
        json_t *vals[S_COUNT] = {ews, NULL, NULL, out};
        note(x, "containment.writeSurface", vals, out, reasons[S_KERNEL]);
    }
    json_object_set_new(x->c, "writeSurface", out);
    source(x, "writeSurface", S_KERNEL);
}

/* The kernel's host object for each mount's source: the host path of what is mounted at the
 * destination now (hostObjects.mounts[].hostPath), whatever path the engine gave for it (a
 * symlink re-pointed after start, a volume bound to another folder). */
static void mount_sources(rctx *x, json_t *list)
{
    const json_t *km = json_object_get(json_object_get(x->v->kernel, "hostObjects"), "mounts");
    json_t *m;
    size_t i, j;
    int changed = 0;

    json_array_foreach(list, i, m)
    {
        const char *dst = str(m, "destination"), *src = str(m, "source");
        const json_t *e, *hp = NULL;
        json_array_foreach(km, j, e)
        {
            const char *d = json_string_value(json_object_get(e, "destination"));
            if (d && dst && strcmp(d, dst) == 0 && json_is_integer(json_object_get(e, "inode")))
                hp = json_object_get(e, "hostPath");
        }
        if (!json_is_string(hp) || (src && strcmp(src, json_string_value(hp)) == 0))
            continue;
        {
            char field[160];
            json_t *was = json_object_get(m, "source");
            json_t *vals[S_COUNT] = {was, NULL, NULL, (json_t *)hp};
            snprintf(field, sizeof field, "containment.mounts[%s].source", dst);
            note(x, field, vals, hp, "kernel: the object mounted there is elsewhere on this host");
            put(x, m, "source", hp);
            changed = 1;
        }
    }
    if (changed)
        source(x, "mounts", S_KERNEL);
}

static void mounts(rctx *x)
{
    const json_t *ro = json_object_get(x->v->kernel, "mountsReadOnly");
    const json_t *sockets = json_object_get(x->v->runtime, "hostSockets");
    json_t *list = json_object_get(x->c, "mounts"), *m;
    size_t i;

    if (json_is_string(sockets)) {
        /* runsc lets the session reach host sockets under its mounts: the list no longer
         * bounds what it reaches through them */
        char reason[128];
        json_t *vals[S_COUNT] = {list, NULL, (json_t *)sockets, NULL};
        snprintf(reason, sizeof reason,
                 "runtime argument %s: host sockets under the mounts are reachable",
                 json_string_value(sockets));
        note(x, "containment.mounts", vals, list, reason);
        source(x, "mounts", S_RUNTIME);
    }
    mount_sources(x, list);
    if (!json_is_object(ro))
        return;
    json_array_foreach(list, i, m)
    {
        const json_t *k = json_object_get(ro, str(m, "destination"));
        const json_t *e = json_object_get(m, "readOnly");
        if (!json_is_boolean(k))
            continue;
        if (!json_equal((json_t *)k, (json_t *)e)) {
            char field[160];
            json_t *vals[S_COUNT] = {(json_t *)e, NULL, NULL, (json_t *)k};
            snprintf(field, sizeof field, "containment.mounts[%s].readOnly", str(m, "destination"));
            note(x, field, vals, k, reasons[S_KERNEL]);
            put(x, m, "readOnly", k);
        }
    }
    source(x, "mounts", S_KERNEL);
}

/* ---- runtime arguments ------------------------------------------------------------------------
 */

/* "-x" -> "--x"; a bare boolean "--x" -> "--x=true". Caller frees. */
static char *norm_flag(const char *a)
{
    char *s = NULL;
    const char *n = a[0] == '-' && a[1] == '-' ? a + 2 : a[0] == '-' ? a + 1 : a;

    if (asprintf(&s, "--%s%s", n, strchr(n, '=') ? "" : "=true") < 0)
        return NULL;
    return s;
}

static int flag_listed(const json_t *list, const char *want)
{
    const json_t *v;
    size_t i;
    int found = 0;

    json_array_foreach(list, i, v)
    {
        char *n = json_is_string(v) ? norm_flag(json_string_value(v)) : NULL;
        found |= n && strcmp(n, want) == 0;
        free(n);
    }
    return found;
}

static void runtime(rctx *x)
{
    json_t *rt = json_object_get(x->c, "runtime");
    const json_t *info_args = json_object_get(rt, "args"), *v;
    const json_t *args = x->v->runtime_args;
    size_t i;
    int missing = 0;

    if (!json_is_object(rt) || !json_is_array(args))
        return;
    json_array_foreach(info_args, i, v)
    {
        char *n = json_is_string(v) ? norm_flag(json_string_value(v)) : NULL;
        missing |= !n || !flag_listed(args, n);
        free(n);
    }
    if (missing) {
        json_t *vals[S_COUNT] = {(json_t *)info_args, NULL, (json_t *)args, NULL};
        note(x, "containment.runtime.args", vals, args, reasons[S_RUNTIME]);
    }
    put(x, rt, "args", args);
    source(x, "runtime", S_RUNTIME);
}

/* ---- processes, system paths, descriptors, device nodes (v2) ------------------------------- */

/* The kernel's (or, under runsc, the sandbox's) reading of a v2 member, taken whole. */
static void kernel_only(rctx *x, const char *a, const char *label)
{
    const json_t *k = json_object_get(x->v->kernel, a);

    if (!k || !json_object_get(x->c, a))
        return;
    put(x, x->c, a, k);
    source(x, label, x->v->runtime ? S_RUNTIME : S_KERNEL);
}

/* The chains the kernel enforces: a discrepancy when tasks run different chains (the
 * policy counts the weakest) and when a chain lets through what the OCI profile denies. */
static void seccomp_programs(rctx *x)
{
    const json_t *sp = json_object_get(x->v->kernel, "seccompPrograms");
    const json_t *chains = json_object_get(sp, "chains");
    const json_t *looser = json_object_get(json_object_get(sp, "profile"), "looser");

    kernel_only(x, "seccompPrograms", "seccompPrograms");
    if (json_array_size(chains) > 1) {
        json_t *vals[S_COUNT] = {NULL, NULL, NULL, (json_t *)chains};
        note(x, "containment.seccompPrograms.chains", vals, chains,
             "kernel: the session's tasks run different seccomp chains (the weakest counts)");
    }
    if (json_array_size(looser)) {
        json_t *vals[S_COUNT] = {NULL, (json_t *)json_object_get(sp, "profile"), NULL,
                                 (json_t *)looser};
        note(x, "containment.seccompPrograms.profile", vals, looser,
             "kernel: a seccomp chain lets through what the OCI profile denies");
    }
}

static void processes(rctx *x)
{
    static const char *const ctl[] = {"memory", "pids"};
    static const char *const fields[] = {"containment.resources.memoryBytes",
                                         "containment.resources.pidsLimit"};
    const json_t *pr = json_object_get(x->v->kernel, "processes");
    const json_t *out = json_object_get(pr, "outsideCgroups");
    const json_t *uns = json_object_get(pr, "userNamespaces");
    const json_t *res = json_object_get(x->c, "resources"), *e;
    size_t i;

    kernel_only(x, "processes", "processes");
    kernel_only(x, "systemPaths", "systemPaths");
    kernel_only(x, "descriptors", "descriptors");
    kernel_only(x, "hostObjects", "hostObjects");
    kernel_only(x, "channels", "channels");
    kernel_only(x, "references", "references");
    kernel_only(x, "namespaceCreation", "namespaceCreation");
    kernel_only(x, "propagationPeers", "propagationPeers");
    seccomp_programs(x);
    if (json_is_object(json_object_get(x->c, "devices")) &&
        json_object_get(json_object_get(x->c, "devices"), "nodes") &&
        json_object_get(json_object_get(x->v->kernel, "devices"), "nodes")) {
        put(x, json_object_get(x->c, "devices"), "nodes",
            json_object_get(json_object_get(x->v->kernel, "devices"), "nodes"));
        source(x, "devices.nodes", S_KERNEL);
    }
    {
        /* v3: the walk of the session's mounts and mknod, the kernel's alone */
        static const char *const kmem[][2] = {{"nodesAnywhere", "devices.nodesAnywhere"},
                                              {"walk", "devices.walk"},
                                              {"mknod", "devices.mknod"}};
        json_t *cd = json_object_get(x->c, "devices");
        json_t *kd = json_object_get(x->v->kernel, "devices");
        for (size_t m = 0; m < 3 && json_is_object(cd); m++)
            if (json_object_get(kd, kmem[m][0])) {
                put(x, cd, kmem[m][0], json_object_get(kd, kmem[m][0]));
                source(x, kmem[m][1], S_KERNEL);
            }
    }
    /* a process of the session outside its memory or pids cgroup: that limit is not the
     * session's whole (recorded null by the kernel's view) */
    for (size_t c = 0; c < 2; c++) {
        json_array_foreach(out, i, e)
        {
            char reason[160];
            json_t *vals[S_COUNT] = {NULL, NULL, NULL, (json_t *)e};
            if (strcmp(json_string_value(json_object_get(e, "controller")), ctl[c]) != 0)
                continue;
            snprintf(reason, sizeof reason,
                     "kernel: process %lld of the session is outside its %s cgroup",
                     (long long)json_integer_value(json_object_get(e, "pid")), ctl[c]);
            note(x, fields[c], vals, json_object_get(res, c ? "pidsLimit" : "memoryBytes"),
                 reason);
            break;
        }
    }
    /* a process in another user namespace than the others: its capabilities are relative to
     * it (they are counted as held) */
    if (json_array_size(uns) > 1) {
        json_t *vals[S_COUNT] = {NULL, NULL, NULL, (json_t *)uns};
        note(x, "containment.processes.userNamespaces", vals, uns,
             "kernel: the session's processes are in more than one user namespace");
    }
}

/* ---- sysctls ------------------------------------------------------------------------------- */

/* engine: the spec's value where the spec was read (what the runtime applied), else the
 * engine's; kernel: the value read back. Two sources that set a name to different values,
 * or a kernel value other than the one set, are discrepancies (compared as values: runs of
 * whitespace alike). */
static void sysctls(rctx *x)
{
    json_t *map = json_object_get(x->c, "sysctls");
    const json_t *spec = json_object_get(x->v->spec, "sysctls");
    const json_t *kernel = json_object_get(x->v->kernel, "sysctls"), *v;
    const char *name;

    if (!json_is_object(map))
        return;
    json_object_foreach((json_t *)spec, name, v)
    {
        if (!json_object_get(map, name) &&
            json_object_set_new(map, name, json_pack("{s:n,s:n}", "engine", "kernel")) != 0)
            x->failed = 1;
    }
    json_t *e;
    json_object_foreach(map, name, e)
    {
        const json_t *eng = json_object_get(e, "engine"), *sp = json_object_get(spec, name);
        const json_t *k = json_object_get(kernel, name);
        const json_t *given = sp ? sp : eng;
        char field[320];

        snprintf(field, sizeof field, "containment.sysctls.%s", name);
        if (json_is_string(eng) && json_is_string(sp) &&
            !bx_sysctl_value_equal(json_string_value(eng), json_string_value(sp))) {
            json_t *vals[S_COUNT] = {(json_t *)eng, (json_t *)sp, NULL, NULL};
            note(x, field, vals, sp, reasons[S_SPEC]);
        }
        if (json_is_string(k) && json_is_string(given) &&
            !bx_sysctl_value_equal(json_string_value(k), json_string_value(given))) {
            json_t *vals[S_COUNT] = {(json_t *)eng, (json_t *)sp, NULL, (json_t *)k};
            note(x, field, vals, k, reasons[S_KERNEL]);
        }
        put(x, e, "engine", given ? given : json_null());
        put(x, e, "kernel", json_is_string(k) ? k : json_null());
    }
    source(x, "sysctls", kernel ? S_KERNEL : spec ? S_SPEC : S_ENGINE);
}

/* ---- the whole --------------------------------------------------------------------------------
 */

static int cmp_disc(const void *a, const void *b)
{
    return strcmp(str(*(json_t *const *)a, "field"), str(*(json_t *const *)b, "field"));
}

static int evidence(rctx *x, json_t *p, const bx_evidence *ev)
{
    json_t *evd = json_object_get(p, "evidence"), *all, *d;
    char kh[65] = "", sh[65] = "";
    int engine_only = strcmp(x->v->level, "engine") == 0, rc;
    size_t i;

    if (!json_is_object(evd))
        return bx_error_set(x->err, BX_EINVAL, "/predicate/evidence", "missing");
    if (!engine_only && ((rc = bxa_evidence_digest(ev, BXA_EV_KERNEL, kh, x->err)) != 0 ||
                         (rc = bxa_evidence_digest(ev, BXA_EV_SPEC, sh, x->err)) != 0))
        return rc;
    all = json_object_get(evd, "discrepancies");
    json_array_foreach(x->disc, i, d) json_array_append(all, d);
    bxa_sort_json(all, cmp_disc);
    if (json_object_set_new(evd, "level", json_string(x->v->level)) ||
        json_object_set_new(evd, "kernelSha256", kh[0] ? json_string(kh) : json_null()) ||
        json_object_set_new(evd, "ociSpecSha256", sh[0] ? json_string(sh) : json_null()) ||
        json_object_set_new(evd, "sandbox",
                            x->v->sandbox ? json_deep_copy(x->v->sandbox) : json_null()))
        return bx_error_set(x->err, BX_ENOMEM, NULL, "out of memory");
    return 0;
}

/* Every fact starts as the engine's; the table names them (schema/containment.c). */
static void defaults(rctx *x)
{
    for (const bx_containment_row *r = bx_containment; x->sources && r->name; r++)
        for (const bx_fact *f = r->facts; f->path; f++)
            if (f->source)
                source(x, f->source, S_ENGINE);
}

int bxa_reconcile(json_t *p, const bxa_views *v, const bx_evidence *ev, json_t *sources,
                  bx_error *err)
{
    rctx x = {.c = json_object_get(p, "containment"),
              .disc = json_array(),
              .sources = sources,
              .v = v,
              .err = err};
    int rc;

    if (!x.disc)
        return bx_error_set(err, BX_ENOMEM, NULL, "out of memory");
    if (!json_is_object(x.c)) {
        json_decref(x.disc);
        return bx_error_set(err, BX_EINVAL, "/predicate/containment", "missing");
    }
    defaults(&x);
    runtime(&x);
    network(&x);
    channels_network(&x);
    plain(&x, "rootfs", "readOnly", "rootfs.readOnly");
    capabilities(&x);
    plain(&x, "noNewPrivileges", NULL, "noNewPrivileges");
    seccomp(&x);
    user(&x);
    namespaces(&x);
    resources(&x);
    plain(&x, "devices", "allowAll", "devices.allowAll");
    plain(&x, "apparmor", "kernel", "apparmor.kernel");
    plain(&x, "maskedPaths", NULL, "maskedPaths");
    plain(&x, "readonlyPaths", NULL, "readonlyPaths");
    write_surface(&x);
    mounts(&x);
    sysctls(&x);
    processes(&x);
    rc = x.failed ? bx_error_set(err, BX_ENOMEM, NULL, "out of memory") : evidence(&x, p, ev);
    json_decref(x.disc);
    return rc;
}
