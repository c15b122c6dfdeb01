/* SPDX-License-Identifier: Apache-2.0 */
/* containment.network from the kernel, over netlink (NETLINK_ROUTE): the links of the
 * session's network namespace with their kinds (IFLA_INFO_KIND; /proc/<pid>/net/dev has
 * none), states and addresses, its routes, and for each veth its peer: in the engine
 * daemon's network namespace (IFLA_LINK_NETNSID against the nsid each namespace gives the
 * other, RTM_GETNSID), and the bridge that peer is enslaved to there (IFLA_MASTER).
 *
 * The dumps are made by helper threads that join one network namespace each (setns on a
 * descriptor of /proc/<pid>/ns/net opened beneath the process's own /proc/<pid>
 * descriptor): the collector's own namespaces never change. The bytes the kernel replied
 * are kept as evidence and parsed by the pure functions below (tested on recorded replies,
 * fixtures/netlink/): a reply that is malformed, truncated or an error leaves every fact of
 * that dump null, an attribute out of range only its own field. */
#include "attest_internal.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/if_addr.h>
#include <linux/if_link.h>
#include <linux/net_namespace.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <net/if.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define DUMP_MAX (4u << 20) /* one dump's replies */
#define LINKS_MAX 1024

/* ---- the dumps ------------------------------------------------------------------------------ */

void bxa_nl_dump_free(bxa_nl_dump *d)
{
    for (int i = 0; i < BXA_NL_DUMPS; i++) {
        free(d->buf[i]);
        d->buf[i] = NULL;
        d->len[i] = 0;
    }
}

static int nl_send(int fd, void *req, size_t len)
{
    struct sockaddr_nl sa = {.nl_family = AF_NETLINK};
    return sendto(fd, req, len, 0, (struct sockaddr *)&sa, sizeof sa) == (ssize_t)len ? 0 : -1;
}

/* Every reply of one request (a dump: until NLMSG_DONE or an error; else one message)
 * appended to *buf. 0, or -1 (nothing kept). */
static int nl_collect(int fd, uint32_t seq, int dump, char **buf, size_t *len)
{
    size_t cap = 0, n = 0;
    char *b = NULL;
    long *rx = malloc(65536);
    int done = 0;

    if (!rx)
        return -1;
    while (!done) {
        struct sockaddr_nl from;
        socklen_t fl = sizeof from;
        ssize_t got = recvfrom(fd, rx, 65536, 0, (struct sockaddr *)&from, &fl);
        const struct nlmsghdr *h = (const struct nlmsghdr *)rx;
        int left = (int)got;
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0 || from.nl_pid != 0 || n + (size_t)got > DUMP_MAX)
            goto fail;
        for (; NLMSG_OK(h, left); h = NLMSG_NEXT(h, left))
            if (h->nlmsg_seq == seq &&
                (!dump || h->nlmsg_type == NLMSG_DONE || h->nlmsg_type == NLMSG_ERROR))
                done = 1;
        if (n + (size_t)got > cap) {
            char *nb = realloc(b, cap = (n + (size_t)got) * 2);
            if (!nb)
                goto fail;
            b = nb;
        }
        memcpy(b + n, rx, (size_t)got);
        n += (size_t)got;
    }
    free(rx);
    *buf = b;
    *len = n;
    return 0;
fail:
    free(rx);
    free(b);
    return -1;
}

static int nl_dump(int fd, uint16_t type, uint32_t seq, char **buf, size_t *len)
{
    struct {
        struct nlmsghdr h;
        union {
            struct ifinfomsg i;
            struct ifaddrmsg a;
            struct rtmsg r;
        } m;
    } req;
    size_t body = type == RTM_GETLINK   ? sizeof req.m.i
                  : type == RTM_GETADDR ? sizeof req.m.a
                                        : sizeof req.m.r;

    memset(&req, 0, sizeof req);
    req.h.nlmsg_len = NLMSG_LENGTH(body);
    req.h.nlmsg_type = type;
    req.h.nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
    req.h.nlmsg_seq = seq;
    if (nl_send(fd, &req, req.h.nlmsg_len) != 0)
        return -1;
    return nl_collect(fd, seq, 1, buf, len);
}

