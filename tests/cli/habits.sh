#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The command-line habits of issue 26: -h/--help on every command (exit 0), help CMD,
# "did you mean" in one line without the usage, - as standard output, one program-name
# prefix, --quiet, --version with the commit and the libraries (text and JSON), a public
# key given as a signing key named as such, BOXCERT_* variables and their precedence.
. "$(dirname "$0")/../lib/testlib.sh"
V=$BOXCERT_BIN/boxcert-verify
FR=$BOXCERT_SOURCE_DIR/fixtures/first-release
CERT=$FR/hardened-runc.intoto.json
BAD=$FR/cap-add-all.intoto.json
PUB=$FR/first-release.pub
AT=(--at 2026-12-02T09:17:55Z)
cd "$T" || exit 1

one_line() { is "$(wc -l <"$ERR")" 1 "$1: one line on stderr"; }

for b in "$BOXCERT" "$V"; do
  n=$(basename "$b")
  cmds=$("$b" --help | sed -n 's/^  \([a-z]*\)  .*/\1/p')
  for c in $cmds; do
    for h in -h --help; do
      ok "$n $c $h exits 0" "$b" "$c" "$h"
      like "$OUT" "^usage: $n $c" "$n $c $h: the usage names $n"
      is "$(wc -c <"$ERR")" 0 "$n $c $h: nothing on stderr"
    done
    ok "$n help $c" "$b" help "$c"
    cp "$OUT" "$T/help1"; "$b" "$c" --help >"$T/help2"
    ok "$n help $c is $n $c --help" cmp "$T/help1" "$T/help2"
  done
  ok "$n -h" "$b" -h
  ok "$n help" "$b" help
  like "$OUT" '^commands:' "$n help lists the commands"

  expect_rc 2 "$n verfy" "$b" verfy
  is "$(cat "$ERR")" "$n: unknown command 'verfy'; did you mean 'verify'?" "$n: did you mean, one line"
  expect_rc 2 "$n verify --polcy" "$b" verify "$CERT" --polcy strict
  is "$(cat "$ERR")" "$n: verify: unknown option '--polcy'; did you mean '--policy'?" \
    "$n: a flag's did you mean, prefixed once"
  expect_rc 2 "$n verify -policy" "$b" verify "$CERT" -policy strict
  like "$ERR" "did you mean '--policy'" "$n: a long flag with one dash"
  one_line "$n verify -policy"
  expect_rc 2 "$n verify --e (ambiguous)" "$b" verify "$CERT" --e x
  like "$ERR" "^$n: verify: option '--e' is ambiguous: --expect-image, " "$n: ambiguous names the candidates"
  expect_rc 2 "$n verify --policy (no value)" "$b" verify "$CERT" --policy
  is "$(cat "$ERR")" "$n: verify: option '--policy' needs a value" "$n: a missing value, one line"
  expect_rc 2 "$n policy shw" "$b" policy shw
  like "$ERR" "did you mean 'show'" "$n policy: subcommands too"
  expect_rc 2 "$n policy show stirct" "$b" policy show stirct
  like "$ERR" "did you mean 'strict'" "$n policy show: profiles too"
  expect_rc 2 "$n help nope" "$b" help nope
  one_line "$n help nope"
  unlike "$ERR" "^$n: $n" "$n: never prefixed twice"

  ok "$n --version" "$b" --version
  like "$OUT" "^$n [0-9]+\.[0-9]+\.[0-9]+$" "$n --version: name and version first"
  like "$OUT" '^commit: ([0-9a-f]{40}(-dirty)?|unknown)$' "$n --version: the commit"
  like "$OUT" '^openssl: 3\.' "$n --version: OpenSSL's version"
  like "$OUT" '^jansson: ' "$n --version: jansson's"
  like "$OUT" '^libyaml: ' "$n --version: libyaml's"
  ok "$n --version --format json" "$b" --version --format json
  cp "$OUT" "$T/v.json"
  ok "$n version --format json parses" python3 -c '
import json, sys
v = json.load(open(sys.argv[1]))
assert v["name"] == sys.argv[2], v
assert set(v) == {"name", "version", "commit", "libraries"}, v
assert {"openssl", "jansson", "libyaml"} <= set(v["libraries"]), v
assert ("libcurl" in v["libraries"]) == (sys.argv[2] == "boxcert"), v
' "$T/v.json" "$n"
done

# - is standard output; the report is not written to a file named -
ok "verify --output - writes to stdout" "$V" verify "$CERT" --policy strict@1 --key "$PUB" "${AT[@]}" \
  --format json --output -
