/* SPDX-License-Identifier: Apache-2.0 */
/* containment.channels judged entry by entry (policy/policy_channels.c): the network namespace
 * first (not asked: unknown; another's: fail), descriptors in flight, then the peer (the
 * session's own passes; the host's, another container's or one not found fails unless bound
 * to a path allowed, compared exactly). */
#include "tap.h"
#include "policy_internal.h"

#include <string.h>

static json_t *js(const char *t)
{
    json_error_t je;
    json_t *v = json_loads(t, 0, &je);
    if (!v) {
        printf("Bail out! %s: %s\n", je.text, t);
        exit(1);
    }
    return v;
}

#define S "\"netns\":4026532178,\"netnsOf\":\"session\""
#define HOST "\"peer\":{\"kind\":\"host\",\"pid\":311,\"comm\":\"broker\",\"container\":null}"
#define CONT "\"peer\":{\"kind\":\"container\",\"pid\":9,\"comm\":\"sh\",\"container\":\"abc\"}"
#define UNK "\"peer\":{\"kind\":\"unknown\",\"pid\":null,\"comm\":null,\"container\":null}"
#define OWN "\"peer\":{\"kind\":\"session\",\"pid\":8,\"comm\":null,\"container\":null}"

int main(void)
{
    static const struct {
        const char *entry, *allow;
        bxp_ch want;
        const char *why;
    } c[] = {
        /* the namespace */
        {"{\"family\":\"inet\",\"netns\":null,\"netnsOf\":null}", "[]", BXP_CH_UNKNOWN, "not asked"},
        {"{\"family\":\"inet\",\"netns\":4026532178,\"netnsOf\":null}", "[]", BXP_CH_UNKNOWN, "not asked"},
        {"{\"family\":\"inet\",\"netns\":null,\"netnsOf\":\"session\"}", "[]", BXP_CH_UNKNOWN, "not asked"},
        {"{\"family\":\"inet\",\"netnsOf\":\"session\"}", "[]", BXP_CH_UNKNOWN, "not asked"},
        {"{\"family\":\"inet\",\"netns\":4026531833,\"netnsOf\":\"host\"}", "[]", BXP_CH_FAIL, "the host's"},
        {"{\"family\":\"netlink\",\"netns\":4026531833,\"netnsOf\":\"daemon\"}", "[]", BXP_CH_FAIL, "the daemon's"},
        {"{\"family\":\"packet\",\"netns\":4026532999,\"netnsOf\":\"other\"}", "[]", BXP_CH_FAIL, "another"},
        {"{\"family\":\"unix\",\"netns\":4026532999,\"netnsOf\":\"other\"," OWN "}", "[]", BXP_CH_FAIL, "another"},
        {"{\"family\":\"unix\",\"netns\":4026532999,\"netnsOf\":\"bogus\"}", "[]", BXP_CH_FAIL, "another"},
        {"{\"family\":\"inet\",\"netns\":4026531833,\"netnsOf\":\"host\",\"path\":\"/a\"}", "[\"/a\"]",
         BXP_CH_FAIL, "the host's"},
        /* in flight */
        {"{\"family\":\"unix\"," S ",\"inFlight\":1," OWN "}", "[]", BXP_CH_FAIL, "1 descriptor(s) in flight"},
        {"{\"family\":\"unix\"," S ",\"inFlight\":3}", "[]", BXP_CH_FAIL, "3 descriptor(s)"},
        {"{\"family\":\"unix\"," S ",\"inFlight\":1," HOST ",\"path\":\"/a\"}", "[\"/a\"]", BXP_CH_FAIL, "in flight"},
        {"{\"family\":\"unix\"," S ",\"inFlight\":0," OWN "}", "[]", BXP_CH_PASS, "own"},
        {"{\"family\":\"unix\"," S ",\"inFlight\":null," OWN "}", "[]", BXP_CH_PASS, "own"},
        {"{\"family\":\"unix\"," S ",\"inFlight\":0,\"peer\":null}", "[]", BXP_CH_PASS, "own"},
        /* the peer */
        {"{\"family\":\"unix\"," S "," HOST ",\"path\":\"/run/b.sock\"}", "[]", BXP_CH_FAIL, "host's process 311 (broker) at /run/b.sock"},
        {"{\"family\":\"unix\"," S "," HOST ",\"path\":\"/run/b.sock\"}", "[\"/run/b.sock\"]", BXP_CH_PASS, "allowed"},
        {"{\"family\":\"unix\"," S "," HOST ",\"path\":\"/run/b.sock\"}", "[\"/run/b\"]", BXP_CH_FAIL, "host's"},
        {"{\"family\":\"unix\"," S "," HOST ",\"path\":\"/run/b.sock\"}", "[\"/run/b.sock/\"]", BXP_CH_FAIL, "host's"},
        {"{\"family\":\"unix\"," S "," HOST ",\"path\":\"/run/b.sock\"}", "[\"/run\"]", BXP_CH_FAIL, "host's"},
        {"{\"family\":\"unix\"," S "," HOST ",\"path\":null}", "[\"/run/b.sock\"]", BXP_CH_FAIL, "host's"},
        {"{\"family\":\"unix\"," S "," HOST "}", "[]", BXP_CH_FAIL, "host's"},
        {"{\"family\":\"unix\"," S "," HOST ",\"path\":\"@b\"}", "[\"@b\"]", BXP_CH_PASS, "allowed"},
        {"{\"family\":\"unix\"," S "," HOST ",\"path\":\"@b\"}", "[\"/b\"]", BXP_CH_FAIL, "host's"},
        {"{\"family\":\"unix\"," S "," CONT ",\"path\":\"/s/x\"}", "[]", BXP_CH_FAIL, "container abc at /s/x"},
        {"{\"family\":\"unix\"," S "," CONT ",\"path\":\"/s/x\"}", "[\"/s/x\"]", BXP_CH_PASS, "allowed"},
        {"{\"family\":\"unix\"," S "," UNK "}", "[]", BXP_CH_FAIL, "no process was found"},
        {"{\"family\":\"unix\"," S ",\"peer\":{\"pid\":3}}", "[]", BXP_CH_FAIL, "no process was found"},
        {"{\"family\":\"unix\"," S ",\"peer\":{\"kind\":\"bogus\"}}", "[]", BXP_CH_FAIL, "no process was found"},
        {"{\"family\":\"unix\"," S "," HOST ",\"path\":\"/run/b.sock\"}", "null", BXP_CH_FAIL, "host's"},
    };
    for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
        json_t *e = js(c[i].entry), *a = json_loads(c[i].allow, JSON_DECODE_ANY, NULL);
        char why[256] = "";
        bxp_ch got = bxp_channel_judge(e, json_is_array(a) ? a : NULL, why, sizeof why);
        is_int(got, c[i].want, "case %zu: %s", i, c[i].entry);
        ok(strstr(why, c[i].why) != NULL, "case %zu says '%s' (%s)", i, c[i].why, why);
        json_decref(e);
        json_decref(a);
    }
    return tap_done();
}
