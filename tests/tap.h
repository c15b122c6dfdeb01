/* SPDX-License-Identifier: Apache-2.0 */
/* A small TAP harness: one test program per module, run by ctest.
 *   ok(cond, "name %d", i)           a check
 *   ok_err(rc, err, "name")          rc == 0, else prints err's where and message
 *   is_int(got, want, "name") / is_str(got, want, "name")
 *   skip_all("reason")              exits 77 (ctest's skip)
 *   return tap_done();               prints the plan; exit status 1 on any failure
 * Failures print file:line and, where given, the library's error message. */
#ifndef BX_TAP_H
#define BX_TAP_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int tap_n, tap_failed;

static inline int tap_check(int cond, const char *file, int line, const char *name)
{
    tap_n++;
    printf("%s %d - %s\n", cond ? "ok" : "not ok", tap_n, name);
    if (!cond) {
        tap_failed++;
        printf("#   failed at %s:%d\n", file, line);
    }
    fflush(stdout);
    return cond;
}

#define TAP_NAME(...) (snprintf(tap_namebuf, sizeof tap_namebuf, __VA_ARGS__), tap_namebuf)
static char tap_namebuf[512];

#define ok(cond, ...) tap_check(!!(cond), __FILE__, __LINE__, TAP_NAME(__VA_ARGS__))
#define ok_err(rc, errp, ...)                                                                      \
    do {                                                                                           \
        int tap_rc_ = (rc);                                                                        \
        if (!tap_check(tap_rc_ == 0, __FILE__, __LINE__, TAP_NAME(__VA_ARGS__)))                   \
            printf("#   rc=%d where='%s' msg='%s'\n", tap_rc_, (errp)->where, (errp)->msg);         \
    } while (0)
#define is_int(got, want, ...)                                                                     \
    do {                                                                                           \
        long long tap_g_ = (long long)(got), tap_w_ = (long long)(want);                           \
        if (!tap_check(tap_g_ == tap_w_, __FILE__, __LINE__, TAP_NAME(__VA_ARGS__)))               \
            printf("#   got %lld, want %lld\n", tap_g_, tap_w_);                                   \
    } while (0)
#define is_str(got, want, ...)                                                                     \
    do {                                                                                           \
        const char *tap_g_ = (got), *tap_w_ = (want);                                              \
        int tap_c_ = tap_g_ && tap_w_ && strcmp(tap_g_, tap_w_) == 0;                              \
        if (!tap_check(tap_c_, __FILE__, __LINE__, TAP_NAME(__VA_ARGS__)))                         \
            printf("#   got '%s', want '%s'\n", tap_g_ ? tap_g_ : "(null)",                        \
                   tap_w_ ? tap_w_ : "(null)");                                                    \
    } while (0)
/* Under CI (CI=true, or BOXCERT_REQUIRE_ENGINE=1) a skip is a failure (tests/lib/testlib.sh). */
static inline int tap_strict(void)
{
    const char *ci = getenv("CI"), *req = getenv("BOXCERT_REQUIRE_ENGINE");
    return (ci && strcmp(ci, "true") == 0) || (req && strcmp(req, "1") == 0);
}

#define skip_all(...)                                                                              \
    do {                                                                                           \
        if (tap_strict()) {                                                                        \
            printf("not ok 1 - skipped, and a skip fails under CI: ");                             \
            printf(__VA_ARGS__);                                                                   \
            printf("\n1..1\n");                                                                    \
            exit(1);                                                                               \
        }                                                                                          \
        printf("1..0 # SKIP ");                                                                    \
        printf(__VA_ARGS__);                                                                       \
        printf("\n");                                                                              \
        exit(77);                                                                                  \
    } while (0)

/* A check that cannot apply on this host, fact read by the test: "ok N - NAME # n/a: FACT".
 * Only for tests listed in tests/not-applicable.txt (with the make test-hosts test that covers
 * them), which tests/cli/not_applicable.sh checks. */
#define tap_na(fact, ...)                                                                          \
    (printf("ok %d - ", ++tap_n), printf(__VA_ARGS__), printf(" # n/a: %s\n", (fact)), 1)

/* One check that could not run here: "ok N # SKIP", a failure under CI. */
#define skip_one(...)                                                                              \
    (tap_strict() ? tap_check(0, __FILE__, __LINE__, TAP_NAME(__VA_ARGS__))                        \
                  : (printf("ok %d # SKIP ", ++tap_n), printf(__VA_ARGS__), printf("\n"), 1))

static inline int tap_done(void)
{
    printf("1..%d\n", tap_n);
    if (tap_failed)
        printf("# %d of %d failed\n", tap_failed, tap_n);
    return tap_failed ? 1 : (tap_n ? 0 : 1); /* a program that checked nothing fails */
}

/* A whole file (NUL-terminated one past *len; the caller frees), or NULL. */
static inline char *tap_slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    char *buf = NULL;
    long n;

    if (!f)
        return NULL;
    if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0 &&
        (buf = malloc((size_t)n + 1)) && fread(buf, 1, (size_t)n, f) == (size_t)n) {
        buf[n] = '\0';
        *len = (size_t)n;
    } else {
        free(buf);
        buf = NULL;
    }
    fclose(f);
    return buf;
}

/* Source tree root, passed by CMake as BOXCERT_SOURCE_DIR. */
#ifndef BOXCERT_SOURCE_DIR
#define BOXCERT_SOURCE_DIR "."
#endif

#endif
