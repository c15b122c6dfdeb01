/* Internal to the policy module: the schema of the language as data. */
#ifndef BX_POLICY_INTERNAL_H
#define BX_POLICY_INTERNAL_H

#include "bx_policy.h"

/* How a scalar is read; every type is decided by the key's place, never by YAML 1.1. */
typedef enum {
    BXP_BOOL,     /* plain true | false -> JSON bool */
    BXP_INT,      /* plain \d+ within [min, max] -> JSON integer */
    BXP_SIZE,     /* \d+(Ki|Mi|Gi)? -> kept as written */
    BXP_DURATION, /* bx_duration_parse -> kept as written */
    BXP_STRING,   /* one line, no control characters */
    BXP_TEXT,     /* any text (inline PEM) */
    BXP_TIME,     /* RFC 3339 UTC, bx_time_parse -> kept as written */
    BXP_STRLIST,  /* list of BXP_STRING */
    BXP_MAP,      /* mapping with the members in sub */
    BXP_MAPLIST,  /* list of mappings with the members in sub */
} bxp_type;

/* Extra check of one string value: 0 when fine, else a short reason in why. */
typedef int (*bxp_check_fn)(const char *s, char *why, size_t whylen);

typedef struct bxp_key {
    const char *name; /* NULL ends a table */
    bxp_type type;
    const struct bxp_key *sub;  /* BXP_MAP, BXP_MAPLIST */
    const char *const *choices; /* BXP_STRING, BXP_STRLIST: allowed values, or NULL */
    bxp_check_fn check;         /* BXP_STRING, BXP_STRLIST: or NULL */
    long long min, max;         /* BXP_INT */
} bxp_key;

/* The top-level mapping of the language. */
extern const bxp_key bxp_schema;

/* Parse a size \d+(Ki|Mi|Gi)? into bytes (<= 2^53). 0 on success, -1 when invalid. */
int bxp_size_parse(const char *s, int64_t *bytes);

/* Built-in profiles (profiles.c). */
typedef struct {
    const char *name;
    const char *text;
} bxp_profile;
extern const bxp_profile bxp_profiles[];

/* Effective-policy lookups: the value at a dotted path ("containment.network"), or NULL. */
const json_t *bxp_get(const json_t *effective, const char *path);

#endif
