#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The git ledger (no engine): add (verify first; same certificate twice; signatures
# merged; wrong source refused), show, verify over ranges (merges, --first-parent, a
# missing certificate, a certificate naming another commit, --at and expiry), push to a
# bare repository over file://, fetch into clones with notes of their own (union, nothing
# lost), concurrent adds on one commit, and a repository owned by another user.
. "$(dirname "$0")/../lib/testlib.sh"
BUILD=${BOXCERT_BUILD_DIR:-$BOXCERT_SOURCE_DIR/build}
TOOLS=$BUILD/tests/tools
MK=$TOOLS/ledger_mkcert
V=$BOXCERT_BIN/boxcert-verify

command -v git >/dev/null || skip_all "no git"
export HOME=$T GIT_CONFIG_NOSYSTEM=1 GIT_AUTHOR_NAME=test GIT_AUTHOR_EMAIL=test@example.invalid \
  GIT_COMMITTER_NAME=test GIT_COMMITTER_EMAIL=test@example.invalid
g() { git -c safe.directory='*' "$@"; }
# libgit2 1.5.1 leaks a PCRE2 match block per config regex lookup (git_remote_lookup);
# fixed upstream (libgit2/libgit2#6382). Only PCRE2 allocations are suppressed under LSan
# (without frame pointers in the system libraries the stack ends in libpcre2).
printf 'leak:pcre2_match_data_create\nleak:libpcre2-8.so\n' >"$T/lsan.supp"
export LSAN_OPTIONS="suppressions=$T/lsan.supp${LSAN_OPTIONS:+:$LSAN_OPTIONS}"

# A statement to take the predicate from: the hardened recorded session, through the
# fixtures' generator; else any committed certificate that yields a verifying one.
ok "ledger_mkcert is built" test -x "$MK"
keygen() { "$BOXCERT" keygen --out "$T/$1" >/dev/null; }
keygen k1; keygen k2; keygen kx
printf 'version: 1\n' >"$T/policy.yaml"
P=(--policy "$T/policy.yaml" --key "$T/k1.pub")
template_ok() {
  "$MK" --template "$1" --key "$T/k1.key" --source 0000000000000000000000000000000000000000 \
    >"$T/probe.json" 2>/dev/null &&
    "$BOXCERT" verify "$T/probe.json" "${P[@]}" >/dev/null 2>&1
}
found=
if "$TOOLS/mkcert" statement --inspect "$BOXCERT_SOURCE_DIR/fixtures/inspect/hardened" \
  >"$T/template.json" 2>/dev/null && template_ok "$T/template.json"; then
  found=1
else
  for f in $(find "$BOXCERT_SOURCE_DIR/fixtures/certificate" -name '*.intoto.json' 2>/dev/null | sort); do
    if template_ok "$f"; then cp "$f" "$T/template.json"; found=1; break; fi
  done
fi
if [ -z "$found" ]; then
  _tap 1 "a template statement (tests/tools/mkcert statement, or fixtures/certificate)"
  done_testing
fi

mk() { # mk NAME [ledger_mkcert args...]: $T/NAME.json signed by k1 unless --key given
  local name=$1; shift
  local keys=(--key "$T/k1.key")
  case " $* " in *" --key "*) keys=() ;; esac
  "$MK" --template "$T/template.json" "${keys[@]}" "$@" >"$T/$name.json"
}
lines() { g -C "$1" notes --ref boxcert show "$2" 2>/dev/null | grep -c .; }
notes_head() { g -C "$1" rev-parse -q --verify refs/notes/boxcert; }
L() { "$BOXCERT" ledger "$@"; }

