/* SPDX-License-Identifier: Apache-2.0 */
/* Which engine, as the docker CLI chooses it: DOCKER_HOST over the context, DOCKER_CONTEXT
 * over config.json's currentContext, a context's endpoint and its own TLS material, and every
 * way a context can be unknown or broken (an error, never a fallback). Nothing is sent: the
 * choice is made when the handle is opened. */
#include "tap.h"
#include "bx_attest.h"

#include <errno.h>
#include <fcntl.h>
#include <openssl/sha.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char cfg[64];

static void put(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    if (f) {
        fputs(text, f);
        fclose(f);
    }
}

static void hex_of(const char *name, char out[65])
{
    unsigned char md[SHA256_DIGEST_LENGTH];
    SHA256((const unsigned char *)name, strlen(name), md);
    for (int i = 0; i < 32; i++)
        snprintf(out + 2 * i, 3, "%02x", md[i]);
}

/* A context NAME whose meta.json is META (NULL: none); tls: 0 none, 1 ca+cert (no key),
 * 2 ca+cert+key. The folder of its TLS material into tlsdir. */
static void context(const char *name, const char *meta, int tls, char tlsdir[600])
{
    char hex[65], p[1024];

    hex_of(name, hex);
    snprintf(p, sizeof p, "mkdir -p %s/contexts/meta/%s %s/contexts/tls/%s", cfg, hex, cfg, hex);
    if (system(p) != 0)
        ok(0, "folders of context %s", name);
    snprintf(p, sizeof p, "%s/contexts/meta/%s/meta.json", cfg, hex);
    if (meta)
        put(p, meta);
    snprintf(tlsdir, 600, "%s/contexts/tls/%s/docker", cfg, hex);
    if (tls) {
        mkdir(tlsdir, 0700);
        snprintf(p, sizeof p, "%s/ca.pem", tlsdir);
        put(p, "x");
        snprintf(p, sizeof p, "%s/cert.pem", tlsdir);
        put(p, "x");
        snprintf(p, sizeof p, "%s/key.pem", tlsdir);
        if (tls == 2)
            put(p, "x");
    }
}

static void meta_of(char *buf, size_t n, const char *name, const char *host)
{
    snprintf(buf, n,
             "{\"Name\":\"%s\",\"Metadata\":{},\"Endpoints\":{\"docker\":{\"Host\":\"%s\","
             "\"SkipTLSVerify\":false}}}",
             name, host);
}

/* Open with url (NULL: the environment's choice); the endpoint chosen, or NULL with e. */
static int open_(const char *url, int flags, char *endpoint, size_t n, bx_error *e)
{
    bx_engine *eng = NULL;
    int rc = bx_engine_open_ex(url, flags, &eng, e);

    endpoint[0] = '\0';
    if (eng) {
        snprintf(endpoint, n, "%s|%s", bx_engine_endpoint(eng),
                 bx_engine_context(eng) ? bx_engine_context(eng) : "-");
        /* a second handle is made the same way whatever the environment says now */
        bx_engine *more = NULL;
        char *saved = getenv("DOCKER_CONTEXT") ? strdup(getenv("DOCKER_CONTEXT")) : NULL;
        setenv("DOCKER_CONTEXT", "nonexistent-now", 1);
        setenv("DOCKER_HOST", "unix:///nonexistent-now.sock", 1);
        if (bx_engine_open_like(eng, flags, &more, e) != 0 ||
            strcmp(bx_engine_endpoint(more), bx_engine_endpoint(eng)) != 0)
            ok(0, "open_like of %s gave another engine", bx_engine_endpoint(eng));
        unsetenv("DOCKER_HOST");
        if (saved)
            setenv("DOCKER_CONTEXT", saved, 1);
        else
            unsetenv("DOCKER_CONTEXT");
        free(saved);
        bx_engine_close(more);
    }
    bx_engine_close(eng);
    return rc;
}

