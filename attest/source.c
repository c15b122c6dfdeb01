/* SPDX-License-Identifier: Apache-2.0 */
/* The session's source revision, checked with libgit2: the commit exists in the repository
 * and whether the checkout differs from it.
 *
 * The checkout may be mounted into the session, which can then write its .git: an index
 * entry flagged skip-worktree or assume-unchanged, a core.worktree, core.fileMode=false or
 * a filter in .git/info/attributes make libgit2's status (and diff) report a changed tree as
 * clean, and no option turns that off. So nothing of what the checkout says about itself is
 * read: the repository is opened at dir only (never searched upwards), its work tree set to
 * dir (core.worktree is applied at open), its configuration replaced by an empty one, the
 * index never read; each path of the commit's tree is opened beneath dir without following
 * links or blocking and its raw bytes hashed as a blob, against the tree's blob id and mode.
 * What was ignored is recorded (source.ignored). Untracked files do not count: they are
 * part of no commit. A bare repository has no work tree: refused, never recorded clean.
 * Before libgit2 opens anything, every file of .git it could read is checked to be a regular
 * file or a folder (bx_git_layout_check): a FIFO there would hang the open. */
#include "bx_attest.h"
#include "bx_gitlayout.h"

#include <errno.h>
#include <fcntl.h>
#include <git2.h>
#include <git2/sys/repository.h>
#include <openssl/evp.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

const char *const bx_source_ignored_names[] = {"assume-unchanged", "config", "core.worktree",
                                               "info-attributes", "skip-worktree", NULL};

static int git_fail(bx_error *err, int code, const char *where, const char *what)
{
    const git_error *e = git_error_last();
    char msg[160];
    size_t i;

    snprintf(msg, sizeof msg, "%s", e && e->message ? e->message : "");
    for (i = 0; msg[i]; i++)
        if ((unsigned char)msg[i] < 0x20)
            msg[i] = ' ';
    return msg[0] ? bx_error_set(err, code, where, "%s: %s", what, msg)
                  : bx_error_set(err, code, where, "%s", what);
}

/* Settings of a repository's own config that change what git compares (BX_SRC_CONFIG). */
static int config_matters(const char *name, const char *value)
{
    static const char *const keys[] = {
        "core.autocrlf",      "core.eol",          "core.safecrlf",    "core.attributesfile",
        "core.excludesfile",  "core.fsmonitor",    "core.checkstat",   "core.trustctime",
        "core.sparsecheckout", "core.untrackedcache", "core.precomposeunicode", NULL};

    int on;

    if (strcmp(name, "core.filemode") == 0 || strcmp(name, "core.symlinks") == 0)
        return !value || git_config_parse_bool(&on, value) != 0 || !on; /* off hides changes */
    if (strcmp(name, "core.ignorecase") == 0)
        return 1;
    if (strncmp(name, "filter.", 7) == 0 || strncmp(name, "diff.", 5) == 0)
        return 1;
    for (size_t i = 0; keys[i]; i++)
        if (strcmp(name, keys[i]) == 0)
            return 1;
    return 0;
}

/* What the checkout's .git says that is not read: its config file and info/attributes, and
 * the flags of its index entries. Best effort: what cannot be read is not reported. */
static unsigned what_is_ignored(git_repository *repo)
{
    const char *gitdir = git_repository_path(repo);
    char path[4096];
    git_config *cfg = NULL;
    git_config_iterator *it = NULL;
    git_config_entry *ce;
    git_index *idx = NULL;
    struct stat st;
    unsigned out = 0;

    snprintf(path, sizeof path, "%sconfig", gitdir);
    if (git_config_open_ondisk(&cfg, path) == 0 && git_config_iterator_new(&it, cfg) == 0) {
        while (git_config_next(&ce, it) == 0) {
            if (strcmp(ce->name, "core.worktree") == 0)
                out |= BX_SRC_CORE_WORKTREE;
            else if (config_matters(ce->name, ce->value))
                out |= BX_SRC_CONFIG;
        }
    }
    git_config_iterator_free(it);
    git_config_free(cfg);
    snprintf(path, sizeof path, "%sinfo/attributes", gitdir);
    if (lstat(path, &st) == 0 && (!S_ISREG(st.st_mode) || st.st_size > 0))
        out |= BX_SRC_INFO_ATTRIBUTES;
    /* the index, only to say what its flags would have hidden */
    snprintf(path, sizeof path, "%sindex", gitdir);
    if (lstat(path, &st) == 0 && S_ISREG(st.st_mode) && git_index_open(&idx, path) == 0) {
        size_t n = git_index_entrycount(idx);
        for (size_t i = 0; i < n; i++) {
            const git_index_entry *e = git_index_get_byindex(idx, i);
            if (e->flags & GIT_INDEX_ENTRY_VALID)
                out |= BX_SRC_ASSUME_UNCHANGED;
            if (e->flags_extended & GIT_INDEX_ENTRY_SKIP_WORKTREE)
                out |= BX_SRC_SKIP_WORKTREE;
        }
    }
    git_index_free(idx);
    return out;
}

