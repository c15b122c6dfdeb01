/* SPDX-License-Identifier: Apache-2.0 */
/* The kernel's view of a session (runc, crun) and the runtime's (runsc), read on this
 * host: which view a runtime gets, and the order of the reading. The session's init
 * process (State.Pid) first, proven the session's (process.c) in its cgroup (cgroup.c);
 * then this host's cgroup mounts and the engine daemon (daemon.c), the task's OCI spec
 * (ocispec.c); then the sandbox (runsc_sandbox.c) or every process of the session
 * (process.c, surface.c). Nothing read counts unless the level is reached: the view, and
 * the kernel's and the spec's evidence, are dropped when it is not. */
#include "attest_internal.h"

#include <errno.h>

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

uint64_t bxa_boot_ticks(void)
{
    struct timespec ts;
    long hz = sysconf(_SC_CLK_TCK);

    if (clock_gettime(CLOCK_BOOTTIME, &ts) != 0 || hz <= 0)
        return UINT64_MAX;
    return (uint64_t)ts.tv_sec * (uint64_t)hz +
           (uint64_t)ts.tv_nsec / (1000000000UL / (uint64_t)hz);
}

void bxa_views_free(bxa_views *v)
{
    json_decref(v->spec);
    json_decref(v->runtime);
    json_decref(v->kernel);
    json_decref(v->runtime_args);
    json_decref(v->sandbox);
    v->spec = v->runtime = v->kernel = v->runtime_args = v->sandbox = NULL;
}

const char *bxa_base_name(const char *s)
{
    const char *b = s ? strrchr(s, '/') : NULL;
    return b ? b + 1 : s ? s : "";
}

/* ---- the whole view ------------------------------------------------------------------------ */

static int is_runsc(const char *rt)
{
    return rt && (strcmp(rt, "runsc") == 0 || strncmp(bxa_base_name(rt), "runsc", 5) == 0);
}

static int is_process_runtime(const char *rt)
{
    const char *b = bxa_base_name(rt);
    return rt && (strcmp(b, "runc") == 0 || strcmp(b, "crun") == 0 ||
                  strcmp(rt, "io.containerd.runc.v2") == 0 ||
                  strcmp(rt, "io.containerd.runtime.v1.linux") == 0);
}

const char *bxa_level_possible(const char *runtime)
{
    return is_runsc(runtime)              ? "engine+runtime"
           : is_process_runtime(runtime) ? "engine+kernel"
                                         : "engine";
}

int bxa_kernel_read(const bxa_session *s, bxa_views *v, bx_evidence *ev, bx_error *err)
{
    bxa_kctx k = {
        .s = s, .v = v, .ev = ev, .err = err, .procfd = -1, .daemon_pid = -1, .ns_root = -1};
    const char *proc_root = s->paths.proc ? s->paths.proc : "/proc";
    bxa_proc init = {.dfd = -1, .pidfd = -1};
    int rc = 0, r, have_cg = 0;

    v->level = "engine";
    if (!is_runsc(s->runtime) && !is_process_runtime(s->runtime)) {
        snprintf(v->why, sizeof v->why,
                 "runtime %s is not one whose processes are the workload's (runc, crun) nor "
                 "runsc",
                 s->runtime ? s->runtime : "(unknown)");
        return 0;
    }
    k.real_proc = strcmp(proc_root, "/proc") == 0;
    k.self_pid = getpid();
    if ((k.procfd = open(proc_root, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0) {
        snprintf(v->why, sizeof v->why, "%s is not readable here", proc_root);
        return 0;
    }
    /* the session's init process, as the engine names it */
    if ((r = bxa_proc_open(&k, s->pid, &init)) < 0) {
        rc = r;
        goto out;
    }
    if (r == 1 && bxa_parse_cgroup(init.cgroup, init.cgroup_len, &k.cg, &k.ncg, err) == 0)
        have_cg = bxa_cgroup_key(&k) == 0;
    if (r != 1 || (!have_cg && !is_runsc(s->runtime))) {
        snprintf(v->why, sizeof v->why,
                 "process %lld (State.Pid) cannot be proven the session's here (its cgroup does "
                 "not name the container, it started after the collection began, or it is in "
                 "another PID namespace)",
                 (long long)s->pid);
        goto out;
    }
    {
        /* the session's namespaces, descriptors and mounts are readable only with ptrace
         * access to its processes (root, or CAP_SYS_PTRACE over them): without it the kernel
         * view would be half facts, so the level stays engine and says why */
        char probe[64];
        if (readlinkat(init.dfd, "ns/pid", probe, sizeof probe) < 0 &&
            (errno == EACCES || errno == EPERM)) {
            snprintf(v->why, sizeof v->why,
                     "the session's processes are not readable by this collector (uid %u): "
                     "their namespaces, descriptors and mounts need root",
                     (unsigned)geteuid());
            goto out;
        }
    }
    bxa_host_mounts(&k, proc_root);
    bxa_daemon_lookup(&k, proc_root);
    if ((rc = bxa_spec_read(&k)) != 0)
        goto out;
    if (is_runsc(s->runtime)) {
        /* the sandbox is proven by its command line (runsc boot ... <Id>) and start time;
         * with --ignore-cgroups it is in no cgroup of the container's */
        json_t *argv = NULL;
        if ((rc = bxa_read_argv(&k, init.dfd, &argv)) != 0)
            goto out;
        r = bxa_runsc_of(argv, "boot", s->id);
        json_decref(argv);
        if (!r) {
            snprintf(v->why, sizeof v->why,
                     "process %lld is not the runsc sandbox of this container", (long long)s->pid);
            goto out;
        }
        if (!v->spec) {
            snprintf(v->why, sizeof v->why, "the task's OCI spec is not readable here");
            goto out;
        }
        rc = bxa_runsc_sandbox(&k, &init, have_cg);
        goto out;
    }
    rc = bxa_kernel_processes(&k, &init);
out:
    if (rc != 0 || strcmp(v->level, "engine") == 0) {
        /* nothing read counts unless the level was reached */
        json_decref(v->kernel);
        json_decref(v->runtime);
        json_decref(v->sandbox);
        json_decref(v->runtime_args);
        v->kernel = v->runtime = v->sandbox = v->runtime_args = NULL;
        if (rc == 0 && v->spec && strcmp(v->level, "engine") == 0) {
            json_decref(v->spec); /* the spec alone is not a level of its own */
            v->spec = NULL;
        }
        bxa_evidence_clear(ev, BXA_EV_KERNEL);
        bxa_evidence_clear(ev, BXA_EV_SPEC);
    }
    bxa_proc_close(&init);
    json_decref(k.spec_json);
    bxa_cgroups_free(k.cg, k.ncg);
    free(k.key_own);
    free(k.others);
    free(k.engine_ino);
    free(k.engine_path);
    json_decref(k.dev_rules);
    bxa_devbpf_free(k.dev_progs);
    if (!k.hm_shared)
        bxa_mounts_free(k.hm, k.nhm);
    bxa_hostobjs_free(k.hobj, k.nhobj);
    if (k.procfd >= 0)
        close(k.procfd);
    return rc;
}
