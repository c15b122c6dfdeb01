/* SPDX-License-Identifier: Apache-2.0 */
/* Device cgroup rules read exactly: "TYPE MAJOR:MINOR ACCESS" as the kernel's devices.list
 * writes them and Docker's --device-cgroup-rule takes them, one space each, nothing else
 * (sscanf's " " would also take none or several: "c 1:3rwm", "c 1:3  rwm"). */
#include "bx_schema.h"

#include <string.h>

/* "*" (-1) or a decimal of at most 10 digits without a leading zero, below 2^32. */
static const char *number(const char *p, long long *v)
{
    long long x = 0;
    const char *s = p;
    if (*p == '*') {
        *v = -1;
        return p + 1;
    }
    while (*p >= '0' && *p <= '9' && p - s < 10)
        x = x * 10 + (*p++ - '0');
    if (p == s || (*s == '0' && p - s > 1) || (*p >= '0' && *p <= '9') || x > 0xffffffffLL)
        return NULL;
    *v = x;
    return p;
}

int bx_devrule_parse(const char *s, bx_devrule *out)
{
    const char *p = s;
    unsigned bit;
    bx_devrule r = {0};

    if (!s || (s[0] != 'a' && s[0] != 'b' && s[0] != 'c') || s[1] != ' ')
        return -1;
    r.type = s[0];
    if (!(p = number(s + 2, &r.major)) || *p++ != ':' || !(p = number(p, &r.minor)) || *p++ != ' ')
        return -1;
    if (!*p)
        return -1;
    for (; *p; p++) {
        bit = *p == 'r' ? BX_DEV_READ : *p == 'w' ? BX_DEV_WRITE : *p == 'm' ? BX_DEV_MKNOD : 0;
        if (!bit || (r.access & bit))
            return -1;
        r.access |= bit;
    }
    *out = r;
    return 0;
}

int bx_devrule_within(const bx_devrule *e, const bx_devrule *r)
{
    if (r->type != 'a' && e->type != r->type)
        return 0;
    if (r->major != -1 && e->major != r->major)
        return 0;
    if (r->minor != -1 && e->minor != r->minor)
        return 0;
    return (e->access & ~r->access) == 0;
}
