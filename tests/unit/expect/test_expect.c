/* SPDX-License-Identifier: Apache-2.0 */
/* The --expect parser, data-driven: fixtures/audit/expect/valid/<case>/{input.json,
 * expected.json} (the entries as [{id, name, startedAt}], nulls where not given) and
 * fixtures/audit/expect/invalid/<case>/{input.json, error} (the exact "where: message"
 * with the file named "expect"). BOXCERT_DUMP=1 writes a missing error file. */
#include "tap.h"
#include "bx_expect.h"

#include <dirent.h>
#include <stdlib.h>
#include <string.h>

#define DIR_EXPECT BOXCERT_SOURCE_DIR "/fixtures/audit/expect"

static char *slurp(const char *path, size_t *len)
{
    return tap_slurp(path, len);
}

static json_t *as_json(const bx_expect *e)
{
    json_t *arr = json_array();
    char t[31];

    for (size_t i = 0; i < e->n; i++) {
        const bx_expect_entry *x = &e->v[i];
        /* a start given with a fraction keeps it (to the nanosecond), one without is a second */
        json_array_append_new(
            arr, json_pack("{s:s?, s:s?, s:s?}", "id", x->id[0] ? x->id : NULL, "name", x->name,
                           "startedAt",
                           !x->has_started ? NULL
                           : x->has_ns     ? bx_time_format_ns(x->started_at, x->started_ns, t)
                                           : bx_time_format(x->started_at, t)));
    }
    return arr;
}

static int names(const char *dir, struct dirent ***list)
{
    return scandir(dir, list, NULL, alphasort);
}

static void valid_cases(void)
{
    struct dirent **list = NULL;
    int n = names(DIR_EXPECT "/valid", &list);

    ok(n > 2, "valid cases found");
    for (int i = 0; i < n; i++) {
        const char *c = list[i]->d_name;
        char path[1024];
        size_t len = 0, elen = 0;
        bx_expect e;
        bx_error err;
        if (c[0] != '.') {
            snprintf(path, sizeof path, DIR_EXPECT "/valid/%s/input.json", c);
            char *in = slurp(path, &len);
            snprintf(path, sizeof path, DIR_EXPECT "/valid/%s/expected.json", c);
            char *want_s = slurp(path, &elen);
            json_t *want = want_s ? json_loads(want_s, 0, NULL) : NULL;
            int rc = in ? bx_expect_parse(in, len, "expect", &e, &err) : -1;
            ok_err(rc, &err, "valid/%s parses", c);
            if (rc == 0) {
                json_t *got = as_json(&e);
                if (!ok(want && json_equal(got, want), "valid/%s entries", c)) {
                    char *g = json_dumps(got, JSON_COMPACT);
                    printf("#   got %s\n", g);
                    free(g);
                }
                json_decref(got);
                bx_expect_free(&e);
            }
            json_decref(want);
            free(in);
            free(want_s);
        }
        free(list[i]);
    }
    free(list);
}

static void invalid_cases(void)
{
    struct dirent **list = NULL;
    int n = names(DIR_EXPECT "/invalid", &list);

    ok(n > 10, "invalid cases found");
    for (int i = 0; i < n; i++) {
        const char *c = list[i]->d_name;
        char path[1024], got[512];
        size_t len = 0, elen = 0;
        bx_expect e;
        bx_error err;
        if (c[0] != '.') {
            snprintf(path, sizeof path, DIR_EXPECT "/invalid/%s/input.json", c);
            char *in = slurp(path, &len);
            int rc = in ? bx_expect_parse(in, len, "expect", &e, &err) : 0;
            is_int(rc, BX_ECONFIG, "invalid/%s is refused as configuration", c);
            ok(e.n == 0 && e.v == NULL, "invalid/%s leaves nothing behind", c);
            bx_error_str(&err, got, sizeof got);
            snprintf(path, sizeof path, DIR_EXPECT "/invalid/%s/error", c);
            char *want = slurp(path, &elen);
            if (!want && getenv("BOXCERT_DUMP")) {
                FILE *f = fopen(path, "w");
                if (f) {
                    fprintf(f, "%s\n", got);
                    fclose(f);
                }
            }
            if (want && elen && want[elen - 1] == '\n')
                want[elen - 1] = '\0';
            is_str(got, want, "invalid/%s error", c);
            free(in);
            free(want);
        }
        free(list[i]);
    }
    free(list);
}

/* Caps and sizes that fixtures would make large. */
static void caps(void)
{
    bx_expect e;
    bx_error err;
    size_t n = BX_EXPECT_MAX_SESSIONS + 1, cap = 64 + n * 24;
    char *buf = malloc(cap), *o = buf;

    o += sprintf(o, "{\"version\":1,\"sessions\":[");
    for (size_t i = 0; i < n; i++)
        o += sprintf(o, "%s{\"name\":\"s%zu\"}", i ? "," : "", i);
    o += sprintf(o, "]}");
    is_int(bx_expect_parse(buf, (size_t)(o - buf), "expect", &e, &err), BX_ECONFIG,
           "more than %d sessions refused", BX_EXPECT_MAX_SESSIONS);
    /* the largest list parses, and every name is kept */
    o = strrchr(buf, ',');
    strcpy(o, "]}");
    ok_err(bx_expect_parse(buf, strlen(buf), "expect", &e, &err), &err, "%d sessions parse",
           BX_EXPECT_MAX_SESSIONS);
    is_int(e.n, BX_EXPECT_MAX_SESSIONS, "... all of them");
    bx_expect_free(&e);
    free(buf);

    buf = calloc(1, BX_EXPECT_MAX_SIZE + 2);
    memset(buf, ' ', BX_EXPECT_MAX_SIZE + 1);
    is_int(bx_expect_parse(buf, BX_EXPECT_MAX_SIZE + 1, "expect", &e, &err), BX_ECONFIG,
           "a document over %d bytes is refused", BX_EXPECT_MAX_SIZE);
    free(buf);
}

int main(void)
{
    valid_cases();
    invalid_cases();
    caps();
    return tap_done();
}
