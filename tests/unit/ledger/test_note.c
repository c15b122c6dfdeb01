/* SPDX-License-Identifier: Apache-2.0 */
/* Notes as JSON Lines: the parser, the union merge (normal form, commutative, idempotent,
 * nothing dropped) and put (added, unchanged, signatures merged). */
#include "tap.h"
#include "bx_ledger.h"

#include <stdarg.h>

static EVP_PKEY *k1, *k2;

/* A compact envelope over payload, signed by the given keys (NULL-terminated). */
static char *make_env(const char *payload, ...)
{
    bx_envelope env = {0};
    bx_error err;
    char *out = NULL;
    size_t len = 0;
    va_list ap;
    env.payload_type = strdup(BX_PAYLOAD_TYPE);
    env.payload = (unsigned char *)strdup(payload);
    env.payload_len = strlen(payload);
    va_start(ap, payload);
    for (EVP_PKEY *k; (k = va_arg(ap, EVP_PKEY *)) != NULL;)
        if (bx_envelope_sign(&env, k, &err) != 0)
            abort();
    va_end(ap);
    if (bx_envelope_serialize(&env, &out, &len, &err) != 0)
        abort();
    bx_envelope_free(&env);
    return out;
}

static char *cat(const char *fmt, ...) BX_FMT(1, 2);
static char *cat(const char *fmt, ...)
{
    char *s = NULL;
    va_list ap;
    va_start(ap, fmt);
    if (vasprintf(&s, fmt, ap) < 0)
        abort();
    va_end(ap);
    return s;
}

typedef struct {
    size_t n, envs, linenos[16], lens[16];
    char ids[16][65];
    int stop_at;
} seen;

static int record(const bx_ledger_note_line *line, void *ctx)
{
    seen *s = ctx;
    if (s->n < 16) {
        s->linenos[s->n] = line->lineno;
        s->lens[s->n] = line->len;
        snprintf(s->ids[s->n], 65, "%s", line->certificate_id);
    }
    s->n++;
    s->envs += line->env != NULL;
    return s->stop_at && (int)s->n == s->stop_at ? 42 : 0;
}

static size_t count_lines(const char *s)
{
    size_t n = 0;
    for (; *s; s++)
        n += *s == '\n';
    return n;
}

static int contains_line(const char *note, const char *line)
{
    size_t n = strlen(line);
    for (const char *p = note; (p = strstr(p, line)) != NULL; p++)
        if ((p == note || p[-1] == '\n') && p[n] == '\n')
            return 1;
    return 0;
}

static void test_parse(void)
{
    bx_error err;
    char *a = make_env("{\"a\":1}", k1, NULL), *b = make_env("{\"b\":2}", k2, NULL);
    char ida[65];
    bx_sha256_hex("{\"a\":1}", 7, ida);

    seen s = {0};
    char *note = cat("%s\n\n   \t\r\n%s\r\nnot json\n", a, b);
    ok_err(bx_ledger_note_parse(note, strlen(note), 0, record, &s, &err), &err, "parse a note");
    is_int(s.n, 3, "three non-blank lines");
    is_int(s.envs, 2, "two envelopes");
    is_int(s.linenos[0], 1, "line numbers are physical lines (1)");
    is_int(s.linenos[1], 4, "line numbers are physical lines (4)");
    is_int(s.linenos[2], 5, "line numbers are physical lines (5)");
    is_int(s.lens[1], strlen(b), "a final CR is not part of the line");
    is_str(s.ids[0], ida, "certificateId of the first envelope");
    is_str(s.ids[2], "", "no certificateId for a line that is not an envelope");
    free(note);

    memset(&s, 0, sizeof s);
    ok_err(bx_ledger_note_parse(a, strlen(a), 0, record, &s, &err), &err, "no final newline");
    is_int(s.n, 1, "the last line without a newline counts");

    memset(&s, 0, sizeof s);
    ok_err(bx_ledger_note_parse("", 0, 0, record, &s, &err), &err, "empty note");
    is_int(s.n, 0, "no line in an empty note");

    memset(&s, 0, sizeof s);
    ok_err(bx_ledger_note_parse(a, strlen(a), 16, record, &s, &err), &err, "line over the cap");
    is_int(s.n, 1, "reported");
    is_int(s.envs, 0, "but not parsed");

    char nul[] = "{\"payload\":\"\0\"}\nx\n";
    memset(&s, 0, sizeof s);
    ok_err(bx_ledger_note_parse(nul, sizeof nul - 1, 0, record, &s, &err), &err, "NUL in a line");
    is_int(s.n, 2, "the NUL does not end the line or the note");
    is_int(s.lens[0], 15, "the line keeps its NUL");

    memset(&s, 0, sizeof s);
    s.stop_at = 1;
    note = cat("%s\n%s\n", a, b);
    is_int(bx_ledger_note_parse(note, strlen(note), 0, record, &s, &err), 42,
           "a callback's non-zero return stops the parse and is returned");
    is_int(s.n, 1, "nothing after it");
    free(note);
    free(a);
    free(b);
}

