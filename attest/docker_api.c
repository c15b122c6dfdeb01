/* SPDX-License-Identifier: Apache-2.0 */
/* The Engine API client: unix:// sockets and tcp:// with mutual TLS as the docker CLI
 * does it (DOCKER_TLS_VERIFY, DOCKER_CERT_PATH with ca.pem, cert.pem, key.pem). One
 * libcurl handle, so one connection, is reused for every request; /version and /info are
 * asked once per handle. */
#include "bx_attest.h"

#include <curl/curl.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <openssl/crypto.h>
#include <openssl/sha.h>
#include <openssl/pem.h>
#include <openssl/x509.h>

#define DEFAULT_ENDPOINT "unix:///var/run/docker.sock"
#define CONNECT_TIMEOUT_S 5L
#define TOTAL_TIMEOUT_S 30L

struct bx_engine {
    char *endpoint;         /* as given or defaulted */
    char *sock;             /* unix socket path, or NULL for tcp:// */
    char *base;             /* "http://localhost", "https://host:port" or "http://host:port" */
    int tls;                /* tcp:// with mutual TLS */
    char *ca, *cert, *key;  /* DOCKER_CERT_PATH/{ca,cert,key}.pem when tls, or the context's */
    char *context;          /* the docker context it came from, or NULL */
    char *ssh_host, *ssh_user, *ssh_port; /* ssh://[user@]host[:port] */
    char *ssh_path, *ssh_cfg, *ssh_dir, *ssh_sock;
    const char *ssh_args[20];
    pid_t ssh_acceptor; /* our child giving each connection its ssh (0: not started) */
    int ssh_errfd;      /* the standard error of every ssh, or -1 */
    char ssh_error[200]; /* the last ssh's first line on standard error */
    unsigned char peer[32]; /* SHA-256 of the server certificate's DER, once seen */
    int have_peer;
    CURL *curl;   /* kept for connection reuse */
    char api[16]; /* negotiated API version, "" until the first request */
    char errbuf[CURL_ERROR_SIZE];
    /* per-process cache of /version and /info */
    json_t *version, *info;
    char *version_raw, *info_raw;
    size_t version_len, info_len;
};

typedef struct {
    char *buf;
    size_t len, cap;
    int too_large;
    char api[16]; /* the reply's Api-Version header, "" when none */
} reply;

static size_t on_header(char *p, size_t size, size_t n, void *ud)
{
    static const char name[] = "api-version:";
    reply *r = ud;
    size_t len = size * n, i = sizeof name - 1, o = 0;

    if (len > i && strncasecmp(p, name, i) == 0) {
        while (i < len && (p[i] == ' ' || p[i] == '\t'))
            i++;
        while (i < len && o + 1 < sizeof r->api && ((p[i] >= '0' && p[i] <= '9') || p[i] == '.'))
            r->api[o++] = p[i++];
        r->api[o] = '\0';
    }
    return len;
}

static size_t on_write(char *p, size_t size, size_t n, void *ud)
{
    reply *r = ud;
    size_t add = size * n;

    if (size && add / size != n)
        return 0;
    if (add > (size_t)BX_ENGINE_REPLY_MAX - r->len) {
        r->too_large = 1;
        return 0; /* aborts the transfer with CURLE_WRITE_ERROR */
    }
    if (r->len + add + 1 > r->cap) {
        size_t cap = r->cap ? r->cap : 16384;
        while (cap < r->len + add + 1)
            cap *= 2;
        char *nb = realloc(r->buf, cap);
        if (!nb)
            return 0;
        r->buf = nb;
        r->cap = cap;
    }
    memcpy(r->buf + r->len, p, add);
    r->len += add;
    r->buf[r->len] = '\0';
    return add;
}

static int parse_version(const char *s, unsigned *maj, unsigned *min)
{
    char *end;
    const char *p = s;

    if (!s || *p < '0' || *p > '9')
        return -1;
    unsigned long a = strtoul(p, &end, 10);
    if (*end != '.' || a > 1000)
        return -1;
    p = end + 1;
    if (*p < '0' || *p > '9')
        return -1;
    unsigned long b = strtoul(p, &end, 10);
    if (*end != '\0' || b > 1000)
        return -1;
    *maj = (unsigned)a;
    *min = (unsigned)b;
    return 0;
}

int bx_engine_api_negotiate(const char *server, char out[16], bx_error *err)
{
    unsigned smaj, smin, cmaj, cmin;

    if (parse_version(BX_ENGINE_API_MAX, &cmaj, &cmin) != 0 ||
        parse_version(server, &smaj, &smin) != 0)
        return bx_error_set(err, BX_EUNSUPPORTED, "/version",
                            "engine reports no usable API version");
    if (smaj < cmaj || (smaj == cmaj && smin < cmin)) {
        cmaj = smaj;
        cmin = smin;
    }
    snprintf(out, 16, "%u.%u", cmaj, cmin);
    return 0;
}

/* DOCKER_CERT_PATH as the docker CLI reads it: the variable, else $DOCKER_CONFIG, else
 * ~/.docker. Caller frees. */
static char *cert_dir(void)
{
    const char *d = getenv("DOCKER_CERT_PATH"), *home;
    char *out = NULL;

    if (d && *d)
        return strdup(d);
    if ((d = getenv("DOCKER_CONFIG")) && *d)
        return strdup(d);
    home = getenv("HOME");
    if (!home || !*home)
        return NULL;
    if (asprintf(&out, "%s/.docker", home) < 0)
        return NULL;
    return out;
}

static int tls_file(const char *dir, const char *name, char **out, bx_error *err)
{
    struct stat st;

    if (asprintf(out, "%s/%s", dir, name) < 0) {
        *out = NULL;
        return bx_error_set(err, BX_ENOMEM, NULL, "out of memory");
    }
    if (stat(*out, &st) != 0)
        return bx_error_errno(err, BX_ECONFIG, *out, "TLS file for the engine");
    if (!S_ISREG(st.st_mode))
        return bx_error_set(err, BX_ECONFIG, *out, "TLS file for the engine is not a regular file");
    return 0;
}

