// SPDX-License-Identifier: Apache-2.0
/* The --seen replay file (verify/seen.c): a certificate seen before fails certificate.replay,
 * by its id and by its boot id and nonce, also after the file is written and read back;
 * entries are pruned only once expired; only a passing certificate is recorded, once; the
 * file is locked while open and written 0600; a file that is not a seen file is refused. */
#include "bx_verify.h"
#include "tap.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#define BOOT "6f1c2a9e-7d3b-4e5f-9a8b-0c1d2e3f4a5b"
#define BOOT2 "0b5e1d6a-2c3f-4a7b-8e9d-1f2a3b4c5d6e"
#define NONCE "00112233445566778899aabbccddeeff"
#define NONCE2 "00112233445566778899aabbccddeefe"
#define EXP "2035-12-30T00:00:00Z"

static char dir[256], path[320];
static int64_t exp_t;

/* A certificate that passed verification: id (64 hex: the digit d repeated), its host's boot
 * id (NULL: not observed), nonce and expiry. */
static void passed(bx_verify_result *r, char d, const char *boot, const char *nonce)
{
    memset(r, 0, sizeof *r);
    memset(r->certificate_id, d, 64);
    r->certificate_id[64] = '\0';
    r->statement = json_pack("{s:{s:{s:s?}, s:s, s:s}}", "predicate", "host", "bootId", boot,
                             "nonce", nonce, "expiresAt", EXP);
    r->findings = json_array();
    bx_finding_add(r->findings, "signature.threshold", "pass", NULL, NULL, "signed");
    r->pass = 1;
}

/* The replay finding bx_seen_check gives r ("absent" when none); *pass its verdict after. */
static const char *replay(bx_seen *s, char d, const char *boot, const char *nonce, int *pass)
{
    static char status[16];
    bx_verify_result r;
    bx_error e;
    size_t i;
    json_t *f;
    passed(&r, d, boot, nonce);
    snprintf(status, sizeof status, "absent");
    if (bx_seen_check(s, &r, &e) != 0)
        snprintf(status, sizeof status, "error");
    json_array_foreach(r.findings, i, f)
    {
        if (strcmp(json_string_value(json_object_get(f, "rule")), "certificate.replay") == 0)
            snprintf(status, sizeof status, "%s", json_string_value(json_object_get(f, "status")));
    }
    *pass = r.pass;
    bx_verify_result_free(&r);
    return status;
}

#define replay_is(s, d, boot, nonce, want, ...)                                                    \
    do {                                                                                           \
        int pass_;                                                                                 \
        is_str(replay(s, d, boot, nonce, &pass_), want, __VA_ARGS__);                              \
        is_int(pass_, strcmp(want, "pass") == 0, "... and the certificate %s",                     \
               strcmp(want, "pass") == 0 ? "passes" : "fails");                                    \
    } while (0)

static bx_seen *open_skew(int64_t now, int64_t skew)
{
    bx_seen *s = NULL;
    bx_error e;
    int rc = bx_seen_open(path, now, skew, &s, &e);
    ok_err(rc, &e, "open the seen file");
    return rc ? NULL : s;
}

static bx_seen *open_at(int64_t now)
{
    return open_skew(now, 0);
}

static void close_ok(bx_seen *s)
{
    bx_error e;
    ok_err(bx_seen_close(s, &e), &e, "write the seen file back");
}

/* Lines of the seen file (-1: cannot read). */
static int lines(void)
{
    size_t len = 0;
    char *buf = tap_slurp(path, &len);
    int n = 0;
    if (!buf)
        return -1;
    for (size_t i = 0; i < len; i++)
        n += buf[i] == '\n';
    free(buf);
    return n;
}

static void fresh(void)
{
    char lock[340];
    snprintf(lock, sizeof lock, "%s.lock", path);
    unlink(path);
    unlink(lock);
}

static void test_replay(void)
{
    bx_seen *s;
    fresh();
    if (!(s = open_at(exp_t - 86400)))
        return;
    replay_is(s, 'a', NULL, NONCE, "pass", "a certificate without a boot id, first sight");
    replay_is(s, 'a', NULL, NONCE, "fail", "the same certificate again: a replay");
    replay_is(s, 'b', BOOT, NONCE, "pass", "another certificate, with a boot id");
    replay_is(s, 'b', BOOT, NONCE, "fail", "... presented twice: a replay");
    replay_is(s, 'c', BOOT, NONCE, "fail",
              "a different certificate with the same boot id and nonce: a replay");
    replay_is(s, 'd', BOOT, NONCE2, "pass", "the same boot id, another nonce: passes");
    replay_is(s, 'e', BOOT2, NONCE, "pass", "another boot id, the same nonce: passes");
    replay_is(s, 'f', NULL, NONCE2, "pass", "no boot id: the pair is not compared");
    close_ok(s);
    is_int(lines(), 6, "the header and the five certificates that passed, once each");

    /* read back: both the ids and the pairs */
    if (!(s = open_at(exp_t - 86400)))
        return;
    replay_is(s, 'a', NULL, NONCE, "fail", "read back: a certificate seen before");
    replay_is(s, '1', BOOT, NONCE2, "fail", "read back: a boot id and nonce seen before");
    replay_is(s, '2', BOOT2, NONCE2, "pass", "read back: a new certificate passes");
    close_ok(s);
    is_int(lines(), 7, "replays are not recorded again");

    /* a certificate that failed is neither checked nor recorded */
    if (!(s = open_at(exp_t - 86400)))
        return;
    bx_verify_result r;
    bx_error e;
    passed(&r, '3', BOOT, "0123456789abcdef");
    r.pass = 0;
    ok(bx_seen_check(s, &r, &e) == 0 && !r.pass, "a failing certificate stays failing");
    bx_verify_result_free(&r);
    close_ok(s);
    is_int(lines(), 7, "a failing certificate is not recorded");
    if (!(s = open_at(exp_t - 86400)))
        return;
    replay_is(s, '3', BOOT, "0123456789abcdef", "pass", "... so it passes once it passes");
    close_ok(s);
}

