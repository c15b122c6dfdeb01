/* SPDX-License-Identifier: Apache-2.0 */
#include "policy_internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define KEYFILE_MAX (64 * 1024)
#define EXTENDS_MAX 4
#define PTR_MAX 512
#define SNIP_MAX 48

/* ---- helpers ----------------------------------------------------------------- */

const json_t *bxp_get(const json_t *effective, const char *path)
{
    char buf[128], *save = NULL;
    const json_t *v = effective;
    snprintf(buf, sizeof buf, "%s", path);
    for (char *t = strtok_r(buf, ".", &save); t && v; t = strtok_r(NULL, ".", &save))
        v = json_object_get(v, t);
    return v;
}

/* s, cut and with control characters replaced, for a one-line message. */
static const char *snip(const char *s, char *out, size_t n)
{
    size_t i = 0, len = strlen(s);
    for (; s[i] && i + 4 < n; i++)
        out[i] = ((unsigned char)s[i] < 0x20 || s[i] == 0x7f) ? '?' : s[i];
    out[i] = '\0';
    if (i < len)
        snprintf(out + i, n - i, "...");
    return out;
}

static const char *describe(const bx_yaml_doc *doc, const char *ptr, const json_t *v, char *out,
                            size_t n)
{
    char s[SNIP_MAX];
    if (json_is_null(v))
        snprintf(out, n, "null");
    else if (json_is_object(v))
        snprintf(out, n, "a mapping");
    else if (json_is_array(v))
        snprintf(out, n, "a list");
    else
        snprintf(out, n, "%s\"%s\"", bx_yaml_quoted(doc, ptr) ? "quoted " : "",
                 snip(json_string_value(v), s, sizeof s));
    return out;
}

static void ptr_child(char *out, size_t n, const char *parent, const char *key)
{
    size_t o = (size_t)snprintf(out, n, "%s/", parent);
    for (const char *c = key; *c && o + 3 < n; c++) {
        if (*c == '~' || *c == '/') {
            out[o++] = '~';
            out[o++] = *c == '~' ? '0' : '1';
        } else {
            out[o++] = *c;
        }
    }
    out[o < n ? o : n - 1] = '\0';
}

static void ptr_index(char *out, size_t n, const char *parent, size_t i)
{
    snprintf(out, n, "%s/%zu", parent, i);
}

/* "/trust/keys/0/file" -> "trust.keys[0].file" for messages; "" -> "policy". */
static const char *dotted(const char *ptr, char *out, size_t n)
{
    size_t o = 0;
    if (!*ptr)
        snprintf(out, n, "policy");
    for (const char *c = ptr; *c && o + 8 < n; c++) {
        if (*c == '/') {
            int index = c[1] >= '0' && c[1] <= '9';
            o += (size_t)snprintf(out + o, n - o, "%s", index ? "[" : o ? "." : "");
            if (index) {
                size_t d = strspn(c + 1, "0123456789");
                o += (size_t)snprintf(out + o, n - o, "%.*s]", (int)d, c + 1);
                c += d;
            }
        } else if (*c == '~') {
            out[o++] = c[1] == '1' ? '/' : '~';
            c += c[1] ? 1 : 0;
        } else {
            out[o++] = (unsigned char)*c < 0x20 ? '?' : *c;
        }
    }
    if (*ptr)
        out[o < n ? o : n - 1] = '\0';
    return out;
}

/* ---- typing: YAML strings -> typed JSON by their place in the schema -------- */

typedef struct {
    const bx_yaml_doc *doc;
    bx_error *err;
} tctx;

static int type_node(const tctx *t, const char *ptr, const bxp_key *k, const json_t *v,
                     json_t **out);

static int wrong(const tctx *t, const char *ptr, const json_t *v, const char *want)
{
    char d[SNIP_MAX + 16], dp[160];
    return bx_yaml_error(t->doc, ptr, t->err, BX_ECONFIG, "%s: expected %s, found %s",
                         dotted(ptr, dp, sizeof dp), want, describe(t->doc, ptr, v, d, sizeof d));
}

static int is_plain_string(const tctx *t, const char *ptr, const json_t *v)
{
    return json_is_string(v) && !bx_yaml_quoted(t->doc, ptr);
}

