/* SPDX-License-Identifier: Apache-2.0 */
/* Who observed what, when and where: the predicate's collector, issuedAt and expiresAt,
 * nonce, host (hostname, boot id), engine, session, image, source and the runtime as the
 * engine describes it (/info Runtimes), built from the engine's replies. The runtime's
 * arguments a runsc sandbox really started with replace these when the kernel view reads
 * them (reconcile.c). */
#include "attest_internal.h"

#include <ctype.h>
#include <fcntl.h>
#include <limits.h>
#include <string.h>
#include <unistd.h>
#include <openssl/rand.h>

#define BOOT_ID_PATH "/proc/sys/kernel/random/boot_id"

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

/* ---- engine, session, image, source --------------------------------------------- */

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

/* State.StartedAt to the nanosecond (predicate v2): two starts within one second are two
 * starts. Written canonically (no trailing zeros, as Docker writes it). */
static int started_at(bxa_pctx *x, char out[31])
{
    const char *s;
    int64_t t;
    int32_t ns;
    int frac, rc = bxa_str(x->c, BXA_CONTAINER, "/State/StartedAt", 1, &s, x->err);

    if (rc != 0)
        return rc;
    if (bx_time_parse_ns(s, &t, &ns, &frac, x->err) != 0)
        return bxa_bad(x->err, BXA_CONTAINER, "/State/StartedAt",
                       "not an RFC 3339 UTC time (at most 9 digits of a second)");
    bx_time_format_ns(t, ns, out);
    return 0;
}

int bxa_build_session(bxa_pctx *x, json_t **out)
{
    const char *id, *name;
    const json_t *execs = bxa_get(x->c, "/ExecIDs");
    json_t *lab = NULL, *rp = NULL;
    char started[31];
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

int bxa_build_source(bxa_pctx *x, json_t **out)
{
    json_t *ign;

    if (!x->o->source_given) {
        *out = json_null();
        return 0;
    }
    if (!(ign = json_array()))
        return bxa_oom(x->err);
    for (unsigned b = 0; bx_source_ignored_names[b]; b++)
        if ((x->o->source_ignored & (1u << b)) &&
            json_array_append_new(ign, json_string(bx_source_ignored_names[b])) != 0) {
            json_decref(ign);
            return bxa_oom(x->err);
        }
    *out = json_pack("{s:b, s:o}", "dirty", x->o->source_dirty != 0, "ignored", ign);
    return *out ? 0 : bxa_oom(x->err);
}

/* ---- containment.runtime ---------------------------------------------------------- */

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
