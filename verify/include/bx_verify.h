/* SPDX-License-Identifier: Apache-2.0 */
/* boxcert verify module: the offline verification of certificate.md section 5. */
#ifndef BX_VERIFY_H
#define BX_VERIFY_H

#include "bx_policy.h"

/* What the gate is admitting (step 10 of certificate.md section 5): each non-NULL
 * member must match the certificate, else certificate.binding (or certificate.nonce). */
typedef struct {
    const char *image;        /* "sha256:<hex>": predicate.image.id */
    /* the session, three ways (docs/ci.md "Bindings"): container is the full 64-hex Id
     * (matched to containerId only), 12 to 63 hex digits (a prefix of containerId; a session
     * that has that name and another Id makes the binding ambiguous: config_error), or
     * anything else (the name); container_id is only an Id or prefix of 12 or more hex
     * digits; container_name only the name */
    const char *container;
    const char *container_id;
    const char *container_name;
    const char *const *labels; /* "K=V" each, exact match in session.labels */
    size_t nlabels;
    const char *source;       /* 40-hex commit: the statement's source subject */
    const char *nonce;        /* predicate.nonce */
} bx_binding;

typedef struct {
    int64_t at;          /* evaluation time (seconds); --at or now */
    size_t max_size;     /* envelope size cap; 0 = BX_ENVELOPE_MAX_DEFAULT */
    int threshold;       /* > 0 overrides the policy's */
    bx_binding expect;
} bx_verify_opts;

typedef struct {
    char certificate_id[65]; /* "" until the payload is decoded */
    json_t *statement;       /* owned; NULL unless signatures verified and it parsed */
    json_t *findings;        /* owned: array of findings */
    json_t *signers;         /* owned: the keyids (64 hex) of the distinct trusted keys that
                              * signed and were valid at issuedAt, in the policy's order;
                              * NULL unless step 8b passed */
    int pass;                /* 1 when no finding is fail or unknown */
    /* "" unless every failing finding is unknown only because the certificate's predicate
     * version (lacks_version) lacks what the rule reads: then those members, ", "-separated
     * ("containment.sysctls"), for a one-line hint */
    char lacks[512];
    unsigned lacks_version;
    /* a misconfiguration of the gate this certificate showed (an --expect-container that is
     * both a prefix of no Id of it and its session's name): the run exits 2; its finding says
     * which */
    int config_error;
} bx_verify_result;

/* Verify one envelope held in buf. Returns 0 with res filled (pass or not) for any
 * certificate, and a negative code only for errors of the environment. */
int bx_verify_envelope(const bx_policy *p, const bx_verify_opts *o, const char *buf, size_t len,
                       bx_verify_result *res, bx_error *err) BX_WUR;
void bx_verify_result_free(bx_verify_result *res);
/* 1 when the labels object carries kv ("K=V", exact key and value). */
int bx_label_matches(const json_t *labels, const char *kv);
/* Recompute res->pass from its findings. */
void bx_verify_result_update(bx_verify_result *res);

/* ---- certificate inputs (source.c) ------------------------------------------------
 * The one reader of certificates for verify, audit, show and sign: a file (one envelope), a
 * JSON Lines bundle (*.intoto.jsonl, an envelope a line), a folder of them (sorted by name;
 * with recursive its subfolders too), or "-" (standard input, JSON Lines). Every input is
 * handed on in order, and none is dropped in silence:
 *   - what cannot be read (a file that is not regular: a FIFO, socket or device is never
 *     opened for reading; a read error; a folder that cannot be read to its end; a folder's
 *     entry that cannot be examined, a subfolder that cannot be opened; a file or a bundle
 *     line over the size cap) is a BX_INPUT_ERROR input naming the file and line;
 *     a bundle line over the cap also ends that bundle;
 *   - a folder's entry that is not a certificate's name, a subfolder (without recursive) and
 *     a link to a folder are BX_INPUT_SKIPPED inputs;
 *   - running out of memory stops the whole: bx_source_read returns BX_ENOMEM.
 * Folders are walked by descriptor (openat, fstatat): no path length limits the walk, and
 * no folder below the one named is reached through a link. */
typedef struct {
    size_t max_size; /* per envelope and per bundle line; 0 = BX_ENVELOPE_MAX_DEFAULT */
    int recursive;   /* a folder's subfolders too (never a link to one) */
} bx_source_opts;

typedef enum { BX_INPUT_CERT, BX_INPUT_ERROR, BX_INPUT_SKIPPED } bx_input_kind;

