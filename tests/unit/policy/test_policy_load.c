/* SPDX-License-Identifier: Apache-2.0 */
/* Policy loader: schema typing, trust keys, extends, defaults, profiles. */
#include "bx_policy.h"
#include "policy_internal.h"
#include "tap.h"

#include <stdarg.h>
#include <sys/stat.h>
#include <unistd.h>

static char tmp[256];

static void write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    if (!f || fputs(text, f) < 0 || fclose(f) != 0) {
        printf("Bail out! cannot write %s\n", path);
        exit(1);
    }
}

static char *tmp_path(const char *name)
{
    static char buf[4][512];
    static int n;
    char *p = buf[n++ % 4];
    snprintf(p, 512, "%s/%s", tmp, name);
    return p;
}

/* A public key PEM (caller frees) and the key itself (caller frees). */
static char *new_key(bx_alg alg, EVP_PKEY **out)
{
    bx_error err;
    EVP_PKEY *k = NULL;
    char *pem = NULL;
    if (bx_key_generate(alg, &k, &err) != 0 || bx_key_public_pem(k, &pem, &err) != 0) {
        printf("Bail out! key generation: %s\n", err.msg);
        exit(1);
    }
    if (out)
        *out = k;
    else
        EVP_PKEY_free(k);
    return pem;
}

/* The PEM indented for a YAML literal block at the given indent. */
static char *indent(const char *pem, int n)
{
    static char buf[8192];
    size_t o = 0;
    for (const char *line = pem; *line;) {
        const char *nl = strchr(line, '\n');
        size_t len = nl ? (size_t)(nl - line) : strlen(line);
        o += (size_t)snprintf(buf + o, sizeof buf - o, "%*s%.*s\n", n, "", (int)len, line);
        line += len + (nl ? 1 : 0);
    }
    return buf;
}

static int load_text(const char *text, bx_policy **p, bx_error *err)
{
    bx_error_clear(err);
    return bx_policy_load_buffer(text, strlen(text), tmp_path("policy.yaml"), p, err);
}

/* text must be refused; the "where: msg" string must contain want. */
static void refused(const char *text, const char *want, const char *name)
{
    bx_policy *p = NULL;
    bx_error err;
    char buf[1024];
    int rc = load_text(text, &p, &err);
    is_int(rc, BX_ECONFIG, "%s: refused", name);
    ok(p == NULL, "%s: no policy", name);
    bx_error_str(&err, buf, sizeof buf);
    ok(strstr(buf, want) != NULL, "%s: '%.300s' has '%.100s'", name, buf, want);
    bx_policy_free(p);
}

static const json_t *eff(const bx_policy *p, const char *path)
{
    return bxp_get(bx_policy_effective(p), path);
}

static void test_demo(void)
{
    bx_policy *p = NULL;
    bx_error err;
    ok_err(bx_policy_load(BOXCERT_SOURCE_DIR "/examples/policies/demo.yaml", &p, &err), &err,
           "demo.yaml loads");
    if (!p)
        return;
    is_str(json_string_value(json_array_get(eff(p, "containment.network"), 0)), "none",
           "demo network none");
    ok(json_is_true(eff(p, "containment.readOnlyRootfs")), "demo readOnlyRootfs is a JSON true");
    ok(json_is_false(eff(p, "containment.privileged")), "demo privileged is a JSON false");
    is_int(json_array_size(eff(p, "containment.capabilities.allow")), 0, "demo allows no caps");
    is_int(bx_policy_nkeys(p), 0, "demo has no keys");
    is_int(bx_policy_threshold(p), 1, "default threshold");
    is_int(bx_policy_clock_skew(p), 300, "default clock skew");
    is_int(bx_policy_max_age(p), -1, "no maxAge");
    ok(json_is_integer(eff(p, "version")), "version is an integer");
    ok(json_is_integer(eff(p, "trust.threshold")), "default trust.threshold filled in");
    is_str(json_string_value(eff(p, "certificate.clockSkew")), "5m", "default clockSkew filled in");
    is_str(json_string_value(eff(p, "evidence.discrepancies")), "deny", "default discrepancies");
    is_int(json_array_size(eff(p, "evidence.accept")), 3, "default accept: all levels");
    ok(json_is_false(eff(p, "requested.mustMatch")), "default mustMatch false");
    ok(strstr(bx_policy_source(p), "demo.yaml") != NULL, "source names the file");
    bx_policy_free(p);
}

static int profile_latest(const char *resolved)
{
    char want[8];
    snprintf(want, sizeof want, "@%d", BX_POLICY_PROFILE_LATEST);
    return strstr(resolved, want) != NULL;
}

