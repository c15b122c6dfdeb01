/* schema module internals. Not installed. */
#ifndef BX_SCHEMA_INT_H
#define BX_SCHEMA_INT_H

#include "bx_schema.h"

/* The closed schema of the containment predicate (certificate.md section 3) on a parsed
 * predicate (borrowed): every member present, none unknown, each of its type, enum values,
 * lowercase hex, RFC 3339 times with Z, sorted unordered lists, and the few rules across
 * fields (expiresAt after issuedAt; level engine has no kernel or OCI spec readings).
 * BX_EINVAL with err->where a JSON pointer relative to the predicate ("/containment/
 * network/mode") and a one-line reason. Does not allocate. */
int bxs_predicate_check(const json_t *predicate, bx_error *err) BX_WUR;

#endif
