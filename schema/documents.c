/* SPDX-License-Identifier: Apache-2.0 */
/* The JSON Schemas made from the shapes (bx_schema_document): the predicate of each version,
 * the statement around any of them, and a --requested file. tools/schemagen.c writes them at
 * build time; the copies under schema/schemas/ are checked against them by the tests. */
#include "schema_internal.h"

#include <string.h>

#define DRAFT "https://json-schema.org/draft/2020-12/schema"

const char *const bx_schema_generated_names[] = {"predicate-v1", "predicate-v2", "predicate-v3", "statement",
                                                 "requested", NULL};

/* The rules across fields JSON Schema can say (predicate.c checks them too). */
static json_t *cross_rules(void)
{
    return json_pack(
        "[{s:s,s:{s:{s:{s:{s:{s:s}}}}},s:{s:{s:{s:{s:{s:s},s:{s:s}}},s:{s:{s:{s:{s:{s:s}}}}}}}},"
        "{s:s,s:{s:{s:{s:{s:{s:[ss]}}}}},s:{s:{s:{s:{s:{s:s}}}}}}]",
        "description", "Level engine has no kernel readings and no OCI spec.", "if", "properties",
        "evidence", "properties", "level", "const", "engine", "then", "properties", "evidence",
        "properties", "kernelSha256", "type", "null", "ociSpecSha256", "type", "null",
        "containment", "properties", "seccomp", "properties", "profileSha256", "type", "null",
        "description", "Only level engine+runtime has sandbox readings.", "if", "properties",
        "evidence", "properties", "level", "enum", "engine", "engine+kernel", "then", "properties",
        "evidence", "properties", "sandbox", "type", "null");
}

static int set(json_t *o, const char *k, json_t *v)
{
    return !v || json_object_set_new(o, k, v) != 0;
}

/* Lay the members of body (an emitted object) into doc after its header. */
static int append_body(json_t *doc, json_t *body)
{
    const char *k;
    json_t *v;
    int err = !body;
    json_object_foreach(body, k, v) err |= json_object_set(doc, k, v) != 0;
    json_decref(body);
    return err;
}

static json_t *predicate_doc(unsigned v, json_t *defs_out)
{
    char id[64], title[128], type[40], desc[640];
    json_t *doc = json_object(), *defs = defs_out ? defs_out : json_object();
    int err = !doc || !defs;

    snprintf(id, sizeof id, "urn:boxcert:schema:predicate:v%u", v);
    snprintf(title, sizeof title, "boxcert containment predicate v%u (%s)", v,
             bx_predicate_type(v, type));
    snprintf(desc, sizeof desc,
             "The containment predicate v%u (certificate.md section 4), closed: every member "
             "present (null where a value could not be observed), no other member. What JSON "
             "Schema cannot say and boxcert checks as well: unordered lists are sorted (orders "
             "in the descriptions), expiresAt is after issuedAt, times are real calendar dates. "
             "Values are integers only (|n| <= 2^53), in the RFC 8785 (JCS) bytes of the "
             "statement.",
             v);
    err = err || set(doc, "$schema", json_string(DRAFT)) || set(doc, "$id", json_string(id)) ||
          set(doc, "title", json_string(title)) || set(doc, "description", json_string(desc)) ||
          append_body(doc, bx_shape_json_schema(bx_predicate_shape(), v, 1, defs)) ||
          set(doc, "allOf", cross_rules());
    if (!defs_out)
        err = err || json_object_set(doc, "$defs", defs) != 0;
    if (!defs_out)
        json_decref(defs);
    if (err) {
        json_decref(doc);
        return NULL;
    }
    return doc;
}

/* The statement around a predicate of any version this release knows: the predicateType
 * picks the predicate's schema ($defs/predicate-vN, the body of predicate-vN's). */
