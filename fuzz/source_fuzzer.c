/* SPDX-License-Identifier: Apache-2.0 */
/* The certificate reader (verify/source.c) over a JSON Lines bundle of arbitrary bytes, with
 * a small size cap chosen by the first byte: every line comes out as a certificate no
 * longer than the cap or as an error naming its line; line numbers only grow; after a line
 * over the cap nothing more of the bundle comes out; nothing is dropped in silence (one
 * certificate or error for each non-empty line up to the first over-long one); never a
 * crash, a hang or a leak. */
#include "bx_verify.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct {
    size_t cap, last_line, items;
    int ended; /* a line over the cap was seen */
} state;

#define CHECK(c)                                                                                   \
    do {                                                                                           \
        if (!(c)) {                                                                                \
            fprintf(stderr, "source_fuzzer: %s failed\n", #c);                                     \
            abort();                                                                               \
        }                                                                                          \
    } while (0)

static int each(void *arg, bx_input *in)
{
    state *s = arg;
    CHECK(!s->ended);
    CHECK(in->line > s->last_line);
    s->last_line = in->line;
    s->items++;
    if (in->kind == BX_INPUT_CERT) {
        CHECK(in->buf && in->len <= s->cap && in->buf[in->len] == '\0');
    } else {
        CHECK(in->kind == BX_INPUT_ERROR && in->err.msg[0]);
        if (strstr(in->err.msg, "too large"))
            s->ended = 1;
    }
    return 0;
}

/* the non-empty lines before the first one over the cap (a CR before the LF not counted),
 * plus that one, and whether there is one */
static size_t expected_items(const uint8_t *d, size_t n, size_t cap, int *over)
{
    size_t items = 0, i = 0;
    *over = 0;
    while (i < n) {
        size_t j = i;
        while (j < n && d[j] != '\n')
            j++;
        size_t len = j - i;
        if (len && d[j - 1] == '\r')
            len--;
        if (len > cap) {
            *over = 1;
            return items + 1;
        }
        items += len > 0;
        i = j + 1;
    }
    return items;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static char dir[] = "/tmp/boxcert-source-fuzz-XXXXXX", path[64];
    static int ready;
    state s = {0};
    bx_source_opts o = {0};
    int over;

    if (size < 1)
        return 0;
    if (!ready) {
        CHECK(mkdtemp(dir) != NULL);
        snprintf(path, sizeof path, "%s/b.intoto.jsonl", dir);
        ready = 1;
    }
    s.cap = o.max_size = 1 + (size_t)data[0] * 64; /* 1 byte to about 16 KiB */
    FILE *f = fopen(path, "wb");
    CHECK(f && fwrite(data + 1, 1, size - 1, f) == size - 1 && fclose(f) == 0);
    CHECK(bx_source_read(path, &o, each, &s) == 0);
    size_t want = expected_items(data + 1, size - 1, s.cap, &over);
    CHECK(s.ended == over);
    CHECK(s.items == want);
    unlink(path);
    return 0;
}
