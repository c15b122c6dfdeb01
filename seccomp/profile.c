/* SPDX-License-Identifier: Apache-2.0 */
/* An OCI runtime spec's linux.seccomp object compiled with libseccomp the way runc does
 * (libcontainer/seccomp/seccomp_linux.go), and its verdict table. */
#include "seccomp_internal.h"

#include <ctype.h>
#include <errno.h>
#include <seccomp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define PROFILE_MAX_INSNS 65536 /* what we read back; the kernel takes at most 4096 */

static int only_keys(const json_t *o, const char *const *keys, const char *ptr, bx_error *err)
{
    const char *k;
    json_t *v;

    json_object_foreach((json_t *)o, k, v)
    {
        int known = 0;
        for (size_t i = 0; keys[i] && !known; i++)
            known = strcmp(k, keys[i]) == 0;
        if (!known)
            return bx_error_set(err, BX_EINVAL, ptr, "unknown member \"%s\"", k);
    }
    return 0;
}

static int get_u16(const json_t *v, const char *ptr, int *present, uint32_t *out, bx_error *err)
{
    *present = 0;
    if (!v || json_is_null(v))
        return 0;
    if (!json_is_integer(v) || json_integer_value(v) < 0 || json_integer_value(v) > 0xffff)
        return bx_error_set(err, BX_EINVAL, ptr, "must be an integer 0..65535");
    *present = 1;
    *out = (uint32_t)json_integer_value(v);
    return 0;
}

/* runc's getAction: ERRNO and TRACE carry errnoRet, else EPERM. */
static int parse_action(const json_t *v, const json_t *errno_ret, const char *ptr, const char *eptr,
                        uint32_t *out, bx_error *err)
{
    const char *s = json_string_value(v);
    uint32_t data = EPERM;
    int has = 0, rc;

    if (!s)
        return bx_error_set(err, BX_EINVAL, ptr, "must be a string");
    if ((rc = get_u16(errno_ret, eptr, &has, &data, err)) != 0)
        return rc;
    if (!has)
        data = EPERM;
    if (!strcmp(s, "SCMP_ACT_KILL") || !strcmp(s, "SCMP_ACT_KILL_THREAD"))
        *out = SCMP_ACT_KILL_THREAD;
    else if (!strcmp(s, "SCMP_ACT_KILL_PROCESS"))
        *out = SCMP_ACT_KILL_PROCESS;
    else if (!strcmp(s, "SCMP_ACT_TRAP"))
        *out = SCMP_ACT_TRAP;
    else if (!strcmp(s, "SCMP_ACT_ERRNO"))
        *out = SCMP_ACT_ERRNO(data);
    else if (!strcmp(s, "SCMP_ACT_TRACE"))
        *out = SCMP_ACT_TRACE(data);
    else if (!strcmp(s, "SCMP_ACT_ALLOW"))
        *out = SCMP_ACT_ALLOW;
    else if (!strcmp(s, "SCMP_ACT_LOG"))
        *out = SCMP_ACT_LOG;
    else if (!strcmp(s, "SCMP_ACT_NOTIFY"))
        *out = SCMP_ACT_NOTIFY;
    else
        return bx_error_set(err, BX_EINVAL, ptr, "unknown action \"%s\"", s);
    return 0;
}

static int parse_op(const char *s, enum scmp_compare *op)
{
    static const struct {
        const char *name;
        enum scmp_compare op;
    } ops[] = {{"SCMP_CMP_NE", SCMP_CMP_NE},
               {"SCMP_CMP_LT", SCMP_CMP_LT},
               {"SCMP_CMP_LE", SCMP_CMP_LE},
               {"SCMP_CMP_EQ", SCMP_CMP_EQ},
               {"SCMP_CMP_GE", SCMP_CMP_GE},
               {"SCMP_CMP_GT", SCMP_CMP_GT},
               {"SCMP_CMP_MASKED_EQ", SCMP_CMP_MASKED_EQ}};
    for (size_t i = 0; s && i < sizeof ops / sizeof ops[0]; i++) {
        if (strcmp(s, ops[i].name) == 0) {
            *op = ops[i].op;
            return 0;
        }
    }
    return -1;
}

