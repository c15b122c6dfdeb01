/* SPDX-License-Identifier: Apache-2.0 */
/* Internal to ledger/: the repository handle and the libgit2 helpers the commands share. */
#ifndef BX_LEDGER_INT_H
#define BX_LEDGER_INT_H

#include "bx_ledger.h"

#include <git2.h>

struct bx_ledger {
    git_repository *repo;
};

/* A ref update lost a race (GIT_EMODIFIED, GIT_ELOCKED, GIT_EEXISTS): read again, retry. */
#define BX__LEDGER_RETRY 1
#define BX__LEDGER_MAX_ATTEMPTS 64

/* bx_error_set with ": <libgit2's last error message>" appended. */
int bxl_git_error(bx_error *err, int code, const char *where, const char *fmt, ...)
    BX_FMT(4, 5);

/* The commit ref points to: *exists 0 (and out zeroed) when the ref does not exist. */
int bxl_ref_id(bx_ledger *l, const char *ref, git_oid *out, int *exists,
                      bx_error *err) BX_WUR;

/* Find the note of target (40 hex) in a notes tree, flat or fanned out ("ab/cdef…"):
 * *found, its blob id and its path (at most 40 hex + 19 slashes + NUL). */
int bxl_tree_find(bx_ledger *l, git_tree *tree, const char *target, int *found,
                         git_oid *blob, char path[64], bx_error *err) BX_WUR;

/* Read a note blob (at most BX_LEDGER_NOTE_MAX bytes, else BX_EINVAL "too large").
 * Caller owns *buf (free()), NUL-terminated one past *len. */
int bxl_blob_read(bx_ledger *l, const git_oid *id, char **buf, size_t *len,
                         bx_error *err) BX_WUR;

typedef struct {
    char path[64]; /* where the note goes in the tree (its current path, or 40 hex) */
    char *buf;     /* owned; NULL: an entry copied as it is (id, mode) */
    size_t len;
    git_oid id;    /* when buf is NULL */
    git_filemode_t mode;
} bxl_update;

/* Write a notes commit: base's tree (an empty tree when base is NULL) with updates
 * upserted, the given parents, msg. *out receives the new commit's id. */
int bxl_write_commit(bx_ledger *l, git_commit *base, const bxl_update *updates,
                            size_t nupdates, git_commit **parents, size_t nparents, const char *msg,
                            git_oid *out, bx_error *err) BX_WUR;

/* Compare-and-swap refs/notes/boxcert from expected (NULL: the ref must not exist) to
 * new. Returns 0, BX__LEDGER_RETRY when another writer got there first, or BX_EIO. */
int bxl_ref_cas(bx_ledger *l, const git_oid *expected, const git_oid *new_id,
                       const char *msg, bx_error *err) BX_WUR;

/* Sleep a small random time that grows with attempt (1 ms up to 64 ms). */
void bxl_backoff(unsigned attempt);
/* The error once BX__LEDGER_MAX_ATTEMPTS rounds all lost to concurrent writers (BX_EIO). */
int bxl_gave_up(bx_error *err);

#endif
