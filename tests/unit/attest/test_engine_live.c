/* SPDX-License-Identifier: Apache-2.0 */
/* The Engine API client and the collector against a real engine ($DOCKER_HOST or
 * /var/run/docker.sock). Skipped (77) without one, failed under BOXCERT_REQUIRE_ENGINE=1.
 * Sessions are labelled boxcert.test=$BOXCERT_TEST_LABEL (default unit-attest-<pid>) and
 * exactly those are removed at the end. */
#include "tap.h"
#include "bx_attest.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define IMAGE "boxcert-session:1"

static char label[128];
static const char *docker;

/* Run a docker command line; first line of its output into out. */
static int sh(char *out, size_t len, const char *fmt, ...) BX_FMT(3, 4);
static int sh(char *out, size_t len, const char *fmt, ...)
{
    char cmd[1024];
    va_list ap;
    FILE *p;
    int rc;

    snprintf(cmd, sizeof cmd, "%s ", docker);
    size_t n = strlen(cmd);
    va_start(ap, fmt);
    vsnprintf(cmd + n, sizeof cmd - n, fmt, ap);
    va_end(ap);
    if (!(p = popen(cmd, "r")))
        return -1;
    if (out) {
        out[0] = '\0';
        if (fgets(out, (int)len, p))
            out[strcspn(out, "\n")] = '\0';
    }
    while (fgetc(p) != EOF)
        ;
    rc = pclose(p);
    return rc == 0 ? 0 : -1;
}

static void cleanup(void)
{
    char cmd[512];
    snprintf(cmd, sizeof cmd,
             "ids=$(%s ps -aq --filter label=boxcert.test=%s); [ -z \"$ids\" ] || %s rm -f $ids "
             ">/dev/null 2>&1",
             docker, label, docker);
    if (system(cmd) != 0)
        printf("# cleanup failed\n");
}

static void no_engine(const char *why)
{
    const char *req = getenv("BOXCERT_REQUIRE_ENGINE");
    if (req && strcmp(req, "1") == 0) {
        printf("not ok 1 - engine required (BOXCERT_REQUIRE_ENGINE=1): %s\n1..1\n", why);
        exit(1);
    }
    skip_all("no engine: %s", why);
}

static void collect(bx_engine *eng, const char *id, const char *image)
{
    bx_collect_opts o = {.container = id, .now = time(NULL), .ttl = 3600};
    json_t *p = NULL;
    bx_error e;
    int rc;

    ok_err(bx_collect(eng, &o, &p, &e), &e, "collect a hardened session");
    if (p) {
        json_t *ct = json_object_get(p, "containment");
        is_str(json_string_value(json_object_get(json_object_get(p, "session"), "containerId")), id,
               "session.containerId");
        is_str(json_string_value(json_object_get(json_object_get(p, "image"), "id")), image,
               "image.id");
        is_str(json_string_value(json_object_get(json_object_get(ct, "network"), "mode")), "none",
               "network none");
        ok(json_is_true(json_object_get(json_object_get(ct, "rootfs"), "readOnly")),
           "rootfs read-only");
        is_int(json_array_size(json_object_get(json_object_get(ct, "capabilities"), "effective")),
               0, "no capabilities");
        is_str(json_string_value(json_object_get(json_object_get(p, "engine"), "apiVersion")),
               bx_engine_api_version(eng), "engine.apiVersion is the negotiated one");
        ok(json_string_length(json_object_get(p, "inputsSha256")) == 64, "inputsSha256");
    }
    json_decref(p);
    p = NULL;

    o.expect_image = "sha256:0000000000000000000000000000000000000000000000000000000000000000";
    rc = bx_collect(eng, &o, &p, &e);
    ok(rc == BX_EDENIED && strstr(e.msg, "expected"), "other expected image: refused (%s)", e.msg);
    o.expect_image = image;
    rc = bx_collect(eng, &o, &p, &e);
    ok(rc == 0 && p &&
           !strcmp(json_string_value(json_object_get(json_object_get(p, "image"), "pin")), image),
       "matching expected image: pinned");
    json_decref(p);
}

int main(void)
{
    bx_engine *eng = NULL;
    json_t *j = NULL;
    bx_error e;
    char id[128], created[128], image[128];
    const char *l = getenv("BOXCERT_TEST_LABEL");
    int rc;

    docker = getenv("BOXCERT_DOCKER") ? getenv("BOXCERT_DOCKER") : "/usr/bin/docker";
    snprintf(label, sizeof label, "%s", l && *l ? l : "");
    if (!label[0])
        snprintf(label, sizeof label, "unit-attest-%ld", (long)getpid());
    if (bx_engine_open(NULL, &eng, &e) != 0)
        no_engine(e.msg);
    if (bx_engine_get(eng, "/version", &j, NULL, NULL, &e) != 0) {
        bx_engine_close(eng);
        no_engine(e.msg);
    }
    ok(1, "GET /version");
    ok(json_is_string(json_object_get(j, "ApiVersion")), "/version has ApiVersion");
    ok(strlen(bx_engine_api_version(eng)) >= 3, "negotiated %s", bx_engine_api_version(eng));
    json_decref(j);
    j = NULL;
    ok_err(bx_engine_get(eng, "/info", &j, NULL, NULL, &e), &e, "GET /info");
    json_decref(j);
    j = NULL;
    rc = bx_engine_get(eng, "/containers/doesnotexist-xyz/json", &j, NULL, NULL, &e);
    ok(rc == BX_ENOTFOUND && strstr(e.msg, "doesnotexist-xyz"),
       "missing container: BX_ENOTFOUND (%s)", e.msg);

    if (sh(image, sizeof image, "image inspect --format '{{.Id}}' %s", IMAGE) != 0) {
        ok(getenv("BOXCERT_REQUIRE_ENGINE") == NULL, "session image %s present", IMAGE);
        bx_engine_close(eng);
        return tap_done();
    }
    rc = sh(id, sizeof id,
            "run -d --label boxcert.test=%s --network none --read-only --cap-drop ALL "
            "--security-opt no-new-privileges %s sleep 300",
            label, IMAGE);
    if (ok(rc == 0 && strlen(id) == 64, "session started"))
        collect(eng, id, image);
    rc = sh(created, sizeof created, "create --label boxcert.test=%s --network none %s sleep 300",
            label, IMAGE);
    if (ok(rc == 0 && strlen(created) == 64, "session created, not started")) {
        bx_collect_opts o = {.container = created, .now = time(NULL), .ttl = 60};
        rc = bx_collect(eng, &o, &j, &e);
        ok(rc == BX_EDENIED && strstr(e.msg, "is not running"), "not running: refused (%s)", e.msg);
    }
    bx_collect_opts o = {.container = "doesnotexist-xyz", .now = time(NULL), .ttl = 60};
    rc = bx_collect(eng, &o, &j, &e);
    ok(rc == BX_ENOTFOUND, "collect of a missing container: BX_ENOTFOUND (%s)", e.msg);
    o.container = "bad/name";
    ok(bx_collect(eng, &o, &j, &e) == BX_ECONFIG, "container name with a slash refused");
    cleanup();
    bx_engine_close(eng);
    return tap_done();
}
