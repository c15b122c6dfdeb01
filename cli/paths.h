/* SPDX-License-Identifier: Apache-2.0 */
/* The files one command reads and writes, checked against each other before any work
 * (docs/security.md, "Outputs never overwrite inputs"): an output never names another
 * output, an input, or a place inside a folder it reads certificates from, whatever the
 * spelling (./, .., symlinks, hard links). */
#ifndef BX_CLI_PATHS_H
#define BX_CLI_PATHS_H

#include <limits.h>
#include <stddef.h>
#include <sys/types.h>

typedef enum {
    CLI_IN,         /* a file read: a key, a policy, a certificate, an --expect list */
    CLI_IN_FOLDER,  /* a folder of certificates read (its entries, not its subfolders) */
    CLI_IN_TREE,    /* a folder of certificates read with its subfolders (--recursive) */
    CLI_OUT,        /* a file written (or read and written back, as --seen) */
    CLI_OUT_FOLDER, /* a folder created and filled (--evidence-out) */
} cli_file_kind;

typedef struct {
    const char *what; /* the option or role: "--output", "--key", "certificate" (borrowed) */
    const char *path; /* as given (borrowed) */
    cli_file_kind kind;
} cli_file;

typedef struct {
    cli_file *v;
    size_t n;
} cli_files;

/* What a path resolves to: the file it names when one exists (through symlinks), else the
 * folder it would be created in (through symlinks, a dangling link's target included) and the
 * name in it. known 0: neither could be found (a folder missing): compared by its words. */
typedef struct {
    int known, exists;
    dev_t dev;
    ino_t ino;
    char name[NAME_MAX + 1];
} cli_file_id;

/* Resolve path (the one resolution every command's check uses). */
void cli_file_identify(const char *path, cli_file_id *id);
/* Whether a and b (resolved from pa and pb) are one file, or would be once written. */
int cli_file_same(const cli_file_id *a, const char *pa, const cli_file_id *b, const char *pb);

/* Add a file (path NULL or "-": nothing is added). Exits 3 when out of memory. */
void cli_files_add(cli_files *fs, const char *what, const char *path, cli_file_kind kind);
/* --policy arg (else BOXCERT_POLICY) when it names a file, not a built-in profile. */
void cli_files_add_policy(cli_files *fs, const char *arg);
/* Certificate inputs: files, and folders (CLI_IN_TREE when recursive). */
void cli_files_add_certs(cli_files *fs, char **paths, size_t n, int recursive);
/* 0, or EXIT_USAGE after one error line naming both files, when an output is another output,
 * an existing input, or lands under a certificate's name in a folder read for certificates, or
 * in a folder another output creates. Nothing is opened for writing. */
int cli_files_check(const cli_files *fs);
void cli_files_free(cli_files *fs);

#endif