/* Pruned once expired: an entry that expires at `now` is kept. */
static void test_prune(void)
{
    bx_seen *s;
    fresh();
    if (!(s = open_at(exp_t - 86400)))
        return;
    replay_is(s, 'a', BOOT, NONCE, "pass", "recorded");
    close_ok(s);
    if (!(s = open_at(exp_t)))
        return;
    replay_is(s, 'a', BOOT, NONCE, "fail", "opened at the entry's expiry: kept, a replay");
    close_ok(s);
    is_int(lines(), 2, "still there");
    if (!(s = open_at(exp_t + 1)))
        return;
    close_ok(s);
    is_int(lines(), 1, "opened one second after its expiry: pruned, only the header is left");
}

/* The file keeps the largest clock skew it was used with, and an entry until its
 * certificate's expiresAt plus that skew: a run with a smaller skew (or none) does not
 * prune what a verifier with the larger one would still accept. */
static void test_skew(void)
{
    bx_seen *s;
    size_t len = 0;
    char *buf;
    fresh();
    if (!(s = open_skew(exp_t - 86400, 300)))
        return;
    replay_is(s, 'a', BOOT, NONCE, "pass", "recorded by a verifier with a 5m skew");
    close_ok(s);
    buf = tap_slurp(path, &len);
    static const char hdr[] = "{\"boxcertSeen\":2,\"maxSkewSeconds\":300}\n";
    ok(buf && strncmp(buf, hdr, sizeof hdr - 1) == 0,
       "the header records the skew");
    free(buf);
    if (!(s = open_skew(exp_t + 300, 0)))
        return;
    replay_is(s, 'a', BOOT, NONCE, "fail",
              "opened without a skew at expiry + 5m: kept for the 5m verifier, a replay");
    close_ok(s);
    buf = tap_slurp(path, &len);
    ok(buf && strstr(buf, "\"maxSkewSeconds\":300}"), "a smaller skew does not lower it");
    free(buf);
    if (!(s = open_skew(exp_t + 200, 600)))
        return;
    close_ok(s);
    if (!(s = open_skew(exp_t + 600, 0)))
        return;
    close_ok(s);
    is_int(lines(), 2, "raised to 10m: kept at expiry + 10m");
    if (!(s = open_skew(exp_t + 601, 0)))
        return;
    close_ok(s);
    is_int(lines(), 1, "pruned one second past expiry + 10m");
    /* the skew a file takes is bounded */
    bx_seen *x = NULL;
    bx_error e = {0};
    is_int(bx_seen_open(path, exp_t, -1, &x, &e), BX_ECONFIG, "a negative skew is refused");
    if (x) /* opened after all: release its lock, or the next open waits for it */
        bx_seen_close(x, &e), x = NULL;
    is_int(bx_seen_open(path, exp_t, 400LL * 86400, &x, &e), BX_ECONFIG,
           "a skew of more than a year is refused");
    if (x)
        bx_seen_close(x, &e);
}

static void test_file(void)
{
    bx_seen *s = NULL;
    bx_error e;
    struct stat st;
    char lock[340], target[340];
    int fd;

    fresh();
    snprintf(lock, sizeof lock, "%s.lock", path);
    if (!(s = open_at(exp_t - 86400)))
        return;
    fd = open(lock, O_RDWR | O_CLOEXEC);
    ok(fd >= 0 && flock(fd, LOCK_EX | LOCK_NB) != 0 && errno == EWOULDBLOCK,
       "while open, the seen file's lock is held");
    replay_is(s, 'a', BOOT, NONCE, "pass", "recorded");
    close_ok(s);
    ok(fd >= 0 && flock(fd, LOCK_EX | LOCK_NB) == 0, "closed: the lock is released");
    if (fd >= 0)
        close(fd);
    ok(stat(path, &st) == 0 && (st.st_mode & 0777) == 0600, "the seen file is written 0600");

    /* a lock file that is a link is not followed */
    fresh();
    snprintf(target, sizeof target, "%s/elsewhere", dir);
    unlink(target);
    ok(symlink(target, lock) == 0, "the lock file a symlink");
    s = NULL;
    is_int(bx_seen_open(path, exp_t, 0, &s, &e), BX_ECONFIG, "a symlinked lock file is refused");
    ok(access(target, F_OK) != 0, "... and its target is not created");
    if (s)
        bx_seen_close(s, &e);
    unlink(lock);
}

