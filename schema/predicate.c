/* SPDX-License-Identifier: Apache-2.0 */
/* The containment predicate's versions (certificate.md, "Versions"): which version a
 * predicateType names, the closed schema of each (the shapes of containment.c, walked by
 * shape.c with the version), the few rules across fields, and what an older version lacks. */
#include "schema_internal.h"

#include <pthread.h>
#include <string.h>

unsigned bx_predicate_version(const char *type)
{
    size_t plen = strlen(BX_PREDICATE_TYPE_PREFIX), n;
    unsigned v = 0;

    if (!type || strncmp(type, BX_PREDICATE_TYPE_PREFIX, plen) != 0)
        return 0;
    type += plen;
    n = strspn(type, "0123456789");
    if (n == 0 || n > 3 || type[n] != '\0' || type[0] == '0')
        return 0;
    for (size_t i = 0; i < n; i++)
        v = v * 10 + (unsigned)(type[i] - '0');
    return v <= 255 ? v : 0;
}

const char *bx_predicate_type(unsigned v, char out[40])
{
    snprintf(out, 40, "%s%u", BX_PREDICATE_TYPE_PREFIX, v);
    return out;
}

/* ---- what an older version lacks ---------------------------------------------------------- */

#define LACKS_MAX 64

static void lacks_walk(const bx_shape *s, unsigned v, const char *prefix, const char **out,
                       size_t *n, char (*names)[96])
{
    if (s->kind != BX_K_OBJECT)
        return;
    for (const bx_member *m = s->members; m->name && *n < LACKS_MAX; m++) {
        char dotted[96];
        snprintf(dotted, sizeof dotted, "%s%s%s", prefix, *prefix ? "." : "", m->name);
        if (!bx_member_in(m, BX_PREDICATE_LATEST))
            continue;
        if (!bx_member_in(m, v)) {
            const bx_member *other = NULL; /* the same name in v with another shape */
            for (const bx_member *o = s->members; o->name; o++)
                if (o != m && !strcmp(o->name, m->name) && bx_member_in(o, v))
                    other = o;
            if (!other) {
                snprintf(names[*n], sizeof names[*n], "%s", dotted);
                out[*n] = names[*n];
                (*n)++;
            } else if (m->shape->kind == BX_K_OBJECT && other->shape->kind == BX_K_OBJECT) {
                /* what the latest shape has that v's does not: a lack below it */
                for (const bx_member *mm = m->shape->members; mm->name && *n < LACKS_MAX; mm++) {
                    int has = 0;
                    for (const bx_member *oo = other->shape->members; oo->name; oo++)
                        has |= !strcmp(oo->name, mm->name) && bx_member_in(oo, v);
                    if (!has && bx_member_in(mm, BX_PREDICATE_LATEST) &&
                        strlen(dotted) + strlen(mm->name) + 2 <= sizeof names[*n]) {
                        memcpy(names[*n], dotted, strlen(dotted));
                        names[*n][strlen(dotted)] = '.';
                        memcpy(names[*n] + strlen(dotted) + 1, mm->name, strlen(mm->name) + 1);
                        out[*n] = names[*n];
                        (*n)++;
                    }
                }
            }
            continue;
        }
        if (strcmp(m->name, "requested") != 0) /* a request is not a fact */
            lacks_walk(m->shape, v, dotted, out, n, names);
    }
}

static const char *lacks[BX_PREDICATE_LATEST + 1][LACKS_MAX + 1];
static char lack_names[BX_PREDICATE_LATEST + 1][LACKS_MAX][96];
static pthread_once_t lacks_once = PTHREAD_ONCE_INIT;

static void lacks_build(void)
{
    for (unsigned v = 1; v <= BX_PREDICATE_LATEST; v++) {
        size_t n = 0;
        lacks_walk(bx_predicate_shape(), v, "", lacks[v], &n, lack_names[v]);
        lacks[v][n] = NULL;
    }
}

