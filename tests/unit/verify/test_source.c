/* SPDX-License-Identifier: Apache-2.0 */
/* The certificate source (verify/source.c): every input in order, error inputs for what
 * cannot be read, nothing that blocks (a FIFO, a socket, a device named like a certificate;
 * an endless bundle), bundle lines bounded while read, folders sorted, subfolders and links
 * skipped (and said), --recursive; and each allocation failing in turn: the reader returns
 * BX_ENOMEM or hands on every input, never a shorter list. */
#include "bx_verify.h"
#include "tap.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

static char tmp[256];

static const char *P(const char *name)
{
    static char buf[4][512];
    static int i;
    i = (i + 1) % 4;
    snprintf(buf[i], sizeof buf[i], "%s/%s", tmp, name);
    return buf[i];
}

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    if (f) {
        fputs(text, f);
        fclose(f);
    }
}

/* What the source handed on, one line each: "C file:line len", "E file:line msg",
 * "S file". */
typedef struct {
    char log[16384];
    size_t n, certs, errors, skipped;
} seen;

static int collect(void *arg, bx_input *in)
{
    seen *s = arg;
    const char *base = strrchr(in->file, '/') ? strrchr(in->file, '/') + 1 : in->file;
    size_t o = strlen(s->log);
    s->n++;
    switch (in->kind) {
    case BX_INPUT_CERT:
        s->certs++;
        snprintf(s->log + o, sizeof s->log - o, "C %s:%zu %zu\n", base, in->line, in->len);
        break;
    case BX_INPUT_ERROR:
        s->errors++;
        snprintf(s->log + o, sizeof s->log - o, "E %s:%zu %s\n", base, in->line, in->err.msg);
        break;
    default:
        s->skipped++;
        snprintf(s->log + o, sizeof s->log - o, "S %s\n", base);
    }
    return 0;
}

static int run(const char *path, const bx_source_opts *o, seen *s)
{
    memset(s, 0, sizeof *s);
    return bx_source_read(path, o, collect, s);
}

