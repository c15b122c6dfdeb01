/* SPDX-License-Identifier: Apache-2.0 */
/* The engine-level containment predicate (certificate.md section 3), built from recorded
 * Engine API replies without talking to the engine.
 *
 * Readings where the spec leaves room, each chosen so that the engine level never records
 * a stronger value than the session has:
 * - network.internal: false for none and host, null for container:<id> (the other
 *   container's network) and when no network inspect was read.
 * - namespaces.*.engine: the HostConfig mode; empty means the engine's default: "private"
 *   for pid, ipc, uts; net "private" unless host or container:<id>; user "host" unless the
 *   daemon remaps (/info SecurityOptions name=userns); cgroup "host" on cgroup v1.
 * - writeSurface also lists the mounts the engine makes read-write in every session
 *   (kind "engine", see surface_engine), so a policy on writable paths is not satisfied by
 *   leaving them out.
 * - seccomp: runsc without --oci-seccomp in the engine's runtime config applies no OCI
 *   filter (mode disabled); a runtime the engine does not describe gives mode null.
 * - selinux: label=disable gives label null, never a label named "disable"; otherwise
 *   ProcessLabel, else the label= options joined with ",".
 * - A SecurityOpt or mount type this code does not understand is BX_EUNSUPPORTED: it may
 *   weaken the session in a way that cannot be recorded.
 * - Capabilities follow Docker 20.10's TweakCapabilities: ALL in add (minus drop) wins
 *   over ALL in drop; privileged is every capability 0..40. */
#include "bx_attest_int.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <openssl/rand.h>

#define BOOT_ID_PATH "/proc/sys/kernel/random/boot_id"

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

static json_int_t imember(const json_t *o, const char *k)
{
    return json_integer_value(json_object_get(o, k));
}

static int cmp_icmp(json_int_t a, json_int_t b)
{
    return a < b ? -1 : a > b;
}

static int cmp_port(const void *a, const void *b)
{
    const json_t *x = *(json_t *const *)a, *y = *(json_t *const *)b;
    int r = cmp_icmp(imember(x, "containerPort"), imember(y, "containerPort"));
    if (!r)
        r = strcmp(bxa_member(x, "proto"), bxa_member(y, "proto"));
    if (!r)
        r = strcmp(bxa_member(x, "hostIp"), bxa_member(y, "hostIp"));
    if (!r)
        r = cmp_icmp(imember(x, "hostPort"), imember(y, "hostPort"));
    return r;
}

static int cmp_surface(const void *a, const void *b)
{
    const json_t *x = *(json_t *const *)a, *y = *(json_t *const *)b;
    int r = strcmp(bxa_member(x, "path"), bxa_member(y, "path"));
    return r ? r : strcmp(bxa_member(x, "kind"), bxa_member(y, "kind"));
}

static int cmp_mount(const void *a, const void *b)
{
    const json_t *x = *(json_t *const *)a, *y = *(json_t *const *)b;
    int r = strcmp(bxa_member(x, "destination"), bxa_member(y, "destination"));
    if (!r)
        r = strcmp(bxa_member(x, "sourceAsGiven"), bxa_member(y, "sourceAsGiven"));
    return r ? r : strcmp(bxa_member(x, "type"), bxa_member(y, "type"));
}

