#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# make memcheck: one run of each subcommand under valgrind memcheck, against the real
# engine. Passes when no run has a memory error or a definite/indirect leak.
set -uo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
bin=${BOXCERT_BIN:-$src/build/bin}
DOCKER=${BOXCERT_DOCKER:-/usr/bin/docker}
work=$(mktemp -d)
run=memcheck-$$
failed=0
count=0

cleanup() {
  ids=$("$DOCKER" ps -aq --filter "label=boxcert.test=$run" 2>/dev/null)
  [ -z "$ids" ] || "$DOCKER" rm -f $ids >/dev/null 2>&1
  rm -rf "$work"
}
trap cleanup EXIT

vg() { # vg NAME EXPECTED_EXIT CMD...
  local name=$1 want=$2 rc; shift 2
  count=$((count + 1))
  valgrind --quiet --leak-check=full --errors-for-leak-kinds=definite,indirect \
    --show-leak-kinds=definite,indirect --error-exitcode=99 --log-file="$work/vg.$count.log" \
    "$@" >"$work/out.$count" 2>"$work/err.$count"
  rc=$?
  # valgrind 3.19 does not know openat2 or pidfd_open (it warns, and the call fails with
  # ENOSYS, which the collector handles) nor the namespace ioctls (NS_GET_*, 0xb7..: they take
  # no buffer, so its "spurious value errors" warning does not apply); only errors and
  # definite or indirect leaks count.
  if [ "$rc" -eq 99 ] || grep -v -E 'unhandled amd64-linux syscall|own handler|README_MISSING_SYSCALL|consider this a bug|bug_reports|noted but unhandled ioctl 0xb7[0-9a-f][0-9a-f] with no size|This could cause spurious value errors' \
      "$work/vg.$count.log" | grep -q .; then
    echo "not ok $count - $name: valgrind found errors"; sed 's/^/#   /' "$work/vg.$count.log" | head -n 40
    failed=$((failed + 1))
  elif [ "$rc" -ne "$want" ]; then
    echo "not ok $count - $name: exit $rc, want $want"; sed 's/^/#   /' "$work/err.$count" | head -n 5
    failed=$((failed + 1))
  else
    echo "ok $count - $name"
  fi
}

cd "$work" || exit 1
B=$bin/boxcert
V=$bin/boxcert-verify
vg "keygen" 0 "$B" keygen --out k
"$B" keygen --out k2 --alg ecdsa-p256 >/dev/null
id=$("$DOCKER" run -d --label "boxcert.test=$run" --network none --read-only --cap-drop ALL \
  --security-opt no-new-privileges --pids-limit 64 --memory 256m --tmpfs /tmp:size=64m \
  boxcert-session:1 sleep 600)
vg "collect" 0 "$B" collect "$id" --key k.key --out c.intoto.json
vg "inspect" 0 "$B" inspect "$id" --format json
vg "verify (pass)" 0 "$V" verify c.intoto.json --policy "$src/examples/policies/demo.yaml" --key k.pub
vg "verify (strict, json, 2 jobs)" 0 "$B" verify c.intoto.json c.intoto.json --policy strict --key k.pub \
  --format json --jobs 2 --output r.json
vg "verify (junit)" 0 "$B" verify c.intoto.json --policy strict --key k.pub --format junit
vg "verify (sarif, --seen)" 0 "$B" verify c.intoto.json --policy strict --key k.pub --format sarif --seen seen
vg "verify (fail)" 1 "$B" verify c.intoto.json --policy cis-docker --key k2.pub
vg "sign" 0 "$B" sign c.intoto.json --key k2.key --policy strict --verify-key k.pub --out s.intoto.json
vg "show" 0 "$V" show s.intoto.json --policy strict --key k.pub
vg "policy check" 0 "$V" policy check "$src/examples/policies/demo.yaml"
vg "policy show" 0 "$V" policy show strict
vg "schema" 0 "$V" schema predicate
mkdir certs
vg "audit --collect" 1 "$B" audit --policy strict --key k.pub --certs certs --label "boxcert.test=$run" \
  --collect --signing-key k.key --format json --output audit.json
git init -q repo && git -C repo -c user.name=t -c user.email=t@t commit -q --allow-empty -m one
rev=$(git -C repo rev-parse HEAD)
"$B" collect "$id" --key k.key --source-repo repo --source-rev "$rev" --out src.intoto.json
vg "ledger add" 0 "$B" ledger add --repo repo --rev "$rev" --policy strict --key k.pub src.intoto.json
vg "ledger verify" 0 "$B" ledger verify --repo repo --range "$rev" --policy strict --key k.pub
vg "usage error" 2 "$B" verify
echo "1..$count"
[ "$failed" -eq 0 ] && echo "memcheck: $count runs clean" || echo "memcheck: $failed of $count runs failed"
[ "$failed" -eq 0 ]