static int type_bool(const tctx *t, const char *ptr, const bxp_key *k, const json_t *v,
                     json_t **out)
{
    const char *s = json_string_value(v);
    (void)k;
    if (!is_plain_string(t, ptr, v) || (strcmp(s, "true") != 0 && strcmp(s, "false") != 0))
        return wrong(t, ptr, v, "true or false");
    *out = json_boolean(strcmp(s, "true") == 0);
    return 0;
}

static int type_int(const tctx *t, const char *ptr, const bxp_key *k, const json_t *v, json_t **out)
{
    const char *s = json_string_value(v);
    size_t n = s ? strspn(s, "0123456789") : 0;
    long long x = 0;
    char dp[160];

    if (!is_plain_string(t, ptr, v) || n == 0 || s[n] || n > 16 || (s[0] == '0' && n > 1))
        return wrong(t, ptr, v, "an integer");
    for (size_t i = 0; i < n; i++)
        x = x * 10 + (s[i] - '0');
    if (x < k->min || x > k->max)
        return bx_yaml_error(t->doc, ptr, t->err, BX_ECONFIG, "%s: must be %s %lld, found %lld",
                             dotted(ptr, dp, sizeof dp), x < k->min ? "at least" : "at most",
                             x < k->min ? k->min : k->max, x);
    *out = json_integer(x);
    return 0;
}

static int type_string(const tctx *t, const char *ptr, const bxp_key *k, const json_t *v,
                       json_t **out)
{
    const char *s = json_string_value(v);
    char why[128], sn[SNIP_MAX], dp[160];

    if (!s || !*s)
        return wrong(t, ptr, v, "a non-empty string");
    for (const char *c = s; k->type != BXP_TEXT && *c; c++)
        if ((unsigned char)*c < 0x20 || *c == 0x7f)
            return wrong(t, ptr, v, "one line of text");
    if (k->choices) {
        const char *const *c = k->choices;
        while (*c && strcmp(*c, s) != 0)
            c++;
        if (!*c) {
            size_t o = 0;
            why[0] = '\0';
            for (c = k->choices; *c && o < sizeof why; c++)
                o += (size_t)snprintf(why + o, sizeof why - o, "%s%s", c == k->choices ? "" : ", ",
                                      *c);
            return bx_yaml_error(t->doc, ptr, t->err, BX_ECONFIG, "%s: \"%s\" is not one of: %s",
                                 dotted(ptr, dp, sizeof dp), snip(s, sn, sizeof sn), why);
        }
    }
    if (k->check && k->check(s, why, sizeof why) != 0)
        return bx_yaml_error(t->doc, ptr, t->err, BX_ECONFIG, "%s: invalid value \"%s\": %s",
                             dotted(ptr, dp, sizeof dp), snip(s, sn, sizeof sn), why);
    *out = json_string(s);
    return 0;
}

/* Sizes, durations, CPU counts and times: checked, kept as written. */
static int type_measure(const tctx *t, const char *ptr, const bxp_key *k, const json_t *v,
                        json_t **out)
{
    const char *s = json_string_value(v);
    bx_error e = {0};
    int64_t x;
    char sn[SNIP_MAX], dp[160];

    if (!s)
        return wrong(t, ptr, v, "a string");
    if (k->type == BXP_SIZE && bxp_size_parse(s, &x) != 0)
        return bx_yaml_error(t->doc, ptr, t->err, BX_ECONFIG,
                             "%s: invalid size \"%s\": want \\d+(Ki|Mi|Gi)?",
                             dotted(ptr, dp, sizeof dp), snip(s, sn, sizeof sn));
    if (k->type == BXP_DURATION && bx_duration_parse(s, &x, &e) != 0)
        return bx_yaml_error(t->doc, ptr, t->err, BX_ECONFIG, "%s: %s", dotted(ptr, dp, sizeof dp),
                             e.msg);
    if (k->type == BXP_DECIMAL && bxp_cpus_parse(s, &x) != 0)
        return bx_yaml_error(t->doc, ptr, t->err, BX_ECONFIG,
                             "%s: invalid CPU count \"%s\": want a decimal above 0 such as "
                             "\"0.5\" or \"2\" (at most 9 decimals)",
                             dotted(ptr, dp, sizeof dp), snip(s, sn, sizeof sn));
    if (k->type == BXP_TIME && bx_time_parse(s, 0, &x, &e) != 0)
        return bx_yaml_error(t->doc, ptr, t->err, BX_ECONFIG, "%s: %s", dotted(ptr, dp, sizeof dp),
                             e.msg);
    *out = json_string(s);
    return 0;
}

