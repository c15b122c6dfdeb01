/* SPDX-License-Identifier: Apache-2.0 */
/* boxcert attest module: the Engine API client, the kernel's and the runtime's view of a
 * session, and the collector that turns them into a containment predicate. */
#ifndef BX_ATTEST_H
#define BX_ATTEST_H

#include "bx_schema.h"

#define BX_ENGINE_REPLY_MAX (8 * 1024 * 1024)
/* The newest Engine API version this client speaks; older engines get their own. */
#define BX_ENGINE_API_MAX "1.41"

/* ---- the Engine API client ------------------------------------------------------------ */

typedef struct bx_engine bx_engine;

enum { BX_ENGINE_INSECURE = 1 }; /* bx_engine_open_ex: allow plain tcp:// (no TLS) */

/* Open a client for url: "unix:///path" or "tcp://host:port"; NULL = $DOCKER_HOST, else
 * unix:///var/run/docker.sock. tcp:// is mutual TLS as the docker CLI does it: when
 * DOCKER_TLS_VERIFY is non-empty, ca.pem (the engine's CA), cert.pem and key.pem from
 * DOCKER_CERT_PATH (else $DOCKER_CONFIG, else ~/.docker); without it, tcp:// is refused
 * (BX_ECONFIG) unless flags has BX_ENGINE_INSECURE. A missing TLS file is BX_ECONFIG; any
 * other scheme BX_EUNSUPPORTED. One connection is reused for every request. Nothing is
 * sent yet. Caller owns *out (bx_engine_close). bx_engine_open = bx_engine_open_ex(url, 0).
 * url "context:NAME" is the engine of docker context NAME; url NULL is, as for the docker
 * CLI, DOCKER_HOST, else the context DOCKER_CONTEXT names, else config.json's
 * currentContext, else the default socket. A context's endpoint is its meta.json's
 * Endpoints.docker.Host; its TLS material (ca.pem, cert.pem, key.pem) is its own TLS folder
 * (DOCKER_TLS_VERIFY and DOCKER_CERT_PATH do not apply); an unknown or broken context, or
 * one that skips TLS verification, is BX_ECONFIG, never a fallback (docs/collector.md,
 * "Which engine"). */
int bx_engine_open(const char *url, bx_engine **out, bx_error *err) BX_WUR;
int bx_engine_open_ex(const char *url, int flags, bx_engine **out, bx_error *err) BX_WUR;
void bx_engine_close(bx_engine *eng);
/* Another handle (its own connection) to src's engine, knowing what src learnt: the API
 * version, /version and /info (not asked again), and over TLS the engine's certificate,
 * which every request of the new handle must meet as well. src is only read: a handle
 * per thread can be made from one handle. */
int bx_engine_open_like(const bx_engine *src, int flags, bx_engine **out, bx_error *err) BX_WUR;
/* The endpoint as given/defaulted (borrowed). */
const char *bx_engine_endpoint(const bx_engine *eng);
/* 1 for a tcp:// engine (its sessions are never read through this host's kernel). */
int bx_engine_is_remote(const bx_engine *eng);
/* The unix socket path, or NULL for tcp://. Borrowed. */
const char *bx_engine_socket(const bx_engine *eng);
/* For an ssh:// engine, the server host key ssh checked ("ssh-ed25519 SHA256:..."), once a
 * request went through; else NULL. Borrowed. */
const char *bx_engine_ssh_host_key(const bx_engine *eng);
/* The docker context the endpoint came from, or NULL. Borrowed. */
const char *bx_engine_context(const bx_engine *eng);
/* Lowercase hex SHA-256 of the DER of the certificate the engine presented over TLS, into
 * out; NULL before the first TLS request or without TLS. Every request of one handle must
 * meet the same certificate (else BX_EENV). */
const char *bx_engine_tls_peer_sha256(const bx_engine *eng, char out[65]);

/* Negotiate the API version with GET /_ping (its Api-Version header: the engine does no
 * work for it), not with /version, which a first request otherwise asks (and which Docker
 * answers slowly: it asks its runtimes for their versions). /version is then asked when
 * first wanted. No-op once negotiated. */
