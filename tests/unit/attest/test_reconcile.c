/* SPDX-License-Identifier: Apache-2.0 */
/* Which source wins (attest/reconcile.c), without a host: the engine-level predicate of the
 * recorded hardened session, and views of the spec, the runtime and the kernel written
 * here, each case one disagreement (or none) and what must be recorded. */
#include "tap.h"
#include "attest_internal.h"

#include <stdlib.h>
#include <string.h>

#define FIXTURE BOXCERT_SOURCE_DIR "/fixtures/inspect/hardened"
#define NOW 1767225600

static json_t *version, *info, *container, *image;
static const char *top_changes; /* changes to the inspect's top level, or NULL */
static char *raw_c, *raw_i;
static size_t raw_c_len, raw_i_len;

static json_t *load(const char *name, char **raw, size_t *len)
{
    char path[512];
    json_t *j;

    snprintf(path, sizeof path, FIXTURE "/%s", name);
    j = json_load_file(path, JSON_REJECT_DUPLICATES, NULL);
    if (j && raw) {
        *raw = json_dumps(j, JSON_COMPACT);
        *len = strlen(*raw);
    }
    return j;
}

/* The engine-level predicate of the hardened session, with changes to its inspect. */
static json_t *engine_predicate(const char *hostconfig_changes)
{
    json_t *c = json_deep_copy(container), *p = NULL;
    bx_collect_opts o = {
        .container = "x", .now = NOW, .ttl = 60, .nonce = "00112233445566778899aabbccddeeff"};
    bx_error e;

    if (hostconfig_changes) {
        json_t *ch = json_loads(hostconfig_changes, 0, NULL);
        json_object_update(json_object_get(c, "HostConfig"), ch);
        json_decref(ch);
    }
    if (top_changes) {
        json_t *ch = json_loads(top_changes, 0, NULL);
        json_object_update(c, ch);
        json_decref(ch);
    }
    if (bx_predicate_from_inspect(version, info, c, image, NULL, raw_c, raw_c_len, raw_i, raw_i_len,
                                  &o, "unix:///var/run/docker.sock", &p, &e) != 0)
        printf("# engine predicate: %s\n", e.msg);
    json_decref(c);
    return p;
}

static const json_t *at(const json_t *root, const char *ptr)
{
    char key[64];
    const json_t *v = root;

    while (v && *ptr == '/') {
        const char *next = strchr(ptr + 1, '/');
        size_t n = next ? (size_t)(next - ptr - 1) : strlen(ptr + 1);
        snprintf(key, sizeof key, "%.*s", (int)n, ptr + 1);
        v = json_is_array(v) ? json_array_get(v, strtoul(key, NULL, 10)) : json_object_get(v, key);
        ptr += n + 1;
    }
    return v;
}

static const json_t *discrepancy(const json_t *p, const char *field)
{
    const json_t *d;
    size_t i;

    json_array_foreach(at(p, "/evidence/discrepancies"), i, d)
    {
        if (!strcmp(json_string_value(json_object_get(d, "field")), field))
            return d;
    }
    return NULL;
}

static int is_json(const json_t *v, const char *want)
{
    json_t *w = json_loads(want, JSON_DECODE_ANY, NULL);
    int r = v && w && json_equal((json_t *)v, w);
    if (!r) {
        char *g = v ? json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT) : NULL;
        printf("#   got  %.500s\n#   want %s\n", g ? g : "(absent)", want);
        free(g);
    }
    json_decref(w);
    return r;
}

typedef struct {
    json_t *p, *sources;
    bx_evidence *ev;
    int rc;
} run;

static run reconcile(const char *hc, const char *level, const char *spec, const char *runtime,
                     const char *kernel, const char *args)
{
    run r = {.p = engine_predicate(hc), .sources = json_object(), .ev = bxa_evidence_new()};
    bxa_views v = {.level = level};
    bx_error e;

    v.spec = spec ? json_loads(spec, 0, NULL) : NULL;
    v.runtime = runtime ? json_loads(runtime, 0, NULL) : NULL;
    v.kernel = kernel ? json_loads(kernel, 0, NULL) : NULL;
    v.runtime_args = args ? json_loads(args, 0, NULL) : NULL;
    if (kernel && bxa_evidence_add(r.ev, BXA_EV_KERNEL, "1/status", "x", 1, &e) != 0)
        printf("# evidence: %s\n", e.msg);
    if (spec && bxa_evidence_add(r.ev, BXA_EV_SPEC, "config.json", "{}", 2, &e) != 0)
        printf("# evidence: %s\n", e.msg);
    r.rc = r.p ? bxa_reconcile(r.p, &v, r.ev, r.sources, &e) : -99;
    if (r.rc != 0)
        printf("# reconcile: %d %s\n", r.rc, r.p ? e.msg : "no predicate");
    bxa_views_free(&v);
    return r;
}

static void done(run *r)
{
    json_decref(r->p);
    json_decref(r->sources);
    bxa_evidence_free(r->ev);
}

static const char *src(const run *r, const char *field)
{
    const char *s = json_string_value(json_object_get(r->sources, field));
    return s ? s : "(none)";
}

#define AGREEING_KERNEL                                                                            \
    "{\"rootfs\":{\"readOnly\":true},\"noNewPrivileges\":true,\"seccomp\":{\"mode\":\"filter\"},"  \
    "\"capabilities\":{\"effective\":[],\"permitted\":[],\"inheritable\":[],\"ambient\":[],"       \
    "\"bounding\":[]},\"user\":{\"uids\":[0,0,0,0],\"gids\":[0,0,0,0],\"groups\":[0]},"            \
    "\"namespaces\":{\"pid\":\"private\",\"ipc\":\"private\",\"uts\":\"private\",\"net\":"         \
    "\"private\",\"user\":\"host\",\"cgroup\":\"host\"},\"network\":{\"interfaces\":[\"lo\"]},"    \
    "\"resources\":{\"memoryBytes\":268435456,\"pidsLimit\":64,\"cpuShares\":1024,\"cpuQuota\":"   \
    "null,\"cpuPeriod\":100000},\"devices\":{\"allowAll\":false}}"

