/* SPDX-License-Identifier: Apache-2.0 */
/* A git repository's files checked before libgit2 opens them (docs/security.md, "Repositories
 * opened without blocking"). A session can write its checkout's .git: a FIFO there hangs
 * libgit2's open(2) of it for ever, a device or a socket is no file git wrote, a symbolic link
 * reads whatever it names. So every file libgit2 may read or write in the git folder (HEAD,
 * config, commondir, gitdir, packed-refs, index, shallow, the info/ files, every file under
 * refs/, logs/ and objects/, objects/info/alternates and the object folders it names, the
 * common folder a worktree's commondir names, the folder a .git file names) must be a regular
 * file or a folder, never a link: checked with fstatat(AT_SYMLINK_NOFOLLOW), the small files
 * read (.git, commondir, alternates) opened O_NONBLOCK|O_NOFOLLOW. The check reads no file's
 * content but those, and opens nothing that could block. */
#ifndef BX_GITLAYOUT_H
#define BX_GITLAYOUT_H

#include "bx_common.h"

/* Check the repository at dir as git_repository_open_ext would find it: dir/.git (a folder,
 * or a file "gitdir: PATH"), else dir itself when it is a git folder (it holds HEAD: *bare is
 * then 1), else, when search is set, the same in each parent folder. 0 when every file is as
 * it should be, or when no repository is there (libgit2 then says so); BX_ECONFIG naming the
 * file and what it is otherwise; BX_EIO when a folder cannot be read. */
int bx_git_layout_check(const char *dir, int search, int *bare, bx_error *err);

#endif
