/* SPDX-License-Identifier: Apache-2.0 */
/* Docker's seccomp profile format to the OCI linux.seccomp object, as moby's
 * profiles/seccomp setupSeccomp builds it for one container: the archMap entry of the
 * machine's arch, and the rules whose includes/excludes (arches, caps, minKernel) fit. */
#include "seccomp_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const bx_seccomp_docker_default_caps[] = {"CAP_CHOWN",
                                                      "CAP_DAC_OVERRIDE",
                                                      "CAP_FSETID",
                                                      "CAP_FOWNER",
                                                      "CAP_MKNOD",
                                                      "CAP_NET_RAW",
                                                      "CAP_SETGID",
                                                      "CAP_SETUID",
                                                      "CAP_SETFCAP",
                                                      "CAP_SETPCAP",
                                                      "CAP_NET_BIND_SERVICE",
                                                      "CAP_SYS_CHROOT",
                                                      "CAP_KILL",
                                                      "CAP_AUDIT_WRITE",
                                                      NULL};

/* moby's goArchToSeccompArchMap, for the arches a table can be built on. */
static const char *goarch_seccomp(const char *goarch)
{
    static const char *const map[][2] = {
        {"386", "SCMP_ARCH_X86"},           {"amd64", "SCMP_ARCH_X86_64"},
        {"arm", "SCMP_ARCH_ARM"},           {"arm64", "SCMP_ARCH_AARCH64"},
        {"mips64", "SCMP_ARCH_MIPS64"},     {"mips64n32", "SCMP_ARCH_MIPS64N32"},
        {"mipsel64", "SCMP_ARCH_MIPSEL64"}, {"mipsel64n32", "SCMP_ARCH_MIPSEL64N32"},
        {"mipsle", "SCMP_ARCH_MIPSEL"},     {"ppc", "SCMP_ARCH_PPC"},
        {"ppc64", "SCMP_ARCH_PPC64"},       {"ppc64le", "SCMP_ARCH_PPC64LE"},
        {"riscv64", "SCMP_ARCH_RISCV64"},   {"s390", "SCMP_ARCH_S390"},
        {"s390x", "SCMP_ARCH_S390X"}};
    for (size_t i = 0; i < sizeof map / sizeof map[0]; i++) {
        if (strcmp(map[i][0], goarch) == 0)
            return map[i][1];
    }
    return NULL;
}

static int in_strings(const json_t *arr, const char *s)
{
    size_t i;
    json_t *v;
    json_array_foreach(arr, i, v)
    {
        if (json_is_string(v) && strcmp(json_string_value(v), s) == 0)
            return 1;
    }
    return 0;
}

static int has_cap(const char *const *caps, const char *c)
{
    for (size_t i = 0; caps && caps[i]; i++) {
        if (strcmp(caps[i], c) == 0)
            return 1;
    }
    return 0;
}

/* 1 when the kernel kmajor.kminor is at least "MAJOR.MINOR" (moby's kernelGreaterEqualThan);
 * -1 for a malformed version. */
static int kernel_at_least(const json_t *v, int kmajor, int kminor)
{
    const char *s = json_string_value(v);
    int ma, mi, n = 0;
    if (!s || sscanf(s, "%d.%d%n", &ma, &mi, &n) != 2 || s[n] != '\0' || ma < 0 || mi < 0)
        return -1;
    return kmajor > ma || (kmajor == ma && kminor >= mi);
}

/* 1 when the rule applies to this container, 0 when not, <0 on a malformed filter. */
static int applies(const json_t *call, const char *goarch, const char *const *caps, int kmajor,
                   int kminor, bx_error *err, const char *ptr)
{
    static const char *const keys[] = {"arches", "caps", "minKernel"};
    const json_t *ex = json_object_get(call, "excludes"), *in = json_object_get(call, "includes");
    size_t i;
    json_t *v;

    for (int side = 0; side < 2; side++) {
        const json_t *f = side ? in : ex;
        const char *k;
        if (!f || json_is_null(f))
            continue;
        if (!json_is_object(f))
            return bx_error_set(err, BX_EINVAL, ptr, "includes/excludes must be objects");
        json_object_foreach((json_t *)f, k, v)
        {
            if (strcmp(k, keys[0]) && strcmp(k, keys[1]) && strcmp(k, keys[2]))
                return bx_error_set(err, BX_EINVAL, ptr, "unknown member \"%s\"", k);
            if (strcmp(k, "minKernel") && !json_is_array(v) && !json_is_null(v))
                return bx_error_set(err, BX_EINVAL, ptr, "\"%s\" must be an array", k);
        }
        const json_t *arches = json_object_get(f, "arches"), *cs = json_object_get(f, "caps");
        const json_t *mk = json_object_get(f, "minKernel");
        int ge = mk && !json_is_null(mk) ? kernel_at_least(mk, kmajor, kminor) : 0;
        if (ge < 0)
            return bx_error_set(err, BX_EINVAL, ptr, "minKernel must be \"MAJOR.MINOR\"");
        if (!side) { /* excludes */
            if (json_array_size(arches) && in_strings(arches, goarch))
                return 0;
            json_array_foreach(cs, i, v)
            {
                if (json_is_string(v) && has_cap(caps, json_string_value(v)))
                    return 0;
            }
            if (mk && !json_is_null(mk) && ge)
                return 0;
        } else { /* includes */
            if (json_array_size(arches) && !in_strings(arches, goarch))
                return 0;
            json_array_foreach(cs, i, v)
            {
                if (!json_is_string(v) || !has_cap(caps, json_string_value(v)))
                    return 0;
            }
            if (mk && !json_is_null(mk) && !ge)
                return 0;
        }
    }
    return 1;
}