/* tcp://host:port: the host is a name or an IPv4 address (an IPv6 literal in brackets), the
 * port a number; nothing else (no path, no user). */
static int tcp_target(const char *url, char *host, size_t hlen, unsigned *port)
{
    const char *p = url + 6, *colon;
    char *end;
    unsigned long v;
    size_t n;

    colon = *p == '[' ? strchr(p, ']') : strrchr(p, ':');
    if (*p == '[' && colon)
        colon = colon[1] == ':' ? colon + 1 : NULL;
    if (!colon || colon == p)
        return -1;
    n = (size_t)(colon - p);
    if (n >= hlen)
        return -1;
    memcpy(host, p, n);
    host[n] = '\0';
    if (strspn(host, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-[]:") != n)
        return -1;
    if (colon[1] < '0' || colon[1] > '9')
        return -1;
    v = strtoul(colon + 1, &end, 10);
    if (*end != '\0' || v == 0 || v > 65535)
        return -1;
    *port = (unsigned)v;
    return 0;
}

/* tlsdir: the context's TLS folder (TLS on), "" for a context without one (TLS off), NULL
 * outside a context (DOCKER_TLS_VERIFY and DOCKER_CERT_PATH decide, as for the docker CLI). */
static int open_tcp(bx_engine *eng, const char *url, const char *tlsdir, int flags,
                    bx_error *err)
{
    const char *verify = getenv("DOCKER_TLS_VERIFY");
    char host[256], *dir = NULL;
    unsigned port;
    int rc = 0;

    if (tcp_target(url, host, sizeof host, &port) != 0)
        return bx_error_set(err, BX_ECONFIG, url, "engine address must be tcp://HOST:PORT");
    eng->tls = tlsdir ? *tlsdir != '\0' : verify && *verify; /* the docker CLI: any non-empty value */
    if (!eng->tls && !(flags & BX_ENGINE_INSECURE))
        return bx_error_set(err, BX_ECONFIG, url,
                            tlsdir ? "plain tcp:// engine refused: the context has no TLS "
                                     "material (ca.pem, cert.pem, key.pem), or pass "
                                     "--insecure-engine"
                                   : "plain tcp:// engine refused: set DOCKER_TLS_VERIFY=1 and "
                                     "DOCKER_CERT_PATH for mutual TLS, or pass --insecure-engine");
    if (asprintf(&eng->base, "%s://%s:%u", eng->tls ? "https" : "http", host, port) < 0) {
        eng->base = NULL;
        return bx_error_set(err, BX_ENOMEM, NULL, "out of memory");
    }
    if (!eng->tls)
        return 0;
    if (tlsdir)
        dir = strdup(tlsdir);
    else if (!(dir = cert_dir()))
        return bx_error_set(err, BX_ECONFIG, url,
                            "DOCKER_TLS_VERIFY is set but neither DOCKER_CERT_PATH nor HOME is");
    if (!dir)
        return bx_error_set(err, BX_ENOMEM, NULL, "out of memory");
    if ((rc = tls_file(dir, "ca.pem", &eng->ca, err)) == 0 &&
        (rc = tls_file(dir, "cert.pem", &eng->cert, err)) == 0)
        rc = tls_file(dir, "key.pem", &eng->key, err);
    free(dir);
    return rc;
}

/* ---- ssh:// --------------------------------------------------------------------------- */

/* ssh://[user@]host[:port], as the docker CLI takes it: no path; the user and host in the
 * characters ssh and DNS allow (never an option: a host cannot start with '-'). */
static int open_ssh(bx_engine *eng, const char *url, bx_error *err)
{
    static const char ok_host[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-_";
    const char *p = url + 6, *at = strchr(p, '@'), *h = at ? at + 1 : p, *colon = strrchr(h, ':');
    size_t hl = colon ? (size_t)(colon - h) : strlen(h);

    if ((at && (at == p || strspn(p, ok_host) != (size_t)(at - p))) || hl == 0 || hl > 253 ||
        h[0] == '-' || strspn(h, ok_host) != hl ||
        (colon && (!colon[1] || strspn(colon + 1, "0123456789") != strlen(colon + 1) ||
                   strlen(colon + 1) > 5 || atoi(colon + 1) == 0 || atoi(colon + 1) > 65535)))
        return bx_error_set(err, BX_ECONFIG, url, "engine address must be ssh://[USER@]HOST[:PORT]");
    if (!(eng->ssh_host = strndup(h, hl)) ||
        (at && !(eng->ssh_user = strndup(p, (size_t)(at - p)))) ||
        (colon && !(eng->ssh_port = strdup(colon + 1))) ||
        !(eng->base = strdup("http://localhost")))
        return bx_error_set(err, BX_ENOMEM, NULL, "out of memory");
    eng->ssh_errfd = -1;
    return 0;
}

/* The ssh command line, resolved before any fork (PATH searched here, not in a child). */
static int ssh_argv(bx_engine *eng, bx_error *err)
{
    const char *path = getenv("PATH"), *cfg = getenv("BOXCERT_SSH_CONFIG");
    int n = 0;

    if (!path || !*path)
        path = "/usr/bin:/bin";
    for (const char *p = path; *p;) {
        size_t l = strcspn(p, ":");
        char cand[PATH_MAX];
        if (l && snprintf(cand, sizeof cand, "%.*s/ssh", (int)l, p) < (int)sizeof cand &&
            access(cand, X_OK) == 0) {
            if (!(eng->ssh_path = strdup(cand)))
                return bx_error_set(err, BX_ENOMEM, NULL, "out of memory");
            break;
        }
        p += l + (p[l] == ':');
    }
    if (!eng->ssh_path)
        return bx_error_set(err, BX_EENV, NULL, "engine %s: no ssh in PATH", eng->endpoint);
    eng->ssh_args[n++] = "ssh";
    eng->ssh_args[n++] = "-o";
    eng->ssh_args[n++] = "BatchMode=yes";
    if (cfg && *cfg) {
        if (!(eng->ssh_cfg = strdup(cfg)))
            return bx_error_set(err, BX_ENOMEM, NULL, "out of memory");
        eng->ssh_args[n++] = "-F";
        eng->ssh_args[n++] = eng->ssh_cfg;
    }
    if (eng->ssh_user) {
        eng->ssh_args[n++] = "-l";
        eng->ssh_args[n++] = eng->ssh_user;
    }
    if (eng->ssh_port) {
        eng->ssh_args[n++] = "-p";
        eng->ssh_args[n++] = eng->ssh_port;
    }
    eng->ssh_args[n++] = "--";
    eng->ssh_args[n++] = eng->ssh_host;
    eng->ssh_args[n++] = "docker";
    eng->ssh_args[n++] = "system";
    eng->ssh_args[n++] = "dial-stdio";
    eng->ssh_args[n] = NULL;
    return 0;
}

/* The child that gives each connection libcurl makes its own ssh: it accepts on a socket in
 * a folder only this user can enter, takes a connection only from this process
 * (SO_PEERCRED), and runs `ssh -o BatchMode=yes [-F $BOXCERT_SSH_CONFIG] [-l USER]
 * [-p PORT] -- HOST docker system dial-stdio` with the connection as its standard input and
 * output, as the docker CLI reaches an ssh:// engine. Only async-signal-safe calls after the
 * fork: the collector may have threads. */
static void ssh_acceptor(int lfd, int errw, pid_t parent, const char *path, char *const *argv)
{
    struct sigaction sa = {.sa_handler = SIG_IGN};
    sigaction(SIGCHLD, &sa, NULL); /* each ssh reaped by the kernel */
    for (;;) {
        struct ucred cr;
        socklen_t cl = sizeof cr;
        int c = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
        if (c < 0) {
            if (errno == EINTR || errno == ECONNABORTED)
                continue;
            _exit(0);
        }
        if (getsockopt(c, SOL_SOCKET, SO_PEERCRED, &cr, &cl) != 0 || cr.pid != parent) {
            close(c);
            continue;
        }
        pid_t p = fork();
        if (p == 0) {
            static const char msg[] = "cannot run ssh\n";
            if (dup2(c, 0) < 0 || dup2(c, 1) < 0 || dup2(errw, 2) < 0)
                _exit(127);
            execv(path, argv);
            (void)!write(2, msg, sizeof msg - 1);
            _exit(127);
        }
        close(c);
    }
}

/* Start the acceptor once per handle (at its first request). */
static int ssh_start(bx_engine *eng, bx_error *err)
{
    struct sockaddr_un sun = {.sun_family = AF_UNIX};
    char dir[] = "/tmp/boxcert-ssh.XXXXXX";
    int lfd = -1, ep[2] = {-1, -1}, rc;
    pid_t parent = getpid(), pid;

    if (eng->ssh_acceptor > 0)
        return 0;
    if ((rc = ssh_argv(eng, err)) != 0)
        return rc;
    if (!mkdtemp(dir))
        return bx_error_errno(err, BX_EIO, dir, "cannot make a folder for the ssh connections");
    if (!(eng->ssh_dir = strdup(dir)) || asprintf(&eng->ssh_sock, "%s/engine.sock", dir) < 0) {
        eng->ssh_sock = NULL;
        return bx_error_set(err, BX_ENOMEM, NULL, "out of memory");
    }
    snprintf(sun.sun_path, sizeof sun.sun_path, "%s", eng->ssh_sock);
    if ((lfd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)) < 0 ||
        bind(lfd, (struct sockaddr *)&sun, sizeof sun) != 0 || listen(lfd, 8) != 0 ||
        pipe2(ep, O_CLOEXEC) != 0) {
        rc = bx_error_errno(err, BX_EIO, eng->ssh_sock, "cannot listen for the ssh connections");
        goto fail;
    }
    if ((pid = fork()) < 0) {
        rc = bx_error_errno(err, BX_EIO, NULL, "cannot start ssh for %s", eng->endpoint);
        goto fail;
    }
    if (pid == 0)
        ssh_acceptor(lfd, ep[1], parent, eng->ssh_path, (char *const *)eng->ssh_args);
    close(lfd);
    close(ep[1]);
    eng->ssh_acceptor = pid;
    eng->ssh_errfd = ep[0];
    return 0;
fail:
    if (lfd >= 0)
        close(lfd);
    if (ep[0] >= 0) {
        close(ep[0]);
        close(ep[1]);
    }
    return rc;
}

/* What ssh wrote on its standard error (its first line), kept for the error message;
 * wait at most ms for it. */
static void ssh_stderr(bx_engine *eng, int ms)
{
    char buf[512];
    ssize_t n;
    struct pollfd pf = {.fd = eng->ssh_errfd, .events = POLLIN};

    if (eng->ssh_errfd < 0 || poll(&pf, 1, ms) <= 0 ||
        (n = read(eng->ssh_errfd, buf, sizeof buf - 1)) <= 0)
        return;
    buf[n] = '\0';
    buf[strcspn(buf, "\r\n")] = '\0';
    for (char *q = buf; *q; q++)
        if ((unsigned char)*q < 0x20 || *q == 0x7f)
            *q = '?';
    if (buf[0])
        snprintf(eng->ssh_error, sizeof eng->ssh_error, "%.190s", buf);
}

static void ssh_stop(bx_engine *eng)
{
    int st;

    if (eng->ssh_acceptor > 0) {
        kill(eng->ssh_acceptor, SIGTERM);
        waitpid(eng->ssh_acceptor, &st, 0);
        eng->ssh_acceptor = 0;
    }
    if (eng->ssh_errfd >= 0)
        close(eng->ssh_errfd);
    eng->ssh_errfd = -1;
    if (eng->ssh_sock)
        unlink(eng->ssh_sock);
    if (eng->ssh_dir)
        rmdir(eng->ssh_dir);
}

/* ---- docker contexts -------------------------------------------------------------- */

/* The docker CLI's config folder: $DOCKER_CONFIG, else ~/.docker. Caller frees. */
static char *config_dir(void)
{
    const char *d = getenv("DOCKER_CONFIG"), *home = getenv("HOME");
    char *out = NULL;

    if (d && *d)
        return strdup(d);
    if (!home || !*home || asprintf(&out, "%s/.docker", home) < 0)
        return NULL;
    return out;
}

/* A small JSON file of the docker config: absent gives *out NULL and 0 when may_be_absent;
 * what is not a regular file, too large or not one JSON object is an error. */
static int read_json_file(const char *path, int may_be_absent, json_t **out, bx_error *err)
{
    enum { MAX = 1 << 20 };
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    struct stat st;
    char *buf = NULL;
    size_t len = 0;
    json_error_t je;

    *out = NULL;
    if (fd < 0) {
        if (errno == ENOENT && may_be_absent)
            return 0;
        return errno == ENXIO ? bx_error_set(err, BX_ECONFIG, path, "not a regular file")
                              : bx_error_errno(err, BX_ECONFIG, path, "cannot open");
    }
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size > MAX) {
        close(fd);
        return bx_error_set(err, BX_ECONFIG, path, "not a regular file of at most 1 MiB");
    }
    if (!(buf = malloc((size_t)st.st_size + 1))) {
        close(fd);
        return bx_error_set(err, BX_ENOMEM, path, "out of memory");
    }
    while (len < (size_t)st.st_size) {
        ssize_t n = read(fd, buf + len, (size_t)st.st_size - len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        len += (size_t)n;
    }
    close(fd);
    *out = len == (size_t)st.st_size ? json_loadb(buf, len, JSON_REJECT_DUPLICATES, &je) : NULL;
    free(buf);
    if (!*out || !json_is_object(*out)) {
        json_decref(*out);
        *out = NULL;
        return len != (size_t)st.st_size
                   ? bx_error_set(err, BX_EIO, path, "changed while read")
                   : bx_error_set(err, BX_ECONFIG, path, "not a JSON object");
    }
    return 0;
}

/* A context name as the docker CLI allows it: [a-zA-Z0-9][a-zA-Z0-9_.+-]*. */
static int context_name_ok(const char *n)
{
    static const char first[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
    return n[0] && strchr(first, n[0]) && strlen(n) < 256 &&
           strspn(n + 1, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.+-") ==
               strlen(n + 1);
}

/* The endpoint of docker context NAME: contexts/meta/<sha256(NAME)>/meta.json's
 * Endpoints.docker.Host under the config folder, and its TLS folder
 * contexts/tls/<sha256(NAME)>/docker when it holds TLS material ("" when it has none).
 * An unknown or broken context is an error, never a fallback. Caller frees both. */
static int context_endpoint(const char *name, char **url, char **tlsdir, bx_error *err)
{
    unsigned char md[SHA256_DIGEST_LENGTH];
    char hex[2 * SHA256_DIGEST_LENGTH + 1], *dir = NULL, *meta = NULL, *tls = NULL;
    json_t *doc = NULL, *ep, *host, *skip;
    struct stat st;
    int rc;

    *url = *tlsdir = NULL;
    if (!context_name_ok(name))
        return bx_error_set(err, BX_ECONFIG, name, "not a docker context name");
    if (!(dir = config_dir()))
        return bx_error_set(err, BX_ECONFIG, name,
                            "docker context named but neither DOCKER_CONFIG nor HOME is set");
    SHA256((const unsigned char *)name, strlen(name), md);
    for (size_t i = 0; i < sizeof md; i++)
        snprintf(hex + 2 * i, 3, "%02x", md[i]);
    if (asprintf(&meta, "%s/contexts/meta/%s/meta.json", dir, hex) < 0 ||
        asprintf(&tls, "%s/contexts/tls/%s/docker", dir, hex) < 0) {
        rc = bx_error_set(err, BX_ENOMEM, NULL, "out of memory");
        goto out;
    }
    if ((rc = read_json_file(meta, 1, &doc, err)) != 0)
        goto out;
    if (!doc) {
        rc = bx_error_set(err, BX_ECONFIG, name, "no such docker context (no %s)", meta);
        goto out;
    }
    ep = json_object_get(json_object_get(doc, "Endpoints"), "docker");
    host = json_object_get(ep, "Host");
    skip = json_object_get(ep, "SkipTLSVerify");
    if (!json_is_string(json_object_get(doc, "Name")) ||
        strcmp(json_string_value(json_object_get(doc, "Name")), name) != 0) {
        rc = bx_error_set(err, BX_ECONFIG, meta, "the context's Name is not \"%s\"", name);
        goto out;
    }
    if (!json_is_string(host) || !*json_string_value(host)) {
        rc = bx_error_set(err, BX_ECONFIG, meta, "Endpoints.docker.Host is not a string");
        goto out;
    }
    if (skip && !json_is_boolean(skip)) {
        rc = bx_error_set(err, BX_ECONFIG, meta, "Endpoints.docker.SkipTLSVerify is not a boolean");
        goto out;
    }
    if (json_is_true(skip)) {
        rc = bx_error_set(err, BX_ECONFIG, name,
                          "the context skips TLS verification of its engine: refused");
        goto out;
    }
    if (!(*url = strdup(json_string_value(host)))) {
        rc = bx_error_set(err, BX_ENOMEM, NULL, "out of memory");
        goto out;
    }
    if (stat(tls, &st) == 0 && S_ISDIR(st.st_mode)) {
        *tlsdir = tls;
        tls = NULL;
    } else if (!(*tlsdir = strdup(""))) {
        rc = bx_error_set(err, BX_ENOMEM, NULL, "out of memory");
    }
out:
    if (rc != 0) {
        free(*url);
        free(*tlsdir);
        *url = *tlsdir = NULL;
    }
    json_decref(doc);
    free(dir);
    free(meta);
    free(tls);
    return rc;
}

/* The context docker would use when no engine is named: DOCKER_CONTEXT, else config.json's
 * currentContext; *name NULL for none (or "default": the default endpoint). */
static int current_context(char **name, bx_error *err)
{
    const char *env = getenv("DOCKER_CONTEXT");
    char *dir = NULL, *path = NULL;
    json_t *cfg = NULL, *cur;
    int rc = 0;

    *name = NULL;
    if (env && *env) {
        if (strcmp(env, "default") != 0 && !(*name = strdup(env)))
            return bx_error_set(err, BX_ENOMEM, NULL, "out of memory");
        return 0;
    }
    if (!(dir = config_dir()))
        return 0;
    if (asprintf(&path, "%s/config.json", dir) < 0) {
        free(dir);
        return bx_error_set(err, BX_ENOMEM, NULL, "out of memory");
    }
    if ((rc = read_json_file(path, 1, &cfg, err)) == 0 && cfg) {
        cur = json_object_get(cfg, "currentContext");
        if (cur && !json_is_string(cur))
            rc = bx_error_set(err, BX_ECONFIG, path, "currentContext is not a string");
        else if (cur && *json_string_value(cur) && strcmp(json_string_value(cur), "default") != 0 &&
                 !(*name = strdup(json_string_value(cur))))
            rc = bx_error_set(err, BX_ENOMEM, NULL, "out of memory");
    }
    json_decref(cfg);
    free(path);
    free(dir);
    return rc;
}

static int open_resolved(const char *url, const char *tlsdir, const char *context, int flags,
                         bx_engine **out, bx_error *err);

int bx_engine_open_ex(const char *url, int flags, bx_engine **out, bx_error *err)
{
    const char *env = getenv("DOCKER_HOST");
    char *ctx = NULL, *curl_ = NULL, *tlsdir = NULL;
    int rc;

    *out = NULL;
    /* as the docker CLI: --engine, else DOCKER_HOST, else --context (context:NAME),
     * DOCKER_CONTEXT or config.json's currentContext, else the default socket */
    if (url && strncmp(url, "context:", 8) == 0) {
        if (!(ctx = strdup(url + 8)))
            return bx_error_set(err, BX_ENOMEM, NULL, "out of memory");
    } else if (!url && env && *env) {
        url = env;
    } else if (!url && (rc = current_context(&ctx, err)) != 0) {
        return rc;
    }
    if (ctx && (rc = context_endpoint(ctx, &curl_, &tlsdir, err)) != 0) {
        free(ctx);
        return rc;
    }
    rc = open_resolved(ctx ? curl_ : url ? url : DEFAULT_ENDPOINT, tlsdir, ctx, flags, out, err);
    free(ctx);
    free(curl_);
    free(tlsdir);
    return rc;
}

static int open_resolved(const char *url, const char *tlsdir, const char *context, int flags,
                         bx_engine **out, bx_error *err)
{
    bx_engine *eng = NULL;
    int rc = 0;

    *out = NULL;
    if (!(eng = calloc(1, sizeof *eng)) || !(eng->endpoint = strdup(url)) ||
        (context && !(eng->context = strdup(context)))) {
        rc = bx_error_set(err, BX_ENOMEM, NULL, "out of memory");
        goto out;
    }
    if (strncmp(url, "unix://", 7) == 0) {
        if (url[7] != '/' || strlen(url + 7) >= sizeof(((struct sockaddr_un *)0)->sun_path)) {
            rc = bx_error_set(err, BX_ECONFIG, url,
                              "engine socket must be an absolute path shorter than %zu bytes",
                              sizeof(((struct sockaddr_un *)0)->sun_path));
            goto out;
        }
        if (!(eng->sock = strdup(url + 7)) || !(eng->base = strdup("http://localhost"))) {
            rc = bx_error_set(err, BX_ENOMEM, NULL, "out of memory");
            goto out;
        }
    } else if (strncmp(url, "tcp://", 6) == 0) {
        if ((rc = open_tcp(eng, url, tlsdir, flags, err)) != 0)
            goto out;
    } else if (strncmp(url, "ssh://", 6) == 0) {
        if ((rc = open_ssh(eng, url, err)) != 0)
            goto out;
    } else {
        rc = bx_error_set(err, BX_EUNSUPPORTED, url,
                          context ? "the context's engine must be unix:///path, tcp://host:port "
                                    "or ssh://[user@]host[:port]"
                                  : "engine must be unix:///path, tcp://host:port or "
                                    "ssh://[user@]host[:port]");
        goto out;
    }
    eng->curl = curl_easy_init();
    if (!eng->curl) {
        rc = bx_error_set(err, BX_ENOMEM, NULL, "cannot initialise libcurl");
        goto out;
    }
    *out = eng;
    eng = NULL;
out:
    bx_engine_close(eng);
    return rc;
}

int bx_engine_open(const char *url, bx_engine **out, bx_error *err)
{
    return bx_engine_open_ex(url, 0, out, err);
}

static char *dup_bytes(const char *b, size_t len)
{
    char *d = b ? malloc(len + 1) : NULL;

    if (d) {
        memcpy(d, b, len);
        d[len] = '\0';
    }
    return d;
}

int bx_engine_open_like(const bx_engine *src, int flags, bx_engine **out, bx_error *err)
{
    bx_engine *eng = NULL;
    char *ctx = NULL;
    int rc;

    *out = NULL;
    /* the same endpoint and the same TLS material, whatever the environment says now */
    if (src->context && asprintf(&ctx, "context:%s", src->context) < 0)
        return bx_error_set(err, BX_ENOMEM, NULL, "out of memory");
    rc = bx_engine_open_ex(ctx ? ctx : src->endpoint, flags, &eng, err);
    free(ctx);
    if (rc != 0)
        return rc;
    memcpy(eng->peer, src->peer, sizeof eng->peer);
    eng->have_peer = src->have_peer;
    bx_engine_adopt(eng, src); /* out of memory: the new handle asks again itself */
    *out = eng;
    return 0;
}

void bx_engine_close(bx_engine *eng)
{
    if (!eng)
        return;
    if (eng->curl)
        curl_easy_cleanup(eng->curl); /* closes its connections: each ssh reaped */
    if (eng->ssh_host)
        ssh_stop(eng);
    free(eng->ssh_host);
    free(eng->ssh_user);
    free(eng->ssh_port);
    free(eng->ssh_path);
    free(eng->ssh_cfg);
    free(eng->ssh_dir);
    free(eng->ssh_sock);
    json_decref(eng->version);
    json_decref(eng->info);
    free(eng->version_raw);
    free(eng->info_raw);
    free(eng->endpoint);
    free(eng->context);
    free(eng->sock);
    free(eng->base);
    free(eng->ca);
    free(eng->cert);
    free(eng->key);
    free(eng);
}

int bx_engine_is_remote(const bx_engine *eng)
{
    return eng->sock == NULL;
}

const char *bx_engine_context(const bx_engine *eng)
{
    return eng->context;
}

const char *bx_engine_socket(const bx_engine *eng)
{
    return eng->sock;
}

const char *bx_engine_tls_peer_sha256(const bx_engine *eng, char out[65])
{
    if (!eng->have_peer)
        return NULL;
    return bx_hex_encode(eng->peer, sizeof eng->peer, out);
}

const char *bx_engine_endpoint(const bx_engine *eng)
{
    return eng->endpoint;
}

const char *bx_engine_api_version(const bx_engine *eng)
{
    return eng->api;
}

static int transfer_error(bx_engine *eng, CURLcode cc, const char *path, const reply *r,
                          bx_error *err)
{
    long oserr = 0;
    const char *detail = eng->errbuf[0] ? eng->errbuf : curl_easy_strerror(cc);

    if (eng->ssh_host) {
        /* what ssh said is the reason (a refused key, an unknown host, no docker there) */
        ssh_stderr(eng, 500);
        if (eng->ssh_error[0] && !r->too_large && cc != CURLE_FILESIZE_EXCEEDED &&
            cc != CURLE_WRITE_ERROR)
            return bx_error_set(err, BX_EENV, NULL, "engine unreachable at %s: ssh: %s",
                                eng->endpoint, eng->ssh_error);
    }

    if (r->too_large || cc == CURLE_FILESIZE_EXCEEDED)
        return bx_error_set(err, BX_EINVAL, path, "engine reply too large (over %d bytes)",
                            BX_ENGINE_REPLY_MAX);
    curl_easy_getinfo(eng->curl, CURLINFO_OS_ERRNO, &oserr);
    if (cc == CURLE_SSL_CERTPROBLEM || cc == CURLE_SSL_CACERT_BADFILE)
        return bx_error_set(err, BX_ECONFIG, NULL, "TLS files for %s unusable: %s", eng->endpoint,
                            detail);
    if (cc == CURLE_PEER_FAILED_VERIFICATION || cc == CURLE_SSL_CONNECT_ERROR)
        return bx_error_set(err, BX_EENV, NULL, "TLS with the engine at %s failed: %s",
                            eng->endpoint, detail);
    if (cc == CURLE_COULDNT_CONNECT || cc == CURLE_COULDNT_RESOLVE_HOST) {
        if (oserr)
            return bx_error_set(err, BX_EENV, NULL, "engine unreachable at %s: %s (%s)",
                                eng->endpoint, curl_easy_strerror(cc), strerror((int)oserr));
        return bx_error_set(err, BX_EENV, NULL, "engine unreachable at %s: %s", eng->endpoint,
                            detail);
    }
    if (cc == CURLE_OPERATION_TIMEDOUT)
        return bx_error_set(err, BX_EENV, path, "engine at %s did not answer in time: %s",
                            eng->endpoint, detail);
    if (cc == CURLE_WRITE_ERROR)
        return bx_error_set(err, BX_ENOMEM, path, "out of memory reading the engine reply");
    return bx_error_set(err, BX_EENV, path, "engine lost at %s: %s", eng->endpoint, detail);
}

/* The server certificate of the connection just used (libcurl's certificate information,
 * filled on every new connection): recorded on the first request, and every later
 * connection must meet the same one (a reconnection to another server would mix two
 * engines' replies in one certificate). A reused connection brings no new handshake. */
static int check_peer(bx_engine *eng, const char *path, bx_error *err)
{
    struct curl_certinfo *ci = NULL;
    long connects = 0;
    unsigned char *der = NULL, digest[32];
    const char *pem = NULL;
    X509 *x = NULL;
    BIO *bio;
    int n;

    if (curl_easy_getinfo(eng->curl, CURLINFO_NUM_CONNECTS, &connects) != CURLE_OK)
        connects = 1;
    if (curl_easy_getinfo(eng->curl, CURLINFO_CERTINFO, &ci) == CURLE_OK && ci &&
        ci->num_of_certs > 0) {
        for (struct curl_slist *l = ci->certinfo[0]; l; l = l->next)
            if (strncmp(l->data, "Cert:", 5) == 0)
                pem = l->data + 5;
    }
    if (!pem) {
        if (connects == 0 && eng->have_peer)
            return 0; /* the same connection as before */
        return bx_error_set(err, BX_EENV, path, "no certificate from the engine at %s",
                            eng->endpoint);
    }
    if (!(bio = BIO_new_mem_buf(pem, -1)))
        return bx_error_set(err, BX_ENOMEM, NULL, "out of memory");
    x = PEM_read_bio_X509(bio, NULL, NULL, NULL);
    BIO_free(bio);
    if (!x || (n = i2d_X509(x, &der)) <= 0) {
        X509_free(x);
        return bx_error_set(err, BX_EENV, path, "the engine's certificate cannot be read");
    }
    bx_sha256(der, (size_t)n, digest);
    OPENSSL_free(der);
    X509_free(x);
    if (!eng->have_peer) {
        memcpy(eng->peer, digest, sizeof digest);
        eng->have_peer = 1;
    } else if (CRYPTO_memcmp(eng->peer, digest, sizeof digest) != 0) {
        return bx_error_set(err, BX_EENV, path,
                            "the engine at %s presented another certificate during collection",
                            eng->endpoint);
    }
    return 0;
}

/* One GET of url over the socket; *r receives the body, *status the HTTP code. */
static int perform(bx_engine *eng, const char *url, const char *path, reply *r, long *status,
                   bx_error *err)
{
    CURL *c = eng->curl;
    CURLcode cc;

    int rc;

    if (eng->ssh_host && (rc = ssh_start(eng, err)) != 0)
        return rc;
    curl_easy_reset(c);
    eng->errbuf[0] = '\0';
    if (curl_easy_setopt(c, CURLOPT_URL, url) != CURLE_OK ||
        (eng->sock && curl_easy_setopt(c, CURLOPT_UNIX_SOCKET_PATH, eng->sock) != CURLE_OK) ||
        (eng->ssh_host &&
         curl_easy_setopt(c, CURLOPT_UNIX_SOCKET_PATH, eng->ssh_sock) != CURLE_OK) ||
        curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, eng->tls ? "https" : "http") != CURLE_OK ||
        (eng->tls &&
         (curl_easy_setopt(c, CURLOPT_CAINFO, eng->ca) != CURLE_OK ||
          curl_easy_setopt(c, CURLOPT_CAPATH, NULL) != CURLE_OK ||
          curl_easy_setopt(c, CURLOPT_SSLCERT, eng->cert) != CURLE_OK ||
          curl_easy_setopt(c, CURLOPT_SSLKEY, eng->key) != CURLE_OK ||
          curl_easy_setopt(c, CURLOPT_SSL_VERIFYPEER, 1L) != CURLE_OK ||
          curl_easy_setopt(c, CURLOPT_SSL_VERIFYHOST, 2L) != CURLE_OK ||
          curl_easy_setopt(c, CURLOPT_CERTINFO, 1L) != CURLE_OK ||
          curl_easy_setopt(c, CURLOPT_SSLVERSION, (long)CURL_SSLVERSION_TLSv1_2) != CURLE_OK)) ||
        curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT, CONNECT_TIMEOUT_S) != CURLE_OK ||
        curl_easy_setopt(c, CURLOPT_TIMEOUT, TOTAL_TIMEOUT_S) != CURLE_OK ||
        curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L) != CURLE_OK ||
        curl_easy_setopt(c, CURLOPT_FOLLOWLOCATION, 0L) != CURLE_OK ||
        curl_easy_setopt(c, CURLOPT_MAXFILESIZE_LARGE, (curl_off_t)BX_ENGINE_REPLY_MAX) !=
            CURLE_OK ||
        curl_easy_setopt(c, CURLOPT_ERRORBUFFER, eng->errbuf) != CURLE_OK ||
        curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_write) != CURLE_OK ||
        curl_easy_setopt(c, CURLOPT_WRITEDATA, r) != CURLE_OK ||
        curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, on_header) != CURLE_OK ||
        curl_easy_setopt(c, CURLOPT_HEADERDATA, r) != CURLE_OK)
        return bx_error_set(err, BX_EENV, path, "cannot configure libcurl");
    cc = curl_easy_perform(c);
    if (cc != CURLE_OK)
        return transfer_error(eng, cc, path, r, err);
    if (curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, status) != CURLE_OK)
        return bx_error_set(err, BX_EENV, path, "no HTTP status from the engine");
    return eng->tls ? check_peer(eng, path, err) : 0;
}

