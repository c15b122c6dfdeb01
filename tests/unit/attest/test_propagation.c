/* SPDX-License-Identifier: Apache-2.0 */
/* Mount propagation (attest/propagation.c): mountinfo's optional fields parsed strictly, and
 * the host mount points of the peer groups a session mount receives from, less the
 * session's own. */
#include "tap.h"
#include "attest_internal.h"

#include <stdlib.h>
#include <string.h>

static void parse(void)
{
    static const struct {
        const char *opt;
        int rc;
        int64_t shared, master, from;
        int unbindable, receives;
    } c[] = {
        {"", 0, 0, 0, 0, 0, 0},
        {NULL, 0, 0, 0, 0, 0, 0},
        {"shared:1", 0, 1, 0, 0, 0, 1},
        {"master:412", 0, 0, 412, 0, 0, 1},
        {"shared:7 master:3", 0, 7, 3, 0, 0, 1},
        {"master:3 propagate_from:2", 0, 0, 3, 2, 0, 1},
        {"shared:9 master:3 propagate_from:2", 0, 9, 3, 2, 0, 1},
        {"unbindable", 0, 0, 0, 0, 1, 0},
        {"  shared:5  ", 0, 5, 0, 0, 0, 1},
        {"shared:922337203685477580", 0, 922337203685477580LL, 0, 0, 0, 1},
        /* errors: the mount is unknown, never private */
        {"shared:", BX_EINVAL, 0, 0, 0, 0, 0},
        {"shared:0", BX_EINVAL, 0, 0, 0, 0, 0},
        {"shared:01", BX_EINVAL, 0, 0, 0, 0, 0},
        {"shared:-1", BX_EINVAL, 0, 0, 0, 0, 0},
        {"shared:+1", BX_EINVAL, 0, 0, 0, 0, 0},
        {"shared:1x", BX_EINVAL, 0, 0, 0, 0, 0},
        {"shared:9223372036854775808", BX_EINVAL, 0, 0, 0, 0, 0},
        {"shared:1 shared:2", BX_EINVAL, 0, 0, 0, 0, 0},
        {"master:1 master:1", BX_EINVAL, 0, 0, 0, 0, 0},
        {"unbindable unbindable", BX_EINVAL, 0, 0, 0, 0, 0},
        {"propagate_from:2", BX_EINVAL, 0, 0, 0, 0, 0},
        {"unbindable shared:2", BX_EINVAL, 0, 0, 0, 0, 0},
        {"master:2 unbindable", BX_EINVAL, 0, 0, 0, 0, 0},
        {"slave:2", BX_EINVAL, 0, 0, 0, 0, 0},
        {"private", BX_EINVAL, 0, 0, 0, 0, 0},
        {"shared", BX_EINVAL, 0, 0, 0, 0, 0},
        {"Shared:1", BX_EINVAL, 0, 0, 0, 0, 0},
        {"-", BX_EINVAL, 0, 0, 0, 0, 0},
    };
    for (size_t i = 0; i < sizeof c / sizeof *c; i++) {
        bxa_propagation p;
        bx_error err = {0};
        int rc = bxa_parse_propagation(c[i].opt, &p, &err);
        is_int(rc, c[i].rc, "parse '%s' rc", c[i].opt ? c[i].opt : "(null)");
        if (rc != 0) {
            ok(err.msg[0] != '\0', "parse '%s' says why", c[i].opt);
            continue;
        }
        ok(p.shared == c[i].shared && p.master == c[i].master && p.propagate_from == c[i].from &&
               p.unbindable == c[i].unbindable,
           "parse '%s' groups", c[i].opt ? c[i].opt : "(null)");
        is_int(bxa_propagation_receives(&p), c[i].receives, "'%s' receives",
               c[i].opt ? c[i].opt : "(null)");
    }
}

