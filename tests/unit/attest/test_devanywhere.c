/* SPDX-License-Identifier: Apache-2.0 */
/* Device nodes anywhere and mknod (attest/devanywhere.c), engine-free: which node is standard
 * by what it is and where, nodev from a mount's options, CAP_MKNOD from a task's sets, the m
 * rules of a v1 devices.list and the device programs that let a task make a host device. */
#include "tap.h"
#include "attest_internal.h"

#include <linux/bpf.h>
#include <string.h>

static void standard(void)
{
    static const struct {
        char type;
        unsigned ma, mi;
        const char *path;
        int own_pty, want;
    } c[] = {
        {'c', 1, 3, "/dev/null", 0, 1},
        {'c', 1, 3, "/srv/x/null-like", 0, 1}, /* null is harmless anywhere */
        {'c', 1, 5, "/dev/zero", 0, 1},
        {'c', 1, 7, "/dev/full", 0, 1},
        {'c', 1, 8, "/dev/random", 0, 1},
        {'c', 1, 9, "/dev/urandom", 0, 1},
        {'c', 5, 0, "/dev/tty", 0, 1},
        {'c', 5, 2, "/dev/ptmx", 0, 1},
        {'c', 5, 2, "/dev/pts/ptmx", 0, 1},
        {'c', 136, 0, "/dev/pts/0", 0, 1},
        {'c', 143, 7, "/dev/pts/7", 0, 1},
        {'c', 136, 0, "/dev/console", 1, 1},
        {'c', 136, 0, "/dev/console", 0, 0},
        {'c', 136, 0, "/tmp/pty", 1, 0},
        {'c', 136, 0, "/dev/pts/x/0", 0, 0},
        {'c', 136, 0, "/dev/pts/", 0, 0},
        {'c', 135, 0, "/dev/pts/0", 0, 0},
        {'c', 144, 0, "/dev/pts/0", 0, 0},
        {'c', 5, 1, "/dev/console", 0, 0}, /* the host's console, by its number */
        {'c', 5, 1, "/dev/console", 1, 0},
        {'c', 5, 1, "/opt/console", 0, 0},
        {'c', 1, 1, "/dev/mem", 0, 0},
        {'c', 1, 2, "/dev/kmem", 0, 0},
        {'c', 1, 4, "/dev/port", 0, 0},
        {'c', 1, 10, "/dev/x", 0, 0},
        {'c', 10, 200, "/dev/net/tun", 0, 0},
        {'c', 4, 0, "/dev/tty0", 0, 0},
        {'b', 1, 3, "/dev/null", 0, 0}, /* a block device with null's numbers is a ram disk */
        {'b', 7, 0, "/dev/loop0", 0, 0},
        {'b', 8, 0, "/data/sda", 0, 0},
        {'c', 1, 3, NULL, 0, 1},
        {'c', 136, 1, NULL, 1, 0},
    };
    for (size_t i = 0; i < sizeof c / sizeof c[0]; i++)
        is_int(bxa_dev_standard(c[i].type, c[i].ma, c[i].mi, c[i].path, c[i].own_pty), c[i].want,
               "standard: %c %u:%u at %s (own pty %d)", c[i].type, c[i].ma, c[i].mi,
               c[i].path ? c[i].path : "(none)", c[i].own_pty);
}

static void nodev(void)
{
    static const struct {
        const char *mnt, *super;
        int want;
    } c[] = {
        {"rw,nosuid,nodev,noexec,relatime", "rw,size=65536k,mode=755", 1},
        {"rw,nodev", "rw", 1},
        {"nodev", "", 1},
        {"rw,relatime", "rw,nodev", 1},
        {"rw,nosuid,relatime", "rw,size=65536k", 0},
        {"rw,nodevx", "rw", 0},
        {"rw,xnodev", "rw", 0},
        {"rw,nodev=1", "rw", 0},
        {"", "", 0},
        {NULL, NULL, 0},
        {NULL, "nodev", 1},
        {"rw,lowerdir=/nodev,upperdir=x", "rw", 0},
    };
    for (size_t i = 0; i < sizeof c / sizeof c[0]; i++)
        is_int(bxa_mount_nodev(c[i].mnt, c[i].super), c[i].want, "nodev: '%s' / '%s'",
               c[i].mnt ? c[i].mnt : "(null)", c[i].super ? c[i].super : "(null)");
}

