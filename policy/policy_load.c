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
    return bx_json_dotted(effective, path);
}



static void ptr_index(char *out, size_t n, const char *parent, size_t i)
{
    snprintf(out, n, "%s/%zu", parent, i);
}

static const char *dotted(const char *ptr, char *out, size_t n)
{
    return bx_pointer_dotted(ptr, "policy", out, n);
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

    bx_pointer_child(p, sizeof p, ptr, "file");
    n = file[0] == '/' ? snprintf(path, sizeof path, "%s", file)
                       : snprintf(path, sizeof path, "%s/%s", folder, file);
    if (n < 0 || (size_t)n >= sizeof path)
        return bx_yaml_error(doc, p, err, BX_ECONFIG, "%s: path too long",
                             dotted(p, dp, sizeof dp));
    if (bx_read_file(path, KEYFILE_MAX, 0, &buf, &len, &e) != 0 ||
        bx_key_parse_public(buf, len, key, &e) != 0)
        rc = bx_yaml_error(doc, p, err, BX_ECONFIG, "%s: key file \"%s\": %s",
                           dotted(p, dp, sizeof dp), bx_text_snip(file, sn, sizeof sn), e.msg);
    free(buf);
    return rc;
}

static int key_from_pem(const bx_yaml_doc *doc, const char *ptr, const char *pem, EVP_PKEY **key,
                        bx_error *err)
{
    char p[PTR_MAX], dp[160];
    bx_error e = {0};
    bx_pointer_child(p, sizeof p, ptr, "pem");
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
    bx_pointer_child(p, sizeof p, ptr, "keyid");
    if (keyid && strcmp(keyid, tk->keyid) != 0) {
        char sn[SNIP_MAX];
        /* the policy pins this keyid: another key under the same name is refused */
        if (member(entry, "file"))
            return bx_yaml_error(doc, p, err, BX_ECONFIG,
                                 "%s: key file \"%s\" holds another key than the policy pins "
                                 "(its keyid is %s)",
                                 dotted(p, dp, sizeof dp),
                                 bx_text_snip(member(entry, "file"), sn, sizeof sn), tk->keyid);
        return bx_yaml_error(doc, p, err, BX_ECONFIG,
                             "%s: does not match the key (its keyid is %s)",
                             dotted(p, dp, sizeof dp), tk->keyid);
    }
    bx_pointer_child(p, sizeof p, ptr, "sigEncoding");
    tk->enc = enc && strcmp(enc, "p1363") == 0 ? BX_SIGENC_P1363 : BX_SIGENC_DER;
    if (tk->enc == BX_SIGENC_P1363 && bx_key_alg(tk->key) != BX_ALG_ECDSA_P256)
        return bx_yaml_error(doc, p, err, BX_ECONFIG, "%s: p1363 applies only to ECDSA keys",
                             dotted(p, dp, sizeof dp));
    tk->has_not_before = nb && bx_time_parse(nb, 0, &tk->not_before, &e) == 0;
    tk->has_not_after = na && bx_time_parse(na, 0, &tk->not_after, &e) == 0;
    bx_pointer_child(p, sizeof p, ptr, "notAfter");
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
    int has_keys;       /* trust.keys given */
    char profile[64];   /* the profile it extends, resolved ("strict@2"), or "" */
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
        return bx_yaml_error(doc, "/trust/keys", err, BX_ENOMEM, "out of memory");
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
                     unsigned in_version, part *out, bx_error *err);

/* The version N of a resolved profile name NAME@N. */
static unsigned profile_version(const char *resolved)
{
    const char *at = strchr(resolved, '@');
    return at ? (unsigned)strtoul(at + 1, NULL, 10) : 0;
}

/* Lay pt over the profile it extends (if any). Inside profile NAME@N (in_version N) a bare
 * name means that profile's version N, elsewhere the latest; the resolved name replaces what
 * was written, so the effective policy says which version it extends. */
