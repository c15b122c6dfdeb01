/* SPDX-License-Identifier: Apache-2.0 */
#include "cli.h"
#include "bx_attest.h"

#include <getopt.h>
#include <string.h>
#include <time.h>

static const char help[] =
    "usage: boxcert inspect CONTAINER [--engine URL] [--insecure-engine] [--format text|json]\n\n"
    "Show how a running session is contained, as collect would record it: each field, its\n"
    "value, and where the value came from (kernel, runtime, spec or engine), then any\n"
    "disagreement between those sources. Nothing is signed; no key is needed.\n"
    "  --engine URL         unix:///path or tcp://host:port (as for collect)\n"
    "  --insecure-engine    allow a plain tcp:// engine (no TLS)\n"
    "  --format FMT         text (default) or json\n"
    "Exit: 0 shown, 1 the session cannot be attested (not running, changed, unfaithful\n"
    "data), 2 usage error, 3 engine unreachable.\n";

/* One row: label, JSON pointer under /predicate, key of the sources map (NULL: engine). */
static const struct {
    const char *label, *ptr, *source;
} rows[] = {
    {"runtime.name", "/containment/runtime/name", "runtime"},
    {"runtime.path", "/containment/runtime/path", "runtime"},
    {"runtime.args", "/containment/runtime/args", "runtime"},
    {"network.mode", "/containment/network/mode", "network.mode"},
    {"network.internal", "/containment/network/internal", "network.internal"},
    {"network.interfaces", "/containment/network/interfaces", "network.interfaces"},
    {"network.ports", "/containment/network/ports", "network.ports"},
    {"rootfs.readOnly", "/containment/rootfs/readOnly", "rootfs.readOnly"},
    {"capabilities.effective", "/containment/capabilities/effective", "capabilities"},
    {"capabilities.permitted", "/containment/capabilities/permitted", "capabilities"},
    {"capabilities.inheritable", "/containment/capabilities/inheritable", "capabilities"},
    {"capabilities.ambient", "/containment/capabilities/ambient", "capabilities"},
    {"capabilities.bounding", "/containment/capabilities/bounding", "capabilities"},
    {"capabilities.add", "/containment/capabilities/add", NULL},
    {"capabilities.drop", "/containment/capabilities/drop", NULL},
    {"noNewPrivileges", "/containment/noNewPrivileges", "noNewPrivileges"},
    {"seccomp.mode", "/containment/seccomp/mode", "seccomp.mode"},
    {"seccomp.profile", "/containment/seccomp/profile", "seccomp.profile"},
    {"seccomp.profileSha256", "/containment/seccomp/profileSha256", "seccomp.profileSha256"},
    {"apparmor", "/containment/apparmor", "apparmor"},
    {"selinux", "/containment/selinux", "selinux"},
    {"privileged", "/containment/privileged", "privileged"},
    {"user.spec", "/containment/user/spec", "user.spec"},
    {"user.uids", "/containment/user/uids", "user.ids"},
    {"user.gids", "/containment/user/gids", "user.ids"},
    {"user.groups", "/containment/user/groups", "user.ids"},
    {"namespaces.pid", "/containment/namespaces/pid", "namespaces.pid"},
    {"namespaces.ipc", "/containment/namespaces/ipc", "namespaces.ipc"},
    {"namespaces.uts", "/containment/namespaces/uts", "namespaces.uts"},
    {"namespaces.net", "/containment/namespaces/net", "namespaces.net"},
    {"namespaces.user", "/containment/namespaces/user", "namespaces.user"},
    {"namespaces.cgroup", "/containment/namespaces/cgroup", "namespaces.cgroup"},
    {"resources.memoryBytes", "/containment/resources/memoryBytes", "resources.memoryBytes"},
    {"resources.memorySwapBytes", "/containment/resources/memorySwapBytes",
     "resources.memorySwapBytes"},
    {"resources.pidsLimit", "/containment/resources/pidsLimit", "resources.pidsLimit"},
    {"resources.nanoCpus", "/containment/resources/nanoCpus", "resources.nanoCpus"},
    {"resources.cpuShares", "/containment/resources/cpuShares", "resources.cpuShares"},
    {"resources.cpuQuota", "/containment/resources/cpuQuota", "resources.cpuQuota"},
    {"resources.cpuPeriod", "/containment/resources/cpuPeriod", "resources.cpuPeriod"},
    {"resources.cgroupParent", "/containment/resources/cgroupParent", "resources.cgroupParent"},
    {"writeSurface", "/containment/writeSurface", "writeSurface"},
    {"mounts", "/containment/mounts", "mounts"},
    {"devices.allowAll", "/containment/devices/allowAll", "devices.allowAll"},
    {"devices.devices", "/containment/devices/devices", "devices.devices"},
    {"devices.cgroupRules", "/containment/devices/cgroupRules", "devices.devices"},
    {"maskedPaths", "/containment/maskedPaths", "maskedPaths"},
    {"readonlyPaths", "/containment/readonlyPaths", "readonlyPaths"},
    {"session.restartPolicy", "/session/restartPolicy", NULL},
    {"session.execCount", "/session/execCount", NULL},
    {"image.id", "/image/id", NULL},
    {"image.ref", "/image/ref", NULL},
};

