/* SPDX-License-Identifier: Apache-2.0 */
/* boxcert expect module: the launcher's list of the sessions it started (the --expect file)
 * and which certificate is for which session start -- the offline half of the audit. It has
 * no engine code: boxcert-verify links it for `verify --expect`, and the audit (audit/) builds
 * its engine-side rows on the same start matching (docs/audit.md, docs/ci.md). */
#ifndef BX_EXPECT_H
#define BX_EXPECT_H

#include "bx_verify.h"

/* ---- the --expect file ------------------------------------------------------------
 * One JSON document (schema: `boxcert schema expect`):
 *   {"version": 1, "sessions": [{"id": "<64 hex>", "name": "NAME", "startedAt": "T"}, ...]}
 * Each entry names a session by its container Id, its name, or both; startedAt (RFC 3339
 * UTC, a fraction of at most 9 digits kept) optionally pins one start: to the nanosecond when
 * it has a fraction, else to the second. */
#define BX_EXPECT_MAX_SIZE (4 * 1024 * 1024)
#define BX_EXPECT_MAX_SESSIONS 100000

typedef struct {
    char id[65]; /* 64 lowercase hex, or "" when not given */
    char *name;  /* owned; NULL when not given. Without the engine's leading "/" */
    int has_started;
    int64_t started_at; /* seconds since the epoch, when has_started */
    int has_ns;         /* startedAt had a fraction: started_ns pins the nanosecond */
    int32_t started_ns;
} bx_expect_entry;

typedef struct {
    bx_expect_entry *v; /* owned */
    size_t n;
} bx_expect;

/* Parse an expect document from buf (len bytes; a pure function: no I/O). name is used in
 * messages. Strict: one JSON object, duplicate keys, unknown members, NUL and invalid
 * UTF-8 refused; over BX_EXPECT_MAX_SIZE bytes or BX_EXPECT_MAX_SESSIONS entries refused;
 * two entries naming the same Id (or, without an Id, the same name) refused. Errors are
 * BX_ECONFIG with err->where "name:/json/pointer" (or "name:line:col"). On success the
 * caller owns *out (bx_expect_free); on error *out is empty. */
int bx_expect_parse(const char *buf, size_t len, const char *name, bx_expect *out,
                    bx_error *err) BX_WUR;
/* Read and parse the file at path (at most BX_EXPECT_MAX_SIZE bytes, a regular file): every
 * failure is BX_ECONFIG naming the file (a list that cannot be read is the gate's
 * configuration). */
int bx_expect_load(const char *path, bx_expect *out, bx_error *err) BX_WUR;
void bx_expect_free(bx_expect *e);

/* 1 if s is a container name as the engine allows it: [A-Za-z0-9][A-Za-z0-9_.-]*, at most
 * 255 bytes (no leading "/"). */
int bx_container_name_ok(const char *s);

/* ---- session starts (start.c) --------------------------------------------------------
 * The one start matching of the audit and of `verify --expect`: which certificate is for
 * which start of which session. A certificate binds one start: a restart changes
 * State.StartedAt (to the nanosecond) and State.Pid. Starts are compared as (seconds,
 * nanoseconds), never as text: a v2 certificate and the engine know the nanoseconds, a v1
 * certificate only the second; session.pid is compared with State.Pid while the session
 * runs. Members a side does not know are not compared. */
typedef struct {
    const char *container_id; /* 64 hex; NULL: not known (a name-only --expect entry) */
    const char *name;         /* the container's name; NULL: not known */
    const char *engine_id;    /* engine.id; NULL or "": not known */
    int has_started;
    int64_t started_at; /* session.startedAt / State.StartedAt, seconds */
    int has_ns;         /* started_ns known: a v2 certificate, the engine, a fraction given */
    int32_t started_ns; /* 0..999999999 */
    int64_t pid;        /* session.pid / State.Pid; 0: not known (the session is not running) */
} bx_start;

/* What a verified statement records of its session start (strings borrowed from it):
 * nanoseconds from predicate v2 on, session.pid. 0, or BX_EINVAL when session.containerId or
 * session.startedAt is missing or unreadable. */
