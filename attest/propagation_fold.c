/* SPDX-License-Identifier: Apache-2.0 */
/* containment.propagationPeers (v3): each mount of one session mount namespace that receives
 * mounts from a peer group (shared:N, master:N in its mountinfo), with the mount points of
 * this host's mountinfo in that group that are not the session's own root file system. A
 * mount made later at one of those points appears inside the session. */
#include "attest_internal.h"

#include <stdlib.h>
#include <string.h>

/* The host mount point of the session's root file system: the OCI spec's root.path, kept
 * only when this host shows a mount there of the same file system (device) as the session's
 * root mount m; without one (no spec found: an engine whose runtime state is not where the
 * collector looks), the one mount of this host of the session root's overlay (an overlay's
 * device is its own instance; two mounts of it, one may be a bind elsewhere: neither is
 * taken). NULL when not shown so: then the root's own group counts as outside. */
static const char *own_root(const bxa_kctx *k, const bxa_mount *m, size_t n)
{
    const char *path =
        json_string_value(json_object_get(json_object_get(k->spec_json, "root"), "path"));
    const bxa_mount *sr = bxa_mount_at(m, n, "/"), *hr, *only = NULL;
    size_t same = 0;

    if (!sr)
        return NULL;
    if (path && path[0] == '/' && (hr = bxa_mount_at(k->hm, k->nhm, path)) &&
        hr->major == sr->major && hr->minor == sr->minor)
        return hr->point;
    if (!sr->root || strcmp(sr->root, "/") != 0) /* a folder of a file system, not its root */
        return NULL;
    for (size_t i = 0; i < k->nhm; i++)
        if (k->hm[i].major == sr->major && k->hm[i].minor == sr->minor) {
            same++;
            only = &k->hm[i];
        }
    return same == 1 && only->fstype && strcmp(only->fstype, "overlay") == 0 && only->root &&
                   strcmp(only->root, "/") == 0
               ? only->point
               : NULL;
}

static int cmp_peer(const void *a, const void *b)
{
    const json_t *x = *(json_t *const *)a, *y = *(json_t *const *)b;
    int c = strcmp(json_string_value(json_object_get(x, "destination")),
                   json_string_value(json_object_get(y, "destination")));
    return c ? c
             : strcmp(json_string_value(json_object_get(x, "propagation")),
                      json_string_value(json_object_get(y, "propagation")));
}

/* entry for one session mount: its propagation and the host points outside (NULL: null) */
static json_t *entry(const bxa_mount *e, const char **pts, size_t npts, int known)
{
    json_t *out = known ? json_array() : json_null();
    json_t *v;

    for (size_t j = 0; out && j < npts; j++)
        if (json_array_append_new(out, json_string(pts[j])) != 0) {
            json_decref(out);
            return NULL;
        }
    if (out && known)
        bxa_sort_strings(out);
    /* a group may show one point twice (a mount stacked on its peer): once is enough */
    for (size_t j = 1; out && known && j < json_array_size(out);)
        if (json_equal(json_array_get(out, j), json_array_get(out, j - 1)))
            json_array_remove(out, j);
        else
            j++;
    v = out ? json_pack("{s:s,s:o,s:s}", "destination", e->point, "outside", out, "propagation",
                        e->optional)
            : NULL;
    return v;
}

int bxa_fold_propagation(bxa_kctx *k, json_t **peers, const bxa_mount *m, size_t n)
{
    const char *own[1];
    size_t nown = 0;

    if (!*peers)
        return 0;
    if (!k->hm) { /* this host's mountinfo not read: no group can be resolved */
        json_decref(*peers);
        *peers = NULL;
        return 0;
    }
    if ((own[0] = own_root(k, m, n)))
        nown = 1;
    for (size_t i = 0; i < n; i++) {
        bxa_propagation p;
        bx_error ignored = {0};
        const char **pts = NULL;
        size_t npts = 0;
        int known = 1, dup = 0;
        json_t *v, *x;
        size_t j;

        if (!m[i].optional || !m[i].optional[0])
            continue;
        if (bxa_parse_propagation(m[i].optional, &p, &ignored) != 0)
            known = 0; /* not a field the kernel writes: recorded, its group unknown */
        else if (!bxa_propagation_receives(&p))
            continue;
        else if (bxa_propagation_outside(&p, k->hm, k->nhm, own, nown, &pts, &npts, &ignored) !=
                 0) {
            if (ignored.code == BX_ENOMEM)
                return bxa_oom(k->err);
            known = 0; /* a host line that is not one: the group is not known */
        }
        v = entry(&m[i], pts, npts, known);
        free(pts);
        if (!v)
            return bxa_oom(k->err);
        json_array_foreach(*peers, j, x) dup |= json_equal(x, v);
        if (!dup && json_array_append(*peers, v) != 0) {
            json_decref(v);
            return bxa_oom(k->err);
        }
        json_decref(v);
    }
    bxa_sort_json(*peers, cmp_peer);
    return 0;
}
