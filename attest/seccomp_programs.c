/* SPDX-License-Identifier: Apache-2.0 */
/* containment.seccompPrograms (v2): the distinct chains the session's tasks run, each with
 * its meaning by the evaluator (seccomp/), how many tasks run it, the tasks not read and
 * why, and the OCI profile the runtime was given judged against what the kernel enforces. */
#include "attest_seccomp.h"

#include <dirent.h>
#include <stdarg.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct {
    unsigned char sha[32];
    bx_seccomp_prog *progs;
    size_t n;
    int log;
    int64_t tasks;
} sc_chain;

struct bxa_sc_set {
    bxa_sc_reader reader;
    sc_chain *chains;
    size_t nchains;
    int64_t none, strict, read, gone;
    json_t *unread; /* [{tid, reason}] */
    json_t *kept;   /* the filters kept as evidence, by name */
};

bxa_sc_set *bxa_sc_set_new(void)
{
    bxa_sc_set *s = calloc(1, sizeof *s);
    if (s && (!(s->unread = json_array()) || !(s->kept = json_object()))) {
        json_decref(s->unread);
        free(s);
        return NULL;
    }
    return s;
}

static void chain_free(sc_chain *c)
{
    for (size_t i = 0; i < c->n; i++)
        free((void *)c->progs[i].insns);
    free(c->progs);
}

void bxa_sc_set_free(bxa_sc_set *s)
{
    if (!s)
        return;
    for (size_t i = 0; i < s->nchains; i++)
        chain_free(&s->chains[i]);
    free(s->chains);
    json_decref(s->unread);
    json_decref(s->kept);
    free(s);
}

bxa_sc_reader *bxa_sc_set_reader(bxa_sc_set *s)
{
    return &s->reader;
}

size_t bxa_sc_set_nchains(const bxa_sc_set *s)
{
    return s->nchains;
}

const bx_seccomp_prog *bxa_sc_set_chain(const bxa_sc_set *s, size_t i, size_t *n)
{
    *n = s->chains[i].n;
    return s->chains[i].progs;
}

int64_t bxa_sc_set_none(const bxa_sc_set *s)
{
    return s->none;
}

int64_t bxa_sc_set_unread(const bxa_sc_set *s)
{
    return (int64_t)json_array_size(s->unread);
}

int bxa_sc_set_add(bxa_sc_set *s, const bxa_sc_task *t, bx_error *err)
{
    bx_seccomp_prog progs[BXA_SC_FILTERS_MAX];
    unsigned char sha[32];
    sc_chain *c, *nc;
    int log = 0;

    switch (t->state) {
    case BXA_SC_NONE:
        s->none++;
        return 0;
    case BXA_SC_STRICT:
        s->strict++;
        return 0;
    case BXA_SC_GONE:
        s->gone++;
        return 0;
    case BXA_SC_READ:
        break;
    default: {
        json_t *u = json_pack("{s:I,s:s}", "tid", (json_int_t)t->tid, "reason",
                              t->why[0] ? t->why : "not read");
        if (!u || json_array_append_new(s->unread, u) != 0)
            return bxa_oom(err);
        return 0;
    }
    }
    for (size_t i = 0; i < t->nfilters; i++) {
        progs[i] = (bx_seccomp_prog){t->filter[i], t->len[i]};
        log |= (t->flags[i] & SECCOMP_FILTER_FLAG_LOG) != 0;
    }
    bx_seccomp_chain_sha256(progs, t->nfilters, sha);
    s->read++;
    for (size_t i = 0; i < s->nchains; i++) {
        if (memcmp(s->chains[i].sha, sha, 32) == 0 && s->chains[i].log == log) {
            s->chains[i].tasks++;
            return 0;
        }
    }
    if (!(nc = realloc(s->chains, (s->nchains + 1) * sizeof *nc)))
        return bxa_oom(err);
    s->chains = nc;
    c = &s->chains[s->nchains];
    memset(c, 0, sizeof *c);
    memcpy(c->sha, sha, 32);
    c->log = log;
    c->tasks = 1;
    if (!(c->progs = calloc(t->nfilters, sizeof *c->progs)))
        return bxa_oom(err);
    s->nchains++;
    for (size_t i = 0; i < t->nfilters; i++) {
        struct sock_filter *f = malloc(t->len[i] * sizeof *f);
        if (!f)
            return bxa_oom(err);
        memcpy(f, t->filter[i], t->len[i] * sizeof *f);
        c->progs[i] = (bx_seccomp_prog){f, t->len[i]};
        c->n++;
    }
    return 0;
}

