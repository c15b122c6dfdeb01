/* SPDX-License-Identifier: Apache-2.0 */
/* The parsers of a task's references beyond its descriptors (attest/references.c) on
 * arbitrary bytes: the first byte picks /proc/<pid>/maps or an io_uring fdinfo. What a
 * parser accepts must make sense: a mapping's end not before its start, its device within
 * the kernel's widths, a judgement among the four; registered files as JSON strings. */
#include "attest_internal.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *buf = (const char *)data + 1;
    size_t len = size ? size - 1 : 0;
    char *copy;
    bx_error e;

    if (size == 0)
        return 0;
    copy = malloc(len + 1);
    if (!copy)
        return 0;
    memcpy(copy, buf, len);
    copy[len] = '\0';
    if (data[0] % 2 == 0) {
        bxa_mapping *m = NULL;
        size_t n = 0;
        bxa_mount mounts[1] = {{.major = 8, .minor = 1}};
        if (bxa_parse_maps(copy, len, &m, &n, &e) == 0) {
            for (size_t i = 0; i < n; i++) {
                int w = bxa_mapping_where(&m[i], mounts, 1);
                if (m[i].end < m[i].start || m[i].major > 0xfff || m[i].minor > 0xfffff ||
                    w < BXA_REF_NONE || w > BXA_REF_OUTSIDE ||
                    (bxa_mapping_worst(&m[i], w) && !(m[i].shared && m[i].write)))
                    __builtin_trap();
            }
        } else if (m || n)
            __builtin_trap();
        bxa_mappings_free(m, n);
    } else {
        json_t *f = NULL;
        if (bxa_parse_io_uring_files(copy, len, &f, &e) == 0) {
            size_t i;
            json_t *v;
            if (!json_is_array(f))
                __builtin_trap();
            json_array_foreach(f, i, v) if (!json_is_string(v)) __builtin_trap();
        } else if (f)
            __builtin_trap();
        json_decref(f);
    }
    free(copy);
    return 0;
}
