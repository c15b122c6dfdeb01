/* SPDX-License-Identifier: Apache-2.0 */
/* The engine-level predicate from recorded Engine API replies: every folder of
 * fixtures/inspect/ holds version.json, info.json, container.json, image.json, optionally
 * network.json, and expected.json:
 *   {"opts": {"expectImage": "sha256:..."|null},      (optional)
 *    "fields": {"<JSON pointer in the predicate>": <expected value>, ...}}
 * Then fail-closed cases made by changing the recorded hardened session in memory.
 * BOXCERT_DUMP=1 prints each predicate (to write a new expected.json). */
#include "tap.h"
#include "bx_attest.h"

#include <dirent.h>
#include <stdlib.h>
#include <string.h>

#define DIR_INSPECT BOXCERT_SOURCE_DIR "/fixtures/inspect"
#define NOW 1767225600 /* 2026-01-01T00:00:00Z */
#define NONCE "00112233445566778899aabbccddeeff"

typedef struct {
    json_t *version, *info, *c, *img, *net, *expected;
    char *raw_c, *raw_img;
    size_t raw_c_len, raw_img_len;
} fixture;

static char *slurp(const char *dir, const char *name, size_t *len)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    return tap_slurp(path, len);
}

static json_t *load(const char *dir, const char *name, char **raw, size_t *rawlen)
{
    size_t len = 0;
    char *buf = slurp(dir, name, &len);
    json_t *j = buf ? json_loadb(buf, len, JSON_REJECT_DUPLICATES, NULL) : NULL;

    if (raw) {
        *raw = buf;
        *rawlen = len;
    } else {
        free(buf);
    }
    return j;
}

static void fixture_free(fixture *f)
{
    json_decref(f->version);
    json_decref(f->info);
    json_decref(f->c);
    json_decref(f->img);
    json_decref(f->net);
    json_decref(f->expected);
    free(f->raw_c);
    free(f->raw_img);
    memset(f, 0, sizeof *f);
}

static int fixture_load(const char *dir, fixture *f)
{
    memset(f, 0, sizeof *f);
    f->version = load(dir, "version.json", NULL, NULL);
    f->info = load(dir, "info.json", NULL, NULL);
    f->c = load(dir, "container.json", &f->raw_c, &f->raw_c_len);
    f->img = load(dir, "image.json", &f->raw_img, &f->raw_img_len);
    f->net = load(dir, "network.json", NULL, NULL);
    f->expected = load(dir, "expected.json", NULL, NULL);
    return f->version && f->info && f->c && f->img && f->expected ? 0 : -1;
}

/* RFC 6901 lookup (~0 and ~1 unescaped). */
static json_t *pointer(json_t *root, const char *ptr)
{
    char seg[256];
    json_t *v = root;

    while (v && *ptr == '/') {
        size_t n = 0;
        for (ptr++; *ptr && *ptr != '/' && n + 1 < sizeof seg; ptr++) {
            if (*ptr == '~' && (ptr[1] == '0' || ptr[1] == '1'))
                seg[n++] = *++ptr == '0' ? '~' : '/';
            else
                seg[n++] = *ptr;
        }
        seg[n] = '\0';
        if (json_is_array(v)) {
            char *end;
            unsigned long i = strtoul(seg, &end, 10);
            v = *end ? NULL : json_array_get(v, i);
        } else {
            v = json_object_get(v, seg);
        }
    }
    return v;
}

static int build(fixture *f, const char *expect_image, const char *nonce, json_t **p, bx_error *e)
{
    bx_collect_opts o = {
        .container = "x", .now = NOW, .ttl = 86400, .expect_image = expect_image, .nonce = nonce};
    return bx_predicate_from_inspect(f->version, f->info, f->c, f->img, f->net, f->raw_c,
                                     f->raw_c_len, f->raw_img, f->raw_img_len, &o,
                                     "unix:///var/run/docker.sock", p, e);
}

