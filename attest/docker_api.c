#include "bx_attest.h"

#include <curl/curl.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/un.h>

#define DEFAULT_ENDPOINT "unix:///var/run/docker.sock"
#define CONNECT_TIMEOUT_S 5L
#define TOTAL_TIMEOUT_S 30L

struct bx_engine {
    char *endpoint; /* as given or defaulted */
    char *sock;     /* unix socket path */
    CURL *curl;     /* kept for connection reuse */
    char api[16];   /* negotiated API version, "" until the first request */
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
} reply;

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

int bx_engine_open(const char *url, bx_engine **out, bx_error *err)
{
    bx_engine *eng = NULL;
    int rc = 0;

    *out = NULL;
    if (!url) {
        const char *env = getenv("DOCKER_HOST");
        url = env && *env ? env : DEFAULT_ENDPOINT;
    }
    if (strncmp(url, "unix://", 7) != 0) {
        rc = bx_error_set(err, BX_EUNSUPPORTED, url,
                          "only unix:// engines are supported in this version");
        goto out;
    }
    if (url[7] != '/' || strlen(url + 7) >= sizeof(((struct sockaddr_un *)0)->sun_path)) {
        rc = bx_error_set(err, BX_ECONFIG, url,
                          "engine socket must be an absolute path shorter than %zu bytes",
                          sizeof(((struct sockaddr_un *)0)->sun_path));
        goto out;
    }
    eng = calloc(1, sizeof *eng);
    if (!eng || !(eng->endpoint = strdup(url)) || !(eng->sock = strdup(url + 7))) {
        rc = bx_error_set(err, BX_EIO, NULL, "out of memory");
        goto out;
    }
    eng->curl = curl_easy_init();
    if (!eng->curl) {
        rc = bx_error_set(err, BX_EENV, NULL, "cannot initialise libcurl");
        goto out;
    }
    *out = eng;
    eng = NULL;
out:
    bx_engine_close(eng);
    return rc;
}

void bx_engine_close(bx_engine *eng)
{
    if (!eng)
        return;
    if (eng->curl)
        curl_easy_cleanup(eng->curl);
    json_decref(eng->version);
    json_decref(eng->info);
    free(eng->version_raw);
    free(eng->info_raw);
    free(eng->endpoint);
    free(eng->sock);
    free(eng);
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

    if (r->too_large || cc == CURLE_FILESIZE_EXCEEDED)
        return bx_error_set(err, BX_EINVAL, path, "engine reply too large (over %d bytes)",
                            BX_ENGINE_REPLY_MAX);
    curl_easy_getinfo(eng->curl, CURLINFO_OS_ERRNO, &oserr);
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
        return bx_error_set(err, BX_EIO, path, "out of memory reading the engine reply");
    return bx_error_set(err, BX_EENV, path, "engine lost at %s: %s", eng->endpoint, detail);
}

/* One GET of url over the socket; *r receives the body, *status the HTTP code. */
static int perform(bx_engine *eng, const char *url, const char *path, reply *r, long *status,
                   bx_error *err)
{
    CURL *c = eng->curl;
    CURLcode cc;

    curl_easy_reset(c);
    eng->errbuf[0] = '\0';
    if (curl_easy_setopt(c, CURLOPT_URL, url) != CURLE_OK ||
        curl_easy_setopt(c, CURLOPT_UNIX_SOCKET_PATH, eng->sock) != CURLE_OK ||
        curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http") != CURLE_OK ||
        curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT, CONNECT_TIMEOUT_S) != CURLE_OK ||
        curl_easy_setopt(c, CURLOPT_TIMEOUT, TOTAL_TIMEOUT_S) != CURLE_OK ||
        curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L) != CURLE_OK ||
        curl_easy_setopt(c, CURLOPT_FOLLOWLOCATION, 0L) != CURLE_OK ||
        curl_easy_setopt(c, CURLOPT_MAXFILESIZE_LARGE, (curl_off_t)BX_ENGINE_REPLY_MAX) !=
            CURLE_OK ||
        curl_easy_setopt(c, CURLOPT_ERRORBUFFER, eng->errbuf) != CURLE_OK ||
        curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_write) != CURLE_OK ||
        curl_easy_setopt(c, CURLOPT_WRITEDATA, r) != CURLE_OK)
        return bx_error_set(err, BX_EENV, path, "cannot configure libcurl");
    cc = curl_easy_perform(c);
    if (cc != CURLE_OK)
        return transfer_error(eng, cc, path, r, err);
    if (curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, status) != CURLE_OK)
        return bx_error_set(err, BX_EENV, path, "no HTTP status from the engine");
    return 0;
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
    return parse_reply(path, r, json, err);
}

static int negotiate(bx_engine *eng, bx_error *err)
{
    reply r = {0};
    json_t *v = NULL;
    char api[16];
    int rc;

    /* unversioned: the engine tells us which version it speaks */
    rc = fetch(eng, "http://localhost/version", "/version", &r, &v, err);
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
            return bx_error_set(err, BX_EIO, NULL, "out of memory");
        memcpy(*raw, buf, len);
        (*raw)[len] = '\0';
        if (rawlen)
            *rawlen = len;
    }
    if (json)
        *json = json_incref((json_t *)j);
    return 0;
}

int bx_engine_get(bx_engine *eng, const char *path, json_t **json, char **raw, size_t *rawlen,
                  bx_error *err)
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
        rc = give(eng->version, eng->version_raw, eng->version_len, json, raw, rawlen, err);
        goto out;
    }
    if (strcmp(path, "/info") == 0 && eng->info) {
        rc = give(eng->info, eng->info_raw, eng->info_len, json, raw, rawlen, err);
        goto out;
    }
    if (asprintf(&url, "http://localhost/v%s%s", eng->api, path) < 0) {
        url = NULL;
        rc = bx_error_set(err, BX_EIO, NULL, "out of memory");
        goto out;
    }
    if ((rc = fetch(eng, url, path, &r, &j, err)) != 0)
        goto out;
    rc = give(j, r.buf, r.len, json, raw, rawlen, err);
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
