/* SPDX-License-Identifier: Apache-2.0 */
/* The session's cgroup (attest/cgroup.c) over cgroup trees written here: the session's cgroup
 * is the topmost folder naming the Id (crun's docker-<id>.scope/container is the scope's), and
 * each limit in force is the smallest from the session's folder up to the hierarchy's root
 * (systemd's TasksMax on the scope, a slice's MemoryMax, a parent's cpu.max), v1's memsw is
 * memory + swap, and a v1 parent with memory.use_hierarchy 0 charges nothing. */
#include "tap.h"
#include "attest_internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define ID "5e55aa0000000000000000000000000000000000000000000000000000000001"

static char tmp[] = "/tmp/bx-cgroup-XXXXXX";

/* mkdir -p tmp/dir, then write text to tmp/dir/file */
static void put(const char *dir, const char *file, const char *text)
{
    char path[1024];
    FILE *f;

    snprintf(path, sizeof path, "%s/%s", tmp, dir);
    for (char *p = path + strlen(tmp) + 1; *p; p++) {
        if (*p == '/') {
            *p = '\0';
            mkdir(path, 0755);
            *p = '/';
        }
    }
    mkdir(path, 0755);
    snprintf(path, sizeof path, "%s/%s/%s", tmp, dir, file);
    if ((f = fopen(path, "w"))) {
        fputs(text, f);
        fclose(f);
    }
}

typedef struct {
    bxa_session s;
    bxa_kctx k;
    bx_evidence *ev;
    bxa_views v;
    bx_error e;
    json_t *view;
} world;

/* The kernel's context of a session whose init's /proc/<pid>/cgroup is cgroup, on a host
 * whose cgroup mounts are mountinfo; 0 when set up. */
static int open_world(world *w, const char *cgroup, const char *mountinfo)
{
    memset(w, 0, sizeof *w);
    w->s = (bxa_session){
        .id = ID, .pid = 100, .runtime = "runc", .kind = "docker", .paths = {.mount_prefix = tmp}};
    w->ev = bxa_evidence_new();
    w->k = (bxa_kctx){
        .s = &w->s, .v = &w->v, .ev = w->ev, .err = &w->e, .procfd = -1, .daemon_pid = -1};
    w->view = json_object();
    if (bxa_parse_cgroup(cgroup, strlen(cgroup), &w->k.cg, &w->k.ncg, &w->e) != 0 ||
        bxa_parse_mountinfo(mountinfo, strlen(mountinfo), &w->k.hm, &w->k.nhm, &w->e) != 0)
        return -1;
    return bxa_cgroup_key(&w->k);
}

static void close_world(world *w)
{
    bxa_cgroups_free(w->k.cg, w->k.ncg);
    bxa_mounts_free(w->k.hm, w->k.nhm);
    free(w->k.key_own);
    json_decref(w->k.dev_rules);
    bxa_devbpf_free(w->k.dev_progs);
    json_decref(w->view);
    bxa_evidence_free(w->ev);
}

/* 1 when name was kept as kernel evidence (keeping it again is refused) */
static int kept(bx_evidence *ev, const char *name)
{
    bx_error e = {0};
    return bxa_evidence_add(ev, BXA_EV_KERNEL, name, "", 0, &e) != 0 && strstr(e.msg, "twice");
}

static json_int_t res(world *w, const char *name)
{
    const json_t *v = json_object_get(json_object_get(w->view, "resources"), name);
    return !v ? -2 : json_is_null(v) ? -1 : json_integer_value(v);
}

static const char *V2_MOUNTS =
    "23 1 254:0 / / rw,relatime - ext4 /dev/vda rw\n"
    "30 23 0:26 / /sys/fs/cgroup rw,nosuid,nodev,noexec,relatime - cgroup2 cgroup2 "
    "rw,nsdelegate,memory_recursiveprot\n";

/* systemd driver, crun: the session in <scope>/container, TasksMax on the scope, a tighter
 * MemoryMax on the slice, a CPU quota on the scope tighter than the slice's */