static int status_error(bx_engine *eng, long status, const char *path, const reply *r,
                        bx_error *err)
{
    json_t *j = r->buf ? json_loadb(r->buf, r->len, JSON_REJECT_DUPLICATES, NULL) : NULL;
    const char *m = json_string_value(json_object_get(j, "message"));
    char msg[200];
    size_t i;
    int rc;

    /* the engine's words reach a terminal: no control characters */
    for (i = 0; m && m[i] && i + 1 < sizeof msg; i++)
        msg[i] = (unsigned char)m[i] < 0x20 || m[i] == 0x7f ? '?' : m[i];
    msg[i] = '\0';
    if (status == 404)
        rc = bx_error_set(err, BX_ENOTFOUND, path, "%s", msg[0] ? msg : "not found");
    else
        rc = bx_error_set(err, BX_EENV, path, "engine at %s answered HTTP %ld: %s", eng->endpoint,
                          status, msg[0] ? msg : "no message");
    json_decref(j);
    return rc;
}

static int parse_reply(const char *path, const reply *r, json_t **out, bx_error *err)
{
    json_error_t je;

    *out = json_loadb(r->buf ? r->buf : "", r->len, JSON_REJECT_DUPLICATES, &je);
    if (!*out)
        return bx_error_set(err, BX_EINVAL, path, "engine reply is not JSON: %s (at %d:%d)",
                            je.text, je.line, je.column);
    return 0;
}