static int extend(const bx_yaml_doc *doc, int level, unsigned in_version, part *pt, bx_error *err)
{
    const char *name = json_string_value(json_object_get(pt->typed, "extends"));
    char want[80], resolved[64], src[80];
    const char *text;
    part base = {0};
    json_t *merged = NULL;
    int rc = 0;

    if (!name)
        return 0;
    if (in_version && !strchr(name, '@'))
        snprintf(want, sizeof want, "%s@%u", name, in_version);
    else
        snprintf(want, sizeof want, "%s", name);
    text = bx_policy_profile_resolve(want, resolved, sizeof resolved) == 0
               ? bxp_profile_file(resolved)
               : NULL;
    if (level >= EXTENDS_MAX || !text)
        return bx_yaml_error(doc, "/extends", err, BX_ECONFIG, "extends: %s",
                             text ? "nested too deeply" : "no such profile");
    snprintf(src, sizeof src, "profile:%s", resolved);
    rc = load_part(text, strlen(text), src, ".", level + 1, profile_version(resolved), &base, err);
    if (rc)
        goto out;
    merged = merge(base.typed, pt->typed);
    if (!merged || json_object_set_new(merged, "extends", json_string(resolved)) != 0) {
        rc = bx_yaml_error(doc, "", err, BX_ENOMEM, "out of memory");
        goto out;
    }
    json_decref(pt->typed);
    pt->typed = merged;
    merged = NULL;
    snprintf(pt->profile, sizeof pt->profile, "%s", resolved);
    if (!pt->has_keys) {
        pt->keys = base.keys;
        pt->nkeys = base.nkeys;
        pt->has_keys = base.has_keys;
        base.keys = NULL;
        base.nkeys = 0;
    }
out:
    json_decref(merged);
    part_free(&base);
    return rc;
}

