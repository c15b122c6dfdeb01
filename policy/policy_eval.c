/* SPDX-License-Identifier: Apache-2.0 */
/* The rules of policy.md over a verified statement: one finding per policy key that sets a
 * rule, in the order of policy.md's table, then the CIS checks (policy_cis.c) when a
 * benchmark is selected. Every observation comes from the predicate as recorded (the collector has
 * already chosen the most authoritative source of each field); null or absent gives
 * unknown. */
#include "policy_internal.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define LIST_MAX BXP_LIST_MAX
#define MSG_MAX BXP_MSG_MAX

static const json_t *pol(const bxp_ev *e, const char *path)
{
    static const char sec[] = "containment.";
    if (strncmp(path, sec, sizeof sec - 1) == 0)
        return e->pcont ? bx_json_dotted(e->pcont, path + sizeof sec - 1) : NULL;
    return bx_json_dotted(e->p->effective, path);
}

static const char *fmt_dur(int64_t s, char out[48])
{
    static const struct {
        int64_t secs;
        char unit;
    } units[] = {{86400, 'd'}, {3600, 'h'}, {60, 'm'}, {1, 's'}};
    size_t o = 0;
    int any = 0;
    if (s < 0) {
        s = -s;
        out[o++] = '-';
    }
    out[o] = '\0';
    for (size_t i = 0; i < 4; i++) {
        if (s >= units[i].secs || (!any && units[i].unit == 's')) {
            o += (size_t)snprintf(out + o, 48 - o, "%lld%c", (long long)(s / units[i].secs),
                                  units[i].unit);
            s %= units[i].secs;
            any = 1;
        }
    }
    return out;
}

static const char *fmt_size(int64_t b, char out[32])
{
    static const char *const units[] = {"Gi", "Mi", "Ki"};
    for (int i = 0; i < 3; i++) {
        int64_t m = (int64_t)1 << (10 * (3 - i));
        if (b >= m && b % m == 0) {
            snprintf(out, 32, "%lld%s", (long long)(b / m), units[i]);
            return out;
        }
    }
    snprintf(out, 32, "%lld bytes", (long long)b);
    return out;
}

static const char *fmt_cpus(int64_t nano, char out[32])
{
    int w = snprintf(out, 32, "%lld.%09lld", (long long)(nano / 1000000000),
                     (long long)(nano % 1000000000));
    while (w > 0 && out[w - 1] == '0')
        out[--w] = '\0';
    if (w > 0 && out[w - 1] == '.')
        out[--w] = '\0';
    return out;
}

static int in_list(const json_t *list, const char *s)
{
    const json_t *v;
    size_t i;
    json_array_foreach(list, i, v)
    {
        if (s && json_is_string(v) && strcmp(json_string_value(v), s) == 0)
            return 1;
    }
    return 0;
}

static int64_t time_of(const json_t *o, const char *path)
{
    const char *s = json_string_value(bxp_seen(o, path));
    int64_t t;
    bx_error err;
    /* to the second: session.startedAt carries the engine's fraction from v2 */
    if (!s || bx_time_parse(s, BX_TIME_FRACTION, &t, &err) != 0)
        return INT64_MIN;
    return t;
}

/* ==== certificate, collector, image, source ====================================== */

static void eval_age(const bxp_ev *e)
{
    const json_t *max = pol(e, "certificate.maxAge");
    const json_t *atv = bxp_seen(e->pred, "issuedAt");
    const char *at = json_string_value(atv);
    char a[48], m[48], k[48];
    int64_t t, age;

    if (!max || e->p->max_age < 0)
        return;
    t = time_of(e->pred, "issuedAt");
    snprintf(m, sizeof m, "%s", json_string_value(max));
    snprintf(k, sizeof k, "%s", json_string_value(pol(e, "certificate.clockSkew")));
    if (t == INT64_MIN) {
        bxp_add(e, "certificate.age", "unknown", bxp_copy(max),
                bxp_copy(bxp_seen(e->pred, "issuedAt")),
                "issuedAt not observed or invalid; policy allows an age of %s", m);
        return;
    }
    age = e->now - t;
    fmt_dur(age < 0 ? -age : age, a);
    if (age > e->p->max_age && age - e->p->max_age > e->p->clock_skew)
        bxp_add(e, "certificate.age", "fail", bxp_copy(max), bxp_copy(atv),
                "certificate issued %s ago (at %s); policy allows %s (+%s clock skew)", a, at, m,
                k);
    else
        bxp_add(e, "certificate.age", "pass", bxp_copy(max), bxp_copy(atv),
                "certificate issued %s %s (at %s); policy allows %s", a,
                age < 0 ? "in the future" : "ago", at, m);
}

/* issuedAt − session.startedAt: a certificate collected long after the start says little
 * about the start; one issued before it (beyond the clock skew) is not of this start. */
static void eval_collection_delay(const bxp_ev *e)
{
    const json_t *max = pol(e, "certificate.maxCollectionDelay");
    int64_t issued, started, limit = 0, delay;
    char d[48], m[48];
    bx_error err;

    if (!max || bx_duration_parse(json_string_value(max), &limit, &err) != 0)
        return;
    issued = time_of(e->pred, "issuedAt");
    started = time_of(e->pred, "session.startedAt");
    snprintf(m, sizeof m, "%s", json_string_value(max));
    if (issued == INT64_MIN || started == INT64_MIN) {
        bxp_add(e, "certificate.collection_delay", "unknown", bxp_copy(max), json_null(),
                "issuedAt or session.startedAt not observed; policy allows a delay of %s", m);
        return;
    }
    delay = issued - started;
    fmt_dur(delay, d);
    if (delay > limit)
        bxp_add(e, "certificate.collection_delay", "fail", bxp_copy(max), json_string(d),
                "collected %s after the session started; policy allows %s", d, m);
    else if (delay < -e->p->clock_skew)
        bxp_add(e, "certificate.collection_delay", "fail", bxp_copy(max), json_string(d),
                "issued %s before the session started: not a certificate of this start", d + 1);
    else
        bxp_add(e, "certificate.collection_delay", "pass", bxp_copy(max), json_string(d),
                "collected %s after the session started; policy allows %s", d, m);
}

static void eval_collector_version(const bxp_ev *e)
{
    const json_t *min = pol(e, "collector.minVersion");
    const json_t *verv = bxp_seen(e->pred, "collector.version");
    const char *ver = json_string_value(verv);
    long long want[4], have[4];

    if (!min || bxp_semver_parse(json_string_value(min), want) != 0)
        return;
    if (!ver || bxp_semver_parse(ver, have) != 0) {
        bxp_add(e, "collector.version", "unknown", bxp_copy(min),
                bxp_copy(bxp_seen(e->pred, "collector.version")),
                "collector version not observed or not x.y.z; policy requires at least %s",
                json_string_value(min));
        return;
    }
    bxp_add(e, "collector.version", bxp_semver_cmp(have, want) >= 0 ? "pass" : "fail",
            bxp_copy(min), bxp_copy(verv), "collector version %s; policy requires at least %s", ver,
            json_string_value(min));
}

static void eval_image(const bxp_ev *e)
{
    const json_t *pins = pol(e, "images.pins"), *idv = bxp_seen(e->pred, "image.id");
    const char *id = json_string_value(idv);

    if (!pins)
        return;
    if (!id)
        bxp_add(e, "image.allowed", "unknown", bxp_copy(pins), json_null(),
                "image ID not observed; policy pins %zu image(s)", json_array_size(pins));
    else if (in_list(pins, id))
        bxp_add(e, "image.allowed", "pass", bxp_copy(pins), bxp_copy(idv), "image %s is pinned",
                id);
    else
        bxp_add(e, "image.allowed", "fail", bxp_copy(pins), bxp_copy(idv),
                "image %s is not in images.pins (%zu pinned)", id, json_array_size(pins));
}

static void eval_collector_pin(const bxp_ev *e)
{
    const json_t *pins = pol(e, "images.pins"), *idv = bxp_seen(e->pred, "image.id");
    const json_t *pinv = bxp_seen(e->pred, "image.pin");
    const char *id = json_string_value(idv), *pin = json_string_value(pinv);

    if (!json_is_true(pol(e, "images.requireCollectorPin")))
        return;
    if (!id)
        bxp_add(e, "image.collector_pin", "unknown", json_true(),
                bxp_copy(bxp_seen(e->pred, "image.pin")), "image ID not observed");
    else if (!pin)
        bxp_add(e, "image.collector_pin", "fail", bxp_copy(idv), json_null(),
                "the collector was not told which image to expect (collect --expect-image)");
    else if (strcmp(pin, id) != 0)
        bxp_add(e, "image.collector_pin", "fail", bxp_copy(idv), bxp_copy(pinv),
                "the collector pinned %s but the session runs %s", pin, id);
    else if (pins && !in_list(pins, pin))
        bxp_add(e, "image.collector_pin", "fail", bxp_copy(pins), bxp_copy(pinv),
                "the collector pinned %s, which is not in images.pins", pin);
    else
        bxp_add(e, "image.collector_pin", "pass", bxp_copy(idv), bxp_copy(pinv),
                "the collector enforced the image %s", pin);
}