static void v2_crun(void)
{
    world w;
    const char *scope = "sys/fs/cgroup/system.slice/docker-" ID ".scope";
    char leaf[256];

    snprintf(leaf, sizeof leaf, "%s/container", scope);
    put(leaf, "pids.max", "max\n");
    put(leaf, "memory.max", "max\n");
    put(leaf, "memory.swap.max", "max\n");
    put(leaf, "cpu.max", "max 100000\n");
    put(leaf, "cpu.weight", "100\n");
    put(scope, "pids.max", "1711\n");
    put(scope, "memory.max", "268435456\n");
    put(scope, "memory.swap.max", "0\n");
    put(scope, "cpu.max", "50000 100000\n");
    put(scope, "cpu.weight", "20\n");
    put("sys/fs/cgroup/system.slice", "pids.max", "max\n");
    put("sys/fs/cgroup/system.slice", "memory.max", "134217728\n");
    put("sys/fs/cgroup/system.slice", "memory.swap.max", "max\n");
    put("sys/fs/cgroup/system.slice", "cpu.max", "150000 100000\n");
    put("sys/fs/cgroup", "cgroup.procs", "1\n");

    ok(open_world(&w, "0::/system.slice/docker-" ID ".scope/container\n", V2_MOUNTS) == 0,
       "v2: the session's cgroup found (%s)", w.e.msg);
    is_str(w.k.key_path, "/system.slice/docker-" ID ".scope",
           "v2: crun's <scope>/container: the session's cgroup is the scope");
    ok_err(bxa_read_limits(&w.k, w.view, NULL), &w.e, "v2: the limits read");
    is_int(res(&w, "pidsLimit"), 1711, "v2: pids.max: the scope's TasksMax, not the leaf's max");
    is_int(res(&w, "memoryBytes"), 134217728, "v2: memory.max: the slice's, the smallest");
    is_int(res(&w, "memorySwapBytes"), 134217728,
           "v2: memory + swap: the smallest memory.max and the smallest memory.swap.max (0)");
    is_int(res(&w, "cpuQuota"), 50000, "v2: cpu.max: the scope's quota, the smallest share");
    is_int(res(&w, "cpuPeriod"), 100000, "v2: cpu.max: its period");
    is_int(res(&w, "cpuWeight"), 100, "v2: cpu.weight: the session's own folder's (a weight)");
    ok(kept(w.ev, "cgroup.up1/pids.max") && kept(w.ev, "cgroup.up2/memory.max") &&
           kept(w.ev, "cgroup/pids.max"),
       "v2: every folder read is evidence (cgroup/, cgroup.up1/, cgroup.up2/)");
    close_world(&w);

    /* a process of the scope outside the leaf is the session's */
    ok(open_world(&w, "0::/system.slice/docker-" ID ".scope/container\n", V2_MOUNTS) == 0,
       "v2: again");
    {
        const char *sib = "0::/system.slice/docker-" ID ".scope/exec-1\n";
        const char *other = "0::/system.slice/docker-" ID "0.scope\n";
        const char *slice = "0::/system.slice\n";
        ok(bxa_in_session(&w.k, sib, strlen(sib)) == 1,
           "v2: a process in another folder of the scope is the session's");
        ok(bxa_in_session(&w.k, slice, strlen(slice)) == 0, "v2: one in the slice is not");
        ok(bxa_in_session(&w.k, other, strlen(other)) == 0,
           "v2: one in a scope whose name only begins with the Id is not");
    }
    close_world(&w);
}