typedef struct {
    int root;  /* the checkout, O_DIRECTORY */
    int dirty; /* set at the first difference */
    int rc;    /* an error that stops the walk */
    bx_error *err;
} walk;

/* Open path (relative, '/'-separated) beneath root: every directory without following a
 * link, the last component with flags|O_NOFOLLOW. -1 with errno when not there. */
static int open_beneath(int root, const char *path, int flags)
{
    char part[4096];
    const char *p = path;
    int dfd = dup(root), fd;

    if (dfd < 0)
        return -1;
    for (;;) {
        const char *slash = strchr(p, '/');
        if (!slash)
            break;
        size_t n = (size_t)(slash - p);
        if (n == 0 || n >= sizeof part) {
            close(dfd);
            errno = EINVAL;
            return -1;
        }
        memcpy(part, p, n);
        part[n] = '\0';
        fd = openat(dfd, part, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        close(dfd);
        if (fd < 0)
            return -1;
        dfd = fd;
        p = slash + 1;
    }
    fd = openat(dfd, p, flags | O_NOFOLLOW | O_CLOEXEC);
    close(dfd);
    return fd;
}

/* The blob id of bytes read from fd (git's "blob <size>\0" + content, SHA-1). */
static int hash_fd(int fd, off_t size, unsigned char out[20])
{
    EVP_MD_CTX *md = EVP_MD_CTX_new();
    char hdr[64], buf[65536];
    int n = snprintf(hdr, sizeof hdr, "blob %lld", (long long)size), rc = -1;
    off_t total = 0;
    ssize_t r;
    unsigned len = 0;

    if (!md || EVP_DigestInit_ex(md, EVP_sha1(), NULL) != 1 ||
        EVP_DigestUpdate(md, hdr, (size_t)n + 1) != 1)
        goto out;
    while ((r = read(fd, buf, sizeof buf)) > 0) {
        total += r;
        if (total > size || EVP_DigestUpdate(md, buf, (size_t)r) != 1)
            goto out; /* it grew while read: not what was stat'ed */
    }
    if (r < 0 || total != size || EVP_DigestFinal_ex(md, out, &len) != 1 || len != 20)
        goto out;
    rc = 0;
out:
    EVP_MD_CTX_free(md);
    return rc;
}

/* One path of the tree against the checkout: 1 the same, 0 differs or is not there. */
static int same_as_tree(int root, const char *path, const git_tree_entry *te)
{
    git_filemode_t mode = git_tree_entry_filemode(te);
    const git_oid *want = git_tree_entry_id(te);
    unsigned char got[20];
    struct stat st;
    int fd, same = 0;

    if (mode == GIT_FILEMODE_LINK) {
        char target[4096];
        ssize_t n;
        char *slash = strrchr(path, '/');
        int dfd = root;
        if (slash) {
            char dir[4096];
            snprintf(dir, sizeof dir, "%.*s/.", (int)(slash - path), path);
            /* the directory beneath root, then the link itself, never followed */
            if ((dfd = open_beneath(root, dir, O_RDONLY | O_DIRECTORY)) < 0)
                return 0;
        }
        n = readlinkat(dfd, slash ? slash + 1 : path, target, sizeof target);
        if (dfd != root)
            close(dfd);
        if (n < 0 || (size_t)n >= sizeof target)
            return 0;
        git_oid oid;
        return git_odb_hash(&oid, target, (size_t)n, GIT_OBJECT_BLOB) == 0 &&
               git_oid_equal(&oid, want);
    }
    if ((fd = open_beneath(root, path, O_RDONLY | O_NONBLOCK | O_NOCTTY)) < 0)
        return 0;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))
        goto out;
    /* git keeps one mode bit: executable by its owner */
    if (((st.st_mode & S_IXUSR) != 0) != (mode == GIT_FILEMODE_BLOB_EXECUTABLE))
        goto out;
    same = hash_fd(fd, st.st_size, got) == 0 && memcmp(got, want->id, 20) == 0;
