/* SPDX-License-Identifier: Apache-2.0 */
/* The policy names its keys: the effective policy lists every trusted key with its keyid
 * (those of the policy, by file and inline, and those added with --key), the identity carries
 * the keyids, and the effective policy loaded again pins them: a key file that holds another
 * key is refused, naming the file. */
#include "bx_policy.h"
#include "tap.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char dir[] = "/tmp/bx-policy-keys-XXXXXX";

static const char *at(const char *name)
{
    static char buf[4][512];
    static int n;
    char *b = buf[n++ % 4];
    snprintf(b, 512, "%s/%s", dir, name);
    return b;
}

static void write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    if (f) {
        fputs(text, f);
        fclose(f);
    }
}

/* A new key: its PEM (caller frees) and keyid. */
static char *new_key(bx_alg alg, char id[65])
{
    bx_error err = {0};
    EVP_PKEY *k = NULL;
    char *pem = NULL;
    if (bx_key_generate(alg, &k, &err) != 0 || bx_key_public_pem(k, &pem, &err) != 0 ||
        bx_key_id(k, id, &err) != 0)
        id[0] = '\0';
    EVP_PKEY_free(k);
    return pem;
}

/* ok_err as an expression: rc is 0. */
static int fine(int rc, const bx_error *e, const char *name)
{
    if (!ok(rc == 0, "%s", name))
        printf("#   rc=%d %s: %s\n", rc, e->where, e->msg);
    return rc == 0;
}

static const char *keyid_at(const bx_policy *p, size_t i)
{
    const json_t *list = json_object_get(json_object_get(bx_policy_effective(p), "trust"), "keys");
    return json_string_value(json_object_get(json_array_get(list, i), "keyid"));
}

static const char *file_at(const bx_policy *p, size_t i)
{
    const json_t *list = json_object_get(json_object_get(bx_policy_effective(p), "trust"), "keys");
    return json_string_value(json_object_get(json_array_get(list, i), "file"));
}

/* The effective policy of p written to NAME in dir, loaded again into *out. */
static int reload(const bx_policy *p, const char *name, bx_policy **out, bx_error *err)
{
    char *s = json_dumps(bx_policy_effective(p), JSON_INDENT(2) | JSON_SORT_KEYS);
    int rc;
    write_text(at(name), s ? s : "");
    free(s);
    rc = bx_policy_load(at(name), out, err);
    return rc;
}

static void sha_of(const bx_policy *p, char out[65])
{
    bx_error err = {0};
    json_t *id = bx_policy_identity(p, &err);
    snprintf(out, 65, "%s", id ? json_string_value(json_object_get(id, "sha256")) : "");
    json_decref(id);
}

