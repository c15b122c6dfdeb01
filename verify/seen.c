/* SPDX-License-Identifier: Apache-2.0 */
#include "bx_verify.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#define SEEN_MAX (256u * 1024 * 1024)
#define SEEN_HEADER_V1 "{\"boxcertSeen\":1}"
#define SEEN_SKEW_MAX (366LL * 86400) /* a policy's clock skew is far below a year */

struct bx_seen {
    char *path;
    int lock_fd;
    int64_t max_skew; /* the largest clock skew the file was used with, seconds */
    json_t *entries; /* array of {certificateId, bootId, nonce, expiresAt[, run]} */
    json_t *ids;     /* certificateId -> the run that recorded it ("": none) */
    char *run;       /* bx_seen_set_run, or NULL */
    json_t *pairs;   /* "bootId/nonce" -> true */
    int dirty;
};

static int entry_ok(const json_t *e)
{
    static const char *const keys[] = {"certificateId", "bootId", "nonce", "expiresAt"};
    const json_t *run = json_object_get(e, "run");
    if (!json_is_object(e) || json_object_size(e) != 4 + !!run)
        return 0;
    for (size_t i = 0; i < 4; i++)
        if (!json_is_string(json_object_get(e, keys[i])))
            return 0;
    if (run && (!json_is_string(run) || !bx_seen_run_ok(json_string_value(run))))
        return 0;
    bx_error ig;
    int64_t t;
    return bx_is_lower_hex(json_string_value(json_object_get(e, "certificateId")), 64) &&
           bx_time_parse(json_string_value(json_object_get(e, "expiresAt")), 0, &t, &ig) == 0;
}

/* The first line: {"boxcertSeen":1} (no skew recorded: 0), or {"boxcertSeen":2,
 * "maxSkewSeconds":N}, N the largest clock skew the file was used with. */
static int parse_header(const char *p, size_t n, int64_t *max_skew)
{
    json_t *h = NULL, *v, *k;
    bx_error ig;
    int ok = 0;
    if (n == strlen(SEEN_HEADER_V1) && memcmp(p, SEEN_HEADER_V1, n) == 0) {
        *max_skew = 0;
        return 0;
    }
    if (bx_json_parse_strict(p, n, BX_JSON_OBJECT | BX_JSON_JCS, &h, &ig) != 0)
        return -1;
    v = json_object_get(h, "boxcertSeen");
    k = json_object_get(h, "maxSkewSeconds");
    if (json_object_size(h) == 2 && json_is_integer(v) && json_integer_value(v) == 2 &&
        json_is_integer(k) && json_integer_value(k) >= 0 &&
        json_integer_value(k) <= SEEN_SKEW_MAX) {
        *max_skew = json_integer_value(k);
        ok = 1;
    }
    json_decref(h);
    return ok ? 0 : -1;
}

int bx_seen_parse(const char *buf, size_t len, const char *name, json_t **entries,
                  int64_t *max_skew, bx_error *err)
{
    json_t *arr = json_array();
    size_t line = 0, pos = 0;
    int64_t skew = 0;
    int rc = 0;
    if (!arr)
        return bx_error_set(err, BX_ENOMEM, name, "out of memory");
    while (pos < len) {
        const char *nl = memchr(buf + pos, '\n', len - pos);
        size_t end = nl ? (size_t)(nl - buf) : len;
        char where[160];
        json_t *e = NULL;
        line++;
        snprintf(where, sizeof where, "%s:%zu", name, line);
        if (!nl) {
            rc = bx_error_set(err, BX_ECONFIG, where, "corrupted seen file: last line is truncated");
            goto out;
        }
        if (line == 1) {
            if (parse_header(buf + pos, end - pos, &skew) != 0) {
                rc = bx_error_set(err, BX_ECONFIG, where, "not a boxcert seen file (no header)");
                goto out;
            }
        } else if (bx_json_parse_strict(buf + pos, end - pos, BX_JSON_OBJECT, &e, err) != 0 ||
                   !entry_ok(e)) {
            json_decref(e);
            rc = bx_error_set(err, BX_ECONFIG, where, "corrupted seen file: not an entry");
            goto out;
        } else if (json_array_append_new(arr, e) != 0) {
            rc = bx_error_set(err, BX_ENOMEM, where, "out of memory");
            goto out;
        }
        pos = end + 1;
    }
    if (line == 0)
        rc = bx_error_set(err, BX_ECONFIG, name, "seen file is empty (not even its header)");
out:
    if (rc) {
        json_decref(arr);
    } else {
        *entries = arr;
        if (max_skew)
            *max_skew = skew;
    }
    return rc;
}