__attribute__((format(printf, 4, 5))) static void lappend(char *line, size_t cap, size_t *l,
                                                           const char *fmt, ...)
{
    va_list ap;
    int n;
    if (*l + 1 >= cap)
        return;
    va_start(ap, fmt);
    n = vsnprintf(line + *l, cap - *l, fmt, ap);
    va_end(ap);
    *l = n < 0 ? *l : *l + (size_t)n >= cap ? cap - 1 : *l + (size_t)n;
}

static const char *state_name(int state)
{
    static const char *const names[] = {"pending", "read", "none", "strict", "unread", "gone"};
    return state >= 0 && state <= BXA_SC_GONE ? names[state] : "?";
}

int bxa_sc_fold_proc(bxa_kctx *k, bxa_sc_set *s, const bxa_proc *p, const int64_t *tids,
                     char *const *status, size_t n)
{
    bxa_sc_task *tasks = calloc(n ? n : 1, sizeof *tasks);
    char *lines = NULL, name[96], hex[65];
    size_t len = 0, cap = 0;
    int rc = 0;

    if (!tasks)
        return bxa_oom(k->err);
    for (size_t i = 0; i < n; i++) {
        bxa_sc_task_init(&tasks[i], tids[i], status[i]);
        if (!k->real_proc && tasks[i].state == BXA_SC_PENDING) {
            tasks[i].state = BXA_SC_UNREAD;
            snprintf(tasks[i].why, sizeof tasks[i].why, "not this host's /proc: not read");
        }
    }
    if ((rc = bxa_sc_read_tasks(&s->reader, tasks, n, k->err)) != 0)
        goto out;
    for (size_t i = 0; rc == 0 && i < n; i++) {
        const bxa_sc_task *t = &tasks[i];
        char line[400];
        size_t l = 0;
        if ((rc = bxa_sc_set_add(s, t, k->err)) != 0)
            break;
        lappend(line, sizeof line, &l, "%lld %s", (long long)t->tid, state_name(t->state));
        for (size_t f = 0; f < t->nfilters && t->state == BXA_SC_READ; f++) {
            unsigned char sha[32];
            bx_sha256(t->filter[f], t->len[f] * sizeof *t->filter[f], sha);
            bx_hex_encode(sha, 32, hex);
            lappend(line, sizeof line, &l, " %.12s", hex);
            if (t->flags[f])
                lappend(line, sizeof line, &l, "/%llx", (unsigned long long)t->flags[f]);
            snprintf(name, sizeof name, "seccomp/%s", hex);
            /* one file per distinct filter */
            if (!json_object_get(s->kept, name)) {
                if ((rc = bxa_evidence_add(k->ev, BXA_EV_KERNEL, name, t->filter[f],
                                           t->len[f] * sizeof *t->filter[f], k->err)) != 0)
                    break;
                if (json_object_set_new(s->kept, name, json_true()) != 0) {
                    rc = bxa_oom(k->err);
                    break;
                }
            }
        }
        if (rc != 0)
            break;
        if (t->state == BXA_SC_UNREAD)
            lappend(line, sizeof line, &l, " %s", t->why);
        if (len + l + 2 > cap) {
            char *nb = realloc(lines, cap = (len + l + 2) * 2);
            if (!nb) {
                rc = bxa_oom(k->err);
                break;
            }
            lines = nb;
        }
        memcpy(lines + len, line, l);
        len += l;
        lines[len++] = '\n';
    }
    if (rc == 0 && len)
        rc = bxa_keep_proc(k, (bxa_proc *)p, "seccomp", lines, len);
out:
    for (size_t i = 0; i < n; i++)
        bxa_sc_task_clear(&tasks[i]);
    free(tasks);
    free(lines);
    return rc;
}

/* ---- meaning ---------------------------------------------------------------------------- */

static json_t *entry_name(size_t abi, unsigned nr)
{
    const char *name = bx_seccomp_syscall_name(abi, nr);
    char buf[16];
    if (name)
        return json_string(name);
    snprintf(buf, sizeof buf, "#%u", nr);
    return json_string(buf);
}

static const char *ret_word(const bx_seccomp_entry *e, char *buf, size_t len)
{
    if (e->uniform)
        return bx_seccomp_ret_str(e->ret, buf, len);
    return bx_seccomp_verdict_name(e->verdict);
}

