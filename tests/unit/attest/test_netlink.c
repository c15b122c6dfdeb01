/* SPDX-License-Identifier: Apache-2.0 */
/* The netlink parsers and the network facts (attest/netlink.c) on recorded replies: every
 * folder of fixtures/netlink/ holds the kernel's replies as the collector received them
 * (link, addr, route, nsid: the session's namespace; host.link, host.nsid: the engine
 * daemon's) and expected.json, the facts (bxa_nl_facts). Then every reply cut short at
 * every length, and bytes changed: never a crash, a broken reply parses to null, never to
 * a list. BOXCERT_DUMP=1 prints what each case parses to (check it by hand). */
#include "tap.h"
#include "attest_internal.h"

#include <dirent.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <stdlib.h>
#include <string.h>

#define DIR_NL BOXCERT_SOURCE_DIR "/fixtures/netlink"

static char *slurp(const char *dir, const char *name, size_t *len)
{
    char path[2048];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    return tap_slurp(path, len);
}

typedef struct {
    char *b[6];
    size_t n[6];
} replies;

static const char *const files[6] = {"link", "addr", "route", "nsid", "host.link", "host.nsid"};

static json_t *facts_of(const replies *r)
{
    bxa_nl_facts_in in = {.host_nsid = -1, .sess_nsid = -1};
    json_t *out = NULL;
    bx_error e = {0};

    in.links = bxa_nl_links(r->b[0], r->n[0]);
    in.addrs = bxa_nl_addrs(r->b[1], r->n[1]);
    in.routes = bxa_nl_routes(r->b[2], r->n[2]);
    in.host_links = bxa_nl_links(r->b[4], r->n[4]);
    if (bxa_nl_nsid(r->b[3], r->n[3], &in.host_nsid) != 0)
        in.host_nsid = -1;
    if (bxa_nl_nsid(r->b[5], r->n[5], &in.sess_nsid) != 0)
        in.sess_nsid = -1;
    if (bxa_nl_facts(&in, &out, &e) != 0)
        out = NULL;
    json_decref((json_t *)in.links);
    json_decref((json_t *)in.addrs);
    json_decref((json_t *)in.routes);
    json_decref((json_t *)in.host_links);
    return out;
}

static void one_case(const char *dir, const char *name)
{
    replies r = {0};
    json_t *want, *got;
    char *exp;
    size_t el;

    for (int i = 0; i < 6; i++)
        r.b[i] = slurp(dir, files[i], &r.n[i]);
    got = facts_of(&r);
    if (getenv("BOXCERT_DUMP")) {
        char *s = json_dumps(got, JSON_INDENT(2) | JSON_SORT_KEYS);
        printf("# %s:\n%s\n", name, s);
        free(s);
    }
    exp = slurp(dir, "expected.json", &el);
    want = exp ? json_loadb(exp, el, 0, NULL) : NULL;
    ok(want && got && json_equal(want, got), "%s: the facts are expected.json", name);
    json_decref(want);
    json_decref(got);
    free(exp);

    /* every dump cut short at every length: null, never a list (nor a crash) */
    for (int i = 0; i < 3; i++) {
        int bad = 0;
        for (size_t cut = 0; r.b[i] && cut < r.n[i]; cut++) {
            char *copy = malloc(cut + 1);
            json_t *v;
            memcpy(copy, r.b[i], cut);
            v = i == 0   ? bxa_nl_links(copy, cut)
                : i == 1 ? bxa_nl_addrs(copy, cut)
                         : bxa_nl_routes(copy, cut);
            bad += !json_is_null(v);
            json_decref(v);
            free(copy);
        }
        ok(bad == 0, "%s: %s cut at each of its %zu lengths is null", name, files[i], r.n[i]);
    }
    /* every byte of the link dump changed in turn: never a crash; a list still sorted facts */
    {
        size_t n = r.n[0];
        char *copy = r.b[0] ? malloc(n) : NULL;
        int crashed = 0;
        for (size_t at = 0; copy && at < n; at++) {
            json_t *v, *f;
            replies m = r;
            memcpy(copy, r.b[0], n);
            copy[at] ^= 0xff;
            m.b[0] = copy;
            v = bxa_nl_links(copy, n);
            f = facts_of(&m);
            crashed += !v || !f;
            json_decref(v);
            json_decref(f);
        }
        ok(copy && crashed == 0, "%s: each byte of link changed: parsed or null, never lost", name);
        free(copy);
    }
    for (int i = 0; i < 6; i++)
        free(r.b[i]);
}

