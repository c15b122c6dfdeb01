/* SPDX-License-Identifier: Apache-2.0 */
/* ledger fetch and push: libgit2 has no notes merge, so notes trees are merged here as a
 * union (bx_ledger_note_union per note) and committed with both parents. */
#include "ledger_internal.h"

#include <string.h>

typedef struct {
    bxl_update *v;
    size_t n, cap;
} update_list;

static void updates_free(update_list *u)
{
    for (size_t i = 0; i < u->n; i++)
        free(u->v[i].buf); /* NULL for an entry copied as it is */
    free(u->v);
    memset(u, 0, sizeof *u);
}

static bxl_update *update_new(update_list *u, bx_error *err)
{
    if (u->n == u->cap) {
        size_t cap = u->cap ? u->cap * 2 : 16;
        bxl_update *v = realloc(u->v, cap * sizeof *v);
        if (!v) {
            bx_error_set(err, BX_ENOMEM, NULL, "out of memory");
            return NULL;
        }
        u->v = v;
        u->cap = cap;
    }
    memset(&u->v[u->n], 0, sizeof u->v[u->n]);
    return &u->v[u->n++];
}

/* A note's path: two-hex-digit folders, then the rest of 40 hex digits as a blob. The
 * commit it is for into hex. */
static int note_path(const char *path, char hex[41])
{
    size_t n = 0;

    for (const char *p = path; *p; p++) {
        if (*p == '/') {
            if (n % 2 || p == path || p[-1] == '/')
                return 0;
            continue;
        }
        if (n == 40 || !((*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'f')))
            return 0;
        hex[n++] = *p;
    }
    hex[n] = '\0';
    return n == 40;
}

typedef struct {
    bx_ledger *l;
    git_tree *base;
    update_list *u;
    bx_ledger_sync *s;
    bx_error *err;
    int rc;
} merge_walk;

/* One entry of the other notes tree: a note merged, anything else kept untouched (copied
 * when base lacks its path) and counted. */
static int merge_entry(const char *root, const git_tree_entry *te, void *payload)
{
    merge_walk *w = payload;
    git_filemode_t mode = git_tree_entry_filemode(te);
    char path[256], hex[41], found_path[64];
    git_oid blob_b;
    char *a = NULL, *b = NULL, *m = NULL;
    size_t alen = 0, blen = 0, mlen = 0;
    int found = 0;

    if (snprintf(path, sizeof path, "%s%s", root, git_tree_entry_name(te)) >= (int)sizeof path)
        path[sizeof path - 1] = '\0';
    if (mode == GIT_FILEMODE_TREE)
        return 0; /* walked into */
    if ((mode != GIT_FILEMODE_BLOB && mode != GIT_FILEMODE_BLOB_EXECUTABLE) ||
        !note_path(path, hex)) {
        git_tree_entry *there = NULL;
        if (!w->s->odd_kept++)
            snprintf(w->s->odd_first, sizeof w->s->odd_first, "%06o %.80s", (unsigned)mode,
                     path);
        if (git_tree_entry_bypath(&there, w->base, path) == 0) {
            git_tree_entry_free(there); /* base has it: left as it is */
            return 0;
        }
        bxl_update *x = strlen(path) < sizeof x->path ? update_new(w->u, w->err) : NULL;
        if (!x) {
            if (strlen(path) >= 64) /* too long to copy: left out, but counted and reported */
                return 0;
            w->rc = BX_ENOMEM;
            return -1;
        }
        memcpy(x->path, path, strlen(path) + 1); /* shorter than x->path: checked above */
        git_oid_cpy(&x->id, git_tree_entry_id(te));
        x->mode = mode;
        return 0;
    }
    if ((w->rc = bxl_tree_find(w->l, w->base, hex, &found, &blob_b, found_path, w->err)) != 0)
        return -1;
    if (found && git_oid_equal(&blob_b, git_tree_entry_id(te)))
        return 0;
    if ((w->rc = bxl_blob_read(w->l, git_tree_entry_id(te), &a, &alen, w->err)) != 0 ||
        (found && (w->rc = bxl_blob_read(w->l, &blob_b, &b, &blen, w->err)) != 0) ||
        (w->rc = bx_ledger_note_union(b, blen, a, alen, &m, &mlen, w->err)) != 0)
        goto fail;
    if (found && mlen == blen && memcmp(m, b, blen) == 0) {
        free(m);
    } else {
        bxl_update *x = update_new(w->u, w->err);
        if (!x) {
            w->rc = BX_ENOMEM;
            free(m);
            goto fail;
        }
        snprintf(x->path, sizeof x->path, "%s", found ? found_path : hex);
        x->buf = m;
        x->len = mlen;
    }
    free(a);
    free(b);
    return 0;
fail:
    free(a);
    free(b);
    return -1;
}

