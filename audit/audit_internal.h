/* SPDX-License-Identifier: Apache-2.0 */
/* audit module internals: the audit's state between its phases. Not installed. */
#ifndef BX_AUDIT_INTERNAL_H
#define BX_AUDIT_INTERNAL_H

#include "bx_audit.h"

#include <pthread.h>

typedef struct {
    char *endpoint;   /* as given, or the default's URL */
    bx_engine *eng;   /* owned */
    char id[192];     /* /info ID, "" when not known */
    char name[256];   /* /info Name (the engine's host name), "" when not known */
    int local;        /* a unix:// socket */
    int host_daemon;  /* local, and its peer (SO_PEERCRED) is a dockerd of this host: it shares
                       * this host's containerd (bxu_host_daemon) */
    int docker;       /* /version does not name Podman */
    int reachable;    /* /info answered */
    int lost;         /* unreachable, or failed after answering */
    long alias_of;    /* index of the engine it was proven to be (bxu_same_engine), or -1 */
    int same_by;      /* how: BXU_SAME_SOCKET or BXU_SAME_LISTINGS (alias_of >= 0) */
    int conflict;     /* it shares an earlier engine's ID, yet differs from it */
    size_t conflict_of; /* that engine, when conflict */
    char error[400];  /* why it was unreachable or lost */
    int flags;        /* as given to bx_audit_add_engine */
    bx_engine **more; /* owned: jobs - 1 more handles (workers 1...), NULL until opened */
    size_t nmore;
    json_t *all;      /* owned: /containers/json?all=1 */
} bxu_engine;

enum { BXU_SAME_SOCKET = 1, BXU_SAME_LISTINGS = 2 };
/* Rounds of listings at most, per endpoint, to prove two endpoints of one ID one engine. */
#define BXU_SAME_ROUNDS 3

typedef enum { BXU_PRESENT, BXU_LOST, BXU_GONE } bxu_where;

enum { BXU_V_COMPLIANT, BXU_V_NONCOMPLIANT, BXU_V_UNATTESTED, BXU_V_MISSING, BXU_V_UNREACHABLE };
enum { BXU_F_LATE = 1, BXU_F_LEFTOVER = 2, BXU_F_DUPLICATE = 4 };

/* A session seen on an engine (present: inspected; lost: listed, its engine was lost
 * before the inspect; gone: listed, removed before the inspect). */
typedef struct {
    size_t engine; /* index into engines */
    char id[65];
    char *name;     /* owned; without the leading "/" */
    char state[24]; /* State.Status (present) or the listing's State */
    int has_started;
    int64_t started_at; /* State.StartedAt, seconds */
    int32_t started_ns; /* ... and its nanoseconds */
    int64_t pid;        /* State.Pid; 0 when not running */
    bxu_where where;
    int expected;           /* an --expect entry names it */
    int selected;           /* carries every --label (checked on the inspect) */
    int dropped;            /* listed with the label filter, but its inspect lacks a label */
    json_t *audit_findings; /* owned: audit.* findings added on the way (e.g. audit.collect) */
    /* owned: the inspect of a running session, kept for --collect (o.collect) */
    json_t *inspect;
    char *inspect_raw;
    size_t inspect_raw_len;
} bxu_session;

/* A certificate read from --certs. */
typedef struct {
    char *file;           /* owned: the path, "path:line" for a bundle line */
    bx_verify_result res; /* statement != NULL: verified */
    int unreadable;       /* could not be read at all (I/O) */
    /* from the verified statement (borrowed from res.statement) */
    const char *container_id, *name, *engine_id;
    const json_t *labels;
    bx_start start; /* its session start (bx_start_of), when ok_times */
    int64_t started_at, issued_at;
    int ok_times;     /* startedAt and issuedAt parsed */
    long row;         /* the row it was matched to, or -1 */
    json_t *findings; /* owned: res.findings plus certificate.collection_delay */
    int pass;         /* no fail or unknown in findings */
    int late;         /* its certificate.collection_delay failed */
} bxu_cert;