cp "$OUT" "$T/r.json"
ok "... JSON" python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$T/r.json"
ok "... and no file named -" test ! -e "$T/-"
ok "schema list is unaffected" "$BOXCERT" schema list

# --quiet: nothing but what failed
ok "verify --quiet, a pass" "$V" verify --quiet "$CERT" --policy strict@1 --key "$PUB" "${AT[@]}"
is "$(cat "$OUT" "$ERR")" "" "--quiet: a pass prints nothing"
ok "-q before the command" "$V" -q verify "$CERT" --policy strict@1 --key "$PUB" "${AT[@]}"
is "$(cat "$OUT" "$ERR")" "" "-q before the command: nothing"
expect_rc 1 "verify --quiet, a failure" "$V" verify -q "$CERT" "$BAD" --policy strict@1 --key "$PUB" "${AT[@]}"
like "$OUT" '^FAIL .*cap-add-all' "--quiet: the failure is shown"
unlike "$OUT" '^PASS ' "--quiet: no PASS line"
unlike "$OUT" 'certificates?: ' "--quiet: no summary"
ok "keygen --quiet" "$BOXCERT" keygen --quiet --out "$T/k"
is "$(cat "$OUT")" "" "keygen --quiet prints no keyid"

# a public key given where a private one is needed
expect_rc 2 "collect --key PUB" "$BOXCERT" collect some-session --key "$T/k.pub"
is "$(cat "$ERR")" "boxcert: $T/k.pub: is a public key: signing needs the private key (the .key file keygen wrote beside this .pub)" \
  "collect --key PUB: named as a public key, not as a file mode"
expect_rc 2 "sign --key PUB" "$BOXCERT" sign "$CERT" --key "$T/k.pub" --policy strict@1 --verify-key "$PUB"
like "$ERR" 'is a public key' "sign --key PUB: the same"
expect_rc 2 "collect --format json without --out" "$BOXCERT" collect x --key "$T/k.key" --format json
one_line "collect --format json without --out"

# BOXCERT_* variables: used when the flag is absent; the flag wins
ok "BOXCERT_POLICY and BOXCERT_KEY" env BOXCERT_POLICY=strict@1 BOXCERT_KEY="$PUB" \
  "$V" verify "$CERT" "${AT[@]}"
like "$OUT" '^PASS ' "... verify with neither flag"
expect_rc 1 "--policy wins over BOXCERT_POLICY" env BOXCERT_POLICY=strict@1 BOXCERT_KEY="$PUB" \
  "$V" verify "$CERT" "${AT[@]}" --policy "$BOXCERT_SOURCE_DIR/fixtures/first-release/../../examples/policies/demo.yaml" --expect-image sha256:0000000000000000000000000000000000000000000000000000000000000000
expect_rc 1 "--key wins over BOXCERT_KEY (another key: no trusted signature)" \
  env BOXCERT_POLICY=strict@1 BOXCERT_KEY="$PUB" "$V" verify "$CERT" "${AT[@]}" --key "$T/k.pub"
ok "BOXCERT_KEY lists several keys" env BOXCERT_POLICY=strict@1 BOXCERT_KEY="$T/k.pub:$PUB" \
  "$V" verify "$CERT" "${AT[@]}"
ok "BOXCERT_FORMAT" env BOXCERT_POLICY=strict@1 BOXCERT_KEY="$PUB" BOXCERT_FORMAT=json \
  "$V" verify "$CERT" "${AT[@]}"
cp "$OUT" "$T/f.json"
ok "... gives JSON" python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$T/f.json"
ok "--format wins over BOXCERT_FORMAT" env BOXCERT_POLICY=strict@1 BOXCERT_KEY="$PUB" BOXCERT_FORMAT=json \
  "$V" verify "$CERT" "${AT[@]}" --format text
like "$OUT" '^PASS ' "... text"
expect_rc 2 "a bad BOXCERT_FORMAT" env BOXCERT_FORMAT=yaml "$V" verify "$CERT" --policy strict@1 --key "$PUB"
like "$ERR" '^boxcert-verify: BOXCERT_FORMAT: ' "... names the variable"
ok "an empty variable counts as unset" env BOXCERT_FORMAT= "$V" verify "$CERT" --policy strict@1 \
  --key "$PUB" "${AT[@]}"
expect_rc 2 "no policy anywhere" env -u BOXCERT_POLICY "$V" verify "$CERT" --key "$PUB"
like "$ERR" 'BOXCERT_POLICY' "... the error names the variable too"
done_testing
