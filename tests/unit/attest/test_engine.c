/* SPDX-License-Identifier: Apache-2.0 */
/* The Engine API client without an engine: endpoints, an unreachable socket, and a fake
 * engine on a socket of our own (version negotiation, caching, connection reuse, 404,
 * other statuses, bad JSON, oversize replies, an engine that dies mid-reply). */
#include "tap.h"
#include "bx_attest.h"

#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <sys/wait.h>
#include <unistd.h>

static int version_calls, connections;
static char scenario[128];

#define FIXTURE BOXCERT_SOURCE_DIR "/fixtures/inspect/hardened"

/* The recorded hardened session, as first seen (by name) or as seen again (by Id) after
 * what the scenario did to it. Caller frees. */
static char *session_json(const char *name)
{
    json_t *c = json_load_file(FIXTURE "/container.json", 0, NULL);
    json_t *st = json_object_get(c, "State");
    char *out;

    if (strlen(name) != 64) {
        snprintf(scenario, sizeof scenario, "%s", name);
    } else if (!strcmp(scenario, "restarted")) {
        json_object_set_new(st, "StartedAt", json_string("2030-01-01T00:00:00.1Z"));
    } else if (!strcmp(scenario, "repid")) {
        json_object_set_new(st, "Pid", json_integer(4242));
    } else if (!strcmp(scenario, "stopped")) {
        json_object_set_new(st, "Running", json_false());
    } else if (!strcmp(scenario, "reimaged")) {
        json_object_set_new(
            c, "Image",
            json_string("sha256:1111111111111111111111111111111111111111111111111111111111111111"));
    } else if (!strcmp(scenario, "gone")) {
        json_decref(c);
        return NULL;
    }
    out = json_dumps(c, JSON_COMPACT);
    json_decref(c);
    return out;
}

static void send_all(int fd, const char *buf, size_t len)
{
    while (len > 0) {
        ssize_t n = write(fd, buf, len);
        if (n <= 0)
            return;
        buf += n;
        len -= (size_t)n;
    }
}

static void reply(int fd, int status, const char *body, int close_delimited)
{
    char head[256];
    int n;

    if (close_delimited)
        n = snprintf(head, sizeof head, "HTTP/1.1 %d X\r\nConnection: close\r\n\r\n", status);
    else
        n = snprintf(
            head, sizeof head,
            "HTTP/1.1 %d X\r\nContent-Type: application/json\r\nContent-Length: %zu\r\n\r\n",
            status, strlen(body));
    send_all(fd, head, (size_t)n);
    send_all(fd, body, strlen(body));
}

static void big(int fd, int with_length)
{
    static char chunk[65536];
    size_t total = BX_ENGINE_REPLY_MAX + 65536;
    char head[128];
    int n =
        with_length
            ? snprintf(head, sizeof head, "HTTP/1.1 200 OK\r\nContent-Length: %zu\r\n\r\n[", total)
            : snprintf(head, sizeof head, "HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n[");

    memset(chunk, ' ', sizeof chunk);
    send_all(fd, head, (size_t)n);
    for (size_t sent = 1; sent < total; sent += sizeof chunk)
        if (write(fd, chunk, sizeof chunk) <= 0)
            return;
}

