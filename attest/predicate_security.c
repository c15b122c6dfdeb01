/* SPDX-License-Identifier: Apache-2.0 */
/* The security options of the engine-level predicate: HostConfig.SecurityOpt parsed once
 * (split as the engine splits it), then noNewPrivileges, seccomp, apparmor and selinux,
 * and the write surface that depends on them. seccomp: runsc without --oci-seccomp in the
 * engine's runtime config applies no OCI filter (mode disabled); a runtime the engine does
 * not describe gives mode null. selinux: label=disable gives label null, never a label
 * named "disable"; otherwise ProcessLabel, else the label= options joined with ",". A
 * security option this code does not understand is BX_EUNSUPPORTED. */
#include "attest_internal.h"

#include <stdlib.h>
#include <string.h>

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
                      json_pack_ex(&x->jerr, 0, "{s:s?,s:o,s:n}", "profile",
                                   prof && *prof ? prof : NULL, "available",
                                   tri_bool(bxa_info_secopt(x, "apparmor", NULL)), "kernel"),
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
