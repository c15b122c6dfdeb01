#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Real-engine smoke test (also run under ASan+UBSan by make asan): keygen, collect,
# verify pass and fail.
. "$(dirname "$0")/../lib/testlib.sh"
need_engine
POLICY=$BOXCERT_SOURCE_DIR/examples/policies/demo.yaml
ok "keygen" "$BOXCERT" keygen --out "$T/k"
id=$(session smoke --network none --read-only --cap-drop ALL --security-opt no-new-privileges)
ok "collect" "$BOXCERT" collect "$id" --key "$T/k.key" --out "$T/c.intoto.json"
ok "verify passes" "$BOXCERT" verify "$T/c.intoto.json" --policy "$POLICY" --key "$T/k.pub" --format json
like "$OUT" '"verdict":"pass"' "verdict pass"
id2=$(session smoke-weak)
ok "collect a weak session" "$BOXCERT" collect "$id2" --key "$T/k.key" --out "$T/w.intoto.json"
expect_rc 1 "verify rejects it" "$BOXCERT" verify "$T/w.intoto.json" --policy "$POLICY" --key "$T/k.pub"
done_testing