/* The notes of `other` merged into `base`'s tree: one update per note whose content
 * changes. Entries of other's tree that are not notes (a gitlink, a blob or tree not at a
 * note's path) are kept untouched and counted in s->odd_kept: one such entry pushed to the
 * shared notes ref must not stop every fetch and push. */
static int merge_updates(bx_ledger *l, git_commit *base, git_commit *other, update_list *u,
                         bx_ledger_sync *s, bx_error *err)
{
    git_tree *tree = NULL, *theirs = NULL;
    merge_walk w = {.l = l, .u = u, .s = s, .err = err};
    int rc = 0, g;

    if (git_commit_tree(&tree, base) < 0 || git_commit_tree(&theirs, other) < 0) {
        rc = bxl_git_error(err, BX_EIO, BX_LEDGER_NOTES_REF, "cannot read the notes");
        goto out;
    }
    w.base = tree;
    g = git_tree_walk(theirs, GIT_TREEWALK_PRE, merge_entry, &w);
    if (w.rc != 0)
        rc = w.rc;
    else if (g < 0)
        rc = bxl_git_error(err, BX_EIO, BX_LEDGER_NOTES_REF, "cannot read the notes");
out:
    git_tree_free(theirs);
    git_tree_free(tree);
    return rc;
}

static int descends(bx_ledger *l, const git_oid *a, const git_oid *b, int *out, bx_error *err)
{
    int g = git_graph_descendant_of(l->repo, a, b);
    if (g < 0)
        return bxl_git_error(err, BX_EIO, BX_LEDGER_NOTES_REF, "cannot compare histories");
    *out = g;
    return 0;
}

static int merge_round(bx_ledger *l, const git_oid *theirs, const char *what, bx_ledger_sync *s,
                       bx_error *err)
{
    git_oid ours, id;
    git_commit *oc = NULL, *tc = NULL;
    update_list u = {0};
    int exists = 0, ours_has_theirs = 0, theirs_has_ours = 0, rc;

    if ((rc = bxl_ref_id(l, BX_LEDGER_NOTES_REF, &ours, &exists, err)) != 0)
        return rc;
    if (exists)
        git_oid_tostr(s->before, sizeof s->before, &ours);
    else
        s->before[0] = '\0';
    snprintf(s->after, sizeof s->after, "%s", s->before);
    s->notes_changed = 0;
    if (!exists) {
        rc = bxl_ref_cas(l, NULL, theirs, "boxcert ledger: fast-forward", err);
        if (rc == 0) {
            s->outcome = BX_LEDGER_SYNC_FASTFORWARD;
            git_oid_tostr(s->after, sizeof s->after, theirs);
        }
        return rc;
    }
    if (git_oid_equal(&ours, theirs) ||
        ((rc = descends(l, &ours, theirs, &ours_has_theirs, err)) == 0 && ours_has_theirs)) {
        s->outcome = BX_LEDGER_SYNC_NONE;
        return 0;
    }
    if (rc || (rc = descends(l, theirs, &ours, &theirs_has_ours, err)) != 0)
        return rc;
    if (git_commit_lookup(&oc, l->repo, &ours) < 0 || git_commit_lookup(&tc, l->repo, theirs) < 0) {
        rc =
            bxl_git_error(err, BX_EIO, BX_LEDGER_NOTES_REF, "cannot read the notes commits");
        goto out;
    }
    /* Build on theirs when it already holds ours (a fast-forward if ours adds nothing);
     * else on ours. Either way nothing of either side is dropped. */
    git_commit *base = theirs_has_ours ? tc : oc, *other = theirs_has_ours ? oc : tc;
    s->odd_kept = 0;
    s->odd_first[0] = '\0';
    if ((rc = merge_updates(l, base, other, &u, s, err)) != 0)
        goto out;
    for (size_t i = 0; i < u.n; i++)
        s->notes_changed += u.v[i].buf != NULL;
    if (theirs_has_ours && u.n == 0) {
        rc = bxl_ref_cas(l, &ours, theirs, "boxcert ledger: fast-forward", err);
        if (rc == 0) {
            s->outcome = BX_LEDGER_SYNC_FASTFORWARD;
            git_oid_tostr(s->after, sizeof s->after, theirs);
        }
        goto out;
    }
    git_commit *parents[2] = {oc, tc};
    char msg[300];
    snprintf(msg, sizeof msg, "Notes merged by 'boxcert ledger' from %s\n", what);
    if ((rc = bxl_write_commit(l, base, u.v, u.n, parents, 2, msg, &id, err)) != 0)
        goto out;
    rc = bxl_ref_cas(l, &ours, &id, "boxcert ledger: merge", err);
    if (rc == 0) {
        s->outcome = BX_LEDGER_SYNC_MERGED;
        git_oid_tostr(s->after, sizeof s->after, &id);
    }
out:
    updates_free(&u);
    git_commit_free(oc);
    git_commit_free(tc);
    return rc;
}

