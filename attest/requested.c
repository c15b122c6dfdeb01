/* SPDX-License-Identifier: Apache-2.0 */
/* What the launcher asked for: `collect --requested FILE`, YAML or JSON (schema: `boxcert
 * schema requested`). Read with the strict YAML reader of common/, then typed by place by the
 * containment table's requested shapes (schema/containment.c): booleans only the plain words
 * true and false, integers plain decimal digits (at most 2^53), formats checked; a member this
 * file does not know is an error, as is a wrong type, each with the file, line and column. */
#include "attest_internal.h"

#define REQUESTED_MAX (256 * 1024)
#define DEPTH_MAX 16
#define EVENTS_MAX 100000

int bx_requested_load(const char *buf, size_t len, const char *file, json_t **containment,
                      char sha256[65], bx_error *err)
{
    bx_yaml_doc doc = {0};
    json_t *r = NULL;
    int rc;

    *containment = NULL;
    sha256[0] = '\0';
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
