/* SPDX-License-Identifier: Apache-2.0 */
/* The certificates in --certs: read, verified (only verified ones are matched), and the
 * collection delay judged. */
#include "audit_internal.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static int has_rule(const json_t *findings, const char *rule, const char **status)
{
    size_t i;
    json_t *f;

    json_array_foreach(findings, i, f)
    {
        const char *r = json_string_value(json_object_get(f, "rule"));
        if (r && strcmp(r, rule) == 0) {
            *status = json_string_value(json_object_get(f, "status"));
            return 1;
        }
    }
    return 0;
}

static int failed(const json_t *findings)
{
    size_t i;
    json_t *f;

    json_array_foreach(findings, i, f)
    {
        const char *st = json_string_value(json_object_get(f, "status"));
        if (!st || strcmp(st, "fail") == 0 || strcmp(st, "unknown") == 0)
            return 1;
    }
    return 0;
}

static const char *fmt_secs(int64_t s, char out[32])
{
    snprintf(out, 32, "%llds", (long long)s);
    return out;
}

/* certificate.collection_delay (policy.md): issuedAt - session.startedAt must not exceed
 * certificate.maxCollectionDelay. Added here unless the policy's evaluation gave it. */
static void collection_delay(const bx_audit *a, bxa_cert *c)
{
    const json_t *pol = json_object_get(json_object_get(a->o.policy->effective, "certificate"),
                                        "maxCollectionDelay");
    const char *status = NULL;
    char got[32];

    if (has_rule(c->findings, "certificate.collection_delay", &status)) {
        /* the policy judged it; late means collected too long after, not issued before */
        c->late =
            status && strcmp(status, "fail") == 0 && (!c->ok_times || c->issued_at > c->started_at);
        return;
    }
    if (a->max_delay < 0)
        return;
    if (!c->ok_times) {
        bx_finding_add(c->findings, "certificate.collection_delay", "unknown", json_deep_copy(pol),
                       json_null(), "session.startedAt or issuedAt could not be read");
        return;
    }
    int64_t d = c->issued_at - c->started_at;
    fmt_secs(d, got);
    if (d > a->max_delay) {
        c->late = 1;
        bx_finding_add(c->findings, "certificate.collection_delay", "fail", json_deep_copy(pol),
                       json_string(got),
                       "certificate issued %s after the session started; the policy allows %s", got,
                       json_string_value(pol));
    } else {
        bx_finding_add(c->findings, "certificate.collection_delay", "pass", json_deep_copy(pol),
                       json_string(got), "certificate issued %s after the session started", got);
    }
}

/* Fields of a verified statement that matching uses (borrowed from the statement). */
static void read_statement(bxa_cert *c)
{
    const json_t *pred = json_object_get(c->res.statement, "predicate");
    const json_t *s = json_object_get(pred, "session");
    const char *started = json_string_value(json_object_get(s, "startedAt"));
    const char *issued = json_string_value(json_object_get(pred, "issuedAt"));
    bx_error e;

    c->container_id = json_string_value(json_object_get(s, "containerId"));
    c->name = json_string_value(json_object_get(s, "name"));
    c->labels = json_object_get(s, "labels");
    c->engine_id = json_string_value(json_object_get(json_object_get(pred, "engine"), "id"));
    c->ok_times = started && issued && bx_time_parse(started, 0, &c->started_at, &e) == 0 &&
                  bx_time_parse(issued, 0, &c->issued_at, &e) == 0;
}

void bxa_cert_judge(const bx_audit *a, bxa_cert *c)
{
    unsigned long lost = bx_findings_lost();

    json_decref(c->findings);
    c->findings = json_incref(c->res.findings);
    c->late = 0;
    if (c->res.statement) {
        read_statement(c);
        collection_delay(a, c);
    }
    /* a collection-delay finding that could not be recorded (out of memory) might have
     * failed: not a pass */
    c->pass = c->res.statement && !failed(c->findings) && bx_findings_lost() == lost;
}

