#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Folders are walked by descriptor (verify/source.c): a tree whose paths are longer than
# PATH_MAX is read to its bottom, where a failing certificate fails the run and a passing one
# passes; a folder nested past the depth cap fails the run; links to folders below the folder
# named are never followed. An entry that cannot be examined or opened (a folder that can be
# listed but not searched, a folder or certificate that cannot be read, a dangling link named
# as a certificate) is an error row and exit 3, never "not a certificate" and exit 0; the
# permission cases run as an unprivileged user (setpriv), since root reads everything.
. "$(dirname "$0")/../lib/testlib.sh"
F=$BOXCERT_SOURCE_DIR/fixtures/certificate
GOOD=$F/valid/ed25519/cert.intoto.json
BAD=$F/invalid/empty-signature-list/cert.intoto.json
chmod 755 "$T"
mkdir "$T/bin" "$T/g"
cp "$BOXCERT_BIN/boxcert-verify" "$T/bin/"
V=$T/bin/boxcert-verify
cp -r "$F/keys" "$F/policy.yaml" "$T/g/"
P=$T/g/policy.yaml
vfy() { "$V" verify --at 2035-12-29T23:00:00Z --policy "$P" "$@"; }

# deep TOP LEVELS: a chain of LEVELS folders of 200-character names under TOP; prints the
# bottom's path relative to TOP
deep() {
  local top=$1 levels=$2 name i rel=
  name=$(printf 'd%.0s' $(seq 200))
  mkdir -p "$top"
  (cd "$top" && for ((i = 0; i < levels; i++)); do mkdir "$name" && cd "$name" || exit 1; done)
  for ((i = 0; i < levels; i++)); do rel+=$name/; done
  printf '%s' "$rel"
}
# put SRC TOP REL NAME: copy SRC to TOP/REL/NAME, REL too long for one path
put() { (cd "$1" && IFS=/ && for d in $3; do [ -n "$d" ] && { cd "$d" || exit 1; }; done && cp "$2" "$4"); }

R=$(deep "$T/long" 25)
ok "the tree's paths are longer than PATH_MAX" test "${#R}" -gt "$(getconf PATH_MAX /)"
put "$T/long" "$GOOD" "$R" a.intoto.json
ok "a passing certificate at the bottom passes" vfy "$T/long" --recursive
like "$OUT" "^PASS .*/a\.intoto\.json" "... its row is there"
put "$T/long" "$BAD" "$R" b.intoto.json
expect_rc 1 "a failing certificate at the bottom fails the run" vfy "$T/long" --recursive
like "$OUT" "^FAIL .*/b\.intoto\.json" "... its row names it"
expect_rc 1 "... with --jobs 4 too" vfy "$T/long" --recursive --jobs 4
expect_rc 1 "... in json" vfy "$T/long" --recursive --format json
like "$OUT" '"verdict":"fail"' "... a failed row"
ok "without --recursive the tree is skipped, and the run has no certificate" sh -c "! '$V' verify --at 2035-12-29T23:00:00Z --policy '$P' '$T/long' >'$OUT'"
like "$OUT" "^SKIP " "... listed as skipped"

R=$(deep "$T/deeper" 32)
put "$T/deeper" "$GOOD" "$R" c.intoto.json
expect_rc 1 "a tree deeper than the cap of 32 fails the run, even with a passing certificate" vfy "$T/deeper" --recursive
like "$OUT" "deeper than 32" "... the row says why"

mkdir -p "$T/links/real"
cp "$BAD" "$T/links/real/x.intoto.json"
mkdir "$T/tree"
cp "$GOOD" "$T/tree/a.intoto.json"
ln -s "$T/links/real" "$T/tree/linked"
ok "a link to a folder below the folder named is never followed" vfy "$T/tree" --recursive
like "$OUT" "SKIP .*linked.*never followed" "... it is listed as skipped"
ln -s "$T/tree" "$T/tree-link"
ok "the folder named may be a link" vfy "$T/tree-link" --recursive
like "$OUT" "^PASS .*tree-link/a\.intoto\.json" "... and is read"
ln -s "$T/nowhere" "$T/tree/gone.intoto.json"
expect_rc 3 "a dangling link named as a certificate is an error (exit 3)" vfy "$T/tree" --recursive
like "$OUT" "gone\.intoto\.json" "... its row names it"
rm "$T/tree/gone.intoto.json"
mkfifo "$T/tree/pipe"
ok "a FIFO not named as a certificate is skipped, never opened" timeout 10 "$V" verify --at 2035-12-29T23:00:00Z --policy "$P" "$T/tree"
like "$OUT" "SKIP .*pipe" "... listed"
mkfifo "$T/tree/pipe.intoto.json"
expect_rc 1 "a FIFO named as a certificate is a failed row" timeout 10 "$V" verify --at 2035-12-29T23:00:00Z --policy "$P" "$T/tree"
like "$OUT" "pipe\.intoto\.json" "... naming it"
rm "$T/tree/pipe" "$T/tree/pipe.intoto.json"

