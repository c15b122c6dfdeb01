#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Repositories opened without blocking (docs/security.md): a FIFO, a socket, a device or a
# symbolic link among the files libgit2 reads under a checkout's or a ledger's .git (HEAD,
# config, refs, packed-refs, index, commondir, the .git file's folder, alternates, packs,
# loose objects, logs, info/) is refused at once, exit 2 naming the file and what it is, by
# collect --source-repo and by every ledger command; a bare repository given as
# --source-repo is refused, never recorded clean. Each command runs under `timeout 20`, so a
# hang fails its case (exit 124) instead of the suite.
. "$(dirname "$0")/../lib/testlib.sh"

command -v git >/dev/null || skip_all "no git"
command -v timeout >/dev/null || skip_all "no timeout"
export HOME=$T GIT_CONFIG_NOSYSTEM=1 GIT_AUTHOR_NAME=test GIT_AUTHOR_EMAIL=test@example.invalid \
  GIT_COMMITTER_NAME=test GIT_COMMITTER_EMAIL=test@example.invalid
g() { git -c safe.directory='*' "$@"; }
printf 'leak:pcre2_match_data_create\nleak:libpcre2-8.so\n' >"$T/lsan.supp"
export LSAN_OPTIONS="suppressions=$T/lsan.supp${LSAN_OPTIONS:+:$LSAN_OPTIONS}"

"$BOXCERT" keygen --out "$T/k" >/dev/null || { _tap 1 "keygen"; done_testing; }
printf 'version: 1\n' >"$T/policy.yaml"

# The pristine checkout: two commits, a packed ref, a pack and loose objects, a reflog.
P=$T/pristine
g init -q -b main "$P"
echo a >"$P/a" && g -C "$P" add a && g -C "$P" commit -q -m one
g -C "$P" gc -q 2>/dev/null
echo b >"$P/b" && g -C "$P" add b && g -C "$P" commit -q -m two
HEAD=$(g -C "$P" rev-parse HEAD)
LOOSE=$(find "$P/.git/objects" -path '*/objects/[0-9a-f][0-9a-f]/*' -type f | head -n 1)
LOOSE=${LOOSE#"$P/"}
PACK=$(find "$P/.git/objects/pack" -name '*.pack' | head -n 1)
PACK=${PACK#"$P/"}
[ -n "$LOOSE" ] && [ -n "$PACK" ] || { _tap 1 "the pristine checkout has a pack and a loose object"; done_testing; }

R=$T/r
fresh() { rm -rf "$R" "$T/elsewhere" && cp -a "$P" "$R"; }
# After a command hangs once (exit 124), the cases after it fail at once instead of waiting
# 20 seconds each: one hang already fails the test.
hung_collect= hung_ledger=
collect() { # the source check comes before the engine: a good checkout reaches it (exit 3)
  [ -z "$hung_collect" ] || return 124
  timeout 20 "$BOXCERT" collect c1 --key "$T/k.key" --engine "unix://$T/no-engine.sock" \
    --source-repo "$1" --source-rev "$HEAD"
  local rc=$?
  [ $rc -ne 124 ] || hung_collect=1
  return $rc
}
ledger() { # ledger CMD REPO [ARGS...]
  [ -z "$hung_ledger" ] || return 124
  local cmd=$1 repo=$2; shift 2
  timeout 20 "$BOXCERT" ledger "$cmd" --repo "$repo" --rev "$HEAD" --policy "$T/policy.yaml" \
    --key "$T/k.pub" "$@"
  local rc=$?
  [ $rc -ne 124 ] || hung_ledger=1
  return $rc
}
ledger_show() { ledger show "$1"; }
ledger_add() { ledger add "$1" "$T/policy.yaml"; }

# The clean checkout: collect goes on to the engine, the ledger opens it.
fresh
expect_rc 3 "a clean checkout passes the check (collect then fails at the engine)" collect "$R"
unlike "$ERR" "source-repo" "... and says nothing of the repository"
ledger_show "$R" >"$OUT" 2>"$ERR"
base_rc=$?
ok "a clean checkout opens in the ledger (exit $base_rc, not 2)" test "$base_rc" -ne 2 -a "$base_rc" -ne 124
fresh
ok "a clean checkout's subfolder opens in the ledger (searched upwards)" \
  bash -c "mkdir -p '$R/sub' && cd '$R/sub' && timeout 20 '$BOXCERT' ledger show --repo . --rev $HEAD --policy '$T/policy.yaml' --key '$T/k.pub' >/dev/null 2>&1; test \$? -ne 2"

# make KIND PATH: replace PATH (under $R) with a FIFO, a socket, a device or a link
make() {
  local kind=$1 p=$R/$2
  rm -rf "$p" && mkdir -p "$(dirname "$p")" || return 1
  case $kind in
  fifo) mkfifo "$p" ;;
  socket) python3 -c 'import socket,sys; socket.socket(socket.AF_UNIX).bind(sys.argv[1])' "$p" ;;
  chardev) mknod "$p" c 1 3 2>/dev/null ;;
  link-out) ln -s /etc/hostname "$p" ;;
  link-dir) mkdir -p "$T/elsewhere" && ln -s "$T/elsewhere" "$p" ;;
  esac
}
want() { # want WHAT: the message of a refusal names the kind
  case $1 in
  fifo) echo "a FIFO" ;; socket) echo "a socket" ;; chardev) echo "a character device" ;;
  link-*) echo "a symbolic link" ;;
  esac
}

