/* SPDX-License-Identifier: Apache-2.0 */
#include "bx_common.h"
#include "tap.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

static char base[64];

static const char *P(const char *rel)
{
    static char bufs[4][256];
    static int k;
    char *b = bufs[k++ % 4];
    snprintf(b, sizeof bufs[0], "%s/%s", base, rel);
    return b;
}

static void put(const char *path, const char *s)
{
    FILE *f = fopen(path, "w");
    if (!f || fputs(s, f) < 0 || fclose(f) != 0) {
        printf("Bail out! cannot write %s\n", path);
        exit(1);
    }
}

/* Whole content of path via bx_read_file, or NULL (caller frees). */
static char *slurp(const char *path)
{
    bx_error err = {0};
    char *out = NULL;
    size_t len = 0;
    if (bx_read_file(path, 1 << 22, BX_READ_EMPTY_OK, &out, &len, &err) != 0)
        return NULL;
    return out;
}

static int count_entries(const char *dir)
{
    DIR *d = opendir(dir);
    int n = 0;
    struct dirent *e;
    if (!d)
        return -1;
    while ((e = readdir(d)))
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
            n++;
    closedir(d);
    return n;
}

static void test_atomic_basic(void)
{
    bx_error err = {0};
    struct stat st1, st2;
    ok_err(bx_write_file_atomic(P("a.txt"), "one", 3, 0640, &err), &err, "atomic write creates");
    char *s = slurp(P("a.txt"));
    is_str(s, "one", "created content");
    free(s);
    ok(stat(P("a.txt"), &st1) == 0 && (st1.st_mode & 07777) == 0640, "created with mode 0640");

    ok_err(bx_write_file_atomic(P("a.txt"), "second", 6, 0600, &err), &err,
           "atomic write replaces");
    s = slurp(P("a.txt"));
    is_str(s, "second", "replaced content");
    free(s);
    ok(stat(P("a.txt"), &st2) == 0 && st2.st_ino != st1.st_ino, "replaced by a new inode");
    ok((st2.st_mode & 07777) == 0600, "replacement has the new mode");
    is_int(count_entries(base), 1, "no temporary file left behind");

    ok_err(bx_write_file_atomic(P("empty.txt"), "", 0, 0644, &err), &err, "atomic write empty");
    ok(stat(P("empty.txt"), &st1) == 0 && st1.st_size == 0, "empty file written");
    unlink(P("empty.txt"));

    char cwd[512];
    ok(getcwd(cwd, sizeof cwd) && chdir(base) == 0, "chdir to the test folder");
    ok_err(bx_write_file_atomic("rel.txt", "rel", 3, 0644, &err), &err,
           "atomic write to a bare file name");
    ok(chdir(cwd) == 0, "chdir back");
    s = slurp(P("rel.txt"));
    is_str(s, "rel", "bare file name written in the current folder");
    free(s);
    unlink(P("rel.txt"));

    is_int(bx_write_file_atomic(P("nodir/x"), "x", 1, 0644, &err), BX_EIO,
           "missing folder refused");
    is_int(bx_write_file_atomic(P("a.txt/"), "x", 1, 0644, &err), BX_EIO,
           "path ending in / refused");
}

static void test_atomic_refusals(void)
{
    bx_error err = {0};
    put(P("real"), "keep");
    ok(symlink("real", P("link")) == 0, "symlink created");
    is_int(bx_write_file_atomic(P("link"), "evil", 4, 0644, &err), BX_EIO,
           "symlink target refused");
    ok(strstr(err.msg, "is a symlink") != NULL, "symlink message: %s", err.msg);
    char *s = slurp(P("real"));
    is_str(s, "keep", "symlink's target untouched");
    free(s);
    struct stat st;
    ok(lstat(P("link"), &st) == 0 && S_ISLNK(st.st_mode), "symlink still a symlink");

    ok(mkdir(P("sub"), 0755) == 0 && symlink("sub", P("sublink")) == 0, "folder symlink created");
    is_int(bx_write_file_atomic(P("sublink/f"), "x", 1, 0644, &err), BX_EIO,
           "folder reached through a symlink refused");
    is_int(count_entries(P("sub")), 0, "nothing written through the folder symlink");

    is_int(bx_write_file_atomic(P("sub"), "x", 1, 0644, &err), BX_EIO, "directory target refused");
    ok(lstat(P("sub"), &st) == 0 && S_ISDIR(st.st_mode), "directory target kept");

    ok(mkdir(P("open"), 0755) == 0 && chmod(P("open"), 0777) == 0, "folder 0777");
    is_int(bx_write_file_atomic(P("open/f"), "x", 1, 0644, &err), BX_EIO,
           "folder writable by others without sticky bit refused");
    ok(strstr(err.msg, "sticky") && strstr(err.msg, P("open")), "message names the folder: %s",
       err.msg);
    is_int(count_entries(P("open")), 0, "nothing written in the open folder");
    ok(chmod(P("open"), 01777) == 0, "folder 01777");
    ok_err(bx_write_file_atomic(P("open/f"), "x", 1, 0644, &err), &err,
           "folder writable by others with sticky bit accepted");
    s = slurp(P("open/f"));
    is_str(s, "x", "written in the sticky folder");
    free(s);
}