typedef struct {
    bx_input_kind kind;
    const char *file; /* the path as given, or folder/name (borrowed) */
    size_t line;      /* the line of a bundle (1-based), else 0 */
    char *buf;        /* BX_INPUT_CERT: the envelope's bytes, NUL-terminated one past len;
                       * the callback may take them (set buf to NULL, free() later) */
    size_t len;
    bx_error err; /* BX_INPUT_ERROR: why (code BX_EINVAL and msg "too large..." for the size cap,
                   * BX_EINVAL for not a regular file, BX_EIO for a read error);
                   * BX_INPUT_SKIPPED: msg says why */
} bx_input;

/* Called for each input; a non-zero return stops the reading and is returned. */
typedef int (*bx_source_fn)(void *arg, bx_input *in);
int bx_source_read(const char *path, const bx_source_opts *o, bx_source_fn fn, void *arg) BX_WUR;
/* Exactly one envelope from path (a file, or a bundle or "-" of one line): *buf (caller frees,
 * NUL-terminated one past *len). What cannot be read is its error (bx_source_read's); a folder,
 * or no envelope or several, is BX_EINVAL. */
int bx_source_read_one(const char *path, const bx_source_opts *o, char **buf, size_t *len,
                       bx_error *err) BX_WUR;
/* 1 for *.intoto.json and *.intoto.jsonl. */
int bx_source_is_certificate_name(const char *name);

/* ---- batches (batch.c) --------------------------------------------------------------
 * The one batch verifier: certificates verified by jobs threads (each with its own clone of
 * the policy) and handed back in input order, on the thread that adds them, to fn. */
typedef struct bx_batch bx_batch;

typedef struct {
    int jobs;  /* threads that verify; 1 (or 0): on the calling thread, one after another */
    int cache; /* keep jansson's small blocks per thread while the batch runs (jansson's
                * allocator is the process's: only for a process doing nothing else) */
} bx_batch_opts;

/* One certificate handed back. */
typedef struct {
    const char *file; /* as added (borrowed) */
    size_t line;
    int unreadable;        /* the input could not be read: res has its certificate.too_large or
                            * certificate.format finding, err says why */
    bx_verify_result *res; /* the verdict; fn may take it (copy it and zero *res) */
    int rc;                /* non-zero: verification could not be done (environment, memory) */
    bx_error err;
    void *tag; /* bx_batch_add's */
} bx_batch_item;

/* A non-zero return stops handing back further items and is returned by bx_batch_close
 * (and by the add that saw it). */
typedef int (*bx_batch_fn)(void *arg, bx_batch_item *it);
/* A skipped input of a folder (bx_source_read's BX_INPUT_SKIPPED): its file and why. */
typedef int (*bx_batch_skip_fn)(void *arg, const char *file, const char *why);

int bx_batch_open(const bx_policy *p, const bx_verify_opts *vo, const bx_batch_opts *bo,
                  bx_batch_fn fn, void *arg, bx_batch **out, bx_error *err) BX_WUR;
/* Every certificate of path (bx_source_read): 0, BX_ENOMEM, or what fn or skip returned. */
int bx_batch_path(bx_batch *b, const char *path, const bx_source_opts *so, bx_batch_skip_fn skip,
                  void *skip_arg) BX_WUR;
/* One envelope (buf: owned from here, NUL-terminated one past len), named file:line; source, when
 * not NULL, binds it to that commit (bx_binding.source) whatever the batch's options. */
int bx_batch_add(bx_batch *b, const char *file, size_t line, char *buf, size_t len,
                 const char *source, void *tag) BX_WUR;
/* An input that could not be read (why), judged and handed back in its place. */
int bx_batch_add_error(bx_batch *b, const char *file, size_t line, const bx_error *why,
                       void *tag) BX_WUR;
/* Hand back what is left, stop the threads, free b. 0, or fn's first non-zero return. */
int bx_batch_close(bx_batch *b);

/* ---- the --seen file: replay protection ------------------------------------------
 * JSON Lines: a header {"boxcertSeen":2,"maxSkewSeconds":N} (or version 1's
 * {"boxcertSeen":1}, read as N = 0), then one {certificateId, bootId, nonce, expiresAt} per
 * certificate that passed, with "run" when the gate named its run (bx_seen_set_run). N is the largest clock skew the file was used with: a
 * certificate passes certificate.expired until expiresAt plus the verifier's skew, so an
 * entry is kept until expiresAt + N and pruned after that by the wall clock (`wall`, the
 * time now, never a verifier-chosen --at time), when the file is written back
 * (atomically). Opened under an exclusive lock on FILE.lock (held until bx_seen_close); a
 * missing file starts empty. An empty, truncated or otherwise corrupted file, or a skew
 * outside 0 to a year, is BX_ECONFIG with file:line. */
