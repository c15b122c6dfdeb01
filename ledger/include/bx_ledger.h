/* SPDX-License-Identifier: Apache-2.0 */
/* boxcert ledger module: certificates kept as git notes on refs/notes/boxcert (one note
 * per commit, JSON Lines of DSSE envelopes), verified per commit and over a range of
 * commits, and exchanged with remotes by a union merge of notes trees. See docs/ledger.md.
 *
 * The note functions (bx_ledger_note_*, bx_ledger_envelope_merge) are pure: memory in,
 * memory out, no I/O. The repository functions go through libgit2. */
#ifndef BX_LEDGER_H
#define BX_LEDGER_H

#include "bx_verify.h"

#define BX_LEDGER_NOTES_REF "refs/notes/boxcert"
/* Fetched notes land here before they are merged: refs/notes/boxcert-remote/<remote>. */
#define BX_LEDGER_REMOTE_REF_PREFIX "refs/notes/boxcert-remote/"
/* A note blob larger than this is not read (a failed result; a merge refuses it). */
#define BX_LEDGER_NOTE_MAX (64 * 1024 * 1024)
/* Rule of the result reported for a commit that carries no passing certificate. */
#define BX_LEDGER_RULE_MISSING "ledger.missing"
/* Rule of the check that a certificate's source subject names the commit it is on. */
#define BX_LEDGER_RULE_BINDING "certificate.binding"

/* ---- notes: pure functions --------------------------------------------------- */

typedef struct {
    size_t lineno;     /* 1-based physical line number in the note */
    const char *bytes; /* borrowed: the line without its "\n" and final "\r"s;
                        * not NUL-terminated */
    size_t len;
    const bx_envelope *env;  /* borrowed, valid during the call: the parsed envelope, or
                              * NULL when the line is not one (then error says why) */
    char certificate_id[65]; /* hex SHA-256 of the payload; "" when env is NULL */
    bx_error error;
} bx_ledger_note_line;

/* Called once per non-blank line, in order. A non-zero return stops the parse and is
 * returned by bx_ledger_note_parse. */
typedef int (*bx_ledger_note_fn)(const bx_ledger_note_line *line, void *ctx);

/* Split a note (JSON Lines: "\n"-separated, "\r"s at the end of a line dropped, lines of only
 * spaces, tabs and "\r" skipped) and parse each line strictly as a DSSE envelope
 * (bx_envelope_parse: nothing about signatures or payload is checked). A line longer
 * than max_line bytes (0 = BX_ENVELOPE_MAX_DEFAULT) is not parsed: it is reported with
 * env NULL and an error whose message starts "too large". buf need not be
 * NUL-terminated and may hold any bytes. Pure: no I/O, no global state.
 * Returns 0, fn's first non-zero return, or BX_EENV when out of memory. */
int bx_ledger_note_parse(const char *buf, size_t len, size_t max_line, bx_ledger_note_fn fn,
                         void *ctx, bx_error *err) BX_WUR;

/* The union of two notes, in normal form: every envelope line re-serialized compactly
 * (bx_envelope_serialize: the payload bytes and signatures are untouched), every other
 * non-blank line kept byte for byte; duplicates removed; envelopes first, ordered by
 * certificateId then bytes, then the other lines ordered by bytes; each line ends with
 * "\n". The union is commutative, associative and idempotent, so two repositories that
 * merge each other's notes end with the same bytes. Either input may be NULL/0.
 * Caller owns *out (free()); NUL-terminated one past *outlen. */
int bx_ledger_note_union(const char *a, size_t alen, const char *b, size_t blen, char **out,
                         size_t *outlen, bx_error *err) BX_WUR;

enum { BX_LEDGER_UNCHANGED = 1, BX_LEDGER_ADDED = 2, BX_LEDGER_MERGED = 3 };

/* Put one envelope (env, a line or document that bx_envelope_parse accepts; BX_EINVAL
 * otherwise) into a note, the result in normal form (see bx_ledger_note_union):
 * - the same envelope already there (once both are re-serialized): BX_LEDGER_UNCHANGED;
 * - with merge_signatures, an envelope of the same certificateId already there: its
 *   signatures and env's not yet present (compared by signature bytes) are merged into
 *   that line: BX_LEDGER_MERGED, or BX_LEDGER_UNCHANGED when env brings no new one;
 * - otherwise env is added as its own line: BX_LEDGER_ADDED.
 * *status receives the outcome. line/linelen (optional, may be NULL): the envelope line
 * as it now stands in the note. Caller owns *out and *line (free()). */