static void test_profiles(void)
{
    bx_policy *p = NULL;
    bx_error err;
    is_str(bx_policy_profiles[0], "strict", "strict is a profile");
    is_str(bx_policy_profiles[1], "gvisor", "gvisor is a profile");
    is_str(bx_policy_profiles[2], "cis-docker", "cis-docker is a profile");
    ok(bx_policy_profiles[3] == NULL, "and no other");
    for (size_t i = 0; bxp_profile_file_names[i]; i++) {
        char resolved[64];
        ok(bx_policy_profile_resolve(bxp_profile_file_names[i], resolved, sizeof resolved) == 0 &&
               strcmp(resolved, bxp_profile_file_names[i]) == 0,
           "policy/profiles/%s.yaml is a listed profile version", bxp_profile_file_names[i]);
    }
    for (size_t j = 0; bx_policy_profiles[j]; j++)
        for (unsigned v = 1; v <= BX_POLICY_PROFILE_LATEST; v++) {
            char name[64], resolved[64];
            snprintf(name, sizeof name, "%s@%u", bx_policy_profiles[j], v);
            ok(bxp_profile_file(name) != NULL, "%s has a file", name);
            ok(bx_policy_profile_resolve(bx_policy_profiles[j], resolved, sizeof resolved) == 0 &&
                   profile_latest(resolved),
               "%s means the latest", bx_policy_profiles[j]);
        }
    {
        static const char *const bad[] = {"strict@0", "strict@4", "strict@", "strict@01",
                                          "strict@1x", "Strict", "strict@-1", "cis@1", NULL};
        char resolved[64];
        for (const char *const *b = bad; *b; b++)
            ok(bx_policy_profile_resolve(*b, resolved, sizeof resolved) != 0,
               "%s names no profile", *b);
    }
    for (size_t i = 0; bx_policy_profiles[i]; i++) {
        ok(bx_policy_profile_text(bx_policy_profiles[i]) != NULL, "%s has text",
           bx_policy_profiles[i]);
        ok_err(bx_policy_load(bx_policy_profiles[i], &p, &err), &err, "%s loads",
               bx_policy_profiles[i]);
        bx_policy_free(p);
        p = NULL;
    }
    ok_err(bx_policy_load("gvisor", &p, &err), &err, "gvisor");
    if (p) {
        is_str(json_string_value(json_array_get(eff(p, "containment.runtimes"), 0)), "runsc",
               "gvisor: runsc");
        is_int(json_array_size(eff(p, "containment.runtimes")), 1, "gvisor: runsc only");
        ok(json_is_true(eff(p, "containment.readOnlyRootfs")), "gvisor: strict's keys kept");
        is_int(json_array_size(eff(p, "evidence.accept")), 1, "gvisor: one level accepted");
        is_str(json_string_value(json_array_get(eff(p, "evidence.accept"), 0)), "engine+runtime",
               "gvisor: engine+runtime");
        is_str(json_string_value(eff(p, "extends")), "strict@3",
               "gvisor extends strict, of its own version");
    }
    bx_policy_free(p);
    p = NULL;
    ok_err(bx_policy_load("cis-docker", &p, &err), &err, "cis-docker");
    if (p) {
        is_str(json_string_value(eff(p, "benchmark")), "cis-docker-1.6", "cis-docker: benchmark");
        is_int(json_object_size(eff(p, "containment")), 2, "cis-docker: two containment keys");
        ok(json_is_true(eff(p, "containment.hostObjectsUnreachable")),
           "cis-docker@3: the host objects by identity");
        ok(json_is_false(eff(p, "containment.propagationFromHost")),
           "cis-docker@3: no propagation from the host");
    }
    bx_policy_free(p);
    p = NULL;
    ok_err(
        load_text("version: 1\nextends: gvisor\ncontainment: {user: {nonRoot: true}}\n", &p, &err),
        &err, "extends gvisor (which extends strict)");
    if (p) {
        ok(json_is_true(eff(p, "containment.user.nonRoot")), "own key");
        is_str(json_string_value(eff(p, "extends")), "gvisor@3", "extends resolved: the latest");
        ok(eff(p, "containment.runtimes") && eff(p, "containment.writable"), "both profiles' keys");
    }
    bx_policy_free(p);
    p = NULL;
    ok(bx_policy_profile_text("strict") != NULL, "strict has text");
    ok(bx_policy_profile_text("nope") == NULL, "unknown profile has none");
    ok(bx_policy_profile_text(NULL) == NULL, "NULL name has none");
    ok_err(bx_policy_load("strict", &p, &err), &err, "load profile strict by name");
    if (p) {
        is_str(bx_policy_source(p), "profile:strict@3", "profile source: the latest version");
        is_str(p->profile, "strict@3", "the resolved profile");
        ok(json_is_true(eff(p, "containment.noNewPrivileges")), "strict requires nnp");
    }
    bx_policy_free(p);
    p = NULL;
    is_int(bx_policy_load("no-such-policy-or-profile", &p, &err), BX_ECONFIG, "unknown arg");
    is_str(err.msg, "no such file or profile", "unknown arg message");
    is_str(err.where, "no-such-policy-or-profile", "unknown arg where");
    ok(p == NULL, "nothing returned");

    /* A profile name is never a file: a file of that name beside the gate is refused, and
     * ./NAME means the file. */
    char cwd[512];
    static const char *const names[] = {"strict", "strict@1", "gvisor@2", "cis-docker", NULL};
    ok(getcwd(cwd, sizeof cwd) && chdir(tmp) == 0, "cd to temp dir");
    for (const char *const *n = names; *n; n++) {
        char dot[80];
        write_text(*n, "version: 1\ncontainment:\n  network: [host]\n");
        is_int(bx_policy_load(*n, &p, &err), BX_ECONFIG, "a file named %s: refused", *n);
        ok(p == NULL && strstr(err.msg, "working directory") && !strcmp(err.where, *n),
           "the message names the file %s", *n);
        bx_policy_free(p);
        p = NULL;
        snprintf(dot, sizeof dot, "./%s", *n);
        ok_err(bx_policy_load(dot, &p, &err), &err, "%s: the file", dot);
        if (p)
            is_str(json_string_value(json_array_get(eff(p, "containment.network"), 0)), "host",
                   "%s is the file, not the profile", dot);
        bx_policy_free(p);
        p = NULL;
        unlink(*n);
    }
    is_int(bx_policy_load("strict@7", &p, &err), BX_ECONFIG, "strict@7: no such version");
    ok(p == NULL, "nothing returned");
    ok(chdir(cwd) == 0, "cd back");
    /* inside a frozen profile, extends means the same version */
    ok_err(bx_policy_load("gvisor@1", &p, &err), &err, "gvisor@1");
    if (p) {
        is_str(json_string_value(eff(p, "extends")), "strict@1", "gvisor@1 extends strict@1");
        ok(eff(p, "containment.sysctls") == NULL, "strict@1 has no sysctls rule");
    }
    bx_policy_free(p);
    p = NULL;
    ok_err(bx_policy_load("gvisor@2", &p, &err), &err, "gvisor@2");
    if (p) {
        ok(eff(p, "containment.sysctls.allow") != NULL, "gvisor@2 extends strict@2");
        is_str(json_string_value(eff(p, "extends")), "strict@2", "gvisor@2 extends strict@2");
    }
    bx_policy_free(p);
    p = NULL;
    ok_err(bx_policy_load("gvisor@3", &p, &err), &err, "gvisor@3");
    if (p)
        is_str(json_string_value(eff(p, "extends")), "strict@3", "gvisor@3 extends strict@3");
    bx_policy_free(p);
}