int bx_engine_ping(bx_engine *eng, bx_error *err) BX_WUR;
/* Give dst what src learnt and dst has not: /version, /info, the API version (for a
 * handle made with bx_engine_open_like before src asked them). */
void bx_engine_adopt(bx_engine *dst, const bx_engine *src);

/* The API version negotiated with the engine on the first request (min of the engine's
 * ApiVersion and BX_ENGINE_API_MAX), or "" before any request. Borrowed. */
const char *bx_engine_api_version(const bx_engine *eng);
/* min(server, BX_ENGINE_API_MAX) into out[16]; server is "MAJOR.MINOR". BX_EUNSUPPORTED
 * when server is not a version. */
int bx_engine_api_negotiate(const char *server, char out[16], bx_error *err) BX_WUR;

/* GET path (e.g. "/version"); the reply must be 200 and JSON. raw/rawlen (optional)
 * receive the reply's bytes (caller owns). /version and /info are asked once per handle
 * and then served from memory. A path starting "/v" and a digit is sent as given
 * (podman's "/v4.0.0/libpod/..."), others under the negotiated version. An unreachable or
 * lost engine is BX_EENV; 404 is BX_ENOTFOUND; a reply over BX_ENGINE_REPLY_MAX is
 * BX_EINVAL. */
int bx_engine_get(bx_engine *eng, const char *path, json_t **json, char **raw, size_t *rawlen,
                  bx_error *err) BX_WUR;
/* bx_engine_get without parsing the reply: its bytes only (a 200 reply, not checked to be
 * JSON; caller frees *raw). For a reply compared with one already parsed. */
int bx_engine_get_raw(bx_engine *eng, const char *path, char **raw, size_t *rawlen,
                      bx_error *err) BX_WUR;

/* ---- collection --------------------------------------------------------------------- */

typedef struct bx_collect_shared bx_collect_shared;

typedef struct {
    const char *container;    /* name or id */
    int64_t now;              /* issuedAt, seconds since the epoch */
    int64_t ttl;              /* expiresAt = now + ttl */
    const char *expect_image; /* "sha256:<64 hex>" or NULL */
    const char *nonce;        /* lowercase hex or NULL (then 128 random bits) */
    /* what the launcher asked for (bx_requested_load), borrowed, and the SHA-256 (hex) of
     * its file; NULL: predicate.requested is null */
    const json_t *requested;
    const char *requested_sha256;
    int source_given; /* predicate.source: null unless set, then {dirty, ignored} */
    int source_dirty;
    unsigned source_ignored; /* BX_SRC_* (bx_source_check) */
    int engine_only; /* 1: do not read the kernel's view (level engine) */
    /* where the kernel view is read (tests); NULL = this host's */
    const char *proc_root, *task_root, *pidfile;
    /* what collections by one process may share (bx_collect_shared_new); NULL: nothing */
    bx_collect_shared *shared;
    /* the container's inspect reply, already read by its Id through the same engine
     * (borrowed, only read; NULL: ask the engine). It is then the collection's first
     * observation: the re-inspect at the end must find the same start of the same
     * container. inspect_raw: the reply's exact bytes. */
    const json_t *inspect;
    const char *inspect_raw;
    size_t inspect_raw_len;
    /* the files of the keys that will sign (borrowed): host objects the session must not
     * reach (containment.hostObjects) */
    const char *const *signing_keys;
    size_t nsigning_keys;
} bx_collect_opts;

/* What several collections by one process may share, from any number of threads: each
 * image inspect is asked once per engine (an image ID names its content), this host's
 * cgroup mounts and the engine daemon's namespaces are read once. For collections made
 * together (an audit), not for a long-lived process: nothing in it is read again. */
int bx_collect_shared_new(bx_collect_shared **out, bx_error *err) BX_WUR;
void bx_collect_shared_free(bx_collect_shared *s);

typedef struct bx_evidence bx_evidence;