/* The gitCommit of the subject named "source", or NULL. */
static const char *source_commit(const json_t *st)
{
    const json_t *s;
    size_t i;
    json_array_foreach(json_object_get(st, "subject"), i, s)
    {
        const char *name = json_string_value(json_object_get(s, "name"));
        const char *c =
            json_string_value(json_object_get(json_object_get(s, "digest"), "gitCommit"));
        if (name && strcmp(name, "source") == 0 && c)
            return c;
    }
    return NULL;
}

static void eval_source(const bxp_ev *e)
{
    const char *commit = source_commit(e->st);
    const json_t *dirty = bxp_seen(e->pred, "source.dirty");
    json_t *obs;

    if (!json_is_true(pol(e, "source.required")))
        return;
    obs = json_pack("{s:s?, s:O?}", "gitCommit", commit, "dirty", (json_t *)dirty);
    if (!commit)
        bxp_add(e, "source.required", "fail", json_true(), obs,
                "no source subject: the collector was not given the session's source revision");
    else if (!json_is_boolean(dirty))
        bxp_add(e, "source.required", "unknown", json_true(), obs,
                "source %s, but whether the tree was clean was not observed", commit);
    else if (json_is_true(dirty))
        bxp_add(e, "source.required", "fail", json_true(), obs,
                "source %s, with uncommitted changes in the tree", commit);
    else
        bxp_add(e, "source.required", "pass", json_true(), obs, "source %s, clean tree", commit);
}

/* ==== network ============================================================== */

/* A user-defined network: not the engine's none, host, bridge (default) or container:<id>. */
static int is_named_network(const char *mode)
{
    return strcmp(mode, "none") != 0 && strcmp(mode, "host") != 0 && strcmp(mode, "bridge") != 0 &&
           strcmp(mode, "default") != 0 && strncmp(mode, "container:", 10) != 0;
}

static int is_network_keyword(const char *a)
{
    for (const char *const *k = bxp_network_keywords; *k; k++)
        if (strcmp(*k, a) == 0)
            return 1;
    return 0;
}

/* Does keyword k admit mode? 1, 0, or -1 when only the unobserved internal flag could say. */
static int keyword_admits(const char *k, const char *mode, const json_t *internal)
{
    if (!strcmp(k, "none") || !strcmp(k, "host"))
        return strcmp(k, mode) == 0;
    if (!strcmp(k, "bridge"))
        return !strcmp(mode, "bridge") || !strcmp(mode, "default");
    if (!strcmp(k, "container"))
        return strncmp(mode, "container:", 10) == 0 && mode[10] != '\0';
    /* internal: a user-defined network whose internal flag is true, whatever its name */
    if (!is_named_network(mode))
        return 0;
    return json_is_true(internal) ? 1 : json_is_boolean(internal) ? 0 : -1;
}

/* "pass", "fail", or "unknown" when only the unobserved internal flag could decide. The
 * list form: a keyword means only the keyword, anything else is a network name; the map
 * form: modes (keywords) and names (network names, a keyword's too). A name never
 * satisfies a keyword, nor a keyword a name. */
static const char *network_status(const json_t *allowed, const char *mode, const json_t *internal)
{
    const char *status = "fail";
    const json_t *modes = json_is_array(allowed) ? allowed : json_object_get(allowed, "modes");
    const json_t *names = json_object_get(allowed, "names"), *v;
    size_t i;
    json_array_foreach(modes, i, v)
    {
        const char *a = json_string_value(v);
        int r;
        if (!a)
            continue;
        if (!is_network_keyword(a)) { /* the list form's network name */
            if (is_named_network(mode) && strcmp(a, mode) == 0)
                return "pass";
            continue;
        }
        if ((r = keyword_admits(a, mode, internal)) == 1)
            return "pass";
        if (r < 0)
            status = "unknown";
    }
    json_array_foreach(names, i, v)
    {
        const char *a = json_string_value(v);
        if (a && is_named_network(mode) && strcmp(a, mode) == 0)
            return "pass";
    }
    return status;
}

/* The allowed networks in words: "none, internal, name internal". */
static const char *network_words(const json_t *allowed, char *out, size_t n)
{
    char names[LIST_MAX];
    if (json_is_array(allowed))
        return bxp_join(allowed, out, n);
    out[0] = names[0] = '\0';
    if (json_array_size(json_object_get(allowed, "modes")))
        bxp_join(json_object_get(allowed, "modes"), out, n);
    if (json_array_size(json_object_get(allowed, "names")))
        bxp_join(json_object_get(allowed, "names"), names, sizeof names);
    if (*names)
        bxp_append(out, n, "%sthe network(s) %s", *out ? ", " : "", names);
    if (!*out)
        bxp_append(out, n, "no network");
    return out;
}

static void eval_network(const bxp_ev *e)
{
    const json_t *allowed = pol(e, "containment.network");
    const json_t *internal = bxp_seen(e->cont, "network.internal");
    const json_t *modev = bxp_seen(e->cont, "network.mode");
    const char *mode = json_string_value(modev);
    char list[LIST_MAX];

    if (!allowed)
        return;
    network_words(allowed, list, sizeof list);
    if (!mode) {
        bxp_add(e, "containment.network", "unknown", bxp_copy(allowed), json_null(),
                "network mode not observed; policy allows %s", list);
        return;
    }
    bxp_add(e, "containment.network", network_status(allowed, mode, internal), bxp_copy(allowed),
            bxp_copy(modev), "network mode is %s%s; policy allows %s", mode,
            json_is_true(internal)      ? " (internal)"
            : json_is_boolean(internal) ? ""
            : is_named_network(mode)    ? " (internal not observed)"
                                        : "",
            list);
}

static void eval_ports(const bxp_ev *e)
{
    const json_t *allow = pol(e, "containment.publishedPorts");
    const json_t *ports = bxp_seen(e->cont, "network.ports"), *p;
    char msg[MSG_MAX] = "", one[96];
    size_t i;

    if (!allow)
        return;
    if (!json_is_array(ports)) {
        bxp_add(e, "containment.ports", "unknown", bxp_copy(allow), bxp_copy(ports),
                "published ports not observed");
        return;
    }
    if (json_is_true(allow) || json_array_size(ports) == 0) {
        bxp_add(e, "containment.ports", "pass", bxp_copy(allow), bxp_copy(ports),
                "%zu port(s) published%s", json_array_size(ports),
                json_is_true(allow) ? "; policy allows published ports" : "");
        return;
    }
    json_array_foreach(ports, i, p)
        bxp_append(msg, sizeof msg, "%s%s", i ? ", " : "", bxp_port_text(p, one, sizeof one));
    bxp_add(e, "containment.ports", "fail", bxp_copy(allow), bxp_copy(ports),
            "ports published on the host: %s; policy allows none", msg);
}

/* ==== rootfs, no-new-privileges, privileged ============================ */

static const struct {
    const char *rule, *key, *path, *subject;
    int strict;           /* the policy value that constrains (the other allows either) */
    const char *on, *off; /* the observed value in words */
} bool_rules[] = {
    {"containment.rootfs", "containment.readOnlyRootfs", "rootfs.readOnly", "rootfs", 1,
     "read-only", "writable"},
    {"containment.no_new_privileges", "containment.noNewPrivileges", "noNewPrivileges",
     "no-new-privileges", 1, "on", "off"},
    {"containment.privileged", "containment.privileged", "privileged", "session", 0, "privileged",
     "not privileged"},
};

static void eval_bool(const bxp_ev *e, size_t r)
{
    const json_t *p = pol(e, bool_rules[r].key);
    const json_t *o = bxp_seen(e->cont, bool_rules[r].path);
    const char *want = bool_rules[r].strict ? bool_rules[r].on : bool_rules[r].off;
    int constrains;

    if (!p)
        return;
    constrains = json_is_true(p) == bool_rules[r].strict;
    if (!json_is_boolean(o)) {
        bxp_add(e, bool_rules[r].rule, "unknown", bxp_copy(p), bxp_copy(o),
                "%s not observed; policy %s%s", bool_rules[r].subject,
                constrains ? "requires " : "allows either", constrains ? want : "");
        return;
    }
    bxp_add(e, bool_rules[r].rule,
            !constrains || json_is_true(o) == bool_rules[r].strict ? "pass" : "fail", bxp_copy(p),
            bxp_copy(o), "%s is %s; policy %s%s", bool_rules[r].subject,
            json_is_true(o) ? bool_rules[r].on : bool_rules[r].off,
            constrains ? "requires " : "allows either", constrains ? want : "");
}