static void test_union(void)
{
    bx_error err;
    char *a = make_env("{\"a\":1}", k1, NULL), *b = make_env("{\"b\":2}", k1, NULL);
    char *c = make_env("{\"c\":3}", k2, NULL), *a2 = make_env("{\"a\":1}", k2, NULL);
    char *x = NULL, *y = NULL, *z = NULL, *w = NULL;
    size_t xl = 0, yl = 0, zl = 0, wl = 0;

    char *left = cat("%s\n%s\ngarbage line\n", a, b), *right = cat("%s\n%s\n%s\n", c, b, a2);
    ok_err(bx_ledger_note_union(left, strlen(left), right, strlen(right), &x, &xl, &err), &err,
           "union");
    ok_err(bx_ledger_note_union(right, strlen(right), left, strlen(left), &y, &yl, &err), &err,
           "union, the other way");
    ok(xl == yl && memcmp(x, y, xl) == 0, "the union is commutative");
    is_int(count_lines(x), 5, "four envelopes (b once) and the garbage line");
    ok(contains_line(x, a) && contains_line(x, b) && contains_line(x, c) && contains_line(x, a2),
       "every envelope of both sides is kept");
    ok(contains_line(x, "garbage line"), "a line that is not an envelope is kept as it is");
    ok(strcmp(x + xl - strlen("garbage line\n"), "garbage line\n") == 0,
       "lines that are not envelopes come last");
    ok(strstr(x, a) < strstr(x, a2) || strstr(x, a2) < strstr(x, a),
       "same certificateId, other signature: both lines kept");

    ok_err(bx_ledger_note_union(x, xl, x, xl, &z, &zl, &err), &err, "union with itself");
    ok(zl == xl && memcmp(z, x, xl) == 0, "idempotent");
    ok_err(bx_ledger_note_union(x, xl, NULL, 0, &w, &wl, &err), &err, "union with nothing");
    ok(wl == xl && memcmp(w, x, xl) == 0, "normal form is a fixed point");
    free(z);
    free(w);

    /* The same envelope written with whitespace and CRLF is the same line. */
    char *spaced = strdup(a);
    char *pretty = NULL;
    {
        json_t *j = json_loads(spaced, 0, NULL);
        pretty = json_dumps(j, JSON_INDENT(0) | JSON_PRESERVE_ORDER);
        for (char *p = pretty; *p; p++)
            if (*p == '\n')
                *p = ' ';
        json_decref(j);
    }
    char *crlf = cat("%s\r\n", pretty);
    ok_err(bx_ledger_note_union(crlf, strlen(crlf), a, strlen(a), &z, &zl, &err), &err,
           "union of two spellings of one envelope");
    char *want = cat("%s\n", a);
    is_str(z, want, "one compact line");
    free(want);
    free(z);
    free(crlf);
    free(pretty);
    free(spaced);

    ok_err(bx_ledger_note_union(NULL, 0, NULL, 0, &z, &zl, &err), &err, "union of nothing");
    is_int(zl, 0, "is empty");
    free(z);

    /* associativity on three notes */
    char *n1 = cat("%s\n", c), *n2 = cat("%s\n", a), *n3 = cat("zz\n%s\n", b);
    char *ab = NULL, *ab_c = NULL, *bc = NULL, *a_bc = NULL;
    size_t abl, ab_cl, bcl, a_bcl;
    if (bx_ledger_note_union(n1, strlen(n1), n2, strlen(n2), &ab, &abl, &err) == 0 &&
        bx_ledger_note_union(ab, abl, n3, strlen(n3), &ab_c, &ab_cl, &err) == 0 &&
        bx_ledger_note_union(n2, strlen(n2), n3, strlen(n3), &bc, &bcl, &err) == 0 &&
        bx_ledger_note_union(n1, strlen(n1), bc, bcl, &a_bc, &a_bcl, &err) == 0)
        ok(ab_cl == a_bcl && memcmp(ab_c, a_bc, ab_cl) == 0, "associative");
    else
        ok(0, "associative: %s", err.msg);
    free(ab);
    free(ab_c);
    free(bc);
    free(a_bc);
    free(n1);
    free(n2);
    free(n3);
    free(left);
    free(right);
    free(x);
    free(y);
    free(a);
    free(b);
    free(c);
    free(a2);
}