static int cmp_json_str(const void *a, const void *b)
{
    return strcmp(json_string_value(*(json_t *const *)a), json_string_value(*(json_t *const *)b));
}

/* The numbers of one verdict: names, and the numbers libseccomp does not know as runs
 * "#A" or "#A-B". */
static json_t *verdict_list(const bx_seccomp_table *t, size_t a, int verdict)
{
    json_t *l = json_array();
    char buf[32];

    for (unsigned nr = 0; l && nr < BX_SECCOMP_NR_COUNT; nr++) {
        unsigned last = nr;
        if (t->nr[a][nr].verdict != verdict)
            continue;
        if (bx_seccomp_syscall_name(a, nr)) {
            json_array_append_new(l, json_string(bx_seccomp_syscall_name(a, nr)));
            continue;
        }
        while (last + 1 < BX_SECCOMP_NR_COUNT && t->nr[a][last + 1].verdict == verdict &&
               !bx_seccomp_syscall_name(a, last + 1))
            last++;
        if (last == nr)
            snprintf(buf, sizeof buf, "#%u", nr);
        else
            snprintf(buf, sizeof buf, "#%u-%u", nr, last);
        json_array_append_new(l, json_string(buf));
        nr = last;
    }
    if (l)
        bxa_sort_json(l, cmp_json_str);
    return l;
}

json_t *bxa_sc_chain_json(const bx_seccomp_table *t, int64_t tasks, int log)
{
    json_t *abis = json_object(), *out = NULL;
    char hex[65], rb[48];

    if (!abis)
        return NULL;
    for (size_t a = 0; a < BX_SECCOMP_NABI; a++) {
        json_t *o = json_pack("{s:o,s:o,s:s}", "allow", verdict_list(t, a, BX_SECCOMP_ALLOW),
                              "depends", verdict_list(t, a, BX_SECCOMP_DEPENDS), "beyond",
                              ret_word(&t->beyond[a], rb, sizeof rb));
        if (!o || json_object_set_new(abis, bx_seccomp_abi(a)->name, o) != 0) {
            json_decref(abis);
            return NULL;
        }
    }
    bx_hex_encode(t->sha256, 32, hex);
    out = json_pack("{s:s,s:I,s:I,s:I,s:b,s:o,s:s}", "sha256", hex, "tasks", (json_int_t)tasks,
                    "filters", (json_int_t)t->filters, "insns", (json_int_t)t->insns, "log", log,
                    "abis", abis, "otherArch", ret_word(&t->other_arch, rb, sizeof rb));
    return out;
}

/* Where a chain lets through (allow or depends) what the profile denies, appended to looser
 * as {abi, syscall, kernel}. */
static int looser_than(const bx_seccomp_table *k, const bx_seccomp_table *p, json_t *looser)
{
    for (size_t a = 0; a < BX_SECCOMP_NABI; a++)
        for (unsigned nr = 0; nr < BX_SECCOMP_NR_COUNT; nr++) {
            const bx_seccomp_entry *ke = &k->nr[a][nr], *pe = &p->nr[a][nr];
            json_t *e;
            if (ke->verdict == BX_SECCOMP_DENY || pe->verdict != BX_SECCOMP_DENY)
                continue;
            e = json_pack("{s:s,s:o,s:s}", "abi", bx_seccomp_abi(a)->name, "syscall",
                          entry_name(a, nr), "kernel", bx_seccomp_verdict_name(ke->verdict));
            if (!e || json_array_append_new(looser, e) != 0)
                return -1;
        }
    return 0;
}

static int cmp_sha(const void *a, const void *b)
{
    return strcmp(json_string_value(json_object_get(*(json_t *const *)a, "sha256")),
                  json_string_value(json_object_get(*(json_t *const *)b, "sha256")));
}

static int cmp_tid(const void *a, const void *b)
{
    json_int_t x = json_integer_value(json_object_get(*(json_t *const *)a, "tid"));
    json_int_t y = json_integer_value(json_object_get(*(json_t *const *)b, "tid"));
    return (x > y) - (x < y);
}

/* Every chain of s evaluated: the chains' JSON into *chains; each table kept in tables[]
 * (caller frees) when tables is given. */