static void engine_only(void)
{
    run r = reconcile(NULL, "engine", NULL, NULL, NULL, NULL);
    ok(r.rc == 0, "engine only: reconciled");
    ok(is_json(at(r.p, "/evidence/level"), "\"engine\""), "level engine");
    ok(is_json(at(r.p, "/evidence/kernelSha256"), "null") &&
           is_json(at(r.p, "/evidence/ociSpecSha256"), "null"),
       "no kernel or spec digests");
    ok(json_array_size(at(r.p, "/evidence/discrepancies")) == 0, "no discrepancy");
    is_str(src(&r, "rootfs.readOnly"), "engine", "sources: engine");
    done(&r);
}

static void agreeing(void)
{
    run r = reconcile(NULL, "engine+kernel", NULL, NULL, AGREEING_KERNEL, NULL);
    ok(r.rc == 0, "agreeing kernel: reconciled");
    ok(is_json(at(r.p, "/evidence/discrepancies"), "[]"), "agreeing kernel: no discrepancy");
    ok(is_json(at(r.p, "/evidence/level"), "\"engine+kernel\""), "level engine+kernel");
    ok(json_is_string(at(r.p, "/evidence/kernelSha256")), "kernelSha256 set");
    ok(is_json(at(r.p, "/containment/user/uids"), "[0,0,0,0]"), "uids from the kernel");
    ok(is_json(at(r.p, "/containment/namespaces/pid"),
               "{\"engine\":\"private\",\"kernel\":\"private\",\"shared\":null}"),
       "namespaces: engine and kernel side by side (no sharing read: null)");
    ok(is_json(at(r.p, "/containment/resources/cpuShares"), "null"),
       "cpu.shares 1024 with no engine shares: no limit (null)");
    ok(is_json(at(r.p, "/containment/network/interfaces"), "[\"lo\"]"),
       "interfaces from the kernel");
    is_str(src(&r, "rootfs.readOnly"), "kernel", "sources: kernel");
    is_str(src(&r, "network.interfaces"), "kernel", "sources: interfaces from the kernel");
    done(&r);
}

static void disagreements(void)
{
    run r;
    const json_t *d;

    r = reconcile(NULL, "engine+kernel", NULL, NULL, "{\"rootfs\":{\"readOnly\":false}}", NULL);
    d = discrepancy(r.p, "containment.rootfs.readOnly");
    ok(d &&
           is_json(json_object_get(d, "values"),
                   "{\"engine\":true,\"spec\":null,\"runtime\":null,\"kernel\":false}") &&
           is_json(json_object_get(d, "recorded"), "false") &&
           is_json(json_object_get(d, "reason"), "\"kernel\""),
       "kernel rw against engine ro: the kernel's recorded, one entry");
    ok(is_json(at(r.p, "/containment/rootfs/readOnly"), "false"), "rootfs recorded writable");
    done(&r);

    r = reconcile(NULL, "engine+kernel", NULL, NULL,
                  "{\"namespaces\":{\"net\":\"host\",\"pid\":\"private\"}}", NULL);
    ok(is_json(at(r.p, "/containment/network/mode"), "\"host\"") &&
           is_json(at(r.p, "/containment/network/internal"), "false"),
       "the kernel's host network namespace wins over the engine's none");
    ok(discrepancy(r.p, "containment.network.mode") &&
           discrepancy(r.p, "containment.namespaces.net"),
       "... with discrepancies on the mode and the namespace");
    ok(!discrepancy(r.p, "containment.namespaces.pid"), "... and none where they agree");
    done(&r);

    r = reconcile("{\"NetworkMode\":\"bridge\"}", "engine+runtime",
                  "{\"rootfs\":{\"readOnly\":true}}",
                  "{\"network\":{\"mode\":\"none\",\"interfaces\":[\"lo\"]}}", NULL, "[]");
    d = discrepancy(r.p, "containment.network.mode");
    ok(d && is_json(json_object_get(d, "reason"), "\"runtime argument\"") &&
           is_json(json_object_get(d, "values"),
                   "{\"engine\":\"bridge\",\"spec\":null,\"runtime\":\"none\",\"kernel\":null}"),
       "runsc --network=none against the engine's bridge: \"runtime argument\"");
    ok(is_json(at(r.p, "/containment/network/mode"), "\"none\"") &&
           is_json(at(r.p, "/containment/network/interfaces"), "[\"lo\"]"),
       "recorded none, interfaces from the argument");
    is_str(src(&r, "network.mode"), "runtime", "sources: runtime");
    done(&r);

    r = reconcile("{\"CapDrop\":[],\"CapAdd\":[]}", "engine+runtime",
                  "{\"capabilities\":{\"effective\":[\"CHOWN\"],\"permitted\":[\"CHOWN\"],"
                  "\"inheritable\":[],\"ambient\":[],\"bounding\":[\"CHOWN\"]}}",
                  NULL, NULL, NULL);
    d = discrepancy(r.p, "containment.capabilities.bounding");
    ok(d && is_json(json_object_get(d, "reason"), "\"OCI spec\"") &&
           is_json(json_object_get(d, "recorded"), "[\"CHOWN\"]"),
       "spec's capabilities against the engine's defaults: the spec's recorded");
    ok(is_json(at(r.p, "/containment/capabilities/add"), "[]"), "add/drop stay as configured");
    done(&r);

    /* the bounding sets agree; a non-root process holds nothing: no discrepancy */
    r = reconcile("{\"CapDrop\":[],\"CapAdd\":[]}", "engine+kernel", NULL, NULL,
                  "{\"capabilities\":{\"effective\":[],\"permitted\":[],\"inheritable\":[],"
                  "\"ambient\":[],\"bounding\":[\"AUDIT_WRITE\",\"CHOWN\",\"DAC_OVERRIDE\","
                  "\"FOWNER\",\"FSETID\",\"KILL\",\"MKNOD\",\"NET_BIND_SERVICE\",\"NET_RAW\","
                  "\"SETFCAP\",\"SETGID\",\"SETPCAP\",\"SETUID\",\"SYS_CHROOT\"]}}",
                  NULL);
    ok(!discrepancy(r.p, "containment.capabilities.bounding") &&
           is_json(at(r.p, "/containment/capabilities/effective"), "[]"),
       "a non-root session: the kernel's empty effective set, no discrepancy");
    done(&r);

    r = reconcile(
        "{\"NanoCpus\":1000000000,\"Memory\":268435456}", "engine+kernel", NULL, NULL,
        "{\"resources\":{\"memoryBytes\":536870912,\"cpuQuota\":50000,\"cpuPeriod\":100000,"
        "\"cpuShares\":1024}}",
        NULL);
    d = discrepancy(r.p, "containment.resources.memoryBytes");
    ok(d && is_json(json_object_get(d, "recorded"), "536870912"),
       "the cgroup's memory limit recorded over the engine's");
    d = discrepancy(r.p, "containment.resources.nanoCpus");
    ok(d && is_json(json_object_get(d, "recorded"), "500000000"),
       "--cpus compared as nano-CPUs from quota/period");
    ok(is_json(at(r.p, "/containment/resources/cpuQuota"), "null") &&
           !discrepancy(r.p, "containment.resources.cpuQuota"),
       "quota/period not compared when the engine set nano-CPUs");
    done(&r);

    r = reconcile("{\"CpuShares\":512}", "engine+kernel", NULL, NULL,
                  "{\"resources\":{\"cpuWeight\":20}}", NULL);
    ok(!discrepancy(r.p, "containment.resources.cpuShares") &&
           is_json(at(r.p, "/containment/resources/cpuShares"), "512"),
       "cgroup v2 cpu.weight 20 is shares 512");
    done(&r);
    r = reconcile(NULL, "engine+kernel", NULL, NULL, "{\"resources\":{\"cpuWeight\":100}}", NULL);
    ok(!discrepancy(r.p, "containment.resources.cpuShares") &&
           is_json(at(r.p, "/containment/resources/cpuShares"), "null"),
       "cgroup v2 cpu.weight 100 is the default: no limit");
    done(&r);

    r = reconcile(NULL, "engine+kernel", "{\"user\":{\"uids\":[0,0,0,0],\"gids\":[0,0,0,0]}}", NULL,
                  "{\"user\":{\"uids\":[0,1000,0,0],\"gids\":[0,0,0,0],\"groups\":[]}}", NULL);
    d = discrepancy(r.p, "containment.user.uids");
    ok(d && is_json(json_object_get(d, "recorded"), "[0,1000,0,0]") &&
           !discrepancy(r.p, "containment.user.gids"),
       "uids: the kernel's recorded where the spec disagrees");
    done(&r);
}