/* runc with the systemd driver: the session in the scope; no limit anywhere but TasksMax */
static void v2_runc_unlimited(void)
{
    world w;
    const char *scope = "sys/fs/cgroup/system.slice/docker-" ID ".scope";

    put(scope, "pids.max", "max\n");
    put(scope, "memory.max", "max\n");
    put(scope, "memory.swap.max", "max\n");
    put(scope, "cpu.max", "max 100000\n");
    put("sys/fs/cgroup/system.slice", "pids.max", "max\n");
    put("sys/fs/cgroup/system.slice", "memory.max", "max\n");
    put("sys/fs/cgroup/system.slice", "memory.swap.max", "max\n");
    put("sys/fs/cgroup/system.slice", "cpu.max", "max 100000\n");
    put("sys/fs/cgroup/system.slice", "cpu.weight", "100\n");
    ok(open_world(&w, "0::/system.slice/docker-" ID ".scope\n", V2_MOUNTS) == 0,
       "v2 runc: the session's cgroup found");
    ok_err(bxa_read_limits(&w.k, w.view, NULL), &w.e, "v2 runc: the limits read");
    is_int(res(&w, "pidsLimit"), -1, "v2 runc: max everywhere: no pids limit");
    is_int(res(&w, "memoryBytes"), -1, "v2 runc: no memory limit");
    is_int(res(&w, "memorySwapBytes"), -1, "v2 runc: no memory + swap limit");
    is_int(res(&w, "cpuQuota"), -1, "v2 runc: no CPU quota");
    is_int(res(&w, "cpuWeight"), -2, "v2 runc: no cpu.weight in its own folder: not read");
    close_world(&w);
}

/* a collector in a cgroup namespace: the mount's root is the namespace's, the walk stops
 * there */
static void v2_nsroot(void)
{
    world w;
    const char *mi = "23 1 254:0 / / rw,relatime - ext4 /dev/vda rw\n"
                     "30 23 0:26 / /cg rw,relatime - cgroup2 cgroup2 rw\n";

    put("cg/docker-" ID ".scope", "pids.max", "64\n");
    put("cg", "pids.max", "8\n"); /* (a real root has none: this one shows where it stops) */
    put(".", "pids.max", "1\n");  /* above the mount, outside the hierarchy */
    ok(open_world(&w, "0::/docker-" ID ".scope\n", mi) == 0, "nsroot: found");
    ok_err(bxa_read_limits(&w.k, w.view, NULL), &w.e, "nsroot: the limits read");
    is_int(res(&w, "pidsLimit"), 8, "nsroot: the walk reaches the mount's root and no further");
    close_world(&w);
}

static const char *V1_MOUNTS =
    "23 1 254:0 / / rw,relatime - ext4 /dev/vda rw\n"
    "31 23 0:28 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755\n"
    "32 31 0:29 / /sys/fs/cgroup/cpu rw,relatime - cgroup cgroup rw,cpu\n"
    "35 31 0:32 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory\n"
    "39 31 0:36 / /sys/fs/cgroup/pids rw,relatime - cgroup cgroup rw,pids\n";

static const char *V1_CGROUP = "8:pids:/docker/" ID "\n4:memory:/docker/" ID "\n"
                               "2:cpu:/docker/" ID "\n";

/* cgroupfs driver on v1: memsw is memory + swap; a parent's limits bind while it charges its
 * children (memory.use_hierarchy 1) */
