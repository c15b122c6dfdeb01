/* boxcert attest module: the Engine API client and the collector. */
#ifndef BX_ATTEST_H
#define BX_ATTEST_H

#include "bx_schema.h"

#define BX_ENGINE_REPLY_MAX (8 * 1024 * 1024)
/* The newest Engine API version this client speaks; older engines get their own. */
#define BX_ENGINE_API_MAX "1.41"

typedef struct bx_engine bx_engine;

/* Open a client for url ("unix:///path"; NULL = $DOCKER_HOST, else
 * unix:///var/run/docker.sock). One connection is reused for every request.
 * Nothing is sent yet. Caller owns *out (bx_engine_close). */
int bx_engine_open(const char *url, bx_engine **out, bx_error *err) BX_WUR;
void bx_engine_close(bx_engine *eng);
/* The endpoint as given/defaulted (borrowed). */
const char *bx_engine_endpoint(const bx_engine *eng);

/* The API version negotiated with the engine on the first request (min of the engine's
 * ApiVersion and BX_ENGINE_API_MAX), or "" before any request. Borrowed. */
const char *bx_engine_api_version(const bx_engine *eng);
/* min(server, BX_ENGINE_API_MAX) into out[16]; server is "MAJOR.MINOR". BX_EUNSUPPORTED
 * when server is not a version. */
int bx_engine_api_negotiate(const char *server, char out[16], bx_error *err) BX_WUR;

/* GET path (e.g. "/version"); the reply must be 200 and JSON. raw/rawlen (optional)
 * receive the reply's bytes (caller owns). An unreachable or lost engine is BX_EENV;
 * 404 is BX_ENOTFOUND; a reply over BX_ENGINE_REPLY_MAX is BX_EINVAL. */
int bx_engine_get(bx_engine *eng, const char *path, json_t **json, char **raw, size_t *rawlen,
                  bx_error *err) BX_WUR;

typedef struct {
    const char *container;    /* name or id */
    int64_t now;              /* issuedAt, seconds since the epoch */
    int64_t ttl;              /* expiresAt = now + ttl */
    const char *expect_image; /* "sha256:<64 hex>" or NULL */
    const char *nonce;        /* lowercase hex or NULL (then 128 random bits) */
} bx_collect_opts;

/* Observe one running session and build the containment predicate (certificate.md
 * section 3) at the level the collector can reach, inputsSha256 included.
 * Fail-closed per section 4: a session that is not running, changed during collection
 * or whose image differs from expect_image is BX_EDENIED; data that cannot be recorded
 * faithfully is BX_EINVAL. Caller owns *predicate. */
int bx_collect(bx_engine *eng, const bx_collect_opts *o, json_t **predicate,
               bx_error *err) BX_WUR;

/* The engine-level half of bx_collect, without I/O to the engine: build the predicate
 * from recorded replies (all borrowed): /version, /info, the container and image
 * inspects, and the inspect of the container's network (NULL when it has none or it was
 * not read: internal is then null). raw_* are the exact inspect reply bytes, hashed into
 * evidence.engineInspectSha256. endpoint is recorded as engine.endpoint. Reads the host's
 * name and boot id, and resolves mount sources on this host. Fails like bx_collect, but
 * does not re-inspect: a container that is not running or whose image differs from
 * o->expect_image is BX_EDENIED; data that cannot be recorded faithfully is BX_EINVAL
 * (err->where names the inspect field). o->container is not used. Caller owns
 * *predicate. */
int bx_predicate_from_inspect(const json_t *version, const json_t *info, const json_t *container,
                              const json_t *image, const json_t *network,
                              const char *raw_container, size_t raw_container_len,
                              const char *raw_image, size_t raw_image_len,
                              const bx_collect_opts *o, const char *endpoint,
                              json_t **predicate, bx_error *err) BX_WUR;

#endif
