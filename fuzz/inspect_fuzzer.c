/* SPDX-License-Identifier: Apache-2.0 */
/* The predicate builder on an arbitrary container inspect, with fixed /version, /info and
 * image inspect replies (the image of the recorded sessions). A predicate that is built
 * must serialize as JCS: anything the builder accepts can be signed. It is then reconciled
 * with fixed kernel and runtime views (as a runc and a runsc session would give them), and
 * must still serialize. */
#include "attest_internal.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define IMAGE_ID "sha256:a718e8935c8e400ef5418beccf861e21824480777b4f805eb2da65c283b74e7c"

static const char version_json[] = "{\"ApiVersion\":\"1.41\",\"Version\":\"20.10.24+dfsg1\","
                                   "\"Components\":[{\"Name\":\"Engine\"}]}";
static const char info_json[] =
    "{\"ID\":\"FUZZ:ENGINE\",\"CgroupVersion\":\"1\",\"SecurityOptions\":"
    "[\"name=seccomp,profile=default\"],\"Runtimes\":{\"runc\":{\"path\":\"runc\"},"
    "\"runsc\":{\"path\":\"/usr/bin/runsc\",\"runtimeArgs\":[\"--network=none\","
    "\"--oci-seccomp\"]}}}";
static const char image_json[] =
    "{\"Id\":\"" IMAGE_ID "\",\"RepoTags\":[\"boxcert-session:1\"],\"RepoDigests\":[]}";
static const char network_json[] =
    "{\"Name\":\"bridge\",\"Id\":\"bb4f842b7ea8\",\"Internal\":false}";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static json_t *version, *info, *image, *network;
    bx_collect_opts o = {.container = "fuzz",
                         .now = 1767225600,
                         .ttl = 86400,
                         .nonce = "00112233445566778899aabbccddeeff"};
    json_t *c, *p = NULL;
    bx_error err;
    char *jcs = NULL;
    size_t len;

    if (!version) {
        version = json_loads(version_json, 0, NULL);
        info = json_loads(info_json, 0, NULL);
        image = json_loads(image_json, 0, NULL);
        network = json_loads(network_json, 0, NULL);
        if (!version || !info || !image || !network)
            abort();
    }
    c = json_loadb((const char *)data, size, JSON_REJECT_DUPLICATES, NULL);
    if (!c)
        return 0;
    const char *mode =
        json_string_value(json_object_get(json_object_get(c, "HostConfig"), "NetworkMode"));
    json_t *net = mode && (!strcmp(mode, "default") || !strcmp(mode, "bridge")) ? network : NULL;
    if (bx_predicate_from_inspect(version, info, c, image, net, (const char *)data, size,
                                  image_json, sizeof image_json - 1, &o, "unix:///fuzz.sock", &p,
                                  &err) == 0) {
        if (!json_is_object(p) || bx_jcs_serialize(p, &jcs, &len, &err) != 0)
            __builtin_trap();
        o.expect_image = IMAGE_ID; /* the same session, pinned */
        json_decref(p);
        p = NULL;
        if (bx_predicate_from_inspect(version, info, c, image, net, (const char *)data, size,
                                      image_json, sizeof image_json - 1, &o, "unix:///fuzz.sock",
                                      &p, &err) != 0)
            __builtin_trap();
    }
    if (p) {
        static const char *const kernel_view =
            "{\"rootfs\":{\"readOnly\":false},\"noNewPrivileges\":false,\"seccomp\":{\"mode\":"
            "\"disabled\"},\"capabilities\":{\"effective\":[\"CHOWN\",45],\"permitted\":[],"
            "\"inheritable\":[],\"ambient\":[],\"bounding\":[\"CHOWN\"]},\"user\":{\"uids\":"
            "[0,1,0,0],\"gids\":[0,0,0,0],\"groups\":[]},\"namespaces\":{\"pid\":\"host\","
            "\"net\":\"host\",\"user\":\"host\"},\"network\":{\"interfaces\":[\"eth0\","
            "\"lo\"]},\"resources\":{\"memoryBytes\":1,\"cpuQuota\":5,\"cpuPeriod\":10,"
            "\"cpuWeight\":7},\"devices\":{\"allowAll\":true},\"mountsReadOnly\":{\"/data\":"
            "false,\"/work\":true},\"writeSurface\":[{\"path\":\"/x\",\"fsType\":\"ext4\","
            "\"options\":[],\"sizeBytes\":null,\"root\":\"/\",\"source\":\"/dev/x\"}]}";
        static const char *const runtime_view =
            "{\"network\":{\"mode\":\"none\",\"interfaces\":[\"lo\"]},\"hostSockets\":"
            "\"--host-uds=open\",\"resources\":{\"memoryBytes\":null}}";
        for (int v = 0; v < 2; v++) {
            json_t *q = json_deep_copy(p), *sources = json_object();
            bxa_views views = {.level = v ? "engine+runtime" : "engine+kernel"};
            if (v)
                views.runtime = json_loads(runtime_view, 0, NULL);
            else
                views.kernel = json_loads(kernel_view, 0, NULL);
            views.runtime_args = json_pack("[s]", "--network=none");
            if (bxa_reconcile(q, &views, NULL, sources, &err) == 0) {
                char *out = NULL;
                /* a faithful predicate stays one */
                if (bx_jcs_serialize(q, &out, &len, &err) != 0)
                    __builtin_trap();
                free(out);
            }
            bxa_views_free(&views);
            json_decref(sources);
            json_decref(q);
        }
    }
    free(jcs);
    json_decref(p);
    json_decref(c);
    return 0;
}