/* ==== capabilities, seccomp, LSMs, runtime, user ======================== */

static void eval_caps(const bxp_ev *e)
{
    const json_t *p = pol(e, "containment.capabilities");
    const json_t *allow = json_object_get(p, "allow"), *v;
    json_t *held = NULL, *beyond = NULL, *empty = NULL;
    char a[LIST_MAX], b[LIST_MAX];
    size_t i;

    if (!p)
        return;
    if (!allow) /* capabilities: {} allows none */
        allow = empty = json_array();
    bxp_join(allow, a, sizeof a);
    held = bx_caps_held(bxp_seen(e->cont, "capabilities"), bxp_seen(e->cont, "noNewPrivileges"));
    if (!held) {
        bxp_add(e, "containment.capabilities", "unknown", bxp_copy(allow), json_null(),
                "capabilities not observed; policy allows %s", a);
        goto out;
    }
    beyond = json_array();
    json_array_foreach(held, i, v)
    {
        if (!json_is_string(v) || !in_list(allow, json_string_value(v)))
            json_array_append_new(beyond, bxp_copy(v));
    }
    if (json_array_size(beyond))
        bxp_add(e, "containment.capabilities", "fail", bxp_copy(allow), held,
                "capabilities beyond those allowed: %s; policy allows %s",
                bxp_join(beyond, b, sizeof b), a);
    else
        bxp_add(e, "containment.capabilities", "pass", bxp_copy(allow), held,
                "capabilities held: %s; policy allows %s", bxp_join(held, b, sizeof b), a);
    held = NULL; /* stolen */
out:
    json_decref(held);
    json_decref(beyond);
    json_decref(empty);
}

/* disabled always fails; "default" admits the engine's default profile; a sha256: entry
 * admits the profile whose JCS hash it is (unknown while the hash is not observed). */
static void eval_seccomp(const bxp_ev *e)
{
    const json_t *allow = json_object_get(pol(e, "containment.seccomp"), "allow");
    const json_t *sc = bxp_seen(e->cont, "seccomp"), *v;
    const char *mode = json_string_value(bxp_seen(sc, "mode"));
    const char *prof = json_string_value(bxp_seen(sc, "profile"));
    const char *sha = json_string_value(bxp_seen(sc, "profileSha256"));
    char a[LIST_MAX], pin[80];
    int pinned = 0;
    size_t i;

    if (!allow) /* seccomp: {deny, programs} alone judges by meaning (policy_seccomp.c) */
        return;
    bxp_join(allow, a, sizeof a);
    json_array_foreach(allow, i, v) pinned |= strncmp(json_string_value(v), "sha256:", 7) == 0;
    snprintf(pin, sizeof pin, "sha256:%s", sha ? sha : "");
    if (!mode) {
        bxp_add(e, "containment.seccomp", "unknown", bxp_copy(allow), bxp_copy(sc),
                "seccomp mode not observed; policy allows %s", a);
    } else if (strcmp(mode, "filter") != 0) {
        bxp_add(e, "containment.seccomp", "fail", bxp_copy(allow), bxp_copy(sc),
                "seccomp is %s; policy allows %s", mode, a);
    } else if ((sha && in_list(allow, pin)) ||
               (prof && strcmp(prof, "default") == 0 && in_list(allow, "default"))) {
        bxp_add(e, "containment.seccomp", "pass", bxp_copy(allow), bxp_copy(sc),
                "seccomp filter, profile %s%s%s; policy allows %s", prof ? prof : "?",
                sha ? " " : "", sha ? pin : "", a);
    } else if (!sha && pinned) {
        bxp_add(e, "containment.seccomp", "unknown", bxp_copy(allow), bxp_copy(sc),
                "seccomp filter, profile %s, its hash not observed; policy allows %s",
                prof ? prof : "not observed", a);
    } else if (!prof && !sha) {
        bxp_add(e, "containment.seccomp", "unknown", bxp_copy(allow), bxp_copy(sc),
                "seccomp filter, profile not observed; policy allows %s", a);
    } else {
        bxp_add(e, "containment.seccomp", "fail", bxp_copy(allow), bxp_copy(sc),
                "seccomp filter, profile %s%s%s; policy allows %s", prof ? prof : "?",
                sha ? " " : "", sha ? pin : "", a);
    }
}

/* AppArmor and SELinux: n/a on a host without the LSM; required wants a confining profile
 * or label (not unconfined, not disabled). */
/* apparmor: enforced: where this host has AppArmor (the kernel's word, else the engine's),
 * every task of the session confined by a profile in enforce mode, as the kernel says
 * (apparmor.kernel, v2). */
static void eval_aa_enforced(const bxp_ev *e, const char *rule, const json_t *p, const json_t *lsm)
{
    const json_t *kern = bxp_seen(lsm, "kernel"), *host = bxp_seen(kern, "hostEnabled");
    const json_t *avail = bxp_seen(lsm, "available"), *enf = bxp_seen(kern, "enforced");
    int has = json_is_boolean(host)    ? json_is_true(host)
              : json_is_boolean(avail) ? json_is_true(avail)
                                       : -1;
    char labels[LIST_MAX];

    bxp_join(bxp_seen(kern, "labels"), labels, sizeof labels);
    if (has < 0)
        bxp_add(e, rule, "unknown", bxp_copy(p), bxp_copy(lsm),
                "whether the host has AppArmor was not observed");
    else if (!has)
        bxp_add(e, rule, "n/a", bxp_copy(p), bxp_copy(lsm), "the host has no AppArmor");
    else if (!json_is_object(kern))
        bxp_add(e, rule, "unknown", bxp_copy(p), bxp_copy(lsm),
                "AppArmor as the kernel applies it was not read (level engine, runsc, or a "
                "certificate that does not carry it); policy requires enforcement");
    else if (!json_is_boolean(enf))
        bxp_add(e, rule, "unknown", bxp_copy(p), bxp_copy(lsm),
                "a task's AppArmor label was not read; policy requires enforcement");
    else
        bxp_add(e, rule, json_is_true(enf) ? "pass" : "fail", bxp_copy(p), bxp_copy(lsm),
                "%s: AppArmor labels %s; policy requires every task confined by a profile in "
                "enforce mode",
                json_is_true(enf) ? "enforced" : "not enforced", labels[0] ? labels : "none");
}

static void eval_lsm(const bxp_ev *e, const char *rule, const char *key, const char *field,
                     const char *member, const char *name)
{
    const json_t *p = pol(e, key), *lsm = bxp_seen(e->cont, field);
    const json_t *avail = bxp_seen(lsm, "available");
    const char *v = json_string_value(bxp_seen(lsm, member));
    int required;
    int confined = bxp_lsm_confines(member, v);

    if (!p)
        return;
    if (strcmp(json_string_value(p), "enforced") == 0) {
        eval_aa_enforced(e, rule, p, lsm);
        return;
    }
    required = strcmp(json_string_value(p), "required") == 0;
    if (!json_is_boolean(avail))
        bxp_add(e, rule, "unknown", bxp_copy(p), bxp_copy(lsm),
                "whether the host has %s was not observed", name);
    else if (!json_is_true(avail))
        bxp_add(e, rule, "n/a", bxp_copy(p), bxp_copy(lsm), "the host has no %s", name);
    else if (!required)
        bxp_add(e, rule, "pass", bxp_copy(p), bxp_copy(lsm), "%s %s %s; policy allows any", name,
                member, v ? v : "none");
    else if (confined < 0)
        bxp_add(e, rule, "unknown", bxp_copy(p), bxp_copy(lsm),
                "%s %s %s has no type to judge; policy requires one that confines", name, member,
                v);
    else
        bxp_add(e, rule, confined ? "pass" : "fail", bxp_copy(p), bxp_copy(lsm),
                "%s %s %s; policy requires one that confines", name, member,
                v ? v : "none (disabled)");
}

static void eval_runtime(const bxp_ev *e)
{
    const json_t *allowed = pol(e, "containment.runtimes");
    const json_t *namev = bxp_seen(e->cont, "runtime.name");
    const char *name = json_string_value(namev);
    char list[LIST_MAX];

    if (!allowed)
        return;
    bxp_join(allowed, list, sizeof list);
    if (!name)
        bxp_add(e, "containment.runtime", "unknown", bxp_copy(allowed), json_null(),
                "runtime not observed; policy allows %s", list);
    else
        bxp_add(e, "containment.runtime", in_list(allowed, name) ? "pass" : "fail",
                bxp_copy(allowed), bxp_copy(namev), "runtime %s; policy allows %s", name, list);
}

