/* SPDX-License-Identifier: Apache-2.0 */
/* Session starts: the one matching of certificates to the starts of sessions, for the audit
 * and for `verify --expect` (bx_expect.h, "session starts"). */
#include "bx_expect.h"

#include <string.h>

int bx_start_of(const json_t *statement, bx_start *out, bx_error *err)
{
    const json_t *pred = json_object_get(statement, "predicate");
    const json_t *s = json_object_get(pred, "session");
    const char *started = json_string_value(json_object_get(s, "startedAt"));
    const json_t *pid = json_object_get(s, "pid");
    int frac = 0;
    bx_error e;

    memset(out, 0, sizeof *out);
    out->container_id = json_string_value(json_object_get(s, "containerId"));
    out->name = json_string_value(json_object_get(s, "name"));
    out->engine_id = json_string_value(json_object_get(json_object_get(pred, "engine"), "id"));
    if (!out->container_id || !started ||
        bx_time_parse_ns(started, &out->started_at, &out->started_ns, &frac, &e) != 0)
        return bx_error_set(err, BX_EINVAL, "/predicate/session",
                            "no container Id or start time that can be read");
    out->has_started = 1;
    /* v2 keeps the engine's fraction: no fraction there means 0 ns; v1 knows the second */
    out->has_ns = frac || bx_statement_version(statement) >= 2;
    out->pid = json_is_integer(pid) && json_integer_value(pid) > 0 ? json_integer_value(pid) : 0;
    return 0;
}

static int known(const char *s)
{
    return s && *s;
}

static int same_engine(const bx_start *a, const bx_start *b)
{
    return !known(a->engine_id) || !known(b->engine_id) || strcmp(a->engine_id, b->engine_id) == 0;
}

int bx_start_matches(const bx_start *want, const bx_start *got)
{
    int proven = 0;

    if (!known(got->container_id) || !got->has_started)
        return BX_START_NO;
    if (known(want->container_id)) {
        if (strcmp(want->container_id, got->container_id) != 0)
            return BX_START_NO;
    } else if (!known(want->name) || !known(got->name) || strcmp(want->name, got->name) != 0) {
        return BX_START_NO;
    }
    if (!same_engine(want, got))
        return BX_START_NO;
    if (!want->has_started)
        return BX_START_SAME;
    if (want->started_at != got->started_at)
        return BX_START_NO;
    if (want->has_ns && got->has_ns) {
        if (want->started_ns != got->started_ns)
            return BX_START_NO;
        proven = 1;
    }
    if (want->pid > 0 && got->pid > 0) {
        if (want->pid != got->pid)
            return BX_START_NO;
        proven = 1;
    }
    return proven ? BX_START_SAME : BX_START_SECOND;
}

int bx_start_ambiguous(const bx_start *got, const bx_start *known_, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        const bx_start *k = &known_[i];
        if (k == got || !known(k->container_id) || !k->has_started ||
            strcmp(k->container_id, got->container_id) != 0 || !same_engine(k, got) ||
            k->started_at != got->started_at)
            continue;
        if ((k->pid > 0 && got->pid > 0 && k->pid != got->pid) ||
            (k->has_ns && got->has_ns && k->started_ns != got->started_ns))
            return 1;
    }
    return 0;
}

int bx_start_takes(const bx_start *want, const bx_start *got, const bx_start *known_, size_t n)
{
    int m = bx_start_matches(want, got);

    if (m == BX_START_SECOND && bx_start_ambiguous(got, known_, n))
        return BX_START_AMBIGUOUS;
    return m;
}

void bx_start_of_entry(const bx_expect_entry *e, bx_start *out)
{
    memset(out, 0, sizeof *out);
    out->container_id = e->id[0] ? e->id : NULL;
    out->name = e->name;
    out->has_started = e->has_started;
    out->started_at = e->started_at;
    out->has_ns = e->has_ns;
    out->started_ns = e->started_ns;
}

int bx_expect_names(const bx_expect_entry *e, const bx_start *got, const json_t *labels,
                    const char *const *kv, size_t nkv)
{
    bx_start want;
    int m;

    bx_start_of_entry(e, &want);
    if ((m = bx_start_matches(&want, got)) == BX_START_NO)
        return BX_START_NO;
    if (want.container_id)
        return m;
    for (size_t i = 0; i < nkv; i++) /* by name only: the run's labels too */
        if (!bx_label_matches(labels, kv[i]))
            return BX_START_NO;
    return m;
}
