/* SPDX-License-Identifier: Apache-2.0 */
/* Full documents from fixtures written by difference (docs/architecture.md, "Fixtures by
 * difference"), at build time:
 *
 *   bx-fixture-expand BASE OUTDIR SEED...
 *       each SEED (NAME.json) is an RFC 7396 merge patch over the statement BASE, a null being
 *       a null value (what the predicate's version carries is put back as null), and
 *       inputsSha256 recomputed unless the patch sets it; or
 *       {"$edit": {"patch": P, "delete": [JSON pointer...], "pretty": bool,
 *                  "replace": [{"from": TEXT, "to": TEXT} | {"from": TEXT, "toHex": HEX}]}}
 *       for what a patch cannot say: members deleted, bytes that are not JCS (whitespace),
 *       not JSON (a float, a duplicate key) or not UTF-8, each replacement of the first
 *       occurrence of from in the JCS bytes. OUTDIR/NAME.json gets the bytes.
 *   bx-fixture-expand --c-string NAME BASE OUT.h
 *       a header defining static const char NAME[] = the JCS bytes of BASE.
 */
#include "bx_schema.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void die(const char *what, const char *why)
{
    fprintf(stderr, "bx-fixture-expand: %s: %s\n", what, why);
    exit(1);
}

static json_t *load(const char *path)
{
    json_error_t e;
    json_t *v = json_load_file(path, JSON_REJECT_DUPLICATES | JSON_ALLOW_NUL, &e);
    if (!v)
        die(path, e.text);
    return v;
}

static int hexval(char c)
{
    return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* buf (malloc'd, *len bytes) with the first `from` replaced by `to` (tolen bytes). */
static char *replace(char *buf, size_t *len, const char *from, const char *to, size_t tolen,
                     const char *seed)
{
    size_t flen = strlen(from);
    char *at = flen ? memmem(buf, *len, from, flen) : NULL, *out;
    size_t off;
    if (!at)
        die(seed, "a replace's from is not in the document");
    off = (size_t)(at - buf);
    if (!(out = malloc(*len - flen + tolen + 1)))
        die(seed, "out of memory");
    memcpy(out, buf, off);
    memcpy(out + off, to, tolen);
    memcpy(out + off + tolen, at + flen, *len - off - flen);
    *len = *len - flen + tolen;
    out[*len] = '\0';
    free(buf);
    return out;
}

/* Remove the member at a JSON pointer of object members ("/predicate/containment/rootfs"). */
static void del(json_t *doc, const char *ptr, const char *seed)
{
    char buf[512], *last;
    json_t *o = doc;
    snprintf(buf, sizeof buf, "%s", ptr);
    last = strrchr(buf, '/');
    if (!last || buf[0] != '/')
        die(seed, "delete: not a JSON pointer");
    *last = '\0';
    for (char *seg = strtok(buf + 1, "/"); seg && o; seg = strtok(NULL, "/"))
        o = json_object_get(o, seg);
    if (!o || json_object_del(o, last + 1) != 0)
        die(seed, "delete: no such member");
}

static char *expand(const json_t *base, const char *seed, size_t *len)
{
    json_t *spec = load(seed), *edit = json_object_get(spec, "$edit"), *st, *r;
    const json_t *patch = edit ? json_object_get(edit, "patch") : spec;
    bx_error err;
    char *out = NULL;
    size_t i;

    json_t *none = json_object();
    if (!(st = bx_json_merge_patch(base, patch ? patch : none)))
        die(seed, "cannot lay the patch over the base");
    json_decref(none);
    json_t *pred = json_object_get(st, "predicate");
    if (json_is_object(pred) && bx_predicate_fill_nulls(pred, bx_statement_version(st), &err))
        die(seed, err.msg);
    /* inputsSha256 follows the patched inputs, unless the patch says otherwise */
    if (json_is_object(pred) &&
        !json_object_get(json_object_get(patch, "predicate"), "inputsSha256")) {
        char hex[65];
        if (bx_predicate_inputs_sha256(pred, hex, &err) != 0 ||
            json_object_set_new(pred, "inputsSha256", json_string(hex)) != 0)
            die(seed, "cannot recompute inputsSha256");
    }
    json_array_foreach(json_object_get(edit, "delete"), i, r)
        del(st, json_string_value(r) ? json_string_value(r) : "", seed);
    if (json_is_true(json_object_get(edit, "pretty"))) {
        if (!(out = json_dumps(st, JSON_INDENT(1) | JSON_SORT_KEYS)))
            die(seed, "cannot serialize");
        *len = strlen(out);
    } else if (bx_jcs_serialize(st, &out, len, &err) != 0) {
        die(seed, err.msg);
    }
    json_array_foreach(json_object_get(edit, "replace"), i, r)
    {
        const char *from = json_string_value(json_object_get(r, "from"));
        const char *to = json_string_value(json_object_get(r, "to"));
        const char *hex = json_string_value(json_object_get(r, "toHex"));
        char bytes[256];
        size_t n = 0;
        if (!from || (!to && !hex))
            die(seed, "replace: {from, to} or {from, toHex}");
        if (hex) {
            for (; hex[0] && hex[1] && n < sizeof bytes; hex += 2)
                bytes[n++] = (char)(hexval(hex[0]) * 16 + hexval(hex[1]));
            to = bytes;
        } else {
            n = strlen(to);
        }
        out = replace(out, len, from, to, n, seed);
    }
    json_decref(st);
    json_decref(spec);
    return out;
}

static void write_file(const char *path, const char *buf, size_t len)
{
    char tmp[4200];
    FILE *f;
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    if (!(f = fopen(tmp, "wb")) || fwrite(buf, 1, len, f) != len || fclose(f) != 0 ||
        rename(tmp, path) != 0)
        die(path, "cannot be written");
}

int main(int argc, char **argv)
{
    json_t *base;
    bx_error err;

    if (argc == 5 && strcmp(argv[1], "--c-string") == 0) {
        char *jcs = NULL;
        size_t len = 0;
        FILE *f;
        base = load(argv[3]);
        if (bx_jcs_serialize(base, &jcs, &len, &err) != 0)
            die(argv[3], err.msg);
        if (!(f = fopen(argv[4], "w")))
            die(argv[4], "cannot be written");
        fprintf(f,
                "/* Generated by bx-fixture-expand from %s: do not edit. */\nstatic const char "
                "%s[] =\n    \"",
                "fixtures/base/statement.json", argv[2]);
        for (size_t i = 0; i < len; i++) {
            if (jcs[i] == '"' || jcs[i] == '\\' || jcs[i] == '?')
                fputc('\\', f);
            fputc(jcs[i], f);
            if (i % 96 == 95 && i + 1 < len)
                fputs("\"\n    \"", f);
        }
        fputs("\";\n", f);
        if (fclose(f) != 0)
            die(argv[4], "cannot be written");
        free(jcs);
        json_decref(base);
        return 0;
    }
    if (argc < 3) {
        fputs("usage: bx-fixture-expand BASE OUTDIR SEED...\n"
              "       bx-fixture-expand --c-string NAME BASE OUT.h\n",
              stderr);
        return 2;
    }
    base = load(argv[1]);
    for (int i = 3; i < argc; i++) {
        const char *slash = strrchr(argv[i], '/');
        char path[4096];
        size_t len = 0;
        char *bytes = expand(base, argv[i], &len);
        snprintf(path, sizeof path, "%s/%s", argv[2], slash ? slash + 1 : argv[i]);
        write_file(path, bytes, len);
        free(bytes);
    }
    json_decref(base);
    return 0;
}