static void check_case(const char *name, fixture *f)
{
    json_t *p = NULL, *fields = json_object_get(f->expected, "fields"), *want;
    const char *ptr, *pin = json_string_value(pointer(f->expected, "/opts/expectImage"));
    bx_error e;
    char inputs[65];

    ok_err(build(f, pin, NONCE, &p, &e), &e, "%s: predicate built", name);
    if (!p)
        return;
    if (getenv("BOXCERT_DUMP")) {
        char *s = json_dumps(p, JSON_INDENT(1) | JSON_SORT_KEYS);
        printf("# %s:\n%s\n", name, s);
        free(s);
    }
    ok(json_object_size(fields) > 10, "%s: expected.json asserts fields", name);
    json_object_foreach(fields, ptr, want)
    {
        json_t *got = pointer(p, ptr);
        if (!ok(got && json_equal(got, want), "%s: %s", name, ptr)) {
            char *g = got ? json_dumps(got, JSON_ENCODE_ANY | JSON_COMPACT) : NULL;
            char *w = json_dumps(want, JSON_ENCODE_ANY | JSON_COMPACT);
            printf("#   got  %s\n#   want %s\n", g ? g : "(absent)", w ? w : "?");
            free(g);
            free(w);
        }
    }
    ok(bx_predicate_inputs_sha256(p, inputs, &e) == 0 &&
           strcmp(inputs, json_string_value(json_object_get(p, "inputsSha256"))) == 0,
       "%s: inputsSha256 recomputes", name);
    json_decref(p);
}

/* Every member of certificate.md section 3 is present, whatever its value. */
static void check_complete(fixture *f)
{
    static const char *const must[] = {
        "/collector/name",
        "/collector/version",
        "/issuedAt",
        "/expiresAt",
        "/nonce",
        "/host/hostname",
        "/host/bootId",
        "/engine/kind",
        "/engine/version",
        "/engine/apiVersion",
        "/engine/id",
        "/engine/endpoint",
        "/engine/tlsPeerSha256",
        "/session/containerId",
        "/session/name",
        "/session/startedAt",
        "/session/pid",
        "/session/labels",
        "/session/restartPolicy",
        "/session/execCount",
        "/image/id",
        "/image/ref",
        "/image/repoDigests",
        "/image/pin",
        "/source",
        "/containment/runtime/name",
        "/containment/runtime/path",
        "/containment/runtime/args",
        "/containment/network/mode",
        "/containment/network/internal",
        "/containment/network/interfaces",
        "/containment/network/ports",
        "/containment/rootfs/readOnly",
        "/containment/capabilities/add",
        "/containment/capabilities/drop",
        "/containment/capabilities/effective",
        "/containment/capabilities/permitted",
        "/containment/capabilities/inheritable",
        "/containment/capabilities/ambient",
        "/containment/capabilities/bounding",
        "/containment/noNewPrivileges",
        "/containment/seccomp/mode",
        "/containment/seccomp/profile",
        "/containment/seccomp/profileSha256",
        "/containment/apparmor/profile",
        "/containment/apparmor/available",
        "/containment/selinux/label",
        "/containment/selinux/available",
        "/containment/privileged",
        "/containment/user/spec",
        "/containment/user/uids",
        "/containment/user/gids",
        "/containment/user/groups",
        "/containment/namespaces/pid/engine",
        "/containment/namespaces/ipc/kernel",
        "/containment/namespaces/uts/engine",
        "/containment/namespaces/net/engine",
        "/containment/namespaces/user/engine",
        "/containment/namespaces/cgroup/engine",
        "/containment/resources/memoryBytes",
        "/containment/resources/memorySwapBytes",
        "/containment/resources/pidsLimit",
        "/containment/resources/nanoCpus",
        "/containment/resources/cpuShares",
        "/containment/resources/cpuQuota",
        "/containment/resources/cpuPeriod",
        "/containment/resources/cgroupParent",
        "/containment/writeSurface",
        "/containment/mounts",
        "/containment/devices/devices",
        "/containment/devices/cgroupRules",
        "/containment/devices/allowAll",
        "/containment/maskedPaths",
        "/containment/readonlyPaths",
        "/requested",
        "/evidence/level",
        "/evidence/engineInspectSha256",
        "/evidence/kernelSha256",
        "/evidence/ociSpecSha256",
        "/evidence/sandbox",
        "/evidence/discrepancies",
        "/inputsSha256",
    };
    json_t *p = NULL;
    bx_error e;
    size_t missing = 0;

    if (build(f, NULL, NULL, &p, &e) != 0) {
        ok(0, "complete: built (%s)", e.msg);
        return;
    }
    for (size_t i = 0; i < sizeof must / sizeof must[0]; i++)
        if (!pointer(p, must[i])) {
            printf("#   missing %s\n", must[i]);
            missing++;
        }
    is_int(missing, 0, "every predicate field is present");
    const char *nonce = json_string_value(json_object_get(p, "nonce"));
    ok(nonce && strlen(nonce) == 32 && strspn(nonce, "0123456789abcdef") == 32,
       "random nonce: 128 bits as lowercase hex");
    json_t *q = NULL;
    if (build(f, NULL, NULL, &q, &e) == 0)
        ok(strcmp(nonce, json_string_value(json_object_get(q, "nonce"))) != 0 &&
               json_equal(json_object_get(p, "inputsSha256"), json_object_get(q, "inputsSha256")),
           "nonce differs between collections, inputsSha256 does not");
    json_decref(q);
    json_decref(p);
}

