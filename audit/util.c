/* SPDX-License-Identifier: Apache-2.0 */
/* Small pieces every phase of the audit uses: growing a table by one, a string for the
 * report whatever its bytes, the name of a verdict. */
#include "audit_internal.h"

#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

void *bxu_grow(void *v, size_t *n, size_t sz)
{
    /* the array holds a power of two of elements, at least *n: it is reallocated only when
     * *n + 1 passes it, so growing to N costs O(N) copies, not O(N^2) */
    size_t cap = 1;
    char *g = v;

    while (cap < *n)
        cap <<= 1;
    if (!v || *n + 1 > cap) {
        size_t want = !v ? (*n ? cap : 1) : cap << 1;
        while (want < *n + 1)
            want <<= 1;
        if (want > SIZE_MAX / sz || !(g = realloc(v, want * sz)))
            return NULL;
    }
    memset(g + *n * sz, 0, sz);
    (*n)++;
    return g;
}

json_t *bxu_string(const char *s)
{
    json_t *j = json_string(s ? s : "");
    char *e;

    if (j || !s)
        return j;
    /* not valid UTF-8 (an endpoint or a folder as given): the byte escaping */
    if (!(e = bx_escape(s, BX_ESC_BYTES)))
        return NULL;
    j = json_string(e);
    free(e);
    return j;
}

json_t *bxu_file(const char *s)
{
    char *e = bx_escape(s, BX_ESC_BYTES);
    json_t *j = e ? json_string(e) : NULL;

    free(e);
    return j;
}

const char *bxu_verdict_name(int v)
{
    static const char *const names[] = {"compliant", "noncompliant", "unattested", "missing",
                                        "unreachable"};
    return v >= 0 && v < 5 ? names[v] : "?";
}