/* Serve requests on one connection; returns 0 to keep it open. */
static int route(int fd, const char *path)
{
    char body[256];

    if (strcmp(path, "/version") == 0) {
        version_calls++;
        reply(fd, 200, "{\"ApiVersion\":\"1.40\",\"Version\":\"fake\"}", 0);
    } else if (strncmp(path, "/v1.40/", 7) != 0) {
        reply(fd, 400, "{\"message\":\"client version not negotiated\"}", 0);
    } else if (strcmp(path + 6, "/info") == 0) {
        reply(fd, 200, "{\"ID\":\"fake-engine\"}", 0);
    } else if (strcmp(path + 6, "/count") == 0) {
        snprintf(body, sizeof body, "{\"version\":%d,\"connections\":%d}", version_calls,
                 connections);
        reply(fd, 200, body, 0);
    } else if (strncmp(path + 6, "/containers/", 12) == 0 && strstr(path, "/json") &&
               !strstr(path, "/missing/")) {
        char name[128];
        snprintf(name, sizeof name, "%.*s", (int)(strstr(path, "/json") - path - 18), path + 18);
        char *body_json = session_json(name);
        if (body_json)
            reply(fd, 200, body_json, 0);
        else
            reply(fd, 404, "{\"message\":\"No such container\"}", 0);
        free(body_json);
    } else if (strncmp(path + 6, "/images/", 8) == 0) {
        char *img = NULL;
        json_t *j = json_load_file(FIXTURE "/image.json", 0, NULL);
        img = json_dumps(j, JSON_COMPACT);
        reply(fd, 200, img ? img : "{}", 0);
        free(img);
        json_decref(j);
    } else if (strcmp(path + 6, "/ok") == 0) {
        reply(fd, 200, "{\"ok\":true}", 0);
    } else if (strcmp(path + 6, "/containers/missing/json") == 0) {
        reply(fd, 404, "{\"message\":\"No such container: missing\"}", 0);
    } else if (strcmp(path + 6, "/boom") == 0) {
        reply(fd, 500, "{\"message\":\"boom\"}", 0);
    } else if (strcmp(path + 6, "/notjson") == 0) {
        reply(fd, 200, "hello", 0);
    } else if (strcmp(path + 6, "/dup") == 0) {
        reply(fd, 200, "{\"a\":1,\"a\":2}", 0);
    } else if (strcmp(path + 6, "/big") == 0) {
        big(fd, 1);
        return 1;
    } else if (strcmp(path + 6, "/bigclose") == 0) {
        big(fd, 0);
        return 1;
    } else if (strcmp(path + 6, "/die") == 0) {
        const char *cut = "HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n{\"a\":";
        send_all(fd, cut, strlen(cut));
        return 1;
    } else {
        reply(fd, 404, "{\"message\":\"no route\"}", 0);
    }
    return 0;
}

static void serve_conn(int fd)
{
    char buf[8192];
    size_t len = 0;

    connections++;
    for (;;) {
        char *end = memmem(buf, len, "\r\n\r\n", 4), path[1024];
        if (!end) {
            ssize_t n = read(fd, buf + len, sizeof buf - len - 1);
            if (n <= 0)
                return;
            len += (size_t)n;
            continue;
        }
        if (sscanf(buf, "GET %1023s HTTP/1.1", path) != 1 || route(fd, path) != 0)
            return;
        size_t used = (size_t)(end + 4 - buf);
        memmove(buf, buf + used, len - used);
        len -= used;
    }
}

static pid_t fake_engine(const char *sock)
{
    struct sockaddr_un sa = {.sun_family = AF_UNIX};
    int s = socket(AF_UNIX, SOCK_STREAM, 0);
    pid_t pid;

    snprintf(sa.sun_path, sizeof sa.sun_path, "%s", sock);
    if (s < 0 || bind(s, (struct sockaddr *)&sa, sizeof sa) != 0 || listen(s, 8) != 0)
        return -1;
    pid = fork();
    if (pid == 0) {
        signal(SIGPIPE, SIG_IGN);
        for (;;) {
            int c = accept(s, NULL, NULL);
            if (c < 0)
                _exit(0);
            serve_conn(c);
            close(c);
        }
    }
    close(s);
    return pid;
}

/* The same fake engine on 127.0.0.1 (a plain tcp:// engine); *port receives its port. */
static pid_t fake_engine_tcp(int *port)
{
    struct sockaddr_in sa = {.sin_family = AF_INET};
    socklen_t len = sizeof sa;
    int s = socket(AF_INET, SOCK_STREAM, 0);
    pid_t pid;

    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (s < 0 || bind(s, (struct sockaddr *)&sa, sizeof sa) != 0 || listen(s, 8) != 0 ||
        getsockname(s, (struct sockaddr *)&sa, &len) != 0)
        return -1;
    *port = ntohs(sa.sin_port);
    pid = fork();
    if (pid == 0) {
        signal(SIGPIPE, SIG_IGN);
        for (;;) {
            int c = accept(s, NULL, NULL);
            if (c < 0)
                _exit(0);
            serve_conn(c);
            close(c);
        }
    }
    close(s);
    return pid;
}

