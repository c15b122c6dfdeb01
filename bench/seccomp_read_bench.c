/* SPDX-License-Identifier: Apache-2.0 */
/* seccomp_read_bench PID [N]: what reading the seccomp programs adds to a collection of the
 * session whose init is PID (docs/benchmarks.md, "Seccomp programs read"): N times (default
 * 50) every task of PID and of its children read by ptrace, counted and given its meaning (the
 * evaluator's cache emptied each time, as in a collection, which runs once per process), the
 * JSON built. Prints the median
 * and the worst time of one whole reading, and the longest time a task was stopped. Needs
 * root (CAP_SYS_ADMIN in the initial user namespace). */
#include "attest_seccomp.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The tasks of pid and of its children, with their status texts. */
static size_t tasks_of(long pid, int64_t *tids, char **bufs, size_t max)
{
    char path[64], *kids = NULL;
    size_t n = 0, kl;
    bx_error e;
    long pids[256];
    size_t np = 0;
    int fd;

    pids[np++] = pid;
    snprintf(path, sizeof path, "/proc/%ld/task/%ld", pid, pid);
    if ((fd = open(path, O_RDONLY | O_DIRECTORY)) >= 0) {
        if (bxa_read_at(fd, "children", 1 << 16, &kids, &kl, &e) == 0) {
            for (char *t = strtok(kids, " \n"); t && np < 256; t = strtok(NULL, " \n"))
                pids[np++] = atol(t);
        }
        close(fd);
    }
    free(kids);
    for (size_t p = 0; p < np; p++) {
        DIR *d;
        struct dirent *de;
        snprintf(path, sizeof path, "/proc/%ld/task", pids[p]);
        if (!(d = opendir(path)))
            continue;
        while ((de = readdir(d)) && n < max) {
            char sp[320];
            size_t len;
            int tfd;
            if (de->d_name[0] == '.')
                continue;
            snprintf(sp, sizeof sp, "/proc/%ld/task/%s", pids[p], de->d_name);
            if ((tfd = open(sp, O_RDONLY | O_DIRECTORY)) < 0)
                continue;
            if (bxa_read_at(tfd, "status", 1 << 16, &bufs[n], &len, &e) == 0)
                tids[n++] = atol(de->d_name);
            close(tfd);
        }
        closedir(d);
    }
    return n;
}

int main(int argc, char **argv)
{
    long pid = argc > 1 ? atol(argv[1]) : 0;
    int iters = argc > 2 ? atoi(argv[2]) : 50;
    double *ms = calloc((size_t)(iters > 0 ? iters : 1), sizeof *ms);
    int64_t stopped_max = 0, stopped_total = 0, tasks_read = 0, wait_total = 0;
    size_t ntasks = 0;

    if (pid <= 0 || iters <= 0 || !ms) {
        fprintf(stderr, "usage: seccomp_read_bench PID [N]\n");
        return 2;
    }
    for (int i = 0; i < iters; i++) {
        int64_t tids[1024];
        char *bufs[1024];
        bxa_sc_task *t;
        bxa_sc_set *s = bxa_sc_set_new();
        bxa_sc_reader *r = bxa_sc_set_reader(s);
        json_t *j = NULL;
        bx_error e = {0};
        double t0;
        size_t n;

        if (!getenv("SECCOMP_BENCH_WARM"))
            bx_seccomp_cache_clear();
        t0 = now_ms();
        n = tasks_of(pid, tids, bufs, 1024);
        t = calloc(n ? n : 1, sizeof *t);
        for (size_t k = 0; k < n; k++)
            bxa_sc_task_init(&t[k], tids[k], bufs[k]);
        if (bxa_sc_read_tasks(r, t, n, &e) != 0) {
            fprintf(stderr, "seccomp_read_bench: %s\n", e.msg);
            return 1;
        }
        for (size_t k = 0; k < n; k++) {
            if (bxa_sc_set_add(s, &t[k], &e) != 0)
                return 1;
            tasks_read += t[k].state == BXA_SC_READ;
        }
        if (bxa_sc_json(s, NULL, "kernel", NULL, NULL, &j, &e) != 0) {
            fprintf(stderr, "seccomp_read_bench: %s\n", e.msg);
            return 1;
        }
        ms[i] = now_ms() - t0;
        if (r->stopped_us_max > stopped_max)
            stopped_max = r->stopped_us_max;
        stopped_total += r->stopped_us_total;
        wait_total += r->wait_us_total;
        ntasks = n;
        json_decref(j);
        for (size_t k = 0; k < n; k++) {
            bxa_sc_task_clear(&t[k]);
            free(bufs[k]);
        }
        free(t);
        bxa_sc_set_free(s);
    }
    qsort(ms, (size_t)iters, sizeof *ms, cmp_d);
    printf("{\"tasks\": %zu, \"tasksRead\": %.1f, \"iterations\": %d, \"medianMs\": %.3f, "
           "\"maxMs\": %.3f, \"stoppedMaxUs\": %lld, \"stoppedMeanUs\": %.1f, \"waitMeanUs\": %.1f}\n",
           ntasks, (double)tasks_read / iters, iters, ms[iters / 2], ms[iters - 1],
           (long long)stopped_max,
           tasks_read ? (double)stopped_total / (double)tasks_read : 0.0,
           tasks_read ? (double)wait_total / (double)tasks_read : 0.0);
    free(ms);
    return 0;
}
