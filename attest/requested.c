/* SPDX-License-Identifier: Apache-2.0 */
/* What the launcher asked for: `collect --requested FILE`, YAML or JSON (schema: `boxcert
 * schema requested`). Read with the strict YAML reader of common/, then typed by place:
 * booleans only the plain words true and false, integers plain decimal digits (at most
 * 2^53), strings any scalar; a member this file does not know is an error, as is a wrong
 * type, each with the file, line and column. */
#include "bx_attest_int.h"

#include <string.h>

#define REQUESTED_MAX (256 * 1024)
#define DEPTH_MAX 16
#define EVENTS_MAX 100000

enum { T_STR, T_BOOL, T_INT, T_LIMIT, T_ENUM, T_HEX, T_CAP, T_LIST, T_MAP, T_STR_OR_MAP };

typedef struct tnode {
    const char *name;
    int type;
    const struct tnode *sub;    /* T_MAP, T_STR_OR_MAP: members; T_LIST: the item (one node) */
    const char *const *choices; /* T_ENUM */
} tnode;

static const char *const kinds[] = {"rootfs", "tmpfs", "bind", "volume", "engine", NULL};
static const char *const ns_modes[] = {"private", "host", NULL};
static const char *const sc_modes[] = {"filter", "disabled", NULL};
static const char *const sc_profiles[] = {"default", "custom", "unconfined", NULL};

static const tnode str_item[] = {{"", T_STR, NULL, NULL}};
static const tnode cap_item[] = {{"", T_CAP, NULL, NULL}};
static const tnode int_item[] = {{"", T_INT, NULL, NULL}};
static const tnode port[] = {{"hostIp", T_STR, NULL, NULL},
                             {"hostPort", T_INT, NULL, NULL},
                             {"containerPort", T_INT, NULL, NULL},
                             {"proto", T_STR, NULL, NULL},
                             {NULL, 0, NULL, NULL}};
static const tnode port_item[] = {{"", T_MAP, port, NULL}};
static const tnode runtime[] = {{"name", T_STR, NULL, NULL}, {NULL, 0, NULL, NULL}};
static const tnode network[] = {{"mode", T_STR, NULL, NULL},
                                {"internal", T_BOOL, NULL, NULL},
                                {"interfaces", T_LIST, str_item, NULL},
                                {"ports", T_LIST, port_item, NULL},
                                {NULL, 0, NULL, NULL}};
static const tnode rootfs[] = {{"readOnly", T_BOOL, NULL, NULL}, {NULL, 0, NULL, NULL}};
static const tnode caps[] = {
    {"add", T_LIST, cap_item, NULL},         {"drop", T_LIST, cap_item, NULL},
    {"effective", T_LIST, cap_item, NULL},   {"permitted", T_LIST, cap_item, NULL},
    {"inheritable", T_LIST, cap_item, NULL}, {"ambient", T_LIST, cap_item, NULL},
    {"bounding", T_LIST, cap_item, NULL},    {NULL, 0, NULL, NULL}};
static const tnode seccomp[] = {{"mode", T_ENUM, NULL, sc_modes},
                                {"profile", T_ENUM, NULL, sc_profiles},
                                {"profileSha256", T_HEX, NULL, NULL},
                                {NULL, 0, NULL, NULL}};
static const tnode apparmor[] = {{"profile", T_STR, NULL, NULL}, {NULL, 0, NULL, NULL}};
static const tnode selinux[] = {{"label", T_STR, NULL, NULL}, {NULL, 0, NULL, NULL}};
static const tnode user[] = {
    {"nonRoot", T_BOOL, NULL, NULL}, {"uids", T_LIST, int_item, NULL}, {NULL, 0, NULL, NULL}};