int bxa_verify_cert(const bx_audit *a, const bx_policy *p, const char *buf, size_t len,
                    bx_verify_result *res, bx_error *err)
{
    bx_verify_opts vo = {.at = a->o.now};

    memset(res, 0, sizeof *res);
    return bx_verify_envelope(p ? p : a->o.policy, &vo, buf, len, res, err);
}

int bxa_append_cert(bx_audit *a, const char *file, bx_verify_result *res, bx_error *err)
{
    bxa_cert *c;

    if (!(c = bxa_grow(a->certs, &a->ncerts, sizeof *a->certs))) {
        bx_verify_result_free(res);
        return bx_error_set(err, BX_EIO, NULL, "out of memory");
    }
    a->certs = c;
    c = &a->certs[a->ncerts - 1];
    c->row = -1;
    if (!(c->file = strdup(file))) {
        a->ncerts--;
        bx_verify_result_free(res);
        return bx_error_set(err, BX_EIO, NULL, "out of memory");
    }
    c->res = *res;
    memset(res, 0, sizeof *res);
    bxa_cert_judge(a, c);
    return 0;
}

int bxa_add_cert(bx_audit *a, const char *file, size_t line, const char *buf, size_t len,
                 const bx_error *read_err, bx_error *err)
{
    bx_verify_opts vo = {.at = a->o.now};
    bxa_cert *c;
    char msg[400];
    int rc = 0;

    if (!(c = bxa_grow(a->certs, &a->ncerts, sizeof *a->certs)))
        return bx_error_set(err, BX_EIO, NULL, "out of memory");
    a->certs = c;
    c = &a->certs[a->ncerts - 1];
    c->row = -1;
    if ((line ? asprintf(&c->file, "%s:%zu", file, line) : asprintf(&c->file, "%s", file)) < 0) {
        c->file = NULL;
        a->ncerts--;
        return bx_error_set(err, BX_EIO, NULL, "out of memory");
    }
    if (read_err) {
        /* only an I/O failure loses a certificate; too large or not a file is judged */
        c->unreadable = read_err->code == BX_EIO;
        if (!(c->res.findings = json_array()))
            return bx_error_set(err, BX_EIO, NULL, "out of memory");
        if (read_err->code == BX_EINVAL && strncmp(read_err->msg, "too large", 9) == 0)
            bx_finding_add(c->res.findings, "certificate.too_large", "fail",
                           json_integer(BX_ENVELOPE_MAX_DEFAULT), json_null(), "%s", read_err->msg);
        else
            bx_finding_add(c->res.findings, "certificate.format", "fail", NULL, NULL, "%s",
                           bx_error_str(read_err, msg, sizeof msg));
    } else if ((rc = bx_verify_envelope(a->o.policy, &vo, buf, len, &c->res, err)) != 0) {
        return rc;
    }
    bxa_cert_judge(a, c);
    return 0;
}

static int ends_with(const char *s, const char *suf)
{
    size_t a = strlen(s), b = strlen(suf);
    return a >= b && strcmp(s + a - b, suf) == 0;
}

static int name_cmp(const void *x, const void *y)
{
    return strcmp(*(char *const *)x, *(char *const *)y);
}

/* One envelope per line. Returns an I/O error after recording it. */
static int bundle(bx_audit *a, const char *path, bx_error *err)
{
    FILE *f = fopen(path, "r");
    char *line = NULL;
    size_t cap = 0, lineno = 0;
    ssize_t n;
    bx_error re;
    int rc = 0;

    if (!f) {
        bx_error_errno(&re, BX_EIO, path, "cannot open");
        if ((rc = bxa_add_cert(a, path, 0, NULL, 0, &re, err)) == 0) {
            *err = re;
            rc = BX_EIO;
        }
        return rc;
    }
    while (rc == 0 && (n = getline(&line, &cap, f)) > 0) {
        lineno++;
        while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r'))
            line[--n] = '\0';
        if (n == 0)
            continue;
        if ((size_t)n > BX_ENVELOPE_MAX_DEFAULT) {
            bx_error_set(&re, BX_EINVAL, path, "too large (over %d bytes)",
                         BX_ENVELOPE_MAX_DEFAULT);
            rc = bxa_add_cert(a, path, lineno, NULL, 0, &re, err);
        } else {
            rc = bxa_add_cert(a, path, lineno, line, (size_t)n, NULL, err);
        }
    }
    if (rc == 0 && ferror(f)) {
        bx_error_errno(&re, BX_EIO, path, "read error");
        a->certs_incomplete = 1;
        rc = bxa_add_cert(a, path, lineno + 1, NULL, 0, &re, err);
        if (rc == 0) {
            *err = re;
            rc = BX_EIO;
        }
    }
    free(line);
    fclose(f);
    return rc;
}