int bx_ledger_note_put(const char *note, size_t len, const char *env, size_t envlen,
                       int merge_signatures, char **out, size_t *outlen, char **line,
                       size_t *linelen, int *status, bx_error *err) BX_WUR;

/* Merge the signatures of b into a (same payload type and bytes required, else
 * BX_EINVAL): a's signatures, then b's whose bytes a does not hold. *added receives the
 * number taken from b. Caller owns *out (free()), the compact serialization. */
int bx_ledger_envelope_merge(const bx_envelope *a, const bx_envelope *b, char **out, size_t *outlen,
                             size_t *added, bx_error *err) BX_WUR;

/* ---- verification of one certificate on one commit --------------------------- */

/* bx_verify_envelope with o->expect.source set to commit (40 lowercase hex): once the
 * signatures verify, the statement's source subject must name commit, else a failed
 * BX_LEDGER_RULE_BINDING finding (a certificate without a source fails it too). Same
 * return contract as bx_verify_envelope; caller frees res with bx_verify_result_free. */
int bx_ledger_verify_cert(const bx_policy *p, const bx_verify_opts *o, const char *commit,
                          const char *buf, size_t len, bx_verify_result *res, bx_error *err) BX_WUR;

/* Fill res (caller frees with bx_verify_result_free) as the failed result of a commit
 * that carries no passing certificate: certificateId "", no statement, one finding
 * BX_LEDGER_RULE_MISSING (expected the commit, observed ncerts). */
int bx_ledger_missing_result(const char *commit, size_t ncerts, bx_verify_result *res,
                             bx_error *err) BX_WUR;

/* ---- the repository ------------------------------------------------------------ */

typedef struct bx_ledger bx_ledger;

/* Open the git repository at path (or the one path is inside, as git -C does). Owner
 * validation is turned off for this process (GIT_OPT_SET_OWNER_VALIDATION): libgit2
 * runs no hooks and no configured commands, and the ledger only reads and writes
 * objects and refs, so a repository owned by another user is safe to use.
 * Not a repository: BX_ECONFIG. Caller owns *out (bx_ledger_close). */
int bx_ledger_open(const char *path, bx_ledger **out, bx_error *err) BX_WUR;
void bx_ledger_close(bx_ledger *l);

/* Resolve rev (anything git rev-parse takes) to a commit, as 40 hex into out.
 * Unknown or not a commit: BX_ECONFIG. */
int bx_ledger_resolve(bx_ledger *l, const char *rev, char out[41], bx_error *err) BX_WUR;

/* The note of commit (40 hex) on refs/notes/boxcert. *buf NULL and *len 0 when there is
 * none. A note over BX_LEDGER_NOTE_MAX: BX_EINVAL ("too large"). Caller owns *buf
 * (free()), NUL-terminated one past *len. */
int bx_ledger_note_read(bx_ledger *l, const char *commit, char **buf, size_t *len,
                        bx_error *err) BX_WUR;

typedef struct {
    bx_verify_result res;    /* the certificate's verification, binding included */
    int status;              /* BX_LEDGER_ADDED | _MERGED | _UNCHANGED; 0 when not stored */
    char certificate_id[65]; /* copy of res.certificate_id */
} bx_ledger_add_item;

/* Verify each of the n envelopes (bufs[i], lens[i]) with bx_ledger_verify_cert against
 * the commit rev names, and, only when every one passes, record them all in one update
 * of refs/notes/boxcert (bx_ledger_note_put with signature merging; a merged envelope
 * that no longer passes, e.g. over the size cap, is added as its own line instead).
 * The ref is updated by compare-and-swap; a concurrent update (GIT_EMODIFIED,
 * GIT_ELOCKED, GIT_EEXISTS) is retried from a fresh read, at most 64 times, after a
 * small random pause. items[n] (caller-allocated, freed with bx_ledger_add_items_free)
 * receive each verification and outcome.
 * Returns 0 when stored (or all unchanged); BX_EDENIED when a certificate failed
 * (nothing stored); BX_ECONFIG for a bad rev; BX_EIO for repository errors. */
int bx_ledger_add(bx_ledger *l, const bx_policy *p, const bx_verify_opts *o, const char *rev,
                  size_t n, const char *const *bufs, const size_t *lens, bx_ledger_add_item *items,
                  bx_error *err) BX_WUR;
