/* SPDX-License-Identifier: Apache-2.0 */
#include "cli.h"
#include "report.h"

#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <malloc.h>
#include <pthread.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

static const char help[] =
    "usage: boxcert verify CERT... --policy FILE|PROFILE [--key PUB]... [--threshold N]\n"
    "         [--at RFC3339] [--nonce HEX] [--expect-image sha256:HEX] [--expect-container ID|NAME]\n"
    "         [--expect-label K=V]... [--expect-source COMMIT] [--seen FILE] [--jobs N]\n"
    "         [--max-size BYTES] [--format text|json|junit|sarif|github] [--output FILE]\n\n"
    "Verify certificates offline: envelope, signatures (distinct trusted keys >= threshold),\n"
    "statement, key validity, times, challenge and bindings, then the policy's rules.\n"
    "CERT is a file (*.intoto.json), a JSON Lines bundle (*.intoto.jsonl: one envelope per\n"
    "line), a directory of those, or - for stdin (read as JSON Lines).\n"
    "  --key PUB              trust this public key (SPKI PEM) besides the policy's\n"
    "  --threshold N          override trust.threshold\n"
    "  --at TIME              judge times at TIME (RFC 3339) instead of now\n"
    "  --nonce HEX            the certificate must carry this challenge\n"
    "  --expect-image ID      bind: predicate.image.id\n"
    "  --expect-container C   bind: the session's container Id (or a 12+ digit prefix) or name\n"
    "  --expect-label K=V     bind: the session carries this label (repeatable)\n"
    "  --expect-source SHA    bind: the statement's source commit\n"
    "  --seen FILE            reject certificates seen before; record those that pass\n"
    "  --jobs N               verify with N threads (output stays in input order)\n"
    "  --max-size N           envelope size cap in bytes (default 1048576)\n"
    "  --format F             text (default), json, junit, sarif or github\n"
    "  --output FILE          write the report to FILE (atomically) instead of stdout\n"
    "Exit: 0 all pass, 1 a certificate failed, 2 usage or configuration error, 3 I/O error.\n";

/* With --jobs 1 each certificate is read, verified, reported and freed before the next
 * is read. With N > 1, N threads verify while this one reads ahead into a ring of RING
 * slots and reports in input order; each result goes back to the thread that verified it
 * to be freed. Memory stays bounded by the ring (and BATCH_BYTES of queued input),
 * whatever the number of certificates. */
#define RING 8
#define BATCH_BYTES (16u * 1024 * 1024)

typedef struct {
    char *file;
    size_t line;
    char *buf;
    size_t len;
    int unreadable;
    bx_error err;
    bx_verify_result res;
    int rc;
    size_t worker; /* who verified it */
    int done;      /* under lock */
} item;

typedef struct {
    pthread_t tid;
    bx_policy policy; /* the run's, with a copy of the effective policy of its own */
    bx_verify_result garbage[RING + 1]; /* its reported results, to free */
    size_t ngarbage;
} wstate;

typedef struct {
    const bx_policy *policy;
    bx_verify_opts vo;
    int jobs;
    report *rep;
    bx_seen *seen;
    item items[RING];
    size_t head, next, tail; /* report, verify, fill: head <= next <= tail, tail - head <= RING */
    size_t bytes;            /* queued input */
    pthread_mutex_t lock;
    pthread_cond_t work, done;
    wstate *w;
    size_t nthreads, idle;
    size_t waiting_for; /* the item the reading thread waits for, or SIZE_MAX */
    int stop;
    int io_error, env_error;
} run;

/* ---- small blocks for jansson ---------------------------------------------------------
 * A certificate's statement tree and findings are some 850 small blocks, allocated and freed
 * within moments; glibc keeps 7 freed blocks of a size per thread, so most of them went
 * through its arena bins (a sixth of the time of a verification in the profile). Freed
 * blocks of up to 512 bytes are kept here, per thread and 16-byte class, for the next
 * certificate. Every block is an ordinary malloc() block (its class is read with
 * malloc_usable_size), so blocks pass freely between this cache, jansson and free().
 * Not under the sanitizers, which should see every free. */