# main: c0 - c1 - c2 - c3 - m - c4 ; feature f1 - f2 branches at c2, merged by m.
R=$T/repo
g init -q -b main "$R"
commit() { g -C "$1" commit -q --allow-empty -m "$2" && g -C "$1" rev-parse HEAD; }
c0=$(commit "$R" c0); c1=$(commit "$R" c1); c2=$(commit "$R" c2)
g -C "$R" checkout -q -b feature
f1=$(commit "$R" f1); f2=$(commit "$R" f2)
g -C "$R" checkout -q main
c3=$(commit "$R" c3)
g -C "$R" merge -q --no-ff -m merge feature
m=$(g -C "$R" rev-parse HEAD)
c4=$(commit "$R" c4)

# ---- add ---------------------------------------------------------------------------
mk c1 --source "$c1" --issued "$(date -u +%Y-%m-%dT%H:%M:%SZ)" --nonce 0123456789abcdef0123456789abcdef
ok "add a certificate to its commit" L add --repo "$R" --rev "$c1" "${P[@]}" "$T/c1.json"
like "$OUT" "^added +[0-9a-f]{12} .*c1.json on $c1\$" "it says added"
is "$(lines "$R" "$c1")" 1 "git notes --ref boxcert shows one line"
is "$(g -C "$R" notes --ref boxcert show "$c1")" "$(cat "$T/c1.json")" "the line is the envelope, compact"
head1=$(notes_head "$R")
ok "add the same certificate again" L add --repo "$R" --rev "$c2~1" "${P[@]}" "$T/c1.json"
like "$OUT" '^unchanged ' "it says unchanged"
is "$(notes_head "$R")" "$head1" "the same certificate twice is a no-op (no new notes commit)"

# the same payload signed by k1 and k2: the new signature is merged into the line
issued=$(g -C "$R" notes --ref boxcert show "$c1" | python3 -c 'import sys,json,base64; print(json.loads(base64.b64decode(json.load(sys.stdin)["payload"]))["predicate"]["issuedAt"])')
mk c1both --source "$c1" --issued "$issued" --nonce 0123456789abcdef0123456789abcdef --key "$T/k1.key" --key "$T/k2.key"
ok "add the certificate countersigned" L add --repo "$R" --rev "$c1" "${P[@]}" "$T/c1both.json"
like "$OUT" '^merged ' "it says merged"
is "$(lines "$R" "$c1")" 1 "still one line"
is "$(g -C "$R" notes --ref boxcert show "$c1" | grep -o '"sig":' | wc -l)" 2 "carrying both signatures"

# refused: nothing stored
head1=$(notes_head "$R")
mk c2 --source "$c2"
expect_rc 1 "a certificate naming another commit is refused" L add --repo "$R" --rev "$c1" "${P[@]}" "$T/c2.json"
like "$OUT" 'fail certificate.binding' "the report names certificate.binding"
like "$ERR" 'nothing stored' "and says nothing was stored"
mk nosrc
expect_rc 1 "a certificate without a source is refused" L add --repo "$R" --rev "$c1" "${P[@]}" "$T/nosrc.json"
mk untrusted --source "$c1" --key "$T/kx.key"
expect_rc 1 "a certificate by an untrusted key is refused" L add --repo "$R" --rev "$c1" "${P[@]}" "$T/untrusted.json"
like "$OUT" 'fail signature.threshold' "signature.threshold"
mk c1b --source "$c1"
expect_rc 1 "one bad certificate among good ones: none stored" L add --repo "$R" --rev "$c1" "${P[@]}" "$T/c1b.json" "$T/c2.json"
is "$(notes_head "$R")" "$head1" "refs/notes/boxcert did not move"
printf 'not an envelope\n' >"$T/junk.json"
expect_rc 1 "what is not an envelope is refused" L add --repo "$R" --rev "$c1" "${P[@]}" "$T/junk.json"
expect_rc 3 "an unreadable certificate file exits 3" L add --repo "$R" --rev "$c1" "${P[@]}" "$T/none.json"
expect_rc 2 "an unknown revision exits 2" L add --repo "$R" --rev nosuchrev "${P[@]}" "$T/c1.json"
expect_rc 2 "a folder that is not a repository exits 2" L add --repo "$T" --rev HEAD "${P[@]}" "$T/c1.json"
like "$ERR" 'not a git repository' "and says so"
expect_rc 2 "--repo is required" L add --rev HEAD "${P[@]}" "$T/c1.json"
expect_rc 2 "--range is not an option of add" L add --repo "$R" --rev HEAD --range a..b "${P[@]}" "$T/c1.json"
expect_rc 2 "an unknown subcommand exits 2" L frob --repo "$R"
expect_rc 2 "a policy with no trusted key exits 2" L add --repo "$R" --rev "$c1" --policy "$T/policy.yaml" "$T/c1.json"
is "$(notes_head "$R")" "$head1" "none of that stored anything"
expect_rc 2 "boxcert-verify has no ledger command" "$V" ledger --help
ok "ledger --help" L --help
like "$OUT" '^usage: boxcert ledger add' "ledger --help prints usage"