/* The nsid this namespace gives the namespace of descriptor other (RTM_GETNSID). */
static int nl_nsid(int fd, int other, uint32_t seq, char **buf, size_t *len)
{
    struct {
        struct nlmsghdr h;
        struct rtgenmsg g;
        char pad[3];
        struct rtattr a;
        uint32_t fd;
    } req;

    memset(&req, 0, sizeof req);
    req.h.nlmsg_len = sizeof req;
    req.h.nlmsg_type = RTM_GETNSID;
    req.h.nlmsg_flags = NLM_F_REQUEST;
    req.h.nlmsg_seq = seq;
    req.g.rtgen_family = AF_UNSPEC;
    req.a.rta_len = RTA_LENGTH(sizeof(uint32_t));
    req.a.rta_type = NETNSA_FD;
    req.fd = (uint32_t)other;
    if (nl_send(fd, &req, sizeof req) != 0)
        return -1;
    return nl_collect(fd, seq, 0, buf, len);
}

typedef struct {
    int ns;    /* the namespace to join, -1: the collector's own */
    int other; /* the namespace whose nsid is asked, or -1 */
    int all;   /* addresses and routes too */
    bxa_nl_dump *d;
} nl_job;

static void *nl_thread(void *arg)
{
    nl_job *j = arg;
    int fd;

    if (j->ns >= 0 && setns(j->ns, CLONE_NEWNET) != 0)
        return NULL;
    if ((fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE)) < 0)
        return NULL;
    /* what fails stays NULL: its facts are null */
    if (nl_dump(fd, RTM_GETLINK, 1, &j->d->buf[BXA_NL_LINK], &j->d->len[BXA_NL_LINK]) == 0 &&
        j->all &&
        nl_dump(fd, RTM_GETADDR, 2, &j->d->buf[BXA_NL_ADDR], &j->d->len[BXA_NL_ADDR]) == 0)
        (void)nl_dump(fd, RTM_GETROUTE, 3, &j->d->buf[BXA_NL_ROUTE], &j->d->len[BXA_NL_ROUTE]);
    if (j->other >= 0)
        (void)nl_nsid(fd, j->other, 4, &j->d->buf[BXA_NL_NSID], &j->d->len[BXA_NL_NSID]);
    close(fd);
    return NULL;
}

static void run_job(nl_job *j)
{
    pthread_t t;

    if (pthread_create(&t, NULL, nl_thread, j) == 0)
        pthread_join(t, NULL);
}

void bxa_nl_read(int sess_ns, int host_ns, bxa_nl_dump *sess, bxa_nl_dump *host)
{
    /* the collector's own namespace stands for the host's when no daemon's is given */
    int own = host_ns < 0 ? open("/proc/thread-self/ns/net", O_RDONLY | O_CLOEXEC) : -1;
    nl_job a = {.ns = sess_ns, .other = host_ns >= 0 ? host_ns : own, .all = 1, .d = sess};
    nl_job b = {.ns = host_ns, .other = sess_ns, .all = 0, .d = host};

    run_job(&a);
    run_job(&b);
    if (own >= 0)
        close(own);
}

/* ---- parsing the replies -------------------------------------------------------------------- */

typedef int (*msg_fn)(const struct nlmsghdr *h, void *ctx);

/* Every message of a reply of type want, to fn; the reply must end with NLMSG_DONE (a dump)
 * and hold no error. 0, or -1: malformed, truncated or an error. */
static int walk(const char *buf, size_t len, uint16_t want, int dump, msg_fn fn, void *ctx)
{
    size_t off = 0;
    int seen = 0;

    if (!buf)
        return -1;
    while (off < len) {
        struct nlmsghdr h;
        if (len - off < sizeof h)
            return -1;
        memcpy(&h, buf + off, sizeof h);
        if (h.nlmsg_len < sizeof h || h.nlmsg_len > len - off)
            return -1;
        if (h.nlmsg_type == NLMSG_DONE)
            return dump && off + NLMSG_ALIGN(h.nlmsg_len) >= len ? 0 : -1;
        if (h.nlmsg_type != want)
            return -1;
        if (((uintptr_t)(buf + off)) % 4 != 0)
            return -1;
        if (fn((const struct nlmsghdr *)(buf + off), ctx) != 0)
            return -1;
        seen++;
        off += NLMSG_ALIGN(h.nlmsg_len);
        if (!dump)
            return off >= len ? 0 : -1;
    }
    return dump || !seen ? -1 : 0;
}