static void folder(void)
{
    seen s;
    bx_source_opts rec = {.recursive = 1};
    char big[2100];
    int sfd;
    struct sockaddr_un sa = {.sun_family = AF_UNIX};

    mkdir(P("gate"), 0700);
    write_file(P("gate/b.intoto.json"), "{\"b\":1}\n");
    write_file(P("gate/a.intoto.json"), "{\"a\":1}\r\n");
    write_file(P("gate/c.intoto.jsonl"), "{\"c\":1}\n\n{\"c\":2}\r\n{\"c\":3}");
    write_file(P("gate/notes.txt"), "hello");
    mkdir(P("gate/sub"), 0700);
    write_file(P("gate/sub/d.intoto.json"), "{\"d\":1}");
    mkdir(P("gate/dir.intoto.json"), 0700);
    ok(mkfifo(P("gate/fifo.intoto.json"), 0600) == 0, "a FIFO named like a certificate");
    ok(mkfifo(P("gate/fifo2.intoto.jsonl"), 0600) == 0, "a FIFO named like a bundle");
    snprintf(sa.sun_path, sizeof sa.sun_path, "%s", P("gate/sock.intoto.json"));
    sfd = socket(AF_UNIX, SOCK_STREAM, 0);
    ok(sfd >= 0 && bind(sfd, (struct sockaddr *)&sa, sizeof sa) == 0, "a socket named like one");
    ok(mknod(P("gate/zero.intoto.json"), S_IFCHR | 0600, makedev(1, 5)) == 0,
       "a device (/dev/zero's numbers) named like one");
    ok(symlink(P("gate/sub"), P("gate/link")) == 0, "a link to a folder");
    memset(big, 'x', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    write_file(P("gate/e.intoto.json"), big);

    alarm(10); /* nothing may block */
    bx_source_opts small = {.max_size = 2000};
    ok(run(P("gate"), &small, &s) == 0, "a folder read");
    printf("# %s", s.log);
    ok(strstr(s.log, "C a.intoto.json:0 7\nC b.intoto.json:0 7\nC c.intoto.jsonl:1 7\n"
                     "C c.intoto.jsonl:3 7\nC c.intoto.jsonl:4 7\n") == s.log,
       "sorted by name; a final CR LF and blank lines are not envelopes; a bundle's lines");
    ok(strstr(s.log, "E dir.intoto.json:0 not a regular file"), "a folder named as one: error");
    ok(strstr(s.log, "E e.intoto.json:0 too large"), "over the cap: error");
    ok(strstr(s.log, "E fifo.intoto.json:0 not a regular file"), "a FIFO: error, not blocked on");
    ok(strstr(s.log, "E fifo2.intoto.jsonl:0 not a regular file"), "a FIFO bundle: error");
    ok(strstr(s.log, "E sock.intoto.json:0 cannot open") ||
           strstr(s.log, "E sock.intoto.json:0 not a regular file"),
       "a socket: error");
    ok(strstr(s.log, "E zero.intoto.json:0 not a regular file"), "a device: error, never read");
    ok(strstr(s.log, "S link\n"), "a link to a folder: skipped, said");
    ok(strstr(s.log, "S notes.txt\n"), "another name: skipped, said");
    ok(strstr(s.log, "S sub\n"), "a subfolder: skipped, said");
    is_int(s.n, 14, "every entry handed on");
    ok(run(P("gate"), &rec, &s) == 0, "recursive");
    ok(strstr(s.log, "C d.intoto.json:0 7\n") && !strstr(s.log, "S sub\n"), "a subfolder read");
    is_int(s.skipped, 2, "recursive: the link and the text file skipped");
    ok(run(P("gate/link"), &rec, &s) == 0 && s.certs == 1, "a link named on the command line: read");
    alarm(0);
    if (sfd >= 0)
        close(sfd);
}

static void bundles(void)
{
    seen s;
    bx_source_opts o = {.max_size = 10};
    int fds[2];
    pid_t pid;

    write_file(P("b.intoto.jsonl"), "0123456789\n01234567890\n0123456789\n");
    ok(run(P("b.intoto.jsonl"), &o, &s) == 0, "a bundle with a line over the cap");
    printf("# %s", s.log);
    ok(!strcmp(s.log, "C b.intoto.jsonl:1 10\nE b.intoto.jsonl:2 line 2: too large: over 10 "
                      "bytes (the rest of the bundle is not read)\n"),
       "the line at the cap is one, the next an error naming line 2, and the bundle ends");
    write_file(P("cr.intoto.jsonl"), "0123456789\r\n");
    ok(run(P("cr.intoto.jsonl"), &o, &s) == 0 && s.certs == 1, "a CR before LF is not counted");
    write_file(P("end.intoto.jsonl"), "01234567890");
    ok(run(P("end.intoto.jsonl"), &o, &s) == 0 && s.errors == 1 && s.certs == 0,
       "a last line without LF over the cap");

    /* an endless stdin: 4 MiB without a newline, then the writer would go on */
    ok(pipe(fds) == 0, "pipe");
    pid = fork();
    if (pid == 0) {
        char chunk[65536];
        close(fds[0]);
        memset(chunk, 'x', sizeof chunk);
        for (int i = 0; i < 64; i++)
            if (write(fds[1], chunk, sizeof chunk) < 0)
                _exit(0);
        _exit(0);
    }
    close(fds[1]);
    int saved = dup(0);
    dup2(fds[0], 0);
    close(fds[0]);
    alarm(10);
    bx_source_opts cap = {.max_size = 1000};
    ok(run("-", &cap, &s) == 0 && s.errors == 1 && s.certs == 0, "endless stdin: one error");
    ok(strstr(s.log, "E -:1 line 1: too large"), "naming the line");
    alarm(0);
    dup2(saved, 0);
    close(saved);
    kill(pid, SIGKILL);
    waitpid(pid, NULL, 0);
}

/* Each allocation fails in turn: BX_ENOMEM, or the whole list. */
static void oom(void)
{
    static const char *const paths[] = {"gate", "b.intoto.jsonl", "gate/a.intoto.json"};
    for (size_t p = 0; p < sizeof paths / sizeof paths[0]; p++) {
        seen full, s;
        unsigned long n, shorter = 0, failed = 0;
        bx_source_opts o = {.max_size = 2000};
        run(P(paths[p]), &o, &full);
        bx_alloc_fail_at(0);
        run(P(paths[p]), &o, &full);
        n = bx_alloc_count();
        for (unsigned long k = 1; k <= n; k++) {
            int rc;
            bx_alloc_fail_at(k);
            rc = run(P(paths[p]), &o, &s);
            bx_alloc_fail_at(0);
            if (rc == BX_ENOMEM)
                failed++;
            else if (rc != 0 || strcmp(s.log, full.log) != 0)
                shorter++;
        }
        ok(n > 0 && failed == n && shorter == 0,
           "%s: each of its %lu allocations failing gives BX_ENOMEM (%lu), never a shorter "
           "list (%lu)",
           paths[p], n, failed, shorter);
    }
}

static void one(void)
{
    char *buf = NULL;
    size_t len = 0;
    bx_error err;
    ok(bx_source_read_one(P("gate/a.intoto.json"), NULL, &buf, &len, &err) == 0 && len == 7,
       "one certificate");
    free(buf);
    ok(bx_source_read_one(P("gate"), NULL, &buf, &len, &err) == BX_EINVAL, "not a folder");
    ok(bx_source_read_one(P("c.intoto.jsonl"), NULL, &buf, &len, &err) != 0, "not a bundle of 3");
    ok(bx_source_read_one(P("gate/fifo.intoto.json"), NULL, &buf, &len, &err) != 0 &&
           strstr(err.msg, "not a regular file"),
       "not a FIFO: %s", err.msg);
}

int main(void)
{
    snprintf(tmp, sizeof tmp, "/tmp/bx-source-XXXXXX");
    if (!mkdtemp(tmp))
        skip_all("no temporary folder");
    folder();
    bundles();
    write_file(P("c.intoto.jsonl"), "{\"c\":1}\n{\"c\":2}\n{\"c\":3}\n");
    oom();
    one();
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp);
    if (system(cmd) != 0)
        printf("# could not remove %s\n", tmp);
    return tap_done();
}
