/* SPDX-License-Identifier: Apache-2.0 */
/* Readings of the containment predicate that several rules share (the policy rules and
 * the CIS checks): paths, namespaces, the session's user, default devices and
 * capabilities, and the pieces of findings they build alike. The stronger/weaker comparator and the
 * capability and CPU readings it shares are schema/'s (bx_compare_field, bx_caps_held,
 * bx_cpu_limit). */
#include "policy_internal.h"

#include <stdarg.h>
#include <stdlib.h>
#include <ctype.h>
#include <string.h>

/* ---- paths ---------------------------------------------------------------------- */

int bxp_path_under(const char *path, const char *base)
{
    size_t n = strlen(base);
    if (!path || path[0] != '/' || base[0] != '/')
        return 0;
    if (strcmp(base, "/") == 0)
        return 1;
    while (n > 1 && base[n - 1] == '/')
        n--;
    return strncmp(path, base, n) == 0 && (path[n] == '\0' || path[n] == '/');
}

/* ---- capabilities ----------------------------------------------------------------- */

/* Docker 20.10's default capability set (certificate.md, "Engine defaults"). */
int bxp_default_cap(const char *name)
{
    return bx_cap_is_docker_default(name);
}

/* ---- namespaces, user, resources, devices ------------------------------------------ */

const json_t *bxp_ns_mode_value(const json_t *containment, const char *name)
{
    const json_t *ns = json_object_get(json_object_get(containment, "namespaces"), name);
    const json_t *k = json_object_get(ns, "kernel"), *g;
    if (json_is_string(k))
        return k;
    g = json_object_get(ns, "engine");
    return json_is_string(g) ? g : NULL;
}

const char *bxp_ns_mode(const json_t *containment, const char *name)
{
    return json_string_value(bxp_ns_mode_value(containment, name));
}

int bxp_ns_is_host(const char *name, const char *mode)
{
    /* the user namespace's "default" is a daemon that does not remap: the host's */
    return mode && (strcmp(mode, "host") == 0 ||
                    (name && strcmp(name, "user") == 0 && strcmp(mode, "default") == 0));
}

/* A decimal id (uid or gid) of at most 10 digits; -1 when s is not one. */
static long long numeric_id(const char *s, size_t n)
{
    long long v = 0;
    if (n == 0 || n > 10)
        return -1;
    for (size_t i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9')
            return -1;
        v = v * 10 + (s[i] - '0');
    }
    return v;
}

static void ids_from_kernel(const json_t *user, bxp_user *u)
{
    const json_t *uids = json_object_get(user, "uids"), *gids = json_object_get(user, "gids");
    const json_t *groups = json_object_get(user, "groups"), *v;
    size_t i;

    u->have_uid = 1;
    json_array_foreach(uids, i, v)
    {
        if (!json_is_integer(v)) {
            u->have_uid = 0;
            continue;
        }
        u->uid_root |= json_integer_value(v) == 0;
        if (u->nuids < 4)
            u->uids[u->nuids++] = json_integer_value(v);
    }
    u->have_gid = json_is_array(gids) && json_is_array(groups);
    json_array_foreach(gids, i, v) u->gid_root |= json_is_integer(v) && json_integer_value(v) == 0;
    json_array_foreach(groups, i, v) u->gid_root |=
        json_is_integer(v) && json_integer_value(v) == 0;
    /* v2: every id of every task, on this host and in the task's own user namespace */
    {
        const json_t *inns = json_object_get(user, "inNamespace");
        const json_t *uid_lists[2] = {json_object_get(user, "everyUid"),
                                      json_object_get(inns, "everyUid")};
        const json_t *gid_lists[4] = {json_object_get(user, "everyGid"),
                                      json_object_get(user, "everyGroup"),
                                      json_object_get(inns, "everyGid"),
                                      json_object_get(inns, "everyGroup")};
        for (int l = 0; l < 2; l++)
            json_array_foreach(uid_lists[l], i, v) u->uid_root |=
                json_is_integer(v) && json_integer_value(v) == 0;
        for (int l = 0; l < 4; l++)
            json_array_foreach(gid_lists[l], i, v) u->gid_root |=
                json_is_integer(v) && json_integer_value(v) == 0;
        if (json_is_array(uid_lists[0]))
            u->every_uid = uid_lists[0];
    }
}

