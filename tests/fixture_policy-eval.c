/* SPDX-License-Identifier: Apache-2.0 */
/* Golden policy-evaluation cases: fixtures/policy-eval/<case>/
 *   policy.yaml      the policy, loaded with bx_policy_load
 *   patch.json       an RFC 7396 merge patch over fixtures/base/statement.json (a hardened
 *                    session from a real collection, scripts/mkfixtures-base.sh): the
 *                    (unsigned) statement given to bx_policy_eval is the base with the patch
 *                    laid over it, a null of the patch being a null value (the members the
 *                    statement's predicate version carries are put back as null)
 *   expected.json    {"now": RFC 3339 (the evaluation time),
 *                     "exhaustive": bool (no finding but those listed may be fail/unknown),
 *                     "findings": [{"rule", "status", "message"?: substring}, ...]}
 *   CASE             the marker (its text says what the case shows)
 * The statement must be one the verifier would pass to the rules (bx_statement_check: the
 * closed predicate schema). Every finding must have the shape {rule, status, expected,
 * observed, message} (+ cis for cis.<id> rules); each listed rule must appear exactly once
 * with that status. The effective policy, fed back as a policy file (JSON is YAML), must
 * load to itself. */
#include "bx_policy.h"
#include "tap.h"

static json_t *load_json(const char *dir, const char *name)
{
    char path[4096];
    json_error_t jerr;
    json_t *v;
    snprintf(path, sizeof path, "%s/%s", dir, name);
    v = json_load_file(path, JSON_REJECT_DUPLICATES, &jerr);
    if (!ok(v != NULL, "%s parses", name))
        printf("#   %s:%d: %s\n", path, jerr.line, jerr.text);
    return v;
}

static int shaped(const json_t *f)
{
    const char *rule = json_string_value(json_object_get(f, "rule"));
    const char *status = json_string_value(json_object_get(f, "status"));
    const char *msg = json_string_value(json_object_get(f, "message"));
    const json_t *cis = json_object_get(f, "cis");
    static const char *const statuses[] = {"pass", "fail", "unknown", "warn", "n/a", NULL};
    int known = 0;

    for (const char *const *s = statuses; status && *s; s++)
        known |= strcmp(*s, status) == 0;
    if (!rule || !known || !msg || !*msg || strchr(msg, '\n') || !json_object_get(f, "expected") ||
        !json_object_get(f, "observed"))
        return 0;
    if (strncmp(rule, "cis.", 4) == 0)
        return json_object_size(f) == 6 && json_is_string(cis) &&
               strcmp(json_string_value(cis), rule + 4) == 0;
    return json_object_size(f) == 5;
}

static void check_findings(const json_t *findings, const json_t *want)
{
    const json_t *w, *f;
    size_t i, j;
    int exhaustive = json_is_true(json_object_get(want, "exhaustive"));

    json_array_foreach(findings, i, f)
    {
        if (!ok(shaped(f), "finding %zu is well formed", i)) {
            char *s = json_dumps(f, JSON_COMPACT);
            printf("#   %s\n", s ? s : "?");
            free(s);
        }
    }
    json_array_foreach(json_object_get(want, "findings"), i, w)
    {
        const char *rule = json_string_value(json_object_get(w, "rule"));
        const char *status = json_string_value(json_object_get(w, "status"));
        const char *msg = json_string_value(json_object_get(w, "message"));
        const json_t *found = NULL;
        size_t n = 0;
        json_array_foreach(findings, j, f)
        {
            if (rule && strcmp(json_string_value(json_object_get(f, "rule")), rule) == 0) {
                found = f;
                n++;
            }
        }
        is_int(n, 1, "%s: one finding", rule ? rule : "?");
        is_str(json_string_value(json_object_get(found, "status")), status, "%s: status",
               rule ? rule : "?");
        if (found && (msg || strcmp(status ? status : "",
                                    json_string_value(json_object_get(found, "status"))) != 0))
            printf("#   message: %s\n", json_string_value(json_object_get(found, "message")));
        if (msg) {
            const char *m = json_string_value(json_object_get(found, "message"));
            ok(m && strstr(m, msg), "%s: message has '%s'", rule ? rule : "?", msg);
        }
    }
    if (!exhaustive)
        return;
    json_array_foreach(findings, i, f)
    {
        const char *rule = json_string_value(json_object_get(f, "rule"));
        const char *status = json_string_value(json_object_get(f, "status"));
        int listed = 0;
        if (strcmp(status, "fail") != 0 && strcmp(status, "unknown") != 0)
            continue;
        json_array_foreach(json_object_get(want, "findings"), j, w)
        {
            listed |= strcmp(json_string_value(json_object_get(w, "rule")), rule) == 0;
        }
        if (!ok(listed, "exhaustive: %s (%s) is expected", rule, status))
            printf("#   message: %s\n", json_string_value(json_object_get(f, "message")));
    }
}

