/* SPDX-License-Identifier: Apache-2.0 */
/* Quantities written by people: sizes and CPU counts, as policies and requested files
 * write them. */
#include "bx_common.h"

#include <string.h>

#define SIZE_MAX_BYTES 9007199254740992LL /* 2^53: what a JSON integer holds exactly */

int bx_size_parse(const char *s, int64_t *bytes)
{
    static const struct {
        const char *suffix;
        int64_t mult;
    } units[] = {{"", 1}, {"Ki", 1024}, {"Mi", 1024 * 1024}, {"Gi", 1024 * 1024 * 1024}};
    size_t n = strspn(s, "0123456789");
    int64_t v = 0;

    if (n == 0 || n > 16 || (s[0] == '0' && n > 1))
        return -1;
    for (size_t i = 0; i < n; i++)
        v = v * 10 + (s[i] - '0');
    for (size_t u = 0; u < sizeof units / sizeof units[0]; u++) {
        if (strcmp(s + n, units[u].suffix) != 0)
            continue;
        if (v > SIZE_MAX_BYTES / units[u].mult)
            return -1;
        *bytes = v * units[u].mult;
        return 0;
    }
    return -1;
}

int bx_cpus_parse(const char *s, int64_t *nano)
{
    size_t n = strspn(s, "0123456789"), f = 0;
    int64_t whole = 0, frac = 0;

    if (n == 0 || n > 7 || (s[0] == '0' && n > 1))
        return -1;
    for (size_t i = 0; i < n; i++)
        whole = whole * 10 + (s[i] - '0');
    if (s[n] == '.') {
        f = strspn(s + n + 1, "0123456789");
        if (f == 0 || f > 9)
            return -1;
        for (size_t i = 0; i < 9; i++)
            frac = frac * 10 + (i < f ? s[n + 1 + i] - '0' : 0);
        n += 1 + f;
    }
    if (s[n] || (whole == 0 && frac == 0))
        return -1;
    *nano = whole * 1000000000 + frac;
    return 0;
}
