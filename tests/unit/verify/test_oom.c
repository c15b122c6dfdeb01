/* SPDX-License-Identifier: Apache-2.0 */
/* Out of memory never makes a certificate pass: every JSON allocation of a verification
 * is made to fail in turn (jansson's allocator, the n-th call and every one after it), and
 * a certificate that must fail -- expired, or weaker than the policy -- never comes out
 * passing. Either the verification fails (an environment error) or its findings fail. */
#include "bx_verify.h"
#include "tap.h"

#include <stdlib.h>
#include <string.h>

#define FIX BOXCERT_SOURCE_DIR "/fixtures/certificate"

static long budget = -1; /* allocations left before they fail; -1: no limit */
static long calls;

static void *limited_malloc(size_t n)
{
    calls++;
    if (budget == 0)
        return NULL;
    if (budget > 0)
        budget--;
    return malloc(n);
}

static char *slurp(const char *path, size_t *len)
{
    return tap_slurp(path, len);
}

/* One verification with at most n allocations (n < 0: no limit). */
static int run(const bx_policy *p, int64_t at, const char *buf, size_t len, long n, int *pass)
{
    bx_verify_opts vo = {.at = at};
    bx_verify_result res;
    bx_error err;
    int rc;

    budget = n;
    rc = bx_verify_envelope(p, &vo, buf, len, &res, &err);
    budget = -1;
    *pass = rc == 0 && res.pass;
    bx_verify_result_free(&res);
    return rc;
}

/* Every allocation of one verification made to fail in turn: never a pass. */
static void never_passes(const bx_policy *p, int64_t at, const char *buf, size_t len,
                         const char *name)
{
    long total, bad = 0, errors = 0;
    int pass;

    calls = 0;
    ok(run(p, at, buf, len, -1, &pass) == 0 && !pass, "%s: fails without a limit", name);
    total = calls;
    ok(total > 100, "%s: %ld allocations in one verification", name, total);
    for (long n = 0; n <= total; n++) {
        int rc = run(p, at, buf, len, n, &pass);
        bad += pass;
        errors += rc != 0;
    }
    is_int(bad, 0, "%s: no pass with any of the %ld allocations failing", name, total + 1);
    ok(errors > 0, "%s: some runs end as environment errors (%ld)", name, errors);
}

int main(void)
{
    bx_policy *p = NULL, *weak = NULL;
    bx_error err;
    size_t len = 0;
    char *buf = slurp(FIX "/valid/ed25519/cert.intoto.json", &len), *text = NULL;
    int64_t valid_at = 0, expired_at = 0;
    int pass;

    json_set_alloc_funcs(limited_malloc, free);
    ok_err(bx_policy_load(FIX "/policy.yaml", &p, &err), &err, "the golden certificates' policy");
    ok(asprintf(&text,
                "version: 1\ntrust:\n  keys:\n    - file: %s/keys/regress-ed25519.pub\n"
                "containment:\n  network: [bridge]\n",
                FIX) > 0,
       "a policy the certificate is weaker than");
    ok_err(bx_policy_load_buffer(text, strlen(text), "oom.yaml", &weak, &err), &err,
           "... loads");
    ok(bx_time_parse("2026-06-01T00:00:00Z", 0, &valid_at, &err) == 0 &&
           bx_time_parse("2036-06-01T00:00:00Z", 0, &expired_at, &err) == 0,
       "times");
    if (!p || !weak || !len)
        return tap_done();
    ok(run(p, valid_at, buf, len, -1, &pass) == 0 && pass, "the certificate passes its policy");
    never_passes(p, expired_at, buf, len, "expired");
    never_passes(weak, valid_at, buf, len, "network weaker than the policy");
    bx_policy_free(p);
    bx_policy_free(weak);
    free(text);
    free(buf);
    return tap_done();
}