/* A host mountinfo: its root (shared:1), the engine's data root on its own file system
 * (shared:30), a session's rootfs overlay (shared:40), a folder bound rshared from the host
 * (shared:50, and its bind at another place, shared:50 too), a slave of 50 on the host
 * (master:50: not a member of 50), /tmp private. */
static const char host_mi[] =
    "21 1 8:1 / / rw shared:1 - ext4 /dev/sda1 rw\n"
    "30 21 8:2 / /var/lib/docker rw shared:30 - ext4 /dev/sda2 rw\n"
    "40 30 0:50 / /var/lib/docker/overlay2/abc/merged rw shared:40 - overlay overlay rw\n"
    "41 40 0:51 / /var/lib/docker/overlay2/abc/merged/proc rw shared:41 - proc proc rw\n"
    "50 21 0:60 / /srv/x rw shared:50 - tmpfs tmpfs rw\n"
    "51 21 0:60 / /mnt/y rw shared:50 - tmpfs tmpfs rw\n"
    "52 21 0:60 / /mnt/z rw master:50 - tmpfs tmpfs rw\n"
    "60 21 0:70 / /tmp rw - tmpfs tmpfs rw\n";

static size_t outside(const char *opt, const char *const *own, size_t nown, const char **first,
                      const char **second)
{
    bxa_mount *hm = NULL;
    size_t nhm = 0;
    bx_error err = {0};
    bxa_propagation p;
    const char **pts = NULL;
    size_t n = 0;
    *first = *second = NULL;
    if (bxa_parse_mountinfo(host_mi, strlen(host_mi), &hm, &nhm, &err) != 0 ||
        bxa_parse_propagation(opt, &p, &err) != 0 ||
        bxa_propagation_outside(&p, hm, nhm, own, nown, &pts, &n, &err) != 0) {
        bxa_mounts_free(hm, nhm);
        return (size_t)-1;
    }
    static char a[128], b[128];
    if (n > 0)
        *first = strcpy(a, pts[0]);
    if (n > 1)
        *second = strcpy(b, pts[1]);
    free(pts);
    bxa_mounts_free(hm, nhm);
    return n;
}

static void groups(void)
{
    static const char *const own[] = {"/var/lib/docker/overlay2/abc/merged"};
    const char *f, *s;

    /* a default session's root: a slave of its own overlay's group: nothing outside */
    is_int((int)outside("master:40", own, 1, &f, &s), 0, "root overlay's own group");
    /* ... and its /proc below the session's rootfs: its own too */
    is_int((int)outside("master:41", own, 1, &f, &s), 0, "own group below the rootfs");
    /* without the session's own points the overlay is outside (the exclusion is needed) */
    is_int((int)outside("master:40", NULL, 0, &f, &s), 1, "overlay counts without own");
    is_str(f, "/var/lib/docker/overlay2/abc/merged", "the overlay named");
    /* rslave of a host folder shared with two host points: both named, the slave not */
    is_int((int)outside("master:50", own, 1, &f, &s), 2, "rslave: both peers");
    is_str(f, "/srv/x", "first peer");
    is_str(s, "/mnt/y", "second peer");
    /* rshared: a peer of the same group */
    is_int((int)outside("shared:50", own, 1, &f, &s), 2, "rshared: peers");
    /* shared with its own group only, slave of the data root */
    is_int((int)outside("shared:99 master:30", own, 1, &f, &s), 1, "slave of the data root");
    is_str(f, "/var/lib/docker", "the data root named");
    /* the dominant group named by propagate_from */
    is_int((int)outside("master:77 propagate_from:1", own, 1, &f, &s), 1, "propagate_from");
    is_str(f, "/", "host root named");
    /* private and unbindable receive nothing, whatever the host shows */
    is_int((int)outside("", own, 1, &f, &s), 0, "private");
    is_int((int)outside("unbindable", own, 1, &f, &s), 0, "unbindable");
    /* a group no host mount shows */
    is_int((int)outside("master:12345", own, 1, &f, &s), 0, "unseen group");
    /* the own test is by ancestry, not prefix: /srv/xy is not within /srv/x */
    static const char *const near[] = {"/srv/xy", "/mnt"};
    is_int((int)outside("master:50", near, 2, &f, &s), 1, "ancestry, not prefix");
    is_str(f, "/srv/x", "/srv/x kept");
}