/* The base statement with the case's patch laid over it. */
static json_t *case_statement(const char *dir)
{
    char base_dir[4096];
    json_t *base, *patch, *st = NULL;
    bx_error err;

    snprintf(base_dir, sizeof base_dir, "%s/../../base", dir);
    base = load_json(base_dir, "statement.json");
    patch = load_json(dir, "patch.json");
    if (base && patch && (st = bx_json_merge_patch(base, patch)) != NULL &&
        bx_predicate_fill_nulls(json_object_get(st, "predicate"), bx_statement_version(st),
                                &err) != 0) {
        json_decref(st);
        st = NULL;
    }
    ok(st != NULL, "the base with patch.json laid over it");
    json_decref(base);
    json_decref(patch);
    return st;
}

/* What `policy check` prints, loaded back as a policy file, gives the same policy. */
static void check_reload(const bx_policy *p, const char *path)
{
    char *text = json_dumps(bx_policy_effective(p), JSON_INDENT(2) | JSON_SORT_KEYS);
    bx_policy *q = NULL;
    bx_error err;

    bx_error_clear(&err);
    ok_err(text ? bx_policy_load_buffer(text, strlen(text), path, &q, &err) : -1, &err,
           "the effective policy loads as a policy file");
    ok(q && json_equal(bx_policy_effective(p), bx_policy_effective(q)), "and gives the same effective policy");
    bx_policy_free(q);
    free(text);
}

int main(int argc, char **argv)
{
    char path[4096];
    bx_policy *p = NULL;
    bx_error err;
    json_t *st = NULL, *want = NULL, *findings = json_array();
    int64_t now = 0;

    if (argc != 2) {
        fprintf(stderr, "usage: %s CASE_DIR\n", argv[0]);
        return 2;
    }
    snprintf(path, sizeof path, "%s/policy.yaml", argv[1]);
    bx_error_clear(&err);
    ok_err(bx_policy_load(path, &p, &err), &err, "policy loads");
    st = case_statement(argv[1]);
    want = load_json(argv[1], "expected.json");
    if (!p || !st || !want)
        goto out;
    ok(bx_time_parse(json_string_value(json_object_get(want, "now")), 0, &now, &err) == 0,
       "expected.json has a time 'now'");
    check_reload(p, path);
    ok_err(bx_statement_check(st, &err), &err, "the statement has the predicate's schema");
    bx_eval_ctx ctx = {.now = now};
    ok_err(bx_policy_eval(p, st, &ctx, findings, &err), &err, "evaluates");
    check_findings(findings, want);
    if (getenv("BOXCERT_FIXTURE_DUMP")) {
        char *s = json_dumps(findings, JSON_INDENT(1));
        printf("%s\n", s ? s : "");
        free(s);
    }
out:
    json_decref(findings);
    json_decref(st);
    json_decref(want);
    bx_policy_free(p);
    return tap_done();
}