/* The attributes after a fixed header of hdr bytes, by type (the last of a type); -1 when
 * one runs past the message. */
typedef struct {
    const struct rtattr *a[64];
} attrs;

static int attrs_of(const struct nlmsghdr *h, size_t hdr, attrs *out)
{
    const char *p;
    size_t left;

    memset(out, 0, sizeof *out);
    if (h->nlmsg_len < NLMSG_LENGTH(hdr))
        return -1;
    if (h->nlmsg_len < NLMSG_LENGTH(NLMSG_ALIGN(hdr)))
        return -1;
    p = (const char *)NLMSG_DATA(h) + NLMSG_ALIGN(hdr);
    left = h->nlmsg_len - NLMSG_LENGTH(NLMSG_ALIGN(hdr));
    while (left >= sizeof(struct rtattr)) {
        const struct rtattr *a = (const struct rtattr *)p;
        if (a->rta_len < sizeof *a || a->rta_len > left)
            return -1;
        if (a->rta_type < 64)
            out->a[a->rta_type] = a;
        if (RTA_ALIGN(a->rta_len) >= left)
            break;
        left -= RTA_ALIGN(a->rta_len);
        p += RTA_ALIGN(a->rta_len);
    }
    return 0;
}

static int u32_of(const struct rtattr *a, uint32_t *v)
{
    if (!a || RTA_PAYLOAD(a) < sizeof *v)
        return -1;
    memcpy(v, RTA_DATA(a), sizeof *v);
    return 0;
}

/* A string attribute: NUL-terminated within its payload, 1..max-1 bytes, printable. */
static int str_of(const struct rtattr *a, char *out, size_t max)
{
    size_t n;

    if (!a || RTA_PAYLOAD(a) == 0)
        return -1;
    n = strnlen(RTA_DATA(a), RTA_PAYLOAD(a));
    if (n == 0 || n == RTA_PAYLOAD(a) || n >= max)
        return -1;
    memcpy(out, RTA_DATA(a), n);
    out[n] = '\0';
    for (size_t i = 0; i < n; i++)
        if ((unsigned char)out[i] <= 0x20 || out[i] == 0x7f)
            return -1;
    return 0;
}

static json_t *opt_int(int have, int64_t v)
{
    return have ? json_integer(v) : json_null();
}

static const char *const operstates[] = {"unknown", "notpresent", "down", "lowerlayerdown",
                                         "testing", "dormant",    "up",   NULL};

static int link_msg(const struct nlmsghdr *h, void *ctx)
{
    const struct ifinfomsg *m = NLMSG_DATA(h);
    json_t *arr = ctx, *o;
    char name[IFNAMSIZ], kind[64];
    uint32_t link = 0, master = 0, nsid = 0;
    int have_kind = 0, have_link, have_nsid, have_master;
    attrs at;
    uint8_t op = 0xff;

    if (attrs_of(h, sizeof *m, &at) != 0 || str_of(at.a[IFLA_IFNAME], name, sizeof name) != 0 ||
        json_array_size(arr) >= LINKS_MAX)
        return -1;
    if (at.a[IFLA_LINKINFO]) {
        const struct rtattr *n = RTA_DATA(at.a[IFLA_LINKINFO]);
        size_t left = RTA_PAYLOAD(at.a[IFLA_LINKINFO]);
        while (left >= sizeof *n && n->rta_len >= sizeof *n && n->rta_len <= left) {
            if (n->rta_type == IFLA_INFO_KIND)
                have_kind = str_of(n, kind, sizeof kind) == 0;
            if (RTA_ALIGN(n->rta_len) >= left)
                break;
            left -= RTA_ALIGN(n->rta_len);
            n = (const struct rtattr *)((const char *)n + RTA_ALIGN(n->rta_len));
        }
    }
    have_link = u32_of(at.a[IFLA_LINK], &link) == 0;
    have_nsid = u32_of(at.a[IFLA_LINK_NETNSID], &nsid) == 0;
    have_master = u32_of(at.a[IFLA_MASTER], &master) == 0;
    if (at.a[IFLA_OPERSTATE] && RTA_PAYLOAD(at.a[IFLA_OPERSTATE]) >= 1)
        op = *(const uint8_t *)RTA_DATA(at.a[IFLA_OPERSTATE]);
    o = json_pack("{s:I,s:s,s:o,s:b,s:s?,s:o,s:o,s:o}", "index", (json_int_t)m->ifi_index, "name",
                  name, "kind", have_kind ? json_string(kind) : json_null(), "up",
                  (m->ifi_flags & IFF_UP) != 0, "operState", op < 7 ? operstates[op] : NULL, "link",
                  opt_int(have_link, link), "linkNetnsid", opt_int(have_nsid, (int32_t)nsid),
                  "master", opt_int(have_master, master));
    return o && json_array_append_new(arr, o) == 0 ? 0 : -1;
}

