/* SPDX-License-Identifier: Apache-2.0 */
/* The evidence kept behind each hash (attest/evidence.c): Config.Env values redacted in the
 * JSON text itself, and the folder collect --evidence-out writes. */
#include "tap.h"
#include "attest_internal.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *const env_path[] = {"Config", "Env", NULL};

static void redact(const char *in, const char *want, const char *name)
{
    char *out = NULL;
    size_t len = 0;
    bx_error e;
    int rc = bxa_redact_env(in, strlen(in), env_path, &out, &len, &e);

    if (!ok(rc == 0 && out && len == strlen(want) && !strcmp(out, want), "%s", name))
        printf("#   rc %d got  %s\n#   want %s\n", rc, out ? out : e.msg, want);
    free(out);
}

static void redaction(void)
{
    char *out = NULL;
    size_t len;
    bx_error e;

    redact(
        "{\"Id\":\"x\",\"Config\":{\"Env\":[\"A=secret\",\"B=\",\"C\",\"D=x=y\"],\"Image\":\"y\"},"
        "\"Env\":[\"Z=keep\"]}",
        "{\"Id\":\"x\",\"Config\":{\"Env\":[\"A=<redacted>\",\"B=<redacted>\",\"C\","
        "\"D=<redacted>\"],\"Image\":\"y\"},\"Env\":[\"Z=keep\"]}",
        "values redacted, names kept, other Env members untouched");
    redact(
        "{ \"Config\" : { \"Env\" : [ \"A=1\" , \"B=2\" ] , \"X\" : [1, 2.5e3, true, null] } }\n",
        "{ \"Config\" : { \"Env\" : [ \"A=<redacted>\" , \"B=<redacted>\" ] , \"X\" : [1, 2.5e3, "
        "true, null] } }\n",
        "white space and numbers kept byte for byte");
    redact("{\"\\u0043onfig\":{\"Env\":[\"TOKEN=hunter2\"]}}",
           "{\"\\u0043onfig\":{\"Env\":[\"TOKEN=<redacted>\"]}}", "an escaped key is the same key");
    redact("{\"Config\":{\"Env\":[\"K\\u003dsecret\",\"Q=\\\"quoted\\\"\"]}}",
           "{\"Config\":{\"Env\":[\"K=<redacted>\",\"Q=<redacted>\"]}}",
           "an escaped '=' still splits name and value");
    redact("{\"Config\":{\"Env\":null}}", "{\"Config\":{\"Env\":null}}", "Env null: nothing to do");
    redact("{\"Config\":null,\"Env\":[\"A=1\"]}", "{\"Config\":null,\"Env\":[\"A=1\"]}",
           "no Config: nothing to do");
    redact("{\"Config\":{\"Env\":[\"\\u00e9t\\u00e9=chaud\"]}}",
           "{\"Config\":{\"Env\":[\"\xc3\xa9t\xc3\xa9=<redacted>\"]}}",
           "a redacted string is written anew (its name's escapes undone)");
    ok(bxa_redact_env("{\"Config\":", 10, env_path, &out, &len, &e) == BX_EINVAL && !out,
       "truncated JSON refused");
    ok(bxa_redact_env("{} x", 4, env_path, &out, &len, &e) == BX_EINVAL && !out,
       "trailing bytes refused");
}

static char *slurp(const char *path, size_t *len)
{
    return tap_slurp(path, len);
}

