/* SPDX-License-Identifier: Apache-2.0 */
/* containment.devices.nodes: the device nodes present in the session's /dev and one level
 * below it (/dev/pts, /dev/net, ...), each judged against the session's device cgroup: a
 * node the cgroup lets the session read or write is a device it reaches, whatever the engine
 * says it added (a node made with mknod under a rule host root added, a --device-cgroup-rule).
 * Read beneath the init process's root without following any link (bxa_open_beneath):
 * names, types and device numbers only, nothing is opened. */
#include "attest_internal.h"

#include <dirent.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#define NODES_MAX 4096

static int cmp_path(const void *a, const void *b)
{
    return strcmp(json_string_value(json_object_get(*(json_t *const *)a, "path")),
                  json_string_value(json_object_get(*(json_t *const *)b, "path")));
}

/* The nodes of the folder dfd (named prefix), and with depth 0 those of its folders. */
static int list_nodes(bxa_kctx *k, int dfd, const char *prefix, int depth, int known,
                      json_t *out)
{
    int rc = 0;
    DIR *d = bxa_opendir_dup(dfd);
    struct dirent *e;

    if (!d)
        return 0;
    while (rc == 0 && (e = readdir(d)) != NULL) {
        struct stat st;
        char path[512];
        if (e->d_name[0] == '.' && (!e->d_name[1] || (e->d_name[1] == '.' && !e->d_name[2])))
            continue;
        if (fstatat(dfd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0)
            continue;
        if ((size_t)snprintf(path, sizeof path, "%s/%s", prefix, e->d_name) >= sizeof path)
            continue;
        if (S_ISDIR(st.st_mode) && depth == 0) {
            int sub = bxa_open_beneath(dfd, e->d_name, O_RDONLY | O_DIRECTORY);
            if (sub >= 0) {
                rc = list_nodes(k, sub, path, 1, known, out);
                close(sub);
            }
            continue;
        }
        if (!S_ISCHR(st.st_mode) && !S_ISBLK(st.st_mode))
            continue;
        if (json_array_size(out) >= NODES_MAX) {
            rc = bx_error_set(k->err, BX_EINVAL, "/dev", "more than %d device nodes", NODES_MAX);
            break;
        }
        {
            char type = S_ISCHR(st.st_mode) ? 'c' : 'b';
            unsigned ma = major(st.st_rdev), mi = minor(st.st_rdev);
            int access = !known         ? 0
                         : k->dev_progs ? bxa_devbpf_access(k->dev_progs, type, ma, mi)
                                        : bxa_device_access(k->dev_rules, type, ma, mi);
            json_t *n = json_pack("{s:s,s:s#,s:I,s:I,s:o}", "path", path, "type", &type, 1,
                                  "major", (json_int_t)ma, "minor", (json_int_t)mi, "accessible",
                                  known && access >= 0
                                      ? json_boolean(access & (BXA_DEV_READ | BXA_DEV_WRITE))
                                      : json_null());
            if (!n || json_array_append_new(out, n) != 0)
                rc = bxa_oom(k->err);
        }
    }
    closedir(d);
    return rc;
}

int bxa_dev_nodes(bxa_kctx *k, bxa_proc *init, int known_rules, json_t **out)
{
    int root = bxa_root_open(k, init), dev = -1, rc = 0;
    json_t *nodes = json_array();

    *out = NULL;
    if (!nodes) {
        rc = bxa_oom(k->err);
        goto out;
    }
    if (root < 0 || (dev = bxa_open_beneath(root, "dev", O_RDONLY | O_DIRECTORY)) < 0) {
        /* no /dev to read here: not observed */
        json_decref(nodes);
        nodes = json_null();
        goto done;
    }
    if ((rc = list_nodes(k, dev, "/dev", 0, known_rules, nodes)) != 0)
        goto out;
    bxa_sort_json(nodes, cmp_path);
done:
    *out = nodes;
    nodes = NULL;
out:
    json_decref(nodes);
    if (dev >= 0)
        close(dev);
    if (root >= 0)
        close(root);
    return rc;
}
