/* SPDX-License-Identifier: Apache-2.0 */
/* What the launcher asked for: `collect --requested FILE`, YAML or JSON (schema: `boxcert
 * schema requested`). Read with the strict YAML reader of common/, then typed by place by the
 * containment table's requested shapes (schema/containment.c): booleans only the plain words
 * true and false, integers plain decimal digits (at most 2^53), formats checked; a member this
 * file does not know is an error, as is a wrong type, each with the file, line and column.
 * Where the policy names a member too the file uses the policy's name (readOnlyRootfs,
 * runtimes, resources.memoryMax, pidsMax, cpusMax); the request is then written in the
 * predicate's names, which the comparator reads and predicate.requested records. */
#include "attest_internal.h"

#include <string.h>

#define REQUESTED_MAX (256 * 1024)
#define DEPTH_MAX 16
#define EVENTS_MAX 100000

/* A policy's name and the predicate's it stands for, below an object member (or at the top). */
static const struct {
    const char *parent, *now, *old;
} renamed[] = {
    {NULL, "readOnlyRootfs", "rootfs"},
    {NULL, "runtimes", "runtime"},
    {"resources", "memoryMax", "memoryBytes"},
    {"resources", "pidsMax", "pidsLimit"},
    {"resources", "cpusMax", "nanoCpus"},
};

static void note_old(char *old, size_t n, const char *parent, const char *name, const char *now)
{
    size_t k = strlen(old);
    if (k < n)
        snprintf(old + k, n - k, "%s%s%s%s (write %s%s%s)", k ? ", " : "", parent ? parent : "",
                 parent ? "." : "", name, parent ? parent : "", parent ? "." : "", now);
}

/* r (typed by the file's shape) in the predicate's names; the old names given listed in old. */
static int to_predicate_names(const bx_yaml_doc *doc, json_t *r, char *old, size_t oldn,
                              bx_error *err)
{
    char ptr[96];
    json_object_del(r, "version");
    for (size_t i = 0; i < sizeof renamed / sizeof renamed[0]; i++) {
        json_t *in = renamed[i].parent ? json_object_get(r, renamed[i].parent) : r;
        json_t *v = json_object_get(in, renamed[i].now), *x = NULL;
        snprintf(ptr, sizeof ptr, "%s%s/%s", renamed[i].parent ? "/" : "",
                 renamed[i].parent ? renamed[i].parent : "", renamed[i].now);
        if (json_object_get(in, renamed[i].old)) {
            if (v)
                return bx_yaml_key_error(doc, ptr, err, BX_ECONFIG,
                                         "%s and %s name one member: write %s only", renamed[i].now,
                                         renamed[i].old, renamed[i].now);
            note_old(old, oldn, renamed[i].parent, renamed[i].old, renamed[i].now);
            continue;
        }
        if (!v)
            continue;
        int64_t n = 0;
        if (!strcmp(renamed[i].now, "readOnlyRootfs"))
            x = json_pack("{s:O}", "readOnly", v);
        else if (!strcmp(renamed[i].now, "runtimes")) {
            if (json_array_size(v) != 1)
                return bx_yaml_error(doc, ptr, err, BX_ECONFIG,
                                     "runtimes: a request names one runtime, found %zu",
                                     json_array_size(v));
            x = json_incref(json_array_get(v, 0));
        }
        else if (!strcmp(renamed[i].now, "pidsMax"))
            x = json_incref(v);
        else { /* memoryMax, cpusMax: as the policy writes them (typed already) */
            int bad = !strcmp(renamed[i].now, "memoryMax")
                          ? bx_size_parse(json_string_value(v), &n) != 0
                          : bx_cpus_parse(json_string_value(v), &n) != 0;
            if (bad || n <= 0)
                return bx_yaml_error(doc, ptr, err, BX_ECONFIG, "resources.%s: must be above 0",
                                     renamed[i].now);
            x = json_integer(n);
        }
        if (!x || json_object_set_new(in, renamed[i].old, x) != 0)
            return bx_error_set(err, BX_ENOMEM, doc->file, "out of memory");
        json_object_del(in, renamed[i].now);
    }
    return 0;
}

int bx_requested_load(const char *buf, size_t len, const char *file, json_t **containment,
                      char sha256[65], char deprecated[256], bx_error *err)
{
    bx_yaml_doc doc = {0};
    json_t *r = NULL;
    int rc;

    *containment = NULL;
    sha256[0] = deprecated[0] = '\0';
    if (len > REQUESTED_MAX)
        return bx_error_set(err, BX_ECONFIG, file, "too large: over %d bytes", REQUESTED_MAX);
    if ((rc = bx_yaml_load(buf, len, file, DEPTH_MAX, EVENTS_MAX, &doc, err)) != 0)
        goto out;
    if (!json_is_object(doc.root)) {
        rc = bx_yaml_error(&doc, "", err, BX_ECONFIG,
                           "expected a mapping of containment fields (network, rootfs, ...)");
        goto out;
    }
    if ((rc = bx_shape_type_yaml(bx_requested_shape(), &doc, "requested", "", doc.root,
                                 BX_PREDICATE_LATEST, &r, err)) != 0)
        goto out;
    if ((rc = to_predicate_names(&doc, r, deprecated, 256, err)) != 0)
        goto out;
    if (json_object_size(r) == 0) {
        rc = bx_yaml_error(&doc, "", err, BX_ECONFIG, "asks for nothing");
        goto out;
    }
    bx_sha256_hex(buf, len, sha256);
    *containment = r;
    r = NULL;
out:
    json_decref(r);
    bx_yaml_free(&doc);
    return rc;
}
