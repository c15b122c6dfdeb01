/* SPDX-License-Identifier: Apache-2.0 */
/* The engine-level containment predicate (certificate.md section 3), built from recorded
 * Engine API replies without talking to the engine: the preconditions, every member from
 * its builder (predicate_*.c, capabilities.c), the inspect replies kept as evidence, and
 * at the end the refusal of what cannot be recorded faithfully and inputsSha256.
 *
 * Where the spec leaves room, each builder reads the replies so that the engine level
 * never records a stronger value than the session has (its file says how); a SecurityOpt
 * or mount type this code does not understand is BX_EUNSUPPORTED: it may weaken the
 * session in a way that cannot be recorded. */
#include "attest_internal.h"

#include <stdlib.h>
#include <string.h>

/* Hand over a value made by json_pack_ex(&x->jerr, ...). */
int bxa_packed(bxa_pctx *x, json_t *v, json_t **out)
{
    *out = v;
    if (!v)
        return bx_error_set(x->err, BX_EINVAL, NULL, "cannot build the predicate: %s",
                            x->jerr.text);
    return 0;
}

int bxa_set(bxa_pctx *x, json_t *obj, const char *key, json_t *v)
{
    if (!v || json_object_set_new(obj, key, v) != 0)
        return bxa_oom(x->err);
    return 0;
}

int bxa_push(bxa_pctx *x, json_t *arr, json_t *v)
{
    if (!v || json_array_append_new(arr, v) != 0)
        return bxa_oom(x->err);
    return 0;
}

/* ---- sorting ------------------------------------------------------------------ */

int bxa_cmp_str(const void *a, const void *b)
{
    return strcmp(json_string_value(*(json_t *const *)a), json_string_value(*(json_t *const *)b));
}

const char *bxa_member(const json_t *o, const char *k)
{
    const char *s = json_string_value(json_object_get(o, k));
    return s ? s : "";
}

/* Sort arr in place; with unique, drop items equal to their predecessor. */
int bxa_sort_array(bxa_pctx *x, json_t *arr, int (*cmp)(const void *, const void *), int unique)
{
    size_t n = json_array_size(arr), i;
    json_t **items = NULL;
    int rc = 0;

    if (n < 2)
        return 0;
    items = calloc(n, sizeof *items);
    if (!items)
        return bxa_oom(x->err);
    for (i = 0; i < n; i++)
        items[i] = json_incref(json_array_get(arr, i));
    qsort(items, n, sizeof *items, cmp);
    json_array_clear(arr);
    for (i = 0; i < n; i++) {
        if (rc == 0 && !(unique && i > 0 && cmp(&items[i - 1], &items[i]) == 0))
            rc = json_array_append(arr, items[i]) ? bxa_oom(x->err) : 0;
    }
    for (i = 0; i < n; i++)
        json_decref(items[i]);
    free(items);
    return rc;
}

/* A sorted copy of the string array at ptr: NULL member -> null_value ([] or null). */
int bxa_string_list(bxa_pctx *x, const json_t *root, const char *doc, const char *ptr,
                    int null_is_empty, json_t **out)
{
    const json_t *a = bxa_get(root, ptr), *v;
    json_t *r = NULL;
    size_t i;
    int rc = 0;

    *out = NULL;
    if (!a || json_is_null(a)) {
        *out = null_is_empty ? json_array() : json_null();
        return *out ? 0 : bxa_oom(x->err);
    }
    if (!json_is_array(a))
        return bxa_bad(x->err, doc, ptr, "not an array in the engine reply");
    if (!(r = json_array()))
        return bxa_oom(x->err);
    json_array_foreach(a, i, v)
    {
        if (!json_is_string(v) || strlen(json_string_value(v)) != json_string_length(v)) {
            rc = bxa_bad(x->err, doc, ptr, "not an array of strings without NUL bytes");
            goto out;
        }
        if ((rc = bxa_push(x, r, json_string(json_string_value(v)))) != 0)
            goto out;
    }
    if ((rc = bxa_sort_array(x, r, bxa_cmp_str, 0)) != 0)
        goto out;
    *out = r;
    r = NULL;
out:
    json_decref(r);
    return rc;
}