/* Build from f with one change to the container inspect; returns the rc. */
static int mutated(fixture *f, const char *ptr_parent, const char *key, json_t *value,
                   const char *pin, bx_error *e)
{
    json_t *saved = json_deep_copy(f->c), *p = NULL;
    int rc;

    json_object_set_new(pointer(f->c, ptr_parent), key, value);
    rc = build(f, pin, NONCE, &p, e);
    json_decref(p);
    json_decref(f->c);
    f->c = saved;
    return rc;
}

static void fail_closed(fixture *f)
{
    char img[80];
    const char *other = "sha256:0000000000000000000000000000000000000000000000000000000000000000";
    json_t *p = NULL, *saved, *net;
    bx_error e;
    int rc;

    snprintf(img, sizeof img, "%s", json_string_value(json_object_get(f->c, "Image")));
    rc = mutated(f, "/State", "Running", json_false(), NULL, &e);
    ok(rc == BX_EDENIED && strstr(e.msg, "is not running"), "stopped session refused (%s)", e.msg);
    rc = mutated(f, "/State", "Running", json_true(), other, &e);
    ok(rc == BX_EDENIED && strstr(e.msg, "expected"), "other image refused (%s)", e.msg);
    rc = mutated(f, "/State", "Running", json_false(), other, &e);
    ok(rc == BX_EDENIED && strstr(e.msg, "expected"), "image checked before running (%s)", e.msg);
    rc = build(f, img, NONCE, &p, &e);
    ok(rc == 0 && json_equal(pointer(p, "/image/pin"), json_object_get(f->c, "Image")),
       "pin recorded when it matches");
    json_decref(p);
    p = NULL;

    rc = mutated(f, "/Config", "User", json_stringn("ro\0ot", 5), NULL, &e);
    ok(rc == BX_EINVAL && strstr(e.where, "/Config/User"), "NUL in a string refused (%s: %s)",
       e.where, e.msg);
    rc = mutated(f, "/HostConfig", "Memory", json_integer(9007199254740993LL), NULL, &e);
    ok(rc == BX_EINVAL && strstr(e.msg, "2^53"), "integer beyond 2^53 refused (%s)", e.msg);
    rc = mutated(f, "/HostConfig", "Memory", json_real(1.5), NULL, &e);
    ok(rc == BX_EINVAL, "real number refused (%s)", e.msg);
    rc = mutated(f, "/HostConfig", "Memory", json_integer(-5), NULL, &e);
    ok(rc == BX_EINVAL, "negative limit refused (%s)", e.msg);
    rc = mutated(f, "/HostConfig", "CapAdd", json_pack("[s]", "CAP_FLY"), NULL, &e);
    ok(rc == BX_EINVAL, "unknown capability refused (%s)", e.msg);
    rc = mutated(f, "/HostConfig", "SecurityOpt", json_pack("[s]", "mystery=1"), NULL, &e);
    ok(rc == BX_EUNSUPPORTED, "unknown security option refused (%s)", e.msg);
    rc = mutated(f, "/HostConfig", "SecurityOpt", json_pack("[s]", "no-new-privileges=maybe"), NULL,
                 &e);
    ok(rc == BX_EINVAL, "bad no-new-privileges refused (%s)", e.msg);
    rc = mutated(f, "", "Id", json_string("abc"), NULL, &e);
    ok(rc == BX_EINVAL, "bad container Id refused (%s)", e.msg);
    rc = mutated(f, "", "Image", json_string(other), NULL, &e);
    ok(rc == BX_EINVAL && strstr(e.msg, "not of the container's image"),
       "image inspect of another image refused (%s)", e.msg);
    rc = mutated(f, "/State", "StartedAt", json_string("yesterday"), NULL, &e);
    ok(rc == BX_EINVAL, "bad StartedAt refused (%s)", e.msg);
    rc = mutated(f, "", "HostConfig", json_string("x"), NULL, &e);
    ok(rc == BX_EINVAL, "HostConfig not an object refused (%s)", e.msg);

    /* a network inspect of another network than the session's */
    saved = json_deep_copy(f->c);
    json_object_set_new(pointer(f->c, "/HostConfig"), "NetworkMode", json_string("mynet"));
    net = json_pack("{s:s,s:s,s:b}", "Name", "othernet", "Id", "1234", "Internal", 1);
    f->net = net;
    rc = build(f, NULL, NONCE, &p, &e);
    ok(rc == BX_EINVAL, "network inspect of another network refused (%s)", e.msg);
    json_object_set_new(net, "Name", json_string("mynet"));
    rc = build(f, NULL, NONCE, &p, &e);
    ok(rc == 0 && json_is_true(pointer(p, "/containment/network/internal")),
       "named network: internal from its inspect");
    json_decref(p);
    p = NULL;
    f->net = NULL;
    json_decref(net);
    json_decref(f->c);
    f->c = saved;

    bx_collect_opts o = {.container = "x", .now = NOW, .ttl = 0};
    rc = bx_predicate_from_inspect(f->version, f->info, f->c, f->img, NULL, "", 0, "", 0, &o,
                                   "unix:///x", &p, &e);
    ok(rc == BX_ECONFIG, "ttl 0 refused");
    o.ttl = 60;
    o.nonce = "ABCD";
    rc = bx_predicate_from_inspect(f->version, f->info, f->c, f->img, NULL, "", 0, "", 0, &o,
                                   "unix:///x", &p, &e);
    ok(rc == BX_ECONFIG, "upper-case nonce refused");
    o.nonce = NULL;
    o.expect_image = "sha256:ABC";
    rc = bx_predicate_from_inspect(f->version, f->info, f->c, f->img, NULL, "", 0, "", 0, &o,
                                   "unix:///x", &p, &e);
    ok(rc == BX_ECONFIG, "malformed expected image refused");
}