static void runsc_views(void)
{
    run r;
    const json_t *d;

    /* a flag the collector does not know: every field at its weakest */
    json_t *rt = NULL, *flags = json_pack("[s]", "--mystery-flag");
    bx_error e;
    char *rts = NULL;
    if (bxa_runsc_view(flags, NULL, &rt, &e) == 0)
        rts = json_dumps(rt, JSON_COMPACT);
    json_decref(rt);
    json_decref(flags);
    r = reconcile(NULL, "engine+runtime", "{\"rootfs\":{\"readOnly\":true}}", rts, NULL, "[]");
    ok(is_json(at(r.p, "/containment/network/mode"), "null") &&
           is_json(at(r.p, "/containment/rootfs/readOnly"), "null") &&
           is_json(at(r.p, "/containment/noNewPrivileges"), "false") &&
           is_json(at(r.p, "/containment/devices/allowAll"), "true") &&
           json_array_size(at(r.p, "/containment/capabilities/effective")) == BXA_CAP_COUNT,
       "an unknown runsc flag: null, or the weakest value where null is not allowed");
    ok(json_is_object(at(r.p, "/containment/writeSurface/0")) &&
           is_json(at(r.p, "/containment/writeSurface/0/path"), "\"/\""),
       "... and the rootfs counted as writable");
    free(rts);
    done(&r);

    r = reconcile(NULL, "engine+runtime", NULL, "{\"hostSockets\":\"--host-uds=open\"}", NULL,
                  "[]");
    d = discrepancy(r.p, "containment.mounts");
    ok(d && strstr(json_string_value(json_object_get(d, "reason")), "--host-uds=open"),
       "--host-uds: a discrepancy on the mounts");
    done(&r);

    r = reconcile("{\"Runtime\":\"runsc\"}", "engine+runtime", NULL, NULL, NULL,
                  "[\"--network=none\"]");
    ok(is_json(at(r.p, "/containment/runtime/args"), "[\"--network=none\"]"),
       "runtime.args: the sandbox's own");
    d = discrepancy(r.p, "containment.runtime.args");
    ok(d && is_json(json_object_get(json_object_get(d, "values"), "engine"),
                    "[\"--network=none\",\"--oci-seccomp\"]"),
       "an argument of /info Runtimes missing from the sandbox's: a discrepancy");
    done(&r);
    r = reconcile("{\"Runtime\":\"runsc\"}", "engine+runtime", NULL, NULL, NULL,
                  "[\"--root=/x\",\"--network=none\",\"--oci-seccomp=true\"]");
    ok(!discrepancy(r.p, "containment.runtime.args"),
       "--oci-seccomp and --oci-seccomp=true are the same argument");
    done(&r);
}

