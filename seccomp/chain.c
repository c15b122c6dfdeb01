/* SPDX-License-Identifier: Apache-2.0 */
/* A chain's verdict table: each filter evaluated on its own (eval.c), their outcomes
 * combined as the kernel combines them, cached by the chain's SHA-256. */
#include "seccomp_internal.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

void bx_seccomp_chain_sha256(const bx_seccomp_prog *chain, size_t n, unsigned char out[32])
{
    size_t total = 9 + 4 * n, used = 0;
    unsigned char *buf;

    for (size_t f = 0; f < n; f++)
        total += 8 * chain[f].len;
    if (!(buf = malloc(total))) {
        memset(out, 0, 32); /* never matches a real chain's digest in the cache */
        return;
    }
    memcpy(buf, "bxsc1", 5);
    used = 5;
    for (int i = 0; i < 4; i++)
        buf[used++] = (unsigned char)((uint32_t)n >> (8 * i));
    for (size_t f = 0; f < n; f++) {
        for (int i = 0; i < 4; i++)
            buf[used++] = (unsigned char)((uint32_t)chain[f].len >> (8 * i));
        for (size_t pc = 0; pc < chain[f].len; pc++) {
            const struct sock_filter *t = &chain[f].insns[pc];
            buf[used++] = (unsigned char)t->code;
            buf[used++] = (unsigned char)(t->code >> 8);
            buf[used++] = t->jt;
            buf[used++] = t->jf;
            for (int i = 0; i < 4; i++)
                buf[used++] = (unsigned char)(t->k >> (8 * i));
        }
    }
    bx_sha256(buf, used, out);
    free(buf);
}

/* ---- cache --------------------------------------------------------------------------- */

#define CACHE_SLOTS 16
static struct {
    int used;
    unsigned long stamp;
    bx_seccomp_table *t;
} cache[CACHE_SLOTS];
static unsigned long cache_clock;
static pthread_mutex_t cache_lock = PTHREAD_MUTEX_INITIALIZER;
static const unsigned char zero32[32];

static bx_seccomp_table *cache_get(const unsigned char sha[32])
{
    bx_seccomp_table *copy = NULL;

    if (memcmp(sha, zero32, 32) == 0)
        return NULL;
    pthread_mutex_lock(&cache_lock);
    for (int i = 0; i < CACHE_SLOTS; i++) {
        if (cache[i].used && memcmp(cache[i].t->sha256, sha, 32) == 0) {
            cache[i].stamp = ++cache_clock;
            copy = malloc(sizeof *copy);
            if (copy)
                memcpy(copy, cache[i].t, sizeof *copy);
            break;
        }
    }
    pthread_mutex_unlock(&cache_lock);
    return copy;
}

static void cache_put(const bx_seccomp_table *t)
{
    bx_seccomp_table *copy;

    if (memcmp(t->sha256, zero32, 32) == 0 || !(copy = malloc(sizeof *copy)))
        return;
    memcpy(copy, t, sizeof *copy);
    pthread_mutex_lock(&cache_lock);
    int slot = 0;
    for (int i = 0; i < CACHE_SLOTS; i++) {
        if (!cache[i].used) {
            slot = i;
            break;
        }
        if (cache[i].stamp < cache[slot].stamp)
            slot = i;
    }
    free(cache[slot].t);
    cache[slot].t = copy;
    cache[slot].used = 1;
    cache[slot].stamp = ++cache_clock;
    pthread_mutex_unlock(&cache_lock);
}

void bx_seccomp_cache_clear(void)
{
    pthread_mutex_lock(&cache_lock);
    for (int i = 0; i < CACHE_SLOTS; i++) {
        free(cache[i].t);
        cache[i].t = NULL;
        cache[i].used = 0;
    }
    pthread_mutex_unlock(&cache_lock);
}

/* ---- evaluation ---------------------------------------------------------------------- */

static void fold(bxsc_result *acc, const bxsc_result *cur)
{
    for (size_t a = 0; a < BX_SECCOMP_NABI; a++) {
        for (size_t n = 0; n < BX_SECCOMP_NR_COUNT; n++)
            bxsc_out_chain(&acc->nr[a][n], &cur->nr[a][n]);
        bxsc_out_chain(&acc->beyond[a], &cur->beyond[a]);
    }
    bxsc_out_chain(&acc->other_arch, &cur->other_arch);
}

int bx_seccomp_eval(const bx_seccomp_prog *chain, size_t n, unsigned flags, bx_seccomp_table **out,
                    bx_error *err)
{
    bxsc_result *acc = NULL, *cur = NULL;
    bx_seccomp_table *t = NULL;
    unsigned char sha[32];
    int rc;

    *out = NULL;
    if ((rc = bx_seccomp_check_chain(chain, n, err)) != 0)
        goto out;
    bx_seccomp_chain_sha256(chain, n, sha);
    if (!(flags & BX_SECCOMP_NOCACHE) && (t = cache_get(sha)) != NULL)
        goto done;
    acc = malloc(sizeof *acc);
    cur = malloc(sizeof *cur);
    t = calloc(1, sizeof *t);
    if (!acc || !cur || !t) {
        rc = bx_error_set(err, BX_ENOMEM, NULL, "seccomp evaluation: out of memory");
        goto out;
    }
    /* Before any filter runs the result is ALLOW; then newest first, as the kernel. */
    memset(acc, 0, sizeof *acc);
    for (size_t a = 0; a < BX_SECCOMP_NABI; a++) {
        for (size_t i = 0; i < BX_SECCOMP_NR_COUNT; i++)
            bxsc_out_add(&acc->nr[a][i], SECCOMP_RET_ALLOW);
        bxsc_out_add(&acc->beyond[a], SECCOMP_RET_ALLOW);
    }
    bxsc_out_add(&acc->other_arch, SECCOMP_RET_ALLOW);
    for (size_t f = n; f-- > 0;) {
        memset(cur, 0, sizeof *cur);
        if ((rc = bxsc_eval_filter(chain[f].insns, chain[f].len, cur, err)) != 0)
            goto out;
        fold(acc, cur);
    }
    for (size_t a = 0; a < BX_SECCOMP_NABI; a++) {
        for (size_t i = 0; i < BX_SECCOMP_NR_COUNT; i++)
            bxsc_out_entry(&acc->nr[a][i], &t->nr[a][i]);
        bxsc_out_entry(&acc->beyond[a], &t->beyond[a]);
    }
    bxsc_out_entry(&acc->other_arch, &t->other_arch);
    memcpy(t->sha256, sha, 32);
    t->filters = n;
    for (size_t f = 0; f < n; f++)
        t->insns += chain[f].len;
    if (!(flags & BX_SECCOMP_NOCACHE))
        cache_put(t);
done:
    *out = t;
    t = NULL;
    rc = 0;
out:
    free(acc);
    free(cur);
    free(t);
    return rc;
}

void bx_seccomp_table_free(bx_seccomp_table *t)
{
    free(t);
}
