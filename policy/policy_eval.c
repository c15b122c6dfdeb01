#include "policy_internal.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define LIST_MAX 512

void bx_finding_add(json_t *findings, const char *rule, const char *status, json_t *expected,
                    json_t *observed, const char *fmt, ...)
{
    char *msg = NULL;
    va_list ap;
    int n;

    va_start(ap, fmt);
    n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n >= 0 && (msg = malloc((size_t)n + 1)) != NULL) {
        va_start(ap, fmt);
        vsnprintf(msg, (size_t)n + 1, fmt, ap);
        va_end(ap);
        /* observed values come from the certificate: keep the message one line */
        for (char *c = msg; *c; c++)
            if ((unsigned char)*c < 0x20 || *c == 0x7f)
                *c = '?';
    }
    json_array_append_new(findings, json_pack("{s:s, s:s, s:o, s:o, s:s}", "rule", rule, "status",
                                              status, "expected", expected ? expected : json_null(),
                                              "observed", observed ? observed : json_null(),
                                              "message", msg ? msg : "(out of memory)"));
    free(msg);
}

typedef struct {
    const bx_policy *p;
    const json_t *pred; /* statement.predicate */
    const json_t *cont; /* predicate.containment, or NULL */
    int64_t now;
    json_t *findings;
} ev;

/* Observed value at path, or NULL when absent or JSON null. */
static const json_t *seen(const json_t *o, const char *path)
{
    const json_t *v = o ? bxp_get(o, path) : NULL;
    return json_is_null(v) ? NULL : v;
}

static json_t *copy(const json_t *v)
{
    return v ? json_deep_copy(v) : json_null();
}

/* "a, b, c" (strings, or numbers for unknown capability bits); "none" when empty. */
static const char *join(const json_t *arr, char *out, size_t n)
{
    size_t o = 0, i;
    const json_t *v;
    out[0] = '\0';
    json_array_foreach(arr, i, v)
    {
        const char *sep = i ? ", " : "";
        int w = json_is_integer(v)
                    ? snprintf(out + o, n - o, "%s%lld", sep, (long long)json_integer_value(v))
                    : snprintf(out + o, n - o, "%s%s", sep,
                               json_is_string(v) ? json_string_value(v) : "?");
        if (w < 0 || (size_t)w >= n - o) {
            snprintf(out + (n > 4 ? n - 4 : 0), n > 4 ? 4 : n, "...");
            return out;
        }
        o += (size_t)w;
    }
    if (!json_array_size(arr))
        snprintf(out, n, "none");
    return out;
}

static const char *fmt_dur(int64_t s, char out[48])
{
    static const struct {
        int64_t secs;
        char unit;
    } units[] = {{86400, 'd'}, {3600, 'h'}, {60, 'm'}, {1, 's'}};
    size_t o = 0;
    if (s < 0)
        s = -s;
    out[0] = '\0';
    for (size_t i = 0; i < 4; i++) {
        if (s >= units[i].secs || (o == 0 && units[i].unit == 's')) {
            o += (size_t)snprintf(out + o, 48 - o, "%lld%c", (long long)(s / units[i].secs),
                                  units[i].unit);
            s %= units[i].secs;
        }
    }
    return out;
}

/* ---- image.allowed ------------------------------------------------------------ */

static void eval_image(const ev *e)
{
    const json_t *pins = bxp_get(e->p->effective, "images.pins"), *v;
    const char *id = json_string_value(seen(e->pred, "image.id"));
    size_t i;

    if (!pins)
        return;
    if (!id) {
        bx_finding_add(e->findings, "image.allowed", "unknown", copy(pins), json_null(),
                       "image ID not observed; policy pins %zu image(s)", json_array_size(pins));
        return;
    }
    json_array_foreach(pins, i, v)
    {
        if (strcmp(json_string_value(v), id) == 0) {
            bx_finding_add(e->findings, "image.allowed", "pass", copy(pins), json_string(id),
                           "image %s is pinned", id);
            return;
        }
    }
    bx_finding_add(e->findings, "image.allowed", "fail", copy(pins), json_string(id),
                   "image %s is not in images.pins (%zu pinned)", id, json_array_size(pins));
}