int bx_seen_run_ok(const char *run)
{
    size_t n = run ? strlen(run) : 0;
    return n > 0 && n <= 128 && strspn(run, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
                                            "0123456789._:/@+-") == n;
}

static void index_entry(bx_seen *s, const json_t *e)
{
    char pair[600];
    const char *run = json_string_value(json_object_get(e, "run"));
    json_object_set_new(s->ids, json_string_value(json_object_get(e, "certificateId")),
                        json_string(run ? run : ""));
    snprintf(pair, sizeof pair, "%s/%s", json_string_value(json_object_get(e, "bootId")),
             json_string_value(json_object_get(e, "nonce")));
    json_object_set_new(s->pairs, pair, json_true());
}

static void seen_free(bx_seen *s)
{
    if (!s)
        return;
    if (s->lock_fd >= 0)
        close(s->lock_fd); /* releases the lock */
    free(s->path);
    free(s->run);
    json_decref(s->entries);
    json_decref(s->ids);
    json_decref(s->pairs);
    free(s);
}

int bx_seen_open(const char *path, int64_t wall, int64_t skew, bx_seen **out, bx_error *err)
{
    bx_seen *s = calloc(1, sizeof *s);
    char *lock = NULL, *buf = NULL;
    size_t len = 0;
    int rc = 0;
    struct stat st;
    if (!s || asprintf(&lock, "%s.lock", path) < 0) {
        free(s);
        return bx_error_set(err, BX_ENOMEM, path, "out of memory");
    }
    s->lock_fd = -1;
    if (skew < 0 || skew > SEEN_SKEW_MAX) {
        free(lock);
        free(s);
        return bx_error_set(err, BX_ECONFIG, path, "clock skew out of range for a seen file");
    }
    s->path = strdup(path);
    s->ids = json_object();
    s->pairs = json_object();
    if (!s->path || !s->ids || !s->pairs) {
        rc = bx_error_set(err, BX_ENOMEM, path, "out of memory");
        goto out;
    }
    s->lock_fd = open(lock, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (s->lock_fd < 0 || flock(s->lock_fd, LOCK_EX) != 0) {
        rc = bx_error_errno(err, BX_ECONFIG, lock, "cannot lock the seen file");
        goto out;
    }
    if (lstat(path, &st) != 0 && errno == ENOENT) {
        s->entries = json_array();
        s->dirty = 1; /* create it, with its header */
    } else if ((rc = bx_read_file(path, SEEN_MAX, 0, &buf, &len, err)) != 0) {
        if (rc != BX_ENOMEM)
            rc = err->code = BX_ECONFIG;
        goto out;
    } else if ((rc = bx_seen_parse(buf, len, path, &s->entries, &s->max_skew, err)) != 0) {
        goto out;
    }
    if (skew > s->max_skew) {
        s->max_skew = skew; /* recorded: every later run keeps entries as long */
        s->dirty = 1;
    }
    /* An entry goes once its certificate can verify for no verifier that used the file: past
     * expiresAt plus the largest skew, by the wall clock (never by an --at) */
    size_t i = 0;
    while (i < json_array_size(s->entries)) {
        json_t *e = json_array_get(s->entries, i);
        int64_t exp = 0;
        bx_error ig;
        if (bx_time_parse(json_string_value(json_object_get(e, "expiresAt")), 0, &exp, &ig) == 0 &&
            exp + s->max_skew < wall) {
            json_array_remove(s->entries, i);
            s->dirty = 1;
            continue;
        }
        index_entry(s, e);
        i++;
    }
    *out = s;
    s = NULL;
out:
    free(lock);
    free(buf);
    seen_free(s);
    return rc;
}

int bx_seen_set_run(bx_seen *s, const char *run, bx_error *err)
{
    if (!bx_seen_run_ok(run))
        return bx_error_set(err, BX_ECONFIG, NULL,
                            "a run is 1 to 128 of A-Z a-z 0-9 . _ : / @ + -");
    free(s->run);
    if (!(s->run = strdup(run)))
        return bx_error_set(err, BX_ENOMEM, s->path, "out of memory");
    return 0;
}

int bx_seen_check(bx_seen *s, bx_verify_result *res, bx_error *err)
{
    const json_t *pred = json_object_get(res->statement, "predicate");
    const char *boot = json_string_value(json_object_get(json_object_get(pred, "host"), "bootId"));
    const char *nonce = json_string_value(json_object_get(pred, "nonce"));
    const char *exp = json_string_value(json_object_get(pred, "expiresAt"));
    char pair[600];
    unsigned long lost = bx_findings_lost();
    if (!res->statement || !res->pass)
        return 0; /* only certificates that pass are checked and recorded */
    snprintf(pair, sizeof pair, "%s/%s", boot ? boot : "", nonce ? nonce : "");
    const char *by = json_string_value(json_object_get(s->ids, res->certificate_id));
    if (by && s->run && strcmp(by, s->run) == 0) { /* the run that recorded it, again */
        bx_finding_add(res->findings, "certificate.replay", "pass", json_null(),
                       json_string(res->certificate_id),
                       "seen before by this run (%s) only: a re-run", s->run);
        bx_verify_result_update(res);
        if (bx_findings_lost() != lost) {
            res->pass = 0;
            return bx_error_set(err, BX_ENOMEM, s->path,
                                "out of memory: the replay finding could not be recorded");
        }
        return 0; /* recorded already */
    }
    if (by) {
        bx_finding_add(res->findings, "certificate.replay", "fail", json_null(),
                       json_string(res->certificate_id), "certificate %s was seen before",
                       res->certificate_id);
    } else if (boot && nonce && json_object_get(s->pairs, pair)) {
        bx_finding_add(res->findings, "certificate.replay", "fail", json_null(), json_string(pair),
                       "another certificate with the same boot id and nonce was seen before");
    } else {
        bx_finding_add(res->findings, "certificate.replay", "pass", json_null(),
                       json_string(res->certificate_id), "not seen before");
    }
    bx_verify_result_update(res);
    if (bx_findings_lost() != lost) { /* the finding could have said "seen before" */
        res->pass = 0;
        return bx_error_set(err, BX_ENOMEM, s->path,
                            "out of memory: the replay finding could not be recorded");
    }
    if (!res->pass)
        return 0;
    json_t *e = json_pack("{s:s, s:s, s:s, s:s}", "certificateId", res->certificate_id, "bootId",
                          boot ? boot : "", "nonce", nonce ? nonce : "", "expiresAt",
                          exp ? exp : "1970-01-01T00:00:00Z");
    if (e && s->run && json_object_set_new(e, "run", json_string(s->run)) != 0) {
        json_decref(e);
        e = NULL;
    }
    if (!e)
        return bx_error_set(err, BX_ENOMEM, s->path, "out of memory");
    index_entry(s, e);
    json_array_append_new(s->entries, e);
    s->dirty = 1;
    return 0;
}

int bx_seen_close(bx_seen *s, bx_error *err)
{
    int rc = 0;
    char *doc = NULL;
    size_t len = 0;
    FILE *m = NULL;
    if (!s)
        return 0;
    if (s->dirty) {
        m = open_memstream(&doc, &len);
        if (!m) {
            rc = bx_error_set(err, BX_ENOMEM, s->path, "out of memory");
            goto out;
        }
        fprintf(m, "{\"boxcertSeen\":2,\"maxSkewSeconds\":%lld}\n", (long long)s->max_skew);
        size_t i;
        json_t *e;
        json_array_foreach(s->entries, i, e) {
            char *line = json_dumps(e, JSON_COMPACT | JSON_SORT_KEYS);
            fprintf(m, "%s\n", line ? line : "");
            free(line);
        }
        fclose(m);
        rc = bx_write_file_atomic(s->path, doc, len, 0600, err);
    }
out:
    free(doc);
    seen_free(s);
    return rc;
}
