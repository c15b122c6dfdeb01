/* SPDX-License-Identifier: Apache-2.0 */
/* The kernel-file parsers (attest/procfs.c), the OCI spec's view (ocispec.c) and runsc's
 * flags (runsc.c) on recorded files: every folder of fixtures/procfs/ holds some of
 * status, stat, cgroup, mountinfo, net_dev, cmdline, config.json, the cgroup limit files
 * (memory.limit_in_bytes, memory.memsw.limit_in_bytes, memory.max, memory.swap.max,
 * pids.max, cpu.cfs_quota_us, cpu.cfs_period_us, cpu.shares, cpu.max, cpu.weight),
 * devices.list and container-id, recorded on a cgroup v1 host or written by hand (v2-*,
 * edge-*, bad-*), and expected.json: {"<file>": <the parsed reading>, ...,
 * "errors": {"<file>": "<part of the error message>"}, plus "cgroupNamesId",
 * "specView", "seccompSha256", "runscFlags", "runscView"}. BOXCERT_DUMP=1 prints what each
 * case parses to (to write a new expected.json; check it by hand). */
#include "tap.h"
#include "attest_internal.h"

#include <dirent.h>
#include <stdlib.h>
#include <string.h>

#define DIR_PROCFS BOXCERT_SOURCE_DIR "/fixtures/procfs"

static char *slurp(const char *dir, const char *name, size_t *len)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    return tap_slurp(path, len);
}

static json_t *ids(const int64_t *v, size_t n)
{
    json_t *a = json_array();
    for (size_t i = 0; i < n; i++)
        json_array_append_new(a, json_integer(v[i]));
    return a;
}

/* Each parser's reading as JSON, or NULL with e set. */
static json_t *parse(const char *file, const char *buf, size_t len, bx_error *e)
{
    static const char *const caps[] = {"CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb"};
    json_t *r = NULL;

    if (!strcmp(file, "status")) {
        bxa_status st;
        if (bxa_parse_status(buf, len, &st, e) != 0)
            return NULL;
        r = json_pack("{s:s,s:i,s:i,s:o,s:o,s:o}", "Name", st.name, "NoNewPrivs", st.nnp, "Seccomp",
                      st.seccomp, "Uid", ids(st.uid, 4), "Gid", ids(st.gid, 4), "Groups",
                      ids(st.groups, st.ngroups));
        for (int i = 0; i < 5; i++)
            json_object_set_new(r, caps[i], bxa_cap_names(st.caps[i]));
    } else if (!strcmp(file, "stat")) {
        bxa_stat st;
        char state[2] = {0};
        if (bxa_parse_stat(buf, len, &st, e) != 0)
            return NULL;
        state[0] = st.state;
        r = json_pack("{s:I,s:I,s:s,s:I}", "pid", (json_int_t)st.pid, "ppid", (json_int_t)st.ppid,
                      "state", state, "starttime", (json_int_t)st.starttime);
    } else if (!strcmp(file, "cgroup")) {
        bxa_cgroup *cg = NULL;
        size_t n = 0;
        if (bxa_parse_cgroup(buf, len, &cg, &n, e) != 0)
            return NULL;
        r = json_array();
        for (size_t i = 0; i < n; i++)
            json_array_append_new(r,
                                  json_pack("{s:i,s:s,s:s}", "hierarchy", cg[i].hierarchy,
                                            "controllers", cg[i].controllers, "path", cg[i].path));
        bxa_cgroups_free(cg, n);
    } else if (!strcmp(file, "mountinfo")) {
        bxa_mount *m = NULL;
        size_t n = 0;
        if (bxa_parse_mountinfo(buf, len, &m, &n, e) != 0)
            return NULL;
        r = json_array();
        for (size_t i = 0; i < n; i++)
            json_array_append_new(
                r, json_pack("{s:s,s:s,s:s,s:s,s:s,s:s,s:s,s:b,s:I}", "point", m[i].point, "root",
                             m[i].root, "fstype", m[i].fstype, "source", m[i].source, "mntOpts",
                             m[i].mnt_opts, "superOpts", m[i].super_opts, "optional", m[i].optional,
                             "writable", m[i].writable, "sizeOption",
                             (json_int_t)bxa_mount_size_option(&m[i])));
        bxa_mounts_free(m, n);
    } else if (!strcmp(file, "net_dev")) {
        if (bxa_parse_net_dev(buf, len, &r, e) != 0)
            return NULL;
    } else if (!strcmp(file, "cmdline")) {
        if (bxa_parse_cmdline(buf, len, &r, e) != 0)
            return NULL;
    } else if (!strcmp(file, "cpu.max")) {
        int64_t q, p;
        if (bxa_parse_cpu_max(buf, len, &q, &p, e) != 0)
            return NULL;
        r = json_pack("[I,I]", (json_int_t)q, (json_int_t)p);
    } else if (!strcmp(file, "devices.list")) {
        int all;
        json_t *rules;
        if (bxa_parse_devices_list(buf, len, &all, &rules, e) != 0)
            return NULL;
        r = json_pack("{s:b,s:o}", "allowAll", all, "rules", rules);
    } else {
        int64_t v;
        if (bxa_parse_limit(buf, len, &v, e) != 0)
            return NULL;
        r = json_integer(v);
    }
    return r;
}