/* Docker's capability arithmetic and other engine-level readings, on the hardened case. */
static void semantics(fixture *f)
{
    struct {
        const char *add, *drop;
        int priv;
        size_t n_eff;
        const char *has, *lacks;
    } t[] = {
        {"[]", "[]", 0, 14, "NET_RAW", "NET_ADMIN"},
        {"[\"cap_net_admin\"]", "[\"net_raw\"]", 0, 14, "NET_ADMIN", "NET_RAW"},
        {"[\"ALL\"]", "[\"SYS_RESOURCE\"]", 0, 37, "SYS_ADMIN", "SYS_RESOURCE"},
        {"[\"CHOWN\"]", "[\"ALL\"]", 0, 1, "CHOWN", "KILL"},
        {"[\"ALL\"]", "[\"ALL\"]", 0, 38, "AUDIT_READ", "CHECKPOINT_RESTORE"},
        {"[]", "[\"ALL\"]", 1, 38, "SYS_MODULE", "BPF"},
    };
    json_t *saved = json_deep_copy(f->c), *p = NULL, *hc = json_object_get(f->c, "HostConfig");
    bx_error e;

    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        json_object_set_new(hc, "CapAdd", json_loads(t[i].add, 0, NULL));
        json_object_set_new(hc, "CapDrop", json_loads(t[i].drop, 0, NULL));
        json_object_set_new(hc, "Privileged", json_boolean(t[i].priv));
        if (build(f, NULL, NONCE, &p, &e) != 0) {
            ok(0, "caps %zu: built (%s)", i, e.msg);
            continue;
        }
        json_t *eff = pointer(p, "/containment/capabilities/effective"), *v;
        size_t k;
        int has = 0, lacks = 1, sorted = 1;
        json_array_foreach(eff, k, v)
        {
            has |= t[i].has && strcmp(json_string_value(v), t[i].has) == 0;
            lacks &= !t[i].lacks || strcmp(json_string_value(v), t[i].lacks) != 0;
            sorted &= k == 0 || strcmp(json_string_value(json_array_get(eff, k - 1)),
                                       json_string_value(v)) < 0;
        }
        ok(json_array_size(eff) == t[i].n_eff && has && lacks && sorted,
           "caps add %s drop %s%s: %zu effective (got %zu)", t[i].add, t[i].drop,
           t[i].priv ? " privileged" : "", t[i].n_eff, json_array_size(eff));
        json_decref(p);
        p = NULL;
    }
    json_decref(f->c);
    f->c = saved;

    /* Docker 23 on: ALL and privileged are every capability (PERFMON, BPF, CHECKPOINT_RESTORE
     * too); before 23, and for a version of no number, as above / the larger set */
    static const struct {
        const char *version, *add;
        int priv;
        size_t n_eff;
    } ver[] = {
        {"26.1.5+dfsg1", "[]", 1, 41},   {"23.0.0", "[\"ALL\"]", 0, 41},
        {"22.06.2", "[]", 1, 38},        {"20.10.24+dfsg1", "[\"ALL\"]", 0, 38},
        {"dev", "[]", 1, 41},
    };
    json_t *saved_v = json_deep_copy(f->version);
    saved = json_deep_copy(f->c);
    for (size_t i = 0; i < sizeof ver / sizeof ver[0]; i++) {
        json_object_set_new(f->version, "Version", json_string(ver[i].version));
        json_object_set_new(hc = json_object_get(f->c, "HostConfig"), "CapAdd",
                            json_loads(ver[i].add, 0, NULL));
        json_object_set_new(hc, "CapDrop", json_pack("[]"));
        json_object_set_new(hc, "Privileged", json_boolean(ver[i].priv));
        if (build(f, NULL, NONCE, &p, &e) != 0) {
            ok(0, "caps on %s: built (%s)", ver[i].version, e.msg);
            continue;
        }
        json_t *eff = pointer(p, "/containment/capabilities/effective"), *x;
        size_t k;
        int bpf = 0;
        json_array_foreach(eff, k, x) bpf |= strcmp(json_string_value(x), "BPF") == 0;
        ok(json_array_size(eff) == ver[i].n_eff && bpf == (ver[i].n_eff == 41),
           "Docker %s, %s: %zu effective (got %zu), BPF %s", ver[i].version,
           ver[i].priv ? "privileged" : "add ALL", ver[i].n_eff, json_array_size(eff),
           bpf ? "in" : "not in");
        json_decref(p);
        p = NULL;
    }
    json_decref(f->version);
    f->version = saved_v;
    json_decref(f->c);
    f->c = saved;

    static const struct {
        const char *opt;
        int nnp;
    } nnp[] = {{"no-new-privileges", 1},       {"no-new-privileges=true", 1},
               {"no-new-privileges:true", 1},  {"no-new-privileges=false", 0},
               {"no-new-privileges:false", 0}, {"label=disable", 0}};
    for (size_t i = 0; i < sizeof nnp / sizeof nnp[0]; i++) {
        saved = json_deep_copy(f->c);
        json_object_set_new(json_object_get(f->c, "HostConfig"), "SecurityOpt",
                            json_pack("[s]", nnp[i].opt));
        int rc = build(f, NULL, NONCE, &p, &e);
        ok(rc == 0 && json_is_boolean(pointer(p, "/containment/noNewPrivileges")) &&
               json_is_true(pointer(p, "/containment/noNewPrivileges")) == nnp[i].nnp,
           "SecurityOpt %s: noNewPrivileges %d", nnp[i].opt, nnp[i].nnp);
        json_decref(p);
        p = NULL;
        json_decref(f->c);
        f->c = saved;
    }

    saved = json_deep_copy(f->c);
    json_object_set_new(json_object_get(f->c, "HostConfig"), "SecurityOpt",
                        json_pack("[s]", "seccomp=unconfined"));
    json_t *want =
        json_pack("{s:s,s:s,s:n}", "mode", "disabled", "profile", "unconfined", "profileSha256");
    if (build(f, NULL, NONCE, &p, &e) == 0)
        ok(json_equal(pointer(p, "/containment/seccomp"), want), "seccomp=unconfined: disabled");
    json_decref(want);
    json_decref(p);
    p = NULL;
    json_object_set_new(json_object_get(f->c, "HostConfig"), "SecurityOpt",
                        json_pack("[s]", "seccomp={\"defaultAction\":\"SCMP_ACT_ERRNO\"}"));
    if (build(f, NULL, NONCE, &p, &e) == 0)
        is_str(json_string_value(pointer(p, "/containment/seccomp/profile")), "custom",
               "seccomp=<profile>: custom");
    json_decref(p);
    p = NULL;
    json_object_set_new(json_object_get(f->c, "HostConfig"), "Tmpfs",
                        json_pack("{s:s,s:s,s:s}", "/a", "size=2k,mode=1777", "/b", "size=50%",
                                  "/c", "nosuid,size=3G"));
    if (build(f, NULL, NONCE, &p, &e) == 0) {
        json_t *ws = pointer(p, "/containment/writeSurface"), *v;
        size_t k;
        json_int_t a = -2, b = -2, c = -2;
        json_array_foreach(ws, k, v)
        {
            const char *path = json_string_value(json_object_get(v, "path"));
            json_t *sz = json_object_get(v, "sizeBytes");
            json_int_t n = json_is_null(sz) ? -1 : json_integer_value(sz);
            if (!strcmp(path, "/a"))
                a = n;
            if (!strcmp(path, "/b"))
                b = n;
            if (!strcmp(path, "/c"))
                c = n;
        }
        ok(a == 2048 && b == -1 && c == 3LL << 30, "tmpfs sizes: 2k, percent (null), 3G");
    }
    json_decref(p);
    json_decref(f->c);
    f->c = saved;
}