static void tcp_fake(void)
{
    char url[64];
    bx_engine *eng = NULL;
    json_t *j = NULL;
    bx_error e;
    int port = 0;
    pid_t pid = fake_engine_tcp(&port);

    if (!ok(pid > 0, "fake tcp engine started"))
        return;
    snprintf(url, sizeof url, "tcp://127.0.0.1:%d", port);
    ok_err(bx_engine_open_ex(url, BX_ENGINE_INSECURE, &eng, &e), &e, "open %s insecure", url);
    if (eng) {
        char peer[65];
        ok_err(bx_engine_get(eng, "/version", &j, NULL, NULL, &e), &e, "tcp: GET /version");
        json_decref(j);
        j = NULL;
        ok_err(bx_engine_get(eng, "/info", &j, NULL, NULL, &e), &e, "tcp: GET /info");
        json_decref(j);
        j = NULL;
        ok_err(bx_engine_get(eng, "/count", &j, NULL, NULL, &e), &e, "tcp: GET /count");
        is_int(json_integer_value(json_object_get(j, "connections")), 1,
               "tcp: one connection reused");
        ok(bx_engine_tls_peer_sha256(eng, peer) == NULL, "no TLS: no peer certificate");
        json_decref(j);
    }
    bx_engine_close(eng);
    kill(pid, SIGKILL);
    waitpid(pid, NULL, 0);
}