#if defined(__SANITIZE_ADDRESS__)
#define JCACHE 0
#else
#define JCACHE 1
#endif
#define JCACHE_CLASSES 33               /* class c: blocks of at least 16 * c usable bytes */
#define JCACHE_MAX 1024                 /* blocks per class and thread */
#define JCACHE_BYTES (2u * 1024 * 1024) /* per thread */

typedef struct {
    void *head[JCACHE_CLASSES];
    unsigned n[JCACHE_CLASSES];
    size_t bytes;
} jcache;

static __thread jcache jc;

static void *jc_malloc(size_t size)
{
    size_t c = (size + 15) / 16;
    if (c >= JCACHE_CLASSES)
        return malloc(size);
    if (jc.head[c]) {
        void *p = jc.head[c];
        jc.head[c] = *(void **)p;
        jc.n[c]--;
        jc.bytes -= c * 16;
        return p;
    }
    return malloc(c * 16);
}

static void jc_free(void *p)
{
    size_t c = p ? malloc_usable_size(p) / 16 : 0;
    if (c > 0 && c < JCACHE_CLASSES && jc.n[c] < JCACHE_MAX && jc.bytes < JCACHE_BYTES) {
        *(void **)p = jc.head[c];
        jc.head[c] = p;
        jc.n[c]++;
        jc.bytes += c * 16;
        return;
    }
    free(p);
}

/* Give this thread's cached blocks back to malloc. */
static void jc_release(void)
{
    for (size_t c = 0; c < JCACHE_CLASSES; c++) {
        while (jc.head[c]) {
            void *p = jc.head[c];
            jc.head[c] = *(void **)p;
            free(p);
        }
        jc.n[c] = 0;
    }
    jc.bytes = 0;
}

static void verify_item(run *r, const bx_policy *p, item *it)
{
    if (it->unreadable)
        return;
    it->rc = bx_verify_envelope(p, &r->vo, it->buf, it->len, &it->res, &it->err);
}

typedef struct {
    run *r;
    size_t id;
} wctx;

/* Verifies queued items, and frees the results of its own that were reported: in
 * parallel, and its blocks go back to its own cache. Findings hold references to the
 * policy's values; with a copy of the effective policy per thread, and results freed by
 * the thread that made them, no JSON value's reference count is touched by two threads
 * at once (the reading thread only reads, in between, under the lock's ordering). */
static void *worker(void *arg)
{
    run *r = ((wctx *)arg)->r;
    size_t id = ((wctx *)arg)->id;
    wstate *w = &r->w[id];
    free(arg);
    pthread_mutex_lock(&r->lock);
    for (;;) {
        if (w->ngarbage) {
            bx_verify_result g = w->garbage[--w->ngarbage];
            pthread_mutex_unlock(&r->lock);
            bx_verify_result_free(&g);
            pthread_mutex_lock(&r->lock);
            continue;
        }
        if (r->next == r->tail) {
            if (r->stop)
                break;
            r->idle++;
            pthread_cond_wait(&r->work, &r->lock);
            r->idle--;
            continue;
        }
        size_t i = r->next++;
        item *it = &r->items[i % RING];
        it->worker = id;
        pthread_mutex_unlock(&r->lock);
        verify_item(r, &w->policy, it);
        pthread_mutex_lock(&r->lock);
        it->done = 1;
        if (r->waiting_for == i)
            pthread_cond_signal(&r->done);
    }
    pthread_mutex_unlock(&r->lock);
    jc_release();
    return NULL;
}

static void unreadable_result(run *r, item *it)
{
    char buf[400];
    it->res.findings = json_array();
    if (it->err.code == BX_EINVAL && strncmp(it->err.msg, "too large", 9) == 0) {
        bx_finding_add(it->res.findings, "certificate.too_large", "fail",
                       json_integer((json_int_t)(r->vo.max_size ? r->vo.max_size
                                                                : BX_ENVELOPE_MAX_DEFAULT)),
                       json_null(), "%s", it->err.msg);
    } else {
        bx_finding_add(it->res.findings, "certificate.format", "fail", NULL, NULL, "%s",
                       bx_error_str(&it->err, buf, sizeof buf));
        cli_report(it->file, &it->err);
        r->io_error = 1;
    }
}