static int uid_allowed(const json_t *uids, long long uid)
{
    const json_t *v;
    size_t i;
    json_array_foreach(uids, i, v)
    {
        if (json_integer_value(v) == uid)
            return 1;
    }
    return 0;
}

static void eval_user(const bxp_ev *e)
{
    const json_t *p = pol(e, "containment.user"), *user = bxp_seen(e->cont, "user");
    const json_t *uids = json_object_get(p, "uids");
    int nonroot = json_is_true(json_object_get(p, "nonRoot"));
    char who[160];
    bxp_user u;

    if (!p)
        return;
    if (bxp_user_read(user, &u) != BXP_YES) {
        bxp_add(e, "containment.user", "unknown", bxp_copy(p), bxp_copy(user), "user not observed");
        return;
    }
    bxp_user_text(user, &u, who, sizeof who);
    if ((nonroot || uids) && u.uid_root) {
        bxp_add(e, "containment.user", "fail", bxp_copy(p), bxp_copy(user), "%s runs as root", who);
        return;
    }
    if (nonroot && u.gid_root) {
        bxp_add(e, "containment.user", "fail", bxp_copy(p), bxp_copy(user),
                "%s runs with group root (gid 0)", who);
        return;
    }
    if (uids) {
        const json_t *v;
        size_t i;
        for (i = 0; u.have_uid && i < u.nuids; i++) {
            if (!uid_allowed(uids, u.uids[i])) {
                bxp_add(e, "containment.user", "fail", bxp_copy(p), bxp_copy(user),
                        "%s: uid %lld is not in user.uids", who, u.uids[i]);
                return;
            }
        }
        json_array_foreach(u.every_uid, i, v)
        {
            if (!uid_allowed(uids, json_integer_value(v))) {
                bxp_add(e, "containment.user", "fail", bxp_copy(p), bxp_copy(user),
                        "%s: a task's uid %lld is not in user.uids", who,
                        (long long)json_integer_value(v));
                return;
            }
        }
    }
    if ((nonroot || uids) && !u.have_uid)
        bxp_add(e, "containment.user", "unknown", bxp_copy(p), bxp_copy(user),
                "%s: its uid was not observed", who);
    else if (nonroot && !u.have_gid)
        bxp_add(e, "containment.user", "unknown", bxp_copy(p), bxp_copy(user),
                "%s: its gid and groups were not observed", who);
    else
        bxp_add(e, "containment.user", "pass", bxp_copy(p), bxp_copy(user), "%s%s", who,
                nonroot || uids ? ", not root" : "; policy allows any user");
}

/* ==== namespaces ========================================================== */

static const char *const ns_names[] = {"pid", "ipc", "uts", "net", "user", "cgroup"};

static void eval_namespaces(const bxp_ev *e)
{
    const json_t *allowed = json_object_get(pol(e, "containment.namespaces"), "host");
    json_t *obs = NULL;
    char bad[LIST_MAX] = "", unseen[LIST_MAX] = "", list[LIST_MAX];

    if (!pol(e, "containment.namespaces"))
        return;
    obs = json_object();
    for (size_t i = 0; i < 6; i++) {
        const json_t *m = bxp_ns_mode_value(e->cont, ns_names[i]);
        const char *mode = json_string_value(m);
        json_object_set_new_nocheck(obs, ns_names[i], bxp_copy(m));
        if (!mode)
            bxp_append(unseen, sizeof unseen, "%s%s", *unseen ? ", " : "", ns_names[i]);
        else if (bxp_ns_is_host(ns_names[i], mode) && !in_list(allowed, ns_names[i]))
            bxp_append(bad, sizeof bad, "%s%s", *bad ? ", " : "", ns_names[i]);
    }
    bxp_join(allowed, list, sizeof list);
    if (*bad)
        bxp_add(e, "containment.namespaces", "fail", bxp_copy(allowed), obs,
                "host namespaces shared: %s; policy allows the host's %s", bad, list);
    else if (*unseen)
        bxp_add(e, "containment.namespaces", "unknown", bxp_copy(allowed), obs,
                "namespaces not observed: %s; policy allows the host's %s", unseen, list);
    else
        bxp_add(e, "containment.namespaces", "pass", bxp_copy(allowed), obs,
                "no namespace shared with the host beyond those allowed (%s)", list);
}

static void eval_userns(const bxp_ev *e)
{
    const json_t *p = pol(e, "containment.userns");
    const json_t *modev = bxp_ns_mode_value(e->cont, "user");
    const char *mode = json_string_value(modev);
    int remapped;

    if (!p)
        return;
    remapped = strcmp(json_string_value(p), "remapped") == 0;
    if (!mode)
        bxp_add(e, "containment.userns", "unknown", bxp_copy(p), json_null(),
                "user namespace not observed");
    else
        bxp_add(e, "containment.userns", remapped && bxp_ns_is_host("user", mode) ? "fail" : "pass",
                bxp_copy(p), bxp_copy(modev), "user namespace %s%s",
                bxp_ns_is_host("user", mode) ? "is the host's" : mode,
                remapped ? "; policy requires a remapped one" : "; policy allows any");
}

/* ==== resources ============================================================ */

static void eval_limit(const bxp_ev *e, const char *rule, const char *key, const char *field,
                       const char *what)
{
    const json_t *p = pol(e, key), *res = bxp_seen(e->cont, "resources");
    const json_t *v = bxp_seen(res, field);
    int64_t max = 0;
    char m[32], h[32];

    if (!p)
        return;
    if (json_is_string(p))
        bx_size_parse(json_string_value(p), &max);
    else
        max = json_integer_value(p);
    if (json_is_string(p))
        fmt_size(max, m);
    else
        snprintf(m, sizeof m, "%lld", (long long)max);
    if (!json_is_object(res))
        bxp_add(e, rule, "unknown", bxp_copy(p), json_null(), "resources not observed");
    else if (!json_is_integer(v))
        bxp_add(e, rule, "fail", bxp_copy(p), json_null(),
                "no %s limit (unlimited); policy requires at most %s", what, m);
    else {
        int64_t x = json_integer_value(v);
        if (json_is_string(p))
            fmt_size(x, h);
        else
            snprintf(h, sizeof h, "%lld", (long long)x);
        bxp_add(e, rule, x <= max ? "pass" : "fail", bxp_copy(p), bxp_copy(v),
                "%s limit %s; policy allows at most %s", what, h, m);
    }
}

static void eval_cpus(const bxp_ev *e)
{
    const json_t *p = pol(e, "containment.resources.cpusMax"),
                 *res = bxp_seen(e->cont, "resources");
    int64_t max = 0, have;
    char m[32], h[32];

    if (!p || bx_cpus_parse(json_string_value(p), &max) != 0)
        return;
    fmt_cpus(max, m);
    if (!json_is_object(res)) {
        bxp_add(e, "containment.resources.cpus", "unknown", bxp_copy(p), json_null(),
                "resources not observed");
        return;
    }
    have = bx_cpu_limit(res);
    if (have < 0)
        bxp_add(e, "containment.resources.cpus", "fail", bxp_copy(p), json_null(),
                "no CPU limit (unlimited); policy requires at most %s CPU(s)", m);
    else
        bxp_add(e, "containment.resources.cpus", have <= max ? "pass" : "fail", bxp_copy(p),
                json_integer(have), "CPU limit %s CPU(s); policy allows at most %s",
                fmt_cpus(have, h), m);
}

/* ==== write surface, mounts, devices, cgroup parent, restart =================== */

/* Why one writeSurface entry is refused ("" when a writable entry admits it). wpaths, when
 * not NULL, holds the path of each writable entry. */
static void surface_verdict(const json_t *writable, const char *const *wpaths, const json_t *s,
                            char *why, size_t n)
{
    const char *path = json_string_value(json_object_get(s, "path"));
    const char *kind = json_string_value(json_object_get(s, "kind"));
    const json_t *w;
    size_t i;
    int said = 0; /* why holds the reason a matching entry refused it */

    if (!path || !kind) {
        snprintf(why, n, "%s (%s) is not writable by policy", path ? path : "?", kind ? kind : "?");
        return;
    }
    json_array_foreach(writable, i, w)
    {
        const char *max, *fs;
        const json_t *size;
        int64_t limit = 0;
        char a[32], b[32];
        const char *wp = wpaths ? wpaths[i] : json_string_value(json_object_get(w, "path"));
        if (strcmp(wp, path) != 0 || !in_list(json_object_get(w, "kinds"), kind))
            continue;
        max = json_string_value(json_object_get(w, "maxSize"));
        fs = json_string_value(json_object_get(s, "fsType"));
        size = json_object_get(s, "sizeBytes");
        if (!max || !(strcmp(kind, "tmpfs") == 0 || (fs && strcmp(fs, "tmpfs") == 0)) ||
            bx_size_parse(max, &limit) != 0) {
            why[0] = '\0';
            return;
        }
        if (json_is_integer(size) && json_integer_value(size) <= limit) {
            why[0] = '\0';
            return;
        }
        if (json_is_integer(size))
            snprintf(why, n, "%s (%s) is %s, over %s", path, kind,
                     fmt_size(json_integer_value(size), a), fmt_size(limit, b));
        else
            snprintf(why, n, "%s (%s) is a tmpfs of unknown size, policy allows %s", path, kind,
                     fmt_size(limit, b));
        said = 1;
    }
    if (!said)
        snprintf(why, n, "%s (%s) is not writable by policy", path, kind);
}