# a bundle: two certificates in one *.jsonl
mk c2 --source "$c2"; mk c2b --source "$c2"
cat "$T/c2.json" "$T/c2b.json" >"$T/c2.intoto.jsonl"
ok "add a JSON Lines bundle" L add --repo "$R" --rev "$c2" "${P[@]}" "$T/c2.intoto.jsonl"
is "$(lines "$R" "$c2")" 2 "two lines on c2"

# ---- show --------------------------------------------------------------------------
ok "show a commit's certificates" L show --repo "$R" --rev "$c1" "${P[@]}"
like "$OUT" "^PASS $c1:1 [0-9a-f]{12} session=" "a verdict line named <commit>:<line>"
like "$OUT" '^1 commit: 1 attested' "a commit summary"
ok "show --format json" L show --repo "$R" --rev "$c2" "${P[@]}" --format json
cp "$OUT" "$T/show.json"
like "$T/show.json" "\"file\":\"$c2:2\"" "json results are named <commit>:<line>"
check_schema report "$T/show.json"
expect_rc 1 "show a commit without certificates exits 1" L show --repo "$R" --rev "$f1" "${P[@]}"
like "$OUT" "^FAIL $f1\$" "one failed result for the commit"
like "$OUT" 'fail ledger.missing: commit [0-9a-f]{40} carries no certificate' "rule ledger.missing"
expect_rc 1 "show with another trust key: nothing passes" L show --repo "$R" --rev "$c1" --policy "$T/policy.yaml" --key "$T/kx.pub"
like "$OUT" 'ledger.missing: none of the 1 certificate' "ledger.missing counts what was there"

# ---- verify over ranges ------------------------------------------------------------
for c in c3 m c4; do mk "$c" --source "${!c}"; L add --repo "$R" --rev "${!c}" "${P[@]}" "$T/$c.json" >/dev/null || echo "# add $c failed"; done
expect_rc 1 "range with unattested merged-in commits fails" L verify --repo "$R" --range "$c0..main" "${P[@]}"
cp "$OUT" "$T/v1.txt"
is "$(grep -c 'fail ledger.missing' "$T/v1.txt")" 2 "exactly two commits are missing"
like "$T/v1.txt" "^FAIL $f1\$" "f1 is missing"
like "$T/v1.txt" "^FAIL $f2\$" "f2 is missing"
like "$T/v1.txt" "^PASS $m:1 " "the merge commit is in the range"
unlike "$T/v1.txt" "$c0" "the range's base is not"
like "$T/v1.txt" '^7 commits: 5 attested, 2 without' "seven commits, as git rev-list counts"
is "$(g -C "$R" rev-list --count "$c0..main")" 7 "(git rev-list agrees)"
ok "--first-parent skips the merged branch" L verify --repo "$R" --range "$c0..main" --first-parent "${P[@]}"
like "$OUT" '^5 commits: 5 attested' "five first-parent commits"
for c in f1 f2; do mk "$c" --source "${!c}"; L add --repo "$R" --rev "${!c}" "${P[@]}" "$T/$c.json" >/dev/null || echo "# add $c failed"; done
ok "every commit attested: pass" L verify --repo "$R" --range "$c0..main" "${P[@]}"
ok "json report to --output" L verify --repo "$R" --range "$c0..main" "${P[@]}" --format json --output "$T/range.json"
check_schema report "$T/range.json"
like "$T/range.json" '"summary":\{"total":8,"passed":8,"failed":0\}' "eight certificates on seven commits"
expect_rc 1 "a single revision walks its whole history, down to the unattested root" \
  L verify --repo "$R" --range "$c2" "${P[@]}" --format json