static void test_extends(void)
{
    bx_policy *p = NULL;
    bx_error err;
    ok_err(load_text("version: 1\nextends: strict\ncontainment:\n  network: [bridge, mynet]\n"
                     "  privileged: true\ncertificate: {maxAge: 24h}\n",
                     &p, &err),
           &err, "extends strict");
    if (!p)
        return;
    const json_t *net = eff(p, "containment.network");
    is_int(json_array_size(net), 2, "list replaced whole");
    is_str(json_string_value(json_array_get(net, 0)), "bridge", "list replaced: first");
    ok(json_is_true(eff(p, "containment.readOnlyRootfs")), "map merged: profile key kept");
    ok(json_is_true(eff(p, "containment.privileged")), "map merged: override wins");
    is_str(json_string_value(eff(p, "extends")), "strict@3",
           "extends kept in the effective policy, resolved");
    is_str(json_string_value(eff(p, "certificate.maxAge")), "24h", "duration kept as written");
    is_int(bx_policy_max_age(p), 86400, "max_age parsed");
    bx_policy_free(p);
}

static void test_types(void)
{
    refused("version: 1\ncontainment:\n  privileged: yes\n",
            "policy.yaml:3:15: containment.privileged: expected true or false, found \"yes\"",
            "bool yes");
    refused("version: 1\ncontainment:\n  privileged: 'false'\n",
            "3:15: containment.privileged: expected true or false, found quoted \"false",
            "quoted bool");
    refused("version: 1\ncontainment:\n  privileged: |\n    false\n",
            "3:15: containment.privileged: expected true or false", "block scalar bool");
    refused("version: 1\ncontainment:\n  privileged:\n", "found null", "null bool");
    refused("version: 1\ntrust:\n  threshold: '2'\n", "threshold: expected an integer",
            "quoted int");
    refused("version: 1\ntrust:\n  threshold: 02\n", "expected an integer", "leading zero");
    refused("version: 1\ntrust:\n  threshold: 0\n",
            "3:14: trust.threshold: must be at least 1, found 0", "threshold 0");
    refused("version: 1\ncertificate:\n  maxAge: 5 m\n",
            "3:11: certificate.maxAge: invalid duration \"5 m\"", "bad duration");
    refused("version: 1\ncertificate:\n  clockSkew: [5m]\n", "clockSkew: expected a string",
            "duration as list");
    refused("version: 1\nimages:\n  pins: [sha256:abc]\n",
            "3:10: images.pins[0]: invalid value \"sha256:abc\"", "short pin");
    refused("version: 1\nimages:\n  pins:\n    - sha256:BB9A7D70000000000000000000000000000000"
            "0000000000000000000000000\n",
            "4:7: images.pins[0]: invalid value", "uppercase pin");
    refused("version: 1\nimages:\n  pins: sha256:aa\n", "pins: expected a list", "pins scalar");
    refused("version: 1\ncontainment:\n  capabilities: {allow: [CAP_SYS_ADMIN]}\n", "without CAP_",
            "CAP_ prefix");
    refused("version: 1\ncontainment:\n  capabilities: {allow: [SYS_ADMN]}\n", "unknown capability",
            "unknown capability");
    refused("version: 1\ncontainment:\n  network: [\"container:abc\"]\n",
            "3:13: containment.network[0]: invalid value \"container:abc\"",
            "container:id not a policy entry");
    refused("version: 1\ncontainment:\n  network: [\"a\\nb\"]\n",
            "containment.network[0]: expected one line", "newline in a string");
    refused("version: 1\ncontainment:\n  netwrk: [none]\n", "3:3: unknown key 'netwrk'",
            "unknown key");
    refused("version: 1\ncontainment:\n  network: [none]\n  sekcomp: {allow: [default]}\n",
            "4:3: unknown key 'sekcomp'", "misspelt key");
    refused("version: 1\nbenchmark: cis-docker-1.5\n",
            "2:12: benchmark: \"cis-docker-1.5\" is not one of: cis-docker-1.6", "benchmark");
    refused("version: 1\nextends: lax\n",
            "2:10: extends: invalid value \"lax\": no such built-in profile", "extends unknown");
    refused("version: 2\n", "1:10: version: unsupported policy version 2", "version 2");
    refused("containment: {privileged: false}\n", "policy.yaml:1:1: missing key 'version'",
            "no version");
    refused("- version: 1\n", "1:1: policy: expected a mapping, found a list", "root list");
    refused("version: 1\ncontainment:\n  readOnlyRootfs: true\n  readOnlyRootfs: true\n",
            "4:3: duplicate key 'readOnlyRootfs'", "duplicate key");
    refused("version: 1\n---\nversion: 1\n", "2:1: more than one document", "two documents");

    bx_policy *p = NULL;
    bx_error err;
    char *big = calloc(1, BX_POLICY_MAX_SIZE + 2);
    memset(big, '#', BX_POLICY_MAX_SIZE + 1);
    is_int(bx_policy_load_buffer(big, BX_POLICY_MAX_SIZE + 1, "big.yaml", &p, &err), BX_ECONFIG,
           "oversize buffer refused");
    ok(strstr(err.msg, "too large") != NULL, "oversize message: %s", err.msg);
    free(big);

    int64_t b = 0;
    ok(bx_size_parse("512Mi", &b) == 0 && b == 512LL * 1024 * 1024, "size 512Mi");
    ok(bx_size_parse("4Gi", &b) == 0 && b == 4LL << 30, "size 4Gi");
    ok(bx_size_parse("100", &b) == 0 && b == 100, "size in bytes");
    ok(bx_size_parse("5 Mi", &b) != 0, "size with a space refused");
    ok(bx_size_parse("1Ti", &b) != 0, "size Ti refused");
    ok(bx_size_parse("01Ki", &b) != 0, "size leading zero refused");
    ok(bx_size_parse("99999999999999Gi", &b) != 0, "size overflow refused");
}

