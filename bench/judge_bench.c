/* SPDX-License-Identifier: Apache-2.0 */
/* judge_bench [RUNS]: the policy's work on crafted certificates at the size cap
 * (docs/benchmarks.md, "Judging a crafted certificate"). Each case fills about 700 KB of
 * statement (a 1 MiB envelope's payload) with the two lists one comparison ranges over (the
 * requested one and the effective one of requested.mustMatch, or a seccomp chain's lists), so
 * that every effective entry meets every requested one before the last; it prints, per case,
 * the statement's size, the finding of the rule and the time bx_policy_eval took (median,
 * min, max over RUNS runs, milliseconds). */
#include "bx_policy.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define BUDGET (700 * 1024) /* bytes of JSON for the two lists together */

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* fmt with its %d (if any) replaced by i, into out. */
static void fill(char *out, size_t n, const char *fmt, int i)
{
    const char *d = strstr(fmt, "%d");
    if (!d) {
        snprintf(out, n, "%s", fmt);
        return;
    }
    snprintf(out, n, "%.*s%d%s", (int)(d - fmt), fmt, i, d + 2);
}

/* n entries of fmt (one %d) as a JSON array; the last one made with last instead. */
static json_t *list(size_t n, const char *fmt, const char *last)
{
    json_t *a = json_array();
    char buf[256];
    for (size_t i = 0; i < n; i++) {
        fill(buf, sizeof buf, i + 1 == n && last ? last : fmt, (int)i);
        json_array_append_new(a, json_loads(buf, JSON_DECODE_ANY, NULL));
    }
    return a;
}

static size_t n_for(const char *a, const char *b)
{
    char x[256], y[256];
    fill(x, sizeof x, a, 99999);
    fill(y, sizeof y, b, 99999);
    return BUDGET / (strlen(x) + strlen(y) + 2);
}

static json_t *statement(json_t *containment, json_t *requested)
{
    json_t *st = json_pack("{s:s, s:{s:o, s:{s:s, s:[]}}}", "_type", BX_STATEMENT_TYPE, "predicate",
                           "containment", containment, "evidence", "level", "engine+kernel",
                           "discrepancies");
    if (requested)
        json_object_set_new(json_object_get(st, "predicate"), "requested",
                            json_pack("{s:o}", "containment", requested));
    return st;
}

/* A seccomp chain whose three x86 ABIs list n names each, none of them denied. */
static json_t *seccomp_case(void)
{
    size_t n = BUDGET / 3 / 12;
    json_t *abis = json_object();
    const char *const abi[] = {"x86_64", "x32", "x86"};
    for (size_t a = 0; a < 3; a++)
        json_object_set_new(abis, abi[a],
                            json_pack("{s:o, s:o, s:s}", "allow", list(n, "\"#%d\"", NULL),
                                      "depends", json_array(), "beyond", "deny"));
    json_t *chain =
        json_pack("{s:s, s:o}", "sha256",
                  "0000000000000000000000000000000000000000000000000000000000000000", "abis", abis);
    return json_pack("{s:{s:s, s:[o], s:{s:i, s:i, s:i, s:i}, s:[]}}", "seccompPrograms",
                     "servedBy", "kernel", "chains", chain, "tasks", "filter", 1, "none", 0,
                     "strict", 0, "unread", 0, "unread");
}