/* GET url and parse it; on success *json and r hold the reply. */
static int fetch(bx_engine *eng, const char *url, const char *path, reply *r, json_t **json,
                 bx_error *err)
{
    long status = 0;
    int rc = perform(eng, url, path, r, &status, err);

    if (rc != 0)
        return rc;
    if (status != 200)
        return status_error(eng, status, path, r, err);
    return json ? parse_reply(path, r, json, err) : 0;
}

static int negotiate(bx_engine *eng, bx_error *err)
{
    reply r = {0};
    json_t *v = NULL;
    char api[16], url[320];
    int rc;

    /* unversioned: the engine tells us which version it speaks */
    snprintf(url, sizeof url, "%s/version", eng->base);
    rc = fetch(eng, url, "/version", &r, &v, err);
    if (rc == BX_ENOTFOUND) /* whatever answers there is not an Engine API */
        rc = bx_error_set(err, BX_EENV, "/version", "no Engine API at %s", eng->endpoint);
    if (rc != 0)
        goto out;
    rc = bx_engine_api_negotiate(json_string_value(json_object_get(v, "ApiVersion")), api, err);
    if (rc != 0)
        goto out;
    memcpy(eng->api, api, sizeof api);
    eng->version = v;
    eng->version_raw = r.buf;
    eng->version_len = r.len;
    v = NULL;
    r.buf = NULL;
out:
    json_decref(v);
    free(r.buf);
    return rc;
}