static void test_language(void)
{
    bx_policy *p = NULL;
    bx_error err;
    const char *all = "version: 1\n"
                      "benchmark: cis-docker-1.6\n"
                      "certificate: {maxAge: 24h, clockSkew: 5m, maxCollectionDelay: 60s}\n"
                      "collector: {minVersion: 0.1.0}\n"
                      "images: {requireCollectorPin: true}\n"
                      "source: {required: false}\n"
                      "containment:\n"
                      "  network: [none, internal, build-net]\n"
                      "  publishedPorts: false\n"
                      "  seccomp: {allow: [default, "
                      "sha256:bb9a7d70aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa]}\n"
                      "  apparmor: required\n"
                      "  selinux: any\n"
                      "  runtimes: [runsc, runc, io.containerd.runc.v2]\n"
                      "  user: {nonRoot: true, uids: [65532, 1000]}\n"
                      "  namespaces: {host: [user, cgroup]}\n"
                      "  userns: remapped\n"
                      "  resources: {memoryMax: 512Mi, pidsMax: 256, cpusMax: 0.5}\n"
                      "  writable:\n"
                      "    - {path: /tmp, kinds: [tmpfs], maxSize: 512Mi}\n"
                      "    - {path: /, kinds: [rootfs]}\n"
                      "  forbiddenMounts:\n"
                      "    - {source: /var/run/docker.sock, access: any}\n"
                      "    - {source: /, access: rw}\n"
                      "  devices: none\n"
                      "  mountPropagationShared: false\n"
                      "  cgroupParentDefault: true\n"
                      "  restartMaxRetries: 0\n"
                      "evidence: {accept: [engine+kernel], discrepancies: warn}\n"
                      "requested: {mustMatch: true}\n";

    ok_err(load_text(all, &p, &err), &err, "every key of the language");
    if (p) {
        is_str(json_string_value(eff(p, "containment.resources.cpusMax")), "0.5",
               "cpusMax: a plain 0.5 is the string \"0.5\"");
        ok(json_is_integer(eff(p, "containment.resources.pidsMax")), "pidsMax is an integer");
        is_str(json_string_value(eff(p, "containment.resources.memoryMax")), "512Mi",
               "memoryMax kept as written");
        ok(json_is_integer(json_array_get(eff(p, "containment.user.uids"), 0)),
           "uids are integers");
        ok(json_is_true(eff(p, "images.requireCollectorPin")), "requireCollectorPin is a bool");
        ok(json_is_false(eff(p, "source.required")), "source.required is a bool");
        is_int(json_integer_value(eff(p, "containment.restartMaxRetries")), 0,
               "restartMaxRetries 0");
        is_str(json_string_value(eff(p, "evidence.discrepancies")), "warn", "discrepancies warn");
        is_int(json_array_size(eff(p, "evidence.accept")), 1, "accept as written, not defaulted");
    }
    bx_policy_free(p);
    p = NULL;

    refused("version: 1\ncertificate: {maxCollectionDelay: 60}\n",
            "certificate.maxCollectionDelay: invalid duration", "delay without unit");
    refused("version: 1\ncollector: {minVersion: 1.2}\n",
            "2:25: collector.minVersion: invalid value \"1.2\": want a version x.y.z",
            "short version");
    refused("version: 1\ncollector: {minVersion: 1.2.3-rc1}\n", "want a version x.y.z",
            "pre-release minimum");
    refused("version: 1\nimages: {requireCollectorPin: yes}\n", "expected true or false",
            "requireCollectorPin yes");
    refused("version: 1\nsource: {required: 1}\n", "source.required: expected true or false",
            "source.required 1");
    refused(
        "version: 1\ncontainment:\n  seccomp: {allow: [runtime/default]}\n",
        "3:21: containment.seccomp.allow[0]: invalid value \"runtime/default\": want default or "
        "sha256:<64 lowercase hex>",
        "seccomp allow entry");
    refused("version: 1\ncontainment:\n  seccomp: [default]\n",
            "containment.seccomp: expected a mapping", "seccomp as a list");
    refused("version: 1\ncontainment:\n  apparmor: maybe\n",
            "3:13: containment.apparmor: \"maybe\" is not one of: required, enforced, any", "apparmor");
    refused("version: 1\ncontainment:\n  selinux: true\n", "is not one of: required, any",
            "selinux true");
    refused("version: 1\ncontainment:\n  runtimes: [\"run sc\"]\n",
            "containment.runtimes[0]: invalid value", "runtime with a space");
    refused("version: 1\ncontainment:\n  user: {uids: [-1]}\n",
            "containment.user.uids[0]: expected an integer", "negative uid");
    refused("version: 1\ncontainment:\n  user: {uids: ['1000']}\n",
            "containment.user.uids[0]: expected an integer, found quoted", "quoted uid");
    refused("version: 1\ncontainment:\n  user: {uids: [4294967295]}\n",
            "must be at most 4294967294", "uid -1 as unsigned");
    refused("version: 1\ncontainment:\n  user: {nonroot: true}\n", "unknown key 'nonroot'",
            "user key case");
    refused("version: 1\ncontainment:\n  namespaces: {host: [mnt]}\n",
            "containment.namespaces.host[0]: \"mnt\" is not one of: pid, ipc, uts, net, user, "
            "cgroup",
            "mount namespace");
    refused("version: 1\ncontainment:\n  namespaces: {host: [pid, pid]}\n",
            "3:28: containment.namespaces.host[1]: listed twice (as item 0)", "namespace twice");
    refused("version: 1\ncontainment:\n  network: [none, none]\n", "listed twice", "network twice");
    refused("version: 1\ncontainment:\n  userns: private\n", "is not one of: any, remapped",
            "userns");
    refused("version: 1\ncontainment:\n  resources: {memoryMax: 512M}\n",
            "containment.resources.memoryMax: invalid size \"512M\"", "size M");
    refused("version: 1\ncontainment:\n  resources: {pidsMax: 0}\n", "must be at least 1",
            "pidsMax 0");
    refused("version: 1\ncontainment:\n  resources: {cpusMax: \"0\"}\n",
            "3:24: containment.resources.cpusMax: invalid CPU count \"0\"", "cpusMax 0");
    refused("version: 1\ncontainment:\n  resources: {cpusMax: 1e3}\n", "invalid CPU count",
            "cpusMax exponent");
    refused("version: 1\ncontainment:\n  resources: {cpusMax: \"-1\"}\n", "invalid CPU count",
            "cpusMax negative");
    refused("version: 1\ncontainment:\n  resources: {cpusMax: [2]}\n", "cpusMax: expected a string",
            "cpusMax list");
    refused("version: 1\ncontainment:\n  writable: [{path: /tmp}]\n",
            "3:14: containment.writable[0]: missing key 'kinds'", "writable without kinds");
    refused("version: 1\ncontainment:\n  writable: [{kinds: [tmpfs]}]\n", "missing key 'path'",
            "writable without path");
    refused("version: 1\ncontainment:\n  writable: [{path: /tmp/, kinds: [tmpfs]}]\n",
            "containment.writable[0].path: invalid value \"/tmp/\": want an absolute path",
            "trailing slash");
    refused("version: 1\ncontainment:\n  writable: [{path: tmp, kinds: [tmpfs]}]\n",
            "want an absolute path", "relative path");
    refused("version: 1\ncontainment:\n  writable: [{path: /a/../etc, kinds: [tmpfs]}]\n",
            "want an absolute path", "dot-dot");
    refused("version: 1\ncontainment:\n  writable: [{path: //tmp, kinds: [tmpfs]}]\n",
            "want an absolute path", "double slash");
    refused("version: 1\ncontainment:\n  writable: [{path: /tmp, kinds: [overlay]}]\n",
            "is not one of: rootfs, tmpfs, bind, volume, engine", "unknown kind");
    refused("version: 1\ncontainment:\n  forbiddenMounts: [{source: /etc}]\n",
            "containment.forbiddenMounts[0]: missing key 'access'", "forbidden without access");
    refused("version: 1\ncontainment:\n  forbiddenMounts: [{source: /etc, access: ro}]\n",
            "is not one of: any, rw", "access ro");
    refused("version: 1\ncontainment:\n  devices: host\n", "is not one of: none, any", "devices");
    refused("version: 1\ncontainment:\n  restartMaxRetries: -1\n", "expected an integer",
            "negative retries");
    refused("version: 1\nevidence: {accept: [kernel]}\n",
            "evidence.accept[0]: \"kernel\" is not one of: engine, engine+kernel, engine+runtime",
            "unknown level");
    refused("version: 1\nevidence: {discrepancies: ignore}\n", "is not one of: deny, warn",
            "discrepancies");
    refused("version: 1\nrequested: {mustMatch: 'true'}\n", "expected true or false, found quoted",
            "mustMatch quoted");

    int64_t n = 0;
    long long v[4], w[4];
    ok(bx_cpus_parse("0.5", &n) == 0 && n == 500000000, "cpus 0.5");
    ok(bx_cpus_parse("2", &n) == 0 && n == 2000000000, "cpus 2");
    ok(bx_cpus_parse("1.25", &n) == 0 && n == 1250000000, "cpus 1.25");
    ok(bx_cpus_parse("0.000000001", &n) == 0 && n == 1, "cpus 1 nano");
    ok(bx_cpus_parse("0.0000000001", &n) != 0, "cpus beyond nano refused");
    ok(bx_cpus_parse("0", &n) != 0 && bx_cpus_parse("0.0", &n) != 0, "cpus 0 refused");
    ok(bx_cpus_parse(".5", &n) != 0 && bx_cpus_parse("5.", &n) != 0, "cpus .5 and 5. refused");
    ok(bx_cpus_parse("01", &n) != 0 && bx_cpus_parse("+1", &n) != 0, "cpus 01 and +1 refused");
    ok(bx_cpus_parse("1,5", &n) != 0 && bx_cpus_parse("", &n) != 0, "cpus 1,5 and empty refused");
    ok(bx_cpus_parse("99999999", &n) != 0, "cpus too many refused");
    ok(bxp_semver_parse("0.1.0", v) == 0 && v[0] == 0 && v[1] == 1 && v[2] == 0 && !v[3],
       "semver 0.1.0");
    ok(bxp_semver_parse("1.2.3-rc.1+b5", w) == 0 && w[3] == 1, "semver with pre-release");
    ok(bxp_semver_parse("1.2", v) != 0 && bxp_semver_parse("1.2.3.4", v) != 0 &&
           bxp_semver_parse("1.02.3", v) != 0 && bxp_semver_parse("1.2.3-", v) == 0,
       "semver shapes");
    bxp_semver_parse("1.2.3", v);
    ok(bxp_semver_cmp(w, v) < 0 && bxp_semver_cmp(v, w) > 0, "a pre-release sorts first");
    bxp_semver_parse("1.10.0", w);
    ok(bxp_semver_cmp(v, w) < 0, "1.2.3 < 1.10.0 (numbers, not strings)");
}

