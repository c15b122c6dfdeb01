/* SPDX-License-Identifier: Apache-2.0 */
/* containment.user_namespaces judged from containment.namespaceCreation
 * (policy/policy_userns_create.c): an ABI whose clone or unshare takes CLONE_NEWUSER, or whose
 * clone3 is let through, fails while user.max_user_namespaces is above 0; a limit of 0 passes
 * whatever seccomp does; what was not read is unknown. */
#include "tap.h"
#include "policy_internal.h"

#include <string.h>

static json_t *js(const char *t)
{
    json_error_t je;
    json_t *v = json_loads(t, JSON_DECODE_ANY, &je);
    if (!v) {
        printf("Bail out! %s: %s\n", je.text, t);
        exit(1);
    }
    return v;
}

#define C "{\"clone\":[],\"clone3\":false,\"unshare\":[]}"
#define NC(x32, x86, x86_64, max)                                                                  \
    "{\"servedBy\":\"kernel\",\"why\":null,\"maxUserNamespaces\":" max ",\"abis\":{\"x32\":" x32   \
    ",\"x86\":" x86 ",\"x86_64\":" x86_64 "}}"

int main(void)
{
    static const struct {
        const char *nc;
        bxp_ch want;
        const char *why;
    } c[] = {
        {NC(C, C, C, "96367"), BXP_CH_PASS, "refuses CLONE_NEWUSER"},
        {NC(C, C, "{\"clone\":[\"user\"],\"clone3\":false,\"unshare\":[]}", "96367"), BXP_CH_FAIL,
         "x86_64: clone let through"},
        {NC(C, "{\"clone\":[],\"clone3\":false,\"unshare\":[\"user\"]}", C, "5"), BXP_CH_FAIL,
         "x86: unshare let through"},
        {NC("{\"clone\":[],\"clone3\":true,\"unshare\":[]}", C, C, "1"), BXP_CH_FAIL,
         "x32: clone3 let through"},
        {NC(C, C, "{\"clone\":[\"net\",\"pid\"],\"clone3\":false,\"unshare\":[\"mnt\",\"time\"]}",
            "96367"),
         BXP_CH_PASS, "refuses"},
        {NC(C, C, "{\"clone\":[\"user\"],\"clone3\":true,\"unshare\":[\"user\"]}", "0"),
         BXP_CH_PASS, "is 0"},
        {NC(C, C, "{\"clone\":[\"user\"],\"clone3\":false,\"unshare\":[]}", "null"), BXP_CH_UNKNOWN,
         "not read"},
        {NC(C, C, C, "null"), BXP_CH_PASS, "refuses"},
        /* an ABI not known: unknown, unless another ABI is let through (fail) */
        {NC("null", C, C, "96367"), BXP_CH_UNKNOWN, "unknown to libseccomp"},
        {NC("null", C, "{\"clone\":[],\"clone3\":true,\"unshare\":[]}", "96367"), BXP_CH_FAIL,
         "x86_64: clone3"},
        {NC("null", C, C, "0"), BXP_CH_PASS, "is 0"},
        /* chains not read */
        {"{\"servedBy\":\"kernel\",\"abis\":null,\"why\":\"no reader\",\"maxUserNamespaces\":7}",
         BXP_CH_UNKNOWN, "no reader"},
        {"{\"servedBy\":\"kernel\",\"abis\":null,\"why\":\"no reader\",\"maxUserNamespaces\":0}",
         BXP_CH_PASS, "is 0"},
        {"{\"servedBy\":\"sentry\",\"abis\":null,\"why\":null,\"maxUserNamespaces\":null}",
         BXP_CH_UNKNOWN, "no reason recorded"},
    };
    for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
        json_t *nc = js(c[i].nc);
        char why[BXP_MSG_MAX];
        bxp_ch r = bxp_userns_create_judge(nc, why, sizeof why);
        is_int(r, c[i].want, "case %zu: verdict (%.200s)", i, why);
        ok(strstr(why, c[i].why) != NULL, "case %zu: says '%s' (%.200s)", i, c[i].why, why);
        json_decref(nc);
    }
    {
        json_t *nc =
            js(NC(C, C, "{\"clone\":[\"user\"],\"clone3\":true,\"unshare\":[\"user\"]}", "96367"));
        char why[BXP_MSG_MAX];
        bxp_userns_create_judge(nc, why, sizeof why);
        ok(strstr(why, "x86_64: clone unshare clone3") != NULL, "every syscall named (%.200s)",
           why);
        ok(strstr(why, "x32") == NULL, "closed ABIs not named");
        json_decref(nc);
    }
    return tap_done();
}
