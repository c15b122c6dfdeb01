#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Expectations written by hand: fixtures/inspect/<case>/ holds a session's recorded Engine
# API replies (version, info, container, image, network), expected.json (written from the
# code under test, checked by tests/unit/attest/test_predicate.c), CASE, and by-hand.txt:
# the verdict-deciding fields as a person read them off the replies, each with the JSON
# pointers it comes from (docs/architecture.md, "Expectations written by hand").
# tests/lib/replay_engine.py serves the replies as a plain tcp:// engine (level engine:
# nothing of this host is read); boxcert inspect --format json and a certificate from
# boxcert collect, shown by boxcert-verify once it verifies, must carry every listed value;
# every cited pointer must resolve in the recorded reply (and equal it where the value is
# copied verbatim). Then the checker must refuse lists made wrong on purpose.
. "$(dirname "$0")/lib/testlib.sh"
PY=/usr/bin/python3
LIB=$BOXCERT_SOURCE_DIR/tests/lib
V=$BOXCERT_BIN/boxcert-verify
case_dir=${1:?usage: fixture_inspect.sh CASE_DIR}
name=inspect/$(basename "$case_dir")
LIST=$case_dir/by-hand.txt
engine_pid=
trap '[ -n "$engine_pid" ] && kill "$engine_pid" 2>/dev/null; rm -rf "$T"' EXIT

missing=
for d in "$(dirname "$case_dir")"/*/; do
  [ -f "$d/CASE" ] && [ -f "$d/by-hand.txt" ] || missing="$missing $(basename "$d")"
done
is "${missing:-none}" none "every case of fixtures/inspect has a CASE marker and a by-hand.txt"

$PY "$LIB/replay_engine.py" "$case_dir" >"$T/port" 2>"$T/engine.log" &
engine_pid=$!
for _ in $(seq 1 100); do [ -s "$T/port" ] && break; sleep 0.05; done
ENGINE=tcp://127.0.0.1:$(cat "$T/port")
on_engine() { "$BOXCERT" "$@" --engine "$ENGINE" --insecure-engine; }

expect_rc 0 "$name: boxcert inspect --format json" on_engine inspect x --format json
cp "$OUT" "$T/inspect.json"
"$BOXCERT" keygen --out "$T/k" >/dev/null 2>&1
expect_rc 0 "$name: boxcert collect" on_engine collect x --key "$T/k.key" --out "$T/cert.intoto.json"
printf 'version: 1\n' >"$T/trust-only.yaml"
expect_rc 0 "$name: the certificate verifies (boxcert-verify show)" \
  "$V" show "$T/cert.intoto.json" --policy "$T/trust-only.yaml" --key "$T/k.pub"
cp "$OUT" "$T/statement.json"

# check LIST: the by-hand list against the replies and both outputs; its report in $OUT/$ERR.
check() {
  $PY "$LIB/by_hand.py" check --inputs "$case_dir" --require inspect "$1" \
    "$T/inspect.json#/predicate" "$T/statement.json#/predicate"
}
expect_rc 0 "$name: the product's output carries every value of by-hand.txt" check "$LIST"
sed 's/^/# /' "$OUT" "$ERR"

# The checker must refuse a list made wrong on purpose. drop FIELD: the list without that
# entry (its line and the source and comment lines under it).
drop() { awk -v f="$1" '/^\// { skip = ($1 == f) } !skip' "$LIST"; }
refuses() { # refuses WHAT REGEX: the list in $T/bad.txt is refused, for the reason REGEX
  expect_rc 1 "$name: refused: $1" check "$T/bad.txt"
  like "$ERR" "$2" "$name: ... and says why"
}
sed 's#^/containment/network/interfaces null#/containment/network/interfaces ["lo"]#' "$LIST" >"$T/bad.txt"
refuses "a value the product does not give" 'inspect\.json: /containment/network/interfaces is null, by hand \["lo"\]'
{ cat "$LIST"; printf '/containment/notAMember 1\n  < container.json#/Id\n'; } >"$T/bad.txt"
refuses "a field missing from the product's output" '/containment/notAMember is missing'
{ cat "$LIST"; printf '/containment/rootfs absent\n  < container.json#/HostConfig/ReadonlyRootfs\n'; } >"$T/bad.txt"
refuses "an absent member the product has" '/containment/rootfs should be absent'
sed 's#= container.json\#/HostConfig/Privileged$#= container.json\#/HostConfig/Privilegd#' "$LIST" >"$T/bad.txt"
refuses "a reply pointer that does not resolve" 'container\.json#/HostConfig/Privilegd does not resolve'
sed '0,/= container.json#\/Id$/s##= image.json\#/Id#' "$LIST" >"$T/bad.txt"
refuses "a verbatim source that differs" 'but image\.json#/Id, said to be copied verbatim, is'
sed 's#! container.json\#/HostConfig/Sysctls#! container.json\#/HostConfig/CgroupParent#' "$LIST" >"$T/bad.txt"
refuses "an absent source that is there" 'container\.json#/HostConfig/CgroupParent resolves'
sed '0,/= container.json#\/Id$/s##= expected.json\#/fields#' "$LIST" >"$T/bad.txt"
refuses "expected.json as a source" 'expected\.json is not a recorded input'
drop /containment/noNewPrivileges >"$T/bad.txt"
refuses "a required field left out" 'no expectation for /containment/noNewPrivileges'
drop "$(grep -o -m1 '^/containment/writeSurface/[0-9]* absent' "$LIST" | cut -d' ' -f1)" >"$T/bad.txt"
refuses "a list given element by element, not closed" '/containment/writeSurface is given element by element'
done_testing