static int type_list(const tctx *t, const char *ptr, const bxp_key *k, const json_t *v,
                     json_t **out)
{
    bxp_key item = *k;
    json_t *list = NULL, *x = NULL;
    char p[PTR_MAX];
    int rc = 0;

    if (!json_is_array(v))
        return wrong(t, ptr, v, "a list");
    item.type = k->type == BXP_STRLIST ? BXP_STRING : k->type == BXP_INTLIST ? BXP_INT : BXP_MAP;
    list = json_array();
    for (size_t i = 0; list && i < json_array_size(v); i++) {
        ptr_index(p, sizeof p, ptr, i);
        rc = type_node(t, p, &item, json_array_get(v, i), &x);
        if (rc)
            goto out;
        for (size_t j = 0; k->unique && j < json_array_size(list); j++) {
            if (json_equal(json_array_get(list, j), x)) {
                char dp[160];
                json_decref(x);
                rc = bx_yaml_error(t->doc, p, t->err, BX_ECONFIG, "%s: listed twice (as item %zu)",
                                   dotted(p, dp, sizeof dp), j);
                goto out;
            }
        }
        if (json_array_append_new(list, x) != 0)
            break;
    }
    if (!list || json_array_size(list) != json_array_size(v)) {
        rc = bx_yaml_error(t->doc, ptr, t->err, BX_ECONFIG, "out of memory");
        goto out;
    }
    *out = list;
    list = NULL;
out:
    json_decref(list);
    return rc;
}

static const bxp_key *find_member(const bxp_key *sub, const char *name)
{
    for (; sub && sub->name; sub++)
        if (strcmp(sub->name, name) == 0)
            return sub;
    return NULL;
}

static int type_map(const tctx *t, const char *ptr, const bxp_key *k, const json_t *v, json_t **out)
{
    json_t *map = NULL, *x = NULL;
    const char *name;
    json_t *val;
    char p[PTR_MAX], sn[SNIP_MAX];
    int rc = 0;

    if (!json_is_object(v))
        return wrong(t, ptr, v, "a mapping");
    map = json_object();
    json_object_foreach((json_t *)v, name, val)
    {
        const bxp_key *m = find_member(k->sub, name);
        ptr_child(p, sizeof p, ptr, name);
        if (!m) {
            rc = bx_yaml_key_error(t->doc, p, t->err, BX_ECONFIG, "unknown key '%s'",
                                   snip(name, sn, sizeof sn));
            goto out;
        }
        rc = type_node(t, p, m, val, &x);
        if (rc)
            goto out;
        if (json_object_set_new(map, name, x) != 0) { /* x is freed even then */
            rc = bx_yaml_error(t->doc, ptr, t->err, BX_ECONFIG, "out of memory");
            goto out;
        }
    }
    for (const bxp_key *m = k->sub; m && m->name; m++) {
        char dp[160];
        if (m->required && !json_object_get(map, m->name)) {
            rc = bx_yaml_error(t->doc, ptr, t->err, BX_ECONFIG, "%s: missing key '%s'",
                               dotted(ptr, dp, sizeof dp), m->name);
            goto out;
        }
    }
    *out = map;
    map = NULL;
out:
    json_decref(map);
    return rc;
}

static int type_node(const tctx *t, const char *ptr, const bxp_key *k, const json_t *v,
                     json_t **out)
{
    char dp[160];
    int rc;
    *out = NULL;
    switch (k->type) {
    case BXP_BOOL:
        rc = type_bool(t, ptr, k, v, out);
        break;
    case BXP_INT:
        rc = type_int(t, ptr, k, v, out);
        break;
    case BXP_STRING:
    case BXP_TEXT:
        rc = type_string(t, ptr, k, v, out);
        break;
    case BXP_SIZE:
    case BXP_DURATION:
    case BXP_DECIMAL:
    case BXP_TIME:
        rc = type_measure(t, ptr, k, v, out);
        break;
    case BXP_STRLIST:
    case BXP_INTLIST:
    case BXP_MAPLIST:
        rc = type_list(t, ptr, k, v, out);
        break;
    case BXP_MAP:
        rc = type_map(t, ptr, k, v, out);
        break;
    default:
        rc = bx_yaml_error(t->doc, ptr, t->err, BX_ECONFIG, "%s: no such type",
                           dotted(ptr, dp, sizeof dp));
    }
    if (rc == 0 && !*out)
        rc = bx_yaml_error(t->doc, ptr, t->err, BX_ECONFIG, "out of memory");
    return rc;
}

