#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# collect --source-repo DIR --source-rev COMMIT: the commit checked with libgit2, recorded
# as the statement's source subject, source.dirty from the work tree (untracked files do
# not count); a repository owned by another user is accepted.
. "$(dirname "$0")/../lib/testlib.sh"
need_engine
PY=/usr/bin/python3
command -v git >/dev/null || skip_all "no git command line to make a repository with"
"$BOXCERT" keygen --out "$T/k" >/dev/null
id=$(session src --network none --read-only --cap-drop ALL)

g() { (cd "$T/repo" && GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1 GIT_AUTHOR_NAME=t \
  GIT_AUTHOR_EMAIL=t@e GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@e git "$@"); }
mkdir -p "$T/repo"
g init -q . && echo one >"$T/repo/f" && g add f && g commit -qm one
rev=$(g rev-parse HEAD)

statement() { # statement CERT: prints "subjects dirty"
  $PY - "$1" <<'PY'
import base64, json, sys
st = json.loads(base64.b64decode(json.load(open(sys.argv[1]))["payload"]))
subs = [s["name"] + ":" + list(s["digest"].values())[0] for s in st["subject"]]
print(" ".join(subs), json.dumps(st["predicate"]["source"]))
PY
}

ok "collect with a clean source" "$BOXCERT" collect "$id" --key "$T/k.key" \
  --source-repo "$T/repo" --source-rev "$rev" --out "$T/clean.intoto.json"
statement "$T/clean.intoto.json" >"$T/clean.txt"
like "$T/clean.txt" " source:$rev " "the source subject names the commit"
like "$T/clean.txt" '\{"dirty": false, "ignored": \[\]\}$' "source.dirty false, nothing ignored"
like "$T/clean.txt" '^image:[0-9a-f]{64} ' "the image subject first"
check_schema certificate "$T/clean.intoto.json"

echo scratch >"$T/repo/untracked"
ok "an untracked file" "$BOXCERT" collect "$id" --key "$T/k.key" --source-repo "$T/repo" \
  --source-rev "$rev" --out "$T/untracked.intoto.json"
like <(statement "$T/untracked.intoto.json") '\{"dirty": false, "ignored": \[\]\}$' "... is not dirty"
echo two >>"$T/repo/f"
ok "a changed tracked file" "$BOXCERT" collect "$id" --key "$T/k.key" --source-repo "$T/repo" \
  --source-rev "$rev" --out "$T/dirty.intoto.json"
like <(statement "$T/dirty.intoto.json") '\{"dirty": true, "ignored": \[\]\}$' "... is dirty"
g checkout -q -- f
# What a session with the checkout mounted could write to its .git to look clean
g update-index --skip-worktree f && g config core.fileMode false && echo three >>"$T/repo/f"
ok "a change hidden by skip-worktree and core.fileMode" "$BOXCERT" collect "$id" --key "$T/k.key" \
  --source-repo "$T/repo" --source-rev "$rev" --out "$T/hidden.intoto.json"
like <(statement "$T/hidden.intoto.json") '\{"dirty": true, "ignored": \["config", "skip-worktree"\]\}$' \
  "... is dirty, and what was ignored is recorded"
g update-index --no-skip-worktree f && g config --unset core.fileMode && g checkout -q -- f

chown -R nobody: "$T/repo" 2>/dev/null
ok "a repository owned by another user is accepted" "$BOXCERT" collect "$id" --key "$T/k.key" \
  --source-repo "$T/repo" --source-rev "$rev" --out "$T/owned.intoto.json"
like <(statement "$T/owned.intoto.json") " source:$rev " "... and recorded"

expect_rc 2 "a commit that is not in the repository" "$BOXCERT" collect "$id" --key "$T/k.key" \
  --source-repo "$T/repo" --source-rev "$(printf '1%.0s' {1..40})" --out "$T/bad.intoto.json"
like "$ERR" 'no such commit' "... named as such"
ok "... and no file" test ! -e "$T/bad.intoto.json"
expect_rc 2 "an abbreviated commit id" "$BOXCERT" collect "$id" --key "$T/k.key" \
  --source-repo "$T/repo" --source-rev "${rev:0:12}" --out "$T/bad.intoto.json"
expect_rc 2 "a folder that is no repository" "$BOXCERT" collect "$id" --key "$T/k.key" \
  --source-repo / --source-rev "$rev" --out "$T/bad.intoto.json"
expect_rc 2 "--source-repo without --source-rev" "$BOXCERT" collect "$id" --key "$T/k.key" \
  --source-repo "$T/repo" --out "$T/bad.intoto.json"
ok "no file from any of these" test ! -e "$T/bad.intoto.json"
chown -R root: "$T/repo" 2>/dev/null
done_testing