static int load_part(const char *buf, size_t len, const char *name, const char *folder, int level,
                     unsigned in_version, part *out, bx_error *err)
{
    bx_yaml_doc doc = {0};
    part pt = {0};
    int rc = bx_yaml_load(buf, len, name, BX_POLICY_MAX_DEPTH, BX_POLICY_MAX_EVENTS, &doc, err);

    if (rc)
        goto out;
    rc = bx_shape_type_yaml(&bxp_schema, &doc, "policy", "", doc.root, 0, &pt.typed, err);
    if (rc == 0)
        rc = check_version(&doc, pt.typed, err);
    if (rc == 0)
        rc = load_keys(&doc, folder, &pt, err);
    if (rc == 0)
        rc = extend(&doc, level, in_version, &pt, err);
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

/* Every trust.keys entry of the effective policy with its key's keyid: the effective policy
 * names the keys it trusts, and loaded again it refuses another key under the same file. The
 * entries are the loaded keys, in order (a list replaces the one it extends whole). */
static int pin_keyids(bx_policy *p)
{
    json_t *list = json_object_get(json_object_get(p->effective, "trust"), "keys");

    if (json_array_size(list) != p->nkeys)
        return list || p->nkeys ? -1 : 0;
    for (size_t i = 0; i < p->nkeys; i++)
        if (json_object_set_new(json_array_get(list, i), "keyid", json_string(p->keys[i].keyid)))
            return -1;
    return 0;
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
    if (fill_defaults(p->effective) != 0 || pin_keyids(p) != 0)
        return bx_error_set(err, BX_ENOMEM, p->source, "out of memory");
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

static int load_buffer(const char *buf, size_t len, const char *name, const char *profile,
                       bx_policy **out, bx_error *err)
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
    rc = load_part(buf, len, name, folder, 0, profile ? profile_version(profile) : 0, &pt, err);
    if (rc)
        goto out;
    p = calloc(1, sizeof *p);
    if (!p) {
        rc = bx_error_set(err, BX_ENOMEM, name, "out of memory");
        goto out;
    }
    snprintf(p->source, sizeof p->source, "%s", name);
    snprintf(p->profile, sizeof p->profile, "%s", profile ? profile : pt.profile);
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

int bx_policy_load_buffer(const char *buf, size_t len, const char *name, bx_policy **out,
                          bx_error *err)
{
    return load_buffer(buf, len, name, NULL, out, err);
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
    char *buf = NULL, src[80], resolved[64];
    size_t len = 0;
    int rc;

    *out = NULL;
    if (bx_policy_profile_named(arg)) {
        /* a profile name is never a file: a file of that name beside the gate (a pull
         * request could add one) is refused, not read */
        if (bx_policy_profile_resolve(arg, resolved, sizeof resolved) != 0)
            return bx_error_set(err, BX_ECONFIG, arg,
                                "no such built-in profile version (versions 1 to %d)",
                                BX_POLICY_PROFILE_LATEST);
        if (lstat(arg, &st) == 0)
            return bx_error_set(err, BX_ECONFIG, arg,
                                "names a built-in profile, and a file of that name is in the "
                                "working directory: write ./%s to use the file",
                                arg);
        snprintf(src, sizeof src, "profile:%s", resolved);
        const char *text = bxp_profile_file(resolved);
        return load_buffer(text, strlen(text), src, resolved, out, err);
    }
    if (stat(arg, &st) != 0 && (errno == ENOENT || errno == ENOTDIR))
        return bx_error_set(err, BX_ECONFIG, arg, "no such file or profile");
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

json_t *bx_policy_identity(const bx_policy *p, bx_error *err)
{
    char sha[65];
    const char *ext = json_string_value(json_object_get(p->effective, "extends"));
    int is_profile = strncmp(p->source, "profile:", 8) == 0;
    json_t *id, *keyids = json_array();

    if (!keyids || bx_jcs_sha256_hex(p->effective, sha, err) != 0) {
        json_decref(keyids);
        return keyids ? NULL : (bx_error_set(err, BX_ENOMEM, NULL, "out of memory"), NULL);
    }
    for (size_t i = 0; i < p->nkeys; i++)
        if (json_array_append_new(keyids, json_string(p->keys[i].keyid)) != 0) {
            json_decref(keyids);
            bx_error_set(err, BX_ENOMEM, NULL, "out of memory");
            return NULL;
        }
    id = json_pack("{s:s,s:s?,s:s,s:o}", "name", is_profile ? p->source + 8 : p->source, "extends",
                   ext, "sha256", sha, "keyids", keyids);
    if (!id)
        bx_error_set(err, BX_ENOMEM, NULL, "out of memory");
    return id;
}

static int effective_add_key(bx_policy *p, const char *path, const char *keyid, bx_error *err)
{
    json_t *trust = json_object_get(p->effective, "trust"), *list, *file = json_string(path);

    if (!file) /* (jansson takes only UTF-8) */
        return bx_error_set(err, BX_ECONFIG, path,
                            "a key file whose name is not UTF-8: the effective policy cannot name "
                            "it (rename the file)");
    if (!trust && json_object_set_new(p->effective, "trust", trust = json_object()) != 0)
        trust = NULL;
    list = trust ? json_object_get(trust, "keys") : NULL;
    if (trust && !list && json_object_set_new(trust, "keys", list = json_array()) != 0)
        list = NULL;
    if (!list) {
        json_decref(file);
        return bx_error_set(err, BX_ENOMEM, path, "out of memory");
    }
    if (json_array_append_new(list, json_pack("{s:o,s:s}", "file", file, "keyid", keyid)) != 0)
        return bx_error_set(err, BX_ENOMEM, path, "out of memory");
    return 0;
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
        rc = bx_error_set(err, BX_ENOMEM, path, "out of memory");
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
    /* the effective policy (and so the identity's sha256) names it too, by its file and
     * keyid: written out and loaded again, the file must still hold this key */
    if ((rc = effective_add_key(p, path, tk->keyid, err)) != 0)
        goto out;
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
    if (!p->keys_shared)
        free_keys(p->keys, p->nkeys);
    free(p);
}

int bx_policy_clone(const bx_policy *p, bx_policy **out, bx_error *err)
{
    bx_policy *c = calloc(1, sizeof *c);

    *out = NULL;
    if (!c || !(*c = *p, c->effective = json_deep_copy(p->effective))) {
        free(c);
        return bx_error_set(err, BX_ENOMEM, NULL, "out of memory");
    }
    c->keys_shared = 1;
    *out = c;
    return 0;
}

const json_t *bx_policy_effective(const bx_policy *p)
{
    return p->effective;
}

const char *bx_policy_source(const bx_policy *p)
{
    return p->source;
}

size_t bx_policy_nkeys(const bx_policy *p)
{
    return p->nkeys;
}

const bx_trust_key *bx_policy_key(const bx_policy *p, size_t i)
{
    return i < p->nkeys ? &p->keys[i] : NULL;
}

int bx_policy_threshold(const bx_policy *p)
{
    return p->threshold;
}

void bx_policy_set_threshold(bx_policy *p, int threshold)
{
    p->threshold = threshold;
}

int64_t bx_policy_clock_skew(const bx_policy *p)
{
    return p->clock_skew;
}

int64_t bx_policy_max_age(const bx_policy *p)
{
    return p->max_age;
}