static void eval_write_surface(const bxp_ev *e)
{
    const json_t *writable = pol(e, "containment.writable");
    const json_t *ws = bxp_seen(e->cont, "writeSurface"), *s, *w;
    const char *wpaths[32]; /* each writable entry's path, looked up once (when they fit) */
    size_t nw = json_array_size(writable);
    char msg[MSG_MAX] = "", why[256];
    size_t i, bad = 0, odd = 0;
    json_t *refused = NULL;

    if (!writable)
        return;
    if (!json_is_array(ws)) {
        bxp_add(e, "containment.write_surface", "unknown", bxp_copy(writable), json_null(),
                "write surface not observed");
        return;
    }
    json_array_foreach(writable, i, w)
    {
        if (nw <= sizeof wpaths / sizeof *wpaths)
            wpaths[i] = json_string_value(json_object_get(w, "path"));
    }
    refused = json_array();
    json_array_foreach(ws, i, s)
    {
        const char *sp = json_string_value(json_object_get(s, "path"));
        if (sp && !bx_path_canonical(sp)) { /* a v1 certificate's: not comparable */
            odd++;
            continue;
        }
        surface_verdict(writable, nw <= sizeof wpaths / sizeof *wpaths ? wpaths : NULL, s, why,
                        sizeof why);
        if (*why) {
            bxp_append(msg, sizeof msg, "%s%s", bad ? "; " : "", why);
            json_array_append_new(refused, bxp_copy(s));
            bad++;
        }
    }
    if (bad)
        bxp_add(e, "containment.write_surface", "fail", bxp_copy(writable),
                bxp_observed_list(refused, ws), "%zu of %zu writable places refused: %s", bad,
                json_array_size(ws), msg);
    else if (odd)
        bxp_add(e, "containment.write_surface", "unknown", bxp_copy(writable),
                bxp_observed_list(refused, ws),
                "%zu writable place(s) with a path not in canonical form", odd);
    else
        bxp_add(e, "containment.write_surface", "pass", bxp_copy(writable),
                bxp_observed_list(refused, ws), "all %zu writable places are allowed",
                json_array_size(ws));
}

static void eval_mounts(const bxp_ev *e)
{
    const json_t *forbidden = pol(e, "containment.forbiddenMounts");
    const json_t *mounts = bxp_seen(e->cont, "mounts"), *m, *f;
    char msg[MSG_MAX] = "", unseen[MSG_MAX] = "";
    json_t *bad = NULL;
    size_t i, j;

    if (!forbidden)
        return;
    if (!json_is_array(mounts)) {
        bxp_add(e, "containment.mounts", "unknown", bxp_copy(forbidden), json_null(),
                "mounts not observed");
        return;
    }
    bad = json_array();
    json_array_foreach(mounts, i, m)
    {
        const char *dest = json_string_value(json_object_get(m, "destination"));
        const json_t *ro = json_object_get(m, "readOnly");
        const char *src = json_string_value(json_object_get(m, "source"));
        if (!src || !bxp_mount_canonical(m)) { /* not observed, or not comparable */
            bxp_append(unseen, sizeof unseen, "%s%s%s", *unseen ? ", " : "", dest ? dest : "?",
                       src && !bxp_mount_canonical(m) ? " (a path not in canonical form)" : "");
            continue;
        }
        json_array_foreach(forbidden, j, f)
        {
            const char *fsrc = json_string_value(json_object_get(f, "source"));
            int rw_only = strcmp(json_string_value(json_object_get(f, "access")), "rw") == 0;
            if (!bxp_mount_hits(m, fsrc))
                continue;
            if (rw_only && !json_is_boolean(ro)) {
                bxp_append(unseen, sizeof unseen, "%s%s", *unseen ? ", " : "", dest ? dest : "?");
                continue;
            }
            if (rw_only && json_is_true(ro))
                continue;
            bxp_append(msg, sizeof msg, "%s%s on %s (forbidden: %s, %s)", *msg ? "; " : "", src,
                       dest ? dest : "?", fsrc, rw_only ? "read-write" : "any access");
            json_array_append_new(bad, bxp_copy(m));
            break;
        }
    }
    if (*msg)
        bxp_add(e, "containment.mounts", "fail", bxp_copy(forbidden),
                bxp_observed_list(bad, mounts), "forbidden mounts: %s", msg);
    else if (*unseen)
        bxp_add(e, "containment.mounts", "unknown", bxp_copy(forbidden),
                bxp_observed_list(bad, mounts), "source or access of mounts not observed: %s",
                unseen);
    else
        bxp_add(e, "containment.mounts", "pass", bxp_copy(forbidden),
                bxp_observed_list(bad, mounts), "none of %zu mount(s) is forbidden",
                json_array_size(mounts));
}

static void eval_propagation(const bxp_ev *e)
{
    const json_t *p = pol(e, "containment.mountPropagationShared");
    const json_t *mounts = bxp_seen(e->cont, "mounts");
    char msg[MSG_MAX] = "";
    json_t *bad;
    int unseen;

    if (!p)
        return;
    if (!json_is_array(mounts)) {
        bxp_add(e, "containment.propagation", "unknown", bxp_copy(p), json_null(),
                "mounts not observed");
        return;
    }
    bad = json_array();
    unseen = bxp_shared_mounts(mounts, msg, sizeof msg, bad);
    if (json_is_true(p))
        bxp_add(e, "containment.propagation", "pass", bxp_copy(p), bxp_observed_list(bad, mounts),
                "policy allows shared mount propagation");
    else if (*msg)
        bxp_add(e, "containment.propagation", "fail", bxp_copy(p), bxp_observed_list(bad, mounts),
                "mounts with shared propagation: %s", msg);
    else if (unseen)
        bxp_add(e, "containment.propagation", "unknown", bxp_copy(p),
                bxp_observed_list(bad, mounts), "propagation of a mount not observed");
    else
        bxp_add(e, "containment.propagation", "pass", bxp_copy(p), bxp_observed_list(bad, mounts),
                "no mount with shared propagation");
}

static void eval_devices(const bxp_ev *e)
{
    const json_t *p = pol(e, "containment.devices"), *dev = bxp_seen(e->cont, "devices");
    char msg[MSG_MAX] = "", why[MSG_MAX] = "";
    int r, a;

    if (!p)
        return;
    r = bxp_host_devices(dev, msg, sizeof msg);
    if (strcmp(json_string_value(p), "any") == 0 && r >= 0) {
        bxp_add(e, "containment.devices", "pass", bxp_copy(p), bxp_copy(dev),
                "policy allows any device");
        return;
    }
    /* v3: device nodes anywhere and mknod */
    a = bxp_devices_anywhere(e->cont, e->version, msg, sizeof msg, why, sizeof why);
    if (r > 0 || a > 0)
        bxp_add(e, "containment.devices", "fail", bxp_copy(p), bxp_copy(dev), "host devices: %s",
                msg);
    else if (r < 0)
        bxp_add(e, "containment.devices", "unknown", bxp_copy(p), bxp_copy(dev),
                "devices not observed");
    else if (a < 0)
        bxp_add(e, "containment.devices", "unknown", bxp_copy(p), bxp_copy(dev), "%s", why);
    else
        bxp_add(e, "containment.devices", "pass", bxp_copy(p), bxp_copy(dev), "no host device");
}

static void eval_cgroup_parent(const bxp_ev *e)
{
    const json_t *p = pol(e, "containment.cgroupParentDefault");
    const json_t *parentv = bxp_seen(e->cont, "resources.cgroupParent");
    const char *parent = json_string_value(parentv);

    if (!p)
        return;
    if (!parent)
        bxp_add(e, "containment.cgroup_parent", "unknown", bxp_copy(p), json_null(),
                "cgroup parent not observed");
    else if (json_is_false(p) || !*parent)
        bxp_add(e, "containment.cgroup_parent", "pass", bxp_copy(p), bxp_copy(parentv),
                "cgroup parent is %s%s", *parent ? parent : "the engine's default",
                json_is_false(p) ? "; policy allows any" : "");
    else
        bxp_add(e, "containment.cgroup_parent", "fail", bxp_copy(p), bxp_copy(parentv),
                "cgroup parent %s; policy requires the engine's default", parent);
}