static void capable(void)
{
    const uint64_t mk = (uint64_t)1 << 27, docker = 0xa80425fbULL; /* Docker's default set */

    is_int(bxa_mknod_capable(docker, docker, 0), 1, "Docker's default set has CAP_MKNOD");
    is_int(bxa_mknod_capable(0, 0, 0), 0, "--cap-drop ALL: none");
    is_int(bxa_mknod_capable(docker & ~mk, docker & ~mk, 0), 0, "--cap-drop MKNOD");
    is_int(bxa_mknod_capable(mk, 0, 0), 1, "effective only");
    is_int(bxa_mknod_capable(0, mk, 0), 1, "permitted only (it can raise it)");
    is_int(bxa_mknod_capable(0, 0, mk), 1, "ambient only");
    is_int(bxa_mknod_capable(~mk, ~mk, ~mk), 0, "every other capability");
    is_int(bxa_mknod_capable(mk << 1, mk >> 1, 0), 0, "the neighbours of bit 27");
}

static void rules(void)
{
    static const struct {
        const char *rules[8];
        int want;
    } c[] = {
        {{"c *:* m", "b *:* m", "c 1:3 rwm", NULL}, 2},
        {{"a *:* rwm", NULL}, 1},
        {{"c 1:3 rwm", "c 1:5 rwm", "c 1:7 rwm", "c 1:8 rwm", "c 1:9 rwm", "c 5:0 rwm", "c 5:2 rwm",
          NULL},
         0},
        {{"c 136:* rwm", NULL}, 0},
        {{"c 143:* m", NULL}, 0},
        {{"c 135:* m", NULL}, 1},
        {{"c 144:* m", NULL}, 1},
        {{"b 136:* m", NULL}, 1},
        {{"c 1:3 rw", "c 5:1 rw", NULL}, 0},
        {{"c 5:1 rwm", NULL}, 1},
        {{"c 10:200 rwm", NULL}, 1},
        {{"c 5:* m", NULL}, 1},
        {{"b 7:0 m", NULL}, 1},
        {{"b 1:3 m", NULL}, 1},
        {{"c 1:1 rw", "c *:* rw", "b *:* r", NULL}, 0},
        {{"c 1:3 rwm", "c 1:1 m", NULL}, 1},
        {{"c *:* mx", "c *:*m", "z *:* m", NULL}, 0},
        {{NULL}, 0},
    };
    for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
        json_t *list = json_array(), *out = json_array();
        char names[256] = "";
        for (const char *const *r = c[i].rules; *r; r++) {
            json_array_append_new(list, json_string(*r));
            strncat(names, *r, sizeof names - strlen(names) - 3);
            strcat(names, "; ");
        }
        is_int(bxa_mknod_rules(list, out), c[i].want, "mknod rules: %s", names);
        is_int((int)json_array_size(out), c[i].want, "mknod rules listed: %s", names);
        json_decref(list);
        json_decref(out);
    }
    is_int(bxa_mknod_rules(NULL, NULL), 0, "no rules: nothing made");
    {
        /* the devices.list Docker 20.10 gives every runc session on cgroup v1 (with or
         * without --cap-drop ALL): c *:*, b *:*, the console and tun reach host devices */
        static const char *const docker[] = {
            "b *:* m",   "c *:* m",   "c 1:3 rwm", "c 1:5 rwm", "c 1:7 rwm",    "c 1:8 rwm",
            "c 1:9 rwm", "c 5:0 rwm", "c 5:1 rwm", "c 5:2 rwm", "c 10:200 rwm", "c 136:* rwm"};
        json_t *list = json_array(), *out = json_array();
        for (size_t i = 0; i < sizeof docker / sizeof docker[0]; i++)
            json_array_append_new(list, json_string(docker[i]));
        is_int(bxa_mknod_rules(list, out), 4, "Docker's default rules: four reach host devices");
        ok(json_array_size(out) == 4 &&
               strcmp(json_string_value(json_array_get(out, 2)), "c 5:1 rwm") == 0 &&
               strcmp(json_string_value(json_array_get(out, 3)), "c 10:200 rwm") == 0,
           "listed in their order: the console and tun among them");
        is_int(bxa_mknod_verdict(bxa_mknod_capable(0xa80425fbULL, 0xa80425fbULL, 0),
                                 bxa_mknod_rules(list, NULL)),
               1, "the default session can make a host device");
        is_int(bxa_mknod_verdict(bxa_mknod_capable(0, 0, 0), bxa_mknod_rules(list, NULL)), 0,
               "--cap-drop ALL cannot");
        json_decref(list);
        json_decref(out);
    }
}

#define I(c, d, s, o, i)                                                                           \
    ((bxa_insn){.code = (c), .regs = (uint8_t)((d) | (s) << 4), .off = (o), .imm = (i)})