static int get_u64(const json_t *v, uint64_t *out)
{
    if (!json_is_integer(v) || json_integer_value(v) < 0)
        return -1;
    *out = (uint64_t)json_integer_value(v);
    return 0;
}

static int parse_args(const json_t *args, const char *ptr, struct scmp_arg_cmp *cmp, size_t *n,
                      int *repeated, bx_error *err)
{
    static const char *const keys[] = {"index", "value", "valueTwo", "op", NULL};
    unsigned counts[6] = {0};
    char where[160];
    size_t i;
    json_t *a;

    *n = 0;
    *repeated = 0;
    if (!args || json_is_null(args))
        return 0;
    if (!json_is_array(args) || json_array_size(args) > 6 * 8)
        return bx_error_set(err, BX_EINVAL, ptr, "must be an array of at most 48 conditions");
    json_array_foreach(args, i, a)
    {
        json_t *idx = json_object_get(a, "index");
        uint64_t value = 0, two = 0;
        enum scmp_compare op;
        int rc;
        snprintf(where, sizeof where, "%s/%zu", ptr, i);
        if (!json_is_object(a))
            return bx_error_set(err, BX_EINVAL, where, "must be an object");
        if ((rc = only_keys(a, keys, where, err)) != 0)
            return rc;
        if (!json_is_integer(idx) || json_integer_value(idx) < 0 || json_integer_value(idx) > 5)
            return bx_error_set(err, BX_EINVAL, where, "index must be 0..5");
        if (get_u64(json_object_get(a, "value"), &value) != 0)
            return bx_error_set(err, BX_EINVAL, where, "value must be an unsigned integer");
        if (json_object_get(a, "valueTwo") && get_u64(json_object_get(a, "valueTwo"), &two) != 0)
            return bx_error_set(err, BX_EINVAL, where, "valueTwo must be an unsigned integer");
        if (parse_op(json_string_value(json_object_get(a, "op")), &op) != 0)
            return bx_error_set(err, BX_EINVAL, where, "unknown or missing op");
        unsigned arg = (unsigned)json_integer_value(idx);
        if (++counts[arg] > 1)
            *repeated = 1;
        cmp[*n] = (struct scmp_arg_cmp){arg, op, value, two};
        (*n)++;
    }
    return 0;
}

static int arch_token(const char *s, uint32_t *tok)
{
    char low[64];
    size_t i;

    if (!s || strncmp(s, "SCMP_ARCH_", 10) != 0 || strlen(s) - 10 >= sizeof low)
        return BX_EINVAL;
    for (i = 0; s[10 + i]; i++)
        low[i] = (char)tolower((unsigned char)s[10 + i]);
    low[i] = '\0';
    *tok = seccomp_arch_resolve_name(low);
    return *tok ? 0 : BX_EUNSUPPORTED;
}