cp "$OUT" "$T/single.json"
like "$T/single.json" "\"file\":\"$c0\"" "c0 is the missing one"
like "$T/single.json" '"summary":\{"total":4,"passed":3,"failed":1\}' "c2 (two), c1 and c0"
check_schema report "$T/single.json"
expect_rc 1 "an empty range is not a pass" L verify --repo "$R" --range main..main "${P[@]}"
like "$ERR" 'holds no commit' "and says why"
expect_rc 2 "A...B is refused" L verify --repo "$R" --range "$c0...main" "${P[@]}"
expect_rc 2 "a bad range exits 2" L verify --repo "$R" --range "nope..main" "${P[@]}"
expect_rc 2 "--format xml exits 2" L verify --repo "$R" --range "$c0..main" "${P[@]}" --format xml
ok "--format junit" L verify --repo "$R" --range "$c0..main" "${P[@]}" --format junit
like "$OUT" '<testsuites name="boxcert ledger verify"' "junit names the tool"

# notes written by git itself are not trusted: a certificate of c2 put on c5 by hand
c5=$(commit "$R" c5)
g -C "$R" notes --ref boxcert add -F "$T/c2.json" "$c5" 2>/dev/null
expect_rc 1 "a certificate naming another commit does not attest" L verify --repo "$R" --range "$c4..$c5" "${P[@]}"
like "$OUT" 'fail certificate.binding' "certificate.binding fails"
like "$OUT" "^FAIL $c5\$" "and the commit is missing"
# a garbage line beside a good certificate: reported, but the commit is attested
mk c5 --source "$c5"
{ echo 'garbage line'; cat "$T/c5.json"; } >"$T/c5.note"
g -C "$R" notes --ref boxcert add -f -F "$T/c5.note" "$c5" 2>/dev/null
ok "a garbage line does not hide a good certificate" L verify --repo "$R" --range "$c4..$c5" "${P[@]}"
like "$OUT" "^FAIL $c5:1\$" "the garbage line fails (certificate.format)"
like "$OUT" 'fail certificate.format' "certificate.format"
like "$OUT" "^PASS $c5:2 " "the certificate passes"

# --at: an old certificate, expired by the clock
c6=$(commit "$R" c6)
mk c6 --source "$c6" --issued 2020-01-01T00:00:00Z --ttl 1h
expect_rc 1 "add refuses an expired certificate" L add --repo "$R" --rev "$c6" "${P[@]}" "$T/c6.json"
ok "add --at inside its validity" L add --repo "$R" --rev "$c6" "${P[@]}" --at 2020-01-01T00:30:00Z "$T/c6.json"
expect_rc 1 "verify at now: expired" L verify --repo "$R" --range "$c5..$c6" "${P[@]}"
like "$OUT" 'fail certificate.expired' "certificate.expired"
ok "verify --at inside its validity passes" L verify --repo "$R" --range "$c5..$c6" "${P[@]}" --at 2020-01-01T00:30:00Z
expect_rc 1 "show at now: expired" L show --repo "$R" --rev "$c6" "${P[@]}"
ok "show --at" L show --repo "$R" --rev "$c6" "${P[@]}" --at 2020-01-01T00:30:00Z