static void v1(void)
{
    world w;

    put("sys/fs/cgroup/memory/docker/" ID, "memory.limit_in_bytes", "268435456\n");
    put("sys/fs/cgroup/memory/docker/" ID, "memory.memsw.limit_in_bytes", "9223372036854771712\n");
    put("sys/fs/cgroup/memory/docker/" ID, "memory.use_hierarchy", "1\n");
    put("sys/fs/cgroup/memory/docker", "memory.limit_in_bytes", "9223372036854771712\n");
    put("sys/fs/cgroup/memory/docker", "memory.memsw.limit_in_bytes", "536870912\n");
    put("sys/fs/cgroup/memory/docker", "memory.use_hierarchy", "1\n");
    put("sys/fs/cgroup/memory", "memory.limit_in_bytes", "9223372036854771712\n");
    put("sys/fs/cgroup/memory", "memory.use_hierarchy", "1\n");
    put("sys/fs/cgroup/pids/docker/" ID, "pids.max", "64\n");
    put("sys/fs/cgroup/pids/docker", "pids.max", "32\n");
    put("sys/fs/cgroup/cpu/docker/" ID, "cpu.cfs_quota_us", "-1\n");
    put("sys/fs/cgroup/cpu/docker/" ID, "cpu.cfs_period_us", "100000\n");
    put("sys/fs/cgroup/cpu/docker/" ID, "cpu.shares", "512\n");
    put("sys/fs/cgroup/cpu/docker", "cpu.cfs_quota_us", "20000\n");
    put("sys/fs/cgroup/cpu/docker", "cpu.cfs_period_us", "10000\n");
    put("sys/fs/cgroup/cpu/docker", "cpu.shares", "2\n");
    ok(open_world(&w, V1_CGROUP, V1_MOUNTS) == 0, "v1: the session's cgroup found (%s)", w.e.msg);
    is_str(w.k.key_controller, "pids", "v1: proven in the pids hierarchy");
    ok_err(bxa_read_limits(&w.k, w.view, NULL), &w.e, "v1: the limits read");
    is_int(res(&w, "memoryBytes"), 268435456, "v1: memory: the session's own, the smallest");
    is_int(res(&w, "memorySwapBytes"), 536870912,
           "v1: memsw (memory + swap): the parent's, the smallest");
    is_int(res(&w, "pidsLimit"), 32, "v1: pids.max: the parent's");
    is_int(res(&w, "cpuQuota"), 20000, "v1: the parent's quota (2 CPUs, the only quota)");
    is_int(res(&w, "cpuPeriod"), 10000, "v1: with its own period");
    is_int(res(&w, "cpuShares"), 512, "v1: cpu.shares: the session's own");
    close_world(&w);

    /* the parent does not charge its children: its limits do not bind */
    put("sys/fs/cgroup/memory/docker", "memory.use_hierarchy", "0\n");
    put("sys/fs/cgroup/memory/docker", "memory.limit_in_bytes", "1048576\n");
    ok(open_world(&w, V1_CGROUP, V1_MOUNTS) == 0, "v1 use_hierarchy 0: found");
    ok_err(bxa_read_limits(&w.k, w.view, NULL), &w.e, "v1 use_hierarchy 0: the limits read");
    is_int(res(&w, "memoryBytes"), 268435456,
           "v1: a parent with memory.use_hierarchy 0 does not bind its child");
    is_int(res(&w, "memorySwapBytes"), -1, "v1: nor does its memsw");
    close_world(&w);
}

/* a limit file the kernel never writes: the collection fails, naming it */
static void bad_file(void)
{
    world w;
    const char *scope = "sys/fs/cgroup/system.slice/docker-" ID ".scope";

    put(scope, "pids.max", "12\n");
    put("sys/fs/cgroup/system.slice", "pids.max", "lots\n");
    ok(open_world(&w, "0::/system.slice/docker-" ID ".scope\n", V2_MOUNTS) == 0, "bad: found");
    ok(bxa_read_limits(&w.k, w.view, NULL) != 0 && strstr(w.e.msg, "not a number"),
       "a parent's pids.max that is not a number: an error (%s)", w.e.msg);
    close_world(&w);
}

static void fresh(void)
{
    char cmd[128];

    if (strcmp(tmp, "/tmp/bx-cgroup-XXXXXX") != 0) {
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp);
        (void)!system(cmd);
    }
    snprintf(tmp, sizeof tmp, "/tmp/bx-cgroup-XXXXXX");
    if (!mkdtemp(tmp))
        exit(1);
}

static const char *sres(world *w, const char *name)
{
    const json_t *v = json_object_get(json_object_get(w->view, "resources"), name);
    return !v ? "(absent)" : json_is_null(v) ? "(null)" : json_string_value(v);
}

/* cpuset lists: the kernel's canonical form back, whatever order and overlap they were
 * written in; anything else refused */