static int addr_text(int family, const struct rtattr *a, char *out, size_t n)
{
    size_t want = family == AF_INET ? 4 : family == AF_INET6 ? 16 : 0;

    if (!a || !want || RTA_PAYLOAD(a) != want)
        return -1;
    return inet_ntop(family, RTA_DATA(a), out, (socklen_t)n) ? 0 : -1;
}

static int addr_msg(const struct nlmsghdr *h, void *ctx)
{
    const struct ifaddrmsg *m = NLMSG_DATA(h);
    char ip[INET6_ADDRSTRLEN], full[INET6_ADDRSTRLEN + 8];
    attrs at;

    if (attrs_of(h, sizeof *m, &at) != 0)
        return -1;
    if (m->ifa_family != AF_INET && m->ifa_family != AF_INET6)
        return 0; /* no address of a family this collector records */
    if (addr_text(m->ifa_family, at.a[IFA_LOCAL] ? at.a[IFA_LOCAL] : at.a[IFA_ADDRESS], ip,
                  sizeof ip) != 0 ||
        m->ifa_prefixlen > (m->ifa_family == AF_INET ? 32 : 128))
        return -1;
    snprintf(full, sizeof full, "%s/%u", ip, m->ifa_prefixlen);
    return json_array_append_new(
               ctx, json_pack("{s:I,s:s}", "index", (json_int_t)m->ifa_index, "address", full)) == 0
               ? 0
               : -1;
}

static const char *route_type(unsigned char t)
{
    static const char *const names[] = {[RTN_UNSPEC] = "unspec",
                                        [RTN_UNICAST] = "unicast",
                                        [RTN_LOCAL] = "local",
                                        [RTN_BROADCAST] = "broadcast",
                                        [RTN_ANYCAST] = "anycast",
                                        [RTN_MULTICAST] = "multicast",
                                        [RTN_BLACKHOLE] = "blackhole",
                                        [RTN_UNREACHABLE] = "unreachable",
                                        [RTN_PROHIBIT] = "prohibit",
                                        [RTN_THROW] = "throw",
                                        [RTN_NAT] = "nat",
                                        [RTN_XRESOLVE] = "xresolve"};
    return t < sizeof names / sizeof names[0] ? names[t] : NULL;
}

static int route_msg(const struct nlmsghdr *h, void *ctx)
{
    const struct rtmsg *m = NLMSG_DATA(h);
    char dst[INET6_ADDRSTRLEN], full[INET6_ADDRSTRLEN + 8], gw[INET6_ADDRSTRLEN];
    uint32_t table = 0, oif = 0;
    int fam = m->rtm_family, have_gw, have_oif;
    attrs at;

    if (attrs_of(h, sizeof *m, &at) != 0)
        return -1;
    if (fam != AF_INET && fam != AF_INET6)
        return 0;
    /* the kernel's own routes to the namespace's own addresses never leave it */
    if (m->rtm_type == RTN_LOCAL || m->rtm_type == RTN_BROADCAST || m->rtm_type == RTN_ANYCAST ||
        m->rtm_type == RTN_MULTICAST)
        return 0;
    if (m->rtm_dst_len > (fam == AF_INET ? 32 : 128))
        return -1;
    if (at.a[RTA_DST]) {
        if (addr_text(fam, at.a[RTA_DST], dst, sizeof dst) != 0)
            return -1;
    } else {
        snprintf(dst, sizeof dst, "%s", fam == AF_INET ? "0.0.0.0" : "::");
    }
    snprintf(full, sizeof full, "%s/%u", dst, m->rtm_dst_len);
    have_gw = at.a[RTA_GATEWAY] && addr_text(fam, at.a[RTA_GATEWAY], gw, sizeof gw) == 0;
    have_oif = u32_of(at.a[RTA_OIF], &oif) == 0;
    if (u32_of(at.a[RTA_TABLE], &table) != 0)
        table = m->rtm_table;
    return json_array_append_new(ctx, json_pack("{s:I,s:s,s:s?,s:o,s:s?}", "table",
                                                (json_int_t)table, "dst", full, "gateway",
                                                have_gw ? gw : NULL, "oif", opt_int(have_oif, oif),
                                                "type", route_type(m->rtm_type))) == 0
               ? 0
               : -1;
}