/* What `policy check` prints, fed back as a policy file, gives the same effective policy:
 * JSON is YAML, typed scalars arrive plain, quoted strings stay strings. */
static void reload(const char *what, const bx_policy *p)
{
    static const size_t flags[] = {JSON_INDENT(2) | JSON_SORT_KEYS, JSON_COMPACT,
                                   JSON_INDENT(0) | JSON_ENSURE_ASCII};
    for (size_t i = 0; i < sizeof flags / sizeof flags[0]; i++) {
        char *text = json_dumps(bx_policy_effective(p), flags[i]);
        bx_policy *q = NULL;
        bx_error err;
        bx_error_clear(&err);
        ok_err(load_text(text, &q, &err), &err, "%s: effective policy reloads (format %zu)", what,
               i);
        ok(q && json_equal(bx_policy_effective(p), bx_policy_effective(q)), "%s: the same effective policy (%zu)", what,
           i);
        if (q && i == 0) {
            char *again = json_dumps(bx_policy_effective(q), flags[i]);
            is_str(again, text, "%s: and prints the same", what);
            free(again);
        }
        bx_policy_free(q);
        free(text);
    }
}

static void test_reload(void)
{
    bx_policy *p = NULL;
    bx_error err;
    for (size_t i = 0; bx_policy_profiles[i]; i++) {
        if (bx_policy_load(bx_policy_profiles[i], &p, &err) == 0)
            reload(bx_policy_profiles[i], p);
        bx_policy_free(p);
        p = NULL;
    }
    ok_err(bx_policy_load(BOXCERT_SOURCE_DIR "/examples/policies/demo.yaml", &p, &err), &err,
           "demo");
    if (p)
        reload("demo", p);
    bx_policy_free(p);
    p = NULL;
    ok_err(load_text("version: 1\nextends: gvisor\ncontainment:\n  resources: {cpusMax: \"2\"}\n"
                     "  user: {uids: [0]}\n  restartMaxRetries: 0\n",
                     &p, &err),
           &err, "cpusMax \"2\"");
    if (p) {
        ok(json_is_string(eff(p, "containment.resources.cpusMax")), "cpusMax stays a string");
        reload("extends gvisor", p);
    }
    bx_policy_free(p);
    p = NULL;

    /* JSON written by hand */
    ok_err(
        load_text("{\"version\": 1, \"containment\": {\"privileged\": false, \"resources\": "
                  "{\"cpusMax\": \"0.5\", \"pidsMax\": 10}}, \"requested\": {\"mustMatch\": true}}",
                  &p, &err),
        &err, "JSON policy");
    if (p) {
        ok(json_is_false(eff(p, "containment.privileged")), "JSON false is a bool");
        ok(json_is_integer(eff(p, "containment.resources.pidsMax")), "JSON 10 is an integer");
        ok(json_is_true(eff(p, "requested.mustMatch")), "JSON true is a bool");
    }
    bx_policy_free(p);
    p = NULL;
    refused("{\"version\": \"1\"}", "version: expected an integer, found quoted", "JSON \"1\"");
    refused("{\"version\": 1, \"containment\": {\"privileged\": \"false\"}}",
            "expected true or false, found quoted", "JSON \"false\"");
    refused("{\"version\": 1, \"version\": 1}", "duplicate key 'version'", "JSON duplicate");
}