/* Report a verified item and release it; buf is freed only when owned. */
static void finish(run *r, item *it, int owned)
{
    bx_error err;
    if (it->unreadable) {
        unreadable_result(r, it);
    } else if (it->rc != 0) {
        cli_report(it->file, &it->err);
        r->env_error = 1;
    } else if (r->seen && bx_seen_check(r->seen, &it->res, &err) != 0) {
        cli_report(it->file, &err);
        r->env_error = 1;
    }
    report_result(r->rep, it->file, it->line, &it->res);
    if (r->nthreads) { /* back to the thread that verified it, to free */
        wstate *w = &r->w[it->worker];
        pthread_mutex_lock(&r->lock);
        if (w->ngarbage < RING + 1) {
            w->garbage[w->ngarbage++] = it->res;
            memset(&it->res, 0, sizeof it->res);
            if (r->idle)
                pthread_cond_broadcast(&r->work);
        }
        pthread_mutex_unlock(&r->lock);
    }
    bx_verify_result_free(&it->res);
    if (owned) {
        free(it->file);
        free(it->buf);
    }
    memset(it, 0, sizeof *it);
}

/* Report queued items in order, at least the oldest. When it is not verified yet, wait for
 * the one `ahead` places further (the items are taken in order) and then report all that are
 * verified: this thread wakes once per batch, not once per certificate. */
static void drain(run *r, size_t ahead)
{
    pthread_mutex_lock(&r->lock);
    if (!r->items[r->head % RING].done) {
        size_t want = r->head + (ahead < r->tail - r->head ? ahead : r->tail - r->head - 1);
        while (!r->items[want % RING].done) {
            r->waiting_for = want;
            pthread_cond_wait(&r->done, &r->lock);
        }
        while (!r->items[r->head % RING].done) { /* an earlier one still being verified */
            r->waiting_for = r->head;
            pthread_cond_wait(&r->done, &r->lock);
        }
        r->waiting_for = SIZE_MAX;
    }
    while (r->head < r->tail && r->items[r->head % RING].done) {
        item *it = &r->items[r->head % RING];
        pthread_mutex_unlock(&r->lock);
        r->bytes -= it->len;
        finish(r, it, 1);
        pthread_mutex_lock(&r->lock);
        r->head++;
    }
    pthread_mutex_unlock(&r->lock);
}

static void start_workers(run *r)
{
    r->waiting_for = SIZE_MAX;
    r->w = calloc((size_t)r->jobs, sizeof *r->w);
    for (; r->w && r->nthreads < (size_t)r->jobs; r->nthreads++) {
        wstate *w = &r->w[r->nthreads];
        wctx *c = malloc(sizeof *c);
        w->policy = *r->policy;
        w->policy.effective = json_deep_copy(r->policy->effective);
        if (!c || !w->policy.effective) {
            free(c);
            json_decref(w->policy.effective);
            break;
        }
        *c = (wctx){r, r->nthreads};
        if (pthread_create(&w->tid, NULL, worker, c) != 0) {
            free(c);
            json_decref(w->policy.effective);
            break;
        }
    }
    if (r->nthreads == 0) /* no thread at all: verify here, one at a time */
        r->jobs = 1;
}

/* Report everything queued; then stop the workers. */
static void flush(run *r)
{
    while (r->head < r->tail)
        drain(r, RING);
    pthread_mutex_lock(&r->lock);
    r->stop = 1;
    pthread_cond_broadcast(&r->work);
    pthread_mutex_unlock(&r->lock);
    for (size_t i = 0; i < r->nthreads; i++) {
        pthread_join(r->w[i].tid, NULL);
        while (r->w[i].ngarbage)
            bx_verify_result_free(&r->w[i].garbage[--r->w[i].ngarbage]);
        json_decref(r->w[i].policy.effective);
    }
    r->nthreads = 0;
}

/* One input. With owned, buf (and a copy of file) pass to the queue; without, buf is
 * the caller's and must be used before this returns (only with --jobs 1). */