# ---- concurrent adds on one commit ---------------------------------------------------
for i in 1 2 3 4 5 6 7 8; do mk "con$i" --source "$c4"; done
before=$(lines "$R" "$c4")
for i in 1 2 3 4 5 6 7 8; do
  (L add --repo "$R" --rev "$c4" "${P[@]}" "$T/con$i.json" >"$T/con$i.out" 2>&1; echo $? >"$T/con$i.rc") &
done
wait
rcs=$(cat "$T"/con*.rc | sort -u | tr '\n' ' ')
is "$rcs" "0 " "eight concurrent adds all succeed"
is "$(lines "$R" "$c4")" $((before + 8)) "and all eight land"
ok "the notes history is linear and sound" g -C "$R" fsck --no-progress --no-dangling

# ---- push and fetch ------------------------------------------------------------------
BARE=$T/remote.git
g init -q --bare -b main "$BARE"
g -C "$R" remote add origin "file://$BARE"
g -C "$R" push -q origin main feature
ok "fetch from a remote without notes" L fetch --repo "$R" --remote origin
like "$OUT" 'has no refs/notes/boxcert' "nothing fetched"
ok "push to a bare repository over file://" L push --repo "$R" --remote origin
like "$OUT" '^pushed refs/notes/boxcert to origin' "pushed"
is "$(g -C "$BARE" rev-parse refs/notes/boxcert)" "$(notes_head "$R")" "the remote holds our notes"
ok "push again" L push --repo "$R" --remote origin
like "$OUT" 'up to date' "up to date"
expect_rc 2 "an unknown remote exits 2" L push --repo "$R" --remote nosuch
expect_rc 3 "an unreachable remote exits 3" L fetch --repo "$R" --remote "file://$T/nothing.git"
expect_rc 2 "--remote is required" L fetch --repo "$R"
expect_rc 3 "an https remote where nothing listens exits 3" \
  L fetch --repo "$R" --remote "https://user:s3cret@127.0.0.1:9/x.git"
unlike "$ERR" 's3cret' "credentials in a remote URL are never printed"
like "$ERR" 'https://127.0.0.1:9/x.git' "the URL is named without them"

# a clone with notes of its own; meanwhile the origin adds and pushes
g clone -q "file://$BARE" "$T/clone"
is "$(notes_head "$T/clone")" "" "git clone brings no notes"
mk x1 --source "$c1"; mk y3 --source "$c3"
ok "the clone adds to c1" L add --repo "$T/clone" --rev "$c1" "${P[@]}" "$T/x1.json"
ok "the clone adds to c3" L add --repo "$T/clone" --rev "$c3" "${P[@]}" "$T/y3.json"
mk z2 --source "$c2"
ok "the origin adds to c2" L add --repo "$R" --rev "$c2" "${P[@]}" "$T/z2.json"
ok "the origin pushes" L push --repo "$R" --remote origin
ok "the clone pushes: the remote moved, so fetch, merge, push" L push --repo "$T/clone" --remote origin
like "$OUT" 'after 2 rounds' "took a second round"
is "$(g -C "$BARE" rev-parse refs/notes/boxcert)" "$(notes_head "$T/clone")" "the remote holds the merge"
is "$(g -C "$BARE" cat-file -p refs/notes/boxcert | grep -c '^parent ')" 2 "a merge commit with both parents"
is "$(g -C "$BARE" notes --ref boxcert show "$c1" | grep -c .)" "$(($(lines "$R" "$c1") + 1))" "remote c1: the origin's lines plus the clone's"
is "$(g -C "$BARE" notes --ref boxcert show "$c2" | grep -c .)" "$(lines "$R" "$c2")" "remote c2: the origin's lines, its latest included"
is "$(g -C "$BARE" notes --ref boxcert show "$c3" | grep -c .)" "$(($(lines "$R" "$c3") + 1))" "remote c3: the origin's lines plus the clone's"
ok "the origin fetches" L fetch --repo "$R" --remote origin
like "$OUT" 'fast-forward' "a fast-forward"
is "$(notes_head "$R")" "$(notes_head "$T/clone")" "origin and clone agree"