static int nsid_msg(const struct nlmsghdr *h, void *ctx)
{
    uint32_t v = 0;
    attrs at;

    if (attrs_of(h, sizeof(struct rtgenmsg), &at) != 0 || u32_of(at.a[NETNSA_NSID], &v) != 0)
        return -1;
    *(int64_t *)ctx = (int32_t)v;
    return 0;
}

static json_t *parsed(const char *buf, size_t len, uint16_t type, msg_fn fn)
{
    json_t *a = json_array();

    if (a && walk(buf, len, type, 1, fn, a) != 0) {
        json_decref(a);
        return json_null();
    }
    return a;
}

json_t *bxa_nl_links(const char *buf, size_t len)
{
    return parsed(buf, len, RTM_NEWLINK, link_msg);
}

json_t *bxa_nl_addrs(const char *buf, size_t len)
{
    return parsed(buf, len, RTM_NEWADDR, addr_msg);
}

json_t *bxa_nl_routes(const char *buf, size_t len)
{
    return parsed(buf, len, RTM_NEWROUTE, route_msg);
}

int bxa_nl_nsid(const char *buf, size_t len, int64_t *nsid)
{
    int64_t v = -1;

    if (walk(buf, len, RTM_NEWNSID, 0, nsid_msg, &v) != 0 || v < 0)
        return -1;
    *nsid = v;
    return 0;
}

/* ---- the facts ------------------------------------------------------------------------------ */

/* The fallback devices a new namespace gets when their module is loaded on the host: name
 * and kind both. */
static const char *const fallback[][2] = {{"sit0", "sit"},
                                          {"tunl0", "ipip"},
                                          {"ip6tnl0", "ip6tnl"},
                                          {"gre0", "gre"},
                                          {"gretap0", "gretap"},
                                          {"erspan0", "erspan"},
                                          {"ip_vti0", "vti"},
                                          {"ip6_vti0", "vti6"},
                                          {"ip6gre0", "ip6gre"},
                                          {"ip6gretap0", "ip6gretap"},
                                          {"ip6erspan0", "ip6erspan"},
                                          {NULL, NULL}};

int bxa_nl_is_fallback(const char *name, const char *kind)
{
    for (size_t i = 0; name && kind && fallback[i][0]; i++)
        if (strcmp(fallback[i][0], name) == 0 && strcmp(fallback[i][1], kind) == 0)
            return 1;
    return 0;
}

static const json_t *by_index(const json_t *arr, json_int_t idx)
{
    const json_t *v;
    size_t i;

    json_array_foreach(arr, i, v) if (json_integer_value(json_object_get(v, "index")) == idx &&
                                      json_is_integer(json_object_get(v, "index"))) return v;
    return NULL;
}

static const char *sval(const json_t *o, const char *k)
{
    return json_string_value(json_object_get(o, k));
}

static int cmp_link(const void *a, const void *b)
{
    return strcmp(sval(*(json_t *const *)a, "name"), sval(*(json_t *const *)b, "name"));
}

static int cmp_route(const void *a, const void *b)
{
    const json_t *x = *(json_t *const *)a, *y = *(json_t *const *)b;
    json_int_t s = json_integer_value(json_object_get(x, "table")),
               t = json_integer_value(json_object_get(y, "table"));
    const char *k[] = {"dst", "dev", "gateway", "type"};
    int r;

    if (s != t)
        return (s > t) - (s < t);
    for (int i = 0; i < 4; i++) {
        const char *p = sval(x, k[i]), *q = sval(y, k[i]);
        if ((r = strcmp(p ? p : "", q ? q : "")) != 0 || (!p) != (!q))
            return r ? r : p ? 1 : -1;
    }
    return 0;
}

