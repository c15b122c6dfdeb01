/* SPDX-License-Identifier: Apache-2.0 */
/* The closed schema of the predicate (schema/predicate.c, through bx_statement_check):
 * it accepts the statement around the predicate built from every fixtures/inspect case,
 * and refuses targeted changes of the hardened one, each with the JSON pointer of the
 * value at fault. Lives with attest's tests because it builds predicates with
 * bx_predicate_from_inspect. */
#include "tap.h"
#include "bx_attest.h"

#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define DIR_INSPECT BOXCERT_SOURCE_DIR "/fixtures/inspect"
#define NOW 1767225600 /* 2026-01-01T00:00:00Z */
#define NONCE "00112233445566778899aabbccddeeff"
#define HEX64 "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
#define COMMIT "0123456789abcdef0123456789abcdef01234567"

static json_t *load(const char *dir, const char *name, char **raw, size_t *rawlen)
{
    char path[1024];
    json_error_t je;
    snprintf(path, sizeof path, "%s/%s", dir, name);
    json_t *j = json_load_file(path, JSON_REJECT_DUPLICATES, &je);
    if (j && raw) {
        *raw = json_dumps(j, JSON_COMPACT);
        *rawlen = *raw ? strlen(*raw) : 0;
    }
    return j;
}

/* The predicate of one recorded case (pinned when its expected.json says so). */
static json_t *predicate_of(const char *dir, bx_error *e)
{
    json_t *version = load(dir, "version.json", NULL, NULL),
           *info = load(dir, "info.json", NULL, NULL);
    json_t *net = load(dir, "network.json", NULL, NULL),
           *exp = load(dir, "expected.json", NULL, NULL);
    char *raw_c = NULL, *raw_i = NULL;
    size_t lc = 0, li = 0;
    json_t *c = load(dir, "container.json", &raw_c, &lc),
           *img = load(dir, "image.json", &raw_i, &li);
    json_t *p = NULL;
    bx_collect_opts o = {.container = "x",
                         .now = NOW,
                         .ttl = 3650LL * 86400,
                         .nonce = NONCE,
                         .expect_image = json_string_value(
                             json_object_get(json_object_get(exp, "opts"), "expectImage"))};
    if (version && info && c && img &&
        bx_predicate_from_inspect(version, info, c, img, net, raw_c, lc, raw_i, li, &o,
                                  "unix:///var/run/docker.sock", &p, e) != 0)
        p = NULL;
    json_decref(version);
    json_decref(info);
    json_decref(net);
    json_decref(exp);
    json_decref(c);
    json_decref(img);
    free(raw_c);
    free(raw_i);
    return p;
}

static int check_pred(json_t *pred, const char *source, bx_error *e)
{
    json_t *st = NULL;
    int rc = bx_statement_build(pred, source, &st, e);
    if (rc == 0)
        rc = bx_statement_check(st, e);
    json_decref(st);
    return rc;
}

static void every_case(void)
{
    DIR *d = opendir(DIR_INSPECT);
    struct dirent *ent;
    int n = 0;

    if (!d) {
        ok(0, "cannot open %s", DIR_INSPECT);
        return;
    }
    while ((ent = readdir(d)) != NULL) {
        char dir[1024];
        bx_error e = {0};
        if (ent->d_name[0] == '.')
            continue;
        snprintf(dir, sizeof dir, "%s/%s", DIR_INSPECT, ent->d_name);
        json_t *p = predicate_of(dir, &e);
        ok(p != NULL, "%.64s: predicate built (%.200s)", ent->d_name, p ? "ok" : e.msg);
        if (!p)
            continue;
        ok_err(check_pred(p, NULL, &e), &e, "%.64s: the closed schema accepts it", ent->d_name);
        json_object_set_new(p, "source", json_pack("{s:b, s:[]}", "dirty", 0, "ignored"));
        ok_err(check_pred(p, COMMIT, &e), &e,
               "%.64s: with a source subject and source {dirty, ignored}", ent->d_name);
        json_object_set_new(p, "source", json_pack("{s:b}", "dirty", 0));
        ok(check_pred(p, COMMIT, &e) != 0, "%.64s: v2 source without ignored refused",
           ent->d_name);
        json_object_set_new(p, "source", json_pack("{s:b, s:[s,s]}", "dirty", 0, "ignored",
                                                   "skip-worktree", "config"));
        ok(check_pred(p, COMMIT, &e) != 0, "%.64s: source.ignored unsorted refused", ent->d_name);
        json_object_set_new(p, "source",
                            json_pack("{s:b, s:[s]}", "dirty", 0, "ignored", "index"));
        ok(check_pred(p, COMMIT, &e) != 0, "%.64s: source.ignored outside its set refused",
           ent->d_name);
        json_object_set_new(p, "source", json_pack("{s:b, s:[s,s,s,s,s]}", "dirty", 0, "ignored",
                                                   "assume-unchanged", "config", "core.worktree",
                                                   "info-attributes", "skip-worktree"));
        ok_err(check_pred(p, COMMIT, &e), &e, "%.64s: every name of source.ignored, sorted",
               ent->d_name);
        json_decref(p);
        n++;
    }
    closedir(d);
    ok(n >= 5, "every recorded case checked (%d)", n);
}