int main(int argc, char **argv)
{
    int runs = argc > 1 ? atoi(argv[1]) : 21;
    static const struct {
        const char *name, *field, *eff, *req, *req_last, *rule;
    } cases[] = {
        {"mounts", "mounts", "{\"destination\": \"/x\", \"source\": \"/s\", \"readOnly\": true}",
         "{\"destination\": \"/d/%d\", \"source\": \"/s\", \"readOnly\": true}",
         "{\"destination\": \"/x\", \"source\": \"/s\", \"readOnly\": true}", "requested.match"},
        {"writeSurface", "writeSurface", "{\"path\": \"/x\", \"kind\": \"tmpfs\"}",
         "{\"path\": \"/p/%d\", \"kind\": \"tmpfs\"}", "{\"path\": \"/x\", \"kind\": \"tmpfs\"}",
         "requested.match"},
        {"maskedPaths", "maskedPaths", "\"/e/%d\"", "\"/e/%d\"", NULL, "requested.match"},
        {"devices.cgroupRules", "devices", "\"c 1:3 r\"", "\"c 9:%d r\"", "\"c 1:3 rwm\"",
         "requested.match"},
        {"capabilities", "capabilities", "\"CAP_%d\"", "\"CAP_%d\"", NULL, "requested.match"},
    };
    bx_policy *p = NULL, *ps = NULL;
    bx_error err;
    const char *pol = "version: 1\nrequested: {mustMatch: true}\n";
    const char *spol = "version: 1\nextends: strict@2\n";
    if (bx_policy_load_buffer(pol, strlen(pol), "bench.yaml", &p, &err) != 0 ||
        bx_policy_load_buffer(spol, strlen(spol), "strict.yaml", &ps, &err) != 0) {
        fprintf(stderr, "judge_bench: policy: %s\n", err.msg);
        return 2;
    }
    double *t = calloc((size_t)runs, sizeof *t);
    /* each case twice: at the size cap, and at 256 entries a side (65,536 pairs: the most a
     * comparison still judges) */
    for (size_t c = 0; c <= 2 * (sizeof cases / sizeof cases[0]); c++) {
        json_t *st, *cont, *req;
        const bx_policy *pp = p;
        const char *name, *rule;
        char label[80];
        if (c < 2 * (sizeof cases / sizeof cases[0])) {
            size_t k = c / 2, n = c % 2 ? 256 : n_for(cases[k].eff, cases[k].req);
            json_t *eff = list(n, cases[k].eff, NULL),
                   *rq = list(n, cases[k].req, cases[k].req_last);
            snprintf(label, sizeof label, "%s, %zu a side", cases[k].name, n);
            name = label;
            rule = cases[k].rule;
            if (strcmp(cases[k].field, "devices") == 0) {
                cont = json_pack("{s:{s:[], s:o, s:b}}", "devices", "devices", "cgroupRules", eff,
                                 "allowAll", 0);
                req = json_pack("{s:{s:[], s:o}}", "devices", "devices", "cgroupRules", rq);
            } else if (strcmp(cases[k].field, "capabilities") == 0) {
                cont = json_pack("{s:{s:o, s:[], s:[], s:[]}, s:b}", "capabilities", "effective",
                                 eff, "permitted", "ambient", "bounding", "noNewPrivileges", 1);
                req = json_pack("{s:{s:o}}", "capabilities", "effective", rq);
            } else {
                cont = json_pack("{s:o}", cases[k].field, eff);
                req = json_pack("{s:o}", cases[k].field, rq);
            }
        } else {
            name = "seccomp lists (strict@2's deny)";
            rule = "containment.seccomp_deny";
            cont = seccomp_case();
            req = NULL;
            pp = ps;
        }
        st = statement(cont, req);
        char *text = json_dumps(st, JSON_COMPACT);
        size_t size = text ? strlen(text) : 0;
        free(text);
        const char *status = "(no finding)";
        json_t *last = NULL;
        for (int r = 0; r < runs; r++) {
            bx_eval_ctx ctx = {.now = 1780000000};
            json_t *f = json_array();
            double t0 = now();
            if (bx_policy_eval(pp, st, &ctx, f, &err) != 0) {
                fprintf(stderr, "judge_bench: %s: %s\n", name, err.msg);
                return 1;
            }
            t[r] = now() - t0;
            json_decref(last);
            last = f;
        }
        size_t i;
        json_t *v;
        json_array_foreach(last, i, v)
        {
            if (strcmp(json_string_value(json_object_get(v, "rule")), rule) == 0)
                status = json_string_value(json_object_get(v, "status"));
        }
        qsort(t, (size_t)runs, sizeof *t, cmp);
        printf("%-40s %7zu bytes  %-8s median %9.3f ms  min %9.3f ms  max %9.3f ms  (%d runs)\n",
               name, size, status, t[runs / 2], t[0], t[runs - 1], runs);
        fflush(stdout);
        json_decref(last);
        json_decref(st);
    }
    free(t);
    bx_policy_free(p);
    bx_policy_free(ps);
    return 0;
}