out:
    close(fd);
    return same;
}

static int walk_cb(const char *root, const git_tree_entry *te, void *payload)
{
    walk *w = payload;
    char path[4096];
    git_filemode_t mode = git_tree_entry_filemode(te);

    if (mode == GIT_FILEMODE_TREE || mode == GIT_FILEMODE_COMMIT)
        return 0; /* directories are walked; submodules are not this repository's files */
    if (snprintf(path, sizeof path, "%s%s", root, git_tree_entry_name(te)) >= (int)sizeof path ||
        !same_as_tree(w->root, path, te)) {
        w->dirty = 1;
        return -1; /* one difference is enough: the walk stops */
    }
    return 0;
}

int bx_source_check(const char *dir, const char *rev, int *dirty, unsigned *ignored,
                    bx_error *err)
{
    git_repository *repo = NULL;
    git_commit *commit = NULL;
    git_tree *tree = NULL;
    git_config *empty = NULL;
    git_oid oid;
    walk w = {.root = -1, .err = err};
    int rc = 0, g, bare = 0;

    *dirty = 0;
    if (ignored)
        *ignored = 0;
    if (!rev || strlen(rev) != 40 || !bx_is_lower_hex(rev, 40))
        return bx_error_set(err, BX_ECONFIG, "--source-rev",
                            "must be a full commit id (40 lowercase hex digits)");
    if (git_libgit2_init() < 0)
        return bx_error_set(err, BX_EENV, NULL, "cannot initialise libgit2");
    /* the repository may belong to another user (a CI checkout): accepted, as the caller
     * named it explicitly */
    if (git_libgit2_opts(GIT_OPT_SET_OWNER_VALIDATION, 0) < 0) {
        rc = git_fail(err, BX_EENV, NULL, "cannot configure libgit2");
        goto out;
    }
    /* no file of its .git that libgit2 reads may block it or be other than git's own; a bare
     * repository (bare by what is there, dir/.git absent, not by what its config says) has
     * no work tree to compare: refused, never recorded clean */
    if ((rc = bx_git_layout_check(dir, 0, &bare, err)) != 0)
        goto out;
    if (bare) {
        rc = bx_error_set(err, BX_ECONFIG, dir,
                          "a bare repository: no work tree to compare with the commit (give the "
                          "checkout's own folder)");
        goto out;
    }
    if ((g = git_repository_open_ext(&repo, dir, GIT_REPOSITORY_OPEN_NO_SEARCH, NULL)) < 0) {
        rc = git_fail(err, BX_ECONFIG, dir, "not a git repository (the checkout's own folder)");
        goto out;
    }
    if (git_oid_fromstr(&oid, rev) < 0 || git_commit_lookup(&commit, repo, &oid) < 0) {
        rc = git_fail(err, BX_ECONFIG, rev, "no such commit in the repository");
        goto out;
    }
    if (ignored)
        *ignored = what_is_ignored(repo);
    if (git_repository_set_workdir(repo, dir, 0) < 0 || git_config_new(&empty) < 0 ||
        git_repository_set_config(repo, empty) < 0) {
        rc = git_fail(err, BX_EENV, dir, "cannot configure the repository");
        goto out;
    }
    if (git_commit_tree(&tree, commit) < 0) {
        rc = git_fail(err, BX_EIO, rev, "cannot read the commit's tree");
        goto out;
    }
    if ((w.root = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0) {
        rc = bx_error_errno(err, BX_EIO, dir, "cannot open the checkout");
        goto out;
    }
    g = git_tree_walk(tree, GIT_TREEWALK_PRE, walk_cb, &w);
    if (g < 0 && !w.dirty) {
        rc = git_fail(err, BX_EIO, dir, "cannot compare the checkout with the commit");
        goto out;
    }
    *dirty = w.dirty;
out:
    if (w.root >= 0)
        close(w.root);
    git_config_free(empty);
    git_tree_free(tree);
    git_commit_free(commit);
    git_repository_free(repo);
    git_libgit2_shutdown();
    return rc;
}
