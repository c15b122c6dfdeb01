/* SPDX-License-Identifier: Apache-2.0 */
/* containment.devices for predicate v3: device nodes anywhere in the session and mknod. A node
 * on a mount a device opens through that is not one of the standard pseudo-devices fails the
 * rule when the device rules in force let it be read or written; so does a task that can make
 * such a node (CAP_MKNOD and an m rule). A walk that was not made or stopped at a bound, a node
 * whose access is not known, a mknod judgment not made: unknown. Under gVisor the sentry makes
 * and serves every device the session opens (docs/threat-model.md). */
#include "policy_internal.h"

#include <stdio.h>
#include <string.h>

int bxp_devices_anywhere(const json_t *cont, unsigned version, char *msg, size_t n, char *why,
                         size_t wn)
{
    const json_t *dev = json_object_get(cont, "devices");
    const json_t *nodes = json_object_get(dev, "nodesAnywhere"),
                 *walk = json_object_get(dev, "walk");
    const json_t *mk = json_object_get(dev, "mknod"), *v;
    const char *served =
        json_string_value(json_object_get(json_object_get(cont, "systemPaths"), "servedBy"));
    int unknown = 0, bad = 0;
    size_t i;

    if (version < 3)
        return 0; /* an older predicate carries none of it: its verdict stays */
    if (served && strcmp(served, "sentry") == 0)
        return 0;
    if (!json_is_array(nodes) || !json_is_object(walk)) {
        bxp_append(why, wn, "%sdevice nodes beyond /dev not walked", *why ? ", " : "");
        unknown = 1;
    } else if (!json_is_false(json_object_get(walk, "truncated"))) {
        bxp_append(why, wn, "%sthe walk for device nodes stopped at a bound", *why ? ", " : "");
        unknown = 1;
    }
    json_array_foreach(nodes, i, v)
    {
        const json_t *acc = json_object_get(v, "accessible");
        if (json_is_false(acc))
            continue;
        if (!json_is_true(acc)) {
            bxp_append(why, wn, "%saccess to %s not known", *why ? ", " : "",
                       json_string_value(json_object_get(v, "path")));
            unknown = 1;
            continue;
        }
        bxp_append(msg, n, "%snode %s (%s %lld:%lld)", *msg ? ", " : "",
                   json_string_value(json_object_get(v, "path")),
                   json_string_value(json_object_get(v, "type")),
                   (long long)json_integer_value(json_object_get(v, "major")),
                   (long long)json_integer_value(json_object_get(v, "minor")));
        bad = 1;
    }
    v = json_object_get(mk, "allowed");
    if (json_is_true(v)) {
        const json_t *r;
        bxp_append(msg, n, "%smknod allowed (CAP_MKNOD; rules", *msg ? ", " : "");
        json_array_foreach(json_object_get(mk, "rules"), i, r)
            bxp_append(msg, n, " '%s'", json_string_value(r));
        bxp_append(msg, n, ")");
        bad = 1;
    } else if (!json_is_false(v)) {
        bxp_append(why, wn, "%swhether a task can make a device not known", *why ? ", " : "");
        unknown = 1;
    }
    return bad ? 1 : unknown ? -1 : 0;
}
