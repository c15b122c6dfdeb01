/* attest module internals: typed access to Engine API replies. Not installed. */
#ifndef BX_ATTEST_INT_H
#define BX_ATTEST_INT_H

#include "bx_attest.h"

/* Member at a JSON-pointer-like path ("/HostConfig/Memory"; no escapes) or NULL when any
 * step is absent or not an object. Borrowed. */
const json_t *bxa_get(const json_t *root, const char *ptr);

/* Typed reads of root's member at ptr. doc names the reply in err->where
 * ("container:/HostConfig/Memory"). Absent and null are the same: *out = NULL / *present
 * = 0 / *out = -1, or BX_EINVAL when required. A wrong type, a string with a NUL and an
 * integer beyond 2^53 are BX_EINVAL. Strings are borrowed from root. */
int bxa_str(const json_t *root, const char *doc, const char *ptr, int required, const char **out,
            bx_error *err) BX_WUR;
int bxa_int(const json_t *root, const char *doc, const char *ptr, int required, int *present,
            int64_t *out, bx_error *err) BX_WUR;
int bxa_bool(const json_t *root, const char *doc, const char *ptr, int required, int *out,
             bx_error *err) BX_WUR;
/* BX_EINVAL at doc:ptr with msg. */
int bxa_bad(bx_error *err, const char *doc, const char *ptr, const char *msg);

/* 1 if s is "sha256:" and 64 lowercase hex digits. */
int bxa_is_image_id(const char *s);

/* The fail-closed checks on a container inspect, in the order of certificate.md section 4:
 * the image ID first (BX_EDENIED when expect_image is given and differs), then running
 * (BX_EDENIED "container X is not running"). */
int bxa_check_session(const json_t *c, const char *expect_image, bx_error *err) BX_WUR;

#endif