static void test_excl(void)
{
    bx_error err = {0};
    struct stat st;
    ok_err(bx_write_file_excl(P("key"), "secret", 6, 0600, &err), &err, "excl creates");
    char *s = slurp(P("key"));
    is_str(s, "secret", "excl content");
    free(s);
    ok(stat(P("key"), &st) == 0 && (st.st_mode & 07777) == 0600, "excl mode 0600");
    is_int(bx_write_file_excl(P("key"), "other", 5, 0600, &err), BX_EIO, "excl refuses existing");
    ok(strstr(err.msg, "already exists") != NULL, "excl message: %s", err.msg);
    s = slurp(P("key"));
    is_str(s, "secret", "existing file untouched");
    free(s);
    ok(symlink("nowhere", P("dangling")) == 0, "dangling symlink created");
    is_int(bx_write_file_excl(P("dangling"), "x", 1, 0600, &err), BX_EIO,
           "excl refuses a dangling symlink");
    ok(access(P("nowhere"), F_OK) != 0, "symlink's target not created");
}

static void read_refused(const char *path, size_t max, int allow_empty, int code,
                         const char *substr, const char *name)
{
    bx_error err = {0};
    char *out = NULL;
    size_t len = 0;
    is_int(bx_read_file(path, max, allow_empty, &out, &len, &err), code, "read refuses %s", name);
    ok(strncmp(err.msg, substr, strlen(substr)) == 0 || strstr(err.msg, substr),
       "read %s: message '%s' has '%s'", name, err.msg, substr);
    ok(out == NULL, "read %s: no output", name);
    free(out);
}

static void test_read(void)
{
    bx_error err = {0};
    char *out = NULL;
    size_t len = 0;
    put(P("ten"), "0123456789");
    ok_err(bx_read_file(P("ten"), 10, 0, &out, &len, &err), &err, "read at the cap");
    is_int(len, 10, "read length");
    ok(out && memcmp(out, "0123456789", 11) == 0, "read bytes, NUL-terminated");
    free(out);
    out = NULL;
    read_refused(P("ten"), 9, 0, BX_EINVAL, "too large", "one byte over the cap");
    is_int(bx_read_file(P("ten"), 9, 0, &out, &len, &err), BX_EINVAL, "over the cap again");
    ok(strncmp(err.msg, "too large", 9) == 0, "too large message starts so: %s", err.msg);
    free(out);
    out = NULL;
    read_refused(base, 100, 0, BX_ECONFIG, "is a directory", "a directory");
    put(P("zero"), "");
    read_refused(P("zero"), 100, 0, BX_ECONFIG, "is empty", "an empty file");
    ok_err(bx_read_file(P("zero"), 100, BX_READ_EMPTY_OK, &out, &len, &err), &err, "empty allowed");
    ok(out && len == 0 && out[0] == '\0', "empty read gives an empty string");
    free(out);
    out = NULL;
    read_refused("/dev/null", 100, 1, BX_ECONFIG, "not a regular file", "a device");
    read_refused(P("missing"), 100, 0, BX_EIO, "cannot open", "a missing file");
    is_int(bx_read_file(P("missing"), 100, 0, &out, &len, &err), BX_EIO, "missing again");
    is_int(err.sys_errno, ENOENT, "missing file records ENOENT");
    free(out);
}

/* Puts data into a pipe as stdin; returns the saved stdin. */
static int pipe_stdin(const char *data, size_t n)
{
    int fds[2], saved = dup(0);
    if (pipe(fds) < 0 || write(fds[1], data, n) != (ssize_t)n) {
        printf("Bail out! pipe\n");
        exit(1);
    }
    close(fds[1]);
    dup2(fds[0], 0);
    close(fds[0]);
    return saved;
}

