#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# A notes tree with odd entries does not stop the ledger (docs/ledger.md, "Entries that are
# not notes"): refs/notes/boxcert trees crafted with plain git (a gitlink, a blob at a path
# that is no note's, a folder that is no fan-out) on a bare repository over file://. fetch
# and push merge the notes, keep every other entry untouched and report them.
. "$(dirname "$0")/../lib/testlib.sh"
command -v git >/dev/null || skip_all "no git"
export HOME=$T GIT_CONFIG_NOSYSTEM=1 GIT_AUTHOR_NAME=test GIT_AUTHOR_EMAIL=test@example.invalid \
  GIT_COMMITTER_NAME=test GIT_COMMITTER_EMAIL=test@example.invalid
printf 'leak:pcre2_match_data_create\nleak:libpcre2-8.so\n' >"$T/lsan.supp"
export LSAN_OPTIONS="suppressions=$T/lsan.supp${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
g() { git -c safe.directory='*' "$@"; }
L() { "$BOXCERT" ledger "$@"; }
G40=deadbeefdeadbeefdeadbeefdeadbeefdeadbeef

g init -q -b main "$T/a"
echo x >"$T/a/f" && g -C "$T/a" add f && g -C "$T/a" commit -qm c0
c0=$(g -C "$T/a" rev-parse HEAD)
g -C "$T/a" notes --ref boxcert add -m '{"line":"theirs"}' "$c0"
g init -q --bare -b main "$T/remote.git"
g -C "$T/a" push -q "file://$T/remote.git" main refs/notes/boxcert
# the remote's notes tree gains a gitlink named like a note, a stray blob and a folder that
# is no fan-out, in one commit on top of its notes
odd() { # odd REPO: add the odd entries to REPO's refs/notes/boxcert
  local r=$1 t blob sub newt
  t=$(g -C "$r" rev-parse 'refs/notes/boxcert^{tree}')
  blob=$(echo stray | g -C "$r" hash-object -w --stdin)
  sub=$(printf '100644 blob %s\tx\n' "$blob" | g -C "$r" mktree)
  newt=$( (g -C "$r" ls-tree "$t"
    printf '160000 commit %s\t%s\n' "$c0" "$G40"
    printf '100644 blob %s\tREADME\n' "$blob"
    printf '100644 blob %s\tabcd\n' "$blob"
    printf '040000 tree %s\tjunk\n' "$sub") | g -C "$r" mktree)
  g -C "$r" update-ref refs/notes/boxcert "$(echo odd | g -C "$r" commit-tree "$newt" -p refs/notes/boxcert)"
}
ok "a notes tree with a gitlink, stray blobs and a folder that is no fan-out" odd "$T/remote.git"

g clone -q "file://$T/remote.git" "$T/b"
g -C "$T/b" notes --ref boxcert add -m '{"line":"ours"}' "$c0"
expect_rc 0 "fetch merges the notes (exit 0)" L fetch --repo "$T/b" --remote "file://$T/remote.git"
like "$OUT" "^refs/notes/boxcert: merged .*\(1 note changed\)" "... one note merged"
like "$OUT" "^kept 4 entries of the notes tree that are not a note untouched \(first: " \
  "... and the entries that are not notes reported"
is "$(g -C "$T/b" notes --ref boxcert show "$c0" | sort | tr '\n' ' ')" \
  '{"line":"ours"} {"line":"theirs"} ' "the note holds both sides' lines"
is "$(g -C "$T/b" ls-tree -r refs/notes/boxcert | awk '{print $1, $4}' | sort | tr '\n' ' ')" \
  "$(printf '%s\n' "100644 $c0" "100644 README" "100644 abcd" "100644 junk/x" "160000 $G40" | sort | tr '\n' ' ')" "the odd entries are kept untouched"
expect_rc 0 "push over file:// (exit 0)" L push --repo "$T/b" --remote "file://$T/remote.git"
is "$(g -C "$T/remote.git" ls-tree -r refs/notes/boxcert | awk '{print $1, $4}' | sort | tr '\n' ' ')" \
  "$(printf '%s\n' "100644 $c0" "100644 README" "100644 abcd" "100644 junk/x" "160000 $G40" | sort | tr '\n' ' ')" "the remote keeps them too"
is "$(g -C "$T/remote.git" notes --ref boxcert show "$c0" | sort | tr '\n' ' ')" \
  '{"line":"ours"} {"line":"theirs"} ' "... with the merged note"

# ours has the odd entries, theirs moves on: the merge keeps ours untouched as well
g -C "$T/a" fetch -q "file://$T/remote.git" +refs/notes/boxcert:refs/notes/boxcert
g -C "$T/a" commit -q --allow-empty -m c1
c1=$(g -C "$T/a" rev-parse HEAD)
g -C "$T/a" notes --ref boxcert add -m '{"line":"c1"}' "$c1"
g -C "$T/a" push -q "file://$T/remote.git" main refs/notes/boxcert
g -C "$T/b" notes --ref boxcert add -f -m '{"line":"ours2"}' "$c0"
expect_rc 0 "a push that must first merge the remote's new notes" L push --repo "$T/b" \
  --remote "file://$T/remote.git"
is "$(g -C "$T/remote.git" ls-tree -r refs/notes/boxcert | awk '{print $1, $4}' | sort | tr '\n' ' ')" \
  "$(printf '%s\n' "100644 $c0" "100644 $c1" "100644 README" "100644 abcd" "100644 junk/x" "160000 $G40" | sort | tr '\n' ' ')" \
  "every note and every odd entry is on the remote"

# a clone without notes of its own: a fast-forward to the odd tree, then its own note
g clone -q "file://$T/remote.git" "$T/c"
expect_rc 0 "fetch into a clone without notes" L fetch --repo "$T/c" --remote "file://$T/remote.git"
like "$OUT" "fast-forward" "... a fast-forward"
done_testing
