/* SPDX-License-Identifier: Apache-2.0 */
/* Evaluating Docker's default seccomp program: the median over many runs of
 * bx_seccomp_eval (cache off), and, measured in the same run as a reference, libseccomp
 * compiling the same profile (seccomp_init .. seccomp_export_bpf into a memfd).
 *   seccomp_bench [PROFILE.json [RUNS]]   (default fixtures/seccomp/docker-default.json, 501)
 * Prints one line per figure: name, median, min and max in microseconds. */
#include "bx_seccomp.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static void report(const char *name, double *v, int n)
{
    qsort(v, (size_t)n, sizeof v[0], cmp);
    printf("%-28s median %9.1f us  min %9.1f us  max %9.1f us  (%d runs)\n", name, v[n / 2], v[0],
           v[n - 1], n);
}

int main(int argc, char **argv)
{
    const char *path =
        argc > 1 ? argv[1] : BOXCERT_SOURCE_DIR "/fixtures/seccomp/docker-default.json";
    int runs = argc > 2 ? atoi(argv[2]) : 501, rc = 1;
    double *ev = NULL, *co = NULL, *cached = NULL;
    json_t *prof = json_load_file(path, JSON_REJECT_DUPLICATES, NULL), *oci = NULL;
    struct sock_filter *insns = NULL;
    size_t len = 0;
    bx_error err = {0};

    if (runs < 1 || !prof ||
        bx_seccomp_docker_to_oci(prof, "amd64", bx_seccomp_docker_default_caps, 6, 12, &oci,
                                 &err) != 0) {
        fprintf(stderr, "seccomp_bench: cannot load %s: %s\n", path, err.msg);
        goto out;
    }
    ev = calloc((size_t)runs, sizeof *ev);
    co = calloc((size_t)runs, sizeof *co);
    cached = calloc((size_t)runs, sizeof *cached);
    if (!ev || !co || !cached)
        goto out;
    for (int i = 0; i < runs; i++) { /* interleaved, so both see the same machine */
        free(insns);
        double t0 = now();
        if (bx_seccomp_profile_compile(oci, &insns, &len, NULL, &err) != 0) {
            fprintf(stderr, "seccomp_bench: %s\n", err.msg);
            goto out;
        }
        double t1 = now();
        bx_seccomp_prog p = {insns, len};
        bx_seccomp_table *t = NULL;
        if (bx_seccomp_eval(&p, 1, BX_SECCOMP_NOCACHE, &t, &err) != 0) {
            fprintf(stderr, "seccomp_bench: %s\n", err.msg);
            goto out;
        }
        double t2 = now();
        bx_seccomp_table_free(t);
        t = NULL;
        double t3 = now();
        if (bx_seccomp_eval(&p, 1, 0, &t, &err) != 0)
            goto out;
        double t4 = now();
        bx_seccomp_table_free(t);
        co[i] = t1 - t0;
        ev[i] = t2 - t1;
        cached[i] = t4 - t3;
    }
    printf("Docker's default profile, amd64: %zu instructions\n", len);
    report("evaluate (no cache)", ev, runs);
    report("evaluate (cached)", cached, runs);
    report("libseccomp compile+export", co, runs);
    rc = 0;
out:
    free(ev);
    free(co);
    free(cached);
    free(insns);
    json_decref(oci);
    json_decref(prof);
    return rc;
}