static int cmp_device(const void *a, const void *b)
{
    const json_t *x = *(json_t *const *)a, *y = *(json_t *const *)b;
    int r = strcmp(bxa_member(x, "pathInContainer"), bxa_member(y, "pathInContainer"));
    if (!r)
        r = strcmp(bxa_member(x, "pathOnHost"), bxa_member(y, "pathOnHost"));
    return r ? r : strcmp(bxa_member(x, "cgroupPermissions"), bxa_member(y, "cgroupPermissions"));
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

/* ---- collector, times, host ----------------------------------------------------- */

int bxa_build_collector(bxa_pctx *x, json_t **out)
{
    return bxa_packed(
        x, json_pack_ex(&x->jerr, 0, "{s:s,s:s}", "name", "boxcert", "version", BOXCERT_VERSION),
        out);
}

int bxa_build_issued(bxa_pctx *x, json_t **out)
{
    char t[21];
    *out = json_string(bx_time_format(x->o->now, t));
    return *out ? 0 : bxa_oom(x->err);
}

int bxa_build_expires(bxa_pctx *x, json_t **out)
{
    char t[21];
    *out = json_string(bx_time_format(x->o->now + x->o->ttl, t));
    return *out ? 0 : bxa_oom(x->err);
}

int bxa_build_nonce(bxa_pctx *x, json_t **out)
{
    unsigned char r[16];
    char hex[33];

    if (x->o->nonce) {
        *out = json_string(x->o->nonce);
        return *out ? 0 : bxa_oom(x->err);
    }
    if (RAND_bytes(r, sizeof r) != 1)
        return bx_error_ssl(x->err, BX_EENV, NULL, "no random bytes for the nonce");
    *out = json_string(bx_hex_encode(r, sizeof r, hex));
    return *out ? 0 : bxa_oom(x->err);
}

/* The boot id, trimmed, into buf; "" when unreadable. */
static void read_boot_id(char *buf, size_t len)
{
    int fd = open(BOOT_ID_PATH, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    ssize_t n = fd < 0 ? -1 : read(fd, buf, len - 1);

    if (fd >= 0)
        close(fd);
    if (n < 0)
        n = 0;
    buf[n] = '\0';
    while (n > 0 && isspace((unsigned char)buf[n - 1]))
        buf[--n] = '\0';
    for (ssize_t i = 0; i < n; i++)
        if (!isxdigit((unsigned char)buf[i]) && buf[i] != '-')
            buf[0] = '\0';
}

int bxa_build_host(bxa_pctx *x, json_t **out)
{
    char host[HOST_NAME_MAX + 2] = "", boot[64];
    int have_host = gethostname(host, sizeof host - 1) == 0 && host[0];

    read_boot_id(boot, sizeof boot);
    return bxa_packed(x,
                      json_pack_ex(&x->jerr, 0, "{s:s?,s:s?}", "hostname", have_host ? host : NULL,
                                   "bootId", boot[0] ? boot : NULL),
                      out);
}

/* ---- engine, session, image ----------------------------------------------------- */

const char *bxa_engine_kind(const json_t *version)
{
    size_t i;
    const json_t *comp;

    json_array_foreach(json_object_get(version, "Components"), i, comp)
    {
        const char *name = json_string_value(json_object_get(comp, "Name"));
        if (name && strncmp(name, "Podman", 6) == 0)
            return "podman";
    }
    return "docker";
}

int bxa_build_engine(bxa_pctx *x, json_t **out)
{
    const char *ver, *api_server, *id;
    char api[16] = "";
    int rc;

    if ((rc = bxa_str(x->version, "version", "/Version", 0, &ver, x->err)) != 0 ||
        (rc = bxa_str(x->version, "version", "/ApiVersion", 0, &api_server, x->err)) != 0 ||
        (rc = bxa_str(x->info, "info", "/ID", 0, &id, x->err)) != 0)
        return rc;
    if (api_server && (rc = bx_engine_api_negotiate(api_server, api, x->err)) != 0)
        return rc;
    return bxa_packed(x,
                      json_pack_ex(&x->jerr, 0, "{s:s,s:s?,s:s?,s:s?,s:s?,s:s?}", "kind",
                                   bxa_engine_kind(x->version), "version", ver, "apiVersion",
                                   api[0] ? api : NULL, "id", id, "endpoint", x->endpoint,
                                   "tlsPeerSha256", x->tls_peer),
                      out);
}

static int labels(bxa_pctx *x, json_t **out)
{
    const json_t *l = bxa_get(x->c, "/Config/Labels"), *v;
    const char *k;
    size_t klen;
    json_t *r = json_object();

    *out = NULL;
    if (!r)
        return bxa_oom(x->err);
    if (l && !json_is_null(l) && !json_is_object(l)) {
        json_decref(r);
        return bxa_bad(x->err, BXA_CONTAINER, "/Config/Labels",
                       "not an object in the engine reply");
    }
    json_object_keylen_foreach((json_t *)l, k, klen, v)
    {
        if (strlen(k) != klen || !json_is_string(v) ||
            strlen(json_string_value(v)) != json_string_length(v)) {
            json_decref(r);
            return bxa_bad(x->err, BXA_CONTAINER, "/Config/Labels",
                           "label is not a string without NUL bytes");
        }
        if (bxa_set(x, r, k, json_string(json_string_value(v))) != 0) {
            json_decref(r);
            return bxa_oom(x->err);
        }
    }
    *out = r;
    return 0;
}

static int restart_policy(bxa_pctx *x, json_t **out)
{
    const char *name;
    int64_t max;
    int have, rc;

    if (!json_is_object(bxa_get(x->c, "/HostConfig/RestartPolicy"))) {
        *out = json_null();
        return *out ? 0 : bxa_oom(x->err);
    }
    rc = bxa_str(x->c, BXA_CONTAINER, "/HostConfig/RestartPolicy/Name", 0, &name, x->err);
    if (rc == 0)
        rc = bxa_int(x->c, BXA_CONTAINER, "/HostConfig/RestartPolicy/MaximumRetryCount", 0, &have,
                     &max, x->err);
    if (rc != 0)
        return rc;
    if (!name || !*name)
        name = "no"; /* the engine's own reading of an empty policy */
    if (have)
        return bxa_packed(x,
                          json_pack_ex(&x->jerr, 0, "{s:s,s:I}", "name", name, "maximumRetryCount",
                                       (json_int_t)max),
                          out);
    return bxa_packed(x, json_pack_ex(&x->jerr, 0, "{s:s,s:n}", "name", name, "maximumRetryCount"),
                      out);
}

static int started_at(bxa_pctx *x, char out[21])
{
    const char *s;
    int64_t t;
    int rc = bxa_str(x->c, BXA_CONTAINER, "/State/StartedAt", 1, &s, x->err);

    if (rc != 0)
        return rc;
    if (bx_time_parse(s, 1, &t, x->err) != 0)
        return bxa_bad(x->err, BXA_CONTAINER, "/State/StartedAt", "not an RFC 3339 UTC time");
    bx_time_format(t, out);
    return 0;
}

int bxa_build_session(bxa_pctx *x, json_t **out)
{
    const char *id, *name;
    const json_t *execs = bxa_get(x->c, "/ExecIDs");
    json_t *lab = NULL, *rp = NULL;
    char started[21];
    int64_t pid;
    int have, rc;

    if ((rc = bxa_str(x->c, BXA_CONTAINER, "/Id", 1, &id, x->err)) != 0 ||
        (rc = bxa_str(x->c, BXA_CONTAINER, "/Name", 1, &name, x->err)) != 0 ||
        (rc = bxa_int(x->c, BXA_CONTAINER, "/State/Pid", 1, &have, &pid, x->err)) != 0 ||
        (rc = started_at(x, started)) != 0)
        return rc;
    if (strlen(id) != 64 || !bx_is_lower_hex(id, 64))
        return bxa_bad(x->err, BXA_CONTAINER, "/Id", "not a container ID (64 lowercase hex)");
    if (pid <= 0)
        return bxa_bad(x->err, BXA_CONTAINER, "/State/Pid", "no process for a running container");
    if (execs && !json_is_null(execs) && !json_is_array(execs))
        return bxa_bad(x->err, BXA_CONTAINER, "/ExecIDs", "not an array in the engine reply");
    if ((rc = labels(x, &lab)) != 0 || (rc = restart_policy(x, &rp)) != 0) {
        json_decref(lab);
        return rc;
    }
    return bxa_packed(x,
                      json_pack_ex(&x->jerr, 0, "{s:s,s:s,s:s,s:I,s:o,s:o,s:I}", "containerId", id,
                                   "name", name + (*name == '/'), "startedAt", started, "pid",
                                   (json_int_t)pid, "labels", lab, "restartPolicy", rp, "execCount",
                                   (json_int_t)json_array_size(execs)),
                      out);
}

int bxa_build_image(bxa_pctx *x, json_t **out)
{
    const char *id, *img_id, *ref;
    json_t *digests = NULL;
    int rc;

    if ((rc = bxa_str(x->c, BXA_CONTAINER, "/Image", 1, &id, x->err)) != 0 ||
        (rc = bxa_str(x->img, "image", "/Id", 1, &img_id, x->err)) != 0 ||
        (rc = bxa_str(x->c, BXA_CONTAINER, "/Config/Image", 0, &ref, x->err)) != 0)
        return rc;
    if (strcmp(id, img_id) != 0)
        return bxa_bad(x->err, "image", "/Id", "image inspect is not of the container's image");
    if ((rc = bxa_string_list(x, x->img, "image", "/RepoDigests", 1, &digests)) != 0)
        return rc;
    return bxa_packed(x,
                      json_pack_ex(&x->jerr, 0, "{s:s,s:s?,s:o,s:s?}", "id", id, "ref", ref,
                                   "repoDigests", digests, "pin", x->o->expect_image),
                      out);
}

int bxa_build_null(bxa_pctx *x, json_t **out)
{
    *out = json_null();
    return *out ? 0 : bxa_oom(x->err);
}

/* ---- containment: runtime, network ------------------------------------------------ */

/* The runtime's name: podman's libpod inspect names the real one (its Docker-compatible
 * inspect says "oci"); docker's HostConfig.Runtime. */
static int runtime_name(bxa_pctx *x, const char **name)
{
    int rc;

    if (x->libpod && (rc = bxa_str(x->libpod, "libpod", "/OCIRuntime", 0, name, x->err)) == 0 &&
        *name && **name)
        return 0;
    return bxa_str(x->c, BXA_CONTAINER, "/HostConfig/Runtime", 0, name, x->err);
}

/* name, path and arguments as /info Runtimes describes the runtime; the arguments a runsc
 * sandbox really started with replace these when the kernel view reads them. */
int bxa_build_runtime(bxa_pctx *x, json_t **out)
{
    const char *name, *path = NULL;
    const json_t *def;
    json_t *args = NULL;
    int rc = runtime_name(x, &name);

    if (rc != 0)
        return rc;
    def = name ? json_object_get(json_object_get(x->info, "Runtimes"), name) : NULL;
    if (def) {
        const json_t *a = json_object_get(def, "runtimeArgs"), *v;
        size_t i;
        if ((rc = bxa_str(def, "info", "/path", 0, &path, x->err)) != 0)
            return rc;
        if (a && !json_is_null(a) && !json_is_array(a))
            return bxa_bad(x->err, "info", "/Runtimes/runtimeArgs", "not an array");
        json_array_foreach(a, i, v)
        {
            if (!json_is_string(v) || strlen(json_string_value(v)) != json_string_length(v))
                return bxa_bad(x->err, "info", "/Runtimes/runtimeArgs",
                               "not an array of strings without NUL");
        }
        /* the order of arguments matters: kept as configured */
        args = json_is_array(a) ? json_deep_copy(a) : json_array();
        if (!args)
            return bxa_oom(x->err);
    }
    return bxa_packed(x,
                      json_pack_ex(&x->jerr, 0, "{s:s?,s:s?,s:o}", "name", name, "path", path,
                                   "args", args ? args : json_null()),
                      out);
}

/* internal: none and host are not networks one can leave through a gateway of the engine's
 * making (false); a container: network is the other container's (unknown here). */
static int net_internal(bxa_pctx *x, const char *mode, json_t **out)
{
    const char *name, *id;
    int internal, rc;

    *out = NULL;
    if (mode && (strcmp(mode, "none") == 0 || strcmp(mode, "host") == 0)) {
        *out = json_false();
        return 0;
    }
    if (!mode || strncmp(mode, "container:", 10) == 0 || !x->net)
        return bxa_build_null(x, out);
    if ((rc = bxa_str(x->net, "network", "/Name", 1, &name, x->err)) != 0 ||
        (rc = bxa_str(x->net, "network", "/Id", 0, &id, x->err)) != 0 ||
        (rc = bxa_bool(x->net, "network", "/Internal", 0, &internal, x->err)) != 0)
        return rc;
    if (strcmp(name, mode) != 0 && !(id && strcmp(id, mode) == 0))
        return bxa_bad(x->err, "network", "/Name",
                       "network inspect is not of the session's network");
    *out = internal < 0 ? json_null() : json_boolean(internal);
    return 0;
}

static int port_number(const char *s, int64_t *out)
{
    char *end;
    long v;

    if (!s || *s < '0' || *s > '9')
        return -1;
    errno = 0;
    v = strtol(s, &end, 10);
    if (errno || (*end && *end != '/') || v < 0 || v > 65535)
        return -1;
    *out = v;
    return 0;
}

static int port_bindings(bxa_pctx *x, json_t *ports, const char *key, const json_t *binds)
{
    const char *slash = strchr(key, '/');
    const json_t *b;
    int64_t cport, hport;
    size_t i;

    if (json_is_null(binds))
        return 0; /* exposed, not published */
    if (!slash || port_number(key, &cport) != 0 || !json_is_array(binds))
        return bxa_bad(x->err, BXA_CONTAINER, "/NetworkSettings/Ports", "not a port map");
    json_array_foreach(binds, i, b)
    {
        const char *ip, *hp;
        int rc;
        if ((rc = bxa_str(b, BXA_CONTAINER, "/HostIp", 0, &ip, x->err)) != 0 ||
            (rc = bxa_str(b, BXA_CONTAINER, "/HostPort", 1, &hp, x->err)) != 0)
            return rc;
        if (port_number(hp, &hport) != 0 || strchr(hp, '/'))
            return bxa_bad(x->err, BXA_CONTAINER, "/NetworkSettings/Ports",
                           "host port is not a number");
        rc = bxa_push(x, ports,
                      json_pack_ex(&x->jerr, 0, "{s:s,s:I,s:I,s:s}", "hostIp", ip ? ip : "",
                                   "hostPort", (json_int_t)hport, "containerPort",
                                   (json_int_t)cport, "proto", slash + 1));
        if (rc != 0)
            return rc;
    }
    return 0;
}

static int net_ports(bxa_pctx *x, json_t **out)
{
    const json_t *map = bxa_get(x->c, "/NetworkSettings/Ports"), *binds;
    const char *key;
    size_t klen;
    json_t *ports = json_array();
    int rc = 0;

    *out = NULL;
    if (!ports)
        return bxa_oom(x->err);
    if (map && !json_is_null(map) && !json_is_object(map)) {
        rc = bxa_bad(x->err, BXA_CONTAINER, "/NetworkSettings/Ports",
                     "not an object in the engine reply");
        goto out;
    }
    json_object_keylen_foreach((json_t *)map, key, klen, binds)
    {
        if (strlen(key) != klen) {
            rc = bxa_bad(x->err, BXA_CONTAINER, "/NetworkSettings/Ports", "NUL byte in a port");
            goto out;
        }
        if ((rc = port_bindings(x, ports, key, binds)) != 0)
            goto out;
    }
    if ((rc = bxa_sort_array(x, ports, cmp_port, 1)) != 0)
        goto out;
    *out = ports;
    ports = NULL;
out:
    json_decref(ports);
    return rc;
}

/* HostConfig.NetworkMode with the engine's "default" named for what it is. */
int bxa_network_mode(bxa_pctx *x, const char **mode)
{
    int rc = bxa_str(x->c, BXA_CONTAINER, "/HostConfig/NetworkMode", 0, mode, x->err);

    if (rc == 0 && *mode && strcmp(*mode, "default") == 0)
        *mode = "bridge";
    return rc;
}

int bxa_build_network(bxa_pctx *x, json_t **out)
{
    const char *mode;
    json_t *internal = NULL, *ports = NULL;
    int rc;

    if ((rc = bxa_network_mode(x, &mode)) != 0 || (rc = net_internal(x, mode, &internal)) != 0)
        return rc;
    if ((rc = net_ports(x, &ports)) != 0) {
        json_decref(internal);
        return rc;
    }
    return bxa_packed(x,
                      json_pack_ex(&x->jerr, 0, "{s:s?,s:o,s:n,s:o}", "mode", mode, "internal",
                                   internal, "interfaces", "ports", ports),
                      out);
}

int bxa_build_rootfs(bxa_pctx *x, json_t **out)
{
    int ro, rc = bxa_bool(x->c, BXA_CONTAINER, "/HostConfig/ReadonlyRootfs", 0, &ro, x->err);

    if (rc != 0)
        return rc;
    return bxa_packed(
        x, json_pack_ex(&x->jerr, 0, "{s:o}", "readOnly", ro < 0 ? json_null() : json_boolean(ro)),
        out);
}

/* ---- containment: capabilities ---------------------------------------------------- */

/* The capability names and Docker's default set are schema/'s (containment.c): one list. */
#define cap_names bx_cap_names
#define CAP_COUNT BX_CAP_COUNT
/* "ALL" and privileged, as Docker 20.10 reads them: every capability its library knows,
 * CAP_CHOWN (0) to CAP_AUDIT_READ (37); PERFMON, BPF and CHECKPOINT_RESTORE (38-40) are
 * newer than it (its OCI specs never list them). */
#define CAP_ALL_BITS ((UINT64_C(1) << 38) - 1)
_Static_assert(CAP_COUNT == BXA_CAP_COUNT, "capability table");

static int cap_index(const char *name)
{
    return bx_cap_index(name);
}

int bxa_cap_index(const char *name)
{
    return cap_index(name);
}

const char *bxa_cap_name(unsigned bit)
{
    return bit < CAP_COUNT ? cap_names[bit] : NULL;
}

uint64_t bxa_cap_docker_defaults(void)
{
    return bx_cap_docker_default_bits();
}

json_t *bxa_cap_names(uint64_t bits)
{
    json_t *r = json_array();

    for (unsigned i = 0; r && i < CAP_COUNT; i++)
        if ((bits & (UINT64_C(1) << i)) && json_array_append_new(r, json_string(cap_names[i]))) {
            json_decref(r);
            return NULL;
        }
    if (!r)
        return NULL;
    bxa_sort_strings(r);
    for (unsigned i = CAP_COUNT; i < 64; i++) /* bits this collector has no name for */
        if ((bits & (UINT64_C(1) << i)) && json_array_append_new(r, json_integer(i))) {
            json_decref(r);
            return NULL;
        }
    return r;
}

/* "cap_net_admin" -> "NET_ADMIN" into buf; -1 when too long. */
static int cap_normalise(const char *in, char *buf, size_t len)
{
    size_t i;

    if (strncasecmp(in, "CAP_", 4) == 0)
        in += 4;
    for (i = 0; in[i] && i + 1 < len; i++)
        buf[i] = (char)toupper((unsigned char)in[i]);
    buf[i] = '\0';
    return in[i] ? -1 : 0;
}

/* HostConfig.CapAdd or CapDrop: the normalised names (sorted, unique, "ALL" kept as given)
 * into *names, their bits, and whether "ALL" was listed. */
static int cap_list(bxa_pctx *x, const char *ptr, json_t **names, uint64_t *bits, int *all)
{
    const json_t *a = bxa_get(x->c, ptr), *v;
    json_t *r = json_array();
    char buf[40];
    size_t i;
    int rc = 0;

    *names = NULL;
    *bits = 0;
    *all = 0;
    if (!r)
        return bxa_oom(x->err);
    if (a && !json_is_null(a) && !json_is_array(a)) {
        rc = bxa_bad(x->err, BXA_CONTAINER, ptr, "not an array in the engine reply");
        goto out;
    }
    json_array_foreach(a, i, v)
    {
        const char *s = json_string_value(v);
        int idx;
        if (!s || strlen(s) != json_string_length(v) || cap_normalise(s, buf, sizeof buf) != 0) {
            rc = bxa_bad(x->err, BXA_CONTAINER, ptr, "not a capability name");
            goto out;
        }
        if (strcmp(buf, "ALL") == 0)
            *all = 1;
        else if ((idx = cap_index(buf)) >= 0)
            *bits |= UINT64_C(1) << idx;
        else {
            rc = bxa_bad(x->err, BXA_CONTAINER, ptr, "unknown capability");
            goto out;
        }
        if ((rc = bxa_push(x, r, json_string(buf))) != 0)
            goto out;
    }
    if ((rc = bxa_sort_array(x, r, bxa_cmp_str, 1)) != 0)
        goto out;
    *names = r;
    r = NULL;
out:
    json_decref(r);
    return rc;
}

static json_t *cap_names_of(uint64_t bits)
{
    json_t *r = json_array();

    for (size_t i = 0; r && i < CAP_COUNT; i++)
        if ((bits & (UINT64_C(1) << i)) && json_array_append_new(r, json_string(cap_names[i]))) {
            json_decref(r);
            r = NULL;
        }
    return r;
}

/* The set Docker 20.10 gives the container (daemon/caps TweakCapabilities): ALL in add wins
 * (minus drop), then ALL in drop (only add), else defaults - drop + add. */
static uint64_t cap_effective(int privileged, uint64_t add, int add_all, uint64_t drop,
                              int drop_all)
{
    if (privileged)
        return CAP_ALL_BITS;
    if (add_all)
        return CAP_ALL_BITS & ~drop;
    if (drop_all)
        return add;
    return (bx_cap_docker_default_bits() & ~drop) | add;
}

int bxa_build_capabilities(bxa_pctx *x, json_t **out)
{
    json_t *add = NULL, *drop = NULL, *eff = NULL;
    uint64_t addb, dropb;
    int add_all, drop_all, rc;

    *out = NULL;
    if ((rc = cap_list(x, "/HostConfig/CapAdd", &add, &addb, &add_all)) != 0 ||
        (rc = cap_list(x, "/HostConfig/CapDrop", &drop, &dropb, &drop_all)) != 0)
        goto out;
    eff = cap_names_of(cap_effective(x->privileged, addb, add_all, dropb, drop_all));
    if (!eff) {
        rc = bxa_oom(x->err);
        goto out;
    }
    /* names are sorted: cap_names_of follows bit order, so sort them by name */
    if ((rc = bxa_sort_array(x, eff, bxa_cmp_str, 0)) != 0)
        goto out;
    rc = bxa_packed(x,
                    json_pack_ex(&x->jerr, 0, "{s:o,s:o,s:O,s:O,s:O,s:[],s:[]}", "add", add, "drop",
                                 drop, "effective", eff, "permitted", eff, "bounding", eff,
                                 "inheritable", "ambient"),
                    out);
    add = drop = NULL;
out:
    json_decref(add);
    json_decref(drop);
    json_decref(eff);
    return rc;
}

/* ---- containment: security options ----------------------------------------------- */

static int bool_opt(const char *v, int *out)
{
    if (strcmp(v, "true") == 0)
        *out = 1;
    else if (strcmp(v, "false") == 0)
        *out = 0;
    else
        return -1;
    return 0;
}

/* One SecurityOpt entry, split as the engine splits it: "k=v", else legacy "k:v". */
static int secopt_one(bxa_pctx *x, const char *opt, bxa_secopts *so)
{
    char key[32];
    const char *sep = strchr(opt, '='), *val;
    size_t klen;

    if (strcmp(opt, "no-new-privileges") == 0) {
        so->nnp = 1;
        return 0;
    }
    if (!sep)
        sep = strchr(opt, ':');
    if (!sep || (klen = (size_t)(sep - opt)) >= sizeof key)
        return bxa_bad(x->err, BXA_CONTAINER, "/HostConfig/SecurityOpt", "not a security option");
    memcpy(key, opt, klen);
    key[klen] = '\0';
    val = sep + 1;
    if (strcmp(key, "no-new-privileges") == 0) {
        if (bool_opt(val, &so->nnp) != 0)
            return bxa_bad(x->err, BXA_CONTAINER, "/HostConfig/SecurityOpt",
                           "no-new-privileges is not a bool");
    } else if (strcmp(key, "writable-cgroups") == 0) {
        if (bool_opt(val, &so->writable_cgroups) != 0)
            return bxa_bad(x->err, BXA_CONTAINER, "/HostConfig/SecurityOpt",
                           "writable-cgroups is not a bool");
    } else if (strcmp(key, "seccomp") == 0) {
        so->seccomp = val;
    } else if (strcmp(key, "apparmor") == 0) {
        so->apparmor = val;
    } else if (strcmp(key, "label") == 0) {
        if (strcmp(val, "disable") == 0)
            so->label_disable = 1;
        else if (bxa_push(x, so->labels, json_string(val)) != 0)
            return bxa_oom(x->err);
    } else if (strcmp(key, "systempaths") != 0) {
        /* systempaths=unconfined shows in Masked/ReadonlyPaths; anything else we cannot
         * interpret, and an option we cannot interpret may weaken the session */
        return bx_error_set(x->err, BX_EUNSUPPORTED, BXA_CONTAINER ":/HostConfig/SecurityOpt",
                            "security option '%s' is not understood", key);
    }
    return 0;
}

static int secopts_parse(bxa_pctx *x, bxa_secopts *so)
{
    const json_t *a = bxa_get(x->c, "/HostConfig/SecurityOpt"), *v;
    size_t i;
    int rc;

    memset(so, 0, sizeof *so);
    if (!(so->labels = json_array()))
        return bxa_oom(x->err);
    if (a && !json_is_null(a) && !json_is_array(a))
        return bxa_bad(x->err, BXA_CONTAINER, "/HostConfig/SecurityOpt",
                       "not an array in the engine reply");
    json_array_foreach(a, i, v)
    {
        const char *s = json_string_value(v);
        if (!s || strlen(s) != json_string_length(v))
            return bxa_bad(x->err, BXA_CONTAINER, "/HostConfig/SecurityOpt",
                           "not a string without NUL");
        if ((rc = secopt_one(x, s, so)) != 0)
            return rc;
    }
    return 0;
}

/* 1 when /info SecurityOptions lists name=<name>, 0 when not, -1 when not reported. */
int bxa_info_secopt(bxa_pctx *x, const char *name, const char **profile)
{
    const json_t *a = json_object_get(x->info, "SecurityOptions"), *v;
    size_t i, n = strlen(name);

    if (profile)
        *profile = NULL;
    if (!json_is_array(a))
        return -1;
    json_array_foreach(a, i, v)
    {
        const char *s = json_string_value(v);
        if (!s || strncmp(s, "name=", 5) != 0 || strncmp(s + 5, name, n) != 0 ||
            (s[5 + n] != '\0' && s[5 + n] != ','))
            continue;
        if (profile && (s = strstr(s, ",profile=")) != NULL)
            *profile = s + 9;
        return 1;
    }
    return 0;
}

/* runsc applies the OCI seccomp filter only when started with --oci-seccomp: 1 yes, 0 no,
 * -1 the engine does not say. Other runtimes apply it (1). */
static int runtime_applies_seccomp(bxa_pctx *x)
{
    const char *rt = json_string_value(bxa_get(x->c, "/HostConfig/Runtime"));
    const json_t *def, *args, *a;
    const char *path;
    size_t i;

    if (!rt)
        return -1;
    def = json_object_get(json_object_get(x->info, "Runtimes"), rt);
    path = json_string_value(json_object_get(def, "path"));
    if (!def)
        return strcmp(rt, "runsc") == 0 ? -1 : 1;
    if (strcmp(rt, "runsc") != 0 &&
        !(path && strlen(path) >= 5 && strcmp(path + strlen(path) - 5, "runsc") == 0))
        return 1;
    args = json_object_get(def, "runtimeArgs");
    json_array_foreach(args, i, a)
    {
        const char *s = json_string_value(a);
        if (s && (strcmp(s, "--oci-seccomp") == 0 || strcmp(s, "-oci-seccomp") == 0 ||
                  strcmp(s, "--oci-seccomp=true") == 0 || strcmp(s, "-oci-seccomp=true") == 0))
            return 1;
    }
    return 0;
}

static int b_seccomp(bxa_pctx *x, const bxa_secopts *so, json_t **out)
{
    const char *mode = "filter", *profile = "default", *daemon;
    int have = bxa_info_secopt(x, "seccomp", &daemon), applies = runtime_applies_seccomp(x);

    if (x->privileged || (so->seccomp && strcmp(so->seccomp, "unconfined") == 0)) {
        mode = "disabled";
        profile = "unconfined";
    } else if (so->seccomp && strcmp(so->seccomp, "builtin") != 0) {
        profile = "custom";
    } else if (have < 0) {
        mode = profile = NULL; /* the daemon does not say what it applies */
    } else if (have == 0 || (daemon && strcmp(daemon, "unconfined") == 0)) {
        mode = "disabled";
        profile = "unconfined";
    } else if (daemon && strcmp(daemon, "default") != 0 && strcmp(daemon, "builtin") != 0) {
        profile = "custom";
    }
    if (mode && strcmp(mode, "filter") == 0 && applies <= 0)
        mode = applies == 0 ? "disabled" : NULL;
    return bxa_packed(x,
                      json_pack_ex(&x->jerr, 0, "{s:s?,s:s?,s:n}", "mode", mode, "profile", profile,
                                   "profileSha256"),
                      out);
}

static json_t *tri_bool(int v)
{
    return v < 0 ? json_null() : json_boolean(v);
}

static int b_apparmor(bxa_pctx *x, const bxa_secopts *so, json_t **out)
{
    const char *prof;
    int rc = bxa_str(x->c, BXA_CONTAINER, "/AppArmorProfile", 0, &prof, x->err);

    if (rc != 0)
        return rc;
    if (!prof || !*prof)
        prof = so->apparmor;
    return bxa_packed(x,
                      json_pack_ex(&x->jerr, 0, "{s:s?,s:o}", "profile",
                                   prof && *prof ? prof : NULL, "available",
                                   tri_bool(bxa_info_secopt(x, "apparmor", NULL))),
                      out);
}

/* label=disable is recorded as no label (null), never as a label named "disable". */
static int b_selinux(bxa_pctx *x, const bxa_secopts *so, json_t **out)
{
    const char *proc;
    char *joined = NULL;
    size_t i, len = 0;
    json_t *v;
    int rc = bxa_str(x->c, BXA_CONTAINER, "/ProcessLabel", 0, &proc, x->err);

    if (rc != 0)
        return rc;
    if ((!proc || !*proc) && !so->label_disable && json_array_size(so->labels)) {
        json_array_foreach(so->labels, i, v) len += json_string_length(v) + 1;
        if (!(joined = calloc(1, len)))
            return bxa_oom(x->err);
        json_array_foreach(so->labels, i, v)
        {
            if (i)
                strcat(joined, ",");
            strcat(joined, json_string_value(v));
        }
        proc = joined;
    }
    if (so->label_disable)
        proc = NULL;
    rc = bxa_packed(x,
                    json_pack_ex(&x->jerr, 0, "{s:s?,s:o}", "label", proc && *proc ? proc : NULL,
                                 "available", tri_bool(bxa_info_secopt(x, "selinux", NULL))),
                    out);
    free(joined);
    return rc;
}

int bxa_build_user(bxa_pctx *x, json_t **out)
{
    const char *spec;
    int rc = bxa_str(x->c, BXA_CONTAINER, "/Config/User", 0, &spec, x->err);

    if (rc != 0)
        return rc;
    return bxa_packed(x,
                      json_pack_ex(&x->jerr, 0, "{s:s,s:n,s:n,s:n}", "spec", spec ? spec : "",
                                   "uids", "gids", "groups"),
                      out);
}

/* ---- containment: namespaces, resources ------------------------------------------ */

static int ns_mode(bxa_pctx *x, const char *ptr, const char *dflt, const char **out)
{
    int rc = bxa_str(x->c, BXA_CONTAINER, ptr, 0, out, x->err);

    if (rc == 0 && (!*out || !**out))
        *out = dflt;
    return rc;
}

int bxa_build_namespaces(bxa_pctx *x, json_t **out)
{
    const char *pid, *ipc, *uts, *user, *cg, *net, *mode, *cgv;
    int remaps, rc;

    cgv = json_string_value(json_object_get(x->info, "CgroupVersion"));
    remaps = bxa_info_secopt(x, "userns", NULL) == 1; /* a lookup: asked first, same answer */
    /* the engine's defaults when the mode is empty. The user namespace's engine mode
     * keeps an explicit --userns=host ("host") apart from the default: "remapped" when
     * the daemon remaps user namespaces, else "default" (which shares the host's). The
     * cgroup namespace is the host's on cgroup v1. */
    if ((rc = ns_mode(x, "/HostConfig/PidMode", "private", &pid)) != 0 ||
        (rc = ns_mode(x, "/HostConfig/IpcMode", "private", &ipc)) != 0 ||
        (rc = ns_mode(x, "/HostConfig/UTSMode", "private", &uts)) != 0 ||
        (rc = ns_mode(x, "/HostConfig/UsernsMode", remaps ? "remapped" : "default", &user)) != 0 ||
        (rc = ns_mode(x, "/HostConfig/CgroupnsMode",
                      cgv && strcmp(cgv, "2") == 0 ? "private" : "host", &cg)) != 0 ||
        (rc = bxa_network_mode(x, &mode)) != 0)
        return rc;
    if (!mode)
        net = NULL;
    else if (strcmp(mode, "host") == 0 || strncmp(mode, "container:", 10) == 0)
        net = mode;
    else
        net = "private";
    return bxa_packed(x,
                      json_pack_ex(&x->jerr, 0,
                                   "{s:{s:s,s:n},s:{s:s,s:n},s:{s:s,s:n},s:{s:s?,s:n},"
                                   "s:{s:s,s:n},s:{s:s,s:n}}",
                                   "pid", "engine", pid, "kernel", "ipc", "engine", ipc, "kernel",
                                   "uts", "engine", uts, "kernel", "net", "engine", net, "kernel",
                                   "user", "engine", user, "kernel", "cgroup", "engine", cg,
                                   "kernel"),
                      out);
}

/* A limit: 0, -1 and absent mean unlimited (null); other negative values are not limits. */
static int limit(bxa_pctx *x, json_t *res, const char *name, const char *key)
{
    char ptr[64];
    int64_t v;
    int have, rc;

    snprintf(ptr, sizeof ptr, "/HostConfig/%s", key);
    if ((rc = bxa_int(x->c, BXA_CONTAINER, ptr, 0, &have, &v, x->err)) != 0)
        return rc;
    if (have && v < -1)
        return bxa_bad(x->err, BXA_CONTAINER, ptr, "negative limit");
    return bxa_set(x, res, name, have && v > 0 ? json_integer(v) : json_null());
}

int bxa_build_resources(bxa_pctx *x, json_t **out)
{
    static const char *const map[][2] = {
        {"memoryBytes", "Memory"},  {"memorySwapBytes", "MemorySwap"}, {"pidsLimit", "PidsLimit"},
        {"nanoCpus", "NanoCpus"},   {"cpuShares", "CpuShares"},        {"cpuQuota", "CpuQuota"},
        {"cpuPeriod", "CpuPeriod"},
    };
    json_t *res = json_object();
    const char *parent;
    int rc = 0;

    *out = NULL;
    if (!res)
        return bxa_oom(x->err);
    for (size_t i = 0; rc == 0 && i < sizeof map / sizeof map[0]; i++)
        rc = limit(x, res, map[i][0], map[i][1]);
    if (rc == 0)
        rc = bxa_str(x->c, BXA_CONTAINER, "/HostConfig/CgroupParent", 0, &parent, x->err);
    if (rc == 0)
        rc = bxa_set(x, res, "cgroupParent", json_string(parent ? parent : ""));
    if (rc != 0) {
        json_decref(res);
        return rc;
    }
    *out = res;
    return 0;
}

/* ---- containment: write surface, mounts, devices --------------------------------- */

/* size= of tmpfs options as the kernel reads it (memparse: K M G T P E); 0 when absent or
 * not a plain number (e.g. a percentage), -1 when beyond 2^53. */
static int64_t tmpfs_size(const char *opts)
{
    const char *p = opts, *o;
    int64_t v = 0;

    for (o = p; o; o = strchr(o, ',') ? strchr(o, ',') + 1 : NULL) {
        if (strncmp(o, "size=", 5) == 0)
            p = o + 5;
    }
    if (p == opts)
        return 0;
    if (*p < '0' || *p > '9')
        return 0;
    for (; *p >= '0' && *p <= '9'; p++) {
        if (v > (BX_JSON_MAX_INT - 9) / 10)
            return -1;
        v = v * 10 + (*p - '0');
    }
    const char *units = "KMGTPE", *u = *p ? strchr(units, toupper((unsigned char)*p)) : NULL;
    int shift = u ? 10 * (int)(u - units + 1) : 0;
    if (u)
        p++;
    if (*p && *p != ',')
        return 0;
    if (shift && v > (BX_JSON_MAX_INT >> shift))
        return -1;
    return v << shift;
}

static json_t *surface(const char *path, const char *kind, const char *fs, json_t *options,
                       int64_t size)
{
    json_t *o = options ? options : json_array();

    return json_pack("{s:s,s:s,s:s?,s:o,s:o}", "path", path, "kind", kind, "fsType", fs, "options",
                     o, "sizeBytes", size > 0 ? json_integer(size) : json_null());
}

static json_t *split_options(const char *s)
{
    json_t *r = json_array();
    const char *p = s;

    while (r && *p) {
        const char *e = strchr(p, ',');
        size_t n = e ? (size_t)(e - p) : strlen(p);
        if (n && json_array_append_new(r, json_stringn(p, n)) != 0) {
            json_decref(r);
            return NULL;
        }
        p += n + (e != NULL);
    }
    return r;
}

static int surface_tmpfs(bxa_pctx *x, json_t *ws)
{
    const json_t *map = bxa_get(x->c, "/HostConfig/Tmpfs"), *v;
    const char *path;
    size_t plen;
    json_t *opts;
    int rc;

    if (map && !json_is_null(map) && !json_is_object(map))
        return bxa_bad(x->err, BXA_CONTAINER, "/HostConfig/Tmpfs",
                       "not an object in the engine reply");
    json_object_keylen_foreach((json_t *)map, path, plen, v)
    {
        const char *s = json_string_value(v);
        if (!s || strlen(s) != json_string_length(v) || strlen(path) != plen)
            return bxa_bad(x->err, BXA_CONTAINER, "/HostConfig/Tmpfs",
                           "not a map of strings without NUL");
        int64_t size = tmpfs_size(s);
        if (size < 0)
            return bxa_bad(x->err, BXA_CONTAINER, "/HostConfig/Tmpfs", "size beyond 2^53");
        if (!(opts = split_options(s)) || (rc = bxa_sort_array(x, opts, bxa_cmp_str, 0)) != 0) {
            json_decref(opts);
            return bxa_oom(x->err);
        }
        if ((rc = bxa_push(x, ws, surface(path, "tmpfs", "tmpfs", opts, size))) != 0)
            return rc;
    }
    return 0;
}

/* The size of a --mount type=tmpfs at dest from HostConfig.Mounts, 0 when not given. */
static int64_t mount_tmpfs_size(bxa_pctx *x, const char *dest)
{
    const json_t *a = bxa_get(x->c, "/HostConfig/Mounts"), *m;
    size_t i;

    json_array_foreach(a, i, m)
    {
        const char *t = json_string_value(json_object_get(m, "Target"));
        json_t *sz = json_object_get(json_object_get(m, "TmpfsOptions"), "SizeBytes");
        if (t && strcmp(t, dest) == 0 && json_is_integer(sz) &&
            json_integer_value(sz) <= BX_JSON_MAX_INT)
            return json_integer_value(sz);
    }
    return 0;
}

static int mount_fields(bxa_pctx *x, const json_t *m, const char **type, const char **src,
                        const char **dest, int *rw, const char **prop)
{
    int rc;

    if ((rc = bxa_str(m, BXA_CONTAINER, "/Type", 1, type, x->err)) != 0 ||
        (rc = bxa_str(m, BXA_CONTAINER, "/Source", 0, src, x->err)) != 0 ||
        (rc = bxa_str(m, BXA_CONTAINER, "/Destination", 1, dest, x->err)) != 0 ||
        (rc = bxa_bool(m, BXA_CONTAINER, "/RW", 1, rw, x->err)) != 0 ||
        (rc = bxa_str(m, BXA_CONTAINER, "/Propagation", 0, prop, x->err)) != 0) {
        bx_error_prefix(x->err, "Mounts[]");
        return rc;
    }
    return 0;
}

static int surface_mounts(bxa_pctx *x, json_t *ws)
{
    const json_t *a = bxa_get(x->c, "/Mounts"), *m;
    const char *type, *src, *dest, *prop;
    size_t i;
    int rw, rc;

    json_array_foreach(a, i, m)
    {
        if ((rc = mount_fields(x, m, &type, &src, &dest, &rw, &prop)) != 0)
            return rc;
        if (!rw)
            continue;
        if (strcmp(type, "tmpfs") == 0)
            rc = bxa_push(x, ws, surface(dest, "tmpfs", "tmpfs", NULL, mount_tmpfs_size(x, dest)));
        else if (strcmp(type, "bind") == 0 || strcmp(type, "volume") == 0)
            rc = bxa_push(x, ws, surface(dest, type, NULL, NULL, 0));
        else
            rc = bx_error_set(x->err, BX_EUNSUPPORTED, BXA_CONTAINER ":/Mounts",
                              "mount type '%s' is not understood", type);
        if (rc != 0)
            return rc;
    }
    return 0;
}

static int has_path(const json_t *ws, const char *path)
{
    size_t i;
    const json_t *e;

    json_array_foreach(ws, i, e) if (strcmp(bxa_member(e, "path"), path) == 0) return 1;
    return 0;
}

/* What Docker 20.10 mounts read-write in every session without being asked, unless a mount
 * of the session's own takes the place: /dev (64 MiB tmpfs), /dev/pts, /dev/shm (ShmSize;
 * none with --ipc none, the host's or another session's with host/container:),
 * /dev/mqueue, /proc, /sys/fs/cgroup (a tmpfs on cgroup v1; cgroup2, read-only unless
 * privileged, on v2) and, privileged, /sys. */
static int surface_engine(bxa_pctx *x, const bxa_secopts *so, json_t *ws)
{
    const char *ipc = json_string_value(bxa_get(x->c, "/HostConfig/IpcMode"));
    const char *cgv = json_string_value(json_object_get(x->info, "CgroupVersion"));
    const json_t *shm = bxa_get(x->c, "/HostConfig/ShmSize");
    int private_shm = !ipc || !*ipc || !strcmp(ipc, "private") || !strcmp(ipc, "shareable");
    int ro_rootfs = json_is_true(bxa_get(x->c, "/HostConfig/ReadonlyRootfs"));
    int podman = strcmp(bxa_engine_kind(x->version), "podman") == 0;
    const char *nm = json_string_value(bxa_get(x->c, "/HostConfig/NetworkMode"));
    int net_none = nm && strcmp(nm, "none") == 0;
    int v2 = cgv && strcmp(cgv, "2") == 0, v1 = cgv && strcmp(cgv, "1") == 0;
    struct {
        const char *path, *fs;
        int64_t size;
        int on;
    } e[] = {
        {"/dev", "tmpfs", 65536 * 1024, 1},
        {"/dev/pts", "devpts", 0, 1},
        {"/dev/shm", "tmpfs",
         private_shm && json_is_integer(shm) && json_integer_value(shm) <= BX_JSON_MAX_INT
             ? json_integer_value(shm)
             : 0,
         !ipc || strcmp(ipc, "none") != 0},
        {"/dev/mqueue", "mqueue", 0, 1},
        {"/proc", "proc", 0, 1},
        {"/sys/fs/cgroup",
         v1   ? "tmpfs"
         : v2 ? "cgroup2"
              : NULL,
         0, !v2 || x->privileged || so->writable_cgroups},
        {"/sys", "sysfs", 0, x->privileged},
        /* the engine's own files, bind-mounted read-write unless the rootfs is read-only
         * (podman: no resolv.conf without a network, and its /run/.containerenv) */
        {"/etc/hostname", NULL, 0, !ro_rootfs},
        {"/etc/hosts", NULL, 0, !ro_rootfs},
        {"/etc/resolv.conf", NULL, 0, !ro_rootfs && !(podman && net_none)},
        {"/run/.containerenv", NULL, 0, !ro_rootfs && podman},
    };
    int rc;

    for (size_t i = 0; i < sizeof e / sizeof e[0]; i++) {
        if (!e[i].on || has_path(ws, e[i].path))
            continue;
        if ((rc = bxa_push(x, ws, surface(e[i].path, "engine", e[i].fs, NULL, e[i].size))) != 0)
            return rc;
    }
    return 0;
}

int bxa_build_write_surface(bxa_pctx *x, const bxa_secopts *so, json_t **out)
{
    json_t *ws = json_array();
    int ro, rc;

    *out = NULL;
    if (!ws)
        return bxa_oom(x->err);
    if ((rc = bxa_bool(x->c, BXA_CONTAINER, "/HostConfig/ReadonlyRootfs", 0, &ro, x->err)) != 0)
        goto out;
    if (ro != 1 && (rc = bxa_push(x, ws, surface("/", "rootfs", NULL, NULL, 0))) != 0)
        goto out;
    if ((rc = surface_tmpfs(x, ws)) != 0 || (rc = surface_mounts(x, ws)) != 0 ||
        (rc = surface_engine(x, so, ws)) != 0 || (rc = bxa_sort_array(x, ws, cmp_surface, 0)) != 0)
        goto out;
    *out = ws;
    ws = NULL;
out:
    json_decref(ws);
    return rc;
}

/* The canonical host path of src (symlinks resolved on this host), else src as given. */
static json_t *canonical_source(const char *src)
{
    char buf[PATH_MAX];
    json_t *r = NULL;

    if (src && src[0] == '/' && realpath(src, buf))
        r = json_string(buf); /* NULL when the host's path is not UTF-8 */
    return r ? r : json_string(src ? src : "");
}

int bxa_build_mounts(bxa_pctx *x, json_t **out)
{
    const json_t *a = bxa_get(x->c, "/Mounts"), *m;
    const char *type, *src, *dest, *prop;
    json_t *r = json_array();
    size_t i;
    int rw, rc = 0;

    *out = NULL;
    if (!r)
        return bxa_oom(x->err);
    if (a && !json_is_null(a) && !json_is_array(a)) {
        rc = bxa_bad(x->err, BXA_CONTAINER, "/Mounts", "not an array in the engine reply");
        goto out;
    }
    json_array_foreach(a, i, m)
    {
        if ((rc = mount_fields(x, m, &type, &src, &dest, &rw, &prop)) != 0)
            goto out;
        rc = bxa_push(x, r,
                      json_pack_ex(&x->jerr, 0, "{s:s,s:o,s:s,s:s,s:b,s:s}", "type", type, "source",
                                   canonical_source(src), "sourceAsGiven", src ? src : "",
                                   "destination", dest, "readOnly", !rw, "propagation",
                                   prop ? prop : ""));
        if (rc != 0)
            goto out;
    }
    if ((rc = bxa_sort_array(x, r, cmp_mount, 0)) != 0)
        goto out;
    *out = r;
    r = NULL;
out:
    json_decref(r);
    return rc;
}

static int device_list(bxa_pctx *x, json_t **out)
{
    const json_t *a = bxa_get(x->c, "/HostConfig/Devices"), *d;
    const char *host, *cont, *perm;
    json_t *r = json_array();
    size_t i;
    int rc = 0;

    *out = NULL;
    if (!r)
        return bxa_oom(x->err);
    if (a && !json_is_null(a) && !json_is_array(a)) {
        rc = bxa_bad(x->err, BXA_CONTAINER, "/HostConfig/Devices",
                     "not an array in the engine reply");
        goto out;
    }
    json_array_foreach(a, i, d)
    {
        if ((rc = bxa_str(d, BXA_CONTAINER, "/PathOnHost", 1, &host, x->err)) != 0 ||
            (rc = bxa_str(d, BXA_CONTAINER, "/PathInContainer", 0, &cont, x->err)) != 0 ||
            (rc = bxa_str(d, BXA_CONTAINER, "/CgroupPermissions", 0, &perm, x->err)) != 0)
            goto out;
        rc = bxa_push(x, r,
                      json_pack_ex(&x->jerr, 0, "{s:s,s:s,s:s}", "pathOnHost", host,
                                   "pathInContainer", cont && *cont ? cont : host,
                                   "cgroupPermissions", perm && *perm ? perm : "rwm"));
        if (rc != 0)
            goto out;
    }
    if ((rc = bxa_sort_array(x, r, cmp_device, 1)) != 0)
        goto out;
    *out = r;
    r = NULL;
out:
    json_decref(r);
    return rc;
}

int bxa_build_devices(bxa_pctx *x, json_t **out)
{
    json_t *devs = NULL, *rules = NULL;
    int rc;

    if ((rc = device_list(x, &devs)) != 0)
        return rc;
    if ((rc = bxa_string_list(x, x->c, BXA_CONTAINER, "/HostConfig/DeviceCgroupRules", 1,
                              &rules)) != 0) {
        json_decref(devs);
        return rc;
    }
    return bxa_packed(x,
                      json_pack_ex(&x->jerr, 0, "{s:o,s:o,s:b}", "devices", devs, "cgroupRules",
                                   rules, "allowAll", x->privileged),
                      out);
}

static int path_list(bxa_pctx *x, const char *ptr, json_t **out)
{
    if (x->privileged) {
        *out = json_array(); /* privileged: nothing masked, nothing read-only */
        return *out ? 0 : bxa_oom(x->err);
    }
    return bxa_string_list(x, x->c, BXA_CONTAINER, ptr, 0, out);
}

/* ---- containment ------------------------------------------------------------------ */

int bxa_containment_security(bxa_pctx *x, json_t *ct)
{
    bxa_secopts so;
    json_t *v = NULL;
    int rc;

    if ((rc = secopts_parse(x, &so)) != 0)
        goto out;
    if ((rc = bxa_set(x, ct, "noNewPrivileges", json_boolean(so.nnp))) != 0)
        goto out;
    if ((rc = b_seccomp(x, &so, &v)) != 0 || (rc = bxa_set(x, ct, "seccomp", v)) != 0)
        goto out;
    if ((rc = b_apparmor(x, &so, &v)) != 0 || (rc = bxa_set(x, ct, "apparmor", v)) != 0)
        goto out;
    if ((rc = b_selinux(x, &so, &v)) != 0 || (rc = bxa_set(x, ct, "selinux", v)) != 0)
        goto out;
    if ((rc = bxa_build_write_surface(x, &so, &v)) != 0 ||
        (rc = bxa_set(x, ct, "writeSurface", v)) != 0)
        goto out;
out:
    json_decref(so.labels);
    return rc;
}

int bxa_build_masked(bxa_pctx *x, json_t **out)
{
    return path_list(x, "/HostConfig/MaskedPaths", out);
}

int bxa_build_readonly_paths(bxa_pctx *x, json_t **out)
{
    return path_list(x, "/HostConfig/ReadonlyPaths", out);
}

static int b_privileged(bxa_pctx *x, json_t **out)
{
    *out = json_boolean(x->privileged);
    return 0;
}

/* The engine's sysctls (HostConfig.Sysctls) and the watched ones, {name: {engine, kernel}};
 * the kernel's values and the spec's come in reconciliation. */
int bxa_build_sysctls(bxa_pctx *x, json_t **out)
{
    const json_t *given = bxa_get(x->c, "/HostConfig/Sysctls"), *v;
    const char *name;
    json_t *r = json_object();
    int rc = 0;

    *out = NULL;
    if (!r)
        return bxa_oom(x->err);
    if (given && !json_is_null(given) && !json_is_object(given)) {
        rc = bxa_bad(x->err, BXA_CONTAINER, "/HostConfig/Sysctls", "not a map in the engine reply");
        goto out;
    }
    json_object_foreach((json_t *)given, name, v)
    {
        if (!json_is_string(v) || !bxa_sysctl_name_ok(name)) {
            rc = bxa_bad(x->err, BXA_CONTAINER, "/HostConfig/Sysctls",
                         "not a sysctl name and value");
            goto out;
        }
        if ((rc = bxa_set(x, r, name, json_pack("{s:O,s:n}", "engine", v, "kernel"))) != 0)
            goto out;
    }
    for (const char *const *w = bxa_sysctl_watched; *w; w++)
        if (!json_object_get(r, *w) &&
            (rc = bxa_set(x, r, *w, json_pack("{s:n,s:n}", "engine", "kernel"))) != 0)
            goto out;
    *out = r;
    r = NULL;
out:
    json_decref(r);
    return rc;
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
        {"sysctls", bxa_build_sysctls},
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

/* HostConfig.PortBindings as the predicate's port entries (hostPort null: any port the
 * engine picks; hostIp "" : every address). */
static int configured_ports(bxa_pctx *x, json_t **out)
{
    const json_t *map = bxa_get(x->c, "/HostConfig/PortBindings"), *binds, *b;
    const char *key;
    json_t *r = json_array();
    size_t i;
    int64_t cport, hport;

    *out = NULL;
    if (!r)
        return bxa_oom(x->err);
    json_object_foreach((json_t *)map, key, binds)
    {
        const char *slash = strchr(key, '/');
        if (!slash || port_number(key, &cport) != 0) {
            json_decref(r);
            return bxa_bad(x->err, BXA_CONTAINER, "/HostConfig/PortBindings", "not a port map");
        }
        json_array_foreach(binds, i, b)
        {
            const char *ip = json_string_value(json_object_get(b, "HostIp"));
            const char *hp = json_string_value(json_object_get(b, "HostPort"));
            int any = !hp || !*hp || (port_number(hp, &hport) == 0 && hport == 0);
            if (!any && port_number(hp, &hport) != 0) {
                json_decref(r);
                return bxa_bad(x->err, BXA_CONTAINER, "/HostConfig/PortBindings",
                               "host port is not a number");
            }
            if (bxa_push(x, r,
                         json_pack("{s:s,s:o,s:I,s:s}", "hostIp", ip ? ip : "", "hostPort",
                                   any ? json_null() : json_integer(hport), "containerPort",
                                   (json_int_t)cport, "proto", slash + 1)) != 0) {
                json_decref(r);
                return bxa_oom(x->err);
            }
        }
    }
    if (bxa_sort_array(x, r, cmp_port, 1) != 0) {
        json_decref(r);
        return bxa_oom(x->err);
    }
    *out = r;
    return 0;
}

static int port_matches(const json_t *want, const json_t *got)
{
    const char *wip = bxa_member(want, "hostIp"), *gip = bxa_member(got, "hostIp");
    const json_t *whp = json_object_get(want, "hostPort");

    if (imember(want, "containerPort") != imember(got, "containerPort") ||
        strcmp(bxa_member(want, "proto"), bxa_member(got, "proto")) != 0)
        return 0;
    if (*wip ? strcmp(wip, gip) != 0 : !(!*gip || !strcmp(gip, "0.0.0.0") || !strcmp(gip, "::")))
        return 0;
    return json_is_null(whp) || json_integer_value(whp) == imember(got, "hostPort");
}

static int all_matched(const json_t *a, const json_t *b)
{
    const json_t *x, *y;
    size_t i, j;

    json_array_foreach(a, i, x)
    {
        int found = 0;
        json_array_foreach(b, j, y) found |= port_matches(x, y) || port_matches(y, x);
        if (!found)
            return 0;
    }
    return 1;
}

/* The bindings made (NetworkSettings.Ports) against those asked for (HostConfig.PortBindings):
 * both are the engine's word; the bindings made are recorded. */
int bxa_port_discrepancy(bxa_pctx *x, json_t *disc)
{
    json_t *want = NULL, *got = NULL;
    int rc;

    if ((rc = configured_ports(x, &want)) != 0 || (rc = net_ports(x, &got)) != 0)
        goto out;
    if (!all_matched(want, got) || !all_matched(got, want))
        rc = bxa_push(x, disc,
                      json_pack("{s:s,s:{s:O,s:n,s:n,s:n},s:O,s:s}", "field",
                                "containment.network.ports", "values", "engine", want, "spec",
                                "runtime", "kernel", "recorded", got, "reason",
                                "NetworkSettings.Ports (the bindings made) differ from "
                                "HostConfig.PortBindings"));
out:
    json_decref(want);
    json_decref(got);
    return rc;
}

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
    char manifest[65];
    json_t *disc;
    int rc;

    if ((rc = keep_reply(x, "container", r->raw_container, r->raw_container_len, 1)) != 0 ||
        (rc = keep_reply(x, "image", r->raw_image, r->raw_image_len, 0)) != 0 ||
        (rc = keep_reply(x, "network", r->network ? r->raw_network : NULL, r->raw_network_len,
                         0)) != 0 ||
        (rc = keep_reply(x, "libpod", r->raw_libpod, r->raw_libpod_len, 1)) != 0 ||
        (rc = bxa_evidence_digest(x->ev, BXA_EV_ENGINE, manifest, x->err)) != 0)
        return rc;
    if (!(disc = json_array()))
        return bxa_oom(x->err);
    if ((rc = bxa_port_discrepancy(x, disc)) != 0) {
        json_decref(disc);
        return rc;
    }
    return bxa_packed(x,
                      json_pack_ex(&x->jerr, 0, "{s:s,s:s?,s:n,s:n,s:n,s:o}", "level", "engine",
                                   "engineInspectSha256", manifest[0] ? manifest : NULL,
                                   "kernelSha256", "ociSpecSha256", "sandbox", "discrepancies",
                                   disc),
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

int bxa_build_source(bxa_pctx *x, json_t **out)
{
    *out = !x->o->source_given ? json_null() : json_pack("{s:b}", "dirty", x->o->source_dirty != 0);
    return *out ? 0 : bxa_oom(x->err);
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
