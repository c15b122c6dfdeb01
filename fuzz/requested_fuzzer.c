/* SPDX-License-Identifier: Apache-2.0 */
/* collect --requested FILE on arbitrary bytes, then the comparator on what loads, against
 * a hardened and a weak containment: whatever loads must compare without a crash, every
 * verdict one of the three, and the request itself must be something JCS can carry. */
#include "bx_attest.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static const char hardened[] =
    "{\"runtime\":{\"name\":\"runsc\",\"path\":\"/usr/bin/runsc\",\"args\":[]},"
    "\"network\":{\"mode\":\"none\",\"internal\":false,\"interfaces\":[\"lo\"],\"ports\":[]},"
    "\"rootfs\":{\"readOnly\":true},\"capabilities\":{\"add\":[],\"drop\":[\"ALL\"],"
    "\"effective\":[],\"permitted\":[],\"inheritable\":[],\"ambient\":[],\"bounding\":[]},"
    "\"noNewPrivileges\":true,\"seccomp\":{\"mode\":\"filter\",\"profile\":\"default\","
    "\"profileSha256\":\"4f2ac43b8ebbcbc1a033969d09ff0db28ee68d8d1c8d505a3ba5360b002d2014\"},"
    "\"apparmor\":{\"profile\":null,\"available\":false},\"selinux\":{\"label\":null,"
    "\"available\":false},\"privileged\":false,\"user\":{\"spec\":\"65532\",\"uids\":[65532,"
    "65532,65532,65532],\"gids\":[65532,65532,65532,65532],\"groups\":[]},\"namespaces\":"
    "{\"pid\":{\"engine\":\"private\",\"kernel\":\"private\"},\"user\":{\"engine\":\"default\","
    "\"kernel\":\"host\"}},\"resources\":{\"memoryBytes\":268435456,\"memorySwapBytes\":null,"
    "\"pidsLimit\":64,\"nanoCpus\":500000000,\"cpuShares\":null,\"cpuQuota\":null,\"cpuPeriod\":"
    "null,\"cgroupParent\":\"\"},\"writeSurface\":[{\"path\":\"/tmp\",\"kind\":\"tmpfs\","
    "\"fsType\":\"tmpfs\",\"options\":[],\"sizeBytes\":67108864}],\"mounts\":[],\"devices\":"
    "{\"devices\":[],\"cgroupRules\":[],\"allowAll\":false},\"maskedPaths\":[\"/proc/kcore\"],"
    "\"readonlyPaths\":[]}";
static const char weak[] =
    "{\"runtime\":{\"name\":null},\"network\":{\"mode\":\"host\",\"internal\":null,"
    "\"interfaces\":null,\"ports\":[{\"hostIp\":\"\",\"hostPort\":80,\"containerPort\":80,"
    "\"proto\":\"tcp\"}]},\"rootfs\":{\"readOnly\":null},\"capabilities\":{\"effective\":null},"
    "\"noNewPrivileges\":false,\"seccomp\":{\"mode\":null},\"privileged\":true,\"user\":"
    "{\"spec\":\"\",\"uids\":null},\"namespaces\":{},\"resources\":{},\"writeSurface\":null,"
    "\"mounts\":[{\"destination\":\"/x\",\"source\":\"/run/docker.sock\",\"readOnly\":false}],"
    "\"devices\":{\"allowAll\":true},\"maskedPaths\":null}";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static json_t *strong, *weakc;
    json_t *req = NULL;
    char sha[65], old[256], why[128], *jcs = NULL;
    const char *field;
    size_t len;
    bx_error e;

    if (!strong) {
        strong = json_loads(hardened, 0, NULL);
        weakc = json_loads(weak, 0, NULL);
        if (!strong || !weakc)
            abort();
    }
    if (bx_requested_load((const char *)data, size, "fuzz.yaml", &req, sha, old, &e) != 0)
        return 0;
    if (!json_is_object(req) || strlen(sha) != 64)
        __builtin_trap();
    if (bx_jcs_serialize(req, &jcs, &len, &e) != 0)
        __builtin_trap(); /* what loads is recorded as predicate.requested */
    free(jcs);
    for (int i = 0; i < 2; i++) {
        const json_t *c = i ? weakc : strong;
        bx_cmp r = bx_compare_containment(req, c, &field, why, sizeof why);
        if (r != BX_CMP_AT_LEAST && r != BX_CMP_WEAKER && r != BX_CMP_UNKNOWN)
            __builtin_trap();
        if (r != BX_CMP_AT_LEAST && !field)
            __builtin_trap();
        const char *k;
        json_t *v;
        json_object_foreach(req, k, v)
        {
            (void)bx_compare_field(k, v, c, why, sizeof why);
            (void)bx_compare_weaker(k, v, json_object_get(c, k));
        }
    }
    json_decref(req);
    return 0;
}
