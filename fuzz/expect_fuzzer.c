/* SPDX-License-Identifier: Apache-2.0 */
/* The --expect parser on arbitrary bytes. What it accepts must hold what the schema says:
 * every entry names an Id (64 lowercase hex) or a valid name, and no Id is listed twice. */
#include "bx_expect.h"

#include <stdint.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    bx_expect e;
    bx_error err;

    if (bx_expect_parse((const char *)data, size, "fuzz", &e, &err) == 0) {
        for (size_t i = 0; i < e.n; i++) {
            const bx_expect_entry *x = &e.v[i];
            if (!x->id[0] && !x->name)
                __builtin_trap();
            if (x->id[0] && !bx_is_lower_hex(x->id, 64))
                __builtin_trap();
            if (x->name && (!*x->name || *x->name == '/' || strlen(x->name) > 255))
                __builtin_trap();
            for (size_t j = 0; x->id[0] && j < i; j++)
                if (strcmp(e.v[j].id, x->id) == 0)
                    __builtin_trap();
        }
        bx_expect_free(&e);
    } else if (err.code != BX_ECONFIG && err.code != BX_ENOMEM) {
        __builtin_trap(); /* only configuration errors (or out of memory) */
    }
    return 0;
}