static int eval_all(bxa_sc_set *s, json_t **chains, bx_seccomp_table ***tables, bx_error *err)
{
    json_t *arr = json_array();
    bx_seccomp_table **tabs = calloc(s->nchains ? s->nchains : 1, sizeof *tabs);
    int rc = 0;

    if (!arr || !tabs) {
        rc = bxa_oom(err);
        goto out;
    }
    for (size_t i = 0; i < s->nchains; i++) {
        sc_chain *c = &s->chains[i];
        json_t *j;
        if ((rc = bx_seccomp_eval(c->progs, c->n, 0, &tabs[i], err)) != 0) {
            bx_error_prefix(err, "a seccomp chain the kernel ran");
            goto out;
        }
        if (!(j = bxa_sc_chain_json(tabs[i], c->tasks, c->log)) ||
            json_array_append_new(arr, j) != 0) {
            rc = bxa_oom(err);
            goto out;
        }
    }
    bxa_sort_json(arr, cmp_sha);
    *chains = arr;
    arr = NULL;
    if (tables) {
        *tables = tabs;
        tabs = NULL;
    }
out:
    if (tabs)
        for (size_t i = 0; i < s->nchains; i++)
            bx_seccomp_table_free(tabs[i]);
    free(tabs);
    json_decref(arr);
    return rc;
}

int bxa_sc_json(bxa_sc_set *s, const json_t *oci, const char *served_by, bxa_sc_set *sandbox_set,
                const bx_seccomp_table *workload, json_t **out, bx_error *err)
{
    json_t *o = NULL, *chains = NULL, *profile = json_null(), *sandbox = json_null();
    json_t *unread = json_deep_copy(s->unread);
    bx_seccomp_table **tabs = NULL, *pt = NULL;
    int rc;

    *out = NULL;
    if (!unread)
        return bxa_oom(err);
    bxa_sort_json(unread, cmp_tid);
    if (!s->reader.checked)
        bxa_sc_self(&s->reader);
    if ((rc = eval_all(s, &chains, &tabs, err)) != 0)
        goto out;
    if (oci && json_is_object(oci)) {
        json_t *looser = json_array();
        char hex[1], jcs[65];
        if (!looser) {
            rc = bxa_oom(err);
            goto out;
        }
        bx_error perr = {0};
        (void)hex;
        if ((rc = bx_jcs_sha256_hex(oci, jcs, err)) != 0) {
            json_decref(looser);
            goto out;
        }
        /* the profile's verdicts from its rules (seccomp_rules.c): one it cannot read is
         * recorded, not judged */
        if (bxa_sc_rules_table(oci, &pt, &perr) != 0) {
            json_decref(looser);
            looser = json_null();
        } else {
            for (size_t i = 0; i < s->nchains; i++)
                if (looser_than(tabs[i], pt, looser) != 0) {
                    json_decref(looser);
                    rc = bxa_oom(err);
                    goto out;
                }
        }
        json_decref(profile);
        profile = json_pack("{s:s,s:o}", "sha256", jcs, "looser", looser);
    }
    if (workload) { /* the sentry's workload filter: the profile's rules */
        json_t *j = bxa_sc_chain_json(workload, 1, 0);
        if (!j || json_array_append_new(chains, j) != 0) {
            rc = bxa_oom(err);
            goto out;
        }
    }
    if (sandbox_set) {
        json_decref(sandbox);
        sandbox = NULL;
        if ((rc = eval_all(sandbox_set, &sandbox, NULL, err)) != 0)
            goto out;
    }
    o = json_pack("{s:s,s:o,s:o,s:{s:I,s:I,s:I,s:I},s:o,s:s?,s:O,s:O}", "servedBy", served_by,
                  "chains", s->reader.confined ? json_null() : chains, "unread", unread, "tasks",
                  "filter", (json_int_t)s->read, "none", (json_int_t)s->none, "strict",
                  (json_int_t)s->strict, "unread", (json_int_t)json_array_size(s->unread),
                  "reader", json_pack("{s:b,s:b,s:b}", "capSysAdmin", s->reader.cap_sys_admin,
                                      "initialUserNamespace", s->reader.initial_userns,
                                      "seccomp", s->reader.seccomp != 0),
                  "why", s->reader.confined ? s->reader.why : NULL, "profile", profile, "sandbox",
                  sandbox ? sandbox : json_null());
    if (s->reader.confined)
        json_decref(chains);
    chains = unread = NULL;
    if (!o) {
        rc = bxa_oom(err);
        goto out;
    }
    *out = o;
out:
    json_decref(chains);
    json_decref(unread);
    json_decref(profile);
    json_decref(sandbox);
    if (tabs)
        for (size_t i = 0; i < s->nchains; i++)
            bx_seccomp_table_free(tabs[i]);
    free(tabs);
    bx_seccomp_table_free(pt);
    return rc;
}