int main(void)
{
    bx_error err = {0};
    bx_policy *p = NULL, *back = NULL;
    char ed_id[65], ec_id[65], k3_id[65], other_id[65], sha0[65], sha1[65], text[4096];
    char *ed = NULL, *ec = NULL, *k3 = NULL, *other = NULL;
    json_t *id = NULL;

    if (!mkdtemp(dir))
        skip_all("no temporary folder");
    ed = new_key(BX_ALG_ED25519, ed_id);
    ec = new_key(BX_ALG_ECDSA_P256, ec_id);
    k3 = new_key(BX_ALG_ED25519, k3_id);
    other = new_key(BX_ALG_ED25519, other_id);
    if (!ok(ed && ec && k3 && other && ed_id[0] && ec_id[0], "keys made"))
        return tap_done();
    write_text(at("ed.pub"), ed);
    write_text(at("k3.pub"), k3);
    /* a file key and an inline key, neither with a keyid written */
    {
        char *ind = malloc(strlen(ec) * 2), *o = ind;
        for (const char *c = ec; *c; c++) {
            if (c == ec || c[-1] == '\n')
                o += sprintf(o, "        ");
            *o++ = *c;
        }
        *o = '\0';
        snprintf(text, sizeof text,
                 "version: 1\nextends: strict@1\ntrust:\n  keys:\n    - file: ed.pub\n"
                 "    - pem: |\n%s",
                 ind);
        free(ind);
    }
    write_text(at("policy.yaml"), text);
    if (!fine(bx_policy_load(at("policy.yaml"), &p, &err), &err, "the policy loads"))
        return tap_done();
    is_str(keyid_at(p, 0), ed_id, "the file key's keyid is in the effective policy");
    is_str(keyid_at(p, 1), ec_id, "the inline key's keyid is in the effective policy");
    id = bx_policy_identity(p, &err);
    ok(id && json_array_size(json_object_get(id, "keyids")) == 2 &&
           strcmp(json_string_value(json_array_get(json_object_get(id, "keyids"), 0)), ed_id) ==
               0 &&
           strcmp(json_string_value(json_array_get(json_object_get(id, "keyids"), 1)), ec_id) == 0,
       "the identity lists both keyids, in order");
    json_decref(id);
    sha_of(p, sha0);

    /* --key: added to the effective policy by file and keyid; a repeat changes nothing */
    fine(bx_policy_add_key_file(p, at("k3.pub"), &err), &err, "--key k3.pub");
    is_str(file_at(p, 2), at("k3.pub"), "--key: its file in the effective policy");
    is_str(keyid_at(p, 2), k3_id, "--key: its keyid in the effective policy");
    sha_of(p, sha1);
    ok(strcmp(sha0, sha1) != 0, "--key changes the policy's sha256");
    fine(bx_policy_add_key_file(p, at("ed.pub"), &err), &err, "--key of a key the policy has");
    is_int(
        json_array_size(json_object_get(json_object_get(bx_policy_effective(p), "trust"), "keys")),
        3, "a repeated key is not listed twice");
    sha_of(p, sha0);
    is_str(sha0, sha1, "nor does it change the sha256");
    id = bx_policy_identity(p, &err);
    ok(id && json_array_size(json_object_get(id, "keyids")) == 3 &&
           strcmp(json_string_value(json_array_get(json_object_get(id, "keyids"), 2)), k3_id) == 0,
       "the identity lists the --key keyid");
    json_decref(id);

    /* loaded again: the same effective policy and identity */
    if (fine(reload(p, "effective.json", &back, &err), &err, "the effective policy loads")) {
        char *a = json_dumps(bx_policy_effective(p), JSON_SORT_KEYS);
        char *b = json_dumps(bx_policy_effective(back), JSON_SORT_KEYS);
        ok(a && b && strcmp(a, b) == 0, "loaded again: the same effective policy");
        is_int((int)bx_policy_nkeys(back), 3, "loaded again: three keys");
        free(a);
        free(b);
    }
    bx_policy_free(back);
    back = NULL;

    /* another key under the same file names: refused, naming the file */
    write_text(at("ed.pub"), other);
    is_int(reload(p, "effective.json", &back, &err), BX_ECONFIG,
           "ed.pub now holds another key: refused");
    ok(strstr(err.msg, "key file \"ed.pub\"") && strstr(err.msg, other_id) &&
           strstr(err.where, "effective.json"),
       "the error names the file and the keyid it holds (%s: %s)", err.where, err.msg);
    bx_policy_free(back);
    back = NULL;
    write_text(at("ed.pub"), ed);
    write_text(at("k3.pub"), other);
    is_int(reload(p, "effective.json", &back, &err), BX_ECONFIG,
           "the --key file now holds another key: refused");
    ok(strstr(err.msg, "k3.pub") && strstr(err.msg, "another key"), "named (%s)", err.msg);
    bx_policy_free(back);
    back = NULL;
    write_text(at("k3.pub"), ec);
    is_int(reload(p, "effective.json", &back, &err), BX_ECONFIG,
           "the --key file now holds the P-256 key of the policy: refused");
    bx_policy_free(back);
    back = NULL;
    write_text(at("k3.pub"), k3);
    fine(reload(p, "effective.json", &back, &err), &err, "the keys back: loads again");
    bx_policy_free(back);
    back = NULL;
    bx_policy_free(p);
    p = NULL;

    /* a profile and --key alone: trust.keys made */
    if (fine(bx_policy_load("strict@1", &p, &err), &err, "strict@1")) {
        id = bx_policy_identity(p, &err);
        ok(id && json_is_array(json_object_get(id, "keyids")) &&
               json_array_size(json_object_get(id, "keyids")) == 0,
           "no keys: an empty keyids list");
        json_decref(id);
        fine(bx_policy_add_key_file(p, at("k3.pub"), &err), &err, "strict@1 --key k3.pub");
        is_str(keyid_at(p, 0), k3_id, "trust.keys made with the --key keyid");
        write_text(at("k\xff.pub"), other);
        is_int(
            bx_policy_add_key_file(p, at("k\xff.pub"), &err), BX_ECONFIG,
            "a --key file whose name is not UTF-8: refused, the effective policy cannot name it");
        unlink(at("k\xff.pub"));
        ok(bx_policy_add_key_file(p, at("missing.pub"), &err) != 0 &&
               json_array_size(
                   json_object_get(json_object_get(bx_policy_effective(p), "trust"), "keys")) == 1,
           "a --key that fails adds nothing to the effective policy");
    }
    bx_policy_free(p);
    p = NULL;

    /* a keyid written in the policy is checked as before, for a file and for a pem */
    snprintf(text, sizeof text,
             "version: 1\ntrust:\n  keys:\n    - file: ed.pub\n      keyid: %s\n", other_id);
    write_text(at("pinned.yaml"), text);
    is_int(bx_policy_load(at("pinned.yaml"), &p, &err), BX_ECONFIG,
           "a written keyid of another key");
    ok(strstr(err.msg, "key file \"ed.pub\" holds another key"), "names the file (%s)", err.msg);
    bx_policy_free(p);
    p = NULL;
    snprintf(text, sizeof text,
             "version: 1\ntrust:\n  keys:\n    - file: ed.pub\n      keyid: %s\n", ed_id);
    write_text(at("pinned.yaml"), text);
    fine(bx_policy_load(at("pinned.yaml"), &p, &err), &err, "a written keyid of the key");
    bx_policy_free(p);

    free(ed);
    free(ec);
    free(k3);
    free(other);
    {
        const char *names[] = {"ed.pub", "k3.pub", "policy.yaml", "effective.json", "pinned.yaml"};
        for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
            unlink(at(names[i]));
        rmdir(dir);
    }
    return tap_done();
}
