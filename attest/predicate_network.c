/* SPDX-License-Identifier: Apache-2.0 */
/* containment.network from the engine's replies: the mode (the engine's "default" named
 * bridge), whether the network is internal, and the ports published. internal is false for
 * none and host (no network one leaves through a gateway of the engine's making), null for
 * container:<id> (the other container's network) and when no network inspect was read.
 * The bindings made (NetworkSettings.Ports) are recorded; a difference from those asked
 * for (HostConfig.PortBindings) is a discrepancy. */
#include "attest_internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static json_int_t imember(const json_t *o, const char *k)
{
    return json_integer_value(json_object_get(o, k));
}

static int cmp_icmp(json_int_t a, json_int_t b)
{
    return a < b ? -1 : a > b;
}

static int cmp_port(const void *a, const void *b)
{
    const json_t *x = *(json_t *const *)a, *y = *(json_t *const *)b;
    int r = cmp_icmp(imember(x, "containerPort"), imember(y, "containerPort"));
    if (!r)
        r = strcmp(bxa_member(x, "proto"), bxa_member(y, "proto"));
    if (!r)
        r = strcmp(bxa_member(x, "hostIp"), bxa_member(y, "hostIp"));
    if (!r)
        r = cmp_icmp(imember(x, "hostPort"), imember(y, "hostPort"));
    return r;
}

/* internal: none and host are not networks one can leave through a gateway of the engine's
 * making (false); a container: network is the other container's (unknown here). */
static int net_internal(bxa_pctx *x, const char *mode, json_t **out)
{
    const char *name, *id;
    int internal, rc;

    *out = NULL;
    if (mode && (strcmp(mode, "none") == 0 || strcmp(mode, "host") == 0)) {
        *out = json_false();
        return 0;
    }
    if (!mode || strncmp(mode, "container:", 10) == 0 || !x->net)
        return bxa_build_null(x, out);
    if ((rc = bxa_str(x->net, "network", "/Name", 1, &name, x->err)) != 0 ||
        (rc = bxa_str(x->net, "network", "/Id", 0, &id, x->err)) != 0 ||
        (rc = bxa_bool(x->net, "network", "/Internal", 0, &internal, x->err)) != 0)
        return rc;
    if (strcmp(name, mode) != 0 && !(id && strcmp(id, mode) == 0))
        return bxa_bad(x->err, "network", "/Name",
                       "network inspect is not of the session's network");
    *out = internal < 0 ? json_null() : json_boolean(internal);
    return 0;
}

static int port_number(const char *s, int64_t *out)
{
    char *end;
    long v;

    if (!s || *s < '0' || *s > '9')
        return -1;
    errno = 0;
    v = strtol(s, &end, 10);
    if (errno || (*end && *end != '/') || v < 0 || v > 65535)
        return -1;
    *out = v;
    return 0;
}

static int port_bindings(bxa_pctx *x, json_t *ports, const char *key, const json_t *binds)
{
    const char *slash = strchr(key, '/');
    const json_t *b;
    int64_t cport, hport;
    size_t i;

    if (json_is_null(binds))
        return 0; /* exposed, not published */
    if (!slash || port_number(key, &cport) != 0 || !json_is_array(binds))
        return bxa_bad(x->err, BXA_CONTAINER, "/NetworkSettings/Ports", "not a port map");
    json_array_foreach(binds, i, b)
    {
        const char *ip, *hp;
        int rc;
        if ((rc = bxa_str(b, BXA_CONTAINER, "/HostIp", 0, &ip, x->err)) != 0 ||
            (rc = bxa_str(b, BXA_CONTAINER, "/HostPort", 1, &hp, x->err)) != 0)
            return rc;
        if (port_number(hp, &hport) != 0 || strchr(hp, '/'))
            return bxa_bad(x->err, BXA_CONTAINER, "/NetworkSettings/Ports",
                           "host port is not a number");
        rc = bxa_push(x, ports,
                      json_pack_ex(&x->jerr, 0, "{s:s,s:I,s:I,s:s}", "hostIp", ip ? ip : "",
                                   "hostPort", (json_int_t)hport, "containerPort",
                                   (json_int_t)cport, "proto", slash + 1));
        if (rc != 0)
            return rc;
    }
    return 0;
}