int bx_ledger_merge(bx_ledger *l, const char *theirs_ref, const char *what, bx_ledger_sync *out,
                    bx_error *err)
{
    git_oid theirs;
    int exists = 0, rc;
    out->outcome = BX_LEDGER_SYNC_NONE;
    if ((rc = bxl_ref_id(l, theirs_ref, &theirs, &exists, err)) != 0)
        return rc;
    if (!exists)
        return bx_error_set(err, BX_ENOTFOUND, theirs_ref, "no such reference");
    for (unsigned attempt = 0; attempt < BX__LEDGER_MAX_ATTEMPTS; attempt++) {
        rc = merge_round(l, &theirs, what, out, err);
        if (rc != BX__LEDGER_RETRY)
            return rc;
        bxl_backoff(attempt);
    }
    return bxl_gave_up(err);
}

/* ---- remotes ------------------------------------------------------------------- */

typedef struct {
    int cred_tries;
    char rejected[256]; /* push: the remote's reason for refusing our ref, "" if none */
    int saw_remote;     /* push negotiation ran: remote_old is the remote's value */
    git_oid remote_old;
} remote_state;

static int credentials(git_credential **out, const char *url, const char *user,
                       unsigned int allowed, void *payload)
{
    remote_state *st = payload;
    (void)url;
    /* One attempt only: a refused credential must not loop. ssh through the agent; the
     * platform's default (Negotiate) for http; anything else is the caller's to set up. */
    if (st->cred_tries++ > 0)
        return GIT_PASSTHROUGH;
    if (allowed & GIT_CREDENTIAL_SSH_KEY)
        return git_credential_ssh_key_from_agent(out, user ? user : "git");
    if (allowed & GIT_CREDENTIAL_DEFAULT)
        return git_credential_default_new(out);
    return GIT_PASSTHROUGH;
}

static int push_status(const char *refname, const char *status, void *payload)
{
    remote_state *st = payload;
    if (status)
        snprintf(st->rejected, sizeof st->rejected, "%s: %s", refname, status);
    return 0;
}

static int push_negotiation(const git_push_update **updates, size_t len, void *payload)
{
    remote_state *st = payload;
    for (size_t i = 0; i < len; i++) {
        if (strcmp(updates[i]->dst_refname, BX_LEDGER_NOTES_REF) == 0) {
            git_oid_cpy(&st->remote_old, &updates[i]->src);
            st->saw_remote = 1;
        }
    }
    return 0;
}

static int looks_like_url(const char *s)
{
    return strchr(s, '/') != NULL || strchr(s, ':') != NULL || strcmp(s, ".") == 0;
}

/* name with the credentials of a URL ("https://user:token@host/…") left out, into out:
 * what messages, commit messages and ref names may show. */