/* ---- trust keys ---------------------------------------------------------------- */

static int key_from_file(const bx_yaml_doc *doc, const char *ptr, const char *folder,
                         const char *file, EVP_PKEY **key, bx_error *err)
{
    char path[4096], p[PTR_MAX], sn[SNIP_MAX], dp[160];
    char *buf = NULL;
    size_t len = 0;
    bx_error e = {0};
    int rc = 0, n;

    ptr_child(p, sizeof p, ptr, "file");
    n = file[0] == '/' ? snprintf(path, sizeof path, "%s", file)
                       : snprintf(path, sizeof path, "%s/%s", folder, file);
    if (n < 0 || (size_t)n >= sizeof path)
        return bx_yaml_error(doc, p, err, BX_ECONFIG, "%s: path too long",
                             dotted(p, dp, sizeof dp));
    if (bx_read_file(path, KEYFILE_MAX, 0, &buf, &len, &e) != 0 ||
        bx_key_parse_public(buf, len, key, &e) != 0)
        rc = bx_yaml_error(doc, p, err, BX_ECONFIG, "%s: key file \"%s\": %s",
                           dotted(p, dp, sizeof dp), snip(file, sn, sizeof sn), e.msg);
    free(buf);
    return rc;
}

static int key_from_pem(const bx_yaml_doc *doc, const char *ptr, const char *pem, EVP_PKEY **key,
                        bx_error *err)
{
    char p[PTR_MAX], dp[160];
    bx_error e = {0};
    ptr_child(p, sizeof p, ptr, "pem");
    if (bx_key_parse_public(pem, strlen(pem), key, &e) != 0)
        return bx_yaml_error(doc, p, err, BX_ECONFIG, "%s: %s", dotted(p, dp, sizeof dp), e.msg);
    return 0;
}

static const char *member(const json_t *entry, const char *name)
{
    return json_string_value(json_object_get(entry, name));
}

/* keyid, sigEncoding, validity window, revoked and name of a loaded key. */
static int key_details(const bx_yaml_doc *doc, const char *ptr, size_t i, const json_t *entry,
                       bx_trust_key *tk, bx_error *err)
{
    const char *keyid = member(entry, "keyid"), *enc = member(entry, "sigEncoding");
    const char *nb = member(entry, "notBefore"), *na = member(entry, "notAfter");
    char p[PTR_MAX], dp[160];

    bx_error e = {0};

    if (bx_key_id(tk->key, tk->keyid, &e) != 0)
        return bx_yaml_error(doc, ptr, err, BX_ECONFIG, "%s: %s", dotted(ptr, dp, sizeof dp),
                             e.msg);
    ptr_child(p, sizeof p, ptr, "keyid");
    if (keyid && strcmp(keyid, tk->keyid) != 0)
        return bx_yaml_error(doc, p, err, BX_ECONFIG,
                             "%s: does not match the key (its keyid is %s)",
                             dotted(p, dp, sizeof dp), tk->keyid);
    ptr_child(p, sizeof p, ptr, "sigEncoding");
    tk->enc = enc && strcmp(enc, "p1363") == 0 ? BX_SIGENC_P1363 : BX_SIGENC_DER;
    if (tk->enc == BX_SIGENC_P1363 && bx_key_alg(tk->key) != BX_ALG_ECDSA_P256)
        return bx_yaml_error(doc, p, err, BX_ECONFIG, "%s: p1363 applies only to ECDSA keys",
                             dotted(p, dp, sizeof dp));
    tk->has_not_before = nb && bx_time_parse(nb, 0, &tk->not_before, &e) == 0;
    tk->has_not_after = na && bx_time_parse(na, 0, &tk->not_after, &e) == 0;
    ptr_child(p, sizeof p, ptr, "notAfter");
    if (tk->has_not_before && tk->has_not_after && tk->not_after <= tk->not_before)
        return bx_yaml_error(doc, p, err, BX_ECONFIG, "%s: not later than notBefore",
                             dotted(p, dp, sizeof dp));
    tk->revoked = json_is_true(json_object_get(entry, "revoked"));
    if (member(entry, "name"))
        snprintf(tk->name, sizeof tk->name, "%s", member(entry, "name"));
    else if (member(entry, "file"))
        snprintf(tk->name, sizeof tk->name, "%s", member(entry, "file"));
    else
        snprintf(tk->name, sizeof tk->name, "key %zu", i + 1);
    return 0;
}