/* user.spec as Docker reads --user: "user[:group]", names or numbers. */
static int ids_from_spec(const char *spec, bxp_user *u)
{
    const char *colon = strchr(spec, ':');
    size_t ulen = colon ? (size_t)(colon - spec) : strlen(spec);
    long long uid = numeric_id(spec, ulen),
              gid = colon ? numeric_id(colon + 1, strlen(colon + 1)) : -1;

    if (!*spec || (ulen == 4 && strncmp(spec, "root", 4) == 0) || uid == 0) {
        /* no user (the image's default, merged into the config: root) or root itself */
        u->have_uid = u->uid_root = 1;
        u->uids[u->nuids++] = 0;
    } else if (uid > 0) {
        u->have_uid = 1;
        u->uids[u->nuids++] = uid;
    } else if (ulen == 0) {
        return -1;
    } else {
        u->named = 1;
    }
    if (colon) {
        u->have_gid = gid >= 0;
        u->gid_root = gid == 0 || strcmp(colon + 1, "root") == 0;
    }
    return 0;
}

bxp_tri bxp_user_read(const json_t *user, bxp_user *u)
{
    const char *spec = json_string_value(json_object_get(user, "spec"));

    memset(u, 0, sizeof *u);
    if (!json_is_object(user))
        return BXP_UNSEEN;
    if (json_is_array(json_object_get(user, "uids"))) {
        ids_from_kernel(user, u);
        return BXP_YES;
    }
    if (!spec || ids_from_spec(spec, u) != 0)
        return BXP_UNSEEN;
    return BXP_YES;
}

/* The standard pseudo-devices the engine allows in every session (and mknod of any). */
static const char *const default_devices[] = {
    "c *:* m",   "b *:* m",   "c 1:3 rwm", "c 1:5 rwm", "c 1:7 rwm",   "c 1:8 rwm",
    "c 1:9 rwm", "c 5:0 rwm", "c 5:1 rwm", "c 5:2 rwm", "c 136:* rwm", "c 10:200 rwm",
};

int bxp_default_device_rule(const char *rule)
{
    bx_devrule r, d;

    if (bx_devrule_parse(rule, &r) != 0)
        return 0; /* read exactly: "c 1:3rwm" is no rule, never c 1:3 rwm */
    for (size_t i = 0; i < sizeof default_devices / sizeof default_devices[0]; i++) {
        if (bx_devrule_parse(default_devices[i], &d) != 0 || d.type != r.type ||
            d.major != r.major || d.minor != r.minor)
            continue;
        return bx_devrule_within(&r, &d);
    }
    return 0;
}

/* ---- pieces of findings shared by the rules and the CIS checks ------------------- */

/* Observed value at path, or NULL when absent or JSON null. */
const json_t *bxp_seen(const json_t *o, const char *path)
{
    o = bx_json_dotted(o, path);
    return json_is_null(o) ? NULL : o;
}

json_t *bxp_copy(const json_t *v)
{
    /* a new reference, not a copy: nothing modifies a finding or a verified statement */
    return v ? json_incref((json_t *)v) : json_null();
}

/* "a, b, c" (strings, or numbers for unknown capability bits); "none" when empty. A list
 * that does not fit ends in "..." (where snprintf's truncation would have put it). */
const char *bxp_join(const json_t *arr, char *out, size_t n)
{
    size_t o = 0, i;
    const json_t *v;
    out[0] = '\0';
    json_array_foreach(arr, i, v)
    {
        char num[24];
        const char *s = json_is_string(v) ? json_string_value(v) : "?";
        size_t sep = i ? 2 : 0, len;
        if (json_is_integer(v)) {
            snprintf(num, sizeof num, "%lld", (long long)json_integer_value(v));
            s = num;
        }
        len = strlen(s);
        if (sep + len >= n - o) {
            size_t room = n - o - 1, k = sep < room ? sep : room;
            memcpy(out + o, ", ", k);
            memcpy(out + o + k, s, len < room - k ? len : room - k);
            out[n - 1] = '\0';
            snprintf(out + (n > 4 ? n - 4 : 0), n > 4 ? 4 : n, "...");
            return out;
        }
        memcpy(out + o, ", ", sep);
        memcpy(out + o + sep, s, len);
        o += sep + len;
        out[o] = '\0';
    }
    if (!json_array_size(arr))
        snprintf(out, n, "none");
    return out;
}

/* Append "sep item" to a bounded message buffer. */

void bxp_append(char *buf, size_t n, const char *fmt, ...)
{
    size_t o = strlen(buf);
    va_list ap;
    if (o + 4 >= n)
        return;
    va_start(ap, fmt);
    if (vsnprintf(buf + o, n - o, fmt, ap) >= (int)(n - o))
        snprintf(buf + n - 4, 4, "...");
    va_end(ap);
}

/* What a list rule reports as observed: the entries that failed it, else the whole list.
 * Steals bad. */
json_t *bxp_observed_list(json_t *bad, const json_t *all)
{
    if (json_array_size(bad))
        return bad;
    json_decref(bad);
    return bxp_copy(all);
}

