/* SPDX-License-Identifier: Apache-2.0 */
/* boxcert common module: errors, safe files, encodings, digests, keys, strict YAML.
 *
 * Conventions (whole project):
 * - Fallible functions return 0 on success or a negative BX_E* code, and fill the
 *   caller-allocated bx_error. Reporting an error never allocates.
 * - "Caller owns" means free with the named function; "borrowed" means do not free.
 */
#ifndef BX_COMMON_H
#define BX_COMMON_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <jansson.h>
#include <openssl/evp.h>

#define BX_FMT(a, b) __attribute__((format(printf, a, b)))
#define BX_WUR __attribute__((warn_unused_result))

/* ---- errors ---------------------------------------------------------------- */

enum {
    BX_OK = 0,
    BX_EINVAL = -1,       /* invalid input (format, parse, schema) */
    BX_EUNSUPPORTED = -2, /* valid but not supported (algorithm, version) */
    BX_ESIG = -3,         /* signature or digest mismatch */
    BX_EDENIED = -4,      /* refused by policy or by a fail-closed check */
    BX_ENOTFOUND = -5,    /* no such object (container, image, key, commit) */
    BX_EIO = -6,          /* I/O error, unsafe path */
    BX_EENV = -7,         /* environment: engine unreachable or lost */
    BX_ECONFIG = -8,      /* a configuration input (policy, key, flag) is unusable */
    BX_ENOMEM = -9,       /* an allocation failed (an environment error: exit 3) */
};

typedef struct {
    int code;      /* one of BX_E*; 0 when no error */
    int sys_errno; /* errno at the time, or 0 */
    char where[128];
    char msg[256];
} bx_error;

void bx_error_clear(bx_error *err);
/* Set err (if non-NULL) and return code. where may be NULL. */
int bx_error_set(bx_error *err, int code, const char *where, const char *fmt, ...) BX_FMT(4, 5);
/* Like bx_error_set, appending ": strerror(errno)" and recording errno. */
int bx_error_errno(bx_error *err, int code, const char *where, const char *fmt, ...) BX_FMT(4, 5);
/* Like bx_error_set, appending OpenSSL's first queued error; drains the queue. */
int bx_error_ssl(bx_error *err, int code, const char *where, const char *fmt, ...) BX_FMT(4, 5);
/* Prefix err->msg with "prefix: " (bounded); keeps code and where. */
void bx_error_prefix(bx_error *err, const char *fmt, ...) BX_FMT(2, 3);
/* "where: msg" or "msg" into buf. */
const char *bx_error_str(const bx_error *err, char *buf, size_t len);

/* ---- allocation (alloc.c) ------------------------------------------------------ */

/* malloc, realloc and strdup for code that must fail closed when memory runs out; tests
 * make the Nth of them on this thread fail (bx_alloc_fail_at(N); 0: none) and read how many
 * there were (bx_alloc_count). Free with free(). */
void *bx_malloc(size_t n);
void *bx_realloc(void *p, size_t n);
char *bx_strdup(const char *s);
void bx_alloc_fail_at(unsigned long n);
unsigned long bx_alloc_count(void);

/* ---- files ----------------------------------------------------------------- */

/* Read a whole regular file of at most max bytes ("-" = stdin). The size is checked
 * with fstat before reading (and again while reading, for pipes). Caller owns *out
 * (free()); it is NUL-terminated one past *len. Directories, empty files (when
 * allow_empty is 0) and oversize files are BX_ECONFIG/BX_EINVAL/BX_EIO errors;
 * oversize gives BX_EINVAL with msg starting "too large".
 * In detail: err->where is the path ("<stdin>" for "-"); a directory ("is a directory"),
 * another non-regular file, a FIFO too ("is not a regular file": it is opened without
 * blocking and never read), and an empty file ("is empty") are BX_ECONFIG; open/read
 * failures are BX_EIO with sys_errno set (ENOENT for a missing file); out of memory is
 * BX_ENOMEM. stdin ("-") is a stream, stopped after max + 1 bytes. */
/* Flags of bx_read_file. */
enum { BX_READ_EMPTY_OK = 1 /* an empty file is not an error */ };
int bx_read_file(const char *path, size_t max, unsigned flags, char **out, size_t *len,
                 bx_error *err) BX_WUR;