int main(void)
{
    char m[1024], ep[512], tls[600], p[700];
    bx_error e;
    int rc;

    snprintf(cfg, sizeof cfg, "/tmp/bx-contexts.XXXXXX");
    if (!mkdtemp(cfg)) {
        ok(0, "mkdtemp");
        return tap_done();
    }
    setenv("DOCKER_CONFIG", cfg, 1);
    unsetenv("DOCKER_HOST");
    unsetenv("DOCKER_CONTEXT");
    unsetenv("DOCKER_TLS_VERIFY");
    unsetenv("DOCKER_CERT_PATH");

    /* no config.json, no context: the default socket */
    ok_err(open_(NULL, 0, ep, sizeof ep, &e), &e, "no context at all");
    is_str(ep, "unix:///var/run/docker.sock|-", "... the default socket");

    /* a context on a unix socket, chosen by DOCKER_CONTEXT */
    meta_of(m, sizeof m, "lab", "unix:///run/lab.sock");
    context("lab", m, 0, tls);
    setenv("DOCKER_CONTEXT", "lab", 1);
    ok_err(open_(NULL, 0, ep, sizeof ep, &e), &e, "DOCKER_CONTEXT=lab");
    is_str(ep, "unix:///run/lab.sock|lab", "... its endpoint, and its name kept");

    /* DOCKER_HOST over DOCKER_CONTEXT, as the docker CLI */
    setenv("DOCKER_HOST", "unix:///run/host.sock", 1);
    ok_err(open_(NULL, 0, ep, sizeof ep, &e), &e, "DOCKER_HOST and DOCKER_CONTEXT");
    is_str(ep, "unix:///run/host.sock|-", "... DOCKER_HOST wins");
    /* an engine named on the command line over both */
    ok_err(open_("unix:///run/flag.sock", 0, ep, sizeof ep, &e), &e, "--engine over both");
    is_str(ep, "unix:///run/flag.sock|-", "... the named engine");
    /* --context (context:NAME) over DOCKER_HOST */
    ok_err(open_("context:lab", 0, ep, sizeof ep, &e), &e, "context:lab over DOCKER_HOST");
    is_str(ep, "unix:///run/lab.sock|lab", "... the context's engine");
    unsetenv("DOCKER_HOST");

    /* config.json's currentContext when DOCKER_CONTEXT is not set */
    unsetenv("DOCKER_CONTEXT");
    snprintf(p, sizeof p, "%s/config.json", cfg);
    put(p, "{\"auths\":{},\"currentContext\":\"lab\"}");
    ok_err(open_(NULL, 0, ep, sizeof ep, &e), &e, "currentContext lab");
    is_str(ep, "unix:///run/lab.sock|lab", "... its endpoint");
    setenv("DOCKER_CONTEXT", "default", 1);
    ok_err(open_(NULL, 0, ep, sizeof ep, &e), &e, "DOCKER_CONTEXT=default over currentContext");
    is_str(ep, "unix:///var/run/docker.sock|-", "... the default socket");
    unsetenv("DOCKER_CONTEXT");
    put(p, "{\"currentContext\":\"default\"}");
    ok_err(open_(NULL, 0, ep, sizeof ep, &e), &e, "currentContext default");
    is_str(ep, "unix:///var/run/docker.sock|-", "... the default socket");
    put(p, "{\"currentContext\":7}");
    rc = open_(NULL, 0, ep, sizeof ep, &e);
    ok(rc == BX_ECONFIG && strstr(e.msg, "currentContext"), "currentContext not a string: %s",
       e.msg);
    put(p, "{\"currentContext\":");
    rc = open_(NULL, 0, ep, sizeof ep, &e);
    ok(rc == BX_ECONFIG && strstr(e.where, "config.json"), "config.json not JSON: BX_ECONFIG (%s)",
       e.msg);
    put(p, "{\"currentContext\":\"gone\"}");
    rc = open_(NULL, 0, ep, sizeof ep, &e);
    ok(rc == BX_ECONFIG && strstr(e.msg, "no such docker context"),
       "currentContext names no context: BX_ECONFIG, not the default (%s)", e.msg);
    unlink(p);
    /* config.json a FIFO: refused at once, never waited on */
    ok(mkfifo(p, 0600) == 0, "config.json made a FIFO");
    rc = open_(NULL, 0, ep, sizeof ep, &e);
    ok(rc == BX_ECONFIG && strstr(e.msg, "regular file"), "... refused, not read (%s)", e.msg);
    unlink(p);

    /* unknown and broken contexts: errors, never a fallback */
    setenv("DOCKER_CONTEXT", "nosuch", 1);
    rc = open_(NULL, 0, ep, sizeof ep, &e);
    ok(rc == BX_ECONFIG && !ep[0] && strstr(e.msg, "no such docker context"),
       "an unknown context: BX_ECONFIG (%s)", e.msg);
    static const char *const names[] = {"../lab", "", "-x", "a/b", "a b"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        char u[64];
        snprintf(u, sizeof u, "context:%s", names[i]);
        rc = open_(u, 0, ep, sizeof ep, &e);
        ok(rc == BX_ECONFIG && strstr(e.msg, "not a docker context name"),
           "context name \"%s\" refused (%s)", names[i], e.msg);
    }
    struct {
        const char *name, *meta, *why;
    } broken[] = {
        {"b1", "{\"Name\":\"b1\",", "not a JSON object"},
        {"b2", "[]", "not a JSON object"},
        {"b3", "{\"Name\":\"other\",\"Endpoints\":{\"docker\":{\"Host\":\"unix:///x\"}}}",
         "Name"},
        {"b4", "{\"Name\":\"b4\",\"Endpoints\":{}}", "Host"},
        {"b5", "{\"Name\":\"b5\",\"Endpoints\":{\"docker\":{\"Host\":5}}}", "Host"},
        {"b6", "{\"Name\":\"b6\",\"Endpoints\":{\"docker\":{\"Host\":\"\"}}}", "Host"},
        {"b7",
         "{\"Name\":\"b7\",\"Endpoints\":{\"docker\":{\"Host\":\"tcp://127.0.0.1:2376\","
         "\"SkipTLSVerify\":true}}}",
         "skips TLS verification"},
        {"b8",
         "{\"Name\":\"b8\",\"Endpoints\":{\"docker\":{\"Host\":\"unix:///x\","
         "\"SkipTLSVerify\":\"no\"}}}",
         "SkipTLSVerify"},
        {"b9", "{\"Name\":\"b9\",\"Name\":\"b9\",\"Endpoints\":{\"docker\":{\"Host\":\"unix:///x\"}}}",
         "not a JSON object"},
    };
    for (size_t i = 0; i < sizeof broken / sizeof broken[0]; i++) {
        char u[64];
        context(broken[i].name, broken[i].meta, 0, tls);
        snprintf(u, sizeof u, "context:%s", broken[i].name);
        rc = open_(u, 0, ep, sizeof ep, &e);
        ok(rc == BX_ECONFIG && !ep[0] && strstr(e.msg, broken[i].why),
           "context %s: BX_ECONFIG, %s (%s)", broken[i].name, broken[i].why, e.msg);
    }
    /* a context whose meta.json is a FIFO */
    {
        char hex[65];
        context("fifo", NULL, 0, tls);
        hex_of("fifo", hex);
        snprintf(p, sizeof p, "%s/contexts/meta/%s/meta.json", cfg, hex);
        ok(mkfifo(p, 0600) == 0, "a context's meta.json made a FIFO");
        rc = open_("context:fifo", 0, ep, sizeof ep, &e);
        ok(rc == BX_ECONFIG && strstr(e.msg, "regular file"), "... refused, not waited on (%s)",
           e.msg);
    }
    /* an ssh:// context; an engine the client does not speak */
    meta_of(m, sizeof m, "sshctx", "ssh://user@host");
    context("sshctx", m, 0, tls);
    ok_err(open_("context:sshctx", 0, ep, sizeof ep, &e), &e, "a context on ssh://");
    is_str(ep, "ssh://user@host|sshctx", "... its endpoint");
    meta_of(m, sizeof m, "pipe", "npipe:////./pipe/docker_engine");
    context("pipe", m, 0, tls);
    rc = open_("context:pipe", 0, ep, sizeof ep, &e);
    ok(rc == BX_EUNSUPPORTED && strstr(e.msg, "context's engine"),
       "a context on npipe://: BX_EUNSUPPORTED (%s)", e.msg);

    /* TLS: the context's own material, not DOCKER_TLS_VERIFY or DOCKER_CERT_PATH */
    meta_of(m, sizeof m, "plain", "tcp://127.0.0.1:2376");
    context("plain", m, 0, tls);
    setenv("DOCKER_TLS_VERIFY", "1", 1);
    setenv("DOCKER_CERT_PATH", "/nonexistent-boxcert-certs", 1);
    rc = open_("context:plain", 0, ep, sizeof ep, &e);
    ok(rc == BX_ECONFIG && strstr(e.msg, "context has no TLS material"),
       "tcp:// context without TLS material: refused although DOCKER_TLS_VERIFY is set (%s)",
       e.msg);
    ok_err(open_("context:plain", BX_ENGINE_INSECURE, ep, sizeof ep, &e), &e,
           "... allowed with --insecure-engine");
    is_str(ep, "tcp://127.0.0.1:2376|plain", "... its endpoint");
    unsetenv("DOCKER_TLS_VERIFY");
    meta_of(m, sizeof m, "halftls", "tcp://127.0.0.1:2376");
    context("halftls", m, 1, tls);
    rc = open_("context:halftls", 0, ep, sizeof ep, &e);
    snprintf(p, sizeof p, "%s/key.pem", tls);
    ok(rc == BX_ECONFIG && !strcmp(e.where, p),
       "TLS on with the context's folder, without DOCKER_TLS_VERIFY: its missing key.pem named "
       "(%s: %s)",
       e.where, e.msg);
    meta_of(m, sizeof m, "tls", "tcp://127.0.0.1:2376");
    context("tls", m, 2, tls);
    ok_err(open_("context:tls", 0, ep, sizeof ep, &e), &e, "a context with its TLS material");
    is_str(ep, "tcp://127.0.0.1:2376|tls", "... its endpoint");
    unsetenv("DOCKER_CERT_PATH");

    snprintf(p, sizeof p, "rm -rf %s", cfg);
    if (system(p) != 0)
        ok(0, "cleanup");
    return tap_done();
}
