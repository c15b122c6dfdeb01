/* SPDX-License-Identifier: Apache-2.0 */
/* The --seen file parser (verify/seen.c): arbitrary bytes must parse or be refused with
 * a file:line error, never crash or leak. */
#include "bx_verify.h"

#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    json_t *entries = NULL;
    bx_error err;
    if (bx_seen_parse((const char *)data, size, "seen", &entries, NULL, &err) == 0)
        json_decref(entries);
    return 0;
}