static const tnode namespaces[] = {{"pid", T_ENUM, NULL, ns_modes},
                                   {"ipc", T_ENUM, NULL, ns_modes},
                                   {"uts", T_ENUM, NULL, ns_modes},
                                   {"net", T_ENUM, NULL, ns_modes},
                                   {"user", T_ENUM, NULL, ns_modes},
                                   {"cgroup", T_ENUM, NULL, ns_modes},
                                   {NULL, 0, NULL, NULL}};
static const tnode resources[] = {{"memoryBytes", T_LIMIT, NULL, NULL},
                                  {"memorySwapBytes", T_LIMIT, NULL, NULL},
                                  {"pidsLimit", T_LIMIT, NULL, NULL},
                                  {"nanoCpus", T_LIMIT, NULL, NULL},
                                  {"cpuShares", T_LIMIT, NULL, NULL},
                                  {"cpuQuota", T_LIMIT, NULL, NULL},
                                  {"cpuPeriod", T_LIMIT, NULL, NULL},
                                  {"cgroupParent", T_STR, NULL, NULL},
                                  {NULL, 0, NULL, NULL}};
static const tnode surface[] = {
    {"path", T_STR, NULL, NULL},        {"kind", T_ENUM, NULL, kinds},
    {"fsType", T_STR, NULL, NULL},      {"options", T_LIST, str_item, NULL},
    {"sizeBytes", T_LIMIT, NULL, NULL}, {NULL, 0, NULL, NULL}};
static const tnode surface_item[] = {{"", T_MAP, surface, NULL}};
static const tnode mount[] = {{"type", T_STR, NULL, NULL},
                              {"source", T_STR, NULL, NULL},
                              {"sourceAsGiven", T_STR, NULL, NULL},
                              {"destination", T_STR, NULL, NULL},
                              {"readOnly", T_BOOL, NULL, NULL},
                              {"propagation", T_STR, NULL, NULL},
                              {NULL, 0, NULL, NULL}};
static const tnode mount_item[] = {{"", T_MAP, mount, NULL}};
static const tnode device[] = {{"pathOnHost", T_STR, NULL, NULL},
                               {"pathInContainer", T_STR, NULL, NULL},
                               {"cgroupPermissions", T_STR, NULL, NULL},
                               {NULL, 0, NULL, NULL}};
static const tnode device_item[] = {{"", T_MAP, device, NULL}};
static const tnode devices[] = {{"devices", T_LIST, device_item, NULL},
                                {"cgroupRules", T_LIST, str_item, NULL},
                                {"allowAll", T_BOOL, NULL, NULL},
                                {NULL, 0, NULL, NULL}};
static const tnode top[] = {
    {"runtime", T_STR_OR_MAP, runtime, NULL},
    {"network", T_STR_OR_MAP, network, NULL},
    {"rootfs", T_MAP, rootfs, NULL},
    {"capabilities", T_MAP, caps, NULL},
    {"noNewPrivileges", T_BOOL, NULL, NULL},
    {"seccomp", T_STR_OR_MAP, seccomp, NULL},
    {"apparmor", T_STR_OR_MAP, apparmor, NULL},
    {"selinux", T_STR_OR_MAP, selinux, NULL},
    {"privileged", T_BOOL, NULL, NULL},
    {"user", T_MAP, user, NULL},
    {"namespaces", T_MAP, namespaces, NULL},
    {"resources", T_MAP, resources, NULL},
    {"writeSurface", T_LIST, surface_item, NULL},
    {"mounts", T_LIST, mount_item, NULL},
    {"devices", T_MAP, devices, NULL},
    {"maskedPaths", T_LIST, str_item, NULL},
    {"readonlyPaths", T_LIST, str_item, NULL},
    {NULL, 0, NULL, NULL},
};

typedef struct {
    const bx_yaml_doc *doc;
    bx_error *err;
} tctx;

#define BAD(t, ptr, ...) bx_yaml_error((t)->doc, ptr, (t)->err, BX_ECONFIG, __VA_ARGS__)