/* One row of the report: a session start. */
typedef struct {
    long session;     /* index into sessions, or -1 (known only from --expect) */
    long expect;      /* the --expect entry behind a row of a gone session, or -1 */
    char engine[192]; /* engine ID ("" unknown) */
    char id[65];      /* container Id ("" unknown) */
    const char *name; /* borrowed (session, expect entry or certificate); NULL unknown */
    int has_started;
    int64_t started_at;
    int has_ns; /* started_ns known */
    int32_t started_ns;
    const char *state; /* borrowed; NULL when not on an engine */
    int expected;
    size_t *certs; /* owned: indices into certs, by issuedAt */
    size_t ncerts;
    size_t ambiguous; /* certificates naming this start only to the second while another
                       * start in that second is known (bx_start_takes): not taken */
    int verdict, flags;
    long primary; /* the certificate whose findings the row shows, or -1 */
} bxu_row;

struct bx_audit {
    bx_audit_opts o;
    unsigned jobs;      /* o.jobs, defaulted */
    pthread_mutex_t mu; /* engines' lost state, progress, while workers run */
    int mu_ok;          /* mu initialised */
    int64_t max_delay; /* certificate.maxCollectionDelay in seconds, -1 when absent */
    bxu_engine *engines;
    size_t nengines;
    bxu_session *sessions;
    size_t nsessions;
    json_t *session_index; /* owned: "<engine index>:<Id>" -> index into sessions */
    bxu_cert *certs;
    size_t ncerts;
    char *certs_dir;      /* owned */
    int certs_incomplete; /* a file could not be read */
    json_t *orphans;      /* owned: [{id, pid, folder}] */
    char *tasks_folder;   /* owned: the folder checked, NULL when not checked */
    int tasks_incomplete; /* it could not be read */
    bxu_row *rows;
    size_t nrows;
};

/* Grow *v (of *n elements of size sz) by one zeroed element; returns it or NULL. */
void *bxu_grow(void *v, size_t *n, size_t sz);

/* Run fn(a, worker, item, ud) for every item < n on up to a->jobs threads (the caller's
 * is worker 0); items are taken in order, each by one worker. Engine handles for
 * workers > 0 are opened first (bxu_engine_for). Returns when every item is done. */
typedef void (*bxu_job)(bx_audit *a, unsigned worker, size_t item, void *ud);
void bxu_parallel(bx_audit *a, size_t n, bxu_job fn, void *ud);
/* The handle of engine i for a worker (its own connection). */
bx_engine *bxu_engine_for(bx_audit *a, size_t i, unsigned worker);
/* Engine i is lost (locked read). */
int bxu_engine_is_lost(bx_audit *a, size_t i);
/* The progress callback, serialised. */
void bxu_progress(bx_audit *a, const char *phase, size_t done, size_t total);

/* 1 when the unix socket at path is served by a dockerd process of this host (its peer's
 * pid, SO_PEERCRED, seen in this pid namespace, named dockerd): its tasks are this host's
 * containerd's. 0 otherwise (another process, a socket forwarded from elsewhere). */
int bxu_host_daemon(const char *path);

/* The engines phase (engines.c). */
int bxu_scan(bx_audit *a, bx_error *err);
/* Mark engine i lost with a reason (err's text). */
void bxu_engine_lost(bx_audit *a, size_t i, const bx_error *err);

/* The certificates phase (certs.c): verify buf into *res with policy p (NULL: the audit's; a thread
 * verifying beside others passes a copy of its own: findings take references to the
 * policy's values), then append the result (*res is taken over, also on error). */
int bxu_verify_cert(const bx_audit *a, const bx_policy *p, const char *buf, size_t len,
                    bx_verify_result *res, bx_error *err);
int bxu_append_cert(bx_audit *a, const char *file, bx_verify_result *res, bx_error *err);

/* From a certificate's verification result (res; res.statement NULL when it did not
 * verify): the fields matching uses, certificate.collection_delay, pass. */
void bxu_cert_judge(const bx_audit *a, bxu_cert *c);

/* Match certificates to sessions and build the rows (match.c). Idempotent. */
int bxu_match(bx_audit *a, bx_error *err);

/* "leftover", "late", ... and verdict names. */
const char *bxu_verdict_name(int v);

/* A JSON string of s; one that is not valid UTF-8 is written with the byte escaping
 * (bx_escape, BX_ESC_BYTES). Never NULL unless out of memory. */
json_t *bxu_string(const char *s);
/* A file name as the JSON reports carry it: always the byte escaping (a backslash doubled, a
 * byte that is not UTF-8 as \xNN), so bx_unescape gives the name back (docs/ci.md). */
json_t *bxu_file(const char *s);

/* 1 when labels carries every --label of the audit (exact key and value). */
int bxu_carries_labels(const bx_audit *a, const json_t *labels);

#endif
