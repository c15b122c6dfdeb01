#include "bx_schema.h"

#include <string.h>

int bx_predicate_inputs_sha256(const json_t *predicate, char out[65], bx_error *err)
{
    static const char *const keys[] = {"containment", "image", "requested", "session"};
    json_t *in = json_object();
    int rc = 0;
    if (!in)
        return bx_error_set(err, BX_EENV, NULL, "out of memory");
    for (size_t i = 0; i < sizeof keys / sizeof *keys; i++) {
        json_t *v = json_object_get(predicate, keys[i]);
        json_object_set_new(in, keys[i], v ? json_incref(v) : json_null());
    }
    rc = bx_jcs_sha256_hex(in, out, err);
    json_decref(in);
    return rc;
}

int bx_statement_build(json_t *predicate, const char *source_commit, json_t **out, bx_error *err)
{
    const char *image_id = json_string_value(json_object_get(json_object_get(predicate, "image"), "id"));
    if (!image_id || strncmp(image_id, "sha256:", 7) != 0 || !bx_is_lower_hex(image_id + 7, 64))
        return bx_error_set(err, BX_EINVAL, "/predicate/image/id",
                            "image id must be sha256:<64 lowercase hex>");
    json_t *subjects = json_pack("[{s:{s:s}, s:s}]", "digest", "sha256", image_id + 7, "name", "image");
    if (subjects && source_commit)
        json_array_append_new(subjects, json_pack("{s:{s:s}, s:s}", "digest", "gitCommit",
                                                  source_commit, "name", "source"));
    json_t *st = subjects ? json_pack("{s:s, s:O, s:s, s:o}", "_type", BX_STATEMENT_TYPE, "predicate",
                                      predicate, "predicateType", BX_PREDICATE_TYPE, "subject",
                                      subjects)
                          : NULL;
    if (!st)
        return bx_error_set(err, BX_EENV, NULL, "out of memory");
    *out = st;
    return 0;
}

static int check_subjects(const json_t *st, bx_error *err)
{
    json_t *subj = json_object_get(st, "subject");
    size_t i;
    json_t *s;
    int have_image = 0;
    if (!json_is_array(subj) || json_array_size(subj) == 0 || json_array_size(subj) > 2)
        return bx_error_set(err, BX_EINVAL, "/subject", "subject must list the image (and source)");
    json_array_foreach(subj, i, s) {
        char where[32];
        snprintf(where, sizeof where, "/subject/%zu", i);
        const char *name = json_string_value(json_object_get(s, "name"));
        json_t *dig = json_object_get(s, "digest");
        if (!json_is_object(s) || json_object_size(s) != 2 || !name || !json_is_object(dig) ||
            json_object_size(dig) != 1)
            return bx_error_set(err, BX_EINVAL, where, "a subject is {digest: {alg: hex}, name}");
        if (strcmp(name, "image") == 0 && !have_image) {
            const char *h = json_string_value(json_object_get(dig, "sha256"));
            if (!h || !bx_is_lower_hex(h, 64))
                return bx_error_set(err, BX_EINVAL, where, "image digest must be sha256 lowercase hex");
            have_image = 1;
        } else if (strcmp(name, "source") == 0 && i == 1) {
            const char *h = json_string_value(json_object_get(dig, "gitCommit"));
            if (!h || !bx_is_lower_hex(h, 40))
                return bx_error_set(err, BX_EINVAL, where, "source digest must be a 40-hex gitCommit");
        } else {
            return bx_error_set(err, BX_EINVAL, where, "unexpected subject '%s'", name);
        }
    }
    if (!have_image)
        return bx_error_set(err, BX_EINVAL, "/subject", "no image subject");
    return 0;
}

int bx_statement_check(const json_t *st, bx_error *err)
{
    static const char *const members[] = {"_type", "predicate", "predicateType", "subject"};
    const char *k;
    json_t *v;
    json_object_foreach((json_t *)st, k, v) {
        int known = 0;
        for (size_t i = 0; i < 4; i++)
            known |= strcmp(k, members[i]) == 0;
        if (!known)
            return bx_error_set(err, BX_EINVAL, "", "unknown member '%s'", k);
    }
    const char *t = json_string_value(json_object_get(st, "_type"));
    if (!t || strcmp(t, BX_STATEMENT_TYPE) != 0)
        return bx_error_set(err, BX_EUNSUPPORTED, "/_type", "_type is not %s", BX_STATEMENT_TYPE);
    const char *pt = json_string_value(json_object_get(st, "predicateType"));
    if (!pt || strcmp(pt, BX_PREDICATE_TYPE) != 0)
        return bx_error_set(err, BX_EUNSUPPORTED, "/predicateType", "predicateType is not %s",
                            BX_PREDICATE_TYPE);
    if (!json_is_object(json_object_get(st, "predicate")))
        return bx_error_set(err, BX_EINVAL, "/predicate", "predicate must be an object");
    return check_subjects(st, err);
}
