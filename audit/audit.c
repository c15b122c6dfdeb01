/* SPDX-License-Identifier: Apache-2.0 */
/* The audit's life: options, engines, and the order of the phases. */
#include "audit_internal.h"

#include <stdlib.h>
#include <string.h>


/* certificate.maxCollectionDelay of the effective policy, or -1. */
static int max_delay(const bx_policy *p, int64_t *out, bx_error *err)
{
    const json_t *v =
        json_object_get(json_object_get(bx_policy_effective(p), "certificate"), "maxCollectionDelay");
    *out = -1;
    if (!v || json_is_null(v))
        return 0;
    if (!json_is_string(v) || bx_duration_parse(json_string_value(v), out, err) != 0)
        return bx_error_set(err, BX_ECONFIG, bx_policy_source(p),
                            "certificate.maxCollectionDelay is not a duration");
    return 0;
}

int bx_audit_new(const bx_audit_opts *o, bx_audit **out, bx_error *err)
{
    bx_audit *a = NULL;
    int rc = 0;

    *out = NULL;
    for (size_t i = 0; i < o->nlabels; i++) {
        const char *eq = strchr(o->labels[i], '=');
        json_t *probe = json_string(o->labels[i]);
        json_decref(probe);
        if (!eq || eq == o->labels[i] || !probe)
            return bx_error_set(err, BX_ECONFIG, "--label", "'%s' is not K=V (UTF-8)",
                                o->labels[i]);
    }
    if (!(a = calloc(1, sizeof *a)) || !(a->orphans = json_array()) ||
        !(a->session_index = json_object())) {
        rc = bx_error_set(err, BX_ENOMEM, NULL, "out of memory");
        goto out;
    }
    a->o = *o;
    a->jobs = o->jobs ? o->jobs : BX_AUDIT_JOBS_DEFAULT;
    if (a->jobs > BX_AUDIT_JOBS_MAX) {
        rc = bx_error_set(err, BX_ECONFIG, "--jobs", "at most %d", BX_AUDIT_JOBS_MAX);
        goto out;
    }
    if (pthread_mutex_init(&a->mu, NULL) != 0) {
        rc = bx_error_set(err, BX_ENOMEM, NULL, "out of memory");
        goto out;
    }
    a->mu_ok = 1;
    if ((rc = max_delay(o->policy, &a->max_delay, err)) != 0)
        goto out;
    *out = a;
    a = NULL;
out:
    bx_audit_free(a);
    return rc;
}

static void rows_free(bx_audit *a)
{
    for (size_t i = 0; i < a->nrows; i++)
        free(a->rows[i].certs);
    free(a->rows);
    a->rows = NULL;
    a->nrows = 0;
}

void bx_audit_free(bx_audit *a)
{
    if (!a)
        return;
    for (size_t i = 0; i < a->nengines; i++) {
        bx_engine_close(a->engines[i].eng);
        for (size_t w = 0; w < a->engines[i].nmore; w++)
            bx_engine_close(a->engines[i].more[w]);
        free(a->engines[i].more);
        free(a->engines[i].endpoint);
        json_decref(a->engines[i].all);
    }
    free(a->engines);
    for (size_t i = 0; i < a->nsessions; i++) {
        free(a->sessions[i].name);
        json_decref(a->sessions[i].audit_findings);
        json_decref(a->sessions[i].inspect);
        free(a->sessions[i].inspect_raw);
    }
    free(a->sessions);
    json_decref(a->session_index);
    for (size_t i = 0; i < a->ncerts; i++) {
        free(a->certs[i].file);
        bx_verify_result_free(&a->certs[i].res);
        json_decref(a->certs[i].findings);
    }
    free(a->certs);
    rows_free(a);
    free(a->certs_dir);
    free(a->tasks_folder);
    json_decref(a->orphans);
    if (a->mu_ok)
        pthread_mutex_destroy(&a->mu);
    free(a);
}

int bx_audit_add_engine(bx_audit *a, const char *url, int flags, bx_error *err)
{
    bx_engine *eng = NULL;
    bxu_engine *e;
    int rc;

    if ((rc = bx_engine_open_ex(url, flags, &eng, err)) != 0)
        return rc;
    if (!(e = bxu_grow(a->engines, &a->nengines, sizeof *a->engines))) {
        bx_engine_close(eng);
        return bx_error_set(err, BX_ENOMEM, NULL, "out of memory");
    }
    a->engines = e;
    e = &a->engines[a->nengines - 1];
    e->eng = eng;
    e->flags = flags;
    e->alias_of = -1;
    e->docker = 1;
    if (!(e->endpoint = strdup(bx_engine_endpoint(eng)))) {
        a->nengines--;
        bx_engine_close(eng);
        return bx_error_set(err, BX_ENOMEM, NULL, "out of memory");
    }
    e->local = strncmp(e->endpoint, "unix://", 7) == 0;
    return 0;
}

int bx_audit_scan(bx_audit *a, bx_error *err)
{
    return bxu_scan(a, err);
}