/* ---- preconditions ------------------------------------------------------------ */

static int check_opts(bxa_pctx *x)
{
    const bx_collect_opts *o = x->o;
    size_t n = o->nonce ? strlen(o->nonce) : 0;

    if (o->now < 0 || o->ttl <= 0 || o->now > 253402300799LL - o->ttl)
        return bx_error_set(x->err, BX_ECONFIG, "ttl", "issuedAt and expiresAt out of range");
    if (o->nonce && (n == 0 || n > 128 || !bx_is_lower_hex(o->nonce, n)))
        return bx_error_set(x->err, BX_ECONFIG, "nonce",
                            "nonce must be 1 to 128 lowercase hex digits");
    if (o->expect_image && !bxa_is_image_id(o->expect_image))
        return bx_error_set(x->err, BX_ECONFIG, "expect-image",
                            "expected image must be sha256: and 64 lowercase hex digits");
    return 0;
}

int bxa_build_null(bxa_pctx *x, json_t **out)
{
    *out = json_null();
    return *out ? 0 : bxa_oom(x->err);
}

/* ---- containment ------------------------------------------------------------------ */

static int b_privileged(bxa_pctx *x, json_t **out)
{
    *out = json_boolean(x->privileged);
    return 0;
}

static int b_containment(bxa_pctx *x, json_t **out)
{
    static const struct {
        const char *key;
        bxa_builder fn;
    } parts[] = {
        {"runtime", bxa_build_runtime},       {"network", bxa_build_network},
        {"rootfs", bxa_build_rootfs},         {"capabilities", bxa_build_capabilities},
        {"privileged", b_privileged},         {"user", bxa_build_user},
        {"namespaces", bxa_build_namespaces}, {"resources", bxa_build_resources},
        {"mounts", bxa_build_mounts},         {"devices", bxa_build_devices},
        {"maskedPaths", bxa_build_masked},    {"readonlyPaths", bxa_build_readonly_paths},
        {"sysctls", bxa_build_sysctls},       {"processes", bxa_build_null},
        {"systemPaths", bxa_build_null},      {"descriptors", bxa_build_null},
        {"hostObjects", bxa_build_null},
        {"seccompPrograms", bxa_build_null},
        {"channels", bxa_build_null},
        {"references", bxa_build_null},
        {"namespaceCreation", bxa_build_null},
        {"propagationPeers", bxa_build_null},
    };
    json_t *ct = json_object(), *v;
    int rc = ct ? 0 : bxa_oom(x->err);

    for (size_t i = 0; rc == 0 && i < sizeof parts / sizeof parts[0]; i++)
        if ((rc = parts[i].fn(x, &v)) == 0)
            rc = bxa_set(x, ct, parts[i].key, v);
    if (rc == 0)
        rc = bxa_containment_security(x, ct);
    if (rc != 0) {
        json_decref(ct);
        return rc;
    }
    *out = ct;
    return 0;
}

/* ---- evidence, inputs, faithfulness ---------------------------------------------- */

/* One inspect reply kept as evidence, Config.Env values redacted when redact. */
static int keep_reply(bxa_pctx *x, const char *name, const char *raw, size_t len, int redact)
{
    static const char *const env[] = {"Config", "Env", NULL};
    char *red = NULL;
    size_t rlen = 0;
    int rc;

    if (!raw)
        return 0;
    if (redact && (rc = bxa_redact_env(raw, len, env, &red, &rlen, x->err)) != 0) {
        bx_error_prefix(x->err, "%s inspect", name);
        return rc;
    }
    rc = bxa_evidence_add(x->ev, BXA_EV_ENGINE, name, red ? red : raw, red ? rlen : len, x->err);
    free(red);
    return rc;
}