static const char *const files[] = {
    "status",
    "stat",
    "cgroup",
    "mountinfo",
    "net_dev",
    "cmdline",
    "memory.limit_in_bytes",
    "memory.memsw.limit_in_bytes",
    "memory.max",
    "memory.swap.max",
    "pids.max",
    "cpu.cfs_quota_us",
    "cpu.cfs_period_us",
    "cpu.shares",
    "cpu.max",
    "cpu.weight",
    "devices.list",
};

static void compare(const char *name, const char *what, json_t *got, json_t *want)
{
    if (!ok(got && want && json_equal(got, want), "%s: %s", name, what)) {
        char *g = got ? json_dumps(got, JSON_ENCODE_ANY | JSON_COMPACT) : NULL;
        char *w = want ? json_dumps(want, JSON_ENCODE_ANY | JSON_COMPACT) : NULL;
        printf("#   got  %.600s\n#   want %.600s\n", g ? g : "(none)", w ? w : "(none)");
        free(g);
        free(w);
    }
}

static void one_case(const char *name, const char *dir)
{
    size_t len = 0;
    char *ebuf = slurp(dir, "expected.json", &len), *id = NULL;
    json_t *exp = ebuf ? json_loadb(ebuf, len, JSON_REJECT_DUPLICATES, NULL) : NULL;
    json_t *dump = json_object(), *errors = json_object(), *spec_view = NULL;
    int dumping = getenv("BOXCERT_DUMP") != NULL, checked = 0;
    bx_error e;

    free(ebuf);
    if (!dumping && !ok(exp != NULL, "%s: expected.json loads", name))
        return;
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        char *buf = slurp(dir, files[i], &len);
        json_t *got;
        if (!buf)
            continue;
        checked++;
        got = parse(files[i], buf, len, &e);
        if (got) {
            json_object_set_new(dump, files[i], got);
            if (!dumping)
                compare(name, files[i], got, json_object_get(exp, files[i]));
        } else {
            const char *want =
                json_string_value(json_object_get(json_object_get(exp, "errors"), files[i]));
            json_object_set_new(errors, files[i], json_string(e.msg));
            if (!dumping)
                ok(want && strstr(e.msg, want), "%s: %s refused (%.200s)", name, files[i], e.msg);
        }
        free(buf);
    }
    json_object_set_new(dump, "errors", errors);
    /* the cgroup path names the container (the key hierarchy: pids on v1, else unified) */
    if ((id = slurp(dir, "container-id", &len)) != NULL) {
        json_t *cg = json_object_get(dump, "cgroup"), *l;
        size_t i;
        int names = 0;
        id[strcspn(id, "\n")] = '\0';
        json_array_foreach(cg, i, l)
        {
            const char *c = json_string_value(json_object_get(l, "controllers"));
            if (!strcmp(c, "pids") || !*c)
                names |= bxa_cgroup_names(json_string_value(json_object_get(l, "path")), id);
        }
        if (cg)
            json_object_set_new(dump, "cgroupNamesId", json_boolean(names));
        free(id);
    }
    {
        char *buf = slurp(dir, "config.json", &len), sha[65];
        json_t *cfg = buf ? json_loadb(buf, len, JSON_REJECT_DUPLICATES, NULL) : NULL;
        if (cfg && bxa_spec_view(cfg, &spec_view, sha, &e) == 0) {
            json_object_set_new(dump, "specView", json_incref(spec_view));
            json_object_set_new(dump, "seccompSha256", json_string(sha));
        } else if (cfg) {
            json_object_set_new(errors, "config.json", json_string(e.msg));
        }
        json_decref(cfg);
        free(buf);
    }
    {
        json_t *argv = json_object_get(dump, "cmdline"), *flags, *view = NULL;
        const char *a0 = json_string_value(json_array_get(argv, 0));
        if (a0 && strstr(a0, "runsc") && (flags = bxa_runsc_flags(argv))) {
            json_object_set_new(dump, "runscFlags", flags);
            if (bxa_runsc_view(flags, spec_view, &view, &e) == 0)
                json_object_set_new(dump, "runscView", view);
        }
    }
    if (dumping) {
        char *s = json_dumps(dump, JSON_INDENT(1) | JSON_SORT_KEYS);
        printf("# %s:\n%s\n", name, s);
        free(s);
    } else {
        static const char *const extra[] = {"cgroupNamesId", "specView", "seccompSha256",
                                            "runscFlags", "runscView"};
        for (size_t i = 0; i < sizeof extra / sizeof extra[0]; i++)
            if (json_object_get(exp, extra[i]) || json_object_get(dump, extra[i]))
                compare(name, extra[i], json_object_get(dump, extra[i]),
                        json_object_get(exp, extra[i]));
        ok(checked > 0, "%s: some files checked (%d)", name, checked);
        ok(json_object_size(json_object_get(exp, "errors")) == json_object_size(errors),
           "%s: exactly the expected refusals", name);
    }
    json_decref(spec_view);
    json_decref(dump);
    json_decref(exp);
}