int bx_engine_ping(bx_engine *eng, bx_error *err)
{
    reply r = {0};
    char api[16], url[320];
    long status = 0;
    int rc;

    if (eng->api[0])
        return 0;
    snprintf(url, sizeof url, "%s/_ping", eng->base);
    if ((rc = perform(eng, url, "/_ping", &r, &status, err)) == 0 && status == 200 && r.api[0] &&
        bx_engine_api_negotiate(r.api, api, err) == 0)
        memcpy(eng->api, api, sizeof api);
    free(r.buf);
    if (rc != 0)
        return rc;
    /* no version in the answer: ask /version, as every other first request does */
    return eng->api[0] ? 0 : negotiate(eng, err);
}

/* dst's cached reply (json, raw, len) from src's when dst has none: a copy of its own, so
 * that handles used by different threads never share a JSON value (jansson's reference
 * counts are not for values two threads use at once). */
static void adopt_reply(json_t **dj, char **draw, size_t *dlen, json_t *sj, const char *sraw,
                        size_t slen)
{
    char *raw;
    json_t *copy;

    if (*dj || !sj || !(raw = dup_bytes(sraw, slen)))
        return;
    if (!(copy = json_deep_copy(sj))) {
        free(raw);
        return;
    }
    *dj = copy;
    *draw = raw;
    *dlen = slen;
}