static int net_ports(bxa_pctx *x, json_t **out)
{
    const json_t *map = bxa_get(x->c, "/NetworkSettings/Ports"), *binds;
    const char *key;
    size_t klen;
    json_t *ports = json_array();
    int rc = 0;

    *out = NULL;
    if (!ports)
        return bxa_oom(x->err);
    if (map && !json_is_null(map) && !json_is_object(map)) {
        rc = bxa_bad(x->err, BXA_CONTAINER, "/NetworkSettings/Ports",
                     "not an object in the engine reply");
        goto out;
    }
    json_object_keylen_foreach((json_t *)map, key, klen, binds)
    {
        if (strlen(key) != klen) {
            rc = bxa_bad(x->err, BXA_CONTAINER, "/NetworkSettings/Ports", "NUL byte in a port");
            goto out;
        }
        if ((rc = port_bindings(x, ports, key, binds)) != 0)
            goto out;
    }
    if ((rc = bxa_sort_array(x, ports, cmp_port, 1)) != 0)
        goto out;
    *out = ports;
    ports = NULL;
out:
    json_decref(ports);
    return rc;
}

/* HostConfig.NetworkMode with the engine's "default" named for what it is. */
int bxa_network_mode(bxa_pctx *x, const char **mode)
{
    int rc = bxa_str(x->c, BXA_CONTAINER, "/HostConfig/NetworkMode", 0, mode, x->err);

    if (rc == 0 && *mode && strcmp(*mode, "default") == 0)
        *mode = "bridge";
    return rc;
}

static int cmp_name(const void *a, const void *b)
{
    return strcmp(bxa_member(*(json_t *const *)a, "name"), bxa_member(*(json_t *const *)b, "name"));
}

/* The bridge device of a bridge-driver network inspect: its bridge name option, else
 * br-<the first 12 of its Id> (docker0 is the default bridge's option). */
static json_t *bridge_of(const json_t *net)
{
    const char *drv = json_string_value(json_object_get(net, "Driver"));
    const char *opt = json_string_value(
        json_object_get(json_object_get(net, "Options"), "com.docker.network.bridge.name"));
    const char *id = json_string_value(json_object_get(net, "Id"));
    char name[16];

    if (!drv || strcmp(drv, "bridge") != 0)
        return json_null();
    if (opt && *opt && strlen(opt) < 16)
        return json_string(opt);
    if (!id || strlen(id) < 12)
        return json_null();
    snprintf(name, sizeof name, "br-%.12s", id);
    return json_string(name);
}

/* NetworkSettings.Networks: the networks the engine says the session is attached to (for
 * container:W, W's), each with its bridge and internal flag where the network's inspect was
 * read. */
static int net_networks(bxa_pctx *x, json_t **out)
{
    const json_t *map = bxa_get(x->joined ? x->joined : x->c, "/NetworkSettings/Networks"), *n;
    const char *name;
    json_t *arr;

    *out = NULL;
    if (!json_is_object(map))
        return bxa_build_null(x, out);
    if (!(arr = json_array()))
        return bxa_oom(x->err);
    json_object_foreach((json_t *)map, name, n)
    {
        const char *id = json_string_value(json_object_get(n, "NetworkID"));
        const char *ip = json_string_value(json_object_get(n, "IPAddress"));
        json_int_t len = json_integer_value(json_object_get(n, "IPPrefixLen"));
        const json_t *net = NULL;
        const char *nid = json_string_value(json_object_get(x->net, "Id"));
        const char *nname = json_string_value(json_object_get(x->net, "Name"));
        char addr[80];
        json_t *o;
        if (!*name) {
            json_decref(arr);
            return bxa_bad(x->err, BXA_CONTAINER, "/NetworkSettings/Networks", "no name");
        }
        if (x->net && ((id && nid && !strcmp(id, nid)) || (nname && !strcmp(nname, name))))
            net = x->net;
        for (size_t i = 0; !net && id && i < json_array_size(x->nets); i++) {
            const json_t *o2 = json_array_get(x->nets, i);
            const char *oid = json_string_value(json_object_get(o2, "Id"));
            if (oid && !strcmp(oid, id))
                net = o2;
        }
        snprintf(addr, sizeof addr, "%s/%lld", ip ? ip : "", (long long)len);
        o = json_pack("{s:s,s:s?,s:s?,s:o,s:o}", "name", name, "id", id && *id ? id : NULL,
                      "ipAddress", ip && *ip ? addr : NULL, "internal",
                      net && json_is_boolean(json_object_get(net, "Internal"))
                          ? json_incref(json_object_get(net, "Internal"))
                          : json_null(),
                      "bridge", net ? bridge_of(net) : json_null());
        if (bxa_push(x, arr, o) != 0) {
            json_decref(arr);
            return bxa_oom(x->err);
        }
    }
    bxa_sort_json(arr, cmp_name);
    *out = arr;
    return 0;
}