cases=(
  "fifo .git/HEAD" "fifo .git/config" "fifo .git/packed-refs" "fifo .git/index"
  "fifo .git/commondir" "fifo .git/shallow" "fifo .git/FETCH_HEAD" "fifo .git/ORIG_HEAD"
  "fifo .git/refs/heads/evil" "fifo .git/refs/notes/boxcert" "fifo .git/refs/tags/deep/er/tag"
  "fifo .git/objects/info/alternates" "fifo .git/objects/info/packs"
  "fifo .git/objects/pack/pack-0000000000000000000000000000000000000000.idx" "fifo $PACK"
  "fifo $LOOSE" "fifo .git/logs/HEAD" "fifo .git/logs/refs/notes/boxcert"
  "fifo .git/info/attributes" "fifo .git/info/exclude" "fifo .git/info/grafts"
  "socket .git/config" "socket .git/HEAD" "socket .git/refs/heads/main"
  "chardev .git/config" "chardev .git/packed-refs" "chardev $LOOSE"
  "link-out .git/config" "link-out .git/HEAD" "link-out .git/refs/heads/main"
  "link-dir .git/refs" "link-dir .git/objects" "link-dir .git/objects/pack"
  "fifo .git" "socket .git" "link-dir .git"
)
for c in "${cases[@]}"; do
  set -- $c
  kind=$1 path=$2
  fresh
  make "$kind" "$path" || { _tap 1 "make a $kind at $path"; continue; }
  expect_rc 2 "collect --source-repo: a $kind at $path is refused" collect "$R"
  like "$ERR" "$(basename "$path").*$(want "$kind")" "... naming the file and $(want "$kind")"
  expect_rc 2 "ledger show: a $kind at $path is refused" ledger_show "$R"
  like "$ERR" "$(want "$kind")" "... naming $(want "$kind")"
done
fresh
make fifo .git/refs/notes/boxcert
expect_rc 2 "ledger add: a FIFO where the notes ref goes is refused" ledger_add "$R"

# .git as a file naming another folder (a worktree or a submodule): that folder is checked.
fresh
mv "$R/.git" "$T/elsewhere" && echo "gitdir: $T/elsewhere" >"$R/.git"
expect_rc 3 "a .git file naming a clean git folder passes the check" collect "$R"
mkfifo "$T/elsewhere/config.fifo" && rm "$T/elsewhere/config" && mv "$T/elsewhere/config.fifo" "$T/elsewhere/config"
expect_rc 2 "a .git file naming a folder with a FIFO config is refused" collect "$R"
like "$ERR" "elsewhere/config.*a FIFO" "... naming that folder's file"
expect_rc 2 "... and by the ledger" ledger_show "$R"
fresh
printf 'not a gitdir line\n' >"$T/dotgit" && rm -rf "$R/.git" && cp "$T/dotgit" "$R/.git"
expect_rc 2 "a .git file that names no folder is refused" collect "$R"

# a worktree's commondir and an alternates file: the folders they name are checked too
fresh
mkdir -p "$T/common" && cp -a "$R/.git/." "$T/common/" && echo "$T/common" >"$R/.git/commondir"
expect_rc 3 "a commondir naming a clean folder passes the check" collect "$R"
rm "$T/common/packed-refs" 2>/dev/null; mkfifo "$T/common/packed-refs"
expect_rc 2 "a commondir naming a folder with a FIFO packed-refs is refused" collect "$R"
like "$ERR" "common/packed-refs.*a FIFO" "... naming it"
rm -rf "$T/common"
fresh
mkdir -p "$T/alt/pack" && echo "$T/alt" >"$R/.git/objects/info/alternates"
expect_rc 3 "alternates naming a clean objects folder pass the check" collect "$R"
mkfifo "$T/alt/pack/pack-1.pack"
expect_rc 2 "alternates naming a folder with a FIFO pack are refused" collect "$R"
like "$ERR" "alt/pack/pack-1.pack.*a FIFO" "... naming it"
expect_rc 2 "... and by the ledger" ledger_show "$R"
rm -rf "$T/alt"

# a bare repository as --source-repo: no work tree, refused (never "clean")
B=$T/bare.git
g clone -q --bare "$P" "$B"
expect_rc 2 "a bare repository as --source-repo is refused" collect "$B"
like "$ERR" "bare repository" "... saying it is bare"
ledger_show "$B" >"$OUT" 2>"$ERR"
rc=$?
ok "a bare repository still opens in the ledger (exit $rc)" test "$rc" -ne 2 -a "$rc" -ne 124
mkfifo "$B/hooks.fifo" && rm -f "$B/packed-refs" && mkfifo "$B/packed-refs"
expect_rc 2 "a bare ledger repository with a FIFO packed-refs is refused" ledger_show "$B"
expect_rc 2 "... and as --source-repo" collect "$B"

done_testing
