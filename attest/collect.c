/* bx_collect: read one session from the engine, build the predicate, and make sure the
 * session is still the one observed. */
#include "bx_attest_int.h"

#include <stdlib.h>
#include <string.h>

typedef struct {
    json_t *version, *info, *c, *img, *net;
    char *raw_c, *raw_img;
    size_t raw_c_len, raw_img_len;
} replies;

static void replies_free(replies *r)
{
    json_decref(r->version);
    json_decref(r->info);
    json_decref(r->c);
    json_decref(r->img);
    json_decref(r->net);
    free(r->raw_c);
    free(r->raw_img);
}

/* A container, image or network name as the engine allows it: [A-Za-z0-9][A-Za-z0-9_.-]*
 * (containers may carry their leading "/"), or an image ID. */
static int safe_name(const char *s, int image)
{
    size_t n;

    if (!s)
        return 0;
    if (image && bxa_is_image_id(s))
        return 1;
    if (!image && *s == '/')
        s++;
    n = strlen(s);
    if (n == 0 || n > 255 ||
        !((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9')))
        return 0;
    return strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-") == n;
}

/* GET <kind>/<name><tail>, e.g. "/containers", name, "/json". */
static int get_obj(bx_engine *eng, const char *kind, const char *name, const char *tail,
                   json_t **json, char **raw, size_t *rawlen, bx_error *err)
{
    char path[512];

    snprintf(path, sizeof path, "%s/%s%s", kind, name, tail);
    return bx_engine_get(eng, path, json, raw, rawlen, err);
}

/* The inspect of the session's network when it has one of its own (bridge or a named
 * network); none, host and container: have none. */
static int get_network(bx_engine *eng, replies *r, bx_error *err)
{
    const char *mode = json_string_value(bxa_get(r->c, "/HostConfig/NetworkMode"));

    if (!mode || !strcmp(mode, "none") || !strcmp(mode, "host") || !strncmp(mode, "container:", 10))
        return 0;
    if (!strcmp(mode, "default"))
        mode = "bridge";
    if (!safe_name(mode, 0))
        return bxa_bad(err, "container", "/HostConfig/NetworkMode", "not a network name");
    return get_obj(eng, "/networks", mode, "", &r->net, NULL, NULL, err);
}

static int fetch(bx_engine *eng, const bx_collect_opts *o, replies *r, bx_error *err)
{
    const char *img;
    int rc;

    if (!safe_name(o->container, 0))
        return bx_error_set(err, BX_ECONFIG, "container", "not a container name or ID");
    if ((rc = bx_engine_get(eng, "/version", &r->version, NULL, NULL, err)) != 0 ||
        (rc = bx_engine_get(eng, "/info", &r->info, NULL, NULL, err)) != 0)
        return rc;
    rc = get_obj(eng, "/containers", o->container, "/json", &r->c, &r->raw_c, &r->raw_c_len, err);
    if (rc != 0)
        return rc;
    if (!json_is_object(r->c))
        return bx_error_set(err, BX_EINVAL, "container", "container inspect is not an object");
    /* fail closed early: a wrong image or a stopped session ends the collection here */
    if ((rc = bxa_check_session(r->c, o->expect_image, err)) != 0)
        return rc;
    img = json_string_value(json_object_get(r->c, "Image"));
    if ((rc = get_obj(eng, "/images", img, "/json", &r->img, &r->raw_img, &r->raw_img_len, err)) !=
        0)
        return rc;
    return get_network(eng, r, err);
}

static int same_member(const json_t *a, const json_t *b, const char *ptr)
{
    const json_t *x = bxa_get(a, ptr), *y = bxa_get(b, ptr);
    return x && y && json_equal((json_t *)x, (json_t *)y);
}

/* Re-inspect by Id: the same start of the same container, still running, same image. */
static int recheck(bx_engine *eng, const bx_collect_opts *o, const json_t *c, bx_error *err)
{
    const char *id = json_string_value(json_object_get(c, "Id"));
    json_t *now = NULL;
    int rc = get_obj(eng, "/containers", id, "/json", &now, NULL, NULL, err);

    if (rc == BX_ENOTFOUND) {
        rc = bx_error_set(err, BX_EDENIED, "container", "container %s is no longer running",
                          o->container);
        goto out;
    }
    if (rc != 0)
        goto out;
    if ((rc = bxa_check_session(now, o->expect_image, err)) != 0) {
        if (rc == BX_EDENIED && strstr(err->msg, "is not running"))
            rc = bx_error_set(err, BX_EDENIED, "container", "container %s is no longer running",
                              o->container);
        goto out;
    }
    if (!same_member(c, now, "/Id") || !same_member(c, now, "/State/StartedAt") ||
        !same_member(c, now, "/State/Pid") || !same_member(c, now, "/Image"))
        rc = bx_error_set(err, BX_EDENIED, "container", "container %s changed during collection",
                          o->container);
out:
    json_decref(now);
    return rc;
}

int bx_collect(bx_engine *eng, const bx_collect_opts *o, json_t **predicate, bx_error *err)
{
    replies r = {0};
    json_t *p = NULL;
    int rc;

    *predicate = NULL;
    if ((rc = fetch(eng, o, &r, err)) != 0)
        goto out;
    rc = bx_predicate_from_inspect(r.version, r.info, r.c, r.img, r.net, r.raw_c, r.raw_c_len,
                                   r.raw_img, r.raw_img_len, o, bx_engine_endpoint(eng), &p, err);
    if (rc != 0)
        goto out;
    if ((rc = recheck(eng, o, r.c, err)) != 0)
        goto out;
    *predicate = p;
    p = NULL;
out:
    json_decref(p);
    replies_free(&r);
    return rc;
}