static int b_evidence(bxa_pctx *x, json_t **out)
{
    const bx_engine_replies *r = x->r;
    char manifest[65], when[21];
    json_t *disc;
    int rc;

    if ((rc = keep_reply(x, "container", r->raw_container, r->raw_container_len, 1)) != 0 ||
        (rc = keep_reply(x, "image", r->raw_image, r->raw_image_len, 0)) != 0 ||
        (rc = keep_reply(x, "network", r->network ? r->raw_network : NULL, r->raw_network_len,
                         0)) != 0 ||
        (rc = keep_reply(x, "libpod", r->raw_libpod, r->raw_libpod_len, 1)) != 0 ||
        (rc = keep_reply(x, "networks", r->networks ? r->raw_networks : NULL,
                         r->raw_networks_len, 0)) != 0 ||
        (rc = keep_reply(x, "joined", r->joined ? r->raw_joined : NULL, r->raw_joined_len, 1)) !=
            0 ||
        (rc = bxa_evidence_digest(x->ev, BXA_EV_ENGINE, manifest, x->err)) != 0)
        return rc;
    if (!(disc = json_array()))
        return bxa_oom(x->err);
    if ((rc = bxa_port_discrepancy(x, disc)) != 0) {
        json_decref(disc);
        return rc;
    }
    /* the collection's times: the issuing time until the collector sets what it measured */
    bx_time_format(x->o->now, when);
    return bxa_packed(x,
                      json_pack_ex(&x->jerr, 0, "{s:s,s:s?,s:n,s:n,s:n,s:o,s:{s:s,s:s}}", "level",
                                   "engine", "engineInspectSha256", manifest[0] ? manifest : NULL,
                                   "kernelSha256", "ociSpecSha256", "sandbox", "discrepancies",
                                   disc, "collection", "startedAt", when, "endedAt", when),
                      out);
}

/* Refuse what JCS cannot carry or what was mangled on the way: NUL in a string or key,
 * an integer beyond 2^53, a real. where = JSON pointer in the predicate. */
static int faithful(const json_t *v, char *ptr, size_t len, size_t at, bx_error *err)
{
    const char *k;
    size_t i, klen;
    json_t *e;

    if (json_is_string(v) && strlen(json_string_value(v)) != json_string_length(v))
        return bx_error_set(err, BX_EINVAL, ptr, "NUL byte: cannot be recorded faithfully");
    if (json_is_integer(v) &&
        (json_integer_value(v) > BX_JSON_MAX_INT || json_integer_value(v) < -BX_JSON_MAX_INT))
        return bx_error_set(err, BX_EINVAL, ptr,
                            "integer beyond 2^53: cannot be recorded faithfully");
    if (json_is_real(v))
        return bx_error_set(err, BX_EINVAL, ptr, "not an integer: cannot be recorded faithfully");
    json_object_keylen_foreach((json_t *)v, k, klen, e)
    {
        if (strlen(k) != klen)
            return bx_error_set(err, BX_EINVAL, ptr, "NUL byte in a key");
        snprintf(ptr + at, len - at, "/%s", k);
        if (faithful(e, ptr, len, strlen(ptr), err) != 0)
            return err ? err->code : BX_EINVAL;
        ptr[at] = '\0';
    }
    json_array_foreach(v, i, e)
    {
        snprintf(ptr + at, len - at, "/%zu", i);
        if (faithful(e, ptr, len, strlen(ptr), err) != 0)
            return err ? err->code : BX_EINVAL;
        ptr[at] = '\0';
    }
    return 0;
}

static int preconditions(bxa_pctx *x)
{
    int rc;

    if (!json_is_object(x->c) || !json_is_object(x->img) || !json_is_object(x->version) ||
        !json_is_object(x->info) || (x->net && !json_is_object(x->net)) ||
        (x->libpod && !json_is_object(x->libpod)))
        return bx_error_set(x->err, BX_EINVAL, NULL, "engine replies must be JSON objects");
    if (!json_is_object(bxa_get(x->c, "/HostConfig")) || !json_is_object(bxa_get(x->c, "/Config")))
        return bxa_bad(x->err, BXA_CONTAINER, "/HostConfig", "missing from the engine reply");
    if ((rc = check_opts(x)) != 0 ||
        (rc = bxa_check_session(x->c, x->o->expect_image, x->err)) != 0)
        return rc;
    if (x->libpod && !json_equal(json_object_get(x->libpod, "Id"), json_object_get(x->c, "Id")))
        return bxa_bad(x->err, "libpod", "/Id", "libpod inspect is not of the session");
    return bxa_bool(x->c, BXA_CONTAINER, "/HostConfig/Privileged", 1, &x->privileged, x->err);
}