/* ---- runsc --------------------------------------------------------------------------------- */

/* Every task of p (its task folder listed here) read into s. */
static int fold_all_tasks(bxa_kctx *k, bxa_sc_set *s, const bxa_proc *p)
{
    int tfd = openat(p->dfd, "task", O_RDONLY | O_DIRECTORY | O_CLOEXEC), dfd;
    DIR *d = NULL;
    struct dirent *de;
    int64_t *tids = NULL;
    char **bufs = NULL;
    size_t n = 0, cap = 0, len;
    int rc = 0;

    if (tfd < 0)
        return 0; /* gone: the sandbox's own reading stops the collection */
    if ((dfd = dup(tfd)) < 0 || !(d = fdopendir(dfd))) {
        if (dfd >= 0)
            close(dfd);
        close(tfd);
        return bx_error_errno(k->err, BX_EIO, "task", "cannot list");
    }
    while (rc == 0 && (de = readdir(d)) != NULL) {
        char *end, path[48];
        long long tid = strtoll(de->d_name, &end, 10);
        if (*end || tid <= 0)
            continue;
        if (n == cap) {
            int64_t *nt = realloc(tids, (cap = cap ? cap * 2 : 64) * sizeof *nt);
            char **nb = nt ? realloc(bufs, cap * sizeof *nb) : NULL;
            if (nt)
                tids = nt;
            if (!nb) {
                rc = bxa_oom(k->err);
                break;
            }
            bufs = nb;
        }
        snprintf(path, sizeof path, "%lld/status", tid);
        rc = bxa_read_at(tfd, path, BXA_PROC_FILE_MAX, &bufs[n], &len, k->err);
        if (rc == BX_ENOTFOUND) {
            rc = 0;
            continue;
        }
        if (rc == 0)
            tids[n++] = tid;
    }
    closedir(d);
    close(tfd);
    if (rc == 0)
        rc = bxa_sc_fold_proc(k, s, p, tids, bufs, n);
    for (size_t i = 0; i < n; i++)
        free(bufs[i]);
    free(bufs);
    free(tids);
    return rc;
}

int bxa_sc_runsc(bxa_kctx *k, const bxa_proc *sb, const json_t *rt_seccomp, json_t **out,
                 json_t **ns)
{
    bxa_sc_set *sentry = bxa_sc_set_new(), *work = bxa_sc_set_new();
    const json_t *oci = json_object_get(json_object_get(k->spec_json, "linux"), "seccomp");
    const char *mode = json_string_value(json_object_get(rt_seccomp, "mode"));
    int enforced = mode && strcmp(mode, "filter") == 0 && json_is_object(oci);
    bx_seccomp_table *wt = NULL;
    bx_error perr = {0};
    int rc;

    *out = *ns = NULL;
    if (!sentry || !work) {
        rc = bxa_oom(k->err);
        goto out;
    }
    if ((rc = fold_all_tasks(k, sentry, sb)) != 0)
        goto out;
    /* the workload's filter is the profile, enforced by the sentry (its rules, no classic-BPF
     * program) only with --oci-seccomp */
    if (enforced && bxa_sc_rules_table(oci, &wt, &perr) == 0) {
        char hex[65];
        if ((rc = bx_jcs_sha256_hex(oci, hex, k->err)) != 0 ||
            (rc = bx_hex_decode(hex, wt->sha256, 32, k->err)) != 0)
            goto out;
        work->read = 1;
    } else if (enforced) {
        json_t *u = json_pack("{s:I,s:s}", "tid", (json_int_t)sb->pid, "reason",
                              "the OCI profile the sentry enforces could not be read");
        if (!u || json_array_append_new(work->unread, u) != 0) {
            rc = bxa_oom(k->err);
            goto out;
        }
    }
    work->reader = sentry->reader;
    rc = bxa_sc_json(work, enforced ? oci : NULL, "sentry", sentry, wt, out, k->err);
    /* what this host's kernel lets the sandbox's own tasks create (the workload's namespaces
     * are the sentry's) */
    if (rc == 0) {
        long long max = -1;
        if (k->real_proc)
            bxa_userns_max_read(sb->dfd, &max);
        if ((rc = bxa_ns_creation_json(sentry, "sentry", max, ns, k->err)) != 0) {
            json_decref(*out);
            *out = NULL;
        }
    }
out:
    bx_seccomp_table_free(wt);
    bxa_sc_set_free(sentry);
    bxa_sc_set_free(work);
    return rc;
}
