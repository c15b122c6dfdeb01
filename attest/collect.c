/* SPDX-License-Identifier: Apache-2.0 */
/* bx_collect: read one session from the engine, build the predicate, and make sure the
 * session is still the one observed. */
#include "attest_internal.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct {
    json_t *version, *info, *c, *img, *net, *libpod, *nets, *joined;
    char *raw_c, *raw_img, *raw_net, *raw_libpod, *raw_nets, *raw_joined;
    size_t raw_c_len, raw_img_len, raw_net_len, raw_libpod_len, raw_nets_len, raw_joined_len;
} replies;

static void replies_free(replies *r)
{
    json_decref(r->version);
    json_decref(r->info);
    json_decref(r->c);
    json_decref(r->img);
    json_decref(r->net);
    json_decref(r->libpod);
    json_decref(r->nets);
    free(r->raw_nets);
    json_decref(r->joined);
    free(r->raw_joined);
    free(r->raw_c);
    free(r->raw_img);
    free(r->raw_net);
    free(r->raw_libpod);
}

/* A container, image or network name as the engine allows it: [A-Za-z0-9][A-Za-z0-9_.-]*
 * (containers may carry their leading "/"), or an image ID. */
static int safe_name(const char *s, int image)
{
    size_t n;

    if (!s)
        return 0;
    if (image && bxa_is_image_id(s))
        return 1;
    if (!image && *s == '/')
        s++;
    n = strlen(s);
    if (n == 0 || n > 255 ||
        !((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9')))
        return 0;
    return strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-") == n;
}

/* GET <kind>/<name><tail>, e.g. "/containers", name, "/json". */
static int get_obj(bx_engine *eng, const char *kind, const char *name, const char *tail,
                   json_t **json, char **raw, size_t *rawlen, bx_error *err)
{
    char path[512];

    snprintf(path, sizeof path, "%s/%s%s", kind, name, tail);
    return bx_engine_get(eng, path, json, raw, rawlen, err);
}

/* The inspect of the session's network when it has one of its own (bridge or a named
 * network); none, host and container: have none. */
static int get_network(bx_engine *eng, replies *r, bx_error *err)
{
    const char *mode = json_string_value(bxa_get(r->c, "/HostConfig/NetworkMode"));

    if (!mode || !strcmp(mode, "none") || !strcmp(mode, "host") || !strncmp(mode, "container:", 10))
        return 0;
    if (!strcmp(mode, "default"))
        mode = "bridge";
    if (!safe_name(mode, 0))
        return bxa_bad(err, "container", "/HostConfig/NetworkMode", "not a network name");
    return get_obj(eng, "/networks", mode, "", &r->net, &r->raw_net, &r->raw_net_len, err);
}

/* The inspects of the other networks the engine says the session is attached to
 * (NetworkSettings.Networks beyond its mode's: docker network connect after start), by their
 * NetworkID: the bridges the kernel's links are matched against. One the engine no longer
 * has is left out (its bridge is then not known). */
static int get_attached(bx_engine *eng, replies *r, bx_error *err)
{
    const char *mode = json_string_value(bxa_get(r->c, "/HostConfig/NetworkMode"));
    const json_t *map = bxa_get(r->c, "/NetworkSettings/Networks"), *n;
    const char *name, *own = json_string_value(json_object_get(r->net, "Id"));
    int rc = 0;

    /* container:W: the networks are W's (its namespace is the session's) */
    if (mode && !strncmp(mode, "container:", 10) && safe_name(mode + 10, 0)) {
        if ((rc = get_obj(eng, "/containers", mode + 10, "/json", &r->joined, &r->raw_joined,
                          &r->raw_joined_len, err)) != 0)
            return rc;
        map = bxa_get(r->joined, "/NetworkSettings/Networks");
    }
    json_object_foreach((json_t *)map, name, n)
    {
        const char *id = json_string_value(json_object_get(n, "NetworkID"));
        json_t *one = NULL;
        bx_error e2 = {0};
        if (!strcmp(name, "none") || !strcmp(name, "host") || !id || !safe_name(id, 0) ||
            (own && !strcmp(own, id)))
            continue;
        if (!r->nets && !(r->nets = json_array()))
            return bx_error_set(err, BX_ENOMEM, NULL, "out of memory");
        if ((rc = get_obj(eng, "/networks", id, "", &one, NULL, NULL, &e2)) == BX_ENOTFOUND)
            continue;
        if (rc != 0) {
            *err = e2;
            return rc;
        }
        if (json_array_append_new(r->nets, one) != 0)
            return bx_error_set(err, BX_ENOMEM, NULL, "out of memory");
    }
    if (r->nets && json_array_size(r->nets) == 0) {
        json_decref(r->nets);
        r->nets = NULL;
    }
    if (r->nets && !(r->raw_nets = json_dumps(r->nets, JSON_COMPACT | JSON_SORT_KEYS)))
        return bx_error_set(err, BX_ENOMEM, NULL, "out of memory");
    r->raw_nets_len = r->raw_nets ? strlen(r->raw_nets) : 0;
    return 0;
}

static int is_podman(const json_t *version)
{
    const json_t *comp;
    size_t i;

    json_array_foreach(json_object_get(version, "Components"), i, comp)
    {
        const char *name = json_string_value(json_object_get(comp, "Name"));
        if (name && strncmp(name, "Podman", 6) == 0)
            return 1;
    }
    return 0;
}

static int fetch(bx_engine *eng, const bx_collect_opts *o, replies *r, bx_error *err)
{
    const char *img;
    int rc;

    if (!safe_name(o->container, 0))
        return bx_error_set(err, BX_ECONFIG, "container", "not a container name or ID");
    if ((rc = bx_engine_get(eng, "/version", &r->version, NULL, NULL, err)) != 0 ||
        (rc = bx_engine_get(eng, "/info", &r->info, NULL, NULL, err)) != 0)
        return rc;
    if (o->inspect) {
        /* read already, by this Id: the first observation */
        const char *id = json_string_value(json_object_get(o->inspect, "Id"));
        if (!id || strcmp(id, o->container) != 0 || !o->inspect_raw)
            return bx_error_set(err, BX_ECONFIG, "container",
                                "the inspect given is not the one of container %s", o->container);
        if (!(r->raw_c = malloc(o->inspect_raw_len + 1)))
            return bx_error_set(err, BX_ENOMEM, NULL, "out of memory");
        memcpy(r->raw_c, o->inspect_raw, o->inspect_raw_len);
        r->raw_c[o->inspect_raw_len] = '\0';
        r->raw_c_len = o->inspect_raw_len;
        r->c = json_incref((json_t *)o->inspect);
    } else {
        rc = get_obj(eng, "/containers", o->container, "/json", &r->c, &r->raw_c, &r->raw_c_len,
                     err);
        if (rc != 0)
            return rc;
    }
    if (!json_is_object(r->c))
        return bx_error_set(err, BX_EINVAL, "container", "container inspect is not an object");
    /* fail closed early: a wrong image or a stopped session ends the collection here */
    if ((rc = bxa_check_session(r->c, o->expect_image, err)) != 0)
        return rc;
    img = json_string_value(json_object_get(r->c, "Image"));
    /* an image ID names the image's content: one inspect serves every session of it */
    if (!(o->shared && bxa_is_image_id(img) &&
          bxa_shared_image_get(o->shared, bx_engine_endpoint(eng), img, &r->img, &r->raw_img,
                               &r->raw_img_len))) {
        if ((rc = get_obj(eng, "/images", img, "/json", &r->img, &r->raw_img, &r->raw_img_len,
                          err)) != 0)
            return rc;
        if (o->shared && bxa_is_image_id(img))
            bxa_shared_image_put(o->shared, bx_engine_endpoint(eng), img, r->img, r->raw_img,
                                 r->raw_img_len);
    }
    if ((rc = get_network(eng, r, err)) != 0 || (rc = get_attached(eng, r, err)) != 0)
        return rc;
    /* podman: the real runtime and the task's config.json are in its own inspect */
    if (is_podman(r->version)) {
        const char *id = json_string_value(json_object_get(r->c, "Id"));
        if (!id || !safe_name(id, 0))
            return bxa_bad(err, "container", "/Id", "not a container ID");
        return get_obj(eng, "/v4.0.0/libpod/containers", id, "/json", &r->libpod, &r->raw_libpod,
                       &r->raw_libpod_len, err);
    }
    return 0;
}

static int same_member(const json_t *a, const json_t *b, const char *ptr)
{
    const json_t *x = bxa_get(a, ptr), *y = bxa_get(b, ptr);
    return x && y && json_equal((json_t *)x, (json_t *)y);
}

/* Re-inspect by Id: the same start of the same container, still running, same image. A
 * reply byte for byte the first one says so without being parsed again. */
static int recheck(bx_engine *eng, const bx_collect_opts *o, const replies *r, bx_error *err)
{
    const json_t *c = r->c;
    const char *id = json_string_value(json_object_get(c, "Id"));
    json_t *now = NULL;
    char path[512], *raw = NULL;
    size_t len = 0;
    json_error_t je;
    int rc;

    snprintf(path, sizeof path, "/containers/%s/json", id ? id : "");
    rc = bx_engine_get_raw(eng, path, &raw, &len, err);
    if (rc == 0 && len == r->raw_c_len && memcmp(raw, r->raw_c, len) == 0) {
        free(raw);
        return 0;
    }
    if (rc == 0 && !(now = json_loadb(raw, len, JSON_REJECT_DUPLICATES, &je)))
        rc = bx_error_set(err, BX_EINVAL, path, "engine reply is not JSON: %s (at %d:%d)", je.text,
                          je.line, je.column);
    free(raw);
    if (rc == BX_ENOTFOUND) {
        rc = bx_error_set(err, BX_EDENIED, "container", "container %s is no longer running",
                          o->container);
        goto out;
    }
    if (rc != 0)
        goto out;
    if ((rc = bxa_check_session(now, o->expect_image, err)) != 0) {
        if (rc == BX_EDENIED && strstr(err->msg, "is not running"))
            rc = bx_error_set(err, BX_EDENIED, "container", "container %s is no longer running",
                              o->container);
        goto out;
    }
    if (!same_member(c, now, "/Id") || !same_member(c, now, "/State/StartedAt") ||
        !same_member(c, now, "/State/Pid") || !same_member(c, now, "/Image"))
        rc = bx_error_set(err, BX_EDENIED, "container", "container %s changed during collection",
                          o->container);
out:
    json_decref(now);
    return rc;
}

/* The runtime as the kernel view needs it: /info's path for the runtime's name (its
 * program, e.g. "runc", "/usr/bin/runsc"), else the name. */
static const char *runtime_program(const replies *r, const json_t *p)
{
    const char *name = json_string_value(bxa_get(p, "/containment/runtime/name"));
    const char *path = json_string_value(bxa_get(p, "/containment/runtime/path"));

    (void)r;
    return path && *path ? path : name;
}

/* The engine's containers (every one, running or not): their Ids and first names. */
static int list_containers(void *arg, bxa_container **out, size_t *n, bx_error *err)
{
    bx_engine *eng = arg;
    json_t *list = NULL;
    const json_t *c;
    size_t i;
    int rc;

    *out = NULL;
    *n = 0;
    if ((rc = bx_engine_get(eng, "/containers/json?all=1", &list, NULL, NULL, err)) != 0)
        return rc;
    if (!json_is_array(list)) {
        json_decref(list);
        return bx_error_set(err, BX_EINVAL, "/containers/json", "not an array");
    }
    if (!(*out = calloc(json_array_size(list) + 1, sizeof **out))) {
        json_decref(list);
        return bx_error_set(err, BX_ENOMEM, NULL, "out of memory");
    }
    json_array_foreach(list, i, c)
    {
        const char *id = json_string_value(json_object_get(c, "Id"));
        const char *name = json_string_value(json_array_get(json_object_get(c, "Names"), 0));
        if (!id || strlen(id) != 64 || !bx_is_lower_hex(id, 64))
            continue;
        memcpy((*out)[*n].id, id, 65);
        snprintf((*out)[*n].name, sizeof (*out)[*n].name, "%s",
                 name ? (name[0] == '/' ? name + 1 : name) : "");
        (*n)++;
    }
    json_decref(list);
    return 0;
}

static int kernel_view(bx_engine *eng, const bx_collect_opts *o, const replies *r, const json_t *p,
                       uint64_t begin, bxa_views *v, bx_evidence *ev, bx_error *err)
{
    bxa_session s = {
        .id = json_string_value(json_object_get(r->c, "Id")),
        .pid = json_integer_value(bxa_get(r->c, "/State/Pid")),
        .begin = begin,
        .runtime = runtime_program(r, p),
        .kind = json_string_value(bxa_get(p, "/engine/kind")),
        .socket = bx_engine_socket(eng),
        .oci_config =
            r->libpod ? json_string_value(json_object_get(r->libpod, "OCIConfigPath")) : NULL,
        .masked = bxa_get(r->c, "/HostConfig/MaskedPaths"),
        .sysctls = bxa_get(r->c, "/HostConfig/Sysctls"),
        .host_config = bxa_get(r->c, "/HostConfig"),
        .sandbox_key = json_string_value(bxa_get(r->c, "/NetworkSettings/SandboxKey")),
        .containers = list_containers,
        .containers_arg = eng,
        .paths = {.proc = o->proc_root, .task_root = o->task_root, .pidfile = o->pidfile},
        .shared = o->shared,
        .signing_keys = o->signing_keys,
        .mounts = json_object_get(r->c, "Mounts"),
        .nsigning_keys = o->nsigning_keys,
    };

    v->level = v->possible = "engine";
    if (o->engine_only) {
        snprintf(v->why, sizeof v->why, "the kernel view was not asked for");
        return 0;
    }
    if (bx_engine_is_remote(eng)) {
        snprintf(v->why, sizeof v->why,
                 "a remote (tcp://) engine: its sessions are not on this host");
        return 0;
    }
    v->possible = bxa_level_possible(s.runtime);
    if (s.oci_config &&
        (strstr(s.oci_config, "/../") || s.oci_config[0] != '/' || !strstr(s.oci_config, s.id)))
        return bxa_bad(err, "libpod", "/OCIConfigPath", "not the task's config.json");
    return bxa_kernel_read(&s, v, ev, err);
}

/* A value for a one-line message: compact JSON, cut to fit. */
static void show(const json_t *v, char *out, size_t len)
{
    char *s = v ? json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT | JSON_SORT_KEYS) : NULL;

    snprintf(out, len, "%s", s ? s : "null");
    if (s && strlen(s) >= len && len > 4)
        memcpy(out + len - 4, "...", 4);
    free(s);
}

/* The part of an effective value a request looks at: the members asked for, or for a bare
 * request the member it stands for (network mode, runtime name, ...). Caller owns. */
static json_t *focus(const char *name, const json_t *want, const json_t *eff)
{
    static const char *const bare[][2] = {
        {"network", "mode"}, {"runtime", "name"}, {"apparmor", "profile"}, {"selinux", "label"}};
    const char *k;
    const json_t *v;
    json_t *r;

    if (!strcmp(name, "user") && json_is_object(eff))
        return json_pack("{s:O,s:O}", "spec", json_object_get(eff, "spec"), "uids",
                         json_object_get(eff, "uids") ? json_object_get(eff, "uids") : json_null());
    if (json_is_object(want) && json_is_object(eff)) {
        r = json_object();
        json_object_foreach((json_t *)want, k, v)
        {
            const json_t *e = json_object_get(eff, k);
            json_object_set_new(r, k, e ? json_deep_copy(e) : json_null());
        }
        return r;
    }
    for (size_t i = 0; json_is_string(want) && json_is_object(eff) && i < 4; i++)
        if (!strcmp(name, bare[i][0]))
            return json_deep_copy(json_object_get(eff, bare[i][1]));
    return eff ? json_deep_copy(eff) : json_null();
}

/* predicate.requested, then every requested field against the effective containment. */
static int requested(const bx_collect_opts *o, json_t *p, bx_error *err)
{
    const json_t *req = o->requested, *want;
    const json_t *c = json_object_get(p, "containment");
    const char *name;
    char why[160], rs[80], es[100];

    if (!req)
        return 0;
    if (!json_is_object(req) || !o->requested_sha256 || !bx_is_lower_hex(o->requested_sha256, 64))
        return bx_error_set(err, BX_ECONFIG, "requested",
                            "requested containment without its digest");
    if (json_object_set_new(
            p, "requested",
            json_pack("{s:O,s:s}", "containment", req, "sha256", o->requested_sha256)) != 0)
        return bx_error_set(err, BX_ENOMEM, NULL, "out of memory");
    json_object_foreach((json_t *)req, name, want)
    {
        bx_cmp r = bx_compare_field(name, want, c, why, sizeof why);
        if (r == BX_CMP_AT_LEAST)
            continue;
        json_t *f = focus(name, want, json_object_get(c, name));
        show(want, rs, sizeof rs);
        show(f, es, sizeof es);
        json_decref(f);
        return bx_error_set(err, BX_EDENIED, "requested", "%s: requested %s, effective %s (%s)",
                            name, rs, es, r == BX_CMP_WEAKER ? why : "cannot be observed");
    }
    return 0;
}

void bx_collection_free(bx_collection *c)
{
    if (!c)
        return;
    json_decref(c->predicate);
    json_decref(c->sources);
    bxa_evidence_free(c->evidence);
    memset(c, 0, sizeof *c);
}

/* Now, as RFC 3339 UTC with the milliseconds (no trailing 0 in the fraction). */
static void now_ms(char out[32])
{
    struct timespec ts;
    char t[21], frac[8];
    unsigned ms;
    size_t n;

    clock_gettime(CLOCK_REALTIME, &ts);
    ms = (unsigned)(ts.tv_nsec / 1000000) % 1000;
    bx_time_format((int64_t)ts.tv_sec, t); /* YYYY-MM-DDTHH:MM:SSZ */
    snprintf(frac, sizeof frac, ".%03u", ms);
    for (n = strlen(frac); n > 1 && frac[n - 1] == '0'; n--)
        frac[n - 1] = '\0';
    t[19] = '\0';
    snprintf(out, 32, "%.19s%sZ", t, n > 1 ? frac : "");
}

static int set_collection(json_t *p, const char *start, bx_error *err)
{
    json_t *c = json_object_get(json_object_get(p, "evidence"), "collection");
    char end[32];

    now_ms(end);
    if (!json_is_object(c) || json_object_set_new(c, "startedAt", json_string(start)) != 0 ||
        json_object_set_new(c, "endedAt", json_string(end)) != 0)
        return bx_error_set(err, BX_ENOMEM, NULL, "out of memory");
    return 0;
}

int bx_collect_full(bx_engine *eng, const bx_collect_opts *o, bx_collection *out, bx_error *err)
{
    uint64_t begin = bxa_boot_ticks(); /* processes started later are not the session's */
    char started[32];
    replies r = {0};
    bxa_views v = {.level = "engine"};
    bx_evidence *ev = bxa_evidence_new();
    json_t *p = NULL, *sources = json_object();
    char peer[65];
    int rc;

    now_ms(started);
    memset(out, 0, sizeof *out);
    if (!ev || !sources) {
        rc = bx_error_set(err, BX_ENOMEM, NULL, "out of memory");
        goto out;
    }
    if ((rc = fetch(eng, o, &r, err)) != 0)
        goto out;
    bx_engine_replies er = {.version = r.version,
                            .info = r.info,
                            .container = r.c,
                            .image = r.img,
                            .network = r.net,
                            .libpod = r.libpod,
                            .raw_container = r.raw_c,
                            .raw_container_len = r.raw_c_len,
                            .raw_image = r.raw_img,
                            .raw_image_len = r.raw_img_len,
                            .raw_network = r.raw_net,
                            .raw_network_len = r.raw_net_len,
                            .raw_libpod = r.raw_libpod,
                            .raw_libpod_len = r.raw_libpod_len,
                            .networks = r.nets,
                            .raw_networks = r.raw_nets,
                            .raw_networks_len = r.raw_nets_len,
                            .joined = r.joined,
                            .raw_joined = r.raw_joined,
                            .raw_joined_len = r.raw_joined_len};
    if ((rc = bxa_predicate_engine(&er, o, bx_engine_endpoint(eng),
                                   bx_engine_tls_peer_sha256(eng, peer), &p, ev, err)) != 0)
        goto out;
    /* an ssh:// engine: the host key ssh authenticated it by */
    if (bx_engine_ssh_host_key(eng) &&
        json_object_set_new(json_object_get(p, "engine"), "sshHostKey",
                            json_string(bx_engine_ssh_host_key(eng))) != 0) {
        rc = bxa_oom(err);
        goto out;
    }
    if ((rc = kernel_view(eng, o, &r, p, begin, &v, ev, err)) != 0 ||
        (rc = bxa_reconcile(p, &v, ev, sources, err)) != 0 ||
        (rc = set_collection(p, started, err)) != 0 || (rc = requested(o, p, err)) != 0 ||
        (rc = bxa_predicate_finish(p, err)) != 0)
        goto out;
    if ((rc = recheck(eng, o, &r, err)) != 0)
        goto out;
    out->predicate = p;
    out->sources = sources;
    out->evidence = ev;
    snprintf(out->why, sizeof out->why, "%s", v.why);
    snprintf(out->possible, sizeof out->possible, "%s", v.possible ? v.possible : "engine");
    p = sources = NULL;
    ev = NULL;
out:
    json_decref(p);
    json_decref(sources);
    bxa_evidence_free(ev);
    bxa_views_free(&v);
    replies_free(&r);
    return rc;
}

int bx_collect(bx_engine *eng, const bx_collect_opts *o, json_t **predicate, bx_error *err)
{
    bx_collection c;
    int rc = bx_collect_full(eng, o, &c, err);

    *predicate = NULL;
    if (rc == 0) {
        *predicate = json_incref(c.predicate);
        bx_collection_free(&c);
    }
    return rc;
}