const char *bxp_port_text(const json_t *p, char *out, size_t n)
{
    const char *ip = json_string_value(json_object_get(p, "hostIp"));
    snprintf(out, n, "%s:%lld->%lld/%s", ip && *ip ? ip : "*",
             (long long)json_integer_value(json_object_get(p, "hostPort")),
             (long long)json_integer_value(json_object_get(p, "containerPort")),
             json_string_value(json_object_get(p, "proto"))
                 ? json_string_value(json_object_get(p, "proto"))
                 : "?");
    return out;
}

const char *bxp_user_text(const json_t *user, const bxp_user *u, char *out, size_t n)
{
    const char *spec = json_string_value(json_object_get(user, "spec"));
    if (json_is_array(json_object_get(user, "uids"))) {
        int o = snprintf(out, n, "user \"%s\" (uids", spec ? spec : "?");
        for (size_t i = 0; i < u->nuids && o > 0 && (size_t)o < n; i++)
            o += snprintf(out + o, n - (size_t)o, "%s%lld", i ? "/" : " ", u->uids[i]);
        if (o > 0 && (size_t)o < n)
            snprintf(out + o, n - (size_t)o, ")");
    } else
        snprintf(out, n, "user \"%s\"%s", spec ? spec : "?",
                 spec && !*spec ? " (the image's default: root)" : "");
    return out;
}

/* 1 when a mount's host source (canonical, or as given) is the forbidden path, under it
 * or holds it. "/" forbids only a mount of "/" itself. */
int bxp_mount_hits(const json_t *m, const char *forbidden)
{
    const char *srcs[2] = {json_string_value(json_object_get(m, "source")),
                           json_string_value(json_object_get(m, "sourceAsGiven"))};
    for (int i = 0; i < 2; i++) {
        const char *s = srcs[i];
        if (!s || s[0] != '/')
            continue;
        if (strcmp(forbidden, "/") == 0
                ? strcmp(s, "/") == 0
                : bxp_path_under(s, forbidden) || bxp_path_under(forbidden, s))
            return 1;
    }
    return 0;
}

/* Shared-propagation mounts into msg (and bad); -1 when a mount's propagation is not
 * observed. */
int bxp_shared_mounts(const json_t *mounts, char *msg, size_t n, json_t *bad)
{
    const json_t *m;
    size_t i;
    int unseen = 0;
    json_array_foreach(mounts, i, m)
    {
        const char *prop = json_string_value(json_object_get(m, "propagation"));
        const char *dest = json_string_value(json_object_get(m, "destination"));
        if (!prop)
            unseen = 1;
        else if (strcmp(prop, "shared") == 0 || strcmp(prop, "rshared") == 0) {
            bxp_append(msg, n, "%s%s (%s)", *msg ? ", " : "", dest ? dest : "?", prop);
            json_array_append_new(bad, bxp_copy(m));
        }
    }
    return unseen ? -1 : 0;
}

/* Host devices exposed into msg: 1 some, 0 none, -1 not observed. */
int bxp_host_devices(const json_t *dev, char *msg, size_t n)
{
    const json_t *list = json_object_get(dev, "devices"),
                 *rules = json_object_get(dev, "cgroupRules");
    const json_t *all = json_object_get(dev, "allowAll"), *v;
    size_t i;
    int unknown = 0;

    if (!json_is_object(dev) || !json_is_boolean(all) || !json_is_array(list) ||
        !json_is_array(rules))
        return -1;
    if (json_is_true(all))
        bxp_append(msg, n, "all devices allowed");
    json_array_foreach(list, i, v)
    {
        const char *h = json_string_value(json_object_get(v, "pathOnHost"));
        bxp_append(msg, n, "%s%s", *msg ? ", " : "", h ? h : "?");
    }
    json_array_foreach(rules, i, v)
    {
        const char *r = json_string_value(v);
        if (!bxp_default_device_rule(r))
            bxp_append(msg, n, "%srule '%s'", *msg ? ", " : "", r ? r : "?");
    }
    /* v2: a node of the session's /dev its device cgroup lets it read or write, but the
     * standard pseudo-devices; one whose access is not known makes the whole unknown */
    json_array_foreach(json_object_get(dev, "nodes"), i, v)
    {
        const char *type = json_string_value(json_object_get(v, "type"));
        const json_t *acc = json_object_get(v, "accessible");
        char rule[64];
        snprintf(rule, sizeof rule, "%s %lld:%lld rw", type ? type : "?",
                 (long long)json_integer_value(json_object_get(v, "major")),
                 (long long)json_integer_value(json_object_get(v, "minor")));
        if (json_is_false(acc) || bxp_default_device_rule(rule))
            continue;
        if (!json_is_true(acc)) {
            unknown = 1;
            continue;
        }
        bxp_append(msg, n, "%snode %s (%.*s)", *msg ? ", " : "",
                   json_string_value(json_object_get(v, "path")), (int)(strlen(rule) - 3), rule);
    }
    return *msg ? 1 : unknown ? -1 : 0;
}