static void folder(const char *tmp)
{
    bx_evidence *ev = bxa_evidence_new();
    char dir[256], path[600], *staged = NULL, hex[65], want[65], *buf;
    size_t len;
    bx_error e;
    struct stat st;

    snprintf(dir, sizeof dir, "%s/ev", tmp);
    ok(bxa_evidence_add(ev, BXA_EV_ENGINE, "container", "{\"a\":1}", 7, &e) == 0 &&
           bxa_evidence_add(ev, BXA_EV_KERNEL, "42/status", "Name:\tx\n", 8, &e) == 0 &&
           bxa_evidence_add(ev, BXA_EV_KERNEL, "cgroup/pids.max", "64\n", 3, &e) == 0 &&
           bxa_evidence_add(ev, BXA_EV_SPEC, "config.json", "{}", 2, &e) == 0,
       "evidence kept");
    ok_err(bx_evidence_stage(ev, dir, &staged, &e), &e, "staged beside %s", dir);
    ok(staged && stat(dir, &st) != 0, "nothing at the target before the commit");
    ok_err(bx_evidence_commit(staged, dir, &e), &e, "committed");
    free(staged);
    staged = NULL;
    snprintf(path, sizeof path, "%s/kernel/42/status", dir);
    buf = slurp(path, &len);
    ok(buf && len == 8 && !memcmp(buf, "Name:\tx\n", 8), "kernel/42/status written as kept");
    free(buf);
    snprintf(path, sizeof path, "%s/kernel/42/status", dir);
    ok(stat(path, &st) == 0 && (st.st_mode & 0777) == 0600, "files are 0600");
    snprintf(path, sizeof path, "%s/kernel/manifest.json", dir);
    buf = slurp(path, &len);
    ok(buf && bxa_evidence_digest(ev, BXA_EV_KERNEL, want, &e) == 0 &&
           !strcmp(bx_sha256_hex(buf, len, hex), want),
       "sha256 of kernel/manifest.json is the kernel digest");
    json_t *m = buf ? json_loadb(buf, len, 0, NULL) : NULL;
    ok(m && json_object_size(m) == 2 &&
           !strcmp(json_string_value(json_object_get(m, "cgroup/pids.max")),
                   bx_sha256_hex("64\n", 3, hex)),
       "the manifest names each file with the SHA-256 of its bytes");
    json_decref(m);
    free(buf);
    snprintf(path, sizeof path, "%s/engineInspect/container", dir);
    ok(stat(path, &st) == 0, "engineInspect/container written");
    snprintf(path, sizeof path, "%s/ociSpec/manifest.json", dir);
    ok(stat(path, &st) == 0, "ociSpec/manifest.json written");

    /* a second collection into the same folder: refused, the first intact */
    ok(bx_evidence_stage(ev, dir, &staged, &e) == BX_EIO && !staged,
       "a folder with evidence in it is refused at once (%s)", e.msg);
    snprintf(path, sizeof path, "%s/other", tmp);
    ok_err(bx_evidence_stage(ev, path, &staged, &e), &e, "staged elsewhere");
    mkdir(path, 0700);
    snprintf(dir, sizeof dir, "%s/other/x", tmp);
    ok(creat(dir, 0600) >= 0, "... then something appears there");
    ok(bx_evidence_commit(staged, path, &e) == BX_EIO, "the commit refuses to replace it (%s)",
       e.msg);
    bx_evidence_discard(staged);
    ok(staged && stat(staged, &st) != 0, "the staged folder is gone after discard");
    free(staged);
    staged = NULL;

    /* an existing empty folder is fine; a file or a symlink is not */
    snprintf(dir, sizeof dir, "%s/empty", tmp);
    mkdir(dir, 0700);
    ok(bx_evidence_stage(ev, dir, &staged, &e) == 0 && bx_evidence_commit(staged, dir, &e) == 0,
       "an empty folder is filled");
    free(staged);
    staged = NULL;
    snprintf(dir, sizeof dir, "%s/link", tmp);
    ok(symlink("/tmp", dir) == 0, "a symlink made");
    ok(bx_evidence_stage(ev, dir, &staged, &e) == BX_EIO && !staged, "a symlink refused (%s)",
       e.msg);
    snprintf(dir, sizeof dir, "%s/open", tmp);
    mkdir(dir, 0777);
    chmod(dir, 0777);
    snprintf(path, sizeof path, "%s/ev", dir);
    ok(bx_evidence_stage(ev, path, &staged, &e) == BX_EIO && !staged,
       "a parent writable by others without the sticky bit refused (%s)", e.msg);
    bxa_evidence_free(ev);
}

int main(void)
{
    char tmp[] = "/tmp/bx-evidence-test.XXXXXX";
    char cmd[128];

    redaction();
    if (!mkdtemp(tmp)) {
        ok(0, "mkdtemp");
        return tap_done();
    }
    folder(tmp);
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp);
    if (system(cmd) != 0)
        printf("# cleanup failed\n");
    return tap_done();
}