int bx_seccomp_docker_to_oci(const json_t *profile, const char *goarch, const char *const *caps,
                             int kmajor, int kminor, json_t **out, bx_error *err)
{
    static const char *const keys[] = {"defaultAction", "defaultErrnoRet",  "architectures",
                                       "archMap",       "syscalls",         "flags",
                                       "listenerPath",  "listenerMetadata", NULL};
    static const char *const callkeys[] = {"names",   "name",     "action",   "errnoRet", "args",
                                           "comment", "includes", "excludes", NULL};
    const char *native = goarch ? goarch_seccomp(goarch) : NULL;
    json_t *oci = NULL, *archs = NULL, *calls = NULL, *v, *m;
    const char *k;
    size_t i, j;
    char ptr[64];
    int rc = BX_EIO;

    *out = NULL;
    if (!json_is_object(profile))
        return bx_error_set(err, BX_EINVAL, "", "the profile must be an object");
    if (!native)
        return bx_error_set(err, BX_EINVAL, NULL, "unknown goarch \"%s\"", goarch ? goarch : "");
    json_object_foreach((json_t *)profile, k, v)
    {
        int known = 0;
        for (i = 0; keys[i] && !known; i++)
            known = strcmp(keys[i], k) == 0;
        if (!known)
            return bx_error_set(err, BX_EINVAL, "", "unknown member \"%s\"", k);
    }
    if (!(oci = json_object()) || !(archs = json_array()) || !(calls = json_array()))
        goto oom;
    const char *copy[] = {"defaultAction", "defaultErrnoRet", "flags", "listenerPath",
                          "listenerMetadata"};
    for (i = 0; i < sizeof copy / sizeof copy[0]; i++) {
        if ((v = json_object_get(profile, copy[i])) && json_object_set(oci, copy[i], v))
            goto oom;
    }
    v = json_object_get(profile, "architectures");
    m = json_object_get(profile, "archMap");
    if (json_array_size(v) && json_array_size(m)) {
        rc = bx_error_set(err, BX_EINVAL, "", "architectures and archMap are exclusive");
        goto out;
    }
    if (json_array_size(v)) {
        if (json_array_extend(archs, v))
            goto oom;
    } else {
        json_array_foreach(m, i, v)
        {
            const char *a = json_string_value(json_object_get(v, "architecture"));
            if (!a || strcmp(a, native) != 0)
                continue;
            if (json_array_append_new(archs, json_string(a)))
                goto oom;
            json_t *subs = json_object_get(v, "subArchitectures");
            if (json_is_array(subs) && json_array_extend(archs, subs))
                goto oom;
        }
    }
    if (json_object_set(oci, "architectures", archs))
        goto oom;
    json_array_foreach(json_object_get(profile, "syscalls"), i, v)
    {
        snprintf(ptr, sizeof ptr, "/syscalls/%zu", i);
        if (!json_is_object(v)) {
            rc = bx_error_set(err, BX_EINVAL, ptr, "must be an object");
            goto out;
        }
        json_object_foreach(v, k, m)
        {
            int known = 0;
            for (j = 0; callkeys[j] && !known; j++)
                known = strcmp(callkeys[j], k) == 0;
            if (!known) {
                rc = bx_error_set(err, BX_EINVAL, ptr, "unknown member \"%s\"", k);
                goto out;
            }
        }
        int ap = applies(v, goarch, caps, kmajor, kminor, err, ptr);
        if (ap < 0) {
            rc = ap;
            goto out;
        }
        if (!ap)
            continue;
        json_t *call = json_object(), *names = json_object_get(v, "names");
        if (!call || json_array_append_new(calls, call))
            goto oom;
        if (!names && json_is_string(json_object_get(v, "name"))) { /* the old single name */
            json_t *one = json_pack("[O]", json_object_get(v, "name"));
            if (!one || json_object_set_new(call, "names", one))
                goto oom;
        } else if (names && json_object_set(call, "names", names)) {
            goto oom;
        }
        const char *fields[] = {"action", "errnoRet", "args"};
        for (j = 0; j < 3; j++) {
            if ((m = json_object_get(v, fields[j])) && json_object_set(call, fields[j], m))
                goto oom;
        }
    }
    if (json_object_set(oci, "syscalls", calls))
        goto oom;
    *out = oci;
    oci = NULL;
    rc = 0;
    goto out;
oom:
    rc = bx_error_set(err, BX_ENOMEM, NULL, "out of memory");
out:
    json_decref(oci);
    json_decref(archs);
    json_decref(calls);
    return rc;
}
