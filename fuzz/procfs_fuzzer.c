/* SPDX-License-Identifier: Apache-2.0 */
/* The kernel-file parsers (attest/procfs.c), the OCI spec's view, runsc's flags and the
 * evidence redaction on arbitrary bytes. The first byte picks the parser; the rest is the
 * file. Whatever a parser accepts must make sense: readings within their ranges, JSON the
 * predicate can carry. Corpus: fixtures/procfs/ files, each behind its selector byte. */
#include "attest_internal.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

enum {
    F_STATUS,
    F_STAT,
    F_CGROUP,
    F_MOUNTINFO,
    F_NETDEV,
    F_CMDLINE,
    F_LIMIT,
    F_CPUMAX,
    F_DEVICES,
    F_SPEC,
    F_REDACT,
    F_COUNT
};

static void jcs_or_refuse(const json_t *v)
{
    char *out = NULL;
    size_t len;
    bx_error e;

    if (v && bx_jcs_serialize(v, &out, &len, &e) == 0 && (!out || len == 0))
        __builtin_trap();
    free(out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char *const env[] = {"Config", "Env", NULL};
    const char *buf = (const char *)data + 1;
    size_t len = size ? size - 1 : 0;
    char *copy;
    bx_error e;

    if (size == 0)
        return 0;
    /* parsers get NUL-terminated buffers, as the reader gives them */
    copy = malloc(len + 1);
    if (!copy)
        return 0;
    memcpy(copy, buf, len);
    copy[len] = '\0';
    switch (data[0] % F_COUNT) {
    case F_STATUS: {
        bxa_status st;
        if (bxa_parse_status(copy, len, &st, &e) == 0) {
            if (st.nnp < 0 || st.nnp > 1 || st.seccomp < 0 || st.seccomp > 2 ||
                st.ngroups > BXA_GROUPS_MAX)
                __builtin_trap();
            for (int i = 0; i < 5; i++) {
                json_t *n = bxa_cap_names(st.caps[i]);
                jcs_or_refuse(n);
                json_decref(n);
            }
        }
        break;
    }
    case F_STAT: {
        bxa_stat st;
        if (bxa_parse_stat(copy, len, &st, &e) == 0 && st.pid < 0)
            __builtin_trap();
        break;
    }
    case F_CGROUP: {
        bxa_cgroup *cg = NULL;
        size_t n = 0;
        if (bxa_parse_cgroup(copy, len, &cg, &n, &e) == 0) {
            for (size_t i = 0; i < n; i++)
                (void)bxa_cgroup_names(
                    cg[i].path, "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef");
            (void)bxa_cgroup_path(cg, n, "pids");
            (void)bxa_cgroup_path(cg, n, NULL);
            bxa_cgroups_free(cg, n);
        }
        break;
    }
    case F_MOUNTINFO: {
        bxa_mount *m = NULL;
        size_t n = 0;
        if (bxa_parse_mountinfo(copy, len, &m, &n, &e) == 0) {
            for (size_t i = 0; i < n; i++) {
                if (bxa_mount_at(m, n, m[i].point) == NULL)
                    __builtin_trap();
                int64_t s = bxa_mount_size_option(&m[i]);
                if (s < -1 || s > BX_JSON_MAX_INT)
                    __builtin_trap();
            }
            bxa_mounts_free(m, n);
        }
        break;
    }
    case F_NETDEV: {
        json_t *names = NULL;
        if (bxa_parse_net_dev(copy, len, &names, &e) == 0) {
            jcs_or_refuse(names);
            json_decref(names);
        }
        break;
    }
    case F_CMDLINE: {
        json_t *argv = NULL, *flags, *view = NULL;
        if (bxa_parse_cmdline(copy, len, &argv, &e) == 0 && (flags = bxa_runsc_flags(argv))) {
            if (bxa_runsc_view(flags, NULL, &view, &e) == 0)
                jcs_or_refuse(view);
            json_decref(view);
            json_decref(flags);
        }
        json_decref(argv);
        break;
    }
    case F_LIMIT: {
        int64_t v;
        if (bxa_parse_limit(copy, len, &v, &e) == 0 && (v < -1 || v > BX_JSON_MAX_INT))
            __builtin_trap();
        break;
    }
    case F_CPUMAX: {
        int64_t q, p;
        if (bxa_parse_cpu_max(copy, len, &q, &p, &e) == 0 && (q < -1 || p < 0))
            __builtin_trap();
        break;
    }
    case F_DEVICES: {
        int all;
        json_t *rules = NULL;
        if (bxa_parse_devices_list(copy, len, &all, &rules, &e) == 0)
            json_decref(rules);
        break;
    }
    case F_SPEC: {
        json_t *cfg = NULL, *view = NULL, *rt = NULL;
        char sha[65];
        if (bx_json_parse_strict(copy, len, BX_JSON_OBJECT, &cfg, &e) == 0 &&
            bxa_spec_view(cfg, &view, sha, &e) == 0) {
            json_t *flags = json_pack("[s,s]", "--network=none", "--oci-seccomp");
            jcs_or_refuse(view);
            if (bxa_runsc_view(flags, view, &rt, &e) == 0)
                jcs_or_refuse(rt);
            json_decref(flags);
        }
        json_decref(rt);
        json_decref(view);
        json_decref(cfg);
        break;
    }
    case F_REDACT: {
        char *out = NULL;
        size_t olen = 0;
        json_t *j = json_loadb(copy, len, 0, NULL);
        /* only valid JSON is given to the redaction; its output must be JSON too */
        if (j && bxa_redact_env(copy, len, env, &out, &olen, &e) == 0) {
            json_t *k = json_loadb(out, olen, JSON_DECODE_ANY, NULL);
            if (!k)
                __builtin_trap();
            json_decref(k);
        }
        free(out);
        json_decref(j);
        break;
    }
    }
    free(copy);
    return 0;
}