/* One collection: the predicate, where each field came from, and the evidence. */
typedef struct {
    json_t *predicate;     /* owned */
    json_t *sources;       /* owned: {"network.mode": "kernel"|"runtime"|"spec"|"engine",
                            * ...} for the fields of the containment a reader looks at */
    char why[200];         /* why the evidence level is what it is */
    char possible[16];     /* the highest level this session's runtime allows on this host
                            * (engine for a remote engine or when only it was asked) */
    bx_evidence *evidence; /* owned */
} bx_collection;

/* Observe one running session and build the containment predicate (certificate.md
 * section 3) at the highest level this collector can reach: engine+kernel for runc/crun
 * sessions whose processes it can prove to be the session's, engine+runtime for runsc,
 * engine otherwise (and always for a tcp:// engine). Fail-closed per section 4: a session
 * that is not running, changed during collection, whose image differs from expect_image,
 * or that is weaker than o->requested (or not observed where asked) is BX_EDENIED (the
 * message names the field, the requested and the effective value); data that cannot be
 * recorded faithfully is BX_EINVAL. Caller frees out with bx_collection_free. */
int bx_collect_full(bx_engine *eng, const bx_collect_opts *o, bx_collection *out,
                    bx_error *err) BX_WUR;
void bx_collection_free(bx_collection *c);
/* The collector's own safety (guard.c). bx_collector_protect makes this process
 * non-dumpable (PR_SET_DUMPABLE 0): no core file, no /proc/<pid>/mem nor ptrace attach by
 * anyone without CAP_SYS_PTRACE over it. bx_collector_untraced: 0 when no task of this
 * process has a tracer (TracerPid 0 in every /proc/self/task/<tid>/status), else
 * BX_EENV naming the tracer; called before a key is loaded and before signing. */
void bx_collector_protect(void);
int bx_collector_untraced(bx_error *err) BX_WUR;

/* bx_collect_full keeping only the predicate. Caller owns *predicate. */
int bx_collect(bx_engine *eng, const bx_collect_opts *o, json_t **predicate, bx_error *err) BX_WUR;

/* The recorded Engine API replies of one session (all borrowed). network: the inspect of
 * the session's network (NULL when it has none or it was not read: internal is then
 * null); libpod: podman's /libpod/containers/<id>/json (NULL for docker). raw_*: the exact
 * reply bytes, hashed (Config.Env values redacted) into evidence.engineInspectSha256. */
typedef struct {
    const json_t *version, *info, *container, *image, *network, *libpod;
    const char *raw_container, *raw_image, *raw_network, *raw_libpod;
    size_t raw_container_len, raw_image_len, raw_network_len, raw_libpod_len;
    /* the inspects of the other networks NetworkSettings.Networks names (an array; NULL
     * when none was read): their bridges and internal flags */
    const json_t *networks;
    const char *raw_networks;
    size_t raw_networks_len;
    /* container:W: W's container inspect (its NetworkSettings.Networks are the session's);
     * NULL otherwise */
    const json_t *joined;
    const char *raw_joined;
    size_t raw_joined_len;
} bx_engine_replies;

/* The engine-level half of bx_collect, without I/O to the engine: build the predicate
 * from recorded replies. endpoint is recorded as engine.endpoint. Reads the host's name
 * and boot id, and resolves mount sources on this host. Fails like bx_collect, but does
 * not re-inspect: a container that is not running or whose image differs from
 * o->expect_image is BX_EDENIED; data that cannot be recorded faithfully is BX_EINVAL
 * (err->where names the inspect field). o->container, the kernel paths and requested are
 * not used. Caller owns *predicate. */
int bx_predicate_from_replies(const bx_engine_replies *r, const bx_collect_opts *o,
                              const char *endpoint, json_t **predicate, bx_error *err) BX_WUR;
/* bx_predicate_from_replies for a docker session given reply by reply (all borrowed;
 * network may be NULL; raw_* the container's and image's reply bytes). */