/* Write path atomically: temp file created exclusively beside the target through a
 * directory descriptor opened without following links, write, fsync, rename, fsync
 * the directory. Refuses (BX_EIO) a target that is a symlink, and a folder writable
 * by others without the sticky bit. On failure nothing is left behind and a previous
 * file is intact.
 * Also refused (BX_EIO): a folder that is itself a symlink (its last component), an
 * existing target that is not a regular file, a path ending in "/". mode is as for
 * open(2) (the umask applies); a replaced file gets the new mode. A full disk gives
 * BX_EIO with sys_errno ENOSPC. */
int bx_write_file_atomic(const char *path, const void *buf, size_t len, unsigned mode,
                         bx_error *err) BX_WUR;

/* The same, streamed: bx_atomic_open gives a FILE* on the temporary file; commit
 * flushes, syncs and renames it into place (and frees a); abort removes it. */
typedef struct bx_atomic bx_atomic;
int bx_atomic_open(const char *path, unsigned mode, bx_atomic **a, FILE **f, bx_error *err) BX_WUR;
int bx_atomic_commit(bx_atomic *a, bx_error *err) BX_WUR;
void bx_atomic_abort(bx_atomic *a);

/* Write path as a new file, atomically: a temporary file created exclusively beside it
 * (as bx_write_file_atomic, with the same refusals), written and fsync'd, then renamed to
 * path only if no path exists (renameat2 RENAME_NOREPLACE, else link + unlink): an
 * existing path is never replaced, and another writer racing for the name loses. Then the
 * folder is fsync'd unless sync_folder is 0 (the caller syncs it once after writing
 * several files: bx_sync_folder). An existing path is BX_EIO "already exists" with
 * *exists = 1 (exists may be NULL). On failure nothing is left behind. */
int bx_write_file_new(const char *path, const void *buf, size_t len, unsigned mode, int sync_folder,
                      int *exists, bx_error *err) BX_WUR;
/* fsync a folder (after files were renamed into it). */
int bx_sync_folder(const char *dir, bx_error *err) BX_WUR;

/* Create path exclusively (O_CREAT|O_EXCL|O_NOFOLLOW) with mode, write, fsync.
 * On failure the file is removed. */
int bx_write_file_excl(const char *path, const void *buf, size_t len, unsigned mode,
                       bx_error *err) BX_WUR;

/* ---- encodings and digests --------------------------------------------------- */

/* Standard base64 with '=' padding. Caller owns the NUL-terminated result (free());
 * NULL when out of memory. */
char *bx_b64_encode(const void *buf, size_t len);
/* Decode standard or URL-safe padded base64, accepted only in canonical form:
 * re-encoding the result in the same alphabet gives back the same string.
 * "" decodes to zero bytes. Caller owns *out (free()), NUL-terminated one past *outlen. */
int bx_b64_decode(const char *s, size_t slen, unsigned char **out, size_t *outlen,
                  bx_error *err) BX_WUR;

/* Lowercase hex of len bytes into out (2*len+1 bytes). Returns out. */
char *bx_hex_encode(const void *buf, size_t len, char *out);
/* 1 if s is exactly n lowercase hex digits (followed by its NUL). */
int bx_is_lower_hex(const char *s, size_t n);
/* Decode lowercase hex of exactly 2*outlen digits. */
int bx_hex_decode(const char *s, unsigned char *out, size_t outlen, bx_error *err) BX_WUR;

void bx_sha256(const void *buf, size_t len, unsigned char out[32]);
/* Lowercase hex SHA-256 into out[65]. Returns out. */
char *bx_sha256_hex(const void *buf, size_t len, char out[65]);

/* ---- time ------------------------------------------------------------------ */

/* Parse RFC 3339 UTC "YYYY-MM-DDTHH:MM:SSZ" (optionally with fractional seconds
 * when frac_ok, which are dropped) into seconds since the epoch. */