static void public_name(const char *name, char *out, size_t n)
{
    const char *scheme = strstr(name, "://"), *host = scheme ? scheme + 3 : NULL;
    const char *at = host ? strchr(host, '@') : NULL, *slash = host ? strchr(host, '/') : NULL;
    if (at && (!slash || at < slash))
        snprintf(out, n, "%.*s%s", (int)(host - name), name, at + 1);
    else
        snprintf(out, n, "%s", name);
}

/* The remote by name, else (a URL or a path) anonymous; the temporary ref for it. shown
 * receives the name as messages may show it. */
static int remote_open(bx_ledger *l, const char *name, git_remote **out, char tmpref[256],
                       char shown[256], bx_error *err)
{
    public_name(name, shown, 256);
    int g = git_remote_lookup(out, l->repo, name);
    if (g == 0) {
        snprintf(tmpref, 256, "%s%s", BX_LEDGER_REMOTE_REF_PREFIX, name);
        int valid = 0;
        if (git_reference_name_is_valid(&valid, tmpref) == 0 && valid && strlen(tmpref) < 250)
            return 0;
    } else if (g != GIT_ENOTFOUND && g != GIT_EINVALIDSPEC) {
        return bxl_git_error(err, BX_ECONFIG, shown, "cannot read the remote");
    } else if (!looks_like_url(name)) {
        return bx_error_set(err, BX_ECONFIG, shown, "no such remote (and not a URL or path)");
    } else if (git_remote_create_anonymous(out, l->repo, name) < 0) {
        return bxl_git_error(err, BX_ECONFIG, shown, "not a usable remote URL");
    }
    /* A URL, or a name that cannot be part of a ref: name the ref after its digest
     * (without credentials: one ref per place, not per token). */
    char hex[65];
    bx_sha256_hex(shown, strlen(shown), hex);
    snprintf(tmpref, 256, "%surl-%.16s", BX_LEDGER_REMOTE_REF_PREFIX, hex);
    return 0;
}

/* Fetch the remote's refs/notes/boxcert into tmpref (removed first, so a stale copy is
 * never merged). *has is 0 when the remote has no notes. */
static int fetch_only(bx_ledger *l, git_remote *remote, const char *name, const char *tmpref,
                      int *has, bx_error *err)
{
    char spec[300];
    char *specs[1] = {spec};
    git_strarray refspecs = {specs, 1};
    git_fetch_options fo;
    remote_state st = {0};
    git_reference *ref = NULL;
    git_oid id;

    *has = 0;
    if (git_reference_lookup(&ref, l->repo, tmpref) == 0) {
        int g = git_reference_delete(ref);
        git_reference_free(ref);
        if (g < 0)
            return bxl_git_error(err, BX_EIO, tmpref, "cannot remove the reference");
    }
    snprintf(spec, sizeof spec, "+%s:%s", BX_LEDGER_NOTES_REF, tmpref);
    git_fetch_options_init(&fo, GIT_FETCH_OPTIONS_VERSION);
    fo.callbacks.credentials = credentials;
    fo.callbacks.payload = &st;
    fo.update_fetchhead = 0;
    fo.download_tags = GIT_REMOTE_DOWNLOAD_TAGS_NONE;
    fo.prune = GIT_FETCH_NO_PRUNE;
    if (git_remote_fetch(remote, &refspecs, &fo, "boxcert ledger fetch") < 0)
        return bxl_git_error(err, BX_EENV, name, "fetch failed");
    return bxl_ref_id(l, tmpref, &id, has, err);
}

int bx_ledger_fetch(bx_ledger *l, const char *name, bx_ledger_sync *out, bx_error *err)
{
    git_remote *remote = NULL;
    char tmpref[256], shown[256];
    int has = 0, rc;
    memset(out, 0, sizeof *out);
    if ((rc = remote_open(l, name, &remote, tmpref, shown, err)) != 0)
        return rc;
    memcpy(out->remote, shown, sizeof out->remote);
    if ((rc = fetch_only(l, remote, shown, tmpref, &has, err)) == 0) {
        out->remote_has_notes = has;
        if (has) {
            rc = bx_ledger_merge(l, tmpref, shown, out, err);
        } else {
            git_oid id;
            int exists = 0;
            if ((rc = bxl_ref_id(l, BX_LEDGER_NOTES_REF, &id, &exists, err)) == 0 && exists)
                git_oid_tostr(out->before, sizeof out->before, &id);
            memcpy(out->after, out->before, sizeof out->after);
        }
    }
    git_remote_free(remote);
    return rc;
}

