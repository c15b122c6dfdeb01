/* SPDX-License-Identifier: Apache-2.0 */
/* What the session can write and reach on the file system, from the engine's replies:
 * rootfs, writeSurface, mounts, devices, maskedPaths and readonlyPaths. writeSurface also
 * lists the mounts the engine makes read-write in every session (kind "engine", see
 * surface_engine), so a policy on writable paths is not satisfied by leaving them out. A
 * mount type this code does not understand is BX_EUNSUPPORTED. */
#include "attest_internal.h"

#include <ctype.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

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

/* ---- containment: rootfs, write surface, mounts, devices, paths ----------------- */

int bxa_build_rootfs(bxa_pctx *x, json_t **out)
{
    int ro, rc = bxa_bool(x->c, BXA_CONTAINER, "/HostConfig/ReadonlyRootfs", 0, &ro, x->err);

    if (rc != 0)
        return rc;
    return bxa_packed(
        x, json_pack_ex(&x->jerr, 0, "{s:o}", "readOnly", ro < 0 ? json_null() : json_boolean(ro)),
        out);
}

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

/* src with "//", "/./" and "/../" taken out by their text alone; the link a path runs
 * through is not followed ("/.." of "/" is "/"). */
static json_t *lexical_path(const char *src)
{
    size_t n = strlen(src), len = 0;
    char *out = malloc(n + 2);
    json_t *r;

    if (!out)
        return NULL;
    for (const char *p = src; *p;) {
        while (*p == '/')
            p++;
        const char *e = strchr(p, '/');
        size_t k = e ? (size_t)(e - p) : strlen(p);
        if (k == 0)
            break;
        if (k == 1 && p[0] == '.') {
            /* nothing */
        } else if (k == 2 && p[0] == '.' && p[1] == '.') {
            while (len > 0 && out[--len] != '/')
                ;
        } else {
            out[len++] = '/';
            memcpy(out + len, p, k);
            len += k;
        }
        p += k;
    }
    if (len == 0)
        out[len++] = '/';
    r = json_stringn(out, len);
    free(out);
    return r;
}

/* The host path of a bind's source. With an engine on this host (a unix socket), the
 * canonical path, links resolved here; with a remote engine (tcp://) this host's links say
 * nothing about the engine's, so the path as given, made lexical only (as is a path that no
 * longer resolves here). A source that is not an absolute path (none: "") as given. */
static json_t *canonical_source(const bxa_pctx *x, const char *src)
{
    char buf[PATH_MAX];
    json_t *r = NULL;
    int local = !x->endpoint || strncmp(x->endpoint, "unix://", 7) == 0 || x->endpoint[0] == '/';

    if (src && src[0] == '/' && local && realpath(src, buf))
        r = json_string(buf); /* NULL when the host's path is not UTF-8 */
    else if (src && src[0] == '/') /* remote, or gone from this host: lexical only */
        r = lexical_path(src);
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
                                   canonical_source(x, src), "sourceAsGiven", src ? src : "",
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
                      json_pack_ex(&x->jerr, 0, "{s:o,s:o,s:b,s:n,s:n,s:n,s:n}", "devices", devs,
                                   "cgroupRules", rules, "allowAll", x->privileged, "nodes",
                                   "nodesAnywhere", "walk", "mknod"),
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

int bxa_build_masked(bxa_pctx *x, json_t **out)
{
    return path_list(x, "/HostConfig/MaskedPaths", out);
}

int bxa_build_readonly_paths(bxa_pctx *x, json_t **out)
{
    return path_list(x, "/HostConfig/ReadonlyPaths", out);
}
