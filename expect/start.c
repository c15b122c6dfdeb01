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
    bx_error e;

    memset(out, 0, sizeof *out);
    out->container_id = json_string_value(json_object_get(s, "containerId"));
    out->name = json_string_value(json_object_get(s, "name"));
    out->engine_id = json_string_value(json_object_get(json_object_get(pred, "engine"), "id"));
    if (!out->container_id || !started || bx_time_parse(started, 0, &out->started_at, &e) != 0)
        return bx_error_set(err, BX_EINVAL, "/predicate/session",
                            "no container Id or start time that can be read");
    out->has_started = 1;
    return 0;
}

static int known(const char *s)
{
    return s && *s;
}

int bx_start_matches(const bx_start *want, const bx_start *got)
{
    if (!known(got->container_id) || !got->has_started)
        return 0;
    if (known(want->container_id)) {
        if (strcmp(want->container_id, got->container_id) != 0)
            return 0;
    } else if (!known(want->name) || !known(got->name) || strcmp(want->name, got->name) != 0) {
        return 0;
    }
    if (want->has_started && want->started_at != got->started_at)
        return 0;
    if (known(want->engine_id) && known(got->engine_id) &&
        strcmp(want->engine_id, got->engine_id) != 0)
        return 0;
    return 1;
}

void bx_start_of_entry(const bx_expect_entry *e, bx_start *out)
{
    memset(out, 0, sizeof *out);
    out->container_id = e->id[0] ? e->id : NULL;
    out->name = e->name;
    out->has_started = e->has_started;
    out->started_at = e->started_at;
}

int bx_expect_names(const bx_expect_entry *e, const bx_start *got, const json_t *labels,
                    const char *const *kv, size_t nkv)
{
    bx_start want;

    bx_start_of_entry(e, &want);
    if (!bx_start_matches(&want, got))
        return 0;
    if (want.container_id)
        return 1;
    for (size_t i = 0; i < nkv; i++) /* by name only: the run's labels too */
        if (!bx_label_matches(labels, kv[i]))
            return 0;
    return 1;
}