static void bad_host(void)
{
    static const char mi[] = "21 1 8:1 / / rw shared:1 bogus:2 - ext4 /dev/sda1 rw\n";
    bxa_mount *hm = NULL;
    size_t nhm = 0;
    bx_error err = {0};
    bxa_propagation p = {.master = 1};
    const char **pts = NULL;
    size_t n = 0;
    if (bxa_parse_mountinfo(mi, sizeof mi - 1, &hm, &nhm, &err) != 0) {
        ok(0, "host mountinfo parsed");
        return;
    }
    is_int(bxa_propagation_outside(&p, hm, nhm, NULL, 0, &pts, &n, &err), BX_EINVAL,
           "a host mount's unknown field is an error");
    ok(pts == NULL && n == 0, "nothing returned");
    ok(strstr(err.msg, "bogus") != NULL, "the error names the field: %s", err.msg);
    bxa_mounts_free(hm, nhm);
}

/* bxa_fold_propagation: a session's mountinfo folded into propagationPeers, as a JSON text */
static char *fold(const char *session_mi, const char *root_path, const char *host)
{
    bx_error err = {0};
    bxa_kctx k = {.err = &err};
    bxa_mount *sm = NULL;
    size_t nsm = 0;
    json_t *peers = json_array();
    char *text = NULL;
    if (host && bxa_parse_mountinfo(host, strlen(host), &k.hm, &k.nhm, &err) != 0)
        goto out;
    if (root_path)
        k.spec_json = json_pack("{s:{s:s}}", "root", "path", root_path);
    if (bxa_parse_mountinfo(session_mi, strlen(session_mi), &sm, &nsm, &err) != 0 ||
        bxa_fold_propagation(&k, &peers, sm, nsm) != 0)
        goto out;
    text = peers ? json_dumps(peers, JSON_COMPACT | JSON_SORT_KEYS) : strdup("null");
out:
    json_decref(peers);
    json_decref(k.spec_json);
    bxa_mounts_free(k.hm, k.nhm);
    bxa_mounts_free(sm, nsm);
    return text;
}

static void folded(const char *session_mi, const char *root_path, int host_read, const char *want,
                   const char *name)
{
    char *got = fold(session_mi, root_path, host_read ? host_mi : NULL);
    is_str(got, want, "%s", name);
    free(got);
}

/* The same against another host's mountinfo. */
static void folded_host(const char *session_mi, const char *root_path, const char *host,
                        const char *want, const char *name)
{
    char *got = fold(session_mi, root_path, host);
    is_str(got, want, "%s", name);
    free(got);
}