/* Properties beyond the recordings. */
static void properties(void)
{
    bx_error e;
    int64_t v;
    bxa_stat st;
    json_t *j = NULL;

    ok(bxa_parse_limit("max\n", 4, &v, &e) == 0 && v == -1, "max is unlimited");
    ok(bxa_parse_limit("9223372036854771712\n", 20, &v, &e) == 0 && v == -1,
       "v1's PAGE_COUNTER_MAX is unlimited");
    ok(bxa_parse_limit("9007199254740993", 16, &v, &e) == 0 && v == -1,
       "beyond 2^53 is no limit anyone set");
    ok(bxa_parse_limit("9007199254740992", 16, &v, &e) == 0 && v == 9007199254740992LL,
       "2^53 itself is a limit");
    ok(bxa_parse_limit("-1\n", 3, &v, &e) == 0 && v == -1, "-1 (cfs_quota_us) is none");
    ok(bxa_parse_limit("-2", 2, &v, &e) == BX_EINVAL, "-2 refused");
    ok(bxa_parse_limit("", 0, &v, &e) == BX_EINVAL, "empty refused");
    ok(bxa_parse_limit("12\n13\n", 6, &v, &e) == BX_EINVAL, "two values refused");
    ok(bxa_parse_limit("1\0002", 3, &v, &e) == BX_EINVAL, "NUL refused");
    ok(bxa_parse_limit("99999999999999999999", 20, &v, &e) == BX_EINVAL, "overflow refused");
    ok(bxa_size_option("rw,size=65536k,mode=755") == 65536 * 1024, "size=65536k");
    ok(bxa_size_option("size=1g") == 1LL << 30, "size=1g");
    ok(bxa_size_option("size=50%") == 0, "size=50%%: none");
    ok(bxa_size_option("mode=755") == 0, "no size");
    ok(bxa_size_option("size=8388608t") == -1, "beyond 2^53: -1");
    ok(bxa_parse_stat("1 (x) S", 7, &st, &e) == BX_EINVAL, "short stat refused");
    ok(bxa_parse_stat("1 x) S 0", 8, &st, &e) == BX_EINVAL, "stat without comm refused");
    ok(bxa_cgroup_names("/docker/0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef",
                        "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"),
       "a /docker/<id> path names the Id");
    ok(!bxa_cgroup_names(
           "/docker/0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdefX",
           "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"),
       "an Id followed by more is not the Id");
    ok(!bxa_cgroup_names("/x0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef",
                         "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"),
       "an Id inside a word is not the Id");
    ok(bxa_cgroup_names(
           "/system.slice/"
           "docker-0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef.scope/sub",
           "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"),
       "a systemd scope (and below) names the Id");
    ok(bxa_parse_net_dev("x\n", 2, &j, &e) == BX_EINVAL, "net/dev without a header refused");
    j = bxa_cap_names(UINT64_C(1) << 63 | 1);
    ok(json_array_size(j) == 2 && !strcmp(json_string_value(json_array_get(j, 0)), "CHOWN") &&
           json_integer_value(json_array_get(j, 1)) == 63,
       "an unknown capability bit is a number, after the names");
    json_decref(j);
}

int main(void)
{
    DIR *d = opendir(DIR_PROCFS);
    struct dirent *de;
    int cases = 0;

    if (!d) {
        ok(0, "open %s", DIR_PROCFS);
        return tap_done();
    }
    while ((de = readdir(d)) != NULL) {
        char dir[1024];
        if (de->d_name[0] == '.')
            continue;
        snprintf(dir, sizeof dir, "%s/%s", DIR_PROCFS, de->d_name);
        one_case(de->d_name, dir);
        cases++;
    }
    closedir(d);
    if (getenv("BOXCERT_DUMP"))
        return 0;
    ok(cases >= 6, "at least six recorded cases (%d)", cases);
    properties();
    return tap_done();
}
