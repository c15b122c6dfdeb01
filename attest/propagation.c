/* SPDX-License-Identifier: Apache-2.0 */
/* Mount propagation as mountinfo shows it: a mount's optional fields (shared:N, master:N,
 * propagate_from:N, unbindable) and, for a mount that receives mounts from a peer group,
 * the mount points of this host's mountinfo in that group that are not the session's own.
 * Peer group ids are the kernel's, the same in every mount namespace, so a session mount's
 * master:N names the host mounts that show shared:N. */
#include "attest_internal.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

/* A peer group id: decimal digits only, positive, within int64. 0 when it is not one. */
static int64_t group_id(const char *s, size_t len)
{
    int64_t v = 0;
    if (len == 0 || len > 18 || s[0] == '0')
        return 0;
    for (size_t i = 0; i < len; i++) {
        if (s[i] < '0' || s[i] > '9')
            return 0;
        v = v * 10 + (s[i] - '0');
    }
    return v;
}

int bxa_parse_propagation(const char *optional, bxa_propagation *out, bx_error *err)
{
    static const struct {
        const char *tag;
        size_t off;
    } tags[] = {
        {"shared:", offsetof(bxa_propagation, shared)},
        {"master:", offsetof(bxa_propagation, master)},
        {"propagate_from:", offsetof(bxa_propagation, propagate_from)},
    };
    memset(out, 0, sizeof *out);
    const char *p = optional ? optional : "";
    while (*p) {
        if (*p == ' ') {
            p++;
            continue;
        }
        size_t len = strcspn(p, " ");
        int known = 0;
        if (len == 10 && memcmp(p, "unbindable", 10) == 0) {
            if (out->unbindable)
                return bx_error_set(err, BX_EINVAL, "mountinfo", "optional field unbindable twice");
            out->unbindable = 1;
            known = 1;
        }
        for (size_t t = 0; !known && t < sizeof tags / sizeof *tags; t++) {
            size_t tl = strlen(tags[t].tag);
            if (len <= tl || memcmp(p, tags[t].tag, tl) != 0)
                continue;
            int64_t *slot = (int64_t *)((char *)out + tags[t].off);
            int64_t id = group_id(p + tl, len - tl);
            if (id == 0)
                return bx_error_set(err, BX_EINVAL, "mountinfo",
                                    "optional field %.*s: bad peer group", (int)len, p);
            if (*slot != 0)
                return bx_error_set(err, BX_EINVAL, "mountinfo", "optional field %.*s twice",
                                    (int)tl - 1, p);
            *slot = id;
            known = 1;
        }
        if (!known)
            return bx_error_set(err, BX_EINVAL, "mountinfo", "optional field %.*s is not known",
                                (int)len, p);
        p += len;
    }
    /* The kernel writes propagate_from only after master, and clears shared and master
     * when it makes a mount unbindable. */
    if (out->propagate_from && !out->master)
        return bx_error_set(err, BX_EINVAL, "mountinfo", "propagate_from without master");
    if (out->unbindable && (out->shared || out->master))
        return bx_error_set(err, BX_EINVAL, "mountinfo", "unbindable with shared or master");
    return 0;
}

int bxa_propagation_receives(const bxa_propagation *p)
{
    return p->shared != 0 || p->master != 0;
}

/* 1 when host mount h is in one of the groups p receives from: its peers (shared:N equal to
 * p's shared), its master's group, or the dominant group propagate_from names. */
static int in_groups(const bxa_propagation *p, const bxa_propagation *h)
{
    if (h->shared == 0)
        return 0;
    return (p->shared && h->shared == p->shared) || (p->master && h->shared == p->master) ||
           (p->propagate_from && h->shared == p->propagate_from);
}

int bxa_propagation_outside(const bxa_propagation *p, const bxa_mount *hm, size_t nhm,
                            const char *const *own, size_t nown, const char ***points, size_t *n,
                            bx_error *err)
{
    *points = NULL;
    *n = 0;
    if (!bxa_propagation_receives(p))
        return 0;
    const char **v = calloc(nhm ? nhm : 1, sizeof *v);
    if (!v)
        return bx_error_set(err, BX_ENOMEM, "propagation", "out of memory");
    size_t k = 0;
    for (size_t i = 0; i < nhm; i++) {
        bxa_propagation h;
        bx_error ignored = {0};
        if (bxa_parse_propagation(hm[i].optional, &h, &ignored) != 0) {
            free(v);
            return bx_error_set(err, BX_EINVAL, "mountinfo", "host mount %lld: %s",
                                (long long)hm[i].id, ignored.msg);
        }
        if (!in_groups(p, &h))
            continue;
        int mine = 0;
        for (size_t j = 0; j < nown && !mine; j++)
            mine = own[j] && bxa_path_within(own[j], hm[i].point);
        if (!mine)
            v[k++] = hm[i].point;
    }
    if (k == 0) {
        free(v);
        return 0;
    }
    *points = v;
    *n = k;
    return 0;
}