/* How many restarts a restart policy allows: -2 not observed, -1 unbounded. */
static void eval_restart(const bxp_ev *e)
{
    const json_t *p = pol(e, "containment.restartMaxRetries");
    if (p)
        bxp_restart_finding(e, NULL, json_integer_value(p), p);
}

/* ==== evidence, requested ================================================== */

static void eval_evidence_level(const bxp_ev *e)
{
    const json_t *accept = pol(e, "evidence.accept");
    const json_t *levelv = bxp_seen(e->pred, "evidence.level");
    const char *level = json_string_value(levelv);
    char list[LIST_MAX];

    if (!accept)
        return;
    bxp_join(accept, list, sizeof list);
    if (!level)
        bxp_add(e, "evidence.level", "unknown", bxp_copy(accept), json_null(),
                "evidence level not observed; policy accepts %s", list);
    else
        bxp_add(e, "evidence.level", in_list(accept, level) ? "pass" : "fail", bxp_copy(accept),
                bxp_copy(levelv), "evidence level %s; policy accepts %s", level, list);
}

static void eval_discrepancies(const bxp_ev *e)
{
    const json_t *p = pol(e, "evidence.discrepancies");
    const json_t *d = bxp_seen(e->pred, "evidence.discrepancies"), *v;
    char msg[MSG_MAX] = "";
    size_t i;

    if (!p)
        return;
    if (!json_is_array(d)) {
        bxp_add(e, "evidence.discrepancies", "unknown", bxp_copy(p), json_null(),
                "discrepancies not observed");
        return;
    }
    if (json_array_size(d) == 0) {
        bxp_add(e, "evidence.discrepancies", "pass", bxp_copy(p), bxp_copy(d), "the sources agree");
        return;
    }
    json_array_foreach(d, i, v)
    {
        const char *f = json_string_value(json_object_get(v, "field"));
        const char *why = json_string_value(json_object_get(v, "reason"));
        bxp_append(msg, sizeof msg, "%s%s%s%s", i ? "; " : "", f ? f : "?", why ? ": " : "",
                   why ? why : "");
    }
    bxp_add(e, "evidence.discrepancies",
            strcmp(json_string_value(p), "warn") == 0 ? "warn" : "fail", bxp_copy(p), bxp_copy(d),
            "%zu discrepanc%s between sources: %s", json_array_size(d),
            json_array_size(d) == 1 ? "y" : "ies", msg);
}

static void eval_requested(const bxp_ev *e)
{
    const json_t *req = bxp_seen(e->pred, "requested"), *want, *v;
    json_t *obs = NULL;
    char weak[MSG_MAX] = "", unsure[MSG_MAX] = "", why[160];
    const char *name;

    if (!json_is_true(pol(e, "requested.mustMatch")))
        return;
    want = bxp_seen(req, "containment");
    if (!req) {
        bxp_add(e, "requested.match", "fail", json_true(), json_null(),
                "no requested containment recorded (collect --requested); policy requires one");
        return;
    }
    if (!json_is_object(want)) {
        bxp_add(e, "requested.match", "unknown", json_true(), bxp_copy(req),
                "requested containment not readable");
        return;
    }
    obs = json_object();
    json_object_foreach((json_t *)want, name, v)
    {
        bx_cmp c = bx_compare_field(name, v, e->cont, why, sizeof why);
        json_object_set_new(obs, name, bxp_copy(bxp_seen(e->cont, name)));
        if (c == BX_CMP_WEAKER)
            bxp_append(weak, sizeof weak, "%s%s (%s)", *weak ? ", " : "", name, why);
        else if (c == BX_CMP_UNKNOWN)
            bxp_append(unsure, sizeof unsure, "%s%s (%s)", *unsure ? ", " : "", name, why);
    }
    if (*weak)
        bxp_add(e, "requested.match", "fail", bxp_copy(want), obs, "weaker than requested: %s",
                weak);
    else if (*unsure)
        bxp_add(e, "requested.match", "unknown", bxp_copy(want), obs,
                "cannot compare with requested: %s", unsure);
    else
        bxp_add(e, "requested.match", "pass", bxp_copy(want), obs,
                "effective containment at least as strong as requested (%zu field(s))",
                json_object_size(want));
}

/* ---- members a predicate version lacks ------------------------------------------------ */

/* 1 when member (dotted, below the predicate) is one the statement's version does not carry:
 * the rule's finding is then unknown for that reason alone, and is noted in e->lacking. */
static int lacks(const bxp_ev *e, const char *rule, const char *member)
{
    if (!e->version || !bx_predicate_version_lacks(e->version, member))
        return 0;
    if (e->lacking)
        json_array_append_new(e->lacking, json_pack("{s:s,s:s}", "rule", rule, "member", member));
    return 1;
}

/* ---- sysctls -------------------------------------------------------------------------- */

/* allow: every sysctl the engine set is listed; pin: each named one holds that value in the
 * session's namespaces, read back from the kernel (the engine's word is not enough). */
static void eval_sysctls(const bxp_ev *e)
{
    const json_t *want = pol(e, "containment.sysctls");
    const json_t *allow = json_object_get(want, "allow"), *pin = json_object_get(want, "pin");
    const json_t *have = bxp_seen(e->cont, "sysctls"), *v;
    const char *name, *status = "pass";
    json_t *bad = json_object();
    char list[LIST_MAX] = "", why[MSG_MAX] = "";
    size_t nbad = 0, o = 0;

    if (!want) {
        json_decref(bad);
        return;
    }
    if (!json_is_object(have)) {
        json_decref(bad);
        if (lacks(e, "containment.sysctls", "containment.sysctls"))
            bxp_add(e, "containment.sysctls", "unknown", bxp_copy(want), json_null(),
                    "sysctls are not in predicate v%u (a member of v2 and later): the policy needs "
                    "a newer certificate",
                    e->version);
        else
            bxp_add(e, "containment.sysctls", "unknown", bxp_copy(want), json_null(),
                    "sysctls not observed");
        return;
    }
    json_object_foreach((json_t *)have, name, v)
    {
        if (!json_is_string(json_object_get(v, "engine")) || (allow && in_list(allow, name)) ||
            !allow)
            continue;
        nbad++;
        json_object_set(bad, name, (json_t *)v);
        o += (size_t)snprintf(list + o, o < sizeof list ? sizeof list - o : 0, "%s%s",
                              o ? ", " : "", name);
    }
    if (nbad) {
        status = "fail";
        snprintf(why, sizeof why, "the engine set sysctls the policy does not allow: %s", list);
    }
    o = 0;
    list[0] = '\0';
    json_object_foreach((json_t *)pin, name, v)
    {
        const json_t *entry = json_object_get(have, name);
        const char *kernel = json_string_value(json_object_get(entry, "kernel"));
        if (kernel && bx_sysctl_value_equal(kernel, json_string_value(v)))
            continue;
        nbad += kernel != NULL;
        json_object_set(bad, name, entry ? (json_t *)entry : json_null());
        o += (size_t)snprintf(list + o, o < sizeof list ? sizeof list - o : 0, "%s%s %s",
                              o ? ", " : "", name, kernel ? "differs" : "not read back");
    }
    if (o) {
        size_t w = strlen(why);
        snprintf(why + w, sizeof why - w, "%spinned sysctls: %s", w ? "; " : "", list);
        if (strcmp(status, "fail") != 0)
            status = nbad ? "fail" : "unknown";
    }
    if (strcmp(status, "pass") == 0)
        bxp_add(e, "containment.sysctls", status, bxp_copy(want), bxp_copy(have),
                "%zu sysctl(s): every one the engine set is allowed, every pinned value holds",
                json_object_size(have));
    else
        bxp_add(e, "containment.sysctls", status, bxp_copy(want), bad, "%s", why);
    if (strcmp(status, "pass") == 0)
        json_decref(bad);
}

/* ---- v2: processes, namespaces shared, system paths, descriptors ---------------------------- */

/* A v2 member a certificate does not carry (v1), or carries as null (not observed). */
static void not_carried(const bxp_ev *e, const char *rule, const char *member, const json_t *want,
                        const char *what)
{
    if (lacks(e, rule, member))
        bxp_add(e, rule, "unknown", bxp_copy(want), json_null(),
                "%s: not in predicate v%u (a member of v2 and later): the policy needs a newer "
                "certificate",
                what, e->version);
    else
        bxp_add(e, rule, "unknown", bxp_copy(want), json_null(), "%s: not observed", what);
}

/* hostObjectsUnreachable: no host object the collector knows (the engine's and runtimes'
 * sockets and folders, this host's procfs, sysfs and root, the signing key) reachable through
 * any mount of the session, writable or not; no mount of a forbidden type; no mount left
 * uninspected (FUSE, remote: what they hold was not looked at). */
