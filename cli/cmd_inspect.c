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

/* The rows: every fact of the containment table (schema/containment.c), in its order, then
 * what the session and the image say. */
typedef struct {
    char label[64], ptr[96];
    const char *source; /* key of the sources map; NULL: the engine's, as configured */
    int list;           /* one entry a line (writeSurface, mounts) */
} row;

static const struct {
    const char *label, *ptr;
} trailing[] = {
    {"session.restartPolicy", "/session/restartPolicy"},
    {"session.execCount", "/session/execCount"},
    {"image.id", "/image/id"},
    {"image.ref", "/image/ref"},
};

/* Calls fn for each row; stops at the first that returns non-zero. */
static int each_row(int (*fn)(const row *r, void *arg), void *arg)
{
    row r;
    int rc;
    for (const bx_containment_row *c = bx_containment; c->name; c++)
        for (const bx_fact *f = c->facts; f->path; f++) {
            snprintf(r.label, sizeof r.label, "%s%s%s", c->name, *f->path ? "." : "", f->path);
            snprintf(r.ptr, sizeof r.ptr, "/containment/%s%s%s", c->name, *f->path ? "/" : "",
                     f->path);
            r.source = f->source;
            r.list = c->shape->kind == BX_K_ARRAY && c->shape->item->kind == BX_K_OBJECT;
            if ((rc = fn(&r, arg)) != 0)
                return rc;
        }
    for (size_t i = 0; i < sizeof trailing / sizeof trailing[0]; i++) {
        snprintf(r.label, sizeof r.label, "%s", trailing[i].label);
        snprintf(r.ptr, sizeof r.ptr, "%s", trailing[i].ptr);
        r.source = NULL;
        r.list = 0;
        if ((rc = fn(&r, arg)) != 0)
            return rc;
    }
    return 0;
}

static const json_t *at(const json_t *root, const char *ptr)
{
    return bx_json_at(root, ptr);
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

struct text_arg {
    FILE *f;
    const bx_collection *c;
};

static int text_row(const row *r, void *arg)
{
    struct text_arg *ta = arg;
    const json_t *v = at(ta->c->predicate, r->ptr);
    const char *src = source_of(ta->c->sources, r->source);
    if (r->list) {
        put_list(ta->f, r->label, v, src);
        return 0;
    }
    fprintf(ta->f, "  %-26s ", r->label);
    put_value(ta->f, v);
    fprintf(ta->f, "  [%s]\n", src);
    return 0;
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
    struct text_arg ta = {f, c};
    each_row(text_row, &ta);
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

struct json_arg {
    json_t *fields;
    const bx_collection *c;
};

static int json_row(const row *r, void *arg)
{
    struct json_arg *ja = arg;
    const json_t *v = at(ja->c->predicate, r->ptr);
    return json_array_append_new(ja->fields,
                                 json_pack("{s:s,s:O,s:s}", "field", r->label, "value",
                                           v ? v : json_null(), "source",
                                           source_of(ja->c->sources, r->source)));
}

static int json_out(const bx_collection *c)
{
    json_t *fields = json_array(), *doc;
    char *s;
    int rc = EXIT_PASS;

    struct json_arg ja = {fields, c};
    if (!fields || each_row(json_row, &ja) != 0) {
        json_decref(fields);
        fields = NULL;
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
    bx_collector_protect();
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
