/* SPDX-License-Identifier: Apache-2.0 */
/* Capability arithmetic: bit sets to names and back (the names and Docker's default set
 * are schema/'s, containment.c), and containment.capabilities as Docker 20.10 computes it
 * from HostConfig.CapAdd and CapDrop (daemon/caps TweakCapabilities): ALL in add (minus
 * drop) wins over ALL in drop; privileged is every capability its library knows. */
#include "attest_internal.h"

#include <ctype.h>
#include <string.h>

/* The capability names and Docker's default set are schema/'s (containment.c): one list. */
#define cap_names bx_cap_names
#define CAP_COUNT BX_CAP_COUNT
/* "ALL" and privileged, as Docker before 23 reads them: every capability its library knows,
 * CAP_CHOWN (0) to CAP_AUDIT_READ (37); PERFMON, BPF and CHECKPOINT_RESTORE (38-40) are
 * newer than it (its OCI specs never list them). From Docker 23 on, every capability the
 * host's kernel has: at the engine's level that kernel is not read, so every one boxcert
 * knows (0-40), the most the session may hold (the kernel's view, where read, wins). */
#define CAP_ALL_BITS_OLD ((UINT64_C(1) << 38) - 1)
#define CAP_ALL_BITS_NEW ((UINT64_C(1) << CAP_COUNT) - 1)
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

/* What "ALL" and privileged give: Docker 23 and later, every capability (above); Docker
 * before 23 and any other engine (Podman), the 38 of Docker 20.10's library. An engine
 * version that does not start with a number is taken as the newer (the larger set). */
static uint64_t cap_all_bits(const bxa_pctx *x)
{
    const char *v = json_string_value(json_object_get(x->version, "Version"));
    long major = 0;

    if (x->libpod)
        return CAP_ALL_BITS_OLD;
    if (!v || !isdigit((unsigned char)v[0]))
        return CAP_ALL_BITS_NEW;
    for (; isdigit((unsigned char)*v) && major < 1000; v++)
        major = major * 10 + (*v - '0');
    return major >= 23 ? CAP_ALL_BITS_NEW : CAP_ALL_BITS_OLD;
}

/* The set Docker gives the container (daemon/caps TweakCapabilities): ALL in add wins
 * (minus drop), then ALL in drop (only add), else defaults - drop + add. */
static uint64_t cap_effective(uint64_t all, int privileged, uint64_t add, int add_all,
                              uint64_t drop, int drop_all)
{
    if (privileged)
        return all;
    if (add_all)
        return all & ~drop;
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
    eff = cap_names_of(cap_effective(cap_all_bits(x), x->privileged, addb, add_all, dropb, drop_all));
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
