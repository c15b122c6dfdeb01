/* SPDX-License-Identifier: Apache-2.0 */
/* Typed access to the Engine API's replies, strict about types (absent and null alike; a
 * wrong type, a NUL in a string, an integer beyond 2^53 are errors naming the reply and the
 * member), the fail-closed checks on a container inspect, and the module's small shared
 * helpers (errors, sorting JSON arrays). */
#include "attest_internal.h"

#include <stdlib.h>
#include <string.h>

const json_t *bxa_get(const json_t *root, const char *ptr)
{
    return bx_json_at(root, ptr);
}

int bxa_bad(bx_error *err, const char *doc, const char *ptr, const char *msg)
{
    char where[128];

    snprintf(where, sizeof where, "%s:%s", doc, ptr);
    return bx_error_set(err, BX_EINVAL, where, "%s", msg);
}

int bxa_oom(bx_error *err)
{
    return bx_error_set(err, BX_ENOMEM, NULL, "out of memory");
}

int bxa_str(const json_t *root, const char *doc, const char *ptr, int required, const char **out,
            bx_error *err)
{
    const json_t *v = bxa_get(root, ptr);

    *out = NULL;
    if (!v || json_is_null(v))
        return required ? bxa_bad(err, doc, ptr, "missing from the engine reply") : 0;
    if (!json_is_string(v))
        return bxa_bad(err, doc, ptr, "not a string in the engine reply");
    if (strlen(json_string_value(v)) != json_string_length(v))
        return bxa_bad(err, doc, ptr, "contains a NUL byte: cannot be recorded faithfully");
    *out = json_string_value(v);
    return 0;
}

int bxa_int(const json_t *root, const char *doc, const char *ptr, int required, int *present,
            int64_t *out, bx_error *err)
{
    const json_t *v = bxa_get(root, ptr);

    *present = 0;
    *out = 0;
    if (!v || json_is_null(v))
        return required ? bxa_bad(err, doc, ptr, "missing from the engine reply") : 0;
    if (!json_is_integer(v))
        return bxa_bad(err, doc, ptr, "not an integer in the engine reply");
    json_int_t n = json_integer_value(v);
    if (n > BX_JSON_MAX_INT || n < -BX_JSON_MAX_INT)
        return bxa_bad(err, doc, ptr, "integer beyond 2^53: cannot be recorded faithfully");
    *present = 1;
    *out = (int64_t)n;
    return 0;
}

int bxa_bool(const json_t *root, const char *doc, const char *ptr, int required, int *out,
             bx_error *err)
{
    const json_t *v = bxa_get(root, ptr);

    *out = -1;
    if (!v || json_is_null(v))
        return required ? bxa_bad(err, doc, ptr, "missing from the engine reply") : 0;
    if (!json_is_boolean(v))
        return bxa_bad(err, doc, ptr, "not a boolean in the engine reply");
    *out = json_is_true(v);
    return 0;
}

int bxa_is_image_id(const char *s)
{
    if (!s || strncmp(s, "sha256:", 7) != 0 || strlen(s) != 7 + 64)
        return 0;
    for (const char *p = s + 7; *p; p++)
        if (!((*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'f')))
            return 0;
    return 1;
}

int bxa_check_session(const json_t *c, const char *expect_image, bx_error *err)
{
    const char *img, *name = NULL;
    int running, rc;

    if ((rc = bxa_str(c, "container", "/Image", 1, &img, err)) != 0)
        return rc;
    if (!bxa_is_image_id(img))
        return bxa_bad(err, "container", "/Image", "not an image ID (sha256:<64 hex>)");
    if ((rc = bxa_str(c, "container", "/Name", 0, &name, err)) != 0)
        return rc;
    name = name ? name + (*name == '/') : "?";
    if (expect_image && strcmp(img, expect_image) != 0)
        return bx_error_set(err, BX_EDENIED, "container:/Image",
                            "container %s runs image %s, expected %s", name, img, expect_image);
    if ((rc = bxa_bool(c, "container", "/State/Running", 1, &running, err)) != 0)
        return rc;
    if (!running)
        return bx_error_set(err, BX_EDENIED, "container:/State/Running",
                            "container %s is not running", name);
    return 0;
}

static int cmp_json_str(const void *a, const void *b)
{
    return strcmp(json_string_value(*(json_t *const *)a), json_string_value(*(json_t *const *)b));
}

/* arr's items in cmp's order (qsort over json_t *); left as it is when out of memory (a list
 * out of order then fails the predicate's closed schema: the collection stops). */
void bxa_sort_json(json_t *arr, int (*cmp)(const void *, const void *))
{
    size_t n = json_array_size(arr), i;
    json_t **items;

    if (n < 2 || !(items = calloc(n, sizeof *items)))
        return;
    for (i = 0; i < n; i++)
        items[i] = json_incref(json_array_get(arr, i));
    qsort(items, n, sizeof *items, cmp);
    for (i = 0; i < n; i++)
        json_array_set_new(arr, i, items[i]);
    free(items);
}

void bxa_sort_strings(json_t *arr)
{
    bxa_sort_json(arr, cmp_json_str);
}

static int cmp_json_int(const void *a, const void *b)
{
    json_int_t x = json_integer_value(*(json_t *const *)a),
               y = json_integer_value(*(json_t *const *)b);
    return x < y ? -1 : x > y;
}

void bxa_sort_ints(json_t *arr)
{
    bxa_sort_json(arr, cmp_json_int);
}
