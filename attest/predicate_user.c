/* SPDX-License-Identifier: Apache-2.0 */
/* containment.user and containment.namespaces from the engine's replies. The user is the
 * spec as given (Config.User): the ids come from the kernel or the OCI spec. A namespace's
 * engine mode is the HostConfig mode; empty means the engine's default: "private" for pid,
 * ipc, uts; net "private" unless host or container:<id>; user "host" unless the daemon
 * remaps (/info SecurityOptions name=userns); cgroup "host" on cgroup v1. */
#include "attest_internal.h"

#include <string.h>

/* ---- containment: user, namespaces ------------------------------------------- */

int bxa_build_user(bxa_pctx *x, json_t **out)
{
    const char *spec;
    int rc = bxa_str(x->c, BXA_CONTAINER, "/Config/User", 0, &spec, x->err);

    if (rc != 0)
        return rc;
    return bxa_packed(x,
                      json_pack_ex(&x->jerr, 0, "{s:s,s:n,s:n,s:n,s:n,s:n,s:n,s:n}", "spec",
                                   spec ? spec : "", "uids", "gids", "groups", "everyUid",
                                   "everyGid", "everyGroup", "inNamespace"),
                      out);
}

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
    /* the engine always makes a mount namespace, and Docker never a time namespace */
    return bxa_packed(x,
                      json_pack_ex(&x->jerr, 0,
                                   "{s:{s:s,s:n,s:n},s:{s:s,s:n,s:n},s:{s:s,s:n,s:n},"
                                   "s:{s:s?,s:n,s:n},s:{s:s,s:n,s:n},s:{s:s,s:n,s:n},"
                                   "s:{s:s,s:n,s:n},s:{s:s,s:n,s:n}}",
                                   "pid", "engine", pid, "kernel", "shared", "ipc", "engine", ipc,
                                   "kernel", "shared", "uts", "engine", uts, "kernel", "shared",
                                   "net", "engine", net, "kernel", "shared", "user", "engine",
                                   user, "kernel", "shared", "cgroup", "engine", cg, "kernel",
                                   "shared", "mnt", "engine", "private", "kernel", "shared",
                                   "time", "engine", "host", "kernel", "shared"),
                      out);
}