/* hostObjects without its mounts (the finding's observed value). */
static json_t *obs_ho(const json_t *ho)
{
    json_t *c = bxp_copy(ho);
    if (json_is_object(c))
        json_object_del(c, "mounts");
    return c;
}

static void eval_host_objects(const bxp_ev *e)
{
    const json_t *p = pol(e, "containment.hostObjectsUnreachable");
    const json_t *ho = bxp_seen(e->cont, "hostObjects"), *o, *v;
    char bad[MSG_MAX] = "", unseen[MSG_MAX] = "";
    size_t i, j, nobj;

    if (!p)
        return;
    if (!json_is_true(p)) {
        bxp_add(e, "containment.host_objects", "pass", bxp_copy(p), obs_ho(ho),
                "policy does not require the host objects unreachable");
        return;
    }
    if (!json_is_object(ho)) {
        not_carried(e, "containment.host_objects", "containment.hostObjects", p,
                    "what of this host the session's mounts reach");
        return;
    }
    if (!json_is_array(json_object_get(ho, "objects")) ||
        !json_is_array(json_object_get(ho, "forbiddenTypes")) ||
        !json_is_array(json_object_get(ho, "uninspected"))) { /* [] is none; else not known */
        bxp_add(e, "containment.host_objects", "unknown", bxp_copy(p), obs_ho(ho),
                "what the session's mounts reach was not recorded whole (objects, "
                "forbiddenTypes and uninspected must be lists)");
        return;
    }
    nobj = json_array_size(json_object_get(ho, "objects"));
    json_array_foreach(json_object_get(ho, "objects"), i, o)
    {
        const json_t *r = json_object_get(o, "reachable");
        const char *what = json_string_value(json_object_get(o, "what"));
        const char *path = json_string_value(json_object_get(o, "path"));
        if (json_is_true(r)) {
            char via[LIST_MAX] = "";
            json_array_foreach(json_object_get(o, "via"), j, v)
            bxp_append(via, sizeof via, "%s%s", j ? ", " : "", json_string_value(v));
            bxp_append(bad, sizeof bad, "%s%s %s reachable through %s", *bad ? "; " : "",
                       what ? what : "?", path ? path : "?", via);
        } else if (!json_is_false(r)) {
            bxp_append(unseen, sizeof unseen, "%s%s %s", *unseen ? ", " : "", what ? what : "?",
                       path ? path : "?");
        }
    }
    json_array_foreach(json_object_get(ho, "forbiddenTypes"), i, o)
    bxp_append(bad, sizeof bad, "%s%s mounted at %s", *bad ? "; " : "",
               json_string_value(json_object_get(o, "fsType")),
               json_string_value(json_object_get(o, "destination")));
    json_array_foreach(json_object_get(ho, "uninspected"), i, o)
    bxp_append(unseen, sizeof unseen, "%s%s at %s (not inspected)", *unseen ? ", " : "",
               json_string_value(json_object_get(o, "fsType")),
               json_string_value(json_object_get(o, "destination")));
    if (*bad)
        bxp_add(e, "containment.host_objects", "fail", bxp_copy(p), obs_ho(ho),
                "host objects reached: %s", bad);
    else if (*unseen)
        bxp_add(e, "containment.host_objects", "unknown", bxp_copy(p), obs_ho(ho),
                "whether these are reached is not known: %s", unseen);
    else if (nobj == 0)
        bxp_add(e, "containment.host_objects", "unknown", bxp_copy(p), obs_ho(ho),
                "no host object was found on the collector's host to judge by");
    else
        bxp_add(e, "containment.host_objects", "pass", bxp_copy(p), obs_ho(ho),
                "none of %zu host object(s) reachable, no mount of a forbidden type", nobj);
}

void bxp_not_carried(const bxp_ev *e, const char *rule, const char *member, const json_t *want,
                     const char *what)
{
    not_carried(e, rule, member, want, what);
}

/* networkFromKernel: the network was judged by the kernel's links (network.links, v2: read
 * over netlink in the session's network namespace), not by the engine's word alone. */
static void eval_network_kernel(const bxp_ev *e)
{
    const json_t *p = pol(e, "containment.networkFromKernel");
    const json_t *links = bxp_seen(e->cont, "network.links"), *l;
    char names[LIST_MAX] = "";
    size_t i;

    if (!p)
        return;
    if (!json_is_true(p)) {
        bxp_add(e, "containment.network_kernel", "pass", bxp_copy(p), json_null(),
                "policy does not require the kernel's links");
        return;
    }
    if (!json_is_array(links)) {
        if (lacks(e, "containment.network_kernel", "containment.network.links"))
            bxp_add(e, "containment.network_kernel", "unknown", bxp_copy(p), json_null(),
                    "the kernel's links: not in predicate v%u (a member of v2 and later): the "
                    "policy needs a newer certificate",
                    e->version);
        else
            bxp_add(e, "containment.network_kernel", "unknown", bxp_copy(p), json_null(),
                    "the session's network namespace was not read over netlink: the network "
                    "rests on the engine's word");
        return;
    }
    json_array_foreach(links, i, l) bxp_append(names, sizeof names, "%s%s", i ? ", " : "",
                                               json_string_value(json_object_get(l, "name")));
    bxp_add(e, "containment.network_kernel", "pass", bxp_copy(p), bxp_copy(links),
            "the network judged by the kernel's %zu link(s): %s", json_array_size(links), names);
}

/* processesSettled: the weakest values recorded hold for every process (every task read,
 * two scans agreeing), not only for those a scan happened to find. */
static void eval_processes(const bxp_ev *e)
{
    const json_t *p = pol(e, "containment.processesSettled");
    const json_t *pr = bxp_seen(e->cont, "processes");
    const json_t *settled = json_object_get(pr, "settled");
    long long scans = (long long)json_integer_value(json_object_get(pr, "scans"));

    if (!p)
        return;
    if (!json_is_boolean(settled)) {
        not_carried(e, "containment.processes", "containment.processes", p,
                    "the session's processes");
        return;
    }
    if (!json_is_true(p))
        bxp_add(e, "containment.processes", "pass", bxp_copy(p), bxp_copy(pr),
                "policy does not require every process read");
    else if (json_is_true(settled))
        bxp_add(e, "containment.processes", "pass", bxp_copy(p), bxp_copy(pr),
                "%lld process(es), %lld task(s) read (%s rule), %lld scan(s) agreeing",
                (long long)json_integer_value(json_object_get(pr, "count")),
                (long long)json_integer_value(json_object_get(pr, "tasks")),
                json_string_value(json_object_get(pr, "rule")), scans);
    else
        bxp_add(e, "containment.processes", "fail", bxp_copy(p), bxp_copy(pr),
                "the session's processes did not settle in %lld scan(s): a process may hold more "
                "than the values recorded",
                scans);
}

/* namespaces.notShared: no process outside the session in the namespace, none holding it open,
 * no container: mode. */
static void eval_ns_sharing(const bxp_ev *e)
{
    const json_t *want = json_object_get(pol(e, "containment.namespaces"), "notShared"), *v;
    char bad[MSG_MAX] = "", unseen[LIST_MAX] = "", member[64], list[LIST_MAX], lacking[64] = "";
    json_t *obs;
    size_t i;

    if (!want)
        return;
    obs = json_object();
    json_array_foreach(want, i, v)
    {
        const char *name = json_string_value(v);
        const json_t *ns = bxp_seen(bxp_seen(e->cont, "namespaces"), name);
        const json_t *sh = bxp_seen(ns, "shared"), *c, *h;
        size_t j;
        json_object_set_new_nocheck(obs, name, bxp_copy(sh));
        if (!json_is_object(sh) || !json_is_boolean(json_object_get(sh, "host")) ||
            !json_is_array(json_object_get(sh, "containers")) ||
            !json_is_array(json_object_get(sh, "heldOpen"))) { /* [] is none; else unknown */
            snprintf(member, sizeof member, "containment.namespaces.%s%s", name,
                     ns ? ".shared" : "");
            if (!*lacking && bx_predicate_version_lacks(e->version, member))
                snprintf(lacking, sizeof lacking, "%s", member);
            bxp_append(unseen, sizeof unseen, "%s%s", *unseen ? ", " : "", name);
            continue;
        }
        if (json_is_true(json_object_get(sh, "host")))
            bxp_append(bad, sizeof bad, "%s%s with the host", *bad ? "; " : "", name);
        json_array_foreach(json_object_get(sh, "containers"), j, c)
        bxp_append(bad, sizeof bad, "%s%s with container %.12s", *bad ? "; " : "", name,
                   json_string_value(c) ? json_string_value(c) : "?");
        /* The holder named by the container the certificate records, a host process by
         * what it is: a pid alone names nothing a reader can find. */
        json_array_foreach(json_object_get(sh, "heldOpen"), j, h)
        {
            const char *hc = json_string_value(json_object_get(h, "container"));
            const char *pl = json_string_value(json_object_get(h, "place"));
            if (hc)
                bxp_append(bad, sizeof bad, "%s%s held open by container %.12s (%s)",
                           *bad ? "; " : "", name, hc, pl ? pl : "?");
            else
                bxp_append(bad, sizeof bad, "%s%s held open by a host process (pid %lld, %s)",
                           *bad ? "; " : "", name,
                           (long long)json_integer_value(json_object_get(h, "pid")),
                           pl ? pl : "?");
        }
    }
    bxp_join(want, list, sizeof list);
    if (*bad) {
        bxp_add(e, "containment.namespace_sharing", "fail", bxp_copy(want), obs,
                "namespaces shared outside the session: %s; policy requires %s unshared", bad, list);
    } else if (*unseen) {
        json_decref(obs);
        if (*lacking)
            not_carried(e, "containment.namespace_sharing", lacking, want,
                        "who shares the session's namespaces");
        else
            bxp_add(e, "containment.namespace_sharing", "unknown", bxp_copy(want), json_null(),
                    "who shares these namespaces was not observed: %s", unseen);
    } else {
        bxp_add(e, "containment.namespace_sharing", "pass", bxp_copy(want), obs,
                "no process outside the session shares %s, none holds them open", list);
    }
}