/* A reply of one hand-made message: a link whose name has no NUL, an error, no NLMSG_DONE. */
static void hand_made(void)
{
    struct {
        struct nlmsghdr h;
        struct ifinfomsg i;
        struct rtattr a;
        char name[4];
        struct nlmsghdr done;
        int zero;
    } m;
    json_t *v;
    int64_t nsid = 7;

    memset(&m, 0, sizeof m);
    m.h.nlmsg_len = NLMSG_LENGTH(sizeof m.i) + RTA_LENGTH(4);
    m.h.nlmsg_type = RTM_NEWLINK;
    m.a.rta_len = RTA_LENGTH(4);
    m.a.rta_type = IFLA_IFNAME;
    memcpy(m.name, "eth0", 4); /* no NUL within the payload */
    m.done.nlmsg_len = NLMSG_LENGTH(sizeof(int));
    m.done.nlmsg_type = NLMSG_DONE;
    v = bxa_nl_links((const char *)&m, sizeof m);
    ok(json_is_null(v), "a link name without its NUL: null");
    json_decref(v);
    memcpy(m.name, "eth", 4);
    v = bxa_nl_links((const char *)&m, sizeof m);
    ok(json_array_size(v) == 1 &&
           !strcmp(json_string_value(json_object_get(json_array_get(v, 0), "name")), "eth"),
       "the same link named eth: one link");
    ok(json_is_null(json_object_get(json_array_get(v, 0), "kind")) &&
           json_is_null(json_object_get(json_array_get(v, 0), "linkNetnsid")),
       "... no kind, no peer namespace: null");
    json_decref(v);
    v = bxa_nl_links((const char *)&m, sizeof m - sizeof m.done - sizeof m.zero);
    ok(json_is_null(v), "... without NLMSG_DONE: null (truncated)");
    json_decref(v);
    m.a.rta_len = 200; /* an attribute past the message */
    v = bxa_nl_links((const char *)&m, sizeof m);
    ok(json_is_null(v), "an attribute longer than its message: null");
    json_decref(v);
    m.a.rta_len = RTA_LENGTH(4);
    m.h.nlmsg_type = NLMSG_ERROR;
    v = bxa_nl_links((const char *)&m, sizeof m);
    ok(json_is_null(v), "an error reply: null");
    json_decref(v);
    m.h.nlmsg_len = 3;
    v = bxa_nl_links((const char *)&m, sizeof m);
    ok(json_is_null(v), "a message shorter than its header: null");
    json_decref(v);
    v = bxa_nl_links(NULL, 0);
    ok(json_is_null(v), "no reply: null");
    json_decref(v);
    ok(bxa_nl_nsid(NULL, 0, &nsid) != 0 && nsid == 7, "no nsid reply: not known");
    ok(bxa_nl_is_fallback("sit0", "sit") && !bxa_nl_is_fallback("sit0", "veth") &&
           !bxa_nl_is_fallback("eth0", "sit") && !bxa_nl_is_fallback("sit0", NULL),
       "a fallback device is its name and its kind");
}

/* The bridged case with the nsids changed: its veth's peer is no longer proven the host's. */
static void nsids(void)
{
    replies r = {0};
    bxa_nl_facts_in in = {0};
    json_t *out = NULL;
    bx_error e = {0};
    const char *dir = DIR_NL "/bridged";
    int64_t h = -1, s = -1;

    for (int i = 0; i < 6; i++)
        r.b[i] = slurp(dir, files[i], &r.n[i]);
    in.links = bxa_nl_links(r.b[0], r.n[0]);
    in.host_links = bxa_nl_links(r.b[4], r.n[4]);
    ok(bxa_nl_nsid(r.b[3], r.n[3], &h) == 0 && bxa_nl_nsid(r.b[5], r.n[5], &s) == 0,
       "bridged: both nsids read");
    for (int c = 0; c < 3; c++) {
        const json_t *peer;
        in.host_nsid = c == 1 ? h + 5 : h;
        in.sess_nsid = c == 2 ? s + 5 : s;
        if (bxa_nl_facts(&in, &out, &e) != 0)
            out = NULL;
        peer = json_object_get(json_array_get(json_object_get(out, "links"), 0), "peer");
        if (c == 0)
            ok(json_is_true(json_object_get(peer, "host")),
               "the recorded nsids: the peer is the host's");
        else
            ok(json_is_false(json_object_get(peer, "host")) &&
                   json_is_null(json_object_get(peer, "bridge")),
               "the %s nsid changed: the peer is not proven the host's, no bridge",
               c == 1 ? "host's" : "session's");
        json_decref(out);
    }
    json_decref((json_t *)in.links);
    json_decref((json_t *)in.host_links);
    for (int i = 0; i < 6; i++)
        free(r.b[i]);
}

/* No replies at all: every fact null. */
static void not_read(void)
{
    bxa_nl_facts_in in = {.host_nsid = -1, .sess_nsid = -1};
    json_t *out = NULL;
    bx_error e = {0};

    ok(bxa_nl_facts(&in, &out, &e) == 0 && json_is_null(json_object_get(out, "links")) &&
           json_is_null(json_object_get(out, "routes")) &&
           json_is_null(json_object_get(out, "interfaces")),
       "nothing read: links, routes and interfaces null");
    json_decref(out);
}

int main(void)
{
    DIR *d = opendir(DIR_NL);
    struct dirent *de;
    int cases = 0;

    while (d && (de = readdir(d))) {
        char dir[1024];
        if (de->d_name[0] == '.')
            continue;
        snprintf(dir, sizeof dir, "%s/%s", DIR_NL, de->d_name);
        one_case(dir, de->d_name);
        cases++;
    }
    if (d)
        closedir(d);
    ok(cases >= 2, "fixtures/netlink has its cases (%d)", cases);
    hand_made();
    nsids();
    not_read();
    return tap_done();
}