static void add_ex(run *r, const char *file, size_t line, char *buf, size_t len,
                   const bx_error *err, int owned)
{
    if (r->jobs <= 1) {
        item it = {.file = (char *)file, .line = line, .buf = buf, .len = len};
        if (err) {
            it.unreadable = 1;
            it.err = *err;
        }
        verify_item(r, r->policy, &it);
        finish(r, &it, 0);
        if (owned)
            free(buf);
        return;
    }
    while (r->tail - r->head == RING || (r->bytes >= BATCH_BYTES && r->head < r->tail))
        drain(r, RING / 2);
    item *it = &r->items[r->tail % RING];
    it->file = strdup(file);
    it->line = line;
    it->buf = buf;
    it->len = len;
    if (err) {
        it->unreadable = 1;
        it->err = *err;
    }
    if (!owned) {
        it->buf = malloc(len + 1);
        if (it->buf) {
            memcpy(it->buf, buf, len);
            it->buf[len] = '\0';
        } else {
            it->unreadable = 1;
            bx_error_set(&it->err, BX_EIO, file, "out of memory");
            it->len = 0;
        }
    }
    r->bytes += it->len;
    pthread_mutex_lock(&r->lock);
    it->done = 0;
    r->tail++;
    if (r->idle)
        pthread_cond_signal(&r->work);
    pthread_mutex_unlock(&r->lock);
}

/* Queue one input (ownership of buf passes here). */
static void add(run *r, const char *file, size_t line, char *buf, size_t len, const bx_error *err)
{
    add_ex(r, file, line, buf, len, err, 1);
}

static int ends_with(const char *s, const char *suf)
{
    size_t a = strlen(s), b = strlen(suf);
    return a >= b && strcmp(s + a - b, suf) == 0;
}

static void bundle(run *r, const char *path)
{
    FILE *f = strcmp(path, "-") == 0 ? stdin : fopen(path, "r");
    char *line = NULL;
    size_t cap = 0, lineno = 0;
    ssize_t n;
    bx_error err;
    if (!f) {
        bx_error_errno(&err, BX_EIO, path, "cannot open");
        add(r, path, 0, NULL, 0, &err);
        return;
    }
    /* certificates are lines of a few KB; stdin only before anything has read it */
    static int stdin_seen;
    if (f != stdin || !stdin_seen++)
        setvbuf(f, NULL, _IOFBF, 256 * 1024);
    while ((n = getline(&line, &cap, f)) > 0) {
        lineno++;
        while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r'))
            line[--n] = '\0';
        if (n == 0)
            continue;
        add_ex(r, path, lineno, line, (size_t)n, NULL, 0);
    }
    if (ferror(f)) {
        bx_error_errno(&err, BX_EIO, path, "read error");
        add(r, path, lineno + 1, NULL, 0, &err);
    }
    free(line);
    if (f != stdin)
        fclose(f);
}

static void single(run *r, const char *path)
{
    char *buf = NULL;
    size_t len = 0;
    bx_error err;
    size_t cap = r->vo.max_size ? r->vo.max_size : BX_ENVELOPE_MAX_DEFAULT;
    /* one byte of slack for a final newline, which is not part of the envelope */
    if (bx_read_file(path, cap + 1, 1, &buf, &len, &err) != 0) {
        add(r, path, 0, NULL, 0, &err);
        return;
    }
    while (len > 0 && (buf[len - 1] == '\n' || buf[len - 1] == '\r'))
        len--;
    add(r, path, 0, buf, len, NULL);
}