/* ---- findings of the rules and the CIS checks ------------------------------------------- */

void bxp_add(const bxp_ev *e, const char *rule, const char *status, json_t *expected,
             json_t *observed, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    bx_finding_addv(e->findings, rule, NULL, status, expected, observed, fmt, ap);
    va_end(ap);
}

void bxp_cis(const bxp_ev *e, const char *id, const char *status, json_t *expected,
             json_t *observed, const char *fmt, ...)
{
    char rule[32];
    va_list ap;
    snprintf(rule, sizeof rule, "cis.%s", id);
    va_start(ap, fmt);
    bx_finding_addv(e->findings, rule, id, status, expected, observed, fmt, ap);
    va_end(ap);
}

static long long restarts_allowed(const json_t *rp, const char **name)
{
    const json_t *count = json_object_get(rp, "maximumRetryCount");
    *name = json_string_value(json_object_get(rp, "name"));
    if (!*name)
        return -2;
    if (!**name || strcmp(*name, "no") == 0)
        return 0;
    if (strcmp(*name, "always") == 0 || strcmp(*name, "unless-stopped") == 0)
        return -1;
    if (strcmp(*name, "on-failure") != 0 || !json_is_integer(count))
        return -2;
    return json_integer_value(count) > 0 ? json_integer_value(count) : -1; /* 0 = forever */
}

void bxp_restart_finding(const bxp_ev *e, const char *id, long long max, const json_t *expected)
{
    const json_t *rp = bxp_seen(e->pred, "session.restartPolicy");
    const char *name = NULL;
    long long n = restarts_allowed(rp, &name);
    const char *status = n == -2 ? "unknown" : n == -1 || n > max ? "fail" : "pass";
    char text[96];

    if (n == -2)
        snprintf(text, sizeof text, "restart policy not observed or not understood");
    else if (n == -1)
        snprintf(text, sizeof text, "restart policy \"%s\" restarts without bound", name);
    else
        snprintf(text, sizeof text, "restart policy \"%s\" allows %lld restart(s)", name, n);
    if (id)
        bxp_cis(e, id, status, bxp_copy(expected), bxp_copy(rp),
                "%s; CIS allows on-failure up to %lld", text, max);
    else
        bxp_add(e, "containment.restart", status, bxp_copy(expected), bxp_copy(rp),
                "%s; policy allows %lld", text, max);
}

/* ---- LSM labels --------------------------------------------------------------------------- */

/* SELinux types that confine nothing: the super-privileged and unconfined domains, the
 * engine's own and the kernel's. */
static const char *const selinux_unconfined[] = {"spc_t",          "unconfined_t",
                                                 "unconfined_service_t", "container_runtime_t",
                                                 "kernel_t",       NULL};

/* The type of an SELinux label: "user:role:type[:level]" (the level may hold ':' itself), or
 * the engine's label= options joined with ',' ("type:spc_t,level:s0:c1"); into out, 0, or -1
 * when there is no type in it. */
static int selinux_type(const char *label, char *out, size_t n)
{
    const char *p = label, *e;
    size_t k;
    if (strstr(label, "type:") == label || strstr(label, ",type:")) {
        p = strstr(label, "type:") == label ? label + 5 : strstr(label, ",type:") + 6;
        e = strchr(p, ',');
        k = e ? (size_t)(e - p) : strlen(p);
    } else {
        for (int i = 0; i < 2; i++) {
            if (!(p = strchr(p, ':')))
                return -1;
            p++;
        }
        e = strchr(p, ':');
        k = e ? (size_t)(e - p) : strlen(p);
    }
    if (k == 0 || k >= n)
        return -1;
    memcpy(out, p, k);
    out[k] = '\0';
    for (size_t i = 0; i < k; i++)
        if (!isalnum((unsigned char)out[i]) && out[i] != '_')
            return -1;
    return 0;
}

int bxp_lsm_confines(const char *member, const char *v)
{
    char type[128];
    if (!v || !*v)
        return 0; /* none: disabled */
    if (strcmp(member, "label") != 0) /* AppArmor: a profile other than unconfined */
        return strcmp(v, "unconfined") != 0;
    if (selinux_type(v, type, sizeof type) != 0)
        return -1;
    for (const char *const *u = selinux_unconfined; *u; u++)
        if (strcmp(type, *u) == 0)
            return 0;
    return 1;
}

int bxp_mount_canonical(const json_t *m)
{
    const char *src = json_string_value(json_object_get(m, "source"));
    const char *dest = json_string_value(json_object_get(m, "destination"));
    return (!src || !*src || bx_path_canonical(src)) && (!dest || bx_path_canonical(dest));
}
