/* SPDX-License-Identifier: Apache-2.0 */
/* The statement as the verifier reads it once its signatures verified: the strict JSON
 * parser in JCS mode, then the statement's closed schema (schema/predicate.c), on arbitrary
 * bytes. Accepted bytes are their own JCS; refusals are one-line messages with a JSON
 * pointer or line:col. */
#include "bx_schema.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static void check_error(const bx_error *e, int rc)
{
    if (rc != BX_EINVAL && rc != BX_EUNSUPPORTED && rc != BX_ENOMEM)
        __builtin_trap();
    if (strchr(e->msg, '\n') || strchr(e->where, '\n') ||
        memchr(e->where, 0, sizeof e->where) == NULL)
        __builtin_trap();
}

static void check_statement(const json_t *st)
{
    bx_error e;
    int rc = bx_statement_check(st, &e);
    if (rc != 0) {
        check_error(&e, rc);
        if (rc == BX_EINVAL && e.where[0] && e.where[0] != '/')
            __builtin_trap(); /* schema errors name the value with a JSON pointer */
    } else {
        char inputs[65];
        json_t *pred = json_object_get(st, "predicate");
        if (!json_is_object(pred) || bx_predicate_inputs_sha256(pred, inputs, &e) != 0)
            __builtin_trap();
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    json_t *st = NULL;
    bx_error e;
    char *jcs = NULL;
    size_t len = 0;
    int rc = bx_json_parse_strict((const char *)data, size, BX_JSON_OBJECT | BX_JSON_JCS, &st, &e);

    if (rc != 0) {
        check_error(&e, rc);
        /* most mutations break the JCS form: give the schema the value all the same */
        if (bx_json_parse_strict((const char *)data, size, BX_JSON_OBJECT, &st, &e) == 0)
            check_statement(st);
        json_decref(st);
        return 0;
    }
    /* require_jcs: the bytes are exactly the JCS of what was parsed */
    if (bx_jcs_serialize(st, &jcs, &len, &e) != 0 || len != size || memcmp(jcs, data, size) != 0)
        __builtin_trap();
    check_statement(st);
    free(jcs);
    json_decref(st);
    return 0;
}