static void progs(void)
{
    bxa_insn allow[] = {I(BPF_ALU64 | BPF_MOV | BPF_K, 0, 0, 0, 1),
                        I(BPF_JMP | BPF_EXIT, 0, 0, 0, 0)};
    bxa_insn deny[] = {I(BPF_ALU64 | BPF_MOV | BPF_K, 0, 0, 0, 0),
                       I(BPF_JMP | BPF_EXIT, 0, 0, 0, 0)};
    bxa_insn bad[] = {I(0xff, 0, 0, 0, 0)};
    bxa_insn *one[1];
    size_t len[1];
    bxa_devprogs p = {1, one, len};
    json_t *out = json_array();

    one[0] = allow, len[0] = 2;
    ok(bxa_mknod_progs(&p, out) > 0, "a program allowing all: host devices can be made");
    ok(json_array_size(out) > 0 &&
           strcmp(json_string_value(json_array_get(out, 0)), "c 5:1 m") == 0,
       "the console is among them");
    one[0] = deny, len[0] = 2;
    is_int(bxa_mknod_progs(&p, NULL), 0, "a program denying all: none");
    one[0] = bad, len[0] = 1;
    is_int(bxa_mknod_progs(&p, NULL), -1, "a program not interpreted: unknown");
    /* every access but mknod (the access bits are access_type's high half, mknod bit 0) */
    bxa_insn nomknod[] = {I(BPF_LDX | BPF_MEM | BPF_W, 2, 1, 0, 0),
                          I(BPF_ALU64 | BPF_RSH | BPF_K, 2, 0, 0, 16),
                          I(BPF_JMP | BPF_JSET | BPF_K, 2, 0, 2, 1),
                          I(BPF_ALU64 | BPF_MOV | BPF_K, 0, 0, 0, 1),
                          I(BPF_JMP | BPF_EXIT, 0, 0, 0, 0),
                          I(BPF_ALU64 | BPF_MOV | BPF_K, 0, 0, 0, 0),
                          I(BPF_JMP | BPF_EXIT, 0, 0, 0, 0)};
    one[0] = nomknod, len[0] = 7;
    is_int(bxa_mknod_progs(&p, NULL), 0, "read and write of every device, mknod of none: none");
    /* only mknod, of every device */
    bxa_insn onlymknod[] = {I(BPF_LDX | BPF_MEM | BPF_W, 2, 1, 0, 0),
                            I(BPF_ALU64 | BPF_RSH | BPF_K, 2, 0, 0, 16),
                            I(BPF_JMP | BPF_JSET | BPF_K, 2, 0, 2, 1),
                            I(BPF_ALU64 | BPF_MOV | BPF_K, 0, 0, 0, 0),
                            I(BPF_JMP | BPF_EXIT, 0, 0, 0, 0),
                            I(BPF_ALU64 | BPF_MOV | BPF_K, 0, 0, 0, 1),
                            I(BPF_JMP | BPF_EXIT, 0, 0, 0, 0)};
    one[0] = onlymknod, len[0] = 7;
    ok(bxa_mknod_progs(&p, NULL) > 0, "mknod alone of every device: host devices can be made");
    json_decref(out);
}

static void verdict(void)
{
    is_int(bxa_mknod_verdict(1, 2), 1, "capable and host rules: fails");
    is_int(bxa_mknod_verdict(0, 2), 0, "not capable: passes");
    is_int(bxa_mknod_verdict(1, 0), 0, "no host rule: passes");
    is_int(bxa_mknod_verdict(0, 0), 0, "neither");
    is_int(bxa_mknod_verdict(-1, 2), -1, "capability unknown, rules allow: unknown");
    is_int(bxa_mknod_verdict(1, -1), -1, "capable, rules unknown: unknown");
    is_int(bxa_mknod_verdict(-1, -1), -1, "both unknown");
    is_int(bxa_mknod_verdict(0, -1), 0, "not capable settles it");
    is_int(bxa_mknod_verdict(-1, 0), 0, "no rule settles it");
}

static void walked(void)
{
    ok(bxa_walk_mount("overlay", "rw,relatime", "rw,lowerdir=/l") == 1, "the rootfs is walked");
    ok(bxa_walk_mount("tmpfs", "rw,nosuid", "rw,size=65536k") == 1, "a tmpfs without nodev");
    ok(bxa_walk_mount("tmpfs", "rw,nosuid,nodev", "rw") == 0, "a nodev tmpfs is not");
    ok(bxa_walk_mount("ext4", "rw", "rw,nodev") == 0, "nodev in the super options");
    ok(bxa_walk_mount("proc", "rw", "rw") == 0, "proc is the kernel's, whatever its options");
    ok(bxa_walk_mount("sysfs", "ro", "ro") == 0, "sysfs likewise");
    ok(bxa_walk_mount("devpts", "rw,nosuid,noexec", "rw,gid=5") == 1, "devpts is walked");
    ok(bxa_walk_mount(NULL, "rw", "rw") == 1, "no type: walked");
}

int main(void)
{
    walked();
    standard();
    nodev();
    capable();
    rules();
    progs();
    verdict();
    return tap_done();
}