static void cpulists(void)
{
    static const char *const good[][2] = {
        {"0-3\n", "0-3"},         {"0\n", "0"},           {"", ""},
        {"\n", ""},               {"3,1,2,0", "0-3"},     {"0-1,1-2", "0-2"},
        {"0,2,4-5", "0,2,4-5"},   {"5-5", "5"},           {"8191", "8191"},
        {"0-8191", "0-8191"},     {"1,3,2-4,10", "1-4,10"},
    };
    static const char *const bad[] = {"-1",  "3-1", "0,,1", "0,",   "a",    "0-",  "8192",
                                      "0-8192", "1 2", "0\n1", " 0", "0x1", "-", ",0"};
    char out[BXA_CPULIST_LEN], tiny[4];
    bx_error e;

    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
        int rc = bxa_parse_cpulist(good[i][0], strlen(good[i][0]), out, sizeof out, &e);
        ok(rc == 0 && strcmp(out, good[i][1]) == 0, "cpulist %zu -> '%s' (got %.64s)", i,
           good[i][1], rc == 0 ? out : e.msg);
    }
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        ok(bxa_parse_cpulist(bad[i], strlen(bad[i]), out, sizeof out, &e) != 0,
           "cpulist %zu refused", i);
    ok(bxa_parse_cpulist("0\0001", 3, out, sizeof out, &e) != 0, "cpulist with a NUL refused");
    ok(bxa_parse_cpulist("0-1,3", 5, tiny, sizeof tiny, &e) != 0,
       "cpulist longer than the room refused, not cut");
}

/* cpuset: the effective sets of the session's own folder (crun's leaf), with the root's (this
 * host's every CPU and node) beside them for reconciliation */
static void v2_cpuset(void)
{
    world w;
    const char *scope = "sys/fs/cgroup/system.slice/docker-" ID ".scope";
    char leaf[256];

    snprintf(leaf, sizeof leaf, "%s/container", scope);
    put(leaf, "cpuset.cpus.effective", "1\n");
    put(leaf, "cpuset.mems.effective", "0\n");
    put(scope, "cpuset.cpus.effective", "0-1\n");
    put(scope, "cpuset.mems.effective", "0\n");
    put("sys/fs/cgroup", "cpuset.cpus.effective", "0-3\n");
    put("sys/fs/cgroup", "cpuset.mems.effective", "0\n");
    ok(open_world(&w, "0::/system.slice/docker-" ID ".scope/container\n", V2_MOUNTS) == 0,
       "v2 cpuset: found");
    ok_err(bxa_read_limits(&w.k, w.view, NULL), &w.e, "v2 cpuset: the limits read");
    is_str(sres(&w, "cpusetCpus"), "1", "v2: cpuset.cpus.effective of the session's own folder");
    is_str(sres(&w, "cpusetCpusHost"), "0-3", "v2: the root's, this host's every CPU");
    is_str(sres(&w, "cpusetMems"), "0", "v2: cpuset.mems.effective");
    is_str(sres(&w, "cpusetMemsHost"), "0", "v2: the root's memory nodes");
    ok(kept(w.ev, "cgroup/cpuset.cpus.effective") && kept(w.ev, "cgroup.up3/cpuset.cpus.effective"),
       "v2: the session's and the root's cpuset files are evidence");
    close_world(&w);

    /* the root's unreadable: the set is kept, the host's unknown */
    unlink(strcat(strcpy(leaf, tmp), "/sys/fs/cgroup/cpuset.cpus.effective"));
    ok(open_world(&w, "0::/system.slice/docker-" ID ".scope/container\n", V2_MOUNTS) == 0,
       "v2 cpuset, no root file: found");
    ok_err(bxa_read_limits(&w.k, w.view, NULL), &w.e, "v2 cpuset, no root file: read");
    is_str(sres(&w, "cpusetCpus"), "1", "v2: the session's set kept");
    is_str(sres(&w, "cpusetCpusHost"), "", "v2: this host's set unknown (\"\")");
    close_world(&w);

    /* a list the kernel would not write: the collection fails, it does not guess */
    snprintf(leaf, sizeof leaf, "%s/container", scope);
    put(leaf, "cpuset.cpus.effective", "1-0\n");
    ok(open_world(&w, "0::/system.slice/docker-" ID ".scope/container\n", V2_MOUNTS) == 0,
       "v2 cpuset, bad list: found");
    ok(bxa_read_limits(&w.k, w.view, NULL) != 0 && strstr(w.e.msg, "range"),
       "v2: a cpuset list that does not parse fails the read (%s)", w.e.msg);
    close_world(&w);

    /* no cpuset controller for the session's own folder (v2: no such file there): its tasks
     * run in the nearest ancestor's set, the scope's */
    snprintf(leaf, sizeof leaf, "%s/%s/container/cpuset.cpus.effective", tmp, scope);
    unlink(leaf);
    snprintf(leaf, sizeof leaf, "%s/%s/container/cpuset.mems.effective", tmp, scope);
    unlink(leaf);
    ok(open_world(&w, "0::/system.slice/docker-" ID ".scope/container\n", V2_MOUNTS) == 0,
       "v2 no cpuset in the leaf: found");
    ok_err(bxa_read_limits(&w.k, w.view, NULL), &w.e, "v2 no cpuset in the leaf: read");
    is_str(sres(&w, "cpusetCpus"), "0-1", "v2: no cpuset file in the leaf: the scope's set binds it");
    ok(kept(w.ev, "cgroup.up1/cpuset.cpus.effective"), "v2: the scope's file is evidence");
    close_world(&w);

    /* the cpuset controller nowhere: not read, no member */
    snprintf(leaf, sizeof leaf, "%s/%s/cpuset.cpus.effective", tmp, scope);
    unlink(leaf);
    snprintf(leaf, sizeof leaf, "%s/%s/cpuset.mems.effective", tmp, scope);
    unlink(leaf);
    snprintf(leaf, sizeof leaf, "%s/sys/fs/cgroup/cpuset.mems.effective", tmp);
    unlink(leaf);
    ok(open_world(&w, "0::/system.slice/docker-" ID ".scope/container\n", V2_MOUNTS) == 0,
       "v2 no cpuset: found");
    ok_err(bxa_read_limits(&w.k, w.view, NULL), &w.e, "v2 no cpuset: read");
    is_str(sres(&w, "cpusetCpus"), "(absent)", "v2: no cpuset file anywhere, no cpusetCpus");
    is_str(sres(&w, "cpusetMems"), "(absent)", "v2: no cpusetMems either");
    close_world(&w);
}

