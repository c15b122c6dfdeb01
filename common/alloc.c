/* SPDX-License-Identifier: Apache-2.0 */
/* Allocation for the code that must fail closed when memory runs out (the certificate
 * readers, the batch verifier): malloc and realloc, with a hook for tests to make the Nth
 * allocation of this thread fail, so that each failure path is walked and none drops an
 * input or passes. */
#include "bx_common.h"

#include <stdlib.h>
#include <string.h>

static __thread unsigned long fail_at, counted;

void bx_alloc_fail_at(unsigned long n)
{
    fail_at = n;
    counted = 0;
}

unsigned long bx_alloc_count(void)
{
    return counted;
}

static int failing(void)
{
    counted++;
    return fail_at && counted == fail_at;
}

void *bx_malloc(size_t n)
{
    return failing() ? NULL : malloc(n ? n : 1);
}

void *bx_realloc(void *p, size_t n)
{
    return failing() ? NULL : realloc(p, n ? n : 1);
}

char *bx_strdup(const char *s)
{
    size_t n = strlen(s) + 1;
    char *d = bx_malloc(n);
    if (d)
        memcpy(d, s, n);
    return d;
}