static int load_key(const bx_yaml_doc *doc, size_t i, const json_t *entry, const char *folder,
                    bx_trust_key *tk, bx_error *err)
{
    const char *file = member(entry, "file"), *pem = member(entry, "pem");
    char ptr[PTR_MAX], dp[160];
    int rc;

    ptr_index(ptr, sizeof ptr, "/trust/keys", i);
    memset(tk, 0, sizeof *tk);
    if (!file == !pem)
        return bx_yaml_error(doc, ptr, err, BX_ECONFIG, "%s: give exactly one of 'file' or 'pem'",
                             dotted(ptr, dp, sizeof dp));
    rc = file ? key_from_file(doc, ptr, folder, file, &tk->key, err)
              : key_from_pem(doc, ptr, pem, &tk->key, err);
    if (rc == 0)
        rc = key_details(doc, ptr, i, entry, tk, err);
    if (rc) {
        EVP_PKEY_free(tk->key);
        tk->key = NULL;
    }
    return rc;
}

typedef struct {
    json_t *typed;      /* owned: typed document, merged with what it extends */
    bx_trust_key *keys; /* owned */
    size_t nkeys;
    int has_keys; /* trust.keys given */
} part;

static void free_keys(bx_trust_key *keys, size_t n)
{
    for (size_t i = 0; i < n; i++)
        EVP_PKEY_free(keys[i].key);
    free(keys);
}

static void part_free(part *pt)
{
    json_decref(pt->typed);
    free_keys(pt->keys, pt->nkeys);
    memset(pt, 0, sizeof *pt);
}

static int check_dup(const bx_yaml_doc *doc, const part *pt, size_t i, bx_error *err)
{
    char ptr[PTR_MAX];
    for (size_t j = 0; j < i; j++) {
        if (EVP_PKEY_eq(pt->keys[j].key, pt->keys[i].key) != 1)
            continue;
        ptr_index(ptr, sizeof ptr, "/trust/keys", i);
        return bx_yaml_error(doc, ptr, err, BX_ECONFIG,
                             "trust.keys[%zu] is the same key as trust.keys[%zu] ('%s')", i, j,
                             pt->keys[j].name);
    }
    return 0;
}

static int load_keys(const bx_yaml_doc *doc, const char *folder, part *pt, bx_error *err)
{
    const json_t *list = bxp_get(pt->typed, "trust.keys");
    size_t n = json_array_size(list);
    int rc = 0;

    if (!list)
        return 0;
    pt->has_keys = 1;
    pt->keys = calloc(n ? n : 1, sizeof *pt->keys);
    if (!pt->keys)
        return bx_yaml_error(doc, "/trust/keys", err, BX_ECONFIG, "out of memory");
    for (size_t i = 0; i < n && rc == 0; i++) {
        rc = load_key(doc, i, json_array_get(list, i), folder, &pt->keys[i], err);
        if (rc == 0)
            pt->nkeys++;
        if (rc == 0)
            rc = check_dup(doc, pt, i, err);
    }
    return rc;
}

/* ---- documents, extends, merge ---------------------------------------------------- */

/* base with over laid on it: maps merge key by key, anything else replaces. */
static json_t *merge(const json_t *base, const json_t *over)
{
    json_t *out = json_deep_copy(base), *v;
    const char *k;
    if (!out)
        return NULL;
    json_object_foreach((json_t *)over, k, v)
    {
        json_t *b = json_object_get(out, k);
        json_t *m = json_is_object(b) && json_is_object(v) ? merge(b, v) : json_deep_copy(v);
        if (!m || json_object_set_new(out, k, m) != 0) {
            json_decref(out);
            return NULL;
        }
    }
    return out;
}

static int check_version(const bx_yaml_doc *doc, const json_t *typed, bx_error *err)
{
    const json_t *v = json_object_get(typed, "version");
    if (!v)
        return bx_yaml_error(doc, "", err, BX_ECONFIG, "missing key 'version' (want version: 1)");
    if (json_integer_value(v) != 1)
        return bx_yaml_error(doc, "/version", err, BX_ECONFIG,
                             "version: unsupported policy version %lld (want 1)",
                             (long long)json_integer_value(v));
    return 0;
}

