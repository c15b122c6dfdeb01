/* SPDX-License-Identifier: Apache-2.0 */
/* Writes the JSON Schemas made from the shapes (schema/documents.c) into a folder:
 *   bx-schemagen DIR
 * The build runs it; the binaries embed what it writes, and tests/cli/schemas.sh fails when the
 * copies checked in under schema/schemas/ differ (`make schemas` refreshes them). */
#include "bx_schema.h"

#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    if (argc != 2) {
        fputs("usage: bx-schemagen DIR\n", stderr);
        return 2;
    }
    for (size_t i = 0; bx_schema_generated_names[i]; i++) {
        const char *name = bx_schema_generated_names[i];
        char path[4096], tmp[4200];
        json_t *doc = bx_schema_document(name);
        char *text = doc ? json_dumps(doc, JSON_INDENT(2) | JSON_ENSURE_ASCII) : NULL;
        FILE *f;
        json_decref(doc);
        if (!text) {
            fprintf(stderr, "bx-schemagen: %s: cannot be made\n", name);
            return 1;
        }
        snprintf(path, sizeof path, "%s/%s.schema.json", argv[1], name);
        snprintf(tmp, sizeof tmp, "%s.tmp", path);
        if (!(f = fopen(tmp, "w")) || fprintf(f, "%s\n", text) < 0 || fclose(f) != 0 ||
            rename(tmp, path) != 0) {
            fprintf(stderr, "bx-schemagen: %s: cannot be written\n", path);
            free(text);
            return 1;
        }
        free(text);
    }
    return 0;
}
