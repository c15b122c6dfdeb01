/* SPDX-License-Identifier: Apache-2.0 */
/* Small pieces every phase of the audit uses: growing a table by one, a string for the
 * report whatever its bytes, the name of a verdict. */
#include "audit_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void *bxu_grow(void *v, size_t *n, size_t sz)
{
    char *g = realloc(v, (*n + 1) * sz);

    if (!g)
        return NULL;
    memset(g + *n * sz, 0, sz);
    (*n)++;
    return g;
}

json_t *bxu_string(const char *s)
{
    json_t *j = json_string(s ? s : "");
    char *buf, *o;

    if (j || !s)
        return j;
    /* not valid UTF-8: keep ASCII, show every other byte as \xNN */
    if (!(buf = malloc(strlen(s) * 4 + 1)))
        return NULL;
    o = buf;
    for (const unsigned char *p = (const unsigned char *)s; *p; p++)
        o += *p < 0x80 ? sprintf(o, "%c", *p) : sprintf(o, "\\x%02x", *p);
    j = json_string(buf);
    free(buf);
    return j;
}

const char *bxu_verdict_name(int v)
{
    static const char *const names[] = {"compliant", "noncompliant", "unattested", "missing",
                                        "unreachable"};
    return v >= 0 && v < 5 ? names[v] : "?";
}