static const json_t *at(const json_t *root, const char *ptr)
{
    char key[64];
    const json_t *v = root;

    while (v && *ptr == '/') {
        const char *next = strchr(ptr + 1, '/');
        size_t n = next ? (size_t)(next - ptr - 1) : strlen(ptr + 1);
        if (n >= sizeof key)
            return NULL;
        memcpy(key, ptr + 1, n);
        key[n] = '\0';
        v = json_object_get(v, key);
        ptr += n + 1;
    }
    return v;
}

static const char *source_of(const json_t *sources, const char *key)
{
    const char *s = key ? json_string_value(json_object_get(sources, key)) : NULL;
    return s ? s : "engine";
}

/* A value on one line: strings bare, everything else compact JSON. */
static void put_value(FILE *f, const json_t *v)
{
    char *s;

    if (json_is_string(v)) {
        cli_put_safe(f, json_string_value(v));
        return;
    }
    s = v ? json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT) : NULL;
    cli_put_safe(f, s ? s : "(absent)");
    free(s);
}

/* writeSurface and mounts: one entry a line. */
static void put_list(FILE *f, const char *label, const json_t *list, const char *src)
{
    const json_t *e;
    size_t i;

    if (!json_is_array(list) || json_array_size(list) == 0) {
        fprintf(f, "  %-26s ", label);
        put_value(f, list);
        fprintf(f, "  [%s]\n", src);
        return;
    }
    json_array_foreach(list, i, e)
    {
        fprintf(f, "  %-26s ", i == 0 ? label : "");
        if (json_object_get(e, "path")) {
            const json_t *sz = json_object_get(e, "sizeBytes");
            cli_put_safe(f, json_string_value(json_object_get(e, "path")));
            fprintf(f, " (%s", json_string_value(json_object_get(e, "kind")));
            if (json_is_string(json_object_get(e, "fsType")))
                fprintf(f, ", %s", json_string_value(json_object_get(e, "fsType")));
            if (json_is_integer(sz))
                fprintf(f, ", %lld bytes", (long long)json_integer_value(sz));
            fputc(')', f);
        } else {
            cli_put_safe(f, json_string_value(json_object_get(e, "destination")));
            fputs(" <- ", f);
            cli_put_safe(f, json_string_value(json_object_get(e, "source")));
            fprintf(f, " (%s, %s)", json_string_value(json_object_get(e, "type")),
                    json_is_true(json_object_get(e, "readOnly")) ? "ro" : "rw");
        }
        fprintf(f, i == 0 ? "  [%s]\n" : "\n", src);
    }
}