static void endpoints(void)
{
    bx_engine *eng = NULL;
    bx_error e;

    unsetenv("DOCKER_TLS_VERIFY");
    int rc = bx_engine_open("tcp://127.0.0.1:2376", &eng, &e);
    ok(rc == BX_ECONFIG && !eng && strstr(e.msg, "plain tcp:// engine refused"),
       "plain tcp:// refused without DOCKER_TLS_VERIFY (%s)", e.msg);
    ok_err(bx_engine_open_ex("tcp://127.0.0.1:2376", BX_ENGINE_INSECURE, &eng, &e), &e,
           "plain tcp:// allowed with BX_ENGINE_INSECURE");
    if (eng)
        ok(bx_engine_is_remote(eng) && !bx_engine_socket(eng), "a tcp:// engine is remote");
    bx_engine_close(eng);
    eng = NULL;
    static const char *const bad[] = {"tcp://",        "tcp://host",     "tcp://:2376", "tcp://h:0",
                                      "tcp://h:70000", "tcp://h:1/path", "tcp://u@h:1"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        ok(bx_engine_open_ex(bad[i], BX_ENGINE_INSECURE, &eng, &e) == BX_ECONFIG && !eng,
           "%s refused (%s)", bad[i], e.msg);
    setenv("DOCKER_TLS_VERIFY", "1", 1);
    setenv("DOCKER_CERT_PATH", "/nonexistent-boxcert-certs", 1);
    rc = bx_engine_open("tcp://127.0.0.1:2376", &eng, &e);
    ok(rc == BX_ECONFIG && !eng && strstr(e.where, "ca.pem"),
       "DOCKER_TLS_VERIFY with no certificates: BX_ECONFIG naming ca.pem (%s: %s)", e.where, e.msg);
    unsetenv("DOCKER_TLS_VERIFY");
    unsetenv("DOCKER_CERT_PATH");
    static const char *const bad_ssh[] = {"ssh://",         "ssh://-oProxyCommand=x", "ssh://h:0",
                                          "ssh://h:99999",  "ssh://h/path",           "ssh://@h",
                                          "ssh://u@",       "ssh://h:",               "ssh://h:2a",
                                          "ssh://u;x@h",    "ssh://h h",              "ssh://u@-h"};
    for (size_t i = 0; i < sizeof bad_ssh / sizeof bad_ssh[0]; i++)
        ok(bx_engine_open(bad_ssh[i], &eng, &e) == BX_ECONFIG && !eng, "%s refused (%s)",
           bad_ssh[i], e.msg);
    static const char *const good_ssh[] = {"ssh://h", "ssh://u@h.example:2222", "ssh://u_1@10.0.0.1"};
    for (size_t i = 0; i < sizeof good_ssh / sizeof good_ssh[0]; i++) {
        ok_err(bx_engine_open(good_ssh[i], &eng, &e), &e, "%s taken", good_ssh[i]);
        if (eng)
            ok(bx_engine_is_remote(eng) && !bx_engine_socket(eng), "... a remote engine");
        bx_engine_close(eng);
        eng = NULL;
    }
    ok(bx_engine_open("unix://relative.sock", &eng, &e) == BX_ECONFIG, "relative socket refused");
    ok(bx_engine_open("http://localhost", &eng, &e) == BX_EUNSUPPORTED, "http:// refused");
    setenv("DOCKER_HOST", "unix:///tmp/from-env.sock", 1);
    ok_err(bx_engine_open(NULL, &eng, &e), &e, "DOCKER_HOST used when no url");
    if (eng)
        is_str(bx_engine_endpoint(eng), "unix:///tmp/from-env.sock", "endpoint from DOCKER_HOST");
    bx_engine_close(eng);
    unsetenv("DOCKER_HOST");
    ok_err(bx_engine_open(NULL, &eng, &e), &e, "default endpoint");
    if (eng) {
        is_str(bx_engine_endpoint(eng), "unix:///var/run/docker.sock", "default is docker.sock");
        is_str(bx_engine_api_version(eng), "", "nothing negotiated before a request");
    }
    bx_engine_close(eng);
}

static void unreachable(const char *dir)
{
    char url[300], sock[100];
    bx_engine *eng = NULL;
    json_t *j = NULL;
    bx_error e;
    int rc;

    snprintf(url, sizeof url, "unix://%s/nothing.sock", dir);
    ok_err(bx_engine_open(url, &eng, &e), &e, "open sends nothing");
    rc = eng ? bx_engine_get(eng, "/version", &j, NULL, NULL, &e) : -99;
    ok(rc == BX_EENV && strstr(e.msg, "engine unreachable at unix://"),
       "missing socket: BX_EENV (%s)", e.msg);
    bx_engine_close(eng);

    /* a socket nobody listens on */
    struct sockaddr_un sa = {.sun_family = AF_UNIX};
    int s = socket(AF_UNIX, SOCK_STREAM, 0);
    snprintf(sock, sizeof sock, "%s/deaf.sock", dir);
    snprintf(sa.sun_path, sizeof sa.sun_path, "%s", sock);
    ok(s >= 0 && bind(s, (struct sockaddr *)&sa, sizeof sa) == 0, "bound a deaf socket");
    snprintf(url, sizeof url, "unix://%s", sock);
    eng = NULL;
    ok_err(bx_engine_open(url, &eng, &e), &e, "open deaf");
    rc = eng ? bx_engine_get(eng, "/version", &j, NULL, NULL, &e) : -99;
    ok(rc == BX_EENV && strstr(e.msg, "engine unreachable"), "refused connection: BX_EENV (%s)",
       e.msg);
    bx_engine_close(eng);
    close(s);
    unlink(sock);
}

static int get(bx_engine *eng, const char *path, json_t **j, bx_error *e)
{
    json_decref(*j);
    *j = NULL;
    return bx_engine_get(eng, path, j, NULL, NULL, e);
}

static void fake(const char *dir)
{
    char url[300], sock[100], *raw = NULL;
    size_t rawlen = 0;
    bx_engine *eng = NULL;
    json_t *j = NULL;
    bx_error e;
    pid_t pid;
    int rc;

    snprintf(sock, sizeof sock, "%s/fake.sock", dir);
    snprintf(url, sizeof url, "unix://%s", sock);
    pid = fake_engine(sock);
    if (!ok(pid > 0, "fake engine started"))
        return;
    ok_err(bx_engine_open(url, &eng, &e), &e, "open fake");
    ok_err(bx_engine_get(eng, "/version", &j, &raw, &rawlen, &e), &e, "GET /version");
    is_str(bx_engine_api_version(eng), "1.40", "older engine: its own API version");
    ok(raw && rawlen == strlen("{\"ApiVersion\":\"1.40\",\"Version\":\"fake\"}"),
       "raw bytes of the reply");
    free(raw);
    ok_err(get(eng, "/info", &j, &e), &e, "GET /info");
    ok_err(get(eng, "/info", &j, &e), &e, "GET /info again (cached)");
    ok_err(get(eng, "/version", &j, &e), &e, "GET /version again (cached)");
    ok_err(get(eng, "/ok", &j, &e), &e, "GET /ok");
    ok_err(get(eng, "/count", &j, &e), &e, "GET /count");
    is_int(json_integer_value(json_object_get(j, "version")), 1, "/version asked once");
    is_int(json_integer_value(json_object_get(j, "connections")), 1, "one connection reused");

    rc = get(eng, "/containers/missing/json", &j, &e);
    ok(rc == BX_ENOTFOUND && strcmp(e.msg, "No such container: missing") == 0,
       "404: BX_ENOTFOUND with the engine's message (%s)", e.msg);
    rc = get(eng, "/boom", &j, &e);
    ok(rc == BX_EENV && strstr(e.msg, "HTTP 500") && strstr(e.msg, "boom"), "500: BX_EENV (%s)",
       e.msg);
    rc = get(eng, "/notjson", &j, &e);
    ok(rc == BX_EINVAL, "not JSON: BX_EINVAL (%s)", e.msg);
    rc = get(eng, "/dup", &j, &e);
    ok(rc == BX_EINVAL && strstr(e.msg, "duplicate"), "duplicate keys: BX_EINVAL (%s)", e.msg);
    ok(get(eng, "bad path", &j, &e) == BX_EINVAL, "not a path: BX_EINVAL");
    rc = get(eng, "/big", &j, &e);
    ok(rc == BX_EINVAL && strstr(e.msg, "engine reply too large"),
       "oversize with Content-Length: BX_EINVAL (%s)", e.msg);
    rc = get(eng, "/bigclose", &j, &e);
    ok(rc == BX_EINVAL && strstr(e.msg, "engine reply too large"),
       "oversize without length: BX_EINVAL (%s)", e.msg);
    rc = get(eng, "/die", &j, &e);
    ok(rc == BX_EENV, "engine dies mid-reply: BX_EENV (%s)", e.msg);
    ok_err(get(eng, "/ok", &j, &e), &e, "client recovers after a lost connection");

    json_decref(j);
    bx_engine_close(eng);
    kill(pid, SIGKILL);
    waitpid(pid, NULL, 0);
    unlink(sock);
}

/* bx_collect re-inspects the session at the end: the same start of the same container. */
static void recheck(const char *dir)
{
    static const struct {
        const char *name, *want;
    } t[] = {
        {"same", NULL},
        {"restarted", "changed during collection"},
        {"repid", "changed during collection"},
        {"reimaged", "changed during collection"},
        {"stopped", "is no longer running"},
        {"gone", "is no longer running"},
    };
    char url[300], sock[100];
    bx_engine *eng = NULL;
    bx_error e;
    pid_t pid;

    snprintf(sock, sizeof sock, "%s/fake2.sock", dir);
    snprintf(url, sizeof url, "unix://%s", sock);
    pid = fake_engine(sock);
    if (!ok(pid > 0, "fake engine started") || bx_engine_open(url, &eng, &e) != 0)
        return;
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        bx_collect_opts o = {.container = t[i].name, .now = 1767225600, .ttl = 60};
        json_t *p = NULL;
        int rc = bx_collect(eng, &o, &p, &e);
        if (!t[i].want)
            ok(rc == 0 && p, "%s: collected (%s)", t[i].name, rc ? e.msg : "ok");
        else
            ok(rc == BX_EDENIED && !p && strstr(e.msg, t[i].want), "%s: refused (%s)", t[i].name,
               e.msg);
        json_decref(p);
    }
    bx_collect_opts o = {
        .container = "reimaged",
        .now = 1767225600,
        .ttl = 60,
        .expect_image = "sha256:a718e8935c8e400ef5418beccf861e21824480777b4f805eb2da65c283b74e7c"};
    json_t *p = NULL;
    int rc = bx_collect(eng, &o, &p, &e);
    ok(rc == BX_EDENIED && !p && strstr(e.msg, "expected"),
       "expected image checked again at the end (%s)", e.msg);
    bx_engine_close(eng);
    kill(pid, SIGKILL);
    waitpid(pid, NULL, 0);
    unlink(sock);
}

