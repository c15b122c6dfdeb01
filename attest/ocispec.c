/* SPDX-License-Identifier: Apache-2.0 */
/* The task's OCI spec (config.json in the runtime's task folder) read as a view of the
 * containment: what the engine handed the runtime. The kernel view reads it
 * (bxa_spec_read) when the task folder is on this host. */
#include "attest_internal.h"

#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define SPEC_MAX (4 * 1024 * 1024)
#define TASK_ROOT "/run/containerd/io.containerd.runtime.v2.task/moby"

static const json_t *at(const json_t *root, const char *a, const char *b)
{
    const json_t *v = json_object_get(root, a);
    return b ? json_object_get(v, b) : v;
}

/* An id from the spec: a non-negative integer below 2^32, else -1. */
static json_int_t id_of(const json_t *v)
{
    json_int_t n = json_is_integer(v) ? json_integer_value(v) : -1;
    return n >= 0 && n <= 0xffffffffLL ? n : -1;
}

/* "CAP_NET_RAW" -> bit; the names a set lists into bits; an unknown name is an error. */
static int cap_set(const json_t *list, uint64_t *bits)
{
    const json_t *v;
    size_t i;

    *bits = 0;
    if (!list || json_is_null(list))
        return 0;
    if (!json_is_array(list))
        return -1;
    json_array_foreach(list, i, v)
    {
        const char *s = json_string_value(v);
        int b;
        if (!s || strncmp(s, "CAP_", 4) != 0 || (b = bxa_cap_index(s + 4)) < 0)
            return -1;
        *bits |= UINT64_C(1) << b;
    }
    return 0;
}

static int caps_view(const json_t *caps, json_t *view, bx_error *err)
{
    static const char *const sets[][2] = {{"bounding", "bounding"},
                                          {"effective", "effective"},
                                          {"inheritable", "inheritable"},
                                          {"permitted", "permitted"},
                                          {"ambient", "ambient"}};
    json_t *c = json_object();
    int rc = 0;

    if (!c)
        return bx_error_set(err, BX_ENOMEM, NULL, "out of memory");
    if (caps && !json_is_object(caps)) {
        json_decref(c);
        return bx_error_set(err, BX_EINVAL, "config.json:/process/capabilities", "not an object");
    }
    for (size_t i = 0; rc == 0 && i < 5; i++) {
        uint64_t bits;
        if (cap_set(json_object_get(caps, sets[i][0]), &bits) != 0)
            rc = bx_error_set(err, BX_EINVAL, "config.json:/process/capabilities",
                              "%s is not a list of known capabilities", sets[i][0]);
        else if (json_object_set_new(c, sets[i][1], bxa_cap_names(bits)) != 0)
            rc = bx_error_set(err, BX_ENOMEM, NULL, "out of memory");
    }
    if (rc == 0 && json_object_set_new(view, "capabilities", c) != 0)
        rc = bx_error_set(err, BX_ENOMEM, NULL, "out of memory");
    else if (rc != 0)
        json_decref(c);
    return rc;
}

/* linux.namespaces: a type listed without a path is the task's own (private); listed with a
 * path it joins another's (private from the host's point of view unless it is one of the
 * host's: not knowable here, so null); not listed: the host's. */
static json_t *ns_view(const json_t *list)
{
    static const char *const map[][2] = {{"pid", "pid"},   {"ipc", "ipc"},
                                         {"uts", "uts"},   {"network", "net"},
                                         {"user", "user"}, {"cgroup", "cgroup"}};
    json_t *r = json_object();
    const json_t *v;
    size_t i;

    for (size_t k = 0; r && k < 6; k++) {
        json_t *mode = json_string("host");
        json_array_foreach(list, i, v)
        {
            const char *t = json_string_value(json_object_get(v, "type"));
            if (!t || strcmp(t, map[k][0]) != 0)
                continue;
            json_decref(mode);
            mode = json_object_get(v, "path") ? json_null() : json_string("private");
        }
        json_object_set_new(r, map[k][1], mode);
    }
    return r;
}

/* A limit of linux.resources: positive is a limit, anything else none. */
static json_t *limit_of(const json_t *v)
{
    return json_is_integer(v) && json_integer_value(v) > 0 &&
                   json_integer_value(v) <= BX_JSON_MAX_INT
               ? json_integer(json_integer_value(v))
               : json_null();
}