/* One change to the predicate: op is "set" (parent/key = value), "del" or "rename". */
typedef struct {
    const char *parent, *key, *value; /* value: JSON text, or the new key for "rename" */
    const char *op;
    const char *where; /* NULL: accepted */
    const char *msg;   /* substring of the message */
} mutation;

static json_t *pointer(json_t *root, const char *ptr)
{
    char seg[256];
    json_t *v = root;
    while (v && *ptr == '/') {
        size_t n = 0;
        for (ptr++; *ptr && *ptr != '/' && n + 1 < sizeof seg; ptr++)
            seg[n++] = *ptr;
        seg[n] = '\0';
        v = json_is_array(v) ? json_array_get(v, strtoul(seg, NULL, 10)) : json_object_get(v, seg);
    }
    return v;
}

static const mutation mutations[] = {
    {"/containment/network", "foo", "1", "set", "/predicate/containment/network/foo",
     "unknown member"},
    {"/containment", "a/b~c", "1", "set", "/predicate/containment/a~1b~0c", "unknown member"},
    {"", "extra", "{}", "set", "/predicate/extra", "unknown member"},
    {"/containment/network", "mode", "5", "set", "/predicate/containment/network/mode",
     "expected a string or null, found an integer"},
    {"/containment/network", "mode", "\"bad mode\"", "set", "/predicate/containment/network/mode",
     "network name"},
    {"/containment/network", "mode", "\"container:bxc-other\"", "set", NULL, NULL},
    {"/containment/network", "mode", "\"container:\"", "set", "/predicate/containment/network/mode",
     "container:"},
    {"/containment/network", "mode", "null", "set", NULL, NULL},
    {"/containment", "privileged", NULL, "del", "/predicate/containment/privileged",
     "missing member"},
    {"/containment", "privileged", "null", "set", "/predicate/containment/privileged",
     "expected true or false, found null"},
    {"/containment", "privileged", "1.5", "set", "/predicate/containment/privileged", "a real"},
    {"/session", "containerId",
     "\"C34AB363B7ABA303CD2DB5C6ED3A1D6F19EB501255C3523ED3FE359D06512E2C\"", "set",
     "/predicate/session/containerId", "lowercase hex"},
    {"/image", "pin", "\"sha256:A718E8935C8E400EF5418BECCF861E21824480777B4F805EB2DA65C283B74E7C\"",
     "set", "/predicate/image/pin", "lowercase hex"},
    {"/image", "repoDigests", "[\"x@sha256:" HEX64 "\", \"a@sha256:" HEX64 "\"]", "set",
     "/predicate/image/repoDigests/1", "not sorted"},
    {"/image", "repoDigests", "[\"a@sha256:" HEX64 "\", \"x@sha256:" HEX64 "\"]", "set", NULL,
     NULL},
    {"/image", "repoDigests", "[\"a:latest\"]", "set", "/predicate/image/repoDigests/0", "@sha256"},
    {"", "issuedAt", "\"2026-01-01T00:00:00+00:00\"", "set", "/predicate/issuedAt", "RFC 3339"},
    {"", "issuedAt", "\"2026-01-01T00:00:00.5Z\"", "set", "/predicate/issuedAt", "RFC 3339"},
    {"", "issuedAt", "\"2026-02-30T00:00:00Z\"", "set", "/predicate/issuedAt", "RFC 3339"},
    {"", "expiresAt", "\"2025-12-31T23:59:59Z\"", "set", "/predicate/expiresAt", "not after"},
    {"", "nonce", "\"00112233445566778899AABBCCDDEEFF\"", "set", "/predicate/nonce", "lowercase"},
    {"", "nonce", "\"0011\"", "set", "/predicate/nonce", "16 to 128"},
    {"", "inputsSha256", "null", "set", "/predicate/inputsSha256", "found null"},
    {"/engine", "kind", "\"lxc\"", "set", "/predicate/engine/kind", "\"docker\", \"podman\""},
    {"/engine", "apiVersion", "\"v1.41\"", "set", "/predicate/engine/apiVersion", "MAJOR.MINOR"},
    {"/engine", "endpoint", "\"http://x\"", "set", "/predicate/engine/endpoint", "unix://"},
    {"/engine", "tlsPeerSha256", "\"" HEX64 "\"", "set", NULL, NULL},
    {"/host", "bootId", "\"344A9F72-CCDE-41AC-A410-9262EAE3248F\"", "set", "/predicate/host/bootId",
     "UUID"},
    {"/collector", "version", "\"v0.1\"", "set", "/predicate/collector/version",
     "MAJOR.MINOR.PATCH"},
    {"/collector", "version", "\"1.2.3-rc.1\"", "set", NULL, NULL},
    {"/containment/seccomp", "mode", "\"strict\"", "set", "/predicate/containment/seccomp/mode",
     "one of"},
    {"/containment/seccomp", "profileSha256", "\"" HEX64 "\"", "set",
     "/predicate/containment/seccomp/profileSha256", "level engine"},
    {"/containment", "maskedPaths", "[\"/sys\", \"/proc\"]", "set",
     "/predicate/containment/maskedPaths/1", "not sorted"},
    {"/containment", "maskedPaths", "[\"proc\"]", "set", "/predicate/containment/maskedPaths/0",
     "absolute path"},
    {"/containment/capabilities", "effective", "[\"KILL\", \"CHOWN\"]", "set",
     "/predicate/containment/capabilities/effective/1", "not sorted"},
    {"/containment/capabilities", "effective", "[\"CHOWN\", \"CHOWN\"]", "set",
     "/predicate/containment/capabilities/effective/1", "repeated"},
    {"/containment/capabilities", "effective", "[\"CAP_CHOWN\"]", "set",
     "/predicate/containment/capabilities/effective/0", "without CAP_"},
    {"/containment/capabilities", "effective", "[\"CHOWN\", \"KILL\", 41, 63]", "set", NULL, NULL},
    {"/containment/capabilities", "effective", "[41, \"CHOWN\"]", "set",
     "/predicate/containment/capabilities/effective/1", "not sorted"},
    {"/containment/capabilities", "effective", "[64]", "set",
     "/predicate/containment/capabilities/effective/0", "0 to 63"},
    {"/containment/capabilities", "effective", "[\"ALL\"]", "set",
     "/predicate/containment/capabilities/effective/0", "unknown capability"},
    {"/containment/capabilities", "add", "[\"ALL\", \"NET_ADMIN\"]", "set", NULL, NULL},
    {"/containment/capabilities", "add", "[3]", "set", "/predicate/containment/capabilities/add/0",
     "capability name or \"ALL\""},
    {"/containment/user", "uids", "[0, 0, 0]", "set", "/predicate/containment/user/uids",
     "4 items"},
    {"/containment/user", "uids", "[1000, 1000, 1000, 1000]", "set", NULL, NULL},
    {"/containment/user", "groups", "[10, 4]", "set", "/predicate/containment/user/groups/1",
     "not sorted"},
    {"/containment/user", "groups", "[-1]", "set", "/predicate/containment/user/groups/0",
     "from 0 to"},
    {"/containment/namespaces/pid", "kernel", "\"shared\"", "set",
     "/predicate/containment/namespaces/pid/kernel", "one of"},
    {"/containment/namespaces", "clock", "{\"engine\": null, \"kernel\": null}", "set",
     "/predicate/containment/namespaces/clock", "unknown member"},
    {"/containment/namespaces", "time", "{\"engine\": null, \"kernel\": null}", "set",
     "/predicate/containment/namespaces/time/shared", "missing member"},
    {"/containment/namespaces/pid", "shared",
     "{\"host\": false, \"containers\": [\"b\", \"a\"], \"heldOpen\": []}", "set",
     "/predicate/containment/namespaces/pid/shared/containers/1", "not sorted"},
    {"/containment", "processes",
     "{\"rule\": \"ps\", \"count\": 1, \"tasks\": 1, \"scans\": 2, \"settled\": true, "
     "\"outsideCgroups\": [], \"userNamespaces\": []}",
     "set", "/predicate/containment/processes/rule", "one of"},
    {"/containment", "systemPaths",
     "{\"servedBy\": \"kernel\", \"readOnly\": {\"/proc/bus\": null, \"/proc/irq\": null, "
     "\"/proc/sys\": true, \"/proc/sysrq-trigger\": null}, \"masks\": {\"proc/kcore\": "
     "\"masked\"}}",
     "set", "/predicate/containment/systemPaths/masks/proc~1kcore", "not an absolute path"},
    {"/containment", "systemPaths",
     "{\"servedBy\": \"kernel\", \"readOnly\": {\"/proc/bus\": null, \"/proc/irq\": null, "
     "\"/proc/sys\": true, \"/proc/sysrq-trigger\": null, \"/proc/fs\": true}, \"masks\": "
     "null}",
     "set", "/predicate/containment/systemPaths/readOnly/~1proc~1fs", "unknown member"},
    {"/containment", "descriptors",
     "[{\"pid\": 9, \"fd\": 1, \"kind\": \"host-file\", \"target\": \"/x\"}, "
     "{\"pid\": 8, \"fd\": 1, \"kind\": \"host-file\", \"target\": \"/y\"}]",
     "set", "/predicate/containment/descriptors/1", "not sorted"},
    {"/containment/user", "everyUid", "[0, 0]", "set", "/predicate/containment/user/everyUid/1",
     "repeated"},
    {"/evidence/collection", "startedAt", "\"2026-01-01T00:00:00.10Z\"", "set",
     "/predicate/evidence/collection/startedAt", "no trailing 0"},
    {"/containment/resources", "memoryBytes", "-1", "set",
     "/predicate/containment/resources/memoryBytes", "from 1 to"},
    {"/containment/resources", "memoryBytes", "\"256m\"", "set",
     "/predicate/containment/resources/memoryBytes", "an integer or null"},
    {"/containment/writeSurface/0", "kind", "\"overlay\"", "set",
     "/predicate/containment/writeSurface/0/kind", "one of"},
    {"/containment/writeSurface/0", "path", "\"/zzz\"", "set",
     "/predicate/containment/writeSurface/1", "not sorted"},
    {"/containment/network", "ports",
     "[{\"containerPort\": 80, \"hostIp\": \"\", \"hostPort\": 8080, \"proto\": \"icmp\"}]", "set",
     "/predicate/containment/network/ports/0/proto", "one of"},
    {"/containment/network", "ports",
     "[{\"containerPort\": 81, \"hostIp\": \"\", \"hostPort\": 1, \"proto\": \"tcp\"},"
     " {\"containerPort\": 80, \"hostIp\": \"\", \"hostPort\": 2, \"proto\": \"tcp\"}]",
     "set", "/predicate/containment/network/ports/1", "not sorted"},
    {"/containment", "mounts",
     "[{\"destination\": \"/b\", \"propagation\": \"\", \"readOnly\": true, \"source\": \"/x\","
     " \"sourceAsGiven\": \"/x\", \"type\": \"bind\"},"
     " {\"destination\": \"/a\", \"propagation\": \"\", \"readOnly\": true, \"source\": \"/x\","
     " \"sourceAsGiven\": \"/x\", \"type\": \"bind\"}]",
     "set", "/predicate/containment/mounts/1", "not sorted"},
    {"/containment", "mounts",
     "[{\"destination\": \"/a\", \"propagation\": \"sideways\", \"readOnly\": true, \"source\":"
     " \"/x\", \"sourceAsGiven\": \"/x\", \"type\": \"bind\"}]",
     "set", "/predicate/containment/mounts/0/propagation", "one of"},
    {"/containment/devices", "devices",
     "[{\"cgroupPermissions\": \"rwx\", \"pathInContainer\": \"/dev/a\", \"pathOnHost\":"
     " \"/dev/a\"}]",
     "set", "/predicate/containment/devices/devices/0/cgroupPermissions", "r, w and m"},
    {"/session/labels", "x", "5", "set", "/predicate/session/labels/x", "expected a string"},
    {"/session", "pid", "0", "set", "/predicate/session/pid", "from 1 to"},
    {"/session/restartPolicy", "name", "\"sometimes\"", "set",
     "/predicate/session/restartPolicy/name", "one of"},
    {"/evidence", "level", "\"kernel\"", "set", "/predicate/evidence/level", "one of"},
    {"/evidence", "kernelSha256", "\"" HEX64 "\"", "set", "/predicate/evidence/kernelSha256",
     "level engine"},
    {"/evidence", "sandbox",
     "{\"capEffective\": [], \"noNewPrivileges\": true, \"pid\": 1, \"seccompMode\": \"filter\","
     " \"uid\": 0}",
     "set", "/predicate/evidence/sandbox", "engine+runtime"},
    {"/evidence", "discrepancies",
     "[{\"field\": \"containment.network.mode\", \"reason\": \"runtime argument\", \"recorded\":"
     " \"none\", \"values\": {\"engine\": \"bridge\", \"kernel\": null, \"runtime\": \"none\","
     " \"spec\": null}}]",
     "set", NULL, NULL},
    {"/evidence", "discrepancies",
     "[{\"field\": \"x\", \"reason\": \"r\", \"recorded\": 1, \"values\": {\"engine\": 1}}]", "set",
     "/predicate/evidence/discrepancies/0/values/kernel", "missing member"},
    {"", "requested",
     "{\"containment\": {\"network\": {\"mode\": \"none\"}, \"user\": {\"nonRoot\": true}},"
     " \"sha256\": \"" HEX64 "\"}",
     "set", NULL, NULL},
    {"", "requested", "{\"containment\": {\"netwerk\": {}}, \"sha256\": \"" HEX64 "\"}", "set",
     "/predicate/requested/containment/netwerk", "unknown member"},
    {"", "requested",
     "{\"containment\": {\"user\": {\"nonRoot\": \"yes\"}}, \"sha256\": \"" HEX64 "\"}", "set",
     "/predicate/requested/containment/user/nonRoot", "true or false"},
    {"", "source", "{\"dirty\": false, \"ignored\": []}", "set", "/predicate/source", "without a source subject"},
    {"", "source", "{\"dirty\": 0}", "set", "/predicate/source/dirty", "true or false"},
    {"/containment/network", "mode", "mode", "rename", "/predicate/containment/network/Mode",
     "unknown member"},
};