static char *child(const char *ptr, const char *key)
{
    char *out = NULL;
    size_t n = strlen(ptr) + 2 * strlen(key) + 2, k = 0;

    if (!(out = malloc(n)))
        return NULL;
    k = (size_t)snprintf(out, n, "%s/", ptr);
    for (const char *p = key; *p; p++) {
        if (*p == '~' || *p == '/') {
            out[k++] = '~';
            out[k++] = *p == '~' ? '0' : '1';
        } else {
            out[k++] = *p;
        }
    }
    out[k] = '\0';
    return out;
}

static int plain_word(tctx *t, const char *ptr, const json_t *v, const char *word)
{
    return json_is_string(v) && !bx_yaml_quoted(t->doc, ptr) && !strcmp(json_string_value(v), word);
}

/* A plain decimal number without sign or leading zeros, at most 2^53. */
static int plain_int(tctx *t, const char *ptr, const json_t *v, json_int_t *out)
{
    const char *s = json_string_value(v);
    json_int_t n = 0;

    if (!s || bx_yaml_quoted(t->doc, ptr) || !*s || (s[0] == '0' && s[1]))
        return -1;
    for (; *s; s++) {
        if (*s < '0' || *s > '9' || n > (BX_JSON_MAX_INT - 9) / 10)
            return -1;
        n = n * 10 + (*s - '0');
    }
    *out = n;
    return 0;
}

static int typed(tctx *t, const char *ptr, const json_t *v, const tnode *node, json_t **out);

static int typed_map(tctx *t, const char *ptr, const json_t *v, const tnode *members, json_t **out)
{
    const char *k;
    const json_t *m;
    json_t *r;
    int rc = 0;

    if (!json_is_object(v))
        return BAD(t, ptr, "expected a mapping");
    if (!(r = json_object()))
        return bx_error_set(t->err, BX_EIO, NULL, "out of memory");
    json_object_foreach((json_t *)v, k, m)
    {
        const tnode *n = members;
        char *p = child(ptr, k);
        json_t *x = NULL;
        while (n->name && strcmp(n->name, k) != 0)
            n++;
        if (!p)
            rc = bx_error_set(t->err, BX_EIO, NULL, "out of memory");
        else if (!n->name)
            rc = bx_yaml_key_error(t->doc, p, t->err, BX_ECONFIG, "unknown key '%s'", k);
        else if ((rc = typed(t, p, m, n, &x)) == 0 && json_object_set_new(r, k, x) != 0)
            rc = bx_error_set(t->err, BX_EIO, NULL, "out of memory");
        free(p);
        if (rc != 0)
            break;
    }
    if (rc != 0) {
        json_decref(r);
        return rc;
    }
    *out = r;
    return 0;
}