/* linux.resources.cpu.cpus or .mems: absent or "" is every one (null); a list in canonical
 * form; one that does not parse is kept as written (it then differs from every other view). */
static json_t *cpuset_of(const json_t *v)
{
    const char *s = json_string_value(v);
    char *canon;
    bx_error e;
    json_t *r;

    if (!s || !*s)
        return json_null();
    if (!(canon = malloc(BXA_CPULIST_LEN)))
        return NULL;
    r = json_string(bxa_parse_cpulist(s, strlen(s), canon, BXA_CPULIST_LEN, &e) == 0 ? canon : s);
    free(canon);
    return r;
}

static json_t *resources_view(const json_t *res)
{
    const json_t *mem = json_object_get(res, "memory"), *cpu = json_object_get(res, "cpu");
    const json_t *pids = json_object_get(res, "pids");

    return json_pack("{s:o,s:o,s:o,s:o,s:o,s:o,s:o?,s:o?}", "memoryBytes",
                     limit_of(json_object_get(mem, "limit")), "memorySwapBytes",
                     limit_of(json_object_get(mem, "swap")), "pidsLimit",
                     limit_of(json_object_get(pids, "limit")), "cpuShares",
                     limit_of(json_object_get(cpu, "shares")), "cpuQuota",
                     limit_of(json_object_get(cpu, "quota")), "cpuPeriod",
                     limit_of(json_object_get(cpu, "period")), "cpusetCpus",
                     cpuset_of(json_object_get(cpu, "cpus")), "cpusetMems",
                     cpuset_of(json_object_get(cpu, "mems")));
}

/* linux.resources.devices: all devices are allowed when an allow rule names every type and
 * every number with rwm, and no deny rule follows it. */
static int allow_all_devices(const json_t *rules)
{
    const json_t *v;
    size_t i;
    int all = 0;

    json_array_foreach(rules, i, v)
    {
        const char *type = json_string_value(json_object_get(v, "type"));
        const char *acc = json_string_value(json_object_get(v, "access"));
        int every =
            (!type || strcmp(type, "a") == 0) &&
            (!json_object_get(v, "major") || json_integer_value(json_object_get(v, "major")) < 0) &&
            (!json_object_get(v, "minor") || json_integer_value(json_object_get(v, "minor")) < 0);
        if (!every)
            continue;
        all = json_is_true(json_object_get(v, "allow")) && acc && strchr(acc, 'r') &&
              strchr(acc, 'w') && strchr(acc, 'm');
    }
    return all;
}

static json_t *sorted_strings(const json_t *list)
{
    const json_t *v;
    size_t i;
    json_t *r;

    if (!json_is_array(list))
        return json_array();
    json_array_foreach(list, i, v) if (!json_is_string(v)) return NULL;
    r = json_deep_copy(list);
    bxa_sort_strings(r);
    return r;
}

/* linux.sysctl: {name: value}; NULL (unreadable) when a value is not a string. */
static json_t *sysctl_view(const json_t *sysctl)
{
    const char *name;
    const json_t *v;
    json_t *out = json_object();

    json_object_foreach((json_t *)sysctl, name, v)
    {
        if (!out || !json_is_string(v) || json_object_set(out, name, (json_t *)v) != 0) {
            json_decref(out);
            return NULL;
        }
    }
    return out;
}