typedef struct bx_seen bx_seen;
int bx_seen_open(const char *path, int64_t wall, int64_t skew, bx_seen **out,
                 bx_error *err) BX_WUR;
/* Parse a seen file's bytes (also the fuzz target). entries receives an array, *max_skew
 * (when not NULL) the header's maxSkewSeconds. */
int bx_seen_parse(const char *buf, size_t len, const char *name, json_t **entries,
                  int64_t *max_skew, bx_error *err) BX_WUR;
/* The gate's run (`verify --seen-run RUN`, CI's pipeline or run id): a certificate recorded
 * by this run is admitted again by it (a re-run of the gate), never by another run or by
 * a gate without a run; entries are recorded with "run". RUN is 1 to 128 of
 * A-Z a-z 0-9 . _ : / @ + - (bx_seen_run_ok); else BX_ECONFIG. */
int bx_seen_set_run(bx_seen *s, const char *run, bx_error *err) BX_WUR;
int bx_seen_run_ok(const char *run);
/* Add a certificate.replay finding to res (fail when its certificateId, or its
 * bootId+nonce pair, was seen before, unless the certificate was recorded by the run set
 * with bx_seen_set_run) and, when res then passes, record it. */
int bx_seen_check(bx_seen *s, bx_verify_result *res, bx_error *err) BX_WUR;
/* Write back (when changed) and release the lock. Returns the write's error. */
int bx_seen_close(bx_seen *s, bx_error *err);

/* ---- escaping (escape.c) -------------------------------------------------------------
 * How a string that came from a certificate, an engine or a folder (a file name, a session
 * name, a label) is written into a report: reversibly, so every result is carried whole
 * (docs/ci.md, "Encodings"). A backslash is written "\\" (doubled); a byte that is not part of
 * well-formed UTF-8 "\xNN" (two lowercase hex digits). With BX_ESC_HUMAN (text, github,
 * junit, html) also C0 controls and DEL "\xNN", and C1 controls, noncharacters (U+FDD0 to
 * U+FDEF, U+xFFFE, U+xFFFF), bidirectional controls (U+202A to U+202E, U+2066 to U+2069) and
 * the other invisible format characters (category Cf, U+2028, U+2029) "\u{XXXX}" (upper-case
 * hex, at least four digits); with BX_ESC_QUOTE a double quote as \" too. */
enum { BX_ESC_BYTES = 0, BX_ESC_HUMAN = 1, BX_ESC_QUOTE = 2 };
/* 1 for a code point a human format never shows as itself (controls, noncharacters,
 * bidirectional controls, invisible format characters). */
int bx_codepoint_hidden(uint32_t cp);
/* The character at s (n > 0 bytes left; a byte that is not part of well-formed UTF-8 counts as
 * one): *step is how many bytes it spans; returns the length of its escape, written into out
 * (NUL-terminated), or 0 when it is written as itself. For writers that do not allocate. */
size_t bx_escape_char(const char *s, size_t n, int flags, char out[12], size_t *step);
/* 1 when bx_escape(s, flags) differs from s. */
int bx_escape_needed(const char *s, int flags);
/* The escaped form of s (NULL: ""). Caller frees; NULL only when out of memory. */
char *bx_escape(const char *s, int flags);
/* The bytes an escaped string stands for (caller frees; *len without the NUL, which may also
 * occur inside), or NULL for an escape this encoding does not write, or out of memory. */
char *bx_unescape(const char *s, size_t *len);
/* s as an RFC 3986 relative reference (SARIF's artifactLocation.uri): every byte but the
 * unreserved characters, the sub-delimiters, '@' and '/' as %XX, ':' always (no scheme can be
 * read from it) and the second '/' of a leading "//" (no authority). Percent-decoding gives s
 * back. Caller frees; NULL when out of memory. */
char *bx_uri_path(const char *s);
/* s as one field of the text format: as it is when it is not empty and holds only
 * [A-Za-z0-9-._:/@+,~%], else in double quotes with the human escaping and \" for a quote
 * (a value can never read as a second field). Caller frees; NULL when out of memory. */
char *bx_text_field(const char *s);

#endif
