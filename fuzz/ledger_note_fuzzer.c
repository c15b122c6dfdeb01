/* SPDX-License-Identifier: Apache-2.0 */
/* Reading a ledger note (JSON Lines of envelopes), as ledger show/verify and the union
 * merge of fetch read whatever a remote sent. Checks: every line lies within the input,
 * holds no newline, is not blank and comes in order; a parsed envelope has a certificateId
 * of 64 hex; the union's normal form is a fixed point and the union is idempotent and
 * commutative with the empty note. */
#include "bx_ledger.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    const char *buf;
    size_t len, last_lineno, lines, envs;
} check;

static int on_line(const bx_ledger_note_line *line, void *ctx)
{
    check *c = ctx;
    if (line->bytes < c->buf || line->bytes + line->len > c->buf + c->len)
        __builtin_trap();
    if (line->len == 0 || memchr(line->bytes, '\n', line->len))
        __builtin_trap();
    if (line->lineno <= c->last_lineno)
        __builtin_trap();
    if (line->env ? !bx_is_lower_hex(line->certificate_id, 64) : line->certificate_id[0] != '\0')
        __builtin_trap();
    c->last_lineno = line->lineno;
    c->lines++;
    c->envs += line->env != NULL;
    return 0;
}

static void same(const char *a, size_t alen, const char *b, size_t blen)
{
    if (alen != blen || memcmp(a, b, alen) != 0)
        __builtin_trap();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *buf = (const char *)data;
    check c = {.buf = buf, .len = size};
    bx_error err;
    char *u = NULL, *uu = NULL, *v = NULL;
    size_t ul = 0, uul = 0, vl = 0;

    if (size > 1 << 20)
        return 0;
    if (bx_ledger_note_parse(buf, size, 0, on_line, &c, &err) != 0)
        return 0; /* out of memory only */
    if (bx_ledger_note_union(buf, size, NULL, 0, &u, &ul, &err) != 0)
        return 0;
    /* every line is kept; duplicates may merge, blank lines go */
    check cu = {.buf = u, .len = ul};
    if (bx_ledger_note_parse(u, ul, (size_t)-1, on_line, &cu, &err) == 0 && cu.lines > c.lines)
        __builtin_trap();
    if (bx_ledger_note_union(u, ul, NULL, 0, &uu, &uul, &err) == 0)
        same(u, ul, uu, uul);
    if (bx_ledger_note_union(NULL, 0, buf, size, &v, &vl, &err) == 0)
        same(u, ul, v, vl);
    free(v);
    v = NULL;
    if (bx_ledger_note_union(buf, size, u, ul, &v, &vl, &err) == 0)
        same(u, ul, v, vl);
    free(u);
    free(uu);
    free(v);
    return 0;
}
