/* SPDX-License-Identifier: Apache-2.0 */
/* Readings of the predicate the rules share: paths, users, device rules, default
 * capabilities. (The stronger/weaker comparator is schema/'s.) */
#include "policy_internal.h"
#include "tap.h"

static json_t *parse(const char *text)
{
    json_error_t jerr;
    json_t *v = json_loads(text, JSON_DECODE_ANY, &jerr);
    if (!v) {
        printf("Bail out! json: %s: %s\n", text, jerr.text);
        exit(1);
    }
    return v;
}

static void test_paths(void)
{
    ok(bxp_path_under("/etc", "/etc"), "equal");
    ok(bxp_path_under("/etc/ssl", "/etc"), "under");
    ok(!bxp_path_under("/etcetera", "/etc"), "a prefix is not a parent");
    ok(!bxp_path_under("/et", "/etc"), "shorter");
    ok(bxp_path_under("/anything", "/"), "everything is under /");
    ok(bxp_path_under("/run/docker.sock", "/run"), "socket under /run");
    ok(bxp_path_under("/etc/", "/etc"), "trailing slash of the path");
    ok(!bxp_path_under("etc", "/etc"), "relative path");
    ok(!bxp_path_under(NULL, "/etc"), "NULL path");
}

static void test_devices(void)
{
    ok(bxp_default_device_rule("c 1:3 rwm"), "/dev/null");
    ok(bxp_default_device_rule("c 1:3 r"), "subset of access");
    ok(bxp_default_device_rule("c *:* m"), "mknod of any char device");
    ok(bxp_default_device_rule("c 136:* rwm"), "pts");
    ok(!bxp_default_device_rule("c *:* rwm"), "all char devices");
    ok(!bxp_default_device_rule("a *:* rwm"), "all devices");
    ok(!bxp_default_device_rule("b 8:0 rw"), "a disk");
    ok(!bxp_default_device_rule("c 1:3 rwm "), "trailing space");
    ok(!bxp_default_device_rule("c 1:3"), "no access");
    ok(!bxp_default_device_rule(NULL), "NULL");
    ok(bxp_default_cap("CHOWN") && !bxp_default_cap("SYS_ADMIN") && !bxp_default_cap(NULL),
       "default capabilities");
}

static void test_user_read(void)
{
    bxp_user u;
    json_t *v =
        parse("{\"spec\": \"1000:1000\", \"uids\": null, \"gids\": null, \"groups\": null}");
    is_int(bxp_user_read(v, &u), BXP_YES, "spec read");
    ok(u.have_uid && u.have_gid && !u.uid_root && !u.gid_root && u.uids[0] == 1000, "uid:gid");
    json_decref(v);
    v = parse("{\"spec\": \"\", \"uids\": [5, 5, 5, 5], \"gids\": [5, 5, 5, 5], \"groups\": null}");
    is_int(bxp_user_read(v, &u), BXP_YES, "kernel read");
    ok(u.have_uid && !u.uid_root && u.nuids == 4, "kernel uids win over the spec");
    ok(!u.have_gid, "groups unobserved: gid not fully known");
    json_decref(v);
    v = parse("{\"spec\": \"\", \"uids\": null}");
    bxp_user_read(v, &u);
    ok(u.uid_root, "empty spec: the image default, root");
    json_decref(v);
    is_int(bxp_user_read(NULL, &u), BXP_UNSEEN, "null user");
    v = parse("{\"uids\": null}");
    is_int(bxp_user_read(v, &u), BXP_UNSEEN, "no spec, no uids");
    json_decref(v);
}

int main(void)
{
    test_paths();
    test_devices();
    test_user_read();
    return tap_done();
}