int bxa_build_network(bxa_pctx *x, json_t **out)
{
    const char *mode;
    json_t *internal = NULL, *ports = NULL, *nets = NULL;
    int rc;

    if ((rc = bxa_network_mode(x, &mode)) != 0 || (rc = net_internal(x, mode, &internal)) != 0)
        return rc;
    if ((rc = net_ports(x, &ports)) != 0 || (rc = net_networks(x, &nets)) != 0) {
        json_decref(internal);
        json_decref(ports);
        return rc;
    }
    return bxa_packed(x,
                      json_pack_ex(&x->jerr, 0, "{s:s?,s:o,s:n,s:o,s:n,s:o,s:n}", "mode", mode,
                                   "internal", internal, "interfaces", "ports", ports, "links",
                                   "networks", nets, "routes"),
                      out);
}

/* HostConfig.PortBindings as the predicate's port entries (hostPort null: any port the
 * engine picks; hostIp "" : every address). */
static int configured_ports(bxa_pctx *x, json_t **out)
{
    const json_t *map = bxa_get(x->c, "/HostConfig/PortBindings"), *binds, *b;
    const char *key;
    json_t *r = json_array();
    size_t i;
    int64_t cport, hport;

    *out = NULL;
    if (!r)
        return bxa_oom(x->err);
    json_object_foreach((json_t *)map, key, binds)
    {
        const char *slash = strchr(key, '/');
        if (!slash || port_number(key, &cport) != 0) {
            json_decref(r);
            return bxa_bad(x->err, BXA_CONTAINER, "/HostConfig/PortBindings", "not a port map");
        }
        json_array_foreach(binds, i, b)
        {
            const char *ip = json_string_value(json_object_get(b, "HostIp"));
            const char *hp = json_string_value(json_object_get(b, "HostPort"));
            int any = !hp || !*hp || (port_number(hp, &hport) == 0 && hport == 0);
            if (!any && port_number(hp, &hport) != 0) {
                json_decref(r);
                return bxa_bad(x->err, BXA_CONTAINER, "/HostConfig/PortBindings",
                               "host port is not a number");
            }
            if (bxa_push(x, r,
                         json_pack("{s:s,s:o,s:I,s:s}", "hostIp", ip ? ip : "", "hostPort",
                                   any ? json_null() : json_integer(hport), "containerPort",
                                   (json_int_t)cport, "proto", slash + 1)) != 0) {
                json_decref(r);
                return bxa_oom(x->err);
            }
        }
    }
    if (bxa_sort_array(x, r, cmp_port, 1) != 0) {
        json_decref(r);
        return bxa_oom(x->err);
    }
    *out = r;
    return 0;
}

static int port_matches(const json_t *want, const json_t *got)
{
    const char *wip = bxa_member(want, "hostIp"), *gip = bxa_member(got, "hostIp");
    const json_t *whp = json_object_get(want, "hostPort");

    if (imember(want, "containerPort") != imember(got, "containerPort") ||
        strcmp(bxa_member(want, "proto"), bxa_member(got, "proto")) != 0)
        return 0;
    if (*wip ? strcmp(wip, gip) != 0 : !(!*gip || !strcmp(gip, "0.0.0.0") || !strcmp(gip, "::")))
        return 0;
    return json_is_null(whp) || json_integer_value(whp) == imember(got, "hostPort");
}

static int all_matched(const json_t *a, const json_t *b)
{
    const json_t *x, *y;
    size_t i, j;

    json_array_foreach(a, i, x)
    {
        int found = 0;
        json_array_foreach(b, j, y) found |= port_matches(x, y) || port_matches(y, x);
        if (!found)
            return 0;
    }
    return 1;
}

/* The bindings made (NetworkSettings.Ports) against those asked for (HostConfig.PortBindings):
 * both are the engine's word; the bindings made are recorded. */
int bxa_port_discrepancy(bxa_pctx *x, json_t *disc)
{
    json_t *want = NULL, *got = NULL;
    int rc;

    if ((rc = configured_ports(x, &want)) != 0 || (rc = net_ports(x, &got)) != 0)
        goto out;
    if (!all_matched(want, got) || !all_matched(got, want))
        rc = bxa_push(x, disc,
                      json_pack("{s:s,s:{s:O,s:n,s:n,s:n},s:O,s:s}", "field",
                                "containment.network.ports", "values", "engine", want, "spec",
                                "runtime", "kernel", "recorded", got, "reason",
                                "NetworkSettings.Ports (the bindings made) differ from "
                                "HostConfig.PortBindings"));
out:
    json_decref(want);
    json_decref(got);
    return rc;
}