static void targeted(json_t *base)
{
    for (size_t i = 0; i < sizeof mutations / sizeof *mutations; i++) {
        const mutation *m = &mutations[i];
        json_t *p = json_deep_copy(base), *parent = pointer(p, m->parent);
        bx_error e = {0};
        char name[200];
        snprintf(name, sizeof name, "%.8s %.80s/%.60s", m->op, m->parent, m->key);
        if (!json_is_object(parent)) {
            ok(0, "%s: no parent", name);
            json_decref(p);
            continue;
        }
        if (strcmp(m->op, "del") == 0) {
            json_object_del(parent, m->key);
        } else if (strcmp(m->op, "rename") == 0) {
            json_t *v = json_incref(json_object_get(parent, m->key));
            json_object_del(parent, m->key);
            json_object_set_new(parent, "Mode", v);
        } else {
            json_t *v = json_loads(m->value, JSON_DECODE_ANY, NULL);
            if (!v)
                v = json_real(1.5); /* "1.5" on purpose: reals parse as reals */
            json_object_set_new(parent, m->key, v);
        }
        int rc = check_pred(p, NULL, &e);
        if (!m->where) {
            ok_err(rc, &e, "%s = %s: accepted", name, m->value ? m->value : "");
        } else {
            ok(rc == BX_EINVAL && strcmp(e.where, m->where) == 0 && strstr(e.msg, m->msg),
               "%s: refused at %s with '%s'", name, m->where, m->msg);
            if (rc != BX_EINVAL || strcmp(e.where, m->where) != 0 || !strstr(e.msg, m->msg))
                printf("#   rc=%d where='%s' msg='%s'\n", rc, e.where, e.msg);
        }
        ok(!strchr(e.msg, '\n'), "%s: one-line message", name);
        json_decref(p);
    }
}

