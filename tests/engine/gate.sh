#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The verifier as a CI gate: bindings, challenge, replay, batches (jobs, JSON Lines,
# directories, stdin), every output format, and hostile strings kept inert.
. "$(dirname "$0")/../lib/testlib.sh"
need_engine
PY=/usr/bin/python3
V=$BOXCERT_BIN/boxcert-verify
POLICY=$BOXCERT_SOURCE_DIR/examples/policies/demo.yaml
HARD=(--network none --read-only --cap-drop ALL --security-opt no-new-privileges)

"$BOXCERT" keygen --out "$T/k" >/dev/null
img=$("$DOCKER" image inspect --format '{{.Id}}' "$SESSION_IMAGE")
a=$(session a --label team=blue "${HARD[@]}")
b=$(session b --label team=red "${HARD[@]}")
evil=$'evil\e[31m::error ::x</script><x a="&\'>\r\n%0A'
w=$(session weak --label "note=$evil")
nonce=00112233445566778899aabbccddeeff
"$BOXCERT" collect "$a" --key "$T/k.key" --nonce "$nonce" --out "$T/a.intoto.json"
"$BOXCERT" collect "$b" --key "$T/k.key" --out "$T/b.intoto.json"
"$BOXCERT" collect "$w" --key "$T/k.key" --out "$T/w.intoto.json"
name_a=$("$DOCKER" inspect --format '{{.Name}}' "$a"); name_a=${name_a#/}
verify() { "$V" verify --policy "$POLICY" --key "$T/k.pub" "$@"; }

# Bindings and challenge.
ok "bound to its image" verify "$T/a.intoto.json" --expect-image "$img"
expect_rc 1 "another image fails" verify "$T/a.intoto.json" --expect-image "sha256:$(printf 'ab%.0s' {1..32})"
like "$OUT" 'fail certificate.binding' "... as certificate.binding"
ok "bound to its container by id" verify "$T/a.intoto.json" --expect-container "$a"
ok "... by a 12-digit prefix" verify "$T/a.intoto.json" --expect-container "${a:0:12}"
ok "... by name" verify "$T/a.intoto.json" --expect-container "$name_a"
expect_rc 1 "another container fails" verify "$T/a.intoto.json" --expect-container "$b"
ok "bound to a label" verify "$T/a.intoto.json" --expect-label team=blue
expect_rc 1 "a label with another value fails" verify "$T/b.intoto.json" --expect-label team=blue
expect_rc 1 "a source binding fails without a source subject" verify "$T/a.intoto.json" \
  --expect-source 0123456789abcdef0123456789abcdef01234567
ok "the challenge it carries" verify "$T/a.intoto.json" --nonce "$nonce"
expect_rc 1 "another challenge fails" verify "$T/b.intoto.json" --nonce "$nonce"
like "$OUT" 'fail certificate.nonce' "... as certificate.nonce"
expect_rc 2 "a malformed --expect-image is a usage error" verify "$T/a.intoto.json" --expect-image nope

# Replay.
ok "first sight passes and is recorded" verify "$T/a.intoto.json" --seen "$T/seen"
like "$T/seen" '^\{"boxcertSeen":2,"maxSkewSeconds":[0-9]+\}$' "seen file has its header (with the skew)"
like "$T/seen" '"certificateId":"[0-9a-f]{64}"' "seen file records the certificate"
expect_rc 1 "the same certificate again is a replay" verify "$T/a.intoto.json" --seen "$T/seen"
like "$OUT" 'fail certificate.replay' "... as certificate.replay"
ok "another certificate still passes" verify "$T/b.intoto.json" --seen "$T/seen"
cp "$T/seen" "$T/seen.copy"
expect_rc 1 "one batch with a certificate twice: the second is a replay" verify "$T/b.intoto.json" "$T/b.intoto.json" --seen "$T/seen2"
ok "a failing certificate is not recorded" bash -c "'$V' verify '$T/w.intoto.json' --policy '$POLICY' --key '$T/k.pub' --seen '$T/seen3'; ! grep -q certificateId '$T/seen3'"
printf '{"boxcertSeen":1}\n{"certificateId":"zz"}\n' >"$T/corrupt"
expect_rc 2 "a corrupted --seen file is a configuration error" verify "$T/b.intoto.json" --seen "$T/corrupt"
like "$ERR" 'corrupt:2' "... naming file:line"
: >"$T/empty-seen"
expect_rc 2 "an empty --seen file is a configuration error" verify "$T/b.intoto.json" --seen "$T/empty-seen"
mkdir "$T/seen-dir"
expect_rc 2 "a --seen that is a directory is a configuration error" verify "$T/b.intoto.json" --seen "$T/seen-dir"

# Batches: directory, bundle, stdin, jobs (output in input order).
mkdir "$T/dir"
for i in $(seq 1 20); do cp "$T/a.intoto.json" "$T/dir/c$(printf %02d "$i").intoto.json"; done
cp "$T/w.intoto.json" "$T/dir/c07.intoto.json"
ok "a directory" bash -c "'$V' verify '$T/dir' --policy '$POLICY' --key '$T/k.pub' > '$T/seq.txt'; test \$? -eq 1"
cat "$T/dir"/*.intoto.json >"$T/bundle.intoto.jsonl"
expect_rc 1 "a JSON Lines bundle" verify "$T/bundle.intoto.jsonl" --format json --output "$T/bundle.json"
is "$($PY -c 'import json,sys; r=json.load(open(sys.argv[1])); print(r["summary"]["total"], r["summary"]["failed"], r["results"][6]["file"].endswith(":7"), r["results"][6]["verdict"])' "$T/bundle.json")" \
  "20 1 True fail" "bundle: 20 results, line 7 fails"
expect_rc 1 "stdin" bash -c "cat '$T/bundle.intoto.jsonl' | '$V' verify - --policy '$POLICY' --key '$T/k.pub' --format json"
like "$OUT" '"total":20' "stdin: 20 results"
# (the last line names the time of each run: the rest must be the same)
ok "--jobs 2 gives the same report, in input order" bash -c "'$V' verify '$T/dir' --policy '$POLICY' --key '$T/k.pub' --jobs 2 > '$T/par.txt'; test \$? -eq 1 && cmp <(sed '\$d' '$T/seq.txt') <(sed '\$d' '$T/par.txt') && tail -n 1 '$T/par.txt' | grep -q '^boxcert-verify .*; verified at '"

# Every format, validated where a schema exists. The weak session's label carries a
# terminal escape, a workflow command, </script>, XML metacharacters, CR/LF and %0A; a
# label binding puts it into every report (as the observed labels), where it must stay inert.
for f in text json junit sarif github; do
  expect_rc 1 "format $f" verify "$T/a.intoto.json" "$T/w.intoto.json" --expect-label note=x \
    --format "$f" --output "$T/out.$f"
done
check_schema report "$T/out.json"
ok "json carries the label intact" $PY -c 'import json,sys; r=json.load(open(sys.argv[1])); assert any(isinstance(f["observed"], dict) and f["observed"].get("note") == sys.argv[2] for x in r["results"] for f in x["findings"])' "$T/out.json" "$evil"
ok "junit is well-formed XML" $PY -c 'import sys, xml.dom.minidom as m; d=m.parse(sys.argv[1]); s=d.getElementsByTagName("testsuite")[0]; assert int(s.getAttribute("failures")) >= 5, s.getAttribute("failures")' "$T/out.junit"
like "$T/out.junit" '&lt;/script&gt;' "junit: </script> escaped"
ok "sarif is SARIF 2.1.0 with results" $PY -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["version"]=="2.1.0"; r=d["runs"][0]; assert len(r["results"])>=5 and all(x["ruleId"] for x in r["results"]); assert {x["id"] for x in r["tool"]["driver"]["rules"]} >= {x["ruleId"] for x in r["results"]}' "$T/out.sarif"
like "$T/out.github" '^::error file=[^,]*w\.intoto\.json,title=containment\.network::' "github annotations"
like "$T/out.github" 'r\\n%250A' "github: % encoded"
unlike "$T/out.github" '^::error ::x' "github: no injected workflow command"
like "$T/out.text" '^FAIL .*w\.intoto\.json' "text FAIL line"
for f in text github junit; do
  unlike "$T/out.$f" $'\e' "$f: no raw escape character"
  unlike "$T/out.$f" $'\r' "$f: no raw carriage return"
done
expect_rc 1 "show prints the verified statement (policy fails)" "$V" show "$T/w.intoto.json" --policy "$POLICY" --key "$T/k.pub"
like "$OUT" '"note": "evil\\u001[bB]\[31m::error ::x</script>' "show: the label is JSON-escaped"
unlike "$OUT" $'\e' "show: no raw escape character"
done_testing
