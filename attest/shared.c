/* SPDX-License-Identifier: Apache-2.0 */
/* What several collections by one process share (bx_collect_shared): each image inspect
 * asked once per engine, this host's cgroup mounts and the engine daemon's namespaces read
 * once. Used by the audit, which collects many sessions from several threads. */
#include "attest_internal.h"

#include <stdlib.h>
#include <string.h>

struct bxa_image {
    struct bxa_image *next;
    char *key; /* "<endpoint>\n<image ID>" */
    json_t *json;
    char *raw;
    size_t len;
};

int bx_collect_shared_new(bx_collect_shared **out, bx_error *err)
{
    bx_collect_shared *s = calloc(1, sizeof *s);

    *out = NULL;
    if (!s || pthread_mutex_init(&s->mu, NULL) != 0) {
        free(s);
        return bx_error_set(err, BX_ENOMEM, NULL, "out of memory");
    }
    *out = s;
    return 0;
}

void bx_collect_shared_free(bx_collect_shared *s)
{
    if (!s)
        return;
    for (struct bxa_image *i = s->images, *next; i; i = next) {
        next = i->next;
        json_decref(i->json);
        free(i->key);
        free(i->raw);
        free(i);
    }
    for (struct bxa_daemon *d = s->daemons, *next; d; d = next) {
        next = d->next;
        free(d->key);
        free(d);
    }
    bxa_mounts_free(s->host_mounts, s->nhost_mounts);
    free(s->host_proc);
    pthread_mutex_destroy(&s->mu);
    free(s);
}

static char *image_key(const char *endpoint, const char *id)
{
    char *k = NULL;
    return asprintf(&k, "%s\n%s", endpoint, id) < 0 ? NULL : k;
}

int bxa_shared_image_get(bx_collect_shared *s, const char *endpoint, const char *id, json_t **json,
                         char **raw, size_t *len)
{
    char *key = image_key(endpoint, id);
    int found = 0;

    if (!key)
        return 0;
    pthread_mutex_lock(&s->mu);
    for (struct bxa_image *i = s->images; i && !found; i = i->next) {
        if (strcmp(i->key, key) != 0)
            continue;
        /* copies: the collections that use them run on other threads */
        if ((*raw = malloc(i->len + 1)) && (*json = json_deep_copy(i->json))) {
            memcpy(*raw, i->raw, i->len + 1);
            *len = i->len;
            found = 1;
        } else {
            free(*raw);
            *raw = NULL;
        }
        break;
    }
    pthread_mutex_unlock(&s->mu);
    free(key);
    return found;
}

void bxa_shared_image_put(bx_collect_shared *s, const char *endpoint, const char *id, json_t *json,
                          const char *raw, size_t len)
{
    struct bxa_image *i = calloc(1, sizeof *i);

    if (!i || !(i->key = image_key(endpoint, id)) || !(i->raw = malloc(len + 1))) {
        if (i)
            free(i->key);
        free(i);
        return; /* not kept: the next collection asks the engine again */
    }
    memcpy(i->raw, raw, len);
    i->raw[len] = '\0';
    i->len = len;
    if (!(i->json = json_deep_copy(json))) {
        free(i->raw);
        free(i->key);
        free(i);
        return;
    }
    pthread_mutex_lock(&s->mu);
    i->next = s->images;
    s->images = i;
    pthread_mutex_unlock(&s->mu);
}
