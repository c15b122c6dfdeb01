/* SPDX-License-Identifier: Apache-2.0 */
/* One resolution of every path a command reads or writes, and the check that no output is
 * another output or an input (paths.h). Files are compared by what they are (st_dev and
 * st_ino), never by how they were written; a file not yet there by its folder's identity and
 * its name. */
#include "paths.h"
#include "cli.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define LINK_HOPS 40  /* as the kernel's own limit on symlinks in one lookup */
#define UP_MAX 100000 /* folders climbed to see whether one is below another */

/* The folder of path (".", "/" or its words before the last name, trailing slashes dropped;
 * the caller frees) and, in *base, where its last name starts in path (it may end with
 * slashes). NULL when out of memory. */
static char *split(const char *path, const char **base)
{
    size_t n = strlen(path), b, d;
    while (n > 1 && path[n - 1] == '/')
        n--;
    for (b = n; b > 0 && path[b - 1] != '/'; b--)
        ;
    *base = path + b;
    if (b == 0)
        return strdup(".");
    for (d = b - 1; d > 0 && path[d - 1] == '/'; d--)
        ;
    return d == 0 ? strdup("/") : strndup(path, d);
}

static void identify(const char *path, cli_file_id *id, int hops)
{
    struct stat st;
    const char *base;
    char *dir = NULL, *next = NULL, target[PATH_MAX + 1];
    ssize_t n;

    memset(id, 0, sizeof *id);
    if (stat(path, &st) == 0) {
        id->known = id->exists = 1;
        id->dev = st.st_dev;
        id->ino = st.st_ino;
        return;
    }
    if (!(dir = split(path, &base)))
        return;
    if (lstat(path, &st) == 0 && S_ISLNK(st.st_mode)) {
        /* a dangling link: what writing through it would create */
        if (hops > 0 && (n = readlink(path, target, sizeof target - 1)) > 0) {
            target[n] = '\0';
            if (target[0] == '/' ? (next = strdup(target)) != NULL
                                 : asprintf(&next, "%s/%s", dir, target) >= 0)
                identify(next, id, hops - 1);
        }
        goto out;
    }
    size_t blen = strcspn(base, "/");
    if (blen == 0 || blen > NAME_MAX || (blen == 1 && base[0] == '.') ||
        (blen == 2 && base[0] == '.' && base[1] == '.'))
        goto out;
    if (stat(dir, &st) == 0 && S_ISDIR(st.st_mode)) {
        id->known = 1;
        id->dev = st.st_dev;
        id->ino = st.st_ino;
        memcpy(id->name, base, blen);
        id->name[blen] = '\0';
    }
out:
    free(dir);
    free(next);
}

void cli_file_identify(const char *path, cli_file_id *id)
{
    identify(path, id, LINK_HOPS);
}

int cli_file_same(const cli_file_id *a, const char *pa, const cli_file_id *b, const char *pb)
{
    if (!a->known || !b->known)
        return strcmp(pa, pb) == 0;
    return a->exists == b->exists && a->dev == b->dev && a->ino == b->ino &&
           (a->exists || strcmp(a->name, b->name) == 0);
}

void cli_files_add(cli_files *fs, const char *what, const char *path, cli_file_kind kind)
{
    if (!path || strcmp(path, "-") == 0)
        return;
    cli_file *v = realloc(fs->v, (fs->n + 1) * sizeof *v);
    if (!v) {
        fprintf(stderr, "%s: out of memory\n", cli_prog);
        exit(EXIT_ENV);
    }
    fs->v = v;
    fs->v[fs->n++] = (cli_file){.what = what, .path = path, .kind = kind};
}

void cli_files_add_policy(cli_files *fs, const char *arg)
{
    if (!arg)
        arg = cli_env("BOXCERT_POLICY");
    if (arg && !bx_policy_profile_named(arg))
        cli_files_add(fs, "--policy", arg, CLI_IN);
}

void cli_files_add_certs(cli_files *fs, char **paths, size_t n, int recursive)
{
    struct stat st;
    for (size_t i = 0; i < n; i++)
        cli_files_add(fs, "certificate", paths[i],
                      strcmp(paths[i], "-") != 0 && stat(paths[i], &st) == 0 && S_ISDIR(st.st_mode)
                          ? (recursive ? CLI_IN_TREE : CLI_IN_FOLDER)
                          : CLI_IN);
}