/* systemPaths: each path listed read-only, each masked path masked (or absent); under runsc the
 * sentry serves /proc and /sys, not this host's kernel. */
static void eval_system_paths(const bxp_ev *e)
{
    const json_t *want = pol(e, "containment.systemPaths"), *sp = bxp_seen(e->cont, "systemPaths");
    const json_t *ro = json_object_get(want, "readOnly"), *masked = json_object_get(want, "masked");
    const json_t *v;
    const char *served;
    char bad[MSG_MAX] = "", unseen[LIST_MAX] = "";
    size_t i;

    if (!want)
        return;
    if (!json_is_object(sp)) {
        not_carried(e, "containment.system_paths", "containment.systemPaths", want,
                    "the session's system paths");
        return;
    }
    served = json_string_value(json_object_get(sp, "servedBy"));
    if (served && strcmp(served, "sentry") == 0) {
        bxp_add(e, "containment.system_paths", "pass", bxp_copy(want), bxp_copy(sp),
                "/proc and /sys are served by gVisor's sentry, not this host's kernel");
        return;
    }
    json_array_foreach(ro, i, v)
    {
        const json_t *r = json_object_get(json_object_get(sp, "readOnly"), json_string_value(v));
        if (json_is_true(r))
            continue;
        if (json_is_false(r))
            bxp_append(bad, sizeof bad, "%s%s is writable", *bad ? "; " : "", json_string_value(v));
        else
            bxp_append(unseen, sizeof unseen, "%s%s", *unseen ? ", " : "", json_string_value(v));
    }
    json_array_foreach(masked, i, v)
    {
        const char *m =
            json_string_value(json_object_get(json_object_get(sp, "masks"), json_string_value(v)));
        if (m && (strcmp(m, "masked") == 0 || strcmp(m, "absent") == 0))
            continue;
        if (m && strcmp(m, "exposed") == 0)
            bxp_append(bad, sizeof bad, "%s%s is not masked", *bad ? "; " : "",
                       json_string_value(v));
        else
            bxp_append(unseen, sizeof unseen, "%s%s", *unseen ? ", " : "", json_string_value(v));
    }
    if (*bad)
        bxp_add(e, "containment.system_paths", "fail", bxp_copy(want), bxp_copy(sp), "%s", bad);
    else if (*unseen)
        bxp_add(e, "containment.system_paths", "unknown", bxp_copy(want), bxp_copy(sp),
                "not observed: %s", unseen);
    else
        bxp_add(e, "containment.system_paths", "pass", bxp_copy(want), bxp_copy(sp),
                "every system path listed is read-only, every masked path masked or absent");
}

/* descriptors.allow: every descriptor of the session's processes that reaches outside it is of
 * a kind allowed (allow: [] refuses them all). */
static void eval_descriptors(const bxp_ev *e)
{
    const json_t *want = pol(e, "containment.descriptors");
    const json_t *allow = json_object_get(want, "allow"), *d = bxp_seen(e->cont, "descriptors");
    const json_t *v;
    char bad[MSG_MAX] = "", list[LIST_MAX];
    json_t *refused;
    size_t i, n = 0;

    if (!want)
        return;
    if (!json_is_array(d)) {
        not_carried(e, "containment.descriptors", "containment.descriptors", want,
                    "the session's descriptors");
        return;
    }
    refused = json_array();
    json_array_foreach(d, i, v)
    {
        const char *kind = json_string_value(json_object_get(v, "kind"));
        if (allow && in_list(allow, kind))
            continue;
        n++;
        json_array_append(refused, (json_t *)v);
        bxp_append(bad, sizeof bad, "%sprocess %lld fd %lld: %s %s", *bad ? "; " : "",
                   (long long)json_integer_value(json_object_get(v, "pid")),
                   (long long)json_integer_value(json_object_get(v, "fd")), kind ? kind : "?",
                   json_string_value(json_object_get(v, "target")));
    }
    bxp_join(allow, list, sizeof list);
    if (n)
        bxp_add(e, "containment.descriptors", "fail", bxp_copy(want), refused,
                "%zu descriptor(s) reach outside the session: %s; policy allows %s", n, bad, list);
    else {
        json_decref(refused);
        bxp_add(e, "containment.descriptors", "pass", bxp_copy(want), bxp_copy(d),
                "no descriptor reaches outside the session but those allowed (%s)", list);
    }
}

/* ==== evaluation ============================================================= */

int bx_policy_eval(const bx_policy *p, const json_t *statement, const bx_eval_ctx *ctx,
                   json_t *findings, bx_error *err)
{
    return bx_policy_eval_ex(p, statement, ctx, findings, NULL, err);
}

int bx_policy_eval_ex(const bx_policy *p, const json_t *statement, const bx_eval_ctx *ctx,
                      json_t *findings, json_t *lacking, bx_error *err)
{
    bxp_ev e = {.p = p,
                .st = statement,
                .findings = findings,
                .version = bx_statement_version(statement),
                .lacking = json_is_array(lacking) ? lacking : NULL};

    if (!json_is_array(findings))
        return bx_error_set(err, BX_EINVAL, NULL, "findings must be an array");
    e.pred = json_object_get(statement, "predicate");
    if (!json_is_object(e.pred))
        return bx_error_set(err, BX_EINVAL, "/predicate", "statement has no predicate");
    e.cont = bxp_seen(e.pred, "containment");
    if (!json_is_object(e.cont))
        e.cont = NULL;
    e.pcont = json_object_get(p->effective, "containment");
    e.now = ctx ? ctx->now : (int64_t)time(NULL);

    eval_age(&e);
    eval_collection_delay(&e);
    eval_collector_version(&e);
    eval_image(&e);
    eval_collector_pin(&e);
    eval_source(&e);
    eval_network(&e);
    eval_ports(&e);
    eval_bool(&e, 0);
    eval_caps(&e);
    eval_bool(&e, 1);
    eval_seccomp(&e);
    bxp_eval_seccomp_programs(&e);
    eval_lsm(&e, "containment.apparmor", "containment.apparmor", "apparmor", "profile", "AppArmor");
    eval_lsm(&e, "containment.selinux", "containment.selinux", "selinux", "label", "SELinux");
    eval_bool(&e, 2);
    eval_runtime(&e);
    eval_user(&e);
    eval_namespaces(&e);
    eval_ns_sharing(&e);
    eval_userns(&e);
    eval_limit(&e, "containment.resources.memory", "containment.resources.memoryMax", "memoryBytes",
               "memory");
    eval_limit(&e, "containment.resources.pids", "containment.resources.pidsMax", "pidsLimit",
               "PIDs");
    eval_cpus(&e);
    eval_write_surface(&e);
    eval_mounts(&e);
    eval_propagation(&e);
    eval_devices(&e);
    eval_cgroup_parent(&e);
    eval_restart(&e);
    eval_sysctls(&e);
    eval_processes(&e);
    eval_network_kernel(&e);
    eval_system_paths(&e);
    eval_descriptors(&e);
    bxp_eval_channels(&e);
    bxp_eval_references(&e);
    bxp_eval_userns_create(&e);
    bxp_eval_propagation_peers(&e);
    eval_host_objects(&e);
    eval_evidence_level(&e);
    eval_discrepancies(&e);
    eval_requested(&e);
    bxp_eval_cis(&e);
    return 0;
}
