/* SPDX-License-Identifier: Apache-2.0 */
/* boxcert audit module: the post-run audit (cli.md, `audit`; docs/audit.md).
 *
 * An audit selects the sessions of a run on one or more engines (by label, exact match,
 * running or exited), adds the sessions the launcher says it started (the --expect
 * file: sessions started with --rm vanish from the engine), verifies every certificate
 * in a folder, matches certificates to sessions by containerId and session.startedAt,
 * and gives each session one row: a verdict and flags. The result is one JSON document
 * (the report's model, `boxcert schema report`); cli/ renders it in every format.
 *
 * Use: bx_audit_new, bx_audit_add_engine for each endpoint, bx_audit_scan,
 * bx_audit_check_tasks, bx_audit_load_certs, optionally bx_audit_collect, then
 * bx_audit_report; bx_audit_free. Engines that cannot be reached, or are lost on the
 * way, are recorded (their sessions get the verdict `unreachable` and the report says
 * the audit is incomplete); these functions return an error only when the audit
 * cannot go on at all (out of memory, a configuration error). */
#ifndef BX_AUDIT_H
#define BX_AUDIT_H

#include "bx_attest.h"
#include "bx_expect.h"

/* The --expect file (bx_expect_parse, bx_expect_load) and the matching of certificates to
 * session starts are the expect module's (bx_expect.h): boxcert-verify links it too. */

/* ---- the audit ----------------------------------------------------------------- */

#define BX_AUDIT_TASKS_DEFAULT "/run/containerd/io.containerd.runtime.v2.task/moby"

typedef struct {
    const bx_policy *policy;   /* borrowed; keys and threshold already applied */
    const char *const *labels; /* "K=V" each (borrowed); a session carries every one */
    size_t nlabels;
    const bx_expect *expect; /* borrowed; NULL when none */
    int64_t now;             /* audit time: certificates are judged at it */
    /* Called as the audit goes (phase "engines", "sessions", "certificates", "collect");
     * may be NULL. */
    void (*progress)(void *ud, const char *phase, size_t done, size_t total);
    void *progress_ud;
    /* Sessions inspected and collected at once, each with its own connection to its
     * engine: 0 = BX_AUDIT_JOBS_DEFAULT; 1 = one after another. */
    unsigned jobs;
    /* 1: bx_audit_collect will follow: keep each running session's inspect, the first
     * observation of its collection (one engine request fewer a session). */
    int collect;
    /* the signing keys' files (borrowed): host objects no collected session may reach */
    const char *const *signing_keys;
    size_t nsigning_keys;
} bx_audit_opts;

#define BX_AUDIT_JOBS_DEFAULT 4
#define BX_AUDIT_JOBS_MAX 64

typedef struct bx_audit bx_audit;

/* A new audit (o and what it points to are borrowed for the audit's life). Caller owns
 * *out (bx_audit_free). */
int bx_audit_new(const bx_audit_opts *o, bx_audit **out, bx_error *err) BX_WUR;
void bx_audit_free(bx_audit *a);

/* Add an engine endpoint (NULL = the default of bx_engine_open); flags as for
 * bx_engine_open_ex (BX_ENGINE_INSECURE allows a plain tcp:// engine). Nothing is sent
 * yet. An endpoint bx_engine_open_ex refuses is returned as its error (BX_ECONFIG,
 * BX_EUNSUPPORTED: a configuration error). */
int bx_audit_add_engine(bx_audit *a, const char *url, int flags, bx_error *err) BX_WUR;

/* Ask every engine for its ID (/info), list every container (/containers/json?all=1:
 * those carrying every --label are sessions), find the expected ones, and inspect each
 * session. Two endpoints answering with one engine ID are
 * one engine. An engine that cannot be reached or is lost is recorded, not returned. */
int bx_audit_scan(bx_audit *a, bx_error *err) BX_WUR;

/* Orphans: tasks in the runtime's task folder (containerd's, one sub-folder per task)
 * that no engine of this audit knows. folder NULL means BX_AUDIT_TASKS_DEFAULT, checked
 * only when a Docker engine on a unix socket was reached and the folder exists; an
 * explicit folder is always checked. A folder that cannot be read is BX_EIO (the audit
 * is then incomplete); the check is also recorded in the report. */
int bx_audit_check_tasks(bx_audit *a, const char *folder, bx_error *err) BX_WUR;

/* Read and verify every *.intoto.json and *.intoto.jsonl (one envelope per line) in dir
 * (not recursive), in name order. A certificate that does not verify is kept as
 * `rejected`; only verified certificates are matched to sessions. A file or folder that
 * cannot be read is BX_EIO (BX_ECONFIG when dir is not a folder). */
int bx_audit_load_certs(bx_audit *a, const char *dir, bx_error *err) BX_WUR;

/* For every running session without a verified certificate for its current start:
 * collect one through its engine, sign it with every key (borrowed), write it to
 * dir/<containerId>.intoto.json atomically (dir/<containerId>-<start>.intoto.json when
 * that name is taken; nothing is overwritten), read it back and verify it like the
 * others. A refused collection is recorded on the session's row (finding audit.collect);
 * a write error is returned (BX_EIO) after the other sessions were tried. ttl is the
 * certificates' validity in seconds. */
int bx_audit_collect(bx_audit *a, const char *dir, EVP_PKEY *const *keys, size_t nkeys, int64_t ttl,
                     bx_error *err) BX_WUR;

/* Match, judge and build the report document (schema `boxcert schema report`, audit
 * form). Caller owns *report. *complete is 0 when an engine was unreachable or lost, or
 * the certificates or the task folder could not all be read; *violations counts the rows
 * that are not compliant or are left over, plus the orphans. */
int bx_audit_report(bx_audit *a, json_t **report, int *complete, size_t *violations,
                    bx_error *err) BX_WUR;

/* Check that doc has the shape of an audit report (the members bx_audit_report writes,
 * with their types) so renderers can read it without further checks; used for
 * documents read back from a file. BX_EINVAL with err->where a JSON pointer. */
int bx_audit_report_check(const json_t *doc, bx_error *err) BX_WUR;

#endif
