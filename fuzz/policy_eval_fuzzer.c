/* SPDX-License-Identifier: Apache-2.0 */
/* The rules on arbitrary statements: whatever a signed payload holds (the verifier checks
 * its schema first, but the rules must not rely on that), every policy evaluates it
 * without crashing and every finding is well formed. Input: the statement's JSON. */
#include "bx_policy.h"

#include <stdint.h>
#include <string.h>

static const char *const policies[] = {
    "version: 1\nextends: strict\nbenchmark: cis-docker-1.6\n"
    "certificate: {maxAge: 24h, maxCollectionDelay: 60s}\n"
    "collector: {minVersion: 0.1.0}\n"
    "images: {pins: [sha256:a718e8935c8e400ef5418beccf861e21824480777b4f805eb2da65c283b74e7c], "
    "requireCollectorPin: true}\n"
    "source: {required: true}\n"
    "containment:\n  network: [internal, container, none]\n  apparmor: required\n"
    "  selinux: required\n  runtimes: [runsc]\n  user: {nonRoot: true, uids: [65532]}\n"
    "  userns: remapped\n  resources: {memoryMax: 1Gi, pidsMax: 100, cpusMax: \"1.5\"}\n"
    "  seccomp: {allow: [default, "
    "sha256:9c1e5b7a2f4d6c8e0a1b3d5f7e9c2a4b6d8f0e1c3a5b7d9f2e4c6a8b0d1f3e5a]}\n"
    "  forbiddenMounts: [{source: /, access: rw}, {source: /etc, access: any}]\n"
    "  mountPropagationShared: false\n  cgroupParentDefault: true\n  restartMaxRetries: 3\n"
    "evidence: {discrepancies: warn}\nrequested: {mustMatch: true}\n",
    "version: 1\nextends: gvisor\n",
    "version: 1\nextends: cis-docker\ncontainment: {devices: any, apparmor: any, userns: any}\n",
};

static int shaped(const json_t *f)
{
    const char *rule = json_string_value(json_object_get(f, "rule"));
    const char *msg = json_string_value(json_object_get(f, "message"));
    return rule && json_is_string(json_object_get(f, "status")) && msg && !strchr(msg, '\n') &&
           json_object_get(f, "expected") && json_object_get(f, "observed");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static bx_policy *loaded[sizeof policies / sizeof policies[0]];
    json_t *st = json_loadb((const char *)data, size, JSON_REJECT_DUPLICATES, NULL);
    bx_error err;

    for (size_t i = 0; i < sizeof policies / sizeof policies[0]; i++) {
        if (!loaded[i] && bx_policy_load_buffer(policies[i], strlen(policies[i]), "fuzz.yaml",
                                                &loaded[i], &err) != 0)
            __builtin_trap();
    }
    for (size_t i = 0; st && i < sizeof policies / sizeof policies[0]; i++) {
        json_t *findings = json_array(), *f;
        bx_eval_ctx ctx = {.now = 1780000000};
        size_t j;
        int rc = bx_policy_eval(loaded[i], st, &ctx, findings, &err);
        if (rc != 0 && json_is_object(json_object_get(st, "predicate")))
            __builtin_trap(); /* only a statement without a predicate is refused */
        json_array_foreach(findings, j, f)
        {
            if (!shaped(f))
                __builtin_trap();
        }
        json_decref(findings);
    }
    json_decref(st);
    return 0;
}