/* Flags of bx_time_parse. */
enum { BX_TIME_FRACTION = 1 /* a fraction of a second is allowed (and dropped) */ };
int bx_time_parse(const char *s, unsigned flags, int64_t *out, bx_error *err) BX_WUR;
/* Parse RFC 3339 UTC "YYYY-MM-DDTHH:MM:SS[.fraction]Z" into seconds and nanoseconds (".5"
 * is 500000000 ns); a fraction of more than 9 digits is BX_EINVAL (it cannot be kept).
 * *has_frac: 1 when a fraction was written. */
int bx_time_parse_ns(const char *s, int64_t *sec, int32_t *nsec, int *has_frac,
                     bx_error *err) BX_WUR;
/* Format as "YYYY-MM-DDTHH:MM:SS[.fraction]Z" into out[31]: the fraction without trailing
 * zeros and none when nsec is 0 (Go's RFC3339Nano, as Docker writes State.StartedAt). An
 * nsec outside 0..999999999 is written as 0. */
char *bx_time_format_ns(int64_t sec, int32_t nsec, char out[31]);
/* Format seconds since the epoch as "YYYY-MM-DDTHH:MM:SSZ" into out[21]. Times outside
 * the years 0000..9999 are clamped to that range. */
char *bx_time_format(int64_t t, char out[21]);
/* Parse a duration: one number and one unit of s m h d ("30s", "5m", "24h", "7d").
 * The number is decimal without sign or leading zeros; at most BX_DURATION_MAX seconds. */
#define BX_DURATION_MAX (3660000LL * 86400) /* ~10000 years: keeps t + d from overflowing */
int bx_duration_parse(const char *s, int64_t *seconds, bx_error *err) BX_WUR;

/* ---- keys and signatures ----------------------------------------------------- */

typedef enum { BX_ALG_ED25519 = 1, BX_ALG_ECDSA_P256 = 2 } bx_alg;
typedef enum { BX_SIGENC_DER = 0, BX_SIGENC_P1363 = 1 } bx_sigenc;

/* Generate a key pair. Caller owns *out (EVP_PKEY_free). */
int bx_key_generate(bx_alg alg, EVP_PKEY **out, bx_error *err) BX_WUR;
/* Algorithm of a key; 0 when neither Ed25519 nor P-256. */
bx_alg bx_key_alg(const EVP_PKEY *key);
/* keyid: lowercase hex SHA-256 of the SPKI DER of the public key, into out[65]. */
int bx_key_id(const EVP_PKEY *key, char out[65], bx_error *err) BX_WUR;
/* PEM encodings. Caller owns the NUL-terminated strings (free()).
 * passphrase non-NULL: encrypted PKCS#8 (AES-256-CBC, scrypt). */
int bx_key_private_pem(const EVP_PKEY *key, const char *passphrase, char **out,
                       bx_error *err) BX_WUR;
int bx_key_public_pem(const EVP_PKEY *key, char **out, bx_error *err) BX_WUR;
/* The checks bx_key_load_private makes of a private key file (regular, the caller's, mode
 * 0600, a sane size) without reading it: BX_ECONFIG naming the file. */
int bx_key_check_private(const char *path, bx_error *err) BX_WUR;
/* Load a private key file (PKCS#8 PEM, encrypted or not). Refused (BX_ECONFIG) unless
 * a regular file owned by the caller with no group/other access, checked on the
 * descriptor opened with O_NOFOLLOW. The passphrase comes from passphrase (may be
 * NULL), else BOXCERT_KEY_PASSPHRASE_FILE, else the terminal. */
int bx_key_load_private(const char *path, const char *passphrase, EVP_PKEY **out,
                        bx_error *err) BX_WUR;
/* Read a passphrase: the first line of $BOXCERT_KEY_PASSPHRASE_FILE, else from the
 * terminal (/dev/tty, echo off) after prompt. Caller wipes buf. */
int bx_passphrase_read(char *buf, size_t len, const char *prompt, bx_error *err) BX_WUR;
/* Parse a public key from memory, strictly: pem[len] is exactly one PUBLIC KEY block in
 * RFC 7468's strict form (64-column canonical base64; LF or CRLF line ends throughout; one
 * optional line end after END, nothing else around it) holding the strict DER of an Ed25519
 * key (RFC 8410: no parameters, 32 bytes) or a P-256 key on the named curve prime256v1 with
 * an uncompressed or compressed point on the curve. An Ed25519 key of small order or not
 * canonically encoded is refused; a private key is refused as one. Anything else is
 * BX_ECONFIG with the reason in err->msg (BX_ENOMEM when out of memory). Caller owns *out
 * (EVP_PKEY_free); its keyid (bx_key_id) is that of the uncompressed encoding. */