/* v1: the cpuset hierarchy's cpuset.effective_cpus/_mems */
static void v1_cpuset(void)
{
    world w;
    static const char *mounts =
        "23 1 254:0 / / rw,relatime - ext4 /dev/vda rw\n"
        "31 23 0:28 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755\n"
        "33 31 0:30 / /sys/fs/cgroup/cpuset rw,relatime - cgroup cgroup rw,cpuset\n"
        "39 31 0:36 / /sys/fs/cgroup/pids rw,relatime - cgroup cgroup rw,pids\n";
    static const char *cg = "8:pids:/docker/" ID "\n3:cpuset:/docker/" ID "\n";

    put("sys/fs/cgroup/pids/docker/" ID, "pids.max", "64\n");
    put("sys/fs/cgroup/cpuset/docker/" ID, "cpuset.effective_cpus", "0-1\n");
    put("sys/fs/cgroup/cpuset/docker/" ID, "cpuset.effective_mems", "0\n");
    put("sys/fs/cgroup/cpuset", "cpuset.effective_cpus", "0-1\n");
    put("sys/fs/cgroup/cpuset", "cpuset.effective_mems", "0\n");
    ok(open_world(&w, cg, mounts) == 0, "v1 cpuset: found (%s)", w.e.msg);
    ok_err(bxa_read_limits(&w.k, w.view, NULL), &w.e, "v1 cpuset: read");
    is_str(sres(&w, "cpusetCpus"), "0-1", "v1: cpuset.effective_cpus");
    is_str(sres(&w, "cpusetCpusHost"), "0-1", "v1: the hierarchy root's");
    is_str(sres(&w, "cpusetMems"), "0", "v1: cpuset.effective_mems");
    ok(kept(w.ev, "cgroup.up2/cpuset.effective_cpus"), "v1: the root's file is evidence");
    close_world(&w);
}

int main(void)
{
    fresh();
    v2_crun();
    fresh();
    v2_runc_unlimited();
    fresh();
    v2_nsroot();
    fresh();
    v1();
    fresh();
    bad_file();
    cpulists();
    fresh();
    v2_cpuset();
    fresh();
    v1_cpuset();
    {
        char cmd[128];
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp);
        (void)!system(cmd);
    }
    return tap_done();
}