static void test_put(void)
{
    bx_error err;
    char *a1 = make_env("{\"a\":1}", k1, NULL), *a2 = make_env("{\"a\":1}", k2, NULL);
    char *a12 = make_env("{\"a\":1}", k1, k2, NULL), *b = make_env("{\"b\":2}", k1, NULL);
    char *out = NULL, *out2 = NULL, *line = NULL;
    size_t ol = 0, ol2 = 0, ll = 0;
    int st = 0;

    ok_err(bx_ledger_note_put(NULL, 0, a1, strlen(a1), 1, &out, &ol, &line, &ll, &st, &err), &err,
           "put into an empty note");
    is_int(st, BX_LEDGER_ADDED, "added");
    is_str(line, a1, "the line as stored");
    free(line);

    ok_err(bx_ledger_note_put(out, ol, a1, strlen(a1), 1, &out2, &ol2, NULL, NULL, &st, &err), &err,
           "put the same envelope again");
    is_int(st, BX_LEDGER_UNCHANGED, "unchanged");
    ok(ol2 == ol && memcmp(out, out2, ol) == 0, "the note is the same bytes");
    free(out2);

    ok_err(bx_ledger_note_put(out, ol, a2, strlen(a2), 1, &out2, &ol2, &line, &ll, &st, &err), &err,
           "put the same certificate signed by another key");
    is_int(st, BX_LEDGER_MERGED, "signatures merged");
    is_int(count_lines(out2), 1, "still one line");
    is_str(line, a12, "the line carries both signatures, the first one first");
    free(line);

    char *out3 = NULL;
    size_t ol3 = 0;
    ok_err(bx_ledger_note_put(out2, ol2, a1, strlen(a1), 1, &out3, &ol3, NULL, NULL, &st, &err),
           &err, "put a subset of the signatures");
    is_int(st, BX_LEDGER_UNCHANGED, "unchanged: no new signature");
    free(out3);

    ok_err(bx_ledger_note_put(out, ol, a2, strlen(a2), 0, &out3, &ol3, NULL, NULL, &st, &err), &err,
           "put without merging signatures");
    is_int(st, BX_LEDGER_ADDED, "added as its own line");
    is_int(count_lines(out3), 2, "two lines");
    free(out3);

    ok_err(bx_ledger_note_put(out2, ol2, b, strlen(b), 1, &out3, &ol3, NULL, NULL, &st, &err), &err,
           "put another certificate");
    is_int(st, BX_LEDGER_ADDED, "added");
    ok(contains_line(out3, a12) && contains_line(out3, b), "both certificates are there");
    free(out3);

    char *kept = cat("not an envelope\n%s\n", a1);
    ok_err(
        bx_ledger_note_put(kept, strlen(kept), b, strlen(b), 1, &out3, &ol3, NULL, NULL, &st, &err),
        &err, "put into a note holding a foreign line");
    ok(contains_line(out3, "not an envelope"), "the foreign line is kept");
    free(out3);
    free(kept);

    is_int(
        bx_ledger_note_put(out, ol, "{\"payload\":1}", 13, 1, &out3, &ol3, NULL, NULL, &st, &err),
        BX_EINVAL, "what is not an envelope is refused");
    is_int(st, 0, "no status then");

    bx_envelope e1, e2;
    char *m = NULL;
    size_t ml = 0, added = 0;
    if (bx_envelope_parse(a1, strlen(a1), &e1, &err) == 0 &&
        bx_envelope_parse(b, strlen(b), &e2, &err) == 0) {
        is_int(bx_ledger_envelope_merge(&e1, &e2, &m, &ml, &added, &err), BX_EINVAL,
               "signatures of another payload are not merged");
        bx_envelope_free(&e1);
        bx_envelope_free(&e2);
    }
    free(m);
    free(out);
    free(out2);
    free(a1);
    free(a2);
    free(a12);
    free(b);
}

int main(void)
{
    bx_error err;
    if (bx_key_generate(BX_ALG_ED25519, &k1, &err) != 0 ||
        bx_key_generate(BX_ALG_ED25519, &k2, &err) != 0)
        skip_all("cannot make keys: %s", err.msg);
    test_parse();
    test_union();
    test_put();
    EVP_PKEY_free(k1);
    EVP_PKEY_free(k2);
    return tap_done();
}