static void surface(void)
{
    run r = reconcile(
        NULL, "engine+kernel", NULL, NULL,
        "{\"writeSurface\":[{\"path\":\"/dev\",\"fsType\":\"tmpfs\",\"options\":[\"rw\"],"
        "\"sizeBytes\":67108864,\"root\":\"/\",\"source\":\"tmpfs\"},{\"path\":\"/dev/shm\","
        "\"fsType\":\"tmpfs\",\"options\":[],\"sizeBytes\":67108864,\"root\":\"/\",\"source\":"
        "\"shm\"},{\"path\":\"/dev/pts\",\"fsType\":\"devpts\",\"options\":[],\"sizeBytes\":null,"
        "\"root\":\"/\",\"source\":\"devpts\"},{\"path\":\"/dev/mqueue\",\"fsType\":\"mqueue\","
        "\"options\":[],\"sizeBytes\":null,\"root\":\"/\",\"source\":\"mqueue\"},{\"path\":"
        "\"/proc\",\"fsType\":\"proc\",\"options\":[],\"sizeBytes\":null,\"root\":\"/\","
        "\"source\":\"proc\"},{\"path\":\"/sys/fs/cgroup\",\"fsType\":\"tmpfs\",\"options\":[],"
        "\"sizeBytes\":12345,\"root\":\"/\",\"source\":\"tmpfs\"},{\"path\":\"/tmp\",\"fsType\":"
        "\"tmpfs\",\"options\":[],\"sizeBytes\":67108864,\"root\":\"/\",\"source\":\"tmpfs\"},"
        "{\"path\":\"/sneaky\",\"fsType\":\"ext4\",\"options\":[],\"sizeBytes\":null,\"root\":"
        "\"/srv\",\"source\":\"/dev/vda\"}]}",
        NULL);
    const json_t *d = discrepancy(r.p, "containment.writeSurface");
    ok(d != NULL, "a writable place the engine does not know: a discrepancy");
    ok(is_json(at(r.p, "/containment/writeSurface/5/path"), "\"/sneaky\"") &&
           is_json(at(r.p, "/containment/writeSurface/5/kind"), "\"bind\""),
       "... recorded, as a bind");
    ok(is_json(at(r.p, "/containment/writeSurface/7/path"), "\"/tmp\"") &&
           is_json(at(r.p, "/containment/writeSurface/7/kind"), "\"tmpfs\""),
       "the engine's tmpfs keeps its kind");
    ok(!json_object_get(at(r.p, "/containment/writeSurface/0"), "root"),
       "the kernel's helper members are gone");
    done(&r);
}