int bx_start_of(const json_t *statement, bx_start *out, bx_error *err) BX_WUR;

/* How a start got (what a certificate records) relates to the session start want names: */
enum {
    BX_START_NO = 0,     /* another session, engine or start */
    BX_START_SAME = 1,   /* this start: the nanoseconds or the pid agree too, or want pins no
                          * start (then any start of the session) */
    BX_START_SECOND = 2, /* the same second, and nothing else to tell the starts apart (a v1
                          * certificate of a session not running, an --expect start without
                          * a fraction) */
    BX_START_AMBIGUOUS = 3 /* bx_start_takes: BX_START_SECOND, and another start of that
                            * session in that second is known: not taken */
};

/* The relation of got to want: the same container Id when want has one, else the same name;
 * the same engine when both name one; when want pins a start, the same second, the same
 * nanosecond when both know it, the same pid when both know it. got must know its container
 * Id and its start (else BX_START_NO). */
int bx_start_matches(const bx_start *want, const bx_start *got);

/* 1 when known[0..n) holds another start of got's session in got's second: the same container
 * (and engine, when both name one), the same second, and a pid or nanosecond that differs. */
int bx_start_ambiguous(const bx_start *got, const bx_start *known, size_t n);

/* The decision every caller makes: bx_start_matches, and a match to the second only is taken
 * only when no other start in that second is known (known: every verified certificate's start
 * of got's container; got may be among them). Returns BX_START_NO, _SAME, _SECOND (both
 * taken) or _AMBIGUOUS (not taken: the row is unattested). */
int bx_start_takes(const bx_start *want, const bx_start *got, const bx_start *known, size_t n);

/* 1 for BX_START_SAME and BX_START_SECOND: the certificate is for this start. */
#define BX_START_TAKEN(r) ((r) == BX_START_SAME || (r) == BX_START_SECOND)

/* The start an --expect entry names (strings borrowed from e). */
void bx_start_of_entry(const bx_expect_entry *e, bx_start *out);

/* How entry e names the certificate start got whose session carries labels: by Id (and
 * startedAt when given) through bx_start_matches; an entry with a name only also needs every
 * kv ("K=V") in labels, so an old run's certificate with the same name does not count.
 * BX_START_NO, BX_START_SAME or BX_START_SECOND (to be settled with bx_start_ambiguous). */
int bx_expect_names(const bx_expect_entry *e, const bx_start *got, const json_t *labels,
                    const char *const *kv, size_t nkv);

/* ---- the offline check (check.c): `verify --expect` ------------------------------------
 * Every session of the list needs a passing certificate for its start. Results are added in
 * input order (what matching needs is copied; only verified certificates that an entry names
 * are kept); then one row per expected session start, in the list's order, each in the shape
 * of the audit's rows (`boxcert schema report`):
 *   {engine, containerId, name, startedAt, state: null, expected: true,
 *    verdict: compliant | noncompliant | missing, flags [late, duplicate], certificateId,
 *    certificate, duplicates[], findings: [certificate.missing]}
 * compliant: verified certificates for this start, every one passing; noncompliant: one of
 * them fails; missing: no verified certificate names the session. A certificate belongs to
 * the first row that names it. The row's finding certificate.missing fails unless a passing
 * certificate for this start was given. */
typedef struct bx_expect_check bx_expect_check;

/* x and kv (the gate's --expect-label K=V, which a name-only entry's certificate must carry)
 * are borrowed for the check's life. Caller owns *out (bx_expect_check_free). */
int bx_expect_check_new(const bx_expect *x, const char *const *kv, size_t nkv,
                        bx_expect_check **out, bx_error *err) BX_WUR;
/* One result (borrowed; its statement is NULL unless it verified) of the input file:line.
 * BX_ENOMEM is the only error. */
int bx_expect_check_add(bx_expect_check *c, const char *file, size_t line,
                        const bx_verify_result *res, bx_error *err) BX_WUR;
/* The rows (caller owns the array); *failed counts those that are not compliant. */
int bx_expect_check_rows(bx_expect_check *c, json_t **rows, size_t *failed, bx_error *err) BX_WUR;
void bx_expect_check_free(bx_expect_check *c);

#endif