# fetch into a clone with notes of its own on the same commits: union, nothing lost
g clone -q "file://$BARE" "$T/clone2"
mk w1 --source "$c1"; mk w4 --source "$c4"
L add --repo "$T/clone2" --rev "$c1" "${P[@]}" "$T/w1.json" >/dev/null
L add --repo "$T/clone2" --rev "$c4" "${P[@]}" "$T/w4.json" >/dev/null
ok "fetch into a clone with its own notes" L fetch --repo "$T/clone2" --remote origin
like "$OUT" 'merged origin' "a merge"
lost=0
for c in $(g -C "$R" notes --ref boxcert list | cut -d' ' -f2); do
  while IFS= read -r line; do
    g -C "$T/clone2" notes --ref boxcert show "$c" | grep -qxF -- "$line" || lost=$((lost + 1))
  done < <(g -C "$R" notes --ref boxcert show "$c")
done
is "$lost" 0 "every line of the remote's notes is in the clone"
g -C "$T/clone2" notes --ref boxcert show "$c1" | grep -qxF -- "$(cat "$T/w1.json")"
is $? 0 "the clone's own line on c1 is kept"
g -C "$T/clone2" notes --ref boxcert show "$c4" | grep -qxF -- "$(cat "$T/w4.json")"
is $? 0 "the clone's own line on c4 is kept"
is "$(g -C "$T/clone2" notes --ref boxcert show "$c1" | sort | uniq -d | wc -l)" 0 "no line twice"
ok "fetch again" L fetch --repo "$T/clone2" --remote origin
like "$OUT" 'up to date' "up to date"
ok "--remote may be a path" L fetch --repo "$T/clone2" --remote "$BARE"
like "$OUT" 'up to date' "up to date through the path too"
is "$(g -C "$T/clone2" for-each-ref --format='%(refname)' 'refs/notes/boxcert-remote/url-*' | wc -l)" 1 \
  "fetched into refs/notes/boxcert-remote/url-<digest>"
ok "the merged clone verifies the range" L verify --repo "$T/clone2" --range "$c0..$c4" "${P[@]}"
ok "push the merge" L push --repo "$T/clone2" --remote origin
ok "fetch it back into the origin" L fetch --repo "$R" --remote origin
for c in $(g -C "$T/clone2" notes --ref boxcert list | cut -d' ' -f2); do
  [ "$(g -C "$R" notes --ref boxcert show "$c")" = "$(g -C "$T/clone2" notes --ref boxcert show "$c")" ] || lost=$((lost + 1))
done
is "$lost" 0 "origin and clone hold the same notes"

# ---- a repository owned by another user -----------------------------------------------
if [ "$(id -u)" = 0 ] && id nobody >/dev/null 2>&1; then
  O=$T/other
  cp -a "$R" "$O"
  g init -q --bare "$T/other.git"
  g -C "$O" remote set-url origin "file://$T/other.git"
  chown -R nobody "$O" "$T/other.git"
  expect_rc 128 "(git itself refuses it)" git -C "$O" rev-parse HEAD
  mk o1 --source "$c1"
  ok "add to a repository owned by nobody" L add --repo "$O" --rev "$c1" "${P[@]}" "$T/o1.json"
  ok "show in it" L show --repo "$O" --rev "$c1" "${P[@]}"
  ok "verify in it" L verify --repo "$O" --range "$c0..$c4" "${P[@]}"
  ok "push from it to a bare repository owned by nobody" L push --repo "$O" --remote origin
  ok "fetch into it" L fetch --repo "$O" --remote origin
else
  skip_one "a repository owned by another user needs root and a user nobody"
fi

done_testing
