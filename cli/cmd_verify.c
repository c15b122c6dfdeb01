#include "cli.h"

#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

static const char help[] =
    "usage: boxcert verify CERT... --policy FILE|PROFILE [--key PUB]... [--threshold N]\n"
    "                      [--at RFC3339] [--max-size BYTES] [--format text|json] [--output FILE]\n\n"
    "Verify certificates offline: envelope, signatures (distinct trusted keys >= threshold),\n"
    "statement, times, then the policy's rules. CERT is a file (*.intoto.json), a JSON Lines\n"
    "bundle (*.intoto.jsonl: one envelope per line), a directory of those, or - for stdin.\n"
    "  --key PUB       trust this public key (SPKI PEM) in addition to the policy's\n"
    "  --threshold N   override trust.threshold\n"
    "  --at TIME       judge times at TIME instead of now\n"
    "  --max-size N    envelope size cap in bytes (default 1048576)\n"
    "  --format F      text (default) or json\n"
    "  --output FILE   write the report to FILE (atomically) instead of stdout\n"
    "Exit: 0 all pass, 1 a certificate failed, 2 usage or configuration error, 3 I/O error.\n";

typedef struct {
    const bx_policy *policy;
    bx_verify_opts vo;
    int json;
    FILE *out;
    int colour;
    size_t n, passed, failed;
    int io_error, env_error;
    char policy_sha[65];
} run;

static void emit_text(run *r, const char *file, const bx_verify_result *res)
{
    const char *c_on = "", *c_off = "";
    if (r->colour) {
        c_on = res->pass ? "\033[32m" : "\033[31m";
        c_off = "\033[0m";
    }
    fprintf(r->out, "%s%s%s ", c_on, res->pass ? "PASS" : "FAIL", c_off);
    cli_put_safe(r->out, file);
    if (res->certificate_id[0])
        fprintf(r->out, " %.12s", res->certificate_id);
    if (res->statement) {
        json_t *pred = json_object_get(res->statement, "predicate");
        const char *name = json_string_value(json_object_get(json_object_get(pred, "session"), "name"));
        const char *img = json_string_value(json_object_get(json_object_get(pred, "image"), "id"));
        fputs(" session=", r->out);
        cli_put_safe(r->out, name ? name : "?");
        fprintf(r->out, " image=%.19s", img ? img : "?");
    }
    fputc('\n', r->out);
    cli_print_failed_findings(r->out, file, res);
}

static void emit_json(run *r, const char *file, const bx_verify_result *res)
{
    json_t *session = json_null(), *image = json_null();
    if (res->statement) {
        json_t *pred = json_object_get(res->statement, "predicate");
        json_t *s = json_object_get(pred, "session");
        session = json_pack("{s:O?, s:O?}", "containerId", json_object_get(s, "containerId"), "name",
                            json_object_get(s, "name"));
        image = json_incref(json_object_get(json_object_get(pred, "image"), "id"));
        if (!image)
            image = json_null();
    }
    json_t *o = json_pack("{s:s, s:s?, s:s, s:o, s:o, s:O}", "file", file, "certificateId",
                          res->certificate_id[0] ? res->certificate_id : NULL, "verdict",
                          res->pass ? "pass" : "fail", "session", session ? session : json_null(),
                          "image", image, "findings", res->findings);
    char *s = o ? json_dumps(o, JSON_COMPACT) : NULL;
    fprintf(r->out, "%s%s", r->n > 1 ? "," : "", s ? s : "null");
    free(s);
    json_decref(o);
}

static void one(run *r, const char *name, const char *buf, size_t len)
{
    bx_verify_result res;
    bx_error err;
    r->n++;
    if (bx_verify_envelope(r->policy, &r->vo, buf, len, &res, &err) != 0) {
        cli_report(name, &err);
        r->env_error = 1;
    }
    if (res.pass)
        r->passed++;
    else
        r->failed++;
    if (r->json)
        emit_json(r, name, &res);
    else
        emit_text(r, name, &res);
    bx_verify_result_free(&res);
}

/* A certificate that could not be read at all is a failed result and an I/O error. */
static void unreadable(run *r, const char *name, const bx_error *err)
{
    bx_verify_result res = {0};
    char buf[400];
    res.findings = json_array();
    if (err->code == BX_EINVAL && strncmp(err->msg, "too large", 9) == 0) {
        bx_finding_add(res.findings, "certificate.too_large", "fail",
                       json_integer((json_int_t)r->vo.max_size), json_null(), "%s", err->msg);
    } else {
        bx_finding_add(res.findings, "certificate.format", "fail", NULL, NULL, "%s",
                       bx_error_str(err, buf, sizeof buf));
        cli_report(name, err);
        r->io_error = 1;
    }
    r->n++;
    r->failed++;
    if (r->json)
        emit_json(r, name, &res);
    else
        emit_text(r, name, &res);
    json_decref(res.findings);
}

static int ends_with(const char *s, const char *suf)
{
    size_t a = strlen(s), b = strlen(suf);
    return a >= b && strcmp(s + a - b, suf) == 0;
}