/* HostConfig.PortBindings (asked) against NetworkSettings.Ports (made): both the engine's;
 * the bindings made are recorded, a difference is a discrepancy. */
static void ports(fixture *f)
{
    static const struct {
        const char *asked, *made;
        int discrepancy;
    } t[] = {
        {"{\"80/tcp\":[{\"HostIp\":\"127.0.0.1\",\"HostPort\":\"18080\"}]}",
         "{\"80/tcp\":[{\"HostIp\":\"127.0.0.1\",\"HostPort\":\"18080\"}]}", 0},
        {"{\"80/tcp\":[{\"HostIp\":\"127.0.0.1\",\"HostPort\":\"18080\"}]}", "{}", 1},
        {"{\"80/tcp\":[{\"HostIp\":\"\",\"HostPort\":\"\"}]}",
         "{\"80/tcp\":[{\"HostIp\":\"0.0.0.0\",\"HostPort\":\"49153\"},{\"HostIp\":\"::\","
         "\"HostPort\":\"49153\"}]}",
         0},
        {"{}", "{\"80/tcp\":[{\"HostIp\":\"0.0.0.0\",\"HostPort\":\"80\"}]}", 1},
        {"{\"80/tcp\":[{\"HostIp\":\"127.0.0.1\",\"HostPort\":\"80\"}]}",
         "{\"80/tcp\":[{\"HostIp\":\"0.0.0.0\",\"HostPort\":\"80\"}]}", 1},
        {"{}", "{\"80/tcp\":null}", 0},
    };
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        json_t *saved = json_deep_copy(f->c), *p = NULL, *d;
        bx_error e;
        size_t k;
        int found = 0;
        json_object_set_new(json_object_get(f->c, "HostConfig"), "PortBindings",
                            json_loads(t[i].asked, 0, NULL));
        json_object_set_new(json_object_get(f->c, "NetworkSettings"), "Ports",
                            json_loads(t[i].made, 0, NULL));
        if (build(f, NULL, NONCE, &p, &e) != 0) {
            ok(0, "ports %zu: built (%s)", i, e.msg);
        } else {
            json_array_foreach(pointer(p, "/evidence/discrepancies"), k, d)
            {
                if (!strcmp(json_string_value(json_object_get(d, "field")),
                            "containment.network.ports")) {
                    found = 1;
                    ok(json_equal(json_object_get(d, "recorded"),
                                  pointer(p, "/containment/network/ports")),
                       "ports %zu: the bindings made are recorded", i);
                }
            }
            ok(found == t[i].discrepancy, "ports asked %s, made %s: %s", t[i].asked, t[i].made,
               t[i].discrepancy ? "a discrepancy" : "none");
        }
        json_decref(p);
        json_decref(f->c);
        f->c = saved;
    }
}

int main(void)
{
    DIR *d = opendir(DIR_INSPECT);
    struct dirent *de;
    fixture f, hardened = {0};
    int cases = 0;

    if (!d) {
        ok(0, "open %s", DIR_INSPECT);
        return tap_done();
    }
    while ((de = readdir(d)) != NULL) {
        char dir[1024];
        if (de->d_name[0] == '.')
            continue;
        snprintf(dir, sizeof dir, "%s/%s", DIR_INSPECT, de->d_name);
        if (!ok(fixture_load(dir, &f) == 0, "%s: fixture loads", de->d_name))
            continue;
        cases++;
        check_case(de->d_name, &f);
        if (strcmp(de->d_name, "hardened") == 0)
            hardened = f;
        else
            fixture_free(&f);
    }
    closedir(d);
    ok(cases >= 4, "at least four recorded sessions (%d)", cases);
    if (ok(hardened.c != NULL, "hardened case present")) {
        check_complete(&hardened);
        fail_closed(&hardened);
        semantics(&hardened);
        ports(&hardened);
        fixture_free(&hardened);
    }
    return tap_done();
}