# --- as an unprivileged user ----------------------------------------------------------------
if command -v setpriv >/dev/null && [ "$(id -u)" -eq 0 ]; then
  chmod -R a+rX "$T/g" "$T/bin"
  as_nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }
  nvfy() { as_nobody "$V" verify --at 2035-12-29T23:00:00Z --policy "$P" "$@"; }
  U=$T/u
  mkdir -p "$U/ok" "$U/listonly" "$U/shut" "$U/deep/a/b"
  cp "$GOOD" "$U/ok/a.intoto.json"
  cp "$GOOD" "$U/listonly/a.intoto.json"
  cp "$BAD" "$U/listonly/b.intoto.json"
  cp "$GOOD" "$U/shut/a.intoto.json"
  cp "$GOOD" "$U/deep/a/b/x.intoto.json"
  cp "$GOOD" "$U/deep/a.intoto.json"
  chmod -R a+rX "$U"
  ok "nobody reads a readable tree" nvfy "$U/ok" --recursive
  chmod 0644 "$U/listonly" # listed, not searched: no entry can be examined
  expect_rc 3 "a folder that can be listed but not searched: exit 3, never 'not a certificate'" nvfy "$U/listonly"
  like "$OUT" "listonly/a\.intoto\.json" "... a row for each entry"
  like "$ERR" "cannot examine" "... saying why"
  unlike "$OUT" "SKIP .*not a certificate" "... none is called not a certificate"
  mkdir -p "$U/mixed/sub/hidden"
  cp "$GOOD" "$U/mixed/a.intoto.json"
  cp "$BAD" "$U/mixed/sub/hidden/b.intoto.json"
  : >"$U/mixed/sub/README"
  chmod -R a+rX "$U/mixed"
  chmod 0644 "$U/mixed/sub"
  expect_rc 3 "a failing certificate in a folder below one that cannot be searched: exit 3, not 0" nvfy "$U/mixed" --recursive
  like "$OUT" "^PASS .*mixed/a\.intoto\.json" "... the readable certificate is still judged"
  like "$OUT" "sub/hidden" "... the folder that could not be examined has its row"
  like "$OUT" "sub/README" "... and so has a plain file that could not be examined"
  unlike "$OUT" "SKIP " "... nothing is skipped as 'not a certificate'"
  chmod 0 "$U/shut"
  cp -r "$U/ok" "$U/top"
  chmod 0 "$U/top"
  expect_rc 3 "the folder named cannot be read: exit 3" nvfy "$U/top"
  mkdir "$U/outer"
  cp "$GOOD" "$U/outer/a.intoto.json"
  mv "$U/shut" "$U/outer/shut"
  expect_rc 3 "--recursive: a subfolder that cannot be opened is an error row (exit 3)" nvfy "$U/outer" --recursive
  like "$OUT" "outer/shut" "... naming it"
  ok "without --recursive the same subfolder is only listed as skipped" nvfy "$U/outer"
  chmod 0 "$U/deep/a/b/x.intoto.json"
  expect_rc 3 "an unreadable certificate deep in the tree: exit 3" nvfy "$U/deep" --recursive
  like "$OUT" "b/x\.intoto\.json" "... its row"
  chmod 0311 "$U/deep/a"
  expect_rc 3 "a subfolder that can be searched but not listed: exit 3" nvfy "$U/deep" --recursive
  chmod -R u+rwX "$U"
else
  skip_one "no setpriv, or not root: the unprivileged cases"
fi

done_testing
