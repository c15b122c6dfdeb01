// SPDX-License-Identifier: Apache-2.0
/* Policy words that are also names: a keyword of containment.network (none, host, bridge,
 * internal, container) means only the keyword; a network of that name is written under
 * names:. A name never satisfies a keyword, nor a keyword a name. */
#include "eval_case.h"

#define NET "containment.network"
#define POL(net) "version: 1\ncontainment:\n  network: " net "\n"

static void keywords_are_keywords(void)
{
    static const struct {
        const char *policy, *network, *want, *name;
    } t[] = {
        /* internal: a user-defined network whose internal flag is true, never by its name */
        {"[internal]", "{\"mode\":\"internal\",\"internal\":false}", "fail",
         "a network named internal, not internal, under [internal]"},
        {"[internal]", "{\"mode\":\"internal\",\"internal\":null}", "unknown",
         "a network named internal, internal not observed"},
        {"[internal]", "{\"mode\":\"internal\",\"internal\":true}", "pass",
         "a network named internal that is internal"},
        {"[internal]", "{\"mode\":\"build-net\",\"internal\":true}", "pass",
         "an internal network of another name"},
        {"[internal]", "{\"mode\":\"bridge\",\"internal\":true}", "fail",
         "the default bridge is never internal"},
        {"[internal]", "{\"mode\":\"default\",\"internal\":true}", "fail",
         "nor is default"},
        {"[internal]", "{\"mode\":\"host\",\"internal\":true}", "fail", "host is never internal"},
        {"[internal]", "{\"mode\":\"container:0123456789ab\",\"internal\":true}", "fail",
         "container:<id> is not internal"},
        /* container: only container:<id> */
        {"[container]", "{\"mode\":\"container\"}", "fail",
         "a network named container under [container]"},
        {"[container]", "{\"mode\":\"container:\"}", "fail", "container: with no id"},
        {"[container]", "{\"mode\":\"container:w\"}", "pass", "container:<name>"},
        {"[container]", "{\"mode\":\"containers\"}", "fail", "a network named containers"},
        /* none, host, bridge */
        {"[none]", "{\"mode\":\"none\"}", "pass", "none"},
        {"[none]", "{\"mode\":\"nones\"}", "fail", "a network whose name starts with none"},
        {"[bridge]", "{\"mode\":\"default\"}", "pass", "default is the default bridge"},
        {"[bridge]", "{\"mode\":\"bridge2\"}", "fail", "a network named bridge2"},
        {"[host]", "{\"mode\":\"hostnet\"}", "fail", "a network named hostnet"},
        /* the list form's names are names */
        {"[build-net]", "{\"mode\":\"build-net\"}", "pass", "a listed name"},
        {"[build-net]", "{\"mode\":\"build-net2\"}", "fail", "a name it prefixes"},
        {"[build-net]", "{\"mode\":\"build\"}", "fail", "a prefix of the name"},
        {"[build-net]", "{\"mode\":\"container:build-net\"}", "fail",
         "the name as a container"},
        /* the map form */
        {"{names: [internal]}", "{\"mode\":\"internal\",\"internal\":false}", "pass",
         "names: [internal] admits the network named internal"},
        {"{names: [internal]}", "{\"mode\":\"build-net\",\"internal\":true}", "fail",
         "names: [internal] is not the keyword"},
        {"{names: [container]}", "{\"mode\":\"container:x\"}", "fail",
         "names: [container] is not the keyword"},
        {"{names: [container]}", "{\"mode\":\"container\"}", "pass",
         "names: [container] admits the network named container"},
        {"{modes: [internal], names: [ci]}", "{\"mode\":\"ci\",\"internal\":false}", "pass",
         "modes and names: a listed name"},
        {"{modes: [internal], names: [ci]}", "{\"mode\":\"other\",\"internal\":true}", "pass",
         "modes and names: an internal network"},
        {"{modes: [internal], names: [ci]}", "{\"mode\":\"other\",\"internal\":false}", "fail",
         "modes and names: neither"},
        {"{modes: [none]}", "{\"mode\":\"bridge\"}", "fail", "modes: [none]"},
        {"{}", "{\"mode\":\"none\"}", "fail", "an empty map allows no network"},
    };
    char pol[256];
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        char cont[256];
        snprintf(pol, sizeof pol, POL("%s"), t[i].policy);
        snprintf(cont, sizeof cont, "{\"network\":%s}", t[i].network);
        expect(pol, cont, NULL, NET, t[i].want, t[i].name);
    }
}

static void names_refused(void)
{
    static const char *bad[] = {"{names: [bridge]}", "{names: [none]}", "{names: [host]}",
                                "{names: [default]}", "{names: [-x]}", "{modes: [mynet]}",
                                "{modes: [internal], other: [x]}", "[\"a b\"]"};
    char pol[256];
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        bx_policy *p = NULL;
        bx_error err = {0};
        snprintf(pol, sizeof pol, POL("%s"), bad[i]);
        int rc = bx_policy_load_buffer(pol, strlen(pol), "words.yaml", &p, &err);
        ok(rc == BX_ECONFIG && !p && strstr(err.where, "words.yaml:3:"),
           "network: %s is refused at its place (%s: %s)", bad[i], err.where, err.msg);
        bx_policy_free(p);
    }
}

int main(void)
{
    keywords_are_keywords();
    names_refused();
    return tap_done();
}