void bx_ledger_add_items_free(bx_ledger_add_item *items, size_t n);

typedef struct {
    size_t commits;      /* commits examined */
    size_t attested;     /* with at least one passing certificate bound to them */
    size_t certificates; /* note lines verified */
    size_t passed;       /* of those, passing */
} bx_ledger_summary;

/* One result: a certificate (lineno >= 1, its line in the note) or, lineno 0, the
 * ledger.missing result of a commit without a passing certificate. res is borrowed for
 * the duration of the call. */
typedef void (*bx_ledger_result_fn)(const char *commit, size_t lineno, const bx_verify_result *res,
                                    void *ctx);

/* Verify the certificates on the commit rev names: fn gets each note line's result,
 * then a ledger.missing result when none passed. sum is filled. Returns 0 (whatever the
 * verdict), BX_ECONFIG for a bad rev, BX_EIO for repository errors, BX_EENV when out of
 * memory. */
int bx_ledger_show(bx_ledger *l, const bx_policy *p, const bx_verify_opts *o, const char *rev,
                   bx_ledger_result_fn fn, void *ctx, bx_ledger_summary *sum, bx_error *err) BX_WUR;

/* The same for every commit of range, with git rev-list semantics: "A..B" (reachable
 * from B, not from A; merges included) or "B" (everything reachable from B);
 * first_parent follows only first parents (git_revwalk_simplify_first_parent).
 * Commits come newest first (topological, then time). "A...B" is BX_ECONFIG. */
int bx_ledger_verify_range(bx_ledger *l, const bx_policy *p, const bx_verify_opts *o,
                           const char *range, int first_parent, bx_ledger_result_fn fn, void *ctx,
                           bx_ledger_summary *sum, bx_error *err) BX_WUR;

enum {
    BX_LEDGER_SYNC_NONE = 0,        /* nothing to do: up to date, or no notes either side */
    BX_LEDGER_SYNC_FASTFORWARD = 1, /* the ref moved forward to the other side's commit */
    BX_LEDGER_SYNC_MERGED = 2,      /* a merge commit with both parents was made */
    BX_LEDGER_SYNC_PUSHED = 3,      /* push: the remote now holds our notes */
};

typedef struct {
    int outcome;          /* BX_LEDGER_SYNC_* */
    int remote_has_notes; /* fetch/push: the remote had refs/notes/boxcert */
    size_t notes_changed; /* merge: notes (commits) whose content changed */
    size_t odd_kept;      /* merge: entries of the other notes tree that are not notes (a
                           * gitlink, a tree or blob not at a note's path): kept untouched */
    char odd_first[96];   /* the first of them: "MODE PATH" */
    size_t attempts;      /* push: rounds needed */
    char before[41];      /* refs/notes/boxcert before ("" when absent) */
    char after[41];       /* and after ("" when absent) */
    char remote[256];     /* fetch/push: the remote as messages may show it (a URL without
                           * the credentials it may carry) */
} bx_ledger_sync;

/* Merge the notes commit that ref theirs points to into refs/notes/boxcert: the union
 * of both notes trees, each note present on both sides merged with
 * bx_ledger_note_union; a commit with both parents (ours, theirs) unless one side
 * already holds everything (then nothing to do, or a fast-forward). Updated by
 * compare-and-swap with retries like bx_ledger_add. what names the other side in the
 * commit message. */
int bx_ledger_merge(bx_ledger *l, const char *theirs, const char *what, bx_ledger_sync *out,
                    bx_error *err) BX_WUR;

/* Fetch the remote's refs/notes/boxcert into refs/notes/boxcert-remote/<remote> and
 * merge it (bx_ledger_merge). remote is a configured remote's name, or a URL or path.
 * An unknown remote is BX_ECONFIG; a transport failure BX_EENV. */
int bx_ledger_fetch(bx_ledger *l, const char *remote, bx_ledger_sync *out, bx_error *err) BX_WUR;

/* Push refs/notes/boxcert to the remote's refs/notes/boxcert. A rejection (the remote
 * moved: not a fast-forward) fetches, merges and retries, at most 8 rounds; after each
 * push the remote's ref is fetched back and must contain ours (some transports update
 * without compare-and-swap), else the round is retried. No local notes: outcome NONE. */
int bx_ledger_push(bx_ledger *l, const char *remote, bx_ledger_sync *out, bx_error *err) BX_WUR;

#endif
