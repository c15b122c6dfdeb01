/* SPDX-License-Identifier: Apache-2.0 */
#include "schema_internal.h"

#include <pthread.h>
#include <string.h>

int bx_predicate_inputs_sha256(const json_t *predicate, char out[65], bx_error *err)
{
    static const char *const keys[] = {"containment", "image", "requested", "session"};
    json_t *in = json_object();
    int rc = 0;
    if (!in)
        return bx_error_set(err, BX_ENOMEM, NULL, "out of memory");
    for (size_t i = 0; i < sizeof keys / sizeof *keys; i++) {
        json_t *v = json_object_get(predicate, keys[i]);
        json_object_set_new(in, keys[i], v ? json_incref(v) : json_null());
    }
    rc = bx_jcs_sha256_hex(in, out, err);
    json_decref(in);
    return rc;
}

static EVP_MD *sha256_md;

static void sha256_fetch(void)
{
    sha256_md = EVP_MD_fetch(NULL, "SHA256", NULL);
}

/* The JCS of {containment, image, requested, session} from the JCS of each value. */
static int inputs_from_spans(const bxs_span *v, char out[65])
{
    static const char *const head[] = {
        "{\"containment\":", ",\"image\":", ",\"requested\":", ",\"session\":"};
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    unsigned char md[32];
    unsigned int mdlen = 0;
    int ok;
    EVP_MD_CTX *ctx = EVP_MD_CTX_new();

    pthread_once(&once, sha256_fetch);
    ok = ctx && EVP_DigestInit_ex(ctx, sha256_md ? sha256_md : EVP_sha256(), NULL) == 1;
    for (size_t i = 0; ok && i < 4; i++)
        ok = EVP_DigestUpdate(ctx, head[i], strlen(head[i])) == 1 &&
             (v[i].s ? EVP_DigestUpdate(ctx, v[i].s, v[i].len)
                     : EVP_DigestUpdate(ctx, "null", 4)) == 1;
    ok = ok && EVP_DigestUpdate(ctx, "}", 1) == 1 && EVP_DigestFinal_ex(ctx, md, &mdlen) == 1 &&
         mdlen == 32;
    EVP_MD_CTX_free(ctx);
    if (ok)
        bx_hex_encode(md, 32, out);
    return ok ? 0 : -1;
}

int bx_statement_parse(const char *buf, size_t len, json_t **out, char inputs[65], bx_error *err)
{
    static const char *const names[] = {"containment", "image", "requested", "session"};
    bxs_span spans[4];
    bxs_capture cap = {.parent = "predicate", .names = names, .n = 4, .spans = spans};
    int rc = bxs_json_parse_jcs(buf, len, &cap, out, err);

    inputs[0] = '\0';
    if (rc == 0 && cap.found && inputs_from_spans(spans, inputs) != 0)
        inputs[0] = '\0';
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
        return bx_error_set(err, BX_ENOMEM, NULL, "out of memory");
    *out = st;
    return 0;
}

/* subject: [{digest: {sha256: <image ID hex>}, name: "image"}] and, when the collector was
 * given the session's source revision, {digest: {gitCommit: <40 hex>}, name: "source"}
 * second. */
static int check_subject(const json_t *s, size_t i, const char **name, bx_error *err)
{
    const char *k;
    json_t *v, *dig;
    const char *alg = i == 0 ? "sha256" : "gitCommit";
    size_t hexlen = i == 0 ? 64 : 40;

    if (!json_is_object(s))
        return bx_error_set(err, BX_EINVAL, "", "a subject is {digest: {alg: hex}, name}");
    json_object_foreach((json_t *)s, k, v) {
        if (strcmp(k, "digest") != 0 && strcmp(k, "name") != 0) {
            bx_error_set(err, BX_EINVAL, NULL, "unknown member");
            bx_json_where_push(err, k, strlen(k));
            return BX_EINVAL;
        }
    }
    *name = json_string_value(json_object_get(s, "name"));
    if (!*name || strcmp(*name, i == 0 ? "image" : "source") != 0)
        return bx_error_set(err, BX_EINVAL, "/name",
                            i == 0 ? "the first subject must be named \"image\""
                                   : "the second subject must be named \"source\"");
    dig = json_object_get(s, "digest");
    if (!json_is_object(dig) || json_object_size(dig) != 1 || !json_object_get(dig, alg))
        return bx_error_set(err, BX_EINVAL, "/digest", "expected {\"%s\": hex}", alg);
    v = json_object_get(dig, alg);
    if (!json_is_string(v) || json_string_length(v) != hexlen ||
        !bx_is_lower_hex(json_string_value(v), hexlen)) {
        bx_error_set(err, BX_EINVAL, NULL, "expected %zu lowercase hex digits", hexlen);
        bx_json_where_push(err, alg, strlen(alg));
        bx_json_where_push(err, "digest", 6);
        return BX_EINVAL;
    }
    return 0;
}