static int typed(tctx *t, const char *ptr, const json_t *v, const tnode *node, json_t **out)
{
    const char *s = json_string_value(v);
    json_int_t n;

    *out = NULL;
    switch (node->type) {
    case T_STR:
        if (!s)
            return BAD(t, ptr, "expected a string");
        break;
    case T_BOOL:
        if (plain_word(t, ptr, v, "true") || plain_word(t, ptr, v, "false")) {
            *out = json_boolean(!strcmp(s, "true"));
            return 0;
        }
        return BAD(t, ptr, "expected true or false");
    case T_LIMIT:
        if (json_is_null(v)) {
            *out = json_null();
            return 0;
        }
        /* fall through */
    case T_INT:
        if (plain_int(t, ptr, v, &n) != 0)
            return BAD(t, ptr, "expected a whole number (at most 2^53)");
        *out = json_integer(n);
        return *out ? 0 : bx_error_set(t->err, BX_EIO, NULL, "out of memory");
    case T_ENUM:
        for (const char *const *c = node->choices; s && *c; c++)
            if (!strcmp(*c, s))
                goto string;
        return BAD(t, ptr, "'%s' is not one of the allowed values", s ? s : "?");
    case T_HEX:
        if (!s ||
            (strncmp(s, "sha256:", 7) == 0 ? !bx_is_lower_hex(s + 7, 64) : !bx_is_lower_hex(s, 64)))
            return BAD(t, ptr, "expected 64 lowercase hex digits (optionally sha256:)");
        break;
    case T_CAP:
        if (!s || (strcmp(s, "ALL") != 0 && bxa_cap_index(s) < 0))
            return BAD(t, ptr,
                       "'%s' is not a capability name as the predicate writes it (e.g. NET_RAW, "
                       "ALL)",
                       s ? s : "?");
        break;
    case T_LIST: {
        const json_t *item;
        size_t i;
        json_t *r;
        if (!json_is_array(v))
            return BAD(t, ptr, "expected a list");
        if (!(r = json_array()))
            return bx_error_set(t->err, BX_EIO, NULL, "out of memory");
        json_array_foreach(v, i, item)
        {
            char idx[24], *p;
            json_t *x = NULL;
            int rc;
            snprintf(idx, sizeof idx, "%zu", i);
            if (!(p = child(ptr, idx))) {
                json_decref(r);
                return bx_error_set(t->err, BX_EIO, NULL, "out of memory");
            }
            rc = typed(t, p, item, node->sub, &x);
            free(p);
            if (rc == 0 && json_array_append_new(r, x) != 0)
                rc = bx_error_set(t->err, BX_EIO, NULL, "out of memory");
            if (rc != 0) {
                json_decref(r);
                return rc;
            }
        }
        *out = r;
        return 0;
    }
    case T_STR_OR_MAP:
        if (s)
            break;
        /* fall through */
    case T_MAP:
        return typed_map(t, ptr, v, node->sub, out);
    }
string:
    *out = json_string(s);
    return *out ? 0 : bx_error_set(t->err, BX_EIO, NULL, "out of memory");
}

int bx_requested_load(const char *buf, size_t len, const char *file, json_t **containment,
                      char sha256[65], bx_error *err)
{
    bx_yaml_doc doc = {0};
    tctx t = {.doc = &doc, .err = err};
    json_t *r = NULL;
    int rc;

    *containment = NULL;
    sha256[0] = '\0';
    if (len > REQUESTED_MAX)
        return bx_error_set(err, BX_ECONFIG, file, "too large: over %d bytes", REQUESTED_MAX);
    if ((rc = bx_yaml_load(buf, len, file, DEPTH_MAX, EVENTS_MAX, &doc, err)) != 0)
        goto out;
    if (!json_is_object(doc.root)) {
        rc = bx_yaml_error(&doc, "", err, BX_ECONFIG,
                           "expected a mapping of containment fields (network, rootfs, ...)");
        goto out;
    }
    if ((rc = typed_map(&t, "", doc.root, top, &r)) != 0)
        goto out;
    {
        /* requested uids: non-root, ascending, each once (the predicate records them so) */
        const json_t *uids = json_object_get(json_object_get(r, "user"), "uids"), *u;
        size_t i;
        json_int_t last = 0;
        json_array_foreach(uids, i, u)
        {
            char ptr[48];
            snprintf(ptr, sizeof ptr, "/user/uids/%zu", i);
            if (json_integer_value(u) <= last || json_integer_value(u) > 0xffffffffLL) {
                rc = bx_yaml_error(&doc, ptr, err, BX_ECONFIG,
                                   "uids must be non-root (1 and up), ascending, each once");
                goto out;
            }
            last = json_integer_value(u);
        }
    }
    if (json_object_size(r) == 0) {
        rc = bx_yaml_error(&doc, "", err, BX_ECONFIG, "asks for nothing");
        goto out;
    }
    bx_sha256_hex(buf, len, sha256);
    *containment = r;
    r = NULL;
out:
    json_decref(r);
    bx_yaml_free(&doc);
    return rc;
}