static int add_rules(scmp_filter_ctx ctx, const json_t *call, size_t ci, uint32_t def,
                     json_t *skipped, bx_error *err)
{
    static const char *const keys[] = {"names", "action", "errnoRet", "args", NULL};
    struct scmp_arg_cmp cmp[48];
    char ptr[96], sub[128];
    size_t ncmp = 0, i;
    int repeated = 0, rc;
    uint32_t act;
    json_t *names = json_object_get(call, "names"), *name;

    snprintf(ptr, sizeof ptr, "/syscalls/%zu", ci);
    if (!json_is_object(call))
        return bx_error_set(err, BX_EINVAL, ptr, "must be an object");
    if ((rc = only_keys(call, keys, ptr, err)) != 0)
        return rc;
    snprintf(sub, sizeof sub, "%s/action", ptr);
    char eptr[128];
    snprintf(eptr, sizeof eptr, "%s/errnoRet", ptr);
    if ((rc = parse_action(json_object_get(call, "action"), json_object_get(call, "errnoRet"), sub,
                           eptr, &act, err)) != 0)
        return rc;
    snprintf(sub, sizeof sub, "%s/args", ptr);
    if ((rc = parse_args(json_object_get(call, "args"), sub, cmp, &ncmp, &repeated, err)) != 0)
        return rc;
    snprintf(sub, sizeof sub, "%s/names", ptr);
    if (!json_is_array(names) || json_array_size(names) == 0)
        return bx_error_set(err, BX_EINVAL, sub, "must be a non-empty array of names");
    json_array_foreach(names, i, name)
    {
        if (!json_is_string(name))
            return bx_error_set(err, BX_EINVAL, sub, "names must be strings");
    }
    if (act == def) /* runc: "Ignoring syscall ... action matches default" */
        return 0;
    json_array_foreach(names, i, name)
    {
        int nr = seccomp_syscall_resolve_name(json_string_value(name));
        if (nr == __NR_SCMP_ERROR) {
            if (skipped && json_array_append(skipped, name) != 0)
                return bx_error_set(err, BX_ENOMEM, NULL, "out of memory");
            continue;
        }
        if (repeated) { /* runc: one rule per condition when an argument repeats */
            for (size_t c = 0; c < ncmp && rc == 0; c++)
                rc = seccomp_rule_add_array(ctx, act, nr, 1, &cmp[c]);
        } else {
            rc = seccomp_rule_add_array(ctx, act, nr, (unsigned)ncmp, cmp);
        }
        if (rc != 0)
            return bx_error_set(err, BX_EINVAL, sub, "libseccomp refused the rule for %s: %s",
                                json_string_value(name), strerror(-rc));
    }
    return 0;
}