void cli_files_free(cli_files *fs)
{
    free(fs->v);
    fs->v = NULL;
    fs->n = 0;
}

static int is_output(cli_file_kind k)
{
    return k == CLI_OUT || k == CLI_OUT_FOLDER;
}

/* Whether the folder path is, or (deep) is below, the folder of identity (dev, ino). */
static int within(const char *path, dev_t dev, ino_t ino, int deep)
{
    struct stat st, up;
    int fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC), found = 0;
    for (long i = 0; fd >= 0 && i < UP_MAX; i++) {
        if (fstat(fd, &st) != 0)
            break;
        if (st.st_dev == dev && st.st_ino == ino) {
            found = 1;
            break;
        }
        if (!deep)
            break;
        int pfd = openat(fd, "..", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        close(fd);
        fd = pfd;
        if (fd < 0 || fstat(fd, &up) != 0 || (up.st_dev == st.st_dev && up.st_ino == st.st_ino))
            break; /* the root: its parent is itself */
    }
    if (fd >= 0)
        close(fd);
    return found;
}

/* An output o written into the folder f: refused when f is a folder of certificates and o
 * bears a certificate's name, or when f is a folder another output creates. */
static int lands_in(const cli_file *o, const cli_file *f, const cli_file_id *fid)
{
    const char *base;
    char *dir;
    int hit = 0;
    if (f->kind == CLI_OUT_FOLDER && fid->known && !fid->exists) {
        /* the folder is yet to be made: o would be in it when o's folder is that name */
        cli_file_id did;
        if (!(dir = split(o->path, &base)))
            return 0;
        cli_file_identify(dir, &did);
        hit = cli_file_same(&did, dir, fid, f->path);
        free(dir);
        return hit;
    }
    if (!fid->known || !fid->exists)
        return 0;
    if (f->kind == CLI_IN_FOLDER || f->kind == CLI_IN_TREE) {
        if (!(dir = split(o->path, &base)))
            return 0;
        char name[NAME_MAX + 1];
        size_t blen = strcspn(base, "/");
        snprintf(name, sizeof name, "%.*s", (int)(blen > NAME_MAX ? NAME_MAX : blen), base);
        hit = bx_source_is_certificate_name(name) &&
              within(dir, fid->dev, fid->ino, f->kind == CLI_IN_TREE);
        free(dir);
    } else if (f->kind == CLI_OUT_FOLDER) {
        if (!(dir = split(o->path, &base)))
            return 0;
        hit = within(dir, fid->dev, fid->ino, 1);
        free(dir);
    }
    return hit;
}

int cli_files_check(const cli_files *fs)
{
    int rc = 0;
    cli_file_id *ids = calloc(fs->n ? fs->n : 1, sizeof *ids);
    if (!ids) {
        fprintf(stderr, "%s: out of memory\n", cli_prog);
        return EXIT_ENV;
    }
    for (size_t i = 0; i < fs->n; i++)
        cli_file_identify(fs->v[i].path, &ids[i]);
    for (size_t i = 0; i < fs->n && !rc; i++) {
        const cli_file *o = &fs->v[i];
        if (!is_output(o->kind))
            continue;
        for (size_t j = 0; j < fs->n && !rc; j++) {
            const cli_file *f = &fs->v[j];
            if (j == i)
                continue;
            /* an input that is not there cannot be overwritten (a profile's name, say) */
            if (!is_output(f->kind) && !(ids[j].known && ids[j].exists))
                continue;
            if (cli_file_same(&ids[i], o->path, &ids[j], f->path))
                rc = cli_usage_error(o->path,
                                     "%s names the same file as %s %s: an output never "
                                     "overwrites %s",
                                     o->what, f->what, f->path,
                                     is_output(f->kind) ? "another output" : "an input");
            else if (lands_in(o, f, &ids[j]))
                rc = cli_usage_error(o->path,
                                     "%s would be written into %s %s%s: an output never "
                                     "lands among %s",
                                     o->what, f->what, f->path,
                                     f->kind == CLI_IN_TREE ? " (or a folder below it)" : "",
                                     is_output(f->kind) ? "another output's files"
                                                        : "the certificates read");
        }
    }
    free(ids);
    return rc;
}
