/* SPDX-License-Identifier: Apache-2.0 */
/* containment.resources and containment.sysctls from the engine's replies: the cgroup
 * limits as HostConfig sets them (0, -1 and absent are no limit: null), and the sysctls
 * the engine sets with the watched ones, whose kernel and spec values come in
 * reconciliation. */
#include "attest_internal.h"

#include <stdlib.h>
#include <string.h>

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

/* A CPU or memory-node set the engine was asked for: "" or absent is every one (null). */
static int cpuset(bxa_pctx *x, json_t *res, const char *name, const char *key)
{
    char ptr[64], *canon;
    const char *v;
    bx_error e;
    int rc;

    snprintf(ptr, sizeof ptr, "/HostConfig/%s", key);
    if ((rc = bxa_str(x->c, BXA_CONTAINER, ptr, 0, &v, x->err)) != 0)
        return rc;
    if (!v || !*v)
        return bxa_set(x, res, name, json_null());
    if (!(canon = malloc(BXA_CPULIST_LEN)))
        return bxa_oom(x->err);
    if (bxa_parse_cpulist(v, strlen(v), canon, BXA_CPULIST_LEN, &e) != 0) {
        free(canon);
        return bxa_bad(x->err, BXA_CONTAINER, ptr, e.msg);
    }
    rc = bxa_set(x, res, name, json_string(canon));
    free(canon);
    return rc;
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
        rc = cpuset(x, res, "cpusetCpus", "CpusetCpus");
    if (rc == 0)
        rc = cpuset(x, res, "cpusetMems", "CpusetMems");
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
