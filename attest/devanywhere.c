/* SPDX-License-Identifier: Apache-2.0 */
/* Device nodes anywhere and what the device rules let a task make: the judgments, engine-free.
 * Which node is one of the engine's standard pseudo-devices is decided by what it is (type,
 * major:minor) and where it is, never by its name: a c 5:1 is the host's console wherever it
 * sits and is never standard (a session's own console is its pty, c 136-143:N, bound at
 * /dev/console). Whether a task can make a node is CAP_MKNOD in a task's effective, permitted
 * or ambient set (what it holds or can raise without an exec; a setuid or file-capability path
 * is not followed) together with an m rule of the device cgroup. */
#include "attest_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CAP_MKNOD_BIT 27

/* The pty majors (Unix98: 136 to 143). */
static int is_pty(char type, unsigned major)
{
    return type == 'c' && major >= 136 && major <= 143;
}

int bxa_dev_standard(char type, unsigned major, unsigned minor, const char *path, int own_pty)
{
    static const unsigned pseudo[][2] = {{1, 3}, {1, 5}, {1, 7}, {1, 8}, {1, 9}, {5, 0}, {5, 2}};

    if (type != 'c')
        return 0;
    for (size_t i = 0; i < sizeof pseudo / sizeof pseudo[0]; i++)
        if (major == pseudo[i][0] && minor == pseudo[i][1])
            return 1; /* null, zero, full, random, urandom, tty, ptmx: harmless anywhere */
    if (!is_pty(type, major) || !path)
        return 0;
    /* a pty: the session's own only in its devpts or as its console */
    if (strncmp(path, "/dev/pts/", 9) == 0 && path[9] && !strchr(path + 9, '/'))
        return 1;
    return own_pty && strcmp(path, "/dev/console") == 0;
}

/* One option list "a,b=c,d" carries word. */
static int has_option(const char *opts, const char *word)
{
    size_t n = strlen(word);

    for (const char *p = opts; p && *p;) {
        const char *end = strchr(p, ',');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        if (len == n && strncmp(p, word, n) == 0)
            return 1;
        p = end ? end + 1 : NULL;
    }
    return 0;
}

int bxa_mount_nodev(const char *mount_opts, const char *super_opts)
{
    return has_option(mount_opts, "nodev") || has_option(super_opts, "nodev");
}

int bxa_mknod_capable(uint64_t eff, uint64_t prm, uint64_t amb)
{
    uint64_t bit = (uint64_t)1 << CAP_MKNOD_BIT;
    return ((eff | prm | amb) & bit) != 0;
}

/* A v1 devices.list rule with m: 1 when it lets a task make a device that is not standard
 * (a wildcard, the console, any other), 0 when only standard ones, -1 not a rule. */
static int rule_makes_nonstandard(const char *s)
{
    bx_devrule r;

    if (!s || bx_devrule_parse(s, &r) != 0) /* read exactly, as the policy reads rules */
        return -1;
    if (!(r.access & BX_DEV_MKNOD))
        return 0;
    if (r.type == 'a' || r.major < 0)
        return 1;
    if (r.minor < 0) /* every minor of a major: only the ptys' are the session's */
        return !(r.major <= 0xffffffffLL && is_pty(r.type, (unsigned)r.major));
    /* one device: a pseudo-device, or a pty (judged where it is found when made) */
    if (r.major > 0xffffffffLL || r.minor > 0xffffffffLL)
        return 1;
    return !(is_pty(r.type, (unsigned)r.major) ||
             bxa_dev_standard(r.type, (unsigned)r.major, (unsigned)r.minor, NULL, 0));
}

int bxa_mknod_rules(const json_t *rules, json_t *out)
{
    const json_t *r;
    size_t i;
    int n = 0;

    json_array_foreach(rules, i, r)
    {
        if (rule_makes_nonstandard(json_string_value(r)) != 1)
            continue;
        if (out && json_array_append(out, (json_t *)r) != 0)
            return -1;
        n++;
    }
    return n;
}

/* Devices probed in the device programs (cgroup v2), which cannot be listed: a wildcard
 * allowance shows on any of them. */
static const struct {
    char type;
    unsigned major, minor;
} probes[] = {{'c', 5, 1},    {'c', 1, 1},   {'c', 1, 2},   {'c', 4, 0},          {'c', 10, 200},
              {'c', 10, 229}, {'c', 13, 64}, {'c', 226, 0}, {'c', 4095, 1048575}, {'b', 7, 0},
              {'b', 8, 0},    {'b', 253, 0}, {'b', 259, 0}, {'b', 4095, 1048575}};

int bxa_mknod_progs(const bxa_devprogs *p, json_t *out)
{
    int n = 0;

    for (size_t i = 0; i < sizeof probes / sizeof probes[0]; i++) {
        int a = bxa_devbpf_access(p, probes[i].type, probes[i].major, probes[i].minor);
        char rule[48];
        if (a < 0)
            return -1;
        if (!(a & BXA_DEV_MKNOD))
            continue;
        snprintf(rule, sizeof rule, "%c %u:%u m", probes[i].type, probes[i].major, probes[i].minor);
        if (out && json_array_append_new(out, json_string(rule)) != 0)
            return -2;
        n++;
    }
    return n;
}

int bxa_mknod_verdict(int capable, int nonstandard)
{
    if (capable < 0 || nonstandard < 0)
        return capable == 0 || nonstandard == 0 ? 0 : -1;
    return capable && nonstandard > 0;
}