/* The peer of veth l of the session: in the host's namespace (its IFLA_LINK_NETNSID is the
 * nsid the session gives the host's, and the host's link of that index is a veth whose own
 * IFLA_LINK and IFLA_LINK_NETNSID point back), and the bridge it is enslaved to there. */
static json_t *peer_of(const json_t *l, const bxa_nl_facts_in *in)
{
    const json_t *pl = NULL, *br;
    json_int_t link = json_integer_value(json_object_get(l, "link"));
    const json_t *nsid = json_object_get(l, "linkNetnsid");
    int in_host;

    if (!json_is_integer(json_object_get(l, "link")) || !json_is_integer(nsid))
        return json_pack("{s:b,s:n,s:n,s:n}", "host", 0, "bridge", "network", "internal");
    if (!json_is_array(in->host_links) || in->host_nsid < 0 || in->sess_nsid < 0)
        return json_pack("{s:n,s:n,s:n,s:n}", "host", "bridge", "network", "internal");
    in_host = json_integer_value(nsid) == in->host_nsid && (pl = by_index(in->host_links, link)) &&
              json_is_string(json_object_get(pl, "kind")) && !strcmp(sval(pl, "kind"), "veth") &&
              json_integer_value(json_object_get(pl, "link")) ==
                  json_integer_value(json_object_get(l, "index")) &&
              json_is_integer(json_object_get(pl, "linkNetnsid")) &&
              json_integer_value(json_object_get(pl, "linkNetnsid")) == in->sess_nsid;
    if (!in_host)
        return json_pack("{s:b,s:n,s:n,s:n}", "host", 0, "bridge", "network", "internal");
    br = json_is_integer(json_object_get(pl, "master"))
             ? by_index(in->host_links, json_integer_value(json_object_get(pl, "master")))
             : NULL;
    return json_pack(
        "{s:b,s:s?,s:n,s:n}", "host", 1, "bridge",
        br && sval(br, "kind") && !strcmp(sval(br, "kind"), "bridge") ? sval(br, "name") : NULL,
        "network", "internal");
}

int bxa_nl_facts(const bxa_nl_facts_in *in, json_t **out, bx_error *err)
{
    json_t *links = NULL, *routes = NULL, *names = NULL, *r = NULL;
    const json_t *l, *a, *rt;
    size_t i, j;
    int rc = 0;

    *out = NULL;
    if (!json_is_array(in->links)) {
        *out = json_pack("{s:n,s:n,s:n}", "interfaces", "links", "routes");
        return *out ? 0 : bxa_oom(err);
    }
    if (!(links = json_array()) || !(names = json_array())) {
        rc = bxa_oom(err);
        goto out;
    }
    json_array_foreach(in->links, i, l)
    {
        json_t *addrs = json_array(), *o;
        const char *kind = sval(l, "kind");
        json_int_t idx = json_integer_value(json_object_get(l, "index"));
        if (!addrs) {
            rc = bxa_oom(err);
            goto out;
        }
        if (json_is_array(in->addrs)) {
            json_array_foreach(in->addrs, j,
                               a) if (json_integer_value(json_object_get(a, "index")) == idx)
                json_array_append(addrs, json_object_get(a, "address"));
            bxa_sort_strings(addrs);
        } else {
            json_decref(addrs);
            addrs = json_null();
        }
        o = json_pack("{s:O,s:O,s:O,s:O,s:o,s:o}", "name", json_object_get(l, "name"), "kind",
                      json_object_get(l, "kind"), "up", json_object_get(l, "up"), "operState",
                      json_object_get(l, "operState") ? json_object_get(l, "operState")
                                                      : json_null(),
                      "addresses", addrs, "peer",
                      kind && !strcmp(kind, "veth") ? peer_of(l, in) : json_null());
        if (!o || json_array_append_new(links, o) != 0 ||
            json_array_append(names, json_object_get(l, "name")) != 0) {
            rc = bxa_oom(err);
            goto out;
        }
    }
    bxa_sort_json(links, cmp_link);
    bxa_sort_strings(names);
    if (json_is_array(in->routes)) {
        if (!(routes = json_array())) {
            rc = bxa_oom(err);
            goto out;
        }
        json_array_foreach(in->routes, i, rt)
        {
            const json_t *dev =
                json_is_integer(json_object_get(rt, "oif"))
                    ? by_index(in->links, json_integer_value(json_object_get(rt, "oif")))
                    : NULL;
            json_t *o = json_pack(
                "{s:O,s:O,s:O,s:o,s:O}", "table", json_object_get(rt, "table"), "dst",
                json_object_get(rt, "dst"), "gateway",
                json_object_get(rt, "gateway") ? json_object_get(rt, "gateway") : json_null(),
                "dev", dev ? json_incref(json_object_get(dev, "name")) : json_null(), "type",
                json_object_get(rt, "type") ? json_object_get(rt, "type") : json_null());
            if (!o || json_array_append_new(routes, o) != 0) {
                rc = bxa_oom(err);
                goto out;
            }
        }
        bxa_sort_json(routes, cmp_route);
    }
    r = json_pack("{s:o,s:o,s:o}", "interfaces", names, "links", links, "routes",
                  routes ? routes : json_null());
    names = links = routes = NULL;
    if (!r) {
        rc = bxa_oom(err);
        goto out;
    }
    *out = r;
out:
    json_decref(links);
    json_decref(routes);
    json_decref(names);
    return rc;
}