int bx_predicate_from_inspect(const json_t *version, const json_t *info, const json_t *container,
                              const json_t *image, const json_t *network, const char *raw_container,
                              size_t raw_container_len, const char *raw_image, size_t raw_image_len,
                              const bx_collect_opts *o, const char *endpoint, json_t **predicate,
                              bx_error *err) BX_WUR;

/* ---- evidence ------------------------------------------------------------------------ */

/* Write the raw bytes behind each evidence hash into a new folder dir: engineInspect/,
 * kernel/ and ociSpec/, each with its files (names as in its manifest, e.g.
 * kernel/4242/status) and manifest.json, the JCS bytes of {name: sha256 of the file}, so
 * that sha256sum of each manifest.json gives evidence.*Sha256. Everything is written in a
 * temporary folder beside dir (created exclusively, files O_EXCL|O_NOFOLLOW, mode 0600,
 * fsync) and renamed to dir by bx_evidence_commit; dir must not exist, or be an empty
 * folder. *staged (caller frees) names the temporary folder. Unsafe places (a parent
 * writable by others without the sticky bit, a symlink) are BX_EIO. */
int bx_evidence_stage(const bx_evidence *ev, const char *dir, char **staged, bx_error *err) BX_WUR;
int bx_evidence_commit(const char *staged, const char *dir, bx_error *err) BX_WUR;
/* Remove a staged folder (after a failure). */
void bx_evidence_discard(const char *staged);

/* ---- what the launcher asked for ----------------------------------------------------- */

/* Read a requested-containment file (YAML or JSON, schema `boxcert schema requested`):
 * containment member names, only those asked for, with user as {nonRoot, uids[]}, and the
 * policy's names where the policy names a member too (readOnlyRootfs, runtimes,
 * resources.memoryMax/pidsMax/cpusMax; an optional version: 1); scalars typed by their
 * place. *containment is the request in the predicate's names (rootfs, runtime,
 * resources.memoryBytes/pidsLimit/nanoCpus), as predicate.requested records it. deprecated:
 * the predicate's names the file used instead of the policy's, each with its replacement
 * ("rootfs (write readOnlyRootfs)"), "" when none; read all the same. Errors (BX_ECONFIG)
 * carry file:line:col. *sha256 = hex SHA-256 of buf. Caller owns *containment. */
int bx_requested_load(const char *buf, size_t len, const char *file, json_t **containment,
                      char sha256[65], char deprecated[256], bx_error *err) BX_WUR;

/* ---- the session's source ----------------------------------------------------------- */

/* What a checkout says that the check of its source ignores (predicate v2 source.ignored):
 * each could make a changed tree read as clean, so none is read. */
enum {
    BX_SRC_ASSUME_UNCHANGED = 1, /* an index entry flagged assume-unchanged */
    BX_SRC_CONFIG = 2,           /* other settings that change what git compares */
    BX_SRC_CORE_WORKTREE = 4,    /* core.worktree in the repository's config */
    BX_SRC_INFO_ATTRIBUTES = 8,  /* .git/info/attributes (filters such as ident) */
    BX_SRC_SKIP_WORKTREE = 16    /* an index entry flagged skip-worktree */
};
/* The names of the bits above, in the order of their bits (which is sorted). */
extern const char *const bx_source_ignored_names[];

/* Check that rev (40 lowercase hex) names a commit of the repository whose checkout is dir
 * (dir itself: never searched upwards; a repository owned by another user is accepted),
 * and whether dir's tracked files differ from rev's tree (*dirty): each path of the tree,
 * opened beneath dir without following links or blocking, hashed raw (no filter, no
 * attribute, no configuration of the repository) against its blob id and mode. The index
 * is never read for the comparison (a change only staged does not count; untracked files do
 * not count). *ignored: BX_SRC_* of what the checkout says and the check did not read (may
 * be NULL). A bare repository: never dirty. Not a repository, or no such commit:
 * BX_ECONFIG. */
int bx_source_check(const char *dir, const char *rev, int *dirty, unsigned *ignored,
                    bx_error *err) BX_WUR;

#endif