static void fold_cases(void)
{
    static const char merged[] = "/var/lib/docker/overlay2/abc/merged";
    /* a default session: its root a slave of its own overlay (0:50, as the host shows it) */
    static const char def[] = "100 90 0:50 / / rw master:40 - overlay overlay rw\n"
                              "101 100 0:80 / /proc rw - proc proc rw\n";
    static const char slave[] = "100 90 0:50 / / rw master:40 - overlay overlay rw\n"
                                "102 100 0:60 / /x rw master:50 - tmpfs tmpfs rw\n"
                                "103 100 0:61 / /y rw master:30 - ext4 /dev/sda2 rw\n"
                                "104 100 0:62 / /z rw master:12345 - tmpfs tmpfs rw\n"
                                "105 100 0:63 / /u rw unbindable - tmpfs tmpfs rw\n";
    static const char odd[] = "100 90 0:50 / / rw master:40 - overlay overlay rw\n"
                              "102 100 0:60 / /x rw master:50 bogus:1 - tmpfs tmpfs rw\n";
    /* the root a folder of the host's disk (the vfs driver) in the overlay's group */
    static const char vfs[] = "100 90 8:2 /vfs/dir/abc / rw master:40 - ext4 /dev/sda2 rw\n";
    /* the root a whole file system of a disk, mounted once on the host (the data root) */
    static const char disk[] = "100 90 8:2 / / rw master:30 - ext4 /dev/sda2 rw\n";
    /* the root a folder of the overlay, not the overlay's own root */
    static const char overlay_sub[] = "100 90 0:50 /sub / rw master:40 - overlay overlay rw\n";
    static const char twice[] = "100 90 0:50 / / rw master:40 - overlay overlay rw\n"
                                "102 100 0:60 / /x rw master:50 - tmpfs tmpfs rw\n"
                                "106 100 0:60 / /x rw master:50 - tmpfs tmpfs rw\n";

    folded(def, merged, 1, "[{\"destination\":\"/\",\"outside\":[],\"propagation\":\"master:40\"}]",
           "default root: its own overlay left out, the private /proc not listed");
    /* no spec, or one that does not hold: the one host mount of the root's overlay is its own */
    folded(def, NULL, 1, "[{\"destination\":\"/\",\"outside\":[],\"propagation\":\"master:40\"}]",
           "no spec root: the one host mount of the root's overlay left out");
    folded(def, "/var/lib/docker", 1,
           "[{\"destination\":\"/\",\"outside\":[],\"propagation\":\"master:40\"}]",
           "a spec root on another device: the overlay's one host mount left out");
    folded(
        def, "/tmp", 1, "[{\"destination\":\"/\",\"outside\":[],\"propagation\":\"master:40\"}]",
        "a spec root on another device of the same major: the overlay's one host mount left out");
    folded(def, "var/lib/docker/overlay2/abc/merged", 1,
           "[{\"destination\":\"/\",\"outside\":[],\"propagation\":\"master:40\"}]",
           "a relative spec root: the overlay's one host mount left out");
    /* a root that is not an overlay (a folder of the host's disk): only a spec that holds */
    folded(vfs, NULL, 1,
           "[{\"destination\":\"/\",\"outside\":[\"/var/lib/docker/overlay2/abc/merged\"],"
           "\"propagation\":\"master:40\"}]",
           "a root not an overlay, no spec: nothing left out");
    folded(
        disk, NULL, 1,
        "[{\"destination\":\"/\",\"outside\":[\"/var/lib/docker\"],\"propagation\":\"master:30\"}]",
        "a root that is a whole disk file system the host mounts once, no spec: nothing left out");
    folded(overlay_sub, NULL, 1,
           "[{\"destination\":\"/\",\"outside\":[\"/var/lib/docker/overlay2/abc/merged\"],"
           "\"propagation\":\"master:40\"}]",
           "a root that is a folder of an overlay, no spec: nothing left out");
    folded(def, "/var/lib/docker/overlay2/none/merged", 1,
           "[{\"destination\":\"/\",\"outside\":[],\"propagation\":\"master:40\"}]",
           "a spec root the host shows no mount at: the overlay's one host mount left out");
    {
        /* the overlay mounted twice on the host (a bind of merged elsewhere): neither is taken */
        static const char host2[] =
            "21 1 8:1 / / rw shared:1 - ext4 /dev/sda1 rw\n"
            "30 21 8:2 / /var/lib/docker rw shared:30 - ext4 /dev/sda2 rw\n"
            "40 30 0:50 / /var/lib/docker/overlay2/abc/merged rw shared:40 - overlay overlay rw\n"
            "42 21 0:50 / /srv/peek rw shared:40 - overlay overlay rw\n";
        folded_host(def, NULL, host2,
                    "[{\"destination\":\"/\",\"outside\":[\"/srv/peek\",\"/var/lib/docker/"
                    "overlay2/abc/merged\"],\"propagation\":\"master:40\"}]",
                    "the overlay mounted twice on the host, no spec: both outside");
        folded_host(def, "/var/lib/docker/overlay2/abc/merged", host2,
                    "[{\"destination\":\"/\",\"outside\":[\"/srv/peek\"],\"propagation\":"
                    "\"master:40\"}]",
                    "... with the spec: the bind elsewhere outside");
    }
    folded(slave, merged, 1,
           "[{\"destination\":\"/\",\"outside\":[],\"propagation\":\"master:40\"},"
           "{\"destination\":\"/x\",\"outside\":[\"/mnt/y\",\"/srv/x\"],\"propagation\":"
           "\"master:50\"},{\"destination\":\"/y\",\"outside\":[\"/var/lib/docker\"],"
           "\"propagation\":\"master:30\"},{\"destination\":\"/z\",\"outside\":[],"
           "\"propagation\":\"master:12345\"}]",
           "slaves: host folders and the data root named, sorted; unbindable not listed");
    folded(odd, merged, 1,
           "[{\"destination\":\"/\",\"outside\":[],\"propagation\":\"master:40\"},"
           "{\"destination\":\"/x\",\"outside\":null,\"propagation\":\"master:50 bogus:1\"}]",
           "a field the kernel does not write: recorded, its group not known");
    folded(twice, merged, 1,
           "[{\"destination\":\"/\",\"outside\":[],\"propagation\":\"master:40\"},"
           "{\"destination\":\"/x\",\"outside\":[\"/mnt/y\",\"/srv/x\"],\"propagation\":"
           "\"master:50\"}]",
           "two equal entries are one");
    folded(def, merged, 0, "null", "this host's mountinfo not read: null");
    {
        static const char bad_host_mi[] = "21 1 8:1 / / rw shared:1 bogus:2 - ext4 /dev/sda1 rw\n";
        bx_error err = {0};
        bxa_kctx k = {.err = &err};
        bxa_mount *sm = NULL;
        size_t nsm = 0;
        json_t *peers = json_array();
        char *text = NULL;
        if (bxa_parse_mountinfo(bad_host_mi, sizeof bad_host_mi - 1, &k.hm, &k.nhm, &err) == 0 &&
            bxa_parse_mountinfo(def, strlen(def), &sm, &nsm, &err) == 0 &&
            bxa_fold_propagation(&k, &peers, sm, nsm) == 0)
            text = json_dumps(peers, JSON_COMPACT | JSON_SORT_KEYS);
        is_str(text, "[{\"destination\":\"/\",\"outside\":null,\"propagation\":\"master:40\"}]",
               "a host line that is not one: the group not known");
        free(text);
        json_decref(peers);
        bxa_mounts_free(k.hm, k.nhm);
        bxa_mounts_free(sm, nsm);
    }
    {
        bx_error err = {0};
        bxa_kctx k = {.err = &err};
        bxa_mount *sm = NULL;
        size_t nsm = 0;
        json_t *peers = NULL;
        /* a member already null (an earlier namespace's group not resolved) stays null, this
         * host's mountinfo read or not */
        if (bxa_parse_mountinfo(host_mi, strlen(host_mi), &k.hm, &k.nhm, &err) != 0 ||
            bxa_parse_mountinfo(def, strlen(def), &sm, &nsm, &err) != 0)
            ok(0, "mountinfo parsed");
        is_int(bxa_fold_propagation(&k, &peers, sm, nsm), 0, "null stays null");
        ok(peers == NULL, "and is not made a list");
        bxa_mounts_free(k.hm, k.nhm);
        bxa_mounts_free(sm, nsm);
    }
}

int main(void)
{
    parse();
    groups();
    bad_host();
    fold_cases();
    return tap_done();
}