static int name_cmp(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static void input(run *r, const char *path);

static void directory(run *r, const char *path)
{
    DIR *d = opendir(path);
    struct dirent *e;
    char **names = NULL;
    size_t n = 0, cap = 0;
    bx_error err;
    if (!d) {
        bx_error_errno(&err, BX_EIO, path, "cannot open directory");
        add(r, path, 0, NULL, 0, &err);
        return;
    }
    while ((e = readdir(d)) != NULL) {
        if (!ends_with(e->d_name, ".intoto.json") && !ends_with(e->d_name, ".intoto.jsonl"))
            continue;
        if (n == cap) {
            size_t c = cap ? 2 * cap : 64;
            char **grown = realloc(names, c * sizeof *names);
            if (!grown)
                break;
            names = grown;
            cap = c;
        }
        /* the entry's type rides along after its name's NUL: no stat() per file below */
        size_t len = strlen(path) + 1 + strlen(e->d_name);
        if (!(names[n] = malloc(len + 2)))
            break;
        snprintf(names[n], len + 1, "%s/%s", path, e->d_name);
        names[n][len + 1] = (char)e->d_type;
        n++;
    }
    closedir(d);
    if (n)
        qsort(names, n, sizeof *names, name_cmp);
    for (size_t i = 0; i < n; i++) {
        if (names[i][strlen(names[i]) + 1] == DT_REG && !ends_with(names[i], ".jsonl"))
            single(r, names[i]);
        else
            input(r, names[i]);
        free(names[i]);
    }
    free(names);
}

static void input(run *r, const char *path)
{
    struct stat st;
    if (strcmp(path, "-") == 0)
        bundle(r, path);
    else if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
        directory(r, path);
    else if (ends_with(path, ".jsonl"))
        bundle(r, path);
    else
        single(r, path);
}

static int check_binding_args(const bx_binding *b)
{
    if (b->image && (strncmp(b->image, "sha256:", 7) != 0 || !bx_is_lower_hex(b->image + 7, 64)))
        return cli_usage_error("--expect-image", "'%s' is not sha256:<64 lowercase hex>", b->image);
    if (b->source && !bx_is_lower_hex(b->source, 40))
        return cli_usage_error("--expect-source", "'%s' is not a 40-hex commit id", b->source);
    if (b->nonce && (!*b->nonce || !bx_is_lower_hex(b->nonce, strlen(b->nonce))))
        return cli_usage_error("--nonce", "'%s' is not lowercase hex", b->nonce);
    for (size_t i = 0; i < b->nlabels; i++)
        if (!strchr(b->labels[i], '=') || b->labels[i][0] == '=')
            return cli_usage_error("--expect-label", "'%s' is not K=V", b->labels[i]);
    return 0;
}

int cmd_verify(int argc, char **argv)
{
    static const struct option opts[] = {{"policy", required_argument, 0, 'p'},
                                         {"key", required_argument, 0, 'k'},
                                         {"threshold", required_argument, 0, 'T'},
                                         {"at", required_argument, 0, 'a'},
                                         {"nonce", required_argument, 0, 'n'},
                                         {"expect-image", required_argument, 0, 'I'},
                                         {"expect-container", required_argument, 0, 'C'},
                                         {"expect-label", required_argument, 0, 'L'},
                                         {"expect-source", required_argument, 0, 'S'},
                                         {"seen", required_argument, 0, 's'},
                                         {"jobs", required_argument, 0, 'j'},
                                         {"max-size", required_argument, 0, 'm'},
                                         {"format", required_argument, 0, 'f'},
                                         {"output", required_argument, 0, 'o'},
                                         {"help", no_argument, 0, 'h'},
                                         {0, 0, 0, 0}};
    cli_list keys = {0}, labels = {0};
    const char *policy_arg = NULL, *format = "text", *output = NULL, *seen_path = NULL;
    int c, rc = EXIT_PASS, threshold = 0;
    long v = 0;
    bx_policy *p = NULL;
    bx_error err;
    json_t *policy_id = NULL;
    bx_atomic *atomic = NULL;
    FILE *out = NULL;
    report_format fmt = FMT_TEXT;
    run *r = calloc(1, sizeof *r);

    if (!r)
        return EXIT_ENV;
    pthread_mutex_init(&r->lock, NULL);
    pthread_cond_init(&r->work, NULL);
    pthread_cond_init(&r->done, NULL);
    r->jobs = 1;
    r->vo.at = (int64_t)time(NULL);
    optind = 1;
    while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        switch (c) {
        case 'p': policy_arg = optarg; break;
        case 'k': cli_list_add(&keys, optarg); break;
        case 'T':
            if ((rc = cli_parse_threshold(optarg, &threshold)) != 0)
                goto out;
            break;
        case 'a':
            if ((rc = cli_parse_time("--at", optarg, &r->vo.at)) != 0)
                goto out;
            break;
        case 'n': r->vo.expect.nonce = optarg; break;
        case 'I': r->vo.expect.image = optarg; break;
        case 'C': r->vo.expect.container = optarg; break;
        case 'L': cli_list_add(&labels, optarg); break;
        case 'S': r->vo.expect.source = optarg; break;
        case 's': seen_path = optarg; break;
        case 'j':
            if ((rc = cli_parse_count("--jobs", optarg, 1, 64, &v)) != 0)
                goto out;
            r->jobs = (int)v;
            break;
        case 'm':
            if ((rc = cli_parse_count("--max-size", optarg, 1, 1L << 30, &v)) != 0)
                goto out;
            r->vo.max_size = (size_t)v;
            break;
        case 'f': format = optarg; break;
        case 'o': output = optarg; break;
        case 'h': fputs(help, stdout); goto out;
        default: fputs(help, stderr); rc = EXIT_USAGE; goto out;
        }
    }
    r->vo.expect.labels = (const char *const *)labels.v;
    r->vo.expect.nlabels = labels.n;
    if (report_parse_format(format, &fmt) != 0) {
        rc = cli_usage_error("--format", "'%s' is not text, json, junit, sarif or github", format);
        goto out;
    }
    if ((rc = check_binding_args(&r->vo.expect)) != 0)
        goto out;
    if (optind >= argc) {
        rc = cli_usage_error("verify", "no certificate given (see --help)");
        goto out;
    }
    if ((rc = cli_load_policy(policy_arg, keys.v, keys.n, threshold, &p)) != 0)
        goto out;
    if (!(policy_id = bx_policy_identity(p, &err))) {
        rc = cli_report(policy_arg, &err);
        goto out;
    }
    if (seen_path && bx_seen_open(seen_path, r->vo.at, &r->seen, &err) != 0) {
        rc = cli_report(seen_path, &err);
        goto out;
    }
    r->policy = p;
    if (output && bx_atomic_open(output, 0644, &atomic, &out, &err) != 0) {
        rc = cli_report(output, &err);
        goto out;
    }
    if (!output)
        out = stdout;
    if (report_open(&r->rep, fmt, out, "verify", policy_id, !output && cli_colour(stdout))) {
        rc = EXIT_ENV;
        goto out;
    }
    if (JCACHE)
        json_set_alloc_funcs(jc_malloc, jc_free);
    json_object_seed(0); /* before any thread creates objects */
    if (r->jobs > 1)
        start_workers(r);
    for (int i = optind; i < argc; i++)
        input(r, argv[i]);
    flush(r);
    size_t total = report_count(r->rep), failed = report_failed(r->rep);
    int werr = report_close(r->rep);
    r->rep = NULL;
    if (r->seen) {
        int src = bx_seen_close(r->seen, &err);
        r->seen = NULL;
        if (src != 0) {
            cli_report(seen_path, &err);
            r->io_error = 1;
        }
    }
    if (atomic) {
        bx_atomic *a = atomic;
        atomic = NULL;
        if (bx_atomic_commit(a, &err) != 0) {
            rc = cli_report(output, &err);
            goto out;
        }
    } else if (werr || fflush(stdout) != 0) {
        rc = EXIT_ENV;
        goto out;
    }
    rc = (r->io_error || r->env_error) ? EXIT_ENV : (failed || total == 0) ? EXIT_REJECT : EXIT_PASS;
out:
    if (r->nthreads)
        flush(r);
    if (r->rep)
        report_close(r->rep);
    if (r->seen)
        bx_seen_close(r->seen, &err);
    bx_atomic_abort(atomic);
    free(keys.v);
    free(labels.v);
    bx_policy_free(p);
    json_decref(policy_id);
    if (JCACHE) {
        json_set_alloc_funcs(malloc, free);
        jc_release();
    }
    free(r->w);
    pthread_cond_destroy(&r->work);
    pthread_cond_destroy(&r->done);
    pthread_mutex_destroy(&r->lock);
    free(r);
    return rc;
}