static void test_keys(void)
{
    EVP_PKEY *ed = NULL, *ec = NULL;
    char *ed_pem = new_key(BX_ALG_ED25519, &ed), *ec_pem = new_key(BX_ALG_ECDSA_P256, &ec);
    char ed_id[65], ec_id[65], text[8192];
    bx_policy *p = NULL;
    bx_error err;

    ok(bx_key_id(ed, ed_id, &err) == 0 && bx_key_id(ec, ec_id, &err) == 0, "keyids");
    ok(mkdir(tmp_path("keys"), 0700) == 0, "mkdir keys");
    write_text(tmp_path("keys/ci.pub"), ed_pem);

    snprintf(text, sizeof text,
             "version: 1\n"
             "trust:\n"
             "  keys:\n"
             "    - file: keys/ci.pub\n"
             "      name: ci-runner\n"
             "      keyid: %s\n"
             "      notBefore: 2026-01-01T00:00:00Z\n"
             "      notAfter: 2027-01-01T00:00:00Z\n"
             "      revoked: false\n"
             "    - pem: |\n%s"
             "      sigEncoding: p1363\n"
             "      revoked: true\n"
             "  threshold: 2\n",
             ed_id, indent(ec_pem, 8));
    ok_err(load_text(text, &p, &err), &err, "two keys load");
    if (p) {
        is_int(bx_policy_nkeys(p), 2, "two keys");
        is_int(bx_policy_threshold(p), 2, "threshold 2");
        is_str(bx_policy_key(p, 0)->name, "ci-runner", "name from the policy");
        is_str(bx_policy_key(p, 0)->keyid, ed_id, "keyid recomputed");
        ok(bx_policy_key(p, 0)->has_not_before && bx_policy_key(p, 0)->not_before == 1767225600, "notBefore");
        ok(bx_policy_key(p, 0)->has_not_after && bx_policy_key(p, 0)->not_after == 1798761600, "notAfter");
        is_int(bx_policy_key(p, 0)->revoked, 0, "not revoked");
        is_int(bx_policy_key(p, 0)->enc, BX_SIGENC_DER, "der by default");
        is_str(bx_policy_key(p, 1)->name, "key 2", "unnamed inline key");
        is_int(bx_policy_key(p, 1)->enc, BX_SIGENC_P1363, "p1363");
        is_int(bx_policy_key(p, 1)->revoked, 1, "revoked");
        ok(EVP_PKEY_eq(bx_policy_key(p, 1)->key, ec) == 1, "inline key is the ECDSA key");

        /* --key: a repeat is ignored, a new key is added */
        write_text(tmp_path("ec.pub"), ec_pem);
        ok_err(bx_policy_add_key_file(p, tmp_path("ec.pub"), &err), &err, "add repeated key");
        is_int(bx_policy_nkeys(p), 2, "repeated key ignored");
        EVP_PKEY *k3 = NULL;
        char *k3_pem = new_key(BX_ALG_ED25519, &k3);
        write_text(tmp_path("k3.pub"), k3_pem);
        ok_err(bx_policy_add_key_file(p, tmp_path("k3.pub"), &err), &err, "add new key");
        is_int(bx_policy_nkeys(p), 3, "new key added");
        ok(strstr(bx_policy_key(p, 2)->name, "k3.pub") != NULL, "added key named by its file");
        is_int(bx_policy_add_key_file(p, tmp_path("missing.pub"), &err), BX_ECONFIG,
               "missing --key file");
        is_int(bx_policy_nkeys(p), 3, "nothing added on error");
        free(k3_pem);
        EVP_PKEY_free(k3);
    }
    bx_policy_free(p);
    p = NULL;

    snprintf(text, sizeof text, "version: 1\ntrust:\n  keys:\n    - file: %s\n",
             tmp_path("keys/ci.pub"));
    ok_err(load_text(text, &p, &err), &err, "absolute key path");
    if (p)
        ok(strstr(bx_policy_key(p, 0)->name, "ci.pub") != NULL, "name from the file");
    bx_policy_free(p);
    p = NULL;

    /* The same key twice, in two texts (no line end after END): compared as keys. */
    snprintf(text, sizeof text,
             "version: 1\ntrust:\n  keys:\n    - file: keys/ci.pub\n      name: first\n"
             "    - pem: |-\n%s",
             indent(ed_pem, 8));
    refused(text, "policy.yaml:6:7: trust.keys[1] is the same key as trust.keys[0] ('first')",
            "duplicate key");

    snprintf(text, sizeof text,
             "version: 1\ntrust:\n  keys:\n    - file: keys/ci.pub\n"
             "      keyid: %s\n",
             ec_id);
    refused(text, "5:14: trust.keys[0].keyid: key file \"keys/ci.pub\" holds another key than the policy pins", "keyid mismatch");
    refused("version: 1\ntrust:\n  keys:\n    - file: keys/ci.pub\n      sigEncoding: p1363\n",
            "5:20: trust.keys[0].sigEncoding: p1363 applies only to ECDSA keys",
            "p1363 on Ed25519");
    refused("version: 1\ntrust:\n  keys:\n    - file: keys/ci.pub\n      sigEncoding: raw\n",
            "sigEncoding: \"raw\" is not one of: der, p1363", "unknown sigEncoding");
    refused("version: 1\ntrust:\n  keys:\n    - file: keys/missing.pub\n",
            "4:13: trust.keys[0].file: key file \"keys/missing.pub\"", "missing key file");
    refused("version: 1\ntrust:\n  keys:\n    - name: nothing\n",
            "4:7: trust.keys[0]: give exactly one of 'file' or 'pem'", "neither file nor pem");
    snprintf(text, sizeof text,
             "version: 1\ntrust:\n  keys:\n    - file: keys/ci.pub\n"
             "      pem: |\n%s",
             indent(ec_pem, 8));
    refused(text, "exactly one of", "both file and pem");
    refused("version: 1\ntrust:\n  keys:\n    - pem: not a key\n",
            "4:12: trust.keys[0].pem: not a PEM PUBLIC KEY block", "bad pem");
    write_text(tmp_path("keys/private.pem"), "-----BEGIN PRIVATE KEY-----\nAAAA\n"
                                             "-----END PRIVATE KEY-----\n");
    refused("version: 1\ntrust:\n  keys:\n    - file: keys/private.pem\n",
            "4:13: trust.keys[0].file: key file \"keys/private.pem\": holds a private key",
            "not a public key");
    refused("version: 1\ntrust:\n  keys:\n    - file: keys/ci.pub\n  threshold: 2\n",
            "5:14: trust.threshold: 2 is more than the 1 trusted keys", "threshold over keys");
    refused("version: 1\ntrust:\n  keys:\n    - file: keys/ci.pub\n      colour: red\n",
            "5:7: unknown key 'colour'", "unknown key in a key entry");
    refused("version: 1\ntrust:\n  keys:\n    - file: keys/ci.pub\n"
            "      notBefore: 2027-01-01T00:00:00Z\n      notAfter: 2026-01-01T00:00:00Z\n",
            "6:17: trust.keys[0].notAfter: not later than notBefore", "empty validity window");
    refused("version: 1\ntrust:\n  keys:\n    - file: keys/ci.pub\n      notBefore: 2026-01-01\n",
            "5:18: trust.keys[0].notBefore: invalid time", "bad time");

    /* No keys in the policy: threshold is checked against --key keys later, not here. */
    ok_err(load_text("version: 1\ntrust:\n  threshold: 2\n", &p, &err), &err,
           "threshold without listed keys");
    bx_policy_free(p);

    unlink(tmp_path("keys/ci.pub"));
    unlink(tmp_path("keys/private.pem"));
    unlink(tmp_path("ec.pub"));
    unlink(tmp_path("k3.pub"));
    rmdir(tmp_path("keys"));
    free(ed_pem);
    free(ec_pem);
    EVP_PKEY_free(ed);
    EVP_PKEY_free(ec);
}

int main(void)
{
    snprintf(tmp, sizeof tmp, "/tmp/bx-policy-load-XXXXXX");
    if (!mkdtemp(tmp)) {
        printf("Bail out! mkdtemp\n");
        return 1;
    }
    test_demo();
    test_profiles();
    test_extends();
    test_types();
    test_language();
    test_reload();
    test_keys();
    rmdir(tmp);
    return tap_done();
}
