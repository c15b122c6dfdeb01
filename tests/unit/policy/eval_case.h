// SPDX-License-Identifier: Apache-2.0
/* One policy rule's status for a policy text and a containment (JSON text): the cases of
 * the policy's unit tests (test_eval_bounds.c, test_policy_words.c). */
#ifndef BX_TEST_EVAL_CASE_H
#define BX_TEST_EVAL_CASE_H
#include "bx_policy.h"
#include "tap.h"

#include <stdlib.h>
#include <string.h>

#define NOW 1780000000LL /* 2026-05-28T20:26:40Z */

static inline bx_policy *policy(const char *text)
{
    bx_policy *p = NULL;
    bx_error err;
    if (bx_policy_load_buffer(text, strlen(text), "bounds.yaml", &p, &err) != 0) {
        printf("Bail out! policy: %s: %s\n%s\n", err.where, err.msg, text);
        exit(1);
    }
    return p;
}

static inline json_t *json(const char *text)
{
    json_error_t je;
    json_t *v = json_loads(text, JSON_DECODE_ANY, &je);
    if (!v) {
        printf("Bail out! test JSON: %s: %s\n", je.text, text);
        exit(1);
    }
    return v;
}

/* A statement around containment (JSON text); predicate members from more (JSON text of an
 * object, or NULL) laid over it. */
static inline json_t *statement(const char *containment, const char *more)
{
    json_t *st = json_pack("{s:s, s:{s:o, s:{s:s, s:[]}}}", "_type", BX_STATEMENT_TYPE, "predicate",
                           "containment", json(containment), "evidence", "level", "engine+kernel",
                           "discrepancies");
    if (more) {
        json_t *m = json(more);
        json_object_update(json_object_get(st, "predicate"), m);
        json_decref(m);
    }
    return st;
}

static inline json_t *eval(const bx_policy *p, const json_t *st, json_t *lacking)
{
    bx_eval_ctx ctx = {.now = NOW};
    bx_error err;
    json_t *all = json_array();
    if (bx_policy_eval_ex(p, st, &ctx, all, lacking, &err) != 0)
        printf("# eval: %s\n", err.msg);
    return all;
}

static inline const char *status_of(const json_t *all, const char *rule)
{
    const json_t *f;
    size_t i;
    json_array_foreach(all, i, f)
    {
        const char *r = json_string_value(json_object_get(f, "rule"));
        if (r && strcmp(r, rule) == 0)
            return json_string_value(json_object_get(f, "status"));
    }
    return "(no finding)";
}

/* The status of rule under policy text for containment (and predicate members more). */
static inline void expect(const char *pol, const char *containment, const char *more, const char *rule,
                   const char *want, const char *name)
{
    bx_policy *p = policy(pol);
    json_t *st = statement(containment, more), *all = eval(p, st, NULL);
    is_str(status_of(all, rule), want, "%s: %s", name, rule);
    json_decref(all);
    json_decref(st);
    bx_policy_free(p);
}

#endif