static int check_threshold(const bx_yaml_doc *doc, const part *pt, bx_error *err)
{
    const json_t *t = bxp_get(pt->typed, "trust.threshold");
    long long thr = t ? (long long)json_integer_value(t) : 1;
    if (pt->has_keys && thr > (long long)pt->nkeys)
        return bx_yaml_error(doc, "/trust/threshold", err, BX_ECONFIG,
                             "trust.threshold: %lld is more than the %zu trusted keys", thr,
                             pt->nkeys);
    return 0;
}

static int load_part(const char *buf, size_t len, const char *name, const char *folder, int level,
                     part *out, bx_error *err);

/* Lay pt over the profile it extends (if any). */
static int extend(const bx_yaml_doc *doc, int level, part *pt, bx_error *err)
{
    const char *name = json_string_value(json_object_get(pt->typed, "extends"));
    const char *text = bx_policy_profile_text(name);
    char src[64];
    part base = {0};
    json_t *merged = NULL;
    int rc = 0;

    if (!name)
        return 0;
    if (level >= EXTENDS_MAX || !text)
        return bx_yaml_error(doc, "/extends", err, BX_ECONFIG, "extends: %s",
                             text ? "nested too deeply" : "no such profile");
    snprintf(src, sizeof src, "profile:%s", name);
    rc = load_part(text, strlen(text), src, ".", level + 1, &base, err);
    if (rc)
        goto out;
    merged = merge(base.typed, pt->typed);
    if (!merged) {
        rc = bx_yaml_error(doc, "", err, BX_ECONFIG, "out of memory");
        goto out;
    }
    json_decref(pt->typed);
    pt->typed = merged;
    if (!pt->has_keys) {
        pt->keys = base.keys;
        pt->nkeys = base.nkeys;
        pt->has_keys = base.has_keys;
        base.keys = NULL;
        base.nkeys = 0;
    }
out:
    part_free(&base);
    return rc;
}

static int load_part(const char *buf, size_t len, const char *name, const char *folder, int level,
                     part *out, bx_error *err)
{
    bx_yaml_doc doc = {0};
    part pt = {0};
    int rc = bx_yaml_load(buf, len, name, BX_POLICY_MAX_DEPTH, BX_POLICY_MAX_EVENTS, &doc, err);
    tctx t = {&doc, err};

    if (rc)
        goto out;
    rc = type_node(&t, "", &bxp_schema, doc.root, &pt.typed);
    if (rc == 0)
        rc = check_version(&doc, pt.typed, err);
    if (rc == 0)
        rc = load_keys(&doc, folder, &pt, err);
    if (rc == 0)
        rc = extend(&doc, level, &pt, err);
    if (rc == 0)
        rc = check_threshold(&doc, &pt, err);
    if (rc == 0) {
        *out = pt;
        memset(&pt, 0, sizeof pt);
    }
out:
    part_free(&pt);
    bx_yaml_free(&doc);
    return rc;
}

/* ---- the effective policy -------------------------------------------------------- */

static int set_default(json_t *eff, const char *section, const char *key, json_t *v)
{
    json_t *sec = json_object_get(eff, section);
    int rc = 0;
    if (!sec) {
        sec = json_object();
        if (!sec || json_object_set_new(eff, section, sec) != 0)
            rc = -1;
    }
    if (rc == 0 && !json_object_get(sec, key))
        return json_object_set_new(sec, key, v) != 0 ? -1 : 0;
    json_decref(v);
    return rc;
}

static int fill_defaults(json_t *eff)
{
    int rc = 0;
    rc |= set_default(eff, "trust", "threshold", json_integer(1));
    rc |= set_default(eff, "certificate", "clockSkew", json_string("5m"));
    rc |= set_default(eff, "evidence", "accept",
                      json_pack("[sss]", "engine", "engine+kernel", "engine+runtime"));
    rc |= set_default(eff, "evidence", "discrepancies", json_string("deny"));
    rc |= set_default(eff, "requested", "mustMatch", json_false());
    return rc;
}