void bx_engine_adopt(bx_engine *dst, const bx_engine *src)
{
    adopt_reply(&dst->version, &dst->version_raw, &dst->version_len, src->version,
                src->version_raw, src->version_len);
    adopt_reply(&dst->info, &dst->info_raw, &dst->info_len, src->info, src->info_raw,
                src->info_len);
    if (!dst->api[0])
        memcpy(dst->api, src->api, sizeof dst->api);
}

/* An API path: printable ASCII, no fragment. */
static int api_path(const char *p)
{
    if (!p || *p != '/')
        return 0;
    for (; *p; p++)
        if ((unsigned char)*p <= 0x20 || (unsigned char)*p >= 0x7f || *p == '#')
            return 0;
    return 1;
}

static int give(const json_t *j, const char *buf, size_t len, json_t **json, char **raw,
                size_t *rawlen, bx_error *err)
{
    if (raw) {
        *raw = malloc(len + 1);
        if (!*raw)
            return bx_error_set(err, BX_ENOMEM, NULL, "out of memory");
        memcpy(*raw, buf, len);
        (*raw)[len] = '\0';
        if (rawlen)
            *rawlen = len;
    }
    if (json)
        *json = json_incref((json_t *)j);
    return 0;
}

/* bx_engine_get; parse 0: the reply's bytes only (json is not set). */
static int get(bx_engine *eng, const char *path, int parse, json_t **json, char **raw,
               size_t *rawlen, bx_error *err)
{
    reply r = {0};
    json_t *j = NULL;
    char *url = NULL;
    int rc;

    if (json)
        *json = NULL;
    if (raw)
        *raw = NULL;
    if (!api_path(path)) {
        rc = bx_error_set(err, BX_EINVAL, path, "not an engine API path");
        goto out;
    }
    if (!eng->api[0] && (rc = negotiate(eng, err)) != 0)
        goto out;
    if (strcmp(path, "/version") == 0) {
        /* negotiated by bx_engine_ping: /version is asked now */
        if (!eng->version && (rc = negotiate(eng, err)) != 0)
            goto out;
        rc = give(eng->version, eng->version_raw, eng->version_len, json, raw, rawlen, err);
        goto out;
    }
    if (strcmp(path, "/info") == 0 && eng->info) {
        rc = give(eng->info, eng->info_raw, eng->info_len, json, raw, rawlen, err);
        goto out;
    }
    /* "/v4.0.0/libpod/...": a versioned path of the engine's own, sent as given */
    if (path[1] == 'v' && path[2] >= '0' && path[2] <= '9'
            ? asprintf(&url, "%s%s", eng->base, path) < 0
            : asprintf(&url, "%s/v%s%s", eng->base, eng->api, path) < 0) {
        url = NULL;
        rc = bx_error_set(err, BX_ENOMEM, NULL, "out of memory");
        goto out;
    }
    if ((rc = fetch(eng, url, path, &r, parse || !strcmp(path, "/info") ? &j : NULL, err)) != 0)
        goto out;
    rc = give(j, r.buf, r.len, parse ? json : NULL, raw, rawlen, err);
    if (rc == 0 && strcmp(path, "/info") == 0) {
        eng->info = j;
        eng->info_raw = r.buf;
        eng->info_len = r.len;
        j = NULL;
        r.buf = NULL;
    }
out:
    json_decref(j);
    free(r.buf);
    free(url);
    return rc;
}

int bx_engine_get(bx_engine *eng, const char *path, json_t **json, char **raw, size_t *rawlen,
                  bx_error *err)
{
    return get(eng, path, 1, json, raw, rawlen, err);
}

int bx_engine_get_raw(bx_engine *eng, const char *path, char **raw, size_t *rawlen, bx_error *err)
{
    return get(eng, path, 0, NULL, raw, rawlen, err);
}