int bx_key_parse_public(const char *pem, size_t len, EVP_PKEY **out, bx_error *err) BX_WUR;
/* bx_key_parse_public of the file path (at most 64 KiB); err->where is path. */
int bx_key_load_public(const char *path, EVP_PKEY **out, bx_error *err) BX_WUR;
/* Why an Ed25519 point encoding (a public key A, a signature's R) is refused: of small
 * order, or y >= p; NULL when it is not. */
const char *bx_ed25519_point_refused(const unsigned char enc[32]);
/* Sign msg: Ed25519 raw 64 bytes; ECDSA P-256 with SHA-256, DER. Caller owns *sig. */
int bx_sign(EVP_PKEY *key, const void *msg, size_t len, unsigned char **sig, size_t *siglen,
            bx_error *err) BX_WUR;
/* Verify: 0 when valid, BX_ESIG when not. ECDSA: enc selects strict DER or raw r||s
 * of exactly 64 bytes. */
int bx_verify_sig(EVP_PKEY *key, bx_sigenc enc, const void *msg, size_t len,
                  const unsigned char *sig, size_t siglen, bx_error *err) BX_WUR;

/* ---- quantities (units.c) ---------------------------------------------------- */

/* A size \d+(Ki|Mi|Gi)? in bytes (at most 2^53, no leading zeros). 0, or -1 when invalid. */
int bx_size_parse(const char *s, int64_t *bytes);
/* A CPU count written as a decimal "0.5", "2", "1.25" (at most 9 fraction digits, no sign,
 * no exponent, no leading zeros, above 0) in nano-CPUs. 0, or -1 when invalid. */
int bx_cpus_parse(const char *s, int64_t *nano);

/* ---- strict YAML ----------------------------------------------------------- */

/* A YAML (or JSON) document read strictly into jansson values: mappings become
 * objects, sequences arrays, and every scalar a string, except plain `null`, `~`
 * and empty plain scalars, which become JSON null. Scalars are typed later by their
 * place in a schema (see bx_yaml_*). Anchors, aliases, tags, duplicate keys, non-scalar
 * keys, more than one document, depth over max_depth and over max_events events are
 * refused at the event with line and column. */
typedef struct {
    json_t *root;  /* owned */
    json_t *marks; /* owned: JSON pointer -> [line, column, quoted(0|1)] (1-based);
                    * a mapping member's mark adds [.., key line, key column] */
    char file[96]; /* name used in messages */
    size_t events; /* parser events consumed (for bounded-work tests) */
} bx_yaml_doc;

/* Read buf into doc (caller owns; free with bx_yaml_free). Errors are BX_ECONFIG with
 * where "file:line:col"; on error doc holds no values (only events is kept) and
 * bx_yaml_free is still safe. */
int bx_yaml_load(const char *buf, size_t len, const char *file, size_t max_depth,
                 size_t max_events, bx_yaml_doc *doc, bx_error *err) BX_WUR;
void bx_yaml_free(bx_yaml_doc *doc);
/* Fill err->where with "file:line:col" of the node at pointer (or its nearest
 * parent that has a mark) and set code/msg. Returns code. */
int bx_yaml_error(const bx_yaml_doc *doc, const char *pointer, bx_error *err, int code,
                  const char *fmt, ...) BX_FMT(5, 6);
/* Like bx_yaml_error, but at the key of the mapping member at pointer (for "unknown
 * key" and the like); at the node itself when it is not a mapping member. */
int bx_yaml_key_error(const bx_yaml_doc *doc, const char *pointer, bx_error *err, int code,
                      const char *fmt, ...) BX_FMT(5, 6);
/* 1 if the scalar at pointer was quoted in the source: any style but plain (single,
 * double, and the literal | and folded > blocks), so `true` typed by place is only ever
 * the plain word. */
int bx_yaml_quoted(const bx_yaml_doc *doc, const char *pointer);

#endif