const char *const *bx_predicate_lacks(unsigned v)
{
    static const char *const none[] = {NULL};
    pthread_once(&lacks_once, lacks_build);
    return v >= 1 && v <= BX_PREDICATE_LATEST ? lacks[v] : none;
}

int bx_predicate_version_lacks(unsigned v, const char *dotted)
{
    for (const char *const *l = bx_predicate_lacks(v); dotted && *l; l++)
        if (strcmp(*l, dotted) == 0)
            return 1;
    return 0;
}

/* ---- nulls for members written by difference ------------------------------------------------- */

static int fill(const bx_shape *s, json_t *v, unsigned version)
{
    size_t i;
    json_t *item;

    if (s->kind == BX_K_ARRAY && json_is_array(v) && s->item->kind == BX_K_OBJECT) {
        json_array_foreach(v, i, item) if (fill(s->item, item, version) != 0) return -1;
        return 0;
    }
    if (s->kind == BX_K_MAP && json_is_object(v) && s->item->kind == BX_K_OBJECT) {
        const char *k;
        json_object_foreach(v, k, item) if (fill(s->item, item, version) != 0) return -1;
        return 0;
    }
    if (s->kind != BX_K_OBJECT || !json_is_object(v))
        return 0;
    for (const bx_member *m = s->members; m->name; m++) {
        json_t *have;
        if (!bx_member_in(m, version))
            continue;
        if (!(have = json_object_get(v, m->name))) {
            if (m->flags & BX_M_OPTIONAL) /* an optional member stays absent; present, filled */
                continue;
            if (json_object_set_new(v, m->name, json_null()) != 0)
                return -1;
        } else if (fill(m->shape, have, version) != 0) {
            return -1;
        }
    }
    return 0;
}

int bx_predicate_fill_nulls(json_t *p, unsigned v, bx_error *err)
{
    return fill(bx_predicate_shape(), p, v) == 0
               ? 0
               : bx_error_set(err, BX_ENOMEM, NULL, "out of memory");
}

/* ---- the closed schema ------------------------------------------------------------------------
 */

static const json_t *at2(const json_t *o, const char *a, const char *b)
{
    return json_object_get(json_object_get(o, a), b);
}

static int cross_checks(const json_t *p, bx_error *err)
{
    int64_t issued, expires;
    const char *level = json_string_value(at2(p, "evidence", "level"));

    if (bx_time_parse(json_string_value(json_object_get(p, "issuedAt")), 0, &issued, NULL) != 0 ||
        bx_time_parse(json_string_value(json_object_get(p, "expiresAt")), 0, &expires, NULL) != 0 ||
        expires <= issued)
        return bx_error_set(err, BX_EINVAL, "/expiresAt", "expiresAt is not after issuedAt");
    if (strcmp(level, "engine") == 0) {
        if (!json_is_null(at2(p, "evidence", "kernelSha256")))
            return bx_error_set(err, BX_EINVAL, "/evidence/kernelSha256",
                                "level engine has no kernel readings: must be null");
        if (!json_is_null(at2(p, "evidence", "ociSpecSha256")))
            return bx_error_set(err, BX_EINVAL, "/evidence/ociSpecSha256",
                                "level engine has no OCI spec: must be null");
        if (!json_is_null(json_object_get(at2(p, "containment", "seccomp"), "profileSha256")))
            return bx_error_set(err, BX_EINVAL, "/containment/seccomp/profileSha256",
                                "level engine has no OCI spec: must be null");
    }
    if (strcmp(level, "engine+runtime") != 0 && !json_is_null(at2(p, "evidence", "sandbox")))
        return bx_error_set(err, BX_EINVAL, "/evidence/sandbox",
                            "only level engine+runtime has sandbox readings: must be null");
    return 0;
}

int bxs_predicate_check(const json_t *p, unsigned version, bx_error *err)
{
    int rc = bx_shape_check(bx_predicate_shape(), p, version, err);
    return rc ? rc : cross_checks(p, err);
}