/* ---- certificate.age ------------------------------------------------------------ */

static void eval_age(const ev *e)
{
    const json_t *max = bxp_get(e->p->effective, "certificate.maxAge");
    const char *at = json_string_value(seen(e->pred, "issuedAt"));
    char a[48], m[48], k[48];
    bx_error err = {0};
    int64_t t, age;

    if (!max || e->p->max_age < 0)
        return;
    fmt_dur(e->p->max_age, m);
    fmt_dur(e->p->clock_skew, k);
    if (!at || bx_time_parse(at, 0, &t, &err) != 0) {
        bx_finding_add(e->findings, "certificate.age", "unknown", copy(max),
                       copy(seen(e->pred, "issuedAt")),
                       "issuedAt not observed or invalid; policy allows an age of %s", m);
        return;
    }
    age = e->now - t;
    fmt_dur(age, a);
    if (age > e->p->max_age && age - e->p->max_age > e->p->clock_skew)
        bx_finding_add(e->findings, "certificate.age", "fail", copy(max), json_string(at),
                       "certificate issued %s ago (at %s); policy allows %s (+%s clock skew)", a,
                       at, m, k);
    else
        bx_finding_add(e->findings, "certificate.age", "pass", copy(max), json_string(at),
                       "certificate issued %s %s (at %s); policy allows %s", a,
                       age < 0 ? "in the future" : "ago", at, m);
}

/* ---- containment.network -------------------------------------------------------- */

static int is_named_network(const char *mode)
{
    return strcmp(mode, "none") != 0 && strcmp(mode, "host") != 0 &&
           strncmp(mode, "container:", 10) != 0;
}

/* "pass", "fail", or "unknown" when only the unobserved internal flag could decide. */
static const char *network_status(const json_t *allowed, const char *mode, const json_t *internal)
{
    const char *status = "fail";
    const json_t *v;
    size_t i;
    json_array_foreach(allowed, i, v)
    {
        const char *a = json_string_value(v);
        if (strcmp(a, mode) == 0 ||
            (strcmp(a, "container") == 0 && strncmp(mode, "container:", 10) == 0))
            return "pass";
        if (strcmp(a, "internal") == 0 && is_named_network(mode)) {
            if (json_is_true(internal))
                return "pass";
            if (!json_is_boolean(internal))
                status = "unknown";
        }
    }
    return status;
}

static void eval_network(const ev *e)
{
    const json_t *allowed = bxp_get(e->p->effective, "containment.network");
    const json_t *internal = seen(e->cont, "network.internal");
    const char *mode = json_string_value(seen(e->cont, "network.mode"));
    char list[LIST_MAX];

    if (!allowed)
        return;
    join(allowed, list, sizeof list);
    if (!mode) {
        bx_finding_add(e->findings, "containment.network", "unknown", copy(allowed), json_null(),
                       "network mode not observed; policy allows %s", list);
        return;
    }
    bx_finding_add(e->findings, "containment.network", network_status(allowed, mode, internal),
                   copy(allowed), json_string(mode), "network mode is %s%s; policy allows %s", mode,
                   json_is_true(internal)      ? " (internal)"
                   : json_is_boolean(internal) ? ""
                   : is_named_network(mode)    ? " (internal not observed)"
                                               : "",
                   list);
}

/* ---- rootfs, no-new-privileges, privileged -------------------------------------- */

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

static void eval_bool(const ev *e, size_t r)
{
    const json_t *pol = bxp_get(e->p->effective, bool_rules[r].key);
    const json_t *o = seen(e->cont, bool_rules[r].path);
    const char *want = bool_rules[r].strict ? bool_rules[r].on : bool_rules[r].off;
    int constrains;

    if (!pol)
        return;
    constrains = json_is_true(pol) == bool_rules[r].strict;
    if (!json_is_boolean(o)) {
        bx_finding_add(e->findings, bool_rules[r].rule, "unknown", copy(pol), copy(o),
                       "%s not observed; policy %s%s", bool_rules[r].subject,
                       constrains ? "requires " : "allows either", constrains ? want : "");
        return;
    }
    bx_finding_add(e->findings, bool_rules[r].rule,
                   !constrains || json_is_true(o) == bool_rules[r].strict ? "pass" : "fail",
                   copy(pol), copy(o), "%s is %s; policy %s%s", bool_rules[r].subject,
                   json_is_true(o) ? bool_rules[r].on : bool_rules[r].off,
                   constrains ? "requires " : "allows either", constrains ? want : "");
}