static int finish(bx_policy *p, part *pt, bx_error *err)
{
    const char *max_age = json_string_value(bxp_get(pt->typed, "certificate.maxAge"));
    const char *skew;

    p->effective = pt->typed;
    pt->typed = NULL;
    p->keys = pt->keys;
    p->nkeys = pt->nkeys;
    pt->keys = NULL;
    pt->nkeys = 0;
    if (fill_defaults(p->effective) != 0)
        return bx_error_set(err, BX_ECONFIG, p->source, "out of memory");
    skew = json_string_value(bxp_get(p->effective, "certificate.clockSkew"));
    p->threshold = (int)json_integer_value(bxp_get(p->effective, "trust.threshold"));
    p->max_age = -1;
    /* both were checked while typing */
    if ((max_age && bx_duration_parse(max_age, &p->max_age, err) != 0) || !skew ||
        bx_duration_parse(skew, &p->clock_skew, err) != 0)
        return bx_error_set(err, BX_ECONFIG, p->source, "bad certificate durations");
    return 0;
}

static void folder_of(const char *name, char *out, size_t n)
{
    const char *slash = strrchr(name, '/');
    if (!slash)
        snprintf(out, n, ".");
    else if (slash == name)
        snprintf(out, n, "/");
    else
        snprintf(out, n, "%.*s", (int)(slash - name), name);
}

int bx_policy_load_buffer(const char *buf, size_t len, const char *name, bx_policy **out,
                          bx_error *err)
{
    bx_policy *p = NULL;
    part pt = {0};
    char folder[4096];
    int rc = 0;

    *out = NULL;
    if (!name)
        name = "<policy>";
    if (len > BX_POLICY_MAX_SIZE) {
        rc = bx_error_set(err, BX_ECONFIG, name, "too large (over %d bytes)", BX_POLICY_MAX_SIZE);
        goto out;
    }
    folder_of(name, folder, sizeof folder);
    rc = load_part(buf, len, name, folder, 0, &pt, err);
    if (rc)
        goto out;
    p = calloc(1, sizeof *p);
    if (!p) {
        rc = bx_error_set(err, BX_ECONFIG, name, "out of memory");
        goto out;
    }
    snprintf(p->source, sizeof p->source, "%s", name);
    rc = finish(p, &pt, err);
    if (rc)
        goto out;
    *out = p;
    p = NULL;
out:
    part_free(&pt);
    bx_policy_free(p);
    return rc;
}

/* A file that cannot be used is a configuration error, whatever the reason. */
static int as_config(bx_error *err)
{
    if (err)
        err->code = BX_ECONFIG;
    return BX_ECONFIG;
}

int bx_policy_load(const char *arg, bx_policy **out, bx_error *err)
{
    struct stat st;
    char *buf = NULL, src[64];
    size_t len = 0;
    const char *text;
    int rc;

    *out = NULL;
    if (stat(arg, &st) != 0 && (errno == ENOENT || errno == ENOTDIR)) {
        text = bx_policy_profile_text(arg);
        if (!text)
            return bx_error_set(err, BX_ECONFIG, arg, "no such file or profile");
        snprintf(src, sizeof src, "profile:%s", arg);
        return bx_policy_load_buffer(text, strlen(text), src, out, err);
    }
    rc = bx_read_file(arg, BX_POLICY_MAX_SIZE, 0, &buf, &len, err);
    if (rc) {
        rc = as_config(err);
        goto out;
    }
    rc = bx_policy_load_buffer(buf, len, arg, out, err);
out:
    free(buf);
    return rc;
}

int bx_policy_add_key_file(bx_policy *p, const char *path, bx_error *err)
{
    EVP_PKEY *key = NULL;
    bx_trust_key *keys, *tk;
    int rc = bx_key_load_public(path, &key, err);

    if (rc) {
        rc = as_config(err);
        goto out;
    }
    for (size_t i = 0; i < p->nkeys; i++)
        if (EVP_PKEY_eq(p->keys[i].key, key) == 1)
            goto out;
    keys = realloc(p->keys, (p->nkeys + 1) * sizeof *keys);
    if (!keys) {
        rc = bx_error_set(err, BX_ECONFIG, path, "out of memory");
        goto out;
    }
    p->keys = keys;
    tk = &keys[p->nkeys];
    memset(tk, 0, sizeof *tk);
    rc = bx_key_id(key, tk->keyid, err);
    if (rc)
        goto out;
    snprintf(tk->name, sizeof tk->name, "%s", path);
    tk->enc = BX_SIGENC_DER;
    tk->key = key;
    key = NULL;
    p->nkeys++;
out:
    EVP_PKEY_free(key);
    return rc;
}

void bx_policy_free(bx_policy *p)
{
    if (!p)
        return;
    json_decref(p->effective);
    free_keys(p->keys, p->nkeys);
    free(p);
}