static void text(FILE *f, const bx_collection *c)
{
    const json_t *p = c->predicate, *d;
    size_t i;

    fputs("session  ", f);
    cli_put_safe(f, json_string_value(at(p, "/session/name")));
    fprintf(f, " (%.12s), pid %lld, started %s\n", json_string_value(at(p, "/session/containerId")),
            (long long)json_integer_value(at(p, "/session/pid")),
            json_string_value(at(p, "/session/startedAt")));
    fprintf(f, "engine   %s %s at ", json_string_value(at(p, "/engine/kind")),
            json_string_value(at(p, "/engine/version"))
                ? json_string_value(at(p, "/engine/version"))
                : "?");
    cli_put_safe(f, json_string_value(at(p, "/engine/endpoint")));
    fprintf(f, "\nlevel    %s: ", json_string_value(at(p, "/evidence/level")));
    cli_put_safe(f, c->why);
    fputs("\n\n", f);
    fprintf(f, "  %-26s %s  [%s]\n", "FIELD", "VALUE", "SOURCE");
    for (i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        const json_t *v = at(p, rows[i].ptr);
        const char *src = source_of(c->sources, rows[i].source);
        if (!strcmp(rows[i].label, "writeSurface") || !strcmp(rows[i].label, "mounts")) {
            put_list(f, rows[i].label, v, src);
            continue;
        }
        fprintf(f, "  %-26s ", rows[i].label);
        put_value(f, v);
        fprintf(f, "  [%s]\n", src);
    }
    if (json_is_object(at(p, "/evidence/sandbox"))) {
        fputs("\n  sandbox (the sentry's own readings): ", f);
        put_value(f, at(p, "/evidence/sandbox"));
        fputc('\n', f);
    }
    if (json_array_size(at(p, "/evidence/discrepancies")) == 0) {
        fputs("\nno discrepancy between the sources\n", f);
        return;
    }
    fputs("\ndiscrepancies (the value recorded, and what each source said):\n", f);
    json_array_foreach(at(p, "/evidence/discrepancies"), i, d)
    {
        fputs("  ", f);
        cli_put_safe(f, json_string_value(json_object_get(d, "field")));
        fputs(": recorded ", f);
        put_value(f, json_object_get(d, "recorded"));
        fputs(" (", f);
        cli_put_safe(f, json_string_value(json_object_get(d, "reason")));
        fputs(")\n", f);
        const char *k;
        const json_t *v;
        json_object_foreach(json_object_get(d, "values"), k, v)
        {
            if (json_is_null(v))
                continue;
            fprintf(f, "      %-8s ", k);
            put_value(f, v);
            fputc('\n', f);
        }
    }
}

static int json_out(const bx_collection *c)
{
    json_t *fields = json_array(), *doc;
    char *s;
    int rc = EXIT_PASS;

    for (size_t i = 0; fields && i < sizeof rows / sizeof rows[0]; i++) {
        const json_t *v = at(c->predicate, rows[i].ptr);
        json_array_append_new(fields, json_pack("{s:s,s:O,s:s}", "field", rows[i].label, "value",
                                                v ? v : json_null(), "source",
                                                source_of(c->sources, rows[i].source)));
    }
    doc = json_pack("{s:O,s:s,s:o,s:O,s:O}", "session", at(c->predicate, "/session"), "why", c->why,
                    "fields", fields, "evidence", at(c->predicate, "/evidence"), "predicate",
                    c->predicate);
    s = doc ? json_dumps(doc, JSON_INDENT(2) | JSON_ENSURE_ASCII) : NULL;
    if (!s || fputs(s, stdout) == EOF || fputc('\n', stdout) == EOF) {
        fputs("boxcert: stdout: cannot write\n", stderr);
        rc = EXIT_ENV;
    }
    free(s);
    json_decref(doc);
    return rc;
}

int cmd_inspect(int argc, char **argv)
{
    static const struct option opts[] = {{"engine", required_argument, 0, 'e'},
                                         {"insecure-engine", no_argument, 0, 'I'},
                                         {"format", required_argument, 0, 'f'},
                                         {"help", no_argument, 0, 'h'},
                                         {0, 0, 0, 0}};
    const char *engine_url = NULL, *format = "text";
    int c, rc = EXIT_PASS, insecure = 0;
    bx_engine *eng = NULL;
    bx_collection col = {0};
    bx_error err;

    optind = 1;
    while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        switch (c) {
        case 'e':
            engine_url = optarg;
            break;
        case 'I':
            insecure = 1;
            break;
        case 'f':
            format = optarg;
            break;
        case 'h':
            fputs(help, stdout);
            return EXIT_PASS;
        default:
            fputs(help, stderr);
            return EXIT_USAGE;
        }
    }
    if (optind != argc - 1)
        return cli_usage_error("inspect", "exactly one CONTAINER is required (see --help)");
    if (strcmp(format, "text") != 0 && strcmp(format, "json") != 0)
        return cli_usage_error("--format", "'%s' is not text or json", format);
    if (bx_engine_open_ex(engine_url, insecure ? BX_ENGINE_INSECURE : 0, &eng, &err) != 0)
        return cli_report("--engine", &err);
    bx_collect_opts co = {.container = argv[optind], .now = (int64_t)time(NULL), .ttl = 60};
    if (bx_collect_full(eng, &co, &col, &err) != 0) {
        rc = cli_report(argv[optind], &err);
        goto out;
    }
    if (!strcmp(format, "json"))
        rc = json_out(&col);
    else
        text(stdout, &col);
out:
    bx_collection_free(&col);
    bx_engine_close(eng);
    return rc;
}
