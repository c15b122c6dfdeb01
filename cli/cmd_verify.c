#include "cli.h"
#include "report.h"

#include <dirent.h>
#include <errno.h>
#include <getopt.h>
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
 * slots and reports in input order: memory stays bounded by the ring (and BATCH_BYTES of
 * queued input), whatever the number of certificates. */
#define RING 64
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
    int done; /* under lock */
} item;

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
    pthread_t tids[64];
    size_t nthreads;
    int stop;
    int io_error, env_error;
} run;

static void verify_item(run *r, item *it)
{
    if (it->unreadable)
        return;
    it->rc = bx_verify_envelope(r->policy, &r->vo, it->buf, it->len, &it->res, &it->err);
}

static void *worker(void *arg)
{
    run *r = arg;
    pthread_mutex_lock(&r->lock);
    for (;;) {
        while (!r->stop && r->next == r->tail)
            pthread_cond_wait(&r->work, &r->lock);
        if (r->next == r->tail)
            break; /* stopping, nothing left */
        item *it = &r->items[r->next++ % RING];
        pthread_mutex_unlock(&r->lock);
        verify_item(r, it);
        pthread_mutex_lock(&r->lock);
        it->done = 1;
        pthread_cond_broadcast(&r->done);
    }
    pthread_mutex_unlock(&r->lock);
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
    bx_verify_result_free(&it->res);
    if (owned) {
        free(it->file);
        free(it->buf);
    }
    memset(it, 0, sizeof *it);
}

/* Report the oldest queued item, once verified. */
static void drain_one(run *r)
{
    item *it = &r->items[r->head % RING];
    pthread_mutex_lock(&r->lock);
    while (!it->done)
        pthread_cond_wait(&r->done, &r->lock);
    pthread_mutex_unlock(&r->lock);
    r->bytes -= it->len;
    finish(r, it, 1);
    r->head++;
}

static void start_workers(run *r)
{
    for (; r->nthreads < (size_t)r->jobs; r->nthreads++)
        if (pthread_create(&r->tids[r->nthreads], NULL, worker, r) != 0)
            break;
    if (r->nthreads == 0) /* no thread at all: verify here, one at a time */
        r->jobs = 1;
}

/* Report everything queued; then stop the workers. */
static void flush(run *r)
{
    while (r->head < r->tail)
        drain_one(r);
    pthread_mutex_lock(&r->lock);
    r->stop = 1;
    pthread_cond_broadcast(&r->work);
    pthread_mutex_unlock(&r->lock);
    for (size_t i = 0; i < r->nthreads; i++)
        pthread_join(r->tids[i], NULL);
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
        verify_item(r, &it);
        finish(r, &it, 0);
        if (owned)
            free(buf);
        return;
    }
    while (r->tail - r->head == RING || (r->bytes >= BATCH_BYTES && r->head < r->tail))
        drain_one(r);
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
    r->tail++;
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
    size_t n = 0;
    bx_error err;
    if (!d) {
        bx_error_errno(&err, BX_EIO, path, "cannot open directory");
        add(r, path, 0, NULL, 0, &err);
        return;
    }
    while ((e = readdir(d)) != NULL) {
        if (!ends_with(e->d_name, ".intoto.json") && !ends_with(e->d_name, ".intoto.jsonl"))
            continue;
        char **grown = realloc(names, (n + 1) * sizeof *names);
        if (!grown)
            break;
        names = grown;
        if (asprintf(&names[n], "%s/%s", path, e->d_name) < 0)
            break;
        n++;
    }
    closedir(d);
    if (n)
        qsort(names, n, sizeof *names, name_cmp);
    for (size_t i = 0; i < n; i++) {
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

static int parse_count(const char *opt, const char *s, long min, long max, long *out)
{
    char *end = NULL;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || !*s || *end || v < min || v > max)
        return cli_usage_error(opt, "'%s' is not a whole number from %ld to %ld", s, min, max);
    *out = v;
    return 0;
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
    char policy_sha[65];
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
            if ((rc = parse_count("--jobs", optarg, 1, 64, &v)) != 0)
                goto out;
            r->jobs = (int)v;
            break;
        case 'm':
            if ((rc = parse_count("--max-size", optarg, 1, 1L << 30, &v)) != 0)
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
    if (bx_jcs_sha256_hex(p->effective, policy_sha, &err) != 0) {
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
    if (report_open(&r->rep, fmt, out, "verify", policy_sha, !output && cli_colour(stdout))) {
        rc = EXIT_ENV;
        goto out;
    }
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
    pthread_cond_destroy(&r->work);
    pthread_cond_destroy(&r->done);
    pthread_mutex_destroy(&r->lock);
    free(r);
    return rc;
}