#define PUSH_ROUNDS 8

int bx_ledger_push(bx_ledger *l, const char *name, bx_ledger_sync *out, bx_error *err)
{
    git_remote *remote = NULL;
    char tmpref[256], shown[256], last[320] = "";
    int rc;
    memset(out, 0, sizeof *out);
    if ((rc = remote_open(l, name, &remote, tmpref, shown, err)) != 0)
        return rc;
    memcpy(out->remote, shown, sizeof out->remote);
    for (unsigned round = 0; round < PUSH_ROUNDS; round++) {
        char spec[] = "refs/notes/boxcert:refs/notes/boxcert";
        char *specs[1] = {spec};
        git_strarray refspecs = {specs, 1};
        git_push_options po;
        remote_state st = {0};
        git_oid ours, back;
        int exists = 0, has = 0, contains = 0;

        out->attempts = round + 1;
        if ((rc = bxl_ref_id(l, BX_LEDGER_NOTES_REF, &ours, &exists, err)) != 0)
            goto out;
        if (!exists) {
            out->outcome = BX_LEDGER_SYNC_NONE;
            goto out;
        }
        git_oid_tostr(out->after, sizeof out->after, &ours);
        git_push_options_init(&po, GIT_PUSH_OPTIONS_VERSION);
        po.callbacks.credentials = credentials;
        po.callbacks.push_update_reference = push_status;
        po.callbacks.push_negotiation = push_negotiation;
        po.callbacks.payload = &st;
        int g = git_remote_push(remote, &refspecs, &po);
        if (round == 0 && st.saw_remote) {
            out->remote_has_notes = !git_oid_is_zero(&st.remote_old);
            if (out->remote_has_notes)
                git_oid_tostr(out->before, sizeof out->before, &st.remote_old);
        }
        if (g < 0 && g != GIT_ENONFASTFORWARD) {
            rc = bxl_git_error(err, BX_EENV, shown, "push failed");
            goto out;
        }
        if (g == 0 && !st.rejected[0]) {
            /* Confirm: some transports (the local one) update the remote's ref without
             * compare-and-swap, so a concurrent pusher may have replaced ours. */
            if ((rc = fetch_only(l, remote, shown, tmpref, &has, err)) != 0)
                goto out;
            if (has) {
                if ((rc = bxl_ref_id(l, tmpref, &back, &has, err)) != 0)
                    goto out;
                contains = git_oid_equal(&back, &ours);
                if (!contains && (rc = descends(l, &back, &ours, &contains, err)) != 0)
                    goto out;
            }
            if (contains) {
                out->outcome = st.saw_remote && git_oid_equal(&st.remote_old, &ours)
                                   ? BX_LEDGER_SYNC_NONE
                                   : BX_LEDGER_SYNC_PUSHED;
                goto out;
            }
        }
        /* The remote moved (or lost our update): take its notes in, then push again. */
        bx_ledger_sync m;
        if (st.rejected[0])
            snprintf(last, sizeof last, " (last refusal: %s)", st.rejected);
        else if (g == GIT_ENONFASTFORWARD)
            snprintf(last, sizeof last, " (last: not a fast-forward)");
        if ((rc = fetch_only(l, remote, shown, tmpref, &has, err)) != 0)
            goto out;
        memset(&m, 0, sizeof m);
        if (has && (rc = bx_ledger_merge(l, tmpref, shown, &m, err)) != 0)
            goto out;
        if (m.odd_kept && !out->odd_kept)
            memcpy(out->odd_first, m.odd_first, sizeof out->odd_first);
        out->odd_kept += m.odd_kept;
        bxl_backoff(round);
    }
    rc = bx_error_set(err, BX_EENV, shown,
                      "the remote kept moving or refusing refs/notes/boxcert: gave up after %d "
                      "rounds%s",
                      PUSH_ROUNDS, last);
out:
    git_remote_free(remote);
    return rc;
}