/* The statement around it: members, types, subjects. */
static void statement(json_t *pred)
{
    json_t *st = NULL;
    bx_error e = {0};
    int rc;

    if (bx_statement_build(pred, NULL, &st, &e) != 0) {
        ok(0, "statement built");
        return;
    }
    json_t *copy = json_deep_copy(st);
    json_object_set_new(copy, "extra", json_true());
    rc = bx_statement_check(copy, &e);
    ok(rc == BX_EINVAL && strcmp(e.where, "/extra") == 0, "unknown statement member at /extra (%s)",
       e.where);
    json_decref(copy);

    copy = json_deep_copy(st);
    json_object_set_new(copy, "_type", json_string("https://in-toto.io/Statement/v0.1"));
    ok(bx_statement_check(copy, &e) == BX_EUNSUPPORTED && strcmp(e.where, "/_type") == 0,
       "another _type is unsupported");
    json_decref(copy);

    copy = json_deep_copy(st);
    json_object_set_new(copy, "predicateType", json_string("https://slsa.dev/provenance/v1"));
    ok(bx_statement_check(copy, &e) == BX_EUNSUPPORTED && strcmp(e.where, "/predicateType") == 0,
       "another predicateType is unsupported");
    json_decref(copy);

    copy = json_deep_copy(st);
    json_t *dig = json_object_get(json_array_get(json_object_get(copy, "subject"), 0), "digest");
    json_object_set_new(
        dig, "sha256",
        json_string("A718E8935C8E400EF5418BECCF861E21824480777B4F805EB2DA65C283B74E7C"));
    rc = bx_statement_check(copy, &e);
    ok(rc == BX_EINVAL && strcmp(e.where, "/subject/0/digest/sha256") == 0,
       "upper-case image digest at /subject/0/digest/sha256 (%s)", e.where);
    json_decref(copy);

    copy = json_deep_copy(st);
    json_object_set_new(json_array_get(json_object_get(copy, "subject"), 0), "name",
                        json_string("img"));
    rc = bx_statement_check(copy, &e);
    ok(rc == BX_EINVAL && strcmp(e.where, "/subject/0/name") == 0, "subject name at %s", e.where);
    json_decref(copy);

    copy = json_deep_copy(st);
    json_object_set_new(json_array_get(json_object_get(copy, "subject"), 0), "uri",
                        json_string("x"));
    rc = bx_statement_check(copy, &e);
    ok(rc == BX_EINVAL && strcmp(e.where, "/subject/0/uri") == 0, "unknown subject member at %s",
       e.where);
    json_decref(copy);

    copy = json_deep_copy(st);
    json_array_append_new(
        json_object_get(copy, "subject"),
        json_pack("{s:{s:s},s:s}", "digest", "gitCommit", COMMIT, "name", "source"));
    rc = bx_statement_check(copy, &e);
    ok(rc == BX_EINVAL && strcmp(e.where, "/predicate/source") == 0,
       "a source subject without predicate.source (%s)", e.where);
    json_decref(copy);

    copy = json_deep_copy(st);
    json_object_set_new(copy, "subject", json_array());
    ok(bx_statement_check(copy, &e) == BX_EINVAL && strcmp(e.where, "/subject") == 0,
       "no subject refused");
    json_decref(copy);
    json_decref(st);
}

/* The check runs for every certificate verified: it has to be cheap. */
static void speed(json_t *pred)
{
    json_t *st = NULL;
    bx_error e;
    struct timespec a, b;
    int n = 5000, bad = 0;

    if (bx_statement_build(pred, NULL, &st, &e) != 0)
        return;
    clock_gettime(CLOCK_MONOTONIC, &a);
    for (int i = 0; i < n; i++)
        bad += bx_statement_check(st, &e) != 0;
    clock_gettime(CLOCK_MONOTONIC, &b);
    double secs = (double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) / 1e9;
    printf("# %d checks in %.3f s: %.0f per second\n", n, secs, n / (secs > 0 ? secs : 1e-9));
    is_int(bad, 0, "every check passed");
    json_decref(st);
}

int main(void)
{
    bx_error e = {0};
    every_case();
    json_t *hardened = predicate_of(DIR_INSPECT "/hardened", &e);
    if (!hardened) {
        ok(0, "hardened predicate built (%s)", e.msg);
        return tap_done();
    }
    targeted(hardened);
    statement(hardened);
    speed(hardened);
    json_decref(hardened);
    return tap_done();
}
