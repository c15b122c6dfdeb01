/* SPDX-License-Identifier: Apache-2.0 */
/* propagation_outside SESSION_MOUNTINFO HOST_MOUNTINFO [OWN...]: for each mount of the
 * session's mountinfo, one line "<point> <receives 0|1> <outside points, comma-separated, or ->"
 * from attest/propagation.c, the session's own mount points (as the host shows them) left out.
 * Exit 1 with a one-line error on bad input. */
#include "../../attest/attest_internal.h"

#include <stdio.h>
#include <stdlib.h>

static int load(const char *path, bxa_mount **m, size_t *n, bx_error *err)
{
    char *buf = NULL;
    size_t len = 0;
    int rc = bx_read_file(path, 1 << 24, 0, &buf, &len, err);
    if (rc == 0)
        rc = bxa_parse_mountinfo(buf, len, m, n, err);
    free(buf);
    return rc;
}

int main(int argc, char **argv)
{
    bxa_mount *sm = NULL, *hm = NULL;
    size_t nsm = 0, nhm = 0;
    bx_error err = {0};
    if (argc < 3) {
        fprintf(stderr, "usage: propagation_outside SESSION_MOUNTINFO HOST_MOUNTINFO [OWN...]\n");
        return 2;
    }
    if (load(argv[1], &sm, &nsm, &err) != 0 || load(argv[2], &hm, &nhm, &err) != 0) {
        fprintf(stderr, "propagation_outside: %s\n", err.msg);
        return 1;
    }
    int rc = 0;
    for (size_t i = 0; i < nsm && rc == 0; i++) {
        bxa_propagation p;
        const char **pts = NULL;
        size_t n = 0;
        if (bxa_parse_propagation(sm[i].optional, &p, &err) != 0 ||
            bxa_propagation_outside(&p, hm, nhm, (const char *const *)argv + 3, (size_t)argc - 3,
                                    &pts, &n, &err) != 0) {
            fprintf(stderr, "propagation_outside: %s: %s\n", sm[i].point, err.msg);
            rc = 1;
            break;
        }
        printf("%s %d ", sm[i].point, bxa_propagation_receives(&p));
        for (size_t j = 0; j < n; j++)
            printf("%s%s", j ? "," : "", pts[j]);
        printf("%s\n", n ? "" : "-");
        free(pts);
    }
    bxa_mounts_free(sm, nsm);
    bxa_mounts_free(hm, nhm);
    return rc;
}