int bxa_predicate_engine(const bx_engine_replies *r, const bx_collect_opts *o, const char *endpoint,
                         const char *tls_peer, json_t **predicate, bx_evidence *ev, bx_error *err)
{
    static const struct {
        const char *key;
        bxa_builder fn;
    } parts[] = {
        {"collector", bxa_build_collector}, {"issuedAt", bxa_build_issued},
        {"expiresAt", bxa_build_expires},   {"nonce", bxa_build_nonce},
        {"host", bxa_build_host},           {"engine", bxa_build_engine},
        {"session", bxa_build_session},     {"image", bxa_build_image},
        {"source", bxa_build_source},       {"containment", b_containment},
        {"requested", bxa_build_null},      {"evidence", b_evidence},
    };
    bx_evidence *own = ev ? NULL : bxa_evidence_new();
    bxa_pctx x = {.version = r->version,
                  .info = r->info,
                  .c = r->container,
                  .img = r->image,
                  .net = r->network,
                  .nets = r->networks,
                  .joined = r->joined,
                  .libpod = r->libpod,
                  .r = r,
                  .o = o,
                  .endpoint = endpoint,
                  .tls_peer = tls_peer,
                  .ev = ev ? ev : own,
                  .err = err};
    json_t *p = NULL, *v;
    int rc;

    *predicate = NULL;
    if (!x.ev) {
        rc = bxa_oom(err);
        goto out;
    }
    if ((rc = preconditions(&x)) != 0)
        goto out;
    if (!(p = json_object())) {
        rc = bxa_oom(err);
        goto out;
    }
    for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++)
        if ((rc = parts[i].fn(&x, &v)) != 0 || (rc = bxa_set(&x, p, parts[i].key, v)) != 0)
            goto out;
    *predicate = p;
    p = NULL;
out:
    bxa_evidence_free(own);
    json_decref(p);
    return rc;
}

int bxa_predicate_finish(json_t *p, bx_error *err)
{
    char ptr[512] = "/predicate", inputs[65];
    int rc;

    if ((rc = faithful(p, ptr, sizeof ptr, strlen(ptr), err)) != 0 ||
        (rc = bx_predicate_inputs_sha256(p, inputs, err)) != 0)
        return rc;
    if (json_object_set_new(p, "inputsSha256", json_string(inputs)) != 0)
        return bxa_oom(err);
    return 0;
}

int bx_predicate_from_replies(const bx_engine_replies *r, const bx_collect_opts *o,
                              const char *endpoint, json_t **predicate, bx_error *err)
{
    json_t *p = NULL;
    int rc = bxa_predicate_engine(r, o, endpoint, NULL, &p, NULL, err);

    if (rc == 0 && (rc = bxa_predicate_finish(p, err)) != 0) {
        json_decref(p);
        p = NULL;
    }
    *predicate = p;
    return rc;
}

int bx_predicate_from_inspect(const json_t *version, const json_t *info, const json_t *container,
                              const json_t *image, const json_t *network, const char *raw_container,
                              size_t raw_container_len, const char *raw_image, size_t raw_image_len,
                              const bx_collect_opts *o, const char *endpoint, json_t **predicate,
                              bx_error *err)
{
    char *raw_net = network ? json_dumps(network, JSON_COMPACT) : NULL;
    bx_engine_replies r = {.version = version,
                           .info = info,
                           .container = container,
                           .image = image,
                           .network = network,
                           .raw_container = raw_container,
                           .raw_container_len = raw_container_len,
                           .raw_image = raw_image,
                           .raw_image_len = raw_image_len,
                           .raw_network = raw_net,
                           .raw_network_len = raw_net ? strlen(raw_net) : 0};
    int rc;

    if (network && !raw_net) {
        *predicate = NULL;
        return bxa_oom(err);
    }
    rc = bx_predicate_from_replies(&r, o, endpoint, predicate, err);
    free(raw_net);
    return rc;
}