static void evidence_digests(void)
{
    bx_evidence *ev = bxa_evidence_new();
    bx_error e;
    char hex[65];

    ok(bxa_evidence_add(ev, BXA_EV_KERNEL, "../x", "a", 1, &e) == BX_EINVAL, "'..' refused");
    ok(bxa_evidence_add(ev, BXA_EV_KERNEL, "a/b/c", "a", 1, &e) == BX_EINVAL,
       "three components refused");
    ok(bxa_evidence_add(ev, BXA_EV_KERNEL, "/abs", "a", 1, &e) == BX_EINVAL, "absolute refused");
    ok(bxa_evidence_add(ev, BXA_EV_KERNEL, "manifest.json", "a", 1, &e) == BX_EINVAL,
       "the manifest's own name refused");
    ok(bxa_evidence_add(ev, BXA_EV_KERNEL, "1/status", "abc", 3, &e) == 0, "1/status kept");
    ok(bxa_evidence_add(ev, BXA_EV_KERNEL, "1/status", "abc", 3, &e) == BX_EINVAL,
       "a name kept twice refused");
    ok(bxa_evidence_digest(ev, BXA_EV_KERNEL, hex, &e) == 0 && strlen(hex) == 64,
       "the manifest digest is computed");
    json_t *m = json_pack("{s:s}", "1/status",
                          "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    char want[65];
    ok(bx_jcs_sha256_hex(m, want, &e) == 0 && !strcmp(hex, want),
       "the digest is the SHA-256 of the JCS of {name: sha256(bytes)}");
    json_decref(m);
    ok(bxa_evidence_digest(ev, BXA_EV_SPEC, hex, &e) == 0 && hex[0] == '\0',
       "nothing kept: no digest");
    bxa_evidence_free(ev);
}

/* v2: the kernel's processes, its every id, the namespaces' sharing, system paths and
 * descriptors land in the predicate; a process outside the session's memory or pids cgroup
 * and a second user namespace are discrepancies. */
#define V2_KERNEL                                                                                  \
    "{\"user\":{\"uids\":[65532,65532,65532,65532],\"gids\":[65532,65532,65532,65532],"         \
    "\"groups\":[65532],\"everyUid\":[0,65532],\"everyGid\":[65532],\"everyGroup\":[65532],"    \
    "\"inNamespace\":{\"everyUid\":[0,65532],\"everyGid\":[65532],\"everyGroup\":[65532]}},"     \
    "\"resources\":{\"memoryBytes\":null,\"pidsLimit\":null},"                                  \
    "\"namespaces\":{\"pid\":\"private\"},\"namespacesShared\":{\"pid\":{\"host\":false,"        \
    "\"containers\":[\"w\"],\"heldOpen\":[]}},"                                                 \
    "\"processes\":{\"rule\":\"pid-namespace\",\"count\":2,\"tasks\":3,\"scans\":2,"            \
    "\"settled\":true,\"outsideCgroups\":[{\"controller\":\"memory\",\"path\":\"/\",\"pid\":7},"  \
    "{\"controller\":\"pids\",\"path\":\"/x\",\"pid\":7}],\"userNamespaces\":[{\"id\":\"user:[1]\","  \
    "\"uidMap\":[],\"gidMap\":[],\"processes\":1},{\"id\":\"user:[2]\",\"uidMap\":[],"           \
    "\"gidMap\":[],\"processes\":1}]},"                                                          \
    "\"systemPaths\":{\"servedBy\":\"kernel\",\"readOnly\":{},\"masks\":{}},"                     \
    "\"descriptors\":[{\"pid\":7,\"fd\":3,\"kind\":\"engine-socket\",\"target\":\"/run/docker.sock\"}],"  \
    "\"devices\":{\"allowAll\":false,\"nodes\":[]}}"

static void v2_members(void)
{
    run r = reconcile(NULL, "engine+kernel", NULL, NULL, V2_KERNEL, NULL);
    const json_t *d;

    ok(r.rc == 0, "v2 kernel: reconciled");
    ok(is_json(at(r.p, "/containment/user/everyUid"), "[0,65532]"), "every uid from the kernel");
    ok(is_json(at(r.p, "/containment/user/inNamespace/everyUid"), "[0,65532]"),
       "every uid in the tasks' own user namespaces");
    ok(is_json(at(r.p, "/containment/namespaces/pid/shared/containers"), "[\"w\"]"),
       "the pid namespace's sharing from the kernel");
    ok(json_is_null(at(r.p, "/containment/namespaces/ipc/shared")),
       "a namespace whose sharing was not read: null");
    ok(is_json(at(r.p, "/containment/processes/count"), "2"), "processes from the kernel");
    ok(is_json(at(r.p, "/containment/descriptors/0/kind"), "\"engine-socket\""),
       "descriptors from the kernel");
    ok(is_json(at(r.p, "/containment/devices/nodes"), "[]"), "device nodes from the kernel");
    ok(json_is_null(at(r.p, "/containment/resources/memoryBytes")) &&
           json_is_null(at(r.p, "/containment/resources/pidsLimit")),
       "limits a process escaped: null");
    d = discrepancy(r.p, "containment.resources.memoryBytes");
    ok(d && strstr(json_string_value(json_object_get(d, "reason")), "outside its memory cgroup"),
       "a process outside the memory cgroup: a discrepancy");
    d = discrepancy(r.p, "containment.resources.pidsLimit");
    ok(d && strstr(json_string_value(json_object_get(d, "reason")), "process 7"),
       "a process outside the pids cgroup: a discrepancy naming it");
    ok(discrepancy(r.p, "containment.processes.userNamespaces") != NULL,
       "two user namespaces among the session's processes: a discrepancy");
    is_str(src(&r, "processes"), "kernel", "processes: the kernel's");
    done(&r);
}

/* ---- the seccomp programs ----------------------------------------------------------------- */

/* Two chains among the tasks, and one lets through what the profile denies: each a
 * discrepancy; the kernel's reading is recorded whole. */
#define SC_CHAIN(sha)                                                                              \
    "{\"sha256\":\"" sha "\",\"tasks\":1,\"filters\":1,\"insns\":4,\"log\":false,"           \
    "\"abis\":{},\"otherArch\":\"kill_thread\"}"
#define SC_KERNEL(chains, looser)                                                                  \
    "{\"seccompPrograms\":{\"servedBy\":\"kernel\",\"chains\":[" chains "],\"unread\":[],"       \
    "\"tasks\":{\"filter\":2,\"none\":0,\"strict\":0,\"unread\":0},\"reader\":{\"capSysAdmin\":" \
    "true,\"initialUserNamespace\":true,\"seccomp\":false},\"why\":null,\"profile\":{\"sha256\":"  \
    "\"" SHA_A "\",\"program\":null,\"looser\":[" looser "]},\"sandbox\":null}}"
#define SHA_A "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
#define SHA_B "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"

static void seccomp_programs(void)
{
    run r = reconcile(NULL, "engine+kernel", NULL, NULL, SC_KERNEL(SC_CHAIN(SHA_A), ""), NULL);

    ok(r.rc == 0, "seccomp programs: reconciled");
    ok(is_json(at(r.p, "/containment/seccompPrograms/chains/0/sha256"), "\"" SHA_A "\""),
       "the chains from the kernel");
    ok(discrepancy(r.p, "containment.seccompPrograms.chains") == NULL &&
           discrepancy(r.p, "containment.seccompPrograms.profile") == NULL,
       "one chain, nothing looser: no discrepancy");
    is_str(src(&r, "seccompPrograms"), "kernel", "seccompPrograms: the kernel's");
    done(&r);
    r = reconcile(NULL, "engine+kernel", NULL, NULL,
                  SC_KERNEL(SC_CHAIN(SHA_A) "," SC_CHAIN(SHA_B),
                            "{\"abi\":\"x86_64\",\"syscall\":\"mount\",\"kernel\":\"allow\"}"),
                  NULL);
    ok(discrepancy(r.p, "containment.seccompPrograms.chains") != NULL,
       "tasks running different chains: a discrepancy");
    ok(discrepancy(r.p, "containment.seccompPrograms.profile") != NULL,
       "a chain looser than the profile: a discrepancy");
    done(&r);
}

/* ---- the network by the kernel's links ---------------------------------------------------- */

#define NET_BRIDGE                                                                                 \
    "{\"Name\":\"bridge\",\"Id\":\"n1\",\"Driver\":\"bridge\",\"Internal\":false,\"Options\":"     \
    "{\"com.docker.network.bridge.name\":\"docker0\"}}"
#define NET_INTERNAL                                                                               \
    "{\"Name\":\"inet\",\"Id\":\"n2abcdef012345\",\"Driver\":\"bridge\",\"Internal\":true}"
#define LO                                                                                         \
    "{\"name\":\"lo\",\"kind\":null,\"up\":true,\"operState\":\"unknown\",\"addresses\":[\"127.0." \
    "0.1/8\"],\"peer\":null}"
#define VETH(n, host, br)                                                                          \
    "{\"name\":\"" n "\",\"kind\":\"veth\",\"up\":true,\"operState\":\"up\",\"addresses\":"        \
    "[\"172.17.0.2/16\"],\"peer\":{\"host\":" host ",\"bridge\":" br ",\"network\":null,"          \
    "\"internal\":null}}"
#define SIT(up, addrs)                                                                             \
    "{\"name\":\"sit0\",\"kind\":\"sit\",\"up\":" up                                               \
    ",\"operState\":\"down\",\"addresses\":" addrs ",\"peer\":null}"

/* mode: HostConfig.NetworkMode; nets: NetworkSettings.Networks; inspect: the network's reply;
 * links: the kernel's; runtime: a runtime view or NULL. */
static run net_case(const char *mode, const char *nets, const char *inspect, const char *links,
                    const char *runtime)
{
    json_t *c = json_deep_copy(container), *netj = inspect ? json_loads(inspect, 0, NULL) : NULL;
    bx_collect_opts o = {
        .container = "x", .now = NOW, .ttl = 60, .nonce = "00112233445566778899aabbccddeeff"};
    run r = {.sources = json_object(), .ev = bxa_evidence_new()};
    bxa_views v = {.level = "engine+kernel"};
    char kernel[4096];
    bx_error e;

    json_object_set_new(json_object_get(c, "HostConfig"), "NetworkMode", json_string(mode));
    json_object_set_new(json_object_get(c, "NetworkSettings"), "Networks",
                        json_loads(nets, 0, NULL));
    if (bx_predicate_from_inspect(version, info, c, image, netj, raw_c, raw_c_len, raw_i, raw_i_len,
                                  &o, "unix:///var/run/docker.sock", &r.p, &e) != 0)
        printf("# engine predicate: %s\n", e.msg);
    snprintf(kernel, sizeof kernel,
             "{\"namespaces\":{\"net\":\"private\"},\"network\":{\"interfaces\":[],\"links\":%s,"
             "\"routes\":[]}}",
             links);
    v.kernel = json_loads(kernel, 0, NULL);
    v.runtime = runtime ? json_loads(runtime, 0, NULL) : NULL;
    if (!v.kernel)
        printf("# kernel view does not parse\n");
    if (bxa_evidence_add(r.ev, BXA_EV_KERNEL, "1/status", "x", 1, &e) != 0)
        printf("# evidence: %s\n", e.msg);
    r.rc = r.p ? bxa_reconcile(r.p, &v, r.ev, r.sources, &e) : -99;
    if (r.rc != 0)
        printf("# reconcile: %d %s\n", r.rc, r.p ? e.msg : "no predicate");
    bxa_views_free(&v);
    json_decref(netj);
    json_decref(c);
    return r;
}

static void network_links(void)
{
    const json_t *d;
    run r;

    /* docker network disconnect none S; docker network connect bridge S */
    r = net_case(
        "none",
        "{\"bridge\":{\"NetworkID\":\"n1\",\"IPAddress\":\"172.17.0.2\",\"IPPrefixLen\":16}}",
        NET_BRIDGE, "[" VETH("eth0", "true", "\"docker0\"") "," LO "]", NULL);
    d = discrepancy(r.p, "containment.network.mode");
    ok(r.rc == 0 && is_json(at(r.p, "/containment/network/mode"), "\"bridge\"") &&
           is_json(at(r.p, "/containment/network/internal"), "false"),
       "mode none with eth0 on docker0: bridge recorded (the weaker)");
    ok(d && is_json(json_object_get(json_object_get(d, "values"), "engine"), "\"none\"") &&
           is_json(json_object_get(json_object_get(d, "values"), "kernel"), "\"bridge\""),
       "... a discrepancy: the engine's none, the kernel's bridge");
    ok(is_json(at(r.p, "/containment/network/links/0/peer/network"), "\"bridge\"") &&
           is_json(at(r.p, "/containment/network/networks/0/bridge"), "\"docker0\""),
       "... the peer's bridge named as the engine's network");
    ok(!strcmp(src(&r, "network.links"), "kernel"), "... the links are the kernel's");
    done(&r);

    r = net_case("none", "{\"none\":{\"NetworkID\":\"n0\"}}", NULL,
                 "[" LO "," SIT("false", "[]") "]", NULL);
    ok(r.rc == 0 && is_json(at(r.p, "/containment/network/mode"), "\"none\"") &&
           !discrepancy(r.p, "containment.network.mode"),
       "lo and sit0 down without an address: none, no discrepancy");
    ok(is_json(at(r.p, "/containment/network/links/1/name"), "\"sit0\""), "... sit0 recorded");
    done(&r);
    r = net_case("none", "{}", NULL, "[" LO "," SIT("true", "[]") "]", NULL);
    ok(is_json(at(r.p, "/containment/network/mode"), "null") &&
           discrepancy(r.p, "containment.network.mode"),
       "sit0 up: not none (the mode not known), a discrepancy");
    done(&r);
    r = net_case("none", "{}", NULL, "[" LO "," SIT("false", "[\"10.0.0.1/8\"]") "]", NULL);
    ok(is_json(at(r.p, "/containment/network/mode"), "null"), "sit0 with an address: not none");
    done(&r);
    r = net_case("none", "{}", NULL,
                 "[" LO ",{\"name\":\"sit0\",\"kind\":\"veth\",\"up\":false,\"operState\":\"down\","
                 "\"addresses\":[],\"peer\":{\"host\":true,\"bridge\":null,\"network\":null,"
                 "\"internal\":null}}]",
                 NULL);
    ok(is_json(at(r.p, "/containment/network/mode"), "null"),
       "a veth named sit0: not a fallback device");
    done(&r);

    /* an internal network: every veth's host peer on its bridge */
    r = net_case("inet", "{\"inet\":{\"NetworkID\":\"n2abcdef012345\"}}", NET_INTERNAL,
                 "[" VETH("eth0", "true", "\"br-n2abcdef0123\"") "," LO "]", NULL);
    ok(r.rc == 0 && is_json(at(r.p, "/containment/network/mode"), "\"inet\"") &&
           is_json(at(r.p, "/containment/network/internal"), "true") &&
           !discrepancy(r.p, "containment.network.mode") &&
           !discrepancy(r.p, "containment.network.internal"),
       "internal: eth0's peer on the internal network's bridge");
    done(&r);
    r = net_case("inet", "{\"inet\":{\"NetworkID\":\"n2abcdef012345\"}}", NET_INTERNAL,
                 "[" VETH("eth0", "true", "\"br-n2abcdef0123\"") "," VETH("eth1", "true",
                                                                          "\"docker0\"") "," LO "]",
                 NULL);
    ok(is_json(at(r.p, "/containment/network/mode"), "null") &&
           is_json(at(r.p, "/containment/network/internal"), "null") &&
           discrepancy(r.p, "containment.network.internal"),
       "a second veth on a bridge of no network of the engine's: neither mode nor internal known");
    done(&r);
    r = net_case("inet", "{\"inet\":{\"NetworkID\":\"n2abcdef012345\"}}", NET_INTERNAL,
                 "[" VETH("eth0", "false", "\"br-n2abcdef0123\"") "," LO "]", NULL);
    ok(is_json(at(r.p, "/containment/network/internal"), "null"),
       "a veth whose peer is not on the host: internal not known");
    done(&r);

    r = net_case(
        "bridge", "{\"bridge\":{\"NetworkID\":\"n1\"}}", NET_BRIDGE,
        "[" VETH("eth0", "true", "\"docker0\"") "," VETH("eth1", "false", "null") "," LO "]", NULL);
    ok(is_json(at(r.p, "/containment/network/internal"), "false") &&
           is_json(at(r.p, "/containment/network/mode"), "null"),
       "the engine's bridge and a link of no network: internal false (the weaker), mode not known");
    done(&r);

    /* container:W: W's links, W's internal flag; the mode stays */
    r = net_case("container:w", "{}", NULL, "[" VETH("eth0", "true", "\"docker0\"") "," LO "]",
                 NULL);
    ok(is_json(at(r.p, "/containment/network/mode"), "\"container:w\"") &&
           !discrepancy(r.p, "containment.network.mode") &&
           is_json(at(r.p, "/containment/network/internal"), "null"),
       "container:W: the mode kept, internal from W's links (not known here)");
    done(&r);

    /* runsc --network=none: the sentry's loopback alone; the host side recorded */
    r = net_case("bridge", "{\"bridge\":{\"NetworkID\":\"n1\"}}", NET_BRIDGE,
                 "[" VETH("eth0", "true", "\"docker0\"") "," LO "]",
                 "{\"network\":{\"mode\":\"none\",\"interfaces\":[\"lo\"]}}");
    ok(is_json(at(r.p, "/containment/network/mode"), "\"none\"") &&
           is_json(at(r.p, "/containment/network/links/0/name"), "\"eth0\""),
       "runsc --network=none: none recorded, the host side's links kept");
    done(&r);
}

/* A mount's source from the kernel: the host path of what is mounted at the destination now
 * (a symlink re-pointed after start, a volume bound elsewhere), whatever the engine said. */
static void mount_sources(void)
{
    static const struct {
        const char *host_path; /* JSON */
        const char *want;
        int discrepancy;
    } c[] = {
        {"\"/run\"", "/run", 1},   /* elsewhere: the kernel's */
        {"\"/tmp\"", "/tmp", 0},   /* the engine's path confirmed */
        {"null", "/tmp", 0},       /* no path of this host shows it: the engine's kept */
    };
    top_changes = "{\"Mounts\":[{\"Type\":\"bind\",\"Source\":\"/tmp\",\"Destination\":"
                  "\"/data\",\"Mode\":\"ro\",\"RW\":false,\"Propagation\":\"rprivate\"}]}";
    for (size_t i = 0; i < sizeof c / sizeof *c; i++) {
        char kernel[2048];
        json_t *k = json_loads(AGREEING_KERNEL, 0, NULL), *ho;
        char *text;
        run r;
        const json_t *d, *e;
        size_t j;
        int found = 0;
        ho = json_loads("{\"objects\":[],\"forbiddenTypes\":[],\"uninspected\":[],\"mounts\":["
                        "{\"destination\":\"/data\",\"device\":\"254:0\",\"root\":\"/x\","
                        "\"fsType\":\"ext4\",\"readOnly\":true,\"options\":\"ro\",\"inode\":5,"
                        "\"type\":\"directory\",\"hostPath\":null}]}",
                        0, NULL);
        json_object_set_new(json_array_get(json_object_get(ho, "mounts"), 0), "hostPath",
                            json_loads(c[i].host_path, JSON_DECODE_ANY, NULL));
        json_object_set_new(k, "hostObjects", ho);
        text = json_dumps(k, JSON_COMPACT);
        snprintf(kernel, sizeof kernel, "%s", text);
        free(text);
        json_decref(k);
        r = reconcile(NULL, "engine+kernel", NULL, NULL, kernel, NULL);
        ok(r.rc == 0, "mount source %s: reconciled", c[i].host_path);
        is_str(json_string_value(at(r.p, "/containment/mounts/0/source")), c[i].want,
               "hostPath %s: source recorded", c[i].host_path);
        json_array_foreach(at(r.p, "/evidence/discrepancies"), j, d)
        {
            e = json_object_get(d, "field");
            found |= e && strcmp(json_string_value(e), "containment.mounts[/data].source") == 0;
        }
        is_int(found, c[i].discrepancy, "hostPath %s: a discrepancy or none", c[i].host_path);
        if (c[i].discrepancy)
            is_str(src(&r, "mounts"), "kernel", "the kernel's source");
        done(&r);
    }
    top_changes = NULL;
}

/* cpuset: the kernel's effective set wins; a set that is all of this host's is null, whichever
 * view says it (the engine's "", its "0-1" on a 2-CPU host, the kernel's "0-1") */
static void cpusets(void)
{
    run r;
    const json_t *d;

    r = reconcile(NULL, "engine+kernel", NULL, NULL,
                  "{\"resources\":{\"cpusetCpus\":\"0-1\",\"cpusetCpusHost\":\"0-1\","
                  "\"cpusetMems\":\"0\",\"cpusetMemsHost\":\"0\"}}",
                  NULL);
    ok(is_json(at(r.p, "/containment/resources/cpusetCpus"), "null") &&
           is_json(at(r.p, "/containment/resources/cpusetMems"), "null") &&
           !discrepancy(r.p, "containment.resources.cpusetCpus") &&
           !discrepancy(r.p, "containment.resources.cpusetMems"),
       "cpuset: the engine's every CPU and the kernel's every CPU of this host agree (null)");
    ok(!at(r.p, "/containment/resources/cpusetCpusHost"), "cpuset: the host's set is not a member");
    done(&r);

    r = reconcile(NULL, "engine+kernel", NULL, NULL,
                  "{\"resources\":{\"cpusetCpus\":\"0\",\"cpusetCpusHost\":\"0-1\"}}", NULL);
    d = discrepancy(r.p, "containment.resources.cpusetCpus");
    ok(d && is_json(json_object_get(d, "recorded"), "\"0\"") &&
           is_json(json_object_get(json_object_get(d, "values"), "engine"), "\"*\"") &&
           is_json(at(r.p, "/containment/resources/cpusetCpus"), "\"0\""),
       "cpuset: narrowed in the kernel behind the engine: the kernel's \"0\" recorded, a discrepancy");
    done(&r);

    r = reconcile("{\"CpusetCpus\":\"1,0\"}", "engine+kernel", NULL, NULL,
                  "{\"resources\":{\"cpusetCpus\":\"0-1\",\"cpusetCpusHost\":\"0-1\"}}", NULL);
    ok(!discrepancy(r.p, "containment.resources.cpusetCpus") &&
           is_json(at(r.p, "/containment/resources/cpusetCpus"), "null"),
       "cpuset: the engine's \"1,0\" on a 2-CPU host is every CPU: null, no discrepancy");
    done(&r);

    r = reconcile("{\"CpusetCpus\":\"1\"}", "engine+kernel", NULL, NULL,
                  "{\"resources\":{\"cpusetCpus\":\"1\",\"cpusetCpusHost\":\"0-1\"}}", NULL);
    ok(!discrepancy(r.p, "containment.resources.cpusetCpus") &&
           is_json(at(r.p, "/containment/resources/cpusetCpus"), "\"1\""),
       "cpuset: --cpuset-cpus 1 and the kernel's 1 agree");
    done(&r);

    r = reconcile("{\"CpusetCpus\":\"1\"}", "engine+kernel", NULL, NULL,
                  "{\"resources\":{\"cpusetCpus\":\"1\",\"cpusetCpusHost\":\"\"}}", NULL);
    ok(!discrepancy(r.p, "containment.resources.cpusetCpus") &&
           is_json(at(r.p, "/containment/resources/cpusetCpus"), "\"1\""),
       "cpuset: the host's set unknown: the set kept as read");
    done(&r);

    r = reconcile(NULL, "engine+kernel", NULL, NULL,
                  "{\"resources\":{\"cpusetCpus\":\"0-1\",\"cpusetCpusHost\":\"\"}}", NULL);
    d = discrepancy(r.p, "containment.resources.cpusetCpus");
    ok(d && is_json(at(r.p, "/containment/resources/cpusetCpus"), "\"0-1\""),
       "cpuset: the host's set unknown: never taken as every CPU (the kernel's set recorded)");
    done(&r);

    r = reconcile("{\"CpusetCpus\":\"0-2,1\"}", "engine", NULL, NULL, NULL, NULL);
    ok(is_json(at(r.p, "/containment/resources/cpusetCpus"), "\"0-2\""),
       "cpuset: the engine's list written in canonical form");
    done(&r);
}

/* containment.channels (v3): a socket of the host's or the daemon's network namespace makes
 * network.mode the host's, one of another namespace not known; the session's own, or one
 * whose namespace was not asked, change nothing (the channels rule judges those). */
static void channels_network(void)
{
    static const struct {
        const char *whose, *mode;
        int disc;
    } c[] = {
        {"\"host\"", "\"host\"", 1},   {"\"daemon\"", "\"host\"", 1}, {"\"other\"", "null", 1},
        {"\"session\"", "\"none\"", 0}, {"null", "\"none\"", 0},
    };
    char kernel[512];
    for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
        run r;
        snprintf(kernel, sizeof kernel,
                 "{\"channels\":[{\"pid\":7,\"fd\":4,\"family\":\"inet\",\"type\":\"stream\","
                 "\"netns\":4026531833,\"netnsOf\":%s,\"peer\":null,\"path\":null,"
                 "\"inFlight\":null}]}",
                 c[i].whose);
        r = reconcile(NULL, "engine+kernel", NULL, NULL, kernel, NULL);
        ok(r.rc == 0 && is_json(at(r.p, "/containment/channels/0/fd"), "4"),
           "channels (%s): from the kernel", c[i].whose);
        ok(is_json(at(r.p, "/containment/network/mode"), c[i].mode),
           "a socket of namespace %s: network.mode %s", c[i].whose, c[i].mode);
        ok(!discrepancy(r.p, "containment.network.mode") == !c[i].disc,
           "a socket of namespace %s: %s", c[i].whose, c[i].disc ? "a discrepancy" : "none");
        if (c[i].disc && strcmp(c[i].mode, "null") != 0)
            ok(is_json(at(r.p, "/containment/network/internal"), "false"),
               "the host's network is not internal");
        done(&r);
    }
    {
        run r = reconcile(NULL, "engine+kernel", NULL, NULL, "{\"channels\":[]}", NULL);
        ok(is_json(at(r.p, "/containment/network/mode"), "\"none\"") &&
               !discrepancy(r.p, "containment.network.mode"),
           "no channel: the engine's none stands");
        done(&r);
    }
}

int main(void)
{
    version = load("version.json", NULL, NULL);
    info = load("info.json", NULL, NULL);
    container = load("container.json", &raw_c, &raw_c_len);
    image = load("image.json", &raw_i, &raw_i_len);
    if (!ok(version && info && container && image, "hardened fixture loads"))
        return tap_done();
    engine_only();
    agreeing();
    disagreements();
    runsc_views();
    surface();
    evidence_digests();
    v2_members();
    seccomp_programs();
    network_links();
    channels_network();
    mount_sources();
    cpusets();
    json_decref(version);
    json_decref(info);
    json_decref(container);
    json_decref(image);
    free(raw_c);
    free(raw_i);
    return tap_done();
}
