// SPDX-License-Identifier: Apache-2.0
/* Rules that compare too loosely, closed in schema/: identities, not strings. A requested
 * container:A network is not met by container:B; a requested mount propagation is compared;
 * device cgroup rules are read exactly and compared by what they allow; from v2 the paths the
 * policy compares are canonical (the schema refuses any other). */
#include "tap.h"
#include "bx_schema.h"

#include <string.h>

#define W BX_CMP_WEAKER
#define U BX_CMP_UNKNOWN
#define A BX_CMP_AT_LEAST

static json_t *j(const char *s)
{
    json_error_t e;
    json_t *v = json_loads(s, JSON_DECODE_ANY, &e);
    if (!v)
        printf("# bad test JSON: %s: %s\n", e.text, s);
    return v;
}

static void cmp(const char *field, const char *req, const char *cont, bx_cmp want, const char *name)
{
    json_t *r = j(req), *c = j(cont);
    char why[160] = "";
    bx_cmp got = r && c ? bx_compare_field(field, r, c, why, sizeof why) : U;
    is_int(got, want, "%s (%s)", name, why);
    json_decref(r);
    json_decref(c);
}

static void networks(void)
{
    static const char *id = "c34ab363b7aba303cd2db5c6ed3a1d6f19eb501255c3523ed3fe359d06512e2c";
    char req[160], cont[200];
    cmp("network", "\"container:a\"", "{\"network\":{\"mode\":\"container:b\"}}", W,
        "container:a asked, container:b given");
    cmp("network", "\"container:a\"", "{\"network\":{\"mode\":\"container:a\"}}", A,
        "container:a asked and given");
    cmp("network", "\"container:web\"", "{\"network\":{\"mode\":\"container:web2\"}}", W,
        "a name it prefixes");
    snprintf(req, sizeof req, "\"container:%.12s\"", id);
    snprintf(cont, sizeof cont, "{\"network\":{\"mode\":\"container:%s\"}}", id);
    cmp("network", req, cont, A, "a 12-digit Id prefix asked, the full Id given");
    snprintf(req, sizeof req, "\"container:%s\"", id);
    snprintf(cont, sizeof cont, "{\"network\":{\"mode\":\"container:%.12s\"}}", id);
    cmp("network", req, cont, A, "the full Id asked, its 12-digit prefix given");
    snprintf(cont, sizeof cont, "{\"network\":{\"mode\":\"container:%.11s\"}}", id);
    cmp("network", req, cont, W, "the full Id asked, an 11-digit prefix given (a name)");
    snprintf(req, sizeof req, "\"container:%.12s\"", id);
    snprintf(cont, sizeof cont, "{\"network\":{\"mode\":\"container:%.12sff\"}}", id);
    cmp("network", req, cont, W, "a 12-digit prefix asked, a 14-digit other one given");
    cmp("network", "\"container:a\"", "{\"network\":{\"mode\":\"none\"}}", A,
        "container:a asked, none given (stronger)");
}

static void propagation(void)
{
#define M(prop) "{\"mounts\":[{\"destination\":\"/w\",\"source\":\"/src\",\"sourceAsGiven\":\"/src\",\"type\":\"bind\",\"readOnly\":false,\"propagation\":" prop "}]}"
    cmp("mounts", "[{\"destination\":\"/w\",\"propagation\":\"rprivate\"}]", M("\"rshared\""), W,
        "rprivate asked, rshared given");
    cmp("mounts", "[{\"destination\":\"/w\",\"propagation\":\"rprivate\"}]", M("\"shared\""), W,
        "rprivate asked, shared given");
    cmp("mounts", "[{\"destination\":\"/w\",\"propagation\":\"rprivate\"}]", M("\"rslave\""), W,
        "rprivate asked, rslave given");
    cmp("mounts", "[{\"destination\":\"/w\",\"propagation\":\"rslave\"}]", M("\"shared\""), W,
        "rslave asked, shared given");
    cmp("mounts", "[{\"destination\":\"/w\",\"propagation\":\"rslave\"}]", M("\"private\""), A,
        "rslave asked, private given");
    cmp("mounts", "[{\"destination\":\"/w\",\"propagation\":\"rshared\"}]", M("\"\""), A,
        "rshared asked, the engine's default (rprivate) given");
    cmp("mounts", "[{\"destination\":\"/w\",\"propagation\":\"private\"}]", M("\"\""), A,
        "private asked, the default given");
    cmp("mounts", "[{\"destination\":\"/w\",\"propagation\":\"private\"}]", M("null"), W,
        "private asked, not observed");
    cmp("mounts", "[{\"destination\":\"/w\"}]", M("\"rshared\""), A,
        "no propagation asked: any");
#undef M
}