static void bundle(run *r, const char *path)
{
    FILE *f = strcmp(path, "-") == 0 ? stdin : fopen(path, "r");
    char *line = NULL, name[4200];
    size_t cap = 0, lineno = 0;
    ssize_t n;
    bx_error err;
    if (!f) {
        bx_error_errno(&err, BX_EIO, path, "cannot open");
        unreadable(r, path, &err);
        return;
    }
    while ((n = getline(&line, &cap, f)) > 0) {
        lineno++;
        while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r'))
            line[--n] = '\0';
        if (n == 0)
            continue;
        snprintf(name, sizeof name, "%s:%zu", path, lineno);
        one(r, name, line, (size_t)n);
    }
    if (ferror(f)) {
        bx_error_errno(&err, BX_EIO, path, "read error");
        unreadable(r, path, &err);
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
    if (bx_read_file(path, cap, 1, &buf, &len, &err) != 0) {
        unreadable(r, path, &err);
        return;
    }
    while (len > 0 && (buf[len - 1] == '\n' || buf[len - 1] == '\r'))
        len--;
    one(r, path, buf, len);
    free(buf);
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
        unreadable(r, path, &err);
        return;
    }
    while ((e = readdir(d)) != NULL) {
        if (!ends_with(e->d_name, ".intoto.json") && !ends_with(e->d_name, ".intoto.jsonl"))
            continue;
        char **grown = realloc(names, (n + 1) * sizeof *names);
        if (!grown || asprintf(&grown[n], "%s/%s", path, e->d_name) < 0)
            break;
        names = grown;
        n++;
    }
    closedir(d);
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
    if (strcmp(path, "-") == 0) {
        bundle(r, path); /* stdin: one envelope per line (a single envelope is one line) */
        return;
    }
    if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
        directory(r, path);
    else if (ends_with(path, ".jsonl"))
        bundle(r, path);
    else
        single(r, path);
}

int cmd_verify(int argc, char **argv)
{
    static const struct option opts[] = {{"policy", required_argument, 0, 'p'},
                                         {"key", required_argument, 0, 'k'},
                                         {"threshold", required_argument, 0, 'T'},
                                         {"at", required_argument, 0, 'a'},
                                         {"max-size", required_argument, 0, 'm'},
                                         {"format", required_argument, 0, 'f'},
                                         {"output", required_argument, 0, 'o'},
                                         {"help", no_argument, 0, 'h'},
                                         {0, 0, 0, 0}};
    cli_list keys = {0};
    const char *policy_arg = NULL, *format = "text", *output = NULL;
    int c, rc = EXIT_PASS, threshold = 0;
    bx_policy *p = NULL;
    bx_error err;
    char *mem = NULL;
    size_t memlen = 0;
    run r = {0};

    r.vo.at = (int64_t)time(NULL);
    optind = 1;
    while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        char *end = NULL;
        switch (c) {
        case 'p': policy_arg = optarg; break;
        case 'k': cli_list_add(&keys, optarg); break;
        case 'T':
            if ((rc = cli_parse_threshold(optarg, &threshold)) != 0)
                goto out;
            break;
        case 'a':
            if ((rc = cli_parse_time("--at", optarg, &r.vo.at)) != 0)
                goto out;
            break;
        case 'm':
            errno = 0;
            r.vo.max_size = (size_t)strtoull(optarg, &end, 10);
            if (errno || !*optarg || *end || r.vo.max_size == 0) {
                rc = cli_usage_error("--max-size", "'%s' is not a positive byte count", optarg);
                goto out;
            }
            break;
        case 'f': format = optarg; break;
        case 'o': output = optarg; break;
        case 'h': fputs(help, stdout); goto out;
        default: fputs(help, stderr); rc = EXIT_USAGE; goto out;
        }
    }
    if (strcmp(format, "text") != 0 && strcmp(format, "json") != 0) {
        rc = cli_usage_error("--format", "'%s' is not text or json", format);
        goto out;
    }
    if (optind >= argc) {
        rc = cli_usage_error("verify", "no certificate given (see --help)");
        goto out;
    }
    if ((rc = cli_load_policy(policy_arg, keys.v, keys.n, threshold, &p)) != 0)
        goto out;
    if (bx_jcs_sha256_hex(p->effective, r.policy_sha, &err) != 0) {
        rc = cli_report(policy_arg, &err);
        goto out;
    }
    r.policy = p;
    r.json = strcmp(format, "json") == 0;
    r.out = output ? open_memstream(&mem, &memlen) : stdout;
    if (!r.out) {
        rc = EXIT_ENV;
        goto out;
    }
    r.colour = !output && !r.json && cli_colour(stdout);
    if (r.json)
        fprintf(r.out, "{\"version\":1,\"policy\":{\"sha256\":\"%s\"},\"results\":[", r.policy_sha);
    for (int i = optind; i < argc; i++)
        input(&r, argv[i]);
    if (r.json)
        fprintf(r.out, "],\"summary\":{\"total\":%zu,\"passed\":%zu,\"failed\":%zu}}\n", r.n,
                r.passed, r.failed);
    else
        fprintf(r.out, "%zu certificate%s: %zu passed, %zu failed\n", r.n, r.n == 1 ? "" : "s",
                r.passed, r.failed);
    if (output) {
        fclose(r.out);
        r.out = NULL;
        if (bx_write_file_atomic(output, mem, memlen, 0644, &err) != 0) {
            rc = cli_report(output, &err);
            goto out;
        }
    } else if (fflush(stdout) != 0) {
        rc = EXIT_ENV;
        goto out;
    }
    rc = (r.io_error || r.env_error) ? EXIT_ENV : (r.failed || r.n == 0) ? EXIT_REJECT : EXIT_PASS;
out:
    free(mem);
    free(keys.v);
    bx_policy_free(p);
    return rc;
}