/* ---- the session's network namespace -------------------------------------------------------- */

int bxa_net_read(bxa_kctx *k, bxa_proc *p, json_t **out)
{
    static const char *const names[BXA_NL_DUMPS] = {"link", "addr", "route", "nsid"};
    bxa_nl_dump sess = {0}, host = {0};
    bxa_nl_facts_in in = {.host_nsid = -1, .sess_nsid = -1};
    int sess_ns = -1, host_ns = -1, rc = 0;

    *out = NULL;
    if (!k->real_proc)
        return 0; /* a recorded /proc has no namespace to join */
    if ((sess_ns = openat(p->dfd, "ns/net", O_RDONLY | O_CLOEXEC)) < 0)
        goto facts;
    if (k->have_daemon) {
        char path[48];
        snprintf(path, sizeof path, "%lld/ns/net", (long long)k->daemon_pid);
        host_ns = openat(k->procfd, path, O_RDONLY | O_CLOEXEC);
    }
    bxa_nl_read(sess_ns, host_ns, &sess, &host);
    for (int i = 0; i < BXA_NL_DUMPS && rc == 0; i++) {
        char what[32];
        if (sess.buf[i]) {
            snprintf(what, sizeof what, "netlink.%s", names[i]);
            rc = bxa_keep_proc(k, p, what, sess.buf[i], sess.len[i]);
        }
        if (rc == 0 && host.buf[i]) {
            snprintf(what, sizeof what, "netlink.host.%s", names[i]);
            rc = bxa_keep_proc(k, p, what, host.buf[i], host.len[i]);
        }
    }
    if (rc != 0)
        goto out;
    in.links = bxa_nl_links(sess.buf[BXA_NL_LINK], sess.len[BXA_NL_LINK]);
    in.addrs = bxa_nl_addrs(sess.buf[BXA_NL_ADDR], sess.len[BXA_NL_ADDR]);
    in.routes = bxa_nl_routes(sess.buf[BXA_NL_ROUTE], sess.len[BXA_NL_ROUTE]);
    in.host_links = bxa_nl_links(host.buf[BXA_NL_LINK], host.len[BXA_NL_LINK]);
    if (bxa_nl_nsid(sess.buf[BXA_NL_NSID], sess.len[BXA_NL_NSID], &in.host_nsid) != 0)
        in.host_nsid = -1;
    if (bxa_nl_nsid(host.buf[BXA_NL_NSID], host.len[BXA_NL_NSID], &in.sess_nsid) != 0)
        in.sess_nsid = -1;
facts:
    rc = bxa_nl_facts(&in, out, k->err);
out:
    json_decref((json_t *)in.links);
    json_decref((json_t *)in.addrs);
    json_decref((json_t *)in.routes);
    json_decref((json_t *)in.host_links);
    bxa_nl_dump_free(&sess);
    bxa_nl_dump_free(&host);
    if (sess_ns >= 0)
        close(sess_ns);
    if (host_ns >= 0)
        close(host_ns);
    return rc;
}