static void test_read_streams(void)
{
    bx_error err = {0};
    char *out = NULL;
    size_t len = 0;
    int saved = pipe_stdin("hello", 5);
    ok_err(bx_read_file("-", 100, 0, &out, &len, &err), &err, "stdin read");
    ok(out && len == 5 && strcmp(out, "hello") == 0, "stdin content");
    free(out);
    out = NULL;
    dup2(saved, 0);
    close(saved);

    static char big[5000];
    memset(big, 'x', sizeof big);
    saved = pipe_stdin(big, sizeof big);
    is_int(bx_read_file("-", 100, 0, &out, &len, &err), BX_EINVAL, "stdin over the cap refused");
    ok(strncmp(err.msg, "too large", 9) == 0, "stdin too large message: %s", err.msg);
    char rest[8192];
    ssize_t left = read(0, rest, sizeof rest);
    ok(left >= 4000, "reading stopped early (%zd bytes left unread)", left);
    free(out);
    out = NULL;
    dup2(saved, 0);
    close(saved);

    /* a FIFO (no writer: opening it to read would block forever), a device, a socket: each
     * refused at once, nothing read (issue: inputs that block) */
    ok(mkfifo(P("fifo"), 0600) == 0, "fifo created");
    is_int(bx_read_file(P("fifo"), 100, 0, &out, &len, &err), BX_ECONFIG, "a FIFO is refused");
    ok(strstr(err.msg, "not a regular file") != NULL, "as not a regular file: %s", err.msg);
    is_int(bx_read_file("/dev/zero", 100, 0, &out, &len, &err), BX_ECONFIG,
           "a device is refused, not read to its cap");
    is_int(bx_read_file("/dev/tty", 100, 0, &out, &len, &err) != 0, 1,
           "a terminal is refused (or cannot be opened)");
    {
        int sfd = socket(AF_UNIX, SOCK_STREAM, 0);
        struct sockaddr_un sa = {.sun_family = AF_UNIX};
        snprintf(sa.sun_path, sizeof sa.sun_path, "%s", P("sock"));
        ok(sfd >= 0 && bind(sfd, (struct sockaddr *)&sa, sizeof sa) == 0, "a socket bound");
        is_int(bx_read_file(P("sock"), 100, 0, &out, &len, &err) != 0, 1, "a socket is refused");
        if (sfd >= 0)
            close(sfd);
    }
}

static void test_full_filesystem(void)
{
    bx_error err = {0};
    const char *dir = P("full");
    if (mkdir(dir, 0755) < 0 || mount("tmpfs", dir, "tmpfs", 0, "size=64k,mode=0755") < 0) {
        skip_one("full filesystem: cannot mount a tmpfs (%s)", strerror(errno));
        return;
    }
    const char *f = P("full/cert");
    ok_err(bx_write_file_atomic(f, "previous", 8, 0644, &err), &err, "small file on the tmpfs");
    size_t big = 1 << 20;
    char *buf = malloc(big);
    memset(buf, 'y', big);
    bx_error_clear(&err);
    is_int(bx_write_file_atomic(f, buf, big, 0644, &err), BX_EIO,
           "1 MiB on a 64 KiB tmpfs: BX_EIO");
    is_int(err.sys_errno, ENOSPC, "errno ENOSPC recorded");
    ok(strstr(err.msg, "No space left") != NULL, "clear message: %s", err.msg);
    free(buf);
    char *s = slurp(f);
    is_str(s, "previous", "previous content intact");
    free(s);
    is_int(count_entries(dir), 1, "no stray temporary file");
    ok(umount(dir) == 0 || umount2(dir, MNT_DETACH) == 0, "tmpfs unmounted");
}

static void cleanup(void)
{
    char cmd[128];
    umount2(P("full"), MNT_DETACH);
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", base);
    if (system(cmd) != 0)
        printf("# cannot remove %s\n", base);
}

int main(void)
{
    umask(022);
    snprintf(base, sizeof base, "/tmp/bx_test_file.XXXXXX");
    if (!mkdtemp(base))
        skip_all("cannot create a temporary folder");
    test_atomic_basic();
    test_atomic_refusals();
    test_excl();
    test_read();
    test_read_streams();
    test_full_filesystem();
    cleanup();
    return tap_done();
}
