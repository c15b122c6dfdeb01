/* SPDX-License-Identifier: Apache-2.0 */
/* Golden JCS cases: fixtures/jcs/<case>/input.json and either output.json (the exact
 * RFC 8785 bytes) or error.txt (a substring the refusal's message must contain). */
#include "bx_schema.h"
#include "tap.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define CASE_MAX (1024 * 1024)

static char *case_file(const char *dir, const char *name, size_t *len, int must)
{
    char path[4096];
    char *buf = NULL;
    bx_error err = {0};
    snprintf(path, sizeof path, "%s/%s", dir, name);
    if (!must && access(path, F_OK) != 0)
        return NULL;
    if (bx_read_file(path, CASE_MAX, BX_READ_EMPTY_OK, &buf, len, &err) != 0) {
        printf("Bail out! %s: %s\n", path, err.msg);
        exit(1);
    }
    return buf;
}

static void check_output(const char *got, size_t glen, const char *want, size_t wlen)
{
    int same = glen == wlen && memcmp(got, want, wlen) == 0;
    ok(same, "output matches output.json byte for byte");
    if (!same)
        printf("#   got  (%zu) %s\n#   want (%zu) %.*s\n", glen, got, wlen, (int)wlen, want);
}

static void check_error(int rc, const bx_error *err, char *want)
{
    want[strcspn(want, "\r\n")] = '\0';
    ok(rc == BX_EINVAL, "refused with BX_EINVAL (rc=%d)", rc);
    ok(want[0] && strstr(err->msg, want) != NULL, "message '%s' contains '%s'", err->msg, want);
    ok(err->where[0] == '/', "where is a JSON pointer: '%s'", err->where);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: fixture_jcs CASE_DIR\n");
        return 2;
    }
    size_t ilen = 0, olen = 0, elen = 0, glen = 0;
    char *input = case_file(argv[1], "input.json", &ilen, 1);
    char *output = case_file(argv[1], "output.json", &olen, 0);
    char *error = case_file(argv[1], "error.txt", &elen, 0);
    char *got = NULL;
    bx_error err = {0};
    json_error_t je;
    json_t *v = json_loadb(input, ilen, JSON_DECODE_ANY | JSON_REJECT_DUPLICATES, &je);
    ok(v != NULL, "input.json parses (%s)", v ? "ok" : je.text);
    ok(!output != !error, "exactly one of output.json and error.txt");
    int rc = v ? bx_jcs_serialize(v, &got, &glen, &err) : BX_EINVAL;
    if (output) {
        ok_err(rc, &err, "serializes");
        if (rc == 0)
            check_output(got, glen, output, olen);
    } else if (error) {
        check_error(rc, &err, error);
    }
    json_decref(v);
    free(got);
    free(input);
    free(output);
    free(error);
    return tap_done();
}