static json_t *statement_doc(void)
{
    json_t *doc = json_object(), *defs = json_object(), *types = json_array();
    json_t *by_version = json_array();
    char type[40];
    int err = !doc || !defs || !types || !by_version;

    for (unsigned v = 1; !err && v <= BX_PREDICATE_LATEST; v++) {
        char name[32], ref[48];
        json_t *p = predicate_doc(v, defs);
        snprintf(name, sizeof name, "predicate-v%u", v);
        snprintf(ref, sizeof ref, "#/$defs/%s", name);
        err = !p || json_object_del(p, "$schema") || json_object_del(p, "$id") ||
              json_object_del(p, "title") || json_object_set_new(defs, name, p) != 0 ||
              json_array_append_new(types, json_string(bx_predicate_type(v, type))) != 0 ||
              json_array_append_new(by_version,
                                    json_pack("{s:{s:{s:{s:s}}},s:{s:{s:{s:s}}}}", "if",
                                              "properties", "predicateType", "const", type, "then",
                                              "properties", "predicate", "$ref", ref)) != 0;
    }
    json_t *subject = json_pack(
        "{s:s,s:[{s:s,s:b,s:[ss],s:{s:{s:s,s:b,s:[s],s:{s:{s:s}}},s:{s:s}}},"
        "{s:s,s:b,s:[ss],s:{s:{s:s,s:b,s:[s],s:{s:{s:s,s:s}}},s:{s:s}}}],s:b,s:i}",
        "type", "array", "prefixItems", "type", "object", "additionalProperties", 0, "required",
        "digest", "name", "properties", "digest", "type", "object", "additionalProperties", 0,
        "required", "sha256", "properties", "sha256", "$ref", "#/$defs/hex64", "name", "const",
        "image", "type", "object", "additionalProperties", 0, "required", "digest", "name",
        "properties", "digest", "type", "object", "additionalProperties", 0, "required",
        "gitCommit", "properties", "gitCommit", "type", "string", "pattern", "^[0-9a-f]{40}$",
        "name", "const", "source", "items", 0, "minItems", 1);
    json_t *source_rule = json_pack(
        "{s:{s:{s:{s:i}}},s:{s:{s:{s:{s:{s:s}}}}},s:{s:{s:{s:{s:{s:s}}}}}}", "if", "properties",
        "subject", "minItems", 2, "then", "properties", "predicate", "properties", "source", "type",
        "object", "else", "properties", "predicate", "properties", "source", "type", "null");
    if (!err && source_rule)
        err = json_array_insert_new(by_version, 0, source_rule) != 0;
    else
        json_decref(source_rule);
    err = err || set(doc, "$schema", json_string(DRAFT)) ||
          set(doc, "$id", json_string("urn:boxcert:schema:statement:v1")) ||
          set(doc, "title",
              json_string("boxcert statement (in-toto Statement v1 with the containment "
                          "predicate)")) ||
          set(doc, "description",
              json_string("The decoded payload of a certificate: its RFC 8785 (JCS) bytes, no "
                          "whitespace, keys sorted. The image subject's digest equals "
                          "predicate.image.id without sha256:; the source subject (the "
                          "session's commit) comes with predicate.source, and only then. The "
                          "predicateType names the predicate's version; the predicate of "
                          "version N is `boxcert schema predicate-vN`, inline below as "
                          "$defs/predicate-vN.")) ||
          set(doc, "type", json_string("object")) ||
          set(doc, "additionalProperties", json_false()) ||
          set(doc, "required",
              json_pack("[ssss]", "_type", "predicate", "predicateType", "subject")) ||
          set(doc, "properties",
              json_pack("{s:{s:s},s:{s:s},s:{s:s,s:O},s:o}", "_type", "const", BX_STATEMENT_TYPE,
                        "predicate", "type", "object", "predicateType", "type", "string", "enum",
                        types, "subject", subject)) ||
          set(doc, "allOf", json_incref(by_version)) || json_object_set(doc, "$defs", defs) != 0;
    json_decref(types);
    json_decref(by_version);
    json_decref(defs);
    if (err) {
        json_decref(doc);
        return NULL;
    }
    return doc;
}

static json_t *requested_doc(void)
{
    json_t *doc = json_object(), *defs = json_object();
    int err = !doc || !defs;

    err = err || set(doc, "$schema", json_string(DRAFT)) ||
          set(doc, "$id", json_string("urn:boxcert:schema:requested:v2")) ||
          set(doc, "title",
              json_string("boxcert requested containment (collect --requested "
                          "FILE)")) ||
          set(doc, "description",
              json_string("What the launcher asked for: containment member names, only "
                          "those asked for, named as the policy names them where it does "
                          "(readOnlyRootfs, runtimes, resources.memoryMax, pidsMax, cpusMax; "
                          "the predicate's rootfs, runtime, memoryBytes, pidsLimit and nanoCpus "
                          "are deprecated and read all the same), else as the predicate "
                          "(`boxcert schema predicate`), with user as {nonRoot, uids[]} and "
                          "sysctls as {name: value}, and an optional version: 1. A bare word is "
                          "accepted where a launcher naturally writes one: network, "
                          "seccomp, apparmor and selinux. YAML or JSON; in YAML, booleans are "
                          "only the plain words true and false and numbers plain decimal "
                          "digits. collect refuses (exit 1, no certificate) when any effective "
                          "value is weaker than requested, or was not observed; the "
                          "stronger/weaker order is docs/policy.md's comparator. The file is "
                          "recorded as predicate.requested = {containment: <as asked, in the "
                          "predicate's names>, sha256: <SHA-256 of the file bytes>}.")) ||
          append_body(doc,
                      bx_shape_json_schema(bx_requested_shape(), BX_PREDICATE_LATEST, 0, defs)) ||
          set(doc, "minProperties", json_integer(1)) || json_object_set(doc, "$defs", defs) != 0;
    json_decref(defs);
    if (err) {
        json_decref(doc);
        return NULL;
    }
    return doc;
}

json_t *bx_schema_document(const char *name)
{
    if (!name)
        return NULL;
    if (!strcmp(name, "predicate-v1"))
        return predicate_doc(1, NULL);
    if (!strcmp(name, "predicate-v2"))
        return predicate_doc(2, NULL);
    if (!strcmp(name, "predicate-v3"))
        return predicate_doc(3, NULL);
    if (!strcmp(name, "statement"))
        return statement_doc();
    if (!strcmp(name, "requested"))
        return requested_doc();
    return NULL;
}