static void device_rules(void)
{
    static const struct {
        const char *rule;
        int ok;
    } t[] = {
        {"c 1:3 rwm", 1},   {"a *:* rwm", 1},  {"b 8:* r", 1},      {"c 136:* rwm", 1},
        {"c *:* m", 1},     {"c 4294967295:0 r", 1},
        {"c 1:3rwm", 0},    {"c 1:3  rwm", 0}, {"c  1:3 rwm", 0},   {"c 1:3 rwm ", 0},
        {" c 1:3 rwm", 0},  {"c 1 :3 rwm", 0}, {"c 1:3 rw m", 0},   {"c 1:3 rwmm", 0},
        {"c 1:3 rr", 0},    {"c 1:3 x", 0},    {"c 1:3 ", 0},       {"c 01:3 rwm", 0},
        {"c 1:03 rwm", 0},  {"c 1*:3 rwm", 0}, {"c **:3 rwm", 0},   {"d 1:3 rwm", 0},
        {"C 1:3 rwm", 0},   {"c 1:3", 0},      {"c 1:3\trwm", 0},   {"c 4294967296:0 r", 0},
        {"c 12345678901:0 r", 0}, {"c -1:3 r", 0}, {"c 1:3 RWM", 0}, {"", 0},
    };
    bx_devrule r;
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
        is_int(bx_devrule_parse(t[i].rule, &r) == 0, t[i].ok, "device rule '%s' %s", t[i].rule,
               t[i].ok ? "read" : "refused");
    ok(bx_devrule_parse("c 1:3 rw", &r) == 0 && r.type == 'c' && r.major == 1 && r.minor == 3 &&
           r.access == (BX_DEV_READ | BX_DEV_WRITE),
       "c 1:3 rw: its parts");
    ok(bx_devrule_parse("b *:7 m", &r) == 0 && r.major == -1 && r.minor == 7 &&
           r.access == BX_DEV_MKNOD,
       "b *:7 m: its parts");
#define D(req, eff) req, "{\"devices\":{\"allowAll\":false,\"devices\":[],\"cgroupRules\":" eff "}}"
    cmp("devices", D("{\"cgroupRules\":[\"c 1:* rw\"]}", "[\"c 1:3 r\"]"), A,
        "c 1:3 r within a requested c 1:* rw");
    cmp("devices", D("{\"cgroupRules\":[\"c 1:3 r\"]}", "[\"c 1:3 rw\"]"), W,
        "c 1:3 rw beyond a requested c 1:3 r");
    cmp("devices", D("{\"cgroupRules\":[\"c 1:3 rwm\"]}", "[\"c 1:3rwm\"]"), U,
        "an effective c 1:3rwm is no rule: unknown");
    cmp("devices", D("{\"cgroupRules\":[\"c 1:3 rwm\"]}", "[\"c 1:3  rwm\"]"), U,
        "an effective c 1:3  rwm is no rule: unknown");
    cmp("devices", D("{\"cgroupRules\":[\"a *:* rwm\"]}", "[\"b 8:1 rw\"]"), A,
        "anything within a requested a *:* rwm");
    cmp("devices", D("{\"cgroupRules\":[\"c 1:3 rwm\"]}", "[\"b 1:3 r\"]"), W,
        "a block rule beyond a requested character one");
#undef D
}

static void canonical_paths(void)
{
    static const struct {
        const char *p;
        int ok;
    } t[] = {
        {"/", 1},          {"/run/docker.sock", 1}, {"/a/b/c", 1},   {"/.hidden", 1},
        {"/a/...", 1},     {"/a/.b", 1},            {"/a..b", 1},    {"//", 0},
        {"/run//docker.sock", 0}, {"/run/./docker.sock", 0}, {"/run/../run/docker.sock", 0},
        {"/run/", 0},      {"/.", 0},               {"/..", 0},      {"run/docker.sock", 0},
        {"", 0},           {"/a/b/.", 0},           {"/a/b/..", 0},  {"./a", 0},
    };
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
        is_int(bx_path_canonical(t[i].p), t[i].ok, "'%s' is %scanonical", t[i].p,
               t[i].ok ? "" : "not ");
    is_int(bx_path_canonical(NULL), 0, "NULL is not a path");
}

/* From v2 the schema refuses paths the policy would compare that are not canonical. */
static void v2_schema(void)
{
    char path[512];
    json_error_t je;
    snprintf(path, sizeof path, "%s/fixtures/base/statement.json", BOXCERT_SOURCE_DIR);
    json_t *base = json_load_file(path, 0, &je);
    static const struct {
        const char *member, *value;
        int ok;
    } t[] = {
        {"destination", "/data", 1},        {"destination", "/data/", 0},
        {"destination", "/tmp/../etc", 0},  {"destination", "/a//b", 0},
        {"source", "/run/docker.sock", 1},  {"source", "", 1},
        {"source", "/run/./docker.sock", 0}, {"source", "/var/../run/docker.sock", 0},
        {"source", "run/docker.sock", 0},   {"source", "/run/docker.sock/", 0},
    };
    if (!ok(base != NULL, "the base statement loads"))
        return;
    bx_error e;
    ok_err(bx_statement_check(base, &e), &e, "the base statement (v2) is valid");
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        json_t *st = json_deep_copy(base);
        json_t *m = json_pack("{s:s,s:s,s:b,s:s,s:s,s:s}", "destination", "/data", "propagation", "",
                              "readOnly", 1, "source", "/srv/data", "sourceAsGiven", "/srv/data",
                              "type", "bind");
        json_object_set_new(m, t[i].member, json_string(t[i].value));
        json_array_append_new(json_object_get(json_object_get(json_object_get(st, "predicate"),
                                                              "containment"),
                                              "mounts"),
                              m);
        int rc = bx_statement_check(st, &e);
        is_int(rc == 0, t[i].ok, "v2: a mount's %s '%s' is %s", t[i].member, t[i].value,
               t[i].ok ? "valid" : "refused");
        json_decref(st);
    }
    json_t *st = json_deep_copy(base);
    json_t *ws = json_object_get(json_object_get(json_object_get(st, "predicate"), "containment"),
                                 "writeSurface");
    json_object_set_new(json_array_get(ws, 0), "path", json_string("/dev/"));
    is_int(bx_statement_check(st, &e) != 0, 1, "v2: a write surface path /dev/ is refused");
    json_decref(st);
    json_decref(base);
}

int main(void)
{
    v2_schema();
    networks();
    propagation();
    device_rules();
    canonical_paths();
    return tap_done();
}