/* ---- containment.capabilities ------------------------------------------------------ */

static int same_item(const json_t *a, const json_t *b)
{
    return json_equal((json_t *)a, (json_t *)b);
}

static int in_list(const json_t *list, const json_t *item)
{
    const json_t *v;
    size_t i;
    json_array_foreach(list, i, v)
    {
        if (same_item(v, item))
            return 1;
    }
    return 0;
}

/* effective ∪ permitted ∪ ambient, and bounding unless no-new-privileges is observed on.
 * NULL when none of effective, permitted and ambient was observed. */
static json_t *held_caps(const ev *e)
{
    static const char *const sets[] = {"effective", "permitted", "ambient", "bounding"};
    const json_t *caps = seen(e->cont, "capabilities");
    size_t nsets = json_is_true(seen(e->cont, "noNewPrivileges")) ? 3 : 4;
    int observed = 0;
    json_t *out = json_array();

    for (size_t s = 0; out && s < nsets; s++) {
        const json_t *set = json_is_object(caps) ? seen(caps, sets[s]) : NULL, *v;
        size_t i;
        if (!json_is_array(set))
            continue;
        observed |= s < 3;
        json_array_foreach(set, i, v)
        {
            if (!in_list(out, v))
                json_array_append_new(out, json_deep_copy(v));
        }
    }
    if (!observed) {
        json_decref(out);
        return NULL;
    }
    return out;
}

static void eval_caps(const ev *e)
{
    const json_t *pol = bxp_get(e->p->effective, "containment.capabilities");
    const json_t *allow = json_object_get(pol, "allow"), *v;
    json_t *held = NULL, *beyond = NULL, *empty = NULL;
    char a[LIST_MAX], b[LIST_MAX];
    size_t i;

    if (!pol)
        return;
    if (!allow) /* capabilities: {} allows none */
        allow = empty = json_array();
    join(allow, a, sizeof a);
    held = held_caps(e);
    if (!held) {
        bx_finding_add(e->findings, "containment.capabilities", "unknown", copy(allow), json_null(),
                       "capabilities not observed; policy allows %s", a);
        goto out;
    }
    beyond = json_array();
    json_array_foreach(held, i, v)
    {
        if (!json_is_string(v) || !in_list(allow, v))
            json_array_append_new(beyond, json_deep_copy(v));
    }
    if (json_array_size(beyond))
        bx_finding_add(e->findings, "containment.capabilities", "fail", copy(allow), held,
                       "capabilities beyond those allowed: %s; policy allows %s",
                       join(beyond, b, sizeof b), a);
    else
        bx_finding_add(e->findings, "containment.capabilities", "pass", copy(allow), held,
                       "capabilities held: %s; policy allows %s", join(held, b, sizeof b), a);
    held = NULL; /* stolen */
out:
    json_decref(held);
    json_decref(beyond);
    json_decref(empty);
}

int bx_policy_eval(const bx_policy *p, const json_t *statement, const bx_eval_ctx *ctx,
                   json_t *findings, bx_error *err)
{
    ev e = {.p = p, .findings = findings};

    if (!json_is_array(findings))
        return bx_error_set(err, BX_EINVAL, NULL, "findings must be an array");
    e.pred = json_object_get(statement, "predicate");
    if (!json_is_object(e.pred))
        return bx_error_set(err, BX_EINVAL, "/predicate", "statement has no predicate");
    e.cont = seen(e.pred, "containment");
    e.now = ctx ? ctx->now : (int64_t)time(NULL);
    eval_image(&e);
    eval_age(&e);
    eval_network(&e);
    eval_bool(&e, 0);
    eval_caps(&e);
    eval_bool(&e, 1);
    eval_bool(&e, 2);
    return 0;
}