int bxa_spec_view(const json_t *config, json_t **view, char seccomp_sha[65], bx_error *err)
{
    const json_t *proc = json_object_get(config, "process"),
                 *linux = json_object_get(config, "linux");
    const json_t *user = json_object_get(proc, "user"),
                 *seccomp = json_object_get(linux, "seccomp");
    const json_t *g, *root = json_object_get(config, "root");
    json_t *v = json_object(), *groups = json_array();
    json_int_t uid = id_of(json_object_get(user, "uid")), gid = id_of(json_object_get(user, "gid"));
    size_t i;
    int rc = 0;

    *view = NULL;
    seccomp_sha[0] = '\0';
    if (!v || !groups) {
        rc = bx_error_set(err, BX_ENOMEM, NULL, "out of memory");
        goto out;
    }
    if (!json_is_object(config) || !json_is_object(proc) || !json_is_object(linux) ||
        !json_is_object(root) || !json_is_object(user)) {
        rc = bx_error_set(err, BX_EINVAL, "config.json", "not an OCI runtime spec");
        goto out;
    }
    if (uid < 0 || gid < 0) {
        rc = bx_error_set(err, BX_EINVAL, "config.json:/process/user", "no uid or gid");
        goto out;
    }
    json_array_foreach(json_object_get(user, "additionalGids"), i, g)
    {
        if (id_of(g) < 0 || json_array_append_new(groups, json_integer(id_of(g))) != 0) {
            rc = bx_error_set(err, BX_EINVAL, "config.json:/process/user", "bad additionalGids");
            goto out;
        }
    }
    if (seccomp && !json_is_null(seccomp) &&
        (rc = bx_jcs_sha256_hex(seccomp, seccomp_sha, err)) != 0)
        goto out;
    if ((rc = caps_view(json_object_get(proc, "capabilities"), v, err)) != 0)
        goto out;
    bxa_sort_ints(groups);
    struct {
        const char *key;
        json_t *val;
    } m[] = {
        {"rootfs", json_pack("{s:b}", "readOnly", json_is_true(json_object_get(root, "readonly")))},
        {"noNewPrivileges", json_boolean(json_is_true(json_object_get(proc, "noNewPrivileges")))},
        {"seccomp", json_pack("{s:s,s:s?}", "mode", seccomp_sha[0] ? "filter" : "disabled",
                              "profileSha256", seccomp_sha[0] ? seccomp_sha : NULL)},
        {"user", json_pack("{s:[IIII],s:[IIII],s:O}", "uids", uid, uid, uid, uid, "gids", gid, gid,
                           gid, gid, "groups", groups)},
        {"namespaces", ns_view(json_object_get(linux, "namespaces"))},
        {"resources", resources_view(json_object_get(linux, "resources"))},
        {"devices",
         json_pack("{s:b}", "allowAll", allow_all_devices(at(linux, "resources", "devices")))},
        {"maskedPaths", sorted_strings(json_object_get(linux, "maskedPaths"))},
        {"readonlyPaths", sorted_strings(json_object_get(linux, "readonlyPaths"))},
        {"sysctls", sysctl_view(json_object_get(linux, "sysctl"))},
    };
    for (size_t k = 0; k < sizeof m / sizeof m[0]; k++) {
        if (rc == 0 && (!m[k].val || json_object_set(v, m[k].key, m[k].val) != 0))
            rc = bx_error_set(err, BX_EINVAL, "config.json", "cannot read the spec's %s", m[k].key);
        json_decref(m[k].val);
    }
    if (rc != 0)
        goto out;
    *view = v;
    v = NULL;
out:
    json_decref(groups);
    json_decref(v);
    return rc;
}

/* ---- config.json, read for the kernel view -------------------------------------------------- */

int bxa_spec_read(bxa_kctx *k)
{
    static const char *const env[] = {"process", "env", NULL};
    char path[PATH_MAX], sha[65], *buf = NULL, *red = NULL;
    size_t len = 0, rlen = 0;
    int rc;
    json_t *view = NULL;
    const char *root = k->s->paths.task_root ? k->s->paths.task_root : TASK_ROOT;

    if (k->s->oci_config)
        snprintf(path, sizeof path, "%s", k->s->oci_config);
    else
        snprintf(path, sizeof path, "%s/%s/config.json", root, k->s->id);
    {
        int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
        if (fd < 0)
            return 0; /* not here: no spec view */
        close(fd);
    }
    if ((rc = bx_read_file(path, SPEC_MAX, 0, &buf, &len, k->err)) != 0)
        goto out;
    if ((rc = bx_json_parse_strict(buf, len, BX_JSON_OBJECT, &k->spec_json, k->err)) != 0) {
        bx_error_prefix(k->err, "config.json");
        goto out;
    }
    if ((rc = bxa_redact_env(buf, len, env, &red, &rlen, k->err)) != 0 ||
        (rc = bxa_evidence_add(k->ev, BXA_EV_SPEC, "config.json", red, rlen, k->err)) != 0 ||
        (rc = bxa_spec_view(k->spec_json, &view, sha, k->err)) != 0)
        goto out;
    k->v->spec = view;
    view = NULL;
out:
    json_decref(view);
    free(buf);
    free(red);
    return rc;
}