int bx_seccomp_profile_compile(const json_t *sc, struct sock_filter **insns, size_t *len,
                               json_t **skipped, bx_error *err)
{
    static const char *const keys[] = {
        "defaultAction", "defaultErrnoRet",  "architectures", "flags",
        "listenerPath",  "listenerMetadata", "syscalls",      NULL};
    static const char *const flags[] = {"SECCOMP_FILTER_FLAG_TSYNC", "SECCOMP_FILTER_FLAG_LOG",
                                        "SECCOMP_FILTER_FLAG_SPEC_ALLOW",
                                        "SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV", NULL};
    scmp_filter_ctx ctx = NULL;
    json_t *skip = NULL, *v, *arr;
    struct sock_filter *prog = NULL;
    uint32_t def;
    size_t i;
    int fd = -1, rc;
    struct stat st;

    *insns = NULL;
    *len = 0;
    if (skipped)
        *skipped = NULL;
    if (!json_is_object(sc))
        return bx_error_set(err, BX_EINVAL, "", "the seccomp profile must be an object");
    if ((rc = only_keys(sc, keys, "", err)) != 0)
        goto out;
    if ((rc = parse_action(json_object_get(sc, "defaultAction"),
                           json_object_get(sc, "defaultErrnoRet"), "/defaultAction",
                           "/defaultErrnoRet", &def, err)) != 0)
        goto out;
    arr = json_object_get(sc, "flags");
    if (arr && !json_is_null(arr)) {
        if (!json_is_array(arr)) {
            rc = bx_error_set(err, BX_EINVAL, "/flags", "must be an array");
            goto out;
        }
        json_array_foreach(arr, i, v)
        {
            int known = 0;
            for (size_t f = 0; flags[f] && !known; f++)
                known = json_is_string(v) && strcmp(json_string_value(v), flags[f]) == 0;
            if (!known) { /* flags change how the filter is loaded, not its program */
                rc = bx_error_set(err, BX_EINVAL, "/flags", "unknown flag");
                goto out;
            }
        }
    }
    for (i = 0; i < 2; i++) {
        static const char *const strs[] = {"listenerPath", "listenerMetadata"};
        v = json_object_get(sc, strs[i]);
        if (v && !json_is_string(v)) {
            rc = bx_error_set(err, BX_EINVAL, i ? "/listenerMetadata" : "/listenerPath",
                              "must be a string");
            goto out;
        }
    }
    if (!(ctx = seccomp_init(def))) {
        rc =
            bx_error_set(err, BX_EINVAL, "/defaultAction", "libseccomp refused the default action");
        goto out;
    }
    arr = json_object_get(sc, "architectures");
    if (arr && !json_is_null(arr)) {
        if (!json_is_array(arr)) {
            rc = bx_error_set(err, BX_EINVAL, "/architectures", "must be an array");
            goto out;
        }
        json_array_foreach(arr, i, v)
        {
            uint32_t tok = 0;
            if ((rc = arch_token(json_string_value(v), &tok)) != 0) {
                rc = bx_error_set(err, rc, "/architectures",
                                  rc == BX_EINVAL ? "not an SCMP_ARCH_* name"
                                                  : "an architecture libseccomp does not know");
                goto out;
            }
            int r = seccomp_arch_add(ctx, tok);
            if (r != 0 && r != -EEXIST) {
                rc = bx_error_set(err, BX_EUNSUPPORTED, "/architectures",
                                  "libseccomp cannot add %s: %s", json_string_value(v),
                                  strerror(-r));
                goto out;
            }
        }
    }
    if (skipped && !(skip = json_array())) {
        rc = bx_error_set(err, BX_ENOMEM, NULL, "out of memory");
        goto out;
    }
    arr = json_object_get(sc, "syscalls");
    if (arr && !json_is_null(arr)) {
        if (!json_is_array(arr)) {
            rc = bx_error_set(err, BX_EINVAL, "/syscalls", "must be an array");
            goto out;
        }
        json_array_foreach(arr, i, v)
        {
            if ((rc = add_rules(ctx, v, i, def, skip, err)) != 0)
                goto out;
        }
    }
    /* libseccomp 2.5 exports only to a descriptor. */
    if ((fd = memfd_create("bx_seccomp", MFD_CLOEXEC)) < 0) {
        rc = bx_error_errno(err, BX_EIO, NULL, "memfd_create");
        goto out;
    }
    if ((rc = seccomp_export_bpf(ctx, fd)) != 0) {
        rc = bx_error_set(err, BX_EINVAL, NULL, "libseccomp could not export the program: %s",
                          strerror(-rc));
        goto out;
    }
    if (fstat(fd, &st) != 0 || st.st_size <= 0 || st.st_size % 8 ||
        st.st_size > 8 * PROFILE_MAX_INSNS) {
        rc = bx_error_set(err, BX_EIO, NULL, "libseccomp exported %lld bytes",
                          (long long)st.st_size);
        goto out;
    }
    if (!(prog = malloc((size_t)st.st_size))) {
        rc = bx_error_set(err, BX_ENOMEM, NULL, "out of memory");
        goto out;
    }
    if (pread(fd, prog, (size_t)st.st_size, 0) != st.st_size) {
        rc = bx_error_errno(err, BX_EIO, NULL, "reading the exported program");
        goto out;
    }
    *insns = prog;
    prog = NULL;
    *len = (size_t)st.st_size / 8;
    if (skipped) {
        *skipped = skip;
        skip = NULL;
    }
    rc = 0;
out:
    if (fd >= 0)
        close(fd);
    if (ctx)
        seccomp_release(ctx);
    json_decref(skip);
    free(prog);
    return rc;
}

int bx_seccomp_profile_eval(const json_t *sc, unsigned flags, bx_seccomp_table **out, bx_error *err)
{
    struct sock_filter *insns = NULL;
    size_t len = 0;
    int rc;

    *out = NULL;
    if ((rc = bx_seccomp_profile_compile(sc, &insns, &len, NULL, err)) == 0) {
        bx_seccomp_prog p = {insns, len};
        rc = bx_seccomp_eval(&p, 1, flags, out, err);
    }
    free(insns);
    return rc;
}
