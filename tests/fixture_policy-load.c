/* SPDX-License-Identifier: Apache-2.0 */
/* Golden policy-loader cases: fixtures/policy-load/<case>/
 *   policy.yaml      the input, loaded with bx_policy_load (key paths relative to it)
 *   expected.txt     "OK", or a substring of the one-line error "where: message"
 *   effective.json   optional, with OK: the effective policy, compared as JSON */
#include "bx_policy.h"
#include "tap.h"

#include <unistd.h>

static char *slurp(const char *path)
{
    char *buf = NULL;
    size_t len = 0;
    bx_error err;
    if (bx_read_file(path, 1 << 20, BX_READ_EMPTY_OK, &buf, &len, &err) != 0)
        return NULL;
    while (len && (buf[len - 1] == '\n' || buf[len - 1] == '\r'))
        buf[--len] = '\0';
    return buf;
}

static void check_effective(const bx_policy *p, const char *dir)
{
    char path[4096];
    json_error_t jerr;
    snprintf(path, sizeof path, "%s/effective.json", dir);
    if (access(path, F_OK) != 0)
        return;
    json_t *want = json_load_file(path, JSON_REJECT_DUPLICATES, &jerr);
    ok(want != NULL, "effective.json parses (%s)", want ? "" : jerr.text);
    if (!ok(json_equal(want, bx_policy_effective(p)), "effective policy matches effective.json")) {
        char *got = json_dumps(bx_policy_effective(p), JSON_INDENT(2) | JSON_SORT_KEYS);
        printf("# got:\n%s\n", got ? got : "(null)");
        free(got);
    }
    json_decref(want);
}

int main(int argc, char **argv)
{
    char path[4096], buf[512];
    bx_policy *p = NULL;
    bx_error err;
    char *expected;

    if (argc != 2) {
        fprintf(stderr, "usage: %s CASE_DIR\n", argv[0]);
        return 2;
    }
    snprintf(path, sizeof path, "%s/expected.txt", argv[1]);
    expected = slurp(path);
    if (!ok(expected && *expected, "expected.txt present and not empty"))
        return tap_done();
    snprintf(path, sizeof path, "%s/policy.yaml", argv[1]);
    bx_error_clear(&err);
    int rc = bx_policy_load(path, &p, &err);
    bx_error_str(&err, buf, sizeof buf);
    if (strcmp(expected, "OK") == 0) {
        if (!ok(rc == 0 && p, "policy loads"))
            printf("#   error: %s\n", buf);
        if (p)
            check_effective(p, argv[1]);
    } else {
        is_int(rc, BX_ECONFIG, "policy refused as a configuration error");
        ok(strstr(buf, expected) != NULL, "error has the expected text");
        printf("#   got:  %s\n#   want: %s\n", buf, expected);
        ok(strchr(buf, '\n') == NULL, "error is one line");
    }
    bx_policy_free(p);
    free(expected);
    return tap_done();
}