static int check_subjects(const json_t *st, bx_error *err)
{
    json_t *subj = json_object_get(st, "subject");
    const char *name = NULL;
    size_t i;
    json_t *s;
    int rc;

    if (!json_is_array(subj) || json_array_size(subj) == 0 || json_array_size(subj) > 2)
        return bx_error_set(err, BX_EINVAL, "/subject",
                            "subject must list the image (and the source)");
    json_array_foreach(subj, i, s) {
        if ((rc = check_subject(s, i, &name, err)) != 0) {
            bx_json_where_push_index(err, i);
            bx_json_where_push(err, "subject", 7);
            return rc;
        }
    }
    /* the source subject and predicate.source ({dirty}) come together */
    if ((json_array_size(subj) == 2) != !json_is_null(json_object_get(
                                            json_object_get(st, "predicate"), "source")))
        return bx_error_set(err, BX_EINVAL, "/predicate/source",
                            json_array_size(subj) == 2
                                ? "a source subject needs predicate.source {dirty}"
                                : "predicate.source without a source subject");
    return 0;
}

int bx_statement_check(const json_t *st, bx_error *err)
{
    static const char *const members[] = {"_type", "predicate", "predicateType", "subject"};
    const char *k;
    json_t *v, *pred;
    int rc;

    json_object_foreach((json_t *)st, k, v) {
        int known = 0;
        for (size_t i = 0; i < sizeof members / sizeof *members; i++)
            known |= strcmp(k, members[i]) == 0;
        if (!known) {
            bx_error_set(err, BX_EINVAL, NULL, "unknown member");
            bx_json_where_push(err, k, strlen(k));
            return BX_EINVAL;
        }
    }
    const char *t = json_string_value(json_object_get(st, "_type"));
    if (!t || strcmp(t, BX_STATEMENT_TYPE) != 0)
        return bx_error_set(err, BX_EUNSUPPORTED, "/_type", "_type is not %s", BX_STATEMENT_TYPE);
    const char *pt = json_string_value(json_object_get(st, "predicateType"));
    unsigned version = bx_predicate_version(pt);
    if (version > BX_PREDICATE_LATEST)
        return bx_error_set(err, BX_EUNSUPPORTED, "/predicateType",
                            "predicate version v%u is newer than this verifier knows (v1 to v%d): "
                            "verify it with a newer boxcert",
                            version, BX_PREDICATE_LATEST);
    if (version == 0)
        return bx_error_set(err, BX_EUNSUPPORTED, "/predicateType",
                            "predicateType is not %s<N>", BX_PREDICATE_TYPE_PREFIX);
    pred = json_object_get(st, "predicate");
    if (!json_is_object(pred))
        return bx_error_set(err, BX_EINVAL, "/predicate", "predicate must be an object");
    if ((rc = bxs_predicate_check(pred, version, err)) != 0) {
        bx_json_where_push(err, "predicate", 9);
        return rc;
    }
    return check_subjects(st, err);
}

unsigned bx_statement_version(const json_t *st)
{
    unsigned v = bx_predicate_version(json_string_value(json_object_get(st, "predicateType")));
    return v <= BX_PREDICATE_LATEST ? v : 0;
}