/* Parses (0) or is refused (BX_ECONFIG), through bx_seen_open. */
static void file_is(const char *text, int want, const char *name)
{
    bx_seen *s = NULL;
    bx_error e = {0};
    FILE *f;
    int rc;
    fresh();
    if ((f = fopen(path, "w"))) {
        fputs(text, f);
        fclose(f);
    }
    rc = bx_seen_open(path, exp_t - 86400, 0, &s, &e);
    is_int(rc, want, "%s", name);
    if (rc && want)
        ok(strstr(e.where, path) == e.where, "... the error names the file (%s)", e.where);
    if (s)
        bx_seen_close(s, &e);
}

#define H "{\"boxcertSeen\":1}\n"
#define ID "\"certificateId\":\"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\""
#define REST "\"bootId\":\"" BOOT "\",\"expiresAt\":\"" EXP "\",\"nonce\":\"" NONCE "\""

static void test_bad_files(void)
{
    json_t *entries = NULL;
    bx_error e;
    is_int(bx_seen_parse("", 0, "empty", &entries, NULL, &e), BX_ECONFIG,
           "no bytes at all are not a seen file (not even its header)");
    json_decref(entries);
    file_is(H, 0, "a header alone");
    file_is(H "{" ID "," REST "}\n", 0, "a header and an entry");
    file_is("", BX_ECONFIG, "an empty file");
    file_is("{" ID "," REST "}\n", BX_ECONFIG, "an entry without the header");
    file_is("{\"boxcertSeen\":2}\n", BX_ECONFIG, "version 2 without its skew");
    file_is("{\"boxcertSeen\":2,\"maxSkewSeconds\":300}\n", 0, "version 2 with its skew");
    file_is("{\"boxcertSeen\":2,\"maxSkewSeconds\":0}\n" "{" ID "," REST "}\n", 0,
            "version 2, no skew, an entry");
    file_is("{\"maxSkewSeconds\":300,\"boxcertSeen\":2}\n", BX_ECONFIG,
            "version 2's members out of order");
    file_is("{\"boxcertSeen\":2,\"maxSkewSeconds\":-1}\n", BX_ECONFIG, "a negative skew");
    file_is("{\"boxcertSeen\":2,\"maxSkewSeconds\":31708801}\n", BX_ECONFIG,
            "a skew of more than a year");
    file_is("{\"boxcertSeen\":2,\"maxSkewSeconds\":\"300\"}\n", BX_ECONFIG,
            "a skew that is a string");
    file_is("{\"boxcertSeen\":2,\"maxSkewSeconds\":300,\"x\":1}\n", BX_ECONFIG,
            "a third member");
    file_is("{\"boxcertSeen\":3,\"maxSkewSeconds\":300}\n", BX_ECONFIG, "version 3");
    file_is("{\"boxcertSeen\":1,\"maxSkewSeconds\":300}\n", BX_ECONFIG,
            "version 1 with a skew");
    file_is(H "{" ID "," REST "}", BX_ECONFIG, "the last line truncated");
    file_is(H "{" ID "," REST ",\"extra\":\"x\"}\n", BX_ECONFIG, "an entry with a fifth member");
    file_is(H "{" REST "}\n", BX_ECONFIG, "an entry without its certificateId");
    file_is(H "{\"certificateId\":"
              "\"AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA\"," REST "}\n",
            BX_ECONFIG, "an entry with an uppercase certificateId");
    file_is(H "{\"certificateId\":\"aaaa\"," REST "}\n", BX_ECONFIG,
            "an entry with a short certificateId");
    file_is(H "{" ID ",\"bootId\":\"" BOOT "\",\"expiresAt\":\"soon\",\"nonce\":\"" NONCE "\"}\n",
            BX_ECONFIG, "an entry whose expiresAt is not a time");
    file_is(H "{" ID ",\"bootId\":\"" BOOT "\",\"expiresAt\":\"" EXP "\",\"nonce\":7}\n",
            BX_ECONFIG, "an entry whose nonce is a number");
    file_is(H "[1,2,3,4]\n", BX_ECONFIG, "an entry that is not an object");
    file_is(H "{" ID "," REST "\n", BX_ECONFIG, "an entry that is not JSON");
}

int main(void)
{
    bx_error e;
    const char *tmp = getenv("TMPDIR");
    snprintf(dir, sizeof dir, "%s/boxcert-seen.XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!ok(mkdtemp(dir) != NULL, "a scratch folder"))
        return tap_done();
    snprintf(path, sizeof path, "%s/seen.jsonl", dir);
    if (!ok(bx_time_parse(EXP, 0, &exp_t, &e) == 0, "the expiry"))
        return tap_done();

    test_replay();
    test_prune();
    test_skew();
    test_file();
    test_bad_files();

    fresh();
    rmdir(dir);
    return tap_done();
}