static void negotiate(void)
{
    char v[16];
    bx_error e;

    ok(bx_engine_api_negotiate("1.43", v, &e) == 0 && strcmp(v, "1.41") == 0, "1.43 -> 1.41");
    ok(bx_engine_api_negotiate("1.41", v, &e) == 0 && strcmp(v, "1.41") == 0, "1.41 -> 1.41");
    ok(bx_engine_api_negotiate("1.24", v, &e) == 0 && strcmp(v, "1.24") == 0, "1.24 -> 1.24");
    ok(bx_engine_api_negotiate("2.0", v, &e) == 0 && strcmp(v, "1.41") == 0, "2.0 -> 1.41");
    ok(bx_engine_api_negotiate("1.x", v, &e) == BX_EUNSUPPORTED, "1.x refused");
    ok(bx_engine_api_negotiate(NULL, v, &e) == BX_EUNSUPPORTED, "no version refused");
}

int main(void)
{
    char dir[] = "/tmp/bx-engine-test.XXXXXX";

    if (!mkdtemp(dir)) {
        ok(0, "mkdtemp");
        return tap_done();
    }
    endpoints();
    negotiate();
    unreachable(dir);
    fake(dir);
    tcp_fake();
    recheck(dir);
    rmdir(dir);
    return tap_done();
}