static int single(bx_audit *a, const char *path, bx_error *err)
{
    char *buf = NULL;
    size_t len = 0;
    bx_error re;
    int rc;

    if (bx_read_file(path, BX_ENVELOPE_MAX_DEFAULT + 1, 1, &buf, &len, &re) != 0) {
        if (re.code == BX_EIO)
            a->certs_incomplete = 1;
        rc = bxa_add_cert(a, path, 0, NULL, 0, &re, err);
        if (rc == 0 && re.code == BX_EIO) {
            *err = re;
            rc = BX_EIO;
        }
        return rc;
    }
    while (len > 0 && (buf[len - 1] == '\n' || buf[len - 1] == '\r'))
        len--;
    rc = bxa_add_cert(a, path, 0, buf, len, NULL, err);
    free(buf);
    return rc;
}

int bx_audit_load_certs(bx_audit *a, const char *dir, bx_error *err)
{
    struct stat st;
    struct dirent *e;
    char **names = NULL;
    size_t n = 0, done = 0;
    DIR *d = NULL;
    int rc = 0, first = 0;
    bx_error fe;

    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode))
        return bx_error_set(err, BX_ECONFIG, dir, "--certs is not a folder");
    free(a->certs_dir);
    if (!(a->certs_dir = strdup(dir)))
        return bx_error_set(err, BX_EIO, NULL, "out of memory");
    if (!(d = opendir(dir))) {
        a->certs_incomplete = 1;
        return bx_error_errno(err, BX_EIO, dir, "cannot open the folder");
    }
    errno = 0;
    while ((e = readdir(d)) != NULL) {
        char **g;
        if (!ends_with(e->d_name, ".intoto.json") && !ends_with(e->d_name, ".intoto.jsonl"))
            continue;
        if (!(g = realloc(names, (n + 1) * sizeof *names)) ||
            asprintf(&g[n], "%s/%s", dir, e->d_name) < 0) {
            names = g ? g : names;
            rc = bx_error_set(err, BX_EIO, NULL, "out of memory");
            goto out;
        }
        names = g;
        n++;
        errno = 0;
    }
    if (errno) {
        a->certs_incomplete = 1;
        rc = bx_error_errno(err, BX_EIO, dir, "cannot read the folder");
        goto out;
    }
    if (n)
        qsort(names, n, sizeof *names, name_cmp);
    for (size_t i = 0; i < n; i++) {
        int r;
        if (a->o.progress)
            a->o.progress(a->o.progress_ud, "certificates", done++, n);
        if (stat(names[i], &st) != 0 || !S_ISREG(st.st_mode)) {
            /* a FIFO or a device would block or never end: judged without being read */
            bx_error re;
            bx_error_set(&re, BX_EINVAL, names[i], "not a regular file");
            r = bxa_add_cert(a, names[i], 0, NULL, 0, &re, &fe);
        } else {
            r = ends_with(names[i], ".jsonl") ? bundle(a, names[i], &fe) : single(a, names[i], &fe);
        }
        if (r != 0) {
            /* the first failure is reported; the other files are read on */
            a->certs_incomplete = 1;
            if (!first) {
                first = 1;
                *err = fe;
                rc = r;
            }
        }
    }
    if (a->o.progress)
        a->o.progress(a->o.progress_ud, "certificates", done, n);
out:
    if (d)
        closedir(d);
    for (size_t i = 0; i < n; i++)
        free(names[i]);
    free(names);
    return rc;
}
