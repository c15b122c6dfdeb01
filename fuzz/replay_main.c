/* SPDX-License-Identifier: Apache-2.0 */
/* Replays a fuzz target's corpus (files or folders given on the command line) without
 * libFuzzer, so the corpus runs as a ctest under any compiler. TAP output. */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int count;

static int run_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        printf("not ok - cannot open %s\n", path);
        return 1;
    }
    size_t cap = 1 << 16, len = 0, n;
    uint8_t *buf = malloc(cap);
    while (buf && (n = fread(buf + len, 1, cap - len, f)) > 0) {
        len += n;
        if (len == cap) {
            uint8_t *g = realloc(buf, cap *= 2);
            if (!g)
                break;
            buf = g;
        }
    }
    fclose(f);
    if (!buf)
        return 1;
    LLVMFuzzerTestOneInput(buf, len);
    free(buf);
    printf("ok %d - %s\n", ++count, path);
    return 0;
}

static int run(const char *path)
{
    struct stat st;
    if (stat(path, &st) != 0) {
        printf("not ok - %s does not exist\n", path);
        return 1;
    }
    if (!S_ISDIR(st.st_mode))
        return run_file(path);
    struct dirent **list = NULL;
    int n = scandir(path, &list, NULL, alphasort), bad = 0;
    for (int i = 0; i < n; i++) {
        if (list[i]->d_name[0] != '.') {
            char p[4096];
            snprintf(p, sizeof p, "%s/%s", path, list[i]->d_name);
            bad |= run(p);
        }
        free(list[i]);
    }
    free(list);
    return bad;
}

int main(int argc, char **argv)
{
    int bad = 0;
    for (int i = 1; i < argc; i++)
        bad |= run(argv[i]);
    printf("1..%d\n", count);
    return bad || count == 0;
}
